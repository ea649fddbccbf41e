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
    EncodedEvent, ListQuery, LogOptions, SessionId, SessionMeta, SessionStore, StateKey, StoreError,
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

/// Every test of the suite but events, on stores `make` gives.
pub fn run_all(make: &dyn Fn() -> Arc<dyn SessionStore>) {
    lifecycle(&*make());
    versions(&*make());
    concurrent_saves(&*make());
    lists(&*make());
    listing(&*make());
    locking(&*make());
    deleting(&*make());
    invalid_names(&*make());
}
