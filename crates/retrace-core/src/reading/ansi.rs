//! Terminal output as styled spans: the SGR escapes (`ESC [ … m`) tools
//! print for colour and weight become [`Style`]s; every other escape
//! sequence (cursor moves, OSC titles and links, lone `ESC`) is removed, so
//! a view never shows `[38;2;…m` or a replacement glyph.
//!
//! Colours: the 16 named ones and the 256-colour palette as
//! [`Color::Indexed`], 24-bit as [`Color::Rgb`]. Attributes: bold, dim,
//! italic, underline, inverse; `0` (or an empty list) resets.

use std::borrow::Cow;

const ESC: char = '\u{1b}';

/// A colour as the terminal was told it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Color {
    /// 0–7 the named colours, 8–15 their bright forms, 16–255 the
    /// 256-colour palette.
    Indexed(u8),
    /// A 24-bit colour.
    Rgb(u8, u8, u8),
}

impl Color {
    /// The colour as `#rrggbb` (xterm's palette for indexed colours).
    pub fn hex(self) -> String {
        let (r, g, b) = self.rgb();
        format!("#{r:02x}{g:02x}{b:02x}")
    }

    /// Red, green and blue (xterm's values for indexed colours).
    pub fn rgb(self) -> (u8, u8, u8) {
        const NAMED: [(u8, u8, u8); 16] = [
            (0, 0, 0),
            (205, 0, 0),
            (0, 205, 0),
            (205, 205, 0),
            (0, 0, 238),
            (205, 0, 205),
            (0, 205, 205),
            (229, 229, 229),
            (127, 127, 127),
            (255, 0, 0),
            (0, 255, 0),
            (255, 255, 0),
            (92, 92, 255),
            (255, 0, 255),
            (0, 255, 255),
            (255, 255, 255),
        ];
        match self {
            Color::Rgb(r, g, b) => (r, g, b),
            Color::Indexed(i @ 0..=15) => NAMED[i as usize],
            Color::Indexed(i @ 16..=231) => {
                let i = i - 16;
                let level = |v: u8| if v == 0 { 0 } else { 55 + v * 40 };
                (level(i / 36), level((i / 6) % 6), level(i % 6))
            }
            Color::Indexed(i) => {
                let v = 8 + (i - 232) * 10;
                (v, v, v)
            }
        }
    }
}

/// How a span of text is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// Foreground colour; `None` is the view's own.
    pub fg: Option<Color>,
    /// Background colour; `None` is the view's own.
    pub bg: Option<Color>,
    /// Bold (SGR 1).
    pub bold: bool,
    /// Dim (SGR 2).
    pub dim: bool,
    /// Italic (SGR 3).
    pub italic: bool,
    /// Underlined (SGR 4).
    pub underline: bool,
    /// Foreground and background swapped (SGR 7).
    pub inverse: bool,
}

impl Style {
    /// No colour and no attribute: text as the view draws it.
    pub fn is_plain(&self) -> bool {
        *self == Style::default()
    }

    /// This style after the SGR parameters `params` (`1;38;5;208`).
    fn apply(&mut self, params: &str) {
        let mut codes = params
            .split([';', ':'])
            .map(|p| p.parse::<u16>().unwrap_or(0));
        if params.is_empty() {
            *self = Style::default();
            return;
        }
        while let Some(code) = codes.next() {
            match code {
                0 => *self = Style::default(),
                1 => self.bold = true,
                2 => self.dim = true,
                3 => self.italic = true,
                4 => self.underline = true,
                7 => self.inverse = true,
                21 | 22 => {
                    self.bold = false;
                    self.dim = false;
                }
                23 => self.italic = false,
                24 => self.underline = false,
                27 => self.inverse = false,
                30..=37 => self.fg = Some(Color::Indexed((code - 30) as u8)),
                90..=97 => self.fg = Some(Color::Indexed((code - 90 + 8) as u8)),
                40..=47 => self.bg = Some(Color::Indexed((code - 40) as u8)),
                100..=107 => self.bg = Some(Color::Indexed((code - 100 + 8) as u8)),
                39 => self.fg = None,
                49 => self.bg = None,
                38 | 48 => {
                    let color = match codes.next() {
                        Some(5) => codes.next().map(|n| Color::Indexed(n.min(255) as u8)),
                        Some(2) => {
                            let mut c = || codes.next().unwrap_or(0).min(255) as u8;
                            let (r, g, b) = (c(), c(), c());
                            Some(Color::Rgb(r, g, b))
                        }
                        _ => None,
                    };
                    if code == 38 {
                        self.fg = color;
                    } else {
                        self.bg = color;
                    }
                }
                _ => {}
            }
        }
    }
}

/// A run of text drawn in one style.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The text, with no escape left in it.
    pub text: String,
    /// How it is drawn.
    pub style: Style,
}

/// Whether `text` holds an escape (or another control character a view
/// would draw as a glyph) worth parsing.
pub fn has_escapes(text: &str) -> bool {
    text.contains(ESC) || text.contains('\u{9b}')
}

/// `text` cut into styled spans at its SGR escapes; other escapes are
/// dropped. Adjacent spans differ in style; no span is empty.
pub fn parse(text: &str) -> Vec<Span> {
    let mut spans: Vec<Span> = Vec::new();
    let mut style = Style::default();
    let mut current = String::new();
    let mut rest = text;
    while let Some(at) = rest.find([ESC, '\u{9b}']) {
        current.push_str(&rest[..at]);
        let (params, len) = escape_at(&rest[at..]);
        if let Some(params) = params {
            let mut next = style;
            next.apply(params);
            if next != style {
                push(&mut spans, std::mem::take(&mut current), style);
                style = next;
            }
        }
        rest = &rest[at + len..];
    }
    current.push_str(rest);
    push(&mut spans, current, style);
    spans
}

/// `text` without any escape sequence.
pub fn strip(text: &str) -> Cow<'_, str> {
    if !has_escapes(text) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(parse(text).into_iter().map(|s| s.text).collect())
}

fn push(spans: &mut Vec<Span>, text: String, style: Style) {
    if text.is_empty() {
        return;
    }
    match spans.last_mut() {
        Some(last) if last.style == style => last.text.push_str(&text),
        _ => spans.push(Span { text, style }),
    }
}

/// The escape sequence at the start of `s` (which starts with ESC or a
/// one-byte CSI): its SGR parameters if it is one, and its length in
/// bytes. An unfinished sequence runs to the end of the text.
fn escape_at(s: &str) -> (Option<&str>, usize) {
    let first = s.chars().next().map_or(1, char::len_utf8);
    let after = &s[first..];
    let csi_body = if s.starts_with('\u{9b}') {
        Some(after)
    } else {
        after.strip_prefix('[')
    };
    if let Some(body) = csi_body {
        let start = s.len() - body.len();
        // Parameter and intermediate bytes, then one final byte.
        return match body.find(|c: char| ('\u{40}'..='\u{7e}').contains(&c)) {
            Some(end) => {
                let final_byte = body.as_bytes()[end];
                let params = &body[..end];
                let sgr = final_byte == b'm'
                    && params
                        .bytes()
                        .all(|b| b.is_ascii_digit() || b == b';' || b == b':');
                (sgr.then_some(params), start + end + 1)
            }
            None => (None, s.len()),
        };
    }
    match after.chars().next() {
        // OSC (titles, hyperlinks), DCS, PM, APC: up to BEL or ESC \.
        Some(']' | 'P' | '^' | '_') => {
            let body = &after[1..];
            let bel = body.find('\u{7}').map(|i| (i, 1));
            let st = body.find("\u{1b}\\").map(|i| (i, 2));
            let end = match (bel, st) {
                (Some(a), Some(b)) => Some(if a.0 < b.0 { a } else { b }),
                (a, b) => a.or(b),
            };
            match end {
                Some((i, n)) => (None, first + 1 + i + n),
                None => (None, s.len()),
            }
        }
        // A two-character escape (`ESC 7`, `ESC (B` takes one more).
        Some(c @ ('(' | ')' | '*' | '+')) => {
            let len = first + c.len_utf8() + after[1..].chars().next().map_or(0, char::len_utf8);
            (None, len)
        }
        Some(c) => (None, first + c.len_utf8()),
        None => (None, first),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_attributes() {
        let spans = parse(
            "a\u{1b}[1;31mred\u{1b}[0m b \u{1b}[38;2;153;153;153mgrey\u{1b}[39m c\u{1b}[38;5;208mo",
        );
        let texts: Vec<&str> = spans.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(texts, ["a", "red", " b ", "grey", " c", "o"]);
        assert!(spans[1].style.bold);
        assert_eq!(spans[1].style.fg, Some(Color::Indexed(1)));
        assert!(spans[2].style.is_plain());
        assert_eq!(spans[3].style.fg, Some(Color::Rgb(153, 153, 153)));
        assert_eq!(spans[5].style.fg, Some(Color::Indexed(208)));
        assert_eq!(Color::Indexed(208).hex(), "#ff8700");
        assert_eq!(Color::Indexed(244).hex(), "#808080");
    }

    #[test]
    fn other_escapes_are_removed() {
        let text = "\u{1b}]0;title\u{7}x\u{1b}[2Ky\u{1b}]8;;http://a\u{1b}\\link\u{1b}(Bz\u{1b}";
        assert_eq!(strip(text), "xylinkz");
        assert_eq!(strip("plain"), "plain");
        // A sequence cut at the end of the text leaves nothing behind.
        assert_eq!(strip("ok\u{1b}[38;2;1"), "ok");
        assert_eq!(strip("\u{9b}32mgreen\u{9b}0m"), "green");
    }

    #[test]
    fn resets_and_bright_colours() {
        let spans = parse("\u{1b}[92;44;4mA\u{1b}[24;49mB\u{1b}[mC");
        assert_eq!(spans[0].style.fg, Some(Color::Indexed(10)));
        assert_eq!(spans[0].style.bg, Some(Color::Indexed(4)));
        assert!(spans[0].style.underline);
        assert_eq!(spans[1].style.fg, Some(Color::Indexed(10)));
        assert!(!spans[1].style.underline && spans[1].style.bg.is_none());
        assert!(spans[2].style.is_plain());
    }
}
