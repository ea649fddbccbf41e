//! What can go wrong in a session store.

use std::io;
use std::path::{Path, PathBuf};

/// An error from the store, the recorder or the checkpoints.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// An id from outside is not a valid session id.
    #[error("invalid session id `{id}`: {reason}")]
    InvalidId {
        /// The id, escaped.
        id: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No session has this id.
    #[error("no session `{id}`")]
    NotFound {
        /// The id.
        id: String,
    },
    /// A session with this id exists already.
    #[error("session `{id}` exists already")]
    Exists {
        /// The id.
        id: String,
    },
    /// Another writer (this process or another) holds the session.
    #[error("session `{id}` is busy: another writer holds it ({holder})")]
    SessionBusy {
        /// The id.
        id: String,
        /// Where the lock is.
        holder: String,
    },
    /// A save against a version that is no longer the latest.
    #[error("session `{id}`: state was saved at version {expected}, but it is now at {actual}")]
    Conflict {
        /// The id.
        id: String,
        /// The version the save was based on.
        expected: u64,
        /// The version stored.
        actual: u64,
    },
    /// A file of the store could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done (`cannot read`, `cannot write`, …).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// A file of the store holds something that is not what it should.
    #[error("{path}: {reason}")]
    Corrupt {
        /// The file (and line, where there is one).
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A state given to save cannot be written as JSON.
    #[error("session `{id}`: the state cannot be written as JSON: {reason}")]
    Serialize {
        /// The id.
        id: String,
        /// Why.
        reason: String,
    },
    /// An export could not be written to its output.
    #[error("cannot write the export of session `{id}`: {source}")]
    Output {
        /// The id.
        id: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// The recorder's writer has stopped (after an error it reported).
    #[error("the recorder of session `{id}` has stopped: {reason}")]
    RecorderStopped {
        /// The id.
        id: String,
        /// Why it stopped.
        reason: String,
    },
    /// A workspace path from outside leaves the workspace, goes into a
    /// `.git`, or is otherwise not one checkpoints accept.
    #[error("invalid workspace path `{path}`: {reason}")]
    InvalidPath {
        /// The path, escaped.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No checkpoint has this name (tag or commit id), or a commit-id
    /// prefix names more than one.
    #[error("no checkpoint `{name}`: {reason}")]
    UnknownCheckpoint {
        /// The name given.
        name: String,
        /// Why it does not name one checkpoint.
        reason: String,
    },
    /// A git checkpoint failed.
    #[error("checkpoint: {0}")]
    Git(String),
    /// A database store's server refused a request, or could not be
    /// reached in time: which server and what was being done, then the
    /// server's message.
    #[error("{what}: {reason}")]
    Database {
        /// The server (its address, never a password) and what was being
        /// done.
        what: String,
        /// Why it failed: the server's message, code, detail and hint.
        reason: String,
    },
    /// A session's files could not be read as a session (to play it): the
    /// message names the file.
    #[error(transparent)]
    File(#[from] retrace_io::FileError),
}

impl StoreError {
    /// An I/O error while doing `action` on `path`.
    pub fn io(action: &'static str, path: &Path, source: io::Error) -> StoreError {
        StoreError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}

impl From<git2::Error> for StoreError {
    fn from(e: git2::Error) -> StoreError {
        StoreError::Git(e.message().to_owned())
    }
}

/// A result of the store.
pub type StoreResult<T> = Result<T, StoreError>;
