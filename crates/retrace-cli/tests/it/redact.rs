//! `retrace redact` and `--redact` on real files: streams, `.gz`, atomic
//! output, reports, custom rules, `--check` and exit codes.

use std::io::{Read, Write};
use std::process::Output;

use crate::common::*;

/// The generated evaluation fixture: fake secrets and PII on known lines.
fn s11() -> String {
    fixture("redact/corpus-s11.jsonl")
}

fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    cmd(args).stdin(input).output()
}

fn line_count(b: &[u8]) -> usize {
    b.split_inclusive(|&c| c == b'\n').count()
}

#[test]
fn redacts_to_stdout_and_the_output_checks_clean() {
    let input = std::fs::read(s11()).unwrap();
    let o = retrace(&["redact", &s11(), "--mode", "typed"]);
    // Exit 0: everything found was redacted and verified.
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(line_count(&o.stdout), line_count(&input));
    for line in o.stdout.split(|&c| c == b'\n').filter(|l| !l.is_empty()) {
        serde_json::from_slice::<serde_json::Value>(line).expect("JSON line");
    }
    let text = stdout(&o);
    assert!(text.contains("[REDACTED:aws-access-key-id]"));
    // The summary names counts per kind on stderr.
    insta::assert_snapshot!(filter(&stderr(&o)), @"retrace: [FIXTURES]/redact/corpus-s11.jsonl: redacted 360 match(es) in 147 of 494 lines: home-username 95, email 51, phone-number 36, ipv4-public 11, ipv6-global 11, credit-card 6, generic-secret-assignment 6, github-token 6, password-assignment 6, gitlab-pat 5, http-bearer-token 5, iban 5, private-key-pem 5, aws-access-key-id 4, aws-secret-access-key 4, aws-session-token 4, azure-ad-client-secret 4, azure-storage-account-key 4, databricks-token 4, github-fine-grained-pat 4, huggingface-token 4, jwt 4, linear-api-key 4, openai-api-key 4, shopify-token 4, slack-webhook-url 4, stripe-secret-key 4, telegram-bot-token 4, twilio-api-key 4, url-query-token 4, us-ssn 4, vault-token 4, curl-basic-auth 3, digitalocean-token 3, google-oauth-client-secret 3, sendgrid-api-key 3, slack-token 3, anthropic-api-key 2, db-connection-password 2, gcp-api-key 2, google-oauth-access-token 2, groq-api-key 2, mac-address 2, npm-token 2, pypi-token 2, url-basic-auth 2, xai-api-key 2, sentry-token 1");
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
    // Exit 1, nothing on stdout, what was found on stderr.
    retrace_snapshot!(cmd(&["redact", &s11(), "--check"]), @"
    exit_code: 1
    ----- stdout -----
    ----- stderr -----
    retrace: [FIXTURES]/redact/corpus-s11.jsonl: found 360 match(es) in 147 of 494 lines: home-username 95, email 51, phone-number 36, ipv4-public 11, ipv6-global 11, credit-card 6, generic-secret-assignment 6, github-token 6, password-assignment 6, gitlab-pat 5, http-bearer-token 5, iban 5, private-key-pem 5, aws-access-key-id 4, aws-secret-access-key 4, aws-session-token 4, azure-ad-client-secret 4, azure-storage-account-key 4, databricks-token 4, github-fine-grained-pat 4, huggingface-token 4, jwt 4, linear-api-key 4, openai-api-key 4, shopify-token 4, slack-webhook-url 4, stripe-secret-key 4, telegram-bot-token 4, twilio-api-key 4, url-query-token 4, us-ssn 4, vault-token 4, curl-basic-auth 3, digitalocean-token 3, google-oauth-client-secret 3, sendgrid-api-key 3, slack-token 3, anthropic-api-key 2, db-connection-password 2, gcp-api-key 2, google-oauth-access-token 2, groq-api-key 2, mac-address 2, npm-token 2, pypi-token 2, url-basic-auth 2, xai-api-key 2, sentry-token 1
    ");
    // A corpus file with no secrets and no personal data checks clean.
    retrace_snapshot!(cmd(&["redact", &corpus(PI_V3), "--check"]), @"
    exit_code: 0
    ----- stdout -----
    ----- stderr -----
    retrace: [CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl: found 0 match(es) in 0 of 9 lines
    ");
}

#[test]
fn gz_in_and_out_with_atomic_output() {
    let dir = scratch("redact-gz");
    let plain = dir.join("out.jsonl");
    let gz = dir.join("out.jsonl.gz");
    let o = retrace(&["redact", &s11(), "-o", plain.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    let o = retrace(&["redact", &s11(), "-o", gz.to_str().unwrap()]);
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
    enc.write_all(&std::fs::read(s11()).unwrap()).unwrap();
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
    retrace_snapshot!(cmd(&["redact", "/no/such/file.jsonl"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: /no/such/file.jsonl: no such file or directory
    ");
    let dir = scratch("redact-dir");
    retrace_snapshot!(cmd(&["redact", dir.to_str().unwrap()]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/redact-dir: a folder is redacted into another: give -o OUTDIR (or --check)
    ");
    // An output directory that does not exist: exit 2, nothing written.
    retrace_snapshot!(cmd(&["redact", &s11(), "-o", "/no/such/dir/out.jsonl"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: cannot write /no/such/dir/out.jsonl: no such file or directory
    ");
    // A corrupt gzip stream.
    let bad = dir.join("bad.jsonl.gz");
    std::fs::write(&bad, [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3]).unwrap();
    retrace_snapshot!(cmd(&["redact", bad.to_str().unwrap()]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/redact-dir/bad.jsonl.gz: cannot read: incomplete deflate stream
    ");
}

#[test]
fn broken_lines_pass_through_and_are_reported() {
    let input =
        b"{\"a\":\"mail maria.okafor@amber.io\"}\nnot json password=Summer2024!\n{\"b\":1}\n";
    // The line is kept, and the match left in it makes the exit 1. Line 2
    // starts at byte 35 (line 1 is 34 bytes and a newline).
    retrace_snapshot!(cmd(&["redact", "-"]).stdin(&input[..]), @r#"
    exit_code: 1
    ----- stdout -----
    {"a":"mail [REDACTED:email]"}
    not json password=Summer2024!
    {"b":1}
    ----- stderr -----
    retrace: -: line 2 (byte 35): not JSON, passed through unchanged; 1 match(es) in it NOT redacted
    retrace: -: redacted 1 match(es) in 1 of 3 lines: email 1
    "#);
}

#[test]
fn report_has_kinds_and_paths_but_no_values() {
    let dir = scratch("redact-report");
    let report = dir.join("report.json");
    let o = retrace(&[
        "redact",
        &s11(),
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
        &std::fs::read(s11().replace("corpus-s11.jsonl", "corpus-s11.truth.json")).unwrap(),
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
    // The custom kind replaced, the e-mail address (disabled) kept.
    retrace_snapshot!(cmd(&[
        "redact",
        "-",
        "--mode",
        "typed",
        "--rules",
        rules.to_str().unwrap(),
    ])
    .stdin(&input[..]), @r#"
    exit_code: 0
    ----- stdout -----
    {"t":"[REDACTED:acme-token] maria@amber.io"}
    ----- stderr -----
    retrace: -: redacted 1 match(es) in 1 of 1 lines: acme-token 1
    "#);
    std::fs::write(&rules, "[[rule]]\nkind = \"x\"\npattern = '('\n").unwrap();
    retrace_snapshot!(cmd(&["redact", "-", "--rules", rules.to_str().unwrap()]).stdin(&input[..]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/redact-rules/rules.toml: rule 1 (kind `x`): bad pattern: regex parse error:
        (
        ^
    error: unclosed group
    ");
}

#[test]
fn info_and_show_redact_what_they_print() {
    // The path and the session's cwd hold the user name `dain`.
    for args in [
        vec!["info", CLAUDE_REWIND],
        vec!["info", "--json", CLAUDE_REWIND],
        vec!["show", CLAUDE_REWIND],
        vec!["show", "--json", CLAUDE_REWIND],
    ] {
        let path = corpus(CLAUDE_REWIND);
        let args: Vec<&str> = args
            .iter()
            .map(|a| {
                if *a == CLAUDE_REWIND {
                    path.as_str()
                } else {
                    a
                }
            })
            .collect();
        // `show` is redacted by default, as the viewer: `--show-sensitive`
        // prints what is written; `info` prints it unless `--redact`.
        let show = args[0] == "show";
        let mut plain_args = args.clone();
        if show {
            plain_args.push("--show-sensitive");
        }
        let plain = retrace(&plain_args);
        assert!(plain.status.success());
        assert!(
            String::from_utf8_lossy(&plain.stdout).contains("dain"),
            "{plain_args:?}"
        );
        let mut red_args = args.clone();
        red_args.push("--redact");
        let mut redacted = vec![red_args];
        if show {
            redacted.push(args.clone());
        }
        for red_args in redacted {
            let red = retrace(&red_args);
            assert!(red.status.success(), "{}", stderr(&red));
            let text = String::from_utf8_lossy(&red.stdout);
            assert!(
                !text.contains("dain"),
                "{red_args:?} still shows the user name"
            );
            assert!(text.contains("[REDACTED:home-username]"), "{red_args:?}");
            if args.contains(&"--json") {
                for line in text.lines() {
                    serde_json::from_str::<serde_json::Value>(line).expect("JSON line");
                }
            }
        }
    }
    // The path's user name, typed (a relative path: the checkout's own
    // path may hold a user name too).
    retrace_snapshot!(cmd(&["info", "--redact", CLAUDE_REWIND]).cwd(corpus_root()), @"
    exit_code: 0
    ----- stdout -----
    claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-[REDACTED:home-username]-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl
      title         Please fix these lint errors
      format        claude-code
      entries       99 in 1 file, 61 messages
      time          2025-07-17T10:50:04.055Z – 2025-07-17T20:52:33.538Z (10h 02m)
      branches      2 leaves, 1 real branch points (0 structural fan-outs)
      tool calls    26 (26 results, 3 errors; 0 without result, 0 results without call)
      model         claude-sonnet-4-20250514: 28 messages; tokens in 119 out 1873 cache read 836558 cache write 40058
      diagnostics   0 (0 errors, 0 warnings)
    ----- stderr -----
    ");
}

/// `show --redact` reads bodies through the core's redacting source, as
/// the viewer shows them: a home path used as a key (a Gemini CLI tool
/// read `trustedFolders.json`) loses its user name in the JSON too.
#[test]
fn show_redact_hides_what_the_viewer_hides() {
    let path = corpus(&format!(
        "{GEMINI_ARCHIVE}/session-2026-01-10T01-38-1deca764.json"
    ));
    for args in [vec!["show", "--redact"], vec!["show", "--redact", "--json"]] {
        let o = retrace(&[args.as_slice(), &[path.as_str()]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(!stdout(&o).contains("mischa"), "{args:?}");
    }
    let o = retrace(&["show", "--redact", "--json", &path]);
    let read = stdout(&o)
        .lines()
        .find(|l| l.contains("TRUST_PARENT") && l.contains("tool_result"))
        .unwrap()
        .to_owned();
    insta::assert_snapshot!(read, @r#"{"role":"tool","content":[{"type":"tool_result","call_id":"read_file-1768009145176-786ce459b687a8","output":"{\n  \"/home/[REDACTED:home-username]\": \"TRUST_PARENT\"\n}"}],"timestamp":1768009145189,"entries":["08e11636-9bfd-4766-8623-314e27cd0cf4"],"lines":[119]}"#);
}

#[test]
fn parallel_parts_give_the_bytes_of_one_redactor() {
    // The CLI cuts typed/mask redaction into parts on several threads; the
    // result must be what one sequential redactor writes. A file larger
    // than one part (2 MiB): the fixture repeated.
    use retrace_core::redact::{Mode, Redactor, Rules};
    let one = std::fs::read(s11()).unwrap();
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

/// The planted values of the generated fixture (its truth file).
fn planted() -> Vec<String> {
    let truth: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("redact/corpus-s11.truth.json")).unwrap())
            .unwrap();
    truth["planted"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["value"].as_str())
        .filter(|v| v.len() > 8)
        .map(str::to_owned)
        .collect()
}

#[test]
fn show_hides_sensitive_data_unless_asked() {
    let planted = planted();
    assert!(planted.len() > 50);
    let hidden = retrace(&["show", &s11()]);
    assert!(hidden.status.success(), "{}", stderr(&hidden));
    let text = stdout(&hidden);
    assert!(
        text.contains("[REDACTED:"),
        "typed placeholders, as the viewer's"
    );
    let leaked: Vec<&String> = planted
        .iter()
        .filter(|v| text.contains(v.as_str()))
        .collect();
    assert!(leaked.is_empty(), "show printed {leaked:?}");
    // The same as asking for it.
    assert_eq!(retrace(&["show", "--redact", &s11()]).stdout, hidden.stdout);
    let shown = retrace(&["show", "--show-sensitive", &s11()]);
    assert!(shown.status.success());
    let text = stdout(&shown);
    assert!(planted.iter().filter(|v| text.contains(v.as_str())).count() > 50);
    // Both at once is a contradiction.
    let both = retrace(&["show", "--redact", "--show-sensitive", &s11()]);
    assert_eq!(both.status.code(), Some(2));
    assert!(
        stderr(&both).contains("cannot be used with"),
        "{}",
        stderr(&both)
    );
}

#[test]
fn the_default_placeholder_is_typed() {
    let input = b"{\"a\":\"mail maria.okafor@amber.io\"}\n";
    let default = with_stdin(&["redact", "-"], input);
    let typed = with_stdin(&["redact", "-", "--mode", "typed"], input);
    assert_eq!(stdout(&default), "{\"a\":\"mail [REDACTED:email]\"}\n");
    assert_eq!(default.stdout, typed.stdout);
}

/// A rules file with a review's exceptions: a kind switched off, and one
/// finding (kind, line, FNV-1a 64 of the value) left in place; the others
/// of its kind are redacted.
#[test]
fn rules_file_exceptions_per_finding_and_per_kind() {
    let input = std::fs::read(s11()).unwrap();
    let text = String::from_utf8(input.clone()).unwrap();
    // A planted e-mail address (the truth file's 1-based line) that occurs
    // once in the file.
    let truth: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("redact/corpus-s11.truth.json")).unwrap())
            .unwrap();
    let (line, email) = truth["planted"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["kind"] == "email")
        .map(|p| {
            (
                p["line"].as_u64().unwrap() as usize,
                p["value"].as_str().unwrap().to_owned(),
            )
        })
        .find(|(_, v)| text.matches(v.as_str()).count() == 1)
        .expect("the fixture has an e-mail address");
    assert!(text.lines().nth(line - 1).unwrap().contains(&email));
    let hash = retrace_core::redact::value_hash(email.as_bytes());
    let dir = scratch("redact-exceptions");
    let rules = dir.join("review.rules.toml");
    let exceptions = retrace_core::redact::Exceptions {
        kinds: vec!["home-username".into()],
        findings: vec![retrace_core::redact::AllowedFinding {
            kind: "email".into(),
            line: line as u64,
            hash,
        }],
    };
    std::fs::write(&rules, exceptions.to_toml()).unwrap();
    let base = retrace(&["redact", &s11()]);
    let o = retrace(&["redact", &s11(), "--rules", rules.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains(&email), "{email} left in place");
    assert!(!stdout(&base).contains(&email));
    assert!(
        out.contains("[REDACTED:email]"),
        "other addresses still redacted"
    );
    assert!(!out.contains("[REDACTED:home-username]"));
    assert!(stdout(&base).contains("[REDACTED:home-username]"));
    assert!(
        stderr(&o).contains("; 1 left in place by the rules' exceptions"),
        "{}",
        stderr(&o)
    );
    // The lines without an exception and without a home path are as before.
    for (n, (a, b)) in out.lines().zip(stdout(&base).lines()).enumerate() {
        if n + 1 != line && !b.contains("[REDACTED:home-username]") {
            assert_eq!(a, b, "line {}", n + 1);
        }
    }
    // The same file in parallel parts and through a pipe: the same bytes.
    let piped = cmd(&["redact", "-", "--rules", rules.to_str().unwrap()])
        .stdin(input)
        .output();
    assert_eq!(piped.stdout, o.stdout);
}

#[test]
fn redact_a_folder_into_another() {
    let dir = scratch("redact-folder");
    let src = dir.join("in");
    let out = dir.join("out");
    std::fs::create_dir_all(src.join("deep")).unwrap();
    let s11 = std::fs::read(s11()).unwrap();
    let lines: Vec<&[u8]> = s11.split_inclusive(|&b| b == b'\n').collect();
    std::fs::write(src.join("a.jsonl"), lines[..200].concat()).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&lines[200..400].concat()).unwrap();
    std::fs::write(src.join("b.jsonl.gz"), gz.finish().unwrap()).unwrap();
    std::fs::write(src.join("notes.txt"), "not a session").unwrap();
    std::fs::write(src.join("deep/shot.png"), [0x89, b'P', b'N', b'G']).unwrap();
    let o = retrace(&["redact", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Every session file under its relative path, the bytes `redact FILE`
    // writes; nothing else (no temporary file left behind).
    let mut written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(written, ["a.jsonl", "b.jsonl.gz"]);
    for name in ["a.jsonl", "b.jsonl.gz"] {
        let alone = retrace(&["redact", src.join(name).to_str().unwrap()]);
        let mut got = Vec::new();
        let bytes = std::fs::read(out.join(name)).unwrap();
        if name.ends_with(".gz") {
            flate2::read::MultiGzDecoder::new(&bytes[..])
                .read_to_end(&mut got)
                .unwrap();
        } else {
            got = bytes;
        }
        assert!(got == alone.stdout, "{name}: the bytes of redact FILE");
    }
    // A report per file, the skipped files listed, a total.
    let err = stderr(&o).replace(&dir.display().to_string(), "[DIR]");
    let per_file: Vec<&str> = err.lines().filter(|l| l.contains(": redacted ")).collect();
    assert_eq!(per_file.len(), 3, "{err}");
    assert!(
        per_file[0].starts_with("retrace: a.jsonl: redacted "),
        "{err}"
    );
    assert!(
        per_file[1].starts_with("retrace: b.jsonl.gz: redacted "),
        "{err}"
    );
    assert!(err.contains("retrace: deep/shot.png: skipped (not read as a session of this folder)"));
    assert!(err.contains("retrace: notes.txt: skipped (not read as a session of this folder)"));
    assert!(
        per_file[2].starts_with("retrace: [DIR]/in: redacted 2 session file(s) into [DIR]/out: "),
        "{err}"
    );
    assert!(per_file[2].ends_with("; 2 other file(s) skipped"), "{err}");

    // Refusals: no -o, -o inside the input (nothing written there),
    // --report; each one line and exit 2.
    let inside = src.join("redacted");
    for (args, says) in [
        (vec!["redact", src.to_str().unwrap()], "give -o OUTDIR"),
        (
            vec![
                "redact",
                src.to_str().unwrap(),
                "-o",
                inside.to_str().unwrap(),
            ],
            "will not write into the folder being redacted",
        ),
        (
            vec!["redact", src.to_str().unwrap(), "-o", src.to_str().unwrap()],
            "will not write into the folder being redacted",
        ),
        (
            vec![
                "redact",
                src.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--report",
                "r.json",
            ],
            "--report takes one file",
        ),
    ] {
        let o = retrace(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    }
    assert!(!inside.exists());

    // A file that cannot be read is reported; the others are written, and
    // it leaves no file (each output is atomic); exit 2.
    std::fs::write(
        src.join("c.jsonl.gz"),
        [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3],
    )
    .unwrap();
    let out2 = dir.join("out2");
    let o = retrace(&[
        "redact",
        src.to_str().unwrap(),
        "-o",
        out2.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("c.jsonl.gz: cannot read"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("2 unreadable") || stderr(&o).contains("1 unreadable"));
    let mut written: Vec<String> = std::fs::read_dir(&out2)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    assert_eq!(written, ["a.jsonl", "b.jsonl.gz"]);
    // `--check` on a folder writes nothing and exits 1 on findings.
    std::fs::remove_file(src.join("c.jsonl.gz")).unwrap();
    let o = retrace(&["redact", src.to_str().unwrap(), "--check"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(": checked 2 session file(s): "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn numbers_keys_and_svg_paths() {
    // Issue 21's three edges in one session: personal data stored as JSON
    // numbers, a token used as a key, and SVG path data beside an address.
    let input = concat!(
        r#"{"type":"tool_result","toolUseResult":{"customer":{"card":4111111111111111,"phone":14155550123,"orders":12,"created_ms":1732752000000}}}"#,
        "\n",
        r#"{"type":"tool_result","toolUseResult":{"tokens":{"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":{"scopes":["read"]}}}}"#,
        "\n",
        r#"{"type":"tool_result","content":"<svg viewBox=\"0 0 24 24\"><path d=\"M3 3zm4.5 4.5.75.75-1.5 1.5\"/></svg> from 93.184.216.34"}"#,
        "\n",
    );
    let dir = scratch("redact-edges");
    let report = dir.join("report.json");
    let o = with_stdin(
        &["redact", "-", "--report", report.to_str().unwrap()],
        input.as_bytes(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        concat!(
            r#"{"type":"tool_result","toolUseResult":{"customer":{"card":"[REDACTED:credit-card]","phone":"[REDACTED:phone-number]","orders":12,"created_ms":1732752000000}}}"#,
            "\n",
            r#"{"type":"tool_result","toolUseResult":{"tokens":{"[REDACTED:huggingface-token]":{"scopes":["read"]}}}}"#,
            "\n",
            r#"{"type":"tool_result","content":"<svg viewBox=\"0 0 24 24\"><path d=\"M3 3zm4.5 4.5.75.75-1.5 1.5\"/></svg> from [REDACTED:ipv4-public]"}"#,
            "\n",
        )
    );
    // The note says the type changed where it did.
    insta::assert_snapshot!(filter(&stderr(&o)), @"retrace: -: redacted 4 match(es) in 3 of 3 lines: credit-card 1, huggingface-token 1, ipv4-public 1, phone-number 1; 2 number(s) written as strings");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(r["numbers_as_strings"], 2);
    let numbers: Vec<(&str, bool)> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["number"] == true))
        .collect();
    assert_eq!(
        numbers,
        [
            ("toolUseResult.customer.card", true),
            ("toolUseResult.customer.phone", true),
            ("toolUseResult.tokens[*]", false),
            ("content", false),
        ]
    );
}
