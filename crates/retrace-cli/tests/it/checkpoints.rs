//! Git checkpoints on the timeline: the store's `checkpoint` events and
//! Codex's `ghost_snapshot`, in `show` and `tree`.

use crate::common::*;

const STORE: &str = "events/checkpoints/events.jsonl";
const GHOST: &str = "codex/ghost-snapshot/rollout.jsonl";

#[test]
fn show_marks_the_stores_checkpoints_with_their_files() {
    retrace_snapshot!(cmd(&["show", &fixture(STORE)]), @r#"
    exit_code: 0
    ----- stdout -----
    ── user · 2026-02-10 14:00:00 · line 1 ──
    Add a --verbose flag and note it in notes.md.

    ── user (context) · 2026-02-10 14:00:00 · line 2 ──
    [prompt sent to the model] Add a --verbose flag and note it in notes.md.

    ── assistant · gpt-4o-mini · 2026-02-10 14:00:00 · line 2 ──
    I will edit src/main.rs and write notes.md.
       tokens: in 40 out 12 cache read 0 cache write 0

    ── assistant · 2026-02-10 14:00:01 · line 3 ──
    ▶ write_file  (tool@L3)
       files:
          [
            "src/main.rs",
            "notes.md"
          ]
       │ wrote 2 files

    ── event · 2026-02-10 14:00:01 · line 4 ──
    ◆ checkpoint 3f2a1c9 tool_write_file_20260210140001 — write_file: src/main.rs (updated), notes.md (created)

    ── assistant · 2026-02-10 14:00:02 · line 5 ──
    ▶ delete_file  (tool@L5)
       path: old_notes.txt
       │ deleted

    ── event · 2026-02-10 14:00:02 · line 6 ──
    ◆ checkpoint 9c8b7a6 tool_delete_file_20260210140002 — delete_file: old_notes.txt (deleted)

    ── assistant · 2026-02-10 14:00:03 · line 7 ──
    Added --verbose; notes.md explains it; old_notes.txt removed.

    ----- stderr -----
    "#);
    // In JSON, the marker holds the checkpoint whole.
    let o = retrace(&["show", "--json", &fixture(STORE)]);
    let markers: Vec<serde_json::Value> = json_lines(&o)
        .into_iter()
        .filter(|m| m["kind"] == "marker")
        .collect();
    assert_eq!(markers.len(), 2);
    insta::assert_snapshot!(
        serde_json::to_string_pretty(&markers[0]["content"]).unwrap(),
        @r#"
    [
      {
        "commit": "3f2a1c9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "files": [
          {
            "change": "updated",
            "path": "src/main.rs"
          },
          {
            "change": "created",
            "path": "notes.md"
          }
        ],
        "tag": "tool_write_file_20260210140001",
        "tool": "write_file",
        "type": "checkpoint"
      }
    ]
    "#
    );
    // `cat` gives the lines back byte for byte, the fields the schema does
    // not name (`event`, `workspace`) included.
    let o = retrace(&["cat", &fixture(STORE)]);
    assert!(o.stdout == std::fs::read(fixture(STORE)).unwrap());
}

#[test]
fn show_marks_a_codex_ghost_snapshot() {
    retrace_snapshot!(cmd(&["show", &fixture(GHOST)]), @r#"
    exit_code: 0
    ----- stdout -----
    ── user (context) · 2025-11-17 21:30:45 · line 2 ──
    [environment] cwd: /home/user/projects/temp/chatbot-ui (+4 lines)

    ── user · 2025-11-17 21:32:46 · line 3 ──
    finish up the users work by rigging up the chatbot-ui to use lmstudio instead of their initial implementatiion of ollama. the user just replace endpoints and names in files that mentioned ollama, so look for functions etc... that still need work to get this working. "LM Studio configuration.md" read this to help you

    ── event · 2025-11-17 21:32:47 · line 6 ──
    ◆ checkpoint a01966e (on 0f022a0) · 16 untracked before, kept on restore
       untracked: .browser-echo-mcp.json
       untracked: LM Studio configuration.md
       untracked: sb-creds.log
       untracked: supabase-creds.log
       untracked: .env.local
       … 11 more

    ── assistant · gpt-5.1-codex · 2025-11-17 21:32:50 · line 10 ──
    [turn settings] model gpt-5.1-codex · effort high · approval never · cwd /home/user/projects/temp/chatbot-ui · sandbox danger-full-access
    [thinking]
       **Planning repository inspection**
    [/thinking]
    ▶ shell · $ ls  (call_GfHib9GW3d5m9EB1wMTper0j)
       in /home/user/projects/temp/chatbot-ui
       │ LM Studio configuration.md
       │ README.md
       │ __tests__
       │ app
       │ components
       │ components.json
       │ context
       │ db
       │ debug-supabase_push.log
       │ i18nConfig.js
       │ jest.config.ts
       │ lib
       │ license
       │ middleware.ts
       │ next-env.d.ts
       │ next.config.js
       │ node_modules
       │ package-lock.json
       │ package.json
       │ pnpm-lock.yaml
       │ postcss.config.js
       │ prettier.config.cjs
       │ public
       │ sb-creds.log
       │ supabase
       │ supabase-creds.log
       │ tailwind.config.ts
       │ tsconfig.json
       │ types
       │ worker
       ← exit 0
       tokens: in 10128 out 37 cache read 0 cache write 0

    ----- stderr -----
    "#);
}

#[test]
fn tree_marks_the_checkpoints() {
    retrace_snapshot!(cmd(&["tree", &fixture(STORE)]), @r#"
    exit_code: 0
    ----- stdout -----
    events · 7 entries · 1 leaves · 0 real branch points
    ● L1 … L7  7 entries, lines 1–7 [4 assistant, 2 checkpoint, 1 user] · ◆ 2 checkpoints (lines 4, 6)  "Add a --verbose flag and note it in notes.md." ◀ leaf (default)
    ----- stderr -----
    "#);
    retrace_snapshot!(cmd(&["tree", &fixture(GHOST)]), @r#"
    exit_code: 0
    ----- stdout -----
    codex · 14 entries · 1 leaves · 0 real branch points
    ● 019a93b9-f380-7600-98ff-940e6b99603c … L14  14 entries, lines 1–14 [2 assistant, 5 event_msg, 1 response_item, 1 session_meta, 1 tool, 2 turn_context, 2 user] · ◆ 1 checkpoint (line 6)  "finish up the users work by rigging up the chatbot-ui to use lmstudio instead of…" ◀ leaf (default)
    ----- stderr -----
    "#);
    let doc = &json_lines(&retrace(&["tree", "--json", &fixture(STORE)]))[0];
    let marked: Vec<u64> = doc["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["checkpoint"] == true)
        .map(|n| n["line"].as_u64().unwrap())
        .collect();
    assert_eq!(marked, [4, 6]);
    insta::assert_snapshot!(serde_json::to_string_pretty(&doc["segments"]).unwrap(), @r#"
    [
      {
        "checkpoints": [
          "L4",
          "L6"
        ],
        "children": [],
        "depth": 0,
        "first": "L1",
        "last": "L7",
        "len": 7,
        "parent": null,
        "preview": {
          "prompt": true,
          "role": "user",
          "text": "Add a --verbose flag and note it in notes.md."
        }
      }
    ]
    "#);
}
