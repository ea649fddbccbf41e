//! Shared helpers for the core's integration tests: they read the real
//! session files in `../shared/corpus` (the core itself does no I/O).
#![allow(clippy::disallowed_methods, dead_code)]

use std::path::{Path, PathBuf};

use retrace_core::{Reader, Session};

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
    let mut stack = vec![corpus()];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|x| x == "jsonl" || x == "json")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(
        files.len() > 40,
        "corpus not found at {}",
        corpus().display()
    );
    files
}

/// Reads `bytes` as one file, pushed in chunks of `chunk` bytes.
pub fn open_chunked(name: &str, bytes: &[u8], chunk: usize) -> Session {
    let mut reader = Reader::new();
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
