//! The catalog: every session found under the roots, each with what the
//! index page shows of it (the core's `Listed`: first typed prompt, times,
//! format, entries; its branches, its size and project) and the files it
//! is served as, by an opaque id.
//!
//! Which files make one session is retrace-io's `sessions_in` (the core's
//! `split_sessions`: a Claude Code session with its subagent runs is one
//! session). Each session is read on as many threads as there are cores,
//! unless the cache ([`cache`]) holds it with the same files, sizes and
//! modification times: a second start re-reads only what changed.

pub mod cache;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::UNIX_EPOCH;

use retrace_core::redact::{RedactingSource, Rules};
use retrace_core::{Listed, ReaderOptions};
use retrace_io::{sessions_in, FoundSession, Located, OpenOptions};
use serde::{Deserialize, Serialize};

use crate::roots::{project_of, Root};
pub use cache::{Cache, CachedSession};

/// A file of a session as it is served: the name the viewer is given
/// (relative to the session's first file: `S.jsonl`,
/// `S/subagents/agent-1.jsonl`), its path (never sent), its size and
/// modification time when it was looked at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServedFile {
    pub name: String,
    pub path: PathBuf,
    pub size: u64,
    /// Nanoseconds since the Unix epoch.
    pub mtime: u128,
}

/// One session of the catalog.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Opaque: the first 16 hex digits of the SHA-1 of its first file's
    /// path. The only way a request names a session.
    pub id: String,
    pub project: String,
    /// Its conversation's file first, then its subagent runs and the
    /// side-cars of each.
    pub files: Vec<ServedFile>,
    /// What was read of it, or why it could not be read.
    pub read: Result<Read, String>,
    /// Its files as retrace-io found them (to read it again: a search).
    pub found: FoundSession,
}

/// What a session's reading gave: the index page's line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Read {
    /// Its title read with sensitive data hidden, as the viewer shows it.
    pub listed: Listed,
    /// Branch ends a person could pick.
    pub branches: usize,
}

impl Entry {
    /// The path that names it (its conversation's file).
    pub fn path(&self) -> &Path {
        &self.files[0].path
    }

    /// Bytes on disk of all its files.
    pub fn size(&self) -> u64 {
        self.files.iter().map(|f| f.size).sum()
    }

    /// The newest time it holds (for sorting), else 0.
    pub fn last_time(&self) -> i64 {
        match &self.read {
            Ok(r) => r.listed.end.or(r.listed.start).unwrap_or(0),
            Err(_) => 0,
        }
    }
}

/// The sessions under the roots, newest first.
#[derive(Debug, Default)]
pub struct Catalog {
    pub entries: Vec<Entry>,
    by_id: HashMap<String, usize>,
    /// Roots that could not be walked, and why.
    pub problems: Vec<String>,
}

/// What a build of the catalog did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Built {
    /// Sessions read from their files.
    pub read: usize,
    /// Sessions taken from the cache unchanged.
    pub reused: usize,
}

impl Catalog {
    /// Walks `roots` and reads every session that `previous` does not
    /// hold unchanged, on `threads` threads, with `reader`'s options.
    pub fn build(
        roots: &[Root],
        previous: &Cache,
        threads: usize,
        reader: ReaderOptions,
    ) -> (Catalog, Built) {
        let mut problems = Vec::new();
        let mut found: Vec<(String, FoundSession)> = Vec::new();
        for root in roots {
            let sessions = match root.path.is_file() {
                true => retrace_io::session_of_file(&root.path).map(|s| vec![s]),
                false => sessions_in(&root.path),
            };
            match sessions {
                Ok(sessions) => found.extend(
                    sessions
                        .into_iter()
                        .map(|s| (project_of(root, s.path()), s)),
                ),
                Err(e) => problems.push(format!("{}: {}", root.path.display(), e.reason())),
            }
        }
        // A folder named twice (or inside another) lists its sessions once.
        let mut seen = std::collections::HashSet::new();
        found.retain(|(_, s)| seen.insert(s.path().to_path_buf()));
        let stamped: Vec<(String, FoundSession, Vec<ServedFile>)> = found
            .into_iter()
            .map(|(project, s)| {
                let files = served_files(&s);
                (project, s, files)
            })
            .collect();
        let mut built = Built::default();
        let mut todo = Vec::new();
        let mut reads: Vec<Option<Result<Read, String>>> = Vec::with_capacity(stamped.len());
        for (i, (_, _, files)) in stamped.iter().enumerate() {
            match previous.get(files) {
                Some(read) => {
                    built.reused += 1;
                    reads.push(Some(read.clone()));
                }
                None => {
                    todo.push(i);
                    reads.push(None);
                }
            }
        }
        built.read = todo.len();
        let fresh = read_all(&todo, &stamped, threads, reader);
        for (i, read) in todo.into_iter().zip(fresh) {
            reads[i] = Some(read);
        }
        let mut entries: Vec<Entry> = stamped
            .into_iter()
            .zip(reads)
            .map(|((project, found, files), read)| Entry {
                id: id_of(&files[0].path),
                project,
                files,
                read: read.unwrap_or_else(|| Err("not read".to_owned())),
                found,
            })
            .collect();
        entries.sort_by(|a, b| {
            b.last_time()
                .cmp(&a.last_time())
                .then_with(|| a.path().cmp(b.path()))
        });
        let by_id = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.clone(), i))
            .collect();
        let catalog = Catalog {
            entries,
            by_id,
            problems,
        };
        (catalog, built)
    }

    /// The session an id names, if the catalog holds it.
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.by_id.get(id).map(|&i| &self.entries[i])
    }

    /// What the cache should hold for the next start.
    pub fn cache(&self) -> Cache {
        Cache::of(&self.entries)
    }
}

/// The opaque id of a session whose first file is `path`.
pub fn id_of(path: &Path) -> String {
    let digest = sha1_smol::Sha1::from(path.as_os_str().as_encoded_bytes())
        .digest()
        .to_string();
    digest[..16].to_owned()
}

/// A found session's files (and their side-cars) with their sizes and
/// modification times; a file that cannot be looked at has size 0.
fn served_files(session: &FoundSession) -> Vec<ServedFile> {
    let base = session.path().parent().unwrap_or(Path::new(""));
    let mut paths: Vec<&Path> = Vec::new();
    for input in &session.inputs {
        paths.push(&input.path);
        paths.extend(input.meta.as_deref());
        paths.extend(input.snapshots.as_deref());
    }
    paths
        .into_iter()
        .map(|path| {
            let meta = std::fs::metadata(path).ok();
            let name = path.strip_prefix(base).unwrap_or(path);
            ServedFile {
                name: name.to_string_lossy().replace('\\', "/"),
                path: path.to_path_buf(),
                size: meta.as_ref().map_or(0, |m| m.len()),
                mtime: meta
                    .and_then(|m| m.modified().ok())
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos()),
            }
        })
        .collect()
}

/// Reads the sessions at `which`, on `threads` threads, in that order.
fn read_all(
    which: &[usize],
    sessions: &[(String, FoundSession, Vec<ServedFile>)],
    threads: usize,
    reader: ReaderOptions,
) -> Vec<Result<Read, String>> {
    let workers = threads.max(1).min(which.len().max(1));
    let next = AtomicUsize::new(0);
    let rules = Arc::new(Rules::builtin());
    let results: Mutex<Vec<Option<Result<Read, String>>>> =
        Mutex::new((0..which.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(&i) = which.get(n) else { break };
                let read = read_one(&sessions[i].1, &rules, reader);
                results.lock().expect("no worker panics holding it")[n] = Some(read);
            });
        }
    });
    results
        .into_inner()
        .expect("no worker panicked")
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("not read".to_owned())))
        .collect()
}

/// One session's line, its title read with sensitive data hidden; why
/// not, in words.
fn read_one(
    session: &FoundSession,
    rules: &Arc<Rules>,
    reader: ReaderOptions,
) -> Result<Read, String> {
    let options = OpenOptions {
        // Sessions are read side by side already.
        threads: 1,
        reader,
        ..OpenOptions::default()
    };
    let mut loaded = Located::found(session.clone())
        .load(&options, None)
        .map_err(|e| e.reason())?;
    let mut shown = RedactingSource::new(&mut loaded.source, rules.clone());
    let listed = Listed::new(&loaded.session, &mut shown).map_err(|e| e.to_string())?;
    Ok(Read {
        listed,
        branches: loaded.session.tree().tips().len(),
    })
}
