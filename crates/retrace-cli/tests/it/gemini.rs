//! Gemini CLI sessions: rewinds, migrated and split sessions, legacy
//! `.json` documents in folders.

use crate::common::*;

#[test]
fn a_gemini_rewind_that_ends_the_log_is_where_the_session_stands() {
    let path = fixture("gemini/rewind-at-end.jsonl");
    let file = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = file.split_inclusive('\n').collect();
    // Gemini CLI loads the metadata, the first prompt and its answer.
    let o = retrace(&["cat", &path]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o), lines[..3].concat());
    // "A workspace of three crates.", not "Bump every version.".
    retrace_snapshot!(cmd(&["show", &path]), @"
    exit_code: 0
    ----- stdout -----
    ── user · 2026-02-05 14:00:02 · line 2 ──
    What is in Cargo.toml?

    ── assistant · gemini-2.5-flash · 2026-02-05 14:00:05 · line 3 ──
    A workspace of three crates.
       tokens: in 3120 out 9 cache read 0 cache write 0

    ----- stderr -----
    ");
    // The turn rewound away hangs off the current leaf.
    retrace_snapshot!(cmd(&["tree", &path]), @r#"
    exit_code: 0
    ----- stdout -----
    gemini-cli · 7 entries · 2 leaves · 1 real branch points
    ● 6e1a3c5b-7d9f-4b1d-8f3a-5c7e9b1d3f5a … 7f2b4d6c-8e0a-4c2e-9a4b-6d8f0c2e4a6b  2 entries, lines 2–3  "What is in Cargo.toml?" ◀ leaf (default) ⑂ 1 branch
    └─ ● 8a3c5e7d-9f1b-4d3f-8b5c-7e9a1d3f5b7c … 9b4d6f8e-0a2c-4e4a-9c6d-8f0b2e4a6c8d  2 entries, lines 4–5  "Bump every version." ◀ leaf
    ----- stderr -----
    "#);
    // The answer (line 3) has one child and is a real branch point.
    let o = retrace(&["tree", "--json", &path]);
    let tree = &json_lines(&o)[0];
    let answer = &tree["nodes"][1];
    assert_eq!(
        (&answer["line"], &answer["children"], &answer["branch"]),
        (&3.into(), &1.into(), &"real".into())
    );
}

#[test]
fn a_migrated_gemini_session_is_read_from_its_jsonl() {
    let dir = fixture("gemini/migrated");
    let jsonl =
        std::fs::read_to_string(format!("{dir}/session-2026-02-04T10-00-7e3d9c21.jsonl")).unwrap();
    let lines: Vec<&str> = jsonl.split_inclusive('\n').collect();
    // The resumed conversation ("Yes, nothing changed since."), not the
    // legacy file's three messages: "The tree is clean." once.
    retrace_snapshot!(cmd(&["show", &dir]), @"
    exit_code: 0
    ----- stdout -----
    ── user · 2026-02-04 10:00:05 · line 2 ──
    What does `git status` say?

    ── assistant · gemini-2.5-flash · 2026-02-04 10:00:09 · line 3 ──
    ▶ run_shell_command · $ git status  (run_shell_command-1770199209000-0a0b0c0d)
       │ On branch main
       │ nothing to commit
       tokens: in 4100 out 9 cache read 0 cache write 0

    ── assistant · gemini-2.5-flash · 2026-02-04 10:00:12 · line 4 ──
    The tree is clean.
       tokens: in 84 out 6 cache read 4096 cache write 0

    ── user · 2026-02-06 09:15:02 · line 6 ──
    Is it still clean?

    ── assistant · gemini-2.5-flash · 2026-02-06 09:15:06 · line 8 ──
    Yes, nothing changed since.
       tokens: in 324 out 7 cache read 4096 cache write 0

    ----- stderr -----
    ");
    // Its branch is the `.jsonl`'s lines: metadata and messages.
    let o = retrace(&["cat", &dir]);
    assert!(o.status.success(), "{o:?}");
    let want: String = [0, 1, 2, 3, 5, 7].iter().map(|&i| lines[i]).collect();
    assert_eq!(stdout(&o), want);
    // One conversation; the legacy copies are noted, not a branch.
    retrace_snapshot!(cmd(&["tree", &dir]), @r#"
    exit_code: 0
    ----- stdout -----
    gemini-cli · 12 entries · 1 leaves · 0 real branch points
    [[FIXTURES]/gemini/migrated/session-2026-02-04T10-00-7e3d9c21.jsonl]
    ● 11111111-aaaa-4bbb-8ccc-000000000001 … 3d5f7b9c-1e3a-4b5d-9f7b-1c3e5a7b9d1f  5 entries, lines 2–8 [3 assistant, 2 user]  "What does `git status` say?" ◀ leaf (default)
    ----- stderr -----
    "#);
    retrace_snapshot!(cmd(&["validate", &dir]), @"
    exit_code: 0
    ----- stdout -----
    [FIXTURES]/gemini/migrated/session-2026-02-04T10-00-7e3d9c21.json:7:249: note: copied-history: Gemini CLI migrated this session to [FIXTURES]/gemini/migrated/session-2026-02-04T10-00-7e3d9c21.jsonl, which repeats its 3 messages (lines 7–51 here) and goes on; they are shown there
    [FIXTURES]/gemini/migrated: 0 errors, 0 warnings, 1 notes; 1 tool calls, 0 without result, 0 results without call
    [FIXTURES]/gemini/migrated: resumable as is by every API
    ----- stderr -----
    ");
}

#[test]
fn a_gemini_branch_in_a_later_file_names_its_file() {
    // One header, the first file's: the branch rewound away is on its
    // lines 5–6, the one that goes on is on lines 3–4 of the second file.
    retrace_snapshot!(cmd(&["tree", &fixture("gemini/rewind-split")]), @r#"
    exit_code: 0
    ----- stdout -----
    gemini-cli · 11 entries · 2 leaves · 1 real branch points
    [[FIXTURES]/gemini/rewind-split/session-2026-02-07T16-00-4d6f8a0c.jsonl]
    ● 5a7c9e1b-3d5f-4a7c-9e1b-3d5f7a9c1e3b … 6b8d0f2c-4e6a-4b8d-8f2c-4e6a8b0d2f4c  2 entries, lines 2–4  "Which test fails?" ⑂ 2 branches
    ├─ ● 7c9e1a3d-5f7b-4c9e-9a3d-5f7b9c1e3a5d … 8d0f2b4e-6a8c-4d0f-8b4e-6a8c0d2f4b6e  2 entries, lines 5–6  "Delete that test." ◀ leaf
    └─ ● 9e1a3c5f-7b9d-4e1a-9c5f-7b9d1e3a5c7f … 0f2b4d6a-8c0e-4f2b-8d6a-8c0e2f4b6d8a  2 entries, lines 3–4 of [FIXTURES]/gemini/rewind-split/session-2026-02-07T16-40-4d6f8a0c.jsonl  "Fix the parser instead." ◀ leaf (default)
    ----- stderr -----
    "#);
}

#[test]
fn a_gemini_rewind_to_the_first_prompt_is_a_real_branch() {
    let path = fixture("gemini/rewind-to-start.jsonl");
    // Two branches from the metadata line, the later one the default.
    retrace_snapshot!(cmd(&["tree", &path]), @r#"
    exit_code: 0
    ----- stdout -----
    gemini-cli · 9 entries · 2 leaves · 1 real branch points
    ● L1 (line 1) ⑂ 2 branches
    ├─ ● 1a3c5e7a-9b1d-4f3a-8c5e-7a9b1d3f5a7c … 4d6f8b0d-2e4a-4c6d-9f8b-0d2e4a6c8d0f  4 entries, lines 2–5 [2 assistant, 2 user]  "Write a haiku about rust." ◀ leaf
    └─ ● 5e7a9c1e-3f5b-4d7e-8a9c-1e3f5b7d9e1a … 6f8b0d2f-4a6c-4e8f-9b0d-2f4a6c8e0f2b  2 entries, lines 7–8  "Write a haiku about the Rust language." ◀ leaf (default)
    ----- stderr -----
    "#);
    // The current branch as a session: the metadata, the new prompt and
    // its answer.
    let file = std::fs::read_to_string(&path).unwrap();
    let file: Vec<&str> = file.split_inclusive('\n').collect();
    let o = retrace(&["cat", &path]);
    assert_eq!(stdout(&o), [file[0], file[6], file[7]].concat());
}

#[test]
fn gemini_folders_and_documents() {
    // The corpus archive: six files, five sessions (one split in two):
    // not one session, so `info` names them (`retrace list` lists them).
    let o = retrace(&["info", "--json", &corpus(GEMINI_ARCHIVE)]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("this folder holds 5 sessions; name one"),
        "{err}"
    );
    assert_eq!(
        err.lines().filter(|l| l.starts_with("  ")).count(),
        5,
        "{err}"
    );
    // Its split session's two files, in a folder of their own, are one.
    let dir = scratch("gemini_split_pair");
    for name in [
        "session-2026-01-10T01-38-1deca764.json",
        "session-2026-01-10T01-46-1deca764.json",
    ] {
        std::fs::copy(corpus(&format!("{GEMINI_ARCHIVE}/{name}")), dir.join(name)).unwrap();
    }
    let o = retrace(&["info", "--json", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{o:?}");
    let info = &json_lines(&o)[0];
    assert_eq!(info["format"], "gemini-cli");
    assert_eq!(info["files"], 2);
    assert_eq!(info["leaves"], 1);
    // A split session: one conversation (2 files, 1 leaf, 6 messages).
    retrace_snapshot!(cmd(&["info", &fixture("gemini/split")]), @"
    exit_code: 0
    ----- stdout -----
    [FIXTURES]/gemini/split
      title         What does `git status` say?
      format        gemini-cli
      entries       5 in 2 files, 6 messages
      time          2026-02-04T10:00:05.000Z – 2026-02-04T11:30:06.000Z (1h 30m)
      branches      1 leaves, 0 real branch points (0 structural fan-outs)
      tool calls    1 (1 results, 0 errors; 0 without result, 0 results without call)
      model         gemini-2.5-flash: 3 messages; tokens in 4388 out 43 cache read 8192 cache write 0
      diagnostics   0 (0 errors, 0 warnings)
    ----- stderr -----
    ");
    // `cat` of a one-branch document is the document.
    let path = corpus(&format!(
        "{GEMINI_ARCHIVE}/session-2025-12-13T19-01-049d9bb6.json"
    ));
    let o = retrace(&["cat", &path]);
    assert!(o.stdout == std::fs::read(&path).unwrap(), "byte-identical");
    // … and of a branch, the document with that branch's messages.
    let o = retrace(&["cat", &fixture("gemini/split")]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["messages"].as_array().unwrap().len(), 5);
    assert_eq!(doc["summary"], "Git status and last commit");
    // Provider lists are read by every command: a Google list, with its
    // `convert_currency` call.
    retrace_snapshot!(
        "show_a_google_contents_list",
        cmd(&["show", &fixture("provider/google-contents.json")])
    );
}
