//! `retrace info`: what a session is, in numbers.

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::Result;
use retrace_core::{BranchKind, Format, Severity};
use serde::Serialize;

use super::for_each_input;
use crate::args::{InfoArgs, ReadArgs};
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::{load, Loaded};
use crate::output::duration;
use crate::printer::Printer;

#[derive(Serialize)]
struct Info {
    path: String,
    format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<u32>,
    files: usize,
    entries: usize,
    /// Normalized messages (a split Claude Code response counts once).
    messages: u64,
    /// Events on the timeline (rollbacks, aborted turns, state transitions).
    markers: u64,
    /// Branch ends a person could pick (structural dead ends folded in).
    leaves: usize,
    /// Real branch points (rewinds, forks).
    branch_points: usize,
    structural_branch_points: usize,
    tool_calls: u64,
    tool_results: u64,
    tool_errors: u64,
    results_without_call: u64,
    calls_without_result: u64,
    diagnostics: usize,
    errors: usize,
    warnings: usize,
    subagents: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    first_timestamp: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    last_timestamp: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_ms: Option<i64>,
    models: BTreeMap<String, ModelInfo>,
}

#[derive(Serialize)]
struct ModelInfo {
    messages: u64,
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost_usd: Option<f64>,
}

pub(crate) fn run(args: &InfoArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    for_each_input(&args.inputs.paths, printer, |path, printer| {
        let mut loaded = load(path, read, printer)?;
        let info = gather(&mut loaded)?;
        printer.emit(|| &info, |out| print_text(&info, out))?;
        Ok(ExitStatus::Success)
    })
}

fn gather(loaded: &mut Loaded) -> Result<Info> {
    let s = &loaded.session;
    let check = s
        .check(&mut loaded.source)
        .map_err(|e| InputError::new(e).on(&loaded.name))?;
    let tree = s.tree();
    let (first, last) = s.entries().iter().filter_map(|e| e.timestamp()).fold(
        (None, None),
        |(lo, hi): (Option<i64>, Option<i64>), t| {
            (
                Some(lo.map_or(t, |l| l.min(t))),
                Some(hi.map_or(t, |h| h.max(t))),
            )
        },
    );
    let all: Vec<_> = s.diagnostics().iter().chain(&check.diagnostics).collect();
    let count = |sev| all.iter().filter(|d| d.severity == sev).count();
    let kinds = |k| tree.branch_points().iter().filter(|b| b.kind == k).count();
    let models = check
        .models
        .iter()
        .map(|(name, m)| {
            (
                name.clone(),
                ModelInfo {
                    messages: m.messages,
                    input_tokens: m.usage.input,
                    output_tokens: m.usage.output,
                    cache_read_tokens: m.usage.cache_read,
                    cache_write_tokens: m.usage.cache_write,
                    cost_usd: m.usage.cost,
                },
            )
        })
        .collect();
    Ok(Info {
        path: loaded.name.clone(),
        format: s.format().name(),
        version: match s.format() {
            Format::Pi { version } => Some(version),
            _ => None,
        },
        files: s.files().len(),
        entries: s.entries().len(),
        messages: check.messages,
        markers: check.markers,
        leaves: tree.tips().len(),
        branch_points: kinds(BranchKind::Real),
        structural_branch_points: kinds(BranchKind::Structural),
        tool_calls: check.tool_calls,
        tool_results: check.tool_results,
        tool_errors: check.tool_errors,
        results_without_call: check.pairing.results_without_call,
        calls_without_result: check.pairing.calls_without_result,
        diagnostics: all.len(),
        errors: count(Severity::Error),
        warnings: count(Severity::Warning),
        subagents: s.subagents().len(),
        first_timestamp: first.map(retrace_core::format_rfc3339_ms),
        last_timestamp: last.map(retrace_core::format_rfc3339_ms),
        duration_ms: first.zip(last).map(|(a, b)| b - a),
        models,
    })
}

fn print_text(i: &Info, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "{}", i.path)?;
    let format = match i.version {
        Some(v) => format!("{} v{v}", i.format),
        None => i.format.to_owned(),
    };
    writeln!(out, "  format        {format}")?;
    let markers = match i.markers {
        0 => String::new(),
        n => format!(", {n} markers"),
    };
    writeln!(
        out,
        "  entries       {} in {} file{}, {} messages{markers}",
        i.entries,
        i.files,
        if i.files == 1 { "" } else { "s" },
        i.messages
    )?;
    if let (Some(a), Some(b), Some(d)) = (&i.first_timestamp, &i.last_timestamp, i.duration_ms) {
        writeln!(out, "  time          {a} – {b} ({})", duration(d))?;
    }
    writeln!(
        out,
        "  branches      {} leaves, {} real branch points ({} structural fan-outs)",
        i.leaves, i.branch_points, i.structural_branch_points
    )?;
    if i.subagents > 0 {
        writeln!(out, "  subagents     {}", i.subagents)?;
    }
    writeln!(
        out,
        "  tool calls    {} ({} results, {} errors; {} without result, {} results without call)",
        i.tool_calls, i.tool_results, i.tool_errors, i.calls_without_result, i.results_without_call
    )?;
    for (name, m) in &i.models {
        let cost = m.cost_usd.map(|c| format!(", ${c:.2}")).unwrap_or_default();
        writeln!(
            out,
            "  model         {name}: {} messages; tokens in {} out {} cache read {} cache write {}{cost}",
            m.messages, m.input_tokens, m.output_tokens, m.cache_read_tokens, m.cache_write_tokens
        )?;
    }
    writeln!(
        out,
        "  diagnostics   {} ({} errors, {} warnings)",
        i.diagnostics, i.errors, i.warnings
    )?;
    Ok(())
}
