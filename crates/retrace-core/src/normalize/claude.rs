//! Claude Code lines to messages.
//!
//! `user` and `assistant` lines carry an Anthropic Messages API `message`.
//! A response is written one content block per line, every line repeating
//! `message.id` and the usage; [`merge_split`] joins them back into one
//! message with the usage counted once. A user line holding `tool_result`
//! blocks is a [`Role::Tool`] message.

use serde_json::Value;

use super::harness;
use super::{
    count, flag, image_with, push_all, signed, str_field, text_of, text_part, tool_output,
    ContextOptions, Parts,
};
use crate::model::message::{ImageSource, Message, MessageKind, Part, PartExtra, Role, Usage};
use crate::model::provider::Api;
use crate::model::time::parse_rfc3339_ms;

/// The message one Claude Code line holds, if any.
pub(crate) fn line_message(line: &Value, options: ContextOptions) -> Option<Message> {
    let kind = str_field(line, "type")?;
    if kind != "user" && kind != "assistant" {
        return None;
    }
    let msg = line.get("message").filter(|m| m.is_object())?;
    let mut m = match speaker(msg, kind) {
        "assistant" => assistant(msg, options),
        _ => user(msg, options),
    };
    if flag(line, "isCompactSummary") {
        m.kind = MessageKind::CompactionSummary;
    } else {
        let meta = flag(line, "isMeta");
        if meta {
            m.kind = MessageKind::Meta;
        }
        harness::recognise(&mut m, harness::claude, meta);
    }
    m.timestamp = str_field(line, "timestamp").and_then(|t| parse_rfc3339_ms(t.as_bytes()));
    Some(m)
}

/// Who wrote the line's message: its `message.role` when that is `user` or
/// `assistant`, else the line's `type` (a damaged role such as `assis|ant`
/// must not turn an assistant's tool calls into a user's; the link step
/// reports the damage).
fn speaker<'a>(msg: &'a Value, kind: &'a str) -> &'a str {
    match str_field(msg, "role") {
        Some(role @ ("user" | "assistant")) => role,
        _ => kind,
    }
}

/// Appends the next line of the same response to `into`: content in order,
/// and the usage and stop reason of the later line (each line repeats the
/// running totals, so adding them would count tokens twice).
pub(crate) fn merge_split(into: &mut Message, next: Message) {
    into.extend_parts(next.content, next.part_extras);
    if next.usage.is_some() {
        into.usage = next.usage;
    }
    if next.stop_reason.is_some() {
        into.stop_reason = next.stop_reason;
    }
    if into.model.is_none() {
        into.model = next.model;
    }
    into.entries.extend(next.entries);
    into.lines.extend(next.lines);
}

fn user(msg: &Value, options: ContextOptions) -> Message {
    let content = blocks(msg.get("content"), options);
    let is_result = content
        .iter()
        .any(|(p, _)| matches!(p, Part::ToolResult { .. }));
    let mut m = Message::new(if is_result { Role::Tool } else { Role::User });
    push_all(&mut m, content);
    m
}

fn assistant(msg: &Value, options: ContextOptions) -> Message {
    let mut m = Message::new(Role::Assistant);
    push_all(&mut m, blocks(msg.get("content"), options));
    m.model = str_field(msg, "model").map(str::to_owned);
    m.stop_reason = str_field(msg, "stop_reason").map(str::to_owned);
    m.usage = msg.get("usage").filter(|u| u.is_object()).map(|u| Usage {
        input: count(u, "input_tokens"),
        output: count(u, "output_tokens"),
        cache_read: count(u, "cache_read_input_tokens"),
        cache_write: count(u, "cache_creation_input_tokens"),
        cost: None,
    });
    m
}

/// Content: a string, or Anthropic blocks. Unknown blocks are kept as their
/// JSON text so a new block type is visible rather than lost.
fn blocks(value: Option<&Value>, options: ContextOptions) -> Parts {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![text_part(s.clone())],
        Some(Value::Array(items)) => {
            let mut out = Vec::with_capacity(items.len());
            for b in items {
                block(b, &mut out, options);
            }
            out
        }
        Some(other) => vec![text_part(other.to_string())],
    }
}

fn block(b: &Value, out: &mut Parts, options: ContextOptions) {
    let anthropic = Some(Api::Anthropic);
    let part = match str_field(b, "type") {
        Some("text") => text_part(text_of(b.get("text").unwrap_or(&Value::Null))),
        Some("thinking") => {
            let signature = str_field(b, "signature");
            let part = Part::Thinking {
                text: str_field(b, "thinking").unwrap_or_default().to_owned(),
                redacted: false,
                signature: signature.is_some_and(|s| !s.is_empty()),
            };
            (part, signed(anthropic, signature, options))
        }
        Some("redacted_thinking") => {
            let part = Part::Thinking {
                text: String::new(),
                redacted: true,
                signature: false,
            };
            (part, signed(anthropic, str_field(b, "data"), options))
        }
        Some("tool_use" | "server_tool_use") => (
            Part::ToolCall {
                id: str_field(b, "id").unwrap_or_default().to_owned(),
                name: str_field(b, "name").unwrap_or_default().to_owned(),
                arguments: b.get("input").cloned().unwrap_or(Value::Null),
            },
            PartExtra::default(),
        ),
        Some("tool_result") => return tool_result(b, out, options),
        Some(t) if is_server_tool_result(t, b) => server_tool_result(b),
        Some("image") => image_block(b, options),
        _ => text_part(text_of(b)),
    };
    out.push(part);
}

/// Whether a block of type `kind` is the outcome of a tool Anthropic ran
/// itself (`web_search_tool_result`, …): it answers a `server_tool_use`.
pub(crate) fn is_server_tool_result(kind: &str, b: &Value) -> bool {
    kind.ends_with("_tool_result") && b.get("tool_use_id").is_some()
}

/// A server tool's result block as the result of its call, by id.
pub(crate) fn server_tool_result(b: &Value) -> (Part, PartExtra) {
    let part = Part::ToolResult {
        call_id: str_field(b, "tool_use_id").unwrap_or_default().to_owned(),
        output: text_of(b.get("content").unwrap_or(&Value::Null)),
        is_error: false,
    };
    (part, PartExtra::default())
}

/// An Anthropic `image` block: base64 data or a URL source.
pub(crate) fn image_block(b: &Value, options: ContextOptions) -> (Part, PartExtra) {
    let source = b.get("source").unwrap_or(&Value::Null);
    let (mut part, mut extra) = image_with(
        str_field(source, "media_type"),
        str_field(source, "data"),
        options,
    );
    if let Some(url) = str_field(source, "url") {
        if options.payloads {
            extra.image = Some(ImageSource::Url(url.to_owned()));
        }
        if let Part::Image { media_type, .. } = &mut part {
            if str_field(source, "media_type").is_none() {
                "image/*".clone_into(media_type);
            }
        }
    }
    (part, extra)
}

/// A `tool_result` block: its text as the output, images inside it as
/// separate parts after it.
fn tool_result(b: &Value, out: &mut Parts, options: ContextOptions) {
    let mut output = String::new();
    let mut images = Vec::new();
    match b.get("content") {
        Some(Value::Array(items)) => {
            let mut parts = Vec::new();
            for item in items {
                block(item, &mut parts, options);
            }
            (output, images) = tool_output(parts);
        }
        Some(other) => output = text_of(other),
        None => {}
    }
    out.push((
        Part::ToolResult {
            call_id: str_field(b, "tool_use_id").unwrap_or_default().to_owned(),
            output,
            is_error: flag(b, "is_error"),
        },
        PartExtra::default(),
    ));
    out.extend(images);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Option<Message> {
        line_message(
            &serde_json::from_str(line).unwrap(),
            ContextOptions::default(),
        )
    }

    // Trimmed from corpus `-experiments-worktrees/ef958aa1-….jsonl` (2.1.114).
    const TOOL_USE: &str = r#"{"parentUuid":"c2d0ce27","isSidechain":false,"message":{"model":"claude-opus-4-7","id":"msg_01BKHZiw","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_01EF5USX","name":"Bash","input":{"command":"git status","description":"Check current git state"},"caller":{"type":"direct"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":6,"cache_creation_input_tokens":33381,"cache_read_input_tokens":0,"output_tokens":206}},"requestId":"req_011CaBJY","type":"assistant","uuid":"53204f50","timestamp":"2026-04-18T13:19:17.238Z"}"#;
    const TOOL_RESULT: &str = r#"{"parentUuid":"53204f50","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_01EF5USX","type":"tool_result","content":"On branch master","is_error":false}]},"uuid":"6ae56fa4","timestamp":"2026-04-18T13:19:18.000Z","toolUseResult":{"stdout":"On branch master","stderr":""}}"#;

    #[test]
    fn assistant_tool_use() {
        let m = parse(TOOL_USE).unwrap();
        assert_eq!(m.role, Role::Assistant);
        assert_eq!(m.model.as_deref(), Some("claude-opus-4-7"));
        assert_eq!(m.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!(
            m.tool_calls().collect::<Vec<_>>(),
            [("toolu_01EF5USX", "Bash")]
        );
        let usage = m.usage.unwrap();
        assert_eq!(
            (usage.input, usage.output, usage.cache_write),
            (6, 206, 33381)
        );
        assert_eq!(m.timestamp, parse_rfc3339_ms(b"2026-04-18T13:19:17.238Z"));
    }

    #[test]
    fn tool_result_line_is_a_tool_message() {
        let m = parse(TOOL_RESULT).unwrap();
        assert_eq!(m.role, Role::Tool);
        assert_eq!(
            m.content,
            [Part::ToolResult {
                call_id: "toolu_01EF5USX".into(),
                output: "On branch master".into(),
                is_error: false
            }]
        );
    }

    #[test]
    fn split_response_merges_with_usage_once() {
        let mut first = parse(r#"{"type":"assistant","uuid":"a","timestamp":"2026-04-18T13:19:17.000Z","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"thinking","thinking":"hm","signature":""}],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}"#).unwrap();
        let second = parse(TOOL_USE).unwrap();
        merge_split(&mut first, second);
        assert_eq!(first.content.len(), 2);
        assert_eq!(
            first.content[0],
            Part::Thinking {
                text: "hm".into(),
                redacted: false,
                signature: false
            }
        );
        assert_eq!(first.usage.unwrap().output, 206);
        assert_eq!(first.stop_reason.as_deref(), Some("tool_use"));
    }

    #[test]
    fn a_damaged_role_is_read_as_the_lines_type() {
        let damaged = TOOL_USE.replace(r#""role":"assistant""#, r#""role":"assis|ant""#);
        let m = parse(&damaged).unwrap();
        assert_eq!(m.role, Role::Assistant);
        assert_eq!(m.model.as_deref(), Some("claude-opus-4-7"));
        assert_eq!(
            m.tool_calls().collect::<Vec<_>>(),
            [("toolu_01EF5USX", "Bash")]
        );
        // A role that is not a string either.
        let m = parse(&TOOL_RESULT.replace(r#""role":"user""#, r#""role":7"#)).unwrap();
        assert_eq!(m.role, Role::Tool);
        // A known role still says who spoke.
        let m = parse(r#"{"type":"user","message":{"role":"assistant","content":"hi"}}"#).unwrap();
        assert_eq!(m.role, Role::Assistant);
    }

    #[test]
    fn nulls_meta_and_compact_summary() {
        let m = parse(r#"{"type":"user","isMeta":null,"isCompactSummary":true,"message":{"role":"user","content":"This session is being continued"}}"#).unwrap();
        assert_eq!(m.kind, MessageKind::CompactionSummary);
        let m = parse(r#"{"type":"user","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"<command-name>"}]}}"#).unwrap();
        assert_eq!(m.kind, MessageKind::Meta);
        let m = parse(r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":null,"is_error":null}]}}"#).unwrap();
        assert_eq!(m.tool_results().collect::<Vec<_>>(), [("t", false)]);
    }

    #[test]
    fn redacted_thinking_images_and_unknown_blocks() {
        let m = parse(r#"{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"TWFu"}},{"type":"tool_reference","tool_name":"Read"}]}}"#).unwrap();
        assert_eq!(
            m.content[0],
            Part::Image {
                media_type: "image/png".into(),
                byte_size: 3
            }
        );
        assert!(m.text().contains("tool_reference"));
        let m = parse(r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"redacted_thinking","data":"xyz"}]}}"#).unwrap();
        assert!(matches!(
            m.content[0],
            Part::Thinking { redacted: true, .. }
        ));
    }

    #[test]
    fn payloads_are_kept_only_when_asked_for() {
        let line = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"EtMU"},{"type":"redacted_thinking","data":"xyz"}]}}"#;
        let value = serde_json::from_str(line).unwrap();
        let full = line_message(&value, ContextOptions { payloads: true }).unwrap();
        let extra = full.part_extra(0).unwrap();
        assert_eq!(
            (extra.api, extra.signature.as_deref()),
            (Some(Api::Anthropic), Some("EtMU"))
        );
        assert_eq!(
            full.part_extra(1).unwrap().signature.as_deref(),
            Some("xyz")
        );
        let view = line_message(&value, ContextOptions::default()).unwrap();
        assert!(view.part_extra(0).is_none() && view.part_extra(1).is_none());

        let line = r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"shot"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"TWFu"}}]}]}}"#;
        let m = line_message(
            &serde_json::from_str(line).unwrap(),
            ContextOptions { payloads: true },
        )
        .unwrap();
        assert!(matches!(m.content[1], Part::Image { byte_size: 3, .. }));
        assert_eq!(
            m.part_extra(1).unwrap().image,
            Some(ImageSource::Base64("TWFu".into()))
        );
    }

    #[test]
    fn non_message_lines() {
        assert!(parse(r#"{"type":"summary","summary":"x","leafUuid":"a"}"#).is_none());
        assert!(parse(r#"{"type":"system","subtype":"compact_boundary","content":"x"}"#).is_none());
        assert!(parse(r#"{"type":"user","message":"not an object"}"#).is_none());
    }
}
