//! What the page and the worker say to each other.
//!
//! The worker owns the session: it reads the dropped files by `File.slice`,
//! keeps the index, and reads bodies by byte range when the page asks for
//! rows on screen. Messages travel as JSON strings; the files of an
//! [`Request::Open`] travel beside the JSON in the same `postMessage`.

use retrace_core::{Diagnostic, Listed, Marks, Message, Preview, RowKind, RowPairing};
use serde::{Deserialize, Serialize};
use serde_json::Value;

// Values the core computes for the CLI and the viewer alike cross as they
// are: no mirror types to drift.
pub use retrace_core::{Hit, SearchFilter, Stats};

/// From the page to the worker, written as `{"kind": …, fields…}` and read
/// with [`Request::from_json`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    /// Read the files sent along (one session: a main file and its side
    /// files). `leaf_label` and `entry` are labels to resolve (from a deep
    /// link).
    Open {
        leaf_label: Option<String>,
        entry: Option<String>,
    },
    /// The rows of the branch ending at `leaf`.
    Branch { leaf: u32 },
    /// The bodies of rows `start..end` of that branch.
    Bodies { leaf: u32, start: u32, end: u32 },
    /// Search the whole session.
    Search { query: String, filter: SearchFilter },
    /// Tokens per model and tool counts (parses every body).
    Stats,
    /// The `image`th image (in document order) of a row, to show it.
    Image { leaf: u32, row: u32, image: u32 },
    /// Previews of these tree segments (indices into the outline).
    Previews { segments: Vec<u32> },
    /// Show bodies (and search snippets) with sensitive data hidden or as
    /// written; applies to later requests.
    Sensitive { hide: bool },
    /// What the review marked "not a secret" (`disable`: kinds; `allow`:
    /// findings as file, kind, line, value hash in hex), shown as written
    /// and highlighted in bodies, previews and search snippets while the
    /// rest stays hidden; applies to later requests. Sent whenever the
    /// review changes; empty lists take the exceptions back.
    Review {
        disable: Vec<String>,
        allow: Vec<(u32, String, u64, String)>,
    },
    /// Scan the whole session for sensitive data in the background.
    Scan,
    /// The redacted bytes of one input file (`mask`, `typed`, `pseudo`), as
    /// `retrace redact --mode MODE` writes them; sent back as a `Blob`.
    /// `disable` (kinds) and `allow` (findings of this file: kind, line,
    /// value hash in hex) are what the review marked "not a secret": the
    /// bytes of `retrace redact --rules` with the file they export.
    Download {
        file: u32,
        mode: String,
        disable: Vec<String>,
        allow: Vec<(String, u64, String)>,
    },
    /// Where the branch ending at `leaf` can be forked and which of its
    /// tool calls have no result (`retrace_core::safe_points`,
    /// `open_calls`); answered by [`Response::EditPoints`].
    EditPoints { leaf: u32 },
    /// A new session forked at row `row` of the branch ending at `leaf`
    /// (`retrace_core::fork`); sent back as a `Blob` with its notes.
    Fork { leaf: u32, row: u32 },
    /// The branch ending at `leaf` with its unpaired calls sealed
    /// (`retrace_core::seal`); sent back as a `Blob` with its notes.
    Seal { leaf: u32 },
    /// A dropped or picked folder: the files sent along, `paths[i]` the
    /// path of the `i`th under the folder (`/` between folders). Split into
    /// sessions (`retrace_core::split_sessions`): one is opened
    /// ([`Response::Opened`]), several are listed ([`Response::Folder`],
    /// then [`Response::Listed`] as their titles are read).
    Folder { paths: Vec<String> },
    /// Open the `session`th session of the last folder's list.
    OpenListed { session: u32 },
}

impl Request {
    /// Reads what the page wrote. By hand rather than derived, as
    /// [`Response::from_json`]: serde's derive for an internally tagged
    /// enum buffers the request in a generic tree first, and its code was
    /// the largest function of the worker's wasm (growing with each kind).
    /// Here the request is read as a `serde_json::Value`, with the parser
    /// the worker reads every body with, and the kind picks its fields.
    pub fn from_json(text: &str) -> Result<Request, serde_json::Error> {
        use serde::de::Error;

        let v: Value = serde_json::from_slice(text.as_bytes())?;
        let kind = v
            .get("kind")
            .and_then(Value::as_str)
            .ok_or_else(|| serde_json::Error::custom("a request without a `kind`"))?;
        let fail = |field: &str| {
            serde_json::Error::custom(format!("a `{kind}` request without a valid `{field}`"))
        };
        let number = |field: &str| {
            v.get(field)
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| fail(field))
        };
        let text = |field: &str| {
            v.get(field)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| fail(field))
        };
        let flag = |field: &str, within: &Value| {
            within
                .get(field)
                .and_then(Value::as_bool)
                .ok_or_else(|| fail(field))
        };
        let label = |field: &str| v.get(field).and_then(Value::as_str).map(str::to_owned);
        let kinds = || {
            v.get("disable")
                .and_then(Value::as_array)
                .and_then(|a| a.iter().map(|k| k.as_str().map(str::to_owned)).collect())
                .ok_or_else(|| fail("disable"))
        };
        Ok(match kind {
            "open" => Request::Open {
                leaf_label: label("leaf_label"),
                entry: label("entry"),
            },
            "branch" => Request::Branch {
                leaf: number("leaf")?,
            },
            "bodies" => Request::Bodies {
                leaf: number("leaf")?,
                start: number("start")?,
                end: number("end")?,
            },
            "search" => {
                let filter = v.get("filter").ok_or_else(|| fail("filter"))?;
                Request::Search {
                    query: text("query")?,
                    filter: SearchFilter {
                        user: flag("user", filter)?,
                        assistant: flag("assistant", filter)?,
                        tool: flag("tool", filter)?,
                        events: flag("events", filter)?,
                    },
                }
            }
            "stats" => Request::Stats,
            "image" => Request::Image {
                leaf: number("leaf")?,
                row: number("row")?,
                image: number("image")?,
            },
            "previews" => Request::Previews {
                segments: v
                    .get("segments")
                    .and_then(Value::as_array)
                    .and_then(|a| {
                        a.iter()
                            .map(|n| n.as_u64().and_then(|n| u32::try_from(n).ok()))
                            .collect()
                    })
                    .ok_or_else(|| fail("segments"))?,
            },
            "sensitive" => Request::Sensitive {
                hide: flag("hide", &v)?,
            },
            "scan" => Request::Scan,
            "review" => Request::Review {
                disable: kinds()?,
                allow: v
                    .get("allow")
                    .and_then(Value::as_array)
                    .and_then(|a| {
                        a.iter()
                            .map(|f| {
                                let f = f.as_array()?;
                                Some((
                                    u32::try_from(f.first()?.as_u64()?).ok()?,
                                    f.get(1)?.as_str()?.to_owned(),
                                    f.get(2)?.as_u64()?,
                                    f.get(3)?.as_str()?.to_owned(),
                                ))
                            })
                            .collect()
                    })
                    .ok_or_else(|| fail("allow"))?,
            },
            "download" => Request::Download {
                file: number("file")?,
                mode: text("mode")?,
                disable: kinds()?,
                allow: v
                    .get("allow")
                    .and_then(Value::as_array)
                    .and_then(|a| {
                        a.iter()
                            .map(|f| {
                                let f = f.as_array()?;
                                Some((
                                    f.first()?.as_str()?.to_owned(),
                                    f.get(1)?.as_u64()?,
                                    f.get(2)?.as_str()?.to_owned(),
                                ))
                            })
                            .collect()
                    })
                    .ok_or_else(|| fail("allow"))?,
            },
            "edit_points" => Request::EditPoints {
                leaf: number("leaf")?,
            },
            "fork" => Request::Fork {
                leaf: number("leaf")?,
                row: number("row")?,
            },
            "seal" => Request::Seal {
                leaf: number("leaf")?,
            },
            "folder" => Request::Folder {
                paths: v
                    .get("paths")
                    .and_then(Value::as_array)
                    .and_then(|a| a.iter().map(|p| p.as_str().map(str::to_owned)).collect())
                    .ok_or_else(|| fail("paths"))?,
            },
            "open_listed" => Request::OpenListed {
                session: number("session")?,
            },
            other => {
                return Err(serde_json::Error::custom(format!(
                    "unknown request kind `{other}`"
                )))
            }
        })
    }
}

/// From the worker to the page, written as `{"kind": …, "data": {…}}` and
/// read with [`Response::from_json`].
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
pub enum Response {
    /// The worker is listening (messages sent before are lost, so the page
    /// holds them until this arrives).
    Ready,
    /// Bytes read so far while opening.
    Progress {
        done: u64,
        total: u64,
    },
    Opened {
        summary: Box<Summary>,
    },
    Branch {
        leaf: u32,
        leaf_label: String,
        rows: Box<Rows>,
    },
    Bodies {
        leaf: u32,
        start: u32,
        items: Vec<RowBody>,
    },
    SearchResults {
        query: String,
        hits: Vec<Hit>,
        /// More matched than were returned.
        truncated: bool,
    },
    /// The totals of the deep check, and the first problems it found (all
    /// of them are counted in `stats`).
    Stats {
        stats: Stats,
        diagnostics: Vec<Diagnostic>,
    },
    /// An image as a `data:` URL (no request leaves the tab).
    Image {
        leaf: u32,
        row: u32,
        image: u32,
        url: String,
    },
    /// How far the background scan for sensitive data got, and what it
    /// found since the last report.
    Scan {
        scan: ScanReport,
    },
    /// A download being written: bytes done of the file.
    DownloadProgress {
        file: u32,
        done: u64,
        total: u64,
    },
    /// A download was handed to the browser (made by the page's client
    /// from the worker's `Blob`; never sent as JSON).
    #[serde(skip)]
    DownloadDone {
        name: String,
        /// What a fork or a seal did (the core's notes), one a line.
        notes: Vec<String>,
    },
    /// The rows of a branch that are safe fork points (its last row, a
    /// leaf, too) and its tool calls without a result (`name (id)`).
    EditPoints {
        leaf: u32,
        rows: Vec<u32>,
        open: Vec<String>,
    },
    /// Segment previews, (segment, preview); segments where nothing is
    /// said have none.
    Previews {
        previews: Vec<(u32, Preview)>,
    },
    /// A request could not be served (unreadable file, …).
    Failed {
        message: String,
    },
    /// The sessions of a dropped folder that holds several, by name (the
    /// titles follow in [`Response::Listed`]).
    Folder {
        sessions: Vec<FolderSession>,
    },
    /// Titles, times and formats of some of the folder's sessions, by index.
    Listed {
        listed: Vec<(u32, Listed)>,
    },
}

/// One session of a dropped folder, as listed before its title is read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FolderSession {
    /// The path of its conversation file under the folder.
    pub name: String,
    /// Its files (the conversation and its subagent runs), side-cars apart.
    pub files: u32,
    /// Bytes of those files.
    pub size: u64,
}

/// What a session is, for the header, the details panel and the tree.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Summary {
    /// The figures `retrace info` prints: format, entries, branches, time
    /// span, how many diagnostics.
    pub figures: retrace_core::Summary,
    pub files: Vec<FileSummary>,
    pub default_leaf: Option<u32>,
    pub tips: Vec<u32>,
    pub outline: Vec<SegmentInfo>,
    /// The first diagnostics (all of them when fewer than the cap; how many
    /// there are is in `figures`).
    pub diagnostics: Vec<Diagnostic>,
    pub subagents: Vec<SubagentInfo>,
    /// The bookmarks (pi labels, and a side-car dropped with its session)
    /// as two columns: the entries, by entry, and their names.
    pub bookmarked: Vec<u32>,
    pub bookmark_names: Vec<String>,
    /// What the session says about itself: id, working directory, agent
    /// version, git branch, model… (first value of each, from the first
    /// entries).
    pub metadata: Vec<(String, String)>,
    /// The leaf and entry a deep link asked for, when found.
    pub requested_leaf: Option<u32>,
    pub requested_entry: Option<u32>,
    /// How long opening took in the worker, in milliseconds, and how much
    /// of it was spent waiting for the browser to read the files.
    pub open_ms: f64,
    pub read_ms: f64,
    /// The worker's wasm memory after indexing, in bytes.
    pub memory: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FileSummary {
    pub name: String,
    pub size: u64,
    pub lines: u32,
    pub format: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SubagentInfo {
    pub file: u32,
    pub agent_id: String,
    /// The result entry in the parent conversation that reports the run.
    pub spawned_by: Option<u32>,
    /// `description` from the subagent's `.meta.json`, if given.
    pub description: Option<String>,
    /// The way back from the run to the call that spawned it: a leaf whose
    /// branch holds `spawned_by`, the file it is in, and the id of the
    /// call it answers.
    #[serde(default)]
    pub spawned_leaf: Option<u32>,
    #[serde(default)]
    pub spawned_file: Option<u32>,
    #[serde(default)]
    pub spawned_call: Option<String>,
}

/// One segment of the branch tree (see `retrace_core::Segment`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentInfo {
    pub first: u32,
    pub last: u32,
    pub first_label: String,
    pub parent: Option<u32>,
    pub depth: u32,
    pub children: Vec<u32>,
    pub len: u32,
    pub side: u32,
    pub compactions: u32,
    pub is_tip: bool,
    pub has_default: bool,
    /// The leaf picking this segment opens.
    pub tip: u32,
    pub start: Option<i64>,
    pub end: Option<i64>,
    /// What the segment is about (its first prompt, shortened), when the
    /// summary carries it.
    pub preview: Option<Preview>,
    pub sidechain: bool,
    pub file: u32,
}

/// One row of a branch, from the index (no body).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowInfo {
    /// The first entry of the row.
    pub entry: u32,
    /// How many entries the row merges.
    pub count: u32,
    pub label: String,
    pub kind: RowKind,
    #[serde(rename = "type")]
    pub entry_type: String,
    pub role: String,
    pub time: Option<i64>,
    pub marks: Marks,
    pub file: u32,
    pub line: u32,
}

impl Response {
    /// Reads what the worker wrote. By hand rather than derived: serde's
    /// derive for a tagged enum buffers the payload in a generic tree first
    /// (slow for a branch of a hundred thousand rows) and was the largest
    /// function of the page's wasm; here the tag picks the payload type and
    /// the payload is read straight into it.
    pub fn from_json(text: &str) -> Result<Response, serde_json::Error> {
        use serde::de::Error;
        use serde_json::value::RawValue;

        #[derive(Deserialize)]
        struct Envelope<'a> {
            kind: &'a str,
            #[serde(borrow)]
            data: Option<&'a RawValue>,
        }
        #[derive(Deserialize)]
        struct Progress {
            done: u64,
            total: u64,
        }
        #[derive(Deserialize)]
        struct Opened {
            summary: Box<Summary>,
        }
        #[derive(Deserialize)]
        struct Branch {
            leaf: u32,
            leaf_label: String,
            rows: Box<Rows>,
        }
        #[derive(Deserialize)]
        struct Bodies {
            leaf: u32,
            start: u32,
            items: Vec<RowBody>,
        }
        #[derive(Deserialize)]
        struct SearchResults {
            query: String,
            hits: Vec<Hit>,
            truncated: bool,
        }
        #[derive(Deserialize)]
        struct StatsPayload {
            stats: Stats,
            diagnostics: Vec<Diagnostic>,
        }
        #[derive(Deserialize)]
        struct Image {
            leaf: u32,
            row: u32,
            image: u32,
            url: String,
        }
        #[derive(Deserialize)]
        struct Failed {
            message: String,
        }
        #[derive(Deserialize)]
        struct Previews {
            previews: Vec<(u32, Preview)>,
        }
        #[derive(Deserialize)]
        struct Scan {
            scan: ScanReport,
        }
        #[derive(Deserialize)]
        struct EditPoints {
            leaf: u32,
            rows: Vec<u32>,
            open: Vec<String>,
        }
        #[derive(Deserialize)]
        struct Folder {
            sessions: Vec<FolderSession>,
        }
        #[derive(Deserialize)]
        struct ListedPayload {
            listed: Vec<(u32, Listed)>,
        }
        #[derive(Deserialize)]
        struct DownloadProgress {
            file: u32,
            done: u64,
            total: u64,
        }
        fn read<'a, T: Deserialize<'a>>(
            data: Option<&'a RawValue>,
        ) -> Result<T, serde_json::Error> {
            serde_json::from_str(data.map_or("null", RawValue::get))
        }
        let envelope: Envelope = serde_json::from_str(text)?;
        let data = envelope.data;
        Ok(match envelope.kind {
            "ready" => Response::Ready,
            "progress" => {
                let p: Progress = read(data)?;
                Response::Progress {
                    done: p.done,
                    total: p.total,
                }
            }
            "opened" => Response::Opened {
                summary: read::<Opened>(data)?.summary,
            },
            "branch" => {
                let b: Branch = read(data)?;
                Response::Branch {
                    leaf: b.leaf,
                    leaf_label: b.leaf_label,
                    rows: b.rows,
                }
            }
            "bodies" => {
                let b: Bodies = read(data)?;
                Response::Bodies {
                    leaf: b.leaf,
                    start: b.start,
                    items: b.items,
                }
            }
            "search_results" => {
                let r: SearchResults = read(data)?;
                Response::SearchResults {
                    query: r.query,
                    hits: r.hits,
                    truncated: r.truncated,
                }
            }
            "stats" => {
                let s: StatsPayload = read(data)?;
                Response::Stats {
                    stats: s.stats,
                    diagnostics: s.diagnostics,
                }
            }
            "image" => {
                let i: Image = read(data)?;
                Response::Image {
                    leaf: i.leaf,
                    row: i.row,
                    image: i.image,
                    url: i.url,
                }
            }
            "failed" => Response::Failed {
                message: read::<Failed>(data)?.message,
            },
            "previews" => Response::Previews {
                previews: read::<Previews>(data)?.previews,
            },
            "scan" => Response::Scan {
                scan: read::<Scan>(data)?.scan,
            },
            "download_progress" => {
                let d: DownloadProgress = read(data)?;
                Response::DownloadProgress {
                    file: d.file,
                    done: d.done,
                    total: d.total,
                }
            }
            "edit_points" => {
                let e: EditPoints = read(data)?;
                Response::EditPoints {
                    leaf: e.leaf,
                    rows: e.rows,
                    open: e.open,
                }
            }
            "folder" => Response::Folder {
                sessions: read::<Folder>(data)?.sessions,
            },
            "listed" => Response::Listed {
                listed: read::<ListedPayload>(data)?.listed,
            },
            other => {
                return Err(serde_json::Error::custom(format!(
                    "unknown response kind `{other}`"
                )))
            }
        })
    }
}

/// The background scan for sensitive data.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScanReport {
    /// Bytes scanned of all files, and their total.
    pub done: u64,
    pub total: u64,
    pub finished: bool,
    /// Findings so far per kind (all of them, not only the listed ones).
    pub counts: Vec<(String, u64)>,
    /// Findings since the last report (the first ones of a session only;
    /// see `listed_max`): where, never the value.
    pub findings: Vec<SensitiveFinding>,
}

/// One piece of sensitive data, by place and kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SensitiveFinding {
    pub kind: String,
    pub file: u32,
    pub line: u64,
    /// JSON path of the string that holds it.
    pub path: String,
    /// The entry of that line, and a leaf whose branch shows it.
    pub entry: Option<u32>,
    pub leaf: Option<u32>,
    /// The value's hash (16 hex digits): what names it in a rules file's
    /// exceptions.
    pub hash: String,
}

/// The rows of a branch, column by column: a long branch is a hundred
/// thousand rows, and arrays of numbers cross `postMessage` and parse far
/// faster than as many objects (the page must not stall on them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rows {
    pub entry: Vec<u32>,
    pub count: Vec<u32>,
    pub label: Vec<String>,
    /// 0 for a message row, 1 for an event row.
    pub kind: Vec<u8>,
    /// Index into `types`.
    pub type_of: Vec<u16>,
    pub types: Vec<String>,
    /// Index into `roles`.
    pub role_of: Vec<u16>,
    pub roles: Vec<String>,
    pub time: Vec<Option<i64>>,
    pub marks: Vec<u8>,
    pub file: Vec<u32>,
    pub line: Vec<u32>,
}

impl Rows {
    pub fn len(&self) -> usize {
        self.entry.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entry.is_empty()
    }

    pub fn push(&mut self, row: RowInfo) {
        fn index(table: &mut Vec<String>, value: String) -> u16 {
            match table.iter().position(|t| *t == value) {
                Some(i) => i as u16,
                None => {
                    table.push(value);
                    (table.len() - 1) as u16
                }
            }
        }
        self.entry.push(row.entry);
        self.count.push(row.count);
        self.label.push(row.label);
        self.kind.push(u8::from(row.kind == RowKind::Event));
        let t = index(&mut self.types, row.entry_type);
        self.type_of.push(t);
        let r = index(&mut self.roles, row.role);
        self.role_of.push(r);
        self.time.push(row.time);
        self.marks.push(row.marks.0);
        self.file.push(row.file);
        self.line.push(row.line);
    }

    pub fn get(&self, i: usize) -> Option<RowInfo> {
        Some(RowInfo {
            entry: *self.entry.get(i)?,
            count: self.count[i],
            label: self.label[i].clone(),
            kind: self.kind(i),
            entry_type: self.types[self.type_of[i] as usize].clone(),
            role: self.roles[self.role_of[i] as usize].clone(),
            time: self.time[i],
            marks: Marks(self.marks[i]),
            file: self.file[i],
            line: self.line[i],
        })
    }

    pub fn kind(&self, i: usize) -> RowKind {
        if self.kind[i] == 0 {
            RowKind::Message
        } else {
            RowKind::Event
        }
    }

    pub fn marks(&self, i: usize) -> Marks {
        Marks(self.marks[i])
    }

    /// The row holding entry `entry`, if the branch has it (a merged row
    /// holds the entries after its first).
    pub fn row_of(&self, entry: u32) -> Option<usize> {
        self.entry.iter().position(|&e| e == entry).or_else(|| {
            let i = self.entry.partition_point(|&e| e <= entry);
            (i > 0 && self.entry[i - 1] + self.count[i - 1] > entry).then(|| i - 1)
        })
    }
}

/// A row's body, read when the row is on screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowBody {
    /// The message, for message rows whose body parses.
    pub message: Option<Message>,
    /// A one-line description, for event rows.
    pub event: Option<String>,
    /// The body did not parse (the diagnostic says why).
    pub broken: bool,
    /// How its tool calls and results pair with other rows (`None` when
    /// it has none that do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairing: Option<RowPairing>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(entry: u32, count: u32, kind: RowKind, role: &str) -> RowInfo {
        RowInfo {
            entry,
            count,
            label: format!("e{entry}"),
            kind,
            entry_type: if kind == RowKind::Event {
                "progress"
            } else {
                "user"
            }
            .into(),
            role: role.into(),
            time: Some(i64::from(entry) * 1000),
            marks: Marks(Marks::PROMPT),
            file: 0,
            line: entry + 1,
        }
    }

    #[test]
    fn every_response_reads_back() {
        let mut rows = Rows::default();
        rows.push(row(3, 1, RowKind::Message, "user"));
        let all = [
            Response::Ready,
            Response::Progress { done: 1, total: 2 },
            Response::Opened {
                summary: Box::default(),
            },
            Response::Branch {
                leaf: 9,
                leaf_label: "x".into(),
                rows: Box::new(rows),
            },
            Response::Bodies {
                leaf: 1,
                start: 2,
                items: vec![RowBody {
                    message: None,
                    event: Some("e".into()),
                    broken: false,
                    pairing: Some(RowPairing {
                        folded_into: Some(1),
                        answered: vec!["c1".into()],
                        ..RowPairing::default()
                    }),
                }],
            },
            Response::SearchResults {
                query: "q".into(),
                hits: vec![Hit {
                    entry: retrace_core::EntryId(4),
                    label: "e4".into(),
                    line: 5,
                    role: "user".into(),
                    snippet: "…the q…".into(),
                    leaf: retrace_core::EntryId(9),
                }],
                truncated: true,
            },
            Response::Stats {
                stats: Stats {
                    messages: 3,
                    models: [(
                        "m".to_owned(),
                        retrace_core::ModelStat {
                            messages: 2,
                            cost_usd: Some(0.5),
                            ..Default::default()
                        },
                    )]
                    .into(),
                    ..Stats::default()
                },
                diagnostics: Vec::new(),
            },
            Response::Image {
                leaf: 1,
                row: 2,
                image: 3,
                url: "data:image/png;base64,".into(),
            },
            Response::Failed {
                message: "m".into(),
            },
            Response::Previews {
                previews: vec![(
                    3,
                    Preview {
                        role: retrace_core::Role::User,
                        prompt: true,
                        text: "p".into(),
                    },
                )],
            },
            Response::Scan {
                scan: ScanReport {
                    done: 1,
                    total: 2,
                    finished: false,
                    counts: vec![("email".into(), 1)],
                    findings: vec![SensitiveFinding {
                        kind: "email".into(),
                        file: 0,
                        line: 3,
                        path: "message.content".into(),
                        entry: Some(2),
                        leaf: None,
                        hash: "0123456789abcdef".into(),
                    }],
                },
            },
            Response::DownloadProgress {
                file: 0,
                done: 1,
                total: 2,
            },
            Response::EditPoints {
                leaf: 4,
                rows: vec![1, 3],
                open: vec!["bash (call-2)".into()],
            },
            Response::Folder {
                sessions: vec![FolderSession {
                    name: "p/a.jsonl".into(),
                    files: 2,
                    size: 9,
                }],
            },
            Response::Listed {
                listed: vec![(
                    0,
                    Listed {
                        title: Some("Fix it".into()),
                        format: "claude-code".into(),
                        start: Some(1),
                        ..Listed::default()
                    },
                )],
            },
        ];
        for r in all {
            let json = serde_json::to_string(&r).unwrap();
            let back = Response::from_json(&json).unwrap();
            assert_eq!(serde_json::to_string(&back).unwrap(), json);
        }
        assert!(Response::from_json(r#"{"kind":"nope"}"#).is_err());
    }

    #[test]
    fn every_request_reads_back() {
        let all = [
            Request::Open {
                leaf_label: Some("e9".into()),
                entry: None,
            },
            Request::Open {
                leaf_label: None,
                entry: Some("L3".into()),
            },
            Request::Branch { leaf: 9 },
            Request::Bodies {
                leaf: 9,
                start: 2,
                end: 14,
            },
            Request::Search {
                query: "q \"x\"".into(),
                filter: SearchFilter {
                    events: true,
                    ..SearchFilter::default()
                },
            },
            Request::Stats,
            Request::Image {
                leaf: 1,
                row: 2,
                image: 3,
            },
            Request::Previews {
                segments: vec![0, 4],
            },
            Request::Sensitive { hide: false },
            Request::Review {
                disable: vec!["email".into()],
                allow: vec![(1, "jwt".into(), 4, "00000000000000ff".into())],
            },
            Request::Review {
                disable: Vec::new(),
                allow: Vec::new(),
            },
            Request::Scan,
            Request::Download {
                file: 1,
                mode: "typed".into(),
                disable: vec!["email".into()],
                allow: vec![("jwt".into(), 4, "00000000000000ff".into())],
            },
            Request::EditPoints { leaf: 7 },
            Request::Fork { leaf: 7, row: 12 },
            Request::Seal { leaf: 7 },
            Request::Folder {
                paths: vec!["p/a.jsonl".into(), "p/a/subagents/agent-1.jsonl".into()],
            },
            Request::OpenListed { session: 3 },
        ];
        for r in all {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(Request::from_json(&json).unwrap(), r, "{json}");
        }
        assert_eq!(
            serde_json::to_string(&Request::Fork { leaf: 7, row: 12 }).unwrap(),
            r#"{"kind":"fork","leaf":7,"row":12}"#
        );
        for (bad, says) in [
            (r#"{"kind":"nope"}"#, "unknown request kind `nope`"),
            (
                r#"{"kind":"fork","leaf":1}"#,
                "a `fork` request without a valid `row`",
            ),
            (
                r#"{"kind":"branch","leaf":"e1"}"#,
                "a `branch` request without a valid `leaf`",
            ),
            (
                r#"{"kind":"branch","leaf":4294967296}"#,
                "without a valid `leaf`",
            ),
            (
                r#"{"kind":"search","query":"q","filter":{"user":true}}"#,
                "without a valid `assistant`",
            ),
            (
                r#"{"kind":"previews","segments":[1,"x"]}"#,
                "without a valid `segments`",
            ),
            (
                r#"{"kind":"folder","paths":["a",2]}"#,
                "a `folder` request without a valid `paths`",
            ),
            (
                r#"{"kind":"review","disable":[],"allow":[["jwt",4,"ff"]]}"#,
                "a `review` request without a valid `allow`",
            ),
            (r#"{"leaf":1}"#, "a request without a `kind`"),
            ("[1]", "a request without a `kind`"),
            ("{", "EOF"),
        ] {
            let e = Request::from_json(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn responses_are_tagged_then_carried() {
        let json = serde_json::to_string(&Response::Progress { done: 1, total: 2 }).unwrap();
        assert_eq!(json, r#"{"kind":"progress","data":{"done":1,"total":2}}"#);
        assert_eq!(
            serde_json::to_string(&Response::Ready).unwrap(),
            r#"{"kind":"ready"}"#
        );
        // What the worker writes by hand when encoding fails.
        let failed = Response::from_json(r#"{"kind":"failed","data":{"message":"x"}}"#).unwrap();
        assert!(matches!(failed, Response::Failed { message } if message == "x"));
    }

    #[test]
    fn rows_round_trip_column_by_column() {
        let input = vec![
            row(0, 1, RowKind::Event, ""),
            row(1, 1, RowKind::Message, "user"),
            row(2, 4, RowKind::Message, "assistant"),
            row(7, 1, RowKind::Message, "user"),
        ];
        let mut rows = Rows::default();
        for r in input.clone() {
            rows.push(r);
        }
        let json = serde_json::to_string(&rows).unwrap();
        let back: Rows = serde_json::from_str(&json).unwrap();
        assert_eq!(back.len(), 4);
        for (i, r) in input.into_iter().enumerate() {
            assert_eq!(back.get(i), Some(r));
        }
        assert_eq!(back.get(4), None);
        // Role and type names are stored once.
        assert_eq!(back.roles, ["", "user", "assistant"]);
        // Entry 4 is inside the merged row that starts at entry 2.
        assert_eq!(back.row_of(4), Some(2));
        assert_eq!(back.row_of(7), Some(3));
        assert_eq!(back.row_of(6), None);
    }
}
