//! One checkpoint: a commit of the scanned tree on the `checkpoints`
//! branch and a tag `tool_{tool_name}_{YYYYMMDDHHMMSS}` naming it. The
//! commit's message carries what history needs (tool, session, event,
//! tag) as trailers, so listing reads commits only, never every tag.

use chrono::{DateTime, Utc};
use git2::{Oid, Repository, Signature, Time, Tree};
use retrace_core::FileChange;

use super::diff::changes;
use crate::error::StoreResult;

/// The longest tool name kept in a tag.
const MAX_TOOL_IN_TAG: usize = 64;

/// What a commit says about itself, written as trailers (with its tag).
pub(crate) struct Meta<'a> {
    pub(crate) tool: &'a str,
    pub(crate) session: &'a str,
    pub(crate) event: Option<u64>,
    pub(crate) restored_from: Option<&'a str>,
}

pub(crate) const TOOL: &str = "Retrace-Tool: ";
pub(crate) const SESSION: &str = "Retrace-Session: ";
pub(crate) const EVENT: &str = "Retrace-Event: ";
pub(crate) const TAG: &str = "Retrace-Tag: ";
pub(crate) const RESTORED_FROM: &str = "Retrace-Restored-From: ";

/// A commit made.
pub(crate) struct Made {
    pub(crate) commit: Oid,
    pub(crate) tag: String,
    pub(crate) files: Vec<FileChange>,
}

/// Commits `tree` on top of HEAD and tags it, unless it is HEAD's tree
/// (nothing changed): then `None`.
pub(crate) fn commit_tree(
    repo: &Repository,
    tree: &Tree<'_>,
    at: DateTime<Utc>,
    meta: &Meta<'_>,
) -> StoreResult<Option<Made>> {
    let parent = match repo.head() {
        Ok(head) => Some(head.peel_to_commit()?),
        Err(e) if e.code() == git2::ErrorCode::UnbornBranch => None,
        Err(e) if e.code() == git2::ErrorCode::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    let parent_tree = parent.as_ref().map(|c| c.tree()).transpose()?;
    match &parent_tree {
        Some(old) if old.id() == tree.id() => return Ok(None),
        None if tree.is_empty() => return Ok(None),
        _ => {}
    }
    let files = changes(repo, parent_tree.as_ref(), Some(tree), None)?;
    let tag = unique_tag(repo, meta.tool, at)?;
    let message = message(meta, &tag, files.len());
    let when = Time::new(at.timestamp(), 0);
    let sig = Signature::new("retrace", "retrace@localhost", &when)?;
    let parents: Vec<_> = parent.iter().collect();
    let commit = repo.commit(Some("HEAD"), &sig, &sig, &message, tree, &parents)?;
    repo.reference(&format!("refs/tags/{tag}"), commit, false, "checkpoint")?;
    Ok(Some(Made { commit, tag, files }))
}

fn message(t: &Meta<'_>, tag: &str, changed: usize) -> String {
    let tool = one_line(t.tool);
    let mut m = match t.restored_from {
        Some(from) => format!("restore to {from}: {changed} file(s) changed\n\n"),
        None => format!("{tool}: {changed} file(s) changed\n\n"),
    };
    m.push_str(&format!("{TOOL}{tool}\n{SESSION}{}\n", t.session));
    if let Some(seq) = t.event {
        m.push_str(&format!("{EVENT}{seq}\n"));
    }
    if let Some(from) = t.restored_from {
        m.push_str(&format!("{RESTORED_FROM}{from}\n"));
    }
    m.push_str(&format!("{TAG}{tag}\n"));
    m
}

/// A tool name as one line of a message (names come from agents).
fn one_line(s: &str) -> String {
    s.escape_debug().to_string()
}

/// `tool_{tool}_{YYYYMMDDHHMMSS}`, with `_2`, `_3`, … when checkpoints
/// fall in one second. The tool name keeps letters, digits, `-` and `_`
/// (anything else becomes `_`), so any name makes a valid ref.
pub(crate) fn unique_tag(repo: &Repository, tool: &str, at: DateTime<Utc>) -> StoreResult<String> {
    let mut name: String = tool
        .chars()
        .take(MAX_TOOL_IN_TAG)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() {
        name.push_str("unknown");
    }
    let base = format!("tool_{name}_{}", at.format("%Y%m%d%H%M%S"));
    let mut tag = base.clone();
    let mut n = 1;
    while repo.find_reference(&format!("refs/tags/{tag}")).is_ok() {
        n += 1;
        tag = format!("{base}_{n}");
    }
    Ok(tag)
}
