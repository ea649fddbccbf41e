//! Migration: a context (any format's messages) written as the message list
//! of a provider API, ready to send as the history of a new request.
//!
//! ```text
//! [Message] ──prepare──▶ [Turn] ──render(api)──▶ request body  + Report
//!            ids valid for the target, calls and results paired,
//!            images of tool results attached, unanswered calls answered
//! ```
//!
//! The body holds only the history: `{"system", "messages"}` (Anthropic),
//! `{"messages"}` (OpenAI Chat), `{"input"}` (OpenAI Responses),
//! `{"systemInstruction", "contents"}` (Google). The [`Report`] says what
//! the target could not take and what was written differently, per field,
//! with counts, and notes what the caller must do to send it (a Gemini 3 or
//! Anthropic extended-thinking tool loop without its signatures, Responses
//! items the SDKs' types reject); [`report`] gives it without keeping the
//! body. [`try_migrate`] refuses a history with nothing to send.
//!
//! Everything is deterministic: generated ids come from positions and a
//! fixed hash, never from a clock or a random source.
//!
//! Normalization a round trip (a list of one API → messages → the same API)
//! does not undo, documented so tests can compare:
//! - a content that is one text is written as a plain string (Anthropic and
//!   OpenAI message content, OpenAI Responses user content);
//! - empty texts are left out, and so is OpenAI assistant `content` when
//!   there is no text (`null`);
//! - tool arguments are re-serialized compactly (OpenAI's JSON strings);
//! - Anthropic `system` blocks become one string; fields the model does not
//!   keep (`cache_control`, `citations`, message `name`, Responses
//!   `annotations` contents, `status` of call items, an image's `detail`)
//!   are not written back (a Responses image's `detail` is written `auto`,
//!   below);
//! - OpenAI Responses messages are written as `type: "message"` items, and
//!   a request body's `instructions` as a system message first in `input`;
//! - Google thought parts are dropped (the API takes no thoughts back);
//! - OpenAI Responses `input_image` parts get `"detail": "auto"` (the SDKs'
//!   type requires one; the session keeps none);
//! - an OpenAI Chat `refusal` is written back as the message's content.

// Declared bottom-up: a module uses only those above it.
mod report;
mod prepare;
mod render;
mod anthropic;
mod google;
mod openai_chat;
mod openai_responses;

use serde_json::Value;

pub use report::{Change, ChangeCount, Report};

use crate::model::message::{Message, MessageKind, Role};
use crate::model::provider::Api;
use report::Tally;

/// A history written for one API, and what that cost.
#[derive(Debug, Clone)]
pub struct Migration {
    /// The request body fields that hold the history.
    pub body: Value,
    /// What the target could not take or took differently.
    pub report: Report,
}

/// Why a history cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MigrateError {
    /// Nothing is left to send: no user, model or tool turn (a branch of
    /// system lines, markers or empty messages only). Every API rejects a
    /// history without one.
    #[error("{}", nothing_to_send(*.messages, *.system, *.markers))]
    NothingToSend {
        /// Messages read.
        messages: usize,
        /// System prompts among them.
        system: usize,
        /// Timeline markers among them (never said to a model).
        markers: usize,
    },
}

fn nothing_to_send(messages: usize, system: usize, markers: usize) -> String {
    let plural = |n: usize, one: &str, many: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    };
    let what = if messages == 0 {
        "the branch holds no messages".to_owned()
    } else {
        let emptied = messages - system - markers;
        let why: Vec<String> = [
            (system, "system prompt", "system prompts"),
            (markers, "timeline marker", "timeline markers"),
            (emptied, "left empty", "left empty"),
        ]
        .into_iter()
        .filter(|w| w.0 > 0)
        .map(|(n, one, many)| plural(n, one, many))
        .collect();
        format!(
            "none of the branch's {} is a user or model turn ({})",
            plural(messages, "message", "messages"),
            why.join(", ")
        )
    };
    format!("nothing to send: {what} (every API rejects a history without a user or model turn)")
}

/// Writes `messages` as the history of a request to `to`, or says why
/// there is nothing to send: unlike [`migrate`], a history without a user
/// or model turn is an error, since every API rejects one.
pub fn try_migrate(messages: &[Message], to: Api) -> Result<Migration, MigrateError> {
    let migration = migrate(messages, to);
    if has_conversation(&migration.body, to) {
        return Ok(migration);
    }
    let markers = messages
        .iter()
        .filter(|m| m.kind == MessageKind::Marker)
        .count();
    let system = messages
        .iter()
        .filter(|m| m.kind != MessageKind::Marker && m.role == Role::System)
        .count();
    Err(MigrateError::NothingToSend {
        messages: messages.len(),
        system,
        markers,
    })
}

/// Whether a body holds a turn other than system prompts.
fn has_conversation(body: &Value, to: Api) -> bool {
    let list = |key: &str| body[key].as_array().map_or(&[][..], Vec::as_slice);
    let system = |item: &Value| matches!(item["role"].as_str(), Some("system" | "developer"));
    match to {
        Api::Anthropic => !list("messages").is_empty(),
        Api::Google => !list("contents").is_empty(),
        Api::OpenAiChat => list("messages").iter().any(|m| !system(m)),
        Api::OpenAiResponses => list("input").iter().any(|m| !system(m)),
    }
}

/// Writes `messages` as the history of a request to `to`. A branch with
/// nothing to send gives an empty history, which no API takes:
/// [`try_migrate`] refuses it.
pub fn migrate(messages: &[Message], to: Api) -> Migration {
    let mut tally = Tally::default();
    let turns = prepare::prepare(messages, to, &mut tally);
    let (body, written) = match to {
        Api::Anthropic => anthropic::render(&turns, &mut tally),
        Api::OpenAiChat => openai_chat::render(&turns, &mut tally),
        Api::OpenAiResponses => openai_responses::render(&turns, &mut tally),
        Api::Google => google::render(&turns, &mut tally),
    };
    Migration {
        body,
        report: tally.into_report(to, messages.len(), written),
    }
}

/// What a migration of `messages` to `to` would lose or change.
pub fn report(messages: &[Message], to: Api) -> Report {
    migrate(messages, to).report
}

#[cfg(test)]
mod tests;
