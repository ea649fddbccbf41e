//! retrace-core reads the session files LLM agents write.
//!
//! It is sans-I/O: it opens no files, reads no environment, asks no clock and
//! starts no threads. Bytes come in, values go out; it builds for
//! `wasm32-unknown-unknown` unchanged.
//!
//! The path of a byte:
//! 1. [`Reader::push`] takes chunks of any size and frames them into lines.
//! 2. The structural scanner finds each line's objects and its first two
//!    levels of keys without parsing bodies; the reader keeps one small
//!    [`Entry`] per object (offsets, ids, type, timestamp).
//! 3. [`Reader::finish`] detects the [`Format`] and builds the branch
//!    [`Tree`] into a [`Session`], with every problem as a [`Diagnostic`].
//! 4. Bodies are parsed only when asked for: [`Session::context`] reads the
//!    byte ranges of a branch through a [`Source`] and normalizes them into
//!    [`Message`]s.
//!
//! Beside the path, [`redact`] takes secrets and personal data out of any
//! JSON-lines file, streaming, with the same bytes natively and in wasm.

mod api;
mod context;
mod diag;
mod digest;
mod document;
mod entry;
mod fields;
mod format;
mod framing;
mod gzip;
mod intern;
mod message;
pub mod migrate;
mod normalize;
mod outline;
mod pairing;
mod pending;
mod reader;
pub mod redact;
mod replay;
mod scan;
mod scan_simd;
mod session;
mod source;
#[cfg(test)]
mod test_rng;
mod time;
mod transcript;
mod tree;

pub use api::Api;
pub use context::{Check, ToolPairing};
pub use diag::{Diagnostic, DiagnosticKind, Severity};
pub use document::{Document, DocumentField, ElementStarts};
pub use entry::{Entry, EntryId, FileId, Flags};
pub use format::folder::{order_files, side_car, subagent_dir, Listing, SessionFile};
pub use format::Format;
pub use framing::starts_like_document;
pub use gzip::{GzIndex, Inflated, CHECKPOINT_EVERY};
pub use message::{ImageSource, Message, MessageExtra, MessageKind, Part, PartExtra, Role, Usage};
pub use normalize::ContextOptions;
pub use outline::Segment;
pub use reader::{Join, Reader, ReaderOptions};
pub use replay::{Event as ReplayEvent, PauseReason, Replay, ReplayOptions, Speed, Step};
pub use session::export::{export_branch, Export, ExportError};
pub use session::preview::{segment_preview, Preview, LOOKED_AT, PREVIEW_CHARS};
pub use session::search::{
    entry_text, event_line, search, searchable_text, Hit, Hits, SearchFilter, SNIPPET_CONTEXT,
};
pub use session::summary::{Info, ModelStat, Stats, Summary};
pub use session::{FileInfo, Session, Subagent};
pub use source::{Source, SourceError};
pub use time::{format_rfc3339_ms, parse_rfc3339_ms};
pub use transcript::{Marks, Row, RowKind};
pub use tree::{BranchKind, BranchPoint, Tree};
