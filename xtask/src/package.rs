//! `cargo xtask package`: the npm package `retrace-wasm` in
//! `dist-package/`, a folder `npm pack` and `npm publish` take as it is:
//! the engine with the `api` kinds (the direct `Engine`, `startWorker`), its
//! worker script and JS client, the browser entry (`index.js`, the wasm
//! found beside it with `new URL(…, import.meta.url)`) and the Node one
//! (`node.js`, the `node` export condition: the wasm read from its file),
//! their TypeScript declarations (`protocol.d.ts` generated from the Rust
//! types, `index.d.ts` and `node.d.ts` over them), the package's README
//! and `package.json`; `player/`, `<retrace-player>` and its iframe
//! embed over their own slim build (`cargo xtask player`'s folder), the
//! `./player` export. Everything comes from `crates/retrace-wasm/js/` but
//! the wasm and its glue; `tests/package` and `tests/e2e/package.test.mjs`
//! load the folder as a user would.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::cmd::{cargo, output};
use crate::{engine, player, root};

/// The crate's JS files the package carries, beside the wasm and its glue.
const FILES: [&str; 8] = [
    "index.js",
    "node.js",
    "worker.js",
    "client.js",
    "index.d.ts",
    "node.d.ts",
    "protocol.d.ts",
    "README.md",
];

pub fn run(args: &[String]) -> Result<()> {
    if let Some(extra) = args.first() {
        bail!("`package` takes no arguments (got `{extra}`)");
    }
    let out = build(&root())?;
    let mut total = 0;
    for (name, raw, gz) in sizes(&out)? {
        println!("    {name}: {raw} B, {gz} B gzipped");
        if name.ends_with(".wasm") || name.ends_with(".js") {
            total += gz;
        }
    }
    println!(
        "==> {}: the npm package retrace-wasm; its code (wasm and JS) {total} B gzipped",
        out.display()
    );
    Ok(())
}

/// Builds the package into `dist-package/` and returns that folder.
pub fn build(root: &Path) -> Result<PathBuf> {
    let out = root.join("dist-package");
    engine::build_into(
        root,
        &out,
        "the package's: direct transport and the api kinds",
        &["--features", "direct,api"],
    )?;
    engine::copy_scripts(root, &out, &FILES)?;
    // `<retrace-player>` and its embed, over their own slim build.
    player::build_into(root, &out.join("player"))?;
    let license = root.join("LICENSE");
    if license.is_file() {
        std::fs::copy(&license, out.join("LICENSE")).context("copying LICENSE")?;
    }
    // wasm-bindgen's own leftovers: the package has its own `package.json`.
    let _ = std::fs::remove_file(out.join(".gitignore"));
    let version = version(root)?;
    let manifest = manifest(&version, &files(&out)?);
    // What it writes must be JSON: a typo in the text below fails here.
    serde_json::from_str::<serde_json::Value>(&manifest).context("package.json is not JSON")?;
    std::fs::write(out.join("package.json"), manifest).context("writing package.json")?;
    Ok(out)
}

/// The workspace's version, which the package's is.
fn version(root: &Path) -> Result<String> {
    let json = output(
        cargo()
            .args(["metadata", "--format-version", "1", "--no-deps"])
            .current_dir(root),
    )?;
    let meta: serde_json::Value =
        serde_json::from_str(&json).context("reading `cargo metadata`")?;
    meta["packages"]
        .as_array()
        .and_then(|p| p.iter().find(|p| p["name"] == "retrace-wasm"))
        .and_then(|p| p["version"].as_str())
        .map(str::to_owned)
        .context("`cargo metadata` has no version of retrace-wasm")
}

/// What `files` lists: every file and folder of the package (npm adds
/// `package.json` itself), so a folder added to it is published with it.
fn files(out: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(out)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "package.json" {
            continue;
        }
        names.push(if entry.file_type()?.is_dir() {
            format!("{name}/")
        } else {
            name
        });
    }
    names.sort();
    Ok(names)
}

/// `package.json`, written as text: the order of `exports` conditions is
/// their priority (`node` before `default`), which a JSON map would sort
/// away. A folder the package carries gets its line in `exports`.
fn manifest(version: &str, files: &[String]) -> String {
    let files = serde_json::to_string(files).expect("strings");
    format!(
        r#"{{
  "name": "retrace-wasm",
  "version": "{version}",
  "description": "Read, search, redact and migrate the session files LLM agents write (Claude Code, Codex, Gemini CLI, pi, provider message lists), in the browser and in Node: the retrace engine as WebAssembly",
  "keywords": ["llm", "agent", "session", "transcript", "claude-code", "codex", "redaction", "wasm"],
  "license": "MIT",
  "type": "module",
  "engines": {{ "node": ">=20" }},
  "types": "./index.d.ts",
  "exports": {{
    ".": {{
      "node": {{ "types": "./node.d.ts", "default": "./node.js" }},
      "default": {{ "types": "./index.d.ts", "default": "./index.js" }}
    }},
    "./player": {{ "types": "./player/player.d.ts", "default": "./player/player.js" }},
    "./player/*": "./player/*",
    "./worker.js": "./worker.js",
    "./retrace_wasm_bg.wasm": "./retrace_wasm_bg.wasm",
    "./package.json": "./package.json"
  }},
  "files": {files}
}}
"#
    )
}

/// Each file of `dir` (in folders too, `/` between) with its size and its
/// size gzipped at the best level, by name.
pub fn sizes(dir: &Path) -> Result<Vec<(String, u64, u64)>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let bytes = std::fs::read(&path)?;
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            gz.write_all(&bytes)?;
            let name = path.strip_prefix(dir)?.to_string_lossy().replace('\\', "/");
            out.push((name, bytes.len() as u64, gz.finish()?.len() as u64));
        }
    }
    out.sort();
    Ok(out)
}
