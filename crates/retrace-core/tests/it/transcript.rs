//! `Session::rows`: a branch laid out for a viewer from the index alone,
//! error marks from raw bytes, and the replay engine driven over rows.

use crate::common::*;
use retrace_core::{Marks, Part, Replay, ReplayOptions, Role, RowKind, Speed, Step};

/// A real Claude Code 2.1.42 session with a rewind (two prompts under line
/// 16), thinking and tool calls; also the viewer's demo session.
const DEMO: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl";

fn lines(s: &retrace_core::Session, row: &retrace_core::Row) -> Vec<u32> {
    row.entries.iter().map(|&e| s.entry(e).line).collect()
}

#[test]
fn claude_rows_merge_split_responses_and_mark_prompts_and_the_fork() {
    let (s, bytes) = open(DEMO);
    let tips = s.tree().tips();
    assert_eq!(tips.len(), 2);
    let first = s.rows(tips[0]);
    let second = s.rows(tips[1]);
    assert_eq!((first.len(), second.len()), (24, 27));
    // Both branches share the first 12 rows, up to the stop-hook line the
    // user rewound to.
    assert_eq!(first[..12], second[..12]);
    assert_eq!(lines(&s, &first[11]), [16]);
    assert!(first[11].marks.has(Marks::BRANCH_POINT));
    assert_eq!(lines(&s, &first[12]), [18]);
    assert_eq!(lines(&s, &second[12]), [38]);
    // A response written over four lines is one row.
    assert_eq!(lines(&s, &first[2]), [4, 5, 6, 7]);
    let prompts: Vec<u32> = first
        .iter()
        .filter(|r| r.marks.has(Marks::PROMPT))
        .map(|r| lines(&s, r)[0])
        .collect();
    assert_eq!(prompts, [3, 18, 25, 32]);
    // Hook progress and system lines are events, not messages.
    assert_eq!(first[0].kind, RowKind::Event);
    assert_eq!(first[0].entry_type, "progress");
    // The merged row reads back as one message: thinking, text, tool call.
    let m = s.row_message(&first[2], &mut &bytes[..]).unwrap().unwrap();
    assert_eq!(m.role, Role::Assistant);
    // (The response opens with a "\n\n" text block, as written.)
    assert!(matches!(
        m.content[1],
        Part::Thinking {
            signature: true,
            ..
        }
    ));
    assert_eq!(m.text(), "\n\n\n\nLet me take a look at what's here.");
    assert_eq!(m.tool_calls().map(|c| c.1).collect::<Vec<_>>(), ["Bash"]);
    assert_eq!(m.entries.len(), 4);
    assert!(s.row_message(&first[0], &mut &bytes[..]).unwrap().is_none());
    assert!(!first.iter().any(|r| r.marks.has(Marks::ERROR)));
}

#[test]
fn pi_error_rows_are_failed_tools_and_error_stops() {
    let (s, bytes) =
        open("pi/badlogic__pi-mono/packages/coding-agent/test/fixtures/large-session.jsonl");
    let rows = s.rows(s.tree().default_leaf().unwrap());
    // v1: every entry after the header is on the one branch.
    assert_eq!(rows.len(), 1018);
    let errors: Vec<&retrace_core::Row> =
        rows.iter().filter(|r| r.marks.has(Marks::ERROR)).collect();
    // 19 tool results with `isError: true` and one `stopReason: "error"`,
    // counted by parsing the file.
    assert_eq!(errors.len(), 20);
    for row in errors {
        let m = s.row_message(row, &mut &bytes[..]).unwrap().unwrap();
        let failed = m.tool_results().any(|(_, is_error)| is_error)
            || m.stop_reason.as_deref() == Some("error");
        assert!(
            failed,
            "line {} is not an error",
            s.entry(row.entries[0]).line
        );
    }
}

#[test]
fn claude_and_event_errors_are_marked_from_the_index() {
    // Six user lines with a `tool_result` block marked `is_error: true` in
    // each file (counted with Python), and none elsewhere.
    for rel in [
        "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl",
        "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl",
    ] {
        let (s, bytes) = open(rel);
        let flagged: Vec<_> = s
            .entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| e.flags.has(retrace_core::Flags::ERROR))
            .map(|(i, _)| retrace_core::EntryId(i as u32))
            .collect();
        assert_eq!(flagged.len(), 6, "{rel}");
        for e in flagged {
            let m = s.message(e, &mut &bytes[..]).unwrap().unwrap();
            assert!(m.tool_results().any(|(_, is_error)| is_error), "{rel}");
        }
    }
    // The events fixture: one `tool_call` whose `error` is set.
    let bytes = read_fixture("events/events.jsonl");
    let s = retrace_core::Session::from_bytes("events.jsonl", &bytes);
    let rows = s.rows(s.tree().default_leaf().unwrap());
    let errors: Vec<&str> = rows
        .iter()
        .filter(|r| r.marks.has(Marks::ERROR))
        .map(|r| r.entry_type.as_str())
        .collect();
    assert_eq!(errors, ["tool_call"]);
}

#[test]
fn replay_over_a_real_branch() {
    let (s, _) = open(DEMO);
    let rows = s.rows(s.tree().default_leaf().unwrap());
    let mut replay = Replay::new(
        rows.iter().map(Step::from).collect(),
        ReplayOptions {
            speed: Speed::X10,
            ..ReplayOptions::default()
        },
    );
    replay.play(0);
    let mut now = 0;
    while let Some(due) = replay.poll_timeout() {
        now = due;
        replay.handle_timeout(now);
    }
    assert_eq!(replay.position(), rows.len());
    // The session spans 37 minutes; idle gaps cut to 3 s make the 1x
    // replay at most 3 s per row, and at 10x a tenth of the timeline.
    let timeline = replay.timeline();
    assert!(*timeline.last().unwrap() <= 3_000 * rows.len() as u64);
    assert_eq!(
        now,
        timeline
            .iter()
            .zip(timeline.iter().skip(1))
            .map(|(a, b)| (b - a) / 10)
            .sum::<u64>()
    );
}

#[test]
fn outline_collapses_runs_and_opens_a_segment_per_real_branch() {
    let (s, _) = open(DEMO);
    let outline = s.outline();
    assert_eq!(outline.len(), 3);
    let root = &outline[0];
    // Lines 2–16: 12 nodes on the run, 3 side lines at 2 structural
    // fan-outs (hook progress lines beside the answer), then the rewind.
    assert_eq!((s.entry(root.first).line, s.entry(root.last).line), (2, 16));
    assert_eq!((root.len, root.side, root.fanouts), (12, 3, 2));
    assert_eq!(root.children, [1, 2]);
    assert!(!root.is_tip && !root.has_default);
    let (a, b) = (&outline[1], &outline[2]);
    assert_eq!((a.parent, a.depth, b.depth), (Some(0), 1, 1));
    assert_eq!(s.entry(a.first).line, 18);
    assert_eq!(s.entry(b.first).line, 38);
    assert!(a.is_tip && b.is_tip);
    assert!(!a.has_default && b.has_default);
    assert_eq!(s.tip_of(a), s.tree().tips()[0]);
    assert_eq!(s.tip_of(root), s.tree().default_leaf().unwrap());
    assert_eq!(a.roles["assistant"], 7);
    assert!(a.start.unwrap() < a.end.unwrap());
}

#[test]
fn codex_rows_are_response_items_and_events() {
    let (s, bytes) = open("codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl");
    let rows = s.rows(s.tree().default_leaf().unwrap());
    // 279 lines: 119 response items (39 calls, 39 outputs, 38 reasonings,
    // 2 messages, 1 ghost snapshot, counted with Python) and 160 events
    // (119 event_msg, 40 turn_context, 1 session_meta). A step's
    // reasoning, call and the events around it are one row (see
    // `codex_rows.rs`): 84 rows, of which all but the session's start
    // and two lines after the last output are messages, holding every
    // response item.
    assert_eq!(rows.len(), 84);
    let messages: Vec<&retrace_core::Row> =
        rows.iter().filter(|r| r.kind == RowKind::Message).collect();
    assert_eq!(messages.len(), 81);
    assert!(messages.iter().all(|r| r.entry_type == "response_item"));
    let items = messages
        .iter()
        .flat_map(|r| &r.entries)
        .filter(|&&e| s.kind(e) == "response_item")
        .count();
    assert_eq!(items, 119);
    // Every response item reads back as a message; the ghost snapshot (Codex's
    // undo checkpoint, not something said) as a checkpoint marker, the only
    // row marked so.
    let read: Vec<retrace_core::Message> = messages
        .iter()
        .map(|r| s.row_message(r, &mut &bytes[..]).unwrap().unwrap())
        .collect();
    let checkpoints: Vec<u32> = read
        .iter()
        .filter(|m| matches!(m.content[..], [Part::Checkpoint { .. }]))
        .map(|m| m.lines[0])
        .collect();
    assert_eq!(checkpoints, [6]);
    assert!(String::from_utf8_lossy(&bytes)
        .lines()
        .nth(5)
        .unwrap()
        .contains("ghost_snapshot"));
    let marked: Vec<u32> = rows
        .iter()
        .filter(|r| r.marks.has(Marks::CHECKPOINT))
        .map(|r| s.entry(*r.entries.last().unwrap()).line)
        .collect();
    assert_eq!(marked, [6]);
    let calls = messages
        .iter()
        .filter_map(|r| s.row_message(r, &mut &bytes[..]).unwrap())
        .map(|m| m.tool_calls().count())
        .sum::<usize>();
    assert_eq!(calls, 39);
}
