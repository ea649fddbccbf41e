//! Listing a root of sessions, newest activity first, a page at a time.
//!
//! The order comes from `{root}/.activity/`, a folder of empty files named
//! `{last_active_time as nanoseconds, 20 digits}.{id}`: two directory reads
//! (the root and the index) give every session's time without opening or
//! `stat`ing anything, and only the page's metas are parsed.
//!
//! `meta.json` is the truth; the index is derived from it and checked
//! against it. A touch adds the new name before it writes the meta and
//! removes the old one after, so a session has one name, or two while a
//! touch is under way (or after a crash in one). A session with none or
//! several is looked up in its meta, and its names put right; a name whose
//! session folder is gone is removed; a name that disagrees with the meta
//! it leads to is put right when its page is read. So the index may lag,
//! but a list never trusts a name it has not checked.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::Path;

use chrono::{DateTime, Utc};

use super::{read_json, META};
use crate::error::{StoreError, StoreResult};
use crate::id::SessionId;
use crate::store::{Cursor, ListQuery, Page, SessionMeta};

/// The index folder, in the root.
pub(super) const INDEX: &str = ".activity";

/// The index name of a session active at `t`.
fn name(t: DateTime<Utc>, id: &SessionId) -> String {
    // Before 1970 or after 2262 cannot be named: the meta is read instead.
    let nanos = t.timestamp_nanos_opt().unwrap_or(-1);
    format!("{nanos:020}.{id}")
}

fn parse_name(name: &str) -> Option<(DateTime<Utc>, SessionId)> {
    let (nanos, id) = name.split_once('.')?;
    let nanos: i64 = nanos.parse().ok().filter(|n| *n >= 0)?;
    Some((
        DateTime::from_timestamp_nanos(nanos),
        SessionId::parse(id).ok()?,
    ))
}

/// Adds `id`'s index name for `t`. The index is derived, so a failure only
/// costs a later list a look at the meta.
pub(super) fn mark(root: &Path, id: &SessionId, t: DateTime<Utc>) {
    if t.timestamp_nanos_opt().is_none_or(|n| n < 0) {
        return;
    }
    let path = root.join(INDEX).join(name(t, id));
    if let Err(e) = fs::File::create(&path) {
        log::debug!("{}: cannot add to the index ({e})", path.display());
    }
}

/// Removes `id`'s index name for `t`, if there is one.
pub(super) fn unmark(root: &Path, id: &SessionId, t: DateTime<Utc>) {
    let path = root.join(INDEX).join(name(t, id));
    match fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => log::debug!("{}: cannot remove from the index ({e})", path.display()),
    }
}

/// Leaves `id` with one index name, for `t`.
fn put_right(root: &Path, id: &SessionId, t: DateTime<Utc>, names: &[DateTime<Utc>]) {
    if !names.contains(&t) {
        mark(root, id, t);
    }
    for &other in names.iter().filter(|&&n| n != t) {
        unmark(root, id, other);
    }
}

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

    // The index first: a session created meanwhile is then in the root
    // read but maybe not the index, and its meta is read.
    let index = root.join(INDEX);
    let mut names: HashMap<SessionId, Vec<DateTime<Utc>>> = HashMap::new();
    match fs::read_dir(&index) {
        Ok(entries) => {
            for entry in entries {
                let entry = entry.map_err(|e| StoreError::io("cannot list", &index, e))?;
                if let Some((t, id)) = entry.file_name().to_str().and_then(parse_name) {
                    names.entry(id).or_default().push(t);
                }
            }
        }
        // Without the index (removed, or a read-only root), every meta
        // is read, and the index rebuilt where it can be.
        Err(e) => {
            if e.kind() == io::ErrorKind::NotFound {
                let _ = fs::create_dir(&index);
            }
            log::debug!("{}: cannot read the activity index ({e})", index.display());
        }
    }

    let entries = fs::read_dir(root).map_err(|e| StoreError::io("cannot list", root, e))?;
    let mut found: Vec<(DateTime<Utc>, SessionId)> = Vec::with_capacity(names.len());
    for entry in entries {
        let entry = entry.map_err(|e| StoreError::io("cannot list", root, e))?;
        let file_name = entry.file_name();
        // The index, temporary and deleted entries, hidden files.
        if file_name.as_encoded_bytes().starts_with(b".") {
            continue;
        }
        let path = entry.path();
        let Some(id) = file_name.to_str().and_then(|n| SessionId::parse(n).ok()) else {
            skip(&path, "not a session (its name is not a session id)");
            continue;
        };
        match names.remove(&id) {
            Some(times) if times.len() == 1 => found.push((times[0], id)),
            times => {
                // No name or several: the meta says, and the index is put
                // right.
                let meta_path = path.join(META);
                match read_json::<SessionMeta>(&meta_path) {
                    Ok(meta) => {
                        put_right(root, &id, meta.last_active_time, &times.unwrap_or_default());
                        found.push((meta.last_active_time, id));
                    }
                    Err(StoreError::Io { source, .. })
                        if source.kind() == io::ErrorKind::NotFound =>
                    {
                        let why = if path.is_dir() {
                            "not a session (no meta.json)"
                        } else {
                            "not a session folder"
                        };
                        skip(&path, why);
                    }
                    Err(e) => skip(&path, &format!("not a session ({e})")),
                }
            }
        }
    }
    // Names whose folder is gone: a delete cut short.
    for (id, times) in names {
        for t in times {
            unmark(root, &id, t);
        }
    }

    if let Some(after) = &query.after {
        let key = (after.last_active_time, &after.session_id);
        found.retain(|(t, id)| (*t, id) < key);
    }
    // Newest first; equal times by id, descending (as SQL's
    // `ORDER BY last_active_time DESC, session_id DESC`).
    found.sort_unstable_by(|a, b| b.cmp(a));

    let mut items: Vec<(DateTime<Utc>, SessionMeta)> = Vec::with_capacity(limit.min(found.len()));
    let mut next = None;
    for (t, id) in found {
        let dir = root.join(id.as_str());
        let meta: SessionMeta = match read_json(&dir.join(META)) {
            Ok(m) => m,
            Err(e) => {
                skip(&dir, &format!("not a session ({e})"));
                continue;
            }
        };
        if meta.last_active_time != t {
            // Touched since the index was read (or its meta edited by
            // hand): listed where the index put it this time.
            put_right(root, &id, meta.last_active_time, &[t]);
        }
        if query
            .agent_config
            .as_ref()
            .is_some_and(|c| *c != meta.agent_config)
        {
            continue;
        }
        if items.len() == limit {
            // One more matches: there is a next page.
            next = items.last().map(|(t, m)| Cursor {
                last_active_time: *t,
                session_id: m.session_id.clone(),
            });
            break;
        }
        items.push((t, meta));
    }
    Ok(Page {
        items: items.into_iter().map(|(_, m)| m).collect(),
        next,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_names_sort_as_times_and_parse_back() {
        let id = SessionId::new();
        let a = DateTime::from_timestamp_nanos(1_000_000_000_123);
        let b = DateTime::from_timestamp_nanos(999_999_999_999);
        assert!(name(a, &id) > name(b, &id));
        assert_eq!(parse_name(&name(a, &id)), Some((a, id.clone())));
        assert_eq!(parse_name("x.abc"), None);
        assert_eq!(parse_name("-5.abc"), None);
        assert_eq!(parse_name("5.../x"), None);
    }
}
