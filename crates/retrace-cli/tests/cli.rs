//! The `retrace` binary on real corpus files.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn corpus(rel: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(rel);
    p.to_string_lossy().into_owned()
}

fn retrace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(args)
        .output()
        .expect("run retrace")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const PI_V1: &str = "pi/badlogic__pi-mono/session.jsonl";
const PI_V3: &str = "pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl";
const CLAUDE_REWIND: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl";
const PROJECT: &str =
    "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees";

#[test]
fn info_json_counts() {
    // Counts checked by hand with a Python pass over the files (see the
    // core's corpus tests for the derivation).
    let o = retrace(&["info", "--json", &corpus(PI_V1), &corpus(CLAUDE_REWIND)]);
    assert!(o.status.success(), "{o:?}");
    let infos = json_lines(&o);
    assert_eq!(infos.len(), 2);
    let pi = &infos[0];
    assert_eq!(pi["format"], "pi");
    assert_eq!(pi["version"], 1);
    assert_eq!(pi["entries"], 464);
    assert_eq!(pi["leaves"], 1);
    assert_eq!(pi["branch_points"], 0);
    assert_eq!(pi["tool_calls"], 189);
    assert_eq!(pi["tool_errors"], 12);
    assert_eq!(pi["diagnostics"], 1, "the run-together line 440");
    assert!(
        pi["models"]["claude-opus-4-5"]["messages"]
            .as_u64()
            .unwrap()
            > 0
    );
    let cc = &infos[1];
    assert_eq!(cc["format"], "claude-code");
    assert_eq!(cc["entries"], 99);
    assert_eq!(cc["leaves"], 2);
    assert_eq!(cc["branch_points"], 1);
    assert_eq!(cc["tool_calls"], 26);
    assert_eq!(cc["diagnostics"], 0);
    assert!(cc["messages"].as_u64().unwrap() > 0);
}

#[test]
fn info_text_names_format_and_models() {
    let o = retrace(&["info", &corpus(PI_V1)]);
    let text = stdout(&o);
    assert!(text.contains("pi v1"), "{text}");
    assert!(text.contains("claude-opus-4-5"), "{text}");
    assert!(text.contains("189 (189 results, 12 errors"), "{text}");
}

#[test]
fn tree_marks_the_rewind_and_both_leaves() {
    let o = retrace(&["tree", &corpus(PI_V3)]);
    let text = stdout(&o);
    assert!(text.contains("⑂ 2 branches"), "{text}");
    assert_eq!(text.matches("◀ leaf").count(), 2, "{text}");
    assert!(text.contains("1 compaction"), "{text}");
    assert!(
        text.contains("e8 (line 9)") || text.contains("e7 … e8"),
        "{text}"
    );
    let o = retrace(&["tree", "--json", &corpus(PI_V3)]);
    let doc = &json_lines(&o)[0];
    assert_eq!(doc["default_leaf"], "e8");
    assert_eq!(doc["leaves"], serde_json::json!(["e6", "e8"]));
    let e2 = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == "e2")
        .unwrap();
    assert_eq!(e2["branch"], "real");
}

#[test]
fn show_prints_the_branch_with_tool_calls() {
    let o = retrace(&["show", &corpus(PI_V3), "--leaf", "e6"]);
    let text = stdout(&o);
    assert!(text.starts_with("── compaction summary"), "{text}");
    assert!(text.contains("→ read (call-1)"), "{text}");
    assert!(text.contains("← call-1"), "{text}");
    let o = retrace(&["show", "--json", &corpus(PI_V3), "--leaf", "e6"]);
    let ids: Vec<String> = json_lines(&o)
        .iter()
        .map(|m| m["entries"][0].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, ["e5", "e3", "e4", "e6"]);
}

#[test]
fn show_unknown_leaf_is_a_clear_error() {
    let o = retrace(&["show", &corpus(PI_V3), "--leaf", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no entry with id `nope`"), "{err}");
}

#[test]
fn cat_of_a_linear_file_is_the_file() {
    let path = corpus(PI_V1);
    let o = retrace(&["cat", &path]);
    assert!(o.status.success());
    assert!(o.stdout == std::fs::read(&path).unwrap(), "byte-identical");
}

#[test]
fn cat_extracts_one_branch_as_a_session() {
    let o = retrace(&[
        "cat",
        &corpus(CLAUDE_REWIND),
        "--leaf",
        "71c09114-c880-42cd-9ee8-cd2856590331",
    ]);
    assert!(o.status.success());
    let dir = scratch("cat_branch");
    let file = dir.join("branch.jsonl");
    std::fs::write(&file, &o.stdout).unwrap();
    // Every line is an original line of the file.
    let original = std::fs::read_to_string(corpus(CLAUDE_REWIND)).unwrap();
    let lines: Vec<&str> = original.lines().collect();
    for l in stdout(&o).lines() {
        assert!(lines.contains(&l));
    }
    // The extract is one branch: one leaf, no branch point.
    let info = &json_lines(&retrace(&["info", "--json", file.to_str().unwrap()]))[0];
    assert_eq!(info["leaves"], 1);
    assert_eq!(info["branch_points"], 0);
    assert!(info["entries"].as_u64().unwrap() < 99);
    // pi: the header comes along.
    let o = retrace(&["cat", &corpus(PI_V3), "--leaf", "e8"]);
    let text = stdout(&o);
    assert!(text.starts_with(r#"{"type":"session""#), "{text}");
    assert_eq!(text.lines().count(), 5, "header, e1, e2, e7, e8");
}

#[test]
fn validate_exit_codes() {
    let dir = scratch("validate");
    let clean = dir.join("clean.jsonl");
    std::fs::write(
        &clean,
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00Z\"}\n\
         {\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1767225601000}}\n",
    )
    .unwrap();
    let o = retrace(&["validate", clean.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let broken = dir.join("broken.jsonl");
    std::fs::write(
        &broken,
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"mess\n",
    )
    .unwrap();
    let o = retrace(&["validate", broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(text.contains("broken.jsonl:2:"), "{text}");
    assert!(text.contains("error: malformed-json"), "{text}");
    let o = retrace(&["validate", "--json", broken.to_str().unwrap()]);
    let report = &json_lines(&o)[0];
    assert_eq!(report["errors"], 1);
    assert_eq!(report["diagnostics"][0]["line"], 2);
    let o = retrace(&["validate", dir.join("missing.jsonl").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("missing.jsonl: no such file or directory"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn empty_directory_is_a_clear_error() {
    let dir = scratch("empty_dir");
    let o = retrace(&["info", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no session files"));
}

#[test]
fn stdin_is_read_with_a_dash() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(["info", "--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = std::fs::read(corpus(PI_V3)).unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    let info = &json_lines(&o)[0];
    assert_eq!(info["entries"], 9);
    assert_eq!(info["leaves"], 2);
}

#[test]
fn a_project_folder_links_its_subagents() {
    let o = retrace(&["info", "--json", &corpus(PROJECT)]);
    assert!(o.status.success(), "{o:?}");
    let info = &json_lines(&o)[0];
    assert_eq!(info["files"], 7);
    assert_eq!(info["subagents"], 6);
    // 40 calls in the main file plus those of the six subagents.
    assert_eq!(info["tool_calls"], 117);
    assert_eq!(info["calls_without_result"], 0);
}

#[test]
fn broken_pipe_exits_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(["show", &corpus("pi/badlogic__pi-mono/compact.jsonl")])
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
    assert_eq!(o.status.code(), Some(0));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
