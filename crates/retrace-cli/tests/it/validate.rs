//! `retrace validate`: diagnostics, and the exit code that says whether
//! anything is wrong.

use crate::common::*;

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
    retrace_snapshot!(cmd(&["validate", clean.to_str().unwrap()]), @"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/validate/clean.jsonl: 0 errors, 0 warnings, 0 notes; 0 tool calls, 0 without result, 0 results without call
    [SCRATCH]/validate/clean.jsonl: resumable as is by every API
    ----- stderr -----
    ");
    let broken = dir.join("broken.jsonl");
    std::fs::write(
        &broken,
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n{\"type\":\"mess\n",
    )
    .unwrap();
    // Exit 1: line 2 is malformed JSON.
    retrace_snapshot!(cmd(&["validate", broken.to_str().unwrap()]), @"
    exit_code: 1
    ----- stdout -----
    [SCRATCH]/validate/broken.jsonl:2:53: error: malformed-json: line ends inside a string (truncated?)
    [SCRATCH]/validate/broken.jsonl: 1 errors, 0 warnings, 0 notes; 0 tool calls, 0 without result, 0 results without call
    ----- stderr -----
    ");
    retrace_snapshot!(cmd(&["validate", "--json", broken.to_str().unwrap()]).pretty(), @r#"
    exit_code: 1
    ----- stdout -----
    {
      "path": "[SCRATCH]/validate/broken.jsonl",
      "errors": 1,
      "warnings": 0,
      "notes": 0,
      "tool_calls": 0,
      "calls_without_result": 0,
      "results_without_call": 0,
      "diagnostics": [
        {
          "file": "[SCRATCH]/validate/broken.jsonl",
          "severity": "error",
          "code": "malformed-json",
          "line": 2,
          "offset": 53,
          "message": "line ends inside a string (truncated?)"
        }
      ],
      "resume": []
    }
    ----- stderr -----
    "#);
    // Exit 2, one line on stderr.
    let missing = dir.join("missing.jsonl");
    retrace_snapshot!(cmd(&["validate", missing.to_str().unwrap()]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/validate/missing.jsonl: no such file or directory
    ");
}

#[test]
fn validate_says_when_the_format_is_unknown() {
    let dir = scratch("unknown_format");
    let file = dir.join("other.jsonl");
    std::fs::write(&file, "{\"a\":1}\n{\"b\":2}\n").unwrap();
    retrace_snapshot!(cmd(&["validate", file.to_str().unwrap()]), @"
    exit_code: 1
    ----- stdout -----
    [SCRATCH]/unknown_format/other.jsonl:1:0: warning: unknown-format: not a session of any known format (pi, claude-code, codex, events, gemini-cli, anthropic-messages, openai-chat-messages, openai-responses-items, google-contents, agentscope); its lines were read as plain JSON and nothing else was checked (--format names one)
    [SCRATCH]/unknown_format/other.jsonl: 0 errors, 1 warnings, 0 notes; 0 tool calls, 0 without result, 0 results without call
    ----- stderr -----
    ");
    // And there is no conversation to show.
    retrace_snapshot!(cmd(&["show", file.to_str().unwrap()]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/unknown_format/other.jsonl: no conversation to show: 2 entries, none of them on a branch (generic)
    ");
}

#[test]
fn a_gap_in_a_split_set_is_a_warning() {
    retrace_snapshot!(cmd(&["validate", &fixture("events/gap")]), @"
    exit_code: 1
    ----- stdout -----
    [FIXTURES]/events/gap/events_3.jsonl:1:0: warning: split-gap: split set goes from events_1.jsonl to events_3.jsonl without events_2; the stream continues here
    [FIXTURES]/events/gap: 0 errors, 1 warnings, 0 notes; 2 tool calls, 0 without result, 0 results without call
    [FIXTURES]/events/gap: resume as is to anthropic: no: tool-call ids the API does not take: 2 (`retrace migrate` replaces them)
    [FIXTURES]/events/gap: resume as is to openai: ok
    [FIXTURES]/events/gap: resume as is to openai-responses: ok
    [FIXTURES]/events/gap: resume as is to google: ok
    ----- stderr -----
    ");
}

#[test]
fn broken_gzip_is_reported_with_line_and_byte() {
    retrace_snapshot!(cmd(&["validate", &fixture("gzip/rollback-truncated.jsonl.gz")]), @"
    exit_code: 1
    ----- stdout -----
    [FIXTURES]/gzip/rollback-truncated.jsonl.gz:11:2520: error: gzip-truncated: file ends inside compressed data (truncated download or write?) at compressed byte 900; nothing after it could be read
    [FIXTURES]/gzip/rollback-truncated.jsonl.gz:11:2520: error: truncated-line: last line is cut off: line ends inside a string (truncated?)
    [FIXTURES]/gzip/rollback-truncated.jsonl.gz: 2 errors, 0 warnings, 0 notes; 1 tool calls, 0 without result, 0 results without call
    [FIXTURES]/gzip/rollback-truncated.jsonl.gz: resumable as is by every API
    ----- stderr -----
    ");
}

#[test]
fn a_provider_list_with_a_broken_element() {
    // Two broken elements, on lines 3 and 4 of the array.
    retrace_snapshot!(cmd(&["validate", &fixture("broken/array-broken-element.json")]), @"
    exit_code: 1
    ----- stdout -----
    [FIXTURES]/broken/array-broken-element.json:3:81: error: malformed-json: array element: missing comma between values
    [FIXTURES]/broken/array-broken-element.json:4:126: error: malformed-json: array element is not a JSON object
    [FIXTURES]/broken/array-broken-element.json: 2 errors, 0 warnings, 0 notes; 0 tool calls, 0 without result, 0 results without call
    [FIXTURES]/broken/array-broken-element.json: resumable as is by every API
    ----- stderr -----
    ");
}
