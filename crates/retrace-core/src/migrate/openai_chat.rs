//! Turns as OpenAI Chat Completions `messages`: system or developer
//! messages in place, assistant `tool_calls` with JSON-string arguments, one
//! `tool` message per result.

use serde_json::{json, Map, Value};

use super::prepare::{Item, Turn};
use super::report::{Change, Tally};
use super::{arguments_string, image_url, system_role, system_text, text_results};
use crate::message::Role;

pub(crate) fn render(turns: &[Turn], tally: &mut Tally) -> (Value, usize) {
    let mut messages: Vec<Value> = Vec::new();
    for turn in turns {
        let place = turn.place.as_str();
        match turn.role {
            Role::System => messages.push(json!({
                "role": system_role(turn),
                "content": system_text(turn),
            })),
            Role::User => {
                if let Some(content) = user_content(&turn.items, place, tally) {
                    messages.push(json!({"role": "user", "content": content}));
                }
            }
            Role::Assistant => {
                if let Some(m) = assistant(&turn.items, place, tally) {
                    messages.push(m);
                }
            }
            Role::Tool => {
                let rest = text_results(&turn.items, place, tally, |call_id, output| {
                    messages.push(json!({
                        "role": "tool",
                        "tool_call_id": call_id,
                        "content": output,
                    }));
                });
                // Text beside the results goes in a user message after them.
                if let Some(content) = user_content(&rest, place, tally) {
                    messages.push(json!({"role": "user", "content": content}));
                }
            }
        }
    }
    let turns = messages.len();
    let mut body = Map::new();
    body.insert("messages".into(), Value::Array(messages));
    (Value::Object(body), turns)
}

/// A user message's content: a string for one text, else parts.
fn user_content(items: &[Item], place: &str, tally: &mut Tally) -> Option<Value> {
    let mut parts = Vec::new();
    for item in items {
        match item {
            Item::Text { text, .. } => parts.push(json!({"type": "text", "text": text})),
            Item::Image(image) => {
                if let Some(url) = image_url(image, place, tally) {
                    parts.push(json!({"type": "image_url", "image_url": {"url": url}}));
                }
            }
            Item::Thinking { .. } => tally.note(Change::ThinkingDropped, place),
            // Calls and results are placed by the caller.
            Item::Call { .. } | Item::Result { .. } => {}
        }
    }
    match parts.as_slice() {
        [] => None,
        [only] if only["type"] == "text" => Some(only["text"].clone()),
        _ => Some(Value::Array(parts)),
    }
}

fn assistant(items: &[Item], place: &str, tally: &mut Tally) -> Option<Value> {
    let mut texts: Vec<Value> = Vec::new();
    let mut calls: Vec<Value> = Vec::new();
    for item in items {
        match item {
            Item::Text { text, .. } => texts.push(json!({"type": "text", "text": text})),
            Item::Thinking {
                redacted, extra, ..
            } => tally.thinking_dropped(*redacted, extra.signature.is_some(), place),
            Item::Call {
                id,
                name,
                arguments,
                ..
            } => calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": arguments_string(arguments)},
            })),
            Item::Image(_) => tally.note(Change::ImageDropped, place),
            Item::Result { .. } => {}
        }
    }
    if texts.is_empty() && calls.is_empty() {
        return None;
    }
    let mut m = Map::new();
    m.insert("role".into(), "assistant".into());
    let content = match texts.len() {
        0 => Value::Null,
        1 => texts[0]["text"].clone(),
        _ => Value::Array(texts),
    };
    m.insert("content".into(), content);
    if !calls.is_empty() {
        m.insert("tool_calls".into(), Value::Array(calls));
    }
    Some(Value::Object(m))
}
