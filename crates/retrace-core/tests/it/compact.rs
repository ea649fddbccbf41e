//! Compaction on the corpus's pi files and the generated pi sessions: at
//! several budgets, three times in a row, read back, every call still with
//! its result, and what a resumed agent would send taken by every API.

use std::collections::HashSet;

use retrace_core::{
    compact, compaction_plan, Budget, CutRule, EditError, Format, Message, MessageKind, Part,
    Session, Stamp,
};

use crate::api_rules::validate_branch;
use crate::common::{generated, read};

const FILES: &[&str] = &[
    "pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl",
    "pi/badlogic__pi-mono/packages/coding-agent/test/fixtures/large-session.jsonl",
    "pi/badlogic__pi-mono/compact.jsonl",
    "pi/badlogic__pi-mono/session.jsonl",
    "pi/kenn-io__agentsview/internal/parser/testdata/pi/session.jsonl",
];

/// Calls without a later result and results without an earlier call.
fn orphans(context: &[Message]) -> HashSet<String> {
    let mut calls = HashSet::new();
    let mut answered = HashSet::new();
    let mut out = HashSet::new();
    for m in context {
        for part in &m.content {
            match part {
                Part::ToolCall { id, .. } => {
                    calls.insert(id.clone());
                }
                Part::ToolResult { call_id, .. } if calls.contains(call_id) => {
                    answered.insert(call_id.clone());
                }
                Part::ToolResult { call_id, .. } => {
                    out.insert(format!("result {call_id}"));
                }
                _ => {}
            }
        }
    }
    out.extend(calls.difference(&answered).map(|c| format!("call {c}")));
    out
}

#[test]
fn corpus_pi_files_compact_three_times_with_every_pair_kept() {
    let mut compacted = 0;
    let files = FILES
        .iter()
        .map(|f| (f.to_string(), read(f)))
        .chain(generated().into_iter().filter(|(n, _)| n.contains("/pi-")));
    for (file, original) in files {
        let file = file.as_str();
        for budget in [
            Budget::Messages(2),
            Budget::Messages(20),
            Budget::Tokens(1_000),
            Budget::Tokens(20_000),
        ] {
            let mut bytes = original.clone();
            for round in 0..3 {
                let session = Session::from_bytes(file, &bytes);
                let mut source = vec![bytes.clone()];
                let leaf = session.tree().default_leaf().unwrap();
                let before = session.context(leaf, &mut source).unwrap();
                let plan = match compaction_plan(&session, &mut source, leaf, budget) {
                    Ok(plan) => plan,
                    Err(EditError::Unsupported { .. }) => {
                        assert_eq!(session.format(), Format::Pi { version: 1 }, "{file}");
                        break;
                    }
                    Err(e) => panic!("{file} {budget:?} round {round}: {e}"),
                };
                assert_ne!(plan.rule, CutRule::LastNonTool, "{file}");
                let id = format!("c0mp{round:04}");
                let mut new_id = || id.clone();
                let mut stamp = Stamp {
                    time_ms: 1_767_225_600_000 + round,
                    new_id: &mut new_id,
                };
                let summary = format!("summary {round}");
                let edited = compact(&session, &mut source, &plan, &summary, &mut stamp).unwrap();
                bytes.extend_from_slice(&edited.bytes);
                compacted += 1;

                let after = Session::from_bytes(file, &bytes);
                let mut source = vec![bytes.clone()];
                let new_leaf = after.tree().default_leaf().unwrap();
                assert_eq!(after.id(new_leaf), Some(id.as_str()), "{file}");
                let context = after.context(new_leaf, &mut source).unwrap();
                assert_eq!(context[0].kind, MessageKind::CompactionSummary);
                assert_eq!(context.len() - 1, plan.kept_messages, "{file} {budget:?}");
                assert_eq!(context[1].entries[0], plan.cut_id);
                // No pair the file had is broken (some files hold orphans
                // of their own).
                let new: Vec<_> = orphans(&context)
                    .difference(&orphans(&before))
                    .cloned()
                    .collect();
                assert!(new.is_empty(), "{file} {budget:?} round {round}: {new:?}");
                let taken = validate_branch(
                    &after,
                    &mut source,
                    new_leaf,
                    &format!("{file} {budget:?} round {round}"),
                );
                assert_eq!(taken, retrace_core::Api::ALL.len(), "{file}");
            }
        }
    }
    // Two v3 corpus files (three are v1, which pi cannot compact) and two
    // generated ones, at 4 budgets, 3 rounds each.
    assert_eq!(compacted, 48);
}

/// Every Codex rollout of the corpus and of the fixtures (rollbacks, a
/// compaction rolled back, the bare 2025-08 layout), compacted at two
/// budgets (once: a second compaction needs a line after the first).
#[test]
fn corpus_codex_rollouts_compact_with_every_pair_kept() {
    let mut compacted = 0;
    let fixtures = std::fs::read_dir(crate::common::fixtures().join("codex"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"));
    for path in crate::common::corpus_files().into_iter().chain(fixtures) {
        if !path.to_string_lossy().contains("/codex/") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let name = path.to_string_lossy().into_owned();
        let session = Session::from_bytes(&name, &bytes);
        if session.format() != Format::Codex {
            continue;
        }
        let Some(leaf) = session.tree().default_leaf() else {
            continue;
        };
        let mut source = vec![bytes.clone()];
        let before = session.context(leaf, &mut source).unwrap();
        for budget in [Budget::Messages(4), Budget::Tokens(5_000)] {
            let plan = match compaction_plan(&session, &mut source, leaf, budget) {
                Ok(plan) => plan,
                Err(EditError::Invalid(_)) => continue,
                Err(e) => panic!("{name}: {e}"),
            };
            if plan.rule == CutRule::LastNonTool {
                continue;
            }
            let mut stamp = Stamp {
                time_ms: 1_767_225_600_000,
                new_id: &mut String::new,
            };
            let edited = match compact(&session, &mut source, &plan, "summary", &mut stamp) {
                Ok(edited) => edited,
                // Compacted only after its last line.
                Err(EditError::Invalid(_)) => continue,
                Err(e) => panic!("{name}: {e}"),
            };
            let mut out = bytes.clone();
            out.extend_from_slice(&edited.bytes);
            let after = Session::from_bytes(&name, &out);
            let mut out_source = vec![out.clone()];
            let new_leaf = after.tree().default_leaf().unwrap();
            assert_eq!(after.kind(new_leaf), "compacted", "{name}");
            let context = after.context(new_leaf, &mut out_source).unwrap();
            let new: Vec<_> = orphans(&context)
                .difference(&orphans(&before))
                .cloned()
                .collect();
            assert!(new.is_empty(), "{name} {budget:?}: {new:?}");
            let summaries = context
                .iter()
                .filter(|m| {
                    m.content
                        == [Part::Text {
                            text: "summary".into(),
                        }]
                })
                .count();
            assert_eq!(summaries, 1, "{name}");
            let taken = validate_branch(
                &after,
                &mut out_source,
                new_leaf,
                &format!("{name} {budget:?}"),
            );
            assert_eq!(taken, retrace_core::Api::ALL.len(), "{name}");
            compacted += 1;
        }
    }
    // The corpus's one rollout and the fixtures' (some compact only once).
    assert!(compacted >= 8, "{compacted}");
}
