use std::borrow::Cow;
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use retrace_core::{FileId, Source, SourceError};

/// Reads entry bodies from the files a session was read from, by byte range.
/// Files are opened on first use and kept open.
#[derive(Debug)]
pub struct FileSource {
    paths: Vec<PathBuf>,
    files: Vec<Option<File>>,
    buf: Vec<u8>,
}

impl FileSource {
    /// A source over `paths`, in the order their files were read (the
    /// `FileId`s of the session).
    pub fn new(paths: Vec<PathBuf>) -> FileSource {
        let files = paths.iter().map(|_| None).collect();
        FileSource {
            paths,
            files,
            buf: Vec::new(),
        }
    }
}

impl Source for FileSource {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        let i = file.0 as usize;
        let path = self
            .paths
            .get(i)
            .ok_or_else(|| SourceError::new(file, range.clone(), "no such file"))?;
        if self.files[i].is_none() {
            let f = File::open(path).map_err(|e| {
                SourceError::new(file, range.clone(), format!("{}: {e}", path.display()))
            })?;
            self.files[i] = Some(f);
        }
        let f = self.files[i].as_ref().expect("opened above");
        self.buf.resize((range.end - range.start) as usize, 0);
        f.read_exact_at(&mut self.buf, range.start)
            .map_err(|e| SourceError::new(file, range, format!("{}: {e}", path.display())))?;
        Ok(Cow::Borrowed(&self.buf))
    }
}
