//! The viewer inside a page that holds its session (`retrace export
//! --html`, or "Download as HTML"): the page's boot script (the core's
//! `html/boot.js`) leaves `globalThis.retraceEmbedded` with the worker it
//! started (from a `blob:` URL, told its glue and module once the page is
//! up) and the page without its session (for "Download as HTML"); it
//! drops the session's files on the viewer once it is up, and marks the
//! page `embedded` (the stylesheet then shows no welcome).

use js_sys::Reflect;
use wasm_bindgen::JsValue;

/// `retraceEmbedded.key`, in a page that holds its session.
pub fn get(key: &str) -> Option<JsValue> {
    let embedded = Reflect::get(&js_sys::global(), &"retraceEmbedded".into()).ok()?;
    Reflect::get(&embedded, &key.into())
        .ok()
        .filter(|v| !v.is_undefined())
}
