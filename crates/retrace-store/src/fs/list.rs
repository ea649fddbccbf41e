//! Listing a root of sessions, newest activity first, a page at a time.
//!
//! One directory read and one `stat` of each `meta.json` give every
//! session's activity time (its mtime, kept equal to `last_active_time`);
//! only the metas of the page (and those a filter passes over) are
//! parsed. Nothing is cached, so nothing can go stale.

use std::fs;
use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::{read_json, META};
use crate::error::{StoreError, StoreResult};
use crate::id::SessionId;
use crate::store::{Cursor, ListQuery, Page, SessionMeta};

/// How far an mtime may be from `last_active_time` (file systems that keep
/// mtimes to 2 s) before it is taken for a copy's and reset.
const SLACK: Duration = Duration::from_secs(2);

pub(super) fn list(root: &Path, query: &ListQuery) -> StoreResult<Page<SessionMeta>> {
    let limit = match query.limit {
        0 => ListQuery::DEFAULT_LIMIT,
        n => n,
    };
    let mut warnings = Vec::new();
    let mut skip = |path: &Path, why: &str| {
        let w = format!("{}: {why}; skipped", path.display());
        log::warn!("{w}");
        warnings.push(w);
    };
    let entries = fs::read_dir(root).map_err(|e| StoreError::io("cannot list", root, e))?;
    let mut found: Vec<(DateTime<Utc>, SessionId)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io("cannot list", root, e))?;
        let name = entry.file_name();
        // Our own temporary and deleted entries, and hidden files.
        if name.as_encoded_bytes().starts_with(b".") {
            continue;
        }
        let path = entry.path();
        let Some(id) = name.to_str().and_then(|n| SessionId::parse(n).ok()) else {
            skip(&path, "not a session (its name is not a session id)");
            continue;
        };
        match fs::metadata(path.join(META)) {
            Ok(m) if m.is_file() => match m.modified() {
                Ok(t) => found.push((DateTime::<Utc>::from(t), id)),
                Err(e) => skip(&path, &format!("cannot read the time of meta.json ({e})")),
            },
            Ok(_) => skip(&path, "not a session (meta.json is not a file)"),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                skip(&path, "not a session (no meta.json)")
            }
            Err(e) => skip(&path, &format!("cannot read meta.json ({e})")),
        }
    }
    if let Some(after) = &query.after {
        let key = (after.last_active_time, &after.session_id);
        found.retain(|(t, id)| (*t, id) < key);
    }
    // Newest first; equal times by id, descending (as SQL's
    // `ORDER BY last_active_time DESC, session_id DESC`).
    found.sort_unstable_by(|a, b| b.cmp(a));

    let mut items = Vec::with_capacity(limit.min(found.len()));
    let mut next = None;
    for (t, id) in found {
        let dir = root.join(id.as_str());
        let meta_path = dir.join(META);
        let meta: SessionMeta = match read_json(&meta_path) {
            Ok(m) => m,
            Err(e) => {
                skip(&dir, &format!("not a session ({e})"));
                continue;
            }
        };
        if query
            .agent_config
            .as_ref()
            .is_some_and(|c| *c != meta.agent_config)
        {
            continue;
        }
        if items.len() == limit {
            // One more matches: there is a next page.
            next = items
                .last()
                .map(|(t, m): &(DateTime<Utc>, SessionMeta)| Cursor {
                    last_active_time: *t,
                    session_id: m.session_id.clone(),
                });
            break;
        }
        reset_mtime(&meta_path, t, &meta);
        items.push((t, meta));
    }
    Ok(Page {
        items: items.into_iter().map(|(_, m)| m).collect(),
        next,
        warnings,
    })
}

/// A meta.json whose mtime is not its `last_active_time` (copied by a tool
/// that does not keep times) gets it back, so the next list is in order.
fn reset_mtime(path: &Path, mtime: DateTime<Utc>, meta: &SessionMeta) {
    let off = (mtime - meta.last_active_time)
        .abs()
        .to_std()
        .unwrap_or(SLACK);
    if off < SLACK {
        return;
    }
    let set = fs::File::options()
        .write(true)
        .open(path)
        .and_then(|f| f.set_modified(meta.last_active_time.into()));
    match set {
        Ok(()) => log::warn!(
            "{}: its mtime was not its last_active_time (copied?); reset, so sessions list in order",
            path.display()
        ),
        Err(e) => log::warn!(
            "{}: its mtime is not its last_active_time, and cannot be reset ({e}); lists may be out of order",
            path.display()
        ),
    }
}
