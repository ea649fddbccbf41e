//! The deep check reads Claude Code and pi lines for their figures alone
//! (tool call and result ids, model, usage) without normalizing them: on
//! lines made to trip that reading (mistyped, `null`, repeated and escaped
//! fields, results inside results, numbers of every kind, lines that do
//! not parse), it finds what normalizing every line finds.

use retrace_core::{Format, Session};

fn assert_figures_are_the_normalizers(name: &str, lines: &[String], format: Format) {
    let bytes = lines.join("\n").into_bytes();
    let s = Session::from_bytes(name, &bytes);
    assert_eq!(s.format(), format, "{name}");
    let fast = s.check(&mut &bytes[..]).unwrap();
    let full = s.check_normalizing_every_line(&mut &bytes[..]).unwrap();
    assert_eq!(
        serde_json::to_value(&fast).unwrap(),
        serde_json::to_value(&full).unwrap(),
        "{name}"
    );
    // Not an empty comparison: the lines hold messages, calls and models.
    assert!(
        fast.messages > 5 && fast.tool_calls > 0 && !fast.models.is_empty(),
        "{name}: {fast:?}"
    );
}

/// Claude Code lines, each a link of one chain, `message` as given.
fn claude(messages: &[(&str, &str)]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut parent = "null".to_owned();
    for (i, (kind, message)) in messages.iter().enumerate() {
        let uuid = format!("\"u{i}\"");
        lines.push(format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"sessionId":"s1","type":"{kind}","uuid":{uuid},"timestamp":"2026-01-01T00:00:{:02}.000Z","message":{message}}}"#,
            i % 60
        ));
        parent = uuid;
    }
    lines
}

#[test]
fn claude_code_lines_read_for_figures_as_normalized() {
    let usage = r#""usage":{"input_tokens":3,"output_tokens":5,"cache_read_input_tokens":7,"cache_creation_input_tokens":11}"#;
    let mut lines = claude(&[
        ("user", r#"{"role":"user","content":"hi"}"#),
        (
            "assistant",
            &format!(
                r#"{{"id":"m1","role":"assistant","model":"opus","content":[{{"type":"tool_use","id":"t1","name":"Bash","input":{{}}}}],{usage}}}"#
            ),
        ),
        (
            "user",
            r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"t9"},{"type":"tool_result","tool_use_id":"t8","is_error":true,"content":[{"type":"tool_use","id":"t7"}]},{"type":"image","source":{"data":"TWFu"}}],"is_error":"true"}]}"#,
        ),
        // Server tools: a result with a `null` id still answers by key.
        (
            "assistant",
            r#"{"id":"m2","role":"assistant","model":"opus","content":[{"type":"server_tool_use","id":"s1"},{"type":"web_search_tool_result","tool_use_id":null},{"type":"web_fetch_tool_result"},{"type":"x_tool_result","tool_use_id":"s1"}],"usage":{"input_tokens":-1,"output_tokens":2.5,"cache_read_input_tokens":"9","cache_creation_input_tokens":18446744073709551616}}"#,
        ),
        // Mistyped and damaged fields.
        (
            "assistant",
            r#"{"id":"m3","role":7,"model":5,"content":{"type":"tool_use","id":"no"},"usage":[1]}"#,
        ),
        (
            "assistant",
            r#"{"id":"m4","role":"assis|ant","model":"sonnet","content":[{"type":"tool_use"},{"type":"tool_use","id":3},"text",null,[{"type":"tool_use","id":"deep"}]],"usage":null}"#,
        ),
        (
            "user",
            r#"{"role":"assistant","model":"haiku","content":[{"type":"tool_use","id":"t5"}],"usage":{"output_tokens":4}}"#,
        ),
        (
            "assistant",
            r#"{"role":"user","model":"haiku","content":[{"type":"tool_result","tool_use_id":"t5","is_error":null,"content":null}]}"#,
        ),
        // Repeated keys (the last wins) and escaped ones.
        (
            "assistant",
            r#"{"id":"m5","role":"assistant","model":"a","model":"b","content":[{"type":"tool_use","id":"r1"}],"content":[{"type":"tool_use","id":"r2","id":"r3"}],"usage":{"output_tokens":1,"output_tokens":2}}"#,
        ),
        (
            "assistant",
            r#"{"id":"m6","r\u006fle":"assistant","m\u006fdel":"esc\"aped","content":[{"typ\u0065":"tool_\u0075se","id":"e\u00e91"}]}"#,
        ),
        (
            "assistant",
            r#"{"id":"m7","role":"assistant","model":"opus","content":[],"usage":{"input_tokens":1e2,"output_tokens":-0,"cache_read_input_tokens":0.0}}"#,
        ),
        (
            "system",
            r#"{"role":"assistant","model":"not-a-message","content":[{"type":"tool_use","id":"sys"}]}"#,
        ),
        ("assistant", r#""not an object""#),
    ]);
    // Keys of the line itself repeated, and lines that are no object.
    lines.push(r#"{"type":"user","parentUuid":"u12","uuid":"u13","sessionId":"s1","message":{"role":"user","content":"a"},"type":"assistant","message":{"role":"assistant","model":"dup","content":[{"type":"tool_use","id":"d1"}]}}"#.to_owned());
    lines.push(r#"{"type":"user","parentUuid":"u13","uuid":"u14","sessionId":"s1","message":{"role":"user","content":"a"},"message":7}"#.to_owned());
    // Lines that do not parse as JSON values, each differently.
    for bad in [
        r#""text":"\ud800 lone""#,
        r#""n":1e999"#,
        r#""n":100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e10"#,
        r#""bad":"\x""#,
        r#""ctl":"a	b""#,
    ] {
        lines.push(format!(
            r#"{{"type":"assistant","parentUuid":"u14","uuid":"b{}","sessionId":"s1","message":{{"role":"assistant","model":"bad","content":[{{"type":"tool_use","id":"bad"}}]}},{bad}}}"#,
            lines.len()
        ));
    }
    let deep = "[".repeat(200) + &"]".repeat(200);
    lines.push(format!(
        r#"{{"type":"assistant","parentUuid":"u14","uuid":"deep","sessionId":"s1","message":{{"role":"assistant","model":"deep","content":[]}},"d":{deep}}}"#
    ));
    assert_figures_are_the_normalizers("claude.jsonl", &lines, Format::ClaudeCode);
    // Invalid UTF-8 inside a string.
    let mut bytes = lines.join("\n").into_bytes();
    let at = bytes.windows(4).position(|w| w == b"\"hi\"").unwrap();
    bytes[at + 1] = 0xff;
    let s = Session::from_bytes("utf8.jsonl", &bytes);
    let fast = s.check(&mut &bytes[..]).unwrap();
    let full = s.check_normalizing_every_line(&mut &bytes[..]).unwrap();
    assert_eq!(
        serde_json::to_value(&fast).unwrap(),
        serde_json::to_value(&full).unwrap()
    );
}

#[test]
fn pi_entries_read_for_figures_as_normalized() {
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#;
    let bodies = [
        r#""type":"message","message":{"role":"user","content":"hi"}"#,
        r#""type":"message","message":{"role":"assistant","model":"m","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}},{"type":"thinking","thinking":"x"}],"usage":{"input":1,"output":2,"cacheRead":3,"cacheWrite":4,"cost":{"total":0.1}}}"#,
        r#""type":"message","message":{"role":"toolResult","toolCallId":"c1","isError":true,"content":[{"type":"text","text":"out"},{"type":"toolCall","id":"inner"},{"type":"image","data":"TWFu"}]}"#,
        r#""type":"message","message":{"role":"assistant","model":"m","content":[],"usage":{"input":-5,"output":1.5,"cacheRead":"3","cost":0.5}}"#,
        r#""type":"message","message":{"role":"assistant","model":"m","content":"text","usage":{"cost":{"total":"1"}}}"#,
        r#""type":"message","message":{"role":"assistant","model":7,"content":[{"type":"toolCall"}],"usage":{"cost":{"total":-2}}}"#,
        r#""type":"message","message":{"role":"assistant","model":"n","content":[{"type":"toolCall","id":"c2"}],"usage":{"cost":{"total":0.1,"total":0.30000000000000004}},"usage":{"input":9,"cost":{"total":1e-7}}}"#,
        r#""type":"message","message":{"role":"toolResult","toolCallId":5,"isError":"yes","content":null}"#,
        r#""type":"message","message":{"role":"toolResult","content":[{"type":"toolCall","id":"c3"}]}"#,
        r#""type":"message","message":{"role":"user","content":[{"type":"toolCall","id":"u1"}]}"#,
        r#""type":"message","message":{"role":"custom","content":[{"type":"toolCall","id":"u2"}]}"#,
        r#""type":"message","message":{"role":"hookMessage","content":[{"type":"toolCall","id":"u3"}]}"#,
        r#""type":"message","message":{"role":"bashExecution","command":"ls","content":[{"type":"toolCall","id":"no"}]}"#,
        r#""type":"message","message":{"role":"compactionSummary","summary":"s"}"#,
        r#""type":"message","message":{"role":"unknown","content":[{"type":"toolCall","id":"no"}]}"#,
        r#""type":"message","message":null"#,
        r#""type":"message""#,
        r##""type":"compaction","summary":"kept""##,
        r#""type":"compaction","summary":7"#,
        r#""type":"branch_summary","summary":"b","summary":null"#,
        r#""type":"custom_message","content":[{"type":"toolCall","id":"u4"}]"#,
        r#""type":"model_change","message":{"role":"assistant","model":"x"}"#,
        r#""type":7,"message":{"role":"assistant","model":"x"}"#,
        r#""t\u0079pe":"message","message":{"r\u006fle":"assistant","model":"esc","content":[{"type":"toolCall","id":"\u00e9"}]}"#,
        r#""type":"message","message":{"role":"assistant","model":"bad","content":[]},"n":1e400"#,
        r#""type":"message","message":{"role":"assistant","model":"bad","content":[]},"s":"\udc00""#,
    ];
    let mut lines = vec![header.to_owned()];
    let mut parent = "null".to_owned();
    for (i, body) in bodies.iter().enumerate() {
        let id = format!("\"e{i}\"");
        lines.push(format!(
            r#"{{"id":{id},"parentId":{parent},"timestamp":"2025-01-01T00:00:{:02}.000Z",{body}}}"#,
            i % 60
        ));
        parent = id;
    }
    assert_figures_are_the_normalizers("pi.jsonl", &lines, Format::Pi { version: 3 });
}
