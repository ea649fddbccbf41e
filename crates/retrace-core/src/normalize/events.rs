//! Event-stream lines to messages: `user_input` is what the user typed, an
//! `llm_call` is its prompt (what the framework sent, as an injected user
//! message) and its response (an assistant message with the call's usage),
//! a `tool_call` is a call and its result, `final_output` is the answer, a
//! `state_transition` is a marker (`from → to`, then a line per changed
//! key: `key: old → new`), a `checkpoint` (the store's git commit
//! after a tool changed files) is a marker holding a [`Part::Checkpoint`],
//! and a `compaction` is its summary, a user message of
//! [`MessageKind::CompactionSummary`] (which events it keeps is the
//! format's `context_entries`).

use serde_json::Value;

use super::{str_field, text_of};
use crate::model::event::{ChangeKind, FileChange};
use crate::model::harness::Piece;
use crate::model::message::{Message, MessageKind, Part, Role, Usage};
use crate::model::time::parse_rfc3339_ms;
use crate::normalize::{Normalize, Origin};

pub(crate) struct Stream;

impl Normalize for Stream {
    fn feed(&mut self, origin: &Origin, line: &Value, out: &mut Vec<Message>) {
        let Some(kind) = str_field(line, "event_type") else {
            return;
        };
        let data = line.get("data").unwrap_or(&Value::Null);
        let time = timestamp(line.get("timestamp"));
        let mut push = |mut m: Message| {
            m.timestamp = time;
            origin.stamp(&mut m);
            out.push(m);
        };
        match kind {
            "user_input" => push(text_message(Role::User, field(data, "message"))),
            "llm_call" => {
                let mut prompt = Message::new(Role::User);
                prompt.kind = MessageKind::Meta;
                let text = prompt_text(data.get("prompt").unwrap_or(&Value::Null));
                // What the framework sent: context of the call, not typed.
                prompt.harness.push(Piece::Context {
                    label: "prompt sent to the model".to_owned(),
                    text: text.clone(),
                });
                prompt.content.push(Part::Text { text });
                push(prompt);
                let mut response = text_message(Role::Assistant, field(data, "response"));
                let usage = data.get("token_usage").filter(|u| u.is_object()).map(usage);
                response.model = ["model", "model_name"]
                    .iter()
                    .find_map(|k| str_field(data, k))
                    .map(str::to_owned)
                    // Usage is counted per model; keep it even unnamed.
                    .or_else(|| usage.map(|_| "unknown".to_owned()));
                response.usage = usage;
                push(response);
            }
            "tool_call" => {
                let id = ["call_id", "id", "tool_call_id"]
                    .iter()
                    .find_map(|k| str_field(data, k))
                    .map_or_else(|| format!("tool@{}", origin.label), str::to_owned);
                let mut call = Message::new(Role::Assistant);
                call.content.push(Part::ToolCall {
                    id: id.clone(),
                    name: str_field(data, "tool_name").unwrap_or_default().to_owned(),
                    arguments: data.get("parameters").cloned().unwrap_or(Value::Null),
                });
                push(call);
                // An error says why the call failed; what it output before
                // that is kept above it.
                let error = data.get("error").filter(|e| says_something(e));
                let mut output = field(data, "output");
                if let Some(e) = error {
                    if !output.is_empty() {
                        output.push('\n');
                    }
                    output.push_str(&text_of(e));
                }
                let mut result = Message::new(Role::Tool);
                result.content.push(Part::ToolResult {
                    call_id: id,
                    output,
                    is_error: error.is_some(),
                });
                push(result);
            }
            "final_output" => push(text_message(Role::Assistant, field(data, "output"))),
            "state_transition" => {
                let mut text = format!("{} → {}", field(data, "from_node"), field(data, "to_node"));
                match data.get("state_diff") {
                    Some(Value::Object(diff)) => {
                        for (key, change) in diff {
                            text.push_str(&format!("\n{key}: {}", state_change(change)));
                        }
                    }
                    None | Some(Value::Null) => {}
                    Some(other) => text.push_str(&format!("\nstate: {}", short_value(other))),
                }
                push(marker(text));
            }
            // The store's git checkpoint; one that does not read as one is
            // shown as written.
            "checkpoint" => push(match checkpoint(data) {
                Some(part) => {
                    let mut m = marker(String::new());
                    m.content = vec![part];
                    m
                }
                None => marker(format!("checkpoint: {data}")),
            }),
            "compaction" => {
                let mut m = text_message(Role::User, field(data, "summary"));
                m.kind = MessageKind::CompactionSummary;
                push(m);
            }
            other => push(marker(format!("{other}: {data}"))),
        }
    }
}

/// One key's change in a `state_diff`: `old → new` where it says both
/// (`{old, new}`, `{from, to}` or `{before, after}`), else the value as it
/// now is.
fn state_change(change: &Value) -> String {
    let pair = [("old", "new"), ("from", "to"), ("before", "after")]
        .iter()
        .find_map(|(a, b)| {
            let o = change.as_object().filter(|o| o.len() == 2)?;
            Some((o.get(*a)?, o.get(*b)?))
        });
    match pair {
        Some((old, new)) => format!("{} → {}", short_value(old), short_value(new)),
        None => short_value(change),
    }
}

/// A state value on one line: strings as they are, the rest as compact
/// JSON, at most 200 characters.
fn short_value(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let line = text.replace('\n', " ");
    match line.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

fn field(data: &Value, key: &str) -> String {
    text_of(data.get(key).unwrap_or(&Value::Null))
}

fn text_message(role: Role, text: String) -> Message {
    let mut m = Message::new(role);
    m.content.push(Part::Text { text });
    m
}

fn marker(text: String) -> Message {
    let mut m = Message::new(Role::System);
    m.kind = MessageKind::Marker;
    m.content.push(Part::Text { text });
    m
}

/// The data of a `checkpoint` event as a checkpoint part: `None` without a
/// commit, or with a file whose change is not one of the schema's (the
/// fields the store does not name stay in the file, as every body does).
/// Read by hand rather than through `event::Checkpoint`'s serde: its
/// flattened `extra` costs the viewer's bundle kilobytes.
fn checkpoint(data: &Value) -> Option<Part> {
    let text = |key: &str| {
        str_field(data, key)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let files = match data.get("files") {
        None | Some(Value::Null) => Vec::new(),
        Some(files) => files
            .as_array()?
            .iter()
            .map(|f| {
                let change = match str_field(f, "change")? {
                    "created" => ChangeKind::Created,
                    "updated" => ChangeKind::Updated,
                    "deleted" => ChangeKind::Deleted,
                    _ => return None,
                };
                Some(FileChange {
                    path: str_field(f, "path")?.to_owned(),
                    change,
                })
            })
            .collect::<Option<Vec<_>>>()?,
    };
    Some(Part::Checkpoint {
        commit: text("commit")?,
        parent: None,
        tag: text("tag"),
        tool: text("tool_name"),
        files,
        untracked: Vec::new(),
    })
}

/// A prompt: a string, or a list of chat messages shown as `[role] text`.
fn prompt_text(prompt: &Value) -> String {
    match prompt {
        Value::Array(messages) => messages
            .iter()
            .map(|m| {
                let role = str_field(m, "role").unwrap_or("?");
                let content = match m.get("content") {
                    Some(Value::Array(parts)) => parts
                        .iter()
                        .map(|p| str_field(p, "text").map_or_else(|| p.to_string(), str::to_owned))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    Some(c) => text_of(c),
                    None => String::new(),
                };
                format!("[{role}] {content}")
            })
            .collect::<Vec<_>>()
            .join("\n\n"),
        other => text_of(other),
    }
}

/// OpenAI (`prompt_tokens`/`completion_tokens`), Anthropic
/// (`input_tokens`/`output_tokens`) or plain (`input`/`output`) names.
fn usage(u: &Value) -> Usage {
    let first = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| u.get(k).and_then(Value::as_u64))
            .unwrap_or(0)
    };
    Usage {
        input: first(&["prompt_tokens", "input_tokens", "input"]),
        output: first(&["completion_tokens", "output_tokens", "output"]),
        cache_read: first(&["cached_tokens", "cache_read_input_tokens", "cache_read"]),
        cache_write: first(&["cache_creation_input_tokens", "cache_write"]),
        cost: u.get("cost").and_then(Value::as_f64),
    }
}

/// An ISO string, or epoch seconds (milliseconds when too large to be
/// seconds).
fn timestamp(value: Option<&Value>) -> Option<i64> {
    match value? {
        Value::String(s) => parse_rfc3339_ms(s.as_bytes()),
        Value::Number(n) => {
            let x = n.as_f64()?;
            Some(if x.abs() < 1e11 {
                (x * 1000.0).round() as i64
            } else {
                x as i64
            })
        }
        _ => None,
    }
}

/// Whether an `error` field says something: not `null`, `false`, `""` or
/// empty (frameworks write an empty error beside a good output).
fn says_something(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::Number(_) => true,
    }
}
