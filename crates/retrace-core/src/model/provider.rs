//! The provider APIs whose message lists retrace reads and writes.
//!
//! A session can be migrated into the history of a request to any of them
//! (see [`crate::migrate`]), and a file holding such a list is read as a
//! session. The name of each is what the CLI's `--to` takes.

use serde::Serialize;

/// A provider's request API, by the shape of its message list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Api {
    /// Anthropic Messages: `system` beside `messages` of alternating `user`
    /// and `assistant` turns made of content blocks; tool results are
    /// blocks of a user turn.
    #[serde(rename = "anthropic")]
    Anthropic,
    /// OpenAI Chat Completions: `messages` with `system`/`developer`,
    /// `user`, `assistant` (with `tool_calls`) and `tool` roles.
    #[serde(rename = "openai")]
    OpenAiChat,
    /// OpenAI Responses: `input` items (`message`, `reasoning`,
    /// `function_call`, `function_call_output`).
    #[serde(rename = "openai-responses")]
    OpenAiResponses,
    /// Google Gemini: `systemInstruction` beside `contents` of `user` and
    /// `model` turns made of `parts`.
    #[serde(rename = "google")]
    Google,
}

impl Api {
    /// Every API, in the order the CLI lists them.
    pub const ALL: [Api; 4] = [
        Api::Anthropic,
        Api::OpenAiChat,
        Api::OpenAiResponses,
        Api::Google,
    ];

    /// The name the CLI takes: `anthropic`, `openai`, `openai-responses`,
    /// `google`.
    pub fn name(self) -> &'static str {
        match self {
            Api::Anthropic => "anthropic",
            Api::OpenAiChat => "openai",
            Api::OpenAiResponses => "openai-responses",
            Api::Google => "google",
        }
    }

    /// The API named `name` (see [`Api::name`]).
    pub fn from_name(name: &str) -> Option<Api> {
        Api::ALL.into_iter().find(|a| a.name() == name)
    }

    /// A longer name for reports: `Anthropic Messages`, `OpenAI Chat`, …
    pub fn title(self) -> &'static str {
        match self {
            Api::Anthropic => "Anthropic Messages",
            Api::OpenAiChat => "OpenAI Chat Completions",
            Api::OpenAiResponses => "OpenAI Responses",
            Api::Google => "Google Gemini contents",
        }
    }
}

impl std::fmt::Display for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
