//! The page's side of the worker: starts it, sends requests, and hands each
//! response to the app.

use std::cell::RefCell;

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{File, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::protocol::{Request, Response};

/// The worker's script (`web/assets/worker.js`, copied by trunk under this
/// fixed name): it starts this same wasm module in the worker.
const WORKER_URL: &str = "./worker.js";

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
    /// The failed response `worker.js` sent when the worker could not
    /// start: each later request is answered with it, since no worker
    /// will.
    static NOT_STARTED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Starts the worker; `on_response` gets every response, in order.
pub fn start(on_response: impl Fn(Response) + 'static) -> Result<(), String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(WORKER_URL, &options)
        .map_err(|e| format!("cannot start the worker: {e:?}"))?;
    // The worker runs this very module: it gets the compiled module (no
    // second download or compile) and the URL of its JS glue (trunk hashes
    // that name, so the worker's script cannot know it).
    let boot = Object::new();
    let _ = Reflect::set(
        &boot,
        &"glue".into(),
        &IMPORT_META.with(ImportMeta::url).into(),
    );
    let _ = Reflect::set(&boot, &"module".into(), &wasm_bindgen::module());
    worker
        .post_message(&boot)
        .map_err(|e| format!("cannot start the worker: {e:?}"))?;
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(move |event: MessageEvent| {
        let data = event.data();
        if let Ok(blob) = Reflect::get(&data, &"download".into()) {
            if let Ok(blob) = blob.dyn_into::<web_sys::Blob>() {
                let name = Reflect::get(&data, &"name".into())
                    .ok()
                    .and_then(|n| n.as_string())
                    .unwrap_or_else(|| "redacted.jsonl".to_owned());
                let notes = Reflect::get(&data, &"notes".into())
                    .ok()
                    .and_then(|n| n.as_string())
                    .map(|n| n.lines().map(str::to_owned).collect())
                    .unwrap_or_default();
                save(&blob, &name);
                on_response(Response::DownloadDone { name, notes });
                return;
            }
        }
        let mut text = data.as_string().unwrap_or_default();
        crate::app::sensitive::take_revealed(&mut text);
        match Response::from_json(&text) {
            Ok(Response::Ready) => {
                let queued = QUEUE.with(|q| q.borrow_mut().take()).unwrap_or_default();
                for message in queued {
                    post(&message);
                }
            }
            // Before `Ready`, only `worker.js` fails: the worker did not
            // start, and what was held for it is answered by the failure.
            Ok(response @ Response::Failed { .. }) if QUEUE.with(|q| q.borrow().is_some()) => {
                QUEUE.with(|q| q.borrow_mut().take());
                NOT_STARTED.with(|n| *n.borrow_mut() = Some(text));
                on_response(response);
            }
            Ok(response) => on_response(response),
            Err(e) => on_response(Response::Failed {
                message: format!(
                    "bad response from the worker: {e}: {}",
                    text.chars().take(300).collect::<String>()
                ),
            }),
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

/// Saves `blob` as a download named `name`: a `blob:` URL of this page, so
/// nothing leaves the machine.
pub(crate) fn save(blob: &web_sys::Blob, name: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else {
        return;
    };
    if let Ok(a) = document.create_element("a") {
        let a: web_sys::HtmlAnchorElement = a.unchecked_into();
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    // The click has started the download; the URL can go once it has.
    let revoke = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    if let Some(w) = web_sys::window() {
        let _ =
            w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000);
    }
}

/// Sends a request (and files, for [`Request::Open`]); with a worker that
/// did not start, answers that instead.
pub fn send(request: &Request, files: &[File]) {
    if let Some(failed) = NOT_STARTED.with(|n| n.borrow().clone()) {
        // Given to the page's handler as the worker's answer (after this
        // call, as a response would come).
        WORKER.with(|w| {
            let handler = w.borrow().as_ref().and_then(Worker::onmessage);
            let event = Object::new();
            let _ = Reflect::set(&event, &"data".into(), &failed.into());
            if let (Some(handler), Some(window)) = (handler, web_sys::window()) {
                let _ = window
                    .set_timeout_with_callback_and_timeout_and_arguments_1(&handler, 0, &event);
            }
        });
        return;
    }
    let Ok(json) = serde_json::to_string(request) else {
        return;
    };
    let message = Object::new();
    let _ = Reflect::set(&message, &"request".into(), &json.into());
    if !files.is_empty() {
        let list: Array = files.iter().collect();
        let _ = Reflect::set(&message, &"files".into(), &list);
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
