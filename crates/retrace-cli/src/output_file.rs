//! A file written whole or not at all, compressed when named `.gz`.

use std::io::{self, Write};
use std::path::Path;

use anyhow::Result;
use flate2::write::GzEncoder;
use flate2::Compression;
use retrace_io::AtomicFile;

use crate::errors::InputError;
use crate::pump::CHUNK;

/// `-o` and `--report` output: a [`retrace_io::AtomicFile`] (renamed into
/// place when complete, removed when dropped unfinished), gzip-compressed
/// when the name ends in `.gz`. `flush` finishes and commits it; callers
/// flush once, at the end.
pub(crate) struct OutputFile {
    inner: Option<Inner>,
}

enum Inner {
    Plain(io::BufWriter<AtomicFile>),
    Gz(GzEncoder<io::BufWriter<AtomicFile>>),
}

impl OutputFile {
    pub fn create(path: &str) -> Result<OutputFile> {
        let file = AtomicFile::create(Path::new(path)).map_err(InputError::new)?;
        let w = io::BufWriter::with_capacity(CHUNK, file);
        Ok(OutputFile {
            inner: Some(if path.ends_with(".gz") {
                Inner::Gz(GzEncoder::new(w, Compression::default()))
            } else {
                Inner::Plain(w)
            }),
        })
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.inner.as_mut() {
            Some(Inner::Plain(w)) => w.write(buf),
            Some(Inner::Gz(w)) => w.write(buf),
            None => Err(io::Error::other("already committed")),
        }
    }

    /// Finishes the file and renames it into place.
    fn flush(&mut self) -> io::Result<()> {
        let file = match self.inner.take() {
            Some(Inner::Plain(w)) => w.into_inner().map_err(|e| e.into_error())?,
            Some(Inner::Gz(w)) => w.finish()?.into_inner().map_err(|e| e.into_error())?,
            None => return Ok(()),
        };
        file.commit().map_err(io::Error::other)
    }
}
