//! `retrace export`: a branch (or every branch) written to share, in the
//! format its flag names: `--md`, Markdown (the core's `write_markdown`,
//! whose doc says what it writes). What every format shares is here: the
//! input and its leaf, `--branches`, where the output goes (stdout, or
//! `-o` through retrace-io's atomic `OutputFile`), and the redaction. It
//! is on by default, with the rules `retrace redact` and the viewer run:
//! bodies are read through the core's `RedactingSource`, which records
//! what it hides, and the texts that come from the index (file, bookmark
//! and subagent names) go through a `Redactor`. What was hidden is said
//! on stderr (counts by kind) and, with `--report`, written as the JSON
//! `retrace redact --report` writes.

use std::io::{self, Write};
use std::sync::Arc;

use anyhow::Result;
use retrace_core::redact::{Finding, Mode, RedactingSource, Redactor, Rules, Summary};
use retrace_core::{
    write_markdown, Branches, EntryId, ExportError, FileId, MarkdownOptions, Session, Source,
};

use super::redact::{create, note_counts, warn_leftovers, ReportWriter};
use super::{export_html, leaf, warn_bad_bookmarks};
use crate::args::{BranchesChoice, ExportArgs, ExportFormat, ReadArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;
use crate::viewer;

impl Run for ExportArgs {
    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &ExportArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.branch.path;
    let format = args.to.format();
    // A build without the viewer says so before reading anything.
    let page = match format {
        ExportFormat::Html => Some(viewer::page().map_err(|e| e.on("--html"))?),
        ExportFormat::Markdown => None,
    };
    let mut loaded = load(path, read, printer)?;
    warn_bad_bookmarks(&loaded, printer)?;
    // A session with no conversation is still written (its entries as
    // events); a leaf asked for must be one.
    let leaf = match args.branch.leaf.as_deref() {
        Some(id) => Some(leaf(&loaded, Some(id))?),
        None => loaded.session.tree().default_leaf(),
    };
    let branches = match args.branches {
        BranchesChoice::Main => Branches::Main,
        BranchesChoice::All => Branches::All,
    };
    if args.no_redact {
        printer.warn(&format!(
            "{path}: --no-redact: secrets and personal data are written as they are; \
             check the output before sharing it"
        ))?;
    }
    let mut output = args.output.as_deref().map(create).transpose()?;
    let rules = Arc::new(Rules::builtin());
    let mut report = match &args.report {
        Some(file) => Some(ReportWriter::create(file, path, rules.clone())?),
        None => None,
    };
    let s = &loaded.session;
    let mut report_failed: Option<io::Error> = None;
    // A finding names its file when the output comes from several.
    let mut found = |file: Option<&str>, f: &Finding| {
        let Some(r) = report.as_mut().filter(|_| report_failed.is_none()) else {
            return;
        };
        if let Err(e) = r.finding(f, file) {
            report_failed = Some(e);
        }
    };
    let mut redactor = Redactor::new(rules.clone(), Mode::default());
    let mut hide = |t: &str| redactor.redact_text(t);
    let mut keep = |t: &str| t.to_owned();
    let hide: &mut dyn FnMut(&str) -> String = if args.no_redact { &mut keep } else { &mut hide };
    let out: &mut dyn Write = match output.as_mut() {
        Some(file) => file,
        None => printer.stdout(),
    };
    let source: &mut dyn Source = &mut loaded.source;
    let what = What {
        leaf,
        asked: args.branch.leaf.is_some(),
        branches,
        redacted: !args.no_redact,
    };
    let (written, summary) = match page {
        Some(page) => {
            let rules = (!args.no_redact).then_some(&rules);
            let cars = export_html::SideCars {
                meta: &loaded.side_cars,
                snapshots: &loaded.snapshots,
            };
            match export_html::write(page, s, source, &cars, &what, rules, &mut found, hide, out) {
                Ok(summary) => (Ok(()), summary),
                Err(e) => (Err(e), None),
            }
        }
        None => markdown(s, source, &what, &rules, &mut found, hide, out),
    };
    let cannot_write = |file: &str, e: &dyn std::fmt::Display| {
        InputError::new(e).on(format!("{file}: cannot write"))
    };
    written.map_err(|e| match (e, &args.output) {
        (ExportError::Source(e), _) => InputError::new(e).on(path),
        (ExportError::Write(e), Some(file)) => cannot_write(file, &e),
        // A closed pipe or a full disk: as any failed write to stdout.
        (ExportError::Write(e), None) => e.into(),
    })?;
    if let (Some(mut file), Some(name)) = (output, &args.output) {
        // Finished and renamed into place.
        file.flush().map_err(|e| cannot_write(name, &e))?;
    }
    let Some(summary) = summary else {
        return Ok(ExitStatus::Success);
    };
    if let (Some(r), Some(name)) = (report, &args.report) {
        if let Some(e) = report_failed {
            return Err(cannot_write(name, &e));
        }
        r.finish(&summary, Mode::default())
            .map_err(|e| cannot_write(name, &e))?;
    }
    warn_leftovers(printer, path, &summary, &rules)?;
    note_counts(printer, path, &summary, &rules, "redacted")?;
    // A match the verify pass still found is in the output.
    Ok(match summary.leftovers {
        0 => ExitStatus::Success,
        _ => ExitStatus::Problems,
    })
}

/// The Markdown of `s`: bodies read through a recording `RedactingSource`
/// unless `what` is not redacted; what was hidden, when it is.
fn markdown(
    s: &Session,
    source: &mut dyn Source,
    what: &What,
    rules: &Arc<Rules>,
    found: &mut dyn FnMut(Option<&str>, &Finding),
    hide: &mut dyn FnMut(&str) -> String,
    out: &mut dyn Write,
) -> (Result<(), ExportError>, Option<Summary>) {
    if !what.redacted {
        return (write_markdown_of(s, source, what, hide, out), None);
    }
    let several = s.files().len() > 1;
    let line_of = |file: FileId, at: u64| s.entry_at(file, at).map(|e| u64::from(s.entry(e).line));
    let mut found = |file: FileId, f: Finding| {
        let name = several.then(|| s.files()[file.0 as usize].name.as_str());
        found(name, &f)
    };
    let mut shown =
        RedactingSource::with_lines(source, rules.clone(), &line_of).recording(&mut found);
    let written = write_markdown_of(s, &mut shown, what, hide, out);
    (written, Some(shown.summary()))
}

/// What to write, whatever the format.
pub(super) struct What {
    pub leaf: Option<EntryId>,
    /// The leaf was named (`--leaf`), not the default.
    pub asked: bool,
    pub branches: Branches,
    /// Bodies are read redacted.
    pub redacted: bool,
}

/// The Markdown of `session`, bodies read through `source`, texts from
/// the index through `hide`.
fn write_markdown_of(
    session: &Session,
    source: &mut dyn Source,
    what: &What,
    hide: &mut dyn FnMut(&str) -> String,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let options = MarkdownOptions {
        leaf: what.leaf,
        branches: what.branches,
        redacted: what.redacted,
        hide,
    };
    write_markdown(session, source, options, out).map(drop)
}
