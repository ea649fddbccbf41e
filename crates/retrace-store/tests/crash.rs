//! Crash test: a process records events in durable mode through a file
//! store and saves state, and is killed with SIGKILL at random moments,
//! again and again on one session (the realistic case: an agent that
//! crashes and is resumed). After each kill the session must open; every
//! event acknowledged after `sync()` must be there, in order, once; at
//! most one torn line is reported, and its bytes are in the side-car
//! (kills never tear a line; the test adds what a power cut would, one
//! kill in six);
//! `state.json` is the old or the new value, never torn.
//!
//! The child is this test binary itself, run with `RETRACE_CRASH_CHILD`
//! set on the `child` test. `RETRACE_CRASH_KILLS` (default 200) and
//! `RETRACE_CRASH_SEED` change the run.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use retrace_core::{EventData, LlmCall, UserInput};
use retrace_store::{
    Durability, FsStore, LogOptions, Recorder, RecorderOptions, SessionId, SessionMeta,
    SessionStore, StateKey,
};
use serde_json::{json, Map, Value};

const CHILD: &str = "RETRACE_CRASH_CHILD";

/// The two values the child saves in turn: big enough that a torn write
/// would not parse as either.
fn state_value(which: u64) -> Value {
    let c = if which.is_multiple_of(2) { "a" } else { "b" };
    json!({"which": c, "pad": c.repeat(20_000)})
}

/// Event `seq`: its number in its text, so order, loss and duplicates show.
fn event(seq: u64) -> EventData {
    let tag = format!("e{seq}");
    if seq.is_multiple_of(3) {
        EventData::LlmCall(LlmCall {
            prompt: json!(tag),
            response: json!("x".repeat((seq % 7) as usize * 40)),
            ..Default::default()
        })
    } else {
        EventData::UserInput(UserInput {
            message: json!(tag),
            ..Default::default()
        })
    }
}

fn tag(d: &EventData) -> &str {
    match d {
        EventData::LlmCall(d) => d.prompt.as_str().unwrap_or(""),
        EventData::UserInput(d) => d.message.as_str().unwrap_or(""),
        _ => "",
    }
}

/// Durable, small parts (so kills also land around rotations), rotated
/// parts gzipped or not (so kills also land in a compression).
fn options(gzip: bool) -> RecorderOptions {
    RecorderOptions {
        durability: Durability::Durable,
        log: LogOptions {
            rotate_bytes: 16 << 10,
            gzip_rotated: gzip,
        },
        ..Default::default()
    }
}

/// A small random generator (xorshift64*), seeded.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The recording process: records, syncs, says what is acknowledged, saves
/// state; until it is killed.
#[test]
fn child() {
    let (Ok(root), Ok(id)) = (std::env::var(CHILD), std::env::var("RETRACE_CRASH_ID")) else {
        return; // run as a test on its own: nothing to do
    };
    let store = Arc::new(FsStore::open(root).unwrap());
    let id = SessionId::parse(&id).unwrap();
    let gzip = std::env::var("RETRACE_CRASH_GZIP").is_ok_and(|g| g == "1");
    let recorder = Recorder::open(store.clone(), &id, options(gzip)).unwrap();
    println!("READY");
    // Spread (xorshift's first draws from close seeds are alike).
    let mut rng = Rng((recorder.next_seq() + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let key = StateKey::state();
    loop {
        for _ in 0..1 + rng.below(12) {
            let seq = recorder.next_seq();
            assert_eq!(recorder.record(event(seq)).unwrap(), seq);
        }
        recorder.sync().unwrap();
        println!("ACK {}", recorder.next_seq() - 1);
        if rng.below(3) == 0 {
            let version = store.save_state(&id, &key, &state_value(rng.next()), None);
            println!("STATE {}", version.unwrap());
        }
    }
}

#[test]
fn killed_at_random_moments_the_session_always_opens_whole() {
    if std::env::var(CHILD).is_ok() {
        return;
    }
    let kills: u64 = std::env::var("RETRACE_CRASH_KILLS")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(200);
    let seed: u64 = std::env::var("RETRACE_CRASH_SEED")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(0x5eed_cafe);
    let mut rng = Rng(seed | 1);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    let store = Arc::new(FsStore::open(&root).unwrap());
    let at = chrono::Utc::now();
    let meta = SessionMeta {
        session_id: SessionId::new(),
        agent_config: "crash".into(),
        create_time: at,
        last_active_time: at,
        extra: Map::new(),
    };
    store.create(&meta, &json!({})).unwrap();
    let id = meta.session_id;
    let session = store.session_dir(&id);
    let exe = std::env::current_exe().unwrap();
    let started = Instant::now();
    // The highest number ever acknowledged, and what the kills found.
    let mut acked: Option<u64> = None;
    let (mut torn_seen, mut max_parts, mut states, mut gzip_repairs) = (0, 0, 0, 0);
    for kill in 0..kills {
        let mut child = Command::new(&exe)
            .args(["--exact", "child", "--nocapture", "--test-threads=1"])
            .env(CHILD, &root)
            .env("RETRACE_CRASH_ID", id.as_str())
            .env("RETRACE_CRASH_GZIP", if kill % 2 == 1 { "1" } else { "0" })
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        // Three kills in four wait until the child has opened the session,
        // so a loaded machine's slow start does not turn every kill into a
        // kill during start-up; the fourth may land there (in the repair).
        if rng.below(4) != 0 {
            // (The test harness writes first, and `test child ... ` before it.)
            let mut line = String::new();
            while !line.ends_with("READY\n") {
                line.clear();
                let n = out.read_line(&mut line).unwrap();
                assert!(n > 0, "kill {kill}: the child ended before it was ready");
            }
        }
        std::thread::sleep(Duration::from_micros(2_000 + rng.below(30_000)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        for line in out.lines() {
            let line = line.unwrap();
            if let Some(n) = line.strip_prefix("ACK ") {
                let n: u64 = n.parse().unwrap();
                acked = Some(acked.map_or(n, |a| a.max(n)));
            } else if line.starts_with("STATE ") {
                states += 1;
            }
        }

        // The part written last: the highest number (always plain).
        let last = std::fs::read_dir(&session)
            .unwrap()
            .filter_map(|e| retrace_core::part_of_file_name(&e.ok()?.file_name().to_string_lossy()))
            .max()
            .unwrap();
        let last_part = session.join(retrace_core::part_file_name(last));
        // A kill never tears a line (each batch is one `write`, which the
        // kernel finishes); a power cut can. One kill in six adds what it
        // would leave: the start of a line, sometimes zeros first.
        if rng.below(6) == 0 {
            let line = serde_json::to_vec(&retrace_core::Event::new(at, event(7))).unwrap();
            let mut torn = vec![
                0u8;
                if rng.below(2) == 0 {
                    0
                } else {
                    1 + rng.below(300) as usize
                }
            ];
            torn.extend_from_slice(&line[..1 + rng.below(line.len() as u64 - 1) as usize]);
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&last_part)
                .unwrap();
            std::io::Write::write_all(&mut f, &torn).unwrap();
        }
        // What a torn tail is: the bytes after the last newline of the last
        // part, before anything repairs it.
        let bytes = std::fs::read(&last_part).unwrap();
        let tail_at = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let tail = bytes[tail_at..].to_vec();
        let car = last_part.with_extension("jsonl.torn");
        let car_before = std::fs::read(&car).unwrap_or_default();

        // The session opens (this repairs it), and says what it cut.
        let recorder = Recorder::open(store.clone(), &id, options(kill % 2 == 1))
            .unwrap_or_else(|e| panic!("kill {kill}: the session does not open: {e}"));
        let repairs = recorder.repairs().to_vec();
        let next = recorder.next_seq();
        drop(recorder);
        // Besides a torn line, only a compression cut short is repaired.
        let (torn, others): (Vec<_>, Vec<_>) = repairs
            .into_iter()
            .partition(|r| r.message.contains("torn last line"));
        assert!(
            others
                .iter()
                .all(|r| r.message.contains("gzip") && r.file.contains(".gz")
                    || r.message.contains("complete copy")),
            "kill {kill}: {others:?}"
        );
        gzip_repairs += others.len();
        assert!(torn.len() <= 1, "kill {kill}: {torn:?}");
        if tail.is_empty() {
            assert!(torn.is_empty(), "kill {kill}: {torn:?}");
        } else {
            torn_seen += 1;
            let r = &torn[0];
            assert!(r.message.contains("torn last line"), "kill {kill}: {r:?}");
            assert_eq!(r.offset, tail_at as u64);
            let mut want = car_before.clone();
            want.extend_from_slice(&tail);
            want.push(b'\n');
            assert_eq!(std::fs::read(&car).unwrap(), want, "kill {kill}: side-car");
        }

        // Every acknowledged event, in order, once; nothing unreadable.
        let read = store.read_events(&id).unwrap();
        assert!(read.problems.is_empty(), "kill {kill}: {:?}", read.problems);
        assert_eq!(read.events.len() as u64, next);
        for (i, e) in read.events.iter().enumerate() {
            assert_eq!(
                tag(&e.event.data),
                format!("e{i}"),
                "kill {kill}: event {i}"
            );
        }
        if let Some(a) = acked {
            assert!(
                next > a,
                "kill {kill}: event {a} was acknowledged, the log has {next}"
            );
        }

        // The state is one of the two values whole, or was never saved.
        if let Some(v) = store.load_state(&id, &StateKey::state()).unwrap() {
            assert!(
                v.value == state_value(0) || v.value == state_value(1),
                "kill {kill}: state torn"
            );
            let raw = std::fs::read(session.join("state.json")).unwrap();
            let parsed: Value = serde_json::from_slice(&raw).unwrap();
            assert_eq!(parsed, v.value);
        }
        max_parts = max_parts.max(
            std::fs::read_dir(&session)
                .unwrap()
                .filter(|e| {
                    let name = e.as_ref().unwrap().file_name();
                    retrace_core::part_of_file_name(&name.to_string_lossy()).is_some()
                })
                .count(),
        );
    }
    eprintln!(
        "{kills} kills in {:.1?}: {} events acknowledged, {torn_seen} torn tails repaired, \
         {gzip_repairs} gzips cut short put right, {max_parts} parts, {states} state saves",
        started.elapsed(),
        acked.map_or(0, |a| a + 1)
    );
    // The run meant something: events were acknowledged across kills and
    // the log rotated.
    assert!(
        acked.is_some_and(|a| a > kills),
        "too few events: {acked:?}"
    );
    assert!(max_parts > 1);
    assert!(torn_seen > 0 || kills < 20, "no torn tail was repaired");
    assert!(states > 0 || kills < 20, "the state was never saved");
}
