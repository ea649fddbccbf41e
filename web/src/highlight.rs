//! Text for `<pre>` blocks as escaped HTML with classes: terminal colours
//! (the core's [`ansi`] spans) and a light syntax highlight of source by
//! language (keywords, strings, comments, numbers). One string per block
//! set as `inner_html`, not a node per token: cheaper in the bundle and
//! on the page. Every character of the text is escaped here (and each
//! invisible character drawn as a mark, `invisible.rs`, as code viewers
//! show a hidden bidi override); the only
//! tags written are `<span class=…>` (and `style` for 256 and 24-bit
//! colours, made of hex digits).

use retrace_core::ansi::{self, Color, Style};

use crate::invisible::push_marked;

/// Terminal output as HTML: SGR colours as spans (`ansi-fg-N` classes for
/// the 16 named colours, inline colours otherwise), other escapes gone.
pub fn ansi_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for span in ansi::parse(text) {
        if span.style.is_plain() {
            push_marked(&span.text, &mut out);
            continue;
        }
        out.push_str("<span");
        style_attrs(span.style, &mut out);
        out.push('>');
        push_marked(&span.text, &mut out);
        out.push_str("</span>");
    }
    out
}

fn style_attrs(s: Style, out: &mut String) {
    let mut classes = Vec::new();
    let mut inline = String::new();
    let (fg, bg) = if s.inverse {
        (s.bg, s.fg)
    } else {
        (s.fg, s.bg)
    };
    for (color, side, prop) in [(fg, "fg", "color"), (bg, "bg", "background")] {
        match color {
            Some(Color::Indexed(i)) if i < 16 => classes.push(format!("ansi-{side}-{i}")),
            Some(c) => inline.push_str(&format!("{prop}:{};", c.hex())),
            None => {}
        }
    }
    for (on, class) in [
        (s.bold, "ansi-b"),
        (s.dim, "ansi-d"),
        (s.italic, "ansi-i"),
        (s.underline, "ansi-u"),
    ] {
        if on {
            classes.push(class.to_owned());
        }
    }
    if !classes.is_empty() {
        out.push_str(&format!(" class=\"{}\"", classes.join(" ")));
    }
    if !inline.is_empty() {
        out.push_str(&format!(" style=\"{inline}\""));
    }
}

/// What a token is, as its class (`hl-k` keyword, `hl-s` string, `hl-c`
/// comment, `hl-n` number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Plain,
    Keyword,
    Str,
    Comment,
    Number,
}

/// Source in `language` (the core's `language_of` names) as HTML with
/// its keywords, strings, comments and numbers in spans; unknown
/// languages and markdown are only escaped.
pub fn code_html(text: &str, language: Option<&str>) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    let Some(lang) = language.filter(|l| !matches!(*l, "markdown")) else {
        push_marked(text, &mut out);
        return out;
    };
    let hash_comments = matches!(lang, "python" | "shell" | "ruby" | "toml" | "yaml");
    let slash_comments = !matches!(
        lang,
        "python" | "shell" | "ruby" | "toml" | "yaml" | "json" | "html" | "sql" | "lua"
    );
    let keywords = keywords(lang);
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let token = if (hash_comments && c == b'#')
            || (slash_comments && text[i..].starts_with("//"))
            || (matches!(lang, "sql" | "lua") && text[i..].starts_with("--"))
        {
            i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
            Token::Comment
        } else if slash_comments && text[i..].starts_with("/*") {
            i = text[i + 2..]
                .find("*/")
                .map_or(bytes.len(), |n| i + 2 + n + 2);
            Token::Comment
        } else if c == b'"' || c == b'\'' || (c == b'`' && matches!(lang, "js" | "ts" | "go")) {
            // To the closing quote on the same line (a lone apostrophe in
            // Rust's lifetimes or prose does not swallow the file).
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != c && (bytes[j] != b'\n' || c == b'`') {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            i = (j + 1).min(bytes.len());
            Token::Str
        } else if c.is_ascii_digit() {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.' || bytes[i] == b'_')
            {
                i += 1;
            }
            Token::Number
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            if keywords.contains(&&text[start..i]) {
                Token::Keyword
            } else {
                Token::Plain
            }
        } else {
            // One character (whole, for UTF-8).
            i += text[i..].chars().next().map_or(1, char::len_utf8);
            Token::Plain
        };
        let piece = &text[start..i];
        let class = match token {
            Token::Plain => None,
            Token::Keyword => Some("hl-k"),
            Token::Str => Some("hl-s"),
            Token::Comment => Some("hl-c"),
            Token::Number => Some("hl-n"),
        };
        match class {
            Some(class) => {
                out.push_str("<span class=\"");
                out.push_str(class);
                out.push_str("\">");
                push_marked(piece, &mut out);
                out.push_str("</span>");
            }
            None => push_marked(piece, &mut out),
        }
    }
    out
}

/// A language's keywords (the common ones: enough to read by).
fn keywords(lang: &str) -> &'static [&'static str] {
    match lang {
        "rust" => &[
            "fn", "let", "mut", "pub", "use", "mod", "struct", "enum", "impl", "trait", "for",
            "in", "if", "else", "match", "while", "loop", "return", "self", "Self", "const",
            "static", "where", "as", "crate", "super", "true", "false", "async", "await", "move",
            "dyn", "ref", "type", "unsafe", "break", "continue",
        ],
        "python" => &[
            "def", "class", "return", "if", "elif", "else", "for", "while", "in", "import", "from",
            "as", "with", "try", "except", "finally", "raise", "not", "and", "or", "is", "None",
            "True", "False", "lambda", "yield", "async", "await", "pass", "self",
        ],
        "js" | "ts" => &[
            "function",
            "const",
            "let",
            "var",
            "return",
            "if",
            "else",
            "for",
            "while",
            "of",
            "in",
            "import",
            "export",
            "from",
            "default",
            "class",
            "new",
            "this",
            "async",
            "await",
            "true",
            "false",
            "null",
            "undefined",
            "type",
            "interface",
            "extends",
            "typeof",
        ],
        "go" => &[
            "func",
            "package",
            "import",
            "var",
            "const",
            "type",
            "struct",
            "interface",
            "return",
            "if",
            "else",
            "for",
            "range",
            "go",
            "defer",
            "nil",
            "true",
            "false",
            "map",
        ],
        "shell" => &[
            "if", "then", "else", "fi", "for", "do", "done", "while", "case", "esac", "function",
            "export", "local", "echo", "return", "in",
        ],
        "json" | "toml" | "yaml" => &["true", "false", "null"],
        "c" | "cpp" | "java" | "kotlin" | "swift" => &[
            "int", "char", "void", "return", "if", "else", "for", "while", "struct", "class",
            "public", "private", "static", "const", "new", "true", "false", "null", "import",
            "include", "fun", "val", "var", "func", "let",
        ],
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_spans_are_escaped_html() {
        let html = ansi_html(
            "a<b \u{1b}[1;31mred\u{1b}[0m \u{1b}[38;2;153;153;153m&grey\u{1b}[39m\u{1b}]0;t\u{7}",
        );
        assert_eq!(
            html,
            "a&lt;b <span class=\"ansi-fg-1 ansi-b\">red</span> <span style=\"color:#999999;\">&amp;grey</span>"
        );
    }

    #[test]
    fn code_is_highlighted_and_escaped() {
        let html = code_html("fn main() { let s = \"<x>\"; } // done\n'a", Some("rust"));
        assert_eq!(
            html,
            "<span class=\"hl-k\">fn</span> main() { <span class=\"hl-k\">let</span> s = <span class=\"hl-s\">&quot;&lt;x&gt;&quot;</span>; } <span class=\"hl-c\">// done</span>\n<span class=\"hl-s\">&#39;a</span>"
        );
        assert_eq!(
            code_html("# a <b>", Some("python")),
            "<span class=\"hl-c\"># a &lt;b&gt;</span>"
        );
        assert_eq!(code_html("x <y>", None), "x &lt;y&gt;");
    }
}
