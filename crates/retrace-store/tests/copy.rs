//! Copying sessions between the file store and the memory store, both
//! ways, on sessions recorded from the corpus's real conversations (the
//! Postgres crate runs the same against a real server).

mod conformance;
mod corpus_events;

use std::sync::Arc;

use retrace_store::{copy_session, FsStore, MemoryStore, SessionStore, StoreError};

#[test]
fn corpus_sessions_copy_between_files_and_memory_both_ways() {
    let streams = corpus_events::one_per_agent(5);
    assert!(streams.len() >= 3, "only {} corpus streams", streams.len());
    for stream in &streams {
        let dir = tempfile::tempdir().unwrap();
        let files: Arc<dyn SessionStore> = Arc::new(FsStore::open(dir.path()).unwrap());
        let memory: Arc<dyn SessionStore> = Arc::new(MemoryStore::new());
        eprintln!("{}: {} events", stream.name, stream.events.len());
        conformance::copy_round_trip(files.clone(), memory.clone(), &stream.events);
        conformance::copy_round_trip(memory, files, &stream.events);
    }
}

#[test]
fn a_log_with_lines_that_are_not_events_is_not_copied() {
    let dir = tempfile::tempdir().unwrap();
    let files: Arc<dyn SessionStore> = Arc::new(FsStore::open(dir.path()).unwrap());
    let events = &corpus_events::one_per_agent(5)[0].events;
    let id = conformance::recorded(&files, "torn", &events[..4]);
    // A line another program wrote into the log.
    let log = dir.path().join(id.as_str()).join("events.jsonl");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes.extend_from_slice(b"not an event\n");
    std::fs::write(&log, bytes).unwrap();
    let memory = MemoryStore::new();
    let e = copy_session(&*files, &memory, &id).unwrap_err();
    assert!(matches!(e, StoreError::Corrupt { .. }), "{e}");
    assert!(e.to_string().contains("events.jsonl:5"), "{e}");
    assert!(!memory.exists(&id).unwrap());
}
