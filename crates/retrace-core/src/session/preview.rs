//! What a segment of the tree is about, in one line: the text `retrace
//! tree` prints after a run and the viewer's branch panel shows for it.
//!
//! One rule for every front end, chosen on purpose:
//!
//! - **The first prompt someone typed** among the segment's first
//!   [`LOOKED_AT`] entries: an entry the format calls a prompt
//!   ([`Session::is_prompt`](crate::Session::is_prompt)) whose message is a
//!   user's. That is what a branch is about, and what a person remembers it
//!   by.
//! - **Only what someone typed**: ordinary messages
//!   ([`MessageKind::Normal`]), and of a user message only its typed text
//!   ([`Message::typed_text`]). What the harness wrote
//!   ([`Message::harness`]: Codex's `<environment_context>`, Claude Code's
//!   caveats, `isMeta` lines, slash commands and their output, `!` shell
//!   commands) and compaction and branch summaries are not what anyone
//!   typed; a Codex rollout would otherwise be labelled by its environment
//!   block instead of its prompt. A segment with no typed prompt falls back
//!   to its first slash or shell command, shown as typed (`/init`,
//!   `$ ls`), never with its tags.
//! - **Else the first thing said** on the segment, by whoever said it: a
//!   branch that starts with the model's answer (a retried response, a
//!   subagent's run, the branch after a rewind to an answer) shows that
//!   answer, marked as not a prompt, rather than nothing: sibling branches
//!   are told apart by how they differ.
//! - **One line**: the first line of the text that is not blank, runs of
//!   whitespace as one space, at most [`PREVIEW_CHARS`] characters. A first
//!   line is what a prompt's author wrote as its subject; the lines after
//!   it are often pasted output (a terminal box, a stack trace) that says
//!   less in the same width.

use serde::{Deserialize, Serialize};

use crate::{Message, MessageKind, Piece, Role, Segment, Session, Source, SourceError, UserClass};

/// Characters a preview keeps; a longer line is cut and ends in `…`.
pub const PREVIEW_CHARS: usize = 80;

/// Entries looked at from a segment's first one (each is a body read).
pub const LOOKED_AT: usize = 8;

/// A segment's preview: who said it and the line to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Preview {
    /// Who said it: [`Role::User`] for a prompt.
    pub role: Role,
    /// Whether it is a prompt someone typed; otherwise it is the first
    /// message said on the segment (the model's answer, most often).
    pub prompt: bool,
    /// The first non-blank line of the message's text, whitespace runs as
    /// one space, at most [`PREVIEW_CHARS`] characters (then `…`).
    pub text: String,
}

impl Preview {
    /// The preview as one plain line: a prompt's text, or `role: text` for
    /// anything else (`assistant: I'll look at …`).
    pub fn label(&self) -> String {
        if self.prompt {
            self.text.clone()
        } else {
            format!("{}: {}", self.role.as_str(), self.text)
        }
    }
}

/// The preview of a segment of [`Session::outline`](crate::Session::outline)
/// (see the module doc for the rule); `None` when none of its first
/// entries says anything in text (events, tool output only).
///
/// Bodies are read through `source`: pass a
/// [`RedactingSource`](crate::redact::RedactingSource) to preview the text
/// as shown with sensitive data hidden. A body that does not parse is
/// passed over; only a failed read is an error.
pub fn segment_preview(
    session: &Session,
    source: &mut dyn Source,
    segment: &Segment,
) -> Result<Option<Preview>, SourceError> {
    let tree = session.tree();
    let mut e = segment.first;
    let mut fallback = None;
    for _ in 0..segment.len.min(LOOKED_AT) {
        let prompt = session.is_prompt(e);
        // Once something was said, only a prompt can still win: later
        // bodies need not be read otherwise.
        if prompt || fallback.is_none() {
            for message in session.messages(e, source)? {
                let Some(text) = said(&message) else {
                    continue;
                };
                let Some(text) = first_line(&text, PREVIEW_CHARS) else {
                    continue;
                };
                if prompt && message.is_typed_prompt() {
                    return Ok(Some(Preview {
                        role: message.role,
                        prompt: true,
                        text,
                    }));
                }
                if fallback.is_none() {
                    fallback = Some(Preview {
                        role: message.role,
                        prompt: false,
                        text,
                    });
                }
            }
        }
        match tree.continuation(e) {
            Some(next) => e = next,
            None => break,
        }
    }
    Ok(fallback)
}

/// What a message says for a preview: a user message's typed text
/// ([`Message::is_typed_prompt`] tells whether someone typed it), else its
/// command (`/init args`, `$ ls`), else nothing (context, output,
/// summaries, markers); another role's ordinary message, its text.
fn said(message: &Message) -> Option<String> {
    let injected_with_prompt = message.kind == MessageKind::Meta && !message.harness.is_empty();
    if message.kind != MessageKind::Normal && !injected_with_prompt {
        return None;
    }
    if message.role != Role::User || message.harness.is_empty() {
        return Some(message.text());
    }
    match message.user_class() {
        UserClass::Prompt => Some(message.typed_text()),
        UserClass::Command | UserClass::ShellInput => {
            let command = message
                .harness
                .iter()
                .find(|p| matches!(p, Piece::Command { .. } | Piece::ShellInput { .. }))?;
            Some(command.plain())
        }
        _ => None,
    }
}

/// The first line of `text` that is not blank, whitespace runs as one
/// space, cut to `width` characters (then `…`).
fn first_line(text: &str, width: usize) -> Option<String> {
    let line = text.lines().find(|l| !l.trim().is_empty())?;
    let mut out = String::new();
    for (i, word) in line.split_whitespace().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(word);
    }
    Some(match out.char_indices().nth(width) {
        Some((at, _)) => format!("{}…", &out[..at]),
        None => out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn previews(lines: &str) -> Vec<Option<Preview>> {
        let s = Session::from_bytes("t.jsonl", lines.as_bytes());
        let mut source: &[u8] = lines.as_bytes();
        s.outline()
            .iter()
            .map(|seg| segment_preview(&s, &mut source, seg).unwrap())
            .collect()
    }

    fn prompt(text: &str) -> Option<Preview> {
        Some(Preview {
            role: Role::User,
            prompt: true,
            text: text.to_owned(),
        })
    }

    #[test]
    fn one_line_of_the_first_non_blank_line() {
        assert_eq!(
            first_line("\n  \n  Fix   the\tbug  \nmore", 80).unwrap(),
            "Fix the bug"
        );
        assert_eq!(first_line("  \n\t", 80), None);
        assert_eq!(first_line("", 80), None);
        // Characters, not bytes, and the cut is marked.
        assert_eq!(first_line("héllo wörld", 5).unwrap(), "héllo…");
        assert_eq!(first_line("héllo", 5).unwrap(), "héllo");
        assert_eq!(first_line("a\r\nb", 5).unwrap(), "a");
    }

    #[test]
    fn the_prompt_wins_over_injected_context() {
        // A Codex rollout: the environment block is a user message too.
        let lines = concat!(
            r#"{"timestamp":"2025-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"s1","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.50.0"}}"#,
            "\n",
            r#"{"timestamp":"2025-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"}]}}"#,
            "\n",
            r#"{"timestamp":"2025-01-01T00:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"make the tests pass\nthey fail on CI"}]}}"#,
            "\n",
        );
        assert_eq!(previews(lines), [prompt("make the tests pass")]);
    }

    #[test]
    fn a_branch_that_starts_with_an_answer_shows_it() {
        // pi v3: two answers to one prompt (a retry).
        let lines = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
            "\n",
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hello there"}}"#,
            "\n",
            r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"First try."}]}}"#,
            "\n",
            r#"{"type":"message","id":"a2","parentId":"u1","timestamp":"2025-01-01T00:05:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Second\ntry."}]}}"#,
            "\n",
        );
        let s = Session::from_bytes("t.jsonl", lines.as_bytes());
        let got = previews(lines);
        assert_eq!(got.len(), s.outline().len());
        assert_eq!(got[0], prompt("hello there"));
        let answers: Vec<_> = got[1..].iter().map(|p| p.clone().unwrap()).collect();
        assert!(answers
            .iter()
            .all(|p| !p.prompt && p.role == Role::Assistant));
        let labels: Vec<String> = answers.iter().map(Preview::label).collect();
        assert_eq!(labels, ["assistant: First try.", "assistant: Second"]);
    }

    #[test]
    fn nothing_said_gives_no_preview() {
        let lines = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
            "\n",
            r#"{"type":"model_change","id":"m1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","provider":"p","modelId":"m"}"#,
            "\n",
        );
        assert!(previews(lines).iter().all(Option::is_none));
    }

    #[test]
    fn only_the_first_entries_are_read() {
        // A prompt after LOOKED_AT events is too far in.
        let mut lines = String::from(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
        );
        lines.push('\n');
        let mut parent = "null".to_owned();
        for i in 0..LOOKED_AT {
            lines.push_str(&format!(
                r#"{{"type":"model_change","id":"m{i}","parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z","provider":"p","modelId":"m"}}"#
            ));
            lines.push('\n');
            parent = format!(r#""m{i}""#);
        }
        let prompt_line = format!(
            r#"{{"type":"message","id":"u","parentId":{parent},"timestamp":"2025-01-01T00:00:02.000Z","message":{{"role":"user","content":"late"}}}}"#
        );
        assert_eq!(previews(&format!("{lines}{prompt_line}\n")), [None]);
        // One event fewer and it is found.
        let fewer = lines.replacen(
            r#"{"type":"model_change","id":"m0","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","provider":"p","modelId":"m"}
"#,
            "",
            1,
        );
        let fewer = fewer.replace(r#""parentId":"m0""#, r#""parentId":null"#);
        assert_eq!(
            previews(&format!("{fewer}{prompt_line}\n")),
            [prompt("late")]
        );
    }

    #[test]
    fn labels_mark_what_is_not_a_prompt() {
        let p = Preview {
            role: Role::Assistant,
            prompt: false,
            text: "Done.".into(),
        };
        assert_eq!(p.label(), "assistant: Done.");
        assert_eq!(prompt("hi").unwrap().label(), "hi");
    }
}
