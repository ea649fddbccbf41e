//! Appending a session's events: one statement per batch, on a connection
//! of the sink's own, committed synchronously (so `sync` has nothing left
//! to do: what `append` acknowledged is durable).
//!
//! - **Numbers without races.** The statement adds the batch's size to
//!   the session's `next_seq` and takes the numbers below it; the row's
//!   lock makes concurrent writers (threads, processes, hosts) take turns,
//!   so every event gets its own number, in the order of the commits, and
//!   one writer's batch is contiguous.
//! - **Exactly once.** Each event carries the sink's id (`writer`, a new
//!   UUID per sink) and its count there (`writer_seq`), unique together.
//!   When the connection is lost, the batch is sent again on a new one;
//!   the statement first looks for its first event's (writer, writer_seq)
//!   and writes nothing if it is there: the lost commit had happened. A
//!   batch is written whole or not at all, so its first event says for
//!   all of it.
//! - `body` is the line as `jsonb` for queries, null where jsonb cannot
//!   hold it (a NUL character, `\u0000`); `line` keeps the bytes.

use std::sync::Arc;

use retrace_core::Event;
use retrace_store::{EncodedEvent, EventSink, SessionId, StoreError, StoreResult};
use uuid::Uuid;

use crate::db::{reason, transient, Conn, Db, Wait, SETTINGS};

/// The batch statement: $1 writer, $2 its first writer_seq, $3 the count,
/// $4 the session's key, then one array per column. Gives how many rows
/// were found already written, updated (0: the session is gone) and
/// inserted.
const APPEND: &str = "
WITH done AS (
    SELECT 1 FROM events WHERE writer = $1 AND writer_seq = $2
), numbered AS (
    UPDATE sessions SET next_seq = next_seq + $3
    WHERE key = $4 AND NOT EXISTS (SELECT 1 FROM done)
    RETURNING next_seq - $3 AS first
), written AS (
    INSERT INTO events (session_key, seq, event_type, \"timestamp\", body, line, writer, writer_seq)
    SELECT $4, numbered.first + u.n - 1, u.event_type, u.at,
           CASE WHEN u.fits THEN convert_from(u.line, 'UTF8')::jsonb END,
           u.line, $1, $2 + u.n - 1
    FROM numbered,
         unnest($5::text[], $6::timestamptz[], $7::bytea[], $8::bool[])
             WITH ORDINALITY AS u(event_type, at, line, fits, n)
    RETURNING 1
)
SELECT (SELECT count(*) FROM done), (SELECT count(*) FROM numbered), (SELECT count(*) FROM written)";

/// Appends one session's events.
pub(crate) struct PgSink {
    db: Arc<Db>,
    conn: Option<Conn>,
    id: SessionId,
    /// The session's `key`: a session created again under the same id has
    /// another, and this sink does not write into it.
    key: i64,
    writer: Uuid,
    /// The `writer_seq` of the next event.
    next: i64,
    app: String,
}

impl PgSink {
    pub fn open(db: Arc<Db>, id: &SessionId, key: i64) -> StoreResult<PgSink> {
        let app = format!("retrace events {id}");
        let client = db.connect(&app, SETTINGS, &format!("cannot open the events of `{id}`"))?;
        Ok(PgSink {
            db,
            conn: Some(Conn::new(client)),
            id: id.clone(),
            key,
            writer: Uuid::new_v4(),
            next: 0,
            app,
        })
    }

    /// One attempt: (found already written, session there, inserted).
    fn attempt(
        &mut self,
        args: &Columns<'_>,
        first: i64,
    ) -> Result<(i64, i64, i64), postgres::Error> {
        if self.conn.is_none() {
            self.conn = Some(Conn::new(self.db.connect_once(&self.app, SETTINGS)?));
        }
        let conn = self.conn.as_mut().expect("just made");
        let statement = conn.prepare(APPEND)?;
        let row = conn.client.query_one(
            &statement,
            &[
                &self.writer,
                &first,
                &(args.lines.len() as i64),
                &self.key,
                &args.types,
                &args.times,
                &args.lines,
                &args.fits,
            ],
        )?;
        Ok((row.get(0), row.get(1), row.get(2)))
    }
}

/// A batch as the statement's arrays.
struct Columns<'a> {
    types: Vec<&'static str>,
    times: Vec<chrono::DateTime<chrono::Utc>>,
    lines: Vec<&'a [u8]>,
    fits: Vec<bool>,
}

/// Whether jsonb can hold `line` (valid UTF-8 without a `\u0000`
/// escape; jsonb refuses the NUL character). Every `\` of a JSON text
/// starts an escape, so escapes are found by skipping each one whole.
fn fits_jsonb(line: &[u8]) -> bool {
    if std::str::from_utf8(line).is_err() {
        return false;
    }
    let mut i = 0;
    while i < line.len() {
        if line[i] == b'\\' {
            if line[i + 1..].starts_with(b"u0000") {
                return false;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    true
}

impl EventSink for PgSink {
    fn append(&mut self, batch: &[EncodedEvent]) -> StoreResult<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut args = Columns {
            types: Vec::with_capacity(batch.len()),
            times: Vec::with_capacity(batch.len()),
            lines: Vec::with_capacity(batch.len()),
            fits: Vec::with_capacity(batch.len()),
        };
        // Checked before anything is sent: a batch goes in whole or not.
        for (i, e) in batch.iter().enumerate() {
            let line = e.line.strip_suffix(b"\n").unwrap_or(&e.line);
            if let Err(err) = serde_json::from_slice::<Event>(line) {
                return Err(StoreError::Corrupt {
                    path: format!("events of session `{}` ({})", self.id, self.db.target.shown),
                    reason: format!(
                        "line {} of an appended batch is not one event: {err}",
                        i + 1
                    ),
                });
            }
            args.types.push(e.event_type.as_str());
            args.times.push(e.timestamp);
            args.lines.push(line);
            args.fits.push(fits_jsonb(line));
        }
        let first = self.next;
        // Taken whatever happens: after a failure whose outcome is unknown,
        // the next batch must not look like this one.
        self.next += batch.len() as i64;
        let (id, writer, last) = (self.id.clone(), self.writer, self.next - 1);
        let what = || {
            format!(
                "cannot append events to session `{id}` (writer {writer}, its events {first} to \
                 {last}); they may be missing"
            )
        };
        let mut wait = Wait::new(self.db.options.reconnect_timeout);
        let mut lost = 0;
        loop {
            match self.attempt(&args, first) {
                Ok((found, _, _)) if found > 0 => {
                    self.db.warn(&format!(
                        "session `{}`: a batch of {} events sent again after a lost connection \
                         had been written; it was not written twice",
                        self.id,
                        batch.len()
                    ));
                    return Ok(());
                }
                Ok((_, 0, _)) => {
                    return Err(StoreError::NotFound {
                        id: self.id.to_string(),
                    })
                }
                Ok((_, _, inserted)) if inserted == batch.len() as i64 => {
                    if lost > 0 {
                        self.db.warn(&format!(
                            "session `{}`: events appended on a new connection after {lost} lost",
                            self.id
                        ));
                    }
                    return Ok(());
                }
                Ok((_, _, inserted)) => {
                    return Err(self.db.error(
                        &what(),
                        format!("{inserted} of {} rows were written", batch.len()),
                    ))
                }
                Err(e) if transient(&e) => {
                    self.conn = None;
                    if !wait.again() {
                        return Err(self.db.error(
                            &what(),
                            format!("the server did not come back in time: {}", reason(&e)),
                        ));
                    }
                    lost += 1;
                }
                Err(e) => return Err(self.db.error(&what(), reason(&e))),
            }
        }
    }

    fn sync(&mut self) -> StoreResult<()> {
        // Every append was committed synchronously before it returned.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::fits_jsonb;

    #[test]
    fn a_nul_escape_is_told_from_an_escaped_backslash() {
        assert!(fits_jsonb(br#"{"a":"x"}"#));
        assert!(!fits_jsonb(br#"{"a":"\u0000"}"#));
        assert!(!fits_jsonb(br#"{"\u0000":1}"#));
        // A backslash, then the text "u0000".
        assert!(fits_jsonb(br#"{"a":"\\u0000"}"#));
        assert!(!fits_jsonb(br#"{"a":"\\\u0000"}"#));
        assert!(fits_jsonb(br#"{"a":"\u00e9"}"#));
        assert!(!fits_jsonb(b"{\"a\":\"\xff\"}"));
    }
}
