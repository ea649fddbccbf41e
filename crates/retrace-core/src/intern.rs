//! Interned byte strings: ids, entry types and roles are stored once and
//! compared as integers.

use std::hash::Hasher;

/// An interned string. `Sym::NONE` stands for "absent".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(u32);

impl Sym {
    pub const NONE: Sym = Sym(u32::MAX);

    pub fn is_none(self) -> bool {
        self == Sym::NONE
    }

    pub fn some(self) -> Option<Sym> {
        (!self.is_none()).then_some(self)
    }

    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }

    pub(crate) fn from_index(i: usize) -> Sym {
        Sym(i as u32)
    }
}

/// FxHash: ids are short and not attacker-chosen in a way that matters for a
/// local viewer, and SipHash would cost more than the rest of indexing.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The string table: every string once, in one byte arena, found through
/// an open-addressing table of symbols. No allocation per string, so
/// indexing a million ids costs a few growing vectors.
#[derive(Debug)]
pub(crate) struct Interner {
    /// All strings back to back.
    bytes: Vec<u8>,
    /// Where each string ends in `bytes` (it starts where the one before
    /// ends).
    ends: Vec<u32>,
    /// Each string's hash, so growing the table does not rehash bytes.
    hashes: Vec<u64>,
    /// Per slot: symbol + 1 (0 for empty) and 32 bits of the string's hash,
    /// so a probe rejects other strings without touching `hashes` or
    /// `bytes` (each a likely cache miss). The length is a power of two,
    /// at most half full: linear probing gets long chains beyond that.
    table: Vec<Slot>,
    /// The last symbols interned or found, checked before hashing: most
    /// strings repeat one just seen (entry types, roles, the parent id that
    /// is the previous entry's id), and comparing a few hot bytes beats a
    /// hash probe that misses the cache.
    recent: [Sym; RECENT],
    /// Where the next symbol goes in `recent`.
    recent_next: usize,
}

const RECENT: usize = 4;

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    sym: u32,
    tag: u32,
}

/// The part of a hash kept in a slot (the index uses the high bits).
fn tag(h: u64) -> u32 {
    h as u32
}

impl Default for Interner {
    fn default() -> Self {
        Interner {
            bytes: Vec::new(),
            ends: Vec::new(),
            hashes: Vec::new(),
            table: Vec::new(),
            recent: [Sym::NONE; RECENT],
            recent_next: 0,
        }
    }
}

fn hash(s: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(s);
    // Fx mixes low bits poorly; the table index uses the high ones.
    h.finish()
}

impl Interner {
    pub fn intern(&mut self, s: &[u8]) -> Sym {
        for &sym in &self.recent {
            if !sym.is_none() && self.get(sym) == s {
                return sym;
            }
        }
        let h = hash(s);
        if let Some(sym) = self.find(s, h) {
            self.remember(sym);
            return sym;
        }
        if (self.ends.len() + 1) * 2 > self.table.len() {
            self.grow();
        }
        let sym = Sym(self.ends.len() as u32);
        self.bytes.extend_from_slice(s);
        let end = u32::try_from(self.bytes.len()).expect("interned strings exceed 4 GiB");
        self.ends.push(end);
        self.hashes.push(h);
        let mut i = self.slot(h);
        while self.table[i].sym != 0 {
            i = (i + 1) & (self.table.len() - 1);
        }
        self.table[i] = Slot {
            sym: sym.0 + 1,
            tag: tag(h),
        };
        self.remember(sym);
        sym
    }

    fn remember(&mut self, sym: Sym) {
        self.recent[self.recent_next] = sym;
        self.recent_next = (self.recent_next + 1) % RECENT;
    }

    fn slot(&self, h: u64) -> usize {
        let bits = self.table.len().trailing_zeros();
        (h >> (64 - bits)) as usize
    }

    fn find(&self, s: &[u8], h: u64) -> Option<Sym> {
        if self.table.is_empty() {
            return None;
        }
        let mask = self.table.len() - 1;
        let mut i = self.slot(h);
        let t = tag(h);
        loop {
            let slot = self.table[i];
            if slot.sym == 0 {
                return None;
            }
            if slot.tag == t {
                let sym = Sym(slot.sym - 1);
                if self.get(sym) == s {
                    return Some(sym);
                }
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let len = (self.table.len() * 2).max(64);
        self.table = vec![Slot::default(); len];
        for (sym, &h) in self.hashes.iter().enumerate() {
            let mut i = self.slot(h);
            while self.table[i].sym != 0 {
                i = (i + 1) & (len - 1);
            }
            self.table[i] = Slot {
                sym: sym as u32 + 1,
                tag: tag(h),
            };
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn lookup(&self, s: &[u8]) -> Sym {
        self.find(s, hash(s)).unwrap_or(Sym::NONE)
    }

    /// The bytes of `sym` (empty for `Sym::NONE`).
    pub fn get(&self, sym: Sym) -> &[u8] {
        if sym.is_none() {
            return b"";
        }
        let i = sym.index();
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    /// The string of `sym`, lossily decoded.
    pub fn str(&self, sym: Sym) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.get(sym))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_each_string_once() {
        let mut t = Interner::default();
        let words: Vec<String> = (0..5000).map(|i| format!("id-{i}")).collect();
        let syms: Vec<Sym> = words.iter().map(|w| t.intern(w.as_bytes())).collect();
        assert_eq!(t.len(), 5000);
        for (w, &s) in words.iter().zip(&syms) {
            assert_eq!(t.intern(w.as_bytes()), s);
            assert_eq!(t.lookup(w.as_bytes()), s);
            assert_eq!(t.get(s), w.as_bytes());
        }
        assert_eq!(t.lookup(b"nope"), Sym::NONE);
        let empty = t.intern(b"");
        assert_eq!(t.get(empty), b"");
        assert_eq!(t.get(Sym::NONE), b"");
    }
}
