//! A session's event log on disk: `events.jsonl`, then `events_1.jsonl`,
//! `events_2.jsonl`, … (the core's naming rule, [`part_file_name`]),
//! written by one appender, repaired after a crash and read back as one
//! stream.
//!
//! - `writer.rs`: the [`Appender`]: one `write` per batch of whole lines,
//!   rotation between events, `fdatasync` on demand.
//! - `repair.rs`: a torn last line is cut and kept in a side-car
//!   (`events_N.jsonl.torn`), NUL runs are reported.
//! - `read.rs`: every part in order as one stream, and `pop`.
//! - `gzip.rs`: rotated parts compressed to `events_N.jsonl.gz`, crash-safe.
//!
//! Only the last part is ever written, and only whole lines, so only the
//! last part can end torn. A rotated part is synced beside the writer; a
//! sync waits for that, so what came before a sync is durable in every
//! part.

use std::fs;
use std::path::{Path, PathBuf};

use retrace_core::{part_file_name, part_of_file_name, Event};

use crate::error::{StoreError, StoreResult};
use crate::store::{EncodedEvent, EventSink, EventsRead, LogOptions, LogProblem, StoredEvent};

mod writer;
mod gzip;
mod repair;
mod read;

pub use writer::Appender;

/// Opens the log in `dir` for appending (after [`repair`]), continuing in
/// the last part.
pub(crate) fn open(dir: &Path, options: &LogOptions) -> StoreResult<Box<dyn EventSink>> {
    Ok(Box::new(Appender::open(dir, options)?))
}

/// Cuts a torn last line (kept in a side-car) and reports NUL runs; also
/// finishes what a crash interrupted while a part was being gzipped.
pub(crate) fn repair(dir: &Path) -> StoreResult<Vec<LogProblem>> {
    repair::repair(dir)
}

/// Every event of the log, in order, with what could not be read.
pub(crate) fn read(dir: &Path) -> StoreResult<EventsRead> {
    read::read(dir)
}

/// Removes the last event and returns it.
pub(crate) fn pop(dir: &Path) -> StoreResult<Option<StoredEvent>> {
    read::pop(dir)
}

/// `event` as one line of the log, `\n` included.
pub(crate) fn encode(event: &Event) -> StoreResult<EncodedEvent> {
    let mut line = serde_json::to_vec(event).map_err(|e| StoreError::Corrupt {
        path: "(event to record)".to_owned(),
        reason: format!(
            "a {} event cannot be encoded: {e}",
            event.event_type().as_str()
        ),
    })?;
    line.push(b'\n');
    Ok(EncodedEvent {
        event_type: event.event_type(),
        timestamp: event.timestamp,
        line,
    })
}

/// One part of the log as found in its folder.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Part {
    /// Its number (0 for `events.jsonl`).
    n: u32,
    /// `events_N.jsonl`, if it exists.
    plain: Option<PathBuf>,
    /// `events_N.jsonl.gz`, if it exists.
    gz: Option<PathBuf>,
}

#[cfg(test)]
impl Part {
    /// The file to read: the plain one when both exist (a crash while
    /// gzipping; both hold the same lines).
    fn file(&self) -> &Path {
        self.plain
            .as_deref()
            .or(self.gz.as_deref())
            .unwrap_or(Path::new(""))
    }

    /// Its file name, for reports.
    fn name(&self) -> String {
        file_name(self.file())
    }
}

/// The last component of `path`, for reports.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The side-car that keeps what repair cut from part `n`.
fn torn_name(n: u32) -> String {
    format!("{}.torn", part_file_name(n))
}

/// The parts of the log in `dir`, in order. Only the names the writer
/// gives count (`events_0.jsonl` is not part 0's name and is ignored).
fn parts(dir: &Path) -> StoreResult<Vec<Part>> {
    let entries = fs::read_dir(dir).map_err(|e| StoreError::io("cannot list", dir, e))?;
    let mut parts: Vec<Part> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io("cannot list", dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(n) = part_of_file_name(name) else {
            continue;
        };
        let plain = part_file_name(n);
        let is_gz = name.strip_suffix(".gz") == Some(plain.as_str());
        if name != plain && !is_gz {
            continue;
        }
        let at = match parts.iter().position(|p| p.n == n) {
            Some(at) => at,
            None => {
                parts.push(Part {
                    n,
                    plain: None,
                    gz: None,
                });
                parts.len() - 1
            }
        };
        let path = dir.join(name);
        if is_gz {
            parts[at].gz = Some(path);
        } else {
            parts[at].plain = Some(path);
        }
    }
    parts.sort_by_key(|p| p.n);
    Ok(parts)
}

/// `fsync` of a folder, so a file created, renamed or removed in it
/// survives a crash.
fn sync_dir(dir: &Path) -> StoreResult<()> {
    #[cfg(unix)]
    {
        let d = fs::File::open(dir).map_err(|e| StoreError::io("cannot open", dir, e))?;
        d.sync_all()
            .map_err(|e| StoreError::io("cannot sync", dir, e))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests;
