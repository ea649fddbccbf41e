//! Whole-document framing: a file that is one JSON array, or one object
//! with a `messages` array, is read as one entry per element, in any
//! chunking, losslessly; broken documents are reported with line and byte.

use crate::common::*;
use retrace_core::{
    starts_like_document, Diagnostic, DiagnosticKind, ElementStarts, Reader, Session, Severity,
};

/// Opens `bytes` whole and in many chunkings; all must index the same, and
/// losslessly.
fn open_all_ways(bytes: &[u8]) -> Session {
    let whole = Session::from_bytes("doc.json", bytes);
    assert_lossless("doc.json", &whole, bytes);
    let expected = fingerprint(&whole);
    for chunk in [1, 2, 3, 5, 7, 13, 64, 4096] {
        let s = open_chunked("doc.json", bytes, chunk);
        assert_eq!(fingerprint(&s), expected, "in chunks of {chunk}");
        assert_lossless("doc.json", &s, bytes);
    }
    whole
}

/// The diagnostics about the bytes (not the one saying a test document is
/// of no known format).
fn problems(s: &Session) -> Vec<&Diagnostic> {
    s.diagnostics()
        .iter()
        .filter(|d| d.kind != DiagnosticKind::UnknownFormat)
        .collect()
}

fn only(diagnostics: &[Diagnostic], kind: DiagnosticKind) -> &Diagnostic {
    let found: Vec<_> = diagnostics.iter().filter(|d| d.kind == kind).collect();
    assert_eq!(found.len(), 1, "{diagnostics:#?}");
    found[0]
}

const PRETTY_ARRAY: &str = r#"[
  {
    "role": "user",
    "content": "list the files"
  },
  {
    "role": "assistant",
    "content": "Here: \"a]b\", {x}"
  },
  {"role": "user", "content": ["nested", ["array"]]}
]
"#;

#[test]
fn a_pretty_array_is_one_entry_per_element() {
    let s = open_all_ways(PRETTY_ARRAY.as_bytes());
    let lines: Vec<u32> = s.entries().iter().map(|e| e.line).collect();
    assert_eq!(lines, [2, 6, 10]);
    let e = &s.entries()[1];
    let text = &PRETTY_ARRAY[e.range().start as usize..e.range().end as usize];
    assert!(text.starts_with('{') && text.ends_with('}') && text.contains("a]b"));
    let doc = s.files()[0].document.as_ref().unwrap();
    assert!(doc.is_array && doc.complete && doc.fields.is_empty());
    assert_eq!(s.files()[0].lines, 11);
    assert!(problems(&s).is_empty(), "{:?}", s.diagnostics());
}

const OBJECT: &str = "{\n  \"model\": \"claude-x\",\n  \"system\": \"Be brief.\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"},\n    {\"role\": \"assistant\", \"content\": \"hello\"}\n  ],\n  \"max_tokens\": 1024,\n  \"metadata\": {\"tags\": [1, 2, {\"deep\": \"}\"}]}\n}";

#[test]
fn an_object_keeps_its_other_fields_by_range() {
    let s = open_all_ways(OBJECT.as_bytes());
    assert_eq!(s.entries().len(), 2);
    assert_eq!(s.entries()[0].line, 5);
    let doc = s.files()[0].document.as_ref().unwrap();
    assert_eq!(doc.array_key.as_deref(), Some("messages"));
    assert!(!doc.is_array && doc.complete);
    let keys: Vec<&str> = doc.fields.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(keys, ["model", "system", "max_tokens", "metadata"]);
    let system = doc.field("system").unwrap();
    assert_eq!(system.line, 3);
    assert_eq!(
        &OBJECT[system.value.start as usize..system.value.end as usize],
        "\"Be brief.\""
    );
    assert_eq!(system.parsed, Some(serde_json::json!("Be brief.")));
    let metadata = doc.field("metadata").unwrap();
    assert_eq!(
        metadata.parsed,
        Some(serde_json::json!({"tags": [1, 2, {"deep": "}"}]}))
    );
    // No newline at the end: the last line still counts.
    assert_eq!(s.files()[0].lines, 10);
    assert!(!s.files()[0].line_ends_with_newline);
}

#[test]
fn a_document_on_one_line_is_framed_but_jsonl_of_documents_is_not() {
    let one = b"{\"messages\":[{\"role\":\"user\",\"content\":\"a\"},{\"role\":\"assistant\",\"content\":\"b\"}],\"model\":\"m\"}\n\n";
    let s = open_all_ways(one);
    assert_eq!(s.entries().len(), 2);
    assert!(s.files()[0].document.is_some());
    // A fine-tuning file: one conversation per line.
    let many = b"{\"messages\":[{\"role\":\"user\",\"content\":\"a\"}]}\n{\"messages\":[{\"role\":\"user\",\"content\":\"b\"}]}\n";
    let s = open_all_ways(many);
    assert_eq!(s.entries().len(), 2);
    assert!(s.files()[0].document.is_none());
    assert_eq!(s.entries()[1].line, 2);
}

#[test]
fn a_broken_element_is_reported_and_kept() {
    let bytes = b"[\n  {\"role\": \"user\", \"content\": \"a\"},\n  {\"role\": \"assistant\" \"content\": \"b\"},\n  42,\n  {\"role\": \"user\", \"content\": \"c\"}\n]\n";
    let s = open_all_ways(bytes);
    assert_eq!(s.entries().len(), 4);
    let broken: Vec<u32> = s
        .entries()
        .iter()
        .filter(|e| e.is_broken())
        .map(|e| e.line)
        .collect();
    assert_eq!(broken, [3, 4]);
    let errors: Vec<&Diagnostic> = s
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::MalformedJson)
        .collect();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    // The missing comma after `"assistant"`: line 3, at the second key.
    let text = std::str::from_utf8(bytes).unwrap();
    assert_eq!(errors[0].line, 3);
    assert_eq!(
        errors[0].offset as usize,
        text.find("\"content\": \"b\"").unwrap()
    );
    assert_eq!(errors[1].line, 4);
    assert_eq!(errors[1].offset as usize, text.find("42").unwrap());
    assert!(errors[1].message.contains("not a JSON object"));
    assert!(errors.iter().all(|d| d.severity == Severity::Error));
}

#[test]
fn a_truncated_document_is_reported_and_kept() {
    let bytes = b"{\"sessionId\": \"s\",\n \"messages\": [\n  {\"id\": \"1\", \"type\": \"user\"},\n  {\"id\": \"2\", \"type\": \"gem";
    let s = open_all_ways(bytes);
    assert_eq!(s.entries().len(), 2);
    let cut = &s.entries()[1];
    assert!(cut.is_broken());
    assert_eq!((cut.line, cut.range().end), (4, bytes.len() as u64));
    let d = s
        .diagnostics()
        .iter()
        .find(|d| d.kind == DiagnosticKind::TruncatedLine && d.message.contains("element"))
        .unwrap();
    assert_eq!((d.line, d.offset), (4, bytes.len() as u64));
    let d = s
        .diagnostics()
        .iter()
        .find(|d| d.kind == DiagnosticKind::TruncatedLine && d.message.contains("document"))
        .unwrap();
    assert_eq!(d.offset, bytes.len() as u64);
    let doc = s.files()[0].document.as_ref().unwrap();
    assert!(!doc.complete && doc.end.is_none());
    assert_eq!(doc.fields[0].key, "sessionId");

    // Cut inside a top-level field: the field is kept by range.
    let bytes = b"{\"messages\": [{\"role\": \"user\", \"content\": \"a\"}],\n \"summary\": \"half";
    let s = open_all_ways(bytes);
    let doc = s.files()[0].document.as_ref().unwrap();
    assert_eq!(doc.fields[0].key, "summary");
    assert_eq!(doc.fields[0].range.end, bytes.len() as u64);
    only(s.diagnostics(), DiagnosticKind::TruncatedLine);
}

#[test]
fn missing_and_extra_commas_are_reported_and_both_elements_read() {
    let s = open_all_ways(b"[{\"a\": 1} {\"b\": 2},]");
    assert_eq!(s.entries().len(), 2);
    let messages: Vec<&str> = problems(&s).iter().map(|d| d.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "missing comma between array elements",
            "comma before the closing bracket"
        ]
    );
    assert_eq!(problems(&s)[0].offset, 10);
}

#[test]
fn lines_after_the_document_are_read_as_json_lines() {
    let bytes = b"[{\"role\": \"user\", \"content\": \"a\"}] {\"x\": 1}\n{\"y\": 2}\n";
    let s = open_all_ways(bytes);
    assert_eq!(s.entries().len(), 3);
    assert_eq!(s.entries()[1].line, 1);
    assert_eq!(s.entries()[2].line, 2);
    // The document ends after its `]`.
    assert_eq!(s.files()[0].document.as_ref().unwrap().end, Some(34));
    let d = only(s.diagnostics(), DiagnosticKind::MalformedJson);
    assert!(d.message.contains("follow the end of the JSON document"));
    assert_eq!(d.severity, Severity::Warning);
}

#[test]
fn bom_and_crlf() {
    let bytes = b"\xEF\xBB\xBF[\r\n  {\"role\": \"user\",\r\n   \"content\": \"a\"}\r\n]\r\n";
    let s = open_all_ways(bytes);
    assert_eq!(s.entries().len(), 1);
    assert_eq!((s.entries()[0].line, s.entries()[0].offset), (2, 8));
    only(s.diagnostics(), DiagnosticKind::ByteOrderMark);
}

#[test]
fn jsonl_starting_like_an_object_is_not_a_document() {
    let bytes = b"{\"type\":\"session\",\"version\":3,\"id\":\"x\"}\n{\"type\":\"message\",\"id\":\"a\",\"parentId\":null}\n";
    let s = open_all_ways(bytes);
    assert!(s.files()[0].document.is_none());
    assert_eq!(s.entries().len(), 2);
    // A torn first line is a broken JSON line, not a document.
    let s = open_all_ways(b"{\"type\":\"session\",\"ver");
    assert!(s.files()[0].document.is_none());
    only(s.diagnostics(), DiagnosticKind::TruncatedLine);
}

#[test]
fn a_first_line_cut_short_before_whole_lines_is_jsonl() {
    // The Gemini CLI fixture with its metadata line cut short at every
    // byte, inside strings and outside (`{"sessionId": "…", "projectHash":
    // "9b2e…"` then a newline): the cut line is an error on line 1, the 14
    // records after it are read as JSON lines.
    let bytes = fixture("gemini/session-2026-02-03T09-00-5c1f3a9e.jsonl");
    let first = bytes.iter().position(|&b| b == b'\n').unwrap();
    for cut in 1..first {
        let mut torn = bytes[..cut].to_vec();
        torn.extend_from_slice(&bytes[first..]);
        let s = match cut % 40 {
            0 => open_all_ways(&torn),
            _ => Session::from_bytes("torn.jsonl", &torn),
        };
        assert!(s.files()[0].document.is_none(), "cut at {cut}");
        assert_eq!(s.format(), retrace_core::Format::GeminiCli, "cut at {cut}");
        assert_eq!(s.entries().len(), 15, "cut at {cut}");
        assert!(s.entries()[0].is_broken(), "cut at {cut}");
        assert_eq!(s.tree().len(), 10, "cut at {cut}");
        let d = only(s.diagnostics(), DiagnosticKind::MalformedJson);
        assert_eq!((d.line, d.severity), (1, Severity::Error), "cut at {cut}");
        assert!(!starts_like_document(&torn), "cut at {cut}");
    }
    // A document whose first line opens its framed array, one element on
    // each line after it, is still one document.
    let doc =
        b"{\"model\": \"m\", \"messages\": [\n{\"role\": \"user\", \"content\": \"hi\"}\n]}\n";
    let s = open_all_ways(doc);
    assert!(s.files()[0].document.is_some());
    assert_eq!(s.entries().len(), 1);
    assert!(problems(&s).is_empty(), "{:?}", problems(&s));
    assert!(starts_like_document(doc));
}

#[test]
fn the_store_can_tell_documents_from_lines() {
    assert!(starts_like_document(b"\n  [\n"));
    assert!(starts_like_document(b"{\n  \"sessionId\": \"x\","));
    assert!(starts_like_document(b"\xEF\xBB\xBF{\r\n"));
    assert!(!starts_like_document(b"{\"type\":\"session\"}\n{"));
    assert!(!starts_like_document(b"{\"type\":\"sess"));
    assert!(!starts_like_document(b""));
}

#[test]
fn gemini_legacy_files_frame_into_their_messages() {
    let rel =
        "gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-11-19T20-45-42f4bde7.json";
    let bytes = read(rel);
    let s = open_all_ways(&bytes);
    // Checked with `python3 -c 'json.load(…)'`: 20 messages; the first on
    // line 7, the document's other keys in order.
    assert_eq!(s.entries().len(), 20);
    assert_eq!(s.entries()[0].line, 7);
    let doc = s.files()[0].document.as_ref().unwrap();
    let keys: Vec<&str> = doc.fields.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "sessionId",
            "projectHash",
            "startTime",
            "lastUpdated",
            "source"
        ]
    );
    assert!(problems(&s).is_empty(), "{:?}", s.diagnostics());
}

#[test]
fn escaped_quotes_and_backslash_runs_in_any_chunking() {
    // Strings ending in even and odd runs of backslashes, a key with an
    // escaped quote, brackets inside strings.
    let bytes = br#"{"k\"ey": "v\\", "messages": [
  {"role": "user", "content": "a\\\"]}b\\\\"},
  {"role": "assistant", "content": "\\\\\\\"[{\"", "x": ["\\"]},
  "s\\\"t\\"
], "tail": "\\\\"}"#;
    let s = open_all_ways(bytes);
    assert_eq!(s.entries().len(), 3);
    assert!(s.entries()[2].is_broken(), "a string element");
    let doc = s.files()[0].document.as_ref().unwrap();
    let keys: Vec<&str> = doc.fields.iter().map(|f| f.key.as_str()).collect();
    assert_eq!(keys, [r#"k\"ey"#, "tail"]);
    assert_eq!(doc.fields[1].parsed, Some(serde_json::json!("\\\\")));
    for e in &s.entries()[..2] {
        let text = &bytes[e.range().start as usize..e.range().end as usize];
        serde_json::from_slice::<serde_json::Value>(text).unwrap();
    }
}

/// Reads a document in parts: the first from the start, each later one from
/// where [`ElementStarts`] finds an element after a cut, as the store does
/// on several threads. Returns the session and how many parts were kept
/// (the others were read on by the reader before them).
fn open_in_parts(bytes: &[u8], cuts: &[usize], chunk: usize) -> (Session, usize, usize) {
    let starts = ElementStarts::from_head(&bytes[..bytes.len().min(64 << 10)])
        .expect("the head shows where elements begin");
    let mut points = vec![0];
    for &cut in cuts {
        if let Some(k) = starts.find(&bytes[cut..]) {
            if cut + k > *points.last().unwrap() {
                points.push(cut + k);
            }
        }
    }
    points.push(bytes.len());
    let mut reader = Reader::new();
    reader.begin_file("doc.json");
    for piece in bytes[..points[1]].chunks(chunk) {
        reader.push(piece);
    }
    let mut kept = 0;
    for w in points.windows(2).skip(1) {
        let mut part = Reader::new();
        part.begin_document_part("doc.json", w[0] as u64, &starts);
        for piece in bytes[w[0]..w[1]].chunks(chunk) {
            part.push(piece);
        }
        if reader.append_document_part(part) {
            kept += 1;
        } else {
            reader.push(&bytes[w[0]..w[1]]);
        }
    }
    (reader.finish(), kept, points.len() - 2)
}

fn assert_same_index(a: &Session, b: &Session) {
    assert_eq!(fingerprint(a), fingerprint(b));
    let (fa, fb) = (&a.files()[0], &b.files()[0]);
    assert_eq!(fa.document, fb.document);
    assert_eq!(
        (fa.lines, fa.size, fa.line_ends_with_newline),
        (fb.lines, fb.size, fb.line_ends_with_newline)
    );
}

#[test]
fn a_document_read_in_parts_indexes_like_one_pass() {
    let rel =
        "gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-11-19T20-45-42f4bde7.json";
    let bytes = read(rel);
    let whole = Session::from_bytes("doc.json", &bytes);
    let n = bytes.len();
    for chunk in [97, 4096, usize::MAX] {
        let (s, kept, parts) = open_in_parts(&bytes, &[n / 4, n / 2, 3 * n / 4], chunk);
        assert_eq!((kept, parts), (3, 3), "every guess holds in a pretty file");
        assert_same_index(&s, &whole);
    }
}

#[test]
fn parts_keep_what_follows_the_array_and_the_document() {
    // Fields after the array, a broken element, a missing comma, lines
    // after the document; and the same cut short.
    let doc = "{\n  \"model\": \"m\",\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"a\"},\n    {\"role\": \"assistant\", \"content\": [1, 2]},\n    {\"role\": \"user\" \"content\": \"broken\"},\n    {\"role\": \"assistant\", \"content\": \"b\"}\n    {\"role\": \"user\", \"content\": \"no comma before\"},\n    {\"role\": \"assistant\", \"content\": \"c\"}\n  ],\n  \"system\": \"Be brief.\"\n}\n{\"type\": \"after\"}\n";
    let bytes = doc.as_bytes();
    let mut parts_kept = 0;
    for end in [bytes.len(), bytes.len() - 25, bytes.len() - 60, 250] {
        let bytes = &bytes[..end];
        let whole = Session::from_bytes("doc.json", bytes);
        for cut in (60..end).step_by(7) {
            for chunk in [1, 5, 64, usize::MAX] {
                let (s, kept, parts) = open_in_parts(bytes, &[cut], chunk);
                assert_eq!(kept, parts, "cut {cut}, end {end}");
                assert_same_index(&s, &whole);
                parts_kept += kept;
            }
        }
    }
    // 4 elements begin after a comma on a line of their own.
    assert!(parts_kept > 100, "{parts_kept}");
}

#[test]
fn a_wrong_guess_is_read_again_and_indexes_like_one_pass() {
    // The indentation of the elements recurs inside the first element, and
    // inside a string (a raw newline: not valid JSON, but read all the
    // same): neither is where an element begins.
    let doc = "[\n  {\"role\": \"user\", \"content\": [\n  {\"type\": \"text\"},\n  {\"type\": \"image\"}\n  ]},\n  {\"role\": \"assistant\", \"content\": \"x,\n  {y\"},\n  {\"role\": \"user\", \"content\": \"z\"}\n]\n";
    let bytes = doc.as_bytes();
    let whole = Session::from_bytes("doc.json", bytes);
    assert_eq!(whole.entries().len(), 3);
    let nested = doc.find("{\"type\": \"image\"").unwrap();
    let in_string = doc.find("{y").unwrap();
    let real = doc.rfind("{\"role\"").unwrap();
    for (cut, want_kept) in [(nested - 6, 0), (in_string - 6, 0), (real - 6, 1)] {
        let (s, kept, parts) = open_in_parts(bytes, &[cut], 7);
        assert_eq!((kept, parts), (want_kept, 1), "cut at {cut}");
        assert_same_index(&s, &whole);
    }
}
