//! `retrace store`: a session's life through the binary, in a scratch
//! store (ids are random, so these tests check what matters explicitly
//! instead of snapshotting).

use std::fs;
use std::path::Path;
use std::process::Output;

use crate::common::{cmd, ok, scratch, stderr};

/// `retrace store --root ROOT ARGS…`.
fn store(root: &Path, args: &[&str]) -> Output {
    let mut all = vec!["store", "--root", root.to_str().unwrap()];
    all.extend_from_slice(args);
    cmd(&all).output()
}

fn store_stdin(root: &Path, args: &[&str], stdin: &str) -> Output {
    let mut all = vec!["store", "--root", root.to_str().unwrap()];
    all.extend_from_slice(args);
    cmd(&all).stdin(stdin).output()
}

const SECRET: &str = "sk-ant-api03-Xk9Qz7Lm2Np4Rt6Vw8Yb1Cd3Ef5Gh7Jk9Lm1Np3Qr5St7Uv9Wx1Yz3Ab5Cd7Ef9Gh1Jk3Lm5Np7Qr9St1Uv3Wx5Yz7Ab9CdAA";

#[test]
fn a_session_is_created_recorded_listed_exported_and_destroyed() {
    let dir = scratch("store-lifecycle");
    let root = dir.join("sessions");
    let config = dir.join("config.json");
    fs::write(&config, r#"{"model":"m-1","temperature":0}"#).unwrap();
    let id = ok(&store(
        &root,
        &["create", "weather", "--config", config.to_str().unwrap()],
    ))
    .trim()
    .to_owned();
    assert_eq!(id.len(), 36, "a UUID: {id}");
    let folder = root.join(&id);
    // Its workspace is made with it, beside the store's folder.
    assert!(dir.join("workspace").join(&id).is_dir());
    assert_eq!(
        fs::read_to_string(folder.join("config_snapshot.json"))
            .unwrap()
            .parse::<serde_json::Value>()
            .unwrap(),
        serde_json::json!({"model": "m-1", "temperature": 0})
    );

    ok(&store(
        &root,
        &[
            "record",
            &id,
            r#"{"event_type":"user_input","data":{"message":"weather in Paris?"}}"#,
        ],
    ));
    let lines = [
        r#"{"event_type":"llm_call","data":{"prompt":"weather in Paris?","response":"calling","token_usage":{"total_tokens":5},"duration":0.2}}"#.to_owned(),
        format!(r#"{{"event_type":"tool_call","data":{{"tool_name":"env","parameters":{{}},"output":"KEY={SECRET}","error":null,"duration":0.1}}}}"#),
        r#"{"event_type":"final_output","data":{"output":"18°C","stream":false}}"#.to_owned(),
    ];
    let o = store_stdin(&root, &["record", &id, "-", "--durable"], &lines.join("\n"));
    ok(&o);
    assert!(stderr(&o).contains("recorded 3 events"), "{}", stderr(&o));

    // Listed, newest first, with its configuration's name.
    let second = ok(&store(&root, &["create", "other"])).trim().to_owned();
    let listed = ok(&store(&root, &["list"]));
    let order: Vec<&str> = listed
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(order, [second.as_str(), id.as_str()]);
    let filtered = ok(&store(&root, &["list", "--agent", "weather", "--json"]));
    let meta: serde_json::Value = serde_json::from_str(filtered.trim()).unwrap();
    assert_eq!(meta["session_id"], id.as_str());
    assert_eq!(meta["agent_config"], "weather");

    // The events as recorded, byte for byte, in order.
    let events = ok(&store(&root, &["events", &id, "--json"]));
    let recorded = fs::read_to_string(folder.join("events.jsonl")).unwrap();
    assert_eq!(events, recorded);
    let types: Vec<String> = events
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["event_type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        types,
        ["user_input", "llm_call", "tool_call", "final_output"]
    );
    let last = ok(&store(&root, &["events", &id, "--last", "1"]));
    assert!(
        last.contains("final_output") && last.contains("18°C"),
        "{last}"
    );

    let shown = ok(&store(&root, &["show", &id, "--json"]));
    let shown: serde_json::Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(shown["events"], 4);
    assert_eq!(shown["config_snapshot"]["model"], "m-1");

    // Exported for sharing: the secret is gone; without --redact it is kept.
    let out = dir.join("shared.jsonl");
    ok(&store(
        &root,
        &["export", &id, "--redact", "-o", out.to_str().unwrap()],
    ));
    let shared = fs::read_to_string(&out).unwrap();
    assert_eq!(shared.lines().count(), 4);
    assert!(!shared.contains("Xk9Qz7Lm2Np4"), "{shared}");
    assert!(shared.contains("[REDACTED:anthropic-api-key]"), "{shared}");
    assert!(ok(&store(&root, &["export", &id])).contains(SECRET));

    // Everything else in retrace reads the folder as an event stream.
    let info = ok(&cmd(&["info", folder.to_str().unwrap()]).output());
    assert!(info.contains("events"), "{info}");

    // pop takes the last event off and prints it.
    let popped = ok(&store(&root, &["pop", &id]));
    assert!(popped.contains("final_output"), "{popped}");
    assert_eq!(
        ok(&store(&root, &["events", &id, "--json"]))
            .lines()
            .count(),
        3
    );

    // resume records the user's message after the history.
    ok(&store(&root, &["resume", &id, "and tomorrow?"]));
    let events = ok(&store(&root, &["events", &id, "--json"]));
    assert_eq!(events.lines().count(), 4);
    assert!(events.lines().last().unwrap().contains("and tomorrow?"));

    ok(&store(&root, &["destroy", &id]));
    assert!(!folder.exists());
    let gone = store(&root, &["show", &id]);
    assert_eq!(gone.status.code(), Some(2));
    assert!(
        stderr(&gone).contains(&format!("no session `{id}`")),
        "{}",
        stderr(&gone)
    );
}

#[test]
fn replay_hides_secrets_unless_asked_and_fast_keeps_the_key_events() {
    let dir = scratch("store-replay");
    let root = dir.join("sessions");
    let id = ok(&store(&root, &["create", "a"])).trim().to_owned();
    let lines = [
        r#"{"event_type":"user_input","data":{"message":"go"}}"#.to_owned(),
        r#"{"event_type":"state_transition","data":{"from_node":"start","to_node":"tools","state_diff":{}}}"#.to_owned(),
        format!(r#"{{"event_type":"tool_call","data":{{"tool_name":"env","parameters":{{}},"output":"KEY={SECRET}","error":null}}}}"#),
        r#"{"event_type":"final_output","data":{"output":"done","stream":false}}"#.to_owned(),
    ];
    ok(&store_stdin(
        &root,
        &["record", &id, "-"],
        &lines.join("\n"),
    ));
    let shown = ok(&store(&root, &["replay", &id]));
    assert!(!shown.contains("Xk9Qz7Lm2Np4"), "{shown}");
    assert!(shown.contains("[REDACTED:"), "{shown}");
    assert!(shown.contains("start → tools"), "{shown}");
    let sensitive = ok(&store(&root, &["replay", &id, "--show-sensitive"]));
    assert!(sensitive.contains(SECRET), "{sensitive}");
    let fast = ok(&store(&root, &["replay", &id, "--fast"]));
    assert!(!fast.contains("start → tools"), "{fast}");
    assert!(fast.contains("env") && fast.contains("done"), "{fast}");
}

#[test]
fn a_tool_call_checkpoints_the_workspace_which_restores_and_diffs() {
    let dir = scratch("store-checkpoints");
    let root = dir.join("sessions");
    let work = dir.join("project");
    fs::create_dir_all(work.join(".git")).unwrap();
    fs::write(work.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    fs::write(work.join("notes.md"), "v1\n").unwrap();
    let id = ok(&store(
        &root,
        &["create", "coder", "--workspace", work.to_str().unwrap()],
    ))
    .trim()
    .to_owned();

    let call = |name: &str| {
        format!(
            r#"{{"event_type":"tool_call","data":{{"tool_name":"{name}","parameters":{{}},"output":"ok","error":null}}}}"#
        )
    };
    ok(&store(&root, &["record", &id, &call("write_file")]));
    fs::write(work.join("notes.md"), "v2\n").unwrap();
    fs::write(work.join("new.txt"), "new\n").unwrap();
    ok(&store(&root, &["record", &id, &call("edit")]));
    // Nothing changed: no checkpoint.
    ok(&store(&root, &["record", &id, &call("read_file")]));

    let events = ok(&store(&root, &["events", &id, "--json"]));
    let checkpoints: Vec<serde_json::Value> = events
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event_type"] == "checkpoint")
        .collect();
    assert_eq!(checkpoints.len(), 2, "{events}");
    let first = checkpoints[0]["data"]["tag"].as_str().unwrap().to_owned();
    let second = checkpoints[1]["data"]["tag"].as_str().unwrap().to_owned();
    assert!(first.starts_with("tool_write_file_"), "{first}");
    assert!(second.starts_with("tool_edit_"), "{second}");
    assert_eq!(
        checkpoints[1]["data"]["files"],
        serde_json::json!([{"path":"new.txt","change":"created"},{"path":"notes.md","change":"updated"}])
    );

    let history = ok(&store(&root, &["checkpoints", &id, "notes.md"]));
    assert_eq!(history.lines().count(), 2, "{history}");
    let diff = ok(&store(&root, &["diff", &id, &first, &second]));
    assert!(
        diff.contains("-v1") && diff.contains("+v2") && diff.contains("+new"),
        "{diff}"
    );

    // Back to the first checkpoint: the file created after it goes, the
    // edit is undone, the user's .git is untouched.
    fs::remove_file(work.join("notes.md")).unwrap();
    let o = store(&root, &["restore", &id, &first]);
    ok(&o);
    assert_eq!(fs::read_to_string(work.join("notes.md")).unwrap(), "v1\n");
    assert!(!work.join("new.txt").exists());
    assert_eq!(
        fs::read_to_string(work.join(".git/HEAD")).unwrap(),
        "ref: refs/heads/main\n"
    );
    // ... and the restore can be undone.
    let undo = stderr(&o);
    let undo_tag = undo
        .split("restore ")
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .trim_end_matches('`');
    ok(&store(&root, &["restore", &id, undo_tag]));
    assert!(work.join("new.txt").exists());
    assert!(
        !work.join("notes.md").exists(),
        "deleted before the restore"
    );
}

#[test]
fn ids_from_outside_never_reach_the_file_system() {
    let dir = scratch("store-ids");
    let root = dir.join("sessions");
    ok(&store(&root, &["create", "a"]));
    for bad in ["../x", "..", "/etc", "a/b", "a.b", ""] {
        for args in [
            vec!["show", bad],
            vec!["events", bad],
            vec!["destroy", bad],
            vec!["record", bad, "{}"],
        ] {
            let o = store(&root, &args);
            assert_eq!(o.status.code(), Some(2), "{args:?}");
            assert!(
                stderr(&o).contains("invalid session id"),
                "{args:?}: {}",
                stderr(&o)
            );
        }
    }
    assert_eq!(
        fs::read_dir(dir.join("sessions"))
            .unwrap()
            .filter(|e| !e
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with('.'))
            .count(),
        1
    );
}

#[test]
fn a_torn_last_line_is_cut_kept_aside_and_reported_when_recording_goes_on() {
    let dir = scratch("store-torn");
    let root = dir.join("sessions");
    let id = ok(&store(&root, &["create", "a"])).trim().to_owned();
    ok(&store(
        &root,
        &[
            "record",
            &id,
            r#"{"event_type":"user_input","data":{"message":"one"}}"#,
        ],
    ));
    // A crash in the middle of a write: half a line, no newline.
    let log = root.join(&id).join("events.jsonl");
    let torn = r#"{"event_type":"tool_call","data":{"tool_na"#;
    let mut bytes = fs::read(&log).unwrap();
    bytes.extend_from_slice(torn.as_bytes());
    fs::write(&log, &bytes).unwrap();

    let o = store(
        &root,
        &[
            "record",
            &id,
            r#"{"event_type":"final_output","data":{"output":"two"}}"#,
        ],
    );
    ok(&o);
    assert!(stderr(&o).contains("events.jsonl"), "{}", stderr(&o));
    let side_car = fs::read_to_string(root.join(&id).join("events.jsonl.torn")).unwrap();
    assert!(side_car.contains(torn), "{side_car}");
    let events = ok(&store(&root, &["events", &id, "--json"]));
    let kinds: Vec<String> = events
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["event_type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(kinds, ["user_input", "final_output"]);
}
