//! From a path to a read session: a file, a folder of sessions (a Claude
//! Code project with its subagent files, Codex rollouts, a split event
//! stream, a store session's folder, Gemini CLI chats whose split sessions
//! the core links), a pipe, or standard input. Which files of a folder are
//! read, in what order and with which side-cars is the core's
//! `order_files` (the viewer's rule for dropped files); this lists the
//! names.
//!
//! A file's bookmarks come with it: its snapshot side-car beside it
//! (`x.jsonl.snapshots.json`, also for `x.jsonl.gz`: the core's
//! `snapshot_side_car`) is attached to it, when a file or a folder is
//! read; standard input and pipes have none.
//!
//! Two steps, so a caller can size a progress bar between them:
//! [`locate`] (or [`Located::stdin`]) finds the files, [`Located::load`]
//! reads them. [`load`] does both.

use std::borrow::Cow;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use retrace_core::{
    order_files, side_car, snapshot_side_car, subagent_dir, FileId, Inflated, Listing, Reader,
    ReaderOptions, Session, Source, SourceError,
};

use crate::error::{FileError, FileResult};
use crate::open::{open_files, Input, OpenOptions, Progress};
use crate::source::FileSource;
use crate::walk::{session_of_file, sessions_in, FoundSession};

/// A session and where its bytes are.
pub struct Loaded {
    /// The path as given (`-` for standard input).
    pub name: String,
    pub session: Session,
    /// Entry bodies, decompressed where the file is gzip.
    pub source: Inflated<Bytes>,
    /// The side-car read with each file, by file (empty for standard
    /// input and pipes).
    pub side_cars: Vec<Option<String>>,
    /// The bookmarks side-car (`*.snapshots.json`) read with each file, by
    /// file (empty for standard input and pipes).
    pub snapshots: Vec<Option<String>>,
}

/// Where entry bodies are read from.
pub enum Bytes {
    Files(FileSource),
    /// Standard input or a pipe, kept in memory (it cannot be read twice).
    Memory(Vec<u8>),
}

impl Source for Bytes {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        match self {
            Bytes::Files(files) => files.read(file, range),
            Bytes::Memory(bytes) => in_memory_range(bytes, file, range),
        }
    }
}

fn in_memory_range(
    bytes: &[u8],
    file: FileId,
    range: Range<u64>,
) -> Result<Cow<'_, [u8]>, SourceError> {
    let got = (file.0 == 0)
        .then(|| bytes.get(range.start as usize..range.end as usize))
        .flatten();
    got.map(Cow::Borrowed)
        .ok_or_else(|| SourceError::new(file, range, "past the end of the input"))
}

/// [`Bytes`] read again from another thread: the files opened anew, bytes
/// held in memory borrowed.
pub enum BytesAgain<'a> {
    Files(FileSource),
    Memory(&'a [u8]),
}

impl Source for BytesAgain<'_> {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        match self {
            BytesAgain::Files(files) => files.read(file, range),
            BytesAgain::Memory(bytes) => in_memory_range(bytes, file, range),
        }
    }
}

impl Loaded {
    /// Another source of the session's bodies, the same bytes as
    /// `source`, for reading bodies on several threads at once (each
    /// takes its own).
    pub fn another_source(&self) -> Inflated<BytesAgain<'_>> {
        let again = match self.source.inner() {
            Bytes::Files(files) => BytesAgain::Files(files.reopen()),
            Bytes::Memory(bytes) => BytesAgain::Memory(bytes),
        };
        Inflated::new(again, self.session.files())
    }
}

/// What [`locate`] found: the files to read, not yet read.
#[derive(Debug)]
pub struct Located {
    name: String,
    what: What,
}

#[derive(Debug)]
enum What {
    Stdin,
    /// Not a file or folder (a pipe such as `<(zcat s.jsonl.gz)`): it can
    /// be read only once, so bodies cannot be fetched from it later; it is
    /// kept in memory.
    Stream(PathBuf),
    Files(Vec<Input>),
}

/// Finds what `path` holds: a file (with its side-car, if any), the
/// session files of a folder, or a pipe.
pub fn locate(path: &Path) -> FileResult<Located> {
    let meta = std::fs::metadata(path).map_err(|e| FileError::from_io(e, path))?;
    let what = if meta.is_dir() {
        let mut sessions = sessions_in(path)?;
        match sessions.len() {
            0 => {
                return Err(FileError::NoSessionFiles {
                    dir: path.to_path_buf(),
                })
            }
            1 => What::Files(sessions.remove(0).inputs),
            _ => {
                return Err(FileError::SeveralSessions {
                    dir: path.to_path_buf(),
                    sessions: sessions.iter().map(|s| s.path().to_path_buf()).collect(),
                })
            }
        }
    } else if meta.is_file() {
        What::Files(session_of_file(path)?.inputs)
    } else {
        What::Stream(path.to_path_buf())
    };
    Ok(Located {
        name: path.display().to_string(),
        what,
    })
}

/// [`locate`] then [`Located::load`], with no progress.
pub fn load(path: &Path, options: &OpenOptions) -> FileResult<Loaded> {
    locate(path)?.load(options, None)
}

impl Located {
    /// Standard input, named `-`.
    pub fn stdin() -> Located {
        Located {
            name: "-".to_owned(),
            what: What::Stdin,
        }
    }

    /// A session found in a folder (see [`crate::sessions_in`]), named by
    /// its first file.
    pub fn found(session: FoundSession) -> Located {
        Located {
            name: session.path().display().to_string(),
            what: What::Files(session.inputs),
        }
    }

    /// The files that will be read, in order (none for standard input or
    /// a pipe).
    pub fn inputs(&self) -> &[Input] {
        match &self.what {
            What::Files(inputs) => inputs,
            What::Stdin | What::Stream(_) => &[],
        }
    }

    /// The bytes on disk of the files to read, for a progress bar (0 for
    /// standard input or a pipe, whose size is not known).
    pub fn size(&self) -> u64 {
        self.inputs()
            .iter()
            .filter_map(|i| std::fs::metadata(&i.path).ok())
            .map(|m| m.len())
            .sum()
    }

    /// Reads the session, telling `progress` the bytes read (files only).
    pub fn load(
        self,
        options: &OpenOptions,
        progress: Option<&dyn Progress>,
    ) -> FileResult<Loaded> {
        let inputs = match self.what {
            What::Stdin => {
                let mut bytes = Vec::new();
                std::io::stdin()
                    .lock()
                    .read_to_end(&mut bytes)
                    .map_err(|source| FileError::Stdin { source })?;
                refuse_binary(Path::new(&self.name), &bytes)?;
                return Ok(in_memory(self.name, bytes, options.reader));
            }
            What::Stream(path) => {
                let bytes = std::fs::read(&path).map_err(|e| FileError::from_io(e, &path))?;
                refuse_binary(&path, &bytes)?;
                return Ok(in_memory(self.name, bytes, options.reader));
            }
            What::Files(inputs) => inputs,
        };
        let session = open_files(&inputs, options, progress)?;
        let named = |p: &Option<PathBuf>| p.as_ref().map(|m| m.display().to_string());
        let side_cars = inputs.iter().map(|i| named(&i.meta)).collect();
        let snapshots = inputs.iter().map(|i| named(&i.snapshots)).collect();
        let source = Bytes::Files(FileSource::new(
            inputs.into_iter().map(|i| i.path).collect(),
        ));
        Ok(Loaded {
            name: self.name,
            source: Inflated::new(source, session.files()),
            session,
            side_cars,
            snapshots,
        })
    }
}

/// [`FileError::NotASession`] when `head` (a file's first bytes) shows
/// the file is no session (see `retrace_core::binary_kind`).
pub(crate) fn refuse_binary(path: &Path, head: &[u8]) -> FileResult<()> {
    match retrace_core::binary_kind(head) {
        Some(what) => Err(FileError::NotASession {
            path: path.to_path_buf(),
            what,
        }),
        None => Ok(()),
    }
}

fn in_memory(name: String, bytes: Vec<u8>, options: ReaderOptions) -> Loaded {
    let mut reader = Reader::with_options(options);
    reader.begin_file(&name);
    reader.push(&bytes);
    let session = reader.finish();
    Loaded {
        name,
        source: Inflated::new(Bytes::Memory(bytes), session.files()),
        session,
        side_cars: Vec::new(),
        snapshots: Vec::new(),
    }
}

/// A file, with its side-cars where they are: a Claude Code subagent's
/// `<stem>.meta.json` (see `retrace_core::side_car`) and its bookmarks,
/// `<file>.snapshots.json` (`x.jsonl.gz` takes `x.jsonl.snapshots.json`;
/// see `retrace_core::snapshot_side_car`).
pub fn with_side_car(path: &Path) -> Input {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let beside = |car: String| Some(path.with_file_name(car)).filter(|car| car.is_file());
    let meta = name.as_deref().and_then(side_car).and_then(beside);
    let snapshots = name.as_deref().map(snapshot_side_car).and_then(beside);
    Input {
        path: path.to_path_buf(),
        meta,
        snapshots,
    }
}

/// The files of a folder of sessions, as `retrace_core::order_files` picks
/// and orders them from the folder's names and those of each session's
/// `subagents` folder (`Listing::Folder`). Empty when none is a session
/// file.
pub fn folder_inputs(dir: &Path) -> FileResult<Vec<Input>> {
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
            snapshots: f.snapshots.map(|m| files[m].1.clone()),
        })
        .collect())
}

/// The files directly in `dir` (not its folders), in no order: each as its
/// name under `prefix` (`<session>/subagents/agent-a.jsonl`) and its path.
fn files_in(dir: &Path, prefix: &str) -> FileResult<Vec<(String, PathBuf)>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(rel)
    }

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("retrace-io-load-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_split_stream_is_read_in_part_order() {
        let inputs = folder_inputs(&fixture("events/split")).unwrap();
        let names: Vec<_> = inputs
            .iter()
            .map(|i| i.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        let mut want = vec!["events.jsonl".to_owned()];
        want.extend((1..=10).map(|n| format!("events_{n}.jsonl")));
        assert_eq!(names, want);
    }

    #[test]
    fn a_folder_with_no_session_file_says_so() {
        let dir = scratch("empty");
        std::fs::write(dir.join("notes.txt"), "not a session").unwrap();
        let err = locate(&dir).unwrap_err();
        assert!(matches!(err, FileError::NoSessionFiles { .. }), "{err}");
        assert_eq!(
            err.to_string(),
            format!(
                "cannot read {}: no session files (*.jsonl, *.json, gzipped or not) in this directory",
                dir.display()
            )
        );
    }

    #[test]
    fn a_file_loads_with_its_bodies() {
        let loaded = load(&fixture("events/events.jsonl"), &OpenOptions::default()).unwrap();
        assert_eq!(loaded.session.entries().len(), 9);
        assert_eq!(loaded.side_cars, vec![None]);
        let mut source = loaded.source;
        let first = loaded.session.entries()[0].clone();
        let body = source.read(first.file, first.range()).unwrap();
        assert!(body.starts_with(b"{\"event_type\":\"user_input\""));
    }

    #[test]
    fn a_file_or_a_folder_brings_its_snapshot_side_car() {
        use std::io::Write;

        use retrace_core::{BookmarkOrigin, DiagnosticKind};

        let dir = scratch("snapshots");
        let events = std::fs::read(fixture("events/events.jsonl")).unwrap();
        std::fs::write(dir.join("a.jsonl"), &events).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&events).unwrap();
        std::fs::write(dir.join("b.jsonl.gz"), gz.finish().unwrap()).unwrap();
        std::fs::write(
            dir.join("a.jsonl.snapshots.json"),
            r#"{"snapshots":[{"name":"start","target":"L2"}]}"#,
        )
        .unwrap();
        // The gzipped file's side-car is that of its plain name.
        std::fs::write(
            dir.join("b.jsonl.snapshots.json"),
            r#"{"snapshots":[{"name":"end","target":"L9"},{"name":"lost","target":"L99"}]}"#,
        )
        .unwrap();
        // (file, line, name, side-car) of each bookmark; the side-car
        // problems.
        let read = |path: &Path| {
            let loaded = load(path, &OpenOptions::default()).unwrap();
            let s = &loaded.session;
            let marks: Vec<(u16, u32, String, String)> = s
                .bookmarks()
                .iter()
                .map(|b| {
                    let BookmarkOrigin::SideCar(car) = &b.origin else {
                        panic!("{b:?} is no side-car's");
                    };
                    let car = Path::new(car).file_name().unwrap().to_string_lossy();
                    let e = s.entry(b.entry);
                    (e.file.0, e.line, b.name.clone(), car.into_owned())
                })
                .collect();
            let bad: Vec<String> = s
                .diagnostics()
                .iter()
                .filter(|d| d.kind == DiagnosticKind::BadBookmark)
                .map(|d| d.message.clone())
                .collect();
            (s.files().len(), marks, bad)
        };
        let start = (
            0,
            2,
            "start".to_owned(),
            "a.jsonl.snapshots.json".to_owned(),
        );
        assert_eq!(read(&dir.join("a.jsonl")), (1, vec![start.clone()], vec![]));
        let (files, marks, bad) = read(&dir.join("b.jsonl.gz"));
        let end = (9, "end".to_owned(), "b.jsonl.snapshots.json".to_owned());
        assert_eq!(
            (files, marks),
            (1, vec![(0, end.0, end.1.clone(), end.2.clone())])
        );
        assert_eq!(bad.len(), 1);
        let (car, what) = bad[0].split_once(": ").unwrap();
        assert!(
            car.ends_with("/b.jsonl.snapshots.json")
                && what.starts_with("bookmark \"lost\": ")
                && what.ends_with("/b.jsonl.gz has no entry on line 99"),
            "{bad:?}"
        );
        // A folder: two sessions, the side-cars with their files, not read
        // as sessions.
        let sessions = crate::sessions_in(&dir).unwrap();
        let cars: Vec<(String, String)> = sessions
            .iter()
            .map(|s| {
                let name = |p: &Path| p.file_name().unwrap().to_string_lossy().into_owned();
                let [one] = s.inputs.as_slice() else {
                    panic!("{s:?}")
                };
                (name(&one.path), name(one.snapshots.as_ref().unwrap()))
            })
            .collect();
        assert_eq!(
            cars,
            [
                ("a.jsonl".to_owned(), "a.jsonl.snapshots.json".to_owned()),
                ("b.jsonl.gz".to_owned(), end.2)
            ]
        );
        assert!(matches!(
            locate(&dir).unwrap_err(),
            FileError::SeveralSessions { sessions, .. } if sessions.len() == 2
        ));
    }

    #[test]
    fn a_missing_path_names_it() {
        let err = locate(Path::new("/no/such/session")).unwrap_err();
        assert_eq!(err.reason(), "no such file or directory");
        assert!(err.to_string().contains("/no/such/session"), "{err}");
    }
}
