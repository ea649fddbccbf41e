//! The branch tree as people read it: linear runs collapsed into segments,
//! structural fan-outs (parallel tool calls, hook lines) folded into the
//! segment they belong to, and a new segment only where someone really went
//! back (a real branch point) or where a root starts.
//!
//! The CLI's `tree` prints it; the viewer's branch panel draws it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::entry::EntryId;
use crate::session::Session;

/// A collapsed run of the tree: from `first` along single children and
/// structural continuations to `last`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Segment {
    /// The run's first node.
    pub first: EntryId,
    /// Its last node, where it ends or forks.
    pub last: EntryId,
    /// The segment this one branches off (`None` for a root).
    pub parent: Option<usize>,
    /// Nesting depth: 0 for roots.
    pub depth: u32,
    /// Segments that branch off `last`, in file order.
    pub children: Vec<usize>,
    /// Nodes on the run itself.
    pub len: usize,
    /// Side lines of structural fan-outs folded into it.
    pub side: usize,
    /// Structural fan-outs on it.
    pub fanouts: usize,
    /// Compactions on it.
    pub compactions: usize,
    /// The git checkpoints on it (side lines not included, as for
    /// compactions).
    pub checkpoints: Vec<EntryId>,
    /// The bookmarked entries on it ([`Session::bookmarks_on`] names them;
    /// side lines not included, as for checkpoints).
    pub bookmarks: Vec<EntryId>,
    /// Entries per role (or per entry type, for entries without a role),
    /// side lines included.
    pub roles: BTreeMap<String, usize>,
    /// Whether the session's default leaf is on it (or its side lines).
    pub has_default: bool,
    /// `last` is a leaf someone could pick (see [`crate::Tree::tips`]).
    pub is_tip: bool,
    /// The entry with the earliest and latest timestamp on the run.
    pub start: Option<i64>,
    /// See `start`.
    pub end: Option<i64>,
}

impl Session {
    /// The tree's segments in pre-order (a segment before the ones that
    /// branch off it), roots in file order.
    pub fn outline(&self) -> Vec<Segment> {
        let tree = self.tree();
        let mut out: Vec<Segment> = Vec::new();
        // (first node, parent segment, depth)
        let mut stack: Vec<(EntryId, Option<usize>, u32)> =
            tree.roots().iter().rev().map(|&r| (r, None, 0)).collect();
        while let Some((first, parent, depth)) = stack.pop() {
            let index = out.len();
            let segment = self.segment_from(first, parent, depth);
            let kids: Vec<EntryId> = tree.children(segment.last).collect();
            if let Some(p) = parent {
                out[p].children.push(index);
            }
            out.push(segment);
            for &k in kids.iter().rev() {
                stack.push((k, Some(index), depth + 1));
            }
        }
        out
    }

    fn segment_from(&self, first: EntryId, parent: Option<usize>, depth: u32) -> Segment {
        let tree = self.tree();
        let default = tree.default_leaf();
        let mut seg = Segment {
            first,
            last: first,
            parent,
            depth,
            children: Vec::new(),
            len: 0,
            side: 0,
            fanouts: 0,
            compactions: 0,
            checkpoints: Vec::new(),
            bookmarks: Vec::new(),
            roles: BTreeMap::new(),
            has_default: false,
            is_tip: false,
            start: None,
            end: None,
        };
        let count = |seg: &mut Segment, e: EntryId| {
            let role = match self.role(e) {
                "" => self.kind(e),
                r => r,
            };
            *seg.roles.entry(role.to_owned()).or_default() += 1;
            if let Some(t) = self.entry(e).timestamp() {
                seg.start = Some(seg.start.map_or(t, |s| s.min(t)));
                seg.end = Some(seg.end.map_or(t, |s| s.max(t)));
            }
        };
        let mut e = first;
        loop {
            seg.len += 1;
            seg.last = e;
            seg.has_default |= Some(e) == default;
            count(&mut seg, e);
            if self.is_compaction(e) {
                seg.compactions += 1;
            }
            if self.is_checkpoint(e) {
                seg.checkpoints.push(e);
            }
            if !self.bookmarks_on(e).is_empty() {
                seg.bookmarks.push(e);
            }
            let kids: Vec<EntryId> = tree.children(e).collect();
            match kids.len() {
                0 => break,
                // Real with one child: the default leaf, where a branch
                // ends and another goes on.
                _ if tree.is_real_branch_point(e) => break,
                1 => e = kids[0],
                _ => {
                    let next = tree.continuation(e).unwrap_or(kids[kids.len() - 1]);
                    seg.fanouts += 1;
                    for &k in &kids {
                        if k != next {
                            let side = tree.subtree(k);
                            seg.has_default |= default.is_some_and(|d| side.contains(&d));
                            seg.side += side.len();
                            for &x in &side {
                                count(&mut seg, x);
                            }
                        }
                    }
                    e = next;
                }
            }
        }
        seg.is_tip = tree.tips().binary_search(&seg.last).is_ok();
        seg
    }

    /// The tip a segment leads to: its own last entry when that is a tip,
    /// else the tip reached by following continuations (the latest-written
    /// way on), so picking a segment in a viewer always lands on a leaf.
    pub fn tip_of(&self, segment: &Segment) -> EntryId {
        let tree = self.tree();
        let mut e = segment.last;
        while let Some(next) = tree.continuation(e) {
            e = next;
        }
        e
    }
}
