//! Each tool call with its result, so a view shows one block per call:
//! the call titled by its tool, the result inside it, not a card of its
//! own further down (with hook and progress lines in between).
//!
//! Two shapes of the same rule (a result answers the latest call before it
//! with its id that is still open): [`pair_calls`] over a list of messages
//! (what `retrace show` prints), and [`Session::row_pairing`] over a
//! branch's rows, reading just the rows around one (what the viewer asks
//! for a row on screen). A call no result answers stays unpaired, and views
//! say so: sealing relies on people seeing them.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::model::message::{Message, Part, ToolRun};
use crate::model::sort::sort_by_key;
use crate::session::{Row, RowKind, Session};
use crate::source::{Source, SourceError};

use super::output::ToolOutput;

/// Message rows looked at before or after a row for the other half of its
/// pairs. Results follow their calls closely (parallel calls: a few rows);
/// the bound keeps one row's body from reading a whole branch.
pub const PAIRING_REACH: usize = 48;

/// A call and its result in a list of messages, each as (message index,
/// part index).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// Where the call is.
    pub call: (usize, usize),
    /// Where its result is (after the call).
    pub result: (usize, usize),
}

/// Every call in `messages` that a later result answers, in call order.
/// Calls without an id (Google's) pair with results without one in order.
pub fn pair_calls(messages: &[Message]) -> Vec<Pair> {
    let mut open: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    let mut pairs = Vec::new();
    for (mi, m) in messages.iter().enumerate() {
        for (pi, part) in m.content.iter().enumerate() {
            match part {
                Part::ToolCall { id, .. } => open.entry(id.as_str()).or_default().push((mi, pi)),
                Part::ToolResult { call_id, .. } => {
                    if let Some(calls) = open.get_mut(call_id.as_str()).filter(|c| !c.is_empty()) {
                        // The latest open call of that id, as a branch
                        // replayed after a rewind reuses ids; without an
                        // id, the first.
                        let call = if call_id.is_empty() {
                            calls.remove(0)
                        } else {
                            calls.pop().expect("not empty")
                        };
                        pairs.push(Pair {
                            call,
                            result: (mi, pi),
                        });
                    }
                }
                _ => {}
            }
        }
    }
    sort_by_key(&mut pairs, |p| p.call);
    pairs
}

/// A result found on another row for a call of this one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RowResult {
    /// The row that holds it.
    pub row: usize,
    /// The call it answers.
    pub call_id: String,
    /// What the tool returned (its stdout where the streams are apart).
    pub output: String,
    /// The tool reported a failure.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// What it wrote on stderr, where the file keeps that apart (Claude
    /// Code's `toolUseResult`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The run was interrupted (Claude Code's `toolUseResult`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The images the tool returned with it (a screenshot a read gave
    /// back), which a view shows in the call's block.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ResultImage>,
    /// The exit code, where the run's report gives it and the output does
    /// not (Codex: `output` is then taken apart already, see
    /// [`ToolOutput::with_run`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// How long it ran, where the report or the output's framing says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall_time: Option<String>,
}

impl RowResult {
    /// A result as its row wrote it, nothing kept beside it yet.
    pub fn new(row: usize, call_id: String, output: String, is_error: bool) -> RowResult {
        RowResult {
            row,
            call_id,
            output,
            is_error,
            stderr: None,
            interrupted: false,
            images: Vec::new(),
            exit_code: None,
            wall_time: None,
        }
    }

    /// The result as a view shows it: its text taken apart
    /// ([`ToolOutput::of`]) with what its row kept beside it (stderr
    /// apart, an interruption, the run's exit code and duration).
    pub fn framed(&self) -> ToolOutput {
        let mut o = ToolOutput::of(&self.output);
        if self.stderr.is_some() {
            o.stderr = self.stderr.clone();
        }
        o.interrupted |= self.interrupted;
        o.exit_code = o.exit_code.or(self.exit_code);
        o.wall_time = o.wall_time.take().or(self.wall_time.clone());
        o
    }

    /// The result on row `row` with what the reports of its run (`runs`,
    /// from the result's message and the call's) add to it.
    fn reported(mut self, runs: [Option<&ToolRun>; 2]) -> RowResult {
        let mut run: Option<ToolRun> = None;
        for r in runs.into_iter().flatten() {
            match &mut run {
                Some(run) => run.merge(r.clone()),
                None => run = Some(r.clone()),
            }
        }
        if let Some(run) = run {
            let o = ToolOutput::of(&self.output).with_run(&run);
            self.output = o.output;
            self.stderr = self.stderr.or(o.stderr);
            self.exit_code = o.exit_code;
            self.wall_time = o.wall_time;
            self.is_error |= run.failed;
        }
        self
    }
}

/// An image that came with a result, by its place among its row's images
/// (what a view asks the file's bytes for).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ResultImage {
    /// Its ordinal among the images of the row that holds it.
    pub index: usize,
    /// `image/png`, or `image/*` where the source did not say.
    pub media_type: String,
    /// Bytes of the decoded image.
    pub byte_size: u64,
}

/// How one row's calls and results pair with other rows.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RowPairing {
    /// The results, on later rows, of this row's calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub results: Vec<RowResult>,
    /// The ids of this row's results that answer calls of earlier rows
    /// (shown in those calls' blocks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answered: Vec<String>,
    /// Every part of this row is shown in earlier rows' blocks: the row
    /// folds into the one named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folded_into: Option<usize>,
    /// Ids of this row's calls with no result up to the end of the branch.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unanswered: Vec<String>,
}

impl Session {
    /// How the calls and results of row `at` of `rows` (the rows of one
    /// branch) pair with the rows around it, `message` being the row's
    /// own (from [`Session::row_message`]). Reads the messages of at most
    /// [`PAIRING_REACH`] message rows each way, and only when the row has
    /// calls or results.
    pub fn row_pairing<S: Source + ?Sized>(
        &self,
        rows: &[Row],
        at: usize,
        message: &Message,
        source: &mut S,
    ) -> Result<RowPairing, SourceError> {
        let mut pairing = RowPairing::default();
        let results_here: Vec<&str> = message
            .content
            .iter()
            .filter_map(|p| match p {
                Part::ToolResult { call_id, .. } => Some(call_id.as_str()),
                _ => None,
            })
            .collect();
        let calls_here: Vec<&str> = message
            .content
            .iter()
            .filter_map(|p| match p {
                Part::ToolCall { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect();
        // Calls answered inside the row (a Gemini CLI record, an event
        // stream's tool call) need no other row.
        let mut open: Vec<&str> = calls_here
            .iter()
            .copied()
            .filter(|id| !results_here.contains(id))
            .collect();
        let mut seen = 0;
        let mut r = at + 1;
        while !open.is_empty() && r < rows.len() && seen < PAIRING_REACH {
            if rows[r].kind == RowKind::Message {
                seen += 1;
                if let Some(m) = self.row_message(&rows[r], source)? {
                    let streams = match rows[r].entries[..] {
                        [only] => self.result_streams(only, &m, source)?,
                        _ => None,
                    };
                    // An image belongs to the result before it.
                    let mut images = 0;
                    let mut last: Option<usize> = None;
                    for part in &m.content {
                        if let Part::Image {
                            media_type,
                            byte_size,
                        } = part
                        {
                            if let Some(last) = last {
                                pairing.results[last].images.push(ResultImage {
                                    index: images,
                                    media_type: media_type.clone(),
                                    byte_size: *byte_size,
                                });
                            }
                            images += 1;
                            continue;
                        }
                        let Part::ToolResult {
                            call_id,
                            output,
                            is_error,
                        } = part
                        else {
                            continue;
                        };
                        last = None;
                        let Some(i) = open.iter().position(|id| id == call_id) else {
                            continue;
                        };
                        last = Some(pairing.results.len());
                        open.remove(i);
                        let (output, stderr, interrupted) = match &streams {
                            Some(o) => (o.output.clone(), o.stderr.clone(), o.interrupted),
                            None => (output.clone(), None, false),
                        };
                        let result = RowResult {
                            stderr,
                            interrupted,
                            ..RowResult::new(r, call_id.clone(), output, *is_error)
                        };
                        pairing
                            .results
                            .push(result.reported([m.run_of(call_id), message.run_of(call_id)]));
                    }
                }
            }
            r += 1;
        }
        // A run reported here with no result in reach (its output never
        // written), or for a call not here (a report written away from its
        // call): the report is the result.
        for run in &message.runs {
            let here = calls_here.contains(&run.call_id.as_str());
            if (here && !open.contains(&run.call_id.as_str()))
                || results_here.contains(&run.call_id.as_str())
            {
                continue;
            }
            open.retain(|id| *id != run.call_id);
            let result = RowResult::new(at, run.call_id.clone(), String::new(), false);
            pairing.results.push(result.reported([Some(run), None]));
        }
        if r >= rows.len() {
            pairing.unanswered = open.iter().map(|s| (*s).to_owned()).collect();
        }
        // The results answering calls of earlier rows.
        let mut wanted: Vec<&str> = results_here
            .iter()
            .copied()
            .filter(|id| !calls_here.contains(id))
            .collect();
        let mut seen = 0;
        let mut first_call_row = None;
        let mut r = at;
        while !wanted.is_empty() && r > 0 && seen < PAIRING_REACH {
            r -= 1;
            if rows[r].kind != RowKind::Message {
                continue;
            }
            seen += 1;
            let Some(m) = self.row_message(&rows[r], source)? else {
                continue;
            };
            for (id, _) in m.tool_calls() {
                if let Some(i) = wanted.iter().position(|w| *w == id) {
                    pairing.answered.push(wanted.remove(i).to_owned());
                    first_call_row = Some(r);
                }
            }
        }
        let only_answered_results = !pairing.answered.is_empty()
            && message.content.iter().all(|p| match p {
                Part::ToolResult { call_id, .. } => pairing.answered.contains(call_id),
                // An image a tool returned goes with its result.
                Part::Image { .. } => true,
                Part::Text { text } => text.trim().is_empty(),
                _ => false,
            });
        if only_answered_results {
            pairing.folded_into = first_call_row;
        }
        Ok(pairing)
    }
}
