//! Fork, seal and compaction of provider message lists (`edit/lists.rs`)
//! on the provider fixtures, each API as JSON lines and as a document (a
//! bare array or a request body). A fork at every safe point is that
//! prefix in the same outer shape; a seal of lists cut after a call, or
//! with a result taken out, leaves no call open and passes the API's own
//! pairing rules as written; a compaction keeps the system prompt, the
//! summary, the tail byte for byte, and no orphan, three times in a row.
//! Every output migrates to a history each API takes.

use std::collections::HashSet;

use retrace_core::migrate::try_migrate;
use retrace_core::{
    compact, compaction_plan, export_branch, fork, open_calls, safe_points, seal, Api, Budget,
    ContextOptions, CutRule, EntryId, ForkLineage, Format, Message, Part, Reader, ReaderOptions,
    Role, Session, Stamp,
};
use serde_json::Value;

use crate::api_rules::{body_list, validate};
use crate::common::*;

const FIXTURES: &[(&str, Api)] = &[
    ("anthropic-messages.json", Api::Anthropic),
    ("anthropic-messages.jsonl", Api::Anthropic),
    ("openai-chat.json", Api::OpenAiChat),
    ("openai-chat.jsonl", Api::OpenAiChat),
    ("openai-responses.json", Api::OpenAiResponses),
    ("openai-responses.jsonl", Api::OpenAiResponses),
    ("google-contents.json", Api::Google),
    ("google-contents-noid.jsonl", Api::Google),
];

fn lineage() -> ForkLineage {
    ForkLineage {
        new_session_id: "unused".into(),
        parent_path: None,
        time_ms: 0,
    }
}

fn stamp_ids() -> impl FnMut() -> String {
    || unreachable!("list elements have no ids")
}

/// `bytes` read as `format`: a short list says little about its API (a
/// few plain messages read as OpenAI Chat), so what is read back is read
/// as the source was, as `--format` would.
fn reread(name: &str, bytes: &[u8], format: Format) -> Session {
    let mut reader = Reader::with_options(ReaderOptions {
        format: Some(format),
        ..ReaderOptions::default()
    });
    reader.begin_file(name);
    reader.push(bytes);
    reader.finish()
}

/// The bytes of each entry of the branch ending at `leaf`.
fn element_bytes(s: &Session, bytes: &[u8], leaf: EntryId) -> Vec<Vec<u8>> {
    s.branch(leaf)
        .into_iter()
        .map(|e| {
            let r = s.entry(e).range();
            bytes[r.start as usize..r.end as usize].to_vec()
        })
        .collect()
}

/// The bytes of a document around its array: before its first element
/// and after its last; `None` for JSON lines.
fn frame(s: &Session, bytes: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    s.files()[0].document.as_ref()?;
    let first = s.entries().first()?.range().start as usize;
    let last = s.entries().last()?.range().end as usize;
    Some((bytes[..first].to_vec(), bytes[last..].to_vec()))
}

/// The migrated history of `bytes` passes every API's rules.
fn migrates_everywhere(name: &str, format: Format, bytes: &[u8], what: &str) {
    let s = reread(name, bytes, format);
    let leaf = s.tree().default_leaf().expect("a leaf");
    let messages = s
        .context_with(leaf, &mut &bytes[..], ContextOptions { payloads: true })
        .unwrap();
    for api in Api::ALL {
        let m = try_migrate(&messages, api).unwrap_or_else(|e| panic!("{what} → {api:?}: {e}"));
        validate(api, &m.body, &format!("{what} → {api:?}"));
    }
}

/// The list as written, as the body `validate` reads.
fn raw_body(api: Api, name: &str, bytes: &[u8]) -> Value {
    let key = match api {
        Api::Anthropic | Api::OpenAiChat => "messages",
        Api::OpenAiResponses => "input",
        Api::Google => "contents",
    };
    if name.ends_with(".jsonl") {
        let list: Vec<Value> = bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.trim_ascii().is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        return serde_json::json!({ key: list });
    }
    match serde_json::from_slice::<Value>(bytes).unwrap() {
        Value::Array(list) => serde_json::json!({ key: list }),
        body => body,
    }
}

/// What the API checks of a list's tool calls and results, as written:
/// [`validate`] on the list with what it checks beyond pairing (thoughts,
/// which a request may carry back in Google's own list) left out, a
/// Responses message without its optional `type` given it, and
/// consecutive user turns joined, as Anthropic joins them.
fn pairs_as_written(api: Api, name: &str, bytes: &[u8], what: &str) {
    let mut body = raw_body(api, name, bytes);
    let key = match api {
        Api::Anthropic | Api::OpenAiChat => "messages",
        Api::OpenAiResponses => "input",
        Api::Google => "contents",
    };
    let list = body_list(api, &body);
    let mut joined: Vec<Value> = Vec::new();
    for mut m in list {
        if api == Api::Google {
            if let Some(parts) = m["parts"].as_array_mut() {
                parts.retain(|p| p.get("thought").is_none());
            }
        }
        // A Responses message may leave out its type (`EasyInputMessage`).
        if api == Api::OpenAiResponses && m.get("type").is_none() && m.get("role").is_some() {
            m["type"] = Value::from("message");
        }
        match joined.last_mut() {
            Some(last)
                if api == Api::Anthropic && last["role"] == "user" && m["role"] == "user" =>
            {
                let blocks = |v: &Value| match &v["content"] {
                    Value::String(s) => vec![serde_json::json!({"type": "text", "text": s})],
                    Value::Array(a) => a.clone(),
                    _ => Vec::new(),
                };
                let mut all = blocks(last);
                all.extend(blocks(&m));
                last["content"] = Value::Array(all);
            }
            _ => joined.push(m),
        }
    }
    body[key] = Value::Array(joined);
    validate(api, &body, what);
}

#[test]
fn fork_at_every_safe_point_is_that_prefix_in_the_same_shape() {
    let mut forks = 0;
    let mut all = FIXTURES.iter().map(|(n, _)| *n).collect::<Vec<_>>();
    all.push("agentscope-memory_messages.jsonl");
    for name in all {
        let bytes = read_fixture(&format!("provider/{name}"));
        let s = Session::from_bytes(name, &bytes);
        let leaf = s.tree().default_leaf().unwrap();
        let mut src: &[u8] = &bytes;
        let mut at: Vec<EntryId> = safe_points(&s, &mut src, leaf)
            .unwrap()
            .iter()
            .map(|p| p.entry)
            .collect();
        at.push(leaf);
        assert!(at.len() >= 2, "{name}");
        for point in at {
            let what = format!("{name} at {}", s.label(point));
            let done = fork(&s, &mut src, point, &lineage()).unwrap();
            forks += 1;
            let forked = reread(name, &done.bytes, s.format());
            assert_eq!(forked.format(), s.format(), "{what}");
            let fleaf = forked.tree().default_leaf().unwrap();
            assert_eq!(
                element_bytes(&forked, &done.bytes, fleaf),
                element_bytes(&s, &bytes, point),
                "{what}"
            );
            // The outer shape: a body's other fields, an array, lines.
            match frame(&s, &bytes) {
                Some((head, tail)) => {
                    assert_eq!(frame(&forked, &done.bytes), Some((head, tail)), "{what}")
                }
                None => {
                    let lines: HashSet<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
                    for l in done.bytes.split_inclusive(|&b| b == b'\n') {
                        assert!(lines.contains(l), "{what}");
                    }
                }
            }
            if s.format() != Format::AgentScope {
                migrates_everywhere(name, s.format(), &done.bytes, &what);
            }
        }
    }
    assert!(forks >= 25, "{forks}");
}

/// Seals the default branch of `bytes` and checks the output: no call
/// left open, the API's pairing as written, every element of the input
/// carried byte for byte (but the one a result joins), the outer shape
/// kept. Returns how many calls were sealed.
fn seal_and_check(name: &str, api: Api, bytes: &[u8], what: &str) -> usize {
    let s = Session::from_bytes(name, bytes);
    let leaf = s.tree().default_leaf().unwrap();
    let open = open_calls(&s, &mut &bytes[..], leaf).unwrap();
    let mut ids = stamp_ids();
    let mut stamp = Stamp {
        time_ms: 0,
        new_id: &mut ids,
    };
    let edited = seal(&s, &mut &bytes[..], leaf, &mut stamp, false).unwrap();
    assert_eq!(edited.notes.len(), open.len(), "{what}");
    let sealed = reread(name, &edited.bytes, s.format());
    assert_eq!(sealed.format(), s.format(), "{what}");
    let new_leaf = sealed.tree().default_leaf().unwrap();
    let still = open_calls(&sealed, &mut &edited.bytes[..], new_leaf).unwrap();
    assert!(still.is_empty(), "{what}: {still:?}");
    let check = sealed.check(&mut &edited.bytes[..]).unwrap();
    assert_eq!(check.pairing.calls_without_result, 0, "{what}");
    pairs_as_written(api, name, &edited.bytes, what);
    // Each input element is still there, in order, but at most one per
    // sealed message (the user turn a result joined).
    let before = element_bytes(&s, bytes, leaf);
    let after = element_bytes(&sealed, &edited.bytes, new_leaf);
    let mut j = 0;
    let mut changed = 0;
    for b in &before {
        match after[j..].iter().position(|a| a == b) {
            Some(k) => j += k + 1,
            None => changed += 1,
        }
    }
    assert!(changed <= open.len(), "{what}: {changed} elements changed");
    assert_eq!(
        frame(&s, bytes).is_some(),
        frame(&sealed, &edited.bytes).is_some()
    );
    if let (Some((head, _)), Some((new_head, _))) =
        (frame(&s, bytes), frame(&sealed, &edited.bytes))
    {
        assert_eq!(head, new_head, "{what}");
    }
    for n in &edited.notes {
        assert_eq!(n.action, "sealed", "{what}");
    }
    migrates_everywhere(name, s.format(), &edited.bytes, what);
    open.len()
}

#[test]
fn lists_cut_after_a_call_are_sealed_where_the_api_wants_the_result() {
    let mut sealed = 0;
    for (name, api) in FIXTURES {
        let bytes = read_fixture(&format!("provider/{name}"));
        let s = Session::from_bytes(name, &bytes);
        let leaf = s.tree().default_leaf().unwrap();
        for e in s.branch(leaf) {
            let calls = s
                .messages(e, &mut &bytes[..])
                .unwrap()
                .iter()
                .any(|m| m.tool_calls().next().is_some());
            if !calls {
                continue;
            }
            // The list up to that element, in its own shape.
            let mut cut = Vec::new();
            export_branch(&s, &mut &bytes[..], e, &mut cut).unwrap();
            let what = format!("{name} cut at {}", s.label(e));
            let n = seal_and_check(name, *api, &cut, &what);
            assert!(n > 0, "{what}");
            sealed += n;
        }
    }
    assert!(sealed >= 8, "{sealed}");
}

#[test]
fn lists_missing_a_result_are_sealed_in_the_middle() {
    // Each element holding results taken out in turn: its calls are
    // answered where the API wants them, before what follows.
    let mut sealed = 0;
    for (name, api) in FIXTURES.iter().filter(|(n, _)| n.ends_with(".jsonl")) {
        let bytes = read_fixture(&format!("provider/{name}"));
        let s = Session::from_bytes(name, &bytes);
        let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
        for e in s.branch(s.tree().default_leaf().unwrap()) {
            let results = s
                .messages(e, &mut &bytes[..])
                .unwrap()
                .iter()
                .any(|m| m.tool_results().next().is_some());
            if !results {
                continue;
            }
            let line = s.entry(e).line as usize;
            let without: Vec<u8> = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| i + 1 != line)
                .flat_map(|(_, l)| l.iter().copied())
                .collect();
            let what = format!("{name} without line {line}");
            sealed += seal_and_check(name, *api, &without, &what);
        }
    }
    assert!(sealed >= 6, "{sealed}");
}

#[test]
fn a_google_call_without_an_id_is_answered_by_name() {
    // Two parallel calls, read_file and list_dir, the second answered:
    // the first is open, and gets a response of its name (no id).
    let list = concat!(
        r#"{"role":"user","parts":[{"text":"look"}]}"#,
        "\n",
        r#"{"role":"model","parts":[{"functionCall":{"name":"read_file","args":{"path":"a"}}},{"functionCall":{"name":"list_dir","args":{}}}]}"#,
        "\n",
        r#"{"role":"user","parts":[{"functionResponse":{"name":"list_dir","response":{"output":"a b"}}}]}"#,
        "\n",
        r#"{"role":"model","parts":[{"text":"done"}]}"#,
        "\n",
    );
    let s = Session::from_bytes("g.jsonl", list.as_bytes());
    assert_eq!(s.format(), Format::MessageList { api: Api::Google });
    let leaf = s.tree().default_leaf().unwrap();
    let open = open_calls(&s, &mut list.as_bytes(), leaf).unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(
        (open[0].id.as_str(), open[0].name.as_str()),
        ("", "read_file")
    );
    assert_eq!(
        seal_and_check("g.jsonl", Api::Google, list.as_bytes(), "noid"),
        1
    );
    let mut ids = stamp_ids();
    let mut stamp = Stamp {
        time_ms: 0,
        new_id: &mut ids,
    };
    let out = seal(&s, &mut list.as_bytes(), leaf, &mut stamp, false).unwrap();
    let lines: Vec<&str> = std::str::from_utf8(&out.bytes).unwrap().lines().collect();
    assert_eq!(lines.len(), 4);
    // Joined to the content that answers the turn, first.
    let answer: Value = serde_json::from_str(lines[2]).unwrap();
    assert_eq!(answer["parts"][0]["functionResponse"]["name"], "read_file");
    assert!(answer["parts"][0]["functionResponse"].get("id").is_none());
    assert!(answer["parts"][0]["functionResponse"]["response"]["error"]
        .as_str()
        .unwrap()
        .contains("sealed by retrace"));
    assert_eq!(answer["parts"][1]["functionResponse"]["name"], "list_dir");
}

/// Calls without a later result and results without an earlier call.
fn orphans(context: &[Message]) -> Vec<String> {
    let mut calls: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for m in context {
        for part in &m.content {
            match part {
                Part::ToolCall { id, .. } => calls.push(id.clone()),
                Part::ToolResult { call_id, .. } => match calls.iter().position(|c| c == call_id) {
                    Some(i) => {
                        calls.remove(i);
                    }
                    None => out.push(format!("result {call_id}")),
                },
                _ => {}
            }
        }
    }
    out.extend(calls.into_iter().map(|c| format!("call {c}")));
    out
}

fn system(context: &[Message]) -> Vec<Message> {
    context
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| Message {
            entries: Vec::new(),
            lines: Vec::new(),
            ..m.clone()
        })
        .collect()
}

#[test]
fn lists_compact_three_times_keeping_the_system_prompt_and_every_pair() {
    let mut compacted = 0;
    for (name, api) in FIXTURES {
        let original = read_fixture(&format!("provider/{name}"));
        for budget in [
            Budget::Messages(0),
            Budget::Messages(1),
            Budget::Messages(3),
            Budget::Tokens(10),
            Budget::Tokens(200),
        ] {
            let mut bytes = original.clone();
            for round in 0..3 {
                let what = format!("{name} {budget:?} round {round}");
                let s = reread(name, &bytes, Format::MessageList { api: *api });
                let leaf = s.tree().default_leaf().unwrap();
                let before = s.context(leaf, &mut &bytes[..]).unwrap();
                let plan = compaction_plan(&s, &mut &bytes[..], leaf, budget)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(!plan.appends(), "{what}");
                assert!(plan.system_kept, "{what}");
                if plan.rule == CutRule::LastNonTool {
                    continue;
                }
                let summary = format!("summary {round}");
                let mut ids = stamp_ids();
                let mut stamp = Stamp {
                    time_ms: 0,
                    new_id: &mut ids,
                };
                let edited = compact(&s, &mut &bytes[..], &plan, &summary, &mut stamp)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                compacted += 1;
                let after = reread(name, &edited.bytes, s.format());
                assert_eq!(after.format(), s.format(), "{what}");
                let new_leaf = after.tree().default_leaf().unwrap();
                let context = after.context(new_leaf, &mut &edited.bytes[..]).unwrap();
                assert_eq!(system(&context), system(&before), "{what}");
                let said: Vec<&Message> =
                    context.iter().filter(|m| m.role != Role::System).collect();
                assert_eq!(said[0].role, Role::User, "{what}");
                let summary_part = Part::Text {
                    text: summary.clone(),
                };
                // Google: a summary before a user turn opens it.
                let joined = edited.notes[0].message.contains("opening the first kept");
                let cut_role = s.body(plan.cut, &mut &bytes[..]).unwrap().unwrap()["role"].clone();
                assert_eq!(joined, *api == Api::Google && cut_role != "model", "{what}");
                let kept_first = if joined {
                    assert_eq!(said[0].content[0], summary_part, "{what}");
                    0
                } else {
                    assert_eq!(said[0].content, vec![summary_part], "{what}");
                    1
                };
                assert_eq!(said.len() - kept_first, plan.kept_messages, "{what}");
                assert_eq!(orphans(&context), Vec::<String>::new(), "{what}");
                // The tail byte for byte (but the turn the summary opens),
                // the outer shape kept.
                let tail = element_bytes(&s, &bytes, leaf);
                let k =
                    s.branch(leaf).iter().position(|&e| e == plan.cut).unwrap() + 1 - kept_first;
                let got = element_bytes(&after, &edited.bytes, new_leaf);
                assert_eq!(got[got.len() - (tail.len() - k)..], tail[k..], "{what}");
                if let (Some((head, end)), Some((new_head, new_end))) =
                    (frame(&s, &bytes), frame(&after, &edited.bytes))
                {
                    assert_eq!((head, end), (new_head, new_end), "{what}");
                }
                pairs_as_written(*api, name, &edited.bytes, &what);
                migrates_everywhere(name, s.format(), &edited.bytes, &what);
                bytes = edited.bytes;
            }
        }
    }
    assert!(compacted >= 60, "{compacted}");
}
