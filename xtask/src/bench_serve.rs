//! `cargo xtask bench-serve [--sessions N]`: `retrace serve`'s catalog of
//! N session files (10,000 by default) cold (no cache) and warm (the
//! cache of the cold start), and a search's latency across them.
//! `--open FILE [--runs N] [--base RETRACE]` instead: FILE opened in the
//! served viewer in headless Chromium, dropped and served side by side
//! (`tests/e2e/bench-serve-open.mjs`), by this tree's `retrace` and, when
//! given, another build of it (a base), runs interleaved. The
//! files are corpus sessions (pi, Claude Code, Codex, Gemini CLI) copied
//! under a Claude Code-like tree of project folders, each with a line of
//! its own appended, in `target/serve-bench/` (made once per N). Figures
//! are printed, nothing is asserted: it is not part of the tests.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::cmd::{built_binary, cargo, step};
use crate::{export_page, root, web};

/// Corpus sessions the bench copies, in turn.
const SOURCES: &[&str] = &[
    "pi/badlogic__pi-mono/session.jsonl",
    "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-ideas/",
    "codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl",
    "gemini-cli/mischa-thisness__M-Gemini/Archives/session-2025-12-03T04-04-ff205d73.json",
];

/// Sessions per project folder.
const PER_PROJECT: usize = 50;

/// Queries timed: a word most sessions hold, one a few hold, one none.
const QUERIES: &[&str] = &["the", "experiment", "zqxjv-nowhere"];

pub fn run(args: &[String]) -> Result<()> {
    let mut count = 10_000usize;
    let (mut open, mut base, mut runs) = (None, None, 3usize);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--sessions" => count = it.next().context("--sessions needs a number")?.parse()?,
            "--open" => open = Some(PathBuf::from(it.next().context("--open needs a file")?)),
            "--base" => base = Some(PathBuf::from(it.next().context("--base needs a retrace")?)),
            "--runs" => runs = it.next().context("--runs needs a number")?.parse()?,
            other => bail!(
                "bench-serve: unknown argument `{other}` \
                 (takes --sessions N, or --open FILE [--runs N] [--base RETRACE])"
            ),
        }
    }
    let root = root();
    // `serve` needs the viewer inside the binary: the one in dist/ when
    // it is built, else built now.
    let dist = match root.join("dist").join(export_page::NAME).is_file() {
        true => root.join("dist"),
        false => web::build(&root, true)?,
    };
    step(
        "build retrace (release, with the viewer and its serve feature)",
        &root,
        cargo()
            .args(["build", "--release", "-p", "retrace-cli"])
            .env(export_page::VIEWER_VAR, &dist),
    )?;
    let retrace = built_binary(&root, "release", "retrace")?;
    if let Some(file) = open {
        return open_bench(&root, &retrace, base.as_deref(), &file, runs);
    }
    let work = crate::cmd::target_dir(&root)?.join("serve-bench");
    let sessions = work.join(format!("sessions-{count}"));
    if !sessions.join(".complete").is_file() {
        println!(
            "==> writing {count} session files into {}",
            sessions.display()
        );
        generate(&root.join("../shared/corpus"), &sessions, count)?;
    }
    let bytes = folder_size(&sessions)?;
    println!("    {count} files, {:.1} MB", bytes as f64 / 1e6);
    let cache = work.join("cache");
    let _ = std::fs::remove_dir_all(&cache);
    // The page cache warmed by a first walk, so cold means "no catalog
    // cache", not "disk".
    folder_size(&sessions)?;
    let cold = start(&retrace, &sessions, &cache)?;
    println!("==> cold start (no cache): {}", cold.note);
    let url = cold.url.clone();
    let mut searches = Vec::new();
    for q in QUERIES {
        // The first search of a word reads the files; the second, from
        // the page cache, is what a person waits for next.
        let _ = search(&url, q)?;
        let t = Instant::now();
        let answer = search(&url, q)?;
        searches.push((q, t.elapsed(), answer));
    }
    drop(cold);
    let warm = start(&retrace, &sessions, &cache)?;
    println!("==> warm start (the cold start's cache): {}", warm.note);
    drop(warm);
    println!("==> search across {count} sessions (wall time of the request, the server's own)");
    for (q, took, answer) in searches {
        let field = |k: &str| answer.get(k).cloned().unwrap_or_default();
        println!(
            "    {q:>14}: {:>7.1} ms ({} ms in the server), {} hits, {} of {} sessions held its bytes{}",
            took.as_secs_f64() * 1e3,
            field("ms").as_f64().map_or(0.0, |m| m.round()),
            field("hits").as_array().map_or(0, Vec::len),
            field("searched"),
            field("scanned"),
            if field("truncated").as_bool() == Some(true) { " (stopped at the limit)" } else { "" },
        );
    }
    Ok(())
}

/// `bench-serve-open.mjs`: `file` dropped and served, by `retrace` and
/// by `base` when given.
fn open_bench(
    root: &Path,
    retrace: &Path,
    base: Option<&Path>,
    file: &Path,
    runs: usize,
) -> Result<()> {
    let chromium = crate::tools::ensure_chromium()?;
    let mut node = Command::new("node");
    node.arg("bench-serve-open.mjs")
        .arg("--runs")
        .arg(runs.to_string());
    if let Some(base) = base {
        node.arg("--bin").arg(format!("{}=base", base.display()));
    }
    node.arg("--bin")
        .arg(format!("{}=new", retrace.display()))
        .arg(std::path::absolute(file)?)
        .env("CHROMIUM", chromium);
    step(
        "node bench-serve-open.mjs (headless Chromium)",
        &crate::tools::e2e_dir(root),
        &mut node,
    )
}

/// A `retrace serve` started and listening, with what it said of its
/// catalog; killed when dropped.
struct Started {
    child: std::process::Child,
    url: String,
    note: String,
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(retrace: &Path, dir: &Path, cache: &Path) -> Result<Started> {
    let t = Instant::now();
    let mut child = Command::new(retrace)
        .arg("serve")
        .arg(dir)
        .arg("--cache")
        .arg(cache)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting retrace serve")?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut out = Vec::new();
    let mut byte = [0u8; 1];
    while !out.ends_with(b"\n") {
        if stdout.read(&mut byte)? == 0 {
            let mut err = String::new();
            child
                .stderr
                .take()
                .expect("piped")
                .read_to_string(&mut err)?;
            bail!("retrace serve stopped: {err}");
        }
        out.push(byte[0]);
    }
    let listening = t.elapsed();
    let mut err = child.stderr.take().expect("piped");
    let mut note = Vec::new();
    // Its one note came before the URL.
    let mut buf = [0u8; 4096];
    if let Ok(n) = err.read(&mut buf) {
        note.extend_from_slice(&buf[..n]);
    }
    let note = String::from_utf8_lossy(&note)
        .trim()
        .trim_start_matches("retrace: ")
        .to_owned();
    Ok(Started {
        child,
        url: String::from_utf8(out)?.trim().to_owned(),
        note: format!("{note}; listening after {:.2} s", listening.as_secs_f64()),
    })
}

/// `GET /api/search?q=…`, its JSON.
fn search(url: &str, q: &str) -> Result<serde_json::Value> {
    let host = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let mut stream = TcpStream::connect(&host)?;
    stream.set_read_timeout(Some(Duration::from_secs(120)))?;
    write!(
        stream,
        "GET /api/search?q={q} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let at = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .context("an HTTP answer")?;
    Ok(serde_json::from_slice(&raw[at + 4..])?)
}

/// `count` sessions copied from the corpus, `PER_PROJECT` to a project
/// folder, each with a line of its own so no two files are the same.
fn generate(corpus: &Path, dir: &Path, count: usize) -> Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    let sources: Vec<Vec<(String, Vec<u8>)>> = SOURCES
        .iter()
        .map(|s| read_source(&corpus.join(s)))
        .collect::<Result<_>>()?;
    for i in 0..count {
        let project = dir.join(format!("-home-user-project-{:03}", i / PER_PROJECT));
        let files = &sources[i % sources.len()];
        for (k, (name, bytes)) in files.iter().enumerate() {
            // Unique names keep sessions apart (a Codex rollout's id too).
            let name = match k {
                0 => unique(name, i),
                _ => name.clone(),
            };
            let path = project.join(&name);
            std::fs::create_dir_all(path.parent().expect("a folder"))?;
            let mut f = std::fs::File::create(&path)?;
            f.write_all(bytes)?;
            if k == 0 && !name.ends_with(".json") {
                writeln!(f, "{{\"type\":\"bench\",\"n\":{i}}}")?;
            }
        }
    }
    std::fs::write(dir.join(".complete"), b"")?;
    Ok(())
}

/// `name` made unique with `i` (its extension kept).
fn unique(name: &str, i: usize) -> String {
    let (stem, ext) = match name.find('.') {
        Some(at) => name.split_at(at),
        None => (name, ""),
    };
    format!("{stem}-{i:05}{ext}")
}

/// A corpus session's files by name: a file, or the first session of a
/// folder (its `.jsonl` files).
fn read_source(path: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    let read = |p: &PathBuf| std::fs::read(p).with_context(|| format!("reading {}", p.display()));
    if path.is_file() {
        let name = path
            .file_name()
            .expect("a file")
            .to_string_lossy()
            .into_owned();
        return Ok(vec![(name, read(&path.to_path_buf())?)]);
    }
    let mut names: Vec<PathBuf> = std::fs::read_dir(path)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    names.sort();
    let first = names.first().context("a folder with a session")?;
    let name = first
        .file_name()
        .expect("a file")
        .to_string_lossy()
        .into_owned();
    Ok(vec![(name, read(first)?)])
}

fn folder_size(dir: &Path) -> Result<u64> {
    let mut total = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            total += folder_size(&entry.path())?;
        } else if kind.is_file() {
            let mut f = std::fs::File::open(entry.path())?;
            let mut buf = Vec::new();
            f.read_to_end(&mut buf)?;
            total += buf.len() as u64;
        }
    }
    Ok(total)
}
