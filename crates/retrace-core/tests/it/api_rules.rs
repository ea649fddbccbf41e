//! What each provider API accepts of a history, checked on a migrated
//! body the way the APIs and their SDK types check it: the validators the
//! lists, seal, fork, compact and repair tests share.

use retrace_core::migrate::{try_migrate, Change, MigrateError};
use retrace_core::{Api, ContextOptions, EntryId, Session, Source};
use serde_json::Value;

/// The branch ending at `leaf` (what a resumed agent would send: its
/// context, payloads included) migrated to every API, each body checked
/// by [`validate`]. A branch with nothing to send is refused by
/// `try_migrate` for every API alike, and only that refusal is let pass.
/// Gives how many APIs took the branch: 0 or 4.
pub fn validate_branch(s: &Session, source: &mut dyn Source, leaf: EntryId, what: &str) -> usize {
    let messages = s
        .context_with(leaf, source, ContextOptions { payloads: true })
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let mut taken = 0;
    for api in Api::ALL {
        match try_migrate(&messages, api) {
            Ok(m) => {
                let what = format!("{what} → {api:?}");
                validate(api, &m.body, &what);
                // An item the SDKs' types would reject is one the report
                // tells the caller about.
                let without_id = body_list(api, &m.body)
                    .iter()
                    .any(|i| i["type"] == "reasoning" && i.get("id").is_none());
                if without_id {
                    assert!(m.report.count(Change::ItemIdMissing) > 0, "{what}");
                }
                taken += 1;
            }
            Err(MigrateError::NothingToSend { .. }) => {}
        }
    }
    assert!(
        taken == 0 || taken == Api::ALL.len(),
        "{what}: {taken} of the APIs refuse the branch as empty, not all"
    );
    taken
}

/// The list in a migrated body.
pub fn body_list(api: Api, body: &Value) -> Vec<Value> {
    let key = match api {
        Api::Anthropic | Api::OpenAiChat => "messages",
        Api::OpenAiResponses => "input",
        Api::Google => "contents",
    };
    body[key].as_array().unwrap().clone()
}

/// What each API checks of a history: tool results answer calls just
/// before them, ids are valid, roles alternate where required.
pub fn validate(api: Api, body: &Value, what: &str) {
    let list = body_list(api, body);
    // Every API rejects an empty history (`try_migrate` refuses one).
    assert!(!list.is_empty(), "{what}: an empty history");
    match api {
        Api::Anthropic => {
            let mut last_role = "";
            let mut open: Vec<String> = Vec::new();
            for m in &list {
                let role = m["role"].as_str().unwrap();
                assert_ne!(role, last_role, "{what}: roles must alternate");
                last_role = role;
                let blocks = m["content"].as_array().cloned().unwrap_or_default();
                if role == "user" {
                    let results: Vec<&str> = blocks
                        .iter()
                        .filter(|b| b["type"] == "tool_result")
                        .map(|b| b["tool_use_id"].as_str().unwrap())
                        .collect();
                    let mut expected = open.clone();
                    expected.sort();
                    let mut got: Vec<String> = results.iter().map(|s| s.to_string()).collect();
                    got.sort();
                    assert_eq!(
                        got, expected,
                        "{what}: results answer the calls before them"
                    );
                    // Results open the turn.
                    let first_other = blocks.iter().position(|b| b["type"] != "tool_result");
                    if let Some(i) = first_other {
                        assert!(
                            blocks[i..].iter().all(|b| b["type"] != "tool_result"),
                            "{what}"
                        );
                    }
                    open.clear();
                } else {
                    assert!(open.is_empty(), "{what}: calls left unanswered");
                    for b in blocks.iter().filter(|b| b["type"] == "tool_use") {
                        let id = b["id"].as_str().unwrap();
                        assert!(
                            !id.is_empty()
                                && id
                                    .bytes()
                                    .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-'),
                            "{what}: id {id}"
                        );
                        assert!(b["input"].is_object(), "{what}");
                        open.push(id.to_owned());
                    }
                }
                if let Some(text) = m["content"].as_str() {
                    assert!(!text.trim().is_empty(), "{what}: empty text");
                }
                for b in &blocks {
                    if b["type"] == "text" {
                        assert!(!b["text"].as_str().unwrap().trim().is_empty(), "{what}");
                    }
                }
            }
            assert!(open.is_empty(), "{what}: calls left unanswered at the end");
        }
        Api::OpenAiChat => {
            let mut open: Vec<String> = Vec::new();
            for m in &list {
                match m["role"].as_str().unwrap() {
                    "tool" => {
                        let id = m["tool_call_id"].as_str().unwrap();
                        let at = open.iter().position(|o| o == id);
                        assert!(
                            at.is_some(),
                            "{what}: tool message for {id} without its call"
                        );
                        open.remove(at.unwrap());
                    }
                    role => {
                        assert!(open.is_empty(), "{what}: {role} message before all results");
                        for call in m["tool_calls"].as_array().into_iter().flatten() {
                            let id = call["id"].as_str().unwrap();
                            assert!(!id.is_empty() && id.len() <= 40, "{what}: id {id}");
                            assert!(call["function"]["arguments"].is_string(), "{what}");
                            open.push(id.to_owned());
                        }
                    }
                }
            }
            assert!(open.is_empty(), "{what}");
        }
        Api::OpenAiResponses => {
            let mut calls = std::collections::HashSet::new();
            for item in &list {
                // The SDKs' image type requires `detail`.
                for image in parts_of_type(item, "input_image") {
                    assert!(image["detail"].is_string(), "{what}: {image}");
                }
                match item["type"].as_str().unwrap() {
                    "function_call" => {
                        let id = item["call_id"].as_str().unwrap();
                        assert!(!id.is_empty() && id.len() <= 64, "{what}: id {id}");
                        assert!(calls.insert(id.to_owned()), "{what}: id {id} twice");
                    }
                    "function_call_output" => {
                        let id = item["call_id"].as_str().unwrap();
                        assert!(
                            calls.contains(id),
                            "{what}: output for {id} without its call"
                        );
                    }
                    // By its id, or (as Codex sends it, and `migrate`
                    // notes as `item-id-missing`) by its encrypted content
                    // alone: the API can take it back no other way.
                    "reasoning" => assert!(
                        item["id"].is_string() || item["encrypted_content"].is_string(),
                        "{what}: a reasoning item with neither id nor encrypted content"
                    ),
                    "message" => assert!(item["role"].is_string(), "{what}"),
                    other => panic!("{what}: item type {other}"),
                }
            }
        }
        Api::Google => {
            let mut last_role = "";
            let mut calls: Vec<String> = Vec::new();
            for c in &list {
                let role = c["role"].as_str().unwrap();
                assert!(role == "user" || role == "model", "{what}");
                assert_ne!(role, last_role, "{what}: roles must alternate");
                last_role = role;
                let parts = c["parts"].as_array().unwrap();
                assert!(!parts.is_empty(), "{what}");
                if role == "model" {
                    calls = parts
                        .iter()
                        .filter_map(|p| p["functionCall"]["name"].as_str().map(str::to_owned))
                        .collect();
                    for p in parts {
                        assert!(
                            p.get("thought").is_none(),
                            "{what}: thoughts are not sent back"
                        );
                        if let Some(args) = p.get("functionCall").map(|f| &f["args"]) {
                            assert!(args.is_object(), "{what}");
                        }
                    }
                } else {
                    let mut answered: Vec<String> = parts
                        .iter()
                        .filter_map(|p| p["functionResponse"]["name"].as_str().map(str::to_owned))
                        .collect();
                    answered.sort();
                    let mut expected = std::mem::take(&mut calls);
                    expected.sort();
                    assert_eq!(answered, expected, "{what}: responses answer the calls");
                }
            }
        }
    }
}

/// Every object of type `kind` inside `v`, at any depth.
fn parts_of_type<'a>(v: &'a Value, kind: &str) -> Vec<&'a Value> {
    let mut found = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(o) => {
                if o.get("type").and_then(Value::as_str) == Some(kind) {
                    found.push(v);
                }
                stack.extend(o.values());
            }
            Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
    found
}
