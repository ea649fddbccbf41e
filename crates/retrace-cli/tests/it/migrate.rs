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

#[test]
fn migrate_refuses_a_branch_with_nothing_to_send() {
    // One `system` line (Claude Code), one `info` message (Gemini CLI): a
    // branch, but no message a model was given. Every API rejects an empty
    // history, so nothing is written and the error says where and why.
    let away = corpus("claude-code/iansherr__claude-code-log/test/test_data/away_summary.jsonl");
    retrace_snapshot!(cmd(&["migrate", &away, "--to", "anthropic"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [CORPUS]/claude-code/iansherr__claude-code-log/test/test_data/away_summary.jsonl: leaf e2066dc9-672a-48ff-b6c9-df29103572bf (line 1): nothing to send: the branch holds no messages (every API rejects a history without a user or model turn)
    ");
    let others = [
        corpus("claude-code/iansherr__claude-code-log/test/test_data/system_model_change.jsonl"),
        corpus(&format!(
            "{GEMINI_ARCHIVE}/session-2025-12-03T04-04-ff205d73.json"
        )),
    ];
    let dir = scratch("migrate_nothing");
    let out = dir.join("history.json");
    for path in others.iter().chain([&away]) {
        for api in ["anthropic", "openai", "openai-responses", "google"] {
            for extra in [&[][..], &["--report"], &["-o", out.to_str().unwrap()]] {
                let mut args = vec!["migrate", path.as_str(), "--to", api];
                args.extend(extra);
                let o = retrace(&args);
                assert_eq!(o.status.code(), Some(2), "{path} {api} {extra:?}");
                assert!(o.stdout.is_empty(), "{path} {api}: {}", stdout(&o));
                // The Gemini file holds one CLI notice, a timeline marker:
                // a message no API takes, so the same refusal.
                assert!(
                    stderr(&o).contains("nothing to send: the branch holds no messages")
                        || stderr(&o).contains(
                            "nothing to send: none of the branch's 1 message is a user or model turn (1 timeline marker)"
                        ),
                    "{path} {api}: {}",
                    stderr(&o)
                );
            }
        }
    }
    assert!(!out.exists(), "nothing written");
}

#[test]
fn migrate_report_notes_what_the_caller_must_do() {
    // The abandoned branch of the Gemini JSONL fixture ends in an open
    // tool loop: its last call has no thought signature (Gemini 3 wants
    // one) and no Anthropic thinking block (Anthropic with extended
    // thinking wants one). The history is written as it is; the report
    // says what to do.
    let path = fixture("gemini/session-2026-02-03T09-00-5c1f3a9e.jsonl");
    retrace_snapshot!(cmd(&["migrate", &path, "--to", "google", "--leaf", "L11", "--report"]), @r#"
    exit_code: 0
    ----- stdout -----
    8 messages → 7 turns for Google Gemini contents
         1  lost    thinking                 thinking dropped: this API takes no thinking back (at 8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10)
         1  note    tool_call.signature      function calls of the open tool loop (after the last user turn) have no Gemini thought signature: Gemini 3 rejects them; for Gemini 3 set their thoughtSignature to "skip_thought_signature_validator", or send a user message after the results (earlier models take them as they are) (at d6b8c0e2-4a6f-4b8d-8f2c-4e6a8c0e2a3b)
         7  changed model/usage/timestamp    model names, token usage, timestamps and stop reasons left out (not part of a request) (at 3a7c9e1f-5b2d-4c6e-8a0f-1d3b5f7a9c2e, 8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10, b4f6a8c0-2e4d-4f6a-8c0e-2a4c6e8f0b1d)
         5  changed role                     roles renamed: assistant → model, tool results in user turns (at 8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10, b4f6a8c0-2e4d-4f6a-8c0e-2a4c6e8f0b1d, d6b8c0e2-4a6f-4b8d-8f2c-4e6a8c0e2a3b)
         1  changed kind                     timeline markers (rollbacks, aborted turns, errors, checkpoints) left out: never said to a model (at e7c9d1f3-5b7a-4c9e-9a3d-5f7b9d1f3b4c)
    ----- stderr -----
    "#);
    retrace_snapshot!(cmd(&["migrate", &path, "--to", "anthropic", "--leaf", "L11", "--report"]), @"
    exit_code: 0
    ----- stdout -----
    8 messages → 7 turns for Anthropic Messages
         1  lost    thinking                 thinking dropped: no Anthropic signature to send it back with (at 8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10)
         1  note    thinking                 the open tool loop's last assistant turn has no Anthropic thinking block: with extended thinking on, Anthropic rejects it; send this request with thinking off (a tool loop is one turn: turn it on again once the loop ends) (at d6b8c0e2-4a6f-4b8d-8f2c-4e6a8c0e2a3b)
         7  changed model/usage/timestamp    model names, token usage, timestamps and stop reasons left out (not part of a request) (at 3a7c9e1f-5b2d-4c6e-8a0f-1d3b5f7a9c2e, 8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10, b4f6a8c0-2e4d-4f6a-8c0e-2a4c6e8f0b1d)
         2  changed role                     tool results written in user turns (at 8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10, d6b8c0e2-4a6f-4b8d-8f2c-4e6a8c0e2a3b)
         1  changed kind                     timeline markers (rollbacks, aborted turns, errors, checkpoints) left out: never said to a model (at e7c9d1f3-5b7a-4c9e-9a3d-5f7b9d1f3b4c)
    ----- stderr -----
    ");
    // Responses: assistant text of another API is a message item without
    // id and status, which the API takes and the SDKs' types do not.
    let chat = fixture("provider/openai-chat.jsonl");
    retrace_snapshot!(cmd(&["migrate", &chat, "--to", "openai-responses", "--report"]), @"
    exit_code: 0
    ----- stdout -----
    8 messages → 9 turns for OpenAI Responses
         1  note    item.id                  assistant message items without id/status, reasoning items without id: the API takes them (Codex sends them), the SDKs' typed input items do not; send the body as JSON, not built from those types (at L7)
    ----- stderr -----
    ");
    // Notes are no losses: no line on stderr without --report.
    let o = retrace(&["migrate", &chat, "--to", "openai-responses"]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", stderr(&o));
}
