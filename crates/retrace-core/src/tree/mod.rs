//! The branch tree over a session's entries.
//!
//! Nodes are entries (by [`EntryId`]); entries that are not part of the
//! conversation tree (a pi header, a Claude Code `summary` line) are simply
//! not nodes. Children are kept in file order in one flat array (CSR), so the
//! tree of a million entries is a few flat vectors.

use serde::Serialize;

use crate::model::entry::EntryId;
use crate::model::sort::{sort, sort_by_key};

pub(crate) mod pairing;

const NONE: u32 = u32::MAX;

/// Why a node has more than one child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum BranchKind {
    /// Someone went back and continued from here differently (a rewind, an
    /// edited prompt, pi's `/tree` branch).
    Real,
    /// A recording artifact: parallel tool calls, hook and progress lines,
    /// lagging tool results (Claude Code). Not a choice anyone made.
    Structural,
}

/// A node with two or more children.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BranchPoint {
    /// The node.
    pub entry: EntryId,
    /// Why it has several children.
    pub kind: BranchKind,
    /// How many.
    pub children: u32,
}

/// The branch tree. Built by [`crate::Session`].
#[derive(Debug, Default)]
pub struct Tree {
    /// Per entry: its parent, or `NONE`.
    parent: Vec<u32>,
    /// Per entry: whether it is a node at all.
    node: Vec<bool>,
    /// CSR: children of `e` are `children[child_start[e]..child_start[e + 1]]`.
    child_start: Vec<u32>,
    children: Vec<u32>,
    roots: Vec<EntryId>,
    /// Per entry: the child whose subtree was written last (the one a
    /// structural fan-out continues with), or `NONE`.
    continuation: Vec<u32>,
    /// Per entry with several children: whether it is a real branch point.
    real: Vec<bool>,
    branch_points: Vec<BranchPoint>,
    /// Leaves that end a branch someone could pick (see [`Tree::tips`]).
    tips: Vec<EntryId>,
    default_leaf: Option<EntryId>,
}

impl Tree {
    /// Builds the tree from per-entry parents (`None` = root) for the entries
    /// marked as nodes. `is_real_fork(node, children)` decides which fan-outs
    /// are real. Parents must already be acyclic.
    ///
    /// A default leaf with children (a Gemini CLI rewind that nothing was
    /// written after yet) ends the branch the session stands on, and its
    /// children go on another way: it is a tip and a real branch point,
    /// even with one child.
    pub(crate) fn build(
        node: Vec<bool>,
        parent: Vec<u32>,
        default_leaf: Option<EntryId>,
        is_real_fork: impl Fn(EntryId, &[u32]) -> bool,
        is_branch_start: impl Fn(EntryId) -> bool,
    ) -> Tree {
        let n = node.len();
        // CSR in place: count each parent's children at `p + 1`, sum the
        // counts up into starts, then place children with `child_start[p]`
        // as the cursor; it ends where `p + 1` starts, so a shift by one
        // restores the starts.
        let mut child_start = vec![0u32; n + 1];
        let mut roots = Vec::new();
        // Whether every parent comes before its children in the file (as
        // almost always): then file order is an order the walks can take.
        let mut forward = true;
        for e in 0..n {
            if !node[e] {
                continue;
            }
            match parent[e] {
                NONE => roots.push(EntryId(e as u32)),
                p => {
                    forward &= (p as usize) < e;
                    child_start[p as usize + 1] += 1;
                }
            }
        }
        for e in 0..n {
            child_start[e + 1] += child_start[e];
        }
        let mut children = vec![0u32; child_start[n] as usize];
        for e in 0..n {
            if node[e] && parent[e] != NONE {
                let p = parent[e] as usize;
                children[child_start[p] as usize] = e as u32;
                child_start[p] += 1;
            }
        }
        child_start.copy_within(0..n, 1);
        child_start[0] = 0;
        let csr = Csr {
            node: &node,
            child_start: &child_start,
            children: &children,
        };
        let open_end = default_leaf
            .map(|d| d.index())
            .filter(|&d| child_start[d + 1] > child_start[d]);
        let Walked {
            continuation,
            real,
            branch_points,
            tips,
        } = if open_end.is_none() && (0..n).all(|e| child_start[e + 1] - child_start[e] <= 1) {
            csr.walk_linear()
        } else {
            csr.walk(&roots, forward, open_end, is_real_fork, is_branch_start)
        };
        Tree {
            parent,
            node,
            child_start,
            children,
            roots,
            continuation,
            real,
            branch_points,
            tips,
            default_leaf,
        }
    }

    /// Whether `e` is a node of the tree.
    pub fn contains(&self, e: EntryId) -> bool {
        self.node.get(e.index()).copied().unwrap_or(false)
    }

    /// The parent of a node, `None` for a root or an entry that is not a node.
    pub fn parent(&self, e: EntryId) -> Option<EntryId> {
        match self.parent.get(e.index()) {
            Some(&p) if p != NONE => Some(EntryId(p)),
            _ => None,
        }
    }

    /// Children in file order.
    pub fn children(&self, e: EntryId) -> impl ExactSizeIterator<Item = EntryId> + '_ {
        let i = e.index();
        let range = if i + 1 < self.child_start.len() {
            self.child_start[i] as usize..self.child_start[i + 1] as usize
        } else {
            0..0
        };
        self.children[range].iter().map(|&c| EntryId(c))
    }

    /// Nodes without a parent, in file order.
    pub fn roots(&self) -> &[EntryId] {
        &self.roots
    }

    /// Every node without children, in file order.
    pub fn leaves(&self) -> impl Iterator<Item = EntryId> + '_ {
        (0..self.node.len())
            .filter(move |&e| self.node[e] && self.child_start[e] == self.child_start[e + 1])
            .map(|e| EntryId(e as u32))
    }

    /// The leaves that end a branch a person could pick: every leaf for pi;
    /// for Claude Code, leaves reached through real forks only (the dead ends
    /// of parallel tool calls and hook lines are folded into their branch).
    /// The default leaf is one even when it has children (see
    /// `Tree::build`).
    pub fn tips(&self) -> &[EntryId] {
        &self.tips
    }

    /// All nodes with several children, in file order.
    pub fn branch_points(&self) -> &[BranchPoint] {
        &self.branch_points
    }

    /// Real branch points only.
    pub fn real_branch_points(&self) -> impl Iterator<Item = &BranchPoint> {
        self.branch_points
            .iter()
            .filter(|b| b.kind == BranchKind::Real)
    }

    /// The leaf a tool opens by default: the last node in file order (what pi
    /// does), the target of a persisted leaf marker, or where a log of
    /// updates leaves the conversation (Gemini CLI, after its rewinds).
    pub fn default_leaf(&self) -> Option<EntryId> {
        self.default_leaf
    }

    /// Whether the fan-out at `e` is a real branch point.
    pub fn is_real_branch_point(&self, e: EntryId) -> bool {
        self.real.get(e.index()).copied().unwrap_or(false)
    }

    /// The child a structural fan-out at `e` continues with.
    pub fn continuation(&self, e: EntryId) -> Option<EntryId> {
        match self.continuation.get(e.index()) {
            Some(&c) if c != NONE => Some(EntryId(c)),
            _ => None,
        }
    }

    /// Root to `leaf`, inclusive.
    pub fn path(&self, leaf: EntryId) -> Vec<EntryId> {
        let mut path = Vec::new();
        if !self.contains(leaf) {
            return path;
        }
        let mut e = Some(leaf);
        while let Some(x) = e {
            path.push(x);
            e = self.parent(x);
        }
        path.reverse();
        path
    }

    /// All nodes of the subtree under `e` (inclusive), in pre-order.
    pub fn subtree(&self, e: EntryId) -> Vec<EntryId> {
        preorder(&[e], &self.child_start, &self.children)
            .into_iter()
            .map(EntryId)
            .collect()
    }

    /// Number of entries the tree was built over (nodes or not).
    pub(crate) fn entry_count(&self) -> usize {
        self.node.len()
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.node.iter().filter(|&&n| n).count()
    }

    /// Whether the tree has no node.
    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }
}

/// The nodes and their children, for the walks that decide the rest.
struct Csr<'a> {
    node: &'a [bool],
    child_start: &'a [u32],
    children: &'a [u32],
}

/// What the walks decide.
struct Walked {
    continuation: Vec<u32>,
    real: Vec<bool>,
    branch_points: Vec<BranchPoint>,
    tips: Vec<EntryId>,
}

impl Csr<'_> {
    fn children(&self, e: usize) -> &[u32] {
        &self.children[self.child_start[e] as usize..self.child_start[e + 1] as usize]
    }

    /// No fan-out anywhere (event streams, Gemini CLI, any linear
    /// session): each child continues its parent and every leaf is a tip.
    fn walk_linear(&self) -> Walked {
        let n = self.node.len();
        Walked {
            continuation: (0..n)
                .map(|e| self.children(e).first().copied().unwrap_or(NONE))
                .collect(),
            real: Vec::new(),
            branch_points: Vec::new(),
            tips: (0..n)
                .filter(|&e| self.node[e] && self.children(e).is_empty())
                .map(|e| EntryId(e as u32))
                .collect(),
        }
    }

    /// The general walk. `forward`: every parent comes before its children
    /// in the file, so file order serves as pre-order (a parent before its
    /// children) without computing one; otherwise (a parent can be written
    /// after its child) a real pre-order is walked. `open_end`: the default
    /// leaf, when it has children.
    fn walk(
        &self,
        roots: &[EntryId],
        forward: bool,
        open_end: Option<usize>,
        is_real_fork: impl Fn(EntryId, &[u32]) -> bool,
        is_branch_start: impl Fn(EntryId) -> bool,
    ) -> Walked {
        if forward {
            let n = self.node.len() as u32;
            let nodes = (0..n).filter(|&e| self.node[e as usize]);
            self.walk_in(roots, nodes, open_end, is_real_fork, is_branch_start)
        } else {
            let order = preorder(roots, self.child_start, self.children);
            let order = order.iter().copied();
            self.walk_in(roots, order, open_end, is_real_fork, is_branch_start)
        }
    }

    /// The walk over `order`: the nodes under `roots`, each parent before
    /// its children.
    fn walk_in(
        &self,
        roots: &[EntryId],
        order: impl DoubleEndedIterator<Item = u32> + Clone,
        open_end: Option<usize>,
        is_real_fork: impl Fn(EntryId, &[u32]) -> bool,
        is_branch_start: impl Fn(EntryId) -> bool,
    ) -> Walked {
        let n = self.node.len();
        // The latest entry in each subtree, bottom-up; also whether a
        // subtree holds a branch start (a typed prompt) at all: a side line
        // without one is never a branch of its own.
        let mut last = vec![0u32; n];
        let mut has_start = vec![false; n];
        for e in order.clone().rev() {
            let e = e as usize;
            let mut m = e as u32;
            let mut start = is_branch_start(EntryId(e as u32));
            for &c in self.children(e) {
                m = m.max(last[c as usize]);
                start |= has_start[c as usize];
            }
            last[e] = m;
            has_start[e] = start;
        }
        // Top-down, parents before children: each fan-out's continuation
        // and kind, then which nodes a person can reach (see below).
        // A leaf is a tip when every fan-out on its path is either followed
        // along its continuation or is a real fork entered by a child whose
        // subtree someone typed into (the original line of a fork need not
        // start with a prompt: a fork from a prompt sits beside its answer).
        let mut continuation = vec![NONE; n];
        let mut real = vec![false; n];
        let mut branch_points = Vec::new();
        let mut visible = vec![false; n];
        for r in roots {
            visible[r.index()] = true;
        }
        let mut tips = Vec::new();
        for e in order {
            let e = e as usize;
            let kids = self.children(e);
            let Some(&next) = kids.iter().max_by_key(|&&c| last[c as usize]) else {
                if visible[e] {
                    tips.push(EntryId(e as u32));
                }
                continue;
            };
            continuation[e] = next;
            let ends_here = open_end == Some(e);
            if ends_here {
                tips.push(EntryId(e as u32));
            }
            if kids.len() >= 2 || ends_here {
                let is_real = ends_here || is_real_fork(EntryId(e as u32), kids);
                real[e] = is_real;
                branch_points.push(BranchPoint {
                    entry: EntryId(e as u32),
                    kind: if is_real {
                        BranchKind::Real
                    } else {
                        BranchKind::Structural
                    },
                    children: kids.len() as u32,
                });
            }
            for &c in kids {
                visible[c as usize] =
                    visible[e] && (c == next || (real[e] && has_start[c as usize]));
            }
        }
        sort_by_key(&mut branch_points, |b| b.entry);
        sort(&mut tips);
        Walked {
            continuation,
            real,
            branch_points,
            tips,
        }
    }
}

/// Pre-order over the subtrees of `roots` (iterative: sessions can be a
/// million entries deep).
fn preorder(roots: &[EntryId], child_start: &[u32], children: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(children.len() + roots.len());
    let mut stack: Vec<u32> = roots.iter().rev().map(|r| r.0).collect();
    while let Some(e) = stack.pop() {
        out.push(e);
        let kids =
            &children[child_start[e as usize] as usize..child_start[e as usize + 1] as usize];
        stack.extend(kids.iter().rev());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    /// Random forests whose parents come before their children (what the
    /// build checks for): walking them in file order decides exactly what
    /// walking a computed pre-order decides.
    #[test]
    fn file_order_walk_agrees_with_preorder() {
        let mut rng = Rng(0x7ee_5eed);
        let (mut fan_outs, mut hidden) = (0, 0);
        for _ in 0..300 {
            let (node, parent) = rng.forest(60);
            let n = node.len();
            let real_fork = |e: EntryId, kids: &[u32]| (e.0 + kids.len() as u32).is_multiple_of(3);
            let start = |e: EntryId| e.0 % 5 != 1;
            let tree = Tree::build(node, parent.clone(), None, real_fork, start);
            let csr = Csr {
                node: &tree.node,
                child_start: &tree.child_start,
                children: &tree.children,
            };
            // Now and then a default leaf with children.
            let open_end = (rng.below(3) == 0)
                .then(|| (0..n).find(|&e| tree.children(EntryId(e as u32)).next().is_some()))
                .flatten();
            let by_file = csr.walk(&tree.roots, true, open_end, real_fork, start);
            let by_preorder = csr.walk(&tree.roots, false, open_end, real_fork, start);
            assert_eq!(by_file.continuation, by_preorder.continuation, "{parent:?}");
            assert_eq!(by_file.real, by_preorder.real, "{parent:?}");
            assert_eq!(
                by_file.branch_points, by_preorder.branch_points,
                "{parent:?}"
            );
            assert_eq!(by_file.tips, by_preorder.tips, "{parent:?}");
            fan_outs += by_file.branch_points.len();
            hidden += tree.leaves().filter(|l| !by_file.tips.contains(l)).count();
        }
        // Fan-outs, and leaves that are not tips, were exercised.
        assert!(
            fan_outs > 300 && hidden > 100,
            "{fan_outs} fan-outs, {hidden} hidden"
        );
    }

    /// Chains and trees with and without fan-out: the linear fast path and
    /// the general walk agree wherever both apply, and the general walk
    /// still runs when one node has two children.
    #[test]
    fn linear_sessions_build_like_branched_ones() {
        let no = |_: EntryId, _: &[u32]| false;
        let yes = |_: EntryId| true;
        // Two chains (0-1-2 and 4-5), a non-node (3), a parent written
        // after its child (7 is 6's parent).
        let node = vec![true, true, true, false, true, true, true, true];
        let parent = vec![NONE, 0, 1, NONE, NONE, 4, 7, NONE];
        let tree = Tree::build(node.clone(), parent.clone(), None, no, yes);
        assert_eq!(tree.roots(), &[EntryId(0), EntryId(4), EntryId(7)]);
        assert_eq!(tree.tips(), &[EntryId(2), EntryId(5), EntryId(6)]);
        assert!(tree.branch_points().is_empty());
        assert_eq!(tree.continuation(EntryId(1)), Some(EntryId(2)));
        assert_eq!(tree.continuation(EntryId(7)), Some(EntryId(6)));
        assert_eq!(tree.continuation(EntryId(2)), None);
        assert!(!tree.is_real_branch_point(EntryId(0)));
        assert_eq!(tree.path(EntryId(6)), vec![EntryId(7), EntryId(6)]);
        // One fan-out (1 gets a second child, 3) takes the general walk:
        // the structural fan-out continues with the later subtree.
        let mut node = node;
        node[3] = true;
        let mut parent = parent;
        parent[3] = 1;
        let tree = Tree::build(node, parent, None, no, yes);
        assert_eq!(tree.branch_points().len(), 1);
        assert_eq!(tree.continuation(EntryId(1)), Some(EntryId(3)));
        assert_eq!(tree.tips(), &[EntryId(3), EntryId(5), EntryId(6)]);
    }
}
