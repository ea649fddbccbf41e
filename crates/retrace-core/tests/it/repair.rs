//! Repair on corpus files with planted damage: a NUL run, two objects
//! glued on one line, a line that is no JSON, a line repeated (its id used
//! twice), a tool result whose call is nowhere, a torn last line. The
//! repaired file reads back clean, and no byte is lost: what is carried
//! over and what is rejected cover the input exactly once; its branch,
//! migrated, passes what every provider API checks of a history.

use std::collections::HashSet;

use crate::api_rules::validate_branch;
use crate::common::*;
use retrace_core::{open_calls, repair, salvage, DiagnosticKind, Format, Session, Severity, Stamp};

fn stamp(ids: &mut dyn FnMut() -> String) -> Stamp<'_> {
    Stamp {
        time_ms: 1_800_000_000_000,
        new_id: ids,
    }
}

/// The result line planted for a call that is nowhere, in the format's
/// shape.
fn orphan_result(format: Format, parent: Option<&str>) -> Option<String> {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    Some(match format {
        Format::Pi { .. } => format!(
            r#"{{"type":"message","id":"planted-orphan","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"toolResult","toolCallId":"nowhere","toolName":"bash","content":[{{"type":"text","text":"x"}}],"isError":false,"timestamp":1}}}}"#
        ),
        Format::ClaudeCode => format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"type":"user","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"nowhere","content":"x"}}]}},"uuid":"planted-orphan","timestamp":"2026-01-01T00:00:00.000Z"}}"#
        ),
        Format::Codex => r#"{"timestamp":"2026-01-01T00:00:00.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"nowhere","output":"x"}}"#.to_owned(),
        _ => return None,
    })
}

/// `bytes` with damage planted; `None` for files too small to damage.
fn damage(bytes: &[u8], s: &Session) -> Option<Vec<u8>> {
    let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    if lines.len() < 6 || !bytes.ends_with(b"\n") {
        return None;
    }
    let leaf = s.tree().default_leaf()?;
    let orphan = orphan_result(s.format(), s.id(leaf))?;
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        match i {
            // A NUL run before a line, as a crash leaves.
            1 => {
                out.extend_from_slice(&[0; 37]);
                out.extend_from_slice(line);
            }
            // Two objects glued: this line's newline lost.
            2 => out.extend_from_slice(line.strip_suffix(b"\n").unwrap()),
            // Half a line, then the line whole (a write retried).
            4 => {
                out.extend_from_slice(&line[..line.len() / 2]);
                out.push(b'\n');
                out.extend_from_slice(line);
            }
            _ => out.extend_from_slice(line),
        }
    }
    // A line repeated, an orphan result at the end, a torn last line.
    out.extend_from_slice(lines[3]);
    out.extend_from_slice(orphan.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(&lines[5][..lines[5].len() / 3]);
    Some(out)
}

#[test]
fn damaged_corpus_files_are_repaired_without_losing_a_byte() {
    let mut repaired = 0;
    for path in corpus_files() {
        let name = path.display().to_string();
        let clean = std::fs::read(&path).unwrap();
        let s = Session::from_bytes(&name, &clean);
        if s.files()[0].document.is_some() {
            continue;
        }
        let Some(bytes) = damage(&clean, &s) else {
            continue;
        };
        let damaged = Session::from_bytes(&name, &bytes);

        // The framing pass: kept and rejected ranges tile the input.
        let framed = salvage(&damaged, &mut &bytes[..]).unwrap();
        let mut ranges: Vec<(u64, u64)> = framed.kept.iter().map(|r| (r.start, r.end)).collect();
        ranges.extend(
            framed
                .rejected
                .iter()
                .map(|r| (r.offset, r.offset + r.bytes.len() as u64)),
        );
        ranges.sort();
        let mut at = 0;
        for (start, end) in ranges {
            assert_eq!(start, at, "{name}: a gap or an overlap at {at}");
            at = end;
        }
        assert_eq!(at, bytes.len() as u64, "{name}");

        let mut n = 0;
        let mut ids = || {
            n += 1;
            format!("repair-{n}")
        };
        let out = repair(&damaged, &mut &bytes[..], &mut stamp(&mut ids)).unwrap();
        // Every rejected piece is the input's bytes where it says.
        let mut rejected_total = 0;
        for r in &out.rejected {
            let at = r.offset as usize;
            assert_eq!(&bytes[at..at + r.bytes.len()], &r.bytes[..], "{name}");
            rejected_total += r.bytes.len();
        }
        // What is carried over plus what is rejected is the input: the
        // pieces the second pass dropped are rejected whole.
        let dropped: HashSet<u64> = out
            .rejected
            .iter()
            .map(|r| r.offset)
            .filter(|o| !framed.rejected.iter().any(|f| f.offset == *o))
            .collect();
        let carried: u64 = framed
            .kept
            .iter()
            .filter(|k| !dropped.contains(&k.start))
            .map(|k| k.end - k.start)
            .sum();
        assert_eq!(carried as usize + rejected_total, bytes.len(), "{name}");
        // The NUL run, the half line, the repeat, the orphan, the torn tail.
        for why in [
            "NUL bytes",
            "an id used before",
            "whose call is not",
            "truncated-line",
        ] {
            let hit = out.rejected.iter().any(|r| r.reason.contains(why));
            // pi v1 and Codex lines carry no ids: nothing is repeated.
            assert!(
                hit || why == "an id used before",
                "{name}: nothing rejected for {why}"
            );
        }
        // Every line carried over is an input line, byte for byte, or one
        // re-parented (its parent dropped, or a call before it sealed), or
        // a sealing result.
        let reparented = out
            .notes
            .iter()
            .filter(|n| n.action == "reparented" || n.action == "sealed")
            .count();
        let mut changed = 0;
        for line in out.bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            if memchr::memmem::find(&bytes, line).is_none()
                && !String::from_utf8_lossy(line).contains("sealed by retrace")
            {
                changed += 1;
            }
        }
        assert!(changed <= reparented, "{name}: {changed} lines changed");

        // Read back: sound, no repeated id, nothing unpaired on the branch.
        let back = Session::from_bytes(&name, &out.bytes);
        let check = back.check(&mut &out.bytes[..]).unwrap();
        for d in back.diagnostics().iter().chain(&check.diagnostics) {
            assert!(
                d.severity != Severity::Error
                    && !matches!(
                        d.kind,
                        DiagnosticKind::DuplicateId | DiagnosticKind::ConcatenatedObjects
                    ),
                "{name}: {d:?}"
            );
        }
        let leaf = back.tree().default_leaf().unwrap();
        assert!(
            open_calls(&back, &mut &out.bytes[..], leaf)
                .unwrap()
                .is_empty(),
            "{name}"
        );
        // What a resumed agent would send, every API takes (or, for a
        // branch of no conversation, all refuse as empty).
        validate_branch(
            &back,
            &mut &out.bytes[..],
            leaf,
            &format!("{name} repaired"),
        );
        repaired += 1;
    }
    assert!(repaired >= 20, "{repaired}");
}

/// A result whose call is nowhere, mid-branch: dropped, and the line
/// below it takes its parent.
#[test]
fn a_dropped_line_hands_its_children_to_its_parent() {
    let file = r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"nowhere","toolName":"bash","content":[{"type":"text","text":"x"}],"isError":false,"timestamp":2}}
{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"api":"anthropic-messages","provider":"anthropic","model":"m","stopReason":"stop","timestamp":3}}
"#;
    let s = Session::from_bytes("orphan.jsonl", file.as_bytes());
    let mut ids = || unreachable!("nothing to seal");
    let out = repair(&s, &mut file.as_bytes(), &mut stamp(&mut ids)).unwrap();
    let lines: Vec<&str> = file.lines().collect();
    let want = [
        lines[0],
        lines[1],
        &lines[3].replace(r#""parentId":"a2""#, r#""parentId":"a1""#),
    ]
    .join("\n")
        + "\n";
    assert_eq!(String::from_utf8(out.bytes).unwrap(), want);
    assert_eq!(out.rejected.len(), 1);
    assert_eq!(out.rejected[0].line, 3);
    assert_eq!(out.rejected[0].bytes, format!("{}\n", lines[2]).as_bytes());
    let actions: Vec<&str> = out.notes.iter().map(|n| n.action).collect();
    assert_eq!(actions, ["dropped", "reparented"]);
}

/// A damaged pi, Claude Code and Codex corpus file, gzipped: repaired as
/// what it inflates to, the same bytes, notes and rejected pieces as the
/// plain file's repair.
#[test]
fn a_gzip_file_is_repaired_as_what_it_inflates_to() {
    let files = [
        "pi/badlogic__pi-mono/packages/coding-agent/test/fixtures/large-session.jsonl",
        "claude-code/iansherr__claude-code-log/test/test_data/real_projects/\
         -experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl",
        "codex/AcidicSoil__codex-session-view/.sample_session/\
         rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl",
    ];
    let run = |name: &str, bytes: &[u8], source: &mut dyn retrace_core::Source| {
        let s = Session::from_bytes(name, bytes);
        let mut n = 0;
        let mut ids = || {
            n += 1;
            format!("repair-{n}")
        };
        repair(&s, source, &mut stamp(&mut ids)).unwrap()
    };
    for file in files {
        let clean = read(file);
        let damaged = damage(&clean, &Session::from_bytes(file, &clean)).unwrap();
        let plain = run(file, &damaged, &mut &damaged[..]);
        assert!(!plain.rejected.is_empty(), "{file}");
        let packed = gzip(&damaged);
        let gz = format!("{file}.gz");
        let s = Session::from_bytes(&gz, &packed);
        assert!(s.files()[0].gzip.is_some());
        let mut inflated = retrace_core::Inflated::new(&packed[..], s.files());
        let out = run(&gz, &packed, &mut inflated);
        assert!(out.bytes == plain.bytes, "{file}");
        assert_eq!(out.notes, plain.notes, "{file}");
        assert_eq!(out.rejected, plain.rejected, "{file}");
    }
}

/// A gzip file cut short: what it inflated to is repaired (its torn last
/// line rejected), and a note says where the stream broke.
#[test]
fn a_truncated_gzip_is_repaired_with_a_note() {
    let packed = read_fixture("gzip/rollback-truncated.jsonl.gz");
    let s = Session::from_bytes("rollback-truncated.jsonl.gz", &packed);
    let mut source = retrace_core::Inflated::new(&packed[..], s.files());
    let mut ids = || unreachable!("nothing to seal");
    let out = repair(&s, &mut source, &mut stamp(&mut ids)).unwrap();
    let gzip_note = out.notes.iter().find(|n| n.action == "gzip").unwrap();
    assert!(
        gzip_note.message.starts_with("gzip-truncated: "),
        "{}",
        gzip_note.message
    );
    // The first ten lines of the plain fixture, the torn eleventh aside.
    let plain = read_fixture("codex/rollback.jsonl");
    let ten: usize = plain
        .split_inclusive(|&b| b == b'\n')
        .take(10)
        .map(<[u8]>::len)
        .sum();
    assert!(
        out.bytes == plain[..ten],
        "{}",
        String::from_utf8_lossy(&out.bytes)
    );
    assert_eq!(out.rejected.len(), 1);
    assert_eq!(out.rejected[0].line, 11);
    assert!(plain[ten..].starts_with(&out.rejected[0].bytes));
}
