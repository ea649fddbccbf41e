//! A file written whole or not at all, compressed when named `.gz`.

use std::io::{self, Write};
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;

use crate::atomic::AtomicFile;
use crate::error::FileResult;
use crate::pump::CHUNK;

/// An output file (the CLI's `-o` and `--report`): an [`AtomicFile`]
/// (renamed into place when complete, removed when dropped unfinished),
/// gzip-compressed when the name ends in `.gz`. `flush` finishes and
/// commits it; callers flush once, at the end.
pub struct OutputFile {
    inner: Option<Inner>,
}

enum Inner {
    Plain(io::BufWriter<AtomicFile>),
    // Boxed: with flate2's zlib-rs backend (the CLI's) the encoder is
    // four times the size of the other variant.
    Gz(Box<GzEncoder<io::BufWriter<AtomicFile>>>),
}

impl OutputFile {
    /// Starts writing `path` (see [`AtomicFile::create`] for what can fail).
    pub fn create(path: &Path) -> FileResult<OutputFile> {
        let file = AtomicFile::create(path)?;
        let w = io::BufWriter::with_capacity(CHUNK, file);
        let gz = path.as_os_str().as_encoded_bytes().ends_with(b".gz");
        Ok(OutputFile {
            inner: Some(if gz {
                Inner::Gz(Box::new(GzEncoder::new(w, Compression::default())))
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

    /// Finishes the file (through the gzip trailer) and renames it into
    /// place; later flushes do nothing.
    fn flush(&mut self) -> io::Result<()> {
        let file = match self.inner.take() {
            Some(Inner::Plain(w)) => w.into_inner().map_err(|e| e.into_error())?,
            Some(Inner::Gz(w)) => w.finish()?.into_inner().map_err(|e| e.into_error())?,
            None => return Ok(()),
        };
        file.commit().map_err(io::Error::other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("retrace-io-out-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn a_gz_name_is_gzipped_and_nothing_is_there_before_the_flush() {
        let path = scratch("a.jsonl.gz");
        let mut out = OutputFile::create(&path).unwrap();
        out.write_all(b"{\"a\":1}\n").unwrap();
        assert!(!path.exists(), "written in place before it was complete");
        out.flush().unwrap();
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "{\"a\":1}\n");
    }

    #[test]
    fn dropped_unfinished_it_leaves_nothing() {
        let path = scratch("b.jsonl");
        let mut out = OutputFile::create(&path).unwrap();
        out.write_all(b"half").unwrap();
        drop(out);
        assert!(!path.exists());
    }
}
