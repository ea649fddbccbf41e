//! The recorder: events from any thread, in one order, written by one
//! writer thread behind a bounded queue.
//!
//! - The caller's thread stamps the time and the sequence number under one
//!   short lock and hands the event to the queue: no encoding, no I/O.
//! - The queue is `std::sync::mpsc::sync_channel` (crossbeam's bounded
//!   array channel inside std since Rust 1.67; no dependency added). When
//!   it is full, [`Recorder::record`] blocks until the writer takes events
//!   (backpressure: nothing is ever dropped) and [`Recorder::try_record`]
//!   gives the event back.
//! - The writer (`thread.rs`) takes everything waiting as one batch,
//!   encodes it, appends it with one write, and in
//!   [`Durability::Durable`] mode syncs once per batch (group commit); a
//!   `user_input` or `final_output` forces the sync in both modes.
//! - After a `tool_call` is written, a checkpoint thread runs the
//!   [`Checkpointer`] and records the checkpoint it returns.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use chrono::{DateTime, Utc};
use retrace_core::{Event, EventData};

use crate::error::{StoreError, StoreResult};
use crate::id::SessionId;
use crate::store::{Checkpointer, LogOptions, LogProblem, SessionLock, SessionStore};

mod thread;

/// When written events are made durable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Durability {
    /// In the page cache: they survive the process, not a power loss,
    /// unless a `user_input` or `final_output` (which force a sync) or a
    /// [`Recorder::sync`] came after them.
    #[default]
    Buffered,
    /// Synced once per batch (group commit): whatever the writer took from
    /// the queue together is made durable by one `fdatasync`.
    Durable,
}

/// Warnings of the recorder: a write that failed, a checkpoint that
/// failed, what a repair did.
pub type WarningFn = Arc<dyn Fn(&str) + Send + Sync>;

/// How a [`Recorder`] works.
pub struct RecorderOptions {
    /// When events are made durable.
    pub durability: Durability,
    /// Events the queue holds before [`Recorder::record`] blocks.
    pub queue_capacity: usize,
    /// Rotation and compression of the log.
    pub log: LogOptions,
    /// Checkpoints after each `tool_call`, if set.
    pub checkpointer: Option<Box<dyn Checkpointer>>,
    /// Where warnings go (default: `log::warn!`).
    pub on_warning: WarningFn,
}

impl RecorderOptions {
    /// The default queue: 16,384 events (about 3 MB of slots; a second of
    /// a busy agent's events at 1 KB each is far less than the writer's
    /// pace).
    pub const DEFAULT_QUEUE: usize = 16_384;
}

impl Default for RecorderOptions {
    fn default() -> RecorderOptions {
        RecorderOptions {
            durability: Durability::default(),
            queue_capacity: RecorderOptions::DEFAULT_QUEUE,
            log: LogOptions::default(),
            checkpointer: None,
            on_warning: Arc::new(|w: &str| log::warn!("{w}")),
        }
    }
}

impl fmt::Debug for RecorderOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecorderOptions")
            .field("durability", &self.durability)
            .field("queue_capacity", &self.queue_capacity)
            .field("log", &self.log)
            .field("checkpointer", &self.checkpointer.is_some())
            .finish_non_exhaustive()
    }
}

/// An event that [`Recorder::try_record`] could not queue, given back.
#[derive(Debug)]
pub enum TryRecordError {
    /// The queue is full; nothing was recorded.
    Full(Box<EventData>),
    /// The recorder has stopped (see [`StoreError::RecorderStopped`]).
    Stopped(Box<EventData>, StoreError),
}

impl fmt::Display for TryRecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TryRecordError::Full(d) => write!(
                f,
                "the recorder's queue is full; the {} event was not recorded",
                d.event_type().as_str()
            ),
            TryRecordError::Stopped(_, e) => e.fmt(f),
        }
    }
}

impl std::error::Error for TryRecordError {}

/// What goes to the writer thread.
enum Msg {
    Event(u64, Event),
    /// Reply when everything before is written (`false`) or durable.
    Flush(bool, mpsc::Sender<Result<(), String>>),
    /// Write what is left and end.
    Stop,
}

/// The order of events: the next number, the last time, the queue.
struct Order {
    next: u64,
    last: DateTime<Utc>,
    tx: SyncSender<Msg>,
}

/// What the callers, the writer and the checkpoint thread share.
struct Shared {
    id: SessionId,
    order: Mutex<Order>,
    stopped: AtomicBool,
    reason: Mutex<String>,
    warn: WarningFn,
}

impl Shared {
    fn order(&self) -> MutexGuard<'_, Order> {
        // A panic while holding it cannot leave `Order` half changed.
        self.order.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn stopped_error(&self) -> StoreError {
        let reason = self.reason.lock().unwrap_or_else(|e| e.into_inner());
        StoreError::RecorderStopped {
            id: self.id.to_string(),
            reason: match reason.as_str() {
                // No failure said: the writer thread is gone (a panic in
                // the sink) or the recorder is closing.
                "" => "its writer thread has ended".to_owned(),
                r => r.to_owned(),
            },
        }
    }

    /// The writer thread is gone (its queue or a reply channel closed):
    /// stopped from now on, so that no later call is accepted in the
    /// moment before the queue's receiver is dropped too.
    fn gone(&self) -> StoreError {
        self.stopped.store(true, Ordering::Release);
        self.stopped_error()
    }

    fn check(&self) -> StoreResult<()> {
        if self.stopped.load(Ordering::Acquire) {
            return Err(self.stopped_error());
        }
        Ok(())
    }

    /// Stops the recorder after `reason`, said once through the warning
    /// callback.
    fn stop(&self, reason: String) {
        (self.warn)(&format!("recorder of session `{}`: {reason}", self.id));
        *self.reason.lock().unwrap_or_else(|e| e.into_inner()) = reason;
        self.stopped.store(true, Ordering::Release);
    }

    /// Stamps `data` now (never before the last event) and queues it.
    fn record(&self, data: EventData) -> StoreResult<u64> {
        self.check()?;
        let mut order = self.order();
        let at = Utc::now().max(order.last);
        let seq = order.next;
        order
            .tx
            .send(Msg::Event(seq, Event::new(at, data)))
            .map_err(|_| self.gone())?;
        order.last = at;
        order.next += 1;
        Ok(seq)
    }

    fn record_event(&self, event: Event) -> StoreResult<u64> {
        self.check()?;
        let mut order = self.order();
        let seq = order.next;
        let at = event.timestamp;
        order
            .tx
            .send(Msg::Event(seq, event))
            .map_err(|_| self.gone())?;
        order.last = order.last.max(at);
        order.next += 1;
        Ok(seq)
    }

    fn try_record(&self, data: EventData) -> Result<u64, TryRecordError> {
        if let Err(e) = self.check() {
            return Err(TryRecordError::Stopped(Box::new(data), e));
        }
        let mut order = self.order();
        let at = Utc::now().max(order.last);
        let seq = order.next;
        match order.tx.try_send(Msg::Event(seq, Event::new(at, data))) {
            Ok(()) => {
                order.last = at;
                order.next += 1;
                Ok(seq)
            }
            Err(TrySendError::Full(Msg::Event(_, e))) => {
                Err(TryRecordError::Full(Box::new(e.data)))
            }
            Err(TrySendError::Disconnected(Msg::Event(_, e))) => {
                Err(TryRecordError::Stopped(Box::new(e.data), self.gone()))
            }
            Err(_) => unreachable!("an event was sent"),
        }
    }

    /// Waits until the writer has written (or synced) everything queued
    /// before.
    fn flush(&self, durable: bool) -> StoreResult<()> {
        self.check()?;
        let (tx, rx) = mpsc::channel();
        self.order()
            .tx
            .send(Msg::Flush(durable, tx))
            .map_err(|_| self.gone())?;
        match rx.recv() {
            Ok(Ok(())) => Ok(()),
            Ok(Err(reason)) => Err(StoreError::RecorderStopped {
                id: self.id.to_string(),
                reason,
            }),
            Err(_) => Err(self.gone()),
        }
    }
}

/// Records a session's events. Open one per session (it holds the
/// session's lock); share it between threads (`&Recorder` or
/// `Arc<Recorder>`: it is `Send + Sync`).
///
/// Dropping it writes what is queued (and syncs it in
/// [`Durability::Durable`] mode), runs the checkpoints still due, and ends
/// its threads; [`Recorder::close`] does the same and says whether all
/// went well.
pub struct Recorder {
    shared: Arc<Shared>,
    writer: Option<JoinHandle<()>>,
    checkpoints: Option<(mpsc::Sender<thread::Job>, JoinHandle<()>)>,
    repairs: Vec<LogProblem>,
    /// Held until the threads are done (fields drop after `Drop::drop`);
    /// in a `Mutex` only so the recorder is `Sync` (a lock need not be).
    _lock: Mutex<SessionLock>,
}

impl Recorder {
    /// Opens session `id` of `store` for recording: takes its lock
    /// ([`StoreError::SessionBusy`] if another writer has it), repairs what
    /// a crash left in its log (see [`Recorder::repairs`]; each repair is
    /// also a warning), reads the log to continue its numbering and its
    /// time, and starts the writer.
    pub fn open(
        store: Arc<dyn SessionStore>,
        id: &SessionId,
        options: RecorderOptions,
    ) -> StoreResult<Recorder> {
        let lock = store.lock(id)?;
        let repairs = store.repair_events(id)?;
        for p in &repairs {
            (options.on_warning)(&format!(
                "session `{id}`: {} line {} (byte {}): {}",
                p.file, p.line, p.offset, p.message
            ));
        }
        let existing = store.read_events(id)?;
        let last = existing
            .events
            .last()
            .map_or(DateTime::<Utc>::MIN_UTC, |e| e.event.timestamp);
        let sink = store.open_events(id, &options.log)?;
        let (tx, rx): (SyncSender<Msg>, Receiver<Msg>) =
            mpsc::sync_channel(options.queue_capacity.max(1));
        let shared = Arc::new(Shared {
            id: id.clone(),
            order: Mutex::new(Order {
                next: existing.events.len() as u64,
                last,
                tx,
            }),
            stopped: AtomicBool::new(false),
            reason: Mutex::new(String::new()),
            warn: options.on_warning.clone(),
        });
        let checkpoints = match options.checkpointer {
            Some(checkpointer) => {
                let (jobs, rx) = mpsc::channel();
                let s = shared.clone();
                let handle = std::thread::Builder::new()
                    .name("retrace-checkpoints".into())
                    .spawn(move || thread::checkpoints(rx, checkpointer, &s))
                    .map_err(|e| spawn_error(id, e))?;
                Some((jobs, handle))
            }
            None => None,
        };
        let writer = thread::Writer {
            sink,
            store,
            durable: options.durability == Durability::Durable,
            shared: shared.clone(),
            jobs: checkpoints.as_ref().map(|(tx, _)| tx.clone()),
            unsynced: false,
        };
        let writer = std::thread::Builder::new()
            .name("retrace-recorder".into())
            .spawn(move || writer.run(rx))
            .map_err(|e| spawn_error(id, e))?;
        Ok(Recorder {
            shared,
            writer: Some(writer),
            checkpoints,
            repairs,
            _lock: Mutex::new(lock),
        })
    }

    /// The session recorded.
    pub fn id(&self) -> &SessionId {
        &self.shared.id
    }

    /// What the repair at open did (a torn line cut, NUL runs found).
    pub fn repairs(&self) -> &[LogProblem] {
        &self.repairs
    }

    /// The number the next event will get (events in the log so far plus
    /// those queued).
    pub fn next_seq(&self) -> u64 {
        self.shared.order().next
    }

    /// Records an event now: stamps it with the time (never before the
    /// previous event's) and the next number, in one order across threads,
    /// and queues it. Returns its number. Blocks while the queue is full;
    /// [`StoreError::RecorderStopped`] after a write failed.
    pub fn record(&self, data: EventData) -> StoreResult<u64> {
        self.shared.record(data)
    }

    /// Records an event as given, its time included (an import, a replay);
    /// later [`Recorder::record`]s are stamped no earlier than it.
    pub fn record_event(&self, event: Event) -> StoreResult<u64> {
        self.shared.record_event(event)
    }

    /// [`Recorder::record`] that never blocks: a full queue gives the
    /// event back ([`TryRecordError::Full`]), unrecorded.
    pub fn try_record(&self, data: EventData) -> Result<u64, TryRecordError> {
        self.shared.try_record(data)
    }

    /// Waits until every event recorded before is written (in the page
    /// cache at least).
    pub fn flush(&self) -> StoreResult<()> {
        self.shared.flush(false)
    }

    /// Waits until every event recorded before is durable (synced).
    pub fn sync(&self) -> StoreResult<()> {
        self.shared.flush(true)
    }

    /// Waits until the checkpoint after every `tool_call` recorded before
    /// is taken and its `checkpoint` event recorded. Checkpoints run off
    /// the agent's thread, so a tool that runs while the previous
    /// checkpoint is still being taken has its changes in that one; call
    /// this before the next tool when each checkpoint must hold its own
    /// tool's changes alone. Returns at once without a checkpointer.
    pub fn wait_checkpoints(&self) -> StoreResult<()> {
        let Some((jobs, _)) = &self.checkpoints else {
            return Ok(());
        };
        // Every tool_call recorded before is written, its job queued...
        self.shared.flush(false)?;
        // ...and, the queue being in order, done when this is answered.
        let (done, answer) = mpsc::channel();
        if jobs.send(thread::Job::Barrier(done)).is_err() || answer.recv().is_err() {
            self.shared.check()?;
            return Err(StoreError::RecorderStopped {
                id: self.shared.id.to_string(),
                reason: "the checkpoint thread has ended".to_owned(),
            });
        }
        Ok(())
    }

    /// Writes what is queued, runs the checkpoints due, ends the threads;
    /// the first error of the recorder's life, if any.
    pub fn close(mut self) -> StoreResult<()> {
        self.shutdown();
        self.shared.check()
    }

    fn shutdown(&mut self) {
        let Some(writer) = self.writer.take() else {
            return;
        };
        // Every tool_call written, so every checkpoint job is queued...
        let _ = self.shared.flush(false);
        // ...and done, its checkpoint event queued to the writer.
        if let Some((jobs, handle)) = self.checkpoints.take() {
            let _ = jobs.send(thread::Job::Stop);
            if handle.join().is_err() {
                (self.shared.warn)("the checkpoint thread panicked");
            }
        }
        let _ = self.shared.order().tx.send(Msg::Stop);
        if writer.join().is_err() {
            self.shared.stop("the writer thread panicked".to_owned());
        }
    }
}

/// `Recorder: Send + Sync`, checked at compile time.
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<Recorder>();
};

impl Drop for Recorder {
    fn drop(&mut self) {
        self.shutdown();
    }
}

impl fmt::Debug for Recorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder")
            .field("id", &self.shared.id)
            .field("stopped", &self.shared.stopped.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

fn spawn_error(id: &SessionId, e: std::io::Error) -> StoreError {
    StoreError::RecorderStopped {
        id: id.to_string(),
        reason: format!("cannot start a thread: {e}"),
    }
}

#[cfg(test)]
mod tests;
