//! The values that cross: what each request is answered with and what
//! background work reports. Each is a plain struct serialized by serde, the
//! same value for the worker's JSON and the direct transport's JS objects
//! (`serde-wasm-bindgen`'s JSON-compatible serializer).

use retrace_core::migrate::Report;
use retrace_core::{BranchPoint, Diagnostic, Listed, Marks, Message, Preview, RowKind, RowPairing};
use serde::{Deserialize, Serialize};

// Values the core computes for the CLI and the viewer alike cross as they
// are: no mirror types to drift.
pub use retrace_core::{Hit, SearchFilter, Stats};

/// One session of a dropped folder, as listed before its title is read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FolderSession {
    /// The path of its conversation file under the folder.
    pub name: String,
    /// Its files (the conversation and its subagent runs), side-cars apart.
    pub files: u32,
    /// Bytes of those files.
    pub size: u64,
}

/// What a session is, for the header, the details panel and the tree.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Summary {
    /// The figures `retrace info` prints: format, entries, branches, time
    /// span, how many diagnostics.
    pub figures: retrace_core::Summary,
    pub files: Vec<FileSummary>,
    pub default_leaf: Option<u32>,
    pub tips: Vec<u32>,
    pub outline: Vec<SegmentInfo>,
    /// The first diagnostics (all of them when fewer than the cap; how many
    /// there are is in `figures`).
    pub diagnostics: Vec<Diagnostic>,
    pub subagents: Vec<SubagentInfo>,
    /// The bookmarks (pi labels, and a side-car dropped with its session)
    /// as two columns: the entries, by entry, and their names.
    pub bookmarked: Vec<u32>,
    pub bookmark_names: Vec<String>,
    /// What the session says about itself: id, working directory, agent
    /// version, git branch, model… (first value of each, from the first
    /// entries).
    pub metadata: Vec<(String, String)>,
    /// The leaf and entry a deep link asked for, when found.
    pub requested_leaf: Option<u32>,
    pub requested_entry: Option<u32>,
    /// How long opening took, in milliseconds, and how much of it was
    /// spent waiting for the host to read the files.
    pub open_ms: f64,
    pub read_ms: f64,
    /// The engine's wasm memory after indexing, in bytes (0 natively).
    pub memory: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileSummary {
    pub name: String,
    pub size: u64,
    pub lines: u32,
    pub format: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SubagentInfo {
    pub file: u32,
    pub agent_id: String,
    /// The result entry in the parent conversation that reports the run.
    pub spawned_by: Option<u32>,
    /// `description` from the subagent's `.meta.json`, if given.
    pub description: Option<String>,
    /// The way back from the run to the call that spawned it: a leaf whose
    /// branch holds `spawned_by`, the file it is in, and the id of the
    /// call it answers (when `spawned_by` is in the tree).
    #[serde(default)]
    pub spawned_leaf: Option<u32>,
    #[serde(default)]
    pub spawned_file: Option<u32>,
    #[serde(default)]
    pub spawned_call: Option<String>,
}

/// One segment of the branch tree (see `retrace_core::Segment`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SegmentInfo {
    pub first: u32,
    pub last: u32,
    pub first_label: String,
    pub parent: Option<u32>,
    pub depth: u32,
    pub children: Vec<u32>,
    pub len: u32,
    pub side: u32,
    pub compactions: u32,
    pub is_tip: bool,
    pub has_default: bool,
    /// The leaf picking this segment opens.
    pub tip: u32,
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// What the segment is about (its first prompt, shortened), when the
    /// summary carries it.
    pub preview: Option<Preview>,
    pub sidechain: bool,
    pub file: u32,
}

/// One row of a branch, from the index (no body); rows cross as [`Rows`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowInfo {
    /// The first entry of the row.
    pub entry: u32,
    /// How many entries the row merges.
    pub count: u32,
    pub label: String,
    pub kind: RowKind,
    #[serde(rename = "type")]
    pub entry_type: String,
    pub role: String,
    pub time: Option<i64>,
    pub marks: Marks,
    pub file: u32,
    pub line: u32,
}

/// The background scan for sensitive data.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ScanReport {
    /// Bytes scanned of all files, and their total.
    pub done: u64,
    pub total: u64,
    pub finished: bool,
    /// Findings so far per kind (all of them, not only the listed ones).
    pub counts: Vec<(String, u64)>,
    /// Findings since the last report (the first ones of a session only;
    /// see `listed_max`): where, never the value.
    pub findings: Vec<SensitiveFinding>,
}

/// One piece of sensitive data, by place and kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SensitiveFinding {
    pub kind: String,
    pub file: u32,
    pub line: u64,
    /// JSON path of the string that holds it.
    pub path: String,
    /// The entry of that line, and a leaf whose branch shows it.
    pub entry: Option<u32>,
    pub leaf: Option<u32>,
    /// The value's hash (16 hex digits): what names it in a rules file's
    /// exceptions.
    pub hash: String,
}

/// The rows of a branch, column by column: a long branch is a hundred
/// thousand rows, and arrays of numbers cross `postMessage` and parse far
/// faster than as many objects (the page must not stall on them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Rows {
    pub entry: Vec<u32>,
    pub count: Vec<u32>,
    pub label: Vec<String>,
    /// 0 for a message row, 1 for an event row.
    pub kind: Vec<u8>,
    /// Index into `types`.
    pub type_of: Vec<u16>,
    pub types: Vec<String>,
    /// Index into `roles`.
    pub role_of: Vec<u16>,
    pub roles: Vec<String>,
    pub time: Vec<Option<i64>>,
    pub marks: Vec<u8>,
    pub file: Vec<u32>,
    pub line: Vec<u32>,
}

/// `value`'s index in `table`, added when new: a column of a few names
/// stored once.
fn index(table: &mut Vec<String>, value: String) -> u16 {
    match table.iter().position(|t| *t == value) {
        Some(i) => i as u16,
        None => {
            table.push(value);
            (table.len() - 1) as u16
        }
    }
}

impl Rows {
    pub fn len(&self) -> usize {
        self.entry.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entry.is_empty()
    }

    pub fn push(&mut self, row: RowInfo) {
        self.entry.push(row.entry);
        self.count.push(row.count);
        self.label.push(row.label);
        self.kind.push(u8::from(row.kind == RowKind::Event));
        let t = index(&mut self.types, row.entry_type);
        self.type_of.push(t);
        let r = index(&mut self.roles, row.role);
        self.role_of.push(r);
        self.time.push(row.time);
        self.marks.push(row.marks.0);
        self.file.push(row.file);
        self.line.push(row.line);
    }

    pub fn get(&self, i: usize) -> Option<RowInfo> {
        Some(RowInfo {
            entry: *self.entry.get(i)?,
            count: self.count[i],
            label: self.label[i].clone(),
            kind: self.kind(i),
            entry_type: self.types[self.type_of[i] as usize].clone(),
            role: self.roles[self.role_of[i] as usize].clone(),
            time: self.time[i],
            marks: Marks(self.marks[i]),
            file: self.file[i],
            line: self.line[i],
        })
    }

    pub fn kind(&self, i: usize) -> RowKind {
        if self.kind[i] == 0 {
            RowKind::Message
        } else {
            RowKind::Event
        }
    }

    pub fn marks(&self, i: usize) -> Marks {
        Marks(self.marks[i])
    }

    /// The row holding entry `entry`, if the branch has it (a merged row
    /// holds the entries after its first).
    pub fn row_of(&self, entry: u32) -> Option<usize> {
        self.entry.iter().position(|&e| e == entry).or_else(|| {
            let i = self.entry.partition_point(|&e| e <= entry);
            (i > 0 && self.entry[i - 1] + self.count[i - 1] > entry).then(|| i - 1)
        })
    }
}

/// A row's body, read when the row is on screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RowBody {
    /// The message, for message rows whose body parses.
    pub message: Option<Message>,
    /// A one-line description, for event rows.
    pub event: Option<String>,
    /// The body did not parse (the diagnostic says why).
    pub broken: bool,
    /// How its tool calls and results pair with other rows (`None` when
    /// it has none that do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairing: Option<RowPairing>,
}

/// The rows of the branch ending at `leaf` (answers `branch`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BranchRows {
    pub leaf: u32,
    /// The leaf's id as links write it.
    pub leaf_label: String,
    pub rows: Rows,
}

/// The bodies of rows `start..` of the branch ending at `leaf` (answers
/// `bodies`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Bodies {
    pub leaf: u32,
    pub start: u32,
    pub items: Vec<RowBody>,
    /// The values in these bodies shown as written that a redacted copy
    /// would take out (each once), for a reader to highlight: all of them
    /// with sensitive data shown; with it hidden, those the review marked
    /// "not a secret" (`review`). The bodies carry no marks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revealed: Vec<String>,
}

/// The hits of a search (answers `search`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SearchResults {
    pub query: String,
    pub hits: Vec<Hit>,
    /// More matched than were returned.
    pub truncated: bool,
    /// With sensitive data hidden, the values in the snippets the review
    /// marked "not a secret" (`review`), each once. With it shown, the
    /// snippets are the CLI's, as written, and name none (the values the
    /// bodies named are in them as written).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revealed: Vec<String>,
}

/// The totals of the deep check, and the first problems it found (all of
/// them are counted in `stats`) (answers `stats`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StatsReport {
    pub stats: Stats,
    pub diagnostics: Vec<Diagnostic>,
}

/// An image of a row as a `data:` URL: no request leaves the tab (answers
/// `image`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Image {
    pub leaf: u32,
    pub row: u32,
    pub image: u32,
    pub url: String,
}

/// Segment previews, (segment, preview); segments where nothing is said
/// have none (answers `previews`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Previews {
    pub previews: Vec<(u32, Preview)>,
    /// The values in them shown as written that a redacted copy would
    /// take out (as for `Bodies::revealed`), each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revealed: Vec<String>,
}

/// The rows of a branch that are safe fork points (its last row, a leaf,
/// too) and its tool calls without a result, `name (id)` (answers
/// `edit_points`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EditPoints {
    pub leaf: u32,
    pub rows: Vec<u32>,
    pub open: Vec<String>,
}

/// Two branches side by side from their fork point, or what a compaction
/// hid beside what replaced it (answers `compare`): the lines of the
/// comparison (`pairs`), and the rows they hold in line order (a line's
/// left row before its right one) with their bodies.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Comparison {
    pub left: u32,
    pub right: u32,
    /// `right` is a compaction on `left`'s branch: the left side is what
    /// it hid, the right side what replaced it (the compaction, and the
    /// summary line after it), both rows of `left`'s branch.
    pub compaction: bool,
    /// The last entry both branches hold (where they fork), or the
    /// compaction.
    pub fork: Option<u32>,
    /// The lines, one number each: 0 the last row both branches share (one
    /// row, across both sides), 1 a row on each side saying the same, 2 a
    /// row on each side saying something else (for a compaction: hidden,
    /// beside a row that replaced it), 3 a left row alone, 4 a right row
    /// alone.
    pub pairs: Vec<u8>,
    pub rows: Rows,
    pub bodies: Vec<RowBody>,
    /// Rows of each side after those shown (`retrace_core::COMPARED` a
    /// side at most).
    pub more_left: u32,
    pub more_right: u32,
    /// The values in these bodies shown as written that a redacted copy
    /// would take out (as for [`Bodies::revealed`]), each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revealed: Vec<String>,
}

/// A file the engine made (a redacted copy, a fork, a seal): its name and
/// what a fork or a seal did (the core's notes, one a line). Its bytes do
/// not cross as JSON: the transports hand them over as a `Blob` beside
/// this (the `file` field of what a JS caller gets).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Made {
    pub name: String,
    pub notes: Vec<String>,
    /// The bytes, for a file made in one go (a fork, a seal); a redacted
    /// copy's come in pieces while it is written.
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

/// A dropped or picked folder split into sessions (answers
/// `open_folder`): each by name, and when there is only one, it is opened
/// and `summary` is its summary; otherwise their titles follow as
/// `listed` events.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FolderOpened {
    pub sessions: Vec<FolderSession>,
    pub summary: Option<Box<Summary>>,
}

/// One finding the review marked "not a secret": its kind, its 1-based
/// line and the hash of its value (16 hex digits), as a rules file's
/// `[allow] findings` names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Allow {
    pub kind: String,
    pub line: u64,
    pub hash: String,
}

/// One finding the review marked "not a secret", in any file of the
/// session (`review`): its file, and the finding as [`Allow`] names it
/// (the line is the file's own).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReviewAllow {
    pub file: u32,
    pub kind: String,
    pub line: u64,
    pub hash: String,
}

/// The first screen of a file still being read (the `first_rows` event,
/// sent to an `open` that asked with `first_rows`): the figures of the
/// session its first piece holds (the rest of the summary is left empty),
/// the rows of that session's default branch and the bodies of the first
/// of them, so a page paints them while the rest is indexed. Ids are
/// those the whole session gives the same entries.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FirstRows {
    pub summary: Box<Summary>,
    pub branch: Box<BranchRows>,
    pub bodies: Bodies,
}

/// Bytes read so far while opening (the `progress` event).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Progress {
    pub done: u64,
    pub total: u64,
}

/// A redacted copy being written: bytes done of file `file` (the
/// `download_progress` event).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DownloadProgress {
    pub file: u32,
    pub done: u64,
    pub total: u64,
}

/// Titles, times and formats of some of the listed folder's sessions, by
/// index (the `listed` event).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ListedBatch {
    pub listed: Vec<(u32, Listed)>,
}

/// The nodes of the branch tree, column by column (as [`Rows`]: a session
/// can hold a million), in file order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TreeNodes {
    pub entry: Vec<u32>,
    /// Each node's parent (`null` for a root).
    pub parent: Vec<Option<u32>>,
    /// Its id as links write it (`Session::label`).
    pub label: Vec<String>,
    /// Index into `types`: the entry's type as written (`user`,
    /// `assistant`, `message`, `response_item`, …).
    pub type_of: Vec<u16>,
    pub types: Vec<String>,
    /// Index into `roles` (`""` where the entry has none).
    pub role_of: Vec<u16>,
    pub roles: Vec<String>,
    /// The file (index into the summary's `files`) and 1-based line.
    pub file: Vec<u32>,
    pub line: Vec<u32>,
}

impl TreeNodes {
    pub fn len(&self) -> usize {
        self.entry.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entry.is_empty()
    }

    /// Adds a node: its entry, parent, label, type, role, file and line.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        entry: u32,
        parent: Option<u32>,
        label: String,
        entry_type: String,
        role: String,
        file: u32,
        line: u32,
    ) {
        self.entry.push(entry);
        self.parent.push(parent);
        self.label.push(label);
        let t = index(&mut self.types, entry_type);
        self.type_of.push(t);
        let r = index(&mut self.roles, role);
        self.role_of.push(r);
        self.file.push(file);
        self.line.push(line);
    }
}

/// The branch tree (answers `tree`): what the summary's outline folds
/// into segments, node by node. A leaf is a node without children; a tip
/// is a leaf that ends a branch someone could pick (the summary's `tips`:
/// structural dead ends, such as a hook line, are folded in).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionTree {
    pub nodes: TreeNodes,
    pub roots: Vec<u32>,
    pub leaves: Vec<u32>,
    pub tips: Vec<u32>,
    pub default_leaf: Option<u32>,
    /// Nodes with several children, in file order: `real` where someone
    /// went back and went on differently (a rewind, a fork), `structural`
    /// where the recording fanned out (parallel tool calls, hook lines).
    pub branch_points: Vec<BranchPoint>,
}

/// The messages of a branch (answers `context`): what a model would be
/// sent, in the one message model (compactions honoured, a response split
/// over lines merged), read as bodies are shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Context {
    pub leaf: u32,
    pub messages: Vec<Message>,
    /// The values shown as written that a redacted copy would take out
    /// (as for [`Bodies::revealed`]), each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revealed: Vec<String>,
}

/// A branch written as the history of a request to another provider's
/// API (answers `migrate`): the body `retrace migrate --to` writes and the
/// report `--report --json` prints.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Migration {
    pub leaf: u32,
    /// The request body's fields that hold the history (`messages`,
    /// `system`, `input`, `contents`, `systemInstruction`…: the target's
    /// own shape).
    pub body: serde_json::Value,
    /// What the target (`report.to`) could not take or took differently,
    /// and what sending it needs.
    pub report: Report,
    /// The values shown as written that a redacted copy would take out
    /// (as for [`Bodies::revealed`]), each once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revealed: Vec<String>,
}
