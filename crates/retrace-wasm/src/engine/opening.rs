//! Reading files into a session: pieces fetched a few ahead of the reader
//! (a browser reads a file slower than the core indexes it), side-cars
//! attached, then the summary a caller draws first.

use std::collections::VecDeque;
use std::sync::Arc;

use retrace_core::redact::{RedactingSource, Rules};
use retrace_core::{
    segment_preview, EntryId, FileId, Inflated, Reader, Session, SessionFile, Source,
};

use super::describe::shorten;
use super::files::{Files, SessionFiles};
use super::open::{Open, DIAGNOSTICS_SENT};
use crate::protocol::{
    EngineError, ErrorCode, Event, FileSummary, FirstRows, FolderSession, Progress, SegmentInfo,
    SubagentInfo, Summary,
};

/// Bytes read from a file per piece: large enough that the per-call cost
/// vanishes, small enough to keep memory flat.
const PIECE: u64 = 16 << 20;
/// Pieces kept in flight while indexing.
const READ_AHEAD: usize = 3;
/// Tree segments that get a preview of their first prompt with the
/// summary (each costs a body read); a caller asks for the rest it shows.
const PREVIEWS: usize = 40;
/// Bytes of a file's first piece its first screen is read from: a
/// screenful of rows, indexed in a few milliseconds.
const FIRST_BYTES: usize = 1 << 20;
/// Rows of the first screen sent with their bodies: a screenful (as many
/// as the page asks for at a time, `web`'s `BODY_BATCH`), rendered in one
/// short task.
const FIRST_SCREEN: u32 = 12;
/// Milliseconds between two progress reports.
const PROGRESS_MS: f64 = 50.0;

/// An open on its way: the files to read and what to answer with. Made by
/// the engine (which counts opens, so a later one supersedes it), read
/// without holding the engine ([`Opening::read`]), then handed back
/// (`Engine::opened`).
pub struct Opening<F> {
    files: F,
    ordered: Vec<SessionFile>,
    leaf_label: Option<String>,
    entry: Option<String>,
    /// Which open of the engine this is.
    pub generation: u64,
    /// The folder's sessions, when this opens a folder of one.
    pub folder: Option<Vec<FolderSession>>,
    /// Whether the rows of the first piece are sent before the index is
    /// done (a `first_rows` event).
    pub first_rows: bool,
}

/// The files read: the session to install and its summary.
pub struct Indexed<F: Files> {
    pub open: Open<F>,
    pub summary: Summary,
    pub generation: u64,
    pub folder: Option<Vec<FolderSession>>,
}

impl<F: Files> Opening<F> {
    pub fn new(
        files: F,
        ordered: Vec<SessionFile>,
        leaf_label: Option<String>,
        entry: Option<String>,
        generation: u64,
    ) -> Opening<F> {
        Opening {
            files,
            ordered,
            leaf_label,
            entry,
            generation,
            folder: None,
            first_rows: false,
        }
    }

    /// Reads the files into a session, in the order given with their
    /// side-cars. `clock` is a monotonic clock in milliseconds; `progress`
    /// hears how far it got now and then (and the first rows, when asked
    /// for), and says whether to go on (`false`: a later open superseded
    /// this one).
    pub async fn read(
        self,
        clock: impl Fn() -> f64,
        mut progress: impl FnMut(Event) -> bool,
    ) -> Result<Indexed<F>, EngineError> {
        let Opening {
            mut files,
            ordered,
            leaf_label,
            entry,
            generation,
            folder,
            first_rows,
        } = self;
        // A deep link lands elsewhere than the first screen.
        let mut first_rows = first_rows && leaf_label.is_none() && entry.is_none();
        let superseded =
            || EngineError::new(ErrorCode::Superseded, "a later open replaced this one");
        if ordered.is_empty() {
            return Err(EngineError::new(ErrorCode::NotASession, "no files to open"));
        }
        if ordered.len() > FileId::LIMIT {
            return Err(EngineError::new(
                ErrorCode::NotASession,
                format!(
                    "{} files given; one session holds at most {}",
                    ordered.len(),
                    FileId::LIMIT
                ),
            ));
        }
        let started = clock();
        let total: u64 = ordered.iter().map(|f| files.size(f.file)).sum();
        let mut base = 0;
        let mut reader = Reader::new();
        let mut last_report = f64::NEG_INFINITY;
        let mut waited_ms = 0.0;
        for order in &ordered {
            let (file, name) = (order.file, files.name(order.file));
            let id = reader.begin_file(&name);
            let size = files.size(file);
            // Room for the whole index in one step, once a sample shows its
            // density: growing it instead holds an old copy beside each new
            // one (a 1 GB Claude Code session peaked at 87 MiB of wasm
            // memory that way, 53 with the hint).
            reader.size_hint(size);
            let mut starts = (0..).map(|i| i * PIECE).take_while(|&at| at < size);
            let mut inflight = VecDeque::new();
            for at in starts.by_ref().take(READ_AHEAD) {
                inflight.push_back((at, files.fetch(file, at..(at + PIECE).min(size))));
            }
            while let Some((at, pending)) = inflight.pop_front() {
                let t = clock();
                let bytes = pending
                    .await
                    .map_err(|e| EngineError::unreadable(format!("{name}: {e}")))?;
                waited_ms += clock() - t;
                if let Some(next) = starts.next() {
                    inflight.push_back((next, files.fetch(file, next..(next + PIECE).min(size))));
                }
                // An image or a program given by mistake is said to be one,
                // not opened as an empty session (the core's rule, as the
                // CLI's).
                if at == 0 {
                    if let Some(what) = retrace_core::binary_kind(&bytes) {
                        return Err(EngineError::new(
                            ErrorCode::NotASession,
                            format!("{name} is {what}, not a session file"),
                        ));
                    }
                }
                if first_rows {
                    first_rows = false;
                    if let Some(first) = first_screen(files.pick(&[file]), &bytes) {
                        if !progress(Event::FirstRows(Box::new(first))) {
                            return Err(superseded());
                        }
                    }
                }
                reader.push(&bytes);
                let done = base + at + bytes.len() as u64;
                if clock() - last_report > PROGRESS_MS {
                    last_report = clock();
                    if !progress(Event::Progress(Progress { done, total })) {
                        return Err(superseded());
                    }
                }
            }
            base += size;
            if let Some(meta) = order.meta {
                let bytes = side_car(&mut files, meta)?;
                reader.attach_meta(id, &bytes);
            }
            // A tab cannot read a file's siblings: the side-car comes only
            // when given with its session.
            if let Some(car) = order.snapshots {
                let bytes = side_car(&mut files, car)?;
                reader.attach_snapshots(id, &files.name(car), &bytes);
            }
        }
        if !progress(Event::Progress(Progress { done: total, total })) {
            return Err(superseded());
        }
        let session = reader.finish();
        let open_ms = clock() - started;
        let picked: Vec<usize> = ordered.iter().map(|f| f.file).collect();
        let source = Inflated::new(SessionFiles(files.pick(&picked)), session.files());
        let rules = Arc::new(Rules::builtin());
        let mut open = Open::new(session, source, rules.clone());
        let mut summary = summarize(
            &open.session,
            &mut RedactingSource::new(&mut open.source, rules),
            leaf_label.as_deref(),
            entry.as_deref(),
        );
        summary.open_ms = open_ms;
        summary.read_ms = waited_ms;
        Ok(Indexed {
            open,
            summary,
            generation,
            folder,
        })
    }
}

/// The first screen of `file` (one file) whose first piece is `piece`:
/// its whole lines read as a session of their own, with the figures of a
/// summary (the rest of it, which costs body reads, comes with the whole
/// session), the rows of its default branch and the bodies of the first
/// [`FIRST_SCREEN`] of them, answered as an open session answers them
/// (from the file: the same code, not a copy of it for bytes in memory).
/// `None` for a gzipped file (its piece cannot be read alone) or a piece
/// with no branch (one JSON document, not lines, has none until its end).
fn first_screen<F: Files>(file: F, piece: &[u8]) -> Option<FirstRows> {
    let head = piece.get(..FIRST_BYTES.min(piece.len()))?;
    if head.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    let head = &head[..head.iter().rposition(|&b| b == b'\n')? + 1];
    let mut reader = Reader::new();
    reader.begin_file(&file.name(0));
    reader.push(head);
    let session = reader.finish();
    let leaf = session.tree().default_leaf()?.0;
    let summary = Summary {
        figures: retrace_core::Summary::new(&session),
        default_leaf: Some(leaf),
        ..Summary::default()
    };
    let source = Inflated::new(SessionFiles(file), session.files());
    let mut open = Open::new(session, source, Arc::new(Rules::builtin()));
    let branch = open.branch_rows(leaf).ok()?;
    let bodies = open.bodies(leaf, 0, FIRST_SCREEN).ok()?;
    Some(FirstRows {
        summary: Box::new(summary),
        branch: Box::new(branch),
        bodies,
    })
}

/// The whole of side-car `i` (a subagent's `.meta.json`, a
/// `.snapshots.json` of bookmarks).
fn side_car<F: Files>(files: &mut F, i: usize) -> Result<Vec<u8>, EngineError> {
    let size = files.size(i);
    files
        .read(i, 0..size)
        .map(|b| b.into_owned())
        .map_err(|e| EngineError::unreadable(format!("{}: {e}", files.name(i))))
}

/// What a session is, for the header, the details panel and the tree.
/// `leaf` and `entry` are the labels a deep link names.
pub fn summarize(
    s: &Session,
    source: &mut dyn Source,
    leaf: Option<&str>,
    entry: Option<&str>,
) -> Summary {
    let tree = s.tree();
    // A preview costs a body read; a big session has thousands of
    // segments, so only the first ones (and those on the default branch)
    // get one.
    let segments = s.outline();
    let outline = segments
        .iter()
        .enumerate()
        .map(|(i, seg)| SegmentInfo {
            first: seg.first.0,
            last: seg.last.0,
            first_label: s.label(seg.first),
            parent: seg.parent.map(|p| p as u32),
            depth: seg.depth,
            children: seg.children.iter().map(|&c| c as u32).collect(),
            len: seg.len as u32,
            side: seg.side as u32,
            compactions: seg.compactions as u32,
            is_tip: seg.is_tip,
            has_default: seg.has_default,
            tip: s.tip_of(seg).0,
            start: seg.start,
            end: seg.end,
            // A body that cannot be read has no preview; the rows say why.
            preview: (i < PREVIEWS || seg.has_default)
                .then(|| segment_preview(s, source, seg).ok().flatten())
                .flatten(),
            sidechain: s.is_sidechain(seg.first),
            file: u32::from(s.entry(seg.first).file.0),
        })
        .collect();
    let requested_entry = entry.and_then(|id| s.find(id)).map(|e| e.0);
    let requested_leaf = leaf
        .and_then(|id| s.find(id))
        .filter(|&e| tree.contains(e))
        .map(|e| e.0);
    Summary {
        figures: retrace_core::Summary::new(s),
        files: s
            .files()
            .iter()
            .enumerate()
            .map(|(i, f)| FileSummary {
                name: f.name.clone(),
                size: f.size,
                lines: f.lines,
                format: s.file_format(FileId(i as u16)).describe(),
            })
            .collect(),
        default_leaf: tree.default_leaf().map(|e| e.0),
        tips: tree.tips().iter().map(|e| e.0).collect(),
        outline,
        diagnostics: s
            .diagnostics()
            .iter()
            .take(DIAGNOSTICS_SENT)
            .cloned()
            .collect(),
        metadata: metadata(s, source),
        subagents: s
            .subagents()
            .iter()
            .map(|a| {
                let by = a.spawned_by.filter(|&e| tree.contains(e));
                SubagentInfo {
                    file: u32::from(a.file.0),
                    agent_id: a.agent_id.clone(),
                    spawned_by: a.spawned_by.map(|e| e.0),
                    description: s.files()[a.file.0 as usize]
                        .meta
                        .as_ref()
                        .and_then(|m| m.get("description"))
                        .and_then(|d| d.as_str())
                        .map(str::to_owned),
                    spawned_leaf: by.map(|e| leaf_through(s, e)),
                    spawned_file: by.map(|e| u32::from(s.entry(e).file.0)),
                    spawned_call: by.and_then(|e| answered_call(s, e, source)),
                }
            })
            .collect(),
        bookmarked: s.bookmarks().iter().map(|b| b.entry.0).collect(),
        bookmark_names: s.bookmarks().iter().map(|b| b.name.clone()).collect(),
        requested_leaf,
        requested_entry,
        open_ms: 0.0,
        read_ms: 0.0,
        memory: memory_bytes(),
    }
}

/// A leaf whose branch holds `e`: `e` followed along the tree's
/// continuations.
fn leaf_through(s: &Session, e: EntryId) -> u32 {
    let mut leaf = e;
    while let Some(next) = s.tree().continuation(leaf) {
        leaf = next;
    }
    leaf.0
}

/// The id of the call the result on `e` answers (one body read).
fn answered_call(s: &Session, e: EntryId, source: &mut dyn Source) -> Option<String> {
    let message = s.message(e, source).ok()??;
    let (id, _) = message.tool_results().next()?;
    Some(id.to_owned())
}

/// The size of this module's wasm memory.
fn memory_bytes() -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        core::arch::wasm32::memory_size(0) as u64 * 65536
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0
    }
}

/// Session facts from the first entries' top-level fields (a pi header, a
/// Claude Code line, a Codex `session_meta` payload): the first value of
/// each known key.
fn metadata(s: &Session, source: &mut dyn Source) -> Vec<(String, String)> {
    const KEYS: [(&str, &str); 10] = [
        ("sessionId", "session"),
        ("id", "session"),
        ("cwd", "directory"),
        ("version", "agent version"),
        ("cli_version", "agent version"),
        ("gitBranch", "git branch"),
        ("originator", "client"),
        ("model_provider", "provider"),
        ("provider", "provider"),
        ("modelId", "model"),
    ];
    let mut out: Vec<(String, String)> = Vec::new();
    for i in 0..s.entries().len().min(20) {
        let Ok(Ok(value)) = s.body(EntryId(i as u32), source) else {
            continue;
        };
        // Codex puts its metadata one level down.
        let objects = [Some(&value), value.get("payload")];
        for object in objects.into_iter().flatten() {
            for (key, name) in KEYS {
                // pi's `id` names the session only on its header.
                if key == "id" && object.get("type").and_then(|t| t.as_str()) != Some("session") {
                    continue;
                }
                let text = match object.get(key) {
                    Some(serde_json::Value::String(t)) if !t.is_empty() => t.clone(),
                    Some(serde_json::Value::Number(n)) if key == "version" => n.to_string(),
                    _ => continue,
                };
                if !out.iter().any(|(n, _)| n == name) {
                    out.push((name.to_owned(), shorten(&text, 120)));
                }
            }
        }
    }
    out
}
