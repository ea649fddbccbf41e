//! retrace-test-postgres: a throwaway Postgres server for tests and
//! benches, from the distribution's `postgresql` package. Standard library
//! only, so `xtask` can start one without building a database client.
//!
//! - [`Server::start`]: `initdb` into a private folder under the
//!   temporary folder, then the server on a unix socket in that folder (no
//!   TCP port), `fsync` and `synchronous_commit` on as shipped. When run
//!   as root (Postgres refuses to), both run as `nobody`: the folder is
//!   given to it and the programs are started with its uid and gid
//!   (`std::os::unix::process::CommandExt`), so no `su`, `runuser` or
//!   login shell is needed.
//! - A watchdog (`sh`, the server's user, its own process group) holds the
//!   reading end of a pipe whose writing end is this process's: when the
//!   [`Server`] is dropped, or this process ends in any way (a failed
//!   test, a panic, a kill), the pipe closes and the watchdog stops the
//!   server and removes its folder. Nothing is left behind.
//! - [`test_url`]: the server a test binary shares: `RETRACE_TEST_POSTGRES_URL`
//!   when set (`cargo xtask test` starts one server for the whole run),
//!   else one started on first use and stopped when the binary ends. It
//!   panics, saying why, when there is neither: tests never skip silently.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The variable that names a server for the tests to use instead of
/// starting one.
pub const URL_VAR: &str = "RETRACE_TEST_POSTGRES_URL";

/// The server's superuser and database.
const USER: &str = "postgres";

/// Why a server could not be started or restarted.
#[derive(Debug)]
pub struct ServerError(String);

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServerError {}

fn fail(what: impl Into<String>) -> ServerError {
    ServerError(what.into())
}

/// How [`Server::restart`] stops the server before starting it again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Clients are disconnected, a checkpoint is written: nothing
    /// committed is lost.
    Fast,
    /// The server's processes are killed as in a crash; it recovers from
    /// its WAL on start, and asynchronous commits not yet flushed are gone.
    Immediate,
}

/// A running throwaway server. Dropping it stops the server and removes
/// its folder.
pub struct Server {
    dir: PathBuf,
    bin: PathBuf,
    url: String,
    user: Option<(u32, u32)>,
    started_in: Duration,
    /// The watchdog's stdin: closing it stops the server.
    pipe: Option<ChildStdin>,
    watchdog: Child,
}

impl Server {
    /// A new server in a new folder; takes about half a second.
    pub fn start() -> Result<Server, ServerError> {
        let t = Instant::now();
        let bin = bin_dir()?;
        let user = server_user()?;
        let dir = fresh_dir()?;
        if let Some((uid, gid)) = user {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
                .map_err(|e| fail(format!("cannot give {} to nobody: {e}", dir.display())))?;
        }
        let data = dir.join("data");
        // `--no-sync`: the new files are not flushed to disk by initdb
        // (nothing tests a power cut); the server itself runs with fsync.
        let out = as_user(Command::new(bin.join("initdb")), user)
            .arg("-D")
            .arg(&data)
            .args(["-U", USER, "-A", "trust", "-E", "UTF8", "--locale=C"])
            .args(["--no-sync", "--no-instructions"])
            .output()
            .map_err(|e| fail(format!("cannot run {}/initdb: {e}", bin.display())))?;
        if !out.status.success() {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(fail(format!(
                "initdb in {} failed ({}): {}",
                data.display(),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        let mut watchdog = as_user(Command::new("sh"), user)
            .arg("-c")
            .arg(WATCHDOG)
            .arg("retrace-test-postgres")
            .arg(&bin)
            .arg(&dir)
            .arg(server_options(&dir))
            // Not in the test's process group: a Ctrl-C reaches the test,
            // whose exit then closes the pipe.
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| fail(format!("cannot start the server's watchdog (sh): {e}")))?;
        let mut ready = String::new();
        let stdout = watchdog.stdout.take().expect("piped");
        let _ = BufReader::new(stdout).read_line(&mut ready);
        if ready.trim() != "ready" {
            let _ = watchdog.wait();
            let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
            let _ = std::fs::remove_dir_all(&dir);
            return Err(fail(format!(
                "the server in {} did not start: {}",
                dir.display(),
                log.trim()
            )));
        }
        let url = format!(
            "postgresql://{USER}@{}/{USER}",
            percent_encode(&dir.display().to_string())
        );
        Ok(Server {
            pipe: watchdog.stdin.take(),
            watchdog,
            dir,
            bin,
            url,
            user,
            started_in: t.elapsed(),
        })
    }

    /// The server's URL (its socket's folder as the host).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How long [`Server::start`] took, initdb included.
    pub fn started_in(&self) -> Duration {
        self.started_in
    }

    /// The server's folder (its data, socket and log).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Stops the server as `how` says and starts it again on the same
    /// data; returns once it accepts connections.
    pub fn restart(&self, how: Stop) -> Result<(), ServerError> {
        let mode = match how {
            Stop::Fast => "fast",
            Stop::Immediate => "immediate",
        };
        let out = as_user(Command::new(self.bin.join("pg_ctl")), self.user)
            .args(["restart", "-w", "-s", "-m", mode, "-D"])
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("server.log"))
            .arg("-o")
            .arg(server_options(&self.dir))
            .stdin(Stdio::null())
            .output()
            .map_err(|e| fail(format!("cannot run pg_ctl restart: {e}")))?;
        if !out.status.success() {
            return Err(fail(format!(
                "pg_ctl restart -m {mode} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The watchdog stops the server and removes the folder on EOF.
        drop(self.pipe.take());
        let _ = self.watchdog.wait();
    }
}

/// The watchdog, run by `sh -c` with the bin folder and the server's
/// folder as `$1` and `$2`: starts the server, says `ready`, waits for
/// its stdin to close, stops the server, removes the folder.
const WATCHDOG: &str = r#"
bin="$1"; dir="$2"
if "$bin/pg_ctl" start -w -s -D "$dir/data" -l "$dir/server.log" -o "$3" </dev/null >/dev/null; then
    echo ready
else
    echo failed; exit 1
fi
cat >/dev/null
"$bin/pg_ctl" stop -s -m immediate -D "$dir/data" >/dev/null 2>&1
rm -rf "$dir"
"#;

/// `postgres` options: the socket in the server's folder, no TCP. After
/// a crash (an immediate stop) the server syncs its data folder before
/// recovery; `syncfs` does it with one call instead of an `fsync` per
/// file (0.6 s instead of 2.6 s here), the same promise.
fn server_options(dir: &Path) -> String {
    format!(
        "-k '{}' -c listen_addresses= -c max_connections=200 \
         -c recovery_init_sync_method=syncfs",
        dir.display()
    )
}

/// Runs `cmd` as the server's user, if it is not this process's.
fn as_user(mut cmd: Command, user: Option<(u32, u32)>) -> Command {
    if let Some((uid, gid)) = user {
        // std drops the supplementary groups too when root changes uid.
        cmd.uid(uid).gid(gid);
    }
    cmd
}

/// `nobody`'s uid and gid when this process is root (Postgres will not
/// run as root); `None` otherwise.
fn server_user() -> Result<Option<(u32, u32)>, ServerError> {
    let id = |args: &[&str]| -> Result<u32, ServerError> {
        let out = Command::new("id")
            .args(args)
            .output()
            .map_err(|e| fail(format!("cannot run id: {e}")))?;
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .map_err(|_| {
                fail(format!(
                    "`id {}` gave no number: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ))
            })
    };
    if id(&["-u"])? != 0 {
        return Ok(None);
    }
    Ok(Some((id(&["-u", "nobody"])?, id(&["-g", "nobody"])?)))
}

/// The folder of Postgres' programs: `RETRACE_PG_BIN`, else Debian's
/// `/usr/lib/postgresql/<newest>/bin`, else the folder of `initdb` on the
/// `PATH`.
pub fn bin_dir() -> Result<PathBuf, ServerError> {
    if let Some(dir) = std::env::var_os("RETRACE_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    debian.sort();
    if let Some((_, bin)) = debian.pop() {
        return Ok(bin);
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .find(|d| d.join("initdb").is_file() && d.join("pg_ctl").is_file())
        .ok_or_else(|| {
            fail(
                "no Postgres server programs (initdb, pg_ctl): install Debian's `postgresql` \
                 package (`cargo xtask test` does), set RETRACE_PG_BIN to their folder, or set \
                 RETRACE_TEST_POSTGRES_URL to a server the tests may use",
            )
        })
}

/// A new folder under the temporary folder, `retrace-pg-{pid}-{n}-{time}`.
fn fresh_dir() -> Result<PathBuf, ServerError> {
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let dir = std::env::temp_dir().join(format!(
        "retrace-pg-{}-{}-{nanos:08x}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir(&dir).map_err(|e| fail(format!("cannot create {}: {e}", dir.display())))?;
    Ok(dir)
}

/// A socket folder as a URL's host.
fn percent_encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `url` with `key=value` added to its query.
pub fn with_param(url: &str, key: &str, value: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{key}={value}")
}

/// The server this test binary uses: [`URL_VAR`] if set, else one started
/// on first use (its start time printed once) and stopped when the binary
/// ends. Panics, saying why, if there is neither.
pub fn test_url() -> String {
    if let Ok(url) = std::env::var(URL_VAR) {
        return url;
    }
    static SERVER: OnceLock<Result<Server, String>> = OnceLock::new();
    let server = SERVER.get_or_init(|| {
        Server::start()
            .inspect(|s| {
                let mut err = std::io::stderr();
                let _ = writeln!(
                    err,
                    "retrace-test-postgres: a throwaway server started in {:.0?} at {}",
                    s.started_in(),
                    s.dir().display()
                );
            })
            .map_err(|e| e.to_string())
    });
    match server {
        Ok(s) => s.url().to_owned(),
        Err(e) => panic!("no Postgres server for the tests: {e}"),
    }
}
