//! retrace-core reads the session files LLM agents write.
//!
//! It is sans-I/O: it opens no files, reads no environment, asks no clock and
//! starts no threads. Bytes come in, values go out; it builds for
//! `wasm32-unknown-unknown` unchanged.

mod message;
mod normalize;
mod time;

pub use message::{Message, MessageKind, Part, Role, Usage};
pub use time::{format_rfc3339_ms, parse_rfc3339_ms};
