//! Repair: a damaged session file (a torn last line, runs of NUL bytes,
//! two objects glued on one line, lines that are no JSON, tool results
//! whose call is not on their branch, ids used twice, tool calls left
//! without a result) becomes a consistent new file of the same format.
//!
//! Nothing is lost: every input byte is either carried over, in order, or
//! handed back in [`Edited::rejected`] with its line, offset and why. The
//! file is worked on in three passes, each reading the previous one's
//! output with the core's own reader:
//! 1. framing: each line's objects as the reader found them (a line with
//!    one sound object and blanks is kept whole; glued objects are split
//!    onto lines of their own; an object behind a NUL run is taken out of
//!    it); what is not a sound object is rejected;
//! 2. the tree: an entry whose id an earlier entry already has, and a
//!    tool result the check finds without its call, are rejected, and the
//!    lines that named a rejected entry as their parent take its parent;
//! 3. the default branch's calls left without a result are sealed (see
//!    [`seal`](crate::seal)), the rest of the file kept around them.
//!
//! One JSON-lines file at a time, plain or gzip; a session that is one
//! JSON document (Gemini CLI, provider lists) is not repaired here. A gzip
//! file is repaired as the bytes it inflates to (offsets and lines are
//! those of the inflated stream; the caller compresses the output again).
//! What a damaged gzip stream holds after its damage (or bytes that are no
//! gzip after its last member) cannot be inflated, so it is in neither the
//! output nor [`Edited::rejected`]: a `gzip` note says where the stream
//! broke (the input file still has those bytes).

use std::collections::HashMap;
use std::ops::Range;

use crate::edit::seal::{open_calls, parent_of, replace_parent, write_sealed};
use crate::edit::{EditError, Edited, Note, Rejected, Stamp};
use crate::model::diag::DiagnosticKind;
use crate::model::entry::{EntryId, FileId};
use crate::model::format_id::Format;
use crate::model::sort::sort_by_key;
use crate::session::Session;
use crate::source::Source;

/// An input range carried over.
#[derive(Debug, Clone)]
struct Piece {
    /// Where it is in the input.
    src: Range<u64>,
    /// Its line in the input.
    line: u32,
    /// A newline is written after it (an object split off its line).
    newline: bool,
    /// Its parent id replaced: `(old, new)`.
    reparent: Option<(String, Option<String>)>,
}

/// What the framing pass keeps of a file, and what it rejects.
#[derive(Debug, Default)]
pub struct Salvage {
    /// The input ranges carried over, in order; with the rejected ranges
    /// they cover the input once.
    pub kept: Vec<Range<u64>>,
    /// The rest, with why.
    pub rejected: Vec<Rejected>,
}

/// Repairs the session's file (see the module doc): the new file, what
/// was changed, and every byte left out.
pub fn repair(
    session: &Session,
    source: &mut dyn Source,
    stamp: &mut Stamp,
) -> Result<Edited, EditError> {
    let (mut out, pieces, input) = pieces(session, source)?;
    // Pass 2: ids used twice, results without their call.
    let name = session.files()[0].name.clone();
    let first = assemble(&input, &pieces);
    let read = Session::from_bytes(&name, &first.0);
    let check = read.check(&mut &first.0[..])?;
    let mut drop: Vec<(usize, String)> = Vec::new();
    let at = |offset: u64| first.1.partition_point(|&s| s <= offset).saturating_sub(1);
    for d in read.diagnostics().iter().chain(&check.diagnostics) {
        let why = match d.kind {
            // The reader's message names lines of the first pass's
            // output: name the input's.
            DiagnosticKind::DuplicateId => {
                let id = entry_at(&read, d.offset).and_then(|e| read.id(e));
                let first = id.and_then(|id| read.find(id));
                let line = first.and_then(|e| pieces.get(line_index(&read, e)));
                match (id, line) {
                    (Some(id), Some(p)) => {
                        format!("an id used before: \"{id}\" is the id of line {}", p.line)
                    }
                    _ => format!("an id used before: {}", d.message),
                }
            }
            DiagnosticKind::ResultWithoutCall => {
                format!(
                    "a tool result whose call is not on its branch: {}",
                    d.message
                )
            }
            _ => continue,
        };
        drop.push((at(d.offset), why));
    }
    sort_by_key(&mut drop, |d| d.0);
    drop.dedup_by_key(|d| d.0);
    let mut pieces = pieces;
    // The dropped entries' ids → their parents, for the lines below them.
    let mut parents: HashMap<String, Option<String>> = HashMap::new();
    for (i, _) in &drop {
        let offset = first.1[*i];
        if let Some(e) = entry_at(&read, offset) {
            if let Some(id) = read.id(e) {
                let dup = read
                    .diagnostics()
                    .iter()
                    .any(|d| d.kind == DiagnosticKind::DuplicateId && d.offset == offset);
                // A second use of an id keeps the first entry: nothing
                // pointed at the dropped one alone.
                if !dup {
                    parents.insert(id.to_owned(), parent_of(&read, e));
                }
            }
        }
    }
    for (i, why) in drop.iter().rev() {
        let p = pieces.remove(*i);
        out.notes.push(Note {
            action: "dropped",
            line: Some(p.line),
            id: None,
            message: why.clone(),
        });
        out.rejected.push(Rejected {
            file: 0,
            line: p.line,
            offset: p.src.start,
            reason: why.clone(),
            bytes: input[p.src.start as usize..p.src.end as usize].to_vec(),
        });
    }
    if !parents.is_empty() {
        for (i, e) in read.entries().iter().enumerate() {
            let e_id = EntryId(i as u32);
            let Some(old) = parent_of(&read, e_id) else {
                continue;
            };
            if !parents.contains_key(&old) {
                continue;
            }
            // Up through dropped entries to one kept.
            let mut new = parents[&old].clone();
            while let Some(n) = new.as_ref().and_then(|n| parents.get(n)) {
                new = n.clone();
            }
            let Some(piece) = pieces
                .iter_mut()
                .find(|p| p.line == e.line && p.reparent.is_none())
            else {
                continue;
            };
            out.notes.push(Note {
                action: "reparented",
                line: Some(piece.line),
                id: read.id(e_id).map(str::to_owned),
                message: format!(
                    "its parent {old} was dropped: now a child of {}",
                    new.as_deref().unwrap_or("nothing (a root)")
                ),
            });
            piece.reparent = Some((old, new));
        }
    }
    sort_by_key(&mut out.rejected, |r| r.offset);
    let (second, _) = assemble(&input, &pieces);

    // Pass 3: seal the default branch.
    let read = Session::from_bytes(&name, &second);
    let sealable = matches!(
        read.format(),
        Format::Pi { .. } | Format::ClaudeCode | Format::Codex
    );
    let calls = match read.tree().default_leaf() {
        Some(leaf) if sealable => open_calls(&read, &mut &second[..], leaf)?,
        _ => Vec::new(),
    };
    if calls.is_empty() {
        out.bytes = second;
        return Ok(out);
    }
    for c in &calls {
        out.notes.push(Note {
            action: "sealed",
            line: pieces.get(line_index(&read, c.entry)).map(|p| p.line),
            id: Some(c.id.clone()),
            message: format!(
                "tool call {} ({}) had no result: sealed as an error (stage: {}; {})",
                c.name,
                c.id,
                c.stage.as_str(),
                c.stage.recommendation()
            ),
        });
    }
    let all: Vec<EntryId> = (0..read.entries().len() as u32).map(EntryId).collect();
    out.bytes = write_sealed(&read, &mut &second[..], &all, &calls, stamp)?;
    Ok(out)
}

/// The index of the line an entry is on, among the lines of the file it
/// was read from (the pieces, one per line).
fn line_index(s: &Session, e: EntryId) -> usize {
    s.entry(e).line.saturating_sub(1) as usize
}

/// The entry whose object starts at `offset`, or the first on its line.
fn entry_at(s: &Session, offset: u64) -> Option<EntryId> {
    let i = s.entries().partition_point(|e| e.offset < offset);
    (i < s.entries().len()).then_some(EntryId(i as u32))
}

/// The pieces written one after another, with where each begins.
fn assemble(input: &[u8], pieces: &[Piece]) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::with_capacity(input.len());
    let mut starts = Vec::with_capacity(pieces.len());
    for p in pieces {
        starts.push(out.len() as u64);
        let bytes = &input[p.src.start as usize..p.src.end as usize];
        match &p.reparent {
            Some((old, new)) => out.extend_from_slice(&replace_parent(bytes, old, new.as_deref())),
            None => out.extend_from_slice(bytes),
        }
        if p.newline {
            out.push(b'\n');
        }
    }
    (out, starts)
}

/// The framing pass alone (the first of [`repair`]'s): what it keeps of
/// the session's one file and what it rejects.
pub fn salvage(session: &Session, source: &mut dyn Source) -> Result<Salvage, EditError> {
    let Framed {
        rejected, pieces, ..
    } = pieces_and_rejects(session, source)?;
    Ok(Salvage {
        kept: pieces.into_iter().map(|p| p.src).collect(),
        rejected,
    })
}

fn pieces(
    session: &Session,
    source: &mut dyn Source,
) -> Result<(Edited, Vec<Piece>, Vec<u8>), EditError> {
    let Framed {
        rejected,
        pieces,
        input,
    } = pieces_and_rejects(session, source)?;
    let mut out = Edited::default();
    // What of a damaged gzip stream could not be inflated is not in the
    // input the passes see: said, not silently lost.
    for d in session.diagnostics() {
        if matches!(
            d.kind,
            DiagnosticKind::GzipCorrupt
                | DiagnosticKind::GzipTruncated
                | DiagnosticKind::GzipTrailingData
                | DiagnosticKind::GzipTooLarge
        ) {
            out.notes.push(Note {
                action: "gzip",
                line: Some(d.line),
                id: None,
                message: format!(
                    "{}: {}; repaired from the {} bytes the stream inflated to",
                    d.kind.code(),
                    d.message,
                    input.len()
                ),
            });
        }
    }
    for r in &rejected {
        out.notes.push(Note {
            action: "rejected",
            line: Some(r.line),
            id: None,
            message: format!(
                "{} bytes at offset {}: {}",
                r.bytes.len(),
                r.offset,
                r.reason
            ),
        });
    }
    let splits = pieces.iter().filter(|p| p.newline).count();
    if splits > 0 {
        out.notes.push(Note {
            action: "split",
            line: None,
            id: None,
            message: format!(
                "{splits} object{} put on a line of its own (a newline written after each)",
                if splits == 1 { "" } else { "s" }
            ),
        });
    }
    out.rejected = rejected;
    Ok((out, pieces, input))
}

/// Pass 1: the pieces of each line kept, the rest rejected.
fn pieces_and_rejects(session: &Session, source: &mut dyn Source) -> Result<Framed, EditError> {
    let files = session.files();
    if files.len() != 1 {
        return Err(EditError::Invalid(format!(
            "a repair takes one file at a time, not {}",
            files.len()
        )));
    }
    let info = &files[0];
    if info.document.is_some() {
        return Err(EditError::Unsupported {
            format: session.format().name(),
            what: "repaired (only JSON-lines files are)",
        });
    }
    let input = source.read(FileId(0), 0..info.size)?.into_owned();
    let entries = session.entries();
    let mut pieces = Vec::new();
    let mut rejected = Vec::new();
    let mut next = 0;
    let mut start = 0usize;
    let mut line = 0u32;
    while start < input.len() {
        line += 1;
        let end = memchr::memchr(b'\n', &input[start..]).map_or(input.len(), |i| start + i + 1);
        // The sound objects of the line.
        let mut keep: Vec<Range<usize>> = Vec::new();
        while next < entries.len() && (entries[next].offset as usize) < end {
            let e = &entries[next];
            next += 1;
            let r = e.offset as usize..(e.range().end as usize).min(end);
            if r.start < start {
                continue;
            }
            let sound = !e.is_broken() && is_object(&input[r.clone()]);
            let r = if sound {
                Some(r)
            } else {
                behind_nuls(&input, r)
            };
            keep.extend(r);
        }
        let blank = |r: Range<usize>| input[r].iter().all(u8::is_ascii_whitespace);
        let whole = match keep.as_slice() {
            [] => blank(start..end),
            [k] => blank(start..k.start) && blank(k.end..end),
            _ => false,
        };
        if whole {
            pieces.push(Piece {
                src: start as u64..end as u64,
                line,
                newline: false,
                reparent: None,
            });
            start = end;
            continue;
        }
        let why = reason(session, line, end == input.len() && !input.ends_with(b"\n"));
        let mut at = start;
        for (i, k) in keep.iter().enumerate() {
            if k.start > at {
                rejected.push(reject(&input, at..k.start, line, &why));
            }
            // The last object takes the line's ending if only blanks are
            // left; else a newline is written after it.
            let last = i + 1 == keep.len();
            let (src, newline) = if last && blank(k.end..end) {
                (k.start..end, false)
            } else {
                (k.clone(), true)
            };
            at = src.end;
            pieces.push(Piece {
                src: src.start as u64..src.end as u64,
                line,
                newline,
                reparent: None,
            });
        }
        if at < end {
            rejected.push(reject(&input, at..end, line, &why));
        }
        start = end;
    }
    Ok(Framed {
        rejected,
        pieces,
        input,
    })
}

/// What the framing pass gives: the pieces kept, the bytes rejected, and
/// the input they come from.
struct Framed {
    rejected: Vec<Rejected>,
    pieces: Vec<Piece>,
    input: Vec<u8>,
}

fn reject(input: &[u8], r: Range<usize>, line: u32, why: &str) -> Rejected {
    let bytes = input[r.clone()].to_vec();
    let reason = if bytes.contains(&0) {
        "NUL bytes (a crash while writing)".to_owned()
    } else if bytes.iter().all(u8::is_ascii_whitespace) {
        "blanks between objects split onto lines of their own".to_owned()
    } else {
        why.to_owned()
    };
    Rejected {
        file: 0,
        line,
        offset: r.start as u64,
        reason,
        bytes,
    }
}

/// Why a line's bytes were left out, from the reader's diagnostics.
fn reason(session: &Session, line: u32, last_unterminated: bool) -> String {
    let found = session
        .diagnostics()
        .iter()
        .find(|d| d.line == line && d.kind != DiagnosticKind::ConcatenatedObjects);
    match found {
        Some(d) => format!("{}: {}", d.kind.code(), d.message),
        None if last_unterminated => "torn last line".to_owned(),
        None => "not a JSON object".to_owned(),
    }
}

/// Whether `bytes` are one JSON object.
fn is_object(bytes: &[u8]) -> bool {
    matches!(
        serde_json::from_slice::<serde_json::Value>(bytes),
        Ok(serde_json::Value::Object(_))
    )
}

/// The object after the last run of NUL bytes in `r`, if it is sound.
fn behind_nuls(input: &[u8], r: Range<usize>) -> Option<Range<usize>> {
    let last_nul = input[r.clone()].iter().rposition(|&b| b == 0)?;
    let mut from = r.start + last_nul + 1;
    while from < r.end && input[from].is_ascii_whitespace() {
        from += 1;
    }
    let mut to = r.end;
    while to > from && input[to - 1].is_ascii_whitespace() {
        to -= 1;
    }
    is_object(&input[from..to]).then_some(from..to)
}
