//! `retrace export --html`: one page holding the viewer (embedded at build
//! time, `crate::viewer`) and the session's files, each compressed, as
//! the core's `HtmlWriter` lays them out (the viewer's "Download as HTML"
//! writes the same layout). The files are what the viewer would be given
//! for the branches asked for: `--branches all`, every file of the
//! session (and the bookmark side-cars read with them); the default, the
//! branch to the leaf as one file (`retrace cat`'s bytes), the session's
//! subagent runs and the leaf file's side-car. Redacted, each is the
//! bytes `retrace redact` writes of it: the core's `Redactor` streams it
//! (its findings to the caller's report) into gzip, on the way to the
//! page.

use std::io::{self, Write};
use std::sync::Arc;

use flate2::write::GzEncoder;
use flate2::Compression;
use retrace_core::redact::{Finding, Mode, Redactor, Rules, Summary};
use retrace_core::{
    export_branch, frame_of, Branches, EntryId, ExportError, FileId, HtmlPage, HtmlPart,
    HtmlWriter, Session, Source, SourceError,
};

use super::export::What;
use crate::viewer::Viewer;

/// Bytes read from the session per read.
const READ: u64 = 1 << 20;

/// The gzip level of every part: the page is to be at most about a third
/// of the session.
const LEVEL: u32 = 6;

/// One file of the page.
enum Item<'a> {
    /// A file of the session, whole.
    File(FileId),
    /// The branch to a leaf, as one file.
    Branch(EntryId),
    /// A side-car read with a file (bookmarks), by path.
    SideCar(&'a str),
}

/// The files the page carries, by the name the viewer opens each under.
fn items<'a>(
    session: &Session,
    side_cars: &'a [Option<String>],
    what: &What,
) -> Vec<(String, Item<'a>)> {
    let base = |name: &str| name.rsplit(['/', '\\']).next().unwrap_or(name).to_owned();
    let file_name = |f: FileId| {
        let name = base(&session.files()[f.0 as usize].name);
        // A gzip file is written unzipped.
        name.strip_suffix(".gz").map_or(name.clone(), str::to_owned)
    };
    let side_car = |f: FileId| {
        side_cars
            .get(f.0 as usize)
            .and_then(Option::as_deref)
            .map(|path| (base(path), Item::SideCar(path)))
    };
    let all = |items: &mut Vec<(String, Item<'a>)>| {
        for i in 0..session.files().len() {
            let f = FileId(i as u16);
            items.push((file_name(f), Item::File(f)));
            items.extend(side_car(f));
        }
    };
    let mut items = Vec::new();
    match (what.branches, what.leaf) {
        (Branches::Main, Some(leaf)) => {
            let file = session.entry(leaf).file;
            items.push((file_name(file), Item::Branch(leaf)));
            items.extend(side_car(file));
            for run in session.subagents() {
                if run.file != file {
                    items.push((file_name(run.file), Item::File(run.file)));
                }
            }
        }
        // Every branch, or a session with no conversation: its files.
        _ => all(&mut items),
    }
    items
}

/// Writes the page of `session` to `out`; redacted with `rules` when
/// given (each finding to `found`, with its file's name when the page
/// holds several), its summary returned.
#[allow(clippy::too_many_arguments)]
pub(super) fn write(
    viewer: &Viewer,
    session: &Session,
    source: &mut dyn Source,
    side_cars: &[Option<String>],
    what: &What,
    rules: Option<&Arc<Rules>>,
    found: &mut dyn FnMut(Option<&str>, &Finding),
    hide: &mut dyn FnMut(&str) -> String,
    out: &mut dyn Write,
) -> Result<Option<Summary>, ExportError> {
    let items = items(session, side_cars, what);
    let several = items.len() > 1;
    let frame = frame_of(viewer.index).map_err(io::Error::from)?;
    let title = format!("{} — retrace", hide(&items[0].0));
    let leaf = what.leaf.map(|l| session.label(l));
    let page = HtmlPage {
        frame,
        style: viewer.style,
        title: &title,
        leaf: leaf.as_deref(),
    };
    let mut w = HtmlWriter::new(out, &page)?;
    for (name, bytes) in [
        ("glue", viewer.glue),
        ("wasm", viewer.wasm),
        ("worker", viewer.worker),
        ("frame", frame.as_bytes()),
    ] {
        let mut part = w.part(HtmlPart::Viewer(name))?;
        let mut gz = GzEncoder::new(&mut part, Compression::new(LEVEL));
        gz.write_all(bytes)?;
        gz.finish()?;
        part.finish()?;
    }
    let mut total = rules.map(|_| Summary::default());
    for (name, item) in &items {
        let shown = hide(name);
        let mut part = w.part(HtmlPart::File(&shown))?;
        let gz = GzEncoder::new(&mut part, Compression::new(LEVEL));
        let mut found_here = |f: &Finding| found(several.then_some(shown.as_str()), f);
        let mut file = Redacting::new(gz, rules, &mut found_here);
        match item {
            Item::File(f) => copy(session, source, *f, &mut file)?,
            Item::Branch(leaf) => drop(export_branch(session, source, *leaf, &mut file)?),
            Item::SideCar(path) => {
                let bytes = std::fs::read(path)
                    .map_err(|e| SourceError::new(FileId(0), 0..0, format!("{path}: {e}")))?;
                file.write_all(&bytes)?;
            }
        }
        let (gz, summary) = file.finish()?;
        gz.finish()?;
        part.finish()?;
        if let (Some(t), Some(s)) = (total.as_mut(), summary) {
            t.merge(&s);
        }
    }
    w.finish()?;
    Ok(total)
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
/// (with `rules`), or as it is.
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
