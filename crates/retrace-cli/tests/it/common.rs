//! What the test modules share: where the inputs are, running the binary,
//! and [`retrace_snapshot!`], which snapshots a run whole (exit code,
//! stdout, stderr), with the machine's paths replaced by placeholders.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The shared corpus beside the repository, as the tests name it.
fn corpus_dir() -> String {
    format!("{}/../../../shared/corpus", env!("CARGO_MANIFEST_DIR"))
}

/// The repository's `tests/fixtures`, as the tests name it.
fn fixtures_dir() -> String {
    format!("{}/../../tests/fixtures", env!("CARGO_MANIFEST_DIR"))
}

/// The shared corpus (`[CORPUS]` in snapshots).
pub fn corpus_root() -> String {
    corpus_dir()
}

/// A file of the shared corpus (`[CORPUS]/…` in snapshots).
pub fn corpus(rel: &str) -> String {
    format!("{}/{rel}", corpus_dir())
}

/// A file under `tests/fixtures` (`[FIXTURES]/…` in snapshots).
pub fn fixture(rel: &str) -> String {
    format!("{}/{rel}", fixtures_dir())
}

/// A fresh scratch directory for one test (`[SCRATCH]/name` in snapshots).
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fresh scratch folder for one test ([`scratch`]) and the files a test
/// puts there, named as the commands take them (`[SCRATCH]/name/…` in
/// snapshots).
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        Scratch(scratch(name))
    }

    /// `name` in the folder (written or not).
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().expect("a UTF-8 path").to_owned()
    }

    /// Writes `bytes` as `name`; its path.
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> String {
        let path = self.path(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// The file at `from` copied as `name` (gzipped when the name ends in
    /// `.gz`); its path.
    pub fn copy(&self, from: &str, name: &str) -> String {
        let bytes = std::fs::read(from).unwrap();
        if !name.ends_with(".gz") {
            return self.write(name, bytes);
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&bytes).unwrap();
        self.write(name, gz.finish().unwrap())
    }
}

/// One run of `retrace`: its arguments and standard input.
pub struct Run {
    args: Vec<String>,
    stdin: Option<Vec<u8>>,
    /// Each stdout line is JSON: pretty-print it in the snapshot.
    pretty: bool,
    cwd: Option<String>,
    /// Environment variables set for the run.
    env: Vec<(String, String)>,
}

/// `retrace ARGS`, with an empty standard input.
pub fn cmd(args: &[&str]) -> Run {
    Run {
        args: args.iter().map(|a| a.to_string()).collect(),
        stdin: None,
        pretty: false,
        cwd: None,
        env: Vec::new(),
    }
}

impl Run {
    /// With these bytes on standard input.
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Run {
        self.stdin = Some(bytes.into());
        self
    }

    /// Stdout is JSON lines: each one pretty-printed in the snapshot.
    pub fn pretty(mut self) -> Run {
        self.pretty = true;
        self
    }

    /// With this environment variable set.
    pub fn env(mut self, key: &str, value: &str) -> Run {
        self.env.push((key.to_owned(), value.to_owned()));
        self
    }

    /// Run in this directory (for relative paths).
    pub fn cwd(mut self, dir: impl Into<String>) -> Run {
        self.cwd = Some(dir.into());
        self
    }

    pub fn output(&self) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_retrace"));
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        let mut child = command
            .args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run retrace");
        let mut stdin = child.stdin.take().unwrap();
        let input = self.stdin.clone().unwrap_or_default();
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output().unwrap();
        // A command that fails before reading (bad arguments) closes its end.
        match writer.join().unwrap() {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            other => other.unwrap(),
        }
        out
    }

    /// The run as a snapshot shows it.
    pub fn render(&self, o: &Output) -> String {
        let mut stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        if self.pretty {
            stdout = stdout.lines().map(|l| indent_json(l) + "\n").collect();
        }
        let code = o.status.code().map_or("none".to_owned(), |c| c.to_string());
        filter(&format!(
            "exit_code: {code}\n----- stdout -----\n{stdout}----- stderr -----\n{}",
            String::from_utf8_lossy(&o.stderr)
        ))
    }
}

/// A JSON line indented for reading, its keys in their order and every
/// value as written.
fn indent_json(line: &str) -> String {
    serde_json::from_str::<serde::de::IgnoredAny>(line).expect("a JSON line");
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    let mut out = String::with_capacity(line.len() * 2);
    let mut depth = 0;
    let (mut in_string, mut escaped) = (false, false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth -= 1;
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// This machine's paths as placeholders, so snapshots hold on any checkout
/// and target directory.
pub fn filter(text: &str) -> String {
    text.replace(&corpus_dir(), "[CORPUS]")
        .replace(&fixtures_dir(), "[FIXTURES]")
        .replace(env!("CARGO_TARGET_TMPDIR"), "[SCRATCH]")
}

/// Runs a [`Run`] and snapshots it whole: exit code, stdout and stderr
/// (inline with `@"…"`, else in `snapshots/`, named after the test or as
/// given). Gives the `Output` back for further checks.
#[macro_export]
macro_rules! retrace_snapshot {
    ($run:expr, @$snapshot:literal) => {{
        let run = $run;
        let output = run.output();
        ::insta::assert_snapshot!(run.render(&output), @$snapshot);
        output
    }};
    ($name:literal, $run:expr) => {{
        let run = $run;
        let output = run.output();
        ::insta::assert_snapshot!($name, run.render(&output));
        output
    }};
    ($run:expr) => {{
        let run = $run;
        let output = run.output();
        ::insta::assert_snapshot!(run.render(&output));
        output
    }};
}

/// `retrace ARGS`, run.
pub fn retrace(args: &[&str]) -> Output {
    cmd(args).output()
}

/// The stdout of a run that must succeed (else its exit code and both
/// streams, to see why).
pub fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    stdout(o)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 output")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn json_lines(o: &Output) -> Vec<serde_json::Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect()
}

pub const PI_V1: &str = "pi/badlogic__pi-mono/session.jsonl";
pub const PI_V3: &str = "pi/twKrash__pi-session-inspector/tests/fixtures/pi/0.85.1/branching.jsonl";
pub const CLAUDE_REWIND: &str = "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-Users-dain-workspace-claude-code-log-sample/937c6e6b-27e7-4edd-86f1-ad28f9731841.jsonl";
pub const PROJECT: &str =
    "claude-code/iansherr__claude-code-log/test/test_data/real_projects/-experiments-worktrees";
pub const CODEX: &str = "codex/AcidicSoil__codex-session-view/.sample_session/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl";
pub const GEMINI_ARCHIVE: &str = "gemini-cli/mischa-thisness__M-Gemini/Archives";
