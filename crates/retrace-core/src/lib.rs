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

#![warn(missing_docs)]
// `unsafe` only where audited: the SIMD scanner (`read/scan/simd.rs`), its
// run-time dispatch, the interner's prefetch and the reader's parallel
// copy. Each site says why with `#[allow(unsafe_code)]` and a `SAFETY:`.
#![deny(unsafe_code)]

// The layers, declared bottom-up: a module uses only the modules declared
// before it, at every depth; a folder's files may build on its `mod.rs`,
// which then uses none of them (`cargo xtask layers` checks it).
mod model;
mod read;
mod tree;
mod source;
mod normalize;
pub mod migrate;
mod format;
mod session;
mod edit;
mod replay;
mod reading;
mod markdown;
pub mod redact;
mod html;
#[cfg(test)]
mod test_rng;

pub use edit::{
    compact, entry_ids, estimate_tokens, fork, open_calls, plan as compaction_plan, repair,
    resume_check, safe_points, salvage, seal, snapshot, uuid_v4, Budget, CompactionPlan, CutRule,
    EditError, Edited, ForkLineage, Note, OpenCall, Rejected, Resumable, SafePoint, Salvage,
    SnapshotTarget, Stage, Stamp, IMAGE_TOKENS,
};
pub use format::{
    needs_head, order_files, side_car, snapshot_side_car, split_sessions, subagent_dir, Listing,
    SessionFile, Subagent, HEAD_BYTES,
};
pub use html::{
    frame_of, part_name, unescape as html_unescape, FilePart, HtmlError, PageWriter,
    CHUNK as HTML_CHUNK, CSP as HTML_CSP, TAIL as HTML_TAIL, VIEWER_PARTS,
};
pub use markdown::{write_markdown, Branches, Markdown, MarkdownOptions};
pub use model::bookmark::{Bookmark, BookmarkOrigin};
pub use model::diag::{Diagnostic, DiagnosticKind, Severity};
pub use model::entry::{Entry, EntryId, FileId, Flags};
pub use model::event::{
    part_file_name, part_of_file_name, ChangeKind, Checkpoint, Compaction, Event, EventData,
    EventType, FileChange, FinalOutput, LlmCall, StateTransition, ToolCall, UserInput,
};
pub use model::format_id::Format;
pub use model::harness::{class_of, Piece, UserClass};
pub use model::message::{
    short_commit, ImageSource, Message, MessageExtra, MessageKind, Part, PartExtra, Role, ToolRun,
    Usage,
};
pub use model::provider::Api;
pub use model::sort::{sort_by, sort_by_key};
pub use model::time::{format_rfc3339_ms, parse_rfc3339_ms, readable_time};
pub use normalize::ContextOptions;
pub use read::binary::{binary_kind, BINARY_SAMPLE};
pub use read::document::{Document, DocumentField, ElementStarts};
pub use read::file::FileInfo;
pub use read::framing::starts_like_document;
pub use read::gzip::{GzIndex, CHECKPOINT_EVERY};
pub use read::reader::{byte_size, Join, Reader, ReaderOptions, DEFAULT_MAX_INFLATED};
pub use reading::{
    ansi, command_of_argv, diff_lines, diff_of_tool_call, duration_text, is_invisible, language_of,
    pair_calls, push_visible, value_text, visible, Aligned, Alignment, Comparison, DiffLine,
    Heading, Pair, ResultImage, RowPairing, RowResult, Side, Status, Tone, ToolOutput, ToolView,
    COMPARED, PAIRING_REACH,
};
pub use replay::{Event as ReplayEvent, PauseReason, Replay, ReplayOptions, Speed, Step};
pub use session::{
    entry_text, event_line, export_branch, search, searchable_text, segment_preview, session_title,
    written_needle, Check, CheckPart, Export, ExportError, Hit, Hits, Info, Listed, Marks,
    ModelStat, ModelStats, Preview, Row, RowKind, SearchFilter, Segment, Session, Stats, Summary,
    ToolPairing, LOOKED_AT, PREVIEW_CHARS, SEARCH_LIMIT, SNIPPET_CONTEXT,
};
pub use source::{Inflated, Recent, Source, SourceError};
pub use tree::{BranchKind, BranchPoint, Tree};
