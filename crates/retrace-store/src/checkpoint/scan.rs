//! Scanning the workspace into the shadow repository's index: only what
//! changed since the last scan is read (the index keeps each file's stat
//! data, so unchanged files are not hashed again), `.gitignore` files and
//! the user's global excludes are honoured (libgit2 reads them from the
//! work tree), and nested repositories and files over the size cap are
//! left out and reported.

use std::fs;
use std::path::{Path, PathBuf};

use git2::{Index, IndexAddOption, Repository};
use serde::Serialize;

use crate::error::StoreResult;

/// A file or folder checkpoints leave out, and why.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Skipped {
    /// The path in the workspace, `/`-separated (a folder ends in `/`).
    pub path: String,
    /// Why it is left out.
    pub reason: SkipReason,
}

/// Why checkpoints leave a path out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SkipReason {
    /// A folder holding its own `.git`: another repository, left whole to
    /// its owner (never added as a gitlink, never renamed).
    NestedRepository,
    /// A file larger than the cap ([`super::CheckpointOptions::max_file_size`]).
    TooLarge {
        /// Its size in bytes.
        size: u64,
    },
}

/// Brings the index up to date with the workspace, or with `only` (a
/// checked path: a file, or a folder and what is below it); returns what
/// was left out.
pub(crate) fn stage(
    repo: &Repository,
    index: &mut Index,
    workspace: &Path,
    max_size: u64,
    only: Option<&str>,
) -> StoreResult<Vec<Skipped>> {
    if let Some(repo) = only.and_then(|p| nested_repository(workspace, p)) {
        // libgit2 stops at a nested repository on a full scan, but a
        // pathspec pointing inside one would lead it in.
        return Ok(vec![Skipped {
            path: format!("{repo}/"),
            reason: SkipReason::NestedRepository,
        }]);
    }
    if let Some(path) = only {
        if let Some(skipped) = stage_file(repo, index, workspace, max_size, path)? {
            index.write()?;
            return Ok(skipped);
        }
    }
    let skipped = scan_all(index, workspace, max_size, only, u64::MAX)?.unwrap_or_default();
    index.write()?;
    Ok(skipped)
}

/// The whole workspace into the index, unwritten; `None` (the index then
/// half done) when the files to add pass `budget` bytes.
pub(crate) fn stage_within(
    index: &mut Index,
    workspace: &Path,
    max_size: u64,
    budget: u64,
) -> StoreResult<Option<Vec<Skipped>>> {
    scan_all(index, workspace, max_size, None, budget)
}

fn scan_all(
    index: &mut Index,
    workspace: &Path,
    max_size: u64,
    only: Option<&str>,
    budget: u64,
) -> StoreResult<Option<Vec<Skipped>>> {
    let mut skipped = Vec::new();
    let mut adding = 0u64;
    let mut untrack: Vec<PathBuf> = Vec::new();
    // Called only for paths whose stat data differ from the index, new
    // paths and removed ones: > 0 leaves the path as it is in the index.
    let mut decide = |path: &Path, _spec: &[u8]| -> i32 {
        let Ok(meta) = fs::symlink_metadata(workspace.join(path)) else {
            return 0; // removed: drop it from the index
        };
        if meta.is_dir() {
            // libgit2 stops at a folder with a `.git` inside and would add
            // it as a gitlink: a nested repository.
            let mut shown = path.to_string_lossy().into_owned();
            if !shown.ends_with('/') {
                shown.push('/');
            }
            skipped.push(Skipped {
                path: shown,
                reason: SkipReason::NestedRepository,
            });
            return 1;
        }
        if meta.is_file() && meta.len() <= max_size {
            adding = adding.saturating_add(meta.len());
            if adding > budget {
                return -1;
            }
        }
        if meta.is_file() && meta.len() > max_size {
            skipped.push(Skipped {
                path: path.to_string_lossy().into_owned(),
                reason: SkipReason::TooLarge { size: meta.len() },
            });
            untrack.push(path.to_path_buf());
            return 1;
        }
        0
    };
    let added = match only {
        // A folder. Literal: a path from outside is never a glob.
        Some(path) => index.add_all(
            [path],
            IndexAddOption::DISABLE_PATHSPEC_MATCH,
            Some(&mut decide),
        ),
        // `*` rather than no pathspec: with none, libgit2 passes the
        // callback a NULL matched pathspec, which git2 0.21 reads as a C
        // string.
        None => index.add_all(["*"], IndexAddOption::DEFAULT, Some(&mut decide)),
    };
    if adding > budget {
        return Ok(None);
    }
    added?;
    // A file tracked while small that grew past the cap stops being
    // tracked (the checkpoint shows it deleted): kept at its old content,
    // a restore would overwrite the large one with it.
    for path in untrack {
        if index.get_path(&path, 0).is_some() {
            index.remove_path(&path)?;
        }
    }
    Ok(Some(skipped))
}

/// The folder holding a `.git` that `path` (checked, `/`-separated) is in
/// or is, if any, below the workspace root.
fn nested_repository(workspace: &Path, path: &str) -> Option<String> {
    let mut end = 0;
    for part in path.split('/') {
        end += part.len();
        let dir = &path[..end];
        if fs::symlink_metadata(workspace.join(dir).join(".git")).is_ok() {
            return Some(dir.to_owned());
        }
        end += 1;
    }
    None
}

/// One file (or link, or nothing: removed) at a checked `path`, without
/// walking the work tree (libgit2's add with a pathspec still does);
/// `None` when `path` is a folder.
fn stage_file(
    repo: &Repository,
    index: &mut Index,
    workspace: &Path,
    max_size: u64,
    path: &str,
) -> StoreResult<Option<Vec<Skipped>>> {
    let rel = Path::new(path);
    let tracked = index.get_path(rel, 0).is_some();
    match fs::symlink_metadata(workspace.join(rel)) {
        Ok(meta) if meta.is_dir() => return Ok(None),
        Ok(meta) if meta.is_file() && meta.len() > max_size => {
            if tracked {
                index.remove_path(rel)?;
            }
            return Ok(Some(vec![Skipped {
                path: path.to_owned(),
                reason: SkipReason::TooLarge { size: meta.len() },
            }]));
        }
        // An ignored file is added only if it is tracked already, as a
        // full scan does.
        Ok(_) => {
            if tracked || !repo.is_path_ignored(rel)? {
                index.add_path(rel)?;
            }
        }
        Err(_) => {
            if tracked {
                index.remove_path(rel)?;
            }
        }
    }
    Ok(Some(Vec::new()))
}
