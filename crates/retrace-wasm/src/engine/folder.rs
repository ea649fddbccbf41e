//! A dropped or picked folder: its files split into sessions by the core's
//! `split_sessions` (the rule `retrace list` follows), listed by name at
//! once, then each one's title, start and format read from the start of
//! its conversation file, a slice at a time between requests, so neither
//! the caller nor an open session waits on a folder of thousands.

use std::sync::Arc;

use retrace_core::redact::{RedactingSource, Rules};
use retrace_core::{
    needs_head, split_sessions, Inflated, Listed, Session, SessionFile, HEAD_BYTES,
};

use super::files::Files;
use crate::protocol::{EngineError, ErrorCode, FolderSession};

/// Bytes of a conversation file read for its line in the list: enough for
/// the first prompts of any format, little enough for thousands of files.
const LIST_BYTES: u64 = 256 << 10;

/// The last folder listed: its files and its sessions (indices into them).
pub struct Folder<F> {
    files: F,
    /// Each file's path under the folder.
    paths: Vec<String>,
    pub sessions: Vec<Vec<SessionFile>>,
    /// The sessions whose line has been read.
    titled: usize,
    rules: Arc<Rules>,
}

/// Whether `path` is passed over as `retrace list` passes it over: inside
/// a hidden folder, a git repository or `node_modules`.
fn passed_over(path: &str) -> bool {
    let mut folders = path.split('/').rev().skip(1);
    folders.any(|f| f.starts_with('.') || f.ends_with(".git") || f == "node_modules")
}

impl<F: Files> Folder<F> {
    /// Splits the files of a folder (`paths[i]` is file `i`'s path under
    /// it) into sessions, reading the first line of the few files the core
    /// asks for (a Claude Code 2.0 `agent-*.jsonl`, a Codex rollout; a
    /// gzipped one is grouped by its name).
    pub fn split(files: F, paths: &[String]) -> Result<Folder<F>, EngineError> {
        if files.count() != paths.len() {
            return Err(EngineError::bad_request(format!(
                "{} files and {} paths",
                files.count(),
                paths.len()
            )));
        }
        let kept: Vec<usize> = (0..paths.len())
            .filter(|&i| !passed_over(&paths[i]))
            .collect();
        let mut files = files.pick(&kept);
        let paths: Vec<String> = kept.iter().map(|&i| paths[i].clone()).collect();
        let mut heads: Vec<Option<Vec<u8>>> = Vec::with_capacity(paths.len());
        for (i, path) in paths.iter().enumerate() {
            let head = (needs_head(path) && !path.ends_with(".gz"))
                .then(|| {
                    let end = files.size(i).min(HEAD_BYTES as u64);
                    let bytes = files.read(i, 0..end).ok()?;
                    let line = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
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
            return Err(EngineError::new(
                ErrorCode::NotASession,
                format!(
                    "the folder {top} holds no session files (*.jsonl, *.json, gzipped or not) among its {} files",
                    files.count()
                ),
            ));
        }
        Ok(Folder {
            files,
            paths,
            sessions,
            titled: 0,
            rules: Arc::new(Rules::builtin()),
        })
    }

    /// The files of session `i` and their reading order, with indices
    /// into those files.
    pub fn session(&self, i: usize) -> Option<(F, Vec<SessionFile>)> {
        let session = self.sessions.get(i)?;
        let mut picked = Vec::new();
        let mut take = |at: usize| {
            picked.push(at);
            picked.len() - 1
        };
        let ordered = session
            .iter()
            .map(|f| SessionFile {
                file: take(f.file),
                meta: f.meta.map(&mut take),
                snapshots: f.snapshots.map(&mut take),
            })
            .collect();
        Some((self.files.pick(&picked), ordered))
    }

    /// The list shown first: each session by the path of its conversation
    /// file, with its file count and size.
    pub fn names(&self) -> Vec<FolderSession> {
        self.sessions
            .iter()
            .map(|s| FolderSession {
                name: self.paths[s[0].file].clone(),
                files: s.len() as u32,
                size: s.iter().map(|f| self.files.size(f.file)).sum(),
            })
            .collect()
    }

    /// Whether every session's line has been read.
    pub fn titled(&self) -> bool {
        self.titled >= self.sessions.len()
    }

    /// Reads the lines of the next sessions until `go_on` says stop (it is
    /// asked after each), at least one: (session, line) for each that is a
    /// session.
    pub fn titles(&mut self, mut go_on: impl FnMut() -> bool) -> Vec<(u32, Listed)> {
        let mut batch = Vec::new();
        while !self.titled() {
            let i = self.titled;
            self.titled += 1;
            let file = self.sessions[i][0].file;
            let size = self.files.size(file);
            let name = self.files.name(file);
            let name = name.rsplit('/').next().unwrap_or(&name).to_owned();
            if let Ok(bytes) = self.files.read(file, 0..size.min(LIST_BYTES)) {
                let bytes = bytes.into_owned();
                if let Some(line) = listed(&name, &bytes, size > LIST_BYTES, &self.rules) {
                    batch.push((i as u32, line));
                }
            }
            if !go_on() {
                break;
            }
        }
        batch
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
