//! Project automation: `cargo xtask <command>`.
//!
//! - `test`: every check CI runs (format, the core's module layering,
//!   lints, tests against a throwaway Postgres server, the wasm32 build of
//!   the core and its import check, the viewer's and the player's budgets
//!   and end-to-end tests), installing what it needs first.
//! - `layers`: the core's module graph has no cycle and no upward import.
//! - `deps`: the crate graph keeps git2 and database clients above the core
//!   and retrace-io.
//! - `serve`: builds the viewer and serves it with the demo session.
//! - `dist`: the release viewer in `dist/` for static hosting.
//! - `engine`: retrace-wasm alone, a plain `wasm-bindgen --target web`
//!   build in `dist-engine/`.
//! - `player`: `<retrace-player>` and its iframe embed over a slim build
//!   of retrace-wasm, in `dist-player/`.
//! - `package`: the npm package `retrace-wasm` in `dist-package/`.
//! - `bench-wasm`: the core's open speed and memory as wasm inside Node.
//! - `bench-web`: the viewer's open speed in headless Chromium.
//! - `bench-player`: `<retrace-player>`'s size, first frame and memory in
//!   headless Chromium.
//! - `bench-redact`: redaction quality (scored) and speed, native and wasm.
//! - `bench-serve`: `retrace serve`'s catalog of 10,000 sessions cold and
//!   warm, and a search's latency across them; with `--open FILE`, a
//!   session opened in the served viewer, dropped and served side by side.
//! - `bench-export`: `retrace export` beside pi's HTML export.
//! - `bench-stream`: `migrate`, `show --json` and `cat` of a large event
//!   stream, `validate` of a large pi session and `redact -o` of the
//!   planted corpus in every mode: time, CPU and peak memory against a
//!   base binary.
//! - `bench-peers`: `retrace info` beside ccusage and a naive Node
//!   loader on generated Claude Code and pi sessions, against a base
//!   binary.
//! - `sweep-stream`: those commands' outputs, and `info`, `tree` and
//!   `validate`'s, on every corpus file and fixture (and large generated
//!   files), byte for byte against a base binary.
//! - `fuzz`: every fuzz target in turn, with executions per target.

mod bench_export;
mod bench_peers;
mod bench_player;
mod bench_redact;
mod bench_serve;
mod bench_stream;
mod bench_wasm;
mod bench_web;
mod cmd;
mod deps;
mod engine;
mod export_page;
mod fuzz;
mod layers;
mod player;
mod package;
mod serve;
mod sweep_stream;
mod test;
mod tools;
mod wasm;
mod web;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test::run(&args[1..]),
        Some("layers") => layers::run(&args[1..]),
        Some("deps") => deps::check(&root()),
        Some("serve") => serve::run(&args[1..]),
        Some("dist") => serve::dist(&args[1..]),
        Some("engine") => engine::run(&args[1..]),
        Some("player") => player::run(&args[1..]),
        Some("package") => package::run(&args[1..]),
        Some("bench-wasm") => bench_wasm::run(&args[1..]),
        Some("bench-web") => bench_web::run(&args[1..]),
        Some("bench-player") => bench_player::run(&args[1..]),
        Some("bench-redact") => bench_redact::run(&args[1..]),
        Some("bench-serve") => bench_serve::run(&args[1..]),
        Some("bench-export") => bench_export::run(&args[1..]),
        Some("bench-stream") => bench_stream::run(&args[1..]),
        Some("bench-peers") => bench_peers::run(&args[1..]),
        Some("sweep-stream") => sweep_stream::run(&args[1..]),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("-h" | "--help" | "help") | None => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => {
            eprint!("xtask: unknown command `{other}`\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  serve       [--port N] [--release] build the viewer and serve it on
              http://127.0.0.1:8080, opening on the demo session
  dist        the release viewer in dist/ for any static server
  engine      retrace-wasm alone (the direct Engine class, startWorker, its
              worker script and JS client) as a plain wasm-bindgen --target
              web build in dist-engine/, with its gzipped size
  player      <retrace-player> and its iframe embed (embed.html) over a
              slim build of retrace-wasm, in dist-player/, with what a page
              loads for it, gzipped, against its 350 kB budget
  package     the npm package retrace-wasm in dist-package/ (the engine with
              the api kinds: tree, context, migrate; a browser entry and a
              node one, the TypeScript declarations, the README), each
              file with its gzipped size
  test        fmt check, module layering, the crate graph (no git2 or
              database client below the store), clippy, all tests (with a
              throwaway Postgres server for the run; retrace-wasm's again
              without its optional request kinds), wasm32 build of
              retrace-core and its no-host-imports check, wasm32 builds and
              clippy of retrace-wasm (every feature, and the player's), the
              viewer's bundle budget, the player's budget and the
              end-to-end tests in Chromium (what CI runs)
  layers      [SRC_DIR…] no import cycle at any depth and no upward import
              between modules (declaration order is the layer order), and
              src/ holds lib.rs plus at most 2 files (default: retrace-core
              and retrace-wasm)
  deps        the crate graph: no git2 or database client in retrace-core,
              retrace-io or retrace-wasm, none depends on the store, no
              database client in the store, the engine neither on
              retrace-io nor on leptos
  bench-wasm  [FILE…] open speed and memory of the core as wasm in Node
  bench-web   [FILE…] the viewer in Chromium: first paint, full index,
              main-thread stalls, bundle size
  bench-player [FILE…] <retrace-player> in Chromium: what a page loads
              for it (gzipped), time to a first frame (10 MB pi and
              Claude Code sessions by default), memory per player and
              after dispose()
  bench-redact [--mb N] [--seeds 1,2,3]
              redaction quality (redact_score.py) and MB/s, native and
              as wasm in Node, on generated corpora (target/redact-bench)
  bench-serve [--sessions N]
              retrace serve's catalog of N session files (10,000) cold
              and warm, and a search's latency across them
              (target/serve-bench)
  bench-serve --open FILE [--runs N] [--base RETRACE]
              FILE in the served viewer in Chromium, dropped and served
              side by side (indexed in, first rows; medians), by this
              tree's retrace and another build of it, interleaved
  bench-export [--mb 100,1000] [--runs N]
              retrace export (--html, --html --branches all, --md) beside
              pi --export on generated pi sessions, interleaved: wall time,
              peak memory, output size (target/export-bench)
  bench-stream --base BIN [--new BIN] [--mb 300,1000] [--runs N] [--only stream,validate,redact]
              migrate --to anthropic, show --json and cat of a generated
              event stream, validate of a generated pi session, redact -o
              of the 50 MB planted corpus in every mode; base and new
              binaries alternating: medians of wall time, CPU and peak
              RSS against issue 22's goals (target/stream-bench)
  bench-peers --base BIN [--new BIN] [--runs N]
              retrace info (and tree) beside ccusage 20.0.24 (from npm)
              and a naive Node loader on generated 100 MB Claude Code and
              100/300 MB pi sessions, base binary alongside, interleaved:
              medians, ratios and issue 22's goals (target/peers-bench)
  sweep-stream --base BIN [--new BIN] [--big FILE]…
              migrate --to each API, show --json, cat, redact in every
              mode, info [--json], tree and validate [--json] on every
              corpus file and fixture (the last five also on each --big
              file): stdout, stderr and exit code the same bytes as the
              base binary's
  fuzz        [--seconds N] [--max-len N] [--sanitizer address|none]
              [TARGET…] every fuzz target of fuzz/ in turn (read,
              document, gzip, bodies, migrate, store, redact), N seconds
              each (60), seeded from ../shared/corpus and tests/fixtures;
              executions per target and in total; fails on a crash
";

/// The workspace root (the parent of this crate): from the environment
/// `cargo run` sets, so a binary built by another checkout sharing the
/// target dir still works on this one, else as compiled.
fn root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    manifest
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}
