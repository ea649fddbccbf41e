//! Problems found in the input, as data: parsing never fails, it reports.

use serde::{Deserialize, Serialize};

use crate::model::entry::FileId;

/// How much a diagnostic matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the session reads as intended (CRLF endings, a BOM).
    Info,
    /// Something is off but nothing was lost (a missing parent, a duplicate id).
    Warning,
    /// Part of the input could not be read as intended (a broken line).
    Error,
}

/// What kind of problem a diagnostic reports. The `code` is stable and is what
/// tools should match on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// The line is not well-formed JSON (structure or grammar).
    MalformedJson,
    /// Two or more JSON objects were written on one line.
    ConcatenatedObjects,
    /// The line is not valid UTF-8.
    InvalidUtf8,
    /// The file starts with a UTF-8 byte order mark.
    ByteOrderMark,
    /// Lines end in `\r\n`.
    CrlfLineEndings,
    /// The last line has no newline and does not parse (a torn write).
    TruncatedLine,
    /// A line is longer than the reader's limit and was not indexed.
    LineTooLong,
    /// An entry repeats the id of an earlier one.
    DuplicateId,
    /// Following parents from this entry comes back to it.
    ParentCycle,
    /// The parent id names no entry; the entry is treated as a root.
    MissingParent,
    /// An entry type this version of retrace does not know (kept as is).
    UnknownType,
    /// A tool result whose call is not on the branch.
    ResultWithoutCall,
    /// A tool call with no result on the branch.
    CallWithoutResult,
    /// An entry's timestamp is earlier than its parent's.
    TimestampOutOfOrder,
    /// A field has an unexpected shape (a reference that resolves nowhere…).
    BadField,
    /// Lines that repeat another file's history were left out of the tree
    /// because that file was read too: a Codex fork's copy of its parent,
    /// a Gemini CLI legacy session whose migrated `.jsonl` repeats it.
    CopiedHistory,
    /// A split set (`events_1.jsonl`, `events_2.jsonl`, …) misses a part.
    SplitGap,
    /// A gzip file's compressed data is broken (bad header, bad deflate
    /// data, a CRC or length mismatch); what came before is read.
    GzipCorrupt,
    /// A gzip file ends inside a member.
    GzipTruncated,
    /// Bytes that are not gzip follow the last gzip member.
    GzipTrailingData,
    /// A gzip file inflates past `ReaderOptions::max_inflated` (a gzip
    /// bomb, or a session larger than the limit): read up to it.
    GzipTooLarge,
    /// A file fits no format retrace knows; its lines were read as plain
    /// JSON objects (entries, no tree, no messages).
    UnknownFormat,
    /// A bookmark that cannot be placed: a pi `label` entry whose target
    /// is not in its file, a snapshot side-car that does not parse, or one
    /// of its bookmarks that is malformed or names no entry of its file.
    BadBookmark,
    /// A format named with `--format` that the file does not look like:
    /// detection would have read it as another (named in the message).
    FormatMismatch,
}

impl DiagnosticKind {
    /// The stable kebab-case code, e.g. `missing-parent`.
    pub fn code(self) -> &'static str {
        match self {
            DiagnosticKind::MalformedJson => "malformed-json",
            DiagnosticKind::ConcatenatedObjects => "concatenated-objects",
            DiagnosticKind::InvalidUtf8 => "invalid-utf8",
            DiagnosticKind::ByteOrderMark => "byte-order-mark",
            DiagnosticKind::CrlfLineEndings => "crlf-line-endings",
            DiagnosticKind::TruncatedLine => "truncated-line",
            DiagnosticKind::LineTooLong => "line-too-long",
            DiagnosticKind::DuplicateId => "duplicate-id",
            DiagnosticKind::ParentCycle => "parent-cycle",
            DiagnosticKind::MissingParent => "missing-parent",
            DiagnosticKind::UnknownType => "unknown-type",
            DiagnosticKind::ResultWithoutCall => "result-without-call",
            DiagnosticKind::CallWithoutResult => "call-without-result",
            DiagnosticKind::TimestampOutOfOrder => "timestamp-out-of-order",
            DiagnosticKind::BadField => "bad-field",
            DiagnosticKind::CopiedHistory => "copied-history",
            DiagnosticKind::SplitGap => "split-gap",
            DiagnosticKind::GzipCorrupt => "gzip-corrupt",
            DiagnosticKind::GzipTruncated => "gzip-truncated",
            DiagnosticKind::GzipTrailingData => "gzip-trailing-data",
            DiagnosticKind::GzipTooLarge => "gzip-too-large",
            DiagnosticKind::UnknownFormat => "unknown-format",
            DiagnosticKind::BadBookmark => "bad-bookmark",
            DiagnosticKind::FormatMismatch => "format-mismatch",
        }
    }
}

/// One problem, with where it is: the file, the 1-based line and the byte
/// offset from the start of the file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Diagnostic {
    /// How bad it is.
    pub severity: Severity,
    /// What it is, as a stable code.
    pub kind: DiagnosticKind,
    /// The file it is in.
    pub file: FileId,
    /// 1-based line number; 0 for a problem in a side-car beside the
    /// file (the message names the side-car).
    pub line: u32,
    /// Byte offset from the start of the file.
    pub offset: u64,
    /// A plain sentence saying what is wrong.
    pub message: String,
}

impl Diagnostic {
    /// A line (or document element: `what`) longer than `max` bytes, which
    /// the reader skipped rather than buffer without bound.
    pub(crate) fn line_too_long(
        file: FileId,
        line: u32,
        offset: u64,
        what: &str,
        max: usize,
    ) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            kind: DiagnosticKind::LineTooLong,
            file,
            line,
            offset,
            message: format!("{what} is longer than {max} bytes and was not indexed"),
        }
    }

    /// A diagnostic about `entry`, pointing at its first byte.
    pub(crate) fn at(
        entry: &crate::model::entry::Entry,
        severity: Severity,
        kind: DiagnosticKind,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            kind,
            file: entry.file,
            line: entry.line,
            offset: entry.offset,
            message: message.into(),
        }
    }
}
