//! Safe fork points, fork and snapshots (`edit/points.rs`, `edit/fork.rs`,
//! `edit/snapshot.rs`) on the corpus, the generated sessions and the
//! fixtures of every format a fork is written in. Each fork's branch,
//! migrated, passes what every provider API checks of a history.

use std::collections::HashSet;

use retrace_core::{
    fork, safe_points, snapshot, EditError, EntryId, Event, EventData, ForkLineage, Format,
    Session, SnapshotTarget, Stamp,
};

use crate::api_rules::validate_branch;
use crate::common::*;

/// 2026-01-02T03:04:05Z.
const TIME_MS: i64 = 1767323045000;

const NEW_ID: &str = "0badf00d-1234-4abc-8def-0123456789ab";

fn lineage() -> ForkLineage {
    ForkLineage {
        new_session_id: NEW_ID.into(),
        parent_path: Some("/sessions/source.jsonl".into()),
        time_ms: TIME_MS,
    }
}

/// The raw bytes of each entry on the branch ending at `leaf`, lines that
/// carry a session's identity left out (pi's header is no tree node;
/// Codex's `session_meta` is compared apart).
fn branch_bytes(s: &Session, bytes: &[u8], leaf: EntryId) -> Vec<Vec<u8>> {
    s.branch(leaf)
        .into_iter()
        // A legacy rollout's meta is its first line, with no type.
        .filter(|&e| {
            s.kind(e) != "session_meta" && !(s.format() == Format::Codex && s.entry(e).line == 1)
        })
        // A fork leaves out the rollbacks its branch already applies.
        .filter(|&e| {
            let r = s.entry(e).range();
            let line = &bytes[r.start as usize..r.end as usize];
            !String::from_utf8_lossy(line).contains("\"thread_rolled_back\"")
        })
        .map(|e| {
            let r = s.entry(e).range();
            bytes[r.start as usize..r.end as usize].to_vec()
        })
        .collect()
}

/// Forks at every safe point of every branch (the default one first, then
/// each other tip's; a point two branches share once); each fork's default
/// branch is that prefix, byte for byte but for the lineage, and what a
/// resumed agent would send of it every API takes. Gives the number of
/// points forked at.
fn fork_everywhere(name: &str, s: &Session, bytes: &[u8]) -> usize {
    let leaf = s.tree().default_leaf().expect("a leaf");
    let mut seen = HashSet::new();
    let mut forks = Forks::default();
    for tip in std::iter::once(leaf).chain(s.tree().tips().iter().copied()) {
        fork_branch(name, s, bytes, tip, &mut seen, &mut forks);
    }
    // Only a branch with nothing to send (a lone command line) is refused.
    assert!(
        forks.points == 0 || forks.sent > 0,
        "{name}: no fork had anything to send"
    );
    forks.points
}

/// How many forks were made, and how many of them had something to send.
#[derive(Default)]
struct Forks {
    points: usize,
    sent: usize,
}

/// [`fork_everywhere`] on the branch ending at `leaf`, at the points not
/// in `seen`.
fn fork_branch(
    name: &str,
    s: &Session,
    bytes: &[u8],
    leaf: EntryId,
    seen: &mut HashSet<EntryId>,
    forks: &mut Forks,
) {
    let mut src: &[u8] = bytes;
    let mut points = safe_points(s, &mut src, leaf).unwrap();
    points.retain(|p| seen.insert(p.entry));
    // Results with no call in the source (a parent line missing) stay so.
    let broken = s.check(&mut src).unwrap().pairing.results_without_call;
    // Every point of a file up to 200 kB; of a larger one, 24 a branch
    // spread over it with the first and the last (each fork reads the
    // whole branch).
    let step = match bytes.len() > 200_000 {
        true => points.len().div_ceil(24).max(1),
        false => 1,
    };
    let tested = points
        .iter()
        .enumerate()
        .filter(|(i, _)| i % step == 0 || *i + 1 == points.len())
        .map(|(_, p)| p);
    for p in tested {
        assert_eq!(p.label, format!("sfp:{}", p.index));
        let done = fork(s, &mut src, p.entry, &lineage())
            .unwrap_or_else(|e| panic!("{name} {}: {e}", p.label));
        let forked = Session::from_bytes(name, &done.bytes);
        assert_eq!(forked.format(), s.format(), "{name} {}", p.label);
        let fleaf = forked.tree().default_leaf().expect("the fork has a leaf");
        let mut got = branch_bytes(&forked, &done.bytes, fleaf);
        let mut want = branch_bytes(s, bytes, p.entry);
        match s.format() {
            Format::Events => {
                // The lineage event, last.
                let last = got.pop().expect("the lineage event");
                let text = String::from_utf8(last).unwrap();
                // Exactly the line `Event` writes for it (fork writes it
                // by hand).
                let event: Event = serde_json::from_str(&text).unwrap();
                assert_eq!(serde_json::to_string(&event).unwrap(), text);
                assert_eq!(event.timestamp.timestamp_millis(), TIME_MS);
                let EventData::StateTransition(t) = &event.data else {
                    panic!("{text}")
                };
                assert_eq!((&*t.from_node, &*t.to_node), ("parent", "fork"), "{text}");
                assert_eq!(
                    t.state_diff["lineage"],
                    serde_json::json!({
                        "session_id": NEW_ID,
                        "parent_session": "/sessions/source.jsonl",
                        "forked_at": p.id,
                    }),
                    "{text}"
                );
            }
            Format::ClaudeCode => want = want.iter().map(|l| new_session_id(l)).collect(),
            _ => {}
        }
        assert_eq!(got.len(), want.len(), "{name} at {} ({})", p.label, p.id);
        for (g, w) in got.iter().zip(&want) {
            assert!(
                g == w,
                "{name} at {} ({}):\n{}\n{}",
                p.label,
                p.id,
                String::from_utf8_lossy(g),
                String::from_utf8_lossy(w)
            );
        }
        // No call cut from its result: what the fork leaves unanswered was
        // never answered.
        let mut fsrc: &[u8] = &done.bytes;
        let check = forked.check(&mut fsrc).unwrap();
        assert!(
            check.pairing.results_without_call <= broken,
            "{name} {}: {:?}",
            p.label,
            check.pairing
        );
        assert!(
            check.pairing.calls_without_result <= p.unanswered as u64,
            "{name} {}: {:?}",
            p.label,
            check.pairing
        );
        lineage_recorded(name, s.format(), &done.bytes);
        let taken = validate_branch(
            &forked,
            &mut fsrc,
            fleaf,
            &format!("{name} forked at {}", p.label),
        );
        forks.points += 1;
        forks.sent += usize::from(taken > 0);
    }
}

/// A Claude Code line with its `sessionId` value the new id, as a fork
/// writes it (one `sessionId`, at the top).
fn new_session_id(line: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(line);
    let Some(at) = text.find("\"sessionId\":") else {
        return line.to_vec();
    };
    let from = at
        + text[at..]
            .find(": \"")
            .map_or("\"sessionId\":\"".len(), |i| i + 3);
    let to = from + text[from..].find('"').unwrap();
    format!("{}{NEW_ID}{}", &text[..from], &text[to..]).into_bytes()
}

/// The format's own lineage fields in a fork.
fn lineage_recorded(name: &str, format: Format, bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).unwrap();
    let values: Vec<serde_json::Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    match format {
        Format::Pi { version } => {
            let header = &values[0];
            assert_eq!(header["type"], "session", "{name}");
            assert_eq!(header["id"], NEW_ID, "{name}");
            assert_eq!(header["timestamp"], "2026-01-02T03:04:05.000Z", "{name}");
            let key = if version == 1 {
                "branchedFrom"
            } else {
                "parentSession"
            };
            assert_eq!(header[key], "/sessions/source.jsonl", "{name}");
            assert_eq!(
                values.iter().filter(|v| v["type"] == "session").count(),
                1,
                "{name}"
            );
        }
        Format::ClaudeCode => {
            for v in &values {
                if let Some(id) = v.get("sessionId") {
                    assert_eq!(id, NEW_ID, "{name}");
                }
            }
        }
        Format::Codex => {
            // A legacy rollout's meta is its first line.
            let meta = match values.iter().find(|v| v["type"] == "session_meta") {
                Some(line) => &line["payload"],
                None => &values[0],
            };
            assert_eq!(meta["id"], NEW_ID, "{name}");
            assert!(meta["forked_from_id"].is_string(), "{name}");
        }
        _ => {}
    }
}

fn corpus_of(dir: &str) -> Vec<std::path::PathBuf> {
    let root = corpus().join(dir);
    corpus_files()
        .into_iter()
        .filter(|p| p.starts_with(&root) && p.extension().is_some_and(|x| x == "jsonl"))
        .collect()
}

fn run_corpus(dir: &str) -> (usize, usize) {
    let (mut files, mut points) = (0, 0);
    for path in corpus_of(dir) {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.to_string_lossy().into_owned();
        let s = Session::from_bytes(&name, &bytes);
        if s.tree().default_leaf().is_none()
            || !matches!(
                s.format(),
                Format::Pi { .. } | Format::ClaudeCode | Format::Codex
            )
        {
            continue;
        }
        files += 1;
        points += fork_everywhere(&name, &s, &bytes);
    }
    (files, points)
}

#[test]
fn pi_fork_at_every_safe_point() {
    let (files, points) = run_corpus("pi");
    assert!(files >= 3 && points > 10, "{files} files, {points} points");
}

#[test]
fn claude_code_fork_at_every_safe_point() {
    let (files, points) = run_corpus("claude-code");
    assert!(
        files >= 20 && points > 100,
        "{files} files, {points} points"
    );
}

#[test]
fn codex_fork_at_every_safe_point() {
    let mut points = 0;
    for path in corpus_of("codex").into_iter().chain(fixture_files("codex")) {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.to_string_lossy().into_owned();
        let s = Session::from_bytes(&name, &bytes);
        if s.format() != Format::Codex || s.tree().default_leaf().is_none() {
            continue;
        }
        points += fork_everywhere(&name, &s, &bytes);
    }
    assert!(points > 3, "{points} points");
}

#[test]
fn events_fork_at_every_safe_point() {
    for (rel, least) in [
        ("events/events.jsonl", 2),
        ("events/checkpoints/events.jsonl", 1),
    ] {
        let bytes = read_fixture(rel);
        let s = Session::from_bytes(rel, &bytes);
        assert_eq!(s.format(), Format::Events, "{rel}");
        let points = fork_everywhere(rel, &s, &bytes);
        assert!(points >= least, "{rel}: {points} points");
    }
}

/// The generated pi and Claude Code sessions (branches, parallel calls,
/// compactions, inline sidechains).
#[test]
fn generated_fork_at_every_safe_point() {
    let mut per_format = std::collections::BTreeMap::new();
    for (name, bytes) in generated() {
        let s = Session::from_bytes(&name, &bytes);
        assert!(s.diagnostics().is_empty(), "{name}: {:?}", s.diagnostics());
        let points = fork_everywhere(&name, &s, &bytes);
        *per_format.entry(s.format().name()).or_insert(0) += points;
    }
    assert!(
        per_format.len() == 2 && per_format.values().all(|&n| n > 20),
        "{per_format:?}"
    );
}

fn fixture_files(dir: &str) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(fixtures().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    out.sort();
    out
}

const PI: &str = concat!(
    "{\"type\":\"session\",\"version\":3,\"id\":\"old-session\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n",
    "{\"type\":\"message\",\"id\":\"e1\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    "{\"type\":\"message\",\"id\":\"e2\",\"parentId\":\"e1\",\"timestamp\":\"2025-01-01T00:00:02.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"id\":\"c1\",\"name\":\"ls\",\"arguments\":{}},{\"type\":\"toolCall\",\"id\":\"c2\",\"name\":\"ls\",\"arguments\":{}}]}}\n",
    "{\"type\":\"message\",\"id\":\"e3\",\"parentId\":\"e2\",\"timestamp\":\"2025-01-01T00:00:03.000Z\",\"message\":{\"role\":\"toolResult\",\"toolCallId\":\"c1\",\"toolName\":\"ls\",\"content\":[],\"isError\":false}}\n",
    "{\"type\":\"message\",\"id\":\"e4\",\"parentId\":\"e3\",\"timestamp\":\"2025-01-01T00:00:04.000Z\",\"message\":{\"role\":\"toolResult\",\"toolCallId\":\"c2\",\"toolName\":\"ls\",\"content\":[],\"isError\":false}}\n",
    "{\"type\":\"message\",\"id\":\"e5\",\"parentId\":\"e4\",\"timestamp\":\"2025-01-01T00:00:05.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n",
);

#[test]
fn points_close_at_user_messages_and_answered_results() {
    let s = Session::from_bytes("p.jsonl", PI.as_bytes());
    let mut src: &[u8] = PI.as_bytes();
    let leaf = s.tree().default_leaf().unwrap();
    let points = safe_points(&s, &mut src, leaf).unwrap();
    let got: Vec<_> = points
        .iter()
        .map(|p| (p.label.as_str(), p.id.as_str(), p.kind))
        .collect();
    // e3 answers c1 while c2 still waits: no point there.
    assert_eq!(
        got,
        [("sfp:0", "e1", "user"), ("sfp:1", "e4", "tool_result")]
    );
}

#[test]
fn a_point_that_cuts_a_call_from_its_result_is_refused() {
    let s = Session::from_bytes("p.jsonl", PI.as_bytes());
    let mut src: &[u8] = PI.as_bytes();
    let err = fork(&s, &mut src, find(&s, "e3"), &lineage()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, EditError::Invalid(_)));
    assert!(text.contains("tool call \"c2\" (at e2)"), "{text}");
    let err = fork(&s, &mut src, find(&s, "e2"), &lineage()).unwrap_err();
    assert!(err.to_string().contains("assistant message"), "{err}");
    // The leaf is always a place to fork.
    let done = fork(&s, &mut src, find(&s, "e5"), &lineage()).unwrap();
    let text = String::from_utf8(done.bytes).unwrap();
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        "{\"type\":\"session\",\"version\":3,\"id\":\"0badf00d-1234-4abc-8def-0123456789ab\",\"timestamp\":\"2026-01-02T03:04:05.000Z\",\"cwd\":\"/w\",\"parentSession\":\"/sessions/source.jsonl\"}"
    );
    assert_eq!(
        text.lines().skip(1).collect::<Vec<_>>(),
        PI.lines().skip(1).collect::<Vec<_>>()
    );
    assert_eq!(done.notes.len(), 2);
}

#[test]
fn generic_lines_are_unsupported() {
    // Lines of no known format: no tree, nothing a fork could write.
    let bytes = b"{\"a\":1}\n{\"b\":2}\n";
    let s = Session::from_bytes("lines.jsonl", bytes);
    assert_eq!(s.format(), Format::Generic);
    let mut src: &[u8] = bytes;
    assert!(matches!(
        fork(&s, &mut src, EntryId(1), &lineage()),
        Err(EditError::Unsupported {
            format: "generic",
            what: "forked"
        })
    ));
}

#[test]
fn a_pi_snapshot_is_a_label_entry_on_the_current_leaf() {
    let s = Session::from_bytes("p.jsonl", PI.as_bytes());
    let mut src: &[u8] = PI.as_bytes();
    let mut stamp_ids = || -> String { "a1b2c3d4".to_owned() };
    let mut stamp = Stamp {
        time_ms: TIME_MS,
        new_id: &mut stamp_ids,
    };
    let (target, done) = snapshot(&s, &mut src, find(&s, "e1"), "start", &mut stamp, None).unwrap();
    assert_eq!(target, SnapshotTarget::Append);
    assert_eq!(
        String::from_utf8(done.bytes.clone()).unwrap(),
        "{\"type\":\"label\",\"id\":\"a1b2c3d4\",\"parentId\":\"e5\",\"timestamp\":\"2026-01-02T03:04:05.000Z\",\"targetId\":\"e1\",\"label\":\"start\"}\n"
    );
    // Appended, the file reads as pi with the same conversation.
    let appended = [PI.as_bytes(), &done.bytes].concat();
    let s2 = Session::from_bytes("p.jsonl", &appended);
    let leaf = s2.tree().default_leaf().unwrap();
    assert_eq!(s2.id(leaf), Some("a1b2c3d4"));
    assert!(s2.branch(leaf).contains(&find(&s2, "e5")));
    // A taken id is refused.
    let mut taken_ids = || -> String { "e2".to_owned() };
    let mut taken = Stamp {
        time_ms: TIME_MS,
        new_id: &mut taken_ids,
    };
    assert!(snapshot(&s, &mut src, find(&s, "e1"), "x", &mut taken, None).is_err());
}

#[test]
fn other_formats_take_a_side_car() {
    let bytes = read_fixture("events/events.jsonl");
    let s = Session::from_bytes("events.jsonl", &bytes);
    let mut src: &[u8] = &bytes;
    let mut stamp_ids = || -> String { String::new() };
    let mut stamp = Stamp {
        time_ms: TIME_MS,
        new_id: &mut stamp_ids,
    };
    let (target, first) = snapshot(&s, &mut src, EntryId(0), "start", &mut stamp, None).unwrap();
    assert_eq!(target, SnapshotTarget::SideCar);
    let (_, second) = snapshot(
        &s,
        &mut src,
        EntryId(3),
        "later",
        &mut stamp,
        Some(&first.bytes),
    )
    .unwrap();
    let (_, moved) = snapshot(
        &s,
        &mut src,
        EntryId(4),
        "start",
        &mut stamp,
        Some(&second.bytes),
    )
    .unwrap();
    // In the order first taken, "start" moved in place.
    let file: serde_json::Value = serde_json::from_slice(&moved.bytes).unwrap();
    let names: Vec<_> = file["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["name"].as_str().unwrap(), b["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(names, [("start", 5), ("later", 4)]);
    // The reader places them (by entry).
    let mut reader = retrace_core::Reader::new();
    let f = reader.begin_file("events.jsonl");
    reader.push(&bytes);
    reader.attach_snapshots(f, "events.jsonl.snapshots.json", &moved.bytes);
    let read = reader.finish();
    let placed: Vec<_> = read
        .bookmarks()
        .iter()
        .map(|b| (b.name.as_str(), b.entry))
        .collect();
    assert_eq!(placed, [("later", EntryId(3)), ("start", EntryId(4))]);
    assert_eq!(
        retrace_core::snapshot_side_car("a/events.jsonl"),
        "a/events.jsonl.snapshots.json"
    );
}

#[test]
fn a_pi_v1_snapshot_takes_a_side_car() {
    // pi v1 entries have no ids for a label entry to name.
    let bytes = read("pi/badlogic__pi-mono/session.jsonl");
    let s = Session::from_bytes("session.jsonl", &bytes);
    assert_eq!(s.format(), Format::Pi { version: 1 });
    let mut src: &[u8] = &bytes;
    let mut stamp_ids = || -> String { "a1b2c3d4".to_owned() };
    let mut stamp = Stamp {
        time_ms: TIME_MS,
        new_id: &mut stamp_ids,
    };
    let leaf = s.tree().default_leaf().unwrap();
    let (target, _) = snapshot(&s, &mut src, leaf, "end", &mut stamp, None).unwrap();
    assert_eq!(target, SnapshotTarget::SideCar);
}
