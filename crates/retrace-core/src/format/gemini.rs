//! Gemini CLI sessions (`~/.gemini/tmp/<project hash>/chats/`).
//!
//! Two shapes, one conversation model:
//! - legacy `session-*.json`: one pretty-printed document
//!   `{sessionId, projectHash, startTime, lastUpdated, messages: […]}`,
//!   framed into one entry per message (see `document.rs`);
//! - current `session-*.jsonl`: a metadata record, then message records
//!   appended as they change. A record that repeats an `id` rewrites that
//!   message (last write wins, in place); `{"$rewindTo": id}` drops that
//!   message and everything after it; `{"$set": {…}}` updates metadata.
//!
//! Messages form one chain. A rewrite hangs the new version beside the old
//! one and moves what hung under the old one under it, wherever it was
//! written (a structural fan-out: the old version stays reachable as a dead
//! end, flagged `REWRITTEN`, and every path holds the latest versions); a
//! rewind makes the next message a sibling of the dropped one (a real
//! branch), under the metadata record (the empty conversation) for a
//! rewind to the first message. A session split over several files (same
//! `sessionId`) is one chain through the files in time order. Resuming a
//! legacy session, Gemini CLI writes `<name>.jsonl` beside `<name>.json`,
//! repeating its messages: read together, the legacy copies give way to
//! the `.jsonl`'s.

use std::collections::HashMap;

use serde_json::Value;

use super::rules::{detection_sample, Confidence, FileCx, Links, Rules, NONE};
use super::view::View;
use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{Entry, EntryId, FileId, Flags};
use crate::model::format_id::Format;
use crate::model::intern::Interner;
use crate::model::message::Message;
use crate::model::sort::sort_by_key;
use crate::normalize;
use crate::normalize::{Mode, Normalize, Origin};
use crate::read::fields::{sym, Action, FieldSpec, Slot};
use crate::read::file::FileInfo;

const FIELDS: &[FieldSpec] = &[
    FieldSpec::top(b"$rewindTo", sym(Slot::Reference)),
    FieldSpec::nested(b"$set", b"messages", Action::FlagIfPresent(Flags::SNAPSHOT)),
];

/// Message record types Gemini CLI writes.
const MESSAGE_TYPES: &[&[u8]] = &[b"user", b"gemini", b"info", b"error", b"warning"];

pub(crate) struct Gemini;

impl Rules for Gemini {
    fn fields(&self) -> &'static [FieldSpec] {
        FIELDS
    }

    fn detect(&self, entries: &[Entry], interner: &Interner) -> Option<(Confidence, Format)> {
        detection_sample(entries)
            .any(|e| interner.get(e.kind) == b"gemini" && !e.id.is_none())
            .then_some((Confidence::Likely, Format::GeminiCli))
    }

    /// A metadata record, `$set` or `$rewindTo` among the first records, or
    /// a document with a `sessionId` beside its `messages`.
    fn detect_file(
        &self,
        info: &FileInfo,
        entries: &[Entry],
        interner: &Interner,
    ) -> Option<(Confidence, Format)> {
        let document = info.document.as_ref().is_some_and(|d| {
            d.array_key.as_deref() == Some("messages") && d.field("sessionId").is_some()
        });
        if info.sniff.gemini || document {
            return Some((Confidence::Sure, Format::GeminiCli));
        }
        self.detect(entries, interner)
    }

    fn forced(&self, _entries: &[Entry], _interner: &Interner) -> Format {
        Format::GeminiCli
    }

    /// Records without a type are metadata, `$set` and `$rewindTo`.
    fn is_known_type(&self, e: &Entry, interner: &Interner) -> bool {
        e.kind.is_none() || MESSAGE_TYPES.contains(&interner.get(e.kind))
    }

    /// Everything is linked across the files given together.
    fn link(&self, _cx: &FileCx, _links: &mut Links) {}

    fn link_files(&self, files: &[&FileCx], links: &mut Links) {
        // Files of one session, in the order they were written.
        let mut sessions: Vec<(Option<&str>, Vec<&FileCx>)> = Vec::new();
        for &cx in files {
            let id = cx.info.sniff.session_id.as_deref();
            match sessions.iter_mut().find(|(s, _)| s.is_some() && *s == id) {
                Some((_, group)) => group.push(cx),
                None => sessions.push((id, vec![cx])),
            }
        }
        for (_, group) in &mut sessions {
            let start = |cx: &&FileCx| {
                cx.own()
                    .iter()
                    .find(|e| !e.id.is_none() && e.timestamp().is_some())
                    .map_or(i64::MAX, |e| e.timestamp)
            };
            // A legacy document before the `.jsonl` it was migrated to,
            // whose copies of its messages keep their timestamps.
            sort_by_key(group, |cx| {
                let jsonl = cx.info.document.is_none();
                (start(cx), jsonl, cx.info.first_entry)
            });
            chain(group, links);
        }
    }

    /// A split session ends in its last file.
    fn follows_into_later_files(&self) -> bool {
        true
    }

    /// A rewind is a choice; a rewrite is a recording artifact.
    fn is_real_fork(&self, children: &mut dyn Iterator<Item = &Entry>, _: &Interner) -> bool {
        let mut found = false;
        for c in children {
            found |= c.flags.has(Flags::AFTER_REWIND);
        }
        found
    }

    fn is_branch_start(&self, e: &Entry, interner: &Interner) -> bool {
        e.flags.has(Flags::AFTER_REWIND) || interner.get(e.kind) == b"user"
    }

    fn normalizer(&self, mode: Mode) -> Box<dyn Normalize> {
        Box::new(Records { mode })
    }

    /// The metadata record, which makes a branch of a JSONL log a session.
    fn header(&self, s: &View, file: FileId) -> Option<EntryId> {
        let info = &s.files()[file.0 as usize];
        let first = EntryId(info.first_entry);
        let e = s.entries().get(first.index())?;
        let metadata = info.end_entry > info.first_entry
            && info.document.is_none()
            && !e.is_broken()
            && e.id.is_none()
            && e.reference.is_none();
        metadata.then_some(first)
    }

    fn is_prompt(&self, s: &View, e: EntryId) -> bool {
        s.kind(e) == "user"
    }

    /// Notices (`info`, `error`, `warning`) are not said to the model,
    /// but they are what the user saw: messages a view shows as markers
    /// with their text.
    fn is_message(&self, s: &View, e: EntryId) -> bool {
        matches!(s.kind(e), "user" | "gemini" | "info" | "error" | "warning")
    }

    /// An `error` notice, besides what the index flags.
    fn is_error(&self, s: &View, e: EntryId) -> bool {
        s.entry(e).flags.has(Flags::ERROR) || s.kind(e) == "error"
    }

    fn role(&self, s: &View, e: EntryId) -> Option<&'static str> {
        match s.kind(e) {
            "user" => Some("user"),
            "gemini" => Some("assistant"),
            _ => None,
        }
    }
}

/// Links the files of one session as one chain.
fn chain(group: &[&FileCx], links: &mut Links) {
    // The messages standing now, in order, and where each id is among them.
    // Symbols are dense, so both maps by id are plain vectors.
    let Some(first) = group.first() else {
        return;
    };
    let ids = first.interner.len();
    let mut live: Vec<u32> = Vec::new();
    let mut at: Vec<u32> = vec![NONE; ids];
    // The latest version of each id, to mark the ones rewritten.
    let mut latest: Vec<u32> = vec![NONE; ids];
    let mut rewound = false;
    // The empty conversation, as a node: the metadata record that starts
    // the session, once a rewind has gone back to it.
    let start = metadata_record(first);
    let (mut to_start, mut emptied) = (false, false);
    // Each version of a message that a later one replaced, and by which.
    let mut replaced_by: HashMap<u32, u32> = HashMap::new();
    for cx in group {
        if let Some(k) = migration_of(cx, group, &live, &at) {
            // The legacy messages give way to their copies in the `.jsonl`,
            // the file Gemini CLI goes on with.
            let gone: Vec<u32> = live.drain(k..).collect();
            for &e in &gone {
                links.node[e as usize] = false;
                at[cx.entries[e as usize].id.index()] = NONE;
            }
            let (first, last) = (
                &cx.entries[gone[0] as usize],
                &cx.entries[gone[gone.len() - 1] as usize],
            );
            links.diagnostics.push(Diagnostic::at(
                first,
                Severity::Info,
                DiagnosticKind::CopiedHistory,
                format!(
                    "Gemini CLI migrated this session to {}, which repeats its {} messages \
                     (lines {}–{} here) and goes on; they are shown there",
                    cx.info.name,
                    gone.len(),
                    first.line,
                    last.line
                ),
            ));
        }
        for e in cx.range() {
            let entry = &cx.entries[e];
            if entry.is_broken() {
                continue;
            }
            if entry.id.is_none() {
                if entry.flags.has(Flags::SNAPSHOT) {
                    // Gemini CLI loads such a list instead of the records;
                    // it sits inside one line, so it stays as written.
                    links.diagnostics.push(Diagnostic::at(
                        entry,
                        Severity::Info,
                        DiagnosticKind::BadField,
                        "$set carries a whole message list (a snapshot Gemini CLI would \
                         load instead); the recorded messages are read, the snapshot is \
                         kept as written",
                    ));
                }
                if entry.reference.is_none() {
                    // Metadata and `$set` records: not messages.
                    continue;
                }
                // `$rewindTo`: that message and everything after it go.
                match at[entry.reference.index()] {
                    NONE => {
                        links.diagnostics.push(Diagnostic::at(
                            entry,
                            Severity::Warning,
                            DiagnosticKind::MissingParent,
                            format!(
                                "$rewindTo names \"{}\", which is not in the conversation; \
                                 like Gemini CLI, the whole conversation is dropped",
                                cx.interner.str(entry.reference)
                            ),
                        ));
                        for gone in live.drain(..) {
                            at[cx.entries[gone as usize].id.index()] = NONE;
                        }
                    }
                    k => {
                        for gone in live.drain(k as usize..) {
                            at[cx.entries[gone as usize].id.index()] = NONE;
                        }
                        to_start |= k == 0;
                    }
                }
                rewound = true;
                emptied |= live.is_empty();
                continue;
            }
            let id = entry.id;
            links.node[e] = true;
            let previous = std::mem::replace(&mut latest[id.index()], e as u32);
            if previous != NONE {
                links.flags[previous as usize] |= Flags::REWRITTEN;
            }
            match at[id.index()] {
                NONE => {
                    links.parent[e] = live.last().copied().unwrap_or(NONE);
                    at[id.index()] = live.len() as u32;
                    live.push(e as u32);
                    if rewound {
                        links.flags[e] |= Flags::AFTER_REWIND;
                        rewound = false;
                    }
                }
                k => {
                    // A rewrite: the new version takes the old one's place
                    // beside it, and (below) its children.
                    let k = k as usize;
                    links.parent[e] = if k == 0 { NONE } else { live[k - 1] };
                    to_start |= k == 0;
                    replaced_by.insert(live[k], e as u32);
                    live[k] = e as u32;
                }
            }
        }
    }
    // Last write wins, wherever the message is: what hangs under an
    // earlier version (the messages after it, turns rewound away) hangs
    // under the latest, so every path holds the versions Gemini CLI would
    // load and the earlier ones are dead ends beside them.
    if !replaced_by.is_empty() {
        for e in group.iter().flat_map(|cx| cx.range()) {
            let mut p = links.parent[e];
            while let Some(&newer) = replaced_by.get(&p) {
                p = newer;
            }
            links.parent[e] = p;
        }
    }
    // A rewind to (or a rewrite of) the first message, or a log that ends
    // with nothing standing: the metadata record is where the conversation
    // was empty, the root both ways go on from (a rewind naming no
    // message, which Gemini CLI never writes itself, is rather a sign of a
    // file missing: what follows it starts a root of its own).
    let start = start.filter(|_| to_start || (emptied && live.is_empty()));
    if let Some(start) = start {
        links.node[start] = true;
        for e in group.iter().flat_map(|cx| cx.range()) {
            if links.node[e] && links.parent[e] == NONE && e != start {
                links.parent[e] = start as u32;
            }
        }
    }
    // What Gemini CLI would load: the messages left standing, however the
    // files ended (a last `$rewindTo` leaves an earlier message the end).
    let now = live.last().copied().or(start.map(|s| s as u32));
    if let Some(now) = now {
        for cx in group {
            links.current[cx.file.0 as usize] = now;
        }
    }
}

/// The metadata record a JSONL log starts with.
fn metadata_record(cx: &FileCx) -> Option<usize> {
    let first = cx.range().next()?;
    let e = &cx.entries[first];
    let metadata = cx.info.document.is_none()
        && !e.is_broken()
        && e.id.is_none()
        && e.reference.is_none()
        && !e.flags.has(Flags::SNAPSHOT);
    metadata.then_some(first)
}

/// Whether `cx` is the `.jsonl` Gemini CLI wrote when it resumed a legacy
/// `.json` session: its first message records repeat, in order, the
/// messages standing from legacy documents (`live[k..]`) before it goes on.
/// Returns `k`.
fn migration_of(cx: &FileCx, group: &[&FileCx], live: &[u32], at: &[u32]) -> Option<usize> {
    if cx.info.document.is_some() {
        return None;
    }
    let mut records = cx
        .own()
        .iter()
        .filter(|e| !e.is_broken() && (!e.id.is_none() || !e.reference.is_none()));
    let first = records.next()?;
    let k = match first.id.is_none() {
        true => return None,
        false => *at.get(first.id.index())?,
    };
    if k == NONE {
        return None;
    }
    let k = k as usize;
    let from_document = |e: u32| {
        let file = cx.entries[e as usize].file;
        group
            .iter()
            .any(|g| g.file == file && g.info.document.is_some())
    };
    let copies = std::iter::once(first).chain(records);
    let repeated = live[k..]
        .iter()
        .zip(copies)
        .filter(|(&e, copy)| from_document(e) && cx.entries[e as usize].id == copy.id)
        .count();
    (repeated == live.len() - k).then_some(k)
}

/// Gemini CLI records to messages; a deep check counts each message's
/// latest version only.
struct Records {
    mode: Mode,
}

impl Normalize for Records {
    fn feed(&mut self, origin: &Origin, value: &Value, out: &mut Vec<Message>) {
        if self.mode == Mode::Check && origin.entry.flags.has(Flags::REWRITTEN) {
            return;
        }
        for mut m in normalize::gemini::record_messages(value, origin.options) {
            origin.stamp(&mut m);
            out.push(m);
        }
    }
}
