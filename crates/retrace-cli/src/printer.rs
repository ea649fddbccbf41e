//! The [`Printer`]: everything a command prints goes through it. Built once
//! in `main` from the command line, it owns stdout (buffered), the output
//! form (text or JSON), the display redaction (`--redact`), the verbosity
//! (`-q`) and whether progress is drawn. Commands hand it both forms of
//! what they print and it picks, redacts and writes; no command looks at
//! `--json`, `--redact` or `-q` itself. Text goes through [`Visible`]
//! (bidi controls and zero-width characters as marks); JSON and the raw
//! bytes of [`Printer::stdout`] keep every byte.
//!
//! With `--redact`, what a command prints from bodies (messages, search
//! snippets) is read through [`Printer::shown`], the core's
//! `RedactingSource`, as the viewer reads what it shows; the rest (paths,
//! figures, model names) is redacted whole once written.

use std::borrow::Cow;
use std::io::{self, BufWriter, IsTerminal, StdoutLock, Write};
use std::ops::Range;
use std::sync::Arc;

use retrace_core::redact::{Mode, RedactingSource, Redactor, Rules};
use retrace_core::{FileId, Source, SourceError};
use serde::Serialize;

use crate::args::{GlobalArgs, OutputOptions};
use crate::reporters::ProgressBar;
use crate::visible::Visible;

/// Inputs larger than this get a progress bar (when one is drawn at all).
const PROGRESS_FROM: u64 = 50_000_000;

pub(crate) struct Printer {
    stdout: BufWriter<StdoutLock<'static>>,
    json: bool,
    /// Built-in rules, typed placeholders (a reader sees what kind of
    /// value was hidden); `None` without `--redact`.
    redactor: Option<Redactor>,
    /// The same rules, for bodies read through [`Printer::shown`].
    rules: Option<Arc<Rules>>,
    quiet: bool,
    /// Whether progress bars are drawn: on a terminal, unless `-q` or
    /// `--no-progress`.
    progress: bool,
}

impl Printer {
    pub fn new(global: &GlobalArgs, output: OutputOptions) -> Printer {
        let rules = output.redact.then(|| Arc::new(Rules::builtin()));
        Printer {
            stdout: BufWriter::new(io::stdout().lock()),
            json: output.json,
            redactor: rules
                .clone()
                .map(|rules| Redactor::new(rules, Mode::default())),
            rules,
            quiet: global.quiet,
            progress: !global.quiet && !global.no_progress && io::stderr().is_terminal(),
        }
    }

    /// Standard output for bytes that have one form (a session file, a
    /// request body, a redacted stream).
    pub fn stdout(&mut self) -> &mut impl Write {
        &mut self.stdout
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.stdout.flush()
    }

    /// One result: `json()` as one JSON line, or what `text` writes.
    /// With `--redact`, the text is redacted whole once written (paths and
    /// model names can carry a user name or an address), the JSON as JSON.
    pub fn emit<T: Serialize>(
        &mut self,
        json: impl FnOnce() -> T,
        text: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        self.emit_as(false, json, text)
    }

    /// As [`Printer::emit`], the JSON pretty-printed (a document people
    /// read, such as `migrate --report --json`).
    pub fn emit_pretty<T: Serialize>(
        &mut self,
        json: impl FnOnce() -> T,
        text: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        self.emit_as(true, json, text)
    }

    fn emit_as<T: Serialize>(
        &mut self,
        pretty: bool,
        json: impl FnOnce() -> T,
        text: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        if self.json {
            let value = json();
            let Some(r) = self.redactor.as_mut() else {
                write_json(&mut self.stdout, &value, pretty)?;
                return self.stdout.write_all(b"\n");
            };
            let mut line = Vec::new();
            write_json(&mut line, &value, pretty)?;
            line.push(b'\n');
            return self.stdout.write_all(&json_lines(r, &line));
        }
        let Some(r) = self.redactor.as_mut() else {
            return self.text(text);
        };
        let mut buf = Vec::new();
        text(&mut buf)?;
        let shown = r.redact_text(&String::from_utf8_lossy(&buf));
        self.text(|out| out.write_all(shown.as_bytes()))
    }

    /// Text for people to read, written through [`Visible`]: the bidi
    /// controls and zero-width characters a session holds shown as marks.
    fn text(&mut self, text: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> io::Result<()> {
        let mut shown = Visible::new(&mut self.stdout);
        text(&mut shown)?;
        shown.finish().map(drop)
    }

    /// Where bodies are read from for what is printed of them: `source`
    /// itself, or with `--redact` through a `RedactingSource` (typed
    /// placeholders, each entry redacted on its own, as the viewer shows
    /// them). Print what comes of it with [`Printer::emit_shown`].
    pub fn shown<'a>(&self, source: &'a mut dyn Source) -> Shown<'a> {
        self.shown_by().over(source)
    }

    /// What [`Printer::shown`] reads through, to read so on another
    /// thread.
    pub fn shown_by(&self) -> ShownBy {
        ShownBy(self.rules.clone())
    }

    /// A text printed beside what was read through [`Printer::shown`] but
    /// not read through it (a bookmark's name, from the index): with
    /// `--redact`, redacted as the rest of the output is.
    pub fn hide(&mut self, text: &str) -> String {
        match self.redactor.as_mut() {
            Some(r) => r.redact_text(text),
            None => text.to_owned(),
        }
    }

    /// As [`Printer::emit`], for output made of what was read through
    /// [`Printer::shown`]: already redacted there, written as it is (a
    /// second pass over a shortened text could differ from what the viewer
    /// shows).
    pub fn emit_shown<T: Serialize>(
        &mut self,
        json: impl FnOnce() -> T,
        text: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        if self.json {
            write_json(&mut self.stdout, &json(), false)?;
            return self.stdout.write_all(b"\n");
        }
        self.text(text)
    }

    /// Whether output is JSON (`--json`).
    pub fn is_json(&self) -> bool {
        self.json
    }

    /// A note on stderr (`retrace: …`): what a command did besides its
    /// output. Not with `-q`.
    pub fn note(&mut self, message: &str) -> io::Result<()> {
        if self.quiet {
            return Ok(());
        }
        self.warn(message)
    }

    /// A warning on stderr (`retrace: …`), after what stdout has so far
    /// (for a reader of both): printed even with `-q`.
    pub fn warn(&mut self, message: &str) -> io::Result<()> {
        self.stdout.flush()?;
        self.error(message);
        Ok(())
    }

    /// An error on stderr (`retrace: …`), its bidi controls and zero-width
    /// characters shown as marks (it can name an id or a path).
    pub fn error(&mut self, message: &str) {
        eprintln!("retrace: {}", retrace_core::visible(message));
    }

    /// A progress bar for reading `total` bytes, when one is drawn.
    pub fn progress(&self, total: u64) -> Option<ProgressBar> {
        (self.progress && total > PROGRESS_FROM).then(|| ProgressBar::new(total))
    }
}

fn write_json<T: Serialize>(out: &mut impl Write, value: &T, pretty: bool) -> io::Result<()> {
    if pretty {
        serde_json::to_writer_pretty(out, value)?;
    } else {
        serde_json::to_writer(out, value)?;
    }
    Ok(())
}

/// `text` (JSON lines, the last one with or without a newline) redacted.
fn json_lines(r: &mut Redactor, text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    r.push(text, &mut out);
    r.finish(&mut out);
    r.drain_findings().for_each(drop);
    out
}

/// The rules [`Printer::shown`] reads through, if any (sent to a thread
/// that reads bodies).
pub(crate) struct ShownBy(Option<Arc<Rules>>);

impl ShownBy {
    /// `source`, read as [`Printer::shown`] reads it.
    pub fn over(self, source: &mut dyn Source) -> Shown<'_> {
        match self.0 {
            Some(rules) => Shown::Redacted(RedactingSource::new(source, rules)),
            None => Shown::AsWritten(source),
        }
    }
}

/// Bodies as [`Printer::shown`] gives them.
pub(crate) enum Shown<'a> {
    AsWritten(&'a mut dyn Source),
    Redacted(RedactingSource<'a>),
}

impl Source for Shown<'_> {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        match self {
            Shown::AsWritten(source) => source.read(file, range),
            Shown::Redacted(source) => source.read(file, range),
        }
    }

    fn as_written(&mut self) -> Option<&mut dyn Source> {
        match self {
            Shown::AsWritten(source) => source.as_written(),
            Shown::Redacted(source) => source.as_written(),
        }
    }
}
