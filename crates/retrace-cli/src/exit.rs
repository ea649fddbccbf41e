//! How a run ends: the exit status a command returns, and the sorting of
//! an error that reaches `main` into a message and an exit code.

use std::io;
use std::process::ExitCode;

use crate::errors::InputError;
use crate::printer::Printer;

/// How a command ended. The order is the severity: of several inputs,
/// the worst one is the run's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ExitStatus {
    /// Exit 0.
    Success,
    /// Problems were found in readable input (`validate`, `redact`), or
    /// nothing was (`search`, as grep): exit 1.
    Problems,
    /// Some of several inputs could not be read (each already reported on
    /// stderr); the others were handled: exit 2.
    Unreadable,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> ExitCode {
        match status {
            ExitStatus::Success => ExitCode::SUCCESS,
            ExitStatus::Problems => ExitCode::from(1),
            ExitStatus::Unreadable => ExitCode::from(2),
        }
    }
}

/// The exit code of a run, its error (if any) reported on stderr:
/// - an [`InputError`]: one line, exit 2;
/// - an I/O error with no input context is a failed write to stdout: a
///   reader that left (`retrace show big.jsonl | head`) is no error, exit
///   0; any other, exit 2;
/// - anything else, its chain on one line, exit 2.
pub(crate) fn exit_code(result: anyhow::Result<ExitStatus>, printer: &mut Printer) -> ExitCode {
    let err = match result {
        Ok(status) => return status.into(),
        Err(err) => err,
    };
    if err.downcast_ref::<InputError>().is_some() {
        let _ = printer.flush();
        printer.error(&format!("{err:#}"));
    } else if let Some(e) = err.downcast_ref::<io::Error>() {
        if e.kind() == io::ErrorKind::BrokenPipe {
            return ExitCode::SUCCESS;
        }
        printer.error(&format!("cannot write output: {e}"));
    } else {
        let _ = printer.flush();
        printer.error(&format!("{err:#}"));
    }
    ExitCode::from(2)
}
