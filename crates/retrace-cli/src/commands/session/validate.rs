//! `retrace validate`: every diagnostic, with tool pairing; the exit code
//! says whether anything is wrong.

use std::io::Write;

use anyhow::Result;
use retrace_core::{resume_check, Diagnostic, FileId, Resumable, Severity};
use retrace_io::OpenOptions;
use serde::Serialize;

use super::for_each_input;
use crate::args::{OutputOptions, ReadArgs, ValidateArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

#[derive(Serialize)]
struct Report<'a> {
    path: &'a str,
    errors: usize,
    warnings: usize,
    notes: usize,
    tool_calls: u64,
    calls_without_result: u64,
    results_without_call: u64,
    diagnostics: Vec<Located<'a>>,
    /// Whether the default branch can be sent as it is to each provider
    /// API (empty when the session has no branch).
    resume: Vec<Resumable>,
}

/// A diagnostic with the name of its file.
#[derive(Serialize)]
struct Located<'a> {
    file: &'a str,
    #[serde(skip)]
    file_id: FileId,
    severity: Severity,
    code: &'static str,
    line: u32,
    offset: u64,
    message: String,
}

impl Run for ValidateArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, false)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &ValidateArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    for_each_input(&args.inputs.paths, printer, |path, printer| {
        validate(path, read, printer)
    })
}

fn validate(path: &str, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let loaded = load(path, read, printer)?;
    // The resume check reads the bodies on a thread of its own, with its
    // own source, while the deep check runs on every core.
    let (check, resume) = std::thread::scope(|scope| {
        let resume = scope.spawn(|| match loaded.session.tree().default_leaf() {
            Some(leaf) => resume_check(&loaded.session, &mut loaded.another_source(), leaf),
            None => Ok(Vec::new()),
        });
        let check = loaded.check(OpenOptions::default().threads);
        let resume = resume
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (check, resume)
    });
    let check = check.map_err(|e| InputError::new(e).on(path))?;
    let resume = resume.map_err(|e| InputError::new(e).on(path))?;
    let s = &loaded.session;
    let file_name = |f: FileId| s.files()[f.0 as usize].name.as_str();
    let located = |d: &Diagnostic| Located {
        file: file_name(d.file),
        file_id: d.file,
        severity: d.severity,
        code: d.kind.code(),
        line: d.line,
        offset: d.offset,
        message: d.message.clone(),
    };
    let mut all: Vec<Located> = s
        .diagnostics()
        .iter()
        .chain(&check.diagnostics)
        .map(located)
        .collect();
    all.sort_by_key(|d| (d.file_id, d.line, d.offset));
    let count = |sev| all.iter().filter(|d| d.severity == sev).count();
    let (errors, warnings, notes) = (
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info),
    );
    let status = if errors + warnings > 0 {
        ExitStatus::Problems
    } else {
        ExitStatus::Success
    };
    let report = Report {
        path,
        errors,
        warnings,
        notes,
        tool_calls: check.tool_calls,
        calls_without_result: check.pairing.calls_without_result,
        results_without_call: check.pairing.results_without_call,
        diagnostics: all,
        resume,
    };
    printer.emit(|| &report, |out| print_text(&report, out))?;
    Ok(status)
}

fn print_text(r: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    for d in &r.diagnostics {
        let severity = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "note",
        };
        writeln!(
            out,
            "{}:{}:{}: {severity}: {}: {}",
            d.file, d.line, d.offset, d.code, d.message
        )?;
    }
    writeln!(
        out,
        "{}: {} errors, {} warnings, {} notes; {} tool calls, {} without result, {} results without call",
        r.path, r.errors, r.warnings, r.notes, r.tool_calls, r.calls_without_result, r.results_without_call
    )?;
    // The resume check: one line when every API takes the branch as is.
    if r.resume.is_empty() {
        return Ok(());
    }
    if r.resume.iter().all(|v| v.ok) {
        return writeln!(out, "{}: resumable as is by every API", r.path);
    }
    for v in &r.resume {
        match v.ok {
            true => writeln!(out, "{}: resume as is to {}: ok", r.path, v.api)?,
            false => writeln!(
                out,
                "{}: resume as is to {}: no: {}",
                r.path,
                v.api,
                v.reasons.join("; ")
            )?,
        }
    }
    Ok(())
}
