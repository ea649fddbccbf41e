//! Auto-seal on the corpus: every file whose default branch leaves calls
//! without a result, and corpus files and generated sessions cut right
//! after a tool call. The sealed file read back leaves no call unanswered,
//! keeps every original line (only a re-parented line's parent id
//! changes), and migrates to every API with every call answered by the
//! session itself, a history each API's checks accept.

use crate::api_rules::validate_branch;
use crate::common::*;
use retrace_core::migrate::{migrate, Change};
use retrace_core::{
    export_branch, open_calls, resume_check, seal, Api, ContextOptions, EntryId, Format, Session,
    Stage, Stamp,
};
use serde_json::Value;

/// New ids `sealed-1`, `sealed-2`, …
fn counter_ids(counter: &mut u32) -> impl FnMut() -> String + '_ {
    move || {
        *counter += 1;
        format!("sealed-{counter}")
    }
}

fn sealable(s: &Session, leaf: EntryId) -> bool {
    matches!(
        s.file_format(s.entry(leaf).file),
        Format::Pi { .. } | Format::ClaudeCode | Format::Codex
    )
}

/// Seals the default branch of `bytes` and checks the result; returns how
/// many calls were sealed.
fn seal_and_check(name: &str, bytes: &[u8]) -> usize {
    let s = Session::from_bytes(name, bytes);
    let Some(leaf) = s.tree().default_leaf() else {
        return 0;
    };
    let open = open_calls(&s, &mut &bytes[..], leaf).unwrap();
    if open.is_empty() || !sealable(&s, leaf) {
        return 0;
    }
    let mut n = 0;
    let mut ids = counter_ids(&mut n);
    let dry = seal(
        &s,
        &mut &bytes[..],
        leaf,
        &mut Stamp {
            time_ms: 1_800_000_000_000,
            new_id: &mut ids,
        },
        true,
    )
    .unwrap();
    assert!(dry.bytes.is_empty(), "{name}");
    let edited = seal(
        &s,
        &mut &bytes[..],
        leaf,
        &mut Stamp {
            time_ms: 1_800_000_000_000,
            new_id: &mut ids,
        },
        false,
    )
    .unwrap();
    // --dry-run lists the same calls.
    assert_eq!(dry.notes, edited.notes, "{name}");
    assert_eq!(edited.notes.len(), open.len(), "{name}");
    assert!(edited.rejected.is_empty());

    // Read back: nothing left open, on the branch or anywhere.
    let sealed = Session::from_bytes(name, &edited.bytes);
    let new_leaf = sealed.tree().default_leaf().unwrap();
    let still = open_calls(&sealed, &mut &edited.bytes[..], new_leaf).unwrap();
    assert!(still.is_empty(), "{name}: {still:?}");
    let check = sealed.check(&mut &edited.bytes[..]).unwrap();
    assert_eq!(check.pairing.calls_without_result, 0, "{name}");

    // Every line of the branch is kept, in order; only a parent id may
    // change (the line after a sealed call, re-parented onto its result).
    let mut branch = Vec::new();
    export_branch(&s, &mut &bytes[..], leaf, &mut branch).unwrap();
    let before: Vec<&[u8]> = branch.split_inclusive(|&b| b == b'\n').collect();
    let after: Vec<&[u8]> = edited.bytes.split_inclusive(|&b| b == b'\n').collect();
    assert_eq!(after.len(), before.len() + open.len(), "{name}");
    let mut j = 0;
    let mut inserted = 0;
    for line in &before {
        while after[j] != *line && is_sealing(after[j]) {
            j += 1;
            inserted += 1;
        }
        if after[j] != *line {
            assert_eq!(without_parent(after[j]), without_parent(line), "{name}");
        }
        j += 1;
    }
    inserted += after[j..].iter().filter(|l| is_sealing(l)).count();
    assert_eq!(inserted, open.len(), "{name}");
    // The last input line may lack its newline; the sealed file then adds
    // one before the lines it appends.

    // Migrated to every API: every call answered by the session itself,
    // and the history one each API takes (a branch with a call on it is
    // never empty).
    let messages = sealed
        .context_with(
            new_leaf,
            &mut &edited.bytes[..],
            ContextOptions { payloads: true },
        )
        .unwrap();
    for api in Api::ALL {
        let report = migrate(&messages, api).report;
        assert_eq!(
            report.count(Change::CallWithoutResult),
            0,
            "{name} to {api:?}"
        );
    }
    let taken = validate_branch(
        &sealed,
        &mut &edited.bytes[..],
        new_leaf,
        &format!("{name} sealed"),
    );
    assert_eq!(taken, Api::ALL.len(), "{name}");
    // The resume check named the open calls, and no longer does.
    let unanswered = |v: &[retrace_core::Resumable]| {
        v.iter().any(|r| {
            r.reasons
                .iter()
                .any(|w| w.starts_with("tool calls without a result"))
        })
    };
    // (Calls before a compaction are not sent: only those in the context.)
    let context = s.context(leaf, &mut &bytes[..]).unwrap();
    let sent = context
        .iter()
        .flat_map(|m| m.tool_calls())
        .any(|(id, _)| open.iter().any(|c| c.id == id));
    let before = resume_check(&s, &mut &bytes[..], leaf).unwrap();
    assert_eq!(unanswered(&before), sent, "{name}: {before:?}");
    let after = resume_check(&sealed, &mut &edited.bytes[..], new_leaf).unwrap();
    assert!(!unanswered(&after), "{name}: {after:?}");
    open.len()
}

fn is_sealing(line: &[u8]) -> bool {
    String::from_utf8_lossy(line).contains("sealed by retrace")
}

fn without_parent(line: &[u8]) -> Value {
    let mut v: Value = serde_json::from_slice(line.trim_ascii()).unwrap();
    if let Some(o) = v.as_object_mut() {
        o.remove("parentUuid");
        o.remove("parentId");
    }
    v
}

#[test]
fn every_corpus_file_with_open_calls_is_sealed() {
    let mut sealed = 0;
    let mut files = 0;
    for path in corpus_files() {
        let bytes = std::fs::read(&path).unwrap();
        let n = seal_and_check(&path.display().to_string(), &bytes);
        sealed += n;
        files += usize::from(n > 0);
    }
    // pi's compact.jsonl (3), large-session.jsonl (18), branching.jsonl
    // (1), and a Claude Code call left pending (1).
    assert!(files >= 4 && sealed >= 23, "{files} files, {sealed} calls");
}

/// Every pi, Claude Code and Codex corpus file and every generated session
/// cut right after the line of its first tool call, and right after its
/// last.
#[test]
fn sessions_cut_after_a_tool_call_are_sealed() {
    let mut cut = [0usize; 3];
    let mut generated_cut = 0;
    let generated = generated();
    let files = corpus_files()
        .into_iter()
        .map(|path| (path.display().to_string(), std::fs::read(&path).unwrap()))
        .chain(generated.iter().cloned());
    for (name, bytes) in files {
        let s = Session::from_bytes(&name, &bytes);
        let Some(leaf) = s.tree().default_leaf() else {
            continue;
        };
        if !sealable(&s, leaf) || s.files().len() != 1 {
            continue;
        }
        let branch = s.branch(leaf);
        let with_calls: Vec<EntryId> = branch
            .iter()
            .copied()
            .filter(|&e| {
                s.messages(e, &mut &bytes[..])
                    .unwrap()
                    .iter()
                    .any(|m| m.tool_calls().next().is_some())
            })
            .collect();
        for e in [with_calls.first(), with_calls.last()]
            .into_iter()
            .flatten()
        {
            let entry = s.entry(*e);
            let end = entry.range().end as usize;
            let end = end
                + bytes[end..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len() - end, |i| i + 1);
            let n = seal_and_check(&name, &bytes[..end]);
            assert!(n > 0, "{name} cut at line {}", entry.line);
            let slot = match s.format() {
                Format::Pi { .. } => 0,
                Format::ClaudeCode => 1,
                _ => 2,
            };
            cut[slot] += 1;
            generated_cut += usize::from(generated.iter().any(|(g, _)| *g == name));
        }
    }
    assert!(cut.iter().all(|&n| n > 0), "{cut:?}");
    assert_eq!(generated_cut, 2 * generated.len());
}

/// Each generated session cut right after lines holding a tool call (12
/// spread over it, the first and the last among them, as `fork.rs`
/// samples large files, fewer since each cut reads the file whole):
/// between the lines of a split Claude Code
/// response, among parallel calls, before a compaction, in a sidechain.
#[test]
fn generated_sessions_cut_after_tool_calls_are_sealed() {
    let mut cuts = 0;
    for (name, bytes) in generated() {
        let s = Session::from_bytes(&name, &bytes);
        let mut src: &[u8] = &bytes;
        let lines: Vec<u32> = (0..s.entries().len() as u32)
            .map(EntryId)
            .filter(|&e| {
                s.messages(e, &mut src)
                    .unwrap()
                    .iter()
                    .any(|m| m.tool_calls().next().is_some())
            })
            .map(|e| s.entry(e).line)
            .collect();
        assert!(lines.len() > 10, "{name}");
        let step = lines.len().div_ceil(12);
        let last = lines.len() - 1;
        let lines: Vec<u32> = lines
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % step == 0 || *i == last)
            .map(|(_, l)| l)
            .collect();
        let ends: Vec<usize> = bytes
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .map(|(i, _)| i + 1)
            .collect();
        for line in lines {
            let cut = &bytes[..ends[line as usize - 1]];
            let n = seal_and_check(&name, cut);
            assert!(n > 0, "{name} cut at line {line}");
            cuts += 1;
        }
    }
    assert!(cuts >= 50, "{cuts}");
}

const PI: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"list"}],"timestamp":1767225601000}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}],"api":"anthropic-messages","provider":"anthropic","model":"m","stopReason":"toolUse","timestamp":1767225602000}}
{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"go on"}],"timestamp":1767225603000}}
{"type":"message","id":"a4","parentId":"a3","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"api":"anthropic-messages","provider":"anthropic","model":"m","stopReason":"stop","timestamp":1767225604000}}
"#;

/// A call left open mid-branch: the result goes right after it, the next
/// line is re-parented onto it, and the sealed line carries the call's
/// time, not the caller's.
#[test]
fn a_call_open_mid_branch_is_answered_right_after_it() {
    let bytes = PI.as_bytes();
    assert_eq!(seal_and_check("mid.jsonl", bytes), 1);
    let s = Session::from_bytes("mid.jsonl", bytes);
    let leaf = s.tree().default_leaf().unwrap();
    let mut ids = || "r1".to_owned();
    let out = seal(
        &s,
        &mut &bytes[..],
        leaf,
        &mut Stamp {
            time_ms: 1_800_000_000_000,
            new_id: &mut ids,
        },
        false,
    )
    .unwrap();
    let text = String::from_utf8(out.bytes).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6);
    let sealed: Value = serde_json::from_str(lines[3]).unwrap();
    assert_eq!(sealed["parentId"], "a2");
    assert_eq!(sealed["id"], "r1");
    assert_eq!(sealed["timestamp"], "2026-01-01T00:00:02.000Z");
    assert_eq!(sealed["message"]["toolCallId"], "c1");
    assert_eq!(sealed["message"]["isError"], true);
    assert_eq!(
        lines[4],
        PI.lines()
            .nth(3)
            .unwrap()
            .replace(r#""parentId":"a2""#, r#""parentId":"r1""#)
    );
    assert_eq!(out.notes[0].action, "sealed");
    assert_eq!(out.notes[0].line, Some(3));
}

/// Codex says where a call stopped: an approval asked for, a command begun.
#[test]
fn codex_stages_come_from_its_events() {
    let meta = r#"{"timestamp":"2025-11-17T21:30:00.000Z","type":"session_meta","payload":{"id":"019a93b9-f380-7600-98ff-940e6b99603c","timestamp":"2025-11-17T21:30:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.58.0"}}"#;
    let user = r#"{"timestamp":"2025-11-17T21:30:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run it"}]}}"#;
    let call = |id: &str| {
        format!(
            r#"{{"timestamp":"2025-11-17T21:30:02.000Z","type":"response_item","payload":{{"type":"function_call","name":"shell","arguments":"{{\"command\":[\"ls\"]}}","call_id":"{id}"}}}}"#
        )
    };
    let approval = r#"{"timestamp":"2025-11-17T21:30:03.000Z","type":"event_msg","payload":{"type":"exec_approval_request","call_id":"call_a","command":["ls"],"cwd":"/w"}}"#;
    let begin = r#"{"timestamp":"2025-11-17T21:30:03.000Z","type":"event_msg","payload":{"type":"exec_command_begin","call_id":"call_b","command":["ls"],"cwd":"/w"}}"#;
    let file = [
        meta,
        user,
        &call("call_a"),
        &call("call_b"),
        &call("call_c"),
        approval,
        begin,
    ]
    .join("\n")
        + "\n";
    let bytes = file.as_bytes();
    let s = Session::from_bytes(
        "rollout-2025-11-17T21-30-00-019a93b9-f380-7600-98ff-940e6b99603c.jsonl",
        bytes,
    );
    assert_eq!(s.format(), Format::Codex);
    let leaf = s.tree().default_leaf().unwrap();
    let open = open_calls(&s, &mut &bytes[..], leaf).unwrap();
    let stages: Vec<(&str, Stage)> = open.iter().map(|c| (c.id.as_str(), c.stage)).collect();
    assert_eq!(
        stages,
        [
            ("call_a", Stage::ApprovalRequired),
            ("call_b", Stage::Executing),
            ("call_c", Stage::Unknown)
        ]
    );
    assert_eq!(seal_and_check("rollout.jsonl", bytes), 3);
}

/// A Codex branch holding a rollback, cut right after a call made after
/// it: the sealed file leaves the rollback out (the branch has applied it;
/// read again it would drop the turn before it) and keeps every turn.
#[test]
fn a_sealed_codex_branch_leaves_its_rollback_out() {
    let bytes = read_fixture("codex/rollback.jsonl");
    // Line 22 rolls back the turn of lines 15–21; line 27 is a call.
    let cut: usize = bytes
        .split_inclusive(|&b| b == b'\n')
        .take(27)
        .map(<[u8]>::len)
        .sum();
    let bytes = &bytes[..cut];
    assert_eq!(seal_and_check("rollback.jsonl", bytes), 1);
    let s = Session::from_bytes("rollback.jsonl", bytes);
    let leaf = s.tree().default_leaf().unwrap();
    let mut ids = String::new;
    let out = seal(
        &s,
        &mut &bytes[..],
        leaf,
        &mut Stamp {
            time_ms: 1_800_000_000_000,
            new_id: &mut ids,
        },
        false,
    )
    .unwrap();
    assert!(memchr::memmem::find(&out.bytes, b"thread_rolled_back").is_none());
    let sealed = Session::from_bytes("rollback.jsonl", &out.bytes);
    let prompts = |s: &Session, bytes: &[u8]| -> Vec<String> {
        let leaf = s.tree().default_leaf().unwrap();
        s.context(leaf, &mut &bytes[..])
            .unwrap()
            .iter()
            .filter(|m| m.role == retrace_core::Role::User && m.tool_results().next().is_none())
            .map(|m| format!("{:?}", m.content))
            .collect()
    };
    let before = prompts(&s, bytes);
    assert!(
        before.iter().any(|p| p.contains("list the files"))
            && before.iter().any(|p| p.contains("show the README")),
        "{before:?}"
    );
    assert_eq!(prompts(&sealed, &out.bytes), before);
}

/// Claude Code: a real 2.1.42 session cut where a `PostToolUse` hook's
/// `progress` line for a call is written and its result is not yet: the
/// tool ran. Cut before the progress line, nothing tells.
#[test]
fn claude_code_stage_comes_from_a_post_tool_use_hook() {
    let file = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/\
                -experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl";
    let bytes = read(file);
    let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    // Line 7 calls Bash, line 8 is its PostToolUse progress, line 9 its
    // result; line 10 calls Read, lines 11 and 12 are its progress (two
    // hooks), line 13 its result.
    for (cut, want) in [
        (7, vec![("toolu_01R8fKGi2tkSE4siHWmS8j1f", Stage::Unknown)]),
        (
            8,
            vec![("toolu_01R8fKGi2tkSE4siHWmS8j1f", Stage::Executing)],
        ),
        (10, vec![("toolu_016hTGfKRpRvGvUEjFmijpZV", Stage::Unknown)]),
        (
            12,
            vec![("toolu_016hTGfKRpRvGvUEjFmijpZV", Stage::Executing)],
        ),
    ] {
        let cut_bytes = lines[..cut].concat();
        let s = Session::from_bytes(file, &cut_bytes);
        assert_eq!(s.format(), Format::ClaudeCode);
        let leaf = s.tree().default_leaf().unwrap();
        let open = open_calls(&s, &mut &cut_bytes[..], leaf).unwrap();
        let got: Vec<(&str, Stage)> = open.iter().map(|c| (c.id.as_str(), c.stage)).collect();
        assert_eq!(got, want, "cut after line {cut}");
        assert_eq!(seal_and_check(file, &cut_bytes), 1, "cut after line {cut}");
    }
}

/// Claude Code: a response split over two lines, its call in the first,
/// then a prompt. The result goes after the response's last line, and the
/// prompt is re-parented onto it.
#[test]
fn claude_code_results_follow_the_whole_response() {
    let line = |uuid: &str, parent: &str, kind: &str, message: &str| {
        format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.0.0","type":"{kind}","message":{message},"uuid":"{uuid}","timestamp":"2026-01-01T00:00:0{}.000Z"}}"#,
            uuid.len() % 10
        )
    };
    let file = [
        line("u1", "null", "user", r#"{"role":"user","content":"go"}"#),
        line(
            "a1",
            r#""u1""#,
            "assistant",
            r#"{"id":"m1","role":"assistant","model":"claude","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}"#,
        ),
        line(
            "a1b",
            r#""a1""#,
            "assistant",
            r#"{"id":"m1","role":"assistant","model":"claude","content":[{"type":"text","text":"running"}]}"#,
        ),
        line("u2", r#""a1b""#, "user", r#"{"role":"user","content":"and?"}"#),
    ]
    .join("\n")
        + "\n";
    let bytes = file.as_bytes();
    assert_eq!(seal_and_check("claude.jsonl", bytes), 1);
    let s = Session::from_bytes("claude.jsonl", bytes);
    let leaf = s.tree().default_leaf().unwrap();
    let mut ids = || "r1".to_owned();
    let out = seal(
        &s,
        &mut &bytes[..],
        leaf,
        &mut Stamp {
            time_ms: 1_800_000_000_000,
            new_id: &mut ids,
        },
        false,
    )
    .unwrap();
    let text = String::from_utf8(out.bytes).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let sealed: Value = serde_json::from_str(lines[3]).unwrap();
    assert_eq!(sealed["parentUuid"], "a1b");
    assert_eq!(sealed["uuid"], "r1");
    assert_eq!(sealed["sessionId"], "s1");
    assert_eq!(sealed["message"]["content"][0]["tool_use_id"], "t1");
    assert_eq!(sealed["message"]["content"][0]["is_error"], true);
    let next: Value = serde_json::from_str(lines[4]).unwrap();
    assert_eq!(next["parentUuid"], "r1");
    assert_eq!(next["uuid"], "u2");
}

/// Claude Code: parallel calls, one line each, both left open. Each
/// sealing line names the line of its own call in `sourceToolAssistantUUID`
/// (as every result Claude Code writes does; Claude Code makes it the
/// parent when it writes the message again), while the second hangs off
/// the first.
#[test]
fn claude_code_sealing_lines_name_the_line_of_their_call() {
    let line = |uuid: &str, parent: &str, kind: &str, message: &str| {
        format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.1.0","type":"{kind}","message":{message},"uuid":"{uuid}","timestamp":"2026-01-01T00:00:00.000Z"}}"#
        )
    };
    let call = |id: &str| {
        format!(
            r#"{{"id":"m1","role":"assistant","model":"claude","content":[{{"type":"tool_use","id":"{id}","name":"Read","input":{{"file_path":"/w/{id}"}}}}]}}"#
        )
    };
    let file = [
        line(
            "u1",
            "null",
            "user",
            r#"{"role":"user","content":"read both"}"#,
        ),
        line("a1", r#""u1""#, "assistant", &call("t1")),
        line("a2", r#""a1""#, "assistant", &call("t2")),
    ]
    .join("\n")
        + "\n";
    let bytes = file.as_bytes();
    assert_eq!(seal_and_check("parallel.jsonl", bytes), 2);
    let s = Session::from_bytes("parallel.jsonl", bytes);
    let leaf = s.tree().default_leaf().unwrap();
    let mut n = 0;
    let mut ids = counter_ids(&mut n);
    let out = seal(
        &s,
        &mut &bytes[..],
        leaf,
        &mut Stamp {
            time_ms: 1_800_000_000_000,
            new_id: &mut ids,
        },
        false,
    )
    .unwrap();
    let text = String::from_utf8(out.bytes).unwrap();
    let sealed: Vec<Value> = text
        .lines()
        .skip(3)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(sealed.len(), 2);
    for (line, (call, call_line, parent)) in sealed
        .iter()
        .zip([("t1", "a1", "a2"), ("t2", "a2", "sealed-1")])
    {
        assert_eq!(line["message"]["content"][0]["tool_use_id"], call);
        assert_eq!(line["sourceToolAssistantUUID"], call_line, "{line}");
        assert_eq!(line["parentUuid"], parent, "{line}");
    }
}
