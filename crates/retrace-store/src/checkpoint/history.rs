//! Checkpoints by name, all of them, and one file's history: read from
//! the commits of the `checkpoints` branch, newest first.

use std::path::Path;

use chrono::{DateTime, Utc};
use git2::{Commit, Oid, Repository};
use retrace_core::ChangeKind;
use serde::Serialize;

use super::commit::{EVENT, RESTORED_FROM, TAG, TOOL};
use crate::error::{StoreError, StoreResult};

/// A checkpoint as history lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommitInfo {
    /// The commit's id (hex).
    pub commit: String,
    /// The tag that names it.
    pub tag: String,
    /// When it was taken (to the second).
    pub time: DateTime<Utc>,
    /// The tool whose changes it holds (`restore` for a restore).
    pub tool: String,
    /// The event of the tool call, when the recorder took it.
    pub event_seq: Option<u64>,
    /// For a restore: the checkpoint it restored.
    pub restored_from: Option<String>,
    /// In a file's history: how the file changed in this checkpoint.
    pub change: Option<ChangeKind>,
}

/// What a checkpoint's commit says about itself.
pub(crate) fn commit_info(commit: &Commit<'_>) -> CommitInfo {
    let message = String::from_utf8_lossy(commit.message_bytes());
    let trailer = |key: &str| {
        message
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix(key))
            .map(str::to_owned)
    };
    CommitInfo {
        commit: commit.id().to_string(),
        tag: trailer(TAG).unwrap_or_default(),
        time: DateTime::from_timestamp(commit.time().seconds(), 0).unwrap_or_default(),
        tool: trailer(TOOL).unwrap_or_default(),
        event_seq: trailer(EVENT).and_then(|s| s.parse().ok()),
        restored_from: trailer(RESTORED_FROM),
        change: None,
    }
}

/// The checkpoint `name` names: a tag, or a commit id or a unique prefix
/// of one (4 hex digits at least).
pub(crate) fn resolve<'r>(repo: &'r Repository, name: &str) -> StoreResult<Commit<'r>> {
    let unknown = |reason: &str| StoreError::UnknownCheckpoint {
        name: name.escape_debug().to_string(),
        reason: reason.to_owned(),
    };
    let tag_like = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !tag_like {
        return Err(unknown("a checkpoint is named by its tag or its commit id"));
    }
    if let Ok(reference) = repo.find_reference(&format!("refs/tags/{name}")) {
        return Ok(reference.peel_to_commit()?);
    }
    if !name.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(unknown("there is no such tag"));
    }
    if name.len() < 4 {
        return Err(unknown("give at least 4 digits of a commit id"));
    }
    match repo.find_commit_by_prefix(name) {
        Ok(commit) => Ok(commit),
        Err(e) if e.code() == git2::ErrorCode::Ambiguous => Err(unknown(
            "more than one commit starts with these digits; give more",
        )),
        Err(e) if e.code() == git2::ErrorCode::NotFound => {
            Err(unknown("no tag or commit has this name"))
        }
        Err(e) => Err(e.into()),
    }
}

/// The commits of the branch, newest first (first parents only).
fn walk(repo: &Repository) -> StoreResult<Vec<Oid>> {
    let head = match repo.head() {
        Ok(head) => head.peel_to_commit()?.id(),
        // No checkpoint yet.
        Err(e)
            if matches!(
                e.code(),
                git2::ErrorCode::UnbornBranch | git2::ErrorCode::NotFound
            ) =>
        {
            return Ok(Vec::new())
        }
        Err(e) => return Err(e.into()),
    };
    let mut walk = repo.revwalk()?;
    walk.push(head)?;
    walk.simplify_first_parent()?;
    Ok(walk.collect::<Result<_, _>>()?)
}

/// Every checkpoint, newest first.
pub(crate) fn list(repo: &Repository) -> StoreResult<Vec<CommitInfo>> {
    walk(repo)?
        .into_iter()
        .map(|oid| Ok(commit_info(&repo.find_commit(oid)?)))
        .collect()
}

/// The checkpoints that changed `path` (checked), newest first, with how.
pub(crate) fn file_changes(repo: &Repository, path: &str) -> StoreResult<Vec<CommitInfo>> {
    let oids = walk(repo)?;
    // The entry at `path` in each commit, compared with the next (older)
    // one: each tree is looked up once.
    let entry = |oid: Oid| -> StoreResult<Option<(Oid, i32)>> {
        let tree = repo.find_commit(oid)?.tree()?;
        let found = match tree.get_path(Path::new(path)) {
            Ok(e) => Some((e.id(), e.filemode())),
            Err(e) if e.code() == git2::ErrorCode::NotFound => None,
            Err(e) => return Err(e.into()),
        };
        Ok(found)
    };
    let mut out = Vec::new();
    let mut newer = match oids.first() {
        Some(&oid) => entry(oid)?,
        None => return Ok(out),
    };
    for (i, &oid) in oids.iter().enumerate() {
        let older = match oids.get(i + 1) {
            Some(&parent) => entry(parent)?,
            None => None,
        };
        let change = match (&older, &newer) {
            (None, Some(_)) => Some(ChangeKind::Created),
            (Some(_), None) => Some(ChangeKind::Deleted),
            (Some(a), Some(b)) if a != b => Some(ChangeKind::Updated),
            _ => None,
        };
        if let Some(change) = change {
            let mut info = commit_info(&repo.find_commit(oid)?);
            info.change = Some(change);
            out.push(info);
        }
        newer = older;
    }
    Ok(out)
}
