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

/// A gzip session, damaged: repaired as what it inflates to, into a gzip
/// file when `-o` names one (the side-car plain), the same bytes as the
/// repair of the plain file.
#[test]
fn a_gzip_input_repairs_into_a_gzip_output() {
    use std::io::{Read, Write};
    let dir = scratch("repair_gzip");
    let plain = damaged(&dir);
    let packed = dir.join("damaged.jsonl.gz");
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&std::fs::read(&plain).unwrap()).unwrap();
    std::fs::write(&packed, z.finish().unwrap()).unwrap();
    let packed = packed.to_str().unwrap();

    let want = dir.join("from-plain.jsonl");
    let o = retrace(&["repair", &plain, "-o", want.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = dir.join("repaired.jsonl.gz");
    let out = out.to_str().unwrap();
    let o = retrace(&["repair", packed, "-o", out]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let written = std::fs::read(out).unwrap();
    assert_eq!(&written[..2], b"\x1f\x8b", "a gzip file");
    let mut inflated = Vec::new();
    flate2::read::MultiGzDecoder::new(&written[..])
        .read_to_end(&mut inflated)
        .unwrap();
    // The same repair but for the sealing line's new id and time.
    assert_eq!(
        without_sealing(&inflated),
        without_sealing(&std::fs::read(&want).unwrap())
    );
    assert_eq!(
        std::fs::read(format!("{out}.rejected")).unwrap(),
        std::fs::read(format!("{}.rejected", want.display())).unwrap()
    );
    assert!(
        stderr(&o).contains("3 changes, 40 bytes left out"),
        "{}",
        stderr(&o)
    );

    // An output not named .gz is written plain, and a note says so.
    let flat = dir.join("repaired-flat.jsonl");
    let o = retrace(&["repair", packed, "-o", flat.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        without_sealing(&std::fs::read(&flat).unwrap()),
        without_sealing(&inflated)
    );
    assert!(
        stderr(&o).contains("the input is gzip; the output is written uncompressed"),
        "{}",
        stderr(&o)
    );
}

/// A repaired file's text with each sealing line (a new id, the time of
/// the run) as `SEALED` and its id, where a later line names it, as `ID`.
fn without_sealing(bytes: &[u8]) -> String {
    let text = String::from_utf8(bytes.to_vec()).unwrap();
    let mut ids = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.contains("sealed by retrace") {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            ids.extend(v["id"].as_str().map(str::to_owned));
            lines.push("SEALED".into());
        } else {
            lines.push(line.to_owned());
        }
    }
    assert!(!ids.is_empty(), "a call was sealed");
    let mut out = lines.join("\n");
    for id in ids {
        out = out.replace(&format!("\"{id}\""), "\"ID\"");
    }
    out
}

/// A gzip file cut short (a write interrupted): what was inflated is
/// repaired, the torn last line goes to the side-car, and a note says
/// where the stream broke.
#[test]
fn a_truncated_gzip_is_repaired_from_what_it_inflates_to() {
    let dir = scratch("repair_gzip_truncated");
    let out = dir.join("repaired.jsonl.gz");
    let out = out.to_str().unwrap();
    let o = retrace(&[
        "repair",
        &fixture("gzip/rollback-truncated.jsonl.gz"),
        "-o",
        out,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(":11: gzip: gzip-truncated: file ends inside compressed data"),
        "{err}"
    );
    assert!(err.contains("177 bytes left out"), "{err}");
    // The repaired file is the first ten lines of the rollback fixture.
    let ten: Vec<String> = std::fs::read_to_string(fixture("codex/rollback.jsonl"))
        .unwrap()
        .lines()
        .take(10)
        .map(str::to_owned)
        .collect();
    let o = retrace(&["cat", "--leaf", "L10", out]);
    assert_eq!(stdout(&o).lines().collect::<Vec<_>>(), ten);
    retrace_snapshot!(cmd(&["validate", out]), @"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/repair_gzip_truncated/repaired.jsonl.gz: 0 errors, 0 warnings, 0 notes; 1 tool calls, 0 without result, 0 results without call
    [SCRATCH]/repair_gzip_truncated/repaired.jsonl.gz: resumable as is by every API
    ----- stderr -----
    ");
}
