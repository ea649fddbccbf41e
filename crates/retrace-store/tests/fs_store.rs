//! What only the file store does: its files on disk, crash consistency,
//! locks across processes, folders that are not sessions.

mod conformance;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use chrono::{DateTime, Duration, Utc};
use conformance::{new_session, t0};
use retrace_store::{FsStore, ListQuery, SessionId, SessionStore, StateKey, StoreError};
use serde_json::{json, Value};

fn store() -> (tempfile::TempDir, FsStore) {
    let dir = tempfile::tempdir().unwrap();
    let store = FsStore::open(dir.path().join("sessions")).unwrap();
    (dir, store)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn the_files_on_disk_are_plain_json_other_tools_can_read() {
    let (_tmp, store) = store();
    let id = new_session(&store, "coder", t0());
    let dir = store.session_dir(&id);
    assert_eq!(dir, store.root().join(id.as_str()));
    let meta = read_json(&dir.join("meta.json"));
    assert_eq!(meta["session_id"], json!(id.as_str()));
    assert_eq!(meta["agent_config"], json!("coder"));
    assert_eq!(meta["create_time"], json!("2026-01-02T03:04:05Z"));
    assert_eq!(meta["last_active_time"], json!("2026-01-02T03:04:05Z"));
    assert_eq!(
        read_json(&dir.join("config_snapshot.json")),
        json!({"model": "m1"})
    );

    let state = json!({"messages": ["hi"], "step": 3});
    store
        .save_state(&id, &StateKey::state(), &state, None)
        .unwrap();
    // state.json holds the value alone.
    assert_eq!(read_json(&dir.join("state.json")), state);
    let k = StateKey::parse("memory_messages").unwrap();
    store
        .append_list(&id, &k, &[json!({"role": "user"}), json!(2)])
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.join("memory_messages.jsonl")).unwrap(),
        "{\"role\":\"user\"}\n2\n"
    );
    // No temporary file left behind.
    assert_eq!(
        names(&dir),
        [
            ".save.lock",
            "config_snapshot.json",
            "memory_messages.jsonl",
            "meta.json",
            "state.json",
            "state.json.version"
        ]
    );
}

#[test]
fn meta_mtime_is_last_active_time() {
    let (_tmp, store) = store();
    let id = new_session(&store, "a", t0());
    let later = t0() + Duration::seconds(90) + Duration::microseconds(7);
    store.touch(&id, later).unwrap();
    let mtime = std::fs::metadata(store.session_dir(&id).join("meta.json"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(DateTime::<Utc>::from(mtime), later);
}

#[test]
fn a_crash_between_version_and_value_reads_back_the_old_pair() {
    let (_tmp, store) = store();
    let id = new_session(&store, "a", t0());
    let k = StateKey::state();
    let path = store.session_dir(&id).join("state.json");
    store.save_state(&id, &k, &json!("one"), None).unwrap();
    let one = std::fs::read(&path).unwrap();
    store.save_state(&id, &k, &json!("two"), None).unwrap();
    // As if the process died after writing the version file of "two"
    // but before renaming the new state.json into place.
    std::fs::write(&path, &one).unwrap();
    let got = store.load_state(&id, &k).unwrap().unwrap();
    assert_eq!((got.value, got.version), (json!("one"), 1));
    // A save based on what was read goes through, with a new number.
    let v = store.save_state(&id, &k, &json!("three"), Some(1)).unwrap();
    assert!(v > 2, "version {v} was already given to another value");
    let got = store.load_state(&id, &k).unwrap().unwrap();
    assert_eq!((got.value, got.version), (json!("three"), v));
}

#[test]
fn a_state_edited_by_hand_is_a_new_version() {
    let (_tmp, store) = store();
    let id = new_session(&store, "a", t0());
    let k = StateKey::state();
    store.save_state(&id, &k, &json!(1), None).unwrap();
    std::fs::write(
        store.session_dir(&id).join("state.json"),
        "{\"edited\":true}",
    )
    .unwrap();
    let got = store.load_state(&id, &k).unwrap().unwrap();
    assert_eq!((got.value, got.version), (json!({"edited": true}), 2));
    assert!(matches!(
        store.save_state(&id, &k, &json!(3), Some(1)),
        Err(StoreError::Conflict { actual: 2, .. })
    ));
    // Corrupt JSON is an error naming the file, not a panic.
    std::fs::write(store.session_dir(&id).join("state.json"), "{\"torn\":").unwrap();
    let e = store.load_state(&id, &k).unwrap_err();
    assert!(matches!(e, StoreError::Corrupt { .. }), "{e}");
    assert!(e.to_string().contains("state.json"), "{e}");
}

#[test]
fn a_torn_list_line_is_kept_and_the_next_items_start_on_their_own_line() {
    let (_tmp, store) = store();
    let id = new_session(&store, "a", t0());
    let k = StateKey::parse("memory_messages").unwrap();
    store.append_list(&id, &k, &[json!(1)]).unwrap();
    let path = store.session_dir(&id).join("memory_messages.jsonl");
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(b"{\"cut\":").unwrap();
    drop(f);
    store.append_list(&id, &k, &[json!(2)]).unwrap();
    assert_eq!(store.read_list(&id, &k).unwrap(), [json!(1), json!(2)]);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "1\n{\"cut\":\n2\n");
}

#[test]
fn folders_that_are_not_sessions_are_skipped_reported_and_kept() {
    let (_tmp, store) = store();
    let good = new_session(&store, "a", t0());
    let root = store.root();
    std::fs::create_dir(root.join("no-meta")).unwrap();
    std::fs::create_dir(root.join("bad-json")).unwrap();
    std::fs::write(root.join("bad-json/meta.json"), "{not json").unwrap();
    std::fs::create_dir(root.join("not.an.id")).unwrap();
    std::fs::write(root.join("notes.txt"), "x").unwrap();
    std::fs::create_dir(root.join(".hidden")).unwrap();
    let page = store.list(&ListQuery::default()).unwrap();
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.items[0].session_id, good);
    let w = page.warnings.join("\n");
    for name in ["no-meta", "bad-json", "not.an.id", "notes.txt"] {
        assert!(w.contains(name), "no warning for {name}:\n{w}");
    }
    assert!(!w.contains(".hidden"), "{w}");
    assert!(w.contains("no meta.json"), "{w}");
    // Nothing was removed.
    assert_eq!(
        names(root),
        [
            ".activity",
            ".hidden",
            "bad-json",
            good.as_str(),
            "no-meta",
            "not.an.id",
            "notes.txt"
        ]
        .map(String::from)
        .into_iter()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>()
    );
}

fn index(store: &FsStore) -> Vec<String> {
    names(&store.root().join(".activity"))
}

fn ids(store: &FsStore) -> Vec<SessionId> {
    let page = store.list(&ListQuery::default()).unwrap();
    page.items.into_iter().map(|m| m.session_id).collect()
}

#[test]
fn the_activity_index_follows_touches() {
    let (_tmp, store) = store();
    let a = new_session(&store, "a", t0());
    let b = new_session(&store, "a", t0() + Duration::hours(1));
    assert_eq!(index(&store).len(), 2);
    store.touch(&a, t0() + Duration::hours(2)).unwrap();
    let idx = index(&store);
    assert_eq!(idx.len(), 2, "the old name is gone: {idx:?}");
    assert!(idx.iter().any(|n| n.ends_with(a.as_str())));
    assert_eq!(ids(&store), [a.clone(), b.clone()]);
    assert!(store.delete(&a).unwrap());
    assert_eq!(index(&store).len(), 1);
}

#[test]
fn a_lost_stale_or_wrong_index_is_put_right_by_the_metas() {
    let (_tmp, store) = store();
    let a = new_session(&store, "a", t0());
    let b = new_session(&store, "a", t0() + Duration::hours(1));
    let c = new_session(&store, "a", t0() + Duration::hours(2));
    let idx = store.root().join(".activity");
    // Lost (a crash, a copy of the folders without it): `a` has no name.
    let a_name = index(&store)
        .into_iter()
        .find(|n| n.ends_with(a.as_str()))
        .unwrap();
    std::fs::remove_file(idx.join(&a_name)).unwrap();
    // Stale: `c` has a second, older name (a touch cut short).
    std::fs::write(idx.join(format!("{:020}.{c}", 5)), "").unwrap();
    // A session deleted half-way: a name and no folder.
    std::fs::write(idx.join(format!("{:020}.{}", 7, SessionId::new())), "").unwrap();
    assert_eq!(ids(&store), [c.clone(), b.clone(), a.clone()]);
    assert_eq!(index(&store).len(), 3, "{:?}", index(&store));
    // Wrong: `b`'s meta edited by hand to be the newest.
    let meta_path = store.session_dir(&b).join("meta.json");
    let mut meta: Value = read_json(&meta_path);
    meta["last_active_time"] = json!("2030-01-01T00:00:00Z");
    std::fs::write(&meta_path, meta.to_string()).unwrap();
    let _ = ids(&store); // reads b's meta and puts its name right
    assert_eq!(ids(&store), [b, c, a]);
    assert_eq!(index(&store).len(), 3);
}

#[test]
fn two_stores_in_one_process_are_two_writers() {
    let (_tmp, a) = store();
    let b = FsStore::open(a.root()).unwrap();
    let id = new_session(&a, "a", t0());
    let held = a.lock(&id).unwrap();
    let e = b.lock(&id).err().expect("the second writer is refused");
    let text = e.to_string();
    assert!(matches!(e, StoreError::SessionBusy { .. }), "{text}");
    assert!(
        text.contains(".lock"),
        "the error names the lock file: {text}"
    );
    assert!(
        text.contains(&format!("pid {}", std::process::id())),
        "{text}"
    );
    drop(held);
    drop(b.lock(&id).unwrap());
}

/// The child's side of `a_writer_in_another_process_is_refused`: holds the
/// lock until its stdin closes.
#[test]
fn lock_holder_child() {
    let Ok(spec) = std::env::var("RETRACE_LOCK_CHILD") else {
        return; // run as a normal test: nothing to do
    };
    let (root, id) = spec.split_once('|').unwrap();
    let store = FsStore::open(root).unwrap();
    let _lock = store.lock(&SessionId::parse(id).unwrap()).unwrap();
    println!("LOCKED");
    std::io::stdout().flush().unwrap();
    let mut sink = String::new();
    let _ = std::io::stdin().read_line(&mut sink);
}

#[test]
fn a_writer_in_another_process_is_refused() {
    let (_tmp, store) = store();
    let id = new_session(&store, "a", t0());
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "lock_holder_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(
            "RETRACE_LOCK_CHILD",
            format!("{}|{}", store.root().display(), id),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("LOCKED") {
        line.clear();
        assert_ne!(
            out.read_line(&mut line).unwrap(),
            0,
            "the child ended without locking"
        );
    }
    let e = store.lock(&id).err().expect("the other process holds it");
    assert!(matches!(e, StoreError::SessionBusy { .. }), "{e}");
    assert!(
        e.to_string().contains(&format!("pid {}", child.id())),
        "{e}"
    );
    assert!(matches!(
        store.delete(&id),
        Err(StoreError::SessionBusy { .. })
    ));
    drop(child.stdin.take()); // the child lets go and ends
    assert!(child.wait().unwrap().success());
    drop(store.lock(&id).unwrap());
}

#[test]
fn delete_removes_the_folder_and_leaves_nothing() {
    let (_tmp, store) = store();
    let keep = new_session(&store, "a", t0());
    let id = new_session(&store, "a", t0());
    store
        .save_state(&id, &StateKey::state(), &json!(1), None)
        .unwrap();
    assert!(store.delete(&id).unwrap());
    assert_eq!(
        names(store.root()),
        [".activity".to_owned(), keep.to_string()]
    );
}

#[test]
fn ids_from_outside_never_become_paths() {
    let (tmp, store) = store();
    std::fs::write(tmp.path().join("secret.json"), "{}").unwrap();
    for bad in [
        "..",
        "../secret",
        "..\\secret",
        "/etc",
        "a/../..",
        "",
        "a\0",
    ] {
        let e = bad.parse::<SessionId>().unwrap_err();
        assert!(matches!(e, StoreError::InvalidId { .. }), "{bad:?}");
    }
    // The only way in is a parsed id, so the store's folder holds all.
    let id: SessionId = "plain-id_1".parse().unwrap();
    assert!(!store.exists(&id).unwrap());
    assert!(store.session_dir(&id).starts_with(store.root()));
}

#[test]
fn a_removed_index_is_rebuilt_from_the_metas() {
    let (_tmp, store) = store();
    let a = new_session(&store, "a", t0());
    let b = new_session(&store, "a", t0() + Duration::hours(1));
    std::fs::remove_dir_all(store.root().join(".activity")).unwrap();
    assert_eq!(ids(&store), [b.clone(), a.clone()]);
    assert_eq!(index(&store).len(), 2);
    // And a store opened on it again lists the same.
    let again = FsStore::open(store.root()).unwrap();
    assert_eq!(ids(&again), [b, a]);
}
