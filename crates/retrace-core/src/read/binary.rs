//! Whether a file is a session at all: the first bytes of an image, an
//! archive, a program or other binary data are refused before reading,
//! with what they are ("a PNG image"), rather than read as thousands of
//! broken JSON lines. One rule for the CLI (through retrace-io) and the
//! viewer's worker.
//!
//! - **Magic bytes** name the common binaries people drop by mistake
//!   (images, PDF, archives, WebAssembly, ELF, Mach-O, PE, SQLite).
//! - **gzip** is looked into: a session may be gzipped, so the rule runs
//!   again on what the head inflates to; a gzip stream that does not
//!   inflate is refused as such.
//! - **Density**, for what has no magic: a JSON-lines session is text, so
//!   control bytes and invalid UTF-8 are rare. A crash can leave runs of
//!   NUL bytes inside a text session (what `retrace repair` mends), so NUL
//!   bytes count by runs, not by bytes: a few long runs are damage, NULs
//!   scattered everywhere are binary structure.

use crate::read::gzip::{GzDecoder, MAGIC as GZIP_MAGIC};

/// Bytes of a file's start the rule looks at; callers pass at least this
/// many when the file has them.
pub const BINARY_SAMPLE: usize = 8 << 10;

/// Starts of the binaries people most often open by mistake, and what to
/// call them.
const MAGIC: &[(&[u8], &str)] = &[
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"%PDF-", "a PDF document"),
    (b"PK\x03\x04", "a ZIP archive"),
    (b"PK\x05\x06", "a ZIP archive"),
    (b"\0asm", "a WebAssembly module"),
    (b"\x7fELF", "an ELF executable"),
    (b"\xfe\xed\xfa\xce", "a Mach-O executable"),
    (b"\xfe\xed\xfa\xcf", "a Mach-O executable"),
    (b"\xce\xfa\xed\xfe", "a Mach-O executable"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
    (
        b"\xca\xfe\xba\xbe",
        "a Mach-O universal binary or Java class",
    ),
    (b"MZ", "a Windows (PE) executable"),
    (b"SQLite format 3\0", "an SQLite database"),
    (b"\xfd7zXZ\0", "an xz archive"),
    (b"\x28\xb5\x2f\xfd", "a zstd archive"),
    (b"BZh", "a bzip2 archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
];

/// What `head` (a file's first bytes, at least [`BINARY_SAMPLE`] of them
/// when the file is that long) shows the file to be when it is not a
/// session: `Some("a PNG image")`; `None` for text, which is read.
pub fn binary_kind(head: &[u8]) -> Option<String> {
    if head.starts_with(&GZIP_MAGIC) {
        return match inflate_head(head) {
            Some(inner) => binary_kind(&inner).map(|what| format!("{what}, gzip-compressed")),
            None => Some("gzip-compressed data that does not decompress".to_owned()),
        };
    }
    if let Some((_, what)) = MAGIC.iter().find(|(magic, _)| head.starts_with(magic)) {
        // "MZ" and "BZh" are short: ask for the rest to look binary too,
        // so a text file starting with those letters is still read.
        let short = what.contains("PE") || what.contains("bzip2");
        if !short || looks_binary(head) {
            return Some((*what).to_owned());
        }
    }
    looks_binary(head).then(|| "binary data".to_owned())
}

/// The start of what a gzip stream holds, up to [`BINARY_SAMPLE`] bytes;
/// `None` when it does not inflate at all.
fn inflate_head(head: &[u8]) -> Option<Vec<u8>> {
    let mut decoder = GzDecoder::new();
    let mut inner = Vec::new();
    let mut scratch = Vec::new();
    let fed = decoder.feed(
        head,
        &mut scratch,
        BINARY_SAMPLE as u64,
        None,
        &mut |bytes| inner.extend_from_slice(bytes),
    );
    // A head cut mid-stream is fine; an error before any output is not.
    match fed {
        Err(_) if inner.is_empty() => None,
        _ => Some(inner),
    }
}

/// Density of what text does not hold: control bytes, invalid UTF-8,
/// and NUL bytes scattered in many short runs (see the module doc).
fn looks_binary(head: &[u8]) -> bool {
    let sample = &head[..head.len().min(BINARY_SAMPLE)];
    if sample.is_empty() {
        return false;
    }
    let len = sample.len();
    let controls = sample
        .iter()
        .filter(|&&b| matches!(b, 0x01..=0x08 | 0x0e..=0x1a | 0x1c..=0x1f | 0x7f))
        .count();
    let nul_runs = sample
        .iter()
        .zip(std::iter::once(&1u8).chain(sample))
        .filter(|(&b, &before)| b == 0 && before != 0)
        .count();
    let invalid = invalid_utf8(sample);
    controls * 100 > len || nul_runs >= 8 && nul_runs * 256 >= len || invalid * 10 > len
}

/// Bytes of `sample` in invalid UTF-8 sequences (a sequence cut at the
/// end of the sample is not counted).
fn invalid_utf8(mut sample: &[u8]) -> usize {
    let mut invalid = 0;
    loop {
        match std::str::from_utf8(sample) {
            Ok(_) => return invalid,
            Err(e) => match e.error_len() {
                Some(n) => {
                    invalid += n;
                    sample = &sample[e.valid_up_to() + n..];
                }
                None => return invalid,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_bytes_name_the_file() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0";
        assert_eq!(binary_kind(png).as_deref(), Some("a PNG image"));
        assert_eq!(
            binary_kind(b"\0asm\x01\0\0\0\x01\x07").as_deref(),
            Some("a WebAssembly module")
        );
        assert_eq!(
            binary_kind(b"\x7fELF\x02\x01\x01\0\0\0\0\0").as_deref(),
            Some("an ELF executable")
        );
        assert_eq!(
            binary_kind(b"%PDF-1.7\n").as_deref(),
            Some("a PDF document")
        );
    }

    #[test]
    fn text_that_starts_like_a_short_magic_is_read() {
        assert_eq!(binary_kind(b"MZ is not an executable\n"), None);
        assert_eq!(binary_kind(b"BZh, said the note\n"), None);
        let mut pe = b"MZ\x90\0\x03\0\0\0\x04\0\0\0\xff\xff\0\0".repeat(8);
        pe.extend_from_slice(&[0; 64]);
        assert_eq!(
            binary_kind(&pe).as_deref(),
            Some("a Windows (PE) executable")
        );
    }

    #[test]
    fn sessions_and_damaged_sessions_are_text() {
        let line = br#"{"type":"message","id":"a1","text":"h\u00e9llo \u2713 caf\xc3\xa9"}"#;
        let mut text = line.repeat(40);
        assert_eq!(binary_kind(&text), None);
        // NUL runs left by a crash, between lines: damage, not binary.
        for at in [200, 900, 1800] {
            text.splice(at..at, [0u8; 64]);
        }
        assert_eq!(binary_kind(&text), None);
        // A file of NUL bytes only (a preallocated log) is read too.
        assert_eq!(binary_kind(&[0; 4096]), None);
        assert_eq!(binary_kind(b""), None);
    }

    #[test]
    fn scattered_nul_bytes_and_control_bytes_are_binary() {
        let structure: Vec<u8> = (0u32..2048)
            .flat_map(|i| i.wrapping_mul(2_654_435_761).to_le_bytes())
            .collect();
        assert_eq!(binary_kind(&structure).as_deref(), Some("binary data"));
        let mut nuls = b"abcdefg\0".repeat(100);
        nuls.extend_from_slice(b"\n");
        assert_eq!(binary_kind(&nuls).as_deref(), Some("binary data"));
    }

    #[test]
    fn gzip_is_judged_by_what_it_holds() {
        use miniz_oxide::deflate::compress_to_vec;

        let gzip = |body: &[u8]| {
            let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
            out.extend(compress_to_vec(body, 6));
            out.extend(crate::read::crc32::crc32(body).to_le_bytes());
            out.extend((body.len() as u32).to_le_bytes());
            out
        };
        assert_eq!(binary_kind(&gzip(b"{\"a\":1}\n")), None);
        assert_eq!(
            binary_kind(&gzip(b"\x89PNG\r\n\x1a\n\0\0")).as_deref(),
            Some("a PNG image, gzip-compressed")
        );
        assert_eq!(
            binary_kind(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]).as_deref(),
            Some("gzip-compressed data that does not decompress")
        );
    }
}
