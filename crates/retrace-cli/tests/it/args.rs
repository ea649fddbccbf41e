//! The command line itself: global options (`-q`, `--no-progress`,
//! `--format` in `inputs`), and flags a command cannot honour.

use crate::common::*;

#[test]
fn quiet_drops_notes_but_not_output_or_errors() {
    // `cat` of a folder whose branch begins in a JSON document notes the
    // relaid messages; `-q` drops the note, not the lines.
    let dir = fixture("gemini/mixed-split");
    let loud = retrace(&["cat", &dir]);
    assert!(!loud.stderr.is_empty());
    let quiet = retrace(&["cat", "-q", &dir]);
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!(quiet.stdout, loud.stdout);
    assert!(quiet.stderr.is_empty(), "{}", stderr(&quiet));
    // `migrate`: the body, without the line about what was lost.
    let path = fixture("provider/anthropic-messages.json");
    let loud = retrace(&["migrate", &path, "--to", "openai"]);
    assert!(!loud.stderr.is_empty());
    let quiet = retrace(&["-q", "migrate", &path, "--to", "openai"]);
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!(quiet.stdout, loud.stdout);
    assert!(quiet.stderr.is_empty(), "{}", stderr(&quiet));
    // `redact`: no summary; a line left unredacted is still a warning.
    let input = "{\"a\":\"mail maria.okafor@amber.io\"}\nnot json password=Summer2024!\n";
    retrace_snapshot!(cmd(&["redact", "--quiet", "-"]).stdin(input), @r#"
    exit_code: 1
    ----- stdout -----
    {"a":"mail [REDACTED:email]"}
    not json password=Summer2024!
    ----- stderr -----
    retrace: -: line 2 (byte 35): not JSON, passed through unchanged; 1 match(es) in it NOT redacted
    "#);
    // Errors are printed.
    retrace_snapshot!(cmd(&["-q", "info", "/no/such/file.jsonl"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: /no/such/file.jsonl: no such file or directory
    ");
}

#[test]
fn no_progress_is_taken_everywhere() {
    // No bar is drawn off a terminal anyway: the output is the same.
    let path = corpus(PI_V3);
    for args in [
        &["info", "--no-progress"][..],
        &["--no-progress", "tree"],
        &["show", "--no-progress"],
    ] {
        let mut with: Vec<&str> = args.to_vec();
        with.push(&path);
        let without: Vec<&str> = with
            .iter()
            .copied()
            .filter(|a| *a != "--no-progress")
            .collect();
        let (a, b) = (retrace(&with), retrace(&without));
        assert_eq!(
            (a.status.code(), a.stdout, a.stderr),
            (b.status.code(), b.stdout, b.stderr)
        );
    }
}

#[test]
fn a_flag_a_command_cannot_honour_is_a_usage_error() {
    let path = corpus(PI_V3);
    // `cat` writes the original bytes: neither JSON nor redacted.
    retrace_snapshot!(cmd(&["cat", "--json", &path]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: unexpected argument '--json' found

      tip: to pass '--json' as a value, use '-- --json'

    Usage: retrace cat [OPTIONS] <PATH>

    For more information, try '--help'.
    ");
    retrace_snapshot!(cmd(&["cat", "--redact", &path]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: unexpected argument '--redact' found

      tip: to pass '--redact' as a value, use '-- --redact'

    Usage: retrace cat [OPTIONS] <PATH>

    For more information, try '--help'.
    ");
    // `tree` and `validate` print no text from the session to redact.
    retrace_snapshot!(cmd(&["tree", "--redact", &path]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: unexpected argument '--redact' found

      tip: to pass '--redact' as a value, use '-- --redact'

    Usage: retrace tree [OPTIONS] <PATH>

    For more information, try '--help'.
    ");
    retrace_snapshot!(cmd(&["validate", "--redact", &path]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: unexpected argument '--redact' found

      tip: to pass '--redact' as a value, use '-- --redact'

    Usage: retrace validate [OPTIONS] <PATHS>...

    For more information, try '--help'.
    ");
    // `migrate --json` is the report's form.
    retrace_snapshot!(cmd(&["migrate", &path, "--to", "openai", "--json"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: the following required arguments were not provided:
      --report

    Usage: retrace migrate --to <TO> --report --json <PATH>

    For more information, try '--help'.
    ");
    // `redact` writes the stream it reads.
    retrace_snapshot!(cmd(&["redact", "--json", &path]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: unexpected argument '--json' found

      tip: to pass '--json' as a value, use '-- --json'

    Usage: retrace redact [OPTIONS] <INPUT>

    For more information, try '--help'.
    ");
}
