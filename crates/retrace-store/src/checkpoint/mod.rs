//! Git checkpoints of an agent's workspace: after each tool call that
//! changed files, one commit and one tag in a shadow repository the store
//! owns, with restore, diff and history.
//!
//! - `path`: checks of paths from outside.
//! - `repo`: the shadow repository (bare, its work tree set in memory to
//!   the workspace), its lock and stale-lock recovery.
//! - `diff`: changes and patches between trees.
//! - `scan`: the workspace into the persistent index (ignore rules, size
//!   cap, nested repositories); `pack`: the first scan as one pack.
//! - `commit`: commit and tag; `history`: names, lists, a file's history;
//!   `restore`: writing a checkpoint back.
//!
//! The user's own `.git` in the workspace is never read as the
//! repository, renamed or written: libgit2 skips every `.git` while
//! scanning, a folder holding a `.git` (a nested repository) is skipped
//! whole, and restore writes nothing below one.

mod path;
mod repo;
mod diff;
mod scan;
mod pack;
mod commit;
mod history;
mod restore;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use retrace_core::{Checkpoint, FileChange};
use serde::Serialize;
use serde_json::{Map, Value};

pub use history::CommitInfo;
pub use scan::{SkipReason, Skipped};

use crate::error::{StoreError, StoreResult};
use crate::id::SessionId;
use crate::store::Checkpointer;
use commit::Meta;

/// How checkpoints are taken.
#[derive(Clone, Debug)]
pub struct CheckpointOptions {
    /// Files larger than this are left out and reported (10 MiB by
    /// default).
    pub max_file_size: u64,
    /// The first scan of a workspace stages in memory and writes one pack
    /// (instead of a file per object) when what it adds stays under this
    /// many bytes (512 MiB by default; 0 never).
    pub first_scan_in_memory: u64,
}

impl Default for CheckpointOptions {
    fn default() -> CheckpointOptions {
        CheckpointOptions {
            max_file_size: 10 << 20,
            first_scan_in_memory: pack::MEMORY_BUDGET,
        }
    }
}

/// A checkpoint just taken.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckpointInfo {
    /// The commit's id (hex).
    pub commit: String,
    /// The tag that names it: `tool_{tool_name}_{YYYYMMDDHHMMSS}`, with
    /// `_2`, `_3`, … when several fall in one second.
    pub tag: String,
    /// The tool whose changes it holds.
    pub tool_name: String,
    /// The event of the tool call, if any.
    pub event_seq: Option<u64>,
    /// When it was taken.
    pub time: DateTime<Utc>,
    /// The files it changed, with how, in path order.
    pub files: Vec<FileChange>,
    /// Paths left out that this [`Checkpoints`] had not reported yet
    /// (each is reported once; [`Checkpoints::skipped`] has them all).
    pub skipped: Vec<Skipped>,
}

impl CheckpointInfo {
    /// The checkpoint as the recorder records it (`skipped`, if any, in
    /// its extra fields).
    pub fn to_event(&self) -> Checkpoint {
        let mut extra = Map::new();
        if !self.skipped.is_empty() {
            extra.insert(
                "skipped".to_owned(),
                serde_json::to_value(&self.skipped).unwrap_or(Value::Null),
            );
        }
        Checkpoint {
            commit: self.commit.clone(),
            tag: self.tag.clone(),
            tool_name: self.tool_name.clone(),
            files: self.files.clone(),
            extra,
        }
    }
}

/// What a restore did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RestoreInfo {
    /// The state before the restore: restore it to undo the restore. A
    /// checkpoint taken for the purpose, or the last one when nothing had
    /// changed since.
    pub undo: CommitInfo,
    /// The checkpoint of the restored state (tool `restore`), `None` when
    /// the workspace was already so.
    pub restored: Option<CheckpointInfo>,
    /// The files written back or removed, with the change the restore made.
    pub changes: Vec<FileChange>,
    /// Paths the checkpoint has that were left as they are, with why (an
    /// ignored or over-cap file in the way, a nested repository, a link).
    pub kept: Vec<(String, String)>,
}

/// The checkpoints of one session's workspace.
pub struct Checkpoints {
    shadow: repo::Shadow,
    workspace: PathBuf,
    git_dir: PathBuf,
    session: SessionId,
    options: CheckpointOptions,
    /// Everything left out so far (reported once each).
    skipped: Vec<Skipped>,
    reported: HashSet<Skipped>,
}

impl Checkpoints {
    /// Opens the checkpoints of `workspace` kept in the repository at
    /// `git_dir` (created if it is not there; it must be outside the
    /// workspace). Takes a lock on it for the life of the value
    /// ([`StoreError::SessionBusy`] if another process has it) and removes
    /// the lock files a killed writer left.
    pub fn open(
        workspace: &Path,
        git_dir: &Path,
        session: &SessionId,
        options: CheckpointOptions,
    ) -> StoreResult<Checkpoints> {
        let workspace = workspace
            .canonicalize()
            .map_err(|e| StoreError::io("cannot open the workspace", workspace, e))?;
        if !workspace.is_dir() {
            return Err(StoreError::io(
                "cannot open the workspace",
                &workspace,
                std::io::Error::new(std::io::ErrorKind::NotADirectory, "not a folder"),
            ));
        }
        std::fs::create_dir_all(git_dir)
            .map_err(|e| StoreError::io("cannot create", git_dir, e))?;
        let git_dir = git_dir
            .canonicalize()
            .map_err(|e| StoreError::io("cannot open", git_dir, e))?;
        if git_dir.starts_with(&workspace) || workspace.starts_with(&git_dir) {
            return Err(StoreError::InvalidPath {
                path: git_dir.display().to_string(),
                reason: format!(
                    "the checkpoint repository and the workspace {} must not hold one another",
                    workspace.display()
                ),
            });
        }
        let shadow = repo::open(&workspace, &git_dir, session.as_str())?;
        Ok(Checkpoints {
            shadow,
            workspace,
            git_dir,
            session: session.clone(),
            options,
            skipped: Vec::new(),
            reported: HashSet::new(),
        })
    }

    /// The workspace (canonical).
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// The shadow repository's folder (canonical).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// Everything the last scan of the whole workspace left out.
    pub fn skipped(&self) -> &[Skipped] {
        &self.skipped
    }

    /// Lock files and temporary objects a killed process had left, removed
    /// when this was opened.
    pub fn recovered_locks(&self) -> &[PathBuf] {
        &self.shadow.recovered
    }

    /// Commits what changed in the workspace since the last checkpoint,
    /// for `tool_name`'s call (recorded as event `event_seq`, if it was),
    /// and tags it; `None` when nothing changed.
    pub fn checkpoint(
        &mut self,
        tool_name: &str,
        event_seq: Option<u64>,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<CheckpointInfo>> {
        self.commit_workspace(tool_name, event_seq, None, None, at)
    }

    fn commit_workspace(
        &mut self,
        tool_name: &str,
        event_seq: Option<u64>,
        restored_from: Option<&str>,
        only: Option<&str>,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<CheckpointInfo>> {
        let mut index = self.index()?;
        let repo = &self.shadow.repo;
        let max = self.options.max_file_size;
        let first = match only {
            None if index.is_empty() && self.options.first_scan_in_memory > 0 => {
                let budget = self.options.first_scan_in_memory;
                pack::first_scan(repo, &self.git_dir, &self.workspace, max, budget)?
            }
            _ => None,
        };
        let (tree_id, skipped) = match first {
            Some(done) => done,
            None => {
                let skipped = scan::stage(repo, &mut index, &self.workspace, max, only)?;
                (index.write_tree()?, skipped)
            }
        };
        let tree = repo.find_tree(tree_id)?;
        let meta = Meta {
            tool: tool_name,
            session: self.session.as_str(),
            event: event_seq,
            restored_from,
        };
        let made = commit::commit_tree(repo, &tree, at, &meta)?;
        let new_skips: Vec<Skipped> = skipped
            .iter()
            .filter(|s| !self.reported.contains(*s))
            .cloned()
            .collect();
        for s in &new_skips {
            log::warn!(
                "checkpoints of session {}: {} left out ({:?})",
                self.session,
                s.path,
                s.reason
            );
            self.reported.insert(s.clone());
        }
        if only.is_none() {
            self.skipped = skipped;
        }
        Ok(made.map(|m| CheckpointInfo {
            commit: m.commit.to_string(),
            tag: m.tag,
            tool_name: tool_name.to_owned(),
            event_seq,
            time: at,
            files: m.files,
            skipped: new_skips,
        }))
    }

    /// The persistent index. It is only a cache of the workspace's stat
    /// data (the commits hold the checkpoints), so one that cannot be read
    /// is dropped and rebuilt: the next scan hashes every file once more
    /// and finds their objects already stored.
    fn index(&self) -> StoreResult<git2::Index> {
        match self.shadow.repo.index() {
            Ok(index) => Ok(index),
            Err(e) if e.class() == git2::ErrorClass::Index => {
                let path = self.git_dir.join("index");
                log::warn!(
                    "checkpoints of session {}: {} cannot be read ({}); rebuilding it",
                    self.session,
                    path.display(),
                    e.message()
                );
                std::fs::remove_file(&path)
                    .map_err(|e| StoreError::io("cannot remove", &path, e))?;
                Ok(self.shadow.repo.index()?)
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Every checkpoint, newest first.
    pub fn list(&self) -> StoreResult<Vec<CommitInfo>> {
        history::list(&self.shadow.repo)
    }

    /// The checkpoints that changed the file at `path` (relative to the
    /// workspace, `/`-separated), newest first, each with how.
    pub fn list_file_changes(&self, path: &str) -> StoreResult<Vec<CommitInfo>> {
        let path = path::check_rel(path)?;
        history::file_changes(&self.shadow.repo, &path)
    }

    /// The checkpoint `name` names (a tag, or a commit id or a unique
    /// prefix of one).
    pub fn find(&self, name: &str) -> StoreResult<CommitInfo> {
        Ok(history::commit_info(&history::resolve(
            &self.shadow.repo,
            name,
        )?))
    }

    /// The files that differ from checkpoint `from` to checkpoint `to`.
    pub fn diff(&self, from: &str, to: &str) -> StoreResult<Vec<FileChange>> {
        let repo = &self.shadow.repo;
        let a = history::resolve(repo, from)?.tree()?;
        let b = history::resolve(repo, to)?.tree()?;
        diff::changes(repo, Some(&a), Some(&b), None)
    }

    /// The unified diff from checkpoint `from` to checkpoint `to`.
    pub fn diff_patch(&self, from: &str, to: &str) -> StoreResult<String> {
        let repo = &self.shadow.repo;
        let a = history::resolve(repo, from)?.tree()?;
        let b = history::resolve(repo, to)?.tree()?;
        diff::patch(&diff::tree_diff(repo, Some(&a), Some(&b), None)?)
    }

    /// Restores the workspace (or only `path`, a file or a folder) to
    /// checkpoint `name`: files it has come back, files it lacks that the
    /// checkpoints track go away. The state before is checkpointed first
    /// ([`RestoreInfo::undo`]; for a `path`, that path's state only), and
    /// the restored state after.
    pub fn restore(&mut self, name: &str, path: Option<&str>) -> StoreResult<RestoreInfo> {
        let path = path.map(path::check_rel).transpose()?;
        let target = history::resolve(&self.shadow.repo, name)?;
        let target_id = target.id();
        let target_label = history::commit_info(&target).tag;
        let target_label = if target_label.is_empty() {
            target_id.to_string()
        } else {
            target_label
        };
        drop(target);
        let now = Utc::now();
        // One path: only it needs a point to come back to, and only it is
        // scanned (the rest is checkpointed by the next tool call).
        self.commit_workspace("before_restore", None, None, path.as_deref(), now)?;
        let repo = &self.shadow.repo;
        let head = repo.head()?.peel_to_commit()?;
        let undo = history::commit_info(&head);
        let current = head.tree()?;
        let target_tree = repo.find_commit(target_id)?.tree()?;
        if let Some(p) = &path {
            let in_tree = |t: &git2::Tree<'_>| t.get_path(Path::new(p)).is_ok();
            if !in_tree(&current) && !in_tree(&target_tree) {
                return Err(StoreError::InvalidPath {
                    path: p.clone(),
                    reason: format!(
                        "neither checkpoint {target_label} nor the current state has it"
                    ),
                });
            }
        }
        let applied = restore::apply(
            repo,
            &self.workspace,
            &current,
            &target_tree,
            path.as_deref(),
        )?;
        drop((current, target_tree, head));
        let restored =
            self.commit_workspace("restore", None, Some(&target_label), path.as_deref(), now)?;
        Ok(RestoreInfo {
            undo,
            restored,
            changes: applied.changes,
            kept: applied
                .kept
                .into_iter()
                .map(|(p, why)| (p, why.to_owned()))
                .collect(),
        })
    }
}

impl Checkpointer for Checkpoints {
    fn after_tool_call(
        &mut self,
        tool_name: &str,
        seq: u64,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<Checkpoint>> {
        Ok(self
            .checkpoint(tool_name, Some(seq), at)?
            .map(|info| info.to_event()))
    }
}
