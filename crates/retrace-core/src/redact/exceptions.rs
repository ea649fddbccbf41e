//! What a person decided is not sensitive after reviewing the findings: a
//! whole kind (`disable`), or one finding, named by its kind, its line and
//! a hash of its value. The viewer's review makes them and writes them as a
//! rules file ([`Exceptions::to_toml`]); `retrace redact --rules FILE`
//! reads that file (`[allow] findings`, `disable`) into the same
//! [`Rules`], so both write the same bytes.
//!
//! A finding is named by kind + line + value hash, not by byte offset or
//! JSON path: on the same file the three pin one finding (the same value
//! twice on one line, a Claude Code `toolUseResult` copy, is the same
//! decision twice), they do not depend on how the input is chunked or cut
//! into parallel parts, and on a file that changed the exception fails
//! safe: a line holding another value there is redacted as usual. The hash
//! is FNV-1a 64 of the value's decoded bytes, a fixed algorithm (not std's
//! hasher, which may change between Rust releases), so a file written by
//! one build is read by another. It names a value the person chose to
//! leave in the output in clear, so it reveals nothing the output does not.

use super::kind::KindId;
use super::rules::Rules;
use crate::model::sort::{sort, sort_by};

/// One finding left in place: what kind, on which 1-based input line, with
/// which [`value_hash`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AllowedFinding {
    /// The kind's name (`email`).
    pub kind: String,
    /// 1-based line of the input (a JSON document's findings carry the
    /// line they are on).
    pub line: u64,
    /// [`value_hash`] of the matched value.
    pub hash: u64,
}

/// Kinds and findings that are not sensitive, as a review decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exceptions {
    /// Kinds left alone everywhere.
    pub kinds: Vec<String>,
    /// Single findings left alone.
    pub findings: Vec<AllowedFinding>,
}

impl Exceptions {
    /// Whether there is no exception.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty() && self.findings.is_empty()
    }

    /// The exceptions as a rules file for `retrace redact --rules`:
    /// `disable` for the kinds, `[allow] findings` for the findings, kinds
    /// and findings sorted, so the same decisions give the same file.
    pub fn to_toml(&self) -> String {
        let mut kinds: Vec<&str> = self.kinds.iter().map(String::as_str).collect();
        sort(&mut kinds);
        kinds.dedup();
        let mut findings: Vec<&AllowedFinding> = self.findings.iter().collect();
        sort_by(&mut findings, |a, b| {
            (a.line, &a.kind, a.hash).cmp(&(b.line, &b.kind, b.hash))
        });
        findings.dedup();
        let mut out = String::from(
            "# Not sensitive, as a review decided: retrace redact --rules THIS_FILE\n",
        );
        out.push_str("disable = [");
        for (i, k) in kinds.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            quoted(k, &mut out);
        }
        out.push_str(
            "]\n\n[allow]\n# kind, 1-based line, FNV-1a 64 of the value (hex)\nfindings = [\n",
        );
        for f in findings {
            out.push_str("  { kind = ");
            quoted(&f.kind, &mut out);
            out.push_str(&format!(
                ", line = {}, hash = \"{}\" }},\n",
                f.line,
                hash_hex(f.hash)
            ));
        }
        out.push_str("]\n");
        out
    }
}

/// `text` as a TOML basic string.
fn quoted(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A value hash as written in a rules file: 16 lowercase hex digits.
pub fn hash_hex(hash: u64) -> String {
    format!("{hash:016x}")
}

/// Reads [`hash_hex`]'s form back.
pub fn parse_hash(text: &str) -> Option<u64> {
    (text.len() == 16 && text.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| u64::from_str_radix(text, 16).ok())
        .flatten()
}

/// FNV-1a 64 of a matched value's decoded bytes: how a rules file names a
/// finding's value without holding it.
pub fn value_hash(value: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in value {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Rules {
    /// These rules with `exceptions` applied: their kinds disabled, their
    /// findings left in place. `Err` names a kind the rules do not have.
    pub fn with_exceptions(self, exceptions: &Exceptions) -> Result<Rules, String> {
        self.apply_exceptions(exceptions, false)
    }

    /// These rules with `exceptions` as a view shows them: every value is
    /// still found, and those the exceptions leave in place are marked in
    /// place (between [`REVEAL_OPEN`](super::REVEAL_OPEN) and
    /// [`REVEAL_CLOSE`](super::REVEAL_CLOSE)) rather than left plain, while
    /// the rest are replaced. So a viewer hiding sensitive data shows
    /// what its review marked "not a secret" as written, highlighted. A
    /// [`Redactor`](super::Redactor) with them writes the bytes of
    /// [`Rules::with_exceptions`] but for the marks. `Err` as there.
    pub fn marking_exceptions(self, exceptions: &Exceptions) -> Result<Rules, String> {
        self.apply_exceptions(exceptions, true)
    }

    fn apply_exceptions(mut self, exceptions: &Exceptions, mark: bool) -> Result<Rules, String> {
        for name in &exceptions.kinds {
            let id = self
                .kind_id(name)
                .ok_or_else(|| format!("disable: no kind named `{name}`"))?;
            if mark {
                // Found still, so it can be marked.
                self.marked_kinds.resize(self.kinds.len(), false);
                self.marked_kinds[id.0 as usize] = true;
            } else {
                self.disabled[id.0 as usize] = true;
                self.filters = true;
            }
        }
        self.mark_exceptions = mark;
        for (n, f) in exceptions.findings.iter().enumerate() {
            let id = self
                .kind_id(&f.kind)
                .ok_or_else(|| format!("allow finding {}: no kind named `{}`", n + 1, f.kind))?;
            if f.line == 0 {
                return Err(format!("allow finding {}: lines count from 1", n + 1));
            }
            self.allowed.push((f.line, id, f.hash));
        }
        sort(&mut self.allowed);
        self.allowed.dedup();
        Ok(self)
    }

    /// The kinds switched off (by `disable` or an exception).
    pub fn disabled_kinds(&self) -> impl Iterator<Item = KindId> + '_ {
        self.disabled
            .iter()
            .enumerate()
            .filter(|(_, &d)| d)
            .map(|(i, _)| KindId(i as u16))
    }

    /// Whether some findings are left in place one by one.
    pub(crate) fn allows_findings(&self) -> bool {
        !self.allowed.is_empty()
    }

    /// Whether a whole kind is left in place, marked
    /// ([`Rules::marking_exceptions`]).
    pub(crate) fn marks_kind(&self, kind: KindId) -> bool {
        self.marked_kinds.get(kind.0 as usize) == Some(&true)
    }

    /// Whether the exceptions are marked in place rather than left as
    /// they are.
    pub(crate) fn marks_exceptions(&self) -> bool {
        self.mark_exceptions
    }

    /// Whether the finding of `kind` on `line` with value hash `hash` is
    /// left in place.
    pub(crate) fn allows(&self, line: u64, kind: KindId, hash: u64) -> bool {
        self.allowed.binary_search(&(line, kind, hash)).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_fnv1a_64() {
        // The published FNV-1a 64 test vectors: the file format depends on
        // this exact function.
        assert_eq!(value_hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(value_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(value_hash(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(
            parse_hash(&hash_hex(value_hash(b"x"))),
            Some(value_hash(b"x"))
        );
        assert_eq!(parse_hash("12"), None);
        assert_eq!(parse_hash("zzzzzzzzzzzzzzzz"), None);
    }

    #[test]
    fn the_file_is_sorted_and_quoted() {
        let e = Exceptions {
            kinds: vec!["email".into(), "home-username".into(), "email".into()],
            findings: vec![
                AllowedFinding {
                    kind: "ipv4-public".into(),
                    line: 9,
                    hash: 1,
                },
                AllowedFinding {
                    kind: "a\"b".into(),
                    line: 2,
                    hash: 0xabc,
                },
            ],
        };
        assert_eq!(
            e.to_toml(),
            "# Not sensitive, as a review decided: retrace redact --rules THIS_FILE\n\
             disable = [\"email\", \"home-username\"]\n\n[allow]\n\
             # kind, 1-based line, FNV-1a 64 of the value (hex)\nfindings = [\n  \
             { kind = \"a\\\"b\", line = 2, hash = \"0000000000000abc\" },\n  \
             { kind = \"ipv4-public\", line = 9, hash = \"0000000000000001\" },\n]\n"
        );
    }

    #[test]
    fn unknown_kinds_are_refused() {
        let e = Exceptions {
            kinds: vec!["nope".into()],
            findings: vec![],
        };
        assert_eq!(
            Rules::builtin().with_exceptions(&e).unwrap_err(),
            "disable: no kind named `nope`"
        );
    }
}
