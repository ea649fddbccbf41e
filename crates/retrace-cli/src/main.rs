//! `retrace`: inspect, validate and extract agent sessions.
//!
//! Parse the command line, build the [`printer::Printer`] once, run the
//! command, turn how it ended into the exit code: 0 clean, 1 problems
//! found, 2 an input unusable (or output unwritable); a reader that left
//! the pipe early is no error.

mod args;
mod commands;
mod errors;
mod exit;
mod input;
mod output;
mod printer;
mod reporters;
mod viewer;
mod visible;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    let mut printer = printer::Printer::new(&cli.global, cli.command.as_run().output());
    let result = commands::dispatch(&cli, &mut printer).and_then(|status| {
        printer.flush()?;
        Ok(status)
    });
    exit::exit_code(result, &mut printer)
}
