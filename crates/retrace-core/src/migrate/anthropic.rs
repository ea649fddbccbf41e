//! Turns as an Anthropic Messages request: `system` beside `messages` of
//! alternating `user` and `assistant` turns; tool results are `tool_result`
//! blocks at the start of the next user turn.

use std::io;

use serde_json::{json, Map, Value};

use super::prepare::{Image, Item, Turn};
use super::render::{
    self, arguments_object, hand_on, is_image, text_or_blocks, Alternate, Written,
};
use super::report::{Change, Tally};
use super::sink::Sink;
use crate::model::message::{ImageSource, Role};
use crate::model::provider::Api;
use crate::model::sort::sort_by_key;

/// The Anthropic renderer: it holds the last two turns back (the next may
/// merge into the last; the last two say whether a tool loop is open).
pub(crate) struct Render {
    turns: Alternate,
    written: usize,
}

impl Render {
    pub fn new() -> Render {
        Render {
            turns: Alternate::new("assistant"),
            written: 0,
        }
    }
}

impl render::Render for Render {
    fn turn(&mut self, turn: &Turn, tally: &mut Tally, sink: &mut dyn Sink) -> io::Result<()> {
        self.turns.turn(
            turn,
            tally,
            |turn, tally| {
                let place = turn.place.as_str();
                let mut blocks: Vec<Value> = turn
                    .items
                    .iter()
                    .filter_map(|item| block(item, turn.role, place, tally))
                    .collect();
                if !blocks.is_empty() && turn.role == Role::Tool {
                    tally.note(Change::RoleRenamed, place);
                }
                results_first(&mut blocks);
                blocks
            },
            |content| results_first(content),
            |text| json!({"type": "text", "text": text}),
        );
        hand_on(&mut self.turns.out, 2, &mut self.written, sink, message)
    }

    fn finish(mut self: Box<Self>, tally: &mut Tally, sink: &mut dyn Sink) -> io::Result<usize> {
        open_loop_thinking(&self.turns.out, tally);
        hand_on(&mut self.turns.out, 0, &mut self.written, sink, message)?;
        if !self.turns.system.is_empty() {
            sink.field("system", Value::String(self.turns.system.join("\n\n")))?;
        }
        Ok(self.written)
    }
}

fn message(w: Written) -> Value {
    json!({"role": w.role, "content": text_or_blocks(w.blocks)})
}

/// With extended thinking on, Anthropic wants the last assistant turn of
/// an open tool loop (the history ends with its results) to start with a
/// thinking block: noted when it does not, since the caller must then send
/// the request with thinking off.
fn open_loop_thinking(messages: &[Written], tally: &mut Tally) {
    let [.., call, results] = messages else {
        return;
    };
    let open = results.role == "user" && results.blocks.iter().any(|b| b["type"] == "tool_result");
    let thinking = call
        .blocks
        .first()
        .is_some_and(|b| b["type"] == "thinking" || b["type"] == "redacted_thinking");
    if open && call.role == "assistant" && !thinking {
        tally.note(Change::LoopThinkingMissing, &call.place);
    }
}

/// Tool results must open a user turn.
fn results_first(content: &mut [Value]) {
    sort_by_key(content, |b| b["type"] != "tool_result");
}

fn block(item: &Item, role: Role, place: &str, tally: &mut Tally) -> Option<Value> {
    Some(match item {
        Item::Text { text, .. } => json!({"type": "text", "text": text}),
        Item::Thinking {
            text,
            redacted,
            extra,
        } => {
            let own = extra.api == Some(Api::Anthropic) && role == Role::Assistant;
            match (&extra.signature, own) {
                (Some(data), true) if *redacted => {
                    json!({"type": "redacted_thinking", "data": data})
                }
                (Some(signature), true) => {
                    json!({"type": "thinking", "thinking": text, "signature": signature})
                }
                (signature, _) => {
                    tally.thinking_dropped(*redacted, signature.is_some(), place);
                    return None;
                }
            }
        }
        Item::Call {
            id,
            name,
            arguments,
            ..
        } => json!({
            "type": "tool_use",
            "id": id,
            "name": name,
            "input": arguments_object(arguments, place, tally),
        }),
        Item::Result {
            call_id,
            output,
            is_error,
            images,
            ..
        } => {
            let mut block = Map::new();
            block.insert("type".into(), "tool_result".into());
            block.insert("tool_use_id".into(), call_id.clone().into());
            let images: Vec<Value> = images
                .iter()
                .filter_map(|i| image(i, place, tally))
                .collect();
            if images.is_empty() {
                if !output.is_empty() {
                    block.insert("content".into(), output.clone().into());
                }
            } else {
                let mut content = Vec::new();
                if !output.is_empty() {
                    content.push(json!({"type": "text", "text": output}));
                }
                content.extend(images);
                block.insert("content".into(), Value::Array(content));
            }
            if *is_error {
                block.insert("is_error".into(), true.into());
            }
            Value::Object(block)
        }
        Item::Image(i) if role != Role::Assistant => image(i, place, tally)?,
        Item::Image(_) => {
            tally.note(Change::ImageDropped, place);
            return None;
        }
    })
}

/// An image block, or a document block for a PDF (the other media types
/// Anthropic takes nowhere).
fn image(image: &Image, place: &str, tally: &mut Tally) -> Option<Value> {
    let by_url = matches!(image.source, Some(ImageSource::Url(_)));
    let kind = match image.media_type.as_str() {
        "application/pdf" => "document",
        "image/jpeg" | "image/png" | "image/gif" | "image/webp" => "image",
        // A URL's image is fetched by Anthropic, whatever its type.
        t if by_url && is_image(t) => "image",
        _ => {
            tally.note(Change::MediaDropped, place);
            return None;
        }
    };
    let source = match &image.source {
        Some(ImageSource::Base64(data)) => {
            json!({"type": "base64", "media_type": image.media_type, "data": data})
        }
        Some(ImageSource::Url(url)) => json!({"type": "url", "url": url}),
        None => {
            tally.note(Change::ImageWithoutPayload, place);
            return None;
        }
    };
    Some(json!({"type": kind, "source": source}))
}
