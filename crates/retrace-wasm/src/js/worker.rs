//! The worker transport: the message loop a dedicated Web Worker runs over
//! the engine. A message `{id, request, files?}` (the request as JSON text,
//! the files of an `open` or `open_folder` beside it) is answered by one
//! message for `id` (see `wire`); a made file's answer carries its bytes
//! as a `Blob`. Background work runs in slices between messages, so a
//! gigabyte scan never keeps one waiting long.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

use super::browser::{self, BrowserFiles};
use super::wire;
use crate::engine::{Engine, Host, Outcome};
use crate::protocol::{EngineError, Event, Request, Response};

thread_local! {
    static ENGINE: RefCell<Engine<BrowserFiles>> = RefCell::new(Engine::new());
    /// Whether a slice of background work is scheduled.
    static TICKING: Cell<bool> = const { Cell::new(false) };
    /// The open whose first rows were sent and whose session is not read
    /// yet: requests wait in `HELD` until it is.
    static HOLDING: Cell<Option<u64>> = const { Cell::new(None) };
    static HELD: RefCell<Vec<JsValue>> = const { RefCell::new(Vec::new()) };
    /// The bytes of files being made, by the request they answer.
    static MADE: RefCell<HashMap<u32, Array>> = RefCell::new(HashMap::new());
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

/// Starts answering messages, and says so (`ready`): a dedicated worker
/// drops messages that arrive before its handler exists.
pub fn run() {
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(|event: MessageEvent| {
        handle(&event.data());
    });
    scope().set_onmessage(Some(handler.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    handler.forget();
    post(&wire::event(&Event::Ready));
}

/// Handles one message: `{id, request: "<json>", files?: File[]}`.
fn handle(data: &JsValue) {
    let field = |name: &str| Reflect::get(data, &name.into()).unwrap_or(JsValue::UNDEFINED);
    let id = field("id").as_f64().map_or(0, |n| n as u32);
    let request = match Request::from_json(&field("request").as_string().unwrap_or_default()) {
        Ok(r) => r,
        Err(e) => return reply(id, Err(e)),
    };
    // After the first rows of an open, the page asks about the session
    // being read: its requests wait for it (another open does not).
    let opens = matches!(
        request,
        Request::Open { .. } | Request::OpenFolder { .. } | Request::OpenListed { .. }
    );
    if !opens && HOLDING.with(|h| h.get()).is_some() {
        return HELD.with(|h| h.borrow_mut().push(data.clone()));
    }
    let files = request
        .takes_files()
        .then(|| BrowserFiles::of(&field("files")));
    let outcome = ENGINE.with(|e| e.borrow_mut().call(id, request, files, &mut WorkerHost));
    match outcome {
        Ok(Outcome::Reply(response)) => reply(id, Ok(response)),
        Ok(Outcome::Later) => {}
        Ok(Outcome::Opening(opening)) => {
            let generation = opening.generation;
            wasm_bindgen_futures::spawn_local(async move {
                let read = opening
                    .read(browser::clock_ms, |event| {
                        let current = ENGINE.with(|e| e.borrow().is_current(generation));
                        if current {
                            if matches!(event, Event::FirstRows(_)) {
                                HOLDING.with(|h| h.set(Some(generation)));
                            }
                            WorkerHost.event(event);
                        }
                        current
                    })
                    .await;
                let answer = ENGINE.with(|e| e.borrow_mut().opened(read, &mut WorkerHost));
                let installed = answer.is_ok();
                reply(id, answer);
                if HOLDING.with(|h| h.get()) == Some(generation) {
                    HOLDING.with(|h| h.set(None));
                    // Asked about a session that never came (unreadable,
                    // or replaced by a later open): nobody waits for them.
                    let held = HELD.with(|h| h.take());
                    if installed {
                        for data in held {
                            handle(&data);
                        }
                    }
                }
                schedule();
            });
        }
        Err(e) => reply(id, Err(e)),
    }
    schedule();
}

/// Runs one slice of background work after the messages waiting now.
fn schedule() {
    let busy = ENGINE.with(|e| e.borrow().busy());
    if !busy || TICKING.with(|t| t.replace(true)) {
        return;
    }
    gloo_timers::callback::Timeout::new(0, || {
        TICKING.with(|t| t.set(false));
        ENGINE.with(|e| e.borrow_mut().tick(&mut WorkerHost));
        schedule();
    })
    .forget();
}

fn post(message: &JsValue) {
    let _ = scope().post_message(message);
}

/// Answers request `id` (a made file with its bytes as a `Blob`).
fn reply(id: u32, result: Result<Response, EngineError>) {
    let parts = MADE
        .with(|m| m.borrow_mut().remove(&id))
        .unwrap_or_default();
    let Ok(Response::File(mut made)) = result else {
        return post(&wire::answer(id, &result));
    };
    if !made.bytes.is_empty() {
        parts.push(&Uint8Array::from(made.bytes.as_slice()));
        made.bytes = Vec::new();
    }
    let file = match browser::blob(&parts) {
        Ok(file) => file,
        Err(_) => {
            let e = EngineError::internal(format!("cannot assemble {}", made.name));
            return post(&wire::answer(id, &Err(e)));
        }
    };
    let message = wire::answer(id, &Ok(Response::File(made)));
    let _ = Reflect::set(&message, &"file".into(), &file);
    post(&message);
}

/// The worker's side of the engine.
struct WorkerHost;

impl Host for WorkerHost {
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
        post(&wire::event(&event));
    }

    fn chunk(&mut self, ticket: u32, bytes: &[u8]) {
        MADE.with(|m| {
            m.borrow_mut()
                .entry(ticket)
                .or_default()
                .push(&Uint8Array::from(bytes));
        });
    }

    fn reply(&mut self, ticket: u32, result: Result<Response, EngineError>) {
        reply(ticket, result);
    }
}
