//! `cargo xtask bench-stream --base BIN [--new BIN] [--mb 300,1000] [--runs 5] [--only stream,validate,redact]`:
//! each run under GNU time with stdout to /dev/null, the base binary and
//! the new one alternating; the tables give medians of wall time, CPU
//! seconds and peak RSS, MB/s of input, and the goals of issue 22:
//! - `stream`: `retrace migrate --to anthropic`, `show --json` and `cat`
//!   of a generated linear event stream (`events.jsonl`, the seeded
//!   generator of retrace-io's open bench, kept in `target/stream-bench`):
//!   ≥ 500 MB/s, peak ≤ 0.2 × input + 64 MiB;
//! - `validate`: `retrace validate` (every body checked) of a pi session
//!   of the same size (`../shared/tools/gen_session.py --seed 1`, kept
//!   there too): ≥ 1 GB/s;
//! - `redact`: `retrace redact -o FILE` in every mode of bench-redact's
//!   50 MB planted corpus (seed 1): ≥ 300 MB/s.
//!
//! `--new` defaults to this tree's release build (built first).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

use crate::cmd::base_and_new;
use crate::{root, tools};

#[path = "../../crates/retrace-io/benches/open/generate.rs"]
#[allow(dead_code)]
mod generate;

/// The goals: input megabytes a second, and peak memory as a
/// share of the input plus a constant.
const SPEED: f64 = 500.0;
const MEMORY_SHARE: f64 = 0.2;
const MEMORY_BASE: f64 = 64.0 * 1024.0 * 1024.0;
/// `validate` and `redact`, input megabytes a second.
const VALIDATE_SPEED: f64 = 1000.0;
const REDACT_SPEED: f64 = 300.0;
const REDACT_MODES: [&str; 3] = ["mask", "typed", "pseudo"];

/// One row of a table: its name, the arguments before the input, and the
/// exit codes that are no failure (`validate` and `redact` exit 1 when
/// they find something).
struct Job {
    name: String,
    args: Vec<String>,
    ok: &'static [i32],
}

/// A table's figures per job: the base's and the new binary's medians.
type Rows = Vec<(String, Figures, Figures)>;

pub fn run(args: &[String]) -> Result<()> {
    let mut sizes = vec![300u64];
    let mut runs = 5usize;
    let mut base = None;
    let mut new = None;
    let mut only: Vec<String> = ["stream", "validate", "redact"].map(String::from).into();
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
            "--only" => {
                only = it
                    .next()
                    .context("--only needs a list like validate,redact")?
                    .split(',')
                    .map(String::from)
                    .collect()
            }
            other => bail!(
                "bench-stream: unknown argument `{other}` (takes --base BIN, --new BIN, --mb 300,1000, --runs N, --only stream,validate,redact)"
            ),
        }
    }
    let (base, new) = base_and_new("bench-stream", base, new)?;
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    let root = root();
    let time = tools::ensure_gnu_time()?;
    let dir = root.join("target/stream-bench");
    std::fs::create_dir_all(&dir)?;
    let wants = |what: &str| only.iter().any(|o| o == what);
    for mb in sizes {
        if wants("stream") {
            let input = dir.join(format!("events-{mb}mb.jsonl"));
            if !input.exists() {
                eprintln!("generating {} ({mb} MB)", input.display());
                let tmp = input.with_extension("tmp");
                generate::events(&tmp, mb, 1)?;
                std::fs::rename(&tmp, &input)?;
            }
            let jobs = [
                job(
                    "migrate --to anthropic",
                    &["migrate", "--to", "anthropic"],
                    &[0],
                ),
                job("show --json", &["show", "--json"], &[0]),
                job("cat", &["cat"], &[0]),
            ];
            let bytes = size(&input)?;
            println!(
                "\n{mb} MB event stream ({bytes:.0} bytes), {runs} runs each, base and new alternating"
            );
            let rows = measure_jobs(&time, (&base, &new), &jobs, &input, runs)?;
            print_rows(
                &rows,
                bytes,
                SPEED,
                Some(MEMORY_SHARE * bytes + MEMORY_BASE),
            );
        }
        if wants("validate") {
            let input = dir.join(format!("pi-{mb}mb.jsonl"));
            if !input.exists() {
                eprintln!("generating {} ({mb} MB)", input.display());
                let tmp = input.with_extension("tmp");
                let status = Command::new("python3")
                    .arg(root.join("../shared/tools/gen_session.py"))
                    .args(["--mb", &mb.to_string(), "--seed", "1", "--out"])
                    .arg(&tmp)
                    .status()?;
                if !status.success() {
                    bail!("gen_session.py failed: {status}");
                }
                std::fs::rename(&tmp, &input)?;
            }
            let bytes = size(&input)?;
            println!("\n{mb} MB pi session ({bytes:.0} bytes), {runs} runs each, base and new alternating");
            let jobs = [job("validate", &["validate"], &[0, 1])];
            let rows = measure_jobs(&time, (&base, &new), &jobs, &input, runs)?;
            print_rows(&rows, bytes, VALIDATE_SPEED, None);
        }
    }
    if wants("redact") {
        let (input, _) = crate::bench_redact::planted(&root, 50.0, 1)?;
        let out = dir.join("redacted.jsonl");
        let out = out.to_string_lossy();
        let jobs: Vec<Job> = REDACT_MODES
            .iter()
            .map(|mode| {
                job(
                    &format!("redact --mode {mode}"),
                    &["redact", "-o", &out, "--mode", mode],
                    &[0, 1],
                )
            })
            .collect();
        let bytes = size(&input)?;
        println!(
            "\n50 MB planted corpus ({bytes:.0} bytes), {runs} runs each, base and new alternating"
        );
        let rows = measure_jobs(&time, (&base, &new), &jobs, &input, runs)?;
        print_rows(&rows, bytes, REDACT_SPEED, None);
        // The outputs too: on a file of many parts, every mode.
        for mode in REDACT_MODES {
            let written = |retrace: &Path| -> Result<Vec<u8>> {
                let out = dir.join(format!("redacted-{mode}.jsonl"));
                Command::new(retrace)
                    .args(["redact", "--mode", mode, "-o"])
                    .arg(&out)
                    .arg(&input)
                    .stderr(Stdio::null())
                    .status()?;
                Ok(std::fs::read(&out)?)
            };
            if written(&base)? != written(&new)? {
                bail!("redact --mode {mode}: the new binary writes other bytes than the base");
            }
        }
        println!("  redact: the same bytes as the base binary in every mode");
    }
    Ok(())
}

fn job(name: &str, args: &[&str], ok: &'static [i32]) -> Job {
    Job {
        name: name.to_owned(),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        ok,
    }
}

/// The input's size in bytes, read once so the page cache holds it.
fn size(input: &Path) -> Result<f64> {
    std::fs::read(input)?;
    Ok(std::fs::metadata(input)?.len() as f64)
}

/// Each job `runs` times with the base binary and the new one alternating.
fn measure_jobs(
    time: &Path,
    (base, new): (&Path, &Path),
    jobs: &[Job],
    input: &Path,
    runs: usize,
) -> Result<Rows> {
    let mut rows = Vec::new();
    for job in jobs {
        let (mut b, mut n) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            b.push(measure(time, base, job, input)?);
            n.push(measure(time, new, job, input)?);
        }
        rows.push((job.name.clone(), figures(&b), figures(&n)));
    }
    Ok(rows)
}

/// The table: per job, medians and the goals (`speed` MB/s, and peak
/// memory when `goal_rss` is given).
fn print_rows(rows: &Rows, bytes: f64, speed_goal: f64, goal_rss: Option<f64>) {
    let memory_goal = goal_rss.map_or(String::new(), |g| format!(", ≤ {:.0} MiB", g / 1048576.0));
    println!(
        "  {:<24} {:>9} {:>9} {:>9} {:>9} {:>8} {:>9} {:>9} {:>8}  goals (≥ {speed_goal:.0} MB/s{memory_goal})",
        "job", "base s", "new s", "base cpu", "new cpu", "new MB/s", "base MiB", "new MiB", "speedup",
    );
    let met = |ok: bool| if ok { "met" } else { "not met" };
    for (name, b, n) in rows {
        let speed = bytes / 1e6 / n.wall;
        let memory = goal_rss.map_or(String::new(), |g| format!(", memory {}", met(n.rss <= g)));
        println!(
            "  {name:<24} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {speed:>8.0} {:>9.0} {:>9.0} {:>7.1}x  speed {}{memory}",
            b.wall,
            n.wall,
            b.cpu,
            n.cpu,
            b.rss / 1048576.0,
            n.rss / 1048576.0,
            b.wall / n.wall,
            met(speed >= speed_goal),
        );
    }
}

/// What one run cost: wall seconds, CPU seconds (user and system), peak
/// RSS bytes.
#[derive(Clone, Copy)]
struct Figures {
    wall: f64,
    cpu: f64,
    rss: f64,
}

/// Medians of each figure.
fn figures(samples: &[Figures]) -> Figures {
    let median = |f: fn(&Figures) -> f64| {
        let mut v: Vec<f64> = samples.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        }
    };
    Figures {
        wall: median(|s| s.wall),
        cpu: median(|s| s.cpu),
        rss: median(|s| s.rss),
    }
}

/// One run of `retrace ARGS INPUT > /dev/null` under GNU time.
fn measure(time: &Path, retrace: &Path, job: &Job, input: &Path) -> Result<Figures> {
    let report = input.with_extension("time");
    let status = Command::new(time)
        .args(["-f", "%e %M %U %S", "-o"])
        .arg(&report)
        .arg(retrace)
        .args(&job.args)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("could not start {}", retrace.display()))?;
    if !status.code().is_some_and(|c| job.ok.contains(&c)) {
        bail!(
            "{} {} {} failed: {status}",
            retrace.display(),
            job.args.join(" "),
            input.display()
        );
    }
    let figures = std::fs::read_to_string(&report)?;
    let last = figures.lines().last().unwrap_or_default();
    let parts: Vec<f64> = last
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .with_context(|| format!("GNU time wrote `{last}`"))?;
    let [wall, rss_kb, user, system] = parts[..] else {
        bail!("GNU time wrote `{last}`, not four figures");
    };
    println!(
        "    {:<40} {wall:>6.2} s {:>6.2} s CPU {:>6.0} MiB",
        format!("{} {}", retrace.display(), job.args.join(" ")),
        user + system,
        rss_kb / 1024.0
    );
    Ok(Figures {
        wall,
        cpu: user + system,
        rss: rss_kb * 1024.0,
    })
}
