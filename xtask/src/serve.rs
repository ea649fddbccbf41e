//! `cargo xtask serve [--port N] [--release]`: builds the viewer and serves
//! `dist/` on 127.0.0.1, opening on the bundled demo session.
//! `cargo xtask dist`: the release build for static hosting.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::{root, web};

pub fn run(args: &[String]) -> Result<()> {
    let mut port = 8080u16;
    let mut release = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                port = args
                    .next()
                    .context("--port needs a number")?
                    .parse()
                    .context("--port needs a number")?
            }
            "--release" => release = true,
            other => bail!("`serve` does not know `{other}` (try --port N, --release)"),
        }
    }
    let dist = web::build(&root(), release)?;
    let listener = TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("cannot listen on 127.0.0.1:{port} (try --port)"))?;
    println!(
        "==> serving {} on http://127.0.0.1:{port}/ (Ctrl-C stops)",
        dist.display()
    );
    println!("    the demo session opens at http://127.0.0.1:{port}/?src=demo.jsonl");
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let dist = dist.clone();
        std::thread::spawn(move || {
            let _ = answer(stream, &dist);
        });
    }
    Ok(())
}

pub fn dist(args: &[String]) -> Result<()> {
    if let Some(extra) = args.first() {
        bail!("`dist` takes no arguments (got `{extra}`)");
    }
    let dist = web::build(&root(), true)?;
    let size = web::bundle_size(&dist)?;
    size.print();
    println!("==> {} is ready for any static server", dist.display());
    Ok(())
}

/// Answers one request: GET of a file under `dist`; `/` without a query
/// goes to the demo session.
fn answer(stream: TcpStream, dist: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers.
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let mut out = stream;
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    if method != "GET" && method != "HEAD" {
        return respond(&mut out, 405, "text/plain", b"only GET");
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    if path == "/" && query.is_empty() {
        let head = "HTTP/1.1 302 Found\r\nLocation: /?src=demo.jsonl\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        return out.write_all(head.as_bytes());
    }
    let Some(file) = resolve(dist, path) else {
        return respond(&mut out, 404, "text/plain", b"not found");
    };
    match std::fs::read(&file) {
        Ok(body) => respond(
            &mut out,
            200,
            mime(&file),
            if method == "HEAD" { &[] } else { &body },
        ),
        Err(_) => respond(&mut out, 404, "text/plain", b"not found"),
    }
}

/// The file a URL path names under `dist`, refusing to leave it.
fn resolve(dist: &Path, path: &str) -> Option<PathBuf> {
    let relative = path.trim_start_matches('/');
    let relative = if relative.is_empty() {
        "index.html"
    } else {
        relative
    };
    let relative = Path::new(relative);
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return None;
    }
    let file = dist.join(relative);
    file.is_file().then_some(file)
}

fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript",
        "wasm" => "application/wasm",
        "css" => "text/css",
        "json" => "application/json",
        "jsonl" => "application/x-ndjson",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        _ => "application/octet-stream",
    }
}

fn respond(out: &mut TcpStream, status: u16, mime: &str, body: &[u8]) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    write!(
        out,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {mime}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    out.write_all(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_dist() {
        let dist = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(resolve(dist, "/Cargo.toml"), Some(dist.join("Cargo.toml")));
        assert_eq!(resolve(dist, "/../Cargo.toml"), None);
        assert_eq!(resolve(dist, "/src/../Cargo.toml"), None);
        assert_eq!(resolve(dist, "/nope"), None);
    }
}
