//! The text scanner: one pass over a decoded string, finding every rule's
//! matches.
//!
//! No regular expressions: each rule is anchored on something cheap to
//! see — the first bytes of a word (`ghp_`, `AKIA`, a digit), or a
//! punctuation byte (`@` for emails, `=`/`:` for assignments, `://` for
//! URLs, `-----BEGIN` for keys) — and then checks the format's facts
//! (length, charset, checksum) around it. Words are runs of
//! `[A-Za-z0-9_]`; the loop visits each word once and each trigger byte
//! once, so the cost is a table lookup per byte plus a little per word.

use super::chars::{at, byte, is_trigger, is_word};
use super::kind::KindId;
use super::{assign, home, pem, pii, tokens, url};

/// How sure a rule is; when matches overlap, the surest names the kind.
pub(crate) mod rank {
    pub const HOME: u8 = 1;
    pub const ASSIGNMENT: u8 = 2;
    pub const PII: u8 = 3;
    pub const URL: u8 = 4;
    pub const TOKEN: u8 = 5;
    #[cfg(feature = "custom-rules")]
    pub const CUSTOM: u8 = 6;
}

/// A match in a decoded string: `start..end` is what gets replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    pub start: usize,
    pub end: usize,
    pub kind: KindId,
    pub rank: u8,
}

/// One scan of one decoded string.
pub(crate) struct Scanner<'a> {
    pub s: &'a [u8],
    /// The JSON key whose value this string is, if any.
    pub key: Option<&'a [u8]>,
    hits: &'a mut Vec<Hit>,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(s: &'a [u8], key: Option<&'a [u8]>, hits: &'a mut Vec<Hit>) -> Self {
        Scanner { s, key, hits }
    }

    pub(crate) fn hit(&mut self, start: usize, end: usize, kind: KindId, rank: u8) {
        if start < end {
            self.hits.push(Hit {
                start,
                end,
                kind,
                rank,
            });
        }
    }

    /// Runs every built-in rule over the string.
    pub(crate) fn run(&mut self) {
        assign::key_value(self);
        let s = self.s;
        let n = s.len();
        let mut i = 0;
        while i < n {
            let c = s[i];
            if is_word(c) {
                let mut e = i + 1;
                while e < n && is_word(s[e]) {
                    e += 1;
                }
                if worth_a_look(s, i, e) {
                    i = self.word(i, e).max(e);
                } else {
                    i = e;
                }
            } else if is_trigger(c) {
                i = self.punct(i).max(i + 1);
            } else {
                i += 1;
            }
        }
    }

    /// A word `s[i..e]` that starts after a non-word byte. Returns where
    /// scanning goes on (past a match, or `e`).
    fn word(&mut self, i: usize, e: usize) -> usize {
        let s = self.s;
        let next = byte(s, e);
        if next == b':' && byte(s, e + 1) == b'A' && byte(s, e + 2) == b'A' {
            if let Some(end) = tokens::telegram(self, i, e) {
                return end;
            }
        }
        if next == b'~' && e - i == 5 {
            if let Some(end) = tokens::azure_client_secret(self, i, e) {
                return end;
            }
        }
        if let Some(end) = tokens::prefixed(self, i, e) {
            return end;
        }
        if let Some(end) = pii::in_word(self, i, e) {
            return end;
        }
        if let Some(end) = assign::keyword(self, i, e) {
            return end;
        }
        e
    }

    /// A trigger byte at `i`.
    fn punct(&mut self, i: usize) -> usize {
        let s = self.s;
        match s[i] {
            b'@' => pii::email(self, i),
            b':' => {
                if byte(s, i + 1) == b'/' && byte(s, i + 2) == b'/' {
                    url::authority(self, i)
                } else if byte(s, i + 1) == b':' {
                    i + 2
                } else {
                    assign::operator(self, i)
                }
            }
            b'=' => assign::operator(self, i),
            b'-' => {
                let next = byte(s, i + 1);
                // A hyphen inside a word (`well-known`, a UUID, a date):
                // no key header, no flag, no dashed home path.
                if next != b'-' && i > 0 && is_word(s[i - 1]) {
                    return i + 1;
                }
                if next == b'-' && byte(s, i + 2) == b'-' {
                    pem::block(self, i)
                } else {
                    let end = home::dashed(self, i);
                    if end > i + 1 {
                        end
                    } else {
                        assign::flag(self, i)
                    }
                }
            }
            b'/' | b'\\' => {
                if !matches!(byte(s, i + 1), b'U' | b'h' | b'\\' | b'n' | b'r' | b't') {
                    return i + 1;
                }
                let end = home::path(self, i);
                if end > i + 1 {
                    return end;
                }
                // A literal `\n`, `\t` or `\r` (text that was escaped
                // twice) ends a word: `\nAKIA…` holds a key.
                if s[i] == b'\\' && matches!(byte(s, i + 1), b'n' | b'r' | b't') {
                    i + 2
                } else {
                    i + 1
                }
            }
            0x1b => ansi_end(s, i),
            b'+' | b'(' => pii::phone_punct(self, i),
            _ => i + 1,
        }
    }
}

/// Whether the word `s[i..e]` could start a match at all: most words are
/// short, lower case and followed by a space, and are passed over here.
#[inline(always)]
fn worth_a_look(s: &[u8], i: usize, e: usize) -> bool {
    let len = e - i;
    let first = s[i];
    // Long words (tokens, compact IBANs, card numbers) and numbers.
    if len >= 13 || first.is_ascii_digit() {
        return true;
    }
    match byte(s, e) {
        // `sk-`, `xoxb-`, `glpat-`, `GOCSPX-`, MACs `aa-bb-…`; and
        // bodies with `-` in them (`AIza…-…`, a JWT's `eyJ…-…`).
        b'-' => len <= 6 || at(s, i, b"AIza") || at(s, i, b"eyJ"),
        // `SG.`, `hvs.`, `ya29.`, a JWT's first dot
        b'.' => len <= 4 || at(s, i, b"eyJ"),
        // base64 bodies (`sntrys_…`, `whsec_…`)
        b'+' | b'/' => at(s, i, b"sntrys_") || at(s, i, b"whsec_"),
        // MACs, IPv6 groups; `bot123456789:AA…` (Telegram)
        b':' => len <= 4 || len >= 8,
        b'~' => len == 5,
        b'=' => len == 10,
        // IBAN groups (`DE89 3704 …`) and the keywords `Basic`, `token`,
        // `Bearer`, `password`, `passcode`, `passphrase`.
        b' ' => match len {
            4 => first.is_ascii_uppercase(),
            5 | 6 | 8 | 10 => matches!(first | 0x20, b'b' | b't' | b'p'),
            _ => false,
        },
        _ => false,
    }
}

/// Past an ANSI escape sequence (`ESC [ params final`), so `\e[01;31m` glued
/// to a key does not hide the key's first letter inside a word.
fn ansi_end(s: &[u8], i: usize) -> usize {
    if byte(s, i + 1) != b'[' {
        return i + 1;
    }
    let mut j = i + 2;
    while j < s.len() && (s[j].is_ascii_digit() || s[j] == b';' || s[j] == b'?') {
        j += 1;
    }
    if j < s.len() && (0x40..=0x7e).contains(&s[j]) {
        j + 1
    } else {
        i + 1
    }
}

/// Sorts hits and merges overlapping ones (the union is replaced, the
/// surest rule names the kind), then widens each to whole UTF-8 characters
/// and never ends one on a backslash (which would eat an escape).
pub(crate) fn resolve(s: &[u8], hits: &mut Vec<Hit>) {
    if hits.is_empty() {
        return;
    }
    hits.sort_by_key(|h| (h.start, std::cmp::Reverse(h.end)));
    let mut out = 0;
    for i in 0..hits.len() {
        let mut h = hits[i];
        while h.start > 0 && (s[h.start] & 0xC0) == 0x80 {
            h.start -= 1;
        }
        while h.end < s.len() && (s[h.end] & 0xC0) == 0x80 {
            h.end += 1;
        }
        while h.end > h.start && s[h.end - 1] == b'\\' {
            h.end -= 1;
        }
        if h.end <= h.start {
            continue;
        }
        if out > 0 && h.start < hits[out - 1].end {
            let last = &mut hits[out - 1];
            last.end = last.end.max(h.end);
            if h.rank > last.rank {
                last.kind = h.kind;
                last.rank = h.rank;
            }
        } else {
            hits[out] = h;
            out += 1;
        }
    }
    hits.truncate(out);
}
