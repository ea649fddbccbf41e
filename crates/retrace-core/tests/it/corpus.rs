//! The core against every real session file in the shared corpus: nothing
//! panics, nothing is lost, chunking does not matter, and the counts of a
//! chosen set match what was checked by hand (with a separate Python pass
//! over the files: JSON objects, ids, parent links, tool blocks).

use crate::common::*;
use retrace_core::{BranchKind, EntryId, Format, Reader, Session, Severity};

#[test]
fn every_corpus_file_opens_losslessly_in_any_chunking() {
    for path in corpus_files() {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let whole = Session::from_bytes(&name, &bytes);
        assert_lossless(&name, &whole, &bytes);
        assert_eq!(whole.files()[0].size, bytes.len() as u64, "{name}");
        let expected = fingerprint(&whole);
        let mut chunks = vec![13, 4096, 65536];
        if bytes.len() < 64 << 10 {
            chunks.push(1);
        }
        for chunk in chunks {
            let chunked = open_chunked(&name, &bytes, chunk);
            assert_eq!(
                fingerprint(&chunked),
                expected,
                "{name} in chunks of {chunk}"
            );
        }
        // The index reports a line as malformed only when it is.
        for d in whole.diagnostics() {
            if d.kind == retrace_core::DiagnosticKind::MalformedJson {
                let e = whole.entries().iter().find(|e| e.line == d.line).unwrap();
                let line = &bytes[e.range().start as usize..e.range().end as usize];
                assert!(
                    serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(line)
                        .is_err(),
                    "{name}:{}: {}",
                    d.line,
                    d.message
                );
            }
        }
        // Bodies: the deep check and the context of every branch.
        let check = whole.check(&mut &bytes[..]).unwrap();
        for &tip in whole.tree().tips() {
            let context = whole.context(tip, &mut &bytes[..]).unwrap();
            // Every message comes from entries of the branch (a Gemini
            // record can give two messages).
            let branch = whole.branch(tip);
            for m in &context {
                for label in &m.entries {
                    let id = whole.find(label).unwrap();
                    let e = whole.entry(id);
                    assert!(
                        branch
                            .iter()
                            .any(|&b| whole.entry(b).offset == e.offset
                                || whole.id(b) == whole.id(id)),
                        "{name}: {label} is not on the branch"
                    );
                }
            }
        }
        // Every check diagnostic points inside the file.
        for d in &check.diagnostics {
            assert!(d.offset <= bytes.len() as u64, "{name}: {d:?}");
        }
        assert_check_in_parts_is_one_pass(&name, &whole, &bytes, &check);
        // The figures read straight from the lines are the normalizers'.
        let normalized = whole.check_normalizing_every_line(&mut &bytes[..]).unwrap();
        assert_eq!(
            serde_json::to_value(&check).unwrap(),
            serde_json::to_value(&normalized).unwrap(),
            "{name}"
        );
    }
}

/// The deep check run in parts, as `retrace info` runs it on several
/// threads, finds what one pass finds; a file whose format reads a line
/// with what came before it (Codex, Gemini CLI) stays one run.
fn assert_check_in_parts_is_one_pass(
    name: &str,
    s: &Session,
    bytes: &[u8],
    check: &retrace_core::Check,
) {
    let expected = serde_json::to_value(check).unwrap();
    for parts in [2, 3, 16] {
        let runs = s.check_parts(parts);
        assert!(runs.len() <= parts, "{name}: {runs:?}");
        let starts: Vec<usize> = runs.iter().map(|r| r.start).collect();
        let ends: Vec<usize> = runs.iter().map(|r| r.end).collect();
        assert_eq!(starts[0], 0, "{name}");
        assert_eq!(&starts[1..], &ends[..ends.len() - 1], "{name}: {runs:?}");
        assert_eq!(*ends.last().unwrap(), s.entries().len(), "{name}");
        if matches!(s.format(), Format::Codex | Format::GeminiCli) {
            assert_eq!(runs.len(), 1, "{name}: split a stateful format");
        }
        let found = runs
            .into_iter()
            .map(|run| s.check_part(run, &mut &bytes[..]).unwrap())
            .collect();
        let joined = serde_json::to_value(s.check_join(found)).unwrap();
        assert_eq!(joined, expected, "{name} in {parts} parts");
    }
}

#[test]
fn parts_read_in_parallel_index_like_one_pass() {
    for rel in [
        "pi/badlogic__pi-mono/compact.jsonl",
        "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl",
    ] {
        let bytes = read(rel);
        let expected = fingerprint(&Session::from_bytes(rel, &bytes));
        // Split at the line start nearest each third of the file.
        let cut = |at: usize| at + bytes[at..].iter().position(|&b| b == b'\n').unwrap() + 1;
        let (a, b) = (cut(bytes.len() / 3), cut(2 * bytes.len() / 3));
        let mut first = Reader::new();
        first.begin_file(rel);
        first.push(&bytes[..a]);
        for (start, end) in [(a, b), (b, bytes.len())] {
            let mut part = Reader::new();
            part.begin_part(rel, start as u64);
            part.push(&bytes[start..end]);
            first.append_part(part);
        }
        assert_eq!(fingerprint(&first.finish()), expected, "{rel}");
    }
}

/// Counts of one file, checked by hand.
struct Expect {
    file: &'static str,
    format: Format,
    entries: usize,
    nodes: usize,
    leaves: usize,
    tips: usize,
    structural: usize,
    real: usize,
    tool_calls: u64,
    tool_results: u64,
    tool_errors: u64,
}

#[test]
fn hand_checked_counts() {
    let table = [
        Expect {
            // v3 tree: header + 8 nodes, one `/tree` branch, an unknown type.
            file: "pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl",
            format: Format::Pi { version: 3 },
            entries: 9,
            nodes: 8,
            leaves: 2,
            tips: 2,
            structural: 0,
            real: 1,
            tool_calls: 2,
            tool_results: 1,
            tool_errors: 0,
        },
        Expect {
            // v1, linear; line 440 holds two objects run together.
            file: "pi/badlogic__pi-mono/session.jsonl",
            format: Format::Pi { version: 1 },
            entries: 464,
            nodes: 463,
            leaves: 1,
            tips: 1,
            structural: 0,
            real: 0,
            tool_calls: 189,
            tool_results: 189,
            tool_errors: 12,
        },
        Expect {
            // One rewind (two typed prompts under one node).
            file: "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl",
            format: Format::ClaudeCode,
            entries: 99,
            nodes: 99,
            leaves: 2,
            tips: 2,
            structural: 0,
            real: 1,
            tool_calls: 26,
            tool_results: 26,
            tool_errors: 3,
        },
        Expect {
            // Six fan-outs, all parallel Task calls whose results lag: no
            // rewind, one branch to pick. 18 metadata lines outside the tree.
            file: "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
            format: Format::ClaudeCode,
            entries: 180,
            nodes: 162,
            leaves: 7,
            tips: 1,
            structural: 6,
            real: 0,
            tool_calls: 40,
            tool_results: 40,
            tool_errors: 0,
        },
        Expect {
            // Two progress/tool-result fan-outs and one edited prompt.
            file: "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl",
            format: Format::ClaudeCode,
            entries: 61,
            nodes: 52,
            leaves: 4,
            tips: 2,
            structural: 2,
            real: 1,
            tool_calls: 2,
            tool_results: 2,
            tool_errors: 0,
        },
        Expect {
            // A later session forked from an earlier prompt.
            file: "claude-code/iansherr__claude-code-log/test/test_data/dag_fork.jsonl",
            format: Format::ClaudeCode,
            entries: 11,
            nodes: 11,
            leaves: 2,
            tips: 2,
            structural: 0,
            real: 1,
            tool_calls: 0,
            tool_results: 0,
            tool_errors: 0,
        },
    ];
    for x in table {
        let (s, bytes) = open(x.file);
        let t = s.tree();
        let check = s.check(&mut &bytes[..]).unwrap();
        let kinds = |k| t.branch_points().iter().filter(|b| b.kind == k).count();
        let got = (
            s.format(),
            s.entries().len(),
            t.len(),
            t.leaves().count(),
            t.tips().len(),
            kinds(BranchKind::Structural),
            kinds(BranchKind::Real),
            check.tool_calls,
            check.tool_results,
            check.tool_errors,
        );
        let want = (
            x.format,
            x.entries,
            x.nodes,
            x.leaves,
            x.tips,
            x.structural,
            x.real,
            x.tool_calls,
            x.tool_results,
            x.tool_errors,
        );
        assert_eq!(got, want, "{}", x.file);
    }
}

#[test]
fn default_leaf_is_the_last_entry_in_file_order() {
    // pi v3: the last entry is on the branch made with `/tree`.
    let (s, _) = open("pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl");
    assert_eq!(s.id(s.tree().default_leaf().unwrap()), Some("e8"));
    // A subagent file opened on its own: all sidechain, still has a leaf.
    let (s, _) = open("claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-deep-manifest/agent-c8d9b115.jsonl");
    let leaf = s.tree().default_leaf().unwrap();
    assert_eq!(leaf.index(), s.entries().len() - 1);
}

/// A Claude Code project folder as the CLI lists it: its first file, by
/// name, is a stub holding one `summary` line. The default leaf is in the
/// first file that has a conversation; an empty file first changes neither
/// that nor the session's format.
#[test]
fn a_folder_opening_with_a_stub_or_an_empty_file() {
    const DIR: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample";
    let files = [
        "4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl",
        "937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl",
        "fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl",
    ];
    for empty_first in [false, true] {
        let mut reader = Reader::new();
        if empty_first {
            reader.begin_file("0empty.jsonl");
        }
        for f in files {
            reader.begin_file(f);
            reader.push(&read(&format!("{DIR}/{f}")));
        }
        let s = reader.finish();
        assert_eq!(s.format(), Format::ClaudeCode, "empty first: {empty_first}");
        let leaf = s.tree().default_leaf().expect("a default leaf");
        assert_eq!(s.files()[s.entry(leaf).file.0 as usize].name, files[1]);
        // The last node of that file.
        let last = (0..s.entries().len() as u32).map(EntryId).rev().find(|&e| {
            s.tree().contains(e) && s.files()[s.entry(e).file.0 as usize].name == files[1]
        });
        assert_eq!(Some(leaf), last);
    }
}

#[test]
fn subagent_files_link_to_the_task_results_that_spawned_them() {
    let dir = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1";
    let agents = [
        "a36efb2a1231c41e2",
        "a4ca7529859c158c2",
        "a52886dc180afb356",
        "a6aa8ad077d9ea083",
        "ab1e6e141221a29ab",
        "aef063ba534d73153",
    ];
    let main = format!("{dir}.jsonl");
    let files: Vec<String> = std::iter::once(main.clone())
        .chain(
            agents
                .iter()
                .map(|a| format!("{dir}/subagents/agent-{a}.jsonl")),
        )
        .collect();
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    let (s, _) = open_many(&refs);
    assert_eq!(s.format(), Format::ClaudeCode);
    // The Task results naming each agent, found by hand (line, agent id).
    let spawned = [
        (144, "a36efb2a1231c41e2"),
        (63, "a4ca7529859c158c2"),
        (61, "a52886dc180afb356"),
        (142, "a6aa8ad077d9ea083"),
        (57, "ab1e6e141221a29ab"),
        (140, "aef063ba534d73153"),
    ];
    assert_eq!(s.subagents().len(), 6);
    for (sub, (line, agent)) in s.subagents().iter().zip(spawned) {
        assert_eq!(sub.agent_id, agent);
        let by = sub.spawned_by.expect("linked");
        assert_eq!((s.entry(by).file.0, s.entry(by).line), (0, line));
        assert!(s.files()[sub.file.0 as usize].meta.as_ref().unwrap()["agentType"].is_string());
    }
    // The main conversation stays the default; sidechains are their own
    // roots, not tips of the main branch.
    assert_eq!(s.entry(s.tree().default_leaf().unwrap()).file.0, 0);
    assert!(s
        .diagnostics()
        .iter()
        .all(|d| d.severity != Severity::Error));
}
