//! The page's Rust client of the worker transport (the leptos viewer's;
//! a JS page uses `js/client.js`, which speaks the same messages): starts
//! the worker, sends requests (held until it says `ready`), and hands each
//! message it posts to the page, read (`wire::read`). A worker that could
//! not start (its script says so before `ready`) answers every request
//! with that failure here, rather than leaving it held.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, File, MessageEvent, Worker, WorkerOptions, WorkerType};

use super::wire;
use crate::protocol::{EngineError, Event, Incoming, Request};

#[wasm_bindgen]
extern "C" {
    type ImportMeta;

    /// `import.meta` of the wasm-bindgen JS that loaded this module.
    #[wasm_bindgen(thread_local_v2, js_namespace = import, js_name = meta)]
    static IMPORT_META: ImportMeta;

    #[wasm_bindgen(method, getter)]
    fn url(this: &ImportMeta) -> String;
}

thread_local! {
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
    /// Messages waiting for the worker to say it is ready; `None` once it
    /// has.
    static QUEUE: RefCell<Option<Vec<Object>>> = const { RefCell::new(Some(Vec::new())) };
    static LAST_ID: Cell<u32> = const { Cell::new(0) };
    /// Why the worker could not start: each request is answered with it,
    /// since no worker will.
    static NOT_STARTED: RefCell<Option<EngineError>> = const { RefCell::new(None) };
    /// The page's handler of messages (`start`'s `on_message`).
    static HANDLER: RefCell<Option<Handler>> = const { RefCell::new(None) };
}

/// What the page hears each message with (and a made file's `Blob`).
type Handler = Rc<dyn Fn(Incoming, Option<Blob>)>;

/// The id a message was sent with.
fn id_of(message: &Object) -> u32 {
    Reflect::get(message, &"id".into())
        .ok()
        .and_then(|id| id.as_f64())
        .map_or(0, |id| id as u32)
}

/// Starts the worker from the script at `script` (`js/worker.js`, served
/// beside the page) running this very module: the script gets the page's
/// compiled module (no second download or compile) and the URL of its JS
/// glue (a bundler hashes that name, so the script cannot know it).
/// `script` may instead be a `Worker` its maker started and told its glue
/// and module: a page opened from `file://` (the single-file HTML export)
/// has no URL a worker may import the glue from, so its boot script starts
/// the worker from a `blob:` URL (Chromium starts that only as a classic
/// worker) and hands it the glue itself.
/// `on_message` gets every message, in order, with the `Blob` of a made
/// file.
pub fn start(
    script: &JsValue,
    on_message: impl Fn(Incoming, Option<Blob>) + 'static,
) -> Result<(), String> {
    let worker = match script.as_string() {
        Some(script) => {
            let options = WorkerOptions::new();
            options.set_type(WorkerType::Module);
            let worker = Worker::new_with_options(&script, &options)
                .map_err(|e| format!("cannot start the worker: {e:?}"))?;
            let boot = Object::new();
            let glue = IMPORT_META.with(ImportMeta::url);
            let _ = Reflect::set(&boot, &"glue".into(), &glue.into());
            let _ = Reflect::set(&boot, &"module".into(), &wasm_bindgen::module());
            worker
                .post_message(&boot)
                .map_err(|e| format!("cannot start the worker: {e:?}"))?;
            worker
        }
        None => script.clone().unchecked_into(),
    };
    let on_message: Handler = Rc::new(on_message);
    HANDLER.with(|h| *h.borrow_mut() = Some(on_message.clone()));
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let data = event.data();
        let held = || QUEUE.with(|q| q.borrow().is_some());
        match wire::read(&data) {
            Ok(Incoming::Event(Event::Ready)) => {
                let queued = QUEUE.with(|q| q.borrow_mut().take()).unwrap_or_default();
                for message in queued {
                    post(&message);
                }
            }
            // Before `ready`, only the worker's script fails: the worker
            // did not start. The page hears it, then each request held for
            // the worker is answered with it, as every later one will be.
            Ok(Incoming::Event(Event::Failed(e))) if held() => {
                let queued = QUEUE.with(|q| q.borrow_mut().take()).unwrap_or_default();
                NOT_STARTED.with(|n| *n.borrow_mut() = Some(e.clone()));
                on_message(Incoming::Event(Event::Failed(e.clone())), None);
                for message in queued {
                    let result = Err(e.clone());
                    on_message(
                        Incoming::Reply {
                            id: id_of(&message),
                            result,
                        },
                        None,
                    );
                }
            }
            Ok(incoming) => {
                let file = Reflect::get(&data, &"file".into())
                    .ok()
                    .and_then(|f| f.dyn_into::<Blob>().ok());
                on_message(incoming, file)
            }
            Err(e) => on_message(Incoming::Event(Event::Failed(e)), None),
        }
    });
    worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
        web_sys::console::error_1(&"retrace: the worker failed".into());
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    WORKER.with(|w| *w.borrow_mut() = Some(worker));
    Ok(())
}

/// Sends a request (and files, for `open` and `open_folder`); its answer
/// comes in order, with the next id. With a worker that did not start, the
/// answer is that failure.
pub fn send(request: &Request, files: &[File]) {
    send_list(request, files.iter().collect());
}

/// [`send`] with the files as a JS array (a `retrace serve` session's
/// `{url, name, size}` descriptions are sent as they are).
pub fn send_list(request: &Request, files: Array) {
    let id = LAST_ID.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    if let Some(e) = NOT_STARTED.with(|n| n.borrow().clone()) {
        // After this call, as the worker's answer would come.
        if let Some(handler) = HANDLER.with(|h| h.borrow().clone()) {
            let answer = move || handler(Incoming::Reply { id, result: Err(e) }, None);
            gloo_timers::callback::Timeout::new(0, answer).forget();
        }
        return;
    }
    let json = match serde_json::to_string(request) {
        Ok(json) => json,
        Err(e) => {
            web_sys::console::error_1(&EngineError::internal(e.to_string()).message.into());
            return;
        }
    };
    let message = Object::new();
    let _ = Reflect::set(&message, &"id".into(), &id.into());
    let _ = Reflect::set(&message, &"request".into(), &json.into());
    if files.length() > 0 {
        let _ = Reflect::set(&message, &"files".into(), &files);
    }
    let waiting = QUEUE.with(|q| match q.borrow_mut().as_mut() {
        Some(queue) => {
            queue.push(message.clone());
            true
        }
        None => false,
    });
    if !waiting {
        post(&message);
    }
}

fn post(message: &Object) {
    WORKER.with(|w| {
        if let Some(worker) = w.borrow().as_ref() {
            let _ = worker.post_message(message);
        }
    });
}
