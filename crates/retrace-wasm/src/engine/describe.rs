//! What the engine reads from bodies beyond the core's text helpers
//! (`retrace_core::event_line` for an event row, `segment_preview`,
//! `search`): images as `data:` URLs, text shortened to a width.

use serde_json::Value;

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

#[cfg(test)]
mod tests {
    use super::*;

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
