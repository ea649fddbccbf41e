//! pi coding agent sessions (`~/.pi/agent/sessions/…`).
//!
//! Line 1 is a `session` header. v1 entries have no ids and form one chain;
//! v2/v3 entries carry `id`/`parentId`. Every entry type is a tree node, the
//! default leaf is the last entry in file order (or what a persisted `leaf`
//! entry names), and every fan-out is a real branch (pi only forks when
//! someone picks an earlier entry).

use super::rules::{detection_sample, Confidence, FileCx, Links, Rules};
use super::view::View;
use crate::model::entry::{Entry, EntryId, FileId, Flags};
use crate::model::format_id::Format;
use crate::model::intern::{Interner, Sym};
use crate::normalize;
use crate::normalize::{Mode, Normalize, PerLine};
use crate::read::fields::{sym, weak, Action, FieldSpec, Slot};

/// Entry types pi writes (`session` is the header).
const KNOWN_TYPES: &[&[u8]] = &[
    b"session",
    b"message",
    b"model_change",
    b"thinking_level_change",
    b"compaction",
    b"branch_summary",
    b"custom",
    b"custom_message",
    b"label",
    b"session_info",
    b"leaf",
    b"active_tools_change",
];

const FIELDS: &[FieldSpec] = &[
    FieldSpec::top(b"parentId", Action::Parent),
    FieldSpec::top(b"firstKeptEntryId", sym(Slot::Reference)),
    FieldSpec::top(b"targetId", sym(Slot::Reference)),
    // A `label` entry's name, in a slot pi uses for nothing else; weak, so
    // it never displaces another format's `subtype` (`session/bookmarks.rs`
    // reads it).
    FieldSpec::top(b"label", weak(Slot::Subtype)),
    FieldSpec::top(b"version", Action::Number),
    FieldSpec::top(b"firstKeptEntryIndex", Action::Number),
    FieldSpec::top(b"message", Action::FlagIfObject(Flags::HAS_MESSAGE)),
    FieldSpec::nested(b"message", b"role", sym(Slot::Role)),
    FieldSpec::nested(b"message", b"isError", Action::FlagIfTrue(Flags::ERROR)),
    FieldSpec::nested(
        b"message",
        b"stopReason",
        Action::FlagIfString {
            value: b"error",
            flag: Flags::ERROR,
        },
    ),
];

pub(crate) fn is_known_type(kind: &[u8]) -> bool {
    KNOWN_TYPES.contains(&kind)
}

pub(crate) struct Pi;

fn header_version(e: &Entry) -> u32 {
    // No `version` means v1.
    if e.number == u32::MAX {
        1
    } else {
        e.number
    }
}

impl Rules for Pi {
    fn fields(&self) -> &'static [FieldSpec] {
        FIELDS
    }

    fn detect(&self, entries: &[Entry], interner: &Interner) -> Option<(Confidence, Format)> {
        let sample = || detection_sample(entries);
        if let Some(header) =
            sample().find(|e| interner.get(e.kind) == b"session" && !e.flags.has(Flags::UUID))
        {
            let version = header_version(header);
            return Some((Confidence::Sure, Format::Pi { version }));
        }
        // A pi file whose header was lost.
        sample()
            .any(|e| is_known_type(interner.get(e.kind)) && e.flags.has(Flags::HAS_PARENT_FIELD))
            .then_some((Confidence::Weak, Format::Pi { version: 3 }))
    }

    fn forced(&self, entries: &[Entry], interner: &Interner) -> Format {
        match self.detect(entries, interner) {
            Some((_, format)) => format,
            None => Format::Pi { version: 3 },
        }
    }

    fn is_known_type(&self, e: &Entry, interner: &Interner) -> bool {
        is_known_type(interner.get(e.kind))
    }

    fn link(&self, cx: &FileCx, links: &mut Links) {
        let is_node = |e: &Entry| cx.kind(e) != b"session";
        // v1 has no ids: each entry follows the one before it.
        if cx
            .own()
            .iter()
            .all(|e| e.id.is_none() || cx.kind(e) == b"session")
        {
            links.linear(cx, is_node);
        } else {
            links.by_id(cx, is_node, |e| e.parent);
        }
    }

    fn ids_are_links(&self) -> bool {
        true
    }

    fn leaf_target(&self, e: &Entry, interner: &Interner) -> Sym {
        // A persisted leaf marker points at the real leaf.
        if interner.get(e.kind) == b"leaf" {
            e.reference
        } else {
            Sym::NONE
        }
    }

    fn normalizer(&self, _mode: Mode) -> Box<dyn Normalize> {
        Box::new(PerLine(normalize::pi::entry_message))
    }

    // Natively only (see Claude Code's).
    #[cfg(not(target_arch = "wasm32"))]
    fn figures(&self) -> Option<normalize::figures::ReadFigures> {
        Some(normalize::figures::pi_entry)
    }

    /// Walk the path, and where a compaction is on it, start with its
    /// summary and the entries it kept.
    fn context_entries(&self, s: &View, path: &[EntryId]) -> Vec<EntryId> {
        let Some(c) = path.iter().rposition(|&e| s.kind(e) == "compaction") else {
            return path.to_vec();
        };
        let compaction = s.entry(path[c]);
        // v2+: `firstKeptEntryId`; v1: `firstKeptEntryIndex` counts the
        // file's entries including the header.
        let kept = if !compaction.reference.is_none() {
            path[..c]
                .iter()
                .position(|&e| s.entry(e).id == compaction.reference)
        } else if compaction.number != u32::MAX {
            let info = &s.files()[compaction.file.0 as usize];
            let target = EntryId(info.first_entry + compaction.number);
            path[..c].iter().position(|&e| e == target)
        } else {
            None
        };
        let mut out = vec![path[c]];
        if let Some(k) = kept {
            // An earlier compaction in the kept range says nothing: its
            // summary is replaced by this one (pi's `buildSessionContext`
            // appends only messages, custom messages and branch summaries).
            out.extend(
                path[k..c]
                    .iter()
                    .copied()
                    .filter(|&e| s.kind(e) != "compaction"),
            );
        }
        out.extend_from_slice(&path[c + 1..]);
        out
    }

    fn header(&self, s: &View, file: FileId) -> Option<EntryId> {
        let info = &s.files()[file.0 as usize];
        let first = EntryId(info.first_entry);
        (info.first_entry < info.end_entry && s.kind(first) == "session").then_some(first)
    }

    fn is_compaction(&self, s: &View, e: EntryId) -> bool {
        s.kind(e) == "compaction"
    }

    fn is_message(&self, s: &View, e: EntryId) -> bool {
        matches!(
            s.kind(e),
            "message" | "compaction" | "branch_summary" | "custom_message"
        )
    }
}
