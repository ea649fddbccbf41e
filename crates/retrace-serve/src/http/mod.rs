//! The HTTP side: hyper's HTTP/1.1 server on a current-thread tokio
//! runtime (reading files, indexing and searching go to its blocking
//! threads), every request checked by [`guard`] before [`routes`] answers
//! it.

pub mod body;
pub mod guard;
mod live;
pub mod range;
mod routes;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use retrace_core::ReaderOptions;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::catalog::{cache, Built, Cache, Catalog};
use crate::roots::Root;
use crate::viewer::Viewer;

/// The catalog is walked again (new and grown sessions) at most this
/// often, when the index page asks for it.
const REFRESH: Duration = Duration::from_secs(2);

/// What the server is given.
pub struct Config {
    pub roots: Vec<Root>,
    /// The cache file (`None`: no cache kept).
    pub cache_file: Option<PathBuf>,
    /// The viewer's files.
    pub viewer: Viewer,
    /// Threads that read and search sessions.
    pub threads: usize,
    /// How session files are read (`--max-inflated`: where a gzip file
    /// stops inflating).
    pub reader: ReaderOptions,
    /// An address other than loopback it was bound to (`--bind`): its
    /// `Host` is answered too.
    pub bound: Option<String>,
}

/// What the routes share.
pub struct App {
    pub config: Config,
    pub catalog: RwLock<Arc<Catalog>>,
    refreshed: Mutex<Instant>,
    pub hosts: guard::Hosts,
}

impl App {
    /// The catalog, walked again first when it is older than [`REFRESH`]
    /// (the cache in memory: only changed sessions are read).
    pub fn fresh_catalog(&self) -> Arc<Catalog> {
        let due = {
            let mut at = self.refreshed.lock().expect("not poisoned");
            let due = at.elapsed() >= REFRESH;
            if due {
                *at = Instant::now();
            }
            due
        };
        if due {
            let old = self.catalog();
            let (catalog, built) = Catalog::build(
                &self.config.roots,
                &old.cache(),
                self.config.threads,
                self.config.reader,
            );
            let catalog = Arc::new(catalog);
            if built.read > 0 {
                self.save(&catalog);
            }
            *self.catalog.write().expect("not poisoned") = catalog;
        }
        self.catalog()
    }

    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog.read().expect("not poisoned").clone()
    }

    fn save(&self, catalog: &Catalog) {
        if let Some(file) = &self.config.cache_file {
            if let Err(e) = catalog.cache().save(file) {
                eprintln!("retrace: the catalog's cache: {e}");
            }
        }
    }
}

/// The catalog for a start: built from the cache file (what it says of a
/// cache it could not use is returned), then saved back when anything was
/// read.
pub fn open_catalog(config: &Config) -> (Catalog, Built, Option<String>) {
    let (cache, note) = match &config.cache_file {
        Some(file) => Cache::load(file),
        None => (Cache::default(), None),
    };
    let (catalog, built) = Catalog::build(&config.roots, &cache, config.threads, config.reader);
    let mut note = note;
    if built.read > 0 || cache.len() != catalog.entries.len() {
        if let Some(file) = &config.cache_file {
            if let Err(e) = catalog.cache().save(file) {
                note = Some(format!("the catalog's cache: {e}"));
            }
        }
    }
    (catalog, built, note)
}

/// The cache file for `roots` under the cache folder.
pub fn cache_file(dir: &std::path::Path, roots: &[Root]) -> PathBuf {
    cache::file_for(dir, roots)
}

/// A server answering on its own thread (tests, and the CLI, which waits
/// on it).
pub struct Running {
    pub addr: SocketAddr,
    stop: watch::Sender<bool>,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl Running {
    /// Waits until the server stops (an error of its listener).
    pub fn wait(mut self) -> std::io::Result<()> {
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(std::io::Error::other("the server's thread panicked")),
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Binds `addr` (port 0: a free one) and serves `catalog` on a thread of
/// its own.
pub fn start(addr: SocketAddr, config: Config, catalog: Catalog) -> std::io::Result<Running> {
    let std_listener = std::net::TcpListener::bind(addr)?;
    std_listener.set_nonblocking(true)?;
    let addr = std_listener.local_addr()?;
    let app = Arc::new(App {
        hosts: guard::Hosts::new(addr.port(), config.bound.as_deref()),
        config,
        catalog: RwLock::new(Arc::new(catalog)),
        refreshed: Mutex::new(Instant::now()),
    });
    let (stop, stopped) = watch::channel(false);
    let thread = std::thread::Builder::new()
        .name("retrace-serve".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(accept(std_listener, app, stopped))
        })?;
    Ok(Running {
        addr,
        stop,
        thread: Some(thread),
    })
}

async fn accept(
    listener: std::net::TcpListener,
    app: Arc<App>,
    mut stopped: watch::Receiver<bool>,
) -> std::io::Result<()> {
    let listener = TcpListener::from_std(listener)?;
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                // A connection that failed before it was accepted
                // (reset, too many files) leaves the others served.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            _ = stopped.changed() => return Ok(()),
        };
        // Without it a small answer's body, written after its head, waits
        // for the head's ACK (Nagle), which the browser delays ~40 ms: a
        // body read of a few kilobytes took 45 ms instead of 3.
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let app = app.clone();
                async move { Ok::<_, std::convert::Infallible>(routes::answer(app, req).await) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
