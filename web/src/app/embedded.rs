//! The viewer inside a page that holds its session (`retrace export
//! --html`, or "Download as HTML"): the page's boot script (the core's
//! `html/boot.js`) leaves `globalThis.retraceEmbedded` with the worker's
//! `blob:` URL, the wasm-bindgen JS, the session's files (a promise) and
//! the viewer's own parts; the session opens at once.

use js_sys::{Promise, Reflect};
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, File};

use super::Viewer;

/// What the boot script left, in a page that holds its session.
pub fn embedded() -> Option<JsValue> {
    Reflect::get(&js_sys::global(), &"retraceEmbedded".into())
        .ok()
        .filter(|e| e.is_object())
}

/// `embedded().key`.
pub fn get(key: &str) -> Option<JsValue> {
    Reflect::get(&embedded()?, &key.into()).ok()
}

/// The worker's script and, in such a page, the glue it is given.
pub fn worker(default: &str) -> (String, Option<Blob>) {
    match (get("worker").and_then(|w| w.as_string()), get("glue")) {
        (Some(url), Some(glue)) => (url, glue.dyn_into().ok()),
        _ => (default.to_owned(), None),
    }
}

/// Opens the session the page holds, if it holds one.
pub fn open(v: Viewer) {
    let Some(files) = get("files").and_then(|f| f.dyn_into::<Promise>().ok()) else {
        return;
    };
    v.progress.set(Some((0, 0)));
    leptos::task::spawn_local(async move {
        match JsFuture::from(files).await {
            Ok(files) => v.open(
                js_sys::Array::from(&files)
                    .iter()
                    .filter_map(|f| f.dyn_into::<File>().ok())
                    .collect(),
            ),
            Err(e) => {
                v.progress.set(None);
                v.failure
                    .set(Some(format!("cannot read the session in this page: {e:?}")));
            }
        }
    });
}
