//! Event streams (`events.jsonl`): `{"event_type","timestamp","data"}` lines
//! of five types — `user_input`, `state_transition`, `llm_call`,
//! `tool_call`, `final_output` — written by agent frameworks that trace a
//! run as a state machine, and the `checkpoint`s retrace's recorder adds
//! (the record and the part naming rule are `model/event.rs`). The stream is linear. A long run is split over
//! `events.jsonl`, `events_1.jsonl`, `events_2.jsonl`, …: read together they
//! are one stream in numeric order of the suffix, whatever order the files
//! came in, and a missing number is reported. A `compaction` event cuts
//! the context: its summary, then the events it kept, named by number
//! (`seq`, see [`event_seq`]), then what follows it.

use super::rules::{detection_sample, Confidence, FileCx, Links, Rules, NONE};
use super::view::View;
use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{Entry, EntryId, Flags};
use crate::model::event::{split_part, EventType};
use crate::model::format_id::Format;
use crate::model::intern::Interner;
use crate::model::sort::sort_by_key;
use crate::normalize;
use crate::normalize::{Mode, Normalize};
use crate::read::fields::{sym, Action, FieldSpec, Slot};

const FIELDS: &[FieldSpec] = &[
    FieldSpec::top(b"event_type", sym(Slot::Kind)),
    FieldSpec::top(b"data", Action::FlagIfObject(Flags::HAS_DATA)),
    FieldSpec::nested(b"data", b"error", Action::FlagIfSet(Flags::ERROR)),
    // A compaction's first kept event, by number.
    FieldSpec::nested(b"data", b"first_kept_event", Action::Number),
];

/// Whether `kind` names an [`EventType`] (the record's own list, so a
/// type added there, such as `checkpoint`, is known here too).
fn is_known(kind: &[u8]) -> bool {
    std::str::from_utf8(kind).is_ok_and(|k| EventType::parse(k).is_some())
}

/// The number of event `e` in the stream `path` (the branch from the
/// stream's first line), as the store numbers events (`seq`): from 0,
/// counting the lines whose `event_type` is one of the record's types.
/// `None` when `e` is not one of them or not on `path`.
pub(crate) fn event_seq(s: &View, path: &[EntryId], e: EntryId) -> Option<u64> {
    let mut seq = 0;
    for &p in path {
        let event = is_known(s.interner().get(s.entry(p).kind));
        if p == e {
            return event.then_some(seq);
        }
        seq += u64::from(event);
    }
    None
}

/// Where on `path` the event numbered `seq` is (see [`event_seq`]).
fn position_of_seq(s: &View, path: &[EntryId], seq: u64) -> Option<usize> {
    let mut n = 0;
    for (i, &p) in path.iter().enumerate() {
        if is_known(s.interner().get(s.entry(p).kind)) {
            if n == seq {
                return Some(i);
            }
            n += 1;
        }
    }
    None
}

pub(crate) struct Events;

impl Rules for Events {
    fn fields(&self) -> &'static [FieldSpec] {
        FIELDS
    }

    fn detect(&self, entries: &[Entry], interner: &Interner) -> Option<(Confidence, Format)> {
        detection_sample(entries)
            .any(|e| e.flags.has(Flags::HAS_DATA) && is_known(interner.get(e.kind)))
            .then_some((Confidence::Sure, Format::Events))
    }

    fn forced(&self, _entries: &[Entry], _interner: &Interner) -> Format {
        Format::Events
    }

    fn is_known_type(&self, e: &Entry, interner: &Interner) -> bool {
        is_known(interner.get(e.kind))
    }

    /// The parts of a split set follow each other in suffix order.
    fn link_files(&self, files: &[&FileCx], links: &mut Links) {
        let mut parts: Vec<(&FileCx, Option<(&str, u32)>)> = files
            .iter()
            .map(|cx| (*cx, split_part(&cx.info.name)))
            .collect();
        sort_by_key(&mut parts, |(cx, part)| {
            (
                part.map(|(base, _)| base),
                part.map(|(_, n)| n),
                cx.info.first_entry,
            )
        });
        let mut previous: Option<(&FileCx, &str, u32, u32)> = None;
        for (cx, part) in parts {
            let Some((base, n)) = part else { continue };
            let last = cx.range().rev().find(|&e| links.node[e]);
            // The parts before `n` from `from` on, by name.
            let missing = |from: u32| -> String {
                let names: Vec<String> = (from..n)
                    .map(|k| match k {
                        0 => base.to_owned(),
                        k => format!("{base}_{k}"),
                    })
                    .collect();
                names.join(", ")
            };
            let gap = |message: String| Diagnostic {
                severity: Severity::Warning,
                kind: DiagnosticKind::SplitGap,
                file: cx.file,
                line: 1,
                offset: 0,
                message,
            };
            match previous {
                Some((before, b, m, tail)) if b == base => {
                    if n > m + 1 {
                        links.diagnostics.push(gap(format!(
                            "split set goes from {} to {} without {}; the stream continues here",
                            file_name(&before.info.name),
                            file_name(&cx.info.name),
                            missing(m + 1)
                        )));
                    }
                    if let Some(first) = cx.range().find(|&e| links.node[e]) {
                        if links.parent[first] == NONE && tail != NONE {
                            links.parent[first] = tail;
                        }
                    }
                    let tail = last.map_or(tail, |l| l as u32);
                    previous = Some((cx, base, n, tail));
                }
                _ => {
                    // A set given from a later part on (the first file of
                    // the set alone is no set).
                    let more = files
                        .iter()
                        .filter(|c| split_part(&c.info.name).is_some_and(|(b, _)| b == base))
                        .count();
                    if n > 0 && more > 1 {
                        links.diagnostics.push(gap(format!(
                            "split set starts at {} without {}; the stream starts here",
                            file_name(&cx.info.name),
                            missing(0)
                        )));
                    }
                    previous = Some((cx, base, n, last.map_or(NONE, |l| l as u32)));
                }
            }
        }
    }

    fn follows_into_later_files(&self) -> bool {
        true
    }

    fn normalizer(&self, _mode: Mode) -> Box<dyn Normalize> {
        Box::new(normalize::events::Stream)
    }

    /// From the last `compaction` on the branch: its summary, the events
    /// from the one it names by number (`first_kept_event`) up to it
    /// (earlier compactions among them left out: this summary replaces
    /// theirs), then what follows. A number that names no event before it
    /// keeps none.
    fn context_entries(&self, s: &View, branch: &[EntryId]) -> Vec<EntryId> {
        let Some(c) = branch.iter().rposition(|&e| self.is_compaction(s, e)) else {
            return branch.to_vec();
        };
        let first = s.entry(branch[c]).number;
        let kept = match first {
            u32::MAX => None,
            seq => position_of_seq(s, &branch[..c], u64::from(seq)),
        };
        let mut out = vec![branch[c]];
        if let Some(k) = kept {
            out.extend(
                branch[k..c]
                    .iter()
                    .copied()
                    .filter(|&e| !self.is_compaction(s, e)),
            );
        }
        out.extend_from_slice(&branch[c + 1..]);
        out
    }

    fn is_prompt(&self, s: &View, e: EntryId) -> bool {
        s.kind(e) == "user_input"
    }

    fn is_compaction(&self, s: &View, e: EntryId) -> bool {
        s.kind(e) == "compaction"
    }

    fn is_checkpoint(&self, s: &View, e: EntryId) -> bool {
        s.kind(e) == "checkpoint"
    }

    /// What was said, and the checkpoints and state transitions: their
    /// marker is what a view shows of them (as Codex's markers are).
    fn is_message(&self, s: &View, e: EntryId) -> bool {
        matches!(
            s.kind(e),
            "user_input"
                | "llm_call"
                | "tool_call"
                | "final_output"
                | "checkpoint"
                | "compaction"
                | "state_transition"
        )
    }

    /// Events say who acted by their type: a view heads each row with it.
    fn role(&self, s: &View, e: EntryId) -> Option<&'static str> {
        match s.kind(e) {
            "user_input" => Some("user"),
            "llm_call" | "tool_call" | "final_output" => Some("assistant"),
            _ => None,
        }
    }
}

/// The last path component.
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}
