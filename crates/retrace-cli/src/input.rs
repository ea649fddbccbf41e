//! From a command-line PATH to a read session, through retrace-io's
//! [`locate`]: this adds only the reading options (`--format`,
//! `--max-inflated`), the progress bar and the wording of errors
//! (`PATH: reason`).

use std::path::Path;

use anyhow::Result;
use retrace_io::{locate, Located, OpenOptions};

pub use retrace_io::Loaded;

use crate::args::ReadArgs;
use crate::errors::InputError;
use crate::printer::Printer;

/// Reads PATH (`-` for standard input), with a progress bar for a large
/// one (if `printer` draws them). A folder of several sessions, or a file
/// that is no session (an image, a program), is refused by retrace-io
/// with what it is.
pub fn load(path: &str, read: &ReadArgs, printer: &mut Printer) -> Result<Loaded> {
    let unusable = |e: retrace_io::FileError| InputError::file(&e).on(path);
    let located = if path == "-" {
        Located::stdin()
    } else {
        locate(Path::new(path)).map_err(unusable)?
    };
    let options = OpenOptions {
        reader: read.reader_options(),
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
    let loaded = loaded.map_err(unusable)?;
    warn_format_mismatch(&loaded, printer)?;
    Ok(loaded)
}

/// A `--format` the file does not look like is read as asked, but said on
/// stderr with the format detection would have chosen, for every command
/// (`validate` lists it too, as the warning it is).
fn warn_format_mismatch(loaded: &Loaded, printer: &mut Printer) -> Result<()> {
    let s = &loaded.session;
    for d in s.diagnostics() {
        if d.kind == retrace_core::DiagnosticKind::FormatMismatch {
            let file = &s.files()[d.file.0 as usize].name;
            printer.warn(&format!("{file}: {}", d.message))?;
        }
    }
    Ok(())
}
