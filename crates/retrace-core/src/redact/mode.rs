//! What a match is replaced with: `***`, `[REDACTED:kind]`, or a
//! pseudonym (`<email-1>`) that is the same for the same value within one
//! redactor, numbered in order of first appearance, so the output is the
//! same bytes for the same input however it was chunked.

use std::collections::HashMap;

use super::kind::{KindId, KindInfo};

/// How matches are replaced. The default, for the CLI and the viewer
/// alike, is [`Mode::Typed`]: a reader sees what kind of value was hidden.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// `***`
    Mask,
    /// `[REDACTED:aws-access-key-id]`
    #[default]
    Typed,
    /// `<email-1>`: equal values get equal placeholders.
    Pseudo,
}

impl Mode {
    /// Parses `mask`, `typed` or `pseudo`.
    pub fn parse(name: &str) -> Option<Mode> {
        match name {
            "mask" => Some(Mode::Mask),
            "typed" => Some(Mode::Typed),
            "pseudo" => Some(Mode::Pseudo),
            _ => None,
        }
    }

    /// The mode's name: `mask`, `typed` or `pseudo`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Mask => "mask",
            Mode::Typed => "typed",
            Mode::Pseudo => "pseudo",
        }
    }
}

/// Where [`Mode::Typed`] placeholders are in `text`: the byte range of each
/// `[REDACTED:kind]` and its kind (letters, digits, `-` and `_`, as kind
/// names are written), in order. What a view finds to draw hidden values
/// as chips.
pub fn typed_placeholders(text: &str) -> Vec<(std::ops::Range<usize>, &str)> {
    const OPEN: &str = "[REDACTED:";
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(OPEN).map(|p| from + p) {
        let kind_at = at + OPEN.len();
        let len = text[kind_at..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
            .count();
        if len > 0 && text[kind_at + len..].starts_with(']') {
            out.push((at..kind_at + len + 1, &text[kind_at..kind_at + len]));
            from = kind_at + len + 1;
        } else {
            from = kind_at;
        }
    }
    out
}

/// Hands out placeholders in one mode, remembering pseudonyms.
#[derive(Debug, Default)]
pub(crate) struct Placeholders {
    mode: Mode,
    /// Value fingerprint → (kind it was first seen as, its number).
    seen: HashMap<u128, (KindId, u32)>,
    /// Next number per kind.
    next: Vec<u32>,
}

impl Placeholders {
    pub(crate) fn new(mode: Mode) -> Placeholders {
        Placeholders {
            mode,
            ..Placeholders::default()
        }
    }

    pub(crate) fn mode(&self) -> Mode {
        self.mode
    }

    /// The placeholder for a match of `kind` whose value has `fingerprint`.
    pub(crate) fn text(&mut self, kinds: &[KindInfo], kind: KindId, fingerprint: u128) -> String {
        match self.mode {
            Mode::Mask => "***".to_owned(),
            Mode::Typed => format!("[REDACTED:{}]", kinds[kind.0 as usize].name),
            Mode::Pseudo => {
                let next = &mut self.next;
                let (kind, n) = *self.seen.entry(fingerprint).or_insert_with(|| {
                    let slot = kind.0 as usize;
                    if next.len() <= slot {
                        next.resize(slot + 1, 0);
                    }
                    next[slot] += 1;
                    (kind, next[slot])
                });
                format!("<{}-{n}>", kinds[kind.0 as usize].name)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::Rules;

    #[test]
    fn typed_placeholders_are_found_where_typed_mode_writes_them() {
        let rules = Rules::builtin();
        let kind = rules.kind_id("aws-access-key-id").unwrap();
        let mut p = Placeholders::new(Mode::Typed);
        let written = p.text(rules.kinds(), kind, 0);
        let text = format!("key {written} and [REDACTED:] [REDACTED:a b] [REDACTED:email]");
        let found = typed_placeholders(&text);
        assert_eq!(
            found,
            [
                (4..4 + written.len(), "aws-access-key-id"),
                (text.len() - 16..text.len(), "email"),
            ]
        );
        assert_eq!(&text[found[0].0.clone()], written);
        assert!(typed_placeholders("[REDACTED:x").is_empty());
    }
}
