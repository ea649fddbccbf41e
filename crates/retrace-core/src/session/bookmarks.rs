//! A session's bookmarks: names given to entries, from two places.
//!
//! - pi writes its own: `label` entries (`targetId`, `label`). Per target
//!   the last one in file order wins, and one whose `label` is empty or
//!   absent clears the target's name, as pi's session manager reads them
//!   (pi keeps one name per target; several targets may share a name).
//! - Every other format, and pi v1 (no ids for a label to name), keeps
//!   them in a side-car beside the file, `{file}.snapshots.json`
//!   ([`snapshot_side_car`](crate::snapshot_side_car) names it):
//!   `{"snapshots": [{"name", "target", "line", "time"}]}`, `target` the
//!   entry's id or `L<line>` in that file, `line` its line (which picks
//!   the entry when the file uses the id twice), `time` when it was taken.
//!   The core reads no files: the caller hands the side-car's bytes to the
//!   reader ([`Reader::attach_snapshots`](crate::Reader::attach_snapshots)).
//!
//! `retrace snapshot` writes both (`edit/snapshot.rs`; the side-car's
//! shape is `model/bookmark.rs`). Nothing wrong is passed over in silence: a label
//! whose target is not in its file, a side-car that does not parse, a
//! bookmark that is malformed or names no entry of its file are each a
//! `bad-bookmark` warning on the file, and the other bookmarks still count.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::Value;

use crate::model::bookmark::{Bookmark, BookmarkOrigin, SideCar, SideCarBookmark};
use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{EntryId, FileId, Flags};
use crate::model::format_id::Format;
use crate::model::intern::Sym;
use crate::model::time::parse_rfc3339_ms;

use super::Session;

impl Session {
    /// Every bookmark of the session (see the module doc), by entry in
    /// file order; an entry's label first, then its side-car names.
    pub fn bookmarks(&self) -> &[Bookmark] {
        &self.bookmarks
    }

    /// The bookmarks on one entry.
    pub fn bookmarks_on(&self, e: EntryId) -> &[Bookmark] {
        let start = self.bookmarks.partition_point(|b| b.entry < e);
        let len = self.bookmarks[start..].partition_point(|b| b.entry == e);
        &self.bookmarks[start..start + len]
    }
}

/// The bookmarks of a built session: its pi labels, then the side-cars
/// attached to its files (file, side-car name, bytes); and what is wrong
/// with them.
pub(crate) fn collect(
    s: &Session,
    side_cars: &[(FileId, String, Vec<u8>)],
) -> (Vec<Bookmark>, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let mut problems = Vec::new();
    from_labels(s, &mut out, &mut problems);
    for (file, name, bytes) in side_cars {
        from_side_car(s, *file, name, bytes, &mut out, &mut problems);
    }
    // Stable: labels stay before side-car names on the same entry.
    out.sort_by_key(|b| b.entry);
    (out, problems)
}

/// pi `label` entries, file by file (ids are a file's own).
fn from_labels(s: &Session, out: &mut Vec<Bookmark>, problems: &mut Vec<Diagnostic>) {
    let label = s.interner.lookup(b"label");
    if label.is_none() {
        return;
    }
    for (f, info) in s.files.iter().enumerate() {
        if !matches!(s.file_formats[f], Format::Pi { .. }) {
            continue;
        }
        let own = info.first_entry..info.end_entry;
        // The file's entries by id (the first of a repeated id, as parents
        // resolve), built at its first label.
        let mut by_id: Option<HashMap<Sym, EntryId>> = None;
        // Target → the label entry naming it now.
        let mut named: BTreeMap<EntryId, EntryId> = BTreeMap::new();
        for e in own.clone() {
            let entry = &s.entries[e as usize];
            if entry.kind != label {
                continue;
            }
            let by_id = by_id.get_or_insert_with(|| {
                let mut ids = HashMap::new();
                for i in own.clone() {
                    let id = s.entries[i as usize].id;
                    if !id.is_none() {
                        ids.entry(id).or_insert(EntryId(i));
                    }
                }
                ids
            });
            let problem = |what: String| {
                Diagnostic::at(entry, Severity::Warning, DiagnosticKind::BadBookmark, what)
            };
            if entry.reference.is_none() {
                problems.push(problem("label entry without a targetId".to_owned()));
                continue;
            }
            let Some(&target) = by_id.get(&entry.reference) else {
                problems.push(problem(format!(
                    "label entry names \"{}\", which is not in this file",
                    s.interner.str(entry.reference)
                )));
                continue;
            };
            // An empty or absent `label` clears the target's name.
            if s.interner.get(entry.subtype).is_empty() {
                named.remove(&target);
            } else {
                named.insert(target, EntryId(e));
            }
        }
        out.extend(named.into_iter().map(|(target, by)| {
            let entry = &s.entries[by.index()];
            Bookmark {
                name: unescape(s.interner.get(entry.subtype)),
                entry: target,
                time: entry.timestamp(),
                origin: BookmarkOrigin::Label(by),
            }
        }));
    }
}

/// The bookmarks of `file`'s side-car `name`.
fn from_side_car(
    s: &Session,
    file: FileId,
    name: &str,
    bytes: &[u8],
    out: &mut Vec<Bookmark>,
    problems: &mut Vec<Diagnostic>,
) {
    let problem = |what: String| Diagnostic {
        severity: Severity::Warning,
        kind: DiagnosticKind::BadBookmark,
        file,
        line: 0,
        offset: 0,
        message: format!("{name}: {what}"),
    };
    let car: SideCar<Value> = match serde_json::from_slice(bytes) {
        Ok(car) => car,
        Err(e) => {
            problems.push(problem(format!(
                "not a snapshot side-car ({e}); none of its bookmarks is read"
            )));
            return;
        }
    };
    for (i, value) in car.snapshots.into_iter().enumerate() {
        let which = match value.get("name").and_then(Value::as_str) {
            Some(n) => format!("bookmark \"{n}\""),
            None => format!("bookmark {}", i + 1),
        };
        if !value.is_object() {
            problems.push(problem(format!("{which}: not a JSON object")));
            continue;
        }
        let bookmark = match SideCarBookmark::deserialize(value) {
            Ok(b) if b.name.trim().is_empty() => {
                problems.push(problem(format!("{which}: its name is empty")));
                continue;
            }
            Ok(b) => b,
            Err(e) => {
                problems.push(problem(format!("{which}: {e}")));
                continue;
            }
        };
        let entry = match place(s, file, &bookmark) {
            Ok(e) => e,
            Err(why) => {
                problems.push(problem(format!("{which}: {why}")));
                continue;
            }
        };
        let time = bookmark.time.as_deref().and_then(|t| {
            let ms = parse_rfc3339_ms(t.as_bytes());
            if ms.is_none() {
                problems.push(problem(format!(
                    "{which}: time \"{t}\" is not an RFC 3339 time (the bookmark is kept)"
                )));
            }
            ms
        });
        out.push(Bookmark {
            name: bookmark.name,
            entry,
            time,
            origin: BookmarkOrigin::SideCar(name.to_owned()),
        });
    }
}

/// The entry of `file` a side-car bookmark names: by id (with `line` to
/// pick one of several), else by `L<line>`.
fn place(s: &Session, file: FileId, b: &SideCarBookmark) -> Result<EntryId, String> {
    let info = &s.files[file.0 as usize];
    let own = || (info.first_entry..info.end_entry).map(EntryId);
    let sym = s.interner.lookup(b.target.as_bytes());
    let mut with_id: Vec<EntryId> = match sym.is_none() {
        true => Vec::new(),
        false => own().filter(|&e| s.entry(e).id == sym).collect(),
    };
    // Earlier versions of a rewritten message share its id; the current
    // one is the entry the id names (as `Session::find` reads it).
    if with_id
        .iter()
        .any(|&e| !s.entry(e).flags.has(Flags::REWRITTEN))
    {
        with_id.retain(|&e| !s.entry(e).flags.has(Flags::REWRITTEN));
    }
    match (with_id.as_slice(), b.line) {
        ([one], _) => return Ok(*one),
        ([], _) => {}
        (several, Some(line)) => {
            return several
                .iter()
                .copied()
                .find(|&e| s.entry(e).line == line)
                .ok_or_else(|| {
                    format!(
                        "{} is the id of lines {}, not of line {line}",
                        b.target,
                        lines(s, several)
                    )
                })
        }
        (several, None) => {
            return Err(format!(
                "{} is the id of lines {}; its `line` would say which",
                b.target,
                lines(s, several)
            ))
        }
    }
    let at_line = b
        .target
        .strip_prefix('L')
        .and_then(|n| n.parse::<u32>().ok());
    match at_line {
        Some(line) => own()
            .find(|&e| s.entry(e).line == line)
            .ok_or_else(|| format!("{} has no entry on line {line}", info.name)),
        None => Err(format!(
            "it names {}, which is no entry of {}",
            b.target, info.name
        )),
    }
}

fn lines(s: &Session, entries: &[EntryId]) -> String {
    let lines: Vec<String> = entries
        .iter()
        .map(|&e| s.entry(e).line.to_string())
        .collect();
    lines.join(", ")
}

/// A JSON string's text from its bytes as written (between the quotes).
fn unescape(raw: &[u8]) -> String {
    if raw.contains(&b'\\') {
        if let Ok(text) = serde_json::from_slice(&[b"\"", raw, b"\""].concat()) {
            return text;
        }
    }
    String::from_utf8_lossy(raw).into_owned()
}
