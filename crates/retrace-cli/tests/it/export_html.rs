//! `retrace export --html`: the page is the viewer's open page
//! (`dist/export.html`) with the session's files after it, each the gzip
//! of what the viewer would be given, escaped as the core escapes a part
//! (`retrace_core::html_unescape` takes it back); redacted, each
//! file is the bytes `retrace redact` writes of it (or of `retrace cat`'s
//! branch), and no planted secret of the shared corpus is anywhere in the
//! page's bytes, compressed or not. These tests need a build with the
//! viewer (`RETRACE_VIEWER_DIST`, which `cargo xtask test` sets); without
//! it they say so and check the error such a build gives instead.

use std::io::Read;

use crate::common::*;

/// The `dist/` the binary under test was built with (the variable as at
/// build time, as the build script read it), if any.
const DIST: Option<&str> = option_env!("RETRACE_VIEWER_DIST");

/// Whether the binary under test holds the viewer.
fn viewer_built() -> bool {
    DIST.is_some_and(|d| !d.is_empty())
}

/// `true` after printing why, when the viewer is not built in.
fn skip(test: &str) -> bool {
    if viewer_built() {
        return false;
    }
    println!(
        "{test}: skipped: RETRACE_VIEWER_DIST was not set when the CLI was built \
         (cargo xtask test sets it; see export_html.rs)"
    );
    true
}

/// A part of the page: its element's attributes and its bytes unzipped.
#[derive(Debug)]
struct Part {
    attrs: String,
    bytes: Vec<u8>,
}

/// The page split as its boot script reads it, each part unzipped; panics
/// on a page that is not laid out so.
fn parts(html: &[u8]) -> Vec<Part> {
    const OPEN: &[u8] = b"<script type=\"application/x-retrace\"";
    let find = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).position(|w| w == needle);
    let mut parts: Vec<(String, Vec<u8>)> = Vec::new();
    let mut rest = html;
    while let Some(at) = find(rest, OPEN) {
        rest = &rest[at + OPEN.len()..];
        let tag = find(rest, b">").expect("an element's tag ends");
        let attrs = String::from_utf8(rest[..tag].to_vec()).expect("ASCII attributes");
        rest = &rest[tag + 1..];
        let end = find(rest, b"</script>").expect("an element ends");
        assert_eq!(rest.get(end + 9), Some(&b'\n'), "one element a line");
        if !attrs.is_empty() {
            parts.push((attrs.trim().to_owned(), Vec::new()));
        }
        let part = parts.last_mut().expect("a part's first element names it");
        part.1.extend(retrace_core::html_unescape(&rest[..end]));
        rest = &rest[end..];
    }
    parts
        .into_iter()
        .map(|(attrs, gz)| {
            let mut bytes = Vec::new();
            flate2::read::GzDecoder::new(&gz[..])
                .read_to_end(&mut bytes)
                .unwrap_or_else(|e| panic!("part {attrs}: not gzip: {e}"));
            Part { attrs, bytes }
        })
        .collect()
}

/// The session's files of a page: (name, leaf to open on, bytes).
fn files(html: &[u8]) -> Vec<(String, Option<String>, Vec<u8>)> {
    let attr = |attrs: &str, key: &str| {
        let at = attrs.find(&format!("{key}=\""))? + key.len() + 2;
        let end = attrs[at..].find('"')? + at;
        Some(attrs[at..end].to_owned())
    };
    parts(html)
        .into_iter()
        .filter_map(|p| {
            Some((
                attr(&p.attrs, "data-file")?,
                attr(&p.attrs, "data-leaf"),
                p.bytes,
            ))
        })
        .collect()
}

/// `export --html ARGS` to stdout, which must succeed: the page's bytes
/// (windows-1252: its parts are raw bytes).
fn page(args: &[&str]) -> Vec<u8> {
    let mut all = vec!["export", "--html", "-q"];
    all.extend(args);
    bytes_of(&all)
}

/// Whether `needle` is anywhere in `bytes`.
fn holds(bytes: &[u8], needle: &str) -> bool {
    bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// `retrace ARGS`' stdout as bytes, the run succeeding.
fn bytes_of(args: &[&str]) -> Vec<u8> {
    let o = retrace(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    o.stdout
}

#[test]
fn a_page_is_the_viewers_page_with_the_session_after_it() {
    if skip("a_page_is_the_viewers_page_with_the_session_after_it") {
        return;
    }
    let input = corpus(PI_V3);
    let bytes = page(&[&input, "--branches", "all"]);
    // The open page `cargo xtask dist` wrote, as it is, then the files,
    // then the end.
    let open = std::fs::read(format!("{}/export.html", DIST.unwrap_or_default())).unwrap();
    assert!(bytes.starts_with(&open), "the page begins with export.html");
    assert!(bytes.ends_with(b"</script>\n</body>\n</html>\n"));
    // Its mark-up is ASCII, in the encoding it declares; the parts are
    // bytes (shown lossily here).
    let head = &open[..open.windows(7).position(|w| w == b"<script").unwrap()];
    assert!(head.is_ascii());
    assert!(holds(head, "<meta charset=\"windows-1252\">"));
    let (html, open) = (
        String::from_utf8_lossy(&bytes),
        String::from_utf8_lossy(&open),
    );
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"));
    // A policy that allows no request, before any script.
    let policy = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; connect-src 'none'; script-src 'sha256-";
    let at = html.find(policy).expect("the policy");
    assert!(at < html.find("<script").unwrap());
    // Every element that opens is closed, and no script reaches out.
    assert_eq!(
        html.matches("<script").count(),
        html.matches("</script>").count()
    );
    for word in [
        "http://",
        "https://",
        " src=",
        "<link rel=\"stylesheet\"",
        "<iframe",
    ] {
        assert!(!open.contains(word), "{word} in the page");
    }
    // The viewer's parts, then the file: `retrace redact`'s bytes.
    let all = parts(&bytes);
    let names: Vec<&str> = all.iter().map(|p| p.attrs.as_str()).collect();
    assert_eq!(
        names,
        [
            "data-viewer=\"glue\"",
            "data-viewer=\"wasm\"",
            "data-viewer=\"worker\"",
            "data-file=\"branching.jsonl\""
        ]
    );
    assert!(all[1].bytes.starts_with(b"\0asm"), "the wasm module");
    assert_eq!(all[3].bytes, bytes_of(&["redact", &input]));
}

#[test]
fn the_default_is_the_branch_as_cat_writes_it_and_a_leaf_opens_its_branch() {
    if skip("the_default_is_the_branch_as_cat_writes_it_and_a_leaf_opens_its_branch") {
        return;
    }
    let input = corpus(PI_V3);
    let redacted = |bytes: Vec<u8>| {
        let o = cmd(&["redact", "-"]).stdin(bytes).output();
        assert!(o.status.success(), "{}", stderr(&o));
        o.stdout
    };
    // The default leaf's branch, opening where the viewer would anyway.
    let got = files(&page(&[&input]));
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].0.as_str(), got[0].1.as_deref()),
        ("branching.jsonl", None)
    );
    assert_eq!(got[0].2, redacted(bytes_of(&["cat", &input])));
    // Another leaf: its branch, and the page opens on it.
    let got = files(&page(&[&input, "--leaf", "e5"]));
    assert_eq!(got[0].1.as_deref(), Some("e5"));
    assert_eq!(
        got[0].2,
        redacted(bytes_of(&["cat", &input, "--leaf", "e5"]))
    );
    assert_ne!(got[0].2, files(&page(&[&input]))[0].2);
    // Every branch with a leaf: the whole file, opening on that leaf.
    let got = files(&page(&[&input, "--branches", "all", "--leaf", "e5"]));
    assert_eq!(got[0].1.as_deref(), Some("e5"));
    assert_eq!(got[0].2, bytes_of(&["redact", &input]));
}

#[test]
fn a_folder_brings_its_subagent_runs_and_their_side_cars() {
    if skip("a_folder_brings_its_subagent_runs_and_their_side_cars") {
        return;
    }
    let folder = corpus(PROJECT);
    let names = |html: &[u8]| -> Vec<String> {
        let mut n: Vec<String> = files(html).into_iter().map(|f| f.0).collect();
        n.sort();
        n
    };
    let all = names(&page(&[&folder, "--branches", "all"]));
    let runs: Vec<&String> = all.iter().filter(|n| n.starts_with("agent-")).collect();
    assert!(
        runs.iter().filter(|n| n.ends_with(".jsonl")).count() >= 6,
        "{all:?}"
    );
    assert!(runs.iter().any(|n| n.ends_with(".meta.json")), "{all:?}");
    // The branch alone still brings the runs.
    let main = names(&page(&[&folder]));
    assert_eq!(
        main.iter().filter(|n| n.starts_with("agent-")).count(),
        runs.len()
    );
    // Each run as `retrace redact` writes it.
    let dir = std::path::Path::new(&folder);
    for (name, _, bytes) in files(&page(&[&folder, "--branches", "all"])) {
        let path = walk(dir).into_iter().find(|p| p.ends_with(&name)).unwrap();
        assert_eq!(
            bytes,
            bytes_of(&["redact", path.to_str().unwrap()]),
            "{name}"
        );
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(walk(&path));
        } else {
            found.push(path);
        }
    }
    found
}

#[test]
fn every_session_carries_its_files_as_redact_writes_them() {
    if skip("every_session_carries_its_files_as_redact_writes_them") {
        return;
    }
    // Every corpus session and a fixture of each other format (the
    // Markdown export's inputs): each file the page holds is `retrace
    // redact`'s bytes of the file of that name (a gzip file unzipped, a
    // JSON document whole), and nothing else is held.
    for input in crate::export::inputs() {
        let input = input.to_str().unwrap();
        let html = page(&[input, "--branches", "all"]);
        let held = files(&html);
        // A folder's files, or a file, then what is beside and below it
        // (its side-cars, a Claude Code session's `<stem>/subagents`).
        let path = std::path::Path::new(input);
        let on_disk: Vec<std::path::PathBuf> = match path.is_dir() {
            true => walk(path),
            false => std::iter::once(path.to_path_buf())
                .chain(walk(path.parent().unwrap()))
                .collect(),
        };
        for (name, _, bytes) in &held {
            let path = on_disk
                .iter()
                .find(|p| {
                    let file = p.file_name().unwrap().to_str().unwrap();
                    file == name || file.strip_suffix(".gz") == Some(name)
                })
                .unwrap_or_else(|| panic!("{input}: {name} is no file of the session"));
            let want = bytes_of(&["redact", "-q", path.to_str().unwrap()]);
            assert!(
                *bytes == want,
                "{input}: {name} is not retrace redact's bytes"
            );
        }
        assert!(!held.is_empty(), "{input}: no file");
    }
}

#[test]
fn no_planted_secret_is_anywhere_in_the_page() {
    if skip("no_planted_secret_is_anywhere_in_the_page") {
        return;
    }
    // The generated evaluation fixture (`tests/fixtures/redact`): every
    // planted value is in the page unredacted, none redacted, neither in
    // its bytes nor in its parts unzipped.
    let input = fixture("redact/corpus-s11.jsonl");
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("redact/corpus-s11.truth.json")).unwrap(),
    )
    .unwrap();
    let dir = Scratch::new("export_html_planted");
    let report = dir.path("export.json");
    let redacted = page(&[&input, "--branches", "all", "--report", &report]);
    let plain = page(&[&input, "--branches", "all", "--no-redact"]);
    let unzipped = |html: &[u8]| String::from_utf8(files(html).remove(0).2).unwrap();
    let (payload, plain_payload) = (unzipped(&redacted), unzipped(&plain));
    assert_eq!(plain_payload.as_bytes(), std::fs::read(&input).unwrap());
    let (mut written, mut left) = (0, Vec::new());
    for p in truth["planted"].as_array().unwrap() {
        let mut values = vec![p["value"].as_str().unwrap()];
        if let Some(f) = p["fragments"].as_array() {
            values.extend(f.iter().map(|v| v.as_str().unwrap()));
        }
        if !values.iter().any(|v| plain_payload.contains(v)) {
            continue;
        }
        written += 1;
        if values
            .iter()
            .any(|v| payload.contains(v) || holds(&redacted, v))
        {
            left.push(format!("line {} {}", p["line"], p["kind"]));
        }
    }
    // Every planted value is in the page without redaction.
    let planted = truth["planted"].as_array().unwrap().len();
    assert_eq!(written, planted, "planted values written at all");
    assert!(planted > 250);
    assert!(left.is_empty(), "left in the page: {left:?}");
    // The findings are `retrace redact`'s, and the report is its report.
    let whole = dir.path("redact.json");
    let o = retrace(&[
        "redact",
        &input,
        "-o",
        &dir.path("out.jsonl"),
        "--report",
        &whole,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let findings = |file: &str| {
        let r: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let mut f: Vec<String> = r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.to_string())
            .collect();
        f.sort();
        (f, r["counts"].clone(), r["lines"].clone())
    };
    assert_eq!(findings(&report), findings(&whole));
}

#[test]
fn redaction_is_said_on_stderr_and_no_redact_warns() {
    if skip("redaction_is_said_on_stderr_and_no_redact_warns") {
        return;
    }
    let session = concat!(
        r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"Deploy with AKIA2E0A8F3B244C9986 and mail jane.doe@quantumleap-labs.io"}]}}"#,
        "\n",
    );
    let dir = Scratch::new("export_html_redaction");
    let path = dir.write("keys.jsonl", session);
    let out = dir.path("keys.html");
    retrace_snapshot!(cmd(&["export", "--html", &path, "-o", &out]), @"
    exit_code: 0
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/export_html_redaction/keys.jsonl: redacted 2 match(es) in 1 of 2 lines: aws-access-key-id 1, email 1
    ");
    let html = std::fs::read(&out).unwrap();
    assert!(!holds(&html, "AKIA2E0A8F3B244C9986"));
    let text = String::from_utf8(files(&html).remove(0).2).unwrap();
    assert!(text.contains("Deploy with [REDACTED:aws-access-key-id] and mail [REDACTED:email]"));
    retrace_snapshot!(cmd(&["export", "--html", &path, "--no-redact", "-o", &out]), @"
    exit_code: 0
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/export_html_redaction/keys.jsonl: --no-redact: secrets and personal data are written as they are; check the output before sharing it
    ");
    let text = String::from_utf8(files(&std::fs::read(&out).unwrap()).remove(0).2).unwrap();
    assert_eq!(text, session);
}

#[test]
fn a_build_without_the_viewer_says_how_to_get_one() {
    if viewer_built() {
        println!(
            "a_build_without_the_viewer_says_how_to_get_one: skipped: this build has the viewer \
             (RETRACE_VIEWER_DIST was set)"
        );
        return;
    }
    retrace_snapshot!(cmd(&["export", "--html", &corpus(PI_V3)]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: --html: this retrace was built without the viewer, so it cannot write HTML: build the viewer (`cargo xtask dist`), then retrace with it (`RETRACE_VIEWER_DIST=$PWD/dist cargo build --release`)
    ");
}

#[test]
fn bad_inputs_say_where_and_what() {
    if skip("bad_inputs_say_where_and_what") {
        return;
    }
    let dir = Scratch::new("export_html_errors");
    retrace_snapshot!(cmd(&["export", "--html", &dir.path("missing.jsonl")]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [SCRATCH]/export_html_errors/missing.jsonl: no such file or directory
    ");
    retrace_snapshot!(cmd(&["export", "--html", &corpus(PI_V3), "--leaf", "nope"]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: [CORPUS]/pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl: no entry with id `nope` or an id starting with it (ids are entry ids, a unique prefix of one, or L<line> for entries without one)
    ");
    retrace_snapshot!(cmd(&["export", "--html", "--md", &corpus(PI_V3)]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    error: the argument '--html' cannot be used with '--md'

    Usage: retrace export <--md|--html> <PATH>

    For more information, try '--help'.
    ");
    let out = dir.path("no/such/dir/out.html");
    retrace_snapshot!(cmd(&["export", "--html", &corpus(PI_V3), "-o", &out]), @"
    exit_code: 2
    ----- stdout -----
    ----- stderr -----
    retrace: cannot write [SCRATCH]/export_html_errors/no/such/dir/out.html: no such file or directory
    ");
}
