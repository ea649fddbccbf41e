//! `retrace seal`: the branch as a new file with each call left without a
//! result answered, what was done on stderr (or as JSON), `--dry-run`.

use crate::common::*;

const CLAUDE_PENDING: &str =
    "claude-code/kenn-io__agentsview/internal/parser/testdata/claude/tool_call_pending.jsonl";

#[test]
fn dry_run_lists_what_would_be_sealed() {
    retrace_snapshot!(cmd(&["seal", "--dry-run", &corpus(PI_V3)]), @"
    exit_code: 0
    ----- stdout -----
    [CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl:8: tool call bash (call-2) had no result: sealed as an error (stage: unknown; it may have run: check for side effects before retrying)
    [CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl: would seal 1 tool call
    ----- stderr -----
    ");
    retrace_snapshot!(cmd(&["seal", "--dry-run", "--json", &corpus(PI_V3)]).pretty(), @r#"
    exit_code: 0
    ----- stdout -----
    {
      "path": "[CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl",
      "dry_run": true,
      "sealed": 1,
      "notes": [
        {
          "action": "sealed",
          "line": 8,
          "id": "call-2",
          "message": "tool call bash (call-2) had no result: sealed as an error (stage: unknown; it may have run: check for side effects before retrying)"
        }
      ]
    }
    ----- stderr -----
    "#);
    // Nothing open on the branch: nothing to do.
    retrace_snapshot!(cmd(&["seal", "--dry-run", &corpus(PI_V1)]), @"
    exit_code: 0
    ----- stdout -----
    [CORPUS]/pi/badlogic__pi-mono/session.jsonl: would seal 0 tool calls
    ----- stderr -----
    ");
}

#[test]
fn seal_writes_a_new_file_that_validates() {
    let dir = scratch("seal_writes");
    let out = dir.join("sealed.jsonl");
    let out = out.to_str().unwrap();
    let o = retrace(&["seal", &corpus(CLAUDE_PENDING), "-o", out, "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = &json_lines(&o)[0];
    assert_eq!(report["sealed"], 1);
    assert_eq!(report["notes"][0]["id"], "toolu_orphan");
    // The input's lines first, byte for byte, then the sealing result.
    let input = std::fs::read_to_string(corpus(CLAUDE_PENDING)).unwrap();
    let sealed = std::fs::read_to_string(out).unwrap();
    assert!(sealed.starts_with(&input));
    let last: serde_json::Value = serde_json::from_str(sealed.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "user");
    assert_eq!(last["message"]["content"][0]["tool_use_id"], "toolu_orphan");
    assert_eq!(last["message"]["content"][0]["is_error"], true);
    retrace_snapshot!(cmd(&["validate", out]), @"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/seal_writes/sealed.jsonl: 0 errors, 0 warnings, 0 notes; 1 tool calls, 0 without result, 0 results without call
    [SCRATCH]/seal_writes/sealed.jsonl: resumable as is by every API
    ----- stderr -----
    ");
    // Without -o: the file on stdout, the report on stderr.
    let o = retrace(&["seal", &corpus(CLAUDE_PENDING)]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).starts_with(&input));
    assert!(stderr(&o).contains("sealed 1 tool call, written to stdout"));
}

#[test]
fn seal_refuses_what_it_cannot_do() {
    // --json is the report: the session needs a file.
    retrace_snapshot!(cmd(&["seal", "--json", &corpus(PI_V3)]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl: --json prints the report: write the session with -o OUT (or use --dry-run)
    ");
}

#[test]
fn seal_of_a_list_answers_the_call_before_the_next_message() {
    // An OpenAI Chat list whose second parallel call lost its tool
    // message: the result goes after the first one, before the reply.
    let dir = scratch("seal_list");
    let input = std::fs::read_to_string(fixture("provider/openai-chat.jsonl")).unwrap();
    let kept: Vec<&str> = input
        .lines()
        .enumerate()
        .filter(|(i, _)| *i != 5)
        .map(|(_, l)| l)
        .collect();
    let file = dir.join("chat.jsonl");
    std::fs::write(&file, kept.join("\n") + "\n").unwrap();
    let file = file.to_str().unwrap();
    retrace_snapshot!(cmd(&["seal", file]), @r#"
    exit_code: 0
    ----- stdout -----
    {"role": "system", "content": "You are a weather bot."}
    {"role": "developer", "content": "Answer in one line."}
    {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and Oslo? Here is a map."}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}}]}
    {"role": "assistant", "content": null, "tool_calls": [{"id": "call_Yx3bQk9N2vU8mT1wR5sH0pLc", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}, {"id": "call_Ab7cDe2FgH4iJk6LmN8oPq0R", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]}
    {"role": "tool", "tool_call_id": "call_Yx3bQk9N2vU8mT1wR5sH0pLc", "content": "18°C, sunny"}
    {"content":"Tool call interrupted (stage: unknown): no result was recorded; sealed by retrace. Recommendation: it may have run: check for side effects before retrying.","role":"tool","tool_call_id":"call_Ab7cDe2FgH4iJk6LmN8oPq0R"}
    {"role": "assistant", "content": "Paris: 18°C and sunny; Oslo: 4°C with snow."}
    {"role": "user", "content": "And tomorrow?"}
    ----- stderr -----
    retrace: [SCRATCH]/seal_list/chat.jsonl:4: tool call get_weather (call_Ab7cDe2FgH4iJk6LmN8oPq0R) had no result: sealed as an error (stage: unknown; it may have run: check for side effects before retrying)
    retrace: [SCRATCH]/seal_list/chat.jsonl: sealed 1 tool call, written to stdout
    "#);
    let out = dir.join("sealed.jsonl");
    let out = out.to_str().unwrap();
    let o = retrace(&["seal", file, "-o", out]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    retrace_snapshot!(cmd(&["validate", out]), @"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/seal_list/sealed.jsonl: 0 errors, 0 warnings, 0 notes; 2 tool calls, 0 without result, 0 results without call
    [SCRATCH]/seal_list/sealed.jsonl: resumable as is by every API
    ----- stderr -----
    ");
}
