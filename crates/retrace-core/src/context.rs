//! Bodies on demand: the messages of a branch, and the deep check that parses
//! every body.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::entry::{EntryId, Flags};
use crate::format::{claude, Format};
use crate::message::{Message, Role, Usage};
use crate::normalize;
use crate::session::Session;
use crate::source::{Source, SourceError};

impl Session {
    /// Parses the body of one entry.
    pub fn body<S: Source + ?Sized>(
        &self,
        e: EntryId,
        source: &mut S,
    ) -> Result<Result<serde_json::Value, serde_json::Error>, SourceError> {
        let entry = self.entry(e);
        let bytes = source.read(entry.file, entry.range())?;
        Ok(serde_json::from_slice(&bytes))
    }

    /// The message an entry holds on its own (a Claude Code response split
    /// over lines gives one message per line here; [`Session::context`]
    /// merges them). `None` for entries that are not messages and for bodies
    /// that do not parse.
    pub fn message<S: Source + ?Sized>(
        &self,
        e: EntryId,
        source: &mut S,
    ) -> Result<Option<Message>, SourceError> {
        let Ok(value) = self.body(e, source)? else {
            return Ok(None);
        };
        Ok(self.message_from_value(e, &value))
    }

    fn message_from_value(&self, e: EntryId, value: &serde_json::Value) -> Option<Message> {
        let entry = self.entry(e);
        let mut message = match self.file_format(entry.file) {
            Format::Pi { .. } => normalize::pi::entry_message(value),
            Format::ClaudeCode => normalize::claude::line_message(value),
            Format::Generic => None,
        }?;
        message.entries.push(self.label(e));
        message.lines.push(entry.line);
        Some(message)
    }

    /// The entries that make up the branch ending at `leaf`, in the order
    /// they happened: the path from the root, plus (Claude Code) the side
    /// lines of structural fan-outs along it, such as a tool result recorded
    /// beside the next tool call.
    pub fn branch(&self, leaf: EntryId) -> Vec<EntryId> {
        let path = self.tree.path(leaf);
        if self.file_format(self.entry(leaf).file) != Format::ClaudeCode {
            return path;
        }
        let on_path: HashSet<EntryId> = path.iter().copied().collect();
        let mut out = path.clone();
        for &p in &path {
            if self.tree.children(p).len() < 2 {
                continue;
            }
            let real = self.tree.is_real_branch_point(p);
            for c in self.tree.children(p) {
                if on_path.contains(&c) {
                    continue;
                }
                if real && claude::is_prompt(self.entry(c), &self.interner) {
                    continue;
                }
                out.extend(self.tree.subtree(c));
            }
        }
        out.sort();
        out
    }

    /// The normalized messages an agent would see on the branch ending at
    /// `leaf`: compaction honoured (its summary, then what it kept), Claude
    /// Code responses split over lines merged into one message.
    pub fn context<S: Source + ?Sized>(
        &self,
        leaf: EntryId,
        source: &mut S,
    ) -> Result<Vec<Message>, SourceError> {
        let branch = self.branch(leaf);
        let entries = match self.file_format(self.entry(leaf).file) {
            Format::Pi { .. } => self.pi_context_entries(&branch),
            Format::ClaudeCode => {
                // Context restarts at the last compaction boundary.
                let start = branch
                    .iter()
                    .rposition(|&e| claude::is_compact_boundary(self.entry(e), &self.interner))
                    .unwrap_or(0);
                branch[start..].to_vec()
            }
            Format::Generic => Vec::new(),
        };
        let mut out: Vec<Message> = Vec::new();
        // Claude Code: the open response per `message.id`, since the last
        // prompt.
        let mut open: BTreeMap<crate::intern::Sym, usize> = BTreeMap::new();
        for e in entries {
            let Some(message) = self.message(e, source)? else {
                continue;
            };
            let group = self.entry(e).group;
            if message.role == Role::User {
                open.clear();
            }
            if !group.is_none() && message.role == Role::Assistant {
                if let Some(&i) = open.get(&group) {
                    normalize::claude::merge_split(&mut out[i], message);
                    continue;
                }
                open.insert(group, out.len());
            }
            out.push(message);
        }
        Ok(out)
    }

    /// pi: walk the path, and where a compaction is on it, start with its
    /// summary and the entries it kept.
    fn pi_context_entries(&self, path: &[EntryId]) -> Vec<EntryId> {
        let Some(c) = path.iter().rposition(|&e| self.kind(e) == "compaction") else {
            return path.to_vec();
        };
        let compaction = self.entry(path[c]);
        // v2+: `firstKeptEntryId`; v1: `firstKeptEntryIndex` counts the
        // file's entries including the header.
        let kept = if !compaction.reference.is_none() {
            path[..c]
                .iter()
                .position(|&e| self.entry(e).id == compaction.reference)
        } else if compaction.number != u32::MAX {
            let info = &self.files[compaction.file.0 as usize];
            let target = EntryId(info.first_entry + compaction.number);
            path[..c].iter().position(|&e| e == target)
        } else {
            None
        };
        let mut out = vec![path[c]];
        if let Some(k) = kept {
            out.extend_from_slice(&path[k..c]);
        }
        out.extend_from_slice(&path[c + 1..]);
        out
    }

    /// Parses every body: grammar and UTF-8 errors the index could not see,
    /// tool-call pairing on every branch, and totals for reports.
    pub fn check<S: Source + ?Sized>(&self, source: &mut S) -> Result<Check, SourceError> {
        let mut check = Check::default();
        let mut calls: Vec<Vec<String>> = vec![Vec::new(); self.entries.len()];
        let mut results: Vec<Vec<String>> = vec![Vec::new(); self.entries.len()];
        let mut seen_groups = HashSet::new();
        let mut call_ids = HashSet::new();
        for (i, entry) in self.entries.iter().enumerate() {
            let e = EntryId(i as u32);
            if entry.is_broken() {
                continue;
            }
            let bytes = source.read(entry.file, entry.range())?;
            let value: serde_json::Value = match serde_json::from_slice(&bytes) {
                Ok(v) => v,
                Err(err) => {
                    let utf8 = std::str::from_utf8(&bytes).err();
                    let (kind, message, at) = match utf8 {
                        Some(u) => (
                            DiagnosticKind::InvalidUtf8,
                            format!("invalid UTF-8 at byte {} of the line", u.valid_up_to()),
                            u.valid_up_to() as u64,
                        ),
                        None => (
                            DiagnosticKind::MalformedJson,
                            format!("not valid JSON: {err}"),
                            column_offset(&bytes, err.line(), err.column()),
                        ),
                    };
                    check.diagnostics.push(Diagnostic {
                        severity: Severity::Error,
                        kind,
                        file: entry.file,
                        line: entry.line,
                        offset: entry.offset + at,
                        message,
                    });
                    continue;
                }
            };
            let Some(message) = self.message_from_value(e, &value) else {
                continue;
            };
            // A split response counts once.
            let first_of_group = entry.group.is_none() || seen_groups.insert(entry.group);
            if first_of_group {
                check.messages += 1;
            }
            for (id, _) in message.tool_calls() {
                if call_ids.insert(id.to_owned()) {
                    check.tool_calls += 1;
                }
                calls[i].push(id.to_owned());
            }
            for (id, is_error) in message.tool_results() {
                check.tool_results += 1;
                check.tool_errors += u64::from(is_error);
                results[i].push(id.to_owned());
            }
            if let Some(model) = &message.model {
                let slot = check.models.entry(model.clone()).or_default();
                if first_of_group {
                    slot.messages += 1;
                }
                if let Some(usage) = &message.usage {
                    // Repeated on every line of a split response: keep the
                    // last line's figures only.
                    slot.last_usage_by_group(entry.group, usage);
                }
            }
        }
        for m in check.models.values_mut() {
            m.settle();
        }
        self.check_pairing(&calls, &results, &mut check);
        check
            .diagnostics
            .sort_by_key(|d| (d.file, d.offset, d.line));
        Ok(check)
    }

    /// Tool-call pairing per branch: every result needs its call earlier on
    /// the branch, every call a result.
    fn check_pairing(&self, calls: &[Vec<String>], results: &[Vec<String>], check: &mut Check) {
        let mut reported: HashSet<(u32, String)> = HashSet::new();
        let tips: Vec<EntryId> = self.tree.tips().to_vec();
        for tip in tips {
            let branch = self.branch(tip);
            let mut called: HashSet<&str> = HashSet::new();
            let mut answered: HashSet<&str> = HashSet::new();
            for &e in &branch {
                for id in &calls[e.index()] {
                    called.insert(id);
                }
                for id in &results[e.index()] {
                    answered.insert(id);
                    if !called.contains(id.as_str()) && reported.insert((e.0, id.clone())) {
                        check.pairing.results_without_call += 1;
                        let entry = self.entry(e);
                        check.diagnostics.push(Diagnostic::at(
                            entry,
                            Severity::Warning,
                            DiagnosticKind::ResultWithoutCall,
                            format!("tool result for \"{id}\" has no call before it on its branch"),
                        ));
                    }
                }
            }
            for &e in &branch {
                for id in &calls[e.index()] {
                    if !answered.contains(id.as_str()) && reported.insert((e.0, id.clone())) {
                        check.pairing.calls_without_result += 1;
                        let entry = self.entry(e);
                        check.diagnostics.push(Diagnostic::at(
                            entry,
                            Severity::Warning,
                            DiagnosticKind::CallWithoutResult,
                            format!(
                                "tool call \"{id}\" has no result on the branch ending at {}",
                                self.label(tip)
                            ),
                        ));
                    }
                }
            }
        }
    }

    /// Whether an entry is the kind of line a person typed (for views).
    pub fn is_prompt(&self, e: EntryId) -> bool {
        match self.file_format(self.entry(e).file) {
            Format::ClaudeCode => claude::is_prompt(self.entry(e), &self.interner),
            _ => self.role(e) == "user",
        }
    }

    /// Whether an entry is a Claude Code sidechain (subagent) line.
    pub fn is_sidechain(&self, e: EntryId) -> bool {
        self.entry(e).flags.has(Flags::SIDECHAIN)
    }
}

/// The byte offset of a serde_json (line, column) position within `bytes`.
fn column_offset(bytes: &[u8], line: usize, column: usize) -> u64 {
    let mut offset = 0usize;
    for _ in 1..line {
        match memchr::memchr(b'\n', &bytes[offset..]) {
            Some(i) => offset += i + 1,
            None => break,
        }
    }
    (offset + column.saturating_sub(1)).min(bytes.len()) as u64
}

/// What [`Session::check`] found.
#[derive(Debug, Default, Serialize)]
pub struct Check {
    /// Problems only a full parse can see, and pairing problems.
    pub diagnostics: Vec<Diagnostic>,
    /// Normalized messages over all entries (a split response counts once).
    pub messages: u64,
    /// Distinct tool calls.
    pub tool_calls: u64,
    pub tool_results: u64,
    /// Tool results marked as errors.
    pub tool_errors: u64,
    pub pairing: ToolPairing,
    /// Per model: messages and token usage.
    pub models: BTreeMap<String, ModelStats>,
}

/// Pairing problems, counted once per entry and call id.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct ToolPairing {
    pub results_without_call: u64,
    pub calls_without_result: u64,
}

/// Messages and tokens of one model.
#[derive(Debug, Default, Serialize)]
pub struct ModelStats {
    pub messages: u64,
    pub usage: Usage,
    #[serde(skip)]
    pending: BTreeMap<crate::intern::Sym, Usage>,
}

impl ModelStats {
    fn last_usage_by_group(&mut self, group: crate::intern::Sym, usage: &Usage) {
        if group.is_none() {
            self.usage.add(usage);
        } else {
            self.pending.insert(group, *usage);
        }
    }

    fn settle(&mut self) {
        for u in std::mem::take(&mut self.pending).values() {
            self.usage.add(u);
        }
    }
}
