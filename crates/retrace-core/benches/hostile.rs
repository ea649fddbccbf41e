//! Issue 21's hostile inputs at their full size, in-process: `cargo bench
//! -p retrace-core --bench hostile [NAME…] [--part=N]`. Each input is
//! built in memory at a quarter (`1/N`) of its size and at full size, then
//! read (`Session::from_bytes`) and walked as a front end walks it (the
//! default branch's context, rows, the outline, the deep check, `cat`, the
//! Markdown export, the redactor); each step's time is printed at both
//! sizes with their ratio, which is about 4 (N) when the step is linear,
//! 16 (N²) if it were quadratic. The tests that check what these inputs do
//! are `tests/it/hostile.rs`; the gzip bomb and a folder of 100,000 files
//! are timed through the CLI (`docs/architecture/reading.md`, hostile
//! inputs).
#![allow(clippy::disallowed_methods)]

use std::sync::Arc;
use std::time::Instant;

use retrace_core::redact::{Mode, Redactor, Rules};
use retrace_core::{export_branch, write_markdown, Branches, MarkdownOptions, Session};

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

fn msg(id: &str, parent: Option<&str>, role: &str, content: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"{role}","content":{content}}}}}"#
    )
}

fn text(t: &str) -> String {
    format!(r#"[{{"type":"text","text":"{t}"}}]"#)
}

fn file(lines: impl IntoIterator<Item = String>) -> Vec<u8> {
    let mut out = String::from(HEADER);
    out.push('\n');
    for l in lines {
        out.push_str(&l);
        out.push('\n');
    }
    out.into_bytes()
}

fn siblings(n: usize) -> Vec<u8> {
    file(
        std::iter::once(msg("root", None, "user", &text("root")))
            .chain((0..n).map(|i| msg(&format!("k{i}"), Some("root"), "assistant", &text("s")))),
    )
}

fn chain(n: usize) -> Vec<u8> {
    file((0..n).map(|i| {
        let parent = (i > 0).then(|| format!("k{}", i - 1));
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        msg(&format!("k{i}"), parent.as_deref(), role, &text("s"))
    }))
}

fn nesting(depth: usize) -> Vec<u8> {
    let arrays = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    file([
        msg("a", None, "user", &text("first")),
        msg("b", Some("a"), "user", &arrays),
        msg("c", Some("b"), "assistant", &text("after")),
    ])
}

fn data_url(size: usize) -> Vec<u8> {
    let payload = "A".repeat(size);
    file([
        msg(
            "a",
            None,
            "user",
            &format!(
                r#"[{{"type":"text","text":"see"}},{{"type":"image","data":"{payload}","mimeType":"image/png"}}]"#
            ),
        ),
        msg(
            "b",
            Some("a"),
            "assistant",
            &text(&format!("data:image/png;base64,{payload}")),
        ),
    ])
}

fn long_line(size: usize) -> Vec<u8> {
    file([
        msg("a", None, "user", &text(&"x".repeat(size))),
        msg("b", Some("a"), "assistant", &text("ok")),
    ])
}

/// Seconds of each step, in order.
fn walk(bytes: &[u8]) -> Vec<(&'static str, f64)> {
    let mut times = Vec::new();
    let mut step = |name: &'static str, f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        times.push((name, t.elapsed().as_secs_f64()));
    };
    let mut s = None;
    step("read", &mut || {
        s = Some(Session::from_bytes("h.jsonl", bytes))
    });
    let s = s.expect("read");
    let leaf = s.tree().default_leaf().expect("a leaf");
    step("context", &mut || {
        s.context(leaf, &mut &bytes[..]).expect("context");
    });
    step("rows", &mut || {
        s.rows(leaf);
    });
    step("outline", &mut || {
        s.outline();
    });
    step("check", &mut || {
        s.check(&mut &bytes[..]).expect("check");
    });
    step("cat", &mut || {
        export_branch(&s, &mut &bytes[..], leaf, &mut std::io::sink()).expect("cat");
    });
    step("markdown", &mut || {
        let mut keep = |t: &str| t.to_owned();
        let options = MarkdownOptions {
            leaf: Some(leaf),
            branches: Branches::Main,
            redacted: false,
            hide: &mut keep,
        };
        write_markdown(&s, &mut &bytes[..], options, &mut std::io::sink()).expect("markdown");
    });
    step("redact", &mut || {
        let mut r = Redactor::new(Arc::new(Rules::builtin()), Mode::default());
        let mut out = Vec::new();
        for chunk in bytes.chunks(256 << 10) {
            out.clear();
            r.push(chunk, &mut out);
        }
        r.finish(&mut out);
    });
    times
}

fn main() {
    type Make = fn(usize) -> Vec<u8>;
    let inputs: [(&str, Make, usize); 5] = [
        ("siblings", siblings, 1_000_000),
        ("chain", chain, 1_000_000),
        ("nesting", nesting, 100_000),
        ("data-url bytes", data_url, 100 << 20),
        ("line bytes", long_line, (256 << 20) - 300),
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    // `--part=2` compares a half with the full size instead of a quarter.
    let part: usize = args
        .iter()
        .find_map(|a| a.strip_prefix("--part="))
        .and_then(|p| p.parse().ok())
        .unwrap_or(4);
    for (name, make, full) in inputs {
        if !only.is_empty() && !only.iter().any(|o| name.starts_with(o.as_str())) {
            continue;
        }
        // The part after the full size, so neither runs in memory the
        // other left warm.
        let big = walk(&make(full));
        let small = walk(&make(full / part));
        let total = |t: &[(&str, f64)]| t.iter().map(|(_, s)| s).sum::<f64>();
        println!(
            "{name} {full}: {:.3} s in all ({:.3} s at 1/{part}, x{:.1})",
            total(&big),
            total(&small),
            total(&big) / total(&small).max(1e-9)
        );
        for ((step, s), (_, b)) in small.iter().zip(&big) {
            println!(
                "  {step:9} {b:8.3} s  (1/{part} {s:.3} s, x{:.1})",
                b / s.max(1e-9)
            );
        }
    }
}
