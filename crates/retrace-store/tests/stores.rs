//! The conformance suite on each store.

mod conformance;

use retrace_store::{FsStore, MemoryStore, SessionStore};

/// A file store in a fresh folder (kept alive with the store).
struct TempFs {
    store: FsStore,
    _dir: tempfile::TempDir,
}

impl TempFs {
    fn new() -> TempFs {
        let dir = tempfile::tempdir().unwrap();
        TempFs {
            store: FsStore::open(dir.path().join("sessions")).unwrap(),
            _dir: dir,
        }
    }
}

macro_rules! suite {
    ($store:ident, $make:expr, [$($test:ident),*]) => {
        mod $store {
            use super::*;
            $(
                #[test]
                fn $test() {
                    let made = $make;
                    conformance::$test(made.as_store());
                }
            )*
        }
    };
}

trait AsStore {
    fn as_store(&self) -> &dyn SessionStore;
}

impl AsStore for TempFs {
    fn as_store(&self) -> &dyn SessionStore {
        &self.store
    }
}

suite!(
    fs,
    TempFs::new(),
    [
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
        stale_sink
    ]
);

impl AsStore for MemoryStore {
    fn as_store(&self) -> &dyn SessionStore {
        self
    }
}

suite!(
    memory,
    MemoryStore::new(),
    [
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
    ]
);

/// The file store's events go through `event_log` (its own tests are in
/// `src/event_log/tests.rs`).
#[test]
fn fs_events() {
    conformance::events(TempFs::new().as_store());
}
