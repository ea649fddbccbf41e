//! Tool-call pairing on every branch at once.
//!
//! [`Session::check`](crate::Session::check) reports, for every branch a
//! person could pick (the tree's tips), a tool result with no call before
//! it on the branch and a call with no result on it. Walking each branch
//! costs tips × length: most of a minute for a gigabyte with a few thousand
//! rewinds. Instead the branches each entry is on are worked out from the
//! tree once.
//!
//! Number the tips in pre-order: the tips under a node are then a range of
//! numbers. A branch is its path plus, where a format folds them in (Claude
//! Code), the side lines of fan-outs along it. Say an edge from a child to
//! its parent *folds* when the parent has one child and is no tip itself (a
//! default leaf can have children: a branch ends there, and goes on), or
//! when the parent is a fan-out and the branch's format folds that child's
//! side line in. Across a folding edge, the child is on exactly the
//! branches its parent is on: those under the child, and those that pass
//! the parent another way and take the child's side line in.
//! Across an edge that does not fold, the child is on the branches under
//! it, plus those of its parent's that do not pass the parent at all. So a
//! run of folding edges (a *group*) shares one set of branches, a few
//! ranges of tip numbers, and a call and a result in one group (the usual
//! case) pair on every branch without any set being built.

use std::collections::HashMap;
use std::hash::Hash;

use crate::model::entry::EntryId;
use crate::model::sort::{sort, sort_by_key};
use crate::tree::Tree;

const NONE: u32 = u32::MAX;

/// Whether the side line under `child`, off a branch's path at the fan-out
/// `parent`, belongs to the branch.
pub(crate) type Folds<'a> = &'a dyn Fn(EntryId, EntryId) -> bool;

/// Tips whose branches are read one way.
pub(crate) struct BranchRule<'a> {
    pub tips: Vec<EntryId>,
    /// `None`: a branch is its path, in path order. Otherwise the side
    /// lines it folds in are part of it, and it is in file order.
    pub folds: Option<Folds<'a>>,
}

/// A tool call or result that some branch leaves unpaired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unpaired<I> {
    pub entry: EntryId,
    /// The tool call id.
    pub id: I,
    pub side: Side,
    /// The first tip, in file order, of a branch that leaves it unpaired.
    pub tip: EntryId,
}

/// Which half of a pair an [`Unpaired`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Side {
    /// A result with no call before it on a branch.
    Result,
    /// A call with no result on a branch.
    Call,
}

/// Every call and result (`(entry, id)`, in the order they were found)
/// that a branch of `rules` leaves unpaired, once per entry, id and side;
/// an entry's in the order walking the branches one by one would find
/// them (by first tip, results before calls, then as found).
pub(crate) fn unpaired<I: Copy + Ord + Hash>(
    tree: &Tree,
    rules: &[BranchRule],
    calls: &[(EntryId, I)],
    results: &[(EntryId, I)],
) -> Vec<Unpaired<I>> {
    let order = PreOrder::new(tree);
    let calls = by_id(calls, &order);
    let results = by_id(results, &order);
    // (entry, side, id) → the earliest tip over all rules, and where the
    // occurrence was found.
    let mut found: HashMap<(u32, Side, I), (EntryId, usize)> = HashMap::new();
    for rule in rules {
        let mut branches = Branches::new(tree, &order, rule);
        let (mut c, mut r) = (0, 0);
        while c < calls.len() || r < results.len() {
            let id = match (calls.get(c), results.get(r)) {
                (Some(x), Some(y)) => x.id.min(y.id),
                (Some(x), None) => x.id,
                (None, Some(y)) => y.id,
                (None, None) => unreachable!(),
            };
            let c_end = c + calls[c..].iter().take_while(|o| o.id == id).count();
            let r_end = r + results[r..].iter().take_while(|o| o.id == id).count();
            for (o, side, tip) in branches.unpaired(&calls[c..c_end], &results[r..r_end]) {
                let slot = found.entry((o.entry, side, id)).or_insert((tip, o.found));
                slot.0 = slot.0.min(tip);
            }
            (c, r) = (c_end, r_end);
        }
    }
    let mut out: Vec<(Unpaired<I>, usize)> = found
        .into_iter()
        .map(|((entry, side, id), (tip, at))| {
            let entry = EntryId(entry);
            (
                Unpaired {
                    entry,
                    id,
                    side,
                    tip,
                },
                at,
            )
        })
        .collect();
    sort_by_key(&mut out, |(u, at)| (u.entry, u.tip, u.side, *at));
    out.into_iter().map(|(u, _)| u).collect()
}

/// A call or result of one id, at a node of the tree.
#[derive(Debug, Clone, Copy)]
struct Occurrence<I> {
    id: I,
    entry: u32,
    /// Its index in the caller's list (the first, for an entry that names
    /// the id twice).
    found: usize,
}

/// The occurrences at nodes, one per entry and id, sorted by id and entry.
fn by_id<I: Copy + Ord>(list: &[(EntryId, I)], order: &PreOrder) -> Vec<Occurrence<I>> {
    let mut out: Vec<Occurrence<I>> = list
        .iter()
        .enumerate()
        .filter(|(_, (e, _))| order.pre[e.index()] != NONE)
        .map(|(found, &(e, id))| Occurrence {
            id,
            entry: e.0,
            found,
        })
        .collect();
    sort_by_key(&mut out, |o| (o.id, o.entry, o.found));
    out.dedup_by_key(|o| (o.id, o.entry));
    out
}

/// The tree's nodes in pre-order (roots in file order, children in file
/// order), with each subtree's extent and each node's depth.
struct PreOrder {
    /// Per entry: its position, or `NONE` for entries that are not nodes.
    pre: Vec<u32>,
    /// Per entry: the position after its subtree.
    end: Vec<u32>,
    depth: Vec<u32>,
    /// Nodes by position.
    nodes: Vec<u32>,
}

impl PreOrder {
    fn new(tree: &Tree) -> PreOrder {
        let n = tree.entry_count();
        let mut pre = vec![NONE; n];
        let mut depth = vec![0u32; n];
        let mut nodes = Vec::new();
        // Iterative: sessions can be a million entries deep.
        let mut stack: Vec<EntryId> = tree.roots().iter().rev().copied().collect();
        while let Some(e) = stack.pop() {
            pre[e.index()] = nodes.len() as u32;
            nodes.push(e.0);
            let d = depth[e.index()] + 1;
            let first = stack.len();
            for c in tree.children(e) {
                depth[c.index()] = d;
                stack.push(c);
            }
            stack[first..].reverse();
        }
        // A subtree is contiguous: its end is its position plus its size.
        let mut size = vec![1u32; n];
        for &e in nodes.iter().rev() {
            if let Some(p) = tree.parent(EntryId(e)) {
                size[p.index()] += size[e as usize];
            }
        }
        let end = (0..n)
            .map(|e| pre[e].wrapping_add(size[e]))
            .collect::<Vec<u32>>();
        PreOrder {
            pre,
            end,
            depth,
            nodes,
        }
    }
}

/// A half-open range of tip numbers.
type Range = (u32, u32);

/// The branches of one [`BranchRule`]: which of its tips each group of
/// nodes is on.
struct Branches<'a> {
    tree: &'a Tree,
    order: &'a PreOrder,
    /// Tips of this rule before each position: the tips under a node are
    /// the numbers `before[pre]..before[end]`.
    before: Vec<u32>,
    /// The tips by number, and the smallest entry over ranges of them.
    first: RangeMin,
    /// Per entry: the top of its group (see the module's comment).
    head: Vec<u32>,
    /// Whether branches are in file order (else path order).
    file_order: bool,
    /// The tips each group is on, for the groups asked about so far.
    groups: HashMap<u32, Vec<Range>>,
}

impl<'a> Branches<'a> {
    fn new(tree: &'a Tree, order: &'a PreOrder, rule: &BranchRule) -> Branches<'a> {
        let n = order.nodes.len();
        let mut is_tip = vec![false; n];
        for t in &rule.tips {
            if order.pre[t.index()] != NONE {
                is_tip[order.pre[t.index()] as usize] = true;
            }
        }
        let mut before = Vec::with_capacity(n + 1);
        let mut by_number = Vec::new();
        before.push(0);
        for (at, &tip) in is_tip.iter().enumerate() {
            if tip {
                by_number.push(order.nodes[at]);
            }
            before.push(by_number.len() as u32);
        }
        let mut head = vec![NONE; order.pre.len()];
        for &e in &order.nodes {
            let id = EntryId(e);
            head[e as usize] = match tree.parent(id) {
                None => e,
                Some(p) => {
                    let folds = if tree.children(p).len() < 2 {
                        !is_tip[order.pre[p.index()] as usize]
                    } else {
                        rule.folds.is_some_and(|folds| folds(p, id))
                    };
                    if folds {
                        head[p.index()]
                    } else {
                        e
                    }
                }
            };
        }
        Branches {
            tree,
            order,
            before,
            first: RangeMin::new(by_number),
            head,
            file_order: rule.folds.is_some(),
            groups: HashMap::new(),
        }
    }

    /// The tips under `e`.
    fn under(&self, e: u32) -> Range {
        let (pre, end) = (self.order.pre[e as usize], self.order.end[e as usize]);
        (self.before[pre as usize], self.before[end as usize])
    }

    /// Where `e` comes in the branches it is on.
    fn key(&self, e: u32) -> u32 {
        if self.file_order {
            e
        } else {
            self.order.depth[e as usize]
        }
    }

    /// The tips of the branches the group headed by `head` is on.
    fn tips(&mut self, head: u32) -> &[Range] {
        // Up the chain of groups to one known or a root's, then down.
        let mut chain = Vec::new();
        let mut h = head;
        while !self.groups.contains_key(&h) {
            chain.push(h);
            match self.tree.parent(EntryId(h)) {
                Some(p) => h = self.head[p.index()],
                None => break,
            }
        }
        for &h in chain.iter().rev() {
            let own = self.under(h);
            let mut set = match self.tree.parent(EntryId(h)) {
                None => Vec::new(),
                Some(p) => {
                    let above = &self.groups[&self.head[p.index()]];
                    subtract(above, &[self.under(p.0)])
                }
            };
            insert(&mut set, own);
            self.groups.insert(h, set);
        }
        &self.groups[&head]
    }

    /// The calls and results of one id that a branch leaves unpaired, each
    /// with the first such branch's tip.
    fn unpaired<I: Copy>(
        &mut self,
        calls: &[Occurrence<I>],
        results: &[Occurrence<I>],
    ) -> Vec<(Occurrence<I>, Side, EntryId)> {
        let mut out = Vec::new();
        // Per group, the earliest call in it; the groups of the results.
        let mut call_groups: Vec<(u32, u32)> = calls
            .iter()
            .map(|c| (self.head[c.entry as usize], self.key(c.entry)))
            .collect();
        sort(&mut call_groups);
        call_groups.dedup_by_key(|g| g.0);
        let mut result_groups: Vec<u32> = results
            .iter()
            .map(|r| self.head[r.entry as usize])
            .collect();
        sort(&mut result_groups);
        result_groups.dedup();

        // A result needs a call at or before it on each of its branches.
        let mut by_key: Vec<(u32, u32)> = calls
            .iter()
            .map(|c| (self.key(c.entry), self.head[c.entry as usize]))
            .collect();
        sort(&mut by_key);
        let mut results_by_key: Vec<&Occurrence<I>> = results.iter().collect();
        sort_by_key(&mut results_by_key, |r| (self.key(r.entry), r.entry));
        let mut called: Vec<Range> = Vec::new();
        let mut added = 0;
        for r in results_by_key {
            let (key, head) = (self.key(r.entry), self.head[r.entry as usize]);
            while added < by_key.len() && by_key[added].0 <= key {
                for &range in self.tips(by_key[added].1).to_vec().iter() {
                    insert(&mut called, range);
                }
                added += 1;
            }
            let same_group = call_groups
                .binary_search_by_key(&head, |g| g.0)
                .is_ok_and(|i| call_groups[i].1 <= key);
            if same_group {
                continue;
            }
            let missing = subtract(self.tips(head), &called);
            if let Some(tip) = self.first.of(&missing) {
                out.push((*r, Side::Result, tip));
            }
        }

        // A call needs a result somewhere on each of its branches.
        let mut answered: Option<Vec<Range>> = None;
        for c in calls {
            let head = self.head[c.entry as usize];
            if result_groups.binary_search(&head).is_ok() {
                continue;
            }
            if answered.is_none() {
                let mut set = Vec::new();
                for &g in &result_groups {
                    for &range in self.tips(g).to_vec().iter() {
                        insert(&mut set, range);
                    }
                }
                answered = Some(set);
            }
            let answered = answered.as_deref().expect("set above");
            let missing = subtract(self.tips(head), answered);
            if let Some(tip) = self.first.of(&missing) {
                out.push((*c, Side::Call, tip));
            }
        }
        out
    }
}

/// Adds `range` to a sorted set of disjoint ranges.
fn insert(set: &mut Vec<Range>, (mut lo, mut hi): Range) {
    if lo >= hi {
        return;
    }
    // The ranges that touch or overlap the new one are merged into it.
    let from = set.partition_point(|r| r.1 < lo);
    let to = set.partition_point(|r| r.0 <= hi);
    if from < to {
        lo = lo.min(set[from].0);
        hi = hi.max(set[to - 1].1);
    }
    set.splice(from..to, [(lo, hi)]);
}

/// `a` without `b`, both sorted sets of disjoint ranges.
fn subtract(a: &[Range], b: &[Range]) -> Vec<Range> {
    let mut out = Vec::new();
    let mut j = 0;
    for &(mut lo, hi) in a {
        while j < b.len() && b[j].1 <= lo {
            j += 1;
        }
        let mut k = j;
        while lo < hi {
            match b.get(k) {
                Some(&(blo, bhi)) if blo < hi => {
                    if blo > lo {
                        out.push((lo, blo));
                    }
                    lo = lo.max(bhi);
                    k += 1;
                }
                _ => {
                    out.push((lo, hi));
                    break;
                }
            }
        }
    }
    out
}

/// The smallest entry over a range of tip numbers, in constant time (a
/// sparse table).
struct RangeMin {
    levels: Vec<Vec<u32>>,
}

impl RangeMin {
    fn new(tips: Vec<u32>) -> RangeMin {
        // Level k holds the minimum of each window of 2^k tips.
        let mut levels = vec![tips];
        let mut width = 1;
        while width * 2 <= levels[0].len() {
            let prev = levels.last().expect("level 0");
            let next = (0..prev.len() - width)
                .map(|i| prev[i].min(prev[i + width]))
                .collect();
            levels.push(next);
            width *= 2;
        }
        RangeMin { levels }
    }

    fn min(&self, (lo, hi): Range) -> u32 {
        let len = (hi - lo) as usize;
        let level = len.ilog2() as usize;
        let row = &self.levels[level];
        row[lo as usize].min(row[hi as usize - (1 << level)])
    }

    /// The first tip in file order over `set`, if it is not empty.
    fn of(&self, set: &[Range]) -> Option<EntryId> {
        set.iter()
            .filter(|r| r.0 < r.1)
            .map(|&r| self.min(r))
            .min()
            .map(EntryId)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;
    use std::collections::HashSet;

    /// The branch ending at `tip`, built the plain way: its path, plus each
    /// folded side line of a fan-out along it, in file order when the rule
    /// folds.
    fn branch(tree: &Tree, tip: EntryId, folds: Option<Folds>) -> Vec<EntryId> {
        let path = tree.path(tip);
        let Some(folds) = folds else { return path };
        let mut out = path.clone();
        for (i, &p) in path.iter().enumerate() {
            if tree.children(p).len() < 2 {
                continue;
            }
            for c in tree.children(p) {
                if path.get(i + 1) != Some(&c) && folds(p, c) {
                    out.extend(tree.subtree(c));
                }
            }
        }
        out.sort();
        out
    }

    /// What walking every branch one by one finds, in the order it finds
    /// it (the check's definition).
    fn walked(
        tree: &Tree,
        rules: &[BranchRule],
        calls: &[(EntryId, u32)],
        results: &[(EntryId, u32)],
    ) -> Vec<Unpaired<u32>> {
        let mut tips: Vec<(EntryId, Option<Folds>)> = rules
            .iter()
            .flat_map(|r| r.tips.iter().map(|&t| (t, r.folds)))
            .collect();
        tips.sort_by_key(|t| t.0);
        let mut out = Vec::new();
        let mut reported = HashSet::new();
        for (tip, folds) in tips {
            let branch = branch(tree, tip, folds);
            let mut called = HashSet::new();
            let mut answered = HashSet::new();
            for &e in &branch {
                for &(_, id) in calls.iter().filter(|c| c.0 == e) {
                    called.insert(id);
                }
                for &(_, id) in results.iter().filter(|r| r.0 == e) {
                    answered.insert(id);
                    if !called.contains(&id) && reported.insert((e, id)) {
                        out.push(Unpaired {
                            entry: e,
                            id,
                            side: Side::Result,
                            tip,
                        });
                    }
                }
            }
            for &e in &branch {
                for &(_, id) in calls.iter().filter(|c| c.0 == e) {
                    if !answered.contains(&id) && reported.insert((e, id)) {
                        out.push(Unpaired {
                            entry: e,
                            id,
                            side: Side::Call,
                            tip,
                        });
                    }
                }
            }
        }
        // What a stable sort by entry leaves of that order.
        out.sort_by_key(|u| u.entry);
        out
    }

    /// Random forests, fold rules, tips and calls: finding the unpaired
    /// through groups of branches gives exactly what walking each branch
    /// gives, in the same order.
    #[test]
    fn groups_of_branches_agree_with_walking_each_branch() {
        let mut rng = Rng(0x9a1e_0f7a);
        let mut seen = [0usize; 2];
        for round in 0..3000 {
            let (node, parent) = rng.forest(40);
            let n = node.len();
            let seed = rng.next();
            let real = move |e: EntryId, _: &[u32]| (u64::from(e.0) ^ seed).is_multiple_of(3);
            let start = move |e: EntryId| (u64::from(e.0) ^ seed) % 4 != 1;
            // Now and then a default leaf with children: a tip that is no
            // leaf.
            let default = match rng.below(3) {
                0 => (0..n).find(|&e| node[e] && parent.contains(&(e as u32))),
                _ => None,
            };
            let default = default.map(|e| EntryId(e as u32));
            let tree = Tree::build(node.clone(), parent, default, real, start);
            let fold_seed = rng.next();
            let folds = move |p: EntryId, c: EntryId| {
                !(u64::from(p.0 * 31 + c.0) ^ fold_seed).is_multiple_of(3)
            };
            // Tips split between a rule that folds and one that does not,
            // or all under one of them.
            let split = rng.below(3);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for &t in tree.tips() {
                match split {
                    0 => a.push(t),
                    1 => b.push(t),
                    _ if rng.below(2) == 0 => a.push(t),
                    _ => b.push(t),
                }
            }
            let rules = [
                BranchRule {
                    tips: a,
                    folds: Some(&folds),
                },
                BranchRule {
                    tips: b,
                    folds: None,
                },
            ];
            let ids = 1 + rng.below(6);
            let occurrences = |rng: &mut Rng| -> Vec<(EntryId, u32)> {
                (0..rng.below(12))
                    .map(|_| (EntryId(rng.below(n) as u32), rng.below(ids) as u32))
                    .collect()
            };
            let calls = occurrences(&mut rng);
            let results = occurrences(&mut rng);
            let want = walked(&tree, &rules, &calls, &results);
            let got = unpaired(&tree, &rules, &calls, &results);
            assert_eq!(got, want, "round {round}");
            for u in &got {
                seen[u.side as usize] += 1;
            }
        }
        // Both kinds were found many times over.
        assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
    }

    #[test]
    fn ranges_insert_and_subtract() {
        let mut set = Vec::new();
        for r in [(5, 7), (1, 2), (9, 12), (2, 3), (7, 9), (20, 20)] {
            insert(&mut set, r);
        }
        assert_eq!(set, [(1, 3), (5, 12)]);
        assert_eq!(
            subtract(&set, &[(0, 1), (6, 8), (11, 30)]),
            [(1, 3), (5, 6), (8, 11)]
        );
        assert_eq!(subtract(&set, &[]), set);
        assert!(subtract(&set, &[(0, 12)]).is_empty());
    }
}
