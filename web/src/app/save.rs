//! Saving a file made in the tab (a redacted copy, a fork, a seal, a rules
//! file) as a download: a `blob:` URL of this page, so nothing leaves the
//! machine.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Saves `blob` as a download named `name`.
pub fn save(blob: &web_sys::Blob, name: &str) {
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
