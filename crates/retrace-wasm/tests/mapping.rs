//! One request kind = one engine method = one JS method, and none left
//! out: every kind is read from its JSON, dispatched by `Engine::call` to
//! the method that answers it (or, in a build without the kind's cargo
//! feature, refused with `unsupported`: run these with
//! `--no-default-features` too), exported by the direct class under its
//! JS name (building a request of that kind), and offered by the JS
//! worker client under the same name (sending that kind). The error codes
//! a caller matches on are pinned.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use retrace_wasm::engine::{Engine, Host, MemoryFiles, Outcome};
use retrace_wasm::protocol::{js_name, EngineError, ErrorCode, Event, Request, Response};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus() -> PathBuf {
    crate_dir().join("../../../shared/corpus")
}

/// A pi session with images, fork points and calls without a result.
const PI: &str = "pi/badlogic__pi-mono/compact.jsonl";

/// One request of each kind, as JSON.
const SAMPLES: [&str; 20] = [
    r#"{"kind":"open","leaf_label":null,"entry":null}"#,
    r#"{"kind":"open_folder","paths":["p/compact.jsonl","p/copy.jsonl","p/notes.txt"]}"#,
    r#"{"kind":"open_listed","session":0}"#,
    r#"{"kind":"branch","leaf":LEAF}"#,
    r#"{"kind":"bodies","leaf":LEAF,"start":0,"end":3}"#,
    r#"{"kind":"search","query":"image","filter":{"user":true,"assistant":true,"tool":true,"events":false}}"#,
    r#"{"kind":"stats"}"#,
    r#"{"kind":"image","leaf":LEAF,"row":ROW,"image":0}"#,
    r#"{"kind":"previews","segments":[0]}"#,
    r#"{"kind":"hide_sensitive","hide":true}"#,
    r#"{"kind":"review","disable":["email"],"allow":[{"file":0,"kind":"jwt","line":4,"hash":"00000000000000ff"}]}"#,
    r#"{"kind":"scan"}"#,
    r#"{"kind":"download","file":0,"mode":"mask","disable":[],"allow":[]}"#,
    r#"{"kind":"edit_points","leaf":LEAF}"#,
    r#"{"kind":"fork","leaf":LEAF,"row":0}"#,
    r#"{"kind":"seal","leaf":LEAF}"#,
    r#"{"kind":"compare","left":LEAF,"right":LEAF}"#,
    r#"{"kind":"tree"}"#,
    r#"{"kind":"context","leaf":LEAF}"#,
    r#"{"kind":"migrate","leaf":LEAF,"to":"anthropic"}"#,
];

/// What each kind is answered with (`later`: by background work;
/// `unsupported`: refused with that code, by a build without its feature).
fn answer_kind(request: &str) -> &'static str {
    if !cfg!(feature = "api") && Request::API_KINDS.contains(&request) {
        return "unsupported";
    }
    match request {
        "open" | "open_listed" => "opened",
        "open_folder" => "folder",
        "search" => "search_results",
        "hide_sensitive" | "review" | "scan" => "done",
        "download" => "later",
        "fork" | "seal" => "file",
        "branch" => "branch",
        "bodies" => "bodies",
        "stats" => "stats",
        "image" => "image",
        "previews" => "previews",
        "edit_points" => "edit_points",
        "compare" => "comparison",
        "tree" => "tree",
        "context" => "context",
        "migrate" => "migration",
        other => panic!("no answer kind for `{other}`"),
    }
}

#[derive(Default)]
struct Quiet;

impl Host for Quiet {
    fn clock_ms(&mut self) -> f64 {
        0.0
    }
    fn unix_ms(&mut self) -> i64 {
        0
    }
    fn random(&mut self) -> [u8; 16] {
        [7; 16]
    }
    fn event(&mut self, _: Event) {}
    fn chunk(&mut self, _: u32, _: &[u8]) {}
    fn reply(&mut self, _: u32, _: Result<Response, EngineError>) {}
}

fn kind_of(response: &Response) -> String {
    serde_json::to_value(response).unwrap()["kind"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn every_request_kind_reaches_its_engine_method() {
    let bytes = std::fs::read(corpus().join(PI)).unwrap();
    // `open` reads one session; `open_folder` a folder of two (the same
    // bytes), which it lists for `open_listed`.
    let files = |kind: &str| {
        let mut f = MemoryFiles::new();
        f.add("compact.jsonl", bytes.clone());
        if kind == "open_folder" {
            f.add("copy.jsonl", bytes.clone());
            f.add("notes.txt", b"not a session".as_slice());
        }
        f
    };
    let mut engine: Engine<MemoryFiles> = Engine::new();
    let mut host = Quiet;
    let opened = engine
        .call_now(
            0,
            Request::from_json(SAMPLES[0]).unwrap(),
            Some(files("open")),
            &mut host,
        )
        .unwrap();
    let Some(Response::Opened(summary)) = opened else {
        panic!("not opened: {opened:?}");
    };
    let leaf = summary.default_leaf.unwrap();
    let Response::Branch(branch) = engine
        .call_now(0, Request::Branch { leaf }, None, &mut host)
        .unwrap()
        .unwrap()
    else {
        panic!("no branch");
    };
    // The first row with an image: a `read` of a PNG, line 812.
    let row = branch.rows.line.iter().position(|&l| l == 812).unwrap();

    let mut kinds = BTreeSet::new();
    let mut refused = BTreeSet::new();
    for (i, sample) in SAMPLES.iter().enumerate() {
        let sample = sample
            .replace("LEAF", &leaf.to_string())
            .replace("ROW", &row.to_string());
        let request = match Request::from_json(&sample) {
            Ok(request) => request,
            // A kind of a feature this build was made without.
            Err(e) if e.code == ErrorCode::Unsupported => {
                let kind = Request::KINDS
                    .iter()
                    .find(|k| sample.contains(&format!(r#""kind":"{k}""#)))
                    .unwrap();
                assert_eq!(answer_kind(kind), "unsupported", "{kind}");
                let feature = Request::feature(kind).unwrap();
                assert!(
                    e.message.contains(&format!("cargo feature `{feature}`")),
                    "{kind}: {e}"
                );
                kinds.insert(*kind);
                refused.insert(*kind);
                continue;
            }
            Err(e) => panic!("{sample}: {e}"),
        };
        let kind = request.kind();
        kinds.insert(kind);
        let files = request.takes_files().then(|| files(kind));
        let got = match engine.call(i as u32, request, files, &mut host) {
            Ok(Outcome::Reply(r)) => kind_of(&r),
            Ok(Outcome::Later) => "later".to_owned(),
            Ok(Outcome::Opening(o)) => {
                let read = retrace_wasm::engine::ready(o.read(|| 0.0, |_| true)).unwrap();
                kind_of(&engine.opened(read, &mut host).unwrap())
            }
            Err(e) if !Request::built(kind) => {
                // A build without the kind's feature says which.
                let feature = Request::feature(kind).unwrap();
                assert_eq!(e.code, ErrorCode::Unsupported, "{kind}: {e}");
                assert!(
                    e.message.contains(&format!("cargo feature `{feature}`")),
                    "{kind}: {e}"
                );
                refused.insert(kind);
                continue;
            }
            Err(e) => panic!("{kind}: {e}"),
        };
        assert!(
            Request::built(kind),
            "{kind} answered in a build without it"
        );
        assert_eq!(got, answer_kind(kind), "{kind}");
    }
    let all: BTreeSet<&str> = Request::KINDS.into_iter().collect();
    assert_eq!(kinds, all, "a sample of each kind");
    // The kinds of the features this build has are answered, the others
    // refused; the player's build (none of them) keeps only what a player
    // asks.
    let unbuilt: BTreeSet<&str> = all.iter().copied().filter(|k| !Request::built(k)).collect();
    assert_eq!(refused, unbuilt);
    let features = ["compare", "edit", "folders", "search", "share", "stats"];
    let built: Vec<&str> = features
        .into_iter()
        .filter(|f| {
            all.iter()
                .any(|k| Request::feature(k) == Some(f) && Request::built(k))
        })
        .collect();
    let enabled: Vec<&str> = features
        .into_iter()
        .filter(|f| match *f {
            "compare" => cfg!(feature = "compare"),
            "edit" => cfg!(feature = "edit"),
            "folders" => cfg!(feature = "folders"),
            "search" => cfg!(feature = "search"),
            "share" => cfg!(feature = "share"),
            _ => cfg!(feature = "stats"),
        })
        .collect();
    assert_eq!(
        built, enabled,
        "Request::built follows the build's features"
    );
    if enabled.is_empty() {
        let kept: Vec<&str> = all.difference(&unbuilt).copied().collect();
        assert_eq!(
            kept,
            [
                "bodies",
                "branch",
                "hide_sensitive",
                "image",
                "open",
                "previews"
            ]
        );
    }
}

/// Every optional feature of the crate's manifest maps kinds, and each
/// kind's feature is one of them.
#[test]
fn the_features_are_one_list() {
    let manifest = std::fs::read_to_string(crate_dir().join("Cargo.toml")).unwrap();
    let default = manifest
        .lines()
        .find_map(|l| l.strip_prefix("default = "))
        .expect("a default feature list");
    let mut named: Vec<&str> = Request::KINDS
        .iter()
        .filter_map(|k| Request::feature(k))
        .collect();
    named.sort_unstable();
    named.dedup();
    // Each has its line in the manifest's table of features.
    for feature in &named {
        let line = format!("#   {feature} ");
        assert!(manifest.contains(&line), "no `{line}` in Cargo.toml");
    }
    // The viewer's are on by default; `api` (scripts' kinds) is not.
    named.retain(|f| *f != "api");
    let listed: Vec<&str> = default
        .trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|f| f.trim().trim_matches('"'))
        .collect();
    assert_eq!(
        listed, named,
        "`default` lists each kind's feature but `api`, sorted"
    );
}

/// The body of the `impl` block that follows `marker` in `source`.
fn block_after<'a>(source: &'a str, marker: &str) -> &'a str {
    let at = source
        .find(marker)
        .unwrap_or_else(|| panic!("no `{marker}`"));
    let open = at + source[at..].find('{').unwrap();
    let mut depth = 0;
    for (i, c) in source[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &source[open..open + i];
                }
            }
            _ => {}
        }
    }
    panic!("`{marker}` is never closed");
}

fn pascal(kind: &str) -> String {
    let camel = js_name(kind);
    let mut chars = camel.chars();
    let first = chars.next().unwrap().to_ascii_uppercase();
    std::iter::once(first).chain(chars).collect()
}

/// What a method does with its name: the text up to the next method.
fn method_text<'a>(body: &'a str, at: usize, next: &[usize]) -> &'a str {
    let end = next.iter().copied().find(|&n| n > at).unwrap_or(body.len());
    &body[at..end]
}

#[test]
fn the_direct_class_exports_one_method_per_kind() {
    let source = std::fs::read_to_string(crate_dir().join("src/js/direct.rs")).unwrap();
    let body = block_after(&source, "#[wasm_bindgen(js_class = Engine)]");
    let starts: Vec<usize> = body.match_indices("js_name = ").map(|(i, _)| i).collect();
    let mut names = BTreeSet::new();
    for &at in &starts {
        let rest = &body[at + "js_name = ".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if let Some(kind) = Request::KINDS.iter().find(|k| js_name(k) == name) {
            // Its method builds a request of its kind.
            let text = method_text(body, at, &starts);
            let built = format!("Request::{}", pascal(kind));
            assert!(text.contains(&built), "`{name}` does not build {built}");
        }
        names.insert(name);
    }
    let mut want: BTreeSet<String> = Request::KINDS.iter().map(|k| js_name(k)).collect();
    // The transport's own: events, and letting the session go.
    want.extend(["listen".to_owned(), "close".to_owned()]);
    assert_eq!(names, want);
}

#[test]
fn the_worker_client_offers_the_same_names() {
    let source = std::fs::read_to_string(crate_dir().join("js/client.js")).unwrap();
    let body = block_after(&source, "export class WorkerClient");
    // Methods sit at two spaces; private ones start with `#`.
    let mut starts = Vec::new();
    let mut names = BTreeSet::new();
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("  ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            if !name.is_empty() && rest[name.len()..].starts_with('(') {
                starts.push(at);
                names.insert(name);
            }
        }
        at += line.len();
    }
    for kind in Request::KINDS {
        let name = js_name(kind);
        let from = body
            .find(&format!("\n  {name}("))
            .unwrap_or_else(|| panic!("no method `{name}`"))
            + 1;
        let text = method_text(body, from, &starts);
        assert!(
            text.contains(&format!("kind: '{kind}'")),
            "`{name}` does not send `{kind}`"
        );
    }
    let mut want: BTreeSet<String> = Request::KINDS.iter().map(|k| js_name(k)).collect();
    want.extend(["constructor", "listen", "close"].map(str::to_owned));
    assert_eq!(names, want);
    // The codes it writes itself are the engine's.
    for code in ["closed", "internal"] {
        assert!(ErrorCode::ALL.iter().any(|c| c.as_str() == code), "{code}");
    }
}

#[test]
fn the_declarations_name_one_method_per_kind() {
    let source = std::fs::read_to_string(crate_dir().join("js/index.d.ts")).unwrap();
    let body = block_after(&source, "export interface EngineMethods");
    // Methods sit at two spaces, their doc comments above them.
    let names: BTreeSet<String> = body
        .lines()
        .filter_map(|line| line.strip_prefix("  "))
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect::<String>()
        })
        .filter(|name| !name.is_empty())
        .collect();
    let want: BTreeSet<String> = Request::KINDS.iter().map(|k| js_name(k)).collect();
    assert_eq!(names, want);
    // Both classes take them from there; the worker's as promises.
    assert!(source.contains("export interface Engine extends EngineMethods {}"));
    assert!(source.contains("export interface WorkerClient extends Promised<EngineMethods> {}"));
}

#[cfg(not(feature = "api"))]
#[test]
fn a_build_without_api_refuses_its_kinds() {
    // Read, and refused: the transports answer the request with it.
    for kind in Request::API_KINDS {
        let sample = SAMPLES
            .iter()
            .find(|s| s.contains(&format!(r#""kind":"{kind}""#)))
            .unwrap()
            .replace("LEAF", "1");
        let e = Request::from_json(&sample).unwrap_err();
        assert_eq!(e.code, ErrorCode::Unsupported, "{kind}");
        assert_eq!(
            e.message,
            format!("`{kind}` is not in this build of the engine (cargo feature `api`; the npm package has it)")
        );
    }
}

#[test]
fn error_codes_are_stable() {
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(
        codes,
        [
            "bad-request",
            "no-session",
            "not-found",
            "not-a-session",
            "unreadable",
            "superseded",
            "edit-refused",
            "nothing-to-send",
            "unsupported",
            "closed",
            "internal",
        ]
    );
    for code in ErrorCode::ALL {
        assert_eq!(
            serde_json::to_string(&code).unwrap(),
            format!("\"{}\"", code.as_str())
        );
        let back: ErrorCode = serde_json::from_str(&format!("\"{}\"", code.as_str())).unwrap();
        assert_eq!(back, code);
        assert_eq!(ErrorCode::parse(code.as_str()), code);
    }
    // A code from a newer engine is a fault this one cannot name better.
    assert_eq!(ErrorCode::parse("out-of-coffee"), ErrorCode::Internal);
    let e = EngineError::new(ErrorCode::NotFound, "no row 3");
    assert_eq!(
        serde_json::to_string(&e).unwrap(),
        r#"{"code":"not-found","message":"no row 3"}"#
    );
    // The worker script writes its failure by hand, with a code of these.
    let script = std::fs::read_to_string(crate_dir().join("js/worker.js")).unwrap();
    assert!(script.contains("code: 'internal'"));
    assert!(Path::new(&crate_dir().join("js/client.js")).is_file());
}
