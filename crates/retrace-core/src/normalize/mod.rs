//! Message bodies (parsed lazily with serde_json) turned into [`Message`]s.
//!
//! One module per format. Each reads a parsed line leniently: a missing or
//! `null` field is an absent value, never an error, because real files carry
//! both (Pydantic round trips write `"isMeta": null`).
//!
//! [`Message`]: crate::Message

// Declared bottom-up: a module uses only those above it (Gemini CLI
// content is read as provider content).
pub(crate) mod figures;
pub(crate) mod harness;
pub(crate) mod claude;
pub(crate) mod provider;
pub(crate) mod codex;
pub(crate) mod events;
pub(crate) mod gemini;
pub(crate) mod pi;

use serde_json::Value;

use crate::model::entry::Entry;
use crate::model::message::{ImageSource, Message, Part, PartExtra};
use crate::model::provider::Api;

/// How much of a body to keep when normalizing it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ContextOptions {
    /// Keep what only a provider needs (image payloads, thinking signatures,
    /// encrypted reasoning) in the messages' [`PartExtra`]s, as a migration
    /// does. Off for views: payloads can be megabytes.
    pub payloads: bool,
}

/// Whether context is being built for one branch or every body is being
/// checked (where a format must not repeat messages a branch would show
/// twice, such as history replayed after a compaction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Context,
    Check,
}

/// Where a body came from, for the message built from it, and what the
/// message is read for.
pub(crate) struct Origin<'a> {
    pub entry: &'a Entry,
    /// The entry's id or `L<line>` label.
    pub label: String,
    /// Whether to keep what only a provider needs (see [`ContextOptions`]).
    pub options: ContextOptions,
}

impl Origin<'_> {
    /// Records this entry as a source of `m`.
    pub fn stamp(&self, m: &mut Message) {
        m.entries.push(self.label.clone());
        m.lines.push(self.entry.line);
    }
}

/// How many of the last messages in `out` a normalizer may still change
/// (Codex puts a run's report on its call or result up to this far back);
/// a streamed context ([`Session::context_each`]) hands on only the ones
/// before them.
///
/// [`Session::context_each`]: crate::Session::context_each
pub(crate) const LOOKBACK: usize = 64;

/// Turns parsed bodies into messages, fed entry by entry in branch order
/// (for [`Session::context`]) or file order (for [`Session::check`]). A
/// normalizer may hold state (the model of the current turn, a response
/// spread over several lines) and emit a message later than the entry that
/// began it; in [`Mode::Context`] `out` holds at least the last
/// [`LOOKBACK`] messages of the context so far.
pub(crate) trait Normalize {
    fn feed(&mut self, origin: &Origin, value: &Value, out: &mut Vec<Message>);
    /// Emits what is still held back. A normalizer goes on taking lines
    /// after it (a row's prelude is finished before its own lines, see
    /// `Rules::prelude`), with what it learnt of the lines before.
    fn finish(&mut self, _out: &mut Vec<Message>) {}
    /// Whether each line's messages depend on that line alone, so that a
    /// fresh normalizer may start at any line (the deep check splits a
    /// file across threads where this holds).
    fn per_line(&self) -> bool {
        false
    }
}

/// A normalizer made of a function from one body to at most one message.
pub(crate) struct PerLine(pub fn(&Value, ContextOptions) -> Option<Message>);

impl Normalize for PerLine {
    fn feed(&mut self, origin: &Origin, value: &Value, out: &mut Vec<Message>) {
        if let Some(mut m) = (self.0)(value, origin.options) {
            origin.stamp(&mut m);
            out.push(m);
        }
    }

    fn per_line(&self) -> bool {
        true
    }
}

/// Parts being built, each with its provider data.
pub(crate) type Parts = Vec<(Part, PartExtra)>;

/// Appends `parts` to `m`.
fn push_all(m: &mut Message, parts: Parts) {
    for (part, extra) in parts {
        m.push_with(part, extra);
    }
}

/// A plain text part.
fn text_part(text: impl Into<String>) -> (Part, PartExtra) {
    (Part::Text { text: text.into() }, PartExtra::default())
}

/// Provider data holding an opaque `signature` of `api`, when payloads are
/// kept and there is one.
fn signed(api: Option<Api>, signature: Option<&str>, options: ContextOptions) -> PartExtra {
    match signature.filter(|s| !s.is_empty() && options.payloads) {
        Some(s) => PartExtra {
            api,
            signature: Some(s.to_owned()),
            ..PartExtra::default()
        },
        None => PartExtra::default(),
    }
}

/// A string field, `None` when missing, null or not a string.
fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// A boolean field, `false` when missing, null or not a boolean.
fn flag(value: &Value, key: &str) -> bool {
    value.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// A token count, 0 when missing.
fn count(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// The decoded size of base64 `data`, without decoding it.
fn base64_size(data: &str) -> u64 {
    let data = data.trim_end();
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count();
    ((data.len() / 4 * 3) + (data.len() % 4).saturating_sub(1)).saturating_sub(padding) as u64
}

/// An image part from a media type and base64 payload.
fn image(media_type: Option<&str>, data: Option<&str>) -> Part {
    Part::Image {
        media_type: media_type.unwrap_or("application/octet-stream").to_owned(),
        byte_size: data.map_or(0, base64_size),
    }
}

/// [`image`] with its payload kept in its extra when payloads are asked
/// for.
fn image_with(
    media_type: Option<&str>,
    data: Option<&str>,
    options: ContextOptions,
) -> (Part, PartExtra) {
    let extra = PartExtra {
        image: data
            .filter(|_| options.payloads)
            .map(|d| ImageSource::Base64(d.to_owned())),
        ..PartExtra::default()
    };
    (image(media_type, data), extra)
}

/// Text of a JSON value that should be text but sometimes is not: strings
/// as they are, anything else as compact JSON.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A tool result's content parts split into its output text (text parts
/// joined by newlines) and the parts that are not text (images), which
/// follow the result, marked as its own (`PartExtra::of_result`).
fn tool_output(parts: Parts) -> (String, Parts) {
    let mut output = String::new();
    let mut rest = Vec::new();
    for (part, extra) in parts {
        match part {
            Part::Text { text } => {
                if !output.is_empty() {
                    output.push('\n');
                }
                output.push_str(&text);
            }
            other => rest.push((
                other,
                PartExtra {
                    of_result: true,
                    ..extra
                },
            )),
        }
    }
    (output, rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_sizes() {
        assert_eq!(base64_size(""), 0);
        assert_eq!(base64_size("TQ=="), 1);
        assert_eq!(base64_size("TWE="), 2);
        assert_eq!(base64_size("TWFu"), 3);
        assert_eq!(base64_size("TWFuTQ=="), 4);
        // Unpadded input still gives the decoded length.
        assert_eq!(base64_size("TWFuTQ"), 4);
    }
}
