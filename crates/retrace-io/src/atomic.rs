//! Writing a file so that no reader ever sees half of it: the bytes go to a
//! temporary file beside the destination, which is renamed over it once
//! complete. A failed or abandoned write leaves the destination as it was.
//! A commit syncs the file before the rename and the directory after it,
//! so after a crash the destination is the old file or the new one, whole.
//!
//! A destination that exists and is not a regular file (`/dev/null`, a
//! pipe, a terminal) is written directly: renaming over it would replace
//! the device with a file.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

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
        // Unique per process and per write, so two threads writing the same
        // destination never share a temporary file.
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let (file, tmp) = loop {
            let tmp = dir.join(format!(
                ".{}.retrace-{}-{}.tmp",
                name.to_string_lossy(),
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            match File::options().write(true).create_new(true).open(&tmp) {
                Ok(file) => break (file, tmp),
                // Left by a crashed process that had our pid: take the next.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(FileError::write(&e, dest)),
            }
        };
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

    /// Sets the file's modification time (kept by the rename, so it
    /// changes together with the content).
    pub fn set_modified(&self, time: SystemTime) -> FileResult<()> {
        self.file
            .set_modified(time)
            .map_err(|e| FileError::write(&e, &self.dest))
    }

    /// Syncs the file, renames it into place and syncs the directory, so
    /// the new content survives a crash once this returns.
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
        sync_parent(&self.dest).map_err(|e| FileError::write(&e, &self.dest))
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

/// Syncs the directory that holds `path`, so a rename or a new entry in it
/// survives a crash. A no-op where directories cannot be opened (Windows).
pub fn sync_parent(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    sync_dir(dir)
}

/// Syncs a directory's entries (see [`sync_parent`]).
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
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
    fn threads_writing_one_file_never_mix_their_bytes() {
        let dir = scratch("threads");
        let dest = dir.join("state.json");
        std::thread::scope(|s| {
            for t in 0..8u8 {
                let dest = &dest;
                s.spawn(move || {
                    let body = vec![b'a' + t; 64 << 10];
                    for _ in 0..10 {
                        write_atomically(dest, &body).unwrap();
                    }
                });
            }
        });
        let got = std::fs::read(&dest).unwrap();
        assert_eq!(got.len(), 64 << 10);
        assert!(
            got.iter().all(|&b| b == got[0]),
            "bytes of two writes mixed"
        );
        let names = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(names, 1, "temporary files left behind");
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
