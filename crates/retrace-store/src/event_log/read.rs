//! The log read back as one stream, and `pop`.

use std::fs::{self, OpenOptions};
use std::io;
use std::path::Path;

use retrace_core::Event;

use super::{file_name, gzip, parts, sync_dir, torn_name, Part};
use crate::error::{StoreError, StoreResult};
use crate::store::{EventsRead, LogProblem, StoredEvent};

/// Every event of the log in `dir`, parts in order, numbered from 0.
/// What is not an event is reported with its file, line and offset: a
/// line that does not parse (with serde's error), a NUL run (skipped: the
/// rest of the line is read), a last line without its newline (a torn
/// write, not read; `repair` moves it aside).
pub(super) fn read(dir: &Path) -> StoreResult<EventsRead> {
    let mut out = EventsRead::default();
    for part in parts(dir)? {
        let (bytes, name) = load(&part, &mut out.problems)?;
        for line in Lines::new(&bytes) {
            read_line(&name, &line, &mut out);
        }
    }
    Ok(out)
}

/// One line of a part.
pub(super) struct Line<'a> {
    /// From 1.
    pub(super) number: u64,
    /// Of its first byte in the part.
    pub(super) offset: u64,
    /// Without its `\n`.
    pub(super) bytes: &'a [u8],
    /// Whether a `\n` ends it (only a torn last line has none).
    pub(super) ended: bool,
}

/// The lines of a part's bytes.
pub(super) struct Lines<'a> {
    bytes: &'a [u8],
    at: usize,
    number: u64,
}

impl<'a> Lines<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Lines<'a> {
        Lines {
            bytes,
            at: 0,
            number: 0,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        let rest = self.bytes.get(self.at..).filter(|r| !r.is_empty())?;
        self.number += 1;
        let offset = self.at as u64;
        let (bytes, ended) = match memchr::memchr(b'\n', rest) {
            Some(end) => (&rest[..end], true),
            None => (rest, false),
        };
        self.at += bytes.len() + usize::from(ended);
        Some(Line {
            number: self.number,
            offset,
            bytes,
            ended,
        })
    }
}

/// A part's bytes and its name; a gzipped part that breaks off is read up
/// to there and reported.
fn load(part: &Part, problems: &mut Vec<LogProblem>) -> StoreResult<(Vec<u8>, String)> {
    if let Some(plain) = &part.plain {
        match fs::read(plain) {
            Ok(bytes) => return Ok((bytes, file_name(plain))),
            // Gzipped meanwhile (by a recorder's background compression):
            // read the `.gz`, complete by construction.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io("cannot read", plain, e)),
        }
    }
    let gz = part
        .gz
        .clone()
        .or_else(|| part.plain.as_deref().map(gzip::gz_path))
        .unwrap_or_default();
    let name = file_name(&gz);
    let mut bytes = Vec::new();
    if let Some(e) = gzip::read_gz_partial(&gz, &mut bytes)? {
        problems.push(LogProblem {
            file: name.clone(),
            line: Lines::new(&bytes).count() as u64 + 1,
            offset: bytes.len() as u64,
            message: format!(
                "cannot decompress beyond byte {} of the decompressed stream ({e}); the \
                 events before it are read",
                bytes.len()
            ),
        });
    }
    Ok((bytes, name))
}

/// Pieces of a line, each with its offset in the line.
type Pieces<'a> = Vec<(usize, &'a [u8])>;

/// The pieces of a line between its NUL runs, and the NUL runs as
/// (offset, length).
fn split_nul_runs(bytes: &[u8]) -> (Pieces<'_>, Vec<(usize, usize)>) {
    let mut pieces = Vec::new();
    let mut runs = Vec::new();
    let mut at = 0;
    while let Some(nul) = memchr::memchr(0, &bytes[at..]) {
        let start = at + nul;
        let len = bytes[start..].iter().take_while(|&&b| b == 0).count();
        pieces.push((at, &bytes[at..start]));
        runs.push((start, len));
        at = start + len;
    }
    pieces.push((at, &bytes[at..]));
    (pieces, runs)
}

/// Reads one line into `out`: its events, or what is wrong with it.
fn read_line(file: &str, line: &Line<'_>, out: &mut EventsRead) {
    let problem = |offset: u64, message: String| LogProblem {
        file: file.to_owned(),
        line: line.number,
        offset,
        message,
    };
    if !line.ended {
        out.problems.push(problem(
            line.offset,
            format!(
                "the last line ({} bytes) has no newline at its end: a write cut off by a \
                 crash; not read (opening the session for writing moves it to a `.torn` \
                 side-car)",
                line.bytes.len()
            ),
        ));
        return;
    }
    let (pieces, runs) = split_nul_runs(line.bytes);
    for (at, len) in runs {
        out.problems.push(problem(
            line.offset + at as u64,
            format!("{len} NUL bytes skipped (zeros a crash left where data was not yet written)"),
        ));
    }
    for (at, piece) in pieces {
        if piece.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Event>(piece) {
            Ok(event) => out.events.push(StoredEvent {
                seq: out.events.len() as u64,
                event,
                line: piece.to_vec(),
            }),
            Err(e) => out.problems.push(problem(
                line.offset + at as u64,
                format!("not an event ({e}); kept in the file, skipped"),
            )),
        }
    }
}

/// Removes the last event of the log in `dir` and returns it; `None` for
/// an empty log. Refuses (and changes nothing) when the last line is not an
/// event or is torn, so a pop never takes anything but an event.
pub(super) fn pop(dir: &Path) -> StoreResult<Option<StoredEvent>> {
    loop {
        let parts = parts(dir)?;
        let Some(last) = parts.last() else {
            return Ok(None);
        };
        let plain = match (&last.plain, &last.gz) {
            (Some(plain), _) => plain.clone(),
            (None, Some(gz)) => {
                // Back to plain, whole, before cutting anything.
                let plain = dir.join(retrace_core::part_file_name(last.n));
                gzip::decompress(dir, gz, &plain)?;
                continue;
            }
            (None, None) => return Ok(None),
        };
        let name = file_name(&plain);
        let bytes = fs::read(&plain).map_err(|e| StoreError::io("cannot read", &plain, e))?;
        let Some(line) = Lines::new(&bytes)
            .filter(|l| !l.bytes.iter().all(|b| b.is_ascii_whitespace() || *b == 0))
            .last()
        else {
            if last.n == 0 {
                return Ok(None);
            }
            // An empty part after a rotation: the last event is in the one
            // before.
            fs::remove_file(&plain).map_err(|e| StoreError::io("cannot remove", &plain, e))?;
            sync_dir(dir)?;
            continue;
        };
        let corrupt = |reason: String| StoreError::Corrupt {
            path: format!("{name} line {} (byte {})", line.number, line.offset),
            reason,
        };
        if !line.ended {
            return Err(corrupt(format!(
                "the last line has no newline (a torn write); repair the log first (it moves \
                 the line to {})",
                torn_name(last.n)
            )));
        }
        let (pieces, _) = split_nul_runs(line.bytes);
        let mut pieces = pieces
            .into_iter()
            .filter(|(_, p)| !p.iter().all(u8::is_ascii_whitespace));
        let (Some((_, piece)), None) = (pieces.next(), pieces.next()) else {
            return Err(corrupt(
                "the last line holds several pieces between NUL runs; pop cuts whole lines \
                 only, nothing was removed"
                    .to_owned(),
            ));
        };
        let event = serde_json::from_slice::<Event>(piece).map_err(|e| {
            corrupt(format!(
                "the last line is not an event ({e}); pop removes events only, nothing was \
                 removed"
            ))
        })?;
        // Its number: the events before it, read as `read` does.
        let seq = read(dir)?.events.len().saturating_sub(1) as u64;
        let file = OpenOptions::new()
            .write(true)
            .open(&plain)
            .map_err(|e| StoreError::io("cannot open", &plain, e))?;
        file.set_len(line.offset)
            .and_then(|()| file.sync_all())
            .map_err(|e| StoreError::io("cannot truncate", &plain, e))?;
        return Ok(Some(StoredEvent {
            seq,
            event,
            line: piece.to_vec(),
        }));
    }
}
