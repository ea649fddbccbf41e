//! `retrace repair`: a damaged file as a new one, the bytes left out in
//! `OUT.rejected`, what was done on stderr or as JSON.

use crate::common::*;

/// The pi v3 fixture with a NUL run before its second line and its last
/// line torn.
fn damaged(dir: &std::path::Path) -> String {
    let clean = std::fs::read(corpus(PI_V3)).unwrap();
    let lines: Vec<&[u8]> = clean.split_inclusive(|&b| b == b'\n').collect();
    let mut bytes = lines[0].to_vec();
    bytes.extend_from_slice(&[0; 8]);
    for line in &lines[1..] {
        bytes.extend_from_slice(line);
    }
    bytes.extend_from_slice(br#"{"type":"message","id":"e9","par"#);
    let path = dir.join("damaged.jsonl");
    std::fs::write(&path, &bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn repair_writes_the_file_and_the_side_car() {
    let dir = scratch("repair_side_car");
    let input = damaged(&dir);
    let out = dir.join("repaired.jsonl");
    let out = out.to_str().unwrap();
    retrace_snapshot!(cmd(&["repair", &input, "-o", out]), @"
    exit_code: 0
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/repair_side_car/damaged.jsonl:2: rejected: 8 bytes at offset 110: NUL bytes (a crash while writing)
    retrace: [SCRATCH]/repair_side_car/damaged.jsonl:10: rejected: 32 bytes at offset 2480: truncated-line: last line is cut off: line ends inside a string (truncated?)
    retrace: [SCRATCH]/repair_side_car/damaged.jsonl:8: sealed: tool call bash (call-2) had no result: sealed as an error (stage: unknown; it may have run: check for side effects before retrying)
    retrace: [SCRATCH]/repair_side_car/damaged.jsonl: repaired into [SCRATCH]/repair_side_car/repaired.jsonl: 3 changes, 40 bytes left out, kept in [SCRATCH]/repair_side_car/repaired.jsonl.rejected
    ");
    retrace_snapshot!(cmd(&["validate", out]), @r#"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/repair_side_car/repaired.jsonl:10:2760: note: unknown-type: unknown entry type "future_entry" (kept as is)
    [SCRATCH]/repair_side_car/repaired.jsonl: 0 errors, 0 warnings, 1 notes; 2 tool calls, 0 without result, 0 results without call
    [SCRATCH]/repair_side_car/repaired.jsonl: resumable as is by every API
    ----- stderr -----
    "#);
    let side_car = std::fs::read(format!("{out}.rejected")).unwrap();
    insta::assert_snapshot!(String::from_utf8_lossy(&side_car).replace('\0', "\\0"), @r#"
    {"length":8,"line":2,"offset":110,"reason":"NUL bytes (a crash while writing)"}
    \0\0\0\0\0\0\0\0
    {"length":32,"line":10,"offset":2480,"reason":"truncated-line: last line is cut off: line ends inside a string (truncated?)"}
    {"type":"message","id":"e9","par
    "#);
    // --json: the report, with the side-car named.
    let o = retrace(&["repair", &input, "-o", out, "--json"]);
    let report = &json_lines(&o)[0];
    assert_eq!(report["rejected_bytes"], 8 + 32);
    assert!(report["rejected_file"]
        .as_str()
        .unwrap()
        .ends_with("repaired.jsonl.rejected"));
}

#[test]
fn repair_of_a_sound_file_changes_nothing() {
    let o = retrace(&["repair", &corpus(CODEX)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout == std::fs::read(corpus(CODEX)).unwrap());
    assert!(
        stderr(&o).contains("0 changes, nothing left out"),
        "{}",
        stderr(&o)
    );
}
