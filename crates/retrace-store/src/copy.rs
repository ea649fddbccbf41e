//! Copying a session from one store to another (files, memory, a
//! database): its meta and configuration snapshot, every value at its
//! version, every list, and its events as the lines they were written as,
//! byte for byte. Only the [`SessionStore`] contract is used, so any two
//! backends copy both ways.

use serde::Serialize;

use crate::error::{StoreError, StoreResult};
use crate::id::SessionId;
use crate::store::{EncodedEvent, LogOptions, SessionStore};

/// Events appended to the destination at once (and at most this many
/// bytes of them): one transaction of a database store.
const BATCH_EVENTS: usize = 1024;
const BATCH_BYTES: usize = 8 << 20;

/// What a copy moved.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CopyReport {
    /// Events copied.
    pub events: u64,
    /// Their lines' bytes, newlines included.
    pub event_bytes: u64,
    /// Values copied (each at its version).
    pub values: usize,
    /// Lists copied.
    pub lists: usize,
}

/// Copies session `id` from `from` to `to`.
///
/// The source's lock is held for the copy, so a session being recorded is
/// refused ([`StoreError::SessionBusy`]) rather than cut at some event;
/// the destination must not hold the id ([`StoreError::Exists`]). A
/// source log with lines that are not events is refused, naming them:
/// they would not be in the copy. When a step fails after the destination
/// session was created, it is deleted again, so a copy is whole or absent
/// (a process killed half-way leaves it partial; the next copy then finds
/// it and refuses).
pub fn copy_session(
    from: &dyn SessionStore,
    to: &dyn SessionStore,
    id: &SessionId,
) -> StoreResult<CopyReport> {
    let _source = from.lock(id)?;
    let meta = from.meta(id)?;
    let config = from.config_snapshot(id)?;
    let keys = from.state_keys(id)?;
    let read = from.read_events(id)?;
    if let Some(p) = read.problems.first() {
        return Err(StoreError::Corrupt {
            path: format!("{}:{} of session `{id}`", p.file, p.line),
            reason: format!(
                "{} ({} line{} of its log cannot be copied; the copy was not made)",
                p.message,
                read.problems.len(),
                if read.problems.len() == 1 { "" } else { "s" }
            ),
        });
    }
    to.create(&meta, &config)?;
    let filled = (|| {
        let _dest = to.lock(id)?;
        let mut report = CopyReport::default();
        for key in &keys.values {
            if let Some(value) = from.load_state(id, key)? {
                to.import_state(id, key, &value)?;
                report.values += 1;
            }
        }
        for key in &keys.lists {
            to.append_list(id, key, &from.read_list(id, key)?)?;
            report.lists += 1;
        }
        let mut sink = to.open_events(id, &LogOptions::default())?;
        let mut batch = Vec::new();
        let mut bytes = 0;
        for e in read.events {
            let mut line = e.line;
            line.push(b'\n');
            bytes += line.len();
            report.event_bytes += line.len() as u64;
            batch.push(EncodedEvent {
                event_type: e.event.event_type(),
                timestamp: e.event.timestamp,
                line,
            });
            if batch.len() == BATCH_EVENTS || bytes >= BATCH_BYTES {
                sink.append(&batch)?;
                report.events += batch.len() as u64;
                batch.clear();
                bytes = 0;
            }
        }
        if !batch.is_empty() {
            sink.append(&batch)?;
            report.events += batch.len() as u64;
        }
        sink.sync()?;
        Ok(report)
    })();
    if filled.is_err() {
        // Our own fresh session, holding nothing of anyone's.
        let _ = to.delete(id);
    }
    filled
}
