//! `retrace redact`: a JSON-lines file (or `.gz`) with secrets and
//! personal data replaced, streamed in constant memory; `--check` only
//! reports.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use retrace_core::redact::{Finding, Mode, Redactor, Rules, Summary};

use crate::args::{ReadArgs, RedactArgs};
use crate::commands::Run;
use crate::errors::InputError;
use crate::exit::ExitStatus;
use crate::printer::Printer;
use retrace_io::{pump, pump_parallel, FileError, Findings, OutputFile, PumpError, Stream};

/// The rules: built-in, or with a configuration file's.
fn load_rules(path: Option<&str>) -> Result<Arc<Rules>> {
    let Some(path) = path else {
        return Ok(Arc::new(Rules::builtin()));
    };
    let bytes = std::fs::read(path).map_err(|e| InputError::io(&e).on(path))?;
    Rules::with_config(&bytes)
        .map(Arc::new)
        .map_err(|e| InputError::new(e).on(path))
}

impl Run for RedactArgs {
    fn run(&self, _: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, printer)
    }
}

/// An input that cannot be read, worded `INPUT: reason`.
fn unreadable(name: &str, e: &FileError) -> anyhow::Error {
    let reason = match e {
        FileError::IsDirectory { .. } => format!("{} (redact takes one file)", e.reason()),
        e => e.reason(),
    };
    InputError::new(reason).on(name)
}

/// An output file, whose error names it (`cannot write PATH: reason`).
fn create(path: &str) -> Result<OutputFile> {
    Ok(OutputFile::create(Path::new(path)).map_err(InputError::new)?)
}

fn run(o: &RedactArgs, printer: &mut Printer) -> Result<ExitStatus> {
    let rules = load_rules(o.rules.as_deref())?;
    let mut input = match o.input.as_str() {
        "-" => Stream::stdin(),
        path => Stream::open(Path::new(path)),
    }
    .map_err(|e| unreadable(&o.input, &e))?;
    let mut redactor = Redactor::new(rules.clone(), o.mode);
    let mut report = match &o.report {
        Some(path) => Some(ReportWriter::create(path, &o.input, rules.clone())?),
        None => None,
    };
    let mut sink: Box<dyn Write + '_> = if o.check {
        Box::new(io::sink())
    } else {
        match &o.output {
            Some(path) => Box::new(create(path)?),
            None => Box::new(printer.stdout()),
        }
    };
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    // A JSON document over many lines is redacted whole by one redactor;
    // parts cut at newlines would cut it apart.
    let document = input
        .opens_document()
        .map_err(|e| unreadable(&o.input, &e))?;
    let findings = report.as_mut().map(|r| r as &mut dyn Findings);
    let pumped = if o.mode == Mode::Pseudo || workers < 2 || document {
        pump(input, &mut redactor, &mut sink, findings).map(|()| redactor.summary().clone())
    } else {
        pump_parallel(input, &rules, o.mode, workers, &mut sink, findings)
    };
    let summary = pumped.map_err(|e| match e {
        PumpError::Read(e) => unreadable(&o.input, &e),
        // As an I/O error: `main` tells a reader that left the pipe early.
        PumpError::Write(e) => anyhow::Error::from(e),
    })?;
    // Commit: flush through the gzip trailer and rename into place.
    sink.flush()?;
    drop(sink);
    if let Some(r) = report.take() {
        r.finish(&summary, o.mode)?;
    }
    print_summary(printer, &o.input, &summary, &rules, o.check)?;
    let unredacted = summary.unredacted();
    let found = if o.check { summary.findings() } else { 0 };
    Ok(if found + unredacted > 0 {
        ExitStatus::Problems
    } else {
        ExitStatus::Success
    })
}

/// The `--report` file: findings are written as they come (constant
/// memory), the totals at the end; committed atomically.
struct ReportWriter {
    file: OutputFile,
    rules: Arc<Rules>,
    first: bool,
    input: String,
}

impl ReportWriter {
    fn create(path: &str, input: &str, rules: Arc<Rules>) -> Result<ReportWriter> {
        let mut file = create(path)?;
        file.write_all(b"{\"findings\":[")?;
        Ok(ReportWriter {
            file,
            rules,
            first: true,
            input: input.to_owned(),
        })
    }

    fn finish(mut self, s: &Summary, mode: Mode) -> io::Result<()> {
        let counts: serde_json::Map<String, serde_json::Value> = s
            .counts
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(id, &n)| (self.rules.kinds()[id].name.clone(), n.into()))
            .collect();
        let broken: Vec<_> = s
            .broken
            .iter()
            .map(|b| serde_json::json!({"line": b.line, "offset": b.offset, "unredacted": b.unredacted}))
            .collect();
        let leftovers: Vec<_> = s
            .leftover
            .iter()
            .map(|l| {
                serde_json::json!({
                    "line": l.line,
                    "path": l.path,
                    "kind": l.kind.map(|k| self.rules.kind(k).name.clone()),
                })
            })
            .collect();
        let rest = serde_json::json!({
            "input": self.input,
            "mode": mode.as_str(),
            "lines": s.lines,
            "lines_changed": s.lines_changed,
            "bytes": s.bytes,
            "total": s.findings(),
            "counts": counts,
            "broken_lines": s.broken_lines,
            "broken": broken,
            "leftovers": s.leftovers,
            "leftover": leftovers,
        });
        // Splice the totals in after the streamed findings.
        let rest = serde_json::to_string(&rest)?;
        self.file.write_all(b"\n],")?;
        self.file.write_all(&rest.as_bytes()[1..])?;
        self.file.write_all(b"\n")?;
        self.file.flush()
    }
}

impl Findings for ReportWriter {
    fn findings(&mut self, found: &mut dyn Iterator<Item = Finding>) -> io::Result<()> {
        for f in found {
            if !self.first {
                self.file.write_all(b",")?;
            }
            self.first = false;
            let kind = self.rules.kind(f.kind);
            let v = serde_json::json!({
                "kind": kind.name,
                "tier": kind.tier.as_str(),
                "line": f.line,
                "offset": f.offset,
                "path": f.path,
                "span": [f.span.start, f.span.end],
                "replacement": f.replacement,
            });
            self.file.write_all(b"\n")?;
            serde_json::to_writer(&mut self.file, &v)?;
        }
        Ok(())
    }
}

/// What was redacted, on stderr: a warning for each line the output still
/// holds a match in (even with `-q`), then the counts (a note).
fn print_summary(
    printer: &mut Printer,
    name: &str,
    s: &Summary,
    rules: &Rules,
    check: bool,
) -> io::Result<()> {
    for b in &s.broken {
        let left = if b.unredacted > 0 {
            format!("; {} match(es) in it NOT redacted", b.unredacted)
        } else {
            String::new()
        };
        printer.warn(&format!(
            "{name}: line {} (byte {}): not JSON, passed through unchanged{left}",
            b.line, b.offset
        ))?;
    }
    if s.broken_lines > s.broken.len() as u64 {
        printer.warn(&format!(
            "{name}: … {} more lines that are not JSON",
            s.broken_lines - s.broken.len() as u64
        ))?;
    }
    for l in &s.leftover {
        let kind = l
            .kind
            .map_or("output is not JSON", |k| rules.kind(k).name.as_str());
        printer.warn(&format!(
            "{name}: line {}: verify found {kind} at {} after redaction",
            l.line, l.path
        ))?;
    }
    let mut kinds: Vec<(u64, &str)> = s
        .counts
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(id, &n)| (n, rules.kinds()[id].name.as_str()))
        .collect();
    kinds.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let list: Vec<String> = kinds.iter().map(|(n, k)| format!("{k} {n}")).collect();
    let verb = if check { "found" } else { "redacted" };
    let detail = if list.is_empty() {
        String::new()
    } else {
        format!(": {}", list.join(", "))
    };
    printer.note(&format!(
        "{name}: {verb} {} match(es) in {} of {} lines{detail}",
        s.findings(),
        s.lines_changed,
        s.lines
    ))
}
