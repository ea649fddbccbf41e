//! pi coding agent sessions (`~/.pi/agent/sessions/…`).
//!
//! Line 1 is a `session` header. v1 entries have no ids and form one chain;
//! v2/v3 entries carry `id`/`parentId`. Every entry type is a tree node, the
//! default leaf is the last entry in file order, and every fan-out is a real
//! branch (pi only forks when someone picks an earlier entry).

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

pub(crate) fn is_known_type(kind: &[u8]) -> bool {
    KNOWN_TYPES.contains(&kind)
}
