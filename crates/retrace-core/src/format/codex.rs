//! OpenAI Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
//!
//! Since Sept 2025 each line is `{"timestamp","type","payload"}` with type
//! `session_meta`, `turn_context`, `response_item`, `event_msg` or
//! `compacted`; before that a bare meta line `{"id","timestamp",…}` came
//! first, then bare Responses-API items and `{"record_type":"state"}` lines.
//! A rollout is linear: there are no parent ids. Branches come from events:
//! `thread_rolled_back {num_turns}` drops the last user turns from the
//! context, so those turns become an abandoned branch and what follows the
//! rollback hangs where they began. A fork is a new file (`forked_from_id`)
//! that starts with its own `session_meta` and then copies the parent's
//! lines (the same payloads under new timestamps); read with the parent,
//! the copy is left out of the tree and the fork hangs under the parent's
//! line it was copied up to. A sub-agent's rollout names its
//! `parent_thread_id`.

use super::rules::Subagent;
use super::rules::{detection_sample, Confidence, FileCx, Fold, Links, Rules, NONE};
use super::view::View;
use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{Entry, EntryId, FileId};
use crate::model::format_id::Format;
use crate::model::intern::{Interner, Sym};
use crate::normalize;
use crate::normalize::{Mode, Normalize};
use crate::read::fields::{sym, weak, Action, FieldSpec, Slot};

const FIELDS: &[FieldSpec] = &[
    // What a fork's copy of a line keeps (its timestamp is new).
    FieldSpec::top(b"payload", Action::Digest),
    FieldSpec::nested(b"payload", b"type", sym(Slot::Subtype)),
    FieldSpec::nested(b"payload", b"role", sym(Slot::Role)),
    FieldSpec::nested(b"payload", b"content", Action::UserText),
    // The thread id of a `session_meta`.
    FieldSpec::nested(b"payload", b"id", weak(Slot::Id)),
    FieldSpec::nested(b"payload", b"forked_from_id", sym(Slot::Reference)),
    FieldSpec::nested(b"payload", b"parent_thread_id", sym(Slot::Agent)),
    // Some sub-agents name their parent only in
    // `source.subagent.thread_spawn`.
    FieldSpec::nested(
        b"payload",
        b"source",
        Action::StringInObject {
            key: br#""parent_thread_id""#,
            slot: Slot::Agent,
        },
    ),
    // A `spawn_agent` output names the sub-agent it started. (Its call id
    // is not indexed: interning every call's id cost a tenth of opening a
    // rollout, and the output itself is where the spawn is reported.)
    FieldSpec::nested(
        b"payload",
        b"output",
        Action::StringInJsonString {
            key: br#"\"agent_id\""#,
            slot: Slot::Agent,
        },
    ),
    FieldSpec::nested(b"payload", b"num_turns", Action::Number),
    // The pre-Sept-2025 layout: bare items and state lines.
    FieldSpec::top(b"role", weak(Slot::Role)),
    FieldSpec::top(b"content", Action::UserText),
    FieldSpec::top(b"record_type", weak(Slot::Subtype)),
];

/// Line types of the envelope layout.
const ENVELOPE_TYPES: &[&[u8]] = &[
    b"session_meta",
    b"turn_context",
    b"response_item",
    b"event_msg",
    b"compacted",
];

/// Responses-API item types, bare in the old layout.
const ITEM_TYPES: &[&[u8]] = &[
    b"message",
    b"reasoning",
    b"function_call",
    b"function_call_output",
    b"custom_tool_call",
    b"custom_tool_call_output",
    b"local_shell_call",
    b"web_search_call",
    b"tool_search_call",
    b"tool_search_output",
    b"image_generation_call",
    b"ghost_snapshot",
    b"compaction",
];

pub(crate) struct Codex;

/// The kinds of line the rules look at, from the index alone.
fn line_kind<'a>(e: &Entry, interner: &'a Interner) -> (&'a [u8], &'a [u8]) {
    (interner.get(e.kind), interner.get(e.subtype))
}

fn is_session_meta(e: &Entry, interner: &Interner) -> bool {
    let (kind, _) = line_kind(e, interner);
    kind == b"session_meta" || is_bare_meta(e)
}

/// The old layout's first line: an id and no type.
fn is_bare_meta(e: &Entry) -> bool {
    e.kind.is_none() && !e.id.is_none() && e.subtype.is_none()
}

/// A line a user turn may begin with: the user's (or harness's) input
/// items and the turn's settings, written just before the turn's event.
fn is_turn_preamble(e: &Entry, interner: &Interner) -> bool {
    let (kind, subtype) = line_kind(e, interner);
    let role = interner.get(e.role);
    kind == b"turn_context"
        || (kind == b"response_item" && subtype == b"message" && role != b"assistant")
        || (kind == b"message" && role != b"assistant")
}

fn is_event(e: &Entry, interner: &Interner, names: &[&[u8]]) -> bool {
    let (kind, subtype) = line_kind(e, interner);
    kind == b"event_msg" && names.contains(&subtype)
}

const TURN_EVENTS: &[&[u8]] = &[b"task_started", b"turn_started"];

/// Events about what other lines show: token counts, the UI's copies of
/// items, a turn's end, and the reports of a tool's run, which name their
/// call (`call_id`) and are read into its block (`normalize/codex.rs`). A
/// view folds them into the rows beside them.
const ASIDE_EVENTS: &[&str] = &[
    "token_count",
    "agent_reasoning",
    "agent_reasoning_raw_content",
    "agent_reasoning_section_break",
    "agent_message",
    "user_message",
    "task_complete",
    "turn_complete",
    "exec_command_begin",
    "exec_command_end",
    "patch_apply_begin",
    "patch_apply_end",
    "mcp_tool_call_begin",
    "mcp_tool_call_end",
    "web_search_begin",
    "web_search_end",
];

/// The item a line holds: the envelope's payload type, or (old layout) the
/// bare item's type.
fn item<'a>(s: &View<'a>, e: EntryId) -> &'a str {
    match s.kind(e) {
        "response_item" => s.subtype(e),
        kind => kind,
    }
}

/// An item of the model's output: reasoning, text, or a call whose result
/// comes on a line of its own. (Web searches and image generations hold
/// their outcome: a row of their own, as a result closes a fork point.)
fn is_step_item(s: &View, e: EntryId) -> bool {
    match item(s, e) {
        "reasoning" | "function_call" | "custom_tool_call" | "local_shell_call"
        | "tool_search_call" => true,
        "message" => s.role(e) == "assistant",
        _ => false,
    }
}

/// Lines walked back from a row for its prelude, at most.
const PRELUDE_REACH: usize = 256;

impl Rules for Codex {
    fn fields(&self) -> &'static [FieldSpec] {
        FIELDS
    }

    fn detect(&self, entries: &[Entry], interner: &Interner) -> Option<(Confidence, Format)> {
        let mut sample = detection_sample(entries);
        let first = sample.next()?;
        let (kind, _) = line_kind(first, interner);
        if kind == b"session_meta" {
            return Some((Confidence::Sure, Format::Codex));
        }
        let rest: Vec<&Entry> = sample.collect();
        let envelope = |e: &&Entry| ENVELOPE_TYPES.contains(&interner.get(e.kind));
        if envelope(&first) || rest.iter().any(envelope) {
            return Some((Confidence::Likely, Format::Codex));
        }
        // The old layout: a bare meta line, then bare items or state lines.
        let bare_item = |e: &&Entry| {
            ITEM_TYPES.contains(&interner.get(e.kind)) || interner.get(e.subtype) == b"state"
        };
        (is_bare_meta(first) && first.timestamp().is_some() && rest.iter().any(bare_item))
            .then_some((Confidence::Likely, Format::Codex))
    }

    fn forced(&self, _entries: &[Entry], _interner: &Interner) -> Format {
        Format::Codex
    }

    fn is_known_type(&self, e: &Entry, interner: &Interner) -> bool {
        let kind = interner.get(e.kind);
        ENVELOPE_TYPES.contains(&kind)
            || ITEM_TYPES.contains(&kind)
            || is_bare_meta(e)
            || (e.kind.is_none() && interner.get(e.subtype) == b"state")
    }

    /// One chain in file order, except that a rollback hangs what follows it
    /// where the rolled-back turns began.
    fn link(&self, cx: &FileCx, links: &mut Links) {
        let interner = cx.interner;
        // A rollback drops the last user turns. Each begins at a prompt's
        // `user_message` event, in every version (a 0.5x file resumed by a
        // newer CLI has turns without task events), with the lines written
        // just before it: its task's start, its settings, its input items.
        // A task without a prompt (`/compact`) is part of the turn before
        // it. A file that kept no `user_message` event counts its tasks.
        let by_prompt = cx
            .own()
            .iter()
            .any(|e| is_event(e, interner, &[b"user_message"]));
        let turn_event: &[&[u8]] = if by_prompt {
            &[b"user_message"]
        } else {
            TURN_EVENTS
        };
        let is_preamble = |e: &Entry| {
            is_turn_preamble(e, interner) || (by_prompt && is_event(e, interner, TURN_EVENTS))
        };
        // Compared as symbols: this runs on every line. A string that was
        // never interned is on no line.
        let event_msg = interner.lookup(b"event_msg");
        let rolled_back = interner.lookup(b"thread_rolled_back");
        let turn_events: Vec<Sym> = turn_event
            .iter()
            .map(|name| interner.lookup(name))
            .filter(|s| !s.is_none())
            .collect();
        let is_event_in = |e: &Entry, names: &[Sym]| {
            !event_msg.is_none() && e.kind == event_msg && names.contains(&e.subtype)
        };
        let rolled_back: &[Sym] = if rolled_back.is_none() {
            &[]
        } else {
            std::slice::from_ref(&rolled_back)
        };
        // Where each turn on the current branch begins.
        let mut turns: Vec<u32> = Vec::new();
        let mut previous = NONE;
        for e in cx.range() {
            let entry = &cx.entries[e];
            if entry.is_broken() {
                continue;
            }
            links.node[e] = true;
            if is_event_in(entry, rolled_back) {
                let wanted = entry.number;
                let n = if wanted == u32::MAX {
                    links.diagnostics.push(Diagnostic::at(
                        entry,
                        Severity::Warning,
                        DiagnosticKind::BadField,
                        "rollback without a number of turns; nothing rolled back",
                    ));
                    0
                } else {
                    wanted as usize
                };
                if n > turns.len() {
                    links.diagnostics.push(Diagnostic::at(
                        entry,
                        Severity::Warning,
                        DiagnosticKind::BadField,
                        format!(
                            "rolls back {n} turns but the branch has {}; all of them rolled back",
                            turns.len()
                        ),
                    ));
                }
                if n > 0 && !turns.is_empty() {
                    let keep = turns.len().saturating_sub(n);
                    let first_dropped = turns[keep];
                    turns.truncate(keep);
                    // The rollback starts a new branch beside the dropped
                    // turns.
                    links.parent[e] = links.parent[first_dropped as usize];
                    previous = e as u32;
                    continue;
                }
            }
            links.parent[e] = previous;
            if is_event_in(entry, &turn_events) {
                // The turn begins with the input lines written just before
                // its event.
                let mut start = e as u32;
                let floor = turns.last().copied().unwrap_or(NONE);
                let mut p = links.parent[e];
                while p != NONE && p != floor && is_preamble(&cx.entries[p as usize]) {
                    start = p;
                    p = links.parent[p as usize];
                }
                turns.push(start);
            }
            previous = e as u32;
        }
    }

    /// Forks hang under the parent's line they copied up to; the copy is
    /// left out of the tree (it is the parent's history, already there).
    fn link_files(&self, files: &[&FileCx], links: &mut Links) {
        let forks: Vec<Fork> = files
            .iter()
            .filter_map(|fork| find_copy(fork, files))
            .collect();
        if forks.is_empty() {
            return;
        }
        // Every file's context holds all the session's entries.
        let entries = files[0].entries;
        // The parent line each copied line stands for. A fork of a fork
        // copies lines its parent copied in turn: they stand for the
        // grandparent's line, whatever order the files came in.
        let mut copy_of = vec![NONE; links.node.len()];
        for fork in &forks {
            for (f, &p) in fork.copy.clone().zip(&fork.originals) {
                copy_of[f] = p;
            }
        }
        let original = |mut e: usize| {
            // Bounded: a copy of a copy never goes round, unless files
            // name each other as parents.
            for _ in 0..=forks.len() {
                match copy_of[e] {
                    NONE => break,
                    p => e = p as usize,
                }
            }
            e
        };
        for fork in &forks {
            let copy = fork.copy.clone();
            // Without a copy, the fork continues from the parent's last line.
            let fork_point = if copy.is_empty() {
                fork.parent_last
            } else {
                Some(copy.end - 1)
            };
            let Some(fork_point) = fork_point.map(original) else {
                continue;
            };
            if !copy.is_empty() {
                let before = links.parent[copy.start];
                for e in copy.clone() {
                    links.node[e] = false;
                }
                for e in copy.end..fork.end {
                    let p = links.parent[e] as usize;
                    if !links.node[e] || !copy.contains(&p) {
                        continue;
                    }
                    // What followed the copy continues from the fork's own
                    // start; a later rollback into the copy goes to the
                    // parent's line it copies.
                    links.parent[e] = if p + 1 == copy.end && e == copy.end {
                        before
                    } else {
                        original(p) as u32
                    };
                }
                let first = &entries[copy.start];
                links.diagnostics.push(Diagnostic::at(
                    first,
                    Severity::Info,
                    DiagnosticKind::CopiedHistory,
                    format!(
                        "lines {}–{} copy the parent rollout (from its line {}); they are shown there",
                        first.line,
                        entries[copy.end - 1].line,
                        entries[fork.originals[0] as usize].line
                    ),
                ));
            }
            // The fork's first line hangs under the fork point.
            if let Some(root) = (fork.start..fork.end).find(|&e| links.node[e]) {
                if links.parent[root] == NONE {
                    links.parent[root] = fork_point as u32;
                }
            }
        }
    }

    fn subagents(&self, s: &View) -> Vec<Subagent> {
        let interner = s.interner();
        let mut out = Vec::new();
        for (f, info) in s.files().iter().enumerate() {
            let file = FileId(f as u16);
            if s.file_format(file) != Format::Codex {
                continue;
            }
            let own = info.first_entry as usize..info.end_entry as usize;
            let Some(meta) = own
                .clone()
                .find(|&e| is_session_meta(&s.entries()[e], interner))
            else {
                continue;
            };
            let meta = &s.entries()[meta];
            if meta.agent.is_none() {
                continue;
            }
            // The parent's rollout, if it was read too.
            let parent_file = s.files().iter().enumerate().find(|(g, p)| {
                *g != f
                    && s.entries()[p.first_entry as usize..p.end_entry as usize]
                        .iter()
                        .find(|e| is_session_meta(e, interner))
                        .is_some_and(|m| m.id == meta.agent)
            });
            let is_item = |e: EntryId, item: &[u8]| {
                let (kind, subtype) = line_kind(s.entry(e), interner);
                kind == b"response_item" && subtype == item
            };
            let spawned_by = parent_file.and_then(|(_, p)| {
                let lines = (p.first_entry..p.end_entry).map(EntryId);
                // The `spawn_agent` output that names the sub-agent (which
                // of parallel spawns started it, whatever order they
                // finished in).
                let output = lines
                    .clone()
                    .find(|&e| s.entry(e).agent == meta.id && is_item(e, b"function_call_output"));
                if output.is_some() {
                    return output;
                }
                // Outputs that name no agent: the parent's last call before
                // the sub-agent's earliest line (its session_meta can be
                // written minutes late).
                let start = own
                    .clone()
                    .filter_map(|e| s.entries()[e].timestamp())
                    .min()?;
                lines.rev().find(|&e| {
                    is_item(e, b"function_call")
                        && s.entry(e).timestamp().is_some_and(|t| t <= start)
                })
            });
            out.push(Subagent {
                file,
                agent_id: interner.str(meta.id).into_owned(),
                spawned_by,
            });
        }
        out
    }

    fn normalizer(&self, mode: Mode) -> Box<dyn Normalize> {
        Box::new(normalize::codex::Rollout::new(mode))
    }

    /// Context starts at the last `compacted` line: its replacement history
    /// (or summary), then what followed.
    fn context_entries(&self, s: &View, branch: &[EntryId]) -> Vec<EntryId> {
        let start = branch
            .iter()
            .rposition(|&e| self.is_compaction(s, e))
            .unwrap_or(0);
        branch[start..].to_vec()
    }

    fn is_prompt(&self, s: &View, e: EntryId) -> bool {
        let entry = s.entry(e);
        let (kind, subtype) = line_kind(entry, s.interner());
        s.role(e) == "user"
            && ((kind == b"response_item" && subtype == b"message") || kind == b"message")
    }

    fn is_compaction(&self, s: &View, e: EntryId) -> bool {
        s.kind(e) == "compacted"
    }

    /// A rollback: the turns it drops are beside the branch it is on.
    fn is_branch_edit(&self, s: &View, e: EntryId) -> bool {
        s.kind(e) == "event_msg" && s.subtype(e) == "thread_rolled_back"
    }

    /// An undo snapshot, enveloped or bare (before Sept 2025).
    fn is_checkpoint(&self, s: &View, e: EntryId) -> bool {
        match s.kind(e) {
            "response_item" => s.subtype(e) == "ghost_snapshot",
            kind => kind == "ghost_snapshot",
        }
    }

    /// Response items (what the model saw), compactions, and the events
    /// that become markers; not the UI's copies or the bookkeeping.
    fn is_message(&self, s: &View, e: EntryId) -> bool {
        match s.kind(e) {
            "response_item" | "compacted" => true,
            "event_msg" => matches!(
                s.subtype(e),
                "turn_aborted" | "thread_rolled_back" | "error"
            ),
            // The bare items of the pre-Sept-2025 layout.
            kind => ITEM_TYPES.contains(&kind.as_bytes()),
        }
    }

    /// Items without a `role`: what the model did (reasoning, calls) is
    /// the assistant's, outputs are the tool's; a view heads every message
    /// row with its role.
    fn role(&self, s: &View, e: EntryId) -> Option<&'static str> {
        match item(s, e) {
            "reasoning"
            | "function_call"
            | "custom_tool_call"
            | "local_shell_call"
            | "web_search_call"
            | "image_generation_call"
            | "tool_search_call" => Some("assistant"),
            "function_call_output" | "custom_tool_call_output" | "tool_search_output" => {
                Some("tool")
            }
            _ => None,
        }
    }

    /// One step of the model is one row: its reasoning, text and calls
    /// (items of their own in a rollout) with the token counts, UI copies
    /// and run reports written around them; a turn's start and settings go
    /// with the row after them. The old layout's state lines are
    /// bookkeeping too.
    fn fold(&self, s: &View, e: EntryId) -> Fold {
        if is_step_item(s, e) {
            return Fold::Step;
        }
        match (s.kind(e), s.subtype(e)) {
            // A turn's start and settings go with the turn.
            ("turn_context", _) | ("event_msg", "task_started" | "turn_started") => Fold::Ahead,
            ("event_msg", event) if ASIDE_EVENTS.contains(&event) => Fold::Aside,
            ("", "state") => Fold::Aside,
            _ => Fold::Own,
        }
    }

    /// A step is read after the lines that set its state: walking back,
    /// the token counts since the step before it (a count can repeat the
    /// last one: 0.5x writes it again after each output), that step's
    /// items, and the turn's settings it was read with (so settings are
    /// shown again only when they change); never past a compaction.
    fn prelude(&self, s: &View, row: &[EntryId]) -> Vec<EntryId> {
        if !row.iter().any(|&e| is_step_item(s, e)) {
            return Vec::new();
        }
        let mut prelude = Vec::new();
        let mut seen_step = false;
        let mut at = row.first().and_then(|&e| s.tree().parent(e));
        for _ in 0..PRELUDE_REACH {
            // The context starts again at a compaction, as a branch read
            // whole does (`context_entries`).
            let Some(e) = at.filter(|&e| s.kind(e) != "compacted") else {
                break;
            };
            let settings = s.kind(e) == "turn_context";
            let step = is_step_item(s, e);
            if settings || step || (s.kind(e) == "event_msg" && s.subtype(e) == "token_count") {
                prelude.push(e);
            }
            seen_step |= step;
            if settings && seen_step {
                break;
            }
            at = s.tree().parent(e);
        }
        prelude.reverse();
        prelude
    }

    /// A step's token count can come after its calls' outputs (a fast
    /// tool's output written before the response was done): the counts
    /// after the row, past its outputs and reports, up to the next turn's
    /// settings, step or message.
    fn postlude(&self, s: &View, row: &[EntryId]) -> Vec<EntryId> {
        let Some(&last) = row
            .last()
            .filter(|_| row.iter().any(|&e| is_step_item(s, e)))
        else {
            return Vec::new();
        };
        let mut counts = Vec::new();
        let mut at = last;
        for _ in 0..PRELUDE_REACH {
            let next = EntryId(at.0 + 1);
            if next.index() >= s.entries().len() || s.tree().parent(next) != Some(at) {
                break;
            }
            let output = matches!(
                item(s, next),
                "function_call_output" | "custom_tool_call_output" | "tool_search_output"
            );
            match self.fold(s, next) {
                Fold::Aside if s.subtype(next) == "token_count" => counts.push(next),
                Fold::Aside => {}
                Fold::Own if output => {}
                _ => break,
            }
            at = next;
        }
        counts
    }
}

/// A fork read with its parent: which of its lines copy the parent's.
struct Fork {
    /// The fork's entries.
    start: usize,
    end: usize,
    /// The fork's lines that copy the parent (empty when none do).
    copy: std::ops::Range<usize>,
    /// The parent line each line of `copy` copies.
    originals: Vec<u32>,
    /// The parent's last line.
    parent_last: Option<usize>,
}

/// A file's own `session_meta`: its first.
fn thread(cx: &FileCx) -> Option<usize> {
    cx.range()
        .find(|&e| is_session_meta(&cx.entries[e], cx.interner))
}

/// The copy a fork (a file whose `session_meta` has `forked_from_id`)
/// made of its parent, if the parent is among `files`. Codex writes the
/// parent's lines again from its `session_meta` on, with new timestamps:
/// the copy is the run of lines whose payloads are the parent's, line for
/// line (every line of the parent, the ones it copied from its own parent
/// too).
fn find_copy(fork: &FileCx, files: &[&FileCx]) -> Option<Fork> {
    let meta = thread(fork)?;
    let from = fork.entries[meta].reference;
    if from.is_none() {
        return None;
    }
    let parent = files
        .iter()
        .find(|p| p.file != fork.file && thread(p).is_some_and(|m| p.entries[m].id == from))?;
    let parent_meta = thread(parent)?;
    let parent_lines: Vec<usize> = (parent_meta..parent.range().end)
        .filter(|&e| !parent.entries[e].is_broken())
        .collect();
    // The copy starts at the parent's own session_meta line.
    let copy_start = fork
        .range()
        .skip_while(|&e| e <= meta)
        .find(|&e| fork.entries[e].id == from && is_session_meta(&fork.entries[e], fork.interner));
    // Codex writes the copy with new timestamps; the payloads are the
    // parent's.
    let same = |f: usize, p: usize| {
        let digest = fork.digests.get(f);
        !fork.entries[f].is_broken()
            && digest != 0
            && digest == fork.digests.get(p)
            && fork.entries[f].kind == parent.entries[p].kind
    };
    let mut originals = Vec::new();
    if let Some(start) = copy_start {
        for (f, &p) in (start..fork.range().end).zip(&parent_lines) {
            if !same(f, p) {
                break;
            }
            originals.push(p as u32);
        }
    }
    let copy_start = copy_start.unwrap_or(fork.range().end);
    Some(Fork {
        start: fork.range().start,
        end: fork.range().end,
        copy: copy_start..copy_start + originals.len(),
        originals,
        parent_last: parent_lines.last().copied(),
    })
}
