//! Running commands with a clear record of what ran and what failed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
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

/// The folder cargo builds into, as `cargo metadata` reports it: the
/// workspace's `target/`, or wherever `CARGO_TARGET_DIR` (or cargo's
/// configuration) puts it.
pub fn target_dir(root: &Path) -> Result<PathBuf> {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    if let Some(dir) = DIR.get() {
        return Ok(dir.clone());
    }
    let json = output(
        cargo()
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .current_dir(root),
    )?;
    let meta: serde_json::Value =
        serde_json::from_str(&json).context("reading `cargo metadata`")?;
    let dir = meta["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .context("`cargo metadata` names no target_directory")?;
    Ok(DIR.get_or_init(|| dir).clone())
}

/// A binary of the workspace as cargo built it in `profile` (`debug` or
/// `release`), failing clearly when it is not there.
pub fn built_binary(root: &Path, profile: &str, name: &str) -> Result<PathBuf> {
    let path = target_dir(root)?
        .join(profile)
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if !path.is_file() {
        bail!("{} is not built", path.display());
    }
    Ok(path)
}

/// The two binaries a bench or a sweep compares: `--base` (required, a
/// build of the base commit) and `--new` (else this tree's release build).
pub fn base_and_new(
    command: &str,
    base: Option<PathBuf>,
    new: Option<PathBuf>,
) -> Result<(PathBuf, PathBuf)> {
    let base = base.with_context(|| {
        format!("{command} needs --base BIN: a release build of the base commit")
    })?;
    let new = match new {
        Some(new) => new,
        None => release_retrace(&crate::root())?,
    };
    Ok((base, new))
}

/// `retrace` built in release (without the viewer), for the benches that
/// run the CLI as it ships.
pub fn release_retrace(root: &Path) -> Result<PathBuf> {
    step(
        "build retrace (release)",
        root,
        cargo().args(["build", "--release", "-p", "retrace-cli"]),
    )?;
    built_binary(root, "release", "retrace")
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
