//! Connections to the server: made with the store's schema as their
//! `search_path`, kept in a small pool, and replaced when lost. An
//! operation runs in one transaction; when the connection is lost before
//! its `COMMIT` was sent, the server rolled it back, so it is run again on
//! a new connection (waiting for a restarting server up to
//! [`PgOptions::reconnect_timeout`]). A connection lost during the
//! `COMMIT` leaves the outcome unknown: an operation that gives the same
//! result run twice (a read, `touch`) runs again; any other fails saying
//! so. (The event sink resolves that case itself: `sink.rs`.)

use std::collections::HashMap;
use std::error::Error as _;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use postgres::error::SqlState;
use postgres::{Client, NoTls, Statement};
use retrace_store::{StoreError, StoreResult, WarningFn};

use crate::target::Target;

/// Settings every connection of the store starts with: commits are
/// durable when acknowledged, whatever the server's default (a state save
/// promises what an fsync does on files; an event batch, what a sync
/// does).
pub(crate) const SETTINGS: &str = "-c synchronous_commit=on";

/// How a [`crate::PgStore`] connects and what it does on connect.
#[derive(Clone)]
pub struct PgOptions {
    /// Apply the migrations the schema lacks when connecting (in one
    /// transaction each). Without it, a schema behind this retrace is
    /// refused, naming `retrace store migrate`.
    pub migrate: bool,
    /// How long an operation waits for a lost server to come back before
    /// it fails (a restart takes a second or two).
    pub reconnect_timeout: Duration,
    /// Idle connections kept for the next operations.
    pub pool_size: usize,
    /// Where warnings go: a reconnection, a retried batch found already
    /// written, a lock lost with its connection (default: `log::warn!`).
    pub on_warning: WarningFn,
}

impl Default for PgOptions {
    fn default() -> PgOptions {
        PgOptions {
            migrate: false,
            reconnect_timeout: Duration::from_secs(30),
            pool_size: 8,
            on_warning: Arc::new(|w: &str| log::warn!("{w}")),
        }
    }
}

impl fmt::Debug for PgOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgOptions")
            .field("migrate", &self.migrate)
            .field("reconnect_timeout", &self.reconnect_timeout)
            .field("pool_size", &self.pool_size)
            .finish_non_exhaustive()
    }
}

/// A connection and the statements prepared on it.
pub(crate) struct Conn {
    pub client: Client,
    prepared: HashMap<&'static str, Statement>,
}

impl Conn {
    pub fn new(client: Client) -> Conn {
        Conn {
            client,
            prepared: HashMap::new(),
        }
    }

    /// `sql` prepared on this connection (once).
    pub fn prepare(&mut self, sql: &'static str) -> Result<Statement, postgres::Error> {
        if let Some(s) = self.prepared.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql)?;
        self.prepared.insert(sql, s.clone());
        Ok(s)
    }
}

/// Why an operation stopped.
pub(crate) enum Fail {
    /// What the store says (not found, a conflict, busy): the answer.
    Store(StoreError),
    /// The server's error, or a lost connection before the commit.
    Pg(postgres::Error),
    /// The connection was lost during the commit.
    Commit(postgres::Error),
}

impl From<postgres::Error> for Fail {
    fn from(e: postgres::Error) -> Fail {
        Fail::Pg(e)
    }
}

impl From<StoreError> for Fail {
    fn from(e: StoreError) -> Fail {
        Fail::Store(e)
    }
}

/// Whether running again as it is may succeed: the connection was lost or
/// refused (the server restarting), or the server gave up on the
/// transaction (a deadlock, a serialization failure).
pub(crate) fn transient(e: &postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    if let Some(code) = e.code() {
        let c = code.code();
        return c.starts_with("08")
            || *code == SqlState::ADMIN_SHUTDOWN
            || *code == SqlState::CRASH_SHUTDOWN
            || *code == SqlState::CANNOT_CONNECT_NOW
            || *code == SqlState::T_R_SERIALIZATION_FAILURE
            || *code == SqlState::T_R_DEADLOCK_DETECTED;
    }
    // No code: an I/O error on the socket, a refused or reset connection.
    e.source().is_some_and(|s| s.is::<std::io::Error>())
}

/// The server's message in full: severity, code, message, detail, hint,
/// where in the statement; or the client's error and its cause.
pub(crate) fn reason(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        let mut s = format!("{} {}: {}", db.severity(), db.code().code(), db.message());
        if let Some(d) = db.detail() {
            s.push_str(&format!("; {d}"));
        }
        if let Some(h) = db.hint() {
            s.push_str(&format!(" (hint: {h})"));
        }
        if let Some(w) = db.where_() {
            s.push_str(&format!(" [{w}]"));
        }
        return s;
    }
    match e.source() {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

/// The store's connections.
pub(crate) struct Db {
    pub target: Target,
    pub options: PgOptions,
    pool: Mutex<Vec<Conn>>,
}

impl Db {
    pub fn new(target: Target, options: PgOptions) -> Db {
        Db {
            target,
            options,
            pool: Mutex::new(Vec::new()),
        }
    }

    /// An error about doing `what` on this store.
    pub fn error(&self, what: &str, reason: String) -> StoreError {
        StoreError::Database {
            what: format!("postgres {}: {what}", self.target.shown),
            reason,
        }
    }

    pub fn warn(&self, message: &str) {
        (self.options.on_warning)(&format!("postgres {}: {message}", self.target.shown));
    }

    /// A new connection named `app` (seen in `pg_stat_activity`), its
    /// `search_path` the store's schema and `settings` (`-c name=value`
    /// each) set from its start.
    pub fn connect_once(&self, app: &str, settings: &str) -> Result<Client, postgres::Error> {
        let mut config = self.target.config.clone();
        config.application_name(app);
        config.options(&format!("-c search_path={} {settings}", self.target.schema));
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        config.connect(NoTls)
    }

    /// [`Db::connect_once`], again until the server answers or the
    /// reconnect timeout passes.
    pub fn connect(&self, app: &str, settings: &str, what: &str) -> StoreResult<Client> {
        let mut wait = Wait::new(self.options.reconnect_timeout);
        loop {
            match self.connect_once(app, settings) {
                Ok(c) => return Ok(c),
                Err(e) if transient(&e) && wait.again() => {}
                Err(e) => return Err(self.error(what, format!("cannot connect: {}", reason(&e)))),
            }
        }
    }

    fn take(&self, what: &str) -> StoreResult<Conn> {
        loop {
            let pooled = self
                .pool
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop();
            match pooled {
                Some(c) if c.client.is_closed() => continue,
                Some(c) => return Ok(c),
                None => return self.connect("retrace", SETTINGS, what).map(Conn::new),
            }
        }
    }

    fn give_back(&self, conn: Conn) {
        if conn.client.is_closed() {
            return;
        }
        let mut pool = self.pool.lock().unwrap_or_else(PoisonError::into_inner);
        if pool.len() < self.options.pool_size {
            pool.push(conn);
        }
    }

    /// Runs `op` on a pooled connection, again on a new one after a
    /// transient failure. `op` runs its own transaction and reports a
    /// failed `COMMIT` as [`Fail::Commit`]; `same_twice` says whether
    /// running it again after one is harmless.
    pub fn run<T>(
        &self,
        what: &dyn Fn() -> String,
        same_twice: bool,
        mut op: impl FnMut(&mut Conn) -> Result<T, Fail>,
    ) -> StoreResult<T> {
        let mut wait = Wait::new(self.options.reconnect_timeout);
        let mut lost = 0;
        loop {
            let mut conn = self.take(&what())?;
            let (e, retry) = match op(&mut conn) {
                Ok(v) => {
                    self.give_back(conn);
                    if lost > 0 {
                        self.warn(&format!(
                            "{}: done on a new connection after {lost} lost",
                            what()
                        ));
                    }
                    return Ok(v);
                }
                Err(Fail::Store(e)) => {
                    self.give_back(conn);
                    return Err(e);
                }
                Err(Fail::Pg(e)) => {
                    let retry = transient(&e);
                    (e, retry)
                }
                Err(Fail::Commit(e)) if !transient(&e) => (e, false),
                Err(Fail::Commit(e)) if !same_twice => {
                    return Err(self.error(
                        &what(),
                        format!(
                            "the connection was lost while committing, so whether it was done \
                             is unknown; look before doing it again ({})",
                            reason(&e)
                        ),
                    ))
                }
                Err(Fail::Commit(e)) => (e, true),
            };
            if retry && wait.again() {
                lost += 1;
                continue;
            }
            self.give_back(conn);
            return Err(self.error(&what(), reason(&e)));
        }
    }
}

/// Pauses between attempts, growing from 20 ms to 1 s, until a deadline.
pub(crate) struct Wait {
    deadline: Instant,
    pause: Duration,
}

impl Wait {
    pub fn new(timeout: Duration) -> Wait {
        Wait {
            deadline: Instant::now() + timeout,
            pause: Duration::from_millis(20),
        }
    }

    /// Sleeps before the next attempt; false once the deadline is past.
    pub fn again(&mut self) -> bool {
        let now = Instant::now();
        if now >= self.deadline {
            return false;
        }
        std::thread::sleep(self.pause.min(self.deadline - now));
        self.pause = (self.pause * 2).min(Duration::from_secs(1));
        true
    }
}
