//! The throwaway server starts within its budget, answers on its socket,
//! restarts, and leaves nothing behind when dropped.

use std::process::Command;
use std::time::Duration;

use retrace_test_postgres::{bin_dir, Server, Stop};

/// `psql -tA -c SQL` against `url`.
fn psql(url: &str, sql: &str) -> String {
    let out = Command::new(bin_dir().unwrap().join("psql"))
        .args(["-X", "-tA", "-d", url, "-c", sql])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "psql: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn a_server_starts_answers_restarts_and_is_gone_when_dropped() {
    let server = Server::start().unwrap();
    eprintln!("started in {:.0?} (target: 2 s)", server.started_in());
    // The target is 2 s (0.6 to 1.3 s here when the machine is not
    // shared; 11 s was seen under other jobs' load); this bound only
    // catches a start that hangs on something.
    assert!(
        server.started_in() < Duration::from_secs(30),
        "{:?}",
        server.started_in()
    );
    assert_eq!(psql(server.url(), "select 1"), "1");
    // Honest durability, for the crash tests.
    assert_eq!(psql(server.url(), "show fsync"), "on");
    assert_eq!(psql(server.url(), "show synchronous_commit"), "on");
    // No TCP port.
    assert_eq!(psql(server.url(), "show listen_addresses"), "");
    psql(
        server.url(),
        "create table t (n int); insert into t values (7)",
    );
    server.restart(Stop::Immediate).unwrap();
    assert_eq!(psql(server.url(), "select n from t"), "7");
    server.restart(Stop::Fast).unwrap();
    assert_eq!(psql(server.url(), "select n from t"), "7");
    let dir = server.dir().to_path_buf();
    assert!(dir.join("data").is_dir());
    drop(server);
    assert!(!dir.exists(), "{} is left", dir.display());
}
