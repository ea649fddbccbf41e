//! Where a store is: a folder (`--root`, `RETRACE_STORE`, `./sessions`)
//! or a Postgres database (`--url`, `RETRACE_STORE_URL`), and opening it.
//! A flag wins over the environment; two stores named at one level are
//! refused rather than one picked silently.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use retrace_store::{FsStore, SessionStore};

use crate::args::StoreArgs;

/// The folder when nothing names a store.
const DEFAULT_ROOT: &str = "sessions";

/// A store's place.
#[derive(Clone, Debug)]
pub(super) enum Location {
    Folder(PathBuf),
    Url(String),
}

/// An opened store: as the contract, and as its backend for what only
/// it has (a folder's paths).
pub(super) struct Opened {
    pub sessions: Arc<dyn SessionStore>,
    /// The folder store, when it is one.
    pub files: Option<Arc<FsStore>>,
    /// How messages name it (a URL without its password).
    pub shown: String,
    /// A database's schema version, and what opening it applied.
    pub schema: Option<Schema>,
}

/// A database schema's versions when it was opened.
pub(super) struct Schema {
    pub from: i32,
    pub to: i32,
    /// Migrations applied: version and name.
    pub applied: Vec<(i32, String)>,
}

impl Location {
    /// `s` as a URL when it starts with `postgres://` or `postgresql://`,
    /// else as a folder.
    pub fn parse(s: &str) -> Location {
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            Location::Url(s.to_owned())
        } else {
            Location::Folder(PathBuf::from(s))
        }
    }

    /// The store `retrace store` works on.
    pub fn of(args: &StoreArgs) -> Result<Location> {
        match (&args.root, &args.url) {
            (Some(root), None) => return Ok(Location::Folder(root.clone())),
            (None, Some(url)) => return Ok(Location::Url(url.clone())),
            // clap refuses both flags at once.
            _ => {}
        }
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        match (env("RETRACE_STORE"), env("RETRACE_STORE_URL")) {
            (Some(root), Some(url)) => bail!(
                "RETRACE_STORE ({root}) and RETRACE_STORE_URL ({}) name two stores; unset one, \
                 or pick with --root or --url",
                hide_password(&url)
            ),
            (Some(root), None) => Ok(Location::Folder(PathBuf::from(root))),
            (None, Some(url)) => Ok(Location::Url(url)),
            (None, None) => Ok(Location::Folder(PathBuf::from(DEFAULT_ROOT))),
        }
    }

    /// Opens the store; a database's schema must be at this build's
    /// version unless `migrate` (then it is brought there).
    pub fn open(&self, migrate: bool) -> Result<Opened> {
        match self {
            Location::Folder(root) => {
                let files = Arc::new(
                    FsStore::open(root)
                        .with_context(|| format!("cannot open the store in {}", root.display()))?,
                );
                Ok(Opened {
                    sessions: files.clone(),
                    files: Some(files),
                    shown: root.display().to_string(),
                    schema: None,
                })
            }
            Location::Url(url) => open_url(url, migrate),
        }
    }
}

#[cfg(feature = "postgres")]
fn open_url(url: &str, migrate: bool) -> Result<Opened> {
    use retrace_store_postgres::{PgOptions, PgStore};
    let store = PgStore::connect(
        url,
        PgOptions {
            migrate,
            // A command waits this long for a server that is restarting
            // (or a URL that names none) before it says so.
            reconnect_timeout: std::time::Duration::from_secs(10),
            on_warning: Arc::new(|w: &str| eprintln!("retrace: {w}")),
            ..PgOptions::default()
        },
    )?;
    let report = store.migration();
    let schema = Schema {
        from: report.from,
        to: report.to,
        applied: report.applied.clone(),
    };
    Ok(Opened {
        shown: store.shown().to_owned(),
        sessions: Arc::new(store),
        files: None,
        schema: Some(schema),
    })
}

#[cfg(not(feature = "postgres"))]
fn open_url(url: &str, _migrate: bool) -> Result<Opened> {
    bail!(
        "{}: this retrace was built without Postgres support (the `postgres` feature of \
         retrace-cli)",
        hide_password(url)
    )
}

/// A URL with its password replaced by `***`, for messages.
pub(super) fn hide_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let end = rest.find('/').unwrap_or(rest.len());
    match rest[..end].rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{}", &rest[end..]),
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// This machine's name, as the store records where checkpoints are.
pub(super) fn this_host() -> String {
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .ok()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    };
    read("/proc/sys/kernel/hostname")
        .or_else(|| read("/etc/hostname"))
        .or_else(|| {
            let out = std::process::Command::new("hostname").output().ok()?;
            let name = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            (!name.is_empty()).then_some(name)
        })
        .unwrap_or_else(|| "localhost".to_owned())
}
