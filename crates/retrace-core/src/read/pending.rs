//! Ids waiting to be interned: the reader interns an entry's ids a line
//! late, so that their string-table slots are in cache by then.

use crate::model::entry::Entry;
use crate::model::intern::{hash, Interner, Sym};
use crate::read::fields::Slot;

/// Ids waiting to be interned. Most ids are new strings, and a new string
/// costs a cache miss in the string table (an id is one of hundreds of
/// thousands); an entry's ids are therefore hashed and their table slots
/// prefetched as the entry is read, and interned just before the next
/// entry is, once the next line has been scanned meanwhile. Strings get
/// their symbols in the same order whoever reads the line (a part reader
/// or one pass), so parts still merge into what one pass gives.
///
/// A line may set a slot twice (a repeated key): the last value wins, as
/// if each were interned at once. Whether a value is pending or interned
/// at once depends on the strings seen just before (the interner's recent
/// ones), which differ between one pass and a part that starts fresh; so a
/// value interned at once drops the slot's earlier pending one, which
/// would otherwise overwrite it on resolving.
#[derive(Debug, Default)]
pub(crate) struct PendingIds {
    ids: Vec<PendingId>,
    /// Their bytes, back to back (the line they came from is gone by then).
    bytes: Vec<u8>,
}

#[derive(Debug, Clone, Copy)]
struct PendingId {
    /// The entry, or [`SUPERSEDED`] once a later value of its slot took
    /// its place.
    entry: usize,
    target: Target,
    hash: u64,
    end: usize,
}

/// The entry of a pending id whose slot got a later value.
const SUPERSEDED: usize = usize::MAX;

/// Which symbol of an entry an id goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Slot(Slot),
    Parent,
}

impl Target {
    #[inline]
    pub(crate) fn of(self, e: &mut Entry) -> &mut Sym {
        match self {
            Target::Slot(Slot::Kind) => &mut e.kind,
            Target::Slot(Slot::Subtype) => &mut e.subtype,
            Target::Slot(Slot::Id) => &mut e.id,
            Target::Slot(Slot::Reference) => &mut e.reference,
            Target::Slot(Slot::Role) => &mut e.role,
            Target::Slot(Slot::Group) => &mut e.group,
            Target::Slot(Slot::Agent) => &mut e.agent,
            Target::Parent => &mut e.parent,
        }
    }

    /// Whether values of this slot are mostly unique ids, worth deferring.
    /// Types, roles and agents repeat, and the reader itself looks at the
    /// role while indexing the entry.
    #[inline]
    fn is_id(self) -> bool {
        matches!(
            self,
            Target::Parent | Target::Slot(Slot::Id | Slot::Reference | Slot::Group)
        )
    }
}

impl PendingIds {
    /// The symbol of `value` for `target` of entry `entry`: interned now
    /// when it is not an id or was just seen, [`Sym::PENDING`] otherwise.
    #[inline]
    pub(crate) fn intern(
        &mut self,
        interner: &mut Interner,
        value: &[u8],
        entry: usize,
        target: Target,
    ) -> Sym {
        if !target.is_id() {
            return interner.intern_common(value);
        }
        if let Some(sym) = interner.recent(value) {
            self.supersede(entry, target);
            return sym;
        }
        let hash = hash(value);
        interner.prefetch(hash);
        self.bytes.extend_from_slice(value);
        self.ids.push(PendingId {
            entry,
            target,
            hash,
            end: self.bytes.len(),
        });
        Sym::PENDING
    }

    /// Drops the pending value of `target` of entry `entry`, if any: the
    /// slot has a later one.
    #[inline]
    fn supersede(&mut self, entry: usize, target: Target) {
        for p in self.ids.iter_mut().rev() {
            if p.entry == entry && p.target == target {
                p.entry = SUPERSEDED;
            }
        }
    }

    /// Interns the ids held into the entries they belong to.
    #[inline]
    pub(crate) fn resolve(&mut self, interner: &mut Interner, entries: &mut [Entry]) {
        let mut start = 0;
        for p in self.ids.drain(..) {
            let value = &self.bytes[start..p.end];
            start = p.end;
            // Interned even when superseded: a part that read the line
            // fresh interns both values, and one pass must number the
            // strings as it does.
            let sym = interner.intern_hashed(value, p.hash);
            if p.entry != SUPERSEDED {
                *p.target.of(&mut entries[p.entry]) = sym;
            }
        }
        self.bytes.clear();
    }
}
