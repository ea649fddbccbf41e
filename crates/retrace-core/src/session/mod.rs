//! A read session: its files, entries, branch tree and diagnostics.

use crate::format::{Rules, Subagent, View};
use crate::model::bookmark::Bookmark;
use crate::model::diag::Diagnostic;
use crate::model::entry::{Entry, EntryId, FileId, Flags};
use crate::model::format_id::Format;
use crate::model::intern::Interner;
use crate::read::file::FileInfo;
use crate::tree::Tree;

mod bookmarks;
mod build;
mod bodies;
mod check;
mod rows;
mod outline;
mod export;
mod preview;
mod search;
mod summary;
mod listing;

pub use check::{Check, CheckPart, ModelStats, ToolPairing};
pub(crate) use export::{document_frame, line_range, one_line};
pub use export::{export_branch, Export, ExportError};
pub use listing::{session_title, Listed};
pub use outline::Segment;
pub use preview::{segment_preview, Preview, LOOKED_AT, PREVIEW_CHARS};
pub use rows::{Marks, Row, RowKind};
#[cfg(test)]
pub(crate) use search::MARKS as SEARCH_MARKS;
pub use search::{
    entry_text, event_line, search, searchable_text, written_needle, Hit, Hits, SearchFilter,
    SEARCH_LIMIT, SNIPPET_CONTEXT,
};
pub use summary::{Info, ModelStat, Stats, Summary};

/// A session read by a [`Reader`](crate::Reader): the index of every entry and the branch
/// tree. Message bodies are not parsed until asked for (see
/// [`Session::context`]).
#[derive(Debug)]
pub struct Session {
    pub(crate) format: Format,
    pub(crate) file_formats: Vec<Format>,
    pub(crate) files: Vec<FileInfo>,
    pub(crate) entries: Vec<Entry>,
    pub(crate) interner: Interner,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) tree: Tree,
    pub(crate) subagents: Vec<Subagent>,
    /// By entry (see `bookmarks.rs`).
    pub(crate) bookmarks: Vec<Bookmark>,
}

impl Session {
    /// The format of the session (of its first file).
    pub fn format(&self) -> Format {
        self.format
    }

    /// The format of each file.
    pub fn file_format(&self, file: FileId) -> Format {
        self.file_formats[file.0 as usize]
    }

    /// The input files, in the order they were read.
    pub fn files(&self) -> &[FileInfo] {
        &self.files
    }

    /// Every entry, in file order (files in the order they were read).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// One entry.
    pub fn entry(&self, e: EntryId) -> &Entry {
        &self.entries[e.index()]
    }

    /// The branch tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Problems found while reading, in file order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Subagent files linked to the conversation.
    pub fn subagents(&self) -> &[Subagent] {
        &self.subagents
    }

    /// The entry's `type` (empty for a broken line).
    pub fn kind(&self, e: EntryId) -> &str {
        self.view().kind(e)
    }

    /// The entry's `subtype` (empty when absent; a pi `label` entry's
    /// name, as written, escapes and all: [`Session::bookmarks`] reads it).
    pub fn subtype(&self, e: EntryId) -> &str {
        self.view().subtype(e)
    }

    /// The entry's `message.role` (empty when absent).
    pub fn role(&self, e: EntryId) -> &str {
        self.view().role(e)
    }

    /// The entry's own id, if it has one.
    pub fn id(&self, e: EntryId) -> Option<&str> {
        let sym = self.entry(e).id;
        (!sym.is_none()).then(|| std::str::from_utf8(self.interner.get(sym)).unwrap_or(""))
    }

    /// The id to show for an entry: its own, or `L<line>` for entries
    /// without one (pi v1), prefixed by the file number for later files.
    pub fn label(&self, e: EntryId) -> String {
        match self.id(e) {
            // An earlier version shares its id with the current one.
            Some(id) if !self.entry(e).flags.has(Flags::REWRITTEN) => id.to_owned(),
            _ => self.line_label(e),
        }
    }

    /// The entry's place as a label [`Session::find`] takes whatever its
    /// id: `L<line>`, or `F<file>L<line>` in a later file.
    pub fn line_label(&self, e: EntryId) -> String {
        let entry = self.entry(e);
        match entry.file.0 {
            0 => format!("L{}", entry.line),
            f => format!("F{f}L{}", entry.line),
        }
    }

    /// Finds an entry by id or by a label from [`Session::label`]; of
    /// several entries with the id, the first ([`Session::find_all`] gives
    /// them all).
    pub fn find(&self, id: &str) -> Option<EntryId> {
        self.find_all(id).first().copied()
    }

    /// Every entry an id or a label from [`Session::label`] names: the
    /// current version of a rewritten message, else every entry with the
    /// id (a file may use one twice: then name one by its
    /// [`Session::line_label`]), else the entry at the label.
    pub fn find_all(&self, id: &str) -> Vec<EntryId> {
        let sym = self.interner.lookup(id.as_bytes());
        if !sym.is_none() {
            // Earlier versions of a rewritten message share its id.
            let with_id = |current: bool| {
                self.entries
                    .iter()
                    .enumerate()
                    .filter(move |(_, e)| {
                        e.id == sym && (!current || !e.flags.has(Flags::REWRITTEN))
                    })
                    .map(|(i, _)| EntryId(i as u32))
            };
            let current: Vec<EntryId> = with_id(true).collect();
            if !current.is_empty() {
                return current;
            }
            if let Some(first) = with_id(false).next() {
                return vec![first];
            }
        }
        self.find_label(id).into_iter().collect()
    }

    /// The entry of `file` that starts at byte `offset` (what a
    /// [`Source`](crate::Source) is asked for when a body is read), if
    /// one does.
    pub fn entry_at(&self, file: FileId, offset: u64) -> Option<EntryId> {
        let info = self.files.get(file.0 as usize)?;
        let own = &self.entries[info.first_entry as usize..info.end_entry as usize];
        let i = own.binary_search_by_key(&offset, |e| e.offset).ok()?;
        Some(EntryId(info.first_entry + i as u32))
    }

    /// The entry at a label `L<line>` or `F<file>L<line>`.
    fn find_label(&self, id: &str) -> Option<EntryId> {
        let rest = id.strip_prefix(['F', 'L'])?;
        let (file, line): (u32, u32) = match id.starts_with('F') {
            true => {
                let (f, l) = rest.split_once('L')?;
                (f.parse().ok()?, l.parse().ok()?)
            }
            false => (0u32, rest.parse().ok()?),
        };
        self.entries
            .iter()
            .position(|e| u32::from(e.file.0) == file && e.line == line)
            .map(|i| EntryId(i as u32))
    }

    /// What format rules see of this session.
    pub(crate) fn view(&self) -> View<'_> {
        View {
            files: &self.files,
            formats: &self.file_formats,
            entries: &self.entries,
            interner: &self.interner,
            tree: &self.tree,
        }
    }

    /// The rules of the format of the file an entry is in.
    pub(crate) fn rules_of(&self, e: EntryId) -> &'static dyn Rules {
        self.file_format(self.entry(e).file).rules()
    }
}
