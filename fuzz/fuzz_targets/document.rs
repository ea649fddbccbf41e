//! The document framer, through the reader: the bytes behind the opening
//! of a framed document (`[`, `{"messages": [`, a Gemini CLI session's
//! `{"sessionId": …, "messages": [`, …), with or without its close, in
//! any chunking, or in two parts. The same properties as `read`: no panic, the chunking
//! changes nothing, every byte in an entry, a field, punctuation or a
//! diagnostic, `cat` a subsequence.
//!
//! Control bytes: [0] the chunking, [1] the opening and close, [2] the
//! longest element (the default, or a few hundred bytes), [3] where a
//! second part starts (framed apart from where `ElementStarts` guesses an
//! element begins, as `retrace-io` reads a large document on two
//! threads: the same index, whether the guess was right or not).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrace_core::{FileId, ReaderOptions};
use retrace_fuzz::{
    assert_cat_is_subsequence, assert_lossless, chunking, fingerprint, read, read_in_parts, split,
};

const OPENINGS: [&[u8]; 6] = [
    b"",
    b"[",
    b"{\"messages\": [",
    b"{\n  \"sessionId\": \"s\",\n  \"messages\": [\n",
    b"{\"system\":\"x\",\"contents\":[",
    b"{\"input\":[",
];

fuzz_target!(|data: &[u8]| {
    let (control, body) = split(data);
    let opening = OPENINGS[usize::from(control[1]) % OPENINGS.len()];
    let close: &[u8] = match (control[1] >> 4) % 4 {
        0 => b"",
        1 => b"]",
        2 => b"]}",
        _ => b"\n  ]\n}\n",
    };
    let bytes = [opening, body, close].concat();
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return;
    }
    let mut options = ReaderOptions::default();
    if control[2] & 3 == 3 {
        options.max_line = 16 + usize::from(control[2] >> 2) * 8;
    }
    let whole = read("f.json", &bytes, &[0..bytes.len()], options);
    let chunked = read("f.json", &bytes, &chunking(control[0], &bytes), options);
    assert_eq!(
        fingerprint(&chunked),
        fingerprint(&whole),
        "the chunking changed the index"
    );
    if let Some(parts) = read_in_parts("f.json", &bytes, control[3], options) {
        assert_eq!(
            fingerprint(&parts),
            fingerprint(&whole),
            "reading in parts changed the index"
        );
    }
    assert_lossless(&whole, FileId(0), &bytes);
    assert_cat_is_subsequence(&whole, &bytes);
});
