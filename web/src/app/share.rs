//! "Download as HTML": the session as one page that opens offline, as
//! `retrace export --html --branches all` writes it: the open page
//! `cargo xtask dist` wrote beside the viewer (`export.html`, the core's
//! layout; a page opened from such a file has its own, `embedded.rs`),
//! then the engine's redacted copy of each file (as "Download … redacted"
//! gets it) gzipped by the browser's `CompressionStream`, as the core's
//! `FilePart`s, then the core's tail.

use std::cell::RefCell;
use std::io::Write;

use js_sys::{Array, Function, Reflect, Uint8Array};
use leptos::prelude::*;
use retrace_core::{part_name, FilePart, HTML_TAIL};
use retrace_wasm::protocol::Request;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::Blob;

use super::{embedded, loading, save, Viewer};

thread_local! {
    /// While a page is being made: how many redacted copies it waits
    /// for, and those back.
    static MAKING: RefCell<Option<(usize, Vec<Blob>)>> = const { RefCell::new(None) };
}

/// Starts a page: `requests` ask the engine for each file's redacted copy.
pub fn start(v: Viewer, requests: Vec<Request>) {
    v.download.set(Some((0, 0, 0)));
    MAKING.with(|m| *m.borrow_mut() = Some((requests.len(), Vec::new())));
    for r in &requests {
        retrace_wasm::js::client::send(r, &[]);
    }
}

/// Gives up the page being made (a copy failed, or another session came).
pub fn abandon() {
    MAKING.with(|m| m.borrow_mut().take());
}

/// Takes a copy the engine made if a page is waiting for it (`false`
/// otherwise); the page is written and saved once every file is back.
pub fn take(v: Viewer, blob: &Blob) -> bool {
    let back = MAKING.with(|m| {
        let mut m = m.borrow_mut();
        let (want, files) = m.as_mut()?;
        files.push(blob.clone());
        // All back: the page is no longer waited for.
        Some(if files.len() == *want { m.take() } else { None })
    });
    if let Some(Some((_, files))) = back {
        leptos::task::spawn_local(async move {
            if let Err(e) = write(v, &files).await {
                v.failure.set(Some(format!("cannot make the page: {e:?}")));
            }
            v.download.set(None);
        });
        return true;
    }
    back.is_some()
}

/// Saves the page: the open page, `files` (the first opening on the
/// branch shown), the tail.
async fn write(v: Viewer, files: &[Blob]) -> Result<(), JsValue> {
    let names: Vec<String> = v.summary.with_untracked(|s| {
        s.iter()
            .flat_map(|s| &s.files)
            .map(|f| part_name(&f.name).to_owned())
            .collect()
    });
    let leaf = v.leaf_label.get_untracked();
    let parts = Array::of1(&match embedded::get("page") {
        Some(page) => page,
        None => loading::fetch_file("export.html", "export.html")
            .await?
            .into(),
    });
    for (i, (name, file)) in names.iter().zip(files).enumerate() {
        // Gzipped by the browser: no code of ours.
        let gzip = new("CompressionStream", &"gzip".into())?;
        let stream = call(file, "stream", &JsValue::UNDEFINED)?;
        let zipped = call(&stream, "pipeThrough", &gzip)?;
        let bytes = call(
            &new("Response", &zipped)?,
            "arrayBuffer",
            &JsValue::UNDEFINED,
        )?;
        let bytes =
            Uint8Array::new(&JsFuture::from(bytes.unchecked_into::<js_sys::Promise>()).await?);
        let mut out = Vec::new();
        let leaf = Some(leaf.as_str()).filter(|l| i == 0 && !l.is_empty());
        let mut part = FilePart::new(&mut out, name, leaf);
        // Into memory: nothing to fail.
        let _ = part.write_all(&bytes.to_vec());
        let _ = part.finish();
        parts.push(&Uint8Array::from(&out[..]));
    }
    parts.push(&HTML_TAIL.into());
    let page = Blob::new_with_blob_sequence(&parts)?;
    // `session.jsonl` saved as `session.jsonl.html`: what it holds.
    save::save(&page, &(names[0].clone() + ".html"));
    Ok(())
}

/// `new globalThis[class](arg)`.
fn new(class: &str, arg: &JsValue) -> Result<JsValue, JsValue> {
    let class: Function = Reflect::get(&js_sys::global(), &class.into())?.unchecked_into();
    Reflect::construct(&class, &Array::of1(arg))
}

/// `on[method](arg)`.
fn call(on: &JsValue, method: &str, arg: &JsValue) -> Result<JsValue, JsValue> {
    let f: Function = Reflect::get(on, &method.into())?.unchecked_into();
    f.call1(on, arg)
}
