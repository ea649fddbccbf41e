//! Sensitive data: a background scan of the whole session that a review
//! lists, and redacted downloads with the same bytes as `retrace redact`.
//! (Bodies are shown with it hidden through the core's
//! `redact::RedactingSource`.)
//!
//! Scans and downloads read the files in slices between requests (the
//! engine's `tick`), so a gigabyte session stays navigable while they run.

use std::collections::BTreeMap;
use std::sync::Arc;

use retrace_core::redact::{
    hash_hex, parse_hash, AllowedFinding, Exceptions, Finding, Mode, Redactor, Rules,
};
use retrace_core::{EntryId, FileId, Session, Source};

use crate::protocol::{Allow, EngineError, ReviewAllow, ScanReport, SensitiveFinding};

/// Bytes read per slice of a background job: a few tens of milliseconds
/// of work, so a request waits at most that long.
pub const SLICE: u64 = 2 << 20;
/// Findings listed in the review pane at most (all are counted).
pub const LISTED_MAX: usize = 2_000;

/// A job reading every file of the session through a redactor.
struct Pass {
    file: u32,
    at: u64,
    redactor: Option<Redactor>,
    mode: Mode,
    verify: bool,
}

impl Pass {
    fn new(file: u32, mode: Mode, verify: bool) -> Pass {
        Pass {
            file,
            at: 0,
            redactor: None,
            mode,
            verify,
        }
    }

    /// Reads and redacts the next slice of `self.file` into `out`; `true`
    /// when the file is done (its last bytes are in `out`).
    fn step<S: Source + ?Sized>(
        &mut self,
        session: &Session,
        source: &mut S,
        rules: &Arc<Rules>,
        out: &mut Vec<u8>,
    ) -> Result<bool, String> {
        let size = session.files()[self.file as usize].size;
        let redactor = self.redactor.get_or_insert_with(|| {
            let mut r = Redactor::new(rules.clone(), self.mode);
            r.set_verify(self.verify);
            r
        });
        let end = (self.at + SLICE).min(size);
        if self.at < end {
            let file = u16::try_from(self.file).map_err(|_| format!("no file {}", self.file))?;
            let bytes = source
                .read(FileId(file), self.at..end)
                .map_err(|e| e.to_string())?;
            redactor.push(&bytes, out);
            self.at = end;
        }
        if self.at >= size {
            redactor.finish(out);
            return Ok(true);
        }
        Ok(false)
    }
}

/// The background scan of every file, for the review pane.
pub struct Scan {
    pass: Pass,
    /// Bytes of files finished before the current one.
    base: u64,
    counts: BTreeMap<String, u64>,
    listed: usize,
    pub finished: bool,
}

impl Default for Scan {
    fn default() -> Self {
        Scan::new()
    }
}

impl Scan {
    pub fn new() -> Scan {
        Scan {
            // Counting needs no re-scan of replaced lines.
            pass: Pass::new(0, Mode::Typed, false),
            base: 0,
            counts: BTreeMap::new(),
            listed: 0,
            finished: false,
        }
    }

    /// One slice; returns what to report.
    pub fn step<S: Source + ?Sized>(
        &mut self,
        session: &Session,
        source: &mut S,
        rules: &Arc<Rules>,
    ) -> Result<ScanReport, String> {
        let mut out = Vec::new();
        let files = session.files().len() as u32;
        let mut findings = Vec::new();
        if self.pass.file < files {
            let done = self.pass.step(session, source, rules, &mut out)?;
            if let Some(r) = self.pass.redactor.as_mut() {
                for f in r.drain_findings() {
                    *self
                        .counts
                        .entry(rules.kind(f.kind).name.clone())
                        .or_default() += 1;
                    if self.listed < LISTED_MAX {
                        self.listed += 1;
                        findings.push(place(session, self.pass.file, &f, rules));
                    }
                }
            }
            if done {
                self.base += session.files()[self.pass.file as usize].size;
                self.pass = Pass::new(self.pass.file + 1, Mode::Typed, false);
            }
        }
        self.finished = self.pass.file >= files;
        let total: u64 = session.files().iter().map(|f| f.size).sum();
        Ok(ScanReport {
            done: if self.finished {
                total
            } else {
                self.base + self.pass.at
            },
            total,
            finished: self.finished,
            counts: self.counts.iter().map(|(k, n)| (k.clone(), *n)).collect(),
            findings,
        })
    }
}

/// Where a finding is: its entry and a leaf whose branch shows it.
fn place(session: &Session, file: u32, f: &Finding, rules: &Rules) -> SensitiveFinding {
    let info = &session.files()[file as usize];
    let own = &session.entries()[info.first_entry as usize..info.end_entry as usize];
    let line = f.line as u32;
    let entry = own
        .binary_search_by_key(&line, |e| e.line)
        .ok()
        .map(|i| EntryId(info.first_entry + i as u32));
    let leaf = entry.filter(|&e| session.tree().contains(e)).map(|e| {
        let mut leaf = e;
        while let Some(next) = session.tree().continuation(leaf) {
            leaf = next;
        }
        leaf.0
    });
    SensitiveFinding {
        kind: rules.kind(f.kind).name.clone(),
        file,
        line: f.line,
        path: f.path.clone(),
        entry: entry.map(|e| e.0),
        leaf,
        hash: hash_hex(f.hash),
    }
}

/// A redacted copy of one file being written; its bytes go to the host
/// slice by slice (a gigabyte copy is never held here).
pub struct Download {
    pass: Pass,
    pub file: u32,
    /// The request it answers.
    pub ticket: u32,
    /// The built-in rules with the review's exceptions, when it made some.
    pub rules: Option<Arc<Rules>>,
}

/// The built-in rules with what the review marked "not a secret": kinds,
/// and findings (kind, line, hash in hex), as `retrace redact --rules`
/// reads them from the exported file.
pub fn reviewed_rules(
    disable: &[String],
    allow: &[Allow],
) -> Result<Option<Arc<Rules>>, EngineError> {
    if disable.is_empty() && allow.is_empty() {
        return Ok(None);
    }
    let findings = allow.iter().map(|a| (&a.kind, a.line, &a.hash));
    Rules::builtin()
        .with_exceptions(&exceptions(disable, findings)?)
        .map(|r| Some(Arc::new(r)))
        .map_err(EngineError::bad_request)
}

/// The built-in rules for bodies shown with sensitive data hidden, with
/// what the review marked "not a secret" (kinds, and findings in any file
/// of the session) marked in place rather than hidden: shown as written,
/// for a reader to highlight. A finding's line is [`session_line`]'s, as
/// the engine reads bodies (`Open::shown`).
pub fn review_rules(
    disable: &[String],
    allow: &[ReviewAllow],
) -> Result<Option<Arc<Rules>>, EngineError> {
    if disable.is_empty() && allow.is_empty() {
        return Ok(None);
    }
    let findings = allow
        .iter()
        .map(|a| (&a.kind, session_line(a.file, a.line), &a.hash));
    Rules::builtin()
        .marking_exceptions(&exceptions(disable, findings)?)
        .map(|r| Some(Arc::new(r)))
        .map_err(EngineError::bad_request)
}

/// A line of a session's file as one number for every file: the file in
/// the high bits. A rules file names the lines of one file; the view's
/// rules hold the findings of all of them, so lines are numbered this way
/// in them and where bodies are read.
pub fn session_line(file: u32, line: u64) -> u64 {
    (u64::from(file) << 40) | line
}

/// Kinds and findings (kind, line, hash in hex) as the core's exceptions.
fn exceptions<'a>(
    disable: &[String],
    findings: impl Iterator<Item = (&'a String, u64, &'a String)>,
) -> Result<Exceptions, EngineError> {
    let mut out = Exceptions {
        kinds: disable.to_vec(),
        findings: Vec::new(),
    };
    for (kind, line, hash) in findings {
        let hash = parse_hash(hash).ok_or_else(|| {
            EngineError::bad_request(format!("a finding hash `{hash}` (16 hex digits)"))
        })?;
        out.findings.push(AllowedFinding {
            kind: kind.clone(),
            line,
            hash,
        });
    }
    Ok(out)
}

impl Download {
    pub fn new(ticket: u32, file: u32, mode: Mode, rules: Option<Arc<Rules>>) -> Download {
        Download {
            // As the CLI: changed lines are re-scanned.
            pass: Pass::new(file, mode, true),
            file,
            ticket,
            rules,
        }
    }

    /// One slice, its redacted bytes into `out`; `true` when the file is
    /// written.
    pub fn step<S: Source + ?Sized>(
        &mut self,
        session: &Session,
        source: &mut S,
        rules: &Arc<Rules>,
        out: &mut Vec<u8>,
    ) -> Result<bool, String> {
        let rules = self.rules.as_ref().unwrap_or(rules);
        self.pass.step(session, source, rules, out)
    }

    /// Bytes read of the file so far, and its size.
    pub fn progress(&self, session: &Session) -> (u64, u64) {
        (self.pass.at, session.files()[self.file as usize].size)
    }
}

/// The name a redacted copy of `name` is saved under.
pub fn download_name(name: &str) -> String {
    edited_name(name, "redacted")
}

/// The name a changed copy of `name` is saved under: `{stem}.{what}.{ext}`
/// (`session.fork.jsonl`, `session.sealed.jsonl`), gzip dropped.
pub fn edited_name(name: &str, what: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let base = base.strip_suffix(".gz").unwrap_or(base);
    match base.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{stem}.{what}.{ext}"),
        _ => format!("{base}.{what}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacted_names_keep_the_extension_and_drop_gzip() {
        assert_eq!(
            download_name("/a/b/session.jsonl"),
            "session.redacted.jsonl"
        );
        assert_eq!(download_name("rollout.jsonl.gz"), "rollout.redacted.jsonl");
        assert_eq!(download_name("notes"), "notes.redacted");
        assert_eq!(
            edited_name("a/branching.jsonl", "fork"),
            "branching.fork.jsonl"
        );
        assert_eq!(edited_name("x.jsonl.gz", "sealed"), "x.sealed.jsonl");
    }
}
