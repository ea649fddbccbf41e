//! Turns as Google Gemini `contents`: `systemInstruction` apart, `user` and
//! `model` turns of `parts`, `functionCall` parts answered by
//! `functionResponse` parts in the next user turn.

use std::io;

use serde_json::{json, Map, Value};

use super::prepare::{Image, Item, Turn};
use super::render::{self, arguments_object, hand_on, Alternate, Written};
use super::report::{Change, Tally};
use super::sink::Sink;
use crate::model::message::split_data_url;
use crate::model::message::{ImageSource, PartExtra, Role};
use crate::model::provider::Api;

/// The Google renderer: it holds the last turn back (the next may merge
/// into it) and, of the turns handed on, the places of model turns since
/// the last user turn that says something whose first call is unsigned.
pub(crate) struct Render {
    turns: Alternate,
    written: usize,
    unsigned: Unsigned,
}

impl Render {
    pub fn new() -> Render {
        Render {
            turns: Alternate::new("model"),
            written: 0,
            unsigned: Unsigned::default(),
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
                let mut parts = Vec::with_capacity(turn.items.len());
                for item in &turn.items {
                    part(item, turn.role, place, tally, &mut parts);
                }
                if !parts.is_empty() && matches!(turn.role, Role::Assistant | Role::Tool) {
                    tally.note(Change::RoleRenamed, place);
                }
                parts
            },
            |_| {},
            |text| json!({ "text": text }),
        );
        let unsigned = &mut self.unsigned;
        hand_on(&mut self.turns.out, 1, &mut self.written, sink, |w| {
            unsigned.see(&w);
            content(w)
        })
    }

    fn finish(mut self: Box<Self>, tally: &mut Tally, sink: &mut dyn Sink) -> io::Result<usize> {
        let unsigned = &mut self.unsigned;
        hand_on(&mut self.turns.out, 0, &mut self.written, sink, |w| {
            unsigned.see(&w);
            content(w)
        })?;
        unsigned.note(tally);
        if !self.turns.system.is_empty() {
            sink.field(
                "systemInstruction",
                json!({"parts": [{"text": self.turns.system.join("\n\n")}]}),
            )?;
        }
        Ok(self.written)
    }
}

fn content(w: Written) -> Value {
    json!({"role": w.role, "parts": w.blocks})
}

/// Gemini 3 validates the thought signature of each step of the current
/// turn: the model turns after the last user turn that says something (not
/// only function responses) must carry one on their first function call.
/// That turn is still open when the history ends with function responses
/// (else the caller's next message starts a new one): noted there where the
/// source had no signature to give back. Fed the turns in order.
#[derive(Default)]
struct Unsigned {
    /// Model turns of the current turn whose first call has no signature.
    places: Vec<String>,
    /// Whether the last turn is a user turn of function responses only.
    open: bool,
}

impl Unsigned {
    fn see(&mut self, w: &Written) {
        let said = w.role == "user" && w.blocks.iter().any(|p| p.get("functionResponse").is_none());
        if said {
            self.places.clear();
        }
        let first_call = w.blocks.iter().find(|p| p.get("functionCall").is_some());
        if w.role == "model" && first_call.is_some_and(|p| p.get("thoughtSignature").is_none()) {
            self.places.push(w.place.clone());
        }
        self.open = w.role == "user" && !said;
    }

    fn note(&self, tally: &mut Tally) {
        if self.open {
            for place in &self.places {
                tally.note(Change::ThoughtSignatureMissing, place);
            }
        }
    }
}

/// The Gemini thought signature a part carries, when Google wrote it.
fn signature(extra: &PartExtra) -> Option<&String> {
    extra
        .signature
        .as_ref()
        .filter(|_| extra.api == Some(Api::Google))
}

fn with_signature(mut part: Map<String, Value>, extra: &PartExtra, role: Role) -> Value {
    if role == Role::Assistant {
        if let Some(s) = signature(extra) {
            part.insert("thoughtSignature".into(), s.clone().into());
        }
    }
    Value::Object(part)
}

fn part(item: &Item, role: Role, place: &str, tally: &mut Tally, out: &mut Vec<Value>) {
    match item {
        Item::Text { text, extra } => {
            let mut p = Map::new();
            p.insert("text".into(), text.clone().into());
            out.push(with_signature(p, extra, role));
        }
        Item::Thinking {
            redacted, extra, ..
        } => tally.thinking_dropped(*redacted, extra.signature.is_some(), place),
        Item::Call {
            id,
            emit_id,
            name,
            arguments,
            extra,
        } => {
            let mut call = Map::new();
            if *emit_id {
                call.insert("id".into(), id.clone().into());
            }
            call.insert("name".into(), name.clone().into());
            call.insert("args".into(), arguments_object(arguments, place, tally));
            let mut p = Map::new();
            p.insert("functionCall".into(), Value::Object(call));
            out.push(with_signature(p, extra, role));
        }
        Item::Result {
            call_id,
            emit_id,
            name,
            output,
            is_error,
            images,
            structured,
        } => {
            let response = match structured {
                Some(v @ Value::Object(_)) => v.clone(),
                _ if *is_error => json!({"error": output}),
                _ => json!({"output": output}),
            };
            let mut r = Map::new();
            if *emit_id {
                r.insert("id".into(), call_id.clone().into());
            }
            r.insert("name".into(), name.clone().into());
            r.insert("response".into(), response);
            out.push(json!({"functionResponse": r}));
            // Images a tool returned follow its response.
            for i in images {
                if let Some(p) = image(i, place, tally) {
                    out.push(p);
                }
            }
        }
        Item::Image(i) => {
            if let Some(p) = image(i, place, tally) {
                out.push(p);
            }
        }
    }
}

fn image(image: &Image, place: &str, tally: &mut Tally) -> Option<Value> {
    match &image.source {
        Some(ImageSource::Base64(data)) => Some(json!({
            "inlineData": {"mimeType": image.media_type, "data": data}
        })),
        Some(ImageSource::Url(url)) => Some(match split_data_url(url) {
            Some((mime, data)) => json!({"inlineData": {"mimeType": mime, "data": data}}),
            None => {
                // Google wants the type said; a URL's image may not have one.
                let Some(mime) = known_type(&image.media_type, url) else {
                    tally.note(Change::ImageDropped, place);
                    return None;
                };
                json!({"fileData": {"mimeType": mime, "fileUri": url}})
            }
        }),
        None => {
            tally.note(Change::ImageWithoutPayload, place);
            None
        }
    }
}

/// The media type of a file given by URL: as the source said, else from
/// the URL's extension.
fn known_type<'a>(media_type: &'a str, url: &str) -> Option<&'a str> {
    if !media_type.ends_with("/*") {
        return Some(media_type);
    }
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let extension = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match extension.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "gif" => "image/gif",
        "heic" => "image/heic",
        "heif" => "image/heif",
        "pdf" => "application/pdf",
        _ => return None,
    })
}
