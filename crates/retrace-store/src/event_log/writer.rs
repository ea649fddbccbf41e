//! The appender: whole lines, one `write` per batch, rotation between
//! events.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use retrace_core::part_file_name;

use super::{gzip, parts, sync_dir};
use crate::error::{StoreError, StoreResult};
use crate::store::{EncodedEvent, EventSink, LogOptions};

/// Appends events to a session's log in a folder: to the last part, and
/// from the part on which would pass [`LogOptions::rotate_bytes`] to a new
/// one (`events_N.jsonl`). An event is never split across parts; an event
/// larger than the limit goes alone into a part. Rotation creates the new
/// part; the old part and the folder are synced beside the writer, and a
/// [`EventSink::sync`] waits for them, so everything before a sync is
/// durable, whichever parts it is in.
pub struct Appender {
    dir: PathBuf,
    options: LogOptions,
    /// The part written to, its path, its file and its length.
    part: u32,
    path: PathBuf,
    file: File,
    size: u64,
    /// Whether bytes were written since the last `fdatasync`.
    unsynced: bool,
    /// The batch's lines, joined for one `write`.
    buf: Vec<u8>,
    /// How long each rotation held the writer.
    pauses: Vec<Duration>,
    /// Rotations whose syncs run in the background, waited for by the
    /// next `sync` (so a sync still covers every event before it).
    syncing: Vec<Receiver<StoreResult<()>>>,
    /// Rotated parts' threads (syncs, then gzip if asked).
    rotated: Vec<JoinHandle<()>>,
}

impl Appender {
    /// Opens the log in `dir` (which must exist) for appending, after the
    /// last part's last line; creates `events.jsonl` in an empty folder.
    /// Call it after `repair`, which cuts a torn last line.
    pub fn open(dir: &Path, options: &LogOptions) -> StoreResult<Appender> {
        let parts = parts(dir)?;
        // A last part already gzipped (after a pop emptied the one after
        // it) is complete: continue in a new part.
        let (part, fresh) = match parts.last() {
            None => (0, true),
            Some(p) if p.plain.is_none() => (p.n + 1, true),
            Some(p) => (p.n, false),
        };
        let path = dir.join(part_file_name(part));
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|e| StoreError::io("cannot open for appending", &path, e))?;
        if fresh {
            sync_dir(dir)?;
        }
        let size = file
            .metadata()
            .map_err(|e| StoreError::io("cannot stat", &path, e))?
            .len();
        if size > 0 && last_byte(&path, size)? != b'\n' {
            // Appending would glue the next event to the torn line: both
            // would be lost to the reader.
            return Err(StoreError::Corrupt {
                path: path.display().to_string(),
                reason: "the last line has no newline (a write cut off by a crash); repair the \
                         log before appending (opening a Recorder does)"
                    .to_owned(),
            });
        }
        Ok(Appender {
            dir: dir.to_path_buf(),
            options: options.clone(),
            part,
            path,
            file,
            size,
            unsynced: false,
            buf: Vec::new(),
            pauses: Vec::new(),
            syncing: Vec::new(),
            rotated: Vec::new(),
        })
    }

    /// The number of the part written to (0 for `events.jsonl`).
    pub fn part(&self) -> u32 {
        self.part
    }

    /// The length of the part written to, in bytes.
    pub fn part_len(&self) -> u64 {
        self.size
    }

    /// How long each rotation so far held the writer (the creation of the
    /// new part; the old part and the folder are synced beside it).
    pub fn rotation_pauses(&self) -> &[Duration] {
        &self.pauses
    }

    /// Writes the joined lines in one `write` (more only if the system
    /// writes part of them). On failure the part is cut back to its last
    /// whole line, so no half event stays behind.
    fn write_buf(&mut self) -> StoreResult<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        if let Err(e) = self.file.write_all(&self.buf) {
            let _ = self.file.set_len(self.size);
            self.buf.clear();
            return Err(StoreError::io("cannot write", &self.path, e));
        }
        self.size += self.buf.len() as u64;
        self.unsynced = true;
        self.buf.clear();
        Ok(())
    }

    /// Continues in the next part. Only the new part's creation holds the
    /// writer: the old part's `fdatasync` (up to a part of dirty pages in
    /// buffered mode) and the folder's `fsync` (which on ext4 waits for
    /// the journal, hence for those pages too) run on another thread,
    /// tens of milliseconds otherwise. The next [`EventSink::sync`] waits
    /// for them, so a sync still makes every event before it durable, the
    /// new part's name included.
    fn rotate(&mut self) -> StoreResult<()> {
        let start = Instant::now();
        let next = self.part + 1;
        let path = self.dir.join(part_file_name(next));
        // `create_new`: a part that exists already would mean two writers
        // or a folder changed behind the appender's back.
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| StoreError::io("cannot create the next part", &path, e))?;
        let old = self.part;
        let old_file = std::mem::replace(&mut self.file, file);
        let old_path = std::mem::replace(&mut self.path, path);
        self.part = next;
        self.size = 0;
        let unsynced = std::mem::take(&mut self.unsynced);
        let (synced, sync_result) = mpsc::channel();
        self.syncing.push(sync_result);
        let dir = self.dir.clone();
        let gzip = self.options.gzip_rotated;
        self.rotated.retain(|h| !h.is_finished());
        self.rotated.push(std::thread::spawn(move || {
            let result = match unsynced {
                true => old_file
                    .sync_data()
                    .map_err(|e| StoreError::io("cannot sync", &old_path, e)),
                false => Ok(()),
            };
            let result = result.and_then(|()| sync_dir(&dir));
            let ok = result.is_ok();
            let _ = synced.send(result);
            // Compressing 100 MB takes seconds: here, off the writer. A
            // failure leaves the plain part, which reads as before.
            if gzip && ok {
                if let Err(e) = gzip::compress(&dir, old) {
                    log::warn!("{e}; the part stays uncompressed");
                }
            }
        }));
        self.pauses.push(start.elapsed());
        Ok(())
    }

    /// Waits for the rotated parts' syncs; the first error, if any.
    fn join_syncs(&mut self) -> StoreResult<()> {
        let mut first = Ok(());
        for result in self.syncing.drain(..) {
            let result = result.recv().unwrap_or_else(|_| {
                Err(StoreError::io(
                    "cannot sync",
                    &self.dir,
                    std::io::Error::other("the sync thread ended early"),
                ))
            });
            if first.is_ok() {
                first = result;
            }
        }
        first
    }
}

/// The byte at `len - 1` of `path`.
fn last_byte(path: &Path, len: u64) -> StoreResult<u8> {
    use std::io::{Read, Seek, SeekFrom};
    let mut byte = [0u8];
    File::open(path)
        .and_then(|mut f| {
            f.seek(SeekFrom::Start(len - 1))?;
            f.read_exact(&mut byte)
        })
        .map_err(|e| StoreError::io("cannot read", path, e))?;
    Ok(byte[0])
}

impl EventSink for Appender {
    fn append(&mut self, batch: &[EncodedEvent]) -> StoreResult<()> {
        self.buf.clear();
        for event in batch {
            if event.line.last() != Some(&b'\n') {
                return Err(StoreError::Corrupt {
                    path: self.path.display().to_string(),
                    reason: format!(
                        "a {} event to append does not end in a newline; nothing of this batch \
                         was written",
                        event.event_type.as_str()
                    ),
                });
            }
        }
        for event in batch {
            let pending = self.size + self.buf.len() as u64;
            if pending > 0 && pending + event.line.len() as u64 > self.options.rotate_bytes {
                self.write_buf()?;
                self.rotate()?;
            }
            self.buf.extend_from_slice(&event.line);
        }
        self.write_buf()
    }

    fn sync(&mut self) -> StoreResult<()> {
        self.join_syncs()?;
        if self.unsynced {
            self.file
                .sync_data()
                .map_err(|e| StoreError::io("cannot sync", &self.path, e))?;
            self.unsynced = false;
        }
        Ok(())
    }
}

impl Drop for Appender {
    /// Waits for the rotated parts' syncs and gzips, so a process that
    /// closes its log and exits leaves them done.
    fn drop(&mut self) {
        if let Err(e) = self.join_syncs() {
            log::warn!("{e}");
        }
        for h in self.rotated.drain(..) {
            let _ = h.join();
        }
    }
}
