use std::io;
use std::path::{Path, PathBuf};

/// A file could not be read or written. The message names the file and
/// what went wrong; [`FileError::reason`] is the what alone, for a caller
/// that prints the path itself (the CLI's `PATH: reason`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    #[error("cannot read {path}: no such file or directory")]
    NotFound { path: PathBuf },
    #[error("cannot read {path}: permission denied")]
    AccessDenied { path: PathBuf },
    #[error("cannot read {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A file opened, but reading it failed part way (a broken gzip
    /// stream, a device error).
    #[error("cannot read {path} to its end")]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// Standard input could not be read.
    #[error("cannot read standard input")]
    Stdin {
        #[source]
        source: io::Error,
    },
    /// A folder where one file is wanted (a stream to redact).
    #[error("cannot read {path}: is a directory")]
    IsDirectory { path: PathBuf },
    /// A folder with no file a session could be read from.
    #[error(
        "cannot read {dir}: no session files (*.jsonl, *.json, gzipped or not) in this directory"
    )]
    NoSessionFiles { dir: PathBuf },
    /// A file whose first bytes show it is no session (an image, an
    /// archive, a program; see `retrace_core::binary_kind`).
    #[error("cannot read {path}: {what}, not a session file")]
    NotASession { path: PathBuf, what: String },
    /// A folder that holds several sessions, where one is wanted: each
    /// named by the path that opens it.
    #[error("cannot read {dir}: {}", several(sessions))]
    SeveralSessions {
        dir: PathBuf,
        sessions: Vec<PathBuf>,
    },
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("{count} files make up this session; one session is read from at most {limit} files")]
    TooManyFiles { count: usize, limit: usize },
}

impl FileError {
    /// Classifies an I/O error on `path`.
    pub fn from_io(source: io::Error, path: &Path) -> FileError {
        let path = path.to_path_buf();
        match source.kind() {
            io::ErrorKind::NotFound => FileError::NotFound { path },
            io::ErrorKind::PermissionDenied => FileError::AccessDenied { path },
            _ => FileError::Io { path, source },
        }
    }

    /// An I/O error while writing `path`.
    pub fn write(source: &io::Error, path: &Path) -> FileError {
        FileError::Write {
            path: path.to_path_buf(),
            reason: io_reason(source),
        }
    }

    /// What went wrong, without the path (the CLI prints `PATH: reason`
    /// with the path as the user gave it): `no such file or directory`,
    /// `cannot read: incomplete deflate stream`, ….
    pub fn reason(&self) -> String {
        match self {
            FileError::NotFound { .. } => io_reason(&io::ErrorKind::NotFound.into()),
            FileError::AccessDenied { .. } => io_reason(&io::ErrorKind::PermissionDenied.into()),
            FileError::Io { source, .. } => io_reason(source),
            FileError::Read { source, .. } => format!("cannot read: {}", io_reason(source)),
            FileError::Stdin { source } => format!("cannot read standard input: {source}"),
            FileError::IsDirectory { .. } => "is a directory".to_owned(),
            FileError::NoSessionFiles { .. } => {
                "no session files (*.jsonl, *.json, gzipped or not) in this directory".to_owned()
            }
            FileError::NotASession { what, .. } => format!("{what}, not a session file"),
            FileError::SeveralSessions { sessions, .. } => several(sessions),
            FileError::Write { reason, .. } => reason.clone(),
            FileError::TooManyFiles { .. } => self.to_string(),
        }
    }
}

/// How a folder of several sessions is refused: how many, and the path
/// of each to pass instead.
fn several(sessions: &[PathBuf]) -> String {
    let mut out = format!(
        "this folder holds {} sessions; name one (`retrace list` describes them):",
        sessions.len()
    );
    // A folder of 100,000 sessions is named by its first few, not a
    // screen of paths per session.
    for path in sessions.iter().take(SEVERAL_SHOWN) {
        out.push_str("\n  ");
        out.push_str(&path.display().to_string());
    }
    if sessions.len() > SEVERAL_SHOWN {
        out.push_str(&format!(
            "\n  … and {} more",
            sessions.len() - SEVERAL_SHOWN
        ));
    }
    out
}

/// How many of a folder's sessions [`FileError::SeveralSessions`] names.
const SEVERAL_SHOWN: usize = 20;

/// The one wording of an I/O error: `no such file or directory`,
/// `permission denied`, else the system's.
pub fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => e.to_string(),
    }
}

pub type FileResult<T> = Result<T, FileError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_says_where_and_the_reason_what() {
        let path = Path::new("/no/such/file");
        let e = FileError::from_io(std::fs::metadata(path).unwrap_err(), path);
        assert_eq!(
            e.to_string(),
            "cannot read /no/such/file: no such file or directory"
        );
        assert_eq!(e.reason(), "no such file or directory");
        let e = FileError::Read {
            path: path.into(),
            source: io::Error::other("incomplete deflate stream"),
        };
        assert_eq!(e.reason(), "cannot read: incomplete deflate stream");
    }
}
