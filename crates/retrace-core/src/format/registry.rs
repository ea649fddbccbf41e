//! The formats retrace knows: the one place that lists them and dispatches
//! on [`Format`], and the key table merged from all of them.

use std::sync::OnceLock;

use crate::model::entry::Entry;
use crate::model::format_id::Format;
use crate::model::intern::Interner;
use crate::model::provider::Api;
use crate::read::fields::KeyTable;
use crate::read::file::FileInfo;

use super::rules::{Confidence, Rules};
use super::{claude, codex, events, gemini, generic, list, pi};

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
    /// The rules of this format: the one place that dispatches on it.
    pub(crate) fn rules(self) -> &'static dyn Rules {
        match self {
            Format::Pi { .. } => &pi::Pi,
            Format::ClaudeCode => &claude::Claude,
            Format::Codex => &codex::Codex,
            Format::Events => &events::Events,
            Format::GeminiCli => &gemini::Gemini,
            Format::MessageList { api } => match api {
                Api::Anthropic => &list::ANTHROPIC,
                Api::OpenAiChat => &list::OPENAI_CHAT,
                Api::OpenAiResponses => &list::OPENAI_RESPONSES,
                Api::Google => &list::GOOGLE,
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

/// The keys every format wants indexed, merged once (see `read/fields.rs`).
pub(crate) fn key_table() -> &'static KeyTable {
    static TABLE: OnceLock<KeyTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        KeyTable::build(ALL.iter().map(|rules| rules.fields())).expect("format key tables agree")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::fields::{sym, Slot};

    #[test]
    fn every_format_agrees_on_shared_keys() {
        let table = key_table();
        assert_eq!(table.top(b"type").0, Some(sym(Slot::Kind)));
        assert_eq!(table.top(b"nope"), (None, None));
    }
}
