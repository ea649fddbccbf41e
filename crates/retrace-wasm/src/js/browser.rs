//! What the transports share of the JS host: its clocks and random
//! bytes, dropped `File`s as the engine's [`Files`], and a made file's
//! bytes as a `Blob`. Global functions only (`crypto`, `performance`), so
//! the same code runs in a page, a worker and Node.

use std::borrow::Cow;
use std::ops::Range;

use js_sys::{Array, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, File, FileReaderSync};

use super::served::ServedFile;
use crate::engine::{Fetch, Files};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
    fn get_random_values(bytes: &mut [u8]) -> Result<(), JsValue>;

    #[wasm_bindgen(js_namespace = performance, js_name = now)]
    fn performance_now() -> f64;
}

/// A monotonic clock in milliseconds.
pub fn clock_ms() -> f64 {
    performance_now()
}

/// The wall clock in Unix milliseconds.
pub fn unix_ms() -> i64 {
    js_sys::Date::now() as i64
}

/// 16 bytes from the host's random source, for new ids (the core draws
/// none); `Math.random` should `crypto` fail, since a maker of pi ids
/// draws until it finds one not taken.
pub fn random_bytes() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    if get_random_values(&mut bytes).is_err() {
        bytes.fill_with(|| (js_sys::Math::random() * 256.0) as u8);
    }
    bytes
}

/// A `Blob` of `parts` (each a `Uint8Array`), as a session file.
pub fn blob(parts: &Array) -> Result<Blob, JsValue> {
    let options = BlobPropertyBag::new();
    options.set_type("application/x-ndjson");
    Blob::new_with_u8_array_sequence_and_options(parts, &options)
}

/// Dropped or picked files in a worker: read by range with
/// `FileReaderSync` when a body is needed, and in the background with
/// `Blob.arrayBuffer` while opening; or files a `retrace serve` server
/// holds, read over HTTP (`served`).
pub struct BrowserFiles {
    files: Vec<Held>,
    reader: Option<FileReaderSync>,
    buf: Vec<u8>,
}

/// A file given to the worker.
#[derive(Clone)]
enum Held {
    Dropped(File),
    Served(ServedFile),
}

impl BrowserFiles {
    fn new(files: Vec<Held>) -> BrowserFiles {
        BrowserFiles {
            files,
            reader: None,
            buf: Vec::new(),
        }
    }

    /// The `File`s of an array sent beside a request, or the files of the
    /// served session a `{session: ID}` in it names (anything else in it
    /// is left out).
    pub fn of(list: &JsValue) -> BrowserFiles {
        let mut files = Vec::new();
        if Array::is_array(list) {
            for f in Array::from(list).iter() {
                match f.dyn_into::<File>() {
                    Ok(file) => files.push(Held::Dropped(file)),
                    Err(other) => {
                        ServedFile::of_session(&other, &mut |s| files.push(Held::Served(s)))
                    }
                }
            }
        }
        BrowserFiles::new(files)
    }
}

impl Files for BrowserFiles {
    fn count(&self) -> usize {
        self.files.len()
    }

    fn name(&self, i: usize) -> String {
        match &self.files[i] {
            Held::Dropped(file) => file.name(),
            Held::Served(file) => file.name.clone(),
        }
    }

    fn size(&self, i: usize) -> u64 {
        match &self.files[i] {
            Held::Dropped(file) => file.size() as u64,
            Held::Served(file) => file.size,
        }
    }

    fn read(&mut self, i: usize, range: Range<u64>) -> Result<Cow<'_, [u8]>, String> {
        let file = match &self.files[i] {
            Held::Dropped(file) => file,
            Held::Served(file) => {
                file.read(range, &mut self.buf)?;
                return Ok(Cow::Borrowed(&self.buf));
            }
        };
        if self.reader.is_none() {
            self.reader =
                Some(FileReaderSync::new().map_err(|_| "cannot read files here".to_owned())?);
        }
        let reader = self.reader.as_ref().expect("made above");
        let blob = file
            .slice_with_f64_and_f64(range.start as f64, range.end as f64)
            .map_err(|_| format!("{}: cannot slice the file", file.name()))?;
        let array = reader
            .read_as_array_buffer(&blob)
            .map_err(|_| format!("{}: cannot read the file", file.name()))?;
        let bytes = Uint8Array::new(&array);
        self.buf.resize(bytes.length() as usize, 0);
        bytes.copy_to(&mut self.buf);
        Ok(Cow::Borrowed(&self.buf))
    }

    fn fetch(&self, i: usize, range: Range<u64>) -> Fetch {
        let file = match &self.files[i] {
            Held::Dropped(file) => file.clone(),
            Held::Served(file) => return Box::pin(file.clone().fetch(range)),
        };
        // The read starts here, when the promise is made, not when the
        // future is first polled: opening keeps a few pieces in flight and
        // awaits them in turn, so a read started inside the async block
        // would begin only once the pieces before it were indexed.
        let reading = file
            .slice_with_f64_and_f64(range.start as f64, range.end as f64)
            .map(|blob| JsFuture::from(blob.array_buffer()));
        Box::pin(async move {
            let array = reading
                .map_err(|_| "cannot slice the file".to_owned())?
                .await
                .map_err(|_| "cannot read the file".to_owned())?;
            Ok(Uint8Array::new(&array).to_vec())
        })
    }

    fn pick(&self, which: &[usize]) -> BrowserFiles {
        BrowserFiles::new(which.iter().map(|&i| self.files[i].clone()).collect())
    }
}
