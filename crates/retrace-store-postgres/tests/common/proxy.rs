//! A TCP proxy in front of the test server that can lose one answer: the
//! fault where the server commits a batch and the client never hears of
//! it. Every byte is passed on as it is, except that once armed, on the
//! next event sink's connection (`application_name` `retrace events …`),
//! the first statement's completion and the `ReadyForQuery` after it (the
//! implicit transaction committed) are held back and both sockets are
//! closed instead.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use postgres::config::Host;

/// The server's end: a unix socket or TCP.
enum Upstream {
    Unix(std::path::PathBuf),
    Tcp(String, u16),
}

trait Stream: Read + Write + Send {
    fn try_clone_box(&self) -> io::Result<Box<dyn Stream>>;
    fn close(&self);
}

impl Stream for UnixStream {
    fn try_clone_box(&self) -> io::Result<Box<dyn Stream>> {
        Ok(Box::new(self.try_clone()?))
    }
    fn close(&self) {
        let _ = self.shutdown(Shutdown::Both);
    }
}

impl Stream for TcpStream {
    fn try_clone_box(&self) -> io::Result<Box<dyn Stream>> {
        Ok(Box::new(self.try_clone()?))
    }
    fn close(&self) {
        let _ = self.shutdown(Shutdown::Both);
    }
}

pub struct Proxy {
    port: u16,
    user: String,
    dbname: String,
    armed: Arc<AtomicBool>,
    cuts: Arc<AtomicUsize>,
}

impl Proxy {
    /// A proxy to the server at `server_url` (its schema parameter, if
    /// any, left aside), on a free port of 127.0.0.1.
    pub fn start(server_url: &str) -> Proxy {
        let base = server_url
            .split_once("?schema=")
            .map_or(server_url, |(u, _)| u);
        let config = postgres::Config::from_str(base).unwrap();
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let upstream = match &config.get_hosts()[0] {
            Host::Unix(dir) => Upstream::Unix(dir.join(format!(".s.PGSQL.{port}"))),
            Host::Tcp(h) => Upstream::Tcp(h.clone(), port),
        };
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let proxy = Proxy {
            port: listener.local_addr().unwrap().port(),
            user: config.get_user().unwrap_or("postgres").to_owned(),
            dbname: config.get_dbname().unwrap_or("postgres").to_owned(),
            armed: Arc::default(),
            cuts: Arc::default(),
        };
        let upstream = Arc::new(upstream);
        let (armed, cuts) = (proxy.armed.clone(), proxy.cuts.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let (up, armed, cuts) = (upstream.clone(), armed.clone(), cuts.clone());
                std::thread::spawn(move || {
                    let _ = serve(client, &up, &armed, &cuts);
                });
            }
        });
        proxy
    }

    /// The proxy's URL (TCP to 127.0.0.1).
    pub fn url(&self) -> String {
        format!(
            "postgresql://{}@127.0.0.1:{}/{}",
            self.user, self.port, self.dbname
        )
    }

    /// Loses the answer to the next sink statement's commit.
    pub fn arm(&self) {
        self.armed.store(true, Ordering::SeqCst);
    }

    /// Answers lost so far.
    pub fn cuts(&self) -> usize {
        self.cuts.load(Ordering::SeqCst)
    }
}

fn serve(
    mut client: TcpStream,
    upstream: &Upstream,
    armed: &AtomicBool,
    cuts: &AtomicUsize,
) -> io::Result<()> {
    let mut server: Box<dyn Stream> = match upstream {
        Upstream::Unix(path) => Box::new(UnixStream::connect(path)?),
        Upstream::Tcp(h, p) => Box::new(TcpStream::connect((h.as_str(), *p))?),
    };
    // The startup message: its length, then the protocol and name/value
    // pairs; an SSL request first is refused ('N') as a server without
    // TLS would.
    let startup = loop {
        let mut len = [0u8; 4];
        client.read_exact(&mut len)?;
        let mut body = vec![0u8; u32::from_be_bytes(len) as usize - 4];
        client.read_exact(&mut body)?;
        if body[..4] == 80877103u32.to_be_bytes() {
            client.write_all(b"N")?;
            continue;
        }
        let mut all = len.to_vec();
        all.extend_from_slice(&body);
        break all;
    };
    let app = startup_param(&startup[8..], "application_name").unwrap_or_default();
    server.write_all(&startup)?;
    let sink = app.starts_with("retrace events ");

    let mut to_server = server.try_clone_box()?;
    let mut from_client = client.try_clone()?;
    std::thread::spawn(move || {
        let _ = io::copy(&mut from_client, &mut to_server);
        to_server.close();
    });

    // Server to client, a message at a time.
    let mut held: Vec<u8> = Vec::new();
    loop {
        let mut head = [0u8; 5];
        if server.read_exact(&mut head).is_err() {
            break;
        }
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]) as usize;
        let mut message = head.to_vec();
        message.resize(1 + len, 0);
        server.read_exact(&mut message[5..])?;
        let kind = head[0];
        if sink && (kind == b'C' || !held.is_empty()) && armed.load(Ordering::SeqCst) {
            held.extend_from_slice(&message);
            if kind == b'Z' && armed.swap(false, Ordering::SeqCst) {
                // Committed; the client never hears it.
                cuts.fetch_add(1, Ordering::SeqCst);
                server.close();
                let _ = client.shutdown(Shutdown::Both);
                return Ok(());
            }
            continue;
        }
        client.write_all(&message)?;
    }
    let _ = client.shutdown(Shutdown::Both);
    Ok(())
}

/// A value of the startup message's name/value pairs.
fn startup_param(pairs: &[u8], name: &str) -> Option<String> {
    let mut fields = pairs.split(|&b| b == 0);
    while let Some(k) = fields.next() {
        let v = fields.next()?;
        if k == name.as_bytes() {
            return Some(String::from_utf8_lossy(v).into_owned());
        }
    }
    None
}
