//! Changing a session safely: fork, snapshot, seal, compact, repair. Each
//! operation reads a session (its index and, through a [`Source`], its
//! bytes) and gives new bytes in the session's own format — a new file, or
//! lines to append the way the format itself appends — with a report of
//! what it did. Nothing here writes a file or reads a clock: the caller
//! writes the bytes (atomically) and passes the time in.
//!
//! This module is the base of the folder: what every operation returns.
//! Each operation is a file of its own; `lists.rs` and `gemini.rs` write
//! what fork, seal and compact need in those formats' own shapes, below
//! the operations that call them.

use serde::Serialize;

use crate::model::entry::EntryId;
use crate::source::SourceError;

mod ids;
mod points;
mod lists;
mod gemini;
mod fork;
mod snapshot;
mod seal;
mod repair;
mod resume;
mod compact;

pub use compact::{compact, estimate_tokens, plan, Budget, CompactionPlan, CutRule, IMAGE_TOKENS};
pub use fork::{fork, ForkLineage};
pub use ids::{entry_ids, uuid_v4};
pub use points::{safe_points, SafePoint};
pub use repair::{repair, salvage, Salvage};
pub use resume::{resume_check, Resumable};
pub use seal::{open_calls, seal, OpenCall, Stage};
pub use snapshot::{snapshot, SnapshotTarget};

/// What the lines an operation writes get from its caller: the core reads
/// no clock and draws no random numbers.
pub struct Stamp<'a> {
    /// When the lines are written, milliseconds since the Unix epoch.
    pub time_ms: i64,
    /// A new id, called once per line written where the format gives lines
    /// ids (pi: 8 hex digits; Claude Code: a UUID). [`entry_ids`] makes
    /// them as the format's agent does, none already in the session, from
    /// the caller's random bytes; snapshot and compact also refuse an id the
    /// session holds (a caller's `--id`).
    pub new_id: &'a mut dyn FnMut() -> String,
}

impl std::fmt::Debug for Stamp<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stamp")
            .field("time_ms", &self.time_ms)
            .finish_non_exhaustive()
    }
}

/// A result to write for a tool call left without one: what seal hands
/// the writers of the formats that keep a call's message apart.
#[derive(Debug, Clone)]
pub(crate) struct Answer {
    /// The entry holding the call.
    pub entry: EntryId,
    /// The call's id (empty where the format gives none: Google).
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The result's text.
    pub text: String,
}

/// What an operation gives: the bytes to write and what it did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edited {
    /// The new session file (or the lines to append, for an operation that
    /// appends).
    pub bytes: Vec<u8>,
    /// What was done, in order.
    pub notes: Vec<Note>,
    /// Input bytes not carried over, for a side-car (`.rejected`), each
    /// with where it came from; empty when nothing was left out.
    pub rejected: Vec<Rejected>,
}

/// One thing an operation did, for the report (text and `--json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// What kind of change (`sealed`, `forked`, `cut`, `dropped`, …).
    pub action: &'static str,
    /// The line of the input it concerns (from 1), if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The entry id it concerns, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// In words.
    pub message: String,
}

/// Input bytes an operation did not carry over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rejected {
    /// The input file's index among the session's files.
    pub file: u32,
    /// The line (from 1).
    pub line: u32,
    /// The byte offset in the file.
    pub offset: u64,
    /// Why it was left out.
    pub reason: String,
    /// The bytes themselves.
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

/// Why an operation could not be done.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// The session's bytes could not be read.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The format has no way to express it.
    #[error("{format} sessions cannot be {what}")]
    Unsupported {
        /// The format's label.
        format: &'static str,
        /// What was asked (`forked`, `compacted`, …).
        what: &'static str,
    },
    /// An argument names nothing in the session, or something unfit.
    #[error("{0}")]
    Invalid(String),
}
