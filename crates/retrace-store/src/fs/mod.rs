//! [`FsStore`]: sessions as folders, `{root}/{id}/`:
//!
//! - `meta.json`: [`SessionMeta`], the truth about a session; its mtime is
//!   its `last_active_time` (for `ls -t`).
//! - `config_snapshot.json`: the configuration at creation.
//! - `{key}.json` (`state.json` by default): a state value alone, with its
//!   version beside it in `{key}.json.version` (see `state.rs`).
//! - `{key}.jsonl`: an append-only list, one JSON value a line.
//! - `events.jsonl`, `events_1.jsonl`, …: the event log (`event_log`).
//! - `.lock`: the writer's advisory lock; `.save.lock`: held for the
//!   moment of a read-modify-write of meta or state.
//!
//! And in the root, `.activity/`: the index that lists sessions by
//! activity without reading every meta (see `list.rs`).
//!
//! Meta and state files are replaced atomically (temporary file, fsync,
//! rename, directory fsync); lists and events only grow by appending.

mod list;
mod state;

use std::fs::{self, File, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use retrace_io::AtomicFile;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{StoreError, StoreResult};
use crate::event_log;
use crate::id::SessionId;
use crate::store::{
    refuse_version_zero, EventSink, EventsRead, ListQuery, LogOptions, LogProblem, Page,
    SessionLock, SessionMeta, SessionStore, StateKey, StateKeys, StoredEvent, Versioned,
};

use state::VersionFile;

const META: &str = "meta.json";
const CONFIG: &str = "config_snapshot.json";
const LOCK: &str = ".lock";
const SAVE_LOCK: &str = ".save.lock";

/// Sessions kept as folders under a root (the CLI's is `./sessions`).
#[derive(Debug, Clone)]
pub struct FsStore {
    root: PathBuf,
}

/// What a [`SessionLock`] of an [`FsStore`] holds: the locked `.lock` file
/// (closing it releases the lock).
struct FsLock {
    _file: File,
}

impl FsStore {
    /// Opens the store at `root`, creating the folder if need be.
    pub fn open(root: impl AsRef<Path>) -> StoreResult<FsStore> {
        let root = root.as_ref().to_path_buf();
        fs::create_dir_all(&root).map_err(|e| StoreError::io("cannot create", &root, e))?;
        // The index is derived: a store that cannot hold it (read-only)
        // still lists, from the metas.
        let index = root.join(list::INDEX);
        if let Err(e) = fs::create_dir_all(&index) {
            log::debug!("{}: no activity index ({e})", index.display());
        }
        Ok(FsStore { root })
    }

    /// The store's folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A session's folder (whether or not it exists). Only a [`SessionId`]
    /// ever becomes a path, so no id leaves the root.
    pub fn session_dir(&self, id: &SessionId) -> PathBuf {
        self.root.join(id.as_str())
    }

    /// The folder of a session that exists, or [`StoreError::NotFound`].
    fn existing(&self, id: &SessionId) -> StoreResult<PathBuf> {
        let dir = self.session_dir(id);
        if dir.join(META).is_file() {
            Ok(dir)
        } else {
            Err(StoreError::NotFound { id: id.to_string() })
        }
    }

    fn write_meta(&self, dir: &Path, meta: &SessionMeta) -> StoreResult<()> {
        let mut bytes = to_json(meta, &dir.join(META))?;
        bytes.push(b'\n');
        replace(
            &dir.join(META),
            &bytes,
            Some(SystemTime::from(meta.last_active_time)),
        )
    }

    /// Takes the session's `.lock` without waiting.
    fn try_lock_dir(&self, id: &SessionId, dir: &Path) -> StoreResult<File> {
        let path = dir.join(LOCK);
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| StoreError::io("cannot open the lock file", &path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = (&file).read_to_string(&mut holder);
                let holder = match holder.trim() {
                    "" => format!("lock file {}", path.display()),
                    who => format!("lock file {}, taken by {who}", path.display()),
                };
                return Err(StoreError::SessionBusy {
                    id: id.to_string(),
                    holder,
                });
            }
            Err(TryLockError::Error(e)) => return Err(StoreError::io("cannot lock", &path, e)),
        }
        // Who holds it, for the next one's error message (best effort: the
        // lock is what counts).
        let _ = file.set_len(0).and_then(|()| {
            (&file).seek(SeekFrom::Start(0))?;
            (&file).write_all(format!("pid {}\n", std::process::id()).as_bytes())
        });
        Ok(file)
    }
}

/// Holds `.save.lock` for a read-modify-write, so two savers (threads or
/// processes) never both pass a version check.
fn save_guard(dir: &Path) -> StoreResult<File> {
    let path = dir.join(SAVE_LOCK);
    let file = File::options()
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| StoreError::io("cannot open the lock file", &path, e))?;
    file.lock()
        .map_err(|e| StoreError::io("cannot lock", &path, e))?;
    Ok(file)
}

/// Replaces `path` atomically, with its mtime set to `mtime`.
fn replace(path: &Path, bytes: &[u8], mtime: Option<SystemTime>) -> StoreResult<()> {
    let to_store = |e: retrace_io::FileError| StoreError::Io {
        action: "cannot replace",
        path: path.to_path_buf(),
        source: io::Error::other(e.to_string()),
    };
    let mut file = AtomicFile::create(path).map_err(to_store)?;
    file.write_all(bytes)
        .map_err(|e| StoreError::io("cannot write", path, e))?;
    if let Some(t) = mtime {
        file.set_modified(t).map_err(to_store)?;
    }
    file.commit().map_err(to_store)
}

/// A file's bytes, `None` if it does not exist.
fn read_opt(path: &Path) -> StoreResult<Option<Vec<u8>>> {
    match fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(StoreError::io("cannot read", path, e)),
    }
}

fn parse<T: DeserializeOwned>(bytes: &[u8], path: &Path) -> StoreResult<T> {
    serde_json::from_slice(bytes).map_err(|e| StoreError::Corrupt {
        path: path.display().to_string(),
        reason: format!("not the JSON expected here: {e}"),
    })
}

fn read_json<T: DeserializeOwned>(path: &Path) -> StoreResult<T> {
    let bytes = fs::read(path).map_err(|e| StoreError::io("cannot read", path, e))?;
    parse(&bytes, path)
}

fn to_json<T: serde::Serialize + ?Sized>(value: &T, path: &Path) -> StoreResult<Vec<u8>> {
    serde_json::to_vec_pretty(value).map_err(|e| StoreError::Corrupt {
        path: path.display().to_string(),
        reason: format!("cannot be written as JSON: {e}"),
    })
}

impl SessionStore for FsStore {
    fn create(&self, meta: &SessionMeta, config: &Value) -> StoreResult<()> {
        let dir = self.session_dir(&meta.session_id);
        match fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(StoreError::Exists {
                    id: meta.session_id.to_string(),
                })
            }
            Err(e) => return Err(StoreError::io("cannot create", &dir, e)),
        }
        // meta.json last: a folder without it is not (yet) a session.
        let written = retrace_io::sync_dir(&self.root)
            .map_err(|e| StoreError::io("cannot sync", &self.root, e))
            .and_then(|()| {
                let path = dir.join(CONFIG);
                let mut bytes = to_json(config, &path)?;
                bytes.push(b'\n');
                replace(&path, &bytes, None)
            })
            .and_then(|()| self.write_meta(&dir, meta));
        if written.is_ok() {
            list::mark(&self.root, &meta.session_id, meta.last_active_time);
        } else {
            // Our own fresh folder, holding nothing of anyone's.
            let _ = fs::remove_dir_all(&dir);
        }
        written
    }

    fn exists(&self, id: &SessionId) -> StoreResult<bool> {
        let path = self.session_dir(id).join(META);
        match fs::metadata(&path) {
            Ok(m) => Ok(m.is_file()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(StoreError::io("cannot read", &path, e)),
        }
    }

    fn meta(&self, id: &SessionId) -> StoreResult<SessionMeta> {
        let dir = self.existing(id)?;
        read_json(&dir.join(META))
    }

    fn touch(&self, id: &SessionId, at: DateTime<Utc>) -> StoreResult<()> {
        let dir = self.existing(id)?;
        let _guard = save_guard(&dir)?;
        let mut meta: SessionMeta = read_json(&dir.join(META))?;
        // Activity never goes back (touches may arrive out of order).
        if at > meta.last_active_time {
            // New index name, meta, then the old name goes (see `list.rs`).
            let old = meta.last_active_time;
            list::mark(&self.root, id, at);
            meta.last_active_time = at;
            self.write_meta(&dir, &meta)?;
            list::unmark(&self.root, id, old);
        }
        Ok(())
    }

    fn list(&self, query: &ListQuery) -> StoreResult<Page<SessionMeta>> {
        list::list(&self.root, query)
    }

    fn config_snapshot(&self, id: &SessionId) -> StoreResult<Value> {
        let dir = self.existing(id)?;
        read_json(&dir.join(CONFIG))
    }

    fn load_state(&self, id: &SessionId, key: &StateKey) -> StoreResult<Option<Versioned<Value>>> {
        let dir = self.existing(id)?;
        let path = dir.join(format!("{}.json", key.as_str()));
        let vpath = dir.join(format!("{}.json.version", key.as_str()));
        // The value first, then its version file: a save in between leaves
        // this value as `previous` there, so it still gets its own version.
        let Some(bytes) = read_opt(&path)? else {
            return Ok(None);
        };
        let vfile: Option<VersionFile> =
            read_opt(&vpath)?.map(|b| parse(&b, &vpath)).transpose()?;
        let value = parse(&bytes, &path)?;
        Ok(Some(Versioned {
            value,
            version: state::version_of(Some(&bytes), vfile.as_ref()),
        }))
    }

    fn save_state(
        &self,
        id: &SessionId,
        key: &StateKey,
        value: &Value,
        expected: Option<u64>,
    ) -> StoreResult<u64> {
        let dir = self.existing(id)?;
        let path = dir.join(format!("{}.json", key.as_str()));
        let vpath = dir.join(format!("{}.json.version", key.as_str()));
        let mut bytes = to_json(value, &path)?;
        bytes.push(b'\n');
        let _guard = save_guard(&dir)?;
        let old = read_opt(&path)?;
        let vfile: Option<VersionFile> =
            read_opt(&vpath)?.map(|b| parse(&b, &vpath)).transpose()?;
        let stored = state::version_of(old.as_deref(), vfile.as_ref());
        if let Some(expected) = expected {
            if expected != stored {
                return Err(StoreError::Conflict {
                    id: id.to_string(),
                    expected,
                    actual: stored,
                });
            }
        }
        let next = state::next(old.as_deref(), stored, vfile.as_ref(), &bytes);
        let mut vbytes = to_json(&next, &vpath)?;
        vbytes.push(b'\n');
        // The version file first: see `state.rs`.
        replace(&vpath, &vbytes, None)?;
        replace(&path, &bytes, None)?;
        Ok(next.current.version)
    }

    fn import_state(
        &self,
        id: &SessionId,
        key: &StateKey,
        value: &Versioned<Value>,
    ) -> StoreResult<()> {
        let dir = self.existing(id)?;
        let path = dir.join(format!("{}.json", key.as_str()));
        let vpath = dir.join(format!("{}.json.version", key.as_str()));
        refuse_version_zero(id, key, value.version)?;
        let mut bytes = to_json(&value.value, &path)?;
        bytes.push(b'\n');
        let _guard = save_guard(&dir)?;
        let old = read_opt(&path)?;
        let vfile: Option<VersionFile> =
            read_opt(&vpath)?.map(|b| parse(&b, &vpath)).transpose()?;
        // A value file deleted by hand leaves its numbers taken.
        let taken = state::version_of(old.as_deref(), vfile.as_ref())
            .max(vfile.as_ref().map_or(0, |f| f.current.version));
        if taken != 0 {
            return Err(StoreError::Conflict {
                id: id.to_string(),
                expected: 0,
                actual: taken,
            });
        }
        let file = state::imported(value.version, &bytes);
        let mut vbytes = to_json(&file, &vpath)?;
        vbytes.push(b'\n');
        replace(&vpath, &vbytes, None)?;
        replace(&path, &bytes, None)
    }

    fn state_keys(&self, id: &SessionId) -> StoreResult<StateKeys> {
        let dir = self.existing(id)?;
        let cannot = |e| StoreError::io("cannot list", &dir, e);
        let mut keys = StateKeys::default();
        for entry in fs::read_dir(&dir).map_err(cannot)? {
            let name = entry.map_err(cannot)?.file_name();
            let Some(name) = name.to_str() else { continue };
            // The store's own names (meta, config_snapshot, events_N) are
            // no keys: `StateKey::parse` refuses them.
            let (stem, into) = if let Some(stem) = name.strip_suffix(".jsonl") {
                (stem, &mut keys.lists)
            } else if let Some(stem) = name.strip_suffix(".json") {
                (stem, &mut keys.values)
            } else {
                continue;
            };
            if let Ok(key) = StateKey::parse(stem) {
                into.push(key);
            }
        }
        keys.values.sort();
        keys.lists.sort();
        Ok(keys)
    }

    fn append_list(&self, id: &SessionId, key: &StateKey, items: &[Value]) -> StoreResult<()> {
        let dir = self.existing(id)?;
        let path = dir.join(format!("{}.jsonl", key.as_str()));
        let mut buf = Vec::new();
        for item in items {
            serde_json::to_writer(&mut buf, item).map_err(|e| StoreError::Corrupt {
                path: path.display().to_string(),
                reason: format!("an item cannot be written as JSON: {e}"),
            })?;
            buf.push(b'\n');
        }
        if buf.is_empty() {
            return Ok(());
        }
        let _guard = save_guard(&dir)?;
        let cannot = |e| StoreError::io("cannot append to", &path, e);
        let mut file = File::options()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(cannot)?;
        let len = file.metadata().map_err(cannot)?.len();
        if len == 0 {
            // A new file: its name must survive a crash too.
            retrace_io::sync_dir(&dir).map_err(|e| StoreError::io("cannot sync", &dir, e))?;
        } else {
            // A crash may have cut the last line short: end it, so the new
            // items start on their own line and the cut one stays readable
            // (and reported) as it was.
            let mut last = [0u8];
            file.seek(SeekFrom::Start(len - 1)).map_err(cannot)?;
            file.read_exact(&mut last).map_err(cannot)?;
            if last[0] != b'\n' {
                buf.insert(0, b'\n');
            }
        }
        // One write of whole lines, then durable.
        file.write_all(&buf).map_err(cannot)?;
        file.sync_data().map_err(cannot)
    }

    fn read_list(&self, id: &SessionId, key: &StateKey) -> StoreResult<Vec<Value>> {
        let dir = self.existing(id)?;
        let path = dir.join(format!("{}.jsonl", key.as_str()));
        let Some(bytes) = read_opt(&path)? else {
            return Ok(Vec::new());
        };
        let mut items = Vec::new();
        for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice(line) {
                Ok(v) => items.push(v),
                // Kept in the file; reported, not fatal.
                Err(e) => log::warn!(
                    "{}:{}: skipped a line that is not JSON ({e})",
                    path.display(),
                    n + 1
                ),
            }
        }
        Ok(items)
    }

    fn lock(&self, id: &SessionId) -> StoreResult<SessionLock> {
        let dir = self.existing(id)?;
        let file = self.try_lock_dir(id, &dir)?;
        Ok(SessionLock(Box::new(FsLock { _file: file })))
    }

    fn repair_events(&self, id: &SessionId) -> StoreResult<Vec<LogProblem>> {
        event_log::repair(&self.existing(id)?)
    }

    fn open_events(&self, id: &SessionId, options: &LogOptions) -> StoreResult<Box<dyn EventSink>> {
        event_log::open(&self.existing(id)?, options)
    }

    fn read_events(&self, id: &SessionId) -> StoreResult<EventsRead> {
        event_log::read(&self.existing(id)?)
    }

    fn pop_event(&self, id: &SessionId) -> StoreResult<Option<StoredEvent>> {
        event_log::pop(&self.existing(id)?)
    }

    fn delete(&self, id: &SessionId) -> StoreResult<bool> {
        let dir = self.session_dir(id);
        // Only a session: a folder without meta.json is not ours to remove.
        if !dir.join(META).is_file() {
            return Ok(false);
        }
        // Refused while a writer has it; held until the folder is moved.
        let lock = self.try_lock_dir(id, &dir)?;
        let indexed = read_json::<SessionMeta>(&dir.join(META)).ok();
        // Out of sight in one rename (list skips dot names), then removed:
        // a crash half-way leaves no half session behind.
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let gone = self.root.join(format!(
            ".deleted-{id}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        fs::rename(&dir, &gone).map_err(|e| StoreError::io("cannot delete", &dir, e))?;
        let _ = retrace_io::sync_dir(&self.root);
        drop(lock);
        // A name left (meta unreadable, a crash) goes with the next list.
        if let Some(meta) = indexed {
            list::unmark(&self.root, id, meta.last_active_time);
        }
        if let Err(e) = fs::remove_dir_all(&gone) {
            log::warn!(
                "session `{id}` is deleted, but its files are left in {}: {e}",
                gone.display()
            );
        }
        Ok(true)
    }
}
