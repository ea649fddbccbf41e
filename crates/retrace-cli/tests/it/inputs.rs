//! What every command reads: gzip told by its bytes, folders, `--format`.

use std::io::Write;

use crate::common::*;

#[test]
fn gzip_reads_as_the_plain_file() {
    let dir = scratch("gzip_plain");
    let plain = fixture("codex/rollback.jsonl");
    let packed = fixture("gzip/rollback-two-members.jsonl.gz");
    // Gzip is told by its bytes, not its name.
    let renamed = dir.join("rollback.data");
    std::fs::copy(&packed, &renamed).unwrap();
    let renamed = renamed.to_str().unwrap();
    for args in [
        &["info", "--json"][..],
        &["tree", "--json"],
        &["show", "--json"],
        &["show", "--leaf", "L21"],
        &["cat", "--leaf", "L21"],
        &["validate", "--json"],
    ] {
        let run = |path: &str| {
            let mut all: Vec<&str> = args.to_vec();
            all.push(path);
            let o = retrace(&all);
            (o.status.code(), stdout(&o).replace(path, "PATH"))
        };
        let expected = run(&plain);
        assert_eq!(run(&packed), expected, "{args:?}");
        assert_eq!(run(renamed), expected, "{args:?}");
    }
    // From stdin too: the default branch of the rollback fixture, its
    // lines 1–14 and 23–34 (line 22, the rollback the branch has applied,
    // left out).
    let o = cmd(&["cat", "-"])
        .stdin(std::fs::read(&packed).unwrap())
        .output();
    assert!(o.status.success());
    let lines: Vec<String> = std::fs::read_to_string(&plain)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let expected: Vec<String> = lines[..14].iter().chain(&lines[22..]).cloned().collect();
    assert_eq!(stdout(&o).lines().collect::<Vec<_>>(), expected);
}

#[test]
fn a_folder_reads_gzipped_legacy_gemini_files() {
    // The split session of `gemini/split/`, both files gzipped or only the
    // later one: the same session as the plain folder.
    let plain = fixture("gemini/split");
    let names = [
        "session-2026-02-04T10-00-7e3d9c21.json",
        "session-2026-02-04T11-30-7e3d9c21.json",
    ];
    let gzip = |bytes: &[u8]| {
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(bytes).unwrap();
        z.finish().unwrap()
    };
    let run = |args: &[&str], path: &str| {
        let mut all = args.to_vec();
        all.push(path);
        let o = retrace(&all);
        (
            o.status.code(),
            stdout(&o)
                .replace(path, "PATH")
                .replace(".json.gz", ".json"),
        )
    };
    for packed in [&[0, 1][..], &[1]] {
        let dir = scratch(&format!("gemini_gz_{}", packed.len()));
        for (i, name) in names.iter().enumerate() {
            let bytes = std::fs::read(format!("{plain}/{name}")).unwrap();
            match packed.contains(&i) {
                true => std::fs::write(dir.join(format!("{name}.gz")), gzip(&bytes)).unwrap(),
                false => std::fs::write(dir.join(name), bytes).unwrap(),
            }
        }
        let dir = dir.to_str().unwrap();
        for args in [
            &["info", "--json"][..],
            &["tree", "--json"],
            &["show", "--json"],
        ] {
            assert_eq!(run(args, dir), run(args, &plain), "{args:?} {packed:?}");
        }
        let o = retrace(&["info", "--json", dir]);
        assert_eq!(json_lines(&o)[0]["files"], 2);
    }
}

/// A folder is read as the viewer reads the same files dropped together
/// (the core's `order_files`): a gzipped session keeps its `<stem>/subagents`
/// folder, and a split set's part without a number comes first.
#[test]
fn a_folder_is_read_as_the_core_orders_its_files() {
    let project = corpus(
        "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-experiments-claude_p",
    );
    let session = "29ccd257-68b1-427f-ae5f-6524b7cb6f20";
    let dir = scratch("folder_order");
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&std::fs::read(format!("{project}/{session}.jsonl")).unwrap())
        .unwrap();
    std::fs::write(dir.join(format!("{session}.jsonl.gz")), z.finish().unwrap()).unwrap();
    let sub = dir.join(session).join("subagents");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::copy(
        format!("{project}/{session}/subagents/agent-a2271d1.jsonl"),
        sub.join("agent-a2271d1.jsonl"),
    )
    .unwrap();
    let o = retrace(&["tree", dir.to_str().unwrap()]);
    let headers: Vec<String> = stdout(&o)
        .lines()
        .filter(|l| l.starts_with('['))
        .map(filter)
        .collect();
    insta::assert_snapshot!(headers.join("\n"), @"
    [[SCRATCH]/folder_order/29ccd257-68b1-427f-ae5f-6524b7cb6f20.jsonl.gz]
    [[SCRATCH]/folder_order/29ccd257-68b1-427f-ae5f-6524b7cb6f20/subagents/agent-a2271d1.jsonl] subagent a2271d1, reported to 858f2cc0-cacb-4363-9cbd-cdfaac429119 (line 5)
    ");
    // `events.jsonl` before `events_0.jsonl` (and `_1`, …): the head of a
    // split set, then its parts by number.
    let split = scratch("folder_order_split");
    let parts = fixture("events/split");
    std::fs::copy(format!("{parts}/events.jsonl"), split.join("events.jsonl")).unwrap();
    std::fs::copy(
        format!("{parts}/events_1.jsonl"),
        split.join("events_0.jsonl"),
    )
    .unwrap();
    let joined = retrace(&["cat", split.to_str().unwrap()]);
    let mut want = std::fs::read(format!("{parts}/events.jsonl")).unwrap();
    want.extend(std::fs::read(format!("{parts}/events_1.jsonl")).unwrap());
    assert!(joined.stdout == want, "{}", stderr(&joined));
}

#[test]
fn format_can_be_named() {
    let events = fixture("events/events.jsonl");
    // Read as generic: no messages.
    let o = retrace(&["info", "--json", "--format", "generic", &events]);
    assert!(o.status.success());
    let info = &json_lines(&o)[0];
    assert_eq!(info["format"], "generic");
    assert_eq!(info["messages"], 0);
    // Named before the command too; an unknown name is a usage error.
    let o = retrace(&["--format", "events", "info", "--json", &events]);
    assert_eq!(json_lines(&o)[0]["messages"], 10);
    retrace_snapshot!(cmd(&["info", "--format", "gemini-pro", &events]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: invalid value 'gemini-pro' for '--format <NAME>': unknown format `gemini-pro`; known: pi, claude-code, codex, events, gemini-cli, anthropic-messages, openai-chat-messages, openai-responses-items, google-contents, agentscope, generic

    For more information, try '--help'.
    ");
    // The help names every format the option takes.
    let help = retrace(&["info", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let words: Vec<&str> = help
        .split_whitespace()
        .map(|w| w.trim_end_matches([',', '.']))
        .collect();
    for (name, _) in retrace_core::Format::NAMES {
        assert!(words.contains(name), "{name} missing from: {help}");
    }
}

#[test]
fn a_store_session_folder_reads_as_its_event_stream() {
    // A retrace-store session: the event stream's parts beside the store's
    // own files, which are not read (the same session as the stream alone).
    let events = std::fs::read(fixture("events/events.jsonl")).unwrap();
    let plain = scratch("store_plain");
    std::fs::write(plain.join("events.jsonl"), &events).unwrap();
    let store = scratch("store_session");
    std::fs::write(store.join("events.jsonl"), &events).unwrap();
    for (name, text) in [
        (
            "meta.json",
            r#"{"session_id":"s1","agent_config":"weather","create_time":"2026-02-10T14:00:00Z","last_active_time":"2026-02-10T14:00:02Z"}"#,
        ),
        ("config_snapshot.json", r#"{"model":"gpt-4o-mini"}"#),
        ("state.json", r#"{"version":1,"value":{"city":"Paris"}}"#),
        (
            "memory_messages.jsonl",
            "{\"role\":\"user\",\"content\":\"hi\"}\n",
        ),
        ("events_1.jsonl.torn", "{\"event_type\":\"tool_ca"),
        (".lock", ""),
    ] {
        std::fs::write(store.join(name), text).unwrap();
    }
    for args in [
        &["info", "--json"][..],
        &["tree", "--json"],
        &["show", "--json"],
        &["validate", "--json"],
    ] {
        let run = |dir: &std::path::Path| {
            let path = dir.to_str().unwrap();
            let mut all: Vec<&str> = args.to_vec();
            all.push(path);
            let o = retrace(&all);
            (o.status.code(), stdout(&o).replace(path, "PATH"))
        };
        let (code, out) = run(&store);
        assert_eq!((code, out.clone()), run(&plain), "{args:?}");
        if args[0] == "info" {
            assert!(out.contains(r#""format":"events","files":1,"#), "{out}");
        }
    }
}
