//! Every route, by path. A file on disk is reached only through a session
//! id the catalog holds and the index of one of its files; nothing of a
//! request's path is ever joined to a folder.
//!
//! - `/`, `/index.js`, `/index.css`: the index page ([`crate::page`]).
//! - `/api/sessions`: the catalog as JSON (walked again when it is more
//!   than a few seconds old).
//! - `/api/search?q=…`: hits across every session.
//! - `/api/sessions/ID`: a session's files (names, sizes now, URLs).
//! - `/api/sessions/ID/live`: server-sent events as its files grow.
//! - `/files/ID/N`: file N of session ID, by range (206), `HEAD`, `ETag`.
//! - `/view/…`: the viewer's files, from memory.

use std::io::{Read, Seek, SeekFrom};
use std::sync::Arc;
use std::time::{Instant, UNIX_EPOCH};

use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::json;

use super::body::Body;
use super::guard::{self, Refusal};
use super::range::{self, Want};
use super::{live, App};
use crate::catalog::{Catalog, Entry};
use crate::page;

/// Hits a search answers with unless asked for fewer.
const SEARCH_LIMIT: usize = 200;

/// Bytes read from a file at a time while sending it.
const SEND_CHUNK: usize = 256 << 10;

/// The index page's policy: its own script and style, requests to this
/// server only, no frames, forms or plugins.
const PAGE_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

pub async fn answer(app: Arc<App>, req: Request<Incoming>) -> Response<Body> {
    // A request target in absolute form names the host it is for, over
    // the `Host` header (RFC 9112, 3.2.2): that one is checked.
    let host = match req.uri().authority() {
        Some(authority) => Some(authority.as_str().to_owned()),
        None => req
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(str::to_owned),
    };
    let path = req.uri().path().to_owned();
    let mut response = match guard::check(req.method(), host.as_deref(), &path, &app.hosts) {
        Ok(()) => route(&app, &req, &path).await.unwrap_or_else(refused),
        Err(r) => refused(r),
    };
    let headers = response.headers_mut();
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    headers
        .entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static("frame-ancestors 'none'"));
    if req.method() == Method::HEAD {
        // hyper sends no body for HEAD; the length stays what GET sends.
        *response.body_mut() = Body::empty();
    }
    response
}

async fn route(
    app: &Arc<App>,
    req: &Request<Incoming>,
    path: &str,
) -> Result<Response<Body>, Refusal> {
    let query = req.uri().query();
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    match parts.as_slice() {
        [""] => Ok(page_file("index.html", PAGE_POLICY)),
        ["index.js"] => Ok(page_file("index.js", PAGE_POLICY)),
        ["index.css"] => Ok(page_file("index.css", PAGE_POLICY)),
        ["api", "sessions"] => {
            let app = app.clone();
            let catalog = blocking(move || app.fresh_catalog()).await?;
            Ok(json_response(&listing(&catalog)))
        }
        ["api", "search"] => {
            let q = guard::query_value(query, "q").unwrap_or_default();
            let limit = guard::query_value(query, "limit")
                .and_then(|l| l.parse().ok())
                .unwrap_or(SEARCH_LIMIT)
                .min(SEARCH_LIMIT);
            let catalog = app.catalog();
            let threads = app.config.threads;
            let reader = app.config.reader;
            let (found, ms) = blocking(move || {
                let t = Instant::now();
                let found = crate::search::search(&catalog, &q, limit, threads, reader);
                (found, t.elapsed().as_secs_f64() * 1e3)
            })
            .await?;
            Ok(json_response(&json!({
                "hits": found.hits,
                "scanned": found.scanned,
                "searched": found.searched,
                "truncated": found.truncated,
                "ms": ms,
            })))
        }
        ["api", "sessions", id] => {
            let entry = session(app, id)?;
            let files = blocking(move || describe_files(&entry)).await?;
            Ok(json_response(&files))
        }
        ["api", "sessions", id, "live"] => {
            let entry = session(app, id)?;
            Ok(live::events(entry))
        }
        ["files", id, n] => {
            let entry = session(app, id)?;
            let n: usize = n
                .parse()
                .ok()
                .filter(|&n| n < entry.files.len())
                .ok_or_else(|| not_found("no such file of this session"))?;
            let range = req
                .headers()
                .get(header::RANGE)
                .and_then(|h| h.to_str().ok())
                .map(str::to_owned);
            send_file(entry, n, range).await
        }
        ["view"] => {
            // The viewer's assets are relative to its folder.
            let to = match query {
                Some(q) => format!("/view/?{q}"),
                None => "/view/".to_owned(),
            };
            Ok(Response::builder()
                .status(StatusCode::PERMANENT_REDIRECT)
                .header(header::LOCATION, to)
                .body(Body::empty())
                .expect("a valid response"))
        }
        ["view", name] => {
            let name = if name.is_empty() { "index.html" } else { name };
            let bytes = app
                .config
                .viewer
                .file(name)
                .ok_or_else(|| not_found("no such file of the viewer"))?;
            Ok(Response::builder()
                .header(header::CONTENT_TYPE, content_type(name))
                .header(header::CACHE_CONTROL, "no-cache")
                .body(Body::full(Bytes::from_static(bytes)))
                .expect("a valid response"))
        }
        _ => Err(not_found("nothing is served here")),
    }
}

/// The session `id` names in the catalog (a clone: the catalog may be
/// walked again meanwhile).
fn session(app: &App, id: &str) -> Result<Entry, Refusal> {
    app.catalog()
        .get(id)
        .cloned()
        .ok_or_else(|| not_found("no session has this id"))
}

/// Runs `f` on a blocking thread.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, Refusal> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, "the work failed"))
}

/// The catalog as the index page reads it: one object per session, the
/// roots walked and what could not be.
fn listing(catalog: &Catalog) -> serde_json::Value {
    let sessions: Vec<serde_json::Value> = catalog
        .entries
        .iter()
        .map(|e| {
            let mut line = json!({
                "id": e.id,
                "project": e.project,
                "path": e.path().display().to_string(),
                "size": e.size(),
                "files": e.found.inputs.len(),
            });
            match &e.read {
                Ok(read) => {
                    let l = &read.listed;
                    line["title"] = json!(l.title);
                    line["format"] = json!(l.format);
                    line["model"] = json!(l.model);
                    line["start"] = json!(l.start);
                    line["end"] = json!(l.end);
                    line["entries"] = json!(l.entries);
                    line["branches"] = json!(read.branches);
                }
                Err(why) => line["error"] = json!(why),
            }
            line
        })
        .collect();
    json!({ "sessions": sessions, "problems": catalog.problems })
}

/// A session's files as the viewer opens them: names, sizes as they are
/// now, and the URL of each.
fn describe_files(entry: &Entry) -> serde_json::Value {
    let files: Vec<serde_json::Value> = entry
        .files
        .iter()
        .enumerate()
        .map(|(n, f)| {
            let size = std::fs::metadata(&f.path).map_or(f.size, |m| m.len());
            json!({ "name": f.name, "size": size, "url": format!("/files/{}/{n}", entry.id) })
        })
        .collect();
    let title = entry
        .read
        .as_ref()
        .ok()
        .and_then(|r| r.listed.title.clone());
    json!({ "id": entry.id, "title": title, "files": files })
}

/// File `n` of a session, whole or the range asked, read on a blocking
/// thread a chunk at a time as the client takes it.
async fn send_file(
    entry: Entry,
    n: usize,
    range: Option<String>,
) -> Result<Response<Body>, Refusal> {
    let path = entry.files[n].path.clone();
    let opened = blocking(move || {
        let file = std::fs::File::open(&path)?;
        let meta = file.metadata()?;
        Ok::<_, std::io::Error>((file, meta))
    })
    .await?
    .map_err(|e| not_found(&format!("the file cannot be read now ({e})")))?;
    let (mut file, meta) = opened;
    let size = meta.len();
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    let etag = format!("\"{size:x}-{mtime:x}\"");
    let builder = Response::builder()
        .header(header::CONTENT_TYPE, "application/octet-stream")
        .header(header::ACCEPT_RANGES, "bytes")
        .header(header::ETAG, &etag)
        // A browser that kept each range in its disk cache would write a
        // gigabyte session out again as it reads it.
        .header(header::CACHE_CONTROL, "no-store");
    let (start, end, builder) = match range::want(range.as_deref(), size) {
        Want::Whole => (0, size, builder.status(StatusCode::OK)),
        Want::Part { start, end } => (
            start,
            end,
            builder.status(StatusCode::PARTIAL_CONTENT).header(
                header::CONTENT_RANGE,
                format!("bytes {start}-{}/{size}", end - 1),
            ),
        ),
        Want::Unsatisfiable => {
            return Ok(Response::builder()
                .status(StatusCode::RANGE_NOT_SATISFIABLE)
                .header(header::CONTENT_RANGE, format!("bytes */{size}"))
                .body(Body::empty())
                .expect("a valid response"))
        }
    };
    let (tx, body) = Body::channel(4);
    tokio::task::spawn_blocking(move || {
        let mut left = end - start;
        if let Err(e) = file.seek(SeekFrom::Start(start)) {
            let _ = tx.blocking_send(Err(e));
            return;
        }
        while left > 0 {
            let mut buf = vec![0u8; SEND_CHUNK.min(left as usize)];
            match file.read(&mut buf) {
                // The file shrank: the length sent cannot be met.
                Ok(0) => {
                    let _ = tx.blocking_send(Err(std::io::ErrorKind::UnexpectedEof.into()));
                    return;
                }
                Ok(k) => {
                    buf.truncate(k);
                    left -= k as u64;
                    if tx.blocking_send(Ok(Bytes::from(buf))).is_err() {
                        return; // the client went away
                    }
                }
                Err(e) => {
                    let _ = tx.blocking_send(Err(e));
                    return;
                }
            }
        }
    });
    Ok(builder
        .header(header::CONTENT_LENGTH, end - start)
        .body(body)
        .expect("a valid response"))
}

fn page_file(name: &str, policy: &'static str) -> Response<Body> {
    Response::builder()
        .header(header::CONTENT_TYPE, content_type(name))
        .header(header::CONTENT_SECURITY_POLICY, policy)
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::full(Bytes::from_static(
            page::file(name).unwrap_or_default(),
        )))
        .expect("a valid response")
}

fn json_response(value: &serde_json::Value) -> Response<Body> {
    Response::builder()
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::CACHE_CONTROL, "no-store")
        .body(Body::full(serde_json::to_vec(value).unwrap_or_default()))
        .expect("a valid response")
}

fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "jsonl" => "application/x-ndjson",
        _ => "application/octet-stream",
    }
}

fn not_found(why: &str) -> Refusal {
    Refusal::new(StatusCode::NOT_FOUND, why)
}

fn refused(r: Refusal) -> Response<Body> {
    let mut builder = Response::builder()
        .status(r.status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8");
    if r.status == StatusCode::METHOD_NOT_ALLOWED {
        builder = builder.header(header::ALLOW, "GET, HEAD");
    }
    builder
        .body(Body::full(format!("{}\n", r.why)))
        .expect("a valid response")
}
