//! The Postgres store's figures (`cargo bench -p retrace-store-postgres`),
//! against a real server: `RETRACE_TEST_POSTGRES_URL`, else a throwaway
//! one started here (its start time printed), each run in a fresh schema.
//!
//! - single-event appends with synchronous commit (one durable commit
//!   each): events/s and latency;
//! - batched appends through a durable `Recorder` (group commit, one
//!   transaction per batch): events/s, target ≥ 5,000/s;
//! - four writers appending to one session at once (a sink each):
//!   events/s, and the numbers checked gapless;
//! - `list`'s first page over 10,000 sessions: target ≤ 50 ms;
//! - `copy` of a 100 MB session from a folder to Postgres and back:
//!   seconds and MB/s, bytes checked equal.
//!
//! `PG_BENCH_N` scales the counts (default 1.0; the copy is 100 MB × N).

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use retrace_core::{Event, EventData, EventType, LlmCall};
use retrace_store::{
    copy_session, Durability, EncodedEvent, FsStore, ListQuery, LogOptions, Recorder,
    RecorderOptions, SessionId, SessionManager, SessionMeta, SessionStore,
};
use retrace_store_postgres::{PgOptions, PgStore};
use retrace_test_postgres::{test_url, with_param};
use serde_json::{json, Map};

fn scaled(n: u64) -> u64 {
    let k: f64 = std::env::var("PG_BENCH_N")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(1.0);
    ((n as f64 * k) as u64).max(1)
}

/// A 1 KB event.
fn event_1k(i: u64) -> EventData {
    EventData::LlmCall(LlmCall {
        prompt: json!(format!("p{i}")),
        response: json!("r".repeat(930)),
        duration: Some(0.25),
        ..Default::default()
    })
}

fn encoded(i: u64) -> EncodedEvent {
    let event = Event::new(Utc::now(), event_1k(i));
    let mut line = serde_json::to_vec(&event).expect("an event");
    line.push(b'\n');
    EncodedEvent {
        event_type: EventType::LlmCall,
        timestamp: event.timestamp,
        line,
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// A store in a fresh schema.
fn store(url: &str, name: &str) -> Arc<PgStore> {
    let schema = format!("bench_{name}_{}", std::process::id());
    let url = with_param(url, "schema", &schema);
    let store = PgStore::connect(
        &url,
        PgOptions {
            migrate: true,
            pool_size: 16,
            ..PgOptions::default()
        },
    )
    .expect("a store");
    Arc::new(store)
}

fn new_session(store: &Arc<PgStore>) -> SessionId {
    SessionManager::new(store.clone() as Arc<dyn SessionStore>)
        .create("bench", &json!({"model": "m"}))
        .expect("a session")
}

fn main() {
    let url = test_url();

    // Single events, each its own durable commit.
    let s = store(&url, "single");
    let id = new_session(&s);
    let mut sink = s.open_events(&id, &LogOptions::default()).expect("a sink");
    let n = scaled(2_000);
    let mut lat = Vec::with_capacity(n as usize);
    let t = Instant::now();
    for i in 0..n {
        let one = [encoded(i)];
        let t = Instant::now();
        sink.append(&one).expect("appended");
        sink.sync().expect("synced");
        lat.push(t.elapsed());
    }
    let secs = t.elapsed().as_secs_f64();
    lat.sort_unstable();
    println!(
        "single-event appends, synchronous commit: {n} events in {secs:.2} s = {:.0} events/s, \
         latency p50 {:.2?}, p99 {:.2?}",
        n as f64 / secs,
        percentile(&lat, 0.5),
        percentile(&lat, 0.99)
    );
    drop(sink);

    // Batched: a durable recorder, as an agent records.
    let id = new_session(&s);
    let r = Recorder::open(
        s.clone(),
        &id,
        RecorderOptions {
            durability: Durability::Durable,
            ..RecorderOptions::default()
        },
    )
    .expect("a recorder");
    let n = scaled(100_000);
    let events: Vec<EventData> = (0..n).map(event_1k).collect();
    let t = Instant::now();
    for e in events {
        r.record(e).expect("recorded");
    }
    r.sync().expect("synced");
    let secs = t.elapsed().as_secs_f64();
    r.close().expect("closed");
    println!(
        "batched appends (durable Recorder, 1 KB events): {n} events in {secs:.2} s = {:.0} \
         events/s   [target ≥ 5,000/s]",
        n as f64 / secs
    );

    // Four writers on one session.
    let id = new_session(&s);
    let per = scaled(10_000);
    let batch = 16;
    let t = Instant::now();
    std::thread::scope(|scope| {
        for w in 0..4u64 {
            let (s, id) = (&s, &id);
            scope.spawn(move || {
                let mut sink = s.open_events(id, &LogOptions::default()).expect("a sink");
                let mut i = 0;
                while i < per {
                    let b: Vec<EncodedEvent> = (i..per.min(i + batch))
                        .map(|k| encoded(w * per + k))
                        .collect();
                    i += b.len() as u64;
                    sink.append(&b).expect("appended");
                }
            });
        }
    });
    let secs = t.elapsed().as_secs_f64();
    let read = s.read_events(&id).expect("read back");
    let gapless = read
        .events
        .iter()
        .enumerate()
        .all(|(i, e)| e.seq == i as u64);
    assert!(gapless && read.events.len() as u64 == 4 * per);
    println!(
        "four writers on one session (batches of {batch}, each a durable commit): {} events in \
         {secs:.2} s = {:.0} events/s, numbered 0..{} without a gap",
        4 * per,
        (4 * per) as f64 / secs,
        4 * per - 1
    );

    // list over 10,000 sessions.
    let s = store(&url, "list");
    let sessions = 10_000u64;
    let t = Instant::now();
    std::thread::scope(|scope| {
        for w in 0..8u64 {
            let s = &s;
            scope.spawn(move || {
                let base = Utc::now();
                for i in (w..sessions).step_by(8) {
                    let at = base - chrono::Duration::seconds(i as i64);
                    let meta = SessionMeta {
                        session_id: SessionId::new(),
                        agent_config: format!("agent-{}", i % 10),
                        create_time: at,
                        last_active_time: at,
                        extra: Map::new(),
                    };
                    s.create(&meta, &json!({"model": "m"})).expect("created");
                }
            });
        }
    });
    println!(
        "  (made {sessions} sessions in {:.1} s, 8 threads)",
        t.elapsed().as_secs_f64()
    );
    let time = |q: &ListQuery| {
        let mut runs: Vec<Duration> = (0..21)
            .map(|_| {
                let t = Instant::now();
                let page = s.list(q).expect("a page");
                assert!(!page.items.is_empty());
                t.elapsed()
            })
            .collect();
        runs.sort_unstable();
        runs[runs.len() / 2]
    };
    let first = time(&ListQuery::default());
    let filtered = time(&ListQuery {
        agent_config: Some("agent-3".into()),
        ..ListQuery::default()
    });
    let mut q = ListQuery::default();
    for _ in 0..99 {
        q.after = s.list(&q).expect("a page").next;
    }
    let hundredth = time(&q);
    println!(
        "list over {sessions} sessions (100 a page, median of 21): first page {:.2?}, filtered \
         by agent {:.2?}, 100th page {:.2?}   [target first page ≤ 50 ms]",
        first, filtered, hundredth
    );

    // copy of a 100 MB session, both ways.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let files = Arc::new(FsStore::open(dir.path().join("sessions")).expect("a folder store"));
    let meta = SessionMeta {
        session_id: SessionId::new(),
        agent_config: "copied".into(),
        create_time: Utc::now(),
        last_active_time: Utc::now(),
        extra: Map::new(),
    };
    files.create(&meta, &json!({})).expect("a session");
    let id = meta.session_id;
    let r = Recorder::open(files.clone(), &id, RecorderOptions::default()).expect("a recorder");
    let n = scaled(100_000);
    for i in 0..n {
        r.record(event_1k(i)).expect("recorded");
    }
    r.close().expect("closed");
    let s = store(&url, "copy");
    let t = Instant::now();
    let report = copy_session(&*files, &*s, &id).expect("copied in");
    let into = t.elapsed().as_secs_f64();
    let back_dir = tempfile::tempdir().expect("a temporary folder");
    let back = FsStore::open(back_dir.path()).expect("a folder store");
    let t = Instant::now();
    copy_session(&*s, &back, &id).expect("copied out");
    let out = t.elapsed().as_secs_f64();
    let lines = |store: &dyn SessionStore| -> Vec<Vec<u8>> {
        let read = store.read_events(&id).expect("read");
        read.events.into_iter().map(|e| e.line).collect()
    };
    assert!(lines(&*files) == lines(&back), "the copy back differs");
    let mb = report.event_bytes as f64 / 1e6;
    println!(
        "copy of a {mb:.0} MB session ({} events): folder → Postgres {into:.2} s ({:.0} MB/s), \
         Postgres → folder {out:.2} s ({:.0} MB/s); lines byte-identical",
        report.events,
        mb / into,
        mb / out
    );
    if let Some(hwm) = peak_rss() {
        println!("  (peak resident memory of the bench: {hwm})");
    }
}

/// `VmHWM` from `/proc/self/status` (Linux).
fn peak_rss() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .map(|v| v.trim().to_owned())
}
