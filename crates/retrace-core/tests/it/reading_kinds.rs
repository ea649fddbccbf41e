//! Every message kind read as a person reads it, on real files: harness
//! text recognised per format (slash commands, `!` commands and their
//! output, context, interruptions), titles from the first typed prompt,
//! Gemini CLI notices with their text, Codex items by type, event streams'
//! transitions and model calls.

use retrace_core::{
    event_line, segment_preview, Marks, Message, MessageKind, Part, Piece, Role, RowKind, Session,
    UserClass,
};

use crate::common::{corpus_files, open, open_fixtures, source};

const CC: &str = "claude-code/iansherr__claude-code-log/test/test_data";
const INIT: &str = "claude-code/d-kimuson__claude-code-viewer/mock-global-claude-dir/projects/sample-project/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl";
const CODEX: &str = "codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl";
const GEMINI: &str =
    "gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-12-13T19-01-049d9bb6.json";

/// Every message on the default branch.
fn history(s: &Session, bytes: &[u8]) -> Vec<Message> {
    let leaf = s.tree().default_leaf().unwrap();
    s.context(leaf, &mut &bytes[..]).unwrap()
}

/// The label of every segment of the tree, as `retrace tree` and the
/// viewer's branch panel show it.
fn labels(s: &Session, bytes: &[u8]) -> Vec<Option<String>> {
    s.outline()
        .iter()
        .map(|seg| {
            segment_preview(s, &mut &bytes[..], seg)
                .unwrap()
                .map(|p| p.label())
        })
        .collect()
}

/// The tags no title nor recognised piece may show.
const RAW: &[&str] = &[
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<local-command-stdout>",
    "<local-command-caveat>",
    "<environment_context>",
    "<user_instructions>",
    "<turn_aborted>",
];

fn has_raw_tag(text: &str) -> bool {
    RAW.iter().any(|t| text.contains(t))
}

#[test]
fn a_slash_command_is_a_command_and_titles_its_branch_without_tags() {
    let (s, bytes) = open(INIT);
    let messages = history(&s, &bytes);
    let first = &messages[0];
    assert_eq!(
        first.harness,
        [Piece::Command {
            name: "/init".into(),
            args: String::new()
        }]
    );
    assert_eq!(first.user_class(), UserClass::Command);
    // The expanded prompt of the command (`isMeta`) is context.
    assert_eq!(messages[1].user_class(), UserClass::Context);
    assert!(
        matches!(&messages[1].harness[0], Piece::Context { text, .. } if text.starts_with("Please analyze this codebase"))
    );
    // No prompt was typed: the branch is named by the command as typed.
    assert_eq!(labels(&s, &bytes), [Some("user: /init".to_owned())]);
}

#[test]
fn bash_commands_output_and_caveats_are_recognised_and_never_title() {
    let file = format!(
        "{CC}/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl"
    );
    let (s, bytes) = open(&file);
    let messages = history(&s, &bytes);
    let user: Vec<&Message> = messages.iter().filter(|m| m.role == Role::User).collect();
    assert_eq!(user[0].user_class(), UserClass::Context);
    assert!(
        matches!(&user[0].harness[0], Piece::Context { label, text } if label == "caveat" && text.starts_with("Caveat: The messages below"))
    );
    assert_eq!(
        user[1].harness,
        [Piece::ShellInput {
            command: "uv run ty check".into()
        }]
    );
    let Piece::ShellOutput { stdout, stderr } = &user[2].harness[0] else {
        panic!("{:?}", user[2].harness);
    };
    // Newlines kept, stderr apart.
    assert!(stdout.starts_with("error[invalid-assignment]"));
    assert!(stdout.lines().count() > 20, "{stdout}");
    assert!(stderr.starts_with("WARN ty is pre-release software"));
    assert_eq!(user[3].user_class(), UserClass::Prompt);
    assert!(user[3].harness.is_empty());
    // Branch labels: the root (the caveat) has none, the `/clear` branch
    // its command, the other its first typed prompt.
    let labels = labels(&s, &bytes);
    assert_eq!(
        labels,
        [
            None,
            Some("user: /clear".to_owned()),
            Some("Please fix these lint errors".to_owned())
        ]
    );
}

#[test]
fn every_claude_code_harness_tag_in_the_corpus_is_recognised() {
    let mut seen = 0;
    for path in corpus_files() {
        let relative = path.strip_prefix(crate::common::corpus()).unwrap();
        let relative = relative.to_str().unwrap();
        if !relative.starts_with("claude-code") {
            continue;
        }
        let (s, bytes) = open(relative);
        for leaf in s.tree().leaves() {
            for m in s.context(leaf, &mut &bytes[..]).unwrap() {
                if m.role != Role::User || !has_raw_tag(&m.text()) {
                    continue;
                }
                seen += 1;
                assert!(!m.harness.is_empty(), "{relative}: {:?}", m.text());
                for piece in &m.harness {
                    assert!(
                        !has_raw_tag(&piece.plain()),
                        "{relative} line {:?}: {piece:?}",
                        m.lines
                    );
                }
            }
        }
        for label in labels(&s, &bytes).into_iter().flatten() {
            assert!(!has_raw_tag(&label), "{relative}: {label}");
            assert!(!label.contains("Caveat:"), "{relative}: {label}");
        }
    }
    assert!(seen >= 20, "only {seen} messages with harness tags");
}

#[test]
fn command_args_local_output_and_interruptions() {
    let (s, bytes) = open(&format!("{CC}/edge_cases.jsonl"));
    let pieces: Vec<Piece> = s
        .tree()
        .leaves()
        .flat_map(|leaf| s.context(leaf, &mut &bytes[..]).unwrap())
        .flat_map(|m| m.harness)
        .collect();
    assert!(pieces.contains(&Piece::Command {
        name: "/test-command".into(),
        args: "--verbose --output /tmp/test.log".into()
    }));
    assert!(pieces.iter().any(|p| matches!(p,
        Piece::ShellOutput { stdout, .. } if stdout.starts_with("Command output here:\nLine 1 of output\nLine 2 of output"))));
    let (s, bytes) = open(&format!(
        "{CC}/real_projects/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl"
    ));
    let interrupted = history(&s, &bytes)
        .into_iter()
        .filter(|m| {
            m.harness.iter().any(|p| {
                matches!(p, Piece::Interrupted { text } if text == "Request interrupted by user for tool use")
            })
        })
        .count();
    assert!(interrupted >= 1);
}

#[test]
fn codex_environment_is_context_and_the_prompt_titles() {
    let (s, bytes) = open(CODEX);
    let messages = history(&s, &bytes);
    let env = messages
        .iter()
        .find(|m| m.role == Role::User)
        .expect("a user message");
    assert_eq!(env.user_class(), UserClass::Context);
    assert!(matches!(&env.harness[..], [Piece::Context { label, text }]
        if label == "environment" && text.starts_with("cwd: /home/user/projects/temp/chatbot-ui\napproval_policy: never")));
    let label = labels(&s, &bytes)[0].clone().unwrap();
    assert!(
        label.starts_with("finish up the users work by rigging up the chatbot-ui"),
        "{label}"
    );
}

#[test]
fn codex_items_by_type() {
    let (s, bytes) = open(CODEX);
    let messages = history(&s, &bytes);
    // The ghost snapshot is a checkpoint with its commit.
    let checkpoint = messages
        .iter()
        .find_map(|m| {
            m.content.iter().find_map(|p| match p {
                Part::Checkpoint { commit, .. } => Some(commit.clone()),
                _ => None,
            })
        })
        .expect("a checkpoint");
    assert!(checkpoint.starts_with("a01966e"), "{checkpoint}");
    // Reasoning belongs to the response that calls the tool, with its
    // summary text; token counts are the response's usage.
    let step = messages
        .iter()
        .find(|m| m.role == Role::Assistant && m.tool_calls().next().is_some())
        .unwrap();
    assert!(
        matches!(&step.content[0], Part::Thinking { text, .. } if text.contains("Planning repository inspection"))
    );
    assert_eq!(step.usage.map(|u| (u.input, u.output)), Some((10128, 37)));
    // The turn's settings: once, as the first step's context.
    let pieces: Vec<(u32, &Piece)> = messages
        .iter()
        .flat_map(|m| m.harness.iter().map(|p| (m.lines[0], p)))
        .filter(|(_, p)| matches!(p, Piece::Context { label, .. } if label == "turn settings"))
        .collect();
    assert_eq!(pieces.len(), 1, "{pieces:?}");
    assert_eq!(pieces[0].0, step.lines[0]);
    // Rows: every message row has a role; what is left of the bookkeeping
    // lines as rows of their own (the session's start, the settings and
    // count after the last output) reads in words.
    let leaf = s.tree().default_leaf().unwrap();
    let mut events = Vec::new();
    for row in s.rows(leaf) {
        match row.kind {
            RowKind::Message => {
                let m = s.row_message(&row, &mut &bytes[..]).unwrap().unwrap();
                assert!(
                    !row.role.is_empty() || m.kind == MessageKind::Marker,
                    "line {:?} has no role",
                    m.lines
                );
            }
            RowKind::Event => {
                let body = s.body(row.entries[0], &mut &bytes[..]).unwrap().unwrap();
                let line = event_line(&body);
                for bare in ["event_msg", "turn_context", "response_item", "session_meta"] {
                    assert!(!line.contains(bare), "{line}");
                }
                events.push(line);
            }
        }
    }
    assert_eq!(events.len(), 3, "{events:?}");
    assert!(events[0].starts_with("session started in /home/user/projects/temp/chatbot-ui"));
    assert!(events[1].starts_with(
        "turn settings: model gpt-5.1-codex · effort high · approval never · cwd /home/user/projects/temp/chatbot-ui · sandbox danger-full-access"
    ));
    assert!(events[2].starts_with("token count: in "));
}

#[test]
fn gemini_notices_keep_their_text() {
    let (s, bytes) = open(GEMINI);
    let messages = history(&s, &bytes);
    let notices: Vec<String> = messages
        .iter()
        .filter(|m| m.kind == MessageKind::Marker)
        .map(Message::text)
        .collect();
    assert!(notices.contains(&"error: IDE integration is not supported in your current environment. To use this feature, run Gemini CLI in one of these supported IDEs: Antigravity, VS Code, or VS Code forks.".to_owned())
        || notices.iter().any(|n| n.starts_with("error: IDE integration is not supported in your current environment")), "{notices:?}");
    assert!(notices
        .iter()
        .any(|n| n.starts_with("error: Invalid subcommand for /permissions: manage")));
    assert!(notices.contains(&"info: Memory is currently empty.".to_owned()));
    // Rows: an error notice is a message row marked as an error.
    let leaf = s.tree().default_leaf().unwrap();
    let errors: Vec<String> = s
        .rows(leaf)
        .iter()
        .filter(|r| r.kind == RowKind::Message && r.marks.has(Marks::ERROR))
        .map(|r| s.row_message(r, &mut &bytes[..]).unwrap().unwrap().text())
        .collect();
    assert_eq!(errors.len(), 4, "{errors:?}");
    assert!(errors.iter().all(|e| e.starts_with("error: ")));
}

#[test]
fn event_streams_show_transitions_and_model_calls() {
    let (s, files) = open_fixtures(&["events/events.jsonl"]);
    let mut src = source(&files);
    let leaf = s.tree().default_leaf().unwrap();
    let rows = s.rows(leaf);
    let mut transitions = Vec::new();
    let mut calls = Vec::new();
    for row in &rows {
        assert_eq!(row.kind, RowKind::Message, "{}", row.entry_type);
        let m = s.row_message(row, &mut src).unwrap().unwrap();
        match row.entry_type.as_str() {
            "state_transition" => transitions.push(m.text()),
            "llm_call" => calls.push(m),
            "final_output" => assert_eq!(row.role, "assistant"),
            _ => {}
        }
    }
    assert_eq!(
        transitions[0],
        "start → planner\nquery: What is the weather in Paris?"
    );
    assert_eq!(
        transitions[1],
        r#"planner → tools
pending_tools: ["get_weather","get_forecast"]"#
    );
    // A model call is the model's answer with its model; the prompt sent
    // is its context, not an injected message of its own.
    let call = &calls[0];
    assert_eq!(call.role, Role::Assistant);
    assert_eq!(call.kind, MessageKind::Normal);
    assert_eq!(call.model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(call.text(), "I will call get_weather and get_forecast.");
    assert!(matches!(&call.harness[..], [Piece::Context { label, text }]
        if label == "prompt sent to the model" && text.starts_with("[system] You are a weather assistant")));
}

/// The prompt marks of every branch's rows once the harness rows lose
/// theirs: (the rows marked from the index, the text of each row still
/// marked).
fn prompt_marks(s: &Session, bytes: &[u8], leaf: retrace_core::EntryId) -> (usize, Vec<String>) {
    let mut rows = s.rows(leaf);
    let indexed = rows.iter().filter(|r| r.marks.has(Marks::PROMPT)).count();
    s.mark_typed_prompts(&mut rows, &mut &bytes[..]).unwrap();
    let typed = rows
        .iter()
        .filter(|r| r.marks.has(Marks::PROMPT))
        .map(|r| {
            s.row_message(r, &mut &bytes[..])
                .unwrap()
                .unwrap()
                .typed_text()
        })
        .collect();
    (indexed, typed)
}

#[test]
fn prompt_marks_skip_what_the_harness_wrote() {
    // Claude Code: the caveat, `! uv run ty check` and its output, and a
    // `/clear` with its output are user lines the index calls prompts.
    let file = format!(
        "{CC}/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl"
    );
    let (s, bytes) = open(&file);
    let mut typed_on_some_branch = Vec::new();
    for &tip in s.tree().tips() {
        let (indexed, typed) = prompt_marks(&s, &bytes, tip);
        assert!(typed.len() < indexed, "{indexed} marked, {typed:?} typed");
        assert!(typed
            .iter()
            .all(|t| !has_raw_tag(t) && !t.starts_with("Caveat:")));
        typed_on_some_branch.extend(typed);
    }
    // The branch the `/clear` starts has no typed prompt; the other's
    // first is the one that titles it.
    assert!(typed_on_some_branch[0].starts_with("Please fix these lint errors"));

    // Codex: the environment block is not a prompt; the first typed one is.
    let (s, bytes) = open(CODEX);
    let (indexed, typed) = prompt_marks(&s, &bytes, s.tree().default_leaf().unwrap());
    assert!(
        typed.len() < indexed,
        "{indexed} marked, {} typed",
        typed.len()
    );
    assert!(typed[0].starts_with("finish up the users work by rigging up the chatbot-ui"));
}

#[test]
fn prompt_marks_come_off_every_harness_row_and_only_there() {
    // Every file of the corpus, every branch: a row the harness wrote
    // alone (its message has harness pieces and no typed prompt) loses
    // its mark, though only rows whose text opens like harness text are
    // read; a typed prompt keeps it; no row gains one.
    let (mut cleared, mut read) = (0, 0);
    for path in corpus_files() {
        let relative = path.strip_prefix(crate::common::corpus()).unwrap();
        let (s, bytes) = open(relative.to_str().unwrap());
        for &tip in s.tree().tips() {
            let indexed = s.rows(tip);
            let mut rows = indexed.clone();
            s.mark_typed_prompts(&mut rows, &mut &bytes[..]).unwrap();
            for (before, after) in indexed.iter().zip(&rows) {
                let name = format!("{} L{}", path.display(), s.entry(before.entries[0]).line);
                assert_eq!(
                    after.marks.0 | Marks::PROMPT,
                    before.marks.0 | Marks::PROMPT
                );
                if !before.marks.has(Marks::PROMPT) {
                    assert!(!after.marks.has(Marks::PROMPT), "{name}");
                    continue;
                }
                let Some(m) = s.row_message(before, &mut &bytes[..]).unwrap() else {
                    continue;
                };
                let harness_only = !m.harness.is_empty() && !m.is_typed_prompt();
                if harness_only {
                    assert!(!after.marks.has(Marks::PROMPT), "{name}: {:?}", m.harness);
                    cleared += 1;
                }
                if m.is_typed_prompt() {
                    assert!(after.marks.has(Marks::PROMPT), "{name}");
                }
                let hinted = before
                    .entries
                    .iter()
                    .any(|&e| s.entry(e).flags.has(retrace_core::Flags::HARNESS_TEXT));
                read += usize::from(hinted);
            }
        }
    }
    assert!(cleared > 20, "{cleared} rows cleared");
    println!("{cleared} harness rows cleared, {read} prompt rows read");
}
