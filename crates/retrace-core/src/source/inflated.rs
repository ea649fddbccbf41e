//! Bodies of gzip files: the decompressed bytes of a range, inflated from
//! the compressed bytes by restarting at the nearest checkpoint the reader
//! kept (see `read/gzip.rs`), or by going on from the last read.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use crate::model::entry::FileId;
use crate::read::file::FileInfo;
use crate::read::gzip::{GzDecoder, GzIndex, CHECKPOINT_EVERY};

use super::{Source, SourceError};

/// Bytes kept before the decoder's position, so reads that step back a
/// little (the start of a line) need no restart.
const KEEP: usize = 1 << 20;

/// Compressed bytes read from the inner source at a time.
const IN_CHUNK: u64 = 16 << 10;

/// Where reading a gzip file stopped: its decoder and the decompressed
/// bytes just before it.
struct Cursor {
    file: FileId,
    decoder: GzDecoder,
    /// Decompressed bytes `window_start..decoder.out_pos`.
    window: Vec<u8>,
    window_start: u64,
}

/// A [`Source`] over the decompressed bytes of a session's files: gzip
/// files (those with a [`GzIndex`]) are inflated from the compressed bytes
/// `inner` gives; other files pass through.
pub struct Inflated<S> {
    inner: S,
    indexes: Vec<Option<Arc<GzIndex>>>,
    cursor: Option<Cursor>,
    out: Vec<u8>,
}

impl<S: Source> Inflated<S> {
    /// `inner` gives the bytes of `files` (a session's, in order) as they
    /// are on disk.
    pub fn new(inner: S, files: &[FileInfo]) -> Inflated<S> {
        Inflated {
            inner,
            indexes: files.iter().map(|f| f.gzip.clone()).collect(),
            cursor: None,
            out: Vec::new(),
        }
    }

    /// The source of the files' bytes as they are on disk.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S: Source> Source for Inflated<S> {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        let Some(index) = self.indexes.get(file.0 as usize).cloned().flatten() else {
            return self.inner.read(file, range);
        };
        // Go on from the last read when it stopped at or before this range
        // (not far before), else restart from a checkpoint.
        let usable = self.cursor.as_ref().is_some_and(|c| {
            c.file == file
                && c.window_start <= range.start
                && range.start <= c.decoder.out_pos() + CHECKPOINT_EVERY
        });
        if !usable {
            let decoder = index.before(range.start);
            self.cursor = Some(Cursor {
                file,
                window_start: decoder.out_pos(),
                window: Vec::new(),
                decoder,
            });
        }
        let cursor = self.cursor.as_mut().expect("set above");
        // Drop what no read will ask for again.
        let keep_from = range
            .start
            .min(cursor.decoder.out_pos().saturating_sub(KEEP as u64));
        if keep_from > cursor.window_start {
            let drop = (keep_from - cursor.window_start) as usize;
            cursor.window.drain(..drop.min(cursor.window.len()));
            cursor.window_start = keep_from;
        }
        while cursor.decoder.out_pos() < range.end {
            let at = cursor.decoder.in_pos();
            if at >= index.compressed_size {
                return Err(SourceError::new(
                    file,
                    range,
                    "range is past the end of the decompressed data",
                ));
            }
            let end = (at + IN_CHUNK).min(index.compressed_size);
            let input = self.inner.read(file, at..end)?;
            let (window, window_start) = (&mut cursor.window, &mut cursor.window_start);
            let start = range.start;
            let mut sink = |bytes: &[u8]| {
                window.extend_from_slice(bytes);
                // Skipping forward to the range: keep only the tail.
                let end = *window_start + window.len() as u64;
                let floor = start.min(end.saturating_sub(KEEP as u64));
                if window.len() > 4 * KEEP && floor > *window_start {
                    let drop = (floor - *window_start) as usize;
                    window.drain(..drop);
                    *window_start = floor;
                }
            };
            cursor
                .decoder
                .feed(&input, &mut self.out, range.end, None, &mut sink)
                .map_err(|e| {
                    SourceError::new(
                        file,
                        range.clone(),
                        format!("{} at compressed byte {}", e.message, e.at),
                    )
                })?;
            if cursor.decoder.in_pos() == at && cursor.decoder.out_pos() < range.end {
                let what = match cursor.decoder.clone().finish() {
                    Err(e) => e.message,
                    Ok(()) => "the gzip stream ends before this range".to_owned(),
                };
                return Err(SourceError::new(file, range, what));
            }
        }
        let from = (range.start - cursor.window_start) as usize;
        let to = (range.end - cursor.window_start) as usize;
        Ok(Cow::Borrowed(&cursor.window[from..to]))
    }
}
