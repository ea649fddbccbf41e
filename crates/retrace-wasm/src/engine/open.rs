//! The open session and what it answers: branches, bodies, search, stats,
//! images, previews, fork points, forks and seals, and the background work
//! on it (the scan for sensitive data, redacted copies).

use std::collections::VecDeque;
use std::sync::Arc;

use retrace_core::redact::{Mode, RedactingSource, Rules};
use retrace_core::{
    entry_ids, event_line, fork, open_calls, safe_points, seal, search, segment_preview, EditError,
    EntryId, FileId, Flags, ForkLineage, Inflated, Row, RowKind, RowPairing, SearchFilter, Session,
    Source, Stamp, Stats, SEARCH_LIMIT,
};

use super::files::{Files, SessionFiles};
use super::host::Host;
use super::revealed::{unmark_text, Revealed};
use super::sensitive::{download_name, edited_name, reviewed_rules, session_line, Download, Scan};
use crate::protocol::{
    Allow, Bodies, BranchRows, Comparison, DownloadProgress, EditPoints, EngineError, ErrorCode,
    Event, Image, Made, Previews, Response, RowBody, RowInfo, Rows, SearchResults, StatsReport,
};

/// Diagnostics sent with the summary and the stats; the rest are counted.
pub const DIAGNOSTICS_SENT: usize = 500;

/// The open session and the files its bytes live in.
pub struct Open<F: Files> {
    pub session: Session,
    /// Gzip inputs: entries' ranges are in the decompressed stream, read
    /// through the decoder checkpoints kept while indexing.
    pub source: Inflated<SessionFiles<F>>,
    /// The rows of the branch last asked for.
    branch: Option<(u32, Vec<Row>)>,
    /// Bodies, previews and snippets are shown with sensitive data hidden
    /// (the default) or as written.
    pub hide: bool,
    pub rules: Arc<Rules>,
    /// With data hidden, what the review marked "not a secret" shown as
    /// written, marked (`review`): the rules bodies are read with then.
    pub review: Option<Arc<Rules>>,
    /// Background work: the scan for sensitive data, redacted copies.
    scan: Option<Scan>,
    downloads: VecDeque<Download>,
}

/// An edit the core refused, said with what was asked.
fn edit_error(what: &str, e: EditError) -> EngineError {
    let code = match e {
        EditError::Source(_) => ErrorCode::Unreadable,
        EditError::Unsupported { .. } => ErrorCode::Unsupported,
        _ => ErrorCode::EditRefused,
    };
    EngineError::new(code, format!("{what}: {e}"))
}

impl<F: Files> Open<F> {
    /// Sensitive data hidden, no background work yet.
    pub fn new(session: Session, source: Inflated<SessionFiles<F>>, rules: Arc<Rules>) -> Open<F> {
        Open {
            session,
            source,
            branch: None,
            hide: true,
            rules,
            review: None,
            scan: None,
            downloads: VecDeque::new(),
        }
    }

    fn rows(&mut self, leaf: u32) -> Result<&[Row], EngineError> {
        if !self.session.tree().contains(EntryId(leaf)) {
            return Err(EngineError::not_found(format!(
                "entry {leaf} is not in the tree"
            )));
        }
        if self.branch.as_ref().map(|b| b.0) != Some(leaf) {
            let mut rows = self.session.rows(EntryId(leaf));
            // j/k and the scrubber's prompt marks skip what the harness
            // wrote (a `/clear`, a caveat): a body read per marked row
            // whose text opens like harness text. (Through `dyn Source`:
            // the reading code bodies use, not a copy of it for this
            // source.)
            let source: &mut dyn Source = &mut self.source;
            self.session.mark_typed_prompts(&mut rows, source)?;
            self.branch = Some((leaf, rows));
        }
        Ok(&self.branch.as_ref().expect("set above").1)
    }

    /// The rows of the branch ending at `leaf`, as columns.
    pub fn branch_rows(&mut self, leaf: u32) -> Result<BranchRows, EngineError> {
        let rows = self.rows(leaf)?.to_vec();
        let s = &self.session;
        let mut out = Rows::default();
        for r in &rows {
            out.push(row_info(s, r));
        }
        Ok(BranchRows {
            leaf,
            leaf_label: s.label(EntryId(leaf)),
            rows: out,
        })
    }

    /// The bodies of rows `start..end` of the branch ending at `leaf`
    /// (clamped to the branch), and with sensitive data shown, the values
    /// a redacted copy would take out of them.
    pub fn bodies(&mut self, leaf: u32, start: u32, end: u32) -> Result<Bodies, EngineError> {
        let rows = self.rows(leaf)?.to_vec();
        let end = (end as usize).min(rows.len());
        let start = (start as usize).min(end);
        let (items, revealed) = self.shown_revealing(|s, source| {
            (start..end)
                .map(|i| body(s, source, &rows, i))
                .collect::<Result<Vec<_>, _>>()
        });
        Ok(Bodies {
            leaf,
            start: start as u32,
            items: items?,
            revealed,
        })
    }

    /// Previews of outline segments `segments` (those out of range, or
    /// where nothing is said, have none).
    pub fn previews(&mut self, segments: &[u32]) -> Previews {
        let (previews, revealed) = self.shown_revealing(|s, source| {
            let outline = s.outline();
            segments
                .iter()
                .filter_map(|&i| {
                    let seg = outline.get(i as usize)?;
                    let preview = segment_preview(s, source, seg).ok()??;
                    Some((i, preview))
                })
                .collect()
        });
        Previews { previews, revealed }
    }

    /// The `image`th image of row `row`, as a `data:` URL.
    pub fn image(&mut self, leaf: u32, row: u32, image: u32) -> Result<Image, EngineError> {
        let entries = self
            .rows(leaf)?
            .get(row as usize)
            .ok_or_else(|| EngineError::not_found(format!("no row {row} on this branch")))?
            .entries
            .clone();
        let mut images = Vec::new();
        for e in entries {
            if let Ok(Ok(value)) = self.session.body(e, &mut self.source) {
                super::describe::images(&value, &mut images);
            }
        }
        match images.into_iter().nth(image as usize) {
            Some(Some(url)) => Ok(Image {
                leaf,
                row,
                image,
                url,
            }),
            Some(None) => Err(EngineError::new(
                ErrorCode::Unsupported,
                "this image is a link to elsewhere; it is not fetched",
            )),
            None => Err(EngineError::not_found(format!(
                "row {row} has no image {image}"
            ))),
        }
    }

    /// The session searched, its text as shown (see
    /// `retrace_core::search`).
    pub fn search(
        &mut self,
        query: &str,
        filter: SearchFilter,
    ) -> Result<SearchResults, EngineError> {
        // With a review, through its marks (the core's search reads
        // across them and keeps them paired in a cut snippet), which then
        // come out of the snippets, their values named beside.
        let mut found = self.shown(|s, source| search(s, source, query, filter, SEARCH_LIMIT))?;
        let mut revealed = Vec::new();
        for hit in &mut found.hits {
            unmark_text(&mut hit.snippet, &mut revealed);
        }
        Ok(SearchResults {
            query: query.to_owned(),
            hits: found.hits,
            truncated: found.truncated,
            revealed,
        })
    }

    /// Token totals and tool counts: every body parsed.
    pub fn stats(&mut self) -> Result<StatsReport, EngineError> {
        let check = self.session.check(&mut self.source)?;
        Ok(StatsReport {
            stats: Stats::new(&check),
            diagnostics: check
                .diagnostics
                .into_iter()
                .take(DIAGNOSTICS_SENT)
                .collect(),
        })
    }

    /// Starts the background scan for sensitive data (once).
    pub fn scan(&mut self) {
        if self.scan.is_none() {
            self.scan = Some(Scan::new());
        }
    }

    /// Queues a redacted copy of file `file`, answering request `ticket`
    /// when written.
    pub fn download(
        &mut self,
        ticket: u32,
        file: u32,
        mode: &str,
        disable: &[String],
        allow: &[Allow],
    ) -> Result<(), EngineError> {
        let mode = Mode::parse(mode).ok_or_else(|| {
            EngineError::bad_request(format!(
                "no redaction mode `{mode}` (typed, mask or pseudo)"
            ))
        })?;
        if file as usize >= self.session.files().len() {
            return Err(EngineError::not_found(format!("no file {file}")));
        }
        let rules = reviewed_rules(disable, allow)?;
        self.downloads
            .push_back(Download::new(ticket, file, mode, rules));
        Ok(())
    }

    /// The safe fork points of the branch ending at `leaf`, as row
    /// indices (its last row too: a leaf can always be forked), and its
    /// tool calls left without a result.
    pub fn edit_points(&mut self, leaf: u32) -> Result<EditPoints, EngineError> {
        let rows = self.rows(leaf)?.to_vec();
        let at = EntryId(leaf);
        let points = safe_points(&self.session, &mut self.source, at)
            .map_err(|e| edit_error("cannot find the fork points", e))?;
        let mut safe: Vec<u32> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.entries
                    .last()
                    .is_some_and(|e| points.iter().any(|p| p.entry == *e))
            })
            .map(|(i, _)| i as u32)
            .collect();
        if let Some(last) = rows.len().checked_sub(1) {
            if safe.last() != Some(&(last as u32)) {
                safe.push(last as u32);
            }
        }
        let open = open_calls(&self.session, &mut self.source, at)
            .map_err(|e| edit_error("cannot find the calls without a result", e))?
            .into_iter()
            .map(|c| format!("{} ({})", c.name, c.id))
            .collect();
        Ok(EditPoints {
            leaf,
            rows: safe,
            open,
        })
    }

    /// A new session forked at row `row` of the branch ending at `leaf`,
    /// with session id `id` and time `unix_ms`, named to be saved as
    /// `{id}.jsonl` for Claude Code (its file names the session),
    /// `{stem}.fork.jsonl` otherwise.
    pub fn fork(
        &mut self,
        leaf: u32,
        row: u32,
        id: &str,
        unix_ms: i64,
    ) -> Result<Made, EngineError> {
        let rows = self.rows(leaf)?;
        let last = rows.len().checked_sub(1);
        let at = match rows.get(row as usize) {
            _ if Some(row as usize) == last => EntryId(leaf),
            Some(r) => *r.entries.last().expect("a row has entries"),
            None => {
                return Err(EngineError::not_found(format!(
                    "no row {row} on this branch"
                )))
            }
        };
        let file = self.session.entry(at).file;
        let name = self.session.files()[file.0 as usize].name.clone();
        let lineage = ForkLineage {
            new_session_id: id.to_owned(),
            parent_path: Some(name.clone()),
            time_ms: unix_ms,
        };
        let edited = fork(&self.session, &mut self.source, at, &lineage)
            .map_err(|e| edit_error(&format!("cannot fork at {}", self.session.label(at)), e))?;
        let name = if self.session.file_format(file) == retrace_core::Format::ClaudeCode {
            format!("{id}.jsonl")
        } else {
            edited_name(&name, "fork")
        };
        Ok(made(name, edited))
    }

    /// The branch ending at `leaf` with each call left without a result
    /// answered (`{stem}.sealed.jsonl`), its new lines' ids made from
    /// `random` bytes as the CLI makes them, at time `unix_ms`.
    pub fn seal(
        &mut self,
        leaf: u32,
        random: impl FnMut() -> [u8; 16],
        unix_ms: i64,
    ) -> Result<Made, EngineError> {
        self.rows(leaf)?;
        let at = EntryId(leaf);
        let mut new_id = entry_ids(&self.session, None, random);
        let mut stamp = Stamp {
            time_ms: unix_ms,
            new_id: &mut new_id,
        };
        let edited = seal(&self.session, &mut self.source, at, &mut stamp, false)
            .map_err(|e| edit_error("cannot seal", e))?;
        let file = self.session.entry(at).file;
        let name = edited_name(&self.session.files()[file.0 as usize].name, "sealed");
        Ok(made(name, edited))
    }

    /// The branches ending at `left` and `right` side by side from their
    /// fork point (their rows aligned by the core), or, when `right` is a
    /// compaction on `left`'s branch, what it hid beside what replaced it;
    /// each row with its body, read as bodies are shown.
    pub fn compare(&mut self, left: u32, right: u32) -> Result<Comparison, EngineError> {
        let l = self.rows(left)?.to_vec();
        let (at, to) = (EntryId(left), EntryId(right));
        let source: &mut dyn Source = &mut self.source;
        let (c, r) = match self.session.compaction_hid(at, &l, to, source)? {
            Some(c) => (c, None),
            None => {
                let r = self.rows(right)?.to_vec();
                let source: &mut dyn Source = &mut self.source;
                (self.session.compare(at, &l, to, &r, source)?, Some(r))
            }
        };
        let compaction = r.is_none();
        // A compaction's sides are both rows of the branch.
        let r = r.as_ref().unwrap_or(&l);
        let mut out = Comparison {
            left,
            right,
            compaction,
            fork: c.fork.map(|e| e.0),
            more_left: c.more.0 as u32,
            more_right: c.more.1 as u32,
            ..Comparison::default()
        };
        // The last row both share, then the lines.
        let lines = c
            .common
            .checked_sub(1)
            .map(|last| (0, Some(last), None))
            .into_iter()
            .chain(c.pairs.iter().map(|p| (p.how as u8 + 1, p.left, p.right)));
        let (bodies, revealed) = self.shown_revealing(|s, source| {
            let mut bodies = Vec::new();
            for (kind, a, b) in lines {
                out.pairs.push(kind);
                for (rows, i) in [(&l, a), (r, b)] {
                    if let Some(i) = i {
                        out.rows.push(row_info(s, &rows[i]));
                        bodies.push(body(s, source, rows, i)?);
                    }
                }
            }
            Ok::<_, EngineError>(bodies)
        });
        out.bodies = bodies?;
        out.revealed = revealed;
        Ok(out)
    }

    /// Whether a redacted copy is being written.
    pub fn writing(&self) -> bool {
        !self.downloads.is_empty()
    }

    /// Whether background work is waiting (only a build with `share` has
    /// any: the scan and redacted copies are its kinds).
    pub fn busy(&self) -> bool {
        cfg!(feature = "share")
            && (!self.downloads.is_empty() || self.scan.as_ref().is_some_and(|s| !s.finished))
    }

    /// One slice of background work (downloads first: someone waits for
    /// them).
    pub fn tick(&mut self, host: &mut dyn Host) {
        if !cfg!(feature = "share") {
            return;
        }
        let Open {
            session,
            source,
            rules,
            scan,
            downloads,
            ..
        } = self;
        if let Some(job) = downloads.front_mut() {
            let mut out = Vec::new();
            let step = job.step(session, source, rules, &mut out);
            if !out.is_empty() {
                host.chunk(job.ticket, &out);
            }
            match step {
                Ok(false) => {
                    let (done, total) = job.progress(session);
                    host.event(Event::DownloadProgress(DownloadProgress {
                        file: job.file,
                        done,
                        total,
                    }));
                }
                Ok(true) => {
                    let job = downloads.pop_front().expect("front exists");
                    let name = download_name(&session.files()[job.file as usize].name);
                    host.reply(
                        job.ticket,
                        Ok(Response::File(Made {
                            name,
                            ..Made::default()
                        })),
                    );
                }
                Err(message) => {
                    let job = downloads.pop_front().expect("front exists");
                    host.reply(job.ticket, Err(EngineError::unreadable(message)));
                }
            }
        } else if let Some(job) = scan.as_mut().filter(|s| !s.finished) {
            match job.step(session, source, rules) {
                Ok(report) => host.event(Event::Scan(report)),
                Err(message) => {
                    // The scan stops where it is, and says why.
                    job.finished = true;
                    host.event(Event::Failed(EngineError::unreadable(message)));
                }
            }
        }
    }

    /// Gives up the background work, the session being replaced: each
    /// redacted copy waited for is answered that it will not come.
    pub fn abandon(&mut self, host: &mut dyn Host) {
        for job in self.downloads.drain(..) {
            host.reply(
                job.ticket,
                Err(EngineError::new(
                    ErrorCode::Superseded,
                    "another session was opened before this copy was written",
                )),
            );
        }
    }

    /// Runs `f` over the source bodies are shown from: with sensitive
    /// data hidden, redacted, what the review left in place marked
    /// (`REVEAL_OPEN` … `REVEAL_CLOSE`); shown, as written with each value
    /// a redacted copy would take out marked when `mark_shown`, else plain
    /// (a search then reads and cuts what the CLI reads and cuts).
    fn read_shown<R>(
        &mut self,
        mark_shown: bool,
        f: impl FnOnce(&Session, &mut dyn Source) -> R,
    ) -> R {
        let Open {
            session,
            source,
            hide,
            rules,
            review,
            ..
        } = self;
        // A review's single findings are named by their line, numbered
        // across files (`session_line`).
        let line_of = |file: FileId, at: u64| {
            let info = &session.files()[file.0 as usize];
            let own = &session.entries()[info.first_entry as usize..info.end_entry as usize];
            let i = own.binary_search_by_key(&at, |e| e.offset).ok()?;
            Some(session_line(u32::from(file.0), u64::from(own[i].line)))
        };
        // A review comes with `share` only.
        let review = review.as_ref().filter(|_| cfg!(feature = "share"));
        let mut shown = match (*hide, review) {
            (false, _) if !mark_shown => return f(session, source),
            (false, _) => RedactingSource::revealing(source, rules.clone()),
            (true, Some(review)) => RedactingSource::with_lines(source, review.clone(), &line_of),
            (true, None) => RedactingSource::new(source, rules.clone()),
        };
        f(session, &mut shown)
    }

    /// Runs `f` over the source search snippets are read from: as
    /// `read_shown`, sensitive data shown as written without marks.
    pub fn shown<R>(&mut self, f: impl FnOnce(&Session, &mut dyn Source) -> R) -> R {
        self.read_shown(false, f)
    }

    /// As `read_shown` with every mark, the marks taken out of what `f`
    /// read and the values they marked kept beside: what bodies and
    /// previews answer with.
    pub(super) fn shown_revealing<R>(
        &mut self,
        f: impl FnOnce(&Session, &mut dyn Source) -> R,
    ) -> (R, Vec<String>) {
        if self.hide && self.review.is_none() {
            // Nothing is marked.
            return (self.shown(f), Vec::new());
        }
        self.read_shown(true, |s, marked| {
            let mut source = Revealed::new(marked);
            let out = f(s, &mut source);
            (out, source.values)
        })
    }
}

/// A row as the page lists it (tool results named `tool` whatever the
/// format calls them).
fn row_info(s: &Session, r: &Row) -> RowInfo {
    let first = r.entries[0];
    let entry = s.entry(first);
    let role = if entry.flags.has(Flags::TOOL_RESULT) || r.role == "toolResult" {
        "tool".to_owned()
    } else {
        r.role.clone()
    };
    RowInfo {
        entry: first.0,
        count: r.entries.len() as u32,
        label: s.label(first),
        kind: r.kind,
        entry_type: r.entry_type.clone(),
        role,
        time: r.time,
        marks: r.marks,
        file: u32::from(entry.file.0),
        line: entry.line,
    }
}

/// Row `i` of `rows`: its message with how its calls and results pair with
/// the rows around it (one block per call on the page), or its event line.
fn body(
    s: &Session,
    source: &mut dyn Source,
    rows: &[Row],
    i: usize,
) -> Result<RowBody, EngineError> {
    let row = &rows[i];
    if row.kind == RowKind::Message {
        let message = s.row_message(row, source)?;
        if let Some(m) = &message {
            let pairing = s.row_pairing(rows, i, m, source)?;
            return Ok(RowBody {
                pairing: (pairing != RowPairing::default()).then_some(pairing),
                message,
                event: None,
                broken: false,
            });
        }
        // Not a message after all (undo bookkeeping, say): shown as an
        // event line below.
    }
    Ok(match s.body(row.entries[0], source)? {
        Ok(v) => RowBody {
            message: None,
            event: Some(event_line(&v)),
            broken: false,
            pairing: None,
        },
        Err(_) => RowBody {
            message: None,
            event: None,
            broken: true,
            pairing: None,
        },
    })
}

fn made(name: String, edited: retrace_core::Edited) -> Made {
    Made {
        name,
        notes: edited.notes.into_iter().map(|n| n.message).collect(),
        bytes: edited.bytes,
    }
}
