//! The session formats retrace reads, as plug-ins.
//!
//! A format is one module here that implements [`Rules`] (plus, for its
//! bodies, a module under `normalize/`). The line index, the tree and the
//! message model are shared; the session, tree and context code ask a
//! format's [`Rules`] everything format-specific and match on [`Format`] in
//! one place only: [`Format::rules`]. Adding a format is: a variant of
//! [`Format`], a module implementing [`Rules`], a line in [`Format::rules`]
//! and in [`ALL`].

use serde::Serialize;
use serde_json::Value;

use crate::diag::Diagnostic;
use crate::digest::Digests;
use crate::entry::{Entry, EntryId, FileId};
use crate::fields::FieldSpec;
use crate::intern::{Interner, Sym};
use crate::message::Message;
use crate::normalize::ContextOptions;
use crate::session::{FileInfo, Session, Subagent};

pub(crate) mod claude;
pub(crate) mod codex;
pub(crate) mod events;
pub(crate) mod folder;
pub(crate) mod gemini;
pub(crate) mod generic;
pub(crate) mod list;
pub(crate) mod pi;
pub(crate) mod sniff;

/// A session file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "name", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Format {
    /// pi coding agent; `version` 1 (linear, no ids), 2 or 3 (tree).
    Pi { version: u32 },
    /// Claude Code transcripts (`~/.claude/projects/…`).
    ClaudeCode,
    /// OpenAI Codex CLI rollouts (`~/.codex/sessions/…/rollout-*.jsonl`).
    Codex,
    /// Agent event streams (`events.jsonl`, split as `events_N.jsonl`).
    Events,
    /// Gemini CLI sessions: the legacy JSON document or the JSONL record
    /// log (`$set`, `$rewindTo`, rewritten messages).
    GeminiCli,
    /// A provider API's message list: one message per line, a JSON array,
    /// or an object holding a `messages` (`contents`, `input`) array.
    MessageList { api: crate::api::Api },
    /// AgentScope `Msg` lists (`memory_messages.jsonl`).
    AgentScope,
    /// JSON lines of no known format: entries, no tree.
    Generic,
}

/// Every format's rules, in detection order (ties in confidence go to the
/// earlier one).
pub(crate) const ALL: &[&dyn Rules] = &[
    &pi::Pi,
    &claude::Claude,
    &codex::Codex,
    &events::Events,
    &gemini::Gemini,
    &list::ANTHROPIC,
    &list::OPENAI_CHAT,
    &list::OPENAI_RESPONSES,
    &list::GOOGLE,
    &list::AGENTSCOPE,
    &generic::Generic,
];

impl Format {
    /// A short name: `pi`, `claude-code`, `generic`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Pi { .. } => "pi",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Events => "events",
            Format::GeminiCli => "gemini-cli",
            Format::MessageList { api } => match api {
                crate::api::Api::Anthropic => "anthropic-messages",
                crate::api::Api::OpenAiChat => "openai-chat-messages",
                crate::api::Api::OpenAiResponses => "openai-responses-items",
                crate::api::Api::Google => "google-contents",
            },
            Format::AgentScope => "agentscope",
            Format::Generic => "generic",
        }
    }

    /// The name with its version where one is known, e.g. `pi v3`.
    pub fn describe(self) -> String {
        match self {
            Format::Pi { version } => format!("pi v{version}"),
            other => other.name().to_owned(),
        }
    }

    /// The format a user names (`pi`, `claude-code`, `generic`, …), as
    /// given to [`ReaderOptions::format`](crate::ReaderOptions). A version
    /// is still read from the file where it has one.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, format)| format)
    }

    /// The names [`Format::from_name`] accepts.
    pub const NAMES: &'static [(&'static str, Format)] = &[
        ("pi", Format::Pi { version: 3 }),
        ("claude-code", Format::ClaudeCode),
        ("codex", Format::Codex),
        ("events", Format::Events),
        ("gemini-cli", Format::GeminiCli),
        (
            "anthropic-messages",
            Format::MessageList {
                api: crate::api::Api::Anthropic,
            },
        ),
        (
            "openai-chat-messages",
            Format::MessageList {
                api: crate::api::Api::OpenAiChat,
            },
        ),
        (
            "openai-responses-items",
            Format::MessageList {
                api: crate::api::Api::OpenAiResponses,
            },
        ),
        (
            "google-contents",
            Format::MessageList {
                api: crate::api::Api::Google,
            },
        ),
        ("agentscope", Format::AgentScope),
        ("generic", Format::Generic),
    ];

    /// The rules of this format: the one place that dispatches on it.
    pub(crate) fn rules(self) -> &'static dyn Rules {
        match self {
            Format::Pi { .. } => &pi::Pi,
            Format::ClaudeCode => &claude::Claude,
            Format::Codex => &codex::Codex,
            Format::Events => &events::Events,
            Format::GeminiCli => &gemini::Gemini,
            Format::MessageList { api } => match api {
                crate::api::Api::Anthropic => &list::ANTHROPIC,
                crate::api::Api::OpenAiChat => &list::OPENAI_CHAT,
                crate::api::Api::OpenAiResponses => &list::OPENAI_RESPONSES,
                crate::api::Api::Google => &list::GOOGLE,
            },
            Format::AgentScope => &list::AGENTSCOPE,
            Format::Generic => &generic::Generic,
        }
    }

    /// Guesses the format of one file from its entries: the most confident
    /// of the formats that recognise it, else [`Format::Generic`].
    pub(crate) fn detect(info: &FileInfo, entries: &[Entry], interner: &Interner) -> Format {
        let mut best: Option<(Confidence, Format)> = None;
        for rules in ALL {
            if let Some((confidence, format)) = rules.detect_file(info, entries, interner) {
                if best.is_none_or(|(c, _)| confidence > c) {
                    best = Some((confidence, format));
                }
            }
        }
        best.map_or(Format::Generic, |(_, f)| f)
    }
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

/// Whether context is being built for one branch or every body is being
/// checked (where a format must not repeat messages a branch would show
/// twice, such as history replayed after a compaction).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Context,
    Check,
}

/// Where a body came from, for the message built from it, and what the
/// message is read for.
pub(crate) struct Origin<'a> {
    pub entry: &'a Entry,
    /// The entry's id or `L<line>` label.
    pub label: String,
    /// Whether to keep what only a provider needs (see [`ContextOptions`]).
    pub options: ContextOptions,
}

impl Origin<'_> {
    /// Records this entry as a source of `m`.
    pub fn stamp(&self, m: &mut Message) {
        m.entries.push(self.label.clone());
        m.lines.push(self.entry.line);
    }
}

/// Turns parsed bodies into messages, fed entry by entry in branch order
/// (for [`Session::context`]) or file order (for [`Session::check`]). A
/// normalizer may hold state (the model of the current turn, a response
/// spread over several lines) and emit a message later than the entry that
/// began it; in [`Mode::Context`] `out` is the whole context so far.
pub(crate) trait Normalize {
    fn feed(&mut self, origin: &Origin, value: &Value, out: &mut Vec<Message>);
    /// Emits what is still held back.
    fn finish(&mut self, _out: &mut Vec<Message>) {}
}

/// A normalizer made of a function from one body to at most one message.
pub(crate) struct PerLine(pub fn(&Value, ContextOptions) -> Option<Message>);

impl Normalize for PerLine {
    fn feed(&mut self, origin: &Origin, value: &Value, out: &mut Vec<Message>) {
        if let Some(mut m) = (self.0)(value, origin.options) {
            origin.stamp(&mut m);
            out.push(m);
        }
    }
}

/// Whether the side line under `child` belongs to a branch whose path
/// passes the fan-out at `parent` by another child: then the child's whole
/// subtree is part of the branch, which is in file order (a tool result
/// recorded beside the next tool call sits where it was written).
pub(crate) type SideLines = fn(s: &Session, parent: EntryId, child: EntryId) -> bool;

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
    fn subagents(&self, _s: &Session) -> Vec<Subagent> {
        Vec::new()
    }

    // ---- bodies ----

    /// A fresh normalizer for one branch or one file.
    fn normalizer(&self, mode: Mode) -> Box<dyn Normalize>;

    /// Which side lines a branch takes in besides its path (see
    /// [`SideLines`]); `None` (the default): a branch is its path.
    fn side_lines(&self) -> Option<SideLines> {
        None
    }

    /// The entries of a branch whose bodies make its context, honouring
    /// compaction.
    fn context_entries(&self, _s: &Session, branch: &[EntryId]) -> Vec<EntryId> {
        branch.to_vec()
    }

    /// Entries a branch needs before it to stand alone as a file (pi's
    /// session header).
    fn header(&self, _s: &Session, _file: FileId) -> Option<EntryId> {
        None
    }

    /// Whether an entry is something a person typed.
    fn is_prompt(&self, s: &Session, e: EntryId) -> bool {
        s.role(e) == "user"
    }

    /// Whether an entry compacts the context before it.
    fn is_compaction(&self, _s: &Session, _e: EntryId) -> bool {
        false
    }

    /// Whether an entry's body is a message (something said), judged from
    /// its index fields, for views that show other lines as events.
    fn is_message(&self, _s: &Session, _e: EntryId) -> bool {
        true
    }

    /// The role an entry stands for when its index has none (Gemini CLI
    /// says `type: gemini` for the model).
    fn role(&self, _s: &Session, _e: EntryId) -> Option<&'static str> {
        None
    }

    /// Whether a JSON document's `system`, `systemInstruction` or
    /// `instructions` field opens the context (a request body).
    fn document_system(&self) -> bool {
        false
    }
}

/// The entries a format's `detect` looks at: the first 64 well-formed ones.
pub(crate) fn detection_sample(entries: &[Entry]) -> impl Iterator<Item = &Entry> {
    entries.iter().filter(|e| !e.is_broken()).take(64)
}
