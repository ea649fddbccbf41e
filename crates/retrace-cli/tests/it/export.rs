//! `retrace export --md`: a small session's Markdown whole; every corpus
//! session (and a fixture of each other format) exported, each prompt of
//! its branch in the output as the core reads it; text holding fences
//! and tags kept inside its blocks; `--leaf` and `--branches all`;
//! subagent runs nested under their calls; redaction by default
//! (`--no-redact` warns, `--report` writes what `retrace redact --report`
//! does), the planted secrets of the shared corpus absent; errors that
//! say where and what.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use retrace_core::redact::{RedactingSource, Rules};
use retrace_core::{RowKind, Source};
use retrace_io::{locate, OpenOptions};

use crate::common::*;

/// A small pi session: thinking (shown and redacted by the provider), a
/// read, a model change, a compaction, two prompts.
const PI_SMALL: &str = "pi/kenn-io__agentsview/internal/parser/testdata/pi/session.jsonl";
/// A Claude Code session rewound after its first answer, then compacted.
const CLAUDE_FORKED: &str =
    "claude-code/daaain__claude-code-log/test/test_data/dag_compact_after_rewind.jsonl";

/// `export ARGS… --md`, which must succeed: its stdout.
fn markdown(args: &[&str]) -> String {
    let mut all = vec!["export", "--md", "-q"];
    all.extend(args);
    ok(&retrace(&all))
}

#[test]
fn markdown_of_a_small_session() {
    retrace_snapshot!(cmd(&["export", &corpus(PI_SMALL), "--md"]));
}

/// Every session file of the corpus (side-cars are read with their
/// session, not alone), the project folders that hold one session with
/// its subagent runs, and a fixture of each format the corpus lacks.
pub(crate) fn inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![PathBuf::from(corpus_root())];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                stack.push(path);
            } else if (name.ends_with(".jsonl") || name.ends_with(".json"))
                && !name.ends_with(".meta.json")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() > 40, "corpus not found at {}", corpus_root());
    files.push(PathBuf::from(corpus(PROJECT)));
    files.push(PathBuf::from(corpus(
        "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-deep-manifest",
    )));
    for rel in [
        "provider/openai-chat.json",
        "provider/openai-responses.jsonl",
        "provider/anthropic-messages.json",
        "provider/google-contents.json",
        "provider/agentscope-memory_messages.jsonl",
        "events/events.jsonl",
        "events/split",
        "events/compaction",
        "events/checkpoints",
        "gemini/session-2026-02-03T09-00-5c1f3a9e.jsonl",
        "gemini/split",
        "codex/subagents",
        "codex/fork",
        "codex/ghost-snapshot",
        "gzip/events.jsonl.gz",
    ] {
        let path = PathBuf::from(fixture(rel));
        assert!(path.exists(), "{}", path.display());
        files.push(path);
    }
    files
}

/// Each prompt someone typed on the default branch of `path`, as the core
/// reads it with secrets hidden (what the export shows): its lines.
fn prompt_lines(path: &Path) -> Vec<String> {
    let mut loaded = locate(path)
        .unwrap()
        .load(&OpenOptions::default(), None)
        .unwrap();
    let s = &loaded.session;
    let Some(leaf) = s.tree().default_leaf() else {
        return Vec::new();
    };
    let mut shown = RedactingSource::new(&mut loaded.source, Arc::new(Rules::builtin()));
    let source: &mut dyn Source = &mut shown;
    let mut lines = Vec::new();
    for row in s.rows(leaf).iter().filter(|r| r.kind == RowKind::Message) {
        let Some(m) = s.row_message(row, source).unwrap() else {
            continue;
        };
        if m.is_typed_prompt() {
            let text = m.typed_text();
            lines.extend(
                text.lines()
                    .map(|l| l.trim().to_owned())
                    .filter(|l| !l.is_empty()),
            );
        }
    }
    lines
}

/// The Markdown as its words read, for finding a session's text in it:
/// what the export escapes (`&lt;` for a tag's `<`) and its headings'
/// marks (the session's headings are moved down) taken out.
fn words(markdown: &str) -> String {
    markdown
        .replace("&lt;", "<")
        .lines()
        .map(|l| l.trim_start_matches('#').trim())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_session_exports_with_the_prompts_of_its_branch() {
    let mut prompts = 0;
    for path in inputs() {
        let name = path.to_string_lossy().into_owned();
        let o = retrace(&["export", "--md", "-q", &name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        let md = stdout(&o);
        assert!(md.starts_with("# "), "{name}: {md}");
        assert_eq!(open_blocks(&md), 0, "{name}");
        assert!(md.contains("- **Redacted:**"), "{name}");
        let read = words(&md);
        for line in prompt_lines(&path) {
            let line = line.trim_start_matches('#').trim();
            assert!(
                read.contains(line),
                "{name}: prompt line {line:?} not in\n{md}"
            );
            prompts += 1;
        }
    }
    assert!(prompts > 100, "only {prompts} prompt lines checked");
}

#[test]
fn fences_and_tags_in_a_body_stay_inside_its_blocks() {
    // A prompt that opens a fence it never closes and closes a block it
    // never opened; a tool output holding fences and the block's closing
    // tag; a thought with raw HTML.
    let line = |id: &str, parent: &str, message: serde_json::Value| {
        let parent = match parent {
            "" => serde_json::Value::Null,
            p => p.into(),
        };
        serde_json::json!({"type": "message", "id": id, "parentId": parent,
            "timestamp": "2026-01-01T00:00:01.000Z", "message": message})
        .to_string()
            + "\n"
    };
    let session = [
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#.to_owned() + "\n",
        line("a", "", serde_json::json!({"role": "user", "content": [{"type": "text",
            "text": "Why does this break?\n</details>\n```sh\ncat notes.md"}]})),
        line("b", "a", serde_json::json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Maybe <script>alert(1)</script> or </summary>"},
            {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "cat notes.md"}}]})),
        line("c", "b", serde_json::json!({"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
            "content": [{"type": "text", "text": "````md\n```\n</details>\n</summary>\n````"}], "isError": true})),
        line("d", "c", serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})),
    ]
    .concat();
    let path = Scratch::new("export_fences").write("fences.jsonl", session);
    let o = retrace_snapshot!(cmd(&["export", "--md", "-q", &path]), @"
    exit_code: 0
    ----- stdout -----
    # Why does this break?

    - **Format:** pi v3
    - **Source:** `fences.jsonl`
    - **Started:** 2026-01-01 00:00:00 UTC
    - **Ended:** 2026-01-01 00:00:01 UTC (1.0 s)
    - **Entries:** 5; on the branch to `d`: 4 rows, 1 prompt
    - **Redacted:** secrets and personal data are replaced by `[REDACTED:kind]`

    ## User · 2026-01-01 00:00:01 · line 2

    Why does this break?
    &lt;/details>
    ```sh
    cat notes.md
    ```

    ### Assistant · 2026-01-01 00:00:01 · line 3

    <details>
    <summary>Thinking · 4 words</summary>

    Maybe &lt;script>alert(1)&lt;/script> or &lt;/summary>

    </details>

    <details>
    <summary><code>bash</code> $ cat notes.md · ✗ error</summary>

    ```sh
    cat notes.md
    ```

    `````text
    ````md
    ```
    </details>
    </summary>
    ````
    `````

    </details>

    ### Assistant · 2026-01-01 00:00:01 · line 5

    Done.

    ----- stderr -----
    ");
    assert_eq!(open_blocks(&stdout(&o)), 0);
}

#[test]
fn a_leaf_and_every_branch() {
    // The branch to a leaf of the pi fixture: its compaction, not the
    // other branch's call.
    let md = markdown(&[&corpus(PI_V3), "--leaf", "e6"]);
    assert!(md.contains("### Compaction summary"), "{md}");
    assert!(md.contains("- **Branches:** 2 in the session; this is the one to `e6` (line 7)"));
    assert!(!md.contains("future"), "{md}");
    // Every branch: the shared prefix once, each later branch from where
    // it forks, headed by what it forks from.
    let path = corpus(CLAUDE_FORKED);
    let md = markdown(&[&path, "--branches", "all"]);
    assert!(
        md.contains("- **Branches:** 2, each written from where it forks"),
        "{md}"
    );
    assert!(md.contains("## Branch 1 · to `p1a` · line 12\n"), "{md}");
    let second = md.find("## Branch 2 ·").expect(&md);
    assert!(
        md[..second].contains("> ⋔ Branch 2 goes on from here.\n"),
        "{md}"
    );
    assert!(
        md[second..].contains("> Forks from branch 1 after line 2: assistant: “Ready”\n"),
        "{md}"
    );
    assert_eq!(md.matches("\nStart\n").count(), 1, "{md}");
    // Each message row once: no heading names a line twice.
    let mut lines: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("## User") || l.starts_with("### "))
        .filter_map(|l| l.rsplit(" · ").next())
        .collect();
    let all = lines.len();
    lines.sort_unstable();
    lines.dedup();
    assert_eq!(lines.len(), all, "{md}");
    // Every line of the file is read: every message is written.
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(all, text.lines().count() - 1, "{md}");
}

#[test]
fn subagent_runs_sit_in_the_blocks_of_the_calls_that_spawned_them() {
    let md = markdown(&[&corpus(PROJECT)]);
    assert!(!md.contains("Other subagent runs"), "{md}");
    let runs: Vec<usize> = md
        .match_indices("<summary>Subagent run ")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(runs.len(), 6, "the six runs of the folder");
    for at in runs {
        // The nearest call block opened before it is an `Agent` call's,
        // and still open: the run's block is inside it.
        let call = md[..at].rfind("<details>\n<summary><code>").unwrap();
        assert!(
            md[call..].starts_with("<details>\n<summary><code>Agent</code>"),
            "{}",
            &md[call..at]
        );
        let depth = open_blocks(&md[call..at]);
        assert_eq!(
            depth,
            2,
            "the call's block and the run's: {}",
            &md[call..at]
        );
    }
    assert_eq!(open_blocks(&md), 0);
    // Codex sub-agents, linked to the `spawn_agent` outputs that name them.
    let md = markdown(&[&fixture("codex/subagents")]);
    assert!(!md.contains("Other subagent runs"), "{md}");
    for id in ["0000000000b1", "0000000000b2"] {
        let run = format!("<summary>Subagent run 0199e200-0000-7000-8000-{id}");
        assert_eq!(md.matches(&run).count(), 1, "{md}");
    }
}

/// How many `<details>` blocks are open at the end of `md`, counting the
/// lines outside fenced code as CommonMark reads them (a fence closes on
/// a run of its character at least as long). Panics on a block closed
/// that was never opened.
fn open_blocks(md: &str) -> usize {
    let mut fence: Option<(char, usize)> = None;
    let mut depth = 0usize;
    for line in md.lines() {
        let run = |c: char| line.chars().take_while(|&x| x == c).count();
        match fence {
            Some((c, n)) => {
                if run(c) >= n && line[run(c)..].trim().is_empty() {
                    fence = None;
                }
            }
            None => {
                for c in ['`', '~'] {
                    if run(c) >= 3 {
                        fence = Some((c, run(c)));
                    }
                }
                match line {
                    "<details>" => depth += 1,
                    "</details>" => depth = depth.checked_sub(1).expect("a block closed twice"),
                    _ => {}
                }
            }
        }
    }
    assert!(fence.is_none(), "a fence left open");
    depth
}

#[test]
fn redacted_by_default_with_what_was_hidden_on_stderr_or_in_a_report() {
    let session = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"Deploy with AKIA2E0A8F3B244C9986 and mail jane.doe@quantumleap-labs.io"}]}}"#,
        "\n",
    );
    let dir = Scratch::new("export_redaction");
    let path = dir.write("keys.jsonl", session);
    retrace_snapshot!(cmd(&["export", "--md", &path]), @r"
    exit_code: 0
    ----- stdout -----
    # Deploy with \[REDACTED:aws-access-key-id\] and mail \[REDACTED:email\]

    - **Format:** pi v3
    - **Source:** `keys.jsonl`
    - **Started:** 2026-01-01 00:00:00 UTC
    - **Ended:** 2026-01-01 00:00:01 UTC (1.0 s)
    - **Entries:** 2; on the branch to `a`: 1 row, 1 prompt
    - **Redacted:** secrets and personal data are replaced by `[REDACTED:kind]`

    ## User · 2026-01-01 00:00:01 · line 2

    Deploy with [REDACTED:aws-access-key-id] and mail [REDACTED:email]

    ----- stderr -----
    retrace: [SCRATCH]/export_redaction/keys.jsonl: redacted 2 match(es) in 1 of 1 lines: aws-access-key-id 1, email 1
    ");
    retrace_snapshot!(cmd(&["export", "--md", "--no-redact", &path]), @"
    exit_code: 0
    ----- stdout -----
    # Deploy with AKIA2E0A8F3B244C9986 and mail jane.doe@quantumleap-labs.io

    - **Format:** pi v3
    - **Source:** `keys.jsonl`
    - **Started:** 2026-01-01 00:00:00 UTC
    - **Ended:** 2026-01-01 00:00:01 UTC (1.0 s)
    - **Entries:** 2; on the branch to `a`: 1 row, 1 prompt
    - **Not redacted:** secrets and personal data are as written

    ## User · 2026-01-01 00:00:01 · line 2

    Deploy with AKIA2E0A8F3B244C9986 and mail jane.doe@quantumleap-labs.io

    ----- stderr -----
    retrace: [SCRATCH]/export_redaction/keys.jsonl: --no-redact: secrets and personal data are written as they are; check the output before sharing it
    ");
    // The report is `retrace redact --report`'s, its lines the file's.
    let report = dir.path("report.json");
    let out = dir.path("keys.md");
    let o = retrace(&["export", "--md", &path, "-o", &out, "--report", &report]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let md = std::fs::read_to_string(&out).unwrap();
    assert_eq!(md, markdown(&[&path]));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(report["total"], 2);
    assert_eq!(
        report["counts"],
        serde_json::json!({"aws-access-key-id": 1, "email": 1})
    );
    for f in report["findings"].as_array().unwrap() {
        assert_eq!(f["line"], 2, "{f}");
    }
    // Nothing to report without redaction.
    let o = retrace(&[
        "export",
        "--md",
        &path,
        "--no-redact",
        "--report",
        &dir.path("r2.json"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}

#[test]
fn no_planted_secret_of_the_shared_corpus_is_left() {
    // The generated evaluation fixture (`tests/fixtures/redact`): every
    // planted value the export writes without redaction is gone with it.
    let input = fixture("redact/corpus-s11.jsonl");
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("redact/corpus-s11.truth.json")).unwrap(),
    )
    .unwrap();
    let dir = Scratch::new("export_planted");
    let report = dir.path("export.json");
    let redacted = markdown(&[&input, "--branches", "all", "--report", &report]);
    let plain = markdown(&[&input, "--branches", "all", "--no-redact"]);
    let (mut written, mut left) = (0, Vec::new());
    for p in truth["planted"].as_array().unwrap() {
        let mut values = vec![p["value"].as_str().unwrap()];
        if let Some(f) = p["fragments"].as_array() {
            values.extend(f.iter().map(|v| v.as_str().unwrap()));
        }
        if !values.iter().any(|v| plain.contains(v)) {
            continue;
        }
        written += 1;
        if values.iter().any(|v| redacted.contains(v)) {
            left.push(format!("line {} {}", p["line"], p["kind"]));
        }
    }
    assert!(
        written > 200,
        "only {written} planted values written at all"
    );
    assert!(left.is_empty(), "left in the export: {left:?}");
    // Every line is read: the findings are those of `retrace redact`.
    let whole = dir.path("redact.json");
    let o = retrace(&[
        "redact",
        &input,
        "-o",
        &dir.path("out.jsonl"),
        "--report",
        &whole,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let findings = |file: &str| {
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let mut f: Vec<String> = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.to_string())
            .collect();
        f.sort();
        (f, r["counts"].clone())
    };
    assert_eq!(findings(&report), findings(&whole));
}

#[test]
fn bad_inputs_say_where_and_what() {
    let dir = Scratch::new("export_errors");
    retrace_snapshot!(cmd(&["export", "--md", &dir.path("missing.jsonl")]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/export_errors/missing.jsonl: no such file or directory
    ");
    let png = dir.write(
        "shot.png",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0\0\0\x01\0\x08\x06\0\0\0",
    );
    retrace_snapshot!(cmd(&["export", "--md", &png]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/export_errors/shot.png: a PNG image, not a session file
    ");
    retrace_snapshot!(cmd(&["export", "--md", &corpus(PI_V3), "--leaf", "nope"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl: no entry with id `nope` or an id starting with it (ids are entry ids, a unique prefix of one, or L<line> for entries without one)
    ");
    retrace_snapshot!(cmd(&["export", &corpus(PI_V3)]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: the following required arguments were not provided:
      <--md|--html>

    Usage: retrace export <--md|--html> <PATH>

    For more information, try '--help'.
    ");
    let out = dir.path("no/such/dir/out.md");
    retrace_snapshot!(cmd(&["export", "--md", &corpus(PI_V3), "-o", &out]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: cannot write [SCRATCH]/export_errors/no/such/dir/out.md: no such file or directory
    ");
}
