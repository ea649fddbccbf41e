//! What a format says about its files: the [`Rules`] trait every format
//! implements, and what its hooks are given while the tree is built.

use serde::Serialize;
use serde_json::Value;

use crate::model::diag::Diagnostic;
use crate::model::entry::{Entry, EntryId, FileId, Flags};
use crate::model::format_id::Format;
use crate::model::intern::{Interner, Sym};
use crate::normalize::figures::ReadFigures;
use crate::normalize::{Mode, Normalize};
use crate::read::digest::Digests;
use crate::read::fields::FieldSpec;
use crate::read::file::FileInfo;

use super::view::View;

/// A subagent run linked to the entry that spawned it.
#[derive(Debug, Clone, Serialize)]
pub struct Subagent {
    /// The file holding the subagent's entries.
    pub file: FileId,
    /// The agent id (`agentId`).
    pub agent_id: String,
    /// The tool-result entry in the parent conversation that reports its
    /// outcome (for Codex, the `spawn_agent` output that names it, or the
    /// last call before it began), where found.
    pub spawned_by: Option<EntryId>,
}

/// How sure a format is that a file is its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Confidence {
    /// Plausible from the shape of the lines (a pi file without its header).
    Weak,
    /// Lines only this format writes.
    Likely,
    /// A header or marker that names the format.
    Sure,
}

/// One file of a session, as its format's rules see it while the tree is
/// built.
pub(crate) struct FileCx<'a> {
    pub file: FileId,
    pub info: &'a FileInfo,
    pub format: Format,
    /// All entries of the session (this file's are `range()`).
    pub entries: &'a [Entry],
    pub interner: &'a Interner,
    /// Fingerprints of the values formats asked for, by entry index.
    pub digests: &'a Digests,
}

impl FileCx<'_> {
    /// This file's entries as indices into the session's entries.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.info.first_entry as usize..self.info.end_entry as usize
    }

    pub fn own(&self) -> &[Entry] {
        &self.entries[self.range()]
    }

    pub fn kind(&self, e: &Entry) -> &[u8] {
        self.interner.get(e.kind)
    }
}

/// No entry.
pub(crate) const NONE: u32 = u32::MAX;

/// The links a format writes for its files while the tree is built: which
/// entries are nodes and what their parents are, either an entry directly
/// or an id resolved once every file is linked.
pub(crate) struct Links {
    pub node: Vec<bool>,
    /// Parent entry, or [`NONE`].
    pub parent: Vec<u32>,
    /// Parent named by id (resolved across files), or `Sym::NONE`.
    pub parent_id: Vec<Sym>,
    /// Flags a format learns while linking (a Gemini CLI message rewritten
    /// later), added to the entries before the tree is built.
    pub flags: Vec<u16>,
    /// Per file: the node its session stands at now, for a format that
    /// replays its records to know (Gemini CLI: the last message left after
    /// rewinds), or [`NONE`] to leave the default leaf to the last node.
    pub current: Vec<u32>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Links {
    /// No entry linked yet, for `entries` entries in `files` files.
    pub fn new(entries: usize, files: usize) -> Links {
        Links {
            node: vec![false; entries],
            parent: vec![NONE; entries],
            parent_id: vec![Sym::NONE; entries],
            flags: vec![0; entries],
            current: vec![NONE; files],
            diagnostics: Vec::new(),
        }
    }

    /// Every node of the file follows the node before it (files without
    /// ids: pi v1, minimal Claude Code exports, Codex rollouts).
    pub fn linear(&mut self, cx: &FileCx, is_node: impl Fn(&Entry) -> bool) {
        let mut previous = NONE;
        for e in cx.range() {
            let entry = &cx.entries[e];
            if entry.is_broken() || !is_node(entry) {
                continue;
            }
            self.node[e] = true;
            self.parent[e] = previous;
            previous = e as u32;
        }
    }

    /// Nodes name their parent by id (`parent_of` gives the id, `Sym::NONE`
    /// for a root).
    pub fn by_id(
        &mut self,
        cx: &FileCx,
        is_node: impl Fn(&Entry) -> bool,
        parent_of: impl Fn(&Entry) -> Sym,
    ) {
        for e in cx.range() {
            let entry = &cx.entries[e];
            if entry.is_broken() || !is_node(entry) {
                continue;
            }
            self.node[e] = true;
            self.parent_id[e] = parent_of(entry);
        }
    }
}

/// Whether the side line under `child` belongs to a branch whose path
/// passes the fan-out at `parent` by another child: then the child's whole
/// subtree is part of the branch, which is in file order (a tool result
/// recorded beside the next tool call sits where it was written).
pub(crate) type SideLines = fn(s: &View, parent: EntryId, child: EntryId) -> bool;

/// What a format says about its files. The defaults suit a linear format
/// whose every entry is a node and whose fan-outs are all real.
pub(crate) trait Rules: Sync {
    // ---- reading ----

    /// Keys to lift into each entry at index time (merged with every other
    /// format's; see `fields.rs`).
    fn fields(&self) -> &'static [FieldSpec] {
        &[]
    }

    /// Whether the first entries of a file look like this format.
    fn detect(&self, entries: &[Entry], interner: &Interner) -> Option<(Confidence, Format)>;

    /// [`Rules::detect`] with what the reader saw of the file besides its
    /// entries: its sampled first entries and, for one JSON document, its
    /// top-level fields.
    fn detect_file(
        &self,
        _info: &FileInfo,
        entries: &[Entry],
        interner: &Interner,
    ) -> Option<(Confidence, Format)> {
        self.detect(entries, interner)
    }

    /// The format when the user names it (`--format`) without detection
    /// agreeing: e.g. pi's version still comes from the header if any.
    fn forced(&self, entries: &[Entry], interner: &Interner) -> Format;

    // ---- the tree ----

    /// Whether an entry type is one the format is known to write (others
    /// are reported, and kept). For an entry with a `type`, the answer
    /// must follow from that type alone: it is asked once per type.
    fn is_known_type(&self, _e: &Entry, _interner: &Interner) -> bool {
        true
    }

    /// Marks the file's nodes and their parents.
    fn link(&self, cx: &FileCx, links: &mut Links) {
        links.linear(cx, |_| true);
    }

    /// Links across the files of this format read together (forks,
    /// sub-agents, split sets), after every file was linked on its own and
    /// before ids are resolved. `files` are in the order they were read.
    fn link_files(&self, _files: &[&FileCx], _links: &mut Links) {}

    /// Whether nodes of this format name others by id (their ids are
    /// indexed for parent lookup and checked for duplicates).
    fn ids_are_links(&self) -> bool {
        false
    }

    /// Whether the default leaf follows the branch on into later files (a
    /// split set is one stream; otherwise it is the first file's last node).
    fn follows_into_later_files(&self) -> bool {
        false
    }

    /// An id the default leaf should be instead of this last node (a
    /// persisted leaf marker).
    fn leaf_target(&self, _e: &Entry, _interner: &Interner) -> Sym {
        Sym::NONE
    }

    /// Whether a fan-out (children in file order) is a real branch rather
    /// than a recording artifact.
    fn is_real_fork(&self, _children: &mut dyn Iterator<Item = &Entry>, _: &Interner) -> bool {
        true
    }

    /// Whether a branch can start at this entry (something typed).
    fn is_branch_start(&self, _e: &Entry, _interner: &Interner) -> bool {
        true
    }

    /// Sub-agent runs in this format's files, linked to what spawned them.
    fn subagents(&self, _s: &View) -> Vec<Subagent> {
        Vec::new()
    }

    // ---- bodies ----

    /// A fresh normalizer for one branch or one file.
    fn normalizer(&self, mode: Mode) -> Box<dyn Normalize>;

    /// Reads what the deep check counts of a line straight from its bytes
    /// (see `normalize/figures.rs`), for a format whose check normalizer
    /// reads each line alone; `None` (the default): the check normalizes
    /// every line.
    fn figures(&self) -> Option<ReadFigures> {
        None
    }

    /// Which side lines a branch takes in besides its path (see
    /// [`SideLines`]); `None` (the default): a branch is its path.
    fn side_lines(&self) -> Option<SideLines> {
        None
    }

    /// The entries of a branch whose bodies make its context, honouring
    /// compaction.
    fn context_entries(&self, _s: &View, branch: &[EntryId]) -> Vec<EntryId> {
        branch.to_vec()
    }

    /// `context` (what [`Rules::context_entries`] gave, opened by a
    /// compaction) with the entries that compaction keeps by id in its body
    /// rather than where the index sees them (Claude Code's
    /// `compactMetadata.preservedMessages`, three levels down) spliced in;
    /// `body` is the compaction's line.
    fn splice_kept(&self, _s: &View, _body: &Value, context: Vec<EntryId>) -> Vec<EntryId> {
        context
    }

    /// Entries a branch needs before it to stand alone as a file (pi's
    /// session header).
    fn header(&self, _s: &View, _file: FileId) -> Option<EntryId> {
        None
    }

    /// Whether an entry is something a person typed.
    fn is_prompt(&self, s: &View, e: EntryId) -> bool {
        s.role(e) == "user"
    }

    /// Whether an entry compacts the context before it.
    fn is_compaction(&self, _s: &View, _e: EntryId) -> bool {
        false
    }

    /// Whether an entry edits the branch it is on, as Codex's
    /// `thread_rolled_back` drops the turns before it. The tree has applied
    /// it already (the turns it drops are on another branch), so a branch
    /// written as a file of its own leaves it out: read again, it would
    /// drop earlier turns.
    fn is_branch_edit(&self, _s: &View, _e: EntryId) -> bool {
        false
    }

    /// Whether an entry records a git checkpoint of the workspace (the
    /// store's `checkpoint` event, Codex's `ghost_snapshot`).
    fn is_checkpoint(&self, _s: &View, _e: EntryId) -> bool {
        false
    }

    /// Whether an entry reports a failure: its index flag
    /// ([`Flags::ERROR`]), or what the format knows beside it (a Gemini CLI
    /// `error` notice).
    fn is_error(&self, s: &View, e: EntryId) -> bool {
        s.entry(e).flags.has(Flags::ERROR)
    }

    /// Whether an entry's body is a message (something said), judged from
    /// its index fields, for views that show other lines as events.
    fn is_message(&self, _s: &View, _e: EntryId) -> bool {
        true
    }

    /// The role an entry stands for when its index has none (Gemini CLI
    /// says `type: gemini` for the model).
    fn role(&self, _s: &View, _e: EntryId) -> Option<&'static str> {
        None
    }

    /// How an entry joins the rows a view shows ([`Fold`]); by default
    /// each entry is a row of its own.
    fn fold(&self, _s: &View, _e: EntryId) -> Fold {
        Fold::Own
    }

    /// Entries before a row (of the entries `row`) whose lines set the
    /// state its own lines are read in, fed to the row's normalizer before
    /// them with what they give thrown away (Codex: the settings and token
    /// totals the model's step follows). Empty by default.
    fn prelude(&self, _s: &View, _row: &[EntryId]) -> Vec<EntryId> {
        Vec::new()
    }

    /// Entries after a row (beyond rows of its own, such as its calls'
    /// results) that still belong to what it shows, fed to its normalizer
    /// after its own lines (a Codex step's token count written after its
    /// outputs). Empty by default.
    fn postlude(&self, _s: &View, _row: &[EntryId]) -> Vec<EntryId> {
        Vec::new()
    }

    /// Whether a JSON document's `system`, `systemInstruction` or
    /// `instructions` field opens the context (a request body).
    fn document_system(&self) -> bool {
        false
    }
}

/// How an entry joins the rows of a branch (`Session::rows`), from its
/// index fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fold {
    /// A row of its own (a Claude Code response's lines still join by
    /// `message.id`).
    Own,
    /// A part of the model's step: joins the step begun just before it
    /// (Codex reasoning, text and calls written as items of their own).
    Step,
    /// Bookkeeping about the rows beside it (a token count, the UI's copy
    /// of an item, a command's end): joins the step before it while that
    /// step takes lines, else the row after it. Only a row of its own when
    /// neither is next to it.
    Aside,
    /// Bookkeeping about what follows (a turn's start, its settings): ends
    /// the step before it and joins the row after it.
    Ahead,
}

/// The entries a format's `detect` looks at: the first 64 well-formed ones.
pub(crate) fn detection_sample(entries: &[Entry]) -> impl Iterator<Item = &Entry> {
    entries.iter().filter(|e| !e.is_broken()).take(64)
}
