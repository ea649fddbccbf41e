//! A bookmark: a name given to an entry; and the snapshot side-car, the
//! file that holds bookmarks for formats with no place of their own
//! (`session/bookmarks.rs` reads both places, `edit/snapshot.rs` writes
//! them).

use serde::Serialize;
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
/// [`SideCarBookmark`], or as the JSON it is, to read them one by one)
/// and any other fields, kept when the side-car is rewritten.
///
/// Read by hand ([`SideCar::parse`], [`SideCarBookmark::from_value`]),
/// not derived: the reader runs in the viewer's worker too, whose size is
/// budgeted, and the JSON values it already reads cost nothing more.
#[derive(Debug, Serialize)]
pub(crate) struct SideCar<B> {
    pub(crate) snapshots: Vec<B>,
    #[serde(flatten)]
    pub(crate) other: Map<String, Value>,
}

/// One bookmark of a side-car, fields in the order they are written;
/// fields retrace does not know are kept.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SideCarBookmark {
    pub(crate) name: String,
    /// The entry's id, or `L<line>` for an entry without one.
    pub(crate) target: String,
    /// The entry's line (from 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) line: Option<u32>,
    /// When it was taken (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) time: Option<String>,
    #[serde(flatten)]
    pub(crate) other: Map<String, Value>,
}

impl SideCar<Value> {
    /// A side-car's bytes: an object with a `snapshots` list, whose
    /// bookmarks are left as JSON. Says what is wrong otherwise.
    pub(crate) fn parse(bytes: &[u8]) -> Result<SideCar<Value>, String> {
        let value: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        let Value::Object(mut other) = value else {
            return Err("not a JSON object".to_owned());
        };
        match other.remove("snapshots") {
            Some(Value::Array(snapshots)) => Ok(SideCar { snapshots, other }),
            _ => Err("no `snapshots` list".to_owned()),
        }
    }
}

impl SideCarBookmark {
    /// One bookmark of a side-car from its JSON: `name` and `target`
    /// strings, `line` a number and `time` a string where given.
    pub(crate) fn from_value(value: Value) -> Result<SideCarBookmark, String> {
        let Value::Object(mut other) = value else {
            return Err("not a JSON object".to_owned());
        };
        let mut text = |key: &str| match other.remove(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(format!("`{key}` is not a string")),
        };
        let name = text("name")?.ok_or("missing field `name`")?;
        let target = text("target")?.ok_or("missing field `target`")?;
        let time = text("time")?;
        let line = match other.remove("line") {
            None => None,
            Some(n) => Some(
                n.as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or("`line` is not a line number")?,
            ),
        };
        Ok(SideCarBookmark {
            name,
            target,
            line,
            time,
            other,
        })
    }
}
