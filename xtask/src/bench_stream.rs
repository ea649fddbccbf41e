//! `cargo xtask bench-stream --base BIN [--new BIN] [--mb 300,1000] [--runs 5]`:
//! `retrace migrate --to anthropic`, `show --json` and `cat` of a generated
//! linear event stream (`events.jsonl`, the seeded generator of retrace-io's
//! open bench, kept in `target/stream-bench`), each run under GNU time with
//! stdout to /dev/null, the base binary and the new one alternating; the
//! table gives medians of wall time and peak RSS, MB/s of input, and the
//! goals of issue 22 (≥ 500 MB/s, peak ≤ 0.2 × input + 64 MiB).
//!
//! `--new` defaults to this tree's release build (built first).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::cmd::release_retrace;
use crate::{root, tools};

#[path = "../../crates/retrace-io/benches/open/generate.rs"]
#[allow(dead_code)]
mod generate;

/// The goals: input megabytes a second, and peak memory as a
/// share of the input plus a constant.
const SPEED: f64 = 500.0;
const MEMORY_SHARE: f64 = 0.2;
const MEMORY_BASE: f64 = 64.0 * 1024.0 * 1024.0;

pub fn run(args: &[String]) -> Result<()> {
    let mut sizes = vec![300u64];
    let mut runs = 5usize;
    let mut base = None;
    let mut new = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--mb" => {
                sizes = it
                    .next()
                    .context("--mb needs a list like 300,1000")?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            "--runs" => runs = it.next().context("--runs needs a number")?.parse()?,
            "--base" => base = Some(PathBuf::from(it.next().context("--base needs a binary")?)),
            "--new" => new = Some(PathBuf::from(it.next().context("--new needs a binary")?)),
            other => bail!(
                "bench-stream: unknown argument `{other}` (takes --base BIN, --new BIN, --mb 300,1000, --runs N)"
            ),
        }
    }
    let base = base.context("bench-stream needs --base BIN: a release build of the base commit")?;
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    let root = root();
    let time = tools::ensure_gnu_time()?;
    let new = match new {
        Some(new) => new,
        None => release_retrace(&root)?,
    };
    let dir = root.join("target/stream-bench");
    std::fs::create_dir_all(&dir)?;
    for mb in sizes {
        let input = dir.join(format!("events-{mb}mb.jsonl"));
        if !input.exists() {
            eprintln!("generating {} ({mb} MB)", input.display());
            let tmp = input.with_extension("tmp");
            generate::events(&tmp, mb, 1)?;
            std::fs::rename(&tmp, &input)?;
        }
        let bytes = std::fs::metadata(&input)?.len() as f64;
        // Warm the page cache.
        std::fs::read(&input)?;
        let jobs: [(&str, &[&str]); 3] = [
            ("migrate --to anthropic", &["migrate", "--to", "anthropic"]),
            ("show --json", &["show", "--json"]),
            ("cat", &["cat"]),
        ];
        println!(
            "\n{mb} MB event stream ({bytes:.0} bytes), {runs} runs each, base and new alternating"
        );
        let goal_rss = MEMORY_SHARE * bytes + MEMORY_BASE;
        let mut rows = Vec::new();
        for (name, args) in jobs {
            let (mut b, mut n) = (Vec::new(), Vec::new());
            for _ in 0..runs {
                b.push(measure(&time, &base, args, &input)?);
                n.push(measure(&time, &new, args, &input)?);
            }
            rows.push((name, figures(&b), figures(&n)));
        }
        println!(
            "  {:<24} {:>9} {:>9} {:>8} {:>9} {:>9} {:>8}  goals (≥ {SPEED:.0} MB/s, ≤ {:.0} MiB)",
            "job",
            "base s",
            "new s",
            "new MB/s",
            "base MiB",
            "new MiB",
            "speedup",
            goal_rss / 1048576.0
        );
        for (name, (bw, br), (nw, nr)) in rows {
            let speed = bytes / 1e6 / nw;
            let met = |ok: bool| if ok { "met" } else { "not met" };
            println!(
                "  {name:<24} {bw:>9.2} {nw:>9.2} {speed:>8.0} {:>9.0} {:>9.0} {:>7.1}x  speed {}, memory {}",
                br / 1048576.0,
                nr / 1048576.0,
                bw / nw,
                met(speed >= SPEED),
                met(nr <= goal_rss),
            );
        }
    }
    Ok(())
}

/// Medians of (wall seconds, peak RSS bytes).
fn figures(samples: &[(f64, f64)]) -> (f64, f64) {
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    (
        median(samples.iter().map(|s| s.0).collect()),
        median(samples.iter().map(|s| s.1).collect()),
    )
}

/// One run of `retrace ARGS INPUT > /dev/null` under GNU time: wall
/// seconds and peak RSS in bytes.
fn measure(time: &Path, retrace: &Path, args: &[&str], input: &Path) -> Result<(f64, f64)> {
    let report = input.with_extension("time");
    let status = Command::new(time)
        .args(["-f", "%e %M %U %S", "-o"])
        .arg(&report)
        .arg(retrace)
        .args(args)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("could not start {}", retrace.display()))?;
    if !status.success() {
        bail!(
            "{} {} {} failed: {status}",
            retrace.display(),
            args.join(" "),
            input.display()
        );
    }
    let figures = std::fs::read_to_string(&report)?;
    let last = figures.lines().last().unwrap_or_default();
    let mut parts = last.split_whitespace();
    let wall: f64 = parts
        .next()
        .context("GNU time wrote no wall time")?
        .parse()?;
    let rss_kb: f64 = parts
        .next()
        .context("GNU time wrote no peak RSS")?
        .parse()?;
    println!(
        "    {:<40} {wall:>6.2} s {:>6.0} MiB",
        format!("{} {}", retrace.display(), args.join(" ")),
        rss_kb / 1024.0
    );
    Ok((wall, rss_kb * 1024.0))
}
