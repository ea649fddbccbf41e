//! Provider message lists (Anthropic messages, OpenAI Chat messages, OpenAI
//! Responses items, Google contents): what seal and compact write, in the
//! list's own outer shape. A fork is [`export_branch`](crate::export_branch)'s
//! prefix and needs nothing from here.
//!
//! The output keeps the input's outer shape — JSON lines, a bare array, or
//! a request body (`{"system", "messages"}`, `{"systemInstruction",
//! "contents"}`, `{"instructions", "input"}`) whose other fields are kept —
//! and every element that does not change is copied byte for byte. New
//! elements are built by [`migrate`](crate::migrate::migrate), the one place
//! that writes an API's shape, and written in the file's style (one line
//! each in JSON lines; in a pretty-printed document, indented like its
//! elements).
//!
//! - Seal: each call left without a result gets one marked as an error,
//!   where the API wants it: Anthropic a `tool_result` block with
//!   `is_error: true` opening the user message right after the call (added
//!   to that message when it already answers calls of the same turn, else a
//!   new user message); OpenAI Chat a `tool` message after the call's
//!   message and the tool messages already answering it; OpenAI Responses a
//!   `function_call_output` (`custom_tool_call_output` for a custom call)
//!   after the run of call and output items the call is in; Google a
//!   `functionResponse` with `{"error"}` opening the user content right
//!   after the call's (Google wants as many responses as calls in that one
//!   content, and turns to alternate), else a new content.
//! - Compact: the elements before the cut that are system or developer
//!   prompts, then the caller's summary as a user message, then the kept
//!   tail; a request body's own system prompt stays where it is. In a
//!   Google list whose tail starts with a user turn the summary opens that
//!   turn instead (turns alternate).

// Without the `list-writers` feature only the layout helpers that
// `gemini.rs` shares and the compaction path are used.
#![cfg_attr(not(feature = "list-writers"), allow(dead_code))]

use std::collections::HashMap;

use serde_json::{json, Value};

use super::{Answer, EditError};
use crate::migrate::migrate;
use crate::model::entry::{EntryId, FileId};
use crate::model::message::{Message, MessageKind, Part, PartExtra, Role};
use crate::model::provider::Api;
use crate::read::scan::{scan_line, LineScan, ValueKind};
use crate::session::{document_frame, line_range, Session};
use crate::source::Source;

/// One element of a list being written.
pub(crate) enum Piece {
    /// An element of the session, copied byte for byte.
    Entry(EntryId),
    /// An element already written in the file's style (one changed).
    Bytes(Vec<u8>),
    /// A new element, written in the file's style.
    Value(Value),
}

/// How new JSON is laid out to match a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Style {
    /// On one line, as `JSON.stringify` and `serde_json` write it.
    Compact,
    /// Pretty-printed: `unit` per level, continuation lines starting with
    /// `base` (the indentation of the line the value starts on).
    Pretty { unit: String, base: String },
}

impl Style {
    /// The style of what follows `gap`, the blanks (and comma) between two
    /// values of a file: pretty when they are on lines of their own, one
    /// level deeper than `outer` (the indentation of the line the
    /// container opens on).
    pub fn after(gap: &[u8], outer: usize) -> Style {
        let Some(nl) = gap.iter().rposition(|&b| b == b'\n') else {
            return Style::Compact;
        };
        let base: String = String::from_utf8_lossy(&gap[nl + 1..])
            .chars()
            .filter(|c| *c == ' ' || *c == '\t')
            .collect();
        let unit = if base.starts_with('\t') {
            "\t".to_owned()
        } else {
            " ".repeat(base.len().saturating_sub(outer).max(1))
        };
        Style::Pretty { unit, base }
    }

    /// `value` in this style.
    pub fn write(&self, value: &Value) -> Vec<u8> {
        match self {
            Style::Compact => value.to_string().into_bytes(),
            Style::Pretty { unit, base } => {
                let mut out = Vec::new();
                let formatter = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
                let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
                serde::Serialize::serialize(value, &mut ser).expect("a Value always serializes");
                let mut indented = Vec::with_capacity(out.len());
                for &b in &out {
                    indented.push(b);
                    if b == b'\n' {
                        indented.extend_from_slice(base.as_bytes());
                    }
                }
                indented
            }
        }
    }
}

/// The list of `file` (the leaf's) with `pieces` as its elements, in its
/// outer shape: a document's bytes around its array kept, JSON lines one
/// element a line.
pub(crate) fn write_pieces(
    session: &Session,
    source: &mut dyn Source,
    file: FileId,
    pieces: &[Piece],
) -> Result<Vec<u8>, EditError> {
    let mut out = Vec::new();
    if session.files()[file.0 as usize].document.is_some() {
        let frame = document_frame(session, source, file)?.ok_or_else(|| {
            EditError::Invalid(format!(
                "{} holds no element to write around",
                session.files()[file.0 as usize].name
            ))
        })?;
        // One element gives no gap to copy: the blanks before it.
        let separator = match frame.elements {
            1 => {
                let from = frame
                    .head
                    .iter()
                    .rposition(|&b| b == b'[')
                    .map_or(0, |i| i + 1);
                [&b","[..], &frame.head[from..]].concat()
            }
            _ => frame.separator.clone(),
        };
        let open = frame.head.iter().rposition(|&b| b == b'[').unwrap_or(0);
        let style = Style::after(&separator, indent_at(&frame.head, open));
        out.extend_from_slice(&frame.head);
        for (i, piece) in pieces.iter().enumerate() {
            if i > 0 {
                out.extend_from_slice(&separator);
            }
            match piece {
                Piece::Entry(e) => {
                    let entry = session.entry(*e);
                    out.extend_from_slice(&source.read(entry.file, entry.range())?);
                }
                Piece::Bytes(bytes) => out.extend_from_slice(bytes),
                Piece::Value(v) => out.extend_from_slice(&style.write(v)),
            }
        }
        out.extend_from_slice(&frame.tail);
        return Ok(out);
    }
    for piece in pieces {
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        match piece {
            Piece::Entry(e) => {
                let range = line_range(session, source, *e)?;
                out.extend_from_slice(&source.read(session.entry(*e).file, range)?);
            }
            Piece::Bytes(bytes) => {
                out.extend_from_slice(bytes);
                out.push(b'\n');
            }
            Piece::Value(v) => {
                out.extend_from_slice(v.to_string().as_bytes());
                out.push(b'\n');
            }
        }
    }
    Ok(out)
}

/// The indentation of the line `at` is on.
pub(crate) fn indent_at(bytes: &[u8], at: usize) -> usize {
    let start = bytes[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    bytes[start..at]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count()
}

/// The list key of a migrated body.
fn list_key(api: Api) -> &'static str {
    match api {
        Api::Anthropic | Api::OpenAiChat => "messages",
        Api::OpenAiResponses => "input",
        Api::Google => "contents",
    }
}

/// The elements that answer `answers` in `api`'s shape, written by
/// `migrate` from a turn holding the calls and one holding error results:
/// for Anthropic and Google the one user turn, for the OpenAI APIs one
/// element per result. Refuses ids `migrate` would have to change (an id
/// the API does not take: the list is not one it would accept anyway).
fn answer_elements(api: Api, answers: &[&Answer]) -> Result<Vec<Value>, EditError> {
    let mut calls = Message::new(Role::Assistant);
    let mut results = Message::new(Role::Tool);
    for a in answers {
        calls.content.push(Part::ToolCall {
            id: a.id.clone(),
            name: a.name.clone(),
            arguments: json!({}),
        });
        results.push_with(
            Part::ToolResult {
                call_id: a.id.clone(),
                output: a.text.clone(),
                is_error: true,
            },
            PartExtra {
                tool_name: Some(a.name.clone()),
                ..PartExtra::default()
            },
        );
    }
    let body = migrate(&[calls, results], api).body;
    let list = body[list_key(api)].as_array().cloned().unwrap_or_default();
    let elements: Vec<Value> = match api {
        Api::Anthropic | Api::Google => list.last().cloned().into_iter().collect(),
        Api::OpenAiChat => list.into_iter().filter(|m| m["role"] == "tool").collect(),
        Api::OpenAiResponses => list
            .into_iter()
            .filter(|i| i["type"] == "function_call_output")
            .collect(),
    };
    let written: Vec<&str> = elements
        .iter()
        .flat_map(|e| match api {
            Api::Anthropic => e["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["tool_use_id"].as_str())
                .collect::<Vec<_>>(),
            Api::Google => e["parts"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p["functionResponse"]["id"].as_str())
                .collect(),
            Api::OpenAiChat => e["tool_call_id"].as_str().into_iter().collect(),
            Api::OpenAiResponses => e["call_id"].as_str().into_iter().collect(),
        })
        .collect();
    for a in answers.iter().filter(|a| !a.id.is_empty()) {
        if !written.contains(&a.id.as_str()) {
            return Err(EditError::Invalid(format!(
                "tool call id \"{}\" is not one the {} API takes: its result cannot be \
                 written under that id",
                a.id,
                api.name()
            )));
        }
    }
    Ok(elements)
}

/// The branch ending at `leaf` with a result written for each of
/// `answers` (see the module doc): the new file's bytes.
pub(crate) fn seal(
    session: &Session,
    source: &mut dyn Source,
    leaf: EntryId,
    api: Api,
    answers: &[Answer],
) -> Result<Vec<u8>, EditError> {
    let branch = session.standalone_branch(leaf);
    let mut by_entry: HashMap<EntryId, Vec<&Answer>> = HashMap::new();
    for a in answers {
        by_entry.entry(a.entry).or_default().push(a);
    }
    let bodies: Vec<Value> = branch
        .iter()
        .map(|&e| Ok(session.body(e, source)?.unwrap_or(Value::Null)))
        .collect::<Result<_, EditError>>()?;
    // Per element of the branch: its bytes replaced, new elements after it.
    let mut replaced: HashMap<usize, Vec<u8>> = HashMap::new();
    let mut after: HashMap<usize, Vec<Value>> = HashMap::new();
    for (i, &e) in branch.iter().enumerate() {
        let Some(open) = by_entry.get(&e) else {
            continue;
        };
        let mut elements = answer_elements(api, open)?;
        if api == Api::OpenAiResponses && bodies[i]["type"] == "custom_tool_call" {
            for el in &mut elements {
                el["type"] = json!("custom_tool_call_output");
            }
        }
        let next = i + 1;
        match api {
            Api::Anthropic | Api::Google => {
                let key = match api {
                    Api::Anthropic => "content",
                    _ => "parts",
                };
                let answers_calls = answers_anthropic;
                // Google wants the turn right after the call's to hold
                // every response, and turns to alternate: a user turn there
                // takes them first. So does an Anthropic user turn that
                // already answers calls (a string content cannot take
                // blocks: a new user message goes before it, which the API
                // joins to it).
                let joins = bodies.get(next).is_some_and(|b| match api {
                    Api::Google => b["role"] != "model" && b["parts"].is_array(),
                    _ => b["role"] == "user" && answers_calls(b),
                });
                let items = elements[0][key].as_array().cloned().unwrap_or_default();
                if joins {
                    let entry = session.entry(branch[next]);
                    let bytes = match replaced.remove(&next) {
                        Some(b) => b,
                        None => source.read(entry.file, entry.range())?.into_owned(),
                    };
                    let joined = prepend_to_array(&bytes, key, &items).ok_or_else(|| {
                        EditError::Invalid(format!(
                            "{}: its `{key}` array could not be read to add results to",
                            session.label(branch[next])
                        ))
                    })?;
                    replaced.insert(next, joined);
                } else {
                    after.entry(i).or_default().extend(elements);
                }
            }
            Api::OpenAiChat | Api::OpenAiResponses => {
                let in_run = |b: &Value| match api {
                    Api::OpenAiChat => b["role"] == "tool",
                    _ => matches!(
                        b["type"].as_str(),
                        Some(
                            "function_call"
                                | "custom_tool_call"
                                | "function_call_output"
                                | "custom_tool_call_output"
                        )
                    ),
                };
                let mut at = i;
                while bodies.get(at + 1).is_some_and(in_run) {
                    at += 1;
                }
                after.entry(at).or_default().extend(elements);
            }
        }
    }
    let mut pieces = Vec::with_capacity(branch.len() + after.len());
    for (i, &e) in branch.iter().enumerate() {
        match replaced.remove(&i) {
            Some(bytes) => pieces.push(Piece::Bytes(bytes)),
            None => pieces.push(Piece::Entry(e)),
        }
        for v in after.remove(&i).into_iter().flatten() {
            pieces.push(Piece::Value(v));
        }
    }
    write_pieces(session, source, session.entry(leaf).file, &pieces)
}

/// An Anthropic message that holds `tool_result` blocks.
fn answers_anthropic(m: &Value) -> bool {
    m["content"]
        .as_array()
        .is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"))
}

/// `element` (one JSON object) with `items` put first in the array of its
/// top-level field `key`, the other bytes as they were; the items laid out
/// like the array's own. `None` when the element has no such array.
pub(crate) fn prepend_to_array(element: &[u8], key: &str, items: &[Value]) -> Option<Vec<u8>> {
    let mut scan = LineScan::default();
    scan_line(element, &mut scan);
    if scan.error.is_some() {
        return None;
    }
    let field = scan.fields.iter().find(|f| {
        f.parent.is_none() && f.kind == ValueKind::Array && f.key.get(element) == key.as_bytes()
    })?;
    let open = field.value.start as usize + 1;
    let close = field.value.end as usize - 1;
    let first = (open..close).find(|&i| !element[i].is_ascii_whitespace());
    let blanks = &element[open..first.unwrap_or(open)];
    let style = Style::after(blanks, indent_at(element, field.key.start as usize));
    let mut out = element[..open].to_vec();
    out.extend_from_slice(blanks);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
            out.extend_from_slice(blanks);
        }
        out.extend_from_slice(&style.write(item));
    }
    match first {
        Some(first) => {
            out.push(b',');
            out.extend_from_slice(blanks);
            out.extend_from_slice(&element[first..]);
        }
        None => out.extend_from_slice(&element[open..]),
    }
    Some(out)
}

/// The messages of each element of the branch ending at `leaf` (a request
/// body's system prompt, kept where it is, is none of them).
pub(crate) fn context_units(
    session: &Session,
    source: &mut dyn Source,
    leaf: EntryId,
) -> Result<Vec<(EntryId, Vec<Message>)>, EditError> {
    let mut out = Vec::new();
    for e in session.branch(leaf) {
        out.push((e, session.messages(e, source)?));
    }
    Ok(out)
}

/// A list compacted.
pub(crate) struct Compacted {
    /// The new file.
    pub bytes: Vec<u8>,
    /// How many system elements from before the cut it keeps.
    pub systems: usize,
    /// Whether the summary opens the first kept element (Google).
    pub joined: bool,
}

/// The compacted list (see the module doc): the branch ending at `leaf`
/// from `cut` on, after the system prompts before the cut and `summary`
/// as a user message (opening the first kept turn when that is a Google
/// user turn).
pub(crate) fn compact(
    session: &Session,
    source: &mut dyn Source,
    leaf: EntryId,
    api: Api,
    cut: EntryId,
    summary: &str,
) -> Result<Compacted, EditError> {
    let branch = session.branch(leaf);
    let k = branch.iter().position(|&e| e == cut).ok_or_else(|| {
        EditError::Invalid(format!("{} is not on the branch", session.label(cut)))
    })?;
    let mut pieces = Vec::new();
    for &e in &branch[..k] {
        let system = session
            .messages(e, source)?
            .iter()
            .any(|m| m.role == Role::System && m.kind != MessageKind::Marker);
        if system {
            pieces.push(Piece::Entry(e));
        }
    }
    let systems = pieces.len();
    let mut said = Message::new(Role::User);
    said.content.push(Part::Text {
        text: summary.to_owned(),
    });
    let body = migrate(&[said], api).body;
    let summary = body[list_key(api)]
        .as_array()
        .and_then(|l| l.first())
        .cloned()
        .ok_or_else(|| EditError::Invalid("the summary is empty".to_owned()))?;
    // Google wants user and model turns to alternate: a summary before a
    // user turn opens it.
    let first = session.body(cut, source)?.unwrap_or(Value::Null);
    let joined = api == Api::Google && first["role"] != "model";
    match joined {
        true => {
            let entry = session.entry(cut);
            let bytes = source.read(entry.file, entry.range())?;
            let parts = summary["parts"].as_array().cloned().unwrap_or_default();
            let bytes = prepend_to_array(&bytes, "parts", &parts).ok_or_else(|| {
                EditError::Invalid(format!(
                    "{}: its `parts` array could not be read to open with the summary",
                    session.label(cut)
                ))
            })?;
            pieces.push(Piece::Bytes(bytes));
            pieces.extend(branch[k + 1..].iter().map(|&e| Piece::Entry(e)));
        }
        false => {
            pieces.push(Piece::Value(summary));
            pieces.extend(branch[k..].iter().map(|&e| Piece::Entry(e)));
        }
    }
    let bytes = write_pieces(session, source, session.entry(leaf).file, &pieces)?;
    Ok(Compacted {
        bytes,
        systems,
        joined,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_follow_the_blanks_before_a_value() {
        assert_eq!(Style::after(b",", 0), Style::Compact);
        assert_eq!(Style::after(b", ", 0), Style::Compact);
        let pretty = Style::after(b",\n    ", 2);
        assert_eq!(
            pretty,
            Style::Pretty {
                unit: "  ".into(),
                base: "    ".into()
            }
        );
        assert_eq!(
            String::from_utf8(pretty.write(&json!({"a": [1], "b": {}}))).unwrap(),
            "{\n      \"a\": [\n        1\n      ],\n      \"b\": {}\n    }"
        );
    }

    #[test]
    fn items_go_first_in_an_array_laid_out_like_it() {
        let line = br#"{"role":"user","content":[{"type":"text","text":"x"}]}"#;
        let out = prepend_to_array(line, "content", &[json!({"type": "tool_result"})]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"role":"user","content":[{"type":"tool_result"},{"type":"text","text":"x"}]}"#
        );
        let pretty = b"{\n  \"parts\": [\n    {\"text\": \"x\"}\n  ]\n}";
        let out = prepend_to_array(pretty, "parts", &[json!({"a": 1})]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\n  \"parts\": [\n    {\n      \"a\": 1\n    },\n    {\"text\": \"x\"}\n  ]\n}"
        );
        let empty = br#"{"parts":[]}"#;
        let out = prepend_to_array(empty, "parts", &[json!(1), json!(2)]).unwrap();
        assert_eq!(out, br#"{"parts":[1,2]}"#);
        assert!(prepend_to_array(br#"{"parts":"x"}"#, "parts", &[]).is_none());
    }
}
