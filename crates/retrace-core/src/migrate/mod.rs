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
//! with counts; [`report`] gives it without keeping the body.
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
//!   are not written back;
//! - OpenAI Responses messages are written as `type: "message"` items, and
//!   a request body's `instructions` as a system message first in `input`;
//! - Google thought parts are dropped (the API takes no thoughts back);
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

use crate::model::message::Message;
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

/// Writes `messages` as the history of a request to `to`.
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
