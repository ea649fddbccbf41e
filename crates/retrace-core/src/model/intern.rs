//! Interned byte strings: ids, entry types and roles are stored once and
//! compared as integers.

use std::hash::Hasher;

/// An interned string. `Sym::NONE` stands for "absent".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(u32);

impl Sym {
    pub const NONE: Sym = Sym(u32::MAX);
    /// Set, but not interned yet (see the reader's `PendingIds`); never
    /// seen outside the reader.
    pub(crate) const PENDING: Sym = Sym(u32::MAX - 1);

    pub fn is_none(self) -> bool {
        self == Sym::NONE
    }

    pub(crate) fn index(self) -> usize {
        self.0 as usize
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
    /// See [`Interner::intern_common`].
    common: [CommonSlot; COMMON],
}

const RECENT: usize = 4;

/// Slots of the common-string cache.
const COMMON: usize = 64;

/// A string's length and its first and last eight bytes (zero-padded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Common {
    len: usize,
    first: u64,
    last: u64,
}

impl Common {
    #[inline]
    fn of(s: &[u8]) -> Common {
        let n = s.len();
        Common {
            len: n,
            first: Common::word(&s[..n.min(8)]),
            last: Common::word(&s[n.saturating_sub(8)..]),
        }
    }

    /// Up to eight bytes as a little-endian word, zero-padded. Read in at
    /// most two overlapping loads: copying them into a buffer first was a
    /// `memcpy` call and a stalled load, on every line.
    #[inline]
    fn word(b: &[u8]) -> u64 {
        let n = b.len();
        debug_assert!(n <= 8);
        if n >= 4 {
            let lo = u32::from_le_bytes(b[..4].try_into().expect("4 bytes"));
            let hi = u32::from_le_bytes(b[n - 4..].try_into().expect("4 bytes"));
            u64::from(lo) | (u64::from(hi) << (8 * (n - 4)))
        } else if n > 0 {
            u64::from(b[0])
                | (u64::from(b[n / 2]) << (8 * (n / 2)))
                | (u64::from(b[n - 1]) << (8 * (n - 1)))
        } else {
            0
        }
    }

    fn slot(&self) -> usize {
        let mix = (self.first ^ self.last.rotate_left(23) ^ self.len as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        (mix >> 58) as usize
    }
}

#[derive(Debug, Clone, Copy)]
struct CommonSlot {
    key: Common,
    sym: Sym,
}

impl Default for CommonSlot {
    fn default() -> Self {
        CommonSlot {
            // No string is longer than this.
            key: Common {
                len: usize::MAX,
                first: 0,
                last: 0,
            },
            sym: Sym::NONE,
        }
    }
}

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
            common: [CommonSlot::default(); COMMON],
        }
    }
}

pub(crate) fn hash(s: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(s);
    // Fx mixes low bits poorly; the table index uses the high ones.
    h.finish()
}

impl Interner {
    pub fn intern(&mut self, s: &[u8]) -> Sym {
        if let Some(sym) = self.recent(s) {
            return sym;
        }
        self.intern_hashed(s, hash(s))
    }

    /// [`Interner::intern`] for a string of a small set that repeats (a
    /// type, a role): found in a cache of such strings by its length and
    /// first and last eight bytes, without hashing it whole or reading the
    /// arena (up to 16 bytes those say it all). Unique strings such as ids
    /// would only evict the others: they go to [`Interner::intern`].
    #[inline]
    pub fn intern_common(&mut self, s: &[u8]) -> Sym {
        let key = Common::of(s);
        let slot = key.slot();
        let cached = &self.common[slot];
        if cached.key == key && (s.len() <= 16 || self.get(cached.sym) == s) {
            return cached.sym;
        }
        let sym = self.intern(s);
        self.common[slot] = CommonSlot { key, sym };
        sym
    }

    /// `s` if it is one of the last few strings interned or found.
    #[inline]
    pub fn recent(&self, s: &[u8]) -> Option<Sym> {
        self.recent
            .iter()
            .copied()
            .find(|&sym| !sym.is_none() && self.get(sym) == s)
    }

    /// Starts loading the table slot where a string of hash `h` is looked
    /// up first, so that interning it a little later finds it in cache.
    #[inline]
    #[allow(unsafe_code)] // the prefetch intrinsic
    pub fn prefetch(&self, h: u64) {
        if self.table.is_empty() {
            return;
        }
        let slot: *const Slot = &self.table[self.slot(h)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE is part of x86_64, and a prefetch only hints at an
        // address (this one is in bounds besides).
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(slot.cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// Interns `s`, whose [`hash`] is `h`, without checking the recent ones.
    pub fn intern_hashed(&mut self, s: &[u8], h: u64) -> Sym {
        if let Some(sym) = self.find(s, h) {
            self.remember(sym);
            return sym;
        }
        if (self.ends.len() + 1) * 2 > self.table.len() {
            self.grow(self.ends.len() + 1);
        }
        let sym = self.push_string(s, h);
        self.place(sym, h);
        self.remember(sym);
        sym
    }

    /// Stores `s` as a new symbol, not yet findable.
    fn push_string(&mut self, s: &[u8], h: u64) -> Sym {
        let sym = Sym(self.ends.len() as u32);
        self.bytes.extend_from_slice(s);
        let end = u32::try_from(self.bytes.len()).expect("interned strings exceed 4 GiB");
        self.ends.push(end);
        self.hashes.push(h);
        sym
    }

    /// Puts `sym` (hash `h`) in the table, which has room.
    fn place(&mut self, sym: Sym, h: u64) {
        let mut i = self.slot(h);
        while self.table[i].sym != 0 {
            i = (i + 1) & (self.table.len() - 1);
        }
        self.table[i] = Slot {
            sym: sym.0 + 1,
            tag: tag(h),
        };
    }

    /// Interns every string of `other` (the table of a part read by another
    /// reader) and returns, by its index there, each one's symbol here. New
    /// strings get symbols in `other`'s order, as reading on would have
    /// given them. The table is sized once, and `other`'s strings are
    /// looked up and placed in the order of their slots, so the probes walk
    /// the table instead of missing the cache at every string.
    pub fn merge(&mut self, other: &Interner) -> Vec<Sym> {
        let before = self.ends.len();
        if (before + other.len()) * 2 > self.table.len() {
            self.grow(before + other.len());
        }
        // A counting sort of `other`'s symbols by the top bits of their
        // slot here.
        let bits = self.table.len().trailing_zeros().min(16);
        let key = |h: u64| (h >> (64 - bits)) as usize;
        let mut starts = vec![0u32; (1 << bits) + 1];
        for &h in &other.hashes {
            starts[key(h) + 1] += 1;
        }
        for k in 0..1 << bits {
            starts[k + 1] += starts[k];
        }
        let mut by_slot = vec![0u32; other.len()];
        for (i, &h) in other.hashes.iter().enumerate() {
            let k = key(h);
            by_slot[starts[k] as usize] = i as u32;
            starts[k] += 1;
        }
        let mut map = vec![Sym::NONE; other.len()];
        for &i in &by_slot {
            let i = i as usize;
            if let Some(sym) = self.find(other.get(Sym(i as u32)), other.hashes[i]) {
                map[i] = sym;
            }
        }
        self.bytes.reserve(other.bytes.len());
        self.ends.reserve(other.len());
        self.hashes.reserve(other.len());
        for (i, sym) in map.iter_mut().enumerate() {
            if sym.is_none() {
                *sym = self.push_string(other.get(Sym(i as u32)), other.hashes[i]);
            }
        }
        for &i in &by_slot {
            let sym = map[i as usize];
            if sym.index() >= before {
                self.place(sym, other.hashes[i as usize]);
            }
        }
        map
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

    /// Rebuilds the table with room for `strings` strings at most half full
    /// (at least doubling it).
    fn grow(&mut self, strings: usize) {
        let len = (strings * 2)
            .next_power_of_two()
            .max(self.table.len() * 2)
            .max(64);
        let old = std::mem::replace(&mut self.table, vec![Slot::default(); len]);
        // In the old table's order: a string's slot comes from the top bits
        // of its hash in both tables, so the new slots come nearly in order
        // too, and the table is written as a stream instead of missing the
        // cache at every string. A run that wrapped round the old table's
        // end (at most one) is placed after the rest.
        let start = old.iter().position(|s| s.sym == 0).unwrap_or(0);
        for slot in old[start..].iter().chain(&old[..start]) {
            if slot.sym != 0 {
                self.place(Sym(slot.sym - 1), self.hashes[slot.sym as usize - 1]);
            }
        }
    }

    /// Makes room for `strings` strings of `bytes` bytes in all, if the
    /// system grants it (else the table grows as strings come), so that
    /// neither the table is rebuilt nor the arena copied on the way.
    pub fn reserve(&mut self, strings: usize, bytes: usize) {
        let (more, more_bytes) = (
            strings.saturating_sub(self.len()),
            bytes.saturating_sub(self.bytes.len()),
        );
        if more == 0
            || self.ends.try_reserve_exact(more).is_err()
            || self.hashes.try_reserve_exact(more).is_err()
            || self.bytes.try_reserve_exact(more_bytes).is_err()
        {
            return;
        }
        if strings * 2 > self.table.len() {
            self.grow(strings);
        }
    }

    /// The bytes of all strings together.
    pub fn byte_len(&self) -> usize {
        self.bytes.len()
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

    #[test]
    fn a_word_is_the_bytes_zero_padded() {
        let bytes = b"\x01\x82\x03\xf4\x05\x06\x77\x08";
        for n in 0..=8 {
            let mut w = [0u8; 8];
            w[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(
                Common::word(&bytes[..n]),
                u64::from_le_bytes(w),
                "{n} bytes"
            );
        }
    }

    #[test]
    fn common_strings_get_the_symbols_interning_gives() {
        let mut t = Interner::default();
        let mut words: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"a".to_vec(),
            b"a\0".to_vec(),
            b"message".to_vec(),
            b"function_call".to_vec(),
            b"function_call_output".to_vec(),
        ];
        // Over 16 bytes with the same length, head and tail: only the
        // middle tells them apart.
        for m in b'a'..=b'z' {
            words.push([&b"response_item_"[..], &[m], b"_function_output"].concat());
            words.push([&b"response"[..], &[m], b"_function"].concat());
        }
        // More strings than slots, so slots are shared and replaced.
        words.extend((0..200).map(|i| format!("type-{i}").into_bytes()));
        for round in 0..3 {
            for (i, w) in words.iter().enumerate() {
                let sym = if (i + round) % 2 == 0 {
                    t.intern_common(w)
                } else {
                    t.intern(w)
                };
                assert_eq!(t.get(sym), &w[..], "round {round}");
                assert_eq!(t.lookup(w), sym);
            }
        }
        assert_eq!(t.len(), words.len());
    }

    #[test]
    fn reserved_room_takes_the_strings_without_rebuilding() {
        let mut t = Interner::default();
        t.intern(b"first");
        t.reserve(20_000, 200_000);
        let (table, bytes) = (t.table.len(), t.bytes.as_ptr());
        assert!(table >= 40_000, "at most half full: {table}");
        let syms: Vec<Sym> = (0..19_999)
            .map(|i| t.intern(format!("id-{i:06}").as_bytes()))
            .collect();
        assert_eq!((t.table.len(), t.bytes.as_ptr()), (table, bytes));
        for (i, &s) in syms.iter().enumerate() {
            assert_eq!(t.lookup(format!("id-{i:06}").as_bytes()), s);
        }
        // More than was reserved still fits, by growing.
        for i in 0..30_000 {
            t.intern(format!("more-{i}").as_bytes());
        }
        assert_eq!(t.len(), 50_000);
        assert!(t.table.len() >= 100_000);
        assert_eq!(t.lookup(b"id-000007"), syms[7]);
        // A reservation beyond what the system grants is skipped.
        t.reserve(usize::MAX / 2, usize::MAX / 2);
        assert_eq!(t.lookup(b"more-29999"), Sym(49_999));
    }

    #[test]
    fn merging_a_table_maps_each_string_to_its_symbol_here() {
        let mut here = Interner::default();
        let mut there = Interner::default();
        for i in 0..3000 {
            here.intern(format!("id-{i}").as_bytes());
        }
        // Half already here, half new, in another order.
        let words: Vec<String> = (1500..4500).rev().map(|i| format!("id-{i}")).collect();
        for w in &words {
            there.intern(w.as_bytes());
        }
        let map = here.merge(&there);
        assert_eq!(map.len(), there.len());
        assert_eq!(here.len(), 4500);
        for (i, &sym) in map.iter().enumerate() {
            assert_eq!(here.get(sym), there.get(Sym(i as u32)));
            assert_eq!(here.lookup(here.get(sym)), sym);
        }
        // New strings are numbered in the merged table's order, as interning
        // them one by one would number them.
        let new: Vec<&[u8]> = (3000..4500).map(|i| here.get(Sym(i))).collect();
        let want: Vec<String> = (3000..4500).rev().map(|i| format!("id-{i}")).collect();
        assert!(new.iter().zip(&want).all(|(a, b)| *a == b.as_bytes()));
        // And the table still takes strings one by one afterwards.
        let more = here.intern(b"id-9999");
        assert_eq!(here.lookup(b"id-9999"), more);
        assert_eq!(here.intern(b"id-10"), here.lookup(b"id-10"));
    }
}
