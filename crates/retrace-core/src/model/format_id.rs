//! The name of a session format: what detection decides and `--format`
//! names. What a format means for reading is its rules (`format/`).

use serde::Serialize;

use crate::model::provider::Api;

/// A session file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "name", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Format {
    /// pi coding agent; `version` 1 (linear, no ids), 2 or 3 (tree).
    Pi {
        /// 1, 2 or 3, from the header.
        version: u32,
    },
    /// Claude Code transcripts (`~/.claude/projects/…`).
    ClaudeCode,
    /// OpenAI Codex CLI rollouts (`~/.codex/sessions/…/rollout-*.jsonl`).
    Codex,
    /// Agent event streams (`events.jsonl`, split as `events_N.jsonl`).
    Events,
    /// Gemini CLI sessions: the legacy JSON document or the JSONL record
    /// log (`$set`, `$rewindTo`, rewritten messages).
    GeminiCli,
    /// A provider API's message list: one message per line, a JSON array,
    /// or an object holding a `messages` (`contents`, `input`) array.
    MessageList {
        /// The API whose messages they are.
        api: Api,
    },
    /// AgentScope `Msg` lists (`memory_messages.jsonl`).
    AgentScope,
    /// JSON lines of no known format: entries, no tree.
    Generic,
}

impl Format {
    /// A short name: `pi`, `claude-code`, `generic`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Pi { .. } => "pi",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Events => "events",
            Format::GeminiCli => "gemini-cli",
            Format::MessageList { api } => match api {
                Api::Anthropic => "anthropic-messages",
                Api::OpenAiChat => "openai-chat-messages",
                Api::OpenAiResponses => "openai-responses-items",
                Api::Google => "google-contents",
            },
            Format::AgentScope => "agentscope",
            Format::Generic => "generic",
        }
    }

    /// The name with its version where one is known, e.g. `pi v3`.
    pub fn describe(self) -> String {
        match self {
            Format::Pi { version } => format!("pi v{version}"),
            other => other.name().to_owned(),
        }
    }

    /// The format a user names (`pi`, `claude-code`, `generic`, …), as
    /// given to [`ReaderOptions::format`](crate::ReaderOptions). A version
    /// is still read from the file where it has one.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, format)| format)
    }

    /// The names [`Format::from_name`] accepts.
    pub const NAMES: &'static [(&'static str, Format)] = &[
        ("pi", Format::Pi { version: 3 }),
        ("claude-code", Format::ClaudeCode),
        ("codex", Format::Codex),
        ("events", Format::Events),
        ("gemini-cli", Format::GeminiCli),
        (
            "anthropic-messages",
            Format::MessageList {
                api: Api::Anthropic,
            },
        ),
        (
            "openai-chat-messages",
            Format::MessageList {
                api: Api::OpenAiChat,
            },
        ),
        (
            "openai-responses-items",
            Format::MessageList {
                api: Api::OpenAiResponses,
            },
        ),
        ("google-contents", Format::MessageList { api: Api::Google }),
        ("agentscope", Format::AgentScope),
        ("generic", Format::Generic),
    ];
}
