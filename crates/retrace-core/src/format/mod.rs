//! The session formats retrace reads, as plug-ins.
//!
//! A format is one module here that implements [`Rules`] (plus, for its
//! bodies, a module under `normalize/`). The line index, the tree and the
//! message model are shared; the session, tree and context code ask a
//! format's [`Rules`] everything format-specific and match on [`Format`] in
//! one place only: [`Format::rules`]. Adding a format is: a variant of
//! [`Format`], a module implementing [`Rules`], a line in [`Format::rules`]
//! and in [`ALL`].

// Declared bottom-up: a module uses only those above it.
mod folder;
mod split;
mod view;
mod rules;
mod claude;
mod codex;
mod events;
mod gemini;
mod generic;
mod list;
mod pi;
mod registry;

pub(crate) use claude::lines_by_id;
pub(crate) use events::event_seq;
pub use folder::{order_files, side_car, snapshot_side_car, subagent_dir, Listing, SessionFile};
pub(crate) use registry::key_table;
pub use rules::Subagent;
pub(crate) use rules::{FileCx, Fold, Links, Rules, NONE};
pub use split::{needs_head, split_sessions, HEAD_BYTES};
pub(crate) use view::View;
