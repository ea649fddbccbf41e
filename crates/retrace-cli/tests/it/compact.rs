//! `retrace compact`: the plan, the compacted file written beside the
//! input (never over it), and what it refuses.

use crate::common::*;

/// A scratch folder for the test `name`, with the summary to compact with.
fn scratch_with_summary(name: &str) -> (Scratch, String) {
    let dir = Scratch::new(name);
    let summary = dir.write(
        "summary.md",
        "The user asked to read a file; it was read.\n",
    );
    (dir, summary)
}

#[test]
fn compact_appends_a_pi_compaction_entry_to_a_copy() {
    let (dir, summary) = scratch_with_summary("compact_pi");
    let out = &dir.path("compacted.jsonl");
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
    let again = &dir.path("again.jsonl");
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
    let (dir, summary) = scratch_with_summary("compact_refusals");
    let copy = &dir.copy(&corpus(PI_V3), "session.jsonl");
    // Never over its input.
    retrace_snapshot!(cmd(&["compact", copy, "--keep", "2", "--summary-file", &summary, "-o", copy]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/compact_refusals/session.jsonl: compact never rewrites its input: name another file with -o
    ");
    // pi v1 entries have no ids to name the cut with.
    let out = dir.path("out.jsonl");
    retrace_snapshot!(cmd(&["compact", &corpus(PI_V1), "--keep", "2", "--summary-file", &summary, "-o", &out]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [CORPUS]/pi/badlogic__pi-mono/session.jsonl: pi v1 sessions cannot be compacted: their entries have no ids for the compaction to name its first kept entry by. Open the session in pi once (pi migrates a v1 file to v3 in place), then compact it
    ");
    assert!(!std::path::Path::new(&out).exists());
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
    let (dir, summary) = scratch_with_summary("compact_codex");
    let out = &dir.path("rollout.jsonl");
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
    let (dir, summary) = scratch_with_summary("compact_list");
    let out = &dir.path("chat.jsonl");
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

/// Claude Code: a session with parallel tool calls (results written beside
/// the next call).
const CLAUDE_PARALLEL: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl";

/// The last `n` lines of a file, parsed.
fn last_lines(path: &str, n: usize) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len() - n..]
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn compact_appends_claude_code_s_boundary_and_summary() {
    let (dir, summary) = scratch_with_summary("compact_claude");
    let out = &dir.path("session.jsonl");
    let input = corpus(CLAUDE_PARALLEL);
    retrace_snapshot!(cmd(&[
        "compact", &input, "--keep", "4", "--summary-file", &summary, "-o", out,
        "--id", "00000000-0000-4000-8000-00000000c0de", "--time", "2026-01-02T00:00:00Z",
    ]), @"
    exit_code: 0
    ----- stdout -----
    [CORPUS]/claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl: compaction of the branch ending at 8ce37950-bcf0-4605-a4f3-e49a2accf726 (claude-code)
      budget  4 message(s)
      cut     ccd6429d-97f5-4348-9031-323915cadc32 (line 170): the earliest safe cut that fits the budget
      before  62 message(s), ~13321 tokens
      kept    4 message(s), ~447 tokens, within budget
    compacted: appended a compaction after 8ce37950-bcf0-4605-a4f3-e49a2accf726: a summary, then from ccd6429d-97f5-4348-9031-323915cadc32 on (4 message(s), ~447 tokens, the earliest safe cut that fits the budget)
    wrote [SCRATCH]/compact_claude/session.jsonl
    ----- stderr -----
    ");
    // The input unchanged, then Claude Code's two lines: the boundary
    // naming the kept lines, which stay where they are, and the summary
    // they follow.
    let original = std::fs::read(&input).unwrap();
    let written = std::fs::read(out).unwrap();
    assert_eq!(&written[..original.len()], &original[..]);
    assert_eq!(
        written[original.len()..]
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        2
    );
    let [boundary, summary_line] = &last_lines(out, 2)[..] else {
        unreachable!()
    };
    assert_eq!(boundary["subtype"], "compact_boundary");
    assert_eq!(boundary["uuid"], "00000000-0000-4000-8000-00000000c0de");
    assert_eq!(boundary["parentUuid"], serde_json::Value::Null);
    assert_eq!(
        boundary["logicalParentUuid"],
        "8ce37950-bcf0-4605-a4f3-e49a2accf726"
    );
    assert_eq!(
        boundary["sessionId"],
        "ef958aa1-0e93-49f0-bb71-150f63befcd1"
    );
    let kept = &boundary["compactMetadata"]["preservedMessages"];
    assert_eq!(kept["anchorUuid"], summary_line["uuid"]);
    let uuids = kept["uuids"].as_array().unwrap();
    assert_eq!(uuids[0], "ccd6429d-97f5-4348-9031-323915cadc32");
    assert_eq!(
        *uuids.last().unwrap(),
        "8ce37950-bcf0-4605-a4f3-e49a2accf726"
    );
    assert_eq!(summary_line["parentUuid"], boundary["uuid"]);
    assert_eq!(summary_line["isCompactSummary"], true);
    assert_eq!(
        summary_line["message"]["content"],
        "The user asked to read a file; it was read.\n"
    );
    // Read back: the summary, then the four messages kept.
    retrace_snapshot!(cmd(&["show", out]), @r#"
    exit_code: 0
    ----- stdout -----
    ── compaction summary · 2026-01-02 00:00:00 · line 182 ──
    The user asked to read a file; it was read.

    ── assistant · claude-opus-4-7 · 2026-04-18 13:50:40 · line 170 ──
    Experiment complete. All six tasks done.

    **Summary of what happened:**

    - **Round 1:** 3 teammates spawned in parallel with `isolation: "worktree"` (alice/bob/carol), each wrote ~500–900 words on plan mode / teammates / Beads on their own branch in their own worktree.
    - **Octopus merge 1:** branches merged cleanly into master (3 new files, 333 insertions).
    - **Hiccup:** `SendMessage` queued to terminated agents' inboxes but didn't resurrect them — they had already exited after round 1. Per the Agent docs, resuming requires the agent still to be running; once it has returned, you have to spawn fresh.
    - **Round 2:** 3 fresh agents (alice2/bob2/carol2) spawned with self-contained prompts pointing at the existing worktree paths — each merged master into their branch, read the two peer docs, appended a `## Comparison` section with per-peer Pros/Cons, and committed.
    - **Octopus merge 2:** round-2 branches merged into master (205 insertions across the three docs).

    **Takeaway on the mechanism:** `Agent` + `isolation: "worktree"` gives real parallel fan-out with git-level isolation, and octopus merges across non-overlapping files work cleanly. But subagents terminate on return, so multi-round workflows need either: (a) keep the agent alive (long-running), or (b) respawn fresh with an explicit worktree path in the prompt — as I did for round 2.
       tokens: in 1 out 506 cache read 65682 cache write 920

    ── user (context) · 2026-04-18 15:09:30 · line 178 ──
    [caveat] Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.

    ── user (command) · 2026-04-18 15:09:30 · line 179 ──
    /exit

    ── user (shell output) · 2026-04-18 15:09:30 · line 180 ──
       See ya!

    ----- stderr -----
    "#);

    // Compacted again: from the kept lines on, after the new summary.
    let again = &dir.path("again.jsonl");
    let report = cmd(&[
        "compact",
        out,
        "--tokens",
        "300",
        "--summary-file",
        &summary,
        "-o",
        again,
        "--id",
        "00000000-0000-4000-8000-00000000c0df",
        "--time",
        "2026-01-03T00:00:00Z",
        "--json",
    ])
    .output();
    assert!(report.status.success(), "{}", stderr(&report));
    let report: serde_json::Value = serde_json::from_str(&stdout(&report)).unwrap();
    assert_eq!(report["plan"]["leaf_id"], summary_line["uuid"]);
    assert_eq!(report["plan"]["cut_line"], 178);
    assert_eq!(report["plan"]["kept_messages"], 3);
    assert_eq!(
        report["notes"][0]["id"],
        "00000000-0000-4000-8000-00000000c0df"
    );
    let [boundary, _] = &last_lines(again, 2)[..] else {
        unreachable!()
    };
    assert_eq!(boundary["logicalParentUuid"], summary_line["uuid"]);
    retrace_snapshot!(cmd(&["show", again]), @"
    exit_code: 0
    ----- stdout -----
    ── compaction summary · 2026-01-03 00:00:00 · line 184 ──
    The user asked to read a file; it was read.

    ── user (context) · 2026-04-18 15:09:30 · line 178 ──
    [caveat] Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages or otherwise consider them in your response unless the user explicitly asks you to.

    ── user (command) · 2026-04-18 15:09:30 · line 179 ──
    /exit

    ── user (shell output) · 2026-04-18 15:09:30 · line 180 ──
       See ya!

    ----- stderr -----
    ");
}

#[test]
fn compact_joins_a_split_event_stream_and_appends_a_compaction_event() {
    let (dir, summary) = scratch_with_summary("compact_events");
    let out = &dir.path("events.jsonl");
    retrace_snapshot!(cmd(&[
        "compact", &fixture("events/split"), "--keep", "3", "--summary-file", &summary, "-o",
        out, "--time", "2026-03-01T00:00:00Z",
    ]), @"
    exit_code: 0
    ----- stdout -----
    [FIXTURES]/events/split: compaction of the branch ending at F10L2 (events)
      budget  3 message(s)
      cut     F10L1 (line 1): the earliest safe cut that fits the budget
      before  23 message(s), ~53 tokens
      kept    3 message(s), ~9 tokens, within budget
    compacted: appended a compaction after F10L2: a summary, then from F10L1 on (3 message(s), ~9 tokens, the earliest safe cut that fits the budget)
    wrote [SCRATCH]/compact_events/events.jsonl
    ----- stderr -----
    ");
    // Every part in number order, then the event, whose number counts
    // the events of every part.
    let parts: String = std::iter::once("events.jsonl".to_owned())
        .chain((1..=10).map(|n| format!("events_{n}.jsonl")))
        .map(|p| std::fs::read_to_string(fixture(&format!("events/split/{p}"))).unwrap())
        .collect();
    let written = std::fs::read_to_string(out).unwrap();
    assert_eq!(&written[..parts.len()], parts);
    let [event] = &last_lines(out, 1)[..] else {
        unreachable!()
    };
    assert_eq!(event["event_type"], "compaction");
    assert_eq!(event["data"]["first_kept_event"], parts.lines().count() - 2);
    retrace_snapshot!(cmd(&["show", out]), @"
    exit_code: 0
    ----- stdout -----
    ── compaction summary · 2026-03-01 00:00:00 · line 14 ──
    The user asked to read a file; it was read.

    ── assistant · 2026-02-10 14:00:10 · line 12 ──
    ▶ say  (tool@L12)
       n: 10
       │ 10

    ── assistant · 2026-02-10 14:00:11 · line 13 ──
    1 2 3 4 5 6 7 8 9 10

    ----- stderr -----
    ");
}
