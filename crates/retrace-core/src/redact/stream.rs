//! The push redactor: chunks of a JSON-lines file in, redacted bytes and
//! findings out. Lines may span chunks (only the unfinished last line is
//! kept), so a file of any size is redacted in memory proportional to its
//! longest line, and the output bytes do not depend on how the input was
//! cut: the CLI's 256 KiB reads and the browser's `File.slice` pieces give
//! the same file.

use std::collections::HashMap;
use std::sync::Arc;

use memchr::memchr;

use super::hit::Hit;
use super::json::{escape_into, Edit, Engine, KeyOf};
use super::kind::KindId;
use super::mode::{Mode, Placeholders};
use super::report::{BrokenLine, Finding, Leftover, Summary};
use super::rules::Rules;

/// How many times a changed line is re-scanned and re-redacted before
/// what is still found is reported as a leftover.
const PASSES: usize = 16;

/// Redacts JSON lines pushed in chunks.
///
/// ```
/// use std::sync::Arc;
/// use retrace_core::redact::{Mode, Redactor, Rules};
/// let mut r = Redactor::new(Arc::new(Rules::builtin()), Mode::Typed);
/// let mut out = Vec::new();
/// r.push(br#"{"cmd":"export AWS_ACCESS_KEY_ID=AKIA2E0A8F3B244C9"#, &mut out);
/// r.push(b"986\"}\n", &mut out);
/// r.finish(&mut out);
/// assert_eq!(out, b"{\"cmd\":\"export AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key-id]\"}\n");
/// assert_eq!(r.drain_findings().next().unwrap().path, "cmd");
/// ```
#[derive(Debug)]
pub struct Redactor {
    engine: Engine,
    placeholders: Placeholders,
    carry: Vec<u8>,
    /// Lines completed.
    line: u64,
    /// Offset of the next line's first byte.
    offset: u64,
    findings: Vec<Finding>,
    summary: Summary,
    edits: Vec<Edit>,
    /// Re-scan changed lines' output (on by default).
    verify: bool,
    scratch: Vec<u8>,
    hits: Vec<Hit>,
    /// Where the last `apply` wrote placeholders.
    written: Vec<std::ops::Range<usize>>,
    /// The input is one JSON document over many lines (a Gemini CLI
    /// legacy session, a provider message list as an array): it is kept
    /// here and redacted whole at [`Redactor::finish`].
    document: Option<Document>,
    /// Whether the rules' single-finding exceptions apply (they need true
    /// line numbers: see [`Redactor::set_exception_lines`]).
    finding_exceptions: bool,
    /// Added to line numbers when exceptions are looked up.
    line_shift: u64,
    /// Matches are marked in place, not replaced (see
    /// [`Redactor::set_reveal`]).
    reveal: bool,
}

/// A key being written by `apply`: where it starts in the output, and
/// where its last placeholder ends.
#[derive(Debug, Clone, Copy)]
struct OpenKey {
    key: KeyOf,
    out_start: usize,
    last_end: usize,
}

/// The keys `apply` wrote in one line: (object, text written) → the key's
/// bytes in the input; and per (object, text a key would have had) the
/// next `#n` to try, so a thousand keys that redact alike cost a thousand
/// look-ups, not a million.
#[derive(Debug, Default)]
struct KeysWritten {
    written: HashMap<(u32, Vec<u8>), Vec<u8>>,
    next: HashMap<(u32, Vec<u8>), u32>,
}

/// A whole-document input being collected.
#[derive(Debug)]
struct Document {
    bytes: Vec<u8>,
    /// The input line and offset it starts at.
    line: u64,
    offset: u64,
    /// Whether a non-blank line after the first was seen: until then the
    /// first line may be a JSON line cut short rather than a document's
    /// first line.
    settled: bool,
}

/// The largest document redacted whole; a bigger one is passed through
/// and reported, line by line, like text that is not JSON.
/// What opens a value a revealing redactor leaves in place
/// ([`Redactor::set_reveal`]).
pub const REVEAL_OPEN: char = '\u{E000}';
/// What closes it.
pub const REVEAL_CLOSE: char = '\u{E001}';

const MAX_DOCUMENT: usize = 512 << 20;

impl Redactor {
    /// A redactor running `rules`, replacing what they find as `mode` says.
    pub fn new(rules: Arc<Rules>, mode: Mode) -> Redactor {
        Redactor {
            engine: Engine::new(rules),
            placeholders: Placeholders::new(mode),
            carry: Vec::new(),
            line: 0,
            offset: 0,
            findings: Vec::new(),
            summary: Summary::default(),
            edits: Vec::new(),
            verify: true,
            scratch: Vec::new(),
            hits: Vec::new(),
            written: Vec::new(),
            document: None,
            finding_exceptions: true,
            line_shift: 0,
            reveal: false,
        }
    }

    /// For a redactor given pieces of a file rather than the whole (one
    /// entry, as [`RedactingSource`](super::RedactingSource) reads it):
    /// `Some(n)` says its first line is line `n + 1` of the file, for the
    /// rules' single-finding exceptions; `None` that it is not known, and
    /// they do not apply (rather than to the wrong lines). Findings keep
    /// their own numbering.
    pub fn set_exception_lines(&mut self, before: Option<u64>) {
        self.finding_exceptions = before.is_some();
        self.line_shift = before.unwrap_or(0);
    }

    /// Goes on from a later point of a file: `lines` lines and `offset`
    /// bytes were before the next push (redacted elsewhere). For callers
    /// that cut a file at line boundaries and redact the parts in
    /// parallel, then concatenate: with [`Mode::Mask`] or [`Mode::Typed`]
    /// that gives the same bytes as one redactor (pseudonyms are numbered
    /// in order, so `Pseudo` needs one redactor for the whole file).
    pub fn resume_at(&mut self, lines: u64, offset: u64) {
        self.line = lines;
        self.offset = offset;
    }

    /// Turns the verify pass (a re-scan of every changed line's output) on
    /// or off.
    pub fn set_verify(&mut self, on: bool) {
        self.verify = on;
    }

    /// Leaves each match in place between [`REVEAL_OPEN`] and
    /// [`REVEAL_CLOSE`] instead of replacing it, so a view showing the
    /// values as written can highlight what a redacted copy takes out.
    /// The verify pass is off then (it would find the value again).
    pub fn set_reveal(&mut self, on: bool) {
        self.reveal = on;
        if on {
            self.verify = false;
        }
    }

    /// The rules it runs.
    pub fn rules(&self) -> &Rules {
        &self.engine.rules
    }

    /// What it replaces matches with.
    pub fn mode(&self) -> Mode {
        self.placeholders.mode()
    }

    /// Redacts the complete lines in `chunk` (with what was carried from
    /// the previous chunk), appending them to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut Vec<u8>) {
        let mut rest = chunk;
        if !self.carry.is_empty() {
            match memchr(b'\n', rest) {
                Some(p) => {
                    let mut line = std::mem::take(&mut self.carry);
                    line.extend_from_slice(&rest[..=p]);
                    self.line_with_end(&line, out);
                    line.clear();
                    self.carry = line;
                    rest = &rest[p + 1..];
                }
                None => {
                    self.carry.extend_from_slice(rest);
                    return;
                }
            }
        }
        while let Some(p) = memchr(b'\n', rest) {
            self.line_with_end(&rest[..=p], out);
            rest = &rest[p + 1..];
        }
        self.carry.extend_from_slice(rest);
    }

    /// Redacts the last line if it has no newline. The redactor can then
    /// take another file (line numbers go on).
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if !self.carry.is_empty() {
            let line = std::mem::take(&mut self.carry);
            self.line_with_end(&line, out);
        }
        if let Some(doc) = self.document.take() {
            self.whole_document(doc, out);
        }
    }

    /// Findings since the last drain, in input order. They pile up until
    /// drained: a caller streaming a large file drains after each push.
    pub fn drain_findings(&mut self) -> std::vec::Drain<'_, Finding> {
        self.findings.drain(..)
    }

    /// Totals so far.
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// Redacts one line, with its line ending if it has one.
    fn line_with_end(&mut self, line: &[u8], out: &mut Vec<u8>) {
        self.line += 1;
        let start = self.offset;
        self.offset += line.len() as u64;
        self.summary.lines += 1;
        self.summary.bytes += line.len() as u64;
        if let Some(doc) = self.document.as_mut() {
            if !doc.settled && !line.iter().all(u8::is_ascii_whitespace) {
                doc.settled = true;
                if first_line_was_cut(&doc.bytes, line) {
                    // JSON lines after all: the first one is a torn line.
                    let doc = self.document.take().expect("checked above");
                    let now = self.line;
                    let mut at = doc.offset;
                    for (i, earlier) in doc.bytes.split_inclusive(|&b| b == b'\n').enumerate() {
                        self.line = doc.line + i as u64;
                        self.redact_content(earlier, at, out);
                        at += earlier.len() as u64;
                    }
                    self.line = now;
                    return self.redact_content(line, start, out);
                }
            }
            doc.bytes.extend_from_slice(line);
            if doc.bytes.len() > MAX_DOCUMENT {
                // Too big to hold: give it back as it is, reported.
                let doc = self.document.take().expect("checked above");
                self.pass_through_document(doc, out);
            }
            return;
        }
        // Only a first line can open a document: a line cut short further
        // down a JSON-lines file is a torn line, reported, not a document.
        if self.line == 1 && opens_document(line) {
            self.document = Some(Document {
                bytes: line.to_vec(),
                line: self.line,
                offset: start,
                settled: false,
            });
            return;
        }
        self.redact_content(line, start, out);
    }

    /// Redacts one line (or whole document) `line` that starts at input
    /// offset `start`.
    fn redact_content(&mut self, line: &[u8], start: u64, out: &mut Vec<u8>) {
        let (content, base) = content_of(line, self.line);
        let mut edits = std::mem::take(&mut self.edits);
        edits.clear();
        if self.first_pass(content, base, start, &mut edits) {
            self.write_changed(line, start, &mut edits, out);
        } else {
            out.extend_from_slice(line);
        }
        self.edits = edits;
    }

    /// The first pass over the content of one line (`base` bytes into the
    /// line, which starts at input offset `start`): its matches into
    /// `edits`, without those the rules leave in place; a line that is not
    /// JSON is counted as broken. Whether the line changes.
    fn first_pass(
        &mut self,
        content: &[u8],
        base: usize,
        start: u64,
        edits: &mut Vec<Edit>,
    ) -> bool {
        let walked = self.engine.line(content, edits);
        if walked.is_ok() {
            self.keep_allowed(content, edits, true);
        }
        match walked {
            Ok(()) => !edits.is_empty(),
            Err(at) => {
                self.hits.clear();
                self.engine.rules.scan(content, None, &mut self.hits);
                self.summary.broken_lines += 1;
                self.summary.broken_matches += self.hits.len() as u64;
                if self.summary.broken.len() < Summary::KEEP {
                    self.summary.broken.push(BrokenLine {
                        line: self.line,
                        offset: start + (base + at) as u64,
                        unredacted: self.hits.len() as u32,
                    });
                }
                false
            }
        }
    }

    /// Writes a line the first pass found `edits` in (line `self.line`,
    /// at input offset `start`): placeholders in, then the verify passes.
    fn write_changed(&mut self, line: &[u8], start: u64, edits: &mut Vec<Edit>, out: &mut Vec<u8>) {
        let (content, base) = content_of(line, self.line);
        let mut current = self.apply(content, edits, start + base as u64);
        // Replacing a match can reveal another that was glued to it
        // (`…ioBearer tok`, a phone after a digit): scan the output
        // again and redact what it finds, a few times; what is left
        // after that is reported as a leftover.
        for pass in 1..=PASSES {
            if !self.verify {
                break;
            }
            edits.clear();
            // Only strings holding a placeholder can scan
            // differently than before (the rest are the same bytes
            // under the same keys, and had no match).
            let written = std::mem::take(&mut self.written);
            let scanned = self.engine.line_around(&current, &written, edits);
            self.written = written;
            if scanned.is_err() {
                self.leftover(None, String::from("(output is not JSON)"));
                break;
            }
            // A value left in place is found again; it stays.
            self.keep_allowed(&current, edits, false);
            if edits.is_empty() {
                break;
            }
            if pass == PASSES {
                for e in edits.iter() {
                    self.leftover(Some(e.kind), e.path.clone());
                }
                break;
            }
            current = self.apply(&current, edits, start + base as u64);
        }
        out.extend_from_slice(&line[..base]);
        out.extend_from_slice(&current);
        out.extend_from_slice(&line[base + content.len()..]);
        self.summary.lines_changed += 1;
    }

    /// The first pass over `part`, whole lines of a JSON-lines input (the
    /// last may lack its newline) that opens no document (see
    /// [`opens_document`]), after [`Redactor::resume_at`] its first line:
    /// what [`Redactor::write_scanned`] needs to write it. Scanning parts
    /// on several threads and writing them on one, in order, gives the
    /// bytes, findings and summary one redactor gives in every mode, since
    /// placeholders (pseudonyms, numbered in order) are chosen only when
    /// written.
    pub fn scan(&mut self, part: Vec<u8>) -> Scanned {
        let first = (self.line, self.offset);
        let before = std::mem::take(&mut self.summary);
        let mut changed = Vec::new();
        let mut at = 0;
        for line in part.split_inclusive(|&b| b == b'\n') {
            self.line += 1;
            let start = self.offset;
            self.offset += line.len() as u64;
            self.summary.lines += 1;
            self.summary.bytes += line.len() as u64;
            let (content, base) = content_of(line, self.line);
            let mut edits = Vec::new();
            if self.first_pass(content, base, start, &mut edits) {
                changed.push(ScannedLine {
                    range: at..at + line.len(),
                    line: self.line,
                    edits,
                });
            }
            at += line.len();
        }
        Scanned {
            bytes: part,
            first,
            end: (self.line, self.offset),
            changed,
            summary: std::mem::replace(&mut self.summary, before),
        }
    }

    /// Writes a part [`Redactor::scan`] scanned (on this redactor or
    /// another with the same rules), placeholders chosen here; parts must
    /// come in input order, each after the one before it. Gives back the
    /// part's bytes, for a caller that reuses its buffers.
    pub fn write_scanned(&mut self, part: Scanned, out: &mut Vec<u8>) -> Vec<u8> {
        let mut at = 0;
        for ScannedLine {
            range,
            line,
            mut edits,
        } in part.changed
        {
            out.extend_from_slice(&part.bytes[at..range.start]);
            self.line = line;
            let start = part.first.1 + range.start as u64;
            self.write_changed(&part.bytes[range.clone()], start, &mut edits, out);
            at = range.end;
        }
        out.extend_from_slice(&part.bytes[at..]);
        self.summary.merge(&part.summary);
        (self.line, self.offset) = part.end;
        part.bytes
    }

    /// Takes out of `edits` (sorted, of `content`, which starts at line
    /// `self.line`) those the rules leave in place, or with rules that mark
    /// their exceptions flags them to be marked; `first`: the first pass
    /// over the line, which counts them in the summary (in a verify pass
    /// a value left or marked in place is found again: it stays).
    fn keep_allowed(&mut self, content: &[u8], edits: &mut Vec<Edit>, first: bool) {
        let rules = &self.engine.rules;
        let singles = self.finding_exceptions && rules.allows_findings();
        let kinds = rules.marks_exceptions() && !rules.marked_kinds.is_empty();
        if !(singles || kinds) || edits.is_empty() {
            return;
        }
        let mark = rules.marks_exceptions() && first;
        // A document's edits are on later lines: count newlines as the
        // (sorted) edits go, once over the content.
        let mut line = self.line + self.line_shift;
        let mut at = 0;
        let mut kept = 0;
        edits.retain_mut(|e| {
            line += memchr::memchr_iter(b'\n', &content[at..e.start.max(at)]).count() as u64;
            at = at.max(e.start);
            let excepted =
                rules.marks_kind(e.kind) || (singles && rules.allows(line, e.kind, e.id));
            kept += u64::from(excepted);
            e.reveal = excepted && mark;
            !excepted || mark
        });
        if first {
            self.summary.allowed += kept;
        }
    }

    /// Redacts a whole document: the same walk as a line, over all of it
    /// (JSON allows newlines between tokens), with findings numbered by the
    /// input line they are on. Its lines were counted as they came.
    fn whole_document(&mut self, doc: Document, out: &mut Vec<u8>) {
        let line = self.line;
        self.line = doc.line;
        let first = self.findings.len();
        self.redact_content(&doc.bytes, doc.offset, out);
        let newlines: Vec<usize> = memchr::memchr_iter(b'\n', &doc.bytes).collect();
        for f in &mut self.findings[first..] {
            let at = (f.offset - doc.offset) as usize;
            f.line = doc.line + newlines.partition_point(|&n| n < at) as u64;
        }
        self.line = line;
    }

    /// A document too big to redact whole, written back unchanged and
    /// reported as not redacted.
    fn pass_through_document(&mut self, doc: Document, out: &mut Vec<u8>) {
        self.hits.clear();
        self.engine.rules.scan(&doc.bytes, None, &mut self.hits);
        self.summary.broken_lines += 1;
        self.summary.broken_matches += self.hits.len() as u64;
        if self.summary.broken.len() < Summary::KEEP {
            self.summary.broken.push(BrokenLine {
                line: doc.line,
                offset: doc.offset,
                unredacted: self.hits.len() as u32,
            });
        }
        out.extend_from_slice(&doc.bytes);
    }

    /// `content` with `edits` replaced by placeholders; records findings
    /// (offsets from `origin`, the line's first byte in the input).
    /// The ranges of `out` the placeholders went to are left in
    /// `self.written`.
    fn apply(&mut self, content: &[u8], edits: &[Edit], origin: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(content.len() + 32 * edits.len());
        let mut at = 0;
        self.written.clear();
        // Keys written so far, to tell apart two keys of an object that
        // redact to the same text; the key being written.
        let mut keys = KeysWritten::default();
        let mut open: Option<OpenKey> = None;
        for e in edits {
            if let Some(k) = open.filter(|k| e.key != Some(k.key)) {
                out.extend_from_slice(&content[at..k.key.end]);
                at = k.key.end;
                self.close_key(k, content, &mut out, &mut keys);
                open = None;
            }
            if let (Some(key), None) = (e.key, open) {
                open = Some(OpenKey {
                    key,
                    out_start: out.len() + key.start.saturating_sub(at),
                    last_end: 0,
                });
            }
            out.extend_from_slice(&content[at..e.start]);
            let text = self
                .placeholders
                .text(self.engine.rules.kinds(), e.kind, e.hash);
            let from = out.len();
            if e.number {
                // A number's placeholder is a string: quoted, the quotes
                // escaped for each string the number sits in.
                let mut quoted = Vec::with_capacity(text.len() + 8);
                quoted.push(b'"');
                if self.reveal || e.reveal {
                    quoted.extend_from_slice(REVEAL_OPEN.to_string().as_bytes());
                    quoted.extend_from_slice(&content[e.start..e.end]);
                    quoted.extend_from_slice(REVEAL_CLOSE.to_string().as_bytes());
                } else {
                    quoted.extend_from_slice(text.as_bytes());
                }
                quoted.push(b'"');
                write_escaped(&quoted, e.levels, &mut out, &mut self.scratch);
                self.summary.numbers_as_strings += 1;
            } else if self.reveal || e.reveal {
                // Private-use characters: JSON needs no escape for them at
                // any level, and no rule matches them.
                let mut open = [0; 4];
                out.extend_from_slice(REVEAL_OPEN.encode_utf8(&mut open).as_bytes());
                out.extend_from_slice(&content[e.start..e.end]);
                out.extend_from_slice(REVEAL_CLOSE.encode_utf8(&mut open).as_bytes());
            } else {
                write_escaped(text.as_bytes(), e.levels, &mut out, &mut self.scratch);
            }
            self.written.push(from..out.len());
            at = e.end;
            self.summary.count(e.kind);
            self.findings.push(Finding {
                kind: e.kind,
                line: self.line,
                offset: origin + e.start as u64,
                path: e.path.clone(),
                span: e.span.clone(),
                replacement: text,
                hash: e.id,
                number: e.number,
            });
            if let Some(k) = &mut open {
                k.last_end = out.len();
            }
        }
        if let Some(k) = open {
            out.extend_from_slice(&content[at..k.key.end]);
            at = k.key.end;
            self.close_key(k, content, &mut out, &mut keys);
        }
        out.extend_from_slice(&content[at..]);
        out
    }

    /// A key of `out` has been written whole (from `k.out_start` to the
    /// end of `out`). If an earlier key of its object reads the same (two
    /// addresses as keys, both `[REDACTED:email]`), it gets `#2` (`#3`, …)
    /// after its last placeholder: parsers keep one of two equal keys, and
    /// what the other held would be lost to whoever reads the output.
    /// (Keys that were equal in the input stay equal.)
    fn close_key(&mut self, k: OpenKey, content: &[u8], out: &mut Vec<u8>, keys: &mut KeysWritten) {
        let object = k.key.object;
        let mut text = out[k.out_start..].to_vec();
        let was = &content[k.key.start..k.key.end];
        let taken = |keys: &KeysWritten, t: Vec<u8>| {
            keys.written
                .get(&(object, t))
                .is_some_and(|w| w.as_slice() != was)
        };
        if !self.reveal && taken(keys, text.clone()) {
            let at = k.last_end - k.out_start;
            let (head, tail) = text.split_at(at);
            let with = |n: u32| {
                let suffix = format!("#{n}");
                let mut t = head.to_vec();
                t.extend_from_slice(suffix.as_bytes());
                t.extend_from_slice(tail);
                (suffix, t)
            };
            let mut n = keys.next.get(&(object, text.clone())).copied().unwrap_or(2);
            while taken(keys, with(n).1) {
                n += 1;
            }
            keys.next.insert((object, text.clone()), n + 1);
            let (suffix, unique) = with(n);
            out.splice(k.last_end..k.last_end, suffix.bytes());
            if let Some(f) = self.findings.last_mut() {
                f.replacement.push_str(&suffix);
            }
            if let Some(w) = self.written.last_mut() {
                w.end += suffix.len();
            }
            text = unique;
        }
        keys.written
            .entry((object, text))
            .or_insert_with(|| was.to_vec());
    }

    fn leftover(&mut self, kind: Option<KindId>, path: String) {
        self.summary.leftovers += 1;
        if self.summary.leftover.len() < Summary::KEEP {
            self.summary.leftover.push(Leftover {
                kind,
                line: self.line,
                path,
            });
        }
    }

    /// Redacts plain text (a message shown by `retrace show`), with the same
    /// placeholders as the lines (pseudonyms are shared).
    pub fn redact_text(&mut self, text: &str) -> String {
        self.hits.clear();
        self.engine
            .rules
            .scan(text.as_bytes(), None, &mut self.hits);
        if self.hits.is_empty() {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        let hits = std::mem::take(&mut self.hits);
        for h in &hits {
            out.push_str(&text[at..h.start]);
            let fp = super::json::fingerprint(&text.as_bytes()[h.start..h.end]);
            out.push_str(
                &self
                    .placeholders
                    .text(self.engine.rules.kinds(), h.kind, fp),
            );
            self.summary.count(h.kind);
            at = h.end;
        }
        out.push_str(&text[at..]);
        self.hits = hits;
        out
    }
}

/// A line's content: without its newline, and on the first line without
/// a byte-order mark; and where the content starts in the line.
fn content_of(line: &[u8], number: u64) -> (&[u8], usize) {
    let content = line.strip_suffix(b"\n").unwrap_or(line);
    if number == 1 && content.starts_with(b"\xEF\xBB\xBF") {
        return (&content[3..], 3);
    }
    (content, 0)
}

/// A part of an input after the first pass ([`Redactor::scan`]), to be
/// written by [`Redactor::write_scanned`]: its bytes, and the lines that
/// change with the matches found in them.
#[derive(Debug)]
pub struct Scanned {
    bytes: Vec<u8>,
    /// Lines and bytes before the part, and after it.
    first: (u64, u64),
    end: (u64, u64),
    changed: Vec<ScannedLine>,
    /// The first pass's totals: lines, bytes, broken lines, matches left
    /// in place.
    summary: Summary,
}

/// A line of a [`Scanned`] part that changes.
#[derive(Debug)]
struct ScannedLine {
    /// Its bytes in the part, newline included.
    range: std::ops::Range<usize>,
    /// Its number.
    line: u64,
    edits: Vec<Edit>,
}

/// Whether `first_line` (with or without its newline) opens a JSON document
/// that goes on over more lines: it starts with `{` or `[` and is JSON cut
/// short. The redactor then redacts the input whole rather than line by
/// line (unless the next non-blank line shows the first one was a JSON
/// line cut short, see `first_line_was_cut`); a caller splitting input
/// into parts must not split such a one.
pub fn opens_document(first_line: &[u8]) -> bool {
    let content = first_line.strip_suffix(b"\n").unwrap_or(first_line);
    let content = content.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(content);
    if !matches!(content.trim_ascii().first(), Some(b'{' | b'[')) {
        return false;
    }
    matches!(
        serde_json::from_slice::<serde::de::IgnoredAny>(content),
        Err(e) if e.is_eof()
    )
}

/// Whether `first` (the input's first lines, which open a document
/// without closing it) was a JSON line cut short rather than the start of
/// a document: it opens an object (an array is no JSON line), `next`, the
/// next non-blank line, is a whole object of its own, and `first` did not
/// end by opening a framed array. The reader frames files by the same rule
/// (`framing.rs`).
fn first_line_was_cut(first: &[u8], next: &[u8]) -> bool {
    let first = first.split(|&b| b == b'\n').next().unwrap_or(first);
    let first = first.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(first);
    let next = next.trim_ascii();
    first.trim_ascii_start().first() == Some(&b'{')
        && next.first() == Some(&b'{')
        && serde_json::from_slice::<serde::de::IgnoredAny>(next).is_ok()
        && !crate::read::framing::opens_framed_array(first)
}

/// `text` escaped for `levels` nested JSON strings.
fn write_escaped(text: &[u8], levels: u8, out: &mut Vec<u8>, scratch: &mut Vec<u8>) {
    if levels == 0 || text.iter().all(|&b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.extend_from_slice(text);
        return;
    }
    let mut cur = text.to_vec();
    for _ in 0..levels {
        scratch.clear();
        escape_into(&cur, scratch);
        std::mem::swap(&mut cur, scratch);
    }
    out.extend_from_slice(&cur);
}

/// Every match in one JSON value (an entry's bytes), as the viewer needs
/// them to highlight or hide: kind, JSON path, span in the decoded string
/// and raw byte range in `json`. `Err(offset)` if `json` is not JSON.
pub fn findings_in(rules: &Arc<Rules>, json: &[u8]) -> Result<Vec<ValueFinding>, usize> {
    let mut engine = Engine::new(rules.clone());
    let mut edits = Vec::new();
    engine.line(json, &mut edits)?;
    Ok(edits
        .into_iter()
        .map(|e| ValueFinding {
            kind: e.kind,
            path: e.path,
            span: e.span,
            raw: e.start..e.end,
        })
        .collect())
}

/// A match in one JSON value, from [`findings_in`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueFinding {
    /// What was found.
    pub kind: KindId,
    /// JSON path of the string it is in.
    pub path: String,
    /// Byte range in the decoded string at `path`.
    pub span: std::ops::Range<usize>,
    /// Byte range in the raw JSON that gets replaced.
    pub raw: std::ops::Range<usize>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(input: &str, mode: Mode) -> (String, Summary, Vec<Finding>) {
        let mut r = Redactor::new(Arc::new(Rules::builtin()), mode);
        let mut out = Vec::new();
        r.push(input.as_bytes(), &mut out);
        r.finish(&mut out);
        let findings = r.drain_findings().collect();
        (
            String::from_utf8(out).unwrap(),
            r.summary().clone(),
            findings,
        )
    }

    #[test]
    fn keys_lose_only_their_matched_bytes() {
        // Gemini CLI's `trustedFolders.json` read by a tool: an object keyed
        // by home paths, as JSON inside the tool's output string.
        let line = concat!(
            r#"{"output":"{\n  \"/home/mischa\": \"TRUST_PARENT\",\n  \"/home/mischa/src\": \"TRUST_FOLDER\"\n}","#,
            r#""/Users/jane.doe/notes":"x"}"#,
            "\n"
        );
        let (out, summary, findings) = redact(line, Mode::Typed);
        assert_eq!(
            out,
            concat!(
                r#"{"output":"{\n  \"/home/[REDACTED:home-username]\": \"TRUST_PARENT\",\n  \"/home/[REDACTED:home-username]/src\": \"TRUST_FOLDER\"\n}","#,
                r#""/Users/[REDACTED:home-username]/notes":"x"}"#,
                "\n"
            )
        );
        assert_eq!(summary.leftovers, 0);
        let paths: Vec<&str> = findings.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["output.$json[*]", "output.$json[*]", "[*]"]);
        assert!(findings.iter().all(|f| !f.path.contains("mischa")));
        // The output is JSON, and redacting it again finds nothing.
        serde_json::from_str::<serde_json::Value>(out.trim_end()).unwrap();
        let (again, second, _) = redact(&out, Mode::Typed);
        assert_eq!((again.as_str(), second.findings()), (out.as_str(), 0));
        // Pseudonyms in keys are numbered like values: the same name, the
        // same pseudonym, so distinct keys stay distinct when they were.
        let (pseudo, _, _) = redact(line, Mode::Pseudo);
        let value: serde_json::Value = serde_json::from_str(pseudo.trim_end()).unwrap();
        let inner: serde_json::Value =
            serde_json::from_str(value["output"].as_str().unwrap()).unwrap();
        assert_eq!(inner.as_object().unwrap().len(), 2, "{pseudo}");
        assert!(!pseudo.contains("mischa") && !pseudo.contains("jane.doe"));
    }
}
