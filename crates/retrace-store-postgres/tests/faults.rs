//! Faults against a real server: connections killed in the middle of
//! batches, an answer lost after a commit, the server restarted (fast and
//! as a crash) under a running recorder, two processes appending to one
//! session at once, a stale state save from another host. After each,
//! every event is there once, in order, numbered without a gap.

mod common;

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use common::proxy::Proxy;
use common::{client, TestStore};
use retrace_core::{Event, EventData, EventType, UserInput};
use retrace_store::{
    Durability, EncodedEvent, LogOptions, Recorder, RecorderOptions, SessionId, SessionManager,
    SessionStore, StateKey, StoreError,
};
use retrace_store_postgres::{PgOptions, PgStore};
use retrace_test_postgres::{test_url, Server, Stop};
use serde_json::{json, Map};

/// An event whose message is its tag, so order, loss and doubles show.
fn tagged(tag: &str) -> EventData {
    EventData::UserInput(UserInput {
        message: json!(tag),
        extra: Map::new(),
    })
}

/// The tags of a session's events, checking their numbers go 0, 1, 2…
fn tags(store: &dyn SessionStore, id: &SessionId) -> Vec<String> {
    let read = store.read_events(id).unwrap();
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    for (i, e) in read.events.iter().enumerate() {
        assert_eq!(e.seq, i as u64, "numbers have a gap or a double");
    }
    read.events
        .iter()
        .map(|e| match &e.event.data {
            EventData::UserInput(u) => u.message.as_str().unwrap().to_owned(),
            other => panic!("{other:?}"),
        })
        .collect()
}

fn numbered(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// A tiny deterministic generator for the kill pauses.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % below
    }
}

#[test]
fn connections_killed_in_the_middle_of_batches_lose_and_double_nothing() {
    let ts = TestStore::new();
    let id = ts.store.create_session("killed");
    let recorder = Recorder::open(
        ts.dyn_store(),
        &id,
        RecorderOptions {
            durability: Durability::Durable,
            ..RecorderOptions::default()
        },
    )
    .unwrap();
    let stop = AtomicBool::new(false);
    let app = format!("retrace events {id}");
    let n = 3000;
    let kills = std::thread::scope(|s| {
        let killer = s.spawn(|| {
            let mut admin = client(&ts.url);
            let mut rng = Lcg(7);
            let mut kills = 0;
            while !stop.load(Ordering::SeqCst) {
                let killed: i64 = admin
                    .query_one(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity \
                         WHERE application_name = $1",
                        &[&app],
                    )
                    .unwrap()
                    .get(0);
                kills += killed;
                std::thread::sleep(Duration::from_millis(5 + rng.next(25)));
            }
            kills
        });
        // A steady stream for about a second and a half, killed all along;
        // then the kills stop and the recorder catches up.
        for i in 0..n {
            recorder.record(tagged(&format!("e{i}"))).unwrap();
            if i % 10 == 9 {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        stop.store(true, Ordering::SeqCst);
        recorder.sync().unwrap();
        killer.join().unwrap()
    });
    recorder.close().unwrap();
    eprintln!("{kills} sink connections killed while recording {n} events");
    assert!(kills > 0, "no kill landed");
    assert_eq!(tags(&*ts.store, &id), numbered("e", n));
    assert!(
        ts.warnings()
            .iter()
            .any(|w| w.contains("after") && w.contains("lost") || w.contains("not written twice")),
        "{:?}",
        ts.warnings()
    );
}

#[test]
fn a_commit_whose_answer_is_lost_is_not_written_twice() {
    let proxy = Proxy::start(&test_url());
    let ts = TestStore::on(&proxy.url());
    let id = ts.store.create_session("lost-answer");
    let recorder = Recorder::open(ts.dyn_store(), &id, RecorderOptions::default()).unwrap();
    for i in 0..10 {
        recorder.record(tagged(&format!("e{i}"))).unwrap();
    }
    recorder.sync().unwrap();
    proxy.arm();
    for i in 10..15 {
        recorder.record(tagged(&format!("e{i}"))).unwrap();
    }
    recorder.sync().unwrap();
    for i in 15..20 {
        recorder.record(tagged(&format!("e{i}"))).unwrap();
    }
    recorder.close().unwrap();
    assert_eq!(proxy.cuts(), 1, "the answer was not lost");
    assert_eq!(tags(&*ts.store, &id), numbered("e", 20));
    assert!(
        ts.warnings()
            .iter()
            .any(|w| w.contains("it was not written twice")),
        "{:?}",
        ts.warnings()
    );
}

/// Waits until session `id`'s lock is held by a connection of its own.
fn lock_held(url: &str, id: &SessionId) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(mut c) = postgres::Client::connect(
            url.split_once("?schema=").map_or(url, |(u, _)| u),
            postgres::NoTls,
        ) {
            let held: i64 = c
                .query_one(
                    "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid \
                     WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = $1",
                    &[&format!("retrace lock {id}")],
                )
                .unwrap()
                .get(0);
            if held == 1 {
                return true;
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

#[test]
fn a_server_restarted_under_a_running_recorder_loses_nothing() {
    // A server of its own: restarting the shared one would cut the other
    // tests' connections.
    let server = Server::start().unwrap();
    let ts = TestStore::on(server.url());
    let id = ts.store.create_session("restarted");
    let recorder = Recorder::open(ts.dyn_store(), &id, RecorderOptions::default()).unwrap();
    let stop = AtomicBool::new(false);
    let recorded = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let mut n = 0;
            while !stop.load(Ordering::SeqCst) {
                recorder.record(tagged(&format!("e{n}"))).unwrap();
                n += 1;
                std::thread::sleep(Duration::from_micros(500));
            }
            n
        });
        for how in [Stop::Immediate, Stop::Fast] {
            std::thread::sleep(Duration::from_millis(400));
            let t = Instant::now();
            server.restart(how).unwrap();
            eprintln!("restarted ({how:?}) in {:.0?}", t.elapsed());
        }
        std::thread::sleep(Duration::from_millis(400));
        stop.store(true, Ordering::SeqCst);
        writer.join().unwrap()
    });
    recorder.sync().unwrap();
    // The keeper took the lock back on a new connection.
    assert!(lock_held(&ts.url, &id), "the lock was not taken again");
    let busy = ts.store.lock(&id).err().expect("the session is still held");
    assert!(matches!(busy, StoreError::SessionBusy { .. }), "{busy}");
    recorder.close().unwrap();
    eprintln!("{recorded} events recorded across two restarts");
    assert!(recorded > 100);
    assert_eq!(tags(&*ts.store, &id), numbered("e", recorded));
    let warnings = ts.warnings();
    assert!(
        warnings.iter().any(|w| w.contains("lock is held again")),
        "{warnings:?}"
    );
}

/// The child of the two-process test: appends `RETRACE_CHILD_EVENTS`
/// events tagged `{who}-{n}` in batches of 1 to 7 through a sink of its
/// own (no lock: two writers on purpose).
#[test]
fn child_appends() {
    let Ok(spec) = std::env::var("RETRACE_FAULTS_CHILD") else {
        return;
    };
    let mut parts = spec.splitn(4, '|');
    let (url, id, who, n) = (
        parts.next().unwrap(),
        SessionId::parse(parts.next().unwrap()).unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap().parse::<usize>().unwrap(),
    );
    let store = PgStore::connect(url, PgOptions::default()).unwrap();
    let mut sink = store.open_events(&id, &LogOptions::default()).unwrap();
    let mut i = 0;
    let mut size = 1;
    while i < n {
        let batch: Vec<EncodedEvent> = (i..n.min(i + size))
            .map(|k| encode(&format!("{who}-{k}")))
            .collect();
        i += batch.len();
        sink.append(&batch).unwrap();
        size = size % 7 + 1;
    }
    sink.sync().unwrap();
}

fn encode(tag: &str) -> EncodedEvent {
    let event = Event::new(Utc::now(), tagged(tag));
    let mut line = serde_json::to_vec(&event).unwrap();
    line.push(b'\n');
    EncodedEvent {
        event_type: EventType::UserInput,
        timestamp: event.timestamp,
        line,
    }
}

#[test]
fn two_processes_appending_to_one_session_get_one_order_without_gaps() {
    let ts = TestStore::new();
    let id = ts.store.create_session("two-writers");
    let n = 400;
    let children: Vec<_> = ["a", "b"]
        .iter()
        .map(|who| {
            Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "child_appends", "--nocapture"])
                .env("RETRACE_FAULTS_CHILD", format!("{}|{id}|{who}|{n}", ts.url))
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let all = tags(&*ts.store, &id);
    assert_eq!(all.len(), 2 * n);
    for who in ["a", "b"] {
        let mine: Vec<String> = all
            .iter()
            .filter(|t| t.starts_with(&format!("{who}-")))
            .cloned()
            .collect();
        assert_eq!(mine, numbered(&format!("{who}-"), n), "{who}'s order");
    }
    let switches = all
        .windows(2)
        .filter(|w| w[0].as_bytes()[0] != w[1].as_bytes()[0])
        .count();
    eprintln!("the two writers' events alternate {switches} times");
}

#[test]
fn a_stale_save_from_another_host_is_refused() {
    let ts = TestStore::new();
    let other = ts.again();
    let id = ts.store.create_session("stale");
    let k = StateKey::state();
    ts.store
        .save_state(&id, &k, &json!({"step": 1}), None)
        .unwrap();
    let mine = ts.store.load_state(&id, &k).unwrap().unwrap();
    let theirs = other.load_state(&id, &k).unwrap().unwrap();
    assert_eq!(mine.version, theirs.version);
    assert_eq!(
        other
            .save_state(
                &id,
                &k,
                &json!({"step": 2, "by": "other"}),
                Some(theirs.version)
            )
            .unwrap(),
        2
    );
    match ts
        .store
        .save_state(&id, &k, &json!({"step": 2, "by": "me"}), Some(mine.version))
    {
        Err(StoreError::Conflict {
            expected, actual, ..
        }) => assert_eq!((expected, actual), (1, 2)),
        other => panic!("a stale save was not refused: {other:?}"),
    }
    let kept = ts.store.load_state(&id, &k).unwrap().unwrap();
    assert_eq!(kept.value, json!({"step": 2, "by": "other"}));
}

/// Creating a session in a store, as an agent would.
trait CreateSession {
    fn create_session(&self, agent: &str) -> SessionId;
}

impl CreateSession for Arc<PgStore> {
    fn create_session(&self, agent: &str) -> SessionId {
        SessionManager::new(self.clone() as Arc<dyn SessionStore>)
            .create(agent, &json!({"model": "m"}))
            .unwrap()
    }
}
