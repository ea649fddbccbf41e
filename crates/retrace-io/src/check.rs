//! The core's deep check ([`Session::check`]) of a loaded session on
//! several threads: the entries split where the core says a run may start
//! ([`Session::check_parts`]), each run parsed by its own thread over its
//! own handles on the files, and what they found counted in order
//! ([`Session::check_join`]), so the result is the one pass's.

use std::path::PathBuf;

use retrace_core::{Check, Inflated, Session, SourceError};

use crate::load::{Bytes, Loaded};
use crate::source::FileSource;

/// Bodies below this many bytes are checked in one pass: threads would
/// cost more than they save.
const PARALLEL_FROM: u64 = 8 << 20;

impl Loaded {
    /// [`Session::check`] of this session, on up to `threads` threads when
    /// its bodies are read from files and there are enough of them.
    pub fn check(&mut self, threads: usize) -> Result<Check, SourceError> {
        let session = &self.session;
        let bytes: u64 = session.entries().iter().map(|e| u64::from(e.len)).sum();
        let paths = match self.source.inner() {
            Bytes::Files(files) if threads > 1 && bytes >= PARALLEL_FROM => files.paths().to_vec(),
            _ => return session.check(&mut self.source),
        };
        let runs = session.check_parts(threads);
        let parts = std::thread::scope(|scope| {
            let handles: Vec<_> = runs
                .into_iter()
                .map(|run| scope.spawn(|| check_run(session, &paths, run)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a check thread panicked"))
                .collect::<Result<Vec<_>, _>>()
        })?;
        Ok(session.check_join(parts))
    }
}

/// One run of entries, read through its own files.
fn check_run(
    session: &Session,
    paths: &[PathBuf],
    run: std::ops::Range<usize>,
) -> Result<retrace_core::CheckPart, SourceError> {
    let files = Bytes::Files(FileSource::new(paths.to_vec()));
    let mut source = Inflated::new(files, session.files());
    session.check_part(run, &mut source)
}
