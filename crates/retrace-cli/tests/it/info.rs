//! `retrace info`.

use crate::common::*;

#[test]
fn info_json_counts() {
    // Counts checked by hand with a Python pass over the files (see the
    // core's corpus tests for the derivation).
    // pi v1: 464 entries, one leaf, no branch point, 189 tool calls, 12
    // tool errors; one diagnostic: the run-together line 440. Checked with
    // Python over the file: 189 toolResult messages, 220 assistant
    // messages (455 messages in all), usage summed over them (cost
    // 19.9651645), min/max timestamps.
    // Claude Code: 99 entries, 2 leaves, 1 branch point, 26 tool calls
    // (26 results, 3 errors). 46 assistant lines carry 28 distinct
    // `message.id`s (split responses); usage counted once per response.
    // Claude Code records no cost.
    retrace_snapshot!(cmd(&["info", "--json", &corpus(PI_V1), &corpus(CLAUDE_REWIND)]).pretty());
}

#[test]
fn info_text_names_format_and_models() {
    retrace_snapshot!(cmd(&["info", &corpus(PI_V1)]), @"
    exit_code: 0
    ----- stdout -----
    [CORPUS]/pi/badlogic__pi-mono/session.jsonl
      title         do you know how to create a custom tool?
      format        pi v1
      entries       464 in 1 file, 455 messages
      time          2025-12-17T19:39:17.548Z – 2025-12-17T21:23:29.721Z (1h 44m)
      branches      1 leaves, 0 real branch points (0 structural fan-outs)
      tool calls    189 (189 results, 12 errors; 0 without result, 0 results without call)
      model         claude-opus-4-5: 220 messages; tokens in 1568 out 46995 cache read 25283499 cache write 982512, $19.97
      diagnostics   1 (0 errors, 1 warnings)
    ----- stderr -----
    ");
}

#[test]
fn stdin_is_read_with_a_dash() {
    // 9 entries, 2 leaves.
    let bytes = std::fs::read(corpus(PI_V3)).unwrap();
    retrace_snapshot!(cmd(&["info", "--json", "-"]).stdin(bytes).pretty());
}

#[test]
fn a_project_folder_links_its_subagents() {
    // 7 files, 6 subagents; 117 tool calls: 40 calls in the main file
    // plus those of the six subagents, none without a result.
    retrace_snapshot!(cmd(&["info", "--json", &corpus(PROJECT)]).pretty());
}

#[test]
fn info_reads_codex_and_events() {
    // Counts checked by hand: see the core's codex and events tests.
    // Codex: 279 entries, 80 messages, 1 marker (the ghost snapshot's
    // checkpoint), 39 tool calls, 3 tool errors; for gpt-5.1-codex 71933
    // input, 1027328 cache read, 22305 output tokens.
    // The fork: 3 files, 12 messages, 3 leaves, 1 branch point, 1 subagent.
    // The events split set: 11 files, 13 entries, 1 leaf, 10 tool calls,
    // no diagnostic.
    retrace_snapshot!(cmd(&[
        "info",
        "--json",
        &corpus(CODEX),
        &fixture("codex/fork"),
        &fixture("events/split"),
    ])
    .pretty());
}

/// `info` names the session by its title, the first prompt someone typed
/// (not the caveat, `!` command or `/clear` before it), as `list` does.
#[test]
fn info_names_the_title_as_list_does() {
    retrace_snapshot!(cmd(&["info", &corpus(CLAUDE_REWIND)]), @"
    exit_code: 0
    ----- stdout -----
    [CORPUS]/claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl
      title         Please fix these lint errors
      format        claude-code
      entries       99 in 1 file, 61 messages
      time          2025-07-17T10:50:04.055Z – 2025-07-17T20:52:33.538Z (10h 02m)
      branches      2 leaves, 1 real branch points (0 structural fan-outs)
      tool calls    26 (26 results, 3 errors; 0 without result, 0 results without call)
      model         claude-sonnet-4-20250514: 28 messages; tokens in 119 out 1873 cache read 836558 cache write 40058
      diagnostics   0 (0 errors, 0 warnings)
    ----- stderr -----
    ");
    let info = &json_lines(&retrace(&["info", "--json", &corpus(CLAUDE_REWIND)]))[0];
    let dir = std::path::Path::new(&corpus(CLAUDE_REWIND))
        .parent()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let listed: serde_json::Value =
        serde_json::from_slice(&retrace(&["list", "--json", &dir]).stdout).unwrap();
    let session = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| {
            s["path"]
                .as_str()
                .is_some_and(|p| p.ends_with("937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl"))
        })
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(info["title"], session["title"], "{session}");
}
