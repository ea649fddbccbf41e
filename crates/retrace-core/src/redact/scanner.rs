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
use super::hit::Scanner;
use super::{assign, home, pem, pii, tokens, url};

/// Runs every built-in rule over the string.
pub(crate) fn run(sc: &mut Scanner) {
    assign::key_value(sc);
    let s = sc.s;
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
                i = word(sc, i, e).max(e);
            } else {
                i = e;
            }
        } else if is_trigger(c) {
            i = punct(sc, i).max(i + 1);
        } else {
            i += 1;
        }
    }
}

/// A word `s[i..e]` that starts after a non-word byte. Returns where
/// scanning goes on (past a match, or `e`).
fn word(sc: &mut Scanner, i: usize, e: usize) -> usize {
    let s = sc.s;
    let next = byte(s, e);
    if next == b':' && byte(s, e + 1) == b'A' && byte(s, e + 2) == b'A' {
        if let Some(end) = tokens::telegram(sc, i, e) {
            return end;
        }
    }
    if next == b'~' && e - i == 5 {
        if let Some(end) = tokens::azure_client_secret(sc, i, e) {
            return end;
        }
    }
    if let Some(end) = tokens::prefixed(sc, i, e) {
        return end;
    }
    if let Some(end) = pii::in_word(sc, i, e) {
        return end;
    }
    if let Some(end) = assign::keyword(sc, i, e) {
        return end;
    }
    e
}

/// A trigger byte at `i`.
fn punct(sc: &mut Scanner, i: usize) -> usize {
    let s = sc.s;
    match s[i] {
        b'@' => pii::email(sc, i),
        b':' => {
            if byte(s, i + 1) == b'/' && byte(s, i + 2) == b'/' {
                url::authority(sc, i)
            } else if byte(s, i + 1) == b':' {
                i + 2
            } else {
                assign::operator(sc, i)
            }
        }
        b'=' => assign::operator(sc, i),
        b'-' => {
            let next = byte(s, i + 1);
            // A hyphen inside a word (`well-known`, a UUID, a date):
            // no key header, no flag, no dashed home path.
            if next != b'-' && i > 0 && is_word(s[i - 1]) {
                return i + 1;
            }
            if next == b'-' && byte(s, i + 2) == b'-' {
                pem::block(sc, i)
            } else {
                let end = home::dashed(sc, i);
                if end > i + 1 {
                    end
                } else {
                    assign::flag(sc, i)
                }
            }
        }
        b'/' | b'\\' => {
            if !matches!(byte(s, i + 1), b'U' | b'h' | b'\\' | b'n' | b'r' | b't') {
                return i + 1;
            }
            let end = home::path(sc, i);
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
        b'+' | b'(' => pii::phone_punct(sc, i),
        _ => i + 1,
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
