//! [`PgStore`]: the store's contract on Postgres. Each operation is one
//! transaction (a read is one statement); the tables are those of
//! `migrations/`, in the URL's schema.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use postgres::fallible_iterator::FallibleIterator;
use postgres::Row;
use retrace_core::Event;
use retrace_store::{
    refuse_version_zero, Cursor, EventSink, EventsRead, ListQuery, LogOptions, LogProblem, Page,
    SessionId, SessionLock, SessionMeta, SessionStore, StateKey, StateKeys, StoreError,
    StoreResult, StoredEvent, Versioned,
};
use serde_json::Value;

use crate::db::{Conn, Db, Fail, PgOptions};
use crate::lock::{self, lock_key};
use crate::migrate::{self, MigrationReport, MIGRATIONS};
use crate::sink::PgSink;
use crate::target::Target;
use crate::time::{join, split};

/// Sessions kept in a Postgres database.
pub struct PgStore {
    db: Arc<Db>,
    migration: MigrationReport,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("at", &self.db.target.shown)
            .finish_non_exhaustive()
    }
}

/// `list`'s four statements: with or without a filter by agent
/// configuration ($2), with or without a cursor ($3, $4, $5); $1 is how
/// many rows to read. Each is a range of one index.
macro_rules! list_sql {
    ($where:literal) => {
        concat!(
            "SELECT session_id, agent_config, create_time, create_time_ns, ",
            "last_active_time, last_active_time_ns, extra FROM sessions ",
            $where,
            " ORDER BY last_active_time DESC, last_active_time_ns DESC, session_id DESC LIMIT $1"
        )
    };
}
const LIST: [&str; 4] = [
    list_sql!("WHERE $2::text IS NULL"),
    list_sql!("WHERE agent_config = $2"),
    list_sql!(
        "WHERE $2::text IS NULL AND (last_active_time, last_active_time_ns, session_id) \
         < ($3, $4, $5)"
    ),
    list_sql!(
        "WHERE agent_config = $2 AND (last_active_time, last_active_time_ns, session_id) \
         < ($3, $4, $5)"
    ),
];

fn not_found(id: &SessionId) -> Fail {
    Fail::Store(StoreError::NotFound { id: id.to_string() })
}

impl PgStore {
    /// Connects to the store at `url` (`postgres://…`, `?schema=NAME` for
    /// a schema other than `retrace`) and checks its schema's version:
    /// migrated first with [`PgOptions::migrate`], else a schema behind
    /// or ahead of this build is refused, saying what to do.
    pub fn connect(url: &str, options: PgOptions) -> StoreResult<PgStore> {
        let target = Target::parse(url)?;
        let migrate = options.migrate;
        let db = Arc::new(Db::new(target, options));
        let latest = migrate::latest();
        let migration = db.run(
            &|| "cannot read the schema's version".to_owned(),
            true,
            |c| {
                let at = migrate::version(&mut c.client)?;
                if at < latest && migrate {
                    return migrate::apply(&db, &mut c.client, MIGRATIONS);
                }
                Ok(MigrationReport {
                    from: at,
                    to: at,
                    applied: Vec::new(),
                })
            },
        )?;
        let schema = &db.target.schema;
        if migration.to < latest {
            return Err(db.error(
                &format!(
                    "schema `{schema}` is at version {}, and this retrace needs version {latest}",
                    migration.to
                ),
                "apply the migrations with `retrace store migrate --url URL` (or connect with \
                 PgOptions::migrate)"
                    .to_owned(),
            ));
        }
        if migration.to > latest {
            return Err(db.error(
                &format!(
                    "schema `{schema}` is at version {}, newer than this retrace knows \
                     ({latest})",
                    migration.to
                ),
                "a newer retrace migrated it; use that one".to_owned(),
            ));
        }
        Ok(PgStore { db, migration })
    }

    /// What [`PgStore::connect`] found and applied.
    pub fn migration(&self) -> &MigrationReport {
        &self.migration
    }

    /// The store as messages name it: `postgres://user@host:port/db
    /// (schema s)`, without a password.
    pub fn shown(&self) -> &str {
        &self.db.target.shown
    }

    /// The schema holding the tables.
    pub fn schema(&self) -> &str {
        &self.db.target.schema
    }

    /// The session's `key`, or not found.
    fn key(c: &mut Conn, id: &SessionId) -> Result<i64, Fail> {
        let s = c.prepare("SELECT key FROM sessions WHERE session_id = $1")?;
        match c.client.query_opt(&s, &[&id.as_str()])? {
            Some(row) => Ok(row.get(0)),
            None => Err(not_found(id)),
        }
    }

    /// A state's stored version (0: never saved).
    fn version(c: &mut Conn, key: i64, name: &StateKey) -> Result<u64, Fail> {
        let s = c.prepare("SELECT version FROM states WHERE session_key = $1 AND name = $2")?;
        let v: Option<i64> = c
            .client
            .query_opt(&s, &[&key, &name.as_str()])?
            .map(|r| r.get(0));
        Ok(v.map_or(0, |v| v as u64))
    }
}

fn meta_of(row: &Row) -> Result<SessionMeta, Fail> {
    let id: String = row.get(0);
    let session_id = SessionId::parse(&id)?;
    let extra = match row.get::<_, Value>(6) {
        Value::Object(m) => m,
        other => {
            return Err(Fail::Store(StoreError::Corrupt {
                path: format!("sessions.extra of session `{id}`"),
                reason: format!("not a JSON object: {other}"),
            }))
        }
    };
    Ok(SessionMeta {
        session_id,
        agent_config: row.get(1),
        create_time: join(row.get(2), row.get(3)),
        last_active_time: join(row.get(4), row.get(5)),
        extra,
    })
}

fn version_i64(id: &SessionId, version: u64) -> Result<i64, Fail> {
    i64::try_from(version).map_err(|_| {
        Fail::Store(StoreError::Corrupt {
            path: format!("state of session `{id}`"),
            reason: format!("version {version} is past what the database holds (2^63 - 1)"),
        })
    })
}

impl SessionStore for PgStore {
    fn create(&self, meta: &SessionMeta, config: &Value) -> StoreResult<()> {
        let id = &meta.session_id;
        let what = || format!("cannot create session `{id}`");
        let (created, created_ns) = split(meta.create_time);
        let (active, active_ns) = split(meta.last_active_time);
        let extra = Value::Object(meta.extra.clone());
        self.db.run(&what, false, |c| {
            let insert = c.prepare(
                "INSERT INTO sessions (session_id, agent_config, create_time, create_time_ns, \
                 last_active_time, last_active_time_ns, extra) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7) \
                 ON CONFLICT (session_id) DO NOTHING RETURNING key",
            )?;
            let snapshot =
                c.prepare("INSERT INTO config_snapshots (session_key, config) VALUES ($1, $2)")?;
            let mut tx = c.client.transaction()?;
            let row = tx.query_opt(
                &insert,
                &[
                    &id.as_str(),
                    &meta.agent_config,
                    &created,
                    &created_ns,
                    &active,
                    &active_ns,
                    &extra,
                ],
            )?;
            let Some(row) = row else {
                return Err(Fail::Store(StoreError::Exists { id: id.to_string() }));
            };
            let key: i64 = row.get(0);
            tx.execute(&snapshot, &[&key, config])?;
            tx.commit().map_err(Fail::Commit)
        })
    }

    fn exists(&self, id: &SessionId) -> StoreResult<bool> {
        self.db
            .run(&|| format!("cannot look for session `{id}`"), true, |c| {
                let s =
                    c.prepare("SELECT EXISTS (SELECT 1 FROM sessions WHERE session_id = $1)")?;
                Ok(c.client.query_one(&s, &[&id.as_str()])?.get(0))
            })
    }

    fn meta(&self, id: &SessionId) -> StoreResult<SessionMeta> {
        self.db
            .run(&|| format!("cannot read session `{id}`"), true, |c| {
                const META: &str = concat!(
                "SELECT session_id, agent_config, create_time, create_time_ns, ",
                "last_active_time, last_active_time_ns, extra FROM sessions WHERE session_id = $1"
            );
                let s = c.prepare(META)?;
                match c.client.query_opt(&s, &[&id.as_str()])? {
                    Some(row) => meta_of(&row),
                    None => Err(not_found(id)),
                }
            })
    }

    fn touch(&self, id: &SessionId, at: DateTime<Utc>) -> StoreResult<()> {
        let (t, ns) = split(at);
        // Never back: the same result however often it runs.
        self.db.run(
            &|| format!("cannot record activity of session `{id}`"),
            true,
            |c| {
                let s = c.prepare(
                    "UPDATE sessions SET last_active_time = $2, last_active_time_ns = $3 \
                     WHERE session_id = $1 \
                     AND (last_active_time, last_active_time_ns) < ($2, $3)",
                )?;
                let mut tx = c.client.transaction()?;
                let updated = tx.execute(&s, &[&id.as_str(), &t, &ns])?;
                if updated == 0 {
                    let found: bool = tx
                        .query_one(
                            "SELECT EXISTS (SELECT 1 FROM sessions WHERE session_id = $1)",
                            &[&id.as_str()],
                        )?
                        .get(0);
                    if !found {
                        return Err(not_found(id));
                    }
                }
                tx.commit().map_err(Fail::Commit)
            },
        )
    }

    fn list(&self, query: &ListQuery) -> StoreResult<Page<SessionMeta>> {
        let limit = match query.limit {
            0 => ListQuery::DEFAULT_LIMIT,
            n => n,
        };
        let which =
            usize::from(query.agent_config.is_some()) + 2 * usize::from(query.after.is_some());
        let after = query.after.as_ref().map(|c| {
            let (t, ns) = split(c.last_active_time);
            (t, ns, c.session_id.as_str().to_owned())
        });
        self.db
            .run(&|| "cannot list sessions".to_owned(), true, |c| {
                let s = c.prepare(LIST[which])?;
                // One more row than asked says whether there is a next page.
                let n = i64::try_from(limit).unwrap_or(i64::MAX).saturating_add(1);
                let rows = match &after {
                    None => c.client.query(&s, &[&n, &query.agent_config])?,
                    Some((t, ns, id)) => {
                        c.client.query(&s, &[&n, &query.agent_config, t, ns, id])?
                    }
                };
                let more = rows.len() > limit;
                let items = rows
                    .iter()
                    .take(limit)
                    .map(meta_of)
                    .collect::<Result<Vec<_>, _>>()?;
                let next = more.then(|| items.last()).flatten().map(|m| Cursor {
                    last_active_time: m.last_active_time,
                    session_id: m.session_id.clone(),
                });
                Ok(Page {
                    items,
                    next,
                    warnings: Vec::new(),
                })
            })
    }

    fn config_snapshot(&self, id: &SessionId) -> StoreResult<Value> {
        self.db.run(
            &|| format!("cannot read the configuration of `{id}`"),
            true,
            |c| {
                let s = c.prepare(
                    "SELECT c.config FROM sessions s \
                     JOIN config_snapshots c ON c.session_key = s.key WHERE s.session_id = $1",
                )?;
                match c.client.query_opt(&s, &[&id.as_str()])? {
                    Some(row) => Ok(row.get(0)),
                    None => Err(not_found(id)),
                }
            },
        )
    }

    fn load_state(&self, id: &SessionId, key: &StateKey) -> StoreResult<Option<Versioned<Value>>> {
        let what = || format!("cannot read state `{}` of session `{id}`", key.as_str());
        self.db.run(&what, true, |c| {
            let s = c.prepare(
                "SELECT st.value, st.version FROM sessions s \
                 LEFT JOIN states st ON st.session_key = s.key AND st.name = $2 \
                 WHERE s.session_id = $1",
            )?;
            let Some(row) = c.client.query_opt(&s, &[&id.as_str(), &key.as_str()])? else {
                return Err(not_found(id));
            };
            let version: Option<i64> = row.get(1);
            Ok(version.map(|v| Versioned {
                value: row.get(0),
                version: v as u64,
            }))
        })
    }

    fn save_state(
        &self,
        id: &SessionId,
        key: &StateKey,
        value: &Value,
        expected: Option<u64>,
    ) -> StoreResult<u64> {
        let what = || format!("cannot save state `{}` of session `{id}`", key.as_str());
        let name = key.as_str();
        self.db.run(&what, false, |c| {
            let session = PgStore::key(c, id)?;
            let statement = match expected {
                None => c.prepare(
                    "INSERT INTO states (session_key, name, version, value) \
                     VALUES ($1, $2, 1, $3) \
                     ON CONFLICT (session_key, name) \
                     DO UPDATE SET version = states.version + 1, value = EXCLUDED.value \
                     RETURNING version",
                )?,
                Some(0) => c.prepare(
                    "INSERT INTO states (session_key, name, version, value) \
                     VALUES ($1, $2, 1, $3) ON CONFLICT DO NOTHING RETURNING version",
                )?,
                Some(_) => c.prepare(
                    "UPDATE states SET version = version + 1, value = $3 \
                     WHERE session_key = $1 AND name = $2 AND version = $4 RETURNING version",
                )?,
            };
            let want = version_i64(id, expected.unwrap_or(0))?;
            let mut tx = c.client.transaction()?;
            let row = match expected {
                Some(e) if e > 0 => tx.query_opt(&statement, &[&session, &name, value, &want])?,
                _ => tx.query_opt(&statement, &[&session, &name, value])?,
            };
            let Some(row) = row else {
                drop(tx);
                return Err(Fail::Store(StoreError::Conflict {
                    id: id.to_string(),
                    expected: expected.unwrap_or(0),
                    actual: PgStore::version(c, session, key)?,
                }));
            };
            let version: i64 = row.get(0);
            tx.commit().map_err(Fail::Commit)?;
            Ok(version as u64)
        })
    }

    fn import_state(
        &self,
        id: &SessionId,
        key: &StateKey,
        value: &Versioned<Value>,
    ) -> StoreResult<()> {
        refuse_version_zero(id, key, value.version)?;
        let what = || format!("cannot import state `{}` of session `{id}`", key.as_str());
        self.db.run(&what, false, |c| {
            let session = PgStore::key(c, id)?;
            let version = version_i64(id, value.version)?;
            let s = c.prepare(
                "INSERT INTO states (session_key, name, version, value) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING version",
            )?;
            let mut tx = c.client.transaction()?;
            let inserted = tx.query_opt(&s, &[&session, &key.as_str(), &version, &value.value])?;
            if inserted.is_none() {
                drop(tx);
                return Err(Fail::Store(StoreError::Conflict {
                    id: id.to_string(),
                    expected: 0,
                    actual: PgStore::version(c, session, key)?,
                }));
            }
            tx.commit().map_err(Fail::Commit)
        })
    }

    fn state_keys(&self, id: &SessionId) -> StoreResult<StateKeys> {
        self.db
            .run(&|| format!("cannot list the state of `{id}`"), true, |c| {
                let session = PgStore::key(c, id)?;
                let mut names = |sql: &'static str| -> Result<Vec<StateKey>, Fail> {
                    let s = c.prepare(sql)?;
                    let rows = c.client.query(&s, &[&session])?;
                    Ok(rows
                        .iter()
                        .map(|r| StateKey::parse(r.get(0)))
                        .collect::<StoreResult<Vec<_>>>()?)
                };
                Ok(StateKeys {
                    values: names("SELECT name FROM states WHERE session_key = $1 ORDER BY name")?,
                    lists: names("SELECT name FROM lists WHERE session_key = $1 ORDER BY name")?,
                })
            })
    }

    fn append_list(&self, id: &SessionId, key: &StateKey, items: &[Value]) -> StoreResult<()> {
        let what = || format!("cannot append to list `{}` of session `{id}`", key.as_str());
        self.db.run(&what, false, |c| {
            let session = PgStore::key(c, id)?;
            // Nothing appended makes no list (as on files).
            if items.is_empty() {
                return Ok(());
            }
            let s = c.prepare(
                "WITH l AS ( \
                     INSERT INTO lists (session_key, name, len) VALUES ($1, $2, $3) \
                     ON CONFLICT (session_key, name) DO UPDATE SET len = lists.len + EXCLUDED.len \
                     RETURNING len - $3 AS first) \
                 INSERT INTO list_items (session_key, name, pos, value) \
                 SELECT $1, $2, l.first + u.n - 1, u.value \
                 FROM l, unnest($4::json[]) WITH ORDINALITY AS u(value, n)",
            )?;
            let mut tx = c.client.transaction()?;
            tx.execute(
                &s,
                &[&session, &key.as_str(), &(items.len() as i64), &items],
            )?;
            tx.commit().map_err(Fail::Commit)
        })
    }

    fn read_list(&self, id: &SessionId, key: &StateKey) -> StoreResult<Vec<Value>> {
        let what = || format!("cannot read list `{}` of session `{id}`", key.as_str());
        self.db.run(&what, true, |c| {
            let session = PgStore::key(c, id)?;
            let s = c.prepare(
                "SELECT value FROM list_items WHERE session_key = $1 AND name = $2 ORDER BY pos",
            )?;
            let rows = c.client.query(&s, &[&session, &key.as_str()])?;
            Ok(rows.iter().map(|r| r.get(0)).collect())
        })
    }

    fn lock(&self, id: &SessionId) -> StoreResult<SessionLock> {
        lock::take(&self.db, id)
    }

    fn repair_events(&self, id: &SessionId) -> StoreResult<Vec<LogProblem>> {
        // A batch is a transaction: there is never a torn one to repair.
        if !self.exists(id)? {
            return Err(StoreError::NotFound { id: id.to_string() });
        }
        Ok(Vec::new())
    }

    fn open_events(&self, id: &SessionId, _: &LogOptions) -> StoreResult<Box<dyn EventSink>> {
        let key = self
            .db
            .run(&|| format!("cannot open the events of `{id}`"), true, |c| {
                PgStore::key(c, id)
            })?;
        Ok(Box::new(PgSink::open(self.db.clone(), id, key)?))
    }

    fn read_events(&self, id: &SessionId) -> StoreResult<EventsRead> {
        let table = format!("{}.events", self.db.target.schema);
        self.db
            .run(&|| format!("cannot read the events of `{id}`"), true, |c| {
                let session = PgStore::key(c, id)?;
                let s =
                    c.prepare("SELECT seq, line FROM events WHERE session_key = $1 ORDER BY seq")?;
                let mut read = EventsRead::default();
                let mut rows = c.client.query_raw(&s, [&session])?;
                while let Some(row) = rows.next()? {
                    let seq: i64 = row.get(0);
                    let line: Vec<u8> = row.get(1);
                    match serde_json::from_slice::<Event>(&line) {
                        Ok(event) => read.events.push(StoredEvent {
                            seq: seq as u64,
                            event,
                            line,
                        }),
                        // A row written by hand: reported, never dropped silently.
                        Err(e) => read.problems.push(LogProblem {
                            file: table.clone(),
                            line: seq as u64 + 1,
                            offset: 0,
                            message: format!("the row of seq {seq} is not an event: {e}"),
                        }),
                    }
                }
                Ok(read)
            })
    }

    fn pop_event(&self, id: &SessionId) -> StoreResult<Option<StoredEvent>> {
        self.db.run(
            &|| format!("cannot pop the last event of `{id}`"),
            false,
            |c| {
                let delete = c.prepare(
                    "DELETE FROM events WHERE session_key = $1 \
                 AND seq = (SELECT max(seq) FROM events WHERE session_key = $1) \
                 RETURNING seq, line",
                )?;
                let renumber = c.prepare("UPDATE sessions SET next_seq = $2 WHERE key = $1")?;
                let mut tx = c.client.transaction()?;
                // The row's lock keeps appenders out until the commit.
                let session: i64 = match tx.query_opt(
                    "SELECT key FROM sessions WHERE session_id = $1 FOR UPDATE",
                    &[&id.as_str()],
                )? {
                    Some(r) => r.get(0),
                    None => return Err(not_found(id)),
                };
                let Some(row) = tx.query_opt(&delete, &[&session])? else {
                    return Ok(None);
                };
                let seq: i64 = row.get(0);
                let line: Vec<u8> = row.get(1);
                let event = serde_json::from_slice::<Event>(&line).map_err(|e| {
                    Fail::Store(StoreError::Corrupt {
                        path: format!(
                            "{}.events, seq {seq} of session `{id}`",
                            self.db.target.schema
                        ),
                        reason: format!("not an event, so not popped: {e}"),
                    })
                })?;
                tx.execute(&renumber, &[&session, &seq])?;
                tx.commit().map_err(Fail::Commit)?;
                Ok(Some(StoredEvent {
                    seq: seq as u64,
                    event,
                    line,
                }))
            },
        )
    }

    fn delete(&self, id: &SessionId) -> StoreResult<bool> {
        self.db
            .run(&|| format!("cannot delete session `{id}`"), false, |c| {
                let mut tx = c.client.transaction()?;
                let Some(row) = tx.query_opt(
                    "SELECT key FROM sessions WHERE session_id = $1 FOR UPDATE",
                    &[&id.as_str()],
                )?
                else {
                    return Ok(false);
                };
                let session: i64 = row.get(0);
                let free: bool = tx
                    .query_one(
                        concat!("SELECT pg_try_advisory_xact_lock(", lock_key!(), ")"),
                        &[&id.as_str()],
                    )?
                    .get(0);
                if !free {
                    drop(tx);
                    return Err(Fail::Store(StoreError::SessionBusy {
                        id: id.to_string(),
                        holder: lock::holder(&mut c.client, id),
                    }));
                }
                // Its configuration, state, lists and events go with it.
                tx.execute("DELETE FROM sessions WHERE key = $1", &[&session])?;
                tx.commit().map_err(Fail::Commit)?;
                Ok(true)
            })
    }
}
