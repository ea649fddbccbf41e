//! Files a `retrace serve` server holds, read over HTTP by range: the
//! worker is given `{url, name, size}` for each (the server's description
//! of a session) instead of `File`s. A body is read now with a
//! synchronous `XMLHttpRequest` (allowed in a worker) and opening reads
//! its pieces with `fetch`, each a `Range` request the server answers with
//! 206; `size` is what the file held when the page asked, so a file that
//! grows meanwhile is read as it was.

use std::ops::Range;

use js_sys::{Object, Reflect, Uint8Array};
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
    /// `{url, name, size}`, if `value` is such an object.
    pub fn of(value: &JsValue) -> Option<ServedFile> {
        let field = |k: &str| Reflect::get(value, &k.into()).ok();
        Some(ServedFile {
            url: field("url")?.as_string()?,
            name: field("name")?.as_string()?,
            size: field("size")?.as_f64()? as u64,
        })
    }

    fn range(range: &Range<u64>) -> String {
        format!("bytes={}-{}", range.start, range.end - 1)
    }

    /// `range` of the file, now.
    pub fn read(&self, range: Range<u64>, buf: &mut Vec<u8>) -> Result<(), String> {
        buf.clear();
        if range.start >= range.end {
            return Ok(());
        }
        let failed = |what: &str| format!("{}: {what}", self.name);
        let xhr = XmlHttpRequest::new().map_err(|_| failed("cannot ask the server"))?;
        xhr.open_with_async("GET", &self.url, false)
            .and_then(|_| xhr.set_request_header("Range", &Self::range(&range)))
            .map_err(|_| failed("cannot ask the server"))?;
        xhr.set_response_type(XmlHttpRequestResponseType::Arraybuffer);
        xhr.send()
            .map_err(|_| failed("the server did not answer"))?;
        let status = xhr.status().unwrap_or(0);
        if status != 206 && status != 200 {
            return Err(failed(&format!("the server answered {status}")));
        }
        let bytes = Uint8Array::new(&xhr.response().map_err(|_| failed("no bytes"))?);
        // A server that sent the whole file (200) gives the range's part.
        let skip = if status == 200 { range.start as u32 } else { 0 };
        let len = (range.end - range.start) as u32;
        if bytes.length() < skip + len {
            return Err(failed("fewer bytes than asked"));
        }
        buf.resize(len as usize, 0);
        bytes.subarray(skip, skip + len).copy_to(buf);
        Ok(())
    }

    /// `range` of the file, in the background.
    pub async fn fetch(self, range: Range<u64>) -> Result<Vec<u8>, String> {
        let init = RequestInit::new();
        let headers = Object::new();
        let _ = Reflect::set(&headers, &"Range".into(), &Self::range(&range).into());
        init.set_headers(&headers);
        let scope: WorkerGlobalScope = js_sys::global().unchecked_into();
        let failed = |what: &str| format!("{}: {what}", self.name);
        let response: Response = JsFuture::from(scope.fetch_with_str_and_init(&self.url, &init))
            .await
            .map_err(|_| failed("the server did not answer"))?
            .unchecked_into();
        if response.status() != 206 {
            return Err(failed(&format!(
                "the server answered {}",
                response.status()
            )));
        }
        let body = response.array_buffer().map_err(|_| failed("no bytes"))?;
        let bytes = JsFuture::from(body)
            .await
            .map_err(|_| failed("the answer was cut"))?;
        let bytes = Uint8Array::new(&bytes).to_vec();
        if bytes.len() as u64 != range.end - range.start {
            return Err(failed("fewer bytes than asked"));
        }
        Ok(bytes)
    }
}
