//! Running commands with a clear record of what ran and what failed.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

/// `cargo`, as the one that runs xtask.
pub fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// Runs `command` in `dir` as the step `name`, inheriting stdio, and fails
/// naming the step when it does.
pub fn step(name: &str, dir: &Path, command: &mut Command) -> Result<()> {
    println!("==> {name}");
    let start = Instant::now();
    let status = command
        .current_dir(dir)
        .status()
        .with_context(|| format!("{name}: could not start {command:?}"))?;
    if !status.success() {
        bail!("step `{name}` failed ({status})");
    }
    println!("    {name}: ok in {:.1} s", start.elapsed().as_secs_f64());
    Ok(())
}

/// The standard output of a command, for queries like `rustup target list`.
pub fn output(command: &mut Command) -> Result<String> {
    let out = command
        .output()
        .with_context(|| format!("could not start {command:?}"))?;
    if !out.status.success() {
        bail!(
            "{command:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
