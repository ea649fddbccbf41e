//! The path of a file that is not (yet) read as JSON lines: its first bytes
//! held until the framing is decided (see `read/framing.rs`), then either
//! replayed as JSON lines or fed to the document framer, whose elements,
//! fields and problems become entries, document fields and diagnostics.

use memchr::memchr_iter;

use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{Entry, FileId, Flags};
use crate::read::document::{DocEvent, Document, DocumentField, DocumentFramer, ElementStarts};
use crate::read::framing::{DocState, Framing, Head, BOM, SAMPLE_ENTRIES, SAMPLE_ENTRY_MAX};
use crate::read::scan::{scan_line, LineScan, ScanError};
use crate::read::sniff::Sniff;

use super::Reader;

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
        let max_line = self.max_line();
        if let Some((framing, used)) = self.head.push(chunk, max_line, &mut self.scan) {
            self.apply_head(framing);
            self.push_framed(&chunk[used..]);
        }
    }

    /// Switches to `framing` and replays the head through it.
    pub(crate) fn apply_head(&mut self, framing: Framing) {
        let head = std::mem::take(&mut self.head);
        self.framing = framing;
        match framing {
            Framing::Lines | Framing::Head => {
                self.framing = Framing::Lines;
                let values = head.sample(self.max_line());
                let sniff = Sniff::from_values(&values);
                let file = self.current_file();
                self.files[file].sniff = sniff;
                self.push_lines(head.bytes());
            }
            Framing::Document => {
                let file = self.current_file();
                self.files[file].document = Some(Document::opened());
                let mut bytes = head.bytes();
                let mut start = 0;
                if let Some(rest) = bytes.strip_prefix(BOM) {
                    self.diagnostics.push(Diagnostic {
                        severity: Severity::Info,
                        kind: DiagnosticKind::ByteOrderMark,
                        file: FileId(file as u16),
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
    ) -> FileId {
        let id = self.begin_part(name, offset);
        self.framing = Framing::Document;
        self.files[id.0 as usize].document = Some(Document::opened());
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
        self.append_index(&mut part, part_state, &super::one_then_other);
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
            let framing = self
                .head
                .decide(true, &mut self.scan)
                .unwrap_or(Framing::Lines);
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
        let file = FileId(file_index as u16);
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
                let d = Diagnostic::line_too_long(file, line, offset, "array element", max);
                self.diagnostics.push(d);
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
        let file = FileId(self.current_file() as u16);
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
