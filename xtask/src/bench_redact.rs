//! `cargo xtask bench-redact [--mb N] [--seeds 1,2,3]`: redaction quality
//! and speed in one run. For each seed it generates an evaluation corpus
//! with `../shared/tools/redact_corpus.py` (kept in `target/redact-bench`),
//! extends it with the repository's `xtask/redact_shapes.py` (personal data
//! as JSON numbers, secrets as keys, SVG path data beside addresses: issue
//! 21's shapes, with their truth, appended),
//! redacts it with the release `retrace redact` (native, best of 5 wall
//! times) and with the core as wasm in Node (best of 3, reads and writes
//! included), checks the two outputs are the same bytes, scores the output
//! with `redact_score.py` and prints recall, decoys, clean lines altered
//! and MB/s against the targets.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::Value;

use crate::cmd::{output, release_retrace, step};
use crate::{root, wasm};

/// The targets from the redaction issue.
const SECRET_RECALL: f64 = 0.99;
const PII_RECALL: f64 = 0.95;
const CLEAN_ALTERED: f64 = 0.005;
const NATIVE_MBPS: f64 = 200.0;
const WASM_MBPS: f64 = 100.0;

pub fn run(args: &[String]) -> Result<()> {
    let mut mb = 50.0;
    let mut seeds = vec![1u64, 2, 3];
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--mb" => mb = it.next().context("--mb needs a number")?.parse()?,
            "--seeds" => {
                seeds = it
                    .next()
                    .context("--seeds needs a list like 1,2,3")?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            other => {
                bail!("bench-redact: unknown argument `{other}` (takes --mb N, --seeds 1,2,3)")
            }
        }
    }
    let root = root();
    let retrace = release_retrace(&root)?;
    wasm::ensure_target()?;
    let module = crate::bench_wasm::build_module(&root)?;
    let dir = root.join("target/redact-bench");
    std::fs::create_dir_all(&dir)?;
    let tools = root.join("../shared/tools");
    let mut rows = Vec::new();
    for &seed in &seeds {
        let name = format!("c{mb}-s{seed}");
        let (corpus, truth) = planted(&root, mb, seed)?;
        let bytes = std::fs::metadata(&corpus)?.len() as f64;
        let native_out = dir.join(format!("{name}.native.jsonl"));
        let mut native_best = f64::MAX;
        let mut native_cpu = f64::MAX;
        for _ in 0..5 {
            let cpu0 = children_cpu();
            let t = Instant::now();
            let status = Command::new(&retrace)
                .arg("redact")
                .arg(&corpus)
                .arg("-o")
                .arg(&native_out)
                .args(["--mode", "typed"])
                .stderr(std::process::Stdio::null())
                .status()?;
            native_best = native_best.min(t.elapsed().as_secs_f64());
            if let (Some(a), Some(b)) = (cpu0, children_cpu()) {
                native_cpu = native_cpu.min(b - a);
            }
            if !status.success() && status.code() != Some(1) {
                bail!("retrace redact failed on {} ({status})", corpus.display());
            }
        }
        let wasm_out = dir.join(format!("{name}.wasm.jsonl"));
        let node = output(
            Command::new("node")
                .current_dir(root.join("xtask/wasm-bench"))
                .arg("bench_redact.mjs")
                .arg(&module)
                .arg(&corpus)
                .arg(&wasm_out)
                .arg("1"),
        )?;
        let w: Value = serde_json::from_str(node.trim()).context("bench_redact.mjs output")?;
        let same = std::fs::read(&native_out)? == std::fs::read(&wasm_out)?;
        let report = dir.join(format!("{name}.score.json"));
        let scored = Command::new("python3")
            .arg(tools.join("redact_score.py"))
            .arg("--truth")
            .arg(&truth)
            .arg("--redacted")
            .arg(&native_out)
            .arg("--original")
            .arg(&corpus)
            .arg("--json")
            .arg(&report)
            .stdout(std::process::Stdio::null())
            .status()?;
        if scored.code() == Some(2) {
            bail!(
                "redact_score.py: the output of {} is not valid JSONL",
                corpus.display()
            );
        }
        let s: Value = serde_json::from_slice(&std::fs::read(&report)?)?;
        let mut row = Row::new(seed, bytes, native_best, &w, same, &s)?;
        row.native_cpu_mbps = bytes / native_cpu / 1e6;
        rows.push(row);
        rows.last().map(Row::print);
        print_shapes(&s);
    }
    println!();
    println!(
        "targets: secret recall (strict) >= {:.0} %, PII recall >= {:.0} %, 0 hard decoys altered, \
         clean lines altered <= {:.1} %, valid JSONL with the same line count, native >= {NATIVE_MBPS} MB/s, \
         wasm >= {WASM_MBPS} MB/s",
        SECRET_RECALL * 100.0,
        PII_RECALL * 100.0,
        CLEAN_ALTERED * 100.0
    );
    let failed: Vec<String> = rows.iter().flat_map(Row::misses).collect();
    if failed.is_empty() {
        println!("==> bench-redact: every seed meets every target");
        Ok(())
    } else {
        for f in &failed {
            println!("    MISSED {f}");
        }
        bail!("{} target(s) missed", failed.len())
    }
}

/// The planted corpus of `seed` (`redact_corpus.py`, then the shapes of
/// `redact_shapes.py`), generated once into `target/redact-bench`: the
/// corpus and its truth.
pub fn planted(root: &Path, mb: f64, seed: u64) -> Result<(PathBuf, PathBuf)> {
    let dir = root.join("target/redact-bench");
    std::fs::create_dir_all(&dir)?;
    let tools = root.join("../shared/tools");
    let name = format!("c{mb}-s{seed}");
    let corpus = dir.join(format!("{name}.jsonl"));
    let truth = dir.join(format!("{name}.truth.json"));
    if !corpus.exists() || !truth.exists() {
        step(
            &format!("generate {name}"),
            root,
            Command::new("python3")
                .arg(tools.join("redact_corpus.py"))
                .args([
                    "--mb",
                    &mb.to_string(),
                    "--seed",
                    &seed.to_string(),
                    "--out",
                ])
                .arg(&corpus),
        )?;
    }
    // The shapes the shared generator has no slot for, appended with
    // their truth; scored with the rest, so every figure covers them.
    let base = (corpus, truth);
    let corpus = dir.join(format!("{name}-x.jsonl"));
    let truth = dir.join(format!("{name}-x.truth.json"));
    step(
        &format!("extend {name}"),
        root,
        Command::new("python3")
            .env("REDACT_CORPUS_TOOLS", &tools)
            .arg(root.join("xtask/redact_shapes.py"))
            .arg("--corpus")
            .arg(&base.0)
            .arg("--truth")
            .arg(&base.1)
            .arg("--out")
            .arg(&corpus)
            .args(["--seed", &seed.to_string()]),
    )?;
    Ok((corpus, truth))
}

/// The figures of the shapes `redact_shapes.py` adds (kinds named
/// `kind/shape`, its decoy kinds), summed per shape.
fn print_shapes(s: &Value) {
    let mut shapes: std::collections::BTreeMap<&str, (f64, f64)> = Default::default();
    if let Some(kinds) = s["recall_by_kind"].as_object() {
        for (name, v) in kinds {
            if let Some((_, shape)) = name.split_once('/') {
                let planted = v["planted"].as_f64().unwrap_or(0.0);
                let e = shapes.entry(shape).or_default();
                e.0 += planted;
                e.1 += planted * v["recall"].as_f64().unwrap_or(0.0);
            }
        }
    }
    let mut parts: Vec<String> = shapes
        .iter()
        .map(|(shape, (planted, gone))| {
            format!(
                "{shape} recall {:.2} % of {planted}",
                gone / planted.max(1.0) * 100.0
            )
        })
        .collect();
    for decoy in ["number-figure", "svg-path-data"] {
        let d = &s["decoys"]["by_kind"][format!("hard:{decoy}")];
        parts.push(format!(
            "{decoy} altered {}/{}",
            d["altered"].as_u64().unwrap_or(0),
            d["total"].as_u64().unwrap_or(0)
        ));
    }
    println!("    issue 21 shapes: {}", parts.join(" | "));
}

/// CPU seconds (user + system) of the children this process waited for,
/// from `/proc/self/stat` (Linux); `None` elsewhere.
fn children_cpu() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // After the command name: state is field 3, cutime 16, cstime 17.
    let ticks: f64 = fields.get(13)?.parse::<f64>().ok()? + fields.get(14)?.parse::<f64>().ok()?;
    let hz = output(Command::new("getconf").arg("CLK_TCK"))
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .unwrap_or(100.0);
    Some(ticks / hz)
}

struct Row {
    seed: u64,
    mb: f64,
    secret: f64,
    secret_strict: f64,
    pii: f64,
    optional: f64,
    hard: (u64, u64),
    soft: (u64, u64),
    clean: (u64, u64),
    valid: bool,
    native_mbps: f64,
    /// Bytes per second of CPU time (all threads): what one core does,
    /// whatever else the machine is running.
    native_cpu_mbps: f64,
    wasm_mbps: f64,
    wasm_in_mbps: f64,
    wasm_memory_mib: f64,
    same: bool,
    collateral: f64,
}

impl Row {
    fn new(seed: u64, bytes: f64, native: f64, w: &Value, same: bool, s: &Value) -> Result<Row> {
        let tier = |t: &str, f: &str| s["recall_by_tier"][t][f].as_f64().unwrap_or(0.0);
        let n = |v: &Value| v.as_u64().unwrap_or(0);
        let v = &s["validity"];
        Ok(Row {
            seed,
            mb: bytes / 1e6,
            secret: tier("secret", "recall"),
            secret_strict: tier("secret", "strict"),
            pii: tier("pii", "recall"),
            optional: tier("optional", "recall"),
            hard: (
                n(&s["decoys"]["hard_altered"]),
                n(&s["decoys"]["hard_total"]),
            ),
            soft: (
                n(&s["decoys"]["soft_altered"]),
                n(&s["decoys"]["soft_total"]),
            ),
            clean: (n(&v["clean_lines_altered"]), n(&v["clean_lines"])),
            valid: v["valid_jsonl"].as_bool() == Some(true)
                && n(&v["structure_changed_lines"]) == 0,
            native_mbps: bytes / native / 1e6,
            native_cpu_mbps: 0.0,
            wasm_mbps: bytes / w["total"].as_f64().context("wasm total")? / 1e6,
            wasm_in_mbps: bytes / w["inWasm"].as_f64().context("wasm time")? / 1e6,
            wasm_memory_mib: w["memory"].as_f64().unwrap_or(0.0) / (1 << 20) as f64,
            same,
            collateral: s["collateral"]["lost_share"].as_f64().unwrap_or(0.0),
        })
    }

    fn print(&self) {
        println!(
            "seed {}: {:.1} MB | secret recall {:.2} % (strict {:.2} %) | PII {:.2} % | optional {:.2} % | \
             hard decoys altered {}/{} | soft {}/{} | clean lines altered {}/{} ({:.3} %) | collateral {:.2} % | \
             valid JSONL {} | native {:.0} MB/s ({:.0} MB/s per CPU second) | wasm {:.0} MB/s \
             ({:.0} MB/s in wasm, memory {:.0} MiB) | wasm output {} native",
            self.seed,
            self.mb,
            self.secret * 100.0,
            self.secret_strict * 100.0,
            self.pii * 100.0,
            self.optional * 100.0,
            self.hard.0,
            self.hard.1,
            self.soft.0,
            self.soft.1,
            self.clean.0,
            self.clean.1,
            self.clean_share() * 100.0,
            self.collateral * 100.0,
            if self.valid { "yes" } else { "NO" },
            self.native_mbps,
            self.native_cpu_mbps,
            self.wasm_mbps,
            self.wasm_in_mbps,
            self.wasm_memory_mib,
            if self.same { "==" } else { "DIFFERS FROM" },
        );
    }

    fn clean_share(&self) -> f64 {
        self.clean.0 as f64 / self.clean.1.max(1) as f64
    }

    fn misses(&self) -> Vec<String> {
        let mut m = Vec::new();
        let seed = self.seed;
        if self.secret_strict < SECRET_RECALL {
            m.push(format!(
                "seed {seed}: secret recall (strict) {:.2} %",
                self.secret_strict * 100.0
            ));
        }
        if self.pii < PII_RECALL {
            m.push(format!("seed {seed}: PII recall {:.2} %", self.pii * 100.0));
        }
        if self.hard.0 > 0 {
            m.push(format!("seed {seed}: {} hard decoys altered", self.hard.0));
        }
        if self.clean_share() > CLEAN_ALTERED {
            m.push(format!(
                "seed {seed}: clean lines altered {:.3} %",
                self.clean_share() * 100.0
            ));
        }
        if !self.valid {
            m.push(format!(
                "seed {seed}: output not valid JSONL with the same structure"
            ));
        }
        if !self.same {
            m.push(format!("seed {seed}: wasm output differs from native"));
        }
        if self.native_mbps < NATIVE_MBPS {
            m.push(format!("seed {seed}: native {:.0} MB/s", self.native_mbps));
        }
        if self.wasm_mbps < WASM_MBPS {
            m.push(format!("seed {seed}: wasm {:.0} MB/s", self.wasm_mbps));
        }
        m
    }
}
