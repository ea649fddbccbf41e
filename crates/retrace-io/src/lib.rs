//! retrace-io is the native companion of `retrace-core`: everything that
//! touches the file system lives here (and in the CLI), so the core stays
//! sans-I/O.
//!
//! - [`open`]: read session files into a [`retrace_core::Session`], splitting
//!   a large file across threads.
//! - [`FileSource`]: hands the core the bytes of an entry when a body is
//!   needed, by byte range.
//! - [`AtomicFile`]: writes that never leave half a file.

mod atomic;
mod error;
mod open;
mod source;

pub use atomic::{sync_dir, sync_parent, write_atomically, AtomicFile};
pub use error::{FileError, FileResult};
pub use open::{open_files, read_parallel, Input, OpenOptions, Progress};
pub use source::FileSource;
