//! `retrace redact`: a JSON-lines file (or `.gz`) with secrets and
//! personal data replaced, streamed in constant memory; `--check` only
//! reports. A folder: each session file redacted into `-o OUTDIR` under
//! its relative path, the other files skipped and listed, a total.

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
use retrace_io::{
    pump, pump_parallel, sweep, target, within, FileError, Findings, OutputFile, PumpError, Stream,
};

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
    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read.max_inflated, printer)
    }
}

/// An input that cannot be read, worded `INPUT: reason`.
fn unreadable(name: &str, e: &FileError) -> anyhow::Error {
    InputError::new(e.reason()).on(name)
}

/// An output file, whose error names it (`cannot write PATH: reason`).
pub(super) fn create(path: &str) -> Result<OutputFile> {
    Ok(OutputFile::create(Path::new(path)).map_err(InputError::new)?)
}

fn run(o: &RedactArgs, max_inflated: u64, printer: &mut Printer) -> Result<ExitStatus> {
    let rules = load_rules(o.rules.as_deref())?;
    if o.input != "-" && Path::new(&o.input).is_dir() {
        return run_folder(o, &rules, max_inflated, printer);
    }
    let input = match o.input.as_str() {
        "-" => Stream::stdin(max_inflated),
        path => Stream::open(Path::new(path), max_inflated),
    }
    .map_err(|e| unreadable(&o.input, &e))?;
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
    let findings = report.as_mut().map(|r| r as &mut dyn Findings);
    let summary = redact_stream(o, &rules, input, &o.input, &mut sink, findings)?;
    // Commit: flush through the gzip trailer and rename into place.
    sink.flush()?;
    drop(sink);
    if let Some(r) = report.take() {
        r.finish(&summary, o.mode)?;
    }
    print_summary(printer, &o.input, &summary, &rules, o.check)?;
    Ok(status(&summary, o.check))
}

/// 1 when matches are left in the output (or, with `--check`, found).
fn status(summary: &Summary, check: bool) -> ExitStatus {
    let found = if check { summary.findings() } else { 0 };
    if found + summary.unredacted() > 0 {
        ExitStatus::Problems
    } else {
        ExitStatus::Success
    }
}

/// One input through the redactor into `sink`: on several threads when
/// the mode and the input allow it.
fn redact_stream(
    o: &RedactArgs,
    rules: &Arc<Rules>,
    mut input: Stream,
    name: &str,
    sink: &mut dyn Write,
    findings: Option<&mut dyn Findings>,
) -> Result<Summary> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    // A JSON document over many lines is redacted whole by one redactor;
    // parts cut at newlines would cut it apart.
    let document = input.opens_document().map_err(|e| unreadable(name, &e))?;
    let pumped = if workers < 2 || document {
        let mut redactor = Redactor::new(rules.clone(), o.mode);
        pump(input, &mut redactor, sink, findings).map(|()| redactor.summary().clone())
    } else {
        pump_parallel(input, rules, o.mode, workers, sink, findings)
    };
    pumped.map_err(|e| match e {
        PumpError::Read(e) => unreadable(name, &e),
        // As an I/O error: `main` tells a reader that left the pipe early.
        PumpError::Write(e) => anyhow::Error::from(e),
    })
}

/// `redact DIR -o OUTDIR`: every session file of the folder redacted into
/// the output folder under its relative path, each written atomically; the
/// other files skipped and listed; a summary per file and a total. A file
/// that cannot be read is reported and the others go on (exit 2).
fn run_folder(
    o: &RedactArgs,
    rules: &Arc<Rules>,
    max_inflated: u64,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let dir = Path::new(&o.input);
    if o.report.is_some() {
        return Err(InputError::new("--report takes one file, not a folder").on(&o.input));
    }
    let out_dir = match (&o.output, o.check) {
        (_, true) => None,
        (Some(out), false) => Some(Path::new(out)),
        (None, false) => {
            return Err(InputError::new(
                "a folder is redacted into another: give -o OUTDIR (or --check)",
            )
            .on(&o.input))
        }
    };
    if let Some(out) = out_dir {
        if within(out, dir).map_err(|e| InputError::new(e.reason()).on(&o.input))? {
            return Err(InputError::new(format!(
                "will not write into the folder being redacted (-o {} is inside it)",
                out.display()
            ))
            .on(&o.input));
        }
    }
    let files = sweep(dir).map_err(|e| unreadable(&o.input, &e))?;
    let mut total = Summary::default();
    let (mut done, mut failed) = (0, 0);
    for rel in &files.sessions {
        let name = rel.display().to_string();
        let result = (|| -> Result<Summary> {
            let input =
                Stream::open(&dir.join(rel), max_inflated).map_err(|e| unreadable(&name, &e))?;
            let mut sink: Box<dyn Write> = match out_dir {
                Some(out) => {
                    let path = target(out, rel).map_err(InputError::new)?;
                    Box::new(create(&path.to_string_lossy())?)
                }
                None => Box::new(io::sink()),
            };
            let summary = redact_stream(o, rules, input, &name, &mut sink, None)?;
            sink.flush()?;
            Ok(summary)
        })();
        match result {
            Ok(summary) => {
                print_summary(printer, &name, &summary, rules, o.check)?;
                total.merge(&summary);
                done += 1;
            }
            Err(e) => {
                printer.warn(&format!("{e:#}"))?;
                failed += 1;
            }
        }
    }
    for rel in &files.others {
        printer.note(&format!(
            "{}: skipped (not read as a session of this folder)",
            rel.display()
        ))?;
    }
    let verb = if o.check { "checked" } else { "redacted" };
    let into = out_dir.map_or(String::new(), |d| format!(" into {}", d.display()));
    let failures = if failed > 0 {
        format!(", {failed} unreadable")
    } else {
        String::new()
    };
    printer.note(&format!(
        "{}: {verb} {done} session file(s){into}: {} match(es) in {} of {} lines; {} other file(s) skipped{failures}",
        o.input,
        total.findings(),
        total.lines_changed,
        total.lines,
        files.others.len(),
    ))?;
    Ok(if failed > 0 {
        ExitStatus::Unreadable
    } else {
        status(&total, o.check)
    })
}

/// The `--report` file: findings are written as they come (constant
/// memory), the totals at the end; committed atomically. `export
/// --report` writes the same.
pub(super) struct ReportWriter {
    file: OutputFile,
    rules: Arc<Rules>,
    first: bool,
    input: String,
}

impl ReportWriter {
    pub(super) fn create(path: &str, input: &str, rules: Arc<Rules>) -> Result<ReportWriter> {
        let mut file = create(path)?;
        file.write_all(b"{\"findings\":[")?;
        Ok(ReportWriter {
            file,
            rules,
            first: true,
            input: input.to_owned(),
        })
    }

    pub(super) fn finish(mut self, s: &Summary, mode: Mode) -> io::Result<()> {
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
            "numbers_as_strings": s.numbers_as_strings,
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

impl ReportWriter {
    /// One finding; `file` names the file of a session of several it is
    /// in (its line and offset are that file's).
    pub(super) fn finding(&mut self, f: &Finding, file: Option<&str>) -> io::Result<()> {
        if !self.first {
            self.file.write_all(b",")?;
        }
        self.first = false;
        let kind = self.rules.kind(f.kind);
        let mut v = serde_json::json!({
            "kind": kind.name,
            "tier": kind.tier.as_str(),
            "line": f.line,
            "offset": f.offset,
            "path": f.path,
            "span": [f.span.start, f.span.end],
            "replacement": f.replacement,
        });
        if f.number {
            v["number"] = true.into();
        }
        if let Some(file) = file {
            v["file"] = file.into();
        }
        self.file.write_all(b"\n")?;
        serde_json::to_writer(&mut self.file, &v)?;
        Ok(())
    }
}

impl Findings for ReportWriter {
    fn findings(&mut self, found: &mut dyn Iterator<Item = Finding>) -> io::Result<()> {
        for f in found {
            self.finding(&f, None)?;
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
    warn_leftovers(printer, name, s, rules)?;
    note_counts(
        printer,
        name,
        s,
        rules,
        if check { "found" } else { "redacted" },
    )
}

/// A warning for each match the verify pass still found after redaction
/// (even with `-q`).
pub(super) fn warn_leftovers(
    printer: &mut Printer,
    name: &str,
    s: &Summary,
    rules: &Rules,
) -> io::Result<()> {
    for l in &s.leftover {
        let kind = l
            .kind
            .map_or("output is not JSON", |k| rules.kind(k).name.as_str());
        printer.warn(&format!(
            "{name}: line {}: verify found {kind} at {} after redaction",
            l.line, l.path
        ))?;
    }
    Ok(())
}

/// The counts, a note on stderr: `NAME: redacted N match(es) in L of M
/// lines: kind n, …`, most found first.
pub(super) fn note_counts(
    printer: &mut Printer,
    name: &str,
    s: &Summary,
    rules: &Rules,
    verb: &str,
) -> io::Result<()> {
    let mut kinds: Vec<(u64, &str)> = s
        .counts
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(id, &n)| (n, rules.kinds()[id].name.as_str()))
        .collect();
    kinds.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let list: Vec<String> = kinds.iter().map(|(n, k)| format!("{k} {n}")).collect();
    let mut detail = if list.is_empty() {
        String::new()
    } else {
        format!(": {}", list.join(", "))
    };
    if s.numbers_as_strings > 0 {
        detail.push_str(&format!(
            "; {} number(s) written as strings",
            s.numbers_as_strings
        ));
    }
    if s.allowed > 0 {
        detail.push_str(&format!(
            "; {} left in place by the rules' exceptions",
            s.allowed
        ));
    }
    printer.note(&format!(
        "{name}: {verb} {} match(es) in {} of {} lines{detail}",
        s.findings(),
        s.lines_changed,
        s.lines
    ))
}
