//! A [`Source`] that keeps what it last read, for readers that look back
//! and forth: pairing reads the rows around a row (a call's result on the
//! next row, the call of a result on the row before), so a writer going
//! down a branch asks for most bodies more than once. Kept, they are read
//! (and, through a redacting source, redacted) once.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::ops::Range;

use super::{Source, SourceError};
use crate::model::entry::FileId;

/// Reads through `inner`, keeping the last ranges read up to a number of
/// bytes; a range larger than that is passed through.
pub struct Recent<'a> {
    inner: &'a mut dyn Source,
    kept: VecDeque<(FileId, Range<u64>, Vec<u8>)>,
    bytes: usize,
    max_bytes: usize,
}

/// Ranges kept at most, whatever their size: a lookup walks them.
const MAX_RANGES: usize = 256;

impl<'a> Recent<'a> {
    /// Keeps up to `max_bytes` of what it reads from `inner`.
    pub fn new(inner: &'a mut dyn Source, max_bytes: usize) -> Recent<'a> {
        Recent {
            inner,
            kept: VecDeque::new(),
            bytes: 0,
            max_bytes,
        }
    }
}

impl Source for Recent<'_> {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        if let Some(i) = self
            .kept
            .iter()
            .position(|(f, r, _)| *f == file && *r == range)
        {
            return Ok(Cow::Borrowed(&self.kept[i].2));
        }
        let bytes = self.inner.read(file, range.clone())?.into_owned();
        if bytes.len() > self.max_bytes {
            return Ok(Cow::Owned(bytes));
        }
        while self.bytes + bytes.len() > self.max_bytes || self.kept.len() >= MAX_RANGES {
            let Some((_, _, old)) = self.kept.pop_front() else {
                break;
            };
            self.bytes -= old.len();
        }
        self.bytes += bytes.len();
        self.kept.push_back((file, range, bytes));
        Ok(Cow::Borrowed(&self.kept.back().expect("just kept").2))
    }

    fn as_written(&mut self) -> Option<&mut dyn Source> {
        self.inner.as_written()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the reads that reach it.
    struct Counting<'a> {
        bytes: &'a [u8],
        reads: usize,
    }

    impl Source for Counting<'_> {
        fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
            self.reads += 1;
            let mut bytes = self.bytes;
            let out = bytes.read(file, range)?.into_owned();
            Ok(Cow::Owned(out))
        }
    }

    #[test]
    fn ranges_read_again_come_from_what_was_kept() {
        let mut inner = Counting {
            bytes: b"0123456789",
            reads: 0,
        };
        let mut recent = Recent::new(&mut inner, 6);
        let f = FileId(0);
        assert_eq!(&recent.read(f, 0..3).unwrap()[..], b"012");
        assert_eq!(&recent.read(f, 3..6).unwrap()[..], b"345");
        assert_eq!(&recent.read(f, 0..3).unwrap()[..], b"012");
        // Keeping 6..9 makes room by letting 0..3 go.
        assert_eq!(&recent.read(f, 6..9).unwrap()[..], b"678");
        assert_eq!(&recent.read(f, 3..6).unwrap()[..], b"345");
        assert_eq!(&recent.read(f, 0..3).unwrap()[..], b"012");
        // Too large to keep: read each time.
        assert_eq!(&recent.read(f, 0..10).unwrap()[..], b"0123456789");
        assert_eq!(&recent.read(f, 0..10).unwrap()[..], b"0123456789");
        assert!(recent.read(f, 8..12).is_err());
        drop(recent);
        assert_eq!(inner.reads, 7);
    }
}
