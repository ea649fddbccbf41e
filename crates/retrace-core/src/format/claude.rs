//! Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`).
//!
//! Conversation lines (`user`, `assistant`, `system`, `attachment`,
//! `progress`) carry `uuid`/`parentUuid`; metadata lines (`summary`,
//! `file-history-snapshot`, `queue-operation`, …) have no uuid and are kept
//! outside the tree. One API response is written as several lines sharing
//! `message.id`. Many fan-outs are recording artifacts; a real branch is a
//! node with two or more typed prompts as children, written at different
//! times.
//!
//! A compaction is a `compact_boundary` system line (`parentUuid: null`,
//! `logicalParentUuid` the last line before it) and a summary `user` line
//! (`isCompactSummary`). Context restarts at the last boundary. The lines a
//! compaction keeps stay where they were written, before it, named in its
//! `compactMetadata`: `preservedMessages {anchorUuid, uuids}` (Claude Code
//! 2.1.1xx on; Claude Code's loader relinks them in that order after the
//! anchor, the summary, and what hung under the anchor after the last) or,
//! from older writers, `preservedSegment {headUuid, anchorUuid, tailUuid}`
//! (the parent chain from tail up to head). `splice_kept` does the same.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use super::rules::Subagent;
use super::rules::{detection_sample, Confidence, FileCx, Links, Rules, SideLines};
use super::view::View;
use crate::model::diag::{Diagnostic, DiagnosticKind, Severity};
use crate::model::entry::{Entry, EntryId, FileId, Flags};
use crate::model::format_id::Format;
use crate::model::intern::{Interner, Sym};
use crate::model::message::{Message, Role};
use crate::normalize;
use crate::normalize::{Mode, Normalize, Origin};
use crate::read::fields::{sym, weak, Action, FieldSpec, Slot};

/// Line types that carry a uuid and sit in the tree.
const TREE_TYPES: &[&[u8]] = &[b"user", b"assistant", b"system", b"attachment", b"progress"];

/// Line types outside the tree.
const META_TYPES: &[&[u8]] = &[
    b"summary",
    b"file-history-snapshot",
    b"queue-operation",
    b"permission-mode",
    b"last-prompt",
    b"ai-title",
    b"pr-link",
    b"agent-setting",
    b"custom-title",
    b"tag",
    b"turn_end",
];

const FIELDS: &[FieldSpec] = &[
    FieldSpec::top(
        b"uuid",
        Action::Sym {
            slot: Slot::Id,
            weak: false,
            flag: Flags::UUID,
        },
    ),
    FieldSpec::top(b"parentUuid", Action::Parent),
    FieldSpec::top(b"subtype", sym(Slot::Subtype)),
    FieldSpec::top(b"logicalParentUuid", sym(Slot::Reference)),
    FieldSpec::top(b"leafUuid", sym(Slot::Reference)),
    FieldSpec::top(b"isSidechain", Action::FlagIfTrue(Flags::SIDECHAIN)),
    FieldSpec::top(b"isMeta", Action::FlagIfTrue(Flags::META)),
    FieldSpec::top(
        b"isCompactSummary",
        Action::FlagIfTrue(Flags::COMPACT_SUMMARY),
    ),
    FieldSpec::top(b"toolUseResult", Action::FlagIfPresent(Flags::TOOL_RESULT)),
    FieldSpec::top(b"agentId", sym(Slot::Agent)),
    FieldSpec::top(b"message", Action::FlagIfObject(Flags::HAS_MESSAGE)),
    FieldSpec::nested(b"message", b"role", sym(Slot::Role)),
    FieldSpec::nested(b"message", b"id", sym(Slot::Group)),
    FieldSpec::nested(b"message", b"content", Action::ToolResultContent),
    FieldSpec::nested(b"toolUseResult", b"agentId", weak(Slot::Agent)),
    FieldSpec::top(b"isApiErrorMessage", Action::FlagIfTrue(Flags::ERROR)),
    FieldSpec::nested(
        b"compactMetadata",
        b"preservedMessages",
        Action::FlagIfObject(Flags::KEEPS_LINES),
    ),
    FieldSpec::nested(
        b"compactMetadata",
        b"preservedSegment",
        Action::FlagIfObject(Flags::KEEPS_LINES),
    ),
];

fn is_tree_type(kind: &[u8]) -> bool {
    TREE_TYPES.contains(&kind)
}

fn is_known_type(kind: &[u8]) -> bool {
    TREE_TYPES.contains(&kind) || META_TYPES.contains(&kind)
}

/// Types no other format uses, enough to recognise a file with no uuids
/// (one holding only `summary` lines, say).
fn is_claude_only_type(kind: &[u8]) -> bool {
    META_TYPES.contains(&kind)
}

/// A prompt someone typed: a user line that is not a tool result, not
/// injected by the harness and not a compaction summary.
fn is_prompt(e: &Entry, interner: &Interner) -> bool {
    interner.get(e.kind) == b"user"
        && !e
            .flags
            .has(Flags::TOOL_RESULT | Flags::META | Flags::COMPACT_SUMMARY)
}

/// Whether a fan-out (children in file order) is a real branch: someone
/// typed a prompt beside an existing continuation at a different time (a
/// rewind, or a resume that forked from an earlier point). Parallel tool
/// calls, hook and progress lines fan out without prompts, and compaction
/// replays repeat a prompt with the same timestamp.
fn is_real_fork(children: &mut dyn Iterator<Item = &Entry>, interner: &Interner) -> bool {
    let Some(first) = children.next() else {
        return false;
    };
    let first_is_prompt = is_prompt(first, interner);
    let mut prompt_times = Vec::new();
    if first_is_prompt {
        prompt_times.push(first.timestamp);
    }
    for c in children {
        if is_prompt(c, interner) {
            if prompt_times.iter().any(|&t| t != c.timestamp)
                || (!first_is_prompt && c.timestamp != first.timestamp)
            {
                return true;
            }
            prompt_times.push(c.timestamp);
        }
    }
    false
}

/// The `compact_boundary` system line that restarts the chain after a
/// compaction (`parentUuid: null`, `logicalParentUuid` set).
fn is_compact_boundary(e: &Entry, interner: &Interner) -> bool {
    interner.get(e.subtype) == b"compact_boundary"
}

/// After a compaction that keeps lines, Claude Code writes its next line
/// under the last line it kept, which stands before the boundary in the
/// file, and its loader relinks the kept lines after the summary (the
/// anchor), so that line follows them. Here a line written after such a
/// boundary whose parent comes before it hangs under the summary (under
/// the boundary until the summary is written), where the context reads
/// the kept lines from (`splice_kept`). A line Claude Code hangs under an
/// earlier kept line (a rewind into them) is read after all of them.
fn follow_kept_lines(cx: &FileCx, links: &mut Links) {
    // Each id's first line in the file.
    let mut first: HashMap<Sym, usize> = HashMap::new();
    // The last boundary that keeps lines, its id, and the anchor.
    let mut keeping: Option<(usize, Sym, Sym)> = None;
    for e in cx.range() {
        let entry = &cx.entries[e];
        if !links.node[e] {
            continue;
        }
        if entry.flags.has(Flags::KEEPS_LINES)
            && is_compact_boundary(entry, cx.interner)
            && !entry.id.is_none()
        {
            keeping = Some((e, entry.id, entry.id));
        } else if let Some((boundary, id, anchor)) = keeping.as_mut() {
            let parent = links.parent_id[e];
            if entry.flags.has(Flags::COMPACT_SUMMARY) && parent == *id && *anchor == *id {
                *anchor = entry.id;
            } else if first.get(&parent).is_some_and(|&p| p < *boundary) {
                links.parent_id[e] = *anchor;
            }
        }
        if !entry.id.is_none() {
            first.entry(entry.id).or_insert(e);
        }
    }
}

/// Links each subagent file (its entries carry `agentId`) to the tool-result
/// line in another file whose `toolUseResult.agentId` names it.
fn link_subagents(session: &View) -> Vec<Subagent> {
    let entries = session.entries();
    let mut out = Vec::new();
    for (f, info) in session.files().iter().enumerate() {
        if session.file_format(FileId(f as u16)) != Format::ClaudeCode {
            continue;
        }
        let own = &entries[info.first_entry as usize..info.end_entry as usize];
        let Some(agent) = own
            .iter()
            .find(|e| e.flags.has(Flags::SIDECHAIN) && !e.agent.is_none())
            .map(|e| e.agent)
        else {
            continue;
        };
        // Only a file that is all sidechain is a subagent file (1.0.x kept
        // sidechains inline in the main file).
        if own
            .iter()
            .any(|e| !e.id.is_none() && !e.flags.has(Flags::SIDECHAIN))
        {
            continue;
        }
        let spawned_by = entries
            .iter()
            .position(|e| {
                e.file.0 as usize != f && e.agent == agent && e.flags.has(Flags::TOOL_RESULT)
            })
            .map(|i| EntryId(i as u32));
        out.push(Subagent {
            file: FileId(f as u16),
            agent_id: session.interner().str(agent).into_owned(),
            spawned_by,
        });
    }
    out
}

/// A `user` or `assistant` line whose `message.role` is neither (a damaged
/// byte, say): its message is read as the line's `type` says
/// ([`normalize::claude`]), and the damage is reported here.
fn report_unknown_roles(cx: &FileCx, links: &mut Links) {
    for e in cx.own() {
        let kind = cx.kind(e);
        let is_message_line = (kind == b"user" || kind == b"assistant")
            && e.flags.has(Flags::HAS_MESSAGE)
            && !e.is_broken();
        if !is_message_line || e.role.is_none() {
            continue;
        }
        let role = cx.interner.get(e.role);
        if !is_known_role(role) {
            links.diagnostics.push(Diagnostic::at(
                e,
                Severity::Warning,
                DiagnosticKind::BadField,
                format!(
                    "message role `{}` is neither `user` nor `assistant`; read as the line's type `{}`",
                    String::from_utf8_lossy(role),
                    String::from_utf8_lossy(kind),
                ),
            ));
        }
    }
}

/// `user` or `assistant`, also written with escapes (the index keeps a
/// string's bytes as written).
fn is_known_role(written: &[u8]) -> bool {
    let role: Option<std::borrow::Cow<[u8]>> = if written.contains(&b'\\') {
        let quoted = [&b"\""[..], written, b"\""].concat();
        serde_json::from_slice::<String>(&quoted)
            .ok()
            .map(|s| s.into_bytes().into())
    } else {
        Some(written.into())
    };
    matches!(role.as_deref(), Some(b"user" | b"assistant"))
}

pub(crate) struct Claude;

impl Rules for Claude {
    fn fields(&self) -> &'static [FieldSpec] {
        FIELDS
    }

    fn detect(&self, entries: &[Entry], interner: &Interner) -> Option<(Confidence, Format)> {
        detection_sample(entries)
            .any(|e| {
                let kind = interner.get(e.kind);
                // A `user`/`assistant` line holding an API `message` is
                // Claude Code even without uuids (pi wraps messages in
                // `type: message`).
                let message_line =
                    (kind == b"user" || kind == b"assistant") && e.flags.has(Flags::HAS_MESSAGE);
                e.flags.has(Flags::UUID) || message_line || is_claude_only_type(kind)
            })
            .then_some((Confidence::Likely, Format::ClaudeCode))
    }

    fn forced(&self, _entries: &[Entry], _interner: &Interner) -> Format {
        Format::ClaudeCode
    }

    fn is_known_type(&self, e: &Entry, interner: &Interner) -> bool {
        is_known_type(interner.get(e.kind))
    }

    fn link(&self, cx: &FileCx, links: &mut Links) {
        report_unknown_roles(cx, links);
        if cx.own().iter().all(|e| e.id.is_none()) {
            // A file with no uuids at all (minimal exports): one chain of
            // its conversation lines.
            links.linear(cx, |e| is_tree_type(cx.kind(e)));
            return;
        }
        links.by_id(
            cx,
            |e| !e.id.is_none(),
            |e| {
                if e.parent.is_none() && is_compact_boundary(e, cx.interner) {
                    // Hang the boundary under the last entry before the
                    // compaction so the whole history is one tree; the
                    // context of a branch still starts at the boundary.
                    e.reference
                } else {
                    e.parent
                }
            },
        );
        if cx.own().iter().any(|e| e.flags.has(Flags::KEEPS_LINES)) {
            follow_kept_lines(cx, links);
        }
    }

    fn ids_are_links(&self) -> bool {
        true
    }

    fn is_real_fork(&self, children: &mut dyn Iterator<Item = &Entry>, i: &Interner) -> bool {
        is_real_fork(children, i)
    }

    fn is_branch_start(&self, e: &Entry, interner: &Interner) -> bool {
        is_prompt(e, interner)
    }

    fn subagents(&self, s: &View) -> Vec<Subagent> {
        link_subagents(s)
    }

    fn normalizer(&self, mode: Mode) -> Box<dyn Normalize> {
        Box::new(Lines {
            merge: mode == Mode::Context,
            open: BTreeMap::new(),
            len: 0,
        })
    }

    // Natively only, as for pi: in wasm the reader is about 10 KB of the
    // viewer's gzipped bundle, for a check the viewer runs once.
    #[cfg(not(target_arch = "wasm32"))]
    fn figures(&self) -> Option<normalize::figures::ReadFigures> {
        Some(normalize::figures::claude_line)
    }

    /// The side lines of fan-outs along a branch's path (a tool result
    /// recorded beside the next tool call, hook and progress lines), but
    /// not another prompt at a real fork: that is another branch.
    fn side_lines(&self) -> Option<SideLines> {
        Some(|s, parent, child| {
            !(s.tree().is_real_branch_point(parent) && is_prompt(s.entry(child), s.interner()))
        })
    }

    /// Context restarts at the last compaction boundary.
    fn context_entries(&self, s: &View, branch: &[EntryId]) -> Vec<EntryId> {
        let start = branch
            .iter()
            .rposition(|&e| is_compact_boundary(s.entry(e), s.interner()))
            .unwrap_or(0);
        branch[start..].to_vec()
    }

    /// The lines the boundary opening `context` keeps, after its anchor.
    fn splice_kept(&self, s: &View, body: &Value, context: Vec<EntryId>) -> Vec<EntryId> {
        match preserved(s, body, context[0]) {
            Some((anchor, kept)) => splice(s, context, anchor, &kept),
            None => context,
        }
    }

    fn is_prompt(&self, s: &View, e: EntryId) -> bool {
        is_prompt(s.entry(e), s.interner())
    }

    fn is_compaction(&self, s: &View, e: EntryId) -> bool {
        is_compact_boundary(s.entry(e), s.interner())
    }

    fn is_message(&self, s: &View, e: EntryId) -> bool {
        matches!(s.kind(e), "user" | "assistant") && s.entry(e).flags.has(Flags::HAS_MESSAGE)
    }
}

/// What a `compact_boundary` line keeps, as Claude Code's loader reads it:
/// the anchor's id and the kept entries in order, from `preservedMessages`
/// or else by walking `preservedSegment`'s chain from its tail up to its
/// head. `None` when it keeps nothing, or names a line that is not in the
/// boundary's file (Claude Code then relinks nothing either).
fn preserved<'a>(s: &View, body: &'a Value, boundary: EntryId) -> Option<(&'a str, Vec<EntryId>)> {
    let meta = body.get("compactMetadata")?;
    let str_at = |v: &'a Value, key: &str| v.get(key).and_then(Value::as_str);
    if let Some(list) = meta.get("preservedMessages") {
        let anchor = str_at(list, "anchorUuid")?;
        let uuids = list.get("uuids")?.as_array()?;
        let ids: Vec<&str> = uuids.iter().map(Value::as_str).collect::<Option<_>>()?;
        let mut kept = lines_by_id(s, s.entry(boundary).file, &ids)?;
        // Named twice, read once (as Claude Code's `preservedMessages`).
        let mut seen = HashSet::new();
        kept.retain(|e| seen.insert(*e));
        return (!kept.is_empty()).then_some((anchor, kept));
    }
    let segment = meta.get("preservedSegment")?;
    let (head, anchor, tail) = (
        str_at(segment, "headUuid")?,
        str_at(segment, "anchorUuid")?,
        str_at(segment, "tailUuid")?,
    );
    let [head, tail] = lines_by_id(s, s.entry(boundary).file, &[head, tail])?[..] else {
        return None;
    };
    // Up the parents as written: a boundary's is null (the tree hangs it
    // under its logical parent), so a walk that reaches one is broken.
    let mut kept = vec![tail];
    let mut at = tail;
    while at != head {
        at = s.tree().parent(at)?;
        if is_compact_boundary(s.entry(at), s.interner()) {
            return None;
        }
        kept.push(at);
    }
    kept.reverse();
    Some((anchor, kept))
}

/// The line of `file` each of `ids` names, as Claude Code's loader finds
/// it: of several lines with one uuid, the last (its map of lines by uuid
/// keeps the last written). `None` when one names no line.
pub(crate) fn lines_by_id(s: &View, file: FileId, ids: &[&str]) -> Option<Vec<EntryId>> {
    let wanted: Vec<Sym> = ids
        .iter()
        .map(|id| s.interner().lookup(id.as_bytes()))
        .collect();
    if wanted.iter().any(|sym| sym.is_none()) {
        return None;
    }
    let mut last: HashMap<Sym, EntryId> = wanted.iter().map(|&sym| (sym, NO_ENTRY)).collect();
    let info = &s.files()[file.0 as usize];
    for e in (info.first_entry..info.end_entry).map(EntryId) {
        if let Some(slot) = last.get_mut(&s.entry(e).id) {
            if s.tree().contains(e) {
                *slot = e;
            }
        }
    }
    wanted
        .iter()
        .map(|sym| Some(last[sym]).filter(|&e| e != NO_ENTRY))
        .collect()
}

/// No entry, in [`lines_by_id`]'s map.
const NO_ENTRY: EntryId = EntryId(u32::MAX);

/// `context` with `kept` right after the entry whose id is `anchor`, and
/// not again later; unchanged when the anchor is not in it.
fn splice(s: &View, context: Vec<EntryId>, anchor: &str, kept: &[EntryId]) -> Vec<EntryId> {
    let anchor = s.interner().lookup(anchor.as_bytes());
    let Some(a) = context
        .iter()
        .position(|&e| !anchor.is_none() && s.entry(e).id == anchor)
    else {
        return context;
    };
    let again: HashSet<EntryId> = kept.iter().copied().collect();
    let mut out = Vec::with_capacity(context.len() + kept.len());
    out.extend_from_slice(&context[..=a]);
    out.extend_from_slice(kept);
    out.extend(context[a + 1..].iter().filter(|e| !again.contains(e)));
    out
}

/// One message per line; for context, a response split over lines (same
/// `message.id`) is merged into one message with its usage counted once.
/// (For the check, lines stay apart and the check counts a group once.)
struct Lines {
    merge: bool,
    /// The open response per `message.id` since the last prompt, by its
    /// index in `out`.
    open: BTreeMap<Sym, usize>,
    /// `out`'s length when the last line was fed. A caller hands messages
    /// on from the front of `out` between lines (`Session::context_each`
    /// keeps the last `LOOKBACK`): the open indices move down with them,
    /// and a response handed on already is no longer open.
    len: usize,
}

impl Normalize for Lines {
    fn feed(&mut self, origin: &Origin, value: &Value, out: &mut Vec<Message>) {
        if out.len() < self.len {
            let gone = self.len - out.len();
            self.open.retain(|_, i| match i.checked_sub(gone) {
                Some(moved) => {
                    *i = moved;
                    true
                }
                None => false,
            });
        }
        self.feed_line(origin, value, out);
        self.len = out.len();
    }

    /// Split responses are merged (for a branch's context) only.
    fn per_line(&self) -> bool {
        !self.merge
    }
}

impl Lines {
    fn feed_line(&mut self, origin: &Origin, value: &Value, out: &mut Vec<Message>) {
        let Some(mut message) = normalize::claude::line_message(value, origin.options) else {
            return;
        };
        origin.stamp(&mut message);
        if !self.merge {
            out.push(message);
            return;
        }
        let group = origin.entry.group;
        if message.role == Role::User {
            self.open.clear();
        }
        if !group.is_none() && message.role == Role::Assistant {
            if let Some(&i) = self.open.get(&group) {
                normalize::claude::merge_split(&mut out[i], message);
                return;
            }
            self.open.insert(group, out.len());
        }
        out.push(message);
    }
}
