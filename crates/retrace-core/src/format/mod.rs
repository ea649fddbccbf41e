//! The session formats retrace reads. Each format is one module that says how
//! its entries hang together (tree membership, parent links, what a real
//! branch is) and how a body becomes messages; the line index, the tree and
//! the message model are shared.

use serde::Serialize;

use crate::entry::{Entry, Flags};
use crate::intern::Interner;

pub(crate) mod claude;
pub(crate) mod pi;

/// A session file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "name", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Format {
    /// pi coding agent; `version` 1 (linear, no ids), 2 or 3 (tree).
    Pi { version: u32 },
    /// Claude Code transcripts (`~/.claude/projects/…`).
    ClaudeCode,
    /// JSON lines of no known format: entries, no tree.
    Generic,
}

impl Format {
    /// A short name: `pi`, `claude-code`, `generic`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Pi { .. } => "pi",
            Format::ClaudeCode => "claude-code",
            Format::Generic => "generic",
        }
    }

    /// The name with its version where one is known, e.g. `pi v3`.
    pub fn describe(self) -> String {
        match self {
            Format::Pi { version } => format!("pi v{version}"),
            other => other.name().to_owned(),
        }
    }

    /// Guesses the format of one file from its entries.
    pub(crate) fn detect(entries: &[Entry], interner: &Interner) -> Format {
        let mut claude_votes = 0;
        for e in entries.iter().filter(|e| !e.is_broken()).take(64) {
            let kind = interner.get(e.kind);
            if kind == b"session" && !e.flags.has(Flags::UUID) {
                // pi's header; no `version` means v1.
                let version = if e.number == u32::MAX { 1 } else { e.number };
                return Format::Pi { version };
            }
            // A `user`/`assistant` line holding an API `message` is Claude
            // Code even without uuids (pi wraps messages in `type: message`).
            let message_line =
                (kind == b"user" || kind == b"assistant") && e.flags.has(Flags::HAS_MESSAGE);
            if e.flags.has(Flags::UUID) || message_line || claude::is_claude_only_type(kind) {
                claude_votes += 1;
            }
        }
        if claude_votes > 0 {
            Format::ClaudeCode
        } else if entries.iter().filter(|e| !e.is_broken()).take(64).any(|e| {
            pi::is_known_type(interner.get(e.kind)) && e.flags.has(Flags::HAS_PARENT_FIELD)
        }) {
            // A pi file whose header was lost.
            Format::Pi { version: 3 }
        } else {
            Format::Generic
        }
    }
}
