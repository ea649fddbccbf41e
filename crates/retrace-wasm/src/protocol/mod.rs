//! The protocol: what a caller asks ([`Request`]), what it gets back
//! ([`Response`] or [`EngineError`], and [`Event`]s), and the values inside
//! them. Plain Rust, the same for both transports.

mod error;
mod values;
mod request;
mod response;

pub use error::{EngineError, ErrorCode};
pub use request::{js_name, target_api, Request};
pub use response::{Event, Incoming, Response};
pub use values::*;
