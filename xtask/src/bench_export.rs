//! `cargo xtask bench-export [--mb 100,1000] [--runs N]`: `retrace export`
//! beside pi's own HTML export (`pi --export`, the version the client tests
//! pin in `tests/clients`), on generated pi sessions (`gen_session.py`,
//! seed 1, kept in `target/export-bench`), runs interleaved so both see the
//! same machine. Each run is timed by GNU time (wall, peak RSS); the table
//! gives medians, the output's size against the input's, and each retrace
//! row's time and memory against pi's (the export issue asks ≥ 10× less
//! time, ≤ 1/10 of the memory and a page ≤ 0.35× the input). Then each
//! HTML page retrace wrote is opened from `file://` in headless Chromium
//! (`tests/e2e/bench-export.mjs`): the time to its first row and to the
//! session indexed.
//!
//! pi's page holds every entry of the file (the file base64-encoded), so
//! the like-for-like row is `--html --branches all`; `--html` alone is
//! retrace's default (the default branch). pi is run once per size over
//! 500 MB: it holds the whole file several times over in memory.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::bench_wasm::ensure_generated;
use crate::cmd::{built_binary, cargo, step};
use crate::{root, tools, web};

/// The export issue's targets.
const TIME_RATIO: f64 = 10.0;
const MEMORY_RATIO: f64 = 10.0;
const SIZE_RATIO: f64 = 0.35;

/// Past this size pi is run once: a run takes minutes and gigabytes.
const PI_ONCE_OVER_MB: u32 = 500;

pub fn run(args: &[String]) -> Result<()> {
    let mut sizes = vec![100u32, 1000];
    let mut runs = 3usize;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--mb" => {
                sizes = it
                    .next()
                    .context("--mb needs a list like 100,1000")?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            "--runs" => runs = it.next().context("--runs needs a number")?.parse()?,
            other => {
                bail!("bench-export: unknown argument `{other}` (takes --mb 100,1000, --runs N)")
            }
        }
    }
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    let root = root();
    let time = tools::ensure_gnu_time()?;
    tools::ensure_clients_npm(&root)?;
    let pi = tools::clients_dir(&root).join("node_modules/.bin/pi");
    let dist = web::build(&root, true)?;
    step(
        "build retrace with the viewer (release)",
        &root,
        cargo()
            .args(["build", "--release", "-p", "retrace-cli"])
            .env(crate::export_page::VIEWER_VAR, &dist),
    )?;
    let retrace = built_binary(&root, "release", "retrace")?;
    let dir = root.join("target/export-bench");
    // pi writes its settings under HOME; keep it out of the user's.
    let home = dir.join("home");
    std::fs::create_dir_all(&home)?;

    let mut tables = Vec::new();
    for &mb in &sizes {
        let input = ensure_generated(&root, &dir, "gen_session.py", "pi", mb)?;
        let input_bytes = std::fs::metadata(&input)?.len();
        let jobs = jobs(&retrace, &pi, &input, &dir, mb, &home);
        let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); jobs.len()];
        for round in 0..runs {
            for (job, out) in jobs.iter().zip(&mut samples) {
                if job.peer && round > 0 && mb > PI_ONCE_OVER_MB {
                    continue;
                }
                println!("==> {mb} MB, run {}: {}", round + 1, job.name);
                out.push(measure(&time, job, &dir)?);
            }
        }
        tables.push((mb, input_bytes, jobs, samples));
    }

    let pages: Vec<&PathBuf> = tables
        .iter()
        .flat_map(|(_, _, jobs, _)| jobs.iter().filter(|j| j.html && !j.peer))
        .map(|j| &j.output)
        .collect();
    let chromium = tools::ensure_chromium()?;
    println!("==> open each page in headless Chromium");
    let opened = Command::new("node")
        .arg("bench-export.mjs")
        .args(&pages)
        .current_dir(tools::e2e_dir(&root))
        .env("CHROMIUM", chromium)
        .status()
        .context("could not start node")?;

    println!();
    for (mb, input_bytes, jobs, samples) in &tables {
        print_table(*mb, *input_bytes, jobs, samples);
    }
    if !opened.success() {
        bail!("a page did not open (above)");
    }
    Ok(())
}

/// One command of the bench.
struct Job {
    name: &'static str,
    command: Vec<std::ffi::OsString>,
    output: PathBuf,
    /// pi's export, which the other rows are held against.
    peer: bool,
    /// Whether the size target applies (the HTML pages).
    html: bool,
    env: Vec<(&'static str, PathBuf)>,
}

fn jobs(retrace: &Path, pi: &Path, input: &Path, dir: &Path, mb: u32, home: &Path) -> Vec<Job> {
    let out = |suffix: &str| dir.join(format!("out-{mb}mb{suffix}"));
    let retrace_job = |name, suffix: &str, extra: &[&str], html| {
        let output = out(suffix);
        let mut command: Vec<std::ffi::OsString> =
            vec![retrace.into(), "export".into(), input.into()];
        command.extend(extra.iter().map(Into::into));
        command.extend(["-o".into(), output.clone().into()]);
        Job {
            name,
            command,
            output,
            peer: false,
            html,
            env: Vec::new(),
        }
    };
    let pi_out = out("-pi.html");
    vec![
        retrace_job("retrace export --html", ".html", &["--html"], true),
        retrace_job(
            "retrace export --html --branches all",
            "-all.html",
            &["--html", "--branches", "all"],
            true,
        ),
        retrace_job("retrace export --md", ".md", &["--md"], false),
        Job {
            name: "pi --export",
            command: vec![
                pi.into(),
                "--export".into(),
                input.into(),
                pi_out.clone().into(),
            ],
            output: pi_out,
            peer: true,
            html: true,
            env: vec![("HOME", home.to_path_buf())],
        },
    ]
}

#[derive(Clone)]
struct Sample {
    /// `None` when the command failed (pi on a file too big for it).
    ok: Option<Figures>,
    failure: String,
}

/// One run's figures, or the medians of a job's runs.
#[derive(Clone, Copy)]
struct Figures {
    /// Wall seconds.
    wall: f64,
    /// CPU seconds, user and system, all threads: what a loaded machine
    /// disturbs least.
    cpu: f64,
    /// Peak resident bytes.
    rss: f64,
    /// Output bytes.
    size: u64,
}

/// Runs `job` under GNU time: wall seconds, peak RSS in bytes and the
/// output's size, or how it failed.
fn measure(time: &Path, job: &Job, dir: &Path) -> Result<Sample> {
    let report = dir.join("time.txt");
    let _ = std::fs::remove_file(&job.output);
    let out = Command::new(time)
        .args(["-f", "%e %M %U %S", "-o"])
        .arg(&report)
        .args(&job.command)
        .envs(job.env.iter().map(|(k, v)| (k, v)))
        .output()
        .with_context(|| format!("could not start {}", job.name))?;
    let figures = std::fs::read_to_string(&report)?;
    // GNU time writes "Command exited with non-zero status N" first on failure.
    let last = figures.lines().last().unwrap_or_default();
    let mut parts = last.split_whitespace();
    let wall: f64 = parts
        .next()
        .context("GNU time wrote no wall time")?
        .parse()?;
    let rss_kb: u64 = parts
        .next()
        .context("GNU time wrote no peak RSS")?
        .parse()?;
    let cpu = parts
        .map(str::parse::<f64>)
        .sum::<Result<f64, _>>()
        .context("GNU time wrote no CPU times")?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let why = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        println!(
            "    failed after {wall:.1} s at {} MB: {why}",
            rss_kb / 1024
        );
        return Ok(Sample {
            ok: None,
            failure: format!("failed after {wall:.1} s, {} MB: {why}", rss_kb / 1024),
        });
    }
    let size = std::fs::metadata(&job.output)
        .with_context(|| format!("{} wrote no {}", job.name, job.output.display()))?
        .len();
    println!("    {wall:.2} s ({cpu:.2} s of CPU), {} MB", rss_kb / 1024);
    Ok(Sample {
        ok: Some(Figures {
            wall,
            cpu,
            rss: rss_kb as f64 * 1024.0,
            size,
        }),
        failure: String::new(),
    })
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// Medians of one job's successful runs; `None` when none succeeded.
fn medians(samples: &[Sample]) -> Option<Figures> {
    let ok: Vec<Figures> = samples.iter().filter_map(|s| s.ok).collect();
    // A job that failed every run (pi at 1 GB) has no median to take.
    let size = ok.first()?.size;
    let of = |f: fn(&Figures) -> f64| median(ok.iter().map(f).collect());
    Some(Figures {
        wall: of(|f| f.wall),
        cpu: of(|f| f.cpu),
        rss: of(|f| f.rss),
        size,
    })
}

fn print_table(mb: u32, input_bytes: u64, jobs: &[Job], samples: &[Vec<Sample>]) {
    println!("export of the generated {mb} MB pi session ({input_bytes} B), medians:");
    println!(
        "  {:<38} {:>4} {:>7} {:>7} {:>8} {:>11} {:>6}      {:<17} {:<11}",
        "command",
        "runs",
        "wall s",
        "CPU s",
        "peak MB",
        "output B",
        "×input",
        "time vs pi",
        "memory vs pi"
    );
    let peer = jobs
        .iter()
        .zip(samples)
        .find(|(j, _)| j.peer)
        .and_then(|(_, s)| medians(s));
    let mark = |good: bool| if good { "ok" } else { "MISSED" };
    for (job, samples) in jobs.iter().zip(samples) {
        let Some(f) = medians(samples) else {
            let why = samples.last().map_or("not run", |s| s.failure.as_str());
            println!("  {:<38} {:>4} {why}", job.name, samples.len());
            continue;
        };
        let ratio = f.size as f64 / input_bytes as f64;
        let size_mark = match job.html && !job.peer {
            true => mark(ratio <= SIZE_RATIO),
            false => "",
        };
        let (vs_time, vs_memory) = match (&peer, job.peer) {
            (Some(pi), false) => {
                let (t, c, m) = (pi.wall / f.wall, pi.cpu / f.cpu, pi.rss / f.rss);
                (
                    format!("{t:.1}× ({c:.1}× CPU) {}", mark(t >= TIME_RATIO)),
                    format!("1/{m:.0} {}", mark(m >= MEMORY_RATIO)),
                )
            }
            (None, false) => ("pi failed".into(), "pi failed".into()),
            _ => (String::new(), String::new()),
        };
        println!(
            "  {:<38} {:>4} {:>7.2} {:>7.2} {:>8.0} {:>11} {:>6.3} {size_mark:<6} {vs_time:<17} {vs_memory:<11}",
            job.name,
            samples.len(),
            f.wall,
            f.cpu,
            f.rss / 1e6,
            f.size,
            ratio,
        );
    }
    println!();
}
