//! One module per command, grouped by noun: `session/` holds the verbs
//! that read a session file. [`dispatch`] runs the command the line names.

mod session;

use anyhow::Result;

use crate::args::{Cli, Command};
use crate::exit::ExitStatus;
use crate::printer::Printer;

/// Runs the command.
pub(crate) fn dispatch(cli: &Cli, printer: &mut Printer) -> Result<ExitStatus> {
    let read = &cli.global.read;
    match &cli.command {
        Command::Info(args) => session::info::run(args, read, printer),
        Command::Tree(args) => session::tree::run(args, read, printer),
        Command::Show(args) => session::show::run(args, read, printer),
        Command::Cat(args) => session::cat::run(args, read, printer),
        Command::Migrate(args) => session::migrate::run(args, read, printer),
        Command::Search(args) => session::search::run(args, read, printer),
        Command::Redact(args) => session::redact::run(args, printer),
        Command::Validate(args) => session::validate::run(args, read, printer),
    }
}
