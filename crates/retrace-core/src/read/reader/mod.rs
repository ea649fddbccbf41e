//! The push reader: feed it chunks of bytes, get an index of every line.
//!
//! Chunks may split lines anywhere; only the unfinished tail of a chunk is
//! copied (into `carry`), so a 1 GB file is read with memory proportional to
//! its number of entries, not its size. The browser feeds `File.slice`
//! pieces, native code feeds `read` buffers or a whole mapped file.

use std::mem::MaybeUninit;
use std::sync::Arc;

use memchr::memmem;

use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{Entry, FileId};
use crate::model::format_id::Format;
use crate::model::intern::{Interner, Sym};
use crate::read::digest::Digests;
use crate::read::fields::KeyTable;
use crate::read::file::FileInfo;
use crate::read::framing::{DocState, Framing, Head};
use crate::read::gzip::{self, GzDecoder};
use crate::read::pending::PendingIds;
use crate::read::scan::LineScan;

mod index;
mod lines;
mod document;

/// Runs two jobs, both at once where it can (see
/// [`Reader::append_part_with`]).
pub type Join<'a> = &'a dyn Fn(&mut (dyn FnMut() + Send), &mut (dyn FnMut() + Send));

/// The [`Join`] of a single thread.
pub(crate) fn one_then_other(a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
    a();
    b();
}

/// Entries of a part below which its copy is not worth a second thread.
const PARALLEL_APPEND: usize = 1 << 15;

/// Options for a [`Reader`].
#[derive(Debug, Clone, Copy)]
pub struct ReaderOptions {
    /// Longest line that is indexed; a longer one is reported and skipped.
    pub max_line: usize,
    /// Most bytes a gzip file may inflate to ([`DEFAULT_MAX_INFLATED`]): a
    /// small file that inflates past it (a gzip bomb) is read up to it and
    /// reported (`gzip-too-large`), not inflated without bound.
    pub max_inflated: u64,
    /// Read every file as this format instead of detecting it (for when
    /// detection is unsure; see [`Format::from_name`]).
    pub format: Option<Format>,
}

/// The default of [`ReaderOptions::max_inflated`]: 4 GiB. Four times the
/// largest sessions measured (1 GB), far below what a gzip bomb inflates
/// to (deflate reaches about 1,000:1: a 10 MB file can claim 10 GB).
pub const DEFAULT_MAX_INFLATED: u64 = 4 << 30;

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            max_line: 256 << 20,
            max_inflated: DEFAULT_MAX_INFLATED,
            format: None,
        }
    }
}

/// Reads one or more session files pushed in chunks into a [`Session`](crate::Session).
///
/// ```
/// use retrace_core::Reader;
/// let mut reader = Reader::new();
/// reader.begin_file("s.jsonl");
/// reader.push(b"{\"type\":\"session\",\"version\":3,\"id\":\"x\"}\n{\"type\":\"mess");
/// reader.push(b"age\",\"id\":\"a1\",\"parentId\":null}\n");
/// reader.end_file();
/// let session = reader.finish();
/// assert_eq!(session.entries().len(), 2);
/// ```
///
/// Its constructors ([`Reader::new`], [`Reader::with_options`]) and
/// [`Reader::finish`] live with the session (`session/build.rs`): they know
/// every format, and this layer knows none.
#[derive(Debug)]
pub struct Reader {
    pub(crate) options: ReaderOptions,
    /// The keys to lift into entries: every format's (see `read/fields.rs`).
    table: &'static KeyTable,
    pub(crate) files: Vec<FileInfo>,
    pub(crate) entries: Vec<Entry>,
    pub(crate) interner: Interner,
    /// Fingerprints of the values formats asked for (a Codex payload).
    pub(crate) digests: Digests,
    /// Ids of the last entry, interned when the next one is read.
    pending: PendingIds,
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// Snapshot side-cars attached to files: (file, the side-car's name,
    /// its bytes), read when the session is built.
    pub(crate) snapshots: Vec<(FileId, String, Vec<u8>)>,
    current: Option<FileState>,
    /// The unfinished last line of the previous chunk.
    carry: Vec<u8>,
    /// Skipping the rest of a line that exceeded `max_line`.
    skipping: bool,
    pub(crate) scan: LineScan,
    finders: Finders,
    /// JSON lines or one document (see `framing.rs`).
    pub(crate) framing: Framing,
    pub(crate) head: Head,
    pub(crate) doc: DocState,
}

#[derive(Debug)]
pub(crate) struct FileState {
    id: FileId,
    /// The first bytes, until there are enough to tell gzip from text.
    sniff: Option<Vec<u8>>,
    /// Set when the file is gzip: its input is inflated before framing.
    gzip: Option<Box<GzState>>,
    /// Bytes pushed (compressed ones for gzip).
    input: u64,
    /// The size hint: bytes the file brings from where this reader began
    /// it, counting parts appended later (0: unknown).
    expected: u64,
    /// Offset of the next line's first byte.
    offset: u64,
    /// Lines completed so far.
    lines: u32,
    crlf: u32,
}

/// A gzip file being inflated.
#[derive(Debug, Default)]
struct GzState {
    decoder: GzDecoder,
    checkpoints: Vec<GzDecoder>,
    /// The inflater's output buffer.
    out: Vec<u8>,
    /// A broken stream: the rest of the input is ignored.
    failed: bool,
}

/// Byte patterns the reader looks for inside values.
#[derive(Debug)]
struct Finders {
    tool_result: memmem::Finder<'static>,
    is_error: memmem::Finder<'static>,
}

impl Default for Finders {
    fn default() -> Self {
        Finders {
            tool_result: memmem::Finder::new(b"\"tool_result\""),
            is_error: memmem::Finder::new(b"\"is_error\":true"),
        }
    }
}

impl Reader {
    /// A reader that lifts the keys of `table` into its entries.
    pub(crate) fn with_keys(options: ReaderOptions, table: &'static KeyTable) -> Reader {
        Reader {
            options,
            table,
            files: Vec::new(),
            entries: Vec::new(),
            interner: Interner::default(),
            digests: Digests::default(),
            pending: PendingIds::default(),
            diagnostics: Vec::new(),
            snapshots: Vec::new(),
            current: None,
            carry: Vec::new(),
            skipping: false,
            scan: LineScan::default(),
            finders: Finders::default(),
            framing: Framing::default(),
            head: Head::default(),
            doc: DocState::default(),
        }
    }

    /// Starts a new input file; `name` is how diagnostics and views refer to it
    /// (a path, or a file name in the browser). Ends the previous file if one
    /// is open.
    ///
    /// # Panics
    /// If [`FileId::LIMIT`] files were begun already.
    pub fn begin_file(&mut self, name: &str) -> FileId {
        self.end_file();
        let id = u16::try_from(self.files.len())
            .map(FileId)
            .expect("a session holds at most FileId::LIMIT files");
        self.files.push(FileInfo {
            name: name.to_owned(),
            size: 0,
            lines: 0,
            first_entry: self.entries.len() as u32,
            end_entry: self.entries.len() as u32,
            line_ends_with_newline: true,
            meta: None,
            gzip: None,
            document: None,
            part_start: 0,
            sniff: Default::default(),
        });
        self.framing = Framing::Head;
        self.current = Some(FileState {
            id,
            sniff: Some(Vec::new()),
            gzip: None,
            input: 0,
            expected: 0,
            offset: 0,
            lines: 0,
            crlf: 0,
        });
        id
    }

    /// Starts reading a later part of a file, from byte `offset` (which must
    /// be the start of a line), so that several readers can index one large
    /// file in parallel. Line numbers count from the part's start until
    /// [`Reader::append_part`] puts the part after the one before it.
    ///
    /// A part is not sampled for format detection: only the first part is,
    /// so it must hold the whole sample (its first 8 lines that are not
    /// blank, or 64 KiB) for the parts to be detected as one pass detects
    /// the file. `retrace-io` splits only files of 32 MiB or more, whose
    /// first part is far longer.
    pub fn begin_part(&mut self, name: &str, offset: u64) -> FileId {
        let id = self.begin_file(name);
        // Parts are split at line starts of plain text: JSON lines.
        self.current_mut().sniff = None;
        self.framing = Framing::Lines;
        self.current_mut().offset = offset;
        self.files[id.0 as usize].part_start = offset;
        id
    }

    /// Appends `part`, a reader that read the bytes right after the ones this
    /// reader has read of its current file (see [`Reader::begin_part`]).
    ///
    /// # Panics
    /// If this reader has no open file, stopped in the middle of a line, or
    /// `part` read a different stretch of bytes than the one that follows.
    pub fn append_part(&mut self, part: Reader) {
        self.append_part_with(part, &one_then_other);
    }

    /// [`Reader::append_part`], with the copy of the part's index split in
    /// two jobs that `join` runs, both at once where it can. The copy goes
    /// into fresh memory, which costs a page fault per 4 KiB besides, and
    /// for a large part it is the longest step after the parallel read.
    /// The core starts no threads: the store passes a `join` that does.
    ///
    /// # Panics
    /// As [`Reader::append_part`]; and if `join` returns without having run
    /// both jobs.
    pub fn append_part_with(&mut self, mut part: Reader, join: Join<'_>) {
        if self.framing == Framing::Head {
            // A part follows, so the file is JSON lines.
            self.apply_head(Framing::Lines);
        }
        let state = self
            .current
            .as_ref()
            .expect("append_part needs an open file");
        let part_state = part.current.take().expect("the part has an open file");
        assert!(
            self.carry.is_empty() && !self.skipping,
            "parts must be split at line starts"
        );
        let start = part.files[part_state.id.0 as usize].part_start;
        assert_eq!(start, state.offset, "parts must be contiguous");
        self.append_index(&mut part, part_state, join);
    }

    /// Moves what `part` indexed (entries, strings, diagnostics, position)
    /// after what this reader read of its current file.
    #[allow(unsafe_code)] // the copy into uninitialised room, in two jobs
    pub(crate) fn append_index(
        &mut self,
        part: &mut Reader,
        part_state: FileState,
        join: Join<'_>,
    ) {
        self.resolve_pending();
        part.resolve_pending();
        let state = self.current.as_ref().expect("an open file");
        let (file, line_base) = (state.id, state.lines);
        // Re-intern the part's strings into this reader's table.
        let map = self.interner.merge(&part.interner);
        let remap = |s: Sym| if s.is_none() { s } else { map[s.index()] };
        let moved = |e: &Entry| Entry {
            file,
            line: e.line + line_base,
            kind: remap(e.kind),
            subtype: remap(e.subtype),
            id: remap(e.id),
            parent: remap(e.parent),
            reference: remap(e.reference),
            role: remap(e.role),
            group: remap(e.group),
            agent: remap(e.agent),
            ..e.clone()
        };
        let n = part.entries.len();
        self.entries.reserve(n);
        let len = self.entries.len();
        let half = n / 2;
        let (to_a, to_b) = self.entries.spare_capacity_mut()[..n].split_at_mut(half);
        let (from_a, from_b) = part.entries.split_at(half);
        let copy = |to: &mut [MaybeUninit<Entry>], from: &[Entry]| {
            for (slot, e) in to.iter_mut().zip(from) {
                slot.write(moved(e));
            }
        };
        let (mut done_a, mut done_b) = (false, false);
        let mut a = || {
            copy(&mut *to_a, from_a);
            done_a = true;
        };
        let mut b = || {
            copy(&mut *to_b, from_b);
            done_b = true;
        };
        if n >= PARALLEL_APPEND {
            join(&mut a, &mut b);
        } else {
            one_then_other(&mut a, &mut b);
        }
        assert!(
            done_a && done_b,
            "append_part_with: `join` must run both jobs"
        );
        // SAFETY: the `n` slots after `len` are initialised: the two halves
        // cover them, and both jobs ran to their end (checked above; a job
        // that panics never gets here).
        unsafe { self.entries.set_len(len + n) };
        part.entries.clear();
        self.digests.append(&mut part.digests, len);
        for mut d in part.diagnostics.drain(..) {
            d.file = file;
            d.line += line_base;
            self.diagnostics.push(d);
        }
        let state = self.current.as_mut().expect("checked above");
        state.offset = part_state.offset;
        state.lines += part_state.lines;
        state.crlf += part_state.crlf;
        self.carry = std::mem::take(&mut part.carry);
        self.skipping = part.skipping;
    }

    /// The state of the file being read, taken out of a part reader.
    pub(crate) fn take_part_state(&mut self) -> (FileState, u64) {
        let state = self.current.take().expect("the part has an open file");
        let start = self.files[state.id.0 as usize].part_start;
        (state, start)
    }

    /// Attaches a side-car JSON document to a file (a Claude Code subagent's
    /// `agent-*.meta.json`).
    pub fn attach_meta(&mut self, file: FileId, json: &[u8]) {
        if let Some(info) = self.files.get_mut(file.0 as usize) {
            info.meta = serde_json::from_slice(json).ok();
        }
    }

    /// Attaches a file's snapshot side-car (`{file}.snapshots.json`, see
    /// `snapshot_side_car`), read under `name`: its bookmarks are resolved
    /// when the session is built, and what is wrong with it becomes a
    /// diagnostic of the file (see `Session::bookmarks`).
    pub fn attach_snapshots(&mut self, file: FileId, name: &str, json: &[u8]) {
        self.snapshots.push((file, name.to_owned(), json.to_vec()));
    }

    /// Feeds the next bytes of the current file.
    ///
    /// # Panics
    /// If no file was begun.
    pub fn push(&mut self, chunk: &[u8]) {
        let state = self
            .current
            .as_mut()
            .expect("Reader::push before begin_file");
        state.input += chunk.len() as u64;
        if let Some(sniff) = &mut state.sniff {
            // gzip is told by its magic bytes, whatever the file's name.
            if sniff.is_empty() && chunk.len() >= 2 {
                state.sniff = None;
                if chunk[..2] == gzip::MAGIC {
                    state.gzip = Some(Box::default());
                }
            } else {
                sniff.extend_from_slice(chunk);
                if sniff.len() < 2 {
                    return;
                }
                let first = state.sniff.take().expect("checked");
                if first[..2] == gzip::MAGIC {
                    state.gzip = Some(Box::default());
                }
                return self.push_input(&first);
            }
        }
        self.push_input(chunk);
    }

    fn push_input(&mut self, chunk: &[u8]) {
        let state = self.current.as_mut().expect("file begun");
        let Some(mut gz) = state.gzip.take() else {
            return self.push_text(chunk);
        };
        if !gz.failed {
            let GzState {
                decoder,
                checkpoints,
                out,
                ..
            } = &mut *gz;
            // One byte past the limit tells a stream that stops at it from
            // one that goes on; no byte past it is framed.
            let max = self.options.max_inflated;
            let mut room = max.saturating_sub(decoder.out_pos());
            let result = decoder.feed(
                chunk,
                out,
                max.saturating_add(1),
                Some(checkpoints),
                &mut |bytes| {
                    let take = (bytes.len() as u64).min(room) as usize;
                    room -= take as u64;
                    if take > 0 {
                        self.push_text(&bytes[..take]);
                    }
                },
            );
            if let Err(e) = result {
                gz.failed = true;
                self.gzip_error(e);
            } else if gz.decoder.out_pos() > max {
                gz.failed = true;
                let at = gz.decoder.in_pos();
                self.gzip_too_large(max, at);
            }
        }
        self.current_mut().gzip = Some(gz);
    }

    /// Reports a broken gzip stream where its decompressed output stopped.
    fn gzip_error(&mut self, e: gzip::GzError) {
        let state = self.current.as_ref().expect("file begun");
        let (kind, severity) = match e.kind {
            gzip::GzErrorKind::Corrupt => (DiagnosticKind::GzipCorrupt, Severity::Error),
            gzip::GzErrorKind::Truncated => (DiagnosticKind::GzipTruncated, Severity::Error),
        };
        self.diagnostics.push(Diagnostic {
            severity,
            kind,
            file: state.id,
            line: state.lines + 1,
            offset: state.offset + self.carry.len() as u64,
            message: format!(
                "{} at compressed byte {}; nothing after it could be read",
                e.message, e.at
            ),
        });
    }

    /// Reports a gzip stream that inflates past `max` bytes: read up to
    /// there, the rest left alone.
    fn gzip_too_large(&mut self, max: u64, at: u64) {
        let state = self.current.as_ref().expect("file begun");
        self.diagnostics.push(Diagnostic {
            severity: Severity::Error,
            kind: DiagnosticKind::GzipTooLarge,
            file: state.id,
            line: state.lines + 1,
            offset: state.offset + self.carry.len() as u64,
            message: format!(
                "the file inflates past the {} limit (--max-inflated) at compressed byte {at}: \
                 a gzip bomb, or a session larger than the limit; what came before is read, \
                 nothing after it (raise --max-inflated to read it whole)",
                byte_size(max)
            ),
        });
    }

    /// Frames decompressed (or plain) bytes: into lines, or, for a file
    /// that is one JSON document, into its elements (`framing.rs`).
    fn push_text(&mut self, chunk: &[u8]) {
        if self.framing != Framing::Lines {
            return self.push_framed(chunk);
        }
        self.push_lines(chunk);
    }

    fn current_mut(&mut self) -> &mut FileState {
        self.current.as_mut().expect("file begun")
    }

    /// The index of the file being read.
    pub(crate) fn current_file(&self) -> usize {
        self.current.as_ref().expect("file begun").id.0 as usize
    }

    pub(crate) fn max_line(&self) -> usize {
        self.options.max_line
    }

    /// The next byte's offset and the lines completed before it.
    pub(crate) fn position(&self) -> (u64, u32) {
        let state = self.current.as_ref().expect("file begun");
        (state.offset, state.lines)
    }

    /// Whether no line is waiting for its end.
    pub(crate) fn line_is_finished(&self) -> bool {
        self.carry.is_empty() && !self.skipping
    }

    /// Sets where the current file is: the next byte's offset and the
    /// number of lines completed before it.
    pub(crate) fn set_position(&mut self, offset: u64, lines: u32) {
        let state = self.current_mut();
        state.offset = offset;
        state.lines = lines;
    }

    /// Ends the current file. A last line without a newline is indexed here.
    pub fn end_file(&mut self) {
        let Some(state) = &mut self.current else {
            return;
        };
        if let Some(first) = state.sniff.take() {
            // A file shorter than two bytes.
            self.push_input(&first);
        }
        let state = self.current.as_mut().expect("checked");
        let gzip =
            state.gzip.take().map(|mut gz| {
                if !gz.failed {
                    if let Err(e) = gz.decoder.finish() {
                        self.gzip_error(e);
                    }
                }
                if let Some((count, at, zeros)) = gz.decoder.trailing() {
                    let state = self.current.as_ref().expect("file begun");
                    self.diagnostics.push(Diagnostic {
                        severity: if zeros {
                            Severity::Info
                        } else {
                            Severity::Warning
                        },
                        kind: DiagnosticKind::GzipTrailingData,
                        file: state.id,
                        line: state.lines + 1,
                        offset: state.offset + self.carry.len() as u64,
                        message: format!(
                        "{count} {} after the last gzip member (from compressed byte {at}) ignored",
                        if zeros { "zero bytes" } else { "bytes that are not gzip" }
                    ),
                    });
                }
                let input = self.current.as_ref().expect("file begun").input;
                Arc::new(gzip::GzIndex {
                    checkpoints: std::mem::take(&mut gz.checkpoints),
                    compressed_size: input,
                })
            });
        self.end_framed();
        if self.skipping || !self.carry.is_empty() {
            self.finish_carried_line(false);
            if let Some(info) = self.files.last_mut() {
                info.line_ends_with_newline = false;
            }
        }
        self.resolve_pending();
        let state = self.current.take().expect("checked above");
        if state.crlf > 0 {
            self.diagnostics.push(Diagnostic {
                severity: Severity::Info,
                kind: DiagnosticKind::CrlfLineEndings,
                file: state.id,
                line: 1,
                offset: 0,
                message: format!("{} lines end in CRLF (kept as written)", state.crlf),
            });
        }
        let info = &mut self.files[state.id.0 as usize];
        info.gzip = gzip;
        info.size = state.offset;
        info.lines = state.lines;
        info.end_entry = self.entries.len() as u32;
    }

    /// Says how many bytes the current file brings from where this reader
    /// began it, counting the parts that will be appended to it (see
    /// [`Reader::append_part`]); for a part reader, the part's length.
    ///
    /// Only a hint: once a sample of the file has been read, the index is
    /// sized for the whole of it at the density seen so far, in one step,
    /// instead of growing a quarter at a time. Each growth copies the
    /// index, and copying into fresh memory costs a page fault per page
    /// besides; with room made in advance, appending a part copies only
    /// the part's entries.
    pub fn size_hint(&mut self, bytes: u64) {
        if let Some(state) = &mut self.current {
            state.expected = bytes;
        }
    }
}

/// A byte count as people read limits: `4 GiB`, `300 MiB`, `1000 bytes`.
pub fn byte_size(n: u64) -> String {
    const UNITS: [(u64, &str); 4] = [
        (1 << 40, "TiB"),
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
    ];
    for (unit, name) in UNITS {
        if n >= unit && n.is_multiple_of(unit) {
            return format!("{} {name}", n / unit);
        }
    }
    format!("{n} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::entry::EntryId;
    use crate::Session;

    /// `count` pi-style lines of about `width` bytes, ids from `first`.
    fn lines(first: usize, count: usize, width: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for i in first..first + count {
            let head = format!(
                r#"{{"type":"message","id":"e{i}","parentId":"e{}","text":""#,
                i.max(1) - 1
            );
            out.extend_from_slice(head.as_bytes());
            out.resize(out.len() + width.saturating_sub(head.len() + 3), b'x');
            out.extend_from_slice(b"\"}\n");
        }
        out
    }

    /// Reads `bytes` in 64 KiB pushes; the capacity of the index before
    /// the session is built, and the session.
    fn read(bytes: &[u8], hint: Option<u64>) -> (usize, Session) {
        let mut reader = Reader::new();
        reader.begin_file("x.jsonl");
        if let Some(hint) = hint {
            reader.size_hint(hint);
        }
        for chunk in bytes.chunks(64 << 10) {
            reader.push(chunk);
        }
        reader.end_file();
        (reader.entries.capacity(), reader.finish())
    }

    /// The first line start after `at`.
    fn line_start_after(bytes: &[u8], at: usize) -> usize {
        at + memchr::memchr(b'\n', &bytes[at..]).expect("a later line") + 1
    }

    /// `bytes` read by a reader up to `split` (a line start) and by a part
    /// reader from there, not yet joined.
    fn two_parts(bytes: &[u8], split: usize) -> (Reader, Reader) {
        let mut first = Reader::new();
        first.begin_file("x.jsonl");
        first.push(&bytes[..split]);
        let mut part = Reader::new();
        part.begin_part("x.jsonl", split as u64);
        part.push(&bytes[split..]);
        (first, part)
    }

    /// Codex payloads are fingerprinted beside the entries; a part's
    /// fingerprints land on the entries they belong to.
    #[test]
    fn payload_digests_survive_a_split() {
        let mut bytes = Vec::new();
        for i in 0..40 {
            bytes.extend_from_slice(
                format!(
                    "{{\"timestamp\":\"2026-03-01T09:00:00.000Z\",\"type\":\"event_msg\",\"payload\":{{\"type\":\"agent_message\",\"message\":\"{}\"}}}}\n",
                    "x".repeat(i * 13)
                )
                .as_bytes(),
            );
            // Lines without a payload have no fingerprint.
            bytes.extend_from_slice(b"{\"type\":\"message\"}\n");
        }
        let mut whole = Reader::new();
        whole.begin_file("x.jsonl");
        whole.push(&bytes);
        assert_eq!(whole.digests.get(79), 0);
        let distinct: std::collections::HashSet<u32> =
            (0..80).step_by(2).map(|e| whole.digests.get(e)).collect();
        assert!(!distinct.contains(&0));
        assert_eq!(distinct.len(), 40);
        let (mut first, part) = two_parts(&bytes, line_start_after(&bytes, bytes.len() / 2));
        first.append_part(part);
        assert_eq!(first.digests, whole.digests);
    }

    /// Ids Codex writes inside values: a sub-agent's parent in its
    /// `source` object, a spawned agent's id in a tool output that is a
    /// JSON string (with or without blanks), never an id with escapes or
    /// one further into a long output.
    #[test]
    fn ids_inside_codex_values() {
        let lines = [
            r#"{"type":"session_meta","payload":{"id":"s","source":{"subagent":{"thread_spawn":{"parent_thread_id":"p1","depth":1}}}}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"{\"agent_id\":\"a1\",\"nickname\":\"N\"}"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c2","output":"{ \"agent_id\" : \"a2\" }"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c3","output":"{\"agent_id\":\"a\\u0033\"}"}}"#,
            r#"{"type":"response_item","payload":{"type":"function_call_output","call_id":"c4","output":"{\"status\":{},\"agent_id\":\"a4\"}"}}"#,
            r#"{"type":"session_meta","payload":{"id":"t","source":{"parent_thread_id":"p2"},"parent_thread_id":"p3"}}"#,
        ];
        let s = Session::from_bytes("x.jsonl", lines.join("\n").as_bytes());
        let slot = |e: usize, of: fn(&Entry) -> Sym| s.interner.get(of(&s.entries()[e])).to_vec();
        let agents: Vec<Vec<u8>> = (0..6).map(|e| slot(e, |x| x.agent)).collect();
        let want: [&[u8]; 6] = [b"p1", b"a1", b"a2", b"", b"", b"p3"];
        assert_eq!(agents, want);
        // Call ids are not indexed (see `format/codex.rs`).
        assert_eq!(slot(1, |x| x.reference), b"");
    }

    fn same_index(a: &Session, b: &Session) {
        assert_eq!(a.entries().len(), b.entries().len());
        for (x, y) in a.entries().iter().zip(b.entries()) {
            assert_eq!((x.line, x.offset, x.len), (y.line, y.offset, y.len));
            assert_eq!((x.kind, x.id, x.parent), (y.kind, y.id, y.parent));
        }
        assert_eq!(a.diagnostics(), b.diagnostics());
        assert_eq!(a.tree().tips(), b.tree().tips());
    }

    /// Ids are interned a line late (`PendingIds`): each way a reading
    /// ends or joins must still give every entry its own ids.
    #[test]
    fn ids_interned_a_line_late_land_on_their_entries() {
        let check = |session: &Session, want: &[(&str, Option<&str>)]| {
            let got: Vec<(&str, Option<&str>)> = (0..session.entries().len())
                .map(|i| {
                    let e = EntryId(i as u32);
                    let parent = session.interner.get(session.entry(e).parent);
                    (
                        session.id(e).unwrap_or("-"),
                        (!parent.is_empty()).then(|| std::str::from_utf8(parent).unwrap()),
                    )
                })
                .collect();
            assert_eq!(got, want);
        };
        // Two objects on one line, and a last line without its newline.
        let text = concat!(
            r#"{"type":"session","version":3,"id":"s"}"#,
            "\n",
            r#"{"type":"message","id":"a","parentId":null} {"type":"message","id":"b","parentId":"a"}"#,
            "\n",
            r#"{"type":"message","id":"c","parentId":"b"}"#,
            "\n",
            r#"{"type":"message","id":"d","parentId":"c"}"#,
        );
        let want = [
            ("s", None),
            ("a", None),
            ("b", Some("a")),
            ("c", Some("b")),
            ("d", Some("c")),
        ];
        let one_pass = Session::from_bytes("x.jsonl", text.as_bytes());
        check(&one_pass, &want);
        // The same lines read as two parts: the first reader's last ids and
        // the part's last complete line's are both pending when they are
        // joined.
        let split = text.find("{\"type\":\"message\",\"id\":\"c\"").unwrap();
        let (mut first, part) = two_parts(text.as_bytes(), split);
        first.append_part(part);
        let parts = first.finish();
        check(&parts, &want);
        // Down to the symbols: strings are numbered as one pass numbers them.
        same_index(&one_pass, &parts);
        // A parent key repeated on a line, its second value the one just seen
        // (interned at once in one pass, pending in a part that starts on
        // that line): the last value wins, and strings are numbered alike.
        let text = concat!(
            r#"{"type":"session","version":3,"id":"s"}"#,
            "\n",
            r#"{"type":"message","id":"a","parentId":null}"#,
            "\n",
            r#"{"type":"message","id":"b","parentId":"x","parentId":"a"}"#,
            "\n",
            r#"{"type":"message","id":"c","parentId":"b"}"#,
            "\n",
        );
        let want = [("s", None), ("a", None), ("b", Some("a")), ("c", Some("b"))];
        let one_pass = Session::from_bytes("x.jsonl", text.as_bytes());
        check(&one_pass, &want);
        let split = text.find("{\"type\":\"message\",\"id\":\"b\"").unwrap();
        let (mut first, part) = two_parts(text.as_bytes(), split);
        first.append_part(part);
        let parts = first.finish();
        check(&parts, &want);
        same_index(&one_pass, &parts);
        // A JSON document's elements, ended by the document's end.
        let doc = r#"{"sessionId":"d","messages":[{"id":"m1","type":"user","content":"hi"},{"id":"m2","type":"gemini","content":"yo"}]}"#;
        let session = Session::from_bytes("d.json", doc.as_bytes());
        let ids: Vec<_> = (0..session.entries().len())
            .map(|i| session.id(EntryId(i as u32)))
            .collect();
        assert_eq!(ids, [Some("m1"), Some("m2")]);
    }

    /// A part large enough for its copy to be split in two jobs: whichever
    /// order `join` runs them in, the index is the one a single pass gives.
    #[test]
    fn a_part_appended_in_two_jobs_equals_one_pass() {
        let bytes = lines(0, 3 * PARALLEL_APPEND, 60);
        let (_, one_pass) = read(&bytes, None);
        let (mut first, part) = two_parts(&bytes, line_start_after(&bytes, bytes.len() / 3));
        assert!(part.entries.len() >= PARALLEL_APPEND);
        let joined = std::cell::Cell::new(false);
        first.append_part_with(part, &|a, b| {
            b();
            a();
            joined.set(true);
        });
        assert!(joined.get());
        let parts = first.finish();
        same_index(&one_pass, &parts);
        for (x, y) in one_pass.entries().iter().zip(parts.entries()) {
            assert_eq!((x.file, x.line, x.timestamp), (y.file, y.line, y.timestamp));
        }
    }

    /// A `join` that skips a job is a bug in the caller, reported as one:
    /// the index never holds entries that were not written.
    #[test]
    #[should_panic(expected = "must run both jobs")]
    fn a_join_that_skips_a_job_panics() {
        let bytes = lines(0, 3 * PARALLEL_APPEND, 60);
        let (mut first, part) = two_parts(&bytes, line_start_after(&bytes, bytes.len() / 2));
        first.append_part_with(part, &|a, _| a());
    }

    #[test]
    fn an_entry_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Entry>(), 64);
    }

    #[test]
    fn size_hint_reserves_the_file_once_it_has_a_sample() {
        let bytes = lines(0, 6000, 500);
        let (plain_cap, plain) = read(&bytes, None);
        let (cap, hinted) = read(&bytes, Some(bytes.len() as u64));
        same_index(&plain, &hinted);
        let n = hinted.entries().len();
        assert_eq!(n, 6000);
        // One step from the first growth after the sample: room for the
        // whole file and a sixteenth, where a quarter at a time overshoots.
        let room = n + n / 16 + 1024;
        assert!(cap >= n && cap <= room + n / 100, "{cap} for {n}");
        assert!(plain_cap > room + n / 100, "{plain_cap} without the hint");
    }

    #[test]
    fn a_size_hint_beyond_memory_falls_back_to_growing() {
        // 2^50 bytes at this density is more room than any system maps.
        let bytes = lines(0, 6000, 500);
        let (_, plain) = read(&bytes, None);
        let (cap, hinted) = read(&bytes, Some(1 << 50));
        same_index(&plain, &hinted);
        assert!(cap < 1 << 20, "{cap}");
    }

    #[test]
    fn size_hint_from_a_dense_start_is_capped_and_changes_nothing() {
        // Tiny objects first, then long lines: the density of the sample
        // overstates the file fourfold, and the reservation stops at 32
        // bytes per entry of the hinted size.
        let mut bytes = b"{\"n\":1}\n".repeat(200_000);
        let first = bytes.len();
        bytes.extend(lines(0, 4000, 8000));
        let hint = bytes.len() as u64;
        let (_, plain) = read(&bytes, None);
        let (cap, hinted) = read(&bytes, Some(hint));
        same_index(&plain, &hinted);
        assert!(first > 1 << 20, "the sample is all short lines");
        let cap_limit = (hint / 32) as usize;
        assert!(
            cap <= cap_limit + cap_limit / 16 + 1024,
            "{cap} > {cap_limit}"
        );
    }
}
