//! Fork and seal of Gemini CLI sessions (`edit/gemini.rs`): the corpus's
//! legacy documents (alone, and the split pair read together) and the
//! JSONL fixtures (rewrites, rewinds, split and migrated folders). A fork
//! at every safe point reads back as that prefix under a new `sessionId`; a
//! seal of calls left open (results taken out of real records, logs cut
//! after a call) leaves none; compaction is refused with its reason. Every
//! output migrates to a history each API takes.

use retrace_core::migrate::try_migrate;
use retrace_core::{
    compaction_plan, fork, open_calls, safe_points, seal, Api, Budget, ContextOptions, EditError,
    EntryId, ForkLineage, Format, Session, Stage, Stamp,
};
use serde_json::{json, Value};

use crate::api_rules::validate;
use crate::common::*;

const NEW_ID: &str = "0badf00d-1234-4abc-8def-0123456789ab";
/// 2026-01-02T03:04:05Z.
const TIME_MS: i64 = 1767323045000;
const TIME: &str = "2026-01-02T03:04:05.000Z";

fn lineage() -> ForkLineage {
    ForkLineage {
        new_session_id: NEW_ID.into(),
        parent_path: Some("/chats/source.json".into()),
        time_ms: TIME_MS,
    }
}

/// A session of one or more files, as read together.
struct Case {
    label: String,
    names: Vec<String>,
    files: Vec<Vec<u8>>,
}

impl Case {
    fn open(&self) -> Session {
        let mut reader = retrace_core::Reader::new();
        for (name, bytes) in self.names.iter().zip(&self.files) {
            reader.begin_file(name);
            reader.push(bytes);
        }
        reader.finish()
    }
}

const CORPUS: &str = "gemini-cli/mischa-thisness__M-Gemini/Archives";

fn corpus_case(names: &[&str]) -> Case {
    Case {
        label: names.join(" + "),
        names: names.iter().map(|n| n.to_string()).collect(),
        files: names
            .iter()
            .map(|n| read(&format!("{CORPUS}/{n}")))
            .collect(),
    }
}

fn fixture_case(names: &[&str]) -> Case {
    Case {
        label: names.join(" + "),
        names: names.iter().map(|n| n.to_string()).collect(),
        files: names.iter().map(|n| read_fixture(n)).collect(),
    }
}

/// Every Gemini CLI session the tests have: each corpus document, the
/// corpus's split pair, each JSONL fixture and each fixture folder.
fn cases() -> Vec<Case> {
    let mut out: Vec<Case> = std::fs::read_dir(corpus().join(CORPUS))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|n| corpus_case(&[&n]))
        .collect();
    assert_eq!(out.len(), 6);
    out.push(corpus_case(&[
        "session-2026-01-10T01-38-1deca764.json",
        "session-2026-01-10T01-46-1deca764.json",
    ]));
    for f in [
        "gemini/session-2026-02-03T09-00-5c1f3a9e.jsonl",
        "gemini/rewind-at-end.jsonl",
        "gemini/rewind-to-start.jsonl",
        "gemini/late-rewrite.jsonl",
    ] {
        out.push(fixture_case(&[f]));
    }
    for (dir, names) in [
        (
            "split",
            [
                "session-2026-02-04T10-00-7e3d9c21.json",
                "session-2026-02-04T11-30-7e3d9c21.json",
            ],
        ),
        (
            "rewind-split",
            [
                "session-2026-02-07T16-00-4d6f8a0c.jsonl",
                "session-2026-02-07T16-40-4d6f8a0c.jsonl",
            ],
        ),
        (
            "mixed-split",
            [
                "session-2026-02-04T10-00-7e3d9c21.json",
                "session-2026-02-04T11-30-7e3d9c21.jsonl",
            ],
        ),
        (
            "migrated",
            [
                "session-2026-02-04T10-00-7e3d9c21.json",
                "session-2026-02-04T10-00-7e3d9c21.jsonl",
            ],
        ),
    ] {
        let paths: Vec<String> = names.iter().map(|n| format!("gemini/{dir}/{n}")).collect();
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        out.push(fixture_case(&refs));
    }
    out
}

/// The message records (entries with an id) of the branch ending at
/// `leaf`, parsed.
fn records(s: &Session, files: &[&[u8]], leaf: EntryId) -> Vec<Value> {
    s.branch(leaf)
        .into_iter()
        .filter(|&e| s.id(e).is_some())
        .map(|e| {
            let entry = s.entry(e);
            let bytes = files[entry.file.0 as usize];
            serde_json::from_slice(&bytes[entry.range().start as usize..entry.range().end as usize])
                .unwrap()
        })
        .collect()
}

/// The bytes of each message record on the branch ending at `leaf`.
fn record_bytes(s: &Session, files: &[&[u8]], leaf: EntryId) -> Vec<Vec<u8>> {
    s.branch(leaf)
        .into_iter()
        .filter(|&e| s.id(e).is_some())
        .map(|e| {
            let entry = s.entry(e);
            let r = entry.range();
            files[entry.file.0 as usize][r.start as usize..r.end as usize].to_vec()
        })
        .collect()
}

/// The migrated history of the branch ending at the default leaf of
/// `bytes` (one file named `name`) passes every API's rules.
fn migrates_everywhere(name: &str, bytes: &[u8], what: &str) {
    let s = Session::from_bytes(name, bytes);
    let leaf = s.tree().default_leaf().expect("a leaf");
    let messages = s
        .context_with(leaf, &mut &bytes[..], ContextOptions { payloads: true })
        .unwrap();
    for api in Api::ALL {
        if let Ok(m) = try_migrate(&messages, api) {
            validate(api, &m.body, &format!("{what} → {api:?}"));
        }
    }
}

/// The new identity in a fork's metadata, and nothing of the old one.
fn identity_replaced(name: &str, bytes: &[u8], old: &str, what: &str) {
    let s = Session::from_bytes(name, bytes);
    match &s.files()[0].document {
        Some(doc) => {
            let field = |k: &str| doc.field(k).and_then(|f| f.parsed.clone());
            assert_eq!(field("sessionId"), Some(json!(NEW_ID)), "{what}");
            assert_eq!(field("startTime"), Some(json!(TIME)), "{what}");
            assert_eq!(field("lastUpdated"), Some(json!(TIME)), "{what}");
        }
        None => {
            let first: Value =
                serde_json::from_slice(bytes.split(|&b| b == b'\n').next().unwrap()).unwrap();
            assert_eq!(first["sessionId"], NEW_ID, "{what}");
            assert_eq!(first["startTime"], TIME, "{what}");
            assert_eq!(first["lastUpdated"], TIME, "{what}");
            assert!(first["projectHash"].is_string(), "{what}");
        }
    }
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !text.contains(&format!("\"sessionId\":\"{old}\""))
            && !text.contains(&format!("\"sessionId\": \"{old}\"")),
        "{what}: the old sessionId is left"
    );
}

#[test]
fn fork_at_every_safe_point_reads_back_as_that_prefix() {
    let mut forks = 0;
    for case in cases() {
        let s = case.open();
        assert_eq!(s.format(), Format::GeminiCli, "{}", case.label);
        let files: Vec<&[u8]> = case.files.iter().map(Vec::as_slice).collect();
        let mut src = files.clone();
        let Some(leaf) = s.tree().default_leaf() else {
            continue;
        };
        let leaf_file = s.entry(leaf).file.0 as usize;
        let old = s
            .files()
            .iter()
            .find_map(|f| {
                f.document
                    .as_ref()
                    .and_then(|d| d.field("sessionId")?.parsed.clone())
            })
            .or_else(|| {
                let first = files[leaf_file].split(|&b| b == b'\n').next()?;
                serde_json::from_slice::<Value>(first)
                    .ok()?
                    .get("sessionId")
                    .cloned()
            })
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap();
        let points = safe_points(&s, &mut src, leaf).unwrap();
        let mut at: Vec<EntryId> = points.iter().map(|p| p.entry).collect();
        at.push(leaf);
        for point in at {
            let what = format!("{} at {}", case.label, s.label(point));
            let done =
                fork(&s, &mut src, point, &lineage()).unwrap_or_else(|e| panic!("{what}: {e}"));
            forks += 1;
            // The flavour of the file the point is in (a split session's
            // earlier part may be a legacy document).
            let point_file = s.entry(point).file.0 as usize;
            let out_name = &case.names[point_file];
            let forked = Session::from_bytes(out_name, &done.bytes);
            assert_eq!(forked.format(), Format::GeminiCli, "{what}");
            assert_eq!(
                forked.files()[0].document.is_some(),
                s.files()[point_file].document.is_some(),
                "{what}: the flavour"
            );
            let fleaf = forked.tree().default_leaf().expect("the fork has a leaf");
            let got = records(&forked, &[&done.bytes], fleaf);
            let want = records(&s, &files, point);
            assert_eq!(got, want, "{what}");
            // Byte for byte, but for legacy elements continued in a log.
            let got_bytes = record_bytes(&forked, &[&done.bytes], fleaf);
            let want_bytes = record_bytes(&s, &files, point);
            let relaid = s.files().iter().any(|f| f.document.is_some())
                && s.files()[point_file].document.is_none();
            if !relaid {
                assert!(got_bytes == want_bytes, "{what}: bytes");
            }
            identity_replaced(out_name, &done.bytes, &old, &what);
            let note = &done.notes.last().unwrap().message;
            assert!(
                note.contains("session-2026-01-02T03-04-0badf00d.json"),
                "{what}: {note}"
            );
            migrates_everywhere(out_name, &done.bytes, &what);
        }
    }
    assert!(forks >= 60, "{forks} forks");
}

/// `bytes` (a legacy document) with the result of one call taken out and
/// its status set, as a call Gemini CLI was running when it stopped; the
/// document written back in `JSON.stringify(…, null, 2)`'s layout.
fn without_result(bytes: &[u8], message: usize, call: usize, status: &str) -> Vec<u8> {
    let mut doc: Value = serde_json::from_slice(bytes).unwrap();
    let record = &mut doc["messages"][message]["toolCalls"][call];
    record.as_object_mut().unwrap().remove("result");
    record["status"] = json!(status);
    serde_json::to_string_pretty(&doc).unwrap().into_bytes()
}

/// Seals the default branch of a one-file session and checks the output:
/// nothing left open, every record not sealed carried byte for byte, each
/// sealed call answered with an error in Gemini's shape, the stage
/// named. Returns the output.
fn seal_and_check(name: &str, bytes: &[u8], stages: &[(&str, Stage)]) -> Vec<u8> {
    let s = Session::from_bytes(name, bytes);
    let leaf = s.tree().default_leaf().unwrap();
    let open = open_calls(&s, &mut &bytes[..], leaf).unwrap();
    let got: Vec<(&str, Stage)> = open.iter().map(|c| (c.id.as_str(), c.stage)).collect();
    assert_eq!(got, stages, "{name}");
    let mut ids = || -> String { unreachable!("Gemini records keep their ids") };
    let mut stamp = Stamp {
        time_ms: TIME_MS,
        new_id: &mut ids,
    };
    let edited = seal(&s, &mut &bytes[..], leaf, &mut stamp, false).unwrap();
    assert_eq!(
        edited.notes.iter().filter(|n| n.action == "sealed").count(),
        open.len(),
        "{name}"
    );
    let sealed = Session::from_bytes(name, &edited.bytes);
    assert_eq!(sealed.format(), Format::GeminiCli, "{name}");
    assert_eq!(
        sealed.files()[0].document.is_some(),
        s.files()[0].document.is_some()
    );
    let new_leaf = sealed.tree().default_leaf().unwrap();
    let still = open_calls(&sealed, &mut &edited.bytes[..], new_leaf).unwrap();
    assert!(still.is_empty(), "{name}: {still:?}");
    let check = sealed.check(&mut &edited.bytes[..]).unwrap();
    assert_eq!(check.pairing.calls_without_result, 0, "{name}");
    // The same messages; only the sealed calls changed.
    let before = records(&s, &[bytes], leaf);
    let after = records(&sealed, &[&edited.bytes], new_leaf);
    assert_eq!(before.len(), after.len(), "{name}");
    let before_bytes = record_bytes(&s, &[bytes], leaf);
    let after_bytes = record_bytes(&sealed, &[&edited.bytes], new_leaf);
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        let sealed_here: Vec<&str> = open
            .iter()
            .filter(|c| s.id(c.entry) == b["id"].as_str())
            .map(|c| c.id.as_str())
            .collect();
        if sealed_here.is_empty() {
            assert!(before_bytes[i] == after_bytes[i], "{name}: record {i}");
            continue;
        }
        let mut expected = b.clone();
        for call in expected["toolCalls"].as_array_mut().unwrap() {
            let id = call["id"].as_str().unwrap().to_owned();
            if sealed_here.contains(&id.as_str()) {
                let name = call["name"].clone();
                call["status"] = json!("error");
                let text = a["toolCalls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["id"] == id.as_str())
                    .unwrap()["result"][0]["functionResponse"]["response"]["error"]
                    .clone();
                assert!(
                    text.as_str()
                        .unwrap()
                        .starts_with("Tool call interrupted (stage: "),
                    "{text}"
                );
                call["result"] = json!([{"functionResponse": {"id": id, "name": name, "response": {"error": text}}}]);
            }
        }
        assert_eq!(a, &expected, "{name}: record {i}");
    }
    migrates_everywhere(name, &edited.bytes, name);
    edited.bytes
}

#[test]
fn legacy_documents_with_a_call_left_running_are_sealed_in_a_new_document() {
    let mut sealed = 0;
    for name in std::fs::read_dir(corpus().join(CORPUS)).unwrap() {
        let name = name.unwrap().file_name().to_string_lossy().into_owned();
        let bytes = read(&format!("{CORPUS}/{name}"));
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        let with_calls: Vec<(usize, Value)> = doc["messages"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .filter(|(_, m)| m["toolCalls"].as_array().is_some_and(|c| !c.is_empty()))
            .map(|(i, m)| (i, m["toolCalls"][0]["id"].clone()))
            .collect();
        // The first call awaiting approval, the last executing.
        for (k, (status, stage)) in [
            ("awaiting_approval", Stage::ApprovalRequired),
            ("executing", Stage::Executing),
        ]
        .into_iter()
        .enumerate()
        {
            let Some((message, id)) = (match k {
                0 => with_calls.first(),
                _ => with_calls.last(),
            }) else {
                continue;
            };
            let input = without_result(&bytes, *message, 0, status);
            let out = seal_and_check(&name, &input, &[(id.as_str().unwrap(), stage)]);
            // Gemini's own layout: a 2-space pretty document.
            let text = String::from_utf8(out).unwrap();
            assert!(
                text.contains("\n          \"status\": \"error\",\n"),
                "{name}"
            );
            sealed += 1;
        }
    }
    assert!(sealed >= 8, "{sealed}");
}

/// A corpus document written as the `.jsonl` log Gemini CLI writes now
/// (the metadata record, then each message on a line), with the result of
/// the first call of `message` taken out, cut after that message or not.
fn as_log(bytes: &[u8], message: usize, status: &str, cut: bool) -> Vec<u8> {
    let doc: Value = serde_json::from_slice(bytes).unwrap();
    let mut out = json!({
        "sessionId": doc["sessionId"],
        "projectHash": doc["projectHash"],
        "startTime": doc["startTime"],
        "lastUpdated": doc["lastUpdated"],
    })
    .to_string();
    out.push('\n');
    let messages = doc["messages"].as_array().unwrap();
    let end = if cut { message + 1 } else { messages.len() };
    for (i, m) in messages[..end].iter().enumerate() {
        let mut m = m.clone();
        if i == message {
            let call = &mut m["toolCalls"][0];
            call.as_object_mut().unwrap().remove("result");
            call["status"] = json!(status);
        }
        out.push_str(&m.to_string());
        out.push('\n');
    }
    out.into_bytes()
}

#[test]
fn logs_with_a_call_left_scheduled_are_sealed_by_appending_the_record_again() {
    let mut sealed = 0;
    for name in std::fs::read_dir(corpus().join(CORPUS)).unwrap() {
        let name = name.unwrap().file_name().to_string_lossy().into_owned();
        let bytes = read(&format!("{CORPUS}/{name}"));
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        for (i, m) in doc["messages"].as_array().unwrap().iter().enumerate() {
            let Some(id) = m["toolCalls"][0]["id"].as_str() else {
                continue;
            };
            // Cut right after the call, and the whole log (the record
            // appended again stays in its place among those after it).
            for cut in [true, false] {
                let log = as_log(&bytes, i, "scheduled", cut);
                let jsonl = format!("{}l", name);
                let out = seal_and_check(&jsonl, &log, &[(id, Stage::Pending)]);
                // Appended: the log as it was, then the record again.
                assert!(out.starts_with(&log), "{jsonl}");
                let added: Value =
                    serde_json::from_slice(out[log.len()..].trim_ascii_end()).unwrap();
                assert_eq!(added["id"], m["id"], "{jsonl}");
                assert_eq!(added["toolCalls"][0]["status"], "error");
                sealed += 1;
            }
        }
    }
    assert!(sealed >= 60, "{sealed}");
}

#[test]
fn a_log_stopped_while_a_call_runs_is_sealed() {
    // The fixture's model turn is written with its call executing (line
    // 4), then rewritten done (5, 6): cut after line 4.
    let bytes = read_fixture("gemini/session-2026-02-03T09-00-5c1f3a9e.jsonl");
    let cut: usize = bytes
        .split_inclusive(|&b| b == b'\n')
        .take(4)
        .map(<[u8]>::len)
        .sum();
    let name = "session-2026-02-03T09-00-5c1f3a9e.jsonl";
    let out = seal_and_check(
        name,
        &bytes[..cut],
        &[("list_directory-1770109203000-a1b2c3d4", Stage::Executing)],
    );
    assert!(out.starts_with(&bytes[..cut]));
    // The whole fixture has nothing open: a seal is the branch as it is.
    let s = Session::from_bytes(name, &bytes);
    let leaf = s.tree().default_leaf().unwrap();
    assert!(open_calls(&s, &mut &bytes[..], leaf).unwrap().is_empty());
}

#[test]
fn a_split_log_is_sealed_on_its_branch() {
    // The rewound split pair with its last model turn's record given a
    // call left scheduled: written as one log of the branch, then the
    // record again.
    let first = read_fixture("gemini/rewind-split/session-2026-02-07T16-00-4d6f8a0c.jsonl");
    let second = read_fixture("gemini/rewind-split/session-2026-02-07T16-40-4d6f8a0c.jsonl");
    let text = String::from_utf8(second).unwrap().replace(
        r#""content":"Empty input now returns an error.","#,
        r#""content":"Empty input now returns an error.","toolCalls":[{"id":"run_shell_command-1770482412000-0a1b2c3d","name":"run_shell_command","args":{"command":"cargo test"},"status":"scheduled","timestamp":"2026-02-07T16:40:12.000Z"}],"#,
    );
    let case = Case {
        label: "rewind-split".into(),
        names: vec!["a.jsonl".into(), "b.jsonl".into()],
        files: vec![first, text.into_bytes()],
    };
    let s = case.open();
    let files: Vec<&[u8]> = case.files.iter().map(Vec::as_slice).collect();
    let leaf = s.tree().default_leaf().unwrap();
    let open = open_calls(&s, &mut files.clone(), leaf).unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].stage, Stage::Pending);
    let mut ids = String::new;
    let mut stamp = Stamp {
        time_ms: TIME_MS,
        new_id: &mut ids,
    };
    let edited = seal(&s, &mut files.clone(), leaf, &mut stamp, false).unwrap();
    let sealed = Session::from_bytes("b.jsonl", &edited.bytes);
    let new_leaf = sealed.tree().default_leaf().unwrap();
    assert!(open_calls(&sealed, &mut &edited.bytes[..], new_leaf)
        .unwrap()
        .is_empty());
    // The branch: two prompts and answers, the rewound turn left out.
    let texts: Vec<String> = records(&sealed, &[&edited.bytes], new_leaf)
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert!(edited
        .notes
        .iter()
        .any(|n| n.message.contains("the branch")));
    migrates_everywhere("b.jsonl", &edited.bytes, "rewind-split");
}

#[test]
fn compaction_is_refused_with_the_reason() {
    let (s, bytes) = open(&format!("{CORPUS}/session-2025-11-19T20-45-42f4bde7.json"));
    let leaf = s.tree().default_leaf().unwrap();
    let err = compaction_plan(&s, &mut &bytes[..], leaf, Budget::Messages(2)).unwrap_err();
    assert!(
        matches!(
            err,
            EditError::Unsupported {
                format: "gemini-cli",
                ..
            }
        ),
        "{err}"
    );
    let text = err.to_string();
    assert!(text.contains("records no compression"), "{text}");
    assert!(text.contains("gemini-cli#21335"), "{text}");
}
