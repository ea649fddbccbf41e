//! `store replay`: a recorded session step by step, through the store's
//! player (the core's replay).

use std::io::Write;

use anyhow::Result;
use retrace_store::{PlayerOptions, SessionId};

use super::Store;
use crate::exit::ExitStatus;
use crate::printer::Printer;

pub(super) fn run(
    store: &Store,
    id: &SessionId,
    fast: bool,
    show_sensitive: bool,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let options = PlayerOptions {
        fast,
        show_sensitive,
        ..PlayerOptions::default()
    };
    let player = store.player(id, options)?;
    for step in player {
        let step = step?;
        let out = printer.stdout();
        let since = step
            .since_previous
            .map_or(String::new(), |d| format!("+{:.1}s ", d.as_secs_f64()));
        let mark = if step.is_error { " ✗" } else { "" };
        writeln!(out, "[{}] {since}{}{mark}", step.index, step.title)?;
        for line in step.details.lines() {
            writeln!(out, "    {line}")?;
        }
    }
    Ok(ExitStatus::Success)
}
