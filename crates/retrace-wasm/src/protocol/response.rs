//! What comes back: one [`Response`] (or an [`EngineError`]) per request,
//! and [`Event`]s from background work. Each is written `{kind, data}`
//! (serde's adjacent tagging); on the worker transport an answer carries
//! its request's `id` too, a refusal is `{id, error: {code, message}}`, and
//! an event has no `id` (see `js::wire`).

use serde::Serialize;

use super::error::EngineError;
use super::values::{
    Bodies, BranchRows, Comparison, DownloadProgress, EditPoints, FirstRows, FolderOpened, Image,
    ListedBatch, Made, Previews, Progress, ScanReport, SearchResults, StatsReport, Summary,
};
#[cfg(feature = "api")]
use super::values::{Context, Migration, SessionTree};

/// The answer to a request. Its `data` is the value a JS caller's promise
/// resolves with (`null` for [`Response::Done`]). The `api` kinds' answers
/// exist only in a build with that feature: their serializers would
/// otherwise weigh on the viewer, which never receives them.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
pub enum Response {
    /// `open`, `open_listed`: the session read.
    Opened(Box<Summary>),
    /// `open_folder`.
    Folder(FolderOpened),
    /// `branch`.
    Branch(Box<BranchRows>),
    /// `bodies`.
    Bodies(Bodies),
    /// `search`.
    SearchResults(SearchResults),
    /// `stats`.
    Stats(Box<StatsReport>),
    /// `image`.
    Image(Image),
    /// `previews`.
    Previews(Previews),
    /// `edit_points`.
    EditPoints(EditPoints),
    /// `download`, `fork`, `seal`: a file made (its bytes beside).
    File(Made),
    /// `compare`.
    Comparison(Box<Comparison>),
    /// `hide_sensitive`, `review`, `scan`: done, nothing to say.
    Done,
    /// `tree`.
    #[cfg(feature = "api")]
    Tree(Box<SessionTree>),
    /// `context`.
    #[cfg(feature = "api")]
    Context(Context),
    /// `migrate`.
    #[cfg(feature = "api")]
    Migration(Box<Migration>),
}

/// What background work reports, unasked.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
pub enum Event {
    /// The worker is listening (a dedicated worker drops messages that
    /// arrive before its handler exists, so a client holds them until
    /// this).
    Ready,
    /// Bytes read so far while opening.
    Progress(Progress),
    /// The first rows of a file being opened, before its index is done.
    FirstRows(Box<FirstRows>),
    /// How far the scan for sensitive data got and what it found since the
    /// last report.
    Scan(ScanReport),
    /// A redacted copy being written.
    DownloadProgress(DownloadProgress),
    /// Titles of some of the listed folder's sessions.
    Listed(ListedBatch),
    /// A failure of no request: background work that stopped (a scan whose
    /// bytes could not be read), an event that could not be encoded, a
    /// worker that could not start (its script says so).
    Failed(EngineError),
}

/// One message of the worker transport, read.
#[derive(Debug, Clone)]
pub enum Incoming {
    /// The answer to request `id`.
    Reply {
        id: u32,
        result: Result<Response, EngineError>,
    },
    Event(Event),
}

#[cfg(test)]
mod tests {
    use retrace_core::{EntryId, Listed, Marks, ModelStat, Preview, Role, RowKind, RowPairing};

    use super::*;
    use crate::protocol::{FolderSession, Hit, RowBody, RowInfo, Rows, SensitiveFinding, Stats};

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

    /// `r` written as JSON and its payload read back into its type: what
    /// the page does with the JS value of the same shape.
    fn round_trip(r: &Response) -> Response {
        let v = serde_json::to_value(r).unwrap();
        let data = v.get("data").cloned().unwrap_or_default();
        match v["kind"].as_str().unwrap() {
            "opened" => Response::Opened(serde_json::from_value(data).unwrap()),
            "folder" => Response::Folder(serde_json::from_value(data).unwrap()),
            "branch" => Response::Branch(serde_json::from_value(data).unwrap()),
            "bodies" => Response::Bodies(serde_json::from_value(data).unwrap()),
            "search_results" => Response::SearchResults(serde_json::from_value(data).unwrap()),
            "stats" => Response::Stats(serde_json::from_value(data).unwrap()),
            "image" => Response::Image(serde_json::from_value(data).unwrap()),
            "previews" => Response::Previews(serde_json::from_value(data).unwrap()),
            "edit_points" => Response::EditPoints(serde_json::from_value(data).unwrap()),
            "file" => Response::File(serde_json::from_value(data).unwrap()),
            "comparison" => Response::Comparison(serde_json::from_value(data).unwrap()),
            "done" => Response::Done,
            other => panic!("unknown answer {other}"),
        }
    }

    #[test]
    fn every_response_reads_back() {
        let mut rows = Rows::default();
        rows.push(row(3, 1, RowKind::Message, "user"));
        let all = [
            Response::Opened(Box::default()),
            Response::Folder(FolderOpened {
                sessions: vec![FolderSession {
                    name: "p/a.jsonl".into(),
                    files: 2,
                    size: 9,
                }],
                summary: None,
            }),
            Response::Branch(Box::new(BranchRows {
                leaf: 9,
                leaf_label: "x".into(),
                rows,
            })),
            Response::Bodies(Bodies {
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
                revealed: vec!["x@y.io".into()],
            }),
            Response::SearchResults(SearchResults {
                query: "q".into(),
                hits: vec![Hit {
                    entry: EntryId(4),
                    label: "e4".into(),
                    line: 5,
                    role: "user".into(),
                    snippet: "…the q…".into(),
                    leaf: EntryId(9),
                }],
                truncated: true,
                revealed: vec!["x@y.io".into()],
            }),
            Response::Stats(Box::new(StatsReport {
                stats: Stats {
                    messages: 3,
                    models: [(
                        "m".to_owned(),
                        ModelStat {
                            messages: 2,
                            cost_usd: Some(0.5),
                            ..Default::default()
                        },
                    )]
                    .into(),
                    ..Stats::default()
                },
                diagnostics: Vec::new(),
            })),
            Response::Image(Image {
                leaf: 1,
                row: 2,
                image: 3,
                url: "data:image/png;base64,".into(),
            }),
            Response::Previews(Previews {
                previews: vec![(
                    3,
                    Preview {
                        role: Role::User,
                        prompt: true,
                        text: "p".into(),
                    },
                )],
                revealed: Vec::new(),
            }),
            Response::EditPoints(EditPoints {
                leaf: 4,
                rows: vec![1, 3],
                open: vec!["bash (call-2)".into()],
            }),
            Response::File(Made {
                name: "a.fork.jsonl".into(),
                notes: vec!["forked".into()],
                bytes: Vec::new(),
            }),
            Response::Comparison(Box::new(Comparison {
                left: 4,
                right: 9,
                fork: Some(2),
                pairs: vec![0, 1, 3],
                rows: {
                    let mut rows = Rows::default();
                    for e in [2, 5, 8, 6] {
                        rows.push(row(e, 1, RowKind::Message, "user"));
                    }
                    rows
                },
                bodies: vec![
                    RowBody {
                        message: None,
                        event: Some("e".into()),
                        broken: false,
                        pairing: None,
                    };
                    4
                ],
                more_right: 7,
                ..Comparison::default()
            })),
            Response::Done,
        ];
        let mut kinds = Vec::new();
        for r in all {
            let want = serde_json::to_string(&r).unwrap();
            let back = round_trip(&r);
            assert_eq!(serde_json::to_string(&back).unwrap(), want);
            kinds.push(serde_json::to_value(&r).unwrap()["kind"].clone());
        }
        // The kinds a reader tells answers by.
        assert_eq!(
            kinds,
            [
                "opened",
                "folder",
                "branch",
                "bodies",
                "search_results",
                "stats",
                "image",
                "previews",
                "edit_points",
                "file",
                "comparison",
                "done"
            ]
        );
        assert_eq!(
            serde_json::to_string(&Response::Done).unwrap(),
            r#"{"kind":"done"}"#
        );
    }

    /// The `api` kinds' answers, which only a JS caller reads: named as
    /// their requests' answers, their data the value.
    #[cfg(feature = "api")]
    #[test]
    fn the_api_answers_are_tagged() {
        use crate::protocol::{Context, Migration};
        use retrace_core::migrate::migrate;
        use retrace_core::Api;

        let migration = migrate(&[], Api::Google);
        let all = [
            Response::Tree(Box::default()),
            Response::Context(Context {
                leaf: 3,
                messages: Vec::new(),
                revealed: Vec::new(),
            }),
            Response::Migration(Box::new(Migration {
                leaf: 3,
                body: migration.body,
                report: migration.report,
                revealed: vec!["x@y.io".into()],
            })),
        ];
        let json: Vec<String> = all
            .iter()
            .map(|r| serde_json::to_string(r).unwrap())
            .collect();
        assert!(json[0].starts_with(r#"{"kind":"tree","data":{"nodes":{"entry":[]"#));
        assert_eq!(
            json[1],
            r#"{"kind":"context","data":{"leaf":3,"messages":[]}}"#
        );
        assert!(json[2].starts_with(r#"{"kind":"migration","data":{"leaf":3,"body":{"#));
        assert!(
            json[2].contains(r#""report":{"to":"google","messages":0"#),
            "{}",
            json[2]
        );
        assert!(json[2].ends_with(r#""revealed":["x@y.io"]}}"#));
    }

    #[test]
    fn every_event_reads_back() {
        let all = [
            Event::Ready,
            Event::Progress(Progress { done: 1, total: 2 }),
            Event::FirstRows(Box::new(FirstRows {
                summary: Box::new(Summary {
                    default_leaf: Some(4),
                    ..Summary::default()
                }),
                branch: Box::new(BranchRows {
                    leaf: 4,
                    leaf_label: "e4".into(),
                    ..BranchRows::default()
                }),
                bodies: Bodies {
                    leaf: 4,
                    start: 0,
                    items: Vec::new(),
                    revealed: Vec::new(),
                },
            })),
            Event::Scan(ScanReport {
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
            }),
            Event::DownloadProgress(DownloadProgress {
                file: 0,
                done: 1,
                total: 2,
            }),
            Event::Listed(ListedBatch {
                listed: vec![(
                    0,
                    Listed {
                        title: Some("Fix it".into()),
                        format: "claude-code".into(),
                        start: Some(1),
                        ..Listed::default()
                    },
                )],
            }),
            Event::Failed(EngineError::unreadable("x")),
        ];
        let kinds: Vec<String> = all
            .iter()
            .map(|e| {
                serde_json::to_value(e).unwrap()["kind"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "ready",
                "progress",
                "first_rows",
                "scan",
                "download_progress",
                "listed",
                "failed"
            ]
        );
        // Each payload reads back into its type.
        for e in &all {
            let v = serde_json::to_value(e).unwrap();
            let data = v.get("data").cloned().unwrap_or_default();
            let back = match e {
                Event::Ready => Event::Ready,
                Event::Progress(_) => Event::Progress(serde_json::from_value(data).unwrap()),
                // Read field by field, as the page's reader does.
                Event::FirstRows(_) => Event::FirstRows(Box::new(FirstRows {
                    summary: serde_json::from_value(data["summary"].clone()).unwrap(),
                    branch: serde_json::from_value(data["branch"].clone()).unwrap(),
                    bodies: serde_json::from_value(data["bodies"].clone()).unwrap(),
                })),
                Event::Scan(_) => Event::Scan(serde_json::from_value(data).unwrap()),
                Event::DownloadProgress(_) => {
                    Event::DownloadProgress(serde_json::from_value(data).unwrap())
                }
                Event::Listed(_) => Event::Listed(serde_json::from_value(data).unwrap()),
                Event::Failed(_) => Event::Failed(serde_json::from_value(data).unwrap()),
            };
            assert_eq!(serde_json::to_value(&back).unwrap(), v);
        }
        assert_eq!(
            serde_json::to_string(&Event::Progress(Progress { done: 1, total: 2 })).unwrap(),
            r#"{"kind":"progress","data":{"done":1,"total":2}}"#
        );
        assert_eq!(
            serde_json::to_string(&Event::Ready).unwrap(),
            r#"{"kind":"ready"}"#
        );
        let failed = Event::Failed(EngineError::unreadable("x"));
        assert_eq!(
            serde_json::to_string(&failed).unwrap(),
            r#"{"kind":"failed","data":{"code":"unreadable","message":"x"}}"#
        );
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
