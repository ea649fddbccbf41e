//! `retrace info`: what a session is, in numbers.

use std::io::Write;

use anyhow::Result;
use retrace_core::{format_rfc3339_ms, session_title, Info, Stats, Summary};
use retrace_io::OpenOptions;

use super::for_each_input;
use crate::args::{InfoArgs, OutputOptions, ReadArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::output::duration;
use crate::printer::Printer;

impl Run for InfoArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, self.redact)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &InfoArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    for_each_input(&args.inputs.paths, printer, |path, printer| {
        let mut loaded = load(path, read, printer)?;
        let check = loaded
            .check(OpenOptions::default().threads)
            .map_err(|e| InputError::new(e).on(path))?;
        let (summary, stats) = (Summary::new(&loaded.session), Stats::new(&check));
        // As `retrace list` names it (redacted with the rest on `--redact`).
        let title = session_title(&loaded.session, &mut loaded.source)
            .map_err(|e| InputError::new(e).on(path))?;
        let info = Info {
            path,
            title: title.as_deref(),
            summary: &summary,
            stats: &stats,
        };
        printer.emit(|| info, |out| print_text(&info, out))?;
        Ok(ExitStatus::Success)
    })
}

fn print_text(info: &Info, out: &mut dyn Write) -> std::io::Result<()> {
    let (s, t) = (info.summary, info.stats);
    writeln!(out, "{}", info.path)?;
    if let Some(title) = info.title {
        writeln!(out, "  title         {title}")?;
    }
    writeln!(out, "  format        {}", s.format_label())?;
    let markers = match t.markers {
        0 => String::new(),
        n => format!(", {n} markers"),
    };
    writeln!(
        out,
        "  entries       {} in {} file{}, {} messages{markers}",
        s.entries,
        s.files,
        if s.files == 1 { "" } else { "s" },
        t.messages
    )?;
    if let (Some(a), Some(b), Some(d)) = (s.start, s.end, s.duration_ms()) {
        let (a, b) = (format_rfc3339_ms(a), format_rfc3339_ms(b));
        writeln!(out, "  time          {a} – {b} ({})", duration(d))?;
    }
    writeln!(
        out,
        "  branches      {} leaves, {} real branch points ({} structural fan-outs)",
        s.leaves, s.branch_points, s.structural_branch_points
    )?;
    if s.subagents > 0 {
        writeln!(out, "  subagents     {}", s.subagents)?;
    }
    writeln!(
        out,
        "  tool calls    {} ({} results, {} errors; {} without result, {} results without call)",
        t.tool_calls, t.tool_results, t.tool_errors, t.calls_without_result, t.results_without_call
    )?;
    for (name, m) in &t.models {
        let cost = m.cost_usd.map(|c| format!(", ${c:.2}")).unwrap_or_default();
        writeln!(
            out,
            "  model         {name}: {} messages; tokens in {} out {} cache read {} cache write {}{cost}",
            m.messages, m.input_tokens, m.output_tokens, m.cache_read_tokens, m.cache_write_tokens
        )?;
    }
    // The reading diagnostics and the check's, as `info --json` counts them.
    writeln!(
        out,
        "  diagnostics   {} ({} errors, {} warnings)",
        s.diagnostics + t.diagnostics,
        s.errors + t.errors,
        s.warnings + t.warnings
    )?;
    Ok(())
}
