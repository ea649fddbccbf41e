//! A gzip stream deflated on several threads, and redacted there too if
//! asked (what `export --html` writes its page's parts with): what is
//! written is cut into parts (at line ends when redacting), each redacted
//! as `retrace redact` would (the redactor told the lines and bytes before
//! it, as [`pump_parallel`](crate::pump_parallel) does) and deflated on a
//! worker with a compressor of its own, ended on a byte boundary (a sync
//! flush); the parts are written in order as one gzip member: their
//! deflate blocks one after the other, an empty final block, and the CRC
//! of the whole (the parts' CRCs combined). Any gzip reader reads it as
//! one stream; each part starts without the previous one's window, which
//! costs its first kilobytes a little ratio.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use flate2::{Compress, Compression, FlushCompress, Status};
use retrace_core::redact::{Finding, Mode, Redactor, Rules, Summary};

/// Bytes per part: large enough that a fresh window costs little ratio.
const PART: usize = 2 << 20;

/// A part's work done: its blocks, the CRC (and length) of its bytes, and
/// what redaction found in it.
struct Deflated {
    blocks: Vec<u8>,
    crc: crc32fast::Hasher,
    findings: Vec<Finding>,
    summary: Option<Summary>,
}

/// A part: its number, its bytes, and the lines and bytes before it.
type Job = (u64, Vec<u8>, u64, u64);
type Done = (u64, io::Result<Deflated>);

/// How the parts are redacted, and where their findings go.
struct Redacting<'a> {
    found: &'a mut dyn FnMut(&Finding),
    summary: Summary,
    /// Lines and bytes of the input sent so far.
    lines: u64,
    offset: u64,
}

/// A writer of one gzip member to `out`, deflated (and redacted) on
/// `workers` threads. [`ParallelGz::finish`] writes the end; dropped
/// unfinished, the stream is left without it (and the workers end once
/// their queue is gone).
pub struct ParallelGz<'a, W: Write> {
    out: W,
    buf: Vec<u8>,
    redacting: Option<Redacting<'a>>,
    jobs: Option<SyncSender<Job>>,
    done: Receiver<Done>,
    workers: Vec<JoinHandle<()>>,
    /// Parts sent, parts written, and those back out of order.
    sent: u64,
    written: u64,
    back: BTreeMap<u64, Deflated>,
    crc: crc32fast::Hasher,
    /// The most parts on their way at once.
    in_flight: u64,
}

impl<'a, W: Write> ParallelGz<'a, W> {
    /// Writes the gzip header to `out` and starts the workers.
    pub fn new(out: W, level: Compression, workers: usize) -> io::Result<ParallelGz<'a, W>> {
        ParallelGz::start(out, level, workers, None)
    }

    /// As [`ParallelGz::new`], the input redacted with `rules` and `mode`
    /// (typed or mask: parts are redacted apart) on the way, as JSON
    /// lines (a JSON document over several lines must be redacted whole,
    /// by one [`Redactor`], before it comes here); each finding goes to
    /// `found`, in input order, as parts are written.
    pub fn redacting(
        out: W,
        level: Compression,
        workers: usize,
        rules: &Arc<Rules>,
        mode: Mode,
        found: &'a mut dyn FnMut(&Finding),
    ) -> io::Result<ParallelGz<'a, W>> {
        let mut gz = ParallelGz::start(out, level, workers, Some((rules.clone(), mode)))?;
        gz.redacting = Some(Redacting {
            found,
            summary: Summary::default(),
            lines: 0,
            offset: 0,
        });
        Ok(gz)
    }

    fn start(
        mut out: W,
        level: Compression,
        workers: usize,
        redact: Option<(Arc<Rules>, Mode)>,
    ) -> io::Result<ParallelGz<'a, W>> {
        // No name, no time, unknown OS (as flate2's GzEncoder writes it).
        out.write_all(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])?;
        let workers = workers.max(1);
        let (jobs, job_rx) = sync_channel::<Job>(workers);
        let job_rx = Arc::new(Mutex::new(job_rx));
        let (done_tx, done) = channel::<Done>();
        let workers = (0..workers)
            .map(|_| {
                let (job_rx, done_tx): (_, Sender<Done>) = (job_rx.clone(), done_tx.clone());
                let redact = redact.clone();
                std::thread::spawn(move || loop {
                    let job = job_rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                    let Ok((n, bytes, lines, offset)) = job else {
                        return;
                    };
                    let part = match &redact {
                        None => deflate(&bytes, level, Vec::new(), None),
                        Some((rules, mode)) => {
                            let mut r = Redactor::new(rules.clone(), *mode);
                            r.resume_at(lines, offset);
                            let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 16);
                            r.push(&bytes, &mut out);
                            r.finish(&mut out);
                            let findings = r.drain_findings().collect();
                            deflate(&out, level, findings, Some(r.summary().clone()))
                        }
                    };
                    if done_tx.send((n, part)).is_err() {
                        return;
                    }
                })
            })
            .collect::<Vec<_>>();
        let in_flight = 2 * workers.len() as u64;
        Ok(ParallelGz {
            out,
            buf: Vec::with_capacity(PART),
            redacting: None,
            jobs: Some(jobs),
            done,
            workers,
            sent: 0,
            written: 0,
            back: BTreeMap::new(),
            crc: crc32fast::Hasher::new(),
            in_flight,
        })
    }

    /// Sends the first `len` bytes held as a part, first writing what came
    /// back until few enough parts are on their way.
    fn send(&mut self, len: usize) -> io::Result<()> {
        while self.sent - self.written >= self.in_flight {
            self.receive()?;
        }
        let rest = self.buf.split_off(len);
        let part = std::mem::replace(&mut self.buf, rest);
        let (lines, offset) = match self.redacting.as_mut() {
            Some(r) => {
                let before = (r.lines, r.offset);
                r.lines += part.iter().filter(|&&b| b == b'\n').count() as u64
                    + u64::from(!part.ends_with(b"\n"));
                r.offset += part.len() as u64;
                before
            }
            None => (0, 0),
        };
        let jobs = self.jobs.as_ref().expect("sending after finish");
        jobs.send((self.sent, part, lines, offset))
            .map_err(|_| io::Error::other("a compressing thread stopped"))?;
        self.sent += 1;
        Ok(())
    }

    /// Waits for one part to come back, and writes those now in order.
    fn receive(&mut self) -> io::Result<()> {
        let (n, part) = self
            .done
            .recv()
            .map_err(|_| io::Error::other("a compressing thread stopped"))?;
        self.back.insert(n, part?);
        while let Some(part) = self.back.remove(&self.written) {
            self.out.write_all(&part.blocks)?;
            self.crc.combine(&part.crc);
            if let (Some(r), Some(s)) = (self.redacting.as_mut(), part.summary) {
                for f in &part.findings {
                    (r.found)(f);
                }
                r.summary.merge(&s);
            }
            self.written += 1;
        }
        Ok(())
    }

    /// Compresses what is left, writes the end of the stream (an empty
    /// final block, the CRC and length) and gives `out` back, with what
    /// was redacted when redacting.
    pub fn finish(mut self) -> io::Result<(W, Option<Summary>)> {
        if !self.buf.is_empty() {
            self.send(self.buf.len())?;
        }
        while self.written < self.sent {
            self.receive()?;
        }
        self.jobs = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        // The final block: fixed Huffman codes, only the end-of-block code.
        self.out.write_all(&[0x03, 0x00])?;
        // The length modulo 2^32, as gzip keeps it.
        let size = self.crc.total_len() as u32;
        self.out
            .write_all(&self.crc.clone().finalize().to_le_bytes())?;
        self.out.write_all(&size.to_le_bytes())?;
        Ok((self.out, self.redacting.map(|r| r.summary)))
    }
}

impl<W: Write> Write for ParallelGz<'_, W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        while self.buf.len() >= PART {
            // A part redacted apart ends at a line's end (a longer line
            // waits for its end).
            let cut = match self.redacting {
                None => PART,
                Some(_) => match memchr::memrchr(b'\n', &self.buf) {
                    Some(at) => at + 1,
                    None => break,
                },
            };
            self.send(cut)?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `bytes` as deflate blocks of their own, ending on a byte boundary.
fn deflate(
    bytes: &[u8],
    level: Compression,
    findings: Vec<Finding>,
    summary: Option<Summary>,
) -> io::Result<Deflated> {
    let mut z = Compress::new(level, false);
    let mut blocks = Vec::with_capacity(bytes.len() / 3 + 64);
    loop {
        let read = z.total_in() as usize;
        if blocks.capacity() - blocks.len() < 64 {
            blocks.reserve(bytes.len() / 8 + 64);
        }
        let status = z
            .compress_vec(&bytes[read..], &mut blocks, FlushCompress::Sync)
            .map_err(io::Error::other)?;
        // Done once everything is in and the flush has room to end.
        if z.total_in() as usize == bytes.len()
            && blocks.len() < blocks.capacity()
            && status != Status::BufError
        {
            break;
        }
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(bytes);
    Ok(Deflated {
        blocks,
        crc,
        findings,
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn gunzip(gz: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(gz)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    fn text(len: usize) -> Vec<u8> {
        let mut t = Vec::with_capacity(len);
        let mut n = 0u64;
        while t.len() < len {
            n = n
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            t.extend_from_slice(
                format!("{{\"n\":{},\"w\":\"w{}\"}}\n", n >> 40, n % 97).as_bytes(),
            );
        }
        t.truncate(len);
        t
    }

    #[test]
    fn parts_deflated_apart_read_as_one_gzip_stream() {
        for len in [0, 1, 1000, PART, PART + 1, 3 * PART + 12345] {
            let data = text(len);
            for workers in [1, 3] {
                let mut gz = ParallelGz::new(Vec::new(), Compression::new(4), workers).unwrap();
                // In odd pieces, as a writer hands them over.
                for piece in data.chunks(77_777) {
                    gz.write_all(piece).unwrap();
                }
                let (out, none) = gz.finish().unwrap();
                assert!(none.is_none());
                assert_eq!(gunzip(&out), data, "{len} bytes on {workers} threads");
            }
        }
    }

    #[test]
    fn redacted_in_parts_as_one_redactor_redacts_the_whole() {
        let rules = Arc::new(Rules::builtin());
        // Whole lines, so the planted ones are JSON.
        let whole = |mut t: Vec<u8>| {
            let end = t.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            t.truncate(end);
            t
        };
        let mut data = whole(text(3 * PART));
        data.extend_from_slice(
            b"{\"k\":\"AKIA2E0A8F3B244C9986 and jane.doe@quantumleap-labs.io\"}\n",
        );
        data.extend(whole(text(PART / 2)));
        data.extend_from_slice(b"{\"last\":\"no newline AKIA2E0A8F3B244C9986\"}");
        let mut one = Redactor::new(rules.clone(), Mode::Typed);
        let mut expected = Vec::new();
        one.push(&data, &mut expected);
        one.finish(&mut expected);
        let expected_findings: Vec<Finding> = one.drain_findings().collect();
        let mut findings = Vec::new();
        let mut found = |f: &Finding| findings.push(f.clone());
        let mut gz = ParallelGz::redacting(
            Vec::new(),
            Compression::new(2),
            3,
            &rules,
            Mode::Typed,
            &mut found,
        )
        .unwrap();
        for piece in data.chunks(300_001) {
            gz.write_all(piece).unwrap();
        }
        let (out, summary) = gz.finish().unwrap();
        assert!(
            gunzip(&out) == expected,
            "not the bytes one redactor writes"
        );
        assert_eq!(findings, expected_findings);
        let summary = summary.unwrap();
        assert_eq!(summary.findings(), 3);
        assert_eq!(summary.lines, one.summary().lines);
        assert_eq!(summary.lines_changed, 2);
    }

    #[test]
    fn the_ratio_is_close_to_one_stream() {
        let data = text(4 * PART);
        let mut gz = ParallelGz::new(Vec::new(), Compression::new(4), 2).unwrap();
        gz.write_all(&data).unwrap();
        let parts = gz.finish().unwrap().0.len();
        let mut one = flate2::write::GzEncoder::new(Vec::new(), Compression::new(4));
        one.write_all(&data).unwrap();
        let one = one.finish().unwrap().len();
        assert!(parts * 1000 < one * 1005, "{parts} B against {one} B");
    }
}
