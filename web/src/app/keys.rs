//! The `?` overlay: every key the viewer answers, in a modal dialog
//! written in `index.html` (Escape closes it and focus goes back where it
//! was).

use leptos::prelude::document;

/// Calls a method of the dialog by name (no web-sys binding needed).
fn call(method: &str) {
    let Some(dialog) = document().get_element_by_id("keys") else {
        return;
    };
    if let Ok(f) = js_sys::Reflect::get(&dialog, &method.into()) {
        if let Ok(f) = wasm_bindgen::JsCast::dyn_into::<js_sys::Function>(f) {
            let _ = f.call0(&dialog);
        }
    }
}

pub fn open() {
    call("showModal");
}

pub fn close() {
    call("close");
}
