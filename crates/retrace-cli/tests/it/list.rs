//! `retrace list`, folders of several sessions, input that is no session,
//! a `--format` that does not fit, and `--leaf` by id prefix or line.

use crate::common::*;

const REAL_PROJECTS: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects";
const SAMPLE_PROJECT: &str =
    "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample";

#[test]
fn list_a_projects_root_newest_first() {
    // Six projects, eleven sessions: the subagent runs are counted with
    // their session (`+N files`), empty and summary-only files are listed
    // last (no time).
    retrace_snapshot!(cmd(&["list", &corpus(REAL_PROJECTS)]));
}

#[test]
fn list_as_one_json_document() {
    let o = retrace(&["list", "--json", &corpus(PROJECT), &corpus(GEMINI_ARCHIVE)]);
    assert!(o.status.success(), "{o:?}");
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["roots"].as_array().unwrap().len(), 2);
    let sessions = doc["sessions"].as_array().unwrap();
    // One Claude Code session with six subagent runs, five Gemini CLI
    // sessions (one split over two files).
    assert_eq!(sessions.len(), 6);
    let claude = &sessions[0];
    assert_eq!(claude["format"], "claude-code");
    assert_eq!(claude["files"], 7);
    assert_eq!(claude["paths"].as_array().unwrap().len(), 7);
    assert_eq!(claude["subagents"], 6);
    assert_eq!(claude["model"], "claude-opus-4-7");
    assert_eq!(claude["start_time"], "2026-04-18T13:10:51.686Z");
    assert!(claude["title"]
        .as_str()
        .unwrap()
        .starts_with("OK, we're going to make a little experiment here."));
    let split = &sessions[1];
    assert_eq!(split["format"], "gemini-cli");
    assert_eq!(split["files"], 2);
    let starts: Vec<i64> = sessions
        .iter()
        .map(|s| s["start"].as_i64().unwrap())
        .collect();
    assert!(starts.windows(2).all(|w| w[0] >= w[1]), "{starts:?}");
    let size: u64 = ["a36efb2a1231c41e2", "a4ca7529859c158c2"]
        .iter()
        .map(|a| {
            let p =
                format!("{PROJECT}/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-{a}.jsonl");
            std::fs::metadata(corpus(&p)).unwrap().len()
        })
        .sum();
    assert!(claude["size"].as_u64().unwrap() > size);
}

#[test]
fn a_folder_of_several_sessions_names_them() {
    retrace_snapshot!(cmd(&["info", &corpus(SAMPLE_PROJECT)]));
    // Every command that reads a session says the same.
    for command in ["show", "tree", "validate"] {
        let o = retrace(&[command, &corpus(SAMPLE_PROJECT)]);
        assert_eq!(o.status.code(), Some(2), "{command}: {o:?}");
        assert!(stderr(&o).contains("this folder holds 3 sessions; name one"));
    }
    // A project folder that is one session with its subagent runs opens.
    let o = retrace(&["info", "--json", &corpus(PROJECT)]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(json_lines(&o)[0]["files"], 7);
}

/// A PNG, a wasm module and an ELF executable, from their first bytes.
fn binaries(dir: &std::path::Path) -> Vec<(String, &'static str)> {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0\0\0\x01\0\x08\x06\0\0\0".to_vec();
    png.extend((0..2000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    let wasm = b"\0asm\x01\0\0\0\x01\x07\x01`\x02\x7f\x7f\x01\x7f\x03\x02\x01\0".to_vec();
    let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0>\0\x01\0\0\0".to_vec();
    elf.extend([0u8; 200]);
    [
        ("shot.png", png, "a PNG image"),
        ("x.wasm", wasm, "a WebAssembly module"),
        ("tool", elf, "an ELF executable"),
    ]
    .into_iter()
    .map(|(name, bytes, what)| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        (path.to_str().unwrap().to_owned(), what)
    })
    .collect()
}

#[test]
fn binary_input_is_refused_by_every_command() {
    let dir = scratch("binary_input");
    let out = dir.join("out.jsonl");
    let out = out.to_str().unwrap();
    for (path, what) in binaries(&dir) {
        let runs: Vec<Vec<&str>> = vec![
            vec!["info", &path],
            vec!["validate", &path],
            vec!["show", &path],
            vec!["tree", &path],
            vec!["cat", &path],
            vec!["search", &path, "x"],
            vec!["migrate", &path, "--to", "openai"],
            vec!["redact", &path, "-o", out],
            vec!["repair", &path, "-o", out],
            vec!["list", &path],
        ];
        for args in runs {
            let o = retrace(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
            let err = stderr(&o);
            assert!(
                err.contains(&format!("{path}: {what}, not a session file")),
                "{args:?}: {err}"
            );
            assert!(o.stdout.is_empty(), "{args:?}");
        }
    }
    // Standard input too.
    let png = std::fs::read(dir.join("shot.png")).unwrap();
    retrace_snapshot!(cmd(&["info", "-"]).stdin(png), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: -: a PNG image, not a session file
    ");
}

#[test]
fn a_damaged_text_session_is_still_read() {
    // NUL runs inside a text session are damage to repair, not binary.
    let dir = scratch("nul_runs");
    let clean = std::fs::read(corpus(PI_V3)).unwrap();
    let mut bytes = Vec::new();
    for line in clean.split_inclusive(|&b| b == b'\n') {
        bytes.extend_from_slice(line);
        bytes.extend_from_slice(&[0; 512]);
    }
    let path = dir.join("damaged.jsonl");
    std::fs::write(&path, bytes).unwrap();
    let o = retrace(&["info", path.to_str().unwrap()]);
    assert!(o.status.success(), "{o:?}");
    let o = retrace(&[
        "repair",
        path.to_str().unwrap(),
        "-o",
        dir.join("r.jsonl").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
}

#[test]
fn a_forced_format_that_does_not_fit_is_warned_of() {
    let path = corpus("claude-code/iansherr__claude-code-log/test/test_data/dag_fork.jsonl");
    retrace_snapshot!(cmd(&["tree", "--format", "codex", &path]));
    // The format it is read as, named: no warning.
    let o = retrace(&["info", "--format", "claude-code", &path]);
    assert!(o.status.success() && o.stderr.is_empty(), "{o:?}");
    // Nor for plain JSON, asked for.
    let o = retrace(&["info", "--format", "generic", &path]);
    assert!(o.status.success() && o.stderr.is_empty(), "{o:?}");
}

#[test]
fn leaf_by_prefix_or_line() {
    let path = corpus(CLAUDE_REWIND);
    // A unique prefix names its entry, as the whole id does.
    let tree = json_lines(&retrace(&["tree", "--json", &path]))[0].clone();
    let ids: Vec<String> = tree["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["id"].as_str().map(str::to_owned))
        .collect();
    let id = tree["default_leaf"].as_str().unwrap().to_owned();
    let whole = retrace(&["cat", &path, "--leaf", &id]);
    assert!(whole.status.success(), "{whole:?}");
    let prefix = retrace(&["cat", &path, "--leaf", &id[..8]]);
    assert!(prefix.status.success(), "{prefix:?}");
    assert_eq!(prefix.stdout, whole.stdout);
    // A prefix several ids start with lists them.
    let first = id.chars().next().unwrap().to_string();
    let o = retrace(&["show", &path, "--leaf", &first]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let several = ids.iter().filter(|i| i.starts_with(&first)).count();
    assert!(several > 1);
    assert!(
        stderr(&o).contains(&format!("`{first}` is the start of {several} ids: `")),
        "{}",
        stderr(&o)
    );
    retrace_snapshot!(cmd(&["show", &path, "--leaf", "L9999"]));
    retrace_snapshot!(cmd(&["show", &path, "--leaf", "zz"]));
}
