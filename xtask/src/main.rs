//! Project automation: `cargo xtask <command>`.
//!
//! - `test`: every check CI runs (format, lints, tests, the wasm32 build of
//!   the core and its import check), installing what it needs first.
//! - `bench-wasm`: the core's open speed and memory as wasm inside Node.
//! - `bench-redact`: redaction quality (scored) and speed, native and wasm.

mod bench_redact;
mod bench_wasm;
mod cmd;
mod test;
mod wasm;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test::run(&args[1..]),
        Some("bench-wasm") => bench_wasm::run(&args[1..]),
        Some("bench-redact") => bench_redact::run(&args[1..]),
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
  test        fmt check, clippy, all tests, wasm32 build of retrace-core
              and its no-host-imports check (what CI runs)
  bench-wasm  [FILE…] open speed and memory of the core as wasm in Node
  bench-redact [--mb N] [--seeds 1,2,3]
              redaction quality (redact_score.py) and MB/s, native and
              as wasm in Node, on generated corpora (target/redact-bench)
";

/// The workspace root (the parent of this crate).
fn root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}
