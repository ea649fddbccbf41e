//! gzip input: the same session as the plain file (entries, tree,
//! diagnostics, messages), in any chunking, with several members, and
//! bodies read back by range through checkpoints; broken streams reported
//! with file, line and byte.

use crate::common::*;
use retrace_core::{DiagnosticKind, Inflated, Session, Severity, Source};

/// Everything a view sees of a session, bodies included.
fn observe(s: &Session, source: &mut dyn Source) -> String {
    use std::fmt::Write;
    let mut out = fingerprint(s);
    writeln!(out, "{:?}", s.diagnostics()).unwrap();
    for &tip in s.tree().tips() {
        let messages = s.context(tip, source).unwrap();
        writeln!(out, "{}", serde_json::to_string(&messages).unwrap()).unwrap();
    }
    let check = s.check(source).unwrap();
    writeln!(
        out,
        "{:?} {} {} {}",
        check.diagnostics, check.messages, check.tool_calls, check.tool_errors
    )
    .unwrap();
    out
}

/// Every corpus file and fixture, gzipped, reads exactly as the plain file.
#[test]
fn gzip_equals_plain() {
    let mut files: Vec<(String, Vec<u8>)> = corpus_files()
        .into_iter()
        .map(|p| (p.to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    for rel in ["codex/rollback.jsonl", "events/events.jsonl"] {
        files.push((rel.to_owned(), read_fixture(rel)));
    }
    for (name, plain) in files {
        let a = Session::from_bytes(&name, &plain);
        let expected = observe(&a, &mut plain.as_slice());
        let packed = gzip(&plain);
        // Whole, and in chunks that split the header and the trailer.
        for chunk in [packed.len(), 7, 4096] {
            let b = open_chunked(&name, &packed, chunk);
            assert!(b.files()[0].gzip.is_some(), "{name}");
            assert_eq!(b.files()[0].size, plain.len() as u64, "{name}");
            let mut source = Inflated::new(packed.as_slice(), b.files());
            assert_eq!(
                observe(&b, &mut source),
                expected,
                "{name} in {chunk}-byte chunks"
            );
        }
    }
}

#[test]
fn two_members_are_one_stream() {
    let plain = read_fixture("codex/rollback.jsonl");
    let packed = read_fixture("gzip/rollback-two-members.jsonl.gz");
    let a = Session::from_bytes("r", &plain);
    let b = open_chunked("r", &packed, 100);
    assert_eq!(
        observe(&b, &mut Inflated::new(packed.as_slice(), b.files())),
        observe(&a, &mut plain.as_slice())
    );
}

/// A stream larger than the checkpoint spacing: bodies read in any order
/// (restarting from checkpoints) give the plain bytes.
#[test]
fn ranges_read_back_through_checkpoints() {
    let mut plain = Vec::new();
    let mut i = 0u64;
    // About 10 MiB of pi-shaped lines with varied text, so it does not
    // compress to nothing.
    while plain.len() < 10 << 20 {
        let text: String = (0..(i % 97 + 20))
            .map(|k| char::from(b'a' + ((i * 7 + k * 13) % 26) as u8))
            .collect();
        plain.extend_from_slice(
            format!(
                "{{\"type\":\"message\",\"id\":\"e{i}\",\"parentId\":{},\"timestamp\":\"2026-01-01T00:00:00Z\",\"message\":{{\"role\":\"user\",\"content\":\"{text} {i}\"}}}}\n",
                if i == 0 { "null".to_owned() } else { format!("\"e{}\"", i - 1) }
            )
            .as_bytes(),
        );
        i += 1;
    }
    let packed = gzip(&plain);
    let s = open_chunked("big.jsonl.gz", &packed, 256 << 10);
    let index = s.files()[0].gzip.clone().unwrap();
    assert_eq!(
        index.checkpoints(),
        (plain.len() as u64 / retrace_core::CHECKPOINT_EVERY) as usize
    );
    assert_eq!(index.compressed_size, packed.len() as u64);
    let mut source = Inflated::new(packed.as_slice(), s.files());
    let n = s.entries().len();
    // Backwards, then a stride across the file, then forwards.
    let order: Vec<usize> = (0..n)
        .rev()
        .step_by(997)
        .chain((0..n).step_by(3001))
        .chain(0..200)
        .collect();
    for e in order {
        let range = s.entries()[e].range();
        let got = source.read(retrace_core::FileId(0), range.clone()).unwrap();
        assert_eq!(
            &*got,
            &plain[range.start as usize..range.end as usize],
            "entry {e}"
        );
    }
    // A read past the end is an error, not a panic.
    let end = plain.len() as u64;
    assert!(source.read(retrace_core::FileId(0), end..end + 10).is_err());
}

fn gz_diagnostics(s: &Session) -> Vec<&retrace_core::Diagnostic> {
    s.diagnostics()
        .iter()
        .filter(|d| d.kind.code().starts_with("gzip-"))
        .collect()
}

#[test]
fn truncated_gzip_keeps_what_was_read() {
    let packed = read_fixture("gzip/rollback-truncated.jsonl.gz");
    let plain = read_fixture("codex/rollback.jsonl");
    let s = open_chunked("t.jsonl.gz", &packed, 64);
    let found = gz_diagnostics(&s);
    assert_eq!(found.len(), 1);
    let d = found[0];
    assert_eq!(d.kind, DiagnosticKind::GzipTruncated);
    assert_eq!(d.severity, Severity::Error);
    // Output stopped inside line 11, 2520 bytes in (the first 900
    // compressed bytes inflate to that much).
    assert_eq!((d.line, d.offset), (11, 2520));
    assert!(d.message.contains("compressed byte 900"), "{}", d.message);
    // The ten whole lines before it are read as in the plain file, and the
    // cut line is reported too.
    let whole = Session::from_bytes("p", &plain);
    assert_eq!(s.entries().len(), 11);
    for (a, b) in s.entries()[..10].iter().zip(whole.entries()) {
        assert_eq!((a.line, a.offset, a.len), (b.line, b.offset, b.len));
    }
    assert!(s.entries()[10].is_broken());
    assert!(s
        .diagnostics()
        .iter()
        .any(|d| d.kind == DiagnosticKind::TruncatedLine && d.line == 11));
}

#[test]
fn broken_gzip_streams_are_reported() {
    // Bytes flipped in a block header: inflating stops at once.
    let s = open_chunked(
        "x",
        &read_fixture("gzip/rollback-bad-deflate.jsonl.gz"),
        1 << 20,
    );
    let found = gz_diagnostics(&s);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, DiagnosticKind::GzipCorrupt);
    assert_eq!((found[0].line, found[0].offset), (1, 0));
    assert!(found[0]
        .message
        .starts_with("invalid deflate data at compressed byte 24"));

    // Bytes flipped inside compressed data: garbage comes out, and the
    // member's CRC-32 says so at its end.
    let s = open_chunked(
        "x",
        &read_fixture("gzip/rollback-corrupt.jsonl.gz"),
        1 << 20,
    );
    let found = gz_diagnostics(&s);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, DiagnosticKind::GzipCorrupt);
    assert!(
        found[0].message.starts_with("CRC-32 mismatch"),
        "{}",
        found[0].message
    );

    // A damaged trailer over intact data: every line reads, the CRC is
    // reported.
    let s = open_chunked(
        "x",
        &read_fixture("gzip/rollback-bad-crc.jsonl.gz"),
        1 << 20,
    );
    assert_eq!(s.entries().len(), 34);
    let found = gz_diagnostics(&s);
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].line, found[0].offset), (35, 8094));
    assert!(found[0].message.contains("at compressed byte 1489"));
}

#[test]
fn bytes_after_the_last_member() {
    let plain = read_fixture("events/events.jsonl");
    let mut packed = gzip(&plain);
    packed.extend_from_slice(&[0; 16]);
    let s = open_chunked("z", &packed, 1000);
    let found = gz_diagnostics(&s);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].kind, DiagnosticKind::GzipTrailingData);
    assert_eq!(found[0].severity, Severity::Info);
    assert_eq!(s.entries().len(), 9);
    packed.extend_from_slice(b"garbage");
    let s = open_chunked("z", &packed, 1000);
    assert_eq!(gz_diagnostics(&s)[0].severity, Severity::Warning);
    // Not gzip: a one-byte file and plain text stay plain.
    let s = open_chunked("one", b"\x1f", 1);
    assert!(s.files()[0].gzip.is_none());
    assert_eq!(s.entries().len(), 1);
}
