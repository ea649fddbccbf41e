//! Migrations of small hand-written lists, checked field by field.

use serde_json::{json, Value};

use super::*;
use crate::model::message::Role;
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
    // To Google: URL images become file data of the type the URL names
    // (Google needs one), calls keep their ids.
    let g = migrate(&read(list), Api::Google);
    assert_eq!(
        g.body["contents"][0]["parts"][1],
        json!({"fileData": {"mimeType": "image/png", "fileUri": "https://example.com/a.png"}})
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
    m.content.push(crate::model::message::Part::Image {
        media_type: "image/png".into(),
        byte_size: 10,
    });
    m.content
        .push(crate::model::message::Part::Text { text: "see".into() });
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

/// Tools the provider ran itself (a web search: the call and its outcome in
/// the assistant's own content) cannot be handed to any API as a call of
/// ours: they become assistant text, and the real call beside them stays.
#[test]
fn server_side_tools_become_text() {
    let list = json!([
        {"role": "user", "content": "news about rust?"},
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "rust news"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "title": "Rust 2.0", "url": "https://example.org"}
            ]},
            {"type": "tool_use", "id": "toolu_1", "name": "fetch", "input": {"url": "https://example.org"}}
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "page"}
        ]}
    ]);
    let messages = read(list);
    for api in Api::ALL {
        let m = migrate(&messages, api);
        let body = m.body.to_string();
        assert!(!body.contains("srvtoolu_1"), "{api:?}: {body}");
        assert!(
            body.contains("[web_search {\\\"query\\\":\\\"rust news\\\"}]"),
            "{api:?}: {body}"
        );
        assert!(body.contains("Rust 2.0"), "{api:?}: {body}");
        assert!(body.contains("toolu_1"), "{api:?}: {body}");
        assert_eq!(m.report.count(Change::ServerToolFlattened), 1, "{api:?}");
        assert_eq!(m.report.count(Change::CallWithoutResult), 0, "{api:?}");
    }
    let anthropic = migrate(&messages, Api::Anthropic);
    assert_eq!(
        anthropic.body["messages"][1]["content"],
        json!([
            {"type": "text", "text": "[web_search {\"query\":\"rust news\"}]"},
            {"type": "text", "text": "[{\"title\":\"Rust 2.0\",\"type\":\"web_search_result\",\"url\":\"https://example.org\"}]"},
            {"type": "tool_use", "id": "toolu_1", "name": "fetch", "input": {"url": "https://example.org"}}
        ])
    );
}

/// Timeline markers (a rollback, an aborted turn) are retrace's notes, not
/// something said: no API gets them, and the report says so.
#[test]
fn markers_are_left_out() {
    let mut user = Message::new(Role::User);
    user.content
        .push(crate::model::message::Part::Text { text: "hi".into() });
    let mut marker = Message::new(Role::System);
    marker.kind = crate::model::message::MessageKind::Marker;
    marker.content.push(crate::model::message::Part::Text {
        text: "rolled back 2 turn(s)".into(),
    });
    let mut answer = Message::new(Role::Assistant);
    answer.content.push(crate::model::message::Part::Text {
        text: "hello".into(),
    });
    let messages = [user, marker, answer];
    for api in Api::ALL {
        let m = migrate(&messages, api);
        assert!(!m.body.to_string().contains("rolled back"), "{api:?}");
        assert_eq!(m.report.count(Change::MarkerLeftOut), 1, "{api:?}");
    }
}

/// A git checkpoint is a mark on the timeline: no API gets it, whether it
/// comes as the marker the normalizers make or inside another message, and
/// the conversation around it goes through whole.
#[test]
fn checkpoints_are_left_out() {
    use crate::model::event::{ChangeKind, FileChange};
    use crate::model::message::{MessageKind, Part};
    let checkpoint = Part::Checkpoint {
        commit: "3f2a1c9d0e1f".into(),
        parent: None,
        tag: Some("tool_write_file_20260210140001".into()),
        tool: Some("write_file".into()),
        files: vec![FileChange {
            path: "src/main.rs".into(),
            change: ChangeKind::Updated,
        }],
        untracked: Vec::new(),
    };
    let mut user = Message::new(Role::User);
    user.content.push(Part::Text { text: "hi".into() });
    let mut marker = Message::new(Role::System);
    marker.kind = MessageKind::Marker;
    marker.content.push(checkpoint.clone());
    let mut answer = Message::new(Role::Assistant);
    answer.content.push(Part::Text {
        text: "hello".into(),
    });
    // Hand-built: a checkpoint beside text in an ordinary message.
    answer.content.push(checkpoint);
    let messages = [user, marker, answer];
    for api in Api::ALL {
        let m = migrate(&messages, api);
        let body = m.body.to_string();
        for absent in ["3f2a1c9", "tool_write_file", "src/main.rs", "checkpoint"] {
            assert!(!body.contains(absent), "{api:?}: {absent} in {body}");
        }
        assert!(body.contains("hello") && body.contains("hi"), "{api:?}");
        assert_eq!(m.report.count(Change::MarkerLeftOut), 2, "{api:?}");
    }
}

/// The Responses API writes parallel calls as an item each: for OpenAI Chat
/// they are one assistant message, answered by the tool messages after it.
#[test]
fn parallel_calls_from_responses_are_one_chat_message() {
    let items = json!([
        {"type": "message", "role": "user", "content": "both?"},
        {"type": "function_call", "call_id": "call_a", "name": "a", "arguments": "{}"},
        {"type": "function_call", "call_id": "call_b", "name": "b", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_a", "output": "A"},
        {"type": "function_call_output", "call_id": "call_b", "output": "B"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}
    ]);
    let m = migrate(&read(items), Api::OpenAiChat);
    assert_eq!(
        m.body,
        json!({"messages": [
            {"role": "user", "content": "both?"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "a", "arguments": "{}"}},
                {"id": "call_b", "type": "function", "function": {"name": "b", "arguments": "{}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_a", "content": "A"},
            {"role": "tool", "tool_call_id": "call_b", "content": "B"},
            {"role": "assistant", "content": "done"}
        ]})
    );
    assert_eq!(m.report.count(Change::TurnsMerged), 1);
}

/// Anthropic wants tool results first in a user turn, and a history that
/// opens with the user; Google wants a call to follow a user turn.
#[test]
fn turn_rules_of_anthropic_and_google() {
    let contents = json!([
        {"role": "model", "parts": [{"functionCall": {"name": "look", "args": {}}}]},
        {"role": "user", "parts": [
            {"text": "here it is"},
            {"functionResponse": {"name": "look", "response": {"output": "seen"}}}
        ]}
    ]);
    let messages = read(contents);
    let anthropic = migrate(&messages, Api::Anthropic);
    let turns = anthropic.body["messages"].as_array().unwrap();
    assert_eq!(
        turns[0],
        json!({"role": "user", "content": "(The conversation continues.)"})
    );
    assert_eq!(turns[1]["role"], "assistant");
    let last: Vec<&Value> = turns[2]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| &b["type"])
        .collect();
    assert_eq!(last, ["tool_result", "text"]);
    assert_eq!(anthropic.report.count(Change::UserTurnAdded), 1);
    let google = migrate(&messages, Api::Google);
    assert_eq!(
        google.body["contents"][0],
        json!({"role": "user", "parts": [{"text": "(The conversation continues.)"}]})
    );
    // OpenAI has no such rule.
    let chat = migrate(&messages, Api::OpenAiChat);
    assert_eq!(chat.body["messages"][0]["role"], "assistant");
    assert_eq!(chat.report.count(Change::UserTurnAdded), 0);
}

/// A PDF is not an image: a document for Anthropic, kept for Google,
/// dropped (and said) for the OpenAI APIs.
#[test]
fn media_other_than_images() {
    let contents = json!([
        {"role": "user", "parts": [
            {"text": "summarize"},
            {"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0x"}},
            {"inlineData": {"mimeType": "audio/wav", "data": "UklGRg"}}
        ]}
    ]);
    let messages = read(contents.clone());
    let anthropic = migrate(&messages, Api::Anthropic);
    assert_eq!(
        anthropic.body["messages"][0]["content"],
        json!([
            {"type": "text", "text": "summarize"},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"}}
        ])
    );
    assert_eq!(anthropic.report.count(Change::MediaDropped), 1);
    for api in [Api::OpenAiChat, Api::OpenAiResponses] {
        let m = migrate(&messages, api);
        assert!(!m.body.to_string().contains("JVBERi0x"), "{api:?}");
        assert_eq!(m.report.count(Change::MediaDropped), 2, "{api:?}");
    }
    assert_eq!(migrate(&messages, Api::Google).body["contents"], contents);
}

/// Responses takes a tool's images back in its output list.
#[test]
fn responses_tool_outputs_keep_their_images() {
    let list = json!([
        {"role": "user", "content": "screenshot?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "shot", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [
            {"type": "text", "text": "taken"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}
        ]}]}
    ]);
    let m = migrate(&read(list), Api::OpenAiResponses);
    assert_eq!(
        m.body["input"][2],
        json!({"type": "function_call_output", "call_id": "toolu_1", "output": [
            {"type": "input_text", "text": "taken"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0K", "detail": "auto"}
        ]})
    );
    assert_eq!(m.report.count(Change::ImageDropped), 0);
}

/// Calls left without a result get one each, in the order of the calls.
#[test]
fn unanswered_calls_are_answered_in_call_order() {
    let list = json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
            {"id": "call_2", "type": "function", "function": {"name": "b", "arguments": "{}"}},
            {"id": "call_3", "type": "function", "function": {"name": "c", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_2", "content": "B"}
    ]);
    let m = migrate(&read(list), Api::OpenAiChat);
    let answered: Vec<&Value> = m.body["messages"].as_array().unwrap()[2..]
        .iter()
        .map(|t| &t["tool_call_id"])
        .collect();
    assert_eq!(answered, ["call_2", "call_1", "call_3"]);
    assert_eq!(m.report.count(Change::CallWithoutResult), 2);
}

/// An OpenAI refusal is what the assistant said; an Anthropic PDF document
/// goes back as the document it was.
#[test]
fn refusals_and_documents_are_read() {
    let chat = json!([
        {"role": "user", "content": "do the bad thing"},
        {"role": "assistant", "content": null, "refusal": "I can't help with that."}
    ]);
    let m = migrate(&read(chat), Api::OpenAiChat);
    assert_eq!(
        m.body["messages"][1],
        json!({"role": "assistant", "content": "I can't help with that."})
    );
    let anthropic = json!([
        {"role": "user", "content": [
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"}},
            {"type": "text", "text": "summarize"}
        ]}
    ]);
    let m = migrate(&read(anthropic.clone()), Api::Anthropic);
    assert_eq!(m.body, json!({ "messages": anthropic }));
    assert!(m.report.changes.is_empty(), "{}", m.report);
}

/// A Responses custom tool call (free text in, not JSON arguments) goes
/// back as one, with a custom output; other APIs get its text wrapped.
#[test]
fn custom_tool_calls_round_trip_to_responses() {
    let items = json!([
        {"type": "message", "role": "user", "content": "patch it"},
        {"type": "custom_tool_call", "id": "ctc_1", "call_id": "call_p", "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch"},
        {"type": "custom_tool_call_output", "call_id": "call_p", "output": "Done!"}
    ]);
    let messages = read(items.clone());
    let m = migrate(&messages, Api::OpenAiResponses);
    let mut want = items;
    want[0]["content"] = json!("patch it");
    assert_eq!(m.body["input"], want);
    let anthropic = migrate(&messages, Api::Anthropic);
    assert_eq!(
        anthropic.body["messages"][1]["content"][0]["input"],
        json!({"input": "*** Begin Patch\n*** End Patch"})
    );
    assert_eq!(anthropic.report.count(Change::ArgumentsWrapped), 1);
}

/// A result written after other turns goes right after its call, where
/// every API wants it.
#[test]
fn late_results_move_next_to_their_call() {
    let list = json!([
        {"role": "user", "content": "run it"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_A", "type": "function", "function": {"name": "run", "arguments": "{}"}}
        ]},
        {"role": "user", "content": "still there?"},
        {"role": "tool", "tool_call_id": "call_A", "content": "ok"}
    ]);
    let messages = read(list);
    let chat = migrate(&messages, Api::OpenAiChat);
    let roles: Vec<&Value> = chat.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["role"])
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "user"]);
    assert_eq!(chat.report.count(Change::ResultMoved), 1);
    assert_eq!(chat.report.count(Change::CallWithoutResult), 0);
    let anthropic = migrate(&messages, Api::Anthropic);
    assert_eq!(
        anthropic.body["messages"][2]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "call_A", "content": "ok"},
            {"type": "text", "text": "still there?"}
        ])
    );
}

/// OpenAI arguments that are empty or a JSON string survive: an empty one
/// is no arguments, a JSON string goes back to OpenAI as written.
#[test]
fn empty_and_string_arguments() {
    let list = json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "now", "arguments": ""}},
            {"id": "call_2", "type": "function", "function": {"name": "say", "arguments": "\"just a string\""}}
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "noon"},
        {"role": "tool", "tool_call_id": "call_2", "content": "said"}
    ]);
    let messages = read(list.clone());
    let chat = migrate(&messages, Api::OpenAiChat);
    assert_eq!(
        chat.body["messages"][1]["tool_calls"][1],
        list[1]["tool_calls"][1]
    );
    let anthropic = migrate(&messages, Api::Anthropic);
    let calls = &anthropic.body["messages"][1]["content"];
    assert_eq!(calls[0]["input"], json!({}));
    assert_eq!(calls[1]["input"], json!({"input": "just a string"}));
    assert_eq!(anthropic.report.count(Change::ArgumentsWrapped), 1);
}

/// An image the user put after a tool result is the user's, not the
/// tool's: it stays beside the result (and survives OpenAI Chat, whose tool
/// messages take no images, as user content after them).
#[test]
fn a_user_image_after_a_result_stays_the_users() {
    let list = json!([
        {"role": "user", "content": "look"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.png"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}
        ]}
    ]);
    let messages = read(list.clone());
    let anthropic = migrate(&messages, Api::Anthropic);
    assert_eq!(anthropic.body, json!({ "messages": list }));
    let chat = migrate(&messages, Api::OpenAiChat);
    assert_eq!(
        chat.body["messages"][3],
        json!({"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0K"}}
        ]})
    );
    assert_eq!(chat.report.count(Change::ImageDropped), 0);
}

/// Reasoning items without ids (Codex writes and sends them so) go back to
/// Responses by their encrypted content, summaries joined as they were.
#[test]
fn reasoning_without_ids_goes_back_by_its_encrypted_content() {
    let items = json!([
        {"type": "message", "role": "user", "content": "think"},
        {"type": "reasoning", "summary": [
            {"type": "summary_text", "text": "first"},
            {"type": "summary_text", "text": "second"}
        ], "encrypted_content": "gAAAAB"},
        {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAC"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done", "annotations": []}]}
    ]);
    let messages = read(items.clone());
    let m = migrate(&messages, Api::OpenAiResponses);
    let mut want = items;
    want[0]["content"] = json!("think");
    assert_eq!(m.body["input"], want);
    assert!(m.report.is_lossless(), "{}", m.report);
}

/// A branch with nothing a model was told (no messages; system lines and
/// markers only) is no history: every API rejects one, so `try_migrate`
/// refuses it, saying what the messages were; `migrate` still writes it.
#[test]
fn nothing_to_send_is_refused() {
    use crate::model::message::{MessageKind, Part};
    let text = |role: Role, kind: MessageKind, text: &str| {
        let mut m = Message::new(role);
        m.kind = kind;
        m.content.push(Part::Text { text: text.into() });
        m
    };
    for api in Api::ALL {
        let err = try_migrate(&[], api).unwrap_err();
        assert_eq!(
            err.to_string(),
            "nothing to send: the branch holds no messages \
             (every API rejects a history without a user or model turn)"
        );
        assert_eq!(migrate(&[], api).report.turns, 0);
    }
    let system = text(Role::System, MessageKind::Normal, "You are terse.");
    let marker = text(Role::System, MessageKind::Marker, "model changed");
    let blank = text(Role::User, MessageKind::Normal, "  ");
    let only = [system.clone(), marker.clone(), marker, blank];
    for api in Api::ALL {
        let err = try_migrate(&only, api).unwrap_err();
        assert_eq!(
            err,
            MigrateError::NothingToSend {
                messages: 4,
                system: 1,
                markers: 2
            },
            "{api}"
        );
        assert!(err.to_string().starts_with(
            "nothing to send: none of the branch's 4 messages is a user or model turn \
             (1 system prompt, 2 timeline markers, 1 left empty)"
        ));
    }
    // One message to send is enough, for every API.
    let hi = text(Role::User, MessageKind::Normal, "hi");
    for api in Api::ALL {
        let m = try_migrate(&[system.clone(), hi.clone()], api).expect("a history");
        assert!(m.report.turns >= 1, "{api}");
    }
}

/// Responses images carry `detail`, which the SDKs' type requires: `auto`,
/// the API's default (the session keeps none).
#[test]
fn responses_images_say_their_detail() {
    let list = json!([
        {"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}
        ]}
    ]);
    let m = migrate(&read(list), Api::OpenAiResponses);
    assert_eq!(
        m.body["input"][0]["content"][1],
        json!({"type": "input_image", "image_url": "https://example.com/cat.png", "detail": "auto"})
    );
}

/// Responses items the API takes but the SDKs' typed items do not (an
/// assistant message without id and status, a reasoning item without id)
/// are noted; Responses' own items with their ids are not.
#[test]
fn responses_items_without_ids_are_noted() {
    // From another API: the assistant's text has no item id.
    let chat = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"}
    ]);
    let m = migrate(&read(chat), Api::OpenAiResponses);
    assert_eq!(codes(&m.report), [("item-id-missing", 1)], "{}", m.report);
    assert!(m.report.is_lossless());
    let note = &m.report.changes[0];
    assert!(note.note && !note.loss);
    assert!(
        m.report.to_string().contains("  note    item.id "),
        "{}",
        m.report
    );
    // Responses' own, with ids and status: nothing to note.
    let own = json!([
        {"type": "message", "role": "user", "content": "think"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAB"},
        {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
         "content": [{"type": "output_text", "text": "done", "annotations": []}]}
    ]);
    let m = migrate(&read(own), Api::OpenAiResponses);
    assert!(m.report.changes.is_empty(), "{}", m.report);
    // As Codex sends them: a reasoning item by its encrypted content alone,
    // a message without id or status.
    let codex = json!([
        {"type": "message", "role": "user", "content": "think"},
        {"type": "reasoning", "summary": [], "encrypted_content": "gAAAAB"},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "done", "annotations": []}]}
    ]);
    let m = migrate(&read(codex), Api::OpenAiResponses);
    assert_eq!(codes(&m.report), [("item-id-missing", 2)], "{}", m.report);
}

/// Gemini 3 wants a thought signature on the calls of the open tool loop:
/// when the source has none to give back, the report says so, and what to
/// do; a signed call, or a loop a model reply closed, needs nothing.
#[test]
fn unsigned_gemini_calls_of_an_open_loop_are_noted() {
    let call = |signature: Option<&str>| {
        let mut part = json!({"functionCall": {"name": "ls", "args": {}}});
        if let Some(s) = signature {
            part["thoughtSignature"] = json!(s);
        }
        json!({"role": "model", "parts": [part]})
    };
    let result = json!({"role": "user", "parts": [
        {"functionResponse": {"name": "ls", "response": {"output": "a b"}}}
    ]});
    let ask = json!({"role": "user", "parts": [{"text": "list"}]});
    let reply = json!({"role": "model", "parts": [{"text": "a and b"}]});
    let code = "thought-signature-missing";
    // Open, unsigned: noted at the call, written as it was.
    let open = json!([ask, call(None), result]);
    let m = migrate(&read(open.clone()), Api::Google);
    assert_eq!(
        m.report.count(Change::ThoughtSignatureMissing),
        1,
        "{}",
        m.report
    );
    assert_eq!(m.body["contents"], open);
    let text = m.report.to_string();
    assert!(text.contains("skip_thought_signature_validator"), "{text}");
    assert!(m.report.changes.iter().any(|c| c.code == code && c.note));
    // Two steps of the loop, the first signed: the second is noted.
    let steps = json!([ask, call(Some("CiIB")), result, call(None), result]);
    let m = migrate(&read(steps), Api::Google);
    assert_eq!(
        m.report.count(Change::ThoughtSignatureMissing),
        1,
        "{}",
        m.report
    );
    // Signed; closed by a reply; before the last user turn: nothing.
    for list in [
        json!([ask, call(Some("CiIB")), result]),
        json!([ask, call(None), result, reply]),
        json!([ask, call(None), result, reply, ask]),
    ] {
        let m = migrate(&read(list), Api::Google);
        assert_eq!(
            m.report.count(Change::ThoughtSignatureMissing),
            0,
            "{}",
            m.report
        );
    }
    // From another API, whose calls carry no Gemini signature.
    let chat = json!([
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a b"}
    ]);
    let m = migrate(&read(chat), Api::Google);
    assert_eq!(
        m.report.count(Change::ThoughtSignatureMissing),
        1,
        "{}",
        m.report
    );
}

/// Anthropic with extended thinking wants the open tool loop's last
/// assistant turn to start with its thinking block: when the source has
/// none, the report says so and what to do.
#[test]
fn an_open_loop_without_thinking_is_noted_for_anthropic() {
    let ask = json!({"role": "user", "content": "list"});
    let call = |thinking: bool| {
        let mut content = Vec::new();
        if thinking {
            content.push(json!({"type": "thinking", "thinking": "ls it", "signature": "EqQB"}));
        }
        content.push(json!({"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {}}));
        json!({"role": "assistant", "content": content})
    };
    let result = json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a b"}
    ]});
    let reply = json!({"role": "assistant", "content": "a and b"});
    let m = migrate(&read(json!([ask, call(false), result])), Api::Anthropic);
    assert_eq!(
        codes(&m.report),
        [("loop-thinking-missing", 1), ("role-renamed", 1)],
        "{}",
        m.report
    );
    assert!(
        m.report.to_string().contains("thinking off"),
        "{}",
        m.report
    );
    for list in [
        json!([ask, call(true), result]),
        json!([ask, call(false), result, reply]),
    ] {
        let m = migrate(&read(list), Api::Anthropic);
        assert_eq!(
            m.report.count(Change::LoopThinkingMissing),
            0,
            "{}",
            m.report
        );
    }
    // Thinking of another API is dropped, so it does not count.
    let chat = json!([
        {"role": "user", "content": "list"},
        {"role": "assistant", "content": null, "reasoning_content": "ls it", "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a b"}
    ]);
    let m = migrate(&read(chat), Api::Anthropic);
    assert_eq!(
        m.report.count(Change::LoopThinkingMissing),
        1,
        "{}",
        m.report
    );
}
