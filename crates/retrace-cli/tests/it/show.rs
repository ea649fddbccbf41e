//! `retrace show`.

use crate::common::*;

#[test]
fn show_prints_the_branch_with_tool_calls() {
    // The branch to e6: the compaction summary first, then the read call
    // and its result.
    retrace_snapshot!(cmd(&["show", &corpus(PI_V3), "--leaf", "e6"]), @"
    exit_code: 0
    ----- stdout -----
    ── compaction summary · 2026-01-01 00:00:05 · line 6 ──
    sanitized

    ── assistant · alpha · 2026-01-01 00:00:03 · line 4 ──
    ▶ read  (call-1)
       │ redacted fixture
       tokens: in 10 out 5 cache read 0 cache write 0

    ── assistant · alpha · 2026-01-01 00:00:06 · line 7 ──
    sanitized
       tokens: in 12 out 8 cache read 0 cache write 0

    ----- stderr -----
    ");
    let o = retrace(&["show", "--json", &corpus(PI_V3), "--leaf", "e6"]);
    let ids: Vec<String> = json_lines(&o)
        .iter()
        .map(|m| m["entries"][0].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["e5", "e3", "e4", "e6"]);
    retrace_snapshot!(
        "show_json_to_e6",
        cmd(&["show", "--json", &corpus(PI_V3), "--leaf", "e6"]).pretty()
    );
}

#[test]
fn leaf_by_line_label() {
    // pi v1 has no ids: entries are named by line. The branch to line 5
    // is four messages, from the user's on line 2.
    let path = corpus(PI_V1);
    retrace_snapshot!(cmd(&["show", &path, "--leaf", "L5"]));
    // `cat` of that branch is the header and lines 2–5, byte for byte.
    let o = retrace(&["cat", &path, "--leaf", "L5"]);
    let file = std::fs::read(&path).unwrap();
    let first5: usize = file
        .split_inclusive(|&b| b == b'\n')
        .take(5)
        .map(|l| l.len())
        .sum();
    assert!(o.stdout == file[..first5], "the first five lines");
    // The header is not on the conversation tree.
    retrace_snapshot!(cmd(&["show", &path, "--leaf", "L1"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [CORPUS]/pi/badlogic__pi-mono/session.jsonl: `L1` is not part of the conversation tree (a `session` line, line 1)
    ");
}

#[test]
fn an_id_used_twice_is_ambiguous() {
    // A Claude Code file whose assistant lines 2 and 4 share a uuid (a
    // copied line, a resumed session): `--leaf a1` names neither; each is
    // reached by its line, in every command that takes `--leaf`.
    let line = |kind: &str, uuid: &str, parent: &str, n: u32, content: &str| {
        let parent = match parent {
            "" => "null".to_owned(),
            p => format!("\"{p}\""),
        };
        format!(
            r#"{{"type":"{kind}","uuid":"{uuid}","parentUuid":{parent},"sessionId":"s1","timestamp":"2026-01-01T00:00:0{n}Z","message":{{"role":"{kind}","content":{content}}}}}"#
        ) + "\n"
    };
    let text = |t: &str| format!(r#"[{{"type":"text","text":"{t}"}}]"#);
    let file = [
        line("user", "u1", "", 0, r#""first""#),
        line("assistant", "a1", "u1", 1, &text("one")),
        line("user", "u2", "a1", 2, r#""second""#),
        line("assistant", "a1", "u2", 3, &text("two")),
    ]
    .concat();
    let path = &Scratch::new("ambiguous_leaf").write("dup.jsonl", file);
    retrace_snapshot!(cmd(&["show", path, "--leaf", "a1"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/ambiguous_leaf/dup.jsonl: id `a1` is used on lines 2 and 4; name one as L2 or L4
    ");
    for verb in ["cat", "migrate"] {
        let mut args = vec![verb, path, "--leaf", "a1"];
        if verb == "migrate" {
            args.extend(["--to", "openai"]);
        }
        let o = retrace(&args);
        assert_eq!(o.status.code(), Some(2), "{verb}");
        assert!(
            stderr(&o).contains("id `a1` is used on lines 2 and 4; name one as L2 or L4"),
            "{verb}: {}",
            stderr(&o)
        );
    }
    // Each by its line.
    let o = retrace(&["migrate", path, "--to", "openai", "--leaf", "L4"]);
    let body: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        body["messages"][3],
        serde_json::json!({"role": "assistant", "content": "two"})
    );
    let o = retrace(&["migrate", path, "--to", "openai", "--leaf", "L2"]);
    let body: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(body["messages"].as_array().unwrap().len(), 2);
    assert_eq!(body["messages"][1]["content"], "one");
    let o = retrace(&["cat", path, "--leaf", "L2"]);
    assert_eq!(stdout(&o).lines().count(), 2);
}

#[test]
fn show_marks_every_tool_error() {
    let path = corpus(CLAUDE_REWIND);
    let text = stdout(&retrace(&["show", &path]));
    let errors_in_json: usize = json_lines(&retrace(&["show", "--json", &path]))
        .iter()
        .flat_map(|m| m["content"].as_array().unwrap().clone())
        .filter(|p| p["type"] == "tool_result" && p["is_error"] == true)
        .count();
    assert_eq!(
        errors_in_json, 3,
        "the three failed tool results of the file"
    );
    // Each failed result closes its call's block with an error status.
    let marked = text
        .lines()
        .filter(|l| l.starts_with("   ← ") && l.ends_with("error"))
        .count();
    assert_eq!(marked, errors_in_json, "{text}");
    assert!(text.contains("[thinking]") || text.contains("▶ "), "{text}");
}

#[test]
fn a_split_set_shows_in_numeric_order() {
    // events_2 … events_10 read in numeric order: the tool outputs count
    // from 1 to 10.
    let o = retrace(&["show", "--json", &fixture("events/split")]);
    assert!(o.status.success(), "{o:?}");
    let outputs: Vec<String> = json_lines(&o)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"][0]["output"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(outputs, ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
    retrace_snapshot!(cmd(&["show", &fixture("events/split")]));
}

/// A Claude Code session whose user ran Claude Code's `/context` (24-bit
/// colours in the command's output) and Bash calls.
const ANSI: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl";

/// Piped, `show` writes each call as its tool with its result inside, in
/// full: no JSON of arguments, no escaped line breaks, no result cards of
/// their own, no escapes.
#[test]
fn piped_show_reads_tools_in_full_without_escapes() {
    let text = stdout(&retrace(&["show", &corpus(CODEX)]));
    // `["bash","-lc","ls"]` reads as typed, with its output inside.
    assert!(
        text.contains(
            "▶ shell · $ ls  (call_GfHib9GW3d5m9EB1wMTper0j)\n   in /home/user/projects/temp/chatbot-ui\n   │ LM Studio configuration.md\n"
        ),
        "{text}"
    );
    assert!(!text.contains("\"-lc\""));
    // No escaped line break in any tool's title or input (the output of
    // a `cat` of source code may well hold a `\n`).
    let titles = text.lines().filter(|l| l.starts_with("▶ "));
    assert_eq!(titles.clone().count(), 39);
    for l in titles {
        assert!(!l.contains("\\n") && !l.contains('{'), "{l}");
    }
    assert!(
        !text.contains("── tool result"),
        "results are in their calls' blocks"
    );
    assert!(!text.contains("more lines"), "nothing cut when piped");
    // The user's long prompt in full (it was cut at 200 characters).
    assert!(text.contains("so look for functions etc... that still need work to get this working. \"LM Studio configuration.md\" read this to help you\n"));
    // A plan reads as its steps.
    assert!(
        text.contains("▶ update_plan · 2 steps")
            || text.contains("[~] Inspect existing LM Studio integration points"),
        "{text}"
    );
    let o = retrace(&["show", &corpus(ANSI)]);
    let text = stdout(&o);
    assert!(
        !text.contains('\u{1b}') && !text.contains("[38;2;"),
        "{text}"
    );
    assert!(text.contains("claude-sonnet-4-5-20250929 · 66k/200k tokens (33%)"));
}

/// `--color always` paints heads, titles and status, and keeps the
/// terminal colours of tool output (re-written, nothing else let through).
#[test]
fn show_in_colour() {
    let text = stdout(&retrace(&["show", "--color", "always", &corpus(ANSI)]));
    assert!(
        text.contains("\u{1b}[38;2;153;153;153m"),
        "the output's own colours"
    );
    assert!(
        text.contains("── \u{1b}[1;36muser\u{1b}[0m"),
        "the user's head"
    );
    assert!(text.contains("\u{1b}[1;33m▶ Bash · $ "), "a tool title");
    let never = stdout(&retrace(&["show", "--color", "never", &corpus(ANSI)]));
    assert!(!never.contains('\u{1b}'));
    assert_eq!(never, stdout(&retrace(&["show", &corpus(ANSI)])));
}

/// `--max-lines` and `--width` cut tool output and the model's text, never
/// the user's own prompt.
#[test]
fn show_cuts_only_when_asked() {
    let full = stdout(&retrace(&["show", &corpus(CODEX)]));
    let cut = stdout(&retrace(&[
        "show",
        "--max-lines",
        "4",
        "--width",
        "60",
        &corpus(CODEX),
    ]));
    assert!(
        cut.len() < full.len() / 2,
        "{} of {}",
        cut.len(),
        full.len()
    );
    assert!(
        cut.contains("   │ … 26 more lines (--max-lines to see more) …\n"),
        "{cut}"
    );
    // The prompt (over 300 characters) is whole.
    assert!(cut.contains("read this to help you\n"));
    assert!(cut
        .lines()
        .filter(|l| l.starts_with("   │ "))
        .all(|l| l.chars().count() <= 60 + 6));
}

/// A subagent's run is named with the command that shows it, and that
/// command works.
#[test]
fn show_names_subagent_runs_with_the_command_to_open_them() {
    let text = stdout(&retrace(&["show", &corpus(PROJECT)]));
    let runs: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("   ↳ subagent run "))
        .collect();
    assert_eq!(runs.len(), 6, "{text}");
    let (id, command) = runs[0].split_once(": ").unwrap();
    let path = command.strip_prefix("retrace show ").unwrap();
    assert!(
        path.ends_with(&format!("subagents/agent-{id}.jsonl")),
        "{path}"
    );
    let o = retrace(&["show", path]);
    assert!(o.status.success(), "{o:?}");
    assert!(stdout(&o).contains("── user"));
}

#[test]
fn show_reads_a_codex_commands_end_into_its_call() {
    // `exec_command_end` (exit code, duration, stderr apart) in the
    // block of its call; the turn's settings once per change; each step's
    // usage under it.
    retrace_snapshot!(cmd(&["show", "--max-lines", "4", &fixture("codex/exec-events/rollout.jsonl")]), @"
    exit_code: 0
    ----- stdout -----
    ── system · 2026-03-05 10:00:00 · line 1 ──
    You are Codex, a coding agent.

    ── user (context) · 2026-03-05 10:00:01 · line 4 ──
    [environment] cwd: /home/user/proj (+1 lines)

    ── user · 2026-03-05 10:00:01 · line 5 ──
    run the tests and fix what fails

    ── assistant · gpt-5.2-codex · 2026-03-05 10:00:03 · line 7 ──
    [turn settings] model gpt-5.2-codex · effort medium · approval on-request · cwd /home/user/proj · sandbox workspace-write
    [thinking]
       **Running the tests**
    [/thinking]
    ▶ exec_command · $ cargo test  (call_a)
       │ running 2 tests
       │ test adds ... ok
       │ test four ... FAILED
       stderr:
       │ error: test failed, to rerun pass `--lib`
       ← exit 101 · error · 2.3500 seconds
       tokens: in 100 out 20 cache read 0 cache write 0

    ── assistant · gpt-5.2-codex · 2026-03-05 10:00:07 · line 13 ──
    [thinking]
       **Fixing the assertion**
    [/thinking]
    ▶ apply_patch  (call_b)
       *** Update File: src/lib.rs
       @@
       -    assert_eq!(2 + 2, 5);
       +    assert_eq!(2 + 2, 4);
       │ Success. Updated the following files:
       │ M src/lib.rs
       tokens: in 130 out 25 cache read 0 cache write 0

    ── assistant · gpt-5.2-codex · 2026-03-05 10:00:09 · line 19 ──
    ▶ exec_command · $ cargo test  (call_c)
       │ running 2 tests
       │ test adds ... ok
       │ test four ... ok
       ← exit 0 · 1.8 s
       tokens: in 50 out 10 cache read 100 cache write 0

    ── assistant · gpt-5.2-codex · 2026-03-05 10:00:12 · line 23 ──
    The `four` test asserted 2 + 2 = 5; fixed it, and both tests pass.
       tokens: in 30 out 20 cache read 150 cache write 0

    ── user · 2026-03-05 10:01:00 · line 29 ──
    is the tree clean?

    ── assistant · gpt-5.2-codex · 2026-03-05 10:01:02 · line 31 ──
    [turn settings] model gpt-5.2-codex · effort high · approval on-request · cwd /home/user/proj · sandbox workspace-write
    ▶ shell · $ git status --short  (call_d)
       in /home/user/proj
       │  M src/lib.rs
       ← exit 0 · 41 ms
       tokens: in 20 out 15 cache read 180 cache write 0

    ── assistant · gpt-5.2-codex · 2026-03-05 10:01:04 · line 35 ──
    One change: `src/lib.rs`, the fix.
       tokens: in 20 out 10 cache read 190 cache write 0

    ----- stderr -----
    ");
}

/// The block of the first tool call whose result has a stderr: from its
/// `▶` title to the line before the next message's head.
fn first_block_with_stderr(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("stderr:"))
        .expect("a result with stderr");
    let start = (0..at).rev().find(|&i| lines[i].contains("▶ ")).unwrap();
    let end = (at..lines.len())
        .find(|&i| lines[i].contains("── "))
        .unwrap_or(lines.len());
    lines[start..end].join("\n")
}

/// Claude Code keeps a Bash result's stdout and stderr apart beside its
/// text (`toolUseResult`): `show` prints stderr apart and labelled, as it
/// does Codex's and Gemini CLI's, in red on a terminal.
#[test]
fn claude_code_stderr_is_shown_apart() {
    let file = fixture("generated/claude-s1.jsonl.gz");
    let text = stdout(&retrace(&[
        "show",
        &file,
        "--max-lines",
        "6",
        "--width",
        "72",
    ]));
    insta::assert_snapshot!(first_block_with_stderr(&text), @r#"
    ▶ Bash · $ pytest -q tests/  (toolu_013nUUe8e0qGWIqK7fNZs24T)
       # Mut ✅ tool response.
       │ test cache::config ... ok
       │ {"level":"info","ts":283756592.515,"msg":"content_module_server pub","pa…
       stderr:
       │    Compiling the_there v0.5.7
       │ Value extract warning at branch! →
       │    18% |██████████| compile_node_size
       │     at message.some (/home/dev/project/src/message.ts:401:34)
       │ 2025-03-01T11:40:14.567000Z WARN  [string_tool-1] Next unicode pattern q…
       │ … 29 more lines (--max-lines to see more) …
       │ web/src/App.tsx:1517:    with_cost.parentId = content_fix;
       tokens: in 3 out 63 cache read 14990 cache write 55
    "#);
    let coloured = stdout(&retrace(&[
        "show",
        &file,
        "--max-lines",
        "6",
        "--width",
        "72",
        "--color",
        "always",
    ]));
    let block = first_block_with_stderr(&coloured);
    assert!(block.contains("\u{1b}[1;31m   stderr:\u{1b}[0m"), "{block}");
    // Its lines in the error colour where the tool wrote no colour of its
    // own.
    assert!(block.contains("   │ \u{1b}[31m"), "{block}");
}
