//! The behaviour every [`SessionStore`] keeps, as functions over
//! `&dyn SessionStore`: `tests/stores.rs` runs them on the file store and
//! the memory store, and a database store's tests can run them too
//! (`#[path = "…/conformance/mod.rs"] mod conformance;`). Each function
//! takes an empty store.

#![allow(dead_code)] // each test binary uses some of them

use std::collections::HashSet;
use std::sync::Arc;

use chrono::{DateTime, Duration, TimeZone, Utc};
use retrace_core::{Event, EventData, EventType, UserInput};
use retrace_store::{
    copy_session, Durability, EncodedEvent, ListQuery, LogOptions, Recorder, RecorderOptions,
    SessionId, SessionMeta, SessionStore, StateKey, StateKeys, StoreError, Versioned,
};
use serde_json::{json, Map, Value};

/// A fixed time, so orders are known.
pub fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap()
}

/// A meta for a new session.
pub fn meta(agent: &str, at: DateTime<Utc>) -> SessionMeta {
    SessionMeta {
        session_id: SessionId::new(),
        agent_config: agent.to_owned(),
        create_time: at,
        last_active_time: at,
        extra: Map::new(),
    }
}

/// Creates a session and returns its id.
pub fn new_session(store: &dyn SessionStore, agent: &str, at: DateTime<Utc>) -> SessionId {
    let m = meta(agent, at);
    store.create(&m, &json!({"model": "m1"})).unwrap();
    m.session_id
}

/// An event line as the recorder writes it.
pub fn event(message: &str, at: DateTime<Utc>) -> EncodedEvent {
    let e = Event::new(
        at,
        EventData::UserInput(UserInput {
            message: json!(message),
            extra: Map::new(),
        }),
    );
    let mut line = serde_json::to_vec(&e).unwrap();
    line.push(b'\n');
    EncodedEvent {
        event_type: EventType::UserInput,
        timestamp: at,
        line,
    }
}

fn key(k: &str) -> StateKey {
    StateKey::parse(k).unwrap()
}

/// Create, exists, meta, config snapshot, touch; what a missing session
/// gives.
pub fn lifecycle(store: &dyn SessionStore) {
    let mut m = meta("coder", t0());
    m.extra.insert("user".into(), json!("ada"));
    let config = json!({"model": "m1", "tools": ["bash"], "temperature": 0.2});
    assert!(!store.exists(&m.session_id).unwrap());
    store.create(&m, &config).unwrap();
    assert!(store.exists(&m.session_id).unwrap());
    assert_eq!(store.meta(&m.session_id).unwrap(), m);
    assert_eq!(store.config_snapshot(&m.session_id).unwrap(), config);

    let again = store.create(&m, &json!({})).unwrap_err();
    assert!(matches!(again, StoreError::Exists { .. }), "{again}");
    assert_eq!(store.config_snapshot(&m.session_id).unwrap(), config);

    // Activity moves forward only.
    let id = &m.session_id;
    store.touch(id, t0() + Duration::seconds(10)).unwrap();
    store.touch(id, t0() + Duration::seconds(5)).unwrap();
    let after = store.meta(id).unwrap();
    assert_eq!(after.last_active_time, t0() + Duration::seconds(10));
    assert_eq!(after.create_time, t0());
    assert_eq!(after.extra, m.extra);

    let none = SessionId::new();
    assert!(!store.exists(&none).unwrap());
    let k = StateKey::state();
    let errs = [
        store.meta(&none).err(),
        store.config_snapshot(&none).err(),
        store.touch(&none, t0()).err(),
        store.load_state(&none, &k).err(),
        store.save_state(&none, &k, &json!(1), None).err(),
        store.append_list(&none, &k, &[json!(1)]).err(),
        store.read_list(&none, &k).err(),
        store.lock(&none).err(),
    ];
    for e in errs {
        let e = e.expect("a missing session is an error");
        assert!(matches!(e, StoreError::NotFound { .. }), "{e}");
        assert!(e.to_string().contains(none.as_str()), "{e}");
    }
}

/// Versions: 1 for the first save, up by one each save; `expected` guards
/// against lost updates.
pub fn versions(store: &dyn SessionStore) {
    let id = new_session(store, "a", t0());
    let k = StateKey::state();
    assert_eq!(store.load_state(&id, &k).unwrap(), None);
    assert_eq!(
        store.save_state(&id, &k, &json!({"n": 1}), None).unwrap(),
        1
    );
    let got = store.load_state(&id, &k).unwrap().unwrap();
    assert_eq!((got.value, got.version), (json!({"n": 1}), 1));
    assert_eq!(
        store
            .save_state(&id, &k, &json!({"n": 2}), Some(1))
            .unwrap(),
        2
    );
    let stale = store
        .save_state(&id, &k, &json!({"n": 3}), Some(1))
        .unwrap_err();
    match stale {
        StoreError::Conflict {
            expected, actual, ..
        } => assert_eq!((expected, actual), (1, 2)),
        e => panic!("expected a conflict, got {e}"),
    }
    // The refused save changed nothing.
    let got = store.load_state(&id, &k).unwrap().unwrap();
    assert_eq!((got.value, got.version), (json!({"n": 2}), 2));
    // Without `expected`, the last save wins.
    assert_eq!(store.save_state(&id, &k, &json!("x"), None).unwrap(), 3);
    // Expecting nothing saved yet (0) when something is: a conflict.
    assert!(matches!(
        store.save_state(&id, &k, &json!(0), Some(0)),
        Err(StoreError::Conflict { actual: 3, .. })
    ));
    // Keys are versioned each on its own.
    let other = key("agent_state");
    assert_eq!(
        store.save_state(&id, &other, &json!([1]), Some(0)).unwrap(),
        1
    );
    assert_eq!(store.load_state(&id, &k).unwrap().unwrap().version, 3);
}

/// Threads racing compare-and-swap saves: none is lost.
pub fn concurrent_saves(store: &dyn SessionStore) {
    let id = new_session(store, "a", t0());
    let k = StateKey::state();
    store.save_state(&id, &k, &json!(0), None).unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let mut done = 0;
                while done < 10 {
                    let cur = store.load_state(&id, &k).unwrap().unwrap();
                    let n = cur.value.as_u64().unwrap();
                    match store.save_state(&id, &k, &json!(n + 1), Some(cur.version)) {
                        Ok(_) => done += 1,
                        Err(StoreError::Conflict { .. }) => {}
                        Err(e) => panic!("{e}"),
                    }
                }
            });
        }
    });
    let end = store.load_state(&id, &k).unwrap().unwrap();
    assert_eq!(end.value, json!(40));
    assert_eq!(end.version, 41);
}

/// Lists grow by appending and read back in order; a list and a value
/// may share a key.
pub fn lists(store: &dyn SessionStore) {
    let id = new_session(store, "a", t0());
    let k = key("memory_messages");
    assert_eq!(store.read_list(&id, &k).unwrap(), Vec::<Value>::new());
    let first = [
        json!({"role": "user", "content": "hi"}),
        json!({"role": "assistant", "content": "hello\nthere"}),
    ];
    store.append_list(&id, &k, &first).unwrap();
    store.append_list(&id, &k, &[]).unwrap();
    store.append_list(&id, &k, &[json!(3)]).unwrap();
    let mut all = first.to_vec();
    all.push(json!(3));
    assert_eq!(store.read_list(&id, &k).unwrap(), all);
    assert_eq!(
        store.read_list(&id, &key("other")).unwrap(),
        Vec::<Value>::new()
    );
    store
        .save_state(&id, &k, &json!({"summary": "s"}), None)
        .unwrap();
    assert_eq!(store.read_list(&id, &k).unwrap(), all);
    assert_eq!(
        store.load_state(&id, &k).unwrap().unwrap().value,
        json!({"summary": "s"})
    );
}

/// Every page of `query` in turn, checking each is at most its limit.
pub fn all_pages(store: &dyn SessionStore, mut query: ListQuery) -> Vec<SessionMeta> {
    let mut out = Vec::new();
    loop {
        let page = store.list(&query).unwrap();
        assert!(page.items.len() <= query.limit.max(1));
        out.extend(page.items);
        match page.next {
            Some(c) => query.after = Some(c),
            None => return out,
        }
    }
}

/// Newest activity first, ties by id descending, keyset pages, filter.
pub fn listing(store: &dyn SessionStore) {
    let mut made = Vec::new();
    for i in 0..23 {
        // Three sessions share each time, so ties are exercised.
        let at = t0() + Duration::seconds(i / 3) + Duration::microseconds(0);
        let agent = if i % 2 == 0 { "a" } else { "b" };
        let id = new_session(store, agent, at);
        made.push((at, id, agent));
    }
    let mut expected = made.clone();
    expected.sort_by(|x, y| (y.0, &y.1).cmp(&(x.0, &x.1)));
    let ids = |v: &[SessionMeta]| v.iter().map(|m| m.session_id.clone()).collect::<Vec<_>>();

    let all = all_pages(
        store,
        ListQuery {
            limit: 5,
            ..ListQuery::default()
        },
    );
    assert_eq!(
        ids(&all),
        expected.iter().map(|e| e.1.clone()).collect::<Vec<_>>()
    );
    let one = store.list(&ListQuery::default()).unwrap();
    assert_eq!(ids(&one.items), ids(&all));
    assert!(one.next.is_none());

    let exact = store
        .list(&ListQuery {
            limit: 23,
            ..ListQuery::default()
        })
        .unwrap();
    assert_eq!(exact.items.len(), 23);
    assert!(exact.next.is_none(), "no next page after the last session");

    let only_a = all_pages(
        store,
        ListQuery {
            agent_config: Some("a".into()),
            limit: 4,
            ..ListQuery::default()
        },
    );
    let want_a: Vec<_> = expected
        .iter()
        .filter(|e| e.2 == "a")
        .map(|e| e.1.clone())
        .collect();
    assert_eq!(ids(&only_a), want_a);
    assert!(store
        .list(&ListQuery {
            agent_config: Some("zzz".into()),
            ..ListQuery::default()
        })
        .unwrap()
        .items
        .is_empty());

    // Keyset: a session touched after the first page was read does not
    // shift the later pages (it moves to the front, already passed).
    let first = store
        .list(&ListQuery {
            limit: 10,
            ..ListQuery::default()
        })
        .unwrap();
    let moved = expected[20].1.clone();
    store.touch(&moved, t0() + Duration::days(1)).unwrap();
    let rest = all_pages(
        store,
        ListQuery {
            after: first.next.clone(),
            limit: 10,
            ..ListQuery::default()
        },
    );
    let mut seen: HashSet<_> = ids(&first.items).into_iter().collect();
    for id in ids(&rest) {
        assert!(seen.insert(id), "a session listed twice");
    }
    assert_eq!(seen.len(), 22);
    assert!(!seen.contains(&moved));
    assert_eq!(
        store
            .list(&ListQuery {
                limit: 1,
                ..ListQuery::default()
            })
            .unwrap()
            .items[0]
            .session_id,
        moved
    );
}

/// One writer at a time; the lock goes with its guard; no delete while
/// locked.
pub fn locking(store: &dyn SessionStore) {
    let id = new_session(store, "a", t0());
    let lock = store.lock(&id).unwrap();
    let busy = store.lock(&id).err().expect("a second writer is refused");
    assert!(matches!(busy, StoreError::SessionBusy { .. }), "{busy}");
    assert!(busy.to_string().contains(id.as_str()), "{busy}");
    let del = store.delete(&id).expect_err("no delete while locked");
    assert!(matches!(del, StoreError::SessionBusy { .. }), "{del}");
    assert!(store.exists(&id).unwrap());
    // Readers are not writers.
    store.meta(&id).unwrap();
    // Another session is not held.
    let other = new_session(store, "a", t0());
    drop(store.lock(&other).unwrap());
    drop(lock);
    let again = store.lock(&id).unwrap();
    drop(again);
}

/// Delete removes everything; the id is free again; a second delete says
/// false.
pub fn deleting(store: &dyn SessionStore) {
    let id = new_session(store, "a", t0());
    store
        .save_state(&id, &StateKey::state(), &json!(1), None)
        .unwrap();
    store.append_list(&id, &key("l"), &[json!(1)]).unwrap();
    assert!(store.delete(&id).unwrap());
    assert!(!store.exists(&id).unwrap());
    assert!(!store.delete(&id).unwrap());
    assert!(matches!(store.meta(&id), Err(StoreError::NotFound { .. })));
    assert!(store.list(&ListQuery::default()).unwrap().items.is_empty());
    // The id can be used again, from nothing.
    let mut m = meta("a", t0());
    m.session_id = id.clone();
    store.create(&m, &json!({})).unwrap();
    assert_eq!(store.load_state(&id, &StateKey::state()).unwrap(), None);
    assert!(store.read_list(&id, &key("l")).unwrap().is_empty());
}

/// Events: appended in order with seq from 0, read back, popped from the
/// end.
pub fn events(store: &dyn SessionStore) {
    let id = new_session(store, "a", t0());
    assert!(store.read_events(&id).unwrap().events.is_empty());
    assert!(store.pop_event(&id).unwrap().is_none());
    {
        let mut sink = store.open_events(&id, &LogOptions::default()).unwrap();
        sink.append(&[event("one", t0()), event("two", t0())])
            .unwrap();
        sink.append(&[event("three", t0())]).unwrap();
        sink.sync().unwrap();
    }
    let read = store.read_events(&id).unwrap();
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    let seqs: Vec<u64> = read.events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, [0, 1, 2]);
    let msgs: Vec<Value> = read
        .events
        .iter()
        .map(|e| match &e.event.data {
            EventData::UserInput(u) => u.message.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(msgs, [json!("one"), json!("two"), json!("three")]);
    assert_eq!(
        read.events[0].line,
        event("one", t0()).line[..event("one", t0()).line.len() - 1]
    );

    let popped = store.pop_event(&id).unwrap().unwrap();
    assert_eq!(popped.seq, 2);
    assert_eq!(store.read_events(&id).unwrap().events.len(), 2);
    // Appending after a pop continues the sequence where it now ends.
    {
        let mut sink = store.open_events(&id, &LogOptions::default()).unwrap();
        sink.append(&[event("four", t0())]).unwrap();
        sink.sync().unwrap();
    }
    let read = store.read_events(&id).unwrap();
    assert_eq!(
        read.events.iter().map(|e| e.seq).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    let none = SessionId::new();
    assert!(matches!(
        store.read_events(&none),
        Err(StoreError::NotFound { .. })
    ));
}

/// Ids and keys from outside are refused before they reach the store.
pub fn invalid_names(_store: &dyn SessionStore) {
    for bad in [
        "",
        "..",
        "../x",
        "a/b",
        "meta",
        "config_snapshot",
        "events",
        "events_3",
        "a.json",
        "x y",
        &"k".repeat(65),
    ] {
        let e = StateKey::parse(bad).unwrap_err();
        assert!(matches!(e, StoreError::InvalidId { .. }), "{bad:?}: {e}");
    }
    for good in ["state", "memory_messages", "events_x", "k-1"] {
        StateKey::parse(good).unwrap();
    }
    for bad in ["..", "../etc", "/abs", "a\\b", "a/../../b"] {
        assert!(SessionId::parse(bad).is_err(), "{bad:?}");
        let text = format!(
            r#"{{"session_id":"{}","agent_config":"a","create_time":"2026-01-01T00:00:00Z","last_active_time":"2026-01-01T00:00:00Z"}}"#,
            bad.escape_default()
        );
        assert!(
            serde_json::from_str::<SessionMeta>(&text).is_err(),
            "{bad:?} in a meta"
        );
    }
}

/// The keys a session holds state under; a value imported at its version
/// (what a copy between stores does), and only into a key never saved.
pub fn keys_and_imports(store: &dyn SessionStore) {
    let id = new_session(store, "a", t0());
    assert_eq!(store.state_keys(&id).unwrap(), StateKeys::default());
    store
        .save_state(&id, &StateKey::state(), &json!(1), None)
        .unwrap();
    store
        .save_state(&id, &key("memory"), &json!({"m": 1}), None)
        .unwrap();
    store
        .append_list(&id, &key("memory_messages"), &[json!("x")])
        .unwrap();
    store.append_list(&id, &key("log"), &[json!(1)]).unwrap();
    // Nothing appended makes no list.
    store.append_list(&id, &key("nothing"), &[]).unwrap();
    assert_eq!(
        store.state_keys(&id).unwrap(),
        StateKeys {
            values: vec![key("memory"), StateKey::state()],
            lists: vec![key("log"), key("memory_messages")],
        }
    );

    let imported = Versioned {
        value: json!({"step": 7}),
        version: 7,
    };
    store
        .import_state(&id, &key("imported"), &imported)
        .unwrap();
    assert_eq!(
        store.load_state(&id, &key("imported")).unwrap(),
        Some(imported.clone())
    );
    // Saves go on from the imported version, and `expected` holds.
    assert_eq!(
        store
            .save_state(&id, &key("imported"), &json!(8), Some(7))
            .unwrap(),
        8
    );
    // Never over a saved key: a version would name two values.
    match store.import_state(&id, &StateKey::state(), &imported) {
        Err(StoreError::Conflict {
            expected, actual, ..
        }) => assert_eq!((expected, actual), (0, 1)),
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(
        store
            .load_state(&id, &StateKey::state())
            .unwrap()
            .unwrap()
            .value,
        json!(1)
    );
    let zero = Versioned {
        value: json!(0),
        version: 0,
    };
    let e = store.import_state(&id, &key("zero"), &zero).unwrap_err();
    assert!(e.to_string().contains("version 0"), "{e}");
    assert_eq!(store.load_state(&id, &key("zero")).unwrap(), None);

    let none = SessionId::new();
    for e in [
        store.state_keys(&none).err(),
        store.import_state(&none, &key("k"), &imported).err(),
    ] {
        let e = e.expect("a missing session is an error");
        assert!(matches!(e, StoreError::NotFound { .. }), "{e}");
    }
}

/// Values a JSON text holds but a database's JSON type may not: a NUL
/// character, astral characters, integers at the edges of 64 bits, floats
/// with and without fractions; times to the nanosecond. Each comes back
/// equal from meta, configuration, state, lists, and an event's line byte
/// for byte.
pub fn exact_values(store: &dyn SessionStore) {
    let awkward = json!({
        "nul": "a\u{0}b",
        "astral": "😀 𝄞 ∑ é",
        "escapes": "quote \" backslash \\ tab \t newline \n",
        "u64": u64::MAX,
        "i64": i64::MIN,
        "big": 1e300,
        "small": 1e-300,
        "fraction": 0.1,
        "whole_float": 100000.0,
        "empty": {"": []},
        "deep": [[[[{"k": null}]]]],
    });
    let at = t0() + Duration::nanoseconds(123_456_789);
    let mut m = meta("exact", at);
    m.extra.insert("awkward".into(), awkward.clone());
    store.create(&m, &awkward).unwrap();
    let id = m.session_id.clone();
    assert_eq!(store.meta(&id).unwrap(), m);
    assert_eq!(store.config_snapshot(&id).unwrap(), awkward);

    // Activity to the nanosecond: one more nanosecond is newer.
    let later = at + Duration::nanoseconds(1);
    store.touch(&id, later).unwrap();
    assert_eq!(store.meta(&id).unwrap().last_active_time, later);
    let other = new_session(store, "exact", at);
    let page = store.list(&ListQuery::default()).unwrap();
    let order: Vec<_> = page.items.iter().map(|m| m.session_id.clone()).collect();
    assert_eq!(order, [id.clone(), other]);
    let cursor = store
        .list(&ListQuery {
            limit: 1,
            ..ListQuery::default()
        })
        .unwrap()
        .next
        .unwrap();
    assert_eq!(cursor.last_active_time, later);

    let k = StateKey::state();
    store.save_state(&id, &k, &awkward, None).unwrap();
    assert_eq!(store.load_state(&id, &k).unwrap().unwrap().value, awkward);
    store
        .append_list(&id, &key("items"), &[awkward.clone(), json!("\u{0}")])
        .unwrap();
    assert_eq!(
        store.read_list(&id, &key("items")).unwrap(),
        [awkward.clone(), json!("\u{0}")]
    );

    // An event line as another writer spelled it: keys out of order,
    // escapes where none are needed, a NUL, spaces. Its bytes come back.
    let line = concat!(
        r#"{"timestamp": "2026-01-02T03:04:05.123456789Z", "data": "#,
        r#"{"message": "\u0048i \u0000 é\ud83d\ude00", "n": 1.50}, "#,
        r#""event_type": "user_input"}"#
    );
    let mut sink = store.open_events(&id, &LogOptions::default()).unwrap();
    sink.append(&[EncodedEvent {
        event_type: EventType::UserInput,
        timestamp: at,
        line: format!("{line}\n").into_bytes(),
    }])
    .unwrap();
    sink.sync().unwrap();
    let read = store.read_events(&id).unwrap();
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    assert_eq!(read.events.len(), 1);
    assert_eq!(read.events[0].line, line.as_bytes());
    match &read.events[0].event.data {
        EventData::UserInput(u) => assert_eq!(u.message, json!("Hi \u{0} é😀")),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        read.events[0].event.timestamp,
        t0() + Duration::nanoseconds(123_456_789)
    );
}

/// A sink opened before its session was deleted never writes into a
/// session created again under the same id.
pub fn stale_sink(store: &dyn SessionStore) {
    let id = new_session(store, "a", t0());
    let mut sink = store.open_events(&id, &LogOptions::default()).unwrap();
    sink.append(&[event("before", t0())]).unwrap();
    sink.sync().unwrap();
    assert!(store.delete(&id).unwrap());
    let mut m = meta("a", t0());
    m.session_id = id.clone();
    store.create(&m, &json!({})).unwrap();
    // The old sink may fail or write where nobody reads; never here.
    let _ = sink
        .append(&[event("after", t0())])
        .and_then(|()| sink.sync());
    assert!(store.read_events(&id).unwrap().events.is_empty());
}

/// All a store holds of one session, to compare two stores' copies.
#[derive(Debug, PartialEq)]
pub struct Snapshot {
    pub meta: SessionMeta,
    pub config: Value,
    pub keys: StateKeys,
    pub values: Vec<Versioned<Value>>,
    pub lists: Vec<Vec<Value>>,
    /// Each event's seq and line, as written.
    pub events: Vec<(u64, Vec<u8>)>,
}

/// Takes a [`Snapshot`] of session `id`.
pub fn snapshot(store: &dyn SessionStore, id: &SessionId) -> Snapshot {
    let keys = store.state_keys(id).unwrap();
    let read = store.read_events(id).unwrap();
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    Snapshot {
        meta: store.meta(id).unwrap(),
        config: store.config_snapshot(id).unwrap(),
        values: keys
            .values
            .iter()
            .map(|k| store.load_state(id, k).unwrap().unwrap())
            .collect(),
        lists: keys
            .lists
            .iter()
            .map(|k| store.read_list(id, k).unwrap())
            .collect(),
        keys,
        events: read.events.into_iter().map(|e| (e.seq, e.line)).collect(),
    }
}

/// Records `events` into a new session of `store` through a durable
/// [`Recorder`] at their own times, with state saved at version 3, a
/// value at version 1 and a list, as an agent leaves a session.
pub fn recorded(store: &Arc<dyn SessionStore>, agent: &str, events: &[Event]) -> SessionId {
    let mut m = meta(agent, t0());
    m.extra.insert("workspace".into(), json!("/work/space"));
    store
        .create(&m, &json!({"model": "m1", "tools": ["bash", "edit"]}))
        .unwrap();
    let id = m.session_id;
    let recorder = Recorder::open(
        store.clone(),
        &id,
        RecorderOptions {
            durability: Durability::Durable,
            ..RecorderOptions::default()
        },
    )
    .unwrap();
    for e in events {
        recorder.record_event(e.clone()).unwrap();
    }
    recorder.close().unwrap();
    let k = StateKey::state();
    for step in 1..=3 {
        store
            .save_state(&id, &k, &json!({"step": step, "agent": agent}), None)
            .unwrap();
    }
    store
        .save_state(&id, &key("memory"), &json!({"summary": "kept"}), None)
        .unwrap();
    let items: Vec<Value> = events
        .iter()
        .take(5)
        .map(|e| json!(e.event_type().as_str()))
        .collect();
    store
        .append_list(&id, &key("memory_messages"), &items)
        .unwrap();
    id
}

/// A session copied from `a` to `b` and back, each way equal to what was
/// recorded (events byte for byte); a session being recorded, or an id
/// the destination holds, is refused and nothing changes.
pub fn copy_round_trip(a: Arc<dyn SessionStore>, b: Arc<dyn SessionStore>, events: &[Event]) {
    let id = recorded(&a, "copied", events);
    let original = snapshot(&*a, &id);
    assert_eq!(original.events.len(), events.len());
    assert_eq!(original.values[1].version, 3);

    let report = copy_session(&*a, &*b, &id).unwrap();
    assert_eq!(report.events, events.len() as u64);
    assert_eq!(
        report.event_bytes,
        original
            .events
            .iter()
            .map(|e| e.1.len() as u64 + 1)
            .sum::<u64>()
    );
    assert_eq!((report.values, report.lists), (2, 1));
    assert_eq!(snapshot(&*b, &id), original);

    // The id is taken in `a`: refused, and `a` keeps what it has.
    let taken = copy_session(&*b, &*a, &id).unwrap_err();
    assert!(matches!(taken, StoreError::Exists { .. }), "{taken}");
    assert_eq!(snapshot(&*a, &id), original);
    // And back, into an `a` without it.
    assert!(a.delete(&id).unwrap());
    copy_session(&*b, &*a, &id).unwrap();
    assert_eq!(snapshot(&*a, &id), original);

    // A session being recorded is not copied half-way.
    let busy = recorded(&a, "busy", &events[..events.len().min(3)]);
    let recorder = Recorder::open(a.clone(), &busy, RecorderOptions::default()).unwrap();
    let e = copy_session(&*a, &*b, &busy).unwrap_err();
    assert!(matches!(e, StoreError::SessionBusy { .. }), "{e}");
    assert!(!b.exists(&busy).unwrap());
    recorder.close().unwrap();
}

/// One `#[test]` per test of the suite, each on a fresh store:
/// `conformance_tests!(let made = EXPR; STORE)` makes `made` and runs the
/// test on `STORE` (a `&dyn SessionStore` borrowed from it). Every backend's
/// tests call this, so a test added here runs on all of them.
#[macro_export]
macro_rules! conformance_tests {
    (let $made:ident = $make:expr; $store:expr) => {
        $crate::conformance_tests!(@each [$made, $make, $store]
            lifecycle versions concurrent_saves lists listing locking deleting
            invalid_names keys_and_imports exact_values stale_sink events);
    };
    (@each [$made:ident, $make:expr, $store:expr] $($test:ident)*) => {
        $(
            #[test]
            fn $test() {
                let $made = $make;
                conformance::$test($store);
            }
        )*
    };
}
