//! Whole-document framing: a file that is one JSON document (an array, or
//! an object with a `messages` array, possibly pretty-printed over many
//! lines) split into its elements as the bytes stream in.
//!
//! [`DocumentFramer`] is a state machine over chunks of any size. It tracks
//! strings, escapes and bracket depth, and the grammar of the top one or two
//! levels (the outer array or object and the framed array); everything
//! deeper is the element's business, checked by the structural scanner when
//! the element is complete. It hands out [`DocEvent`]s: each element with its
//! byte range and first line, each other top-level field with its range, and
//! the problems it saw. Only the element (or short field value) being read
//! is buffered, never the document.

use std::ops::Range;

use memchr::{memchr, memchr_iter};
use serde::Serialize;

use crate::read::scan::{follow_container, scan_object_ahead, LineScan};

/// Keys of an object document whose array value is framed into entries:
/// `messages` (Anthropic and OpenAI request bodies, Gemini CLI sessions),
/// `contents` (Google), `input` (OpenAI Responses). The first one wins.
pub(crate) const FRAMED_KEYS: &[&[u8]] = &[b"messages", b"contents", b"input"];

/// Field values up to this size are kept in memory (metadata such as
/// `sessionId`, a `system` prompt); longer ones only by range.
const SHORT_VALUE: usize = 64 << 10;

/// A file read as one JSON document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Document {
    /// The key of the framed array when the document is an object
    /// (`messages`); `None` when the document is itself the array, or an
    /// object without one.
    pub array_key: Option<String>,
    /// Whether the document is an array (else an object).
    pub is_array: bool,
    /// The top-level fields other than the framed array, in file order.
    pub fields: Vec<DocumentField>,
    /// The bytes of the framed array's key (`"messages"`, with quotes).
    pub array_key_range: Option<Range<u64>>,
    /// False when the file ends before the document closes.
    pub complete: bool,
    /// Where it closes: the byte after its last bracket (`None` unless
    /// `complete`). JSON lines may follow.
    pub end: Option<u64>,
}

impl Document {
    /// A document whose framing was just decided: nothing of it read yet.
    pub(crate) fn opened() -> Document {
        Document {
            array_key: None,
            is_array: false,
            fields: Vec::new(),
            array_key_range: None,
            complete: false,
            end: None,
        }
    }

    /// The top-level field `key`.
    pub fn field(&self, key: &str) -> Option<&DocumentField> {
        self.fields.iter().find(|f| f.key == key)
    }
}

/// A top-level field of an object document, other than the framed array.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DocumentField {
    /// The key as written (escapes left as they are).
    pub key: String,
    /// From the key's opening quote to the value's last byte.
    pub range: Range<u64>,
    /// The value's bytes.
    pub value: Range<u64>,
    /// 1-based line of the key.
    pub line: u32,
    /// The value, parsed, when it is short (see `SHORT_VALUE`) and valid.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parsed: Option<serde_json::Value>,
}

/// What the framer found.
#[derive(Debug)]
pub(crate) enum DocEvent<'a> {
    /// An element of the framed array. `complete` is false when the input
    /// ended inside it.
    Element {
        bytes: &'a [u8],
        offset: u64,
        line: u32,
        complete: bool,
        /// The element already scanned, as `scan_line` would scan `bytes`
        /// (the framer found its end that way); take it rather than scan
        /// again.
        scanned: Option<&'a mut LineScan>,
    },
    /// An element longer than the limit: reported, not indexed.
    ElementTooLong { offset: u64, line: u32 },
    /// A top-level field of an object document. `value` holds its bytes
    /// when they are short.
    Field {
        key: &'a [u8],
        key_offset: u64,
        value: Range<u64>,
        line: u32,
        bytes: Option<&'a [u8]>,
    },
    /// The framed array opens; `key` is its key's range in an object.
    ArrayOpen { key: Option<(&'a [u8], Range<u64>)> },
    /// The grammar of the outer levels is broken here.
    Problem {
        offset: u64,
        line: u32,
        message: &'static str,
    },
    /// The input ended before the document closed.
    Unclosed { offset: u64, line: u32 },
    /// The document closed; bytes from `end` on are not part of it.
    End { end: u64, line: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the outer bracket.
    Start,
    /// Object document, at a key (after `{` or `,`).
    ExpectKey,
    /// Inside a key string.
    Key,
    /// After a key, before its colon.
    Colon,
    /// After a colon, before the value.
    ValueStart,
    /// Inside a field value (up to the `,` or `}` that ends it).
    Value,
    /// Object document, after the framed array.
    AfterArray,
    /// In the framed array, where an element may start.
    ExpectElement,
    /// Inside an element.
    Element,
    /// In the framed array, after an element.
    AfterElement,
    /// The document closed.
    Done,
}

/// The kind of element being read, which decides where it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ElementKind {
    Container,
    String,
    Scalar,
}

/// Splits one JSON document into the elements of its framed array.
#[derive(Debug)]
pub(crate) struct DocumentFramer {
    /// Offset of the next byte fed.
    offset: u64,
    /// Line of the next byte fed (1-based).
    line: u32,
    state: State,
    depth: u32,
    in_string: bool,
    /// The last byte fed was a backslash inside a string.
    escape: bool,
    /// Depth inside the framed array (1 for an array document, 2 for an
    /// object's `messages`).
    array_depth: u32,
    framed: bool,
    after_comma: bool,
    element_kind: ElementKind,
    element: Vec<u8>,
    element_offset: u64,
    element_line: u32,
    /// The element outgrew `max`; it is skipped to its end.
    skipping: bool,
    key: Vec<u8>,
    key_offset: u64,
    key_line: u32,
    value: Vec<u8>,
    value_offset: u64,
    /// Offset just past the last non-blank byte of the value so far.
    value_end: u64,
    /// The value outgrew `SHORT_VALUE`: only its range is kept.
    value_too_long: bool,
    max: usize,
    /// An element scanned while finding its end, handed out with it.
    scan: LineScan,
    /// `scan` holds the element being ended.
    scanned: bool,
}

/// How many backslashes end `bytes`.
fn backslashes_before(bytes: &[u8]) -> usize {
    bytes.iter().rev().take_while(|&&b| b == b'\\').count()
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

impl DocumentFramer {
    /// A framer for a document starting at `offset` on line `line`, with
    /// elements of at most `max` bytes.
    pub fn new(offset: u64, line: u32, max: usize) -> DocumentFramer {
        DocumentFramer {
            offset,
            line,
            state: State::Start,
            depth: 0,
            in_string: false,
            escape: false,
            array_depth: 0,
            framed: false,
            after_comma: false,
            element_kind: ElementKind::Scalar,
            element: Vec::new(),
            element_offset: 0,
            element_line: 0,
            skipping: false,
            key: Vec::new(),
            key_offset: 0,
            key_line: 0,
            value: Vec::new(),
            value_offset: 0,
            value_end: 0,
            value_too_long: false,
            max,
            scan: LineScan::default(),
            scanned: false,
        }
    }

    /// A framer for the rest of a document from `offset`, where an element
    /// of its framed array (at `array_depth`) begins after a comma: what a
    /// framer that read the document from its start is like there when
    /// [`DocumentFramer::element_start_depth`] says so. Lines count from 1
    /// at `offset` (see [`DocumentFramer::shift_lines`]).
    pub fn resume(offset: u64, array_depth: u32, max: usize) -> DocumentFramer {
        DocumentFramer {
            state: State::ExpectElement,
            depth: array_depth,
            array_depth,
            framed: true,
            after_comma: true,
            ..DocumentFramer::new(offset, 1, max)
        }
    }

    /// The depth of the framed array when the next byte is where an element
    /// may begin after a comma, outside any string: then this framer and
    /// one made by [`DocumentFramer::resume`] at this offset and depth
    /// frame what follows the same way. Everything else the framer holds
    /// is set afresh when an element, key or value starts.
    pub fn element_start_depth(&self) -> Option<u32> {
        let at_start = self.state == State::ExpectElement
            && self.after_comma
            && self.framed
            && !self.in_string
            && !self.escape
            && self.depth == self.array_depth;
        at_start.then_some(self.array_depth)
    }

    /// Adds `lines` to every line number held (a part that counted its
    /// lines from 1, put after the lines before it).
    pub fn shift_lines(&mut self, lines: u32) {
        self.line += lines;
        self.element_line += lines;
        self.key_line += lines;
    }

    /// Whether the document has closed.
    pub fn is_done(&self) -> bool {
        self.state == State::Done
    }

    /// The offset and line of the next byte to be fed.
    pub fn position(&self) -> (u64, u32) {
        (self.offset, self.line)
    }

    /// Feeds the next bytes; returns how many were part of the document
    /// (all of them unless it closed inside `bytes`).
    pub fn feed(&mut self, bytes: &[u8], out: &mut impl FnMut(DocEvent)) -> usize {
        let mut lines = LineCounter {
            base: self.line,
            counted: 0,
        };
        let mut i = 0;
        // Where the element or value being read started in `bytes`.
        let mut copy_from = 0;
        if self.escape && !bytes.is_empty() {
            // The byte a backslash at the end of the last chunk escaped.
            self.escape = false;
            if self.state == State::Key {
                self.key.push(bytes[0]);
            }
            i = 1;
        }
        // Backslashes before this never escape anything in this chunk.
        let floor = i;
        // Where the block-wise follower may be tried again after it left a
        // block to the byte-wise loop.
        let mut follow_from = i;
        while i < bytes.len() {
            if self.state == State::Done {
                break;
            }
            if self.state == State::Element
                && self.element_kind == ElementKind::Container
                && i >= follow_from
                && bytes.len() - i > 64
            {
                // The body of an element: strings and brackets only, a
                // block at a time. The chunk's last byte is left to the
                // loop below, which notes a backslash that escapes the
                // next chunk's first byte.
                lines.at(bytes, i);
                let f = follow_container(
                    &bytes[..bytes.len() - 1],
                    i,
                    &mut self.depth,
                    self.array_depth,
                    &mut self.in_string,
                );
                lines.skip(f.at, f.newlines);
                if f.closed {
                    let at = self.offset + f.at as u64;
                    self.end_element(bytes, copy_from, f.at + 1, at + 1, out);
                    i = f.at + 1;
                } else {
                    i = f.at;
                    follow_from = f.at + 64;
                }
                continue;
            }
            if self.in_string {
                // The closing quote: the next `"` after an even run of
                // backslashes (escapes are rare next to quotes, so this
                // stops far less often than at every backslash).
                let from = i;
                let mut closing = None;
                while let Some(k) = memchr(b'"', &bytes[i..]) {
                    let q = i + k;
                    let run = backslashes_before(&bytes[floor..q]);
                    if run.is_multiple_of(2) {
                        closing = Some(q);
                        break;
                    }
                    i = q + 1;
                }
                let Some(q) = closing else {
                    if self.state == State::Key {
                        self.key.extend_from_slice(&bytes[from..]);
                    }
                    // An odd run of backslashes at the end escapes the
                    // first byte of the next chunk. (The run cannot go back
                    // past the string's opening quote, which may be in this
                    // chunk or, after the block-wise follower, well before
                    // `from`.)
                    self.escape = !backslashes_before(&bytes[floor..]).is_multiple_of(2);
                    i = bytes.len();
                    break;
                };
                if self.state == State::Key {
                    self.key.extend_from_slice(&bytes[from..q]);
                }
                i = q;
                self.in_string = false;
                let at = self.offset + i as u64;
                match self.state {
                    State::Key => self.state = State::Colon,
                    State::Element if self.depth == self.array_depth => {
                        // A string element ends with its quote.
                        self.end_element(bytes, copy_from, i + 1, at + 1, out);
                    }
                    State::Value => self.value_end = at + 1,
                    _ => {}
                }
                i += 1;
                continue;
            }
            let b = bytes[i];
            let at = self.offset + i as u64;
            match self.state {
                State::Start => match b {
                    b'[' => {
                        self.depth = 1;
                        self.array_depth = 1;
                        self.framed = true;
                        self.state = State::ExpectElement;
                        out(DocEvent::ArrayOpen { key: None });
                    }
                    b'{' => {
                        self.depth = 1;
                        self.state = State::ExpectKey;
                    }
                    _ if is_ws(b) => {}
                    _ => {
                        // Not a document after all: nothing of it is ours.
                        self.state = State::Done;
                        out(DocEvent::End {
                            end: at,
                            line: lines.at(bytes, i),
                        });
                        break;
                    }
                },
                State::ExpectKey => match b {
                    b'"' => {
                        self.key.clear();
                        self.key_offset = at;
                        self.key_line = lines.at(bytes, i);
                        self.in_string = true;
                        self.state = State::Key;
                        self.after_comma = false;
                    }
                    b'}' => {
                        if self.after_comma {
                            self.problem(
                                bytes,
                                i,
                                &mut lines,
                                "comma before the closing brace",
                                out,
                            );
                        }
                        self.close(bytes, i, &mut lines, out);
                    }
                    _ if is_ws(b) => {}
                    _ => {
                        // Something that is not a key: keep it as the value
                        // of a field without a key, so nothing is lost.
                        self.problem(bytes, i, &mut lines, "expected a quoted key", out);
                        self.key.clear();
                        self.key_offset = at;
                        self.key_line = lines.at(bytes, i);
                        self.start_value(b, at, i, &mut copy_from);
                    }
                },
                State::Key => unreachable!("keys are strings"),
                State::Colon => match b {
                    b':' => self.state = State::ValueStart,
                    _ if is_ws(b) => {}
                    _ => {
                        self.problem(bytes, i, &mut lines, "expected a colon after the key", out);
                        self.start_value(b, at, i, &mut copy_from);
                    }
                },
                State::ValueStart => match b {
                    _ if is_ws(b) => {}
                    b'[' if !self.framed && FRAMED_KEYS.contains(&self.key.as_slice()) => {
                        self.framed = true;
                        self.depth = 2;
                        self.array_depth = 2;
                        self.state = State::ExpectElement;
                        let key_end = self.key_offset + self.key.len() as u64 + 2;
                        out(DocEvent::ArrayOpen {
                            key: Some((&self.key, self.key_offset..key_end)),
                        });
                    }
                    _ => self.start_value(b, at, i, &mut copy_from),
                },
                State::Value => match b {
                    b'"' => self.in_string = true,
                    b'{' | b'[' => {
                        self.depth += 1;
                    }
                    b'}' | b']' if self.depth > 1 => {
                        self.depth -= 1;
                        self.value_end = at + 1;
                    }
                    b',' | b'}' if self.depth == 1 => {
                        self.end_value(bytes, copy_from, i, out);
                        if b == b',' {
                            self.state = State::ExpectKey;
                            self.after_comma = true;
                        } else {
                            self.close(bytes, i, &mut lines, out);
                        }
                    }
                    b']' => {
                        // A stray `]` at the top level: part of the value.
                        self.value_end = at + 1;
                    }
                    _ if is_ws(b) => {}
                    _ => self.value_end = at + 1,
                },
                State::AfterArray => match b {
                    b',' => {
                        self.state = State::ExpectKey;
                        self.after_comma = true;
                    }
                    b'}' => self.close(bytes, i, &mut lines, out),
                    _ if is_ws(b) => {}
                    _ => {
                        self.problem(bytes, i, &mut lines, "missing comma after the array", out);
                        self.state = State::ExpectKey;
                        continue;
                    }
                },
                State::ExpectElement | State::AfterElement => match b {
                    _ if is_ws(b) => {}
                    b',' if self.state == State::AfterElement => {
                        self.state = State::ExpectElement;
                        self.after_comma = true;
                    }
                    b',' => {
                        self.problem(bytes, i, &mut lines, "missing value between commas", out);
                    }
                    b']' => {
                        if self.after_comma {
                            self.problem(
                                bytes,
                                i,
                                &mut lines,
                                "comma before the closing bracket",
                                out,
                            );
                        }
                        self.depth -= 1;
                        self.after_comma = false;
                        if self.array_depth == 1 {
                            self.close_at(at, bytes, i, &mut lines, out);
                        } else {
                            self.state = State::AfterArray;
                        }
                    }
                    b'}' => {
                        // The framed array was never closed.
                        self.problem(
                            bytes,
                            i,
                            &mut lines,
                            "closing brace where the array should close",
                            out,
                        );
                        self.depth -= 1;
                        if self.array_depth == 1 {
                            self.close_at(at, bytes, i, &mut lines, out);
                        } else {
                            self.close(bytes, i, &mut lines, out);
                        }
                    }
                    _ => {
                        if self.state == State::AfterElement {
                            self.problem(
                                bytes,
                                i,
                                &mut lines,
                                "missing comma between array elements",
                                out,
                            );
                        }
                        self.after_comma = false;
                        self.element.clear();
                        self.skipping = false;
                        self.element_offset = at;
                        self.element_line = lines.at(bytes, i);
                        copy_from = i;
                        self.state = State::Element;
                        match b {
                            b'{' => {
                                self.element_kind = ElementKind::Container;
                                self.depth += 1;
                                // Find its end by scanning it as the reader
                                // will, once, when it ends in this chunk
                                // (and within the longest element indexed).
                                let ahead = &bytes[i..bytes.len().min(i.saturating_add(self.max))];
                                if let Some(ahead) = scan_object_ahead(ahead, &mut self.scan) {
                                    let close = i + ahead.end;
                                    lines.skip(close, ahead.newlines);
                                    self.depth -= 1;
                                    self.scanned = true;
                                    self.end_element(
                                        bytes,
                                        copy_from,
                                        close + 1,
                                        at + ahead.end as u64 + 1,
                                        out,
                                    );
                                    self.scanned = false;
                                    i = close + 1;
                                    continue;
                                }
                            }
                            b'[' => {
                                self.element_kind = ElementKind::Container;
                                self.depth += 1;
                            }
                            b'"' => {
                                self.element_kind = ElementKind::String;
                                self.in_string = true;
                            }
                            _ => self.element_kind = ElementKind::Scalar,
                        }
                    }
                },
                State::Element => match self.element_kind {
                    ElementKind::Scalar => {
                        if is_ws(b) || b == b',' || b == b']' || b == b'}' {
                            self.end_element(bytes, copy_from, i, at, out);
                            // The separator is the array's business.
                            continue;
                        }
                    }
                    _ => match b {
                        b'"' => self.in_string = true,
                        b'{' | b'[' => self.depth += 1,
                        b'}' | b']' => {
                            self.depth -= 1;
                            if self.depth == self.array_depth {
                                self.end_element(bytes, copy_from, i + 1, at + 1, out);
                            }
                        }
                        _ => {}
                    },
                },
                State::Done => unreachable!("checked at the top of the loop"),
            }
            i += 1;
        }
        // Keep what was read of an unfinished element or value.
        match self.state {
            State::Element => self.keep_element(&bytes[copy_from.min(i)..i], out),
            State::Value => self.keep_value(&bytes[copy_from.min(i)..i]),
            _ => {}
        }
        let used = i;
        self.line = lines.at(bytes, used);
        self.offset += used as u64;
        used
    }

    /// The input ended: reports what was cut off.
    pub fn finish(&mut self, out: &mut impl FnMut(DocEvent)) {
        let (offset, line) = (self.offset, self.line);
        match self.state {
            State::Start | State::Done => return,
            State::Element if !self.skipping => {
                let (e_offset, e_line) = (self.element_offset, self.element_line);
                let bytes = std::mem::take(&mut self.element);
                out(DocEvent::Element {
                    bytes: &bytes,
                    offset: e_offset,
                    line: e_line,
                    complete: false,
                    scanned: None,
                });
            }
            State::Value | State::Key | State::Colon | State::ValueStart => {
                // Everything from the key on, as a field cut short.
                let value_start = if self.state == State::Value {
                    self.value_offset
                } else {
                    offset
                };
                let key = std::mem::take(&mut self.key);
                out(DocEvent::Field {
                    key: &key,
                    key_offset: self.key_offset,
                    value: value_start..offset,
                    line: self.key_line,
                    bytes: None,
                });
            }
            _ => {}
        }
        self.state = State::Done;
        out(DocEvent::Unclosed { offset, line });
    }

    fn start_value(&mut self, b: u8, at: u64, i: usize, copy_from: &mut usize) {
        self.state = State::Value;
        self.value.clear();
        self.value_too_long = false;
        self.value_offset = at;
        self.value_end = at + 1;
        *copy_from = i;
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            _ => {}
        }
    }

    fn keep_value(&mut self, piece: &[u8]) {
        if self.value_too_long {
            return;
        }
        if self.value.len() + piece.len() <= SHORT_VALUE {
            self.value.extend_from_slice(piece);
        } else {
            // Too long to keep: only its range is recorded.
            self.value = Vec::new();
            self.value_too_long = true;
        }
    }

    /// A field value ended before byte `i` of `bytes`.
    fn end_value(
        &mut self,
        bytes: &[u8],
        copy_from: usize,
        i: usize,
        out: &mut impl FnMut(DocEvent),
    ) {
        let range = self.value_offset..self.value_end;
        let len = (range.end - range.start) as usize;
        self.keep_value(&bytes[copy_from.min(i)..i]);
        let kept = if self.value_too_long {
            None
        } else {
            self.value.truncate(len);
            Some(self.value.as_slice())
        };
        out(DocEvent::Field {
            key: &self.key,
            key_offset: self.key_offset,
            value: range,
            line: self.key_line,
            bytes: kept.filter(|v| v.len() <= SHORT_VALUE),
        });
        self.value.clear();
    }

    /// Keeps a piece of the element being read (it continues in the next
    /// chunk, or began in an earlier one).
    fn keep_element(&mut self, piece: &[u8], out: &mut impl FnMut(DocEvent)) {
        if self.skipping {
            return;
        }
        if self.element.len() + piece.len() > self.max {
            self.skipping = true;
            self.element = Vec::new();
            out(DocEvent::ElementTooLong {
                offset: self.element_offset,
                line: self.element_line,
            });
            return;
        }
        self.element.extend_from_slice(piece);
    }

    /// The element ended: `bytes[copy_from..end_in_chunk]` is its last
    /// piece, `end` its absolute end.
    fn end_element(
        &mut self,
        bytes: &[u8],
        copy_from: usize,
        end_in_chunk: usize,
        end: u64,
        out: &mut impl FnMut(DocEvent),
    ) {
        self.state = State::AfterElement;
        let piece = &bytes[copy_from.min(end_in_chunk)..end_in_chunk];
        let whole_in_chunk = self.element.is_empty()
            && !self.skipping
            && self.element_offset == self.offset + copy_from as u64;
        if whole_in_chunk {
            // The common case: no copy.
            if piece.len() > self.max {
                out(DocEvent::ElementTooLong {
                    offset: self.element_offset,
                    line: self.element_line,
                });
                return;
            }
            out(DocEvent::Element {
                bytes: piece,
                offset: self.element_offset,
                line: self.element_line,
                complete: true,
                scanned: self.scanned.then_some(&mut self.scan),
            });
            return;
        }
        self.keep_element(piece, out);
        if self.skipping {
            return;
        }
        debug_assert_eq!(self.element_offset + self.element.len() as u64, end);
        let element = std::mem::take(&mut self.element);
        out(DocEvent::Element {
            bytes: &element,
            offset: self.element_offset,
            line: self.element_line,
            complete: true,
            scanned: None,
        });
        self.element = element;
        self.element.clear();
    }

    fn problem(
        &self,
        bytes: &[u8],
        i: usize,
        lines: &mut LineCounter,
        message: &'static str,
        out: &mut impl FnMut(DocEvent),
    ) {
        out(DocEvent::Problem {
            offset: self.offset + i as u64,
            line: lines.at(bytes, i),
            message,
        });
    }

    /// The outer `}` at byte `i`.
    fn close(
        &mut self,
        bytes: &[u8],
        i: usize,
        lines: &mut LineCounter,
        out: &mut impl FnMut(DocEvent),
    ) {
        let at = self.offset + i as u64;
        self.depth = 0;
        self.close_at(at, bytes, i, lines, out);
    }

    fn close_at(
        &mut self,
        at: u64,
        bytes: &[u8],
        i: usize,
        lines: &mut LineCounter,
        out: &mut impl FnMut(DocEvent),
    ) {
        self.state = State::Done;
        out(DocEvent::End {
            end: at + 1,
            line: lines.at(bytes, i),
        });
    }
}

/// Where the elements of a document's framed array begin, so that a
/// large document can be framed in parts: each part after the first starts
/// where [`ElementStarts::find`] sees an element begin, and is kept only if
/// the part before it ends in the state that guess assumed (see
/// `Reader::append_document_part`), so a wrong guess costs time, never
/// correctness.
///
/// The guess: a pretty-printed document starts every element of its array
/// on a line of its own, indented like the first one, after a comma. A raw
/// newline cannot be inside a JSON string, so such a line break is outside
/// strings; the indentation tells the element's depth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementStarts {
    array_depth: u32,
    /// `\n`, the indentation, and the element's opening bracket.
    pattern: Vec<u8>,
}

impl ElementStarts {
    /// Learns where elements begin from a document's first bytes; `None`
    /// when they do not show an element beginning on a line of its own.
    pub fn from_head(head: &[u8]) -> Option<ElementStarts> {
        let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
        let mut framer = DocumentFramer::new(0, 1, usize::MAX);
        let mut starts = Vec::new();
        framer.feed(head, &mut |event| {
            if let DocEvent::Element { offset, .. } = event {
                starts.push(offset as usize);
            }
        });
        if framer.state == State::Element {
            starts.push(framer.element_offset as usize);
        }
        if framer.array_depth == 0 {
            return None;
        }
        starts.into_iter().take(2).find_map(|at| {
            let opening = *head.get(at)?;
            if opening != b'{' && opening != b'[' {
                return None;
            }
            let line_start = memchr::memrchr(b'\n', &head[..at])?;
            let indent = &head[line_start + 1..at];
            if !indent.iter().all(|&b| b == b' ' || b == b'\t') {
                return None;
            }
            let mut pattern = Vec::with_capacity(indent.len() + 2);
            pattern.push(b'\n');
            pattern.extend_from_slice(indent);
            pattern.push(opening);
            Some(ElementStarts {
                array_depth: framer.array_depth,
                pattern,
            })
        })
    }

    /// Depth of the framed array (1 for an array document, 2 for an
    /// object's `messages`).
    pub fn array_depth(&self) -> u32 {
        self.array_depth
    }

    /// The first place in `window` (any stretch of the document) where an
    /// element seems to begin: the index of its opening bracket, at the
    /// learned indentation on a new line, with only blanks between it and a
    /// comma before.
    pub fn find(&self, window: &[u8]) -> Option<usize> {
        memchr::memmem::find_iter(window, &self.pattern).find_map(|at| {
            let before = &window[..at];
            let last = before.iter().rposition(|&b| !is_ws(b))?;
            (before[last] == b',').then_some(at + self.pattern.len() - 1)
        })
    }
}

/// Line numbers within one fed chunk, counted lazily and only forward.
struct LineCounter {
    /// Line of `bytes[counted]`.
    base: u32,
    counted: usize,
}

impl LineCounter {
    /// Moves on to `bytes[i]`, the `newlines` before it counted already
    /// (from where the counter was).
    fn skip(&mut self, i: usize, newlines: u32) {
        self.base += newlines;
        self.counted = i;
    }

    /// The line of `bytes[i]` (`i` never goes back).
    fn at(&mut self, bytes: &[u8], i: usize) -> u32 {
        if i > self.counted {
            let n = memchr_iter(b'\n', &bytes[self.counted..i]).count();
            self.base += n as u32;
            self.counted = i;
        }
        self.base
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// A JSON-ish value: strings with escapes and backslash runs, nested
    /// containers, blanks and newlines between tokens.
    fn value(rng: &mut Rng, depth: u32, out: &mut Vec<u8>) {
        let blank = |rng: &mut Rng, out: &mut Vec<u8>| {
            for _ in 0..rng.below(3) {
                out.extend_from_slice([&b" "[..], b"\n", b"  ", b"\n    "][rng.below(4)]);
            }
        };
        match rng.below(if depth > 4 { 2 } else { 4 }) {
            0 => {
                out.push(b'"');
                for _ in 0..rng.below(90) {
                    match rng.below(12) {
                        0 => out.extend_from_slice(b"\\\""),
                        1 => out.extend_from_slice(&b"\\\\\\\\\\"[..1 + rng.below(4)]),
                        2 => out.extend_from_slice(b"{[]}:,"),
                        3 => out.extend_from_slice(b"\\n"),
                        _ => out.push(b'a' + rng.below(26) as u8),
                    }
                }
                // An escape must be complete: end with an even run.
                let run = backslashes_before(out);
                if run % 2 == 1 {
                    out.push(b'\\');
                }
                out.push(b'"');
            }
            1 => out.extend_from_slice([&b"1"[..], b"-2.5e3", b"true", b"null"][rng.below(4)]),
            2 => {
                out.push(b'{');
                for k in 0..rng.below(5) {
                    if k > 0 {
                        out.push(b',');
                    }
                    blank(rng, out);
                    out.extend_from_slice(b"\"k\":");
                    blank(rng, out);
                    value(rng, depth + 1, out);
                }
                blank(rng, out);
                out.push(b'}');
            }
            _ => {
                out.push(b'[');
                for k in 0..rng.below(5) {
                    if k > 0 {
                        out.push(b',');
                    }
                    blank(rng, out);
                    value(rng, depth + 1, out);
                }
                out.push(b']');
            }
        }
    }

    /// The events of framing `doc` fed in chunks of `chunk` bytes, as text.
    /// An element the framer scanned while finding its end is recorded
    /// like one it did not, after checking that the scan is the one
    /// `scan_line` gives for its bytes.
    fn events(doc: &[u8], chunk: usize) -> Vec<String> {
        let mut framer = DocumentFramer::new(0, 1, 1 << 20);
        let mut seen = Vec::new();
        let mut record = |e: DocEvent| {
            let e = match e {
                DocEvent::Element {
                    bytes,
                    offset,
                    line,
                    complete,
                    scanned: Some(scan),
                } => {
                    let mut again = LineScan::default();
                    crate::read::scan::scan_line(bytes, &mut again);
                    assert_eq!(format!("{scan:?}"), format!("{again:?}"));
                    assert!(scan.error.is_none());
                    DocEvent::Element {
                        bytes,
                        offset,
                        line,
                        complete,
                        scanned: None,
                    }
                }
                e => e,
            };
            seen.push(format!("{e:?}"))
        };
        let mut at = 0;
        while at < doc.len() && !framer.is_done() {
            let end = (at + chunk).min(doc.len());
            at += framer.feed(&doc[at..end], &mut record);
        }
        framer.finish(&mut record);
        seen.push(format!("{:?} {}", framer.position(), at));
        seen
    }

    /// The block-wise follower frames exactly like the byte-wise loop
    /// (chunks shorter than a block never use it), on documents with
    /// escapes, backslash runs and stray bytes at every place, broken ones
    /// too.
    #[test]
    fn block_wise_and_byte_wise_framing_agree() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..4000 {
            let mut doc = Vec::new();
            doc.extend_from_slice(if round % 2 == 0 {
                b"[\n"
            } else {
                b"{\"a\": 1, \"messages\": [\n"
            });
            for k in 0..1 + rng.below(6) {
                if k > 0 {
                    doc.extend_from_slice(b",\n  ");
                }
                let mut element = Vec::new();
                value(&mut rng, 1, &mut element);
                if element[0] != b'{' && element[0] != b'[' {
                    element.insert(0, b'[');
                    element.push(b']');
                }
                doc.extend_from_slice(&element);
            }
            doc.extend_from_slice(if round % 2 == 0 {
                b"\n]\n"
            } else {
                b"\n], \"b\": [2]}\n"
            });
            // Corrupt some documents: stray quotes, backslashes outside
            // strings, brackets, cut-off ends.
            for _ in 0..rng.below(4) {
                if doc.len() < 2 {
                    break;
                }
                let at = rng.below(doc.len());
                match rng.below(4) {
                    0 => doc.insert(at, b"\\\"{}[],"[rng.below(7)]),
                    1 => {
                        doc.remove(at);
                    }
                    2 => doc[at] = b'\\',
                    _ => doc.truncate(at.max(1)),
                }
            }
            let byte_wise = events(&doc, 1);
            for chunk in [7, 64, 65, 97, 200, usize::MAX] {
                assert_eq!(
                    events(&doc, chunk),
                    byte_wise,
                    "round {round}, chunks of {chunk}: {}",
                    String::from_utf8_lossy(&doc)
                );
            }
        }
    }
}
