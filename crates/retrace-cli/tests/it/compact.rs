//! `retrace compact`: the plan, the compacted file written beside the
//! input (never over it), and what it refuses.

use crate::common::*;

fn summary_file(dir: &std::path::Path) -> String {
    let file = dir.join("summary.md");
    std::fs::write(&file, "The user asked to read a file; it was read.\n").unwrap();
    file.to_str().unwrap().to_owned()
}

#[test]
fn compact_appends_a_pi_compaction_entry_to_a_copy() {
    let dir = scratch("compact_pi");
    let summary = summary_file(&dir);
    let out = dir.join("compacted.jsonl");
    let out = out.to_str().unwrap();
    let input = corpus(PI_V3);
    retrace_snapshot!(cmd(&[
        "compact", &input, "--leaf", "e6", "--keep", "1", "--summary-file", &summary, "-o", out,
        "--id", "c0ffee01", "--time", "2026-01-02T00:00:00Z",
    ]), @"
    exit_code: 0
    ----- stdout -----
    [CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl: compaction of the branch ending at e6 (pi v3)
      budget  1 message(s)
      cut     e6 (line 7): the earliest safe cut that fits the budget
      before  4 message(s), ~12 tokens
      kept    1 message(s), ~3 tokens, within budget
    compacted: appended a compaction after e6: a summary, then from e6 on (1 message(s), ~3 tokens, the earliest safe cut that fits the budget)
    wrote [SCRATCH]/compact_pi/compacted.jsonl
    ----- stderr -----
    ");
    // The input unchanged, then one line.
    let original = std::fs::read(&input).unwrap();
    let written = std::fs::read(out).unwrap();
    assert_eq!(&written[..original.len()], &original[..]);
    retrace_snapshot!(cmd(&["show", out]), @"
    exit_code: 0
    ----- stdout -----
    ── compaction summary · 2026-01-02 00:00:00 · line 10 ──
    The user asked to read a file; it was read.

    ── assistant · alpha · 2026-01-01 00:00:06 · line 7 ──
    sanitized
       tokens: in 12 out 8 cache read 0 cache write 0

    ----- stderr -----
    ");

    // Compacted again: the kept tail starts at the cut, after the summary.
    let again = dir.join("again.jsonl");
    let again = again.to_str().unwrap();
    retrace_snapshot!(cmd(&[
        "compact", out, "--tokens", "100", "--summary-file", &summary, "-o", again, "--id",
        "c0ffee02", "--time", "2026-01-03T00:00:00Z", "--json",
    ]), @r#"
    exit_code: 0
    ----- stdout -----
    {
      "path": "[SCRATCH]/compact_pi/compacted.jsonl",
      "plan": {
        "format": {
          "name": "pi",
          "version": 3
        },
        "leaf_id": "c0ffee01",
        "cut_id": "e6",
        "cut_line": 7,
        "rule": "fits",
        "budget": {
          "unit": "tokens",
          "limit": 100
        },
        "messages_before": 2,
        "tokens_before": 14,
        "kept_messages": 1,
        "kept_tokens": 3,
        "fits": true,
        "system_kept": true,
        "split": []
      },
      "notes": [
        {
          "action": "compacted",
          "line": 11,
          "id": "c0ffee02",
          "message": "appended a compaction after c0ffee01: a summary, then from e6 on (1 message(s), ~3 tokens, the earliest safe cut that fits the budget)"
        }
      ],
      "output": "[SCRATCH]/compact_pi/again.jsonl"
    }
    ----- stderr -----
    "#);
}

#[test]
fn compact_dry_run_prints_the_plan_and_the_fallback() {
    // Two tokens fit nothing: the shortest tail that splits no pair.
    retrace_snapshot!(cmd(&["compact", &corpus(PI_V3), "--leaf", "e6", "--tokens", "2", "--dry-run"]), @"
    exit_code: 0
    ----- stdout -----
    [CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl: compaction of the branch ending at e6 (pi v3)
      budget  ~2 tokens
      cut     e6 (line 7): no safe cut fits: the shortest safe tail, over budget
      before  4 message(s), ~12 tokens
      kept    1 message(s), ~3 tokens, over budget
    (dry run: nothing written)
    ----- stderr -----
    ");
}

#[test]
fn compact_refuses_what_it_cannot_do() {
    let dir = scratch("compact_refusals");
    let summary = summary_file(&dir);
    let copy = dir.join("session.jsonl");
    std::fs::copy(corpus(PI_V3), &copy).unwrap();
    let copy = copy.to_str().unwrap();
    // Never over its input.
    retrace_snapshot!(cmd(&["compact", copy, "--keep", "2", "--summary-file", &summary, "-o", copy]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/compact_refusals/session.jsonl: compact never rewrites its input: name another file with -o
    ");
    // pi v1 entries have no ids to name the cut with.
    let out = dir.join("out.jsonl");
    retrace_snapshot!(cmd(&["compact", &corpus(PI_V1), "--keep", "2", "--summary-file", &summary, "-o", out.to_str().unwrap()]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [CORPUS]/pi/badlogic__pi-mono/session.jsonl: pi v1 (entries without ids) sessions cannot be compacted
    ");
    assert!(!out.exists());
    // A budget is required.
    retrace_snapshot!(cmd(&["compact", copy, "--dry-run"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: the following required arguments were not provided:
      <--keep <N>|--tokens <N>>

    Usage: retrace compact --dry-run <--keep <N>|--tokens <N>> <PATH>

    For more information, try '--help'.
    ");
}

#[test]
fn compact_writes_a_codex_compacted_line() {
    let dir = scratch("compact_codex");
    let summary = summary_file(&dir);
    let out = dir.join("rollout.jsonl");
    let out = out.to_str().unwrap();
    retrace_snapshot!(cmd(&[
        "compact", &corpus(CODEX), "--keep", "4", "--summary-file", &summary, "-o", out,
        "--time", "2026-01-02T00:00:00Z",
    ]), @"
    exit_code: 0
    ----- stdout -----
    [CORPUS]/codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl: compaction of the branch ending at L279 (codex)
      budget  4 message(s)
      cut     L268 (line 268): the earliest safe cut that fits the budget
      before  81 message(s), ~22017 tokens
      kept    4 message(s), ~1281 tokens, within budget
    compacted: appended a compaction after L279: a summary, then from L268 on (4 message(s), ~1281 tokens, the earliest safe cut that fits the budget)
    wrote [SCRATCH]/compact_codex/rollout.jsonl
    ----- stderr -----
    ");
    let written = std::fs::read_to_string(out).unwrap();
    let last: serde_json::Value = serde_json::from_str(written.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "compacted");
    let history = last["payload"]["replacement_history"].as_array().unwrap();
    assert!(history
        .iter()
        .any(|i| i["content"][0]["text"] == "The user asked to read a file; it was read.\n"));
}

#[test]
fn compact_writes_a_provider_list_anew() {
    // A list is not appended to: the new file is the system prompts, the
    // summary, then the kept tail, each kept line as it was.
    let dir = scratch("compact_list");
    let summary = summary_file(&dir);
    let out = dir.join("chat.jsonl");
    let out = out.to_str().unwrap();
    let input = fixture("provider/openai-chat.jsonl");
    let o = retrace(&[
        "compact",
        &input,
        "--keep",
        "2",
        "--summary-file",
        &summary,
        "-o",
        out,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let original = std::fs::read_to_string(&input).unwrap();
    let lines: Vec<&str> = original.lines().collect();
    let written = std::fs::read_to_string(out).unwrap();
    let got: Vec<&str> = written.lines().collect();
    assert_eq!(got.len(), 5, "{written}");
    assert_eq!(got[..2], lines[..2]);
    assert_eq!(
        got[2],
        r#"{"content":"The user asked to read a file; it was read.\n","role":"user"}"#
    );
    assert_eq!(got[3..], lines[lines.len() - 2..]);
    assert!(stdout(&o).contains("a new list: 2 system prompt element(s) from before the cut"));
}
