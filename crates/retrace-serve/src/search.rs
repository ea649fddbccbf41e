//! Full-text search across every session of the catalog: a parallel scan,
//! no index kept. Each session's files are read as written (gunzipped),
//! ASCII-lower-cased a chunk at a time and searched for the piece of the
//! query any match must leave in them (the core's `written_needle`); only
//! a session that holds it is indexed and searched by the core's `search`
//! (the text as a person reads it, sensitive data hidden as the viewer
//! shows it by default). Sessions are taken newest first on every core,
//! and the scan stops once enough hits are found.
//!
//! Why a scan and not an index kept on disk: the bench (`cargo xtask
//! bench-serve`) answers a search over 10,000 sessions from the page
//! cache in a fraction of a second, the cold start does not pay for
//! writing an index, and there is nothing more to keep in step as files
//! grow.

use std::io::Read as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use retrace_core::redact::{RedactingSource, Rules};
use retrace_core::{written_needle, ReaderOptions, SearchFilter};
use retrace_io::{Located, OpenOptions};
use serde::Serialize;

use crate::catalog::{Catalog, Entry};

/// Hits kept of one session.
pub const PER_SESSION: usize = 20;

/// Bytes read and scanned at a time.
const CHUNK: usize = 1 << 20;

/// A session's hits, and whether it had more.
type SessionHits = (Vec<Hit>, bool);

/// One entry that matches, in one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hit {
    /// The session's id.
    pub session: String,
    /// The entry's label (what the viewer's `#entry=` takes).
    pub entry: String,
    /// The label of a leaf whose branch holds it (`#leaf=`).
    pub leaf: String,
    /// Its 1-based line in its file.
    pub line: u32,
    pub role: String,
    pub snippet: String,
}

/// What a search found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Found {
    /// By session (newest first), then in file order.
    pub hits: Vec<Hit>,
    /// Sessions whose files were scanned.
    pub scanned: usize,
    /// Sessions that held the query's bytes and were searched.
    pub searched: usize,
    /// The scan stopped at `limit` hits, or a session had more than
    /// [`PER_SESSION`].
    pub truncated: bool,
}

/// The entries whose text holds `query` (case insensitively), across the
/// catalog, at most `limit`, on `threads` threads, read with `reader`'s
/// options.
pub fn search(
    catalog: &Catalog,
    query: &str,
    limit: usize,
    threads: usize,
    reader: ReaderOptions,
) -> Found {
    if query.trim().is_empty() || limit == 0 {
        return Found::default();
    }
    let needle = written_needle(query).into_bytes();
    let rules = Arc::new(Rules::builtin());
    let entries = &catalog.entries;
    let next = AtomicUsize::new(0);
    let hits_so_far = AtomicUsize::new(0);
    let full = AtomicBool::new(false);
    let scanned = AtomicUsize::new(0);
    let searched = AtomicUsize::new(0);
    let per_session: Mutex<Vec<Option<SessionHits>>> =
        Mutex::new((0..entries.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1).min(entries.len().max(1)) {
            scope.spawn(|| loop {
                if full.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(entry) = entries.get(i) else { break };
                scanned.fetch_add(1, Ordering::Relaxed);
                if entry.read.is_err() || !holds(entry, &needle, reader.max_inflated) {
                    continue;
                }
                searched.fetch_add(1, Ordering::Relaxed);
                let Some((hits, more)) = search_session(entry, query, &rules, reader) else {
                    continue;
                };
                if hits.is_empty() {
                    continue;
                }
                if hits_so_far.fetch_add(hits.len(), Ordering::Relaxed) + hits.len() >= limit {
                    full.store(true, Ordering::Relaxed);
                }
                per_session.lock().expect("no worker panics holding it")[i] = Some((hits, more));
            });
        }
    });
    let mut found = Found {
        scanned: scanned.into_inner(),
        searched: searched.into_inner(),
        truncated: full.into_inner(),
        ..Found::default()
    };
    for (hits, more) in per_session
        .into_inner()
        .expect("no worker panicked")
        .into_iter()
        .flatten()
    {
        found.truncated |= more;
        found.hits.extend(hits);
    }
    if found.hits.len() > limit {
        found.hits.truncate(limit);
        found.truncated = true;
    }
    found
}

/// Whether any of a session's files holds `needle` (lower case) in its
/// bytes as written, lower-cased; every session holds an empty needle.
fn holds(entry: &Entry, needle: &[u8], max_inflated: u64) -> bool {
    if needle.is_empty() {
        return true;
    }
    let finder = memchr::memmem::Finder::new(needle);
    entry
        .found
        .inputs
        .iter()
        .any(|input| file_holds(&input.path, &finder, max_inflated).unwrap_or(false))
}

/// One file scanned a chunk at a time; the last `needle - 1` bytes of a
/// chunk are kept before the next, so a match across two is found. A gzip
/// file is scanned as far as the reader would inflate it (a gzip bomb is
/// not inflated whole).
fn file_holds(
    path: &Path,
    finder: &memchr::memmem::Finder,
    max_inflated: u64,
) -> std::io::Result<bool> {
    let mut file = std::fs::File::open(path)?;
    let mut magic = [0u8; 2];
    let gz = file.read(&mut magic)? == 2 && magic == [0x1f, 0x8b];
    let file = std::fs::File::open(path)?;
    let mut reader: Box<dyn std::io::Read> = match gz {
        true => Box::new(flate2::read::MultiGzDecoder::new(file).take(max_inflated)),
        false => Box::new(file),
    };
    let keep = finder.needle().len().saturating_sub(1);
    let mut buf = vec![0u8; CHUNK + keep];
    let mut held = 0;
    loop {
        let n = match reader.read(&mut buf[held..]) {
            Ok(0) => return Ok(false),
            Ok(n) => n,
            // A gzip stream cut short is scanned as far as it goes.
            Err(_) if gz => return Ok(false),
            Err(e) => return Err(e),
        };
        let end = held + n;
        buf[held..end].make_ascii_lowercase();
        if finder.find(&buf[..end]).is_some() {
            return Ok(true);
        }
        let from = end.saturating_sub(keep);
        buf.copy_within(from..end, 0);
        held = end - from;
    }
}

/// A session indexed and searched; `None` when it cannot be read now.
fn search_session(
    entry: &Entry,
    query: &str,
    rules: &Arc<Rules>,
    reader: ReaderOptions,
) -> Option<SessionHits> {
    let options = OpenOptions {
        threads: 1,
        reader,
        ..OpenOptions::default()
    };
    let mut loaded = Located::found(entry.found.clone())
        .load(&options, None)
        .ok()?;
    let session = &loaded.session;
    let mut shown = RedactingSource::new(&mut loaded.source, rules.clone());
    let hits = retrace_core::search(
        session,
        &mut shown,
        query,
        SearchFilter::default(),
        PER_SESSION,
    )
    .ok()?;
    let out = hits
        .hits
        .into_iter()
        .map(|h| Hit {
            session: entry.id.clone(),
            entry: h.label,
            leaf: session.label(h.leaf),
            line: h.line,
            role: h.role,
            snippet: h.snippet,
        })
        .collect();
    Some((out, hits.truncated))
}
