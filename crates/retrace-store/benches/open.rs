//! Open speed and memory: index + full tree of a large generated session,
//! against `cat FILE > /dev/null` in the same run, page cache warm.
//!
//! `cargo bench -p retrace-store --bench open`
//!
//! Environment:
//! - `RETRACE_BENCH_MB` (default 1000): size of the generated sessions.
//! - `RETRACE_BENCH_DIR` (default `target/bench`): where they are kept.
//! - `RETRACE_BENCH_FORMATS` (default `pi,claude`): which generators to run.
//!
//! Targets (issue 2): ≥ 2 GB/s, ≤ 1.5 × cat, peak RSS ≤ 0.1 × file + 64 MiB.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use retrace_store::{open_files, Input, OpenOptions};

fn main() {
    let mb: u64 = env("RETRACE_BENCH_MB").map_or(1000, |v| v.parse().expect("RETRACE_BENCH_MB"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = env("RETRACE_BENCH_DIR").map_or_else(|| root.join("target/bench"), PathBuf::from);
    std::fs::create_dir_all(&dir).expect("bench dir");
    let formats = env("RETRACE_BENCH_FORMATS").unwrap_or_else(|| "pi,claude".into());
    let rss_before = peak_rss();
    for format in formats.split(',') {
        let (tool, name) = match format {
            "pi" => ("gen_session.py", format!("pi-{mb}mb.jsonl")),
            "claude" => ("gen_claude.py", format!("claude-{mb}mb.jsonl")),
            other => panic!("unknown format {other}"),
        };
        let path = dir.join(name);
        if !path.exists() {
            generate(&root.join("../shared/tools").join(tool), mb, &path);
        }
        bench(format, &path, rss_before);
    }
}

fn env(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.is_empty())
}

fn generate(tool: &Path, mb: u64, out: &Path) {
    eprintln!(
        "generating {} ({mb} MB) with {}",
        out.display(),
        tool.display()
    );
    let tmp = out.with_extension("tmp");
    let status = Command::new("python3")
        .arg(tool)
        .args(["--mb", &mb.to_string(), "--seed", "1", "--out"])
        .arg(&tmp)
        .status()
        .expect("python3");
    assert!(status.success(), "generator failed");
    std::fs::rename(&tmp, out).expect("rename");
}

fn bench(format: &str, path: &Path, rss_before: u64) {
    let size = std::fs::metadata(path).expect("bench file").len();
    // Warm the page cache, then time cat.
    cat(path);
    let cat_s = (0..3).map(|_| cat(path)).fold(f64::MAX, f64::min);
    let options = OpenOptions::default();
    let mut best = f64::MAX;
    let mut summary = String::new();
    for _ in 0..3 {
        let t = Instant::now();
        let session = open_files(&[Input::new(path)], &options, None).expect("open");
        let dt = t.elapsed().as_secs_f64();
        if dt < best {
            best = dt;
            let tree = session.tree();
            summary = format!(
                "{} entries, {} tips, {} real / {} branch points, {} diagnostics",
                session.entries().len(),
                tree.tips().len(),
                tree.real_branch_points().count(),
                tree.branch_points().len(),
                session.diagnostics().len()
            );
        }
    }
    let rss = peak_rss();
    let gb_s = size as f64 / best / 1e9;
    let ratio = best / cat_s;
    let rss_limit = size / 10 + (64 << 20);
    let rss_used = rss.saturating_sub(rss_before);
    println!(
        "open[{format}] {:.0} MB: {:.3} s = {gb_s:.2} GB/s (target >= 2); cat {:.3} s; ratio {ratio:.2}x cat (target <= 1.5); \
         threads {}; peak RSS {} MiB (process) / {} MiB above start (limit {} MiB); {summary}",
        size as f64 / 1e6,
        best,
        cat_s,
        options.threads,
        rss >> 20,
        rss_used >> 20,
        rss_limit >> 20,
    );
}

fn cat(path: &Path) -> f64 {
    let t = Instant::now();
    let status = Command::new("cat")
        .arg(path)
        .stdout(Stdio::null())
        .status()
        .expect("cat");
    assert!(status.success());
    t.elapsed().as_secs_f64()
}

/// Peak resident set size of this process (`VmHWM`), in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}
