//! One branch as a standalone session file (what `retrace cat` writes,
//! what a viewer's download of a branch gives, what fork and seal build
//! on).
//!
//! Each original line byte for byte, a line holding two run-together
//! objects once; the file's last line, when it has no newline and is not
//! written last, gets one (the only byte `cat` adds to JSON lines). A line that edits the branch it is on (a Codex
//! `thread_rolled_back`) is left out: the branch already leaves out the
//! turns it drops, and read again it would drop earlier ones
//! ([`Session::standalone_branch`], the one rule for every branch written
//! as a file); [`Export::left_out`] says how many.
//!
//! A branch that ends in a file that is one JSON document (a Gemini CLI
//! session, a provider message list) gives that document with only the
//! branch's elements in its array. The output takes the leaf's form: a
//! branch of JSON lines that begins in a document (a Gemini CLI session
//! split over a legacy `.json` and a `.jsonl`) gets those elements as
//! lines, the blanks between their tokens dropped, every other byte kept;
//! [`Export::relaid`] says how many, for the caller to tell.

use std::collections::HashSet;
use std::io::Write;
use std::ops::Range;

use crate::{EntryId, FileId, Session, Source, SourceError};

/// What [`export_branch`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Export {
    /// Entries written (the branch, and what it needs to stand alone).
    pub entries: usize,
    /// Elements of a JSON document written as JSON lines, each on one line
    /// (the blanks between its tokens dropped).
    pub relaid: usize,
    /// Entries of the branch left out because they edit it (Codex
    /// rollbacks, already applied: see [`Session::is_branch_edit`]).
    pub left_out: usize,
}

/// Why an export stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The session's bytes could not be read.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// `out` refused the bytes (a closed pipe, a full disk).
    #[error("cannot write the branch: {0}")]
    Write(#[from] std::io::Error),
}

/// Writes the branch ending at `leaf` to `out` as a session file of its own
/// (see the module doc), with what it needs before it to stand alone (pi's
/// session header, see
/// [`Session::standalone_branch`](crate::Session::standalone_branch)).
/// Bytes are read through `source`; `out` is written in pieces, so pass a
/// buffered writer.
pub fn export_branch(
    session: &Session,
    source: &mut dyn Source,
    leaf: EntryId,
    out: &mut dyn Write,
) -> Result<Export, ExportError> {
    let entries = session.standalone_branch(leaf);
    let left_out = session
        .branch(leaf)
        .into_iter()
        .filter(|&e| session.is_branch_edit(e))
        .count();
    let file = session.entry(leaf).file;
    if session.files()[file.0 as usize].document.is_some() {
        let done = document(session, source, &entries, file, out)?;
        return Ok(Export { left_out, ..done });
    }
    let mut done = Export {
        left_out,
        ..Export::default()
    };
    let mut written = HashSet::new();
    // The file's last line may have no newline; written before another
    // (a branch out of file order: a Gemini CLI record rewritten later),
    // it gets one, or the two would read as one line.
    let mut unended = false;
    for e in entries {
        let entry = session.entry(e);
        if in_document(session, e) {
            let bytes = source.read(entry.file, entry.range())?;
            if std::mem::take(&mut unended) {
                out.write_all(b"\n")?;
            }
            out.write_all(&one_line(&bytes))?;
            out.write_all(b"\n")?;
            done.entries += 1;
            done.relaid += 1;
            continue;
        }
        done.entries += 1;
        if !written.insert((entry.file, entry.line)) {
            continue;
        }
        let line = line_range(session, source, e)?;
        let bytes = source.read(entry.file, line)?;
        if std::mem::take(&mut unended) {
            out.write_all(b"\n")?;
        }
        out.write_all(&bytes)?;
        unended = !bytes.ends_with(b"\n");
    }
    Ok(done)
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
pub(crate) fn one_line(json: &[u8]) -> Vec<u8> {
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
pub(crate) fn line_range(
    s: &Session,
    source: &mut dyn Source,
    e: EntryId,
) -> Result<Range<u64>, SourceError> {
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
    Ok(start..end)
}

/// How many of a document's gaps between elements are looked at for a
/// well-formed one.
const SEPARATORS_TRIED: usize = 16;

/// The document of `file` with only `entries` in its array: the bytes
/// before its first element, the elements (each byte for byte, joined as
/// the file joins two of its elements), the bytes after its last element
/// through the document's end. What follows the document (lines it ends
/// before) is not part of it.
fn document(
    s: &Session,
    source: &mut dyn Source,
    entries: &[EntryId],
    file: FileId,
    out: &mut dyn Write,
) -> Result<Export, ExportError> {
    let Some(frame) = document_frame(s, source, file)? else {
        return Ok(Export::default());
    };
    out.write_all(&frame.head)?;
    for (i, &e) in entries.iter().enumerate() {
        if i > 0 {
            out.write_all(&frame.separator)?;
        }
        let entry = s.entry(e);
        out.write_all(&source.read(entry.file, entry.range())?)?;
    }
    out.write_all(&frame.tail)?;
    Ok(Export {
        entries: entries.len(),
        ..Export::default()
    })
}

/// What a document holds around the elements of its array.
pub(crate) struct DocumentFrame {
    /// The bytes before the first element.
    pub head: Vec<u8>,
    /// What joins two elements (see [`separator`]).
    pub separator: Vec<u8>,
    /// The bytes after the last element through the document's end, and
    /// the rest of its last line when blank (its line ending).
    pub tail: Vec<u8>,
    /// How many elements the file's document has.
    pub elements: usize,
}

/// The frame of `file`'s document; `None` for a document without
/// elements (or a file that is none).
pub(crate) fn document_frame(
    s: &Session,
    source: &mut dyn Source,
    file: FileId,
) -> Result<Option<DocumentFrame>, SourceError> {
    let info = &s.files()[file.0 as usize];
    let Some(doc) = info.document.as_ref() else {
        return Ok(None);
    };
    let end = doc.end.unwrap_or(info.size);
    let own = &s.entries()[info.first_entry as usize..info.end_entry as usize];
    let elements: Vec<_> = own.iter().filter(|e| e.offset < end).collect();
    let (Some(first), Some(last)) = (elements.first(), elements.last()) else {
        return Ok(None);
    };
    let mut gaps = Vec::new();
    for pair in elements.windows(2).take(SEPARATORS_TRIED) {
        // Not the room of an element too long to be indexed.
        let gap = pair[0].range().end..pair[1].offset;
        if gap.end - gap.start <= 4096 {
            gaps.push(source.read(file, gap)?.into_owned());
        }
    }
    let head = source.read(file, 0..first.offset)?.into_owned();
    let mut tail = source.read(file, last.range().end..end)?.into_owned();
    let after = source.read(file, end..(end + 256).min(info.size))?;
    let line = match after.iter().position(|&b| b == b'\n') {
        Some(i) => &after[..=i],
        None => &after[..],
    };
    if line.iter().all(u8::is_ascii_whitespace) {
        tail.extend_from_slice(line);
    }
    Ok(Some(DocumentFrame {
        head,
        separator: separator(&gaps),
        tail,
        elements: elements.len(),
    }))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn export(name: &str, bytes: &[u8]) -> (Vec<u8>, Export) {
        let s = Session::from_bytes(name, bytes);
        let leaf = s.tree().default_leaf().expect("a leaf");
        let mut source: &[u8] = bytes;
        let mut out = Vec::new();
        let done = export_branch(&s, &mut source, leaf, &mut out).unwrap();
        (out, done)
    }

    #[test]
    fn pretty_printed_values_go_on_one_line() {
        assert_eq!(
            one_line(b"{\n  \"a\": \"x  y\\\" \",\n  \"b\": [1, 2]\n}"),
            b"{\"a\":\"x  y\\\" \",\"b\":[1,2]}"
        );
    }

    #[test]
    fn separators_come_from_a_well_formed_gap() {
        let gaps = vec![b"\n  ".to_vec(), b",\n  ".to_vec()];
        assert_eq!(separator(&gaps), b",\n  ");
        // No comma anywhere: one before the first gap's indentation.
        assert_eq!(separator(&[b"\n    ".to_vec()]), b",\n    ");
        assert_eq!(separator(&[]), b",");
    }

    #[test]
    fn lines_of_the_branch_byte_for_byte_and_a_shared_line_once() {
        // pi v3 with a branch: e3 is off the default branch. e4 and e5 share
        // a line; the file has no newline at its end.
        let lines = concat!(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\r\n",
            "{\"type\":\"message\",\"id\":\"e1\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
            "{\"type\":\"message\",\"id\":\"e3\",\"parentId\":\"e1\",\"timestamp\":\"2025-01-01T00:00:02.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[]}}\n",
            "  {\"type\":\"message\",\"id\":\"e4\",\"parentId\":\"e1\",\"timestamp\":\"2025-01-01T00:05:00.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[]}}",
            "{\"type\":\"message\",\"id\":\"e5\",\"parentId\":\"e4\",\"timestamp\":\"2025-01-01T00:06:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"more\"}}",
        );
        let (out, done) = export("t.jsonl", lines.as_bytes());
        let kept: Vec<&str> = lines
            .split_inclusive('\n')
            .filter(|l| !l.contains("\"e3\""))
            .collect();
        assert_eq!(String::from_utf8(out).unwrap(), kept.concat());
        assert_eq!(
            done,
            Export {
                entries: 4,
                relaid: 0,
                left_out: 0
            }
        );
    }

    #[test]
    fn a_document_keeps_its_frame_and_the_branch_elements() {
        let doc = "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n    {\"id\": \"a\", \"type\": \"user\", \"content\": \"x\"},\n    {\"id\": \"b\", \"type\": \"gemini\", \"content\": \"y\"}\n  ]\n}\n";
        let (out, done) = export("session-2025-01-01T00-00-abcdef12.json", doc.as_bytes());
        assert_eq!(String::from_utf8(out).unwrap(), doc);
        assert_eq!(done.relaid, 0);
    }
}
