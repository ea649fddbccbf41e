//! Event streams (`events.jsonl`) and split sets, on the hand-written
//! fixtures in `tests/fixtures/events` (no public sample exists).

use crate::common::*;
use retrace_core::{DiagnosticKind, EntryId, Format, MessageKind, Part, Role};

#[test]
fn one_stream() {
    let (s, files) = open_fixtures(&["events/events.jsonl"]);
    let mut src = source(&files);
    assert_eq!(s.format(), Format::Events);
    assert_eq!(s.entries().len(), 9);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    assert_eq!(s.tree().tips(), [EntryId(8)]);
    assert!(s.is_prompt(EntryId(0)));

    let check = s.check(&mut src[..]).unwrap();
    // user_input 1, two llm_calls of prompt + response 4, two tool_calls of
    // call + result 4, final_output 1; three state transitions are markers.
    assert_eq!(check.messages, 10);
    assert_eq!(check.markers, 3);
    assert_eq!(
        (check.tool_calls, check.tool_results, check.tool_errors),
        (2, 2, 1)
    );
    assert_eq!(check.pairing.calls_without_result, 0);
    let model = &check.models["gpt-4o-mini"];
    assert_eq!(model.messages, 2);
    assert_eq!((model.usage.input, model.usage.output), (52 + 30, 9 + 11));

    let context = s.context(EntryId(8), &mut src[..]).unwrap();
    assert_eq!(context.len(), 13);
    assert_eq!(context[0].text(), "What is the weather in Paris?");
    assert_eq!(context[1].kind, MessageKind::Marker);
    assert_eq!(
        context[1].text(),
        "start → planner\nquery: What is the weather in Paris?"
    );
    assert_eq!(context[2].kind, MessageKind::Meta);
    assert!(context[2].text().starts_with("[system] You are a weather"));
    assert_eq!(context[3].role, Role::Assistant);
    assert_eq!(context[3].usage.unwrap().input, 52);
    assert_eq!(
        context[8].content,
        [Part::ToolResult {
            call_id: "tool@L6".into(),
            output: "rate limited (429)".into(),
            is_error: true
        }]
    );
    assert_eq!(context[12].text(), "It is 18°C and cloudy in Paris.");
}

/// The files in the order a plain name sort gives: `events_10` before
/// `events_2`.
fn split_files(dir: &str, numbers: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = numbers
        .iter()
        .map(|n| match *n {
            "" => format!("{dir}/events.jsonl"),
            n => format!("{dir}/events_{n}.jsonl"),
        })
        .collect();
    names.sort();
    names
}

#[test]
fn split_set_reads_as_one_stream_in_numeric_order() {
    let numbers = ["", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10"];
    let names = split_files("events/split", &numbers);
    assert!(names[2].ends_with("events_10.jsonl"));
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let (s, files) = open_fixtures(&refs);
    let mut src = source(&files);
    assert_eq!(s.format(), Format::Events);
    assert_eq!(s.entries().len(), 13);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    // One chain: one root, one tip, the final output in events_10.
    assert_eq!(s.tree().roots().len(), 1);
    assert_eq!(s.tree().tips().len(), 1);
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!(s.tree().tips(), [leaf]);
    assert_eq!(s.kind(leaf), "final_output");
    let context = s.context(leaf, &mut src[..]).unwrap();
    let said: Vec<String> = context
        .iter()
        .filter(|m| m.role == Role::Tool)
        .map(|m| match &m.content[0] {
            Part::ToolResult { output, .. } => output.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(said, ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
    assert_eq!(context.last().unwrap().text(), "1 2 3 4 5 6 7 8 9 10");
    let check = s.check(&mut src[..]).unwrap();
    assert_eq!((check.tool_calls, check.tool_results), (10, 10));
    assert_eq!(check.messages, 1 + 20 + 1);
    // Epoch-second timestamps with fractions.
    assert_eq!(context[0].timestamp, Some(1_770_732_000_000));
    assert_eq!(s.entry(leaf).timestamp(), Some(1_770_732_011_000));
}

#[test]
fn split_set_with_a_gap_is_reported() {
    let names = split_files("events/gap", &["", "1", "3"]);
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let (s, _) = open_fixtures(&refs);
    let gaps: Vec<_> = s
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::SplitGap)
        .collect();
    assert_eq!(gaps.len(), 1);
    let gap = gaps[0];
    assert_eq!(
        s.files()[gap.file.0 as usize].name,
        "events/gap/events_3.jsonl"
    );
    assert_eq!((gap.line, gap.offset), (1, 0));
    assert_eq!(
        gap.message,
        "split set goes from events_1.jsonl to events_3.jsonl without events_2; the stream continues here"
    );
    // Still one stream.
    assert_eq!(s.tree().tips().len(), 1);
    assert_eq!(s.tree().roots().len(), 1);
}

/// Reads `(name, text)` files as one session of event streams (named, as
/// `--format events` does, so empty files are parts too).
fn open_events(files: &[(&str, &str)]) -> retrace_core::Session {
    let mut reader = retrace_core::Reader::with_options(retrace_core::ReaderOptions {
        format: Some(Format::Events),
        ..Default::default()
    });
    for (name, text) in files {
        reader.begin_file(name);
        reader.push(text.as_bytes());
    }
    reader.finish()
}

fn gaps(s: &retrace_core::Session) -> Vec<(&str, &str)> {
    s.diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::SplitGap)
        .map(|d| {
            (
                s.files()[d.file.0 as usize].name.as_str(),
                d.message.as_str(),
            )
        })
        .collect()
}

const EVENT: &str =
    r#"{"event_type":"user_input","timestamp":"2026-02-10T14:00:00.000Z","data":{"message":"hi"}}"#;

/// Empty parts are parts: a gap after one is reported on the part after it,
/// and a set of empty files reads as an empty session.
#[test]
fn empty_parts_of_a_split_set() {
    let s = open_events(&[("run/events.jsonl", ""), ("run/events_2.jsonl", "")]);
    assert!(s.entries().is_empty());
    assert_eq!(
        gaps(&s),
        [(
            "run/events_2.jsonl",
            "split set goes from events.jsonl to events_2.jsonl without events_1; the stream continues here"
        )]
    );
    let s = open_events(&[("run/events.jsonl", EVENT), ("run/events_2.jsonl", "")]);
    assert_eq!(gaps(&s).len(), 1);
    assert_eq!(gaps(&s)[0].0, "run/events_2.jsonl");
}

/// A set given from a later part on says which parts it starts without;
/// one part alone is no set and says nothing.
#[test]
fn split_set_without_its_first_parts_is_reported() {
    let s = open_events(&[("run/events_3.jsonl", EVENT), ("run/events_2.jsonl", EVENT)]);
    assert_eq!(
        gaps(&s),
        [(
            "run/events_2.jsonl",
            "split set starts at events_2.jsonl without events, events_1; the stream starts here"
        )]
    );
    assert_eq!(s.tree().roots().len(), 1);
    let s = open_events(&[("run/events_3.jsonl", EVENT)]);
    assert!(gaps(&s).is_empty());
}

/// A tool call's `error` marks it failed only when it says something
/// (frameworks write `""` or `null` beside a good output), and the output
/// written before the error is kept with it.
#[test]
fn tool_call_errors_that_say_something() {
    let text = [
        r#"{"event_type":"user_input","timestamp":"2026-02-10T14:00:00.000Z","data":{"message":"go"}}"#,
        r#"{"event_type":"tool_call","timestamp":"2026-02-10T14:00:01.000Z","data":{"tool_name":"a","parameters":{},"output":"partial result","error":"timeout after 30s"}}"#,
        r#"{"event_type":"tool_call","timestamp":"2026-02-10T14:00:02.000Z","data":{"tool_name":"b","parameters":{},"output":"ok","error":""}}"#,
        r#"{"event_type":"tool_call","timestamp":"2026-02-10T14:00:03.000Z","data":{"tool_name":"c","parameters":{},"output":"fine","error":{}}}"#,
    ]
    .join("\n");
    let s = open_events(&[("events.jsonl", &text)]);
    let flagged: Vec<bool> = s
        .entries()
        .iter()
        .map(|e| e.flags.has(retrace_core::Flags::ERROR))
        .collect();
    assert_eq!(flagged, [false, true, false, false]);
    let mut src = [text.as_bytes()];
    let leaf = s.tree().default_leaf().unwrap();
    let results: Vec<(String, bool)> = s
        .context(leaf, &mut src[..])
        .unwrap()
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|p| match p {
            Part::ToolResult {
                output, is_error, ..
            } => Some((output.clone(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [
            ("partial result\ntimeout after 30s".to_owned(), true),
            ("ok".to_owned(), false),
            ("fine".to_owned(), false),
        ]
    );
    let check = s.check(&mut src[..]).unwrap();
    assert_eq!(check.tool_errors, 1);
}

/// The store's checkpoints: each `checkpoint` event is a marker holding
/// the commit, its tag, the tool and the files with how they changed; its
/// row is marked for the timeline and the outline lists it.
#[test]
fn checkpoints_are_markers_with_their_files() {
    use retrace_core::{ChangeKind, FileChange, Marks};
    let (s, bytes) = open_clean_fixture("events/checkpoints/events.jsonl");
    let mut src = [&bytes[..]];
    let leaf = s.tree().default_leaf().unwrap();
    let context = s.context(leaf, &mut src[..]).unwrap();
    let checkpoints: Vec<&Part> = context
        .iter()
        .filter(|m| m.kind == MessageKind::Marker && m.role == Role::System)
        .flat_map(|m| &m.content)
        .collect();
    assert_eq!(
        checkpoints[0],
        &Part::Checkpoint {
            commit: "3f2a1c9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39".into(),
            parent: None,
            tag: Some("tool_write_file_20260210140001".into()),
            tool: Some("write_file".into()),
            files: vec![
                FileChange {
                    path: "src/main.rs".into(),
                    change: ChangeKind::Updated
                },
                FileChange {
                    path: "notes.md".into(),
                    change: ChangeKind::Created
                },
            ],
            untracked: vec![],
        }
    );
    assert_eq!(
        checkpoints[1].checkpoint_line().unwrap(),
        "checkpoint 9c8b7a6 tool_delete_file_20260210140002 — delete_file: old_notes.txt (deleted)"
    );
    assert_eq!(checkpoints.len(), 2);
    // Their rows are marked (lines 4 and 6), and read back as the markers.
    let rows = s.rows(leaf);
    let marked: Vec<u32> = rows
        .iter()
        .filter(|r| r.marks.has(Marks::CHECKPOINT))
        .map(|r| s.entry(r.entries[0]).line)
        .collect();
    assert_eq!(marked, [4, 6]);
    let row = rows
        .iter()
        .find(|r| r.marks.has(Marks::CHECKPOINT))
        .unwrap();
    let m = s.row_message(row, &mut src[..]).unwrap().unwrap();
    assert_eq!(m.kind, MessageKind::Marker);
    assert_eq!(&m.content[0], checkpoints[0]);
    let outline = s.outline();
    assert_eq!(outline.len(), 1);
    let lines: Vec<u32> = outline[0]
        .checkpoints
        .iter()
        .map(|&e| s.entry(e).line)
        .collect();
    assert_eq!(lines, [4, 6]);
    let check = s.check(&mut src[..]).unwrap();
    assert_eq!(check.markers, 2);
}

/// A checkpoint whose data does not read as one (no commit) is still shown,
/// as written.
#[test]
fn a_checkpoint_without_a_commit_is_shown_as_written() {
    let line = br#"{"event_type":"checkpoint","timestamp":"2026-02-10T14:00:01Z","data":{"tag":"t","files":"?"}}"#;
    let s = retrace_core::Session::from_bytes("events.jsonl", line);
    let leaf = s.tree().default_leaf().unwrap();
    let context = s.context(leaf, &mut [&line[..]][..]).unwrap();
    assert_eq!(context.len(), 1);
    assert_eq!(context[0].kind, MessageKind::Marker);
    assert_eq!(context[0].text(), r#"checkpoint: {"files":"?","tag":"t"}"#);
}

#[test]
fn a_compaction_event_cuts_the_context_to_its_summary_and_the_events_it_kept() {
    // Given in the other order: the parts are one stream in number order.
    let (s, files) = open_fixtures(&[
        "events/compaction/events_1.jsonl",
        "events/compaction/events.jsonl",
    ]);
    let mut src = source(&files);
    assert_eq!(s.format(), Format::Events);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    let leaf = s.tree().default_leaf().unwrap();
    let context = s.context(leaf, &mut src[..]).unwrap();
    let at = |m: &retrace_core::Message| m.entries[0].clone();
    // Labels name files in the order given: F1 is part 0, `events.jsonl`.
    // The second compaction (part 1, line 4) keeps from event 2, the
    // first tool call in part 0; the first compaction among the kept
    // events is not shown, its summary replaced.
    assert_eq!(context[0].kind, MessageKind::CompactionSummary);
    assert_eq!(
        context[0].text(),
        "Trains were found; the user picked the 10:00."
    );
    let rest: Vec<String> = context[1..].iter().map(at).collect();
    assert_eq!(
        rest,
        ["F1L3", "F1L3", "F1L5", "L1", "L2", "L2", "L3", "L5", "L6"]
    );
    assert!(context
        .iter()
        .all(|m| m.text() != "The user wants a trip to Lyon."));
    // Before the second compaction, the first one: its summary, event 2
    // on.
    let first_part_end = entry_at(&s, 1, 5);
    let context = s.context(first_part_end, &mut src[..]).unwrap();
    assert_eq!(context[0].text(), "The user wants a trip to Lyon.");
    let rest: Vec<String> = context[1..].iter().map(at).collect();
    assert_eq!(rest, ["F1L3", "F1L3", "F1L5"]);
    // A row marks each compaction.
    let rows = s.rows(leaf);
    assert_eq!(
        rows.iter()
            .filter(|r| r.marks.has(retrace_core::Marks::COMPACTION))
            .count(),
        2
    );
}

/// Found by the `store` fuzz target: a time with digits past the
/// microsecond was written back to the microsecond, so the event read again
/// was another (`tests/fixtures/fuzz/event-nanosecond-timestamp.jsonl`).
/// Written now to the nanosecond when it has them, and as before when not.
#[test]
fn an_event_keeps_its_time_to_the_nanosecond_through_serde() {
    let bytes = read_fixture("fuzz/event-nanosecond-timestamp.jsonl");
    let mut written = Vec::new();
    for line in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let event: retrace_core::Event = serde_json::from_slice(line).unwrap();
        let json = serde_json::to_value(&event).unwrap();
        let back: retrace_core::Event = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(back, event);
        written.push(json["timestamp"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        written,
        [
            "2026-03-05T09:00:00.444444444Z",
            "2026-03-05T09:00:01.200000Z"
        ]
    );
}
