//! `retrace tree`.

use crate::common::*;

#[test]
fn tree_marks_the_rewind_and_both_leaves() {
    // e2 branches in two (e3 … e6 and e7 … e8), one compaction on the way
    // to e6; both ends are leaves, e8 the default.
    retrace_snapshot!(cmd(&["tree", &corpus(PI_V3)]), @r#"
    exit_code: 0
    ----- stdout -----
    pi v3 · 9 entries · 2 leaves · 1 real branch points
    ● e1 … e2  2 entries, lines 2–3  "sanitized" ⑂ 2 branches
    ├─ ● e3 … e6  4 entries, lines 4–7 [2 assistant, 1 compaction, 1 toolResult] · 1 compaction  assistant: "sanitized" ◀ leaf
    └─ ● e7 … e8  2 entries, lines 8–9 ◀ leaf (default)
    ----- stderr -----
    "#);
    retrace_snapshot!(
        "tree_json_of_a_rewind",
        cmd(&["tree", "--json", &corpus(PI_V3)]).pretty()
    );
}

#[test]
fn tree_marks_structural_fanouts_and_subagents() {
    let ideas = corpus("claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl");
    let info = &json_lines(&retrace(&["info", "--json", &ideas]))[0];
    assert_eq!(info["branch_points"], 1);
    assert_eq!(info["structural_branch_points"], 2);
    // One real branch point (2 branches), two structural fan-outs folded
    // into their run.
    retrace_snapshot!(cmd(&["tree", &ideas]), @r#"
    exit_code: 0
    ----- stdout -----
    claude-code · 61 entries · 2 leaves · 1 real branch points
    ● a2c5ddf6-b5bf-4ed9-96d5-6302976cd948 … eb84e3ee-fc54-4fe4-ad76-badc5ebb4671  12 entries, lines 2–16 (+3 side lines at 2 structural fan-outs) [6 assistant, 5 progress, 1 system, 3 user]  "Ok, so there's isn't much to see here, mostly one idea about how to organize the…" ⑂ 2 branches
    ├─ ● 5270777a-1975-4e8a-9cad-b36280ae0ec5 … 2f4668dd-c177-455f-81c1-caa947d43e73  16 entries, lines 18–35 [7 assistant, 3 progress, 3 system, 3 user]  "I very much like this idea, and I used it already with some success in the clmai…" ◀ leaf
    └─ ● 9edc38e6-0ac0-42c0-b911-e24611af2a5b … d107d4c0-ae71-4d3d-af3a-cf7a370bd21f  21 entries, lines 38–61 [9 assistant, 3 progress, 3 system, 6 user]  "I actually don't like much this idea, and I somewhat struggled with it in the cl…" ◀ leaf (default)
    ----- stderr -----
    "#);
    // The JSON marks every entry; only the three branching ones matter.
    let doc = &json_lines(&retrace(&["tree", "--json", &ideas]))[0];
    let kinds: Vec<&str> = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["branch"].as_str())
        .collect();
    assert_eq!(kinds.iter().filter(|&&k| k == "real").count(), 1);
    assert_eq!(kinds.iter().filter(|&&k| k == "structural").count(), 2);
    // A project folder: each of the 6 subagent files says which agent it
    // is; one default leaf.
    retrace_snapshot!("tree_of_a_project_folder", cmd(&["tree", &corpus(PROJECT)]));
    // Its JSON names the files read, in order, each with its side-car.
    let o = cmd(&["tree", "--json", PROJECT])
        .cwd(corpus_root())
        .output();
    let doc = &json_lines(&o)[0];
    let files = serde_json::to_string_pretty(&doc["files"].as_array().unwrap()[..2]).unwrap();
    insta::assert_snapshot!(files, @r#"
    [
      {
        "name": "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
        "side_car": null
      },
      {
        "name": "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a36efb2a1231c41e2.jsonl",
        "side_car": "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1/subagents/agent-a36efb2a1231c41e2.meta.json"
      }
    ]
    "#);
}
