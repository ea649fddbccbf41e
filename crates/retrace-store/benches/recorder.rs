//! The recorder's figures against the store's targets
//! (`cargo bench -p retrace-store --bench recorder`):
//!
//! - enqueue latency on the caller's thread: p50 ≤ 1 µs, p99 ≤ 20 µs;
//! - sustained buffered appends of 1 KB events: ≥ 200,000/s;
//! - durable appends: ≥ 50,000/s, fsync batch p99 ≤ 10 ms;
//! - the pause at rotation: ≤ 5 ms.
//!
//! Real files in a temporary folder (under `$TMPDIR`). `RECORDER_BENCH_N`
//! scales the event counts (default 1.0).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use retrace_core::{Event, EventData, LlmCall};
use retrace_store::{
    Appender, Durability, EncodedEvent, EventSink, EventsRead, FsStore, ListQuery, LogOptions,
    LogProblem, Page, Recorder, RecorderOptions, SessionId, SessionLock, SessionMeta, SessionStore,
    StateKey, StateKeys, StoreResult, StoredEvent, Versioned,
};
use serde_json::{json, Map, Value};

/// A 1 KB event (its line is 1,024 bytes ± a few).
fn event_1k(i: u64) -> EventData {
    EventData::LlmCall(LlmCall {
        prompt: json!(format!("p{i}")),
        response: json!("r".repeat(930)),
        duration: Some(0.25),
        ..Default::default()
    })
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// A file store whose sinks time their syncs.
struct Timed {
    inner: FsStore,
    syncs: Arc<Mutex<Vec<Duration>>>,
}

struct TimedSink {
    inner: Box<dyn EventSink>,
    syncs: Arc<Mutex<Vec<Duration>>>,
}

impl EventSink for TimedSink {
    fn append(&mut self, batch: &[EncodedEvent]) -> StoreResult<()> {
        self.inner.append(batch)
    }
    fn sync(&mut self) -> StoreResult<()> {
        let t = Instant::now();
        let r = self.inner.sync();
        self.syncs.lock().unwrap().push(t.elapsed());
        r
    }
}

impl SessionStore for Timed {
    fn create(&self, meta: &SessionMeta, config: &Value) -> StoreResult<()> {
        self.inner.create(meta, config)
    }
    fn exists(&self, id: &SessionId) -> StoreResult<bool> {
        self.inner.exists(id)
    }
    fn meta(&self, id: &SessionId) -> StoreResult<SessionMeta> {
        self.inner.meta(id)
    }
    fn touch(&self, id: &SessionId, at: DateTime<Utc>) -> StoreResult<()> {
        self.inner.touch(id, at)
    }
    fn list(&self, query: &ListQuery) -> StoreResult<Page<SessionMeta>> {
        self.inner.list(query)
    }
    fn config_snapshot(&self, id: &SessionId) -> StoreResult<Value> {
        self.inner.config_snapshot(id)
    }
    fn load_state(&self, id: &SessionId, key: &StateKey) -> StoreResult<Option<Versioned<Value>>> {
        self.inner.load_state(id, key)
    }
    fn save_state(
        &self,
        id: &SessionId,
        key: &StateKey,
        value: &Value,
        expected: Option<u64>,
    ) -> StoreResult<u64> {
        self.inner.save_state(id, key, value, expected)
    }
    fn import_state(
        &self,
        id: &SessionId,
        key: &StateKey,
        value: &Versioned<Value>,
    ) -> StoreResult<()> {
        self.inner.import_state(id, key, value)
    }
    fn state_keys(&self, id: &SessionId) -> StoreResult<StateKeys> {
        self.inner.state_keys(id)
    }
    fn append_list(&self, id: &SessionId, key: &StateKey, items: &[Value]) -> StoreResult<()> {
        self.inner.append_list(id, key, items)
    }
    fn read_list(&self, id: &SessionId, key: &StateKey) -> StoreResult<Vec<Value>> {
        self.inner.read_list(id, key)
    }
    fn lock(&self, id: &SessionId) -> StoreResult<SessionLock> {
        self.inner.lock(id)
    }
    fn repair_events(&self, id: &SessionId) -> StoreResult<Vec<LogProblem>> {
        self.inner.repair_events(id)
    }
    fn open_events(&self, id: &SessionId, options: &LogOptions) -> StoreResult<Box<dyn EventSink>> {
        Ok(Box::new(TimedSink {
            inner: self.inner.open_events(id, options)?,
            syncs: self.syncs.clone(),
        }))
    }
    fn read_events(&self, id: &SessionId) -> StoreResult<EventsRead> {
        self.inner.read_events(id)
    }
    fn pop_event(&self, id: &SessionId) -> StoreResult<Option<StoredEvent>> {
        self.inner.pop_event(id)
    }
    fn delete(&self, id: &SessionId) -> StoreResult<bool> {
        self.inner.delete(id)
    }
}

/// A store in a fresh folder with one session.
fn session() -> (tempfile::TempDir, Arc<Timed>, SessionId) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let store = Arc::new(Timed {
        inner: FsStore::open(dir.path().join("sessions")).expect("a store"),
        syncs: Arc::default(),
    });
    let now = Utc::now();
    let meta = SessionMeta {
        session_id: SessionId::new(),
        agent_config: "bench".into(),
        create_time: now,
        last_active_time: now,
        extra: Map::new(),
    };
    store.create(&meta, &json!({})).expect("a session");
    (dir, store, meta.session_id)
}

fn recorder(store: &Arc<Timed>, id: &SessionId, durability: Durability) -> Recorder {
    let options = RecorderOptions {
        durability,
        ..Default::default()
    };
    Recorder::open(store.clone(), id, options).expect("a recorder")
}

fn scaled(n: u64) -> u64 {
    let k: f64 = std::env::var("RECORDER_BENCH_N")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(1.0);
    ((n as f64 * k) as u64).max(1)
}

fn main() {
    // Enqueue latency: bursts shorter than the queue, so the figure is the
    // caller's cost, not the writer's pace (that is the next figure).
    let (_dir, store, id) = session();
    let r = recorder(&store, &id, Durability::Buffered);
    let rounds = scaled(100);
    let burst = 2_000;
    let mut lat = Vec::with_capacity((rounds * burst) as usize);
    for round in 0..rounds {
        let events: Vec<EventData> = (0..burst).map(|i| event_1k(round * burst + i)).collect();
        for e in events {
            let t = Instant::now();
            r.record(e).expect("recorded");
            lat.push(t.elapsed());
        }
        r.flush().expect("flushed");
    }
    drop(r);
    lat.sort_unstable();
    println!(
        "enqueue latency (caller's thread, {} events in bursts of {burst}): p50 {:?}, p99 {:?}, \
         p99.9 {:?}, max {:?}   [target p50 ≤ 1 µs, p99 ≤ 20 µs]",
        lat.len(),
        percentile(&lat, 0.50),
        percentile(&lat, 0.99),
        percentile(&lat, 0.999),
        lat.last().copied().unwrap_or_default()
    );

    // Sustained buffered appends: as fast as the caller can, until all is
    // written.
    let (dir, store, id) = session();
    let r = recorder(&store, &id, Durability::Buffered);
    let n = scaled(400_000);
    let events: Vec<EventData> = (0..n).map(event_1k).collect();
    let t = Instant::now();
    for e in events {
        r.record(e).expect("recorded");
    }
    r.flush().expect("flushed");
    let secs = t.elapsed().as_secs_f64();
    drop(r);
    let bytes: u64 = std::fs::read_dir(store.inner.session_dir(&id))
        .expect("the session folder")
        .filter_map(|e| {
            let e = e.ok()?;
            retrace_core::part_of_file_name(&e.file_name().to_string_lossy())?;
            Some(e.metadata().ok()?.len())
        })
        .sum();
    println!(
        "buffered appends: {n} events of {} B in {secs:.2} s = {:.0} events/s ({:.0} MB/s)   \
         [target ≥ 200,000/s]",
        bytes / n,
        n as f64 / secs,
        bytes as f64 / secs / 1e6
    );
    drop(dir);

    // Durable appends: group commit, one fdatasync per batch.
    let (dir, store, id) = session();
    let r = recorder(&store, &id, Durability::Durable);
    let n = scaled(200_000);
    let events: Vec<EventData> = (0..n).map(event_1k).collect();
    let t = Instant::now();
    for e in events {
        r.record(e).expect("recorded");
    }
    r.sync().expect("synced");
    let secs = t.elapsed().as_secs_f64();
    drop(r);
    let mut syncs = store.syncs.lock().unwrap().clone();
    syncs.sort_unstable();
    println!(
        "durable appends: {n} events in {secs:.2} s = {:.0} events/s, {} fdatasyncs ({:.0} \
         events each), fsync batch p50 {:?}, p99 {:?}, max {:?}   [target ≥ 50,000/s, p99 ≤ 10 ms]",
        n as f64 / secs,
        syncs.len(),
        n as f64 / syncs.len().max(1) as f64,
        percentile(&syncs, 0.50),
        percentile(&syncs, 0.99),
        syncs.last().copied().unwrap_or_default()
    );
    drop(dir);

    // The pause at rotation: 1 KB events through the appender, in batches
    // of 256 as the writer takes them, over parts of 32 MB; buffered (the
    // old part's dirty pages are synced in the pause) and durable (synced
    // after each batch, as group commit does).
    for durable in [false, true] {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let options = LogOptions {
            rotate_bytes: 32 << 20,
            gzip_rotated: false,
        };
        let mut log = Appender::open(dir.path(), &options).expect("a log");
        let now = Utc::now();
        let batch: Vec<EncodedEvent> = (0..256)
            .map(|i| {
                let e = Event::new(now, event_1k(i));
                let mut line = serde_json::to_vec(&e).expect("encoded");
                line.push(b'\n');
                EncodedEvent {
                    event_type: e.event_type(),
                    timestamp: now,
                    line,
                }
            })
            .collect();
        let total = scaled(200 << 20);
        let mut written = 0;
        while written < total {
            log.append(&batch).expect("appended");
            if durable {
                log.sync().expect("synced");
            }
            written += batch.iter().map(|e| e.line.len() as u64).sum::<u64>();
        }
        let mut pauses = log.rotation_pauses().to_vec();
        pauses.sort_unstable();
        println!(
            "rotation pause ({}, 32 MB parts, {} rotations): p50 {:?}, max {:?}   [target ≤ 5 ms]",
            if durable { "durable" } else { "buffered" },
            pauses.len(),
            percentile(&pauses, 0.5),
            pauses.last().copied().unwrap_or_default()
        );
    }
}
