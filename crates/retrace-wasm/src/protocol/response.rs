//! What comes back: one [`Response`] (or an [`EngineError`]) per request,
//! and [`Event`]s from background work. On the worker transport each is one
//! JSON text: `{"id": n, "kind": …, "data": …}` answers request `n`,
//! `{"id": n, "error": {"code", "message"}}` refuses it, and an event has no
//! `id`: `{"kind": …, "data": …}`.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::error::{EngineError, ErrorCode};
use super::values::{
    Bodies, BranchRows, DownloadProgress, EditPoints, FolderOpened, Image, ListedBatch, Made,
    Previews, Progress, ScanReport, SearchResults, StatsReport, Summary,
};

/// The answer to a request. Its `data` is the value a JS caller's promise
/// resolves with (`null` for [`Response::Done`]).
#[derive(Debug, Clone, Serialize)]
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
    /// `hide_sensitive`, `scan`: done, nothing to say.
    Done,
}

/// What background work reports, unasked.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
pub enum Event {
    /// The worker is listening (a dedicated worker drops messages that
    /// arrive before its handler exists, so a client holds them until
    /// this).
    Ready,
    /// Bytes read so far while opening.
    Progress(Progress),
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

/// The JSON text answering request `id`.
pub fn reply_json(id: u32, result: &Result<Response, EngineError>) -> String {
    let text = match result {
        Ok(response) => serde_json::to_string(response),
        Err(error) => serde_json::to_string(&Refused { error }),
    };
    match text {
        // `{"kind":…}` becomes `{"id":n,"kind":…}`.
        Ok(text) => format!("{{\"id\":{id},{}", &text[1..]),
        Err(e) => format!(
            r#"{{"id":{id},"error":{{"code":"internal","message":"cannot encode an answer: {}"}}}}"#,
            json_escape(&e.to_string())
        ),
    }
}

/// The JSON text of an event.
pub fn event_json(event: &Event) -> String {
    serde_json::to_string(event).unwrap_or_else(|e| {
        format!(
            r#"{{"kind":"failed","data":{{"code":"internal","message":"cannot encode an event: {}"}}}}"#,
            json_escape(&e.to_string())
        )
    })
}

#[derive(Serialize)]
struct Refused<'a> {
    error: &'a EngineError,
}

fn json_escape(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted.trim_matches('"').to_owned()
}

impl Incoming {
    /// Reads one message of the worker. By hand rather than derived:
    /// serde's derive for a tagged enum buffers the payload in a generic
    /// tree first (slow for a branch of a hundred thousand rows) and was
    /// the largest function of the page's wasm; here the kind picks the
    /// payload's type and the payload is read straight into it.
    pub fn from_json(text: &str) -> Result<Incoming, EngineError> {
        Incoming::read(text).map_err(|e| {
            EngineError::internal(format!(
                "a bad message from the engine: {e}: {}",
                text.chars().take(300).collect::<String>()
            ))
        })
    }

    fn read(text: &str) -> Result<Incoming, serde_json::Error> {
        use serde::de::Error as _;

        #[derive(Deserialize)]
        struct Envelope<'a> {
            id: Option<u32>,
            #[serde(borrow)]
            kind: Option<&'a str>,
            #[serde(borrow)]
            data: Option<&'a RawValue>,
            #[serde(borrow)]
            error: Option<Refusal<'a>>,
        }
        /// An error as written; its code read by hand (a derived reader
        /// for the code enum is a kilobyte of the page's wasm).
        #[derive(Deserialize)]
        struct Refusal<'a> {
            code: &'a str,
            message: String,
        }
        fn read<'a, T: Deserialize<'a>>(
            data: Option<&'a RawValue>,
        ) -> Result<T, serde_json::Error> {
            serde_json::from_str(data.map_or("null", RawValue::get))
        }
        let envelope: Envelope = serde_json::from_str(text)?;
        let data = envelope.data;
        let kind = envelope.kind.unwrap_or_default();
        let unknown = |what: &str| serde_json::Error::custom(format!("unknown {what} `{kind}`"));
        let Some(id) = envelope.id else {
            let event = match kind {
                "ready" => Event::Ready,
                "progress" => Event::Progress(read(data)?),
                "scan" => Event::Scan(read(data)?),
                "download_progress" => Event::DownloadProgress(read(data)?),
                "listed" => Event::Listed(read(data)?),
                "failed" => {
                    let r: Refusal = read(data)?;
                    Event::Failed(EngineError::new(ErrorCode::parse(r.code), r.message))
                }
                _ => return Err(unknown("event")),
            };
            return Ok(Incoming::Event(event));
        };
        if let Some(r) = envelope.error {
            let error = EngineError::new(ErrorCode::parse(r.code), r.message);
            return Ok(Incoming::Reply {
                id,
                result: Err(error),
            });
        }
        let response = match kind {
            "opened" => Response::Opened(read(data)?),
            "folder" => Response::Folder(read(data)?),
            "branch" => Response::Branch(read(data)?),
            "bodies" => Response::Bodies(read(data)?),
            "search_results" => Response::SearchResults(read(data)?),
            "stats" => Response::Stats(read(data)?),
            "image" => Response::Image(read(data)?),
            "previews" => Response::Previews(read(data)?),
            "edit_points" => Response::EditPoints(read(data)?),
            "file" => Response::File(read(data)?),
            "done" => Response::Done,
            _ => return Err(unknown("answer")),
        };
        Ok(Incoming::Reply {
            id,
            result: Ok(response),
        })
    }
}

#[cfg(test)]
mod tests {
    use retrace_core::{EntryId, Listed, Marks, ModelStat, Preview, Role, RowKind, RowPairing};

    use super::*;
    use crate::protocol::{
        ErrorCode, FolderSession, Hit, RowBody, RowInfo, Rows, SensitiveFinding, Stats,
    };

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

    /// Reads `text` as the answer to request 7.
    fn answer(text: &str) -> Result<Response, EngineError> {
        match Incoming::from_json(text).unwrap() {
            Incoming::Reply { id: 7, result } => result,
            other => panic!("not the answer to 7: {other:?}"),
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
            Response::Done,
        ];
        for r in all {
            let want = serde_json::to_string(&r).unwrap();
            let text = reply_json(7, &Ok(r));
            assert!(text.starts_with(r#"{"id":7,"kind":""#), "{text}");
            let back = answer(&text).unwrap();
            assert_eq!(serde_json::to_string(&back).unwrap(), want);
        }
    }

    #[test]
    fn every_event_reads_back() {
        let all = [
            Event::Ready,
            Event::Progress(Progress { done: 1, total: 2 }),
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
        ];
        for e in all {
            let text = event_json(&e);
            let Incoming::Event(back) = Incoming::from_json(&text).unwrap() else {
                panic!("{text} is no event");
            };
            assert_eq!(event_json(&back), text);
        }
        assert_eq!(
            event_json(&Event::Progress(Progress { done: 1, total: 2 })),
            r#"{"kind":"progress","data":{"done":1,"total":2}}"#
        );
        assert_eq!(event_json(&Event::Ready), r#"{"kind":"ready"}"#);
    }

    #[test]
    fn errors_cross_as_code_and_message() {
        let error = EngineError::not_found("no row 9 on this branch");
        let text = reply_json(7, &Err(error.clone()));
        assert_eq!(
            text,
            r#"{"id":7,"error":{"code":"not-found","message":"no row 9 on this branch"}}"#
        );
        assert_eq!(answer(&text).unwrap_err(), error);
        assert!(matches!(
            answer(r#"{"id":7,"kind":"done"}"#),
            Ok(Response::Done)
        ));
        // A failure of no request: what a worker that could not start
        // says (its script writes it by hand).
        let start =
            r#"{"kind":"failed","data":{"code":"internal","message":"cannot start the worker"}}"#;
        assert!(matches!(
            Incoming::from_json(start).unwrap(),
            Incoming::Event(Event::Failed(EngineError {
                code: ErrorCode::Internal,
                ..
            }))
        ));
        for (bad, says) in [
            (r#"{"kind":"nope"}"#, "unknown event `nope`"),
            (r#"{"id":1,"kind":"nope"}"#, "unknown answer `nope`"),
            ("{", "a bad message"),
        ] {
            let e = Incoming::from_json(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::Internal);
            assert!(e.message.contains(says), "{bad}: {}", e.message);
        }
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
