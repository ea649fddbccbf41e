//! The `retrace` binary on real corpus files.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use common::{corpus, fixture, retrace, scratch, stderr, stdout};

fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
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
    // Checked with Python over the file: 189 toolResult messages, 220
    // assistant messages, usage summed over them, min/max timestamps.
    assert_eq!(pi["tool_results"], 189);
    assert_eq!(pi["messages"], 455);
    let opus = &pi["models"]["claude-opus-4-5"];
    assert_eq!(opus["messages"], 220);
    assert_eq!(opus["input_tokens"], 1568);
    assert_eq!(opus["output_tokens"], 46995);
    assert_eq!(opus["cache_read_tokens"], 25283499);
    assert_eq!(opus["cache_write_tokens"], 982512);
    assert!((opus["cost_usd"].as_f64().unwrap() - 19.9651645).abs() < 1e-6);
    assert_eq!(pi["first_timestamp"], "2025-12-17T19:39:17.548Z");
    assert_eq!(pi["last_timestamp"], "2025-12-17T21:23:29.721Z");
    assert_eq!(pi["duration_ms"], 6252173);
    let cc = &infos[1];
    assert_eq!(cc["format"], "claude-code");
    assert_eq!(cc["entries"], 99);
    assert_eq!(cc["leaves"], 2);
    assert_eq!(cc["branch_points"], 1);
    assert_eq!(cc["tool_calls"], 26);
    assert_eq!(cc["diagnostics"], 0);
    assert_eq!(cc["tool_results"], 26);
    assert_eq!(cc["tool_errors"], 3);
    // 46 assistant lines carry 28 distinct `message.id`s (split responses);
    // usage counted once per response.
    let sonnet = &cc["models"]["claude-sonnet-4-20250514"];
    assert_eq!(sonnet["messages"], 28);
    assert_eq!(sonnet["input_tokens"], 119);
    assert_eq!(sonnet["output_tokens"], 1873);
    assert_eq!(sonnet["cache_read_tokens"], 836558);
    assert_eq!(sonnet["cache_write_tokens"], 40058);
    assert!(
        sonnet.get("cost_usd").is_none(),
        "Claude Code records no cost"
    );
    assert_eq!(cc["duration_ms"], 36149483);
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
        assert!(
            o.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn leaf_by_line_label() {
    // pi v1 has no ids: entries are named by line.
    let path = corpus(PI_V1);
    let o = retrace(&["show", &path, "--leaf", "L5"]);
    assert!(o.status.success(), "{o:?}");
    let text = stdout(&o);
    let heads: Vec<&str> = text.lines().filter(|l| l.starts_with("── ")).collect();
    assert_eq!(heads.len(), 4, "{text}");
    assert!(heads[0].starts_with("── user") && heads[0].ends_with("line 2 ──"));
    assert!(heads[3].ends_with("line 5 ──"), "{text}");
    // `cat` of that branch is the header and lines 2–5, byte for byte.
    let o = retrace(&["cat", &path, "--leaf", "L5"]);
    let file = std::fs::read(&path).unwrap();
    let first5: usize = file
        .split_inclusive(|&b| b == b'\n')
        .take(5)
        .map(|l| l.len())
        .sum();
    assert!(o.stdout == file[..first5], "the first five lines");
    // The header is not on the conversation tree.
    let o = retrace(&["show", &path, "--leaf", "L1"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not part of the conversation tree"), "{err}");
}

#[test]
fn show_marks_every_tool_error() {
    let path = corpus(CLAUDE_REWIND);
    let text = stdout(&retrace(&["show", &path]));
    let errors_in_json: usize = json_lines(&retrace(&["show", "--json", &path]))
        .iter()
        .flat_map(|m| m["content"].as_array().unwrap().clone())
        .filter(|p| p["type"] == "tool_result" && p["is_error"] == true)
        .count();
    assert_eq!(
        errors_in_json, 3,
        "the three failed tool results of the file"
    );
    assert_eq!(text.matches(" ERROR\n").count(), errors_in_json, "{text}");
    assert!(text.contains("[thinking]") || text.contains("→ "), "{text}");
}

#[test]
fn stdin_cat_is_the_input() {
    let bytes = std::fs::read(corpus(PI_V1)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(["cat", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = bytes.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(o.status.success());
    assert!(o.stdout == bytes, "byte-identical through stdin");
    // A pipe given by path (`<(zcat …)`, /dev/stdin) is read once, into
    // memory, too.
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(["cat", "/dev/stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = bytes.clone();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stdout == bytes, "byte-identical through a named pipe");
}

#[test]
fn several_inputs_one_unreadable() {
    let dir = scratch("several_inputs");
    let missing = dir.join("missing.jsonl");
    let good = corpus(PI_V3);
    for cmd in ["info", "validate"] {
        let o = retrace(&[cmd, "--json", missing.to_str().unwrap(), &good]);
        assert_eq!(o.status.code(), Some(2), "{cmd}");
        // The readable input is still reported.
        let reports = json_lines(&o);
        assert_eq!(reports.len(), 1, "{cmd}");
        assert_eq!(reports[0]["path"], good.as_str());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("retrace: "), "{err}");
    }
}

#[test]
fn validate_says_when_the_format_is_unknown() {
    let dir = scratch("unknown_format");
    let file = dir.join("other.jsonl");
    std::fs::write(&file, "{\"a\":1}\n{\"b\":2}\n").unwrap();
    let o = retrace(&["validate", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("other.jsonl:1:0: warning: unknown-format:"));
    // And there is no conversation to show.
    let o = retrace(&["show", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no conversation to show"), "{err}");
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
    let o = retrace(&["info", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("secret.jsonl: permission denied"), "{err}");
}

#[test]
fn tree_marks_structural_fanouts_and_subagents() {
    let ideas = corpus("claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl");
    let info = &json_lines(&retrace(&["info", "--json", &ideas]))[0];
    assert_eq!(info["branch_points"], 1);
    assert_eq!(info["structural_branch_points"], 2);
    let text = stdout(&retrace(&["tree", &ideas]));
    assert_eq!(text.matches("⑂ 2 branches").count(), 1, "{text}");
    assert!(text.contains("at 2 structural fan-outs"), "{text}");
    let doc = &json_lines(&retrace(&["tree", "--json", &ideas]))[0];
    let kinds: Vec<&str> = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["branch"].as_str())
        .collect();
    assert_eq!(kinds.iter().filter(|&&k| k == "real").count(), 1);
    assert_eq!(kinds.iter().filter(|&&k| k == "structural").count(), 2);
    // A project folder: each subagent file says which agent it is.
    let text = stdout(&retrace(&["tree", &corpus(PROJECT)]));
    assert_eq!(text.matches("] subagent ").count(), 6, "{text}");
    assert_eq!(text.matches("(default)").count(), 1, "{text}");
}

const CODEX: &str = "codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl";

#[test]
fn info_reads_codex_and_events() {
    // Counts checked by hand: see the core's codex and events tests.
    let o = retrace(&[
        "info",
        "--json",
        &corpus(CODEX),
        &fixture("codex/fork"),
        &fixture("events/split"),
    ]);
    assert!(o.status.success(), "{o:?}");
    let infos = json_lines(&o);
    let codex = &infos[0];
    assert_eq!(codex["format"], "codex");
    assert_eq!(codex["entries"], 279);
    assert_eq!(codex["messages"], 80);
    assert_eq!(codex["tool_calls"], 39);
    assert_eq!(codex["tool_errors"], 3);
    assert_eq!(codex["models"]["gpt-5.1-codex"]["input_tokens"], 71933);
    assert_eq!(
        codex["models"]["gpt-5.1-codex"]["cache_read_tokens"],
        1027328
    );
    assert_eq!(codex["models"]["gpt-5.1-codex"]["output_tokens"], 22305);
    let fork = &infos[1];
    assert_eq!(fork["files"], 3);
    assert_eq!(fork["messages"], 12);
    assert_eq!(fork["leaves"], 3);
    assert_eq!(fork["branch_points"], 1);
    assert_eq!(fork["subagents"], 1);
    let events = &infos[2];
    assert_eq!(events["format"], "events");
    assert_eq!(events["files"], 11);
    assert_eq!(events["entries"], 13);
    assert_eq!(events["leaves"], 1);
    assert_eq!(events["tool_calls"], 10);
    assert_eq!(events["diagnostics"], 0);
}

#[test]
fn a_split_set_shows_in_numeric_order() {
    let o = retrace(&["show", "--json", &fixture("events/split")]);
    assert!(o.status.success(), "{o:?}");
    let outputs: Vec<String> = json_lines(&o)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"][0]["output"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(outputs, ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]);
    let o = retrace(&["validate", &fixture("events/gap")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("events_3.jsonl:1:0: warning: split-gap:"));
}

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
    // From stdin too.
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(["cat", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(&packed).unwrap())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    // The default branch of the rollback fixture: its lines 1–14, 22–34.
    let lines: Vec<String> = std::fs::read_to_string(&plain)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let expected: Vec<String> = lines[..14].iter().chain(&lines[21..]).cloned().collect();
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

#[test]
fn broken_gzip_is_reported_with_line_and_byte() {
    let o = retrace(&["validate", &fixture("gzip/rollback-truncated.jsonl.gz")]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("rollback-truncated.jsonl.gz:11:2520: error: gzip-truncated: file ends inside compressed data"),
        "{out}"
    );
}

#[test]
fn format_can_be_named() {
    let events = fixture("events/events.jsonl");
    let o = retrace(&["info", "--json", "--format", "generic", &events]);
    assert!(o.status.success());
    let info = &json_lines(&o)[0];
    assert_eq!(info["format"], "generic");
    assert_eq!(info["messages"], 0);
    // Named before the command too; an unknown name is a usage error.
    let o = retrace(&["--format", "events", "info", "--json", &events]);
    assert_eq!(json_lines(&o)[0]["messages"], 10);
    let o = retrace(&["info", "--format", "gemini-pro", &events]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown format `gemini-pro`"));
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

const GEMINI_ARCHIVE: &str = "gemini-cli/mischa-thisness__M-Gemini/Archives";

#[test]
fn migrate_writes_the_history_for_each_api() {
    let path = fixture("provider/openai-chat.jsonl");
    for (api, key) in [
        ("anthropic", "messages"),
        ("openai", "messages"),
        ("openai-responses", "input"),
        ("google", "contents"),
    ] {
        let o = retrace(&["migrate", &path, "--to", api]);
        assert!(o.status.success(), "{api}: {o:?}");
        let body: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert!(body[key].as_array().is_some_and(|l| !l.is_empty()), "{api}");
        // Nothing is lost from this list: no warning.
        assert!(
            o.stderr.is_empty(),
            "{api}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // The system prompt goes where Google keeps it.
    let o = retrace(&["migrate", &path, "--to", "google"]);
    let body: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        body["systemInstruction"]["parts"][0]["text"],
        "You are a weather bot.\n\nAnswer in one line."
    );
    let o = retrace(&["migrate", &path, "--to", "cohere"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn migrate_reports_what_is_lost() {
    let path = fixture("provider/anthropic-messages.json");
    // Without --report: the body, and one line on stderr about the losses.
    let o = retrace(&["migrate", &path, "--to", "openai"]);
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("for openai: 1 thinking-dropped, 1 redacted-thinking-dropped, 1 signature-dropped, 1 image-dropped, 1 error-flag-dropped"),
        "{err}"
    );
    // --report: the report only, per field with counts.
    let o = retrace(&["migrate", &path, "--to", "openai", "--report"]);
    let text = stdout(&o);
    // 8 messages (with the system prompt); the two results of one turn
    // are two tool messages.
    assert!(
        text.starts_with("8 messages → 9 turns for OpenAI Chat Completions\n"),
        "{text}"
    );
    assert!(text.contains("     1  lost    image"), "{text}");
    assert!(!text.contains("\"messages\""), "no body without -o: {text}");
    let o = retrace(&["migrate", &path, "--to", "openai", "--report", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["to"], "openai");
    assert_eq!(report["changes"][0]["code"], "thinking-dropped");
    assert_eq!(report["changes"][0]["at"], serde_json::json!(["L28"]));
}

#[test]
fn migrate_writes_its_output_file_whole() {
    let dir = scratch("migrate_output");
    let out = dir.join("history.json");
    let o = retrace(&[
        "migrate",
        &corpus(&format!(
            "{GEMINI_ARCHIVE}/session-2025-11-19T20-45-42f4bde7.json"
        )),
        "--to",
        "anthropic",
        "-o",
        out.to_str().unwrap(),
        "--report",
    ]);
    assert!(o.status.success(), "{o:?}");
    // The report on stdout, the body in the file, no temporary file left.
    assert!(stdout(&o).starts_with("29 messages → "), "{}", stdout(&o));
    let body: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    // 29 messages: 6 prompts, 14 model turns, 9 result turns; results
    // follow their calls in user turns, so turns alternate.
    let roles: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert!(roles.windows(2).all(|w| w[0] != w[1]), "{roles:?}");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["history.json"]);
    // A directory that does not exist: a clear error, nothing written.
    let o = retrace(&[
        "migrate",
        &fixture("provider/openai-chat.json"),
        "--to",
        "google",
        "-o",
        dir.join("no/such/dir/out.json").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write"));
}

#[test]
fn migrate_takes_a_leaf() {
    // The abandoned branch of the Gemini JSONL fixture ends at line 11.
    let path = fixture("gemini/session-2026-02-03T09-00-5c1f3a9e.jsonl");
    let o = retrace(&["migrate", &path, "--to", "openai", "--leaf", "L11"]);
    assert!(o.status.success(), "{o:?}");
    let body: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let list = body["messages"].as_array().unwrap();
    assert_eq!(list.last().unwrap()["role"], "tool");
    assert!(list.last().unwrap()["content"]
        .as_str()
        .unwrap()
        .starts_with("[Operation Cancelled]"));
}

#[test]
fn a_gemini_rewind_that_ends_the_log_is_where_the_session_stands() {
    let path = fixture("gemini/rewind-at-end.jsonl");
    let file = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = file.split_inclusive('\n').collect();
    // Gemini CLI loads the metadata, the first prompt and its answer.
    let o = retrace(&["cat", &path]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o), lines[..3].concat());
    let o = retrace(&["show", &path]);
    let text = stdout(&o);
    assert!(text.contains("A workspace of three crates."), "{text}");
    assert!(!text.contains("Bump every version."), "{text}");
    // The turn rewound away hangs off the current leaf.
    let o = retrace(&["tree", &path]);
    let text = stdout(&o);
    assert!(text.contains("2 leaves · 1 real branch points"), "{text}");
    assert!(text.contains("◀ leaf (default) ⑂ 1 branch\n"), "{text}");
    assert!(text.contains("└─ ● 8a3c5e7d"), "{text}");
    let o = retrace(&["tree", "--json", &path]);
    let tree = &json_lines(&o)[0];
    let answer = &tree["nodes"][1];
    assert_eq!(
        (&answer["line"], &answer["children"], &answer["branch"]),
        (&3.into(), &1.into(), &"real".into())
    );
}

#[test]
fn a_migrated_gemini_session_is_read_from_its_jsonl() {
    let dir = fixture("gemini/migrated");
    let jsonl =
        std::fs::read_to_string(format!("{dir}/session-2026-02-04T10-00-7e3d9c21.jsonl")).unwrap();
    let lines: Vec<&str> = jsonl.split_inclusive('\n').collect();
    // The resumed conversation, not the legacy file's three messages.
    let o = retrace(&["show", &dir]);
    let text = stdout(&o);
    assert!(text.contains("Yes, nothing changed since."), "{text}");
    assert_eq!(text.matches("The tree is clean.").count(), 1, "{text}");
    // Its branch is the `.jsonl`'s lines: metadata and messages.
    let o = retrace(&["cat", &dir]);
    assert!(o.status.success(), "{o:?}");
    let want: String = [0, 1, 2, 3, 5, 7].iter().map(|&i| lines[i]).collect();
    assert_eq!(stdout(&o), want);
    // One conversation; the legacy copies are noted, not a branch.
    let o = retrace(&["tree", &dir]);
    let text = stdout(&o);
    assert!(text.contains("· 1 leaves · 0 real branch points"), "{text}");
    let o = retrace(&["validate", &dir]);
    let text = stdout(&o);
    assert!(
        text.contains(".json:7:249: note: copied-history: Gemini CLI migrated this session"),
        "{text}"
    );
}

#[test]
fn a_gemini_branch_in_a_later_file_names_its_file() {
    let dir = fixture("gemini/rewind-split");
    let o = retrace(&["tree", &dir]);
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    // One header, the first file's: the branch rewound away is on its
    // lines 5–6, the one that goes on is on lines 3–4 of the second file.
    assert_eq!(text.matches("\n[").count(), 1, "{text}");
    assert!(lines[1].ends_with("16-00-4d6f8a0c.jsonl]"), "{text}");
    assert!(lines[3].contains("lines 5–6  \"Delete"), "{text}");
    assert!(
        lines[4].contains("lines 3–4 of ")
            && lines[4]
                .contains("16-40-4d6f8a0c.jsonl  \"Fix the parser instead.\" ◀ leaf (default)"),
        "{text}"
    );
}

#[test]
fn cat_of_a_damaged_legacy_file_keeps_the_document_whole() {
    // Both made from `gemini/split/`: the first file missing the comma
    // after its first message, the second with a torn line after its end.
    let first = fixture("gemini/split/session-2026-02-04T10-00-7e3d9c21.json");
    let second = fixture("gemini/split/session-2026-02-04T11-30-7e3d9c21.json");
    // The joins are the file's well-formed one, not the broken one copied
    // between every two messages.
    let o = retrace(&["cat", &fixture("broken/missing-comma-session.json")]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o), std::fs::read_to_string(first).unwrap());
    // The array's end, the `summary` after it and the closing brace are
    // the document's; the torn line after it is not.
    let o = retrace(&["cat", &fixture("broken/trailing-garbage-session.json")]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(stdout(&o), std::fs::read_to_string(second).unwrap());
}

#[test]
fn cat_of_a_session_split_over_a_document_and_json_lines_is_json_lines() {
    // A legacy `.json` (three messages), then a `.jsonl` of the same
    // session going on: the branch ends in the `.jsonl`, so the output is
    // JSON lines, the legacy messages one on each line.
    let dir = fixture("gemini/mixed-split");
    let legacy: serde_json::Value = serde_json::from_slice(
        &std::fs::read(format!("{dir}/session-2026-02-04T10-00-7e3d9c21.json")).unwrap(),
    )
    .unwrap();
    let jsonl =
        std::fs::read_to_string(format!("{dir}/session-2026-02-04T11-30-7e3d9c21.jsonl")).unwrap();
    let jsonl: Vec<&str> = jsonl.split_inclusive('\n').collect();
    let o = retrace(&["cat", &dir]);
    assert!(o.status.success(), "{o:?}");
    let text = stdout(&o);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 6, "{text}");
    // The `.jsonl`'s metadata and messages as they are.
    assert_eq!(
        [lines[0], lines[4], lines[5]],
        [jsonl[0], jsonl[1], jsonl[3]]
    );
    // The legacy messages, each the same JSON on one line.
    for (i, line) in lines[1..4].iter().enumerate() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(value, legacy["messages"][i], "{line}");
        assert!(
            !line.trim_end().contains('\n') && line.starts_with("{\"id\":"),
            "{line}"
        );
    }
    assert!(stderr(&o).contains("3 messages from a JSON document written as JSON lines"));
    // The output reads back as the same conversation, with no problem.
    let out = scratch("gemini_mixed_cat").join("cat.jsonl");
    std::fs::write(&out, &o.stdout).unwrap();
    let o = retrace(&["validate", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let messages =
        |path: &str| json_lines(&retrace(&["info", "--json", path]))[0]["messages"].clone();
    assert_eq!(messages(out.to_str().unwrap()), messages(&dir));
    assert_eq!(messages(&dir), 6);
}

#[test]
fn a_gemini_rewind_to_the_first_prompt_is_a_real_branch() {
    let path = fixture("gemini/rewind-to-start.jsonl");
    let o = retrace(&["tree", &path]);
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].ends_with("· 2 leaves · 1 real branch points"),
        "{text}"
    );
    assert_eq!(lines[1], "● L1 (line 1) ⑂ 2 branches", "{text}");
    assert!(lines[2].starts_with("├─ ● 1a3c5e7a"), "{text}");
    assert!(
        lines[3].starts_with("└─ ● 5e7a9c1e") && lines[3].ends_with("(default)"),
        "{text}"
    );
    // The current branch as a session: the metadata, the new prompt and
    // its answer.
    let file = std::fs::read_to_string(&path).unwrap();
    let file: Vec<&str> = file.split_inclusive('\n').collect();
    let o = retrace(&["cat", &path]);
    assert_eq!(stdout(&o), [file[0], file[6], file[7]].concat());
}

#[test]
fn cat_of_a_gemini_branch_takes_each_message_as_last_written() {
    // Line 5 rewrites line 3's model turn after the prompt of line 4,
    // which a rewind then drops: Gemini CLI loads lines 2, 5, 8 and 9.
    let path = fixture("gemini/late-rewrite.jsonl");
    let file = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = file.split_inclusive('\n').collect();
    let o = retrace(&["cat", &path]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o),
        [lines[0], lines[1], lines[4], lines[7], lines[8]].concat()
    );
    let o = retrace(&["show", &path]);
    let text = stdout(&o);
    assert!(text.contains("41 passed; 1 failed"), "{text}");
    assert!(!text.contains("And run clippy too."), "{text}");
    // The branch rewound away, too: its answer (line 6) was written after
    // the rewrite, so the call is done there as well.
    let d = "d3f5b7c9-e1a3-4d5f-9b7c-9e1a3d5f7b9c";
    let o = retrace(&["cat", "--leaf", d, &path]);
    assert_eq!(
        stdout(&o),
        [lines[0], lines[1], lines[4], lines[3], lines[5]].concat()
    );
}

#[test]
fn gemini_folders_and_documents() {
    // The corpus archive: six files, five sessions (one split in two).
    let o = retrace(&["info", "--json", &corpus(GEMINI_ARCHIVE)]);
    assert!(o.status.success(), "{o:?}");
    let info = &json_lines(&o)[0];
    assert_eq!(info["format"], "gemini-cli");
    assert_eq!(info["files"], 6);
    assert_eq!(info["entries"], 78);
    assert_eq!(info["leaves"], 5);
    // A split session: one conversation.
    let o = retrace(&["info", "--json", &fixture("gemini/split")]);
    let info = &json_lines(&o)[0];
    assert_eq!(
        (info["files"].as_u64(), info["leaves"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(info["messages"], 6);
    // `cat` of a one-branch document is the document.
    let path = corpus(&format!(
        "{GEMINI_ARCHIVE}/session-2025-12-13T19-01-049d9bb6.json"
    ));
    let o = retrace(&["cat", &path]);
    assert!(o.stdout == std::fs::read(&path).unwrap(), "byte-identical");
    // … and of a branch, the document with that branch's messages.
    let o = retrace(&["cat", &fixture("gemini/split")]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["messages"].as_array().unwrap().len(), 5);
    assert_eq!(doc["summary"], "Git status and last commit");
    // Provider lists are read by every command.
    let o = retrace(&["show", &fixture("provider/google-contents.json")]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("convert_currency"), "{}", stdout(&o));
    let o = retrace(&["validate", &fixture("broken/array-broken-element.json")]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(text.contains("array-broken-element.json:3:"), "{text}");
    assert!(text.contains("array-broken-element.json:4:"), "{text}");
}
