//! `retrace fork`: a new session from a safe fork point or a leaf
//! (`retrace_core::fork`, whose doc gives what changes per format),
//! written to `-o` atomically or to stdout; what was done goes to stdout
//! with `-o` (`--json` too), else to stderr as notes.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use retrace_core::{fork, safe_points, EntryId, ForkLineage};
use retrace_io::{Loaded, OutputFile};
use serde_json::json;

use super::{leaf, stamp_time};
use crate::args::{ForkArgs, OutputOptions, ReadArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

impl Run for ForkArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, false)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &ForkArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.branch.path;
    let mut loaded = load(path, read, printer)?;
    let at = at(&mut loaded, args)?;
    let lineage = ForkLineage {
        new_session_id: args
            .id
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        // The source as the format names its parent: its full path.
        parent_path: (path != "-").then(|| {
            std::fs::canonicalize(path)
                .map_or_else(|_| path.clone(), |p| p.to_string_lossy().into_owned())
        }),
        time_ms: stamp_time(args.time.as_deref())?,
    };
    let done = fork(&loaded.session, &mut loaded.source, at, &lineage)
        .map_err(|e| InputError::new(e).on(path))?;
    let Some(file) = &args.output else {
        printer.stdout().write_all(&done.bytes)?;
        for n in &done.notes {
            printer.note(&format!("{path}: {}", n.message))?;
        }
        return Ok(ExitStatus::Success);
    };
    let cannot = |e: &dyn std::fmt::Display| InputError::new(e).on(format!("{file}: cannot write"));
    let mut dest = OutputFile::create(Path::new(file)).map_err(|e| cannot(&e))?;
    dest.write_all(&done.bytes).map_err(|e| cannot(&e))?;
    dest.flush().map_err(|e| cannot(&e))?;
    let at = loaded.session.label(at);
    printer.emit(
        || {
            json!({
                "path": path,
                "output": file,
                "at": at,
                "session_id": lineage.new_session_id,
                "notes": done.notes,
            })
        },
        |out| {
            writeln!(out, "{path}: forked at {at} into {file}")?;
            for n in &done.notes {
                writeln!(out, "  {}: {}", n.action, n.message)?;
            }
            Ok(())
        },
    )?;
    Ok(ExitStatus::Success)
}

/// The entry `--at` names: `sfp:N` on the branch of `--leaf`, else an id.
fn at(loaded: &mut Loaded, args: &ForkArgs) -> Result<EntryId> {
    let Some(n) = args.at.strip_prefix("sfp:") else {
        return leaf(loaded, Some(&args.at));
    };
    let path = &loaded.name;
    let n: usize = n
        .parse()
        .map_err(|_| InputError::new(format!("--at {}: sfp:N takes a number", args.at)).on(path))?;
    let tip = leaf(loaded, args.branch.leaf.as_deref())?;
    let points = safe_points(&loaded.session, &mut loaded.source, tip)
        .map_err(|e| InputError::new(e).on(&loaded.name))?;
    points.get(n).map(|p| p.entry).ok_or_else(|| {
        InputError::new(format!(
            "--at {}: the branch has {} safe fork points (sfp:0 to sfp:{}); `retrace points` lists them",
            args.at,
            points.len(),
            points.len().saturating_sub(1)
        ))
        .on(&loaded.name)
    })
}
