//! A compaction of a recorded session: the core plans it and writes its
//! `compaction` event, the recorder records that event like any other,
//! and the store, the core's reader, the export and the player all read it
//! back as written.

use std::sync::Arc;

use retrace_core::{
    compact, compaction_plan, Budget, Event, EventData, LlmCall, MessageKind, Source, Stamp,
    ToolCall, UserInput,
};
use retrace_io::OpenOptions;
use retrace_store::{
    FsStore, LogOptions, PlayerOptions, Recorder, RecorderOptions, SessionManager, SessionPlayer,
    SessionStore,
};
use serde_json::{json, Map, Value};

#[test]
fn a_compaction_event_is_recorded_read_exported_and_played_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sessions");
    let store = Arc::new(FsStore::open(&root).unwrap());
    let manager = SessionManager::new(store.clone());
    let id = manager.create("agent", &json!({})).unwrap();
    // Small parts: the stream is split, and the first event kept is in an
    // earlier part than the one the compaction is appended to.
    let options = || RecorderOptions {
        log: LogOptions {
            rotate_bytes: 400,
            gzip_rotated: false,
        },
        ..RecorderOptions::default()
    };
    let recorder = Recorder::open(store.clone(), &id, options()).unwrap();
    for turn in 0..4 {
        recorder
            .record(EventData::UserInput(UserInput {
                message: json!(format!("step {turn}: list the files")),
                extra: Map::new(),
            }))
            .unwrap();
        recorder
            .record(EventData::LlmCall(LlmCall {
                prompt: json!("list the files"),
                response: json!("calling ls"),
                token_usage: Some(json!({"prompt_tokens": 10, "completion_tokens": 3})),
                duration: Some(0.5),
                extra: Map::new(),
            }))
            .unwrap();
        recorder
            .record(EventData::ToolCall(ToolCall {
                tool_name: "ls".into(),
                parameters: json!({"dir": "."}),
                output: json!(format!("a.txt b.txt ({turn})")),
                error: Value::Null,
                duration: None,
                extra: Map::from_iter([("id".to_owned(), json!(format!("call_{turn}")))]),
            }))
            .unwrap();
    }
    recorder.close().unwrap();
    let folder = root.join(id.as_str());
    assert!(
        folder.join("events_1.jsonl").is_file(),
        "the log was not split"
    );

    // The core plans and writes the compaction on the folder as read.
    let mut loaded = retrace_io::load(&folder, &OpenOptions::default()).unwrap();
    let session = &loaded.session;
    let leaf = session.tree().default_leaf().unwrap();
    let before = session.context(leaf, &mut loaded.source).unwrap();
    let plan = compaction_plan(session, &mut loaded.source, leaf, Budget::Messages(7)).unwrap();
    assert!(plan.fits && plan.kept_messages <= 7, "{plan:?}");
    let cut = session.entry(plan.cut);
    assert_ne!(cut.file, session.entry(leaf).file, "{plan:?}");
    let cut_line = loaded
        .source
        .read(cut.file, cut.range())
        .unwrap()
        .into_owned();
    let mut stamp = Stamp {
        time_ms: chrono::Utc::now().timestamp_millis(),
        new_id: &mut String::new,
    };
    let edited = compact(
        session,
        &mut loaded.source,
        &plan,
        "Listed the files.",
        &mut stamp,
    )
    .unwrap();
    let line = edited.bytes.strip_suffix(b"\n").unwrap();
    let event: Event = serde_json::from_slice(line).unwrap();

    // Recorded like any event, it is stored as the core wrote it, and
    // names the event the store numbers as the cut.
    let recorder = Recorder::open(store.clone(), &id, options()).unwrap();
    let seq = recorder.record_event(event.clone()).unwrap();
    recorder.close().unwrap();
    let read = store.read_events(&id).unwrap();
    assert!(read.problems.is_empty(), "{:?}", read.problems);
    let stored = read.events.last().unwrap();
    assert_eq!((stored.seq, stored.line.as_slice()), (seq, line));
    assert_eq!(stored.event, event);
    let EventData::Compaction(c) = &stored.event.data else {
        panic!("{:?}", stored.event)
    };
    let first = c.first_kept_event.unwrap();
    assert_eq!(read.events[first as usize].line, cut_line);

    // The core reads the session back as the summary, then the tail.
    let mut loaded = retrace_io::load(&folder, &OpenOptions::default()).unwrap();
    let session = &loaded.session;
    let leaf = session.tree().default_leaf().unwrap();
    let context = session.context(leaf, &mut loaded.source).unwrap();
    assert_eq!(context[0].kind, MessageKind::CompactionSummary);
    assert_eq!(context[0].text(), "Listed the files.");
    assert_eq!(&context[1..], &before[before.len() - plan.kept_messages..]);

    // Exported unchanged.
    let mut exported = Vec::new();
    manager.export(&id, false, &mut exported).unwrap();
    let last = exported[..exported.len() - 1]
        .rsplit(|&b| b == b'\n')
        .next()
        .unwrap();
    assert_eq!(last, line);

    // Played: a key step of its own.
    let options = PlayerOptions {
        fast: true,
        ..PlayerOptions::default()
    };
    let steps: Vec<_> = SessionPlayer::load(&root, &id, options)
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let step = steps.last().unwrap();
    assert_eq!(step.event_type, "compaction");
    assert_eq!(
        step.title,
        format!("compaction, keeping events from {first} on")
    );
    assert!(
        step.details.ends_with("summary:\nListed the files."),
        "{}",
        step.details
    );
}
