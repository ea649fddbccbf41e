//! The retrace engine for the browser and for JS: one opened session
//! answering one protocol, over two transports.
//!
//! - [`protocol`]: what a caller asks ([`protocol::Request`]), what it
//!   gets back ([`protocol::Response`] or [`protocol::EngineError`], a
//!   stable code and a message) and the events of background work.
//! - [`engine`]: the engine as plain Rust over files read by range (the
//!   core's `Source`), tested natively on real files. One request kind is
//!   one engine method is one JS method.
//! - `js` (wasm-bindgen glue, behind features): the worker transport
//!   (`worker`: the message loop a Web Worker runs), the page's Rust client
//!   of it (`client`: the leptos viewer's), and the direct transport
//!   (`direct`: the `Engine` class and `startWorker`, exported to JS). The
//!   JS client of the worker is `js/client.js`, its script `js/worker.js`.

pub mod protocol;
pub mod engine;
#[cfg(any(feature = "worker", feature = "client", feature = "direct"))]
pub mod js;
