//! The retrace viewer: drop a session file into the browser and replay it.
//!
//! One wasm module comes out of this crate (the `retrace-web` bin, see
//! `index.html`), started in two places:
//! - the page: a leptos app ([`app`]) that shows what the engine sends and
//!   asks for the rows on screen;
//! - a Web Worker running `retrace-wasm`'s engine (its worker transport,
//!   started by the page through that crate's client and `js/worker.js`),
//!   which reads the dropped files in `File.slice` pieces into
//!   `retrace-core`, holds the session index and reads bodies by byte
//!   range, so a gigabyte file never blocks the page and is never held in
//!   memory whole.
//!
//! This crate is the page only: the protocol, the engine and both sides of
//! the worker's messages are `retrace-wasm`'s. Logic that needs no browser
//! lives in plain modules ([`state`], [`markdown`], [`highlight`]) and is
//! tested natively.

pub mod app;
pub mod highlight;
pub mod invisible;
pub mod markdown;
pub mod state;
