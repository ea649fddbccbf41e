//! `retrace serve`: the command over retrace-serve (whose own tests cover
//! the server): the URL on stdout, the catalog's figures on stderr (a
//! second start with the same `--cache` reads nothing), the home folder
//! from `HOME`, `--bind` warned of, no folder to serve refused. A binary
//! built without the viewer (`RETRACE_VIEWER_DIST` unset at build time)
//! refuses to serve, saying how to build one with it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};

use crate::common::*;

const DIST: Option<&str> = option_env!("RETRACE_VIEWER_DIST");

fn viewer_built() -> bool {
    DIST.is_some_and(|d| !d.is_empty())
}

/// A running `retrace serve ARGS` with `HOME` at `home`, killed when
/// dropped.
struct Serving {
    child: Child,
    url: String,
    stderr: BufReader<std::process::ChildStderr>,
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serving {
    fn start(home: &str, args: &[&str]) -> Serving {
        let mut child = Command::new(env!("CARGO_BIN_EXE_retrace"))
            .arg("serve")
            .args(args)
            .env("HOME", home)
            .env_remove("XDG_CACHE_HOME")
            .env_remove("RETRACE_STORE")
            .current_dir(home)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run retrace serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let stderr = BufReader::new(child.stderr.take().unwrap());
        Serving {
            child,
            url: line.trim().to_owned(),
            stderr,
        }
    }

    fn note(&mut self) -> String {
        let mut line = String::new();
        self.stderr.read_line(&mut line).unwrap();
        line
    }

    /// The body of `GET path`.
    fn get(&self, path: &str) -> String {
        let host = self.url.trim_start_matches("http://").trim_end_matches('/');
        let mut stream = TcpStream::connect(host).unwrap();
        write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).unwrap();
        assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
        raw.split_once("\r\n\r\n").unwrap().1.to_owned()
    }
}

#[test]
fn serves_the_agents_folders_under_home_with_a_cache() {
    if !viewer_built() {
        let home = Scratch::new("serve-no-viewer");
        let o = cmd(&["serve", &home.path("")]).output();
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("built without the viewer") && err.contains("RETRACE_VIEWER_DIST"),
            "{err}"
        );
        println!(
            "serve: skipped the server: RETRACE_VIEWER_DIST was not set when the CLI was built"
        );
        return;
    }
    let home = Scratch::new("serve-home");
    for dir in [
        ".pi/agent/sessions/--w--",
        ".claude/projects/-src-deep-manifest",
    ] {
        std::fs::create_dir_all(home.path(dir)).unwrap();
    }
    home.copy(
        &corpus("pi/badlogic__pi-mono/session.jsonl"),
        ".pi/agent/sessions/--w--/2025-12-09T00-52-54-397Z_s.jsonl",
    );
    home.copy(
        &corpus("claude-code/iansherr__claude-code-log/test/test_data/real_projects/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl"),
        ".claude/projects/-src-deep-manifest/a7da6a22-facc-4fcd-8bab-f83c87862004.jsonl",
    );
    let cache = home.path("cache");
    let mut first = Serving::start(&home.path(""), &["--cache", &cache]);
    assert!(first.url.starts_with("http://127.0.0.1:"), "{}", first.url);
    assert!(first
        .note()
        .contains("2 sessions (2 read, 0 from the cache)"));
    let list: serde_json::Value = serde_json::from_str(&first.get("/api/sessions")).unwrap();
    let formats: Vec<&str> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["format"].as_str().unwrap())
        .collect();
    assert_eq!(formats.len(), 2);
    assert!(
        formats.contains(&"pi") && formats.contains(&"claude-code"),
        "{formats:?}"
    );
    // The viewer is served from inside the binary.
    assert!(first.get("/view/").contains("<html"));
    drop(first);
    let mut second = Serving::start(&home.path(""), &["--cache", &cache]);
    assert!(second
        .note()
        .contains("2 sessions (0 read, 2 from the cache)"));
}

#[test]
fn another_address_is_warned_of_and_no_folder_refused() {
    let home = Scratch::new("serve-empty-home");
    let o = cmd(&["serve"])
        .env("HOME", &home.path(""))
        .cwd(home.path(""))
        .output();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    let want = if viewer_built() {
        "none of the agents' session folders exists"
    } else {
        "built without the viewer"
    };
    assert!(err.contains(want), "{err}");
    if !viewer_built() {
        return;
    }
    std::fs::create_dir_all(home.path("s")).unwrap();
    home.write("s/x.jsonl", b"{\"type\":\"message\"}\n");
    // Another loopback address: served under its own name, no warning.
    let mut serving = Serving::start(&home.path(""), &["s", "--no-cache", "--bind", "127.0.0.2"]);
    assert!(
        serving.url.starts_with("http://127.0.0.2:"),
        "{}",
        serving.url
    );
    assert!(serving.note().contains("1 session (1 read"));
    assert!(serving.get("/api/sessions").contains("x.jsonl"));
    drop(serving);
    // An address beyond loopback is warned of before it is bound (this
    // one, of a documentation network, is not this machine's: refused).
    let s = home.path("s");
    let o = cmd(&["serve", &s, "--no-cache", "--bind", "192.0.2.1"]).output();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("listening on 192.0.2.1: anyone who can reach this address"),
        "{err}"
    );
    assert_eq!(o.status.code(), Some(2), "{err}");
}
