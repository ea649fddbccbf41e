//! Provider message lists as sessions: detected in every shape (JSON lines,
//! a JSON array, an object holding the list), read as one chain, and
//! migrated to every API: back to their own API unchanged (modulo the
//! normalization `retrace_core::migrate` documents), to the others with the
//! report saying what was lost.

use crate::api_rules::{body_list, validate};
use crate::common::*;
use retrace_core::migrate::{migrate, Change, Report};
use retrace_core::{Api, Format, Session};
use serde_json::{json, Value};

/// The fixtures and what they are.
const LISTS: &[(&str, Format)] = &[
    (
        "provider/anthropic-messages.json",
        Format::MessageList {
            api: Api::Anthropic,
        },
    ),
    (
        "provider/anthropic-messages.jsonl",
        Format::MessageList {
            api: Api::Anthropic,
        },
    ),
    (
        "provider/openai-chat.json",
        Format::MessageList {
            api: Api::OpenAiChat,
        },
    ),
    (
        "provider/openai-chat.jsonl",
        Format::MessageList {
            api: Api::OpenAiChat,
        },
    ),
    (
        "provider/openai-responses.json",
        Format::MessageList {
            api: Api::OpenAiResponses,
        },
    ),
    (
        "provider/openai-responses.jsonl",
        Format::MessageList {
            api: Api::OpenAiResponses,
        },
    ),
    (
        "provider/google-contents.json",
        Format::MessageList { api: Api::Google },
    ),
    (
        "provider/google-contents-noid.jsonl",
        Format::MessageList { api: Api::Google },
    ),
    (
        "provider/agentscope-memory_messages.jsonl",
        Format::AgentScope,
    ),
];

fn open(rel: &str) -> (Session, Vec<u8>) {
    let bytes = fixture(rel);
    (Session::from_bytes(rel, &bytes), bytes)
}

/// The list a file holds and the document around it (if any).
fn list_of(bytes: &[u8]) -> (Vec<Value>, Option<Value>) {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Array(list)) => (list, None),
        Ok(doc @ Value::Object(_)) => {
            let key = ["messages", "contents", "input"]
                .into_iter()
                .find(|k| doc.get(k).is_some())
                .unwrap();
            (doc[key].as_array().unwrap().clone(), Some(doc))
        }
        _ => (
            bytes
                .split(|&b| b == b'\n')
                .filter(|l| !l.is_empty())
                .map(|l| serde_json::from_slice(l).unwrap())
                .collect(),
            None,
        ),
    }
}

/// The normalization a round trip does not undo (documented in
/// `retrace_core::migrate`), applied to a list of `api`.
fn canonical(api: Api, list: &[Value]) -> Vec<Value> {
    let single_text = |content: &mut Value, text_type: &str| {
        if let Some([only]) = content.as_array().map(Vec::as_slice) {
            if only["type"] == text_type && only.as_object().unwrap().len() == 2 {
                *content = only["text"].clone();
            }
        }
    };
    list.iter()
        .cloned()
        .map(|mut m| {
            match api {
                Api::Anthropic => {
                    let content = m.get_mut("content").and_then(Value::as_array_mut);
                    for b in content.into_iter().flatten() {
                        let b = b.as_object_mut().unwrap();
                        b.remove("cache_control");
                        b.remove("citations");
                        if let Some(c) = b.get_mut("content") {
                            single_text(c, "text");
                        }
                    }
                    single_text(&mut m["content"], "text");
                }
                Api::OpenAiChat => {
                    let calls = m.get_mut("tool_calls").and_then(Value::as_array_mut);
                    for call in calls.into_iter().flatten() {
                        let args = call["function"]["arguments"].as_str().unwrap();
                        let parsed: Value = serde_json::from_str(args).unwrap();
                        call["function"]["arguments"] = parsed.to_string().into();
                    }
                    single_text(&mut m["content"], "text");
                }
                Api::OpenAiResponses => {
                    if m.get("role").is_some() && m.get("type").is_none() {
                        m["type"] = "message".into();
                    }
                    if m.get("role").is_some_and(|r| r != "assistant") {
                        single_text(&mut m["content"], "input_text");
                    }
                }
                Api::Google => {
                    let parts = m["parts"].as_array_mut().unwrap();
                    parts.retain(|p| p.get("thought") != Some(&json!(true)));
                }
            }
            m
        })
        .collect()
}

fn codes(report: &Report) -> Vec<(&'static str, usize)> {
    report.changes.iter().map(|c| (c.code, c.count)).collect()
}

#[test]
fn every_list_shape_is_detected_and_read_as_one_chain() {
    for &(rel, format) in LISTS {
        let (s, bytes) = open(rel);
        assert_lossless(rel, &s, &bytes);
        assert_eq!(s.format(), format, "{rel}");
        let (list, _) = list_of(&bytes);
        assert_eq!(s.entries().len(), list.len(), "{rel}");
        assert_eq!(s.tree().len(), list.len(), "{rel}");
        assert_eq!(s.tree().roots().len(), 1, "{rel}");
        assert_eq!(s.tree().tips().len(), 1, "{rel}");
        assert!(s.tree().branch_points().is_empty(), "{rel}");
        let last = retrace_core::EntryId(list.len() as u32 - 1);
        assert_eq!(s.tree().default_leaf(), Some(last), "{rel}");
        let problems: Vec<_> = s
            .diagnostics()
            .iter()
            .filter(|d| d.severity > retrace_core::Severity::Info)
            .collect();
        assert!(problems.is_empty(), "{rel}: {problems:?}");
    }
}

/// The messages of a session with where they came from left out.
fn bare(s: &Session, bytes: &[u8]) -> Value {
    let mut v = serde_json::to_value(history(s, bytes)).unwrap();
    for m in v.as_array_mut().unwrap() {
        m.as_object_mut().unwrap().remove("entries");
        m.as_object_mut().unwrap().remove("lines");
    }
    v
}

#[test]
fn lines_array_and_object_forms_read_the_same() {
    for &(rel, _) in LISTS {
        let (list, _) = list_of(&fixture(rel));
        let lines: String = list.iter().map(|m| format!("{m}\n")).collect();
        let array = serde_json::to_string_pretty(&list).unwrap();
        let object =
            serde_json::to_string_pretty(&json!({"model": "m", "messages": list})).unwrap();
        let read = |text: &str| {
            let s = Session::from_bytes(rel, text.as_bytes());
            assert_lossless(rel, &s, text.as_bytes());
            (s.format(), bare(&s, text.as_bytes()))
        };
        let expected = read(&lines);
        assert_eq!(read(&array), expected, "{rel} as an array");
        assert_eq!(read(&object), expected, "{rel} as an object");
        assert_eq!(
            expected.1.as_array().unwrap().len(),
            list.len(),
            "{rel}: one message per element"
        );
    }
}

#[test]
fn each_list_goes_back_to_its_own_api_unchanged() {
    for &(rel, format) in LISTS {
        let Format::MessageList { api } = format else {
            continue;
        };
        let (s, bytes) = open(rel);
        let (list, doc) = list_of(&bytes);
        let m = migrate(&history(&s, &bytes), api);
        let mut written = body_list(api, &m.body);
        // The system prompt, where the document kept one.
        match (api, &doc) {
            (Api::Anthropic, Some(_)) => {
                // Text blocks become one string.
                assert_eq!(m.body["system"], "You are a build doctor.", "{rel}");
            }
            (Api::OpenAiResponses, Some(doc)) => {
                let system = written.remove(0);
                assert_eq!(
                    system,
                    json!({"type": "message", "role": "system", "content": doc["instructions"]})
                );
            }
            (Api::Google, Some(doc)) => {
                assert_eq!(
                    m.body["systemInstruction"], doc["systemInstruction"],
                    "{rel}"
                );
            }
            _ => assert_eq!(m.body.as_object().unwrap().len(), 1, "{rel}: {}", m.body),
        }
        assert_eq!(
            Value::Array(written),
            Value::Array(canonical(api, &list)),
            "{rel}"
        );
        // Checked by hand per fixture: only changes of form, or the
        // thought part Google takes no longer.
        let expected: &[(&str, usize)] = match rel {
            // Tool results sit in user turns (2 of them).
            "provider/anthropic-messages.json" | "provider/anthropic-messages.jsonl" => {
                &[("role-renamed", 2)]
            }
            // One thought part; three model turns and two tool turns.
            "provider/google-contents.json" => &[("thinking-dropped", 1), ("role-renamed", 5)],
            "provider/google-contents-noid.jsonl" => &[("role-renamed", 3)],
            _ => &[],
        };
        assert_eq!(codes(&m.report), expected, "{rel}:\n{}", m.report);
    }
}

#[test]
fn every_list_migrates_to_every_api_validly() {
    for &(rel, _) in LISTS {
        let (s, bytes) = open(rel);
        let messages = history(&s, &bytes);
        for api in Api::ALL {
            let m = migrate(&messages, api);
            validate(api, &m.body, &format!("{rel} → {api}"));
            // The same input gives the same output: no clock, no chance.
            assert_eq!(migrate(&messages, api).body, m.body);
        }
    }
}

#[test]
fn cross_api_reports_checked_by_hand() {
    let report = |rel: &str, api: Api| {
        let (s, bytes) = open(rel);
        migrate(&history(&s, &bytes), api)
    };
    // anthropic-messages.json: 1 thinking (signed), 1 redacted thinking,
    // 1 image inside a tool result, 1 tool result marked as an error.
    let m = report("provider/anthropic-messages.json", Api::OpenAiChat);
    assert_eq!(
        codes(&m.report),
        [
            ("thinking-dropped", 1),
            ("redacted-thinking-dropped", 1),
            ("signature-dropped", 1),
            ("image-dropped", 1),
            ("error-flag-dropped", 1),
        ],
        "{}",
        m.report
    );
    // The user's image and the system prompt go along.
    let list = &m.body["messages"];
    assert_eq!(
        list[0],
        json!({"role": "system", "content": "You are a build doctor."})
    );
    assert!(list[1]["content"][1]["image_url"]["url"]
        .as_str()
        .unwrap()
        .starts_with("data:image/png;base64,iVBOR"));
    let m = report("provider/anthropic-messages.json", Api::Google);
    // Google takes the error (as `{"error": …}`) and the tool's image (as
    // inline data after the response); roles: 3 assistant + 2 tool turns.
    assert_eq!(
        codes(&m.report),
        [
            ("thinking-dropped", 1),
            ("redacted-thinking-dropped", 1),
            ("signature-dropped", 1),
            ("role-renamed", 5),
        ],
        "{}",
        m.report
    );
    assert_eq!(
        m.body["contents"][4]["parts"][0]["functionResponse"]["response"],
        json!({"error": "Package openssl was not found"})
    );
    assert!(m.body["contents"][4]["parts"][2]["inlineData"].is_object());

    // openai-chat: system and developer both lead, so they simply become
    // Anthropic's system; the two tool messages merge into one user turn.
    let m = report("provider/openai-chat.json", Api::Anthropic);
    assert_eq!(
        codes(&m.report),
        [("role-renamed", 2), ("turns-merged", 1)],
        "{}",
        m.report
    );
    assert_eq!(
        m.body["system"],
        "You are a weather bot.\n\nAnswer in one line."
    );

    // Google with its thought signature on a call: meaningless elsewhere.
    // Its two model turns with text are message items without the id and
    // status Responses' own would have: noted.
    let m = report("provider/google-contents.json", Api::OpenAiResponses);
    assert_eq!(
        codes(&m.report),
        [
            ("thinking-dropped", 1),
            ("signature-dropped", 1),
            ("item-id-missing", 2)
        ],
        "{}",
        m.report
    );
    // The structured response is kept as its JSON text.
    let out = m.body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "function_call_output")
        .nth(1)
        .unwrap();
    assert_eq!(out["output"], r#"{"date":"2025-06-01","rate":0.92}"#);

    // Calls without ids: three generated, answered out of order by name.
    let m = report("provider/google-contents-noid.jsonl", Api::Anthropic);
    assert_eq!(m.report.count(Change::IdGenerated), 3, "{}", m.report);
    let results: Vec<(&str, &str)> = m.body["messages"][2]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["tool_use_id"].as_str().unwrap(),
                b["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        [
            ("call_2", "-14h"),
            ("call_0", "09:00"),
            ("call_1", "19:00 (previous day)")
        ]
    );

    // Responses reasoning cannot go to Anthropic: 2 items, one with a
    // summary; both carry encrypted content.
    let m = report("provider/openai-responses.json", Api::Anthropic);
    assert_eq!(
        codes(&m.report),
        [
            ("thinking-dropped", 2),
            ("signature-dropped", 2),
            ("role-renamed", 1),
        ],
        "{}",
        m.report
    );

    // AgentScope: thinking without a signature.
    let m = report("provider/agentscope-memory_messages.jsonl", Api::Anthropic);
    assert_eq!(
        codes(&m.report),
        [("thinking-dropped", 1), ("role-renamed", 1)],
        "{}",
        m.report
    );
    assert_eq!(
        m.body["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_calc_01", "content": "391"}
        ]})
    );
}

#[test]
fn a_broken_array_keeps_its_good_elements_and_says_where() {
    let rel = "broken/array-broken-element.json";
    let (s, bytes) = open(rel);
    assert_lossless(rel, &s, &bytes);
    assert_eq!(s.entries().len(), 4);
    let errors: Vec<(u32, u64, &str)> = s
        .diagnostics()
        .iter()
        .map(|d| (d.line, d.offset, d.kind.code()))
        .collect();
    let text = std::str::from_utf8(&bytes).unwrap();
    assert_eq!(
        errors,
        [
            (
                3,
                text.find("\"content\": \"The").unwrap() as u64,
                "malformed-json"
            ),
            (4, text.find("\"a stray").unwrap() as u64, "malformed-json"),
        ]
    );
    // The two good messages still make a conversation.
    assert_eq!(
        s.format(),
        Format::MessageList {
            api: Api::OpenAiChat
        }
    );
    let context = history(&s, &bytes);
    assert_eq!(context.len(), 2);
    assert_eq!(context[1].text(), "Thanks.");
}
