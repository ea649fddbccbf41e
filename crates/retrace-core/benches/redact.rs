//! In-process redaction speed (no file I/O in the timed part): `cargo bench
//! -p retrace-core --bench redact -- FILE…`. Reads each file into memory,
//! then pushes it through a `Redactor` in 256 KiB chunks, best of 5, and
//! prints MB/s. `cargo xtask bench-redact` generates the corpora and times
//! the CLI and the wasm build end to end.
#![allow(clippy::disallowed_methods)]

use std::sync::Arc;
use std::time::Instant;

use retrace_core::redact::{Mode, Redactor, Rules};

fn main() {
    let files: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if files.is_empty() {
        eprintln!("usage: cargo bench -p retrace-core --bench redact -- FILE…");
        return;
    }
    let rules = Arc::new(Rules::builtin());
    for file in files {
        let bytes = std::fs::read(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
        for mode in [Mode::Mask, Mode::Typed, Mode::Pseudo] {
            let mut best = f64::MAX;
            let mut found = 0;
            let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 8);
            for _ in 0..5 {
                out.clear();
                let t = Instant::now();
                let mut r = Redactor::new(rules.clone(), mode);
                let mut chunk_out = Vec::new();
                for chunk in bytes.chunks(256 << 10) {
                    chunk_out.clear();
                    r.push(chunk, &mut chunk_out);
                    out.extend_from_slice(&chunk_out);
                    found += r.drain_findings().count();
                }
                r.finish(&mut out);
                best = best.min(t.elapsed().as_secs_f64());
            }
            println!(
                "redact[{}] {} {:.1} MB: {:.3} s = {:.0} MB/s ({} findings per run)",
                mode.as_str(),
                file.rsplit('/').next().unwrap_or(&file),
                bytes.len() as f64 / 1e6,
                best,
                bytes.len() as f64 / best / 1e6,
                found / 5
            );
        }
    }
}
