//! Migration to each API of the context of the default branch of any
//! file (read as a format chosen by the input, or detected). Beyond no
//! panic, for every API:
//!
//! - `report` says what `migrate`'s report says, and migrating twice gives
//!   the same body (no clock, no random source);
//! - the body, written as JSON and read back as that API's message list,
//!   opens with every byte accounted for and no malformed JSON;
//! - migrating what it reads back gives the same body: a migrated history
//!   is a fixed point (what a round trip normalizes, it normalized once),
//!   unless it has nothing to send (`try_migrate` refuses it: a body of
//!   system prompts alone reads back as no history).
//!
//! Control bytes: [0] the chunking, [1] the format (odd: forced, one of
//! `Format::NAMES`; even: detected).
#![no_main]

use libfuzzer_sys::fuzz_target;
use retrace_core::migrate::{migrate, report, try_migrate};
use retrace_core::{Api, ContextOptions, DiagnosticKind, FileId, Format, ReaderOptions, Session};
use retrace_fuzz::{assert_lossless, chunking, format_of, read, split};

fn history(s: &Session, bytes: &[u8]) -> Vec<retrace_core::Message> {
    match s.tree().default_leaf() {
        Some(leaf) => s
            .context_with(leaf, &mut &bytes[..], ContextOptions { payloads: true })
            .expect("bytes in memory"),
        None => Vec::new(),
    }
}

fuzz_target!(|data: &[u8]| {
    let (control, bytes) = split(data);
    let options = ReaderOptions {
        format: format_of(control[1]),
        ..ReaderOptions::default()
    };
    let s = read("f.jsonl", bytes, &chunking(control[0], bytes), options);
    let messages = history(&s, bytes);
    for api in Api::ALL {
        let m = migrate(&messages, api);
        assert_eq!(report(&messages, api), m.report, "{api}: report");
        assert_eq!(
            migrate(&messages, api).body,
            m.body,
            "{api}: not deterministic"
        );
        let written = serde_json::to_vec(&m.body).expect("a body serializes");
        let options = ReaderOptions {
            format: Some(Format::MessageList { api }),
            ..ReaderOptions::default()
        };
        let back = read("body.json", &written, &[0..written.len()], options);
        assert_lossless(&back, FileId(0), &written);
        let malformed: Vec<_> = back
            .diagnostics()
            .iter()
            .filter(|d| d.kind == DiagnosticKind::MalformedJson)
            .collect();
        assert!(malformed.is_empty(), "{api}: {malformed:?}");
        if try_migrate(&messages, api).is_err() {
            // Nothing to send (system prompts at most): no list to read
            // back a history from.
            continue;
        }
        let again = migrate(&history(&back, &written), api);
        assert_eq!(
            again.body, m.body,
            "{api}: migrating the migrated history changed it"
        );
    }
});
