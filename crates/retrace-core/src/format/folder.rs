//! Which files of a folder make up a session, and in what order: the rule
//! for a directory the CLI is given and for files dropped on the viewer
//! together. Pure: the caller lists the names, this picks and orders them.
//!
//! - Session files are `*.jsonl` and `*.json` documents (Gemini CLI's
//!   legacy sessions, provider lists), gzipped or not; a `*.meta.json` is a
//!   side-car (a Claude Code subagent's description), attached to the file
//!   of the same stem (`agent-x.jsonl`, `agent-x.jsonl.gz` and
//!   `agent-x.json` all take `agent-x.meta.json`; see [`side_car`]), not
//!   read as a session (unless someone chose it without its session).
//!   So is a `*.snapshots.json`, a session file's bookmarks (see
//!   [`snapshot_side_car`]), attached to the file it names.
//! - Main sessions come first, then subagent files: 2.0-style
//!   `agent-*.jsonl` beside the sessions, then each session's
//!   `<session>/subagents/*.jsonl`, session by session. The core links them
//!   whatever the order; the order decides which file is the conversation
//!   (the first) and how files are numbered.
//! - Within each group, by name, except that the parts of a split set go
//!   in numeric order: `events.jsonl`, `events_1.jsonl`, …,
//!   `events_10.jsonl` (a part without a number before `_0`), and a name's
//!   forms by extension (`x.json` before `x.jsonl`: a Gemini CLI session
//!   migrated from its legacy document).
//! - A session store's session folder (`retrace-store`: `meta.json` beside
//!   an event stream's parts `events.jsonl`, `events_N.jsonl`, or beside
//!   `config_snapshot.json` before the first event) is that stream: the store's own files beside it (`meta.json`,
//!   `config_snapshot.json`, state as `*.json` values and `*.jsonl` lists)
//!   are not read, in a folder or among chosen files.

use std::cmp::Ordering;

use crate::model::event::split_stem;
use crate::model::sort::{sort, sort_by};

/// What the names are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// A directory's listing: its files and, under it,
    /// `<session>/subagents/*` (see [`subagent_dir`]); only session files
    /// are taken, by name.
    Folder,
    /// Files someone chose (dropped on the viewer, named on a command line):
    /// all of them are sessions, whatever their names, except the
    /// side-cars of sessions among them.
    Chosen,
}

/// One file of the session, as indices into the names given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionFile {
    /// The session file.
    pub file: usize,
    /// Its side-car `.meta.json`, when one was given.
    pub meta: Option<usize>,
    /// Its snapshot side-car (see [`snapshot_side_car`]), when one was
    /// given.
    pub snapshots: Option<usize>,
}

/// The session files among `names` (relative paths, `/` between folders),
/// in the order to read them, each with its side-car (see the module doc).
/// In a [`Listing::Folder`], names in other folders than the top one and
/// the sessions' `subagents` folders are not taken.
pub fn order_files<S: AsRef<str>>(names: &[S], listing: Listing) -> Vec<SessionFile> {
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    let folder = listing == Listing::Folder;
    let by_name = |a: &usize, b: &usize| order(names[*a], names[*b]);
    // Names in order, to find a side-car by name.
    let mut index: Vec<(&str, usize)> = names.iter().copied().zip(0..).collect();
    sort(&mut index);
    let given = |car: String| {
        let at = index
            .binary_search_by(|(n, _)| (*n).cmp(car.as_str()))
            .ok()?;
        Some(index[at].1)
    };
    let side_car_of = |name: &str| given(side_car(name)?);
    let snapshots_of = |name: &str| {
        (!is_side_car(name))
            .then(|| given(snapshot_side_car(name)))
            .flatten()
    };
    // The side-cars of the sessions given.
    let mut attached = vec![false; names.len()];
    for name in &names {
        for i in [side_car_of(name), snapshots_of(name)]
            .into_iter()
            .flatten()
        {
            attached[i] = true;
        }
    }
    let is_car = |i: usize| is_side_car(names[i]) && (folder || attached[i]);
    let store_own = store_files(&names);
    // A folder's own files are at its top; chosen files may be anywhere.
    let taken = |i: &usize| {
        let name = names[*i];
        !is_car(*i)
            && !store_own[*i]
            && (!folder || (is_session_file(name) && dir(name).is_empty()))
    };
    let (mut sessions, mut agents): (Vec<usize>, Vec<usize>) = (0..names.len())
        .filter(|i| !in_subagents(names[*i]))
        .filter(taken)
        .partition(|&i| !is_agent(names[i]));
    sort_by(&mut sessions, by_name);
    sort_by(&mut agents, by_name);
    let mut out = sessions.clone();
    out.extend(agents);
    // Each session's subagent folder, session by session.
    let mut subagents: Vec<usize> = (0..names.len())
        .filter(|&i| in_subagents(names[i]) && !is_car(i))
        .filter(|&i| !folder || is_lines_file(names[i]))
        .collect();
    sort_by(&mut subagents, by_name);
    for &s in &sessions {
        let Some(own) = subagent_dir(names[s]) else {
            continue;
        };
        out.extend(subagents.iter().copied().filter(|&i| dir(names[i]) == own));
        subagents.retain(|&i| dir(names[i]) != own);
    }
    if !folder {
        // Subagent files of a session that was not chosen.
        out.extend(subagents);
    }
    out.into_iter()
        .map(|file| SessionFile {
            file,
            meta: side_car_of(names[file]),
            snapshots: snapshots_of(names[file]),
        })
        .collect()
}

/// The name of a session file's snapshot side-car, where the bookmarks of
/// formats without a place of their own are kept: `{file}.snapshots.json`
/// beside it, of the name without `.gz` (`x.jsonl` and `x.jsonl.gz` both
/// take `x.jsonl.snapshots.json`). A bookmark names an entry by its id or
/// its line in the decompressed file, which compressing the session does
/// not change, so the side-car stays valid when the file is gzipped or
/// unzipped.
pub fn snapshot_side_car(file: &str) -> String {
    let plain = file.strip_suffix(".gz").unwrap_or(file);
    format!("{plain}.snapshots.json")
}

/// The folder holding a session's subagent files (`<session>/subagents`,
/// beside the session file), for a caller to list; `None` for a name that
/// is no session file.
pub fn subagent_dir(session: &str) -> Option<String> {
    let stem = stem(session)?;
    Some(format!("{stem}/subagents"))
}

/// The name of the side-car a session file takes: `<stem>.meta.json` in
/// its folder (`agent-x.jsonl`, `agent-x.jsonl.gz`, `agent-x.json` all take
/// `agent-x.meta.json`). `None` for a side-car itself.
pub fn side_car(file: &str) -> Option<String> {
    if is_side_car(file) {
        return None;
    }
    Some(format!("{}.meta.json", stem(file).unwrap_or(file)))
}

/// Which of `names` are a session store's own files: in a folder that
/// holds `meta.json` beside an event stream part or `config_snapshot.json`
/// (a session with no event yet), every file but the stream's parts (the
/// session's meta, configuration snapshot and state, and side-cars such as
/// `events_2.jsonl.torn`, which are no session files anyway).
fn store_files(names: &[&str]) -> Vec<bool> {
    let stores = store_dirs(names);
    names
        .iter()
        .map(|n| stores.contains(&dir(n)) && !is_events_part(n))
        .collect()
}

/// The folders among `names` that are a session store's session (see
/// [`store_files`]).
pub(super) fn store_dirs<'a>(names: &[&'a str]) -> Vec<&'a str> {
    names
        .iter()
        .filter(|n| base(n) == "meta.json")
        .map(|n| dir(n))
        .filter(|d| {
            names
                .iter()
                .any(|n| dir(n) == *d && (is_events_part(n) || base(n) == "config_snapshot.json"))
        })
        .collect()
}

/// A part of an event stream as the store writes it: `events.jsonl`,
/// `events_N.jsonl`, gzipped or not.
fn is_events_part(name: &str) -> bool {
    let plain = base(name).strip_suffix(".gz").unwrap_or(base(name));
    match plain.strip_suffix(".jsonl") {
        Some("events") => true,
        Some(stem) => stem
            .strip_prefix("events_")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        None => false,
    }
}

/// `<session>/subagents/<file>`.
pub(super) fn in_subagents(name: &str) -> bool {
    let dir = dir(name);
    dir == "subagents" || dir.ends_with("/subagents")
}

/// The name without its folder.
pub(super) fn base(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

/// The folder part of a name (empty at the top).
pub(super) fn dir(name: &str) -> &str {
    name.rsplit_once('/').map_or("", |(d, _)| d)
}

fn is_agent(name: &str) -> bool {
    base(name).starts_with("agent-")
}

pub(super) fn is_side_car(name: &str) -> bool {
    name.ends_with(".meta.json") || name.ends_with(".snapshots.json")
}

/// `*.jsonl`, gzipped or not.
pub(super) fn is_lines_file(name: &str) -> bool {
    let plain = name.strip_suffix(".gz").unwrap_or(name);
    plain.ends_with(".jsonl")
}

/// `*.jsonl` or `*.json`, gzipped or not, not a side-car.
pub(super) fn is_session_file(name: &str) -> bool {
    let plain = name.strip_suffix(".gz").unwrap_or(name);
    (plain.ends_with(".jsonl") || plain.ends_with(".json")) && !is_side_car(plain)
}

/// A session file's name without `.gz` and `.jsonl` or `.json`, folder
/// kept.
fn stem(name: &str) -> Option<&str> {
    let plain = name.strip_suffix(".gz").unwrap_or(name);
    plain
        .strip_suffix(".jsonl")
        .or_else(|| plain.strip_suffix(".json"))
        .filter(|s| !s.is_empty() && !s.ends_with('/'))
}

/// Orders two names of one group: by the base before its first `.` with a
/// split part's `_N` taken off, then by part (none before `_0`), then by the
/// whole name.
fn order(a: &str, b: &str) -> Ordering {
    key(a).cmp(&key(b)).then_with(|| a.cmp(b))
}

/// (`events`, 11) for `events_10.jsonl`, (`events`, 0) for `events.jsonl`:
/// the core's split-part rule ([`split_stem`]) with no number before `_0`.
pub(super) fn key(name: &str) -> (&str, u64) {
    let base = base(name);
    let first = base.split('.').next().unwrap_or(base);
    let (prefix, n) = split_stem(first);
    (prefix, n.map_or(0, |n| n.saturating_add(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ordered(names: &[&str], listing: Listing) -> Vec<(String, Option<String>)> {
        order_files(names, listing)
            .into_iter()
            .map(|f| {
                (
                    names[f.file].to_owned(),
                    f.meta.map(|m| names[m].to_owned()),
                )
            })
            .collect()
    }

    fn files(names: &[&str], listing: Listing) -> Vec<String> {
        ordered(names, listing)
            .into_iter()
            .map(|(f, _)| f)
            .collect()
    }

    #[test]
    fn split_sets_go_in_numeric_order() {
        let mut names: Vec<String> = (1..=12).map(|i| format!("events_{i}.jsonl")).collect();
        names.push("events.jsonl".into());
        names.reverse();
        let got = files(
            &names.iter().map(String::as_str).collect::<Vec<_>>(),
            Listing::Folder,
        );
        let mut want = vec!["events.jsonl".to_owned()];
        want.extend((1..=12).map(|i| format!("events_{i}.jsonl")));
        assert_eq!(got, want);
        // A part without a number comes before `_0`, and gzip parts sort
        // with the others.
        assert_eq!(
            files(&["e_1.jsonl.gz", "e_0.jsonl", "e.jsonl"], Listing::Folder),
            ["e.jsonl", "e_0.jsonl", "e_1.jsonl.gz"]
        );
    }

    #[test]
    fn a_folder_takes_session_files_only() {
        let names = [
            "notes.txt",
            "b.json.gz",
            "a.jsonl.gz",
            "c.json",
            "c.meta.json",
            "d.jsonl",
            "README.md",
            "other/x.jsonl",
        ];
        assert_eq!(
            ordered(&names, Listing::Folder),
            [
                ("a.jsonl.gz".to_owned(), None),
                ("b.json.gz".to_owned(), None),
                ("c.json".to_owned(), Some("c.meta.json".to_owned())),
                ("d.jsonl".to_owned(), None),
            ]
        );
        // Chosen files are all read, except the side-car of one of them.
        let chosen = ordered(&["notes.txt", "d.meta.json", "d.jsonl"], Listing::Chosen);
        assert_eq!(
            chosen,
            [
                ("d.jsonl".to_owned(), Some("d.meta.json".to_owned())),
                ("notes.txt".to_owned(), None)
            ]
        );
        // A side-car chosen alone is read (as the JSON it is).
        assert_eq!(files(&["c.meta.json"], Listing::Chosen), ["c.meta.json"]);
        assert_eq!(files(&["c.meta.json"], Listing::Folder), [] as [&str; 0]);
    }

    #[test]
    fn a_store_session_folder_is_its_event_stream() {
        let names = [
            "state.json",
            "meta.json",
            "events_1.jsonl",
            "config_snapshot.json",
            "memory_messages.jsonl",
            "events.jsonl",
            "events_2.jsonl.gz",
            "events_3.jsonl.torn",
            ".lock",
        ];
        let want = ["events.jsonl", "events_1.jsonl", "events_2.jsonl.gz"];
        assert_eq!(files(&names, Listing::Folder), want);
        // The same files dropped on the viewer.
        assert_eq!(files(&names, Listing::Chosen), want);
        // Without the store's meta.json, a folder is read as before.
        assert_eq!(
            files(&["events.jsonl", "memory_messages.jsonl"], Listing::Folder),
            ["events.jsonl", "memory_messages.jsonl"]
        );
        // A meta.json with no event stream beside it is no store session.
        assert_eq!(
            files(&["meta.json", "a.jsonl"], Listing::Folder),
            ["a.jsonl", "meta.json"]
        );
        // A store session with no event yet has no session file.
        let new = ["meta.json", "config_snapshot.json", "state.json"];
        assert_eq!(files(&new, Listing::Folder), [] as [&str; 0]);
    }

    #[test]
    fn sessions_then_agents_then_each_sessions_subagents() {
        let names = [
            "s2/subagents/agent-b.jsonl",
            "s2/subagents/agent-b.meta.json",
            "agent-old.jsonl",
            "s1/subagents/agent-z.jsonl",
            "s1/subagents/agent-a.jsonl",
            "s1/subagents/agent-a.meta.json",
            "s2.jsonl",
            "s1.jsonl",
            "gone/subagents/agent-c.jsonl",
            "s1/subagents/notes.json",
        ];
        assert_eq!(
            ordered(&names, Listing::Folder),
            [
                ("s1.jsonl".to_owned(), None),
                ("s2.jsonl".to_owned(), None),
                ("agent-old.jsonl".to_owned(), None),
                (
                    "s1/subagents/agent-a.jsonl".to_owned(),
                    Some("s1/subagents/agent-a.meta.json".to_owned())
                ),
                ("s1/subagents/agent-z.jsonl".to_owned(), None),
                (
                    "s2/subagents/agent-b.jsonl".to_owned(),
                    Some("s2/subagents/agent-b.meta.json".to_owned())
                ),
            ]
        );
    }

    #[test]
    fn side_cars_pair_by_stem_whatever_the_extension() {
        let names = [
            "agent-x.jsonl.gz",
            "agent-x.meta.json",
            "agent-y.jsonl",
            "agent-y.meta.json",
            "lonely.meta.json",
        ];
        assert_eq!(
            ordered(&names, Listing::Folder),
            [
                (
                    "agent-x.jsonl.gz".to_owned(),
                    Some("agent-x.meta.json".to_owned())
                ),
                (
                    "agent-y.jsonl".to_owned(),
                    Some("agent-y.meta.json".to_owned())
                ),
            ]
        );
        assert_eq!(
            side_car("a/agent-z.json.gz").unwrap(),
            "a/agent-z.meta.json"
        );
        assert_eq!(side_car("notes.txt").unwrap(), "notes.txt.meta.json");
        assert_eq!(side_car("agent-z.meta.json"), None);
    }

    #[test]
    fn snapshot_side_cars_go_with_the_file_they_name() {
        let snapshots = |names: &[&str], listing| -> Vec<(String, Option<String>)> {
            order_files(names, listing)
                .into_iter()
                .map(|f| {
                    (
                        names[f.file].to_owned(),
                        f.snapshots.map(|m| names[m].to_owned()),
                    )
                })
                .collect()
        };
        let names = [
            "b.jsonl.snapshots.json",
            "a.jsonl.gz",
            "a.jsonl.snapshots.json",
            "b.jsonl",
            "c.jsonl",
            "gone.jsonl.snapshots.json",
        ];
        let want = [
            (
                "a.jsonl.gz".to_owned(),
                Some("a.jsonl.snapshots.json".to_owned()),
            ),
            (
                "b.jsonl".to_owned(),
                Some("b.jsonl.snapshots.json".to_owned()),
            ),
            ("c.jsonl".to_owned(), None),
        ];
        assert_eq!(snapshots(&names, Listing::Folder), want);
        // Chosen with their sessions, side-cars are attached, not read; one
        // chosen without its session is read (as the JSON it is).
        let mut chosen = want.to_vec();
        chosen.push(("gone.jsonl.snapshots.json".to_owned(), None));
        assert_eq!(snapshots(&names, Listing::Chosen), chosen);
        // Both forms of a name take the side-car of the plain name.
        assert_eq!(
            snapshot_side_car("d/x.jsonl.gz"),
            "d/x.jsonl.snapshots.json"
        );
        assert_eq!(snapshot_side_car("x.json"), "x.json.snapshots.json");
    }

    #[test]
    fn a_legacy_document_comes_before_its_migrated_lines() {
        let names = ["session-1.jsonl", "session-1.json", "session-0.json"];
        assert_eq!(
            files(&names, Listing::Chosen),
            ["session-0.json", "session-1.json", "session-1.jsonl"]
        );
    }

    #[test]
    fn chosen_files_keep_their_folders() {
        // A folder dropped whole: paths relative to it.
        let names = [
            "proj/s1/subagents/agent-a.jsonl",
            "proj/s1.jsonl",
            "proj/agent-old.jsonl",
        ];
        assert_eq!(
            files(&names, Listing::Chosen),
            [
                "proj/s1.jsonl",
                "proj/agent-old.jsonl",
                "proj/s1/subagents/agent-a.jsonl"
            ]
        );
        assert_eq!(subagent_dir("proj/s1.jsonl").unwrap(), "proj/s1/subagents");
        assert_eq!(subagent_dir("s1.jsonl.gz").unwrap(), "s1/subagents");
        assert_eq!(subagent_dir("notes.txt"), None);
    }

    #[test]
    fn every_name_is_taken_once() {
        let names = [
            "a.jsonl",
            "a/subagents/agent-1.jsonl",
            "agent-2.jsonl",
            "x/subagents/agent-3.jsonl",
            "b.txt",
        ];
        let got = order_files(&names, Listing::Chosen);
        let mut seen: Vec<usize> = got.iter().map(|f| f.file).collect();
        seen.sort_unstable();
        assert_eq!(seen, [0, 1, 2, 3, 4]);
    }
}
