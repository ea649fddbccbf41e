//! Inputs that cannot be used, several inputs, and the exit codes: 2 and
//! one line on stderr for an unusable input, the others still handled; 0
//! when the reader of stdout leaves early.

use std::process::{Command, Stdio};

use crate::common::*;

#[test]
fn show_unknown_leaf_is_a_clear_error() {
    retrace_snapshot!(cmd(&["show", &corpus(PI_V3), "--leaf", "nope"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl: no entry with id `nope` or an id starting with it (ids are entry ids, a unique prefix of one, or L<line> for entries without one)
    ");
}

#[test]
fn empty_directory_is_a_clear_error() {
    let dir = scratch("empty_dir");
    retrace_snapshot!(cmd(&["info", dir.to_str().unwrap()]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/empty_dir: no session files (*.jsonl, *.json, gzipped or not) in this directory
    ");
}

#[test]
fn several_inputs_one_unreadable() {
    let dir = scratch("several_inputs");
    let missing = dir.join("missing.jsonl");
    let good = corpus(PI_V3);
    // Exit 2; the readable input is still reported, the other on one line
    // of stderr.
    let o = retrace_snapshot!(cmd(&["info", "--json", missing.to_str().unwrap(), &good]), @r#"
    exit_code: 2
    ----- stdout -----
    {"path":"[CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl","title":"sanitized","format":"pi","version":3,"files":1,"entries":9,"messages":6,"markers":0,"leaves":2,"branch_points":1,"structural_branch_points":0,"tool_calls":2,"tool_results":1,"tool_errors":0,"results_without_call":0,"calls_without_result":1,"diagnostics":2,"errors":0,"warnings":1,"subagents":0,"first_timestamp":"2026-01-01T00:00:00.000Z","last_timestamp":"2026-01-01T00:00:08.000Z","duration_ms":8000,"models":{"alpha":{"messages":3,"input_tokens":42,"output_tokens":23,"cache_read_tokens":0,"cache_write_tokens":0,"cost_usd":0.08}}}
    ----- stderr -----
    retrace: [SCRATCH]/several_inputs/missing.jsonl: no such file or directory
    "#);
    assert_eq!(json_lines(&o)[0]["path"], good.as_str());
    let o = retrace_snapshot!(cmd(&["validate", "--json", missing.to_str().unwrap(), &good]), @r#"
    exit_code: 2
    ----- stdout -----
    {"path":"[CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl","errors":0,"warnings":1,"notes":1,"tool_calls":2,"calls_without_result":1,"results_without_call":0,"diagnostics":[{"file":"[CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl","severity":"warning","code":"call-without-result","line":8,"offset":1928,"message":"tool call \"call-2\" has no result on the branch ending at e8"},{"file":"[CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl","severity":"info","code":"unknown-type","line":9,"offset":2364,"message":"unknown entry type \"future_entry\" (kept as is)"}],"resume":[{"api":"anthropic","ok":false,"reasons":["tool calls without a result: 1 (`retrace seal` answers them in the file)"]},{"api":"openai","ok":false,"reasons":["tool calls without a result: 1 (`retrace seal` answers them in the file)"]},{"api":"openai-responses","ok":false,"reasons":["tool calls without a result: 1 (`retrace seal` answers them in the file)"]},{"api":"google","ok":false,"reasons":["tool calls without a result: 1 (`retrace seal` answers them in the file)"]}]}
    ----- stderr -----
    retrace: [SCRATCH]/several_inputs/missing.jsonl: no such file or directory
    "#);
    assert_eq!(json_lines(&o)[0]["path"], good.as_str());
}

#[test]
fn permission_denied_is_a_clear_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("denied");
    let file = dir.join("secret.jsonl");
    std::fs::write(&file, "{}\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&file).is_ok() {
        // Running as root: nothing is denied; nothing to test here.
        eprintln!("skipped: permissions are not enforced for this user");
        return;
    }
    retrace_snapshot!(cmd(&["info", file.to_str().unwrap()]), @r"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/denied/secret.jsonl: permission denied
    ");
}

#[test]
fn broken_pipe_exits_quietly() {
    // Outputs far larger than a pipe buffer (64 KiB), so writes do fail.
    let big = corpus("pi/badlogic__pi-mono/compact.jsonl");
    assert!(std::fs::metadata(&big).unwrap().len() > 1_000_000);
    for args in [
        vec!["cat", big.as_str()],
        vec!["show", big.as_str(), "--leaf", "L400"],
        vec!["tree", "--json", big.as_str()],
    ] {
        // Unhindered, the command writes more than a pipe holds.
        let full = retrace(&args);
        assert!(
            full.stdout.len() > 64 << 10,
            "{args:?}: {}",
            full.stdout.len()
        );
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read a little, then hang up.
        let mut out = child.stdout.take().unwrap();
        let mut buf = [0u8; 64];
        std::io::Read::read_exact(&mut out, &mut buf).unwrap();
        drop(out);
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(o.stderr.is_empty(), "{args:?}: {}", stderr(&o));
    }
}
