//! The schema's versions. Each migration runs in one transaction (DDL is
//! transactional in Postgres): it is applied whole, with its row in
//! `schema_migrations`, or not at all, so a failure half-way leaves the
//! schema at the version before. An advisory lock per schema makes
//! concurrent migrators (two hosts starting at once) take turns; each
//! finds what the other applied and skips it.

use postgres::Client;

use crate::db::{Db, Fail};

/// One step of the schema.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Migration {
    /// Its number, from 1, in order.
    pub version: i32,
    /// What it makes.
    pub name: &'static str,
    /// Its statements, run with the schema as the `search_path`.
    pub sql: &'static str,
}

/// Every migration, in order; the last one's version is the schema this
/// build reads and writes.
pub(crate) const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "sessions, configuration snapshots, state, lists and events",
    sql: include_str!("../migrations/0001_sessions.sql"),
}];

/// The version this build needs.
pub(crate) fn latest() -> i32 {
    MIGRATIONS.last().map_or(0, |m| m.version)
}

/// What a migration run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MigrationReport {
    /// The schema's version before.
    pub from: i32,
    /// And after.
    pub to: i32,
    /// The migrations this run applied: version and name.
    pub applied: Vec<(i32, String)>,
}

/// The schema's version: the highest applied, 0 for none (or no schema).
pub(crate) fn version(client: &mut Client) -> Result<i32, postgres::Error> {
    let table: Option<String> = client
        .query_one("SELECT to_regclass('schema_migrations')::text", &[])?
        .get(0);
    if table.is_none() {
        return Ok(0);
    }
    let v: Option<i32> = client
        .query_one("SELECT max(version) FROM schema_migrations", &[])?
        .get(0);
    Ok(v.unwrap_or(0))
}

/// Applies what `schema` lacks of `migrations`, each in its transaction.
pub(crate) fn apply(
    db: &Db,
    client: &mut Client,
    migrations: &[Migration],
) -> Result<MigrationReport, Fail> {
    let schema = &db.target.schema;
    let from = version(client)?;
    let mut applied = Vec::new();
    for m in migrations {
        let mut tx = client.transaction()?;
        tx.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended('retrace migrate ' || $1, 0))",
            &[schema],
        )?;
        tx.batch_execute(&format!(
            "CREATE SCHEMA IF NOT EXISTS {schema};
             CREATE TABLE IF NOT EXISTS {schema}.schema_migrations (
                 version    integer PRIMARY KEY,
                 name       text NOT NULL,
                 applied_at timestamptz NOT NULL DEFAULT now()
             );"
        ))?;
        let done: bool = tx
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)",
                &[&m.version],
            )?
            .get(0);
        if done {
            tx.commit().map_err(Fail::Commit)?;
            continue;
        }
        tx.batch_execute(m.sql).map_err(|e| {
            Fail::Store(db.error(
                &format!(
                    "migration {} ({}) failed and was rolled back; the schema stays at version {}",
                    m.version,
                    m.name,
                    m.version - 1
                ),
                crate::db::reason(&e),
            ))
        })?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
            &[&m.version, &m.name],
        )?;
        tx.commit().map_err(Fail::Commit)?;
        applied.push((m.version, m.name.to_owned()));
    }
    Ok(MigrationReport {
        from,
        to: version(client)?,
        applied,
    })
}

#[cfg(test)]
mod tests;
