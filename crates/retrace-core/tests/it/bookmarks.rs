//! Bookmarks (`session/bookmarks.rs`): pi `label` entries appended to real
//! pi files, snapshot side-cars on real Claude Code and Codex files, and
//! side-cars that are wrong in every way a hand or a crash can make them.

use retrace_core::{
    snapshot, Bookmark, BookmarkOrigin, DiagnosticKind, EntryId, Marks, Reader, Session,
    SnapshotTarget, Stamp,
};

use crate::common::*;

/// 2026-01-02T03:04:05Z.
const TIME_MS: i64 = 1767323045000;

const BRANCHING: &str = "pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl";
const CLAUDE: &str = "claude-code/iansherr__claude-code-log/test/test_data/dag_fork.jsonl";
const CODEX: &str = "codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl";

/// A pi label entry as pi writes it; `label` is the field's JSON, or
/// `None` to leave it out.
fn label(id: &str, parent: &str, target: &str, label: Option<&str>) -> String {
    let label = label.map(|l| format!(",\"label\":{l}")).unwrap_or_default();
    format!(
        "{{\"type\":\"label\",\"id\":\"{id}\",\"parentId\":\"{parent}\",\"timestamp\":\"2026-01-02T00:00:0{}.000Z\",\"targetId\":\"{target}\"{label}}}\n",
        &id[1..]
    )
}

/// The session's bookmarks as (name, target id, label entry id or
/// side-car name).
fn names(s: &Session) -> Vec<(String, String, String)> {
    s.bookmarks()
        .iter()
        .map(|b| {
            let origin = match &b.origin {
                BookmarkOrigin::Label(e) => s.label(*e),
                BookmarkOrigin::SideCar(name) => name.clone(),
            };
            (b.name.clone(), s.label(b.entry), origin)
        })
        .collect()
}

fn bad_bookmarks(s: &Session) -> Vec<(u32, String)> {
    s.diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::BadBookmark)
        .map(|d| (d.line, d.message.clone()))
        .collect()
}

fn owned(v: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    v.iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

#[test]
fn pi_labels_the_last_wins_and_an_empty_one_clears() {
    let mut bytes = read(BRANCHING);
    for line in [
        label("b1", "e8", "e1", Some("\"first\"")),
        label("b2", "b1", "e3", Some("\"tool\"")),
        label("b3", "b2", "e1", Some("\"renamed\"")),
        // Empty: e3 has no name any more.
        label("b4", "b3", "e3", Some("\"\"")),
        label("b5", "b4", "e6", Some(r#""say \"hi\" \u00e9""#)),
        label("b6", "b5", "e7", Some("\"gone soon\"")),
        // Absent: clears too.
        label("b7", "b6", "e7", None),
        // Names an entry the file does not have.
        label("b8", "b7", "zz", Some("\"lost\"")),
    ] {
        bytes.extend_from_slice(line.as_bytes());
    }
    let s = Session::from_bytes("branching.jsonl", &bytes);
    let want = owned(&[("renamed", "e1", "b3"), ("say \"hi\" é", "e6", "b5")]);
    assert_eq!(names(&s), want);
    // Read in pieces of any size, the same.
    for chunk in [1, 7, 64] {
        let pieces = open_chunked("branching.jsonl", &bytes, chunk);
        assert_eq!(names(&pieces), want, "chunks of {chunk}");
    }
    // The time is the label entry's.
    let b: &Bookmark = &s.bookmarks()[0];
    assert_eq!(b.time, s.entry(find(&s, "b3")).timestamp());
    assert_eq!(s.bookmarks_on(find(&s, "e1")).len(), 1);
    assert!(s.bookmarks_on(find(&s, "e3")).is_empty());
    assert_eq!(
        bad_bookmarks(&s),
        [(
            17,
            "label entry names \"zz\", which is not in this file".to_owned()
        )]
    );
    // Rows and the outline carry the mark: e1 on the default branch (the
    // labels hang under e8), e6 on the other one.
    let leaf = s.tree().default_leaf().unwrap();
    let marked = |leaf: EntryId| -> Vec<String> {
        s.rows(leaf)
            .iter()
            .filter(|r| r.marks.has(Marks::BOOKMARK))
            .map(|r| s.label(r.entries[0]))
            .collect()
    };
    assert_eq!(marked(leaf), ["e1"]);
    assert_eq!(marked(find(&s, "e6")), ["e1", "e6"]);
    let on_runs: Vec<String> = s
        .outline()
        .iter()
        .flat_map(|seg| seg.bookmarks.iter().map(|&e| s.label(e)))
        .collect();
    assert_eq!(on_runs, ["e1", "e6"]);
}

#[test]
fn a_pi_snapshot_reads_back_as_a_bookmark() {
    // What `retrace snapshot` appends is what the reader shows, and a
    // second snapshot on the same entry renames it.
    let bytes = read("pi/kenn-io__agentsview/internal/parser/testdata/pi/session.jsonl");
    let mut file = bytes.clone();
    for (name, id) in [("before", "a1b2c3d4"), ("after", "a1b2c3d5")] {
        let s = Session::from_bytes("session.jsonl", &file);
        let mut src: &[u8] = &file;
        let mut new_id = || id.to_owned();
        let mut stamp = Stamp {
            time_ms: TIME_MS,
            new_id: &mut new_id,
        };
        let at = find(&s, "entry-6");
        let (target, done) = snapshot(&s, &mut src, at, name, &mut stamp, None).unwrap();
        assert_eq!(target, SnapshotTarget::Append);
        file.extend_from_slice(&done.bytes);
    }
    let s = Session::from_bytes("session.jsonl", &file);
    assert_eq!(names(&s), owned(&[("after", "entry-6", "a1b2c3d5")]));
    assert_eq!(s.bookmarks()[0].time, Some(TIME_MS));
    assert!(bad_bookmarks(&s).is_empty());
}

/// Reads `bytes` as `name` with a snapshot side-car attached, in file
/// `file` of the session (earlier files: `before`).
fn with_side_car(before: &[(&str, &[u8])], name: &str, bytes: &[u8], car: &[u8]) -> Session {
    let mut reader = Reader::new();
    for (n, b) in before {
        reader.begin_file(n);
        reader.push(b);
    }
    let file = reader.begin_file(name);
    reader.push(bytes);
    reader.attach_snapshots(file, &format!("{name}.snapshots.json"), car);
    reader.finish()
}

#[test]
fn side_cars_on_claude_code_and_codex_files() {
    let mut stamp = Stamp {
        time_ms: TIME_MS,
        new_id: &mut String::new,
    };
    // Claude Code: entries named by their uuid.
    let claude = read(CLAUDE);
    let s = Session::from_bytes("dag_fork.jsonl", &claude);
    let mut src: &[u8] = &claude;
    let (target, one) = snapshot(&s, &mut src, find(&s, "c"), "asked", &mut stamp, None).unwrap();
    assert_eq!(target, SnapshotTarget::SideCar);
    let (_, two) = snapshot(
        &s,
        &mut src,
        find(&s, "a"),
        "start",
        &mut stamp,
        Some(&one.bytes),
    )
    .unwrap();
    let read_back = with_side_car(&[], "dag_fork.jsonl", &claude, &two.bytes);
    assert_eq!(
        names(&read_back),
        owned(&[
            ("start", "a", "dag_fork.jsonl.snapshots.json"),
            ("asked", "c", "dag_fork.jsonl.snapshots.json"),
        ])
    );
    assert_eq!(read_back.bookmarks()[0].time, Some(TIME_MS));
    assert!(bad_bookmarks(&read_back).is_empty());

    // Codex: entries without ids, named by line; a side-car the hand wrote
    // with fields of its own, which a later snapshot keeps.
    let codex = read(CODEX);
    let s = Session::from_bytes("rollout.jsonl", &codex);
    let written = br#"{"snapshots":[{"name":"setup","target":"L5","note":"mine"}],"tool":"hand"}"#;
    let mut src: &[u8] = &codex;
    let at = s.entries().iter().position(|e| e.line == 10).unwrap();
    let (_, more) = snapshot(
        &s,
        &mut src,
        EntryId(at as u32),
        "first call",
        &mut stamp,
        Some(written),
    )
    .unwrap();
    let text = String::from_utf8(more.bytes.clone()).unwrap();
    assert!(
        text.contains("\"note\": \"mine\"") && text.contains("\"tool\": \"hand\""),
        "{text}"
    );
    let read_back = with_side_car(&[], "rollout.jsonl", &codex, &more.bytes);
    assert_eq!(
        names(&read_back),
        owned(&[
            ("setup", "L5", "rollout.jsonl.snapshots.json"),
            ("first call", "L10", "rollout.jsonl.snapshots.json"),
        ])
    );
    // A side-car's `L<line>` is of its own file, also when that file is
    // not the first of the session.
    let later = with_side_car(
        &[("dag_fork.jsonl", &claude)],
        "rollout.jsonl",
        &codex,
        &more.bytes,
    );
    let placed: Vec<(u16, u32)> = later
        .bookmarks()
        .iter()
        .map(|b| (later.entry(b.entry).file.0, later.entry(b.entry).line))
        .collect();
    assert_eq!(placed, [(1, 5), (1, 10)]);
}

#[test]
fn a_bad_side_car_says_which_file_which_bookmark_and_what() {
    let claude = read(CLAUDE);
    let open = |car: &[u8]| with_side_car(&[], "dag_fork.jsonl", &claude, car);
    // Not JSON, or not a side-car: nothing read, said once.
    for car in [&b"{\"snapshots\": [tor"[..], b"\xff\x00", b"[]", b"{}"] {
        let s = open(car);
        assert!(s.bookmarks().is_empty());
        let bad = bad_bookmarks(&s);
        assert_eq!(bad.len(), 1, "{bad:?}");
        assert_eq!(
            bad[0].0, 0,
            "a side-car's problem is on no line of the file"
        );
        assert!(
            bad[0]
                .1
                .starts_with("dag_fork.jsonl.snapshots.json: not a snapshot side-car ("),
            "{bad:?}"
        );
    }
    // Each bookmark on its own: the good ones still count.
    let car = br#"{"snapshots": [
        {"name": "ok", "target": "c", "line": 3, "time": "2026-01-02T03:04:05.000Z"},
        {"name": "no target"},
        {"target": "a"},
        {"name": " ", "target": "a"},
        {"name": "gone", "target": "zzz"},
        {"name": "past the end", "target": "L99"},
        {"name": "odd time", "target": "L1", "time": "yesterday"},
        7,
        {"name": 5, "target": "a"},
        {"name": "where", "target": "a", "line": -1}
    ]}"#;
    let s = open(car);
    assert_eq!(
        names(&s),
        owned(&[
            ("odd time", "a", "dag_fork.jsonl.snapshots.json"),
            ("ok", "c", "dag_fork.jsonl.snapshots.json"),
        ])
    );
    assert_eq!(s.bookmarks()[0].time, None);
    let messages: Vec<String> = bad_bookmarks(&s).into_iter().map(|(_, m)| m).collect();
    let prefix = "dag_fork.jsonl.snapshots.json: ";
    let want = [
        "bookmark \"no target\": missing field `target`",
        "bookmark 3: missing field `name`",
        "bookmark \" \": its name is empty",
        "bookmark \"gone\": it names zzz, which is no entry of dag_fork.jsonl",
        "bookmark \"past the end\": dag_fork.jsonl has no entry on line 99",
        "bookmark \"odd time\": time \"yesterday\" is not an RFC 3339 time (the bookmark is kept)",
        "bookmark 8: not a JSON object",
        "bookmark 9: `name` is not a string",
        "bookmark \"where\": `line` is not a line number",
    ];
    assert_eq!(
        messages,
        want.iter()
            .map(|w| format!("{prefix}{w}"))
            .collect::<Vec<_>>()
    );
}

#[test]
fn an_id_used_twice_is_placed_by_its_line() {
    // Two lines with one uuid: the side-car's `line` says which.
    let claude = read(CLAUDE);
    let text = String::from_utf8(claude.clone()).unwrap();
    let first = text.lines().next().unwrap();
    let twice = format!("{text}{first}\n");
    let lines = twice.lines().count() as u32;
    let car = format!(
        r#"{{"snapshots":[{{"name":"second","target":"a","line":{lines}}},{{"name":"which","target":"a"}},{{"name":"neither","target":"a","line":2}}]}}"#
    );
    let s = with_side_car(&[], "dag_fork.jsonl", twice.as_bytes(), car.as_bytes());
    let placed: Vec<(String, u32)> = s
        .bookmarks()
        .iter()
        .map(|b| (b.name.clone(), s.entry(b.entry).line))
        .collect();
    assert_eq!(placed, [("second".to_owned(), lines)]);
    let messages: Vec<String> = bad_bookmarks(&s).into_iter().map(|(_, m)| m).collect();
    assert_eq!(
        messages,
        [
            format!("dag_fork.jsonl.snapshots.json: bookmark \"which\": a is the id of lines 1, {lines}; its `line` would say which"),
            format!("dag_fork.jsonl.snapshots.json: bookmark \"neither\": a is the id of lines 1, {lines}, not of line 2"),
        ]
    );
}
