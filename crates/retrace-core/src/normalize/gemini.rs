//! Gemini CLI message records to messages.
//!
//! A `user` record is a user message. A `gemini` record is one model turn:
//! its `thoughts` (summaries only: subject and description), its `content`
//! and its `toolCalls`; each tool call carries its own result, so the
//! record becomes the assistant message and, when results are there, the
//! tool message that answers it. `info`, `error` and `warning` records are
//! notices of the CLI, never sent to the model: markers (`error: …`) that
//! views show with their text and a migration leaves out.

use serde_json::Value;

use super::provider::google_part;
use super::{count, push_all, str_field, text_part, tool_output, ContextOptions, Parts};
use crate::model::message::{Message, MessageKind, Part, PartExtra, Role, Usage};
use crate::model::time::parse_rfc3339_ms;

/// The messages one record stands for: none, one, or a model turn and the
/// results of its tool calls.
pub(crate) fn record_messages(record: &Value, options: ContextOptions) -> Vec<Message> {
    let timestamp = str_field(record, "timestamp").and_then(|t| parse_rfc3339_ms(t.as_bytes()));
    let mut out = Vec::new();
    match str_field(record, "type") {
        Some("user") => {
            let mut m = Message::new(Role::User);
            push_all(&mut m, content(record.get("content"), options));
            out.push(m);
        }
        Some("gemini") => {
            let mut m = Message::new(Role::Assistant);
            for t in record
                .get("thoughts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let subject = str_field(t, "subject").unwrap_or_default();
                let description = str_field(t, "description").unwrap_or_default();
                let text = match (subject.is_empty(), description.is_empty()) {
                    (false, false) => format!("{subject}\n{description}"),
                    (false, true) => subject.to_owned(),
                    _ => description.to_owned(),
                };
                m.content.push(Part::Thinking {
                    text,
                    redacted: false,
                    signature: false,
                });
            }
            push_all(&mut m, content(record.get("content"), options));
            let calls = record
                .get("toolCalls")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            let mut results = Message::new(Role::Tool);
            for call in calls {
                let id = str_field(call, "id").unwrap_or_default();
                let name = str_field(call, "name").unwrap_or_default();
                m.content.push(Part::ToolCall {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    arguments: call.get("args").cloned().unwrap_or(Value::Null),
                });
                if let Some(result) = call.get("result").and_then(Value::as_array) {
                    push_all(&mut results, call_result(call, id, name, result, options));
                }
            }
            m.model = str_field(record, "model").map(str::to_owned);
            m.usage = record.get("tokens").filter(|t| t.is_object()).map(usage);
            out.push(m);
            if !results.content.is_empty() {
                out.push(results);
            }
        }
        // Notices of the CLI: what the user saw, not what the model did.
        Some(level @ ("info" | "error" | "warning")) => {
            let mut m = Message::new(Role::System);
            m.kind = MessageKind::Marker;
            let text = match record.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            m.content.push(Part::Text {
                text: format!("{level}: {text}"),
            });
            out.push(m);
        }
        _ => {}
    }
    for m in &mut out {
        m.timestamp = timestamp;
    }
    out
}

/// Gemini's token counts in the model's terms: `input` counts cached
/// tokens (Google's `promptTokenCount`), thoughts and tool prompts are
/// counted apart; `total` is input + output + thoughts + tool.
fn usage(t: &Value) -> Usage {
    let cached = count(t, "cached");
    Usage {
        input: count(t, "input").saturating_sub(cached) + count(t, "tool"),
        output: count(t, "output") + count(t, "thoughts"),
        cache_read: cached,
        cache_write: 0,
        cost: None,
    }
}

/// A record's `content`: a string or Google parts.
fn content(value: Option<&Value>, options: ContextOptions) -> Parts {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) if s.is_empty() => Vec::new(),
        Some(Value::String(s)) => vec![text_part(s.clone())],
        Some(Value::Array(parts)) => parts.iter().map(|p| google_part(p, options)).collect(),
        Some(other) => vec![text_part(other.to_string())],
    }
}

/// The result a tool call carries: its `functionResponse` parts (the call
/// id when a response has none), and any other parts after them; failed
/// and cancelled calls are errors.
fn call_result(
    call: &Value,
    id: &str,
    name: &str,
    result: &[Value],
    options: ContextOptions,
) -> Parts {
    let failed = matches!(str_field(call, "status"), Some("error" | "cancelled"));
    let mut responses = Vec::new();
    let mut rest = Vec::new();
    for p in result {
        let (mut part, mut extra) = google_part(p, options);
        match &mut part {
            Part::ToolResult {
                call_id, is_error, ..
            } => {
                if call_id.is_empty() {
                    id.clone_into(call_id);
                }
                *is_error |= failed;
                extra.tool_name.get_or_insert_with(|| name.to_owned());
                responses.push((part, extra));
            }
            _ => rest.push((part, extra)),
        }
    }
    if responses.is_empty() {
        // No `functionResponse`: the other parts are the output.
        let (output, images) = tool_output(rest);
        let extra = PartExtra {
            tool_name: Some(name.to_owned()),
            ..PartExtra::default()
        };
        let part = Part::ToolResult {
            call_id: id.to_owned(),
            output,
            is_error: failed,
        };
        let mut out = vec![(part, extra)];
        out.extend(images);
        return out;
    }
    responses.extend(rest);
    responses
}

#[cfg(test)]
mod tests {
    use super::*;

    // Trimmed from corpus `session-2025-11-19T20-45-42f4bde7.json`.
    const GEMINI: &str = r#"{"id":"b681b8e9","timestamp":"2025-11-19T20:46:34.952Z","type":"gemini","content":"","toolCalls":[{"id":"google_web_search-1763585186176-b4f984d5c6a1a8","name":"google_web_search","args":{"query":"how to install fancyzones"},"result":[{"functionResponse":{"id":"google_web_search-1763585186176-b4f984d5c6a1a8","name":"google_web_search","response":{"output":"Web search results"}}}],"status":"success","timestamp":"2025-11-19T20:46:38.010Z"}],"thoughts":[{"subject":"Understanding the Request","description":"I'm focusing on the user's request.","timestamp":"2025-11-19T20:46:21.005Z"}],"model":"gemini-3-pro-preview","tokens":{"input":11893,"output":92,"cached":10041,"thoughts":47,"tool":0,"total":12032}}"#;

    #[test]
    fn a_model_turn_and_its_results() {
        let v: Value = serde_json::from_str(GEMINI).unwrap();
        let ms = record_messages(&v, ContextOptions::default());
        assert_eq!(ms.len(), 2);
        let (turn, results) = (&ms[0], &ms[1]);
        assert_eq!(turn.role, Role::Assistant);
        assert!(
            matches!(&turn.content[0], Part::Thinking { text, .. } if text.starts_with("Understanding the Request\n"))
        );
        assert_eq!(
            turn.tool_calls().collect::<Vec<_>>(),
            [(
                "google_web_search-1763585186176-b4f984d5c6a1a8",
                "google_web_search"
            )]
        );
        let usage = turn.usage.unwrap();
        assert_eq!(usage.total(), 12032);
        assert_eq!((usage.input, usage.cache_read), (1852, 10041));
        assert_eq!(results.role, Role::Tool);
        assert_eq!(
            results.content[0],
            Part::ToolResult {
                call_id: "google_web_search-1763585186176-b4f984d5c6a1a8".into(),
                output: "Web search results".into(),
                is_error: false
            }
        );
        assert_eq!(results.timestamp, turn.timestamp);
    }

    #[test]
    fn cancelled_calls_are_errors_and_notices_are_markers() {
        let v: Value = serde_json::from_str(r#"{"id":"a","type":"gemini","content":"","toolCalls":[{"id":"run_shell_command-1","name":"run_shell_command","args":{},"result":[{"functionResponse":{"id":"run_shell_command-1","name":"run_shell_command","response":{"error":"[Operation Cancelled] Reason: User cancelled"}}}],"status":"cancelled"}]}"#).unwrap();
        let ms = record_messages(&v, ContextOptions::default());
        assert_eq!(
            ms[1].tool_results().collect::<Vec<_>>(),
            [("run_shell_command-1", true)]
        );
        let v: Value =
            serde_json::from_str(r#"{"id":"b","type":"info","content":"Update successful!"}"#)
                .unwrap();
        let ms = record_messages(&v, ContextOptions::default());
        assert_eq!(ms.len(), 1);
        assert_eq!(ms[0].kind, MessageKind::Marker);
        assert_eq!(ms[0].text(), "info: Update successful!");
        let v: Value = serde_json::from_str(
            r#"{"id":"c","type":"error","content":"Please provide a subcommand."}"#,
        )
        .unwrap();
        let ms = record_messages(&v, ContextOptions::default());
        assert_eq!(ms[0].text(), "error: Please provide a subcommand.");
        // Other record types are still not messages.
        let v: Value = serde_json::from_str(r#"{"id":"d","type":"future"}"#).unwrap();
        assert!(record_messages(&v, ContextOptions::default()).is_empty());
    }
}
