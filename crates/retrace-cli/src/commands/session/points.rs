//! `retrace points`: the safe fork points of a branch
//! (`retrace_core::safe_points`), one line each: `sfp:N`, the entry, its
//! line and what closes it.

use anyhow::Result;
use retrace_core::safe_points;
use serde_json::json;

use super::leaf;
use crate::args::{OutputOptions, PointsArgs, ReadArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::input::load;
use crate::printer::Printer;

impl Run for PointsArgs {
    fn output(&self) -> OutputOptions {
        OutputOptions::new(self.json, false)
    }

    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

fn run(args: &PointsArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let path = &args.branch.path;
    let mut loaded = load(path, read, printer)?;
    let leaf = leaf(&loaded, args.branch.leaf.as_deref())?;
    let points = safe_points(&loaded.session, &mut loaded.source, leaf)
        .map_err(|e| InputError::new(e).on(path))?;
    let leaf = loaded.session.label(leaf);
    printer.emit(
        || json!({"path": path, "leaf": leaf, "points": points}),
        |out| {
            let n = points.len();
            let s = if n == 1 { "" } else { "s" };
            writeln!(
                out,
                "{path}: {n} safe fork point{s} on the branch ending at {leaf}"
            )?;
            for p in &points {
                let unanswered = match p.unanswered {
                    0 => String::new(),
                    n => format!("  ({n} earlier calls never answered)"),
                };
                writeln!(
                    out,
                    "{:<8} L{:<6} {:<12} {}{unanswered}",
                    p.label, p.line, p.kind, p.id
                )?;
            }
            Ok(())
        },
    )?;
    Ok(ExitStatus::Success)
}
