//! The retrace viewer: drop a session file into the browser and replay it.
//!
//! Two wasm binaries come out of this crate (see `index.html`):
//! - `retrace-web`, the page: a leptos app ([`app`]) that shows what the
//!   worker sends and asks for the rows on screen;
//! - `retrace-worker`, a Web Worker ([`worker`]) that reads the dropped
//!   files in `File.slice` pieces into `retrace-core`, holds the session
//!   index and reads bodies by byte range, so a gigabyte file never blocks
//!   the page and is never held in memory whole.
//!
//! They talk through [`protocol`]. Logic that needs no browser lives in
//! plain modules ([`state`], [`markdown`], [`highlight`], [`describe`]) and is
//! tested natively.

pub mod app;
pub mod client;
pub mod describe;
pub mod folder;
pub mod highlight;
pub mod markdown;
pub mod protocol;
pub mod sensitive;
pub mod state;
pub mod worker;
