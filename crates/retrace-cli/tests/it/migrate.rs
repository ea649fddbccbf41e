//! `retrace migrate`: a branch as a request body for another API.

use crate::common::*;

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
        assert!(o.stderr.is_empty(), "{api}: {}", stderr(&o));
    }
    // The system prompt goes where Google keeps it (`systemInstruction`).
    retrace_snapshot!(
        "migrate_to_google",
        cmd(&["migrate", &path, "--to", "google"])
    );
    retrace_snapshot!(cmd(&["migrate", &path, "--to", "cohere"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: invalid value 'cohere' for '--to <TO>'
      [possible values: anthropic, openai, openai-responses, google]

    For more information, try '--help'.
    ");
}

#[test]
fn migrate_reports_what_is_lost() {
    let path = fixture("provider/anthropic-messages.json");
    // Without --report: the body, and one line on stderr about the losses.
    let o = retrace(&["migrate", &path, "--to", "openai"]);
    assert!(o.status.success());
    insta::assert_snapshot!(filter(&stderr(&o)), @"retrace: [FIXTURES]/provider/anthropic-messages.json: for openai: 1 thinking-dropped, 1 redacted-thinking-dropped, 1 signature-dropped, 1 image-dropped, 1 error-flag-dropped (see `retrace migrate --report`)");
    // --report: the report only, per field with counts (no body without
    // -o). 8 messages (with the system prompt); the two results of one
    // turn are two tool messages.
    retrace_snapshot!(cmd(&["migrate", &path, "--to", "openai", "--report"]), @"
    exit_code: 0
    ----- stdout -----
    8 messages → 9 turns for OpenAI Chat Completions
         1  lost    thinking                 thinking dropped: this API takes no thinking back (at L28)
         1  lost    thinking                 redacted thinking dropped: opaque data of another API (at L60)
         1  lost    thinking.signature       thinking signatures / encrypted reasoning of another API dropped (at L28)
         1  lost    image                    images dropped: not allowed there by this API (at L83)
         1  lost    tool_result.is_error     tool results' error flag dropped: this API has none (the text is kept) (at L83)
    ----- stderr -----
    ");
    retrace_snapshot!(
        "migrate_report_json",
        cmd(&["migrate", &path, "--to", "openai", "--report", "--json"])
    );
}

#[test]
fn migrate_writes_its_output_file_whole() {
    let dir = scratch("migrate_output");
    let out = dir.join("history.json");
    // The report on stdout, the body in the file.
    retrace_snapshot!(cmd(&[
        "migrate",
        &corpus(&format!(
            "{GEMINI_ARCHIVE}/session-2025-11-19T20-45-42f4bde7.json"
        )),
        "--to",
        "anthropic",
        "-o",
        out.to_str().unwrap(),
        "--report",
    ]), @"
    exit_code: 0
    ----- stdout -----
    29 messages → 28 turns for Anthropic Messages
        14  lost    thinking                 thinking dropped: no Anthropic signature to send it back with (at b681b8e9-4503-4597-b578-d0e498406358, becd94c2-918d-4d49-a4ce-078c4164ffe9, c8efeebb-0445-444d-b673-c13018d76c50)
        29  changed model/usage/timestamp    model names, token usage, timestamps and stop reasons left out (not part of a request) (at 9ee51d93-ecae-42a4-9e86-6b329aa9838c, b681b8e9-4503-4597-b578-d0e498406358, becd94c2-918d-4d49-a4ce-078c4164ffe9)
         9  changed role                     tool results written in user turns (at b681b8e9-4503-4597-b578-d0e498406358, c8efeebb-0445-444d-b673-c13018d76c50, ea8a88fd-2f2b-428c-bc81-25aae1b6f299)
         1  changed turns                    consecutive turns of one role merged (at eae780a8-8260-4b52-9efe-1c91d6fca253)
    ----- stderr -----
    ");
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
    // No temporary file left.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["history.json"]);
    // A directory that does not exist: a clear error, nothing written.
    retrace_snapshot!(cmd(&[
        "migrate",
        &fixture("provider/openai-chat.json"),
        "--to",
        "google",
        "-o",
        dir.join("no/such/dir/out.json").to_str().unwrap(),
    ]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/migrate_output/no/such/dir/out.json: cannot write: cannot write [SCRATCH]/migrate_output/no/such/dir/out.json: no such file or directory
    ");
}

#[test]
fn migrate_takes_a_leaf() {
    // The abandoned branch of the Gemini JSONL fixture ends at line 11:
    // a tool message, "[Operation Cancelled]".
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
