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

use serde_json::Value;

use crate::model::bookmark::{Bookmark, BookmarkOrigin, SideCar, SideCarBookmark};
use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{EntryId, FileId, Flags};
use crate::model::format_id::Format;
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
    // By entry: labels come so, file by file.
    from_labels(s, &mut out, &mut problems);
    for (file, name, bytes) in side_cars {
        from_side_car(s, *file, name, bytes, &mut out, &mut problems);
    }
    (out, problems)
}

/// pi `label` entries, file by file (ids are a file's own). Plain
/// vectors indexed by symbol and by entry rather than maps or sorts: this
/// runs in the viewer's worker too, whose size is budgeted.
fn from_labels(s: &Session, out: &mut Vec<Bookmark>, problems: &mut Vec<Diagnostic>) {
    const NONE: u32 = u32::MAX;
    let label = s.interner.lookup(b"label");
    if label.is_none() {
        return;
    }
    for (f, info) in s.files.iter().enumerate() {
        if !matches!(s.file_formats[f], Format::Pi { .. }) {
            continue;
        }
        let own = info.first_entry..info.end_entry;
        // The file's first entry of each id (as parents resolve), by
        // symbol; built at the file's first label.
        let mut by_id: Vec<u32> = Vec::new();
        // Per entry of the file, the label entry naming it now (the last).
        let mut named: Vec<u32> = Vec::new();
        for e in own.clone() {
            let entry = &s.entries[e as usize];
            if entry.kind != label {
                continue;
            }
            if by_id.is_empty() {
                by_id = vec![NONE; s.interner.len()];
                for i in own.clone().rev() {
                    let id = s.entries[i as usize].id;
                    if !id.is_none() {
                        by_id[id.index()] = i;
                    }
                }
                named = vec![NONE; own.len()];
            }
            let target = match entry.reference.is_none() {
                true => None,
                false => Some(by_id[entry.reference.index()]).filter(|&t| t != NONE),
            };
            match target {
                Some(t) => named[(t - own.start) as usize] = e,
                None => problems.push(Diagnostic::at(
                    entry,
                    Severity::Warning,
                    DiagnosticKind::BadBookmark,
                    match entry.reference.is_none() {
                        true => "label entry without a targetId".to_owned(),
                        false => format!(
                            "label entry names \"{}\", which is not in this file",
                            s.interner.str(entry.reference)
                        ),
                    },
                )),
            }
        }
        for (t, &by) in (own.start..).zip(&named) {
            // An empty or absent `label` clears the target's name.
            let Some(entry) = s.entries.get(by as usize) else {
                continue;
            };
            let name = s.interner.get(entry.subtype);
            if !name.is_empty() {
                out.push(Bookmark {
                    name: unescape(name),
                    entry: EntryId(t),
                    time: entry.timestamp(),
                    origin: BookmarkOrigin::Label(EntryId(by)),
                });
            }
        }
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
    let car = match SideCar::parse(bytes) {
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
        let bookmark = match SideCarBookmark::from_value(value) {
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
        // In place by entry, after what is there (labels first); a few
        // inserts cost less code than a sort.
        let at = out.partition_point(|b| b.entry <= entry);
        out.insert(
            at,
            Bookmark {
                name: bookmark.name,
                entry,
                time,
                origin: BookmarkOrigin::SideCar(name.to_owned()),
            },
        );
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
        let quoted = [b"\"", raw, b"\""].concat();
        if let Ok(Value::String(text)) = serde_json::from_slice(&quoted) {
            return text;
        }
    }
    String::from_utf8_lossy(raw).into_owned()
}
