//! `retrace cat`: one branch as a standalone session file, each original
//! line byte for byte (a line holding two run-together objects once). A
//! file that is one JSON document (a Gemini CLI session, a message list)
//! gives the leaf's document with only the branch's elements in its array.

use std::collections::HashSet;
use std::io::Write;

use retrace_core::{EntryId, Session, Source};

use crate::input::{leaf, load};
use crate::{Failure, Outcome};

pub fn run(path: &str, wanted: Option<&str>, out: &mut impl Write) -> Result<Outcome, Failure> {
    let mut loaded = load(path)?;
    let leaf = leaf(&loaded, wanted)?;
    let s = &loaded.session;
    // With what the branch needs to be a session file (pi's header).
    let entries = s.standalone_branch(leaf);
    let file = s.entry(leaf).file;
    if s.files()[file.0 as usize].document.is_some() {
        return document(path, s, &mut loaded.source, &entries, file, out);
    }
    let mut written = HashSet::new();
    for e in entries {
        let entry = s.entry(e);
        if !written.insert((entry.file, entry.line)) {
            continue;
        }
        let bytes = line_bytes(s, &mut loaded.source, e)
            .map_err(|err| Failure::Input(format!("{path}: {err}")))?;
        out.write_all(&bytes)?;
    }
    Ok(Outcome::Clean)
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
/// the file joins its first two), the bytes after its last element.
fn document(
    path: &str,
    s: &Session,
    source: &mut impl Source,
    entries: &[EntryId],
    file: retrace_core::FileId,
    out: &mut impl Write,
) -> Result<Outcome, Failure> {
    let mut fetch = |f: retrace_core::FileId, r: std::ops::Range<u64>| {
        source
            .read(f, r)
            .map(|b| b.into_owned())
            .map_err(|err| Failure::Input(format!("{path}: {err}")))
    };
    let info = &s.files()[file.0 as usize];
    let own = &s.entries()[info.first_entry as usize..info.end_entry as usize];
    let (Some(first), Some(last)) = (own.first(), own.last()) else {
        return Ok(Outcome::Clean);
    };
    let separator = match own.get(1) {
        Some(second) => fetch(file, first.range().end..second.offset)?,
        None => b",".to_vec(),
    };
    out.write_all(&fetch(file, 0..first.offset)?)?;
    for (i, &e) in entries.iter().enumerate() {
        if i > 0 {
            out.write_all(&separator)?;
        }
        let entry = s.entry(e);
        out.write_all(&fetch(entry.file, entry.range())?)?;
    }
    out.write_all(&fetch(file, last.range().end..info.size)?)?;
    Ok(Outcome::Clean)
}
