//! Bodies shown as written with what a redacted copy would take out named:
//! the core's revealing source marks each such value in place (between
//! `REVEAL_OPEN` and `REVEAL_CLOSE`); this reads through it, takes the
//! marks out and keeps the values, so an answer's text is the session's
//! and the values come beside it for a reader to highlight.

use std::borrow::Cow;
use std::ops::Range;

use retrace_core::redact::{RedactingSource, REVEAL_CLOSE, REVEAL_OPEN};
use retrace_core::{FileId, Source, SourceError};

/// A revealing source with its marks taken out.
pub struct Revealed<'a> {
    inner: RedactingSource<'a>,
    /// The values marked so far, decoded (one level of JSON escapes), each
    /// once, in the order found.
    pub values: Vec<String>,
}

impl<'a> Revealed<'a> {
    pub fn new(inner: RedactingSource<'a>) -> Revealed<'a> {
        Revealed {
            inner,
            values: Vec::new(),
        }
    }
}

/// `bytes` without the marks; each marked value (as written, between its
/// marks) goes to `values`.
fn unmark(bytes: &[u8], values: &mut Vec<String>) -> Vec<u8> {
    let mut open = [0; 4];
    let open = REVEAL_OPEN.encode_utf8(&mut open).as_bytes().to_vec();
    let mut close = [0; 4];
    let close = REVEAL_CLOSE.encode_utf8(&mut close).as_bytes().to_vec();
    let mut out = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(at) = find(rest, &open) {
        out.extend_from_slice(&rest[..at]);
        rest = &rest[at + open.len()..];
        let end = find(rest, &close).unwrap_or(rest.len());
        let raw = &rest[..end];
        out.extend_from_slice(raw);
        // The value as its JSON string wrote it: read it back.
        let quoted = [b"\"", raw, b"\""].concat();
        if let Ok(value) = serde_json::from_slice::<String>(&quoted) {
            let value = value.replace([REVEAL_OPEN, REVEAL_CLOSE], "");
            if !value.trim().is_empty() && !values.contains(&value) {
                values.push(value);
            }
        }
        rest = &rest[(end + close.len()).min(rest.len())..];
    }
    out.extend_from_slice(rest);
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

impl Source for Revealed<'_> {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        let bytes = self.inner.read(file, range)?.into_owned();
        Ok(Cow::Owned(unmark(&bytes, &mut self.values)))
    }

    fn as_written(&mut self) -> Option<&mut dyn Source> {
        self.inner.as_written()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_come_out_and_values_are_kept_once() {
        let marked = format!(
            r#"{{"a":"mail {o}x@y.io{c} and {o}x@y.io{c}","b":"{o}caf\u00e9 \"k\"{c}"}}"#,
            o = REVEAL_OPEN,
            c = REVEAL_CLOSE
        );
        let mut values = Vec::new();
        let out = unmark(marked.as_bytes(), &mut values);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a":"mail x@y.io and x@y.io","b":"caf\u00e9 \"k\""}"#
        );
        assert_eq!(values, ["x@y.io", "café \"k\""]);
        let plain = br#"{"a":"nothing"}"#;
        assert_eq!(unmark(plain, &mut values), plain);
        assert_eq!(values.len(), 2);
    }
}
