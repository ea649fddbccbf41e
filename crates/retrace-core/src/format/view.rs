//! What a format's rules see of a session once its tree is built: the
//! index, each file's format and the tree, without the session around them
//! (which is built from what the rules answer).

use crate::model::entry::{Entry, EntryId, FileId};
use crate::model::format_id::Format;
use crate::model::intern::Interner;
use crate::read::file::FileInfo;
use crate::tree::Tree;

/// A read-only view of a session for [`Rules`](super::Rules) hooks.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub files: &'a [FileInfo],
    /// The format of each file.
    pub formats: &'a [Format],
    pub entries: &'a [Entry],
    pub interner: &'a Interner,
    pub tree: &'a Tree,
}

impl<'a> View<'a> {
    pub fn files(&self) -> &'a [FileInfo] {
        self.files
    }

    pub fn entries(&self) -> &'a [Entry] {
        self.entries
    }

    pub fn entry(&self, e: EntryId) -> &'a Entry {
        &self.entries[e.index()]
    }

    pub fn file_format(&self, file: FileId) -> Format {
        self.formats[file.0 as usize]
    }

    pub fn interner(&self) -> &'a Interner {
        self.interner
    }

    pub fn tree(&self) -> &'a Tree {
        self.tree
    }

    /// The entry's `type` (empty for a broken line).
    pub fn kind(&self, e: EntryId) -> &'a str {
        std::str::from_utf8(self.interner.get(self.entry(e).kind)).unwrap_or("")
    }

    /// The entry's `subtype` (empty when absent).
    pub fn subtype(&self, e: EntryId) -> &'a str {
        std::str::from_utf8(self.interner.get(self.entry(e).subtype)).unwrap_or("")
    }

    /// The entry's `message.role`, or, when it has none, the role its format
    /// says it stands for (Gemini CLI's `type: gemini` is the model); empty
    /// when neither.
    pub fn role(&self, e: EntryId) -> &'a str {
        let role = std::str::from_utf8(self.interner.get(self.entry(e).role)).unwrap_or("");
        if role.is_empty() {
            if let Some(r) = self.file_format(self.entry(e).file).rules().role(self, e) {
                return r;
            }
        }
        role
    }
}
