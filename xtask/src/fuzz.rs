//! `cargo xtask fuzz [--seconds N] [--max-len N] [--sanitizer S] [TARGET…]`:
//! every fuzz target of `fuzz/` in turn (cargo-fuzz on the stable
//! toolchain, `RUSTC_BOOTSTRAP=1`), each for N seconds, from seed corpora
//! made of the shared corpus and `tests/fixtures`; executions per target
//! and in total, read from libFuzzer's final statistics; fails when a
//! target finds a crash, a panic, a timeout or an out-of-memory.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::cmd::{cargo, step};
use crate::{root, tools};

/// Every target of `fuzz/Cargo.toml`, in the order they run.
pub const TARGETS: [&str; 7] = [
    "read", "document", "gzip", "bodies", "migrate", "store", "redact",
];

/// A seed's file bytes are cut here (at a newline when there is one).
/// libFuzzer reads only the first `--max-len` bytes of each (4,096 by
/// default: a longer input slows every execution down more than it finds);
/// `--max-len 65540` takes them whole.
const SEED_MAX: usize = 64 << 10;

/// Zeros before a seed's file: the targets' control bytes
/// (`retrace_fuzz::CONTROL`).
const CONTROL: usize = 4;

struct Options {
    seconds: u64,
    max_len: usize,
    sanitizer: String,
    targets: Vec<String>,
}

fn parse(args: &[String]) -> Result<Options> {
    let mut o = Options {
        seconds: 60,
        max_len: 4096,
        sanitizer: "address".to_owned(),
        targets: Vec::new(),
    };
    let mut args = args.iter();
    while let Some(a) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .cloned()
                .with_context(|| format!("{name} takes a value"))
        };
        match a.as_str() {
            "--seconds" => o.seconds = value(a)?.parse().context("--seconds N")?,
            "--max-len" => o.max_len = value(a)?.parse().context("--max-len N")?,
            "--sanitizer" => o.sanitizer = value(a)?,
            t if TARGETS.contains(&t) => o.targets.push(t.to_owned()),
            other => bail!(
                "unknown argument `{other}` (targets: {})",
                TARGETS.join(", ")
            ),
        }
    }
    if o.targets.is_empty() {
        o.targets = TARGETS.iter().map(|t| (*t).to_owned()).collect();
    }
    Ok(o)
}

/// What one target's run came to.
struct Outcome {
    target: String,
    executions: u64,
    seconds: f64,
    peak_rss_mb: Option<u64>,
    /// The crash, panic, timeout or out-of-memory, with its input's path.
    failure: Option<String>,
}

pub fn run(args: &[String]) -> Result<()> {
    let o = parse(args)?;
    let root = root();
    tools::ensure_cargo_fuzz(&root)?;
    let seeds = write_seeds(&root)?;
    step(
        "cargo fuzz build (release, with debug assertions)",
        &root,
        &mut fuzz_command(&o, "build"),
    )?;
    let mut outcomes = Vec::new();
    for target in &o.targets {
        outcomes.push(run_target(&root, &o, target, &seeds)?);
    }
    remove_store_folders();
    println!(
        "\n{:<10} {:>14} {:>9} {:>10}  result",
        "target", "executions", "exec/s", "peak RSS"
    );
    let mut total = 0;
    for r in &outcomes {
        total += r.executions;
        println!(
            "{:<10} {:>14} {:>9.0} {:>10}  {}",
            r.target,
            group(r.executions),
            r.executions as f64 / r.seconds.max(1e-9),
            r.peak_rss_mb.map_or("?".to_owned(), |m| format!("{m} MB")),
            r.failure.as_deref().unwrap_or("ok")
        );
    }
    println!("{:<10} {:>14}", "total", group(total));
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|r| r.failure.is_some())
        .map(|r| r.target.as_str())
        .collect();
    if !failed.is_empty() {
        bail!("fuzzing found a failure in {}", failed.join(", "));
    }
    Ok(())
}

fn fuzz_command(o: &Options, sub: &str) -> Command {
    let mut c = cargo();
    c.args(["fuzz", sub, "--release", "--debug-assertions"])
        .args(["--sanitizer", &o.sanitizer])
        .env("RUSTC_BOOTSTRAP", "1")
        .env("PATH", tools::path(&root()));
    c
}

fn run_target(root: &Path, o: &Options, target: &str, seeds: &Path) -> Result<Outcome> {
    let corpus = root.join("fuzz/corpus").join(target);
    fs::create_dir_all(&corpus)?;
    let logs = root.join("fuzz/logs");
    fs::create_dir_all(&logs)?;
    let log_path = logs.join(format!("{target}.log"));
    println!(
        "==> fuzz {target} for {} s (log: {})",
        o.seconds,
        log_path.display()
    );
    let start = Instant::now();
    let mut child = fuzz_command(o, "run")
        .arg(target)
        .arg(&corpus)
        .arg(seeds)
        .arg("--")
        .arg(format!("-max_total_time={}", o.seconds))
        .arg(format!("-max_len={}", o.max_len))
        .args(["-timeout=10", "-rss_limit_mb=2048", "-print_final_stats=1"])
        .current_dir(root)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("could not start cargo fuzz run {target}"))?;
    let mut text = String::new();
    child
        .stderr
        .take()
        .expect("piped")
        .read_to_string(&mut text)?;
    let status = child.wait()?;
    let seconds = start.elapsed().as_secs_f64();
    fs::write(&log_path, &text)?;
    let executions = executions(&text);
    let peak_rss_mb = stat(&text, "stat::peak_rss_mb");
    let failure = (!status.success()).then(|| failure(&text, &log_path));
    println!(
        "    {target}: {} executions in {seconds:.0} s{}",
        group(executions),
        failure
            .as_deref()
            .map_or(String::new(), |f| format!(", FAILED: {f}"))
    );
    Ok(Outcome {
        target: target.to_owned(),
        executions,
        seconds,
        peak_rss_mb,
        failure,
    })
}

/// libFuzzer's count of executions: its final statistics, else the last
/// `#N` status line (a run that crashed prints no statistics).
fn executions(log: &str) -> u64 {
    stat(log, "stat::number_of_executed_units").unwrap_or_else(|| {
        log.lines()
            .rev()
            .filter_map(|l| l.strip_prefix('#'))
            .find_map(|l| {
                l.split(|c: char| !c.is_ascii_digit())
                    .next()
                    .and_then(|n| n.parse().ok())
            })
            .unwrap_or(0)
    })
}

fn stat(log: &str, name: &str) -> Option<u64> {
    log.lines().find_map(|l| {
        l.strip_prefix(name)?
            .trim_start_matches(':')
            .trim()
            .parse()
            .ok()
    })
}

/// What went wrong, from the log: libFuzzer's summary line and the input
/// it wrote.
fn failure(log: &str, log_path: &Path) -> String {
    let summary = log
        .lines()
        .find(|l| l.starts_with("SUMMARY:") || l.contains("ERROR: libFuzzer"))
        .or_else(|| log.lines().find(|l| l.contains("panicked at")))
        .unwrap_or("the run failed")
        .trim()
        .to_owned();
    let input = log
        .lines()
        .find_map(|l| l.split("Test unit written to ").nth(1))
        .map_or(String::new(), |p| format!("; input {}", p.trim()));
    format!("{summary}{input} (see {})", log_path.display())
}

/// `1234567` as `1,234,567`.
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The seeds every target starts from, in `fuzz/seeds/` (git-ignored):
/// each file of the shared corpus (`../shared/corpus`) and of
/// `tests/fixtures` that holds sessions (JSON lines, JSON, gzip:
/// inflated), cut at `SEED_MAX`, behind `CONTROL` zeros. Made again on
/// every run, so a changed corpus is picked up.
fn write_seeds(root: &Path) -> Result<PathBuf> {
    let dir = root.join("fuzz/seeds");
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    fs::create_dir_all(&dir)?;
    let mut files = Vec::new();
    for base in [root.join("../shared/corpus"), root.join("tests/fixtures")] {
        if base.is_dir() {
            list(&base, &mut files)?;
        } else {
            println!("    (no {}: its seeds are left out)", base.display());
        }
    }
    let mut written = 0;
    for path in files {
        let name = path.to_string_lossy();
        let bytes = fs::read(&path)?;
        let plain = if name.ends_with(".gz") {
            let mut out = Vec::new();
            // A damaged fixture inflates as far as it goes.
            let _ = flate2::read::MultiGzDecoder::new(&bytes[..]).read_to_end(&mut out);
            out
        } else if name.ends_with(".jsonl") || name.ends_with(".json") {
            bytes
        } else {
            continue;
        };
        let mut cut = plain.len().min(SEED_MAX);
        if cut < plain.len() {
            if let Some(nl) = plain[..cut].iter().rposition(|&b| b == b'\n') {
                cut = nl + 1;
            }
        }
        let mut seed = vec![0u8; CONTROL];
        seed.extend_from_slice(&plain[..cut]);
        fs::write(dir.join(format!("seed-{written:04}")), seed)?;
        written += 1;
    }
    println!("==> {written} seeds in {}", dir.display());
    Ok(dir)
}

fn list(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            list(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// The `store` target's file stores (`retrace-fuzz-store-<pid>` in
/// `/dev/shm` or the temporary folder), which libFuzzer's exit leaves:
/// those whose process is gone (another run's may still be in use).
fn remove_store_folders() {
    for base in [PathBuf::from("/dev/shm"), std::env::temp_dir()] {
        let Ok(entries) = fs::read_dir(&base) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some(pid) = name.strip_prefix("retrace-fuzz-store-") else {
                continue;
            };
            if !Path::new("/proc").join(pid).exists() {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }
}
