//! `cargo xtask bench-wasm [FILE…]`: the core's reader built for wasm32
//! (+simd128) and timed inside Node's V8, as the browser will run it.
//! Without files it uses (and if needed generates) 1 GB pi and Claude Code
//! sessions in `target/bench`, the same ones as `cargo bench --bench open`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::cmd::{cargo, step, target_dir};
use crate::{root, wasm};

pub fn run(args: &[String]) -> Result<()> {
    let root = root();
    wasm::ensure_target()?;
    let crate_dir = root.join("xtask/wasm-bench");
    let module = build_module(&root)?;
    let files: Vec<PathBuf> = if args.is_empty() {
        let bench = root.join("target/bench");
        vec![
            ensure_generated(&root, &bench, "gen_session.py", "pi", 1000)?,
            ensure_generated(&root, &bench, "gen_claude.py", "claude", 1000)?,
        ]
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    step(
        "node bench.mjs",
        &crate_dir,
        Command::new("node")
            .arg("bench.mjs")
            .arg(&module)
            .args(&files),
    )
}

/// Builds `xtask/wasm-bench` for wasm32 with simd128; returns the module.
pub fn build_module(root: &Path) -> Result<PathBuf> {
    let target_dir = target_dir(root)?.join("wasm-bench");
    step(
        "wasm bench build (+simd128)",
        &root.join("xtask/wasm-bench"),
        cargo()
            .args([
                "build",
                "--release",
                "--target",
                wasm::TARGET,
                "--target-dir",
            ])
            .arg(&target_dir)
            .env("RUSTFLAGS", "-C target-feature=+simd128"),
    )?;
    Ok(target_dir
        .join(wasm::TARGET)
        .join("release/retrace_wasm_bench.wasm"))
}

/// A session of `mb` MB from one of the shared generators (seed 1), made
/// once as `<prefix>-<mb>mb.jsonl` in `dir`.
pub fn ensure_generated(
    root: &Path,
    dir: &Path,
    tool: &str,
    prefix: &str,
    mb: u32,
) -> Result<PathBuf> {
    let name = format!("{prefix}-{mb}mb.jsonl");
    let path = dir.join(&name);
    if path.exists() {
        return Ok(path);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let tmp = path.with_extension("tmp");
    step(
        &format!("generate {name}"),
        root,
        Command::new("python3")
            .arg(root.join("../shared/tools").join(tool))
            .args(["--mb", &mb.to_string(), "--seed", "1", "--out"])
            .arg(&tmp),
    )?;
    std::fs::rename(&tmp, &path).with_context(|| format!("renaming {}", tmp.display()))?;
    Ok(path)
}
