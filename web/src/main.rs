//! The viewer's one wasm module, loaded by the page and by its worker
//! (`web/assets/worker.js`): with a window it mounts the app; in the
//! dedicated worker it answers the page.

use wasm_bindgen::JsCast;

fn main() {
    console_error_panic_hook::set_once();
    if web_sys::window().is_some() {
        leptos::mount::mount_to_body(retrace_web::app::App);
    } else if js_sys::global().is_instance_of::<web_sys::DedicatedWorkerGlobalScope>() {
        retrace_web::worker::run();
    } else {
        web_sys::console::error_1(&"retrace: neither a page nor a dedicated worker".into());
    }
}
