//! Each kind of bad input gives a diagnostic that says where (line, byte)
//! and what, and loses nothing: the rest of the file is read, and the bad
//! bytes stay in the index.

use crate::common::*;
use retrace_core::{Diagnostic, DiagnosticKind, Flags, Format, Session, Severity};

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

/// A pi v3 message entry.
fn msg(id: &str, parent: Option<&str>, ts: &str, body: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:{ts}.000Z","message":{body}}}"#
    )
}

fn user(id: &str, parent: Option<&str>, ts: &str) -> String {
    msg(
        id,
        parent,
        ts,
        r#"{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}"#,
    )
}

fn session(lines: &[String]) -> (Session, Vec<u8>) {
    let mut text = String::new();
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    let bytes = text.into_bytes();
    (Session::from_bytes("t.jsonl", &bytes), bytes)
}

/// The one diagnostic of `kind`, which must exist exactly once.
fn only(diagnostics: &[Diagnostic], kind: DiagnosticKind) -> &Diagnostic {
    let found: Vec<_> = diagnostics.iter().filter(|d| d.kind == kind).collect();
    assert_eq!(found.len(), 1, "{kind:?} in {diagnostics:#?}");
    found[0]
}

#[test]
fn malformed_line_is_reported_kept_and_skipped_over() {
    let bad = r#"{"type":"message","id":"b","parentId":"a" "oops"}"#.to_owned();
    let (s, bytes) = session(&[
        HEADER.into(),
        user("a", None, "01"),
        bad.clone(),
        user("c", Some("a"), "03"),
    ]);
    let d = only(s.diagnostics(), DiagnosticKind::MalformedJson);
    assert_eq!((d.severity, d.line), (Severity::Error, 3));
    let line_start = bytes
        .windows(bad.len())
        .position(|w| w == bad.as_bytes())
        .unwrap() as u64;
    // Points at the stray string, not just the line.
    assert_eq!(d.offset, line_start + bad.find("\"oops\"").unwrap() as u64);
    let broken = &s.entries()[2];
    assert!(broken.is_broken());
    assert_eq!(
        &bytes[broken.range().start as usize..broken.range().end as usize],
        bad.as_bytes()
    );
    // The next line is read and joins the tree.
    assert_eq!(s.id(s.tree().default_leaf().unwrap()), Some("c"));
}

#[test]
fn a_line_that_is_not_an_object_is_malformed() {
    let (s, _) = open("claude-code/iansherr__claude-code-log/test/test_data/edge_cases.jsonl");
    // Lines 13, 15, 16 are `"massive error"`, `42` and `[1]`.
    let lines: Vec<u32> = s
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::MalformedJson)
        .map(|d| d.line)
        .collect();
    assert_eq!(lines, [13, 15, 16]);
    // Line 14 `{"silly": "this"}` is an object without a type: kept, noted.
    let d = s.diagnostics().iter().find(|d| d.line == 14).unwrap();
    assert_eq!(d.kind, DiagnosticKind::UnknownType);
    assert!(d.message.contains("no \"type\""), "{}", d.message);
}

#[test]
fn objects_run_together_are_both_recovered() {
    // Real: pi lost a newline before a compaction on line 440.
    let (s, bytes) = open("pi/badlogic__pi-mono/session.jsonl");
    let d = only(s.diagnostics(), DiagnosticKind::ConcatenatedObjects);
    assert_eq!((d.severity, d.line), (Severity::Warning, 440));
    let on_line: Vec<_> = s
        .entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| e.line == 440)
        .collect();
    assert_eq!(on_line.len(), 2);
    let (first, second) = (on_line[0].1, on_line[1].1);
    assert!(first.flags.has(Flags::SHARED_LINE) && second.flags.has(Flags::SHARED_LINE));
    assert_eq!(
        first.range().end,
        second.range().start,
        "the objects touch: `}}{{`"
    );
    assert_eq!(d.offset, second.offset);
    assert_eq!(
        s.kind(retrace_core::EntryId(on_line[1].0 as u32)),
        "message"
    );
    // Both bodies parse.
    for (i, _) in on_line {
        assert!(s
            .body(retrace_core::EntryId(i as u32), &mut &bytes[..])
            .unwrap()
            .is_ok());
    }
}

#[test]
fn invalid_utf8_is_found_by_the_deep_check() {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(HEADER.as_bytes());
    bytes.push(b'\n');
    let line = user("a", None, "01").replace("hi", "h\u{1}i");
    let bad_at = bytes.len() + line.find('\u{1}').unwrap();
    bytes.extend_from_slice(line.as_bytes());
    bytes[bad_at] = 0xFF;
    bytes.push(b'\n');
    let s = Session::from_bytes("t.jsonl", &bytes);
    // The index still has the entry, with its id.
    assert_eq!(s.id(s.tree().default_leaf().unwrap()), Some("a"));
    let check = s.check(&mut &bytes[..]).unwrap();
    let d = only(&check.diagnostics, DiagnosticKind::InvalidUtf8);
    assert_eq!((d.line, d.offset), (2, bad_at as u64));
}

#[test]
fn byte_order_mark_is_noted_and_skipped() {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(format!("{HEADER}\n{}\n", user("a", None, "01")).as_bytes());
    let s = Session::from_bytes("t.jsonl", &bytes);
    let d = only(s.diagnostics(), DiagnosticKind::ByteOrderMark);
    assert_eq!((d.severity, d.line, d.offset), (Severity::Info, 1, 0));
    assert_eq!(s.format(), Format::Pi { version: 3 });
    assert_eq!(s.entries()[0].offset, 3);
    assert!(s
        .body(retrace_core::EntryId(0), &mut &bytes[..])
        .unwrap()
        .is_ok());
}

#[test]
fn crlf_line_endings_are_read_and_kept() {
    let text = format!(
        "{HEADER}\r\n{}\r\n{}\r\n",
        user("a", None, "01"),
        user("b", Some("a"), "02")
    );
    let bytes = text.as_bytes();
    let s = Session::from_bytes("t.jsonl", bytes);
    let d = only(s.diagnostics(), DiagnosticKind::CrlfLineEndings);
    assert!(d.message.starts_with("3 lines"), "{}", d.message);
    assert_eq!(s.tree().len(), 2);
    for e in s.entries() {
        // Entries stop before the `\r`, which stays in the file.
        assert_eq!(bytes[e.range().end as usize], b'\r');
    }
    assert!(s.diagnostics().iter().all(|d| d.severity == Severity::Info));
}

#[test]
fn truncated_last_line_is_reported_as_cut_off() {
    let full = user("b", Some("a"), "02");
    let torn = &full[..full.len() / 2];
    let text = format!("{HEADER}\n{}\n{torn}", user("a", None, "01"));
    let s = Session::from_bytes("t.jsonl", text.as_bytes());
    let d = only(s.diagnostics(), DiagnosticKind::TruncatedLine);
    assert_eq!((d.severity, d.line), (Severity::Error, 3));
    assert!(!s.files()[0].line_ends_with_newline);
    assert_eq!(s.entries().last().unwrap().range().end, text.len() as u64);
    // A real torn Claude Code line (with its newline) is malformed instead.
    let (s, _) =
        open("claude-code/kenn-io__agentsview/internal/parser/testdata/claude/truncated.jsonl");
    let d = only(s.diagnostics(), DiagnosticKind::MalformedJson);
    assert_eq!(d.line, 3);
    assert_eq!(s.tree().len(), 2);
}

#[test]
fn duplicate_ids_keep_the_first_entry() {
    let (s, _) = session(&[
        HEADER.into(),
        user("a", None, "01"),
        user("a", None, "02"),
        user("b", Some("a"), "03"),
    ]);
    let d = only(s.diagnostics(), DiagnosticKind::DuplicateId);
    assert_eq!((d.severity, d.line), (Severity::Warning, 3));
    let b = s.find("b").unwrap();
    assert_eq!(s.tree().parent(b).map(|p| s.entry(p).line), Some(2));
    // `find` gives the first; `find_all` both, so a caller can say the id
    // is ambiguous; each is named by its line.
    let both = s.find_all("a");
    let lines: Vec<u32> = both.iter().map(|&e| s.entry(e).line).collect();
    assert_eq!(lines, [2, 3]);
    assert_eq!(s.find("a"), Some(both[0]));
    let labels: Vec<String> = both.iter().map(|&e| s.line_label(e)).collect();
    assert_eq!(labels, ["L2", "L3"]);
    assert_eq!(s.find_all("L3"), [both[1]]);
    assert_eq!(s.find_all("b"), [b]);
    assert!(s.find_all("zz").is_empty());
}

#[test]
fn parent_cycles_are_broken_and_reported() {
    let (s, _) = session(&[
        HEADER.into(),
        user("a", Some("c"), "01"),
        user("b", Some("a"), "02"),
        user("c", Some("b"), "03"),
        user("d", Some("d"), "04"),
    ]);
    let cycles: Vec<u32> = s
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::ParentCycle)
        .map(|d| d.line)
        .collect();
    assert_eq!(cycles.len(), 2, "{:#?}", s.diagnostics());
    assert!(cycles.contains(&5), "the self-parent is reported");
    // Every node reaches a root.
    for e in 0..s.entries().len() as u32 {
        let e = retrace_core::EntryId(e);
        if s.tree().contains(e) {
            assert!(s.tree().path(e).len() <= 4);
        }
    }
    assert_eq!(s.tree().roots().len(), 2);
}

#[test]
fn missing_parent_makes_a_root() {
    let (s, _) = session(&[
        HEADER.into(),
        user("a", None, "01"),
        user("b", Some("zz"), "02"),
    ]);
    let d = only(s.diagnostics(), DiagnosticKind::MissingParent);
    assert_eq!((d.severity, d.line), (Severity::Warning, 3));
    assert!(d.message.contains("\"zz\""));
    assert_eq!(s.tree().roots().len(), 2);
    // Real: a Claude Code file that starts mid-conversation.
    let (s, _) = open("claude-code/iansherr__claude-code-log/test/test_data/sidechain_main.jsonl");
    assert_eq!(only(s.diagnostics(), DiagnosticKind::MissingParent).line, 1);
}

#[test]
fn unknown_types_are_kept_and_noted() {
    let (s, bytes) =
        open("pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl");
    let d = only(s.diagnostics(), DiagnosticKind::UnknownType);
    assert_eq!((d.severity, d.line), (Severity::Info, 9));
    let e = s.entries().iter().position(|e| e.line == 9).unwrap();
    let e = retrace_core::EntryId(e as u32);
    assert_eq!(s.kind(e), "future_entry");
    let body = s.body(e, &mut &bytes[..]).unwrap().unwrap();
    assert_eq!(body["type"], "future_entry");
}

#[test]
fn tool_pairing_per_branch() {
    let call = msg(
        "b",
        Some("a"),
        "02",
        r#"{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"bash","arguments":{}}],"provider":"p","model":"m","stopReason":"toolUse","timestamp":2}"#,
    );
    let result = |id: &str, parent: &str, call: &str| {
        msg(
            id,
            Some(parent),
            "03",
            &format!(
                r#"{{"role":"toolResult","toolCallId":"{call}","toolName":"bash","content":[],"isError":false,"timestamp":3}}"#
            ),
        )
    };
    // Branch 1 answers t1; branch 2 (from `a`) answers a call it never made.
    let (s, bytes) = session(&[
        HEADER.into(),
        user("a", None, "01"),
        call,
        result("c", "b", "t1"),
        result("d", "a", "t9"),
    ]);
    let check = s.check(&mut &bytes[..]).unwrap();
    assert_eq!(check.pairing.results_without_call, 1);
    assert_eq!(check.pairing.calls_without_result, 0);
    assert_eq!(
        only(&check.diagnostics, DiagnosticKind::ResultWithoutCall).line,
        5
    );
    // Real: three calls in aborted turns never got results.
    let (s, bytes) = open("pi/badlogic__pi-mono/compact.jsonl");
    let check = s.check(&mut &bytes[..]).unwrap();
    let lines: Vec<u32> = check
        .diagnostics
        .iter()
        .filter(|d| d.kind == DiagnosticKind::CallWithoutResult)
        .map(|d| d.line)
        .collect();
    assert_eq!(lines, [434, 869, 985]);
}

#[test]
fn timestamps_earlier_than_the_parent_are_noted() {
    let (s, _) = session(&[
        HEADER.into(),
        user("a", None, "05"),
        user("b", Some("a"), "02"),
    ]);
    let d = only(s.diagnostics(), DiagnosticKind::TimestampOutOfOrder);
    assert_eq!(d.line, 3);
    assert!(d.message.contains("3000 ms"), "{}", d.message);
    // Real: a resumed Claude Code session, 771916 ms back.
    let (s, _) = open("claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl");
    let d = only(s.diagnostics(), DiagnosticKind::TimestampOutOfOrder);
    assert_eq!(d.line, 109);
    assert!(d.message.contains("771916 ms"));
}

#[test]
fn empty_and_blank_inputs_are_empty_sessions() {
    for bytes in [&b""[..], b"\n\n  \n", b"\r\n"] {
        let s = Session::from_bytes("e.jsonl", bytes);
        assert!(s.entries().is_empty());
        assert_eq!(s.format(), Format::Generic);
        assert!(s.tree().default_leaf().is_none());
    }
}

/// Found by the `read` fuzz target (`tests/fixtures/fuzz/`): with a small
/// `max_line`, a line longer than it was reported and skipped only when it
/// spanned two chunks; pushed whole, it was indexed. Now each too-long line
/// (here lines 2 and 7, 1,111 and 1,151 bytes) is reported and skipped
/// however the bytes come, and the index is the same in every chunking.
#[test]
fn a_line_too_long_is_skipped_in_any_chunking() {
    let rel = "fuzz/long-line-in-one-chunk.jsonl";
    let bytes = fixture(rel);
    let options = retrace_core::ReaderOptions {
        max_line: 520,
        ..Default::default()
    };
    let read = |chunk: usize| open_chunked_with(options, rel, &bytes, chunk);
    let whole = read(bytes.len());
    let skipped: Vec<(u32, u64)> = whole
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::LineTooLong)
        .map(|d| (d.line, d.offset))
        .collect();
    assert_eq!(skipped, [(2, 236), (7, 2125)]);
    assert!(whole.entries().iter().all(|e| e.line != 2 && e.line != 7));
    assert_eq!(whole.entries().len(), 7);
    for chunk in [1, 7, 64, 1000, 4096] {
        assert_eq!(
            fingerprint(&read(chunk)),
            fingerprint(&whole),
            "chunks of {chunk}"
        );
    }
}

/// Found by the `read` fuzz target (`tests/fixtures/fuzz/`): a damaged
/// line sets `uuid` twice, the second time to the id of the line before.
/// The last value wins, in one pass and in a read split into two parts at
/// any line start (as `retrace-io` reads a file of 32 MiB or more), in any
/// chunking. It used to depend on which strings the reader had just seen:
/// ids are interned a line late unless just seen, and the late first value
/// overwrote the second, just-seen one in one pass, but not in a part that
/// started on that line.
#[test]
fn a_repeated_id_key_keeps_its_last_value_in_parts() {
    let rel = "fuzz/repeated-id-key.jsonl";
    let bytes = fixture(rel);
    let whole = Session::from_bytes(rel, &bytes);
    assert_eq!(whole.format(), Format::ClaudeCode);
    let ids: Vec<Option<&str>> = (0..whole.entries().len())
        .map(|i| whole.id(retrace_core::EntryId(i as u32)))
        .collect();
    let u = |s| Some(s);
    assert_eq!(
        ids,
        [
            u("u1"),
            u("a1"),
            u("u2"),
            u("a2"),
            u("u3"),
            u("a3"),
            u("u4"),
            u("a4"),
            u("a4"),
            u("a5")
        ]
    );
    let expected = fingerprint(&whole);
    for chunk in [1, 7, 64] {
        let mut reader = retrace_core::Reader::new();
        reader.begin_file(rel);
        for piece in bytes.chunks(chunk) {
            reader.push(piece);
        }
        assert_eq!(fingerprint(&reader.finish()), expected, "chunks of {chunk}");
    }
    // Every cut after the eight lines format detection samples.
    let starts = bytes
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .map(|(i, _)| i + 1)
        .skip(7)
        .filter(|&at| at < bytes.len());
    for at in starts {
        let mut first = retrace_core::Reader::new();
        first.begin_file(rel);
        first.push(&bytes[..at]);
        let mut part = retrace_core::Reader::new();
        part.begin_part(rel, at as u64);
        part.push(&bytes[at..]);
        first.append_part(part);
        assert_eq!(fingerprint(&first.finish()), expected, "cut at byte {at}");
    }
}

/// Found by the `document` fuzz target (`tests/fixtures/fuzz/`): with a
/// `max_line` (16 bytes) shorter than a pretty-printed document's second
/// line, the framing depended on the chunking: pushed whole, the head
/// decided at that line's newline (a document); one byte at a time, the
/// line was too long while still partial (JSON lines). A line too long now
/// decides the same at its newline: JSON lines either way, its lines
/// reported. With the default `max_line` it is the document it is.
#[test]
fn a_head_line_longer_than_max_line_frames_alike_in_any_chunking() {
    let rel = "fuzz/pretty-document-small-max-line.json";
    let (whole, bytes) = read_alike_in_any_chunking(rel, 16);
    assert!(whole.files()[0].document.is_none());
    assert!(whole
        .diagnostics()
        .iter()
        .any(|d| d.kind == DiagnosticKind::LineTooLong && d.line == 2));
    let default = Session::from_bytes(rel, &bytes);
    assert!(default.files()[0].document.is_some());
    assert_eq!(default.entries().len(), 1);
}

/// Found by the `read` target: with every line longer than `max_line`, a
/// Gemini CLI file was detected as Gemini CLI when pushed in small chunks
/// and as generic JSON lines when pushed whole
/// (`tests/fixtures/fuzz/gemini-every-line-too-long.jsonl`, its first two
/// lines). A line too long is never indexed, so it is not sampled either.
#[test]
fn lines_too_long_are_not_sampled_for_the_format_in_any_chunking() {
    let (whole, _) = read_alike_in_any_chunking("fuzz/gemini-every-line-too-long.jsonl", 24);
    assert_eq!(whole.entries().len(), 0);
}

/// A Claude Code line whose `message.role` is neither `user` nor
/// `assistant` is reported where it is; one written with escapes, or not a
/// string, is not a damaged name (the normalizer reads both by the line's
/// `type`). Every line's message is still read.
#[test]
fn a_damaged_claude_role_is_reported() {
    let line = |uuid: &str, parent: &str, role: &str| {
        format!(
            r#"{{"type":"assistant","uuid":"{uuid}","parentUuid":{parent},"message":{{"role":{role},"content":"ok"}}}}"#
        )
    };
    let (s, bytes) = session(&[
        line("a1", "null", r#""assis\u0074ant""#),
        line("a2", r#""a1""#, r#""assis|ant""#),
        line("a3", r#""a2""#, "7"),
    ]);
    assert_eq!(s.format(), Format::ClaudeCode);
    let d = only(s.diagnostics(), DiagnosticKind::BadField);
    assert_eq!((d.line, d.severity), (2, Severity::Warning));
    assert_eq!(
        d.offset,
        bytes.iter().position(|&b| b == b'\n').unwrap() as u64 + 1
    );
    assert!(d.message.contains("`assis|ant`"), "{}", d.message);
    let leaf = s.tree().default_leaf().unwrap();
    let messages = s.context(leaf, &mut &bytes[..]).unwrap();
    let roles: Vec<_> = messages.iter().map(|m| m.role).collect();
    assert_eq!(roles, [retrace_core::Role::Assistant; 3]);
}

/// Found by the `read` target: a first line of 29 carriage returns, then
/// `[`, longer than a 24-byte `max_line`, was framed as a document when
/// pushed whole and as JSON lines when pushed a byte at a time: the head
/// took the blanks alone for a line too long before it saw the `[`
/// (`tests/fixtures/fuzz/blanks-before-an-array-small-max-line.json`).
#[test]
fn blanks_before_an_array_frame_alike_in_any_chunking() {
    let (whole, _) =
        read_alike_in_any_chunking("fuzz/blanks-before-an-array-small-max-line.json", 24);
    assert!(whole.files()[0].document.is_some());
}

/// Fixture `rel` read whole with a `max_line` of `max_line` bytes, after
/// checking that every chunking gives the same index (format included);
/// with its bytes.
fn read_alike_in_any_chunking(rel: &str, max_line: usize) -> (Session, Vec<u8>) {
    let bytes = fixture(rel);
    let options = retrace_core::ReaderOptions {
        max_line,
        ..Default::default()
    };
    let whole = open_chunked_with(options, rel, &bytes, bytes.len());
    for chunk in [1, 2, 7, 20, 64, 200] {
        let chunked = open_chunked_with(options, rel, &bytes, chunk);
        assert_eq!(
            chunked.format(),
            whole.format(),
            "{rel} in chunks of {chunk}"
        );
        assert_eq!(
            fingerprint(&chunked),
            fingerprint(&whole),
            "{rel} in chunks of {chunk}"
        );
    }
    (whole, bytes)
}

/// Found by the `bodies` fuzz target (`tests/fixtures/fuzz/`): a Codex
/// call's `timeout_ms` of `97e34` was read as the double next to the
/// nearest one, so the message sent on (written and read back through
/// serde) changed in its last bit. Natively, floats are read to the
/// nearest double (serde_json's `float_roundtrip`); the wasm build keeps
/// the smaller parser (`retrace-core/Cargo.toml`).
#[test]
fn a_float_in_arguments_is_read_exactly_and_survives_serde() {
    use retrace_core::{Message, Part};
    let rel = "fuzz/codex-float-argument.jsonl";
    let bytes = read_fixture(rel);
    let s = Session::from_bytes(rel, &bytes);
    let messages = history(&s, &bytes);
    let timeouts: Vec<f64> = messages
        .iter()
        .flat_map(|m| &m.content)
        .filter_map(|p| match p {
            Part::ToolCall { arguments, .. } => arguments["timeout_ms"].as_f64(),
            _ => None,
        })
        .collect();
    assert_eq!(timeouts, [97e34]);
    for m in &messages {
        let json = serde_json::to_string(m).unwrap();
        let back: Message = serde_json::from_str(&json).unwrap();
        assert_eq!(back.content, m.content, "{json}");
    }
}

/// Found by the `document` fuzz target (`tests/fixtures/fuzz/`): a Gemini
/// CLI file whose last line, with no newline, rewrites the user's record
/// of line 2. The branch takes that record first, so `cat` wrote the last
/// line, then the reply's line right after it: one line holding two
/// records. It gets its newline now; every line is the file's.
#[test]
fn an_unended_last_line_written_first_gets_its_newline() {
    let rel = "fuzz/gemini-rewritten-last-line-unended.jsonl";
    let bytes = read_fixture(rel);
    assert!(!bytes.ends_with(b"\n"));
    let s = Session::from_bytes(rel, &bytes);
    let leaf = s.tree().default_leaf().unwrap();
    let mut out = Vec::new();
    retrace_core::export_branch(&s, &mut &bytes[..], leaf, &mut out).unwrap();
    let file: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    let written: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
    assert_eq!(written, [file[0], file[3], file[2], &b""[..]]);
    // Read again, it is the same branch.
    let again = Session::from_bytes(rel, &out);
    assert!(again.diagnostics().is_empty(), "{:?}", again.diagnostics());
    assert_eq!(again.entries().len(), 3);
}
