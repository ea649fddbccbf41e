//! Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`).
//!
//! Conversation lines (`user`, `assistant`, `system`, `attachment`,
//! `progress`) carry `uuid`/`parentUuid`; metadata lines (`summary`,
//! `file-history-snapshot`, `queue-operation`, …) have no uuid and are kept
//! outside the tree. One API response is written as several lines sharing
//! `message.id`. Many fan-outs are recording artifacts; a real branch is a
//! node with two or more typed prompts as children, written at different
//! times.

use crate::entry::{Entry, Flags};
use crate::intern::Interner;

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

pub(crate) fn is_tree_type(kind: &[u8]) -> bool {
    TREE_TYPES.contains(&kind)
}

pub(crate) fn is_known_type(kind: &[u8]) -> bool {
    TREE_TYPES.contains(&kind) || META_TYPES.contains(&kind)
}

/// Types no other format uses, enough to recognise a file with no uuids
/// (one holding only `summary` lines, say).
pub(crate) fn is_claude_only_type(kind: &[u8]) -> bool {
    META_TYPES.contains(&kind)
}

/// A prompt someone typed: a user line that is not a tool result, not
/// injected by the harness and not a compaction summary.
pub(crate) fn is_prompt(e: &Entry, interner: &Interner) -> bool {
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
pub(crate) fn is_real_fork<'a>(
    children: impl Iterator<Item = &'a Entry>,
    interner: &Interner,
) -> bool {
    let mut children = children;
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
pub(crate) fn is_compact_boundary(e: &Entry, interner: &Interner) -> bool {
    interner.get(e.subtype) == b"compact_boundary"
}

/// Links each subagent file (its entries carry `agentId`) to the tool-result
/// line in another file whose `toolUseResult.agentId` names it.
pub(crate) fn link_subagents(session: &crate::Session) -> Vec<crate::Subagent> {
    use crate::entry::{EntryId, FileId};
    let entries = session.entries();
    let mut out = Vec::new();
    for (f, info) in session.files().iter().enumerate() {
        if session.file_format(FileId(f as u32)) != crate::Format::ClaudeCode {
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
        out.push(crate::Subagent {
            file: FileId(f as u32),
            agent_id: session.interner().str(agent).into_owned(),
            spawned_by,
        });
    }
    out
}
