//! Writing a checkpoint back into the workspace. Only what the
//! checkpoints track is written or removed: ignored files, files over the
//! size cap, the user's `.git` and nested repositories are never touched,
//! and no write goes through a symbolic link to a folder.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use git2::{Delta, FileMode, Oid, Repository, Tree};
use retrace_core::FileChange;

use super::diff::{file_change, tree_diff};
use super::path::on_disk;
use crate::error::{StoreError, StoreResult};

/// What a restore did to the workspace.
pub(crate) struct Applied {
    /// The files written or removed.
    pub(crate) changes: Vec<FileChange>,
    /// Paths left as they are, each with why.
    pub(crate) kept: Vec<(String, &'static str)>,
}

/// Makes the tracked files of the workspace (which are `current`) those
/// of `target`, below `path` if given.
pub(crate) fn apply(
    repo: &Repository,
    workspace: &Path,
    current: &Tree<'_>,
    target: &Tree<'_>,
    path: Option<&str>,
) -> StoreResult<Applied> {
    let diff = tree_diff(repo, Some(current), Some(target), path)?;
    let mut removals = Vec::new();
    let mut writes = Vec::new();
    for delta in diff.deltas() {
        let Some(change) = file_change(&delta) else {
            continue;
        };
        if delta.status() == Delta::Deleted {
            removals.push(change);
        } else {
            let file = delta.new_file();
            writes.push((
                change,
                file.id(),
                file.mode(),
                delta.status() == Delta::Added,
            ));
        }
    }
    let mut applied = Applied {
        changes: Vec::new(),
        kept: Vec::new(),
    };
    // Removals first: a file may give way to a folder of the same name.
    for change in removals {
        let full = on_disk(workspace, Path::new(&change.path))?;
        if let Some(why) = unsafe_parents(workspace, &full, false)? {
            applied.kept.push((change.path, why));
            continue;
        }
        match fs::symlink_metadata(&full) {
            Ok(meta) if meta.is_dir() => {
                applied.kept.push((change.path, "a folder is there now"));
                continue;
            }
            Ok(_) => {
                fs::remove_file(&full).map_err(|e| StoreError::io("cannot remove", &full, e))?
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io("cannot read", &full, e)),
        }
        prune_empty_parents(workspace, &full);
        applied.changes.push(change);
    }
    for (change, oid, mode, added) in writes {
        let full = on_disk(workspace, Path::new(&change.path))?;
        if let Some(why) = unsafe_parents(workspace, &full, true)? {
            applied.kept.push((change.path, why));
            continue;
        }
        let existing = match fs::symlink_metadata(&full) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(StoreError::io("cannot read", &full, e)),
        };
        if let Some(meta) = &existing {
            if meta.is_dir() {
                applied.kept.push((change.path, "a folder is there now"));
                continue;
            }
            if added {
                // Not tracked now but there: ignored or over the cap.
                applied
                    .kept
                    .push((change.path, "an untracked file is there now"));
                continue;
            }
        }
        write_blob(repo, oid, mode, &full, existing.as_ref())?;
        applied.changes.push(change);
    }
    Ok(applied)
}

/// Why the folders above `full` must not be written through: a symbolic
/// link (it could lead out of the workspace), a nested repository, or a
/// file. With `create`, missing folders are made.
fn unsafe_parents(
    workspace: &Path,
    full: &Path,
    create: bool,
) -> StoreResult<Option<&'static str>> {
    let rel = full.strip_prefix(workspace).unwrap_or(full);
    let mut dir = workspace.to_path_buf();
    let Some(parent) = rel.parent() else {
        return Ok(None);
    };
    for part in parent.components() {
        dir.push(part);
        match fs::symlink_metadata(&dir) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Ok(Some("a folder above it is a symbolic link"))
            }
            Ok(meta) if !meta.is_dir() => return Ok(Some("a file is where its folder should be")),
            Ok(_) => {
                if fs::symlink_metadata(dir.join(".git")).is_ok() {
                    return Ok(Some("it is in a nested repository"));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                if !create {
                    return Ok(None);
                }
                fs::create_dir(&dir).map_err(|e| StoreError::io("cannot create", &dir, e))?;
            }
            Err(e) => return Err(StoreError::io("cannot read", &dir, e)),
        }
    }
    Ok(None)
}

/// Removes the folders above `full` that are now empty (never the
/// workspace itself); stops at the first that is not.
fn prune_empty_parents(workspace: &Path, full: &Path) {
    let mut dir = full.parent();
    while let Some(d) = dir {
        if d == workspace || !d.starts_with(workspace) || fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

/// Writes a blob to `full`: whole or not at all (a temporary file renamed
/// over it), keeping the permissions the file had.
fn write_blob(
    repo: &Repository,
    oid: Oid,
    mode: FileMode,
    full: &Path,
    existing: Option<&fs::Metadata>,
) -> StoreResult<()> {
    let blob = repo.find_blob(oid)?;
    #[cfg(unix)]
    if mode == FileMode::Link {
        use std::os::unix::ffi::OsStrExt;
        let target = std::ffi::OsStr::from_bytes(blob.content());
        if existing.is_some() {
            fs::remove_file(full).map_err(|e| StoreError::io("cannot remove", full, e))?;
        }
        return std::os::unix::fs::symlink(target, full)
            .map_err(|e| StoreError::io("cannot create the link", full, e));
    }
    let tmp = temp_path(full);
    let result = (|| -> io::Result<()> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        let mut file = options.open(&tmp)?;
        file.write_all(blob.content())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let base = match existing {
                Some(meta) if meta.is_file() => meta.permissions().mode() & 0o7777,
                _ => file.metadata()?.permissions().mode() & 0o7777,
            };
            let wanted = if mode == FileMode::BlobExecutable {
                base | ((base & 0o444) >> 2)
            } else {
                base & !0o111
            };
            file.set_permissions(fs::Permissions::from_mode(wanted))?;
        }
        #[cfg(not(unix))]
        let _ = (mode, existing);
        drop(file);
        fs::rename(&tmp, full)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(StoreError::io("cannot write", full, e));
    }
    Ok(())
}

fn temp_path(full: &Path) -> PathBuf {
    let name = full
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    full.with_file_name(format!(".{name}.{}.retrace-restore", std::process::id()))
}
