//! Shared helpers for the core's integration tests: they read the real
//! session files in `../shared/corpus` (the core itself does no I/O).

use std::path::{Path, PathBuf};

use retrace_core::{Reader, ReaderOptions, Session};

/// The shared corpus beside the repository.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// A corpus file's bytes.
pub fn read(relative: &str) -> Vec<u8> {
    let path = corpus().join(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every session-like file under the corpus, sorted.
pub fn corpus_files() -> Vec<PathBuf> {
    let files = files_under(corpus(), &["jsonl", "json"]);
    assert!(
        files.len() > 40,
        "corpus not found at {}",
        corpus().display()
    );
    files
}

/// Every file under the fixtures folder, sorted (folders of several files,
/// side-cars and non-sessions included: whatever a session of them reads).
pub fn fixture_files() -> Vec<PathBuf> {
    files_under(fixtures(), &["jsonl", "json", "gz"])
}

/// Every file under `root` whose extension is one of `extensions`, sorted.
fn files_under(root: PathBuf, extensions: &[&str]) -> Vec<PathBuf> {
    let mut stack = vec![root];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|x| extensions.iter().any(|e| x == *e))
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Reads `bytes` as one file, pushed in chunks of `chunk` bytes.
pub fn open_chunked(name: &str, bytes: &[u8], chunk: usize) -> Session {
    open_chunked_with(ReaderOptions::default(), name, bytes, chunk)
}

/// [`open_chunked`] with a reader's options.
pub fn open_chunked_with(
    options: ReaderOptions,
    name: &str,
    bytes: &[u8],
    chunk: usize,
) -> Session {
    let mut reader = Reader::with_options(options);
    reader.begin_file(name);
    for piece in bytes.chunks(chunk.max(1)) {
        reader.push(piece);
    }
    reader.finish()
}

/// Opens one corpus file whole.
pub fn open(relative: &str) -> (Session, Vec<u8>) {
    let bytes = read(relative);
    (Session::from_bytes(relative, &bytes), bytes)
}

/// Opens several corpus files as one session, with side-car `.meta.json`
/// files attached to the file of the same stem.
pub fn open_many(relatives: &[&str]) -> (Session, Vec<Vec<u8>>) {
    let mut reader = Reader::new();
    let mut all = Vec::new();
    for rel in relatives {
        let bytes = read(rel);
        let file = reader.begin_file(rel);
        reader.push(&bytes);
        let meta = corpus().join(rel.replace(".jsonl", ".meta.json"));
        if let Ok(json) = std::fs::read(meta) {
            reader.attach_meta(file, &json);
        }
        all.push(bytes);
    }
    (reader.finish(), all)
}

/// An entry by its id, which must exist.
pub fn find(session: &Session, id: &str) -> retrace_core::EntryId {
    session.find(id).unwrap_or_else(|| panic!("no entry {id}"))
}

/// The repository's hand-written fixtures (`tests/fixtures`).
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// A fixture's bytes.
pub fn read_fixture(relative: &str) -> Vec<u8> {
    let path = fixtures().join(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Opens fixture files as one session, in the order given.
pub fn open_fixtures(relatives: &[&str]) -> (Session, Vec<Vec<u8>>) {
    let mut reader = Reader::new();
    let mut all = Vec::new();
    for rel in relatives {
        let bytes = read_fixture(rel);
        reader.begin_file(rel);
        reader.push(&bytes);
        all.push(bytes);
    }
    (reader.finish(), all)
}

/// A source over several files held in memory.
pub fn source(files: &[Vec<u8>]) -> Vec<&[u8]> {
    files.iter().map(Vec::as_slice).collect()
}

/// Every byte outside the entries is structure: blanks and line breaks (and
/// a BOM), and for a file read as one JSON document its brackets, commas and
/// colons, the framed array's key and its other top-level fields (kept by
/// range in `FileInfo::document`). Entries do not overlap and their line
/// numbers are right. So entries plus gaps give back the file byte for
/// byte, and no content is dropped.
pub fn assert_lossless(name: &str, s: &Session, bytes: &[u8]) {
    assert_lossless_file(name, s, retrace_core::FileId(0), bytes);
}

/// [`assert_lossless`] for one file of a session.
pub fn assert_lossless_file(name: &str, s: &Session, file: retrace_core::FileId, bytes: &[u8]) {
    let info = &s.files()[file.0 as usize];
    let mut covered: Vec<std::ops::Range<usize>> = Vec::new();
    if let Some(doc) = &info.document {
        for f in &doc.fields {
            covered.push(f.range.start as usize..f.range.end as usize);
        }
        if let Some(r) = &doc.array_key_range {
            covered.push(r.start as usize..r.end as usize);
        }
    }
    let entries = &s.entries()[info.first_entry as usize..info.end_entry as usize];
    let structure: &[u8] = if info.document.is_some() {
        b" \t\r\n[]{},:"
    } else {
        b" \t\r\n"
    };
    let gap_ok = |from: usize, to: usize| {
        let mut i = from;
        if i == 0 && bytes.starts_with(b"\xEF\xBB\xBF") {
            i = 3;
        }
        while i < to {
            if let Some(r) = covered.iter().find(|r| r.start <= i && i < r.end) {
                assert!(
                    r.end <= to,
                    "{name}: a document field overlaps an entry at byte {i}"
                );
                i = r.end;
                continue;
            }
            assert!(
                structure.contains(&bytes[i]),
                "{name}: byte {i} ({:?}) belongs to no entry: {:?}",
                bytes[i] as char,
                String::from_utf8_lossy(&bytes[i..to.min(i + 80)])
            );
            i += 1;
        }
    };
    let mut at = 0usize;
    // Lines counted as the entries go, so a file of a million entries is
    // checked in one pass.
    let (mut line, mut counted) = (1usize, 0usize);
    for e in entries {
        let start = e.offset as usize;
        assert!(start >= at, "{name}: entries overlap at byte {start}");
        gap_ok(at, start);
        line += bytes[counted..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = start;
        assert_eq!(e.line as usize, line, "{name}: line number of byte {start}");
        at = start + e.len as usize;
    }
    gap_ok(at, bytes.len());
    let rebuilt: Vec<u8> = {
        let mut out = Vec::with_capacity(bytes.len());
        let mut at = 0usize;
        for e in entries {
            out.extend_from_slice(&bytes[at..e.offset as usize]);
            out.extend_from_slice(&bytes[e.range().start as usize..e.range().end as usize]);
            at = e.range().end as usize;
        }
        out.extend_from_slice(&bytes[at..]);
        out
    };
    assert!(rebuilt == bytes, "{name}: round trip differs");
    assert_eq!(info.size, bytes.len() as u64, "{name}: size");
    let lines = bytes.iter().filter(|&&b| b == b'\n').count()
        + usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"));
    assert_eq!(info.lines as usize, lines, "{name}: lines");
}

/// Everything observable about an index, for comparing two reads.
pub fn fingerprint(s: &Session) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    for (i, e) in s.entries().iter().enumerate() {
        let id = retrace_core::EntryId(i as u32);
        writeln!(
            out,
            "{} {} {} {} {:?} {} {:?} {:?} {:?}",
            e.line,
            e.offset,
            e.len,
            s.kind(id),
            e.flags,
            s.role(id),
            s.id(id),
            e.timestamp(),
            s.tree().parent(id)
        )
        .unwrap();
    }
    for d in s.diagnostics() {
        writeln!(out, "{:?} {} {} {}", d.kind, d.line, d.offset, d.message).unwrap();
    }
    writeln!(
        out,
        "{:?} {:?} {:?} {:?}",
        s.tree().tips(),
        s.tree().branch_points(),
        s.tree().default_leaf(),
        s.format()
    )
    .unwrap();
    out
}

/// A file of `tests/fixtures` at the top of the repository.
pub fn fixture(relative: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The context of the default leaf with everything a migration needs.
pub fn history(s: &Session, bytes: &[u8]) -> Vec<retrace_core::Message> {
    let leaf = s.tree().default_leaf().expect("a default leaf");
    s.context_with(
        leaf,
        &mut &bytes[..],
        retrace_core::ContextOptions { payloads: true },
    )
    .unwrap()
}

/// A fixture read whole, checked to round-trip and to read without any
/// diagnostic.
pub fn open_clean_fixture(relative: &str) -> (Session, Vec<u8>) {
    let bytes = fixture(relative);
    let s = Session::from_bytes(relative, &bytes);
    assert_lossless(relative, &s, &bytes);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    (s, bytes)
}

/// The first entry on `line` of file `file`.
pub fn entry_at(s: &Session, file: u16, line: u32) -> retrace_core::EntryId {
    (0..s.entries().len() as u32)
        .map(retrace_core::EntryId)
        .find(|&e| s.entry(e).file.0 == file && s.entry(e).line == line)
        .unwrap_or_else(|| panic!("no entry at file {file} line {line}"))
}

/// A gzip member of `bytes` (deflate level 6), written here so the tests
/// need no tool.
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    out.extend(miniz_oxide::deflate::compress_to_vec(bytes, 6));
    out.extend(crc32fast::hash(bytes).to_le_bytes());
    out.extend((bytes.len() as u32).to_le_bytes());
    out
}

/// The plain bytes of a gzip file, inflated by the core's own reader (a
/// file that is not gzip is given back as it is).
pub fn gunzip(name: &str, bytes: &[u8]) -> Vec<u8> {
    let s = Session::from_bytes(name, bytes);
    let info = &s.files()[0];
    if info.gzip.is_none() {
        return bytes.to_vec();
    }
    let mut source = retrace_core::Inflated::new(bytes, s.files());
    use retrace_core::Source;
    source
        .read(retrace_core::FileId(0), 0..info.size)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .into_owned()
}

/// The generated sessions of `tests/fixtures/generated` (pi and Claude
/// Code, made by the generators its README names), each as its name and
/// its plain bytes, sorted by name.
pub fn generated() -> Vec<(String, Vec<u8>)> {
    let dir = fixtures().join("generated");
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".jsonl.gz"))
        .map(|p| {
            let name = p.to_string_lossy().into_owned();
            let bytes = gunzip(&name, &std::fs::read(&p).unwrap());
            (name, bytes)
        })
        .collect();
    out.sort();
    assert!(
        out.len() >= 4,
        "generated sessions not found in {}",
        dir.display()
    );
    out
}
