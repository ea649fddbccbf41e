//! What the fuzz targets share: how an input is taken apart (control
//! bytes, then the file), how it is pushed (random chunkings), and the
//! properties every read must keep, checked the same way in each target.
//!
//! Inputs are `CONTROL` bytes then the file's bytes, so a seed is a real
//! file behind a few zeros (`cargo xtask fuzz` writes them so) and the
//! fuzzer mutates both.

use std::fmt::Write as _;
use std::ops::Range;

use retrace_core::{
    export_branch, starts_like_document, DiagnosticKind, ElementStarts, EntryId, FileId, Format,
    Reader, ReaderOptions, Session,
};

/// Control bytes before the file in every target's input.
pub const CONTROL: usize = 4;

/// The input's control bytes (zeros where it is shorter) and the file.
pub fn split(data: &[u8]) -> ([u8; CONTROL], &[u8]) {
    let mut control = [0u8; CONTROL];
    let n = data.len().min(CONTROL);
    control[..n].copy_from_slice(&data[..n]);
    (control, &data[n..])
}

/// A small deterministic generator (xorshift), seeded by control bytes.
pub struct Rng(u64);

impl Rng {
    /// Seeded from `seed`; never the all-zero state.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next value.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A value in `1..=max`.
    pub fn size(&mut self, max: usize) -> usize {
        1 + (self.next() % max.max(1) as u64) as usize
    }
}

/// `bytes` cut into chunks as a caller might push them: whole, one byte
/// at a time (short inputs), or random sizes up to 7, 64 or 4096 bytes,
/// chosen by `seed`. Every cut is somewhere a framer must carry state
/// across.
pub fn chunking(seed: u8, bytes: &[u8]) -> Vec<Range<usize>> {
    let mut rng = Rng::new(u64::from(seed) + 1);
    let max = match seed % 5 {
        0 => return vec![0..bytes.len()],
        1 if bytes.len() <= 4096 => 1,
        1 | 2 => 7,
        3 => 64,
        _ => 4096,
    };
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let end = (at + rng.size(max)).min(bytes.len());
        out.push(at..end);
        at = end;
    }
    out
}

/// `bytes` read as one file pushed in `chunks`.
pub fn read(name: &str, bytes: &[u8], chunks: &[Range<usize>], options: ReaderOptions) -> Session {
    let mut reader = Reader::with_options(options);
    reader.begin_file(name);
    for c in chunks {
        reader.push(&bytes[c.clone()]);
    }
    reader.finish()
}

/// The lines the reader samples to detect a format.
const SAMPLED_LINES: usize = 8;

/// How far into a file `retrace-io` looks to decide how to split it.
const HEAD: usize = 64 << 10;

/// `bytes` read in two parts as `retrace-io` reads a large file on two
/// threads, cut at the first place from `share`/256 of the file where it
/// would cut: a line start for JSON lines, an element's start
/// (`ElementStarts`) for a document, the second part appended to the
/// first (a document part that guessed wrong is pushed again, as
/// `retrace-io` does), the first part holding the detection sample.
/// `None` when there is no such place.
pub fn read_in_parts(
    name: &str,
    bytes: &[u8],
    share: u8,
    options: ReaderOptions,
) -> Option<Session> {
    let head = &bytes[..bytes.len().min(HEAD)];
    let from = usize::from(share) * bytes.len() / 256;
    let mut first = Reader::with_options(options);
    first.begin_file(name);
    if starts_like_document(head) {
        let starts = ElementStarts::from_head(head)?;
        let at = from + starts.find(&bytes[from..])?;
        first.push(&bytes[..at]);
        let mut part = Reader::with_options(options);
        part.begin_document_part(name, at as u64, &starts);
        part.push(&bytes[at..]);
        if !first.append_document_part(part) {
            first.push(&bytes[at..]);
        }
    } else {
        // Detection samples the first part only (`retrace-io` splits files
        // of 32 MiB or more, so its first part always holds the sample):
        // cut after it, at least 8 lines that are not blank.
        let sampled = bytes
            .split_inclusive(|&b| b == b'\n')
            .scan(0, |at, line| {
                *at += line.len();
                Some((*at, line))
            })
            .filter(|(_, l)| l.ends_with(b"\n") && !l.iter().all(u8::is_ascii_whitespace))
            .nth(SAMPLED_LINES - 1)?
            .0;
        let from = from.max(sampled - 1);
        let at = from + memchr::memchr(b'\n', &bytes[from..])? + 1;
        if at >= bytes.len() {
            return None;
        }
        first.push(&bytes[..at]);
        let mut part = Reader::with_options(options);
        part.begin_part(name, at as u64);
        part.push(&bytes[at..]);
        first.append_part(part);
    }
    Some(first.finish())
}

/// A forced format from a control byte: `None` (detect) half the time,
/// else one of [`Format::NAMES`].
pub fn format_of(control: u8) -> Option<Format> {
    let names = Format::NAMES;
    (control & 1 == 1).then(|| names[usize::from(control >> 1) % names.len()].1)
}

/// Everything observable about an index, for comparing two reads (the
/// same as the core's corpus tests compare).
pub fn fingerprint(s: &Session) -> String {
    let mut out = String::new();
    for (i, e) in s.entries().iter().enumerate() {
        let id = EntryId(i as u32);
        writeln!(
            out,
            "{} {} {} {} {:?} {} {:?} {:?} {:?}",
            e.line,
            e.offset,
            e.len,
            s.kind(id),
            e.flags,
            s.role(id),
            s.id(id),
            e.timestamp(),
            s.tree().parent(id)
        )
        .unwrap();
    }
    for d in s.diagnostics() {
        writeln!(out, "{:?} {} {} {}", d.kind, d.line, d.offset, d.message).unwrap();
    }
    writeln!(
        out,
        "{:?} {:?} {:?} {:?}",
        s.tree().tips(),
        s.tree().branch_points(),
        s.tree().default_leaf(),
        s.format()
    )
    .unwrap();
    out
}

/// Every byte of the file (its plain bytes: a gzip file's inflated
/// stream) is in an entry, a document field, blanks and punctuation, or
/// the extent of a diagnostic that says it was skipped; entries do not
/// overlap, and their line numbers are right; the file's size and line
/// count are right; and every diagnostic points inside the file.
///
/// A skipped JSON line (`line-too-long`) runs from the diagnostic's offset
/// to its newline. A skipped document element has no such end: the
/// diagnostic gives where it starts, not its length, so its bytes are
/// only checked to lie between that start and the next entry or field.
pub fn assert_lossless(s: &Session, file: FileId, bytes: &[u8]) {
    let info = &s.files()[file.0 as usize];
    assert_eq!(info.size, bytes.len() as u64, "size");
    let lines = bytes.iter().filter(|&&b| b == b'\n').count()
        + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"));
    assert_eq!(info.lines as usize, lines, "line count");
    let mut covered: Vec<Range<usize>> = Vec::new();
    if let Some(doc) = &info.document {
        for f in &doc.fields {
            covered.push(f.range.start as usize..f.range.end as usize);
        }
        if let Some(r) = &doc.array_key_range {
            covered.push(r.start as usize..r.end as usize);
        }
    }
    let entries = &s.entries()[info.first_entry as usize..info.end_entry as usize];
    let mut skipped_elements = Vec::new();
    for d in s.diagnostics().iter().filter(|d| d.file == file) {
        assert!(
            d.offset <= bytes.len() as u64,
            "diagnostic past the end: {d:?}"
        );
        assert!(
            d.line as usize <= lines + 1,
            "diagnostic past the last line: {d:?}"
        );
        if d.kind == DiagnosticKind::LineTooLong {
            let start = d.offset as usize;
            let in_document = info.document.as_ref().is_some_and(|doc| {
                doc.end.is_none_or(|end| d.offset < end) && d.message.contains("element")
            });
            if in_document {
                skipped_elements.push(start);
            } else {
                let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
                covered.push(start..end);
            }
        }
    }
    let structure: &[u8] = if info.document.is_some() {
        b" \t\r\n[]{},:"
    } else {
        b" \t\r\n"
    };
    let gap_ok = |from: usize, to: usize| {
        let mut i = from;
        if i == 0 && bytes.starts_with(b"\xEF\xBB\xBF") {
            i = 3;
        }
        while i < to {
            if let Some(r) = covered.iter().find(|r| r.start <= i && i < r.end) {
                i = r.end;
                continue;
            }
            if skipped_elements.iter().any(|&s| s <= i) {
                // After a skipped element's start, up to the next entry.
                i += 1;
                continue;
            }
            assert!(
                structure.contains(&bytes[i]),
                "byte {i} ({:?}) belongs to no entry, field or diagnostic: {:?}",
                bytes[i] as char,
                String::from_utf8_lossy(&bytes[i..to.min(i + 80)])
            );
            i += 1;
        }
    };
    let mut at = 0usize;
    let mut newlines = 0usize;
    for e in entries {
        let start = e.offset as usize;
        let end = start + e.len as usize;
        assert!(start >= at, "entries overlap at byte {start}");
        assert!(end <= bytes.len(), "entry past the end: {start}+{}", e.len);
        gap_ok(at, start);
        newlines += bytes[at.min(start)..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        assert_eq!(e.line as usize, newlines + 1, "line number of byte {start}");
        newlines += bytes[start..end].iter().filter(|&&b| b == b'\n').count();
        at = end;
    }
    gap_ok(at, bytes.len());
}

/// `retrace cat` of the default branch (`export_branch`) writes a
/// byte-exact subsequence of the file, but where the file is damaged. For
/// JSON lines: whole lines of it, each line of the file at most once. For
/// a document: the file's head (the bytes before its first element), the
/// branch's elements byte for byte, joined by one separator, then the
/// file's tail (the bytes after its last element through the document's
/// end, and the rest of that line when blank). The separator is a gap the
/// file has between two elements (one comma among blanks) or, when no
/// gap is one (a damaged file), a comma before blanks: the only bytes
/// `cat` makes up.
///
/// The file's last line, when it has no newline and is not written last,
/// gets one: the only byte `cat` adds to JSON lines.
///
/// In file order, when the branch is: `cat` writes the branch from its
/// root to its leaf, so a file that writes an entry before its parent (or
/// a format whose later record replaces an earlier one) gets them back in
/// the branch's order, which is no subsequence.
pub fn assert_cat_is_subsequence(s: &Session, bytes: &[u8]) {
    let Some(leaf) = s.tree().default_leaf() else {
        return;
    };
    let mut out = Vec::new();
    export_branch(s, &mut &bytes[..], leaf, &mut out).expect("cat of bytes in memory");
    let branch = s.standalone_branch(leaf);
    let info = &s.files()[0];
    let Some(doc) = &info.document else {
        let in_file_order = branch
            .windows(2)
            .all(|w| s.entry(w[0]).offset < s.entry(w[1]).offset);
        let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
        let unended = |k: usize| k + 1 == lines.len() && !lines[k].ends_with(b"\n");
        let same = |k: usize, line: &[u8]| {
            lines[k] == line || (unended(k) && line.strip_suffix(b"\n") == Some(lines[k]))
        };
        let mut used = vec![false; lines.len()];
        let mut last = None;
        for (i, line) in out.split_inclusive(|&b| b == b'\n').enumerate() {
            let at = (0..lines.len())
                .find(|&k| !used[k] && same(k, line) && (!in_file_order || Some(k) > last))
                .unwrap_or_else(|| {
                    panic!(
                        "line {} of cat is no{} line of the file: {:?}",
                        i + 1,
                        if in_file_order { " later" } else { " unused" },
                        String::from_utf8_lossy(&line[..line.len().min(120)])
                    )
                });
            used[at] = true;
            last = Some(at);
        }
        return;
    };
    let end = doc.end.unwrap_or(info.size);
    let own = &s.entries()[info.first_entry as usize..info.end_entry as usize];
    let elements: Vec<_> = own.iter().filter(|e| e.offset < end).collect();
    let (Some(first), Some(last)) = (elements.first(), elements.last()) else {
        assert!(
            out.is_empty(),
            "cat of a document without elements wrote something"
        );
        return;
    };
    let head = &bytes[..first.offset as usize];
    assert!(
        out.starts_with(head),
        "cat does not start with the file's head"
    );
    let mut at = head.len();
    let mut separator: Option<Vec<u8>> = None;
    for (i, e) in branch.iter().enumerate() {
        let entry = s.entry(*e);
        let element = &bytes[entry.range().start as usize..entry.range().end as usize];
        if i > 0 {
            let found = memchr::memmem::find(&out[at..], element)
                .unwrap_or_else(|| panic!("element at byte {} not in cat", entry.offset));
            let sep = &out[at..at + found];
            let blank = |b: &u8| b.is_ascii_whitespace();
            let one_comma = sep.iter().filter(|&&b| b == b',').count() == 1
                && sep.iter().all(|b| *b == b',' || blank(b));
            let made_up = sep.first() == Some(&b',') && sep[1..].iter().all(blank);
            assert!(
                one_comma && (made_up || memchr::memmem::find(bytes, sep).is_some()),
                "cat joined elements with {:?}",
                String::from_utf8_lossy(sep)
            );
            match &separator {
                Some(first) => assert_eq!(first.as_slice(), sep, "cat's separators differ"),
                None => separator = Some(sep.to_vec()),
            }
            at += found;
        }
        assert!(
            out[at..].starts_with(element),
            "cat does not write the element at byte {} byte for byte",
            entry.offset
        );
        at += element.len();
    }
    let tail = &out[at..];
    assert!(
        bytes[last.range().end as usize..].starts_with(tail),
        "cat ends with {:?}, not the file's tail",
        String::from_utf8_lossy(&tail[..tail.len().min(120)])
    );
}
