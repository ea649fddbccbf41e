//! The session manager over both stores.

mod conformance;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use retrace_core::EventData;
use retrace_store::{
    EventSink, EventsRead, FsStore, ListQuery, LogOptions, LogProblem, MemoryStore, Page,
    SessionId, SessionLock, SessionManager, SessionMeta, SessionStore, StateKey, StateKeys,
    StoreError, StoreResult, StoredEvent, Versioned,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct AgentState {
    step: u32,
    messages: Vec<String>,
}

fn state(step: u32) -> AgentState {
    AgentState {
        step,
        messages: (0..step).map(|i| format!("m{i}")).collect(),
    }
}

/// The stores the manager is tried on.
fn stores() -> Vec<(Arc<dyn SessionStore>, Option<tempfile::TempDir>)> {
    let dir = tempfile::tempdir().unwrap();
    vec![
        (Arc::new(MemoryStore::new()), None),
        (Arc::new(FsStore::open(dir.path()).unwrap()), Some(dir)),
    ]
}

#[test]
fn create_save_restore_list_destroy() {
    for (store, _dir) in stores() {
        let m = SessionManager::new(store.clone());
        let config = json!({"model": "m1", "max_steps": 10});
        let a = m.create("coder", &config).unwrap();
        let b = m.create("writer", &json!({})).unwrap();
        assert_eq!(store.config_snapshot(&a).unwrap(), config);
        assert_eq!(m.restore::<AgentState>(&a).unwrap(), None);
        assert_eq!(m.save(&a, &state(1)).unwrap(), 1);
        assert_eq!(m.save(&a, &state(2)).unwrap(), 2);
        assert_eq!(m.restore::<AgentState>(&a).unwrap(), Some(state(2)));
        // Saving is activity: `a` is now the newest.
        let page = m.list(&ListQuery::default()).unwrap();
        let ids: Vec<_> = page.items.iter().map(|s| s.session_id.clone()).collect();
        assert_eq!(ids, [a.clone(), b.clone()]);
        assert_eq!(page.items[0].agent_config, "coder");
        // A state of another shape is a clear error.
        let e = m.restore::<Vec<u8>>(&a).unwrap_err();
        assert!(matches!(e, StoreError::Corrupt { .. }), "{e}");
        assert!(e.to_string().contains(a.as_str()), "{e}");
        assert!(m.destroy(&a).unwrap());
        assert!(!m.destroy(&a).unwrap());
        assert!(matches!(
            m.restore::<AgentState>(&a),
            Err(StoreError::NotFound { .. })
        ));
        assert_eq!(m.list(&ListQuery::default()).unwrap().items.len(), 1);
    }
}

/// A store whose saves are slow, counted, and fail on demand.
struct Slow {
    inner: MemoryStore,
    saves: AtomicUsize,
    delay: Duration,
    fail: Mutex<bool>,
}

impl SessionStore for Slow {
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
        std::thread::sleep(self.delay);
        self.saves.fetch_add(1, Ordering::SeqCst);
        if *self.fail.lock().unwrap() {
            return Err(StoreError::io(
                "cannot write",
                std::path::Path::new("/full/disk/state.json"),
                std::io::Error::other("no space left on device"),
            ));
        }
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
    fn open_events(&self, id: &SessionId, o: &LogOptions) -> StoreResult<Box<dyn EventSink>> {
        self.inner.open_events(id, o)
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

fn slow(delay_ms: u64) -> Arc<Slow> {
    Arc::new(Slow {
        inner: MemoryStore::new(),
        saves: AtomicUsize::new(0),
        delay: Duration::from_millis(delay_ms),
        fail: Mutex::new(false),
    })
}

#[test]
fn background_saves_never_block_and_the_latest_wins() {
    let store = slow(30);
    let m = SessionManager::new(store.clone());
    let id = m.create("a", &json!({})).unwrap();
    let t = Instant::now();
    for step in 1..=200 {
        m.queue_save(&id, &state(step));
    }
    // 200 saves of 30 ms each would take 6 s; the caller waited for none.
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
    m.flush_saves();
    let saves = store.saves.load(Ordering::SeqCst);
    // At most one write per 30 ms while the caller queued (< 500 ms),
    // plus the last: far fewer than one per step.
    assert!(saves < 25, "{saves} writes for 200 steps: not coalesced");
    assert_eq!(m.restore::<AgentState>(&id).unwrap(), Some(state(200)));
}

#[test]
fn a_manual_save_is_never_overwritten_by_an_older_queued_one() {
    let store = slow(20);
    let m = SessionManager::new(store.clone());
    let id = m.create("a", &json!({})).unwrap();
    m.queue_save(&id, &state(1));
    m.queue_save(&id, &state(2));
    m.save(&id, &state(3)).unwrap();
    m.flush_saves();
    assert_eq!(m.restore::<AgentState>(&id).unwrap(), Some(state(3)));
    // And a restore sees a queued save.
    m.queue_save(&id, &state(4));
    assert_eq!(m.restore::<AgentState>(&id).unwrap(), Some(state(4)));
}

#[test]
fn a_failed_background_save_is_a_warning_not_a_panic() {
    let store = slow(0);
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let sink = seen.clone();
    let m = SessionManager::with_warnings(
        store.clone(),
        Arc::new(move |id: &SessionId, e: &StoreError| {
            sink.lock().unwrap().push(format!("{id}: {e}"))
        }),
    );
    let id = m.create("a", &json!({})).unwrap();
    *store.fail.lock().unwrap() = true;
    m.queue_save(&id, &state(1));
    m.flush_saves();
    let warnings = seen.lock().unwrap().clone();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains(id.as_str()), "{warnings:?}");
    assert!(warnings[0].contains("no space left"), "{warnings:?}");
    // The agent goes on; the next save, once the disk is back, lands.
    *store.fail.lock().unwrap() = false;
    m.queue_save(&id, &state(2));
    drop(m); // dropping writes what is queued
    let m = SessionManager::new(store);
    assert_eq!(m.restore::<AgentState>(&id).unwrap(), Some(state(2)));
}

fn messages(read: &EventsRead) -> Vec<Value> {
    read.events
        .iter()
        .map(|e| match &e.event.data {
            EventData::UserInput(u) => u.message.clone(),
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn resume_appends_the_message_and_hands_the_state_back() {
    for (store, _dir) in stores() {
        resume_on(store);
    }
}

fn resume_on(store: Arc<dyn SessionStore>) {
    let m = SessionManager::new(store.clone());
    let id = m.create("a", &json!({})).unwrap();
    {
        let mut sink = store.open_events(&id, &LogOptions::default()).unwrap();
        sink.append(&[conformance::event("first", conformance::t0())])
            .unwrap();
    }
    m.save(&id, &state(2)).unwrap();
    let before = store.meta(&id).unwrap().last_active_time;
    let back: Option<AgentState> = m.resume(&id, "and now?").unwrap();
    assert_eq!(back, Some(state(2)));
    let read = m.get_events(&id).unwrap();
    assert_eq!(messages(&read), [json!("first"), json!("and now?")]);
    assert_eq!(read.events[1].seq, 1);
    assert!(store.meta(&id).unwrap().last_active_time >= before);

    // A writer holds it: refused, nothing appended.
    let lock = store.lock(&id).unwrap();
    let e = m.resume::<AgentState>(&id, "again").unwrap_err();
    assert!(matches!(e, StoreError::SessionBusy { .. }), "{e}");
    drop(lock);
    assert_eq!(m.get_events(&id).unwrap().events.len(), 2);
}

#[test]
fn last_events_and_pop() {
    for (store, _dir) in stores() {
        last_events_and_pop_on(store);
    }
}

fn last_events_and_pop_on(store: Arc<dyn SessionStore>) {
    let m = SessionManager::new(store.clone());
    let id = m.create("a", &json!({})).unwrap();
    for word in ["a", "b", "c", "d"] {
        m.resume::<Value>(&id, word).unwrap();
    }
    let last: Vec<u64> = m
        .last_events(&id, 2)
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(last, [2, 3]);
    assert_eq!(m.last_events(&id, 10).unwrap().len(), 4);
    assert!(m.last_events(&id, 0).unwrap().is_empty());
    let popped = m.pop_event(&id).unwrap().unwrap();
    assert_eq!(popped.seq, 3);
    assert_eq!(
        messages(&m.get_events(&id).unwrap()),
        [json!("a"), json!("b"), json!("c")]
    );
}

#[test]
fn export_redacts_when_asked() {
    for (store, _dir) in stores() {
        export_on(store);
    }
}

fn export_on(store: Arc<dyn SessionStore>) {
    let m = SessionManager::new(store.clone());
    let id = m.create("a", &json!({})).unwrap();
    let secret = "AKIA2E0A8F3B244C9986";
    m.resume::<Value>(&id, "hello").unwrap();
    m.resume::<Value>(&id, format!("export AWS_ACCESS_KEY_ID={secret}"))
        .unwrap();
    let mut plain = Vec::new();
    m.export(&id, false, &mut plain).unwrap();
    let plain = String::from_utf8(plain).unwrap();
    assert_eq!(plain.lines().count(), 2);
    assert!(plain.contains(secret));
    for line in plain.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
    let mut redacted = Vec::new();
    m.export(&id, true, &mut redacted).unwrap();
    let redacted = String::from_utf8(redacted).unwrap();
    assert!(!redacted.contains(secret), "{redacted}");
    assert_eq!(redacted.lines().count(), 2);
    assert!(redacted.contains("hello"));
    for line in redacted.lines() {
        serde_json::from_str::<Value>(line).unwrap();
    }
}
