//! Errors: commands return `anyhow::Result`; an input that cannot be used
//! is an [`InputError`] with the path as its context, so it prints as one
//! line (`retrace: PATH: no such file or directory`). `main` sorts what
//! reaches it by type (see [`crate::exit`]).

use std::fmt::Display;
use std::io;

use retrace_io::FileError;

/// An input that cannot be read or used: printed as one line (after its
/// context, the path), exit 2; where there are several inputs, the others
/// are still handled.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct InputError(String);

impl InputError {
    /// An input error worded by the caller.
    pub fn new(message: impl Display) -> InputError {
        InputError(message.to_string())
    }

    /// An I/O error, in the words of [`retrace_io::io_reason`].
    pub fn io(e: &io::Error) -> InputError {
        InputError(retrace_io::io_reason(e))
    }

    /// A retrace-io error, without repeating the path the context names.
    pub fn file(e: &FileError) -> InputError {
        InputError(e.reason())
    }

    /// This error on `path`, its context: prints as `path: message`.
    pub fn on(self, path: impl Display) -> anyhow::Error {
        anyhow::Error::new(self).context(path.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_error_prints_as_its_path_and_one_line() {
        let path = std::path::Path::new("/no/such/file");
        let e = FileError::from_io(std::fs::metadata(path).unwrap_err(), path);
        let err = InputError::file(&e).on("x.jsonl");
        assert_eq!(format!("{err:#}"), "x.jsonl: no such file or directory");
        assert!(err.downcast_ref::<InputError>().is_some());
    }
}
