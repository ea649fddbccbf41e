//! Codex CLI rollouts: the real corpus rollout (0.58.0) and hand-written
//! fixtures for what no public sample shows (rollback, fork + sub-agent, the
//! pre-Sept-2025 bare layout). Counts were checked by hand with a separate
//! Python pass over the files (see `tests/fixtures/README.md`).

use crate::common::*;
use retrace_core::migrate::migrate;
use retrace_core::{
    Api, ContextOptions, DiagnosticKind, EntryId, Format, MessageKind, Part, PartExtra, Role,
    Session,
};

const CORPUS_ROLLOUT: &str = "codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl";

#[test]
fn every_corpus_rollout_is_codex() {
    let files: Vec<_> = corpus_files()
        .into_iter()
        .filter(|p| p.starts_with(corpus().join("codex")))
        .collect();
    assert!(!files.is_empty());
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let s = Session::from_bytes(&path.to_string_lossy(), &bytes);
        assert_eq!(s.format(), Format::Codex, "{}", path.display());
    }
}

#[test]
fn corpus_rollout_counts() {
    let (s, bytes) = open(CORPUS_ROLLOUT);
    assert_eq!(s.format(), Format::Codex);
    assert_eq!(s.entries().len(), 279);
    // One chain, no branches.
    assert_eq!(s.tree().len(), 279);
    assert_eq!(s.tree().tips().len(), 1);
    assert_eq!(s.tree().branch_points().len(), 0);
    // Only the three lines written out of order.
    assert!(s
        .diagnostics()
        .iter()
        .all(|d| d.kind == DiagnosticKind::TimestampOutOfOrder));
    assert_eq!(s.diagnostics().len(), 3);

    let check = s.check(&mut bytes.as_slice()).unwrap();
    assert!(check.diagnostics.is_empty(), "{:?}", check.diagnostics);
    // 2 user messages (one injected), 39 responses (reasoning + a call),
    // 39 tool outputs; the 39 agent_reasoning and 1 user_message events
    // are copies and not counted again.
    assert_eq!(check.messages, 80);
    assert_eq!(check.tool_calls, 39);
    assert_eq!(check.tool_results, 39);
    // exit_code 1 in three JSON-string shell outputs.
    assert_eq!(check.tool_errors, 3);
    assert_eq!(check.pairing.calls_without_result, 0);
    assert_eq!(check.pairing.results_without_call, 0);
    let model = &check.models["gpt-5.1-codex"];
    assert_eq!(model.messages, 39);
    // 79 token_count events: 1 without info, 39 distinct totals, 39
    // repeats. The per-request figures add up to the last running total
    // (1,099,261 input of which 1,027,328 cached, 22,305 output).
    assert_eq!(model.usage.input, 71_933);
    assert_eq!(model.usage.cache_read, 1_027_328);
    assert_eq!(model.usage.output, 22_305);
    assert_eq!(
        model.usage.input + model.usage.cache_read + model.usage.output,
        1_121_566
    );

    let leaf = s.tree().default_leaf().unwrap();
    let context = s.context(leaf, &mut bytes.as_slice()).unwrap();
    // 80 messages and the ghost snapshot's checkpoint marker after the
    // prompt.
    assert_eq!(context.len(), 81);
    assert_eq!(context[0].kind, MessageKind::Meta);
    assert!(context[1].text().starts_with("finish up the users work"));
    assert!(matches!(context[2].content[0], Part::Checkpoint { .. }));
    let context = &context[..2]
        .iter()
        .chain(&context[3..])
        .cloned()
        .collect::<Vec<_>>();
    assert_eq!(context[2].role, Role::Assistant);
    assert!(matches!(
        context[2].content[0],
        Part::Thinking {
            signature: true,
            ..
        }
    ));
    assert_eq!(context[2].usage.unwrap().input, 10128);
}

#[test]
fn rollback_leaves_the_dropped_turn_as_a_branch() {
    let (s, files) = open_fixtures(&["codex/rollback.jsonl"]);
    let mut src = source(&files);
    assert_eq!(s.format(), Format::Codex);
    assert_eq!(s.entries().len(), 34);
    let tree = s.tree();
    // Turn 2 (lines 15–21) was rolled back at line 22: both hang under the
    // end of turn 1.
    let fork = entry_at(&s, 0, 14);
    assert_eq!(
        tree.real_branch_points()
            .map(|b| b.entry)
            .collect::<Vec<_>>(),
        [fork]
    );
    assert_eq!(tree.parent(entry_at(&s, 0, 15)), Some(fork));
    assert_eq!(tree.parent(entry_at(&s, 0, 22)), Some(fork));
    let abandoned = entry_at(&s, 0, 21);
    let default = entry_at(&s, 0, 34);
    assert_eq!(tree.tips(), [abandoned, default]);
    assert_eq!(tree.default_leaf(), Some(default));

    let check = s.check(&mut src[..]).unwrap();
    assert_eq!(check.messages, 13);
    assert_eq!(check.markers, 2);
    assert_eq!(
        (check.tool_calls, check.tool_results, check.tool_errors),
        (3, 2, 1)
    );
    // The rolled-back call never got its output.
    assert_eq!(check.pairing.calls_without_result, 1);
    assert_eq!(check.pairing.results_without_call, 0);
    let usage = check.models["gpt-5.2-codex"].usage;
    assert_eq!(
        (usage.input, usage.cache_read, usage.output),
        (350, 350, 100)
    );

    // The default branch continues from the compaction: its replacement
    // history, then the answer.
    let context = s.context(default, &mut src[..]).unwrap();
    assert_eq!(context.len(), 5);
    assert_eq!(context[0].kind, MessageKind::Meta);
    assert_eq!(context[1].text(), "list the files");
    assert!(context[3].text().starts_with("Another language model"));
    assert_eq!(context[4].role, Role::Assistant);
    assert_eq!(context[4].usage.unwrap().cache_read, 50);
    assert!(context.iter().all(|m| m.lines.iter().all(|&l| l >= 30)));

    // The abandoned branch: the system prompt, turn 1, turn 2 and its abort.
    let context = s.context(abandoned, &mut src[..]).unwrap();
    assert_eq!(context.len(), 9);
    assert_eq!(context[0].role, Role::System);
    assert_eq!(context[8].kind, MessageKind::Marker);
    assert_eq!(context[8].text(), "turn aborted (interrupted)");
    assert_eq!(
        context[7].tool_calls().collect::<Vec<_>>(),
        [("call_2", "exec_command")]
    );
}

const PARENT: &str =
    "codex/fork/rollout-2026-03-02T11-00-00-0199b000-0000-7000-8000-00000000000a.jsonl";
const SUBAGENT: &str =
    "codex/fork/rollout-2026-03-02T11-01-03-0199b000-0000-7000-8000-00000000000b.jsonl";
const FORK: &str =
    "codex/fork/rollout-2026-03-02T13-00-00-0199b000-0000-7000-8000-00000000000c.jsonl";

#[test]
fn fork_and_subagent_link_to_their_parent() {
    let (s, files) = open_fixtures(&[PARENT, SUBAGENT, FORK]);
    let mut src = source(&files);
    let tree = s.tree();
    // The fork copied the parent's lines 1–6 (its own lines 2–7) and went
    // on from there: its first line hangs under the parent's line 6.
    let fork_point = entry_at(&s, 0, 6);
    assert_eq!(tree.parent(entry_at(&s, 2, 1)), Some(fork_point));
    for line in 2..=7 {
        assert!(!tree.contains(entry_at(&s, 2, line)), "line {line}");
    }
    assert_eq!(tree.parent(entry_at(&s, 2, 8)), Some(entry_at(&s, 2, 1)));
    assert_eq!(
        tree.real_branch_points()
            .map(|b| b.entry)
            .collect::<Vec<_>>(),
        [fork_point]
    );
    assert_eq!(
        tree.tips(),
        [entry_at(&s, 0, 16), entry_at(&s, 1, 6), entry_at(&s, 2, 12)]
    );
    assert_eq!(tree.default_leaf(), Some(entry_at(&s, 0, 16)));
    let copied: Vec<_> = s
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::CopiedHistory)
        .collect();
    assert_eq!(copied.len(), 1);
    assert_eq!((copied[0].file.0, copied[0].line), (2, 2));
    assert!(!s
        .diagnostics()
        .iter()
        .any(|d| d.kind == DiagnosticKind::TimestampOutOfOrder));

    // The sub-agent is listed with the spawn_agent output that names it.
    let agents = s.subagents();
    assert_eq!(agents.len(), 1);
    assert_eq!(agents[0].file.0, 1);
    assert_eq!(agents[0].agent_id, "0199b000-0000-7000-8000-00000000000b");
    assert_eq!(agents[0].spawned_by, Some(entry_at(&s, 0, 11)));

    // The copy is counted once: parent 8 messages, sub-agent 2, fork 2.
    let check = s.check(&mut src[..]).unwrap();
    assert_eq!(check.messages, 12);
    assert_eq!((check.tool_calls, check.tool_results), (2, 2));
    let model = &check.models["gpt-5.2-codex"];
    assert_eq!(model.messages, 6);
    assert_eq!(
        (
            model.usage.input,
            model.usage.cache_read,
            model.usage.output
        ),
        (410, 570, 117)
    );

    // The fork's branch reads through the parent's history.
    let context = s.context(entry_at(&s, 2, 12), &mut src[..]).unwrap();
    let texts: Vec<String> = context.iter().map(|m| m.text()).collect();
    assert_eq!(texts.len(), 4);
    assert_eq!(texts[0], "write a haiku about rain");
    assert_eq!(texts[2], "make it rhyme");
    assert_eq!(context[0].lines, [3]);
    assert_eq!(context[2].lines, [9]);
}

const CHAIN_A: &str =
    "codex/fork-chain/rollout-2026-03-01T10-00-00-0199d100-0000-7000-8000-00000000000a.jsonl";
const CHAIN_B: &str =
    "codex/fork-chain/rollout-2026-03-01T11-00-00-0199d100-0000-7000-8000-00000000000b.jsonl";
const CHAIN_C: &str =
    "codex/fork-chain/rollout-2026-03-01T12-00-00-0199d100-0000-7000-8000-00000000000c.jsonl";

/// The typed prompts on the branch to `leaf`.
fn prompts(s: &Session, leaf: EntryId, src: &mut [&[u8]]) -> Vec<String> {
    s.context(leaf, src)
        .unwrap()
        .iter()
        .filter(|m| m.role == Role::User && m.kind == MessageKind::Normal)
        .map(|m| m.text())
        .collect()
}

#[test]
fn a_fork_from_an_earlier_turn_keeps_its_own_turn() {
    // B copied A's first turn (with new timestamps) and went on with a turn
    // whose lines have the same kinds and lengths as A's second turn.
    let (s, files) = open_fixtures(&[CHAIN_A, CHAIN_B]);
    let mut src = source(&files);
    let tree = s.tree();
    let fork_point = entry_at(&s, 0, 8);
    assert_eq!(tree.parent(entry_at(&s, 1, 1)), Some(fork_point));
    for line in 2..=9 {
        assert!(!tree.contains(entry_at(&s, 1, line)), "line {line}");
    }
    for line in 10..=18 {
        assert!(tree.contains(entry_at(&s, 1, line)), "line {line}");
    }
    assert_eq!(tree.parent(entry_at(&s, 1, 10)), Some(entry_at(&s, 1, 1)));
    assert_eq!(
        tree.real_branch_points()
            .map(|b| b.entry)
            .collect::<Vec<_>>(),
        [fork_point]
    );
    assert_eq!(tree.tips(), [entry_at(&s, 0, 17), entry_at(&s, 1, 18)]);
    let copied: Vec<_> = s
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::CopiedHistory)
        .map(|d| (d.file.0, d.line, d.message.as_str()))
        .collect();
    assert_eq!(
        copied,
        [(
            1,
            2,
            "lines 2–9 copy the parent rollout (from its line 1); they are shown there"
        )]
    );

    assert_eq!(
        prompts(&s, entry_at(&s, 1, 18), &mut src),
        ["list the files", "count the files"]
    );
    assert_eq!(
        prompts(&s, entry_at(&s, 0, 17), &mut src),
        ["list the files", "count the lines"]
    );
    // A's two requests and B's own one.
    let check = s.check(&mut src[..]).unwrap();
    let usage = check.models["gpt-5.2-codex"].usage;
    assert_eq!(
        (usage.input, usage.cache_read, usage.output),
        (400, 200, 90)
    );
}

#[test]
fn a_fork_of_a_fork_shows_each_line_once_in_any_file_order() {
    // C copied all of B, B's own copy of A's first turn included.
    for order in [[CHAIN_A, CHAIN_B, CHAIN_C], [CHAIN_C, CHAIN_B, CHAIN_A]] {
        let (s, files) = open_fixtures(&order);
        let mut src = source(&files);
        let file = |name: &str| order.iter().position(|&o| o == name).unwrap() as u16;
        let (a, b, c) = (file(CHAIN_A), file(CHAIN_B), file(CHAIN_C));
        let tree = s.tree();
        assert_eq!(tree.parent(entry_at(&s, b, 1)), Some(entry_at(&s, a, 8)));
        assert_eq!(tree.parent(entry_at(&s, c, 1)), Some(entry_at(&s, b, 18)));
        for line in 2..=19 {
            assert!(!tree.contains(entry_at(&s, c, line)), "line {line}");
        }
        assert_eq!(tree.parent(entry_at(&s, c, 20)), Some(entry_at(&s, c, 1)));
        let leaf = entry_at(&s, c, 26);
        assert_eq!(tree.tips(), {
            let mut tips = [entry_at(&s, a, 17), leaf];
            tips.sort();
            tips
        });
        let mut copied: Vec<_> = s
            .diagnostics()
            .iter()
            .filter(|d| d.kind == DiagnosticKind::CopiedHistory)
            .map(|d| (d.file.0, d.message.as_str()))
            .collect();
        copied.sort();
        let mut want = [
            (
                b,
                "lines 2–9 copy the parent rollout (from its line 1); they are shown there",
            ),
            (
                c,
                "lines 2–19 copy the parent rollout (from its line 1); they are shown there",
            ),
        ];
        want.sort();
        assert_eq!(copied, want);

        // A's first turn once, then B's turn, then C's.
        assert_eq!(
            prompts(&s, leaf, &mut src),
            ["list the files", "count the files", "name the files"]
        );
        // Each response once: A's three (a call, then two answers), B's
        // two, C's one; and each request's usage once.
        let check = s.check(&mut src[..]).unwrap();
        let model = &check.models["gpt-5.2-codex"];
        assert_eq!(model.messages, 6);
        assert_eq!(
            (
                model.usage.input,
                model.usage.cache_read,
                model.usage.output
            ),
            (600, 500, 120)
        );
    }
}

#[test]
fn a_fork_from_the_parents_last_line_is_where_the_default_leaf_goes() {
    // F copied all of P (lines 2–16), added a turn, rolled back two turns
    // (its own and P's second) and added another.
    let (s, files) = open_fixtures(&[
        "codex/fork-end/rollout-2026-03-01T10-00-00-0199d200-0000-7000-8000-00000000000a.jsonl",
        "codex/fork-end/rollout-2026-03-01T11-00-00-0199d200-0000-7000-8000-00000000000b.jsonl",
    ]);
    let mut src = source(&files);
    let tree = s.tree();
    assert_eq!(tree.parent(entry_at(&s, 1, 1)), Some(entry_at(&s, 0, 15)));
    // The rollback goes to the end of P's first turn, through the copy.
    assert_eq!(tree.parent(entry_at(&s, 1, 24)), Some(entry_at(&s, 0, 8)));
    let leaf = entry_at(&s, 1, 31);
    assert_eq!(tree.tips(), [entry_at(&s, 1, 23), leaf]);
    assert_eq!(tree.default_leaf(), Some(leaf));
    assert_eq!(
        prompts(&s, leaf, &mut src),
        ["write a test", "make it pass"]
    );
}

#[test]
fn each_subagent_is_linked_to_the_spawn_output_that_names_it() {
    // Parallel spawn_agent calls (lines 6, 7) whose outputs (8, 9) came
    // back in the other order: each sub-agent goes to the output naming
    // it. S1's first lines were written after the wait_agent call (11); S2
    // names its parent only in `source.subagent.thread_spawn`.
    let (s, _) = open_fixtures(&[
        "codex/subagents/rollout-2026-03-02T11-00-00-0199e200-0000-7000-8000-00000000000a.jsonl",
        "codex/subagents/rollout-2026-03-02T11-01-00-0199e200-0000-7000-8000-0000000000b1.jsonl",
        "codex/subagents/rollout-2026-03-02T11-01-01-0199e200-0000-7000-8000-0000000000b2.jsonl",
    ]);
    let agents: Vec<_> = s
        .subagents()
        .iter()
        .map(|a| (a.file.0, a.agent_id.as_str(), a.spawned_by))
        .collect();
    assert_eq!(
        agents,
        [
            (
                1,
                "0199e200-0000-7000-8000-0000000000b1",
                Some(entry_at(&s, 0, 9))
            ),
            (
                2,
                "0199e200-0000-7000-8000-0000000000b2",
                Some(entry_at(&s, 0, 8))
            ),
        ]
    );
}

#[test]
fn fork_and_subagent_alone_are_whole_sessions() {
    let (s, files) = open_fixtures(&[FORK]);
    assert_eq!(s.tree().len(), 12);
    assert_eq!(s.tree().tips().len(), 1);
    let check = s.check(&mut source(&files)[..]).unwrap();
    assert_eq!(check.messages, 4);
    let (s, _) = open_fixtures(&[SUBAGENT]);
    assert_eq!(s.format(), Format::Codex);
    // Still a sub-agent's rollout, spawned by nothing that was read.
    assert_eq!(s.subagents().len(), 1);
    assert_eq!(s.subagents()[0].spawned_by, None);
    assert_eq!(s.tree().tips().len(), 1);
}

#[test]
fn bare_layout_before_the_envelope() {
    let (s, files) = open_fixtures(&["codex/bare-2025-08.jsonl"]);
    let mut src = source(&files);
    assert_eq!(s.format(), Format::Codex);
    assert_eq!(s.entries().len(), 14);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    let check = s.check(&mut src[..]).unwrap();
    // 2 user messages (one injected), 3 responses, 2 tool outputs.
    assert_eq!(check.messages, 7);
    assert_eq!(
        (check.tool_calls, check.tool_results, check.tool_errors),
        (2, 2, 1)
    );
    let context = s
        .context(s.tree().default_leaf().unwrap(), &mut src[..])
        .unwrap();
    assert_eq!(context[0].kind, MessageKind::Meta);
    assert_eq!(
        context[2].tool_calls().collect::<Vec<_>>(),
        [("call_a", "local_shell")]
    );
    assert_eq!(
        context[3].tool_results().collect::<Vec<_>>(),
        [("call_a", false)]
    );
    assert_eq!(
        context[6].text(),
        "A Rust crate: Cargo.toml and src/ (no Cargo.lock yet)."
    );
}

#[test]
fn reasoning_keeps_its_openai_item_for_the_responses_api() {
    // Line 6: `{"type":"reasoning","id":"rs_6893",…,"encrypted_content":"gAAAAABok5"}`.
    let (s, files) = open_fixtures(&["codex/bare-2025-08.jsonl"]);
    let leaf = s.tree().default_leaf().unwrap();
    let payloads = ContextOptions { payloads: true };
    let context = s
        .context_with(leaf, &mut source(&files)[..], payloads)
        .unwrap();
    let (m, i) = context
        .iter()
        .find_map(|m| {
            let i = m
                .content
                .iter()
                .position(|p| matches!(p, Part::Thinking { .. }))?;
            Some((m, i))
        })
        .unwrap();
    assert_eq!(m.lines[0], 6);
    assert_eq!(
        m.part_extra(i),
        Some(&PartExtra {
            api: Some(Api::OpenAiResponses),
            item_id: Some("rs_6893".into()),
            signature: Some("gAAAAABok5".into()),
            ..PartExtra::default()
        })
    );
    // Views do not carry the blob.
    let context = s.context(leaf, &mut source(&files)[..]).unwrap();
    let m = context
        .iter()
        .find(|m| m.lines.first() == Some(&6))
        .unwrap();
    assert_eq!(m.part_extra(i).unwrap().signature, None);

    // Back to Responses: the same item, and nothing about thinking lost.
    let context = s
        .context_with(leaf, &mut source(&files)[..], payloads)
        .unwrap();
    let migration = migrate(&context, Api::OpenAiResponses);
    let reasoning: Vec<_> = migration.body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["type"] == "reasoning")
        .collect();
    assert_eq!(
        reasoning,
        [&serde_json::json!({
            "type": "reasoning",
            "id": "rs_6893",
            "summary": [{"type": "summary_text", "text": "**Listing the directory**"}],
            "encrypted_content": "gAAAAABok5",
        })]
    );
    assert!(migration
        .report
        .changes
        .iter()
        .all(|c| !c.code.contains("thinking")));
}

#[test]
fn a_rollback_drops_user_turns_of_any_version() {
    // Two 0.58 turns (lines 2–10, 11–18: no task events), resumed by
    // 0.142: a task turn (19–26), a rollback of two (27), a turn.
    let (s, files) = open_fixtures(&["codex/rollback-resumed.jsonl"]);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    let tree = s.tree();
    assert_eq!(tree.parent(EntryId(26)), Some(EntryId(9)));
    assert_eq!(tree.parent(EntryId(10)), Some(EntryId(9)));
    let leaf = tree.default_leaf().unwrap();
    assert_eq!(tree.tips(), [EntryId(25), leaf]);
    assert_eq!(
        prompts(&s, leaf, &mut source(&files)),
        ["add a README", "add a contributing guide"]
    );
}

#[test]
fn a_rollback_after_a_compaction_drops_the_last_prompt_with_it() {
    // Two turns (lines 2–9, 10–17), a `/compact` task without a prompt
    // (18–21), a rollback of one (22): the compaction belongs to the
    // second turn and goes with it.
    let (s, files) = open_fixtures(&["codex/rollback-compact.jsonl"]);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    let tree = s.tree();
    assert_eq!(tree.parent(EntryId(21)), Some(EntryId(8)));
    let leaf = tree.default_leaf().unwrap();
    assert_eq!(tree.tips(), [EntryId(20), leaf]);
    let mut src = source(&files);
    let context = s.context(leaf, &mut src[..]).unwrap();
    assert!(context
        .iter()
        .all(|m| m.kind != MessageKind::CompactionSummary));
    assert_eq!(
        prompts(&s, leaf, &mut src),
        ["add a README", "add a changelog"]
    );
}

#[test]
fn rollbacks_that_do_not_fit_are_reported() {
    let meta = r#"{"timestamp":"2026-03-01T09:00:00.000Z","type":"session_meta","payload":{"id":"t","timestamp":"2026-03-01T09:00:00.000Z","cwd":"/x","originator":"codex_cli_rs","cli_version":"0.142.0","source":"cli"}}"#;
    let turn = |n: u32| {
        format!(
            "{{\"timestamp\":\"2026-03-01T09:0{n}:00.000Z\",\"type\":\"response_item\",\"payload\":{{\"type\":\"message\",\"role\":\"user\",\"content\":[{{\"type\":\"input_text\",\"text\":\"turn {n}\"}}]}}}}\n{{\"timestamp\":\"2026-03-01T09:0{n}:00.000Z\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"user_message\",\"message\":\"turn {n}\"}}}}\n"
        )
    };
    let rollback = |n: &str| {
        format!("{{\"timestamp\":\"2026-03-01T09:09:00.000Z\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"thread_rolled_back\"{n}}}}}\n")
    };
    // Two turns (lines 2–3, 4–5), then a rollback of five.
    let text = format!(
        "{meta}\n{}{}{}",
        turn(1),
        turn(2),
        rollback(",\"num_turns\":5")
    );
    let s = Session::from_bytes("r.jsonl", text.as_bytes());
    let d: Vec<_> = s
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::BadField)
        .collect();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].line, 6);
    assert_eq!(
        d[0].message,
        "rolls back 5 turns but the branch has 2; all of them rolled back"
    );
    // Everything was dropped: the rollback hangs under the meta line.
    assert_eq!(s.tree().parent(EntryId(5)), Some(EntryId(0)));
    assert_eq!(s.tree().tips(), [EntryId(4), EntryId(5)]);

    // Without a number nothing is rolled back.
    let text = format!("{meta}\n{}{}", turn(1), rollback(""));
    let s = Session::from_bytes("r.jsonl", text.as_bytes());
    assert!(s
        .diagnostics()
        .iter()
        .any(|d| d.kind == DiagnosticKind::BadField && d.line == 4));
    assert_eq!(s.tree().parent(EntryId(3)), Some(EntryId(2)));
    assert!(s.tree().branch_points().is_empty());
}

/// Codex's undo snapshot (a `ghost_snapshot` response item, first 14 lines
/// of the corpus rollout) is a checkpoint marker: the commit, the one it
/// was taken on, and the paths untracked before it, directories with a
/// trailing `/`. Its row (with the prompt's UI copy and the turn's
/// settings written before it) is marked for the timeline.
#[test]
fn a_ghost_snapshot_is_a_checkpoint() {
    use retrace_core::Marks;
    let (s, bytes) = open_clean_fixture("codex/ghost-snapshot/rollout.jsonl");
    let mut src = [&bytes[..]];
    let leaf = s.tree().default_leaf().unwrap();
    let rows = s.rows(leaf);
    let marked: Vec<&retrace_core::Row> = rows
        .iter()
        .filter(|r| r.marks.has(Marks::CHECKPOINT))
        .collect();
    assert_eq!(marked.len(), 1);
    let lines: Vec<u32> = marked[0].entries.iter().map(|&e| s.entry(e).line).collect();
    assert_eq!(lines, [4, 5, 6]);
    let m = s.row_message(marked[0], &mut src[..]).unwrap().unwrap();
    assert_eq!((m.role, m.kind), (Role::System, MessageKind::Marker));
    assert_eq!(m.lines, [6]);
    let Part::Checkpoint {
        commit,
        parent,
        tag,
        tool,
        files,
        untracked,
    } = &m.content[0]
    else {
        panic!("{:?}", m.content)
    };
    assert_eq!(commit, "a01966ef5b7bfb4af9f1a34be1a3c85da2bb0c13");
    assert_eq!(
        parent.as_deref(),
        Some("0f022a043b3f8ca67224e1c56d5b85e28a81b910")
    );
    assert_eq!((tag, tool), (&None, &None));
    assert!(files.is_empty());
    // 12 files, then 4 directories.
    assert_eq!(untracked.len(), 16);
    assert_eq!(untracked[1], "LM Studio configuration.md");
    assert_eq!(
        untracked[12..],
        [
            ".next/",
            "node_modules/",
            "supabase/.branches/",
            "supabase/.temp/"
        ]
    );
    // In the context it sits between the prompt and the response, and a
    // migration leaves it out.
    let context = s.context(leaf, &mut src[..]).unwrap();
    let at = context.iter().position(|m| m.lines == [6]).unwrap();
    assert_eq!(context[at - 1].role, Role::User);
    assert_eq!(context[at + 1].role, Role::Assistant);
    let migrated = migrate(&context, Api::OpenAiResponses);
    assert!(!migrated.body.to_string().contains("a01966e"));
}
