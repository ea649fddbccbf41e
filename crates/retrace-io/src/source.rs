use std::borrow::Cow;
use std::collections::VecDeque;
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use retrace_core::{FileId, Source, SourceError};

/// Files kept open at once: a session of thousands of subagent files is
/// read without running out of file descriptors (a common limit is 1,024),
/// and reads, which go file by file, seldom reopen one.
const KEPT_OPEN: usize = 64;

/// Reads entry bodies from the files a session was read from, by byte range.
/// Files are opened on first use and the last [`KEPT_OPEN`] used kept open.
#[derive(Debug)]
pub struct FileSource {
    paths: Vec<PathBuf>,
    /// Open files by index in `paths`, the most recently opened last.
    open: VecDeque<(usize, File)>,
    buf: Vec<u8>,
}

impl FileSource {
    /// A source over `paths`, in the order their files were read (the
    /// `FileId`s of the session).
    pub fn new(paths: Vec<PathBuf>) -> FileSource {
        FileSource {
            paths,
            open: VecDeque::new(),
            buf: Vec::new(),
        }
    }

    /// A source over the same files, which opens them anew.
    pub fn reopen(&self) -> FileSource {
        FileSource::new(self.paths.clone())
    }
}

impl Source for FileSource {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        let i = file.0 as usize;
        let path = self
            .paths
            .get(i)
            .ok_or_else(|| SourceError::new(file, range.clone(), "no such file"))?;
        let at = match self.open.iter().position(|(j, _)| *j == i) {
            Some(at) => at,
            None => {
                let f = File::open(path).map_err(|e| {
                    SourceError::new(file, range.clone(), format!("{}: {e}", path.display()))
                })?;
                if self.open.len() == KEPT_OPEN {
                    self.open.pop_front();
                }
                self.open.push_back((i, f));
                self.open.len() - 1
            }
        };
        let f = &self.open[at].1;
        self.buf.resize((range.end - range.start) as usize, 0);
        f.read_exact_at(&mut self.buf, range.start)
            .map_err(|e| SourceError::new(file, range, format!("{}: {e}", path.display())))?;
        Ok(Cow::Borrowed(&self.buf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// More files than are kept open, each read twice in turn: every read
    /// right, never more than `KEPT_OPEN` open.
    #[test]
    fn reads_more_files_than_it_keeps_open() {
        let dir = std::env::temp_dir().join(format!("retrace-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let n = KEPT_OPEN * 3;
        let paths: Vec<PathBuf> = (0..n)
            .map(|i| {
                let p = dir.join(format!("{i}.jsonl"));
                std::fs::write(&p, format!("file {i}\n")).unwrap();
                p
            })
            .collect();
        let mut source = FileSource::new(paths);
        for _ in 0..2 {
            for i in 0..n {
                let want = format!("file {i}");
                let got = source
                    .read(FileId(i as u16), 0..want.len() as u64)
                    .unwrap()
                    .into_owned();
                assert_eq!(got, want.as_bytes());
                assert!(source.open.len() <= KEPT_OPEN);
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
