//! Bookmarks end to end: `snapshot` takes one (a pi label entry, else a
//! side-car), then `tree`, `show` and `snapshot --list` show it; a side-car
//! that is wrong is named on stderr and by `validate`.

use crate::common::*;

const TIME: &str = "2026-01-02T03:04:05Z";
const CLAUDE: &str = "claude-code/iansherr__claude-code-log/test/test_data/dag_fork.jsonl";

/// A corpus file copied into the scratch folder `test` as `name` (gzipped
/// when the name ends in `.gz`).
fn copy(test: &str, rel: &str, name: &str) -> String {
    Scratch::new(test).copy(&corpus(rel), name)
}

#[test]
fn a_pi_snapshot_is_marked_in_tree_show_and_the_list() {
    let file = copy("bookmarks_pi", PI_V3, "s.jsonl");
    for (name, at, id) in [("start", "e1", "a1b2c3d4"), ("answer", "e6", "a1b2c3d5")] {
        let o = retrace(&[
            "snapshot", &file, name, "--at", at, "--id", id, "--time", TIME,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    retrace_snapshot!(cmd(&["tree", &file]), @r#"
    exit_code: 0
    ----- stdout -----
    pi v3 · 11 entries · 2 leaves · 1 real branch points
    ● e1 … e2  2 entries, lines 2–3 · ⚑ "start" (line 2)  "sanitized" ⑂ 2 branches
    ├─ ● e3 … e6  4 entries, lines 4–7 [2 assistant, 1 compaction, 1 toolResult] · 1 compaction · ⚑ "answer" (line 7)  assistant: "sanitized" ◀ leaf
    └─ ● e7 … a1b2c3d5  4 entries, lines 8–11 [1 assistant, 1 future_entry, 2 label] ◀ leaf (default)
    ----- stderr -----
    "#);
    retrace_snapshot!(cmd(&["show", &file]), @"
    exit_code: 0
    ----- stdout -----
    ── user · 2026-01-01 00:00:01 · line 2 · ⚑ start ──
    sanitized

    ── assistant · alpha · 2026-01-01 00:00:07 · line 8 ──
    ▶ bash  (call-2)
       ← no result on this branch
       tokens: in 20 out 10 cache read 0 cache write 0

    ----- stderr -----
    ");
    // The other branch, through the compaction, to the marked answer.
    retrace_snapshot!(cmd(&["show", &file, "--leaf", "e6"]), @"
    exit_code: 0
    ----- stdout -----
    ── compaction summary · 2026-01-01 00:00:05 · line 6 ──
    sanitized

    ── assistant · alpha · 2026-01-01 00:00:03 · line 4 ──
    ▶ read  (call-1)
       │ redacted fixture
       tokens: in 10 out 5 cache read 0 cache write 0

    ── assistant · alpha · 2026-01-01 00:00:06 · line 7 · ⚑ answer ──
    sanitized
       tokens: in 12 out 8 cache read 0 cache write 0

    ----- stderr -----
    ");
    retrace_snapshot!(cmd(&["snapshot", &file, "--list"]), @r#"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/bookmarks_pi/s.jsonl: 2 bookmarks
      "start" on e1, line 2 · label entry a1b2c3d4 (line 10) · 2026-01-02 03:04:05
      "answer" on e6, line 7 · label entry a1b2c3d5 (line 11) · 2026-01-02 03:04:05
    ----- stderr -----
    "#);
    retrace_snapshot!(cmd(&["snapshot", &file, "--list", "--json"]).pretty(), @r#"
    exit_code: 0
    ----- stdout -----
    {
      "bookmarks": [
        {
          "at": "e1",
          "file": "[SCRATCH]/bookmarks_pi/s.jsonl",
          "label": "a1b2c3d4",
          "line": 2,
          "name": "start",
          "source": "label",
          "time": "2026-01-02T03:04:05.000Z"
        },
        {
          "at": "e6",
          "file": "[SCRATCH]/bookmarks_pi/s.jsonl",
          "label": "a1b2c3d5",
          "line": 7,
          "name": "answer",
          "source": "label",
          "time": "2026-01-02T03:04:05.000Z"
        }
      ],
      "path": "[SCRATCH]/bookmarks_pi/s.jsonl"
    }
    ----- stderr -----
    "#);
    // In JSON, the segment and the node say it.
    let o = retrace(&["tree", &file, "--json"]);
    let tree: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let segments: Vec<&serde_json::Value> = tree["segments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s.get("bookmarks").is_some())
        .collect();
    assert_eq!(segments.len(), 2);
    assert_eq!(
        segments[0]["bookmarks"],
        serde_json::json!([{"name": "start", "at": "e1"}])
    );
    let node = tree["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "e6")
        .unwrap();
    assert_eq!(node["bookmarks"], serde_json::json!(["answer"]));
    // `show --json` carries the names with the message.
    let o = retrace(&["show", &file, "--json"]);
    let marked: Vec<serde_json::Value> = json_lines(&o)
        .into_iter()
        .filter(|m| m.get("bookmarks").is_some())
        .collect();
    assert_eq!(marked.len(), 1);
    assert_eq!(marked[0]["entries"], serde_json::json!(["e1"]));
    assert_eq!(marked[0]["bookmarks"], serde_json::json!(["start"]));
}

#[test]
fn a_gzipped_session_takes_its_plain_names_side_car() {
    // Claude Code: a side-car, named for the decompressed file.
    let file = copy("bookmarks_gz", CLAUDE, "c.jsonl.gz");
    retrace_snapshot!(cmd(&["snapshot", &file, "asked", "--at", "c", "--time", TIME]), @r#"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/bookmarks_gz/c.jsonl.gz: snapshot "asked": side-car written: [SCRATCH]/bookmarks_gz/c.jsonl.snapshots.json
      snapshot: "asked" on c in the side-car
    ----- stderr -----
    "#);
    let plain = file.strip_suffix(".gz").unwrap();
    assert!(std::path::Path::new(&format!("{plain}.snapshots.json")).is_file());
    retrace_snapshot!(cmd(&["tree", &file]), @r#"
    exit_code: 0
    ----- stdout -----
    claude-code · 11 entries · 2 leaves · 1 real branch points
    ● a … c  3 entries, lines 1–3 [1 assistant, 2 user] · ⚑ "asked" (line 3)  "Start" ⑂ 2 branches
    ├─ ● d … h  5 entries, lines 4–8 [2 assistant, 3 user]  "Last in s1" ◀ leaf
    └─ ● i … k  3 entries, lines 9–11 [1 assistant, 2 user]  "Fork from c" ◀ leaf (default)
    ----- stderr -----
    "#);
    // The same side-car goes with the file unzipped.
    std::fs::copy(corpus(CLAUDE), plain).unwrap();
    std::fs::remove_file(&file).unwrap();
    let o = retrace(&["snapshot", plain, "--list"]);
    assert!(
        stdout(&o).contains("\"asked\" on c, line 3 · side-car"),
        "{}",
        stdout(&o)
    );

    // pi: the label entry goes into the gzip file as a member of its own.
    let pi = copy("bookmarks_gz_pi", PI_V3, "p.jsonl.gz");
    let o = retrace(&[
        "snapshot", &pi, "start", "--at", "e1", "--id", "a1b2c3d4", "--time", TIME,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    retrace_snapshot!(cmd(&["snapshot", &pi, "--list"]), @r#"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/bookmarks_gz_pi/p.jsonl.gz: 1 bookmark
      "start" on e1, line 2 · label entry a1b2c3d4 (line 10) · 2026-01-02 03:04:05
    ----- stderr -----
    "#);
    let o = retrace(&["validate", &pi]);
    assert!(!stdout(&o).contains("gzip-"), "{}", stdout(&o));
    // With `-o`, the session as read (not its compressed bytes), then the
    // label entry.
    let out = format!("{pi}.out.jsonl");
    let o = retrace(&[
        "snapshot", &pi, "more", "--at", "e3", "--id", "a1b2c3d5", "--time", TIME, "-o", &out,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&out).unwrap();
    let original = std::fs::read_to_string(corpus(PI_V3)).unwrap();
    let added: Vec<&str> = text.strip_prefix(&original).unwrap().lines().collect();
    assert_eq!(added.len(), 2);
    assert!(added[0].contains("\"label\":\"start\""), "{}", added[0]);
    assert!(added[1].contains("\"label\":\"more\""), "{}", added[1]);
}

#[test]
fn a_bad_side_car_is_named_and_the_rest_still_marks() {
    let file = copy("bookmarks_bad", CODEX, "rollout.jsonl");
    std::fs::write(
        format!("{file}.snapshots.json"),
        r#"{"snapshots": [
            {"name": "setup", "target": "L5", "line": 5},
            {"name": "gone", "target": "L9999"},
            {"target": "L3"}
        ]}"#,
    )
    .unwrap();
    retrace_snapshot!(cmd(&["snapshot", &file, "--list"]), @r#"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/bookmarks_bad/rollout.jsonl: 1 bookmark
      "setup" on L5, line 5 · side-car [SCRATCH]/bookmarks_bad/rollout.jsonl.snapshots.json
    ----- stderr -----
    retrace: [SCRATCH]/bookmarks_bad/rollout.jsonl.snapshots.json: bookmark "gone": [SCRATCH]/bookmarks_bad/rollout.jsonl has no entry on line 9999
    retrace: [SCRATCH]/bookmarks_bad/rollout.jsonl.snapshots.json: bookmark 3: missing field `name`
    "#);
    let o = retrace(&["tree", &file]);
    assert!(
        stdout(&o).contains("⚑ \"setup\" (line 5)"),
        "{}",
        stdout(&o)
    );
    assert_eq!(stderr(&o).lines().count(), 2, "{}", stderr(&o));
    let o = retrace(&["validate", &file]);
    assert_eq!(
        stdout(&o)
            .lines()
            .filter(|l| l.contains(": warning: bad-bookmark: "))
            .count(),
        2,
        "{}",
        stdout(&o)
    );
    // Not JSON at all: said once, nothing marked.
    std::fs::write(format!("{file}.snapshots.json"), "{\"snapshots\": [").unwrap();
    retrace_snapshot!(cmd(&["snapshot", &file, "--list"]), @"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/bookmarks_bad/rollout.jsonl: 0 bookmarks
    ----- stderr -----
    retrace: [SCRATCH]/bookmarks_bad/rollout.jsonl.snapshots.json: not a snapshot side-car (EOF while parsing a list at line 1 column 15); none of its bookmarks is read
    ");
    // Taking a snapshot refuses to write over a side-car it cannot read.
    let o = retrace(&["snapshot", &file, "x", "--at", "L5"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the snapshot side-car is not readable"),
        "{}",
        stderr(&o)
    );
}
