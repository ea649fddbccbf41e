//! A session's writer lock: a session-level advisory lock, held by a
//! connection of its own. The server releases it when that connection
//! ends, so a writer that dies never leaves its session locked. The key is
//! `hashtextextended('retrace {schema} {id}', 0)`: one per session and
//! schema, computed by the server for every client alike.
//!
//! A lost connection (a restarted server) loses the lock with it: a
//! keeper thread looks at the connection once a second, and on loss
//! connects again and takes the lock back, warning whether it could.
//! Between the two another writer may take it; appends stay exactly once
//! and numbered in one order even then (`sink.rs`), only the promise of a
//! single writer lapses, and the warning says so.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use postgres::Client;
use retrace_store::{SessionId, SessionLock, StoreError, StoreResult};

use crate::db::{reason, Db, SETTINGS};

/// The lock's key for session `$1` in the connection's schema.
macro_rules! lock_key {
    () => {
        "hashtextextended('retrace ' || coalesce(current_schema(), '') || ' ' || $1, 0)"
    };
}
pub(crate) use lock_key;

const TRY_LOCK: &str = concat!("SELECT pg_try_advisory_lock(", lock_key!(), ")");

/// Who holds the lock of session `$1`: their backend, application name,
/// address and start.
const HOLDER: &str = concat!(
    "SELECT a.pid, coalesce(a.application_name, ''), ",
    "       coalesce(host(a.client_addr), 'a local socket'), a.backend_start::text ",
    "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid ",
    "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 ",
    "  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) ",
    "  AND ((l.classid::bigint << 32) | l.objid::bigint) = ",
    lock_key!()
);

/// How often the keeper looks at its connection.
const KEEP_EVERY: Duration = Duration::from_secs(1);

/// Says who holds session `id`'s lock, for [`StoreError::SessionBusy`].
pub(crate) fn holder(client: &mut Client, id: &SessionId) -> String {
    match client.query(HOLDER, &[&id.as_str()]) {
        Ok(rows) if !rows.is_empty() => {
            let r = &rows[0];
            let pid: i32 = r.get(0);
            let app: String = r.get(1);
            let from: String = r.get(2);
            let since: String = r.get(3);
            format!(
                "an advisory lock held by server process {pid} (`{app}`, from {from}, connected \
                 {since})"
            )
        }
        Ok(_) => "an advisory lock another connection held a moment ago".to_owned(),
        Err(e) => format!("an advisory lock (who holds it is unknown: {})", reason(&e)),
    }
}

/// Takes session `id`'s lock: [`StoreError::SessionBusy`] if another
/// connection holds it, [`StoreError::NotFound`] if there is no session.
pub(crate) fn take(db: &Arc<Db>, id: &SessionId) -> StoreResult<SessionLock> {
    let what = || format!("cannot lock session `{id}`");
    let app = format!("retrace lock {id}");
    let mut client = db.connect(&app, SETTINGS, &what())?;
    let got: bool = client
        .query_one(TRY_LOCK, &[&id.as_str()])
        .map_err(|e| db.error(&what(), reason(&e)))?
        .get(0);
    if !got {
        return Err(StoreError::SessionBusy {
            id: id.to_string(),
            holder: holder(&mut client, id),
        });
    }
    // Looked at once the lock is held, so a delete cannot come between.
    let exists: bool = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM sessions WHERE session_id = $1)",
            &[&id.as_str()],
        )
        .map_err(|e| db.error(&what(), reason(&e)))?
        .get(0);
    if !exists {
        // Dropping the connection lets go of the lock.
        return Err(StoreError::NotFound { id: id.to_string() });
    }
    let (stop, stopped) = mpsc::channel::<()>();
    let keeper = {
        let (db, held) = (db.clone(), id.clone());
        std::thread::Builder::new()
            .name("retrace-pg-lock".into())
            .spawn(move || keep(client, &db, &held, &app, stopped))
            .map_err(|e| spawn_error(e, id))?
    };
    Ok(SessionLock(Box::new(Held {
        stop: Some(stop),
        keeper: Some(keeper),
    })))
}

fn spawn_error(e: std::io::Error, id: &SessionId) -> StoreError {
    StoreError::Database {
        what: format!("cannot lock session `{id}`"),
        reason: format!("cannot start the lock's keeper thread: {e}"),
    }
}

/// What a [`SessionLock`] holds: the keeper, stopped (and the connection
/// closed, the lock released) on drop.
struct Held {
    stop: Option<mpsc::Sender<()>>,
    keeper: Option<JoinHandle<()>>,
}

impl Drop for Held {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(k) = self.keeper.take() {
            let _ = k.join();
        }
    }
}

/// The keeper: holds the connection until told to stop; takes the lock
/// again on a new connection when the old one is lost.
fn keep(mut client: Client, db: &Db, id: &SessionId, app: &str, stop: mpsc::Receiver<()>) {
    let mut held = true;
    let mut said_taken = false;
    loop {
        match stop.recv_timeout(KEEP_EVERY) {
            Err(RecvTimeoutError::Timeout) => {}
            // Dropped: the lock is let go with the connection.
            _ => return,
        }
        if held && client.is_valid(Duration::from_secs(5)).is_ok() {
            continue;
        }
        if held {
            held = false;
            db.warn(&format!(
                "the connection holding session `{id}`'s lock was lost, and the lock with it; \
                 taking it again"
            ));
        }
        let Ok(mut fresh) = db.connect_once(app, SETTINGS) else {
            continue;
        };
        match fresh.query_one(TRY_LOCK, &[&id.as_str()]) {
            Ok(row) if row.get::<_, bool>(0) => {
                client = fresh;
                held = true;
                said_taken = false;
                db.warn(&format!("session `{id}`'s lock is held again"));
            }
            Ok(_) if !said_taken => {
                said_taken = true;
                db.warn(&format!(
                    "session `{id}`'s lock was taken meanwhile by {}: two writers may now \
                     append to it (each event is still written once, in one order); trying \
                     again each second",
                    holder(&mut fresh, id)
                ));
            }
            _ => {}
        }
    }
}
