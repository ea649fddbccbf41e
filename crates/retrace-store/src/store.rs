//! The contract every session store keeps: on files ([`crate::FsStore`]),
//! in memory ([`crate::MemoryStore`]), and in any other backend (a
//! database, in a crate of its own) that passes the conformance suite in
//! `tests/conformance`.
//! A store keeps per session its meta, its configuration snapshot, its
//! state (versioned values and append-only lists, by key) and its events,
//! each with a sequence number, in order.

use std::any::Any;

use chrono::{DateTime, Utc};
use retrace_core::{Checkpoint, Event, EventType};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{StoreError, StoreResult};
use crate::id::SessionId;

/// What a store keeps about a session (`meta.json` on files).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionMeta {
    /// The session's id.
    pub session_id: SessionId,
    /// The name of the agent configuration it runs.
    pub agent_config: String,
    /// When it was created.
    pub create_time: DateTime<Utc>,
    /// When it last recorded or saved anything.
    pub last_active_time: DateTime<Utc>,
    /// Fields a newer version (or the caller) wrote, kept.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The name of a piece of state: `state` (the default, `state.json`), or
/// a key such as `memory_messages` (`memory_messages.json` for a value,
/// `memory_messages.jsonl` for a list). Letters, digits, `_` and `-`;
/// the store's own names (`meta`, `config_snapshot`, `events`, `events_N`)
/// are refused.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateKey(String);

impl StateKey {
    /// The longest key.
    pub const MAX_LEN: usize = 64;

    /// The default key, `state`.
    pub fn state() -> StateKey {
        StateKey("state".to_owned())
    }

    /// Checks a key.
    pub fn parse(key: &str) -> StoreResult<StateKey> {
        let bad = |reason: &str| StoreError::InvalidId {
            id: key.escape_debug().to_string(),
            reason: format!("as a state key, {reason}"),
        };
        if key.is_empty() || key.len() > Self::MAX_LEN {
            return Err(bad(&format!("it must be 1 to {} bytes", Self::MAX_LEN)));
        }
        if !key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(bad("it must be letters, digits, `_` and `-`"));
        }
        let reserved = matches!(key, "meta" | "config_snapshot" | "events")
            || key
                .strip_prefix("events_")
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
        if reserved {
            return Err(bad("it is a name the store uses itself"));
        }
        Ok(StateKey(key.to_owned()))
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A value with the version it was saved at (1 for the first save).
#[derive(Clone, Debug, PartialEq)]
pub struct Versioned<T> {
    /// The value.
    pub value: T,
    /// Its version.
    pub version: u64,
}

/// The keys a session holds state under, each list sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StateKeys {
    /// Keys of versioned values ([`SessionStore::load_state`]).
    pub values: Vec<StateKey>,
    /// Keys of append-only lists ([`SessionStore::read_list`]).
    pub lists: Vec<StateKey>,
}

/// For stores' [`SessionStore::import_state`]: version 0 names no value
/// (versions start at 1).
pub fn refuse_version_zero(id: &SessionId, key: &StateKey, version: u64) -> StoreResult<()> {
    if version == 0 {
        return Err(StoreError::Corrupt {
            path: format!("state `{}` of session `{id}`", key.as_str()),
            reason: "cannot import it at version 0, which names no value (versions start at 1)"
                .to_owned(),
        });
    }
    Ok(())
}

/// Which sessions to list: newest activity first, a page at a time. The
/// order is `last_active_time` descending, then `session_id` descending
/// (SQL: `ORDER BY last_active_time DESC, session_id DESC`), and a page
/// starts after its cursor: `(last_active_time, session_id) < cursor`.
#[derive(Clone, Debug, Default)]
pub struct ListQuery {
    /// Only sessions of this agent configuration.
    pub agent_config: Option<String>,
    /// Where the previous page ended.
    pub after: Option<Cursor>,
    /// Sessions per page (0 means [`ListQuery::DEFAULT_LIMIT`]).
    pub limit: usize,
}

impl ListQuery {
    /// Sessions per page when no limit is given.
    pub const DEFAULT_LIMIT: usize = 100;
}

/// The position after a session in list order (keyset pagination: stable
/// while sessions are added).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cursor {
    /// The last listed session's activity time.
    pub last_active_time: DateTime<Utc>,
    /// And its id, which breaks ties.
    pub session_id: SessionId,
}

/// One page of a list.
#[derive(Clone, Debug)]
pub struct Page<T> {
    /// The items, in list order.
    pub items: Vec<T>,
    /// Where the next page starts, if there is one.
    pub next: Option<Cursor>,
    /// What was skipped on the way and why (a folder that is not a
    /// session, a meta that cannot be read), also logged. Never deleted.
    pub warnings: Vec<String>,
}

/// An event encoded for writing: one JSON line ending in `\n`.
#[derive(Clone, Debug)]
pub struct EncodedEvent {
    /// Its type.
    pub event_type: EventType,
    /// When it happened.
    pub timestamp: DateTime<Utc>,
    /// The line, `\n` included.
    pub line: Vec<u8>,
}

/// One event read back.
#[derive(Clone, Debug)]
pub struct StoredEvent {
    /// Its position in the session, from 0.
    pub seq: u64,
    /// The event.
    pub event: Event,
    /// The line as written (without its `\n`).
    pub line: Vec<u8>,
}

/// A session's events as read back, with what could not be read.
#[derive(Clone, Debug, Default)]
pub struct EventsRead {
    /// The events in order.
    pub events: Vec<StoredEvent>,
    /// Lines that are not events (reported, never dropped silently).
    pub problems: Vec<LogProblem>,
}

/// Something wrong in a stored event log, and what was done about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LogProblem {
    /// The file (`events_2.jsonl`), or the table for a database.
    pub file: String,
    /// The line, from 1 (0 when the problem is the whole file, such as
    /// an unfinished gzip copy).
    pub line: u64,
    /// The byte offset in the file (of the line or of the bytes at issue).
    pub offset: u64,
    /// What is wrong and what was done.
    pub message: String,
}

/// How the event log is written.
#[derive(Clone, Debug)]
pub struct LogOptions {
    /// Start a new part (`events_N.jsonl`) when the current one would pass
    /// this many bytes.
    pub rotate_bytes: u64,
    /// Compress a part when it is rotated out (`events_N.jsonl.gz`).
    pub gzip_rotated: bool,
}

impl Default for LogOptions {
    fn default() -> LogOptions {
        LogOptions {
            rotate_bytes: 100 << 20,
            gzip_rotated: false,
        }
    }
}

/// Where a session's events are appended: owned by one writer (the
/// recorder's thread) at a time.
pub trait EventSink: Send {
    /// Appends whole events, in order. Written, not yet durable.
    fn append(&mut self, batch: &[EncodedEvent]) -> StoreResult<()>;
    /// Makes everything appended so far durable.
    fn sync(&mut self) -> StoreResult<()>;
}

/// Held while a session is open for writing; dropping it lets the next
/// writer in. What it holds is the store's business.
pub struct SessionLock(pub Box<dyn Any + Send>);

/// Sessions, kept somewhere.
pub trait SessionStore: Send + Sync {
    /// Creates a session: its meta and the configuration it runs with.
    /// [`StoreError::Exists`] if the id is taken.
    fn create(&self, meta: &SessionMeta, config: &Value) -> StoreResult<()>;
    /// Whether a session exists.
    fn exists(&self, id: &SessionId) -> StoreResult<bool>;
    /// A session's meta.
    fn meta(&self, id: &SessionId) -> StoreResult<SessionMeta>;
    /// Records activity at `at`.
    fn touch(&self, id: &SessionId, at: DateTime<Utc>) -> StoreResult<()>;
    /// A page of sessions, newest activity first.
    fn list(&self, query: &ListQuery) -> StoreResult<Page<SessionMeta>>;
    /// The configuration snapshot taken at creation.
    fn config_snapshot(&self, id: &SessionId) -> StoreResult<Value>;
    /// A piece of state, if it was ever saved.
    fn load_state(&self, id: &SessionId, key: &StateKey) -> StoreResult<Option<Versioned<Value>>>;
    /// Saves a piece of state, replacing it whole (never torn). With
    /// `expected`, [`StoreError::Conflict`] unless the stored version is
    /// that one. Returns the new version.
    fn save_state(
        &self,
        id: &SessionId,
        key: &StateKey,
        value: &Value,
        expected: Option<u64>,
    ) -> StoreResult<u64>;
    /// Puts a value in at the version another store held it at (a copy
    /// between stores keeps versions, so a caller's `expected` still
    /// holds). Only into a key never saved: [`StoreError::Conflict`]
    /// (expected 0) otherwise, since a version never names two values.
    fn import_state(
        &self,
        id: &SessionId,
        key: &StateKey,
        value: &Versioned<Value>,
    ) -> StoreResult<()>;
    /// The keys the session holds values and lists under.
    fn state_keys(&self, id: &SessionId) -> StoreResult<StateKeys>;
    /// Appends items to a list kept under `key` (never rewritten).
    fn append_list(&self, id: &SessionId, key: &StateKey, items: &[Value]) -> StoreResult<()>;
    /// A list's items, in order.
    fn read_list(&self, id: &SessionId, key: &StateKey) -> StoreResult<Vec<Value>>;
    /// Takes the session for writing; [`StoreError::SessionBusy`] if
    /// another writer has it.
    fn lock(&self, id: &SessionId) -> StoreResult<SessionLock>;
    /// Repairs what a crash left in the event log (a torn last line is cut
    /// and kept aside) and says what it did.
    fn repair_events(&self, id: &SessionId) -> StoreResult<Vec<LogProblem>>;
    /// The session's event log, for appending.
    fn open_events(&self, id: &SessionId, options: &LogOptions) -> StoreResult<Box<dyn EventSink>>;
    /// Every event, in order.
    fn read_events(&self, id: &SessionId) -> StoreResult<EventsRead>;
    /// Removes the last event and returns it.
    fn pop_event(&self, id: &SessionId) -> StoreResult<Option<StoredEvent>>;
    /// Removes a session; false if there was none.
    fn delete(&self, id: &SessionId) -> StoreResult<bool>;
}

/// Takes a checkpoint of the files a tool call changed. The recorder calls
/// it off the agent's thread after it wrote a `tool_call`, and records the
/// checkpoint it returns as an event.
pub trait Checkpointer: Send {
    /// Commits what changed since the last checkpoint, for `tool_name`'s
    /// call recorded as event `seq`; `None` when nothing changed.
    fn after_tool_call(
        &mut self,
        tool_name: &str,
        seq: u64,
        at: DateTime<Utc>,
    ) -> StoreResult<Option<Checkpoint>>;
}
