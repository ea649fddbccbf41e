//! The streaming redactor behind `retrace redact`: the input as bytes
//! (gunzipped by its magic), pushed through a [`Redactor`] in chunks (in
//! constant memory), on several threads when the output does not depend
//! on order.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use flate2::read::MultiGzDecoder;
use retrace_core::redact::{Finding, Mode, Redactor, Rules, Summary};

use crate::errors::{io_message, InputError};

/// Bytes read per push: large enough to amortize calls, small enough to
/// stay in cache.
pub(crate) const CHUNK: usize = 256 * 1024;

/// Bytes per part when redacting on several threads.
const PART: usize = 2 << 20;

/// Where findings go as they come (the `--report` file).
pub(crate) trait Findings {
    fn findings(&mut self, found: &mut dyn Iterator<Item = Finding>) -> io::Result<()>;
}

fn cannot_read(name: &str, e: &io::Error) -> anyhow::Error {
    InputError::new(format!("cannot read: {}", io_message(e))).on(name)
}

/// The input as a byte stream, gunzipped when it starts with the gzip magic.
pub(crate) fn open_input(path: &str) -> Result<Box<dyn Read + Send>> {
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(io::stdin())
    } else {
        let p = Path::new(path);
        if p.is_dir() {
            return Err(InputError::new("is a directory (redact takes one file)").on(path));
        }
        Box::new(File::open(p).map_err(|e| InputError::io(&e).on(path))?)
    };
    let mut reader = BufReader::with_capacity(CHUNK, raw);
    let head = reader.fill_buf().map_err(|e| cannot_read(path, &e))?;
    if head.starts_with(&[0x1f, 0x8b]) {
        Ok(Box::new(MultiGzDecoder::new(reader)))
    } else {
        Ok(Box::new(reader))
    }
}

/// Reads the input's first line (up to 1 MiB) and gives the input back
/// whole, with whether that line opens a JSON document.
pub(crate) fn peek_document(
    name: &str,
    mut input: Box<dyn Read + Send>,
) -> Result<(Box<dyn Read + Send>, bool)> {
    let mut head = Vec::new();
    let mut buf = [0u8; 64 << 10];
    while head.len() < (1 << 20) && !head.contains(&b'\n') {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(cannot_read(name, &e)),
        };
        head.extend_from_slice(&buf[..n]);
    }
    let first = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let document = retrace_core::redact::opens_document(first);
    Ok((Box::new(io::Cursor::new(head).chain(input)), document))
}

/// Redacts `input` into `sink` with one redactor, findings to `report`.
pub(crate) fn pump(
    name: &str,
    mut input: Box<dyn Read + Send>,
    redactor: &mut Redactor,
    sink: &mut dyn Write,
    mut report: Option<&mut dyn Findings>,
) -> Result<()> {
    let mut buf = vec![0u8; CHUNK];
    let mut out = Vec::with_capacity(CHUNK + CHUNK / 4);
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(cannot_read(name, &e)),
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
pub(crate) fn pump_parallel(
    name: &str,
    input: Box<dyn Read + Send>,
    rules: &Arc<Rules>,
    mode: Mode,
    workers: usize,
    sink: &mut dyn Write,
    mut report: Option<&mut dyn Findings>,
) -> Result<Summary> {
    use std::sync::mpsc::sync_channel;
    use std::sync::Mutex;

    /// A part: its sequence number, lines done before it, its first byte.
    type Job = (u64, Vec<u8>, u64, u64);
    type Done = (u64, Vec<u8>, Vec<Finding>, Summary);

    let (job_tx, job_rx) = sync_channel::<Job>(workers * 2);
    let job_rx = Mutex::new(job_rx);
    let (done_tx, done_rx) = sync_channel::<Done>(workers * 2);
    let read_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let mut total = Summary::default();
    let mut write_result: io::Result<()> = Ok(());
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
                            Some(cannot_read(name, &e));
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
        return Err(e);
    }
    Ok(total)
}

fn memrchr_newline(b: &[u8]) -> Option<usize> {
    b.iter().rposition(|&c| c == b'\n')
}
