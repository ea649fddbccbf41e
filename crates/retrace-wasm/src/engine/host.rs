//! What the engine asks of the transport that runs it: the clocks and
//! random bytes the core takes as arguments, and where to send what
//! background work produces. Each transport is one `Host`; the native
//! tests' records everything.

use crate::protocol::{EngineError, Event, Response};

/// The transport's side of the engine.
pub trait Host {
    /// A monotonic clock in milliseconds: how long opening took, how long a
    /// slice of background work may run.
    fn clock_ms(&mut self) -> f64;
    /// The wall clock in Unix milliseconds: the time a fork or a seal
    /// writes into the session.
    fn unix_ms(&mut self) -> i64;
    /// 16 random bytes: new session and entry ids (the core draws none).
    fn random(&mut self) -> [u8; 16];
    /// Something background work reports (scan, download progress, titles).
    fn event(&mut self, event: Event);
    /// The next bytes of the file being made for request `ticket` (a
    /// redacted copy, written slice by slice).
    fn chunk(&mut self, ticket: u32, bytes: &[u8]);
    /// The answer to request `ticket`, which background work finished (a
    /// redacted copy) or gave up (its session was replaced).
    fn reply(&mut self, ticket: u32, result: Result<Response, EngineError>);
}
