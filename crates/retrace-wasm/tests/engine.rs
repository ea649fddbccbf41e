//! The engine on real files, as a transport runs it: requests in, answers,
//! events and made files out.
//!
//! Its answers are checked against the CLI's for every file and folder of
//! the corpus: the files given to the engine (base names, chosen) give the
//! figures `retrace info --json` printed (the golden files written at
//! c303e5d), and the previews and search hits the core gives the session
//! as the CLI opens it (paths, a folder's listing). Then each other kind of
//! request: folders, redacted copies, forks and seals (the core's bytes),
//! the scan, and the error codes of what cannot be served.

use std::sync::Arc;

use retrace_core::redact::{
    hash_hex, value_hash, Mode, Redactor, Rules, REVEAL_CLOSE, REVEAL_OPEN,
};
use retrace_core::{
    search, segment_preview, EntryId, ForkLineage, Info, Listing, Marks, Preview, SearchFilter,
    Stamp, SEARCH_LIMIT,
};
use retrace_wasm::engine::{MemoryFiles, Outcome};
use retrace_wasm::protocol::{
    Allow, Bodies, Comparison, EngineError, ErrorCode, Event, Made, Request, Response, ReviewAllow,
    SensitiveFinding,
};
use serde_json::Value;

mod common;
use common::{cli_open, corpus, dropped, input, memory, one, root, Tab, NOW};

#[test]
fn the_engine_answers_as_the_cli_does() {
    let golden =
        std::fs::read_to_string(root().join("tests/fixtures/golden/info-corpus.jsonl")).unwrap();
    let mut inputs = 0;
    for want in golden.lines() {
        let path = serde_json::from_str::<Value>(want).unwrap()["path"]
            .as_str()
            .unwrap()
            .to_owned();
        let (dir, names, listing) = input(&corpus().join(&path));
        let (cli, mut cli_source) = cli_open(&dir, &names, listing);
        // Given to the engine: the same files, by their names only.
        let mut tab = Tab::new();
        let summary = tab.open(dropped(&dir, &names));
        let base = |n: &str| n.rsplit('/').next().unwrap().to_owned();
        let read: Vec<String> = summary.files.iter().map(|f| base(&f.name)).collect();
        let cli_read: Vec<String> = cli.files().iter().map(|f| base(&f.name)).collect();
        assert_eq!(read, cli_read, "{path}: files");

        // Summary and stats: what `info --json` printed.
        let Ok(Response::Stats(stats)) = tab.ask(Request::Stats, None) else {
            panic!("{path}: no stats");
        };
        let info = Info {
            path: &path,
            title: None,
            summary: &summary.figures,
            stats: &stats.stats,
        };
        let mut want: Value = serde_json::from_str(want).unwrap();
        if summary.figures.format == "gemini-cli" {
            // Gemini CLI's notices (`info`, `error`, `warning`) became
            // markers after the golden files were written (as in the
            // core's `shared_logic` test): one more marker each.
            let notices = (0..cli.entries().len() as u32)
                .filter(|&e| matches!(cli.kind(EntryId(e)), "info" | "error" | "warning"))
                .count() as u64;
            want["markers"] = (want["markers"].as_u64().unwrap() + notices).into();
        }
        let got: Value = serde_json::to_value(info).unwrap();
        assert_eq!(got, want, "{path}");

        // Previews, with sensitive data shown (the CLI shows it).
        tab.ask(Request::HideSensitive { hide: false }, None)
            .unwrap();
        let outline = cli.outline();
        let all: Vec<u32> = (0..outline.len() as u32).collect();
        let Ok(Response::Previews(previews)) = tab.ask(Request::Previews { segments: all }, None)
        else {
            panic!("{path}: no previews");
        };
        let expected: Vec<(u32, Preview)> = outline
            .iter()
            .enumerate()
            .filter_map(|(i, seg)| {
                let p = segment_preview(&cli, &mut cli_source, seg).unwrap()?;
                Some((i as u32, p))
            })
            .collect();
        assert_eq!(previews.previews, expected, "{path}");
        // The summary's, drawn first, are those with sensitive data hidden.
        for (i, info) in summary.outline.iter().enumerate() {
            let Some(hidden) = &info.preview else {
                continue;
            };
            let shown = previews
                .previews
                .iter()
                .find(|(s, _)| *s == i as u32)
                .unwrap();
            assert_eq!((hidden.role, hidden.prompt), (shown.1.role, shown.1.prompt));
            assert!(hidden.text == shown.1.text || hidden.text.contains("[REDACTED:"));
        }

        // Search hits.
        for query in ["the", "README", "\""] {
            let filter = SearchFilter::default();
            let request = Request::Search {
                query: query.into(),
                filter,
            };
            let Ok(Response::SearchResults(found)) = tab.ask(request, None) else {
                panic!("{path}: no search results");
            };
            let cli_hits = search(&cli, &mut cli_source, query, filter, SEARCH_LIMIT).unwrap();
            assert_eq!(found.hits, cli_hits.hits, "{path}: {query}");
            assert_eq!(found.truncated, cli_hits.truncated);
        }

        // Every row of the default branch has a body.
        if let Some(leaf) = summary.default_leaf {
            let Ok(Response::Branch(branch)) = tab.ask(Request::Branch { leaf }, None) else {
                panic!("{path}: no branch");
            };
            let end = branch.rows.len() as u32;
            let Ok(Response::Bodies(bodies)) = tab.ask(
                Request::Bodies {
                    leaf,
                    start: 0,
                    end,
                },
                None,
            ) else {
                panic!("{path}: no bodies");
            };
            assert_eq!(bodies.items.len(), branch.rows.len(), "{path}");
            // Prompt marks only where someone typed (the core's
            // `mark_typed_prompts` on the index's rows).
            let mut rows = cli.rows(EntryId(leaf));
            cli.mark_typed_prompts(&mut rows, &mut cli_source).unwrap();
            let marks: Vec<u8> = rows.iter().map(|r| r.marks.0).collect();
            assert_eq!(branch.rows.marks, marks, "{path}: marks");
        }
        inputs += 1;
    }
    assert!(inputs > 60, "{inputs} inputs");
}

#[test]
fn a_side_car_given_with_its_session_names_its_entries() {
    let session = std::fs::read(
        corpus().join("claude-code/iansherr__claude-code-log/test/test_data/dag_fork.jsonl"),
    )
    .unwrap();
    let car = br#"{"snapshots":[{"name":"asked","target":"c"},{"name":"start","target":"L1"}]}"#;
    // The side-car first: it still goes with its session.
    let mut files = MemoryFiles::new();
    files.add("s.jsonl.snapshots.json", car.as_slice());
    files.add("s.jsonl", session);
    let summary = Tab::new().open(files);
    assert_eq!(summary.files.len(), 1);
    assert_eq!(summary.bookmarked, [0, 2]);
    assert_eq!(summary.bookmark_names, ["start", "asked"]);
}

/// A Claude Code session with fork points.
const CLAUDE: &str = "claude-code/d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl";
/// A Claude Code session with sensitive data (142 findings, home
/// directory user names the most).
const SENSITIVE: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl";
/// A Claude Code session whose one call has no result.
const PENDING: &str =
    "claude-code/kenn-io__agentsview/internal/parser/testdata/claude/tool_call_pending.jsonl";

#[test]
fn a_redacted_copy_has_the_bytes_of_retrace_redact() {
    let (name, bytes) = one(SENSITIVE);
    let mut tab = Tab::new();
    tab.open(memory(&[(name.clone(), bytes.clone())]));
    for mode in ["typed", "mask", "pseudo"] {
        let request = Request::Download {
            file: 0,
            mode: mode.into(),
            disable: Vec::new(),
            allow: Vec::new(),
        };
        let (answer, copy) = tab.ask_later(request);
        let Ok(Response::File(made)) = answer else {
            panic!("{mode}: {answer:?}");
        };
        assert_eq!(made.name, name.replace(".jsonl", ".redacted.jsonl"));
        // What the CLI's pump writes: the whole file through one redactor
        // that re-scans changed lines.
        let mut redactor = Redactor::new(Arc::new(Rules::builtin()), Mode::parse(mode).unwrap());
        redactor.set_verify(true);
        let mut want = Vec::new();
        redactor.push(&bytes, &mut want);
        redactor.finish(&mut want);
        assert!(copy == want, "{mode}: not the bytes of retrace redact");
        assert!(copy != bytes, "{mode}: nothing was redacted");
    }
    // Progress was reported for no file but the one asked for.
    assert!(tab
        .host
        .events
        .iter()
        .all(|e| !matches!(e, Event::DownloadProgress(p) if p.file != 0)));
}

#[test]
fn the_scan_counts_what_a_redacted_copy_takes_out() {
    let (name, bytes) = one(SENSITIVE);
    let mut tab = Tab::new();
    tab.open(memory(&[(name, bytes.clone())]));
    assert!(matches!(tab.ask(Request::Scan, None), Ok(Response::Done)));
    while tab.engine.tick(&mut tab.host) {}
    let reports: Vec<_> = tab
        .host
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Scan(r) => Some(r.clone()),
            _ => None,
        })
        .collect();
    let last = reports.last().expect("a scan report");
    assert!(last.finished);
    assert_eq!(last.done, bytes.len() as u64);
    let listed: usize = reports.iter().map(|r| r.findings.len()).sum();
    let counted: u64 = last.counts.iter().map(|(_, n)| n).sum();
    assert_eq!(listed as u64, counted);
    let rules = Arc::new(Rules::builtin());
    let mut redactor = Redactor::new(rules.clone(), Mode::Typed);
    redactor.push(&bytes, &mut Vec::new());
    redactor.finish(&mut Vec::new());
    let findings: Vec<_> = redactor.drain_findings().collect();
    assert!(!findings.is_empty());
    assert_eq!(counted, findings.len() as u64);

    // "Not a secret" for every finding: the copy is the file as written.
    let first = &reports[0].findings;
    let allow: Vec<Allow> = reports
        .iter()
        .flat_map(|r| r.findings.iter())
        .map(|f| Allow {
            kind: f.kind.clone(),
            line: f.line,
            hash: f.hash.clone(),
        })
        .collect();
    assert!(!first.is_empty());
    let (answer, copy) = tab.ask_later(Request::Download {
        file: 0,
        mode: "typed".into(),
        disable: Vec::new(),
        allow,
    });
    assert!(answer.is_ok(), "{answer:?}");
    assert!(copy == bytes, "a value marked not a secret was replaced");
}

#[test]
fn forks_and_seals_are_the_cores_with_the_hosts_time_and_ids() {
    let (name, bytes) = one(CLAUDE);
    let mut tab = Tab::new();
    let summary = tab.open(memory(&[(name.clone(), bytes.clone())]));
    let leaf = summary.default_leaf.unwrap();
    let Ok(Response::EditPoints(points)) = tab.ask(Request::EditPoints { leaf }, None) else {
        panic!("no edit points");
    };
    assert_eq!(points.leaf, leaf);
    let row = *points.rows.first().expect("a fork point");

    let Ok(Response::File(forked)) = tab.ask(Request::Fork { leaf, row }, None) else {
        panic!("no fork");
    };
    let (session, mut source) = cli_open(
        corpus().join(CLAUDE).parent().unwrap(),
        std::slice::from_ref(&name),
        Listing::Chosen,
    );
    let rows = session.rows(EntryId(leaf));
    let at = if row as usize == rows.len() - 1 {
        EntryId(leaf)
    } else {
        *rows[row as usize].entries.last().unwrap()
    };
    // The recorder's first random bytes are all 1s.
    let id = retrace_core::uuid_v4([1; 16]);
    let lineage = ForkLineage {
        new_session_id: id.clone(),
        parent_path: Some(name.clone()),
        time_ms: NOW,
    };
    let want = retrace_core::fork(&session, &mut source, at, &lineage).unwrap();
    assert!(forked.bytes == want.bytes, "not the core's fork");
    // Claude Code finds a session by its file's name.
    assert_eq!(forked.name, format!("{id}.jsonl"));

    // A seal answers the call left without a result.
    let (name, bytes) = one(PENDING);
    let mut tab = Tab::new();
    let summary = tab.open(memory(&[(name.clone(), bytes)]));
    let leaf = summary.default_leaf.unwrap();
    let Ok(Response::EditPoints(points)) = tab.ask(Request::EditPoints { leaf }, None) else {
        panic!("no edit points");
    };
    assert_eq!(points.open.len(), 1, "{:?}", points.open);
    let Ok(Response::File(sealed)) = tab.ask(Request::Seal { leaf }, None) else {
        panic!("no seal");
    };
    let (session, mut source) = cli_open(
        corpus().join(PENDING).parent().unwrap(),
        std::slice::from_ref(&name),
        Listing::Chosen,
    );
    let mut drawn = 0u8;
    let mut new_id = retrace_core::entry_ids(&session, None, || {
        drawn += 1;
        [drawn; 16]
    });
    let mut stamp = Stamp {
        time_ms: NOW,
        new_id: &mut new_id,
    };
    let want = retrace_core::seal(&session, &mut source, EntryId(leaf), &mut stamp, false).unwrap();
    assert!(sealed.bytes == want.bytes, "not the core's seal");
    assert!(sealed.bytes.len() > std::fs::metadata(corpus().join(PENDING)).unwrap().len() as usize);
    assert_eq!(sealed.name, name.replace(".jsonl", ".sealed.jsonl"));
    assert_eq!(
        sealed.notes,
        want.notes
            .into_iter()
            .map(|n| n.message)
            .collect::<Vec<_>>()
    );
}

#[test]
fn a_folder_of_several_sessions_is_listed_then_picked() {
    let dir = corpus().join("claude-code/d-kimuson__claude-code-viewer/mock-global-claude-dir");
    let mut paths = Vec::new();
    let mut walk = vec![dir.clone()];
    while let Some(d) = walk.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk.push(p);
            } else {
                paths.push(p);
            }
        }
    }
    paths.sort();
    let parent = dir.parent().unwrap();
    let rel: Vec<String> = paths
        .iter()
        .map(|p| {
            p.strip_prefix(parent)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut files = MemoryFiles::new();
    for (p, r) in paths.iter().zip(&rel) {
        files.add(r.rsplit('/').next().unwrap(), std::fs::read(p).unwrap());
    }
    let mut tab = Tab::new();
    let request = Request::OpenFolder { paths: rel.clone() };
    let Ok(Response::Folder(folder)) = tab.ask(request, Some(files)) else {
        panic!("not listed");
    };
    assert!(folder.summary.is_none());
    assert!(folder.sessions.len() > 1, "{:?}", folder.sessions);
    // The titles come as events, each session's at most once.
    while tab.engine.tick(&mut tab.host) {}
    let mut titled: Vec<u32> = tab
        .host
        .events
        .iter()
        .flat_map(|e| match e {
            Event::Listed(batch) => batch.listed.iter().map(|(i, _)| *i).collect(),
            _ => Vec::new(),
        })
        .collect();
    titled.sort();
    let n = titled.len();
    titled.dedup();
    assert_eq!(titled.len(), n);
    assert!(!titled.is_empty() && titled.iter().all(|&i| (i as usize) < folder.sessions.len()));
    // A session picked opens with the files the folder holds for it.
    for (i, s) in folder.sessions.iter().enumerate() {
        let Ok(Response::Opened(summary)) =
            tab.ask(Request::OpenListed { session: i as u32 }, None)
        else {
            panic!("{} did not open", s.name);
        };
        assert_eq!(summary.files.len() as u32, s.files, "{}", s.name);
        assert_eq!(
            summary.files.iter().map(|f| f.size).sum::<u64>(),
            s.size,
            "{}",
            s.name
        );
    }
    // The list stays for another pick; beyond it there is none.
    let e = tab
        .ask(
            Request::OpenListed {
                session: folder.sessions.len() as u32,
            },
            None,
        )
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::NotFound);
}

#[test]
fn a_folder_of_one_session_opens_it() {
    let (name, bytes) = one(CLAUDE);
    let mut files = MemoryFiles::new();
    files.add(name.clone(), bytes);
    files.add("notes.txt", b"not a session".as_slice());
    let request = Request::OpenFolder {
        paths: vec![format!("p/{name}"), "p/notes.txt".into()],
    };
    let Ok(Response::Folder(folder)) = Tab::new().ask(request, Some(files)) else {
        panic!("not opened");
    };
    assert_eq!(folder.sessions.len(), 1);
    let summary = folder.summary.expect("opened");
    assert_eq!(summary.figures.format, "claude-code");
}

#[test]
fn what_cannot_be_served_says_why_with_a_stable_code() {
    let mut tab = Tab::new();
    let code = |r: Result<Response, EngineError>| r.unwrap_err().code;
    assert_eq!(code(tab.ask(Request::Stats, None)), ErrorCode::NoSession);
    assert_eq!(
        code(tab.ask(Request::Branch { leaf: 0 }, None)),
        ErrorCode::NoSession
    );
    let open = Request::Open {
        leaf_label: None,
        entry: None,
        first_rows: false,
    };
    assert_eq!(code(tab.ask(open.clone(), None)), ErrorCode::BadRequest);
    assert_eq!(
        code(tab.ask(open.clone(), Some(MemoryFiles::new()))),
        ErrorCode::NotASession
    );
    let mut png = MemoryFiles::new();
    png.add("x.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".as_slice());
    let e = tab.ask(open.clone(), Some(png)).unwrap_err();
    assert_eq!(e.code, ErrorCode::NotASession);
    assert_eq!(e.message, "x.png is a PNG image, not a session file");
    let folder = Request::OpenFolder {
        paths: vec!["p/a.txt".into()],
    };
    let mut text = MemoryFiles::new();
    text.add("a.txt", b"hi".as_slice());
    assert_eq!(code(tab.ask(folder, Some(text))), ErrorCode::NotASession);

    let (name, bytes) = one(CLAUDE);
    let summary = tab.open(memory(&[(name, bytes)]));
    let leaf = summary.default_leaf.unwrap();
    let not_found = [
        Request::Branch { leaf: 1 << 30 },
        Request::Image {
            leaf,
            row: 1 << 30,
            image: 0,
        },
        Request::Image {
            leaf,
            row: 0,
            image: 99,
        },
        Request::Fork { leaf, row: 1 << 30 },
        Request::Download {
            file: 9,
            mode: "typed".into(),
            disable: Vec::new(),
            allow: Vec::new(),
        },
    ];
    for r in not_found {
        let kind = r.kind();
        assert_eq!(code(tab.ask(r, None)), ErrorCode::NotFound, "{kind}");
    }
    let bad = [
        Request::Download {
            file: 0,
            mode: "shout".into(),
            disable: Vec::new(),
            allow: Vec::new(),
        },
        Request::Download {
            file: 0,
            mode: "typed".into(),
            disable: Vec::new(),
            allow: vec![Allow {
                kind: "email".into(),
                line: 1,
                hash: "not hex".into(),
            }],
        },
        Request::Download {
            file: 0,
            mode: "typed".into(),
            disable: vec!["no-such-kind".into()],
            allow: Vec::new(),
        },
    ];
    for r in bad {
        assert_eq!(code(tab.ask(r, None)), ErrorCode::BadRequest);
    }
}

#[test]
fn a_later_open_supersedes_one_still_reading() {
    let (name, bytes) = one(CLAUDE);
    let mut tab = Tab::new();
    let open = || Request::Open {
        leaf_label: None,
        entry: None,
        first_rows: false,
    };
    let first = tab
        .engine
        .call(
            1,
            open(),
            Some(memory(&[(name.clone(), bytes.clone())])),
            &mut tab.host,
        )
        .unwrap();
    let Outcome::Opening(first) = first else {
        panic!("no opening");
    };
    let generation = first.generation;
    // The second comes while the first is read.
    tab.open(memory(&[(name.clone(), bytes.clone())]));
    assert!(!tab.engine.is_current(generation));
    let read = retrace_wasm::engine::ready(first.read(|| 0.0, |_| true)).unwrap();
    let e = tab.engine.opened(read, &mut tab.host).unwrap_err();
    assert_eq!(e.code, ErrorCode::Superseded);
    // A redacted copy being written when another session opens is
    // answered that it will not come.
    tab.tickets += 1;
    let download = Request::Download {
        file: 0,
        mode: "typed".into(),
        disable: Vec::new(),
        allow: Vec::new(),
    };
    let later = tab
        .engine
        .call_now(tab.tickets, download, None, &mut tab.host)
        .unwrap();
    assert!(later.is_none());
    tab.open(memory(&[(name, bytes)]));
    let (ticket, result) = tab.host.replies.pop().expect("answered");
    assert_eq!(ticket, tab.tickets - 1);
    assert_eq!(result.unwrap_err().code, ErrorCode::Superseded);
}

#[test]
fn deep_link_labels_resolve_and_sensitive_data_is_hidden_until_shown() {
    let (name, bytes) = one(SENSITIVE);
    let mut tab = Tab::new();
    let files = memory(&[(name, bytes)]);
    let Ok(Response::Opened(summary)) = tab.ask(
        Request::Open {
            leaf_label: None,
            entry: Some("L3".into()),
            first_rows: false,
        },
        Some(files),
    ) else {
        panic!("not opened");
    };
    assert_eq!(summary.requested_entry, Some(2));
    let leaf = summary.default_leaf.unwrap();
    let Ok(Response::Branch(branch)) = tab.ask(Request::Branch { leaf }, None) else {
        panic!("no branch");
    };
    let end = branch.rows.len() as u32;
    let bodies = |tab: &mut Tab| match tab.ask(
        Request::Bodies {
            leaf,
            start: 0,
            end,
        },
        None,
    ) {
        Ok(Response::Bodies(b)) => b,
        other => panic!("{other:?}"),
    };
    let hidden = bodies(&mut tab);
    let text = serde_json::to_string(&hidden.items).unwrap();
    assert!(text.contains("[REDACTED:"), "nothing hidden");
    assert!(hidden.revealed.is_empty());
    tab.ask(Request::HideSensitive { hide: false }, None)
        .unwrap();
    let shown = bodies(&mut tab);
    let text = serde_json::to_string(&shown.items).unwrap();
    assert!(!text.contains("[REDACTED:"));
    // The text is the session's, no marks in it; the values a copy would
    // take out come beside it, each once, each in the text.
    assert!(!text.contains(retrace_core::redact::REVEAL_OPEN));
    assert!(!shown.revealed.is_empty());
    let mut once = shown.revealed.clone();
    once.sort();
    once.dedup();
    assert_eq!(once.len(), shown.revealed.len());
    for value in &shown.revealed {
        let quoted = serde_json::to_string(value).unwrap();
        assert!(
            text.contains(quoted.trim_matches('"')),
            "{value} is not in the text"
        );
    }
}

#[test]
fn made_files_carry_their_bytes_beside_the_json() {
    let made = Made {
        name: "a.fork.jsonl".into(),
        notes: vec!["n".into()],
        bytes: b"secret bytes".to_vec(),
    };
    let json = serde_json::to_string(&Response::File(made)).unwrap();
    assert_eq!(
        json,
        r#"{"kind":"file","data":{"name":"a.fork.jsonl","notes":["n"]}}"#
    );
}

#[test]
fn prompt_marks_stop_where_someone_typed() {
    // The caveat, `! uv run ty check` and a `/clear` are user lines the
    // index marks as prompts; the engine's branches do not.
    let (name, bytes) = one(SENSITIVE);
    let (session, _) = cli_open(
        corpus().join(SENSITIVE).parent().unwrap(),
        std::slice::from_ref(&name),
        Listing::Chosen,
    );
    let mut tab = Tab::new();
    tab.open(memory(&[(name, bytes)]));
    let prompts = |marks: &mut dyn Iterator<Item = u8>| {
        marks.filter(|m| Marks(*m).has(Marks::PROMPT)).count()
    };
    for &tip in session.tree().tips() {
        let Ok(Response::Branch(branch)) = tab.ask(Request::Branch { leaf: tip.0 }, None) else {
            panic!("no branch");
        };
        let indexed = prompts(&mut session.rows(tip).iter().map(|r| r.marks.0));
        let typed = prompts(&mut branch.rows.marks.iter().copied());
        assert!(typed < indexed, "{typed} of {indexed} kept");
    }
}

/// The scan of the open session to its end: every finding.
fn scanned(tab: &mut Tab) -> Vec<SensitiveFinding> {
    assert!(matches!(tab.ask(Request::Scan, None), Ok(Response::Done)));
    while tab.engine.tick(&mut tab.host) {}
    tab.host
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Scan(r) => Some(r.findings.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn all_bodies(tab: &mut Tab, leaf: u32) -> Bodies {
    match tab.ask(
        Request::Bodies {
            leaf,
            start: 0,
            end: u32::MAX,
        },
        None,
    ) {
        Ok(Response::Bodies(b)) => b,
        other => panic!("{other:?}"),
    }
}

#[test]
fn what_a_review_marks_not_a_secret_shows_as_written_the_rest_hidden() {
    // A Codex rollout with values of many kinds planted (its truth file
    // lists them).
    let bytes = std::fs::read(root().join("tests/fixtures/redact/corpus-s11.jsonl")).unwrap();
    let mut tab = Tab::new();
    let summary = tab.open(memory(&[("corpus-s11.jsonl".into(), bytes)]));
    let leaf = summary.default_leaf.unwrap();
    let findings = scanned(&mut tab);
    let hidden = all_bodies(&mut tab, leaf);
    let hidden_text = serde_json::to_string(&hidden.items).unwrap();
    assert!(hidden.revealed.is_empty());

    // One finding on this branch: its value as written, named beside,
    // and nothing else changed. (An address a message shows: a value
    // elsewhere in a line the rows read, a `cwd`, an event line cut short,
    // is named too but shown in no body.)
    let review = |disable: &[&str], allow: Vec<ReviewAllow>| Request::Review {
        disable: disable.iter().map(|k| k.to_string()).collect(),
        allow,
    };
    let allow = |f: &SensitiveFinding| ReviewAllow {
        file: f.file,
        kind: f.kind.clone(),
        line: f.line,
        hash: f.hash.clone(),
    };
    let shown = |bodies: &Bodies| {
        let text = serde_json::to_string(&bodies.items).unwrap();
        let [value] = &bodies.revealed[..] else {
            panic!("{:?}", bodies.revealed);
        };
        let quoted = serde_json::to_string(value).unwrap();
        text.contains(quoted.trim_matches('"'))
            .then(|| (value.clone(), quoted.trim_matches('"').to_owned(), text))
    };
    let mut chosen = None;
    for f in findings
        .iter()
        .filter(|f| f.leaf == Some(leaf) && f.kind == "email")
    {
        assert!(matches!(
            tab.ask(review(&[], vec![allow(f)]), None),
            Ok(Response::Done)
        ));
        let reviewed = all_bodies(&mut tab, leaf);
        if let Some(found) = shown(&reviewed) {
            chosen = Some((f, found, reviewed));
            break;
        }
    }
    let (f, (value, written, text), reviewed) = chosen.expect("an address a message shows");
    let one = allow(f);
    assert_eq!(hash_hex(value_hash(value.as_bytes())), f.hash);
    assert!(!text.contains(REVEAL_OPEN) && !text.contains(REVEAL_CLOSE));
    // Rows without it read as hidden; those with it lose one chip (a text
    // cut at a length is cut elsewhere then).
    let mut with_it = 0;
    for (i, (got, was)) in reviewed.items.iter().zip(&hidden.items).enumerate() {
        let got = serde_json::to_string(got).unwrap();
        if got.contains(&written) {
            with_it += 1;
            let chips = |t: &str| t.matches(&format!("[REDACTED:{}]", f.kind)).count();
            let was = serde_json::to_string(was).unwrap();
            assert!(chips(&got) < chips(&was), "row {i}: {got}");
        } else {
            assert_eq!(got, serde_json::to_string(was).unwrap(), "row {i}");
        }
    }
    assert!(with_it > 0);
    // A search finds it as shown, its snippet without marks, the value
    // named beside.
    let Ok(Response::SearchResults(found)) = tab.ask(
        Request::Search {
            query: value.clone(),
            filter: SearchFilter::default(),
        },
        None,
    ) else {
        panic!("no search results");
    };
    assert!(!found.hits.is_empty());
    assert_eq!(found.revealed, std::slice::from_ref(&value));
    for hit in &found.hits {
        assert!(hit.snippet.contains(value.as_str()), "{}", hit.snippet);
        assert!(!hit.snippet.contains(REVEAL_OPEN), "{}", hit.snippet);
    }

    // A whole kind: every value of it shown, the other kinds hidden.
    assert!(matches!(
        tab.ask(review(&[f.kind.as_str()], Vec::new()), None),
        Ok(Response::Done)
    ));
    let kind = all_bodies(&mut tab, leaf);
    let text = serde_json::to_string(&kind.items).unwrap();
    assert!(kind.revealed.contains(&value));
    assert!(!text.contains(&format!("[REDACTED:{}]", f.kind)));
    assert!(text.contains("[REDACTED:"), "other kinds hidden");
    assert!(hidden_text.contains(&format!("[REDACTED:{}]", f.kind)));

    // Refused as the download refuses them.
    for bad in [
        review(&["no-such-kind"], Vec::new()),
        review(
            &[],
            vec![ReviewAllow {
                hash: "xyz".into(),
                ..one.clone()
            }],
        ),
    ] {
        let e = tab.ask(bad, None).unwrap_err();
        assert_eq!(e.code, ErrorCode::BadRequest, "{}", e.message);
    }
    let elsewhere = review(&[], vec![ReviewAllow { file: 9, ..one }]);
    assert_eq!(
        tab.ask(elsewhere, None).unwrap_err().code,
        ErrorCode::NotFound
    );
    // Taken back: hidden again.
    tab.ask(review(&[], Vec::new()), None).unwrap();
    assert_eq!(all_bodies(&mut tab, leaf), hidden);
}

#[test]
fn a_subagent_run_names_the_call_that_spawned_it() {
    let project = corpus().join(
        "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees",
    );
    let (dir, names, _) = input(&project);
    let mut tab = Tab::new();
    let summary = tab.open(dropped(&dir, &names));
    let linked: Vec<_> = summary
        .subagents
        .iter()
        .filter(|a| a.spawned_leaf.is_some())
        .cloned()
        .collect();
    assert!(!linked.is_empty(), "{:?}", summary.subagents);
    for a in linked {
        let (leaf, by) = (a.spawned_leaf.unwrap(), a.spawned_by.unwrap());
        let Ok(Response::Branch(branch)) = tab.ask(Request::Branch { leaf }, None) else {
            panic!("no branch");
        };
        // The result's row is on that branch, in that file; the call it
        // answers is on an earlier row of it.
        let row = branch.rows.row_of(by).expect("the result on the branch");
        assert_eq!(Some(branch.rows.file[row]), a.spawned_file);
        assert_ne!(a.spawned_file, Some(a.file));
        let call = a.spawned_call.clone().expect("a call id");
        let bodies = all_bodies(&mut tab, leaf);
        let at = bodies
            .items
            .iter()
            .position(|b| {
                b.message
                    .as_ref()
                    .is_some_and(|m| m.tool_calls().any(|(id, _)| id == call))
            })
            .expect("the call on the branch");
        assert!(at <= row, "the call after its result");
    }
}

fn strings(all: &[&str]) -> Vec<String> {
    all.iter().map(|s| s.to_string()).collect()
}

fn compared(tab: &mut Tab, left: u32, right: u32) -> Comparison {
    match tab.ask(Request::Compare { left, right }, None) {
        Ok(Response::Comparison(c)) => *c,
        other => panic!("{other:?}"),
    }
}

/// The labels of a comparison's rows on each side, line by line (the row
/// both share on the left).
fn sides(c: &Comparison) -> (Vec<String>, Vec<String>) {
    let (mut left, mut right) = (Vec::new(), Vec::new());
    let mut rows = c.rows.label.iter().cloned();
    for &kind in &c.pairs {
        if kind != 4 {
            left.push(rows.next().unwrap());
        }
        if (1..=2).contains(&kind) || kind == 4 {
            right.push(rows.next().unwrap());
        }
    }
    assert_eq!(rows.next(), None);
    (left, right)
}

/// Each row of a comparison is a row of the branch ending at `left` or
/// `right` (the side its line gives it), its body the one `bodies`
/// answers for it (hidden or shown alike).
fn rows_are_the_branches(tab: &mut Tab, c: &Comparison) {
    let (left, right) = (c.left, c.right);
    let mut leaves = Vec::new();
    for &kind in &c.pairs {
        if kind != 4 {
            leaves.push(left);
        }
        if (1..=2).contains(&kind) || kind == 4 {
            leaves.push(if c.compaction { left } else { right });
        }
    }
    let rows = &c.rows;
    assert_eq!((leaves.len(), c.bodies.len()), (rows.len(), rows.len()));
    for (i, leaf) in leaves.into_iter().enumerate() {
        let Ok(Response::Branch(branch)) = tab.ask(Request::Branch { leaf }, None) else {
            panic!("no branch");
        };
        let info = rows.get(i).unwrap();
        let at = branch.rows.row_of(info.entry).expect("a row of the branch");
        assert_eq!(branch.rows.get(at), Some(info));
        assert_eq!(all_bodies(tab, leaf).items[at], c.bodies[i], "row {at}");
    }
}

/// Two branches of a Claude Code session compacted after a rewind: the
/// rows from the fork on, lined up by the core, each with the body the
/// conversation shows; the compaction (by its boundary or its summary
/// line) beside what it hid; the rows and bodies those of the branches,
/// with sensitive data hidden and shown; what cannot be compared refused.
#[test]
fn compare_answers_two_branches_and_what_a_compaction_hid() {
    const REWIND: &str =
        "claude-code/daaain__claude-code-log/test/test_data/dag_compact_after_rewind.jsonl";
    let (name, bytes) = one(REWIND);
    let (session, _) = cli_open(
        corpus().join(REWIND).parent().unwrap(),
        std::slice::from_ref(&name),
        Listing::Chosen,
    );
    let id = |label: &str| session.find(label).unwrap().0;
    let mut tab = Tab::new();
    assert_eq!(
        tab.ask(Request::Compare { left: 0, right: 1 }, None)
            .unwrap_err()
            .code,
        ErrorCode::NoSession
    );
    tab.open(memory(&[(name, bytes)]));
    let (left, right) = (id("p1a"), id("b1a"));
    let c = compared(&mut tab, left, right);
    assert_eq!((c.left, c.right, c.compaction), (left, right, false));
    assert_eq!(c.fork, Some(id("a1")));
    // The shared row, then the prompts and answers of each side beside
    // each other (changed), then the rest of the left alone.
    assert_eq!(c.pairs, [0, 2, 2, 3, 3, 3, 3, 3, 3]);
    assert_eq!(
        sides(&c),
        (
            strings(&["a1", "b2u", "b2a", "b2u2", "b2a2", "cb", "cs", "p1u", "p1a"]),
            strings(&["b1u", "b1a"])
        )
    );
    assert_eq!((c.more_left, c.more_right), (0, 0));
    for hide in [true, false] {
        tab.ask(Request::HideSensitive { hide }, None).unwrap();
        let c = compared(&mut tab, left, right);
        rows_are_the_branches(&mut tab, &c);
    }
    // The compaction, by its boundary or by its summary line: what it hid
    // (everything before it) beside the boundary and the summary.
    for at in ["cb", "cs"] {
        let c = compared(&mut tab, left, id(at));
        assert!(c.compaction, "{at}");
        assert_eq!(c.fork, Some(id("cb")));
        assert_eq!(c.pairs, [2, 2, 3, 3, 3, 3]);
        assert_eq!(
            sides(&c),
            (
                strings(&["u1", "a1", "b2u", "b2a", "b2u2", "b2a2"]),
                strings(&["cb", "cs"])
            )
        );
        rows_are_the_branches(&mut tab, &c);
        // The summary, beside the second row hidden.
        assert_eq!(c.rows.label[3], "cs");
        assert!(c.bodies[3]
            .message
            .as_ref()
            .is_some_and(|m| m.text().contains("continued from a previous")));
    }
    // A leaf compared with itself: only the row they end on.
    let c = compared(&mut tab, left, left);
    assert_eq!(
        (c.pairs.as_slice(), c.compaction),
        ([0u8].as_slice(), false)
    );
    assert_eq!(
        tab.ask(
            Request::Compare {
                left,
                right: 1 << 30
            },
            None
        )
        .unwrap_err()
        .code,
        ErrorCode::NotFound
    );
}

/// On a session with secrets on two branches, both sides are read as
/// bodies are shown: hidden by default, as written (the values named
/// beside) once shown.
#[test]
fn a_comparison_hides_sensitive_data_as_bodies_do() {
    let (name, bytes) = one(SENSITIVE);
    let (session, _) = cli_open(
        corpus().join(SENSITIVE).parent().unwrap(),
        std::slice::from_ref(&name),
        Listing::Chosen,
    );
    let tips: Vec<u32> = session.tree().tips().iter().map(|e| e.0).collect();
    assert!(tips.len() >= 2, "{} tips", tips.len());
    let mut tab = Tab::new();
    tab.open(memory(&[(name, bytes)]));
    let (left, right) = (tips[0], tips[tips.len() - 1]);
    let hidden = compared(&mut tab, left, right);
    let text = serde_json::to_string(&hidden.bodies).unwrap();
    assert!(text.contains("[REDACTED:"), "nothing hidden");
    assert!(hidden.revealed.is_empty());
    tab.ask(Request::HideSensitive { hide: false }, None)
        .unwrap();
    let shown = compared(&mut tab, left, right);
    let text = serde_json::to_string(&shown.bodies).unwrap();
    assert!(!text.contains("[REDACTED:"));
    assert!(!shown.revealed.is_empty());
    assert_eq!(shown.pairs, hidden.pairs);
}

/// A linear pi session of `turns` prompts and answers, each about `size`
/// bytes of text: a file longer than the piece its first screen is read
/// from.
fn long_pi_session(turns: usize, size: usize) -> Vec<u8> {
    let mut out = String::from(
        "{\"type\":\"session\",\"version\":3,\"id\":\"5e55-10\",\"timestamp\":\"2025-06-01T09:00:00.000Z\",\"cwd\":\"/w\"}\n",
    );
    let mut parent = "null".to_owned();
    for i in 0..2 * turns {
        let (role, id) = (
            if i % 2 == 0 { "user" } else { "assistant" },
            format!("{i:08x}"),
        );
        let text = format!("turn {i} ").repeat(size / 8);
        out.push_str(&format!(
            "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"2025-06-01T09:{:02}:{:02}.000Z\",\"message\":{{\"role\":\"{role}\",\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}]}}}}\n",
            i / 60 % 60,
            i % 60
        ));
        parent = format!("\"{id}\"");
    }
    out.into_bytes()
}

/// Opens `bytes` as `name` (`first_rows` asked for or not, `entry` as a
/// deep link's): the events reading sent, the answer.
fn open_seeing_events(
    tab: &mut Tab,
    name: &str,
    bytes: Vec<u8>,
    entry: Option<String>,
    first_rows: bool,
) -> (Vec<Event>, Response) {
    let open = Request::Open {
        leaf_label: None,
        entry,
        first_rows,
    };
    let files = memory(&[(name.to_owned(), bytes)]);
    let Ok(Outcome::Opening(opening)) = tab.engine.call(1, open, Some(files), &mut tab.host) else {
        panic!("no opening");
    };
    let mut events = Vec::new();
    let read = retrace_wasm::engine::ready(opening.read(
        || 0.0,
        |e| {
            events.push(e);
            true
        },
    ))
    .unwrap();
    (events, tab.engine.opened(read, &mut tab.host).unwrap())
}

#[test]
fn the_first_rows_of_a_long_file_come_before_it_is_read_as_the_whole_session_gives_them() {
    // 3 MB: three times the piece the first screen is read from.
    let bytes = long_pi_session(300, 5000);
    assert!(bytes.len() > 3 << 20);
    let mut tab = Tab::new();
    let (events, opened) = open_seeing_events(&mut tab, "long.jsonl", bytes.clone(), None, true);
    let Response::Opened(summary) = opened else {
        panic!("not opened: {opened:?}");
    };
    // One `first_rows`, before any progress (before the file is read).
    assert!(
        matches!(events.first(), Some(Event::FirstRows(_))),
        "{events:?}"
    );
    let firsts = events
        .iter()
        .filter(|e| matches!(e, Event::FirstRows(_)))
        .count();
    assert_eq!(firsts, 1);
    let Some(Event::FirstRows(first)) = events.into_iter().next() else {
        unreachable!()
    };
    // Rows of the file's head only, ids and labels as the whole session's.
    let rows = &first.branch.rows;
    assert!(rows.len() >= 100 && rows.len() < 300, "{} rows", rows.len());
    assert!(first.summary.figures.entries < summary.figures.entries);
    let Response::Branch(whole) = tab
        .ask(
            Request::Branch {
                leaf: first.branch.leaf,
            },
            None,
        )
        .unwrap()
    else {
        panic!("no branch");
    };
    assert_eq!(whole.rows, first.branch.rows);
    assert_eq!(whole.leaf_label, first.branch.leaf_label);
    let Response::Branch(default) = tab
        .ask(
            Request::Branch {
                leaf: summary.default_leaf.unwrap(),
            },
            None,
        )
        .unwrap()
    else {
        panic!("no branch");
    };
    assert_eq!(default.rows.entry[..rows.len()], rows.entry[..]);
    // A screenful of bodies, as the session answers them.
    assert_eq!(first.bodies.start, 0);
    assert_eq!(first.bodies.items.len(), 12);
    let asked = Request::Bodies {
        leaf: first.branch.leaf,
        start: 0,
        end: 12,
    };
    let Response::Bodies(bodies) = tab.ask(asked, None).unwrap() else {
        panic!("no bodies");
    };
    assert_eq!(bodies, first.bodies);
    // Not asked for, or a deep link (it lands elsewhere): none.
    let (events, _) = open_seeing_events(&mut Tab::new(), "long.jsonl", bytes.clone(), None, false);
    assert!(matches!(events.last(), Some(Event::Progress(_))));
    assert!(!events.iter().any(|e| matches!(e, Event::FirstRows(_))));
    let link = Some("0000000a".to_owned());
    let (events, _) = open_seeing_events(&mut Tab::new(), "long.jsonl", bytes, link, true);
    assert!(matches!(events.last(), Some(Event::Progress(_))));
    assert!(!events.iter().any(|e| matches!(e, Event::FirstRows(_))));
}
