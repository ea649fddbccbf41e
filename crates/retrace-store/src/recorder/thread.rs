//! The recorder's threads: the writer (batches, group commit, touch) and
//! the checkpoints.

use std::sync::mpsc::{self, Receiver};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use retrace_core::EventData;
use serde_json::Value;

use super::{Msg, Shared};
use crate::event_log::encode;
use crate::store::{Checkpointer, EncodedEvent, EventSink, SessionStore};

/// Messages taken as one batch at most: bounds the batch's buffer and, in
/// durable mode, the bytes one `fdatasync` waits for (512 KB of 1 KB
/// events: a few milliseconds), which keeps the sync's tail latency low at
/// a small cost in syncs per second.
const MAX_BATCH: usize = 512;

/// How often, at most, the session's activity time is written while
/// recording (and once more when the recorder stops).
const TOUCH_EVERY: Duration = Duration::from_secs(1);

/// A checkpoint to take, a caller waiting for those before, or the end.
pub(super) enum Job {
    /// After the `tool_call` numbered `seq`.
    After {
        seq: u64,
        tool_name: String,
        at: DateTime<Utc>,
    },
    /// Answered once every job sent before it is done.
    Barrier(mpsc::Sender<()>),
    Stop,
}

/// The writer thread's state.
pub(super) struct Writer {
    pub(super) sink: Box<dyn EventSink>,
    pub(super) store: Arc<dyn SessionStore>,
    pub(super) durable: bool,
    pub(super) shared: Arc<Shared>,
    pub(super) jobs: Option<mpsc::Sender<Job>>,
    /// Lines appended since the last sync.
    pub(super) unsynced: bool,
}

/// What the batch being written holds.
#[derive(Default)]
struct Pending {
    lines: Vec<EncodedEvent>,
    /// The first event's number.
    first: u64,
    /// Checkpoints due once the lines are written.
    jobs: Vec<Job>,
    /// A `user_input` or `final_output` is among them.
    force_sync: bool,
}

impl Writer {
    pub(super) fn run(mut self, rx: Receiver<Msg>) {
        let mut batch: Vec<Msg> = Vec::with_capacity(MAX_BATCH);
        let mut pending = Pending::default();
        let mut failed: Option<String> = None;
        // Events taken after a failure: never written, said at the end.
        let mut lost: Option<(u64, u64)> = None;
        let mut touched = Instant::now();
        let mut wrote = false;
        'run: loop {
            let Ok(first) = rx.recv() else { break };
            batch.push(first);
            while batch.len() < MAX_BATCH {
                match rx.try_recv() {
                    Ok(m) => batch.push(m),
                    Err(_) => break,
                }
            }
            let mut stop = false;
            for msg in batch.drain(..) {
                match msg {
                    Msg::Event(seq, event) => {
                        if failed.is_some() {
                            lost = Some(lost.map_or((seq, seq), |(a, _)| (a, seq)));
                            continue;
                        }
                        if pending.lines.is_empty() {
                            pending.first = seq;
                        }
                        match encode(&event) {
                            Ok(line) => pending.lines.push(line),
                            Err(e) => {
                                // What came before it is written; then stop.
                                let sync = self.durable || pending.force_sync;
                                failed = Some(match self.write(&mut pending, sync) {
                                    Ok(()) => self.fail(format!("event {seq}: {e}")),
                                    Err(reason) => reason,
                                });
                                lost = Some((seq, seq));
                                continue;
                            }
                        }
                        match &event.data {
                            EventData::ToolCall(call) if self.jobs.is_some() => {
                                pending.jobs.push(Job::After {
                                    seq,
                                    tool_name: call.tool_name.clone(),
                                    at: event.timestamp,
                                })
                            }
                            EventData::UserInput(_) | EventData::FinalOutput(_) => {
                                pending.force_sync = true
                            }
                            _ => {}
                        }
                    }
                    Msg::Flush(durable, reply) => {
                        if failed.is_none() {
                            wrote |= !pending.lines.is_empty();
                            let sync = durable || self.durable || pending.force_sync;
                            if let Err(reason) = self.write(&mut pending, sync) {
                                failed = Some(reason);
                            }
                        }
                        let result = failed.as_ref().map_or(Ok(()), |r| Err(r.clone()));
                        let _ = reply.send(result);
                        // The touch (a file written) is not repeated at
                        // each flush: an agent may sync after every event.
                        // The batch's end below touches at most once a
                        // second, and the stop always.
                    }
                    Msg::Stop => stop = true,
                }
            }
            if failed.is_none() {
                wrote |= !pending.lines.is_empty();
                let sync = self.durable || pending.force_sync;
                if let Err(reason) = self.write(&mut pending, sync) {
                    failed = Some(reason);
                }
            }
            if failed.is_none() && wrote && touched.elapsed() >= TOUCH_EVERY {
                self.touch();
                touched = Instant::now();
                wrote = false;
            }
            if stop {
                break 'run;
            }
        }
        if failed.is_none() && wrote {
            self.touch();
        }
        if let Some((a, b)) = lost {
            (self.shared.warn)(&format!(
                "recorder of session `{}`: events {a} to {b}, recorded after the failure, \
                 were not written",
                self.shared.id
            ));
        }
    }

    /// Appends the pending lines in one batch, syncs if asked, then hands
    /// out the checkpoints due. A failure stops the recorder.
    fn write(&mut self, pending: &mut Pending, sync: bool) -> Result<(), String> {
        let lines = std::mem::take(&mut pending.lines);
        let result = (|| {
            if !lines.is_empty() {
                self.unsynced = true;
                self.sink.append(&lines)?;
            }
            if sync && self.unsynced {
                self.sink.sync()?;
                self.unsynced = false;
            }
            Ok::<(), crate::StoreError>(())
        })();
        pending.force_sync = false;
        if let Err(e) = result {
            pending.jobs.clear();
            let last = pending.first + lines.len().saturating_sub(1) as u64;
            return Err(self.fail(format!(
                "writing events {} to {last} failed: {e}; they may be missing from the log, and \
                 the recorder has stopped",
                pending.first
            )));
        }
        if let Some(jobs) = &self.jobs {
            for job in pending.jobs.drain(..) {
                let _ = jobs.send(job);
            }
        }
        Ok(())
    }

    fn fail(&self, reason: String) -> String {
        self.shared.stop(reason.clone());
        reason
    }

    /// The session's activity time, now; a failure is only a warning.
    fn touch(&self) {
        if let Err(e) = self.store.touch(&self.shared.id, Utc::now()) {
            (self.shared.warn)(&format!(
                "session `{}`: cannot record its activity time: {e}",
                self.shared.id
            ));
        }
    }
}

/// The checkpoint thread: takes each checkpoint due and records it.
pub(super) fn checkpoints(
    jobs: Receiver<Job>,
    mut checkpointer: Box<dyn Checkpointer>,
    shared: &Shared,
) {
    for job in jobs {
        let (seq, tool_name, at) = match job {
            Job::After { seq, tool_name, at } => (seq, tool_name, at),
            Job::Barrier(done) => {
                let _ = done.send(());
                continue;
            }
            Job::Stop => break,
        };
        match checkpointer.after_tool_call(&tool_name, seq, at) {
            Ok(Some(mut checkpoint)) => {
                checkpoint.extra.entry("event").or_insert(Value::from(seq));
                if let Err(e) = shared.record(EventData::Checkpoint(checkpoint)) {
                    (shared.warn)(&format!(
                        "session `{}`: the checkpoint after event {seq} ({tool_name}) was \
                         taken but not recorded: {e}",
                        shared.id
                    ));
                }
            }
            Ok(None) => {}
            Err(e) => (shared.warn)(&format!(
                "session `{}`: no checkpoint after event {seq} ({tool_name}): {e}",
                shared.id
            )),
        }
    }
}
