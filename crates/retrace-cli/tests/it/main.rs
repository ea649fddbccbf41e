//! The `retrace` binary, run on real corpus files and the repository's
//! fixtures: one test binary, a module per command (and one for what
//! every command shares). Each test snapshots whole runs with
//! [`retrace_snapshot!`]; where an output is too large to read in a
//! snapshot (a byte-for-byte copy of a big file, JSON of every entry), it
//! checks the parts that matter explicitly.

#[macro_use]
mod common;

mod args;
mod bookmarks;
mod cat;
mod checkpoints;
mod compact;
mod errors;
mod export;
mod export_html;
mod fork;
mod gemini;
mod hostile;
mod info;
mod list;
mod inputs;
mod migrate;
mod redact;
mod repair;
mod seal;
mod search;
mod serve;
mod show;
mod store;
mod store_postgres;
mod tree;
mod validate;
