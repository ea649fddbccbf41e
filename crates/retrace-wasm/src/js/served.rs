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
//! described with. Bodies are read through recent 32 KiB blocks
//! ([`Recent`]): the first screen asks for neighbouring lines, and for
//! the same ones again (previews, then rows), and each synchronous
//! request is a round trip through the browser's network process.

use std::cell::RefCell;
use std::collections::VecDeque;
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
    /// Blocks body reads brought, shared by the clones.
    recent: Rc<RefCell<Recent>>,
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
            recent: Rc::default(),
        })
    }

    /// Why `range` could not be read.
    fn failed(&self, range: &Range<u64>) -> String {
        format!("{}: the server did not send bytes {range:?}", self.name)
    }

    /// `range` of the file, now, into `buf`: from the blocks kept where
    /// they hold it, the others asked for in one request and kept.
    pub fn read(&self, range: Range<u64>, buf: &mut Vec<u8>) -> Result<(), String> {
        buf.clear();
        if range.is_empty() {
            return Ok(());
        }
        if range.end - range.start > CACHED_UP_TO || range.end > self.size {
            return self.ask(range, buf);
        }
        let blocks = range.start / BLOCK..(range.end - 1) / BLOCK + 1;
        let mut recent = self.recent.borrow_mut();
        let missing: Vec<u64> = blocks.clone().filter(|&b| !recent.has(b)).collect();
        // The missing blocks, and any kept between them, in one request.
        let mut asked = Vec::new();
        let asked_from = match (missing.first(), missing.last()) {
            (Some(&lo), Some(&hi)) => {
                let bytes = lo * BLOCK..((hi + 1) * BLOCK).min(self.size);
                self.ask(bytes, &mut asked)?;
                lo..hi + 1
            }
            _ => 0..0,
        };
        for b in blocks.clone() {
            let at = b * BLOCK;
            let from = range.start.max(at) - at;
            let to = range.end.min(at + BLOCK) - at;
            if asked_from.contains(&b) {
                let off = (at - asked_from.start * BLOCK) as usize;
                buf.extend_from_slice(&asked[off + from as usize..off + to as usize]);
            } else {
                buf.extend_from_slice(
                    &recent.get(b).expect("kept: not missing")[from as usize..to as usize],
                );
            }
        }
        for b in asked_from.clone() {
            let off = ((b - asked_from.start) * BLOCK) as usize;
            let end = (off + BLOCK as usize).min(asked.len());
            recent.keep(b, asked[off..end].into());
        }
        Ok(())
    }

    /// `range` of the file, now, into `buf`, by a request of its own.
    fn ask(&self, range: Range<u64>, buf: &mut Vec<u8>) -> Result<(), String> {
        buf.clear();
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

/// The size of the blocks body reads are asked in: a screen's bodies are
/// mostly neighbouring lines of a few kilobytes.
const BLOCK: u64 = 32 << 10;
/// How many blocks are kept (8 MiB): the summary's previews alone read
/// about 150 across a large session, and the first rows read some again.
const KEPT: usize = 256;
/// Reads longer than this (a whole small file, a folder's listing) are
/// asked as they are, not kept.
const CACHED_UP_TO: u64 = 1 << 20;

/// The blocks recent body reads brought, the least recently used first.
#[derive(Default)]
struct Recent {
    blocks: VecDeque<(u64, Rc<[u8]>)>,
}

impl Recent {
    fn has(&self, block: u64) -> bool {
        self.blocks.iter().any(|(b, _)| *b == block)
    }

    /// Block `block`, now the most recently used.
    fn get(&mut self, block: u64) -> Option<Rc<[u8]>> {
        let i = self.blocks.iter().position(|(b, _)| *b == block)?;
        let kept = self.blocks.remove(i)?;
        self.blocks.push_back(kept.clone());
        Some(kept.1)
    }

    fn keep(&mut self, block: u64, bytes: Rc<[u8]>) {
        self.blocks.retain(|(b, _)| *b != block);
        self.blocks.push_back((block, bytes));
        while self.blocks.len() > KEPT {
            self.blocks.pop_front();
        }
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
