//! What a caller asks the engine: one [`Request`] kind per engine method
//! per JS method (`edit_points` is `Engine::edit_points` in Rust and
//! `editPoints` in JS, on the direct class and the worker client alike).

use retrace_core::Api;
use serde::Serialize;
use serde_json::Value;

use super::error::EngineError;
use super::values::{Allow, ReviewAllow, SearchFilter};

/// A request, written as `{"kind": …, fields…}` (the worker transport's
/// JSON) and read with [`Request::from_json`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    /// Read the files sent along (one session: a main file and its side
    /// files, in any order). `leaf_label` and `entry` are labels to resolve
    /// (from a deep link). Answered with the summary once read.
    ///
    /// With `first_rows`, the rows a file's first piece holds come as a
    /// `first_rows` event while the rest is read, and requests that come
    /// after that event wait for the whole session (a page paints the
    /// first screen at once, then asks for more as if it were open).
    Open {
        leaf_label: Option<String>,
        entry: Option<String>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        first_rows: bool,
    },
    /// A dropped or picked folder: the files sent along, `paths[i]` the
    /// path of the `i`th under the folder (`/` between folders), split into
    /// sessions (`retrace_core::split_sessions`). One is opened; several
    /// are listed, their titles following as `listed` events.
    OpenFolder { paths: Vec<String> },
    /// Open the `session`th session of the last folder listed.
    OpenListed { session: u32 },
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
    /// Show bodies (and search snippets, previews, contexts, migrations)
    /// with sensitive data hidden (the default) or as written; applies to
    /// later requests.
    HideSensitive { hide: bool },
    /// What the review marked "not a secret" (`disable`: kinds; `allow`:
    /// findings in any file), shown as written in bodies, previews and
    /// search snippets while the rest stays hidden (the values named
    /// beside them, as with sensitive data shown); applies to later
    /// requests. Sent whenever the review changes; empty lists take the
    /// exceptions back.
    Review {
        disable: Vec<String>,
        allow: Vec<ReviewAllow>,
    },
    /// Scan the whole session for sensitive data in the background
    /// (`scan` events report it).
    Scan,
    /// The redacted bytes of one input file (`mask`, `typed`, `pseudo`), as
    /// `retrace redact --mode MODE` writes them; answered when written
    /// (`download_progress` events meanwhile). `disable` (kinds) and `allow`
    /// (findings of this file) are what the review marked "not a secret":
    /// the bytes of `retrace redact --rules` with the file they export.
    Download {
        file: u32,
        #[cfg_attr(feature = "ts", ts(type = r#""typed" | "mask" | "pseudo""#))]
        mode: String,
        disable: Vec<String>,
        allow: Vec<Allow>,
    },
    /// Where the branch ending at `leaf` can be forked and which of its
    /// tool calls have no result (`retrace_core::safe_points`,
    /// `open_calls`).
    EditPoints { leaf: u32 },
    /// A new session forked at row `row` of the branch ending at `leaf`
    /// (`retrace_core::fork`).
    Fork { leaf: u32, row: u32 },
    /// The branch ending at `leaf` with its unpaired calls sealed
    /// (`retrace_core::seal`).
    Seal { leaf: u32 },
    /// The branches ending at `left` and `right` side by side from their
    /// fork point, their rows aligned (`Session::compare`); or, when
    /// `right` is a compaction on `left`'s branch (or the summary line
    /// after one), what it hid beside what replaced it
    /// (`Session::compaction_hid`).
    Compare { left: u32, right: u32 },
    /// The branch tree, node by node: parents, roots, leaves, branch
    /// points (`retrace_core::Tree`). Feature `api`, as the next two: a
    /// build without it reads these kinds and refuses them
    /// (`unsupported`), and carries no code for them (the viewer's).
    #[cfg(feature = "api")]
    Tree,
    /// The messages of the branch ending at `leaf` in the one message
    /// model, as a model would be sent them (`Session::context`), read as
    /// bodies are shown.
    #[cfg(feature = "api")]
    Context { leaf: u32 },
    /// The branch ending at `leaf` written as the history of a request to
    /// `to`, with the report of what that loses (`retrace migrate`'s body
    /// and report), read as bodies are shown.
    #[cfg(feature = "api")]
    Migrate { leaf: u32, to: Api },
}

impl Request {
    /// Every kind, as written in `kind`, in declaration order (the `api`
    /// kinds in every build: one without them refuses them).
    pub const KINDS: [&'static str; 20] = [
        "open",
        "open_folder",
        "open_listed",
        "branch",
        "bodies",
        "search",
        "stats",
        "image",
        "previews",
        "hide_sensitive",
        "review",
        "scan",
        "download",
        "edit_points",
        "fork",
        "seal",
        "compare",
        "tree",
        "context",
        "migrate",
    ];

    /// The kinds only a build with the `api` feature answers.
    pub const API_KINDS: [&'static str; 3] = ["tree", "context", "migrate"];

    /// This request's kind, as written in `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            Request::Open { .. } => "open",
            Request::OpenFolder { .. } => "open_folder",
            Request::OpenListed { .. } => "open_listed",
            Request::Branch { .. } => "branch",
            Request::Bodies { .. } => "bodies",
            Request::Search { .. } => "search",
            Request::Stats => "stats",
            Request::Image { .. } => "image",
            Request::Previews { .. } => "previews",
            Request::HideSensitive { .. } => "hide_sensitive",
            Request::Review { .. } => "review",
            Request::Scan => "scan",
            Request::Download { .. } => "download",
            Request::EditPoints { .. } => "edit_points",
            Request::Fork { .. } => "fork",
            Request::Seal { .. } => "seal",
            Request::Compare { .. } => "compare",
            #[cfg(feature = "api")]
            Request::Tree => "tree",
            #[cfg(feature = "api")]
            Request::Context { .. } => "context",
            #[cfg(feature = "api")]
            Request::Migrate { .. } => "migrate",
        }
    }

    /// Whether the request comes with files (the worker transport sends
    /// them beside the JSON).
    pub fn takes_files(&self) -> bool {
        matches!(self, Request::Open { .. } | Request::OpenFolder { .. })
    }

    /// The cargo feature of retrace-wasm a kind needs, for the kinds not in
    /// every build (`Cargo.toml` lists the features); a build without it
    /// answers them with code `unsupported`. The player's slim build
    /// leaves them out; the viewer's leaves out `api`.
    pub fn feature(kind: &str) -> Option<&'static str> {
        match kind {
            "edit_points" | "fork" | "seal" => Some("edit"),
            "open_folder" | "open_listed" => Some("folders"),
            "review" | "scan" | "download" => Some("share"),
            "search" => Some("search"),
            "stats" => Some("stats"),
            "compare" => Some("compare"),
            "tree" | "context" | "migrate" => Some("api"),
            _ => None,
        }
    }

    /// Whether this build of the engine answers a kind (has its feature).
    pub fn built(kind: &str) -> bool {
        match Request::feature(kind) {
            Some("edit") => cfg!(feature = "edit"),
            Some("folders") => cfg!(feature = "folders"),
            Some("share") => cfg!(feature = "share"),
            Some("search") => cfg!(feature = "search"),
            Some("stats") => cfg!(feature = "stats"),
            Some("compare") => cfg!(feature = "compare"),
            Some("api") => cfg!(feature = "api"),
            Some(_) | None => true,
        }
    }

    /// Reads a request. By hand rather than derived: serde's derive for an
    /// internally tagged enum buffers the request in a generic tree first,
    /// and its code was the largest function of the worker's wasm (growing
    /// with each kind). Here the request is read as a `serde_json::Value`,
    /// with the parser the engine reads every body with, and the kind picks
    /// its fields.
    pub fn from_json(text: &str) -> Result<Request, EngineError> {
        let v: Value = serde_json::from_slice(text.as_bytes())
            .map_err(|e| EngineError::bad_request(format!("a request that is not JSON: {e}")))?;
        let kind = v
            .get("kind")
            .and_then(Value::as_str)
            .ok_or_else(|| EngineError::bad_request("a request without a `kind`"))?;
        let fail = |field: &str| {
            EngineError::bad_request(format!("a `{kind}` request without a valid `{field}`"))
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
        let texts = |field: &str| {
            v.get(field)
                .and_then(Value::as_array)
                .and_then(|a| a.iter().map(|p| p.as_str().map(str::to_owned)).collect())
                .ok_or_else(|| fail(field))
        };
        let flag = |field: &str, within: &Value| {
            within
                .get(field)
                .and_then(Value::as_bool)
                .ok_or_else(|| fail(field))
        };
        let label = |field: &str| v.get(field).and_then(Value::as_str).map(str::to_owned);
        Ok(match kind {
            "open" => Request::Open {
                leaf_label: label("leaf_label"),
                entry: label("entry"),
                first_rows: v.get("first_rows").and_then(Value::as_bool) == Some(true),
            },
            "open_folder" => Request::OpenFolder {
                paths: texts("paths")?,
            },
            "open_listed" => Request::OpenListed {
                session: number("session")?,
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
            "hide_sensitive" => Request::HideSensitive {
                hide: flag("hide", &v)?,
            },
            "review" => Request::Review {
                disable: texts("disable")?,
                allow: v
                    .get("allow")
                    .and_then(Value::as_array)
                    .and_then(|a| {
                        a.iter()
                            .map(|f| {
                                Some(ReviewAllow {
                                    file: u32::try_from(f.get("file")?.as_u64()?).ok()?,
                                    kind: f.get("kind")?.as_str()?.to_owned(),
                                    line: f.get("line")?.as_u64()?,
                                    hash: f.get("hash")?.as_str()?.to_owned(),
                                })
                            })
                            .collect()
                    })
                    .ok_or_else(|| fail("allow"))?,
            },
            "scan" => Request::Scan,
            "download" => Request::Download {
                file: number("file")?,
                mode: text("mode")?,
                disable: texts("disable")?,
                allow: v
                    .get("allow")
                    .and_then(Value::as_array)
                    .and_then(|a| {
                        a.iter()
                            .map(|f| {
                                Some(Allow {
                                    kind: f.get("kind")?.as_str()?.to_owned(),
                                    line: f.get("line")?.as_u64()?,
                                    hash: f.get("hash")?.as_str()?.to_owned(),
                                })
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
            "compare" => Request::Compare {
                left: number("left")?,
                right: number("right")?,
            },
            #[cfg(feature = "api")]
            "tree" => Request::Tree,
            #[cfg(feature = "api")]
            "context" => Request::Context {
                leaf: number("leaf")?,
            },
            #[cfg(feature = "api")]
            "migrate" => Request::Migrate {
                leaf: number("leaf")?,
                to: target_api(&text("to")?)?,
            },
            #[cfg(not(feature = "api"))]
            "tree" | "context" | "migrate" => return Err(EngineError::not_built(kind, "api")),
            other => {
                return Err(EngineError::bad_request(format!(
                    "unknown request kind `{other}`"
                )))
            }
        })
    }
}

/// The API named `name` as `retrace migrate --to` takes it, or a
/// `bad-request` that lists the names.
pub fn target_api(name: &str) -> Result<Api, EngineError> {
    Api::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Api::ALL.iter().map(|a| a.name()).collect();
        EngineError::bad_request(format!(
            "no API `{name}` to migrate to ({})",
            names.join(", ")
        ))
    })
}

/// The JS name of a request kind's method: `edit_points` → `editPoints`.
pub fn js_name(kind: &str) -> String {
    let mut out = String::with_capacity(kind.len());
    let mut upper = false;
    for c in kind.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ErrorCode;

    /// One request of each kind, as the mapping tests walk them.
    pub(crate) fn one_of_each() -> Vec<Request> {
        vec![
            Request::Open {
                leaf_label: Some("e9".into()),
                entry: None,
                first_rows: true,
            },
            Request::OpenFolder {
                paths: vec!["p/a.jsonl".into(), "p/a/subagents/agent-1.jsonl".into()],
            },
            Request::OpenListed { session: 3 },
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
            Request::HideSensitive { hide: false },
            Request::Review {
                disable: vec!["email".into()],
                allow: vec![ReviewAllow {
                    file: 1,
                    kind: "jwt".into(),
                    line: 4,
                    hash: "00000000000000ff".into(),
                }],
            },
            Request::Scan,
            Request::Download {
                file: 1,
                mode: "typed".into(),
                disable: vec!["email".into()],
                allow: vec![Allow {
                    kind: "jwt".into(),
                    line: 4,
                    hash: "00000000000000ff".into(),
                }],
            },
            Request::EditPoints { leaf: 7 },
            Request::Fork { leaf: 7, row: 12 },
            Request::Seal { leaf: 7 },
            Request::Compare { left: 7, right: 3 },
            #[cfg(feature = "api")]
            Request::Tree,
            #[cfg(feature = "api")]
            Request::Context { leaf: 7 },
            #[cfg(feature = "api")]
            Request::Migrate {
                leaf: 7,
                to: Api::OpenAiResponses,
            },
        ]
    }

    #[test]
    fn every_request_reads_back_and_names_its_kind() {
        let mut all = one_of_each();
        let kinds: Vec<&str> = all.iter().map(Request::kind).collect();
        let built: Vec<&str> = Request::KINDS
            .into_iter()
            .filter(|k| cfg!(feature = "api") || !Request::API_KINDS.contains(k))
            .collect();
        assert_eq!(kinds, built);
        // An open with the entry label alone reads back too, and a review
        // taken back.
        all.push(Request::Open {
            leaf_label: None,
            entry: Some("L3".into()),
            first_rows: false,
        });
        all.push(Request::Review {
            disable: Vec::new(),
            allow: Vec::new(),
        });
        for r in all {
            let json = serde_json::to_string(&r).unwrap();
            assert!(
                json.starts_with(&format!(r#"{{"kind":"{}""#, r.kind())),
                "{json}"
            );
            assert_eq!(Request::from_json(&json).unwrap(), r, "{json}");
        }
        assert_eq!(
            serde_json::to_string(&Request::Fork { leaf: 7, row: 12 }).unwrap(),
            r#"{"kind":"fork","leaf":7,"row":12}"#
        );
        // An API by the name `--to` takes.
        #[cfg(feature = "api")]
        assert_eq!(
            serde_json::to_string(&Request::Migrate {
                leaf: 7,
                to: Api::OpenAiChat
            })
            .unwrap(),
            r#"{"kind":"migrate","leaf":7,"to":"openai"}"#
        );
    }

    #[test]
    fn a_bad_request_says_which_field() {
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
                r#"{"kind":"open_folder","paths":["a",2]}"#,
                "`open_folder` request without a valid `paths`",
            ),
            (
                r#"{"kind":"download","file":0,"mode":"typed","disable":[],"allow":[["jwt",4,"ff"]]}"#,
                "without a valid `allow`",
            ),
            (
                r#"{"kind":"review","disable":[],"allow":[{"kind":"jwt","line":4,"hash":"ff"}]}"#,
                "a `review` request without a valid `allow`",
            ),
            (
                r#"{"kind":"review","allow":[]}"#,
                "a `review` request without a valid `disable`",
            ),
            (r#"{"leaf":1}"#, "a request without a `kind`"),
            ("[1]", "a request without a `kind`"),
            ("{", "not JSON"),
        ] {
            let e = Request::from_json(bad).unwrap_err();
            assert_eq!(e.code, ErrorCode::BadRequest, "{bad}");
            assert!(e.message.contains(says), "{bad}: {}", e.message);
        }
    }

    /// The `api` kinds: read (their fields checked) in a build with the
    /// feature, refused as not built in one without.
    #[test]
    fn the_api_kinds_are_read_or_refused() {
        let tree = Request::from_json(r#"{"kind":"tree"}"#);
        let no_to = Request::from_json(r#"{"kind":"migrate","leaf":1}"#).unwrap_err();
        let claude =
            Request::from_json(r#"{"kind":"migrate","leaf":1,"to":"claude"}"#).unwrap_err();
        if cfg!(feature = "api") {
            assert_eq!(tree.unwrap().kind(), "tree");
            assert_eq!(no_to.code, ErrorCode::BadRequest);
            assert_eq!(no_to.message, "a `migrate` request without a valid `to`");
            assert_eq!(
                claude.message,
                "no API `claude` to migrate to (anthropic, openai, openai-responses, google)"
            );
        } else {
            let e = tree.unwrap_err();
            assert_eq!(e.code, ErrorCode::Unsupported);
            assert!(e.message.starts_with("`tree` is not in this build"));
            assert_eq!(
                (no_to.code, claude.code),
                (ErrorCode::Unsupported, ErrorCode::Unsupported)
            );
        }
    }

    #[test]
    fn js_names_are_camel_case() {
        assert_eq!(js_name("edit_points"), "editPoints");
        assert_eq!(js_name("open_listed"), "openListed");
        assert_eq!(js_name("branch"), "branch");
    }
}
