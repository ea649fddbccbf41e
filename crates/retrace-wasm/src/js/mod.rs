//! The JS side, behind features: files a `retrace serve` server holds
//! (`served`), what the transports share of the host (`browser`), values as JS values (`wire`), the worker transport
//! (`worker`), the page's Rust client of it (`client`), the direct
//! transport (`direct`) and, with it, the core's replay as a JS class
//! (`replay`).

#[cfg(feature = "worker")]
mod served;
#[cfg(feature = "worker")]
mod browser;
#[cfg(any(feature = "worker", feature = "client"))]
pub mod wire;
#[cfg(feature = "worker")]
pub mod worker;
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "direct")]
pub mod direct;
#[cfg(feature = "direct")]
pub mod invisible;
#[cfg(feature = "direct")]
pub mod replay;
