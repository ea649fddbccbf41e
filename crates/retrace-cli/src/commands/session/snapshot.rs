//! `retrace snapshot`: a named bookmark on an entry
//! (`retrace_core::snapshot`). pi gets a `label` entry appended to the
//! file, the way pi appends (or, with `-o`, a copy of the file with it);
//! other formats a side-car `PATH.snapshots.json` (or `-o`; a gzipped
//! `x.jsonl.gz` shares `x.jsonl.snapshots.json`), written atomically with
//! the bookmarks it held kept. `--list` lists the bookmarks the reader
//! finds (`Session::bookmarks`): the entry, its line and where the name is
//! written.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use retrace_core::{
    format_rfc3339_ms, snapshot, snapshot_side_car, BookmarkOrigin, FileId, SnapshotTarget, Source,
    Stamp,
};
use retrace_io::{append_lines, OutputFile};
use serde_json::json;

use super::{entry_ids, leaf, stamp_time, warn_bad_bookmarks};
use crate::args::{OutputOptions, ReadArgs, SnapshotArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::output::time;
use crate::printer::Printer;

impl Run for SnapshotArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, false)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        match (self.list, self.name.as_deref(), self.at.as_deref()) {
            (true, _, _) => list(&self.path, read, printer),
            (false, Some(name), Some(at)) => run(self, name, at, read, printer),
            // clap asks for both unless `--list`.
            _ => Err(InputError::new("a snapshot needs a NAME and --at").into()),
        }
    }
}

/// `--list`: one line per bookmark.
fn list(path: &str, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let loaded = load(path, read, printer)?;
    warn_bad_bookmarks(&loaded, printer)?;
    let s = &loaded.session;
    let file_of = |e| &s.files()[s.entry(e).file.0 as usize].name;
    printer.emit(
        || {
            let bookmarks: Vec<_> = s
                .bookmarks()
                .iter()
                .map(|b| {
                    let mut one = json!({
                        "name": b.name,
                        "at": s.label(b.entry),
                        "file": file_of(b.entry),
                        "line": s.entry(b.entry).line,
                        "time": b.time.map(format_rfc3339_ms),
                    });
                    let (source, by) = match &b.origin {
                        BookmarkOrigin::Label(l) => ("label", json!(s.label(*l))),
                        BookmarkOrigin::SideCar(car) => ("side_car", json!(car)),
                    };
                    one["source"] = json!(source);
                    one[source] = by;
                    one
                })
                .collect();
            json!({"path": path, "bookmarks": bookmarks})
        },
        |out| {
            let n = s.bookmarks().len();
            writeln!(out, "{path}: {n} bookmark{}", if n == 1 { "" } else { "s" })?;
            for b in s.bookmarks() {
                let e = s.entry(b.entry);
                // The line is of the entry's file; say which when there
                // are several.
                let of = match s.files().len() {
                    1 => String::new(),
                    _ => format!(" of {}", file_of(b.entry)),
                };
                let source = match &b.origin {
                    BookmarkOrigin::Label(l) => {
                        format!("label entry {} (line {})", s.label(*l), s.entry(*l).line)
                    }
                    BookmarkOrigin::SideCar(car) => format!("side-car {car}"),
                };
                let when = b
                    .time
                    .map(|t| format!(" · {}", time(t)))
                    .unwrap_or_default();
                writeln!(
                    out,
                    "  \"{}\" on {}, line {}{of} · {source}{when}",
                    b.name,
                    s.label(b.entry),
                    e.line
                )?;
            }
            Ok(())
        },
    )?;
    Ok(ExitStatus::Success)
}

fn run(
    args: &SnapshotArgs,
    name: &str,
    at: &str,
    read: &ReadArgs,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let path = &args.path;
    if path == "-" || Path::new(path).is_dir() {
        return Err(InputError::new("a snapshot is taken on one session file").on(path));
    }
    let mut loaded = load(path, read, printer)?;
    let at = leaf(&loaded, Some(at))?;
    let time_ms = stamp_time(args.time.as_deref())?;
    let mut new_id = entry_ids(&loaded.session, args.id.as_deref());
    let mut stamp = Stamp {
        time_ms,
        new_id: &mut new_id,
    };
    let side_car = snapshot_side_car(path);
    let old = std::fs::read(args.output.as_deref().unwrap_or(&side_car)).ok();
    let (target, done) = snapshot(
        &loaded.session,
        &mut loaded.source,
        at,
        name,
        &mut stamp,
        old.as_deref(),
    )
    .map_err(|e| InputError::new(e).on(path))?;
    let cannot = |file: &str, e: &dyn std::fmt::Display| {
        InputError::new(e).on(format!("{file}: cannot write"))
    };
    let written = match (target, &args.output) {
        (SnapshotTarget::Append, None) => {
            // As pi appends; to a gzipped file, as a member of its own.
            let gzip = loaded.session.files()[0].gzip.is_some();
            append_lines(Path::new(path), &done.bytes, gzip).map_err(|e| cannot(path, &e))?;
            path.clone()
        }
        (SnapshotTarget::Append, Some(out)) => {
            // The session as read (decompressed), then the line; `OUT.gz`
            // is compressed whole.
            let size = loaded.session.files()[0].size;
            let original = loaded
                .source
                .read(FileId(0), 0..size)
                .map_err(|e| InputError::new(e).on(path))?;
            let mut dest = OutputFile::create(Path::new(out)).map_err(|e| cannot(out, &e))?;
            dest.write_all(&original).map_err(|e| cannot(out, &e))?;
            dest.write_all(&done.bytes).map_err(|e| cannot(out, &e))?;
            dest.flush().map_err(|e| cannot(out, &e))?;
            out.clone()
        }
        (SnapshotTarget::SideCar, out) => {
            let file = out.clone().unwrap_or(side_car);
            let mut dest = OutputFile::create(Path::new(&file)).map_err(|e| cannot(&file, &e))?;
            dest.write_all(&done.bytes).map_err(|e| cannot(&file, &e))?;
            dest.flush().map_err(|e| cannot(&file, &e))?;
            file
        }
    };
    let what = match target {
        SnapshotTarget::Append => "label entry appended to",
        SnapshotTarget::SideCar => "side-car written:",
    };
    printer.emit(
        || {
            json!({
                "path": path,
                "name": name,
                "at": loaded.session.label(at),
                "target": target,
                "written": written,
                "notes": done.notes,
            })
        },
        |out| {
            writeln!(out, "{path}: snapshot \"{name}\": {what} {written}")?;
            for n in &done.notes {
                writeln!(out, "  {}: {}", n.action, n.message)?;
            }
            Ok(())
        },
    )?;
    Ok(ExitStatus::Success)
}
