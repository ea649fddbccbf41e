//! The session logic the CLI and the viewer share, against every real
//! session file of the corpus (and the repository's fixtures): branch
//! export, segment previews, summary and stats, search, the files of a
//! folder, and the redacting source.
//!
//! Where figures are pinned they come from `retrace` as it was at commit
//! c303e5d, before this logic moved into the core (its `info --json`, `cat`
//! and `tree` output over every input, written by
//! `tests/fixtures/golden/make.py`), or from the viewer's worker at that
//! commit (search hit counts), or from the file names themselves.
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::common::*;
use retrace_core::redact::{findings_in, RedactingSource, Rules};
use retrace_core::{
    entry_text, export_branch, order_files, search, segment_preview, side_car, subagent_dir,
    EntryId, Inflated, Info, Listing, Reader, SearchFilter, Session, Source, Stats, Summary,
};
use serde_json::Value;

/// An input of the golden files opened as `retrace` opens it: a file with
/// the side-car beside it, or a folder's session files in the order
/// [`order_files`] gives.
struct Opened {
    session: Session,
    /// The files' bytes as read from disk (gzip files compressed).
    source: Inflated<Vec<Vec<u8>>>,
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A folder's names as the CLI will list them: its files, and the files of
/// each session's `subagents` folder.
fn folder_names(dir: &Path) -> Vec<String> {
    let mut names = names_in(dir);
    for name in names.clone() {
        if let Some(sub) = subagent_dir(&name).filter(|d| dir.join(d).is_dir()) {
            names.extend(
                names_in(&dir.join(&sub))
                    .into_iter()
                    .map(|n| format!("{sub}/{n}")),
            );
        }
    }
    names
}

fn open_input(root: &Path, input: &str) -> Opened {
    let path = root.join(input);
    let (dir, names, listing, prefix) = if path.is_dir() {
        (
            path.clone(),
            folder_names(&path),
            Listing::Folder,
            input.to_owned(),
        )
    } else {
        // The file, with its side-car when there is one.
        let dir = path.parent().unwrap().to_path_buf();
        let base = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut names = vec![base.clone()];
        names.extend(side_car(&base).filter(|car| dir.join(car).is_file()));
        let prefix = Path::new(input).parent().unwrap().display().to_string();
        (dir, names, Listing::Chosen, prefix)
    };
    let files = order_files(&names, listing);
    assert!(!files.is_empty(), "{input}: no session files");
    let mut reader = Reader::new();
    let mut bytes = Vec::new();
    for f in &files {
        let name = &names[f.file];
        // The CLI names files by the path it was given.
        let shown = match prefix.as_str() {
            "" => name.clone(),
            p => format!("{p}/{name}"),
        };
        let file = reader.begin_file(&shown);
        let data = std::fs::read(dir.join(name)).unwrap();
        reader.push(&data);
        if let Some(meta) = f.meta {
            reader.attach_meta(file, &std::fs::read(dir.join(&names[meta])).unwrap());
        }
        bytes.push(data);
    }
    let session = reader.finish();
    let source = Inflated::new(bytes, session.files());
    Opened { session, source }
}

fn golden(name: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(fixtures().join("golden").join(name)).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn roots() -> [(&'static str, PathBuf); 2] {
    [("corpus", corpus()), ("fixtures", fixtures())]
}

// ---------------------------------------------------------------------------
// Summary and stats

/// `Info` over `Summary` and `Stats` writes what `retrace info --json` wrote,
/// byte for byte, for every file and folder (folders opened in the order
/// `order_files` gives, which the CLI's figures confirm: same files,
/// entries, subagents, diagnostics).
#[test]
fn info_json_is_what_the_cli_wrote() {
    for (root_name, root) in roots() {
        let text = std::fs::read_to_string(
            fixtures()
                .join("golden")
                .join(format!("info-{root_name}.jsonl")),
        )
        .unwrap();
        let mut seen = 0;
        for want in text.lines() {
            let path = serde_json::from_str::<Value>(want).unwrap()["path"]
                .as_str()
                .unwrap()
                .to_owned();
            let mut o = open_input(&root, &path);
            let summary = Summary::new(&o.session);
            let stats = Stats::new(&o.session.check(&mut o.source).unwrap());
            let info = Info {
                path: &path,
                title: None,
                summary: &summary,
                stats: &stats,
            };
            let got = serde_json::to_string(&info).unwrap();
            if summary.format == "gemini-cli" {
                // Gemini CLI's notices (`info`, `error`, `warning`) are
                // markers now (they were not messages at c303e5d): one
                // more marker each, the rest as the CLI wrote it.
                let s = &o.session;
                let notices = (0..s.entries().len() as u32)
                    .map(EntryId)
                    .filter(|&e| matches!(s.kind(e), "info" | "error" | "warning"))
                    .count() as u64;
                let mut want: Value = serde_json::from_str(want).unwrap();
                let markers = want["markers"].as_u64().unwrap() + notices;
                want["markers"] = markers.into();
                let got: Value = serde_json::from_str(&got).unwrap();
                assert_eq!(got, want, "{root_name}: {path}");
            } else {
                assert_eq!(got, want, "{root_name}: {path}");
            }
            seen += 1;
        }
        assert!(seen > 60, "{root_name}: {seen} inputs");
    }
}

#[test]
fn summary_figures_are_those_of_the_index() {
    for path in corpus_files() {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let s = Session::from_bytes(&name, &bytes);
        let summary = Summary::new(&s);
        assert_eq!(summary.format_label(), s.format().describe(), "{name}");
        assert_eq!(summary.nodes, s.tree().len());
        assert_eq!(
            summary.branch_points + summary.structural_branch_points,
            s.tree().branch_points().len()
        );
        assert_eq!(summary.branch_points, s.tree().real_branch_points().count());
        let stamps: Vec<i64> = s.entries().iter().filter_map(|e| e.timestamp()).collect();
        assert_eq!(summary.start, stamps.iter().min().copied(), "{name}");
        assert_eq!(summary.end, stamps.iter().max().copied(), "{name}");
        // The viewer's copy of the summary crosses as JSON.
        let back: Summary =
            serde_json::from_str(&serde_json::to_string(&summary).unwrap()).unwrap();
        assert_eq!(back, summary);
    }
}

// ---------------------------------------------------------------------------
// Files of a folder

fn ordered(dir: &str, listing: Listing) -> Vec<(String, Option<String>)> {
    let names = folder_names(&corpus().join(dir));
    order_files(&names, listing)
        .into_iter()
        .map(|f| (names[f.file].clone(), f.meta.map(|m| names[m].clone())))
        .collect()
}

/// The expected orders are read off the names: sessions by name, then
/// 2.0-style agent files, then each session's `subagents` folder with the
/// side-cars that share a stem.
#[test]
fn corpus_folders_in_order_with_their_side_cars() {
    let base = "claude-code/iansherr__claude-code-log/test/test_data/real_projects";
    let files = |dir: &str| -> Vec<String> {
        ordered(&format!("{base}/{dir}"), Listing::Folder)
            .into_iter()
            .map(|(f, _)| f)
            .collect()
    };
    assert_eq!(
        files("-Users-dain-workspace-JSSoundRecorder"),
        [
            "2c5941bd-b9de-41d6-9414-221d175776f7.jsonl",
            "7acd37a8-2745-4b58-a8a9-46164b22ad9e.jsonl",
            "agent-3430b97e.jsonl",
        ]
    );
    assert_eq!(
        files("-src-experiments-claude_p"),
        [
            "29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl",
            "94604a7b-062f-4369-bdf0-da948381c3e5.jsonl",
            "29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl",
        ]
    );
    let worktrees = ordered(&format!("{base}/-experiments-worktrees"), Listing::Folder);
    assert_eq!(worktrees.len(), 7);
    assert_eq!(
        worktrees[0],
        (
            "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl".to_owned(),
            None
        )
    );
    let agents = [
        "a36efb2a1231c41e2",
        "a4ca7529859c158c2",
        "a52886dc180afb356",
        "a6aa8ad077d9ea083",
        "ab1e6e141221a29ab",
        "aef063ba534d73153",
    ];
    for (got, id) in worktrees[1..].iter().zip(agents) {
        let dir = "ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents";
        assert_eq!(got.0, format!("{dir}/agent-{id}.jsonl"));
        assert_eq!(
            got.1.as_deref(),
            Some(format!("{dir}/agent-{id}.meta.json").as_str())
        );
    }
    // Gemini CLI's archive: the legacy documents by name (= by time).
    let gemini = ordered(
        "gemini-cli/mischa-thisness__M-Gemini/Archives",
        Listing::Folder,
    );
    let mut names = names_in(&corpus().join("gemini-cli/mischa-thisness__M-Gemini/Archives"));
    names.sort();
    assert_eq!(
        gemini.iter().map(|(f, _)| f.clone()).collect::<Vec<_>>(),
        names
    );
    // Dropped on the viewer (base names only), the same files come in the
    // same order, side-cars attached.
    let flat: Vec<String> = folder_names(&corpus().join(format!("{base}/-experiments-worktrees")))
        .into_iter()
        .map(|n| n.rsplit('/').next().unwrap().to_owned())
        .collect();
    let chosen: Vec<(String, Option<String>)> = order_files(&flat, Listing::Chosen)
        .into_iter()
        .map(|f| (flat[f.file].clone(), f.meta.map(|m| flat[m].clone())))
        .collect();
    let base_of = |s: &str| s.rsplit('/').next().unwrap().to_owned();
    let folder: Vec<(String, Option<String>)> = worktrees
        .iter()
        .map(|(f, m)| (base_of(f), m.as_deref().map(base_of)))
        .collect();
    assert_eq!(chosen, folder);
}

#[test]
fn a_split_set_dropped_out_of_order_reads_in_order() {
    let dir = fixtures().join("events/split");
    let mut names = names_in(&dir);
    names.reverse();
    let got: Vec<&str> = order_files(&names, Listing::Chosen)
        .iter()
        .map(|f| names[f.file].as_str())
        .collect();
    let mut want = vec!["events.jsonl".to_owned()];
    want.extend((1..=10).map(|i| format!("events_{i}.jsonl")));
    assert_eq!(got, want);
}

// ---------------------------------------------------------------------------
// Segment previews

fn collapsed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where `retrace tree` showed a prompt at c303e5d (60 characters of its
/// first line), the preview is that prompt (80 characters, whitespace runs
/// collapsed); where it showed none, the preview is no prompt. Where what
/// it showed was harness text (Claude Code's tags and caveat line), the
/// preview shows no tag now: those are recognised (`reading_kinds.rs`
/// checks what they become), and the preview is the typed prompt after
/// them or the command as typed.
#[test]
fn previews_are_the_prompts_the_cli_showed() {
    let golden = golden("previews-corpus.jsonl");
    // Every file and folder the CLI read.
    let inputs = self::golden("info-corpus.jsonl");
    for input in &inputs {
        let rel = input["path"].as_str().unwrap();
        if rel.ends_with(".meta.json") {
            continue;
        }
        let mut o = open_input(&corpus(), rel);
        for (i, seg) in o.session.outline().iter().enumerate() {
            let preview = segment_preview(&o.session, &mut o.source, seg).unwrap();
            let shown = golden
                .iter()
                .find(|g| g["input"] == rel && g["segment"] == i);
            let harness_text = shown.is_some_and(|g| {
                let cli = g["preview"].as_str().unwrap();
                cli.starts_with('<') || cli.starts_with("Caveat: The messages below")
            });
            if harness_text {
                if let Some(p) = &preview {
                    assert!(
                        !p.text.contains("</") && !p.text.starts_with("Caveat"),
                        "{rel} #{i}: {p:?}"
                    );
                }
                continue;
            }
            match (shown, &preview) {
                (Some(g), Some(p)) => {
                    let cli = g["preview"].as_str().unwrap();
                    let cli = collapsed(cli.strip_suffix('…').unwrap_or(cli));
                    assert!(p.prompt, "{rel} #{i}: {p:?}");
                    assert!(
                        p.text.starts_with(&cli),
                        "{rel} #{i}: {:?} vs {cli:?}",
                        p.text
                    );
                    assert!(p.text.chars().count() <= 81);
                }
                (Some(g), None) => panic!("{rel} #{i}: no preview, the CLI showed {g}"),
                (None, Some(p)) => assert!(!p.prompt, "{rel} #{i}: {p:?}"),
                (None, None) => {}
            }
        }
    }
}

/// The corpus's Codex rollout starts with an injected `<environment_context>`
/// message: the viewer labelled its branch with it at c303e5d, the CLI with
/// the prompt after it.
#[test]
fn injected_context_is_no_preview() {
    let (s, bytes) = open(
        "codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl",
    );
    let outline = s.outline();
    let p = segment_preview(&s, &mut &bytes[..], &outline[0])
        .unwrap()
        .unwrap();
    assert!(p.prompt);
    assert!(
        p.text
            .starts_with("finish up the users work by rigging up the chatbot-ui to use"),
        "{p:?}"
    );
}

/// A branch that starts with the model's answer: pi's `branching.jsonl`
/// (e2 has two children; the first branch, e3…e6, starts with an assistant
/// message and holds a compaction whose summary is no prompt either).
#[test]
fn a_branch_without_a_prompt_shows_its_first_answer() {
    let (s, bytes) =
        open("pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl");
    let outline = s.outline();
    let branch = outline
        .iter()
        .find(|seg| s.label(seg.first) == "e3")
        .unwrap();
    let p = segment_preview(&s, &mut &bytes[..], branch)
        .unwrap()
        .unwrap();
    assert!(!p.prompt);
    assert_eq!(p.role, retrace_core::Role::Assistant);
    assert!(p.label().starts_with("assistant: "));
}

/// Read through the redacting source, a preview is the redacted one.
#[test]
fn previews_read_through_a_redacting_source_are_redacted() {
    let rules = Arc::new(Rules::builtin());
    for path in corpus_files() {
        let bytes = std::fs::read(&path).unwrap();
        let s = Session::from_bytes(&path.display().to_string(), &bytes);
        for seg in s.outline() {
            let plain = segment_preview(&s, &mut &bytes[..], &seg).unwrap();
            let mut raw: &[u8] = &bytes;
            let mut shown = RedactingSource::new(&mut raw, rules.clone());
            let hidden = segment_preview(&s, &mut shown, &seg).unwrap();
            assert_eq!(plain.is_some(), hidden.is_some());
            if let (Some(a), Some(b)) = (plain, hidden) {
                assert_eq!((a.role, a.prompt), (b.role, b.prompt));
                if a.text != b.text {
                    assert!(b.text.contains("[REDACTED:"), "{}", b.text);
                }
            }
        }
    }
    // A prompt with an address in it.
    let line = r#"{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-01-01T00:00:00.000Z","message":{"role":"user","content":"write to jane.doe@quantumleap-labs.io about it"}}"#;
    let s = Session::from_bytes("s.jsonl", line.as_bytes());
    let mut raw: &[u8] = line.as_bytes();
    let mut shown = RedactingSource::new(&mut raw, rules);
    let p = segment_preview(&s, &mut shown, &s.outline()[0])
        .unwrap()
        .unwrap();
    assert_eq!(p.text, "write to [REDACTED:email] about it");
}

// ---------------------------------------------------------------------------
// Search

fn all_roles() -> SearchFilter {
    SearchFilter {
        user: true,
        assistant: true,
        tool: true,
        events: true,
    }
}

/// Hits of a query over a corpus file, all roles, as the viewer's worker
/// found them at c303e5d (its raw-bytes pass and text check; these queries
/// are plain ASCII, which both passes see alike).
#[test]
fn search_finds_what_the_viewer_found() {
    let cases = [
        ("pi/badlogic__pi-mono/session.jsonl", "readme", 73),
        ("pi/badlogic__pi-mono/session.jsonl", "error", 62),
        ("pi/badlogic__pi-mono/compact.jsonl", "function", 125),
        (
            "pi/badlogic__pi-mono/packages/coding-agent/test/fixtures/large-session.jsonl",
            "error",
            132,
        ),
        (
            "codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl",
            "error",
            15,
        ),
        (
            "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl",
            "readme",
            25,
        ),
        (
            "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl",
            "function",
            16,
        ),
        (
            "gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-12-06T07-22-e0f194ce.json",
            "error",
            4,
        ),
        ("claude-code/iansherr__claude-code-log/test/test_data/edge_cases.jsonl", "error", 5),
    ];
    for (file, query, count) in cases {
        let (s, bytes) = open(file);
        let hits = search(&s, &mut &bytes[..], query, all_roles(), usize::MAX).unwrap();
        assert_eq!(hits.hits.len(), count, "{file}: {query}");
        assert!(!hits.truncated);
    }
}

/// Every hit's snippet shows the query, and every entry whose text holds it
/// is a hit: the first pass over the bytes as written drops no match, for
/// queries with quotes, slashes and accents too.
#[test]
fn search_misses_nothing_the_text_holds() {
    // `"` and `é` have no piece a writer never escapes: every entry is read.
    let queries = ["the", "Error", "\"", "é", "<command", "a/b", "e\\n"];
    for path in corpus_files() {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let s = Session::from_bytes(&name, &bytes);
        let texts: Vec<Option<String>> = (0..s.entries().len() as u32)
            .map(EntryId)
            .map(|e| {
                let in_tree = s.tree().contains(e) && !s.entry(e).is_broken();
                in_tree.then(|| entry_text(&s, e, &mut &bytes[..]).unwrap().to_lowercase())
            })
            .collect();
        for query in queries {
            let hits = search(&s, &mut &bytes[..], query, all_roles(), usize::MAX).unwrap();
            let found: HashSet<EntryId> = hits.hits.iter().map(|h| h.entry).collect();
            let needle = query.to_lowercase();
            for (i, text) in texts.iter().enumerate() {
                let e = EntryId(i as u32);
                let holds = text.as_deref().is_some_and(|t| t.contains(&needle));
                assert_eq!(found.contains(&e), holds, "{name}: {query:?} in entry {i}");
            }
            for hit in &hits.hits {
                assert!(
                    collapsed(&hit.snippet.to_lowercase()).contains(&collapsed(&needle)),
                    "{name}: {:?}",
                    hit.snippet
                );
                assert_eq!(s.tree().continuation(hit.leaf), None);
                assert!(
                    s.tree().path(hit.leaf).contains(&hit.entry),
                    "{name}: {hit:?}"
                );
                assert_eq!(s.entry(hit.entry).line, hit.line);
            }
        }
    }
}

#[test]
fn search_stops_at_its_limit() {
    let (s, bytes) = open("pi/badlogic__pi-mono/compact.jsonl");
    let all = search(&s, &mut &bytes[..], "function", all_roles(), usize::MAX).unwrap();
    let some = search(&s, &mut &bytes[..], "function", all_roles(), 10).unwrap();
    assert!(some.truncated);
    assert_eq!(some.hits[..], all.hits[..10]);
    let exact = search(&s, &mut &bytes[..], "function", all_roles(), all.hits.len()).unwrap();
    assert!(!exact.truncated);
    // Roles filter: user prompts only.
    let users = SearchFilter {
        user: true,
        assistant: false,
        tool: false,
        events: false,
    };
    let prompts = search(&s, &mut &bytes[..], "function", users, usize::MAX).unwrap();
    assert!(!prompts.hits.is_empty());
    assert!(prompts.hits.iter().all(|h| h.role == "user"));
    assert!(prompts.hits.len() < all.hits.len());
}

/// A value the rules hide is found in the text as written and not in the
/// text as shown (searched through the redacting source).
#[test]
fn search_through_a_redacting_source_finds_no_hidden_value() {
    let rules = Arc::new(Rules::builtin());
    let mut tried = 0;
    for path in corpus_files() {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let s = Session::from_bytes(&name, &bytes);
        // The first email address the rules find in a message of the tree.
        let value = (0..s.entries().len() as u32).map(EntryId).find_map(|e| {
            if !s.tree().contains(e) {
                return None;
            }
            let entry = s.entry(e);
            let raw = &bytes[entry.range().start as usize..entry.range().end as usize];
            let found = findings_in(&rules, raw).ok()?;
            // As written (no escapes), so it is also the decoded text.
            found
                .iter()
                .filter(|f| rules.kind(f.kind).name == "email")
                .map(|f| String::from_utf8_lossy(&raw[f.raw.clone()]).into_owned())
                .find(|v| !v.contains('\\'))
        });
        let Some(value) = value else { continue };
        let written = search(&s, &mut &bytes[..], &value, all_roles(), usize::MAX).unwrap();
        let mut raw: &[u8] = &bytes;
        let mut shown = RedactingSource::new(&mut raw, rules.clone());
        let hidden = search(&s, &mut shown, &value, all_roles(), usize::MAX).unwrap();
        assert!(!written.hits.is_empty(), "{name}: {value}");
        assert!(
            hidden.hits.is_empty(),
            "{name}: {value} in {:?}",
            hidden.hits
        );
        tried += 1;
    }
    assert!(tried > 0, "no email address in the corpus");
}

// ---------------------------------------------------------------------------
// Branch export

/// `export_branch` writes what `retrace cat` wrote, byte for byte (length
/// and CRC-32), for every file and folder, and counts the elements it
/// re-laid as the CLI's note did.
#[test]
fn export_is_what_the_cli_cat_wrote() {
    for (root_name, root) in roots() {
        let mut seen = 0;
        for want in golden(&format!("cat-{root_name}.jsonl")) {
            let input = want["input"].as_str().unwrap();
            let mut o = open_input(&root, input);
            let leaf = o.session.tree().default_leaf().unwrap();
            let mut out = Vec::new();
            let done = export_branch(&o.session, &mut o.source, leaf, &mut out).unwrap();
            assert_eq!(
                out.len() as u64,
                want["bytes"].as_u64().unwrap(),
                "{root_name}: {input}"
            );
            assert_eq!(
                u64::from(crc32fast::hash(&out)),
                want["crc32"].as_u64().unwrap(),
                "{root_name}: {input}"
            );
            assert_eq!(
                done.relaid as u64,
                want["relaid"].as_u64().unwrap(),
                "{input}"
            );
            seen += 1;
        }
        assert!(seen > 50, "{root_name}: {seen}");
    }
}

/// For JSON lines, the export of the default branch is a subsequence of the
/// input's lines, each byte for byte; read again it is one branch with the
/// same messages.
#[test]
fn exported_lines_are_input_lines_in_order() {
    for path in corpus_files() {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let s = Session::from_bytes(&name, &bytes);
        let Some(leaf) = s.tree().default_leaf() else {
            continue;
        };
        if s.files()[0].document.is_some() {
            continue;
        }
        let mut out = Vec::new();
        let done = export_branch(&s, &mut &bytes[..], leaf, &mut out).unwrap();
        assert_eq!(done.relaid, 0);
        let mut lines = bytes.split_inclusive(|&b| b == b'\n');
        for line in out.split_inclusive(|&b| b == b'\n') {
            assert!(
                lines.any(|l| l == line),
                "{name}: a line not in the input, or out of order"
            );
        }
        let again = Session::from_bytes(&name, &out);
        let leaf2 = again.tree().default_leaf().unwrap();
        let before = s.context(leaf, &mut &bytes[..]).unwrap();
        let after = again.context(leaf2, &mut &out[..]).unwrap();
        assert_eq!(before.len(), after.len(), "{name}");
        assert!(
            before
                .iter()
                .zip(&after)
                .all(|(a, b)| a.content == b.content),
            "{name}"
        );
    }
}

/// A Codex branch exported (what `retrace cat` writes) leaves its
/// rollbacks out, as a fork does: read again it is that branch alone, with
/// every turn it had. (A rollback copied into it would drop the turns
/// before it: the turns it dropped are not in the file.) Every branch of
/// the rollback fixtures, and of a fork whose own turn was rolled back
/// through the copy of its parent.
#[test]
fn an_exported_codex_branch_leaves_its_rollbacks_out() {
    let said = |messages: Vec<retrace_core::Message>| -> Vec<_> {
        messages
            .into_iter()
            .filter(|m| m.kind != retrace_core::MessageKind::Marker)
            .map(|m| (m.role, m.content))
            .collect()
    };
    let fork_end = [
        "codex/fork-end/rollout-2026-03-01T10-00-00-0199d200-0000-7000-8000-00000000000a.jsonl",
        "codex/fork-end/rollout-2026-03-01T11-00-00-0199d200-0000-7000-8000-00000000000b.jsonl",
    ];
    let mut left_out = 0;
    for files in [
        &["codex/rollback.jsonl"][..],
        &["codex/rollback-resumed.jsonl"],
        &["codex/rollback-compact.jsonl"],
        &fork_end,
    ] {
        let (s, bytes) = open_fixtures(files);
        let name = files.join(" + ");
        for &tip in s.tree().tips() {
            let mut out = Vec::new();
            let done = export_branch(&s, &mut source(&bytes), tip, &mut out).unwrap();
            let rollbacks = s
                .branch(tip)
                .into_iter()
                .filter(|&e| s.subtype(e) == "thread_rolled_back")
                .count();
            assert_eq!(done.left_out, rollbacks, "{name}");
            left_out += rollbacks;
            assert!(
                memchr::memmem::find(&out, b"thread_rolled_back").is_none(),
                "{name}"
            );
            let again = Session::from_bytes(&name, &out);
            assert_eq!(again.tree().tips().len(), 1, "{name}: one branch");
            let leaf = again.tree().default_leaf().unwrap();
            assert_eq!(
                said(again.context(leaf, &mut &out[..]).unwrap()),
                said(s.context(tip, &mut source(&bytes)).unwrap()),
                "{name} at {}",
                s.label(tip)
            );
        }
    }
    assert_eq!(left_out, 4);
}

/// A JSON document (a Gemini CLI legacy session, a provider list) exports
/// as a valid JSON document of its kind, with the branch's messages.
#[test]
fn exported_documents_are_json_documents() {
    let mut docs: Vec<(String, Vec<u8>)> = corpus_files()
        .into_iter()
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && !p.to_string_lossy().ends_with(".meta.json")
        })
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    for f in [
        "provider/anthropic-messages.json",
        "provider/openai-chat.json",
        "provider/google-contents.json",
        "provider/openai-responses.json",
    ] {
        docs.push((f.to_owned(), read_fixture(f)));
    }
    assert!(docs.len() >= 10);
    for (name, bytes) in docs {
        let s = Session::from_bytes(&name, &bytes);
        let leaf = s.tree().default_leaf().unwrap();
        let mut out = Vec::new();
        export_branch(&s, &mut &bytes[..], leaf, &mut out).unwrap();
        let value: Value = serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        let original: Value = serde_json::from_slice(&bytes).unwrap();
        // The same kind of document: the same top-level fields.
        match (&value, &original) {
            (Value::Object(a), Value::Object(b)) => {
                assert_eq!(
                    a.keys().collect::<Vec<_>>(),
                    b.keys().collect::<Vec<_>>(),
                    "{name}"
                )
            }
            (Value::Array(_), Value::Array(_)) => {}
            _ => panic!("{name}: not the same kind of document"),
        }
        let again = Session::from_bytes(&name, &out);
        assert_eq!(again.format(), s.format(), "{name}");
        let before = s.context(leaf, &mut &bytes[..]).unwrap();
        let after = again
            .context(again.tree().default_leaf().unwrap(), &mut &out[..])
            .unwrap();
        assert_eq!(before.len(), after.len(), "{name}");
    }
}

// ---------------------------------------------------------------------------
// The redacting source

/// Read through the redacting source, every entry still parses as it did,
/// and the default branch has the same messages by role; the rules find
/// nothing more in what it gives.
#[test]
fn redacted_bodies_read_like_the_originals() {
    let rules = Arc::new(Rules::builtin());
    let mut redacted = 0;
    for path in corpus_files() {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let s = Session::from_bytes(&name, &bytes);
        let mut raw: &[u8] = &bytes;
        let mut shown = RedactingSource::new(&mut raw, rules.clone());
        for (i, entry) in s.entries().iter().enumerate() {
            let e = EntryId(i as u32);
            let plain = s.body(e, &mut &bytes[..]).unwrap();
            let hidden = s.body(e, &mut shown).unwrap();
            assert_eq!(plain.is_ok(), hidden.is_ok(), "{name}: entry {i}");
            let out = shown.read(entry.file, entry.range()).unwrap().into_owned();
            if out != bytes[entry.range().start as usize..entry.range().end as usize] {
                redacted += 1;
                if hidden.is_ok() {
                    assert_eq!(
                        findings_in(&rules, &out).map(|f| f.len()),
                        Ok(0),
                        "{name}: entry {i}"
                    );
                }
            }
        }
        let Some(leaf) = s.tree().default_leaf() else {
            continue;
        };
        let plain = s.context(leaf, &mut &bytes[..]).unwrap();
        let hidden = s.context(leaf, &mut shown).unwrap();
        let roles = |m: &[retrace_core::Message]| m.iter().map(|m| m.role).collect::<Vec<_>>();
        assert_eq!(roles(&plain), roles(&hidden), "{name}");
    }
    assert!(redacted > 100, "{redacted} entries redacted in the corpus");
}

/// A Gemini CLI tool read `trustedFolders.json`, an object keyed by home
/// paths, and its output holds it as JSON: read through the redacting
/// source, no body shows the user name, in keys or values.
#[test]
fn redacted_bodies_hide_home_paths_used_as_keys() {
    let (s, bytes) = open(
        "gemini-cli/mischa-thisness__M-Gemini/Archives/session-2026-01-10T01-38-1deca764.json",
    );
    assert!(String::from_utf8_lossy(&bytes).contains(r#"\"/home/mischa\": \"TRUST_PARENT\""#));
    let mut raw: &[u8] = &bytes;
    let mut shown = RedactingSource::new(&mut raw, Arc::new(Rules::builtin()));
    let mut keyed = 0;
    for (i, entry) in s.entries().iter().enumerate() {
        let out = shown.read(entry.file, entry.range()).unwrap();
        let text = String::from_utf8_lossy(&out);
        assert!(!text.contains("/home/mischa"), "entry {i}: {text}");
        keyed +=
            usize::from(text.contains(r#"\"/home/[REDACTED:home-username]\": \"TRUST_PARENT\""#));
        let message = s.message(EntryId(i as u32), &mut shown).unwrap();
        let said = message
            .map(|m| retrace_core::searchable_text(&m))
            .unwrap_or_default();
        assert!(!said.contains("mischa"), "entry {i}: {said}");
    }
    assert_eq!(keyed, 1);
}
