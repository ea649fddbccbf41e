//! Walking one JSON line: every string literal is decoded, scanned (or, if
//! it holds JSON itself, walked in turn) and the matches become edits of
//! the raw line: byte ranges to replace. Nothing else is touched, so the
//! output has the input's key order, spacing and escapes, and a line with
//! no match is copied unchanged.
//!
//! The walker checks the JSON grammar as it goes (a line that is not JSON
//! is reported by the caller and passed through); it keeps no tree, only
//! a stack of containers for the path of each string.

use std::hash::Hasher;
use std::sync::Arc;

use memchr::memchr;

use super::chars::is_b64;
use super::exceptions::value_hash;
use super::hit::Hit;
use super::kind::KindId;
use super::number;
use super::rules::Rules;

/// How deep JSON held in strings is followed (a string of JSON of a
/// string of JSON…).
const MAX_EMBED: usize = 6;

/// One replacement: `start..end` of the walked buffer gets the kind's
/// placeholder, JSON-escaped `levels` times (once per string it sits in).
#[derive(Debug, Clone)]
pub(crate) struct Edit {
    pub start: usize,
    pub end: usize,
    pub levels: u8,
    pub kind: KindId,
    /// A fingerprint of the matched value (for pseudonyms; never the value).
    pub hash: u128,
    /// The value's [`value_hash`], which names it in a rules file's
    /// exceptions.
    pub id: u64,
    /// JSON path of the string holding the match.
    pub path: String,
    /// The match's byte range in that string, decoded.
    pub span: std::ops::Range<usize>,
    /// Left in place, marked, rather than replaced (an exception the rules
    /// mark: [`Rules::marking_exceptions`](super::Rules::marking_exceptions)).
    pub reveal: bool,
    /// The match is a whole JSON number: its placeholder is written as a
    /// string, quotes included.
    pub number: bool,
    /// The key the match is in, if it is in one.
    pub key: Option<KeyOf>,
}

/// A key holding matches: the object it is a key of (numbered in the
/// line, embedded JSON included) and its raw bytes between the quotes, so
/// two keys of one object that redact to the same text can be told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct KeyOf {
    pub object: u32,
    pub start: usize,
    pub end: usize,
}

/// A container being walked, for paths.
#[derive(Debug, Clone, Copy)]
struct Frame {
    object: bool,
    /// The current key's raw bytes (objects).
    key: (usize, usize),
    /// The current key holds a match: paths show `[*]` instead of it (a
    /// report names where a value was, never the value).
    hidden: bool,
    /// The current element (arrays).
    index: u32,
    /// The object's number in the line (objects).
    id: u32,
}

/// Where a decoded string's bytes came from: one escape sequence.
#[derive(Debug, Clone, Copy)]
struct Escape {
    dec_start: usize,
    dec_end: usize,
    raw_start: usize,
    raw_end: usize,
}

/// Scratch space for one level of embedding, reused across lines.
#[derive(Debug, Default)]
struct Level {
    decoded: Vec<u8>,
    escapes: Vec<Escape>,
    frames: Vec<Frame>,
    inner: Vec<Edit>,
}

/// The path so far, from the line down to the string being walked.
struct PathCtx<'a> {
    parent: Option<&'a PathCtx<'a>>,
    buf: &'a [u8],
    frames: &'a [Frame],
}

/// Finds the edits of JSON lines.
#[derive(Debug)]
pub(crate) struct Engine {
    pub rules: Arc<Rules>,
    levels: Vec<Level>,
    hits: Vec<Hit>,
    seen: Seen,
    /// When set, only top-level strings overlapping these ranges of the
    /// line are scanned (the verify pass: see `line_around`).
    around: Vec<std::ops::Range<usize>>,
    filter: bool,
    /// Objects opened so far in the line.
    objects: u32,
}

/// The long strings already scanned on this line, with their hits: a
/// Claude Code line repeats a tool's output (`content` and
/// `toolUseResult.stdout`, an edit's old and new text), and the copy is
/// not scanned again. Texts are compared byte for byte, not trusted to a
/// hash.
#[derive(Debug, Default)]
struct Seen {
    /// (quick hash, key, text range in `text`, hits range in `hits`)
    entries: Vec<SeenEntry>,
    text: Vec<u8>,
    hits: Vec<Hit>,
}

impl Seen {
    /// Strings shorter than this are scanned every time (they are cheap).
    const MIN: usize = 256;
    /// Most text kept per line.
    const MAX_TEXT: usize = 16 << 20;

    fn clear(&mut self) {
        self.entries.clear();
        self.text.clear();
        self.hits.clear();
    }

    fn find(&self, hash: u64, key: Option<&[u8]>, text: &[u8]) -> Option<&[Hit]> {
        self.entries
            .iter()
            .find(|(h, k, t, _)| *h == hash && k.as_deref() == key && &self.text[t.clone()] == text)
            .map(|(_, _, _, hits)| &self.hits[hits.clone()])
    }

    fn add(&mut self, hash: u64, key: Option<&[u8]>, text: &[u8], hits: &[Hit]) {
        if self.text.len() + text.len() > Self::MAX_TEXT {
            return;
        }
        let t = self.text.len()..self.text.len() + text.len();
        self.text.extend_from_slice(text);
        let h = self.hits.len()..self.hits.len() + hits.len();
        self.hits.extend_from_slice(hits);
        self.entries.push((hash, key.map(<[u8]>::to_vec), t, h));
    }
}

/// (quick hash, key, text range in `Seen::text`, hits range in `Seen::hits`)
type SeenEntry = (
    u64,
    Option<Vec<u8>>,
    std::ops::Range<usize>,
    std::ops::Range<usize>,
);

/// A fast, non-cryptographic hash: only a filter before a byte compare.
fn quick_hash(text: &[u8]) -> u64 {
    let mut h = 0x9E37_79B9_7F4A_7C15u64 ^ text.len() as u64;
    let mut chunks = text.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().unwrap_or([0; 8]));
        h = (h ^ w).wrapping_mul(0x0100_0000_01B3).rotate_left(29);
    }
    for &b in chunks.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3);
    }
    h
}

impl Engine {
    pub(crate) fn new(rules: Arc<Rules>) -> Engine {
        Engine {
            rules,
            levels: Vec::new(),
            hits: Vec::new(),
            seen: Seen::default(),
            around: Vec::new(),
            filter: false,
            objects: 0,
        }
    }

    /// The edits of one line (without its newline), in order, appended to
    /// `out`; `Err(offset)` where the line stops being JSON.
    pub(crate) fn line(&mut self, line: &[u8], out: &mut Vec<Edit>) -> Result<(), usize> {
        let start = out.len();
        self.seen.clear();
        self.objects = 0;
        let r = self.walk(line, 0, None, out);
        if r.is_err() {
            out.truncate(start);
        }
        r
    }

    /// Like `line`, but only strings of the line that overlap one of
    /// `ranges` (sorted) are scanned, with everything inside them; a value
    /// counts from its key, since a key can be redacted too.
    pub(crate) fn line_around(
        &mut self,
        line: &[u8],
        ranges: &[std::ops::Range<usize>],
        out: &mut Vec<Edit>,
    ) -> Result<(), usize> {
        self.around.clear();
        self.around.extend_from_slice(ranges);
        self.filter = true;
        let r = self.line(line, out);
        self.filter = false;
        r
    }

    fn untouched(&self, from: usize, to: usize) -> bool {
        let at = self.around.partition_point(|r| r.end <= from);
        self.around.get(at).is_none_or(|r| r.start >= to)
    }

    fn walk(
        &mut self,
        buf: &[u8],
        depth: usize,
        parent: Option<&PathCtx>,
        out: &mut Vec<Edit>,
    ) -> Result<(), usize> {
        while self.levels.len() <= depth + 1 {
            self.levels.push(Level::default());
        }
        let mut frames = std::mem::take(&mut self.levels[depth].frames);
        frames.clear();
        let r = self.walk_frames(buf, depth, parent, out, &mut frames);
        self.levels[depth].frames = frames;
        r
    }

    fn walk_frames(
        &mut self,
        buf: &[u8],
        depth: usize,
        parent: Option<&PathCtx>,
        out: &mut Vec<Edit>,
        frames: &mut Vec<Frame>,
    ) -> Result<(), usize> {
        let n = buf.len();
        let mut i = skip_ws(buf, 0);
        if i == n {
            // A blank line is fine; an empty embedded string is not JSON.
            return if depth == 0 { Ok(()) } else { Err(i) };
        }
        let mut expect_value = true;
        loop {
            if expect_value {
                i = skip_ws(buf, i);
                match buf.get(i).copied() {
                    Some(b'{') => {
                        self.objects += 1;
                        frames.push(Frame {
                            object: true,
                            key: (0, 0),
                            hidden: false,
                            index: 0,
                            id: self.objects,
                        });
                        i = skip_ws(buf, i + 1);
                        if buf.get(i) == Some(&b'}') {
                            frames.pop();
                            i += 1;
                            expect_value = false;
                        } else {
                            i = self.key(buf, i, depth, parent, out, frames)?;
                        }
                        continue;
                    }
                    Some(b'[') => {
                        frames.push(Frame {
                            object: false,
                            key: (0, 0),
                            hidden: false,
                            index: 0,
                            id: 0,
                        });
                        i = skip_ws(buf, i + 1);
                        if buf.get(i) == Some(&b']') {
                            frames.pop();
                            i += 1;
                            expect_value = false;
                        }
                        continue;
                    }
                    Some(b'"') => {
                        let (end, esc) = string_end(buf, i)?;
                        self.string(buf, i + 1, end, esc, false, depth, parent, out, frames);
                        i = end + 1;
                    }
                    Some(b't') => i = literal(buf, i, b"true")?,
                    Some(b'f') => i = literal(buf, i, b"false")?,
                    Some(b'n') => i = literal(buf, i, b"null")?,
                    Some(b'-' | b'0'..=b'9') => {
                        let end = number_end(buf, i)?;
                        self.number(buf, i, end, parent, out, frames);
                        i = end;
                    }
                    _ => return Err(i),
                }
                expect_value = false;
                continue;
            }
            // After a value: a comma, a closing bracket, or the end.
            i = skip_ws(buf, i);
            let Some(top) = frames.last_mut() else {
                if i == n {
                    return Ok(());
                }
                // Several objects written on one line: each is redacted.
                if depth == 0 && matches!(buf[i], b'{' | b'[') {
                    expect_value = true;
                    continue;
                }
                return Err(i);
            };
            match buf.get(i).copied() {
                Some(b',') => {
                    i = skip_ws(buf, i + 1);
                    if top.object {
                        i = self.key(buf, i, depth, parent, out, frames)?;
                    } else {
                        top.index += 1;
                    }
                    expect_value = true;
                }
                Some(b'}') if top.object => {
                    frames.pop();
                    i += 1;
                }
                Some(b']') if !top.object => {
                    frames.pop();
                    i += 1;
                }
                _ => return Err(i),
            }
        }
    }

    /// A key and its colon at `i`; returns the position of the value.
    fn key(
        &mut self,
        buf: &[u8],
        i: usize,
        depth: usize,
        parent: Option<&PathCtx>,
        out: &mut Vec<Edit>,
        frames: &mut [Frame],
    ) -> Result<usize, usize> {
        if buf.get(i) != Some(&b'"') {
            return Err(i);
        }
        let (end, esc) = string_end(buf, i)?;
        // Keys are data too: a folder's listing as an object keyed by path
        // (`{"/home/jane": "TRUST_PARENT"}`), a token or an address used as
        // a key. Only the matched bytes inside the key are replaced.
        if !name_like(&buf[i + 1..end]) {
            if let Some(top) = frames.last_mut() {
                top.key = (i + 1, end);
                // The key's own findings do not show it in their path.
                top.hidden = true;
            }
            let before = out.len();
            self.string(buf, i + 1, end, esc, true, depth, parent, out, frames);
            if let Some(top) = frames.last_mut() {
                top.hidden = out.len() > before;
            }
        } else if let Some(top) = frames.last_mut() {
            top.key = (i + 1, end);
            top.hidden = false;
        }
        let j = skip_ws(buf, end + 1);
        if buf.get(j) != Some(&b':') {
            return Err(j);
        }
        Ok(j + 1)
    }

    /// One string literal, `buf[start..end]` between its quotes.
    #[allow(clippy::too_many_arguments)]
    fn string(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        esc: bool,
        is_key: bool,
        depth: usize,
        parent: Option<&PathCtx>,
        out: &mut Vec<Edit>,
        frames: &[Frame],
    ) {
        let raw = &buf[start..end];
        let key = match frames.last() {
            Some(f) if f.object && !is_key => Some(&buf[f.key.0..f.key.1]),
            _ => None,
        };
        if self.filter && depth == 0 {
            let from = match frames.last() {
                Some(f) if f.object && !is_key => f.key.0 - 1,
                _ => start - 1,
            };
            if self.untouched(from, end + 1) {
                return;
            }
        }
        if !is_key && (binary_payload(key, raw) || structural(raw)) {
            return;
        }
        let mut decoded = std::mem::take(&mut self.levels[depth].decoded);
        let mut escapes = std::mem::take(&mut self.levels[depth].escapes);
        let mut inner = std::mem::take(&mut self.levels[depth].inner);
        inner.clear();
        let text: &[u8] = if esc {
            decode(raw, &mut decoded, &mut escapes);
            &decoded
        } else {
            raw
        };
        let ctx = PathCtx {
            parent,
            buf,
            frames,
        };
        let mut walked = false;
        if !is_key && depth + 1 < MAX_EMBED && looks_like_json(text) {
            walked = self.walk(text, depth + 1, Some(&ctx), &mut inner).is_ok();
            if !walked {
                inner.clear();
            }
        }
        if !walked {
            let mut hits = std::mem::take(&mut self.hits);
            if text.len() >= Seen::MIN {
                let hash = quick_hash(text);
                match self.seen.find(hash, key, text) {
                    Some(found) => {
                        hits.clear();
                        hits.extend_from_slice(found);
                    }
                    None => {
                        self.rules.scan(text, key, &mut hits);
                        self.seen.add(hash, key, text, &hits);
                    }
                }
            } else if text.len() >= 6 || key.is_some() {
                self.rules.scan(text, key, &mut hits);
            } else {
                // Nothing a rule finds is shorter than `a@b.io` or `1.2.3.4`,
                // but a password named by its key.
                hits.clear();
            }
            if !hits.is_empty() {
                let mut path = String::new();
                render(&ctx, &mut path);
                for h in &hits {
                    inner.push(Edit {
                        start: h.start,
                        end: h.end,
                        levels: 0,
                        kind: h.kind,
                        hash: fingerprint(&text[h.start..h.end]),
                        id: value_hash(&text[h.start..h.end]),
                        path: path.clone(),
                        span: h.start..h.end,
                        reveal: false,
                        number: false,
                        key: None,
                    });
                }
            }
            self.hits = hits;
        }
        let raw_range = |a: usize, b: usize| {
            if esc {
                (
                    start + to_raw(&escapes, a, false),
                    start + to_raw(&escapes, b, true),
                )
            } else {
                (start + a, start + b)
            }
        };
        for mut e in inner.drain(..) {
            (e.start, e.end) = raw_range(e.start, e.end);
            if let Some(k) = &mut e.key {
                (k.start, k.end) = raw_range(k.start, k.end);
            } else if is_key {
                e.key = frames.last().map(|f| KeyOf {
                    object: f.id,
                    start,
                    end,
                });
            }
            e.levels += 1;
            out.push(e);
        }
        self.levels[depth].decoded = decoded;
        self.levels[depth].escapes = escapes;
        self.levels[depth].inner = inner;
    }
}

impl Engine {
    /// One JSON number, `buf[start..end]`: an integer of the digits a
    /// card, a phone number, an SSN or a PIN has is given to the number
    /// rules with its key; a match is the whole number.
    fn number(
        &mut self,
        buf: &[u8],
        start: usize,
        end: usize,
        parent: Option<&PathCtx>,
        out: &mut Vec<Edit>,
        frames: &[Frame],
    ) {
        let digits = &buf[start..end];
        if !(number::MIN_DIGITS..=number::MAX_DIGITS).contains(&digits.len())
            || !digits.iter().all(u8::is_ascii_digit)
        {
            return;
        }
        if self.filter && parent.is_none() && self.untouched(start, end) {
            return;
        }
        let key = match frames.last() {
            Some(f) if f.object => Some(&buf[f.key.0..f.key.1]),
            _ => None,
        };
        // Nothing but a card is found without a key.
        if key.is_none() && digits.len() < 13 {
            return;
        }
        let mut hits = std::mem::take(&mut self.hits);
        self.rules.scan_number(digits, key, &mut hits);
        if let Some(h) = hits.iter().max_by_key(|h| h.rank) {
            let ctx = PathCtx {
                parent,
                buf,
                frames,
            };
            let mut path = String::new();
            render(&ctx, &mut path);
            out.push(Edit {
                start,
                end,
                levels: 0,
                kind: h.kind,
                hash: fingerprint(digits),
                id: value_hash(digits),
                path,
                span: 0..digits.len(),
                reveal: false,
                number: true,
                key: None,
            });
        }
        self.hits = hits;
    }
}

/// Keys no rule can match in, not scanned: shorter than the shortest
/// match (`a@b.io`, `1.2.3.4`), or a name of letters and underscores
/// (`content`, `cache_read_input_tokens`), the keys of nearly every line.
/// A run of 20 letters or more between underscores is not a name but may
/// be a token of letters only: a Hugging Face token (`hf_` and 34
/// letters), an AWS key id whose random part has no digit.
fn name_like(raw: &[u8]) -> bool {
    if raw.len() < 6 {
        return true;
    }
    // One pass: nearly every key of every line comes here.
    let mut run = 0;
    for &b in raw {
        if b == b'_' {
            run = 0;
        } else if b.is_ascii_alphabetic() && run < 19 {
            run += 1;
        } else {
            return false;
        }
    }
    true
}

/// Values that are binary data in base64, left as they are: images,
/// thinking signatures, encrypted reasoning.
fn binary_payload(key: Option<&[u8]>, raw: &[u8]) -> bool {
    match key {
        Some(
            b"signature" | b"encrypted_content" | b"encryptedContent" | b"thoughtSignature"
            | b"thought_signature",
        ) => return raw.len() >= 32,
        Some(b"data" | b"base64" | b"b64_json" | b"image" | b"bytes" | b"blob" | b"imageData")
            if raw.len() >= 256
                && raw[..256]
                    .iter()
                    .all(|&b| is_b64(b) || b == b'\\' || b == b'-' || b == b'_') =>
        {
            return true;
        }
        _ => {}
    }
    if raw.len() >= 256 && raw.starts_with(b"data:") {
        if let Some(p) = memchr::memmem::find(&raw[..100], b";base64,") {
            return raw[p + 8..]
                .iter()
                .take(256)
                .all(|&b| is_b64(b) || b == b'\\');
        }
    }
    raw.len() >= 4096 && raw.iter().all(|&b| is_b64(b))
}

/// Values that are ids or times, the most common strings in a session:
/// a UUID, an RFC 3339 timestamp. Nothing can hide in them.
fn structural(raw: &[u8]) -> bool {
    let uuid = raw.len() == 36
        && raw.iter().enumerate().all(|(x, &b)| {
            if matches!(x, 8 | 13 | 18 | 23) {
                b == b'-'
            } else {
                b.is_ascii_hexdigit()
            }
        });
    let time = (20..=35).contains(&raw.len())
        && raw[4] == b'-'
        && raw[10] == b'T'
        && raw
            .iter()
            .all(|&b| b.is_ascii_digit() || matches!(b, b'-' | b':' | b'.' | b'T' | b'Z' | b'+'));
    uuid || time
}

fn looks_like_json(text: &[u8]) -> bool {
    let i = skip_ws(text, 0);
    matches!(text.get(i), Some(b'{' | b'['))
}

/// Appends the path of the string `ctx` points at: `message.content[2].text`,
/// with `.$json` where a string's JSON content was entered.
fn render(ctx: &PathCtx, out: &mut String) {
    if let Some(p) = ctx.parent {
        render(p, out);
        out.push_str(if out.is_empty() { "$json" } else { ".$json" });
    }
    for f in ctx.frames {
        if f.object && f.hidden {
            out.push_str("[*]");
        } else if f.object {
            let key = String::from_utf8_lossy(&ctx.buf[f.key.0..f.key.1]);
            let plain = !key.is_empty()
                && key.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'@' || b == b'$'
                });
            if plain {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&key);
            } else {
                out.push_str("[\"");
                out.push_str(&key.replace('\\', "\\\\").replace('"', "\\\""));
                out.push_str("\"]");
            }
        } else {
            out.push('[');
            out.push_str(&f.index.to_string());
            out.push(']');
        }
    }
}

/// A 128-bit fingerprint of a matched value, so equal values get equal
/// pseudonyms without the values being kept.
pub(crate) fn fingerprint(value: &[u8]) -> u128 {
    let mut a = std::hash::DefaultHasher::new();
    a.write(value);
    let mut b = std::hash::DefaultHasher::new();
    b.write_u8(0x5a);
    b.write(value);
    (u128::from(a.finish()) << 64) | u128::from(b.finish())
}

fn skip_ws(buf: &[u8], mut i: usize) -> usize {
    while i < buf.len() && matches!(buf[i], b' ' | b'\t' | b'\r' | b'\n') {
        i += 1;
    }
    i
}

fn literal(buf: &[u8], i: usize, word: &[u8]) -> Result<usize, usize> {
    if buf.len() >= i + word.len() && &buf[i..i + word.len()] == word {
        Ok(i + word.len())
    } else {
        Err(i)
    }
}

/// The end of the number at `i` (JSON grammar).
fn number_end(buf: &[u8], mut i: usize) -> Result<usize, usize> {
    let digits = |buf: &[u8], mut i: usize| {
        let s = i;
        while i < buf.len() && buf[i].is_ascii_digit() {
            i += 1;
        }
        (i, i - s)
    };
    if buf.get(i) == Some(&b'-') {
        i += 1;
    }
    match buf.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits(buf, i).0,
        _ => return Err(i),
    }
    if buf.get(i) == Some(&b'.') {
        let (j, n) = digits(buf, i + 1);
        if n == 0 {
            return Err(j);
        }
        i = j;
    }
    if matches!(buf.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(buf.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let (j, n) = digits(buf, i);
        if n == 0 {
            return Err(j);
        }
        i = j;
    }
    Ok(i)
}

/// Bytes that end the fast path inside a string: the quote, a backslash,
/// or a control character (not allowed raw in JSON).
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The closing quote of the string whose opening quote is at `i`, and
/// whether it has escapes. Checks the escapes' grammar.
fn string_end(buf: &[u8], i: usize) -> Result<(usize, bool), usize> {
    let mut j = i + 1;
    let mut esc = false;
    loop {
        // Eight bytes at a time while none of them stops the scan: no
        // quote, no backslash, no byte below 0x20 (SWAR: a byte is flagged
        // when it equals the pattern, or is under 0x20).
        while let Some((word, _)) = buf.get(j..).and_then(<[u8]>::split_first_chunk::<8>) {
            let w = u64::from_le_bytes(*word);
            const ONES: u64 = 0x0101_0101_0101_0101;
            const HIGH: u64 = 0x8080_8080_8080_8080;
            let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
            let quote = zero(w ^ (ONES * u64::from(b'"')));
            let slash = zero(w ^ (ONES * u64::from(b'\\')));
            let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
            let stop = quote | slash | control;
            if stop != 0 {
                // The lowest flagged byte is exact (the borrow tricks only
                // misflag bytes above a true one).
                j += (stop.trailing_zeros() / 8) as usize;
                break;
            }
            j += 8;
        }
        while j < buf.len() && !STRING_STOP[buf[j] as usize] {
            j += 1;
        }
        match buf.get(j) {
            Some(b'"') => return Ok((j, esc)),
            Some(b'\\') => {
                esc = true;
                match buf.get(j + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => j += 2,
                    Some(b'u') => {
                        let hex = buf.get(j + 2..j + 6).ok_or(j)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return Err(j);
                        }
                        j += 6;
                    }
                    _ => return Err(j),
                }
            }
            _ => return Err(j),
        }
    }
}

/// Decodes a string's raw content (already checked by `string_end`),
/// noting where each escape came from.
fn decode(raw: &[u8], out: &mut Vec<u8>, escapes: &mut Vec<Escape>) {
    out.clear();
    escapes.clear();
    out.reserve(raw.len());
    let mut i = 0;
    while i < raw.len() {
        // Plain bytes up to the next backslash, eight at a time while a
        // word has none (escapes are a few dozen bytes apart in tool
        // output, too close for a memchr call to pay off).
        let mut next = i;
        let mut found = false;
        while let Some((word, _)) = raw.get(next..).and_then(<[u8]>::split_first_chunk::<8>) {
            let w = u64::from_le_bytes(*word);
            const ONES: u64 = 0x0101_0101_0101_0101;
            let x = w ^ (ONES * u64::from(b'\\'));
            let hit = x.wrapping_sub(ONES) & !x & (ONES << 7);
            if hit != 0 {
                next += (hit.trailing_zeros() / 8) as usize;
                found = true;
                break;
            }
            next += 8;
        }
        if !found {
            next = memchr(b'\\', &raw[next..]).map_or(raw.len(), |p| next + p);
        }
        out.extend_from_slice(&raw[i..next]);
        i = next;
        if i >= raw.len() {
            break;
        }
        let dec_start = out.len();
        let raw_start = i;
        let c = raw[i + 1];
        i += 2;
        match c {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'u' => {
                let hi = hex4(&raw[i..i + 4]);
                i += 4;
                let mut cp = hi;
                if (0xD800..0xDC00).contains(&hi)
                    && raw.get(i) == Some(&b'\\')
                    && raw.get(i + 1) == Some(&b'u')
                    && raw.len() >= i + 6
                {
                    let lo = hex4(&raw[i + 2..i + 6]);
                    if (0xDC00..0xE000).contains(&lo) {
                        cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                        i += 6;
                    }
                }
                let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                let mut tmp = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
            }
            other => out.push(other),
        }
        escapes.push(Escape {
            dec_start,
            dec_end: out.len(),
            raw_start,
            raw_end: i,
        });
    }
}

fn hex4(h: &[u8]) -> u32 {
    h.iter().fold(0, |n, &b| {
        n * 16
            + match b {
                b'0'..=b'9' => u32::from(b - b'0'),
                b'a'..=b'f' => u32::from(b - b'a' + 10),
                _ => u32::from(b - b'A' + 10),
            }
    })
}

/// A decoded offset as a raw one; an offset inside one escape's output
/// widens to the whole escape (start back, end forward).
fn to_raw(escapes: &[Escape], d: usize, is_end: bool) -> usize {
    let before = escapes.partition_point(|x| x.dec_start < d);
    if before == 0 {
        return d;
    }
    let x = escapes[before - 1];
    if d < x.dec_end {
        return if is_end { x.raw_end } else { x.raw_start };
    }
    x.raw_end + (d - x.dec_end)
}

/// Appends `text` as the inside of a JSON string.
pub(crate) fn escape_into(text: &[u8], out: &mut Vec<u8>) {
    for &b in text {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0..=0x1f => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(b >> 4) as usize]);
                out.push(HEX[(b & 15) as usize]);
            }
            _ => out.push(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoded_offsets_map_back_to_raw() {
        let raw = br#"a\nb\u00e9c\\d"#;
        let mut out = Vec::new();
        let mut esc = Vec::new();
        decode(raw, &mut out, &mut esc);
        assert_eq!(out, "a\nbéc\\d".as_bytes());
        // "c" is decoded byte 5 (a, \n, b, é=2 bytes); raw byte 10.
        assert_eq!(to_raw(&esc, 5, false), 10);
        // The middle of "é" widens to the whole `\u00e9`.
        assert_eq!(to_raw(&esc, 4, false), 4);
        assert_eq!(to_raw(&esc, 4, true), 10);
        assert_eq!(to_raw(&esc, out.len(), true), raw.len());
    }

    /// The edits of one line: (replaced raw text, JSON path).
    fn edits(line: &str) -> Vec<(String, String)> {
        let mut engine = Engine::new(Arc::new(Rules::builtin()));
        let mut out = Vec::new();
        engine.line(line.as_bytes(), &mut out).unwrap();
        out.iter()
            .map(|e| (line[e.start..e.end].to_owned(), e.path.clone()))
            .collect()
    }

    #[test]
    fn keys_are_scanned_and_their_paths_hide_them() {
        // A short key holding a home path: only the user name is an edit,
        // and no path names it.
        let line = r#"{"folders":{"/home/mischa":"TRUST_PARENT","ok":"x"}}"#;
        assert_eq!(
            edits(line),
            [("mischa".to_owned(), "folders[*]".to_owned())]
        );
        // The same object as JSON held in a tool's output: the edit is of
        // the raw (escaped) line, its path through the string.
        let line = r#"{"output":"{\n  \"/home/mischa\": \"TRUST_PARENT\"\n}"}"#;
        assert_eq!(
            edits(line),
            [("mischa".to_owned(), "output.$json[*]".to_owned())]
        );
        // A value under a key that holds a match is found by a path that
        // does not show the key either.
        let line = r#"{"jane.doe@quantumleap-labs.io":{"note":"mail bob.smith@fastmail.com"}}"#;
        let got = edits(line);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(
            got[0],
            ("jane.doe@quantumleap-labs.io".into(), "[*]".into())
        );
        assert_eq!(got[1], ("bob.smith@fastmail.com".into(), "[*].note".into()));
        // Names are not scanned, nor keys too short for any match.
        assert!(edits(r#"{"cache_read_input_tokens":1,"a@b":2}"#).is_empty());
        assert!(name_like(b"cache_read_input_tokens"));
        assert!(name_like(b"a@b.i"));
        assert!(!name_like(b"a@b.io"));
        assert!(!name_like(b"/home/x"));
        // Letters only, but a token's length: scanned.
        assert!(!name_like(b"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"));
        assert!(!name_like(b"ASIALNUYUGXPGNSTREKE"));
        assert!(name_like(b"isVisibleInTranscriptOnly".split_at(19).0));
    }

    #[test]
    fn the_verify_pass_sees_keys() {
        // The verify pass re-scans only strings where placeholders were
        // written: a key is one of them, and so is JSON in a string whose
        // key changed.
        let line = r#"{"a":"x","/home/mischa":1,"b":"{\"/Users/jane/x\":2}"}"#;
        let key = line.find("mischa").unwrap();
        let inner = line.find("jane").unwrap();
        let mut engine = Engine::new(Arc::new(Rules::builtin()));
        let around = |engine: &mut Engine, range: std::ops::Range<usize>| {
            let mut out = Vec::new();
            engine
                .line_around(line.as_bytes(), std::slice::from_ref(&range), &mut out)
                .unwrap();
            out.iter()
                .map(|e| line[e.start..e.end].to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(around(&mut engine, key..key + 1), ["mischa"]);
        assert_eq!(around(&mut engine, inner..inner + 1), ["jane"]);
        assert!(around(&mut engine, 1..3).is_empty());
    }

    #[test]
    fn grammar() {
        assert_eq!(number_end(b"-12.5e+3,", 0), Ok(8));
        assert!(number_end(b"01", 0).is_ok_and(|e| e == 1));
        assert!(number_end(b"-", 0).is_err());
        assert_eq!(string_end(br#""a\"b" "#, 0), Ok((5, true)));
        assert!(string_end(br#""a\x""#, 0).is_err());
        assert!(string_end(b"\"a\nb\"", 0).is_err());
    }
}
