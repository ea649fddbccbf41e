//! Bodies on demand: the messages of a branch, and the deep check that parses
//! every body.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{EntryId, FileId, Flags};
use crate::model::format_id::Format;
use crate::model::intern::{Interner, Sym};
use crate::model::message::{Message, MessageKind, Usage};
use crate::model::sort::{sort, sort_by_key};
use crate::normalize::provider::system_message;
use crate::normalize::{ContextOptions, LOOKBACK};
use crate::normalize::{Mode, Normalize, Origin};
use crate::session::Session;
use crate::source::{Source, SourceError};
use crate::tree::pairing::{self, BranchRule, Side};

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
    /// that do not parse. A Gemini CLI record can stand for two messages
    /// (a model turn and its tool results): this is the first, see
    /// [`Session::messages`].
    pub fn message<S: Source + ?Sized>(
        &self,
        e: EntryId,
        source: &mut S,
    ) -> Result<Option<Message>, SourceError> {
        Ok(self.messages(e, source)?.into_iter().next())
    }

    /// Every message an entry holds on its own, in order.
    pub fn messages<S: Source + ?Sized>(
        &self,
        e: EntryId,
        source: &mut S,
    ) -> Result<Vec<Message>, SourceError> {
        let Ok(value) = self.body(e, source)? else {
            return Ok(Vec::new());
        };
        let mut normalizer = self.rules_of(e).normalizer(Mode::Context);
        let mut out = Vec::new();
        let origin = self.origin(e, ContextOptions::default());
        normalizer.feed(&origin, &value, &mut out);
        normalizer.finish(&mut out);
        Ok(out)
    }

    pub(crate) fn origin(&self, e: EntryId, options: ContextOptions) -> Origin<'_> {
        Origin {
            entry: self.entry(e),
            label: self.label(e),
            options,
        }
    }

    /// The system prompt a request body keeps beside its list (`system`,
    /// `systemInstruction`, `instructions`), read from its range.
    pub(crate) fn document_system<S: Source + ?Sized>(
        &self,
        file: FileId,
        source: &mut S,
    ) -> Result<Option<Message>, SourceError> {
        let Some(doc) = &self.files()[file.0 as usize].document else {
            return Ok(None);
        };
        let field = [
            "system",
            "systemInstruction",
            "system_instruction",
            "instructions",
        ]
        .iter()
        .find_map(|k| doc.field(k));
        let Some(field) = field else { return Ok(None) };
        let bytes = source.read(file, field.value.clone())?;
        Ok(serde_json::from_slice(&bytes)
            .ok()
            .and_then(|v| system_message(&v)))
    }

    /// The entries that make up the branch ending at `leaf`, in the order
    /// they happened: the path from the root, plus (Claude Code) the side
    /// lines of structural fan-outs along it, such as a tool result recorded
    /// beside the next tool call.
    pub fn branch(&self, leaf: EntryId) -> Vec<EntryId> {
        let path = self.tree.path(leaf);
        let Some(folds) = self.rules_of(leaf).side_lines() else {
            return path;
        };
        let mut out = path.clone();
        for (i, &p) in path.iter().enumerate() {
            if self.tree.children(p).len() < 2 {
                continue;
            }
            for c in self.tree.children(p) {
                if path.get(i + 1) != Some(&c) && folds(&self.view(), p, c) {
                    out.extend(self.tree.subtree(c));
                }
            }
        }
        sort(&mut out);
        out
    }

    /// The entries a session file of the branch ending at `leaf` holds:
    /// [`Session::branch`] with what it needs before it to stand alone
    /// (pi's session header), without the entries that edit the branch
    /// they are on (a Codex rollback: see [`Session::is_branch_edit`]).
    pub fn standalone_branch(&self, leaf: EntryId) -> Vec<EntryId> {
        let mut entries = self.branch(leaf);
        entries.retain(|&e| !self.is_branch_edit(e));
        let file = self.entry(leaf).file;
        if let Some(header) = self.rules_of(leaf).header(&self.view(), file) {
            if !entries.contains(&header) {
                entries.insert(0, header);
            }
        }
        entries
    }

    /// Whether an entry edits the branch it is on (Codex's
    /// `thread_rolled_back` drops the turns before it). The tree has applied
    /// the edit (the turns it drops are on another branch), so
    /// [`Session::standalone_branch`] leaves the entry out: in a file of the
    /// branch alone it would drop earlier turns.
    pub fn is_branch_edit(&self, e: EntryId) -> bool {
        self.rules_of(e).is_branch_edit(&self.view(), e)
    }

    /// The normalized messages an agent would see on the branch ending at
    /// `leaf`: compaction honoured (its summary, then what it kept), Claude
    /// Code responses split over lines merged into one message.
    pub fn context<S: Source + ?Sized>(
        &self,
        leaf: EntryId,
        source: &mut S,
    ) -> Result<Vec<Message>, SourceError> {
        self.context_with(leaf, source, ContextOptions::default())
    }

    /// [`Session::context`] with options: a migration asks for the payloads
    /// a provider needs (images, thinking signatures).
    pub fn context_with<S: Source + ?Sized>(
        &self,
        leaf: EntryId,
        source: &mut S,
        options: ContextOptions,
    ) -> Result<Vec<Message>, SourceError> {
        let mut out = Vec::new();
        self.context_each(leaf, source, options, |m| {
            out.push(m);
            Ok::<_, SourceError>(())
        })?;
        Ok(out)
    }

    /// [`Session::context_with`] one message at a time, handed to `each` in
    /// order, without holding the branch's messages: a long branch is read
    /// body by body, and only the last few messages, which a format may
    /// still change, are held. The first error `each` returns stops it.
    pub fn context_each<S, E>(
        &self,
        leaf: EntryId,
        source: &mut S,
        options: ContextOptions,
        mut each: impl FnMut(Message) -> Result<(), E>,
    ) -> Result<(), E>
    where
        S: Source + ?Sized,
        E: From<SourceError>,
    {
        let rules = self.rules_of(leaf);
        let entries = self.context_entries(leaf, source)?;
        let mut out: Vec<Message> = Vec::new();
        if rules.document_system() {
            out.extend(self.document_system(self.entry(leaf).file, source)?);
        }
        let mut normalizer = rules.normalizer(Mode::Context);
        for e in entries {
            let Ok(value) = self.body(e, source)? else {
                continue;
            };
            normalizer.feed(&self.origin(e, options), &value, &mut out);
            // Handed on in batches, so the held ones move seldom.
            if out.len() >= 2 * LOOKBACK {
                for m in out.drain(..out.len() - LOOKBACK) {
                    each(m)?;
                }
            }
        }
        normalizer.finish(&mut out);
        out.into_iter().try_for_each(each)
    }

    /// The entries whose bodies make the context of the branch ending at
    /// `leaf`, in the order the model sees them: the format's
    /// `context_entries`, and when a compaction opens them and keeps
    /// entries by id in its body (Claude Code), those spliced in.
    pub(crate) fn context_entries<S: Source + ?Sized>(
        &self,
        leaf: EntryId,
        source: &mut S,
    ) -> Result<Vec<EntryId>, SourceError> {
        self.context_of(&self.branch(leaf), source)
    }

    /// [`Session::context_entries`] of the entries `branch` (a branch, or
    /// the start of one: what the context was at its last entry).
    pub(crate) fn context_of<S: Source + ?Sized>(
        &self,
        branch: &[EntryId],
        source: &mut S,
    ) -> Result<Vec<EntryId>, SourceError> {
        let Some(&last) = branch.last() else {
            return Ok(Vec::new());
        };
        let rules = self.rules_of(last);
        let view = self.view();
        let entries = rules.context_entries(&view, branch);
        match entries.first() {
            Some(&first) if rules.is_compaction(&view, first) => match self.body(first, source)? {
                Ok(body) => Ok(rules.splice_kept(&view, &body, entries)),
                Err(_) => Ok(entries),
            },
            _ => Ok(entries),
        }
    }

    /// Parses every body: grammar and UTF-8 errors the index could not see,
    /// tool-call pairing on every branch, and totals for reports.
    pub fn check<S: Source + ?Sized>(&self, source: &mut S) -> Result<Check, SourceError> {
        let mut check = Check::default();
        let mut tally = Tally {
            tool_ids: Interner::default(),
            calls: Vec::new(),
            results: Vec::new(),
            called: Vec::new(),
            seen_groups: vec![false; self.interner.len()],
        };
        let mut normalizer: Option<(FileId, Box<dyn Normalize>)> = None;
        let mut emitted: Vec<Message> = Vec::new();
        for (i, entry) in self.entries.iter().enumerate() {
            let e = EntryId(i as u32);
            if normalizer.as_ref().is_none_or(|(f, _)| *f != entry.file) {
                if let Some((f, mut n)) = normalizer.take() {
                    n.finish(&mut emitted);
                    self.count(f, None, emitted.drain(..), &mut tally, &mut check);
                }
                let rules = self.file_format(entry.file).rules();
                normalizer = Some((entry.file, rules.normalizer(Mode::Check)));
            }
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
            // Lines outside the tree (metadata, a fork's copy of history
            // shown in its parent) are checked but say nothing new.
            if !self.tree.contains(e) {
                continue;
            }
            let (_, n) = normalizer.as_mut().expect("set above");
            n.feed(
                &self.origin(e, ContextOptions::default()),
                &value,
                &mut emitted,
            );
            self.count(
                entry.file,
                Some(e),
                emitted.drain(..),
                &mut tally,
                &mut check,
            );
        }
        if let Some((f, mut n)) = normalizer.take() {
            n.finish(&mut emitted);
            self.count(f, None, emitted.drain(..), &mut tally, &mut check);
        }
        for m in check.models.values_mut() {
            m.settle();
        }
        self.check_pairing(&tally, &mut check);
        sort_by_key(&mut check.diagnostics, |d| (d.file, d.offset, d.line));
        Ok(check)
    }

    /// Counts messages a normalizer emitted while reading `file`; `current`
    /// is the entry just fed. A message is credited to the entry of its last
    /// line (a normalizer may emit a message after the entries it came from).
    fn count(
        &self,
        file: FileId,
        current: Option<EntryId>,
        messages: impl Iterator<Item = Message>,
        tally: &mut Tally,
        check: &mut Check,
    ) {
        for message in messages {
            let i = match (current, message.lines.last()) {
                (Some(c), Some(&line)) if self.entry(c).line == line => c.index(),
                (_, Some(&line)) => match self.entry_at_line(file, line) {
                    Some(e) => e.index(),
                    None => continue,
                },
                (Some(c), None) => c.index(),
                (None, None) => continue,
            };
            if message.kind == MessageKind::Marker {
                check.markers += 1;
                continue;
            }
            let entry = &self.entries[i];
            let e = EntryId(i as u32);
            // A split response counts once.
            let first_of_group = entry.group.is_none()
                || !std::mem::replace(&mut tally.seen_groups[entry.group.index()], true);
            if first_of_group {
                check.messages += 1;
            }
            for (id, _) in message.tool_calls() {
                let id = tally.tool_ids.intern(id.as_bytes());
                if id.index() >= tally.called.len() {
                    tally.called.resize(id.index() + 1, false);
                }
                if !std::mem::replace(&mut tally.called[id.index()], true) {
                    check.tool_calls += 1;
                }
                tally.calls.push((e, id));
            }
            for (id, is_error) in message.tool_results() {
                check.tool_results += 1;
                check.tool_errors += u64::from(is_error);
                let id = tally.tool_ids.intern(id.as_bytes());
                tally.results.push((e, id));
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
    }

    /// The first entry on a line of a file.
    fn entry_at_line(&self, file: FileId, line: u32) -> Option<EntryId> {
        let info = &self.files[file.0 as usize];
        let own = &self.entries[info.first_entry as usize..info.end_entry as usize];
        let i = own.partition_point(|e| e.line < line);
        own.get(i)
            .filter(|e| e.line == line)
            .map(|_| EntryId(info.first_entry + i as u32))
    }

    /// Tool-call pairing on every branch (see `pairing.rs`): every result
    /// needs its call earlier on the branch, every call a result.
    fn check_pairing(&self, tally: &Tally, check: &mut Check) {
        // Tips by format: a branch is read the way its tip's format says.
        let mut formats: Vec<(Format, Vec<EntryId>)> = Vec::new();
        for &tip in self.tree.tips() {
            let format = self.file_format(self.entry(tip).file);
            match formats.iter_mut().find(|(f, _)| *f == format) {
                Some((_, tips)) => tips.push(tip),
                None => formats.push((format, vec![tip])),
            }
        }
        let view = self.view();
        let folds: Vec<_> = formats
            .iter()
            .map(|(f, _)| {
                let side = f.rules().side_lines();
                side.map(|side| move |p, c| side(&view, p, c))
            })
            .collect();
        let rules: Vec<BranchRule> = formats
            .into_iter()
            .zip(&folds)
            .map(|((_, tips), folds)| BranchRule {
                tips,
                folds: folds.as_ref().map(|f| f as pairing::Folds),
            })
            .collect();
        for u in pairing::unpaired(&self.tree, &rules, &tally.calls, &tally.results) {
            let entry = self.entry(u.entry);
            let id = String::from_utf8_lossy(tally.tool_ids.get(u.id));
            let diagnostic = match u.side {
                Side::Result => {
                    check.pairing.results_without_call += 1;
                    Diagnostic::at(
                        entry,
                        Severity::Warning,
                        DiagnosticKind::ResultWithoutCall,
                        format!("tool result for \"{id}\" has no call before it on its branch"),
                    )
                }
                Side::Call => {
                    check.pairing.calls_without_result += 1;
                    Diagnostic::at(
                        entry,
                        Severity::Warning,
                        DiagnosticKind::CallWithoutResult,
                        format!(
                            "tool call \"{id}\" has no result on the branch ending at {}",
                            self.label(u.tip)
                        ),
                    )
                }
            };
            check.diagnostics.push(diagnostic);
        }
    }

    /// Whether an entry is the kind of line a person typed (for views).
    pub fn is_prompt(&self, e: EntryId) -> bool {
        self.rules_of(e).is_prompt(&self.view(), e)
    }

    /// Whether an entry compacts the context before it (pi `compaction`,
    /// Claude Code `compact_boundary`, …), for views that mark it.
    pub fn is_compaction(&self, e: EntryId) -> bool {
        self.rules_of(e).is_compaction(&self.view(), e)
    }

    /// Whether an entry records a git checkpoint (the store's `checkpoint`
    /// event, Codex `ghost_snapshot`), for views that mark it.
    pub fn is_checkpoint(&self, e: EntryId) -> bool {
        self.rules_of(e).is_checkpoint(&self.view(), e)
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

/// Running counts of [`Session::check`].
struct Tally {
    /// Tool call ids, each stored once.
    tool_ids: Interner,
    /// The tool calls and results credited to entries, as found.
    calls: Vec<(EntryId, Sym)>,
    results: Vec<(EntryId, Sym)>,
    /// Per tool call id: whether a call named it (calls are counted once).
    called: Vec<bool>,
    /// Per `group` symbol: whether a line of that response was counted.
    seen_groups: Vec<bool>,
}

/// What [`Session::check`] found.
#[derive(Debug, Default, Serialize)]
pub struct Check {
    /// Problems only a full parse can see, and pairing problems.
    pub diagnostics: Vec<Diagnostic>,
    /// Normalized messages over all entries (a split response counts once),
    /// markers not included.
    pub messages: u64,
    /// Events on the timeline (rollbacks, aborted turns, state transitions).
    pub markers: u64,
    /// Distinct tool calls.
    pub tool_calls: u64,
    /// Tool results.
    pub tool_results: u64,
    /// Tool results marked as errors.
    pub tool_errors: u64,
    /// Results and calls without their other half on some branch.
    pub pairing: ToolPairing,
    /// Per model: messages and token usage.
    pub models: BTreeMap<String, ModelStats>,
}

/// Pairing problems, counted once per entry and call id.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct ToolPairing {
    /// Tool results with no call before them on their branch.
    pub results_without_call: u64,
    /// Tool calls with no result after them on a branch that ends.
    pub calls_without_result: u64,
}

/// Messages and tokens of one model.
#[derive(Debug, Default, Serialize)]
pub struct ModelStats {
    /// Messages the model wrote.
    pub messages: u64,
    /// Their token usage, each response counted once.
    pub usage: Usage,
    #[serde(skip)]
    pending: BTreeMap<crate::model::intern::Sym, Usage>,
}

impl ModelStats {
    fn last_usage_by_group(&mut self, group: crate::model::intern::Sym, usage: &Usage) {
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
