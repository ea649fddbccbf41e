//! Two branches compared from their fork point, and what a compaction hid
//! (`Session::compare`, `Session::compaction_hid`): hand-checked answers on
//! corpus files with real branches and compactions and on a fixture whose
//! second branch re-asks the first one's prompt; invariants on every
//! corpus file and generated session.

use retrace_core::{Alignment, Comparison, EntryId, Row, Session, COMPARED};

use crate::common::{corpus_files, find, generated, open, open_chunked, open_fixtures, source};

/// The rows' labels (their first entries'), `-` for a side with none, and
/// how each line compares.
fn lines(s: &Session, left: EntryId, right: EntryId, c: &Comparison) -> Vec<String> {
    let (l, r) = (s.rows(left), s.rows(right));
    let label =
        |rows: &[Row], i: Option<usize>| i.map_or("-".to_owned(), |i| s.label(rows[i].entries[0]));
    c.pairs
        .iter()
        .map(|p| {
            let how = match p.how {
                Alignment::Same => "same",
                Alignment::Changed => "changed",
                Alignment::Left => "left",
                Alignment::Right => "right",
            };
            format!("{} {} {how}", label(&l, p.left), label(&r, p.right))
        })
        .collect()
}

fn compare(s: &Session, bytes: &[u8], left: EntryId, right: EntryId) -> Comparison {
    let mut src: &[u8] = bytes;
    s.compare(left, &s.rows(left), right, &s.rows(right), &mut src)
        .unwrap()
}

fn strings(all: &[&str]) -> Vec<String> {
    all.iter().map(|s| s.to_string()).collect()
}

/// What a compaction hid (the left side's rows) and what replaced it (the
/// right side's), as indices into the branch's rows; checks the lines
/// pair them from the top.
fn sides(c: &Comparison) -> (Vec<usize>, Vec<usize>) {
    assert_eq!(c.common, 0);
    for p in &c.pairs {
        let how = match (p.left, p.right) {
            (Some(_), Some(_)) => Alignment::Changed,
            (Some(_), None) => Alignment::Left,
            _ => Alignment::Right,
        };
        assert_eq!(p.how, how);
    }
    let left = c.pairs.iter().filter_map(|p| p.left).collect();
    let right = c.pairs.iter().filter_map(|p| p.right).collect();
    (left, right)
}

/// The labels of a compaction's hidden and summary rows.
fn hid(s: &Session, bytes: &[u8], leaf: EntryId, at: &str) -> Option<(Vec<String>, Vec<String>)> {
    let rows = s.rows(leaf);
    let mut src: &[u8] = bytes;
    let c = s
        .compaction_hid(leaf, &rows, find(s, at), &mut src)
        .unwrap()?;
    assert!(s.is_compaction(c.fork.unwrap()));
    let (hidden, summary) = sides(&c);
    let labels = |rows_: &[usize]| {
        rows_
            .iter()
            .map(|&i| s.label(rows[i].entries[0]))
            .collect::<Vec<_>>()
    };
    Some((labels(&hidden), labels(&summary)))
}

/// A branch that re-asks its sibling's prompt (blanks aside) and runs the
/// same command with the same output lines up with it row by row; the
/// answers differ, and the first branch's follow-up stands alone.
#[test]
fn a_reasked_prompt_lines_up_with_its_sibling() {
    let (s, files) = open_fixtures(&["pi/reask.jsonl"]);
    let (left, right) = (find(&s, "e7"), find(&s, "e11"));
    let c = compare(&s, &files[0], left, right);
    assert_eq!(c.fork, Some(find(&s, "e2")));
    // The first prompt and its answer (pi's header is no row).
    assert_eq!(c.common, 2);
    assert_eq!(
        lines(&s, left, right, &c),
        [
            "e3 e8 same",
            "e4 e9 same",
            "e5 e10 same",
            "e6 e11 changed",
            "e7 - left"
        ]
    );
    assert_eq!(c.more, (0, 0));
    // The other way round, mirrored.
    let back = compare(&s, &files[0], right, left);
    assert_eq!(
        lines(&s, right, left, &back),
        [
            "e8 e3 same",
            "e9 e4 same",
            "e10 e5 same",
            "e11 e6 changed",
            "- e7 right"
        ]
    );
    // A branch compared with itself: all common, nothing to align.
    let same = compare(&s, &files[0], left, left);
    assert_eq!((same.common, same.pairs.len()), (s.rows(left).len(), 0));
    assert_eq!(same.fork, Some(left));
}

/// pi 0.85's branching fixture: the branches part after the model change
/// (e2); their first rows are both the model's tool calls (changed), and
/// the rest is the left's (a result, a compaction, an answer) and the
/// right's (an entry of a type pi has not written yet).
#[test]
fn pi_branches_from_the_corpus() {
    let (s, bytes) =
        open("pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl");
    let (left, right) = (find(&s, "e6"), find(&s, "e8"));
    let c = compare(&s, &bytes, left, right);
    assert_eq!(c.fork, Some(find(&s, "e2")));
    assert_eq!(
        lines(&s, left, right, &c),
        [
            "e3 e7 changed",
            "e4 - left",
            "e5 - left",
            "e6 - left",
            "- e8 right"
        ]
    );
    // Its compaction keeps from e3: it hid what came before (the first
    // prompt, the model change) and replaced it with its summary.
    let (hidden, summary) = hid(&s, &bytes, left, "e5").unwrap();
    assert_eq!(hidden, ["e1", "e2"]);
    assert_eq!(summary, ["e5"]);
    // An entry that is no compaction, or not on the branch, hid nothing.
    assert_eq!(hid(&s, &bytes, left, "e4"), None);
    assert_eq!(hid(&s, &bytes, right, "e5"), None);
}

/// claude-code-log's fork: `i` ("Fork from c") is a second user line
/// under the user line `c`. The branch through `k` takes in `c`'s other
/// child, the answer `d`, and what follows it as side lines (Claude Code
/// writes a reply beside the next line: only a prompt under a real branch
/// point starts a branch of its own), so it holds the whole of the branch
/// through `h`, and the comparison shows what it adds; the tree's paths
/// still part at `c`.
#[test]
fn claude_code_branches_from_the_corpus() {
    let (s, bytes) = open("claude-code/iansherr__claude-code-log/test/test_data/dag_fork.jsonl");
    let (left, right) = (find(&s, "h"), find(&s, "k"));
    let c = compare(&s, &bytes, left, right);
    assert_eq!(c.fork, Some(find(&s, "c")));
    assert_eq!(c.common, s.rows(left).len());
    assert_eq!(
        lines(&s, left, right, &c),
        ["- i right", "- j right", "- k right"]
    );
}

/// claude-code-log's compaction after a rewind: the branch that went on
/// (and was compacted) against the one rewound away from; the compaction
/// hid the whole conversation before it, replaced by its boundary and the
/// summary line, whichever of the two is asked about.
#[test]
fn a_claude_code_compaction_hid_what_came_before() {
    let (s, bytes) =
        open("claude-code/daaain__claude-code-log/test/test_data/dag_compact_after_rewind.jsonl");
    let (left, right) = (find(&s, "p1a"), find(&s, "b1a"));
    let c = compare(&s, &bytes, left, right);
    assert_eq!(c.fork, Some(find(&s, "a1")));
    assert_eq!(
        lines(&s, left, right, &c),
        [
            "b2u b1u changed",
            "b2a b1a changed",
            "b2u2 - left",
            "b2a2 - left",
            "cb - left",
            "cs - left",
            "p1u - left",
            "p1a - left"
        ]
    );
    let want = (
        strings(&["u1", "a1", "b2u", "b2a", "b2u2", "b2a2"]),
        strings(&["cb", "cs"]),
    );
    for at in ["cb", "cs"] {
        assert_eq!(hid(&s, &bytes, left, at).as_ref(), Some(&want), "{at}");
    }
    // The prompt after it is no compaction.
    assert_eq!(hid(&s, &bytes, left, "p1u"), None);
}

/// An event stream's second compaction keeps from an event before the
/// first one (in the other part of the split stream): what it hid is what
/// the first left in view and it did not keep (the first compaction's
/// summary among it), not what the first had hidden already.
#[test]
fn a_second_compaction_hides_only_what_was_in_view() {
    let (s, files) = open_fixtures(&[
        "events/compaction/events.jsonl",
        "events/compaction/events_1.jsonl",
    ]);
    let leaf = s.tree().default_leaf().unwrap();
    let rows = s.rows(leaf);
    let mut src = source(&files);
    let compactions: Vec<EntryId> = rows
        .iter()
        .map(|r| r.entries[0])
        .filter(|&e| s.is_compaction(e))
        .collect();
    assert_eq!(compactions.len(), 2);
    let labels = |c: &Comparison| {
        let (hidden, summary) = sides(c);
        let label = |i: &usize| s.line_label(rows[*i].entries[0]);
        (
            hidden.iter().map(label).collect::<Vec<_>>(),
            summary.iter().map(label).collect::<Vec<_>>(),
        )
    };
    let first = s
        .compaction_hid(leaf, &rows, compactions[0], &mut src)
        .unwrap()
        .unwrap();
    // Part 0: a prompt and an LLM call before event 2, which is kept.
    assert_eq!(labels(&first), (strings(&["L1", "L2"]), strings(&["L4"])));
    let second = s
        .compaction_hid(leaf, &rows, compactions[1], &mut src)
        .unwrap()
        .unwrap();
    // The first compaction's summary, which the second replaces.
    assert_eq!(labels(&second), (strings(&["L4"]), strings(&["F1L4"])));
}

/// Codex: a `compacted` line with its replacement history hides all the
/// context before it.
#[test]
fn a_codex_compaction_hides_all_before_it() {
    let (s, files) = open_fixtures(&["codex/rollback.jsonl"]);
    let leaf = s.tree().default_leaf().unwrap();
    let rows = s.rows(leaf);
    let mut src = source(&files);
    let at = rows
        .iter()
        .position(|r| r.entries.iter().any(|&e| s.is_compaction(e)))
        .expect("a compaction");
    let c = s
        .compaction_hid(leaf, &rows, rows[at].entries[0], &mut src)
        .unwrap()
        .unwrap();
    let (hidden, summary) = sides(&c);
    assert_eq!(summary, [at]);
    assert!(!hidden.is_empty());
    assert!(hidden.iter().all(|&i| i < at));
}

/// Every corpus file and generated session, every pair of its first tips:
/// the common rows are the same rows, the pairs take every compared row of
/// each side once and in order, a same pair is a pair of rows of one kind,
/// and swapping the sides finds as many alike; every compaction on a branch
/// hides rows before it only, and the last one hides what the branch's
/// context no longer holds.
#[test]
fn comparisons_cover_both_sides_on_the_corpus() {
    let mut inputs: Vec<(String, Vec<u8>)> = corpus_files()
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    inputs.extend(generated());
    let (mut branches, mut compactions) = (0, 0);
    for (name, bytes) in &inputs {
        let s = open_chunked(name, bytes, 1 << 20);
        let tips: Vec<EntryId> = s.tree().tips().iter().copied().take(4).collect();
        for &a in &tips {
            let rows = s.rows(a);
            for &b in &tips {
                if a == b {
                    continue;
                }
                branches += 1;
                let other = s.rows(b);
                let c = compare(&s, bytes, a, b);
                assert!(rows[..c.common] == other[..c.common], "{name}");
                let mut want = [c.common, c.common];
                for p in &c.pairs {
                    for (side, at) in [p.left, p.right].into_iter().enumerate() {
                        if let Some(at) = at {
                            assert_eq!(at, want[side], "{name}: rows in order");
                            want[side] += 1;
                        }
                    }
                    if let (Some(l), Some(r)) = (p.left, p.right) {
                        if p.how == Alignment::Same {
                            assert_eq!(rows[l].kind, other[r].kind, "{name}");
                        }
                    }
                }
                assert_eq!(want[0] + c.more.0, rows.len(), "{name}");
                assert_eq!(want[1] + c.more.1, other.len(), "{name}");
                assert!(want[0] - c.common <= COMPARED);
                // As many rows said alike either way round (which ones may
                // differ where several choices are as long).
                let back = compare(&s, bytes, b, a);
                let same =
                    |c: &Comparison| c.pairs.iter().filter(|p| p.how == Alignment::Same).count();
                assert_eq!(same(&c), same(&back), "{name}");
                assert_eq!((back.common, back.fork), (c.common, c.fork), "{name}");
            }
            let mut src: &[u8] = bytes;
            let context: Vec<String> = s
                .context(a, &mut src)
                .unwrap()
                .into_iter()
                .flat_map(|m| m.entries)
                .collect();
            let marked: Vec<usize> = (0..rows.len())
                .filter(|&i| rows[i].entries.iter().any(|&e| s.is_compaction(e)))
                .collect();
            for (n, &at) in marked.iter().enumerate() {
                compactions += 1;
                let c = s
                    .compaction_hid(a, &rows, rows[at].entries[0], &mut src)
                    .unwrap()
                    .unwrap_or_else(|| panic!("{name}: row {at} is a compaction"));
                let (hidden, summary) = sides(&c);
                assert!(summary.contains(&at), "{name}");
                assert!(hidden.iter().all(|&i| i < at), "{name}");
                if n + 1 == marked.len() {
                    for &i in &hidden {
                        for &e in &rows[i].entries {
                            if let Some(id) = s.id(e) {
                                assert!(
                                    !context.iter().any(|c| c == id),
                                    "{name}: {id} hidden yet in the context"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(branches > 20, "{branches} pairs of branches");
    assert!(compactions > 5, "{compactions} compactions");
}
