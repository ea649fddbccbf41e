//! The store's conformance suite, unchanged, on a real Postgres server:
//! each test on a store in a schema of its own.

#[path = "../../retrace-store/tests/conformance/mod.rs"]
mod conformance;
mod common;

use common::TestStore;

conformance_tests!(let made = TestStore::new(); &*made.store);
