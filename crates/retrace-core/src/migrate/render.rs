//! What the renderers of every API share: the [`Render`] trait they
//! implement, turns in and elements out as they are done; system text and roles, content
//! blocks, tool arguments as an object or a string, the alternation of
//! user and model turns, tool results without an error flag, images as
//! URLs.

use std::io;

use serde_json::{json, Value};

use crate::model::message::{data_url, ImageSource, Role};

use super::prepare::{Image, Item, Turn};
use super::report::{Change, Tally};
use super::sink::Sink;

/// The text of a system turn.
pub(super) fn system_text(turn: &Turn) -> String {
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
pub(super) fn system_role(turn: &Turn) -> &'static str {
    match turn.extra.as_ref().and_then(|x| x.role.as_deref()) {
        Some("developer") => "developer",
        _ => "system",
    }
}

/// Content blocks, or the text itself when they are one text block.
pub(super) fn text_or_blocks(blocks: Vec<Value>) -> Value {
    match blocks.as_slice() {
        [only] if only["type"] == "text" && only.as_object().is_some_and(|o| o.len() == 2) => {
            only["text"].clone()
        }
        _ => Value::Array(blocks),
    }
}

/// Tool arguments as the JSON object Anthropic and Google want.
pub(super) fn arguments_object(arguments: &Value, place: &str, tally: &mut Tally) -> Value {
    match arguments {
        Value::Object(_) => arguments.clone(),
        Value::Null => json!({}),
        // No arguments, as OpenAI writes them for a tool that takes none.
        Value::String(s) if s.trim().is_empty() => json!({}),
        // A JSON string holding an object (as OpenAI writes arguments).
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            parsed => {
                tally.note(Change::ArgumentsWrapped, place);
                json!({ "input": parsed.unwrap_or_else(|_| Value::String(s.clone())) })
            }
        },
        other => {
            tally.note(Change::ArgumentsWrapped, place);
            json!({ "input": other })
        }
    }
}

/// One API's renderer, fed the turns in order: it writes each element of
/// the body's list to a [`Sink`] once nothing after it can change it (it
/// holds the last one or two back: the next turn may merge into them),
/// then at the end what it held and the fields after the list.
pub(crate) trait Render {
    fn turn(&mut self, turn: &Turn, tally: &mut Tally, sink: &mut dyn Sink) -> io::Result<()>;
    /// The rest of the body; gives the number of elements of its list
    /// (the report's turns).
    fn finish(self: Box<Self>, tally: &mut Tally, sink: &mut dyn Sink) -> io::Result<usize>;
}

/// Hands `held[..held.len() - keep]` to `sink`, through `element`, counting
/// them in `written`.
pub(super) fn hand_on<T>(
    held: &mut Vec<T>,
    keep: usize,
    written: &mut usize,
    sink: &mut dyn Sink,
    mut element: impl FnMut(T) -> Value,
) -> io::Result<()> {
    let done = held.len().saturating_sub(keep);
    for item in held.drain(..done) {
        sink.item(element(item))?;
        *written += 1;
    }
    Ok(())
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
pub(super) struct Alternate {
    assistant: &'static str,
    pub system: Vec<String>,
    /// The turns written and not handed on; once one was written, the
    /// caller keeps at least the last (a turn may merge into it).
    pub out: Vec<Written>,
}

impl Alternate {
    pub fn new(assistant: &'static str) -> Alternate {
        Alternate {
            assistant,
            system: Vec::new(),
            out: Vec::new(),
        }
    }

    pub fn turn(
        &mut self,
        turn: &Turn,
        tally: &mut Tally,
        blocks: impl FnOnce(&Turn, &mut Tally) -> Vec<Value>,
        merged: impl Fn(&mut Vec<Value>),
        user_text: impl Fn(&str) -> Value,
    ) {
        let assistant = self.assistant;
        let out = &mut self.out;
        let place = turn.place.as_str();
        if turn.role == Role::System {
            if !out.is_empty() {
                tally.note(Change::SystemMoved, place);
            }
            self.system.push(system_text(turn));
            return;
        }
        let role = if turn.role == Role::Assistant {
            assistant
        } else {
            "user"
        };
        let blocks = blocks(turn, tally);
        // Emptied by what the target cannot take (already reported).
        if blocks.is_empty() {
            return;
        }
        let written = |role, blocks| Written {
            role,
            blocks,
            place: place.to_owned(),
        };
        match out.last_mut() {
            Some(last) if last.role == role => {
                tally.note(Change::TurnsMerged, place);
                last.blocks.extend(blocks);
                merged(&mut last.blocks);
            }
            None if role == assistant => {
                tally.note(Change::UserTurnAdded, place);
                out.push(written("user", vec![user_text(OPENING)]));
                out.push(written(role, blocks));
            }
            _ => out.push(written(role, blocks)),
        }
    }
}

/// One turn [`Alternate`] wrote: its role, its blocks (or parts), and the
/// place of the first turn it holds, for the report.
pub(super) struct Written {
    pub role: &'static str,
    pub blocks: Vec<Value>,
    pub place: String,
}

/// The user turn put before a history that opens with the model.
pub(super) const OPENING: &str = "(The conversation continues.)";

/// Whether an API that takes images takes `media_type` as one (`image/*`
/// is an image whose type the source did not say, as for a URL).
pub(super) fn is_image(media_type: &str) -> bool {
    media_type.starts_with("image/")
}

/// A tool turn for the OpenAI APIs, which have no error flag: each result
/// goes to `result` (its call id, output and images), a dropped error flag
/// noted; the turn's other items come back, to follow the results as user
/// content.
pub(super) fn tool_results(
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
                    tally.note(Change::ErrorFlagDropped, place);
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
pub(super) fn arguments_string(arguments: &Value) -> String {
    match arguments {
        Value::String(s) => s.clone(),
        Value::Null => "{}".to_owned(),
        other => other.to_string(),
    }
}

/// An image as a URL (OpenAI takes data URLs); other media are dropped.
pub(super) fn image_url(image: &Image, place: &str, tally: &mut Tally) -> Option<String> {
    if !is_image(&image.media_type) {
        tally.note(Change::MediaDropped, place);
        return None;
    }
    match &image.source {
        Some(ImageSource::Base64(data)) => Some(data_url(&image.media_type, data)),
        Some(ImageSource::Url(url)) => Some(url.clone()),
        None => {
            tally.note(Change::ImageWithoutPayload, place);
            None
        }
    }
}
