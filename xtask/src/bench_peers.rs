//! `cargo xtask bench-peers --base BIN [--new BIN] [--runs N]`: retrace's
//! usage summary (`retrace info`) beside its peers, on generated sessions
//! (`gen_claude.py` and `gen_session.py`, seed 1, kept in
//! `target/peers-bench`): ccusage (pinned, installed from npm into that
//! folder; its native build where npm has one for this machine) and a naive
//! Node loader (read the file, split it into lines, `JSON.parse` each, sum
//! the usage: what a plain JS tool costs). Every command of a job runs once
//! per round (under GNU time: wall and CPU seconds), rounds repeated, so all
//! of them see the same machine; the base binary runs beside the new one. Prints medians, ratios and issue 22's
//! goals (`info` on 100 MB of Claude Code ≥ 10× ccusage; `info` on 300 MB of
//! pi ≥ 2 GB/s). Not part of `cargo xtask test`.
//!
//! `--new` defaults to this tree's release build (built first).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::bench_wasm::ensure_generated;
use crate::cmd::{base_and_new, step};
use crate::{root, tools};

/// The ccusage release measured against (its `claude session` and
/// `pi session` reports).
const CCUSAGE: &str = "20.0.24";

/// Issue 22's goals: `info` this many times ccusage's speed on Claude Code,
/// and this many bytes a second on pi.
const CCUSAGE_RATIO: f64 = 10.0;
const PI_SPEED: f64 = 2e9;

/// The naive loader: the whole file as text, split at newlines, every
/// line parsed, usage summed (Claude Code's `message.usage.*_tokens`, pi's
/// `message.usage.{input,output,cacheRead,cacheWrite}`).
const NAIVE_LOADER: &str = r#"// Written by `cargo xtask bench-peers`: what a naive JS loader costs.
const fs = require("fs");
const text = fs.readFileSync(process.argv[2], "utf8");
const total = { lines: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
for (const line of text.split("\n")) {
  if (line.trim() === "") continue;
  const entry = JSON.parse(line);
  total.lines++;
  const usage = entry.message && entry.message.usage;
  if (!usage) continue;
  total.input += usage.input_tokens ?? usage.input ?? 0;
  total.output += usage.output_tokens ?? usage.output ?? 0;
  total.cacheRead += usage.cache_read_input_tokens ?? usage.cacheRead ?? 0;
  total.cacheWrite += usage.cache_creation_input_tokens ?? usage.cacheWrite ?? 0;
}
console.log(JSON.stringify(total));
"#;

pub fn run(args: &[String]) -> Result<()> {
    let mut runs = 7usize;
    let mut base = None;
    let mut new = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = it.next().context("--runs needs a number")?.parse()?,
            "--base" => base = Some(PathBuf::from(it.next().context("--base needs a binary")?)),
            "--new" => new = Some(PathBuf::from(it.next().context("--new needs a binary")?)),
            other => bail!(
                "bench-peers: unknown argument `{other}` (takes --base BIN, --new BIN, --runs N)"
            ),
        }
    }
    let (base, new) = base_and_new("bench-peers", base, new)?;
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    let root = root();
    let dir = root.join("target/peers-bench");
    let claude = ensure_generated(&root, &dir, "gen_claude.py", "claude-code", 100)?;
    let pi100 = ensure_generated(&root, &dir, "gen_session.py", "pi", 100)?;
    let pi300 = ensure_generated(&root, &dir, "gen_session.py", "pi", 300)?;
    let ccusage = ensure_ccusage(&dir)?;
    let time = tools::ensure_gnu_time()?;
    let naive = dir.join("naive-loader.cjs");
    std::fs::write(&naive, NAIVE_LOADER)?;
    // ccusage reads Claude Code's folders under CLAUDE_CONFIG_DIR and pi's
    // under --pi-path: each session linked into a folder of its own.
    let claude_home = dir.join("claude-home");
    link_into(
        &claude,
        &claude_home.join("projects/-bench"),
        &format!("{}.jsonl", session_id(&claude)?),
    )?;
    let pi_home = dir.join("pi-home");
    link_into(
        &pi100,
        &pi_home.join("--bench--"),
        "2025-06-01T09-00-00-000Z_bench.jsonl",
    )?;
    let retrace = |bin: &Path, args: &[&str], file: &Path| {
        let mut c = Command::new(bin);
        c.args(args).arg(file);
        c
    };
    let node = |file: &Path| {
        let mut c = Command::new("node");
        c.arg(&naive).arg(file);
        c
    };

    let claude_jobs = vec![
        ("retrace info (new)", retrace(&new, &["info"], &claude)),
        ("retrace info (base)", retrace(&base, &["info"], &claude)),
        (
            "retrace info --json (new)",
            retrace(&new, &["info", "--json"], &claude),
        ),
        ("retrace tree (new)", retrace(&new, &["tree"], &claude)),
        ("ccusage claude session --json", {
            let mut c = Command::new(&ccusage);
            c.args(["claude", "session", "--json", "--offline"])
                .env("CLAUDE_CONFIG_DIR", &claude_home);
            c
        }),
        ("naive Node loader", node(&claude)),
    ];
    let claude_times = measure_all(
        &format!("100 MB Claude Code ({})", claude.display()),
        &time,
        &claude_jobs,
        runs,
    )?;
    let pi100_jobs = vec![
        ("retrace info (new)", retrace(&new, &["info"], &pi100)),
        ("retrace info (base)", retrace(&base, &["info"], &pi100)),
        ("ccusage pi session --json", {
            let mut c = Command::new(&ccusage);
            c.args(["pi", "session", "--json", "--offline", "--pi-path"])
                .arg(&pi_home);
            c
        }),
        ("naive Node loader", node(&pi100)),
    ];
    let pi100_times = measure_all(
        &format!("100 MB pi ({})", pi100.display()),
        &time,
        &pi100_jobs,
        runs,
    )?;
    let pi300_jobs = vec![
        ("retrace info (new)", retrace(&new, &["info"], &pi300)),
        ("retrace info (base)", retrace(&base, &["info"], &pi300)),
        ("retrace tree (new)", retrace(&new, &["tree"], &pi300)),
        ("retrace tree (base)", retrace(&base, &["tree"], &pi300)),
        ("naive Node loader", node(&pi300)),
    ];
    let pi300_times = measure_all(
        &format!("300 MB pi ({})", pi300.display()),
        &time,
        &pi300_jobs,
        runs,
    )?;

    println!("\nissue 22's goals (medians of {runs} interleaved rounds):");
    let [info, info_base, _, _, ccusage_s, _] = claude_times[..] else {
        unreachable!("six Claude Code jobs")
    };
    let ratio = ccusage_s / info;
    println!(
        "  100 MB Claude Code: info {info:.3} s (base {info_base:.3} s, {:.1}x), ccusage {ccusage_s:.3} s: {ratio:.1}x ccusage (goal ≥ {CCUSAGE_RATIO:.0}x): {}",
        info_base / info,
        met(ratio >= CCUSAGE_RATIO)
    );
    let [info, info_base, ccusage_s, _] = pi100_times[..] else {
        unreachable!("four pi jobs")
    };
    println!(
        "  100 MB pi: info {info:.3} s (base {info_base:.3} s, {:.1}x), ccusage {ccusage_s:.3} s: {:.1}x ccusage",
        info_base / info,
        ccusage_s / info
    );
    let [info, info_base, tree, _, _] = pi300_times[..] else {
        unreachable!("five pi jobs")
    };
    let bytes = std::fs::metadata(&pi300)?.len() as f64;
    let speed = bytes / info;
    println!(
        "  300 MB pi: info {info:.3} s (base {info_base:.3} s, {:.1}x) = {:.2} GB/s (goal ≥ {:.0} GB/s): {}; tree {tree:.3} s",
        info_base / info,
        speed / 1e9,
        PI_SPEED / 1e9,
        met(speed >= PI_SPEED)
    );
    Ok(())
}

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "NOT met"
    }
}

/// ccusage at [`CCUSAGE`] in `dir/npm` (installed when missing): its
/// `bin` entry.
fn ensure_ccusage(dir: &Path) -> Result<PathBuf> {
    let prefix = dir.join("npm");
    let package = prefix.join("node_modules/ccusage/package.json");
    let installed = std::fs::read(&package)
        .ok()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .is_some_and(|p| p["version"] == CCUSAGE);
    if !installed {
        step(
            &format!("npm install ccusage@{CCUSAGE}"),
            dir,
            Command::new("npm")
                .args(["install", "--no-audit", "--no-fund", "--prefix"])
                .arg(&prefix)
                .arg(format!("ccusage@{CCUSAGE}")),
        )?;
    }
    Ok(prefix.join("node_modules/.bin/ccusage"))
}

/// The `sessionId` a Claude Code file's lines carry (ccusage names a
/// session by its file).
fn session_id(file: &Path) -> Result<String> {
    let mut head = vec![0; 1 << 16];
    let n = std::io::Read::read(&mut std::fs::File::open(file)?, &mut head)?;
    let head = String::from_utf8_lossy(&head[..n]);
    let key = "\"sessionId\":\"";
    let at = head
        .find(key)
        .with_context(|| format!("{}: no sessionId in its first lines", file.display()))?;
    Ok(head[at + key.len()..].chars().take(36).collect())
}

/// `file` hard-linked (copied where it cannot be) as `dir/name`.
fn link_into(file: &Path, dir: &Path, name: &str) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let to = dir.join(name);
    if to.exists() {
        return Ok(());
    }
    if std::fs::hard_link(file, &to).is_err() {
        std::fs::copy(file, &to)?;
    }
    Ok(())
}

/// Runs each job once per round, `runs` rounds (after one warm-up round
/// that also fills the page cache), under GNU time, printing each job's
/// wall times, its median wall time and its median CPU time (user and
/// system: on a loaded machine the wall time follows the load, the CPU
/// time what the work costs); returns the median wall times in job order.
fn measure_all(
    title: &str,
    time: &Path,
    jobs: &[(&str, Command)],
    runs: usize,
) -> Result<Vec<f64>> {
    println!("\n{title}: {runs} rounds, every job once per round");
    let report = std::env::temp_dir().join(format!("bench-peers-{}.time", std::process::id()));
    let mut walls = vec![Vec::new(); jobs.len()];
    let mut cpus = vec![Vec::new(); jobs.len()];
    for round in 0..=runs {
        for (i, (name, job)) in jobs.iter().enumerate() {
            let mut command = Command::new(time);
            command
                .args(["-f", "%e %U %S", "-o"])
                .arg(&report)
                .arg(job.get_program())
                .args(job.get_args());
            for (key, value) in job.get_envs() {
                if let Some(value) = value {
                    command.env(key, value);
                }
            }
            let status = command
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .with_context(|| format!("could not start {name}"))?;
            if !status.success() {
                bail!("{name} failed: {status}");
            }
            let figures = std::fs::read_to_string(&report)?;
            let last = figures.lines().last().unwrap_or_default();
            let parts: Vec<f64> = last
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()
                .with_context(|| format!("GNU time wrote `{last}`"))?;
            let [wall, user, system] = parts[..] else {
                bail!("GNU time wrote `{last}`");
            };
            if round > 0 {
                walls[i].push(wall);
                cpus[i].push(user + system);
            }
        }
    }
    let _ = std::fs::remove_file(&report);
    let medians: Vec<f64> = walls.iter().map(|t| median(t.clone())).collect();
    for (i, (name, _)) in jobs.iter().enumerate() {
        let all: Vec<String> = walls[i].iter().map(|s| format!("{s:.2}")).collect();
        println!(
            "  {name:<32} median {:>6.3} s, CPU {:>6.3} s   [{}]",
            medians[i],
            median(cpus[i].clone()),
            all.join(" ")
        );
    }
    Ok(medians)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}
