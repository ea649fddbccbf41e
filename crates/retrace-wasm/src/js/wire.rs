//! Answers and events as JS values, made and read by `serde-wasm-bindgen`
//! (its JSON-compatible serializer: `null` for nothing, plain objects), so
//! the worker posts exactly what the direct class returns. An answer is
//! `{id, kind, data}`, a refusal `{id, error: {code, message}}`, an event
//! `{kind, data}` (no `id`); a made file's answer carries its `Blob` as
//! `file`. Requests cross the other way as JSON text (`Request::from_json`).

use js_sys::Reflect;
use serde::Serialize;
use serde_wasm_bindgen::Serializer;
use wasm_bindgen::JsValue;

use crate::protocol::{EngineError, Event, Response};

/// Values as JSON would carry them.
pub const VALUES: Serializer = Serializer::json_compatible();

/// `value` as a JS value.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, EngineError> {
    value
        .serialize(&VALUES)
        .map_err(|e| EngineError::internal(format!("cannot encode an answer: {e}")))
}

/// The message answering request `id`.
#[cfg(feature = "worker")]
pub fn answer(id: u32, result: &Result<Response, EngineError>) -> JsValue {
    #[derive(Serialize)]
    struct Refused<'a> {
        error: &'a EngineError,
    }
    let message = match result {
        Ok(response) => to_js(response),
        Err(error) => to_js(&Refused { error }),
    };
    let message = message.unwrap_or_else(|e| to_js(&Refused { error: &e }).unwrap_or_default());
    let _ = Reflect::set(&message, &"id".into(), &id.into());
    message
}

/// The message of an event.
#[cfg(feature = "worker")]
pub fn event(event: &Event) -> JsValue {
    to_js(event).unwrap_or_else(|e| to_js(&Event::Failed(e)).unwrap_or_default())
}

/// Reads one message of the worker. By hand rather than derived: serde's
/// derive for a tagged enum buffers the payload in a generic tree first
/// (slow for a branch of a hundred thousand rows, and the largest function
/// of the page's wasm); here the kind picks the payload's type and the
/// payload is read straight into it.
#[cfg(feature = "client")]
pub fn read(message: &JsValue) -> Result<crate::protocol::Incoming, EngineError> {
    use crate::protocol::{ErrorCode, Incoming};
    use serde_wasm_bindgen::from_value;

    let field = |name: &str| Reflect::get(message, &name.into()).unwrap_or_default();
    let text = |v: &JsValue, name: &str| {
        Reflect::get(v, &name.into())
            .ok()
            .and_then(|t| t.as_string())
            .unwrap_or_default()
    };
    let refusal =
        |v: &JsValue| EngineError::new(ErrorCode::parse(&text(v, "code")), text(v, "message"));
    let kind = text(message, "kind");
    let data = field("data");
    let bad = |e: serde_wasm_bindgen::Error| {
        EngineError::internal(format!("a bad `{kind}` from the engine: {e}"))
    };
    let unknown = || EngineError::internal(format!("an unknown `{kind}` from the engine"));
    let Some(id) = field("id").as_f64() else {
        let event = match kind.as_str() {
            "ready" => Event::Ready,
            "progress" => Event::Progress(from_value(data).map_err(bad)?),
            "first_rows" => {
                // Field by field, through the readers answers use.
                let part = |name: &str| Reflect::get(&data, &name.into()).unwrap_or_default();
                Event::FirstRows(Box::new(crate::protocol::FirstRows {
                    summary: from_value(part("summary")).map_err(bad)?,
                    branch: from_value(part("branch")).map_err(bad)?,
                    bodies: from_value(part("bodies")).map_err(bad)?,
                }))
            }
            "scan" => Event::Scan(from_value(data).map_err(bad)?),
            "download_progress" => Event::DownloadProgress(from_value(data).map_err(bad)?),
            "listed" => Event::Listed(from_value(data).map_err(bad)?),
            "failed" => Event::Failed(refusal(&data)),
            _ => return Err(unknown()),
        };
        return Ok(Incoming::Event(event));
    };
    let id = id as u32;
    let error = field("error");
    if error.is_object() {
        return Ok(Incoming::Reply {
            id,
            result: Err(refusal(&error)),
        });
    }
    let response = match kind.as_str() {
        "opened" => Response::Opened(from_value(data).map_err(bad)?),
        "folder" => Response::Folder(from_value(data).map_err(bad)?),
        "branch" => Response::Branch(from_value(data).map_err(bad)?),
        "bodies" => Response::Bodies(from_value(data).map_err(bad)?),
        "search_results" => Response::SearchResults(from_value(data).map_err(bad)?),
        "stats" => Response::Stats(from_value(data).map_err(bad)?),
        "image" => Response::Image(from_value(data).map_err(bad)?),
        "previews" => Response::Previews(from_value(data).map_err(bad)?),
        "edit_points" => Response::EditPoints(from_value(data).map_err(bad)?),
        "file" => Response::File(from_value(data).map_err(bad)?),
        "comparison" => Response::Comparison(from_value(data).map_err(bad)?),
        "done" => Response::Done,
        _ => return Err(unknown()),
    };
    Ok(Incoming::Reply {
        id,
        result: Ok(response),
    })
}
