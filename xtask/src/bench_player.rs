//! `cargo xtask bench-player [FILE…]`: `<retrace-player>`'s figures in
//! headless Chromium (`tests/e2e/bench-player.mjs`): what a page loads for
//! it (gzipped, against its budget), the time to a first frame, and the
//! renderer's memory with 1, 2 and 4 players and after a dispose().
//! Without files it uses (and if needed generates) a 10 MB pi session and
//! a 10 MB Claude Code one in `target/bench`.

use std::path::PathBuf;
use std::process::Command;

use anyhow::Result;

use crate::bench_wasm::ensure_generated;
use crate::cmd::step;
use crate::{player, root, tools};

pub fn run(args: &[String]) -> Result<()> {
    let root = root();
    let dist = player::build(&root)?;
    let chromium = tools::ensure_chromium()?;
    let files: Vec<PathBuf> = if args.is_empty() {
        let bench = root.join("target/bench");
        vec![
            ensure_generated(&root, &bench, "gen_session.py", "pi", 10)?,
            ensure_generated(&root, &bench, "gen_claude.py", "claude", 10)?,
        ]
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    step(
        "node bench-player.mjs (headless Chromium)",
        &tools::e2e_dir(&root),
        Command::new("node")
            .arg("bench-player.mjs")
            .args(&files)
            .env("RETRACE_PLAYER", &dist)
            .env("CHROMIUM", &chromium),
    )?;
    player::check_budget(&dist)?;
    Ok(())
}
