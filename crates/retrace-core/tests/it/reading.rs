//! What a person reads, on real files of every format: tool calls as
//! their tools, each paired with its result (one block per call, with
//! hook lines between them), shell output's exit code and streams, and
//! terminal colours parsed out of tool output.

use crate::common::*;
use retrace_core::ansi::{self, Color};
use retrace_core::{pair_calls, Part, RowKind, Session, ToolOutput, ToolView};

/// The tool calls of a branch's context, as (name, view).
fn calls(s: &Session, files: &[Vec<u8>], leaf: retrace_core::EntryId) -> Vec<(String, ToolView)> {
    let messages = s.context(leaf, &mut source(files)).unwrap();
    messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            Part::ToolCall {
                name, arguments, ..
            } => Some((name.clone(), ToolView::of(name, arguments))),
            _ => None,
        })
        .collect()
}

fn kind(v: &ToolView) -> &'static str {
    match v {
        ToolView::Shell { .. } => "shell",
        ToolView::Read { .. } => "read",
        ToolView::Write { .. } => "write",
        ToolView::Edit { .. } => "edit",
        ToolView::Search { .. } => "search",
        ToolView::Agent { .. } => "agent",
        ToolView::Web { .. } => "web",
        ToolView::Mcp { .. } => "mcp",
        ToolView::Plan { .. } => "plan",
        ToolView::Other { .. } => "other",
    }
}

/// Each tool name of the corpus lands on its kind, on every branch of
/// every file: a name of a known kind never falls back to key/value
/// because its arguments were read wrong.
#[test]
fn every_corpus_call_is_its_tool() {
    let expected = |name: &str| match name {
        "Bash" | "bash" | "shell" | "run_shell_command" => "shell",
        "Read" | "read" | "read_file" => "read",
        "Write" | "write" => "write",
        "Edit" | "MultiEdit" | "edit" | "replace" => "edit",
        "Grep" | "Glob" | "LS" | "list_directory" => "search",
        "Task" | "Agent" => "agent",
        "WebFetch" | "WebSearch" | "google_web_search" => "web",
        "TodoWrite" | "update_plan" => "plan",
        _ => "other",
    };
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for path in corpus_files() {
        if path.to_string_lossy().ends_with(".meta.json") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let s = Session::from_bytes(&path.to_string_lossy(), &bytes);
        let files = vec![bytes];
        for &tip in s.tree().tips() {
            for (name, view) in calls(&s, &files, tip) {
                // A call written without arguments (pi's, cut short) has
                // nothing to show but its name.
                if view == (ToolView::Other { fields: Vec::new() }) {
                    continue;
                }
                // Codex runs a patch through its shell tool.
                if name == "shell" && matches!(view, ToolView::Edit { .. }) {
                    *seen.entry("edit").or_default() += 1;
                    continue;
                }
                assert_eq!(kind(&view), expected(&name), "{name} in {}", path.display());
                *seen.entry(kind(&view)).or_default() += 1;
            }
        }
    }
    // Every kind but MCP (no corpus session calls an MCP tool) is there.
    for k in [
        "shell", "read", "write", "edit", "search", "agent", "web", "plan", "other",
    ] {
        assert!(
            seen.get(k).copied().unwrap_or(0) > 0,
            "no {k} call: {seen:?}"
        );
    }
}

const CODEX: &str = "codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl";
const AGENT: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl";
const DEMO: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl";
const GEMINI: &str =
    "gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-11-19T20-45-42f4bde7.json";
const ANSI: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl";
const PENDING: &str =
    "claude-code/kenn-io__agentsview/internal/parser/testdata/claude/tool_call_pending.jsonl";

#[test]
fn codex_argv_reads_as_typed_and_heredocs_keep_their_lines() {
    let (s, bytes) = open(CODEX);
    let calls = calls(&s, &[bytes], s.tree().default_leaf().unwrap());
    let (name, first) = &calls[0];
    assert_eq!(name, "shell");
    assert_eq!(
        *first,
        ToolView::Shell {
            command: "ls".into(),
            cwd: Some("/home/user/projects/temp/chatbot-ui".into()),
            description: None,
        }
    );
    assert_eq!(first.title(name), "$ ls");
    // No `bash -lc` and no escaped line breaks left in any command.
    let shells: Vec<&String> = calls
        .iter()
        .filter_map(|(_, v)| match v {
            ToolView::Shell { command, .. } => Some(command),
            _ => None,
        })
        .collect();
    assert!(shells.len() > 20);
    assert!(shells
        .iter()
        .all(|c| !c.starts_with("bash ") && !c.contains("\\n")));
    let plans = calls
        .iter()
        .filter(|(_, v)| matches!(v, ToolView::Plan { steps } if steps.len() > 1));
    assert_eq!(plans.count(), 2);
}

#[test]
fn claude_agent_prompt_is_markdown_with_real_line_breaks() {
    let (s, bytes) = open(AGENT);
    let calls = calls(&s, &[bytes], s.tree().default_leaf().unwrap());
    let agents: Vec<&ToolView> = calls
        .iter()
        .filter(|(n, _)| n == "Agent")
        .map(|(_, v)| v)
        .collect();
    assert!(!agents.is_empty());
    let ToolView::Agent {
        prompt,
        description,
        ..
    } = agents[0]
    else {
        panic!("{:?}", agents[0])
    };
    assert!(prompt.starts_with("You are **alice**"), "{prompt}");
    assert!(prompt.contains("\n\n") && !prompt.contains("\\n"));
    assert_eq!(
        description.as_deref(),
        Some("Research Claude Code plan mode")
    );
}

/// On a real Claude Code branch, every call row's results are found on
/// later rows past the hook lines between them; each result row folds
/// into the row of its call, and both halves agree.
#[test]
fn claude_rows_pair_calls_with_results_across_hook_lines() {
    let (s, bytes) = open(DEMO);
    let files = vec![bytes];
    let mut src = source(&files);
    let leaf = s.tree().tips()[0];
    let rows = s.rows(leaf);
    let mut calls = 0;
    let mut folded = 0;
    let mut across_events = 0;
    for (i, row) in rows.iter().enumerate() {
        if row.kind != RowKind::Message {
            continue;
        }
        let Some(m) = s.row_message(row, &mut src).unwrap() else {
            continue;
        };
        let pairing = s.row_pairing(&rows, i, &m, &mut src).unwrap();
        let ids: Vec<&str> = m.tool_calls().map(|(id, _)| id).collect();
        calls += ids.len();
        // Every call of this branch is answered.
        assert_eq!(pairing.results.len(), ids.len(), "row {i}");
        assert!(pairing.unanswered.is_empty());
        for r in &pairing.results {
            assert!(ids.contains(&r.call_id.as_str()));
            if rows[i + 1..r.row].iter().any(|x| x.kind == RowKind::Event) {
                across_events += 1;
            }
            // The result's row says it folds back into this one.
            let rm = s.row_message(&rows[r.row], &mut src).unwrap().unwrap();
            let back = s.row_pairing(&rows, r.row, &rm, &mut src).unwrap();
            assert_eq!(back.folded_into, Some(i), "row {} of {i}", r.row);
            assert!(back.answered.contains(&r.call_id));
        }
        if pairing.folded_into.is_some() {
            folded += 1;
            assert!(m.tool_calls().next().is_none());
        }
    }
    assert!(calls >= 2, "{calls}");
    assert_eq!(folded, calls, "one result row per call in this session");
    assert!(across_events > 0, "some pairs have hook lines between them");
}

/// A call whose result was never written stays unanswered, to the end
/// of the branch.
#[test]
fn a_call_without_a_result_stays_unpaired() {
    let (s, bytes) = open(PENDING);
    let files = vec![bytes];
    let mut src = source(&files);
    let rows = s.rows(s.tree().default_leaf().unwrap());
    let mut unanswered = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        if let Some(m) = s.row_message(row, &mut src).unwrap() {
            unanswered.extend(s.row_pairing(&rows, i, &m, &mut src).unwrap().unanswered);
        }
    }
    assert_eq!(unanswered.len(), 1, "{unanswered:?}");
    let messages = s
        .context(s.tree().default_leaf().unwrap(), &mut src)
        .unwrap();
    let calls = messages.iter().flat_map(|m| m.tool_calls()).count();
    assert_eq!(pair_calls(&messages).len(), calls - 1);
}

/// A Gemini CLI record holds the model turn and its results: they pair
/// inside the row, and the shell result's framing is taken apart.
#[test]
fn gemini_calls_pair_inside_their_record_and_shell_output_is_framed() {
    let (s, bytes) = open(GEMINI);
    let files = vec![bytes];
    let mut src = source(&files);
    let rows = s.rows(s.tree().default_leaf().unwrap());
    let messages = s
        .context(s.tree().default_leaf().unwrap(), &mut src)
        .unwrap();
    let pairs = pair_calls(&messages);
    let calls = messages.iter().flat_map(|m| m.tool_calls()).count();
    assert!(calls > 3);
    assert_eq!(pairs.len(), calls);
    // The model turn, then its results: the next message.
    assert!(pairs.iter().all(|p| p.result.0 == p.call.0 + 1));
    for (i, row) in rows.iter().enumerate() {
        if let Some(m) = s.row_message(row, &mut src).unwrap() {
            let p = s.row_pairing(&rows, i, &m, &mut src).unwrap();
            assert!(p.results.is_empty() && p.answered.is_empty() && p.unanswered.is_empty());
        }
    }
    // Gemini's `run_shell_command` output, from a real session.
    let (s, bytes) = open_many(&[
        "gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-12-06T07-22-e0f194ce.json",
    ]);
    let messages = s
        .context(s.tree().default_leaf().unwrap(), &mut source(&bytes))
        .unwrap();
    let framed: Vec<ToolOutput> = messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            Part::ToolResult { output, .. } if output.starts_with("Command: ") => {
                Some(ToolOutput::of(output))
            }
            _ => None,
        })
        .collect();
    assert!(!framed.is_empty());
    assert!(framed.iter().all(|o| !o.output.starts_with("Command: ")));
    assert!(framed.iter().any(|o| o.exit_code == Some(0)));
}

/// Codex's newer plain-text exec output (`Process exited with code N`,
/// `Output:`), from the fixture written in its shape.
#[test]
fn codex_exec_output_gives_its_exit_code() {
    let (s, files) = open_fixtures(&["codex/rollback.jsonl"]);
    let mut codes = Vec::new();
    for &tip in s.tree().tips() {
        for row in s.rows(tip) {
            let Some(m) = s.row_message(&row, &mut source(&files)).unwrap() else {
                continue;
            };
            for p in &m.content {
                if let Part::ToolResult { output, .. } = p {
                    let o = ToolOutput::of(output);
                    assert!(!o.output.contains("Process exited with code"), "{o:?}");
                    codes.extend(o.exit_code);
                }
            }
        }
    }
    codes.sort();
    codes.dedup();
    assert_eq!(codes, [0, 1]);
}

/// Tool output with 24-bit colours (Claude Code's own CLI run in a Bash
/// call): parsed into coloured spans with no escape left behind.
#[test]
fn terminal_colours_in_real_tool_output() {
    let (s, bytes) = open(ANSI);
    let messages = s
        .context(s.tree().default_leaf().unwrap(), &mut source(&[bytes]))
        .unwrap();
    let coloured: Vec<&String> = messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            Part::ToolResult { output, .. } | Part::Text { text: output } => Some(output),
            _ => None,
        })
        .filter(|t| ansi::has_escapes(t))
        .collect();
    assert!(!coloured.is_empty());
    let mut grey = false;
    for text in coloured {
        let spans = ansi::parse(text);
        for span in &spans {
            assert!(!span.text.contains('\u{1b}') && !span.text.contains("[38;2;"));
            grey |= span.style.fg == Some(Color::Rgb(153, 153, 153));
        }
        let plain: String = spans.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(ansi::strip(text), plain);
    }
    assert!(grey, "the grey of Claude Code's CLI is parsed");
}

/// An event stream's `tool_call` event holds the call and its result (one
/// row, paired inside it); a provider list's `tool` messages fold into the
/// assistant message that made the calls.
#[test]
fn events_and_provider_lists_pair_their_calls() {
    let (s, files) = open_fixtures(&["events/events.jsonl"]);
    let mut src = source(&files);
    let leaf = s.tree().default_leaf().unwrap();
    let messages = s.context(leaf, &mut src).unwrap();
    let pairs = pair_calls(&messages);
    assert_eq!(pairs.len(), 2);
    let rows = s.rows(leaf);
    let mut in_row = 0;
    for (i, row) in rows.iter().enumerate() {
        let Some(m) = s.row_message(row, &mut src).unwrap() else {
            continue;
        };
        let p = s.row_pairing(&rows, i, &m, &mut src).unwrap();
        assert!(p.results.is_empty() && p.unanswered.is_empty());
        if m.tool_calls().next().is_some() && m.tool_results().next().is_some() {
            in_row += 1;
        }
    }
    assert_eq!(in_row, 2);

    let (s, files) = open_fixtures(&["provider/openai-chat.jsonl"]);
    let mut src = source(&files);
    let leaf = s.tree().default_leaf().unwrap();
    let rows = s.rows(leaf);
    let mut results = 0;
    let mut folded = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let m = s.row_message(row, &mut src).unwrap().unwrap();
        let p = s.row_pairing(&rows, i, &m, &mut src).unwrap();
        results += p.results.len();
        folded.extend(p.folded_into);
    }
    assert_eq!(results, 2, "parallel calls, two tool messages");
    assert_eq!(folded.len(), 2);
    assert_eq!(folded[0], folded[1], "both fold into the assistant message");
}

/// A pi read of a screenshot returns its text and the image: the image
/// goes with the result into the call's block (by its place among the
/// images of the result's row), since the result's row folds away.
#[test]
fn a_results_images_go_with_it_into_the_calls_block() {
    let (s, bytes) = open("pi/badlogic__pi-mono/compact.jsonl");
    let files = vec![bytes];
    let mut src = source(&files);
    let mut images = Vec::new();
    for &leaf in s.tree().tips() {
        let rows = s.rows(leaf);
        for (i, row) in rows.iter().enumerate() {
            let Some(m) = s.row_message(row, &mut src).unwrap() else {
                continue;
            };
            for r in s.row_pairing(&rows, i, &m, &mut src).unwrap().results {
                if r.images.is_empty() {
                    continue;
                }
                let rm = s.row_message(&rows[r.row], &mut src).unwrap().unwrap();
                let back = s.row_pairing(&rows, r.row, &rm, &mut src).unwrap();
                assert_eq!(back.folded_into, Some(i));
                let in_row = rm
                    .content
                    .iter()
                    .filter(|p| matches!(p, Part::Image { .. }))
                    .count();
                for img in &r.images {
                    assert!(img.index < in_row);
                    assert_eq!(img.media_type, "image/png");
                    assert!(img.byte_size > 1000, "{img:?}");
                }
                images.push((r.row, r.images.len()));
            }
        }
    }
    assert!(!images.is_empty());
    assert!(images.iter().all(|&(_, n)| n == 1), "{images:?}");
}
