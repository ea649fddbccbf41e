//! `cargo bench -p retrace-store --bench list`: 10,000 sessions in a
//! temporary folder (`RETRACE_BENCH_DIR` to choose where; the default is
//! the system's temporary folder), then the time of listing pages of them.
//! Target: the first page in ≤ 50 ms.

use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use retrace_store::{FsStore, ListQuery, SessionId, SessionMeta, SessionStore};
use serde_json::{json, Map};

const SESSIONS: usize = 10_000;
const THREADS: usize = 8;

fn main() {
    let base = std::env::var_os("RETRACE_BENCH_DIR").map_or_else(std::env::temp_dir, Into::into);
    let tmp = tempfile::tempdir_in(&base).expect("a temporary folder");
    let store = FsStore::open(tmp.path().join("sessions")).expect("the store");
    let t0 = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();

    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let store = &store;
            s.spawn(move || {
                for i in (t..SESSIONS).step_by(THREADS) {
                    let at = t0 + chrono::Duration::seconds(i as i64);
                    let meta = SessionMeta {
                        session_id: SessionId::new(),
                        agent_config: if i % 10 == 0 { "rare" } else { "coder" }.to_owned(),
                        create_time: at,
                        last_active_time: at,
                        extra: Map::new(),
                    };
                    store
                        .create(&meta, &json!({"model": "m", "tools": ["bash", "edit"]}))
                        .expect("create");
                }
            });
        }
    });
    println!(
        "create {SESSIONS} sessions ({THREADS} threads, {}): {:.2?}",
        base.display(),
        start.elapsed()
    );

    let time = |label: &str, q: &ListQuery| -> Option<retrace_store::Cursor> {
        let mut best = Duration::MAX;
        let mut next = None;
        for _ in 0..5 {
            let t = Instant::now();
            let page = store.list(q).expect("list");
            best = best.min(t.elapsed());
            assert!(!page.items.is_empty());
            next = page.next;
        }
        println!("{label}: best of 5 {best:.2?}");
        next
    };
    let first = ListQuery {
        limit: 50,
        ..ListQuery::default()
    };
    let mut q = first.clone();
    let cold = Instant::now();
    store.list(&q).expect("list");
    println!("first page of 50, first call: {:.2?}", cold.elapsed());
    time("first page of 50", &q);
    // The 100th page: 4,950 sessions in.
    for _ in 0..99 {
        q.after = store.list(&q).expect("list").next;
    }
    time("100th page of 50", &q);
    time(
        "first page of 50, filtered to 1 in 10",
        &ListQuery {
            agent_config: Some("rare".into()),
            limit: 50,
            ..ListQuery::default()
        },
    );
}
