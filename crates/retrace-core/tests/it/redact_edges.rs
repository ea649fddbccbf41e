//! Redaction's edges (issue 21): personal data stored as JSON numbers,
//! secrets used as object keys, and SVG path data that looks like IPv4
//! addresses.

use std::sync::Arc;

use retrace_core::redact::{Finding, Mode, Redactor, Rules, Summary};
use serde_json::Value;

use crate::common;

fn run(input: &str, mode: Mode, chunk: usize) -> (String, Summary, Vec<Finding>) {
    let mut r = Redactor::new(Arc::new(Rules::builtin()), mode);
    let mut out = Vec::new();
    let mut findings = Vec::new();
    for piece in input.as_bytes().chunks(chunk) {
        r.push(piece, &mut out);
        findings.extend(r.drain_findings());
    }
    r.finish(&mut out);
    findings.extend(r.drain_findings());
    (
        String::from_utf8(out).unwrap(),
        r.summary().clone(),
        findings,
    )
}

/// The output of `input` in `mode` is JSON on every line, the same line
/// count, and redacting it again finds nothing.
fn settled(input: &str, mode: Mode) -> String {
    let (out, summary, _) = run(input, mode, 1 << 20);
    assert_eq!(summary.leftovers, 0, "{:?}", summary.leftover);
    assert_eq!(out.lines().count(), input.lines().count());
    for line in out.lines() {
        serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    if mode != Mode::Pseudo {
        let (again, second, _) = run(&out, mode, 1 << 20);
        assert_eq!((second.findings(), again.as_str()), (0, out.as_str()));
    }
    out
}

#[test]
fn personal_data_in_json_numbers_is_written_as_placeholder_strings() {
    let line = r#"{"card": 4111111111111111, "phone": 14155550123, "ssn": 219099999, "pin": {"password": 4921}, "on_file": [378282246310005, 12]}"#;
    let input = format!("{line}\n");
    assert_eq!(
        settled(&input, Mode::Typed),
        concat!(
            r#"{"card": "[REDACTED:credit-card]", "phone": "[REDACTED:phone-number]", "ssn": "[REDACTED:us-ssn]", "#,
            r#""pin": {"password": "[REDACTED:password-assignment]"}, "on_file": ["[REDACTED:credit-card]", 12]}"#,
            "\n"
        )
    );
    assert_eq!(
        settled(&input, Mode::Mask),
        r#"{"card": "***", "phone": "***", "ssn": "***", "pin": {"password": "***"}, "on_file": ["***", 12]}"#
            .to_owned()
            + "\n"
    );
    assert_eq!(
        settled(&input, Mode::Pseudo),
        concat!(
            r#"{"card": "<credit-card-1>", "phone": "<phone-number-1>", "ssn": "<us-ssn-1>", "#,
            r#""pin": {"password": "<password-assignment-1>"}, "on_file": ["<credit-card-2>", 12]}"#,
            "\n"
        )
    );
    // The report says which findings were numbers, and counts them.
    let (_, summary, findings) = run(&input, Mode::Typed, 7);
    assert_eq!(summary.numbers_as_strings, 5);
    assert_eq!(summary.findings(), 5);
    let paths: Vec<(&str, bool)> = findings
        .iter()
        .map(|f| (f.path.as_str(), f.number))
        .collect();
    assert_eq!(
        paths,
        [
            ("card", true),
            ("phone", true),
            ("ssn", true),
            ("pin.password", true),
            ("on_file[0]", true)
        ]
    );
    assert_eq!(findings[0].span, 0..16);
    // A number next to a string finding: only the number is counted as one.
    let (_, summary, _) = run(
        "{\"mail\":\"jane.doe@fastmail.com\",\"card\":4111111111111111}\n",
        Mode::Typed,
        3,
    );
    assert_eq!((summary.findings(), summary.numbers_as_strings), (2, 1));
}

#[test]
fn numbers_inside_json_held_in_strings_are_quoted_for_their_level() {
    // A tool's output that is JSON (one level), and JSON in a string of
    // that (two levels): the placeholder's quotes are escaped once per
    // string the number sits in.
    let input = concat!(
        r#"{"output":"{\"customer\":{\"phone\":14155550123,\"orders\":3}}"}"#,
        "\n",
        r#"{"a":"{\"b\":\"{\\\"card\\\": 4111111111111111}\"}"}"#,
        "\n"
    );
    let out = settled(input, Mode::Typed);
    assert_eq!(
        out,
        concat!(
            r#"{"output":"{\"customer\":{\"phone\":\"[REDACTED:phone-number]\",\"orders\":3}}"}"#,
            "\n",
            r#"{"a":"{\"b\":\"{\\\"card\\\": \\\"[REDACTED:credit-card]\\\"}\"}"}"#,
            "\n"
        )
    );
    let (_, _, findings) = run(input, Mode::Typed, 1 << 20);
    assert_eq!(findings[0].path, "output.$json.customer.phone");
    assert_eq!(findings[1].path, "a.$json.b.$json.card");
    // Chunking does not change a byte.
    for chunk in [1, 5, 64] {
        assert_eq!(run(input, Mode::Typed, chunk).0, out);
    }
}

#[test]
fn figures_stay_numbers() {
    // Usage figures, times and ids, including ones that pass Luhn with a
    // card's prefix under keys that name ids, times and counts; phone-sized
    // numbers without a phone key; floats, negatives and exponents.
    let input = concat!(
        r#"{"timestamp": 1732752000000, "ns": 1732752000000000000, "usage": {"input_tokens": 4111111111111111, "output_tokens": 14155550123, "cache_read_input_tokens": 219099999}}"#,
        "\n",
        r#"{"order_id": 4111111111111111, "id": 378282246310005, "createdAt": 4111111111111111, "duration_ms": 4111111111111111, "size": 14155550123}"#,
        "\n",
        r#"{"values": [2125550142, 14155550123, 219099999, 4111111111111112], "card": 4111111111111111.5, "phone": -14155550123, "x": 4.111111111111111e15}"#,
        "\n",
        r#"{"phone": 5550123, "ssn": 666099999, "zip": 219099999, "max_tokens": 12345678, "total": 4111111111111111}"#,
        "\n"
    );
    let (out, summary, _) = run(input, Mode::Typed, 1 << 20);
    assert_eq!(out, input);
    assert_eq!((summary.findings(), summary.numbers_as_strings), (0, 0));
}

#[test]
fn a_revealing_redactor_keeps_numbers_valid_json() {
    let mut r = Redactor::new(Arc::new(Rules::builtin()), Mode::Typed);
    r.set_reveal(true);
    let mut out = Vec::new();
    r.push(
        b"{\"card\":4111111111111111,\"out\":\"{\\\"phone\\\":14155550123}\"}\n",
        &mut out,
    );
    r.finish(&mut out);
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["card"], "\u{E000}4111111111111111\u{E001}");
    let inner: Value = serde_json::from_str(v["out"].as_str().unwrap()).unwrap();
    assert_eq!(inner["phone"], "\u{E000}14155550123\u{E001}");
}

#[test]
fn secrets_of_letters_only_are_found_in_keys() {
    // A Hugging Face token is `hf_` and letters; an AWS key id's random
    // part may have no digit. As keys they were taken for names.
    let input = concat!(
        r#"{"tokens":{"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":{"scopes":["read"]}}}"#,
        "\n",
        r#"{"profiles":{"ASIALNUYUGXPGNSTREKE":"ci","jane.doe@quantumleap-labs.io":"admin"}}"#,
        "\n",
        r#"{"isVisibleInTranscriptOnly":true,"cache_read_input_tokens":1,"thinkingMetadata":{}}"#,
        "\n"
    );
    assert_eq!(
        settled(input, Mode::Typed),
        concat!(
            r#"{"tokens":{"[REDACTED:huggingface-token]":{"scopes":["read"]}}}"#,
            "\n",
            r#"{"profiles":{"[REDACTED:aws-access-key-id]":"ci","[REDACTED:email]":"admin"}}"#,
            "\n",
            r#"{"isVisibleInTranscriptOnly":true,"cache_read_input_tokens":1,"thinkingMetadata":{}}"#,
            "\n"
        )
    );
    let (_, _, findings) = run(input, Mode::Typed, 1 << 20);
    let paths: Vec<&str> = findings.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["tokens[*]", "profiles[*]", "profiles[*]"]);
}

#[test]
fn svg_path_data_is_not_an_address() {
    // svgo-minified markup in a tool's output: `m4.5 4.5.75.75-1.5 1.5` is
    // the numbers 4.5 4.5 .75 .75 -1.5 1.5, and `1.5.75.75` reads as the
    // public address 1.5.75.75. The same dotted quad in prose, or in an
    // attribute that is no path data, is still an address.
    let svg = concat!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill-rule="evenodd" "#,
        r#"d="M3 3h18v18H3zm4.5 4.5.75.75-1.5 1.5m9.25 2.25.5.5 3.5 3.5"/>"#,
        r#"<polyline points="1.5.75.75 9 3 12.25.5.25 5"/><path id="a" data-d="x" title="93.184.216.34" d='M1 1l2.5.25.75.75-2 2'/></svg>"#,
    );
    let line = serde_json::json!({
        "type": "tool_result",
        "content": format!("Fetched the icon from 93.184.216.34:\n{svg}\nand 1.5.75.75 answered too."),
        "toolUseResult": {"d": "M0 0 4.5.75.75-1.5 1.5", "points": "1.5.75.75 2 2", "host": "1.5.75.75"},
    });
    let input = format!("{line}\n");
    let out = settled(&input, Mode::Typed);
    let v: Value = serde_json::from_str(&out).unwrap();
    let content = v["content"].as_str().unwrap();
    // Every path attribute is as it was.
    for kept in [
        r#"d="M3 3h18v18H3zm4.5 4.5.75.75-1.5 1.5m9.25 2.25.5.5 3.5 3.5""#,
        r#"points="1.5.75.75 9 3 12.25.5.25 5""#,
        r#"d='M1 1l2.5.25.75.75-2 2'"#,
    ] {
        assert!(content.contains(kept), "{kept} changed: {content}");
    }
    assert_eq!(v["toolUseResult"]["d"], "M0 0 4.5.75.75-1.5 1.5");
    assert_eq!(v["toolUseResult"]["points"], "1.5.75.75 2 2");
    // Addresses in prose and in other attributes and values are redacted.
    assert!(!content.contains("93.184.216.34"), "{content}");
    assert!(
        content.contains("and [REDACTED:ipv4-public] answered"),
        "{content}"
    );
    assert_eq!(v["toolUseResult"]["host"], "[REDACTED:ipv4-public]");
    let (_, summary, _) = run(&input, Mode::Typed, 1 << 20);
    assert_eq!(summary.findings(), 4);
}

#[test]
fn the_github_mark_in_a_corpus_session_keeps_its_path() {
    // The false positive as found: pi's session writes a page with
    // GitHub's mark inline, whose path has `.118 3.176.77.84 1.235`.
    let bytes = common::read("pi/badlogic__pi-mono/session.jsonl");
    let text = std::str::from_utf8(&bytes).unwrap();
    let path = ".118 3.176.77.84 1.235 1.911";
    assert!(text.contains(path));
    let (out, summary, _) = run(text, Mode::Typed, 64 << 10);
    assert!(out.contains(path));
    let ipv4 = Rules::builtin().kind_id("ipv4-public").unwrap();
    assert_eq!(summary.counts.get(ipv4.0 as usize).copied().unwrap_or(0), 0);
}

#[test]
fn long_path_data_is_read_once() {
    // Many dotted quads in one value, with and without an attribute
    // opening them: each candidate looks back only to the one before it,
    // so this is linear (quadratic would take minutes).
    let data = "1.5.75.75 ".repeat(40_000);
    let line = serde_json::json!({
        "svg": format!("<path d=\"M0 0 {data}\"/>"),
        "text": format!("hosts {data}"),
    });
    let (out, summary, _) = run(&format!("{line}\n"), Mode::Typed, 1 << 20);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["svg"], line["svg"]);
    assert_eq!(summary.findings(), 40_000);
}

#[test]
fn keys_that_redact_to_the_same_text_stay_apart() {
    // Typed and mask placeholders name a kind, not a value: two addresses
    // as keys of one object would become one key twice, and a parser keeps
    // only one of them. The later ones get `#2`, `#3` after their last
    // placeholder; keys of other objects, and keys that were equal in the
    // input, are left as they come.
    let input = concat!(
        r#"{"members":{"jane.doe@fastmail.com":"admin","wei.chen@delta.dev":"dev","maria.okafor@amber.io":"ops"},"#,
        r#""owners":{"bob.smith@fastmail.com":1},"#,
        r#""trust":"{\"/home/jane/src\":1,\"/home/bob/src\":2}","#,
        r#""dup":{"jane.doe@fastmail.com":1,"jane.doe@fastmail.com":2}}"#,
        "\n"
    );
    let out = settled(input, Mode::Typed);
    assert_eq!(
        out,
        concat!(
            r#"{"members":{"[REDACTED:email]":"admin","[REDACTED:email]#2":"dev","[REDACTED:email]#3":"ops"},"#,
            r#""owners":{"[REDACTED:email]":1},"#,
            r#""trust":"{\"/home/[REDACTED:home-username]/src\":1,\"/home/[REDACTED:home-username]#2/src\":2}","#,
            r#""dup":{"[REDACTED:email]":1,"[REDACTED:email]":2}}"#,
            "\n"
        )
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["members"].as_object().unwrap().len(), 3);
    let mask = settled(input, Mode::Mask);
    assert!(mask.starts_with(r#"{"members":{"***":"admin","***#2":"dev","***#3":"ops"}"#));
    // Pseudonyms are distinct for distinct values already.
    let pseudo = settled(input, Mode::Pseudo);
    assert!(pseudo
        .starts_with(r#"{"members":{"<email-1>":"admin","<email-2>":"dev","<email-3>":"ops"}"#));
    // The report says what each key became.
    let (_, _, findings) = run(input, Mode::Typed, 1 << 20);
    let written: Vec<&str> = findings.iter().map(|f| f.replacement.as_str()).collect();
    assert_eq!(
        &written[..3],
        [
            "[REDACTED:email]",
            "[REDACTED:email]#2",
            "[REDACTED:email]#3"
        ]
    );
}

#[test]
fn many_keys_that_redact_alike_stay_apart_in_linear_time() {
    // A hostile object: thousands of addresses as keys of one object, all
    // `[REDACTED:email]`. Each finds its `#n` by one look-up.
    let n = 20_000;
    let members: serde_json::Map<String, Value> = (0..n)
        .map(|i| (format!("user{i}@fastmail.com"), Value::from(i)))
        .collect();
    let line = serde_json::json!({ "members": members });
    let (out, summary, _) = run(&format!("{line}\n"), Mode::Typed, 1 << 20);
    assert_eq!(summary.findings(), n as u64);
    let v: Value = serde_json::from_str(&out).unwrap();
    let keys = v["members"].as_object().unwrap();
    assert_eq!(keys.len(), n);
    assert!(keys.contains_key(&format!("[REDACTED:email]#{n}")));
}
