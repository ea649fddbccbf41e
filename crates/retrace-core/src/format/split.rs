//! A folder tree split into its sessions: what `retrace list` lists, what
//! a command given a folder opens (when there is one) and what the viewer
//! lists for a dropped folder. Pure: the caller walks the tree and lists
//! the names (relative paths, `/` between folders), and reads the first
//! line of the few files [`needs_head`] names; this groups them.
//!
//! Which files make one session, per agent (see `formats.md`):
//! - **Claude Code**: each `<sessionId>.jsonl` is a session. Its subagent
//!   runs belong to it: ≥ 2.1 `<sessionId>/subagents/agent-*.jsonl` (with
//!   their `.meta.json`) by folder, 2.0 `agent-*.jsonl` beside it by the
//!   `sessionId` on their first line. A `~/.claude/projects` root is
//!   folders of such projects.
//! - **Codex**: each `rollout-<time>-<thread id>.jsonl` is a session, in
//!   whatever dated folder; a sub-agent's rollout (its `session_meta`
//!   names a `parent_thread_id`) belongs to its parent's, and so does a
//!   fork (`forked_from_id`): read together, the fork hangs under the line
//!   it was forked from, a branch of its parent's tree.
//! - **Gemini CLI**: `session-<time>-<first 8 of sessionId>.json[l]` in a
//!   `chats` folder; the files of one `sessionId` are one session (a
//!   session split over files, a legacy document beside its migrated
//!   lines), and `chats/<parentSessionId>/*.jsonl` sub-agent chats belong
//!   to their parent.
//! - **A session store's session** (`meta.json` beside `events*.jsonl`)
//!   and a split event stream (`events.jsonl`, `events_1.jsonl`, …) are
//!   one session each.
//! - **Anything else** (pi sessions, provider lists, a mixed folder): one
//!   session per file, a name's forms together (`x.json`, `x.jsonl`,
//!   `x.jsonl.gz`).
//!
//! Only session files (`*.jsonl`, `*.json`, gzipped or not) are taken;
//! side-cars go with their session. Within a session, files are in
//! [`order_files`]' order: the conversation first, then its subagent runs.

use std::collections::{HashMap, HashSet};

use super::folder::{
    base, dir, in_subagents, is_lines_file, is_session_file, is_side_car, key, order_files,
    store_dirs, Listing, SessionFile,
};
use crate::model::sort::{sort_by, sort_by_key};

/// Bytes of a file's first line [`split_sessions`] looks at.
pub const HEAD_BYTES: usize = 64 << 10;

/// Whether [`split_sessions`] needs the start of `name` (its first line,
/// up to [`HEAD_BYTES`], decompressed): a Claude Code 2.0 `agent-*.jsonl`
/// (the `sessionId` it belongs to) and a Codex `rollout-*.jsonl` (a
/// sub-agent's `parent_thread_id`, a fork's `forked_from_id`). Other files are grouped by name alone.
pub fn needs_head(name: &str) -> bool {
    let b = base(name);
    is_lines_file(name) && !in_subagents(name) && (b.starts_with("agent-") || is_rollout(b))
}

/// The sessions among `names`, each its files in reading order (indices
/// into `names`, with side-cars), in the order of their first file's
/// name. `heads[i]` is the start of `names[i]` where [`needs_head`] asked
/// for it (else `None`, and the file is grouped by its name).
pub fn split_sessions<S: AsRef<str>>(
    names: &[S],
    heads: &[Option<&[u8]>],
) -> Vec<Vec<SessionFile>> {
    let names: Vec<&str> = names.iter().map(AsRef::as_ref).collect();
    let stores = store_dirs(&names);
    let taken = |n: &str| {
        (is_session_file(n) || is_side_car(n))
            // Only a session's own `subagents` folder, not what is deeper.
            && (!dir(n).contains("subagents/") || in_subagents(n))
    };
    let raw: Vec<Option<String>> = names
        .iter()
        .map(|n| taken(n).then(|| raw_key(n, &stores)))
        .collect();
    // Files whose first line names the session they belong to.
    let sessions: HashSet<&str> = raw.iter().flatten().map(String::as_str).collect();
    let rollouts: HashMap<&str, &str> = names
        .iter()
        .zip(&raw)
        .filter_map(|(n, k)| Some((thread_id(base(n))?, k.as_deref()?)))
        .collect();
    let mut redirect: HashMap<String, String> = HashMap::new();
    for (i, name) in names.iter().enumerate() {
        let (Some(own), Some(head)) = (&raw[i], heads.get(i).copied().flatten()) else {
            continue;
        };
        let b = base(name);
        let to = if b.starts_with("agent-") {
            string_field(head, "sessionId")
                .map(|id| format!("{}\0{}", dir(name), id))
                .filter(|k| sessions.contains(k.as_str()))
        } else if is_rollout(b) {
            string_field(head, "parent_thread_id")
                .or_else(|| string_field(head, "forked_from_id"))
                .and_then(|p| rollouts.get(p))
                .map(|k| (*k).to_owned())
        } else {
            None
        };
        if let Some(to) = to.filter(|to| to != own) {
            redirect.insert(own.clone(), to);
        }
    }
    let resolve = |k: &str| {
        let mut k = k.to_owned();
        // A chain (a sub-agent's sub-agent) is followed; a loop is not.
        for _ in 0..8 {
            match redirect.get(&k) {
                Some(next) => k = next.clone(),
                None => break,
            }
        }
        k
    };
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (i, k) in raw.iter().enumerate() {
        let Some(k) = k else { continue };
        let k = resolve(k);
        let g = *at.entry(k.clone()).or_insert_with(|| {
            groups.push((k, Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }
    let mut out: Vec<Vec<SessionFile>> = groups
        .into_iter()
        .filter(|(_, files)| files.iter().any(|&i| !is_side_car(names[i])))
        .map(|(_, files)| {
            let group: Vec<&str> = files.iter().map(|&i| names[i]).collect();
            let mut ordered = order_files(&group, Listing::Chosen);
            // A side-car whose session is not here is not read as one, and
            // a sub-agent chat in a folder below comes after the session.
            ordered.retain(|f| !is_side_car(group[f.file]));
            sort_by_key(&mut ordered, |f| group[f.file].matches('/').count());
            ordered
                .into_iter()
                .map(|f| SessionFile {
                    file: files[f.file],
                    meta: f.meta.map(|m| files[m]),
                    snapshots: f.snapshots.map(|m| files[m]),
                })
                .collect::<Vec<_>>()
        })
        .filter(|files| !files.is_empty())
        .collect();
    sort_by(&mut out, |a, b| names[a[0].file].cmp(names[b[0].file]));
    out
}

/// The session a file belongs to by its name: `folder\0stem`, where the
/// stem is that of the session file (see the module doc).
fn raw_key(name: &str, stores: &[&str]) -> String {
    let d = dir(name);
    if stores.contains(&d) {
        return format!("{d}\0");
    }
    if in_subagents(name) {
        // `<folder>/<stem>/subagents/x.jsonl` belongs to `<folder>/<stem>.jsonl`.
        let session = d.strip_suffix("subagents").unwrap_or(d);
        let session = session.strip_suffix('/').unwrap_or(session);
        let (folder, stem) = session.rsplit_once('/').unwrap_or(("", session));
        return format!("{folder}\0{}", key(&format!("{stem}.jsonl")).0);
    }
    let b = base(name);
    if let Some(id8) = gemini_id8(b) {
        return format!("{d}\0gemini:{id8}");
    }
    // Gemini CLI's `chats/<parentSessionId>/<sessionId>.jsonl`.
    let (chats, parent) = d.rsplit_once('/').unwrap_or(("", d));
    if base(chats) == "chats" && is_uuid(parent) {
        return format!("{chats}\0gemini:{}", &parent[..8]);
    }
    format!("{d}\0{}", key(name).0)
}

/// `session-2025-11-19T20-45-42f4bde7.json` → `42f4bde7`.
fn gemini_id8(base: &str) -> Option<&str> {
    let stem = base.split('.').next()?;
    let rest = stem.strip_prefix("session-")?;
    let (_, id8) = rest.rsplit_once('-')?;
    (id8.len() == 8 && id8.bytes().all(|b| b.is_ascii_hexdigit())).then_some(id8)
}

fn is_rollout(base: &str) -> bool {
    base.starts_with("rollout-") && thread_id(base).is_some()
}

/// The thread id a Codex rollout's name ends with.
fn thread_id(base: &str) -> Option<&str> {
    let stem = base.split('.').next()?;
    let rest = stem.strip_prefix("rollout-")?;
    let id = rest.get(rest.len().checked_sub(36)?..)?;
    is_uuid(id).then_some(id)
}

/// 8-4-4-4-12 hex digits.
fn is_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// The string value of the first `"field": "…"` on the first line of
/// `head`, read as text: the line may be cut at [`HEAD_BYTES`] (a Codex
/// `session_meta` carries the whole system prompt), and a key inside a
/// string would have its quotes escaped, so it is not matched there.
fn string_field<'a>(head: &'a [u8], field: &str) -> Option<&'a str> {
    let line = head.split(|&b| b == b'\n').next()?;
    let line = &line[..line.len().min(HEAD_BYTES)];
    let needle = format!("\"{field}\"");
    let mut from = 0;
    while let Some(at) = find(&line[from..], needle.as_bytes()) {
        let mut rest = &line[from + at + needle.len()..];
        from += at + needle.len();
        rest = trim_start(rest);
        let Some(after) = rest.strip_prefix(b":") else {
            continue;
        };
        let Some(value) = trim_start(after).strip_prefix(b"\"") else {
            continue;
        };
        let end = value.iter().position(|&b| b == b'"' || b == b'\\')?;
        return std::str::from_utf8(&value[..end]).ok();
    }
    None
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let blank = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &bytes[blank..]
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sessions of `names` as their files' names.
    fn split(names: &[&str], heads: &[(&str, &str)]) -> Vec<Vec<String>> {
        let heads: Vec<Option<&[u8]>> = names
            .iter()
            .map(|n| {
                heads
                    .iter()
                    .find(|(h, _)| h == n)
                    .map(|(_, line)| line.as_bytes())
            })
            .collect();
        split_sessions(names, &heads)
            .into_iter()
            .map(|files| files.iter().map(|f| names[f.file].to_owned()).collect())
            .collect()
    }

    #[test]
    fn a_claude_project_is_one_session_per_id_with_its_agents() {
        let names = [
            "p/s1.jsonl",
            "p/s2.jsonl",
            "p/agent-aa.jsonl",
            "p/agent-bb.jsonl",
            "p/s1/subagents/agent-x.jsonl",
            "p/s1/subagents/agent-x.meta.json",
            "p/s1/subagents/workflows/w/journal.jsonl",
            "p/notes.txt",
        ];
        let heads = [
            (
                "p/agent-aa.jsonl",
                r#"{"parentUuid":null,"sessionId":"s2","x":1}"#,
            ),
            ("p/agent-bb.jsonl", r#"{"sessionId" : "gone"}"#),
        ];
        assert_eq!(
            split(&names, &heads),
            [
                vec!["p/agent-bb.jsonl"],
                vec!["p/s1.jsonl", "p/s1/subagents/agent-x.jsonl"],
                vec!["p/s2.jsonl", "p/agent-aa.jsonl"],
            ]
        );
        let with_meta = split_sessions(&names, &[None; 8]);
        let s1 = with_meta.iter().find(|s| s[0].file == 0).unwrap();
        assert_eq!(s1[1].meta, Some(5));
    }

    #[test]
    fn a_codex_tree_is_one_session_per_rollout_with_its_sub_agents() {
        let parent = "019a93b9-f380-7600-98ff-940e6b99603c";
        let child = "019a93ba-0000-7600-98ff-940e6b99603c";
        let names = [
            format!("2025/11/17/rollout-2025-11-17T15-30-28-{parent}.jsonl"),
            format!("2025/11/18/rollout-2025-11-18T09-00-00-{child}.jsonl"),
            "2025/11/18/rollout-2025-11-18T10-00-00-019a93bb-0000-7600-98ff-940e6b99603c.jsonl"
                .to_owned(),
        ];
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert!(names.iter().all(|n| needs_head(n)));
        let meta = format!(
            r#"{{"type":"session_meta","payload":{{"instructions":"say \"parent_thread_id\": \"x\"","source":{{"subagent":{{"thread_spawn":{{"parent_thread_id":"{parent}"}}}}}}}}}}"#
        );
        let got = split(&names, &[(names[1], meta.as_str())]);
        assert_eq!(
            got,
            [
                vec![names[0].to_owned(), names[1].to_owned()],
                vec![names[2].to_owned()]
            ]
        );
    }

    #[test]
    fn gemini_chats_group_by_session_id() {
        let names = [
            "h/chats/session-2026-01-10T01-38-1deca764.json",
            "h/chats/session-2026-01-10T01-46-1deca764.json",
            "h/chats/session-2025-12-13T19-01-049d9bb6.json",
            "h/chats/session-2025-12-13T19-01-049d9bb6.jsonl",
            "h/chats/1deca764-aaaa-bbbb-cccc-dddddddddddd/5e7a0000-aaaa-bbbb-cccc-dddddddddddd.jsonl",
        ];
        assert_eq!(
            split(&names, &[]),
            [vec![names[2], names[3]], vec![names[0], names[1], names[4]],]
        );
    }

    #[test]
    fn a_mixed_folder_is_one_session_per_file_and_stores_per_folder() {
        let names = [
            "a.jsonl",
            "b.json",
            "b.jsonl.snapshots.json",
            "c.jsonl.gz",
            "lonely.meta.json",
            "events.jsonl",
            "events_1.jsonl",
            "store/abc/meta.json",
            "store/abc/events.jsonl",
            "store/abc/state.json",
            "store/abc/events_1.jsonl.gz",
            "README.md",
        ];
        assert_eq!(
            split(&names, &[]),
            [
                vec!["a.jsonl"],
                vec!["b.json"],
                vec!["c.jsonl.gz"],
                vec!["events.jsonl", "events_1.jsonl"],
                vec!["store/abc/events.jsonl", "store/abc/events_1.jsonl.gz"],
            ]
        );
    }

    #[test]
    fn a_field_is_read_from_the_first_line_only() {
        assert_eq!(
            string_field(br#"{"a":1,"sessionId":"x-1"}"#, "sessionId"),
            Some("x-1")
        );
        assert_eq!(
            string_field(b"{\"a\":1}\n{\"sessionId\":\"y\"}", "sessionId"),
            None
        );
        assert_eq!(
            string_field(br#"{"note":"\"sessionId\": \"z\""}"#, "sessionId"),
            None
        );
    }
}
