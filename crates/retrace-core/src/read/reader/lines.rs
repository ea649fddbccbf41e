//! The JSON-lines path: bytes framed into lines (only the unfinished last
//! line of a chunk is copied), each line scanned and indexed.

use memchr::{memchr, memchr_iter};

use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{Entry, Flags};
use crate::read::scan::{scan_line, ScanError};

use super::Reader;

impl Reader {
    /// Frames bytes into lines.
    pub(crate) fn push_lines(&mut self, chunk: &[u8]) {
        let mut rest = chunk;
        if self.skipping || !self.carry.is_empty() {
            match memchr(b'\n', rest) {
                None => {
                    self.extend_carry(rest);
                    return;
                }
                Some(i) => {
                    self.extend_carry(&rest[..i]);
                    self.finish_carried_line(true);
                    rest = &rest[i + 1..];
                }
            }
        }
        let mut start = 0;
        for nl in memchr_iter(b'\n', rest) {
            self.line(&rest[start..nl], 1);
            start = nl + 1;
        }
        self.extend_carry(&rest[start..]);
    }

    fn extend_carry(&mut self, bytes: &[u8]) {
        if self.skipping {
            self.current_mut().offset += bytes.len() as u64;
            return;
        }
        if self.carry.len() + bytes.len() > self.options.max_line {
            // Too long to index: report it once and skip to its end.
            let state = self.current.as_ref().expect("file begun");
            let (file, line, offset) = (state.id, state.lines + 1, state.offset);
            let max = self.options.max_line;
            let d = Diagnostic::line_too_long(file, line, offset, "line", max);
            self.diagnostics.push(d);
            let carried = self.carry.len() + bytes.len();
            self.carry.clear();
            self.current_mut().offset += carried as u64;
            self.skipping = true;
            return;
        }
        self.carry.extend_from_slice(bytes);
    }

    pub(super) fn finish_carried_line(&mut self, newline: bool) {
        if self.skipping {
            self.skipping = false;
            let state = self.current_mut();
            state.lines += 1;
            state.offset += u64::from(newline);
            return;
        }
        let carry = std::mem::take(&mut self.carry);
        self.line(&carry, u32::from(newline));
        self.carry = carry;
        self.carry.clear();
    }

    /// Indexes one line; `terminator` is the number of newline bytes after it.
    fn line(&mut self, raw: &[u8], terminator: u32) {
        let state = self.current.as_mut().expect("file begun");
        let file = state.id;
        state.lines += 1;
        let line_no = state.lines;
        let line_offset = state.offset;
        state.offset += raw.len() as u64 + u64::from(terminator);
        if raw.len() > self.options.max_line {
            // As a line carried over chunks is (`extend_carry`): the same
            // index however the bytes were chunked (found by the `read`
            // fuzz target).
            let max = self.options.max_line;
            let d = Diagnostic::line_too_long(file, line_no, line_offset, "line", max);
            self.diagnostics.push(d);
            return;
        }

        let mut bytes = raw;
        let mut skip = 0u32;
        if line_offset == 0 && bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes = &bytes[3..];
            skip = 3;
            self.diagnostics.push(Diagnostic {
                severity: Severity::Info,
                kind: DiagnosticKind::ByteOrderMark,
                file,
                line: 1,
                offset: 0,
                message: "file starts with a UTF-8 byte order mark (ignored)".into(),
            });
        }
        if let Some(stripped) = bytes.strip_suffix(b"\r") {
            bytes = stripped;
            state.crlf += 1;
        }
        if bytes.iter().all(|b| matches!(b, b' ' | b'\t')) {
            return;
        }
        scan_line(bytes, &mut self.scan);
        let base = line_offset + u64::from(skip);
        if let Some((at, error)) = self.scan.error {
            let truncated = terminator == 0
                && matches!(error, ScanError::Unclosed | ScanError::UnterminatedString);
            let (kind, message) = if truncated {
                (
                    DiagnosticKind::TruncatedLine,
                    format!("last line is cut off: {}", error.message()),
                )
            } else {
                (DiagnosticKind::MalformedJson, error.message().to_owned())
            };
            self.diagnostics.push(Diagnostic {
                severity: Severity::Error,
                kind,
                file,
                line: line_no,
                offset: base + u64::from(at),
                message,
            });
            let broken = Entry::new(file, line_no, base, bytes.len() as u32, Flags::BROKEN);
            self.push_entry(broken);
            return;
        }
        let objects = self.scan.objects.len();
        if objects > 1 {
            self.diagnostics.push(Diagnostic {
                severity: Severity::Warning,
                kind: DiagnosticKind::ConcatenatedObjects,
                file,
                line: line_no,
                offset: base + u64::from(self.scan.objects[1].start),
                message: format!(
                    "{objects} JSON objects written on one line (a lost newline); each is read"
                ),
            });
        }
        for object in 0..objects {
            let entry = self.entry(file, line_no, base, bytes, object as u16);
            self.push_entry(entry);
        }
    }
}
