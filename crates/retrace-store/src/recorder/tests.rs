//! The recorder over a file store in a temporary folder, and over a store
//! whose sink the test controls.

use std::fs;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Condvar, Mutex};

use chrono::TimeZone;
use retrace_core::{Checkpoint, FinalOutput, LlmCall, StateTransition, ToolCall, UserInput};
use serde_json::{json, Map, Value};

use super::*;
use crate::store::{
    EncodedEvent, EventSink, EventsRead, ListQuery, Page, SessionMeta, StateKey, StateKeys,
    StoredEvent, Versioned,
};
use crate::{FsStore, MemoryStore};

/// A file store in a fresh folder with one session.
fn fs_session() -> (tempfile::TempDir, Arc<FsStore>, SessionId) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(FsStore::open(dir.path().join("sessions")).unwrap());
    let id = new_session(&*store);
    (dir, store, id)
}

fn new_session(store: &dyn SessionStore) -> SessionId {
    let at = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    let meta = SessionMeta {
        session_id: SessionId::new(),
        agent_config: "test".into(),
        create_time: at,
        last_active_time: at,
        extra: Map::new(),
    };
    store.create(&meta, &json!({})).unwrap();
    meta.session_id
}

/// Event `i` of thread `t`, of type `i % 5`.
fn data(t: usize, i: usize) -> EventData {
    let tag = format!("{t}:{i}");
    match i % 5 {
        0 => EventData::UserInput(UserInput {
            message: json!(tag),
            ..Default::default()
        }),
        1 => EventData::StateTransition(StateTransition {
            from_node: tag,
            to_node: "b".into(),
            state_diff: json!({"k": i}),
            ..Default::default()
        }),
        2 => EventData::LlmCall(LlmCall {
            prompt: json!(tag),
            response: json!("r"),
            token_usage: Some(json!({"input": 3})),
            duration: Some(0.5),
            ..Default::default()
        }),
        3 => EventData::ToolCall(ToolCall {
            tool_name: tag,
            parameters: json!({"p": 1}),
            output: json!("o"),
            error: Value::Null,
            duration: Some(0.25),
            ..Default::default()
        }),
        _ => EventData::FinalOutput(FinalOutput {
            output: json!(tag),
            stream: i.is_multiple_of(2),
            ..Default::default()
        }),
    }
}

fn tag(d: &EventData) -> String {
    match d {
        EventData::UserInput(d) => d.message.as_str().unwrap().to_owned(),
        EventData::StateTransition(d) => d.from_node.clone(),
        EventData::LlmCall(d) => d.prompt.as_str().unwrap().to_owned(),
        EventData::ToolCall(d) => d.tool_name.clone(),
        EventData::FinalOutput(d) => d.output.as_str().unwrap().to_owned(),
        EventData::Checkpoint(d) => format!("checkpoint {}", d.tool_name),
        EventData::Compaction(d) => format!("compaction {}", d.summary),
    }
}

/// Warnings said, kept for the test.
fn warnings() -> (WarningFn, Arc<Mutex<Vec<String>>>) {
    let said = Arc::new(Mutex::new(Vec::new()));
    let s = said.clone();
    (
        Arc::new(move |w: &str| s.lock().unwrap().push(w.to_owned())),
        said,
    )
}

#[test]
fn eight_threads_record_the_five_types_complete_and_in_one_order() {
    let (_dir, store, id) = fs_session();
    let options = RecorderOptions {
        durability: Durability::Durable,
        queue_capacity: 64, // small: the threads meet a full queue
        log: LogOptions {
            rotate_bytes: 20_000,
            gzip_rotated: false,
        },
        ..Default::default()
    };
    let recorder = Recorder::open(store.clone(), &id, options).unwrap();
    let per = 250;
    let seqs: Vec<Vec<u64>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|t| {
                let r = &recorder;
                s.spawn(move || (0..per).map(|i| r.record(data(t, i)).unwrap()).collect())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    recorder.sync().unwrap();
    assert_eq!(recorder.next_seq(), 8 * per as u64);
    recorder.close().unwrap();

    let read = store.read_events(&id).unwrap();
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    assert_eq!(read.events.len(), 8 * per);
    let dir = store.session_dir(&id);
    assert!(dir.join("events_2.jsonl").exists(), "rotated");
    for (t, seqs) in seqs.iter().enumerate() {
        // Each thread's events carry the numbers `record` returned, in the
        // thread's order, and are the events it recorded.
        assert!(seqs.windows(2).all(|w| w[0] < w[1]));
        for (i, &seq) in seqs.iter().enumerate() {
            let stored = &read.events[seq as usize];
            assert_eq!(stored.seq, seq);
            assert_eq!(stored.event.data, data(t, i), "thread {t} event {i}");
        }
    }
    // One time order, never backwards, along the numbers.
    assert!(read
        .events
        .windows(2)
        .all(|w| w[0].event.timestamp <= w[1].event.timestamp));
    let meta = store.meta(&id).unwrap();
    assert!(meta.last_active_time > Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap());
}

#[test]
fn a_reopened_session_continues_its_numbers_after_a_repair() {
    let (_dir, store, id) = fs_session();
    {
        let r = Recorder::open(store.clone(), &id, RecorderOptions::default()).unwrap();
        for i in 0..10 {
            assert_eq!(r.record(data(0, i)).unwrap(), i as u64);
        }
    }
    let path = store.session_dir(&id).join("events.jsonl");
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(b"{\"event_type\":\"llm_");
    fs::write(&path, &bytes).unwrap();

    // The lock: one writer at a time.
    let (warn, said) = warnings();
    let options = RecorderOptions {
        on_warning: warn,
        ..Default::default()
    };
    let r = Recorder::open(store.clone(), &id, options).unwrap();
    let busy = Recorder::open(store.clone(), &id, RecorderOptions::default()).unwrap_err();
    assert!(matches!(busy, StoreError::SessionBusy { .. }), "{busy}");
    assert_eq!(r.repairs().len(), 1, "{:?}", r.repairs());
    assert!(said.lock().unwrap()[0].contains("torn last line"));
    assert_eq!(r.next_seq(), 10);
    assert_eq!(r.record(data(1, 0)).unwrap(), 10);
    r.close().unwrap();
    let read = store.read_events(&id).unwrap();
    assert!(read.problems.is_empty());
    assert_eq!(read.events.len(), 11);
    assert_eq!(tag(&read.events[10].event.data), "1:0");
}

#[test]
fn record_event_keeps_its_time_and_later_stamps_do_not_go_before_it() {
    let (_dir, store, id) = fs_session();
    let r = Recorder::open(store.clone(), &id, RecorderOptions::default()).unwrap();
    // To the microsecond, as the log keeps it.
    let future = Utc::now() + chrono::Duration::hours(1);
    let future = DateTime::from_timestamp_micros(future.timestamp_micros()).unwrap();
    let mut e = Event::new(future, data(0, 0));
    e.extra.insert("run".into(), json!(1));
    assert_eq!(r.record_event(e.clone()).unwrap(), 0);
    r.record(data(0, 1)).unwrap();
    r.close().unwrap();
    let read = store.read_events(&id).unwrap();
    assert_eq!(read.events[0].event, e);
    assert!(read.events[1].event.timestamp >= future);
}

/// A store whose sink the test holds back and counts, over a
/// [`MemoryStore`].
struct Gated {
    inner: MemoryStore,
    gate: Arc<(Mutex<bool>, Condvar)>,
    /// Appends begun (perhaps held at the gate) and done.
    entered: Arc<AtomicUsize>,
    appends: Arc<AtomicUsize>,
    syncs: Arc<AtomicUsize>,
    /// Appends that succeed before the sink fails (`usize::MAX`: the
    /// first one panics).
    fail_after: Option<usize>,
}

struct GatedSink {
    inner: Box<dyn EventSink>,
    gate: Arc<(Mutex<bool>, Condvar)>,
    /// Appends begun (perhaps held at the gate) and done.
    entered: Arc<AtomicUsize>,
    appends: Arc<AtomicUsize>,
    syncs: Arc<AtomicUsize>,
    fail_after: Option<usize>,
}

impl Gated {
    fn new(fail_after: Option<usize>) -> Arc<Gated> {
        Arc::new(Gated {
            inner: MemoryStore::new(),
            gate: Arc::new((Mutex::new(true), Condvar::new())),
            entered: Arc::default(),
            appends: Arc::default(),
            syncs: Arc::default(),
            fail_after,
        })
    }

    fn set_open(&self, open: bool) {
        *self.gate.0.lock().unwrap() = open;
        self.gate.1.notify_all();
    }
}

impl EventSink for GatedSink {
    fn append(&mut self, batch: &[EncodedEvent]) -> StoreResult<()> {
        self.entered.fetch_add(1, Ordering::SeqCst);
        let (open, cv) = &*self.gate;
        let mut g = open.lock().unwrap();
        // Bounded, so a failing test ends instead of hanging in drop.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while !*g && std::time::Instant::now() < deadline {
            g = cv
                .wait_timeout(g, std::time::Duration::from_millis(100))
                .unwrap()
                .0;
        }
        drop(g);
        let n = self.appends.fetch_add(1, Ordering::SeqCst);
        if self.fail_after == Some(usize::MAX) {
            panic!("a sink that panics");
        }
        if self.fail_after.is_some_and(|k| n >= k) {
            return Err(StoreError::io(
                "cannot write",
                std::path::Path::new("gated"),
                std::io::Error::other("disk full"),
            ));
        }
        self.inner.append(batch)
    }

    fn sync(&mut self) -> StoreResult<()> {
        self.syncs.fetch_add(1, Ordering::SeqCst);
        self.inner.sync()
    }
}

impl SessionStore for Gated {
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
        Ok(Box::new(GatedSink {
            inner: self.inner.open_events(id, options)?,
            gate: self.gate.clone(),
            entered: self.entered.clone(),
            appends: self.appends.clone(),
            syncs: self.syncs.clone(),
            fail_after: self.fail_after,
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

/// Waits until `f` holds (the writer thread runs on its own).
fn eventually(f: impl Fn() -> bool) {
    for _ in 0..2_000 {
        if f() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    panic!("never happened");
}

#[test]
fn a_full_queue_blocks_record_and_gives_try_record_the_event_back() {
    let store = Gated::new(None);
    let id = new_session(&*store);
    let options = RecorderOptions {
        queue_capacity: 2,
        ..Default::default()
    };
    let r = Arc::new(Recorder::open(store.clone(), &id, options).unwrap());
    store.set_open(false);
    // The writer takes event 0 and is held in its append; the queue fills
    // behind it.
    r.record(data(0, 1)).unwrap();
    eventually(|| store.entered.load(Ordering::SeqCst) == 1);
    let mut queued = 1;
    let full = loop {
        match r.try_record(data(0, 1)) {
            Ok(seq) => assert_eq!(seq, queued),
            Err(e) => break e,
        }
        queued += 1;
        assert!(queued < 100, "the queue never filled");
    };
    assert!(queued >= 2, "a queue of 2 was full at {queued}");
    let TryRecordError::Full(back) = &full else {
        panic!("{full}")
    };
    assert_eq!(**back, data(0, 1));
    assert!(full.to_string().contains("queue is full"));
    let full = r.try_record(data(0, 3)).unwrap_err();
    assert!(matches!(&full, TryRecordError::Full(d) if **d == data(0, 3)));
    // `record` waits for room instead.
    let blocked = {
        let r = r.clone();
        std::thread::spawn(move || r.record(data(0, 6)).unwrap())
    };
    std::thread::sleep(std::time::Duration::from_millis(50));
    assert!(
        !blocked.is_finished(),
        "record returned with the queue full"
    );
    store.set_open(true);
    assert_eq!(blocked.join().unwrap(), queued);
    r.flush().unwrap();
    let read = store.read_events(&id).unwrap();
    assert_eq!(read.events.len() as u64, queued + 1);
    assert_eq!(read.events[queued as usize].event.data, data(0, 6));
}

#[test]
fn durable_mode_syncs_once_per_batch_and_buffered_only_when_forced() {
    for durable in [true, false] {
        let store = Gated::new(None);
        let id = new_session(&*store);
        let options = RecorderOptions {
            durability: if durable {
                Durability::Durable
            } else {
                Durability::Buffered
            },
            ..Default::default()
        };
        let r = Recorder::open(store.clone(), &id, options).unwrap();
        store.set_open(false);
        // Held back on the first, the next 99 queue up into one batch.
        r.record(data(0, 1)).unwrap();
        eventually(|| store.entered.load(Ordering::SeqCst) == 1);
        for i in 1..100 {
            // Types 1, 2, 3 only: none forces a sync.
            r.record(data(0, 1 + i % 3)).unwrap();
        }
        store.set_open(true);
        r.flush().unwrap();
        let appends = store.appends.load(Ordering::SeqCst);
        let syncs = store.syncs.load(Ordering::SeqCst);
        assert_eq!(appends, 2, "100 events in 2 batches");
        if durable {
            assert_eq!(syncs, appends, "one sync per batch");
        } else {
            assert_eq!(syncs, 0);
            r.record(data(0, 0)).unwrap(); // user_input forces one
            r.flush().unwrap();
            assert_eq!(store.syncs.load(Ordering::SeqCst), 1);
            r.sync().unwrap(); // nothing new: no sync
            assert_eq!(store.syncs.load(Ordering::SeqCst), 1);
            r.record(data(0, 1)).unwrap();
            r.sync().unwrap();
            assert_eq!(store.syncs.load(Ordering::SeqCst), 2);
        }
        r.close().unwrap();
        let n = if durable { 100 } else { 102 };
        assert_eq!(store.read_events(&id).unwrap().events.len(), n);
    }
}

#[test]
fn after_a_write_error_the_recorder_warns_and_stops_without_panicking() {
    let store = Gated::new(Some(1));
    let id = new_session(&*store);
    let (warn, said) = warnings();
    let options = RecorderOptions {
        on_warning: warn,
        ..Default::default()
    };
    let r = Recorder::open(store.clone(), &id, options).unwrap();
    r.record(data(0, 1)).unwrap();
    r.flush().unwrap();
    r.record(data(0, 2)).unwrap();
    let err = r.flush().unwrap_err();
    assert!(matches!(err, StoreError::RecorderStopped { .. }), "{err}");
    assert!(err.to_string().contains("disk full"), "{err}");
    let err = r.record(data(0, 3)).unwrap_err();
    assert!(matches!(err, StoreError::RecorderStopped { .. }), "{err}");
    assert!(matches!(
        r.try_record(data(0, 3)),
        Err(TryRecordError::Stopped(..))
    ));
    assert!(r.sync().is_err());
    assert!(r.close().is_err());
    let said = said.lock().unwrap();
    assert!(
        said.iter()
            .any(|w| w.contains("events 1 to 1") && w.contains("disk full")),
        "{said:?}"
    );
}

/// Takes a "checkpoint" after each tool call, noting the thread it ran on.
struct FakeCheckpoints {
    threads: Arc<Mutex<Vec<String>>>,
}

impl Checkpointer for FakeCheckpoints {
    fn after_tool_call(
        &mut self,
        tool_name: &str,
        seq: u64,
        _at: DateTime<Utc>,
    ) -> StoreResult<Option<Checkpoint>> {
        let name = std::thread::current().name().unwrap_or("").to_owned();
        self.threads.lock().unwrap().push(name);
        if tool_name.ends_with(":8") {
            return Ok(None); // nothing changed
        }
        if tool_name.ends_with(":13") {
            return Err(StoreError::Git("index locked".into()));
        }
        Ok(Some(Checkpoint {
            commit: format!("c{seq}"),
            tag: format!("tool_{tool_name}"),
            tool_name: tool_name.to_owned(),
            ..Default::default()
        }))
    }
}

#[test]
fn a_checkpoint_is_recorded_after_each_tool_call_off_the_writer_thread() {
    let (_dir, store, id) = fs_session();
    let threads = Arc::new(Mutex::new(Vec::new()));
    let (warn, said) = warnings();
    let options = RecorderOptions {
        checkpointer: Some(Box::new(FakeCheckpoints {
            threads: threads.clone(),
        })),
        on_warning: warn,
        ..Default::default()
    };
    let r = Recorder::open(store.clone(), &id, options).unwrap();
    for i in 0..20 {
        r.record(data(0, i)).unwrap();
    }
    r.close().unwrap();
    let read = store.read_events(&id).unwrap();
    let events: Vec<&StoredEvent> = read.events.iter().collect();
    // Tool calls 3, 8, 13, 18: checkpoints for 3 and 18 only.
    let checkpoints: Vec<&Checkpoint> = events
        .iter()
        .filter_map(|e| match &e.event.data {
            EventData::Checkpoint(c) => Some(c),
            _ => None,
        })
        .collect();
    assert_eq!(checkpoints.len(), 2, "{:?}", checkpoints);
    for c in &checkpoints {
        let seq = c.extra["event"].as_u64().unwrap();
        let call = &events[seq as usize].event.data;
        assert!(matches!(call, EventData::ToolCall(t) if t.tool_name == c.tool_name));
        assert_eq!(c.commit, format!("c{seq}"));
    }
    assert_eq!(events.len(), 22);
    assert_eq!(
        *threads.lock().unwrap(),
        vec!["retrace-checkpoints"; 4],
        "run on the checkpoint thread"
    );
    let said = said.lock().unwrap();
    assert!(
        said.iter()
            .any(|w| w.contains("no checkpoint after event 13") && w.contains("index locked")),
        "{said:?}"
    );
}

/// A real workspace: with `wait_checkpoints` before each tool runs, each
/// checkpoint holds its own tool's file alone (without it, a fast agent's
/// next file can land in the checkpoint still being taken).
#[test]
fn wait_checkpoints_gives_each_tool_call_its_own_checkpoint() {
    let (dir, store, id) = fs_session();
    let work = dir.path().join("work");
    fs::create_dir_all(&work).unwrap();
    let checkpoints = crate::Checkpoints::open(
        &work,
        &dir.path().join("checkpoints.git"),
        &id,
        crate::CheckpointOptions::default(),
    )
    .unwrap();
    let options = RecorderOptions {
        checkpointer: Some(Box::new(checkpoints)),
        ..Default::default()
    };
    let r = Recorder::open(store.clone(), &id, options).unwrap();
    r.wait_checkpoints().unwrap(); // nothing due: answered at once
    for i in 0..5 {
        fs::write(work.join(format!("f{i}.txt")), format!("{i}")).unwrap();
        r.record(EventData::ToolCall(ToolCall {
            tool_name: "write".into(),
            ..Default::default()
        }))
        .unwrap();
        r.wait_checkpoints().unwrap();
    }
    r.close().unwrap();
    let files: Vec<Vec<String>> = store
        .read_events(&id)
        .unwrap()
        .events
        .iter()
        .filter_map(|e| match &e.event.data {
            EventData::Checkpoint(c) => Some(c.files.iter().map(|f| f.path.clone()).collect()),
            _ => None,
        })
        .collect();
    let want: Vec<Vec<String>> = (0..5).map(|i| vec![format!("f{i}.txt")]).collect();
    assert_eq!(files, want);
}

#[test]
fn a_writer_thread_that_panics_stops_the_recorder_not_the_caller() {
    let store = Gated::new(Some(usize::MAX));
    let id = new_session(&*store);
    let (warn, said) = warnings();
    let options = RecorderOptions {
        on_warning: warn,
        ..Default::default()
    };
    let r = Recorder::open(store.clone(), &id, options).unwrap();
    r.record(data(0, 1)).unwrap();
    let err = r.flush().unwrap_err();
    assert!(err.to_string().contains("writer thread has ended"), "{err}");
    assert!(matches!(
        r.record(data(0, 2)),
        Err(StoreError::RecorderStopped { .. })
    ));
    let err = r.close().unwrap_err();
    assert!(err.to_string().contains("panicked"), "{err}");
    assert!(said.lock().unwrap().iter().any(|w| w.contains("panicked")));
}
