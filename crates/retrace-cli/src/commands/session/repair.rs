//! `retrace repair`: a damaged session as a consistent new file
//! (`retrace_core::repair`, whose module doc gives the passes), written to
//! `-o` atomically with every byte left out in the side-car
//! `OUT.rejected`; what was done on stderr, or as JSON. A gzip input is
//! repaired as what it inflates to; `-o OUT.gz` compresses the output
//! (the side-car stays plain).

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use retrace_core::{repair, Rejected, Stamp};
use retrace_io::OutputFile;
use serde::Serialize;

use crate::args::{OutputOptions, ReadArgs, RepairArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

impl Run for RepairArgs {
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
    output: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rejected_file: Option<String>,
    rejected_bytes: usize,
    notes: &'a [retrace_core::Note],
    rejected: &'a [Rejected],
}

fn run(args: &RepairArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.path;
    let mut loaded = load(path, read, printer)?;
    let mut new_id = super::entry_ids(&loaded.session, None);
    let mut stamp = Stamp {
        time_ms: super::stamp_time(args.time.as_deref())?,
        new_id: &mut new_id,
    };
    let edited = repair(&loaded.session, &mut loaded.source, &mut stamp)
        .map_err(|e| InputError::new(e).on(path))?;
    let rejected_bytes: usize = edited.rejected.iter().map(|r| r.bytes.len()).sum();
    let mut side_car = None;
    match &args.output {
        Some(file) => {
            write(file, &edited.bytes)?;
            if !edited.rejected.is_empty() {
                let name = format!("{file}.rejected");
                write(&name, &side_car_bytes(&edited.rejected))?;
                side_car = Some(name);
            }
        }
        None => printer.stdout().write_all(&edited.bytes)?,
    }
    if args.json {
        let report = Report {
            path,
            output: args.output.as_deref(),
            rejected_file: side_car,
            rejected_bytes,
            notes: &edited.notes,
            rejected: &edited.rejected,
        };
        printer.emit(|| &report, |_| Ok(()))?;
        return Ok(ExitStatus::Success);
    }
    for n in &edited.notes {
        match n.line {
            Some(line) => printer.note(&format!("{path}:{line}: {}: {}", n.action, n.message))?,
            None => printer.note(&format!("{path}: {}: {}", n.action, n.message))?,
        }
    }
    let gzip_in = loaded.session.files()[0].gzip.is_some();
    if gzip_in && args.output.as_deref().is_some_and(|f| !f.ends_with(".gz")) {
        printer.note(&format!(
            "{path}: the input is gzip; the output is written uncompressed (name it .gz to \
             compress it)"
        ))?;
    }
    let whither = args.output.as_deref().unwrap_or("stdout");
    let left = match (&side_car, rejected_bytes) {
        (_, 0) => "nothing left out".to_owned(),
        (Some(s), n) => format!("{n} bytes left out, kept in {s}"),
        (None, n) => format!("{n} bytes left out (write with -o to keep them in OUT.rejected)"),
    };
    let changes = edited.notes.len();
    printer.note(&format!(
        "{path}: repaired into {whither}: {changes} change{}, {left}",
        if changes == 1 { "" } else { "s" }
    ))?;
    Ok(ExitStatus::Success)
}

/// The side-car: per left-out piece, a JSON line saying where it was and
/// why, then its bytes as they were, then a newline.
fn side_car_bytes(rejected: &[Rejected]) -> Vec<u8> {
    let mut out = Vec::new();
    for r in rejected {
        let head = serde_json::json!({
            "line": r.line,
            "offset": r.offset,
            "length": r.bytes.len(),
            "reason": r.reason,
        });
        out.extend_from_slice(head.to_string().as_bytes());
        out.push(b'\n');
        out.extend_from_slice(&r.bytes);
        out.push(b'\n');
    }
    out
}

fn write(file: &str, bytes: &[u8]) -> Result<()> {
    let cannot = |e: &dyn std::fmt::Display| InputError::new(e).on(format!("{file}: cannot write"));
    let mut dest = OutputFile::create(Path::new(file)).map_err(|e| cannot(&e))?;
    dest.write_all(bytes).map_err(|e| cannot(&e))?;
    dest.flush().map_err(|e| cannot(&e))?;
    Ok(())
}
