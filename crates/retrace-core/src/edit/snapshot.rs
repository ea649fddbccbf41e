//! Snapshots: named bookmarks on entries.
//!
//! pi has its own: a `label` entry (`targetId`, `label`), appended as a
//! child of the current leaf the way pi appends every entry, so the
//! default branch stays the same and pi shows the name on its target.
//! pi v1 (no ids) and every other format get a side-car beside the file,
//! `{file}.snapshots.json` ([`snapshot_side_car`](crate::snapshot_side_car);
//! a gzipped `x.jsonl.gz` shares `x.jsonl.snapshots.json`): `{"snapshots":
//! [{name, target, line, time}]}`, one bookmark per name (the last one
//! given wins), fields it does not know kept. The reader shows both
//! ([`Session::bookmarks`], `session/bookmarks.rs`; the side-car's shape
//! is `model/bookmark.rs`); the folder listing attaches the side-car to its
//! file rather than reading it as a session.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::bookmark::{SideCar, SideCarBookmark};
use crate::model::entry::EntryId;
use crate::model::format_id::Format;
use crate::model::time::format_rfc3339_ms;
use crate::session::Session;
use crate::source::Source;

use super::{EditError, Edited, Note, Stamp};

/// Where a snapshot's bytes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SnapshotTarget {
    /// Appended to the session file (a pi `label` entry).
    Append,
    /// The whole side-car file, written over any old one
    /// ([`snapshot_side_car`](crate::snapshot_side_car) names it).
    SideCar,
}

/// Bookmarks the entry `at` as `name` (see the module doc). `side_car` is
/// the side-car's current bytes, if there is one (its bookmarks are kept).
/// Gives where the bytes go with them.
pub fn snapshot(
    session: &Session,
    source: &mut dyn Source,
    at: EntryId,
    name: &str,
    stamp: &mut Stamp,
    side_car: Option<&[u8]>,
) -> Result<(SnapshotTarget, Edited), EditError> {
    if name.trim().is_empty() {
        return Err(EditError::Invalid("a snapshot needs a name".into()));
    }
    let entry = session.entry(at);
    let time = format_rfc3339_ms(stamp.time_ms);
    let note = |message: String| Note {
        action: "snapshot",
        line: Some(entry.line),
        id: Some(session.label(at)),
        message,
    };
    let format = session.file_format(entry.file);
    let target = session
        .id(at)
        .filter(|_| matches!(format, Format::Pi { version } if version > 1));
    if let Some(target) = target {
        let id = (stamp.new_id)();
        if session.find(&id).is_some() {
            return Err(EditError::Invalid(format!(
                "the id {id} is taken in this session"
            )));
        }
        // pi appends to its current leaf: the last entry in file order.
        let parent = session.tree().default_leaf().and_then(|l| session.id(l));
        let line = serde_json::json!({
            "type": "label",
            "id": id,
            "parentId": parent,
            "timestamp": time,
            "targetId": target,
            "label": name,
        });
        let mut bytes = Vec::new();
        // The file's last line may lack its newline.
        let info = &session.files()[entry.file.0 as usize];
        if info.size > 0 && source.read(entry.file, info.size - 1..info.size)?[..] != b"\n"[..] {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(line_of(&line).as_bytes());
        bytes.push(b'\n');
        let notes = vec![note(format!(
            "label entry {id} appended: \"{name}\" on {target}"
        ))];
        return Ok((
            SnapshotTarget::Append,
            Edited {
                bytes,
                notes,
                rejected: Vec::new(),
            },
        ));
    }
    let unreadable =
        |e: String| EditError::Invalid(format!("the snapshot side-car is not readable: {e}"));
    let mut file: SideCar<SideCarBookmark> = match side_car {
        Some(bytes) => {
            let car = SideCar::parse(bytes).map_err(unreadable)?;
            let snapshots = car
                .snapshots
                .into_iter()
                .enumerate()
                .map(|(i, b)| {
                    SideCarBookmark::from_value(b)
                        .map_err(|e| unreadable(format!("bookmark {}: {e}", i + 1)))
                })
                .collect::<Result<_, _>>()?;
            SideCar {
                snapshots,
                other: car.other,
            }
        }
        None => SideCar {
            snapshots: Vec::new(),
            other: Map::new(),
        },
    };
    let target = session.label(at);
    let message = match file.snapshots.iter_mut().find(|b| b.name == name) {
        Some(old) => {
            let was = std::mem::replace(&mut old.target, target.clone());
            old.line = Some(entry.line);
            old.time = Some(time);
            format!("\"{name}\" moved from {was} to {target} in the side-car")
        }
        None => {
            file.snapshots.push(SideCarBookmark {
                name: name.to_owned(),
                target: target.clone(),
                line: Some(entry.line),
                time: Some(time),
                other: Map::new(),
            });
            format!("\"{name}\" on {target} in the side-car")
        }
    };
    let mut bytes =
        serde_json::to_vec_pretty(&file).map_err(|e| EditError::Invalid(e.to_string()))?;
    bytes.push(b'\n');
    Ok((
        SnapshotTarget::SideCar,
        Edited {
            bytes,
            notes: vec![note(message)],
            rejected: Vec::new(),
        },
    ))
}

/// A pi entry as one line, its keys in pi's order (serde_json sorts them).
fn line_of(value: &Value) -> String {
    let Value::Object(map) = value else {
        return value.to_string();
    };
    let order = ["type", "id", "parentId", "timestamp", "targetId", "label"];
    let fields: Vec<String> = order
        .iter()
        .filter_map(|k| map.get(*k).map(|v| format!("{}:{v}", Value::from(*k))))
        .collect();
    format!("{{{}}}", fields.join(","))
}
