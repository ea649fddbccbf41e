//! A [`Source`] whose bytes come out redacted: what a view reads through
//! it (bodies, tree previews, search snippets) shows typed placeholders
//! where the rules find secrets and personal data.
//!
//! Each read is one entry (a JSON line, or one element of a JSON
//! document), redacted on its own by a fresh [`Redactor`] in
//! [`Mode::Typed`]: a placeholder names the kind of value it hides
//! (`[REDACTED:email]`), which needs no numbering across the session, so any
//! entry can be read in any order and always reads the same.
//!
//! A recording source ([`RedactingSource::recording`]) also keeps account
//! of what it hid, once per range however often a view reads it again:
//! totals ([`RedactingSource::summary`]) and each finding, placed in its
//! file, for a report of what an export took out.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;
use std::sync::Arc;

use super::{Finding, Mode, Redactor, Rules, Summary};
use crate::{FileId, Source, SourceError};

/// Where a recording source sends each finding: the file it is in, and
/// the finding with its line and offset in that file.
pub type FindingSink<'a> = &'a mut dyn FnMut(FileId, Finding);

/// What a recording source has hidden so far.
struct Record<'a> {
    summary: Summary,
    /// The ranges already accounted for, by file and start.
    seen: HashSet<(FileId, u64)>,
    found: FindingSink<'a>,
}

/// Reads through `inner` and redacts what it gives.
///
/// Ranges are expected to be whole entries (what [`crate::Session`] asks
/// for): a range that cuts a JSON value in two is redacted as the broken
/// line it is.
pub struct RedactingSource<'a> {
    inner: &'a mut dyn Source,
    rules: Arc<Rules>,
    buf: Vec<u8>,
    /// The 1-based line a range starts on, for the rules' single-finding
    /// exceptions; without it they do not apply.
    line_of: Option<&'a dyn Fn(FileId, u64) -> Option<u64>>,
    /// Values are marked in place, not replaced.
    reveal: bool,
    /// What it hid, when it keeps account (boxed: most sources keep
    /// none).
    record: Option<Box<Record<'a>>>,
}

impl<'a> RedactingSource<'a> {
    /// Bytes of `inner`, redacted by `rules` with typed placeholders.
    pub fn new(inner: &'a mut dyn Source, rules: Arc<Rules>) -> RedactingSource<'a> {
        RedactingSource {
            inner,
            rules,
            buf: Vec::new(),
            line_of: None,
            reveal: false,
            record: None,
        }
    }

    /// Bytes of `inner` as written, each value `rules` would hide between
    /// [`REVEAL_OPEN`](super::REVEAL_OPEN) and
    /// [`REVEAL_CLOSE`](super::REVEAL_CLOSE): what a view shows when
    /// sensitive data is shown, to highlight what a redacted copy takes
    /// out.
    pub fn revealing(inner: &'a mut dyn Source, rules: Arc<Rules>) -> RedactingSource<'a> {
        RedactingSource {
            reveal: true,
            ..RedactingSource::new(inner, rules)
        }
    }

    /// As [`RedactingSource::new`], told the line each range starts on
    /// (`line_of(file, offset)`), so findings the rules leave in place one
    /// by one (a review's exceptions) show as they are.
    pub fn with_lines(
        inner: &'a mut dyn Source,
        rules: Arc<Rules>,
        line_of: &'a dyn Fn(FileId, u64) -> Option<u64>,
    ) -> RedactingSource<'a> {
        RedactingSource {
            line_of: Some(line_of),
            ..RedactingSource::new(inner, rules)
        }
    }
}

impl<'a> RedactingSource<'a> {
    /// Also keeps account of what it hides: the totals
    /// ([`RedactingSource::summary`]) and each finding, given to `found`
    /// with its file, once per range however often the range is read
    /// again. A finding's line and offset are its file's when the source
    /// knows each range's line ([`RedactingSource::with_lines`]), else
    /// counted from the range's start. Not with a revealing source (it
    /// hides nothing).
    pub fn recording(self, found: FindingSink<'a>) -> RedactingSource<'a> {
        RedactingSource {
            record: Some(Box::new(Record {
                summary: Summary::default(),
                seen: HashSet::new(),
                found,
            })),
            ..self
        }
    }

    /// What a recording source has hidden so far (nothing otherwise):
    /// lines and bytes of the ranges read, findings per kind. The bytes
    /// are the ranges' own.
    pub fn summary(&self) -> Summary {
        self.record
            .as_ref()
            .map(|r| r.summary.clone())
            .unwrap_or_default()
    }
}

impl Source for RedactingSource<'_> {
    fn read(&mut self, file: FileId, range: Range<u64>) -> Result<Cow<'_, [u8]>, SourceError> {
        let first = self
            .line_of
            .and_then(|line_of| line_of(file, range.start))
            .map(|line| line.saturating_sub(1));
        let start = range.start;
        let bytes = self.inner.read(file, range)?;
        let mut redactor = Redactor::new(self.rules.clone(), Mode::default());
        redactor.set_exception_lines(first);
        redactor.set_reveal(self.reveal);
        self.buf.clear();
        redactor.push(&bytes, &mut self.buf);
        // The entry as a whole line, so the redactor does not hold it back
        // as an unfinished one; the newline is taken off again.
        redactor.push(b"\n", &mut self.buf);
        redactor.finish(&mut self.buf);
        if self.buf.last() == Some(&b'\n') {
            self.buf.pop();
        }
        let record = self.record.as_mut();
        if let Some(record) = record.filter(|r| !r.seen.contains(&(file, start))) {
            record.seen.insert((file, start));
            // Lines and offsets of the file, not of the range.
            let before = first.unwrap_or(0);
            let mut summary = redactor.summary().clone();
            for b in &mut summary.broken {
                b.line += before;
                b.offset += start;
            }
            for l in &mut summary.leftover {
                l.line += before;
            }
            // The newline pushed above is not the range's.
            summary.bytes -= 1;
            record.summary.merge(&summary);
            for mut f in redactor.drain_findings() {
                f.line += before;
                f.offset += start;
                (record.found)(file, f);
            }
        }
        Ok(Cow::Borrowed(&self.buf))
    }

    /// Redaction only replaces: a search can look for its words in the
    /// bytes as written, then read the few candidates redacted.
    fn as_written(&mut self) -> Option<&mut dyn Source> {
        Some(&mut *self.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::{REVEAL_CLOSE, REVEAL_OPEN};

    #[test]
    fn bodies_read_with_secrets_hidden() {
        let line = br#"{"type":"message","message":{"role":"user","content":"my key is AKIA2E0A8F3B244C9986"}}"#;
        let rules = Arc::new(Rules::builtin());
        let mut bytes: &[u8] = line;
        let mut source = RedactingSource::new(&mut bytes, rules);
        let out = source.read(FileId(0), 0..line.len() as u64).unwrap();
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            r#"{"type":"message","message":{"role":"user","content":"my key is [REDACTED:aws-access-key-id]"}}"#
        );
        // The bytes as written stay reachable, unchanged.
        let written = source.as_written().unwrap();
        let raw = written.read(FileId(0), 0..line.len() as u64).unwrap();
        assert_eq!(&raw[..], &line[..]);
    }

    #[test]
    fn a_pretty_printed_element_is_redacted_whole() {
        // One element of a JSON document, over several lines.
        let element = b"{\n  \"type\": \"user\",\n  \"content\": \"mail me at jane.doe@quantumleap-labs.io\"\n}";
        let rules = Arc::new(Rules::builtin());
        let mut bytes: &[u8] = element;
        let mut source = RedactingSource::new(&mut bytes, rules);
        let out = source.read(FileId(0), 0..element.len() as u64).unwrap();
        let text = std::str::from_utf8(&out).unwrap();
        assert!(!text.contains("jane.doe"), "{text}");
        assert!(text.contains("[REDACTED:email]"), "{text}");
        assert!(text.starts_with("{\n  \"type\": \"user\","), "{text}");
        assert!(serde_json::from_str::<serde_json::Value>(text).is_ok());
    }

    #[test]
    fn single_finding_exceptions_need_the_line() {
        // Two entries with the same address; a review left the one on
        // line 2 in place.
        let text =
            "{\"t\":\"jane.doe@quantumleap-labs.io\"}\n{\"t\":\"jane.doe@quantumleap-labs.io\"}\n";
        let exceptions = crate::redact::Exceptions {
            kinds: Vec::new(),
            findings: vec![crate::redact::AllowedFinding {
                kind: "email".into(),
                line: 2,
                hash: crate::redact::value_hash(b"jane.doe@quantumleap-labs.io"),
            }],
        };
        let rules = Arc::new(Rules::builtin().with_exceptions(&exceptions).unwrap());
        let second = 37..74u64;
        let line_of = |_: FileId, at: u64| Some(if at < 37 { 1 } else { 2 });
        let mut bytes: &[u8] = text.as_bytes();
        let mut source = RedactingSource::with_lines(&mut bytes, rules.clone(), &line_of);
        let first = source.read(FileId(0), 0..36).unwrap().into_owned();
        assert!(!String::from_utf8(first).unwrap().contains("jane"));
        let shown = source.read(FileId(0), second.clone()).unwrap().into_owned();
        assert!(String::from_utf8(shown).unwrap().contains("jane.doe"));
        // Without lines, no single exception applies (none to a wrong line).
        let mut bytes: &[u8] = text.as_bytes();
        let mut source = RedactingSource::new(&mut bytes, rules);
        let hidden = source.read(FileId(0), second).unwrap().into_owned();
        assert!(!String::from_utf8(hidden).unwrap().contains("jane"));
    }

    #[test]
    fn a_revealing_source_marks_values_in_place() {
        let line = br#"{"message":{"content":"key AKIA2E0A8F3B244C9986 and mail jane.doe@quantumleap-labs.io"}}"#;
        let rules = Arc::new(Rules::builtin());
        let mut bytes: &[u8] = line;
        let mut source = RedactingSource::revealing(&mut bytes, rules);
        let out = source.read(FileId(0), 0..line.len() as u64).unwrap();
        let text = std::str::from_utf8(&out).unwrap();
        assert_eq!(
            text,
            "{\"message\":{\"content\":\"key \u{E000}AKIA2E0A8F3B244C9986\u{E001} and mail \u{E000}jane.doe@quantumleap-labs.io\u{E001}\"}}"
        );
        // Still JSON, the values as written once the marks are gone.
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let content = value["message"]["content"].as_str().unwrap();
        assert_eq!(
            content.replace(['\u{E000}', '\u{E001}'], "").as_bytes(),
            &line[23..line.len() - 3]
        );
    }

    #[test]
    fn reviewed_exceptions_show_marked_while_the_rest_is_hidden() {
        // A key and two addresses; a review left the kind `email` in place
        // (so both addresses), or one address by its line and hash.
        let line = br#"{"message":{"content":"key AKIA2E0A8F3B244C9986, mail jane.doe@quantumleap-labs.io or bob.ray@quantumleap-labs.io"}}"#;
        let kinds = crate::redact::Exceptions {
            kinds: vec!["email".into()],
            findings: Vec::new(),
        };
        let rules = Arc::new(Rules::builtin().marking_exceptions(&kinds).unwrap());
        let mut bytes: &[u8] = line;
        let mut source = RedactingSource::new(&mut bytes, rules);
        let out = source.read(FileId(0), 0..line.len() as u64).unwrap();
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            "{\"message\":{\"content\":\"key [REDACTED:aws-access-key-id], mail \u{E000}jane.doe@quantumleap-labs.io\u{E001} or \u{E000}bob.ray@quantumleap-labs.io\u{E001}\"}}"
        );
        let one = crate::redact::Exceptions {
            kinds: Vec::new(),
            findings: vec![crate::redact::AllowedFinding {
                kind: "email".into(),
                line: 7,
                hash: crate::redact::value_hash(b"bob.ray@quantumleap-labs.io"),
            }],
        };
        let rules = Arc::new(Rules::builtin().marking_exceptions(&one).unwrap());
        let line_of = |_: FileId, _: u64| Some(7);
        let mut bytes: &[u8] = line;
        let mut source = RedactingSource::with_lines(&mut bytes, rules.clone(), &line_of);
        let out = source.read(FileId(0), 0..line.len() as u64).unwrap();
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            "{\"message\":{\"content\":\"key [REDACTED:aws-access-key-id], mail [REDACTED:email] or \u{E000}bob.ray@quantumleap-labs.io\u{E001}\"}}"
        );
        // Without the marks, the bytes a download with these exceptions
        // writes.
        let plain = Arc::new(Rules::builtin().with_exceptions(&one).unwrap());
        let mut bytes: &[u8] = line;
        let mut source = RedactingSource::with_lines(&mut bytes, plain, &line_of);
        let written = source.read(FileId(0), 0..line.len() as u64).unwrap();
        assert_eq!(
            std::str::from_utf8(&written).unwrap(),
            std::str::from_utf8(&out)
                .unwrap()
                .replace(['\u{E000}', '\u{E001}'], "")
        );
        // The marks are the ones a search reads across.
        assert_eq!([REVEAL_OPEN, REVEAL_CLOSE], crate::session::SEARCH_MARKS);
    }

    #[test]
    fn a_recording_source_accounts_for_each_range_once() {
        // Two entries on lines 3 and 4 of a file, the second with two
        // findings; the second is read three times.
        let first = br#"{"t":"nothing here"}"#;
        let second = br#"{"t":"key AKIA2E0A8F3B244C9986 mail jane.doe@quantumleap-labs.io"}"#;
        let text = [&first[..], b"\n", &second[..], b"\n"].concat();
        let at = first.len() as u64 + 1;
        let line_of = |_: FileId, offset: u64| Some(if offset < at { 3 } else { 4 });
        let mut found = Vec::new();
        let mut sink = |file: FileId, f: Finding| found.push((file, f));
        let rules = Arc::new(Rules::builtin());
        let mut bytes: &[u8] = &text;
        let mut source =
            RedactingSource::with_lines(&mut bytes, rules.clone(), &line_of).recording(&mut sink);
        source.read(FileId(0), 0..first.len() as u64).unwrap();
        for _ in 0..3 {
            let out = source
                .read(FileId(0), at..at + second.len() as u64)
                .unwrap();
            assert!(!String::from_utf8_lossy(&out).contains("jane.doe"));
        }
        let summary = source.summary();
        assert_eq!(summary.findings(), 2);
        assert_eq!((summary.lines, summary.lines_changed), (2, 1));
        assert_eq!(summary.bytes, (first.len() + second.len()) as u64);
        drop(source);
        assert_eq!(found.len(), 2);
        for (file, f) in &found {
            assert_eq!((*file, f.line), (FileId(0), 4));
            // The offset is the file's: the match's first byte.
            let value = &text[f.offset as usize..];
            assert!(
                value.starts_with(b"AKIA") || value.starts_with(b"jane.doe"),
                "{}",
                String::from_utf8_lossy(value)
            );
        }
        assert_eq!(
            [found[0].1.kind, found[1].1.kind].map(|k| rules.kind(k).name.clone()),
            ["aws-access-key-id", "email"]
        );
    }

    #[test]
    fn errors_of_the_inner_source_come_through() {
        let rules = Arc::new(Rules::builtin());
        let mut bytes: &[u8] = b"{}";
        let mut source = RedactingSource::new(&mut bytes, rules);
        assert!(source.read(FileId(0), 0..10).is_err());
        assert!(source.read(FileId(1), 0..1).is_err());
    }
}
