//! Interned byte strings: ids, entry types and roles are stored once and
//! compared as integers.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

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

pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;
pub(crate) type FxHashMap<K, V> = HashMap<K, V, FxBuild>;

/// The string table.
#[derive(Default, Debug)]
pub(crate) struct Interner {
    map: FxHashMap<Box<[u8]>, Sym>,
    strings: Vec<Box<[u8]>>,
}

impl Interner {
    pub fn intern(&mut self, s: &[u8]) -> Sym {
        if let Some(&sym) = self.map.get(s) {
            return sym;
        }
        let sym = Sym(self.strings.len() as u32);
        self.strings.push(s.into());
        self.map.insert(s.into(), sym);
        sym
    }

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn lookup(&self, s: &[u8]) -> Sym {
        self.map.get(s).copied().unwrap_or(Sym::NONE)
    }

    /// The bytes of `sym` (empty for `Sym::NONE`).
    pub fn get(&self, sym: Sym) -> &[u8] {
        if sym.is_none() {
            return b"";
        }
        &self.strings[sym.0 as usize]
    }

    /// The string of `sym`, lossily decoded.
    pub fn str(&self, sym: Sym) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(self.get(sym))
    }
}
