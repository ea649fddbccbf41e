//! Writing a file so that no reader ever sees half of it: the bytes go to a
//! temporary file beside the destination, which is renamed over it once
//! complete. A failed or abandoned write leaves the destination as it was.
//!
//! A destination that exists and is not a regular file (`/dev/null`, a
//! pipe, a terminal) is written directly: renaming over it would replace
//! the device with a file.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::{FileError, FileResult};

/// A file being written; [`AtomicFile::commit`] puts it in place.
#[derive(Debug)]
pub struct AtomicFile {
    file: File,
    /// The temporary file, `None` when writing a device directly.
    tmp: Option<PathBuf>,
    dest: PathBuf,
    committed: bool,
}

impl AtomicFile {
    /// Starts writing `dest`.
    pub fn create(dest: &Path) -> FileResult<AtomicFile> {
        let special = std::fs::metadata(dest).is_ok_and(|m| !m.is_file() && !m.is_dir());
        if special {
            let file = File::options()
                .write(true)
                .open(dest)
                .map_err(|e| FileError::write(&e, dest))?;
            return Ok(AtomicFile {
                file,
                tmp: None,
                dest: dest.to_path_buf(),
                committed: false,
            });
        }
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = dest
            .file_name()
            .ok_or_else(|| FileError::write(&io::Error::other("not a file name"), dest))?;
        let tmp = dir.join(format!(
            ".{}.retrace-{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let file = File::create(&tmp).map_err(|e| FileError::write(&e, dest))?;
        Ok(AtomicFile {
            file,
            tmp: Some(tmp),
            dest: dest.to_path_buf(),
            committed: false,
        })
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.dest
    }

    /// Flushes to disk and renames the file into place.
    pub fn commit(mut self) -> FileResult<()> {
        self.committed = true;
        let Some(tmp) = self.tmp.take() else {
            return self
                .file
                .flush()
                .map_err(|e| FileError::write(&e, &self.dest));
        };
        let done = self
            .file
            .sync_all()
            .and_then(|()| std::fs::rename(&tmp, &self.dest));
        if let Err(e) = done {
            let _ = std::fs::remove_file(&tmp);
            return Err(FileError::write(&e, &self.dest));
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.committed {
            if let Some(tmp) = &self.tmp {
                let _ = std::fs::remove_file(tmp);
            }
        }
    }
}

/// Writes `bytes` to `dest` atomically (see the module docs).
pub fn write_atomically(dest: &Path, bytes: &[u8]) -> FileResult<()> {
    let mut file = AtomicFile::create(dest)?;
    file.write_all(bytes)
        .map_err(|e| FileError::write(&e, dest))?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("retrace-atomic-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_commit_replaces_the_file_and_an_abandoned_write_leaves_it() {
        let dir = scratch("replace");
        let dest = dir.join("out.jsonl");
        std::fs::write(&dest, "old\n").unwrap();
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"half").unwrap();
        drop(f);
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "old\n");
        write_atomically(&dest, b"new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "new\n");
        // No temporary file is left behind either way.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.jsonl"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_device_is_written_not_replaced() {
        write_atomically(Path::new("/dev/null"), b"gone\n").unwrap();
        let meta = std::fs::metadata("/dev/null").unwrap();
        assert!(!meta.is_file(), "/dev/null must stay a device");
    }

    #[test]
    fn a_missing_directory_is_a_clear_error() {
        let err = write_atomically(Path::new("/nonexistent-dir/x.jsonl"), b"x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot write /nonexistent-dir/x.jsonl: no such file or directory"
        );
    }
}
