//! retrace-serve on a fake home folder built from corpus files (each
//! agent's layout, and a store root): what is discovered, the catalog and
//! its cache across starts, and the server over real HTTP: ranges, `HEAD`,
//! the `Host` check, traversal attempts, methods, search, live events.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use retrace_core::ReaderOptions;
use retrace_serve::{roots, Cache, Catalog, Config, Places, Viewer};

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(rel)
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(rel)
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

const CLAUDE_SESSION: &str = "ef958aa1-0e93-49f0-bb71-150f63befcd1";
const ROLLOUT: &str = "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl";
const GEMINI: &str = "session-2025-12-03T04-04-ff205d73.json";
const PI: &str = "2025-12-09T00-52-54-397Z_d9734c4a.jsonl";

/// A home folder with one session of each agent where it keeps them, and
/// a store root (`work/sessions`, the default `RETRACE_STORE`).
fn fake_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let projects = "claude-code/iansherr__claude-code-log/test/test_data/real_projects";
    copy_tree(
        &corpus(&format!("{projects}/-experiments-worktrees")),
        &h.join(".claude/projects/-experiments-worktrees"),
    );
    copy(
        &corpus(&format!(
            "codex/AcidicSoil__codex-session-view/.sample_session/{ROLLOUT}"
        )),
        &h.join(".codex/sessions/2025/11/17").join(ROLLOUT),
    );
    copy(
        &corpus(&format!(
            "gemini-cli/mischa-thisness__M-Gemini/Archives/{GEMINI}"
        )),
        &h.join(".gemini/tmp/0a1b2c/chats").join(GEMINI),
    );
    copy(
        &corpus("pi/badlogic__pi-mono/session.jsonl"),
        &h.join(".pi/agent/sessions/--home-u-app--").join(PI),
    );
    let store = h.join("work/sessions/s-1");
    copy(&fixture("events/events.jsonl"), &store.join("events.jsonl"));
    std::fs::write(store.join("meta.json"), r#"{"id":"s-1"}"#).unwrap();
    home
}

fn places(home: &Path) -> Places {
    Places {
        home: Some(home.to_owned()),
        store: None,
        cwd: Some(home.join("work")),
    }
}

#[test]
fn every_agents_folder_and_the_store_are_discovered() {
    let home = fake_home();
    let roots = roots(&[], &places(home.path()));
    let labels: Vec<&str> = roots.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(
        labels[..4],
        [
            "~/.claude/projects",
            "~/.codex/sessions",
            "~/.gemini/tmp",
            "~/.pi/agent/sessions"
        ]
    );
    assert!(labels[4].starts_with("store "), "{labels:?}");
    assert_eq!(roots.len(), 5);
    let (catalog, built) = Catalog::build(&roots, &Cache::default(), 2, ReaderOptions::default());
    assert_eq!(built.read, 5);
    let mut seen: Vec<(String, String, usize)> = catalog
        .entries
        .iter()
        .map(|e| {
            let read = e
                .read
                .as_ref()
                .unwrap_or_else(|why| panic!("{}: {why}", e.path().display()));
            (
                e.project.clone(),
                read.listed.format.clone(),
                e.found.inputs.len(),
            )
        })
        .collect();
    seen.sort();
    let store = format!("store {}", home.path().join("work/sessions").display());
    assert_eq!(
        seen,
        [
            (format!("{store}/s-1"), "events".to_owned(), 1),
            (
                "~/.claude/projects/-experiments-worktrees".to_owned(),
                "claude-code".to_owned(),
                7
            ),
            ("~/.codex/sessions".to_owned(), "codex".to_owned(), 1),
            (
                "~/.gemini/tmp/0a1b2c".to_owned(),
                "gemini-cli".to_owned(),
                1
            ),
            (
                "~/.pi/agent/sessions/--home-u-app--".to_owned(),
                "pi".to_owned(),
                1
            ),
        ]
    );
    // A Claude Code session is served with its subagent runs and their
    // side-cars, named under the session's folder.
    let claude = catalog
        .entries
        .iter()
        .find(|e| e.project.ends_with("-experiments-worktrees"))
        .unwrap();
    assert_eq!(claude.files[0].name, format!("{CLAUDE_SESSION}.jsonl"));
    assert!(claude.files[1..].iter().all(|f| f
        .name
        .starts_with(&format!("{CLAUDE_SESSION}/subagents/agent-"))));
    assert_eq!(claude.files.len(), 13, "6 runs, each with its .meta.json");
    // Ids are opaque and stable: no path in them, the same next time.
    assert!(catalog
        .entries
        .iter()
        .all(|e| e.id.len() == 16 && !e.id.contains('/')));
    assert_eq!(catalog.get(&claude.id).unwrap().path(), claude.path());
}

#[test]
fn a_second_start_reads_only_what_changed() {
    let home = fake_home();
    let roots = roots(&[], &places(home.path()));
    let cache_dir = tempfile::tempdir().unwrap();
    let file = retrace_serve::cache_file(cache_dir.path(), &roots);
    let config = config(roots.clone(), Some(file.clone()));
    let (first, built, note) = retrace_serve::open_catalog(&config);
    assert_eq!((built.read, built.reused, note), (5, 0, None));
    assert!(file.is_file());
    let (second, built, _) = retrace_serve::open_catalog(&config);
    assert_eq!((built.read, built.reused), (0, 5));
    let lines = |c: &Catalog| -> Vec<_> {
        c.entries
            .iter()
            .map(|e| (e.id.clone(), e.read.clone()))
            .collect()
    };
    assert_eq!(lines(&first), lines(&second));
    // The pi session grows by a line: it alone is read again.
    let pi = home
        .path()
        .join(".pi/agent/sessions/--home-u-app--")
        .join(PI);
    let line = r#"{"type":"message","id":"zz000001","parentId":null,"timestamp":"2030-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"one more prompt"}]}}"#;
    append(&pi, line);
    let (third, built, _) = retrace_serve::open_catalog(&config);
    assert_eq!((built.read, built.reused), (1, 4));
    let pi_entry = third.entries.iter().find(|e| e.path() == pi).unwrap();
    let before = second.entries.iter().find(|e| e.path() == pi).unwrap();
    let entries = |e: &retrace_serve::Entry| e.read.as_ref().unwrap().listed.entries;
    assert_eq!(entries(pi_entry), entries(before) + 1);
    // A cache that is not one is started afresh, and said so.
    std::fs::write(&file, b"{not json").unwrap();
    let (_, built, note) = retrace_serve::open_catalog(&config);
    assert_eq!(built.read, 5);
    assert!(note.unwrap().contains("not a cache"));
}

fn append(path: &Path, line: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    writeln!(f, "{line}").unwrap();
}

const VIEWER: &[(&str, &[u8])] = &[
    ("index.html", b"<!doctype html>viewer"),
    ("app.js", b"// js"),
];

fn config(roots: Vec<retrace_serve::Root>, cache_file: Option<PathBuf>) -> Config {
    Config {
        roots,
        cache_file,
        viewer: Viewer::new(VIEWER),
        threads: 2,
        reader: ReaderOptions::default(),
        bound: None,
    }
}

/// A server on a free port over the fake home.
fn serve(home: &Path) -> retrace_serve::Running {
    let config = config(roots(&[], &places(home)), None);
    let (catalog, _, _) = retrace_serve::open_catalog(&config);
    retrace_serve::start("127.0.0.1:0".parse().unwrap(), config, catalog).unwrap()
}

/// One answer: status, headers (lower-case names), body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// A request written by hand, so nothing normalizes its path or host.
fn request(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let host = format!("127.0.0.1:{}", addr.port());
    let mut text = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        text.push_str(&format!("Host: {host}\r\n"));
    }
    for (n, v) in headers {
        text.push_str(&format!("{n}: {v}\r\n"));
    }
    text.push_str("\r\n");
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    stream.write_all(text.as_bytes()).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let end = memchr_find(&raw, b"\r\n\r\n").expect("a head");
    let head = String::from_utf8(raw[..end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .map(|l| {
            let (n, v) = l.split_once(':').unwrap();
            (n.trim().to_ascii_lowercase(), v.trim().to_owned())
        })
        .collect();
    Answer {
        status,
        headers,
        body: raw[end + 4..].to_vec(),
    }
}

fn memchr_find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn get(addr: SocketAddr, path: &str) -> Answer {
    request(addr, "GET", path, &[])
}

#[test]
fn files_are_served_by_id_and_range_only() {
    let home = fake_home();
    let server = serve(home.path());
    let addr = server.addr;
    let list = get(addr, "/api/sessions");
    assert_eq!(list.status, 200);
    let sessions = list.json()["sessions"].as_array().unwrap().clone();
    assert_eq!(sessions.len(), 5);
    let pi = sessions.iter().find(|s| s["format"] == "pi").unwrap();
    let id = pi["id"].as_str().unwrap();
    assert!(!pi["title"].as_str().unwrap().is_empty());
    let described = get(addr, &format!("/api/sessions/{id}")).json();
    let file = &described["files"][0];
    assert_eq!(file["name"], PI);
    let url = file["url"].as_str().unwrap().to_owned();
    assert_eq!(url, format!("/files/{id}/0"), "no path in a URL");
    let bytes = std::fs::read(
        home.path()
            .join(".pi/agent/sessions/--home-u-app--")
            .join(PI),
    )
    .unwrap();
    assert_eq!(file["size"], bytes.len() as u64);

    let whole = get(addr, &url);
    assert_eq!(whole.status, 200);
    assert_eq!(whole.body, bytes);
    assert_eq!(whole.header("accept-ranges"), Some("bytes"));
    let etag = whole.header("etag").unwrap().to_owned();

    let part = request(addr, "GET", &url, &[("Range", "bytes=100-199")]);
    assert_eq!(part.status, 206);
    assert_eq!(part.body, &bytes[100..200]);
    assert_eq!(
        part.header("content-range"),
        Some(format!("bytes 100-199/{}", bytes.len()).as_str())
    );
    assert_eq!(part.header("etag"), Some(etag.as_str()));
    let tail = request(addr, "GET", &url, &[("Range", "bytes=-10")]);
    assert_eq!(tail.body, &bytes[bytes.len() - 10..]);
    let past = request(
        addr,
        "GET",
        &url,
        &[("Range", &format!("bytes={}-", bytes.len()))],
    );
    assert_eq!(past.status, 416);
    assert_eq!(
        past.header("content-range"),
        Some(format!("bytes */{}", bytes.len()).as_str())
    );

    let head = request(addr, "HEAD", &url, &[]);
    assert_eq!(head.status, 200);
    assert_eq!(
        head.header("content-length"),
        Some(bytes.len().to_string().as_str())
    );
    assert!(head.body.is_empty());

    // The viewer's files from memory; the index page under its policy.
    assert_eq!(get(addr, "/view/").body, b"<!doctype html>viewer");
    assert_eq!(get(addr, "/view/app.js").body, b"// js");
    assert_eq!(
        get(addr, "/view?s=abc").header("location"),
        Some("/view/?s=abc")
    );
    let page = get(addr, "/");
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-security-policy")
        .unwrap()
        .contains("script-src 'self'"));
    assert!(String::from_utf8_lossy(&page.body).contains("index.js"));
}

#[test]
fn requests_outside_the_catalog_are_refused() {
    let home = fake_home();
    let server = serve(home.path());
    let addr = server.addr;
    let sessions = get(addr, "/api/sessions").json()["sessions"].clone();
    let id = sessions[0]["id"].as_str().unwrap().to_owned();
    let status = |path: &str| get(addr, path).status;
    // Traversal, however written, never reaches the file system.
    for path in [
        "/../../etc/passwd",
        "/view/../../etc/passwd",
        "/view/%2e%2e/%2e%2e/etc/passwd",
        "/view/%2E%2E%2Fetc%2Fpasswd",
        "/files/%2e%2e/0",
        "/view/..%5c..%5cetc%5cpasswd",
        "//etc/passwd",
    ] {
        assert_eq!(status(path), 400, "{path}");
    }
    for path in [
        "/etc/passwd",
        "/view/etc/passwd",
        "/view/passwd",
        "/files/0000000000000000/0",
        &format!("/files/{id}/99"),
        &format!("/files/{id}/-1"),
        "/api/sessions/0000000000000000",
        "/files/%2Fetc%2Fpasswd/0",
        "/view/index.html%00.js",
    ] {
        let s = status(path);
        assert!(s == 404 || s == 400, "{path}: {s}");
    }
    // A URL as the request target names its host over `Host`.
    assert_eq!(
        request(addr, "GET", "http://evil.example/", &[]).status,
        403
    );
    let own = format!("http://127.0.0.1:{}/api/sessions", addr.port());
    assert_eq!(request(addr, "GET", &own, &[]).status, 200);
    // Nothing writes: other methods are refused, saying which are allowed.
    for method in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        let a = request(addr, method, "/api/sessions", &[]);
        assert_eq!(a.status, 405, "{method}");
        assert_eq!(a.header("allow"), Some("GET, HEAD"));
    }
    // DNS rebinding: a page of another site reaching 127.0.0.1 sends its
    // own name as Host.
    let port = addr.port();
    for host in [
        format!("evil.example:{port}"),
        "127.0.0.1".to_owned(),
        format!("127.0.0.2:{port}"),
    ] {
        let a = request(addr, "GET", "/api/sessions", &[("Host", &host)]);
        assert_eq!(a.status, 403, "{host}");
    }
    for host in [format!("localhost:{port}"), format!("[::1]:{port}")] {
        assert_eq!(
            request(addr, "GET", "/", &[("Host", &host)]).status,
            200,
            "{host}"
        );
    }
}

#[test]
fn a_search_finds_entries_across_sessions() {
    let home = fake_home();
    let server = serve(home.path());
    let addr = server.addr;
    let sessions = get(addr, "/api/sessions").json()["sessions"].clone();
    let claude = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["format"] == "claude-code")
        .unwrap();
    // A word of the Claude session's first prompt.
    let found = get(addr, "/api/search?q=experiment").json();
    let hits = found["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().any(|h| h["session"] == claude["id"]));
    for h in hits {
        assert!(h["snippet"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("experiment"));
        assert!(!h["entry"].as_str().unwrap().is_empty());
        assert!(!h["leaf"].as_str().unwrap().is_empty());
    }
    assert_eq!(found["scanned"], 5);
    // Fewer sessions hold the bytes than are scanned.
    assert!(found["searched"].as_u64().unwrap() < 5);
    let none = get(addr, "/api/search?q=zqxjv+nothing+says+this").json();
    assert_eq!(none["hits"].as_array().unwrap().len(), 0);
    assert_eq!(none["searched"], 0);
}

#[test]
fn live_events_follow_a_growing_file() {
    let home = fake_home();
    let server = serve(home.path());
    let addr = server.addr;
    let sessions = get(addr, "/api/sessions").json()["sessions"].clone();
    let pi = sessions
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["format"] == "pi")
        .unwrap()
        .clone();
    let path = home
        .path()
        .join(".pi/agent/sessions/--home-u-app--")
        .join(PI);
    let size = std::fs::metadata(&path).unwrap().len();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    write!(
        stream,
        "GET /api/sessions/{}/live HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
        pi["id"].as_str().unwrap(),
        addr.port()
    )
    .unwrap();
    let mut reader = BufReader::new(stream);
    let mut next_sizes = || loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if let Some(data) = line.trim().strip_prefix("data: ") {
            return data
                .split(',')
                .map(|n| n.parse::<u64>().unwrap())
                .collect::<Vec<u64>>();
        }
    };
    assert_eq!(next_sizes(), [size]);
    // Unchanged, they are said again (a page busy reading learns them).
    assert_eq!(next_sizes(), [size]);
    let line = r#"{"type":"message","id":"zz000002","parentId":null,"timestamp":"2030-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"later"}]}}"#;
    append(&path, line);
    assert_eq!(next_sizes(), [size + line.len() as u64 + 1]);
    // The grown bytes are served at once.
    let url = format!("/files/{}/0", pi["id"].as_str().unwrap());
    let part = request(addr, "GET", &url, &[("Range", &format!("bytes={size}-"))]);
    assert_eq!(part.status, 206);
    assert_eq!(part.body, format!("{line}\n").as_bytes());
}

/// A pi session of `n` user messages of 200 bytes, the last one saying
/// `last`, gzipped: it inflates over 50 times its size.
fn gzip_bomb(n: usize, last: &str) -> Vec<u8> {
    let mut plain = String::from(
        r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
    );
    plain.push('\n');
    for i in 0..n {
        let parent = match i {
            0 => "null".to_owned(),
            _ => format!("\"k{}\"", i - 1),
        };
        let said = if i + 1 == n {
            last.to_owned()
        } else {
            "z".repeat(200)
        };
        plain.push_str(&format!(
            r#"{{"type":"message","id":"k{i}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":[{{"type":"text","text":"{said}"}}]}}}}"#
        ));
        plain.push('\n');
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(plain.as_bytes()).unwrap();
    let bomb = gz.finish().unwrap();
    assert!(bomb.len() * 50 < plain.len());
    bomb
}

/// `retrace serve --max-inflated`: the catalog and the search read a
/// gzip file only as far as the limit, as every command does.
#[test]
fn a_gzip_bomb_is_read_to_the_servers_inflate_limit() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bomb.jsonl.gz"),
        gzip_bomb(20_000, "the last word is zebracorn"),
    )
    .unwrap();
    let roots = roots(&[dir.path().to_path_buf()], &places(dir.path()));
    let limited = ReaderOptions {
        max_inflated: 1 << 20,
        ..ReaderOptions::default()
    };
    let entries = |reader| {
        let (catalog, _) = Catalog::build(&roots, &Cache::default(), 2, reader);
        let read = catalog.entries[0].read.as_ref().unwrap();
        (read.listed.entries, catalog)
    };
    let (whole, whole_catalog) = entries(ReaderOptions::default());
    let (cut, cut_catalog) = entries(limited);
    // The header and the messages.
    assert_eq!(whole, 20_001);
    // About 1 MiB of 350-byte lines.
    assert!((2_800..3_100).contains(&cut), "{cut}");
    let hits = |catalog: &Catalog, reader| {
        retrace_serve::search::search(catalog, "zebracorn", 10, 2, reader)
            .hits
            .len()
    };
    assert_eq!(hits(&whole_catalog, ReaderOptions::default()), 1);
    assert_eq!(hits(&cut_catalog, limited), 0);
}
