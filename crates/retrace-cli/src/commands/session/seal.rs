//! `retrace seal`: the branch as a new file with each tool call left
//! without a result answered by a compensating error result
//! (`retrace_core::seal`, whose module doc gives the rules), written to
//! `-o` atomically or to stdout; what was sealed on stderr, or as JSON.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use retrace_core::{seal, Stamp};
use retrace_io::OutputFile;
use serde::Serialize;

use super::{leaf, stamp_time};
use crate::args::{OutputOptions, ReadArgs, SealArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

impl Run for SealArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, false)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

/// The `--json` report.
#[derive(Serialize)]
struct Report<'a> {
    path: &'a str,
    dry_run: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    output: Option<&'a str>,
    sealed: usize,
    notes: &'a [retrace_core::Note],
}

fn run(args: &SealArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.branch.path;
    if args.json && !args.dry_run && args.output.is_none() {
        return Err(InputError::new(
            "--json prints the report: write the session with -o OUT (or use --dry-run)",
        )
        .on(path));
    }
    let mut loaded = load(path, read, printer)?;
    let leaf = leaf(&loaded, args.branch.leaf.as_deref())?;
    let mut new_id = super::entry_ids(&loaded.session, None);
    let mut stamp = Stamp {
        time_ms: stamp_time(args.time.as_deref())?,
        new_id: &mut new_id,
    };
    let edited = seal(
        &loaded.session,
        &mut loaded.source,
        leaf,
        &mut stamp,
        args.dry_run,
    )
    .map_err(|e| InputError::new(e).on(path))?;
    let sealed = edited.notes.iter().filter(|n| n.action == "sealed").count();
    if !args.dry_run {
        match &args.output {
            Some(file) => {
                let cannot = |e: &dyn std::fmt::Display| {
                    InputError::new(e).on(format!("{file}: cannot write"))
                };
                let mut dest = OutputFile::create(Path::new(file)).map_err(|e| cannot(&e))?;
                dest.write_all(&edited.bytes).map_err(|e| cannot(&e))?;
                dest.flush().map_err(|e| cannot(&e))?;
            }
            None => printer.stdout().write_all(&edited.bytes)?,
        }
    }
    let report = Report {
        path,
        dry_run: args.dry_run,
        output: args.output.as_deref(),
        sealed,
        notes: &edited.notes,
    };
    if args.json {
        printer.emit(|| &report, |_| Ok(()))?;
        return Ok(ExitStatus::Success);
    }
    let verb = if args.dry_run { "would seal" } else { "sealed" };
    let mut lines = Vec::new();
    for n in &edited.notes {
        match n.line {
            Some(line) => lines.push(format!("{path}:{line}: {}", n.message)),
            None => lines.push(format!("{path}: {}", n.message)),
        }
    }
    let whither = match (&args.output, args.dry_run) {
        (_, true) => String::new(),
        (Some(file), false) => format!(", written to {file}"),
        (None, false) => ", written to stdout".to_owned(),
    };
    lines.push(format!(
        "{path}: {verb} {sealed} tool call{}{whither}",
        if sealed == 1 { "" } else { "s" }
    ));
    if args.dry_run {
        // The list is the answer.
        printer.emit(
            || &report,
            |out| {
                for l in &lines {
                    writeln!(out, "{l}")?;
                }
                Ok(())
            },
        )?;
    } else {
        for l in &lines {
            printer.note(l)?;
        }
    }
    Ok(ExitStatus::Success)
}
