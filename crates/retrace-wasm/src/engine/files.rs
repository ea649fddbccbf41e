//! Where the engine's bytes come from: [`Files`], the files given with a
//! request (dropped `File`s in the worker, bytes in memory for the direct
//! transport and native tests), read by range like the core's `Source`.

use std::borrow::Cow;
use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use retrace_core::{FileId, Source, SourceError};

/// A piece of a file read while earlier pieces are indexed.
pub type Fetch = Pin<Box<dyn Future<Output = Result<Vec<u8>, String>>>>;

/// The files given with a request, by index. Errors say what went wrong
/// with which file, in words; the engine adds the error code.
pub trait Files: Sized + 'static {
    fn count(&self) -> usize;
    fn name(&self, i: usize) -> String;
    fn size(&self, i: usize) -> u64;
    /// The bytes of `range` of file `i`, now (a body, a folder file's first
    /// line, a side-car).
    fn read(&mut self, i: usize, range: Range<u64>) -> Result<Cow<'_, [u8]>, String>;
    /// The bytes of `range` of file `i`, in the background: opening keeps
    /// a few of these in flight, since a host may read a file slower than
    /// the core indexes it (a browser does). The read should start when
    /// this is called, not when the future is first polled, or nothing is
    /// read ahead (a host whose reads must follow one another, like a
    /// served file's one stream, may start on the first poll instead).
    fn fetch(&self, i: usize, range: Range<u64>) -> Fetch;
    /// Files `which` of these, in that order (a folder's session).
    fn pick(&self, which: &[usize]) -> Self;
}

/// The files of an open session as the core's [`Source`]: file ids are
/// indices.
pub struct SessionFiles<F>(pub F);

impl<F: Files> Source for SessionFiles<F> {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        let i = usize::from(file.0);
        if i >= self.0.count() {
            return Err(SourceError::new(file, range, "no such file"));
        }
        self.0
            .read(i, range.clone())
            .map_err(|e| SourceError::new(file, range, e))
    }
}

/// Files held in memory: the direct transport's (a page's main thread
/// cannot read a `File` by range without waiting) and the native tests'.
#[derive(Clone, Default)]
pub struct MemoryFiles {
    files: Vec<(String, Rc<[u8]>)>,
}

impl MemoryFiles {
    pub fn new() -> MemoryFiles {
        MemoryFiles::default()
    }

    /// Adds a file named `name` (a path under a folder, `/` between
    /// folders, or a base name).
    pub fn add(&mut self, name: impl Into<String>, bytes: impl Into<Rc<[u8]>>) {
        self.files.push((name.into(), bytes.into()));
    }
}

impl Files for MemoryFiles {
    fn count(&self) -> usize {
        self.files.len()
    }

    fn name(&self, i: usize) -> String {
        self.files[i].0.clone()
    }

    fn size(&self, i: usize) -> u64 {
        self.files[i].1.len() as u64
    }

    fn read(&mut self, i: usize, range: Range<u64>) -> Result<Cow<'_, [u8]>, String> {
        let bytes = &self.files[i].1;
        let (start, end) = (range.start as usize, range.end as usize);
        if start > end || end > bytes.len() {
            return Err(format!(
                "{}: bytes {start}..{end} of {}",
                self.files[i].0,
                bytes.len()
            ));
        }
        Ok(Cow::Borrowed(&bytes[start..end]))
    }

    fn fetch(&self, i: usize, range: Range<u64>) -> Fetch {
        let mut files = self.pick(&[i]);
        let bytes = files.read(0, range).map(Cow::into_owned);
        Box::pin(std::future::ready(bytes))
    }

    fn pick(&self, which: &[usize]) -> MemoryFiles {
        MemoryFiles {
            files: which.iter().map(|&i| self.files[i].clone()).collect(),
        }
    }
}

/// The output of a future that needs no waiting (an open of files in
/// memory), or `None` if it would wait.
pub fn ready<T>(future: impl Future<Output = T>) -> Option<T> {
    let mut future = std::pin::pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(value) => Some(value),
        Poll::Pending => None,
    }
}
