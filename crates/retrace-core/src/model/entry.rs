//! The index record of one JSON object in a session file.

use serde::{Deserialize, Serialize};

use crate::model::intern::Sym;

/// Which input file an entry came from (index into `Session::files`).
///
/// Sixteen bits, so that an [`Entry`] fills one 64-byte cache line: the
/// index of a large session is tens of megabytes of entries, and every
/// byte of an entry is a byte to write, copy and fault in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(transparent)]
pub struct FileId(pub u16);

impl FileId {
    /// How many files one session can hold.
    pub const LIMIT: usize = 1 << 16;
}

/// An entry's position in `Session::entries` (file order, files in the order
/// they were read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(transparent)]
pub struct EntryId(pub u32);

impl EntryId {
    /// Its position in `Session::entries`, as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Bit flags read from an entry's top-level fields at index time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Flags(pub u16);

impl Flags {
    /// The line did not hold a well-formed object; the entry stands for the
    /// whole broken line.
    pub const BROKEN: u16 = 1 << 0;
    /// The id came from a `uuid` field (Claude Code), not `id` (pi).
    pub const UUID: u16 = 1 << 1;
    /// Claude Code `isSidechain: true`.
    pub const SIDECHAIN: u16 = 1 << 2;
    /// Claude Code `isMeta: true` (harness-injected text).
    pub const META: u16 = 1 << 3;
    /// Claude Code `isCompactSummary: true`.
    pub const COMPACT_SUMMARY: u16 = 1 << 4;
    /// A user line that carries tool results rather than a typed prompt.
    pub const TOOL_RESULT: u16 = 1 << 5;
    /// The entry has a `message` object.
    pub const HAS_MESSAGE: u16 = 1 << 6;
    /// The entry shares its line with other objects.
    pub const SHARED_LINE: u16 = 1 << 7;
    /// A `parentId`/`parentUuid` field is present (even if null).
    pub const HAS_PARENT_FIELD: u16 = 1 << 8;
    /// The entry has a `data` object (event streams).
    pub const HAS_DATA: u16 = 1 << 9;
    /// A later entry rewrites this one (same id; Gemini CLI JSONL): this is
    /// an earlier version, kept reachable.
    pub const REWRITTEN: u16 = 1 << 10;
    /// The first message written after a Gemini CLI `$rewindTo`: a branch
    /// someone chose.
    pub const AFTER_REWIND: u16 = 1 << 11;
    /// A Gemini CLI `$set` record that carries a whole `messages` list.
    pub const SNAPSHOT: u16 = 1 << 12;
    /// The line reports a failure, as far as its first two levels (and a
    /// Claude Code tool result's blocks) show: a failed tool result, an
    /// error stop, an API error, a failed tool call event.
    pub const ERROR: u16 = 1 << 13;
    /// A compaction that keeps lines written before it, naming them in its
    /// body (Claude Code's `compactMetadata.preservedMessages` or
    /// `preservedSegment`).
    pub const KEEPS_LINES: u16 = 1 << 14;
    /// A user line whose text opens like what a harness writes (a tag,
    /// Claude Code's caveat or interruption note, Codex's `# AGENTS.md`):
    /// a hint, from the first bytes of its text, of which prompts to read
    /// to tell typed text from harness text
    /// ([`Session::mark_typed_prompts`](crate::Session::mark_typed_prompts)).
    pub const HARNESS_TEXT: u16 = 1 << 15;

    /// Whether `flag` (one of the constants) is set.
    pub fn has(self, flag: u16) -> bool {
        self.0 & flag != 0
    }
}

/// One JSON object of the input, as indexed: where its bytes are and the few
/// fields needed for the tree. The body is parsed only on demand.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The file it was read from.
    pub file: FileId,
    /// 1-based line number in its file.
    pub line: u32,
    /// Byte offset of the object in its file.
    pub offset: u64,
    /// Length of the object in bytes (the whole line, without its
    /// terminator, for a broken line).
    pub len: u32,
    /// What the reader and the format learned of it (see [`Flags`]).
    pub flags: Flags,
    /// `type`.
    pub(crate) kind: Sym,
    /// `subtype` (Claude Code `system` lines), Codex `payload.type`; a pi
    /// `label` entry's `label`.
    pub(crate) subtype: Sym,
    /// `id` or `uuid`.
    pub(crate) id: Sym,
    /// `parentId` or `parentUuid`.
    pub(crate) parent: Sym,
    /// Claude Code `logicalParentUuid`; pi `firstKeptEntryId`, `targetId`,
    /// `fromId`; Claude Code `leafUuid`; Gemini CLI `$rewindTo`: the one
    /// other id an entry refers to.
    pub(crate) reference: Sym,
    /// `message.role`, or a top-level `role` (provider message lists).
    pub(crate) role: Sym,
    /// `message.id`: the API response a Claude Code line belongs to.
    pub(crate) group: Sym,
    /// `agentId` (Claude Code sidechain files) or `toolUseResult.agentId`
    /// (the result line of the Task/Agent call that spawned it).
    pub(crate) agent: Sym,
    /// Milliseconds since the Unix epoch, `i64::MIN` when absent.
    pub(crate) timestamp: i64,
    /// A small number some entries carry: pi header `version`, pi v1
    /// `firstKeptEntryIndex`. `u32::MAX` when absent.
    pub(crate) number: u32,
}

impl Entry {
    /// An entry with only its place and flags; the reader fills in the
    /// fields it finds.
    pub(crate) fn new(file: FileId, line: u32, offset: u64, len: u32, flags: u16) -> Entry {
        Entry {
            file,
            line,
            offset,
            len,
            flags: Flags(flags),
            kind: Sym::NONE,
            subtype: Sym::NONE,
            id: Sym::NONE,
            parent: Sym::NONE,
            reference: Sym::NONE,
            role: Sym::NONE,
            group: Sym::NONE,
            agent: Sym::NONE,
            timestamp: i64::MIN,
            number: u32::MAX,
        }
    }

    /// Its timestamp in milliseconds since the Unix epoch, where it has one.
    pub fn timestamp(&self) -> Option<i64> {
        (self.timestamp != i64::MIN).then_some(self.timestamp)
    }

    /// The byte range of the object in its file.
    pub fn range(&self) -> std::ops::Range<u64> {
        self.offset..self.offset + u64::from(self.len)
    }

    /// Whether the line could not be read as JSON (reported as a diagnostic).
    pub fn is_broken(&self) -> bool {
        self.flags.has(Flags::BROKEN)
    }
}
