//! `retrace export --html`: one page holding the viewer and the session's
//! files, each compressed: the open page `cargo xtask dist` wrote
//! (`crate::viewer`), the files as the core's `FilePart`s, the core's
//! tail (the viewer's "Download as HTML" adds its files to the same page).
//! The files are what the viewer would be given for the branches asked
//! for: `--branches all`, every file of the session (and the bookmark
//! side-cars read with them); the default, the branch to the leaf as one
//! file (`retrace cat`'s bytes), the session's subagent runs and the leaf
//! file's side-car. Redacted, each is the bytes `retrace redact` writes
//! of it, redacted and deflated in parts on every core (retrace-io's
//! `ParallelGz`; a JSON document is redacted whole, by one redactor).

use std::io::{self, Write};
use std::sync::Arc;

use flate2::Compression;
use retrace_core::redact::{Finding, Mode, Redactor, Rules, Summary};
use retrace_core::{
    export_branch, part_name, Branches, EntryId, ExportError, FileId, FilePart, Session, Source,
    SourceError, HTML_TAIL,
};
use retrace_io::ParallelGz;

use super::export::What;

/// Bytes read from the session per read.
const READ: u64 = 1 << 20;

/// The gzip level of every part. On the generated 100 MB pi session
/// (zlib-rs, one thread, CPU seconds): level 3 gives 0.292 of its size in
/// 0.73 s, 4 gives 0.286 in 1.22 s, 6 0.281 in 1.35 s, 2 0.308 in 0.58 s
/// and 1 (zlib-rs's quick strategy) 0.375 in 0.30 s. 3 keeps the page
/// well under 0.35 of the session (it is 1.02 times the gzip) in 60 % of
/// 4's deflate time; the corpus's sessions lose 2 to 4 % of size to it.
const LEVEL: u32 = 3;

/// One file of the page.
enum Item<'a> {
    /// A file of the session, whole.
    File(FileId),
    /// The branch to a leaf, as one file.
    Branch(EntryId),
    /// A side-car read with a file (a subagent's `.meta.json`, bookmarks),
    /// by path.
    SideCar(&'a str),
}

/// The side-cars read with each file of a session (retrace-io's
/// `Loaded`): a subagent's `.meta.json`, and bookmarks.
pub(super) struct SideCars<'a> {
    pub meta: &'a [Option<String>],
    pub snapshots: &'a [Option<String>],
}

/// The files the page carries, by the name the viewer opens each under:
/// what a person would drop on it together.
fn items<'a>(session: &Session, cars: &SideCars<'a>, what: &What) -> Vec<(String, Item<'a>)> {
    let file_name = |f: FileId| part_name(&session.files()[f.0 as usize].name).to_owned();
    let car = |list: &'a [Option<String>], f: FileId| {
        list.get(f.0 as usize)
            .and_then(Option::as_deref)
            .map(|path| (part_name(path).to_owned(), Item::SideCar(path)))
    };
    let mut items = Vec::new();
    match (what.branches, what.leaf) {
        (Branches::Main, Some(leaf)) => {
            // Bookmarks name lines of the whole file, which the branch
            // renumbers: left out.
            let file = session.entry(leaf).file;
            items.push((file_name(file), Item::Branch(leaf)));
            items.extend(car(cars.meta, file));
            for run in session.subagents() {
                if run.file != file {
                    items.push((file_name(run.file), Item::File(run.file)));
                    items.extend(car(cars.meta, run.file));
                }
            }
        }
        // Every branch, or a session with no conversation: its files.
        _ => {
            for i in 0..session.files().len() {
                let f = FileId(i as u16);
                items.push((file_name(f), Item::File(f)));
                items.extend(car(cars.meta, f));
                items.extend(car(cars.snapshots, f));
            }
        }
    }
    items
}

/// Writes the page of `session` to `out` (`page`: the open page);
/// redacted with `rules` when given (each finding to `found`, with its
/// file's name when the page holds several), its summary returned.
#[allow(clippy::too_many_arguments)]
pub(super) fn write(
    page: &[u8],
    session: &Session,
    source: &mut dyn Source,
    cars: &SideCars<'_>,
    what: &What,
    rules: Option<&Arc<Rules>>,
    found: &mut dyn FnMut(Option<&str>, &Finding),
    hide: &mut dyn FnMut(&str) -> String,
    mut out: &mut dyn Write,
) -> Result<Option<Summary>, ExportError> {
    let items = items(session, cars, what);
    let several = items.len() > 1;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let level = Compression::new(LEVEL);
    let leaf = what
        .asked
        .then(|| what.leaf.map(|l| session.label(l)))
        .flatten();
    out.write_all(page)?;
    let mut total = rules.map(|_| Summary::default());
    for (i, (name, item)) in items.iter().enumerate() {
        let shown = hide(name);
        let mut part = FilePart::new(&mut out, &shown, leaf.as_deref().filter(|_| i == 0));
        let mut found = |f: &Finding| found(several.then_some(shown.as_str()), f);
        // A JSON document over several lines is redacted whole.
        let document = match item {
            Item::File(f) => session.files()[f.0 as usize].document.is_some(),
            Item::Branch(leaf) => {
                let file = session.entry(*leaf).file;
                session.files()[file.0 as usize].document.is_some()
            }
            Item::SideCar(_) => true,
        };
        let summary = match rules {
            Some(rules) if !document => {
                let mut gz = ParallelGz::redacting(
                    &mut part,
                    level,
                    cores,
                    rules,
                    Mode::default(),
                    &mut found,
                )?;
                content(session, source, item, &mut gz)?;
                gz.finish()?.1
            }
            _ => {
                let gz = ParallelGz::new(&mut part, level, cores)?;
                let mut file = Redacting::new(gz, rules, &mut found);
                content(session, source, item, &mut file)?;
                let (gz, summary) = file.finish()?;
                gz.finish()?;
                summary
            }
        };
        part.finish()?;
        if let (Some(t), Some(s)) = (total.as_mut(), summary) {
            t.merge(&s);
        }
    }
    out.write_all(HTML_TAIL.as_bytes())?;
    Ok(total)
}

/// The bytes of `item` (as read: unzipped) into `out`.
fn content(
    session: &Session,
    source: &mut dyn Source,
    item: &Item<'_>,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    match item {
        Item::File(f) => copy(session, source, *f, out),
        Item::Branch(leaf) => export_branch(session, source, *leaf, out).map(drop),
        Item::SideCar(path) => {
            let bytes = std::fs::read(path)
                .map_err(|e| SourceError::new(FileId(0), 0..0, format!("{path}: {e}")))?;
            Ok(out.write_all(&bytes)?)
        }
    }
}

/// File `f` of the session as read (unzipped), in pieces.
fn copy(
    session: &Session,
    source: &mut dyn Source,
    f: FileId,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let size = session.files()[f.0 as usize].size;
    let mut at = 0;
    while at < size {
        let end = (at + READ).min(size);
        out.write_all(&source.read(f, at..end)?)?;
        at = end;
    }
    Ok(())
}

/// What is written to it goes to `out` as `retrace redact` writes it
/// (with `rules`, by one redactor: for a JSON document), or as it is.
struct Redacting<'a, W: Write> {
    out: W,
    redactor: Option<Redactor>,
    found: &'a mut dyn FnMut(&Finding),
    buf: Vec<u8>,
}

impl<'a, W: Write> Redacting<'a, W> {
    fn new(
        out: W,
        rules: Option<&Arc<Rules>>,
        found: &'a mut dyn FnMut(&Finding),
    ) -> Redacting<'a, W> {
        Redacting {
            out,
            redactor: rules.map(|r| Redactor::new(r.clone(), Mode::default())),
            found,
            buf: Vec::new(),
        }
    }

    /// The rest written; `out` back, and what was redacted.
    fn finish(mut self) -> io::Result<(W, Option<Summary>)> {
        let Some(mut r) = self.redactor.take() else {
            return Ok((self.out, None));
        };
        self.buf.clear();
        r.finish(&mut self.buf);
        self.out.write_all(&self.buf)?;
        for f in r.drain_findings() {
            (self.found)(&f);
        }
        Ok((self.out, Some(r.summary().clone())))
    }
}

impl<W: Write> Write for Redacting<'_, W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self.redactor.as_mut() {
            None => self.out.write_all(data)?,
            Some(r) => {
                self.buf.clear();
                r.push(data, &mut self.buf);
                self.out.write_all(&self.buf)?;
                for f in r.drain_findings() {
                    (self.found)(&f);
                }
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
