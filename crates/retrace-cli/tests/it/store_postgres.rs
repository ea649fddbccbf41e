//! `retrace store --url postgres://…`: the same commands on a real
//! Postgres server (the one `cargo xtask test` started, or a throwaway
//! one of this binary's), each test in a schema of its own; and `store
//! copy` between a folder and the database, both ways, byte for byte.

use std::fs;
use std::path::Path;
use std::process::Output;

use retrace_test_postgres::{test_url, with_param};

use crate::common::{cmd, fixture, ok, scratch, stderr};

/// A URL in a fresh schema of the test server.
fn fresh_url(name: &str) -> String {
    let schema = format!(
        "cli_{name}_{}_{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
    );
    with_param(&test_url(), "schema", &schema)
}

/// `retrace store ARGS…` run in `dir`.
fn store(dir: &Path, args: &[&str]) -> Output {
    let mut all = vec!["store"];
    all.extend_from_slice(args);
    cmd(&all).cwd(dir.to_str().unwrap()).output()
}

fn store_stdin(dir: &Path, args: &[&str], stdin: &str) -> Output {
    let mut all = vec!["store"];
    all.extend_from_slice(args);
    cmd(&all).cwd(dir.to_str().unwrap()).stdin(stdin).output()
}

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap()
}

#[test]
fn a_session_lives_in_postgres_as_it_does_in_a_folder() {
    let dir = scratch("store-pg-lifecycle");
    let url = fresh_url("life");
    let u = |args: &[&str]| {
        let mut all = vec!["--url", url.as_str()];
        all.extend_from_slice(args);
        store(&dir, &all)
    };

    // Before its tables exist: refused, saying what to run.
    let o = u(&["list"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("retrace store migrate"),
        "{}",
        stderr(&o)
    );
    let applied = ok(&u(&["migrate"]));
    assert!(applied.starts_with("applied migration 1: "), "{applied}");
    let again = u(&["migrate"]);
    assert_eq!(ok(&again), "");
    assert!(
        stderr(&again).contains("schema at version 1 already"),
        "{}",
        stderr(&again)
    );

    let config = dir.join("config.json");
    fs::write(&config, r#"{"model":"m-1","temperature":0}"#).unwrap();
    let id = ok(&u(&[
        "create",
        "weather",
        "--config",
        config.to_str().unwrap(),
    ]))
    .trim()
    .to_owned();
    // The workspace and the checkpoints stay on this host, under the
    // current folder; the session records where.
    let work = dir.join("workspace").join(&id);
    assert!(work.is_dir());
    let shown = json(&ok(&u(&["show", &id, "--json"])));
    assert_eq!(shown["config_snapshot"]["model"], "m-1");
    assert!(
        shown["store"]
            .as_str()
            .unwrap()
            .contains("(schema cli_life_"),
        "{shown}"
    );
    let record = &shown["meta"]["checkpoints"];
    let repository = dir.join("checkpoints").join(format!("{id}.git"));
    assert_eq!(record["repository"], repository.display().to_string());
    assert_eq!(
        record["host"].as_str().unwrap(),
        fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap()
            .trim()
    );

    let lines = fs::read_to_string(fixture("events/events.jsonl")).unwrap();
    let o = store_stdin(
        &dir,
        &["--url", &url, "record", &id, "-", "--durable"],
        &lines,
    );
    ok(&o);
    // The lines come back as the recorder wrote them, in order.
    let recorded = ok(&u(&["events", &id, "--json"]));
    assert_eq!(recorded.lines().count(), lines.lines().count());
    for (got, given) in recorded.lines().zip(lines.lines()) {
        let (got, given) = (json(got), json(given));
        assert_eq!(got["event_type"], given["event_type"]);
        assert_eq!(got["data"], given["data"]);
    }
    assert_eq!(ok(&u(&["export", &id])), recorded);

    // A tool call that changes the workspace is checkpointed, in the
    // repository the session records.
    fs::write(work.join("notes.md"), "v1\n").unwrap();
    ok(&u(&[
        "record",
        &id,
        r#"{"event_type":"tool_call","data":{"tool_name":"write_file","parameters":{},"output":"ok","error":null}}"#,
    ]));
    assert!(repository.is_dir());
    let checkpoints = ok(&u(&["checkpoints", &id]));
    assert_eq!(checkpoints.lines().count(), 1, "{checkpoints}");
    assert!(checkpoints.contains("tool_write_file_"), "{checkpoints}");
    let events = ok(&u(&["events", &id, "--json"]));
    assert!(
        events
            .lines()
            .last()
            .unwrap()
            .contains(r#""event_type":"checkpoint""#),
        "{events}"
    );

    let replay = ok(&u(&["replay", &id, "--fast"]));
    assert!(replay.contains("get_weather"), "{replay}");

    let second = ok(&u(&["create", "other"])).trim().to_owned();
    let listed = ok(&u(&["list"]));
    let order: Vec<&str> = listed
        .lines()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(order, [second.as_str(), id.as_str()]);
    let only = ok(&u(&["list", "--agent", "weather", "--json"]));
    assert_eq!(json(only.trim())["session_id"], id.as_str());

    let popped = ok(&u(&["pop", &id]));
    assert!(popped.contains(r#""event_type":"checkpoint""#), "{popped}");
    ok(&u(&["resume", &id, "and tomorrow?"]));
    let events = ok(&u(&["events", &id, "--json"]));
    assert!(events.lines().last().unwrap().contains("and tomorrow?"));

    ok(&u(&["destroy", &id]));
    let gone = u(&["show", &id]);
    assert_eq!(gone.status.code(), Some(2));
    assert!(
        stderr(&gone).contains(&format!("no session `{id}`")),
        "{}",
        stderr(&gone)
    );
}

#[test]
fn copy_moves_sessions_between_a_folder_and_postgres_both_ways() {
    let dir = scratch("store-pg-copy");
    let url = fresh_url("copy");
    ok(&store(&dir, &["--url", &url, "migrate"]));
    let root = dir.join("sessions");
    let r = root.to_str().unwrap();
    let a = ok(&store(&dir, &["--root", r, "create", "weather"]))
        .trim()
        .to_owned();
    let b = ok(&store(&dir, &["--root", r, "create", "coder"]))
        .trim()
        .to_owned();
    let weather = fs::read_to_string(fixture("events/events.jsonl")).unwrap();
    let checkpoints = fs::read_to_string(fixture("events/checkpoints/events.jsonl")).unwrap();
    ok(&store_stdin(
        &dir,
        &["--root", r, "record", &a, "-"],
        &weather,
    ));
    ok(&store_stdin(
        &dir,
        &["--root", r, "record", &b, "-"],
        &checkpoints,
    ));
    // Checkpoints in the folder, to see they are said to stay there.
    fs::write(dir.join("workspace").join(&b).join("f.txt"), "x").unwrap();
    ok(&store(
        &dir,
        &["--root", r, "checkpoint", &b, "--tool", "edit"],
    ));

    // What the folder holds, as written.
    let written = |id: &str| fs::read_to_string(root.join(id).join("events.jsonl")).unwrap();
    let (weather, checkpoints) = (written(&a), written(&b));
    assert_eq!(
        ok(&store(&dir, &["--root", r, "events", &b, "--json"])),
        checkpoints
    );
    let o = store(&dir, &["copy", "--from", r, "--to", &url]);
    let out = ok(&o);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        stderr(&o).contains("copied 2 of 2 sessions"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains(&format!("session `{b}`'s checkpoints stay in")),
        "{}",
        stderr(&o)
    );
    for (id, lines) in [(&a, &weather), (&b, &checkpoints)] {
        assert_eq!(
            &ok(&store(&dir, &["--url", &url, "events", id, "--json"])),
            lines
        );
    }

    // Back into another folder: the same files, meta and configuration.
    let back = dir.join("back");
    let k = back.to_str().unwrap();
    ok(&store(&dir, &["copy", "--from", &url, "--to", k, &a]));
    assert_eq!(
        fs::read_to_string(back.join(&a).join("events.jsonl")).unwrap(),
        weather
    );
    let meta = |root: &str, id: &str| {
        let shown = json(&ok(&store(&dir, &["--root", root, "show", id, "--json"])));
        (shown["meta"].clone(), shown["config_snapshot"].clone())
    };
    assert_eq!(meta(k, &a), meta(r, &a));
    let in_pg = json(&ok(&store(&dir, &["--url", &url, "show", &a, "--json"])));
    assert_eq!(in_pg["meta"], meta(r, &a).0);

    // A session the destination holds is refused, the others copied.
    let o = store(&dir, &["copy", "--from", r, "--to", k]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!(
            "session `{a}` was not copied: session `{a}` exists already"
        )),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("copied 1 of 2 sessions"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_folder_and_a_url_at_once_are_refused() {
    let dir = scratch("store-pg-both");
    let o = store(&dir, &["--root", "x", "--url", "postgres://u@h/db", "list"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
    let o = cmd(&["store", "list"])
        .cwd(dir.to_str().unwrap())
        .env("RETRACE_STORE", "x")
        .env("RETRACE_STORE_URL", "postgres://u:pw@h/db")
        .output();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("name two stores"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("pw"), "{}", stderr(&o));
}
