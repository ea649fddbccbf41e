//! Checkpoint figures on a generated workspace of about 3,000 files and
//! 40 MB (seeded, so every run sees the same tree): first checkpoint,
//! no-op, one changed file, restore of a file, diff, a file's history, and
//! the shadow repository's growth per changed byte. Targets (issue 16):
//! ≤ 2 s, ≤ 50 ms, ≤ 100 ms, ≤ 20 ms each for the last three reads, growth
//! ≤ 1.1×.
//!
//! `cargo bench -p retrace-store --bench checkpoints`

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::Utc;
use retrace_store::{CheckpointOptions, Checkpoints, SessionId};

/// xorshift64*: a seeded generator, enough for file sizes and contents.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len + 8);
        while out.len() < len {
            out.extend_from_slice(&self.next().to_le_bytes());
        }
        out.truncate(len);
        out
    }
    /// Source-like text: words from a small vocabulary, in lines.
    fn text(&mut self, len: usize) -> Vec<u8> {
        const WORDS: [&str; 24] = [
            "fn", "let", "mut", "self", "return", "match", "Some", "None", "impl", "struct", "pub",
            "use", "value", "index", "path", "error", "String", "Vec", "for", "in", "if", "else",
            "=>", "{}",
        ];
        let mut out = Vec::with_capacity(len + 16);
        while out.len() < len {
            let n = self.below(WORDS.len() as u64) as usize;
            out.extend_from_slice(WORDS[n].as_bytes());
            out.push(if self.below(9) == 0 { b'\n' } else { b' ' });
        }
        out.truncate(len);
        out
    }
}

/// Writes the workspace: 120 folders (some nested), 2,700 text files of
/// 1–12 KB and 300 larger ones of 40–120 KB, a third of them binary.
fn generate(root: &Path, rng: &mut Rng) -> (Vec<PathBuf>, u64) {
    let mut dirs = vec![PathBuf::new()];
    for i in 0..120 {
        let parent = dirs[rng.below(dirs.len() as u64) as usize].clone();
        dirs.push(parent.join(format!("dir{i}")));
    }
    let mut files = Vec::new();
    let mut total = 0;
    for i in 0..3000 {
        let dir = &dirs[rng.below(dirs.len() as u64) as usize];
        let (name, content) = if i < 2700 {
            let len = 1024 + rng.below(11 * 1024) as usize;
            (format!("file{i}.rs"), rng.text(len))
        } else if i % 3 == 0 {
            let len = 40 * 1024 + rng.below(80 * 1024) as usize;
            (format!("blob{i}.bin"), rng.bytes(len))
        } else {
            let len = 40 * 1024 + rng.below(80 * 1024) as usize;
            (format!("data{i}.txt"), rng.text(len))
        };
        let path = dir.join(name);
        fs::create_dir_all(root.join(dir)).unwrap();
        fs::write(root.join(&path), &content).unwrap();
        total += content.len() as u64;
        files.push(path);
    }
    (files, total)
}

fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        total += if meta.is_dir() {
            dir_size(&entry.path())
        } else {
            meta.len()
        };
    }
    total
}

/// This thread's CPU time (user + system), where Linux says it: on a
/// shared machine the wall time also counts waiting for a core.
fn cpu_ms() -> Option<f64> {
    let stat = fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks * 10.0) // USER_HZ is 100 on Linux
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Median and worst of `runs` timings of `f`.
fn time<T>(runs: usize, mut f: impl FnMut(usize) -> T) -> (f64, f64) {
    let mut times: Vec<f64> = (0..runs)
        .map(|i| {
            let start = Instant::now();
            std::hint::black_box(f(i));
            ms(start.elapsed())
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[runs / 2], times[runs - 1])
}

fn row(what: &str, target: &str, (median, worst): (f64, f64)) {
    println!("{what:<34} median {median:>8.1} ms   worst {worst:>8.1} ms   target {target}");
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("workspace");
    let git_dir = tmp.path().join("store").join("checkpoints.git");
    fs::create_dir(&ws).unwrap();
    let mut rng = Rng(0x5eed_2026_1127);
    let (cpu_gen, start) = (cpu_ms(), Instant::now());
    let (files, total) = generate(&ws, &mut rng);
    let gen_cpu = match (cpu_gen, cpu_ms()) {
        (Some(a), Some(b)) => format!(", cpu {:.0} ms", b - a),
        _ => String::new(),
    };
    println!(
        "workspace: {} files, {:.1} MB, libgit2 {:?}; writing it took {:.0} ms{gen_cpu}",
        files.len(),
        total as f64 / 1e6,
        git2::Version::get().libgit2_version(),
        ms(start.elapsed()),
    );
    let session = SessionId::parse("bench").unwrap();

    let cpu_before = cpu_ms();
    let start = Instant::now();
    let mut cp = Checkpoints::open(&ws, &git_dir, &session, CheckpointOptions::default()).unwrap();
    let first = cp
        .checkpoint("write", Some(0), Utc::now())
        .unwrap()
        .unwrap();
    let first_ms = ms(start.elapsed());
    let cpu = match (cpu_before, cpu_ms()) {
        (Some(a), Some(b)) => format!("cpu {:>8.1} ms", b - a),
        _ => String::new(),
    };
    println!(
        "{:<34} wall   {first_ms:>8.1} ms   {cpu:<17}   target ≤ 2000 ms ({} files)",
        "first checkpoint (open + commit)",
        first.files.len()
    );

    row(
        "no-op checkpoint",
        "≤ 50 ms",
        time(15, |_| {
            assert!(cp.checkpoint("read", None, Utc::now()).unwrap().is_none());
        }),
    );

    // One small text file edited per checkpoint.
    let edited: Vec<&PathBuf> = files.iter().take(2700).step_by(97).take(15).collect();
    row(
        "one changed file",
        "≤ 100 ms",
        time(15, |i| {
            let path = ws.join(edited[i]);
            let mut content = fs::read(&path).unwrap();
            content.extend_from_slice(b"\n// edited\n");
            fs::write(&path, content).unwrap();
            assert!(cp.checkpoint("edit", None, Utc::now()).unwrap().is_some());
        }),
    );

    let file = edited[0].to_string_lossy().into_owned();
    // Back and forth between two versions of the file, so each restore
    // writes it (and checkpoints the state before and after).
    let latest = cp.list().unwrap()[0].tag.clone();
    row(
        "restore of a file (+ undo point)",
        "≤ 20 ms",
        time(10, |i| {
            let to = if i % 2 == 0 { &first.tag } else { &latest };
            let r = cp.restore(to, Some(&file)).unwrap();
            assert_eq!(r.changes.len(), 1);
        }),
    );

    let last = cp.list().unwrap()[0].tag.clone();
    row(
        "diff first..last",
        "≤ 20 ms",
        time(15, |_| cp.diff(&first.tag, &last).unwrap()),
    );
    row(
        "diff_patch first..last",
        "—",
        time(15, |_| cp.diff_patch(&first.tag, &last).unwrap()),
    );
    let n = cp.list().unwrap().len();
    row(
        &format!("file history ({n} checkpoints)"),
        "≤ 20 ms",
        time(15, |_| cp.list_file_changes(&file).unwrap()),
    );
    row(
        &format!("list ({n} checkpoints)"),
        "—",
        time(15, |_| cp.list().unwrap()),
    );

    // Growth: larger files rewritten with new content, one checkpoint
    // each; changed bytes = the new content's size.
    for (label, binary) in [("binary", true), ("text", false)] {
        let before = dir_size(&git_dir);
        let mut changed = 0u64;
        let targets: Vec<&PathBuf> = files[2700..]
            .iter()
            .filter(|p| p.to_string_lossy().ends_with(".bin") == binary)
            .take(20)
            .collect();
        for path in targets {
            let len = fs::metadata(ws.join(path)).unwrap().len() as usize;
            let content = if binary {
                rng.bytes(len)
            } else {
                rng.text(len)
            };
            fs::write(ws.join(path), &content).unwrap();
            changed += len as u64;
            cp.checkpoint("rewrite", None, Utc::now()).unwrap().unwrap();
        }
        let grown = dir_size(&git_dir) - before;
        println!(
            "disk growth, 20 {label} files     {:>8.2} MB for {:.2} MB changed = {:.2}×   target ≤ 1.1×",
            grown as f64 / 1e6,
            changed as f64 / 1e6,
            grown as f64 / changed as f64
        );
    }
    println!(
        "shadow repository: {:.1} MB for a {:.1} MB workspace",
        dir_size(&git_dir) as f64 / 1e6,
        total as f64 / 1e6
    );
}
