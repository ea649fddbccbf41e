//! Two branches side by side, and what a compaction hid: what the viewer's
//! compare view shows, worked out here so every front end lines rows up
//! the same way.
//!
//! Two branches: the rows both begin with are common, and the last entry
//! both paths hold is their fork point. The rows after it are aligned by
//! what they say, a diff over turns: each row gets a key from its role and
//! its text (tool calls by name and arguments, results by output; ids,
//! times and runs of blanks left out), and a longest common subsequence of
//! the keys pairs the rows both sides say alike, so a prompt re-asked word
//! for word lines up with its sibling. Between two such pairs, rows of the
//! same role pair up as changed (a second subsequence, over roles); the
//! rest stand on one side alone.
//!
//! A compaction: what the context held just before it and not after (what
//! it hid), beside what came in with it (the compaction and the summary
//! line after it), each as the format's context rules read the branch up
//! to there ([`Session::context`]); a comparison of the branch with itself,
//! so that views draw both alike.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::iter::once;

use crate::model::entry::{EntryId, Flags};
use crate::model::message::Part;
use crate::model::sort::sort;
use crate::session::{event_line, Row, RowKind, Session};
use crate::source::{Source, SourceError};

/// Rows of each side aligned at most: the alignment's table is the product
/// of both sides' rows.
pub const COMPARED: usize = 400;

/// How the rows of one line of a comparison compare (numbered from 0 as
/// listed: `as u8` gives the number).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Alignment {
    /// A row on each side, saying the same.
    Same,
    /// A row of the same role on each side, saying different things.
    Changed,
    /// A row of the left side, with nothing beside it.
    Left,
    /// A row of the right side, with nothing beside it.
    Right,
}

/// One line of a comparison: a row of each side or of one, as indices into
/// each branch's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Aligned {
    /// The left branch's row.
    pub left: Option<usize>,
    /// The right branch's row.
    pub right: Option<usize>,
    /// How they compare.
    pub how: Alignment,
}

/// Two branches compared ([`Session::compare`]), or what a compaction hid
/// beside what replaced it ([`Session::compaction_hid`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// The last entry both branches hold, where they fork (`None` when
    /// they share none: the roots of two files); or the compaction.
    pub fork: Option<EntryId>,
    /// How many rows both branches begin with (up to the fork); none for
    /// a compaction.
    pub common: usize,
    /// The rows after those, aligned, in order.
    pub pairs: Vec<Aligned>,
    /// Rows of each side after the first [`COMPARED`], not aligned.
    pub more: (usize, usize),
}

impl Session {
    /// The branches ending at `left` and `right` (whose rows,
    /// [`Session::rows`], are `left_rows` and `right_rows`) compared from
    /// their fork point: the rows after it aligned, each side's first
    /// [`COMPARED`] rows at most. Reads the bodies of those rows.
    pub fn compare<S: Source + ?Sized>(
        &self,
        left: EntryId,
        left_rows: &[Row],
        right: EntryId,
        right_rows: &[Row],
        source: &mut S,
    ) -> Result<Comparison, SourceError> {
        let (a, b) = (self.tree.path(left), self.tree.path(right));
        let fork = a.iter().zip(&b).take_while(|(x, y)| x == y).last();
        let common = left_rows
            .iter()
            .zip(right_rows)
            .take_while(|(x, y)| x.entries == y.entries)
            .count();
        let mut keys = [(Vec::new(), Vec::new()), (Vec::new(), Vec::new())];
        let mut more = [0; 2];
        for (side, rows) in [left_rows, right_rows].into_iter().enumerate() {
            let tail = &rows[common..];
            more[side] = tail.len().saturating_sub(COMPARED);
            for row in tail.iter().take(COMPARED) {
                let (said, role) = self.row_keys(row, source)?;
                keys[side].0.push(said);
                keys[side].1.push(role);
            }
        }
        let [(said_l, role_l), (said_r, role_r)] = &keys;
        let mut pairs = Vec::new();
        let (mut i, mut j) = (0, 0);
        let mut line = |i: Option<usize>, j: Option<usize>, how| {
            pairs.push(Aligned {
                left: i.map(|i| common + i),
                right: j.map(|j| common + j),
                how,
            })
        };
        let end = (said_l.len(), said_r.len());
        for (si, sj) in lcs(said_l, said_r).into_iter().chain(once(end)) {
            // Between two rows said alike: rows of one role beside each
            // other, the rest alone.
            let (i0, j0) = (i, j);
            let changed = lcs(&role_l[i0..si], &role_r[j0..sj]);
            for (ci, cj) in changed.into_iter().map(|(x, y)| (x + i0, y + j0)) {
                line_up(&mut i, &mut j, (ci, cj), &mut line);
                line(Some(ci), Some(cj), Alignment::Changed);
                (i, j) = (ci + 1, cj + 1);
            }
            line_up(&mut i, &mut j, (si, sj), &mut line);
            if (si, sj) != end {
                line(Some(si), Some(sj), Alignment::Same);
                (i, j) = (si + 1, sj + 1);
            }
        }
        Ok(Comparison {
            fork: fork.map(|(x, _)| *x),
            common,
            pairs,
            more: (more[0], more[1]),
        })
    }

    /// What the compaction `at` on the branch ending at `leaf` (whose rows
    /// are `rows`) hid, beside what replaced it, as a comparison of the
    /// branch with itself: on the left the rows the context held just
    /// before it and no longer holds (the first [`COMPARED`]), on the
    /// right the rows it brought in (itself, and the summary after it),
    /// line by line from the top ([`Alignment::Changed`] where both sides
    /// have one). `at` may be any entry of the compaction's row, or the
    /// summary line written after a compaction (Claude Code's
    /// `isCompactSummary` line); `None` when it is neither on the branch.
    pub fn compaction_hid<S: Source + ?Sized>(
        &self,
        leaf: EntryId,
        rows: &[Row],
        at: EntryId,
        source: &mut S,
    ) -> Result<Option<Comparison>, SourceError> {
        let summary_line = |e: EntryId| self.entry(e).flags.has(Flags::COMPACT_SUMMARY);
        // The compaction of the row holding `at` (a Codex `compacted` line
        // comes with the turn's bookkeeping before it), or the one the
        // summary line at `at` follows.
        let Some(row) = rows.iter().find(|r| r.entries.contains(&at)) else {
            return Ok(None);
        };
        let at = row
            .entries
            .iter()
            .copied()
            .find(|&e| self.is_compaction(e))
            .unwrap_or(at);
        let branch = self.branch(leaf);
        let Some(mut c) = branch.iter().position(|&e| e == at) else {
            return Ok(None);
        };
        while c > 0 && !self.is_compaction(branch[c]) && summary_line(branch[c]) {
            c -= 1;
        }
        if !self.is_compaction(branch[c]) {
            return Ok(None);
        }
        let end = c
            + 1
            + branch[c + 1..]
                .iter()
                .take_while(|&&e| summary_line(e))
                .count();
        // Sorted, to look entries up (the one shared sort; no hash set).
        let mut before = self.context_of(&branch[..c], source)?;
        let mut after = self.context_of(&branch[..end], source)?;
        sort(&mut before);
        sort(&mut after);
        let rows_of = |from: &[EntryId], not: &[EntryId]| -> Vec<usize> {
            (0..rows.len())
                .filter(|&i| {
                    rows[i]
                        .entries
                        .iter()
                        .any(|e| from.binary_search(e).is_ok() && not.binary_search(e).is_err())
                })
                .collect()
        };
        let summary = rows_of(&after, &before);
        // The compaction's own row may hold bookkeeping lines from before
        // it (a Codex turn's start and settings): it stays the summary's.
        let mut hidden = rows_of(&before, &after);
        hidden.retain(|i| !summary.contains(i));
        let more = hidden.len().saturating_sub(COMPARED);
        hidden.truncate(COMPARED);
        let pairs = (0..hidden.len().max(summary.len()))
            .map(|i| {
                let (left, right) = (hidden.get(i).copied(), summary.get(i).copied());
                let how = match (left, right) {
                    (Some(_), Some(_)) => Alignment::Changed,
                    (Some(_), None) => Alignment::Left,
                    _ => Alignment::Right,
                };
                Aligned { left, right, how }
            })
            .collect();
        Ok(Some(Comparison {
            fork: Some(branch[c]),
            common: 0,
            pairs,
            more: (more, 0),
        }))
    }

    /// A row's keys: what it says (its role and its parts, ids and runs of
    /// blanks left out; an event row's line) and who says it.
    fn row_keys<S: Source + ?Sized>(
        &self,
        row: &Row,
        source: &mut S,
    ) -> Result<(u64, u64), SourceError> {
        let (mut said, mut who) = (DefaultHasher::new(), DefaultHasher::new());
        match self.row_message(row, source)? {
            Some(m) => {
                m.role.hash(&mut who);
                for part in &m.content {
                    std::mem::discriminant(part).hash(&mut said);
                    match part {
                        Part::Text { text } | Part::Thinking { text, .. } => words(text, &mut said),
                        Part::ToolCall {
                            name, arguments, ..
                        } => {
                            name.hash(&mut said);
                            words(&arguments.to_string(), &mut said);
                        }
                        Part::ToolResult {
                            output, is_error, ..
                        } => {
                            is_error.hash(&mut said);
                            words(output, &mut said);
                        }
                        Part::Image {
                            media_type,
                            byte_size,
                        } => (media_type, byte_size).hash(&mut said),
                        Part::Checkpoint { commit, .. } => commit.hash(&mut said),
                    }
                }
            }
            // An event row (or a message whose body does not read): its
            // type, and the line that shows it.
            None => {
                (row.kind == RowKind::Event, &row.entry_type).hash(&mut who);
                if let Ok(body) = self.body(row.entries[0], source)? {
                    event_line(&body).hash(&mut said);
                }
            }
        }
        who.finish().hash(&mut said);
        Ok((said.finish(), who.finish()))
    }
}

/// The words of `text`, so that blanks do not tell rows apart.
fn words(text: &str, h: &mut DefaultHasher) {
    for w in text.split_whitespace() {
        w.hash(h);
    }
}

/// Lines for the rows from `(i, j)` up to `to` alone: the left side's,
/// then the right side's.
fn line_up(
    i: &mut usize,
    j: &mut usize,
    to: (usize, usize),
    line: &mut impl FnMut(Option<usize>, Option<usize>, Alignment),
) {
    for x in *i..to.0 {
        line(Some(x), None, Alignment::Left);
    }
    for y in *j..to.1 {
        line(None, Some(y), Alignment::Right);
    }
    (*i, *j) = to;
}

/// A longest common subsequence of `a` and `b`: the pairs of indices of
/// equal elements, in order. A table of the two lengths' product (both at
/// most [`COMPARED`], so lengths fit in 16 bits).
fn lcs(a: &[u64], b: &[u64]) -> Vec<(usize, usize)> {
    let w = b.len() + 1;
    // `len[i * w + j]`: the length of one of `a[i..]` and `b[j..]`.
    let mut len = vec![0u16; (a.len() + 1) * w];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            len[i * w + j] = if a[i] == b[j] {
                len[(i + 1) * w + j + 1] + 1
            } else {
                len[(i + 1) * w + j].max(len[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < a.len() && j < b.len() {
        if a[i] == b[j] {
            out.push((i, j));
            (i, j) = (i + 1, j + 1);
        } else if len[(i + 1) * w + j] >= len[i * w + j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lcs_pairs_equal_elements_in_order() {
        assert_eq!(lcs(&[1, 2, 3, 4], &[2, 4, 5]), [(1, 0), (3, 1)]);
        assert_eq!(lcs(&[1, 2], &[3]), []);
        assert_eq!(lcs(&[], &[3]), []);
        // Of two equal choices, the earlier row of the left side.
        assert_eq!(lcs(&[7, 7], &[7]), [(0, 0)]);
    }
}
