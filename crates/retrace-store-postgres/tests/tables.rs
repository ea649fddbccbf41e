//! What the tables hold, as someone querying them with SQL sees it: each
//! event's line as written and its body as jsonb (null where jsonb cannot
//! hold it), times to the nanosecond, a deleted session gone from every
//! table, stores in two schemas unaware of each other.

mod common;

use chrono::{Duration, TimeZone, Utc};
use common::{client, TestStore};
use retrace_core::EventType;
use retrace_store::{
    EncodedEvent, ListQuery, LogOptions, SessionId, SessionMeta, SessionStore, StateKey,
};
use serde_json::{json, Map, Value};

fn line(text: &str) -> EncodedEvent {
    EncodedEvent {
        event_type: EventType::UserInput,
        timestamp: Utc.with_ymd_and_hms(2026, 3, 4, 5, 6, 7).unwrap(),
        line: format!("{text}\n").into_bytes(),
    }
}

fn new_session(store: &dyn SessionStore) -> SessionId {
    let at = Utc.with_ymd_and_hms(2026, 3, 4, 5, 6, 7).unwrap() + Duration::nanoseconds(42);
    let meta = SessionMeta {
        session_id: SessionId::new(),
        agent_config: "tables".into(),
        create_time: at,
        last_active_time: at,
        extra: Map::new(),
    };
    store.create(&meta, &json!({"model": "m"})).unwrap();
    meta.session_id
}

#[test]
fn events_are_their_lines_and_a_queryable_body() {
    let ts = TestStore::new();
    let id = new_session(&*ts.store);
    let plain =
        r#"{"event_type":"user_input","timestamp":"2026-03-04T05:06:07Z","data":{"message":"hi"}}"#;
    let nul = r#"{"event_type":"user_input","timestamp":"2026-03-04T05:06:07Z","data":{"message":"a\u0000b"}}"#;
    let mut sink = ts.store.open_events(&id, &LogOptions::default()).unwrap();
    sink.append(&[line(plain), line(nul)]).unwrap();

    let mut c = client(&ts.url);
    let rows = c
        .query(
            &format!(
                "SELECT e.seq, e.event_type, e.line, e.body->'data'->>'message', e.body IS NULL \
                 FROM {0}.events e JOIN {0}.sessions s ON s.key = e.session_key \
                 WHERE s.session_id = $1 ORDER BY e.seq",
                ts.schema
            ),
            &[&id.as_str()],
        )
        .unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].get::<_, i64>(0), 0);
    assert_eq!(rows[0].get::<_, String>(1), "user_input");
    assert_eq!(rows[0].get::<_, Vec<u8>>(2), plain.as_bytes());
    assert_eq!(rows[0].get::<_, Option<String>>(3).as_deref(), Some("hi"));
    // jsonb cannot hold a NUL character: no body, the line whole.
    assert!(rows[1].get::<_, bool>(4));
    assert_eq!(rows[1].get::<_, Vec<u8>>(2), nul.as_bytes());

    // A time to the nanosecond: microseconds in timestamptz, the rest beside.
    let (micros, nanos): (String, i16) = {
        let r = c
            .query_one(
                &format!(
                    "SELECT to_char(create_time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), \
                     create_time_ns FROM {}.sessions WHERE session_id = $1",
                    ts.schema
                ),
                &[&id.as_str()],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!((micros.as_str(), nanos), ("2026-03-04 05:06:07.000000", 42));
}

#[test]
fn a_deleted_session_leaves_no_row_in_any_table() {
    let ts = TestStore::new();
    let id = new_session(&*ts.store);
    let kept = new_session(&*ts.store);
    for s in [&id, &kept] {
        ts.store
            .save_state(s, &StateKey::state(), &json!({"n": 1}), None)
            .unwrap();
        ts.store
            .append_list(
                s,
                &StateKey::parse("memory").unwrap(),
                &[json!(1), json!(2)],
            )
            .unwrap();
        let mut sink = ts.store.open_events(s, &LogOptions::default()).unwrap();
        sink.append(&[line(
            r#"{"event_type":"user_input","timestamp":"2026-03-04T05:06:07Z","data":{"message":"x"}}"#,
        )])
        .unwrap();
    }
    let mut c = client(&ts.url);
    let count = |c: &mut postgres::Client| -> Vec<i64> {
        [
            "sessions",
            "config_snapshots",
            "states",
            "lists",
            "list_items",
            "events",
        ]
        .iter()
        .map(|t| {
            c.query_one(&format!("SELECT count(*) FROM {}.{t}", ts.schema), &[])
                .unwrap()
                .get(0)
        })
        .collect()
    };
    assert_eq!(count(&mut c), [2, 2, 2, 2, 4, 2]);
    assert!(ts.store.delete(&id).unwrap());
    assert_eq!(count(&mut c), [1, 1, 1, 1, 2, 1]);
    assert!(ts.store.exists(&kept).unwrap());
}

#[test]
fn stores_in_two_schemas_never_see_each_other() {
    let a = TestStore::new();
    let b = TestStore::new();
    let in_a = new_session(&*a.store);
    let in_b = new_session(&*b.store);
    let ids = |s: &TestStore| -> Vec<SessionId> {
        s.store
            .list(&ListQuery::default())
            .unwrap()
            .items
            .into_iter()
            .map(|m| m.session_id)
            .collect()
    };
    assert_eq!(ids(&a), std::slice::from_ref(&in_a));
    assert_eq!(ids(&b), std::slice::from_ref(&in_b));
    assert!(!a.store.exists(&in_b).unwrap());
    // The same id in both: two sessions, locked each on its own.
    let meta = a.store.meta(&in_a).unwrap();
    b.store.create(&meta, &Value::Null).unwrap();
    let _held = a.store.lock(&in_a).unwrap();
    drop(b.store.lock(&in_a).unwrap());
}
