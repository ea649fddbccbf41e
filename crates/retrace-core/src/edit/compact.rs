//! Compaction: where to cut a branch so that what is kept fits a budget,
//! and the entry that records the cut the way the format itself does.
//!
//! The plan is computed on what the model sees of the branch (after any
//! earlier compaction: its summary, then what it kept, then what followed).
//! A cut is the first entry kept; everything before it is replaced by the
//! caller's summary (core calls no model). A cut is *safe* when no tool call
//! before it waits for a result at or after it, and the first kept message
//! is not a tool result: a compacted branch never holds a result without
//! its call, nor a call whose result was summarized away. The system prompt
//! is never cut (pi and Claude Code keep none in their files; see
//! [`CompactionPlan::system_kept`]).
//!
//! Tokens are estimated from the bodies, no tokenizer: a message counts
//! `ceil(chars / 4)` of its text, thinking, tool names, arguments (as
//! compact JSON) and tool outputs, plus [`IMAGE_TOKENS`] per image.
//!
//! Written formats, each the way the agent appends its own compaction:
//! - pi (v2 and v3, whose entries have ids): a `compaction` entry appended
//!   to the file, parented on the leaf, with `summary`, `firstKeptEntryId`
//!   (the cut) and `tokensBefore` (the estimate of the context it replaces).
//!   An earlier `compaction` inside the kept range is not shown (by pi's
//!   loader nor the core) and not counted. pi v1 is refused: its entries
//!   have no ids to name the cut by, and pi migrates a v1 file to v3 in
//!   place when it opens it (the error says so).
//! - Claude Code: what Claude Code appends when it compacts and keeps a
//!   tail (reactive and partial compaction, Claude Code 2.1.x): a
//!   `compact_boundary` system line (`parentUuid` null, `logicalParentUuid`
//!   the leaf, `compactMetadata {trigger: "manual", preTokens}`), then the
//!   summary as a `user` line with `isCompactSummary` under it. The kept
//!   lines are not copied: they stay where they are, named in the
//!   boundary's `compactMetadata` as Claude Code names them,
//!   `preservedMessages {anchorUuid, uuids, allUuids}` (every kept line in
//!   the order the model sees them, side lines such as parallel tool
//!   results included; what current Claude Code's loader relinks after the
//!   anchor, the summary) and `preservedSegment {headUuid, anchorUuid,
//!   tailUuid}` (the parent chain loaders before `preservedMessages` walk,
//!   which misses side lines, as it does in Claude Code's own files). The
//!   summary is the caller's text alone: the loader keys on
//!   `isCompactSummary`, not on Claude Code's preamble. Session fields
//!   (`sessionId`, `cwd`, `version`, `gitBranch`, …) are the leaf's. A cut
//!   is at a user or assistant message; a response written over several
//!   lines is never split. A kept line whose uuid a later line of the file
//!   reuses is refused (the loader would read the later one).
//! - Codex: a `compacted` line appended after the rollout's last line, its
//!   `message` the summary and its `replacement_history` (which Codex loads
//!   in place of everything before it) the system and developer items
//!   before the cut, the summary as a user `message` item (without Codex's
//!   own summary prefix), then every response item from the cut on,
//!   verbatim. A cut is after the last `compacted` line (an item inside an
//!   earlier replacement history has no line to name). The
//!   `session_meta` instructions are not part of it: Codex sends them from
//!   there with every request.
//! - Event streams: a `compaction` event appended after the last event
//!   (`model/event.rs`: `summary`, `first_kept_event`, the number the store
//!   gives the first event kept, counted over every part of a split
//!   stream, and `tokens_before`). A cut is at something said (a user
//!   input, an LLM call, a tool call, a final output), never at a marker;
//!   an event holds a tool call with its result.
//! - Provider lists (Anthropic, OpenAI Chat and Responses, Google): a new
//!   list, not lines to append ([`CompactionPlan::appends`]): the system
//!   and developer elements before the cut, the summary as a user message,
//!   then the tail verbatim, in the list's outer shape (see
//!   [`lists`](super::lists)); a cut is at a user or assistant element.
//! - Gemini CLI: unsupported, with the reason: the chat file has no record
//!   of a compression to write (see [`gemini`](super::gemini)).
//! - Everything else (AgentScope lists, generic JSON lines):
//!   [`EditError::Unsupported`].

use std::collections::HashMap;

use chrono::DateTime;
use serde::Serialize;
use serde_json::Value;

use super::{EditError, Edited, Note, Stamp};
use crate::format::{event_seq, lines_by_id};
use crate::model::entry::EntryId;
use crate::model::event::{Compaction, Event, EventData};
use crate::model::format_id::Format;
use crate::model::message::{Message, MessageKind, Part, Role};
use crate::model::time::format_rfc3339_ms;
use crate::normalize::codex::envelope;
use crate::session::Session;
use crate::source::Source;

/// Tokens an image counts for in the estimate.
pub const IMAGE_TOKENS: u64 = 1_200;

/// How much of a branch a compaction keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "unit", content = "limit")]
pub enum Budget {
    /// At most this many messages after the summary.
    Messages(usize),
    /// At most this many tokens after the summary, estimated (see the
    /// module doc).
    Tokens(u64),
}

/// Which rule chose the cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CutRule {
    /// The earliest safe cut whose kept tail fits the budget.
    Fits,
    /// No safe cut fits: the latest safe cut, the shortest tail that
    /// separates no call from its result, over budget.
    LastSafeTail,
    /// No safe cut at all: the last message that is not a tool result.
    /// It separates the calls in [`CompactionPlan::split`] from their
    /// results, so [`compact`] refuses it (seal or repair the branch
    /// first).
    LastNonTool,
}

impl CutRule {
    /// The rule in words, for reports.
    pub fn describe(self) -> &'static str {
        match self {
            CutRule::Fits => "the earliest safe cut that fits the budget",
            CutRule::LastSafeTail => "no safe cut fits: the shortest safe tail, over budget",
            CutRule::LastNonTool => {
                "no safe cut: the last message that is not a tool result (splits tool pairs)"
            }
        }
    }
}

/// Where to cut a branch, and what that keeps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompactionPlan {
    /// The format the compaction will be written in.
    pub format: Format,
    /// The branch's last entry, which the compaction follows.
    #[serde(skip)]
    pub leaf: EntryId,
    /// Its id (or label).
    pub leaf_id: String,
    /// The first entry kept.
    #[serde(skip)]
    pub cut: EntryId,
    /// Its id.
    pub cut_id: String,
    /// Its line (from 1).
    pub cut_line: u32,
    /// The rule that chose the cut.
    pub rule: CutRule,
    /// The budget asked for.
    pub budget: Budget,
    /// Messages the model sees before the compaction (an earlier summary
    /// included).
    pub messages_before: usize,
    /// Their estimated tokens.
    pub tokens_before: u64,
    /// Messages kept after the new summary.
    pub kept_messages: usize,
    /// Their estimated tokens.
    pub kept_tokens: u64,
    /// Whether the kept tail fits the budget.
    pub fits: bool,
    /// Whether every system message of the context is still in it (pi and
    /// Claude Code files hold none: the agent builds its system prompt at
    /// each start; markers do not count).
    pub system_kept: bool,
    /// Tool calls the cut separates from their results (only with
    /// [`CutRule::LastNonTool`]).
    pub split: Vec<String>,
}

impl CompactionPlan {
    /// Whether [`compact`] gives lines to append to the leaf's file (pi,
    /// Codex) rather than a new file (a provider list, rewritten whole).
    pub fn appends(&self) -> bool {
        !matches!(self.format, Format::MessageList { .. })
    }
}

/// The estimated tokens of one message (see the module doc).
pub fn estimate_tokens(m: &Message) -> u64 {
    let mut chars = 0usize;
    let mut images = 0u64;
    for part in &m.content {
        match part {
            Part::Text { text } | Part::Thinking { text, .. } => chars += text.chars().count(),
            Part::ToolCall {
                name, arguments, ..
            } => chars += name.chars().count() + arguments.to_string().chars().count(),
            Part::ToolResult { output, .. } => chars += output.chars().count(),
            Part::Image { .. } => images += 1,
            Part::Checkpoint { .. } => {}
        }
    }
    (chars as u64).div_ceil(4) + images * IMAGE_TOKENS
}

/// One entry of the branch the model sees, with its messages' measures.
struct Unit {
    entry: EntryId,
    messages: usize,
    tokens: u64,
    /// Can be the first entry kept: a message entry with an id, not a
    /// compaction, whose first message is not a tool result.
    candidate: bool,
    system: bool,
    calls: Vec<String>,
    results: Vec<String>,
}

impl Unit {
    /// Counts the tool calls and results of one of its messages.
    fn tally(&mut self, m: &Message) {
        for part in &m.content {
            match part {
                Part::ToolCall { id, .. } => self.calls.push(id.clone()),
                Part::ToolResult { call_id, .. } => self.results.push(call_id.clone()),
                _ => {}
            }
        }
    }
}

/// The compaction plan of the branch ending at `leaf` for `budget` (see
/// the module doc for the rules and the estimate).
pub fn plan<S: Source + ?Sized>(
    session: &Session,
    source: &mut S,
    leaf: EntryId,
    budget: Budget,
) -> Result<CompactionPlan, EditError> {
    let format = session.file_format(session.entry(leaf).file);
    let units = match format {
        Format::Pi { version } if version >= 2 && session.id(leaf).is_some() => {
            pi_units(session, source, leaf)?
        }
        Format::Pi { version } if version < 2 => {
            return Err(EditError::Invalid(
                "pi v1 sessions cannot be compacted: their entries have no ids for the \
                 compaction to name its first kept entry by. Open the session in pi once \
                 (pi migrates a v1 file to v3 in place), then compact it"
                    .to_owned(),
            ))
        }
        Format::Pi { .. } => {
            return Err(EditError::Invalid(format!(
                "{} has no id for a pi compaction to follow",
                session.label(leaf)
            )))
        }
        Format::Codex => codex_units(session, source, leaf)?,
        Format::MessageList { .. } => list_units(session, source, leaf)?,
        Format::GeminiCli => {
            return Err(EditError::Unsupported {
                format: "gemini-cli",
                what: super::gemini::NO_COMPACTION,
            })
        }
        Format::ClaudeCode => claude_units(session, source, leaf)?,
        Format::Events => event_units(session, source, leaf)?,
        other => {
            return Err(EditError::Unsupported {
                format: other.name(),
                what: "compacted",
            })
        }
    };
    let messages_before = session.context(leaf, source)?;
    let tokens_before = messages_before.iter().map(estimate_tokens).sum();
    if !units.iter().any(|u| u.candidate) {
        return Err(EditError::Invalid(format!(
            "the branch ending at {} has no message after its last compaction to keep",
            session.label(leaf)
        )));
    }

    // Tail sums, from the end.
    let n = units.len();
    let mut tail_messages = vec![0usize; n + 1];
    let mut tail_tokens = vec![0u64; n + 1];
    for i in (0..n).rev() {
        tail_messages[i] = tail_messages[i + 1] + units[i].messages;
        tail_tokens[i] = tail_tokens[i + 1] + units[i].tokens;
    }
    let fits = |k: usize| match budget {
        Budget::Messages(limit) => tail_messages[k] <= limit,
        Budget::Tokens(limit) => tail_tokens[k] <= limit,
    };
    let split_at = |k: usize| split_calls(&units, k);

    let safe: Vec<usize> = (0..n)
        .filter(|&k| units[k].candidate && split_at(k).is_empty())
        .collect();
    let (k, rule) = match safe.iter().find(|&&k| fits(k)) {
        Some(&k) => (k, CutRule::Fits),
        None => match safe.last() {
            Some(&k) => (k, CutRule::LastSafeTail),
            None => {
                let k = (0..n).rev().find(|&k| units[k].candidate).expect("checked");
                (k, CutRule::LastNonTool)
            }
        },
    };
    let cut = units[k].entry;
    Ok(CompactionPlan {
        format,
        leaf,
        leaf_id: session.label(leaf),
        cut,
        cut_id: session.label(cut),
        cut_line: session.entry(cut).line,
        rule,
        budget,
        messages_before: messages_before.len(),
        tokens_before,
        kept_messages: tail_messages[k],
        kept_tokens: tail_tokens[k],
        fits: fits(k),
        // Codex and lists carry the system items before the cut over.
        system_kept: matches!(format, Format::Codex | Format::MessageList { .. })
            || !units[..k].iter().any(|u| u.system),
        split: split_at(k),
    })
}

/// The entries of a pi branch the model sees that a cut can keep (see
/// [`path_units`]); a cut names its entry by id.
fn pi_units<S: Source + ?Sized>(
    session: &Session,
    source: &mut S,
    leaf: EntryId,
) -> Result<Vec<Unit>, EditError> {
    let view = session.view();
    let rules = session.rules_of(leaf);
    path_units(session, source, leaf, |e, messages| {
        rules.is_message(&view, e)
            && session.id(e).is_some()
            && messages.first().is_some_and(|m| !is_result(m))
    })
}

/// The events of a stream the model sees that a cut can keep (see
/// [`path_units`]): a cut is at something said (`user_input`, `llm_call`,
/// `tool_call`, `final_output`), never at a marker. An event carries a
/// tool call with its result, so no event separates a pair.
fn event_units<S: Source + ?Sized>(
    session: &Session,
    source: &mut S,
    leaf: EntryId,
) -> Result<Vec<Unit>, EditError> {
    path_units(session, source, leaf, |e, messages| {
        matches!(
            session.kind(e),
            "user_input" | "llm_call" | "tool_call" | "final_output"
        ) && messages.first().is_some_and(|m| !is_result(m))
    })
}

/// The entries of the branch the model sees that a cut can keep, for a
/// format whose compaction names its first kept entry on the path (pi,
/// event streams): from the first entry the last compaction kept (or the
/// first after it) to the leaf, in path order. An earlier compaction
/// inside that range stays (with no message: a reader skips it).
/// `candidate` says whether an entry, with its messages, can be the first
/// kept (never a compaction).
fn path_units<S: Source + ?Sized>(
    session: &Session,
    source: &mut S,
    leaf: EntryId,
    candidate: impl Fn(EntryId, &[Message]) -> bool,
) -> Result<Vec<Unit>, EditError> {
    let rules = session.rules_of(leaf);
    let view = session.view();
    let path = session.branch(leaf);
    let context = rules.context_entries(&view, &path);
    let first = match context.first() {
        Some(&c) if rules.is_compaction(&view, c) => context.get(1).copied(),
        other => other.copied(),
    };
    let Some(first) = first else {
        return Ok(Vec::new());
    };
    let start = path.iter().position(|&e| e == first).unwrap_or(path.len());
    let mut out = Vec::new();
    for &e in &path[start..] {
        // An earlier compaction inside the kept range is not shown (see
        // the pi rules' `context_entries`).
        let messages = match rules.is_compaction(&view, e) {
            true => Vec::new(),
            false => session.messages(e, source)?,
        };
        let mut unit = Unit {
            entry: e,
            messages: messages.len(),
            tokens: messages.iter().map(estimate_tokens).sum(),
            candidate: !rules.is_compaction(&view, e) && candidate(e, &messages),
            system: messages
                .iter()
                .any(|m| m.role == Role::System && m.kind != MessageKind::Marker),
            calls: Vec::new(),
            results: Vec::new(),
        };
        for m in &messages {
            unit.tally(m);
        }
        out.push(unit);
    }
    Ok(out)
}

/// The messages of a Codex branch the model sees (from its last
/// `compacted` line), one unit each: a rollout spreads one response over
/// several lines (reasoning, calls), so a unit starts at the first line of
/// its message. A cut is at a user or assistant message read from a
/// `response_item` line (not from an earlier compaction's history).
/// The instructions of `session_meta` are not counted as a system prompt
/// to keep: Codex sends them from there with every request.
fn codex_units<S: Source + ?Sized>(
    session: &Session,
    source: &mut S,
    leaf: EntryId,
) -> Result<Vec<Unit>, EditError> {
    let context = session.context(leaf, source)?;
    let mut out = Vec::new();
    for m in &context {
        let Some(entry) = m.entries.first().and_then(|l| session.find(l)) else {
            continue;
        };
        let kind = session.kind(entry);
        let mut unit = Unit {
            entry,
            messages: 1,
            tokens: estimate_tokens(m),
            candidate: matches!(m.role, Role::User | Role::Assistant)
                && m.kind != crate::model::message::MessageKind::Marker
                && kind == "response_item"
                && !is_result(m),
            system: m.role == Role::System
                && m.kind != crate::model::message::MessageKind::Marker
                && kind != "session_meta",
            calls: Vec::new(),
            results: Vec::new(),
        };
        unit.tally(m);
        out.push(unit);
    }
    Ok(out)
}

/// The elements of a provider list's branch, one unit each: a cut is at a
/// user or assistant message that is not a tool result.
fn list_units<S: Source + ?Sized>(
    session: &Session,
    source: &mut S,
    leaf: EntryId,
) -> Result<Vec<Unit>, EditError> {
    let mut out = Vec::new();
    for (entry, messages) in super::lists::context_units(session, &mut Dyn(source), leaf)? {
        let said = |m: &Message| m.kind != crate::model::message::MessageKind::Marker;
        let mut unit = Unit {
            entry,
            messages: messages.len(),
            tokens: messages.iter().map(estimate_tokens).sum(),
            candidate: messages.first().is_some_and(|m| {
                matches!(m.role, Role::User | Role::Assistant) && said(m) && !is_result(m)
            }),
            system: messages.iter().any(|m| m.role == Role::System && said(m)),
            calls: Vec::new(),
            results: Vec::new(),
        };
        for m in &messages {
            unit.tally(m);
        }
        out.push(unit);
    }
    Ok(out)
}

/// The messages of a Claude Code branch the model sees (from its last
/// `compact_boundary`: the summary, the lines that compaction kept, what
/// followed), one unit each, its entry the message's first line. A
/// response written over several lines is one message, so a cut is at a
/// message only when every line of the messages before it comes before it
/// in that order. A cut is at a user or assistant message other than the
/// summary; what it keeps is every line from it on, attachments and
/// system lines included.
fn claude_units<S: Source + ?Sized>(
    session: &Session,
    source: &mut S,
    leaf: EntryId,
) -> Result<Vec<Unit>, EditError> {
    if session.id(leaf).is_none() {
        return Err(EditError::Invalid(format!(
            "{} has no uuid for a compaction to follow (a file without uuids cannot name the lines it keeps)",
            session.label(leaf)
        )));
    }
    let entries = session.context_entries(leaf, source)?;
    let position: HashMap<String, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, &e)| (session.label(e), i))
        .collect();
    let context = session.context(leaf, source)?;
    let mut out = Vec::with_capacity(context.len());
    // The last position of a line of the messages so far.
    let mut reached: Option<usize> = None;
    for m in &context {
        let at: Vec<usize> = m
            .entries
            .iter()
            .filter_map(|l| position.get(l).copied())
            .collect();
        let (Some(&first), Some(&last)) = (at.iter().min(), at.iter().max()) else {
            continue;
        };
        let entry = entries[first];
        let mut unit = Unit {
            entry,
            messages: 1,
            tokens: estimate_tokens(m),
            candidate: matches!(m.role, Role::User | Role::Assistant)
                && m.kind != MessageKind::CompactionSummary
                && !is_result(m)
                && session.id(entry).is_some()
                && reached.is_none_or(|r| r < first),
            system: false,
            calls: Vec::new(),
            results: Vec::new(),
        };
        unit.tally(m);
        out.push(unit);
        reached = Some(reached.map_or(last, |r| r.max(last)));
    }
    Ok(out)
}

/// What Claude Code appends when it compacts and keeps a tail: a
/// `compact_boundary` system line (`parentUuid` null, `logicalParentUuid`
/// the leaf) whose `compactMetadata` names the kept lines, in the order the
/// model sees them, as `preservedMessages {anchorUuid, uuids, allUuids}`
/// and, for loaders before it, `preservedSegment {headUuid, anchorUuid,
/// tailUuid}`; then the summary, a `user` line with `isCompactSummary`
/// under the boundary, which is the anchor the kept lines follow. The kept
/// lines stay where they are. `uuids` leaves out `progress` lines (Claude
/// Code's loader bridges them and holds none to relink); `allUuids` has
/// every kept line. The session fields (`sessionId`, `cwd`, `version`,
/// `gitBranch`, …) are the leaf's. Gives both lines and the boundary's id.
fn claude_lines<S: Source + ?Sized>(
    session: &Session,
    source: &mut S,
    plan: &CompactionPlan,
    summary: &str,
    stamp: &mut Stamp,
) -> Result<(String, String), EditError> {
    let Some(leaf_id) = session.id(plan.leaf) else {
        return Err(EditError::Invalid(format!(
            "{} has no uuid for a compaction to follow",
            plan.leaf_id
        )));
    };
    let entries = session.context_entries(plan.leaf, source)?;
    let k = entries
        .iter()
        .position(|&e| e == plan.cut)
        .ok_or_else(|| EditError::Invalid(format!("{} is not on the branch", plan.cut_id)))?;
    let all: Vec<&str> = entries[k..].iter().filter_map(|&e| session.id(e)).collect();
    let uuids: Vec<&str> = entries[k..]
        .iter()
        .filter(|&&e| session.kind(e) != "progress")
        .filter_map(|&e| session.id(e))
        .collect();
    let (Some(head), Some(tail)) = (uuids.first(), uuids.last()) else {
        return Err(EditError::Invalid(format!(
            "nothing from {} on has a uuid to keep",
            plan.cut_id
        )));
    };
    // A uuid the file uses twice names its last line to Claude Code's
    // loader (and the reader): each kept line must be the one its uuid
    // names.
    let file = session.entry(plan.leaf).file;
    if let Some(&e) = entries[k..]
        .iter()
        .find(|&&e| session.entry(e).file != file)
    {
        return Err(EditError::Invalid(format!(
            "the kept line {} is in another file than the leaf's: Claude Code reads a session from its own file",
            session.line_label(e)
        )));
    }
    let named = lines_by_id(&session.view(), file, &uuids).unwrap_or_default();
    let kept = entries[k..]
        .iter()
        .filter(|&&e| session.kind(e) != "progress" && session.id(e).is_some());
    if let Some((&e, _)) = kept.zip(&named).find(|(&e, &n)| e != n) {
        return Err(EditError::Invalid(format!(
            "the kept line {} shares its uuid {} with a later line: it cannot be named (repair the file first)",
            session.line_label(e),
            session.id(e).unwrap_or_default()
        )));
    }
    let mut fresh = |taken: &[&str]| -> Result<String, EditError> {
        let id = (stamp.new_id)();
        if session.find(&id).is_some() || taken.contains(&id.as_str()) {
            return Err(EditError::Invalid(format!(
                "the id {id} is already in the session"
            )));
        }
        Ok(id)
    };
    let boundary_id = fresh(&[])?;
    let summary_id = fresh(&[&boundary_id])?;

    let leaf = session.body(plan.leaf, source)?.unwrap_or_default();
    let string = |s: &str| Value::from(s).to_string();
    let list = |ids: &[&str]| Value::from(ids).to_string();
    // The fields Claude Code writes on every line, in its order: before
    // the line's own fields, and after them.
    let fields = |keys: &[&str]| -> String {
        keys.iter()
            .filter_map(|&k| leaf.get(k).map(|v| format!(",\"{k}\":{v}")))
            .collect()
    };
    let sidechain = leaf
        .get("isSidechain")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let before = format!(
        "\"isSidechain\":{sidechain}{}",
        fields(&["teamName", "agentName", "agentId"])
    );
    let after = fields(&[
        "sessionKind",
        "userType",
        "entrypoint",
        "cwd",
        "sessionId",
        "version",
        "gitBranch",
        "slug",
    ]);
    let time = string(&format_rfc3339_ms(stamp.time_ms));
    let boundary = format!(
        "{{\"parentUuid\":null,\"logicalParentUuid\":{},{before},\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"isMeta\":false,\"timestamp\":{time},\"uuid\":{},\"level\":\"info\",\"compactMetadata\":{{\"trigger\":\"manual\",\"preTokens\":{},\"preservedSegment\":{{\"headUuid\":{},\"anchorUuid\":{},\"tailUuid\":{}}},\"preservedMessages\":{{\"anchorUuid\":{},\"uuids\":{},\"allUuids\":{}}}}}{after}}}",
        string(leaf_id),
        string(&boundary_id),
        plan.tokens_before,
        string(head),
        string(&summary_id),
        string(tail),
        string(&summary_id),
        list(&uuids),
        list(&all),
    );
    let summary_line = format!(
        "{{\"parentUuid\":{},{before},\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":{}}},\"isCompactSummary\":true,\"uuid\":{},\"timestamp\":{time}{after}}}",
        string(&boundary_id),
        string(summary),
        string(&summary_id),
    );
    Ok((format!("{boundary}\n{summary_line}"), boundary_id))
}

/// An event stream's `compaction` event, to append after its last line:
/// the summary, the number of the first event kept (as the store numbers
/// them, see [`Compaction`]) and the estimate of what it replaces.
fn event_line(
    session: &Session,
    plan: &CompactionPlan,
    summary: &str,
    time_ms: i64,
) -> Result<String, EditError> {
    let leaf = plan.leaf;
    let path = session.branch(leaf);
    // The stream is one line after another: a line appended follows its
    // last event.
    if session.tree().children(leaf).len() > 0 {
        return Err(EditError::Invalid(format!(
            "an event stream is compacted after its last event, not at {}",
            plan.leaf_id
        )));
    }
    let seq = event_seq(&session.view(), &path, plan.cut).ok_or_else(|| {
        EditError::Invalid(format!("{} is not an event of the stream", plan.cut_id))
    })?;
    let time = DateTime::from_timestamp_millis(time_ms)
        .ok_or_else(|| EditError::Invalid(format!("{time_ms} ms is out of range")))?;
    let event = Event::new(
        time,
        EventData::Compaction(Compaction {
            summary: summary.to_owned(),
            first_kept_event: Some(seq),
            tokens_before: Some(plan.tokens_before),
            extra: serde_json::Map::new(),
        }),
    );
    serde_json::to_string(&event).map_err(|e| EditError::Invalid(e.to_string()))
}

/// pi's `compaction` entry, parented on the leaf.
fn pi_line(
    session: &Session,
    plan: &CompactionPlan,
    summary: &str,
    id: &str,
    time_ms: i64,
) -> Result<String, EditError> {
    let (Some(leaf_id), Some(cut_id)) = (session.id(plan.leaf), session.id(plan.cut)) else {
        return Err(EditError::Invalid(
            "the leaf and the cut need ids to be compacted".to_owned(),
        ));
    };
    if session.find(id).is_some() {
        return Err(EditError::Invalid(format!(
            "the id {id} is already in the session"
        )));
    }
    // pi's own key order (serde_json would sort them).
    let string = |s: &str| serde_json::Value::from(s).to_string();
    Ok(format!(
        "{{\"type\":\"compaction\",\"id\":{},\"parentId\":{},\"timestamp\":{},\"summary\":{},\"firstKeptEntryId\":{},\"tokensBefore\":{}}}",
        string(id),
        string(leaf_id),
        string(&format_rfc3339_ms(time_ms)),
        string(summary),
        string(cut_id),
        plan.tokens_before,
    ))
}

/// Codex's `compacted` line: `message` is the summary, and
/// `replacement_history` (which Codex loads in place of everything before
/// it) holds the system and developer items before the cut, the summary as
/// a user message, then every response item from the cut on, verbatim.
/// A rollout is one line after another: the leaf must be its last line.
fn codex_line<S: Source + ?Sized>(
    session: &Session,
    source: &mut S,
    plan: &CompactionPlan,
    summary: &str,
    time_ms: i64,
) -> Result<String, EditError> {
    let leaf = plan.leaf;
    let end = session.files()[session.entry(leaf).file.0 as usize].end_entry;
    if (leaf.0 + 1..end).any(|e| session.tree().contains(EntryId(e))) {
        return Err(EditError::Invalid(format!(
            "a Codex rollout is compacted after its last line, not at {}",
            plan.leaf_id
        )));
    }
    let rules = session.rules_of(leaf);
    let branch = session.branch(leaf);
    let context = rules.context_entries(&session.view(), &branch);
    let k = context
        .iter()
        .position(|&e| e == plan.cut)
        .ok_or_else(|| EditError::Invalid(format!("{} is not on the branch", plan.cut_id)))?;
    let summary_item = serde_json::json!({
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": summary}],
    });
    let mut history: Vec<serde_json::Value> = Vec::new();
    if k == 0 {
        history.push(summary_item.clone());
    }
    let system = |item: &serde_json::Value| {
        item.get("type").and_then(serde_json::Value::as_str) == Some("message")
            && matches!(
                item.get("role").and_then(serde_json::Value::as_str),
                Some("system" | "developer")
            )
    };
    for (i, &e) in context.iter().enumerate() {
        let Ok(line) = session.body(e, source)? else {
            continue;
        };
        match envelope(&line) {
            Some(("response_item", item)) if i >= k || system(item) => history.push(item.clone()),
            Some(("compacted", payload)) if i < k => {
                let earlier = payload
                    .get("replacement_history")
                    .and_then(|h| h.as_array());
                history.extend(earlier.into_iter().flatten().filter(|i| system(i)).cloned());
            }
            _ => {}
        }
        if i + 1 == k {
            history.push(summary_item.clone());
        }
    }
    let payload = serde_json::json!({
        "message": summary,
        "replacement_history": history,
    });
    Ok(format!(
        "{{\"timestamp\":{},\"type\":\"compacted\",\"payload\":{}}}",
        serde_json::Value::from(format_rfc3339_ms(time_ms)),
        payload
    ))
}

/// A tool's output (its role, or a result part first).
fn is_result(m: &Message) -> bool {
    m.role == Role::Tool || matches!(m.content.first(), Some(Part::ToolResult { .. }))
}

/// The calls before `k` answered at or after it.
fn split_calls(units: &[Unit], k: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for call in units[..k].iter().flat_map(|u| &u.calls) {
        if units[k..].iter().any(|u| u.results.contains(call)) && !out.contains(call) {
            out.push(call.clone());
        }
    }
    out
}

/// The compaction of `plan` with the caller's `summary`, in the session's
/// format (see the module doc): the lines to append to the leaf's file (a
/// newline first when the file's last line has none), with the id of the
/// line that records it where the format gives lines ids. New ids (two for
/// Claude Code: the boundary's, then the summary's) and the time come from
/// `stamp`. Refuses a plan that splits tool pairs ([`CutRule::LastNonTool`]).
pub fn compact<S: Source + ?Sized>(
    session: &Session,
    source: &mut S,
    plan: &CompactionPlan,
    summary: &str,
    stamp: &mut Stamp,
) -> Result<Edited, EditError> {
    if !plan.split.is_empty() {
        return Err(EditError::Invalid(format!(
            "cutting at {} would separate {} tool call(s) from their results ({}): seal or repair the branch first",
            plan.cut_id,
            plan.split.len(),
            plan.split.join(", ")
        )));
    }
    let leaf = plan.leaf;
    if let Format::MessageList { api } = plan.format {
        return list_compacted(session, source, plan, api, summary);
    }
    let file = session.entry(leaf).file;
    let info = &session.files()[file.0 as usize];
    if info.gzip.is_some() {
        return Err(EditError::Invalid(format!(
            "{} is gzip: decompress it before appending a compaction",
            info.name
        )));
    }
    let (entry, id) = match plan.format {
        Format::Codex => (
            codex_line(session, source, plan, summary, stamp.time_ms)?,
            None,
        ),
        Format::ClaudeCode => {
            let (lines, id) = claude_lines(session, source, plan, summary, stamp)?;
            (lines, Some(id))
        }
        Format::Events => (event_line(session, plan, summary, stamp.time_ms)?, None),
        _ => {
            let id = (stamp.new_id)();
            (
                pi_line(session, plan, summary, &id, stamp.time_ms)?,
                Some(id),
            )
        }
    };
    let mut bytes = Vec::new();
    if !info.line_ends_with_newline && info.size > 0 {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(entry.as_bytes());
    bytes.push(b'\n');
    let notes = vec![Note {
        action: "compacted",
        line: Some(info.lines + 1),
        id,
        message: format!(
            "appended a compaction after {}: a summary, then from {} on ({} message(s), ~{} tokens, {})",
            plan.leaf_id,
            plan.cut_id,
            plan.kept_messages,
            plan.kept_tokens,
            plan.rule.describe()
        ),
    }];
    Ok(Edited {
        bytes,
        notes,
        rejected: Vec::new(),
    })
}

/// A provider list compacted: a new list (see [`lists`](super::lists)).
fn list_compacted<S: Source + ?Sized>(
    session: &Session,
    source: &mut S,
    plan: &CompactionPlan,
    api: crate::model::provider::Api,
    summary: &str,
) -> Result<Edited, EditError> {
    let done = super::lists::compact(session, &mut Dyn(source), plan.leaf, api, plan.cut, summary)?;
    let summary = match done.joined {
        true => "the summary opening the first kept user turn",
        false => "the summary as a user message",
    };
    let notes = vec![Note {
        action: "compacted",
        line: None,
        id: None,
        message: format!(
            "a new list: {} system prompt element(s) from before the cut, {summary}, then \
             from {} on ({} message(s), ~{} tokens, {})",
            done.systems,
            plan.cut_id,
            plan.kept_messages,
            plan.kept_tokens,
            plan.rule.describe()
        ),
    }];
    Ok(Edited {
        bytes: done.bytes,
        notes,
        rejected: Vec::new(),
    })
}

/// A `Source` of unknown size as a `dyn Source`.
struct Dyn<'a, S: Source + ?Sized>(&'a mut S);

impl<S: Source + ?Sized> Source for Dyn<'_, S> {
    fn read(
        &mut self,
        file: crate::model::entry::FileId,
        range: std::ops::Range<u64>,
    ) -> Result<std::borrow::Cow<'_, [u8]>, crate::source::SourceError> {
        self.0.read(file, range)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use serde_json::{json, Value};

    use super::*;
    use crate::test_rng::Rng;

    /// Writes random pi v3 sessions: user turns, assistant messages with
    /// zero to three (parallel) tool calls, results delivered late and out
    /// of order, every call answered by the end of a segment.
    struct Gen {
        codex: bool,
        rng: Rng,
        bytes: Vec<u8>,
        parent: Option<String>,
        ids: u32,
        calls: u32,
        pending: Vec<String>,
        time: i64,
    }

    impl Gen {
        fn new(seed: u64) -> Gen {
            Gen::of(seed, false)
        }

        fn of(seed: u64, codex: bool) -> Gen {
            let mut g = Gen {
                codex,
                rng: Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
                bytes: Vec::new(),
                parent: None,
                ids: 0,
                calls: 0,
                pending: Vec::new(),
                time: 1_767_225_600_000,
            };
            if codex {
                let t = format_rfc3339_ms(g.time);
                g.line(&json!({"timestamp":t,"type":"session_meta","payload":{"id":"0198-test","timestamp":t,"cwd":"/w","originator":"codex_cli_rs","cli_version":"0.58.0","instructions":"You are Codex."}}));
                g.line(&json!({"timestamp":t,"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions>sandboxed</permissions>"}]}}));
            } else {
                let header = json!({"type":"session","version":3,"id":"s-test","timestamp":format_rfc3339_ms(g.time),"cwd":"/w"});
                g.line(&header);
            }
            g
        }

        fn line(&mut self, v: &Value) {
            self.bytes.extend_from_slice(v.to_string().as_bytes());
            self.bytes.push(b'\n');
        }

        fn id(&mut self) -> String {
            self.ids += 1;
            format!("{:08x}", self.ids)
        }

        fn text(&mut self) -> String {
            let n = 1 + self.rng.below(300);
            "word ".repeat(n / 5 + 1)
        }

        fn message(&mut self, message: Value) {
            if self.codex {
                return self.item(message);
            }
            let id = self.id();
            self.time += 1000;
            let entry = json!({"type":"message","id":id,"parentId":self.parent,"timestamp":format_rfc3339_ms(self.time),"message":message});
            self.line(&entry);
            self.parent = Some(id);
        }

        /// The Codex items of a pi message.
        fn item(&mut self, message: Value) {
            self.time += 1000;
            let t = format_rfc3339_ms(self.time);
            let text = |v: &Value| v["content"][0]["text"].as_str().unwrap_or("").to_owned();
            let items: Vec<Value> = match message["role"].as_str().unwrap() {
                "user" => vec![
                    json!({"type":"message","role":"user","content":[{"type":"input_text","text":text(&message)}]}),
                ],
                "toolResult" => vec![
                    json!({"type":"function_call_output","call_id":message["toolCallId"],"output":text(&message)}),
                ],
                _ => {
                    let blocks = message["content"].as_array().unwrap();
                    let mut items = vec![
                        json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":blocks[0]["text"]}]}),
                    ];
                    for b in &blocks[1..] {
                        items.push(json!({"type":"function_call","name":"shell","arguments":b["arguments"].to_string(),"call_id":b["id"]}));
                    }
                    items
                }
            };
            for item in items {
                self.line(&json!({"timestamp":t,"type":"response_item","payload":item}));
            }
        }

        fn result(&mut self) {
            let i = self.rng.below(self.pending.len());
            let call = self.pending.remove(i);
            let text = self.text();
            self.message(json!({"role":"toolResult","toolCallId":call,"toolName":"bash","content":[{"type":"text","text":text}],"isError":false}));
        }

        /// A run of `steps` random messages, every call answered by its end.
        fn segment(&mut self, steps: usize) {
            for _ in 0..steps {
                match self.rng.below(6) {
                    0 | 1 => {
                        let text = self.text();
                        self.message(
                            json!({"role":"user","content":[{"type":"text","text":text}]}),
                        );
                    }
                    2 | 3 => {
                        let mut content = vec![json!({"type":"text","text":self.text()})];
                        for _ in 0..self.rng.below(4) {
                            self.calls += 1;
                            let id = format!("call_{}", self.calls);
                            content.push(json!({"type":"toolCall","id":id,"name":"bash","arguments":{"command":self.text()}}));
                            self.pending.push(id);
                        }
                        self.message(
                            json!({"role":"assistant","content":content,"stopReason":"toolUse"}),
                        );
                    }
                    _ if !self.pending.is_empty() => self.result(),
                    _ => {}
                }
            }
            while !self.pending.is_empty() {
                self.result();
            }
        }
    }

    /// Calls without a later result and results without an earlier call.
    fn orphans(context: &[Message]) -> Vec<String> {
        let mut calls: Vec<&str> = Vec::new();
        let mut answered: HashSet<&str> = HashSet::new();
        let mut out = Vec::new();
        for m in context {
            for part in &m.content {
                match part {
                    Part::ToolCall { id, .. } => calls.push(id),
                    Part::ToolResult { call_id, .. } => {
                        if calls.contains(&call_id.as_str()) {
                            answered.insert(call_id);
                        } else {
                            out.push(format!("result {call_id}"));
                        }
                    }
                    _ => {}
                }
            }
        }
        out.extend(
            calls
                .iter()
                .filter(|c| !answered.contains(*c))
                .map(|c| format!("call {c}")),
        );
        out
    }

    fn system(context: &[Message]) -> Vec<Message> {
        context
            .iter()
            .filter(|m| m.role == Role::System)
            .cloned()
            .collect()
    }

    #[test]
    fn random_sessions_survive_repeated_compaction() {
        let mut compactions = 0;
        let mut rules = std::collections::BTreeMap::new();
        for seed in 0..200u64 {
            let mut g = Gen::new(seed);
            let steps = 3 + g.rng.below(40);
            g.segment(steps);
            let rounds = 3 + g.rng.below(3);
            for round in 0..rounds {
                let session = Session::from_bytes("s.jsonl", &g.bytes);
                let mut source = vec![g.bytes.clone()];
                let leaf = session.tree().default_leaf().unwrap();
                let before = session.context(leaf, &mut source).unwrap();
                assert!(orphans(&before).is_empty(), "seed {seed}: generator");
                let budget = match g.rng.below(2) {
                    0 => Budget::Messages(g.rng.below(15)),
                    _ => Budget::Tokens(g.rng.below(1500) as u64),
                };
                let plan = plan(&session, &mut source, leaf, budget)
                    .unwrap_or_else(|e| panic!("seed {seed} round {round}: {e}"));
                *rules.entry(format!("{:?}", plan.rule)).or_insert(0) += 1;
                assert!(plan.split.is_empty(), "seed {seed}: {plan:?}");
                assert_ne!(plan.rule, CutRule::LastNonTool);
                if plan.rule == CutRule::Fits {
                    assert!(plan.fits);
                }
                let summary = format!("summary {seed}/{round}");
                let id = g.id();
                let mut new_id = || id.clone();
                let mut stamp = Stamp {
                    time_ms: g.time + 1,
                    new_id: &mut new_id,
                };
                let edited = compact(&session, &mut source, &plan, &summary, &mut stamp).unwrap();
                g.bytes.extend_from_slice(&edited.bytes);
                compactions += 1;

                // Read back: the summary, then the kept tail, every call
                // with its result, the system prompt kept.
                let after = Session::from_bytes("s.jsonl", &g.bytes);
                assert!(after.diagnostics().is_empty(), "{:?}", after.diagnostics());
                let mut source = vec![g.bytes.clone()];
                let new_leaf = after.tree().default_leaf().unwrap();
                assert_eq!(after.id(new_leaf), Some(id.as_str()));
                let context = after.context(new_leaf, &mut source).unwrap();
                assert_eq!(context[0].kind, MessageKind::CompactionSummary);
                assert_eq!(
                    context[0].content,
                    vec![Part::Text {
                        text: summary.clone()
                    }]
                );
                assert_eq!(context[1].entries[0], plan.cut_id, "seed {seed}");
                assert_eq!(context.len() - 1, plan.kept_messages, "seed {seed}");
                let kept: u64 = context[1..].iter().map(estimate_tokens).sum();
                assert_eq!(kept, plan.kept_tokens);
                assert_eq!(
                    orphans(&context),
                    Vec::<String>::new(),
                    "seed {seed} round {round}"
                );
                assert_eq!(system(&context), system(&before));
                // The kept tail is the end of what the model saw.
                let tail = &before[before.len() - plan.kept_messages..];
                let kept_entries: Vec<_> = context[1..].iter().map(|m| &m.entries).collect();
                let tail_entries: Vec<_> = tail.iter().map(|m| &m.entries).collect();
                assert_eq!(kept_entries, tail_entries, "seed {seed} round {round}");
                assert!(context[1..]
                    .iter()
                    .all(|m| m.kind != MessageKind::CompactionSummary));

                g.parent = Some(id);
                let steps = g.rng.below(20);
                g.segment(steps);
            }
        }
        assert!(compactions >= 600);
        // Both rules that write are exercised.
        assert!(
            rules.contains_key("Fits") && rules.contains_key("LastSafeTail"),
            "{rules:?}"
        );
    }

    #[test]
    fn random_codex_rollouts_survive_repeated_compaction() {
        let permissions = Part::Text {
            text: "<permissions>sandboxed</permissions>".into(),
        };
        let mut compactions = 0;
        for seed in 0..100u64 {
            let mut g = Gen::of(seed, true);
            let steps = 3 + g.rng.below(30);
            g.segment(steps);
            for round in 0..3 + g.rng.below(3) {
                let session = Session::from_bytes("rollout.jsonl", &g.bytes);
                assert_eq!(session.format(), Format::Codex);
                let mut source = vec![g.bytes.clone()];
                let leaf = session.tree().default_leaf().unwrap();
                let budget = match g.rng.below(2) {
                    0 => Budget::Messages(g.rng.below(10)),
                    _ => Budget::Tokens(g.rng.below(1000) as u64),
                };
                let plan = plan(&session, &mut source, leaf, budget)
                    .unwrap_or_else(|e| panic!("seed {seed} round {round}: {e}"));
                assert!(plan.split.is_empty() && plan.system_kept, "{plan:?}");
                let summary = format!("summary {seed}/{round}");
                let mut stamp = Stamp {
                    time_ms: g.time + 1,
                    new_id: &mut String::new,
                };
                let edited = compact(&session, &mut source, &plan, &summary, &mut stamp).unwrap();
                g.bytes.extend_from_slice(&edited.bytes);
                compactions += 1;

                let after = Session::from_bytes("rollout.jsonl", &g.bytes);
                let mut source = vec![g.bytes.clone()];
                let new_leaf = after.tree().default_leaf().unwrap();
                assert_eq!(after.kind(new_leaf), "compacted");
                let context = after.context(new_leaf, &mut source).unwrap();
                // The developer message, the summary, the kept tail.
                assert_eq!(context[0].role, Role::System, "seed {seed}");
                assert_eq!(context[0].content, vec![permissions.clone()]);
                assert_eq!(context[1].content, vec![Part::Text { text: summary }]);
                assert_eq!(
                    context.len() - 2,
                    plan.kept_messages,
                    "seed {seed} round {round}"
                );
                assert_eq!(
                    orphans(&context),
                    Vec::<String>::new(),
                    "seed {seed} round {round}"
                );
                // Codex cuts only after its last `compacted` line: say
                // something new.
                let text = g.text();
                g.message(json!({"role":"user","content":[{"type":"text","text":text}]}));
                let steps = g.rng.below(15);
                g.segment(steps);
            }
        }
        assert!(compactions >= 300);
    }

    /// Writes random Claude Code transcripts the way Claude Code 2.x does:
    /// a response one line per content block (one `message.id`), each tool
    /// result a `user` line under the assistant line that called it
    /// (`sourceToolAssistantUUID`: parallel results are side lines), some
    /// run while the response is still being written, the others later and
    /// out of order; attachments and progress lines in the chain.
    struct ClaudeGen {
        rng: Rng,
        bytes: Vec<u8>,
        parent: Option<String>,
        lines: u32,
        calls: u32,
        responses: u32,
        /// Calls waiting for their result, with the line that made each.
        pending: Vec<(String, String)>,
        time: i64,
    }

    impl ClaudeGen {
        fn new(seed: u64) -> ClaudeGen {
            ClaudeGen {
                rng: Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
                bytes: Vec::new(),
                parent: None,
                lines: 0,
                calls: 0,
                responses: 0,
                pending: Vec::new(),
                time: 1_767_225_600_000,
            }
        }

        fn text(&mut self) -> String {
            let n = 1 + self.rng.below(300);
            "word ".repeat(n / 5 + 1)
        }

        /// A line under `parent`, with Claude Code's session fields.
        fn line(&mut self, kind: &str, parent: Option<String>, fields: Value) -> String {
            self.lines += 1;
            self.time += 1000;
            let uuid = format!("00000000-0000-4000-8000-{:012x}", self.lines);
            let mut line = json!({"parentUuid":parent,"isSidechain":false,"type":kind,"uuid":uuid,
                "timestamp":format_rfc3339_ms(self.time),"userType":"external","cwd":"/w",
                "sessionId":"s-test","version":"2.1.100","gitBranch":"main"});
            for (k, v) in fields.as_object().unwrap() {
                line[k] = v.clone();
            }
            self.bytes.extend_from_slice(line.to_string().as_bytes());
            self.bytes.push(b'\n');
            uuid
        }

        fn chain(&mut self, kind: &str, fields: Value) -> String {
            let parent = self.parent.clone();
            let uuid = self.line(kind, parent, fields);
            self.parent = Some(uuid.clone());
            uuid
        }

        fn prompt(&mut self) {
            let text = self.text();
            self.chain("user", json!({"message":{"role":"user","content":text}}));
        }

        fn response(&mut self) {
            self.responses += 1;
            let id = format!("msg_{}", self.responses);
            let block = |content: Value| {
                json!({"requestId":format!("req_{id}"),"message":{"id":id,"type":"message","role":"assistant",
                    "model":"claude-test","content":[content],"stop_reason":null,
                    "usage":{"input_tokens":3,"output_tokens":5}}})
            };
            let text = self.text();
            self.chain("assistant", block(json!({"type":"text","text":text})));
            for _ in 0..self.rng.below(4) {
                self.calls += 1;
                let call = format!("toolu_{:04}", self.calls);
                let input = json!({"command": self.text()});
                let from = self.chain(
                    "assistant",
                    block(json!({"type":"tool_use","id":call,"name":"Bash","input":input})),
                );
                self.pending.push((call, from));
                // A tool run while the response is still being written.
                if self.rng.below(4) == 0 {
                    self.result(self.pending.len() - 1);
                }
            }
        }

        fn result(&mut self, i: usize) {
            let (call, from) = self.pending.remove(i);
            let text = self.text();
            let uuid = self.line(
                "user",
                Some(from.clone()),
                json!({"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":call,"content":text}]},
                    "toolUseResult":{"stdout":text},"sourceToolAssistantUUID":from}),
            );
            self.parent = Some(uuid);
        }

        /// A run of `steps` random lines, every call answered by its end.
        fn segment(&mut self, steps: usize) {
            for _ in 0..steps {
                match self.rng.below(8) {
                    0 | 1 if self.pending.is_empty() => self.prompt(),
                    2 | 3 if self.pending.is_empty() => self.response(),
                    4 => {
                        self.chain(
                            "attachment",
                            json!({"attachment":{"type":"hook_success","content":""}}),
                        );
                    }
                    5 => {
                        self.chain("progress", json!({"data":{"type":"hook_progress"}}));
                    }
                    _ if !self.pending.is_empty() => {
                        let i = self.rng.below(self.pending.len());
                        self.result(i);
                    }
                    _ => self.prompt(),
                }
            }
            while !self.pending.is_empty() {
                let i = self.rng.below(self.pending.len());
                self.result(i);
            }
        }
    }

    #[test]
    fn random_claude_transcripts_survive_repeated_compaction() {
        let mut compactions = 0;
        let mut rules = std::collections::BTreeMap::new();
        for seed in 0..150u64 {
            let mut g = ClaudeGen::new(seed);
            g.prompt();
            let steps = 3 + g.rng.below(40);
            g.segment(steps);
            let mut summaries: Vec<String> = Vec::new();
            for round in 0..3 + g.rng.below(3) {
                let session = Session::from_bytes("s.jsonl", &g.bytes);
                assert_eq!(session.format(), Format::ClaudeCode);
                assert!(
                    session.diagnostics().is_empty(),
                    "{:?}",
                    session.diagnostics()
                );
                let mut source = vec![g.bytes.clone()];
                let leaf = session.tree().default_leaf().unwrap();
                let before = session.context(leaf, &mut source).unwrap();
                assert!(orphans(&before).is_empty(), "seed {seed}: generator");
                // What Claude Code wrote after the last compaction follows
                // its summary and kept lines, wherever it hung them: no
                // rewind where there was none.
                if let Some(last) = summaries.last() {
                    assert_eq!(before[0].kind, MessageKind::CompactionSummary);
                    assert_eq!(before[0].text(), *last, "seed {seed} round {round}");
                    assert_eq!(
                        session.tree().real_branch_points().count(),
                        0,
                        "seed {seed}"
                    );
                }
                let budget = match g.rng.below(2) {
                    0 => Budget::Messages(g.rng.below(15)),
                    _ => Budget::Tokens(g.rng.below(1500) as u64),
                };
                let plan = plan(&session, &mut source, leaf, budget)
                    .unwrap_or_else(|e| panic!("seed {seed} round {round}: {e}"));
                *rules.entry(format!("{:?}", plan.rule)).or_insert(0) += 1;
                assert!(
                    plan.split.is_empty() && plan.system_kept,
                    "seed {seed}: {plan:?}"
                );
                let summary = format!("summary {seed}/{round}");
                let ids = [format!("cb-{seed}-{round}"), format!("cs-{seed}-{round}")];
                let mut next = ids.clone().into_iter();
                let mut new_id = || next.next().unwrap();
                let mut stamp = Stamp {
                    time_ms: g.time + 1,
                    new_id: &mut new_id,
                };
                let edited = compact(&session, &mut source, &plan, &summary, &mut stamp).unwrap();
                assert_eq!(edited.notes[0].id.as_deref(), Some(ids[0].as_str()));
                let tail = g.parent.clone();
                g.bytes.extend_from_slice(&edited.bytes);
                compactions += 1;

                // Read back: the summary, then exactly the tail the plan
                // kept, every call with its result.
                let after = Session::from_bytes("s.jsonl", &g.bytes);
                assert!(after.diagnostics().is_empty(), "{:?}", after.diagnostics());
                let mut source = vec![g.bytes.clone()];
                let new_leaf = after.tree().default_leaf().unwrap();
                assert_eq!(after.id(new_leaf), Some(ids[1].as_str()));
                let context = after.context(new_leaf, &mut source).unwrap();
                assert_eq!(context[0].kind, MessageKind::CompactionSummary);
                assert_eq!(context[0].text(), summary);
                assert_eq!(context.len() - 1, plan.kept_messages, "seed {seed}");
                assert_eq!(context[1].entries[0], plan.cut_id, "seed {seed}");
                let kept: u64 = context[1..].iter().map(estimate_tokens).sum();
                assert_eq!(kept, plan.kept_tokens);
                let tail_messages = &before[before.len() - plan.kept_messages..];
                assert_eq!(&context[1..], tail_messages, "seed {seed} round {round}");
                assert!(orphans(&context).is_empty(), "seed {seed} round {round}");
                summaries.push(summary);

                // Claude Code goes on under the last line it kept (or, for
                // lines written with the compaction, under the summary).
                g.parent = match g.rng.below(2) {
                    0 => tail,
                    _ => Some(ids[1].clone()),
                };
                g.prompt();
                let steps = g.rng.below(20);
                g.segment(steps);
            }
        }
        assert!(compactions >= 450, "{compactions}");
        assert!(
            rules.contains_key("Fits") && rules.contains_key("LastSafeTail"),
            "{rules:?}"
        );
    }

    /// Writes random event streams: user inputs, LLM calls, tool calls
    /// (with and without call ids, some failed), state transitions,
    /// checkpoints, final outputs.
    struct EventGen {
        rng: Rng,
        bytes: Vec<u8>,
        calls: u32,
        time: i64,
    }

    impl EventGen {
        fn event(&mut self, kind: &str, data: Value) {
            self.time += 1000;
            let line =
                json!({"event_type":kind,"timestamp":format_rfc3339_ms(self.time),"data":data});
            self.bytes.extend_from_slice(line.to_string().as_bytes());
            self.bytes.push(b'\n');
        }

        fn text(&mut self) -> String {
            let n = 1 + self.rng.below(300);
            "word ".repeat(n / 5 + 1)
        }

        fn segment(&mut self, steps: usize) {
            for _ in 0..steps {
                let text = self.text();
                match self.rng.below(7) {
                    0 => self.event("user_input", json!({"message": text})),
                    1 => self.event(
                        "llm_call",
                        json!({"model":"m","prompt":text,"response":"ok","token_usage":{"prompt_tokens":9,"completion_tokens":2}}),
                    ),
                    2 | 3 => {
                        self.calls += 1;
                        let mut data = json!({"tool_name":"sh","parameters":{"cmd":text},"output":"done","error":null});
                        if self.rng.below(2) == 0 {
                            data["id"] = json!(format!("call_{}", self.calls));
                        }
                        if self.rng.below(5) == 0 {
                            data["error"] = json!("failed");
                        }
                        self.event("tool_call", data);
                    }
                    4 => self.event(
                        "state_transition",
                        json!({"from_node":"a","to_node":"b","state_diff":{"k":1}}),
                    ),
                    5 => self.event(
                        "checkpoint",
                        json!({"commit":"ab12","tag":"tool_sh_20260101000000","tool_name":"sh","event":0,
                            "files":[{"path":"a.txt","change":"updated"}]}),
                    ),
                    _ => self.event("final_output", json!({"output": text, "stream": false})),
                }
            }
        }
    }

    #[test]
    fn random_event_streams_survive_repeated_compaction() {
        let mut compactions = 0;
        for seed in 0..150u64 {
            let mut g = EventGen {
                rng: Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
                bytes: Vec::new(),
                calls: 0,
                time: 1_767_225_600_000,
            };
            g.event("user_input", json!({"message": "start"}));
            let steps = 3 + g.rng.below(40);
            g.segment(steps);
            for round in 0..3 + g.rng.below(3) {
                let session = Session::from_bytes("events.jsonl", &g.bytes);
                assert_eq!(session.format(), Format::Events);
                let mut source = vec![g.bytes.clone()];
                let leaf = session.tree().default_leaf().unwrap();
                let before = session.context(leaf, &mut source).unwrap();
                let budget = match g.rng.below(2) {
                    0 => Budget::Messages(g.rng.below(15)),
                    _ => Budget::Tokens(g.rng.below(1500) as u64),
                };
                let plan = plan(&session, &mut source, leaf, budget)
                    .unwrap_or_else(|e| panic!("seed {seed} round {round}: {e}"));
                assert!(plan.split.is_empty() && plan.system_kept, "{plan:?}");
                let summary = format!("summary {seed}/{round}");
                let mut stamp = Stamp {
                    time_ms: g.time + 1,
                    new_id: &mut String::new,
                };
                let edited = compact(&session, &mut source, &plan, &summary, &mut stamp).unwrap();
                // The first kept event by its number: every line is an
                // event, so the lines before the cut.
                let line: Value = serde_json::from_slice(&edited.bytes).unwrap();
                assert_eq!(line["event_type"], "compaction");
                assert_eq!(
                    line["data"]["first_kept_event"],
                    json!(plan.cut_line - 1),
                    "seed {seed}"
                );
                g.bytes.extend_from_slice(&edited.bytes);
                compactions += 1;

                let after = Session::from_bytes("events.jsonl", &g.bytes);
                assert!(after.diagnostics().is_empty(), "{:?}", after.diagnostics());
                let mut source = vec![g.bytes.clone()];
                let new_leaf = after.tree().default_leaf().unwrap();
                assert_eq!(after.kind(new_leaf), "compaction");
                let context = after.context(new_leaf, &mut source).unwrap();
                assert_eq!(context[0].kind, MessageKind::CompactionSummary);
                assert_eq!(context[0].text(), summary);
                assert_eq!(context.len() - 1, plan.kept_messages, "seed {seed}");
                assert_ne!(context[1].kind, MessageKind::Marker);
                let tail = &before[before.len() - plan.kept_messages..];
                assert_eq!(&context[1..], tail, "seed {seed} round {round}");
                assert!(orphans(&context).is_empty(), "seed {seed} round {round}");
                let steps = 1 + g.rng.below(20);
                g.segment(steps);
            }
        }
        assert!(compactions >= 450, "{compactions}");
    }

    fn pi(lines: &[Value]) -> Vec<u8> {
        let mut out = Vec::new();
        for l in lines {
            out.extend_from_slice(l.to_string().as_bytes());
            out.push(b'\n');
        }
        out
    }

    fn msg(id: &str, parent: Option<&str>, message: Value) -> Value {
        json!({"type":"message","id":id,"parentId":parent,"timestamp":"2026-01-01T00:00:00.000Z","message":message})
    }

    /// A user turn, an assistant calling two tools in parallel whose second
    /// result comes after the next user message, and a closing answer.
    fn late_result() -> Vec<u8> {
        pi(&[
            json!({"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}),
            msg(
                "u1",
                None,
                json!({"role":"user","content":"first question"}),
            ),
            msg(
                "a1",
                Some("u1"),
                json!({"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"ls","arguments":{}},{"type":"toolCall","id":"c2","name":"cat","arguments":{}}]}),
            ),
            msg(
                "r1",
                Some("a1"),
                json!({"role":"toolResult","toolCallId":"c1","content":"one"}),
            ),
            msg("u2", Some("r1"), json!({"role":"user","content":"and?"})),
            msg(
                "r2",
                Some("u2"),
                json!({"role":"toolResult","toolCallId":"c2","content":"two"}),
            ),
            msg(
                "a2",
                Some("r2"),
                json!({"role":"assistant","content":"done"}),
            ),
        ])
    }

    #[test]
    fn a_cut_never_separates_a_call_from_a_late_result() {
        let bytes = late_result();
        let session = Session::from_bytes("s.jsonl", &bytes);
        let mut source = vec![bytes.clone()];
        let leaf = session.find("a2").unwrap();
        // Three messages would cut at u2, between c2 and its result: the
        // only safe cuts are u1, a1 and a2.
        let p = plan(&session, &mut source, leaf, Budget::Messages(3)).unwrap();
        assert_eq!((p.cut_id.as_str(), p.rule), ("a2", CutRule::Fits));
        assert_eq!(p.kept_messages, 1);
        let p = plan(&session, &mut source, leaf, Budget::Messages(5)).unwrap();
        assert_eq!((p.cut_id.as_str(), p.rule), ("a1", CutRule::Fits));
        let p = plan(&session, &mut source, leaf, Budget::Messages(0)).unwrap();
        assert_eq!((p.cut_id.as_str(), p.rule), ("a2", CutRule::LastSafeTail));
        assert!(!p.fits);
        let p = plan(&session, &mut source, leaf, Budget::Tokens(1_000)).unwrap();
        assert_eq!((p.cut_id.as_str(), p.kept_messages), ("u1", 6));
        assert!(p.system_kept && p.split.is_empty());
    }

    #[test]
    fn appends_a_pi_compaction_entry() {
        let bytes = late_result();
        let session = Session::from_bytes("s.jsonl", &bytes);
        let mut source = vec![bytes.clone()];
        let leaf = session.find("a2").unwrap();
        let p = plan(&session, &mut source, leaf, Budget::Messages(3)).unwrap();
        let mut new_id = || "0000beef".to_owned();
        let mut stamp = Stamp {
            time_ms: 1_767_225_600_000,
            new_id: &mut new_id,
        };
        let edited = compact(&session, &mut source, &p, "the summary", &mut stamp).unwrap();
        assert_eq!(
            String::from_utf8(edited.bytes).unwrap(),
            "{\"type\":\"compaction\",\"id\":\"0000beef\",\"parentId\":\"a2\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"summary\":\"the summary\",\"firstKeptEntryId\":\"a2\",\"tokensBefore\":11}\n"
        );
        assert_eq!(edited.notes[0].action, "compacted");
        assert_eq!(edited.notes[0].line, Some(8));
        // A used id is refused.
        let mut taken = Stamp {
            time_ms: 1_767_225_600_000,
            new_id: &mut || "u1".to_owned(),
        };
        assert!(compact(&session, &mut source, &p, "s", &mut taken).is_err());
    }

    #[test]
    fn a_file_without_a_final_newline_gets_one_first() {
        let mut bytes = late_result();
        bytes.pop();
        let session = Session::from_bytes("s.jsonl", &bytes);
        let mut source = vec![bytes.clone()];
        let leaf = session.find("a2").unwrap();
        let p = plan(&session, &mut source, leaf, Budget::Messages(1)).unwrap();
        let mut new_id = || "0000beef".to_owned();
        let mut stamp = Stamp {
            time_ms: 0,
            new_id: &mut new_id,
        };
        let edited = compact(&session, &mut source, &p, "s", &mut stamp).unwrap();
        assert_eq!(edited.bytes[0], b'\n');
        bytes.extend_from_slice(&edited.bytes);
        let after = Session::from_bytes("s.jsonl", &bytes);
        assert_eq!(
            after.label(after.tree().default_leaf().unwrap()),
            "0000beef"
        );
    }

    #[test]
    fn a_cut_that_must_split_a_pair_is_planned_but_not_written() {
        // An earlier compaction's history ends in a call whose output comes
        // after the next prompt: the only message after it that a cut can
        // name separates the two.
        let lines = [
            json!({"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}),
            json!({"timestamp":"2026-01-01T00:00:01.000Z","type":"compacted","payload":{"message":"s","replacement_history":[
                {"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]},
                {"type":"function_call","name":"shell","arguments":"{}","call_id":"c1"}]}}),
            json!({"timestamp":"2026-01-01T00:00:02.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"still there?"}]}}),
            json!({"timestamp":"2026-01-01T00:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"done"}}),
        ];
        let bytes = pi(&lines);
        let session = Session::from_bytes("rollout.jsonl", &bytes);
        let mut source = vec![bytes.clone()];
        let leaf = session.tree().default_leaf().unwrap();
        let p = plan(&session, &mut source, leaf, Budget::Messages(1)).unwrap();
        assert_eq!(p.rule, CutRule::LastNonTool);
        assert_eq!((p.cut_line, p.split.clone()), (3, vec!["c1".to_owned()]));
        let mut stamp = Stamp {
            time_ms: 0,
            new_id: &mut String::new,
        };
        let err = compact(&session, &mut source, &p, "s", &mut stamp).unwrap_err();
        assert!(err.to_string().contains("seal or repair"), "{err}");
    }

    /// A Claude Code line of `kind` under `parent`.
    fn claude(uuid: &str, parent: Option<&str>, kind: &str, message: Value) -> Value {
        json!({"parentUuid":parent,"isSidechain":false,"type":kind,"message":message,"uuid":uuid,
            "timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w","sessionId":"s-1","version":"2.1.100","gitBranch":"main"})
    }

    fn said(role: &str, id: Option<&str>, content: Value) -> Value {
        match id {
            Some(id) => json!({"id":id,"type":"message","role":role,"content":content}),
            None => json!({"role":role,"content":content}),
        }
    }

    #[test]
    fn appends_claude_code_s_boundary_and_summary() {
        let bytes = pi(&[
            claude("u1", None, "user", said("user", None, json!("list"))),
            claude(
                "a1",
                Some("u1"),
                "assistant",
                said(
                    "assistant",
                    Some("msg_1"),
                    json!([{"type":"text","text":"ok"}]),
                ),
            ),
            claude(
                "a2",
                Some("a1"),
                "assistant",
                said(
                    "assistant",
                    Some("msg_1"),
                    json!([{"type":"tool_use","id":"c1","name":"ls","input":{}}]),
                ),
            ),
            claude(
                "r1",
                Some("a2"),
                "user",
                said(
                    "user",
                    None,
                    json!([{"type":"tool_result","tool_use_id":"c1","content":"a b"}]),
                ),
            ),
            json!({"parentUuid":"r1","isSidechain":false,"type":"progress","data":{"type":"hook_progress"},"uuid":"p1","timestamp":"2026-01-01T00:00:00.000Z","sessionId":"s-1"}),
            claude(
                "a3",
                Some("p1"),
                "assistant",
                said(
                    "assistant",
                    Some("msg_2"),
                    json!([{"type":"text","text":"two"}]),
                ),
            ),
        ]);
        let session = Session::from_bytes("s.jsonl", &bytes);
        let mut source = vec![bytes.clone()];
        let leaf = session.find("a3").unwrap();
        // Three messages: the response written over a1 and a2, the result,
        // the answer. Four before: ~5 tokens ("list" 1, "ok" with `ls`
        // and `{}` 2, "a b" 1, "two" 1).
        let p = plan(&session, &mut source, leaf, Budget::Messages(3)).unwrap();
        assert_eq!((p.cut_id.as_str(), p.kept_messages), ("a1", 3));
        let mut ids = ["b0", "s0"].into_iter().map(str::to_owned);
        let mut new_id = || ids.next().unwrap();
        let mut stamp = Stamp {
            time_ms: 1_767_225_600_000,
            new_id: &mut new_id,
        };
        let edited = compact(&session, &mut source, &p, "the summary", &mut stamp).unwrap();
        assert_eq!(
            String::from_utf8(edited.bytes).unwrap(),
            "{\"parentUuid\":null,\"logicalParentUuid\":\"a3\",\"isSidechain\":false,\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"Conversation compacted\",\"isMeta\":false,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"uuid\":\"b0\",\"level\":\"info\",\"compactMetadata\":{\"trigger\":\"manual\",\"preTokens\":5,\"preservedSegment\":{\"headUuid\":\"a1\",\"anchorUuid\":\"s0\",\"tailUuid\":\"a3\"},\"preservedMessages\":{\"anchorUuid\":\"s0\",\"uuids\":[\"a1\",\"a2\",\"r1\",\"a3\"],\"allUuids\":[\"a1\",\"a2\",\"r1\",\"p1\",\"a3\"]}},\"cwd\":\"/w\",\"sessionId\":\"s-1\",\"version\":\"2.1.100\",\"gitBranch\":\"main\"}\n\
             {\"parentUuid\":\"b0\",\"isSidechain\":false,\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"the summary\"},\"isCompactSummary\":true,\"uuid\":\"s0\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\",\"sessionId\":\"s-1\",\"version\":\"2.1.100\",\"gitBranch\":\"main\"}\n"
        );
        assert_eq!(edited.notes[0].id.as_deref(), Some("b0"));
        assert_eq!(edited.notes[0].line, Some(7));
        // A uuid already in the session is refused.
        let mut taken = Stamp {
            time_ms: 0,
            new_id: &mut || "u1".to_owned(),
        };
        assert!(compact(&session, &mut source, &p, "s", &mut taken).is_err());
    }

    #[test]
    fn a_cut_never_splits_a_response_written_around_another() {
        // msg_1 is written on a1 and a3, around msg_2's line a2: one
        // message each, msg_1 first. A cut at a2 would keep a3's half of
        // msg_1 without its other half.
        let bytes = pi(&[
            claude("u1", None, "user", said("user", None, json!("go"))),
            claude(
                "a1",
                Some("u1"),
                "assistant",
                said(
                    "assistant",
                    Some("msg_1"),
                    json!([{"type":"text","text":"one"}]),
                ),
            ),
            claude(
                "a2",
                Some("a1"),
                "assistant",
                said(
                    "assistant",
                    Some("msg_2"),
                    json!([{"type":"text","text":"two"}]),
                ),
            ),
            claude(
                "a3",
                Some("a2"),
                "assistant",
                said(
                    "assistant",
                    Some("msg_1"),
                    json!([{"type":"text","text":"three"}]),
                ),
            ),
        ]);
        let session = Session::from_bytes("s.jsonl", &bytes);
        let mut source = vec![bytes.clone()];
        let leaf = session.find("a3").unwrap();
        let before = session.context(leaf, &mut source).unwrap();
        assert_eq!(before.len(), 3);
        let p = plan(&session, &mut source, leaf, Budget::Messages(1)).unwrap();
        assert_eq!((p.cut_id.as_str(), p.rule), ("a1", CutRule::LastSafeTail));
        assert_eq!(p.kept_messages, 2);
        let mut ids = ["b0", "s0"].into_iter().map(str::to_owned);
        let mut new_id = || ids.next().unwrap();
        let mut stamp = Stamp {
            time_ms: 1_767_225_600_000,
            new_id: &mut new_id,
        };
        let mut after = bytes.clone();
        after.extend(
            compact(&session, &mut source, &p, "s", &mut stamp)
                .unwrap()
                .bytes,
        );
        let read = Session::from_bytes("s.jsonl", &after);
        let context = read
            .context(
                read.tree().default_leaf().unwrap(),
                &mut vec![after.clone()],
            )
            .unwrap();
        assert_eq!(&context[1..], &before[1..]);
    }

    #[test]
    fn a_kept_line_whose_uuid_a_later_line_reuses_is_refused() {
        // Claude Code's loader names a uuid's last line: x on line 2 can
        // not be kept while line 4 says x too.
        let bytes = pi(&[
            claude("u1", None, "user", said("user", None, json!("go"))),
            claude(
                "x",
                Some("u1"),
                "assistant",
                said(
                    "assistant",
                    Some("msg_1"),
                    json!([{"type":"text","text":"one"}]),
                ),
            ),
            claude("u2", Some("x"), "user", said("user", None, json!("more"))),
            claude("x", None, "user", said("user", None, json!("stray"))),
            claude(
                "a2",
                Some("u2"),
                "assistant",
                said(
                    "assistant",
                    Some("msg_2"),
                    json!([{"type":"text","text":"two"}]),
                ),
            ),
        ]);
        let session = Session::from_bytes("s.jsonl", &bytes);
        let mut source = vec![bytes.clone()];
        let leaf = session.find("a2").unwrap();
        let p = plan(&session, &mut source, leaf, Budget::Messages(3)).unwrap();
        assert_eq!(p.cut_line, 2);
        let mut ids = ["b0", "s0"].into_iter().map(str::to_owned);
        let mut new_id = || ids.next().unwrap();
        let mut stamp = Stamp {
            time_ms: 0,
            new_id: &mut new_id,
        };
        let err = compact(&session, &mut source, &p, "s", &mut stamp)
            .unwrap_err()
            .to_string();
        assert!(err.contains("L2 shares its uuid x"), "{err}");
    }

    #[test]
    fn appends_an_event_stream_s_compaction_event() {
        let bytes = pi(&[
            json!({"event_type":"user_input","timestamp":"2026-01-01T00:00:00Z","data":{"message":"hi"}}),
            json!({"event_type":"state_transition","timestamp":"2026-01-01T00:00:01Z","data":{"from_node":"a","to_node":"b"}}),
            json!({"event_type":"dance","timestamp":"2026-01-01T00:00:02Z","data":{}}),
            json!({"event_type":"tool_call","timestamp":"2026-01-01T00:00:03Z","data":{"tool_name":"ls","parameters":{},"output":"x"}}),
            json!({"event_type":"final_output","timestamp":"2026-01-01T00:00:04Z","data":{"output":"done"}}),
        ]);
        let session = Session::from_bytes("events.jsonl", &bytes);
        let mut source = vec![bytes.clone()];
        let leaf = session.tree().default_leaf().unwrap();
        let p = plan(&session, &mut source, leaf, Budget::Messages(3)).unwrap();
        assert_eq!(p.cut_line, 4);
        let mut stamp = Stamp {
            time_ms: 1_767_225_605_000,
            new_id: &mut String::new,
        };
        let edited = compact(&session, &mut source, &p, "the summary", &mut stamp).unwrap();
        // The tool call is event 2: the unknown `dance` is not counted, as
        // the store does not count it.
        assert_eq!(
            String::from_utf8(edited.bytes.clone()).unwrap(),
            "{\"event_type\":\"compaction\",\"timestamp\":\"2026-01-01T00:00:05.000000Z\",\"data\":{\"first_kept_event\":2,\"summary\":\"the summary\",\"tokens_before\":9}}\n"
        );
        assert_eq!(edited.notes[0].line, Some(6));
        // Only after the last event.
        let p = plan(
            &session,
            &mut source,
            session.find("L4").unwrap(),
            Budget::Messages(1),
        )
        .unwrap();
        let err = compact(&session, &mut source, &p, "s", &mut stamp).unwrap_err();
        assert!(err.to_string().contains("after its last event"), "{err}");
    }

    #[test]
    fn other_formats_are_refused() {
        // JSON lines of no known format.
        let bytes = b"{\"kind\":\"note\",\"text\":\"hi\"}\n";
        let session = Session::from_bytes("s.jsonl", bytes);
        assert_eq!(session.format(), Format::Generic);
        let mut source = vec![bytes.to_vec()];
        let err = plan(&session, &mut source, EntryId(0), Budget::Messages(1)).unwrap_err();
        assert!(matches!(err, EditError::Unsupported { .. }), "{err}");
    }

    #[test]
    fn pi_v1_is_refused_with_what_to_do() {
        let lines = [
            json!({"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}),
            json!({"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}),
            json!({"type":"message","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"hello"}]}}),
        ];
        let bytes = pi(&lines);
        let session = Session::from_bytes("s.jsonl", &bytes);
        assert_eq!(session.format(), Format::Pi { version: 1 });
        let mut source = vec![bytes.clone()];
        let leaf = session.tree().default_leaf().unwrap();
        let err = plan(&session, &mut source, leaf, Budget::Messages(1))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no ids") && err.contains("Open the session in pi once"),
            "{err}"
        );
    }
}
