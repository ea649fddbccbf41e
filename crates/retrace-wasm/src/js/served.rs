//! Files a `retrace serve` server holds, read over HTTP by range. The page
//! sends `{session: ID}` in place of `File`s; the worker asks the server
//! for that session's files (`/api/sessions/ID`: name, size, URL each, the
//! sizes as they are now) and reads them: a body now with a synchronous
//! `XMLHttpRequest` (allowed in a worker), opening's pieces in the
//! background with `fetch`, each a `Range` request answered with 206. A
//! file that grows meanwhile is read up to the size it was described with.

use std::ops::Range;

use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    RequestInit, Response, WorkerGlobalScope, XmlHttpRequest, XmlHttpRequestResponseType,
};

/// One served file.
#[derive(Clone)]
pub struct ServedFile {
    pub url: String,
    pub name: String,
    pub size: u64,
}

impl ServedFile {
    /// Each file of the session `{session: ID}` names, as the server
    /// describes them now (none when `value` names none or the server does
    /// not answer).
    pub fn of_session(value: &JsValue, each: &mut dyn FnMut(ServedFile)) {
        let Some(id) = Reflect::get(value, &"session".into())
            .ok()
            .and_then(|id| id.as_string())
        else {
            return;
        };
        let files = get(
            &format!("/api/sessions/{id}"),
            None,
            XmlHttpRequestResponseType::Json,
        )
        .and_then(|d| Reflect::get(&d, &"files".into()).ok())
        .and_then(|f| f.dyn_into::<Array>().ok());
        for file in files.iter().flat_map(Array::iter) {
            if let Some(file) = ServedFile::of(&file) {
                each(file);
            }
        }
    }

    fn of(value: &JsValue) -> Option<ServedFile> {
        let field = |k: &str| Reflect::get(value, &k.into()).ok();
        Some(ServedFile {
            url: field("url")?.as_string()?,
            name: field("name")?.as_string()?,
            size: field("size")?.as_f64()? as u64,
        })
    }

    /// Why `range` could not be read.
    fn failed(&self, range: &Range<u64>) -> String {
        format!("{}: the server did not send bytes {range:?}", self.name)
    }

    /// `range` of the file, now, into `buf`.
    pub fn read(&self, range: Range<u64>, buf: &mut Vec<u8>) -> Result<(), String> {
        buf.clear();
        if range.is_empty() {
            return Ok(());
        }
        let bytes = get(
            &self.url,
            Some(&range),
            XmlHttpRequestResponseType::Arraybuffer,
        )
        .map(|b| Uint8Array::new(&b));
        match bytes {
            Some(bytes) if u64::from(bytes.length()) == range.end - range.start => {
                buf.resize(bytes.length() as usize, 0);
                bytes.copy_to(buf);
                Ok(())
            }
            _ => Err(self.failed(&range)),
        }
    }

    /// `range` of the file, in the background.
    pub async fn fetch(self, range: Range<u64>) -> Result<Vec<u8>, String> {
        let init = RequestInit::new();
        let headers = Object::new();
        let _ = Reflect::set(&headers, &"Range".into(), &header(&range).into());
        init.set_headers(&headers);
        let scope: WorkerGlobalScope = js_sys::global().unchecked_into();
        let answer = JsFuture::from(scope.fetch_with_str_and_init(&self.url, &init)).await;
        let body = match answer.map(Response::unchecked_from_js) {
            Ok(r) if r.status() == 206 => r.array_buffer().ok(),
            _ => None,
        };
        let bytes = match body {
            Some(body) => JsFuture::from(body).await.ok(),
            None => None,
        };
        match bytes.map(|b| Uint8Array::new(&b).to_vec()) {
            Some(bytes) if bytes.len() as u64 == range.end - range.start => Ok(bytes),
            _ => Err(self.failed(&range)),
        }
    }
}

/// A synchronous `GET` of `url` (of `range`, answered with 206, else
/// 200), its answer as `kind`.
fn get(url: &str, range: Option<&Range<u64>>, kind: XmlHttpRequestResponseType) -> Option<JsValue> {
    let xhr = XmlHttpRequest::new().ok()?;
    xhr.open_with_async("GET", url, false).ok()?;
    if let Some(range) = range {
        xhr.set_request_header("Range", &header(range)).ok()?;
    }
    xhr.set_response_type(kind);
    xhr.send().ok()?;
    let want = if range.is_some() { 206 } else { 200 };
    (xhr.status().ok()? == want).then(|| xhr.response().ok())?
}

/// The `Range` header of `range` (not empty: the engine asks for bytes).
fn header(range: &Range<u64>) -> String {
    format!("bytes={}-{}", range.start, range.end.saturating_sub(1))
}
