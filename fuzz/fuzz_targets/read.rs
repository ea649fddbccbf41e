//! The reader with format detection, on any bytes pushed in any chunking:
//! it never panics; the index depends neither on the chunking nor on a
//! split into parts read apart and appended; every byte
//! is in an entry, a document field, blanks and punctuation, or a
//! diagnostic that says it was skipped (`assert_lossless`); `retrace cat`
//! of the default branch is a byte-exact subsequence of the file.
//!
//! Control bytes: [0] the chunking, [1] the longest line (low bits: the
//! default, or a few hundred bytes so `line-too-long` is reached), [2]
//! where a second part starts (read as `retrace-io` reads a large file on
//! two threads: the same index).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrace_core::{FileId, ReaderOptions};
use retrace_fuzz::{
    assert_cat_is_subsequence, assert_lossless, chunking, fingerprint, read, read_in_parts, split,
};

fuzz_target!(|data: &[u8]| {
    let (control, bytes) = split(data);
    if bytes.starts_with(&[0x1f, 0x8b]) {
        // gzip has its own target, which knows the plain bytes.
        return;
    }
    let mut options = ReaderOptions::default();
    if control[1] & 3 == 3 {
        options.max_line = 16 + usize::from(control[1] >> 2) * 8;
    }
    let whole = read("f.jsonl", bytes, &[0..bytes.len()], options);
    let chunked = read("f.jsonl", bytes, &chunking(control[0], bytes), options);
    assert_eq!(
        fingerprint(&chunked),
        fingerprint(&whole),
        "the chunking changed the index"
    );
    if let Some(parts) = read_in_parts("f.jsonl", bytes, control[2], options) {
        assert_eq!(
            fingerprint(&parts),
            fingerprint(&whole),
            "reading in parts changed the index"
        );
    }
    assert_lossless(&whole, FileId(0), bytes);
    assert_cat_is_subsequence(&whole, bytes);
});
