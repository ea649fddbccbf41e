//! `retrace validate`: every diagnostic, with tool pairing; the exit code
//! says whether anything is wrong.

use std::io::Write;

use retrace_core::{Diagnostic, FileId, Severity};
use serde::Serialize;

use crate::input::load;
use crate::{Failure, Outcome};

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

pub fn run(paths: &[String], json: bool, out: &mut impl Write) -> Result<Outcome, Failure> {
    crate::for_each_input(paths, out, |path, out| validate(path, json, out))
}

fn validate(path: &str, json: bool, out: &mut dyn Write) -> Result<Outcome, Failure> {
    let mut loaded = load(path)?;
    let check = loaded
        .session
        .check(&mut loaded.source)
        .map_err(|e| Failure::Input(format!("{path}: {e}")))?;
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
    let outcome = if errors + warnings > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    };
    if json {
        let report = Report {
            path,
            errors,
            warnings,
            notes,
            tool_calls: check.tool_calls,
            calls_without_result: check.pairing.calls_without_result,
            results_without_call: check.pairing.results_without_call,
            diagnostics: all,
        };
        serde_json::to_writer(&mut *out, &report).map_err(std::io::Error::from)?;
        writeln!(out)?;
        return Ok(outcome);
    }
    for d in &all {
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
        "{path}: {errors} errors, {warnings} warnings, {notes} notes; {} tool calls, {} without result, {} results without call",
        check.tool_calls, check.pairing.calls_without_result, check.pairing.results_without_call
    )?;
    Ok(outcome)
}
