//! What the tests share: a real server (`retrace_test_postgres`: the one
//! `cargo xtask test` started, or one of this binary's own) and a fresh
//! schema per store, so tests running at once never see each other's
//! sessions. A schema is dropped when its store's test ends.

#![allow(dead_code)] // each test binary uses some of it

pub mod proxy;

use std::ops::Deref;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use postgres::{Client, NoTls};
use retrace_store::SessionStore;
use retrace_store_postgres::{PgOptions, PgStore};
use retrace_test_postgres::{test_url, with_param};

/// A new schema name, unique in this run.
pub fn schema_name() -> String {
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "t_{}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        uuid::Uuid::new_v4()
            .simple()
            .to_string()
            .get(..8)
            .unwrap_or("")
    )
}

/// A plain client on `url` (for the tests' own looks at the tables).
pub fn client(url: &str) -> Client {
    let url = url.split_once("?schema=").map_or(url, |(u, _)| u);
    Client::connect(url, NoTls).unwrap()
}

/// A store in a fresh schema of the test server, and its URL; the schema
/// is dropped with it.
pub struct TestStore {
    pub store: Arc<PgStore>,
    pub url: String,
    pub schema: String,
    pub warnings: Arc<Mutex<Vec<String>>>,
}

impl TestStore {
    pub fn new() -> TestStore {
        TestStore::on(&test_url())
    }

    /// In a fresh schema of the server at `server_url`.
    pub fn on(server_url: &str) -> TestStore {
        let schema = schema_name();
        let url = with_param(server_url, "schema", &schema);
        let warnings = Arc::new(Mutex::new(Vec::new()));
        let store = PgStore::connect(&url, options(&warnings)).unwrap();
        assert_eq!(store.migration().applied.len(), 1);
        TestStore {
            store: Arc::new(store),
            url,
            schema,
            warnings,
        }
    }

    /// Another store on the same schema (another host, say), its own
    /// connections and warnings.
    pub fn again(&self) -> Arc<PgStore> {
        Arc::new(PgStore::connect(&self.url, PgOptions::default()).unwrap())
    }

    pub fn dyn_store(&self) -> Arc<dyn SessionStore> {
        self.store.clone()
    }

    pub fn warnings(&self) -> Vec<String> {
        self.warnings.lock().unwrap().clone()
    }
}

/// Options that migrate and collect warnings.
pub fn options(into: &Arc<Mutex<Vec<String>>>) -> PgOptions {
    let into = into.clone();
    PgOptions {
        migrate: true,
        on_warning: Arc::new(move |w: &str| {
            eprintln!("warning: {w}");
            into.lock().unwrap().push(w.to_owned())
        }),
        ..PgOptions::default()
    }
}

impl Deref for TestStore {
    type Target = PgStore;
    fn deref(&self) -> &PgStore {
        &self.store
    }
}

impl Drop for TestStore {
    fn drop(&mut self) {
        if let Ok(mut c) = Client::connect(
            self.url
                .split_once("?schema=")
                .map_or(&self.url, |(u, _)| u),
            NoTls,
        ) {
            let _ = c.batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.schema));
        }
    }
}
