//! What changed between two trees: as [`FileChange`]s (for events and
//! restore) and as a unified diff (for the command line).

use git2::{Delta, Diff, DiffFormat, DiffOptions, Repository, Tree};
use retrace_core::{ChangeKind, FileChange};

use crate::error::StoreResult;

/// The tree diff from `old` to `new`, limited to `path` (a file, or a
/// folder and everything below it) when given. Renames are not looked
/// for: a rename is a deletion and a creation, which is what restore needs.
pub(crate) fn tree_diff<'r>(
    repo: &'r Repository,
    old: Option<&Tree<'_>>,
    new: Option<&Tree<'_>>,
    path: Option<&str>,
) -> StoreResult<Diff<'r>> {
    let mut opts = DiffOptions::new();
    if let Some(path) = path {
        // Literal: a path from outside is never a glob.
        opts.pathspec(path).disable_pathspec_match(true);
    }
    Ok(repo.diff_tree_to_tree(old, new, Some(&mut opts))?)
}

/// The files that differ from `old` to `new`, in path order.
pub(crate) fn changes(
    repo: &Repository,
    old: Option<&Tree<'_>>,
    new: Option<&Tree<'_>>,
    path: Option<&str>,
) -> StoreResult<Vec<FileChange>> {
    let diff = tree_diff(repo, old, new, path)?;
    Ok(diff.deltas().filter_map(|d| file_change(&d)).collect())
}

/// A delta as a [`FileChange`] (`None` for kinds a tree diff never gives).
pub(crate) fn file_change(delta: &git2::DiffDelta<'_>) -> Option<FileChange> {
    let change = match delta.status() {
        Delta::Added => ChangeKind::Created,
        Delta::Deleted => ChangeKind::Deleted,
        Delta::Modified | Delta::Typechange => ChangeKind::Updated,
        _ => return None,
    };
    let file = match change {
        ChangeKind::Deleted => delta.old_file(),
        _ => delta.new_file(),
    };
    let path = file.path()?.to_string_lossy().replace('\\', "/");
    Some(FileChange { path, change })
}

/// The unified diff (`git diff` style, binary files named only).
pub(crate) fn patch(diff: &Diff<'_>) -> StoreResult<String> {
    let mut out = Vec::new();
    diff.print(DiffFormat::Patch, |_delta, _hunk, line| {
        if matches!(line.origin(), '+' | '-' | ' ') {
            out.push(line.origin() as u8);
        }
        out.extend_from_slice(line.content());
        true
    })?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}
