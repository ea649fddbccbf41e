//! `retrace migrate`: one branch written as the history of a request to a
//! provider API, with a report of what that loses.

use std::io::{BufWriter, Write};
use std::path::Path;

use retrace_core::migrate::{migrate, Report};
use retrace_core::{Api, ContextOptions};
use retrace_store::AtomicFile;

use crate::input::{leaf, load};
use crate::{report, Failure, Outcome};

/// What `migrate` was asked to do.
pub struct Options<'a> {
    pub to: Api,
    pub leaf: Option<&'a str>,
    /// Where to write the body (else stdout).
    pub output: Option<&'a str>,
    /// Print the compatibility report (and the body only when `output`
    /// names a file).
    pub report: bool,
    /// The report as JSON.
    pub json: bool,
}

pub fn run(path: &str, options: &Options, out: &mut impl Write) -> Result<Outcome, Failure> {
    let mut loaded = load(path)?;
    let leaf = leaf(&loaded, options.leaf)?;
    // Payloads too: images and signatures are what a provider needs back.
    let messages = loaded
        .session
        .context_with(leaf, &mut loaded.source, ContextOptions { payloads: true })
        .map_err(|e| Failure::Input(format!("{path}: {e}")))?;
    let migration = migrate(&messages, options.to);
    // A long branch's messages and its body are each about the size of
    // the session: hold one at a time.
    drop(messages);
    if options.report {
        if options.json {
            serde_json::to_writer_pretty(&mut *out, &migration.report)
                .map_err(std::io::Error::from)?;
            writeln!(out)?;
        } else {
            write!(out, "{}", migration.report)?;
        }
    }
    match options.output {
        // Through a temporary file renamed into place (a device such as
        // /dev/null is written as it is).
        Some(file) => {
            let cannot =
                |e: &dyn std::fmt::Display| Failure::Input(format!("{file}: cannot write: {e}"));
            let mut dest = AtomicFile::create(Path::new(file)).map_err(|e| cannot(&e))?;
            write_body(&mut dest, &migration.body).map_err(|e| cannot(&e))?;
            dest.commit().map_err(|e| cannot(&e))?;
        }
        // With `--report` alone, the report is the answer.
        None if options.report => return Ok(Outcome::Clean),
        None => write_body(out, &migration.body)?,
    }
    if !options.report {
        if let Some(summary) = losses(&migration.report) {
            out.flush()?;
            report(&format!(
                "{path}: {summary} (see `retrace migrate --report`)"
            ));
        }
    }
    Ok(Outcome::Clean)
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
