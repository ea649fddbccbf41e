//! A branch as a viewer shows it: one row per thing that happened, built
//! from the index alone, so a million-entry branch is laid out without
//! reading a single body.
//!
//! A row is one message (a Claude Code response written over several lines
//! is one row) or one event that is not a message (a model change, a hook
//! line, a compaction boundary). Rows carry their time and the marks a
//! timeline shows; their bodies are read with [`Session::row_message`]
//! when the row is on screen.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::format::Fold;
use crate::model::entry::{EntryId, Flags};
use crate::model::intern::Sym;
use crate::model::message::{Message, MessageKind, Role};
use crate::normalize::ContextOptions;
use crate::normalize::Mode;
use crate::session::Session;
use crate::source::{Source, SourceError};

/// What a row stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowKind {
    /// A message: something said by a person, the model or a tool.
    Message,
    /// Anything else on the branch: settings, labels, hook and progress
    /// lines, compaction boundaries.
    Event,
}

/// Marks a timeline shows on a row, as bit flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Marks(pub u8);

impl Marks {
    /// A prompt someone typed.
    pub const PROMPT: u8 = 1 << 0;
    /// A failed tool call or model error (from the index: see
    /// [`Flags::ERROR`](crate::Flags::ERROR)).
    pub const ERROR: u8 = 1 << 1;
    /// A compaction: the context restarts from a summary here.
    pub const COMPACTION: u8 = 1 << 2;
    /// The branch forks after this row (someone went back to here).
    pub const BRANCH_POINT: u8 = 1 << 3;
    /// A subagent was spawned here (its result row).
    pub const SUBAGENT: u8 = 1 << 4;
    /// A git checkpoint of the workspace was taken here.
    pub const CHECKPOINT: u8 = 1 << 5;
    /// Someone bookmarked an entry of the row ([`Session::bookmarks_on`]
    /// names it).
    pub const BOOKMARK: u8 = 1 << 6;

    /// Whether `mark` (one of the constants) is set.
    pub fn has(self, mark: u8) -> bool {
        self.0 & mark != 0
    }
}

/// One row of a branch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The entries the row was built from, in file order.
    pub entries: Vec<EntryId>,
    /// A message or another kind of line.
    pub kind: RowKind,
    /// The entry type (`message`, `user`, `model_change`, …).
    #[serde(rename = "type")]
    pub entry_type: String,
    /// `message.role` as written, empty when absent.
    pub role: String,
    /// Milliseconds since the Unix epoch, from the index.
    pub time: Option<i64>,
    /// What the row shows, for navigation and the replay.
    pub marks: Marks,
}

impl Session {
    /// The rows of the branch ending at `leaf`, in the order they happened.
    ///
    /// A row is one entry, or the lines its format folds together
    /// ([`Rules::fold`](crate::format::Rules)): a Claude Code response
    /// written over several lines (one `message.id`), a Codex step (its
    /// reasoning, text and calls, with the token count and settings
    /// around them). A row's entries are consecutive on the branch and in
    /// the file, so a line number finds its row; its type, role and time
    /// are its first own line's. Lines are only ever added before a row's
    /// first message or after a step's: the last entry of a prompt's or a
    /// result's row, where a fork point is, stays its own.
    pub fn rows(&self, leaf: EntryId) -> Vec<Row> {
        let mut rows: Vec<Row> = Vec::new();
        // Claude Code: the row of each response still open (by `message.id`)
        // since the last prompt.
        let mut open: HashMap<Sym, usize> = HashMap::new();
        // The row of the step that still takes lines, and the bookkeeping
        // lines waiting for the row after them.
        let mut step: Option<usize> = None;
        let mut held: Vec<EntryId> = Vec::new();
        let mut previous: Option<EntryId> = None;
        for e in self.branch(leaf) {
            let entry = self.entry(e);
            let is_message = self.rules_of(e).is_message(&self.view(), e);
            let fold = self.rules_of(e).fold(&self.view(), e);
            // Only lines next to each other in one file fold together.
            let next_to =
                previous.is_some_and(|p| p.0 + 1 == e.0 && self.entry(p).file == entry.file);
            if !next_to {
                self.own_rows(&mut held, &mut rows);
                step = None;
            }
            previous = Some(e);
            match (fold, step) {
                (Fold::Aside, Some(r)) | (Fold::Step, Some(r)) => {
                    self.join(&mut rows[r], e, is_message);
                    continue;
                }
                (Fold::Aside, None) | (Fold::Ahead, _) => {
                    held.push(e);
                    step = None;
                    continue;
                }
                _ => {}
            }
            let role = self.role(e);
            if is_message && role == "user" {
                open.clear();
            }
            // A response written over several lines (Claude Code: one line
            // per content block, sharing `message.id`) is one row.
            if is_message && role == "assistant" && !entry.group.is_none() {
                if let Some(&r) = open.get(&entry.group) {
                    self.join(&mut rows[r], e, is_message);
                    continue;
                }
                open.insert(entry.group, rows.len());
            }
            let mut row = self.row_of_entry(e, is_message);
            for &h in held.iter().rev() {
                row.entries.insert(0, h);
                row.marks.0 |= self.index_marks(h, false).0;
            }
            held.clear();
            step = (fold == Fold::Step).then_some(rows.len());
            rows.push(row);
        }
        self.own_rows(&mut held, &mut rows);
        rows
    }

    /// A row of the one entry `e`.
    fn row_of_entry(&self, e: EntryId, is_message: bool) -> Row {
        Row {
            entries: vec![e],
            kind: if is_message {
                RowKind::Message
            } else {
                RowKind::Event
            },
            entry_type: self.kind(e).to_owned(),
            role: self.role(e).to_owned(),
            time: self.entry(e).timestamp(),
            marks: self.index_marks(e, is_message),
        }
    }

    /// `e` added to the end of `row`.
    fn join(&self, row: &mut Row, e: EntryId, is_message: bool) {
        row.entries.push(e);
        row.marks.0 |= self.index_marks(e, is_message).0;
    }

    /// The bookkeeping lines no row took, each a row of its own.
    fn own_rows(&self, held: &mut Vec<EntryId>, rows: &mut Vec<Row>) {
        for e in held.drain(..) {
            let is_message = self.rules_of(e).is_message(&self.view(), e);
            rows.push(self.row_of_entry(e, is_message));
        }
    }

    /// The marks an entry earns from its index fields alone.
    fn index_marks(&self, e: EntryId, is_message: bool) -> Marks {
        let entry = self.entry(e);
        let mut marks = 0;
        if is_message && self.is_prompt(e) {
            marks |= Marks::PROMPT;
        }
        if self.is_compaction(e) || entry.flags.has(Flags::COMPACT_SUMMARY) {
            marks |= Marks::COMPACTION;
        }
        if self.tree.is_real_branch_point(e) {
            marks |= Marks::BRANCH_POINT;
        }
        if self.rules_of(e).is_error(&self.view(), e) {
            marks |= Marks::ERROR;
        }
        if self.subagents.iter().any(|s| s.spawned_by == Some(e)) {
            marks |= Marks::SUBAGENT;
        }
        if self.is_checkpoint(e) {
            marks |= Marks::CHECKPOINT;
        }
        if !self.bookmarks_on(e).is_empty() {
            marks |= Marks::BOOKMARK;
        }
        Marks(marks)
    }

    /// Takes the prompt mark off rows the harness wrote: a format calls
    /// every user line a prompt from the index, but what the harness
    /// writes there alone (a slash command and its output, `!` shell
    /// lines, a caveat, Codex's environment context) is no typed prompt,
    /// by the rule titles use ([`Message::is_typed_prompt`]). Reads only
    /// the bodies of marked rows whose text opens like harness text
    /// ([`Flags::HARNESS_TEXT`], from the index): in a browser each body
    /// is a read of the file, and a branch of a big session has hundreds
    /// of prompts.
    pub fn mark_typed_prompts<S: Source + ?Sized>(
        &self,
        rows: &mut [Row],
        source: &mut S,
    ) -> Result<(), SourceError> {
        let hinted = |r: &Row| {
            r.entries
                .iter()
                .any(|&e| self.entry(e).flags.has(Flags::HARNESS_TEXT))
        };
        for row in rows
            .iter_mut()
            .filter(|r| r.marks.has(Marks::PROMPT) && hinted(r))
        {
            let typed = self
                .row_message(row, source)?
                .is_some_and(|m| m.is_typed_prompt());
            if !typed {
                row.marks.0 &= !Marks::PROMPT;
            }
        }
        Ok(())
    }

    /// The message a row shows: its entries' messages merged (a split
    /// response becomes one message with its usage counted once). `None`
    /// for event rows and bodies that do not parse.
    pub fn row_message<S: Source + ?Sized>(
        &self,
        row: &Row,
        source: &mut S,
    ) -> Result<Option<Message>, SourceError> {
        let Some(&first) = row.entries.first() else {
            return Ok(None);
        };
        // The row's entries through one normalizer, as context would see
        // them; a format that holds a response back until it is complete
        // gives it at `finish`.
        let mut normalizer = self.rules_of(first).normalizer(Mode::Context);
        let mut out = Vec::new();
        // The lines before the row that set its state (a Codex step's
        // settings and token totals), their messages thrown away.
        let prelude = self.rules_of(first).prelude(&self.view(), &row.entries);
        if !prelude.is_empty() {
            for e in prelude {
                if let Ok(value) = self.body(e, source)? {
                    normalizer.feed(&self.origin(e, ContextOptions::default()), &value, &mut out);
                }
            }
            normalizer.finish(&mut out);
            out.clear();
        }
        // Its own lines, then the lines after it that still belong to it
        // (a Codex step's token count written after its outputs).
        let postlude = self.rules_of(first).postlude(&self.view(), &row.entries);
        for &e in row.entries.iter().chain(&postlude) {
            if let Ok(value) = self.body(e, source)? {
                normalizer.feed(&self.origin(e, ContextOptions::default()), &value, &mut out);
            }
        }
        normalizer.finish(&mut out);
        let mut messages = out.into_iter();
        let Some(mut merged) = messages.next() else {
            return Ok(None);
        };
        for mut next in messages {
            // An injected prompt and the model's answer on one line (an
            // events `llm_call`): the row is the answer, the prompt its
            // context piece.
            if merged.kind == MessageKind::Meta && next.role == Role::Assistant {
                next.harness = std::mem::take(&mut merged.harness);
                next.entries.splice(0..0, merged.entries.drain(..));
                next.lines.splice(0..0, merged.lines.drain(..));
                merged = next;
                continue;
            }
            if merged.model.is_none() {
                merged.model = next.model;
            }
            merged.content.extend(next.content);
            merged.entries.extend(next.entries);
            merged.lines.extend(next.lines);
            if next.usage.is_some() {
                merged.usage = next.usage;
            }
        }
        Ok(Some(merged))
    }
}
