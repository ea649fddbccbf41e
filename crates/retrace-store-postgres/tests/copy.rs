//! Sessions copied between a folder and Postgres, both ways, losslessly
//! (events byte for byte, state at its versions, meta and configuration
//! equal): sessions recorded from the corpus's real conversations. A
//! session copied in plays as it does from its folder.

#[path = "../../retrace-store/tests/conformance/mod.rs"]
mod conformance;
#[path = "../../retrace-store/tests/corpus_events/mod.rs"]
mod corpus_events;
mod common;

use std::sync::Arc;

use common::TestStore;
use retrace_store::{
    copy_session, FsStore, PlayerOptions, PlayerStep, SessionPlayer, SessionStore,
};

#[test]
fn corpus_sessions_copy_between_a_folder_and_postgres_both_ways() {
    let streams = corpus_events::one_per_agent(5);
    assert!(streams.len() >= 3, "only {} corpus streams", streams.len());
    for stream in &streams {
        let dir = tempfile::tempdir().unwrap();
        let files: Arc<dyn SessionStore> = Arc::new(FsStore::open(dir.path()).unwrap());
        let pg = TestStore::new();
        eprintln!("{}: {} events", stream.name, stream.events.len());
        conformance::copy_round_trip(files.clone(), pg.dyn_store(), &stream.events);
        conformance::copy_round_trip(pg.dyn_store(), files, &stream.events);
    }
}

/// What a step shows, without where it was read from.
fn shown(steps: Vec<PlayerStep>) -> Vec<(usize, String, String, String)> {
    steps
        .into_iter()
        .map(|s| (s.index, s.event_type, s.title, s.details))
        .collect()
}

#[test]
fn a_session_copied_into_postgres_plays_as_it_does_from_its_folder() {
    let stream = corpus_events::one_per_agent(5)
        .into_iter()
        .max_by_key(|s| s.events.len())
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let files: Arc<dyn SessionStore> = Arc::new(FsStore::open(dir.path()).unwrap());
    let id = conformance::recorded(&files, "played", &stream.events);
    let pg = TestStore::new();
    copy_session(&*files, &*pg.store, &id).unwrap();
    for fast in [false, true] {
        let options = PlayerOptions {
            fast,
            ..PlayerOptions::default()
        };
        let from_folder: Vec<PlayerStep> = SessionPlayer::load(dir.path(), &id, options)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let from_pg: Vec<PlayerStep> = SessionPlayer::from_store(&*pg.store, &id, options)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(from_folder.len() > 10, "{}", from_folder.len());
        assert_eq!(shown(from_pg), shown(from_folder));
    }
}
