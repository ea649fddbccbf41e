//! The one message model every format normalizes into.
//!
//! A [`Message`] is what an agent (or its user) said at one point of a branch,
//! independent of the file format it came from. It keeps the ids of the entries
//! it was built from, so a view can always go back to the original bytes.
//!
//! What a provider needs back when a history is sent to it again (thinking
//! signatures, OpenAI item ids, image payloads) rides beside the parts in
//! [`PartExtra`] and [`MessageExtra`]: never shown, never serialized, and
//! only meaningful to the [`Api`] that wrote it.

use serde::{Deserialize, Serialize};

use crate::model::event::FileChange;
use crate::model::harness::{class_of, Piece, UserClass};
use crate::model::provider::Api;

/// Who produced a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// System or developer instructions.
    System,
    /// A person (or an injected user-role text such as a compaction summary).
    User,
    /// The model.
    Assistant,
    /// The output of a tool, sent back to the model.
    Tool,
}

impl Role {
    /// The lower-case name used in text and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// One piece of a message's content.
///
/// Read back through [`PartWire`], one flat struct: serde's derive for an
/// internally tagged enum buffers every object first and came to 19 KB of
/// the viewer's page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case", try_from = "PartWire")]
pub enum Part {
    /// Plain or markdown text.
    Text {
        /// The text.
        text: String,
    },
    /// Model reasoning. `redacted` thinking has no readable text; `signature`
    /// says whether an opaque signature was attached (the blob itself is not
    /// copied: it can be many kilobytes and is never shown).
    Thinking {
        /// The reasoning as written (empty when redacted).
        text: String,
        /// The provider withheld the text (Anthropic `redacted_thinking`).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        redacted: bool,
        /// An opaque signature came with it.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        signature: bool,
    },
    /// A request from the model to run a tool.
    ToolCall {
        /// The call id its result answers.
        id: String,
        /// The tool's name.
        name: String,
        /// The arguments as JSON (an object for most tools).
        arguments: serde_json::Value,
    },
    /// What a tool returned for the call `call_id`.
    ToolResult {
        /// The id of the call answered.
        call_id: String,
        /// What the tool returned, as text.
        output: String,
        /// The tool reported a failure.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
    /// An inline image. The payload is not decoded; `byte_size` is the size of
    /// the decoded data computed from the base64 length.
    Image {
        /// `image/png`, or `image/*` where the source did not say.
        media_type: String,
        /// Bytes of the decoded image.
        byte_size: u64,
    },
    /// A git checkpoint of the workspace: the store's (an event stream's
    /// `checkpoint` event) or Codex's undo snapshot (`ghost_snapshot`). It
    /// is a mark on the timeline, held by a [`MessageKind::Marker`]
    /// message; never sent to a model.
    Checkpoint {
        /// The commit's id (hex, as written).
        commit: String,
        /// The commit it was taken on top of, where the file says (Codex).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent: Option<String>,
        /// The tag that names it (the store's `tool_{tool}_{time}`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tag: Option<String>,
        /// The tool whose changes it holds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        /// The files it changed, with how (the store's checkpoints).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        files: Vec<FileChange>,
        /// Paths that were untracked before it and that restoring it
        /// leaves alone (Codex `preexisting_untracked_files`, then
        /// `preexisting_untracked_dirs` with a trailing `/`). A Codex
        /// snapshot holds the whole working tree and records no changes.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        untracked: Vec<String>,
    },
}

/// A [`Part`] as written: `type` and the union of every variant's fields.
#[derive(Deserialize)]
struct PartWire {
    #[serde(rename = "type")]
    kind: PartKind,
    text: Option<String>,
    #[serde(default)]
    redacted: bool,
    #[serde(default)]
    signature: bool,
    id: Option<String>,
    name: Option<String>,
    arguments: Option<serde_json::Value>,
    call_id: Option<String>,
    output: Option<String>,
    #[serde(default)]
    is_error: bool,
    media_type: Option<String>,
    byte_size: Option<u64>,
    commit: Option<String>,
    parent: Option<String>,
    tag: Option<String>,
    tool: Option<String>,
    #[serde(default)]
    files: Vec<FileChange>,
    #[serde(default)]
    untracked: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum PartKind {
    Text,
    Thinking,
    ToolCall,
    ToolResult,
    Image,
    Checkpoint,
}

impl TryFrom<PartWire> for Part {
    type Error = String;

    fn try_from(w: PartWire) -> Result<Part, String> {
        fn need<T>(v: Option<T>, field: &str, kind: &str) -> Result<T, String> {
            v.ok_or_else(|| format!("missing field `{field}` in a `{kind}` part"))
        }
        Ok(match w.kind {
            PartKind::Text => Part::Text {
                text: need(w.text, "text", "text")?,
            },
            PartKind::Thinking => Part::Thinking {
                text: need(w.text, "text", "thinking")?,
                redacted: w.redacted,
                signature: w.signature,
            },
            PartKind::ToolCall => Part::ToolCall {
                id: need(w.id, "id", "tool_call")?,
                name: need(w.name, "name", "tool_call")?,
                arguments: w.arguments.unwrap_or(serde_json::Value::Null),
            },
            PartKind::ToolResult => Part::ToolResult {
                call_id: need(w.call_id, "call_id", "tool_result")?,
                output: need(w.output, "output", "tool_result")?,
                is_error: w.is_error,
            },
            PartKind::Image => Part::Image {
                media_type: need(w.media_type, "media_type", "image")?,
                byte_size: need(w.byte_size, "byte_size", "image")?,
            },
            PartKind::Checkpoint => Part::Checkpoint {
                commit: need(w.commit, "commit", "checkpoint")?,
                parent: w.parent,
                tag: w.tag,
                tool: w.tool,
                files: w.files,
                untracked: w.untracked,
            },
        })
    }
}

impl Part {
    /// A checkpoint on one line: `checkpoint 3f2a1c9 TAG — TOOL: a.rs
    /// (updated), b.md (created)`; commits shown by their first 7 digits.
    /// `None` for other parts.
    pub fn checkpoint_line(&self) -> Option<String> {
        let Part::Checkpoint {
            commit,
            parent,
            tag,
            tool,
            files,
            untracked,
        } = self
        else {
            return None;
        };
        let mut line = format!("checkpoint {}", short_commit(commit));
        if let Some(tag) = tag {
            line.push(' ');
            line.push_str(tag);
        }
        if let Some(parent) = parent {
            line.push_str(&format!(" (on {})", short_commit(parent)));
        }
        let files: Vec<String> = files
            .iter()
            .map(|f| format!("{} ({})", f.path, f.change.as_str()))
            .collect();
        match (tool, files.is_empty()) {
            (Some(tool), true) => line.push_str(&format!(" — {tool}")),
            (Some(tool), false) => line.push_str(&format!(" — {tool}: {}", files.join(", "))),
            (None, false) => line.push_str(&format!(" — {}", files.join(", "))),
            (None, true) => {}
        }
        if !untracked.is_empty() {
            line.push_str(&format!(
                " · {} untracked before, kept on restore",
                untracked.len()
            ));
        }
        Some(line)
    }
}

/// A commit id as git shows it short: its first 7 characters.
pub fn short_commit(commit: &str) -> &str {
    commit.get(..7).unwrap_or(commit)
}

/// Token usage of one model response, counted once even when the response was
/// written over several lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Usage {
    /// Input tokens not read from the cache.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write: u64,
    /// Cost in US dollars, where the file records it.
    // Left out when none: optional in TypeScript, not `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub cost: Option<f64>,
}

impl Usage {
    /// Adds `other` to `self` (costs add when either is known).
    pub fn add(&mut self, other: &Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.cost = match (self.cost, other.cost) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
    }

    /// All tokens: input, output and both cache counts.
    pub fn total(&self) -> u64 {
        self.input + self.output + self.cache_read + self.cache_write
    }
}

/// What kind of message this is beyond its role, for views that mark them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// An ordinary conversation message.
    #[default]
    Normal,
    /// The summary that stands in for everything before a compaction.
    CompactionSummary,
    /// The summary of an abandoned branch (pi `branch_summary`).
    BranchSummary,
    /// A `!command` the user ran in the shell (pi `bashExecution`).
    BashExecution,
    /// An extension-defined message (pi `custom_message`, role `custom`).
    Custom,
    /// Text injected by the harness rather than typed (Claude Code `isMeta`).
    Meta,
    /// An event on the timeline rather than something said: a rollback, an
    /// aborted turn, an error, a state transition, a git checkpoint (a
    /// [`Part::Checkpoint`]). Role `system`; not sent to a model.
    Marker,
}

/// A normalized message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Message {
    /// Who said it.
    pub role: Role,
    /// What kind of message it is beyond its role (a compaction summary, injected context, a marker).
    #[serde(default, skip_serializing_if = "is_normal")]
    pub kind: MessageKind,
    /// Its parts, in order.
    pub content: Vec<Part>,
    /// The model that wrote it, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub model: Option<String>,
    /// The provider that served it, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub provider: Option<String>,
    /// Token usage of the response, counted once.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub usage: Option<Usage>,
    /// Milliseconds since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub timestamp: Option<i64>,
    /// Why the model stopped (`stop`, `tool_use`, `aborted`, …), as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub stop_reason: Option<String>,
    /// The ids of the entries this message was built from (several for a
    /// Claude Code response split over lines; empty for entries without ids).
    pub entries: Vec<String>,
    /// The 1-based line numbers of those entries, in the same order.
    pub lines: Vec<u32>,
    /// A user-side message's text as its pieces, where the harness wrote
    /// some of it (a slash command, shell input or output, context, an
    /// interruption); empty when all of it was typed. The content keeps
    /// the text as written. On a model's message, the context it was
    /// given beside the history (an events `llm_call`'s prompt, a Codex
    /// turn's settings).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub harness: Vec<Piece>,
    /// How the tool runs of this message's calls or results ended, where
    /// the harness reported it beside the result (see [`ToolRun`]). Not
    /// serialized: the viewer gets them merged into its calls' results
    /// ([`crate::RowResult`]), which keeps their parsing out of its page.
    #[serde(skip)]
    pub runs: Vec<ToolRun>,
    /// Provider data of each part: `part_extras[i]` belongs to `content[i]`
    /// (the vector is shorter when the last parts have none). Use
    /// [`Message::part_extra`] and [`Message::push_with`].
    #[serde(skip)]
    pub part_extras: Vec<PartExtra>,
    /// Provider data of the message as a whole.
    #[serde(skip)]
    pub extra: Option<Box<MessageExtra>>,
}

/// What a part carries beyond the model, so a history can go back to the
/// API that wrote it unchanged. Everything here is optional; a migration to
/// another API drops what that API cannot take and says so in its report.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PartExtra {
    /// The API that wrote `signature` and `item_id`: they mean nothing to
    /// any other.
    pub api: Option<Api>,
    /// OpenAI Responses item id (`rs_…` reasoning, `fc_…` function call).
    pub item_id: Option<String>,
    /// An opaque blob the API wants back verbatim: Anthropic thinking
    /// `signature` or redacted thinking `data`, OpenAI reasoning
    /// `encrypted_content`, Gemini `thoughtSignature`.
    pub signature: Option<String>,
    /// An image's payload. Only filled when asked for (see
    /// [`crate::ContextOptions`]): payloads can be megabytes.
    pub image: Option<ImageSource>,
    /// The tool a result answers, where the file names it (Google
    /// `functionResponse.name`, pi `toolName`, Gemini CLI).
    pub tool_name: Option<String>,
    /// A tool result's structured value when its text is not all of it (a
    /// Google `response` object other than `{output}` or `{error}`).
    pub structured: Option<serde_json::Value>,
    /// An OpenAI Responses custom tool call: its input is free text, not
    /// JSON arguments, and its output item is a `custom_tool_call_output`.
    pub freeform: bool,
    /// An image a tool returned, written after its result: it belongs to
    /// that result, not beside it (as an image the user added would).
    pub of_result: bool,
}

/// Where an image's bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageSource {
    /// Base64 text, as written (never decoded here).
    Base64(String),
    /// A URL (`https:` or `data:`) or a provider file URI.
    Url(String),
}

/// What a message carries beyond the model, for the API that wrote it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MessageExtra {
    /// The API the message was read from, where its shape says.
    pub api: Option<Api>,
    /// The role as written when the model's role loses it (OpenAI
    /// `developer` is a [`Role::System`]).
    pub role: Option<String>,
    /// OpenAI Responses message item `id` (`msg_…`).
    pub item_id: Option<String>,
    /// OpenAI Responses message item `status`.
    pub status: Option<String>,
}

/// How a tool's run ended, as the harness reported it beside what the
/// model was given (Codex's `exec_command_end` event, the `metadata` of
/// 0.5x shell output). Views show it in the call's block; it is never
/// sent to a model.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolRun {
    /// The call it reports on.
    pub call_id: String,
    /// The command as run (its argv), where the report names it.
    pub command: Vec<String>,
    /// The exit code.
    pub exit_code: Option<i64>,
    /// How long it ran, in milliseconds.
    pub duration_ms: Option<u64>,
    /// What it printed on stdout, where the report keeps it apart.
    pub stdout: Option<String>,
    /// What it printed on stderr.
    pub stderr: Option<String>,
    /// It failed or was declined, by the report's own word (a patch not
    /// applied).
    pub failed: bool,
}

impl ToolRun {
    /// What `other` says of the same run that `self` does not.
    pub fn merge(&mut self, other: ToolRun) {
        if self.command.is_empty() {
            self.command = other.command;
        }
        self.exit_code = self.exit_code.or(other.exit_code);
        self.duration_ms = self.duration_ms.or(other.duration_ms);
        self.stdout = self.stdout.take().or(other.stdout);
        self.stderr = self.stderr.take().or(other.stderr);
        self.failed |= other.failed;
    }
}

fn is_normal(kind: &MessageKind) -> bool {
    *kind == MessageKind::Normal
}

impl Message {
    /// A message with no content yet.
    pub fn new(role: Role) -> Message {
        Message {
            role,
            kind: MessageKind::Normal,
            content: Vec::new(),
            model: None,
            provider: None,
            usage: None,
            timestamp: None,
            stop_reason: None,
            entries: Vec::new(),
            lines: Vec::new(),
            harness: Vec::new(),
            runs: Vec::new(),
            part_extras: Vec::new(),
            extra: None,
        }
    }

    /// The provider data of part `i`, if it has any.
    pub fn part_extra(&self, i: usize) -> Option<&PartExtra> {
        self.part_extras
            .get(i)
            .filter(|x| **x != PartExtra::default())
    }

    /// Appends a part with its provider data.
    pub fn push_with(&mut self, part: Part, extra: PartExtra) {
        if extra != PartExtra::default() {
            self.part_extras
                .resize_with(self.content.len(), PartExtra::default);
            self.part_extras.push(extra);
        }
        self.content.push(part);
    }

    /// Appends parts with their provider data (`extras[i]` for
    /// `content[i]`, as in [`Message::part_extras`]).
    pub fn extend_parts(&mut self, content: Vec<Part>, extras: Vec<PartExtra>) {
        if !extras.is_empty() {
            self.part_extras
                .resize_with(self.content.len(), PartExtra::default);
            self.part_extras.extend(extras);
        }
        self.content.extend(content);
    }

    /// The tool calls in this message.
    pub fn tool_calls(&self) -> impl Iterator<Item = (&str, &str)> {
        self.content.iter().filter_map(|p| match p {
            Part::ToolCall { id, name, .. } => Some((id.as_str(), name.as_str())),
            _ => None,
        })
    }

    /// The tool results in this message, as `(call id, is_error)`.
    pub fn tool_results(&self) -> impl Iterator<Item = (&str, bool)> {
        self.content.iter().filter_map(|p| match p {
            Part::ToolResult {
                call_id, is_error, ..
            } => Some((call_id.as_str(), *is_error)),
            _ => None,
        })
    }

    /// How the run of call `call_id` ended, where this message says.
    pub fn run_of(&self, call_id: &str) -> Option<&ToolRun> {
        self.runs.iter().find(|r| r.call_id == call_id)
    }

    /// What a user-side message is as a whole (see [`class_of`]): a
    /// prompt unless the harness wrote all of it.
    pub fn user_class(&self) -> UserClass {
        class_of(&self.harness)
    }

    /// Whether someone typed this message: a user's ordinary message (or
    /// harness-injected text that carries a prompt) whose typed text
    /// ([`Message::typed_text`]) is not blank. What the harness wrote alone
    /// (a slash command and its output, `!` shell lines, caveats and
    /// context) is not; summaries and markers are not. The rule titles,
    /// tree previews and prompt marks share.
    pub fn is_typed_prompt(&self) -> bool {
        let injected_with_prompt = self.kind == MessageKind::Meta && !self.harness.is_empty();
        let says = |t: &str| t.lines().any(|l| !l.trim().is_empty());
        // The typed text is the text parts, or the prompt pieces where the
        // harness wrote the rest (a message of harness pieces without one
        // is no prompt).
        self.role == Role::User
            && (self.kind == MessageKind::Normal || injected_with_prompt)
            && if self.harness.is_empty() {
                self.content
                    .iter()
                    .any(|p| matches!(p, Part::Text { text } if says(text)))
            } else {
                self.harness
                    .iter()
                    .any(|p| matches!(p, Piece::Prompt { text } if says(text)))
            }
    }

    /// The text a person typed: the prompt pieces where the harness wrote
    /// the rest, else all the text (see [`Message::text`]).
    pub fn typed_text(&self) -> String {
        if self.harness.is_empty() {
            return self.text();
        }
        let typed: Vec<&str> = self
            .harness
            .iter()
            .filter_map(|p| match p {
                Piece::Prompt { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        typed.join("\n\n")
    }

    /// All text parts joined by blank lines (thinking excluded).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for part in &self.content {
            if let Part::Text { text } = part {
                if !out.is_empty() {
                    out.push_str("\n\n");
                }
                out.push_str(text);
            }
        }
        out
    }
}

/// A `data:` URL for base64 `data`.
pub(crate) fn data_url(media_type: &str, data: &str) -> String {
    format!("data:{media_type};base64,{data}")
}

/// The media type and base64 data of a `data:…;base64,…` URL.
pub(crate) fn split_data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (head, data) = rest.split_once(',')?;
    let media_type = head.strip_suffix(";base64")?;
    Some((media_type, data))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages cross to the viewer as JSON and back: every field written
    /// reads back, including the ones left out when they hold defaults.
    #[test]
    fn json_round_trip() {
        let mut m = Message::new(Role::Assistant);
        m.content = vec![
            Part::Text { text: "hi".into() },
            Part::Thinking {
                text: String::new(),
                redacted: true,
                signature: false,
            },
            Part::ToolCall {
                id: "c1".into(),
                name: "Bash".into(),
                arguments: serde_json::json!({"command": "ls"}),
            },
            Part::ToolResult {
                call_id: "c1".into(),
                output: "x".into(),
                is_error: false,
            },
            Part::Image {
                media_type: "image/png".into(),
                byte_size: 3,
            },
            Part::Checkpoint {
                commit: "3f2a1c9d".into(),
                parent: Some("0f022a0".into()),
                tag: Some("tool_write_file_20260210140001".into()),
                tool: Some("write_file".into()),
                files: vec![FileChange {
                    path: "src/main.rs".into(),
                    change: crate::model::event::ChangeKind::Updated,
                }],
                untracked: vec!["node_modules/".into()],
            },
        ];
        m.usage = Some(Usage {
            input: 1,
            output: 2,
            cache_read: 3,
            cache_write: 4,
            cost: Some(0.5),
        });
        m.entries.push("a".into());
        m.lines.push(7);
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), m);
        let plain = Message::new(Role::User);
        let json = serde_json::to_string(&plain).unwrap();
        assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), plain);
    }

    #[test]
    fn a_part_read_back_names_what_is_missing() {
        let err = serde_json::from_str::<Part>(r#"{"type":"tool_result","output":"ok"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("missing field `call_id` in a `tool_result` part"),
            "{err}"
        );
        let err = serde_json::from_str::<Part>(r#"{"type":"video","text":"x"}"#)
            .unwrap_err()
            .to_string();
        assert!(err.contains("unknown variant `video`"), "{err}");
        let part: Part = serde_json::from_str(r#"{"type":"thinking","text":"hm"}"#).unwrap();
        assert_eq!(
            part,
            Part::Thinking {
                text: "hm".into(),
                redacted: false,
                signature: false
            }
        );
    }

    #[test]
    fn checkpoint_lines() {
        use crate::model::event::ChangeKind;
        let store = Part::Checkpoint {
            commit: "3f2a1c9d0e".into(),
            parent: None,
            tag: Some("tool_write_file_20260210140001".into()),
            tool: Some("write_file".into()),
            files: vec![
                FileChange {
                    path: "src/main.rs".into(),
                    change: ChangeKind::Updated,
                },
                FileChange {
                    path: "notes.md".into(),
                    change: ChangeKind::Created,
                },
            ],
            untracked: Vec::new(),
        };
        assert_eq!(
            store.checkpoint_line().unwrap(),
            "checkpoint 3f2a1c9 tool_write_file_20260210140001 — write_file: src/main.rs (updated), notes.md (created)"
        );
        let codex = Part::Checkpoint {
            commit: "a01966ef5b".into(),
            parent: Some("0f022a043b".into()),
            tag: None,
            tool: None,
            files: Vec::new(),
            untracked: vec!["a.log".into(), ".next/".into()],
        };
        assert_eq!(
            codex.checkpoint_line().unwrap(),
            "checkpoint a01966e (on 0f022a0) · 2 untracked before, kept on restore"
        );
        assert_eq!(Part::Text { text: "x".into() }.checkpoint_line(), None);
    }
}
