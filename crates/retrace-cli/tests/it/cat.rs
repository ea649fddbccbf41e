//! `retrace cat`: a branch as a session file, byte for byte.

use crate::common::*;

/// Exit 0 and nothing on stderr.
fn assert_clean(o: &std::process::Output) {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    assert!(o.stderr.is_empty(), "{}", stderr(o));
}

#[test]
fn cat_of_a_linear_file_is_the_file() {
    let path = corpus(PI_V1);
    let o = retrace(&["cat", &path]);
    assert_clean(&o);
    assert!(o.stdout == std::fs::read(&path).unwrap(), "byte-identical");
}

#[test]
fn cat_extracts_one_branch_as_a_session() {
    let o = retrace(&[
        "cat",
        &corpus(CLAUDE_REWIND),
        "--leaf",
        "71c09114-c880-42cd-9ee8-cd2856590331",
    ]);
    assert_clean(&o);
    let dir = scratch("cat_branch");
    let file = dir.join("branch.jsonl");
    std::fs::write(&file, &o.stdout).unwrap();
    // Every line is an original line of the file.
    let original = std::fs::read_to_string(corpus(CLAUDE_REWIND)).unwrap();
    let lines: Vec<&str> = original.lines().collect();
    for l in stdout(&o).lines() {
        assert!(lines.contains(&l));
    }
    // The extract is one branch: one leaf, no branch point, fewer than
    // the file's 99 entries.
    let info = &json_lines(&retrace(&["info", "--json", file.to_str().unwrap()]))[0];
    assert_eq!(info["leaves"], 1);
    assert_eq!(info["branch_points"], 0);
    assert!(info["entries"].as_u64().unwrap() < 99);
    // pi: the header comes along: header, e1, e2, e7, e8.
    retrace_snapshot!(cmd(&["cat", &corpus(PI_V3), "--leaf", "e8"]), @r#"
    exit_code: 0
    ----- stdout -----
    {"type":"session","version":3,"id":"fixture-session","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/fixture"}
    {"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"sanitized","timestamp":1}}
    {"type":"model_change","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:02.000Z","provider":"acme","modelId":"alpha"}
    {"type":"message","id":"e7","parentId":"e2","timestamp":"2026-01-01T00:00:07.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call-2","name":"bash","arguments":{}}],"api":"responses","provider":"acme","model":"alpha","usage":{"input":20,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":30,"cost":{"input":0.02,"output":0.01,"cacheRead":0,"cacheWrite":0,"total":0.03}},"stopReason":"toolUse","timestamp":7}}
    {"type":"future_entry","id":"e8","parentId":"e7","timestamp":"2026-01-01T00:00:08.000Z","secret":"ignored"}
    ----- stderr -----
    "#);
}

#[test]
fn stdin_cat_is_the_input() {
    let bytes = std::fs::read(corpus(PI_V1)).unwrap();
    let o = cmd(&["cat", "-"]).stdin(bytes.clone()).output();
    assert_clean(&o);
    assert!(o.stdout == bytes, "byte-identical through stdin");
    // A pipe given by path (`<(zcat …)`, /dev/stdin) is read once, into
    // memory, too.
    let o = cmd(&["cat", "/dev/stdin"]).stdin(bytes.clone()).output();
    assert_clean(&o);
    assert!(o.stdout == bytes, "byte-identical through a named pipe");
}

#[test]
fn cat_of_a_damaged_legacy_file_keeps_the_document_whole() {
    // Both made from `gemini/split/`: the first file missing the comma
    // after its first message, the second with a torn line after its end.
    let first = fixture("gemini/split/session-2026-02-04T10-00-7e3d9c21.json");
    let second = fixture("gemini/split/session-2026-02-04T11-30-7e3d9c21.json");
    // The joins are the file's well-formed one, not the broken one copied
    // between every two messages.
    let o = retrace(&["cat", &fixture("broken/missing-comma-session.json")]);
    assert_clean(&o);
    assert_eq!(stdout(&o), std::fs::read_to_string(first).unwrap());
    // The array's end, the `summary` after it and the closing brace are
    // the document's; the torn line after it is not.
    let o = retrace(&["cat", &fixture("broken/trailing-garbage-session.json")]);
    assert_clean(&o);
    assert_eq!(stdout(&o), std::fs::read_to_string(second).unwrap());
}

#[test]
fn cat_of_a_session_split_over_a_document_and_json_lines_is_json_lines() {
    // A legacy `.json` (three messages), then a `.jsonl` of the same
    // session going on: the branch ends in the `.jsonl`, so the output is
    // JSON lines, the legacy messages one on each line.
    let dir = fixture("gemini/mixed-split");
    let legacy: serde_json::Value = serde_json::from_slice(
        &std::fs::read(format!("{dir}/session-2026-02-04T10-00-7e3d9c21.json")).unwrap(),
    )
    .unwrap();
    let jsonl =
        std::fs::read_to_string(format!("{dir}/session-2026-02-04T11-30-7e3d9c21.jsonl")).unwrap();
    let jsonl: Vec<&str> = jsonl.split_inclusive('\n').collect();
    // Six lines, and a note that three were relaid.
    let o = retrace_snapshot!(cmd(&["cat", &dir]), @r#"
    exit_code: 0
    ----- stdout -----
    {"sessionId":"7e3d9c21-8a4b-4c6d-9e0f-1a2b3c4d5e6f","projectHash":"1f3e5d7c9b0a2e4d6c8b0a1f3e5d7c9b1a2e4d6c8b0a1f3e5d7c9b0a2e4d6c8","startTime":"2026-02-04T11:30:00.000Z","lastUpdated":"2026-02-04T11:31:00.000Z","kind":"main"}
    {"id":"11111111-aaaa-4bbb-8ccc-000000000001","timestamp":"2026-02-04T10:00:05.000Z","type":"user","content":"What does `git status` say?"}
    {"id":"11111111-aaaa-4bbb-8ccc-000000000002","timestamp":"2026-02-04T10:00:09.000Z","type":"gemini","content":"","toolCalls":[{"id":"run_shell_command-1770199209000-0a0b0c0d","name":"run_shell_command","args":{"command":"git status"},"result":[{"functionResponse":{"id":"run_shell_command-1770199209000-0a0b0c0d","name":"run_shell_command","response":{"output":"On branch main\nnothing to commit"}}}],"status":"success","timestamp":"2026-02-04T10:00:10.000Z"}],"thoughts":[],"model":"gemini-2.5-flash","tokens":{"input":4100,"output":9,"cached":0,"thoughts":0,"tool":0,"total":4109}}
    {"id":"11111111-aaaa-4bbb-8ccc-000000000003","timestamp":"2026-02-04T10:00:12.000Z","type":"gemini","content":"The tree is clean.","thoughts":[],"model":"gemini-2.5-flash","tokens":{"input":4180,"output":6,"cached":4096,"thoughts":0,"tool":0,"total":4186}}
    {"id":"11111111-aaaa-4bbb-8ccc-000000000004","timestamp":"2026-02-04T11:30:02.000Z","type":"user","content":"And the last commit?"}
    {"id":"11111111-aaaa-4bbb-8ccc-000000000005","timestamp":"2026-02-04T11:30:06.000Z","type":"gemini","content":"The last commit is \"init\".","thoughts":[{"subject":"Recalling","description":"Earlier output showed main.","timestamp":"2026-02-04T11:30:04.000Z"}],"model":"gemini-2.5-flash","tokens":{"input":4300,"output":8,"cached":4096,"thoughts":20,"tool":0,"total":4328}}
    ----- stderr -----
    retrace: [FIXTURES]/gemini/mixed-split: 3 messages from a JSON document written as JSON lines, each on one line (blanks between its tokens dropped, the rest byte for byte)
    "#);
    let text = stdout(&o);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 6, "{text}");
    // The `.jsonl`'s metadata and messages as they are.
    assert_eq!(
        [lines[0], lines[4], lines[5]],
        [jsonl[0], jsonl[1], jsonl[3]]
    );
    // The legacy messages, each the same JSON on one line.
    for (i, line) in lines[1..4].iter().enumerate() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(value, legacy["messages"][i], "{line}");
        assert!(
            !line.trim_end().contains('\n') && line.starts_with("{\"id\":"),
            "{line}"
        );
    }
    // The output reads back as the same conversation, with no problem.
    let out = scratch("gemini_mixed_cat").join("cat.jsonl");
    std::fs::write(&out, &o.stdout).unwrap();
    let o = retrace(&["validate", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let messages =
        |path: &str| json_lines(&retrace(&["info", "--json", path]))[0]["messages"].clone();
    assert_eq!(messages(out.to_str().unwrap()), messages(&dir));
    assert_eq!(messages(&dir), 6);
}

#[test]
fn cat_of_a_gemini_branch_takes_each_message_as_last_written() {
    // Line 5 rewrites line 3's model turn after the prompt of line 4,
    // which a rewind then drops: Gemini CLI loads lines 2, 5, 8 and 9.
    let path = fixture("gemini/late-rewrite.jsonl");
    let file = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = file.split_inclusive('\n').collect();
    let o = retrace(&["cat", &path]);
    assert_clean(&o);
    assert_eq!(
        stdout(&o),
        [lines[0], lines[1], lines[4], lines[7], lines[8]].concat()
    );
    // The conversation says "41 passed; 1 failed", not the rewound "And
    // run clippy too."
    retrace_snapshot!(cmd(&["show", &path]), @"
    exit_code: 0
    ----- stdout -----
    ── user · 2026-02-09 09:00:02 · line 2 ──
    Run the tests.

    ── assistant · gemini-2.5-pro · 2026-02-09 09:00:05 · line 5 ──
    ▶ run_shell_command · $ cargo test  (run_shell_command-1770627605000-c3d4e5f6)
       │ test result: FAILED. 41 passed; 1 failed
       tokens: in 6120 out 14 cache read 0 cache write 0

    ── user · 2026-02-09 09:01:10 · line 8 ──
    Which test fails?

    ── assistant · gemini-2.5-pro · 2026-02-09 09:01:14 · line 9 ──
    `parse_empty` fails.
       tokens: in 2084 out 6 cache read 4096 cache write 0

    ----- stderr -----
    ");
    // The branch rewound away, too: its answer (line 6) was written after
    // the rewrite, so the call is done there as well.
    let d = "d3f5b7c9-e1a3-4d5f-9b7c-9e1a3d5f7b9c";
    let o = retrace(&["cat", "--leaf", d, &path]);
    assert_eq!(
        stdout(&o),
        [lines[0], lines[1], lines[4], lines[3], lines[5]].concat()
    );
}
