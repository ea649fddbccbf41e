//! The crate graph's rules, checked with `cargo tree` (every feature on):
//! the layers below the store never pull in what the store needs (git2, a
//! database client), and never depend on the store; the store itself pulls
//! in no database client (that is `retrace-store-postgres`, above it); the
//! browser engine (retrace-wasm) is above the core only: no native I/O
//! crate, no UI framework (its plain build must not carry the viewer's
//! leptos); the server (`retrace-serve`: hyper, tokio) is reached by
//! nothing below the CLI.

use std::path::Path;

use anyhow::{bail, Result};

use crate::cmd::{cargo, output};

/// Crates (by package name) that each lower crate must not depend on,
/// directly or not.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "retrace-core",
        &[
            "git2",
            "retrace-io",
            "retrace-store",
            "retrace-wasm",
            "retrace-serve",
            "postgres",
            "tokio-postgres",
            "hyper",
            "tokio",
        ],
    ),
    (
        "retrace-io",
        &[
            "git2",
            "retrace-store",
            "retrace-wasm",
            "retrace-serve",
            "postgres",
            "tokio-postgres",
            "hyper",
            "tokio",
        ],
    ),
    (
        "retrace-wasm",
        &[
            "git2",
            "retrace-io",
            "retrace-store",
            "postgres",
            "tokio-postgres",
            "leptos",
            "retrace-serve",
            "hyper",
        ],
    ),
    // The Postgres store is a crate of its own, above the store.
    (
        "retrace-store",
        &[
            "retrace-store-postgres",
            "postgres",
            "tokio-postgres",
            "retrace-serve",
            "hyper",
        ],
    ),
    // The server reads sessions; it neither records nor reaches a database.
    (
        "retrace-serve",
        &[
            "retrace-store",
            "retrace-store-postgres",
            "postgres",
            "git2",
            "leptos",
        ],
    ),
];

pub fn check(root: &Path) -> Result<()> {
    println!("==> crate graph (cargo tree)");
    for (krate, forbidden) in FORBIDDEN {
        let tree = output(cargo().current_dir(root).args([
            "tree",
            "-p",
            krate,
            "--all-features",
            "-e",
            "normal,build",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ]))?;
        let deps: Vec<&str> = tree
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        let found: Vec<&&str> = forbidden.iter().filter(|f| deps.contains(f)).collect();
        if !found.is_empty() {
            bail!("{krate} depends on {found:?}; `cargo tree -p {krate} -i <name>` shows how");
        }
        println!(
            "    {krate}: {} crates, none of {}",
            deps.len(),
            forbidden.join(", ")
        );
    }
    Ok(())
}
