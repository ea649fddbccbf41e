//! Auto-seal: each tool call a branch leaves without a result gets a
//! compensating result in the format's own shape, marked as an error,
//! naming the stage the call stopped at where the session tells it, with a
//! recommendation.
//!
//! The output is a new file of the branch (what [`export_branch`] writes:
//! each original line byte for byte) with the sealing results inserted
//! right after the message that holds their calls, since Anthropic and
//! OpenAI want a call's result in the very next message. Where a format
//! links lines by parent ids (pi, Claude Code), a sealing line takes the
//! call's line as its parent and the line that followed the call is
//! re-parented onto it: that line's parent id is the only byte changed.
//! Codex orders by position, so nothing is re-parented. An events stream
//! carries a call's output in the call's own event: it has nothing to
//! seal. A Gemini CLI call holds its own result: its record is written
//! again with the result in it (re-appended to a `.jsonl` log, in place in
//! a `.json` document; see [`gemini`](super::gemini)). A provider list
//! gets each result in the API's shape where the API wants it, the list's
//! outer shape kept (see [`lists`](super::lists)); a call without an id (a
//! Google list) is answered by the next result of its name, as the API
//! pairs them. AgentScope lists and generic lines are not sealed (write
//! them through `migrate`, which answers every call).
//!
//! [`export_branch`]: crate::export_branch

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::gemini;
#[cfg(feature = "list-writers")]
use super::lists;
use crate::edit::{Answer, EditError, Edited, Note, Stamp};
use crate::model::entry::EntryId;
use crate::model::format_id::Format;
use crate::model::message::Part;
use crate::model::time::format_rfc3339_ms;
use crate::session::{line_range, Session};
use crate::source::Source;

/// Where a tool call stopped, as far as the session tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Asked for, not yet acted on.
    Pending,
    /// Waiting for the person's approval.
    ApprovalRequired,
    /// Approved, not yet started.
    Approved,
    /// Started: it may have had effects.
    Executing,
    /// The session does not say.
    Unknown,
}

impl Stage {
    /// The stage in words (`approval required`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Pending => "pending",
            Stage::ApprovalRequired => "approval required",
            Stage::Approved => "approved",
            Stage::Executing => "executing",
            Stage::Unknown => "unknown",
        }
    }

    /// What to do before trying the call again.
    pub fn recommendation(self) -> &'static str {
        match self {
            Stage::Executing | Stage::Unknown => {
                "it may have run: check for side effects before retrying"
            }
            _ => "re-validate the arguments and retry",
        }
    }
}

/// A tool call a branch leaves without a result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenCall {
    /// The entry holding the call.
    pub entry: EntryId,
    /// The tool call id.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// Where it stopped.
    pub stage: Stage,
}

/// The tool calls on the branch ending at `leaf` with no result anywhere on
/// it, in branch order, each once, with the stage the session tells.
pub fn open_calls(
    session: &Session,
    source: &mut dyn Source,
    leaf: EntryId,
) -> Result<Vec<OpenCall>, EditError> {
    let branch = session.branch(leaf);
    let mut calls: Vec<OpenCall> = Vec::new();
    let mut answered: HashSet<String> = HashSet::new();
    let mut seen: HashSet<String> = HashSet::new();
    // Calls without an id (Google's), answered by name in order.
    let mut unnamed_answered: Vec<bool> = Vec::new();
    for &e in &branch {
        for m in session.messages(e, source)? {
            for (i, part) in m.content.iter().enumerate() {
                match part {
                    Part::ToolCall { id, name, .. } if id.is_empty() || seen.insert(id.clone()) => {
                        calls.push(OpenCall {
                            entry: e,
                            id: id.clone(),
                            name: name.clone(),
                            stage: Stage::Unknown,
                        });
                        unnamed_answered.push(false);
                    }
                    Part::ToolResult { call_id, .. } if call_id.is_empty() => {
                        let name = m.part_extra(i).and_then(|x| x.tool_name.as_deref());
                        let waiting =
                            |c: &(usize, &OpenCall)| c.1.id.is_empty() && !unnamed_answered[c.0];
                        let by_name = calls
                            .iter()
                            .enumerate()
                            .filter(waiting)
                            .find(|(_, c)| Some(c.name.as_str()) == name);
                        let oldest = calls.iter().enumerate().find(waiting);
                        if let Some((k, _)) = by_name.or(oldest) {
                            unnamed_answered[k] = true;
                        }
                    }
                    Part::ToolResult { call_id, .. } => {
                        answered.insert(call_id.clone());
                    }
                    _ => {}
                }
            }
        }
    }
    let mut k = 0;
    calls.retain(|c| {
        k += 1;
        match c.id.is_empty() {
            true => !unnamed_answered[k - 1],
            false => !answered.contains(&c.id),
        }
    });
    for call in &mut calls {
        call.stage = stage(session, source, &branch, call)?;
    }
    Ok(calls)
}

/// The stage a call stopped at: the last event after it on the branch that
/// names its id and tells, else what its own record says (a Gemini CLI
/// call's `status`), else unknown. Codex writes approval requests and begin
/// events. Claude Code writes no line for a permission prompt (a refusal is
/// a result), but a `PostToolUse` hook's `progress` line names the call
/// (`toolUseID`) and is written after the tool ran, before its result
/// line: a call with one but no result was executed.
fn stage(
    session: &Session,
    source: &mut dyn Source,
    branch: &[EntryId],
    call: &OpenCall,
) -> Result<Stage, EditError> {
    let mut stage = Stage::Unknown;
    if let Ok(record) = session.body(call.entry, source)? {
        let own = record["toolCalls"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|c| c["id"] == call.id.as_str());
        // Gemini CLI's scheduler states (`scheduler/types.ts`).
        stage = match own.and_then(|c| c["status"].as_str()) {
            Some("validating" | "scheduled") => Stage::Pending,
            Some("awaiting_approval") => Stage::ApprovalRequired,
            Some("executing") => Stage::Executing,
            _ => Stage::Unknown,
        };
    }
    if call.id.is_empty() {
        return Ok(stage);
    }
    let needle = call.id.as_bytes();
    for &e in branch.iter().filter(|&&e| e > call.entry) {
        let entry = session.entry(e);
        let bytes = source.read(entry.file, entry.range())?;
        if memchr::memmem::find(&bytes, needle).is_none() {
            continue;
        }
        let Ok(value) = serde_json::from_slice::<Value>(&bytes) else {
            continue;
        };
        let kind = value
            .pointer("/payload/type")
            .or_else(|| value.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        stage = match kind {
            "exec_approval_request" | "apply_patch_approval_request" | "elicitation_request" => {
                Stage::ApprovalRequired
            }
            "exec_command_begin" | "patch_apply_begin" | "mcp_tool_call_begin" => Stage::Executing,
            "progress"
                if value.pointer("/data/hookEvent").and_then(Value::as_str)
                    == Some("PostToolUse")
                    && value["toolUseID"] == call.id.as_str() =>
            {
                Stage::Executing
            }
            _ => stage,
        };
    }
    Ok(stage)
}

/// The sealing text of a call.
fn text(call: &OpenCall) -> String {
    format!(
        "Tool call interrupted (stage: {}): no result was recorded; sealed by retrace. \
         Recommendation: {}.",
        call.stage.as_str(),
        call.stage.recommendation()
    )
}

/// Seals the branch ending at `leaf` (see the module doc): a new file of
/// the branch with a compensating error result after each call left
/// without one, and a note per sealed call. With no open call the bytes
/// are the branch as [`export_branch`](crate::export_branch) writes it.
/// With `dry_run`, only says what would be sealed: the bytes stay empty.
pub fn seal(
    session: &Session,
    source: &mut dyn Source,
    leaf: EntryId,
    stamp: &mut Stamp,
    dry_run: bool,
) -> Result<Edited, EditError> {
    let format = session.file_format(session.entry(leaf).file);
    let calls = open_calls(session, source, leaf)?;
    let mut out = Edited::default();
    if !calls.is_empty()
        && !matches!(
            format,
            Format::Pi { .. }
                | Format::ClaudeCode
                | Format::Codex
                | Format::GeminiCli
                | Format::MessageList { .. }
        )
    {
        return Err(EditError::Unsupported {
            format: format.name(),
            what: "sealed (write it through migrate, which answers every call)",
        });
    }
    if calls.is_empty() && format == Format::Events {
        out.notes.push(Note {
            action: "none",
            line: None,
            id: None,
            message:
                "an events stream carries each call's output in its own event: nothing to seal"
                    .into(),
        });
    }
    for c in &calls {
        out.notes.push(Note {
            action: "sealed",
            line: Some(session.entry(c.entry).line),
            id: Some(c.id.clone()),
            message: format!(
                "tool call {} ({}) had no result: sealed as an error (stage: {}; {})",
                c.name,
                c.id,
                c.stage.as_str(),
                c.stage.recommendation()
            ),
        });
    }
    if dry_run {
        return Ok(out);
    }
    if calls.is_empty() {
        let mut w = Vec::new();
        crate::export_branch(session, source, leaf, &mut w).map_err(|e| match e {
            crate::ExportError::Source(s) => EditError::Source(s),
            crate::ExportError::Write(w) => EditError::Invalid(w.to_string()),
        })?;
        out.bytes = w;
        return Ok(out);
    }

    let answers = || -> Vec<Answer> {
        calls
            .iter()
            .map(|c| Answer {
                entry: c.entry,
                id: c.id.clone(),
                name: c.name.clone(),
                text: text(c),
            })
            .collect()
    };
    match format {
        Format::GeminiCli => {
            let (bytes, note) = gemini::seal(session, source, leaf, &answers())?;
            out.bytes = bytes;
            out.notes.push(note);
        }
        #[cfg(feature = "list-writers")]
        Format::MessageList { api } => {
            out.bytes = lists::seal(session, source, leaf, api, &answers())?;
        }
        #[cfg(not(feature = "list-writers"))]
        Format::MessageList { .. } => {
            return Err(EditError::Unsupported {
                format: format.name(),
                what: "sealed by this build (it leaves out the list writers and the migration they build on; `retrace seal` has them)",
            });
        }
        _ => {
            let entries = session.standalone_branch(leaf);
            out.bytes = write_sealed(session, source, &entries, &calls, stamp)?;
        }
    }
    Ok(out)
}

/// `entries`' lines (each once, in order, byte for byte) with a sealing
/// line after the message of each of `calls` (see the module doc): the
/// branch for [`seal`], the whole file for a repair.
pub(crate) fn write_sealed(
    session: &Session,
    source: &mut dyn Source,
    entries: &[EntryId],
    calls: &[OpenCall],
    stamp: &mut Stamp,
) -> Result<Vec<u8>, EditError> {
    let Some(&last_entry) = entries.last() else {
        return Ok(Vec::new());
    };
    let format = session.file_format(session.entry(last_entry).file);
    // Each call is answered after the last line of its message (a Claude
    // Code response is split over lines sharing a message id).
    let mut anchored: HashMap<EntryId, Vec<&OpenCall>> = HashMap::new();
    for c in calls {
        let Some(mut at) = entries.iter().position(|&e| e == c.entry) else {
            continue;
        };
        let group = session.entry(c.entry).group;
        while !group.is_none()
            && entries
                .get(at + 1)
                .is_some_and(|&n| session.entry(n).group == group)
        {
            at += 1;
        }
        anchored.entry(entries[at]).or_default().push(c);
    }

    let mut bytes = Vec::new();
    let mut written = HashSet::new();
    // Parent id → the id of the last sealing line written after it.
    let mut reparent: HashMap<String, String> = HashMap::new();
    for &e in entries {
        let entry = session.entry(e);
        if written.insert((entry.file, entry.line)) {
            let range = line_range(session, source, e)?;
            let line = source.read(entry.file, range)?;
            match parent_of(session, e).and_then(|p| reparent.get(&p).map(|n| (p, n))) {
                Some((old, new)) => {
                    bytes.extend_from_slice(&replace_parent(&line, &old, Some(new)))
                }
                None => bytes.extend_from_slice(&line),
            }
        }
        let Some(open) = anchored.get(&e) else {
            continue;
        };
        if !bytes.is_empty() && !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        let anchor_body: Value = session.body(e, source)?.unwrap_or(Value::Null);
        let anchor_id = session.id(e).map(str::to_owned);
        let mut parent = anchor_id.clone();
        // At the tail, the caller's time; between lines, the call's own
        // (the lines after it keep their order in time).
        let time_ms = match session.entry(e).timestamp() {
            Some(t) if e != last_entry => t,
            _ => stamp.time_ms,
        };
        for c in open {
            let call_line = session.id(c.entry);
            let (line, id) = sealing_line(
                format,
                &anchor_body,
                parent.as_deref(),
                call_line,
                c,
                time_ms,
                stamp,
            );
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
            if id.is_some() {
                parent = id;
            }
        }
        if let (Some(old), Some(new)) = (anchor_id, parent) {
            if old != new {
                reparent.insert(old, new);
            }
        }
    }
    Ok(bytes)
}

/// The parent id a line names (pi `parentId`, Claude Code `parentUuid`).
pub(crate) fn parent_of(session: &Session, e: EntryId) -> Option<String> {
    let p = session.entry(e).parent;
    (!p.is_none()).then(|| String::from_utf8_lossy(session.interner.get(p)).into_owned())
}

/// `line` with its parent id `old` replaced by `new` (`null` for none):
/// only the value after `"parentUuid":` or `"parentId":` changes.
pub(crate) fn replace_parent(line: &[u8], old: &str, new: Option<&str>) -> Vec<u8> {
    for key in ["\"parentUuid\":", "\"parentId\":"] {
        let Some(k) = memchr::memmem::find(line, key.as_bytes()) else {
            continue;
        };
        let mut at = k + key.len();
        while line.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
            at += 1;
        }
        let was = format!("\"{old}\"");
        if line[at..].starts_with(was.as_bytes()) {
            let mut out = Vec::with_capacity(line.len() + 40);
            out.extend_from_slice(&line[..at]);
            out.extend_from_slice(new.map_or_else(|| "null".to_owned(), quoted).as_bytes());
            out.extend_from_slice(&line[at + was.len()..]);
            return out;
        }
    }
    line.to_vec()
}

/// A JSON string literal.
fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// A JSON object with its keys in the order given (as agents write them),
/// each value already JSON. Lines are written as text rather than built
/// as `serde_json::Value`s, which cost the viewer's worker kilobytes; the
/// nested objects keep the key order a `Value` gave them (sorted).
fn object(pairs: &[(&str, String)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&quoted(k));
        out.push(':');
        out.push_str(v);
    }
    out.push('}');
    out
}

/// One sealing line and the id it carries (if the format gives ids).
/// `call_line` is the id of the line holding the call.
fn sealing_line(
    format: Format,
    anchor: &Value,
    parent: Option<&str>,
    call_line: Option<&str>,
    call: &OpenCall,
    time_ms: i64,
    stamp: &mut Stamp,
) -> (String, Option<String>) {
    let time = quoted(&format_rfc3339_ms(time_ms));
    let said = text(call);
    let text = quoted(&said);
    let (call_id, name) = (quoted(&call.id), quoted(&call.name));
    // Ids only where the session's lines have them (old pi and minimal
    // Claude Code files link lines by order).
    let id = parent.map(|_| (stamp.new_id)());
    match format {
        Format::Pi { .. } => {
            let mut line = vec![("type", r#""message""#.to_owned())];
            if let (Some(id), Some(parent)) = (&id, parent) {
                line.push(("id", quoted(id)));
                line.push(("parentId", quoted(parent)));
            }
            line.push(("timestamp", time));
            line.push((
                "message",
                format!(
                    r#"{{"content":[{{"text":{text},"type":"text"}}],"isError":true,"role":"toolResult","timestamp":{time_ms},"toolCallId":{call_id},"toolName":{name}}}"#
                ),
            ));
            (object(&line), id)
        }
        Format::ClaudeCode => {
            let mut line = Vec::new();
            if let Some(parent) = parent {
                line.push(("parentUuid", quoted(parent)));
            }
            line.push((
                "isSidechain",
                anchor
                    .get("isSidechain")
                    .map_or_else(|| "false".to_owned(), Value::to_string),
            ));
            for key in [
                "userType",
                "cwd",
                "sessionId",
                "version",
                "gitBranch",
                "agentId",
            ] {
                if let Some(v) = anchor.get(key) {
                    line.push((key, v.to_string()));
                }
            }
            line.push(("type", r#""user""#.to_owned()));
            line.push((
                "message",
                format!(
                    r#"{{"content":[{{"content":{text},"is_error":true,"tool_use_id":{call_id},"type":"tool_result"}}],"role":"user"}}"#
                ),
            ));
            if let Some(id) = &id {
                line.push(("uuid", quoted(id)));
            }
            line.push(("timestamp", time));
            line.push(("toolUseResult", quoted(&format!("Error: {said}"))));
            // The assistant line holding the call, as Claude Code's own
            // results name it: not the parent, which for a later call of
            // the message is the previous sealing line.
            if let (Some(_), Some(uuid)) = (parent, call_line) {
                line.push(("sourceToolAssistantUUID", quoted(uuid)));
            }
            (object(&line), id)
        }
        _ => {
            // Codex: a custom (freeform) call is answered in kind.
            let kind = match anchor.pointer("/payload/type").and_then(Value::as_str) {
                Some("custom_tool_call") => "custom_tool_call_output",
                _ => "function_call_output",
            };
            let line = [
                ("timestamp", time),
                ("type", r#""response_item""#.to_owned()),
                (
                    "payload",
                    format!(r#"{{"call_id":{call_id},"output":{text},"type":"{kind}"}}"#),
                ),
            ];
            (object(&line), None)
        }
    }
}
