//! The viewer's Web Worker: reads files and answers the page.

fn main() {
    console_error_panic_hook::set_once();
    retrace_web::worker::run();
}
