//! `cargo xtask test`: everything CI checks, in the order that fails fastest.

use anyhow::Result;

use crate::cmd::{built_binary, cargo, step};
use crate::{deps, export_page, layers, package, player, root, tools, wasm, web};

pub fn run(args: &[String]) -> Result<()> {
    if let Some(extra) = args.first() {
        anyhow::bail!("`test` takes no arguments (got `{extra}`)");
    }
    let root = root();
    step(
        "cargo fmt --check",
        &root,
        cargo().args(["fmt", "--all", "--", "--check"]),
    )?;
    println!("==> module layers of retrace-core and retrace-wasm (cargo xtask layers)");
    layers::run(&[])?;
    deps::check(&root)?;
    // The viewer first: the CLI is built with it inside (export --html),
    // and its tests that need it run.
    wasm::ensure_target()?;
    let dist = web::build(&root, true)?;
    let size = web::bundle_size(&dist)?;
    size.print();
    if size.gzipped() > web::BUNDLE_BUDGET {
        anyhow::bail!(
            "the viewer's bundle is {} B gzipped, over its {} B budget",
            size.gzipped(),
            web::BUNDLE_BUDGET
        );
    }
    step(
        "cargo clippy",
        &root,
        cargo()
            .args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ])
            .env(export_page::VIEWER_VAR, &dist),
    )?;
    // One Postgres server for every test binary of the run (each test
    // works in a schema of its own), stopped when the tests end, failed
    // or not.
    tools::ensure_postgres()?;
    let server = retrace_test_postgres::Server::start()
        .map_err(|e| anyhow::anyhow!("the tests' Postgres server: {e}"))?;
    println!(
        "==> a throwaway Postgres server started in {:.2} s (target ≤ 2 s), at {}",
        server.started_in().as_secs_f64(),
        server.dir().display()
    );
    let tested = step(
        "cargo test",
        &root,
        cargo()
            .args(["test", "--workspace"])
            .env(retrace_test_postgres::URL_VAR, server.url())
            .env(export_page::VIEWER_VAR, &dist),
    );
    drop(server);
    tested?;
    // The engine's tests again without its optional request kinds (the
    // player's build): each is refused with `unsupported`.
    step(
        "retrace-wasm tests without its optional request kinds",
        &root,
        cargo().args(["test", "-p", "retrace-wasm", "--no-default-features"]),
    )?;
    // The engine as the npm package builds it (the `api` kinds, and `ts`:
    // the TypeScript declarations are the Rust types'), which the run
    // above (the viewer's features) leaves out: linted, and the tests
    // that need it.
    step(
        "cargo clippy -p retrace-wasm --features ts",
        &root,
        cargo().args([
            "clippy",
            "-p",
            "retrace-wasm",
            "--all-targets",
            "--features",
            "ts",
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    step(
        "cargo test -p retrace-wasm --features ts (tree, context, migrate; the .d.ts up to date)",
        &root,
        cargo().args([
            "test",
            "-p",
            "retrace-wasm",
            "--features",
            "ts",
            "--lib",
            "--test",
            "api",
            "--test",
            "mapping",
            "--test",
            "types",
        ]),
    )?;
    wasm::ensure_target()?;
    step(
        "wasm32 build of retrace-core",
        &root,
        cargo().args([
            "build",
            "-p",
            "retrace-core",
            "--release",
            "--target",
            wasm::TARGET,
        ]),
    )?;
    step(
        "clippy for wasm32",
        &root,
        cargo().args([
            "clippy",
            "-p",
            "retrace-core",
            "--target",
            wasm::TARGET,
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    // The engine alone (no transport: no wasm-bindgen at all, so the engine
    // cannot reach for the browser), then with every transport.
    step(
        "wasm32 build of retrace-wasm's engine",
        &root,
        cargo().args([
            "build",
            "-p",
            "retrace-wasm",
            "--release",
            "--target",
            wasm::TARGET,
        ]),
    )?;
    step(
        "clippy for wasm32: retrace-wasm, every transport and the api kinds",
        &root,
        cargo().args([
            "clippy",
            "-p",
            "retrace-wasm",
            // Not `ts`: the declarations' derives are native only.
            "--features",
            "worker,client,direct,api",
            "--target",
            wasm::TARGET,
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    step(
        "clippy for wasm32: retrace-wasm as the player builds it",
        &root,
        cargo().args([
            "clippy",
            "-p",
            "retrace-wasm",
            "--no-default-features",
            "--features",
            "direct",
            "--target",
            wasm::TARGET,
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    wasm::check_no_imports(&root)?;
    // The npm package: the engine with the api kinds, which
    // `engine.test.mjs`, `package.test.mjs` and `tests/package` load, and
    // its `player/` folder, which `player.test.mjs` and `embed.test.mjs`
    // load (a dashboard of players from the built package).
    let package = package::build(&root)?;
    let player = package.join("player");
    player::check_budget(&player)?;
    let chromium = tools::ensure_chromium()?;
    // Built by `cargo test` above, wherever the target dir is; the viewer's
    // redacted downloads must equal its output.
    let retrace = built_binary(&root, "debug", "retrace")?;
    step(
        "viewer end-to-end tests (headless Chromium)",
        &tools::e2e_dir(&root),
        std::process::Command::new("node")
            .args(["--test", "--test-concurrency=1"])
            .env("RETRACE_DIST", &dist)
            .env("RETRACE_ENGINE", &package)
            .env("RETRACE_PACKAGE", &package)
            .env("RETRACE_PLAYER", &player)
            .env("CHROMIUM", &chromium)
            .env("RETRACE_BIN", &retrace),
    )?;
    tools::ensure_package_npm(&root)?;
    step(
        "package tests: the Node API as the CLI answers, npm pack, tsc over a typed example",
        &tools::package_tests_dir(&root),
        std::process::Command::new("node")
            .args(["--test", "--test-concurrency=1"])
            .env("RETRACE_PACKAGE", &package)
            .env("RETRACE_CORPUS", root.join("../shared/corpus"))
            .env("RETRACE_BIN", &retrace),
    )?;
    tools::ensure_clients_npm(&root)?;
    step(
        "client tests: pi's, Claude Code's and Gemini CLI's own loaders open what retrace writes",
        &tools::clients_dir(&root),
        // Two agents' files at a time: each has its own scratch folders
        // and ports, and an agent's start is mostly one core parsing.
        std::process::Command::new("node")
            .args(["--test", "--test-concurrency=2"])
            .env("RETRACE_BIN", &retrace),
    )?;
    println!("==> all checks passed");
    Ok(())
}
