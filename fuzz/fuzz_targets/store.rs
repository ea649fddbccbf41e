//! The store's event reader and repair on any log: the input's bytes as a
//! session's `events.jsonl` (or split over `events.jsonl`,
//! `events_1.jsonl`, `events_2.jsonl`, earlier parts maybe gzipped), on a
//! file store in `/dev/shm` (or the temporary folder). Beyond no panic:
//!
//! - reading: every piece of every line (between NUL runs, not blank) is
//!   an event whose `line` is that piece byte for byte, in order, or a
//!   problem names its file and line; a last line without its newline is
//!   a problem, never an event; events are numbered from 0; each event
//!   survives serde (`Event` written and read back is the same);
//! - repair: the last part is cut at its last newline, what was cut is the
//!   `.torn` side-car's line, earlier parts are untouched, and reading
//!   again gives the same events; a second repair changes nothing.
//!
//! Control bytes: [0] parts and which earlier ones are gzipped, [1] and
//! [2] where the parts are cut.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use retrace_core::{part_file_name, Event};
use retrace_store::{FsStore, SessionId, SessionMeta, SessionStore};

struct Fixture {
    store: FsStore,
    id: SessionId,
    dir: PathBuf,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let base = Path::new("/dev/shm");
        let base = if base.is_dir() {
            base.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let root = base.join(format!("retrace-fuzz-store-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let store = FsStore::open(&root).expect("a store");
        let at = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let id = SessionId::new();
        let meta = SessionMeta {
            session_id: id.clone(),
            agent_config: "fuzz".into(),
            create_time: at,
            last_active_time: at,
            extra: serde_json::Map::new(),
        };
        store
            .create(&meta, &serde_json::json!({}))
            .expect("a session");
        let dir = store.session_dir(&id);
        Fixture { store, id, dir }
    })
}

fn gzip(plain: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    out.extend(miniz_oxide::deflate::compress_to_vec(plain, 1));
    out.extend(crc32fast::hash(plain).to_le_bytes());
    out.extend((plain.len() as u32).to_le_bytes());
    out
}

/// What a file of the log holds, for the checks.
struct Part<'a> {
    name: String,
    bytes: &'a [u8],
}

fn log_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with("events"))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fuzz_target!(|data: &[u8]| {
    let (control, bytes) = retrace_fuzz::split(data);
    let f = fixture();
    for (name, _) in log_files(&f.dir) {
        std::fs::remove_file(f.dir.join(name)).unwrap();
    }
    let count = 1 + usize::from(control[0] % 3);
    let mut cuts = vec![0, bytes.len()];
    for c in &control[1..count] {
        cuts.push(usize::from(*c) * bytes.len() / 256);
    }
    cuts.sort();
    let mut parts = Vec::new();
    for (n, w) in cuts.windows(2).enumerate() {
        let name = part_file_name(n as u32);
        let piece = &bytes[w[0]..w[1]];
        let last = n + 2 == cuts.len();
        if !last && control[0] & (8 << n) != 0 {
            std::fs::write(f.dir.join(format!("{name}.gz")), gzip(piece)).unwrap();
        } else {
            std::fs::write(f.dir.join(&name), piece).unwrap();
        }
        parts.push(Part { name, bytes: piece });
    }
    let before = f.store.read_events(&f.id).expect("the log reads");
    for (i, e) in before.events.iter().enumerate() {
        assert_eq!(e.seq, i as u64, "events numbered in order");
        let json = serde_json::to_vec(&e.event).expect("an event serializes");
        let back: Event = serde_json::from_slice(&json).expect("an event reads back");
        assert_eq!(back, e.event, "an event changed through serde");
    }
    let mut events = before.events.iter();
    let mut next = events.next();
    for part in &parts {
        let mut at = 0;
        for (number, line) in part.bytes.split_inclusive(|&b| b == b'\n').enumerate() {
            let number = number as u64 + 1;
            let ended = line.ends_with(b"\n");
            let text = line.strip_suffix(b"\n").unwrap_or(line);
            let reported = |offset_at_least: u64| {
                before.problems.iter().any(|p| {
                    p.file.starts_with(&part.name)
                        && p.line == number
                        && p.offset >= offset_at_least
                        && p.offset <= (at + text.len()) as u64
                })
            };
            if !ended {
                assert!(
                    reported(at as u64),
                    "{}:{number}: a torn line is not reported",
                    part.name
                );
                // Not read as an event either: were it read, the events
                // would hold one that no piece below matches in order, and
                // the check after this loop fails. (Comparing it with the
                // next event here would flag a later, whole line with the
                // same bytes.)
            } else {
                for piece in text.split(|&b| b == 0) {
                    if piece.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    if next.is_some_and(|e| e.line == piece) {
                        next = events.next();
                    } else {
                        assert!(
                            reported(at as u64),
                            "{}:{number}: a piece is neither an event nor a problem: {:?}",
                            part.name,
                            String::from_utf8_lossy(piece)
                        );
                    }
                }
            }
            at += line.len();
        }
    }
    assert!(next.is_none(), "an event that is no piece of the log");

    let files = log_files(&f.dir);
    f.store.repair_events(&f.id).expect("repair");
    let repaired = log_files(&f.dir);
    let last = parts.last().expect("at least one part");
    let keep = last
        .bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    for (name, content) in &repaired {
        if *name == last.name {
            assert_eq!(
                content.as_slice(),
                &last.bytes[..keep],
                "the last part cut at its last newline"
            );
        } else if name.ends_with(".torn") {
            let mut want = last.bytes[keep..].to_vec();
            want.push(b'\n');
            assert_eq!(*name, format!("{}.torn", last.name), "the side-car's name");
            assert_eq!(*content, want, "the side-car holds the cut");
        } else {
            let old = files.iter().find(|(n, _)| n == name).expect("no new part");
            assert_eq!(content, &old.1, "{name} changed by repair");
        }
    }
    assert_eq!(
        repaired.iter().any(|(n, _)| n.ends_with(".torn")),
        keep < last.bytes.len(),
        "a side-car exactly when there was a torn tail"
    );
    let after = f.store.read_events(&f.id).expect("the log reads");
    let lines =
        |r: &retrace_store::EventsRead| r.events.iter().map(|e| e.line.clone()).collect::<Vec<_>>();
    assert_eq!(lines(&after), lines(&before), "repair changed the events");
    f.store.repair_events(&f.id).expect("repair again");
    assert_eq!(
        log_files(&f.dir),
        repaired,
        "a second repair changed the log"
    );
});
