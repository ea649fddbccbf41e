//! What a session is, in numbers: the figures `retrace info` prints and
//! the viewer's details panel shows, computed once here.
//!
//! Two steps, because they cost differently:
//! - [`Summary`] comes from the index alone (format, entries, branches,
//!   time span, reading diagnostics): free once the session is read.
//! - [`Stats`] comes from [`Session::check`](crate::Session::check), which
//!   parses every body (messages, tool calls, tokens and cost per model).
//!
//! [`Info`] puts both together as `retrace info --json` writes them: a
//! public interface, so its field names and order do not change.

use serde::{Deserialize, Serialize};

use crate::{BranchKind, Check, Diagnostic, Format, Session, Severity};

/// The figures of a session's index (no body read).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
// `Figures` in TypeScript: `Summary` there is retrace-wasm's, the answer
// to an open that holds these.
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Figures"))]
pub struct Summary {
    /// The format's name, as `--format` takes it (`pi`, `claude-code`, …).
    pub format: String,
    /// The format's version, where it has one (pi).
    pub version: Option<u32>,
    /// Input files.
    pub files: usize,
    /// Entries (JSON objects) read.
    pub entries: usize,
    /// Entries in the branch tree.
    pub nodes: usize,
    /// Branch ends a person could pick (structural dead ends folded in).
    pub leaves: usize,
    /// Real branch points (rewinds, forks).
    pub branch_points: usize,
    /// Structural fan-outs (parallel tool calls, hook lines).
    pub structural_branch_points: usize,
    /// Subagent files linked to the conversation.
    pub subagents: usize,
    /// The earliest and latest entry timestamps, in milliseconds since the
    /// Unix epoch.
    pub start: Option<i64>,
    /// See `start`.
    pub end: Option<i64>,
    /// Problems found while reading, and how many of them are errors and
    /// warnings.
    pub diagnostics: usize,
    /// Diagnostics that are errors.
    pub errors: usize,
    /// Diagnostics that are warnings.
    pub warnings: usize,
}

impl Summary {
    /// The figures of `session`'s index.
    pub fn new(session: &Session) -> Summary {
        let tree = session.tree();
        let (mut start, mut end) = (None::<i64>, None::<i64>);
        for t in session.entries().iter().filter_map(|e| e.timestamp()) {
            start = Some(start.map_or(t, |s| s.min(t)));
            end = Some(end.map_or(t, |e| e.max(t)));
        }
        let kinds = |k| tree.branch_points().iter().filter(|b| b.kind == k).count();
        let (diagnostics, errors, warnings) = severities(session.diagnostics());
        Summary {
            format: session.format().name().to_owned(),
            version: match session.format() {
                Format::Pi { version } => Some(version),
                _ => None,
            },
            files: session.files().len(),
            entries: session.entries().len(),
            nodes: tree.len(),
            leaves: tree.tips().len(),
            branch_points: kinds(BranchKind::Real),
            structural_branch_points: kinds(BranchKind::Structural),
            subagents: session.subagents().len(),
            start,
            end,
            diagnostics,
            errors,
            warnings,
        }
    }

    /// The format as a person reads it: `claude-code`, `pi v3`.
    pub fn format_label(&self) -> String {
        match self.version {
            Some(v) => format!("{} v{v}", self.format),
            None => self.format.clone(),
        }
    }

    /// From the first timestamp to the last, in milliseconds.
    pub fn duration_ms(&self) -> Option<i64> {
        self.start.zip(self.end).map(|(a, b)| b - a)
    }
}

/// The figures that need every body parsed, from a [`Check`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Stats {
    /// Normalized messages (a response split over lines counts once),
    /// markers not included.
    pub messages: u64,
    /// Events on the timeline (rollbacks, aborted turns, state transitions).
    pub markers: u64,
    /// Distinct tool calls.
    pub tool_calls: u64,
    /// Tool results.
    pub tool_results: u64,
    /// Tool results marked as errors.
    pub tool_errors: u64,
    /// Tool results with no call before them on their branch.
    pub results_without_call: u64,
    /// Tool calls with no result after them on a branch that ends.
    pub calls_without_result: u64,
    /// Problems only the check finds, and how many are errors and warnings
    /// (the reading diagnostics are in [`Summary`]).
    pub diagnostics: usize,
    /// Check diagnostics that are errors.
    pub errors: usize,
    /// Check diagnostics that are warnings.
    pub warnings: usize,
    /// Messages and tokens per model, by model name (in name order).
    pub models: Vec<(String, ModelStat)>,
}

/// Messages and tokens of one model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelStat {
    /// Messages the model wrote.
    pub messages: u64,
    /// Input tokens not read from the cache.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write_tokens: u64,
    /// In US dollars, where the file records it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl Stats {
    /// The figures of a deep check.
    pub fn new(check: &Check) -> Stats {
        let (diagnostics, errors, warnings) = severities(&check.diagnostics);
        Stats {
            messages: check.messages,
            markers: check.markers,
            tool_calls: check.tool_calls,
            tool_results: check.tool_results,
            tool_errors: check.tool_errors,
            results_without_call: check.pairing.results_without_call,
            calls_without_result: check.pairing.calls_without_result,
            diagnostics,
            errors,
            warnings,
            models: check
                .models
                .iter()
                .map(|(name, m)| {
                    let stat = ModelStat {
                        messages: m.messages,
                        input_tokens: m.usage.input,
                        output_tokens: m.usage.output,
                        cache_read_tokens: m.usage.cache_read,
                        cache_write_tokens: m.usage.cache_write,
                        cost_usd: m.usage.cost,
                    };
                    (name.clone(), stat)
                })
                .collect(),
        }
    }
}

/// Pairs as a JSON object, in their order.
fn as_map<S: serde::Serializer>(
    pairs: &&[(String, ModelStat)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_map(pairs.iter().map(|(k, v)| (k, v)))
}

/// How many diagnostics, and how many of them are errors and warnings.
fn severities(all: &[Diagnostic]) -> (usize, usize, usize) {
    let count = |severity| all.iter().filter(|d| d.severity == severity).count();
    (all.len(), count(Severity::Error), count(Severity::Warning))
}

/// A session's [`Summary`] and [`Stats`] as one JSON object, the way
/// `retrace info --json` writes it: `path` first (then `title`), diagnostics counted over
/// both, timestamps as RFC 3339 text. The field names and their order are
/// a public interface.
#[derive(Debug, Clone, Copy)]
pub struct Info<'a> {
    /// The input as it was named (a path, a folder, `-`).
    pub path: &'a str,
    /// The session's title ([`session_title`](crate::session_title): its
    /// first typed prompt, as `retrace list` and the viewer show it); left
    /// out of the JSON when `None`.
    pub title: Option<&'a str>,
    /// The index figures.
    pub summary: &'a Summary,
    /// The check figures.
    pub stats: &'a Stats,
}

impl Serialize for Info<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Json<'a> {
            path: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            title: Option<&'a str>,
            format: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            version: Option<u32>,
            files: usize,
            entries: usize,
            messages: u64,
            markers: u64,
            leaves: usize,
            branch_points: usize,
            structural_branch_points: usize,
            tool_calls: u64,
            tool_results: u64,
            tool_errors: u64,
            results_without_call: u64,
            calls_without_result: u64,
            diagnostics: usize,
            errors: usize,
            warnings: usize,
            subagents: usize,
            #[serde(skip_serializing_if = "Option::is_none")]
            first_timestamp: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            last_timestamp: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            duration_ms: Option<i64>,
            #[serde(serialize_with = "as_map")]
            models: &'a [(String, ModelStat)],
        }
        let (s, t) = (self.summary, self.stats);
        Json {
            path: self.path,
            title: self.title,
            format: &s.format,
            version: s.version,
            files: s.files,
            entries: s.entries,
            messages: t.messages,
            markers: t.markers,
            leaves: s.leaves,
            branch_points: s.branch_points,
            structural_branch_points: s.structural_branch_points,
            tool_calls: t.tool_calls,
            tool_results: t.tool_results,
            tool_errors: t.tool_errors,
            results_without_call: t.results_without_call,
            calls_without_result: t.calls_without_result,
            diagnostics: s.diagnostics + t.diagnostics,
            errors: s.errors + t.errors,
            warnings: s.warnings + t.warnings,
            subagents: s.subagents,
            first_timestamp: s.start.map(crate::format_rfc3339_ms),
            last_timestamp: s.end.map(crate::format_rfc3339_ms),
            duration_ms: s.duration_ms(),
            models: &t.models,
        }
        .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_json_keeps_its_field_order_and_leaves_out_what_is_unknown() {
        let summary = Summary {
            format: "pi".into(),
            version: Some(3),
            files: 1,
            entries: 4,
            nodes: 3,
            leaves: 2,
            branch_points: 1,
            structural_branch_points: 0,
            subagents: 0,
            start: Some(0),
            end: Some(1500),
            diagnostics: 1,
            errors: 0,
            warnings: 1,
        };
        let mut stats = Stats {
            messages: 3,
            diagnostics: 2,
            errors: 1,
            ..Stats::default()
        };
        stats.models.push((
            "m".into(),
            ModelStat {
                messages: 2,
                input_tokens: 10,
                output_tokens: 5,
                cost_usd: Some(0.25),
                ..ModelStat::default()
            },
        ));
        let info = Info {
            path: "s.jsonl",
            title: Some("Fix the \"bug\""),
            summary: &summary,
            stats: &stats,
        };
        assert_eq!(
            serde_json::to_string(&info).unwrap(),
            concat!(
                r#"{"path":"s.jsonl","title":"Fix the \"bug\"","format":"pi","version":3,"files":1,"entries":4,"messages":3,"markers":0,"#,
                r#""leaves":2,"branch_points":1,"structural_branch_points":0,"tool_calls":0,"tool_results":0,"#,
                r#""tool_errors":0,"results_without_call":0,"calls_without_result":0,"diagnostics":3,"errors":1,"#,
                r#""warnings":1,"subagents":0,"first_timestamp":"1970-01-01T00:00:00.000Z","#,
                r#""last_timestamp":"1970-01-01T00:00:01.500Z","duration_ms":1500,"#,
                r#""models":{"m":{"messages":2,"input_tokens":10,"output_tokens":5,"cache_read_tokens":0,"#,
                r#""cache_write_tokens":0,"cost_usd":0.25}}}"#
            )
        );
        let bare = Summary {
            version: None,
            start: None,
            end: None,
            ..summary.clone()
        };
        let json = serde_json::to_string(&Info {
            path: "-",
            title: None,
            summary: &bare,
            stats: &Stats::default(),
        })
        .unwrap();
        for absent in [
            "title",
            "version",
            "first_timestamp",
            "last_timestamp",
            "duration_ms",
        ] {
            assert!(!json.contains(absent), "{json}");
        }
        assert!(json.ends_with(r#""subagents":0,"models":{}}"#), "{json}");
    }

    #[test]
    fn formats_read_as_people_name_them() {
        let mut s = Summary {
            format: "pi".into(),
            version: Some(3),
            ..Summary::default()
        };
        assert_eq!(s.format_label(), "pi v3");
        s.version = None;
        s.format = "claude-code".into();
        assert_eq!(s.format_label(), "claude-code");
    }

    #[test]
    fn summaries_and_stats_cross_as_json_and_back() {
        let lines = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
            "\n",
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#,
            "\n",
            r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"assistant","model":"m","content":[{"type":"text","text":"hello"}],"usage":{"input":7,"output":2,"cacheRead":0,"cacheWrite":0,"cost":{"total":0.5}}}}"#,
            "\n",
        );
        let s = Session::from_bytes("t.jsonl", lines.as_bytes());
        let summary = Summary::new(&s);
        assert_eq!(summary.format_label(), "pi v3");
        assert_eq!((summary.entries, summary.leaves), (3, 1));
        assert_eq!(summary.duration_ms(), Some(3000));
        let stats = Stats::new(&s.check(&mut lines.as_bytes()).unwrap());
        assert_eq!(stats.messages, 2);
        assert_eq!(stats.models[0].0, "m");
        assert_eq!(stats.models[0].1.messages, 1);
        let back: Summary =
            serde_json::from_str(&serde_json::to_string(&summary).unwrap()).unwrap();
        assert_eq!(back, summary);
        let back: Stats = serde_json::from_str(&serde_json::to_string(&stats).unwrap()).unwrap();
        assert_eq!(back, stats);
    }
}
