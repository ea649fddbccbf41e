//! The JS side, behind features: what the transports share of the host
//! (`browser`), the worker transport (`worker`), the page's Rust client of
//! it (`client`) and the direct transport (`direct`).

#[cfg(feature = "worker")]
mod browser;
#[cfg(feature = "worker")]
pub mod worker;
#[cfg(feature = "client")]
pub mod client;
#[cfg(feature = "direct")]
pub mod direct;
