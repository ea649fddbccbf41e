//! `retrace serve [DIR…]`: retrace-serve's server over the folders named,
//! or the agents' folders under `$HOME` and the store's root. This file
//! only reads the environment (home, `RETRACE_STORE`, the cache folder),
//! the arguments and the embedded viewer, and prints where it listens.

use anyhow::Result;

use crate::args::{ReadArgs, ServeArgs};
use crate::commands::Run;
use crate::exit::ExitStatus;
use crate::printer::Printer;

impl Run for ServeArgs {
    fn run(&self, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
        run(self, read, printer)
    }
}

#[cfg(not(feature = "serve"))]
fn run(_args: &ServeArgs, _read: &ReadArgs, _printer: &mut Printer) -> Result<ExitStatus> {
    Err(crate::errors::InputError::new(
        "this retrace was built without its `serve` feature: build it with the default \
         features (`cargo install --path crates/retrace-cli`, or `--features serve`)",
    )
    .on("serve"))
}

#[cfg(feature = "serve")]
fn run(args: &ServeArgs, read: &ReadArgs, printer: &mut Printer) -> Result<ExitStatus> {
    use std::io::Write;
    use std::net::{IpAddr, Ipv4Addr, SocketAddr};
    use std::path::PathBuf;
    use std::time::Instant;

    use crate::errors::InputError;

    let viewer = crate::viewer::files().map_err(|e| e.on("serve"))?;
    let env_path = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let places = retrace_serve::Places {
        home: env_path("HOME"),
        store: env_path("RETRACE_STORE"),
        cwd: std::env::current_dir().ok(),
    };
    let roots = retrace_serve::roots(&args.dirs, &places);
    if roots.is_empty() {
        return Err(InputError::new(
            "none of the agents' session folders exists (~/.claude/projects, ~/.codex/sessions, \
             ~/.codex/archived_sessions, ~/.gemini/tmp, ~/.pi/agent/sessions, the store's root); \
             name a folder to serve",
        )
        .on("serve"));
    }
    let cache_dir = match (&args.cache, args.no_cache) {
        (_, true) => None,
        (Some(dir), false) => Some(dir.clone()),
        (None, false) => env_path("XDG_CACHE_HOME")
            .or_else(|| places.home.as_ref().map(|h| h.join(".cache")))
            .map(|d| d.join("retrace")),
    };
    let ip = args.bind.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    if !ip.is_loopback() {
        printer.warn(&format!(
            "listening on {ip}: anyone who can reach this address can read every session served"
        ))?;
    }
    let host = match ip {
        IpAddr::V6(v6) => format!("[{v6}]"),
        IpAddr::V4(v4) => v4.to_string(),
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let config = retrace_serve::Config {
        cache_file: cache_dir.map(|d| retrace_serve::cache_file(&d, &roots)),
        roots,
        viewer: retrace_serve::Viewer::new(viewer),
        threads,
        // The inflate limit only: `--format` names one file's format,
        // and a server reads every agent's.
        reader: retrace_core::ReaderOptions {
            max_inflated: read.max_inflated,
            ..retrace_core::ReaderOptions::default()
        },
        // Its name is answered to as well as the loopback names.
        bound: args.bind.map(|_| host.clone()),
    };
    let started = Instant::now();
    let (catalog, built, note) = retrace_serve::open_catalog(&config);
    if let Some(note) = note {
        printer.warn(&note)?;
    }
    for problem in &catalog.problems {
        printer.warn(problem)?;
    }
    let n = catalog.entries.len();
    printer.note(&format!(
        "{n} session{} ({} read, {} from the cache) in {:.2} s",
        if n == 1 { "" } else { "s" },
        built.read,
        built.reused,
        started.elapsed().as_secs_f64()
    ))?;
    let running = retrace_serve::start(SocketAddr::new(ip, args.port), config, catalog)
        .map_err(|e| InputError::io(&e).on(format!("serve: {ip}:{}", args.port)))?;
    let url = format!("http://{host}:{}/", running.addr.port());
    writeln!(printer.stdout(), "{url}")?;
    printer.flush()?;
    if args.open {
        open_browser(&url, printer)?;
    }
    running.wait().map_err(|e| InputError::io(&e).on("serve"))?;
    Ok(ExitStatus::Success)
}

/// Opens `url` with the system's opener; a failure is a warning (the URL
/// is printed).
#[cfg(feature = "serve")]
fn open_browser(url: &str, printer: &mut Printer) -> Result<()> {
    let opener = match std::env::consts::OS {
        "macos" => "open",
        "windows" => "explorer",
        _ => "xdg-open",
    };
    if let Err(e) = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        printer.warn(&format!(
            "cannot open a browser ({opener}: {e}); open {url}"
        ))?;
    }
    Ok(())
}
