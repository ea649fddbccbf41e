//! The store's conformance suite, unchanged, on a real Postgres server:
//! each test on a store in a schema of its own.

#[path = "../../retrace-store/tests/conformance/mod.rs"]
mod conformance;
mod common;

use common::TestStore;

macro_rules! suite {
    ($($test:ident),*) => {
        $(
            #[test]
            fn $test() {
                let made = TestStore::new();
                conformance::$test(&*made.store);
            }
        )*
    };
}

suite!(
    lifecycle,
    versions,
    concurrent_saves,
    lists,
    listing,
    locking,
    deleting,
    invalid_names,
    keys_and_imports,
    exact_values,
    stale_sink,
    events
);
