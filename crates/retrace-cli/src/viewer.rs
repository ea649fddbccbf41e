//! The viewer `cargo xtask dist` built, inside the binary when it was
//! built with `RETRACE_VIEWER_DIST` (see `build.rs`): what `export --html`
//! puts in its page.

use crate::errors::InputError;

/// The files of `dist/` a page is made of.
pub(crate) struct Viewer {
    /// `index.html`: its body is the frame the app mounts beside.
    pub index: &'static str,
    /// The stylesheet.
    pub style: &'static str,
    /// The wasm-bindgen JS (trunk's `retrace-web-<hash>.js`).
    pub glue: &'static [u8],
    /// The one wasm module of the page and its worker.
    pub wasm: &'static [u8],
    /// The engine's worker script.
    pub worker: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/viewer.rs"));

/// The embedded viewer, or why there is none.
pub(crate) fn embedded() -> Result<&'static Viewer, InputError> {
    VIEWER.as_ref().ok_or_else(|| {
        InputError::new(
            "this retrace was built without the viewer, so it cannot write HTML: \
             build the viewer (`cargo xtask dist`), then retrace with it \
             (`RETRACE_VIEWER_DIST=$PWD/dist cargo build --release`)",
        )
    })
}
