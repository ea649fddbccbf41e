//! What the reader records about each input file.

use std::sync::Arc;

use serde::Serialize;

use super::document::Document;
use super::gzip::GzIndex;
use super::sniff::Sniff;

/// One input file of a session.
#[derive(Debug, Clone, Serialize)]
pub struct FileInfo {
    /// The name it was read under (a path, or a browser file name).
    pub name: String,
    /// Bytes read.
    pub size: u64,
    /// Lines read (a last line without a newline counts).
    pub lines: u32,
    /// Its entries are `first_entry..end_entry` of [`Session::entries`](crate::Session::entries).
    pub first_entry: u32,
    /// See `first_entry`.
    pub end_entry: u32,
    /// False when the file's last line has no newline.
    pub line_ends_with_newline: bool,
    /// A side-car document attached with [`Reader::attach_meta`](crate::Reader::attach_meta).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta: Option<serde_json::Value>,
    /// When the file is one JSON document (an array, or an object with a
    /// `messages` array) rather than JSON lines: its other top-level fields
    /// and where its framed array's key is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<Document>,
    /// Set when the file was gzip: where to restart inflating it, for
    /// [`Inflated`](crate::Inflated). `size` and every offset are of the
    /// decompressed bytes.
    #[serde(skip)]
    pub gzip: Option<Arc<GzIndex>>,
    /// Where a part read by [`Reader::begin_part`](crate::Reader::begin_part) started.
    #[serde(skip)]
    pub(crate) part_start: u64,
    /// What the first entries look like, for format detection.
    #[serde(skip)]
    pub(crate) sniff: Sniff,
}
