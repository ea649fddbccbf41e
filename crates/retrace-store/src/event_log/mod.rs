//! A session's event log on disk: `events.jsonl`, then `events_1.jsonl`,
//! `events_2.jsonl`, … (the core's naming rule), written by one appender,
//! repaired after a crash and read back as one stream.
//!
//! SKELETON: the recorder's issue fills these in; `FsStore` calls them.

use std::path::Path;

use crate::error::StoreResult;
use crate::store::{EventSink, EventsRead, LogOptions, LogProblem, StoredEvent};

/// Opens the log in `dir` for appending (after [`repair`]), continuing in
/// the last part.
pub(crate) fn open(dir: &Path, options: &LogOptions) -> StoreResult<Box<dyn EventSink>> {
    let _ = (dir, options);
    unimplemented!("log::open")
}

/// Cuts a torn last line (kept in a side-car) and reports NUL runs.
pub(crate) fn repair(dir: &Path) -> StoreResult<Vec<LogProblem>> {
    let _ = dir;
    unimplemented!("log::repair")
}

/// Every event of the log, in order, with what could not be read.
pub(crate) fn read(dir: &Path) -> StoreResult<EventsRead> {
    let _ = dir;
    unimplemented!("log::read")
}

/// Removes the last event and returns it.
pub(crate) fn pop(dir: &Path) -> StoreResult<Option<StoredEvent>> {
    let _ = dir;
    unimplemented!("log::pop")
}
