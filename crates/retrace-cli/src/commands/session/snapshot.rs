//! `retrace snapshot`: a named bookmark on an entry
//! (`retrace_core::snapshot`). pi gets a `label` entry appended to the
//! file, the way pi appends (or, with `-o`, a copy of the file with it);
//! other formats a side-car `PATH.snapshots.json` (or `-o`), written
//! atomically with the bookmarks it held kept.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use retrace_core::{snapshot, snapshot_side_car, SnapshotTarget, Stamp};
use retrace_io::OutputFile;
use serde_json::json;

use super::{entry_ids, leaf, stamp_time};
use crate::args::{OutputOptions, ReadArgs, SnapshotArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

impl Run for SnapshotArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, false)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &SnapshotArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.path;
    if path == "-" || Path::new(path).is_dir() {
        return Err(InputError::new("a snapshot is taken on one session file").on(path));
    }
    let mut loaded = load(path, read, printer)?;
    let at = leaf(&loaded, Some(&args.at))?;
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
        &args.name,
        &mut stamp,
        old.as_deref(),
    )
    .map_err(|e| InputError::new(e).on(path))?;
    let cannot = |file: &str, e: &dyn std::fmt::Display| {
        InputError::new(e).on(format!("{file}: cannot write"))
    };
    let written = match (target, &args.output) {
        (SnapshotTarget::Append, None) => {
            // One write at the end, as pi appends.
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(path)
                .map_err(|e| cannot(path, &e))?;
            file.write_all(&done.bytes).map_err(|e| cannot(path, &e))?;
            path.clone()
        }
        (SnapshotTarget::Append, Some(out)) => {
            let mut dest = OutputFile::create(Path::new(out)).map_err(|e| cannot(out, &e))?;
            let original = std::fs::read(path).map_err(|e| InputError::io(&e).on(path))?;
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
                "name": args.name,
                "at": loaded.session.label(at),
                "target": target,
                "written": written,
                "notes": done.notes,
            })
        },
        |out| {
            writeln!(out, "{path}: snapshot \"{}\": {what} {written}", args.name)?;
            for n in &done.notes {
                writeln!(out, "  {}: {}", n.action, n.message)?;
            }
            Ok(())
        },
    )?;
    Ok(ExitStatus::Success)
}
