//! What a redaction found: each finding's kind and location (never the
//! value), counts per kind, lines that were not JSON, and what the verify
//! pass found in the output.

use super::kind::KindId;

/// One redacted match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What was found.
    pub kind: KindId,
    /// 1-based line of the input.
    pub line: u64,
    /// Byte offset in the input of the match's first raw byte. (For a
    /// match that only showed once a neighbour was replaced, the offset is
    /// in the line as partly redacted.)
    pub offset: u64,
    /// JSON path of the string that held it (`message.content[2].input.command`;
    /// `.$json` marks JSON inside a string). Empty for plain text.
    pub path: String,
    /// The match's byte range inside that string, decoded.
    pub span: std::ops::Range<usize>,
    /// What it was replaced with.
    pub replacement: String,
    /// The value's [`value_hash`](super::value_hash): what names the
    /// finding in a rules file's exceptions (an `--report` leaves it out:
    /// a hash of a short value can be guessed back).
    pub hash: u64,
    /// The value was a JSON number, and its placeholder was written as a
    /// string (the path is the number's; the span covers its digits).
    pub number: bool,
}

/// A line that is not JSON: passed through unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenLine {
    /// 1-based line.
    pub line: u64,
    /// Byte offset in the input where the line stops being JSON.
    pub offset: u64,
    /// Matches the rules see in its raw text, left in place.
    pub unredacted: u32,
}

/// A match the verify pass found in the output (there should be none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    /// `None` when the output line is not JSON at all.
    pub kind: Option<KindId>,
    /// 1-based line of the output.
    pub line: u64,
    /// JSON path of the string it is in (empty when the line is not JSON).
    pub path: String,
}

/// Totals of one redaction, in constant memory: at most
/// [`Summary::KEEP`] broken lines and leftovers are kept by value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Lines read.
    pub lines: u64,
    /// Lines with at least one replacement.
    pub lines_changed: u64,
    /// Bytes read.
    pub bytes: u64,
    /// Findings per kind, indexed by [`KindId`].
    pub counts: Vec<u64>,
    /// Findings left in place by the rules' single-finding exceptions
    /// (not in `counts`).
    pub allowed: u64,
    /// Findings that were JSON numbers (a card, a phone number under a
    /// `phone` key), written as strings: the output's type differs there.
    pub numbers_as_strings: u64,
    /// Lines that are not JSON (passed through unchanged).
    pub broken_lines: u64,
    /// Matches seen (and left) in broken lines.
    pub broken_matches: u64,
    /// The first [`Summary::KEEP`] of them.
    pub broken: Vec<BrokenLine>,
    /// Matches left in output lines by the redaction (verify pass).
    pub leftovers: u64,
    /// What the verify pass found in the output: the first [`Summary::KEEP`].
    pub leftover: Vec<Leftover>,
}

impl Summary {
    /// How many broken lines and leftovers are kept by value.
    pub const KEEP: usize = 1000;

    /// All findings.
    pub fn findings(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Matches present in the output: left in broken lines, or found by
    /// the verify pass.
    pub fn unredacted(&self) -> u64 {
        self.broken_matches + self.leftovers
    }

    /// Adds the totals of a later part of the same input.
    pub fn merge(&mut self, other: &Summary) {
        self.lines += other.lines;
        self.lines_changed += other.lines_changed;
        self.bytes += other.bytes;
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.allowed += other.allowed;
        self.numbers_as_strings += other.numbers_as_strings;
        self.broken_lines += other.broken_lines;
        self.broken_matches += other.broken_matches;
        let room = Self::KEEP.saturating_sub(self.broken.len());
        self.broken.extend(other.broken.iter().take(room).cloned());
        self.leftovers += other.leftovers;
        let room = Self::KEEP.saturating_sub(self.leftover.len());
        self.leftover
            .extend(other.leftover.iter().take(room).cloned());
    }

    pub(crate) fn count(&mut self, kind: KindId) {
        let slot = kind.0 as usize;
        if self.counts.len() <= slot {
            self.counts.resize(slot + 1, 0);
        }
        self.counts[slot] += 1;
    }
}
