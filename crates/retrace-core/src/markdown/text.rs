//! Text placed in Markdown so that nothing in it can change the
//! document around it. A session is untrusted text: a tool's output can
//! hold ```` ``` ````, a model can write `</details>` or open a fence and
//! never close it.
//!
//! - [`fenced`]: code and output as they are, in a fence longer than any
//!   run of backticks inside.
//! - [`inline`]: a line of our own Markdown (a heading, a list item) with
//!   the session's words in it, every mark-up character escaped.
//! - [`html`]: text inside the HTML we write (`<summary>`), escaped.
//! - [`code`]: a code span that holds any text.
//! - [`prose`]: what the session wrote as Markdown (prompts, answers,
//!   thinking) stays Markdown, except that raw HTML shows as text (as the
//!   viewer shows it), a fence it leaves open is closed, so it cannot
//!   swallow what follows, and its headings sit three levels down, under
//!   the export's own (title, prompts, messages).

use std::io::{self, Write};

use crate::reading::visible;

/// The longest run of `byte` in `text`.
fn longest_run(text: &str, byte: u8) -> usize {
    let (mut best, mut run) = (0, 0);
    for &b in text.as_bytes() {
        run = if b == byte { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// `text` in a fenced code block with `info` (a language, or nothing),
/// then a blank line. The fence is longer than any backtick run in
/// `text`, so no line of it closes the block. Bidi controls and
/// zero-width characters are written as marks, as in [`code`] (source
/// code that reads reordered is the attack they make).
pub fn fenced(out: &mut dyn Write, text: &str, info: &str) -> io::Result<()> {
    let text = visible(text);
    let text = text.as_ref();
    let fence = "`".repeat(longest_run(text, b'`').max(2) + 1);
    // An info string ends at the first blank and may hold no backtick.
    let info: String = info
        .chars()
        .take_while(|c| !c.is_whitespace())
        .filter(|&c| c != '`')
        .collect();
    writeln!(out, "{fence}{info}")?;
    if !text.is_empty() {
        out.write_all(text.as_bytes())?;
        if !text.ends_with('\n') {
            writeln!(out)?;
        }
    }
    writeln!(out, "{fence}")?;
    writeln!(out)
}

/// `text` as words on one line of Markdown we write: line breaks and tabs
/// become spaces, and every character Markdown or HTML reads as mark-up
/// is escaped.
pub fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in one_line(text).chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '&' | '~' | '|' | '#'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// `text` inside HTML we write, on one line: `&`, `<`, `>` and `"`
/// escaped.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in one_line(text).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` as an inline code span, on one line: delimited by more
/// backticks than any run inside, padded where it starts or ends with a
/// backtick or a blank (CommonMark takes one space off each side).
/// Bidi controls and zero-width characters are written as marks
/// (`<U+202E>`): code (a name, an id, a path, a command) read reordered
/// would say something else.
pub fn code(text: &str) -> String {
    let text = one_line(&visible(text));
    let ticks = "`".repeat(longest_run(&text, b'`') + 1);
    let pad = text.starts_with(['`', ' ']) || text.ends_with(['`', ' ']);
    let space = if pad { " " } else { "" };
    format!("{ticks}{space}{text}{space}{ticks}")
}

/// Line breaks and tabs as spaces, runs of blanks as one, trimmed.
fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `text` cut to `max` characters with `…` when longer.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

/// A fence that opens or closes a fenced code block: its character, its
/// length, and (for an opening one) whether it is one at all.
struct Fence {
    char: u8,
    len: usize,
}

/// The fence `line` opens (CommonMark: up to three spaces, then three or
/// more backticks whose info string holds none, or three or more tildes).
fn opening_fence(line: &str) -> Option<Fence> {
    let rest = strip_indent(line)?;
    let char = *rest.as_bytes().first()?;
    if char != b'`' && char != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|&b| b == char).count();
    if len < 3 || (char == b'`' && rest[len..].contains('`')) {
        return None;
    }
    Some(Fence { char, len })
}

/// Whether `line` closes a block `fence` opened: the same character, at
/// least as many, nothing but blanks after.
fn closes(line: &str, fence: &Fence) -> bool {
    let Some(rest) = strip_indent(line) else {
        return false;
    };
    let len = rest.bytes().take_while(|&b| b == fence.char).count();
    len >= fence.len && rest[len..].trim().is_empty()
}

/// `line` without up to three leading spaces; `None` when it is indented
/// more (a code block's line, not a fence).
fn strip_indent(line: &str) -> Option<&str> {
    let spaces = line.bytes().take_while(|&b| b == b' ').count();
    (spaces <= 3 && !line[spaces..].starts_with('\t')).then(|| &line[spaces..])
}

/// Markdown the session wrote, written as Markdown, then a blank line.
/// Outside code (fences and code spans) a `<` that would open an HTML tag,
/// comment or declaration is written `&lt;`: raw HTML shows as the text
/// it is, and none of it can close or open the blocks around it. A fence
/// left open is closed at the end.
pub fn prose(out: &mut dyn Write, text: &str) -> io::Result<()> {
    // A lone carriage return ends a line for CommonMark too: a fence
    // behind one must be seen here.
    let text: std::borrow::Cow<'_, str> = match text.contains('\r') {
        true => text.replace("\r\n", "\n").replace('\r', "\n").into(),
        false => text.into(),
    };
    let mut open: Option<Fence> = None;
    for line in text.lines() {
        match &open {
            Some(fence) => {
                if closes(line, fence) {
                    open = None;
                }
                writeln!(out, "{line}")?;
            }
            None => {
                open = opening_fence(line);
                if open.is_some() {
                    writeln!(out, "{line}")?;
                } else {
                    writeln!(out, "{}", demoted(&without_tags(line)))?;
                }
            }
        }
    }
    if let Some(fence) = open {
        let close = String::from_utf8(vec![fence.char; fence.len]).expect("ASCII");
        writeln!(out, "{close}")?;
    }
    writeln!(out)
}

/// Levels an ATX heading of the session's goes down: the export's own
/// headings are the title (1), prompts (2) and messages (3).
const HEADING_SHIFT: usize = 3;

/// `line`, if an ATX heading (`## Plan`), [`HEADING_SHIFT`] levels down
/// (at most 6); any other line as it is.
fn demoted(line: &str) -> std::borrow::Cow<'_, str> {
    let Some(rest) = strip_indent(line) else {
        return line.into();
    };
    let level = rest.bytes().take_while(|&b| b == b'#').count();
    let after = &rest[level..];
    if level == 0 || level > 6 || !(after.is_empty() || after.starts_with([' ', '\t'])) {
        return line.into();
    }
    let hashes = "#".repeat((level + HEADING_SHIFT).min(6));
    format!("{hashes}{after}").into()
}

/// `line` with each `<` that starts a tag (`<a`, `</a`, `<!--`, `<?`)
/// outside code spans written `&lt;`.
fn without_tags(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut at = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            // An escaped character is never mark-up.
            b'\\' => i += 2,
            b'`' => {
                let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
                // A code span runs to the next run of the same length.
                i = match closing_run(bytes, i + run, run) {
                    Some(end) => end + run,
                    None => i + run,
                };
            }
            b'<' if bytes
                .get(i + 1)
                .is_some_and(|b| b.is_ascii_alphabetic() || matches!(b, b'/' | b'!' | b'?')) =>
            {
                out.push_str(&line[at..i]);
                out.push_str("&lt;");
                i += 1;
                at = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&line[at.min(line.len())..]);
    out
}

/// Where the run of exactly `len` backticks that closes a code span
/// opened before `from` starts, if on this line.
fn closing_run(bytes: &[u8], from: usize, len: usize) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
            if run == len {
                return Some(i);
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
        let mut out = Vec::new();
        f(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_fence_is_longer_than_any_run_inside() {
        assert_eq!(
            written(|o| fenced(o, "plain", "rust")),
            "```rust\nplain\n```\n\n"
        );
        let text = "```\n</details>\n`````\n";
        let md = written(|o| fenced(o, text, "text with `ticks`"));
        assert_eq!(md, format!("``````text\n{text}``````\n\n"));
        assert_eq!(written(|o| fenced(o, "", "")), "```\n```\n\n");
        assert_eq!(
            written(|o| fenced(o, "if a\u{2067} {}", "rust")),
            "```rust\nif a<U+2067> {}\n```\n\n"
        );
    }

    #[test]
    fn inline_text_and_html_are_escaped() {
        assert_eq!(
            inline("a *b* _c_ `d` [e](f) <g> & h\nnext"),
            r"a \*b\* \_c\_ \`d\` \[e\](f) \<g\> \& h next"
        );
        assert_eq!(
            html("<b>\"x\" & y</b>\n z"),
            "&lt;b&gt;&quot;x&quot; &amp; y&lt;/b&gt; z"
        );
        assert_eq!(code("ls"), "`ls`");
        assert_eq!(code("a ` b"), "``a ` b``");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code("rm -rf \u{202E}fdp.exe"), "`rm -rf <U+202E>fdp.exe`");
        assert_eq!(cut("abcdef", 3), "abc…");
        assert_eq!(cut("abc", 3), "abc");
    }

    #[test]
    fn prose_keeps_markdown_and_shows_html_as_text() {
        let text = "# Plan\n\n- **bold** and `<code>`\n</details>\n<!-- hidden\na < b, x<y";
        assert_eq!(
            written(|o| prose(o, text)),
            "#### Plan\n\n- **bold** and `<code>`\n&lt;/details>\n&lt;!-- hidden\na < b, x&lt;y\n\n"
        );
        // Headings go three levels down, at most to 6; a `#tag` is no
        // heading.
        assert_eq!(demoted("  ### Deep"), "###### Deep");
        assert_eq!(demoted("##### Deeper"), "###### Deeper");
        assert_eq!(demoted("#tag"), "#tag");
        assert_eq!(demoted("    # code"), "    # code");
        // Inside a fence nothing is touched; a fence left open is closed.
        let text = "see:\n````sh\n<b>\n```\nstill code\n";
        assert_eq!(
            written(|o| prose(o, text)),
            "see:\n````sh\n<b>\n```\nstill code\n````\n\n"
        );
        // A fence behind a lone carriage return is one too.
        assert_eq!(written(|o| prose(o, "a\r```\rb")), "a\n```\nb\n```\n\n");
        // A closed fence stays as written, and what follows is prose.
        let text = "~~~\n<i>\n~~~\n<i>";
        assert_eq!(written(|o| prose(o, text)), "~~~\n<i>\n~~~\n&lt;i>\n\n");
        // An escaped backtick opens no code span; an unmatched run is
        // literal.
        assert_eq!(without_tags(r"\`<a>`"), r"\`&lt;a>`");
        assert_eq!(without_tags("``a`<b>``"), "``a`<b>``");
        assert_eq!(without_tags("`<a> <b>"), "`&lt;a> &lt;b>");
        // Indented four spaces: not a fence.
        assert!(opening_fence("    ```").is_none());
        assert!(opening_fence("``` a`b").is_none());
    }
}
