//! What an agent's harness wrote into user-side messages, recognised: a
//! slash command, a shell command the user ran and its output, context the
//! harness added (environment, instructions, caveats, reminders), an
//! interruption. Views show each as what it is (a `/init` chip, a terminal
//! block, a collapsed context row) instead of its raw tags, and titles come
//! from the text a person typed.
//!
//! The message keeps its text as written (a migration sends the tags the
//! model saw); the recognised pieces ride beside it in
//! [`Message::harness`](crate::Message::harness). Which tags each format
//! writes is the normalizers' business (`normalize/harness.rs`).

use serde::{Deserialize, Serialize};

/// One recognised piece of a user-side message, in the order written.
// Read back through `PieceWire`, one flat struct, as `Part` is: serde's
// derive for an internally tagged enum buffers every object first (6 KB
// of the viewer's gzipped bundle).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case", try_from = "PieceWire")]
pub enum Piece {
    /// Text a person typed.
    Prompt {
        /// The text, trimmed.
        text: String,
    },
    /// A slash command the person ran (`/init`, `/clear`): its name with
    /// the slash, and its arguments.
    Command {
        /// `/init`.
        name: String,
        /// What followed the name, empty when nothing did.
        args: String,
    },
    /// A shell command the person ran from the prompt (Claude Code `!`).
    ShellInput {
        /// The command line.
        command: String,
    },
    /// What a shell command or a local slash command printed, newlines
    /// kept.
    ShellOutput {
        /// Standard output.
        stdout: String,
        /// Standard error, apart.
        stderr: String,
    },
    /// Text the harness added for the model: the environment, instructions,
    /// a caveat, a reminder, the file open in the IDE.
    Context {
        /// What it is, in words (`environment`, `caveat`).
        label: String,
        /// Its text, tags taken out.
        text: String,
    },
    /// The person stopped the model (`[Request interrupted by user]`,
    /// Codex `<turn_aborted>`).
    Interrupted {
        /// What the harness wrote, tags taken out.
        text: String,
    },
}

/// A [`Piece`] as written: `kind` and the union of every variant's fields.
#[derive(Deserialize)]
struct PieceWire {
    kind: PieceKind,
    text: Option<String>,
    name: Option<String>,
    args: Option<String>,
    command: Option<String>,
    stdout: Option<String>,
    stderr: Option<String>,
    label: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum PieceKind {
    Prompt,
    Command,
    ShellInput,
    ShellOutput,
    Context,
    Interrupted,
}

impl TryFrom<PieceWire> for Piece {
    type Error = String;

    fn try_from(w: PieceWire) -> Result<Piece, String> {
        fn need(v: Option<String>, field: &str, kind: &str) -> Result<String, String> {
            v.ok_or_else(|| format!("missing field `{field}` in a `{kind}` piece"))
        }
        Ok(match w.kind {
            PieceKind::Prompt => Piece::Prompt {
                text: need(w.text, "text", "prompt")?,
            },
            PieceKind::Command => Piece::Command {
                name: need(w.name, "name", "command")?,
                args: need(w.args, "args", "command")?,
            },
            PieceKind::ShellInput => Piece::ShellInput {
                command: need(w.command, "command", "shell_input")?,
            },
            PieceKind::ShellOutput => Piece::ShellOutput {
                stdout: need(w.stdout, "stdout", "shell_output")?,
                stderr: need(w.stderr, "stderr", "shell_output")?,
            },
            PieceKind::Context => Piece::Context {
                label: need(w.label, "label", "context")?,
                text: need(w.text, "text", "context")?,
            },
            PieceKind::Interrupted => Piece::Interrupted {
                text: need(w.text, "text", "interrupted")?,
            },
        })
    }
}

/// What a user-side message is, as a whole: the classification rows and
/// titles go by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UserClass {
    /// Someone typed it: it may title a session or a branch.
    Prompt,
    /// A slash command (with or without its output).
    Command,
    /// A shell command the user ran (with or without its output).
    ShellInput,
    /// Only the output of a shell or slash command.
    ShellOutput,
    /// Only what the harness added, or an interruption.
    Context,
}

impl UserClass {
    /// The lower-case name used in text and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            UserClass::Prompt => "prompt",
            UserClass::Command => "command",
            UserClass::ShellInput => "shell input",
            UserClass::ShellOutput => "shell output",
            UserClass::Context => "context",
        }
    }
}

/// The class of a message made of `pieces`: a prompt when any piece is
/// typed text, else the command, the shell input, the output, the context,
/// in that order. `Prompt` for no pieces (nothing was recognised: all of
/// it was typed).
pub fn class_of(pieces: &[Piece]) -> UserClass {
    let has = |f: fn(&Piece) -> bool| pieces.iter().any(f);
    if pieces.is_empty() || has(|p| matches!(p, Piece::Prompt { .. })) {
        UserClass::Prompt
    } else if has(|p| matches!(p, Piece::Command { .. })) {
        UserClass::Command
    } else if has(|p| matches!(p, Piece::ShellInput { .. })) {
        UserClass::ShellInput
    } else if has(|p| matches!(p, Piece::ShellOutput { .. })) {
        UserClass::ShellOutput
    } else {
        UserClass::Context
    }
}

impl Piece {
    /// The piece as one line of plain text without tags: `/init args`,
    /// `$ ls`, the output, `[environment] cwd: /w`, the prompt.
    pub fn plain(&self) -> String {
        match self {
            Piece::Prompt { text } | Piece::Interrupted { text } => text.clone(),
            Piece::Command { name, args } if args.is_empty() => name.clone(),
            Piece::Command { name, args } => format!("{name} {args}"),
            Piece::ShellInput { command } => format!("$ {command}"),
            Piece::ShellOutput { stdout, stderr } => match (stdout.is_empty(), stderr.is_empty()) {
                (_, true) => stdout.clone(),
                (true, false) => stderr.clone(),
                (false, false) => format!("{stdout}\n{stderr}"),
            },
            Piece::Context { label, text } => format!("[{label}] {text}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(t: &str) -> Piece {
        Piece::Prompt { text: t.into() }
    }

    #[test]
    fn the_class_goes_by_the_strongest_piece() {
        let context = Piece::Context {
            label: "caveat".into(),
            text: "x".into(),
        };
        let command = Piece::Command {
            name: "/init".into(),
            args: String::new(),
        };
        let output = Piece::ShellOutput {
            stdout: "ok".into(),
            stderr: String::new(),
        };
        assert_eq!(class_of(&[]), UserClass::Prompt);
        assert_eq!(class_of(std::slice::from_ref(&context)), UserClass::Context);
        assert_eq!(
            class_of(&[context.clone(), output.clone()]),
            UserClass::ShellOutput
        );
        assert_eq!(class_of(&[output, command.clone()]), UserClass::Command);
        assert_eq!(
            class_of(&[command.clone(), context, prompt("hi")]),
            UserClass::Prompt
        );
        assert_eq!(command.plain(), "/init");
    }

    #[test]
    fn pieces_cross_as_json_and_back() {
        let pieces = vec![
            prompt("hi"),
            Piece::ShellInput {
                command: "ls".into(),
            },
            Piece::Interrupted {
                text: "stopped".into(),
            },
        ];
        let json = serde_json::to_string(&pieces).unwrap();
        assert!(json.contains(r#""kind":"shell_input""#));
        assert_eq!(serde_json::from_str::<Vec<Piece>>(&json).unwrap(), pieces);
    }

    #[test]
    fn every_kind_reads_back_and_a_missing_field_is_named() {
        let pieces = vec![
            prompt("hi"),
            Piece::Command {
                name: "/init".into(),
                args: "now".into(),
            },
            Piece::ShellInput {
                command: "ls".into(),
            },
            Piece::ShellOutput {
                stdout: "a\nb".into(),
                stderr: "oops".into(),
            },
            Piece::Context {
                label: "caveat".into(),
                text: "x".into(),
            },
            Piece::Interrupted {
                text: "stopped".into(),
            },
        ];
        let json = serde_json::to_string(&pieces).unwrap();
        assert_eq!(serde_json::from_str::<Vec<Piece>>(&json).unwrap(), pieces);
        let err = serde_json::from_str::<Piece>(r#"{"kind":"command","name":"/x"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("missing field `args` in a `command` piece"),
            "{err}"
        );
        let err = serde_json::from_str::<Piece>(r#"{"kind":"shout","text":"x"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown variant `shout`"), "{err}");
    }
}
