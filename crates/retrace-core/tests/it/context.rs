//! `Session::context`: the messages an agent sees on a branch, with
//! compaction honoured and split Claude Code responses joined.

use crate::common::*;
use retrace_core::{MessageKind, Part, Role};

#[test]
fn pi_v3_compaction_gives_summary_then_kept_tail() {
    let (s, bytes) =
        open("pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl");
    // e5 compacts e1..e4 keeping from e3; e6 follows it.
    let context = s.context(find(&s, "e6"), &mut &bytes[..]).unwrap();
    let ids: Vec<&str> = context.iter().map(|m| m.entries[0].as_str()).collect();
    assert_eq!(ids, ["e5", "e3", "e4", "e6"]);
    assert_eq!(context[0].kind, MessageKind::CompactionSummary);
    assert_eq!(
        context[1].tool_calls().collect::<Vec<_>>(),
        [("call-1", "read")]
    );
    assert_eq!(context[2].role, Role::Tool);
    // The other branch (from e2) never saw the compaction; e2 is a model
    // change, not a message, and e8 an unknown entry.
    let context = s.context(find(&s, "e8"), &mut &bytes[..]).unwrap();
    let ids: Vec<&str> = context.iter().map(|m| m.entries[0].as_str()).collect();
    assert_eq!(ids, ["e1", "e7"]);
}

#[test]
fn pi_v1_compaction_counts_entries_from_the_header() {
    let (s, bytes) = open("pi/badlogic__pi-mono/compact.jsonl");
    // Line 670 compacts with firstKeptEntryIndex 573: entry 573 counting
    // the header as 0, which is line 574. Take the branch up to the last
    // message (line 1013, before the second compaction run into it).
    let leaf = s
        .entries()
        .iter()
        .position(|e| e.line == 1013)
        .map(|i| retrace_core::EntryId(i as u32))
        .unwrap();
    let context = s.context(leaf, &mut &bytes[..]).unwrap();
    assert_eq!(context[0].kind, MessageKind::CompactionSummary);
    assert_eq!(context[0].lines, [670]);
    assert_eq!(context[1].lines, [574]);
    assert_eq!(context.last().unwrap().lines, [1013]);
    // Every line 574..=669 and 671..=1013 holds one message.
    assert_eq!(context.len(), 1 + (669 - 574 + 1) + (1013 - 671 + 1));
    // The second compaction keeps nothing before it.
    let context = s
        .context(s.tree().default_leaf().unwrap(), &mut &bytes[..])
        .unwrap();
    assert_eq!(context.len(), 1);
    assert_eq!(context[0].kind, MessageKind::CompactionSummary);
}

#[test]
fn claude_split_response_is_one_message_with_usage_once() {
    let (s, bytes) = open("claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-JSSoundRecorder/7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl");
    let context = s
        .context(s.tree().default_leaf().unwrap(), &mut &bytes[..])
        .unwrap();
    // msg_01KJZamND8Cemw6Le5jtXwwN is written on lines 5-9: thinking, text
    // and three tool calls, each line repeating output_tokens 417.
    let m = context
        .iter()
        .find(|m| m.lines.first() == Some(&5))
        .unwrap();
    assert_eq!(m.lines, [5, 6, 7, 8, 9]);
    assert!(matches!(m.content[0], Part::Thinking { .. }));
    assert!(matches!(m.content[1], Part::Text { .. }));
    assert_eq!(m.tool_calls().count(), 3);
    assert_eq!(m.usage.unwrap().output, 417);
    assert_eq!(m.stop_reason.as_deref(), Some("tool_use"));
    // No response appears twice.
    let mut seen = std::collections::HashSet::new();
    for m in &context {
        assert!(seen.insert(m.lines[0]));
    }
    // Per-model usage in the deep check counts each response once too.
    let check = s.check(&mut &bytes[..]).unwrap();
    let total_output: u64 = check.models.values().map(|m| m.usage.output).sum();
    let from_context: u64 = context
        .iter()
        .filter_map(|m| m.usage)
        .map(|u| u.output)
        .sum();
    assert_eq!(total_output, from_context);
}

#[test]
fn claude_context_restarts_at_the_compact_boundary() {
    let (s, bytes) =
        open("claude-code/daaain__claude-code-log/test/test_data/dag_compact_after_rewind.jsonl");
    let leaf = find(&s, "p1a");
    // The boundary hangs under the branch it compacted, so the tree keeps
    // the history: the rewind at a1 is still a real branch point...
    assert!(s.tree().path(leaf).contains(&find(&s, "b2a2")));
    assert!(s.tree().is_real_branch_point(find(&s, "a1")));
    // ...but the agent's context starts again at the summary.
    let context = s.context(leaf, &mut &bytes[..]).unwrap();
    let ids: Vec<&str> = context.iter().map(|m| m.entries[0].as_str()).collect();
    assert_eq!(ids, ["cs", "p1u", "p1a"]);
    assert_eq!(context[0].kind, MessageKind::CompactionSummary);
}

/// The labels of a context's messages, each by its first line.
fn labels(context: &[retrace_core::Message]) -> Vec<&str> {
    context.iter().map(|m| m.entries[0].as_str()).collect()
}

#[test]
fn claude_compaction_keeps_the_chain_its_preserved_segment_names() {
    let (s, bytes) = open_clean_fixture("claude/preserved-segment.jsonl");
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!(s.id(leaf), Some("a5"));
    // The summary, the chain from u2 up to a4 (written before the
    // boundary), then the turn written under the attachment that came with
    // the compaction: what Claude Code's loader reads.
    let context = s.context(leaf, &mut &bytes[..]).unwrap();
    assert_eq!(labels(&context), ["cs", "u2", "a4", "u3", "a5"]);
    assert_eq!(context[0].kind, MessageKind::CompactionSummary);
}

#[test]
fn claude_compaction_keeps_every_line_its_preserved_messages_list() {
    let (s, bytes) = open_clean_fixture("claude/preserved-messages.jsonl");
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!(s.id(leaf), Some("a5"));
    // The list, not the parent chain from a4 up to a1 (which misses the
    // parallel call a2 and its result r2), in its order after the summary.
    let context = s.context(leaf, &mut &bytes[..]).unwrap();
    assert_eq!(
        labels(&context),
        ["cs", "a1", "r2", "r1", "a3", "u2", "a4", "u3", "a5"]
    );
    assert_eq!(context[1].entries, ["a1", "a2"]);
    assert_eq!(context[1].tool_calls().count(), 2);
    // u3 was written under a4, the last kept line: it follows the
    // compaction, which is no rewind.
    assert_eq!(s.tree().parent(find(&s, "u3")), Some(find(&s, "cs")));
    assert_eq!(s.tree().real_branch_points().count(), 0);
    // Before the compaction, the branch ending at a4 reads as it was.
    let context = s.context(find(&s, "a4"), &mut &bytes[..]).unwrap();
    assert_eq!(labels(&context), ["u1", "a1", "r2", "r1", "a3", "u2", "a4"]);
}

#[test]
fn claude_branch_includes_structural_side_lines() {
    // Parallel Task calls: results of the first calls are written beside the
    // next call; the branch must carry them so every call pairs.
    let (s, bytes) = open("claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl");
    let leaf = s.tree().default_leaf().unwrap();
    let context = s.context(leaf, &mut &bytes[..]).unwrap();
    let calls: std::collections::HashSet<String> = context
        .iter()
        .flat_map(|m| m.tool_calls().map(|(id, _)| id.to_owned()))
        .collect();
    let results: std::collections::HashSet<String> = context
        .iter()
        .flat_map(|m| m.tool_results().map(|(id, _)| id.to_owned()))
        .collect();
    assert_eq!(calls.len(), 40);
    assert_eq!(calls, results);
}
