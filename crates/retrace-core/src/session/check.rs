//! The deep check: every body parsed (grammar and UTF-8 errors the index
//! could not see), tool-call pairing on every branch, totals for reports.
//!
//! It runs in two steps so a caller with threads can share the costly one:
//! [`Session::check_part`] parses and normalizes a run of entries on its
//! own ([`Session::check_parts`] says where runs may start), and
//! [`Session::check_join`] counts what the runs found, in order, the way
//! one pass over every entry would.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Serialize;

use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{EntryId, FileId};
use crate::model::format_id::Format;
use crate::model::intern::{Interner, Sym};
use crate::model::message::{Message, MessageKind, Usage};
use crate::model::sort::sort_by_key;
use crate::normalize::figures;
use crate::normalize::{ContextOptions, Mode, Normalize};
use crate::session::Session;
use crate::source::{Source, SourceError};
use crate::tree::pairing::{self, BranchRule, Side};

/// Bytes of bodies the check reads at once: a read per line would cost
/// a system call per line of a file.
const WINDOW: u64 = 1 << 20;

impl Session {
    /// Parses every body: grammar and UTF-8 errors the index could not see,
    /// tool-call pairing on every branch, and totals for reports.
    pub fn check<S: Source + ?Sized>(&self, source: &mut S) -> Result<Check, SourceError> {
        let whole = self.check_part(0..self.entries.len(), source)?;
        Ok(self.check_join(vec![whole]))
    }

    /// The entries split into at most `parts` runs of about equal bytes,
    /// in order and covering every entry, each of which
    /// [`Session::check_part`] can read on its own: a run starts at a file's
    /// first entry, or where the file's format reads each line alone.
    pub fn check_parts(&self, parts: usize) -> Vec<Range<usize>> {
        let n = self.entries.len();
        let bytes: u64 = self.entries.iter().map(|e| u64::from(e.len)).sum();
        let share = bytes / parts.max(1) as u64 + 1;
        let per_line: Vec<bool> = (0..self.files.len())
            .map(|f| {
                let rules = self.file_format(FileId(f as u16)).rules();
                rules.normalizer(Mode::Check).per_line()
            })
            .collect();
        let mut runs = Vec::new();
        let (mut start, mut taken) = (0, 0u64);
        for (i, e) in self.entries.iter().enumerate() {
            let may_start =
                i > start && (e.file != self.entries[i - 1].file || per_line[e.file.0 as usize]);
            if may_start && taken >= share && runs.len() + 1 < parts {
                runs.push(start..i);
                (start, taken) = (i, 0);
            }
            taken += u64::from(e.len);
        }
        if start < n || runs.is_empty() {
            runs.push(start..n);
        }
        runs
    }

    /// Parses and normalizes the entries `run` (one of
    /// [`Session::check_parts`], or all of them), for
    /// [`Session::check_join`].
    pub fn check_part<S: Source + ?Sized>(
        &self,
        run: Range<usize>,
        source: &mut S,
    ) -> Result<CheckPart, SourceError> {
        self.check_run(run, source, true)
    }

    /// [`Session::check`] with every line parsed and normalized, none read
    /// for its figures alone: what the figures are held to (tests only).
    #[doc(hidden)]
    pub fn check_normalizing_every_line<S: Source + ?Sized>(
        &self,
        source: &mut S,
    ) -> Result<Check, SourceError> {
        let whole = self.check_run(0..self.entries.len(), source, false)?;
        Ok(self.check_join(vec![whole]))
    }

    fn check_run<S: Source + ?Sized>(
        &self,
        run: Range<usize>,
        source: &mut S,
        use_figures: bool,
    ) -> Result<CheckPart, SourceError> {
        let mut part = CheckPart::default();
        let mut normalizer: Option<(FileId, Box<dyn Normalize>)> = None;
        let mut emitted: Vec<Message> = Vec::new();
        let mut figures = None;
        let mut i = run.start;
        while i < run.end {
            // Bodies read a window at a time, not a read per line.
            let (entries, range) = self.window(i, run.end);
            i = entries.end;
            let window = match &range {
                Some(r) => source.read(self.entries[entries.start].file, r.clone())?,
                None => std::borrow::Cow::Borrowed(&[][..]),
            };
            let start = range.map_or(0, |r| r.start);
            for i in entries {
                let entry = &self.entries[i];
                let e = EntryId(i as u32);
                if normalizer.as_ref().is_none_or(|(f, _)| *f != entry.file) {
                    if let Some((f, mut n)) = normalizer.take() {
                        n.finish(&mut emitted);
                        self.found(f, None, emitted.drain(..), &mut part.found);
                    }
                    let rules = self.file_format(entry.file).rules();
                    let n = rules.normalizer(Mode::Check);
                    figures = rules.figures().filter(|_| use_figures && n.per_line());
                    normalizer = Some((entry.file, n));
                }
                if entry.is_broken() {
                    continue;
                }
                let at = (entry.offset - start) as usize;
                let bytes = &window[at..at + entry.len as usize];
                let in_tree = self.tree.contains(e);
                // The figures straight from the bytes where the format can
                // read them so, else (and for a line that does not parse, to
                // say why) the full parse and normalization below.
                if in_tree {
                    if let Some(Ok(read)) = figures.map(|read| read(bytes)) {
                        part.found.extend(read.map(|f| Found {
                            entry: e,
                            marker: false,
                            calls: f.calls,
                            results: f.results,
                            model: f.model,
                            usage: f.usage,
                        }));
                        continue;
                    }
                } else if use_figures && cfg!(not(target_arch = "wasm32")) && figures::valid(bytes)
                {
                    continue;
                }
                let value: serde_json::Value = match serde_json::from_slice(bytes) {
                    Ok(v) => v,
                    Err(err) => {
                        let utf8 = std::str::from_utf8(bytes).err();
                        let (kind, message, at) = match utf8 {
                            Some(u) => (
                                DiagnosticKind::InvalidUtf8,
                                format!("invalid UTF-8 at byte {} of the line", u.valid_up_to()),
                                u.valid_up_to() as u64,
                            ),
                            None => (
                                DiagnosticKind::MalformedJson,
                                format!("not valid JSON: {err}"),
                                column_offset(bytes, err.line(), err.column()),
                            ),
                        };
                        part.diagnostics.push(Diagnostic {
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
                if !in_tree {
                    continue;
                }
                let (_, n) = normalizer.as_mut().expect("set above");
                n.feed(
                    &self.origin(e, ContextOptions::default()),
                    &value,
                    &mut emitted,
                );
                self.found(entry.file, Some(e), emitted.drain(..), &mut part.found);
            }
        }
        if let Some((f, mut n)) = normalizer.take() {
            n.finish(&mut emitted);
            self.found(f, None, emitted.drain(..), &mut part.found);
        }
        Ok(part)
    }

    /// The entries from `i` (before `end`) whose bytes are read at once,
    /// and those bytes' range: entries of one file within [`WINDOW`] bytes
    /// of the first (at least one). Broken lines are not read (a file's
    /// cut last line may lie past its end), so they widen no range.
    fn window(&self, i: usize, end: usize) -> (Range<usize>, Option<Range<u64>>) {
        let file = self.entries[i].file;
        let mut range: Option<Range<u64>> = None;
        let mut j = i;
        while j < end {
            let e = &self.entries[j];
            if e.file != file {
                break;
            }
            if !e.is_broken() {
                match &mut range {
                    None => range = Some(e.range()),
                    Some(r) if e.offset < r.start || e.range().end - r.start > WINDOW => break,
                    Some(r) => r.end = r.end.max(e.range().end),
                }
            }
            j += 1;
        }
        (i..j.max(i + 1), range)
    }

    /// What [`Session::check_part`]s found, given in the order of their
    /// runs, counted as one pass over every entry counts it.
    pub fn check_join(&self, parts: Vec<CheckPart>) -> Check {
        let mut check = Check::default();
        let mut tally = Tally {
            tool_ids: Interner::default(),
            calls: Vec::new(),
            results: Vec::new(),
            called: Vec::new(),
            seen_groups: vec![false; self.interner.len()],
        };
        for part in parts {
            check.diagnostics.extend(part.diagnostics);
            for found in part.found {
                self.count(found, &mut tally, &mut check);
            }
        }
        for m in check.models.values_mut() {
            m.settle();
        }
        self.check_pairing(&tally, &mut check);
        sort_by_key(&mut check.diagnostics, |d| (d.file, d.offset, d.line));
        check
    }

    /// The counted figures of messages a normalizer emitted while reading
    /// `file`; `current` is the entry just fed. A message is credited to the
    /// entry of its last line (a normalizer may emit a message after the
    /// entries it came from).
    fn found(
        &self,
        file: FileId,
        current: Option<EntryId>,
        messages: impl Iterator<Item = Message>,
        out: &mut Vec<Found>,
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
            let marker = message.kind == MessageKind::Marker;
            out.push(Found {
                entry: EntryId(i as u32),
                marker,
                calls: message.tool_calls().map(|(id, _)| id.to_owned()).collect(),
                results: message
                    .tool_results()
                    .map(|(id, is_error)| (id.to_owned(), is_error))
                    .collect(),
                model: message.model,
                usage: message.usage,
            });
        }
    }

    /// Counts one message [`Session::found`].
    fn count(&self, found: Found, tally: &mut Tally, check: &mut Check) {
        if found.marker {
            check.markers += 1;
            return;
        }
        let e = found.entry;
        let entry = self.entry(e);
        // A split response counts once.
        let first_of_group = entry.group.is_none()
            || !std::mem::replace(&mut tally.seen_groups[entry.group.index()], true);
        if first_of_group {
            check.messages += 1;
        }
        for id in &found.calls {
            let id = tally.tool_ids.intern(id.as_bytes());
            if id.index() >= tally.called.len() {
                tally.called.resize(id.index() + 1, false);
            }
            if !std::mem::replace(&mut tally.called[id.index()], true) {
                check.tool_calls += 1;
            }
            tally.calls.push((e, id));
        }
        for (id, is_error) in &found.results {
            check.tool_results += 1;
            check.tool_errors += u64::from(*is_error);
            let id = tally.tool_ids.intern(id.as_bytes());
            tally.results.push((e, id));
        }
        if let Some(model) = found.model {
            let slot = check.models.entry(model).or_default();
            if first_of_group {
                slot.messages += 1;
            }
            if let Some(usage) = &found.usage {
                // Repeated on every line of a split response: keep the
                // last line's figures only.
                slot.last_usage_by_group(entry.group, usage);
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
}

/// What [`Session::check_part`] found in its run of entries, for
/// [`Session::check_join`].
#[derive(Debug, Default)]
pub struct CheckPart {
    /// Bodies that do not parse, in entry order.
    diagnostics: Vec<Diagnostic>,
    /// The messages normalized, in order, as the figures counted of them.
    found: Vec<Found>,
}

/// What is counted of one normalized message.
#[derive(Debug)]
struct Found {
    /// The entry it is credited to.
    entry: EntryId,
    marker: bool,
    /// Tool call ids, and tool results as `(call id, is_error)`.
    calls: Vec<String>,
    results: Vec<(String, bool)>,
    model: Option<String>,
    usage: Option<Usage>,
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

/// Running counts of [`Session::check_join`].
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
    pending: BTreeMap<Sym, Usage>,
}

impl ModelStats {
    fn last_usage_by_group(&mut self, group: Sym, usage: &Usage) {
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
