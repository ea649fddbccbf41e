//! How a file's bytes become entries: as JSON lines, or as the elements of
//! one JSON document. Decided from the first bytes of each file, and the
//! first entries sampled for format detection.
//!
//! The reader holds a file's first bytes in a small head buffer until it
//! can decide (see [`Reader::head_decision`]): a `[` as the first non-blank
//! byte, or a first line that opens an object without closing it (a
//! pretty-printed document), means a document, unless the next line is a
//! whole object of its own (JSON lines whose first line was cut short); a
//! first line that is a whole object holding a `messages` array, with
//! nothing after it, is a document on one line; anything else is JSON
//! lines. The head is then replayed
//! through the chosen path, so the decision never depends on how the input
//! was chunked, and the JSON-lines path is untouched once it runs.

use std::ops::Range;

use memchr::memchr_iter;

use crate::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::document::{
    DocEvent, Document, DocumentField, DocumentFramer, ElementStarts, FRAMED_KEYS,
};
use crate::entry::{Entry, Flags};
use crate::format::sniff::Sniff;
use crate::reader::Reader;
use crate::scan::{scan_line, LineScan, ScanError, ValueKind};

/// How the current file is being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Framing {
    /// Not decided yet: bytes wait in the head buffer.
    #[default]
    Head,
    /// One JSON object per line.
    Lines,
    /// One JSON document.
    Document,
}

/// Entries sampled for format detection: at most this many…
const SAMPLE_ENTRIES: usize = 8;
/// …from at most this many bytes of JSON lines…
const SAMPLE_BYTES: usize = 64 << 10;
/// …each at most this long.
const SAMPLE_ENTRY_MAX: usize = 1 << 20;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The first bytes of a file, held until its framing is decided.
#[derive(Debug, Default)]
pub(crate) struct Head {
    buf: Vec<u8>,
    /// Complete lines in `buf`, without their `\n`.
    lines: Vec<Range<usize>>,
    /// Start of the unfinished line in `buf`.
    line_start: usize,
}

/// What the reader keeps about a document being read.
#[derive(Debug, Default)]
pub(crate) struct DocState {
    framer: Option<Box<DocumentFramer>>,
    sample: Vec<serde_json::Value>,
    last_byte: Option<u8>,
    /// Entries made before the document ended; more after it are JSON lines
    /// that followed it.
    entries_at_end: Option<usize>,
    /// Where the document ended.
    end: Option<u64>,
    /// For a part begun inside the document: the depth of the framed array
    /// it assumed (see [`Reader::begin_document_part`]).
    assumed_depth: Option<u32>,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| is_ws(b))
}

/// Whether a file starting with `head` (its first bytes, as many as are at
/// hand) is one JSON document rather than JSON lines, as far as `head`
/// tells. `retrace-store` asks this before splitting a large file at line
/// starts: a document must be read in one pass.
pub fn starts_like_document(head: &[u8]) -> bool {
    let head = head.strip_prefix(BOM).unwrap_or(head);
    let Some(first) = head.iter().position(|&b| !is_ws(b)) else {
        return false;
    };
    match head[first] {
        b'[' => true,
        b'{' => {
            let rest = &head[first..];
            let Some(nl) = memchr::memchr(b'\n', rest) else {
                return false;
            };
            let line = without_cr(&rest[..nl]);
            let mut scan = crate::scan::LineScan::default();
            scan_line(line, &mut scan);
            if !matches!(scan.error, Some((_, ScanError::Unclosed))) {
                return false;
            }
            // The next non-blank line, if the head holds it whole.
            let mut after = &rest[nl + 1..];
            while let Some(nl) = memchr::memchr(b'\n', after) {
                let next = without_cr(&after[..nl]);
                if !is_blank(next) {
                    return opens_document(line, next, &mut scan);
                }
                after = &after[nl + 1..];
            }
            true
        }
        _ => false,
    }
}

fn without_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Whether a file whose first line opens an object without closing it, and
/// whose next non-blank line is `next`, is one JSON document. It is, unless
/// `next` is a whole object of its own: then the file is JSON lines and its
/// first line was cut short (a torn write), to be reported and read past.
/// A first line that ends by opening the framed array (`{"messages": [`,
/// one element on each line after it) is a document all the same.
fn opens_document(first: &[u8], next: &[u8], scan: &mut LineScan) -> bool {
    if opens_framed_array(first) {
        return true;
    }
    scan_line(next, scan);
    scan.error.is_some() || scan.objects.is_empty()
}

/// Whether `line` ends with `"messages": [` (or `contents`, `input`).
pub(crate) fn opens_framed_array(line: &[u8]) -> bool {
    let trim = |b: &[u8]| -> usize { b.iter().rposition(|&c| !is_ws(c)).map_or(0, |i| i + 1) };
    let line = &line[..trim(line)];
    let Some(line) = line.strip_suffix(b"[") else {
        return false;
    };
    let line = &line[..trim(line)];
    let Some(line) = line.strip_suffix(b":") else {
        return false;
    };
    let line = &line[..trim(line)];
    FRAMED_KEYS.iter().any(|key| {
        line.strip_suffix(b"\"")
            .and_then(|l| l.strip_suffix(*key))
            .is_some_and(|l| l.ends_with(b"\""))
    })
}

impl Reader {
    /// Feeds bytes of a file that is not (yet) read as JSON lines.
    pub(crate) fn push_framed(&mut self, chunk: &[u8]) {
        match self.framing {
            Framing::Head => self.push_head(chunk),
            Framing::Document => self.push_document(chunk),
            Framing::Lines => self.push_lines(chunk),
        }
    }

    fn push_head(&mut self, chunk: &[u8]) {
        let mut start = 0;
        for nl in memchr_iter(b'\n', chunk) {
            let head = &mut self.head;
            head.buf.extend_from_slice(&chunk[start..=nl]);
            head.lines.push(head.line_start..head.buf.len() - 1);
            head.line_start = head.buf.len();
            start = nl + 1;
            if let Some(framing) = self.head_decision(false) {
                self.apply_head(framing);
                return self.push_framed(&chunk[start..]);
            }
        }
        self.head.buf.extend_from_slice(&chunk[start..]);
        // Between newlines only two things can decide: an array document
        // (its `[` is enough) and a first line too long to be anything but
        // a reported JSON line. Deciding at newlines otherwise keeps the
        // outcome independent of chunking (and the work linear).
        let head = &self.head;
        let bytes = head.buf.strip_prefix(BOM).unwrap_or(&head.buf);
        let first = bytes.iter().find(|&&b| !is_ws(b));
        let decision = if first == Some(&b'[') {
            Some(Framing::Document)
        } else if head.buf.len() - head.line_start > self.max_line() {
            Some(Framing::Lines)
        } else {
            None
        };
        if let Some(framing) = decision {
            self.apply_head(framing);
        }
    }

    /// Decides the framing once the head tells enough; `eof` when nothing
    /// more will come.
    fn head_decision(&mut self, eof: bool) -> Option<Framing> {
        let head = &self.head;
        let bytes = head.buf.strip_prefix(BOM).unwrap_or(&head.buf);
        let skip = head.buf.len() - bytes.len();
        let Some(first) = bytes.iter().position(|&b| !is_ws(b)) else {
            return eof.then_some(Framing::Lines);
        };
        let nonblank: Vec<Range<usize>> = head
            .lines
            .iter()
            .filter(|&r| !is_blank(&head.buf[r.clone()]))
            .cloned()
            .collect();
        let sampled = nonblank.len() >= SAMPLE_ENTRIES || head.buf.len() >= SAMPLE_BYTES || eof;
        let lines = sampled.then_some(Framing::Lines);
        match bytes[first] {
            b'[' => Some(Framing::Document),
            b'{' => {
                let unterminated = head.line_start..head.buf.len();
                let (line, terminated) = match nonblank.first() {
                    Some(r) => (r.clone(), true),
                    None if eof => (unterminated, false),
                    None => return None,
                };
                let start = line.start.max(skip);
                let text = &head.buf[start..line.end];
                let text = text.strip_suffix(b"\r").unwrap_or(text);
                scan_line(text, &mut self.scan);
                match self.scan.error {
                    Some((_, ScanError::Unclosed)) if terminated => {
                        // Pretty-printed, or JSON lines whose first line
                        // was cut short: the next line tells.
                        let rest = head.line_start..head.buf.len();
                        let next = match nonblank.get(1) {
                            Some(r) => r.clone(),
                            None if eof && !is_blank(&head.buf[rest.clone()]) => rest,
                            None if sampled => return Some(Framing::Document),
                            None => return None,
                        };
                        let next = without_cr(&head.buf[next]);
                        Some(match opens_document(text, next, &mut self.scan) {
                            true => Framing::Document,
                            false => Framing::Lines,
                        })
                    }
                    Some(_) => lines,
                    None => {
                        let framed = self.scan.objects.len() == 1
                            && self.scan.fields.iter().any(|f| {
                                f.parent.is_none()
                                    && f.kind == ValueKind::Array
                                    && FRAMED_KEYS.contains(&f.key.get(text))
                            });
                        if !framed {
                            return lines;
                        }
                        // A document on one line, unless more follows.
                        let after = &self.head.buf[line.end..];
                        if nonblank.len() >= 2 || !is_blank(after) {
                            lines.or(Some(Framing::Lines))
                        } else if eof {
                            Some(Framing::Document)
                        } else {
                            None
                        }
                    }
                }
            }
            _ => lines,
        }
    }

    /// Switches to `framing` and replays the head through it.
    pub(crate) fn apply_head(&mut self, framing: Framing) {
        let head = std::mem::take(&mut self.head);
        self.framing = framing;
        match framing {
            Framing::Lines | Framing::Head => {
                self.framing = Framing::Lines;
                let values: Vec<serde_json::Value> = head
                    .lines
                    .iter()
                    .map(|r| &head.buf[r.clone()])
                    .filter(|l| !is_blank(l) && l.len() <= SAMPLE_ENTRY_MAX)
                    .take(SAMPLE_ENTRIES)
                    .filter_map(|l| {
                        let l = l.strip_prefix(BOM).unwrap_or(l);
                        serde_json::from_slice(l).ok()
                    })
                    .collect();
                let sniff = Sniff::from_values(&values);
                let file = self.current_file();
                self.files[file].sniff = sniff;
                self.push_lines(&head.buf);
            }
            Framing::Document => {
                let file = self.current_file();
                self.files[file].document = Some(Document {
                    array_key: None,
                    is_array: false,
                    fields: Vec::new(),
                    array_key_range: None,
                    complete: false,
                    end: None,
                });
                let mut bytes = head.buf.as_slice();
                let mut start = 0;
                if let Some(rest) = bytes.strip_prefix(BOM) {
                    self.diagnostics.push(Diagnostic {
                        severity: Severity::Info,
                        kind: DiagnosticKind::ByteOrderMark,
                        file: crate::entry::FileId(file as u16),
                        line: 1,
                        offset: 0,
                        message: "file starts with a UTF-8 byte order mark (ignored)".into(),
                    });
                    bytes = rest;
                    start = BOM.len() as u64;
                }
                self.doc = DocState {
                    framer: Some(Box::new(DocumentFramer::new(start, 1, self.max_line()))),
                    ..DocState::default()
                };
                self.set_position(start, 0);
                self.push_document(bytes);
            }
        }
    }

    /// Starts reading a later part of a file that is one JSON document,
    /// from byte `offset`, where `starts` found an element beginning (see
    /// [`ElementStarts`]). Lines count from the part's start until
    /// [`Reader::append_document_part`] puts it after the part before.
    pub fn begin_document_part(
        &mut self,
        name: &str,
        offset: u64,
        starts: &ElementStarts,
    ) -> crate::entry::FileId {
        let id = self.begin_part(name, offset);
        self.framing = Framing::Document;
        self.files[id.0 as usize].document = Some(Document {
            array_key: None,
            is_array: false,
            fields: Vec::new(),
            array_key_range: None,
            complete: false,
            end: None,
        });
        self.doc = DocState {
            framer: Some(Box::new(DocumentFramer::resume(
                offset,
                starts.array_depth(),
                self.max_line(),
            ))),
            assumed_depth: Some(starts.array_depth()),
            ..DocState::default()
        };
        id
    }

    /// Appends `part`, begun with [`Reader::begin_document_part`] where
    /// this reader stopped, if this reader's framer is where the part
    /// assumed: between two elements of the framed array at the same depth,
    /// outside any string. Then the part's entries, diagnostics, fields and
    /// framing state are exactly what reading on would have given, and
    /// `true` is returned. Otherwise nothing changes and `false` is
    /// returned: the caller pushes the part's bytes into this reader
    /// instead.
    pub fn append_document_part(&mut self, mut part: Reader) -> bool {
        let depth = part
            .doc
            .assumed_depth
            .expect("append_document_part takes a part begun with begin_document_part");
        let (offset, line_base) = self.position();
        let part_file = part.current_file();
        let fits = self.framing == Framing::Document
            && part.files[part_file].part_start == offset
            && self.line_is_finished()
            && self.doc.framer.as_ref().is_some_and(|f| {
                f.position().0 == offset && f.element_start_depth() == Some(depth)
            });
        if !fits {
            return false;
        }
        let entries_before = self.entries.len();
        let file = self.current_file();
        // Fields after the framed array, and whether the document closed.
        if let (Some(doc), Some(part_doc)) = (
            &mut self.files[file].document,
            part.files[part_file].document.take(),
        ) {
            doc.fields.extend(part_doc.fields.into_iter().map(|mut f| {
                f.line += line_base;
                f
            }));
            doc.complete = part_doc.complete;
            doc.end = part_doc.end;
        }
        let mut state = std::mem::take(&mut part.doc);
        if let Some(framer) = &mut state.framer {
            framer.shift_lines(line_base);
        }
        self.doc.framer = state.framer;
        self.doc.end = state.end;
        self.doc.entries_at_end = state.entries_at_end.map(|n| n + entries_before);
        self.doc.last_byte = state.last_byte.or(self.doc.last_byte);
        let room = SAMPLE_ENTRIES.saturating_sub(self.doc.sample.len());
        self.doc.sample.extend(state.sample.into_iter().take(room));
        self.framing = part.framing;
        let (part_state, _) = part.take_part_state();
        self.append_index(&mut part, part_state, &crate::reader::one_then_other);
        true
    }

    fn push_document(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let Some(mut framer) = self.doc.framer.take() else {
            // The document ended; what follows is read as JSON lines.
            return self.push_lines(bytes);
        };
        self.doc.last_byte = bytes.last().copied();
        let used = framer.feed(bytes, &mut |event| self.on_document(event));
        if framer.is_done() {
            self.doc.entries_at_end = Some(self.entries.len());
            self.framing = Framing::Lines;
            self.push_lines(&bytes[used..]);
        } else {
            let (offset, line) = framer.position();
            self.set_position(offset, line - 1);
            self.doc.framer = Some(framer);
        }
    }

    /// Ends a file whose framing is not JSON lines, or whose document
    /// ended early.
    pub(crate) fn end_framed(&mut self) {
        if self.framing == Framing::Head {
            let framing = self.head_decision(true).unwrap_or(Framing::Lines);
            self.apply_head(framing);
        }
        let file = self.current_file();
        if let Some(mut framer) = self.doc.framer.take() {
            framer.finish(&mut |event| self.on_document(event));
            let (offset, line) = framer.position();
            // A last line without a newline counts.
            let newline = self.doc.last_byte.is_none_or(|b| b == b'\n');
            self.set_position(offset, if newline { line - 1 } else { line });
            if !newline {
                self.files[file].line_ends_with_newline = false;
            }
        }
        if let Some(end) = self.doc.end {
            // The document's last line has no newline and nothing followed
            // it: the lines path never saw it, so count it here.
            if self.position().0 == end
                && self.doc.last_byte != Some(b'\n')
                && self.line_is_finished()
            {
                let (offset, lines) = self.position();
                self.set_position(offset, lines + 1);
                self.files[file].line_ends_with_newline = false;
            }
        }
        if let Some(at) = self.doc.entries_at_end.take() {
            if let Some(e) = self.entries.get(at) {
                let e = e.clone();
                self.diagnostics.push(Diagnostic::at(
                    &e,
                    Severity::Warning,
                    DiagnosticKind::MalformedJson,
                    format!(
                        "{} entries follow the end of the JSON document; read as JSON lines",
                        self.entries.len() - at
                    ),
                ));
            }
        }
        if let Some(doc) = &self.files[file].document {
            if let Some(id) = doc.field("sessionId").and_then(|f| f.parsed.as_ref()) {
                self.files[file].sniff.session_id = id.as_str().map(str::to_owned);
            }
        }
        if !self.doc.sample.is_empty() {
            let mut sniff = Sniff::from_values(&self.doc.sample);
            sniff.session_id = sniff
                .session_id
                .or(self.files[file].sniff.session_id.take());
            self.files[file].sniff = sniff;
        }
        self.doc = DocState::default();
        self.head = Head::default();
    }

    /// Handles what the document framer found.
    fn on_document(&mut self, event: DocEvent) {
        let file_index = self.current_file();
        let file = crate::entry::FileId(file_index as u16);
        match event {
            DocEvent::Element {
                bytes,
                offset,
                line,
                complete,
                scanned,
            } => self.document_element(bytes, offset, line, complete, scanned),
            DocEvent::ElementTooLong { offset, line } => {
                let max = self.max_line();
                self.diagnostics.push(Diagnostic {
                    severity: Severity::Error,
                    kind: DiagnosticKind::LineTooLong,
                    file,
                    line,
                    offset,
                    message: format!(
                        "array element is longer than {max} bytes and was not indexed"
                    ),
                });
            }
            DocEvent::Field {
                key,
                key_offset,
                value,
                line,
                bytes,
            } => {
                let key = String::from_utf8_lossy(key).into_owned();
                let parsed = match bytes {
                    Some(b) => match serde_json::from_slice(b) {
                        Ok(v) => Some(v),
                        Err(e) => {
                            self.diagnostics.push(Diagnostic {
                                severity: Severity::Error,
                                kind: DiagnosticKind::MalformedJson,
                                file,
                                line,
                                offset: value.start,
                                message: format!(
                                    "top-level field \"{key}\" is not valid JSON: {e}"
                                ),
                            });
                            None
                        }
                    },
                    None => None,
                };
                if let Some(doc) = &mut self.files[file_index].document {
                    doc.fields.push(DocumentField {
                        key,
                        range: key_offset..value.end,
                        value,
                        line,
                        parsed,
                    });
                }
            }
            DocEvent::ArrayOpen { key } => {
                if let Some(doc) = &mut self.files[file_index].document {
                    match key {
                        None => doc.is_array = true,
                        Some((key, range)) => {
                            doc.array_key = Some(String::from_utf8_lossy(key).into_owned());
                            doc.array_key_range = Some(range);
                        }
                    }
                }
            }
            DocEvent::Problem {
                offset,
                line,
                message,
            } => self.diagnostics.push(Diagnostic {
                severity: Severity::Error,
                kind: DiagnosticKind::MalformedJson,
                file,
                line,
                offset,
                message: message.into(),
            }),
            DocEvent::Unclosed { offset, line } => self.diagnostics.push(Diagnostic {
                severity: Severity::Error,
                kind: DiagnosticKind::TruncatedLine,
                file,
                line,
                offset,
                message: "file ends before the JSON document is closed (truncated?)".into(),
            }),
            DocEvent::End { end, line } => {
                if let Some(doc) = &mut self.files[file_index].document {
                    doc.complete = true;
                    doc.end = Some(end);
                }
                // What follows is read as JSON lines, from the document's
                // last line on.
                self.doc.end = Some(end);
                self.set_position(end, line.saturating_sub(1));
            }
        }
    }

    /// Indexes one element of the framed array as an entry.
    fn document_element(
        &mut self,
        bytes: &[u8],
        offset: u64,
        line: u32,
        complete: bool,
        scanned: Option<&mut LineScan>,
    ) {
        let file = crate::entry::FileId(self.current_file() as u16);
        let broken = |reader: &mut Reader, at: usize, kind, message: String| {
            let line_of_error =
                line + memchr_iter(b'\n', &bytes[..at.min(bytes.len())]).count() as u32;
            reader.diagnostics.push(Diagnostic {
                severity: Severity::Error,
                kind,
                file,
                line: line_of_error,
                offset: offset + at as u64,
                message,
            });
            reader.entries.push(Entry::new(
                file,
                line,
                offset,
                bytes.len() as u32,
                Flags::BROKEN,
            ));
        };
        if !complete {
            return broken(
                self,
                bytes.len(),
                DiagnosticKind::TruncatedLine,
                "file ends inside this array element (truncated?)".into(),
            );
        }
        match scanned {
            // The framer's scan buffers come back to it with the next one.
            Some(scan) => std::mem::swap(&mut self.scan, scan),
            None => scan_line(bytes, &mut self.scan),
        }
        if let Some((at, error)) = self.scan.error {
            let message = match error {
                ScanError::NotAnObject => "array element is not a JSON object".to_owned(),
                other => format!("array element: {}", other.message()),
            };
            return broken(self, at as usize, DiagnosticKind::MalformedJson, message);
        }
        let entry = self.entry(file, line, offset, bytes, 0);
        self.push_entry(entry);
        if self.doc.sample.len() < SAMPLE_ENTRIES && bytes.len() <= SAMPLE_ENTRY_MAX {
            if let Ok(v) = serde_json::from_slice(bytes) {
                self.doc.sample.push(v);
            }
        }
    }
}
