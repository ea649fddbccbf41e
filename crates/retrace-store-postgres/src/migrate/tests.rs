//! Migrations against a real server, each test in a schema of its own.

use std::sync::atomic::{AtomicU32, Ordering};

use retrace_test_postgres::{test_url, with_param};

use super::*;
use crate::db::{PgOptions, SETTINGS};
use crate::target::Target;
use crate::PgStore;

fn fresh_url() -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    let schema = format!(
        "m_{}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    );
    with_param(&test_url(), "schema", &schema)
}

fn db(url: &str) -> Db {
    Db::new(Target::parse(url).unwrap(), PgOptions::default())
}

fn migrating() -> PgOptions {
    PgOptions {
        migrate: true,
        ..PgOptions::default()
    }
}

/// Whether `table` exists in the connection's schema.
fn has_table(client: &mut Client, table: &str) -> bool {
    client
        .query_one("SELECT to_regclass($1)::text", &[&table])
        .unwrap()
        .get::<_, Option<String>>(0)
        .is_some()
}

#[test]
fn a_fresh_schema_is_migrated_once_and_a_behind_one_is_refused_without_asking() {
    let url = fresh_url();
    let refused = PgStore::connect(&url, PgOptions::default()).unwrap_err();
    let text = refused.to_string();
    assert!(text.contains("is at version 0"), "{text}");
    assert!(text.contains("retrace store migrate"), "{text}");

    let store = PgStore::connect(&url, migrating()).unwrap();
    let report = store.migration();
    assert_eq!((report.from, report.to), (0, latest()));
    assert_eq!(report.applied.len(), MIGRATIONS.len());
    let again = PgStore::connect(&url, migrating()).unwrap();
    assert!(again.migration().applied.is_empty());
    assert_eq!(again.migration().from, latest());
    // Now it opens without asking.
    PgStore::connect(&url, PgOptions::default()).unwrap();
}

#[test]
fn hosts_migrating_at_once_take_turns() {
    let url = fresh_url();
    let reports: Vec<MigrationReport> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    PgStore::connect(&url, migrating())
                        .unwrap()
                        .migration()
                        .clone()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let applied: usize = reports.iter().map(|r| r.applied.len()).sum();
    assert_eq!(applied, MIGRATIONS.len(), "{reports:?}");
    assert!(reports.iter().all(|r| r.to == latest()));
    let db = db(&url);
    let mut c = db.connect("test", SETTINGS, "test").unwrap();
    let rows: i64 = c
        .query_one("SELECT count(*) FROM schema_migrations", &[])
        .unwrap()
        .get(0);
    assert_eq!(rows, MIGRATIONS.len() as i64);
}

#[test]
fn a_migration_that_fails_half_way_leaves_nothing_of_itself() {
    let url = fresh_url();
    let db = db(&url);
    let mut c = db.connect("test", SETTINGS, "test").unwrap();
    let broken = [
        MIGRATIONS[0],
        Migration {
            version: 2,
            name: "a table, then a failure",
            sql: "CREATE TABLE half (n int); INSERT INTO half VALUES (1); SELECT 1 / 0;",
        },
    ];
    let e = match apply(&db, &mut c, &broken) {
        Err(Fail::Store(e)) => e.to_string(),
        Err(_) => panic!("a server error, not the migration's"),
        Ok(r) => panic!("applied: {r:?}"),
    };
    assert!(
        e.contains("migration 2 (a table, then a failure) failed"),
        "{e}"
    );
    assert!(e.contains("division by zero"), "{e}");
    assert!(e.contains("stays at version 1"), "{e}");
    assert_eq!(version(&mut c).unwrap(), 1);
    assert!(!has_table(&mut c, "half"));
    assert!(has_table(&mut c, "sessions"));

    // Fixed, it goes on from where the schema is.
    let fixed = [
        MIGRATIONS[0],
        Migration {
            version: 2,
            name: "a table",
            sql: "CREATE TABLE half (n int);",
        },
    ];
    let report = match apply(&db, &mut c, &fixed) {
        Ok(r) => r,
        Err(_) => panic!("the fixed migration failed"),
    };
    assert_eq!((report.from, report.to), (1, 2));
    assert_eq!(report.applied, [(2, "a table".to_owned())]);
    assert!(has_table(&mut c, "half"));
    // A schema newer than this build is refused.
    let e = PgStore::connect(&url, migrating()).unwrap_err().to_string();
    assert!(
        e.contains("is at version 2, newer than this retrace knows (1)"),
        "{e}"
    );
}
