//! Compaction on the corpus's pi, Claude Code and Codex files, the
//! generated pi sessions and the event-stream fixtures: at several
//! budgets, three times in a row, read back, every call still with its
//! result, and what a resumed agent would send taken by every API.

use std::collections::HashSet;

use retrace_core::migrate::migrate;
use retrace_core::{
    compact, compaction_plan, Api, Budget, ContextOptions, CutRule, EditError, EventType, Format,
    Message, MessageKind, Part, Reader, Session, Stamp,
};

use crate::api_rules::{validate, validate_branch};
use crate::common::{fixture, generated, read};

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
                    Err(EditError::Invalid(e)) if e.starts_with("pi v1 sessions") => {
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

/// The budgets the Claude Code and event-stream files are compacted at.
const BUDGETS: [Budget; 4] = [
    Budget::Messages(2),
    Budget::Messages(20),
    Budget::Tokens(1_000),
    Budget::Tokens(20_000),
];

/// The context of the branch ending at `leaf`, migrated to every API and
/// held to what each accepts.
fn every_api_takes(
    session: &Session,
    source: &mut Vec<&[u8]>,
    leaf: retrace_core::EntryId,
    what: &str,
) {
    let messages = session
        .context_with(leaf, source, ContextOptions { payloads: true })
        .unwrap();
    for api in Api::ALL {
        validate(
            api,
            &migrate(&messages, api).body,
            &format!("{what} → {api:?}"),
        );
    }
}

/// Every Claude Code file of the corpus (subagent files too), compacted
/// at four budgets, three times in a row: read back, the default branch
/// is the summary then exactly the tail the plan kept; no call loses its
/// result nor a result its call, and a branch every API took before
/// compaction every API takes after it. Claude Code keeps no system
/// prompt in its files.
#[test]
fn corpus_claude_code_files_compact_three_times_with_every_pair_kept() {
    let mut compacted = 0;
    let mut files = 0;
    let mut validated = 0;
    for path in crate::common::corpus_files() {
        if !path.to_string_lossy().contains("/claude-code/") {
            continue;
        }
        let original = std::fs::read(&path).unwrap();
        let name = path.to_string_lossy().into_owned();
        let session = Session::from_bytes(&name, &original);
        if session.format() != Format::ClaudeCode || session.tree().default_leaf().is_none() {
            continue;
        }
        files += 1;
        for budget in BUDGETS {
            let mut bytes = original.clone();
            for round in 0..3 {
                let session = Session::from_bytes(&name, &bytes);
                let mut source = vec![&bytes[..]];
                let leaf = session.tree().default_leaf().unwrap();
                let before = session.context(leaf, &mut source).unwrap();
                let plan = match compaction_plan(&session, &mut source, leaf, budget) {
                    Ok(plan) => plan,
                    // A file whose lines have no uuids, or nothing left to
                    // keep after its last compaction.
                    Err(EditError::Invalid(e)) => {
                        assert!(
                            e.contains("no uuid") || e.contains("no message after"),
                            "{name}: {e}"
                        );
                        break;
                    }
                    Err(e) => panic!("{name} {budget:?} round {round}: {e}"),
                };
                assert_ne!(plan.rule, CutRule::LastNonTool, "{name}");
                assert!(plan.system_kept, "{name}");
                let ids = [format!("c0mp-b{round}"), format!("c0mp-s{round}")];
                let mut next = ids.clone().into_iter();
                let mut new_id = || next.next().unwrap();
                let mut stamp = Stamp {
                    time_ms: 1_767_225_600_000 + round,
                    new_id: &mut new_id,
                };
                let summary = format!("summary {round}");
                let edited = compact(&session, &mut source, &plan, &summary, &mut stamp)
                    .unwrap_or_else(|e| panic!("{name} {budget:?} round {round}: {e}"));
                let mut out = bytes.clone();
                out.extend_from_slice(&edited.bytes);
                compacted += 1;

                let after = Session::from_bytes(&name, &out);
                let mut out_source = vec![&out[..]];
                let new_leaf = after.tree().default_leaf().unwrap();
                assert_eq!(after.id(new_leaf), Some(ids[1].as_str()), "{name}");
                let context = after.context(new_leaf, &mut out_source).unwrap();
                assert_eq!(context[0].kind, MessageKind::CompactionSummary);
                assert_eq!(context[0].text(), summary);
                let tail = &before[before.len() - plan.kept_messages..];
                assert_eq!(&context[1..], tail, "{name} {budget:?} round {round}");
                assert_eq!(context[1].entries[0], plan.cut_id, "{name}");
                let new: Vec<_> = orphans(&context)
                    .difference(&orphans(&before))
                    .cloned()
                    .collect();
                assert!(new.is_empty(), "{name} {budget:?} round {round}: {new:?}");
                if orphans(&before).is_empty() {
                    let what = format!("{name} {budget:?} round {round}");
                    every_api_takes(&after, &mut out_source, new_leaf, &what);
                    validated += 1;
                }
                bytes = out;
            }
        }
    }
    // 29 files, subagent files included; some run out of anything to
    // keep after a compaction. (Every branch compacted here was one every
    // API took.)
    assert!(files >= 29, "{files}");
    assert!(compacted >= 288, "{compacted}");
    assert!(validated >= 288, "{validated}");
}

/// A session of the given files, read in that order.
fn session_of(files: &[(String, Vec<u8>)]) -> Session {
    let mut reader = Reader::new();
    for (name, bytes) in files {
        reader.begin_file(name);
        reader.push(bytes);
    }
    reader.finish()
}

/// The number the store gives the event on `line` of file `file`: its
/// place among the lines of the stream's files, in order, whose
/// `event_type` is one of the record's (counted here from the bytes).
fn store_seq(files: &[(String, Vec<u8>)], file: usize, line: u32) -> u64 {
    let mut seq = 0;
    for (f, (_, bytes)) in files.iter().enumerate() {
        for (l, text) in bytes.split(|&b| b == b'\n').enumerate() {
            if (f, l as u32 + 1) == (file, line) {
                return seq;
            }
            let value: Option<serde_json::Value> = serde_json::from_slice(text).ok();
            let kind = value.as_ref().and_then(|v| v["event_type"].as_str());
            seq += u64::from(kind.is_some_and(|k| EventType::parse(k).is_some()));
        }
    }
    panic!("no line {line} in file {file}")
}

/// The event-stream fixtures (one file, a split set, one already
/// compacted twice), compacted at four budgets three times in a row: read
/// back, the summary then exactly the kept tail, the first kept event
/// named by the number the store gives it, every call with its result and
/// every API taking the branch.
#[test]
fn event_fixtures_compact_three_times_by_event_number() {
    let sets: &[&[&str]] = &[
        &["events/events.jsonl"],
        &["events/checkpoints/events.jsonl"],
        &[
            "events/split/events.jsonl",
            "events/split/events_1.jsonl",
            "events/split/events_2.jsonl",
            "events/split/events_3.jsonl",
            "events/split/events_4.jsonl",
            "events/split/events_5.jsonl",
            "events/split/events_6.jsonl",
            "events/split/events_7.jsonl",
            "events/split/events_8.jsonl",
            "events/split/events_9.jsonl",
            "events/split/events_10.jsonl",
        ],
        &[
            "events/compaction/events.jsonl",
            "events/compaction/events_1.jsonl",
        ],
    ];
    let mut compacted = 0;
    for set in sets {
        let original: Vec<(String, Vec<u8>)> = set
            .iter()
            .map(|rel| (rel.to_string(), fixture(rel)))
            .collect();
        for budget in BUDGETS {
            let mut files = original.clone();
            for round in 0..3 {
                let session = session_of(&files);
                assert_eq!(session.format(), Format::Events);
                let mut source: Vec<&[u8]> = files.iter().map(|(_, b)| &b[..]).collect();
                let leaf = session.tree().default_leaf().unwrap();
                let before = session.context(leaf, &mut source).unwrap();
                let what = format!("{set:?} {budget:?} round {round}");
                let plan = compaction_plan(&session, &mut source, leaf, budget)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(plan.split.is_empty() && plan.system_kept, "{what}");
                let summary = format!("summary {round}");
                // After every event of the fixtures.
                let mut stamp = Stamp {
                    time_ms: 1_900_000_000_000 + round,
                    new_id: &mut String::new,
                };
                let edited = compact(&session, &mut source, &plan, &summary, &mut stamp).unwrap();
                let line: serde_json::Value = serde_json::from_slice(&edited.bytes).unwrap();
                let cut = session.entry(plan.cut);
                assert_eq!(
                    line["data"]["first_kept_event"],
                    store_seq(&files, cut.file.0 as usize, cut.line),
                    "{what}"
                );
                // Appended to the stream's last part.
                let last = session.entry(leaf).file.0 as usize;
                assert_eq!(last, files.len() - 1, "{what}");
                files[last].1.extend_from_slice(&edited.bytes);
                compacted += 1;

                let after = session_of(&files);
                assert!(
                    after.diagnostics().is_empty(),
                    "{what}: {:?}",
                    after.diagnostics()
                );
                let mut source: Vec<&[u8]> = files.iter().map(|(_, b)| &b[..]).collect();
                let new_leaf = after.tree().default_leaf().unwrap();
                assert_eq!(after.kind(new_leaf), "compaction", "{what}");
                let context = after.context(new_leaf, &mut source).unwrap();
                assert_eq!(context[0].kind, MessageKind::CompactionSummary);
                assert_eq!(context[0].text(), summary);
                let tail = &before[before.len() - plan.kept_messages..];
                assert_eq!(&context[1..], tail, "{what}");
                assert!(orphans(&context).is_empty(), "{what}");
                every_api_takes(&after, &mut source, new_leaf, &what);
            }
        }
    }
    assert_eq!(compacted, 4 * 4 * 3);
}
