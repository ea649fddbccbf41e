//! Redaction: secrets and personal data taken out of any JSON-lines
//! session, verifiably.
//!
//! - [`Rules`]: built-in rules for 50+ kinds ([`Rules::kinds`]), plus custom
//!   rules, an allowlist and disabled kinds from configuration data
//!   (`Rules::with_config`, with the default `custom-rules` feature, which
//!   brings the `regex`, `aho-corasick` and `toml` crates; the viewer's
//!   worker goes without them to stay small).
//! - [`Exceptions`]: kinds and single findings a review decided are not
//!   sensitive (`Rules::with_exceptions`), written as a rules file the CLI
//!   reads back (`Exceptions::to_toml`).
//! - [`Redactor`]: push chunks of a file, get the redacted bytes and the
//!   [`Finding`]s (kind, line, JSON path, span; never the value) and a
//!   [`Summary`]. Each changed line is re-scanned (the verify pass); what
//!   it finds is counted in [`Summary::leftovers`].
//! - [`findings_in`]: the matches in one entry's JSON, for a viewer to
//!   highlight.
//! - [`RedactingSource`]: a [`Source`](crate::Source) whose bytes come out
//!   redacted, so a view shows bodies, previews and snippets with typed
//!   placeholders.
//!
//! The rules see decoded string values, also inside JSON held in strings
//! (tool arguments and outputs), and keys; only matched bytes of the raw
//! line are rewritten, so everything else keeps its bytes. Integers that
//! are personal data (a card number, a phone number under a `phone` key)
//! are replaced whole, by their placeholder as a string: the one change
//! of a value's type (counted in [`Summary::numbers_as_strings`]). Base64 payloads (images,
//! thinking signatures, encrypted reasoning) are skipped. The output does
//! not depend on chunking and uses no clock or randomness.

// Declared bottom-up: a module uses only those above it. The detectors
// (`home` … `number`) write to `hit`; `scanner` runs the text ones, `rules`
// runs it and the number rules.
mod chars;
mod checksum;
mod kind;
mod placeholder;
mod hit;
mod home;
mod svg;
mod assign;
mod pem;
mod pii;
mod tokens;
mod url;
mod number;
mod scanner;
mod rules;
mod exceptions;
#[cfg(feature = "custom-rules")]
mod custom;
mod mode;
mod report;
mod json;
mod stream;
mod source;

#[cfg(feature = "custom-rules")]
pub use custom::RulesError;
pub use exceptions::{hash_hex, parse_hash, value_hash, AllowedFinding, Exceptions};
pub use kind::{KindId, KindInfo, Tier};
pub use mode::{typed_placeholders, Mode};
pub use report::{BrokenLine, Finding, Leftover, Summary};
pub use rules::{Rules, TextMatch};
pub use source::{FindingSink, RedactingSource};
pub use stream::{
    findings_in, opens_document, Redactor, Scanned, ValueFinding, REVEAL_CLOSE, REVEAL_OPEN,
};
