//! JSON lines of no known format: every object is an entry, none is a node,
//! no body is a message. Nothing is refused and nothing is lost; the session
//! reports that the format was not recognised.

use super::rules::{Confidence, Links, Rules};
use crate::model::entry::Entry;
use crate::model::format_id::Format;
use crate::model::intern::Interner;
use crate::normalize::{Mode, Normalize, PerLine};

pub(crate) struct Generic;

impl Rules for Generic {
    fn detect(&self, _entries: &[Entry], _interner: &Interner) -> Option<(Confidence, Format)> {
        None
    }

    fn forced(&self, _entries: &[Entry], _interner: &Interner) -> Format {
        Format::Generic
    }

    fn link(&self, _cx: &super::FileCx, _links: &mut Links) {}

    fn normalizer(&self, _mode: Mode) -> Box<dyn Normalize> {
        Box::new(PerLine(|_, _| None))
    }
}
