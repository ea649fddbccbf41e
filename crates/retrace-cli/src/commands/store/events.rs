//! `store record`, `events`, `pop`, `resume`, `export`: a session's events.

use std::io::{BufRead, Write};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use retrace_core::{Event, EventData};
use retrace_io::OutputFile;
use retrace_store::{Durability, Recorder, RecorderOptions, SessionId, StoreError, StoredEvent};
use serde_json::Value;

use super::sessions::time;
use super::Store;
use crate::exit::ExitStatus;
use crate::printer::Printer;

/// Records one event, or one per line of standard input. A tool call is
/// followed by a checkpoint of the session's workspace when it has one.
pub(super) fn record(
    store: &Store,
    id: &SessionId,
    event: &str,
    durable: bool,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    // The session must exist before its lock is taken.
    store.meta(id)?;
    let options = RecorderOptions {
        durability: if durable {
            Durability::Durable
        } else {
            Durability::Buffered
        },
        checkpointer: store
            .checkpoints_if_any(id)?
            .map(|c| Box::new(c) as Box<dyn retrace_store::Checkpointer>),
        on_warning: Arc::new(|w: &str| eprintln!("retrace: {w}")),
        ..RecorderOptions::default()
    };
    let recorder = Recorder::open(store.sessions.clone(), id, options)?;
    // What the repair at open did was said through `on_warning`.
    let mut recorded = 0usize;
    if event == "-" {
        let stdin = std::io::stdin();
        for (n, line) in stdin.lock().lines().enumerate() {
            let line = line.context("cannot read standard input")?;
            if line.trim().is_empty() {
                continue;
            }
            let event = parse_event(&line).with_context(|| format!("stdin:{}", n + 1))?;
            recorder.record_event(event)?;
            recorded += 1;
        }
    } else {
        recorder.record_event(parse_event(event).context("EVENT_JSON")?)?;
        recorded += 1;
    }
    recorder.close()?;
    printer.note(&format!("recorded {recorded} event{}", plural(recorded)))?;
    Ok(ExitStatus::Success)
}

/// An event from the command line: `{"event_type","data"}`, its
/// `timestamp` now when it has none.
fn parse_event(text: &str) -> Result<Event> {
    let mut value: Value = serde_json::from_str(text).context("not JSON")?;
    let Some(object) = value.as_object_mut() else {
        bail!("an event is a JSON object with `event_type` and `data`");
    };
    if !object.contains_key("timestamp") {
        let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
        object.insert("timestamp".into(), Value::String(now));
    }
    Ok(serde_json::from_value(value)?)
}

pub(super) fn list(
    store: &Store,
    id: &SessionId,
    last: Option<usize>,
    json: bool,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let read = store.manager.get_events(id)?;
    for p in &read.problems {
        printer.warn(&format!("{}:{}: {}", p.file, p.line, p.message))?;
    }
    let skip = last.map_or(0, |n| read.events.len().saturating_sub(n));
    let out = printer.stdout();
    for e in &read.events[skip..] {
        if json {
            // The line as recorded, byte for byte.
            out.write_all(&e.line)?;
            out.write_all(b"\n")?;
        } else {
            writeln!(out, "{}", summary(e))?;
        }
    }
    Ok(if read.problems.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Problems
    })
}

/// One line per event: number, time, type and what it says in short.
fn summary(e: &StoredEvent) -> String {
    let what = match &e.event.data {
        EventData::UserInput(d) => text(&d.message),
        EventData::StateTransition(d) => format!("{} → {}", d.from_node, d.to_node),
        EventData::LlmCall(d) => text(&d.response),
        EventData::ToolCall(d) if !d.error.is_null() => {
            format!("{} failed: {}", d.tool_name, text(&d.error))
        }
        EventData::ToolCall(d) => format!("{} → {}", d.tool_name, text(&d.output)),
        EventData::FinalOutput(d) => text(&d.output),
        EventData::Checkpoint(d) => format!(
            "{} {} ({} file{})",
            &d.commit[..d.commit.len().min(10)],
            d.tag,
            d.files.len(),
            plural(d.files.len())
        ),
        EventData::Compaction(d) => match d.first_kept_event {
            Some(seq) => format!("kept from {seq} on: {}", d.summary),
            None => format!("kept nothing: {}", d.summary),
        },
    };
    format!(
        "{:>5}  {}  {:<16}  {}",
        e.seq,
        time(e.event.timestamp),
        e.event.event_type().as_str(),
        crate::output::shorten(&what.replace('\n', " "), 100, 0)
    )
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

pub(super) fn pop(store: &Store, id: &SessionId, printer: &mut Printer) -> Result<ExitStatus> {
    // Popping writes the log: only while no recorder holds the session.
    let _lock = store.sessions.lock(id)?;
    match store.manager.pop_event(id)? {
        Some(e) => {
            printer.stdout().write_all(&e.line)?;
            printer.stdout().write_all(b"\n")?;
            Ok(ExitStatus::Success)
        }
        None => {
            printer.note(&format!("session `{id}` has no event"))?;
            Ok(ExitStatus::Problems)
        }
    }
}

pub(super) fn resume(
    store: &Store,
    id: &SessionId,
    message: &str,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    let state: Option<Value> = store.manager.resume(id, message)?;
    match state {
        Some(state) => {
            serde_json::to_writer_pretty(&mut *printer.stdout(), &state)?;
            writeln!(printer.stdout())?;
        }
        None => printer.note(&format!("session `{id}` has no saved state"))?,
    }
    Ok(ExitStatus::Success)
}

pub(super) fn export(
    store: &Store,
    id: &SessionId,
    redact: bool,
    output: Option<&str>,
    printer: &mut Printer,
) -> Result<ExitStatus> {
    match output {
        Some(path) => {
            let mut file = OutputFile::create(std::path::Path::new(path))?;
            store.manager.export(id, redact, &mut file)?;
            file.flush()
                .map_err(|e| StoreError::io("cannot write", std::path::Path::new(path), e))?;
        }
        None => store.manager.export(id, redact, printer.stdout())?,
    }
    Ok(ExitStatus::Success)
}
