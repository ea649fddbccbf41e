//! Reading session files from disk into the core's [`Reader`].
//!
//! A large file is split at line starts into one part per thread; each part
//! is indexed by its own reader and the parts are appended in order, so the
//! index is the same as a single pass would give. A file that is one JSON
//! document is split where its array's elements seem to begin; a part whose
//! guess turns out wrong is read again after the part before it.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use retrace_core::{ElementStarts, FileId, Reader, ReaderOptions, Session};

use crate::error::{FileError, FileResult};

/// One file of a session, with its optional side-cars: a document (a
/// Claude Code subagent's `.meta.json`) and its bookmarks (the snapshot
/// side-car, `retrace_core::snapshot_side_car`).
#[derive(Debug, Clone)]
pub struct Input {
    pub path: PathBuf,
    pub meta: Option<PathBuf>,
    pub snapshots: Option<PathBuf>,
}

impl Input {
    pub fn new(path: impl Into<PathBuf>) -> Input {
        Input {
            path: path.into(),
            meta: None,
            snapshots: None,
        }
    }
}

/// Told how many bytes have been read, for a progress bar.
pub trait Progress: Sync {
    fn on_bytes(&self, bytes: u64);
}

/// How files are read.
#[derive(Debug, Clone, Copy)]
pub struct OpenOptions {
    /// Threads for one large file (1 = read in one pass).
    pub threads: usize,
    /// Bytes per `read`; small enough to stay in the CPU cache while the
    /// scanner runs over them.
    pub chunk: usize,
    /// Files smaller than this are read in one pass.
    pub parallel_from: u64,
    pub reader: ReaderOptions,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            chunk: 256 << 10,
            parallel_from: 32 << 20,
            reader: ReaderOptions::default(),
        }
    }
}

/// Reads the files of one session (the main file first) into a [`Session`].
pub fn open_files(
    inputs: &[Input],
    options: &OpenOptions,
    progress: Option<&dyn Progress>,
) -> FileResult<Session> {
    if inputs.len() > FileId::LIMIT {
        return Err(FileError::TooManyFiles {
            count: inputs.len(),
            limit: FileId::LIMIT,
        });
    }
    let mut reader = Reader::with_options(options.reader);
    for input in inputs {
        let name = input.path.to_string_lossy();
        let file = reader.begin_file(&name);
        read_parallel(&mut reader, &input.path, options, progress)?;
        if let Some(meta) = &input.meta {
            let bytes = std::fs::read(meta).map_err(|e| FileError::from_io(e, meta))?;
            reader.attach_meta(file, &bytes);
        }
        if let Some(car) = &input.snapshots {
            let bytes = std::fs::read(car).map_err(|e| FileError::from_io(e, car))?;
            reader.attach_snapshots(file, &car.to_string_lossy(), &bytes);
        }
    }
    Ok(reader.finish())
}

/// The first bytes of a file, to tell a JSON document from JSON lines.
fn read_head(file: &File) -> std::io::Result<Vec<u8>> {
    let mut head = vec![0u8; 64 << 10];
    let filled = read_full_at(file, &mut head)?;
    head.truncate(filled);
    Ok(head)
}

/// Fills `buf` from the file's start (less at its end): the bytes read.
fn read_full_at(file: &File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], filled as u64)? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Pushes the whole file at `path` into `reader`, whose current file was just
/// begun, splitting it over `options.threads` threads when it is large.
pub fn read_parallel(
    reader: &mut Reader,
    path: &Path,
    options: &OpenOptions,
    progress: Option<&dyn Progress>,
) -> FileResult<()> {
    let file = File::open(path).map_err(|e| FileError::from_io(e, path))?;
    let size = file
        .metadata()
        .map_err(|e| FileError::from_io(e, path))?
        .len();
    reader.size_hint(size);
    if is_regular(&file) {
        let mut head = vec![0u8; retrace_core::BINARY_SAMPLE];
        let n = read_full_at(&file, &mut head).map_err(|e| FileError::from_io(e, path))?;
        crate::load::refuse_binary(path, &head[..n])?;
    }
    // A gzip stream can only be inflated from its start: one pass.
    if options.threads <= 1 || size < options.parallel_from || !is_regular(&file) || is_gzip(&file)
    {
        return read_range(reader, &file, path, 0, None, options.chunk, progress);
    }
    let head = read_head(&file).map_err(|e| FileError::from_io(e, path))?;
    if retrace_core::starts_like_document(&head) {
        // One JSON document: split where its elements seem to begin, or
        // read in one pass when its head does not show where that is.
        return match ElementStarts::from_head(&head) {
            Some(starts) => read_document(reader, &file, path, size, &starts, options, progress),
            None => read_range(reader, &file, path, 0, None, options.chunk, progress),
        };
    }
    let bounds =
        split_points(&file, size, options.threads).map_err(|e| FileError::from_io(e, path))?;
    let parts = read_parts(
        reader,
        &file,
        path,
        &bounds,
        options,
        progress,
        |part, name, at| {
            part.begin_part(name, at);
        },
    )?;
    for part in parts {
        reader.append_part_with(part, &both_at_once);
    }
    Ok(())
}

/// Runs `a` on a thread of its own while `b` runs on this one (see
/// [`Reader::append_part_with`]).
fn both_at_once(a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
    std::thread::scope(|scope| {
        scope.spawn(a);
        b();
    });
}

/// Reads `bounds[0]..bounds[1]` into `reader` on this thread and each later
/// part on a thread of its own, into a reader that `begin` starts at the
/// part's offset; the parts in order, or the first error.
fn read_parts(
    reader: &mut Reader,
    file: &File,
    path: &Path,
    bounds: &[u64],
    options: &OpenOptions,
    progress: Option<&dyn Progress>,
    begin: impl Fn(&mut Reader, &str, u64) + Sync,
) -> FileResult<Vec<Reader>> {
    let name = path.to_string_lossy();
    let (first, parts) = std::thread::scope(|scope| {
        let handles: Vec<_> = bounds
            .windows(2)
            .skip(1)
            .map(|w| {
                let (start, end) = (w[0], w[1]);
                let (name, begin) = (&name, &begin);
                scope.spawn(move || {
                    let mut part = Reader::with_options(options.reader);
                    begin(&mut part, name, start);
                    part.size_hint(end - start);
                    read_range(
                        &mut part,
                        file,
                        path,
                        start,
                        Some(end),
                        options.chunk,
                        progress,
                    )?;
                    Ok(part)
                })
            })
            .collect();
        let first = read_range(
            reader,
            file,
            path,
            0,
            Some(bounds[1]),
            options.chunk,
            progress,
        );
        let parts: Vec<FileResult<Reader>> = handles
            .into_iter()
            .map(|h| h.join().expect("reader thread panicked"))
            .collect();
        (first, parts)
    });
    first?;
    parts.into_iter().collect()
}

/// Reads a file that is one JSON document in parts, one per thread: each
/// part after the first starts where an element seems to begin (see
/// [`ElementStarts`]) and is kept if the part before it ends where it
/// assumed; else its bytes are read on after the part before, so the index
/// is always the one a single pass gives.
fn read_document(
    reader: &mut Reader,
    file: &File,
    path: &Path,
    size: u64,
    starts: &ElementStarts,
    options: &OpenOptions,
    progress: Option<&dyn Progress>,
) -> FileResult<()> {
    let bounds = element_split_points(file, size, options.threads, starts)
        .map_err(|e| FileError::from_io(e, path))?;
    if bounds.len() <= 2 {
        return read_range(reader, file, path, 0, None, options.chunk, progress);
    }
    let parts = read_parts(
        reader,
        file,
        path,
        &bounds,
        options,
        progress,
        |part, name, at| {
            part.begin_document_part(name, at, starts);
        },
    )?;
    for (part, w) in parts.into_iter().zip(bounds.windows(2).skip(1)) {
        if !reader.append_document_part(part) {
            // The guess was wrong: read the part's bytes after all.
            read_range(reader, file, path, w[0], Some(w[1]), options.chunk, None)?;
        }
    }
    Ok(())
}

fn is_gzip(file: &File) -> bool {
    let mut magic = [0u8; 2];
    matches!(file.read_at(&mut magic, 0), Ok(2)) && magic == [0x1f, 0x8b]
}

fn is_regular(file: &File) -> bool {
    file.metadata().map(|m| m.is_file()).unwrap_or(false)
}

/// `parts + 1` offsets from 0 to `size`: each inner one the first boundary
/// `find` sees (as an offset into a window of the file) from its share of
/// the file on, before the next share begins; a share without one adds no
/// point. Windows overlap by `overlap` bytes, so a boundary that is a
/// longer pattern is seen whole.
fn split_where(
    file: &File,
    size: u64,
    parts: usize,
    overlap: usize,
    find: impl Fn(&[u8]) -> Option<usize>,
) -> std::io::Result<Vec<u64>> {
    const WINDOW: usize = 64 << 10;
    let mut points = vec![0u64];
    let mut window = vec![0u8; WINDOW];
    for i in 1..parts as u64 {
        let share = size * i / parts as u64;
        let limit = size * (i + 1) / parts as u64;
        let mut at = share.max(*points.last().expect("non-empty") + 1);
        let found = loop {
            if at >= limit {
                break None;
            }
            let n = file.read_at(&mut window, at)?;
            if n == 0 {
                break None;
            }
            if let Some(k) = find(&window[..n]) {
                break Some(at + k as u64);
            }
            if n <= overlap {
                break None;
            }
            at += (n - overlap) as u64;
        };
        if let Some(p) = found.filter(|&p| p < size) {
            points.push(p);
        }
    }
    points.push(size);
    points.dedup();
    Ok(points)
}

/// Split points at line starts, so every part starts at a line start.
fn split_points(file: &File, size: u64, parts: usize) -> std::io::Result<Vec<u64>> {
    split_where(file, size, parts, 0, |window| {
        window.iter().position(|&b| b == b'\n').map(|nl| nl + 1)
    })
}

/// Split points where an element of the document seems to begin (windows
/// overlap, so a start that straddles two is seen whole with the comma
/// before it).
fn element_split_points(
    file: &File,
    size: u64,
    parts: usize,
    starts: &ElementStarts,
) -> std::io::Result<Vec<u64>> {
    split_where(file, size, parts, 4 << 10, |window| starts.find(window))
}

/// Reads `start..end` (to EOF when `end` is `None`) in chunks into `reader`.
fn read_range(
    reader: &mut Reader,
    file: &File,
    path: &Path,
    start: u64,
    end: Option<u64>,
    chunk: usize,
    progress: Option<&dyn Progress>,
) -> FileResult<()> {
    let mut buf = vec![0u8; chunk];
    let mut at = start;
    loop {
        let want = match end {
            Some(end) if at >= end => break,
            Some(end) => chunk.min((end - at) as usize),
            None => chunk,
        };
        let n = if end.is_none() && start == 0 {
            // Also works for pipes and other unseekable files.
            (&*file).read(&mut buf[..want])
        } else {
            file.read_at(&mut buf[..want], at)
        }
        .map_err(|e| FileError::from_io(e, path))?;
        if n == 0 {
            break;
        }
        reader.push(&buf[..n]);
        at += n as u64;
        if let Some(p) = progress {
            p.on_bytes(n as u64);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/corpus")
            .join(rel)
    }

    /// More files than a session can number is an error before any is
    /// opened, not a panic after.
    #[test]
    fn too_many_files_is_an_error() {
        let inputs: Vec<Input> = (0..=FileId::LIMIT)
            .map(|i| Input::new(format!("/nonexistent/{i}.jsonl")))
            .collect();
        let err = open_files(&inputs, &OpenOptions::default(), None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "65537 files make up this session; one session is read from at most 65536 files"
        );
    }

    /// Splitting a file over threads gives exactly the index one pass gives.
    #[test]
    fn parallel_read_equals_single_pass() {
        for rel in [
            "pi/badlogic__pi-mono/session.jsonl",
            "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl",
            // One JSON document: split where its elements begin.
            "gemini-cli/mischa-thisness__M-Gemini/Archives/session-2026-01-10T01-38-1deca764.json",
        ] {
            let path = corpus(rel);
            let one = OpenOptions {
                threads: 1,
                ..OpenOptions::default()
            };
            let many = OpenOptions {
                threads: 7,
                chunk: 4096,
                parallel_from: 0,
                ..OpenOptions::default()
            };
            let a = open_files(&[Input::new(&path)], &one, None).unwrap();
            let b = open_files(&[Input::new(&path)], &many, None).unwrap();
            assert_eq!(a.entries().len(), b.entries().len(), "{rel}");
            for (i, (x, y)) in a.entries().iter().zip(b.entries()).enumerate() {
                let e = retrace_core::EntryId(i as u32);
                assert_eq!((x.line, x.offset, x.len), (y.line, y.offset, y.len));
                assert_eq!((x.flags, x.timestamp()), (y.flags, y.timestamp()), "{rel} {i}");
                // Strings through each session's own table: the parts'
                // tables were merged into the first one's.
                assert_eq!(
                    (a.id(e), a.kind(e), a.role(e)),
                    (b.id(e), b.kind(e), b.role(e)),
                    "{rel} {i}"
                );
                assert_eq!(a.tree().parent(e), b.tree().parent(e), "{rel} {i}");
            }
            assert_eq!(a.diagnostics(), b.diagnostics(), "{rel}");
            assert_eq!(a.tree().tips(), b.tree().tips(), "{rel}");
            assert_eq!(a.tree().branch_points(), b.tree().branch_points(), "{rel}");
            assert_eq!(a.files()[0].lines, b.files()[0].lines);
            assert_eq!(a.files()[0].document, b.files()[0].document);
        }
    }

    /// A file of 32 MiB or more (the default `parallel_from`) on several
    /// threads, every line setting its parent twice: a unique value, then
    /// the line before's id, which one pass has just seen and a part that
    /// starts on that line has not. Wherever the cuts land, every parent
    /// is the last value, as one pass reads it (the `read` fuzz target's
    /// `read-parts-index-differs`, at the size that takes this path).
    #[test]
    fn a_large_file_in_parts_keeps_a_repeated_keys_last_value() {
        let dir = std::env::temp_dir().join(format!("retrace-io-parts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("large.jsonl");
        let mut text = String::new();
        let mut n = 0;
        while text.len() < 33 << 20 {
            let kind = if n % 2 == 0 { "user" } else { "assistant" };
            text.push_str(&format!(
                concat!(
                    r#"{{"type":"{}","timestamp":"2025-07-01T10:00:00.000Z","parentUuid":"junk-{}","#,
                    r#""parentUuid":"id-{}","sessionId":"s1","uuid":"id-{}","message":{{"role":"{}","#,
                    r#""content":"line {} of a long session, padded to a realistic length"}}}}"#,
                    "\n"
                ),
                kind,
                n,
                n.max(1) - 1,
                n,
                kind,
                n
            ));
            n += 1;
        }
        std::fs::write(&path, &text).unwrap();
        let one = OpenOptions {
            threads: 1,
            ..OpenOptions::default()
        };
        let many = OpenOptions {
            threads: 4,
            ..OpenOptions::default()
        };
        assert!(text.len() as u64 >= many.parallel_from);
        let a = open_files(&[Input::new(&path)], &one, None).unwrap();
        let b = open_files(&[Input::new(&path)], &many, None).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(a.entries().len(), n);
        assert_eq!(b.entries().len(), n);
        for i in 1..n {
            let e = retrace_core::EntryId(i as u32);
            let parent = Some(retrace_core::EntryId(i as u32 - 1));
            assert_eq!(a.tree().parent(e), parent, "one pass, line {}", i + 1);
            assert_eq!(b.tree().parent(e), parent, "in parts, line {}", i + 1);
        }
        assert_eq!(a.diagnostics(), b.diagnostics());
        assert_eq!(a.tree().tips(), b.tree().tips());
    }
}
