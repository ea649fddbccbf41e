//! What the engine's tests share: the corpus, a host that records what
//! the engine sends it, an engine with its host (`Tab`), and the files of
//! an input as the CLI reads them and as a drop gives them.

// Each test binary uses some of it.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use retrace_core::{order_files, side_car, subagent_dir, Inflated, Listing, Reader, Session};
use retrace_wasm::engine::{Engine, Host, MemoryFiles};
use retrace_wasm::protocol::{EngineError, Event, Request, Response, Summary};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn corpus() -> PathBuf {
    root().join("../shared/corpus")
}

/// A host that records what the engine sends it, with a clock that moves
/// a millisecond per look, a fixed wall clock and counted random bytes.
#[derive(Default)]
pub struct Recorder {
    pub clock: f64,
    pub drawn: u8,
    pub events: Vec<Event>,
    pub chunks: HashMap<u32, Vec<u8>>,
    pub replies: Vec<(u32, Result<Response, EngineError>)>,
}

/// The wall clock the recorder gives: 2026-01-02T03:04:05.678Z.
pub const NOW: i64 = 1_767_323_045_678;

impl Host for Recorder {
    fn clock_ms(&mut self) -> f64 {
        self.clock += 1.0;
        self.clock
    }

    fn unix_ms(&mut self) -> i64 {
        NOW
    }

    fn random(&mut self) -> [u8; 16] {
        self.drawn = self.drawn.wrapping_add(1);
        [self.drawn; 16]
    }

    fn event(&mut self, event: Event) {
        self.events.push(event);
    }

    fn chunk(&mut self, ticket: u32, bytes: &[u8]) {
        self.chunks
            .entry(ticket)
            .or_default()
            .extend_from_slice(bytes);
    }

    fn reply(&mut self, ticket: u32, result: Result<Response, EngineError>) {
        self.replies.push((ticket, result));
    }
}

/// An engine and its host.
pub struct Tab {
    pub engine: Engine<MemoryFiles>,
    pub host: Recorder,
    pub tickets: u32,
}

impl Tab {
    pub fn new() -> Tab {
        Tab {
            engine: Engine::new(),
            host: Recorder::default(),
            tickets: 0,
        }
    }

    /// Serves `request` now: its answer, or the error that refused it.
    pub fn ask(
        &mut self,
        request: Request,
        files: Option<MemoryFiles>,
    ) -> Result<Response, EngineError> {
        self.tickets += 1;
        let answer = self
            .engine
            .call_now(self.tickets, request, files, &mut self.host)?;
        Ok(answer.expect("answered now"))
    }

    /// Serves `request` and runs the background work it started to its
    /// end: the answer background work gave.
    pub fn ask_later(&mut self, request: Request) -> (Result<Response, EngineError>, Vec<u8>) {
        self.tickets += 1;
        let ticket = self.tickets;
        let answer = self.engine.call_now(ticket, request, None, &mut self.host);
        assert!(matches!(answer, Ok(None)), "answered at once: {answer:?}");
        while self.engine.tick(&mut self.host) {}
        let at = self
            .host
            .replies
            .iter()
            .position(|(t, _)| *t == ticket)
            .expect("answered by background work");
        let (_, result) = self.host.replies.remove(at);
        let bytes = self.host.chunks.remove(&ticket).unwrap_or_default();
        (result, bytes)
    }

    /// Opens `files` (names with their bytes) as one session.
    pub fn open(&mut self, files: MemoryFiles) -> Summary {
        let request = Request::Open {
            leaf_label: None,
            entry: None,
            first_rows: false,
        };
        match self.ask(request, Some(files)) {
            Ok(Response::Opened(summary)) => *summary,
            other => panic!("not opened: {other:?}"),
        }
    }
}

pub fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// An input as the CLI names its files: a folder's files and its
/// sessions' `subagents` files, or a file and its side-car (paths relative
/// to `dir`).
pub fn input(path: &Path) -> (PathBuf, Vec<String>, Listing) {
    if path.is_dir() {
        let mut names = files_in(path);
        for name in names.clone() {
            if let Some(sub) = subagent_dir(&name).filter(|d| path.join(d).is_dir()) {
                names.extend(
                    files_in(&path.join(&sub))
                        .iter()
                        .map(|n| format!("{sub}/{n}")),
                );
            }
        }
        return (path.to_path_buf(), names, Listing::Folder);
    }
    let dir = path.parent().unwrap().to_path_buf();
    let base = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut names = vec![base.clone()];
    names.extend(side_car(&base).filter(|car| dir.join(car).is_file()));
    (dir, names, Listing::Chosen)
}

/// The session as the CLI reads `names` (paths under `dir`), with the
/// bytes of its files.
pub fn cli_open(
    dir: &Path,
    names: &[String],
    listing: Listing,
) -> (Session, Inflated<Vec<Vec<u8>>>) {
    let mut reader = Reader::new();
    let mut bytes = Vec::new();
    for f in order_files(names, listing) {
        let id = reader.begin_file(&names[f.file]);
        let data = std::fs::read(dir.join(&names[f.file])).unwrap();
        reader.push(&data);
        if let Some(meta) = f.meta {
            reader.attach_meta(id, &std::fs::read(dir.join(&names[meta])).unwrap());
        }
        if let Some(car) = f.snapshots {
            let bytes = std::fs::read(dir.join(&names[car])).unwrap();
            reader.attach_snapshots(id, &names[car], &bytes);
        }
        bytes.push(data);
    }
    let session = reader.finish();
    let source = Inflated::new(bytes, session.files());
    (session, source)
}

/// Files under `dir` given by `names`, named as a drop names them (base
/// names).
pub fn dropped(dir: &Path, names: &[String]) -> MemoryFiles {
    let mut files = MemoryFiles::new();
    for n in names {
        let base = n.rsplit('/').next().unwrap().to_owned();
        files.add(base, std::fs::read(dir.join(n)).unwrap());
    }
    files
}

pub fn one(path: &str) -> (String, Vec<u8>) {
    let full = corpus().join(path);
    let name = full.file_name().unwrap().to_string_lossy().into_owned();
    (name, std::fs::read(full).unwrap())
}

pub fn memory(files: &[(String, Vec<u8>)]) -> MemoryFiles {
    let mut out = MemoryFiles::new();
    for (name, bytes) in files {
        out.add(name.clone(), bytes.clone());
    }
    out
}
