//! The TypeScript declarations of everything that crosses (`js/protocol.d.ts`)
//! are the Rust types' own: ts-rs derives them beside serde's derives,
//! honouring serde's attributes (tags, renames, skips), from the protocol's
//! roots (requests, answers, events, errors) and every type they hold, the
//! core's included. The file is checked in; this test fails when it is
//! stale. `UPDATE_TYPES=1` writes it again (then review the diff).
//!
//! The classes (`Engine`, `WorkerClient`, `init`) are declared by hand in
//! `js/index.d.ts` over these; `tests/package` checks both with `tsc`.

#![cfg(feature = "ts")]

use std::any::TypeId;
use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use retrace_core::redact::Mode;
use retrace_wasm::protocol::{EngineError, Event, Request, Response};
use ts_rs::{Config, TypeVisitor, TS};

const HEADER: &str = "\
// The values that cross between retrace-wasm's engine and JS, generated from
// the Rust types (ts-rs, crates/retrace-wasm/tests/types.rs): do not edit.
// `UPDATE_TYPES=1 cargo test -p retrace-wasm --features ts --test types`
// writes it again. Integers are numbers: values cross as JSON would carry
// them (serde-wasm-bindgen's JSON-compatible serializer).
";

/// Every declared type reached from the roots: name → (type, declaration).
struct Collect<'a> {
    cfg: &'a Config,
    seen: HashSet<TypeId>,
    decls: BTreeMap<String, (&'static str, String)>,
}

impl TypeVisitor for Collect<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Primitives and containers have no declaration of their own.
        if T::output_path().is_none() || !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        let name = T::ident(self.cfg);
        let rust = std::any::type_name::<T>();
        let decl = format!(
            "{}export {}",
            T::docs().unwrap_or_default(),
            T::decl(self.cfg)
        );
        match self.decls.get(&name) {
            // A type declared as another is (`serde_json::Value` as
            // ts-rs's `JsonValue`).
            Some((_, same)) if *same == decl => {}
            Some((other, _)) => panic!(
                "two types are `{name}` in TypeScript: {other} and {rust} (rename one with #[ts(rename)])"
            ),
            None => {
                self.decls.insert(name, (rust, decl));
            }
        }
        T::visit_dependencies(self);
    }
}

fn declarations() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut collect = Collect {
        cfg: &cfg,
        seen: HashSet::new(),
        decls: BTreeMap::new(),
    };
    collect.visit::<Request>();
    collect.visit::<Response>();
    collect.visit::<Event>();
    collect.visit::<EngineError>();
    let mut out = HEADER.to_owned();
    for (_, decl) in collect.decls.values() {
        out.push('\n');
        out.push_str(decl.trim_end());
        out.push('\n');
    }
    out
}

#[test]
fn the_checked_in_declarations_are_the_rust_types() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("js/protocol.d.ts");
    let want = declarations();
    if std::env::var_os("UPDATE_TYPES").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let first = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(have.lines().count().min(want.lines().count()));
        panic!(
            "{} is stale (first difference at line {}: {:?}, generated {:?}); \
             run `UPDATE_TYPES=1 cargo test -p retrace-wasm --features ts --test types` and review the diff",
            path.display(),
            first + 1,
            have.lines().nth(first).unwrap_or(""),
            want.lines().nth(first).unwrap_or(""),
        );
    }
}

#[test]
fn every_answer_and_value_is_declared() {
    let text = declarations();
    // The roots, each answer's value and the error shape.
    for name in [
        "Request",
        "Response",
        "Event",
        "EngineError",
        "ErrorCode",
        "Summary",
        "Figures",
        "FolderOpened",
        "BranchRows",
        "Bodies",
        "SearchResults",
        "StatsReport",
        "Image",
        "Previews",
        "EditPoints",
        "Made",
        "SessionTree",
        "Context",
        "Migration",
        "Report",
        "Message",
        "Part",
        "JsonValue",
    ] {
        assert!(
            text.contains(&format!("export type {name} = ")),
            "{name} is not declared"
        );
    }
    // Serde's shapes: a request tagged by `kind`, an answer by `kind` with
    // its `data`, codes kebab-case, a skipped field left out, a field
    // skipped when empty optional.
    assert!(text.contains(r#"{ "kind": "migrate", leaf: number, to: Api, }"#));
    assert!(text.contains(r#"{ "kind": "migration", "data": Migration }"#));
    assert!(text.contains(r#""nothing-to-send""#));
    assert!(
        text.contains("export type Made = { name: string, notes: Array<string>, };"),
        "a made file's bytes cross as a Blob beside it"
    );
    assert!(text.contains("revealed?: Array<string>"));
    // A redacted copy's modes are the core's.
    let modes = text
        .split(r#""download", file: number, mode: "#)
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .unwrap();
    let modes: Vec<&str> = modes.split(" | ").map(|m| m.trim_matches('"')).collect();
    assert_eq!(modes.len(), 3, "{modes:?}");
    assert!(modes.iter().all(|m| Mode::parse(m).is_some()), "{modes:?}");
    // A field left out when none is optional, not `null`.
    assert!(text.contains("model?: string,"));
    assert!(!text.contains("bigint"));
}
