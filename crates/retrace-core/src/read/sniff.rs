//! What the first entries of a file look like, for formats whose entries
//! carry no `type` to detect them by (provider message lists) or whose
//! detection needs a field the index does not keep (Gemini CLI's
//! `sessionId`).
//!
//! The reader parses a small sample (the first few entries, see
//! `framing.rs`) and keeps only this summary.

use serde_json::Value;

use crate::model::provider::Api;

/// A summary of a file's first entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Sniff {
    /// The shape of a provider message list, when the entries are messages.
    pub list: Option<ListShape>,
    /// Gemini CLI records: a metadata record (`sessionId` with
    /// `projectHash`), `$set` or `$rewindTo`.
    pub gemini: bool,
    /// The `sessionId` of the first entry (a Gemini CLI metadata record), or
    /// of an object document.
    pub session_id: Option<String>,
}

/// Which API's message list a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListShape {
    Api(Api),
    /// AgentScope `Msg`s (`name`, `role`, `content` blocks, `metadata`).
    AgentScope,
}

impl Sniff {
    /// Summarizes sampled entries (parsed, in file order).
    pub fn from_values(values: &[Value]) -> Sniff {
        let mut sniff = Sniff {
            session_id: values
                .first()
                .and_then(|v| v.get("sessionId"))
                .and_then(Value::as_str)
                .map(str::to_owned),
            ..Sniff::default()
        };
        sniff.gemini = values.iter().any(|v| {
            v.get("$set").is_some()
                || v.get("$rewindTo").is_some()
                || (v.get("sessionId").is_some()
                    && v.get("projectHash").is_some()
                    && v.get("type").is_none())
        });
        let messages: Vec<&Value> = values.iter().filter(|v| is_message(v)).collect();
        // Most of the sample must be messages: a format with its own
        // envelope can carry one now and then.
        if !messages.is_empty() && messages.len() * 2 > values.len() {
            sniff.list = Some(shape(&messages));
        }
        sniff
    }
}

/// Whether a value looks like one message of a provider list.
fn is_message(v: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    if o.contains_key("uuid") || o.contains_key("parentUuid") || o.contains_key("parentId") {
        return false;
    }
    let role = o.get("role").and_then(Value::as_str).is_some();
    let item = matches!(
        o.get("type").and_then(Value::as_str),
        Some(
            "function_call"
                | "function_call_output"
                | "reasoning"
                | "custom_tool_call"
                | "custom_tool_call_output"
        )
    );
    (role && (o.contains_key("content") || o.contains_key("parts") || o.contains_key("tool_calls")))
        || item
}

/// The API whose shape decides, in order of how telling each sign is.
fn shape(messages: &[&Value]) -> ListShape {
    let any = |f: &dyn Fn(&Value) -> bool| messages.iter().any(|m| f(m));
    let role = |m: &Value| {
        m.get("role")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let block_types = |m: &Value| -> Vec<String> {
        m.get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b.get("type").and_then(Value::as_str).map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    if any(&|m| m.get("parts").is_some_and(Value::is_array)) {
        return ListShape::Api(Api::Google);
    }
    if any(&|m| {
        let r = role(m);
        (r.chars().any(|c| c.is_ascii_uppercase()) && !r.is_empty())
            || (m.get("metadata").is_some() && m.get("name").is_some())
    }) {
        return ListShape::AgentScope;
    }
    if any(&|m| {
        matches!(
            m.get("type").and_then(Value::as_str),
            Some("function_call" | "function_call_output" | "reasoning")
        ) || block_types(m).iter().any(|t| {
            matches!(
                t.as_str(),
                "input_text" | "output_text" | "input_image" | "input_file" | "refusal"
            )
        })
    }) {
        return ListShape::Api(Api::OpenAiResponses);
    }
    if any(&|m| {
        block_types(m).iter().any(|t| {
            matches!(
                t.as_str(),
                "tool_use" | "tool_result" | "thinking" | "redacted_thinking" | "image"
            )
        })
    }) {
        return ListShape::Api(Api::Anthropic);
    }
    // OpenAI Chat: its own fields, roles the others do not have, or plain
    // `role`/`content` pairs (which Anthropic shares; either reads the same).
    ListShape::Api(Api::OpenAiChat)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniff(lines: &[&str]) -> Sniff {
        let values: Vec<Value> = lines
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        Sniff::from_values(&values)
    }

    #[test]
    fn shapes() {
        let api = |lines: &[&str]| sniff(lines).list;
        assert_eq!(
            api(&[r#"{"role":"user","parts":[{"text":"hi"}]}"#]),
            Some(ListShape::Api(Api::Google))
        );
        assert_eq!(
            api(&[
                r#"{"role":"user","content":"hi"}"#,
                r#"{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}"#
            ]),
            Some(ListShape::Api(Api::OpenAiResponses))
        );
        assert_eq!(
            api(&[
                r#"{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]}"#
            ]),
            Some(ListShape::Api(Api::Anthropic))
        );
        assert_eq!(
            api(&[
                r#"{"role":"system","content":"be brief"}"#,
                r#"{"role":"user","content":"hi"}"#
            ]),
            Some(ListShape::Api(Api::OpenAiChat))
        );
        assert_eq!(
            api(&[
                r#"{"id":"a","name":"Friday","role":"ASSISTANT","content":[{"type":"text","text":"hi"}],"metadata":{},"timestamp":"2025-01-01 10:00:00.000"}"#
            ]),
            Some(ListShape::AgentScope)
        );
        // Claude Code lines carry a message, but are not one.
        assert_eq!(
            api(&[
                r#"{"type":"user","uuid":"u","parentUuid":null,"message":{"role":"user","content":"hi"}}"#
            ]),
            None
        );
    }

    #[test]
    fn gemini_records() {
        let s = sniff(&[
            r#"{"sessionId":"s1","projectHash":"p","startTime":"2026-01-01T00:00:00.000Z"}"#,
            r#"{"id":"m1","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":[{"text":"hi"}]}"#,
        ]);
        assert!(s.gemini);
        assert_eq!(s.session_id.as_deref(), Some("s1"));
        assert_eq!(s.list, None);
    }
}
