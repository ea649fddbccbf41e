//! How a file's bytes become entries: as JSON lines, or as the elements of
//! one JSON document. Decided from the first bytes of each file, and the
//! first entries sampled for format detection.
//!
//! The reader holds a file's first bytes in a small head buffer until it
//! can decide (see [`Head::decide`]): a `[` as the first non-blank
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

use crate::read::document::{DocumentFramer, FRAMED_KEYS};
use crate::read::scan::{scan_line, LineScan, ScanError, ValueKind};

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
pub(crate) const SAMPLE_ENTRIES: usize = 8;
/// …from at most this many bytes of JSON lines…
const SAMPLE_BYTES: usize = 64 << 10;
/// …each at most this long.
pub(crate) const SAMPLE_ENTRY_MAX: usize = 1 << 20;

pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

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
    pub(crate) framer: Option<Box<DocumentFramer>>,
    pub(crate) sample: Vec<serde_json::Value>,
    pub(crate) last_byte: Option<u8>,
    /// Entries made before the document ended; more after it are JSON lines
    /// that followed it.
    pub(crate) entries_at_end: Option<usize>,
    /// Where the document ended.
    pub(crate) end: Option<u64>,
    /// For a part begun inside the document: the depth of the framed array
    /// it assumed (see [`Reader::begin_document_part`](crate::Reader::begin_document_part)).
    pub(crate) assumed_depth: Option<u32>,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| is_ws(b))
}

/// Whether a file starting with `head` (its first bytes, as many as are at
/// hand) is one JSON document rather than JSON lines, as far as `head`
/// tells. `retrace-io` asks this before splitting a large file at line
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
            let mut scan = crate::read::scan::LineScan::default();
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

impl Head {
    /// Takes a complete line, its `\n` included.
    fn push_line(&mut self, line: &[u8]) {
        self.buf.extend_from_slice(line);
        self.lines.push(self.line_start..self.buf.len() - 1);
        self.line_start = self.buf.len();
    }

    /// Takes bytes of a line not finished yet.
    fn push_partial(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Everything held, as it came.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.buf
    }

    /// Feeds a chunk into the head until its framing is decided; returns
    /// the decision and how much of `chunk` was taken (the rest goes down
    /// the chosen path after the head is replayed).
    pub(crate) fn push(
        &mut self,
        chunk: &[u8],
        max_line: usize,
        scan: &mut LineScan,
    ) -> Option<(Framing, usize)> {
        let mut start = 0;
        for nl in memchr_iter(b'\n', chunk) {
            let line_start = self.line_start;
            self.push_line(&chunk[start..=nl]);
            start = nl + 1;
            // A line too long decides at its newline as it would have
            // decided partway had a chunk ended inside it: the same
            // framing in any chunking.
            if self.line_start - 1 - line_start > max_line && !self.opens_array() {
                return Some((Framing::Lines, start));
            }
            if let Some(framing) = self.decide(false, scan) {
                return Some((framing, start));
            }
        }
        self.push_partial(&chunk[start..]);
        // Between newlines only two things can decide: an array document
        // (its `[` is enough) and a line too long to be anything but a
        // reported JSON line (checked at newlines too, above). Deciding at
        // newlines otherwise keeps the outcome independent of chunking
        // (and the work linear).
        // Blanks alone decide nothing: the first byte that is not one may
        // still be a `[` (as a whole line's check at its newline sees).
        let decision = match self.first_nonblank() {
            Some(b'[') => Some(Framing::Document),
            Some(_) if self.buf.len() - self.line_start > max_line => Some(Framing::Lines),
            _ => None,
        };
        decision.map(|framing| (framing, chunk.len()))
    }

    /// Whether the first byte held that is not a blank (after a BOM) is
    /// `[`: an array document, whatever its lines' lengths.
    fn opens_array(&self) -> bool {
        self.first_nonblank() == Some(b'[')
    }

    /// The first byte held that is not a blank (after a BOM), if any.
    fn first_nonblank(&self) -> Option<u8> {
        let bytes = self.buf.strip_prefix(BOM).unwrap_or(&self.buf);
        bytes.iter().copied().find(|&b| !is_ws(b))
    }

    /// The first entries of JSON lines, parsed, for format detection. A
    /// line over `max_line` is skipped, not indexed, so it is not sampled
    /// either: a head cut partway through it (a chunk ending inside) never
    /// holds it whole, and the format must not depend on the chunking.
    pub(crate) fn sample(&self, max_line: usize) -> Vec<serde_json::Value> {
        self.lines
            .iter()
            .map(|r| &self.buf[r.clone()])
            .filter(|l| !is_blank(l) && l.len() <= SAMPLE_ENTRY_MAX && l.len() <= max_line)
            .take(SAMPLE_ENTRIES)
            .filter_map(|l| {
                let l = l.strip_prefix(BOM).unwrap_or(l);
                serde_json::from_slice(l).ok()
            })
            .collect()
    }

    /// Decides the framing once the head tells enough; `eof` when nothing
    /// more will come.
    pub(crate) fn decide(&self, eof: bool, scan: &mut LineScan) -> Option<Framing> {
        let head = self;
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
                scan_line(text, scan);
                match scan.error {
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
                        Some(match opens_document(text, next, scan) {
                            true => Framing::Document,
                            false => Framing::Lines,
                        })
                    }
                    Some(_) => lines,
                    None => {
                        let framed = scan.objects.len() == 1
                            && scan.fields.iter().any(|f| {
                                f.parent.is_none()
                                    && f.kind == ValueKind::Array
                                    && FRAMED_KEYS.contains(&f.key.get(text))
                            });
                        if !framed {
                            return lines;
                        }
                        // A document on one line, unless more follows.
                        let after = &self.buf[line.end..];
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
}
