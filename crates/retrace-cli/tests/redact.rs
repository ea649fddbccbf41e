//! `retrace redact` and `--redact` on real files: streams, `.gz`, atomic
//! output, reports, custom rules, `--check` and exit codes.

mod common;

use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};

use common::{corpus, retrace, scratch, stderr, stdout};

/// The generated evaluation fixture: fake secrets and PII on known lines.
fn fixture() -> String {
    common::fixture("redact/corpus-s11.jsonl")
}

const CLAUDE: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl";

fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    // A command that fails before reading (bad arguments) closes its end.
    match writer.join().unwrap() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.unwrap(),
    }
    out
}

fn line_count(b: &[u8]) -> usize {
    b.split_inclusive(|&c| c == b'\n').count()
}

#[test]
fn redacts_to_stdout_and_the_output_checks_clean() {
    let input = std::fs::read(fixture()).unwrap();
    let o = retrace(&["redact", &fixture(), "--mode", "typed"]);
    // Exit 0: everything found was redacted and verified.
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(line_count(&o.stdout), line_count(&input));
    for line in o.stdout.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
        serde_json::from_slice::<serde_json::Value>(line).expect("JSON line");
    }
    let text = stdout(&o);
    assert!(text.contains("[REDACTED:aws-access-key-id]"));
    // The summary names counts per kind on stderr.
    assert!(stderr(&o).contains("redacted "), "{}", stderr(&o));
    // Its own output has nothing left to find.
    let again = with_stdin(&["redact", "-", "--check"], &o.stdout);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(again.stdout.is_empty());
    // Standard input gives the same bytes as the file.
    let piped = with_stdin(&["redact", "-", "--mode", "typed"], &input);
    assert_eq!(piped.stdout, o.stdout);
}

#[test]
fn check_only_reports_and_exits_1() {
    let o = retrace(&["redact", &fixture(), "--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    assert!(stderr(&o).contains("found "), "{}", stderr(&o));
    // A corpus file with no secrets and no personal data checks clean.
    let clean = retrace(&[
        "redact",
        &corpus("pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl"),
        "--check",
    ]);
    assert_eq!(clean.status.code(), Some(0), "{}", stderr(&clean));
}

#[test]
fn gz_in_and_out_with_atomic_output() {
    let dir = scratch("redact-gz");
    let plain = dir.join("out.jsonl");
    let gz = dir.join("out.jsonl.gz");
    let o = retrace(&["redact", &fixture(), "-o", plain.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let o = retrace(&["redact", &fixture(), "-o", gz.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let compressed = std::fs::read(&gz).unwrap();
    assert_eq!(&compressed[..2], &[0x1f, 0x8b], "gzip magic");
    let mut unpacked = Vec::new();
    flate2::read::MultiGzDecoder::new(&compressed[..])
        .read_to_end(&mut unpacked)
        .unwrap();
    assert_eq!(unpacked, std::fs::read(&plain).unwrap());
    // `.gz` input is read as such (by its magic bytes).
    let o = retrace(&["redact", gz.to_str().unwrap(), "--check"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let input_gz = dir.join("in.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&std::fs::read(fixture()).unwrap()).unwrap();
    std::fs::write(&input_gz, enc.finish().unwrap()).unwrap();
    let o = retrace(&["redact", input_gz.to_str().unwrap()]);
    assert_eq!(o.stdout, std::fs::read(&plain).unwrap());
    // No temporary file is left beside the outputs.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".tmp")), "{names:?}");
}

#[test]
fn unreadable_input_is_one_line_and_exit_2() {
    let o = retrace(&["redact", "/no/such/file.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "retrace: /no/such/file.jsonl: no such file or directory\n"
    );
    let dir = scratch("redact-dir");
    let o = retrace(&["redact", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is a directory"), "{}", stderr(&o));
    // An output directory that does not exist: exit 2, nothing written.
    let o = retrace(&["redact", &fixture(), "-o", "/no/such/dir/out.jsonl"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    // A corrupt gzip stream.
    let bad = dir.join("bad.jsonl.gz");
    std::fs::write(&bad, [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3]).unwrap();
    let o = retrace(&["redact", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
}

#[test]
fn broken_lines_pass_through_and_are_reported() {
    let input =
        b"{\"a\":\"mail maria.okafor@amber.io\"}\nnot json password=Summer2024!\n{\"b\":1}\n";
    let o = with_stdin(&["redact", "-"], input);
    assert_eq!(
        stdout(&o),
        "{\"a\":\"mail ***\"}\nnot json password=Summer2024!\n{\"b\":1}\n"
    );
    // The line is kept, and the match left in it makes the exit 1. Line 2
    // starts at byte 35 (line 1 is 34 bytes and a newline).
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(
        err.contains("-: line 2 (byte 35): not JSON, passed through unchanged; 1 match(es) in it NOT redacted"),
        "{err}"
    );
}

#[test]
fn report_has_kinds_and_paths_but_no_values() {
    let dir = scratch("redact-report");
    let report = dir.join("report.json");
    let o = retrace(&[
        "redact",
        &fixture(),
        "--mode",
        "pseudo",
        "--report",
        report.to_str().unwrap(),
        "-o",
        dir.join("o.jsonl").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&report).unwrap();
    let r: serde_json::Value = serde_json::from_str(&text).unwrap();
    let findings = r["findings"].as_array().unwrap();
    assert_eq!(findings.len() as u64, r["total"].as_u64().unwrap());
    assert!(r["counts"]["email"].as_u64().unwrap() > 10);
    assert_eq!(r["mode"], "pseudo");
    assert_eq!(r["leftovers"], 0);
    let f = &findings[0];
    for key in [
        "kind",
        "tier",
        "line",
        "offset",
        "path",
        "span",
        "replacement",
    ] {
        assert!(!f[key].is_null(), "{key} missing in {f}");
    }
    // No planted value appears in the report.
    let truth: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixture().replace("corpus-s11.jsonl", "corpus-s11.truth.json")).unwrap(),
    )
    .unwrap();
    for p in truth["planted"].as_array().unwrap() {
        let v = p["value"].as_str().unwrap();
        if v.len() >= 8 {
            assert!(!text.contains(v), "report leaks {}", p["kind"]);
        }
    }
}

#[test]
fn custom_rules_file() {
    let dir = scratch("redact-rules");
    let rules = dir.join("rules.toml");
    std::fs::write(
        &rules,
        "disable = [\"email\"]\n[[rule]]\nkind = \"acme-token\"\npattern = 'acme_[a-z0-9]{16}'\nkeywords = [\"acme_\"]\n",
    )
    .unwrap();
    let input = b"{\"t\":\"acme_0123456789abcdef maria@amber.io\"}\n";
    let o = with_stdin(
        &[
            "redact",
            "-",
            "--mode",
            "typed",
            "--rules",
            rules.to_str().unwrap(),
        ],
        input,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        o.stdout,
        b"{\"t\":\"[REDACTED:acme-token] maria@amber.io\"}\n"
    );
    std::fs::write(&rules, "[[rule]]\nkind = \"x\"\npattern = '('\n").unwrap();
    let o = with_stdin(&["redact", "-", "--rules", rules.to_str().unwrap()], input);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("rules.toml: rule 1 (kind `x`): bad pattern"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn info_and_show_redact_what_they_print() {
    // The path and the session's cwd hold the user name `dain`.
    for args in [
        vec!["info", CLAUDE],
        vec!["info", "--json", CLAUDE],
        vec!["show", CLAUDE],
        vec!["show", "--json", CLAUDE],
    ] {
        let path = corpus(CLAUDE);
        let args: Vec<&str> = args
            .iter()
            .map(|a| if *a == CLAUDE { path.as_str() } else { a })
            .collect();
        let plain = retrace(&args);
        assert!(plain.status.success());
        assert!(
            String::from_utf8_lossy(&plain.stdout).contains("dain"),
            "{args:?}"
        );
        let mut red_args = args.clone();
        red_args.push("--redact");
        let red = retrace(&red_args);
        assert!(red.status.success(), "{}", stderr(&red));
        let text = String::from_utf8_lossy(&red.stdout);
        assert!(
            !text.contains("dain"),
            "{args:?} --redact still shows the user name"
        );
        assert!(text.contains("[REDACTED:home-username]"), "{args:?}");
        if args.contains(&"--json") {
            for line in text.lines() {
                serde_json::from_str::<serde_json::Value>(line).expect("JSON line");
            }
        }
    }
}

#[test]
fn parallel_parts_give_the_bytes_of_one_redactor() {
    // The CLI cuts typed/mask redaction into parts on several threads; the
    // result must be what one sequential redactor writes. A file larger
    // than one part (2 MiB): the fixture repeated.
    use retrace_core::redact::{Mode, Redactor, Rules};
    let one = std::fs::read(fixture()).unwrap();
    let big: Vec<u8> = one.iter().copied().cycle().take(one.len() * 12).collect();
    for mode in ["mask", "typed"] {
        let o = with_stdin(&["redact", "-", "--mode", mode], &big);
        assert!(o.status.success(), "{}", stderr(&o));
        let mut r = Redactor::new(
            std::sync::Arc::new(Rules::builtin()),
            Mode::parse(mode).unwrap(),
        );
        let mut expected = Vec::new();
        r.push(&big, &mut expected);
        r.finish(&mut expected);
        assert!(o.stdout == expected, "{mode}: threads changed the output");
        // The summary counts every part.
        let total = r.summary().findings();
        assert!(
            stderr(&o).contains(&format!("redacted {total} match(es)")),
            "{}",
            stderr(&o)
        );
    }
}

/// A JSON document bigger than the parts the CLI redacts in parallel is
/// still redacted whole (parts cut at newlines would cut it apart).
#[test]
fn a_big_json_document_is_redacted_whole() {
    let mut doc = String::from("{\n  \"sessionId\": \"s\",\n  \"messages\": [\n");
    for i in 0..80_000 {
        doc.push_str(&format!(
            "    {{\n      \"type\": \"user\",\n      \"content\": \"filler text number {i} of many\"\n    }},\n"
        ));
    }
    doc.push_str("    {\n      \"type\": \"user\",\n      \"content\": \"key AKIA2E0A8F3B244C9986, mail jane.doe@fastmail.com\"\n    }\n  ]\n}\n");
    assert!(doc.len() > 4 << 20, "bigger than a parallel part");
    for mode in ["typed", "mask"] {
        let out = with_stdin(&["redact", "--mode", mode, "-"], doc.as_bytes());
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(line_count(&out.stdout), line_count(doc.as_bytes()));
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let last = value["messages"][80_000]["content"].as_str().unwrap();
        assert!(
            !last.contains("AKIA2E0A8F3B244C9986") && !last.contains("jane.doe"),
            "{last}"
        );
        assert!(stderr(&out).contains("2 match(es)"), "{}", stderr(&out));
    }
}
