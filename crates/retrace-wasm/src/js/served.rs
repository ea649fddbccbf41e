//! Files a `retrace serve` server holds, read over HTTP. The page sends
//! `{session: ID}` in place of `File`s; the worker asks the server for
//! that session's files (`/api/sessions/ID`: name, size, URL each, the
//! sizes as they are now) and reads them: a body now with a synchronous
//! `XMLHttpRequest` with `Range` (allowed in a worker), and opening's
//! pieces in the background from one streamed `fetch` of the file from the
//! first piece asked to the size described, read a chunk at a time
//! through its body's reader. One answer read as it arrives moves the
//! bytes into the worker as fast as a dropped file's; a `Range` request
//! per 16 MiB piece waited on each answer's last byte, and was about half
//! as fast (the figures: `docs/architecture/serve.md`). Neither holds the
//! file whole. A file that grows meanwhile is read up to the size it was
//! described with.

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use js_sys::{Array, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    ReadableStreamDefaultReader, RequestInit, Response, WorkerGlobalScope, XmlHttpRequest,
    XmlHttpRequestResponseType,
};

/// One served file.
#[derive(Clone)]
pub struct ServedFile {
    pub url: String,
    pub name: String,
    pub size: u64,
    /// Opening's stream of the file, shared by the clones its pieces
    /// hold; taken out while a piece reads it.
    stream: Rc<RefCell<Option<Stream>>>,
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
            stream: Rc::default(),
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

    /// `range` of the file, in the background: read from the stream the
    /// piece before it left off (opening asks for pieces in order), else
    /// from a stream started at `range.start`.
    pub async fn fetch(self, range: Range<u64>) -> Result<Vec<u8>, String> {
        let kept = self.stream.borrow_mut().take();
        let mut stream = match kept.filter(|s| s.at == range.start) {
            Some(stream) => stream,
            None => Stream::open(&self.url, range.start..self.size)
                .await
                .ok_or_else(|| self.failed(&range))?,
        };
        let want = (range.end - range.start) as usize;
        let mut bytes = Vec::with_capacity(want);
        while bytes.len() < want {
            let Some(chunk) = stream.next().await else {
                return Err(self.failed(&range));
            };
            let (len, need) = (chunk.length() as usize, want - bytes.len());
            let take = if len > need {
                // The rest begins the next piece.
                stream.left = Some(chunk.subarray(need as u32, len as u32));
                chunk.subarray(0, need as u32)
            } else {
                chunk
            };
            let at = bytes.len();
            bytes.resize(at + take.length() as usize, 0);
            take.copy_to(&mut bytes[at..]);
        }
        stream.at = range.end;
        // Dropped (and so cancelled) when this piece failed or was the last.
        if stream.at < self.size {
            *self.stream.borrow_mut() = Some(stream);
        }
        Ok(bytes)
    }
}

/// One `GET` of a file's bytes from `at` on, read as they arrive. Dropped
/// before its end (an open superseded, a read failed), it cancels the
/// request.
struct Stream {
    reader: ReadableStreamDefaultReader,
    /// Where in the file the stream's next byte is.
    at: u64,
    /// The part of the last chunk read that the last piece did not take.
    left: Option<Uint8Array>,
}

impl Stream {
    /// `range` of the file at `url` (206 expected), its body's reader.
    async fn open(url: &str, range: Range<u64>) -> Option<Stream> {
        let init = RequestInit::new();
        let headers = Object::new();
        let _ = Reflect::set(&headers, &"Range".into(), &header(&range).into());
        init.set_headers(&headers);
        let scope: WorkerGlobalScope = js_sys::global().unchecked_into();
        let answer = JsFuture::from(scope.fetch_with_str_and_init(url, &init))
            .await
            .ok()?
            .unchecked_into::<Response>();
        if answer.status() != 206 {
            return None;
        }
        let reader = answer.body()?.get_reader().unchecked_into();
        Some(Stream {
            reader,
            at: range.start,
            left: None,
        })
    }

    /// The next bytes: what the last piece left, else the next chunk the
    /// answer brings (`None` at its end or on a failure).
    async fn next(&mut self) -> Option<Uint8Array> {
        if let Some(left) = self.left.take() {
            return Some(left);
        }
        let read = JsFuture::from(self.reader.read()).await.ok()?;
        if Reflect::get(&read, &"done".into()).ok()?.is_truthy() {
            return None;
        }
        Reflect::get(&read, &"value".into())
            .ok()?
            .dyn_into::<Uint8Array>()
            .ok()
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // A stream read to its end is closed, and cancelling it is a no-op;
        // one that failed refuses, which is no news.
        let cancelled = JsFuture::from(self.reader.cancel());
        wasm_bindgen_futures::spawn_local(async move {
            let _ = cancelled.await;
        });
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
