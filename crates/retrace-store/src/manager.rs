//! [`SessionManager`]: what an agent runtime calls: create a session,
//! restore and save its state (by hand, or after each step on a saver
//! thread that never blocks the agent), resume it with a new message,
//! destroy it, list sessions, read, pop and export its events.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::Write;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use retrace_core::redact::{Mode, Redactor, Rules};
use retrace_core::{EventData, UserInput};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{StoreError, StoreResult};
use crate::id::SessionId;
use crate::recorder::{Recorder, RecorderOptions};
use crate::store::{EventsRead, ListQuery, Page, SessionMeta, SessionStore, StateKey, StoredEvent};

/// Where a failed background save (or anything else the manager cannot
/// return) is reported: the session and the error.
pub type WarningSink = Arc<dyn Fn(&SessionId, &StoreError) + Send + Sync>;

/// Creates, saves, resumes and lists sessions of one store.
///
/// Background saves ([`SessionManager::queue_save`]) go to a saver thread
/// through one slot per session: a newer state replaces one not yet
/// written (latest wins), so a fast agent never waits for the disk and
/// the disk never falls behind by more than one state per session. A
/// failed save never stops the agent: it goes to the warning sink
/// (`log::warn!` by default). Dropping the manager writes what is queued.
pub struct SessionManager {
    store: Arc<dyn SessionStore>,
    saver: Arc<Saver>,
    warn: WarningSink,
    thread: Option<JoinHandle<()>>,
}

/// The saver's slots, shared with its thread.
struct Saver {
    slots: Mutex<Slots>,
    /// Work for the saver thread.
    work: Condvar,
    /// A write ended (flushes and writers of the same session wait on it).
    done: Condvar,
}

#[derive(Default)]
struct Slots {
    /// The latest state not yet written, by session.
    pending: HashMap<SessionId, Value>,
    /// Sessions with a pending state, in the order they were queued.
    queue: VecDeque<SessionId>,
    /// Sessions being written now (one write per session at a time, so
    /// writes land in the order the states were given).
    writing: HashSet<SessionId>,
    stop: bool,
}

fn slots(saver: &Saver) -> MutexGuard<'_, Slots> {
    // The slots stay consistent across a panic (each change is whole).
    saver.slots.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Now, to the microsecond (as event timestamps are written).
fn now() -> DateTime<Utc> {
    let t = Utc::now();
    t.duration_trunc(TimeDelta::microseconds(1)).unwrap_or(t)
}

/// Writes one state and records the activity.
fn write_state(store: &dyn SessionStore, id: &SessionId, state: &Value) -> StoreResult<u64> {
    let version = store.save_state(id, &StateKey::state(), state, None)?;
    store.touch(id, now())?;
    Ok(version)
}

fn default_warning() -> WarningSink {
    Arc::new(|id: &SessionId, e: &StoreError| log::warn!("session `{id}`: {e}"))
}

impl SessionManager {
    /// A manager of `store`'s sessions, warnings to `log::warn!`.
    pub fn new(store: Arc<dyn SessionStore>) -> SessionManager {
        SessionManager::with_warnings(store, default_warning())
    }

    /// A manager that reports warnings to `warn`.
    pub fn with_warnings(store: Arc<dyn SessionStore>, warn: WarningSink) -> SessionManager {
        let saver = Arc::new(Saver {
            slots: Mutex::new(Slots::default()),
            work: Condvar::new(),
            done: Condvar::new(),
        });
        let thread = {
            let (store, saver, warn) = (store.clone(), saver.clone(), warn.clone());
            std::thread::Builder::new()
                .name("retrace-saver".into())
                .spawn(move || save_loop(&*store, &saver, &*warn))
        };
        let thread = match thread {
            Ok(t) => Some(t),
            Err(e) => {
                // Saves then happen on the caller's thread: slower, not lost.
                log::warn!("cannot start the session saver thread ({e}); saving in place");
                None
            }
        };
        SessionManager {
            store,
            saver,
            warn,
            thread,
        }
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn SessionStore> {
        &self.store
    }

    /// Creates a session running the agent configuration named
    /// `agent_config`, with `config` (as the caller merged it) kept as its
    /// snapshot.
    pub fn create(&self, agent_config: &str, config: &Value) -> StoreResult<SessionId> {
        self.create_with(agent_config, config, Map::new())
    }

    /// As [`SessionManager::create`], with more fields for the session's
    /// meta (such as where its workspace is).
    pub fn create_with(
        &self,
        agent_config: &str,
        config: &Value,
        extra: Map<String, Value>,
    ) -> StoreResult<SessionId> {
        self.create_as(SessionId::new(), agent_config, config, extra)
    }

    /// As [`SessionManager::create_with`], under an id the caller made
    /// (so its meta can name things after it, such as where its
    /// checkpoints go). [`StoreError::Exists`] if it is taken.
    pub fn create_as(
        &self,
        id: SessionId,
        agent_config: &str,
        config: &Value,
        extra: Map<String, Value>,
    ) -> StoreResult<SessionId> {
        let at = now();
        let meta = SessionMeta {
            session_id: id,
            agent_config: agent_config.to_owned(),
            create_time: at,
            last_active_time: at,
            extra,
        };
        self.store.create(&meta, config)?;
        Ok(meta.session_id)
    }

    /// The session's state as last saved (a queued save is written first);
    /// `None` if it was never saved.
    pub fn restore<S: DeserializeOwned>(&self, id: &SessionId) -> StoreResult<Option<S>> {
        self.flush_session(id);
        let Some(saved) = self.store.load_state(id, &StateKey::state())? else {
            if !self.store.exists(id)? {
                return Err(StoreError::NotFound { id: id.to_string() });
            }
            return Ok(None);
        };
        serde_json::from_value(saved.value)
            .map(Some)
            .map_err(|e| StoreError::Corrupt {
                path: format!("state of session `{id}` (version {})", saved.version),
                reason: format!("not the state expected: {e}"),
            })
    }

    /// Saves the state now and returns its version. It replaces any state
    /// queued for the session and not yet written.
    pub fn save<S: Serialize + ?Sized>(&self, id: &SessionId, state: &S) -> StoreResult<u64> {
        let value = to_value(id, state)?;
        let mut s = slots(&self.saver);
        // Newer than anything queued: that one need not be written.
        if s.pending.remove(id).is_some() {
            s.queue.retain(|q| q != id);
        }
        while s.writing.contains(id) {
            s = self
                .saver
                .done
                .wait(s)
                .unwrap_or_else(PoisonError::into_inner);
        }
        s.writing.insert(id.clone());
        drop(s);
        let result = write_state(&*self.store, id, &value);
        slots(&self.saver).writing.remove(id);
        self.saver.done.notify_all();
        result
    }

    /// Saves the state in the background, after a step: returns at once. A
    /// state queued earlier for the session and not yet written is
    /// replaced. Failures go to the warning sink.
    pub fn queue_save<S: Serialize + ?Sized>(&self, id: &SessionId, state: &S) {
        let value = match to_value(id, state) {
            Ok(v) => v,
            Err(e) => return (self.warn)(id, &e),
        };
        if self.thread.is_none() {
            if let Err(e) = write_state(&*self.store, id, &value) {
                (self.warn)(id, &e);
            }
            return;
        }
        let mut s = slots(&self.saver);
        if s.pending.insert(id.clone(), value).is_none() {
            s.queue.push_back(id.clone());
        }
        drop(s);
        self.saver.work.notify_one();
    }

    /// Waits until every queued save is written (or has failed and been
    /// reported).
    pub fn flush_saves(&self) {
        let mut s = slots(&self.saver);
        while !s.pending.is_empty() || !s.writing.is_empty() {
            s = self
                .saver
                .done
                .wait(s)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Waits until `id`'s queued save is written.
    fn flush_session(&self, id: &SessionId) {
        let mut s = slots(&self.saver);
        while s.pending.contains_key(id) || s.writing.contains(id) {
            s = self
                .saver
                .done
                .wait(s)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Removes a session and everything in it; false if there was none.
    /// [`StoreError::SessionBusy`] while a writer holds it.
    pub fn destroy(&self, id: &SessionId) -> StoreResult<bool> {
        let mut s = slots(&self.saver);
        if s.pending.remove(id).is_some() {
            s.queue.retain(|q| q != id);
        }
        while s.writing.contains(id) {
            s = self
                .saver
                .done
                .wait(s)
                .unwrap_or_else(PoisonError::into_inner);
        }
        drop(s);
        self.store.delete(id)
    }

    /// A page of sessions, newest activity first (see [`ListQuery`]).
    pub fn list(&self, query: &ListQuery) -> StoreResult<Page<SessionMeta>> {
        self.store.list(query)
    }

    /// Takes a session up again: loads its state, appends the user's
    /// `message` to its events as a `user_input` (the history before it
    /// is kept) and hands the state back to go on from.
    /// [`StoreError::SessionBusy`] if a writer (a recorder) holds the
    /// session.
    pub fn resume<S: DeserializeOwned>(
        &self,
        id: &SessionId,
        message: impl Into<Value>,
    ) -> StoreResult<Option<S>> {
        // The state first: a session that cannot go on records nothing.
        let state = self.restore(id)?;
        // The recorder is the one writer of events: it takes the lock
        // (SessionBusy if another writer has it), repairs a torn tail,
        // numbers the event after the last and syncs a `user_input`.
        let warn = self.warn.clone();
        let who = id.clone();
        let options = RecorderOptions {
            on_warning: Arc::new(move |w: &str| {
                warn(
                    &who,
                    &StoreError::Corrupt {
                        path: format!("events of session `{who}`"),
                        reason: w.to_owned(),
                    },
                )
            }),
            ..RecorderOptions::default()
        };
        let recorder = Recorder::open(self.store.clone(), id, options)?;
        recorder.record(EventData::UserInput(UserInput {
            message: message.into(),
            extra: Map::new(),
        }))?;
        recorder.close()?;
        self.store.touch(id, now())?;
        Ok(state)
    }

    /// Every event of the session, in order, with the lines that could not
    /// be read.
    pub fn get_events(&self, id: &SessionId) -> StoreResult<EventsRead> {
        self.store.read_events(id)
    }

    /// The last `n` events (fewer if there are fewer), in order.
    pub fn last_events(&self, id: &SessionId, n: usize) -> StoreResult<Vec<StoredEvent>> {
        let mut events = self.store.read_events(id)?.events;
        let cut = events.len().saturating_sub(n);
        Ok(events.split_off(cut))
    }

    /// Removes the last event and returns it (`None` if there are none).
    pub fn pop_event(&self, id: &SessionId) -> StoreResult<Option<StoredEvent>> {
        self.store.pop_event(id)
    }

    /// Writes the session's events to `out`, one JSON line each, in order;
    /// with `redact`, through the core's redactor (built-in rules, typed
    /// placeholders such as `[REDACTED:aws-access-key]`). Lines that could not be read are left out and
    /// reported to the warning sink.
    pub fn export(&self, id: &SessionId, redact: bool, out: &mut dyn Write) -> StoreResult<()> {
        let read = self.store.read_events(id)?;
        for p in &read.problems {
            let e = StoreError::Corrupt {
                path: format!("{}:{}", p.file, p.line),
                reason: format!("{} (left out of the export)", p.message),
            };
            (self.warn)(id, &e);
        }
        let failed = |source| StoreError::Output {
            id: id.to_string(),
            source,
        };
        let mut redactor = redact.then(|| Redactor::new(Arc::new(Rules::builtin()), Mode::Typed));
        let mut buf = Vec::new();
        for e in &read.events {
            buf.clear();
            let mut line = e.line.clone();
            line.push(b'\n');
            match &mut redactor {
                Some(r) => {
                    r.push(&line, &mut buf);
                    r.drain_findings();
                }
                None => buf.extend_from_slice(&line),
            }
            out.write_all(&buf).map_err(failed)?;
        }
        if let Some(r) = &mut redactor {
            buf.clear();
            r.finish(&mut buf);
            out.write_all(&buf).map_err(failed)?;
        }
        out.flush().map_err(failed)
    }
}

impl Drop for SessionManager {
    fn drop(&mut self) {
        slots(&self.saver).stop = true;
        self.saver.work.notify_all();
        if let Some(t) = self.thread.take() {
            // The thread writes what is queued before it ends.
            let _ = t.join();
        }
    }
}

fn to_value<S: Serialize + ?Sized>(id: &SessionId, state: &S) -> StoreResult<Value> {
    serde_json::to_value(state).map_err(|e| StoreError::Serialize {
        id: id.to_string(),
        reason: e.to_string(),
    })
}

/// The saver thread: writes the oldest queued session's latest state,
/// until stopped with nothing queued.
fn save_loop(
    store: &dyn SessionStore,
    saver: &Saver,
    warn: &(dyn Fn(&SessionId, &StoreError) + Send + Sync),
) {
    let mut s = slots(saver);
    loop {
        let Some(id) = s.queue.pop_front() else {
            if s.stop {
                return;
            }
            s = saver.work.wait(s).unwrap_or_else(PoisonError::into_inner);
            continue;
        };
        // A manual save of the same session goes first, then this one
        // (which it may have taken out of the slot).
        while s.writing.contains(&id) {
            s = saver.done.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        let Some(value) = s.pending.remove(&id) else {
            continue;
        };
        s.writing.insert(id.clone());
        drop(s);
        if let Err(e) = write_state(store, &id, &value) {
            warn(&id, &e);
        }
        s = slots(saver);
        s.writing.remove(&id);
        saver.done.notify_all();
    }
}
