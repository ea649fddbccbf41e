//! What the page and the worker say to each other.
//!
//! The worker owns the session: it reads the dropped files by `File.slice`,
//! keeps the index, and reads bodies by byte range when the page asks for
//! rows on screen. Messages travel as JSON strings; the files of an
//! [`Request::Open`] travel beside the JSON in the same `postMessage`.

use retrace_core::{Diagnostic, Marks, Message, RowKind};
use serde::{Deserialize, Serialize};

/// From the page to the worker.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    /// Read the files sent along (one session: a main file and its side
    /// files). `leaf` is a leaf label to resolve (from a deep link).
    Open {
        #[serde(default)]
        leaf: Option<String>,
        #[serde(default)]
        entry: Option<String>,
    },
    /// The rows of the branch ending at `leaf`.
    Branch { leaf: u32 },
    /// The bodies of rows `start..end` of that branch.
    Bodies { leaf: u32, start: u32, end: u32 },
    /// Which rows of that branch hold errors.
    Errors { leaf: u32 },
    /// Search the whole session.
    Search { query: String, filter: SearchFilter },
    /// Tokens per model and tool counts (parses every body).
    Stats,
}

/// Which rows a search looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchFilter {
    pub user: bool,
    pub assistant: bool,
    pub tool: bool,
    pub events: bool,
}

impl Default for SearchFilter {
    fn default() -> Self {
        SearchFilter {
            user: true,
            assistant: true,
            tool: true,
            events: false,
        }
    }
}

/// From the worker to the page.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Response {
    /// The worker is listening (messages sent before are lost, so the page
    /// holds them until this arrives).
    Ready,
    /// Bytes read so far while opening.
    Progress {
        done: u64,
        total: u64,
    },
    Opened {
        summary: Box<Summary>,
    },
    Branch {
        leaf: u32,
        leaf_label: String,
        rows: Vec<RowInfo>,
    },
    Bodies {
        leaf: u32,
        start: u32,
        items: Vec<RowBody>,
    },
    Errors {
        leaf: u32,
        rows: Vec<u32>,
    },
    SearchResults {
        query: String,
        hits: Vec<Hit>,
        /// More matched than were returned.
        truncated: bool,
    },
    Stats {
        stats: Stats,
    },
    /// A request could not be served (unreadable file, …).
    Failed {
        message: String,
    },
}

/// What a session is, for the header, the details panel and the tree.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    pub files: Vec<FileSummary>,
    /// The session's format, e.g. `claude-code` or `pi v3`.
    pub format: String,
    pub entries: u32,
    pub nodes: u32,
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub default_leaf: Option<u32>,
    pub tips: Vec<u32>,
    pub real_branch_points: u32,
    pub structural_branch_points: u32,
    pub outline: Vec<SegmentInfo>,
    /// The first diagnostics (all of them when fewer than the cap).
    pub diagnostics: Vec<Diagnostic>,
    pub diagnostics_total: u32,
    pub subagents: Vec<SubagentInfo>,
    /// The leaf and entry a deep link asked for, when found.
    pub requested_leaf: Option<u32>,
    pub requested_entry: Option<u32>,
    /// How long indexing took in the worker, in milliseconds.
    pub open_ms: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FileSummary {
    pub name: String,
    pub size: u64,
    pub lines: u32,
    pub format: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SubagentInfo {
    pub file: u32,
    pub agent_id: String,
    pub spawned_by: Option<u32>,
    /// `description` from the subagent's `.meta.json`, if given.
    pub description: Option<String>,
}

/// One segment of the branch tree (see `retrace_core::Segment`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The first typed prompt on the segment, shortened.
    pub preview: Option<String>,
    pub sidechain: bool,
    pub file: u32,
}

/// One row of a branch, from the index (no body).
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

/// A row's body, read when the row is on screen.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RowBody {
    /// The message, for message rows whose body parses.
    pub message: Option<Message>,
    /// A one-line description, for event rows.
    pub event: Option<String>,
    /// The body did not parse (the diagnostic says why).
    pub broken: bool,
}

/// A search match.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hit {
    pub entry: u32,
    pub label: String,
    pub line: u32,
    pub role: String,
    /// Text around the match.
    pub snippet: String,
    /// A leaf whose branch holds the entry.
    pub leaf: u32,
}

/// Totals that need every body.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Stats {
    pub messages: u64,
    pub tool_calls: u64,
    pub tool_results: u64,
    pub tool_errors: u64,
    pub results_without_call: u64,
    pub calls_without_result: u64,
    pub models: Vec<ModelStat>,
    /// Problems only a full parse finds (first ones).
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ModelStat {
    pub model: String,
    pub messages: u64,
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub cost: Option<f64>,
}
