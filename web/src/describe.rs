//! Short texts about entries: a line for an event row, a preview of a
//! message, the text a search looks in.

use retrace_core::{Message, Part};
use serde_json::Value;

/// One line saying what an event entry (not a message) is: a setting
/// change, a hook line, a compaction boundary…
pub fn event_line(v: &Value) -> String {
    let s = |key: &str| v.get(key).and_then(Value::as_str);
    let kind = s("type").unwrap_or("entry");
    let detail = match kind {
        "model_change" => Some(format!(
            "model → {}{}",
            s("provider").map(|p| format!("{p}/")).unwrap_or_default(),
            s("modelId").unwrap_or("?")
        )),
        "thinking_level_change" => s("thinkingLevel").map(|l| format!("thinking level → {l}")),
        "label" => Some(match s("label") {
            Some(l) if !l.is_empty() => format!("label “{l}” on {}", s("targetId").unwrap_or("?")),
            _ => format!("label cleared on {}", s("targetId").unwrap_or("?")),
        }),
        "session_info" => s("name").map(|n| format!("session named “{n}”")),
        "custom" => s("customType").map(|t| format!("extension state ({t})")),
        "leaf" => Some(format!("leaf moved to {}", s("targetId").unwrap_or("?"))),
        "system" => {
            let subtype = s("subtype");
            let content = s("content").map(strip_ansi);
            match (subtype, content) {
                (Some("compact_boundary"), _) => Some(format!(
                    "compaction ({})",
                    v.pointer("/compactMetadata/trigger")
                        .and_then(Value::as_str)
                        .unwrap_or("auto")
                )),
                (Some("turn_duration"), _) => v
                    .get("durationMs")
                    .and_then(Value::as_u64)
                    .map(|ms| format!("turn took {:.1} s", ms as f64 / 1000.0)),
                (sub, Some(c)) if !c.is_empty() => Some(match sub {
                    Some(sub) => format!("{sub}: {c}"),
                    None => c,
                }),
                (Some(sub), _) => Some(sub.replace('_', " ")),
                _ => None,
            }
        }
        "progress" => v.get("data").map(|d| {
            let t = d.get("type").and_then(Value::as_str).unwrap_or("progress");
            match (
                d.get("hookEvent").and_then(Value::as_str),
                d.get("hookName").and_then(Value::as_str),
            ) {
                (Some(e), Some(n)) => format!("{} {e}: {n}", t.replace('_', " ")),
                _ => t.replace('_', " "),
            }
        }),
        "attachment" => v
            .pointer("/attachment/type")
            .and_then(Value::as_str)
            .map(|t| format!("attachment: {}", t.replace('_', " "))),
        _ => None,
    };
    let line = detail.unwrap_or_else(|| {
        // Unknown entries: the type and the first few scalar fields.
        let mut parts = vec![kind.to_owned()];
        if let Some(obj) = v.as_object() {
            for (k, val) in obj.iter().filter(|(k, _)| {
                !matches!(
                    k.as_str(),
                    "type" | "id" | "parentId" | "uuid" | "parentUuid" | "timestamp" | "sessionId"
                )
            }) {
                if parts.len() > 4 {
                    break;
                }
                match val {
                    Value::String(t) if t.len() < 80 => parts.push(format!("{k}: {t}")),
                    Value::Number(n) => parts.push(format!("{k}: {n}")),
                    Value::Bool(b) => parts.push(format!("{k}: {b}")),
                    _ => {}
                }
            }
        }
        parts.join(" · ")
    });
    shorten(&line, 300)
}

/// The first text of a message, on one line, at most `max` characters.
pub fn message_preview(m: &Message, max: usize) -> String {
    let text = m.text();
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    shorten(&one_line, max)
}

/// Everything a person reads in a message: text, thinking, tool names,
/// arguments and outputs.
pub fn searchable_text(m: &Message) -> String {
    let mut out = String::new();
    for part in &m.content {
        match part {
            Part::Text { text } | Part::Thinking { text, .. } => out.push_str(text),
            Part::ToolCall {
                name, arguments, ..
            } => {
                out.push_str(name);
                out.push(' ');
                out.push_str(&arguments.to_string());
            }
            Part::ToolResult { output, .. } => out.push_str(output),
            Part::Image { media_type, .. } => out.push_str(media_type),
        }
        out.push('\n');
    }
    out
}

/// Every image of a body in document order, as a `data:` URL where its
/// bytes are inline (Anthropic `source`, pi `data` + `mimeType`, Google
/// `inlineData`, OpenAI `image_url` data URLs); `None` for an image given
/// only by reference (never fetched).
pub fn images(v: &Value, out: &mut Vec<Option<String>>) {
    match v {
        Value::Object(map) => {
            let s = |m: &serde_json::Map<String, Value>, k: &str| {
                m.get(k).and_then(Value::as_str).map(str::to_owned)
            };
            let kind = s(map, "type");
            let inline = map.get("inlineData").and_then(Value::as_object);
            if let Some(data) = inline {
                out.push(
                    s(data, "data").map(|d| data_url(&s(data, "mimeType").unwrap_or_default(), &d)),
                );
                return;
            }
            match kind.as_deref() {
                Some("image") => {
                    let source = map.get("source").and_then(Value::as_object);
                    let url = match source {
                        Some(src) => s(src, "data")
                            .map(|d| data_url(&s(src, "media_type").unwrap_or_default(), &d)),
                        None => s(map, "data")
                            .map(|d| data_url(&s(map, "mimeType").unwrap_or_default(), &d)),
                    };
                    out.push(url);
                    return;
                }
                Some("input_image") | Some("image_url") => {
                    let url = map.get("image_url").and_then(|u| {
                        u.as_str()
                            .map(str::to_owned)
                            .or_else(|| u.get("url")?.as_str().map(str::to_owned))
                    });
                    out.push(url.filter(|u| u.starts_with("data:image/")));
                    return;
                }
                _ => {}
            }
            for value in map.values() {
                images(value, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                images(item, out);
            }
        }
        _ => {}
    }
}

/// A `data:` URL for base64 image bytes; only image types, so a crafted
/// media type cannot make it anything else.
fn data_url(media_type: &str, base64: &str) -> String {
    let media_type = if media_type.starts_with("image/")
        && media_type[6..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'))
    {
        media_type
    } else {
        "image/png"
    };
    let clean: String = base64
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))
        .collect();
    format!("data:{media_type};base64,{clean}")
}

/// At most `max` characters, with `…` when cut.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Removes ANSI escape sequences (hook output in Claude Code system lines).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_as_one_line() {
        let v: Value = serde_json::from_str(r#"{"type":"model_change","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:02.000Z","provider":"acme","modelId":"alpha"}"#).unwrap();
        assert_eq!(event_line(&v), "model → acme/alpha");
        let v: Value = serde_json::from_str(r#"{"type":"system","content":"\u001b[1mPostToolUse:Edit\u001b[22m [hook] completed","level":"info"}"#).unwrap();
        assert_eq!(event_line(&v), "PostToolUse:Edit [hook] completed");
        let v: Value = serde_json::from_str(r#"{"type":"progress","data":{"type":"hook_progress","hookEvent":"SessionStart","hookName":"SessionStart:startup"}}"#).unwrap();
        assert_eq!(
            event_line(&v),
            "hook progress SessionStart: SessionStart:startup"
        );
        let v: Value =
            serde_json::from_str(r#"{"type":"future_entry","id":"x","note":"hi","n":3}"#).unwrap();
        // Fields in key order (serde_json sorts object keys).
        assert_eq!(event_line(&v), "future_entry · n: 3 · note: hi");
    }

    #[test]
    fn images_in_document_order_as_data_urls() {
        let v: Value = serde_json::from_str(r#"{"message":{"content":[
            {"type":"tool_result","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBO"}}]},
            {"type":"image","data":"R0lG","mimeType":"image/gif"},
            {"type":"image","data":"AAAA","mimeType":"text/html\"><script>"},
            {"type":"input_image","image_url":"https://example.com/x.png"}
        ]}}"#).unwrap();
        let mut out = Vec::new();
        images(&v, &mut out);
        assert_eq!(
            out,
            [
                Some("data:image/png;base64,iVBO".to_owned()),
                Some("data:image/gif;base64,R0lG".to_owned()),
                Some("data:image/png;base64,AAAA".to_owned()),
                None,
            ]
        );
    }

    #[test]
    fn shortening_counts_characters() {
        assert_eq!(shorten("héllo wörld", 5), "héllo…");
        assert_eq!(shorten("abc", 5), "abc");
    }
}
