//! The kinds scripts ask for (the `api` feature: `tree`, `context`,
//! `migrate`) on the corpus, as the CLI answers them: every input of the
//! golden `retrace info --json` files, given to the engine by base name,
//! against the session the CLI opens (the core's tree, `Session::context`
//! and `try_migrate`, as `retrace tree`, `show` and `migrate` call them).
//! The Node tests of the built package compare with the CLI's own output.

#![cfg(feature = "api")]

use std::sync::Arc;

use retrace_core::migrate::try_migrate;
use retrace_core::redact::{RedactingSource, Rules};
use retrace_core::{Api, BranchKind, ContextOptions, EntryId};
use retrace_wasm::engine::MemoryFiles;
use retrace_wasm::protocol::{
    Context, EngineError, ErrorCode, Migration, Request, Response, SessionTree,
};
use serde_json::Value;

mod common;
use common::{cli_open, corpus, dropped, input, memory, one, root, Tab};

/// A pi session with a rewind: e2 has two children, e3 (then a
/// compaction) and e7.
const BRANCHING: &str = "pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl";
/// A Claude Code session with sensitive data.
const SENSITIVE: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl";

fn tree(tab: &mut Tab) -> SessionTree {
    match tab.ask(Request::Tree, None) {
        Ok(Response::Tree(tree)) => *tree,
        other => panic!("no tree: {other:?}"),
    }
}

fn context(tab: &mut Tab, leaf: u32) -> Result<Context, EngineError> {
    tab.ask(Request::Context { leaf }, None).map(|r| match r {
        Response::Context(c) => c,
        other => panic!("not a context: {other:?}"),
    })
}

fn migrate(tab: &mut Tab, leaf: u32, to: Api) -> Result<Migration, EngineError> {
    tab.ask(Request::Migrate { leaf, to }, None)
        .map(|r| match r {
            Response::Migration(m) => *m,
            other => panic!("not a migration: {other:?}"),
        })
}

fn show(tab: &mut Tab, shown: bool) {
    tab.ask(Request::HideSensitive { hide: !shown }, None)
        .unwrap();
}

#[test]
fn tree_context_and_migrate_answer_as_the_cli_does() {
    let golden =
        std::fs::read_to_string(root().join("tests/fixtures/golden/info-corpus.jsonl")).unwrap();
    let (mut inputs, mut branches, mut migrated, mut refused) = (0, 0, 0, 0);
    for want in golden.lines() {
        let want: Value = serde_json::from_str(want).unwrap();
        let path = want["path"].as_str().unwrap();
        let (dir, names, listing) = input(&corpus().join(path));
        let (cli, mut source) = cli_open(&dir, &names, listing);
        let mut tab = Tab::new();
        let summary = tab.open(dropped(&dir, &names));

        // The tree, node by node.
        let t = tree(&mut tab);
        let cli_tree = cli.tree();
        let nodes: Vec<u32> = (0..cli.entries().len() as u32)
            .filter(|&e| cli_tree.contains(EntryId(e)))
            .collect();
        assert_eq!(t.nodes.entry, nodes, "{path}: nodes");
        for (i, &e) in t.nodes.entry.iter().enumerate() {
            let at = EntryId(e);
            assert_eq!(t.nodes.parent[i], cli_tree.parent(at).map(|p| p.0));
            assert_eq!(t.nodes.label[i], cli.label(at));
            assert_eq!(t.nodes.types[t.nodes.type_of[i] as usize], cli.kind(at));
            assert_eq!(t.nodes.roles[t.nodes.role_of[i] as usize], cli.role(at));
            assert_eq!(t.nodes.line[i], cli.entry(at).line);
        }
        let ids = |l: &[EntryId]| l.iter().map(|e| e.0).collect::<Vec<u32>>();
        assert_eq!(t.roots, ids(cli_tree.roots()), "{path}: roots");
        assert_eq!(t.tips, ids(cli_tree.tips()), "{path}: tips");
        assert_eq!(t.tips, summary.tips, "{path}: the summary's tips");
        assert_eq!(t.default_leaf, summary.default_leaf, "{path}");
        assert_eq!(t.branch_points, cli_tree.branch_points(), "{path}");
        // What `info --json` counts of it.
        let count = |kind| t.branch_points.iter().filter(|b| b.kind == kind).count();
        assert_eq!(
            count(BranchKind::Real) as u64,
            want["branch_points"],
            "{path}"
        );
        assert_eq!(
            count(BranchKind::Structural) as u64,
            want["structural_branch_points"],
            "{path}"
        );
        assert_eq!(t.tips.len() as u64, want["leaves"], "{path}: leaves");
        assert!(t.leaves.iter().all(|&l| !t.nodes.parent.contains(&Some(l))));

        // The default branch's messages and migrations, as written (the
        // CLI's `show --show-sensitive` and `migrate`).
        inputs += 1;
        let Some(leaf) = summary.default_leaf else {
            continue;
        };
        branches += 1;
        show(&mut tab, true);
        let at = EntryId(leaf);
        let got = context(&mut tab, leaf).unwrap();
        assert_eq!(
            got.messages,
            cli.context(at, &mut source).unwrap(),
            "{path}"
        );
        let messages = cli
            .context_with(at, &mut source, ContextOptions { payloads: true })
            .unwrap();
        for to in Api::ALL {
            match (migrate(&mut tab, leaf, to), try_migrate(&messages, to)) {
                (Ok(got), Ok(cli)) => {
                    assert_eq!(got.body, cli.body, "{path} to {to}");
                    assert_eq!(got.report, cli.report, "{path} to {to}");
                    assert_eq!(got.leaf, leaf);
                    migrated += 1;
                }
                (Err(got), Err(cli)) => {
                    assert_eq!(got.code, ErrorCode::NothingToSend, "{path}");
                    assert!(got.message.ends_with(&cli.to_string()), "{}", got.message);
                    refused += 1;
                }
                (got, cli) => panic!("{path} to {to}: {got:?}, the CLI {cli:?}"),
            }
        }
        // Hidden (the default), as `retrace show` prints them.
        show(&mut tab, false);
        let rules = Arc::new(Rules::builtin());
        let hidden = cli
            .context(at, &mut RedactingSource::new(&mut source, rules))
            .unwrap();
        assert_eq!(context(&mut tab, leaf).unwrap().messages, hidden, "{path}");
    }
    assert!(
        inputs > 60 && branches > 50,
        "{inputs} inputs, {branches} branches"
    );
    assert!(
        migrated > 200 && refused > 0,
        "{migrated} migrated, {refused} refused"
    );
}

#[test]
fn a_rewound_pi_session_as_a_tree() {
    let mut tab = Tab::new();
    let summary = tab.open(memory(&[one(BRANCHING)]));
    let t = tree(&mut tab);
    // The header is no node; e1 to e8 are entries 1 to 8.
    assert_eq!(
        t.nodes.label,
        ["e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8"]
    );
    assert_eq!(
        t.nodes.parent,
        [
            None,
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            Some(5),
            Some(2),
            Some(7)
        ]
    );
    assert_eq!(t.roots, [1]);
    assert_eq!(t.leaves, [6, 8]);
    assert_eq!(t.default_leaf, Some(8));
    assert_eq!(t.branch_points.len(), 1);
    let rewind = &t.branch_points[0];
    assert_eq!(
        (rewind.entry.0, rewind.kind, rewind.children),
        (2, BranchKind::Real, 2)
    );
    assert_eq!(t.nodes.types[t.nodes.type_of[7] as usize], "future_entry");
    assert_eq!(summary.figures.nodes, t.nodes.len());

    // The branch through the compaction: its summary, then what it kept.
    let c = context(&mut tab, 6).unwrap();
    let entries: Vec<&[String]> = c.messages.iter().map(|m| m.entries.as_slice()).collect();
    assert_eq!(
        entries,
        [
            &["e5".to_owned()][..],
            &["e3".into()],
            &["e4".into()],
            &["e6".into()]
        ]
    );
    // The other branch ends on a call without a result: Anthropic's
    // history answers it (a result written), and says so.
    let m = migrate(&mut tab, 8, Api::Anthropic).unwrap();
    assert_eq!(m.report.to, Api::Anthropic);
    assert!(
        m.report
            .changes
            .iter()
            .any(|c| c.code == "call-without-result"),
        "{:?}",
        m.report
    );
    assert_eq!(m.body["messages"][0]["role"], "user");
}

#[test]
fn hidden_values_stay_out_of_contexts_and_migrations() {
    let mut tab = Tab::new();
    let summary = tab.open(memory(&[one(SENSITIVE)]));
    let leaf = summary.default_leaf.unwrap();
    // Shown, the values a redacted copy takes out are named beside.
    show(&mut tab, true);
    let shown = context(&mut tab, leaf).unwrap();
    assert!(!shown.revealed.is_empty(), "nothing revealed");
    let text = serde_json::to_string(&shown.messages).unwrap();
    assert!(!text.contains('\u{E000}'), "marks left in");
    let migrated = migrate(&mut tab, leaf, Api::OpenAiChat).unwrap();
    assert_eq!(migrated.revealed, shown.revealed);
    // Hidden (the default): none of them, the placeholders instead.
    show(&mut tab, false);
    let hidden = context(&mut tab, leaf).unwrap();
    assert!(hidden.revealed.is_empty());
    for to in Api::ALL {
        let body = migrate(&mut tab, leaf, to).unwrap().body.to_string();
        let text = serde_json::to_string(&hidden.messages).unwrap() + &body;
        assert!(text.contains("[REDACTED:"), "{to}");
        for value in &shown.revealed {
            let escaped = serde_json::to_string(value).unwrap();
            assert!(
                !text.contains(&escaped[1..escaped.len() - 1]),
                "{to}: {value} shown"
            );
        }
    }
}

#[test]
fn what_cannot_be_answered_says_why() {
    let mut tab = Tab::new();
    let code = |r: Result<Response, EngineError>| r.unwrap_err().code;
    for request in [
        Request::Tree,
        Request::Context { leaf: 0 },
        Request::Migrate {
            leaf: 0,
            to: Api::Google,
        },
    ] {
        assert_eq!(code(tab.ask(request, None)), ErrorCode::NoSession);
    }
    tab.open(memory(&[one(BRANCHING)]));
    // The header is no node.
    assert_eq!(
        code(tab.ask(Request::Context { leaf: 0 }, None)),
        ErrorCode::NotFound
    );
    let far = Request::Migrate {
        leaf: 1 << 30,
        to: Api::Google,
    };
    let e = tab.ask(far, None).unwrap_err();
    assert_eq!(
        (e.code, e.message.as_str()),
        (ErrorCode::NotFound, "entry 1073741824 is not in the tree")
    );
    // A branch of a system prompt alone: nothing any API takes.
    let mut files = MemoryFiles::new();
    files.add(
        "system.json",
        br#"[{"role": "system", "content": "Be brief."}]"#.as_slice(),
    );
    let summary = tab.open(files);
    assert_eq!(summary.figures.format, "openai-chat-messages");
    let leaf = summary.default_leaf.unwrap();
    assert_eq!(context(&mut tab, leaf).unwrap().messages.len(), 1);
    let e = migrate(&mut tab, leaf, Api::OpenAiChat).unwrap_err();
    assert_eq!(e.code, ErrorCode::NothingToSend);
    assert!(
        e.message.starts_with("leaf L1 (line 1): nothing to send:"),
        "{}",
        e.message
    );
}
