//! `retrace show`.

use crate::common::*;

#[test]
fn show_prints_the_branch_with_tool_calls() {
    // The branch to e6: the compaction summary first, then the read call
    // and its result.
    retrace_snapshot!(cmd(&["show", &corpus(PI_V3), "--leaf", "e6"]), @"
    exit_code: 0
    ----- stdout -----
    ── compaction summary · 2026-01-01 00:00:05 · line 6 ──
    sanitized

    ── assistant · alpha · 2026-01-01 00:00:03 · line 4 ──
    → read (call-1)
       {}
       tokens: in 10 out 5 cache read 0 cache write 0

    ── tool result · 2026-01-01 00:00:04 · line 5 ──
    ← call-1
       redacted fixture

    ── assistant · alpha · 2026-01-01 00:00:06 · line 7 ──
    sanitized
       tokens: in 12 out 8 cache read 0 cache write 0

    ----- stderr -----
    ");
    let o = retrace(&["show", "--json", &corpus(PI_V3), "--leaf", "e6"]);
    let ids: Vec<String> = json_lines(&o)
        .iter()
        .map(|m| m["entries"][0].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["e5", "e3", "e4", "e6"]);
    retrace_snapshot!(
        "show_json_to_e6",
        cmd(&["show", "--json", &corpus(PI_V3), "--leaf", "e6"]).pretty()
    );
}

#[test]
fn leaf_by_line_label() {
    // pi v1 has no ids: entries are named by line. The branch to line 5
    // is four messages, from the user's on line 2.
    let path = corpus(PI_V1);
    retrace_snapshot!(cmd(&["show", &path, "--leaf", "L5"]));
    // `cat` of that branch is the header and lines 2–5, byte for byte.
    let o = retrace(&["cat", &path, "--leaf", "L5"]);
    let file = std::fs::read(&path).unwrap();
    let first5: usize = file
        .split_inclusive(|&b| b == b'\n')
        .take(5)
        .map(|l| l.len())
        .sum();
    assert!(o.stdout == file[..first5], "the first five lines");
    // The header is not on the conversation tree.
    retrace_snapshot!(cmd(&["show", &path, "--leaf", "L1"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [CORPUS]/pi/badlogic__pi-mono/session.jsonl: `L1` is not part of the conversation tree (a `session` line, line 1)
    ");
}

#[test]
fn an_id_used_twice_is_ambiguous() {
    // A Claude Code file whose assistant lines 2 and 4 share a uuid (a
    // copied line, a resumed session): `--leaf a1` names neither; each is
    // reached by its line, in every command that takes `--leaf`.
    let dir = scratch("ambiguous_leaf");
    let path = dir.join("dup.jsonl");
    let line = |kind: &str, uuid: &str, parent: &str, n: u32, content: &str| {
        let parent = match parent {
            "" => "null".to_owned(),
            p => format!("\"{p}\""),
        };
        format!(
            r#"{{"type":"{kind}","uuid":"{uuid}","parentUuid":{parent},"sessionId":"s1","timestamp":"2026-01-01T00:00:0{n}Z","message":{{"role":"{kind}","content":{content}}}}}"#
        ) + "\n"
    };
    let text = |t: &str| format!(r#"[{{"type":"text","text":"{t}"}}]"#);
    let file = [
        line("user", "u1", "", 0, r#""first""#),
        line("assistant", "a1", "u1", 1, &text("one")),
        line("user", "u2", "a1", 2, r#""second""#),
        line("assistant", "a1", "u2", 3, &text("two")),
    ]
    .concat();
    std::fs::write(&path, file).unwrap();
    let path = path.to_str().unwrap();
    retrace_snapshot!(cmd(&["show", path, "--leaf", "a1"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/ambiguous_leaf/dup.jsonl: id `a1` is used on lines 2 and 4; name one as L2 or L4
    ");
    for verb in ["cat", "migrate"] {
        let mut args = vec![verb, path, "--leaf", "a1"];
        if verb == "migrate" {
            args.extend(["--to", "openai"]);
        }
        let o = retrace(&args);
        assert_eq!(o.status.code(), Some(2), "{verb}");
        assert!(
            stderr(&o).contains("id `a1` is used on lines 2 and 4; name one as L2 or L4"),
            "{verb}: {}",
            stderr(&o)
        );
    }
    // Each by its line.
    let o = retrace(&["migrate", path, "--to", "openai", "--leaf", "L4"]);
    let body: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        body["messages"][3],
        serde_json::json!({"role": "assistant", "content": "two"})
    );
    let o = retrace(&["migrate", path, "--to", "openai", "--leaf", "L2"]);
    let body: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(body["messages"].as_array().unwrap().len(), 2);
    assert_eq!(body["messages"][1]["content"], "one");
    let o = retrace(&["cat", path, "--leaf", "L2"]);
    assert_eq!(stdout(&o).lines().count(), 2);
}

#[test]
fn show_marks_every_tool_error() {
    let path = corpus(CLAUDE_REWIND);
    let text = stdout(&retrace(&["show", &path]));
    let errors_in_json: usize = json_lines(&retrace(&["show", "--json", &path]))
        .iter()
        .flat_map(|m| m["content"].as_array().unwrap().clone())
        .filter(|p| p["type"] == "tool_result" && p["is_error"] == true)
        .count();
    assert_eq!(
        errors_in_json, 3,
        "the three failed tool results of the file"
    );
    assert_eq!(text.matches(" ERROR\n").count(), errors_in_json, "{text}");
    assert!(text.contains("[thinking]") || text.contains("→ "), "{text}");
}

#[test]
fn a_split_set_shows_in_numeric_order() {
    // events_2 … events_10 read in numeric order: the tool outputs count
    // from 1 to 10.
    let o = retrace(&["show", "--json", &fixture("events/split")]);
    assert!(o.status.success(), "{o:?}");
    let outputs: Vec<String> = json_lines(&o)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"][0]["output"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(outputs, ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
    retrace_snapshot!(cmd(&["show", &fixture("events/split")]));
}
