//! The viewer's one wasm module, loaded by the page and by its worker
//! (`crates/retrace-wasm/js/worker.js`): with a window it mounts the app;
//! in the dedicated worker it runs the engine's message loop.

use wasm_bindgen::JsCast;

fn main() {
    console_error_panic_hook::set_once();
    if web_sys::window().is_some() {
        leptos::mount::mount_to_body(retrace_web::app::App);
    } else if js_sys::global().is_instance_of::<web_sys::DedicatedWorkerGlobalScope>() {
        retrace_wasm::js::worker::run();
    } else {
        web_sys::console::error_1(&"retrace: neither a page nor a dedicated worker".into());
    }
}
