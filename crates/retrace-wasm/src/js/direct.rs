//! The direct transport: the engine as a JS class, `Engine`, run on the
//! caller's thread (a page, Node), and `startWorker`, which runs the worker
//! transport in a plain build of this crate. Values cross as JS objects
//! made by `serde-wasm-bindgen` (`wire::to_js`: the same values the worker
//! posts); errors are thrown as `Error`s with a `code`.
//!
//! Each request kind is one method here, named as `js_name` says; every
//! method may be awaited. Those that read files (`open`, `openFolder`) or
//! wait for background work (`download`) return promises; the rest answer
//! at once. Background work (the scan, a redacted copy, a folder's titles)
//! runs in slices on timers, reporting to the `listen` callback.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::{Rc, Weak};

use js_sys::{Array, Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

use super::browser;
use super::wire::to_js;
use crate::engine::{Engine, Host, MemoryFiles};
#[cfg(feature = "api")]
use crate::protocol::target_api;
use crate::protocol::{
    Allow, EngineError, ErrorCode, Event, Request, Response, ReviewAllow, SearchFilter,
};

/// Runs the worker transport's message loop: call it in a dedicated
/// worker that loaded a plain build of this crate (`js/worker.js` does).
#[wasm_bindgen(js_name = startWorker)]
pub fn start_worker() {
    super::worker::run();
}

/// What the engine sends its host, kept until the engine is let go (a
/// listener may call the engine again).
#[derive(Default)]
struct Queued {
    events: Vec<Event>,
    replies: Vec<(u32, Result<Response, EngineError>)>,
    made: HashMap<u32, Array>,
}

impl Host for Queued {
    fn clock_ms(&mut self) -> f64 {
        browser::clock_ms()
    }

    fn unix_ms(&mut self) -> i64 {
        browser::unix_ms()
    }

    fn random(&mut self) -> [u8; 16] {
        browser::random_bytes()
    }

    fn event(&mut self, event: Event) {
        self.events.push(event);
    }

    fn chunk(&mut self, ticket: u32, bytes: &[u8]) {
        self.made
            .entry(ticket)
            .or_default()
            .push(&Uint8Array::from(bytes));
    }

    fn reply(&mut self, ticket: u32, result: Result<Response, EngineError>) {
        self.replies.push((ticket, result));
    }
}

struct Shared {
    engine: RefCell<Engine<MemoryFiles>>,
    queued: RefCell<Queued>,
    listener: RefCell<Option<Function>>,
    /// Promises of requests background work answers: (resolve, reject).
    waiting: RefCell<HashMap<u32, (Function, Function)>>,
    tickets: Cell<u32>,
    ticking: Cell<bool>,
    closed: Cell<bool>,
}

fn closed() -> EngineError {
    EngineError::new(
        ErrorCode::Closed,
        "the engine was closed before it answered",
    )
}

/// The engine, answering on the caller's thread.
#[wasm_bindgen(js_name = Engine)]
pub struct DirectEngine {
    shared: Rc<Shared>,
}

/// `e` as thrown to JS: an `Error` named `RetraceError` with its `code`.
pub(super) fn thrown(e: EngineError) -> JsValue {
    let error = js_sys::Error::new(&e.message);
    error.set_name("RetraceError");
    let _ = Reflect::set(&error, &"code".into(), &e.code.as_str().into());
    error.into()
}

/// The value a request's promise resolves with: the answer's `data`
/// (`null` for none), a made file's `Blob` as its `file`.
fn value(response: Response, parts: Option<Array>) -> Result<JsValue, JsValue> {
    if let Response::File(mut made) = response {
        let parts = parts.unwrap_or_default();
        if !made.bytes.is_empty() {
            parts.push(&Uint8Array::from(made.bytes.as_slice()));
            made.bytes = Vec::new();
        }
        let file = browser::blob(&parts)?;
        let out = to_js(&made).map_err(thrown)?;
        Reflect::set(&out, &"file".into(), &file)?;
        return Ok(out);
    }
    let tagged = to_js(&response).map_err(thrown)?;
    let data = Reflect::get(&tagged, &"data".into())?;
    Ok(if data.is_undefined() {
        JsValue::NULL
    } else {
        data
    })
}

impl Shared {
    fn ticket(&self) -> u32 {
        self.tickets.set(self.tickets.get() + 1);
        self.tickets.get()
    }

    /// Serves `request` now: its value, a promise background work keeps,
    /// or the error.
    fn ask(
        self: &Rc<Self>,
        request: Request,
        files: Option<MemoryFiles>,
    ) -> Result<JsValue, JsValue> {
        if self.closed.get() {
            return Err(thrown(closed()));
        }
        let ticket = self.ticket();
        let answer = {
            let mut queued = self.queued.borrow_mut();
            self.engine
                .borrow_mut()
                .call_now(ticket, request, files, &mut *queued)
        };
        let result = match answer {
            Ok(Some(response)) => {
                let parts = self.queued.borrow_mut().made.remove(&ticket);
                value(response, parts)
            }
            Ok(None) => {
                let mut keep = |resolve: Function, reject: Function| {
                    self.waiting.borrow_mut().insert(ticket, (resolve, reject));
                };
                Ok(Promise::new(&mut keep).into())
            }
            Err(e) => Err(thrown(e)),
        };
        self.settle();
        result
    }

    /// Hands over what the engine queued (events to the listener, answers
    /// to their promises) and schedules background work.
    fn settle(self: &Rc<Self>) {
        let (events, replies) = {
            let mut q = self.queued.borrow_mut();
            (
                std::mem::take(&mut q.events),
                std::mem::take(&mut q.replies),
            )
        };
        let listener = self.listener.borrow().clone();
        for event in events {
            if let (Some(f), Ok(v)) = (&listener, to_js(&event)) {
                let _ = f.call1(&JsValue::NULL, &v);
            }
        }
        for (ticket, result) in replies {
            let parts = self.queued.borrow_mut().made.remove(&ticket);
            let Some((resolve, reject)) = self.waiting.borrow_mut().remove(&ticket) else {
                continue;
            };
            let _ = match result.map_err(thrown).and_then(|r| value(r, parts)) {
                Ok(v) => resolve.call1(&JsValue::NULL, &v),
                Err(e) => reject.call1(&JsValue::NULL, &e),
            };
        }
        self.schedule();
    }

    /// One slice of background work on a timer, while there is some; the
    /// timer does not keep a disposed engine alive.
    fn schedule(self: &Rc<Self>) {
        if !self.engine.borrow().busy() || self.ticking.replace(true) {
            return;
        }
        let weak: Weak<Shared> = Rc::downgrade(self);
        gloo_timers::callback::Timeout::new(0, move || {
            let Some(shared) = weak.upgrade() else {
                return;
            };
            shared.ticking.set(false);
            {
                let mut queued = shared.queued.borrow_mut();
                shared.engine.borrow_mut().tick(&mut *queued);
            }
            shared.settle();
        })
        .forget();
    }

    /// A promise of `request` with `files` read first.
    fn ask_with_files(self: &Rc<Self>, request: Request, files: Array) -> Promise {
        let shared = self.clone();
        future_to_promise(async move {
            let files = read_files(&files).await.map_err(thrown)?;
            shared.ask(request, Some(files))
        })
    }
}

/// The files given: `File`s, `Blob`s with a `name`, or `{name, bytes}`
/// (bytes a `Uint8Array` or an `ArrayBuffer`), read into memory.
async fn read_files(list: &Array) -> Result<MemoryFiles, EngineError> {
    let mut files = MemoryFiles::new();
    for (i, item) in list.iter().enumerate() {
        let name = Reflect::get(&item, &"name".into())
            .ok()
            .and_then(|n| n.as_string())
            .ok_or_else(|| EngineError::bad_request(format!("file {i} has no `name`")))?;
        // A Blob first: `Blob.bytes` is a method of its own.
        let bytes = if let Some(blob) = item.dyn_ref::<web_sys::Blob>() {
            JsFuture::from(blob.array_buffer())
                .await
                .map_err(|_| EngineError::unreadable(format!("{name}: cannot read the file")))?
        } else {
            Reflect::get(&item, &"bytes".into()).unwrap_or_default()
        };
        if !(bytes.is_instance_of::<Uint8Array>() || bytes.is_instance_of::<js_sys::ArrayBuffer>())
        {
            return Err(EngineError::bad_request(format!(
                "{name}: neither a File, a Blob nor {{name, bytes}} (a Uint8Array or an ArrayBuffer)"
            )));
        }
        files.add(name, Uint8Array::new(&bytes).to_vec());
    }
    Ok(files)
}

/// An `allow` list from JS (`undefined` or `null`: none), its items `what`.
fn list_of<T: serde::de::DeserializeOwned>(allow: JsValue, what: &str) -> Result<Vec<T>, JsValue> {
    if allow.is_undefined() || allow.is_null() {
        return Ok(Vec::new());
    }
    serde_wasm_bindgen::from_value(allow).map_err(|e| {
        thrown(EngineError::new(
            ErrorCode::BadRequest,
            format!("`allow` is not a list of {what}: {e}"),
        ))
    })
}

/// A search filter from JS: missing fields as `SearchFilter::default()`.
fn filter_of(value: &JsValue) -> SearchFilter {
    let mut filter = SearchFilter::default();
    if value.is_object() {
        let flag = |name: &str, default: bool| {
            Reflect::get(value, &name.into())
                .ok()
                .and_then(|v| v.as_bool())
                .unwrap_or(default)
        };
        filter = SearchFilter {
            user: flag("user", filter.user),
            assistant: flag("assistant", filter.assistant),
            tool: flag("tool", filter.tool),
            events: flag("events", filter.events),
        };
    }
    filter
}

#[wasm_bindgen(js_class = Engine)]
impl DirectEngine {
    /// An engine with no session open.
    #[wasm_bindgen(constructor)]
    pub fn new() -> DirectEngine {
        DirectEngine {
            shared: Rc::new(Shared {
                engine: RefCell::new(Engine::new()),
                queued: RefCell::new(Queued::default()),
                listener: RefCell::new(None),
                waiting: RefCell::new(HashMap::new()),
                tickets: Cell::new(0),
                ticking: Cell::new(false),
                closed: Cell::new(false),
            }),
        }
    }

    /// Calls `callback({kind, data})` for each event (`progress`, `scan`,
    /// `download_progress`, `listed`, `failed`); `null` stops.
    #[wasm_bindgen(js_name = listen)]
    pub fn listen(&self, callback: Option<Function>) {
        *self.shared.listener.borrow_mut() = callback;
    }

    /// Lets the session go (its memory stays with the module, for another
    /// engine); what background work had not answered, and anything asked
    /// later, is refused with code `closed`.
    #[wasm_bindgen(js_name = close)]
    pub fn close(&self) {
        let shared = &self.shared;
        shared.closed.set(true);
        *shared.engine.borrow_mut() = Engine::new();
        *shared.queued.borrow_mut() = Queued::default();
        *shared.listener.borrow_mut() = None;
        let waiting: Vec<_> = shared.waiting.borrow_mut().drain().collect();
        for (_, (_, reject)) in waiting {
            let _ = reject.call1(&JsValue::NULL, &thrown(closed()));
        }
    }

    /// `open`: reads `files` (one session and its side files) and answers
    /// with its summary. `leafLabel` and `entry` name a place (a deep
    /// link's labels).
    #[wasm_bindgen(js_name = open)]
    pub fn open(&self, files: Array, leaf_label: Option<String>, entry: Option<String>) -> Promise {
        self.shared.ask_with_files(
            Request::Open {
                leaf_label,
                entry,
                first_rows: false,
            },
            files,
        )
    }

    /// `openFolder`: a folder's files (`paths[i]` the path of the `i`th
    /// under it): `{sessions, summary}`, the summary when it holds one.
    #[wasm_bindgen(js_name = openFolder)]
    pub fn open_folder(&self, files: Array, paths: Vec<String>) -> Promise {
        self.shared
            .ask_with_files(Request::OpenFolder { paths }, files)
    }

    /// `openListed`: the `session`th session of the folder listed last.
    #[wasm_bindgen(js_name = openListed)]
    pub fn open_listed(&self, session: u32) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::OpenListed { session }, None)
    }

    /// `branch`: the rows of the branch ending at entry `leaf`, as columns.
    #[wasm_bindgen(js_name = branch)]
    pub fn branch(&self, leaf: u32) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::Branch { leaf }, None)
    }

    /// `bodies`: the bodies of rows `start..end` of that branch.
    #[wasm_bindgen(js_name = bodies)]
    pub fn bodies(&self, leaf: u32, start: u32, end: u32) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::Bodies { leaf, start, end }, None)
    }

    /// `search`: hits of `query` (`filter`: `{user, assistant, tool,
    /// events}`, what was said by default).
    #[wasm_bindgen(js_name = search)]
    pub fn search(&self, query: String, filter: JsValue) -> Result<JsValue, JsValue> {
        let filter = filter_of(&filter);
        self.shared.ask(Request::Search { query, filter }, None)
    }

    /// `stats`: token totals per model, tool counts, the deep check's
    /// first problems.
    #[wasm_bindgen(js_name = stats)]
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::Stats, None)
    }

    /// `image`: the `image`th image of a row, as a `data:` URL.
    #[wasm_bindgen(js_name = image)]
    pub fn image(&self, leaf: u32, row: u32, image: u32) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::Image { leaf, row, image }, None)
    }

    /// `previews`: what these outline segments are about.
    #[wasm_bindgen(js_name = previews)]
    pub fn previews(&self, segments: Vec<u32>) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::Previews { segments }, None)
    }

    /// `hideSensitive`: bodies, previews, search snippets, contexts and
    /// migrations with sensitive data hidden (the default) or as written;
    /// shown, bodies, previews, contexts and migrations name the values a
    /// redacted copy would take out beside them (`revealed`).
    #[wasm_bindgen(js_name = hideSensitive)]
    pub fn hide_sensitive(&self, hide: bool) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::HideSensitive { hide }, None)
    }

    /// `review`: what a review marked "not a secret", kinds (`disable`)
    /// and findings (`allow`: `[{file, kind, line, hash}]`), shown as
    /// written while the rest stays hidden, named in `revealed`; empty
    /// lists take them back.
    #[wasm_bindgen(js_name = review)]
    pub fn review(&self, disable: Option<Vec<String>>, allow: JsValue) -> Result<JsValue, JsValue> {
        let allow: Vec<ReviewAllow> = list_of(allow, "{file, kind, line, hash}")?;
        let disable = disable.unwrap_or_default();
        self.shared.ask(Request::Review { disable, allow }, None)
    }

    /// `scan`: scans for sensitive data in the background (`scan` events).
    #[wasm_bindgen(js_name = scan)]
    pub fn scan(&self) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::Scan, None)
    }

    /// `download`: a redacted copy of file `file` (`mode`: `typed`,
    /// `mask`, `pseudo`), with kinds `disable`d and findings `allow`ed
    /// (`[{kind, line, hash}]`): `{name, notes, file}`.
    #[wasm_bindgen(js_name = download)]
    pub fn download(
        &self,
        file: u32,
        mode: String,
        disable: Option<Vec<String>>,
        allow: JsValue,
    ) -> Result<JsValue, JsValue> {
        let allow: Vec<Allow> = list_of(allow, "{kind, line, hash}")?;
        let request = Request::Download {
            file,
            mode,
            disable: disable.unwrap_or_default(),
            allow,
        };
        self.shared.ask(request, None)
    }

    /// `editPoints`: the rows the branch can be forked at and its calls
    /// without a result.
    #[wasm_bindgen(js_name = editPoints)]
    pub fn edit_points(&self, leaf: u32) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::EditPoints { leaf }, None)
    }

    /// `fork`: a new session forked at row `row`: `{name, notes, file}`.
    #[wasm_bindgen(js_name = fork)]
    pub fn fork(&self, leaf: u32, row: u32) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::Fork { leaf, row }, None)
    }

    /// `seal`: the branch with its calls without a result answered:
    /// `{name, notes, file}`.
    #[wasm_bindgen(js_name = seal)]
    pub fn seal(&self, leaf: u32) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::Seal { leaf }, None)
    }

    /// `compare`: the branches ending at `left` and `right` side by side
    /// from their fork point, rows aligned; or, when `right` is a
    /// compaction on `left`'s branch, what it hid beside what replaced it.
    #[wasm_bindgen(js_name = compare)]
    pub fn compare(&self, left: u32, right: u32) -> Result<JsValue, JsValue> {
        self.shared.ask(Request::Compare { left, right }, None)
    }

    /// `tree`: the branch tree, node by node (each node's parent, as
    /// columns), its roots, leaves, tips and branch points. A build with
    /// the `api` feature (the npm package); others refuse it with code
    /// `unsupported`, as they do `context` and `migrate`.
    #[wasm_bindgen(js_name = tree)]
    pub fn tree(&self) -> Result<JsValue, JsValue> {
        #[cfg(feature = "api")]
        return self.shared.ask(Request::Tree, None);
        #[cfg(not(feature = "api"))]
        Err(thrown(EngineError::not_built("tree", "api")))
    }

    /// `context`: the messages of the branch ending at `leaf`, as a model
    /// would be sent them, read as bodies are shown.
    #[wasm_bindgen(js_name = context)]
    #[cfg_attr(not(feature = "api"), allow(unused_variables))]
    pub fn context(&self, leaf: u32) -> Result<JsValue, JsValue> {
        #[cfg(feature = "api")]
        return self.shared.ask(Request::Context { leaf }, None);
        #[cfg(not(feature = "api"))]
        Err(thrown(EngineError::not_built("context", "api")))
    }

    /// `migrate`: the branch ending at `leaf` as the history of a request
    /// to `to` (`anthropic`, `openai`, `openai-responses`, `google`):
    /// `{leaf, body, report}`.
    #[wasm_bindgen(js_name = migrate)]
    #[cfg_attr(not(feature = "api"), allow(unused_variables))]
    pub fn migrate(&self, leaf: u32, to: String) -> Result<JsValue, JsValue> {
        #[cfg(feature = "api")]
        return self.shared.ask(
            Request::Migrate {
                leaf,
                to: target_api(&to).map_err(thrown)?,
            },
            None,
        );
        #[cfg(not(feature = "api"))]
        Err(thrown(EngineError::not_built("migrate", "api")))
    }
}

impl Default for DirectEngine {
    fn default() -> Self {
        DirectEngine::new()
    }
}
