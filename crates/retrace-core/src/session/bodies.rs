//! Bodies on demand: the messages of a branch (the deep check that parses
//! every body is `check.rs`).

use crate::model::entry::{EntryId, FileId, Flags};
use crate::model::message::Message;
use crate::model::sort::sort;
use crate::normalize::provider::system_message;
use crate::normalize::{ContextOptions, LOOKBACK};
use crate::normalize::{Mode, Origin};
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
