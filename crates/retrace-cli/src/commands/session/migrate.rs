//! `retrace migrate`: one branch written as the history of a request to a
//! provider API, with a report of what that loses.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Result;
use retrace_core::migrate::{try_migrate, Report};
use retrace_core::{Api, ContextOptions};
use retrace_io::AtomicFile;

use super::leaf;
use crate::args::{MigrateArgs, OutputOptions, ReadArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

impl Run for MigrateArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, false)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &MigrateArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.branch.path;
    let to = Api::from_name(&args.to).expect("clap checked the name");
    let mut loaded = load(path, read, printer)?;
    let leaf = leaf(&loaded, args.branch.leaf.as_deref())?;
    // Payloads too: images and signatures are what a provider needs back.
    let messages = loaded
        .session
        .context_with(leaf, &mut loaded.source, ContextOptions { payloads: true })
        .map_err(|e| InputError::new(e).on(path))?;
    let migration = try_migrate(&messages, to).map_err(|e| {
        let (s, leaf) = (&loaded.session, leaf);
        InputError::new(format!(
            "leaf {} (line {}): {e}",
            s.label(leaf),
            s.entry(leaf).line
        ))
        .on(path)
    })?;
    // A long branch's messages and its body are each about the size of
    // the session: hold one at a time.
    drop(messages);
    let report = &migration.report;
    if args.report {
        printer.emit_pretty(|| report, |out| write!(out, "{report}"))?;
    }
    match &args.output {
        // Through a temporary file renamed into place (a device such as
        // /dev/null is written as it is).
        Some(file) => {
            let cannot =
                |e: &dyn std::fmt::Display| InputError::new(e).on(format!("{file}: cannot write"));
            let mut dest = AtomicFile::create(Path::new(file)).map_err(|e| cannot(&e))?;
            write_body(&mut dest, &migration.body).map_err(|e| cannot(&e))?;
            dest.commit().map_err(|e| cannot(&e))?;
        }
        // With `--report` alone, the report is the answer.
        None if args.report => return Ok(ExitStatus::Success),
        None => write_body(printer.stdout(), &migration.body)?,
    }
    if !args.report {
        if let Some(summary) = losses(report) {
            printer.note(&format!(
                "{path}: {summary} (see `retrace migrate --report`)"
            ))?;
        }
    }
    Ok(ExitStatus::Success)
}

/// The request body, pretty-printed, streamed to `out`.
fn write_body(out: &mut impl Write, body: &serde_json::Value) -> std::io::Result<()> {
    let mut out = BufWriter::new(out);
    serde_json::to_writer_pretty(&mut out, body)?;
    out.write_all(b"\n")?;
    out.flush()
}

/// One line naming what was lost, if anything was.
fn losses(report: &Report) -> Option<String> {
    let lost: Vec<String> = report
        .changes
        .iter()
        .filter(|c| c.loss)
        .map(|c| format!("{} {}", c.count, c.code))
        .collect();
    (!lost.is_empty()).then(|| format!("for {}: {}", report.to, lost.join(", ")))
}
