//! `retrace migrate`: one branch written as the history of a request to a
//! provider API, with a report of what that loses.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Result;
use retrace_core::migrate::{Plan, Planner, Report, StreamError, Streamed};
use retrace_core::{Api, ContextOptions, EntryId, SourceError};
use retrace_io::{AtomicFile, Loaded};

use super::{each_message, leaf};
use crate::args::{MigrateArgs, OutputOptions, ReadArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::{Printer, Shown};

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
    let options = ContextOptions { payloads: true };
    let unreadable = |e: SourceError| InputError::new(e).on(path);
    // Two passes over the branch's messages, neither holding them: the
    // first plans (pairing, ids), the second writes the body as it goes;
    // in each, the messages are read on a thread of their own.
    let mut planner = Planner::new(to);
    let source = &mut loaded.source;
    each_message(
        &loaded.session,
        || Shown::AsWritten(source),
        leaf,
        options,
        |m| {
            planner.add(&m);
            Ok::<_, SourceError>(())
        },
    )
    .map_err(unreadable)?;
    let plan = planner.finish();
    let at = {
        let s = &loaded.session;
        format!("leaf {} (line {})", s.label(leaf), s.entry(leaf).line)
    };
    // A failed write to stdout is as any failed write (a closed pipe, a
    // full disk); to a file, it says which.
    let failed = |f: Failed, cannot_write: &dyn Fn(std::io::Error) -> anyhow::Error| match f {
        Failed::Read(e) => unreadable(e),
        Failed::Stream(StreamError::Refused(e)) => InputError::new(format!("{at}: {e}")).on(path),
        Failed::Stream(StreamError::Write(e)) => cannot_write(e),
    };
    let report = match &args.output {
        // Through a temporary file renamed into place (a device such as
        // /dev/null is written as it is); left uncommitted on an error.
        Some(file) => {
            let cannot =
                |e: &dyn std::fmt::Display| InputError::new(e).on(format!("{file}: cannot write"));
            let mut dest = AtomicFile::create(Path::new(file)).map_err(|e| cannot(&e))?;
            let report = write_body(&mut loaded, leaf, plan, &mut dest)
                .map_err(|f| failed(f, &|e| cannot(&e)))?;
            dest.commit().map_err(|e| cannot(&e))?;
            report
        }
        // With `--report` alone, the report is the answer: the body is
        // made, to count what it loses, and not written.
        None if args.report => write_body(&mut loaded, leaf, plan, &mut std::io::sink())
            .map_err(|f| failed(f, &|e| e.into()))?,
        None => write_body(&mut loaded, leaf, plan, printer.stdout())
            .map_err(|f| failed(f, &|e| e.into()))?,
    };
    if args.report {
        printer.emit_pretty(|| &report, |out| write!(out, "{report}"))?;
    } else if let Some(summary) = losses(&report) {
        printer.note(&format!(
            "{path}: {summary} (see `retrace migrate --report`)"
        ))?;
    }
    Ok(ExitStatus::Success)
}

/// Why the body could not be written.
enum Failed {
    Read(SourceError),
    Stream(StreamError),
}

/// The second pass: the request body, pretty-printed, streamed to `out`
/// as the branch is read again, with a newline after it.
fn write_body(
    loaded: &mut Loaded,
    leaf: EntryId,
    plan: Plan,
    out: &mut impl Write,
) -> Result<Report, Failed> {
    let mut out = BufWriter::with_capacity(1 << 16, out);
    let mut body = Streamed::new(plan, &mut out);
    let options = ContextOptions { payloads: true };
    let source = &mut loaded.source;
    each_message(
        &loaded.session,
        || Shown::AsWritten(source),
        leaf,
        options,
        |m| body.add(&m).map_err(|e| Failed::Stream(e.into())),
    )?;
    let report = body.finish().map_err(Failed::Stream)?;
    let ended = out.write_all(b"\n").and_then(|()| out.flush());
    ended.map_err(|e| Failed::Stream(e.into()))?;
    Ok(report)
}

impl From<SourceError> for Failed {
    fn from(e: SourceError) -> Failed {
        Failed::Read(e)
    }
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
