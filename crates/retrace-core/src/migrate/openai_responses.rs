//! Turns as OpenAI Responses `input` items: `message` items for text,
//! `reasoning` items (only OpenAI's own, by id), `function_call` and
//! `function_call_output` items paired by `call_id`.

use std::collections::HashSet;

use std::io;

use serde_json::{json, Map, Value};

use super::prepare::{Image, Item, Turn};
use super::render::{
    self, arguments_string, hand_on, image_url, system_role, system_text, tool_results,
};
use super::report::{Change, Tally};
use super::sink::Sink;
use crate::model::message::Role;
use crate::model::provider::Api;

/// The OpenAI Responses renderer: it holds the last item back (a
/// reasoning summary may join it).
#[derive(Default)]
pub(crate) struct Render {
    items: Vec<Value>,
    written: usize,
    /// Custom (free-text) calls written so far: their outputs are custom too.
    custom: HashSet<String>,
}

impl render::Render for Render {
    fn turn(&mut self, turn: &Turn, tally: &mut Tally, sink: &mut dyn Sink) -> io::Result<()> {
        self.add(turn, tally);
        hand_on(&mut self.items, 1, &mut self.written, sink, |i| i)
    }

    fn finish(mut self: Box<Self>, _: &mut Tally, sink: &mut dyn Sink) -> io::Result<usize> {
        hand_on(&mut self.items, 0, &mut self.written, sink, |i| i)?;
        Ok(self.written)
    }
}

impl Render {
    fn add(&mut self, turn: &Turn, tally: &mut Tally) {
        let (items, custom) = (&mut self.items, &mut self.custom);
        let place = turn.place.as_str();
        match turn.role {
            Role::System => items.push(json!({
                "type": "message",
                "role": system_role(turn),
                "content": system_text(turn),
            })),
            Role::User => user(&turn.items, place, tally, items),
            Role::Assistant => assistant(turn, place, tally, items, custom),
            Role::Tool => {
                let rest = tool_results(
                    &turn.items,
                    place,
                    tally,
                    |call_id, output, images, tally| {
                        items.push(output_item(call_id, output, images, custom, place, tally));
                    },
                );
                user(&rest, place, tally, items);
            }
        }
    }
}

/// A tool's output item: its text, or a list of its text and the images it
/// returned; custom for the output of a custom (free-text) call.
fn output_item(
    call_id: &str,
    output: &str,
    images: &[Image],
    custom: &HashSet<String>,
    place: &str,
    tally: &mut Tally,
) -> Value {
    let images: Vec<Value> = images
        .iter()
        .filter_map(|i| image_url(i, place, tally))
        .map(input_image)
        .collect();
    let output = if images.is_empty() {
        Value::String(output.to_owned())
    } else {
        let text = (!output.is_empty()).then(|| json!({"type": "input_text", "text": output}));
        Value::Array(text.into_iter().chain(images).collect())
    };
    let kind = if custom.contains(call_id) {
        "custom_tool_call_output"
    } else {
        "function_call_output"
    };
    json!({"type": kind, "call_id": call_id, "output": output})
}

/// An image part. `detail` is required by the SDKs' type (the API
/// defaults it); the session keeps none, so `auto`, the API's default.
fn input_image(url: String) -> Value {
    json!({"type": "input_image", "image_url": url, "detail": "auto"})
}

/// A user message item: a string for one text, else `input_*` parts.
fn user(items: &[Item], place: &str, tally: &mut Tally, out: &mut Vec<Value>) {
    let mut parts = Vec::new();
    for item in items {
        match item {
            Item::Text { text, .. } => parts.push(json!({"type": "input_text", "text": text})),
            Item::Image(image) => {
                if let Some(url) = image_url(image, place, tally) {
                    parts.push(input_image(url));
                }
            }
            Item::Thinking { .. } => tally.note(Change::ThinkingDropped, place),
            Item::Call { .. } | Item::Result { .. } => {}
        }
    }
    let content = match parts.as_slice() {
        [] => return,
        [only] if only["type"] == "input_text" => only["text"].clone(),
        _ => Value::Array(parts),
    };
    out.push(json!({"type": "message", "role": "user", "content": content}));
}

/// An assistant turn in order: consecutive texts as one `message` item,
/// consecutive thinking parts of one reasoning item as that item, calls.
fn assistant(
    turn: &Turn,
    place: &str,
    tally: &mut Tally,
    out: &mut Vec<Value>,
    custom: &mut HashSet<String>,
) {
    let own = |api: Option<Api>| api == Some(Api::OpenAiResponses);
    let mut message_id = turn
        .extra
        .as_ref()
        .filter(|x| own(x.api))
        .map(|x| (x.item_id.clone(), x.status.clone()));
    let mut texts: Vec<Value> = Vec::new();
    let flush = |texts: &mut Vec<Value>,
                 out: &mut Vec<Value>,
                 message_id: &mut Option<(Option<String>, Option<String>)>,
                 tally: &mut Tally| {
        if texts.is_empty() {
            return;
        }
        let mut m = Map::new();
        m.insert("type".into(), "message".into());
        m.insert("role".into(), "assistant".into());
        // The item id and status belong to the first message item only.
        let (id, status) = message_id.take().unwrap_or_default();
        // An output message item without them, as Codex sends it: the API
        // takes it, the SDKs' `ResponseOutputMessageParam` does not.
        if id.is_none() || status.is_none() {
            tally.note(Change::ItemIdMissing, place);
        }
        if let Some(id) = id {
            m.insert("id".into(), id.into());
        }
        if let Some(status) = status {
            m.insert("status".into(), status.into());
        }
        m.insert("content".into(), Value::Array(std::mem::take(texts)));
        out.push(Value::Object(m));
    };
    for item in &turn.items {
        match item {
            Item::Text { text, .. } => {
                texts.push(json!({"type": "output_text", "text": text, "annotations": []}));
            }
            Item::Thinking {
                text,
                redacted,
                extra,
            } => {
                // A reasoning item goes back by its id, or (as Codex sends
                // them, without ids) by its encrypted content.
                let id = extra.item_id.as_ref().filter(|_| own(extra.api));
                let encrypted = extra.signature.as_ref().filter(|_| own(extra.api));
                let summary = json!({"type": "summary_text", "text": text});
                // The next summary of the same reasoning item joins it: one
                // with its id, or one of neither an id nor content of its
                // own after an item without an id.
                let same_item = |l: &&mut Value| {
                    l["type"] == "reasoning"
                        && !text.is_empty()
                        && match id {
                            Some(id) => l["id"] == id.as_str(),
                            None => encrypted.is_none() && l.get("id").is_none(),
                        }
                };
                if own(extra.api) && texts.is_empty() {
                    if let Some(last) = out.last_mut().filter(same_item) {
                        if let Some(list) = last["summary"].as_array_mut() {
                            list.push(summary);
                        }
                        continue;
                    }
                }
                if id.is_none() && encrypted.is_none() {
                    tally.thinking_dropped(*redacted, extra.signature.is_some(), place);
                    continue;
                }
                flush(&mut texts, out, &mut message_id, tally);
                let mut r = Map::new();
                r.insert("type".into(), "reasoning".into());
                match id {
                    Some(id) => {
                        r.insert("id".into(), id.clone().into());
                    }
                    // By its encrypted content alone, as Codex sends it: the
                    // API takes it, `ResponseReasoningItemParam` does not.
                    None => tally.note(Change::ItemIdMissing, place),
                }
                let summaries = if text.is_empty() {
                    Vec::new()
                } else {
                    vec![summary]
                };
                r.insert("summary".into(), Value::Array(summaries));
                if let Some(content) = encrypted {
                    r.insert("encrypted_content".into(), content.clone().into());
                }
                out.push(Value::Object(r));
            }
            Item::Call {
                id,
                name,
                arguments,
                extra,
                ..
            } => {
                flush(&mut texts, out, &mut message_id, tally);
                // A custom tool's free text input goes back as it came.
                let freeform = extra.freeform && own(extra.api) && arguments.is_string();
                let kind = if freeform {
                    custom.insert(id.clone());
                    "custom_tool_call"
                } else {
                    "function_call"
                };
                let mut c = Map::new();
                c.insert("type".into(), kind.into());
                if let Some(item_id) = extra.item_id.as_ref().filter(|_| own(extra.api)) {
                    c.insert("id".into(), item_id.clone().into());
                }
                c.insert("call_id".into(), id.clone().into());
                c.insert("name".into(), name.clone().into());
                if freeform {
                    c.insert("input".into(), arguments.clone());
                } else {
                    c.insert("arguments".into(), arguments_string(arguments).into());
                }
                out.push(Value::Object(c));
            }
            Item::Image(_) => tally.note(Change::ImageDropped, place),
            Item::Result { .. } => {}
        }
    }
    flush(&mut texts, out, &mut message_id, tally);
}
