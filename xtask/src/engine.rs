//! `cargo xtask engine`: retrace-wasm alone as a plain `wasm-bindgen
//! --target web` build (no leptos, no viewer) in `dist-engine/`: the
//! module with its exports (the direct `Engine` class, `startWorker`), its
//! JS glue, and the crate's `js/worker.js` and `js/client.js` beside them.
//! What the npm package wraps, and what `tests/e2e/engine.test.mjs` loads.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use crate::cmd::{cargo, step, target_dir};
use crate::{root, tools, wasm, web};

pub fn run(args: &[String]) -> Result<()> {
    if let Some(extra) = args.first() {
        anyhow::bail!("`engine` takes no arguments (got `{extra}`)");
    }
    let out = build(&root())?;
    let size = web::bundle_size(&out)?;
    for (name, raw, gz) in &size.files {
        println!("    {name}: {raw} B, {gz} B gzipped");
    }
    println!(
        "==> {}: the engine alone, {} B gzipped",
        out.display(),
        size.gzipped()
    );
    Ok(())
}

/// Builds the plain engine into `dist-engine/` and returns that folder.
pub fn build(root: &Path) -> Result<PathBuf> {
    let out = root.join("dist-engine");
    build_into(root, &out, "direct transport", &["--features", "direct"])?;
    copy_scripts(root, &out, &["worker.js", "client.js"])?;
    Ok(out)
}

/// Builds retrace-wasm with cargo's `features` arguments as a plain
/// `wasm-bindgen --target web` module (wasm-opt'd) into a new `out`
/// folder: `retrace_wasm.js` and `retrace_wasm_bg.wasm`.
pub fn build_into(root: &Path, out: &Path, what: &str, features: &[&str]) -> Result<()> {
    tools::ensure_web_build(root)?;
    wasm::ensure_target()?;
    step(
        &format!("wasm32 build of retrace-wasm ({what})"),
        root,
        cargo()
            .args(["build", "-p", "retrace-wasm", "--lib"])
            .args(features)
            .args(["--profile", "wasm-release", "--target", wasm::TARGET]),
    )?;
    let built = target_dir(root)?
        .join(wasm::TARGET)
        .join("wasm-release/retrace_wasm.wasm");
    if out.exists() {
        std::fs::remove_dir_all(out).with_context(|| format!("clearing {}", out.display()))?;
    }
    step(
        "wasm-bindgen --target web",
        root,
        Command::new("wasm-bindgen")
            .args(["--target", "web", "--no-typescript", "--out-dir"])
            .arg(out)
            .arg(&built)
            .env("PATH", tools::path(root)),
    )?;
    let module = out.join("retrace_wasm_bg.wasm");
    step(
        "wasm-opt -Oz --reorder-functions-by-name",
        root,
        // The features it may use come from the module's own
        // `target_features` section. Functions sorted by name put a
        // generic's copies side by side for gzip (the player: 313,542 →
        // 308,694 B gzipped), as the viewer's `index.html` asks too.
        Command::new("wasm-opt")
            .args(["-Oz", "--reorder-functions-by-name"])
            .arg(&module)
            .arg("-o")
            .arg(&module)
            .env("PATH", tools::path(root)),
    )?;
    Ok(())
}

/// Copies files of `crates/retrace-wasm/js/` into `out`.
pub fn copy_scripts(root: &Path, out: &Path, names: &[&str]) -> Result<()> {
    for name in names {
        let from = root.join("crates/retrace-wasm/js").join(name);
        std::fs::copy(&from, out.join(name))
            .with_context(|| format!("copying {}", from.display()))?;
    }
    Ok(())
}
