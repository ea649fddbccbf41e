//! `retrace search`.

use crate::common::*;

#[test]
fn search_prints_a_line_per_hit_and_exits_0() {
    retrace_snapshot!(cmd(&["search", &corpus(PI_V1), "README", "--limit", "4"]), @r#"
    exit_code: 0
    ----- stdout -----
    L3 (line 3, assistant): …opt/homebrew/lib/node_modules/@mariozechner/pi-coding-agent/README.md"}
    L4 (line 4, tool): …ools invoked via bash rather than MCP. Create a tool with a README: `~/agent-tools/screenshot/README.md`: ```markdown # Scree…
    L5 (line 5, assistant): The README has a "Custom Tools" section. Let me check if there's more…
    L7 (line 7, assistant): …ools invoked via bash rather than MCP. Create a tool with a README... This refers to the "lightweight" approach of just makin…
    ----- stderr -----
    retrace: [CORPUS]/pi/badlogic__pi-mono/session.jsonl: more than 4 hits, the first 4 shown (--limit)
    "#);
    // One JSON object per hit; the leaf is a label `--leaf` takes.
    retrace_snapshot!(
        cmd(&["search", "--json", &corpus(PI_V3), "sanitized"]).pretty(),
        @r#"
    exit_code: 0
    ----- stdout -----
    {
      "label": "e1",
      "file": 0,
      "line": 2,
      "role": "user",
      "snippet": "sanitized",
      "leaf": "e8"
    }
    {
      "label": "e6",
      "file": 0,
      "line": 7,
      "role": "assistant",
      "snippet": "sanitized",
      "leaf": "e6"
    }
    ----- stderr -----
    "#
    );
}

#[test]
fn no_hit_exits_1_as_grep_does() {
    retrace_snapshot!(cmd(&["search", &corpus(PI_V3), "no such words here"]), @"
    exit_code: 1
    ----- stdout -----
    ----- stderr -----
    ");
    // Keys and ids are markup, not text.
    retrace_snapshot!(cmd(&["search", &corpus(PI_V3), "parentId"]), @"
    exit_code: 1
    ----- stdout -----
    ----- stderr -----
    ");
    retrace_snapshot!(cmd(&["search", "/no/such/file.jsonl", "x"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: /no/such/file.jsonl: no such file or directory
    ");
    retrace_snapshot!(cmd(&["search", &corpus(PI_V3), "x", "--limit", "0"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: invalid value '0' for '--limit <LIMIT>': `0` is not a number of hits (1 or more)

    For more information, try '--help'.
    ");
}

#[test]
fn in_chooses_whose_entries_are_searched() {
    // Events are left out unless asked for (as in the viewer).
    let path = corpus(PI_V3);
    retrace_snapshot!(cmd(&["search", &path, "alpha"]), @"
    exit_code: 1
    ----- stdout -----
    ----- stderr -----
    ");
    retrace_snapshot!(cmd(&["search", &path, "alpha", "--in", "events"]), @"
    exit_code: 0
    ----- stdout -----
    e2 (line 3, event): model → acme/alpha
    ----- stderr -----
    ");
    retrace_snapshot!(cmd(&["search", &path, "sanitized", "--in", "user,tool"]), @"
    exit_code: 0
    ----- stdout -----
    e1 (line 2, user): sanitized
    ----- stderr -----
    ");
    retrace_snapshot!(cmd(&["search", &path, "x", "--in", "people"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: invalid value 'people' for '--in <WHO>'
      [possible values: user, assistant, tool, events]

    For more information, try '--help'.
    ");
}

#[test]
fn a_folder_names_the_file_of_a_later_hit() {
    retrace_snapshot!(cmd(&["search", &corpus(PROJECT), "fresh spawn"]), @"
    exit_code: 0
    ----- stdout -----
    d9f6f09b-cd03-41bb-ae5f-5ef11340d3a6 (line 135, assistant): …(round 2). You are NOT resuming a prior session — this is a fresh spawn, but you inherit a concrete task and an existing git worktr…
    385ba101-e994-4bfe-98ed-5156be7b4441 (line 136, assistant): …(round 2). You are NOT resuming a prior session — this is a fresh spawn, but you inherit a concrete task and an existing git worktr…
    4b2260a0-607c-49eb-8340-2da4cd1c230e (line 137, assistant): …(round 2). You are NOT resuming a prior session — this is a fresh spawn, but you inherit a concrete task and an existing git worktr…
    ec72d4f9-49fc-499c-bef2-a4cdf59307ad (file 1, line 1, user): …(round 2). You are NOT resuming a prior session — this is a fresh spawn, but you inherit a concrete task and an existing git worktr…
    da888976-6734-472b-938c-12d6a2aa134f (file 4, line 1, user): …(round 2). You are NOT resuming a prior session — this is a fresh spawn, but you inherit a concrete task and an existing git worktr…
    de842583-8567-49ff-b4b5-28af8ea72968 (file 6, line 1, user): …(round 2). You are NOT resuming a prior session — this is a fresh spawn, but you inherit a concrete task and an existing git worktr…
    ----- stderr -----
    ");
}

#[test]
fn quotes_and_accents_are_found_as_written_in_the_text() {
    // A quote is `\"` in the file; the text has it as typed.
    let path = corpus(&format!(
        "{GEMINI_ARCHIVE}/session-2026-01-10T01-38-1deca764.json"
    ));
    retrace_snapshot!(cmd(&["search", &path, "\"hideBanner\"", "--limit", "2"]), @r#"
    exit_code: 0
    ----- stdout -----
    08e11636-9bfd-4766-8623-314e27cd0cf4 (line 119, assistant): …ings.json` file. The `"ui"` section seems promising. While `"hideBanner"` is present, it likely targets the standard program header,…
    e97bfbc6-ab38-47b4-9077-a63cb79c0062 (line 230, assistant): …file, specifically `settings.json`. I've noted the `"ui": { "hideBanner": false }` setting. I can see that the warning message is di…
    ----- stderr -----
    retrace: [CORPUS]/gemini-cli/mischa-thisness__M-Gemini/Archives/session-2026-01-10T01-38-1deca764.json: more than 2 hits, the first 2 shown (--limit)
    "#);
    // Case folds beyond ASCII: `FÉVR` finds `févr.` (a French `ls -l`).
    let ideas = corpus(
        "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-ideas/03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl",
    );
    retrace_snapshot!(cmd(&["search", &ideas, "FÉVR"]), @"
    exit_code: 0
    ----- stdout -----
    ddaea810-9825-40b6-9003-b2094061cca7 (line 9, tool): total 12 drwxrwxr-x 2 cboos cboos 4096 févr. 16 19:46 . drwxrwxr-x 3 cboos cboos 4096 févr. 16 19:46 ..…
    ----- stderr -----
    ");
}

/// `--redact` searches the text as the viewer shows it by default: a value
/// the rules hide is not found, and snippets show placeholders.
#[test]
fn redact_searches_the_text_as_shown() {
    let path = fixture("redact/corpus-s11.jsonl");
    retrace_snapshot!(cmd(&["search", &path, "liam+billing@quartzmeadow.org"]), @r#"
    exit_code: 0
    ----- stdout -----
    13ec8f05-029b-4808-b23e-e7b9305dfd02 (line 408, tool): …2 - - [14/Mar/2025:13:41:11 +0000] \"GET /unsubscribe?email=liam+billing@quartzmeadow.org HTTP/1.1\" 404 492 \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\…
    ----- stderr -----
    "#);
    retrace_snapshot!(cmd(&["search", "--redact", &path, "liam+billing@quartzmeadow.org"]), @"
    exit_code: 1
    ----- stdout -----
    ----- stderr -----
    ");
    retrace_snapshot!(cmd(&["search", "--redact", &path, "unsubscribe?email"]), @r#"
    exit_code: 0
    ----- stdout -----
    13ec8f05-029b-4808-b23e-e7b9305dfd02 (line 408, tool): …DACTED:ipv6-global] - - [14/Mar/2025:13:41:11 +0000] \"GET /unsubscribe?email=[REDACTED:email] HTTP/1.1\" 404 492 \"-\" \"Mozilla/5.0 (X1…
    2994ed02-704c-491b-89ec-028dc654171a (line 457, tool): …tent":"10.63.125.37 - - [14/Mar/2025:14:19:47 +0000] \"GET /unsubscribe?email=[REDACTED:email] HTTP/1.1\" 404 17817 \"-\" \"Mozilla/5.0 (…
    ----- stderr -----
    "#);
}
