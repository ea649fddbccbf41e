//! Open speed and memory: index + full tree of a large generated session,
//! against `cat FILE > /dev/null` in the same run, page cache warm.
//!
//! `cargo bench -p retrace-io --bench open`
//!
//! Environment:
//! - `RETRACE_BENCH_MB` (default 1000): size of the generated sessions.
//! - `RETRACE_BENCH_DIR` (default `target/bench`): where they are kept.
//! - `RETRACE_BENCH_FORMATS` (default `pi,claude,codex,events,gemini,pi.gz`):
//!   which to run. pi and Claude Code come from the shared Python tools,
//!   Codex and events from `open/generate.rs` (seeded, in Rust); `gemini`
//!   is one pretty-printed JSON document (a legacy Gemini CLI session: the
//!   real corpus file's messages repeated with fresh ids, so their
//!   timestamps repeat too), the whole-document framing, split where its
//!   elements begin; `NAME.gz` is that file compressed with `gzip -6`,
//!   timed against `gzip -dc`.
//!
//! Targets (issue 2): ≥ 2 GB/s, ≤ 1.5 × cat, peak RSS ≤ 0.1 × file + 64 MiB.
//! A gzip file cannot be split over threads and inflating is the cost, so
//! its figure is reported against `gzip -dc` instead.
//!
//! Beside `cat`, `read` is the open's own reads without the indexing: the
//! file's bytes copied out of the page cache in the same chunks and on the
//! same threads. What is left of the 1.5 × cat budget after it is what the
//! scan, the index and the tree may take; on a machine whose kernel copies
//! fast, little is.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use retrace_io::{open_files, Input, OpenOptions};

#[path = "open/generate.rs"]
mod generate;

/// Timed runs of the baseline and of the open, alternating.
const RUNS: usize = 5;

fn main() {
    let mb: u64 = env("RETRACE_BENCH_MB").map_or(1000, |v| v.parse().expect("RETRACE_BENCH_MB"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = env("RETRACE_BENCH_DIR").map_or_else(|| root.join("target/bench"), PathBuf::from);
    std::fs::create_dir_all(&dir).expect("bench dir");
    let formats = env("RETRACE_BENCH_FORMATS")
        .unwrap_or_else(|| "pi,claude,codex,events,gemini,pi.gz".into());
    let rss_before = peak_rss();
    for format in formats.split(',') {
        let (base, gz) = match format.strip_suffix(".gz") {
            Some(base) => (base, true),
            None => (format, false),
        };
        let ext = if base == "gemini" { "json" } else { "jsonl" };
        let path = dir.join(format!("{base}-{mb}mb.{ext}"));
        if !path.exists() {
            let tmp = path.with_extension("tmp");
            eprintln!("generating {} ({mb} MB)", path.display());
            match base {
                "pi" => python(&root.join("../shared/tools/gen_session.py"), mb, &tmp),
                "claude" => python(&root.join("../shared/tools/gen_claude.py"), mb, &tmp),
                "codex" => generate::codex(&tmp, mb, 1).expect("write codex"),
                "events" => generate::events(&tmp, mb, 1).expect("write events"),
                "gemini" => generate::gemini(&root, &tmp, mb).expect("write gemini"),
                other => panic!("unknown format {other}"),
            }
            std::fs::rename(&tmp, &path).expect("rename");
        }
        if gz {
            let packed = path.with_extension("jsonl.gz");
            if !packed.exists() {
                eprintln!("compressing {}", path.display());
                let tmp = packed.with_extension("tmp");
                let out = std::fs::File::create(&tmp).expect("create");
                let status = Command::new("gzip")
                    .args(["-6", "-n", "-c"])
                    .arg(&path)
                    .stdout(out)
                    .status()
                    .expect("gzip");
                assert!(status.success());
                std::fs::rename(&tmp, &packed).expect("rename");
            }
            bench(format, &packed, rss_before, Baseline::Gunzip);
        } else {
            bench(format, &path, rss_before, Baseline::Cat);
        }
    }
}

fn env(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.is_empty())
}

fn python(tool: &Path, mb: u64, out: &Path) {
    eprintln!("  with {}", tool.display());
    let status = Command::new("python3")
        .arg(tool)
        .args(["--mb", &mb.to_string(), "--seed", "1", "--out"])
        .arg(out)
        .status()
        .expect("python3");
    assert!(status.success(), "generator failed");
}

/// What the open time is compared with.
#[derive(Clone, Copy)]
enum Baseline {
    /// `cat FILE > /dev/null`
    Cat,
    /// `gzip -dc FILE > /dev/null`
    Gunzip,
}

fn bench(format: &str, path: &Path, rss_before: u64, baseline: Baseline) {
    let on_disk = std::fs::metadata(path).expect("bench file").len();
    // Warm the page cache.
    cat(path);
    let (base_name, base) = match baseline {
        Baseline::Cat => ("cat", cat as fn(&Path) -> f64),
        Baseline::Gunzip => ("gzip -dc", gunzip as fn(&Path) -> f64),
    };
    let options = OpenOptions::default();
    let mut cat_s = f64::MAX;
    let mut read_s = f64::MAX;
    let mut best = f64::MAX;
    let mut summary = String::new();
    let mut size = on_disk;
    // The baseline and the open take turns, so a machine that speeds up or
    // slows down meanwhile (a shared VM does) weighs on both alike; the
    // best of each is kept.
    for _ in 0..RUNS {
        cat_s = cat_s.min(base(path));
        if on_disk >= options.parallel_from {
            read_s = read_s.min(read_only(path, &options));
        }
        let t = Instant::now();
        let session = open_files(&[Input::new(path)], &options, None).expect("open");
        let dt = t.elapsed().as_secs_f64();
        size = session.files()[0].size;
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
    let packed = if on_disk == size {
        String::new()
    } else {
        format!(" ({:.0} MB compressed)", on_disk as f64 / 1e6)
    };
    // A gzip file is inflated in one pass, not read in parts.
    let read = if read_s < f64::MAX && on_disk == size {
        format!(
            "; read alone {read_s:.3} s = {:.2}x {base_name}",
            read_s / cat_s
        )
    } else {
        String::new()
    };
    println!(
        "open[{format}] {:.0} MB{packed}: {:.3} s = {gb_s:.2} GB/s (target >= 2); {base_name} {:.3} s; ratio {ratio:.2}x {base_name} (target <= 1.5){read}; \
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

/// The open's reads alone: `path` in `options.chunk` pieces with `pread`,
/// split in equal parts over `options.threads` threads, the bytes unused.
fn read_only(path: &Path, options: &OpenOptions) -> f64 {
    let file = File::open(path).expect("bench file");
    let size = file.metadata().expect("bench file").len();
    let threads = options.threads.max(1) as u64;
    let part = |k: u64| {
        let (mut at, end) = (size * k / threads, size * (k + 1) / threads);
        let mut buf = vec![0u8; options.chunk];
        while at < end {
            let want = options.chunk.min((end - at) as usize);
            match file.read_at(&mut buf[..want], at).expect("read") {
                0 => break,
                n => at += n as u64,
            }
        }
        std::hint::black_box(&buf);
    };
    let t = Instant::now();
    std::thread::scope(|scope| {
        for k in 1..threads {
            scope.spawn(move || part(k));
        }
        part(0);
    });
    t.elapsed().as_secs_f64()
}

fn gunzip(path: &Path) -> f64 {
    let t = Instant::now();
    let status = Command::new("gzip")
        .arg("-dc")
        .arg(path)
        .stdout(Stdio::null())
        .status()
        .expect("gzip");
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
