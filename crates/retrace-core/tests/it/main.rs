//! The core's integration tests, as one test binary (one link instead of
//! one per file): each module tests one area through the public API, on the
//! shared corpus and the fixtures in `tests/fixtures`.

// The tests read corpus and fixture files from disk. The core itself does
// no I/O (its `clippy.toml` disallows `std::fs`, the environment and the
// clock in the whole package, tests included), so the tests opt out once,
// here.
#![allow(clippy::disallowed_methods)]

mod api_rules;
mod common;

mod bad_input;
mod bookmarks;
mod codex;
mod codex_rows;
mod compact;
mod compare;
mod context;
mod corpus;
mod edit_gemini;
mod edit_lists;
mod events;
mod figures;
mod fork;
mod framing;
mod gemini;
mod gzip;
mod hostile;
mod lists;
mod migrate;
mod reading;
mod reading_kinds;
mod redact;
mod redact_edges;
mod repair;
mod seal;
mod shared_logic;
mod transcript;
