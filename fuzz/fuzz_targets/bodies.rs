//! Bodies and their normalization, for every format: the file read as a
//! format chosen by the input (or detected), then the deep check, the
//! context of every tip (at most 8) with payloads, the rows of the
//! default branch and each row's message, and each entry's messages (at
//! most 256). Beyond no panic:
//!
//! - every diagnostic of the deep check points inside the file;
//! - every message of a context comes from entries of its branch;
//! - rows cover the branch: each entry on at most one row, a row's
//!   entries in file order and on the branch;
//! - a message survives serde (what the viewer's worker sends the page):
//!   serialized and read back, it is the same message but for the fields
//!   that are not serialized (`runs`, `part_extras`, `extra`).
//!
//! Control bytes: [0] the chunking, [1] the format (odd: forced, one of
//! `Format::NAMES`; even: detected).
#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use retrace_core::{ContextOptions, EntryId, Message, ReaderOptions};
use retrace_fuzz::{chunking, format_of, read, split};

/// What crosses as JSON: all but `runs`, `part_extras` and `extra`,
/// which are not serialized (the viewer gets runs merged into results;
/// provider data stays in the engine).
fn round_trips(m: &Message) {
    let json = serde_json::to_string(m).expect("a message serializes");
    let back: Message = serde_json::from_str(&json).expect("a message reads back");
    let mut sent = m.clone();
    sent.runs.clear();
    sent.part_extras.clear();
    sent.extra = None;
    assert_eq!(back, sent, "a message changed through serde: {json}");
}

fuzz_target!(|data: &[u8]| {
    let (control, bytes) = split(data);
    let options = ReaderOptions {
        format: format_of(control[1]),
        ..ReaderOptions::default()
    };
    let s = read("f.jsonl", bytes, &chunking(control[0], bytes), options);
    let check = s.check(&mut &bytes[..]).expect("bytes in memory");
    let lines = s.files()[0].lines as u64;
    for d in &check.diagnostics {
        assert!(
            d.offset <= bytes.len() as u64,
            "check diagnostic past the end: {d:?}"
        );
        assert!(
            u64::from(d.line) <= lines + 1,
            "check diagnostic past the last line: {d:?}"
        );
    }
    for &tip in s.tree().tips().iter().take(8) {
        let branch = s.branch(tip);
        let context = s
            .context_with(tip, &mut &bytes[..], ContextOptions { payloads: true })
            .expect("bytes in memory");
        for m in &context {
            round_trips(m);
            for label in &m.entries {
                let id = s.find(label).unwrap_or_else(|| panic!("no entry {label}"));
                let e = s.entry(id);
                assert!(
                    branch
                        .iter()
                        .any(|&b| s.entry(b).offset == e.offset || s.id(b) == s.id(id)),
                    "{label} is not on the branch"
                );
            }
        }
    }
    if let Some(leaf) = s.tree().default_leaf() {
        let on_branch: HashSet<EntryId> = s.branch(leaf).into_iter().collect();
        let mut seen = HashSet::new();
        for row in s.rows(leaf) {
            for pair in row.entries.windows(2) {
                assert!(
                    pair[0] < pair[1],
                    "a row's entries out of file order: {row:?}"
                );
            }
            for e in &row.entries {
                assert!(seen.insert(*e), "entry {e:?} on two rows");
                assert!(on_branch.contains(e), "row entry {e:?} not on the branch");
            }
            if let Some(m) = s
                .row_message(&row, &mut &bytes[..])
                .expect("bytes in memory")
            {
                round_trips(&m);
            }
        }
    }
    for i in 0..s.entries().len().min(256) {
        for m in s
            .messages(EntryId(i as u32), &mut &bytes[..])
            .expect("bytes in memory")
        {
            round_trips(&m);
        }
    }
});
