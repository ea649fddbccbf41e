//! Gemini CLI sessions: the real legacy files of the corpus with counts
//! checked by hand (a Python pass over each file with `json.load`: message
//! types, tool calls and their results, statuses, `tokens.total` per
//! model), the JSONL form with rewrites, `$set` and `$rewindTo`, and
//! sessions split over files.

use crate::common::*;
use retrace_core::{BranchKind, EntryId, Format, MessageKind, Reader, Role, Session};

const ARCHIVES: &str = "gemini-cli/mischa-thisness__M-Gemini/Archives";

struct Expect {
    file: &'static str,
    entries: usize,
    messages: u64,
    tool_calls: u64,
    tool_results: u64,
    tool_errors: u64,
    /// `tokens.total` summed per model.
    tokens: &'static [(&'static str, u64)],
}

#[test]
fn every_corpus_file_is_gemini_with_hand_checked_counts() {
    let expected = [
        // 6 user + 14 gemini records, 9 of them with tool results.
        Expect {
            file: "session-2025-11-19T20-45-42f4bde7.json",
            entries: 20,
            messages: 29,
            tool_calls: 11,
            tool_results: 11,
            tool_errors: 0,
            tokens: &[
                ("gemini-2.5-flash", 126_350),
                ("gemini-3-pro-preview", 55_787),
            ],
        },
        // One `info` notice: not a message.
        Expect {
            file: "session-2025-12-03T04-04-ff205d73.json",
            entries: 1,
            messages: 0,
            tool_calls: 0,
            tool_results: 0,
            tool_errors: 0,
            tokens: &[],
        },
        // 4 user + 9 gemini (8 with results) + 4 info + 3 error; one call
        // cancelled.
        Expect {
            file: "session-2025-12-06T07-22-e0f194ce.json",
            entries: 20,
            messages: 21,
            tool_calls: 8,
            tool_results: 8,
            tool_errors: 1,
            tokens: &[("gemini-3-pro-preview", 100_386)],
        },
        // 5 user + 7 gemini (3 with results) + 4 error + 3 info; one call
        // failed, one cancelled.
        Expect {
            file: "session-2025-12-13T19-01-049d9bb6.json",
            entries: 19,
            messages: 15,
            tool_calls: 3,
            tool_results: 3,
            tool_errors: 2,
            tokens: &[
                ("gemini-2.5-flash", 70_894),
                ("gemini-3-pro-preview", 52_452),
            ],
        },
        // 1 user + 11 gemini, 10 with results; one call failed.
        Expect {
            file: "session-2026-01-10T01-38-1deca764.json",
            entries: 12,
            messages: 22,
            tool_calls: 10,
            tool_results: 10,
            tool_errors: 1,
            tokens: &[("gemini-3-pro-preview", 174_809)],
        },
        // 2 user + 4 gemini, 3 with results.
        Expect {
            file: "session-2026-01-10T01-46-1deca764.json",
            entries: 6,
            messages: 9,
            tool_calls: 3,
            tool_results: 3,
            tool_errors: 0,
            tokens: &[("gemini-3-flash-preview", 43_562)],
        },
    ];
    let dir = corpus().join(ARCHIVES);
    let mut seen: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    seen.sort();
    let mut listed: Vec<String> = expected.iter().map(|e| e.file.to_owned()).collect();
    listed.sort();
    assert_eq!(seen, listed, "every corpus file has expected counts");
    for x in &expected {
        let rel = format!("{ARCHIVES}/{}", x.file);
        let (s, bytes) = open(&rel);
        assert_eq!(s.format(), Format::GeminiCli, "{rel}");
        assert_eq!(s.entries().len(), x.entries, "{rel}");
        // One chain: every message a node, one tip, no branches.
        assert_eq!(s.tree().len(), x.entries, "{rel}");
        assert_eq!(s.tree().tips().len(), 1, "{rel}");
        assert!(s.tree().branch_points().is_empty(), "{rel}");
        assert!(s.diagnostics().is_empty(), "{rel}: {:?}", s.diagnostics());
        let check = s.check(&mut &bytes[..]).unwrap();
        assert_eq!(
            (
                check.messages,
                check.tool_calls,
                check.tool_results,
                check.tool_errors
            ),
            (x.messages, x.tool_calls, x.tool_results, x.tool_errors),
            "{rel}"
        );
        assert_eq!(check.pairing.calls_without_result, 0, "{rel}");
        assert_eq!(check.pairing.results_without_call, 0, "{rel}");
        let tokens: Vec<(&str, u64)> = check
            .models
            .iter()
            .map(|(m, stats)| (m.as_str(), stats.usage.total()))
            .collect();
        assert_eq!(tokens, x.tokens, "{rel}");
        // The whole file is the context of its one branch.
        let leaf = s.tree().default_leaf().unwrap();
        assert_eq!(leaf, EntryId(x.entries as u32 - 1), "{rel}");
        let context = s.context(leaf, &mut &bytes[..]).unwrap();
        // The CLI's notices are markers beside the messages, with their
        // text (`reading_kinds.rs`), one per notice record.
        let (markers, messages): (Vec<_>, Vec<_>) =
            context.iter().partition(|m| m.kind == MessageKind::Marker);
        assert_eq!(messages.len() as u64, x.messages, "{rel}");
        let notices = (0..s.entries().len() as u32)
            .filter(|&e| matches!(s.kind(EntryId(e)), "info" | "error" | "warning"))
            .count();
        assert_eq!(markers.len(), notices, "{rel}");
        assert_eq!(check.markers as usize, notices, "{rel}");
    }
}

const JSONL: &str = "gemini/session-2026-02-03T09-00-5c1f3a9e.jsonl";

#[test]
fn jsonl_rewrites_are_kept_and_a_rewind_is_a_branch() {
    let bytes = fixture(JSONL);
    let s = Session::from_bytes(JSONL, &bytes);
    assert_lossless(JSONL, &s, &bytes);
    for chunk in [1, 7, 100] {
        assert_eq!(
            fingerprint(&open_chunked(JSONL, &bytes, chunk)),
            fingerprint(&s),
            "chunks of {chunk}"
        );
    }
    assert_eq!(s.format(), Format::GeminiCli);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    // 15 records: metadata, 3 `$set`, 1 `$rewindTo`, 10 message versions.
    assert_eq!((s.entries().len(), s.tree().len()), (15, 10));
    let at = |line: u32| s.entries().iter().position(|e| e.line == line).unwrap() as u32;
    // The model turn (lines 4, 5, 6) was rewritten twice: its versions hang
    // side by side, the last one carries the conversation on.
    let points: Vec<(u32, BranchKind, u32)> = s
        .tree()
        .branch_points()
        .iter()
        .map(|b| (s.entry(b.entry).line, b.kind, b.children))
        .collect();
    assert_eq!(
        points,
        [(2, BranchKind::Structural, 3), (7, BranchKind::Real, 2)]
    );
    assert_eq!(s.tree().parent(EntryId(at(7))), Some(EntryId(at(6))));
    // The rewind to line 9 put line 13 beside it.
    assert_eq!(s.tree().parent(EntryId(at(13))), Some(EntryId(at(7))));
    let tips: Vec<u32> = s.tree().tips().iter().map(|&t| s.entry(t).line).collect();
    assert_eq!(tips, [11, 14]);
    assert_eq!(s.tree().default_leaf(), Some(EntryId(at(14))));
    // Earlier versions are addressable by line; the id finds the latest.
    assert_eq!(s.label(EntryId(at(4))), "L4");
    assert_eq!(
        s.label(EntryId(at(6))),
        "8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10"
    );
    assert_eq!(
        s.find("8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10"),
        Some(EntryId(at(6)))
    );
    assert_eq!(s.find("L5"), Some(EntryId(at(5))));
    // Earlier versions do not make the id ambiguous: it names the current.
    assert_eq!(
        s.find_all("8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10"),
        [EntryId(at(6))]
    );

    // The current branch: the prompt, the finished tool turn and its
    // result, the answer, the new prompt, its answer.
    let roles = |leaf: u32| -> Vec<Role> {
        s.context(EntryId(at(leaf)), &mut &bytes[..])
            .unwrap()
            .iter()
            .map(|m| match m.kind {
                // A notice of the CLI (its `info`, `error`, `warning`).
                MessageKind::Marker => Role::System,
                _ => m.role,
            })
            .collect()
    };
    use Role::{Assistant as A, Tool as T, User as U};
    assert_eq!(roles(14), [U, A, T, A, U, A]);
    // The abandoned branch: the deleted prompt, the cancelled call and
    // the CLI's notice that it was cancelled.
    assert_eq!(roles(11), [U, A, T, A, U, A, T, Role::System]);
    // An earlier version as a leaf: the call before it finished.
    assert_eq!(roles(4), [U, A]);
    let context = s.context(EntryId(at(14)), &mut &bytes[..]).unwrap();
    assert_eq!(context[1].entries, ["8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10"]);
    assert_eq!(context[2].tool_results().collect::<Vec<_>>().len(), 1);

    // Counts take each message's latest version only.
    let check = s.check(&mut &bytes[..]).unwrap();
    assert_eq!(
        (
            check.messages,
            check.tool_calls,
            check.tool_results,
            check.tool_errors
        ),
        (9, 2, 2, 1)
    );
    // 5292 + 5352 + 5420 + 5395 (the versions without tokens add none).
    assert_eq!(check.models["gemini-2.5-pro"].usage.total(), 21_459);
    assert_eq!(check.models["gemini-2.5-pro"].messages, 4);
}

#[test]
fn a_rewind_that_ends_the_log_leaves_the_conversation_before_it() {
    let (s, bytes) = open_clean_fixture("gemini/rewind-at-end.jsonl");
    let at = |line: u32| entry_at(&s, 0, line);
    // `$rewindTo` the second prompt (line 4), then only a `$set`: Gemini
    // CLI loads the first prompt and its answer.
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!(leaf, at(3));
    let roles: Vec<Role> = s
        .context(leaf, &mut &bytes[..])
        .unwrap()
        .iter()
        .map(|m| m.role)
        .collect();
    assert_eq!(roles, [Role::User, Role::Assistant]);
    // The turn rewound away stays a branch of its own: line 3 ends the
    // current one and leads on to it.
    let tips: Vec<u32> = s.tree().tips().iter().map(|&t| s.entry(t).line).collect();
    assert_eq!(tips, [3, 5]);
    let points: Vec<(u32, BranchKind, u32)> = s
        .tree()
        .branch_points()
        .iter()
        .map(|b| (s.entry(b.entry).line, b.kind, b.children))
        .collect();
    assert_eq!(points, [(3, BranchKind::Real, 1)]);
    let outline: Vec<(u32, u32, bool, bool)> = s
        .outline()
        .iter()
        .map(|g| {
            (
                s.entry(g.first).line,
                s.entry(g.last).line,
                g.is_tip,
                g.has_default,
            )
        })
        .collect();
    assert_eq!(outline, [(2, 3, true, true), (4, 5, true, false)]);
}

#[test]
fn a_rewind_to_the_first_message_branches_at_the_session_start() {
    let (s, bytes) = open_clean_fixture("gemini/rewind-to-start.jsonl");
    let at = |line: u32| entry_at(&s, 0, line);
    let line = |e: EntryId| s.entry(e).line;
    // `$rewindTo` the first prompt: the old conversation and the new one
    // both start from the empty one, the metadata record.
    assert_eq!(s.tree().roots(), [at(1)]);
    assert_eq!(
        s.tree().children(at(1)).map(line).collect::<Vec<_>>(),
        [2, 7]
    );
    let points: Vec<(u32, BranchKind, u32)> = s
        .tree()
        .branch_points()
        .iter()
        .map(|b| (line(b.entry), b.kind, b.children))
        .collect();
    assert_eq!(points, [(1, BranchKind::Real, 2)]);
    assert_eq!(
        s.tree().tips().iter().map(|&t| line(t)).collect::<Vec<_>>(),
        [5, 8]
    );
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!(leaf, at(8));
    // The record is no message: the context is the new prompt and answer,
    // and the branch's rows open with it as an event.
    let context = s.context(leaf, &mut &bytes[..]).unwrap();
    let roles: Vec<Role> = context.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant]);
    let rows: Vec<(retrace_core::RowKind, String)> =
        s.rows(leaf).into_iter().map(|r| (r.kind, r.role)).collect();
    use retrace_core::RowKind::{Event, Message};
    assert_eq!(
        rows,
        [
            (Event, String::new()),
            (Message, "user".into()),
            (Message, "assistant".into())
        ]
    );
}

#[test]
fn a_log_that_ends_with_nothing_standing_stands_at_its_start() {
    // The first two turns of the fixture, then `$rewindTo` the first
    // prompt: Gemini CLI loads an empty conversation.
    let bytes = fixture("gemini/rewind-to-start.jsonl");
    let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    let text = lines[..6].concat();
    let s = Session::from_bytes("x.jsonl", &text);
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!(s.entry(leaf).line, 1);
    assert!(s.context(leaf, &mut &text[..]).unwrap().is_empty());
    let tips: Vec<u32> = s.tree().tips().iter().map(|&t| s.entry(t).line).collect();
    assert_eq!(tips, [1, 5]);
    assert!(s.tree().is_real_branch_point(leaf));
}

#[test]
fn a_rewrite_of_an_earlier_message_wins_wherever_it_is_written() {
    // Line 5 rewrites the model turn of line 3 (its call done, with
    // tokens) after the next prompt (line 4); then `$rewindTo` that prompt
    // (line 7) and a new one. Gemini CLI loads lines 2, 5, 8, 9.
    let (s, bytes) = open_clean_fixture("gemini/late-rewrite.jsonl");
    let at = |line: u32| entry_at(&s, 0, line);
    let line = |e: EntryId| s.entry(e).line;
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!(
        s.tree()
            .path(leaf)
            .into_iter()
            .map(line)
            .collect::<Vec<_>>(),
        [2, 5, 8, 9]
    );
    // The earlier version is a dead end beside the latest, which takes on
    // what followed it: the turn rewound away and the new one.
    let parent = |l: u32| s.tree().parent(at(l)).map(line);
    let parents: Vec<Option<u32>> = [3, 4, 5, 6, 8].into_iter().map(parent).collect();
    assert_eq!(parents, [Some(2), Some(5), Some(2), Some(4), Some(5)]);
    let points: Vec<(u32, BranchKind)> = s
        .tree()
        .branch_points()
        .iter()
        .map(|b| (line(b.entry), b.kind))
        .collect();
    assert_eq!(points, [(2, BranchKind::Structural), (5, BranchKind::Real)]);
    assert_eq!(
        s.tree().tips().iter().map(|&t| line(t)).collect::<Vec<_>>(),
        [6, 9]
    );
    // Both branches read the finished call and its result.
    use Role::{Assistant as A, Tool as T, User as U};
    for tip in [at(6), at(9)] {
        let context = s.context(tip, &mut &bytes[..]).unwrap();
        assert_eq!(
            context.iter().map(|m| m.role).collect::<Vec<_>>(),
            [U, A, T, U, A]
        );
        let result = serde_json::to_string(&context[2]).unwrap();
        assert!(result.contains("41 passed; 1 failed"), "{result}");
    }
    let check = s.check(&mut &bytes[..]).unwrap();
    assert_eq!(
        (check.messages, check.tool_calls, check.tool_results),
        (7, 1, 1)
    );

    // The same records split over two files, the rewrite in the second:
    // the same conversation, in either reading order.
    let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    let first = lines[..4].concat();
    let second = [lines[0], &lines[4..].concat()].concat();
    let shape = |s: &Session, sources: &mut [&[u8]]| {
        let leaf = s.tree().default_leaf().unwrap();
        let context: Vec<(Role, String)> = s
            .context(leaf, sources)
            .unwrap()
            .iter()
            .map(|m| (m.role, serde_json::to_string(&m.content).unwrap()))
            .collect();
        let real = s.tree().real_branch_points().count();
        (
            context,
            s.tree().branch_points().len(),
            real,
            s.tree().tips().len(),
        )
    };
    let whole = shape(&s, &mut [&bytes[..]]);
    for files in [[&first, &second], [&second, &first]] {
        let mut reader = Reader::new();
        for (i, bytes) in files.iter().enumerate() {
            reader.begin_file(&format!("part-{i}.jsonl"));
            reader.push(bytes);
        }
        let split = reader.finish();
        assert!(split.diagnostics().is_empty(), "{:?}", split.diagnostics());
        assert_eq!(shape(&split, &mut [&files[0][..], &files[1][..]]), whole);
    }
}

#[test]
fn a_rewind_to_an_unknown_message_drops_everything_like_gemini_cli() {
    let text = concat!(
        r#"{"sessionId":"s","projectHash":"p"}"#,
        "\n",
        r#"{"id":"a","timestamp":"2026-01-01T00:00:00.000Z","type":"user","content":"one"}"#,
        "\n",
        r#"{"$rewindTo":"nope"}"#,
        "\n",
        r#"{"id":"b","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":"two"}"#,
        "\n"
    );
    let s = Session::from_bytes("x.jsonl", text.as_bytes());
    assert_eq!(s.format(), Format::GeminiCli);
    assert_eq!(s.tree().roots().len(), 2);
    let d = &s.diagnostics()[0];
    assert_eq!((d.line, d.kind.code()), (3, "missing-parent"));
    assert!(d.message.contains("\"nope\""));
}

#[test]
fn a_split_session_is_one_chain_in_time_order() {
    let names = [
        "gemini/split/session-2026-02-04T11-30-7e3d9c21.json",
        "gemini/split/session-2026-02-04T10-00-7e3d9c21.json",
    ];
    // Given later file first: the chain still runs in time order.
    let mut reader = Reader::new();
    let mut all = Vec::new();
    for name in names {
        let bytes = fixture(name);
        reader.begin_file(name);
        reader.push(&bytes);
        all.push(bytes);
    }
    let s = reader.finish();
    for (f, bytes) in all.iter().enumerate() {
        assert_lossless_file(names[f], &s, retrace_core::FileId(f as u16), bytes);
    }
    assert_eq!(s.tree().roots().len(), 1);
    let root = s.tree().roots()[0];
    assert_eq!(s.entry(root).file.0, 1);
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!((s.entry(leaf).file.0, s.entry(leaf).line), (0, 13));
    let path: Vec<(u16, u32)> = s
        .tree()
        .path(leaf)
        .iter()
        .map(|&e| (s.entry(e).file.0, s.entry(e).line))
        .collect();
    assert_eq!(path, [(1, 7), (1, 13), (1, 51), (0, 7), (0, 13)]);
    let sources: &mut [&[u8]] = &mut [&all[0], &all[1]];
    let context = s.context(leaf, sources).unwrap();
    let roles: Vec<Role> = context.iter().map(|m| m.role).collect();
    use Role::{Assistant as A, Tool as T, User as U};
    assert_eq!(roles, [U, A, T, A, U, A]);
}

#[test]
fn a_legacy_file_and_the_jsonl_it_was_migrated_to_are_read_as_the_jsonl() {
    // Gemini CLI resumed the `.json` session: it wrote `<name>.jsonl`,
    // repeating the three messages, and went on there. Either order.
    let json = "gemini/migrated/session-2026-02-04T10-00-7e3d9c21.json";
    let jsonl = "gemini/migrated/session-2026-02-04T10-00-7e3d9c21.jsonl";
    for names in [[json, jsonl], [jsonl, json]] {
        let (s, files) = open_fixtures(&names);
        let legacy = retrace_core::FileId(names.iter().position(|&n| n == json).unwrap() as u16);
        let leaf = s.tree().default_leaf().unwrap();
        let path: Vec<(bool, u32)> = s
            .tree()
            .path(leaf)
            .iter()
            .map(|&e| (s.entry(e).file == legacy, s.entry(e).line))
            .collect();
        assert_eq!(
            path,
            [(false, 2), (false, 3), (false, 4), (false, 6), (false, 8)],
            "{names:?}"
        );
        // The legacy copies are kept, outside the tree, and said so.
        let info = &s.files()[legacy.0 as usize];
        assert!((info.first_entry..info.end_entry).all(|e| !s.tree().contains(EntryId(e))));
        assert_eq!(s.tree().roots().len(), 1);
        let notes: Vec<(u16, u32, &str)> = s
            .diagnostics()
            .iter()
            .map(|d| (d.file.0, d.line, d.kind.code()))
            .collect();
        assert_eq!(notes, [(legacy.0, 7, "copied-history")], "{names:?}");
        let sources: &mut [&[u8]] = &mut [&files[0], &files[1]];
        let roles: Vec<Role> = s
            .context(leaf, sources)
            .unwrap()
            .iter()
            .map(|m| m.role)
            .collect();
        use Role::{Assistant as A, Tool as T, User as U};
        assert_eq!(roles, [U, A, T, A, U, A]);
        // Each message counted once.
        let check = s.check(sources).unwrap();
        assert_eq!((check.messages, check.tool_calls), (6, 1));
    }
}

#[test]
fn a_later_file_that_rewinds_into_an_earlier_one_carries_the_session_on() {
    // The second file of the session starts with `$rewindTo` the second
    // prompt, which is in the first file; given in either order.
    let first = "gemini/rewind-split/session-2026-02-07T16-00-4d6f8a0c.jsonl";
    let second = "gemini/rewind-split/session-2026-02-07T16-40-4d6f8a0c.jsonl";
    for names in [[first, second], [second, first]] {
        let (s, _) = open_fixtures(&names);
        assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
        let later = names.iter().position(|&n| n == second).unwrap() as u16;
        let place = |e: EntryId| (s.entry(e).file.0 == later, s.entry(e).line);
        // Gemini CLI loads the first turn, then the new prompt and answer.
        let leaf = s.tree().default_leaf().unwrap();
        let path: Vec<(bool, u32)> = s.tree().path(leaf).into_iter().map(place).collect();
        assert_eq!(
            path,
            [(false, 2), (false, 4), (true, 3), (true, 4)],
            "{names:?}"
        );
        // The rewound turn is the other branch off the first answer.
        let tips: Vec<(bool, u32)> = s.tree().tips().iter().map(|&t| place(t)).collect();
        assert!(tips.contains(&(false, 6)) && tips.len() == 2, "{tips:?}");
        let points: Vec<((bool, u32), BranchKind)> = s
            .tree()
            .branch_points()
            .iter()
            .map(|b| (place(b.entry), b.kind))
            .collect();
        assert_eq!(points, [((false, 4), BranchKind::Real)], "{names:?}");
    }
}

#[test]
fn the_corpus_split_pair_and_the_whole_archive() {
    // Two files of session 1deca764: 12 then 6 messages.
    let (s, _) = open_many(&[
        &format!("{ARCHIVES}/session-2026-01-10T01-38-1deca764.json"),
        &format!("{ARCHIVES}/session-2026-01-10T01-46-1deca764.json"),
    ]);
    assert_eq!(s.tree().roots().len(), 1);
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!(s.tree().path(leaf).len(), 18);
    assert_eq!(s.entry(leaf).file.0, 1);
    // All six files: five sessions, five chains.
    let mut files: Vec<String> = std::fs::read_dir(corpus().join(ARCHIVES))
        .unwrap()
        .map(|e| format!("{ARCHIVES}/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    files.sort();
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    let (s, _) = open_many(&refs);
    assert_eq!(s.tree().roots().len(), 5);
    assert_eq!(s.tree().tips().len(), 5);
    // The default leaf ends the first file's session.
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!(leaf, EntryId(s.files()[0].end_entry - 1));
}

#[test]
fn a_truncated_legacy_file_keeps_what_it_has() {
    let rel = "broken/truncated-session.json";
    let bytes = fixture(rel);
    let s = Session::from_bytes(rel, &bytes);
    assert_lossless(rel, &s, &bytes);
    assert_eq!(s.format(), Format::GeminiCli);
    assert_eq!(s.entries().len(), 3);
    assert!(s.entries()[2].is_broken());
    let codes: Vec<(&str, u32)> = s
        .diagnostics()
        .iter()
        .map(|d| (d.kind.code(), d.line))
        .collect();
    let last = s.files()[0].lines;
    assert_eq!(codes, [("truncated-line", last), ("truncated-line", last)]);
    // The first two messages still read.
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!(s.entry(leaf).line, 13);
    let context = s.context(leaf, &mut &bytes[..]).unwrap();
    assert_eq!(context.len(), 3);
}

fn open(rel: &str) -> (Session, Vec<u8>) {
    let bytes = read(rel);
    (Session::from_bytes(rel, &bytes), bytes)
}

#[test]
fn rows_show_a_model_turn_with_its_results() {
    let bytes = fixture(JSONL);
    let s = Session::from_bytes(JSONL, &bytes);
    let leaf = s.tree().default_leaf().unwrap();
    let rows = s.rows(leaf);
    // The path: prompt, the finished model turn, the answer, the new
    // prompt, its answer; records typed `user` are prompts.
    let shown: Vec<(&str, bool)> = rows
        .iter()
        .map(|r| {
            (
                r.role.as_str(),
                r.marks.0 & retrace_core::Marks::PROMPT != 0,
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("user", true),
            ("assistant", false),
            ("assistant", false),
            ("user", true),
            ("assistant", false)
        ]
    );
    let turn = s.row_message(&rows[1], &mut &bytes[..]).unwrap().unwrap();
    assert_eq!(turn.tool_calls().count(), 1);
    assert_eq!(turn.tool_results().count(), 1);
}

#[test]
fn a_set_with_a_message_snapshot_is_noted() {
    let text = concat!(
        r#"{"sessionId":"s","projectHash":"p"}"#,
        "\n",
        r#"{"id":"a","timestamp":"2026-01-01T00:00:00.000Z","type":"user","content":"one"}"#,
        "\n",
        r#"{"$set":{"messages":[{"id":"a","type":"user","content":"one (masked)"}],"lastUpdated":"2026-01-01T00:00:02.000Z"}}"#,
        "\n",
        r#"{"$set":{"summary":"x"}}"#,
        "\n"
    );
    let s = Session::from_bytes("x.jsonl", text.as_bytes());
    let notes: Vec<(u32, &str)> = s
        .diagnostics()
        .iter()
        .map(|d| (d.line, d.kind.code()))
        .collect();
    assert_eq!(notes, [(3, "bad-field")]);
    assert_eq!(s.tree().len(), 1);
}
