//! `retrace points`, `fork` and `snapshot`: safe fork points, a new session
//! from one, and named bookmarks.

use crate::common::*;

/// A pi session: a prompt, two parallel calls answered one after the
/// other, a reply.
const PI: &str = concat!(
    "{\"type\":\"session\",\"version\":3,\"id\":\"old-session\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n",
    "{\"type\":\"message\",\"id\":\"e1\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n",
    "{\"type\":\"message\",\"id\":\"e2\",\"parentId\":\"e1\",\"timestamp\":\"2025-01-01T00:00:02.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"id\":\"c1\",\"name\":\"ls\",\"arguments\":{}},{\"type\":\"toolCall\",\"id\":\"c2\",\"name\":\"ls\",\"arguments\":{}}]}}\n",
    "{\"type\":\"message\",\"id\":\"e3\",\"parentId\":\"e2\",\"timestamp\":\"2025-01-01T00:00:03.000Z\",\"message\":{\"role\":\"toolResult\",\"toolCallId\":\"c1\",\"toolName\":\"ls\",\"content\":[],\"isError\":false}}\n",
    "{\"type\":\"message\",\"id\":\"e4\",\"parentId\":\"e3\",\"timestamp\":\"2025-01-01T00:00:04.000Z\",\"message\":{\"role\":\"toolResult\",\"toolCallId\":\"c2\",\"toolName\":\"ls\",\"content\":[],\"isError\":false}}\n",
    "{\"type\":\"message\",\"id\":\"e5\",\"parentId\":\"e4\",\"timestamp\":\"2025-01-01T00:00:05.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n",
);

fn pi_file(test: &str) -> String {
    let dir = scratch(test);
    let file = dir.join("s.jsonl");
    std::fs::write(&file, PI).unwrap();
    file.to_str().unwrap().to_owned()
}

const TIME: &str = "2026-01-02T03:04:05Z";
const ID: &str = "0badf00d-1234-4abc-8def-0123456789ab";

#[test]
fn points_lists_each_safe_fork_point() {
    let file = pi_file("points");
    retrace_snapshot!(cmd(&["points", &file]), @"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/points/s.jsonl: 2 safe fork points on the branch ending at e5
    sfp:0    L2      user         e1
    sfp:1    L5      tool_result  e4
    ----- stderr -----
    ");
    retrace_snapshot!(cmd(&["points", "--json", &file]).pretty(), @r#"
    exit_code: 0
    ----- stdout -----
    {
      "leaf": "e5",
      "path": "[SCRATCH]/points/s.jsonl",
      "points": [
        {
          "id": "e1",
          "index": 0,
          "kind": "user",
          "label": "sfp:0",
          "line": 2,
          "unanswered": 0
        },
        {
          "id": "e4",
          "index": 1,
          "kind": "tool_result",
          "label": "sfp:1",
          "line": 5,
          "unanswered": 0
        }
      ]
    }
    ----- stderr -----
    "#);
}

#[test]
fn fork_writes_the_prefix_with_a_new_header() {
    let file = pi_file("fork");
    retrace_snapshot!(cmd(&["fork", &file, "--at", "sfp:1", "--id", ID, "--time", TIME]), @r#"
    exit_code: 0
    ----- stdout -----
    {"type":"session","version":3,"id":"0badf00d-1234-4abc-8def-0123456789ab","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/w","parentSession":"[SCRATCH]/fork/s.jsonl"}
    {"type":"message","id":"e1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}
    {"type":"message","id":"e2","parentId":"e1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"ls","arguments":{}},{"type":"toolCall","id":"c2","name":"ls","arguments":{}}]}}
    {"type":"message","id":"e3","parentId":"e2","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[],"isError":false}}
    {"type":"message","id":"e4","parentId":"e3","timestamp":"2025-01-01T00:00:04.000Z","message":{"role":"toolResult","toolCallId":"c2","toolName":"ls","content":[],"isError":false}}
    ----- stderr -----
    retrace: [SCRATCH]/fork/s.jsonl: the branch ending at e4 (5 entries) copied line for line
    retrace: [SCRATCH]/fork/s.jsonl: new header: id 0badf00d-1234-4abc-8def-0123456789ab (was old-session), parentSession [SCRATCH]/fork/s.jsonl
    "#);
    let out = format!("{}/fork.jsonl", file.trim_end_matches("/s.jsonl"));
    retrace_snapshot!(
        cmd(&["fork", &file, "--at", "e1", "--id", ID, "--time", TIME, "-o", &out, "--json"]).pretty(),
        @r#"
    exit_code: 0
    ----- stdout -----
    {
      "at": "e1",
      "notes": [
        {
          "action": "forked",
          "id": "e1",
          "line": 2,
          "message": "the branch ending at e1 (2 entries) copied line for line"
        },
        {
          "action": "lineage",
          "message": "new header: id 0badf00d-1234-4abc-8def-0123456789ab (was old-session), parentSession [SCRATCH]/fork/s.jsonl"
        }
      ],
      "output": "[SCRATCH]/fork/fork.jsonl",
      "path": "[SCRATCH]/fork/s.jsonl",
      "session_id": "0badf00d-1234-4abc-8def-0123456789ab"
    }
    ----- stderr -----
    "#
    );
    let forked = std::fs::read_to_string(&out).unwrap();
    assert_eq!(forked.lines().count(), 2);
    assert!(forked.ends_with(&format!("{}\n", PI.lines().nth(1).unwrap())));
}

#[test]
fn fork_refuses_a_point_that_cuts_a_call_from_its_result() {
    let file = pi_file("fork_refused");
    retrace_snapshot!(cmd(&["fork", &file, "--at", "e3", "--id", ID, "--time", TIME]), @r#"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/fork_refused/s.jsonl: e3 is not a safe fork point: tool call "c2" (at e2) would be left without its result, which comes later on the branch
    "#);
    retrace_snapshot!(cmd(&["fork", &file, "--at", "sfp:7"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/fork_refused/s.jsonl: --at sfp:7: the branch has 2 safe fork points (sfp:0 to sfp:1); `retrace points` lists them
    ");
}

#[test]
fn fork_of_a_claude_code_session_takes_a_new_session_id() {
    let path = corpus("claude-code/iansherr__claude-code-log/test/test_data/dag_fork.jsonl");
    let o = retrace(&["fork", &path, "--at", "sfp:1", "--id", ID, "--time", TIME]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for line in stdout(&o).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["sessionId"], ID);
    }
    assert!(stderr(&o).contains(&format!("write the file as {ID}.jsonl")));
}

#[test]
fn snapshot_appends_a_pi_label_or_writes_a_side_car() {
    let file = pi_file("snapshot");
    retrace_snapshot!(
        cmd(&["snapshot", &file, "start", "--at", "e1", "--id", "a1b2c3d4", "--time", TIME]),
        @r#"
    exit_code: 0
    ----- stdout -----
    [SCRATCH]/snapshot/s.jsonl: snapshot "start": label entry appended to [SCRATCH]/snapshot/s.jsonl
      snapshot: label entry a1b2c3d4 appended: "start" on e1
    ----- stderr -----
    "#
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert_eq!(text.strip_prefix(PI).unwrap(), "{\"type\":\"label\",\"id\":\"a1b2c3d4\",\"parentId\":\"e5\",\"timestamp\":\"2026-01-02T03:04:05.000Z\",\"targetId\":\"e1\",\"label\":\"start\"}\n");

    let dir = scratch("snapshot_side_car");
    let events = dir.join("events.jsonl");
    std::fs::copy(fixture("events/events.jsonl"), &events).unwrap();
    let events = events.to_str().unwrap();
    retrace_snapshot!(
        cmd(&["snapshot", events, "start", "--at", "L2", "--time", TIME, "--json"]).pretty(),
        @r#"
    exit_code: 0
    ----- stdout -----
    {
      "at": "L2",
      "name": "start",
      "notes": [
        {
          "action": "snapshot",
          "id": "L2",
          "line": 2,
          "message": "\"start\" on L2 in the side-car"
        }
      ],
      "path": "[SCRATCH]/snapshot_side_car/events.jsonl",
      "target": "side_car",
      "written": "[SCRATCH]/snapshot_side_car/events.jsonl.snapshots.json"
    }
    ----- stderr -----
    "#
    );
    let side_car = std::fs::read_to_string(format!("{events}.snapshots.json")).unwrap();
    insta::assert_snapshot!(side_car, @r#"
    {
      "snapshots": [
        {
          "name": "start",
          "target": "L2",
          "line": 2,
          "time": "2026-01-02T03:04:05.000Z"
        }
      ]
    }
    "#);
}

#[test]
fn fork_of_a_gemini_log_takes_a_new_session_id_and_the_fork_time() {
    // The log's model turn was rewritten twice: the fork carries its last
    // version; `$set` records are left out.
    let path = fixture("gemini/session-2026-02-03T09-00-5c1f3a9e.jsonl");
    retrace_snapshot!(cmd(&["fork", &path, "--at", "sfp:1", "--id", ID, "--time", TIME]), @r#"
    exit_code: 0
    ----- stdout -----
    {"sessionId": "0badf00d-1234-4abc-8def-0123456789ab", "projectHash": "9b2e6f4a1c3d5e7f9a0b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e0f", "startTime": "2026-01-02T03:04:05.000Z", "lastUpdated": "2026-01-02T03:04:05.000Z", "kind": "main"}
    {"id": "3a7c9e1f-5b2d-4c6e-8a0f-1d3b5f7a9c2e", "timestamp": "2026-02-03T09:00:01.000Z", "type": "user", "content": [{"text": "List the files in src."}]}
    {"id": "8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10", "timestamp": "2026-02-03T09:00:03.000Z", "type": "gemini", "content": "", "toolCalls": [{"id": "list_directory-1770109203000-a1b2c3d4", "name": "list_directory", "args": {"path": "src"}, "status": "success", "timestamp": "2026-02-03T09:00:03.000Z", "result": [{"functionResponse": {"id": "list_directory-1770109203000-a1b2c3d4", "name": "list_directory", "response": {"output": "main.rs\nlib.rs"}}}], "resultDisplay": "2 files"}], "thoughts": [{"subject": "Listing the directory", "description": "I'll list src to see what is there.", "timestamp": "2026-02-03T09:00:02.000Z"}], "model": "gemini-2.5-pro", "tokens": {"input": 5210, "output": 18, "cached": 0, "thoughts": 64, "tool": 0, "total": 5292}}
    ----- stderr -----
    retrace: [FIXTURES]/gemini/session-2026-02-03T09-00-5c1f3a9e.jsonl: the branch ending at 8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10 (3 entries) copied line for line
    retrace: [FIXTURES]/gemini/session-2026-02-03T09-00-5c1f3a9e.jsonl: sessionId 0badf00d-1234-4abc-8def-0123456789ab (was 5c1f3a9e-2b7d-4e8a-9f01-6d2c4b8a7e35), startTime and lastUpdated 2026-01-02T03:04:05.000Z in its metadata record; Gemini CLI has no field for a parent session, so the lineage is only this note (forked from 5c1f3a9e-2b7d-4e8a-9f01-6d2c4b8a7e35 at 8d1e0c6a-0b9f-4a0e-9d57-2f1c7e3b9a10); `$set` and `$rewindTo` records and earlier versions of messages are not carried (the branch is what Gemini CLI would load); name the file session-2026-01-02T03-04-0badf00d.jsonl in ~/.gemini/tmp/<projectHash>/chats/ for Gemini CLI to list it
    "#);
}

#[test]
fn fork_of_a_legacy_gemini_document_is_a_document() {
    let path = fixture("gemini/split/session-2026-02-04T10-00-7e3d9c21.json");
    retrace_snapshot!(cmd(&["fork", &path, "--at", "sfp:0", "--id", ID, "--time", TIME]), @r#"
    exit_code: 0
    ----- stdout -----
    {
      "sessionId": "0badf00d-1234-4abc-8def-0123456789ab",
      "projectHash": "1f3e5d7c9b0a2e4d6c8b0a1f3e5d7c9b1a2e4d6c8b0a1f3e5d7c9b0a2e4d6c8",
      "startTime": "2026-01-02T03:04:05.000Z",
      "lastUpdated": "2026-01-02T03:04:05.000Z",
      "messages": [
        {
          "id": "11111111-aaaa-4bbb-8ccc-000000000001",
          "timestamp": "2026-02-04T10:00:05.000Z",
          "type": "user",
          "content": "What does `git status` say?"
        }
      ]
    }
    ----- stderr -----
    retrace: [FIXTURES]/gemini/split/session-2026-02-04T10-00-7e3d9c21.json: the branch ending at 11111111-aaaa-4bbb-8ccc-000000000001 (1 entries) copied element for element, in the document's own frame
    retrace: [FIXTURES]/gemini/split/session-2026-02-04T10-00-7e3d9c21.json: sessionId 0badf00d-1234-4abc-8def-0123456789ab (was 7e3d9c21-8a4b-4c6d-9e0f-1a2b3c4d5e6f), startTime and lastUpdated 2026-01-02T03:04:05.000Z in the document's head; Gemini CLI has no field for a parent session, so the lineage is only this note (forked from 7e3d9c21-8a4b-4c6d-9e0f-1a2b3c4d5e6f at 11111111-aaaa-4bbb-8ccc-000000000001); name the file session-2026-01-02T03-04-0badf00d.json in ~/.gemini/tmp/<projectHash>/chats/ for Gemini CLI to list it
    "#);
}
