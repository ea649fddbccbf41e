//! `retrace serve`: every session on this machine behind a local,
//! read-only HTTP server: an index page (sessions by project, sorted,
//! filtered, searched across), each opened in the viewer with its bytes
//! read by range, and followed while its agent still writes it.
//!
//! - [`roots`]: where sessions are looked for (the folders named, else the
//!   agents' folders under the home folder and the store's root).
//! - [`catalog`]: the sessions found, each with its index line, read on
//!   every core and cached on disk by path, size and modification time.
//! - [`search`]: a parallel scan of every session for a query.
//! - [`http`]: the server (hyper), its guard (GET/HEAD only, `Host`
//!   checked, no `..`), its routes, ranges and live events.
//! - [`page`]: the index page; [`viewer`]: the viewer's files.

pub mod catalog;
pub mod http;
pub mod page;
pub mod roots;
pub mod search;
pub mod viewer;

pub use catalog::{Built, Cache, Catalog, Entry};
pub use http::{cache_file, open_catalog, start, Config, Running};
pub use roots::{roots, Places, Root};
pub use viewer::Viewer;
