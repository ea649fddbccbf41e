//! Hostile inputs (issue 21): each built here, in memory, and read through
//! every walker a front end runs (the index and tree, a branch's context,
//! the deep check, rows, the outline, search, `cat`, the Markdown export,
//! redaction), checking that nothing panics or overflows the stack, that
//! every byte is in an entry or a diagnostic, and that a refusal says
//! where and what. What each does is listed in
//! `docs/architecture/reading.md#hostile-inputs`; the CLI's side is
//! `crates/retrace-cli/tests/it/hostile.rs`.
//!
//! Sizes: the tests run in debug builds in CI, so each input is as large
//! as a few seconds allow there (100,000 deep as the issue says; 30,000
//! siblings and chain links, an 8 MiB `data:` URL, lines at limits of
//! 4 KiB and 1 MiB) and at the issue's sizes in an optimized build
//! (`cargo test --release -p retrace-core --test it hostile`). The bench
//! `cargo bench -p retrace-core --bench hostile` times the full sizes.

use std::sync::Arc;

use crate::common::*;
use retrace_core::redact::{Mode, Redactor, Rules};
use retrace_core::{
    export_branch, search, write_markdown, Branches, DiagnosticKind, Listed, MarkdownOptions,
    ReaderOptions, SearchFilter, Session, Severity,
};

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

/// A pi v3 message entry: `content` is the message's content as JSON.
fn msg(id: &str, parent: Option<&str>, role: &str, content: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| {
        serde_json::to_string(p).expect("a string")
    });
    let id = serde_json::to_string(id).expect("a string");
    format!(
        r#"{{"type":"message","id":{id},"parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"{role}","content":{content}}}}}"#
    )
}

fn text(t: &str) -> String {
    format!(
        r#"[{{"type":"text","text":{}}}]"#,
        serde_json::to_string(t).expect("a string")
    )
}

fn file(lines: impl IntoIterator<Item = String>) -> Vec<u8> {
    let mut out = String::new();
    out.push_str(HEADER);
    out.push('\n');
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out.into_bytes()
}

/// Everything a front end does with a session, on its default branch: no
/// panic, no overflow; the figures it found, to compare.
#[derive(Debug, Default)]
struct Walked {
    branch: usize,
    context: usize,
    rows: usize,
    segments: usize,
    checked: usize,
    cat: usize,
    markdown: usize,
    redacted: usize,
}

fn walk(s: &Session, bytes: &[u8]) -> Walked {
    let mut w = Walked::default();
    let leaf = s.tree().default_leaf().expect("a default leaf");
    w.branch = s.branch(leaf).len();
    w.context = s.context(leaf, &mut &bytes[..]).expect("context").len();
    let rows = s.rows(leaf);
    w.rows = rows.len();
    w.segments = s.outline().len();
    w.checked = s.check(&mut &bytes[..]).expect("check").diagnostics.len();
    let filter = SearchFilter {
        user: true,
        assistant: true,
        tool: true,
        events: true,
    };
    search(s, &mut &bytes[..], "needle", filter, 10).expect("search");
    Listed::new(s, &mut &bytes[..]).expect("listed");
    let mut out = Vec::new();
    export_branch(s, &mut &bytes[..], leaf, &mut out).expect("cat");
    w.cat = out.len();
    let mut md = Vec::new();
    let mut keep = |t: &str| t.to_owned();
    write_markdown(
        s,
        &mut &bytes[..],
        MarkdownOptions {
            leaf: Some(leaf),
            branches: Branches::Main,
            redacted: false,
            hide: &mut keep,
        },
        &mut md,
    )
    .expect("markdown");
    w.markdown = md.len();
    let mut r = Redactor::new(Arc::new(Rules::builtin()), Mode::default());
    let mut red = Vec::new();
    r.push(bytes, &mut red);
    r.finish(&mut red);
    w.redacted = red.len();
    w
}

/// Nesting 100,000 deep, in a message's content and in a tool call's
/// arguments: no stack overflow anywhere (the scanner counts depth,
/// serde_json stops at 128 levels, the redactor's walk keeps a stack of
/// its own); the body that cannot be parsed is a diagnostic naming its
/// line, and the lines after it are read.
#[test]
fn nesting_100_000_deep() {
    const DEEP: usize = 100_000;
    let arrays = format!("{}{}", "[".repeat(DEEP), "]".repeat(DEEP));
    let objects = format!(
        r#"[{{"type":"toolCall","id":"c1","name":"bash","arguments":{}1{}}}]"#,
        r#"{"a":"#.repeat(DEEP),
        "}".repeat(DEEP)
    );
    let bytes = file([
        msg("a", None, "user", &text("first")),
        msg("b", Some("a"), "user", &arrays),
        msg("c", Some("b"), "assistant", &objects),
        msg("d", Some("c"), "assistant", &text("after")),
    ]);
    let s = Session::from_bytes("deep.jsonl", &bytes);
    assert_lossless("deep.jsonl", &s, &bytes);
    assert_eq!(s.entries().len(), 5);
    assert_eq!(s.id(s.tree().default_leaf().unwrap()), Some("d"));
    let w = walk(&s, &bytes);
    assert_eq!(w.branch, 4);
    assert_eq!(w.cat, bytes.len());
    // The redactor keeps the deep lines as they are.
    assert_eq!(w.redacted, bytes.len());
    let check = s.check(&mut &bytes[..]).unwrap();
    for line in [3, 4] {
        let d = check
            .diagnostics
            .iter()
            .find(|d| d.line == line)
            .unwrap_or_else(|| panic!("no diagnostic on line {line}: {:#?}", check.diagnostics));
        assert!(
            d.message.contains("deep") || d.message.contains("recursion"),
            "{d:?}"
        );
    }
}

/// A JSON document (a provider message list) nested 100,000 deep inside
/// an element, and a line that is nothing but brackets.
#[test]
fn nesting_100_000_deep_in_a_document_and_bare() {
    const DEEP: usize = 100_000;
    let doc = format!(
        r#"[{{"role":"user","content":"hi"}},{{"role":"assistant","content":{}"x"{}}},{{"role":"user","content":"after"}}]"#,
        "[".repeat(DEEP),
        "]".repeat(DEEP)
    );
    let s = Session::from_bytes("list.json", doc.as_bytes());
    assert_lossless("list.json", &s, doc.as_bytes());
    assert_eq!(s.entries().len(), 3);
    walk(&s, doc.as_bytes());

    let bare = format!("{}\n{}\n", "[".repeat(DEEP), "{".repeat(DEEP));
    let mut lines = file([msg("a", None, "user", &text("first"))]);
    lines.extend_from_slice(bare.as_bytes());
    let s = Session::from_bytes("bare.jsonl", &lines);
    assert_lossless("bare.jsonl", &s, &lines);
    let broken: Vec<u32> = s
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.line)
        .collect();
    assert!(broken.contains(&3) && broken.contains(&4), "{broken:?}");
}

/// One parent with many children: every child a tip, each branch two
/// entries; the tree, the outline and the branch of the last child stay
/// linear (no child lookup by scanning siblings).
#[test]
fn siblings_under_one_parent() {
    let n = siblings();
    let bytes = file(
        std::iter::once(msg("root", None, "user", &text("root")))
            .chain((0..n).map(|i| msg(&format!("k{i}"), Some("root"), "assistant", &text("s")))),
    );
    let s = Session::from_bytes("siblings.jsonl", &bytes);
    assert_lossless("siblings.jsonl", &s, &bytes);
    assert!(s.diagnostics().is_empty(), "{:?}", &s.diagnostics()[..1]);
    let tree = s.tree();
    assert_eq!(tree.branch_points().len(), 1);
    assert_eq!(tree.branch_points()[0].children as usize, n);
    let w = walk(&s, &bytes);
    assert_eq!(w.branch, 2);
    assert!(w.segments > n, "{} segments", w.segments);
}

/// A parent chain as long as the file: the branch, rows, context and
/// exports walk it without recursion.
#[test]
fn a_long_parent_chain() {
    let n = chain();
    let bytes = file((0..n).map(|i| {
        let id = format!("k{i}");
        let parent = (i > 0).then(|| format!("k{}", i - 1));
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        msg(&id, parent.as_deref(), role, &text("s"))
    }));
    let s = Session::from_bytes("chain.jsonl", &bytes);
    assert_lossless("chain.jsonl", &s, &bytes);
    assert!(s.diagnostics().is_empty(), "{:?}", &s.diagnostics()[..1]);
    let w = walk(&s, &bytes);
    assert_eq!(w.branch, n);
    assert_eq!(w.context, n);
    assert_eq!(w.rows, n);
    assert_eq!(w.cat, bytes.len());
}

/// `full`, the issue's size, in an optimized build (`cargo test
/// --release`); `debug` where CI runs the tests, so each costs seconds.
/// The full sizes are timed by `cargo bench -p retrace-core --bench
/// hostile`.
fn size(debug: usize, full: usize) -> usize {
    if cfg!(debug_assertions) {
        debug
    } else {
        full
    }
}

fn siblings() -> usize {
    size(30_000, 1_000_000)
}

fn chain() -> usize {
    size(30_000, 1_000_000)
}

/// A 100 MB `data:` URL in an image and in text: read, its bytes in the
/// entry, its message holding the image whole.
#[test]
fn a_100_mb_data_url() {
    let payload_len = size(8 << 20, 100 << 20);
    let payload = "A".repeat(payload_len);
    let image = format!(
        r#"[{{"type":"text","text":"see"}},{{"type":"image","data":"{payload}","mimeType":"image/png"}}]"#
    );
    let url = format!("look: data:image/png;base64,{payload}");
    let bytes = file([
        msg("a", None, "user", &image),
        msg("b", Some("a"), "user", &text(&url)),
        msg("c", Some("b"), "assistant", &text("ok")),
    ]);
    drop((payload, image, url));
    let s = Session::from_bytes("data.jsonl", &bytes);
    assert_lossless("data.jsonl", &s, &bytes);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    let leaf = s.tree().default_leaf().unwrap();
    let context = s
        .context_with(
            leaf,
            &mut &bytes[..],
            retrace_core::ContextOptions { payloads: true },
        )
        .unwrap();
    assert_eq!(context.len(), 3);
    let w = walk(&s, &bytes);
    assert_eq!(w.cat, bytes.len());
    // The Markdown export keeps the text's URL (it is what was written)
    // and names the image rather than copy its payload.
    assert!(
        w.markdown > payload_len && w.markdown < payload_len + (1 << 20),
        "{} bytes of Markdown",
        w.markdown
    );
}

/// A line of 256 MiB, the default `max_line`, is indexed; one byte more is
/// reported and skipped, its bytes accounted for, and the next line read.
/// The limit's machinery is the same at any size: debug builds run it at
/// small limits on both sides of them, an optimized one at the default.
#[test]
fn a_256_mib_line() {
    let limit = ReaderOptions::default().max_line;
    assert_eq!(limit, 256 << 20);
    let mut cases = vec![
        (4096, false),
        (4096, true),
        (1 << 20, false),
        (1 << 20, true),
    ];
    if !cfg!(debug_assertions) {
        cases.extend([(limit, false), (limit, true)]);
    }
    for (max_line, over) in cases {
        let head = msg("a", None, "user", &text("first"));
        let pad = max_line - head.len() + usize::from(over) - 40;
        let long = msg("b", Some("a"), "user", &text(&"x".repeat(pad)));
        let long_len = long.len();
        let bytes = file([head, long, msg("c", Some("b"), "assistant", &text("after"))]);
        let s = retrace_core_open(
            ReaderOptions {
                max_line,
                ..ReaderOptions::default()
            },
            &bytes,
        );
        assert_lossless("long.jsonl", &s, &bytes);
        let skipped = s
            .diagnostics()
            .iter()
            .find(|d| d.kind == DiagnosticKind::LineTooLong);
        if long_len > max_line {
            let d = skipped.unwrap_or_else(|| panic!("{long_len} > {max_line}: not reported"));
            assert_eq!(d.line, 3, "{d:?}");
            assert_eq!(s.entries().len(), 3);
        } else {
            assert!(skipped.is_none(), "{long_len} <= {max_line}: {skipped:?}");
            assert_eq!(s.entries().len(), 4);
        }
        assert!(s.find("c").is_some());
    }
}

fn retrace_core_open(options: ReaderOptions, bytes: &[u8]) -> Session {
    open_chunked_with(options, "long.jsonl", bytes, 1 << 20)
}

/// Bidi controls and zero-width characters in ids and names are kept byte
/// for byte (an id with a right-to-left override is its own id, not the
/// one it looks like); showing them is the views' (`visible`).
#[test]
fn bidi_and_zero_width_in_ids_are_kept() {
    let evil = "a\u{202E}txt.exe\u{200B}";
    let look_alike = "atxt.exe";
    let bytes = file([
        msg(evil, None, "user", &text("hello \u{2066}x\u{2069}")),
        msg(look_alike, Some(evil), "assistant", &text("ok")),
    ]);
    let s = Session::from_bytes("bidi.jsonl", &bytes);
    assert_lossless("bidi.jsonl", &s, &bytes);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    let a = find(&s, evil);
    let b = find(&s, look_alike);
    assert_ne!(a, b);
    assert_eq!(s.branch(b), vec![a, b]);
    assert_eq!(
        retrace_core::visible(s.id(a).unwrap()),
        "a<U+202E>txt.exe<U+200B>"
    );
    walk(&s, &bytes);
}

/// A gzip file that inflates past `max_inflated` is read up to the limit
/// and reported (`gzip-too-large`, naming the limit and the option), in
/// any chunking; at the limit exactly, it is read whole.
#[test]
fn a_gzip_bomb_is_refused_at_the_limit() {
    let line = msg("a", None, "user", &text(&"z".repeat(200)));
    let mut plain = file([]);
    for i in 0..20_000 {
        plain.extend_from_slice(
            msg(&format!("k{i}"), None, "user", &text(&"z".repeat(200))).as_bytes(),
        );
        plain.push(b'\n');
    }
    drop(line);
    let bomb = gzip(&plain);
    assert!(
        bomb.len() * 50 < plain.len(),
        "{} -> {}",
        bomb.len(),
        plain.len()
    );
    let max = plain.len() as u64 / 3;
    for chunk in [1 << 20, 4096, 7] {
        let options = ReaderOptions {
            max_inflated: max,
            ..ReaderOptions::default()
        };
        let s = open_chunked_with(options, "bomb.jsonl.gz", &bomb, chunk);
        let d: Vec<_> = s
            .diagnostics()
            .iter()
            .filter(|d| d.kind == DiagnosticKind::GzipTooLarge)
            .collect();
        assert_eq!(d.len(), 1, "{:#?}", s.diagnostics());
        assert_eq!(d[0].severity, Severity::Error);
        assert!(
            d[0].message.contains("--max-inflated") && d[0].message.contains("inflates past the"),
            "{}",
            d[0].message
        );
        // Read up to the limit, not a byte past it: the last line the
        // limit cuts is reported as cut.
        let end = s.entries().last().unwrap().range().end;
        assert!(end <= max && end > max - 1024, "{end} vs {max}");
        assert!(d[0].offset >= end, "{:?}", d[0]);
        assert_eq!(s.files()[0].size, max);
    }
    let whole = ReaderOptions {
        max_inflated: plain.len() as u64,
        ..ReaderOptions::default()
    };
    let s = open_chunked_with(whole, "ok.jsonl.gz", &bomb, 4096);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    assert_eq!(s.entries().len(), 20_001);
}

/// A Claude Code session whose subagent files reuse the ids of the main
/// file (and of each other): each subagent file stays its own branch, the
/// main conversation's tree is what it is without them, every reused id
/// is reported, and nothing is dropped.
#[test]
fn ids_that_collide_across_subagent_files() {
    let dir = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees/ef958aa1-0e93-49f0-bb71-150f63befcd1";
    let main = format!("{dir}.jsonl");
    let mut names = vec![main.clone()];
    let mut subs: Vec<String> = std::fs::read_dir(corpus().join(dir).join("subagents"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .map(|n| format!("{dir}/subagents/{n}"))
        .collect();
    subs.sort();
    names.extend(subs);
    let files: Vec<Vec<u8>> = names.iter().map(|n| read(n)).collect();
    let uuids = |bytes: &[u8]| -> Vec<String> {
        bytes
            .split(|&b| b == b'\n')
            .filter_map(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
            .filter_map(|v| v["uuid"].as_str().map(str::to_owned))
            .collect()
    };
    // Every subagent line's uuid (and the parents naming it) becomes one
    // of the main file's, in turn.
    let main_ids = uuids(&files[0]);
    let mut k = 0;
    let mut collided = vec![files[0].clone()];
    for sub in &files[1..] {
        let mut text = String::from_utf8(sub.clone()).unwrap();
        for id in uuids(sub) {
            text = text.replace(&id, &main_ids[k % main_ids.len()]);
            k += 1;
        }
        collided.push(text.into_bytes());
    }
    let open = |files: &[Vec<u8>]| {
        let mut reader = retrace_core::Reader::new();
        for (name, bytes) in names.iter().zip(files) {
            reader.begin_file(name);
            reader.push(bytes);
        }
        reader.finish()
    };
    let before = open(&files);
    let after = open(&collided);
    // The same tree, entry by entry: each entry's parent is at the same
    // file and line.
    let shape = |s: &Session| -> Vec<Option<(u16, u32)>> {
        (0..s.entries().len() as u32)
            .map(retrace_core::EntryId)
            .map(|e| {
                s.tree()
                    .parent(e)
                    .map(|p| (s.entry(p).file.0, s.entry(p).line))
            })
            .collect()
    };
    assert_eq!(before.entries().len(), after.entries().len());
    assert_eq!(shape(&before), shape(&after));
    assert_eq!(before.tree().tips().len(), after.tree().tips().len());
    assert_eq!(before.subagents().len(), after.subagents().len());
    let reported = after
        .diagnostics()
        .iter()
        .filter(|d| d.kind == DiagnosticKind::DuplicateId)
        .count();
    assert_eq!(reported, k, "one duplicate-id per reused id");
    let d = after
        .diagnostics()
        .iter()
        .find(|d| d.kind == DiagnosticKind::DuplicateId)
        .unwrap();
    assert!(d.message.contains("link to their own"), "{}", d.message);
    for (i, bytes) in collided.iter().enumerate() {
        assert_lossless_file(&names[i], &after, retrace_core::FileId(i as u16), bytes);
    }
    // Every branch reads: the main one and each subagent's.
    let mut src = source(&collided);
    for &tip in after.tree().tips() {
        after.context(tip, &mut src).expect("context");
    }
}

/// A Claude Code response written over many lines (one `message.id`) with
/// more than `LOOKBACK` messages between its first and last line and no
/// prompt in between: the context is read without the stale index it used
/// to keep into messages already handed on (a panic), each line's text
/// kept once.
#[test]
fn a_claude_response_split_across_more_than_the_lookback() {
    let line = |i: usize, parent: Option<usize>, mid: &str, text: &str| {
        let parent = parent.map_or("null".to_owned(), |p| format!("\"u{p}\""));
        format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"sessionId":"s","type":"assistant","uuid":"u{i}","timestamp":"2026-01-01T00:00:00.000Z","message":{{"id":"{mid}","type":"message","role":"assistant","model":"m","content":[{{"type":"text","text":"{text}"}}]}}}}"#
        )
    };
    let mut lines = vec![format!(
        r#"{{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","uuid":"u0","timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"go"}}}}"#
    )];
    lines.push(line(1, Some(0), "open", "first part"));
    for i in 2..300 {
        lines.push(line(i, Some(i - 1), &format!("m{i}"), "between"));
    }
    lines.push(line(300, Some(299), "open", "last part"));
    let bytes = (lines.join("\n") + "\n").into_bytes();
    let s = Session::from_bytes("split.jsonl", &bytes);
    assert!(s.diagnostics().is_empty(), "{:?}", s.diagnostics());
    let leaf = s.tree().default_leaf().unwrap();
    let context = s.context(leaf, &mut &bytes[..]).unwrap();
    let text: String = context.iter().map(|m| m.text()).collect();
    assert_eq!(text.matches("first part").count(), 1);
    assert_eq!(text.matches("last part").count(), 1);
    assert_eq!(text.matches("between").count(), 298);
    // The first part was handed on long before: the last part is a message
    // of its own at the end, not merged into whatever message the stale
    // index pointed at by then.
    assert_eq!(context.last().unwrap().text(), "last part");
    assert!(context
        .iter()
        .all(|m| m.text() == "last part" || !m.text().contains("last part")));
}
