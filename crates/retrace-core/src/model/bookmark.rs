//! A bookmark: a name given to an entry; and the snapshot side-car, the
//! file that holds bookmarks for formats with no place of their own
//! (`session/bookmarks.rs` reads both places, `edit/snapshot.rs` writes
//! them).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::entry::EntryId;

/// A name given to an entry, by a pi `label` entry or in a snapshot
/// side-car ([`Session::bookmarks`](crate::Session::bookmarks) lists them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bookmark {
    /// The name.
    pub name: String,
    /// The entry it marks.
    pub entry: EntryId,
    /// When it was given (Unix milliseconds), when known.
    pub time: Option<i64>,
    /// Where it is written.
    pub origin: BookmarkOrigin,
}

/// Where a bookmark is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BookmarkOrigin {
    /// A pi `label` entry of the session (the last one for its target).
    Label(EntryId),
    /// The snapshot side-car of the entry's file, by the name it was read
    /// under.
    SideCar(String),
}

/// A snapshot side-car as written: its bookmarks (`B`: each as a
/// [`SideCarBookmark`], or as any JSON to read them one by one) and any
/// other fields, kept when the side-car is rewritten.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct SideCar<B> {
    pub(crate) snapshots: Vec<B>,
    #[serde(flatten)]
    pub(crate) other: Map<String, Value>,
}

/// One bookmark of a side-car, fields in the order they are written;
/// fields retrace does not know are kept.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct SideCarBookmark {
    pub(crate) name: String,
    /// The entry's id, or `L<line>` for an entry without one.
    pub(crate) target: String,
    /// The entry's line (from 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<u32>,
    /// When it was taken (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) time: Option<String>,
    #[serde(flatten)]
    pub(crate) other: Map<String, Value>,
}
