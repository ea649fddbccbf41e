//! Provider message lists to messages: OpenAI Chat messages, OpenAI
//! Responses items, Anthropic messages, Google contents and AgentScope
//! `Msg`s.
//!
//! Each element is read by its own shape, not by the format the file was
//! detected as: a list whose first messages are plain text says little
//! about its dialect, and the shapes do not collide (`parts` is Google, a
//! `type` item is Responses, content block types name their API). What an
//! API needs back (signatures, item ids) is kept in the parts' extras,
//! tagged with the API whose shape it came in.

use serde_json::Value;

use super::{
    flag, image_with, push_all, signed, str_field, text_of, text_part, tool_output, ContextOptions,
    Parts,
};
use crate::model::message::split_data_url;
use crate::model::message::{ImageSource, Message, MessageExtra, Part, PartExtra, Role};
use crate::model::provider::Api;

/// The message one list element holds, if any.
pub(crate) fn element_message(value: &Value, options: ContextOptions) -> Option<Message> {
    if value.get("parts").is_some_and(Value::is_array) {
        return Some(google_content(value, options));
    }
    match str_field(value, "type") {
        Some(
            "function_call"
            | "function_call_output"
            | "reasoning"
            | "custom_tool_call"
            | "custom_tool_call_output",
        ) => responses_item(value, options),
        Some("message") | None => role_message(value, options),
        // Other Responses items (web search calls, …): kept visible.
        Some(_) if value.get("role").is_none() => {
            let mut m = Message::new(Role::Assistant);
            m.content.push(Part::Text {
                text: value.to_string(),
            });
            Some(m)
        }
        Some(_) => role_message(value, options),
    }
}

/// The system prompt a request body keeps beside its list: a string
/// (Anthropic, OpenAI Responses `instructions`), text blocks (Anthropic) or
/// a Google `Content` (`systemInstruction`).
pub(crate) fn system_message(value: &Value) -> Option<Message> {
    let mut m = Message::new(Role::System);
    match value {
        Value::String(s) => m.content.push(Part::Text { text: s.clone() }),
        Value::Array(blocks) => {
            for b in blocks {
                m.content.push(Part::Text {
                    text: str_field(b, "text").map_or_else(|| text_of(b), str::to_owned),
                });
            }
        }
        Value::Object(_) => {
            for p in value
                .get("parts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                m.content.push(Part::Text {
                    text: str_field(p, "text").map_or_else(|| text_of(p), str::to_owned),
                });
            }
        }
        _ => return None,
    }
    (!m.content.is_empty()).then_some(m)
}

/// The role a list element names, lower-cased (AgentScope Java writes
/// `USER`), mapped onto the model.
fn role_of(value: &Value) -> Option<(Role, &str)> {
    let written = str_field(value, "role")?;
    let role = match written.to_ascii_lowercase().as_str() {
        "system" | "developer" => Role::System,
        "user" | "human" => Role::User,
        "assistant" | "model" | "ai" => Role::Assistant,
        "tool" | "function" => Role::Tool,
        _ => return None,
    };
    Some((role, written))
}

/// A message with `role` and `content`: OpenAI Chat, Anthropic, AgentScope,
/// an OpenAI Responses `message` item.
fn role_message(value: &Value, options: ContextOptions) -> Option<Message> {
    let (role, written) = role_of(value)?;
    let mut parts: Parts = Vec::new();
    // DeepSeek-style reasoning beside an OpenAI Chat message.
    if let Some(r) = str_field(value, "reasoning_content").filter(|r| !r.is_empty()) {
        parts.push((thinking(r, false), PartExtra::default()));
    }
    let mut api = None;
    // An OpenAI Chat refusal instead of content.
    if let Some(refusal) = str_field(value, "refusal").filter(|r| !r.is_empty()) {
        parts.push(text_part(refusal.to_owned()));
    }
    match value.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => parts.push(text_part(s.clone())),
        Some(Value::Array(blocks)) => {
            for b in blocks {
                block(b, options, &mut parts, &mut api);
            }
        }
        Some(other) => parts.push(text_part(other.to_string())),
    }
    // OpenAI Chat: calls beside the content, results by `tool_call_id`.
    if let Some(calls) = value.get("tool_calls").and_then(Value::as_array) {
        for call in calls {
            let function = call.get("function").unwrap_or(&Value::Null);
            parts.push(tool_call(
                str_field(call, "id"),
                str_field(function, "name"),
                function.get("arguments"),
                PartExtra::default(),
            ));
        }
    }
    if let Some(call) = value.get("function_call").filter(|c| c.is_object()) {
        parts.push(tool_call(
            None,
            str_field(call, "name"),
            call.get("arguments"),
            PartExtra::default(),
        ));
    }
    let results = parts
        .iter()
        .any(|(p, _)| matches!(p, Part::ToolResult { .. }));
    let mut m;
    // An OpenAI `tool` message; AgentScope's tool messages hold
    // `tool_result` blocks instead.
    if value.get("tool_call_id").is_some() || (role == Role::Tool && !results) {
        // The whole content is the result's output.
        m = Message::new(Role::Tool);
        let (output, rest) = tool_output(parts);
        m.push_with(
            Part::ToolResult {
                call_id: str_field(value, "tool_call_id")
                    .unwrap_or_default()
                    .to_owned(),
                output,
                is_error: false,
            },
            PartExtra {
                tool_name: str_field(value, "name").map(str::to_owned),
                ..PartExtra::default()
            },
        );
        push_all(&mut m, rest);
    } else {
        m = Message::new(if results && role != Role::Assistant {
            Role::Tool
        } else {
            role
        });
        push_all(&mut m, parts);
    }
    let responses =
        str_field(value, "type") == Some("message") && api == Some(Api::OpenAiResponses);
    if written == "developer" || responses {
        m.extra = Some(Box::new(MessageExtra {
            api: responses.then_some(Api::OpenAiResponses),
            role: (written == "developer").then(|| written.to_owned()),
            item_id: str_field(value, "id")
                .filter(|_| responses)
                .map(str::to_owned),
            status: str_field(value, "status")
                .filter(|_| responses)
                .map(str::to_owned),
        }));
    }
    Some(m)
}

/// One content block of any of the APIs. `api` is set when a block's type
/// names its API (for the message-level extras).
fn block(b: &Value, options: ContextOptions, out: &mut Parts, api: &mut Option<Api>) {
    let part = match str_field(b, "type") {
        Some("text") => text_part(text_of(b.get("text").unwrap_or(&Value::Null))),
        Some("input_text" | "output_text") => {
            *api = Some(Api::OpenAiResponses);
            text_part(str_field(b, "text").unwrap_or_default())
        }
        Some("refusal") => text_part(str_field(b, "refusal").unwrap_or_default()),
        Some("document") => document_block(b, options),
        Some("thinking") => {
            // Anthropic signs its thinking; AgentScope's has no signature.
            let signature = str_field(b, "signature");
            let part = thinking(
                str_field(b, "thinking").unwrap_or_default(),
                signature.is_some_and(|s| !s.is_empty()),
            );
            (part, signed(Some(Api::Anthropic), signature, options))
        }
        Some("redacted_thinking") => (
            Part::Thinking {
                text: String::new(),
                redacted: true,
                signature: false,
            },
            signed(Some(Api::Anthropic), str_field(b, "data"), options),
        ),
        // A tool Anthropic runs itself (web search) is written like a call
        // of ours, its outcome in the same assistant content.
        Some("tool_use" | "server_tool_use") => tool_call(
            str_field(b, "id"),
            str_field(b, "name"),
            b.get("input"),
            PartExtra::default(),
        ),
        Some("tool_result") => return tool_result_block(b, options, out, api),
        Some(t) if super::claude::is_server_tool_result(t, b) => {
            super::claude::server_tool_result(b)
        }
        Some("image") => super::claude::image_block(b, options),
        Some("image_url") => {
            let url = b
                .get("image_url")
                .and_then(|u| str_field(u, "url").or_else(|| u.as_str()));
            url_image(url, options)
        }
        Some("input_image") => {
            *api = Some(Api::OpenAiResponses);
            url_image(str_field(b, "image_url"), options)
        }
        _ => text_part(text_of(b)),
    };
    out.push(part);
}

/// A `tool_result` block: Anthropic (`tool_use_id`, `content`,
/// `is_error`) or AgentScope (`id`, `name`, `output`).
fn tool_result_block(b: &Value, options: ContextOptions, out: &mut Parts, api: &mut Option<Api>) {
    let content = b.get("content").or_else(|| b.get("output"));
    let mut inner = Vec::new();
    match content {
        Some(Value::Array(items)) => {
            for item in items {
                block(item, options, &mut inner, api);
            }
        }
        Some(Value::Null) | None => {}
        Some(other) => inner.push(text_part(text_of(other))),
    }
    let (output, images) = tool_output(inner);
    let call_id = str_field(b, "tool_use_id").or_else(|| str_field(b, "id"));
    out.push((
        Part::ToolResult {
            call_id: call_id.unwrap_or_default().to_owned(),
            output,
            is_error: flag(b, "is_error"),
        },
        PartExtra {
            tool_name: str_field(b, "name").map(str::to_owned),
            ..PartExtra::default()
        },
    ));
    out.extend(images);
}

/// An OpenAI Responses item other than a message.
fn responses_item(value: &Value, options: ContextOptions) -> Option<Message> {
    let responses = Some(Api::OpenAiResponses);
    let item_id = str_field(value, "id").map(str::to_owned);
    let m = match str_field(value, "type")? {
        "reasoning" => {
            let mut m = Message::new(Role::Assistant);
            let summaries: Vec<&str> = value
                .get("summary")
                .and_then(Value::as_array)
                .map(|s| s.iter().filter_map(|x| str_field(x, "text")).collect())
                .unwrap_or_default();
            let encrypted = str_field(value, "encrypted_content");
            let texts = if summaries.is_empty() {
                vec![""]
            } else {
                summaries
            };
            for (i, text) in texts.into_iter().enumerate() {
                // The id and encrypted content belong to the item: on its
                // first part only.
                let extra = if i == 0 {
                    PartExtra {
                        api: responses,
                        item_id: item_id.clone(),
                        signature: encrypted.filter(|_| options.payloads).map(str::to_owned),
                        ..PartExtra::default()
                    }
                } else {
                    PartExtra {
                        api: responses,
                        item_id: item_id.clone(),
                        ..PartExtra::default()
                    }
                };
                m.push_with(thinking(text, encrypted.is_some()), extra);
            }
            m
        }
        kind @ ("function_call" | "custom_tool_call") => {
            let mut m = Message::new(Role::Assistant);
            let freeform = kind == "custom_tool_call";
            let (part, extra) = match value.get("input").filter(|_| freeform) {
                // Free text, even when it happens to parse as JSON.
                Some(Value::String(input)) => (
                    Part::ToolCall {
                        id: str_field(value, "call_id").unwrap_or_default().to_owned(),
                        name: str_field(value, "name").unwrap_or_default().to_owned(),
                        arguments: Value::String(input.clone()),
                    },
                    PartExtra::default(),
                ),
                _ => tool_call(
                    str_field(value, "call_id"),
                    str_field(value, "name"),
                    value.get("arguments").or_else(|| value.get("input")),
                    PartExtra::default(),
                ),
            };
            m.push_with(
                part,
                PartExtra {
                    api: responses,
                    item_id,
                    freeform,
                    ..extra
                },
            );
            m
        }
        "function_call_output" | "custom_tool_call_output" => {
            let mut m = Message::new(Role::Tool);
            let (output, images) = match value.get("output") {
                Some(Value::Array(items)) => {
                    let mut parts = Vec::new();
                    let mut api = None;
                    for item in items {
                        block(item, options, &mut parts, &mut api);
                    }
                    tool_output(parts)
                }
                Some(other) => (text_of(other), Vec::new()),
                None => (String::new(), Vec::new()),
            };
            m.push_with(
                Part::ToolResult {
                    call_id: str_field(value, "call_id").unwrap_or_default().to_owned(),
                    output,
                    is_error: false,
                },
                PartExtra::default(),
            );
            push_all(&mut m, images);
            m
        }
        _ => return None,
    };
    Some(m)
}

/// A Google `Content`: `role` (`user`, `model`) and `parts`.
fn google_content(value: &Value, options: ContextOptions) -> Message {
    let role = match str_field(value, "role") {
        Some("model") => Role::Assistant,
        Some("system") => Role::System,
        Some("function" | "tool") => Role::Tool,
        _ => Role::User,
    };
    let mut parts = Vec::new();
    for p in value["parts"].as_array().into_iter().flatten() {
        parts.push(google_part(p, options));
    }
    let results = parts
        .iter()
        .any(|(p, _)| matches!(p, Part::ToolResult { .. }));
    let mut m = Message::new(if results { Role::Tool } else { role });
    push_all(&mut m, parts);
    m
}

/// One Google `Part`. Gemini CLI's records hold these too.
pub(crate) fn google_part(p: &Value, options: ContextOptions) -> (Part, PartExtra) {
    let google = Some(Api::Google);
    let signature = || signed(google, str_field(p, "thoughtSignature"), options);
    if let Some(call) = p.get("functionCall") {
        return tool_call(
            str_field(call, "id"),
            str_field(call, "name"),
            call.get("args"),
            signature(),
        );
    }
    if let Some(response) = p.get("functionResponse") {
        return function_response(response);
    }
    if let Some(data) = p.get("inlineData") {
        return image_with(
            str_field(data, "mimeType"),
            str_field(data, "data"),
            options,
        );
    }
    if let Some(file) = p.get("fileData") {
        let (part, _) = image_with(str_field(file, "mimeType"), None, options);
        let extra = PartExtra {
            image: str_field(file, "fileUri")
                .filter(|_| options.payloads)
                .map(|u| ImageSource::Url(u.to_owned())),
            ..PartExtra::default()
        };
        return (part, extra);
    }
    if let Some(text) = str_field(p, "text") {
        if flag(p, "thought") {
            let signature_present = str_field(p, "thoughtSignature").is_some();
            return (thinking(text, signature_present), signature());
        }
        return (
            Part::Text {
                text: text.to_owned(),
            },
            signature(),
        );
    }
    text_part(p.to_string())
}

/// A Google `functionResponse`: `{output}` and `{error}` responses become
/// the output text; any other object is kept whole beside its JSON text.
fn function_response(r: &Value) -> (Part, PartExtra) {
    let response = r.get("response").unwrap_or(&Value::Null);
    let only = |key: &str| {
        response
            .as_object()
            .filter(|o| o.len() == 1)
            .and_then(|o| o.get(key))
            .and_then(Value::as_str)
    };
    let (output, is_error, structured) = if let Some(out) = only("output") {
        (out.to_owned(), false, None)
    } else if let Some(err) = only("error") {
        (err.to_owned(), true, None)
    } else {
        (text_of(response), false, Some(response.clone()))
    };
    (
        Part::ToolResult {
            call_id: str_field(r, "id").unwrap_or_default().to_owned(),
            output,
            is_error,
        },
        PartExtra {
            tool_name: str_field(r, "name").map(str::to_owned),
            structured,
            ..PartExtra::default()
        },
    )
}

fn thinking(text: &str, signature: bool) -> Part {
    Part::Thinking {
        text: text.to_owned(),
        redacted: false,
        signature,
    }
}

/// A tool call; arguments written as a JSON string (OpenAI) are parsed.
fn tool_call(
    id: Option<&str>,
    name: Option<&str>,
    arguments: Option<&Value>,
    extra: PartExtra,
) -> (Part, PartExtra) {
    let arguments = match arguments {
        // Parsed when it holds JSON other than a string: a JSON string
        // stays as written, so it goes back to OpenAI the same.
        Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
            Ok(v) if !v.is_string() => v,
            _ => Value::String(s.clone()),
        },
        Some(v) => v.clone(),
        None => Value::Null,
    };
    (
        Part::ToolCall {
            id: id.unwrap_or_default().to_owned(),
            name: name.unwrap_or_default().to_owned(),
            arguments,
        },
        extra,
    )
}

/// An Anthropic `document` block: a PDF (base64 or URL), or plain text.
fn document_block(b: &Value, options: ContextOptions) -> (Part, PartExtra) {
    let source = b.get("source").unwrap_or(&Value::Null);
    let media_type = str_field(source, "media_type");
    match str_field(source, "type") {
        Some("text") => text_part(str_field(source, "data").unwrap_or_default().to_owned()),
        Some("url") => {
            let (part, _) = image_with(media_type.or(Some("application/pdf")), None, options);
            let extra = PartExtra {
                image: str_field(source, "url")
                    .filter(|_| options.payloads)
                    .map(|u| ImageSource::Url(u.to_owned())),
                ..PartExtra::default()
            };
            (part, extra)
        }
        _ => image_with(media_type, str_field(source, "data"), options),
    }
}

/// An image given by URL; a `data:` URL is split into its media type and
/// base64 payload.
fn url_image(url: Option<&str>, options: ContextOptions) -> (Part, PartExtra) {
    match url.and_then(split_data_url) {
        Some((media_type, data)) => image_with(Some(media_type), Some(data), options),
        None => {
            let (part, _) = image_with(Some("image/*"), None, options);
            let extra = PartExtra {
                image: url
                    .filter(|_| options.payloads)
                    .map(|u| ImageSource::Url(u.to_owned())),
                ..PartExtra::default()
            };
            (part, extra)
        }
    }
}
