//! Redaction on real inputs: the shared corpus (every file), a generated
//! evaluation corpus with ground truth (`tests/fixtures/redact`), chunking,
//! modes, custom rules, and generated and mutated inputs.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use retrace_core::redact::{
    findings_in, value_hash, AllowedFinding, Exceptions, Finding, Mode, Redactor, Rules, Summary,
};
use serde_json::Value;

use crate::common;

fn rules() -> Arc<Rules> {
    Arc::new(Rules::builtin())
}

/// Redacts `bytes` pushed in chunks of `chunk`; returns output and summary.
fn redact_chunked(bytes: &[u8], mode: Mode, chunk: usize) -> (Vec<u8>, Summary) {
    redact_with(rules(), bytes, mode, chunk)
}

fn redact_with(rules: Arc<Rules>, bytes: &[u8], mode: Mode, chunk: usize) -> (Vec<u8>, Summary) {
    let mut r = Redactor::new(rules, mode);
    let mut out = Vec::new();
    for piece in bytes.chunks(chunk.max(1)) {
        r.push(piece, &mut out);
        r.drain_findings().for_each(drop);
    }
    r.finish(&mut out);
    (out, r.summary().clone())
}

fn redact(text: &str, mode: Mode) -> String {
    String::from_utf8(redact_chunked(text.as_bytes(), mode, 1 << 20).0).unwrap()
}

fn lines(b: &[u8]) -> Vec<&[u8]> {
    b.split_inclusive(|&c| c == b'\n').collect()
}

/// The invariant every output keeps: the same number of lines; each
/// input line that is JSON is JSON after; a line that is not JSON is
/// passed through unchanged.
fn check_invariant(input: &[u8], output: &[u8]) {
    let (a, b) = (lines(input), lines(output));
    assert_eq!(a.len(), b.len(), "line count");
    for (n, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(
            x.ends_with(b"\n"),
            y.ends_with(b"\n"),
            "line {} ending",
            n + 1
        );
        // A line serde_json reads must stay JSON with the same shape; one
        // it rejects is passed through (checked in the broken-line tests;
        // the walker also reads what serde_json refuses, e.g. lone
        // surrogate escapes, and redacts inside those).
        if let Ok(before) = serde_json::from_slice::<Value>(trim(x)) {
            let after: Value = serde_json::from_slice(trim(y)).unwrap_or_else(|e| {
                panic!(
                    "line {}: output is not JSON ({e}): {}",
                    n + 1,
                    String::from_utf8_lossy(y)
                )
            });
            assert!(
                same_shape(&shape(&before), &shape(&after)),
                "line {} structure: {} became {}",
                n + 1,
                String::from_utf8_lossy(x),
                String::from_utf8_lossy(y)
            );
        }
    }
}

fn trim(l: &[u8]) -> &[u8] {
    let l = l.strip_suffix(b"\n").unwrap_or(l);
    let l = l.strip_suffix(b"\r").unwrap_or(l);
    l.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l)
}

/// Two shapes are the same, but for a number of personal data written as
/// a placeholder string (the one change of type redaction makes: a JSON
/// number has no room for a placeholder).
fn same_shape(before: &Value, after: &Value) -> bool {
    match (before, after) {
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_shape(x, y))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|((_, x), (_, y))| same_shape(x, y))
        }
        // Strings are compared by type (`shape` keeps only placeholders).
        (Value::String(_), Value::String(_)) => true,
        (Value::Number(_), Value::String(p)) => is_placeholder(p),
        (a, b) => a == b,
    }
}

/// What a mode writes for one whole value: `***`, `[REDACTED:kind]`, `<kind-N>`.
pub(crate) fn is_placeholder(s: &str) -> bool {
    let kind = |k: &str| {
        !k.is_empty()
            && k.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    s == "***"
        || s.strip_prefix("[REDACTED:")
            .and_then(|r| r.strip_suffix(']'))
            .is_some_and(kind)
        || s.strip_prefix('<')
            .and_then(|r| r.strip_suffix('>'))
            .and_then(|r| r.rsplit_once('-'))
            .is_some_and(|(k, n)| kind(k) && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Keys, types and non-string values; strings holding JSON are compared
/// by their own shape (as the evaluation scorer does).
fn shape(v: &Value) -> Value {
    match v {
        // Keys are data too (a home path as a key loses its user name), so
        // an object's shape is its values' shapes in key order.
        Value::Object(m) => Value::Array(m.values().map(shape).collect()),
        Value::Array(a) => Value::Array(a.iter().map(shape).collect()),
        Value::String(s) if s.starts_with('{') || s.starts_with('[') => {
            match serde_json::from_str::<Value>(s) {
                Ok(inner) => serde_json::json!({ "$json": shape(&inner) }),
                Err(_) => Value::String(String::new()),
            }
        }
        Value::String(s) if is_placeholder(s) => Value::String(s.clone()),
        Value::String(_) => Value::String(String::new()),
        other => other.clone(),
    }
}

#[test]
fn every_corpus_file_redacts_to_valid_json_and_verifies_clean() {
    let mut changed_files = 0;
    for path in common::corpus_files() {
        let bytes = std::fs::read(&path).unwrap();
        let (out, summary) = redact_chunked(&bytes, Mode::Typed, 64 << 10);
        check_invariant(&bytes, &out);
        assert_eq!(
            summary.leftovers,
            0,
            "{}: verify found {:?}",
            path.display(),
            summary.leftover
        );
        // Usage figures, times and ids are numbers that stay numbers: no
        // corpus file holds personal data as a number.
        assert_eq!(summary.numbers_as_strings, 0, "{}", path.display());
        // Redacting the output again finds nothing (placeholders are not
        // findings, nothing was left half-redacted).
        let (again, second) = redact_chunked(&out, Mode::Typed, 64 << 10);
        assert_eq!(
            second.findings(),
            0,
            "{}: second pass found more",
            path.display()
        );
        assert_eq!(again, out);
        if summary.findings() > 0 {
            changed_files += 1;
        }
    }
    // Real sessions carry home paths (`/Users/dain/…`) and more.
    assert!(
        changed_files >= 10,
        "only {changed_files} corpus files had findings"
    );
}

#[test]
fn corpus_broken_lines_pass_through_unchanged() {
    // The pi fixture has a non-JSON line (checked by hand: line 7).
    let bytes = common::read("pi/kenn-io__agentsview/internal/parser/testdata/pi/session.jsonl");
    let (out, summary) = redact_chunked(&bytes, Mode::Mask, 4096);
    assert_eq!(summary.broken_lines, 1);
    let broken = summary.broken[0].line as usize;
    assert!(serde_json::from_slice::<Value>(trim(lines(&bytes)[broken - 1])).is_err());
    assert_eq!(lines(&bytes)[broken - 1], lines(&out)[broken - 1]);
}

#[test]
fn output_does_not_depend_on_chunking() {
    for rel in [
        "pi/badlogic__pi-mono/session.jsonl",
        "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl",
    ] {
        let bytes = common::read(rel);
        let (whole, s) = redact_chunked(&bytes, Mode::Pseudo, bytes.len());
        assert!(s.findings() > 0, "{rel}");
        for chunk in [1, 7, 4096, 65536] {
            let (out, _) = redact_chunked(&bytes, Mode::Pseudo, chunk);
            assert!(out == whole, "{rel}: chunks of {chunk} give other bytes");
        }
    }
    let fixture = fixture_bytes();
    let (whole, _) = redact_chunked(&fixture, Mode::Pseudo, fixture.len());
    let (small, _) = redact_chunked(&fixture, Mode::Pseudo, 13);
    assert!(small == whole);
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/redact")
}

fn fixture_bytes() -> Vec<u8> {
    std::fs::read(fixture_dir().join("corpus-s11.jsonl")).unwrap()
}

/// Every string of a JSON value, also inside strings that hold JSON.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => {
            out.push(s.clone());
            if s.len() > 1 && (s.starts_with('{') || s.starts_with('[')) {
                if let Ok(inner) = serde_json::from_str::<Value>(s) {
                    strings(&inner, out);
                }
            }
        }
        Value::Object(m) => {
            for (k, v) in m {
                out.push(k.clone());
                strings(v, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| strings(v, out)),
        _ => {}
    }
}

fn resolve<'a>(v: &'a Value, path: &[Value]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, p| match p {
        Value::String(k) => v.get(k.as_str()),
        Value::Number(n) => v.get(n.as_u64()? as usize),
        _ => None,
    })
}

/// Recall, decoys and clean lines on the generated evaluation corpus,
/// scored the way `redact_score.py` does (a value counts as redacted when
/// it is gone from the raw line and from every decoded string).
#[test]
fn generated_corpus_meets_the_targets() {
    let input = fixture_bytes();
    let truth: Value = serde_json::from_slice(
        &std::fs::read(fixture_dir().join("corpus-s11.truth.json")).unwrap(),
    )
    .unwrap();
    let (output, summary) = redact_chunked(&input, Mode::Typed, 1 << 16);
    check_invariant(&input, &output);
    assert_eq!(summary.leftovers, 0);
    let (inl, outl) = (lines(&input), lines(&output));
    let hay: Vec<String> = outl
        .iter()
        .map(|l| {
            let raw = String::from_utf8_lossy(l).into_owned();
            let mut all = vec![raw];
            strings(&serde_json::from_slice(trim(l)).unwrap(), &mut all);
            all.join("\u{0}")
        })
        .collect();
    let mut planted_lines = std::collections::HashSet::new();
    let (mut total, mut gone) = ([0usize; 2], [0usize; 2]);
    let mut missed = Vec::new();
    for p in truth["planted"].as_array().unwrap() {
        let line = p["line"].as_u64().unwrap() as usize;
        planted_lines.insert(line);
        let tier = match p["tier"].as_str().unwrap() {
            "secret" => 0,
            "pii" => 1,
            _ => continue,
        };
        let h = &hay[line - 1];
        let mut values = vec![p["value"].as_str().unwrap()];
        if let Some(f) = p["fragments"].as_array() {
            values.extend(f.iter().map(|x| x.as_str().unwrap()));
        }
        total[tier] += 1;
        if values.iter().all(|v| !h.contains(v)) {
            gone[tier] += 1;
        } else {
            missed.push(format!("line {line} {}", p["kind"]));
        }
    }
    let secret = gone[0] as f64 / total[0] as f64;
    let pii = gone[1] as f64 / total[1] as f64;
    assert!(
        total[0] > 100 && total[1] > 100,
        "fixture too small: {total:?}"
    );
    assert!(secret >= 0.99, "secret recall {secret:.4}: {missed:?}");
    assert!(pii >= 0.95, "PII recall {pii:.4}: {missed:?}");
    let mut soft_lines = std::collections::HashSet::new();
    let mut hard = 0;
    for d in truth["decoys"].as_array().unwrap() {
        let line = d["line"].as_u64().unwrap() as usize;
        if d["hard"] == false {
            soft_lines.insert(line);
            continue;
        }
        hard += 1;
        let alive = match d.get("path") {
            Some(Value::Array(path)) => {
                let before: Value = serde_json::from_slice(trim(inl[line - 1])).unwrap();
                let after: Value = serde_json::from_slice(trim(outl[line - 1])).unwrap();
                resolve(&before, path) == resolve(&after, path)
            }
            _ => hay[line - 1].contains(d["value"].as_str().unwrap()),
        };
        assert!(alive, "hard decoy altered on line {line}: {}", d["kind"]);
    }
    assert!(hard > 400, "{hard} hard decoys");
    // Clean lines (nothing planted, no soft decoy) stay byte for byte.
    let mut clean = 0;
    for (n, (a, b)) in inl.iter().zip(&outl).enumerate() {
        if !planted_lines.contains(&(n + 1)) && !soft_lines.contains(&(n + 1)) {
            clean += 1;
            assert_eq!(a, b, "clean line {} altered", n + 1);
        }
    }
    assert!(clean > 200, "{clean} clean lines");
}

#[test]
fn modes() {
    let line = r#"{"cmd":"curl -u admin:Hunter2Pass! https://api.example.io && mail maria.okafor@amber.io maria.okafor@amber.io"}"#;
    assert_eq!(
        redact(line, Mode::Mask),
        r#"{"cmd":"curl -u admin:*** https://api.example.io && mail *** ***"}"#
    );
    assert_eq!(
        redact(line, Mode::Typed),
        r#"{"cmd":"curl -u admin:[REDACTED:curl-basic-auth] https://api.example.io && mail [REDACTED:email] [REDACTED:email]"}"#
    );
    // Pseudonyms: the same value, the same placeholder, across lines.
    let two =
        format!("{line}\n{{\"to\":\"maria.okafor@amber.io\",\"cc\":\"wei.chen@delta.dev\"}}\n");
    assert_eq!(
        redact(&two, Mode::Pseudo),
        "{\"cmd\":\"curl -u admin:<curl-basic-auth-1> https://api.example.io && mail <email-1> <email-1>\"}\n\
         {\"to\":\"<email-1>\",\"cc\":\"<email-2>\"}\n"
    );
}

#[test]
fn escapes_nested_json_and_untouched_bytes() {
    // A key after `\n` (the raw line reads `\nAKIA…`), inside a string
    // that holds JSON (a Codex tool call), with other escapes kept as they
    // were written (`\u00e9`, `\/`).
    let line = r#"{"type":"function_call","arguments":"{\"command\":[\"bash\",\"-lc\",\"cat .env\\nAWS_ACCESS_KEY_ID=AKIA2E0A8F3B244C9986\"],\"note\":\"caf\\u00e9 \\/ ok\"}","x":"\u00e9"}"#;
    let out = redact(line, Mode::Typed);
    assert_eq!(
        out,
        r#"{"type":"function_call","arguments":"{\"command\":[\"bash\",\"-lc\",\"cat .env\\nAWS_ACCESS_KEY_ID=[REDACTED:aws-access-key-id]\"],\"note\":\"caf\\u00e9 \\/ ok\"}","x":"\u00e9"}"#
    );
    let found = findings_in(&rules(), line.as_bytes()).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path, "arguments.$json.command[2]");
    assert_eq!(rules().kind(found[0].kind).name, "aws-access-key-id");
    // The span is in the decoded innermost string: `cat .env\nAWS_…=AKIA…`.
    assert_eq!(found[0].span, 27..47);
}

#[test]
fn binary_payloads_and_placeholders_are_left_alone() {
    let image = "iVBORw0KGgo".repeat(200);
    let sig = format!("Eq{}", "AKIAIOSFODNN7EXAMPLE".repeat(20));
    let lines = [
        format!(r#"{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{image}"}}}}"#),
        format!(r#"{{"type":"thinking","thinking":"hmm","signature":"{sig}"}}"#),
        r#"{"text":"AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE DB_PASSWORD=changeme API_KEY=${API_KEY} token=<your-key> OPENAI_API_KEY=sk-your-key-here PASSWORD=xxxxxxxx"}"#.to_owned(),
        r#"{"text":"password = getpass.getpass(\"Password: \")\nAPI_KEY = os.environ[\"OPENAI_API_KEY\"]\nheaders = {\"Authorization\": f\"Bearer {token}\"}"}"#.to_owned(),
        r#"{"text":"commit 3f2a9c1e5b7d4a6f8e0c2b4d6f8a0c2e4b6d8f0a\nVersion=8.0.0.0 127.0.0.1 ::1 std::io 02:42:ac:11:00:02 order 4242424242424241 claude-sonnet-4-20250514 uuid 123e4567-e89b-42d3-a456-426614174000"}"#.to_owned(),
        r#"{"text":"git@github.com:org/repo.git Co-Authored-By: Claude <noreply@anthropic.com> pk_live_51HxYzAbCdEfGhIjKlMnOpQr 10.0.0.12 192.168.1.20"}"#.to_owned(),
        // Seen in the shared corpus (a CI log, TypeScript signatures).
        r#"{"text":"Trying to restore uv cache from GitHub Actions cache with key: setup-uv-1-x86_64-unknown-linux-gnu-3.12-0d3f9a1b2c
export function save(provider: string, creds: OAuthCredentials): void {
	const credentials: OAuthCredentials = {"}"#.to_owned(),
    ];
    for l in &lines {
        assert_eq!(&redact(l, Mode::Typed), l);
    }
}

#[cfg(feature = "custom-rules")]
#[test]
fn custom_rules_allowlist_and_disabled_kinds() {
    let toml = br#"
disable = ["home-username"]

[[rule]]
kind = "acme-token"
pattern = 'acme_[a-z0-9]{16}'
keywords = ["acme_"]

[[rule]]
kind = "ticket-secret"
pattern = 'ticket=([A-Z]{8})'
group = 1
tier = "pii"

[allow]
values = ["maria@amber.io"]
patterns = ['AKIA[A-Z0-9]{12}TEST']
"#;
    let rules = Arc::new(Rules::with_config(toml).unwrap());
    let id = rules.kind_id("acme-token").unwrap();
    assert_eq!(rules.kind(id).name, "acme-token");
    let line = r#"{"text":"/Users/dain/src acme_0123456789abcdef ticket=QWERTYUI maria@amber.io wei@delta.dev AKIA2E0A8F3BTEST"}"#;
    let (out, _) = redact_with(rules.clone(), line.as_bytes(), Mode::Typed, 100);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        r#"{"text":"/Users/dain/src [REDACTED:acme-token] ticket=[REDACTED:ticket-secret] maria@amber.io [REDACTED:email] AKIA2E0A8F3BTEST"}"#
    );
    // The same in JSON.
    let json = br#"{"rule":[{"kind":"acme-token","pattern":"acme_[a-z0-9]{16}"}],"allow":{"values":["x"]}}"#;
    assert!(Rules::with_config(json)
        .unwrap()
        .kind_id("acme-token")
        .is_some());
    // Errors say where and what.
    let bad = Rules::with_config(b"[[rule]]\nkind = \"x\"\npattern = \"(\"\n").unwrap_err();
    assert!(bad.0.contains("rule 1 (kind `x`): bad pattern"), "{bad}");
    let bad = Rules::with_config(b"disable = [\"nope\"]").unwrap_err();
    assert_eq!(bad.0, "disable: no kind named `nope`");
    let bad = Rules::with_config(b"[[rule]]\nkind = \"x\"\npatern = \"a\"\n").unwrap_err();
    assert!(
        bad.0.starts_with("TOML line ") && bad.0.contains("patern"),
        "{bad}"
    );
}

/// A small deterministic generator (xorshift), so the invariant is
/// checked on many shapes without a fuzzer.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len() as u64) as usize]
    }

    fn text(&mut self) -> String {
        const BITS: &[&str] = &[
            "password=Summer2024! ",
            "ghp_",
            "sk-proj-",
            "AKIA2E0A8F3B244C9986",
            " \\n",
            "\u{1b}[01;31m",
            "é",
            "😀",
            "\"",
            "\\",
            "\n",
            "\t",
            "@",
            "maria@amber.io",
            "-----BEGIN PRIVATE KEY-----\nMIIE\n",
            "-----END PRIVATE KEY-----",
            "https://u:p4ssw0rd!@host/x",
            "203.0.113.9 ",
            "8.8.8.8",
            "2a01:4f8::1",
            "4242 4242 4242 4242",
            "DE89 3704 0044 0532 0130 00",
            "+1 212 555 0142",
            "/Users/maria/",
            "{\"a\":",
            "[1,",
            "}",
            "]",
            "Bearer abcdefghijklmnop1234",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijklmnopqrstu",
            "key",
            ":",
            "=",
            " ",
            "x",
            "0",
            "\u{0}",
            "\u{7f}",
        ];
        (0..self.below(12)).map(|_| self.pick(BITS)).collect()
    }

    fn value(&mut self, depth: u32) -> Value {
        match if depth > 3 {
            self.below(4)
        } else {
            self.below(8)
        } {
            0 => Value::Null,
            1 => Value::from(self.below(1000) as i64 - 500),
            2 | 3 => Value::String(self.text()),
            4 => {
                // JSON inside a string.
                Value::String(self.value(depth + 1).to_string())
            }
            5 | 6 => Value::Object(
                (0..self.below(4))
                    .map(|_| {
                        (
                            self.pick(&["password", "token", "data", "signature", "text", "x"])
                                .to_owned()
                                + &self.below(3).to_string(),
                            self.value(depth + 1),
                        )
                    })
                    .collect(),
            ),
            _ => Value::Array((0..self.below(4)).map(|_| self.value(depth + 1)).collect()),
        }
    }
}

#[test]
fn generated_json_lines_keep_the_invariant() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let mut input = Vec::new();
    for _ in 0..3000 {
        let v = g.value(0);
        input.extend_from_slice(serde_json::to_string(&v).unwrap().as_bytes());
        input.push(b'\n');
    }
    for mode in [Mode::Mask, Mode::Typed, Mode::Pseudo] {
        let (out, summary) = redact_chunked(&input, mode, 997);
        check_invariant(&input, &out);
        assert_eq!(summary.broken_lines, 0);
        assert_eq!(summary.leftovers, 0, "{:?}", summary.leftover);
        assert!(summary.findings() > 500);
    }
}

#[test]
fn mutated_lines_never_panic_and_keep_the_line_count() {
    let base = fixture_bytes();
    let mut g = Gen(42);
    for _ in 0..200 {
        let mut bytes = base[..base.len().min(40_000)].to_vec();
        for _ in 0..g.below(20) + 1 {
            let at = g.below(bytes.len() as u64) as usize;
            match g.below(3) {
                0 => bytes[at] = g.below(256) as u8,
                1 => {
                    bytes.remove(at);
                }
                _ => {
                    const NASTY: &[u8] = b"\"\\{}[]:,\n\r\x00\xff";
                    bytes.insert(at, NASTY[g.below(NASTY.len() as u64) as usize])
                }
            }
        }
        let (out, _) = redact_chunked(&bytes, Mode::Pseudo, 1 + g.below(5000) as usize);
        check_invariant(&bytes, &out);
    }
}

/// A pretty-printed JSON document (a Gemini CLI legacy session, a provider
/// list as an array) is redacted whole: valid JSON out, the same lines,
/// findings on the lines they are on, whatever the chunking.
#[test]
fn whole_documents_are_redacted_as_one_value() {
    let doc = "{\n  \"sessionId\": \"s\",\n  \"messages\": [\n    {\n      \"type\": \"user\",\n      \"content\": \"my key is AKIA2E0A8F3B244C9986, mail me at jane.doe@fastmail.com\"\n    }\n  ]\n}\n";
    let rules = std::sync::Arc::new(retrace_core::redact::Rules::builtin());
    let mut whole = Vec::new();
    for chunk in [1usize, 7, 4096] {
        let mut r =
            retrace_core::redact::Redactor::new(rules.clone(), retrace_core::redact::Mode::Typed);
        let mut out = Vec::new();
        for piece in doc.as_bytes().chunks(chunk) {
            r.push(piece, &mut out);
        }
        r.finish(&mut out);
        let found: Vec<(u64, String)> = r
            .drain_findings()
            .map(|f| (f.line, rules.kind(f.kind).name.clone()))
            .collect();
        assert_eq!(
            found,
            [(6, "aws-access-key-id".to_owned()), (6, "email".to_owned())],
            "chunk {chunk}"
        );
        assert_eq!(r.summary().lines, 9);
        if whole.is_empty() {
            whole = out;
        } else {
            assert_eq!(out, whole, "chunk {chunk}");
        }
    }
    let text = String::from_utf8(whole).unwrap();
    assert_eq!(text.lines().count(), doc.lines().count());
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value["messages"][0]["content"],
        "my key is [REDACTED:aws-access-key-id], mail me at [REDACTED:email]"
    );
    // A JSON-lines file whose second line is cut short stays line by line:
    // the lines after it are still redacted.
    let jsonl = "{\"a\":\"x\"}\n{\"b\":\"cut\n{\"c\":\"jane.doe@fastmail.com\"}\n";
    let mut r =
        retrace_core::redact::Redactor::new(rules.clone(), retrace_core::redact::Mode::Typed);
    let mut out = Vec::new();
    r.push(jsonl.as_bytes(), &mut out);
    r.finish(&mut out);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "{\"a\":\"x\"}\n{\"b\":\"cut\n{\"c\":\"[REDACTED:email]\"}\n"
    );
    assert_eq!(r.summary().broken_lines, 1);
}

/// A JSON-lines file whose first line was cut short looks like the start
/// of a document until the next line: when that is a whole object of its
/// own, the first line is a torn line (passed through, reported) and the
/// rest is redacted line by line, as the reader frames it, whatever the
/// chunking and wherever the cut.
#[test]
fn a_first_line_cut_short_is_a_torn_line_not_a_document() {
    let first = r#"{"sessionId": "5c1f3a9e-2b7d-4e8a", "projectHash": "9b2e6f4a"}"#;
    let rest = "\n\n{\"id\":\"a\",\"type\":\"user\",\"content\":\"mail jane.doe@fastmail.com\"}\n{\"id\":\"b\"}\n";
    for cut in [1, 20, first.len() - 1] {
        let input = format!("{}{rest}", &first[..cut]);
        let want = format!(
            "{}\n\n{{\"id\":\"a\",\"type\":\"user\",\"content\":\"mail [REDACTED:email]\"}}\n{{\"id\":\"b\"}}\n",
            &first[..cut]
        );
        for chunk in [1, 7, 4096] {
            let (out, summary) = redact_chunked(input.as_bytes(), Mode::Typed, chunk);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                want,
                "cut {cut}, chunk {chunk}"
            );
            assert_eq!((summary.broken_lines, summary.lines), (1, 4), "cut {cut}");
            assert_eq!(summary.broken[0].line, 1);
        }
    }
    // A document whose first line opens its framed array, one element on
    // each line after it, is still redacted whole.
    let doc = "{\"model\": \"m\", \"messages\": [\n{\"role\": \"user\", \"content\": \"mail jane.doe@fastmail.com\"}\n]}\n";
    let out = redact(doc, Mode::Typed);
    let value: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(value["messages"][0]["content"], "mail [REDACTED:email]");
    // So is an array, whatever its lines (no JSON line is an array).
    let out = redact(
        "[\n{\"content\": \"jane.doe@fastmail.com\"}\n]\n",
        Mode::Typed,
    );
    let value: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(value[0]["content"], "[REDACTED:email]");
}

/// Redacts `bytes` whole; returns output, summary and every finding.
fn redact_findings(
    rules: Arc<Rules>,
    bytes: &[u8],
    mode: Mode,
) -> (Vec<u8>, Summary, Vec<Finding>) {
    let mut r = Redactor::new(rules, mode);
    let mut out = Vec::new();
    let mut found = Vec::new();
    for piece in bytes.chunks(1 << 16) {
        r.push(piece, &mut out);
        found.extend(r.drain_findings());
    }
    r.finish(&mut out);
    found.extend(r.drain_findings());
    (out, r.summary().clone(), found)
}

/// The raw bytes of a finding whose value has no escape (its decoded and
/// raw lengths agree), checked against its hash.
fn plain_value<'a>(input: &'a [u8], f: &Finding) -> Option<&'a [u8]> {
    let at = f.offset as usize;
    let raw = input.get(at..at + f.span.len())?;
    (value_hash(raw) == f.hash).then_some(raw)
}

/// The review's exceptions on the generated corpus: a whole kind, and
/// single findings of other kinds (plain values, so the test can find them
/// in the output), one per kind.
fn review(
    input: &[u8],
    found: &[Finding],
    rules: &Rules,
    kind: &str,
) -> (Exceptions, Vec<Vec<u8>>) {
    let mut picked: Vec<&Finding> = Vec::new();
    for f in found {
        let name = &rules.kind(f.kind).name;
        if name != kind
            && [
                "email",
                "ipv4-public",
                "phone-number",
                "aws-access-key-id",
                "mac-address",
            ]
            .contains(&name.as_str())
            && picked.len() < 4
            && !picked.iter().any(|p| p.kind == f.kind)
            && plain_value(input, f).is_some()
        {
            picked.push(f);
        }
    }
    assert_eq!(
        picked.len(),
        4,
        "the corpus has plain emails, IPs, phones, AWS key ids, MACs"
    );
    let exceptions = Exceptions {
        kinds: vec![kind.to_owned()],
        findings: picked
            .iter()
            .map(|f| AllowedFinding {
                kind: rules.kind(f.kind).name.clone(),
                line: f.line,
                hash: f.hash,
            })
            .collect(),
    };
    let values = picked
        .iter()
        .map(|f| plain_value(input, f).unwrap().to_vec())
        .collect();
    (exceptions, values)
}

#[test]
fn exceptions_per_finding_and_per_kind_from_a_rules_file() {
    let input = fixture_bytes();
    let (base, base_summary, found) = redact_findings(rules(), &input, Mode::Typed);
    let builtin = Rules::builtin();
    let (exceptions, values) = review(&input, &found, &builtin, "home-username");
    let home = builtin.kind_id("home-username").unwrap();
    let homes = base_summary.counts[home.0 as usize];
    assert!(homes > 50, "{homes} home-username findings");

    // The file the viewer exports reads back into the same rules: TOML,
    // and the same decisions as JSON.
    let toml = exceptions.to_toml();
    assert!(toml.contains("disable = [\"home-username\"]"), "{toml}");
    let from_toml = Arc::new(Rules::with_config(toml.as_bytes()).unwrap());
    let direct = Arc::new(Rules::builtin().with_exceptions(&exceptions).unwrap());
    let findings_json: Vec<Value> = exceptions
        .findings
        .iter()
        .map(|f| serde_json::json!({"kind": f.kind, "line": f.line, "hash": format!("{:016x}", f.hash)}))
        .collect();
    let json =
        serde_json::json!({"disable": ["home-username"], "allow": {"findings": findings_json}});
    let from_json = Arc::new(Rules::with_config(json.to_string().as_bytes()).unwrap());

    let (out, summary, _) = redact_findings(from_toml.clone(), &input, Mode::Typed);
    for other in [&direct, &from_json] {
        let (o, _, _) = redact_findings(other.clone(), &input, Mode::Typed);
        assert!(o == out, "the same exceptions, the same bytes");
    }
    // The kind is left everywhere, the single findings only where they
    // were; every other finding is redacted as before.
    assert_eq!(summary.counts.get(home.0 as usize).copied().unwrap_or(0), 0);
    assert_eq!(summary.allowed, 4);
    assert_eq!(summary.findings(), base_summary.findings() - homes - 4);
    assert_eq!(summary.leftovers, 0);
    check_invariant(&input, &out);
    let (in_lines, out_lines, base_lines) = (lines(&input), lines(&out), lines(&base));
    for (f, value) in exceptions.findings.iter().zip(&values) {
        let line = out_lines[f.line as usize - 1];
        assert!(
            line.windows(value.len()).any(|w| w == value.as_slice()),
            "line {}: {} left in place",
            f.line,
            f.kind
        );
        assert!(!base_lines[f.line as usize - 1]
            .windows(value.len())
            .any(|w| w == value.as_slice()));
    }
    // Lines without an exception are as before.
    let touched: Vec<usize> = exceptions
        .findings
        .iter()
        .map(|f| f.line as usize)
        .collect();
    for (n, (o, b)) in out_lines.iter().zip(&base_lines).enumerate() {
        let has_home = String::from_utf8_lossy(in_lines[n]).contains("/Users/")
            || String::from_utf8_lossy(in_lines[n]).contains("/home/");
        if !touched.contains(&(n + 1)) && !has_home {
            assert_eq!(o, b, "line {} changed", n + 1);
        }
    }

    // Re-running is the same bytes, in any chunking, and cut into parts
    // redacted apart (`resume_at`, as the CLI's parallel pump does).
    let (chunked, _) = redact_with(from_toml.clone(), &input, Mode::Typed, 777);
    assert!(chunked == out);
    let cut = input.len() / 2;
    let cut = cut + input[cut..].iter().position(|&b| b == b'\n').unwrap() + 1;
    let before = input[..cut].iter().filter(|&&b| b == b'\n').count() as u64;
    let mut parts = Vec::new();
    let mut first = Redactor::new(from_toml.clone(), Mode::Typed);
    first.push(&input[..cut], &mut parts);
    first.finish(&mut parts);
    let mut second = Redactor::new(from_toml.clone(), Mode::Typed);
    second.resume_at(before, cut as u64);
    second.push(&input[cut..], &mut parts);
    second.finish(&mut parts);
    assert!(parts == out, "parts redacted apart give the same bytes");

    // Another file (here: one line more at the top) fails safe: the
    // exceptions name other lines, so every single finding is redacted.
    let mut shifted = b"{\"type\":\"note\"}\n".to_vec();
    shifted.extend_from_slice(&input);
    let (_, moved, _) = redact_findings(from_toml, &shifted, Mode::Typed);
    assert_eq!(moved.allowed, 0);
    assert_eq!(moved.findings(), base_summary.findings() - homes);
}

#[test]
fn exceptions_in_a_json_document_name_the_line_they_are_on() {
    // Lines of the generated corpus as one pretty-printed JSON array (the
    // shape of a provider message list or a Gemini CLI legacy session).
    let input = fixture_bytes();
    let elements: Vec<Value> = lines(&input)[..400]
        .iter()
        .map(|l| serde_json::from_slice(trim(l)).unwrap())
        .collect();
    let doc = serde_json::to_vec_pretty(&elements).unwrap();
    let (base, _, found) = redact_findings(rules(), &doc, Mode::Mask);
    let builtin = Rules::builtin();
    let (exceptions, values) = review(&doc, &found, &builtin, "email");
    let rules = Arc::new(Rules::with_config(exceptions.to_toml().as_bytes()).unwrap());
    let (out, summary, _) = redact_findings(rules, &doc, Mode::Mask);
    assert_eq!(summary.allowed, 4);
    serde_json::from_slice::<Value>(&out).unwrap();
    let out_lines = lines(&out);
    for (f, value) in exceptions.findings.iter().zip(&values) {
        let line = out_lines[f.line as usize - 1];
        assert!(
            line.windows(value.len()).any(|w| w == value.as_slice()),
            "line {}",
            f.line
        );
    }
    assert!(base != out);
    // An unknown kind or a bad hash is an error that says which.
    let bad = Rules::with_config(
        b"[allow]\nfindings = [{ kind = \"email\", line = 3, hash = \"xyz\" }]\n",
    )
    .unwrap_err();
    assert_eq!(bad.0, "allow finding 1: hash `xyz` is not 16 hex digits");
    let bad = Rules::with_config(
        b"[allow]\nfindings = [{ kind = \"mail\", line = 3, hash = \"0000000000000001\" }]\n",
    )
    .unwrap_err();
    assert_eq!(bad.0, "allow finding 1: no kind named `mail`");
}
