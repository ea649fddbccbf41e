//! The streaming redactor (the CLI's `retrace redact`): the input as bytes
//! (gunzipped by its magic), pushed through a [`Redactor`] in chunks (in
//! constant memory), on several threads when the output does not depend
//! on order.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use flate2::read::MultiGzDecoder;
use retrace_core::redact::{Finding, Mode, Redactor, Rules, Summary};

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

/// Mask and typed placeholders do not depend on what came before, so a
/// file can be cut at line boundaries and the parts redacted on all
/// cores, then written in order: the same bytes as one redactor gives
/// (pseudonyms are numbered in order, so `pseudo` runs on one thread).
pub fn pump_parallel(
    input: Stream,
    rules: &Arc<Rules>,
    mode: Mode,
    workers: usize,
    sink: &mut dyn Write,
    mut report: Option<&mut dyn Findings>,
) -> Result<Summary, PumpError> {
    use std::sync::mpsc::sync_channel;
    use std::sync::Mutex;

    /// A part: its sequence number, lines done before it, its first byte.
    type Job = (u64, Vec<u8>, u64, u64);
    type Done = (u64, Vec<u8>, Vec<Finding>, Summary);

    let (job_tx, job_rx) = sync_channel::<Job>(workers * 2);
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = sync_channel::<Done>(workers * 2);
    let Stream {
        path,
        reader: input,
    } = input;
    let read_error: Mutex<Option<FileError>> = Mutex::new(None);
    let mut total = Summary::default();
    let mut write_result: io::Result<()> = Ok(());
    std::thread::scope(|scope| {
        let (read_error, path) = (&read_error, &path);
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
                            Some(cannot_read(path, e));
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
                    write_result =
                        sink.write_all(&out)
                            .and_then(|()| match report.as_deref_mut() {
                                Some(r) => r.findings(&mut findings.into_iter()),
                                None => Ok(()),
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
        return Err(PumpError::Read(e));
    }
    Ok(total)
}

fn memrchr_newline(b: &[u8]) -> Option<usize> {
    b.iter().rposition(|&c| c == b'\n')
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

    /// Several parts' worth of lines, each with a key to redact.
    fn lines() -> Vec<u8> {
        let mut text = Vec::new();
        let mut n = 0;
        while text.len() < 3 * PART {
            text.extend_from_slice(
                format!("{{\"n\":{n},\"out\":\"key AKIA2E0A8F3B244C9986 here\"}}\n").as_bytes(),
            );
            n += 1;
        }
        text
    }

    #[test]
    fn parts_on_several_threads_give_the_bytes_one_redactor_gives() {
        let rules = Arc::new(Rules::builtin());
        let mut one = Vec::new();
        let mut redactor = Redactor::new(rules.clone(), Mode::Typed);
        pump(stream(lines()), &mut redactor, &mut one, None).unwrap();
        let mut many = Vec::new();
        let summary =
            pump_parallel(stream(lines()), &rules, Mode::Typed, 3, &mut many, None).unwrap();
        assert!(one == many, "the parallel output differs");
        assert!(!one.windows(20).any(|w| w == b"AKIA2E0A8F3B244C9986"));
        assert_eq!(summary.findings(), redactor.summary().findings());
        assert_eq!(summary.lines, redactor.summary().lines);
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
