//! Index-time fields: which keys of a line the reader lifts into an
//! [`Entry`](crate::Entry), declared by the formats.
//!
//! The reader indexes a line before anyone knows the file's format (detection
//! looks at the indexed entries), so it reads the union of every format's
//! keys. Each format lists its keys in a `FIELDS` table of [`FieldSpec`]s;
//! [`KeyTable`] merges them once and is what the reader consults per key. A
//! key path means the same thing in every format that names it (a test checks
//! the union has no conflicts).

use crate::model::sort::sort_by_key;

/// An interned-string slot of an [`Entry`](crate::Entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    Kind,
    Subtype,
    Id,
    Reference,
    Role,
    Group,
    Agent,
}

/// What the reader does with a key's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
    /// Interns a string value into `slot`. A `weak` write is skipped when
    /// the slot is already set (pi's `id` loses to Claude Code's `uuid`);
    /// `flag` is set when the write happens.
    Sym { slot: Slot, weak: bool, flag: u16 },
    /// A parent link: sets `HAS_PARENT_FIELD` (even for `null`) and the
    /// parent id when the value is a string.
    Parent,
    /// Sets a flag when the value is `true`.
    FlagIfTrue(u16),
    /// Sets a flag when the key is present at all.
    FlagIfPresent(u16),
    /// Sets a flag when the value is an object.
    FlagIfObject(u16),
    /// Sets a flag when the value is the string `value`.
    FlagIfString { value: &'static [u8], flag: u16 },
    /// Sets a flag when the value says something: not `null`, `false`, an
    /// empty string or an empty container.
    FlagIfSet(u16),
    /// An RFC 3339 string or an integer of epoch milliseconds.
    Timestamp,
    /// A small non-negative integer into `Entry::number`.
    Number,
    /// A fingerprint of the value's bytes, kept beside the entry (see
    /// `digest.rs`).
    Digest,
    /// Interns into `slot`, unless it is set, the string that `key` (with
    /// its quotes) holds anywhere in an object value: for small objects
    /// (Codex `session_meta.source`), which are searched whole.
    StringInObject { key: &'static [u8], slot: Slot },
    /// Interns into `slot`, unless it is set, the string that `key` (with
    /// its escaped quotes) holds in a string value that is a JSON object
    /// starting with that key (a Codex `spawn_agent` output,
    /// `{"agent_id":…}`). Only the start is read: tool outputs are long.
    StringInJsonString { key: &'static [u8], slot: Slot },
    /// Claude Code `message.content`: searched for `tool_result` blocks
    /// when the role is `user` (older lines have no `toolUseResult`); its
    /// text looked at as `UserText`'s.
    ToolResultContent,
    /// A message's content (Codex `payload.content`): a user's whose text
    /// opens like harness text sets `HARNESS_TEXT`.
    UserText,
}

/// One key a format wants indexed: `parent` is the depth-one key whose object
/// holds it (empty for a top-level key).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FieldSpec {
    pub parent: &'static [u8],
    pub key: &'static [u8],
    pub action: Action,
}

impl FieldSpec {
    pub(crate) const fn top(key: &'static [u8], action: Action) -> FieldSpec {
        FieldSpec {
            parent: b"",
            key,
            action,
        }
    }

    pub(crate) const fn nested(
        parent: &'static [u8],
        key: &'static [u8],
        action: Action,
    ) -> FieldSpec {
        FieldSpec {
            parent,
            key,
            action,
        }
    }
}

/// A strong string field into `slot`.
pub(crate) const fn sym(slot: Slot) -> Action {
    Action::Sym {
        slot,
        weak: false,
        flag: 0,
    }
}

/// A string field into `slot` unless something set it already.
pub(crate) const fn weak(slot: Slot) -> Action {
    Action::Sym {
        slot,
        weak: true,
        flag: 0,
    }
}

/// Keys shared by every format.
const COMMON: &[FieldSpec] = &[
    FieldSpec::top(b"type", sym(Slot::Kind)),
    FieldSpec::top(b"id", weak(Slot::Id)),
    FieldSpec::top(b"timestamp", Action::Timestamp),
];

/// A key path with no action of its own (only a container of nested keys).
const NO_ACTION: u16 = u16::MAX;
const NO_CONTAINER: u16 = u16::MAX;

/// Keys of one nesting level, found by length then bytes: keys are short
/// and few, so this is a couple of compares, like a `match`.
#[derive(Debug)]
struct Lookup {
    /// Per key length (0..=MAX_KEY): the range of `keys` with that length.
    by_len: [(u16, u16); MAX_KEY + 1],
    /// (key, action index, container index) sorted by length.
    keys: Vec<(&'static [u8], u16, u16)>,
    /// Each key's [`fingerprint`].
    prints: Vec<(u64, u64)>,
    /// Per key length: a bit for each `first byte & 63` of the keys of that
    /// length, so most keys no format wants are turned away at once.
    firsts: [u64; MAX_KEY + 1],
}

const MAX_KEY: usize = 32;

/// A key as two integers, compared instead of bytes: for keys of up to 16
/// bytes the pair (with the length, which the bucket fixes) is the key
/// itself. Only fixed-size loads, so no call to `memcpy`/`memcmp` per key.
#[inline]
fn fingerprint(k: &[u8]) -> (u64, u64) {
    let n = k.len();
    let word = |at: usize| u64::from_le_bytes(k[at..at + 8].try_into().expect("8 bytes"));
    let half = |at: usize| u64::from(u32::from_le_bytes(k[at..at + 4].try_into().expect("4")));
    match n {
        0 => (0, 0),
        1..=3 => (
            u64::from(k[0]) | u64::from(k[n / 2]) << 8 | u64::from(k[n - 1]) << 16,
            0,
        ),
        4..=8 => (half(0) | half(n - 4) << 32, 0),
        _ => (word(0), word(n - 8)),
    }
}

impl Lookup {
    fn build(mut keys: Vec<(&'static [u8], u16, u16)>) -> Lookup {
        sort_by_key(&mut keys, |k| k.0.len());
        let mut by_len = [(0u16, 0u16); MAX_KEY + 1];
        for (len, slot) in by_len.iter_mut().enumerate() {
            let start = keys.partition_point(|k| k.0.len() < len);
            let end = keys.partition_point(|k| k.0.len() <= len);
            *slot = (start as u16, end as u16);
        }
        let prints = keys.iter().map(|k| fingerprint(k.0)).collect();
        let mut firsts = [0u64; MAX_KEY + 1];
        for k in &keys {
            if let Some(&b) = k.0.first() {
                firsts[k.0.len()] |= 1 << (b & 63);
            }
        }
        Lookup {
            by_len,
            keys,
            prints,
            firsts,
        }
    }

    /// The action and container indices of `key`. The common case, a key
    /// no format wants, is turned away here, inlined at the caller; the
    /// search is a call.
    #[inline(always)]
    fn get(&self, key: &[u8]) -> Option<(u16, u16)> {
        let (&first, len) = (key.first()?, key.len());
        if len > MAX_KEY || self.firsts[len] >> (first & 63) & 1 == 0 {
            return None;
        }
        self.search(key)
    }

    fn search(&self, key: &[u8]) -> Option<(u16, u16)> {
        let (start, end) = self.by_len[key.len()];
        let print = fingerprint(key);
        for i in start as usize..end as usize {
            if self.prints[i] == print && (key.len() <= 16 || self.keys[i].0 == key) {
                let k = &self.keys[i];
                return Some((k.1, k.2));
            }
        }
        None
    }
}

/// The merged keys of every format.
#[derive(Debug)]
pub(crate) struct KeyTable {
    top: Lookup,
    nested: Vec<Lookup>,
    actions: Vec<Action>,
}

impl KeyTable {
    /// Merges the keys every format shares with each format's `specs`; two
    /// specs for one key path must agree.
    pub(crate) fn build<'a>(
        formats: impl IntoIterator<Item = &'a [FieldSpec]>,
    ) -> Result<KeyTable, String> {
        let mut specs: Vec<FieldSpec> = COMMON.to_vec();
        for own in formats {
            specs.extend_from_slice(own);
        }
        let mut actions: Vec<Action> = Vec::new();
        let mut top: Vec<(&'static [u8], u16, u16)> = Vec::new();
        let mut containers: Vec<Vec<(&'static [u8], u16, u16)>> = Vec::new();
        let top_entry = |key: &'static [u8], top: &mut Vec<(&'static [u8], u16, u16)>| match top
            .iter()
            .position(|k| k.0 == key)
        {
            Some(i) => i,
            None => {
                top.push((key, NO_ACTION, NO_CONTAINER));
                top.len() - 1
            }
        };
        for spec in &specs {
            if spec.key.len() > MAX_KEY || spec.parent.len() > MAX_KEY {
                return Err(format!("key {:?} is too long", spec.key));
            }
            let action = match actions.iter().position(|a| *a == spec.action) {
                Some(i) => i as u16,
                None => {
                    actions.push(spec.action);
                    (actions.len() - 1) as u16
                }
            };
            let level = if spec.parent.is_empty() {
                &mut top
            } else {
                let i = top_entry(spec.parent, &mut top);
                if top[i].2 == NO_CONTAINER {
                    containers.push(Vec::new());
                    top[i].2 = (containers.len() - 1) as u16;
                }
                &mut containers[top[i].2 as usize]
            };
            match level.iter_mut().find(|k| k.0 == spec.key) {
                Some(k) if k.1 == NO_ACTION => k.1 = action,
                Some(k) if k.1 == action => {}
                Some(k) => {
                    return Err(format!(
                        "{}.{}: {:?} and {:?}",
                        String::from_utf8_lossy(spec.parent),
                        String::from_utf8_lossy(spec.key),
                        actions[k.1 as usize],
                        spec.action
                    ))
                }
                None => level.push((spec.key, action, NO_CONTAINER)),
            }
        }
        Ok(KeyTable {
            top: Lookup::build(top),
            nested: containers.into_iter().map(Lookup::build).collect(),
            actions,
        })
    }

    /// A top-level key: its action, and the container of its nested keys.
    #[inline]
    pub(crate) fn top(&self, key: &[u8]) -> (Option<Action>, Option<u16>) {
        match self.top.get(key) {
            None => (None, None),
            Some((a, c)) => (
                (a != NO_ACTION).then(|| self.actions[a as usize]),
                (c != NO_CONTAINER).then_some(c),
            ),
        }
    }

    /// A key nested in the container of a top-level key.
    #[inline]
    pub(crate) fn nested(&self, container: u16, key: &[u8]) -> Option<Action> {
        let (a, _) = self.nested[container as usize].get(key)?;
        (a != NO_ACTION).then(|| self.actions[a as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conflicting_specs_are_refused() {
        let specs = [
            FieldSpec::top(b"a", sym(Slot::Kind)),
            FieldSpec::top(b"a", sym(Slot::Id)),
        ];
        assert!(KeyTable::build([&specs[..]]).is_err());
        let specs = [
            FieldSpec::nested(b"p", b"k", sym(Slot::Role)),
            FieldSpec::top(b"p", Action::FlagIfObject(1)),
            FieldSpec::nested(b"p", b"k", sym(Slot::Role)),
        ];
        let t = KeyTable::build([&specs[..]]).unwrap();
        let (action, container) = t.top(b"p");
        assert_eq!(action, Some(Action::FlagIfObject(1)));
        assert_eq!(t.nested(container.unwrap(), b"k"), Some(sym(Slot::Role)));
        assert_eq!(t.nested(container.unwrap(), b"x"), None);
    }
}
