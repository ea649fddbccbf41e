//! Provider message lists: OpenAI Chat messages, OpenAI Responses items,
//! Anthropic messages, Google contents, AgentScope `Msg`s. One message per
//! line, a JSON array, or an object holding the list (a request body, see
//! `document.rs`). Each message follows the one before.
//!
//! The entries carry no `type` to detect them by, so detection goes by the
//! first entries the reader sampled (`sniff.rs`); each element is read by
//! its own shape (`normalize/provider.rs`), so a list whose first messages
//! say little about their API still reads right. One rules value per
//! shape, so `--format` can name each.

use super::rules::{Confidence, Rules};
use super::view::View;
use crate::model::entry::{Entry, EntryId};
use crate::model::format_id::Format;
use crate::model::intern::Interner;
use crate::model::provider::Api;
use crate::normalize;
use crate::normalize::{Mode, Normalize, PerLine};
use crate::read::fields::{weak, FieldSpec, Slot};
use crate::read::file::FileInfo;
use crate::read::sniff::ListShape;

const FIELDS: &[FieldSpec] = &[
    // The message is the entry: its role is a top-level key.
    FieldSpec::top(b"role", weak(Slot::Role)),
];

pub(crate) struct List(pub ListShape);

pub(crate) const ANTHROPIC: List = List(ListShape::Api(Api::Anthropic));
pub(crate) const OPENAI_CHAT: List = List(ListShape::Api(Api::OpenAiChat));
pub(crate) const OPENAI_RESPONSES: List = List(ListShape::Api(Api::OpenAiResponses));
pub(crate) const GOOGLE: List = List(ListShape::Api(Api::Google));
pub(crate) const AGENTSCOPE: List = List(ListShape::AgentScope);

impl List {
    fn format(&self) -> Format {
        match self.0 {
            ListShape::Api(api) => Format::MessageList { api },
            ListShape::AgentScope => Format::AgentScope,
        }
    }
}

impl Rules for List {
    fn fields(&self) -> &'static [FieldSpec] {
        FIELDS
    }

    fn detect(&self, _entries: &[Entry], _interner: &Interner) -> Option<(Confidence, Format)> {
        None
    }

    /// Most of the sampled entries are messages of this shape. Formats with
    /// their own markers outrank it.
    fn detect_file(
        &self,
        info: &FileInfo,
        _entries: &[Entry],
        _interner: &Interner,
    ) -> Option<(Confidence, Format)> {
        (info.sniff.list == Some(self.0)).then(|| (Confidence::Weak, self.format()))
    }

    fn forced(&self, _entries: &[Entry], _interner: &Interner) -> Format {
        self.format()
    }

    fn normalizer(&self, _mode: Mode) -> Box<dyn Normalize> {
        Box::new(PerLine(normalize::provider::element_message))
    }

    /// A request body's `system`, `systemInstruction` or `instructions`.
    fn document_system(&self) -> bool {
        true
    }

    fn is_prompt(&self, s: &View, e: EntryId) -> bool {
        s.role(e).eq_ignore_ascii_case("user") || s.role(e) == "human"
    }
}
