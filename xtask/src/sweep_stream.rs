//! `cargo xtask sweep-stream --base BIN [--new BIN] [--big FILE]…`: the
//! outputs of the streamed and the summary commands unchanged. Every file
//! under the shared corpus (`../shared/corpus`) and under `tests/fixtures`
//! is given to `retrace migrate --to X` for every target API,
//! `retrace show --json`, `retrace cat`, `retrace redact` in every mode,
//! `info` (text and `--json`), `tree` and `validate` (text and `--json`),
//! by the base binary and the new one; stdout, stderr and the exit code
//! must be the same bytes. Differences are listed and fail the step. Each
//! `--big` file (a large generated session, which reaches the threaded
//! deep check the small files do not) is given to the summary commands
//! alone.
//!
//! `--new` defaults to this tree's release build (built first).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};

use crate::cmd::base_and_new;
use crate::root;

/// What `migrate --to` takes.
const APIS: [&str; 4] = ["anthropic", "openai", "openai-responses", "google"];

/// What `redact --mode` takes.
const REDACT_MODES: [&str; 3] = ["mask", "typed", "pseudo"];

pub fn run(args: &[String]) -> Result<()> {
    let mut base = None;
    let mut new = None;
    let mut big = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--base" => base = Some(PathBuf::from(it.next().context("--base needs a binary")?)),
            "--new" => new = Some(PathBuf::from(it.next().context("--new needs a binary")?)),
            "--big" => big.push(PathBuf::from(it.next().context("--big needs a file")?)),
            other => {
                bail!("sweep-stream: unknown argument `{other}` (takes --base BIN, --new BIN, --big FILE)")
            }
        }
    }
    let (base, new) = base_and_new("sweep-stream", base, new)?;
    let root = root();
    // A name `--to` does not take would fail alike with both binaries.
    let help = Command::new(&new).args(["migrate", "--help"]).output()?;
    let help = String::from_utf8_lossy(&help.stdout);
    if let Some(api) = APIS.iter().find(|a| !help.contains(*a)) {
        bail!("`retrace migrate --to` does not take `{api}`");
    }
    let mut files = Vec::new();
    for dir in [root.join("../shared/corpus"), root.join("tests/fixtures")] {
        walk(&dir, &mut files)?;
    }
    files.sort();
    let mut commands: Vec<Vec<String>> = APIS
        .iter()
        .map(|api| vec!["migrate".into(), "--to".into(), (*api).into()])
        .collect();
    commands.push(vec!["show".into(), "--json".into()]);
    commands.push(vec!["cat".into()]);
    for mode in REDACT_MODES {
        commands.push(vec!["redact".into(), "--mode".into(), mode.into()]);
    }
    let summaries: Vec<Vec<String>> = [
        &["info"][..],
        &["info", "--json"],
        &["tree"],
        &["validate"],
        &["validate", "--json"],
    ]
    .iter()
    .map(|args| args.iter().map(|a| (*a).to_owned()).collect())
    .collect();
    commands.extend(summaries.iter().cloned());
    let mut jobs: Vec<(&PathBuf, &Vec<String>)> = Vec::new();
    for file in &files {
        jobs.extend(commands.iter().map(|args| (file, args)));
    }
    for file in &big {
        jobs.extend(summaries.iter().map(|args| (file, args)));
    }
    let (mut runs, mut differ) = (0, Vec::new());
    let mut exits = std::collections::BTreeMap::<String, usize>::new();
    for (file, args) in jobs {
        let was = output(&base, args, file)?;
        let now = output(&new, args, file)?;
        runs += 1;
        *exits
            .entry(format!("{} exit {}", args[0], now.0))
            .or_default() += 1;
        if was != now {
            let what = [
                (was.0 != now.0, "exit code"),
                (was.1 != now.1, "stdout"),
                (was.2 != now.2, "stderr"),
            ]
            .iter()
            .filter(|w| w.0)
            .map(|w| w.1)
            .collect::<Vec<_>>()
            .join(", ");
            differ.push(format!("  {} {}: {what}", args.join(" "), file.display()));
        }
    }
    println!(
        "sweep-stream: {} files × {} commands + {} large files × {} = {runs} runs, {} differ",
        files.len(),
        commands.len(),
        big.len(),
        summaries.len(),
        differ.len()
    );
    for (what, n) in exits {
        println!("  {what}: {n}");
    }
    if !differ.is_empty() {
        for d in &differ {
            println!("{d}");
        }
        bail!("{} outputs differ from the base binary's", differ.len());
    }
    Ok(())
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// Exit code, stdout and stderr of `retrace ARGS FILE` (colour off, so
/// both write the same on any terminal).
fn output(retrace: &Path, args: &[String], file: &Path) -> Result<(i32, Vec<u8>, Vec<u8>)> {
    let out = Command::new(retrace)
        .args(args)
        .arg(file)
        .env("NO_COLOR", "1")
        .output()
        .with_context(|| format!("could not start {}", retrace.display()))?;
    Ok((out.status.code().unwrap_or(-1), out.stdout, out.stderr))
}
