//! The retrace viewer: drop a session file into the browser and replay it.
//!
//! One wasm module comes out of this crate (the `retrace-web` bin, see
//! `index.html`), started in two places:
//! - the page: a leptos app ([`app`]) that shows what the worker sends and
//!   asks for the rows on screen;
//! - a Web Worker ([`worker`], started by [`client`] through
//!   `assets/worker.js`) that reads the dropped files in `File.slice` pieces
//!   into `retrace-core`, holds the session index and reads bodies by byte
//!   range, so a gigabyte file never blocks the page and is never held in
//!   memory whole.
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
