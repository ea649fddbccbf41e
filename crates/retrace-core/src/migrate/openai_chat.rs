//! Turns as OpenAI Chat Completions `messages`: system or developer
//! messages in place, assistant `tool_calls` with JSON-string arguments, one
//! `tool` message per result.

use std::io;

use serde_json::{json, Map, Value};

use super::prepare::{Item, Turn};
use super::render::{
    self, arguments_string, hand_on, image_url, system_role, system_text, tool_results,
};
use super::report::{Change, Tally};
use super::sink::Sink;
use crate::model::message::Role;

/// The OpenAI Chat renderer: it holds the last message back (an assistant
/// message with calls takes the next one's).
#[derive(Default)]
pub(crate) struct Render {
    messages: Vec<Value>,
    written: usize,
}

impl render::Render for Render {
    fn turn(&mut self, turn: &Turn, tally: &mut Tally, sink: &mut dyn Sink) -> io::Result<()> {
        self.add(turn, tally);
        hand_on(&mut self.messages, 1, &mut self.written, sink, |m| m)
    }

    fn finish(mut self: Box<Self>, _: &mut Tally, sink: &mut dyn Sink) -> io::Result<usize> {
        hand_on(&mut self.messages, 0, &mut self.written, sink, |m| m)?;
        Ok(self.written)
    }
}

impl Render {
    fn add(&mut self, turn: &Turn, tally: &mut Tally) {
        let messages = &mut self.messages;
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
                let Some(m) = assistant(&turn.items, place, tally) else {
                    return;
                };
                // Calls must be answered by the tool messages right after
                // them: an assistant message that follows one with calls
                // (parallel calls, which the Responses API writes as an
                // item each) joins it.
                match messages.last_mut() {
                    Some(last)
                        if last["role"] == "assistant" && last.get("tool_calls").is_some() =>
                    {
                        tally.note(Change::TurnsMerged, place);
                        join_assistant(last, m);
                    }
                    _ => messages.push(m),
                }
            }
            Role::Tool => {
                let rest = tool_results(
                    &turn.items,
                    place,
                    tally,
                    |call_id, output, images, tally| {
                        // Chat tool messages are text only.
                        tally.note_n(Change::ImageDropped, images.len(), place);
                        messages.push(json!({
                            "role": "tool",
                            "tool_call_id": call_id,
                            "content": output,
                        }));
                    },
                );
                // Text beside the results goes in a user message after them.
                if let Some(content) = user_content(&rest, place, tally) {
                    messages.push(json!({"role": "user", "content": content}));
                }
            }
        }
    }
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

/// Adds the texts and calls of assistant message `from` to `into`.
fn join_assistant(into: &mut Value, from: Value) {
    let texts = |content: &Value| -> Vec<Value> {
        match content {
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            Value::Array(parts) => parts.clone(),
            _ => Vec::new(),
        }
    };
    let mut all = texts(&into["content"]);
    all.extend(texts(&from["content"]));
    into["content"] = assistant_content(all);
    if let (Some(calls), Some(more)) = (
        into["tool_calls"].as_array_mut(),
        from["tool_calls"].as_array(),
    ) {
        calls.extend(more.iter().cloned());
    }
}

/// An assistant message's content: null, one string, or text parts.
fn assistant_content(mut texts: Vec<Value>) -> Value {
    match texts.len() {
        0 => Value::Null,
        1 => texts.remove(0)["text"].take(),
        _ => Value::Array(texts),
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
    m.insert("content".into(), assistant_content(texts));
    if !calls.is_empty() {
        m.insert("tool_calls".into(), Value::Array(calls));
    }
    Some(Value::Object(m))
}
