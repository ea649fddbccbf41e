//! What a crash leaves in the log, repaired before it is written again
//! (after etcd's WAL `Repair`: keep the cut bytes aside, truncate to the
//! last good offset, sync).
//!
//! - A torn last line: the bytes after the last part's last `\n` (a write
//!   cut off, or zeros the file system had not yet filled) are appended to
//!   the side-car `events_N.jsonl.torn` as one line, which is synced
//!   before the part is truncated and synced. A second repair appends its
//!   cut after the first; a repair cut off between the two steps finds its
//!   cut already at the side-car's end and does not add it twice.
//! - NUL runs before the cut are reported, not removed (the log is never
//!   rewritten); `read` skips them.
//! - A gzip cut off: see `gzip.rs`.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::{file_name, gzip, parts, sync_dir, torn_name};
use crate::error::{StoreError, StoreResult};
use crate::store::LogProblem;

/// Repairs the log in `dir` and says what it did.
pub(super) fn repair(dir: &Path) -> StoreResult<Vec<LogProblem>> {
    let mut problems = Vec::new();
    let mut removed = false;
    let entries = fs::read_dir(dir).map_err(|e| StoreError::io("cannot list", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io("cannot list", dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if gzip::is_tmp(&name) {
            let path = entry.path();
            fs::remove_file(&path).map_err(|e| StoreError::io("cannot remove", &path, e))?;
            removed = true;
            problems.push(LogProblem {
                file: name,
                line: 0,
                offset: 0,
                message: "an unfinished copy (a crash while a part was gzipped or \
                          ungzipped); removed, the complete file beside it is kept"
                    .to_owned(),
            });
        }
    }
    let parts = parts(dir)?;
    for part in &parts {
        if let (Some(plain), Some(gz)) = (&part.plain, &part.gz) {
            fs::remove_file(plain).map_err(|e| StoreError::io("cannot remove", plain, e))?;
            removed = true;
            problems.push(LogProblem {
                file: file_name(plain),
                line: 0,
                offset: 0,
                message: format!(
                    "found beside its complete copy {} (a crash while it was gzipped); the \
                     plain copy was removed",
                    file_name(gz)
                ),
            });
        }
    }
    if removed {
        sync_dir(dir)?;
    }
    // Only the last part is ever written, so only it can be torn.
    if let Some(last) = parts.last().filter(|p| p.gz.is_none()) {
        if let Some(plain) = &last.plain {
            cut_torn_tail(dir, plain, last.n, &mut problems)?;
        }
    }
    Ok(problems)
}

/// What a scan of a part found.
struct Scan {
    len: u64,
    /// `\n`s, and the offset after the last one.
    newlines: u64,
    end_of_last_line: u64,
    /// NUL runs: (offset, length, line from 1).
    nul_runs: Vec<(u64, u64, u64)>,
}

/// Reads `path` once, in blocks.
fn scan(path: &Path) -> StoreResult<Scan> {
    let mut file = File::open(path).map_err(|e| StoreError::io("cannot open", path, e))?;
    let mut buf = vec![0u8; 1 << 20];
    let mut scan = Scan {
        len: 0,
        newlines: 0,
        end_of_last_line: 0,
        nul_runs: Vec::new(),
    };
    // The NUL run going on at the end of the previous block.
    let mut run: Option<(u64, u64, u64)> = None;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(StoreError::io("cannot read", path, e)),
        };
        let block = &buf[..n];
        let base = scan.len;
        let mut i = 0;
        loop {
            if let Some(r) = &mut run {
                let zeros = block[i..].iter().take_while(|&&b| b == 0).count();
                r.1 += zeros as u64;
                i += zeros;
                if i == n {
                    break;
                }
                scan.nul_runs.extend(run.take());
            }
            let next_nul = memchr::memchr(0, &block[i..]);
            let text = &block[i..next_nul.map_or(n, |j| i + j)];
            scan.newlines += memchr::memchr_iter(b'\n', text).count() as u64;
            if let Some(last) = memchr::memrchr(b'\n', text) {
                scan.end_of_last_line = base + (i + last) as u64 + 1;
            }
            match next_nul {
                Some(j) => {
                    run = Some((base + (i + j) as u64, 0, scan.newlines + 1));
                    i += j;
                }
                None => break,
            }
        }
        scan.len += n as u64;
    }
    if let Some(r) = run {
        scan.nul_runs.push(r);
    }
    Ok(scan)
}

/// Moves the bytes after the last `\n` of part `n` to its side-car.
fn cut_torn_tail(
    dir: &Path,
    path: &Path,
    n: u32,
    problems: &mut Vec<LogProblem>,
) -> StoreResult<()> {
    let scan = scan(path)?;
    let name = file_name(path);
    let cut_at = scan.end_of_last_line;
    for &(offset, len, line) in scan.nul_runs.iter().filter(|r| r.0 < cut_at) {
        problems.push(LogProblem {
            file: name.clone(),
            line,
            offset,
            message: format!(
                "{len} NUL bytes (zeros a crash left where data was not yet written); kept in \
                 the file, skipped when read"
            ),
        });
    }
    if cut_at == scan.len {
        return Ok(());
    }
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| StoreError::io("cannot open", path, e))?;
    let mut tail = Vec::with_capacity((scan.len - cut_at) as usize);
    file.seek(SeekFrom::Start(cut_at))
        .and_then(|_| file.read_to_end(&mut tail))
        .map_err(|e| StoreError::io("cannot read", path, e))?;
    // The cut, one line in the side-car (a torn tail holds no `\n`).
    let car = dir.join(torn_name(n));
    let mut line = tail;
    line.push(b'\n');
    let (car_offset, written) = keep_aside(dir, &car, &line)?;
    file.set_len(cut_at)
        .and_then(|()| file.sync_all())
        .map_err(|e| StoreError::io("cannot truncate", path, e))?;
    let cut = line.len() - 1;
    problems.push(LogProblem {
        file: name,
        line: scan.newlines + 1,
        offset: cut_at,
        message: format!(
            "torn last line: the {cut} bytes after the last newline (a write cut off by a \
             crash) were cut and {} {} at byte {car_offset}",
            if written {
                "kept in"
            } else {
                "were already in"
            },
            file_name(&car)
        ),
    });
    Ok(())
}

/// Appends `line` to the side-car `car` and syncs it, unless its last
/// line is `line` already (a repair cut off before it truncated). Returns
/// where the line is and whether it was written now.
fn keep_aside(dir: &Path, car: &Path, line: &[u8]) -> StoreResult<(u64, bool)> {
    let existed = car.exists();
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(car)
        .map_err(|e| StoreError::io("cannot open", car, e))?;
    let len = file
        .metadata()
        .map_err(|e| StoreError::io("cannot stat", car, e))?
        .len();
    let n = line.len() as u64;
    if len >= n {
        let mut end = vec![0; line.len()];
        file.seek(SeekFrom::Start(len - n))
            .and_then(|_| file.read_exact(&mut end))
            .map_err(|e| StoreError::io("cannot read", car, e))?;
        let whole_line = len == n || {
            let mut before = [0u8];
            file.seek(SeekFrom::Start(len - n - 1))
                .and_then(|_| file.read_exact(&mut before))
                .map_err(|e| StoreError::io("cannot read", car, e))?;
            before[0] == b'\n'
        };
        if end == line && whole_line {
            return Ok((len - n, false));
        }
    }
    file.write_all(line)
        .and_then(|()| file.sync_all())
        .map_err(|e| StoreError::io("cannot write", car, e))?;
    if !existed {
        sync_dir(dir)?;
    }
    Ok((len, true))
}
