//! From a command-line PATH to a read session, through retrace-io's
//! [`locate`]: this adds only the `--format` option, the progress bar and
//! the wording of errors (`PATH: reason`).

use std::path::Path;

use anyhow::Result;
use retrace_io::{locate, Located, OpenOptions};

pub use retrace_io::Loaded;

use crate::args::ReadArgs;
use crate::errors::InputError;
use crate::printer::Printer;

/// Reads PATH (`-` for standard input), with a progress bar for a large
/// one (if `printer` draws them).
pub fn load(path: &str, read: &ReadArgs, printer: &Printer) -> Result<Loaded> {
    let unusable = |e: retrace_io::FileError| InputError::file(&e).on(path);
    let located = if path == "-" {
        Located::stdin()
    } else {
        locate(Path::new(path)).map_err(unusable)?
    };
    let options = OpenOptions {
        reader: retrace_core::ReaderOptions {
            format: read.format,
            ..Default::default()
        },
        ..OpenOptions::default()
    };
    let bar = printer.progress(located.size());
    let loaded = located.load(
        &options,
        bar.as_ref().map(|b| b as &dyn retrace_io::Progress),
    );
    if let Some(bar) = bar {
        // Also on an error, so its message does not follow the bar.
        bar.finish();
    }
    loaded.map_err(unusable)
}
