//! Stable sorts through one shared sort routine.
//!
//! Each call of the standard library's `sort_by_key` (or `sort`) is its own
//! copy of its sort, per element type and per closure: about 3 KB of wasm
//! each, and the viewer's worker had over twenty. Here the standard sort
//! runs once, on indices, with the comparison behind a `dyn`; the elements
//! then move into that order by swaps. Same result as `sort_by_key`
//! (stable), one copy of the sort in the binary. Public for the viewer's
//! page, which shares the module with the worker (its own `sort_by_key`
//! calls were two more copies).

use std::cmp::Ordering;

/// `v.sort_by_key(key)`, stable.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// `v.sort_by(compare)`, stable.
pub fn sort_by<T>(v: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = sorted_indices(v.len(), &|a, b| compare(&v[a], &v[b]));
    permute(v, order);
}

/// `v.sort()`, stable.
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// `0..len` sorted stably by `compare`: the one instance of the sort.
fn sorted_indices(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Puts `v[order[k]]` at `k` for every `k`, following each cycle of the
/// permutation with swaps (`order` is consumed as the record of what is
/// done).
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..v.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = order[at];
            order[at] = DONE;
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    fn descending(a: &(u32, usize), b: &(u32, usize)) -> Ordering {
        b.0.cmp(&a.0)
    }

    #[test]
    fn sorts_as_the_standard_stable_sort_does() {
        let mut rng = Rng(7);
        for len in [0, 1, 2, 3, 5, 17, 100, 1000] {
            for _ in 0..20 {
                // Few distinct keys, so stability is tested.
                let v: Vec<(u32, usize)> = (0..len).map(|i| (rng.below(7) as u32, i)).collect();
                let mut want = v.clone();
                want.sort_by_key(|p| p.0);
                let mut got = v.clone();
                sort_by_key(&mut got, |p| p.0);
                assert_eq!(got, want);
                let mut want = v.clone();
                want.sort_by(descending);
                let mut got = v.clone();
                sort_by(&mut got, descending);
                assert_eq!(got, want);
                let mut want: Vec<String> = v.iter().map(|p| format!("{}", p.0 * 3)).collect();
                let mut got = want.clone();
                want.sort();
                sort(&mut got);
                assert_eq!(got, want);
            }
        }
    }
}
