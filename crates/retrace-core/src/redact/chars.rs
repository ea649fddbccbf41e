//! Byte classes the rules are written in (ASCII only: every format a rule
//! knows is ASCII; other bytes are never part of a match).

const WORD: u8 = 1; // A-Z a-z 0-9 _
const ALNUM: u8 = 2; // A-Z a-z 0-9
const HEX: u8 = 4; // 0-9 a-f A-F
const B64: u8 = 8; // A-Z a-z 0-9 + / =
const URLSAFE: u8 = 16; // A-Z a-z 0-9 - _
const TRIGGER: u8 = 32; // punctuation some rule is anchored on
const SPACE: u8 = 64; // space, tab, CR, LF

static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let mut f = 0;
        if b.is_ascii_alphanumeric() {
            f |= WORD | ALNUM | B64 | URLSAFE;
        }
        if b.is_ascii_hexdigit() {
            f |= HEX;
        }
        if b == b'_' {
            f |= WORD | URLSAFE;
        }
        if b == b'-' {
            f |= URLSAFE;
        }
        if b == b'+' || b == b'/' || b == b'=' {
            f |= B64;
        }
        if matches!(
            b,
            b'@' | b':' | b'=' | b'-' | b'/' | b'\\' | 0x1b | b'+' | b'('
        ) {
            f |= TRIGGER;
        }
        if matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
            f |= SPACE;
        }
        t[c] = f;
        c += 1;
    }
    t
};

#[inline(always)]
pub(crate) fn is_word(b: u8) -> bool {
    CLASS[b as usize] & WORD != 0
}
#[inline(always)]
pub(crate) fn is_alnum(b: u8) -> bool {
    CLASS[b as usize] & ALNUM != 0
}
#[inline(always)]
pub(crate) fn is_hex(b: u8) -> bool {
    CLASS[b as usize] & HEX != 0
}
#[inline(always)]
pub(crate) fn is_b64(b: u8) -> bool {
    CLASS[b as usize] & B64 != 0
}
#[inline(always)]
pub(crate) fn is_urlsafe(b: u8) -> bool {
    CLASS[b as usize] & URLSAFE != 0
}
#[inline(always)]
pub(crate) fn is_trigger(b: u8) -> bool {
    CLASS[b as usize] & TRIGGER != 0
}
#[inline(always)]
pub(crate) fn is_space(b: u8) -> bool {
    CLASS[b as usize] & SPACE != 0
}
pub(crate) fn is_lower_hex(b: u8) -> bool {
    b.is_ascii_digit() || (b'a'..=b'f').contains(&b)
}

/// The end of the run of bytes satisfying `f` that starts at `from`.
#[inline]
pub(crate) fn run(s: &[u8], from: usize, f: impl Fn(u8) -> bool) -> usize {
    let mut i = from;
    while i < s.len() && f(s[i]) {
        i += 1;
    }
    i
}

/// The start of the run of bytes satisfying `f` that ends at `to`, looking
/// back at most `max` bytes.
#[inline]
pub(crate) fn run_back(s: &[u8], to: usize, max: usize, f: impl Fn(u8) -> bool) -> usize {
    let stop = to.saturating_sub(max);
    let mut i = to;
    while i > stop && f(s[i - 1]) {
        i -= 1;
    }
    i
}

/// `s[at..]` starts with `prefix` (a literal: its length is known, so the
/// compare is inlined).
#[inline(always)]
pub(crate) fn at<const N: usize>(s: &[u8], at: usize, prefix: &[u8; N]) -> bool {
    match s.get(at..at + N) {
        Some(w) => w == prefix,
        None => false,
    }
}

/// `s[at..]` starts with `prefix`, a slice.
#[inline]
pub(crate) fn at_slice(s: &[u8], at: usize, prefix: &[u8]) -> bool {
    s.len() >= at + prefix.len() && &s[at..at + prefix.len()] == prefix
}

/// `s[at..]` starts with `prefix`, ignoring ASCII case (`prefix` is lower case).
#[inline]
pub(crate) fn at_nocase(s: &[u8], at: usize, prefix: &[u8]) -> bool {
    s.len() >= at + prefix.len()
        && s[at..at + prefix.len()]
            .iter()
            .zip(prefix)
            .all(|(a, b)| a.to_ascii_lowercase() == *b)
}

/// The byte at `i`, or 0 past the end (0 is no class's member).
#[inline(always)]
pub(crate) fn byte(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

/// How many distinct bytes `s` has (up to 16), to tell `xxxxxxxx` and
/// `aaaa1111` from random material.
pub(crate) fn variety(s: &[u8]) -> usize {
    let mut seen = [false; 256];
    let mut n = 0;
    for &b in s {
        if !seen[b as usize] {
            seen[b as usize] = true;
            n += 1;
            if n >= 16 {
                break;
            }
        }
    }
    n
}
