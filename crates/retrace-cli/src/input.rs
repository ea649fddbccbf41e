//! From a command-line PATH to a read session: a file, a folder of sessions
//! (a Claude Code project with its subagent files, Codex rollouts, a split
//! event stream, Gemini CLI chats whose split sessions the core links), or
//! `-` for standard input. Which files of a folder are read, in what order
//! and with which side-cars is the core's `order_files` (the viewer's rule
//! for dropped files); this lists the names.

use std::borrow::Cow;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::Result;
use retrace_core::{
    order_files, side_car, subagent_dir, FileId, Inflated, Listing, Reader, ReaderOptions, Session,
    Source, SourceError,
};
use retrace_io::{open_files, FileError, FileSource, Input, OpenOptions};

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
    /// The side-car read with each file, by file (empty for standard
    /// input).
    pub side_cars: Vec<Option<String>>,
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
    let unusable = |e: &FileError| InputError::store(e).on(path);
    let meta = std::fs::metadata(p).map_err(|e| unusable(&FileError::from_io(e, p)))?;
    if !meta.is_dir() && !meta.is_file() {
        // A pipe such as `<(zcat s.jsonl.gz)`: it can be read only once, so
        // bodies cannot be fetched from it later; keep it in memory.
        let bytes = std::fs::read(p).map_err(|e| unusable(&FileError::from_io(e, p)))?;
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
        vec![with_side_car(p)]
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
        bar.as_ref().map(|b| b as &dyn retrace_io::Progress),
    )
    .map_err(|e| unusable(&e))?;
    if let Some(bar) = bar {
        bar.finish();
    }
    let side_cars = inputs
        .iter()
        .map(|i| i.meta.as_ref().map(|m| m.display().to_string()))
        .collect();
    let source = Bytes::Files(FileSource::new(
        inputs.into_iter().map(|i| i.path).collect(),
    ));
    Ok(Loaded {
        name: path.to_owned(),
        source: Inflated::new(source, session.files()),
        session,
        side_cars,
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
        side_cars: Vec::new(),
    }
}

/// A file, with its side-car when there is one (a Claude Code subagent's
/// `<stem>.meta.json`, see `retrace_core::side_car`).
fn with_side_car(path: &Path) -> Input {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let meta = name
        .and_then(|n| side_car(&n))
        .map(|car| path.with_file_name(car))
        .filter(|car| car.is_file());
    Input {
        path: path.to_path_buf(),
        meta,
    }
}

/// The files of a folder of sessions, as `retrace_core::order_files` picks
/// and orders them from the folder's names and those of each session's
/// `subagents` folder (`Listing::Folder`).
fn project_inputs(dir: &Path) -> Result<Vec<Input>, FileError> {
    let mut files = files_in(dir, "")?;
    for (name, _) in files.clone() {
        if let Some(sub) = subagent_dir(&name).filter(|sub| dir.join(sub).is_dir()) {
            files.extend(files_in(&dir.join(&sub), &sub)?);
        }
    }
    let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
    Ok(order_files(&names, Listing::Folder)
        .into_iter()
        .map(|f| Input {
            path: files[f.file].1.clone(),
            meta: f.meta.map(|m| files[m].1.clone()),
        })
        .collect())
}

/// The files directly in `dir` (not its folders), in no order: each as its
/// name under `prefix` (`<session>/subagents/agent-a.jsonl`) and its path.
fn files_in(dir: &Path, prefix: &str) -> Result<Vec<(String, PathBuf)>, FileError> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(|e| FileError::from_io(e, dir))? {
        let path = entry.map_err(|e| FileError::from_io(e, dir))?.path();
        if !path.is_file() {
            continue;
        }
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let name = match prefix {
            "" => name.into_owned(),
            p => format!("{p}/{name}"),
        };
        files.push((name, path));
    }
    Ok(files)
}
