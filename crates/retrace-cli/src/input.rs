//! From a command-line PATH to a read session: a file, a folder of sessions
//! (a Claude Code project with its subagent files, Codex rollouts, a split
//! event stream, Gemini CLI chats whose split sessions the core links), or
//! `-` for standard input.

use std::borrow::Cow;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::Result;
use retrace_core::{FileId, Inflated, Reader, ReaderOptions, Session, Source, SourceError};
use retrace_store::{open_files, FileSource, Input, OpenOptions, StoreError};

use crate::args::ReadArgs;
use crate::errors::InputError;
use crate::printer::Printer;

impl ReadArgs {
    fn reader_options(&self) -> ReaderOptions {
        ReaderOptions {
            format: self.format,
            ..ReaderOptions::default()
        }
    }
}

/// A session and where its bytes are.
pub struct Loaded {
    /// The PATH as given.
    pub name: String,
    pub session: Session,
    /// Entry bodies, decompressed where the file is gzip.
    pub source: Inflated<Bytes>,
}

/// Where entry bodies are read from.
pub enum Bytes {
    Files(FileSource),
    /// Standard input, kept in memory (it cannot be read twice).
    Memory(Vec<u8>),
}

impl Source for Bytes {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        match self {
            Bytes::Files(files) => files.read(file, range),
            Bytes::Memory(bytes) => {
                let got = (file.0 == 0)
                    .then(|| bytes.get(range.start as usize..range.end as usize))
                    .flatten();
                got.map(Cow::Borrowed)
                    .ok_or_else(|| SourceError::new(file, range, "past the end of the input"))
            }
        }
    }
}

/// Reads PATH, with a progress bar for a large one (if `printer` draws
/// them).
pub fn load(path: &str, read: &ReadArgs, printer: &Printer) -> Result<Loaded> {
    let options = read.reader_options();
    if path == "-" {
        return load_stdin(options);
    }
    let p = Path::new(path);
    let unusable = |e: &StoreError| InputError::store(e).on(path);
    let meta = std::fs::metadata(p).map_err(|e| unusable(&StoreError::from_io(e, p)))?;
    if !meta.is_dir() && !meta.is_file() {
        // A pipe such as `<(zcat s.jsonl.gz)`: it can be read only once, so
        // bodies cannot be fetched from it later; keep it in memory.
        let bytes = std::fs::read(p).map_err(|e| unusable(&StoreError::from_io(e, p)))?;
        return Ok(in_memory(path, bytes, options));
    }
    let inputs = if meta.is_dir() {
        let inputs = project_inputs(p).map_err(|e| unusable(&e))?;
        if inputs.is_empty() {
            let none = "no session files (*.jsonl, *.json, gzipped or not) in this directory";
            return Err(InputError::new(none).on(path));
        }
        inputs
    } else {
        vec![with_meta(p.to_path_buf())]
    };
    let total: u64 = inputs
        .iter()
        .filter_map(|i| std::fs::metadata(&i.path).ok())
        .map(|m| m.len())
        .sum();
    let bar = printer.progress(total);
    let options = OpenOptions {
        reader: options,
        ..OpenOptions::default()
    };
    let session = open_files(
        &inputs,
        &options,
        bar.as_ref().map(|b| b as &dyn retrace_store::Progress),
    )
    .map_err(|e| unusable(&e))?;
    if let Some(bar) = bar {
        bar.finish();
    }
    let source = Bytes::Files(FileSource::new(
        inputs.into_iter().map(|i| i.path).collect(),
    ));
    Ok(Loaded {
        name: path.to_owned(),
        source: Inflated::new(source, session.files()),
        session,
    })
}

fn load_stdin(options: ReaderOptions) -> Result<Loaded> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::new(format!("cannot read standard input: {e}")).on("-"))?;
    Ok(in_memory("-", bytes, options))
}

fn in_memory(name: &str, bytes: Vec<u8>, options: ReaderOptions) -> Loaded {
    let mut reader = Reader::with_options(options);
    reader.begin_file(name);
    reader.push(&bytes);
    let session = reader.finish();
    Loaded {
        name: name.to_owned(),
        source: Inflated::new(Bytes::Memory(bytes), session.files()),
        session,
    }
}

/// A file, with the `.meta.json` beside it when there is one (a Claude Code
/// subagent's description).
fn with_meta(path: PathBuf) -> Input {
    let meta = path.with_extension("meta.json");
    Input {
        meta: meta.is_file().then_some(meta),
        path,
    }
}

/// The files of a folder of sessions, main sessions first: every `*.jsonl`
/// and `*.json` in it (sessions, then 2.0-style `agent-*.jsonl`), then each
/// session's `<session>/subagents/agent-*.jsonl` (Claude Code). Side-car
/// `*.meta.json` files are attached, not read as sessions.
fn project_inputs(dir: &Path) -> Result<Vec<Input>, StoreError> {
    let listed = jsonl_files(dir, true)?;
    let (agents, sessions): (Vec<PathBuf>, Vec<PathBuf>) =
        listed.into_iter().partition(|p| is_agent_file(p));
    let mut out: Vec<Input> = Vec::new();
    for session in &sessions {
        out.push(with_meta(session.clone()));
    }
    out.extend(agents.into_iter().map(with_meta));
    for session in &sessions {
        let sub = session.with_extension("").join("subagents");
        if sub.is_dir() {
            out.extend(jsonl_files(&sub, false)?.into_iter().map(with_meta));
        }
    }
    Ok(out)
}

fn is_agent_file(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("agent-"))
}

/// The `*.jsonl` (and `*.jsonl.gz`) files directly in `dir`, sorted by name, except that the
/// parts of a split set (`events.jsonl`, `events_1.jsonl`, …,
/// `events_10.jsonl`) go in numeric order.
/// With `json`, `*.json` and `*.json.gz` files too (Gemini CLI's legacy
/// sessions, archived or not), except `*.meta.json` side-cars.
fn jsonl_files(dir: &Path, json: bool) -> Result<Vec<PathBuf>, StoreError> {
    let entries = std::fs::read_dir(dir).map_err(|e| StoreError::from_io(e, dir))?;
    let mut files = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| StoreError::from_io(e, dir))?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        let plain = name.strip_suffix(".gz").unwrap_or(&name);
        let document = json && plain.ends_with(".json") && !plain.ends_with(".meta.json");
        if path.is_file() && (name.ends_with(".jsonl") || name.ends_with(".jsonl.gz") || document) {
            files.push(path);
        }
    }
    files.sort_by_cached_key(|p| split_key(p));
    Ok(files)
}

/// `events_12.jsonl` sorts as (`events.jsonl`, 12); other names as
/// themselves.
fn split_key(path: &Path) -> (String, u64) {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some((stem, ext)) = name.split_once('.') else {
        return (name, 0);
    };
    match stem.rsplit_once('_') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            (format!("{base}.{ext}"), n.parse().unwrap_or(u64::MAX))
        }
        _ => (name, 0),
    }
}
