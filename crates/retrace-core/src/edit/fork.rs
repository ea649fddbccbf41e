//! Fork: a new session whose default branch is a branch of this one up to
//! a safe fork point (see [`points`](super::points)) or a leaf, in the
//! same format, with its lineage recorded the way the format records it.
//!
//! The branch is written by [`export_branch`] (each line byte for byte,
//! pi's header kept); then only what the format needs for a new session
//! changes:
//! - pi: the header gets the new session `id`, the fork's `timestamp` and
//!   `parentSession` (`branchedFrom` in v1) naming the source file, as
//!   pi's own `/fork` writes it;
//! - Claude Code: `sessionId` on every line is the new id (the file must
//!   be named `{id}.jsonl`); `uuid`s stay, as Claude Code's own resume
//!   replays them;
//! - Codex: the first `session_meta` (a legacy rollout's first line) gets
//!   the new `id` and `forked_from_id` (the source's id), every other byte
//!   kept (a `thread_rolled_back` on the branch is not in the export: the
//!   turns it drops are not in the fork, so it would drop earlier ones);
//! - event streams, which have no lineage field: one `state_transition`
//!   event appended (`from_node` `parent`, `to_node` `fork`, its
//!   `state_diff` holding `lineage`), so the five event types stay the
//!   only ones in the stream.
//!
//! - Gemini CLI: a `.json` document or a `.jsonl` log as the source is,
//!   with a new `sessionId` and the fork's time as `startTime` and
//!   `lastUpdated` (see [`gemini`](super::gemini)); no lineage field, so a
//!   note;
//! - provider lists (and AgentScope's): the prefix in the list's outer
//!   shape (a request body's other fields kept), each element byte for
//!   byte; a list has no session id or lineage to write.
//!
//! Generic lines give [`EditError::Unsupported`].

use serde_json::Value;

use crate::model::entry::EntryId;
use crate::model::format_id::Format;
use crate::model::time::format_rfc3339_ms;
use crate::read::scan::{scan_line, LineScan, ValueKind};
use crate::session::{export_branch, ExportError, Session};
use crate::source::Source;

use super::gemini;
use super::points::walk;
use super::{EditError, Edited, Note};

/// Who the new session is and where it comes from. The core has no clock
/// and no random numbers: the caller passes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForkLineage {
    /// The new session's id (a UUID for pi, Claude Code and Codex).
    pub new_session_id: String,
    /// The source session's path, as the format names its parent (pi's
    /// `parentSession`); `None` to leave it out.
    pub parent_path: Option<String>,
    /// When the fork is made, milliseconds since the Unix epoch.
    pub time_ms: i64,
}

/// Forks the session at `at`: a new session file whose default branch is
/// the branch ending at `at` (see the module doc). `at` must be a leaf of
/// the tree or a safe fork point of a branch through it; a point that
/// leaves a tool call waiting for its result is refused, naming the call.
pub fn fork(
    session: &Session,
    source: &mut dyn Source,
    at: EntryId,
    lineage: &ForkLineage,
) -> Result<Edited, EditError> {
    let format = session.file_format(session.entry(at).file);
    if !matches!(
        format,
        Format::Pi { .. }
            | Format::ClaudeCode
            | Format::Codex
            | Format::Events
            | Format::GeminiCli
            | Format::MessageList { .. }
            | Format::AgentScope
    ) {
        return Err(EditError::Unsupported {
            format: format.name(),
            what: "forked",
        });
    }
    check_point(session, source, at)?;
    let document = session.files()[session.entry(at).file.0 as usize]
        .document
        .is_some();
    let mut bytes = Vec::new();
    let export = export_branch(session, source, at, &mut bytes).map_err(|e| match e {
        ExportError::Source(e) => EditError::Source(e),
        ExportError::Write(e) => EditError::Invalid(e.to_string()),
    })?;
    let mut notes = vec![Note {
        action: "forked",
        line: Some(session.entry(at).line),
        id: Some(session.label(at)),
        message: format!(
            "the branch ending at {} ({} entries) copied {}",
            session.label(at),
            export.entries,
            match (document, export.relaid) {
                (true, _) => "element for element, in the document's own frame".to_owned(),
                (false, 0) => "line for line".to_owned(),
                // A legacy Gemini CLI document continued in a log.
                (false, n) => format!(
                    "line for line, {n} element(s) of a JSON document each written on one line"
                ),
            }
        ),
    }];
    let note = match format {
        Format::Pi { version } => pi_header(&mut bytes, version, lineage)?,
        Format::ClaudeCode => claude_session_ids(&mut bytes, lineage)?,
        Format::Codex => codex_meta(&mut bytes, lineage, export.left_out)?,
        Format::GeminiCli => {
            let name = &session.files()[session.entry(at).file.0 as usize].name;
            let at = session.label(at);
            gemini::lineage(
                &mut bytes,
                name,
                &lineage.new_session_id,
                lineage.time_ms,
                &at,
            )?
        }
        Format::MessageList { .. } | Format::AgentScope => Note {
            action: "lineage",
            line: None,
            id: None,
            message: "a message list carries no session id or lineage: none written".into(),
        },
        _ => events_lineage(&mut bytes, session, at, lineage)?,
    };
    notes.push(note);
    Ok(Edited {
        bytes,
        notes,
        rejected: Vec::new(),
    })
}

/// Refuses `at` unless it is a leaf or a safe fork point of a branch
/// through it.
fn check_point(session: &Session, source: &mut dyn Source, at: EntryId) -> Result<(), EditError> {
    let tree = session.tree();
    if !tree.contains(at) {
        return Err(EditError::Invalid(format!(
            "{} is not on any branch (a line outside the conversation)",
            session.label(at)
        )));
    }
    if tree.default_leaf() == Some(at) || tree.tips().contains(&at) {
        return Ok(());
    }
    let leaf = tree
        .default_leaf()
        .into_iter()
        .chain(tree.tips().iter().copied())
        .find(|&leaf| session.branch(leaf).contains(&at));
    let Some(leaf) = leaf else {
        return Err(EditError::Invalid(format!(
            "{} is on no branch that ends at a leaf",
            session.label(at)
        )));
    };
    let steps = walk(session, source, leaf)?;
    let Some(step) = steps.iter().find(|s| s.entry == at) else {
        return Err(EditError::Invalid(format!(
            "{} is not a safe fork point: fork at a user message, a tool result or a leaf \
             (`retrace points` lists them)",
            session.label(at)
        )));
    };
    if step.kind.is_none() {
        return Err(EditError::Invalid(format!(
            "{} is not a safe fork point: it is a {} message, not a user message or a tool \
             result (`retrace points` lists them)",
            session.label(at),
            session.role(at)
        )));
    }
    if let Some(w) = step.waiting.first() {
        let more = match step.waiting.len() {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        return Err(EditError::Invalid(format!(
            "{} is not a safe fork point: tool call \"{}\" (at {}){more} would be left \
             without its result, which comes later on the branch",
            session.label(at),
            w.call,
            session.label(w.entry)
        )));
    }
    Ok(())
}

/// A JSON string literal.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// pi: a new header line in place of the first: `type`, `version`, the
/// new `id` and `timestamp`, `cwd`, the header's other fields (in key
/// order), then the parent.
fn pi_header(bytes: &mut Vec<u8>, version: u32, lineage: &ForkLineage) -> Result<Note, EditError> {
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .unwrap_or(bytes.len());
    // Parsed as a `Value`, the type every body is read as (one parser in
    // the viewer's worker, not two).
    let old = match serde_json::from_slice(&bytes[..end]) {
        Ok(Value::Object(old)) if old.get("type").and_then(Value::as_str) == Some("session") => old,
        _ => {
            return Err(EditError::Invalid(
                "the branch has no pi session header".into(),
            ))
        }
    };
    let parent_key = if version == 1 {
        "branchedFrom"
    } else {
        "parentSession"
    };
    let mut line = String::from("{");
    let mut field = |key: &str, value: &str| {
        if line.len() > 1 {
            line.push(',');
        }
        line.push_str(&quoted(key));
        line.push(':');
        line.push_str(value);
    };
    for key in ["type", "version"] {
        if let Some(v) = old.get(key) {
            field(key, &v.to_string());
        }
    }
    field("id", &quoted(&lineage.new_session_id));
    field("timestamp", &quoted(&format_rfc3339_ms(lineage.time_ms)));
    if let Some(cwd) = old.get("cwd") {
        field("cwd", &cwd.to_string());
    }
    let named = [
        "type",
        "version",
        "id",
        "timestamp",
        "cwd",
        "parentSession",
        "branchedFrom",
    ];
    for (k, v) in &old {
        if !named.contains(&k.as_str()) {
            field(k, &v.to_string());
        }
    }
    if let Some(parent) = &lineage.parent_path {
        field(parent_key, &quoted(parent));
    }
    line.push('}');
    // Keep the header's line ending (`\r\n` or `\n`).
    let cr = end > 0 && bytes[end - 1] == b'\r';
    if cr {
        line.push('\r');
    }
    bytes.splice(..end, line.into_bytes());
    let old_id = old.get("id").and_then(Value::as_str).unwrap_or("?");
    Ok(Note {
        action: "lineage",
        line: None,
        id: None,
        message: match &lineage.parent_path {
            Some(p) => format!(
                "new header: id {} (was {old_id}), {parent_key} {p}",
                lineage.new_session_id
            ),
            None => format!(
                "new header: id {} (was {old_id}); no parent path given, so no {parent_key}",
                lineage.new_session_id
            ),
        },
    })
}

/// A splice of a line: replace `range` with `with`.
type Splice = (std::ops::Range<usize>, String);

/// What a line gets: its splices, or `None` to leave it out.
type LineEdit<'a> = dyn FnMut(&[u8], &LineScan) -> Option<Vec<Splice>> + 'a;

/// Applies the splices each line of `bytes` asks `edit` for (`None`: the
/// line is left out); how many lines changed and how many were left out.
/// `edit` is a `dyn`: one copy of this for every format, not one each.
fn edit_lines(bytes: &mut Vec<u8>, edit: &mut LineEdit) -> (usize, usize) {
    let mut out = Vec::with_capacity(bytes.len() + 64);
    let mut scan = LineScan::default();
    let (mut changed, mut dropped) = (0, 0);
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        scan_line(body, &mut scan);
        let splices = match scan.error {
            None => edit(body, &scan),
            Some(_) => Some(Vec::new()),
        };
        let Some(mut splices) = splices else {
            dropped += 1;
            continue;
        };
        if splices.is_empty() {
            out.extend_from_slice(line);
            continue;
        }
        changed += 1;
        // A line has a splice or two: sorted in place, without a generic
        // sort's code.
        for i in 1..splices.len() {
            let mut j = i;
            while j > 0 && splices[j - 1].0.start > splices[j].0.start {
                splices.swap(j - 1, j);
                j -= 1;
            }
        }
        let mut at = 0;
        for (range, with) in splices {
            out.extend_from_slice(&line[at..range.start]);
            out.extend_from_slice(with.as_bytes());
            at = range.end;
        }
        out.extend_from_slice(&line[at..]);
    }
    *bytes = out;
    (changed, dropped)
}

/// The values of the top-level string fields named `key` of a scanned
/// line.
fn top_strings<'a>(
    scan: &'a LineScan,
    line: &'a [u8],
    key: &'a str,
) -> impl Iterator<Item = std::ops::Range<usize>> + 'a {
    scan.fields
        .iter()
        .filter(move |f| {
            f.parent.is_none() && f.kind == ValueKind::String && f.key.get(line) == key.as_bytes()
        })
        .map(|f| f.value.start as usize..f.value.end as usize)
}

/// Claude Code: the new `sessionId` on every line that has one.
fn claude_session_ids(bytes: &mut Vec<u8>, lineage: &ForkLineage) -> Result<Note, EditError> {
    let new = quoted(&lineage.new_session_id);
    let new = new[1..new.len() - 1].to_owned();
    let mut old: Option<String> = None;
    let (changed, _) = edit_lines(bytes, &mut |line, scan| {
        let splices = top_strings(scan, line, "sessionId").map(|range| {
            old.get_or_insert_with(|| String::from_utf8_lossy(&line[range.clone()]).into());
            (range, new.clone())
        });
        Some(splices.collect())
    });
    if changed == 0 {
        return Ok(Note {
            action: "lineage",
            line: None,
            id: None,
            message: "no line of the branch has a sessionId: none written (Claude Code \
                      writes one on every line)"
                .into(),
        });
    }
    Ok(Note {
        action: "lineage",
        line: None,
        id: None,
        message: format!(
            "sessionId {} (was {}) on {changed} lines; write the file as {}.jsonl in the \
             project's folder for Claude Code to find it",
            lineage.new_session_id,
            old.unwrap_or_default(),
            lineage.new_session_id
        ),
    })
}

/// Codex: the first `session_meta` gets the new `id` and `forked_from_id`.
fn codex_meta(
    bytes: &mut Vec<u8>,
    lineage: &ForkLineage,
    rollbacks: usize,
) -> Result<Note, EditError> {
    let mut old: Option<String> = None;
    let mut first = true;
    let (changed, _) = edit_lines(bytes, &mut |line, scan| {
        if old.is_some() {
            return Some(Vec::new());
        }
        let meta = top_strings(scan, line, "type").any(|r| &line[r] == b"session_meta");
        let payload = scan.fields.iter().position(|f| {
            f.parent.is_none() && f.kind == ValueKind::Object && f.key.get(line) == b"payload"
        });
        // The meta's fields: under `payload`, or at the top of the first
        // line of a legacy rollout (`{"id","timestamp","instructions",…}`).
        let parent = match (meta, payload) {
            (true, Some(payload)) => Some(payload as u16),
            _ if first && top_strings(scan, line, "type").next().is_none() => None,
            _ => {
                first = false;
                return Some(Vec::new());
            }
        };
        first = false;
        let child = |key: &str| {
            scan.fields.iter().find(|f| {
                f.parent == parent
                    && f.kind == ValueKind::String
                    && f.key.get(line) == key.as_bytes()
            })
        };
        let Some(id) = child("id") else {
            return Some(Vec::new());
        };
        let id_range = id.value.start as usize..id.value.end as usize;
        let old_id = String::from_utf8_lossy(&line[id_range.clone()]).into_owned();
        let new = quoted(&lineage.new_session_id);
        let mut splices = vec![(id_range.clone(), new[1..new.len() - 1].to_owned())];
        match child("forked_from_id") {
            Some(f) => splices.push((f.value.start as usize..f.value.end as usize, old_id.clone())),
            // After the id's closing quote.
            None => splices.push((
                id_range.end + 1..id_range.end + 1,
                format!(",\"forked_from_id\":\"{old_id}\""),
            )),
        }
        old = Some(old_id);
        Some(splices)
    });
    let Some(old) = old.filter(|_| changed == 1) else {
        return Err(EditError::Invalid(
            "the branch has no session_meta line with a payload id".into(),
        ));
    };
    let rollbacks = match rollbacks {
        0 => String::new(),
        n => format!(
            "; {n} thread_rolled_back line(s) left out (the branch already leaves the turns \
             they drop out)"
        ),
    };
    Ok(Note {
        action: "lineage",
        line: None,
        id: None,
        message: format!(
            "session_meta: id {} and forked_from_id {old}; name the file \
             rollout-<local time>-{}.jsonl for Codex to find it{rollbacks}",
            lineage.new_session_id, lineage.new_session_id
        ),
    })
}

/// Event streams: a `state_transition` appended that records the lineage.
/// The line is written here, as `model::event::Event` would serialize it
/// (`data`'s keys sorted, the time to the microsecond): going through
/// `Event` and `serde_json::Value` cost the viewer's worker kilobytes.
fn events_lineage(
    bytes: &mut Vec<u8>,
    session: &Session,
    at: EntryId,
    lineage: &ForkLineage,
) -> Result<Note, EditError> {
    // Years 0000 to 9999: what RFC 3339 can write.
    if !(-62_167_219_200_000..=253_402_300_799_999).contains(&lineage.time_ms) {
        return Err(EditError::Invalid(format!(
            "{} ms is out of range",
            lineage.time_ms
        )));
    }
    let time = format_rfc3339_ms(lineage.time_ms);
    let mut line = String::from(r#"{"event_type":"state_transition","timestamp":""#);
    // To the microsecond, as `Event` writes it.
    line.push_str(&time[..time.len() - 1]);
    line.push_str(r#"000Z","data":{"from_node":"parent","state_diff":{"lineage":{"forked_at":"#);
    line.push_str(&quoted(&session.label(at)));
    line.push_str(r#","parent_session":"#);
    match &lineage.parent_path {
        Some(p) => line.push_str(&quoted(p)),
        None => line.push_str("null"),
    }
    line.push_str(r#","session_id":"#);
    line.push_str(&quoted(&lineage.new_session_id));
    line.push_str(r#"}},"to_node":"fork"}}"#);
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    Ok(Note {
        action: "lineage",
        line: None,
        id: None,
        message: format!(
            "a state_transition event (parent → fork) appended with the lineage: session {}",
            lineage.new_session_id
        ),
    })
}
