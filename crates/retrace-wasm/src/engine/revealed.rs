//! Bodies shown as written with what a redacted copy would take out named:
//! the core's revealing source marks each such value in place (between
//! `REVEAL_OPEN` and `REVEAL_CLOSE`), and so does a hiding one for what a
//! review marked "not a secret" (`Rules::marking_exceptions`); this reads
//! through either, takes the marks out and keeps the values, so an
//! answer's text carries no marks and the values come beside it for a
//! reader to highlight. Search snippets, cut by the core, lose theirs in
//! `unmark_text`.

use std::borrow::Cow;
use std::ops::Range;

use retrace_core::redact::{REVEAL_CLOSE, REVEAL_OPEN};
use retrace_core::{FileId, Source, SourceError};

/// A marking source with its marks taken out.
pub struct Revealed<'a> {
    inner: &'a mut dyn Source,
    /// The values marked so far, decoded (one level of JSON escapes), each
    /// once, in the order found.
    pub values: Vec<String>,
}

impl<'a> Revealed<'a> {
    pub fn new(inner: &'a mut dyn Source) -> Revealed<'a> {
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

/// Takes the marks out of `text` (a search snippet: plain text, cut where
/// the core cut it, its marks kept paired); each marked piece goes to
/// `values`, once.
pub fn unmark_text(text: &mut String, values: &mut Vec<String>) {
    if !text.contains(REVEAL_OPEN) {
        return;
    }
    let mut rest = text.as_str();
    while let Some(at) = rest.find(REVEAL_OPEN) {
        rest = &rest[at + REVEAL_OPEN.len_utf8()..];
        let end = rest.find(REVEAL_CLOSE).unwrap_or(rest.len());
        let value = &rest[..end];
        if !value.trim().is_empty() && !values.iter().any(|v| v == value) {
            values.push(value.to_owned());
        }
        rest = &rest[end..];
    }
    text.retain(|c| c != REVEAL_OPEN && c != REVEAL_CLOSE);
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

    #[test]
    fn a_snippet_loses_its_marks_and_names_what_they_held() {
        let mut values = vec!["x@y.io".to_owned()];
        // As the core cuts a snippet inside a marked value: its marks
        // paired again, the cut outside them.
        let mut snippet = format!(
            "…mail {o}x@y.io{c} or {o}Jane.Doe@q.io{c}, key {o}AKIA2E0A{c}…",
            o = REVEAL_OPEN,
            c = REVEAL_CLOSE
        );
        unmark_text(&mut snippet, &mut values);
        assert_eq!(snippet, "…mail x@y.io or Jane.Doe@q.io, key AKIA2E0A…");
        assert_eq!(values, ["x@y.io", "Jane.Doe@q.io", "AKIA2E0A"]);
        let mut plain = "no marks".to_owned();
        unmark_text(&mut plain, &mut values);
        assert_eq!(plain, "no marks");
        assert_eq!(values.len(), 3);
    }
}
