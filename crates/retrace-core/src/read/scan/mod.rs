//! The structural scanner: finds a line's JSON objects and their first two
//! levels of keys without parsing the bodies.
//!
//! Opening a session must run at close to the speed of reading the file, so
//! this does not parse JSON. It classifies 64 bytes at a time into bit masks
//! (quotes, backslashes, brackets, colons, commas), works out which bytes lie
//! inside strings with a prefix-XOR over the unescaped quotes, and walks only
//! the structural characters that sit outside strings. Below depth two only
//! brackets are followed, so the bulk of a line (message text, tool output)
//! costs a few vector instructions per 64 bytes.
//!
//! What it checks: one or more objects per line, balanced brackets, closed
//! strings, nothing but whitespace around the objects, and in the first two
//! levels (where the keys the index reads live) the grammar of keys, colons,
//! commas and scalar tokens, so a broken line cannot yield a wrong parent id.
//! Deeper grammar, escapes and UTF-8 are checked when a body is parsed (see
//! `Session::check`).

#[allow(unsafe_code)] // SIMD intrinsics; every block says why it is sound.
mod simd;

use simd::{Baseline, Kernel, Masks};

/// A byte range within the line being scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn get<'a>(&self, line: &'a [u8]) -> &'a [u8] {
        &line[self.start as usize..self.end as usize]
    }
}

/// The JSON type of a field's value, from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueKind {
    String,
    Object,
    Array,
    Other,
}

/// A key found at depth one (a top-level key) or two (a key of an object
/// that is the value of a top-level key).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    /// Which object of the line this belongs to (0 unless objects were run
    /// together on one line).
    pub object: u16,
    /// For a depth-two key, the index in `fields` of its depth-one parent.
    pub parent: Option<u16>,
    /// The key, without quotes, escapes left as written.
    pub key: Span,
    /// The value; for strings without the quotes, escapes left as written.
    pub value: Span,
    pub kind: ValueKind,
}

/// Why a line is not a sequence of well-formed JSON objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScanError {
    /// The first non-blank byte is not `{` (a number, array, string, text).
    NotAnObject,
    /// Something other than whitespace or another object follows an object.
    TrailingCharacters,
    /// A `}` or `]` with nothing open.
    UnbalancedClose,
    /// The line ends inside a string.
    UnterminatedString,
    /// The line ends with brackets still open (often a torn last line).
    Unclosed,
    /// A key without its colon, or a value where a key belongs.
    ExpectedKey,
    ExpectedColon,
    /// Two values with no comma between them.
    MissingComma,
    /// A colon outside a key-value pair.
    UnexpectedColon,
    /// A comma with no value before it, or a missing value.
    MissingValue,
    /// A comma right before a closing bracket.
    TrailingComma,
    /// Something that is not a string, number, `true`, `false` or `null`.
    BadValue,
    /// `]` closing an object or `}` closing an array.
    MismatchedBracket,
}

impl ScanError {
    pub fn message(self) -> &'static str {
        match self {
            ScanError::NotAnObject => "line is not a JSON object",
            ScanError::TrailingCharacters => "unexpected characters after the JSON object",
            ScanError::UnbalancedClose => "closing bracket without a matching opening one",
            ScanError::UnterminatedString => "line ends inside a string (truncated?)",
            ScanError::Unclosed => "line ends before the JSON object is closed (truncated?)",
            ScanError::ExpectedKey => "expected a quoted key",
            ScanError::ExpectedColon => "expected a colon after the key",
            ScanError::MissingComma => "missing comma between values",
            ScanError::UnexpectedColon => "unexpected colon",
            ScanError::MissingValue => "missing value",
            ScanError::TrailingComma => "comma before a closing bracket",
            ScanError::BadValue => "not a JSON value (strings need quotes)",
            ScanError::MismatchedBracket => "closing bracket does not match the opening one",
        }
    }
}

/// What one line holds.
#[derive(Debug, Default)]
pub(crate) struct LineScan {
    /// The objects on the line (more than one when they were run together).
    pub objects: Vec<Span>,
    pub fields: Vec<Field>,
    /// The first structural problem and the offset where it was seen.
    pub error: Option<(u32, ScanError)>,
}

impl LineScan {
    /// Records a field of the object being scanned (as many as a `u16`
    /// can number; the rest are not indexed).
    #[inline]
    fn push_field(&mut self, parent: Option<u16>, key: Span, value: Span, kind: ValueKind) {
        if self.fields.len() < u16::MAX as usize {
            self.fields.push(Field {
                object: self.objects.len() as u16,
                parent,
                key,
                value,
                kind,
            });
        }
    }

    fn clear(&mut self) {
        self.objects.clear();
        self.fields.clear();
        self.error = None;
    }

    /// The fields of object `object` at depth one.
    #[cfg(test)]
    pub fn top_fields(&self, object: u16) -> impl Iterator<Item = (usize, &Field)> {
        self.fields
            .iter()
            .enumerate()
            .filter(move |(_, f)| f.object == object && f.parent.is_none())
    }
}

/// An open container at depth one or two.
#[derive(Clone, Copy)]
struct Frame {
    is_object: bool,
    /// The index in `fields` of the key whose value is open, if any.
    field: Option<u16>,
    /// Where the current segment started: after the opening bracket, a
    /// comma or a colon. Only blanks and one value may follow it.
    value_start: u32,
    /// Next string in this object is a key.
    expect_key: bool,
    /// Key seen, value not yet ended.
    pending_key: Option<Span>,
    /// The pending key's colon was seen.
    colon: bool,
    /// A string or container value was completed in this segment; only
    /// blanks may follow it, from `tail_start`.
    value_done: bool,
    tail_start: u32,
    /// The last separator was a comma (so a closing bracket is an error).
    after_comma: bool,
}

impl Frame {
    /// After a comma at `p`: the next member begins.
    #[inline]
    fn next_member(&mut self, p: u32) {
        self.expect_key = self.is_object;
        self.colon = false;
        self.value_done = false;
        self.after_comma = true;
        self.value_start = p + 1;
    }
}

const NO_FRAME: Frame = Frame {
    is_object: false,
    field: None,
    value_start: 0,
    expect_key: false,
    pending_key: None,
    colon: false,
    value_done: false,
    tail_start: 0,
    after_comma: false,
};

/// Bytes that may appear between JSON tokens.
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_blank(line: &[u8], start: u32, end: u32) -> bool {
    start >= end || line[start as usize..end as usize].iter().all(|&b| is_ws(b))
}

/// Whether `bytes` is a JSON number or literal. Loose on number syntax
/// (`1e`, `--1` pass; the full parse catches those), strict on anything
/// that is not a token at all.
fn is_scalar(bytes: &[u8]) -> bool {
    match bytes.first() {
        Some(b'-' | b'0'..=b'9') => bytes
            .iter()
            .all(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')),
        _ => matches!(bytes, b"true" | b"false" | b"null"),
    }
}

fn trim(line: &[u8], mut start: u32, mut end: u32) -> Span {
    while start < end && is_ws(line[start as usize]) {
        start += 1;
    }
    while end > start && is_ws(line[end as usize - 1]) {
        end -= 1;
    }
    Span { start, end }
}

/// Marks the backslash-escaped bytes of a block: each bit of `bs` is a
/// backslash; a byte is escaped when an odd-length run of backslashes ends
/// right before it. `carry` says whether the previous block ended in such an
/// odd run. (The standard even/odd run trick used by SIMD JSON parsers.)
///
/// The carry out is worked out from `bs` alone: unless the whole block is
/// backslashes, the run that ends it starts inside it, after a byte that is
/// not a backslash, so it escapes the next byte when its length is odd,
/// whatever came before. The next block then need not wait for this one's
/// mask, and blocks inside long strings overlap in the CPU.
#[inline(always)]
fn escaped_bytes(bs: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let carry_in = *carry;
    let ending_run = (!bs).leading_zeros();
    *carry = if bs == !0 {
        carry_in
    } else {
        u64::from(ending_run & 1)
    };
    let bs = bs & !carry_in;
    let follows_escape = (bs << 1) | carry_in;
    let odd_starts = bs & !EVEN & !follows_escape;
    let invert = odd_starts.wrapping_add(bs) << 1;
    (EVEN ^ invert) & follows_escape
}

/// Scans one line (without its `\n`) into `out`.
pub(crate) fn scan_line(line: &[u8], out: &mut LineScan) {
    scan::<false>(line, out);
}

/// Where [`scan_object_ahead`] found the object's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ahead {
    /// The closing brace.
    pub end: usize,
    /// Newlines before it.
    pub newlines: u32,
}

/// Scans the object that opens at `bytes[0]` and ends somewhere in `bytes`
/// (an element of a JSON document, with more of the document after it), as
/// [`scan_line`] would scan exactly its bytes, and says where it closed.
/// `None`, with `out` unspecified, when it does not close well-formed within
/// `bytes`, or a backslash lies outside a string in a block before it
/// closes (the document framer takes such a backslash as an ordinary byte,
/// the block-wise escape logic does not; the framer then reads the element
/// itself).
pub(crate) fn scan_object_ahead(bytes: &[u8], out: &mut LineScan) -> Option<Ahead> {
    scan::<true>(bytes, out)
}

#[allow(unsafe_code)] // calls the kernel the CPU was checked for
fn scan<const AHEAD: bool>(line: &[u8], out: &mut LineScan) -> Option<Ahead> {
    #[cfg(target_arch = "x86_64")]
    if crate::read::scan::simd::Avx512::available() {
        // SAFETY: the CPU has AVX-512BW and PCLMULQDQ.
        return unsafe { scan_avx512::<AHEAD>(line, out) };
    }
    #[cfg(target_arch = "x86_64")]
    if crate::read::scan::simd::Avx2::available() {
        // SAFETY: the CPU has AVX2 and PCLMULQDQ.
        return unsafe { scan_avx2::<AHEAD>(line, out) };
    }
    scan_with::<Baseline, AHEAD>(line, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq")]
fn scan_avx2<const AHEAD: bool>(line: &[u8], out: &mut LineScan) -> Option<Ahead> {
    scan_with::<crate::read::scan::simd::Avx2, AHEAD>(line, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,pclmulqdq")]
fn scan_avx512<const AHEAD: bool>(line: &[u8], out: &mut LineScan) -> Option<Ahead> {
    scan_with::<crate::read::scan::simd::Avx512, AHEAD>(line, out)
}

/// The scanner's loop. With `AHEAD`, `line` runs on past one object: the
/// loop stops where it closes (see [`scan_object_ahead`]); newlines are
/// counted for the caller's line numbers.
#[inline(always)]
fn scan_with<K: Kernel, const AHEAD: bool>(line: &[u8], out: &mut LineScan) -> Option<Ahead> {
    out.clear();
    let mut st = State {
        depth: 0,
        frames: [NO_FRAME; 3],
        string_start: 0,
        object_start: 0,
        seen_object_end: None,
    };
    // The line must open with an object.
    match line.iter().position(|&b| !is_ws(b)) {
        None => return None,
        Some(i) if line[i] != b'{' => {
            out.error = Some((i as u32, ScanError::NotAnObject));
            return None;
        }
        Some(_) => {}
    }
    let mut esc_carry = 0u64;
    let mut str_carry = 0u64;
    let mut pos = 0usize;
    let mut newlines = 0u32;
    while pos < line.len() {
        let full: Option<&[u8; 64]> = line
            .get(pos..pos + 64)
            .map(|b| b.try_into().expect("64 bytes"));
        let (quote, backslash) = match full {
            Some(block) => K::quotes(block),
            None => {
                let m = K::classify_tail(&line[pos..]);
                (m.quote, m.backslash)
            }
        };
        let escaped = escaped_bytes(backslash, &mut esc_carry);
        let quotes = quote & !escaped;
        if quotes == 0 && str_carry != 0 {
            // The whole block lies inside a string (decided before the
            // prefix XOR, whose latency would hold up the branch).
            if AHEAD {
                let m = all_masks::<K>(line, pos, full, quote, backslash);
                newlines += m.newline.count_ones();
            }
            pos += 64;
            continue;
        }
        let m = all_masks::<K>(line, pos, full, quote, backslash);
        let in_string = K::prefix_xor(quotes) ^ str_carry;
        str_carry = ((in_string as i64) >> 63) as u64;
        let outside = !in_string;
        if AHEAD && m.backslash & outside != 0 {
            return None;
        }
        let brackets = (m.open | m.close) & outside;
        let all = ((m.colon | m.comma) & outside) | brackets | quotes;
        let mut rest = !0u64;
        loop {
            let candidates = if st.depth >= 3 { brackets } else { all } & rest;
            if candidates == 0 {
                break;
            }
            let bit = candidates.trailing_zeros();
            rest = (!0u64 << bit) << 1;
            let p = (pos + bit as usize) as u32;
            let mask = 1u64 << bit;
            if st.depth >= 3 {
                // Deep inside a value only the depth is tracked: keep this
                // hot path free of calls.
                if m.open & mask != 0 {
                    st.depth += 1;
                } else {
                    st.depth -= 1;
                    if st.depth == 2 {
                        let frame = &mut st.frames[2];
                        frame.value_done = true;
                        frame.tail_start = p + 1;
                    }
                }
                continue;
            }
            let r = if quotes & mask != 0 {
                let opening = in_string & mask != 0;
                let r = st.quote(line, p, opening);
                if r.is_ok() && opening {
                    let block = Block {
                        pos,
                        quotes,
                        events: all,
                    };
                    st.compact_fields(line, block, bit, &mut rest, out);
                }
                r
            } else if m.open & mask != 0 {
                st.open(line, p, out)
            } else if m.close & mask != 0 {
                st.close(line, p, out)
            } else if m.colon & mask != 0 {
                st.colon(line, p)
            } else {
                st.comma(line, p, out)
            };
            if let Err(e) = r {
                out.error = Some((p, e));
                return None;
            }
            if AHEAD && st.depth == 0 {
                // Only a closing brace brings the depth back to 0.
                let before = m.newline & (mask - 1);
                return Some(Ahead {
                    end: p as usize,
                    newlines: newlines + before.count_ones(),
                });
            }
        }
        if AHEAD {
            newlines += m.newline.count_ones();
        }
        pos += 64;
    }
    if AHEAD {
        // The object did not close in `line`.
        return None;
    }
    let end = line.len() as u32;
    if str_carry != 0 {
        out.error = Some((end, ScanError::UnterminatedString));
    } else if st.depth > 0 {
        out.error = Some((end, ScanError::Unclosed));
    } else if let Some(last) = st.seen_object_end {
        if line[last as usize..].iter().any(|&b| !is_ws(b)) {
            out.error = Some((last, ScanError::TrailingCharacters));
        }
    }
    None
}

/// Every class of the block at `pos` (`full` when 64 bytes remain), whose
/// quotes and backslashes are known. A function, not a closure: a closure
/// does not take the target features of the kernel it is inlined into, and
/// the intrinsics in it then stay calls (which made reading a JSON document
/// five times slower).
#[inline(always)]
fn all_masks<K: Kernel>(
    line: &[u8],
    pos: usize,
    full: Option<&[u8; 64]>,
    quote: u64,
    backslash: u64,
) -> Masks {
    match full {
        Some(block) => K::structure(block, quote, backslash),
        None => K::classify_tail(&line[pos..]),
    }
}

/// How far [`follow_container`] got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Followed {
    /// The closing bracket that brought the depth down to the target
    /// (`closed`), else the first byte not looked at.
    pub at: usize,
    pub closed: bool,
    /// Newlines in `from..at`.
    pub newlines: u32,
}

/// Follows the strings and brackets of a container from `bytes[from..]`,
/// 64 bytes at a time, until a closing bracket outside strings brings
/// `depth` down to `target`; `depth` and `in_string` are the state at
/// `from` and become the state where it stopped. The byte before `from`
/// must not be a backslash that escapes it.
///
/// Only whole blocks are looked at: it stops (not `closed`) where fewer
/// than 64 bytes are left, and before a block where a backslash lies
/// outside a string. A byte-by-byte reader (the document framer) takes a
/// backslash outside a string as an ordinary byte, while the block trick
/// lets every backslash run escape the byte after it; as long as every
/// backslash lies inside a string the two readings agree, so the caller
/// reads such a block byte by byte and both give the same framing.
#[allow(unsafe_code)] // calls the kernel the CPU was checked for
pub(crate) fn follow_container(
    bytes: &[u8],
    from: usize,
    depth: &mut u32,
    target: u32,
    in_string: &mut bool,
) -> Followed {
    #[cfg(target_arch = "x86_64")]
    if crate::read::scan::simd::Avx512::available() {
        // SAFETY: the CPU has AVX-512BW and PCLMULQDQ.
        return unsafe { follow_container_avx512(bytes, from, depth, target, in_string) };
    }
    #[cfg(target_arch = "x86_64")]
    if crate::read::scan::simd::Avx2::available() {
        // SAFETY: the CPU has AVX2 and PCLMULQDQ.
        return unsafe { follow_container_avx2(bytes, from, depth, target, in_string) };
    }
    follow_container_with::<Baseline>(bytes, from, depth, target, in_string)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,pclmulqdq")]
fn follow_container_avx2(
    bytes: &[u8],
    from: usize,
    depth: &mut u32,
    target: u32,
    in_string: &mut bool,
) -> Followed {
    follow_container_with::<crate::read::scan::simd::Avx2>(bytes, from, depth, target, in_string)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,pclmulqdq")]
fn follow_container_avx512(
    bytes: &[u8],
    from: usize,
    depth: &mut u32,
    target: u32,
    in_string: &mut bool,
) -> Followed {
    follow_container_with::<crate::read::scan::simd::Avx512>(bytes, from, depth, target, in_string)
}

#[inline(always)]
fn follow_container_with<K: Kernel>(
    bytes: &[u8],
    from: usize,
    depth: &mut u32,
    target: u32,
    in_string: &mut bool,
) -> Followed {
    let mut esc_carry = 0u64;
    let mut str_carry = if *in_string { !0u64 } else { 0 };
    let mut pos = from;
    let mut newlines = 0u32;
    while bytes.len() - pos >= 64 {
        let block: &[u8; 64] = bytes[pos..pos + 64].try_into().expect("64 bytes");
        let m: Masks = K::classify(block);
        let mut carry = esc_carry;
        let escaped = escaped_bytes(m.backslash, &mut carry);
        let quotes = m.quote & !escaped;
        // Bits of opening quotes and string interiors.
        let inside = K::prefix_xor(quotes) ^ str_carry;
        if m.backslash & !inside != 0 {
            break;
        }
        esc_carry = carry;
        str_carry = ((inside as i64) >> 63) as u64;
        let mut brackets = (m.open | m.close) & !inside;
        while brackets != 0 {
            let bit = brackets.trailing_zeros();
            brackets &= brackets - 1;
            if m.open >> bit & 1 != 0 {
                *depth += 1;
                continue;
            }
            *depth -= 1;
            if *depth == target {
                *in_string = false;
                newlines += (m.newline & ((1u64 << bit) - 1)).count_ones();
                return Followed {
                    at: pos + bit as usize,
                    closed: true,
                    newlines,
                };
            }
        }
        newlines += m.newline.count_ones();
        pos += 64;
    }
    *in_string = str_carry != 0;
    Followed {
        at: pos,
        closed: false,
        newlines,
    }
}

/// A block as [`State::compact_fields`] reads it: where it starts, its
/// unescaped quotes and all its events at the first two levels.
#[derive(Clone, Copy)]
struct Block {
    pos: usize,
    quotes: u64,
    events: u64,
}

struct State {
    /// Open containers.
    depth: u32,
    /// Frames for depths 1 and 2 (index 0 unused).
    frames: [Frame; 3],
    string_start: u32,
    object_start: u32,
    /// Where the last top-level object ended (exclusive).
    seen_object_end: Option<u32>,
}

impl State {
    /// The frame of the container the scanner is in, if it is tracked.
    #[inline]
    fn frame(&mut self) -> Option<&mut Frame> {
        match self.depth {
            1 | 2 => Some(&mut self.frames[self.depth as usize]),
            _ => None,
        }
    }

    #[inline]
    fn quote(&mut self, line: &[u8], p: u32, opening: bool) -> Result<(), ScanError> {
        if !matches!(self.depth, 1 | 2) {
            return Ok(());
        }
        let frame = &mut self.frames[self.depth as usize];
        if opening {
            if frame.is_object && frame.expect_key {
                if !is_blank(line, frame.value_start, p) {
                    return Err(ScanError::ExpectedKey);
                }
                frame.after_comma = false;
            } else if frame.is_object && !frame.colon {
                return Err(ScanError::ExpectedColon);
            } else if frame.value_done || !is_blank(line, frame.value_start, p) {
                return Err(ScanError::MissingComma);
            }
            self.string_start = p + 1;
            return Ok(());
        }
        if frame.is_object && frame.expect_key {
            frame.expect_key = false;
            frame.colon = false;
            frame.pending_key = Some(Span {
                start: self.string_start,
                end: p,
            });
        } else {
            frame.value_done = true;
            frame.tail_start = p + 1;
        }
        Ok(())
    }

    /// After the opening quote at `bit` of `block`: when it opens
    /// a key, reads on through `"key":"value",` or `"key":123,` written
    /// without blanks (what agents write), field after field, as far as
    /// this block holds them, and leaves the frame exactly as the events
    /// would, with `rest` past what was taken. Each field is otherwise six trips round the
    /// loop, each with its own checks of the gap before it; here the gaps
    /// are empty by construction. It stops, to let the events go on, at
    /// anything else: a blank, a container, a closing bracket, a value
    /// that is no token, the end of the block.
    #[inline]
    fn compact_fields(
        &mut self,
        line: &[u8],
        block: Block,
        mut bit: u32,
        rest: &mut u64,
        out: &mut LineScan,
    ) {
        let Block {
            pos,
            quotes,
            events,
        } = block;
        let depth = self.depth as usize;
        if !matches!(depth, 1 | 2) {
            return;
        }
        let parent = if depth == 2 {
            self.frames[1].field
        } else {
            None
        };
        // Quotes after `b` in this block.
        let after = |b: u32| quotes & (!1u64 << b);
        let at = |b: u32| line.get(pos + b as usize).copied();
        let mut last = bit;
        loop {
            let frame = &mut self.frames[depth];
            if !(frame.is_object && frame.expect_key) {
                break;
            }
            // The key's closing quote, then its colon.
            let key_close = after(bit).trailing_zeros();
            if key_close >= 63 || at(key_close + 1) != Some(b':') {
                break;
            }
            let key = Span {
                start: self.string_start,
                end: (pos + key_close as usize) as u32,
            };
            frame.expect_key = false;
            frame.pending_key = Some(key);
            frame.colon = true;
            frame.value_start = key.end + 2;
            last = key_close + 1;
            let comma_bit = if key_close + 2 < 64 && at(key_close + 2) == Some(b'"') {
                // A string value: its opening quote, then its closing one.
                self.string_start = key.end + 3;
                last = key_close + 2;
                let value_close = after(key_close + 2).trailing_zeros();
                if value_close >= 64 {
                    break;
                }
                frame.value_done = true;
                frame.tail_start = (pos + value_close as usize) as u32 + 1;
                last = value_close;
                value_close + 1
            } else {
                // A number or literal: all up to the next event (a bracket
                // or quote there is no scalar's end, nor is a blank).
                let end = (events & (!1u64 << (key_close + 1))).trailing_zeros();
                let token = line.get(frame.value_start as usize..pos + end as usize);
                if !token.is_some_and(is_scalar) {
                    break;
                }
                end
            };
            // The comma, which completes the field: recorded as
            // `finish_field` would, from what is known here without trimming
            // or looking at the value again.
            if comma_bit >= 64 || at(comma_bit) != Some(b',') {
                break;
            }
            let comma = (pos + comma_bit as usize) as u32;
            let (value, kind) = if frame.value_done {
                (
                    Span {
                        start: key.end + 3,
                        end: frame.tail_start - 1,
                    },
                    ValueKind::String,
                )
            } else {
                (
                    Span {
                        start: frame.value_start,
                        end: comma,
                    },
                    ValueKind::Other,
                )
            };
            frame.pending_key = None;
            frame.next_member(comma);
            out.push_field(parent, key, value, kind);
            last = comma_bit;
            // The next key's opening quote.
            if comma_bit >= 63 || at(comma_bit + 1) != Some(b'"') {
                break;
            }
            frame.after_comma = false;
            self.string_start = comma + 2;
            bit = comma_bit + 1;
            last = bit;
        }
        *rest = (!0u64 << last) << 1;
    }

    #[inline]
    fn colon(&mut self, line: &[u8], p: u32) -> Result<(), ScanError> {
        let Some(frame) = self.frame() else {
            return Ok(());
        };
        if frame.is_object && frame.expect_key {
            return Err(ScanError::ExpectedKey);
        }
        let key = match frame.pending_key {
            Some(key) if frame.is_object && !frame.colon => key,
            _ => return Err(ScanError::UnexpectedColon),
        };
        // Only blanks between the key's closing quote and its colon.
        if !is_blank(line, key.end + 1, p) {
            return Err(ScanError::ExpectedColon);
        }
        frame.colon = true;
        frame.value_start = p + 1;
        Ok(())
    }

    /// Checks the segment that a comma or closing bracket at `end` ends, and
    /// records its field.
    #[inline]
    fn end_value(
        &mut self,
        line: &[u8],
        end: u32,
        closing: bool,
        out: &mut LineScan,
    ) -> Result<(), ScanError> {
        let Some(frame) = self.frame() else {
            return Ok(());
        };
        if frame.is_object {
            if frame.expect_key {
                if !is_blank(line, frame.value_start, end) {
                    return Err(ScanError::ExpectedKey);
                }
                return match (closing, frame.after_comma) {
                    (true, false) => Ok(()),
                    (true, true) => Err(ScanError::TrailingComma),
                    (false, _) => Err(ScanError::MissingValue),
                };
            }
            if !frame.colon {
                return Err(ScanError::ExpectedColon);
            }
        }
        if frame.value_done {
            if !is_blank(line, frame.tail_start, end) {
                return Err(ScanError::MissingComma);
            }
        } else {
            let value = trim(line, frame.value_start, end);
            if value.start == value.end {
                return match (frame.is_object, closing, frame.after_comma) {
                    (false, true, false) => Ok(()),
                    (_, true, true) => Err(ScanError::TrailingComma),
                    _ => Err(ScanError::MissingValue),
                };
            }
            if !is_scalar(value.get(line)) {
                return Err(ScanError::BadValue);
            }
        }
        self.finish_field(line, end, out);
        Ok(())
    }

    /// Records the field whose value ends at `end`.
    #[inline]
    fn finish_field(&mut self, line: &[u8], end: u32, out: &mut LineScan) {
        let depth = self.depth as usize;
        let frame = &mut self.frames[depth];
        if !frame.is_object {
            return;
        }
        let Some(key) = frame.pending_key.take() else {
            return;
        };
        let mut value = trim(line, frame.value_start, end);
        let kind = match line.get(value.start as usize) {
            Some(b'"') => {
                value.start += 1;
                value.end = value.end.saturating_sub(1).max(value.start);
                ValueKind::String
            }
            Some(b'{') => ValueKind::Object,
            Some(b'[') => ValueKind::Array,
            _ => ValueKind::Other,
        };
        let parent = if depth == 2 {
            self.frames[1].field
        } else {
            None
        };
        out.push_field(parent, key, value, kind);
    }

    #[inline]
    fn comma(&mut self, line: &[u8], p: u32, out: &mut LineScan) -> Result<(), ScanError> {
        self.end_value(line, p, false, out)?;
        if let Some(frame) = self.frame() {
            frame.next_member(p);
        }
        Ok(())
    }

    #[inline]
    fn open(&mut self, line: &[u8], p: u32, out: &mut LineScan) -> Result<(), ScanError> {
        if let Some(frame) = self.frame() {
            if frame.is_object && frame.expect_key {
                return Err(ScanError::ExpectedKey);
            }
            if frame.is_object && !frame.colon {
                return Err(ScanError::ExpectedColon);
            }
            if frame.value_done || !is_blank(line, frame.value_start, p) {
                return Err(ScanError::MissingComma);
            }
        }
        if self.depth == 0 {
            if let Some(end) = self.seen_object_end {
                // A second object on the same line: fine if only blanks
                // separate them (an array is not an object).
                if line[p as usize] != b'{'
                    || line[end as usize..p as usize].iter().any(|&b| !is_ws(b))
                {
                    return Err(ScanError::TrailingCharacters);
                }
            }
            self.object_start = p;
        }
        // The field whose value this container is: known at depth 1 only
        // for the depth-two frame.
        let parent_field = if self.depth == 1 {
            // Record the depth-one field now so its children can point at
            // it; its value span is fixed up when it closes.
            let frame = &self.frames[1];
            frame.pending_key.map(|key| {
                let idx = out.fields.len() as u16;
                out.fields.push(Field {
                    object: out.objects.len() as u16,
                    parent: None,
                    key,
                    value: Span { start: p, end: p },
                    kind: if line[p as usize] == b'{' {
                        ValueKind::Object
                    } else {
                        ValueKind::Array
                    },
                });
                idx
            })
        } else {
            None
        };
        if self.depth == 1 {
            // The key is now recorded; do not record it again at the comma.
            self.frames[1].pending_key = None;
            self.frames[1].field = parent_field;
        }
        self.depth += 1;
        if self.depth <= 2 {
            let is_object = line[p as usize] == b'{';
            self.frames[self.depth as usize] = Frame {
                is_object,
                value_start: p + 1,
                expect_key: is_object,
                ..NO_FRAME
            };
        }
        Ok(())
    }

    #[inline]
    fn close(&mut self, line: &[u8], p: u32, out: &mut LineScan) -> Result<(), ScanError> {
        if self.depth == 0 {
            return Err(ScanError::UnbalancedClose);
        }
        if let Some(frame) = self.frame() {
            if frame.is_object != (line[p as usize] == b'}') {
                return Err(ScanError::MismatchedBracket);
            }
        }
        self.end_value(line, p, true, out)?;
        self.depth -= 1;
        if let Some(frame) = self.frame() {
            frame.value_done = true;
            frame.tail_start = p + 1;
        }
        match self.depth {
            0 => {
                if out.objects.len() < u16::MAX as usize {
                    out.objects.push(Span {
                        start: self.object_start,
                        end: p + 1,
                    });
                }
                self.seen_object_end = Some(p + 1);
                self.frames[1] = NO_FRAME;
            }
            1 => {
                // A depth-one value that is a container just closed: fix up
                // the span recorded when it opened.
                if let Some(idx) = self.frames[1].field.take() {
                    out.fields[idx as usize].value.end = p + 1;
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    fn scan(s: &str) -> LineScan {
        let mut out = LineScan::default();
        scan_line(s.as_bytes(), &mut out);
        out
    }

    fn fields(s: &str) -> Vec<(Option<String>, String, String, ValueKind)> {
        let out = scan(s);
        assert_eq!(out.error, None, "{s}");
        let b = s.as_bytes();
        out.fields
            .iter()
            .map(|f| {
                (
                    f.parent.map(|p| {
                        String::from_utf8(out.fields[p as usize].key.get(b).to_vec()).unwrap()
                    }),
                    String::from_utf8(f.key.get(b).to_vec()).unwrap(),
                    String::from_utf8(f.value.get(b).to_vec()).unwrap(),
                    f.kind,
                )
            })
            .collect()
    }

    #[test]
    fn finds_top_and_second_level_keys() {
        let got = fields(
            r#"{"type":"message","id":"ab12","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"a \"quoted\" {brace}"}],"n":3},"timestamp":"2025-01-01T00:00:00Z"}"#,
        );
        let want = [
            (None, "type", "message", ValueKind::String),
            (None, "id", "ab12", ValueKind::String),
            (None, "parentId", "null", ValueKind::Other),
            (None, "message", "", ValueKind::Object),
            (Some("message"), "role", "user", ValueKind::String),
            (
                Some("message"),
                "content",
                r#"[{"type":"text","text":"a \"quoted\" {brace}"}]"#,
                ValueKind::Array,
            ),
            (Some("message"), "n", "3", ValueKind::Other),
            (None, "timestamp", "2025-01-01T00:00:00Z", ValueKind::String),
        ];
        // The `message` value is the whole object.
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want.iter()) {
            assert_eq!(g.0.as_deref(), w.0);
            assert_eq!(g.1, w.1);
            if w.1 != "message" {
                assert_eq!(g.2, w.2);
            } else {
                assert!(g.2.starts_with("{\"role\"") && g.2.ends_with("\"n\":3}"));
            }
            assert_eq!(g.3, w.3);
        }
    }

    /// Block by block, with the carry handed on, the escaped bytes are
    /// those after an odd run of backslashes, counted byte by byte across
    /// block edges: on streams dense in backslashes, with whole blocks of
    /// them.
    #[test]
    fn escaped_bytes_follow_backslash_runs_across_blocks() {
        let mut rng = crate::test_rng::Rng(0x0e5c_a9ed);
        let mut all_backslash_blocks = 0;
        for _ in 0..2000 {
            let blocks = 1 + rng.below(6);
            let density = rng.below(5);
            let bits: Vec<bool> = (0..blocks * 64)
                .map(|i| {
                    // Some blocks all backslashes, others a mix.
                    let whole = (i / 64 + density).is_multiple_of(4) && density > 2;
                    whole || rng.below(4) < density
                })
                .collect();
            // Escaped: after an odd number of backslashes in a row.
            let mut run = 0usize;
            let want: Vec<bool> = bits
                .iter()
                .map(|&b| {
                    let escaped = run % 2 == 1;
                    run = if b { run + 1 } else { 0 };
                    escaped
                })
                .collect();
            let mut carry = 0;
            for (k, chunk) in bits.chunks(64).enumerate() {
                let bs = chunk
                    .iter()
                    .enumerate()
                    .fold(0u64, |m, (i, &b)| m | (u64::from(b) << i));
                all_backslash_blocks += usize::from(bs == !0);
                let got = escaped_bytes(bs, &mut carry);
                for i in 0..64 {
                    assert_eq!(got >> i & 1 == 1, want[k * 64 + i], "bit {}", k * 64 + i);
                }
            }
        }
        assert!(all_backslash_blocks > 100, "{all_backslash_blocks}");
    }

    #[test]
    fn long_lines_cross_blocks_and_escapes() {
        // Backslash runs and quotes around 64-byte block edges.
        for pad in 0..130 {
            let filler = "x".repeat(pad);
            let s = format!(
                r#"{{"a":"{filler}\\\\","b":"{filler}\\\"}}","c":{{"d":"{filler}"}},"e":[1,{{"f":2}}]}}"#
            );
            let got = fields(&s);
            let keys: Vec<_> = got.iter().map(|f| f.1.as_str()).collect();
            assert_eq!(keys, ["a", "b", "c", "d", "e"], "pad {pad}");
            assert_eq!(got[0].2, format!(r"{filler}\\\\"));
            assert_eq!(got[1].2, format!(r#"{filler}\\\"}}"#));
            assert_eq!(got[3].0.as_deref(), Some("c"));
        }
    }

    #[test]
    fn two_objects_on_one_line() {
        let s = r#"{"type":"message","id":"1"}{"type":"compaction","id":"2"}"#;
        let out = scan(s);
        assert_eq!(out.error, None);
        assert_eq!(out.objects.len(), 2);
        assert_eq!(
            out.objects[1].get(s.as_bytes()),
            br#"{"type":"compaction","id":"2"}"#
        );
        let second: Vec<_> = out
            .top_fields(1)
            .map(|(_, f)| f.key.get(s.as_bytes()))
            .collect();
        assert_eq!(second, [&b"type"[..], b"id"]);
    }

    #[test]
    fn reports_structural_errors() {
        let cases = [
            (r#""massive error""#, ScanError::NotAnObject),
            ("42", ScanError::NotAnObject),
            ("[1]", ScanError::NotAnObject),
            (r#"{"a":"b"} x"#, ScanError::TrailingCharacters),
            (r#"{"a":"b"}}"#, ScanError::UnbalancedClose),
            (r#"{"a":"trunc"#, ScanError::UnterminatedString),
            (r#"{"a":{"b":[1,2"#, ScanError::Unclosed),
        ];
        for (s, want) in cases {
            assert_eq!(scan(s).error.map(|e| e.1), Some(want), "{s}");
        }
        assert_eq!(scan("   ").error, None);
        assert!(scan("   ").objects.is_empty());
    }

    #[test]
    fn grammar_errors_in_the_first_two_levels() {
        let cases: &[(&str, ScanError)] = &[
            (r#"{"a":"x" "b":1}"#, ScanError::MissingComma),
            (r#"{"a":1 2}"#, ScanError::BadValue),
            (r#"{"a" 1}"#, ScanError::ExpectedColon),
            (r#"{"a":1,}"#, ScanError::TrailingComma),
            (r#"{"a":1,,"b":2}"#, ScanError::MissingValue),
            (r#"{"a":}"#, ScanError::MissingValue),
            (r#"{a:1}"#, ScanError::ExpectedKey),
            (r#"{"a":tru}"#, ScanError::BadValue),
            (r#"{"a":[1 2]}"#, ScanError::BadValue),
            (r#"{"a":{"b":"x" 1}}"#, ScanError::MissingComma),
            (r#"{"a":[1,]}"#, ScanError::TrailingComma),
            (r#"{"a":{} {}}"#, ScanError::MissingComma),
            (r#"{"a":1]"#, ScanError::MismatchedBracket),
            (r#"{"a"::1}"#, ScanError::UnexpectedColon),
            (r#"{"a":[1:2]}"#, ScanError::UnexpectedColon),
            // A token between a key and its colon: not a parent id.
            (r#"{"parentId" x:"p1"}"#, ScanError::ExpectedColon),
            // Run-together values must all be objects.
            (r#"{"a":1}[2]"#, ScanError::TrailingCharacters),
        ];
        for (line, want) in cases {
            assert_eq!(scan(line).error.map(|e| e.1), Some(*want), "{line}");
        }
        for good in [
            r#"{}"#,
            r#"{"a":[]}"#,
            r#"{"a":{}}"#,
            r#"{ "a" : [ 1 , -2.5e3 , "x" , { } , [ ] , null ] , "b" : { "c" : true } }"#,
            // Deeper than two levels only brackets are followed.
            r#"{"a":{"b":[1 2]}}"#,
        ] {
            assert_eq!(scan(good).error, None, "{good}");
        }
    }

    #[test]
    fn crlf_and_whitespace_are_fine() {
        let out = scan("{\"a\" : 1 , \"b\" : \"x\" }\r");
        assert_eq!(out.error, None);
        assert_eq!(out.fields.len(), 2);
    }

    /// The scanner's contract read byte by byte, with no masks and no
    /// blocks: every object on the line and the fields of depths one and
    /// two, or the depth of the container where the line first breaks.
    /// As loose as the scanner where it promises to be (escapes, control
    /// bytes and number syntax are for the full parse).
    struct Reference<'a> {
        s: &'a [u8],
        i: usize,
        objects: Vec<(u32, u32)>,
        fields: Vec<ReferenceField>,
    }

    /// Object, parent, key, value, kind.
    type ReferenceField = (u16, Option<u16>, (u32, u32), (u32, u32), ValueKind);

    /// The objects of a line and their fields, or the depth where it breaks.
    type ReferenceReading = Result<(Vec<(u32, u32)>, Vec<ReferenceField>), u32>;

    impl Reference<'_> {
        fn read(s: &[u8]) -> ReferenceReading {
            let mut r = Reference {
                s,
                i: 0,
                objects: Vec::new(),
                fields: Vec::new(),
            };
            r.blanks();
            while r.i < s.len() {
                if s[r.i] != b'{' {
                    return Err(0);
                }
                let start = r.i;
                r.object(1, None)?;
                r.objects.push((start as u32, r.i as u32));
                r.blanks();
            }
            Ok((r.objects, r.fields))
        }

        fn peek(&self) -> Option<u8> {
            self.s.get(self.i).copied()
        }

        fn blanks(&mut self) {
            while self.peek().is_some_and(is_ws) {
                self.i += 1;
            }
        }

        /// A string at `self.i`; its span without the quotes.
        fn string(&mut self, depth: u32) -> Result<(u32, u32), u32> {
            self.i += 1;
            let start = self.i;
            loop {
                match self.peek() {
                    None => return Err(depth),
                    Some(b'\\') => self.i += 2,
                    Some(b'"') => break,
                    Some(_) => self.i += 1,
                }
            }
            self.i += 1;
            Ok((start as u32, self.i as u32 - 1))
        }

        /// A value inside a container at `depth`; its span and kind.
        fn value(
            &mut self,
            depth: u32,
            field: Option<u16>,
        ) -> Result<((u32, u32), ValueKind), u32> {
            let start = self.i as u32;
            match self.peek() {
                Some(b'"') => {
                    let inner = self.string(depth)?;
                    Ok((inner, ValueKind::String))
                }
                Some(b'{') => {
                    self.object(depth + 1, field)?;
                    Ok(((start, self.i as u32), ValueKind::Object))
                }
                Some(b'[') => {
                    self.array(depth + 1)?;
                    Ok(((start, self.i as u32), ValueKind::Array))
                }
                _ => {
                    while self
                        .peek()
                        .is_some_and(|b| !is_ws(b) && !b"{}[]:,\"".contains(&b))
                    {
                        self.i += 1;
                    }
                    let token = &self.s[start as usize..self.i];
                    let number = token
                        .first()
                        .is_some_and(|b| b == &b'-' || b.is_ascii_digit())
                        && token.iter().all(|b| b"0123456789-+.eE".contains(b));
                    if !number && !matches!(token, b"true" | b"false" | b"null") {
                        return Err(depth);
                    }
                    Ok(((start, self.i as u32), ValueKind::Other))
                }
            }
        }

        /// The object at `self.i`, whose members are at `depth`; `parent`
        /// is the field it is the value of when `depth` is 2.
        fn object(&mut self, depth: u32, parent: Option<u16>) -> Result<(), u32> {
            let object = self.objects.len() as u16;
            self.i += 1;
            self.blanks();
            if self.peek() == Some(b'}') {
                self.i += 1;
                return Ok(());
            }
            loop {
                if self.peek() != Some(b'"') {
                    return Err(depth);
                }
                let key = self.string(depth)?;
                self.blanks();
                if self.peek() != Some(b':') {
                    return Err(depth);
                }
                self.i += 1;
                self.blanks();
                // A depth-one container is recorded before its members.
                let opened = (depth == 1 && matches!(self.peek(), Some(b'{' | b'['))).then(|| {
                    self.fields
                        .push((object, None, key, (0, 0), ValueKind::Object));
                    (self.fields.len() - 1) as u16
                });
                let (value, kind) = self.value(depth, opened)?;
                match opened {
                    Some(at) => {
                        let f = &mut self.fields[at as usize];
                        (f.3, f.4) = (value, kind);
                    }
                    None if depth <= 2 => self.fields.push((object, parent, key, value, kind)),
                    None => {}
                }
                if self.closes(b'}', depth)? {
                    return Ok(());
                }
            }
        }

        /// After a member: a comma (false) or the `close` bracket (true).
        fn closes(&mut self, close: u8, depth: u32) -> Result<bool, u32> {
            self.blanks();
            match self.peek() {
                Some(b',') => {
                    self.i += 1;
                    self.blanks();
                    Ok(false)
                }
                Some(b) if b == close => {
                    self.i += 1;
                    Ok(true)
                }
                _ => Err(depth),
            }
        }

        fn array(&mut self, depth: u32) -> Result<(), u32> {
            self.i += 1;
            self.blanks();
            if self.peek() == Some(b']') {
                self.i += 1;
                return Ok(());
            }
            loop {
                self.value(depth, None)?;
                if self.closes(b']', depth)? {
                    return Ok(());
                }
            }
        }
    }

    /// A random JSON value with blanks between its tokens; strings long
    /// enough to cross blocks, with escapes, backslash runs and brackets.
    /// A random JSON value; `compact` writes no blanks between tokens, as
    /// agents do (the scanner reads such runs of fields in one go).
    fn json(rng: &mut Rng, depth: u32, compact: bool, out: &mut Vec<u8>) {
        let blank = |rng: &mut Rng, out: &mut Vec<u8>| {
            if !compact {
                out.extend_from_slice(rng.pick(&[b"", b"", b"", b" ", b"\t", b"  ", b"\r "]));
            }
        };
        let string = |rng: &mut Rng, out: &mut Vec<u8>| {
            out.push(b'"');
            let most = if rng.below(4) == 0 { 150 } else { 12 };
            for _ in 0..rng.below(most) {
                out.extend_from_slice(rng.pick(&[
                    b"\\\"",
                    b"\\\\",
                    b"\\n",
                    b"{[]}:,",
                    "é中".as_bytes(),
                    b" ",
                    b"type",
                    b"x",
                    b"0",
                ]));
            }
            out.push(b'"');
        };
        let container = depth < 5 && rng.below(3) == 0;
        match (container, rng.below(2)) {
            (true, 0) => {
                out.push(b'{');
                for k in 0..rng.below(5) {
                    if k > 0 {
                        out.push(b',');
                    }
                    blank(rng, out);
                    if rng.below(3) == 0 {
                        string(rng, out);
                    } else {
                        out.push(b'"');
                        out.extend_from_slice(rng.pick(&[
                            b"type", b"id", b"message", b"role", b"content", b"", b"k\\\"q",
                        ]));
                        out.push(b'"');
                    }
                    blank(rng, out);
                    out.push(b':');
                    blank(rng, out);
                    json(rng, depth + 1, compact, out);
                    blank(rng, out);
                }
                out.push(b'}');
            }
            (true, _) => {
                out.push(b'[');
                for k in 0..rng.below(4) {
                    if k > 0 {
                        out.push(b',');
                    }
                    blank(rng, out);
                    json(rng, depth + 1, compact, out);
                    blank(rng, out);
                }
                out.push(b']');
            }
            _ => match rng.below(4) {
                0 | 1 => string(rng, out),
                2 => out.extend_from_slice(rng.pick(&[b"true", b"false", b"null"])),
                _ => out.extend_from_slice(rng.pick(&[b"0", b"-12", b"3.5e-7", b"123456789012"])),
            },
        }
    }

    /// The scanner against the byte-by-byte reference on random lines,
    /// whole and with a few bytes inserted, deleted or replaced: a line the
    /// reference reads must scan without error into the same objects and
    /// fields, and a line that breaks within the first two levels must
    /// scan with an error. (Deeper breaks are the full parse's to find.)
    #[test]
    fn agrees_with_a_byte_by_byte_reading() {
        let mut rng = Rng(0x005e_ed0f_5ca1);
        let (mut valid, mut caught) = (0, 0);
        for case in 0..30_000 {
            let mut line = Vec::new();
            let compact = case % 2 == 0;
            line.extend_from_slice(rng.pick(&[b"", b"", b" ", b"\t"]));
            for object in 0..1 + usize::from(rng.below(8) == 0) {
                if object > 0 {
                    line.extend_from_slice(rng.pick(&[b"", b" "]));
                }
                let mut value = Vec::new();
                while value.first() != Some(&b'{') {
                    value.clear();
                    json(&mut rng, 0, compact, &mut value);
                }
                line.extend_from_slice(&value);
            }
            let edits = if case % 3 == 0 { 0 } else { 1 + rng.below(3) };
            for _ in 0..edits {
                let at = rng.below(line.len() + 1);
                let byte = rng.pick(&[
                    b"{", b"}", b"[", b"]", b":", b",", b"\"", b"\\", b" ", b"a", b"1", b"-",
                ])[0];
                match rng.below(3) {
                    0 if at < line.len() => drop(line.remove(at)),
                    1 if at < line.len() => line[at] = byte,
                    _ => line.insert(at, byte),
                }
            }
            let mut out = LineScan::default();
            scan_line(&line, &mut out);
            let text = String::from_utf8_lossy(&line);
            match Reference::read(&line) {
                Ok((objects, fields)) => {
                    valid += 1;
                    assert_eq!(out.error, None, "{text}");
                    let got: Vec<(u32, u32)> =
                        out.objects.iter().map(|o| (o.start, o.end)).collect();
                    assert_eq!(got, objects, "{text}");
                    let got: Vec<ReferenceField> = out
                        .fields
                        .iter()
                        .map(|f| {
                            (
                                f.object,
                                f.parent,
                                (f.key.start, f.key.end),
                                (f.value.start, f.value.end),
                                f.kind,
                            )
                        })
                        .collect();
                    assert_eq!(got, fields, "{text}");
                }
                Err(depth) if depth <= 2 => {
                    caught += 1;
                    assert!(
                        out.error.is_some(),
                        "broken at depth {depth} but scanned: {text}"
                    );
                }
                Err(_) => {}
            }
        }
        // Both sides of the property were exercised.
        assert!(
            valid > 10_000 && caught > 5_000,
            "{valid} valid, {caught} caught"
        );
    }
}
