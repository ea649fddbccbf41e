//! The event log on real files.

use std::fs;
use std::path::Path;

use chrono::{DateTime, TimeZone, Utc};
use retrace_core::{
    order_files, part_file_name, Event, EventData, EventType, Format, Listing, ToolCall, UserInput,
};
use serde_json::json;

use super::*;

fn at(i: u64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_700_000_000 + i as i64, 0).unwrap()
}

/// Event `i`, with `pad` bytes of payload (so sizes vary).
fn event(i: u64, pad: usize) -> Event {
    let data = if i.is_multiple_of(2) {
        EventData::UserInput(UserInput {
            message: json!(format!("m{i} {}", "x".repeat(pad))),
            ..Default::default()
        })
    } else {
        EventData::ToolCall(ToolCall {
            tool_name: format!("t{i}"),
            parameters: json!({"pad": "y".repeat(pad)}),
            ..Default::default()
        })
    };
    Event::new(at(i), data)
}

fn id_of(e: &Event) -> String {
    match &e.data {
        EventData::UserInput(d) => {
            d.message.as_str().unwrap().split(' ').next().unwrap()[1..].into()
        }
        EventData::ToolCall(d) => d.tool_name[1..].to_owned(),
        other => panic!("{other:?}"),
    }
}

fn open_log(dir: &Path, limit: u64) -> Appender {
    Appender::open(
        dir,
        &LogOptions {
            rotate_bytes: limit,
            gzip_rotated: false,
        },
    )
    .unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn ids(read: &EventsRead) -> Vec<u64> {
    read.events
        .iter()
        .map(|e| id_of(&e.event).parse().unwrap())
        .collect()
}

/// Appends events 0..n in batches of `per`, sizes varying.
fn write(dir: &Path, limit: u64, n: u64, per: usize) -> Appender {
    let mut log = open_log(dir, limit);
    let events: Vec<EncodedEvent> = (0..n)
        .map(|i| encode(&event(i, (i as usize * 37) % 300)).unwrap())
        .collect();
    for batch in events.chunks(per) {
        log.append(batch).unwrap();
    }
    log.sync().unwrap();
    log
}

#[test]
fn an_empty_folder_reads_as_no_events() {
    let dir = tempfile::tempdir().unwrap();
    let read = read::read(dir.path()).unwrap();
    assert!(read.events.is_empty() && read.problems.is_empty());
    assert!(repair::repair(dir.path()).unwrap().is_empty());
    assert!(read::pop(dir.path()).unwrap().is_none());
}

#[test]
fn rotation_never_splits_loses_or_duplicates_an_event() {
    let dir = tempfile::tempdir().unwrap();
    let limit = 1_000;
    let log = write(dir.path(), limit, 200, 7);
    assert!(log.part() > 5, "only {} parts", log.part() + 1);
    assert_eq!(log.rotation_pauses().len() as u32, log.part());
    drop(log);
    let parts = parts(dir.path()).unwrap();
    for (k, part) in parts.iter().enumerate() {
        assert_eq!(part.n as usize, k, "parts are numbered without a gap");
        let bytes = fs::read(part.file()).unwrap();
        assert!(
            bytes.len() as u64 <= limit,
            "{} has {}",
            part.name(),
            bytes.len()
        );
        assert!(bytes.ends_with(b"\n"), "{} ends mid-line", part.name());
    }
    let read = read::read(dir.path()).unwrap();
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    assert_eq!(ids(&read), (0..200).collect::<Vec<_>>());
    assert!(read
        .events
        .iter()
        .enumerate()
        .all(|(i, e)| e.seq == i as u64));

    // Reopened, the log continues in its last part.
    let mut log = open_log(dir.path(), limit);
    assert_eq!(log.part(), parts.last().unwrap().n);
    log.append(&[encode(&event(200, 0)).unwrap()]).unwrap();
    drop(log);
    assert_eq!(
        ids(&read::read(dir.path()).unwrap()),
        (0..=200).collect::<Vec<_>>()
    );
}

#[test]
fn an_event_larger_than_the_limit_goes_alone_into_a_part() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = open_log(dir.path(), 500);
    let batch: Vec<EncodedEvent> = [(0, 10), (1, 2_000), (2, 10)]
        .iter()
        .map(|&(i, pad)| encode(&event(i, pad)).unwrap())
        .collect();
    log.append(&batch).unwrap();
    drop(log);
    assert_eq!(
        names(dir.path()),
        ["events.jsonl", "events_1.jsonl", "events_2.jsonl"]
    );
    let big = fs::read(dir.path().join("events_1.jsonl")).unwrap();
    assert_eq!(big, batch[1].line);
    assert_eq!(ids(&read::read(dir.path()).unwrap()), [0, 1, 2]);
}

#[test]
fn the_core_reads_the_parts_as_one_stream() {
    let dir = tempfile::tempdir().unwrap();
    let n = 150;
    let log = write(dir.path(), 2_000, n, 5);
    assert!(log.part() >= 3);
    drop(log);
    core_reads_one_stream(dir.path(), n);
}

/// The folder read by the core (the CLI's and the viewer's reader): one
/// linear stream of `n` events, types in order, no diagnostic.
fn core_reads_one_stream(dir: &Path, n: u64) {
    let listing = names(dir);
    let inputs: Vec<retrace_io::Input> = order_files(&listing, Listing::Folder)
        .into_iter()
        .map(|f| retrace_io::Input::new(dir.join(&listing[f.file])))
        .collect();
    assert_eq!(inputs.len(), listing.len());
    let session =
        retrace_io::open_files(&inputs, &retrace_io::OpenOptions::default(), None).unwrap();
    assert_eq!(session.format(), Format::Events);
    assert!(
        session.diagnostics().is_empty(),
        "{:?}",
        session.diagnostics()
    );
    let leaf = session.tree().default_leaf().unwrap();
    let path = session.tree().path(leaf);
    assert_eq!(path.len() as u64, n, "one linear stream over every part");
    let kinds: Vec<&str> = path.iter().map(|&e| session.kind(e)).collect();
    let want: Vec<&str> = (0..n).map(|i| event(i, 0).event_type().as_str()).collect();
    assert_eq!(kinds, want);
}

#[test]
fn a_torn_tail_is_cut_kept_aside_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    drop(write(dir.path(), 1_000, 40, 3));
    let last = parts(dir.path()).unwrap().pop().unwrap();
    let path = last.plain.clone().unwrap();
    let before = fs::read(&path).unwrap();
    let torn = br#"{"event_type":"user_input","timestamp":"2025-0"#;
    let mut bytes = before.clone();
    bytes.extend_from_slice(torn);
    fs::write(&path, &bytes).unwrap();

    // No appending after a torn line: the next event would be glued to it.
    let err = Appender::open(dir.path(), &LogOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("repair the log"), "{err}");

    // Read before repair: reported, not read, nothing else lost.
    let read = read::read(dir.path()).unwrap();
    assert_eq!(ids(&read), (0..40).collect::<Vec<_>>());
    assert_eq!(read.problems.len(), 1, "{:?}", read.problems);
    assert!(read.problems[0].message.contains("no newline"));

    let problems = repair::repair(dir.path()).unwrap();
    assert_eq!(problems.len(), 1, "{problems:?}");
    let p = &problems[0];
    assert_eq!(p.file, part_file_name(last.n));
    assert_eq!(p.offset, before.len() as u64);
    assert_eq!(
        p.line,
        before.iter().filter(|&&b| b == b'\n').count() as u64 + 1
    );
    assert!(p.message.contains(&torn_name(last.n)), "{}", p.message);
    assert_eq!(fs::read(&path).unwrap(), before);
    let car = dir.path().join(torn_name(last.n));
    let mut want = torn.to_vec();
    want.push(b'\n');
    assert_eq!(fs::read(&car).unwrap(), want);
    let read = read::read(dir.path()).unwrap();
    assert!(read.problems.is_empty());
    assert_eq!(ids(&read), (0..40).collect::<Vec<_>>());

    // Nothing more to do.
    assert!(repair::repair(dir.path()).unwrap().is_empty());

    // A second crash: its cut goes after the first, both kept.
    let mut bytes = before.clone();
    bytes.extend_from_slice(b"\0\0\0\0{\"ev");
    fs::write(&path, &bytes).unwrap();
    assert_eq!(repair::repair(dir.path()).unwrap().len(), 1);
    want.extend_from_slice(b"\0\0\0\0{\"ev\n");
    assert_eq!(fs::read(&car).unwrap(), want);

    // A repair cut off after the side-car's sync, before the truncation:
    // the cut is found there already and not added twice.
    fs::write(&path, &bytes).unwrap();
    let problems = repair::repair(dir.path()).unwrap();
    assert!(problems[0].message.contains("already in"), "{problems:?}");
    assert_eq!(fs::read(&car).unwrap(), want);
    assert_eq!(fs::read(&path).unwrap(), before);
}

#[test]
fn nul_runs_are_skipped_and_reported_and_bad_lines_reported() {
    let dir = tempfile::tempdir().unwrap();
    let line = |i| encode(&event(i, 3)).unwrap().line;
    let mut bytes = line(0);
    let nul_at = bytes.len();
    bytes.extend_from_slice(&[0; 300]);
    bytes.extend_from_slice(&line(1));
    let bad_at = bytes.len();
    bytes.extend_from_slice(b"{\"event_type\":\"dance\",\"timestamp\":0}\n");
    bytes.extend_from_slice(b"\n");
    bytes.extend_from_slice(&line(2));
    fs::write(dir.path().join("events.jsonl"), &bytes).unwrap();

    let read = read::read(dir.path()).unwrap();
    assert_eq!(ids(&read), [0, 1, 2]);
    assert_eq!(read.problems.len(), 2, "{:?}", read.problems);
    let nul = &read.problems[0];
    assert_eq!(
        (nul.file.as_str(), nul.line, nul.offset),
        ("events.jsonl", 2, nul_at as u64)
    );
    assert!(nul.message.contains("300 NUL bytes"), "{}", nul.message);
    let bad = &read.problems[1];
    assert_eq!((bad.line, bad.offset), (3, bad_at as u64));
    assert!(bad.message.contains("not an event") && bad.message.contains("dance"));

    // Repair reports the NUL run and changes nothing (no torn tail).
    let problems = repair::repair(dir.path()).unwrap();
    assert_eq!(problems.len(), 1);
    assert_eq!((problems[0].line, problems[0].offset), (2, nul_at as u64));
    assert_eq!(fs::read(dir.path().join("events.jsonl")).unwrap(), bytes);
}

#[test]
fn pop_takes_the_last_event_across_parts() {
    let dir = tempfile::tempdir().unwrap();
    drop(write(dir.path(), 600, 30, 4));
    let parts_before = parts(dir.path()).unwrap().len();
    for want in (25..30).rev() {
        let got = read::pop(dir.path()).unwrap().unwrap();
        assert_eq!(id_of(&got.event), want.to_string());
        assert_eq!(got.seq, want);
        assert_eq!(got.event, event(want, (want as usize * 37) % 300));
    }
    assert_eq!(
        ids(&read::read(dir.path()).unwrap()),
        (0..25).collect::<Vec<_>>()
    );
    // Down to nothing, emptied parts removed on the way.
    for _ in 0..25 {
        assert!(read::pop(dir.path()).unwrap().is_some());
    }
    assert!(read::pop(dir.path()).unwrap().is_none());
    assert!(parts_before > 2);
    assert_eq!(names(dir.path()), ["events.jsonl"]);
    // And the log takes new events.
    drop(write(dir.path(), 600, 3, 1));
    assert_eq!(ids(&read::read(dir.path()).unwrap()), [0, 1, 2]);
}

#[test]
fn pop_refuses_a_line_that_is_not_an_event() {
    let dir = tempfile::tempdir().unwrap();
    drop(write(dir.path(), 10_000, 2, 2));
    let path = dir.path().join("events.jsonl");
    let mut bytes = fs::read(&path).unwrap();
    bytes.extend_from_slice(b"not json\n");
    fs::write(&path, &bytes).unwrap();
    let err = read::pop(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("events.jsonl line 3") && err.contains("not an event"),
        "{err}"
    );
    assert_eq!(fs::read(&path).unwrap(), bytes);
    bytes.extend_from_slice(b"{\"torn");
    fs::write(&path, &bytes).unwrap();
    let err = read::pop(dir.path()).unwrap_err().to_string();
    assert!(err.contains("repair"), "{err}");
}

#[test]
fn rotated_parts_can_be_kept_gzipped() {
    let dir = tempfile::tempdir().unwrap();
    let options = LogOptions {
        rotate_bytes: 1_000,
        gzip_rotated: true,
    };
    let mut log = Appender::open(dir.path(), &options).unwrap();
    let events: Vec<EncodedEvent> = (0..60).map(|i| encode(&event(i, 50)).unwrap()).collect();
    for batch in events.chunks(3) {
        log.append(batch).unwrap();
    }
    let last = log.part();
    drop(log); // waits for the compression
    let names = names(dir.path());
    assert_eq!(names.len() as u32, last + 1, "{names:?}");
    for n in 0..last {
        assert!(
            names.contains(&format!("{}.gz", part_file_name(n))),
            "{names:?}"
        );
    }
    assert!(names.contains(&part_file_name(last)));
    let read = read::read(dir.path()).unwrap();
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    assert_eq!(ids(&read), (0..60).collect::<Vec<_>>());
    core_reads_one_stream(dir.path(), 60);

    // A crash between the rename and the removal leaves both: read once,
    // and repair keeps the complete `.gz`.
    let gz = dir.path().join("events_1.jsonl.gz");
    let plain = dir.path().join("events_1.jsonl");
    let mut bytes = Vec::new();
    gzip::read_gz_partial(&gz, &mut bytes).unwrap();
    fs::write(&plain, &bytes).unwrap();
    fs::write(dir.path().join("events_2.jsonl.gz.tmp"), b"half").unwrap();
    assert_eq!(
        ids(&read::read(dir.path()).unwrap()),
        (0..60).collect::<Vec<_>>()
    );
    let problems = repair::repair(dir.path()).unwrap();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(!plain.exists() && gz.exists());
    assert!(!dir.path().join("events_2.jsonl.gz.tmp").exists());
    assert_eq!(
        ids(&read::read(dir.path()).unwrap()),
        (0..60).collect::<Vec<_>>()
    );

    // Pop reaches back into gzipped parts.
    for want in (0..60).rev() {
        let got = read::pop(dir.path()).unwrap().unwrap();
        assert_eq!(id_of(&got.event), want.to_string());
    }
    assert!(read::read(dir.path()).unwrap().events.is_empty());
}

#[test]
fn an_event_type_survives_the_line() {
    let e = encode(&event(4, 0)).unwrap();
    assert_eq!(e.event_type, EventType::UserInput);
    assert_eq!(e.timestamp, at(4));
    assert!(e.line.ends_with(b"\n") && !e.line[..e.line.len() - 1].contains(&b'\n'));
}
