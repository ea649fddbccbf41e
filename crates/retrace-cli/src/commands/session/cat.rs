//! `retrace cat`: one branch as a standalone session file, each original
//! line byte for byte (a line holding two run-together objects once). A
//! file that is one JSON document (a Gemini CLI session, a message list)
//! gives the leaf's document with only the branch's elements in its array.
//! The output takes the leaf's form: a branch of JSON lines that begins in
//! a document (a Gemini CLI session split over a legacy `.json` and a
//! `.jsonl`) gets those elements as lines, their layout blanks dropped.

use std::collections::HashSet;
use std::io::Write;

use anyhow::Result;
use retrace_core::{EntryId, Session, Source, SourceError};

use super::leaf;
use crate::args::{CatArgs, ReadArgs};
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

pub(crate) fn run(args: &CatArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.branch.path;
    let mut loaded = load(path, read, printer)?;
    let leaf = leaf(&loaded, args.branch.leaf.as_deref())?;
    let s = &loaded.session;
    // With what the branch needs to be a session file (pi's header).
    let entries = s.standalone_branch(leaf);
    let file = s.entry(leaf).file;
    let out = printer.stdout();
    if s.files()[file.0 as usize].document.is_some() {
        document(path, s, &mut loaded.source, &entries, file, out)?;
        return Ok(ExitStatus::Success);
    }
    let mut written = HashSet::new();
    let mut relaid = 0;
    for e in entries {
        let entry = s.entry(e);
        let read = |err: SourceError| InputError::new(err).on(path);
        if in_document(s, e) {
            let bytes = loaded
                .source
                .read(entry.file, entry.range())
                .map_err(read)?;
            out.write_all(&one_line(&bytes))?;
            out.write_all(b"\n")?;
            relaid += 1;
            continue;
        }
        if !written.insert((entry.file, entry.line)) {
            continue;
        }
        let bytes = line_bytes(s, &mut loaded.source, e).map_err(read)?;
        out.write_all(&bytes)?;
    }
    if relaid > 0 {
        printer.note(&format!(
            "{path}: {relaid} messages from a JSON document written as JSON lines, \
             each on one line (blanks between its tokens dropped, the rest byte for byte)"
        ))?;
    }
    Ok(ExitStatus::Success)
}

/// Whether an entry is an element of its file's JSON document (not a JSON
/// line after it).
fn in_document(s: &Session, e: EntryId) -> bool {
    let entry = s.entry(e);
    let doc = s.files()[entry.file.0 as usize].document.as_ref();
    doc.is_some_and(|d| d.end.is_none_or(|end| entry.offset < end))
}

/// A JSON value on one line: the blanks between its tokens (a pretty
/// printer's newlines and indentation) dropped, strings and every other
/// byte kept as written.
fn one_line(json: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(json.len());
    let (mut in_string, mut escaped) = (false, false);
    for &b in json {
        if in_string {
            in_string = escaped || b != b'"';
            escaped = !escaped && b == b'\\';
        } else if b == b'"' {
            in_string = true;
        } else if matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
            continue;
        }
        out.push(b);
    }
    out
}

/// The whole physical line an entry sits on, with its terminator.
fn line_bytes(
    s: &Session,
    source: &mut impl Source,
    e: EntryId,
) -> Result<Vec<u8>, retrace_core::SourceError> {
    const STEP: u64 = 4096;
    let entry = s.entry(e);
    let size = s.files()[entry.file.0 as usize].size;
    let range = entry.range();
    // Back to the previous newline (only blanks or a BOM lie between).
    let mut start = range.start;
    loop {
        let from = start.saturating_sub(STEP);
        let window = source.read(entry.file, from..start)?;
        match window.iter().rposition(|&b| b == b'\n') {
            Some(i) => {
                start = from + i as u64 + 1;
                break;
            }
            None if from == 0 => {
                start = 0;
                break;
            }
            None => start = from,
        }
    }
    // Forward through the newline (other objects may share the line).
    let mut end = range.end;
    loop {
        let to = (end + STEP).min(size);
        if to == end {
            break;
        }
        let window = source.read(entry.file, end..to)?;
        match window.iter().position(|&b| b == b'\n') {
            Some(i) => {
                end += i as u64 + 1;
                break;
            }
            None => end = to,
        }
    }
    Ok(source.read(entry.file, start..end)?.into_owned())
}

/// The document of `file` with only `entries` in its array: the bytes
/// before its first element, the elements (each byte for byte, joined as
/// the file joins two of its elements), the bytes after its last element
/// through the document's end. What follows the document (lines it ends
/// before) is not part of it.
fn document(
    path: &str,
    s: &Session,
    source: &mut impl Source,
    entries: &[EntryId],
    file: retrace_core::FileId,
    out: &mut impl Write,
) -> Result<()> {
    let mut fetch = |f: retrace_core::FileId, r: std::ops::Range<u64>| {
        source
            .read(f, r)
            .map(|b| b.into_owned())
            .map_err(|err| InputError::new(err).on(path))
    };
    let info = &s.files()[file.0 as usize];
    let doc = info.document.as_ref().expect("asked for a document");
    let end = doc.end.unwrap_or(info.size);
    let own = &s.entries()[info.first_entry as usize..info.end_entry as usize];
    let elements: Vec<_> = own.iter().filter(|e| e.offset < end).collect();
    let (Some(first), Some(last)) = (elements.first(), elements.last()) else {
        return Ok(());
    };
    let mut gaps = Vec::new();
    for pair in elements.windows(2).take(SEPARATORS_TRIED) {
        // Not the room of an element too long to be indexed.
        let gap = pair[0].range().end..pair[1].offset;
        if gap.end - gap.start <= 4096 {
            gaps.push(fetch(file, gap)?);
        }
    }
    let separator = separator(&gaps);
    out.write_all(&fetch(file, 0..first.offset)?)?;
    for (i, &e) in entries.iter().enumerate() {
        if i > 0 {
            out.write_all(&separator)?;
        }
        let entry = s.entry(e);
        out.write_all(&fetch(entry.file, entry.range())?)?;
    }
    out.write_all(&fetch(file, last.range().end..end)?)?;
    // The rest of the document's last line, when blank (its line ending).
    let after = fetch(file, end..(end + 256).min(info.size))?;
    let line = match after.iter().position(|&b| b == b'\n') {
        Some(i) => &after[..=i],
        None => &after[..],
    };
    if line.iter().all(u8::is_ascii_whitespace) {
        out.write_all(line)?;
    }
    Ok(())
}

/// How many of a document's gaps between elements are looked at for a
/// well-formed one.
const SEPARATORS_TRIED: usize = 16;

/// What joins two elements: the first gap between two of the file's
/// elements that is one comma among blanks. A gap missing its comma (a
/// damaged file) is not copied into every join: without a well-formed gap,
/// a comma before the first gap's blanks.
fn separator(gaps: &[Vec<u8>]) -> Vec<u8> {
    let blank = |b: &u8| b.is_ascii_whitespace();
    let well_formed = |gap: &&Vec<u8>| {
        gap.iter().filter(|&&b| b == b',').count() == 1
            && gap.iter().all(|b| *b == b',' || blank(b))
    };
    if let Some(gap) = gaps.iter().find(well_formed) {
        return gap.clone();
    }
    let indent = gaps.first().map_or(&[][..], |gap| {
        let from = gap.iter().rposition(|b| !blank(b)).map_or(0, |i| i + 1);
        &gap[from..]
    });
    [&b","[..], indent].concat()
}
