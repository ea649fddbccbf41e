//! gzip through the reader. The file is deflated here (one or two
//! members, a chosen level) and then maybe broken: cut short, a byte
//! flipped, bytes after its end; or the body is taken as the compressed
//! stream itself behind a gzip header.
//!
//! - Always: no panic, and the chunking of the compressed bytes changes
//!   nothing.
//! - Whole: the index is the plain file's, every byte of the inflated
//!   stream is accounted for (`assert_lossless`), every entry read back
//!   through `Inflated` is the plain file's bytes, and `cat` writes what it
//!   writes for the plain file.
//! - Cut short: a gzip diagnostic (unless the cut falls between members),
//!   and every entry that ends before it is the plain file's.
//! - A trailer byte flipped (CRC-32 or length): a gzip diagnostic.
//!
//! Control bytes: [0] the chunking, [1] level and members, [2] the damage,
//! [3] where it falls.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrace_core::{
    export_branch, DiagnosticKind, FileId, Inflated, ReaderOptions, Session, Source,
};
use retrace_fuzz::{assert_lossless, chunking, fingerprint, read, split};

fn member(plain: &[u8], level: u8) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
    out.extend(miniz_oxide::deflate::compress_to_vec(plain, level));
    out.extend(crc32fast::hash(plain).to_le_bytes());
    out.extend((plain.len() as u32).to_le_bytes());
    out
}

fn gzip_problem(s: &Session) -> Option<u64> {
    s.diagnostics()
        .iter()
        .filter(|d| {
            matches!(
                d.kind,
                DiagnosticKind::GzipCorrupt | DiagnosticKind::GzipTruncated
            )
        })
        .map(|d| d.offset)
        .min()
}

fn cat(s: &Session, source: &mut dyn Source) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(leaf) = s.tree().default_leaf() {
        export_branch(s, source, leaf, &mut out).expect("cat");
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let (control, plain) = split(data);
    let options = ReaderOptions::default();
    let damage = control[2] % 8;
    if damage == 7 {
        // The body as a compressed stream of its own.
        let gz = [&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3][..], plain].concat();
        let whole = read("f.jsonl.gz", &gz, &[0..gz.len()], options);
        let chunked = read("f.jsonl.gz", &gz, &chunking(control[0], &gz), options);
        assert_eq!(
            fingerprint(&chunked),
            fingerprint(&whole),
            "the chunking changed the index"
        );
        return;
    }
    let level = control[1] % 10;
    let (gz, boundary) = if control[1] >= 128 && !plain.is_empty() {
        let cut = usize::from(control[3]) * plain.len() / 256;
        let first = member(&plain[..cut], level);
        let n = first.len();
        ([first, member(&plain[cut..], level)].concat(), Some(n))
    } else {
        (member(plain, level), None)
    };
    let mut gz = gz;
    let at = usize::from(control[3]) * gz.len() / 256;
    match damage {
        1 | 2 => gz.truncate(at),
        3 if at >= 10 => gz[at] ^= 1 << (control[0] % 8),
        4 => gz.extend_from_slice(b"garbage after the end"),
        5 => {
            let end = gz.len() - 1 - usize::from(control[3]) % 8;
            gz[end] ^= 0x55;
        }
        _ => {}
    }
    let whole = read("f.jsonl.gz", &gz, &[0..gz.len()], options);
    let chunked = read("f.jsonl.gz", &gz, &chunking(control[0], &gz), options);
    assert_eq!(
        fingerprint(&chunked),
        fingerprint(&whole),
        "the chunking changed the index"
    );
    let reference = read("f.jsonl", plain, &[0..plain.len()], options);
    match damage {
        0 | 6 => {
            assert_eq!(
                fingerprint(&whole),
                fingerprint(&reference),
                "gzip changed the index"
            );
            assert_lossless(&whole, FileId(0), plain);
            let mut inflated = Inflated::new(&gz[..], whole.files());
            for e in whole.entries() {
                let got = inflated
                    .read(FileId(0), e.range())
                    .expect("an entry's bytes");
                assert_eq!(
                    &*got,
                    &plain[e.range().start as usize..e.range().end as usize]
                );
            }
            assert_eq!(
                cat(&whole, &mut inflated),
                cat(&reference, &mut &plain[..]),
                "cat"
            );
        }
        1 | 2 if at < gz.len() && Some(at) != boundary => {
            let stop = gzip_problem(&whole).expect("a cut stream is reported");
            for e in whole.entries() {
                if e.range().end < stop {
                    let same = reference
                        .entries()
                        .iter()
                        .any(|r| (r.offset, r.len, r.line) == (e.offset, e.len, e.line));
                    assert!(
                        same,
                        "entry at {} before the cut differs from the plain file's",
                        e.offset
                    );
                }
            }
        }
        5 => {
            assert!(
                gzip_problem(&whole).is_some(),
                "a broken trailer is reported"
            );
        }
        _ => {}
    }
});
