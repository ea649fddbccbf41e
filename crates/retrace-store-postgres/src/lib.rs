//! retrace-store-postgres: retrace's session store on Postgres, for
//! agents on many hosts sharing one store. [`PgStore`] keeps the
//! [`retrace_store::SessionStore`] contract (the conformance suite runs on
//! it unchanged) with the synchronous rust-postgres client, in a crate of
//! its own so no database client enters the default or the wasm build.
//!
//! - `target.rs`: the `postgres://` URL and retrace's `schema` parameter.
//! - `db.rs`: connections (the schema as `search_path`, commits durable),
//!   the pool, and running an operation again after a lost connection.
//! - `migrate.rs`: the schema's versions, one transaction each.
//! - `time.rs`: times to the nanosecond in two columns.
//! - `lock.rs`: a session's writer lock, an advisory lock on a connection
//!   of its own, taken again after a restart.
//! - `sink.rs`: appends: race-free numbers, exactly once across retries.
//! - `store.rs`: [`PgStore`], the contract.

// In layer order: each module uses only those above it.
mod target;
mod db;
mod migrate;
mod time;
mod lock;
mod sink;
mod store;

pub use db::PgOptions;
pub use migrate::MigrationReport;
pub use store::PgStore;
pub use target::{is_url, DEFAULT_SCHEMA};
