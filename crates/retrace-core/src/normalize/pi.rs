//! pi entries to messages.
//!
//! `message` entries carry an `AgentMessage` (roles `user`, `assistant`,
//! `toolResult`, `bashExecution`, `custom`, and v2's `hookMessage`); the
//! `compaction`, `branch_summary` and `custom_message` entries become the
//! user-role texts pi puts into the model's context. Settings, labels and
//! extension state are not messages.

use serde_json::Value;

use super::{
    count, flag, image_with, push_all, signed, str_field, text_of, text_part, tool_output,
    ContextOptions, Parts,
};
use crate::model::message::{Message, MessageKind, Part, PartExtra, Role, Usage};
use crate::model::provider::Api;
use crate::model::time::parse_rfc3339_ms;

/// What a block needs to know about the message it is in.
#[derive(Clone, Copy)]
struct Ctx {
    /// The API of the assistant message (`message.api`): whose signatures
    /// its thinking blocks carry.
    api: Option<Api>,
    options: ContextOptions,
}

/// The message one pi entry stands for, if any.
pub(crate) fn entry_message(entry: &Value, options: ContextOptions) -> Option<Message> {
    let entry_time = str_field(entry, "timestamp").and_then(|t| parse_rfc3339_ms(t.as_bytes()));
    let ctx = Ctx { api: None, options };
    let mut message = match str_field(entry, "type")? {
        "message" => agent_message(entry.get("message")?, options)?,
        "compaction" => summary(entry, MessageKind::CompactionSummary)?,
        "branch_summary" => summary(entry, MessageKind::BranchSummary)?,
        "custom_message" => {
            let mut m = Message::new(Role::User);
            m.kind = MessageKind::Custom;
            push_all(&mut m, content(entry.get("content"), ctx));
            m
        }
        _ => return None,
    };
    // `message.timestamp` (epoch ms) is when the message was made; the
    // entry's ISO timestamp is when it was written. Prefer the former.
    if message.timestamp.is_none() {
        message.timestamp = entry_time;
    }
    Some(message)
}

fn summary(entry: &Value, kind: MessageKind) -> Option<Message> {
    let mut m = Message::new(Role::User);
    m.kind = kind;
    m.content.push(Part::Text {
        text: str_field(entry, "summary")?.to_owned(),
    });
    Some(m)
}

fn agent_message(msg: &Value, options: ContextOptions) -> Option<Message> {
    let ctx = Ctx { api: None, options };
    let mut m = match str_field(msg, "role")? {
        "user" => {
            let mut m = Message::new(Role::User);
            push_all(&mut m, content(msg.get("content"), ctx));
            m
        }
        "assistant" => assistant(msg, options),
        "toolResult" => tool_result(msg, ctx),
        "bashExecution" => bash_execution(msg),
        "custom" | "hookMessage" => {
            let mut m = Message::new(Role::User);
            m.kind = MessageKind::Custom;
            push_all(&mut m, content(msg.get("content"), ctx));
            m
        }
        // In-memory roles, should a file ever hold them.
        "compactionSummary" | "branchSummary" => {
            let mut m = Message::new(Role::User);
            m.kind = if str_field(msg, "role") == Some("branchSummary") {
                MessageKind::BranchSummary
            } else {
                MessageKind::CompactionSummary
            };
            m.content.push(Part::Text {
                text: str_field(msg, "summary").unwrap_or_default().to_owned(),
            });
            m
        }
        _ => return None,
    };
    // Epoch milliseconds; fixtures write small counters (1, 2, …) instead,
    // which are no moment in time: fall back to the entry's timestamp.
    const YEAR_2000_MS: i64 = 946_684_800_000;
    m.timestamp = msg
        .get("timestamp")
        .and_then(Value::as_i64)
        .filter(|&t| t >= YEAR_2000_MS);
    Some(m)
}

/// The API whose signatures an assistant message's blocks carry, from pi's
/// `api` field.
fn api_of(msg: &Value) -> Option<Api> {
    match str_field(msg, "api")? {
        "anthropic-messages" => Some(Api::Anthropic),
        "openai-responses" | "openai-codex-responses" | "azure-openai-responses" => {
            Some(Api::OpenAiResponses)
        }
        "openai-completions" => Some(Api::OpenAiChat),
        a if a.starts_with("google") => Some(Api::Google),
        _ => None,
    }
}

fn assistant(msg: &Value, options: ContextOptions) -> Message {
    let mut m = Message::new(Role::Assistant);
    let ctx = Ctx {
        api: api_of(msg),
        options,
    };
    push_all(&mut m, content(msg.get("content"), ctx));
    if let Some(error) = str_field(msg, "errorMessage") {
        m.content.push(Part::Text {
            text: format!("Error: {error}"),
        });
    }
    m.model = str_field(msg, "model").map(str::to_owned);
    m.provider = str_field(msg, "provider").map(str::to_owned);
    m.stop_reason = str_field(msg, "stopReason").map(str::to_owned);
    m.usage = msg.get("usage").filter(|u| u.is_object()).map(|u| Usage {
        input: count(u, "input"),
        output: count(u, "output"),
        cache_read: count(u, "cacheRead"),
        cache_write: count(u, "cacheWrite"),
        cost: u
            .get("cost")
            .and_then(|c| c.get("total"))
            .and_then(Value::as_f64),
    });
    m
}

fn tool_result(msg: &Value, ctx: Ctx) -> Message {
    let mut m = Message::new(Role::Tool);
    let (output, images) = tool_output(content(msg.get("content"), ctx));
    m.push_with(
        Part::ToolResult {
            call_id: str_field(msg, "toolCallId").unwrap_or_default().to_owned(),
            output,
            is_error: flag(msg, "isError"),
        },
        PartExtra {
            tool_name: str_field(msg, "toolName").map(str::to_owned),
            ..PartExtra::default()
        },
    );
    push_all(&mut m, images);
    m
}

fn bash_execution(msg: &Value) -> Message {
    let mut m = Message::new(Role::User);
    m.kind = MessageKind::BashExecution;
    let mut text = format!("$ {}", str_field(msg, "command").unwrap_or_default());
    let output = str_field(msg, "output").unwrap_or_default();
    if !output.is_empty() {
        text.push('\n');
        text.push_str(output);
    }
    match msg.get("exitCode").and_then(Value::as_i64) {
        Some(0) | None => {}
        Some(code) => text.push_str(&format!("\n(exit code {code})")),
    }
    if flag(msg, "cancelled") {
        text.push_str("\n(cancelled)");
    }
    m.content.push(Part::Text { text });
    m
}

/// pi content: a string, or blocks `text`, `thinking`, `toolCall`, `image`.
/// Unknown blocks are shown as their JSON so nothing silently disappears.
fn content(value: Option<&Value>, ctx: Ctx) -> Parts {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![text_part(s.clone())],
        Some(Value::Array(blocks)) => blocks.iter().map(|b| block(b, ctx)).collect(),
        Some(other) => vec![text_part(other.to_string())],
    }
}

fn block(b: &Value, ctx: Ctx) -> (Part, PartExtra) {
    match str_field(b, "type") {
        Some("text") => text_part(text_of(b.get("text").unwrap_or(&Value::Null))),
        Some("thinking") => {
            let signature = str_field(b, "thinkingSignature");
            let part = Part::Thinking {
                text: str_field(b, "thinking").unwrap_or_default().to_owned(),
                redacted: flag(b, "redacted"),
                signature: signature.is_some_and(|s| !s.is_empty()),
            };
            (part, thinking_extra(signature, ctx))
        }
        Some("toolCall") => {
            let id = str_field(b, "id").unwrap_or_default();
            let mut extra = signed(ctx.api, str_field(b, "thoughtSignature"), ctx.options);
            // pi keeps an OpenAI Responses call as `<call_id>|<item id>`.
            if ctx.api == Some(Api::OpenAiResponses) {
                if let Some((_, item)) = id.split_once('|') {
                    extra.api = ctx.api;
                    extra.item_id = Some(item.to_owned());
                }
            }
            let part = Part::ToolCall {
                id: id.to_owned(),
                name: str_field(b, "name").unwrap_or_default().to_owned(),
                arguments: b.get("arguments").cloned().unwrap_or(Value::Null),
            };
            (part, extra)
        }
        Some("image") => image_with(str_field(b, "mimeType"), str_field(b, "data"), ctx.options),
        _ => text_part(b.to_string()),
    }
}

/// A thinking block's signature: Anthropic's as is; for OpenAI Responses
/// pi stores the whole reasoning item as JSON, whose id and encrypted
/// content are what the API wants back.
fn thinking_extra(signature: Option<&str>, ctx: Ctx) -> PartExtra {
    if ctx.api == Some(Api::OpenAiResponses) && ctx.options.payloads {
        if let Some(item) = signature.and_then(|s| serde_json::from_str::<Value>(s).ok()) {
            return PartExtra {
                api: ctx.api,
                item_id: str_field(&item, "id").map(str::to_owned),
                signature: str_field(&item, "encrypted_content").map(str::to_owned),
                ..PartExtra::default()
            };
        }
    }
    signed(ctx.api, signature, ctx.options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Option<Message> {
        entry_message(
            &serde_json::from_str(line).unwrap(),
            ContextOptions::default(),
        )
    }

    // Trimmed from `corpus/pi/badlogic__pi-mono/session.jsonl` (v1).
    #[test]
    fn assistant_with_thinking_and_usage() {
        let m = parse(r#"{"type":"message","timestamp":"2025-12-17T19:52:23.230Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"The user wants","thinkingSignature":"EtMUCkYI"},{"type":"text","text":"You're right."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-opus-4-5","usage":{"input":10,"output":926,"cacheRead":0,"cacheWrite":60870,"totalTokens":61806,"cost":{"input":0.00005,"output":0.02315,"cacheRead":0,"cacheWrite":0.3804375,"total":0.4036}},"stopReason":"stop","timestamp":1766001117944}}"#).unwrap();
        assert_eq!(m.role, Role::Assistant);
        assert_eq!(m.model.as_deref(), Some("claude-opus-4-5"));
        assert_eq!(m.provider.as_deref(), Some("anthropic"));
        assert_eq!(m.stop_reason.as_deref(), Some("stop"));
        assert_eq!(m.timestamp, Some(1766001117944));
        let usage = m.usage.unwrap();
        assert_eq!(
            (usage.input, usage.output, usage.cache_write),
            (10, 926, 60870)
        );
        assert_eq!(usage.cost, Some(0.4036));
        assert_eq!(
            m.content[0],
            Part::Thinking {
                text: "The user wants".into(),
                redacted: false,
                signature: true
            }
        );
        assert_eq!(m.text(), "You're right.");
    }

    #[test]
    fn signatures_follow_the_api_of_the_message() {
        let full = |line: &str| {
            entry_message(
                &serde_json::from_str(line).unwrap(),
                ContextOptions { payloads: true },
            )
            .unwrap()
        };
        let m = full(
            r#"{"type":"message","message":{"role":"assistant","api":"anthropic-messages","content":[{"type":"thinking","thinking":"a","thinkingSignature":"EtMU"}]}}"#,
        );
        let x = m.part_extra(0).unwrap();
        assert_eq!(
            (x.api, x.signature.as_deref()),
            (Some(Api::Anthropic), Some("EtMU"))
        );
        // OpenAI Responses: pi keeps the reasoning item as JSON.
        let m = full(
            r#"{"type":"message","message":{"role":"assistant","api":"openai-responses","content":[{"type":"thinking","thinking":"a","thinkingSignature":"{\"type\":\"reasoning\",\"id\":\"rs_1\",\"encrypted_content\":\"gAAA\",\"summary\":[]}"},{"type":"toolCall","id":"call_1|fc_1","name":"bash","arguments":{}}]}}"#,
        );
        let x = m.part_extra(0).unwrap();
        assert_eq!(
            (x.api, x.item_id.as_deref(), x.signature.as_deref()),
            (Some(Api::OpenAiResponses), Some("rs_1"), Some("gAAA"))
        );
        assert_eq!(m.part_extra(1).unwrap().item_id.as_deref(), Some("fc_1"));
        let m = full(
            r#"{"type":"message","message":{"role":"toolResult","toolCallId":"t","toolName":"bash","content":[{"type":"image","data":"TWFu","mimeType":"image/png"}]}}"#,
        );
        assert_eq!(m.part_extra(0).unwrap().tool_name.as_deref(), Some("bash"));
        assert_eq!(
            m.part_extra(1).unwrap().image,
            Some(crate::model::message::ImageSource::Base64("TWFu".into()))
        );
    }

    #[test]
    fn tool_result_is_a_tool_message() {
        let m = parse(r#"{"type":"message","timestamp":"2025-12-17T19:50:25.341Z","message":{"role":"toolResult","toolCallId":"toolu_0124","toolName":"bash","content":[{"type":"text","text":"(no output)\n\nCommand exited with code 1"}],"details":{},"isError":true,"timestamp":1766001025339}}"#).unwrap();
        assert_eq!(m.role, Role::Tool);
        assert_eq!(m.tool_results().collect::<Vec<_>>(), [("toolu_0124", true)]);
    }

    #[test]
    fn bash_execution_shows_command_and_exit_code() {
        let m = parse(r#"{"type":"message","timestamp":"2025-12-17T20:19:18.643Z","message":{"role":"bashExecution","command":"npm run check","output":"ok","exitCode":2,"cancelled":false,"truncated":false,"timestamp":1766002758643}}"#).unwrap();
        assert_eq!(m.kind, MessageKind::BashExecution);
        assert_eq!(m.text(), "$ npm run check\nok\n(exit code 2)");
    }

    #[test]
    fn compaction_and_summaries_are_user_texts() {
        let m = parse(r#"{"type":"compaction","id":"e5","parentId":"e4","timestamp":"2026-01-01T00:00:00.000Z","summary":"sanitized","firstKeptEntryId":"e3","tokensBefore":100}"#).unwrap();
        assert_eq!(
            (m.role, m.kind),
            (Role::User, MessageKind::CompactionSummary)
        );
        assert_eq!(m.text(), "sanitized");
        assert_eq!(m.timestamp, Some(1767225600000));
        let m = parse(r#"{"type":"branch_summary","id":"a","parentId":"b","timestamp":"2026-01-01T00:00:00.000Z","fromId":"root","summary":"tried X"}"#).unwrap();
        assert_eq!(m.kind, MessageKind::BranchSummary);
        let m = parse(r#"{"type":"custom_message","id":"a","parentId":"b","timestamp":"2026-01-01T00:00:00.000Z","customType":"note","content":[{"type":"text","text":"hi"}],"display":true}"#).unwrap();
        assert_eq!((m.kind, m.text().as_str()), (MessageKind::Custom, "hi"));
    }

    #[test]
    fn v2_hook_message_is_custom_and_images_are_sized() {
        let m = parse(r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"hookMessage","customType":"x","content":[{"type":"image","data":"TWFuTQ==","mimeType":"image/png"}],"display":true,"timestamp":5}}"#).unwrap();
        assert_eq!(m.kind, MessageKind::Custom);
        assert_eq!(
            m.content,
            [Part::Image {
                media_type: "image/png".into(),
                byte_size: 4
            }]
        );
    }

    #[test]
    fn settings_and_unknown_entries_are_not_messages() {
        assert!(parse(r#"{"type":"model_change","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z","provider":"x","modelId":"y"}"#).is_none());
        assert!(parse(r#"{"type":"future_entry","id":"a","parentId":null}"#).is_none());
        assert!(parse(r#"{"type":"message","message":{"role":"alien"}}"#).is_none());
    }
}
