//! Real sessions migrated to every API, with the report's counts checked by
//! hand: a separate Python pass over each file rebuilds the branch's context
//! (pi v1 compaction: summary, kept entries, what follows) and counts what
//! each API cannot take (thinking and its signatures, images in tool
//! results, error flags), the tool results each API puts in user turns,
//! the turns that end up next to one of the same role, and the calls left
//! without a result.

use crate::common::*;
use retrace_core::migrate::{migrate, Report};
use retrace_core::{Api, ContextOptions, Session};

fn codes(report: &Report) -> Vec<(&'static str, usize)> {
    report.changes.iter().map(|c| (c.code, c.count)).collect()
}

fn context(rel: &str, leaf: Option<&str>) -> Vec<retrace_core::Message> {
    let bytes = read(rel);
    let s = Session::from_bytes(rel, &bytes);
    let leaf = match leaf {
        Some(id) => s.find(id).unwrap(),
        None => s.tree().default_leaf().unwrap(),
    };
    s.context_with(leaf, &mut &bytes[..], ContextOptions { payloads: true })
        .unwrap()
}

#[test]
fn pi_session_with_signed_thinking_to_every_api() {
    // 109 messages: the compaction summary, then kept and later entries;
    // 50 thinking blocks, all signed by Anthropic; 39 tool results, 2 of
    // them errors.
    let messages = context("pi/badlogic__pi-mono/session.jsonl", None);
    assert_eq!(messages.len(), 109);
    let anthropic = migrate(&messages, Api::Anthropic);
    assert_eq!(
        codes(&anthropic.report),
        [
            ("metadata-dropped", 109),
            ("role-renamed", 39),
            ("turns-merged", 3),
            ("kind-flattened", 1),
        ],
        "{}",
        anthropic.report
    );
    assert!(anthropic.report.is_lossless());
    assert_eq!(anthropic.report.turns, 106);
    // The signatures travel with the thinking.
    let thinking: Vec<&serde_json::Value> = anthropic.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter(|b| b["type"] == "thinking")
        .collect();
    assert_eq!(thinking.len(), 50);
    assert!(thinking
        .iter()
        .all(|b| b["signature"].as_str().unwrap().len() > 100));

    let lost = [
        ("thinking-dropped", 50),
        ("signature-dropped", 50),
        ("error-flag-dropped", 2),
        ("metadata-dropped", 109),
        ("kind-flattened", 1),
    ];
    let m = migrate(&messages, Api::OpenAiChat);
    assert_eq!(codes(&m.report), lost, "{}", m.report);
    // Responses: the same, and a note for the assistant message items,
    // written without the id and status pi never had.
    let m = migrate(&messages, Api::OpenAiResponses);
    let mut want = lost.to_vec();
    want.insert(3, ("item-id-missing", 18));
    assert_eq!(codes(&m.report), want, "{}", m.report);
    assert_eq!(assistant_items_without_id(&m.body), 18);
    let google = migrate(&messages, Api::Google);
    assert_eq!(
        codes(&google.report),
        [
            ("thinking-dropped", 50),
            ("signature-dropped", 50),
            ("metadata-dropped", 109),
            ("role-renamed", 92),
            ("turns-merged", 3),
            ("kind-flattened", 1),
        ],
        "{}",
        google.report
    );
    assert_eq!(google.report.turns, 106);
}

#[test]
fn pi_session_with_images_in_tool_results_to_every_api() {
    // The branch ending before the file's second compaction (the first
    // object of line 1013): 440 messages, 176 tool results (6 errors), 3
    // screenshots inside tool results, and 2 calls aborted before a result.
    let messages = context("pi/badlogic__pi-mono/compact.jsonl", Some("L1013"));
    assert_eq!(messages.len(), 440);
    let anthropic = migrate(&messages, Api::Anthropic);
    assert_eq!(
        codes(&anthropic.report),
        [
            ("metadata-dropped", 440),
            ("call-without-result", 2),
            ("role-renamed", 178),
            ("turns-merged", 4),
            ("kind-flattened", 1),
        ],
        "{}",
        anthropic.report
    );
    assert_eq!(anthropic.report.turns, 438);
    // The screenshots go along inside their results, bytes and all.
    let images: Vec<&serde_json::Value> = anthropic.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .filter(|b| b["type"] == "tool_result")
        .flat_map(|b| b["content"].as_array().into_iter().flatten())
        .filter(|b| b["type"] == "image")
        .collect();
    assert_eq!(images.len(), 3);
    assert!(images.iter().all(|i| i["source"]["data"]
        .as_str()
        .unwrap()
        .starts_with("iVBORw0KGgo")));

    // OpenAI Chat tool messages hold text only, Responses outputs take
    // images too; the 2 added results count as errors (6 + 2).
    for (api, dropped) in [(Api::OpenAiChat, 3), (Api::OpenAiResponses, 0)] {
        let m = migrate(&messages, api);
        let mut want = vec![
            ("image-dropped", dropped),
            ("error-flag-dropped", 8),
            ("metadata-dropped", 440),
            ("call-without-result", 2),
            ("kind-flattened", 1),
        ];
        // Responses: a note for each assistant message item (no id).
        if api == Api::OpenAiResponses {
            want.insert(2, ("item-id-missing", 101));
            assert_eq!(assistant_items_without_id(&m.body), 101);
        }
        want.retain(|c| c.1 > 0);
        assert_eq!(codes(&m.report), want, "{api}: {}", m.report);
    }
    let responses = migrate(&messages, Api::OpenAiResponses);
    let screenshots = responses.body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "function_call_output")
        .flat_map(|i| i["output"].as_array().into_iter().flatten())
        .filter(|p| {
            p["type"] == "input_image"
                && p["image_url"]
                    .as_str()
                    .unwrap()
                    .starts_with("data:image/png;base64,iVBORw0KGgo")
        })
        .count();
    assert_eq!(screenshots, 3);
    let google = migrate(&messages, Api::Google);
    assert_eq!(
        codes(&google.report),
        [
            ("metadata-dropped", 440),
            ("call-without-result", 2),
            ("role-renamed", 397),
            ("turns-merged", 4),
            ("kind-flattened", 1),
        ],
        "{}",
        google.report
    );
    let inline = google.body["contents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["parts"].as_array().unwrap())
        .filter(|p| p.get("inlineData").is_some())
        .count();
    assert_eq!(inline, 3);
}

#[test]
fn a_gemini_cli_session_to_every_api() {
    // session-2026-01-10T01-38: 1 prompt, 11 model turns (10 with results,
    // one failed), ids `<tool>-<ms>-<hex>` of which 5 are longer than
    // OpenAI Chat's 40 characters (none over 64), 24 thought summaries (no
    // signatures).
    let messages = context(
        "gemini-cli/mischa-thisness__M-Gemini/Archives/session-2026-01-10T01-38-1deca764.json",
        None,
    );
    assert_eq!(messages.len(), 22);
    let chat = migrate(&messages, Api::OpenAiChat);
    assert_eq!(
        codes(&chat.report),
        [
            ("thinking-dropped", 24),
            ("error-flag-dropped", 1),
            ("metadata-dropped", 22),
            ("id-regenerated", 5),
        ],
        "{}",
        chat.report
    );
    // Responses takes ids up to 64 characters: these fit.
    let responses = migrate(&messages, Api::OpenAiResponses);
    assert_eq!(
        responses
            .report
            .count(retrace_core::migrate::Change::IdRegenerated),
        0
    );
    let google = migrate(&messages, Api::Google);
    assert_eq!(
        google.body["contents"][2]["parts"][0]["functionResponse"]["id"],
        messages[2].content[0].clone().call_id()
    );
}

/// The call id of a tool result part.
trait CallId {
    fn call_id(self) -> String;
}

impl CallId for retrace_core::Part {
    fn call_id(self) -> String {
        match self {
            retrace_core::Part::ToolResult { call_id, .. } => call_id,
            other => panic!("not a result: {other:?}"),
        }
    }
}

/// The assistant `message` items of a Responses body without an `id` or a
/// `status` (what the `item-id-missing` note counts, with id-less
/// reasoning items).
fn assistant_items_without_id(body: &serde_json::Value) -> usize {
    body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| {
            (i["type"] == "message"
                && i["role"] == "assistant"
                && (i.get("id").is_none() || i.get("status").is_none()))
                || (i["type"] == "reasoning" && i.get("id").is_none())
        })
        .count()
}

/// The streamed migration (two passes over `Session::context_each`,
/// written as it goes) writes the bytes `serde_json::to_writer_pretty`
/// writes of the body `try_migrate` builds from the whole context, with the
/// same report, and refuses what it refuses: on every leaf of every corpus
/// file and fixture, to every API.
#[test]
fn streamed_equals_the_value_on_every_file() {
    use retrace_core::migrate::{try_migrate, Planner, StreamError, Streamed};
    let mut files: Vec<(String, Vec<u8>)> = corpus_files()
        .into_iter()
        .chain(fixture_files())
        .map(|p| {
            let name = p.to_string_lossy().into_owned();
            let bytes = std::fs::read(&p).unwrap();
            let bytes = if name.ends_with(".gz") {
                gunzip(&name, &bytes)
            } else {
                bytes
            };
            (name, bytes)
        })
        .collect();
    files.retain(|(name, _)| !name.ends_with(".gz") || name.ends_with(".jsonl.gz"));
    let options = ContextOptions { payloads: true };
    let (mut compared, mut refused) = (0, 0);
    for (name, bytes) in &files {
        let name = name.trim_end_matches(".gz");
        let s = Session::from_bytes(name, bytes);
        for &leaf in s.tree().tips() {
            let Ok(messages) = s.context_with(leaf, &mut &bytes[..], options) else {
                continue;
            };
            for api in Api::ALL {
                let batch = try_migrate(&messages, api).map(|m| {
                    let body = serde_json::to_string_pretty(&m.body).unwrap();
                    (body, m.report)
                });
                let mut planner = Planner::new(api);
                s.context_each(leaf, &mut &bytes[..], options, |m| {
                    planner.add(&m);
                    Ok::<_, retrace_core::SourceError>(())
                })
                .unwrap();
                let mut out = Vec::new();
                let mut streamed = Streamed::new(planner.finish(), &mut out);
                s.context_each(leaf, &mut &bytes[..], options, |m| {
                    streamed.add(&m).unwrap();
                    Ok::<_, retrace_core::SourceError>(())
                })
                .unwrap();
                let at = format!("{name} leaf {} to {api:?}", s.label(leaf));
                match (batch, streamed.finish()) {
                    (Ok((body, report)), Ok(streamed_report)) => {
                        assert_eq!(String::from_utf8(out).unwrap(), body, "{at}");
                        assert_eq!(streamed_report, report, "{at}");
                        compared += 1;
                    }
                    (Err(e), Err(StreamError::Refused(f))) => {
                        assert_eq!(e, f, "{at}");
                        assert!(out.is_empty(), "{at}: wrote a refused history");
                        refused += 1;
                    }
                    (batch, streamed) => panic!("{at}: {batch:?} but streamed {streamed:?}"),
                }
            }
        }
    }
    assert!(compared > 500, "{compared} bodies compared");
    assert!(refused > 0, "no refusal compared");
}

/// Found by the `migrate` fuzz target (`tests/fixtures/fuzz/`): an OpenAI
/// Chat list whose first result names no call (its id changed by a byte).
/// Its text used to be written where it was, a user message between the
/// results of the assistant's two calls (which OpenAI refuses), and
/// migrating the migrated history moved it. Now it follows the turn's
/// results, for every API, and a migrated history migrates to itself.
#[test]
fn a_result_answering_no_call_follows_the_turns_results() {
    let rel = "fuzz/openai-chat-orphan-result.jsonl";
    let bytes = fixture(rel);
    let s = Session::from_bytes(rel, &bytes);
    let messages = history(&s, &bytes);
    let chat = migrate(&messages, Api::OpenAiChat);
    let roles: Vec<&str> = chat.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "developer",
            "user",
            "assistant",
            "tool",
            "tool",
            "user",
            "assistant",
            "user"
        ]
    );
    let orphan = &chat.body["messages"][6]["content"];
    assert!(
        orphan
            .as_str()
            .unwrap()
            .starts_with("[result of tool call call_Yx3bQk9N2vU8m:1wR5sH0pLc]"),
        "{orphan}"
    );
    assert_eq!(
        chat.body["messages"][4]["content"],
        "[no result was recorded for this call]"
    );
    for api in Api::ALL {
        let m = migrate(&messages, api);
        assert_eq!(remigrated(&m.body, api), m.body, "{api}");
    }
}

/// Found by the `migrate` fuzz target (`tests/fixtures/fuzz/`): an
/// Anthropic list (mutated) whose tool result holds an image, beside a call
/// left without a result. Google's body writes the image right after its
/// `functionResponse`; read back, it is an image beside the results, which
/// stays where it is, so migrating the migrated history gives the same
/// body for every API.
#[test]
fn a_migrated_history_with_a_result_image_migrates_to_itself() {
    let rel = "fuzz/google-result-image.jsonl";
    let bytes = fixture(rel);
    let s = Session::from_bytes(rel, &bytes);
    let messages = history(&s, &bytes);
    for api in Api::ALL {
        let m = migrate(&messages, api);
        assert_eq!(remigrated(&m.body, api), m.body, "{api}");
    }
}

/// Found by the `migrate` fuzz target (`tests/fixtures/fuzz/`): a result
/// whose id key is damaged answers the oldest open call, two turns back,
/// across a tool message holding only the text of a result that answers
/// no call. That text is a user message in every body, so the result is
/// written after the user spoke and moves up to its call; it used to stay
/// in place, and a second migration moved it.
#[test]
fn a_result_after_a_text_only_tool_message_moves_to_its_call() {
    let rel = "fuzz/anthropic-result-after-orphan-text.jsonl";
    let bytes = fixture(rel);
    let s = Session::from_bytes(rel, &bytes);
    let messages = history(&s, &bytes);
    let anthropic = migrate(&messages, Api::Anthropic);
    let turns = anthropic.body["messages"].as_array().unwrap();
    // The call's turn is answered right after it, by the damaged result.
    assert_eq!(turns[1]["content"][0]["type"], "tool_use");
    let answer = &turns[2]["content"][0];
    assert_eq!(answer["type"], "tool_result", "{answer}");
    assert_eq!(answer["tool_use_id"], "call_Yx1bQk9N2vU8mT1wR5sH0pLc");
    assert_eq!(answer["content"], "Package openssl was not found");
    assert!(
        codes(&anthropic.report).contains(&("result-moved", 1)),
        "{:?}",
        codes(&anthropic.report)
    );
    for api in Api::ALL {
        let m = migrate(&messages, api);
        assert_eq!(remigrated(&m.body, api), m.body, "{api}");
    }
}

/// Found by the `migrate` fuzz target (`tests/fixtures/fuzz/`): two
/// Gemini CLI calls share a 40-character id, OpenAI Chat's longest. The
/// second was made unique with a suffix after its length was checked,
/// so its 42 characters broke the limit, and a second migration gave it
/// another id. A suffixed id that breaks a limit is replaced whole now.
#[test]
fn a_repeated_id_at_the_length_limit_is_made_unique_within_it() {
    let rel = "fuzz/gemini-repeated-40-char-call-id.jsonl";
    let bytes = fixture(rel);
    let s = Session::from_bytes(rel, &bytes);
    let messages = history(&s, &bytes);
    let chat = migrate(&messages, Api::OpenAiChat);
    let ids: Vec<&str> = chat.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[0], "run_shell_command-1770627605000-c3d4e5f6");
    assert_ne!(ids[0], ids[1]);
    assert!(ids.iter().all(|id| id.len() <= 40), "{ids:?}");
    for api in Api::ALL {
        let m = migrate(&messages, api);
        assert_eq!(remigrated(&m.body, api), m.body, "{api}");
    }
}

/// Found by the `migrate` fuzz target (`tests/fixtures/fuzz/`): a Claude
/// Code `assistant` line whose message role is damaged (`assis|ant`),
/// holding a tool call. It used to be read as a user message, so the
/// Anthropic body put a `tool_use` block in a user turn (after the results
/// written for the unanswered calls), and migrating that moved it again.
/// Now the line's `type` says who spoke, the damaged role is reported, and
/// every API's body is valid and migrates to itself.
#[test]
fn a_damaged_role_is_read_as_the_lines_type() {
    use retrace_core::{DiagnosticKind, Part, Role};
    let rel = "fuzz/claude-unknown-role-calls.jsonl";
    let bytes = fixture(rel);
    let s = Session::from_bytes(rel, &bytes);
    let damage: Vec<_> = s
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::BadField)
        .collect();
    assert_eq!(damage.len(), 1, "{damage:?}");
    assert_eq!(damage[0].line, 3);
    assert!(damage[0].message.contains("`assis|ant`"), "{:?}", damage[0]);
    let messages = history(&s, &bytes);
    // The two lines of the response (one `message.id`) are one assistant
    // message with both calls.
    let roles: Vec<Role> = messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant]);
    let calls = messages[1]
        .content
        .iter()
        .filter(|p| matches!(p, Part::ToolCall { .. }))
        .count();
    assert_eq!(calls, 2);
    let leaf = s.tree().default_leaf().unwrap();
    let leaf_at = format!("{rel} leaf {}", s.label(leaf));
    assert_eq!(
        crate::api_rules::validate_branch(&s, &mut &bytes[..], leaf, &leaf_at),
        Api::ALL.len()
    );
    for api in Api::ALL {
        let m = migrate(&messages, api);
        assert_eq!(remigrated(&m.body, api), m.body, "{api}");
    }
}

/// `body` written as JSON, read back as `api`'s message list, and its
/// default branch migrated to `api` again.
fn remigrated(body: &serde_json::Value, api: Api) -> serde_json::Value {
    let written = serde_json::to_vec(body).unwrap();
    let mut reader = retrace_core::Reader::with_options(retrace_core::ReaderOptions {
        format: Some(retrace_core::Format::MessageList { api }),
        ..Default::default()
    });
    reader.begin_file("body.json");
    reader.push(&written);
    let back = reader.finish();
    let again = back
        .context_with(
            back.tree().default_leaf().unwrap(),
            &mut &written[..],
            ContextOptions { payloads: true },
        )
        .unwrap();
    migrate(&again, api).body
}

/// The general case of the fuzz finding above: a message whose role really
/// is `user` holding a tool call (a Claude Code line, an Anthropic list).
/// The call is written as text where it was, for every API, the body is
/// valid and a migrated history migrates to itself.
#[test]
fn a_call_outside_an_assistant_turn_is_written_as_text() {
    use retrace_core::migrate::Change;
    let claude = concat!(
        r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"Read."}}"#,
        "\n",
        r#"{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"a"}}]}}"#,
        "\n",
        r#"{"type":"user","uuid":"u2","parentUuid":"a1","message":{"role":"user","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"b"}}]}}"#,
        "\n",
    );
    let list = r#"[{"role":"user","content":"Read."},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"a"}}]},{"role":"user","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"file_path":"b"}}]}]"#;
    for (name, text) in [("calls.jsonl", claude), ("calls.json", list)] {
        let bytes = text.as_bytes();
        let s = Session::from_bytes(name, bytes);
        let leaf = s.tree().default_leaf().unwrap();
        assert_eq!(
            crate::api_rules::validate_branch(&s, &mut &bytes[..], leaf, name),
            Api::ALL.len()
        );
        let messages = s
            .context_with(leaf, &mut &bytes[..], ContextOptions { payloads: true })
            .unwrap();
        for api in Api::ALL {
            let m = migrate(&messages, api);
            assert_eq!(
                m.report.count(Change::CallOutsideAssistantFlattened),
                1,
                "{name} {api}: {}",
                m.report
            );
            let written = m.body.to_string();
            assert!(
                written.contains(r#"[tool call toolu_2: Read]\n{\"file_path\":\"b\"}"#),
                "{name} {api}: {written}"
            );
            assert_eq!(remigrated(&m.body, api), m.body, "{name} {api}");
        }
    }
}

/// `count_changes`, the report path the resume check takes (the first pass
/// alone, or the second without a body), counts what `migrate`'s report
/// counts: on every leaf of every corpus file and fixture, to every API,
/// each change asked alone (so a change the first pass decides takes that
/// path) and the resume check's six asked together.
#[test]
fn count_changes_is_the_report_on_every_branch() {
    use retrace_core::migrate::{count_changes, Change};
    let blocking = [
        Change::CallWithoutResult,
        Change::ResultWithoutCall,
        Change::ResultMoved,
        Change::UserTurnAdded,
        Change::IdRegenerated,
        Change::ArgumentsWrapped,
    ];
    let mut seen = std::collections::BTreeSet::new();
    let mut compared = 0;
    for path in corpus_files().into_iter().chain(fixture_files()) {
        let name = path.to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let (name, bytes) = match name.strip_suffix(".gz") {
            Some(plain) if plain.ends_with(".jsonl") => (plain.to_owned(), gunzip(&name, &bytes)),
            Some(_) => continue,
            None => (name, bytes),
        };
        let s = Session::from_bytes(&name, &bytes);
        for &leaf in s.tree().tips() {
            let Ok(messages) = s.context(leaf, &mut &bytes[..]) else {
                continue;
            };
            for api in Api::ALL {
                let report = migrate(&messages, api).report;
                let at = format!("{name} leaf {} to {api:?}", s.label(leaf));
                let asked: Vec<Change> = report
                    .changes
                    .iter()
                    .map(|c| c.change)
                    .chain(blocking)
                    .collect();
                for &change in &asked {
                    let n = count_changes(&messages, api, &[change]);
                    assert_eq!(n, [report.count(change)], "{at}: {change:?}");
                    if n[0] > 0 {
                        seen.insert(format!("{change:?}"));
                    }
                }
                let together: Vec<usize> = blocking.iter().map(|&c| report.count(c)).collect();
                assert_eq!(count_changes(&messages, api, &blocking), together, "{at}");
                compared += 1;
            }
        }
    }
    assert!(compared > 500, "{compared} reports compared");
    // The inputs hold each blocking change somewhere, so each path is tried.
    for change in blocking {
        assert!(
            seen.contains(&format!("{change:?}")),
            "no {change:?} in the inputs"
        );
    }
}
