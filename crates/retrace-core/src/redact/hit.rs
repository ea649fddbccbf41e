//! A match and the scan it is found in: what every rule writes to. A
//! leaf module, so the scanner and the rules it runs need not know each
//! other both ways.

use super::kind::KindId;
use crate::model::sort::sort_by_key;

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
    /// The last place `svg::in_path_data` was asked about, and its answer.
    pub svg: Option<(usize, bool)>,
    hits: &'a mut Vec<Hit>,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(s: &'a [u8], key: Option<&'a [u8]>, hits: &'a mut Vec<Hit>) -> Self {
        Scanner {
            s,
            key,
            svg: None,
            hits,
        }
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
}

/// Sorts hits and merges overlapping ones (the union is replaced, the
/// surest rule names the kind), then widens each to whole UTF-8 characters
/// and never ends one on a backslash (which would eat an escape).
pub(crate) fn resolve(s: &[u8], hits: &mut Vec<Hit>) {
    if hits.is_empty() {
        return;
    }
    sort_by_key(hits, |h| (h.start, std::cmp::Reverse(h.end)));
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
