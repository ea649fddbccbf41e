//! A dropped folder on the worker side: its files split into sessions by
//! the core's `split_sessions` (the rule `retrace list` follows), listed by
//! name at once, then each one's title, start and format read from the
//! start of its conversation file, a few at a time, so neither the page nor
//! the worker waits on a folder of thousands.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use js_sys::Uint8Array;
use retrace_core::redact::{RedactingSource, Rules};
use retrace_core::{
    needs_head, split_sessions, Inflated, Listed, Session, SessionFile, HEAD_BYTES,
};
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, FileReaderSync};

use crate::protocol::{FolderSession, Response};

/// Bytes of a conversation file read for its line in the list: enough for
/// the first prompts of any format, little enough for thousands of files.
const LIST_BYTES: f64 = (256 << 10) as f64;
/// Milliseconds between two batches of titles sent to the page.
const BATCH_MS: f64 = 100.0;

/// The last folder dropped: its files and its sessions (indices into them).
pub struct Folder {
    files: Vec<File>,
    /// Each file's path under the folder.
    paths: Vec<String>,
    pub sessions: Vec<Vec<SessionFile>>,
}

thread_local! {
    static FOLDER: RefCell<Option<Rc<Folder>>> = const { RefCell::new(None) };
    /// Counts folders, so the titles of a folder replaced by another stop.
    static LISTING: Cell<u64> = const { Cell::new(0) };
}

/// Whether `path` is passed over as `retrace list` passes it over: inside
/// a hidden folder, a git repository or `node_modules`.
fn passed_over(path: &str) -> bool {
    let mut folders = path.split('/').rev().skip(1);
    folders.any(|f| f.starts_with('.') || f.ends_with(".git") || f == "node_modules")
}

/// Splits the files of a folder (`paths[i]` is `files[i]`'s path under
/// it) into sessions, reading the first line of the few files the core
/// asks for (a Claude Code 2.0 `agent-*.jsonl`, a Codex rollout; a gzipped
/// one is grouped by its name).
pub fn split(
    files: Vec<File>,
    paths: &[String],
    reader: &FileReaderSync,
) -> Result<Folder, String> {
    if files.len() != paths.len() {
        return Err(format!("{} files and {} paths", files.len(), paths.len()));
    }
    let (files, paths): (Vec<File>, Vec<String>) = files
        .into_iter()
        .zip(paths.iter().cloned())
        .filter(|(_, p)| !passed_over(p))
        .unzip();
    let mut heads: Vec<Option<Vec<u8>>> = Vec::with_capacity(files.len());
    let mut buf = Vec::new();
    for (file, path) in files.iter().zip(&paths) {
        let head = (needs_head(path) && !path.ends_with(".gz"))
            .then(|| {
                let end = file.size().min(HEAD_BYTES as f64);
                crate::worker::read_slice(reader, file, 0.0, end, &mut buf).ok()?;
                let line = buf.split(|&b| b == b'\n').next().unwrap_or_default();
                Some(line.to_vec())
            })
            .flatten();
        heads.push(head);
    }
    let heads: Vec<Option<&[u8]>> = heads.iter().map(Option::as_deref).collect();
    let sessions = split_sessions(&paths, &heads);
    if sessions.is_empty() {
        let top = paths
            .first()
            .and_then(|p| p.split('/').next())
            .unwrap_or("");
        return Err(format!(
            "the folder {top} holds no session files (*.jsonl, *.json, gzipped or not) among its {} files",
            files.len()
        ));
    }
    Ok(Folder {
        files,
        paths,
        sessions,
    })
}

impl Folder {
    /// The files of session `i` and their reading order, with indices
    /// into those files.
    pub fn session(&self, i: usize) -> Option<(Vec<File>, Vec<SessionFile>)> {
        let session = self.sessions.get(i)?;
        let mut files = Vec::new();
        let mut take = |at: usize| {
            files.push(self.files[at].clone());
            files.len() - 1
        };
        let ordered = session
            .iter()
            .map(|f| SessionFile {
                file: take(f.file),
                meta: f.meta.map(&mut take),
                snapshots: f.snapshots.map(&mut take),
            })
            .collect();
        Some((files, ordered))
    }

    /// The list the page shows first: each session by the path of its
    /// conversation file, with its file count and size.
    fn names(&self) -> Vec<FolderSession> {
        self.sessions
            .iter()
            .map(|s| FolderSession {
                name: self.paths[s[0].file].clone(),
                files: s.len() as u32,
                size: s.iter().map(|f| self.files[f.file].size() as u64).sum(),
            })
            .collect()
    }
}

/// Keeps `folder` as the one [`Request::OpenListed`] picks from, answers
/// with its sessions by name, and reads their titles in the background.
///
/// [`Request::OpenListed`]: crate::protocol::Request::OpenListed
pub fn list(folder: Folder) -> Response {
    let names = folder.names();
    let folder = Rc::new(folder);
    FOLDER.with(|f| *f.borrow_mut() = Some(folder.clone()));
    let generation = LISTING.with(|g| {
        g.set(g.get() + 1);
        g.get()
    });
    wasm_bindgen_futures::spawn_local(titles(folder, generation));
    Response::Folder { sessions: names }
}

/// The last folder listed.
pub fn current() -> Option<Rc<Folder>> {
    FOLDER.with(|f| f.borrow().clone())
}

/// Forgets the listed folder (a file dropped on its own replaces it).
pub fn forget() {
    FOLDER.with(|f| f.borrow_mut().take());
    LISTING.with(|g| g.set(g.get() + 1));
}

/// Reads each session's line ([`Listed`]) from the start of its
/// conversation file and posts them in batches; stops when another folder
/// is dropped. Each read is awaited, so requests about an open session are
/// answered in between.
async fn titles(folder: Rc<Folder>, generation: u64) {
    let rules = Arc::new(Rules::builtin());
    let mut batch = Vec::new();
    let mut sent = crate::worker::now_ms();
    let mut buf = Vec::new();
    for (i, session) in folder.sessions.iter().enumerate() {
        let file = &folder.files[session[0].file];
        let size = file.size();
        let Ok(blob) = file.slice_with_f64_and_f64(0.0, size.min(LIST_BYTES)) else {
            continue;
        };
        let Ok(array) = JsFuture::from(blob.array_buffer()).await else {
            continue;
        };
        if LISTING.with(Cell::get) != generation {
            return;
        }
        let bytes = Uint8Array::new(&array);
        buf.resize(bytes.length() as usize, 0);
        bytes.copy_to(&mut buf);
        if let Some(listed) = listed(&file.name(), &buf, size > LIST_BYTES, &rules) {
            batch.push((i as u32, listed));
        }
        let last = i + 1 == folder.sessions.len();
        if last || crate::worker::now_ms() - sent > BATCH_MS {
            sent = crate::worker::now_ms();
            crate::worker::post(&Response::Listed {
                listed: std::mem::take(&mut batch),
            });
        }
    }
}

/// The line of a session from the start of its file (`cut` when the file
/// goes on: its last, partial line is left out), titles redacted as the
/// viewer shows text by default. `None` for what is no session.
fn listed(name: &str, bytes: &[u8], cut: bool, rules: &Arc<Rules>) -> Option<Listed> {
    if retrace_core::binary_kind(bytes).is_some() {
        return None;
    }
    let plain = !name.ends_with(".gz");
    let bytes = match bytes.iter().rposition(|&b| b == b'\n') {
        Some(end) if cut && plain => &bytes[..=end],
        _ => bytes,
    };
    let session = Session::from_bytes(name, bytes);
    let mut source = Inflated::new(bytes, session.files());
    let mut redacting = RedactingSource::new(&mut source, rules.clone());
    Listed::new(&session, &mut redacting).ok()
}
