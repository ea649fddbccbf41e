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

mod anthropic;
mod google;
mod openai_chat;
mod openai_responses;
mod prepare;
mod report;

use serde_json::{json, Value};

pub use report::{Change, ChangeCount, Report};

use crate::api::Api;
use crate::message::{ImageSource, Message, Role};
use prepare::{Image, Item, Turn};
use report::Tally;

/// A history written for one API, and what that cost.
#[derive(Debug, Clone)]
pub struct Migration {
    /// The request body fields that hold the history.
    pub body: Value,
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

/// The text of a system turn.
fn system_text(turn: &Turn) -> String {
    let texts: Vec<&str> = turn
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n\n")
}

/// `system`, or `developer` when the source said so.
fn system_role(turn: &Turn) -> &'static str {
    match turn.extra.as_ref().and_then(|x| x.role.as_deref()) {
        Some("developer") => "developer",
        _ => "system",
    }
}

/// Content blocks, or the text itself when they are one text block.
fn text_or_blocks(blocks: Vec<Value>) -> Value {
    match blocks.as_slice() {
        [only] if only["type"] == "text" && only.as_object().is_some_and(|o| o.len() == 2) => {
            only["text"].clone()
        }
        _ => Value::Array(blocks),
    }
}

/// Tool arguments as the JSON object Anthropic and Google want.
fn arguments_object(arguments: &Value, place: &str, tally: &mut Tally) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        Value::Null => json!({}),
        // No arguments, as OpenAI writes them for a tool that takes none.
        Value::String(s) if s.trim().is_empty() => json!({}),
        // A JSON string holding an object (as OpenAI writes arguments).
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            parsed => {
                tally.note(report::Change::ArgumentsWrapped, place);
                json!({ "input": parsed.unwrap_or_else(|_| Value::String(s.clone())) })
            }
        },
        other => {
            tally.note(report::Change::ArgumentsWrapped, place);
            json!({ "input": other })
        }
    }
}

/// The turns of an API that takes the system prompt apart and alternating
/// turns (Anthropic, Google): the system texts, noting those that came
/// after the conversation began, and every other turn as `blocks` renders
/// it, under `assistant` or `"user"`; a turn left empty is dropped, one of
/// the same role as the turn before is merged into it and then handed to
/// `merged`.
///
/// A history that opens with the model gets a user turn first, written by
/// `user_text` (both APIs reject it otherwise, and Google wants a call to
/// follow a user turn).
fn alternate(
    turns: &[Turn],
    tally: &mut Tally,
    assistant: &'static str,
    mut blocks: impl FnMut(&Turn, &mut Tally) -> Vec<Value>,
    merged: impl Fn(&mut Vec<Value>),
    user_text: impl Fn(&str) -> Value,
) -> (Vec<String>, Vec<(&'static str, Vec<Value>)>) {
    let mut system = Vec::new();
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for turn in turns {
        let place = turn.place.as_str();
        if turn.role == Role::System {
            if !out.is_empty() {
                tally.note(report::Change::SystemMoved, place);
            }
            system.push(system_text(turn));
            continue;
        }
        let role = if turn.role == Role::Assistant {
            assistant
        } else {
            "user"
        };
        let blocks = blocks(turn, tally);
        // Emptied by what the target cannot take (already reported).
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((last, content)) if *last == role => {
                tally.note(report::Change::TurnsMerged, place);
                content.extend(blocks);
                merged(content);
            }
            None if role == assistant => {
                tally.note(report::Change::UserTurnAdded, place);
                out.push(("user", vec![user_text(OPENING)]));
                out.push((role, blocks));
            }
            _ => out.push((role, blocks)),
        }
    }
    (system, out)
}

/// The user turn put before a history that opens with the model.
const OPENING: &str = "(The conversation continues.)";

/// Whether an API that takes images takes `media_type` as one (`image/*`
/// is an image whose type the source did not say, as for a URL).
fn is_image(media_type: &str) -> bool {
    media_type.starts_with("image/")
}

/// A tool turn for the OpenAI APIs, which have no error flag: each result
/// goes to `result` (its call id, output and images), a dropped error flag
/// noted; the turn's other items come back, to follow the results as user
/// content.
fn tool_results(
    items: &[Item],
    place: &str,
    tally: &mut Tally,
    mut result: impl FnMut(&str, &str, &[Image], &mut Tally),
) -> Vec<Item> {
    let mut rest = Vec::new();
    for item in items {
        match item {
            Item::Result {
                call_id,
                output,
                is_error,
                images,
                ..
            } => {
                if *is_error {
                    tally.note(report::Change::ErrorFlagDropped, place);
                }
                result(call_id, output, images, tally);
            }
            other => rest.push(other.clone()),
        }
    }
    rest
}

/// Tool arguments as the JSON string OpenAI wants (a string that is not
/// JSON is passed as it was written).
fn arguments_string(arguments: &Value) -> String {
    match arguments {
        Value::String(s) => s.clone(),
        Value::Null => "{}".to_owned(),
        other => other.to_string(),
    }
}

/// A `data:` URL for base64 `data`.
fn data_url(media_type: &str, data: &str) -> String {
    format!("data:{media_type};base64,{data}")
}

/// The media type and base64 data of a `data:…;base64,…` URL.
pub(crate) fn split_data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (head, data) = rest.split_once(',')?;
    let media_type = head.strip_suffix(";base64")?;
    Some((media_type, data))
}

/// An image as a URL (OpenAI takes data URLs); other media are dropped.
fn image_url(image: &Image, place: &str, tally: &mut Tally) -> Option<String> {
    if !is_image(&image.media_type) {
        tally.note(report::Change::MediaDropped, place);
        return None;
    }
    match &image.source {
        Some(ImageSource::Base64(data)) => Some(data_url(&image.media_type, data)),
        Some(ImageSource::Url(url)) => Some(url.clone()),
        None => {
            tally.note(report::Change::ImageWithoutPayload, place);
            None
        }
    }
}

#[cfg(test)]
mod tests;
