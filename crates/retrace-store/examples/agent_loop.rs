//! An agent loop on retrace-store: it records every step, checkpoints the
//! files its tool writes, crashes halfway (the process aborts, as a
//! `kill -9` would end it) and resumes where it was.
//!
//! ```text
//! cargo run -p retrace-store --example agent_loop [-- STORE_DIR]
//! retrace store --root STORE_DIR replay ID
//! ```
//!
//! Run without arguments it plays both lives: it starts itself as a child
//! that crashes after step 3, then resumes the session in this process and
//! finishes it. `retrace store events ID --root STORE_DIR` and `retrace
//! store checkpoints ID --root STORE_DIR` show what was kept.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use retrace_core::{EventData, FinalOutput, LlmCall, ToolCall, UserInput};
use retrace_store::{
    CheckpointOptions, Checkpoints, Durability, FsStore, Recorder, RecorderOptions, SessionId,
    SessionManager, SessionStore, StoreResult,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// What the agent keeps between steps.
#[derive(Serialize, Deserialize, Default, Debug)]
struct State {
    step: u32,
    notes: Vec<String>,
}

const STEPS: u32 = 6;
const CRASH_AFTER: u32 = 3;

fn main() -> StoreResult<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        // The child: run until the crash.
        [flag, root, id] if flag == "--crash" => {
            let id = SessionId::parse(id)?;
            run(Path::new(root), &id, Some(CRASH_AFTER))?;
            unreachable!("the child aborts after step {CRASH_AFTER}");
        }
        _ => {
            let root = args.first().map_or_else(
                || {
                    std::env::temp_dir()
                        .join(format!("retrace-agent-loop-{}", std::process::id()))
                        .join("sessions")
                },
                PathBuf::from,
            );
            parent(&root)
        }
    }
}

fn parent(root: &Path) -> StoreResult<()> {
    let store: Arc<dyn SessionStore> = Arc::new(FsStore::open(root)?);
    let manager = SessionManager::new(store.clone());
    let id = manager.create(
        "example-agent",
        &json!({"model": "any", "max_steps": STEPS}),
    )?;
    std::fs::create_dir_all(workspace(root, &id))
        .map_err(|e| retrace_store::StoreError::io("cannot create", &workspace(root, &id), e))?;
    println!("session {id} in {}", root.display());

    // First life: a child process that crashes after step 3.
    let exe = std::env::current_exe().expect("the example's own path");
    let status = Command::new(exe)
        .args(["--crash", &root.display().to_string(), id.as_str()])
        .status()
        .expect("start the child");
    println!("first run ended: {status} (crashed on purpose)");

    // Second life: resume where the saved state says, with the history kept.
    let state: State = manager
        .resume(&id, "the agent was restarted; go on")?
        .unwrap_or_default();
    println!(
        "resumed at step {} with {} notes",
        state.step,
        state.notes.len()
    );
    drop(manager);
    run(root, &id, None)?;

    let events = SessionManager::new(store).get_events(&id)?;
    let kinds: Vec<&str> = events
        .events
        .iter()
        .map(|e| e.event.event_type().as_str())
        .collect();
    println!("{} events: {}", kinds.len(), kinds.join(", "));
    for p in &events.problems {
        println!("repaired: {}:{}: {}", p.file, p.line, p.message);
    }
    let checkpoints = Checkpoints::open(
        &workspace(root, &id),
        &git_dir(root, &id),
        &id,
        CheckpointOptions::default(),
    )?;
    for c in checkpoints.list()? {
        println!(
            "checkpoint {} {} (event {:?})",
            c.tag,
            &c.commit[..10],
            c.event_seq
        );
    }
    println!("try: retrace store replay {id} --root {}", root.display());
    Ok(())
}

/// The agent: from the saved state to the last step, or to `crash_after`.
fn run(root: &Path, id: &SessionId, crash_after: Option<u32>) -> StoreResult<()> {
    let store: Arc<dyn SessionStore> = Arc::new(FsStore::open(root)?);
    let manager = SessionManager::new(store.clone());
    let mut state: State = manager.restore(id)?.unwrap_or_default();
    let checkpoints = Checkpoints::open(
        &workspace(root, id),
        &git_dir(root, id),
        id,
        CheckpointOptions::default(),
    )?;
    let recorder = Recorder::open(
        store,
        id,
        RecorderOptions {
            durability: Durability::Durable,
            checkpointer: Some(Box::new(checkpoints)),
            ..RecorderOptions::default()
        },
    )?;
    if state.step == 0 {
        recorder.record(EventData::UserInput(UserInput {
            message: "write one note per step".into(),
            extra: Map::new(),
        }))?;
    }
    while state.step < STEPS {
        state.step += 1;
        let note = format!("note {} of {STEPS}", state.step);
        recorder.record(EventData::LlmCall(LlmCall {
            prompt: json!([{"role": "user", "content": "next note"}]),
            response: Value::String(format!("I will write {note}")),
            token_usage: Some(json!({"prompt_tokens": 12, "completion_tokens": 6})),
            duration: Some(0.4),
            extra: Map::new(),
        }))?;
        let file = workspace(root, id).join(format!("note_{}.txt", state.step));
        std::fs::write(&file, &note)
            .map_err(|e| retrace_store::StoreError::io("cannot write", &file, e))?;
        // The recorder checkpoints the workspace after this, off this thread.
        recorder.record(EventData::ToolCall(ToolCall {
            tool_name: "write_file".into(),
            parameters: json!({"path": file.file_name().map(|f| f.to_string_lossy())}),
            output: Value::String("ok".into()),
            error: Value::Null,
            duration: Some(0.01),
            extra: Map::new(),
        }))?;
        // Exact checkpoints: this one holds this tool's file alone.
        recorder.wait_checkpoints()?;
        state.notes.push(note);
        // Saved after each step without waiting for the disk.
        manager.queue_save(id, &state);
        if crash_after == Some(state.step) {
            // Make what was recorded durable, then die as a kill would.
            recorder.sync()?;
            manager.flush_saves();
            std::process::abort();
        }
    }
    recorder.record(EventData::FinalOutput(FinalOutput {
        output: Value::String(state.notes.join("; ")),
        stream: false,
        extra: Map::new(),
    }))?;
    recorder.close()?;
    manager.flush_saves();
    Ok(())
}

/// Where the agent works: `workspace/{id}` beside the store's folder (where
/// `retrace store` looks for it).
fn workspace(root: &Path, id: &SessionId) -> PathBuf {
    let parent = root.parent().unwrap_or(Path::new("."));
    parent.join("workspace").join(id.as_str())
}

/// The store's repository of the session's checkpoints, in its folder.
fn git_dir(root: &Path, id: &SessionId) -> PathBuf {
    root.join(id.as_str()).join("checkpoints.git")
}
