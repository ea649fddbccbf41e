//! Migrations of small hand-written lists, checked field by field.

use serde_json::{json, Value};

use super::*;
use crate::message::Role;
use crate::normalize::provider::element_message;
use crate::normalize::ContextOptions;

/// A provider list read as messages, payloads kept (as a migration reads).
fn read(list: Value) -> Vec<Message> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| element_message(v, ContextOptions { payloads: true }).expect("a message"))
        .collect()
}

fn codes(report: &Report) -> Vec<(&'static str, usize)> {
    report.changes.iter().map(|c| (c.code, c.count)).collect()
}

#[test]
fn anthropic_round_trip_keeps_signatures_results_and_images() {
    let messages = json!([
        {"role": "user", "content": [
            {"type": "text", "text": "What is in this picture?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}
        ]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "Let me look.", "signature": "EqQBCkgIARABGAIiQ"},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
            {"type": "text", "text": "I will run a tool."},
            {"type": "tool_use", "id": "toolu_01A", "name": "describe", "input": {"detail": "high"}}
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A", "content": [
                {"type": "text", "text": "a cat"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}}
            ]},
            {"type": "text", "text": "Thanks."}
        ]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_01B", "name": "fail", "input": {}}
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01B", "content": "boom", "is_error": true}
        ]},
        {"role": "assistant", "content": "A cat."}
    ]);
    let m = migrate(&read(messages.clone()), Api::Anthropic);
    assert_eq!(m.body, json!({ "messages": messages }));
    assert!(m.report.is_lossless(), "{}", m.report);
    // Tool results sit in user turns: a change of form only.
    assert_eq!(codes(&m.report), [("role-renamed", 2)]);
}

#[test]
fn anthropic_to_openai_chat_says_what_is_lost() {
    let messages = json!([
        {"role": "user", "content": [
            {"type": "text", "text": "Look"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}
        ]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hm", "signature": "EqQB"},
            {"type": "tool_use", "id": "toolu_01A", "name": "shot", "input": {}}
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_01A", "is_error": true, "content": [
                {"type": "text", "text": "taken"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
            ]}
        ]}
    ]);
    let m = migrate(&read(messages), Api::OpenAiChat);
    assert_eq!(
        m.body,
        json!({"messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "Look"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K"}}
            ]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "toolu_01A", "type": "function", "function": {"name": "shot", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "toolu_01A", "content": "taken"}
        ]})
    );
    assert_eq!(
        codes(&m.report),
        [
            ("thinking-dropped", 1),
            ("signature-dropped", 1),
            ("image-dropped", 1),
            ("error-flag-dropped", 1),
        ]
    );
    assert!(!m.report.is_lossless());
    assert_eq!(m.report.changes[0].at, ["#1"]);
}

#[test]
fn google_without_ids_gets_stable_ids_paired_by_name() {
    let contents = json!([
        {"role": "user", "parts": [{"text": "weather in Paris and Oslo?"}]},
        {"role": "model", "parts": [
            {"functionCall": {"name": "weather", "args": {"city": "Paris"}}, "thoughtSignature": "CiQB"},
            {"functionCall": {"name": "time", "args": {"city": "Oslo"}}}
        ]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "time", "response": {"output": "12:00"}}},
            {"functionResponse": {"name": "weather", "response": {"output": "rain"}}}
        ]},
        {"role": "model", "parts": [{"text": "Rain in Paris; noon in Oslo."}]}
    ]);
    let messages = read(contents.clone());
    assert_eq!(messages[2].role, Role::Tool);
    // Google to Google: no ids appear, the signature stays.
    let m = migrate(&messages, Api::Google);
    assert_eq!(m.body, json!({ "contents": contents }));
    // Google to Anthropic: generated ids, results paired by name.
    let m = migrate(&messages, Api::Anthropic);
    assert_eq!(
        m.body["messages"][1]["content"],
        json!([
            {"type": "tool_use", "id": "call_0", "name": "weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call_1", "name": "time", "input": {"city": "Oslo"}}
        ])
    );
    assert_eq!(
        m.body["messages"][2]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "call_1", "content": "12:00"},
            {"type": "tool_result", "tool_use_id": "call_0", "content": "rain"}
        ])
    );
    assert_eq!(m.report.count(Change::IdGenerated), 2);
    // The Gemini signature means nothing to Anthropic: dropped, and said.
    assert_eq!(
        codes(&m.report),
        [
            ("signature-dropped", 1),
            ("role-renamed", 1),
            ("id-generated", 2)
        ]
    );
    // Same input, same ids, every time.
    assert_eq!(migrate(&messages, Api::Anthropic).body, m.body);
}

#[test]
fn ids_a_target_rejects_are_regenerated_consistently() {
    let long = "google_web_search-1763585186176-b4f984d5c6a1a8";
    let list = json!([
        {"role": "user", "content": "search"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": long, "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"x\"}"}},
            {"id": "call_1|fc_1", "type": "function", "function": {"name": "search", "arguments": "{\"q\":\"y\"}"}}
        ]},
        {"role": "tool", "tool_call_id": long, "content": "r1"},
        {"role": "tool", "tool_call_id": "call_1|fc_1", "content": "r2"}
    ]);
    let messages = read(list);
    let chat = migrate(&messages, Api::OpenAiChat);
    let new = chat.body["messages"][1]["tool_calls"][0]["id"]
        .as_str()
        .unwrap();
    assert!(new.starts_with("call_") && new.len() <= 40, "{new}");
    assert_eq!(chat.body["messages"][2]["tool_call_id"], new);
    // `|` is fine for OpenAI.
    assert_eq!(chat.body["messages"][3]["tool_call_id"], "call_1|fc_1");
    assert_eq!(chat.report.count(Change::IdRegenerated), 1);
    let anthropic = migrate(&messages, Api::Anthropic);
    let blocks = &anthropic.body["messages"][1]["content"];
    assert_eq!(blocks[0]["id"], long);
    assert_eq!(blocks[1]["id"], "call_1_fc_1");
    assert_eq!(
        anthropic.body["messages"][2]["content"][1]["tool_use_id"],
        "call_1_fc_1"
    );
    assert_eq!(anthropic.report.count(Change::IdRegenerated), 1);
}

#[test]
fn unanswered_calls_and_orphan_results() {
    let list = json!([
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "old output"}
        ]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}
        ]}
    ]);
    let m = migrate(&read(list), Api::Anthropic);
    assert_eq!(
        m.body,
        json!({"messages": [
            {"role": "user", "content": "[result of tool call toolu_gone]\nold output"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1",
                 "content": "[no result was recorded for this call]", "is_error": true}
            ]}
        ]})
    );
    assert_eq!(m.report.count(Change::ResultWithoutCall), 1);
    assert_eq!(m.report.count(Change::CallWithoutResult), 1);
}

#[test]
fn system_prompts_go_where_each_api_wants_them() {
    let list = json!([
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "user", "content": "are you there?"},
        {"role": "system", "content": "Answer in French."},
        {"role": "assistant", "content": "Oui."}
    ]);
    let messages = read(list.clone());
    let chat = migrate(&messages, Api::OpenAiChat);
    assert_eq!(chat.body, json!({ "messages": list }));
    assert!(chat.report.changes.is_empty(), "{}", chat.report);

    let anthropic = migrate(&messages, Api::Anthropic);
    assert_eq!(
        anthropic.body,
        json!({
            "system": "Be brief.\n\nAnswer in French.",
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "hi"},
                    {"type": "text", "text": "are you there?"}
                ]},
                {"role": "assistant", "content": "Oui."}
            ]
        })
    );
    assert_eq!(
        codes(&anthropic.report),
        [("system-moved", 1), ("turns-merged", 1)]
    );

    let google = migrate(&messages, Api::Google);
    assert_eq!(
        google.body,
        json!({
            "systemInstruction": {"parts": [{"text": "Be brief.\n\nAnswer in French."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "hi"}, {"text": "are you there?"}]},
                {"role": "model", "parts": [{"text": "Oui."}]}
            ]
        })
    );

    let responses = migrate(&messages, Api::OpenAiResponses);
    assert_eq!(
        responses.body["input"][0],
        json!({"type": "message", "role": "developer", "content": "Be brief."})
    );
    assert_eq!(responses.body["input"].as_array().unwrap().len(), 5);
}

#[test]
fn openai_responses_round_trip_keeps_reasoning_items() {
    let input = json!([
        {"type": "message", "role": "user", "content": "Fix the bug."},
        {"type": "reasoning", "id": "rs_1", "summary": [
            {"type": "summary_text", "text": "Look at the code."},
            {"type": "summary_text", "text": "Then patch it."}
        ], "encrypted_content": "gAAAAAB"},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "shell", "arguments": "{\"cmd\":\"ls\"}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "main.rs"},
        {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "gAAAAAC"},
        {"type": "message", "role": "assistant", "id": "msg_1", "status": "completed", "content": [
            {"type": "output_text", "text": "Done.", "annotations": []}
        ]}
    ]);
    let messages = read(input.clone());
    let m = migrate(&messages, Api::OpenAiResponses);
    assert_eq!(m.body, json!({ "input": input }));
    assert!(m.report.changes.is_empty(), "{}", m.report);
    // To Anthropic the reasoning cannot follow: no Anthropic signature.
    let a = migrate(&messages, Api::Anthropic);
    assert_eq!(a.report.count(Change::ThinkingDropped), 3);
    assert_eq!(a.report.count(Change::SignatureDropped), 2);
}

#[test]
fn openai_chat_round_trip() {
    let list = json!([
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": [
            {"type": "text", "text": "What does this say?"},
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}
        ]},
        {"role": "assistant", "content": "Let me check.", "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "ocr", "arguments": "{\"url\":\"https://example.com/a.png\"}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_a", "content": "HELLO"},
        {"role": "assistant", "content": "It says HELLO."}
    ]);
    let m = migrate(&read(list.clone()), Api::OpenAiChat);
    assert_eq!(m.body, json!({ "messages": list }));
    assert!(m.report.changes.is_empty(), "{}", m.report);
    // To Google: URL images become file data, calls keep their ids.
    let g = migrate(&read(list), Api::Google);
    assert_eq!(
        g.body["contents"][0]["parts"][1],
        json!({"fileData": {"mimeType": "image/*", "fileUri": "https://example.com/a.png"}})
    );
    assert_eq!(
        g.body["contents"][2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"id": "call_a", "name": "ocr", "response": {"output": "HELLO"}}}
        ]})
    );
}

#[test]
fn images_without_payload_and_metadata_are_reported() {
    let mut m = Message::new(Role::User);
    m.content.push(crate::message::Part::Image {
        media_type: "image/png".into(),
        byte_size: 10,
    });
    m.content
        .push(crate::message::Part::Text { text: "see".into() });
    m.timestamp = Some(1);
    m.entries.push("e1".into());
    let r = report(&[m], Api::Anthropic);
    assert_eq!(
        codes(&r),
        [("image-without-payload", 1), ("metadata-dropped", 1)]
    );
    assert_eq!(r.changes[0].at, ["e1"]);
    let text = r.to_string();
    assert!(
        text.contains("1 messages → 1 turns for Anthropic Messages"),
        "{text}"
    );
    assert!(text.contains("lost"), "{text}");
}
