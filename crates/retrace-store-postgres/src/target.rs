//! Where the store is: a `postgres://` URL, parsed once. The URL is the
//! client's own (host or socket folder, port, user, password, database,
//! and its options such as `sslmode` or `connect_timeout`), plus one
//! parameter of retrace's, `schema`: the schema that holds the store's
//! tables (`retrace` when not given), so several stores can share a
//! database. A password never appears in a message.

use std::str::FromStr;

use postgres::config::Host;
use postgres::Config;
use retrace_store::{StoreError, StoreResult};

/// The schema when the URL names none.
pub const DEFAULT_SCHEMA: &str = "retrace";

/// A parsed store URL.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// The client's configuration (without `schema`).
    pub config: Config,
    /// The schema of the store's tables.
    pub schema: String,
    /// How messages name the store: `postgres://user@host:port/db
    /// (schema s)`, never the password.
    pub shown: String,
}

/// Whether `s` is a store URL rather than a folder.
pub fn is_url(s: &str) -> bool {
    s.starts_with("postgres://") || s.starts_with("postgresql://")
}

impl Target {
    pub fn parse(url: &str) -> StoreResult<Target> {
        let bad = |reason: String| StoreError::Database {
            what: format!("the store URL `{}`", hide_password(url)),
            reason,
        };
        if !is_url(url) {
            return Err(bad(
                "a store URL starts with postgres:// or postgresql://".to_owned()
            ));
        }
        let (base, query) = url.split_once('?').unwrap_or((url, ""));
        let mut schema = DEFAULT_SCHEMA.to_owned();
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.strip_prefix("schema=") {
                Some(s) => schema = s.to_owned(),
                None => kept.push(pair),
            }
        }
        check_schema(&schema).map_err(bad)?;
        let client_url = if kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        let config = Config::from_str(&client_url).map_err(|e| bad(e.to_string()))?;
        let shown = format!("{} (schema {schema})", show(&config));
        Ok(Target {
            config,
            schema,
            shown,
        })
    }
}

/// A schema name: lower-case letters, digits and `_`, not starting with a
/// digit, at most 63 bytes (so it is never quoted, and goes into the
/// connection's `search_path` as it is).
fn check_schema(s: &str) -> Result<(), String> {
    let ok = !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        && !s.as_bytes()[0].is_ascii_digit();
    if ok {
        Ok(())
    } else {
        Err(format!(
            "schema `{}`: a schema is 1 to 63 lower-case letters, digits and `_`, not starting \
             with a digit",
            s.escape_debug()
        ))
    }
}

/// `postgres://user@host:port/db` from a configuration.
fn show(c: &Config) -> String {
    let host = match c.get_hosts().first() {
        Some(Host::Tcp(h)) => h.clone(),
        Some(Host::Unix(p)) => p.display().to_string(),
        None => "localhost".to_owned(),
    };
    let port = c
        .get_ports()
        .first()
        .map_or(String::new(), |p| format!(":{p}"));
    let user = c.get_user().map_or(String::new(), |u| format!("{u}@"));
    let db = c.get_dbname().unwrap_or("");
    format!("postgres://{user}{host}{port}/{db}")
}

/// The URL with the password (if any) replaced by `***`.
fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_is_retraces_parameter_and_the_password_is_never_shown() {
        let t =
            Target::parse("postgres://ada:s3cret@db.example:6543/agents?schema=team_1").unwrap();
        assert_eq!(t.schema, "team_1");
        assert_eq!(
            t.shown,
            "postgres://ada@db.example:6543/agents (schema team_1)"
        );
        assert_eq!(t.config.get_password(), Some(&b"s3cret"[..]));

        let t = Target::parse("postgresql://u@%2Ftmp%2Fpg/postgres?connect_timeout=3").unwrap();
        assert_eq!(t.schema, DEFAULT_SCHEMA);
        assert_eq!(
            t.shown,
            "postgres://u@/tmp/pg:5432/postgres (schema retrace)"
        );

        for bad in [
            "postgres://u:pw@h/db?schema=Bad",
            "postgres://u:pw@h/db?schema=1x",
            "postgres://u:pw@h/db?schema=a;drop",
            "postgres://u:pw@h/db?nonsense=1",
            "mysql://u:pw@h/db",
        ] {
            let e = Target::parse(bad).unwrap_err().to_string();
            assert!(!e.contains("pw"), "{e}");
            assert!(e.contains("u:***@h") || e.contains("mysql"), "{e}");
        }
    }
}
