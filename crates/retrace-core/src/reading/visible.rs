//! Untrusted text made safe to show: the characters that draw nothing or
//! reorder the text around them (bidi controls, zero-width characters, tag
//! characters) written as visible marks, `<U+202E>`.
//!
//! A name, an id or a message of a session is whatever its writer put
//! there. A right-to-left override in an id turns the rest of its line
//! around on a terminal or in a page (the "Trojan Source" trick); a
//! zero-width space makes two ids that differ look the same; tag
//! characters (U+E0000–U+E007F) carry text no one sees. Views show such
//! characters as marks instead: `retrace show`, `tree`, `info` and the
//! rest of the CLI's text output through this function, the viewer too.
//! The bytes themselves are never changed: `retrace cat`, JSON output and
//! exports keep them.

use std::borrow::Cow;

/// Whether `c` draws nothing or changes the order of the text around it:
/// bidi embeddings, overrides, isolates and marks; zero-width spaces,
/// joiners and the byte order mark; invisible operators; Hangul fillers;
/// tag characters.
/// Ordinary right-to-left letters (Arabic, Hebrew) are text, not this.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        // Arabic letter mark, Mongolian vowel separator, combining grapheme joiner.
        '\u{061C}' | '\u{180E}' | '\u{034F}'
        // Zero-width space, non-joiner, joiner; left-to-right and right-to-left marks.
        | '\u{200B}'..='\u{200F}'
        // Line and paragraph separators (a line break no one sees coming).
        | '\u{2028}' | '\u{2029}'
        // Embeddings, pop, overrides.
        | '\u{202A}'..='\u{202E}'
        // Word joiner, invisible operators, isolates, deprecated format controls.
        | '\u{2060}'..='\u{206F}'
        // Zero-width no-break space (byte order mark).
        | '\u{FEFF}'
        // Hangul fillers (letters that draw as blanks, used to fake names).
        | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}'
        // Interlinear annotation controls.
        | '\u{FFF9}'..='\u{FFFB}'
        // Tags.
        | '\u{E0000}'..='\u{E007F}'
    )
}

/// `text` with every [`is_invisible`] character written as `<U+XXXX>`
/// (four to six hex digits, upper case); borrowed when it holds none.
///
/// ```
/// use retrace_core::visible;
/// assert_eq!(visible("abc"), "abc");
/// assert_eq!(visible("a\u{202E}b\u{200B}c"), "a<U+202E>b<U+200B>c");
/// ```
pub fn visible(text: &str) -> Cow<'_, str> {
    // Every such character starts with one of these bytes in UTF-8: most
    // text (and all ASCII) is passed by a byte loop, not decoded.
    if !text
        .bytes()
        .any(|b| matches!(b, 0xCD | 0xD8 | 0xE1 | 0xE2 | 0xE3 | 0xEF | 0xF3))
    {
        return Cow::Borrowed(text);
    }
    let Some(first) = text.find(is_invisible) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    push_visible(&text[first..], &mut out);
    Cow::Owned(out)
}

/// Appends `text` to `out` as [`visible`] writes it.
pub fn push_visible(text: &str, out: &mut String) {
    for c in text.chars() {
        if is_invisible(c) {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            out.push(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_controls_and_keeps_text() {
        assert!(matches!(visible("plain ascii"), Cow::Borrowed(_)));
        assert!(matches!(visible("עברית العربية"), Cow::Borrowed(_)));
        assert_eq!(
            visible("id\u{202E}cod.exe\u{2066}x\u{2069}"),
            "id<U+202E>cod.exe<U+2066>x<U+2069>"
        );
        assert_eq!(visible("\u{FEFF}a\u{E0041}"), "<U+FEFF>a<U+E0041>");
        assert_eq!(visible("a\u{200D}b"), "a<U+200D>b");
    }

    /// Every invisible character starts with a byte the fast path looks
    /// for.
    #[test]
    fn the_fast_path_misses_none() {
        for c in (0..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|&c| is_invisible(c))
        {
            let s = c.to_string();
            assert_ne!(visible(&s), s, "U+{:04X}", c as u32);
        }
    }

    /// Every mark is printable ASCII, so nothing shown can reorder it.
    #[test]
    fn marks_are_ascii() {
        for c in ['\u{061C}', '\u{200E}', '\u{202E}', '\u{2069}', '\u{E007F}'] {
            let shown = visible(&c.to_string()).into_owned();
            assert!(shown.bytes().all(|b| b.is_ascii_graphic()), "{shown}");
        }
    }
}
