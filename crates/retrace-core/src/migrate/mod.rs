//! Migration: a context (any format's messages) written as the message list
//! of a provider API, ready to send as the history of a new request.
//!
//! ```text
//! [Message] ──prepare──▶ [Turn] ──render(api)──▶ request body  + Report
//!            ids valid for the target, calls and results paired,
//!            images of tool results attached, unanswered calls answered
//! ```
//!
//! The body holds only the history: `{"system", "messages"}` (Anthropic),
//! `{"messages"}` (OpenAI Chat), `{"input"}` (OpenAI Responses),
//! `{"systemInstruction", "contents"}` (Google). The [`Report`] says what
//! the target could not take and what was written differently, per field,
//! with counts, and notes what the caller must do to send it (a Gemini 3 or
//! Anthropic extended-thinking tool loop without its signatures, Responses
//! items the SDKs' types reject); [`report`] gives it without keeping the
//! body. [`try_migrate`] refuses a history with nothing to send.
//!
//! Everything is deterministic: generated ids come from positions and a
//! fixed hash, never from a clock or a random source.
//!
//! A long history is migrated in two passes over its messages, one
//! message at a time, and never held whole: a [`Planner`] reads them for
//! what a turn cannot know until the end (which calls are answered, which
//! results move up to their call, each call's id), then a [`Streamed`]
//! migration reads them again and writes the body as pretty-printed JSON
//! element by element, byte for byte what `serde_json::to_writer_pretty`
//! writes of [`migrate`]'s body. [`migrate`] is the same two passes over a
//! slice, collected into a value.
//!
//! Normalization a round trip (a list of one API → messages → the same API)
//! does not undo, documented so tests can compare:
//! - a content that is one text is written as a plain string (Anthropic and
//!   OpenAI message content, OpenAI Responses user content);
//! - empty texts are left out, and so is OpenAI assistant `content` when
//!   there is no text (`null`);
//! - tool arguments are re-serialized compactly (OpenAI's JSON strings);
//! - Anthropic `system` blocks become one string; fields the model does not
//!   keep (`cache_control`, `citations`, message `name`, Responses
//!   `annotations` contents, `status` of call items, an image's `detail`)
//!   are not written back (a Responses image's `detail` is written `auto`,
//!   below);
//! - OpenAI Responses messages are written as `type: "message"` items, and
//!   a request body's `instructions` as a system message first in `input`;
//! - Google thought parts are dropped (the API takes no thoughts back);
//! - OpenAI Responses `input_image` parts get `"detail": "auto"` (the SDKs'
//!   type requires one; the session keeps none);
//! - an OpenAI Chat `refusal` is written back as the message's content.

// Declared bottom-up: a module uses only those above it.
mod report;
mod prepare;
mod sink;
mod render;
mod anthropic;
mod google;
mod openai_chat;
mod openai_responses;

use std::io::{self, Write};

use serde_json::Value;

pub use report::{Change, ChangeCount, Report};

use crate::model::message::{Message, MessageKind, Role};
use crate::model::provider::Api;
use prepare::{Emitter, Turn};
use render::Render;
use report::Tally;
use sink::{Collect, Discard, Pretty, Sink};

/// A history written for one API, and what that cost.
#[derive(Debug, Clone)]
pub struct Migration {
    /// The request body fields that hold the history.
    pub body: Value,
    /// What the target could not take or took differently.
    pub report: Report,
}

/// Why a history cannot be sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MigrateError {
    /// Nothing is left to send: no user, model or tool turn (a branch of
    /// system lines, markers or empty messages only). Every API rejects a
    /// history without one.
    #[error("{}", nothing_to_send(*.messages, *.system, *.markers))]
    NothingToSend {
        /// Messages read.
        messages: usize,
        /// System prompts among them.
        system: usize,
        /// Timeline markers among them (never said to a model).
        markers: usize,
    },
}

fn nothing_to_send(messages: usize, system: usize, markers: usize) -> String {
    let plural = |n: usize, one: &str, many: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    };
    let what = if messages == 0 {
        "the branch holds no messages".to_owned()
    } else {
        let emptied = messages - system - markers;
        let why: Vec<String> = [
            (system, "system prompt", "system prompts"),
            (markers, "timeline marker", "timeline markers"),
            (emptied, "left empty", "left empty"),
        ]
        .into_iter()
        .filter(|w| w.0 > 0)
        .map(|(n, one, many)| plural(n, one, many))
        .collect();
        format!(
            "none of the branch's {} is a user or model turn ({})",
            plural(messages, "message", "messages"),
            why.join(", ")
        )
    };
    format!("nothing to send: {what} (every API rejects a history without a user or model turn)")
}

/// Writes `messages` as the history of a request to `to`, or says why
/// there is nothing to send: unlike [`migrate`], a history without a user
/// or model turn is an error, since every API rejects one.
pub fn try_migrate(messages: &[Message], to: Api) -> Result<Migration, MigrateError> {
    let migration = migrate(messages, to);
    if has_conversation(&migration.body, to) {
        return Ok(migration);
    }
    let mut counts = Counts::default();
    for m in messages {
        counts.add(m);
    }
    Err(counts.nothing_to_send())
}

/// What a history held, for [`MigrateError::NothingToSend`].
#[derive(Debug, Default)]
struct Counts {
    messages: usize,
    system: usize,
    markers: usize,
}

impl Counts {
    fn add(&mut self, m: &Message) {
        self.messages += 1;
        if m.kind == MessageKind::Marker {
            self.markers += 1;
        } else if m.role == Role::System {
            self.system += 1;
        }
    }

    fn nothing_to_send(&self) -> MigrateError {
        MigrateError::NothingToSend {
            messages: self.messages,
            system: self.system,
            markers: self.markers,
        }
    }
}

/// Whether a body holds a turn other than system prompts.
fn has_conversation(body: &Value, to: Api) -> bool {
    let list = |key: &str| body[key].as_array().map_or(&[][..], Vec::as_slice);
    let system = |item: &Value| matches!(item["role"].as_str(), Some("system" | "developer"));
    match to {
        Api::Anthropic => !list("messages").is_empty(),
        Api::Google => !list("contents").is_empty(),
        Api::OpenAiChat => list("messages").iter().any(|m| !system(m)),
        Api::OpenAiResponses => list("input").iter().any(|m| !system(m)),
    }
}

/// The name of the list a body of `to` holds.
fn list_of(to: Api) -> &'static str {
    match to {
        Api::Anthropic | Api::OpenAiChat => "messages",
        Api::OpenAiResponses => "input",
        Api::Google => "contents",
    }
}

fn renderer(to: Api) -> Box<dyn Render> {
    match to {
        Api::Anthropic => Box::new(anthropic::Render::new()),
        Api::OpenAiChat => Box::<openai_chat::Render>::default(),
        Api::OpenAiResponses => Box::<openai_responses::Render>::default(),
        Api::Google => Box::new(google::Render::new()),
    }
}

/// Writes `messages` as the history of a request to `to`. A branch with
/// nothing to send gives an empty history, which no API takes:
/// [`try_migrate`] refuses it.
pub fn migrate(messages: &[Message], to: Api) -> Migration {
    let mut planner = Planner::new(to);
    for m in messages {
        planner.add(m);
    }
    let mut sink = Collect::new(list_of(to));
    let mut second = Second::new(planner.finish());
    // A value is built in memory: `Collect` returns no error.
    let written = messages
        .iter()
        .try_for_each(|m| second.add(m, &mut sink))
        .and_then(|()| second.finish(&mut sink));
    let (report, _) = written.unwrap_or_else(|e| unreachable!("collecting values: {e}"));
    Migration {
        body: sink.into_body(),
        report,
    }
}

/// The first pass of a migration, fed the history's messages in order.
#[derive(Debug)]
pub struct Planner {
    prepare: prepare::Planner,
    counts: Counts,
}

/// What the first pass learnt, for the second ([`Streamed::new`]).
#[derive(Debug)]
pub struct Plan {
    prepare: prepare::Plan,
    counts: Counts,
}

impl Planner {
    /// A first pass for a migration to `to`.
    pub fn new(to: Api) -> Planner {
        Planner {
            prepare: prepare::Planner::new(to),
            counts: Counts::default(),
        }
    }

    /// Reads the next message.
    pub fn add(&mut self, m: &Message) {
        self.counts.add(m);
        self.prepare.add(m);
    }

    /// Ends the pass.
    pub fn finish(self) -> Plan {
        Plan {
            prepare: self.prepare.finish(),
            counts: self.counts,
        }
    }
}

/// The second pass: turns made and rendered as the messages come.
struct Second {
    to: Api,
    emitter: Emitter,
    render: Box<dyn Render>,
    tally: Tally,
    counts: Counts,
    ready: Vec<Turn>,
}

impl Second {
    fn new(plan: Plan) -> Second {
        let Plan {
            mut prepare,
            counts,
        } = plan;
        let to = prepare.to;
        // What preparing noted comes first, as in one pass.
        let tally = std::mem::take(&mut prepare.tally);
        Second {
            to,
            emitter: Emitter::new(prepare),
            render: renderer(to),
            tally,
            counts,
            ready: Vec::new(),
        }
    }

    fn add(&mut self, m: &Message, sink: &mut dyn Sink) -> io::Result<()> {
        let ready = &mut self.ready;
        self.emitter.add(m, |t| ready.push(t));
        for turn in self.ready.drain(..) {
            self.render.turn(&turn, &mut self.tally, sink)?;
        }
        Ok(())
    }

    fn finish(mut self, sink: &mut dyn Sink) -> io::Result<(Report, Counts)> {
        let ready = &mut self.ready;
        self.emitter.finish(|t| ready.push(t));
        for turn in self.ready.drain(..) {
            self.render.turn(&turn, &mut self.tally, sink)?;
        }
        let written = self.render.finish(&mut self.tally, sink)?;
        let report = self
            .tally
            .into_report(self.to, self.counts.messages, written);
        Ok((report, self.counts))
    }
}

/// The second pass of a streamed migration: the same messages as the
/// [`Planner`] read, in the same order, written to `out` as they come as
/// [`migrate`]'s body pretty-printed (no newline after it). Nothing is
/// written when there is nothing to send ([`MigrateError::NothingToSend`]).
pub struct Streamed<W: Write> {
    second: Second,
    sink: Pretty<W>,
}

/// Why a streamed migration failed.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// Nothing to send; nothing was written.
    #[error(transparent)]
    Refused(#[from] MigrateError),
    /// Writing to the output failed.
    #[error(transparent)]
    Write(#[from] io::Error),
}

impl<W: Write> Streamed<W> {
    /// The second pass of the migration `plan` is the first of, to `out`.
    pub fn new(plan: Plan, out: W) -> Streamed<W> {
        let list = list_of(plan.prepare.to);
        Streamed {
            second: Second::new(plan),
            sink: Pretty::new(out, list),
        }
    }

    /// Reads the next message, writing what is done.
    pub fn add(&mut self, m: &Message) -> io::Result<()> {
        self.second.add(m, &mut self.sink)
    }

    /// Writes the rest; gives the report.
    pub fn finish(mut self) -> Result<Report, StreamError> {
        let (report, counts) = self.second.finish(&mut self.sink)?;
        if !self.sink.finish()? {
            return Err(counts.nothing_to_send().into());
        }
        Ok(report)
    }
}

/// How many of each of `changes` a migration of `messages` to `to` would
/// note: `migrate(messages, to).report.count(change)` for each, without
/// writing the body. When the renderer of `to` notes none of them, the
/// first pass alone decides them; else the second pass runs with its
/// elements dropped as they come (the resume check asks this for every
/// API of a long branch, where building four bodies cost most of
/// `retrace validate`).
pub fn count_changes(messages: &[Message], to: Api, changes: &[Change]) -> Vec<usize> {
    let mut planner = Planner::new(to);
    for m in messages {
        planner.add(m);
    }
    let plan = planner.finish();
    if !changes.iter().any(|&c| rendering_notes(to, c)) {
        return changes
            .iter()
            .map(|&c| plan.prepare.tally.count(c))
            .collect();
    }
    let mut second = Second::new(plan);
    let written = messages
        .iter()
        .try_for_each(|m| second.add(m, &mut Discard))
        .and_then(|()| second.finish(&mut Discard));
    // `Discard` returns no error.
    let (report, _) = written.unwrap_or_else(|e| unreachable!("dropping values: {e}"));
    changes.iter().map(|&c| report.count(c)).collect()
}

/// Whether the renderer for `to` may note `change`; the first pass notes
/// the rest. Kept in step with the renderers' `tally.note` calls (the
/// corpus test `count_changes_is_the_report_on_every_branch` compares
/// both paths).
fn rendering_notes(to: Api, change: Change) -> bool {
    use Change::*;
    let every = matches!(
        change,
        RoleRenamed
            | ThinkingDropped
            | RedactedThinkingDropped
            | SignatureDropped
            | ImageDropped
            | MediaDropped
            | ImageWithoutPayload
            | TurnsMerged
            | ErrorFlagDropped
    );
    every
        || match to {
            Api::Anthropic | Api::Google => matches!(
                change,
                SystemMoved
                    | UserTurnAdded
                    | ArgumentsWrapped
                    | LoopThinkingMissing
                    | ThoughtSignatureMissing
            ),
            Api::OpenAiChat | Api::OpenAiResponses => matches!(change, ItemIdMissing),
        }
}

/// What a migration of `messages` to `to` would lose or change.
pub fn report(messages: &[Message], to: Api) -> Report {
    migrate(messages, to).report
}

#[cfg(test)]
mod tests;
