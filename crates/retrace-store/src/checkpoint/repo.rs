//! The shadow repository: a bare git directory the store owns, whose work
//! tree is set (in memory only) to the workspace. Nothing is ever written
//! into the workspace's own `.git`: libgit2 is told the work tree without
//! a gitlink, and never sees the user's repository as its own.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

use git2::{Repository, RepositoryInitOptions};

use crate::error::{StoreError, StoreResult};

/// The branch checkpoints are committed on.
pub(crate) const BRANCH: &str = "checkpoints";

/// The file whose OS lock says a process has this shadow repository open.
const LOCK_FILE: &str = "retrace-checkpoints.lock";

/// Rules read before the workspace's own `.gitattributes` and winning over
/// them: store bytes as they are (no end-of-line conversion, no clean or
/// smudge filter such as LFS), so a restore writes back exactly what was
/// there.
const ATTRIBUTES: &str = "* -text -filter -ident -working-tree-encoding\n";

/// A shadow repository opened for one workspace, with the lock that makes
/// this process its only writer.
pub(crate) struct Shadow {
    pub(crate) repo: Repository,
    /// Held while open: the OS drops it when the process dies, however it
    /// dies, so a lock file git left behind with no holder is stale.
    _lock: File,
    /// Lock and temporary files of a killed process that opening removed.
    pub(crate) recovered: Vec<PathBuf>,
}

/// Opens the shadow repository at `git_dir` for `workspace` (both
/// canonical), creating it if it is not there.
pub(crate) fn open(workspace: &Path, git_dir: &Path, who: &str) -> StoreResult<Shadow> {
    let lock = take_lock(git_dir, who)?;
    // Only a Checkpoints holding the lock above writes this repository, so
    // any git lock file left in it belongs to a process that died while
    // writing (libgit2 removes its own on every path but a kill).
    let recovered = remove_stale_locks(git_dir)?;
    for path in &recovered {
        log::warn!(
            "checkpoints: removed {} left by a process that stopped while writing",
            path.display()
        );
    }
    let repo = if git_dir.join("HEAD").is_file() {
        Repository::open_bare(git_dir)?
    } else {
        let mut init = RepositoryInitOptions::new();
        init.bare(true)
            .no_reinit(true)
            .mkdir(true)
            .external_template(false)
            .initial_head(BRANCH)
            .description("retrace checkpoints of a session's workspace");
        let repo = Repository::init_opts(git_dir, &init)?;
        let mut config = repo.config()?;
        // Byte-exact content whatever the user's global config says.
        config.set_bool("core.autocrlf", false)?;
        config.set_str("core.eol", "lf")?;
        config.set_bool("core.symlinks", cfg!(unix))?;
        drop(config);
        repo
    };
    let attributes = git_dir.join("info").join("attributes");
    if fs::read_to_string(&attributes).ok().as_deref() != Some(ATTRIBUTES) {
        fs::create_dir_all(git_dir.join("info"))
            .map_err(|e| StoreError::io("cannot create", &git_dir.join("info"), e))?;
        fs::write(&attributes, ATTRIBUTES)
            .map_err(|e| StoreError::io("cannot write", &attributes, e))?;
    }
    // In memory only (`false`: no `.git` file, no `core.worktree`): the
    // workspace may move, and nothing is written into it.
    repo.set_workdir(workspace, false)?;
    Ok(Shadow {
        repo,
        _lock: lock,
        recovered,
    })
}

fn take_lock(git_dir: &Path, who: &str) -> StoreResult<File> {
    fs::create_dir_all(git_dir).map_err(|e| StoreError::io("cannot create", git_dir, e))?;
    let path = git_dir.join(LOCK_FILE);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| StoreError::io("cannot open", &path, e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => Err(StoreError::SessionBusy {
            id: who.to_owned(),
            holder: format!(
                "another process has its checkpoints open ({})",
                path.display()
            ),
        }),
        Err(TryLockError::Error(e)) => Err(StoreError::io("cannot lock", &path, e)),
    }
}

/// Removes what git writers leave when killed: the lock files of the
/// index, HEAD, the config, packed refs and any ref, and temporary objects
/// and packs.
fn remove_stale_locks(git_dir: &Path) -> StoreResult<Vec<PathBuf>> {
    let mut found = Vec::new();
    for name in ["index.lock", "HEAD.lock", "config.lock", "packed-refs.lock"] {
        let path = git_dir.join(name);
        if path.is_file() {
            found.push(path);
        }
    }
    find_locks(&git_dir.join("refs"), &mut found)
        .map_err(|e| StoreError::io("cannot read", &git_dir.join("refs"), e))?;
    // Temporary files libgit2 names `…_git2_{random}`: a loose object
    // (`objects/tmp_object_git2_…`) or a pack (`objects/pack/pack_git2_…`)
    // being written. A killed writer leaves them; nothing else cleans them
    // (this is the `tmp_pack` that fills disks).
    for dir in [
        git_dir.join("objects"),
        git_dir.join("objects").join("pack"),
    ] {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let is_file = entry.file_type().is_ok_and(|t| t.is_file());
            if is_file && entry.file_name().to_string_lossy().contains("_git2_") {
                found.push(entry.path());
            }
        }
    }
    for path in &found {
        match fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io("cannot remove the stale lock", path, e)),
        }
    }
    Ok(found)
}

fn find_locks(dir: &Path, found: &mut Vec<PathBuf>) -> io::Result<()> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            find_locks(&entry.path(), found)?;
        } else if entry.file_name().to_string_lossy().ends_with(".lock") {
            found.push(entry.path());
        }
    }
    Ok(())
}
