//! The catalog's cache on disk: what each session's reading gave, keyed
//! by its files' paths, sizes and modification times, so a second start
//! reads only the sessions whose files changed. One JSON file per set of
//! roots (their paths hashed into its name), written atomically; a cache
//! that cannot be read is started afresh (and said so), never trusted in
//! part.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Entry, Read, ServedFile};
use crate::roots::Root;

/// Bumped when what a reading gives changes, so an older cache is read
/// again rather than shown.
const VERSION: u32 = 1;

/// One session as the cache holds it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CachedSession {
    pub files: Vec<ServedFile>,
    pub read: Result<Read, String>,
}

#[derive(Serialize, Deserialize)]
struct Document {
    version: u32,
    sessions: Vec<CachedSession>,
}

/// Readings by their session's first file.
#[derive(Debug, Clone, Default)]
pub struct Cache {
    sessions: HashMap<PathBuf, CachedSession>,
}

impl Cache {
    /// The cache of a catalog's entries.
    pub fn of(entries: &[Entry]) -> Cache {
        Cache {
            sessions: entries
                .iter()
                .map(|e| {
                    let cached = CachedSession {
                        files: e.files.clone(),
                        read: e.read.clone(),
                    };
                    (e.path().to_path_buf(), cached)
                })
                .collect(),
        }
    }

    /// The reading of a session made of exactly `files` (the same paths,
    /// sizes and modification times), if held.
    pub fn get(&self, files: &[ServedFile]) -> Option<&Result<Read, String>> {
        let cached = self.sessions.get(&files.first()?.path)?;
        (cached.files == files).then_some(&cached.read)
    }

    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// The cache in `file`: empty when there is none; on a file that
    /// cannot be read or is of another version, empty and why.
    pub fn load(file: &Path) -> (Cache, Option<String>) {
        let bytes = match std::fs::read(file) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Cache::default(), None),
            Err(e) => return (Cache::default(), Some(format!("{}: {e}", file.display()))),
        };
        match serde_json::from_slice::<Document>(&bytes) {
            Ok(doc) if doc.version == VERSION => {
                let sessions = doc
                    .sessions
                    .into_iter()
                    .filter(|s| !s.files.is_empty())
                    .map(|s| (s.files[0].path.clone(), s))
                    .collect();
                (Cache { sessions }, None)
            }
            Ok(doc) => (
                Cache::default(),
                Some(format!(
                    "{}: a cache of version {}, not {VERSION}; reading every session again",
                    file.display(),
                    doc.version
                )),
            ),
            Err(e) => (
                Cache::default(),
                Some(format!(
                    "{}: not a cache ({e}); reading every session again",
                    file.display()
                )),
            ),
        }
    }

    /// Writes the cache to `file` atomically (its folder made).
    pub fn save(&self, file: &Path) -> Result<(), String> {
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let mut sessions: Vec<&CachedSession> = self.sessions.values().collect();
        sessions.sort_by(|a, b| a.files[0].path.cmp(&b.files[0].path));
        let doc = serde_json::json!({ "version": VERSION, "sessions": sessions });
        let bytes = serde_json::to_vec(&doc).map_err(|e| e.to_string())?;
        retrace_io::write_atomically(file, &bytes).map_err(|e| e.to_string())
    }
}

/// The cache file of a set of roots under the cache folder `dir`.
pub fn file_for(dir: &Path, roots: &[Root]) -> PathBuf {
    let mut hash = sha1_smol::Sha1::new();
    for root in roots {
        hash.update(root.path.as_os_str().as_encoded_bytes());
        hash.update(b"\0");
    }
    let digest = hash.digest().to_string();
    dir.join(format!("serve-catalog-{}.json", &digest[..16]))
}
