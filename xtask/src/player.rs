//! `cargo xtask player`: `<retrace-player>` and its iframe embed as a
//! folder that works when served as it is (`dist-player/`): a slim build
//! of retrace-wasm (the `direct` transport, none of the request kinds a
//! player never asks: `--no-default-features`), its wasm-bindgen JS, the
//! worker script and client, `player.js` (the element), `embed.html` with
//! its script and style, the element's `player.d.ts` and `PLAYER.md`. What
//! `tests/e2e/player.test.mjs` loads; the npm package takes it as its
//! `player/` folder.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::{engine, root};

/// The gzipped bytes a page loads for a player (the wasm, its JS, the
/// worker script, the client and the element): issue 19's 350 KB, read as
/// decimal kilobytes.
pub const PLAYER_BUDGET: u64 = 350_000;

/// What a page loads for a player, in the folder.
const LOADED: [&str; 5] = [
    "retrace_wasm_bg.wasm",
    "retrace_wasm.js",
    "worker.js",
    "client.js",
    "player.js",
];
/// What the iframe embed loads besides.
const EMBED: [&str; 3] = ["embed.html", "embed.js", "embed.css"];

pub fn run(args: &[String]) -> Result<()> {
    if let Some(extra) = args.first() {
        anyhow::bail!("`player` takes no arguments (got `{extra}`)");
    }
    let out = build(&root())?;
    check_budget(&out)?;
    Ok(())
}

/// Builds the player into `dist-player/` and returns that folder.
pub fn build(root: &Path) -> Result<PathBuf> {
    let out = root.join("dist-player");
    build_into(root, &out)?;
    Ok(out)
}

/// Builds the player into `out` (emptied first): the npm package's
/// `player/` folder is this too.
pub fn build_into(root: &Path, out: &Path) -> Result<()> {
    engine::build_into(
        root,
        out,
        "the player's: direct transport, no optional kinds",
        &["--no-default-features", "--features", "direct"],
    )?;
    engine::copy_scripts(
        root,
        out,
        &[
            "worker.js",
            "client.js",
            "player.js",
            "player.d.ts",
            "embed.html",
            "embed.js",
            "embed.css",
            "PLAYER.md",
        ],
    )?;
    Ok(())
}

/// Raw and gzipped bytes of `name` in `dir`.
fn sizes(dir: &Path, name: &str) -> Result<(u64, u64)> {
    let bytes = std::fs::read(dir.join(name))?;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&bytes)?;
    Ok((bytes.len() as u64, gz.finish()?.len() as u64))
}

/// Prints what a page loads for a player, file by file, and fails when
/// it is over [`PLAYER_BUDGET`].
pub fn check_budget(dir: &Path) -> Result<()> {
    let mut total = 0;
    for name in LOADED {
        let (raw, gz) = sizes(dir, name)?;
        total += gz;
        println!("    {name}: {raw} B, {gz} B gzipped");
    }
    let mut embed = 0;
    for name in EMBED {
        embed += sizes(dir, name)?.1;
    }
    println!(
        "==> {}: the player, {total} B gzipped (budget {PLAYER_BUDGET} B); the embed's page adds {embed} B",
        dir.display()
    );
    if total > PLAYER_BUDGET {
        anyhow::bail!("the player is {total} B gzipped, over its {PLAYER_BUDGET} B budget");
    }
    Ok(())
}
