//! `retrace redact`: a JSON-lines file (or `.gz`) with secrets and
//! personal data replaced, streamed in constant memory; `--check` only
//! reports.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::sync::Arc;

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use retrace_core::redact::{Finding, Mode, Redactor, Rules, Summary};

use crate::{report, Failure, Outcome};

/// Bytes read per push: large enough to amortize calls, small enough to
/// stay in cache.
const CHUNK: usize = 256 * 1024;

/// Bytes per part when redacting on several threads.
const PART: usize = 2 << 20;

pub struct Options {
    pub input: String,
    pub output: Option<String>,
    pub mode: Mode,
    pub rules: Option<String>,
    pub report: Option<String>,
    pub check: bool,
}

/// The redactor for `info --redact` and `show --redact`: built-in rules,
/// typed placeholders (a reader sees what kind of value was hidden).
pub fn shown() -> Redactor {
    Redactor::new(Arc::new(Rules::builtin()), Mode::Typed)
}

/// `text` (JSON lines, the last one with or without a newline) redacted.
pub fn json_lines(r: &mut Redactor, text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    r.push(text, &mut out);
    r.finish(&mut out);
    r.drain_findings().for_each(drop);
    out
}

/// The rules: built-in, or with a configuration file's.
pub fn load_rules(path: Option<&str>) -> Result<Arc<Rules>, Failure> {
    let Some(path) = path else {
        return Ok(Arc::new(Rules::builtin()));
    };
    let bytes =
        std::fs::read(path).map_err(|e| Failure::Input(format!("{path}: {}", io_message(&e))))?;
    Rules::with_config(&bytes)
        .map(Arc::new)
        .map_err(|e| Failure::Input(format!("{path}: {e}")))
}

pub fn run(o: &Options, stdout: &mut dyn Write) -> Result<Outcome, Failure> {
    let rules = load_rules(o.rules.as_deref())?;
    let input = open_input(&o.input)?;
    let mut redactor = Redactor::new(rules.clone(), o.mode);
    let mut report = match &o.report {
        Some(path) => Some(ReportWriter::create(path, &o.input, rules.clone())?),
        None => None,
    };
    let mut sink: Box<dyn Write + '_> = if o.check {
        Box::new(io::sink())
    } else {
        match &o.output {
            Some(path) => Box::new(AtomicFile::create(path)?),
            None => Box::new(&mut *stdout),
        }
    };
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    // A JSON document over many lines is redacted whole by one redactor;
    // parts cut at newlines would cut it apart.
    let (input, document) = peek_document(input)?;
    let summary = if o.mode == Mode::Pseudo || workers < 2 || document {
        let result = pump(&o.input, input, &mut redactor, &mut sink, report.as_mut());
        result?;
        redactor.summary().clone()
    } else {
        pump_parallel(
            &o.input,
            input,
            &rules,
            o.mode,
            workers,
            &mut sink,
            report.as_mut(),
        )?
    };
    // Commit: flush through the gzip trailer and rename into place.
    sink.flush()?;
    drop(sink);
    if let Some(r) = report.take() {
        r.finish(&summary, o.mode)?;
    }
    let name = &o.input;
    print_summary(name, &summary, &rules, o);
    let unredacted = summary.unredacted();
    if o.check {
        return Ok(if summary.findings() + unredacted > 0 {
            Outcome::Problems
        } else {
            Outcome::Clean
        });
    }
    Ok(if unredacted > 0 {
        Outcome::Problems
    } else {
        Outcome::Clean
    })
}

/// Reads the input's first line (up to 1 MiB) and gives the input back
/// whole, with whether that line opens a JSON document.
fn peek_document(mut input: Box<dyn Read + Send>) -> Result<(Box<dyn Read + Send>, bool), Failure> {
    let mut head = Vec::new();
    let mut buf = [0u8; 64 << 10];
    while head.len() < (1 << 20) && !head.contains(&b'\n') {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Input(format!("cannot read: {}", io_message(&e)))),
        };
        head.extend_from_slice(&buf[..n]);
    }
    let first = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let document = retrace_core::redact::opens_document(first);
    Ok((Box::new(io::Cursor::new(head).chain(input)), document))
}

fn pump(
    name: &str,
    mut input: Box<dyn Read + Send>,
    redactor: &mut Redactor,
    sink: &mut dyn Write,
    mut report: Option<&mut ReportWriter>,
) -> Result<(), Failure> {
    let mut buf = vec![0u8; CHUNK];
    let mut out = Vec::with_capacity(CHUNK + CHUNK / 4);
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(Failure::Input(format!(
                    "{name}: cannot read: {}",
                    io_message(&e)
                )))
            }
        };
        out.clear();
        redactor.push(&buf[..n], &mut out);
        sink.write_all(&out)?;
        if let Some(r) = report.as_deref_mut() {
            r.findings(redactor.drain_findings())?;
        } else {
            redactor.drain_findings();
        }
    }
    out.clear();
    redactor.finish(&mut out);
    sink.write_all(&out)?;
    if let Some(r) = report {
        r.findings(redactor.drain_findings())?;
    }
    Ok(())
}

/// Mask and typed placeholders do not depend on what came before, so a
/// file can be cut at line boundaries and the parts redacted on all
/// cores, then written in order: the same bytes as one redactor gives
/// (pseudonyms are numbered in order, so `pseudo` runs on one thread).
fn pump_parallel(
    name: &str,
    input: Box<dyn Read + Send>,
    rules: &Arc<Rules>,
    mode: Mode,
    workers: usize,
    sink: &mut dyn Write,
    mut report: Option<&mut ReportWriter>,
) -> Result<Summary, Failure> {
    use std::sync::mpsc::sync_channel;
    use std::sync::Mutex;

    /// A part: its sequence number, lines done before it, its first byte.
    type Job = (u64, Vec<u8>, u64, u64);
    type Done = (u64, Vec<u8>, Vec<Finding>, Summary);

    let (job_tx, job_rx) = sync_channel::<Job>(workers * 2);
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = sync_channel::<Done>(workers * 2);
    let read_error: Mutex<Option<String>> = Mutex::new(None);
    let mut total = Summary::default();
    let mut write_result: Result<(), Failure> = Ok(());
    std::thread::scope(|scope| {
        let read_error = &read_error;
        scope.spawn(move || {
            let mut input = input;
            let mut carry: Vec<u8> = Vec::new();
            let (mut seq, mut lines, mut offset) = (0u64, 0u64, 0u64);
            let mut buf = vec![0u8; PART];
            loop {
                let n = match input.read(&mut buf) {
                    Ok(n) => n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        *read_error.lock().unwrap_or_else(|p| p.into_inner()) =
                            Some(format!("{name}: cannot read: {}", io_message(&e)));
                        return;
                    }
                };
                carry.extend_from_slice(&buf[..n]);
                // Send whole lines; at the end, whatever is left.
                let cut = if n == 0 {
                    carry.len()
                } else {
                    match memrchr_newline(&carry) {
                        Some(p) if carry.len() >= PART || p + 1 == carry.len() => p + 1,
                        _ => continue,
                    }
                };
                if cut > 0 {
                    let rest = carry.split_off(cut);
                    let part = std::mem::replace(&mut carry, rest);
                    let part_lines = part.iter().filter(|&&b| b == b'\n').count() as u64
                        + u64::from(!part.ends_with(b"\n"));
                    let part_len = part.len() as u64;
                    if job_tx.send((seq, part, lines, offset)).is_err() {
                        return;
                    }
                    seq += 1;
                    lines += part_lines;
                    offset += part_len;
                }
                if n == 0 {
                    return;
                }
            }
        });
        for _ in 0..workers {
            let (job_rx, done_tx, rules) = (&job_rx, done_tx.clone(), rules.clone());
            scope.spawn(move || loop {
                let job = job_rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                let Ok((seq, part, lines, offset)) = job else {
                    return;
                };
                let mut r = Redactor::new(rules.clone(), mode);
                r.resume_at(lines, offset);
                let mut out = Vec::with_capacity(part.len() + part.len() / 16);
                r.push(&part, &mut out);
                r.finish(&mut out);
                let findings: Vec<Finding> = r.drain_findings().collect();
                if done_tx
                    .send((seq, out, findings, r.summary().clone()))
                    .is_err()
                {
                    return;
                }
            });
        }
        drop(done_tx);
        // Write the parts in order as they come back.
        let mut pending = std::collections::BTreeMap::new();
        let mut next = 0u64;
        for done in done_rx.iter() {
            pending.insert(done.0, done);
            while let Some((_, out, findings, summary)) = pending.remove(&next) {
                next += 1;
                if write_result.is_ok() {
                    write_result = sink.write_all(&out).map_err(Failure::from).and_then(|()| {
                        match report.as_deref_mut() {
                            Some(r) => r.findings(findings.into_iter()).map_err(Failure::from),
                            None => Ok(()),
                        }
                    });
                }
                total.merge(&summary);
            }
            if write_result.is_err() {
                // Stop the others: their sends fail once this receiver is gone.
                break;
            }
        }
    });
    write_result?;
    if let Some(e) = read_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(Failure::Input(e));
    }
    Ok(total)
}

fn memrchr_newline(b: &[u8]) -> Option<usize> {
    b.iter().rposition(|&c| c == b'\n')
}

/// The input as a byte stream, gunzipped when it starts with the gzip magic.
fn open_input(path: &str) -> Result<Box<dyn Read + Send>, Failure> {
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(io::stdin())
    } else {
        let p = Path::new(path);
        if p.is_dir() {
            return Err(Failure::Input(format!(
                "{path}: is a directory (redact takes one file)"
            )));
        }
        Box::new(File::open(p).map_err(|e| Failure::Input(format!("{path}: {}", io_message(&e))))?)
    };
    let mut reader = BufReader::with_capacity(CHUNK, raw);
    let head = reader
        .fill_buf()
        .map_err(|e| Failure::Input(format!("{path}: cannot read: {}", io_message(&e))))?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(MultiGzDecoder::new(reader)))
    } else {
        Ok(Box::new(reader))
    }
}

fn io_message(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => e.to_string(),
    }
}

/// `-o` and `--report` output: a [`retrace_store::AtomicFile`] (renamed into
/// place when complete, removed when dropped unfinished), gzip-compressed
/// when the name ends in `.gz`. `flush` finishes and commits it; callers
/// flush once, at the end.
struct AtomicFile {
    inner: Option<Inner>,
}

enum Inner {
    Plain(io::BufWriter<retrace_store::AtomicFile>),
    Gz(GzEncoder<io::BufWriter<retrace_store::AtomicFile>>),
}

impl AtomicFile {
    fn create(path: &str) -> Result<AtomicFile, Failure> {
        let file = retrace_store::AtomicFile::create(Path::new(path))
            .map_err(|e| Failure::Input(e.to_string()))?;
        let w = io::BufWriter::with_capacity(CHUNK, file);
        Ok(AtomicFile {
            inner: Some(if path.ends_with(".gz") {
                Inner::Gz(GzEncoder::new(w, Compression::default()))
            } else {
                Inner::Plain(w)
            }),
        })
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.inner.as_mut() {
            Some(Inner::Plain(w)) => w.write(buf),
            Some(Inner::Gz(w)) => w.write(buf),
            None => Err(io::Error::other("already committed")),
        }
    }

    /// Finishes the file and renames it into place.
    fn flush(&mut self) -> io::Result<()> {
        let file = match self.inner.take() {
            Some(Inner::Plain(w)) => w.into_inner().map_err(|e| e.into_error())?,
            Some(Inner::Gz(w)) => w.finish()?.into_inner().map_err(|e| e.into_error())?,
            None => return Ok(()),
        };
        file.commit().map_err(io::Error::other)
    }
}

/// The `--report` file: findings are written as they come (constant
/// memory), the totals at the end; committed atomically.
struct ReportWriter {
    file: AtomicFile,
    rules: Arc<Rules>,
    first: bool,
    input: String,
}

impl ReportWriter {
    fn create(path: &str, input: &str, rules: Arc<Rules>) -> Result<ReportWriter, Failure> {
        let mut file = AtomicFile::create(path)?;
        file.write_all(b"{\"findings\":[")?;
        Ok(ReportWriter {
            file,
            rules,
            first: true,
            input: input.to_owned(),
        })
    }

    fn findings(&mut self, found: impl Iterator<Item = Finding>) -> io::Result<()> {
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

fn print_summary(name: &str, s: &Summary, rules: &Rules, o: &Options) {
    for b in &s.broken {
        let left = if b.unredacted > 0 {
            format!("; {} match(es) in it NOT redacted", b.unredacted)
        } else {
            String::new()
        };
        report(&format!(
            "{name}: line {} (byte {}): not JSON, passed through unchanged{left}",
            b.line, b.offset
        ));
    }
    if s.broken_lines > s.broken.len() as u64 {
        report(&format!(
            "{name}: … {} more lines that are not JSON",
            s.broken_lines - s.broken.len() as u64
        ));
    }
    for l in &s.leftover {
        let kind = l
            .kind
            .map_or("output is not JSON", |k| rules.kind(k).name.as_str());
        report(&format!(
            "{name}: line {}: verify found {kind} at {} after redaction",
            l.line, l.path
        ));
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
    let verb = if o.check { "found" } else { "redacted" };
    let detail = if list.is_empty() {
        String::new()
    } else {
        format!(": {}", list.join(", "))
    };
    report(&format!(
        "{name}: {verb} {} match(es) in {} of {} lines{detail}",
        s.findings(),
        s.lines_changed,
        s.lines
    ));
}
