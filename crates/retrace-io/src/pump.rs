//! The streaming redactor (the CLI's `retrace redact`): the input as bytes
//! (gunzipped by its magic), pushed through a [`Redactor`] in chunks (in
//! constant memory), on several threads when the output does not depend
//! on order.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use flate2::read::MultiGzDecoder;
use retrace_core::redact::{Finding, Mode, Redactor, Rules, Scanned, Summary};

use crate::error::FileError;

/// Bytes read per push: large enough to amortize calls, small enough to
/// stay in cache.
pub const CHUNK: usize = 256 * 1024;

/// Bytes per part when redacting on several threads.
const PART: usize = 2 << 20;

/// Where findings go as they come (the CLI's `--report` file).
pub trait Findings {
    fn findings(&mut self, found: &mut dyn Iterator<Item = Finding>) -> io::Result<()>;
}

/// Why a pump stopped: the input could not be read, or the output (or
/// the findings) not written. Kept apart so a caller can tell a reader
/// that left a pipe (a write error) from a broken input.
#[derive(Debug, thiserror::Error)]
pub enum PumpError {
    #[error(transparent)]
    Read(FileError),
    #[error("cannot write the redacted output")]
    Write(#[source] io::Error),
}

impl From<io::Error> for PumpError {
    fn from(e: io::Error) -> PumpError {
        PumpError::Write(e)
    }
}

/// An input to redact, read as bytes, gunzipped when it starts with the
/// gzip magic.
pub struct Stream {
    /// The path, `-` for standard input: where a read error happened.
    path: PathBuf,
    reader: Box<dyn Read + Send>,
}

impl Stream {
    /// The file at `path` (a regular file or a pipe, not a folder); gzip
    /// inflated up to `max_inflated` bytes (`ReaderOptions::max_inflated`),
    /// a read error past it.
    pub fn open(path: &Path, max_inflated: u64) -> Result<Stream, FileError> {
        if path.is_dir() {
            return Err(FileError::IsDirectory {
                path: path.to_path_buf(),
            });
        }
        let file = File::open(path).map_err(|e| FileError::from_io(e, path))?;
        Stream::new(path.to_path_buf(), Box::new(file), max_inflated)
    }

    /// Standard input, named `-`.
    pub fn stdin(max_inflated: u64) -> Result<Stream, FileError> {
        Stream::new(PathBuf::from("-"), Box::new(io::stdin()), max_inflated)
    }

    fn new(
        path: PathBuf,
        raw: Box<dyn Read + Send>,
        max_inflated: u64,
    ) -> Result<Stream, FileError> {
        let mut reader = BufReader::with_capacity(CHUNK, raw);
        let head = reader.fill_buf().map_err(|e| cannot_read(&path, e))?;
        // An image or a program is refused, not passed through as lines.
        crate::load::refuse_binary(&path, head)?;
        let reader: Box<dyn Read + Send> = if head.starts_with(&[0x1f, 0x8b]) {
            Box::new(Inflating {
                inner: MultiGzDecoder::new(reader),
                out: 0,
                max: max_inflated,
            })
        } else {
            Box::new(reader)
        };
        Ok(Stream { path, reader })
    }

    /// Whether the input's first line (up to 1 MiB) opens a JSON document
    /// (then it is redacted whole, by one redactor: parts cut at newlines
    /// would cut it apart). Nothing is consumed.
    pub fn opens_document(&mut self) -> Result<bool, FileError> {
        let mut head = Vec::new();
        let mut buf = [0u8; 64 << 10];
        while head.len() < (1 << 20) && !head.contains(&b'\n') {
            let n = match self.reader.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(cannot_read(&self.path, e)),
            };
            head.extend_from_slice(&buf[..n]);
        }
        let first = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
        let document = retrace_core::redact::opens_document(first);
        // Give the head back in front of the rest.
        let rest = std::mem::replace(&mut self.reader, Box::new(io::empty()));
        self.reader = Box::new(io::Cursor::new(head).chain(rest));
        Ok(document)
    }
}

/// A gzip input that stops with an error once it inflates past `max`
/// bytes: a gzip bomb is refused, not written out without bound.
struct Inflating<R> {
    inner: R,
    out: u64,
    max: u64,
}

impl<R: Read> Read for Inflating<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // One byte past the limit tells a stream that stops at it from one
        // that goes on.
        if buf.is_empty() {
            return Ok(0);
        }
        let room = (self.max.saturating_add(1))
            .saturating_sub(self.out)
            .min(buf.len() as u64) as usize;
        if room > 0 {
            let n = self.inner.read(&mut buf[..room])?;
            self.out += n as u64;
            if self.out <= self.max {
                return Ok(n);
            }
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "the file inflates past the {} limit (--max-inflated): a gzip bomb, \
                 or a session larger than the limit",
                retrace_core::byte_size(self.max)
            ),
        ))
    }
}

fn cannot_read(path: &Path, source: io::Error) -> FileError {
    FileError::Read {
        path: path.to_path_buf(),
        source,
    }
}

/// Redacts `input` into `sink` with one redactor, findings to `report`.
pub fn pump(
    input: Stream,
    redactor: &mut Redactor,
    sink: &mut dyn Write,
    mut report: Option<&mut dyn Findings>,
) -> Result<(), PumpError> {
    let Stream {
        path,
        reader: mut input,
    } = input;
    let mut buf = vec![0u8; CHUNK];
    let mut out = Vec::with_capacity(CHUNK + CHUNK / 4);
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(PumpError::Read(cannot_read(&path, e))),
        };
        out.clear();
        redactor.push(&buf[..n], &mut out);
        sink.write_all(&out)?;
        if let Some(r) = report.as_deref_mut() {
            r.findings(&mut redactor.drain_findings())?;
        } else {
            redactor.drain_findings();
        }
    }
    out.clear();
    redactor.finish(&mut out);
    sink.write_all(&out)?;
    if let Some(r) = report {
        r.findings(&mut redactor.drain_findings())?;
    }
    Ok(())
}

/// A file cut at line boundaries and the parts redacted on all cores,
/// then written in order: the same bytes, findings and summary as one
/// redactor gives. Mask and typed placeholders do not depend on what came
/// before, so each part is redacted whole where it is read; pseudonyms
/// are numbered in order, so in `pseudo` mode the parts are only scanned
/// there ([`Redactor::scan`]) and the writer, one redactor for the file,
/// chooses the placeholders and splices them in as the parts come, in
/// order ([`Redactor::write_scanned`]): no line is scanned twice.
pub fn pump_parallel(
    input: Stream,
    rules: &Arc<Rules>,
    mode: Mode,
    workers: usize,
    sink: &mut dyn Write,
    report: Option<&mut dyn Findings>,
) -> Result<Summary, PumpError> {
    pump_parts(input, rules, mode, workers, PART, sink, report)
}

/// [`pump_parallel`] with parts of `part` bytes (tests cut small ones).
fn pump_parts(
    input: Stream,
    rules: &Arc<Rules>,
    mode: Mode,
    workers: usize,
    part_size: usize,
    sink: &mut dyn Write,
    mut report: Option<&mut dyn Findings>,
) -> Result<Summary, PumpError> {
    use std::sync::mpsc::sync_channel;
    use std::sync::Mutex;

    /// A part: its sequence number, lines done before it, its first byte.
    type Job = (u64, Vec<u8>, u64, u64);
    type Done = (u64, Part);

    let (job_tx, job_rx) = sync_channel::<Job>(workers * 2);
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = sync_channel::<Done>(workers * 2);
    let Stream {
        path,
        reader: input,
    } = input;
    let read_error: Mutex<Option<FileError>> = Mutex::new(None);
    let mut total = Summary::default();
    // Pseudo mode: the one redactor that numbers the pseudonyms.
    let mut writer = Redactor::new(rules.clone(), mode);
    let mut write_result: io::Result<()> = Ok(());
    let pool = Pool::new(4 * workers + 4);
    std::thread::scope(|scope| {
        let (read_error, path) = (&read_error, &path);
        let pool = &pool;
        scope.spawn(move || {
            let mut input = input;
            // The bytes after the last part's last newline.
            let mut carry: Vec<u8> = Vec::new();
            let (mut seq, mut lines, mut offset) = (0u64, 0u64, 0u64);
            loop {
                let mut part = pool.take();
                part.extend_from_slice(&carry);
                carry.clear();
                // Read to `part_size` and on to the end of a line, or
                // until a read ends at one (a pipe written line by line
                // is passed on as it comes).
                let mut newline = None;
                let end = loop {
                    let len = part.len();
                    let room = part_size.saturating_sub(len).max(part_size.min(CHUNK));
                    part.resize(len + room, 0);
                    let read = input.read(&mut part[len..]);
                    let n = match read {
                        Ok(n) => n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                            part.truncate(len);
                            continue;
                        }
                        Err(e) => {
                            // The whole lines read before the error are
                            // still written, as one redactor writes them.
                            part.truncate(newline.map_or(0, |p| p + 1));
                            if !part.is_empty() {
                                let _ = job_tx.send((seq, part, lines, offset));
                            }
                            *read_error.lock().unwrap_or_else(|p| p.into_inner()) =
                                Some(cannot_read(path, e));
                            return;
                        }
                    };
                    part.truncate(len + n);
                    if n == 0 {
                        break true;
                    }
                    if let Some(p) = memchr::memrchr(b'\n', &part[len..]) {
                        newline = Some(len + p);
                        if part.len() >= part_size || part.ends_with(b"\n") {
                            break false;
                        }
                    }
                };
                // Whole lines; at the end, whatever is left.
                let cut = match (end, newline) {
                    (false, Some(p)) => p + 1,
                    _ => part.len(),
                };
                carry.extend_from_slice(&part[cut..]);
                part.truncate(cut);
                if part.is_empty() {
                    pool.give(part);
                } else {
                    let part_lines = memchr::memchr_iter(b'\n', &part).count() as u64
                        + u64::from(!part.ends_with(b"\n"));
                    let part_len = part.len() as u64;
                    if job_tx.send((seq, part, lines, offset)).is_err() {
                        return;
                    }
                    seq += 1;
                    lines += part_lines;
                    offset += part_len;
                }
                if end {
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
                let done = if mode == Mode::Pseudo {
                    Part::Scanned(r.scan(part))
                } else {
                    let mut out = pool.take();
                    out.reserve(part.len() + part.len() / 16);
                    r.push(&part, &mut out);
                    r.finish(&mut out);
                    pool.give(part);
                    let findings: Vec<Finding> = r.drain_findings().collect();
                    Part::Written(out, findings, r.summary().clone())
                };
                if done_tx.send((seq, done)).is_err() {
                    return;
                }
            });
        }
        drop(done_tx);
        // Write the parts in order as they come back.
        let mut pending = std::collections::BTreeMap::new();
        let mut next = 0u64;
        let mut out = Vec::new();
        for (seq, part) in done_rx.iter() {
            pending.insert(seq, part);
            while let Some(part) = pending.remove(&next) {
                next += 1;
                if write_result.is_err() {
                    continue;
                }
                write_result = match part {
                    Part::Written(out, findings, summary) => {
                        total.merge(&summary);
                        let written =
                            sink.write_all(&out)
                                .and_then(|()| match report.as_deref_mut() {
                                    Some(r) => r.findings(&mut findings.into_iter()),
                                    None => Ok(()),
                                });
                        pool.give(out);
                        written
                    }
                    Part::Scanned(scanned) => {
                        out.clear();
                        pool.give(writer.write_scanned(scanned, &mut out));
                        sink.write_all(&out)
                            .and_then(|()| match report.as_deref_mut() {
                                Some(r) => r.findings(&mut writer.drain_findings()),
                                None => {
                                    writer.drain_findings();
                                    Ok(())
                                }
                            })
                    }
                };
            }
            if write_result.is_err() {
                // Stop the others: their sends fail once this receiver is gone.
                break;
            }
        }
    });
    write_result?;
    if let Some(e) = read_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(PumpError::Read(e));
    }
    if mode == Mode::Pseudo {
        total = writer.summary().clone();
    }
    Ok(total)
}

/// Buffers of parts written, for the parts to come: a file read into
/// new buffers part by part pays a page fault per page, system time one
/// redactor with its one buffer does not pay.
struct Pool {
    free: std::sync::Mutex<Vec<Vec<u8>>>,
    keep: usize,
}

impl Pool {
    fn new(keep: usize) -> Pool {
        Pool {
            free: std::sync::Mutex::new(Vec::new()),
            keep,
        }
    }

    /// An empty buffer, with room if one was given back.
    fn take(&self) -> Vec<u8> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        free.pop().unwrap_or_default()
    }

    fn give(&self, mut buf: Vec<u8>) {
        buf.clear();
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        if free.len() < self.keep {
            free.push(buf);
        }
    }
}

/// A part back from a worker: redacted (mask, typed), or scanned for the
/// writer to redact (pseudo).
enum Part {
    Written(Vec<u8>, Vec<Finding>, Summary),
    Scanned(Scanned),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(bytes: Vec<u8>) -> Stream {
        Stream::new(
            PathBuf::from("test"),
            Box::new(io::Cursor::new(bytes)),
            u64::MAX,
        )
        .unwrap()
    }

    /// Lines to cut into many small parts, with keys, addresses met again
    /// parts later (pseudonyms numbered across parts), a number to
    /// replace, a broken line and a last line without its newline.
    fn lines() -> Vec<u8> {
        let mut text = Vec::new();
        for n in 0..3000 {
            let line = match n % 7 {
                0 => format!("{{\"n\":{n},\"out\":\"key AKIA2E0A8F3B244C9986 here\"}}\n"),
                1 => format!(
                    "{{\"n\":{n},\"to\":\"mail jo{}@mailhost.org now\"}}\n",
                    n % 37
                ),
                2 => format!("{{\"n\":{n},\"card\":4111111111111111}}\n"),
                3 if n % 500 == 3 => format!("{{\"n\":{n},\"broken\":\"jo@mailhost.org\n"),
                _ => format!("{{\"n\":{n},\"text\":\"nothing here\"}}\n"),
            };
            text.extend_from_slice(line.as_bytes());
        }
        text.extend_from_slice(b"{\"last\":\"mail ann@mailhost.org\"}");
        text
    }

    /// Findings kept as they come.
    #[derive(Default)]
    struct Kept(Vec<Finding>);

    impl Findings for Kept {
        fn findings(&mut self, found: &mut dyn Iterator<Item = Finding>) -> io::Result<()> {
            self.0.extend(found);
            Ok(())
        }
    }

    /// In every mode, pseudo included (whose parts the writer numbers):
    /// the bytes, findings and summary of one redactor, from parts of
    /// every size down to a line or two.
    #[test]
    fn parts_on_several_threads_give_what_one_redactor_gives() {
        let rules = Arc::new(Rules::builtin());
        for mode in [Mode::Mask, Mode::Typed, Mode::Pseudo] {
            let mut one = Vec::new();
            let mut kept_one = Kept::default();
            let mut redactor = Redactor::new(rules.clone(), mode);
            pump(
                stream(lines()),
                &mut redactor,
                &mut one,
                Some(&mut kept_one),
            )
            .unwrap();
            assert!(!one.windows(20).any(|w| w == b"AKIA2E0A8F3B244C9986"));
            assert!(redactor.summary().broken_lines > 0 && redactor.summary().findings() > 800);
            for part in [64, 1000, 64 << 10] {
                let mut many = Vec::new();
                let mut kept = Kept::default();
                let summary = pump_parts(
                    stream(lines()),
                    &rules,
                    mode,
                    3,
                    part,
                    &mut many,
                    Some(&mut kept),
                )
                .unwrap();
                let at = format!("{mode:?}, parts of {part} bytes");
                assert!(one == many, "{at}: the parallel output differs");
                assert_eq!(kept.0, kept_one.0, "{at}");
                assert_eq!(&summary, redactor.summary(), "{at}");
            }
        }
    }

    #[test]
    fn gzip_is_read_by_its_magic_and_a_document_is_seen() {
        use flate2::write::GzEncoder;
        let mut z = GzEncoder::new(Vec::new(), flate2::Compression::default());
        io::Write::write_all(&mut z, b"[{\"a\":\"AKIA2E0A8F3B244C9986\"},\n{}]\n").unwrap();
        let mut input = stream(z.finish().unwrap());
        assert!(input.opens_document().unwrap());
        let mut out = Vec::new();
        let mut r = Redactor::new(Arc::new(Rules::builtin()), Mode::Typed);
        pump(input, &mut r, &mut out, None).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.starts_with("[{\"a\":\"[REDACTED:"), "{out}");
        assert!(out.ends_with("{}]\n"), "{out}");
    }

    #[test]
    fn a_truncated_gzip_is_a_read_error_naming_the_input() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/gzip/rollback-truncated.jsonl.gz");
        let input = Stream::open(&path, u64::MAX).unwrap();
        let mut r = Redactor::new(Arc::new(Rules::builtin()), Mode::Typed);
        let err = pump(input, &mut r, &mut io::sink(), None).unwrap_err();
        let PumpError::Read(e) = err else {
            panic!("not a read error: {err}")
        };
        assert!(e.to_string().contains("rollback-truncated.jsonl.gz"), "{e}");
        assert!(e.reason().starts_with("cannot read: "), "{}", e.reason());
    }

    /// A read error midway: on several threads as on one, in every mode,
    /// the whole lines read before it are written, and the error names
    /// the input.
    #[test]
    fn a_read_error_writes_the_lines_before_it_as_one_redactor_does() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/gzip/rollback-truncated.jsonl.gz");
        let rules = Arc::new(Rules::builtin());
        for mode in [Mode::Mask, Mode::Typed, Mode::Pseudo] {
            let mut one = Vec::new();
            let mut r = Redactor::new(rules.clone(), mode);
            let input = Stream::open(&path, u64::MAX).unwrap();
            assert!(pump(input, &mut r, &mut one, None).is_err());
            assert!(!one.is_empty(), "nothing before the damage");
            for part in [64, 1000, PART] {
                let mut many = Vec::new();
                let input = Stream::open(&path, u64::MAX).unwrap();
                let err = pump_parts(input, &rules, mode, 3, part, &mut many, None).unwrap_err();
                let at = format!("{mode:?}, parts of {part} bytes");
                assert!(one == many, "{at}: the parallel output differs");
                let PumpError::Read(e) = err else {
                    panic!("{at}: not a read error: {err}")
                };
                assert!(e.to_string().contains("rollback-truncated.jsonl.gz"), "{e}");
            }
        }
    }

    /// A gzip bomb: a small file that inflates past the limit stops with
    /// a read error saying so, after writing no more than the limit.
    #[test]
    fn a_gzip_bomb_stops_at_the_limit() {
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let line = b"{\"type\":\"message\",\"text\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}\n";
        for _ in 0..100_000 {
            io::Write::write_all(&mut z, line).unwrap();
        }
        let bomb = z.finish().unwrap();
        let inflated = 100_000 * line.len() as u64;
        let limit = inflated / 2;
        let mut input = Stream::new(
            PathBuf::from("bomb.jsonl.gz"),
            Box::new(io::Cursor::new(bomb.clone())),
            limit,
        )
        .unwrap();
        let mut out = Vec::new();
        let mut r = Redactor::new(Arc::new(Rules::builtin()), Mode::Typed);
        input.opens_document().unwrap();
        let err = pump(input, &mut r, &mut out, None).unwrap_err();
        let PumpError::Read(e) = err else {
            panic!("not a read error: {err}")
        };
        assert!(e.to_string().contains("bomb.jsonl.gz"), "{e}");
        let reason = e.reason();
        assert!(
            reason.contains("inflates past the") && reason.contains("--max-inflated"),
            "{reason}"
        );
        assert!(out.len() as u64 <= limit, "{} bytes written", out.len());
        // At the limit exactly, the whole file is read.
        let input = Stream::new(
            PathBuf::from("ok.jsonl.gz"),
            Box::new(io::Cursor::new(bomb)),
            inflated,
        )
        .unwrap();
        let mut out = Vec::new();
        let mut r = Redactor::new(Arc::new(Rules::builtin()), Mode::Typed);
        pump(input, &mut r, &mut out, None).unwrap();
        assert_eq!(out.len() as u64, inflated);
    }

    #[test]
    fn a_folder_is_refused() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert!(matches!(
            Stream::open(dir, u64::MAX),
            Err(FileError::IsDirectory { .. })
        ));
    }
}
