//! One module per command, grouped by noun: `session/` holds the verbs
//! that read a session file. Each command's arguments implement [`Run`];
//! [`dispatch`] runs the one the line names.

mod session;
mod store;

use anyhow::Result;

use crate::args::{Cli, OutputOptions, ReadArgs};
use crate::exit::ExitStatus;
use crate::printer::Printer;

/// A command, as its parsed arguments: what it prints and how it runs.
pub(crate) trait Run {
    /// The `--json` and `--redact` it was given (none where it takes none).
    fn output(&self) -> OutputOptions {
        OutputOptions::default()
    }

    /// Runs it; how it ended becomes the exit code.
    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus>;
}

/// Runs the command.
pub(crate) fn dispatch(cli: &Cli, printer: &mut Printer) -> Result<ExitStatus> {
    cli.command.as_run().run(&cli.global.read, printer)
}
