//! Where bodies come from when a view asks for them.
//!
//! The core never reads files. A [`Source`] hands it the bytes of an entry by
//! byte range: the CLI reads them from disk, the browser from `File.slice`,
//! tests from memory.

use std::borrow::Cow;
use std::ops::Range;

use crate::model::entry::FileId;

mod inflated;
mod recent;

pub use inflated::Inflated;
pub use recent::Recent;

/// Gives the bytes of a byte range of an input file.
pub trait Source {
    /// The bytes of `range` of `file`: exactly that many, or an error.
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError>;

    /// The source this one reads from, when this one changes the bytes it
    /// gives (a [`RedactingSource`](crate::redact::RedactingSource)): a pass
    /// over every entry can then look at the bytes as written, cheaply, and
    /// read through this source only what it keeps (a search's first pass).
    /// `None`, the default: these are the bytes as written.
    fn as_written(&mut self) -> Option<&mut dyn Source> {
        None
    }
}

/// A range could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read bytes {start}..{end} of file {file}: {reason}")]
pub struct SourceError {
    /// The file, as its [`FileId`] number.
    pub file: u32,
    /// Start of the range asked for.
    pub start: u64,
    /// End of the range asked for.
    pub end: u64,
    /// Why it could not be read.
    pub reason: String,
}

impl SourceError {
    /// An error for `range` of `file`.
    pub fn new(file: FileId, range: Range<u64>, reason: impl Into<String>) -> SourceError {
        SourceError {
            file: u32::from(file.0),
            start: range.start,
            end: range.end,
            reason: reason.into(),
        }
    }
}

/// Files held in memory, one per file in the order they were read.
impl<B: AsRef<[u8]>> Source for [B] {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        let bytes = self
            .get(file.0 as usize)
            .ok_or_else(|| SourceError::new(file, range.clone(), "no such file"))?
            .as_ref();
        let (start, end) = (range.start as usize, range.end as usize);
        bytes
            .get(start..end)
            .map(Cow::Borrowed)
            .ok_or_else(|| SourceError::new(file, range, "range is past the end of the file"))
    }
}

/// Files held in memory and owned, one per file in the order they were read.
impl<B: AsRef<[u8]>> Source for Vec<B> {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        self.as_mut_slice().read(file, range)
    }
}

/// One file held in memory.
impl Source for &[u8] {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        if file.0 != 0 {
            return Err(SourceError::new(file, range, "no such file"));
        }
        let bytes: &[u8] = self;
        bytes
            .get(range.start as usize..range.end as usize)
            .map(Cow::Borrowed)
            .ok_or_else(|| SourceError::new(file, range, "range is past the end of the file"))
    }
}
