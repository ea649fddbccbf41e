//! `cargo xtask bench-web [FILE…]`: the viewer in headless Chromium on
//! generated pi sessions: time to first paint and to a full index, how long
//! the page's main thread ever stalled meanwhile, and the bundle size.
//! Without files it uses (and if needed generates) 100 MB and 1 GB sessions
//! in `target/bench`.

use std::path::PathBuf;
use std::process::Command;

use anyhow::Result;

use crate::bench_wasm::ensure_generated;
use crate::cmd::step;
use crate::{root, tools, web};

pub fn run(args: &[String]) -> Result<()> {
    let root = root();
    let dist = web::build(&root, true)?;
    let size = web::bundle_size(&dist)?;
    let chromium = tools::ensure_chromium()?;
    let files: Vec<PathBuf> = if args.is_empty() {
        let bench = root.join("target/bench");
        vec![
            ensure_generated(&root, &bench, "gen_session.py", "pi", 100)?,
            ensure_generated(&root, &bench, "gen_session.py", "pi", 1000)?,
        ]
    } else {
        args.iter().map(PathBuf::from).collect()
    };
    step(
        "node bench.mjs (headless Chromium)",
        &tools::e2e_dir(&root),
        Command::new("node")
            .arg("bench.mjs")
            .args(&files)
            .env("RETRACE_DIST", &dist)
            .env("CHROMIUM", &chromium),
    )?;
    size.print();
    Ok(())
}
