//! retrace-io is the native companion of `retrace-core`: everything that
//! touches the file system lives here, so the core stays sans-I/O and the
//! CLI only parses arguments and prints.
//!
//! - [`locate`] / [`load`]: a path (a file, a folder of sessions, a pipe)
//!   or standard input to a [`Loaded`] session and the [`Bytes`] of its
//!   bodies; [`folder_inputs`] lists a folder's session files in the
//!   core's order; [`sweep`] sorts a folder's files into session files
//!   and the rest (for `redact DIR`).
//! - [`open_files`]: read session files into a [`retrace_core::Session`],
//!   splitting a large file across threads.
//! - [`Loaded::check`]: the core's deep check on several threads.
//! - [`FileSource`]: hands the core the bytes of an entry when a body is
//!   needed, by byte range.
//! - [`Stream`], [`pump`], [`pump_parallel`]: the streaming redactor over
//!   a file or standard input (gunzipped by its magic), on several
//!   threads when it can.
//! - [`AtomicFile`], [`OutputFile`]: writes that never leave half a file,
//!   gzipped when named `.gz`; [`ParallelGz`]: one gzip stream deflated on
//!   several threads; [`append_lines`]: lines appended to a
//!   session file as its agent appends (a gzip member for a gzipped one).
//! - [`FileError`]: what went wrong, and on which file.

mod append;
mod atomic;
mod check;
mod error;
mod load;
mod open;
mod output_file;
mod parallel_gz;
mod pump;
mod source;
mod sweep;
mod walk;

pub use append::append_lines;
pub use atomic::{sync_dir, sync_parent, write_atomically, AtomicFile};
pub use error::{io_reason, FileError, FileResult};
pub use load::{folder_inputs, load, locate, with_side_car, Bytes, BytesAgain, Loaded, Located};
pub use open::{open_files, read_parallel, Input, OpenOptions, Progress};
pub use output_file::OutputFile;
pub use parallel_gz::ParallelGz;
pub use pump::{pump, pump_parallel, Findings, PumpError, Stream, CHUNK};
pub use source::FileSource;
pub use sweep::{sweep, target, within, Sweep};
pub use walk::{session_of_file, sessions_in, FoundSession, AGENT_ROOTS, MAX_DEPTH};
