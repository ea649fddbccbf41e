use std::io;
use std::path::{Path, PathBuf};

/// A file could not be read.
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
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
    #[error("{count} files given; one session holds at most {limit}")]
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
}

impl FileError {
    /// An I/O error while writing `path`.
    pub fn write(source: &io::Error, path: &Path) -> FileError {
        let reason = match source.kind() {
            io::ErrorKind::NotFound => "no such file or directory".to_owned(),
            io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
            _ => source.to_string(),
        };
        FileError::Write {
            path: path.to_path_buf(),
            reason,
        }
    }
}

pub type FileResult<T> = Result<T, FileError>;
