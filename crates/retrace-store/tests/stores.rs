//! The conformance suite on each store.

mod conformance;

use retrace_store::{FsStore, MemoryStore};

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

/// (The file store's events go through `event_log`, whose own tests are in
/// `src/event_log/tests.rs`.)
mod fs {
    use super::*;
    conformance_tests!(let made = TempFs::new(); &made.store);
}

mod memory {
    use super::*;
    conformance_tests!(let made = MemoryStore::new(); &made);
}
