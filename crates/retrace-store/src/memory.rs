//! [`MemoryStore`]: the store's contract kept in memory, for tests and for
//! agents that need no persistence. Same semantics as the file store:
//! versions, one writer at a time, append-only lists, events with `seq`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, Utc};
use retrace_core::Event;
use serde_json::Value;

use crate::error::{StoreError, StoreResult};
use crate::id::SessionId;
use crate::store::{
    refuse_version_zero, Cursor, EncodedEvent, EventSink, EventsRead, ListQuery, LogOptions,
    LogProblem, Page, SessionLock, SessionMeta, SessionStore, StateKey, StateKeys, StoredEvent,
    Versioned,
};

/// Sessions in memory, gone with the store.
#[derive(Clone, Default)]
pub struct MemoryStore {
    sessions: Arc<Mutex<HashMap<SessionId, Session>>>,
}

struct Session {
    /// Which creation of this id (a lock or sink of a deleted session must
    /// not touch one created again under its id).
    incarnation: u64,
    meta: SessionMeta,
    config: Value,
    states: HashMap<String, Versioned<Value>>,
    lists: HashMap<String, Vec<Value>>,
    /// Event lines without their `\n`, each parsed once on append.
    events: Vec<(Event, Vec<u8>)>,
    locked: bool,
}

type Sessions = Arc<Mutex<HashMap<SessionId, Session>>>;

fn lock(sessions: &Sessions) -> MutexGuard<'_, HashMap<SessionId, Session>> {
    // A panic elsewhere while holding it leaves the maps whole (every
    // change is one assignment), so the data stays usable.
    sessions.lock().unwrap_or_else(PoisonError::into_inner)
}

fn not_found(id: &SessionId) -> StoreError {
    StoreError::NotFound { id: id.to_string() }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn with<T>(
        &self,
        id: &SessionId,
        f: impl FnOnce(&mut Session) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let mut all = lock(&self.sessions);
        let s = all.get_mut(id).ok_or_else(|| not_found(id))?;
        f(s)
    }
}

/// Held by a [`SessionLock`] of a [`MemoryStore`]: lets go on drop.
struct MemLock {
    sessions: Sessions,
    id: SessionId,
    incarnation: u64,
}

impl Drop for MemLock {
    fn drop(&mut self) {
        if let Some(s) = lock(&self.sessions).get_mut(&self.id) {
            if s.incarnation == self.incarnation {
                s.locked = false;
            }
        }
    }
}

/// Appends to a session's events in memory.
struct MemSink {
    sessions: Sessions,
    id: SessionId,
    incarnation: u64,
}

impl EventSink for MemSink {
    fn append(&mut self, batch: &[EncodedEvent]) -> StoreResult<()> {
        // Parsed before anything is added: a batch goes in whole or not.
        let mut parsed = Vec::with_capacity(batch.len());
        for e in batch {
            let line = e.line.strip_suffix(b"\n").unwrap_or(&e.line);
            let event = serde_json::from_slice(line).map_err(|err| StoreError::Corrupt {
                path: format!("events of session `{}` (in memory)", self.id),
                reason: format!("an appended line is not one event: {err}"),
            })?;
            parsed.push((event, line.to_vec()));
        }
        let mut all = lock(&self.sessions);
        match all.get_mut(&self.id) {
            Some(s) if s.incarnation == self.incarnation => {
                s.events.extend(parsed);
                Ok(())
            }
            _ => Err(not_found(&self.id)),
        }
    }

    fn sync(&mut self) -> StoreResult<()> {
        Ok(())
    }
}

impl SessionStore for MemoryStore {
    fn create(&self, meta: &SessionMeta, config: &Value) -> StoreResult<()> {
        static INCARNATION: AtomicU64 = AtomicU64::new(0);
        let mut all = lock(&self.sessions);
        if all.contains_key(&meta.session_id) {
            return Err(StoreError::Exists {
                id: meta.session_id.to_string(),
            });
        }
        all.insert(
            meta.session_id.clone(),
            Session {
                incarnation: INCARNATION.fetch_add(1, Ordering::Relaxed),
                meta: meta.clone(),
                config: config.clone(),
                states: HashMap::new(),
                lists: HashMap::new(),
                events: Vec::new(),
                locked: false,
            },
        );
        Ok(())
    }

    fn exists(&self, id: &SessionId) -> StoreResult<bool> {
        Ok(lock(&self.sessions).contains_key(id))
    }

    fn meta(&self, id: &SessionId) -> StoreResult<SessionMeta> {
        self.with(id, |s| Ok(s.meta.clone()))
    }

    fn touch(&self, id: &SessionId, at: DateTime<Utc>) -> StoreResult<()> {
        self.with(id, |s| {
            s.meta.last_active_time = s.meta.last_active_time.max(at);
            Ok(())
        })
    }

    fn list(&self, query: &ListQuery) -> StoreResult<Page<SessionMeta>> {
        let limit = match query.limit {
            0 => ListQuery::DEFAULT_LIMIT,
            n => n,
        };
        let all = lock(&self.sessions);
        let mut metas: Vec<&SessionMeta> = all
            .values()
            .map(|s| &s.meta)
            .filter(|m| {
                query
                    .agent_config
                    .as_ref()
                    .is_none_or(|c| *c == m.agent_config)
            })
            .filter(|m| {
                query.after.as_ref().is_none_or(|c| {
                    (m.last_active_time, &m.session_id) < (c.last_active_time, &c.session_id)
                })
            })
            .collect();
        metas.sort_unstable_by(|a, b| {
            (b.last_active_time, &b.session_id).cmp(&(a.last_active_time, &a.session_id))
        });
        let more = metas.len() > limit;
        metas.truncate(limit);
        let next = more.then(|| metas.last()).flatten().map(|m| Cursor {
            last_active_time: m.last_active_time,
            session_id: m.session_id.clone(),
        });
        Ok(Page {
            items: metas.into_iter().cloned().collect(),
            next,
            warnings: Vec::new(),
        })
    }

    fn config_snapshot(&self, id: &SessionId) -> StoreResult<Value> {
        self.with(id, |s| Ok(s.config.clone()))
    }

    fn load_state(&self, id: &SessionId, key: &StateKey) -> StoreResult<Option<Versioned<Value>>> {
        self.with(id, |s| Ok(s.states.get(key.as_str()).cloned()))
    }

    fn save_state(
        &self,
        id: &SessionId,
        key: &StateKey,
        value: &Value,
        expected: Option<u64>,
    ) -> StoreResult<u64> {
        self.with(id, |s| {
            let stored = s.states.get(key.as_str()).map_or(0, |v| v.version);
            if let Some(expected) = expected.filter(|e| *e != stored) {
                return Err(StoreError::Conflict {
                    id: id.to_string(),
                    expected,
                    actual: stored,
                });
            }
            let version = stored + 1;
            s.states.insert(
                key.as_str().to_owned(),
                Versioned {
                    value: value.clone(),
                    version,
                },
            );
            Ok(version)
        })
    }

    fn import_state(
        &self,
        id: &SessionId,
        key: &StateKey,
        value: &Versioned<Value>,
    ) -> StoreResult<()> {
        refuse_version_zero(id, key, value.version)?;
        self.with(id, |s| {
            if let Some(stored) = s.states.get(key.as_str()) {
                return Err(StoreError::Conflict {
                    id: id.to_string(),
                    expected: 0,
                    actual: stored.version,
                });
            }
            s.states.insert(key.as_str().to_owned(), value.clone());
            Ok(())
        })
    }

    fn state_keys(&self, id: &SessionId) -> StoreResult<StateKeys> {
        self.with(id, |s| {
            let sorted = |keys: Vec<&String>| {
                let mut keys: Vec<StateKey> = keys
                    .into_iter()
                    .map(|k| StateKey::parse(k))
                    .collect::<StoreResult<_>>()?;
                keys.sort();
                Ok::<_, StoreError>(keys)
            };
            Ok(StateKeys {
                values: sorted(s.states.keys().collect())?,
                lists: sorted(s.lists.keys().collect())?,
            })
        })
    }

    fn append_list(&self, id: &SessionId, key: &StateKey, items: &[Value]) -> StoreResult<()> {
        self.with(id, |s| {
            // Nothing appended makes no list (as on files).
            if !items.is_empty() {
                s.lists
                    .entry(key.as_str().to_owned())
                    .or_default()
                    .extend_from_slice(items);
            }
            Ok(())
        })
    }

    fn read_list(&self, id: &SessionId, key: &StateKey) -> StoreResult<Vec<Value>> {
        self.with(id, |s| {
            Ok(s.lists.get(key.as_str()).cloned().unwrap_or_default())
        })
    }

    fn lock(&self, id: &SessionId) -> StoreResult<SessionLock> {
        let incarnation = self.with(id, |s| {
            if s.locked {
                return Err(StoreError::SessionBusy {
                    id: id.to_string(),
                    holder: "another writer of this memory store".to_owned(),
                });
            }
            s.locked = true;
            Ok(s.incarnation)
        })?;
        Ok(SessionLock(Box::new(MemLock {
            sessions: self.sessions.clone(),
            id: id.clone(),
            incarnation,
        })))
    }

    fn repair_events(&self, id: &SessionId) -> StoreResult<Vec<LogProblem>> {
        // Lines are checked on append: nothing can be torn.
        self.with(id, |_| Ok(Vec::new()))
    }

    fn open_events(&self, id: &SessionId, _: &LogOptions) -> StoreResult<Box<dyn EventSink>> {
        let incarnation = self.with(id, |s| Ok(s.incarnation))?;
        Ok(Box::new(MemSink {
            sessions: self.sessions.clone(),
            id: id.clone(),
            incarnation,
        }))
    }

    fn read_events(&self, id: &SessionId) -> StoreResult<EventsRead> {
        self.with(id, |s| {
            Ok(EventsRead {
                events: s
                    .events
                    .iter()
                    .enumerate()
                    .map(|(seq, (event, line))| StoredEvent {
                        seq: seq as u64,
                        event: event.clone(),
                        line: line.clone(),
                    })
                    .collect(),
                problems: Vec::new(),
            })
        })
    }

    fn pop_event(&self, id: &SessionId) -> StoreResult<Option<StoredEvent>> {
        self.with(id, |s| {
            Ok(s.events.pop().map(|(event, line)| StoredEvent {
                seq: s.events.len() as u64,
                event,
                line,
            }))
        })
    }

    fn delete(&self, id: &SessionId) -> StoreResult<bool> {
        let mut all = lock(&self.sessions);
        match all.get(id) {
            None => Ok(false),
            Some(s) if s.locked => Err(StoreError::SessionBusy {
                id: id.to_string(),
                holder: "another writer of this memory store".to_owned(),
            }),
            Some(_) => Ok(all.remove(id).is_some()),
        }
    }
}
