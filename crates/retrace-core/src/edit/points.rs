//! Safe fork points: the places on a branch where its history is
//! consistent, so a session cut there can be sent to a model as it is.
//!
//! Each user message and each tool result closes one, unless a tool call
//! before it still waits for a result that comes after it on the branch
//! (the first of two parallel results closes none; the second does). A
//! call with no result anywhere on the branch (a crash, a Ctrl-C) waits
//! for nothing the cut could separate it from: it does not stop the
//! points after it, and each point counts it in
//! [`SafePoint::unanswered`] (sealing it is another operation).
//!
//! Built on the branch's rows ([`Session::rows`]) and their normalized
//! messages ([`Session::row_message`]): a Claude Code response split over
//! lines is one row, a Codex call and its output are two, an event
//! stream's `tool_call` carries both.

use std::collections::HashSet;

use serde::Serialize;

use crate::model::entry::EntryId;
use crate::model::message::{MessageKind, Part, Role};
use crate::session::{RowKind, Session};
use crate::source::Source;

use super::EditError;

/// A place on a branch where it can be forked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SafePoint {
    /// Its number on the branch, from 0, in order.
    pub index: usize,
    /// `sfp:{index}`, as the CLI takes it.
    pub label: String,
    /// The entry that closes it (the last line of its row).
    #[serde(skip)]
    pub entry: EntryId,
    /// That entry's id ([`Session::label`]: its own, or `L<line>`).
    pub id: String,
    /// Its line in its file (from 1).
    pub line: u32,
    /// What closes it: `user` (a user message) or `tool_result`.
    pub kind: &'static str,
    /// Tool calls before it with no result anywhere on the branch.
    pub unanswered: usize,
}

/// A tool call that waits, at some place on a branch, for a result later
/// on the branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Waiting {
    /// The tool call id.
    pub call: String,
    /// The entry that makes the call.
    pub entry: EntryId,
}

/// One message row of a branch, with what waits after it.
pub(crate) struct Step {
    /// The last entry of the row.
    pub entry: EntryId,
    /// `user`, `tool_result`, or `None` for a row that closes no point.
    pub kind: Option<&'static str>,
    /// Calls still waiting after the row.
    pub waiting: Vec<Waiting>,
    /// Calls before it (this row's included) with no result on the branch.
    pub unanswered: usize,
}

/// The safe fork points of the branch ending at `leaf`, in order.
pub fn safe_points(
    session: &Session,
    source: &mut dyn Source,
    leaf: EntryId,
) -> Result<Vec<SafePoint>, EditError> {
    let mut points = Vec::new();
    for step in walk(session, source, leaf)? {
        let Some(kind) = step.kind else { continue };
        if !step.waiting.is_empty() {
            continue;
        }
        let index = points.len();
        points.push(SafePoint {
            index,
            label: format!("sfp:{index}"),
            entry: step.entry,
            id: session.label(step.entry),
            line: session.entry(step.entry).line,
            kind,
            unanswered: step.unanswered,
        });
    }
    Ok(points)
}

/// Every message row of the branch ending at `leaf`, with the calls that
/// wait after it.
pub(crate) fn walk(
    session: &Session,
    source: &mut dyn Source,
    leaf: EntryId,
) -> Result<Vec<Step>, EditError> {
    let mut messages = Vec::new();
    for row in session.rows(leaf) {
        if row.kind != RowKind::Message {
            continue;
        }
        let Some(&last) = row.entries.last() else {
            continue;
        };
        let message = session.row_message(&row, source)?;
        messages.push((last, row.entries[0], message));
    }
    // Every result id on the branch: a call none answers waits for nothing.
    let answered: HashSet<String> = messages
        .iter()
        .flat_map(|(_, _, m)| m.iter().flat_map(|m| m.tool_results()))
        .map(|(id, _)| id.to_owned())
        .collect();
    let mut waiting: Vec<Waiting> = Vec::new();
    let mut unanswered = 0;
    let mut steps = Vec::with_capacity(messages.len());
    for (last, first, message) in messages {
        let Some(message) = message else {
            steps.push(Step {
                entry: last,
                kind: None,
                waiting: waiting.clone(),
                unanswered,
            });
            continue;
        };
        let mut results = false;
        for part in &message.content {
            match part {
                Part::ToolCall { id, .. } if answered.contains(id) => waiting.push(Waiting {
                    call: id.clone(),
                    entry: first,
                }),
                Part::ToolCall { .. } => unanswered += 1,
                Part::ToolResult { call_id, .. } => {
                    results = true;
                    waiting.retain(|w| w.call != *call_id);
                }
                _ => {}
            }
        }
        let user = message.role == Role::User && message.kind != MessageKind::Marker;
        let kind = if results {
            Some("tool_result")
        } else if user {
            Some("user")
        } else {
            None
        };
        steps.push(Step {
            entry: last,
            kind,
            waiting: waiting.clone(),
            unanswered,
        });
    }
    Ok(steps)
}
