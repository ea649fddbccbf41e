//! Invisible characters drawn as marks: what the core calls invisible
//! (`retrace_core::is_invisible`: bidi controls, zero-width characters,
//! tag characters) shown in names, ids and code as a small badge
//! (`<span class="invisible" title="U+202E RIGHT-TO-LEFT OVERRIDE">RLO</span>`)
//! instead of being put into the page, where a right-to-left override
//! would turn the rest of a name around and a zero-width space would make
//! two ids look the same ("Trojan Source").
//!
//! Only the drawing changes: the session's bytes, its downloads and what
//! the engine holds are untouched. A name is drawn inside `<bdi>`, so the
//! text around it keeps its order whatever the name holds; the page's
//! `copy` handler (`app::frame`) puts each mark's character back in what
//! is copied.

use crate::markdown::escape;
use retrace_core::is_invisible;

/// The short label and the Unicode name of the characters a session is
/// likeliest to hide; others are labelled by code point.
const KNOWN: &[(u32, &str, &str)] = &[
    (0x061C, "ALM", "ARABIC LETTER MARK"),
    (0x180E, "MVS", "MONGOLIAN VOWEL SEPARATOR"),
    (0x200B, "ZWSP", "ZERO WIDTH SPACE"),
    (0x200C, "ZWNJ", "ZERO WIDTH NON-JOINER"),
    (0x200D, "ZWJ", "ZERO WIDTH JOINER"),
    (0x200E, "LRM", "LEFT-TO-RIGHT MARK"),
    (0x200F, "RLM", "RIGHT-TO-LEFT MARK"),
    (0x2028, "LSEP", "LINE SEPARATOR"),
    (0x2029, "PSEP", "PARAGRAPH SEPARATOR"),
    (0x202A, "LRE", "LEFT-TO-RIGHT EMBEDDING"),
    (0x202B, "RLE", "RIGHT-TO-LEFT EMBEDDING"),
    (0x202C, "PDF", "POP DIRECTIONAL FORMATTING"),
    (0x202D, "LRO", "LEFT-TO-RIGHT OVERRIDE"),
    (0x202E, "RLO", "RIGHT-TO-LEFT OVERRIDE"),
    (0x2060, "WJ", "WORD JOINER"),
    (0x2066, "LRI", "LEFT-TO-RIGHT ISOLATE"),
    (0x2067, "RLI", "RIGHT-TO-LEFT ISOLATE"),
    (0x2068, "FSI", "FIRST STRONG ISOLATE"),
    (0x2069, "PDI", "POP DIRECTIONAL ISOLATE"),
    (0xFEFF, "BOM", "ZERO WIDTH NO-BREAK SPACE"),
];

/// Whether `text` holds a character drawn as a mark.
pub fn has_invisible(text: &str) -> bool {
    text.chars().any(is_invisible)
}

/// Appends `text` to `out` as escaped HTML, each invisible character as
/// its mark. The mark's `data-c` holds the code point so a copy can put
/// the character back.
pub fn push_marked(text: &str, out: &mut String) {
    let mut from = 0;
    for (at, c) in text.char_indices() {
        if !is_invisible(c) {
            continue;
        }
        escape(&text[from..at], out);
        from = at + c.len_utf8();
        let code = c as u32;
        let (label, name) = match KNOWN.iter().find(|k| k.0 == code) {
            Some(&(_, label, name)) => (label.to_owned(), name),
            None => (format!("U+{code:04X}"), "invisible character"),
        };
        out.push_str(&format!(
            "<span class=\"invisible\" data-c=\"{code}\" title=\"U+{code:04X} {name}\">{label}</span>"
        ));
    }
    escape(&text[from..], out);
}

/// HTML made by this crate's escapers (`markdown.rs`) with the invisible
/// characters of its text, not of its tags, as marks: what "show them"
/// on a message shows.
pub fn mark_html(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + 64);
    let mut in_tag = false;
    let mut from = 0;
    for (at, c) in html.char_indices() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag && is_invisible(c) => {
                out.push_str(&html[from..at]);
                push_marked(&html[at..at + c.len_utf8()], &mut out);
                from = at + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push_str(&html[from..]);
    out
}

/// A name or an id as HTML: isolated (`<bdi>`), invisible characters as
/// marks.
pub fn name_html(text: &str) -> String {
    let mut out = String::from("<bdi>");
    push_marked(text, &mut out);
    out.push_str("</bdi>");
    out
}

/// A name or an id as a view: `<bdi>`, its invisible characters as marks.
pub fn name_view(text: String) -> leptos::prelude::AnyView {
    use leptos::prelude::*;
    if has_invisible(&text) {
        let mut html = String::new();
        push_marked(&text, &mut html);
        view! { <bdi inner_html=html></bdi> }.into_any()
    } else {
        view! { <bdi>{text}</bdi> }.into_any()
    }
}

/// The page's `copy`: a selection that holds marks is copied with each
/// mark's character in its place (what the session says, not the badge's
/// label); one without marks is left to the browser.
pub fn copy_originals(ev: web_sys::ClipboardEvent) {
    use wasm_bindgen::JsCast;
    let Some(range) = leptos::prelude::window()
        .get_selection()
        .ok()
        .flatten()
        .filter(|s| s.range_count() > 0)
        .and_then(|s| s.get_range_at(0).ok())
    else {
        return;
    };
    let Ok(part) = range.clone_contents() else {
        return;
    };
    let Ok(marks) = part.query_selector_all(".invisible[data-c]") else {
        return;
    };
    if marks.length() == 0 {
        return;
    }
    for i in 0..marks.length() {
        let Some(mark) = marks
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        let c = mark
            .get_attribute("data-c")
            .and_then(|c| c.parse::<u32>().ok())
            .and_then(char::from_u32);
        mark.set_text_content(c.map(String::from).as_deref());
    }
    if let (Some(data), Some(text)) = (ev.clipboard_data(), part.text_content()) {
        if data.set_data("text/plain", &text).is_ok() {
            ev.prevent_default();
        }
    }
}

/// Text for an attribute (a `title`, an `aria-label`): invisible
/// characters written as `<U+202E>`, as the CLI writes them.
pub fn attr_text(text: &str) -> String {
    retrace_core::visible(text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_each_invisible_character_and_escapes_the_rest() {
        let html = name_html("a<\u{202E}b\u{200B}c\u{E0041}");
        assert_eq!(
            html,
            "<bdi>a&lt;<span class=\"invisible\" data-c=\"8238\" \
             title=\"U+202E RIGHT-TO-LEFT OVERRIDE\">RLO</span>b\
             <span class=\"invisible\" data-c=\"8203\" title=\"U+200B ZERO WIDTH SPACE\">ZWSP</span>c\
             <span class=\"invisible\" data-c=\"917569\" title=\"U+E0041 invisible character\">U+E0041</span></bdi>"
        );
        // Nothing hostile left as a character, whatever was there.
        let all: String = (0..0x110000u32)
            .filter_map(char::from_u32)
            .filter(|&c| is_invisible(c))
            .collect();
        let mut out = String::new();
        push_marked(&all, &mut out);
        assert!(!has_invisible(&out));
        assert_eq!(
            out.matches("class=\"invisible\"").count(),
            all.chars().count()
        );
    }

    #[test]
    fn marks_text_of_html_not_its_tags() {
        assert_eq!(
            mark_html("<a href=\"x\u{200B}\">a\u{202E}b</a>"),
            "<a href=\"x\u{200B}\">a<span class=\"invisible\" data-c=\"8238\" \
             title=\"U+202E RIGHT-TO-LEFT OVERRIDE\">RLO</span>b</a>"
        );
    }

    #[test]
    fn code_is_marked_prose_is_kept() {
        let html = crate::markdown::to_html("a\u{202E}b `c\u{202E}d`\n\n```\ne\u{200B}f\n```");
        assert!(html.contains("a\u{202E}b"), "{html}");
        assert!(
            html.contains("<code>c<span class=\"invisible\" data-c=\"8238\""),
            "{html}"
        );
        assert!(
            html.contains("e<span class=\"invisible\" data-c=\"8203\""),
            "{html}"
        );
        let code = crate::highlight::code_html("let s = \"\u{2066}\";", Some("rust"));
        assert!(
            code.contains("<span class=\"hl-s\">&quot;<span class=\"invisible\" data-c=\"8294\""),
            "{code}"
        );
        assert!(!has_invisible(&code));
        let out = crate::highlight::ansi_html("\x1b[31mred\u{202E}\x1b[0m");
        assert!(!has_invisible(&out), "{out}");
    }

    #[test]
    fn plain_and_right_to_left_text_is_kept() {
        assert_eq!(name_html("Bash"), "<bdi>Bash</bdi>");
        assert_eq!(name_html("עברית"), "<bdi>עברית</bdi>");
        assert!(!has_invisible("עברית العربية"));
        assert_eq!(attr_text("x\u{2066}y"), "x<U+2066>y");
    }

    #[test]
    fn every_known_character_is_one_the_core_calls_invisible() {
        for &(code, ..) in KNOWN {
            assert!(is_invisible(char::from_u32(code).unwrap()), "{code:X}");
        }
    }
}
