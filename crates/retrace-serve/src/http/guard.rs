//! What a request must be before any route sees it: a `GET` or `HEAD`
//! (nothing here writes), addressed by a `Host` this server answers to
//! (a page of another site that rebinds its name to 127.0.0.1 sends its
//! own name, and is refused), with a path that names no folder above
//! another (`..`, however encoded) and no other file system syntax.

use hyper::{Method, StatusCode};

/// Why a request is refused, with the status and a line saying so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: StatusCode,
    pub why: String,
}

impl Refusal {
    pub fn new(status: StatusCode, why: impl Into<String>) -> Refusal {
        Refusal {
            status,
            why: why.into(),
        }
    }
}

/// The `Host` values this server answers to: loopback names with its
/// port, and the address it was bound to when that is another.
#[derive(Debug, Clone)]
pub struct Hosts(Vec<String>);

impl Hosts {
    pub fn new(port: u16, bound: Option<&str>) -> Hosts {
        let mut hosts: Vec<String> = ["127.0.0.1", "localhost", "[::1]"]
            .iter()
            .map(|h| format!("{h}:{port}"))
            .collect();
        if let Some(b) = bound {
            hosts.push(format!("{b}:{port}").to_ascii_lowercase());
        }
        Hosts(hosts)
    }

    pub fn allows(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.0.contains(&host)
    }
}

/// Checks a request's method, `Host` and path.
pub fn check(
    method: &Method,
    host: Option<&str>,
    path: &str,
    hosts: &Hosts,
) -> Result<(), Refusal> {
    if method != Method::GET && method != Method::HEAD {
        return Err(Refusal::new(
            StatusCode::METHOD_NOT_ALLOWED,
            format!("{method} is not served: this server only reads (GET, HEAD)"),
        ));
    }
    match host {
        Some(h) if hosts.allows(h) => {}
        Some(h) => {
            return Err(Refusal::new(
                StatusCode::FORBIDDEN,
                format!("Host {h:?} is not this server's (a page of another site cannot read it)"),
            ))
        }
        None => return Err(Refusal::new(StatusCode::FORBIDDEN, "no Host header")),
    }
    let decoded = percent_decode(path).ok_or_else(|| bad("a path that is not UTF-8"))?;
    if decoded.contains("..")
        || decoded.contains('\\')
        || decoded.contains('\0')
        || decoded.contains("//")
    {
        return Err(bad("a path with `..`, `//`, a backslash or NUL"));
    }
    if !decoded.starts_with('/') {
        return Err(bad("a path that does not start with /"));
    }
    Ok(())
}

fn bad(what: &str) -> Refusal {
    Refusal::new(StatusCode::BAD_REQUEST, format!("{what} is refused"))
}

/// `%XX` decoded (and `+` left as it is); `None` when the result is not
/// UTF-8 or an escape is cut.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A query's value by name (`+` as a space, `%XX` decoded).
pub fn query_value(query: Option<&str>, name: &str) -> Option<String> {
    query?.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(&v.replace('+', " ")))?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reads_from_this_host_on_clean_paths() {
        let hosts = Hosts::new(8123, None);
        let ok = |m: Method, h: &str, p: &str| check(&m, Some(h), p, &hosts).map_err(|r| r.status);
        assert_eq!(ok(Method::GET, "127.0.0.1:8123", "/"), Ok(()));
        assert_eq!(ok(Method::HEAD, "localhost:8123", "/files/x/0"), Ok(()));
        assert_eq!(ok(Method::GET, "[::1]:8123", "/"), Ok(()));
        assert_eq!(
            ok(Method::POST, "127.0.0.1:8123", "/"),
            Err(StatusCode::METHOD_NOT_ALLOWED)
        );
        assert_eq!(
            ok(Method::DELETE, "127.0.0.1:8123", "/"),
            Err(StatusCode::METHOD_NOT_ALLOWED)
        );
        assert_eq!(
            ok(Method::GET, "evil.example:8123", "/"),
            Err(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            ok(Method::GET, "127.0.0.1:9999", "/"),
            Err(StatusCode::FORBIDDEN)
        );
        assert_eq!(
            ok(Method::GET, "localhost", "/"),
            Err(StatusCode::FORBIDDEN)
        );
        for path in [
            "/../etc/passwd",
            "/view/%2e%2e/x",
            "/view/%2E%2e%2fetc",
            "/a\\b",
            "//etc/passwd",
            "/a%00",
        ] {
            assert_eq!(
                ok(Method::GET, "127.0.0.1:8123", path),
                Err(StatusCode::BAD_REQUEST),
                "{path}"
            );
        }
        assert_eq!(
            check(&Method::GET, None, "/", &hosts).map_err(|r| r.status),
            Err(StatusCode::FORBIDDEN)
        );
        let bound = Hosts::new(80, Some("192.0.2.7"));
        assert!(bound.allows("192.0.2.7:80"));
    }

    #[test]
    fn query_values_are_decoded() {
        assert_eq!(
            query_value(Some("q=fix+the%20build&x=1"), "q").as_deref(),
            Some("fix the build")
        );
        assert_eq!(query_value(Some("q="), "q").as_deref(), Some(""));
        assert_eq!(query_value(None, "q"), None);
    }
}
