//! The viewer app: panels around one shared [`Viewer`] state.

mod compare;
mod conversation;
mod crumbs;
mod details;
mod edit;
mod embedded;
mod folder;
mod frame;
mod harness;
mod history;
mod keys;
mod loading;
mod player;
mod prefs;
mod row;
mod save;
mod share;
mod tool;
mod search;
mod served;
mod subagent;
pub(crate) mod sensitive;
pub(crate) mod time;
mod tree;

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use leptos::prelude::*;
use retrace_core::{Diagnostic, Marks, Preview, Replay, ReplayEvent, ReplayOptions, Step};

use crate::state::{Spot, Window};
use retrace_wasm::js::client;
use retrace_wasm::protocol::{
    Bodies, BranchRows, Comparison, EngineError, ErrorCode, Event, FirstRows, Hit, Incoming,
    Request, Response, RowBody, Rows, ScanReport, SearchFilter, Stats, Summary,
};

/// Everything the panels share. Signals are `Copy`; components take what
/// they need from the context.
#[derive(Clone, Copy)]
pub struct Viewer {
    pub summary: RwSignal<Option<Summary>>,
    /// Bytes read of the files being opened.
    pub progress: RwSignal<Option<(u64, u64)>>,
    pub failure: RwSignal<Option<String>>,
    /// The leaf of the branch shown.
    pub leaf: RwSignal<Option<u32>>,
    /// The rows of that branch, once the worker sent them.
    pub rows: RwSignal<Rows>,
    /// The leaf's id as links write it.
    pub leaf_label: RwSignal<String>,
    /// Bodies of rows on screen, by row index: shared, so each row's memo
    /// of its own takes and compares a pointer, not a message, whenever a
    /// batch for other rows comes.
    pub bodies: RwSignal<HashMap<usize, Arc<RowBody>>>,
    /// How many rows the replay shows.
    pub position: RwSignal<usize>,
    pub playing: RwSignal<bool>,
    pub options: RwSignal<ReplayOptions>,
    /// The rows rendered.
    pub window: RwSignal<Window>,
    /// The row a link points at (highlighted, kept in the URL).
    pub focus: RwSignal<Option<usize>>,
    /// The deep check's totals and the first problems it found.
    pub stats: RwSignal<Option<(Stats, Vec<Diagnostic>)>>,
    /// Tree segment previews that came after the summary.
    pub previews: RwSignal<HashMap<u32, Preview>>,
    /// Bodies shown with sensitive data hidden (the default).
    pub hide_sensitive: RwSignal<bool>,
    /// The background scan for sensitive data, findings accumulated.
    pub scan: RwSignal<Option<ScanReport>>,
    /// A redacted download being written: (file, done, total).
    pub download: RwSignal<Option<(u32, u64, u64)>>,
    /// Where the branch shown can be forked and its unpaired calls.
    pub edit: RwSignal<Option<edit::Points>>,
    /// The last fork or seal saved: its file name and the core's notes.
    pub edited: RwSignal<Option<(String, Vec<String>)>>,
    /// Images asked for, by (row, image), as `data:` URLs.
    pub images: RwSignal<HashMap<(usize, usize), String>>,
    pub stats_pending: RwSignal<bool>,
    /// Totals were asked for (automatically or by the button).
    pub stats_asked: RwSignal<bool>,
    pub hits: RwSignal<Option<(String, Vec<Hit>, bool)>>,
    pub filter: RwSignal<SearchFilter>,
    /// Show hook, progress and other non-message lines.
    pub show_events: RwSignal<bool>,
    pub hide_abandoned: RwSignal<bool>,
    /// A dropped folder's sessions, when it holds several.
    pub folder: folder::FolderView,
    /// Where a deep link points, until the rows it needs arrive.
    pending: RwSignal<Option<Pending>>,
    /// The side panel open as a drawer (narrow screens).
    pub drawer: RwSignal<Option<frame::Drawer>>,
    /// Times in UTC rather than the reader's zone.
    pub utc: RwSignal<bool>,
    /// Counts jumps to a row, so the conversation scrolls to the focused
    /// row again even when it is the same row.
    pub jumps: RwSignal<u32>,
    /// Two branches (or a compaction) compared, shown instead of the
    /// conversation.
    pub compare: RwSignal<Option<Comparison>>,
}

#[derive(Clone, Copy, PartialEq)]
struct Pending {
    entry: u32,
    replay: bool,
}

thread_local! {
    /// The replay engine of the branch shown (not reactive: `sync` copies
    /// what the panels need into signals).
    pub(crate) static REPLAY: RefCell<Replay> = RefCell::new(Replay::new(Vec::new(), ReplayOptions::default()));
    /// Row bodies asked for and not yet received, with the leaf asked for.
    static REQUESTED: RefCell<(Option<u32>, HashSet<usize>)> = RefCell::new((None, HashSet::new()));
    static TIMER: RefCell<Option<TimeoutHandle>> = const { RefCell::new(None) };
}

/// The engine's worker script (`crates/retrace-wasm/js/worker.js`, copied
/// by trunk under this fixed name): it starts this same module.
const WORKER_SCRIPT: &str = "./worker.js";

/// Sessions up to this size get their token totals without asking.
pub const AUTO_STATS_BYTES: u64 = 64 << 20;

fn summary_size(v: &Viewer) -> u64 {
    v.summary.with_untracked(|s| {
        s.as_ref()
            .map_or(0, |s| s.files.iter().map(|f| f.size).sum())
    })
}

/// Rows per body request.
const BODY_BATCH: usize = 12;

pub fn viewer() -> Viewer {
    expect_context::<Viewer>()
}

/// Milliseconds of the page's monotonic clock.
pub fn now() -> u64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0, |p| p.now() as u64)
}

impl Viewer {
    fn new() -> Viewer {
        Viewer {
            summary: RwSignal::new(None),
            progress: RwSignal::new(None),
            failure: RwSignal::new(None),
            leaf: RwSignal::new(None),
            rows: RwSignal::new(Rows::default()),
            leaf_label: RwSignal::new(String::new()),
            bodies: RwSignal::new(HashMap::new()),
            position: RwSignal::new(0),
            playing: RwSignal::new(false),
            options: RwSignal::new(ReplayOptions::default()),
            window: RwSignal::new(Window::default()),
            focus: RwSignal::new(None),
            stats: RwSignal::new(None),
            previews: RwSignal::new(HashMap::new()),
            hide_sensitive: RwSignal::new(true),
            scan: RwSignal::new(None),
            download: RwSignal::new(None),
            edit: RwSignal::new(None),
            edited: RwSignal::new(None),
            images: RwSignal::new(HashMap::new()),
            stats_pending: RwSignal::new(false),
            stats_asked: RwSignal::new(false),
            hits: RwSignal::new(None),
            filter: RwSignal::new(SearchFilter::default()),
            show_events: RwSignal::new(true),
            hide_abandoned: RwSignal::new(false),
            folder: folder::FolderView::new(),
            pending: RwSignal::new(None),
            drawer: RwSignal::new(None),
            utc: RwSignal::new(false),
            jumps: RwSignal::new(0),
            compare: RwSignal::new(None),
        }
    }

    /// Opens files (a session and its side files) in the worker.
    pub fn open(self, files: Vec<web_sys::File>) {
        if files.is_empty() {
            return;
        }
        let total = files.iter().map(|f| f.size() as u64).sum();
        self.open_list(files.iter().collect(), total, None);
    }

    /// Opens the files of `list` (`File`s, or a served session's
    /// `{session: ID}`) at the link's spot, or, read again as it grew, at
    /// `again` (a leaf and an entry) with what is shown kept meanwhile.
    pub fn open_list(self, list: js_sys::Array, total: u64, again: Option<Spot>) {
        self.folder.close();
        let first_rows = again.is_none();
        let spot = again.unwrap_or_else(|| self.begin(total));
        client::send_list(
            &Request::Open {
                leaf_label: spot.leaf,
                entry: spot.entry,
                // Read again as it grew, the old rows stay until it is.
                first_rows,
            },
            list,
        );
        PENDING_SPOT.with(|p| *p.borrow_mut() = Some(spot.replay));
    }

    /// Clears the session shown before another is opened (`total` bytes),
    /// and gives the place the page's link points at.
    fn begin(self, total: u64) -> Spot {
        let spot = Spot::parse(&location_hash());
        compare::expect(&spot);
        self.summary.set(None);
        self.previews.set(HashMap::new());
        self.scan.set(None);
        self.download.set(None);
        share::abandon();
        self.edited.set(None);
        self.failure.set(None);
        self.stats.set(None);
        self.stats_asked.set(false);
        self.hits.set(None);
        self.rows.set(Rows::default());
        self.leaf.set(None);
        self.progress.set(Some((0, total)));
        self.pending.set(None);
        PENDING_SPOT.with(|p| *p.borrow_mut() = None);
        // First rows of an open this one replaces are no longer shown.
        FIRST_ROWS.set(false);
        AFTER_FIRST_ROWS.set(false);
        spot
    }

    /// Shows the branch ending at `leaf`.
    pub fn select_leaf(self, leaf: u32) {
        if self.leaf.get_untracked() == Some(leaf) {
            return;
        }
        self.leaf.set(Some(leaf));
        self.compare.set(None);
        self.window.set(Window::default());
        self.rows.set(Rows::default());
        self.bodies.set(HashMap::new());
        self.ask_branch(leaf);
    }

    /// Asks for the rows of the branch ending at `leaf`, the one shown
    /// (its rows and bodies so far stay until they come).
    fn ask_branch(self, leaf: u32) {
        self.leaf.set(Some(leaf));
        self.images.set(HashMap::new());
        self.edit.set(None);
        self.focus.set(None);
        REQUESTED.with(|r| *r.borrow_mut() = (Some(leaf), HashSet::new()));
        REPLAY.with(|r| r.borrow_mut().pause());
        sync_replay(self);
        // The hash is written when the rows come (it names the leaf by the
        // id they carry).
        client::send(&Request::Branch { leaf }, &[]);
    }

    /// Focuses row `row` (scrolls it into view and keeps it in the URL).
    pub fn focus_row(self, row: usize) {
        let shown = self.position.get_untracked();
        if row >= shown {
            self.seek(row + 1);
        }
        let window = self.window.get_untracked();
        if !window.contains(row) {
            self.window
                .set(Window::around(row, self.position.get_untracked()));
            self.request_bodies();
        }
        self.focus.set(Some(row));
        self.jumps.update(|j| *j += 1);
        self.write_hash();
    }

    /// Shows bodies with sensitive data hidden or as written: the worker
    /// is told, and the bodies on screen are asked for again.
    pub fn set_hide_sensitive(self, hide: bool) {
        self.hide_sensitive.set(hide);
        client::send(&Request::HideSensitive { hide }, &[]);
        self.reload_bodies();
    }

    /// Asks again for the bodies on screen: they read differently now.
    pub fn reload_bodies(self) {
        REQUESTED.with(|r| r.borrow_mut().1.clear());
        self.bodies.set(HashMap::new());
        self.request_bodies();
    }

    /// Shows entry `entry`, switching to the branch ending at `leaf` when it
    /// is not on the one shown.
    pub fn go_to_entry(self, leaf: u32, entry: u32) {
        let here = self.rows.with_untracked(|rows| rows.row_of(entry));
        match here {
            Some(row) => self.focus_row(row),
            None => {
                self.pending.set(Some(Pending {
                    entry,
                    replay: false,
                }));
                self.select_leaf(leaf);
            }
        }
    }

    /// Asks for the bodies of rendered rows the page does not have yet.
    pub fn request_bodies(self) {
        self.ask_bodies(false);
    }

    /// Asks for the bodies of rendered rows not asked for yet, and, with
    /// `again`, those it has (read from the first rows, before the whole
    /// session was: the answers replace them).
    fn ask_bodies(self, again: bool) {
        let Some(leaf) = self.leaf.get_untracked() else {
            return;
        };
        if self.rows.with_untracked(|r| r.is_empty()) {
            return;
        }
        let window = self.window.get_untracked();
        let missing: Vec<usize> = self.bodies.with_untracked(|bodies| {
            REQUESTED.with(|r| {
                let r = r.borrow();
                (window.start..window.end)
                    .filter(|i| (again || !bodies.contains_key(i)) && !r.1.contains(i))
                    .collect()
            })
        });
        // One request per run of missing rows, at most BODY_BATCH rows
        // each: every response is rendered in its own task, so the page
        // keeps answering while a screenful of long messages comes in.
        let mut i = 0;
        while i < missing.len() {
            let start = missing[i];
            let mut end = start + 1;
            while i + 1 < missing.len() && missing[i + 1] == end && end - start < BODY_BATCH {
                i += 1;
                end += 1;
            }
            i += 1;
            REQUESTED.with(|r| r.borrow_mut().1.extend(start..end));
            client::send(
                &Request::Bodies {
                    leaf,
                    start: start as u32,
                    end: end as u32,
                },
                &[],
            );
        }
    }

    /// Runs a replay command with the current time, then mirrors the
    /// engine into signals and sets the timer.
    pub fn replay(self, f: impl FnOnce(&mut Replay, u64)) {
        REPLAY.with(|r| f(&mut r.borrow_mut(), now()));
        sync_replay(self);
    }

    pub fn seek(self, position: usize) {
        self.replay(|r, now| r.seek(position, now));
    }

    /// Writes `#leaf=…&entry=…` for the branch and the focused row.
    pub fn write_hash(self) {
        let position = self.position.get_untracked();
        let replaying = position < self.rows.with_untracked(Rows::len);
        let row = if replaying {
            position.checked_sub(1)
        } else {
            self.focus.get_untracked()
        };
        let Some(leaf) = self.leaf.get_untracked() else {
            return;
        };
        let (entry, label, line) = self.rows.with_untracked(|r| match row {
            Some(i) if i < r.len() => (Some(r.entry[i]), Some(r.label[i].clone()), Some(r.line[i])),
            _ => (None, None, None),
        });
        let mut spot = Spot {
            leaf: Some(self.leaf_label.get_untracked()).filter(|l| !l.is_empty()),
            entry: label,
            replay: replaying,
            line,
            ..Spot::default()
        };
        compare::mark(self, &mut spot);
        history::write(&spot.format(), leaf, entry);
    }
}

thread_local! {
    /// Whether the rows shown are an open's first rows, read from its
    /// first piece while the rest is (its summary replaces them).
    static FIRST_ROWS: Cell<bool> = const { Cell::new(false) };
    /// Whether the branch asked for replaces first rows shown.
    static AFTER_FIRST_ROWS: Cell<bool> = const { Cell::new(false) };
    /// Whether the deep link being opened stood in a replay.
    static PENDING_SPOT: RefCell<Option<bool>> = const { RefCell::new(None) };
}

fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Copies the engine's state into signals and (re)arms the timer.
fn sync_replay(v: Viewer) {
    let (position, playing, due, moved) = REPLAY.with(|r| {
        let mut r = r.borrow_mut();
        let mut moved = false;
        while let Some(e) = r.poll_event() {
            moved |= matches!(e, ReplayEvent::Moved { .. });
        }
        (r.position(), r.is_playing(), r.poll_timeout(), moved)
    });
    let was_at_end = {
        let w = v.window.get_untracked();
        w.end >= v.position.get_untracked()
    };
    let was = (v.position.get_untracked(), v.playing.get_untracked());
    v.position.set(position);
    v.playing.set(playing);
    frame::announce_position(was, (position, playing), v.rows.with_untracked(Rows::len));
    if moved {
        v.window
            .update(|w| *w = w.follow(position, was_at_end || playing));
        if playing || position < v.rows.with_untracked(Rows::len) {
            v.focus.set(position.checked_sub(1));
        }
        v.request_bodies();
        v.write_hash();
    }
    TIMER.with(|t| {
        if let Some(handle) = t.borrow_mut().take() {
            handle.clear();
        }
        if let Some(due) = due {
            let wait = due.saturating_sub(now());
            let handle = set_timeout_with_handle(
                move || {
                    REPLAY.with(|r| r.borrow_mut().handle_timeout(now()));
                    sync_replay(v);
                },
                std::time::Duration::from_millis(wait),
            );
            *t.borrow_mut() = handle.ok();
        }
    });
}

/// Applies one message from the engine: an answer (with the `Blob` of a
/// file it made) or an event.
fn on_message(v: Viewer, incoming: Incoming, file: Option<web_sys::Blob>) {
    match incoming {
        Incoming::Reply { result: Ok(r), .. } => on_response(v, r, file),
        // A drop replaced by a later one: that one's answer comes.
        Incoming::Reply { result: Err(e), .. } if e.code == ErrorCode::Superseded => {}
        Incoming::Reply { result: Err(e), .. } => on_failure(v, e),
        Incoming::Event(e) => on_event(v, e),
    }
}

fn on_failure(v: Viewer, e: EngineError) {
    share::abandon();
    v.progress.set(None);
    v.download.set(None);
    v.failure.set(Some(e.message));
}

/// Applies one event of the engine's background work.
fn on_event(v: Viewer, event: Event) {
    match event {
        Event::Ready => {}
        Event::FirstRows(first) => on_first_rows(v, *first),
        Event::Progress(p) => {
            frame::announce_progress(v.progress.get_untracked(), p.done, p.total);
            v.progress.set(Some((p.done, p.total)));
        }
        Event::Scan(scan) => v.scan.update(|s| match s {
            Some(old) => {
                old.done = scan.done;
                old.total = scan.total;
                old.finished = scan.finished;
                old.counts = scan.counts;
                old.findings.extend(scan.findings);
            }
            None => *s = Some(scan),
        }),
        Event::DownloadProgress(d) => v.download.set(Some((d.file, d.done, d.total))),
        Event::Listed(batch) => v.folder.fill(batch.listed),
        Event::Failed(e) => on_failure(v, e),
    }
}

/// Shows the first rows of a file being opened, as its branch would be
/// shown: the worker holds the requests they lead to until the session is
/// read, then answers them from it.
fn on_first_rows(v: Viewer, first: FirstRows) {
    // Only while an open waits for its summary: a session read again as
    // it grew stays shown meanwhile.
    if v.summary.with_untracked(Option::is_some) || v.progress.with_untracked(Option::is_none) {
        return;
    }
    let FirstRows {
        summary,
        branch,
        bodies,
    } = first;
    FIRST_ROWS.set(true);
    // What a branch shown before (another session's) left.
    v.bodies.set(HashMap::new());
    v.images.set(HashMap::new());
    v.focus.set(None);
    v.edit.set(None);
    v.compare.set(None);
    v.summary.set(Some(*summary));
    REQUESTED.with(|r| *r.borrow_mut() = (Some(branch.leaf), HashSet::new()));
    v.leaf.set(Some(branch.leaf));
    // Bodies first: the rows then ask for none of them.
    on_response(v, Response::Bodies(bodies), None);
    on_response(v, Response::Branch(branch), None);
}

/// Shows a session just read.
fn on_opened(v: Viewer, summary: Box<Summary>) {
    v.progress.set(None);
    let after_first_rows = FIRST_ROWS.replace(false);
    let replay = PENDING_SPOT
        .with(|p| p.borrow_mut().take())
        .unwrap_or(false);
    if let Some(entry) = summary.requested_entry {
        v.pending.set(Some(Pending { entry, replay }));
    }
    let leaf = summary
        .requested_leaf
        .or(summary.default_leaf)
        .or_else(|| summary.tips.last().copied());
    frame::announce(&format!(
        "Opened {}: {} entries",
        summary.files.first().map_or("", |f| f.name.as_str()),
        crate::state::count(summary.figures.entries as u64)
    ));
    v.summary.set(Some(*summary));
    match leaf {
        Some(leaf) if after_first_rows => {
            AFTER_FIRST_ROWS.set(true);
            v.ask_branch(leaf);
        }
        Some(leaf) => {
            v.leaf.set(None);
            v.select_leaf(leaf)
        }
        None => {
            v.rows.set(Rows::default());
            v.replay(|r, _| *r = Replay::new(Vec::new(), v.options.get_untracked()));
        }
    }
    // Token totals parse every body: after the first rows for a
    // small session; on request for a big one, where it takes the
    // worker seconds during which nothing else would be answered.
    let size: u64 = summary_size(&v);
    v.stats_pending.set(size <= AUTO_STATS_BYTES);
}

/// Applies one answer of the engine.
fn on_response(v: Viewer, response: Response, file: Option<web_sys::Blob>) {
    match response {
        Response::Done => {}
        Response::Opened(summary) => on_opened(v, summary),
        Response::Folder(folder) => match folder.summary {
            // A folder of one session: it is open.
            Some(summary) => on_opened(v, summary),
            None => {
                v.progress.set(None);
                v.folder.show(folder.sessions);
            }
        },
        Response::Branch(branch) => {
            let BranchRows {
                leaf,
                leaf_label,
                rows,
            } = *branch;
            if v.leaf.get_untracked() != Some(leaf) {
                return;
            }
            v.leaf_label.set(leaf_label);
            let steps: Vec<Step> = (0..rows.len())
                .map(|i| Step {
                    time: rows.time[i],
                    marks: rows.marks(i),
                })
                .collect();
            let len = rows.len();
            let options = v.options.get_untracked();
            REPLAY.with(|r| *r.borrow_mut() = Replay::new(steps, options));
            v.rows.set(rows);
            v.position.set(len);
            let pending = v.pending.get_untracked();
            v.pending.set(None);
            let target = pending.and_then(|p| {
                v.rows
                    .with_untracked(|rows| rows.row_of(p.entry))
                    .map(|row| (row, p.replay))
            });
            match target {
                Some((row, true)) => {
                    v.seek(row + 1);
                    v.window.set(Window::around(row, row + 1));
                    v.focus.set(Some(row));
                }
                Some((row, false)) => {
                    v.window.set(Window::around(row, len));
                    v.focus.set(Some(row));
                    // A new landing, even where an earlier visit landed.
                    v.jumps.update(|j| *j += 1);
                }
                None => v.window.set(Window::around(0, len)),
            }
            compare::resume(v);
            sync_replay(v);
            v.ask_bodies(AFTER_FIRST_ROWS.replace(false));
            // Fork points and unpaired calls read every body of the
            // branch: asked for at once only for a session small enough
            // (known once it is read).
            if summary_size(&v) <= AUTO_STATS_BYTES && !FIRST_ROWS.get() {
                client::send(&Request::EditPoints { leaf }, &[]);
            }
            if v.stats_pending.get_untracked() {
                v.stats_pending.set(false);
                v.stats_asked.set(true);
                client::send(&Request::Stats, &[]);
            }
            v.write_hash();
        }
        Response::Bodies(Bodies {
            leaf,
            start,
            items,
            revealed,
        }) => {
            if v.leaf.get_untracked() != Some(leaf) {
                return;
            }
            sensitive::note_revealed(revealed);
            let start = start as usize;
            REQUESTED.with(|r| {
                let mut r = r.borrow_mut();
                for i in start..start + items.len() {
                    r.1.remove(&i);
                }
            });
            // The scan for sensitive data starts after the first paint (the
            // worker would read the files for it before the bodies).
            if v.scan.with_untracked(Option::is_none) {
                v.scan.set(Some(ScanReport::default()));
                client::send(&Request::Scan, &[]);
            }
            v.bodies.update(|b| {
                // Keep memory flat on long branches: forget far rows.
                if b.len() > 4 * crate::state::WINDOW {
                    let w = v.window.get_untracked();
                    b.retain(|&i, _| {
                        i + 2 * crate::state::WINDOW >= w.start
                            && i < w.end + 2 * crate::state::WINDOW
                    });
                }
                for (i, item) in items.into_iter().enumerate() {
                    b.insert(start + i, Arc::new(item));
                }
            });
            search::highlight_later(v);
        }
        Response::SearchResults(found) => {
            sensitive::note_revealed(found.revealed);
            frame::announce(&frame::count_text(
                &found.query,
                found.hits.len(),
                found.truncated,
            ));
            v.hits.set(Some((found.query, found.hits, found.truncated)));
            search::highlight_later(v);
        }
        Response::Stats(s) => v.stats.set(Some((s.stats, s.diagnostics))),
        Response::Image(image) => {
            if v.leaf.get_untracked() == Some(image.leaf) {
                v.images.update(|m| {
                    drop(m.insert((image.row as usize, image.image as usize), image.url))
                });
            }
        }
        Response::Previews(p) => {
            sensitive::note_revealed(p.revealed);
            v.previews.update(|m| m.extend(p.previews));
        }
        Response::File(made) => {
            if let Some(file) = file {
                if share::take(v, &file) {
                    return;
                }
                save::save(&file, &made.name);
            }
            v.download.set(None);
            if !made.notes.is_empty() {
                v.edited.set(Some((made.name, made.notes)));
            }
        }
        Response::Comparison(c) => compare::show(v, *c),
        Response::EditPoints(p) => {
            if v.leaf.get_untracked() == Some(p.leaf) {
                v.edit.set(Some(edit::Points {
                    leaf: p.leaf,
                    rows: p.rows,
                    open: p.open,
                }));
            }
        }
    }
}

/// Keyboard: space plays or pauses, ←/→ step, Home/End go to the start
/// or the end, j/k jump between prompts, `/` searches, `?` lists the keys,
/// Escape closes what is open.
fn on_key(v: Viewer, ev: web_sys::KeyboardEvent) {
    // The tree's arrow keys (and any other widget's) were handled there.
    if ev.default_prevented() {
        return;
    }
    if ev.key() == "Escape" {
        // One thing at a time: the drawer, the comparison, then the search
        // results.
        if frame::close_drawer(v) {
            ev.prevent_default();
        } else if v.compare.with_untracked(Option::is_some) {
            compare::close(v);
            ev.prevent_default();
        } else if v.hits.with_untracked(Option::is_some) {
            search::clear(v);
            ev.prevent_default();
        }
        return;
    }
    let typing = ev
        .target()
        .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
    if typing || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
        return;
    }
    match ev.key().as_str() {
        "?" => keys::open(),
        "/" if v.summary.with_untracked(Option::is_some) => frame::focus_later("search"),
        _ if v.rows.with_untracked(Rows::is_empty) => return,
        " " => v.replay(|r, now| r.toggle(now)),
        "ArrowRight" => v.replay(|r, _| r.step_forward()),
        "ArrowLeft" => v.replay(|r, _| r.step_back()),
        "Home" => v.seek(0),
        "End" => v.seek(v.rows.with_untracked(Rows::len)),
        "j" | "k" => {
            let from = v.focus.get_untracked().unwrap_or(0);
            let target = REPLAY.with(|r| {
                let r = r.borrow();
                if ev.key() == "j" {
                    r.next_marked(from, Marks::PROMPT)
                } else {
                    r.previous_marked(from, Marks::PROMPT)
                }
            });
            if let Some(row) = target {
                history::push_next();
                v.focus_row(row);
            }
        }
        _ => return,
    }
    ev.prevent_default();
}

#[component]
pub fn App() -> impl IntoView {
    let v = Viewer::new();
    provide_context(v);
    prefs::restore(v);
    // A page holding its session started its worker itself.
    let script = embedded::get("worker").unwrap_or_else(|| WORKER_SCRIPT.into());
    let started = client::start(&script, move |m, file| on_message(v, m, file));
    if let Err(e) = started {
        v.failure.set(Some(e));
    }
    let keys = window_event_listener(leptos::ev::keydown, move |ev| on_key(v, ev));
    let back = history::listen(v);
    let clicks = frame::listen_clicks(v);
    let resize = frame::listen_resize(v);
    let copies = window_event_listener(leptos::ev::copy, crate::invisible::copy_originals);
    on_cleanup(move || {
        copies.remove();
        keys.remove();
        back.remove();
        clicks.remove();
        resize.remove();
    });
    frame::follow_drawer(v);
    history::show_return_hint();
    loading::load_from_query(v);
    served::open_from_query(v);
    let has_session = move || v.summary.with(Option::is_some);
    let listing = move || v.folder.shown.get();
    view! {
        <loading::DropZone>
            <header class="top">
                <h1 class="brand">"retrace"</h1>
                <loading::Picker/>
                <folder::FolderPicker/>
                <folder::BackToList/>
                <Show when=move || has_session() && !listing()>
                    <search::SearchBox/>
                    <sensitive::Toggle/>
                </Show>
                <loading::Status/>
                <frame::HeaderTools/>
            </header>
            <Show when=listing>
                <folder::FolderList/>
            </Show>
            <Show
                when=move || has_session() && !listing()
                fallback=move || (!listing()).then(|| view! { <loading::Welcome/> })
            >
                <main class="panes">
                    <tree::TreePanel/>
                    <section class="center">
                        <compare::CompareView/>
                        <search::Results/>
                        <crumbs::Crumbs/>
                        <subagent::Origin/>
                        <conversation::Conversation/>
                        <player::Player/>
                    </section>
                    <details::Details/>
                </main>
            </Show>
        </loading::DropZone>
    }
}
