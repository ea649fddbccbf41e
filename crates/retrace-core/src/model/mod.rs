//! The data every layer shares: entries and their ids, interned strings,
//! diagnostics, time, the message model (with the harness text recognised
//! in user-side messages), provider and format names, bookmarks.

pub(crate) mod sort;
pub(crate) mod intern;
pub(crate) mod entry;
pub(crate) mod diag;
pub(crate) mod time;
pub(crate) mod provider;
pub(crate) mod format_id;
pub(crate) mod event;
pub(crate) mod harness;
pub(crate) mod message;
pub(crate) mod bookmark;
