//! `retrace validate`: every diagnostic, with tool pairing; the exit code
//! says whether anything is wrong.

use std::io::Write;

use retrace_core::{Diagnostic, Severity};
use serde::Serialize;

use crate::input::load;
use crate::{Failure, Outcome};

#[derive(Serialize)]
struct Report<'a> {
    path: &'a str,
    errors: usize,
    warnings: usize,
    notes: usize,
    diagnostics: Vec<Located<'a>>,
}

#[derive(Serialize)]
struct Located<'a> {
    file: &'a str,
    #[serde(flatten)]
    diagnostic: &'a Diagnostic,
    code: &'static str,
}

pub fn run(paths: &[String], json: bool, out: &mut impl Write) -> Result<Outcome, Failure> {
    let mut problems = false;
    for path in paths {
        let mut loaded = load(path)?;
        let check = loaded
            .session
            .check(&mut loaded.source)
            .map_err(|e| Failure::Input(format!("{path}: {e}")))?;
        let s = &loaded.session;
        let mut all: Vec<&Diagnostic> = s.diagnostics().iter().chain(&check.diagnostics).collect();
        all.sort_by_key(|d| (d.file, d.line, d.offset));
        let count = |sev| all.iter().filter(|d| d.severity == sev).count();
        let (errors, warnings, notes) = (
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Info),
        );
        problems |= errors + warnings > 0;
        let file_name = |d: &Diagnostic| s.files()[d.file.0 as usize].name.as_str();
        if json {
            let report = Report {
                path,
                errors,
                warnings,
                notes,
                diagnostics: all
                    .iter()
                    .map(|d| Located {
                        file: file_name(d),
                        diagnostic: d,
                        code: d.kind.code(),
                    })
                    .collect(),
            };
            serde_json::to_writer(&mut *out, &report).map_err(std::io::Error::from)?;
            writeln!(out)?;
            continue;
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
                file_name(d),
                d.line,
                d.offset,
                d.kind.code(),
                d.message
            )?;
        }
        writeln!(
            out,
            "{path}: {errors} errors, {warnings} warnings, {notes} notes; {} tool calls, {} without result, {} results without call",
            check.tool_calls, check.pairing.calls_without_result, check.pairing.results_without_call
        )?;
    }
    Ok(if problems {
        Outcome::Problems
    } else {
        Outcome::Clean
    })
}
