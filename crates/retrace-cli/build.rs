//! The viewer inside the binary, for `retrace export --html`: when
//! `RETRACE_VIEWER_DIST` names the folder `cargo xtask dist` writes
//! (`dist/`), its page, stylesheet, wasm-bindgen JS, wasm and worker script
//! are embedded (`include_bytes!` of each, rebuilt when one changes);
//! otherwise the CLI builds without them (no trunk needed) and that export
//! says how to get a build that has them. `src/commands/session/viewer.rs`
//! includes what this writes.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

const VAR: &str = "RETRACE_VIEWER_DIST";

fn main() {
    println!("cargo:rerun-if-env-changed={VAR}");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("viewer.rs");
    let code = match env::var_os(VAR).filter(|d| !d.is_empty()) {
        Some(dir) => match embed(Path::new(&dir)) {
            Ok(code) => code,
            Err(e) => panic!(
                "{VAR}={}: {e} (build the viewer with `cargo xtask dist`, or unset {VAR} to build without it)",
                Path::new(&dir).display()
            ),
        },
        None => "pub const VIEWER: Option<Viewer> = None;\n".to_owned(),
    };
    fs::write(&out, code).expect("writing OUT_DIR/viewer.rs");
}

/// `Some(Viewer { … })` with each file of `dist` included.
fn embed(dist: &Path) -> Result<String, String> {
    let dist = dist
        .canonicalize()
        .map_err(|e| format!("cannot read the folder: {e}"))?;
    // Files added or removed change the folder.
    println!("cargo:rerun-if-changed={}", dist.display());
    let mut names: Vec<String> = fs::read_dir(&dist)
        .map_err(|e| format!("cannot read the folder: {e}"))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // trunk names the wasm `<crate>-<hash>_bg.wasm` and its JS
    // `<crate>-<hash>.js`; the stylesheet `style-<hash>.css`.
    let one = |what: &str, ok: &dyn Fn(&str) -> bool| -> Result<String, String> {
        let found: Vec<&String> = names.iter().filter(|n| ok(n)).collect();
        match found.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(format!("no {what} in it")),
            many => Err(format!("{} {what}s in it: {many:?}", many.len())),
        }
    };
    let wasm = one("wasm module (*_bg.wasm)", &|n| n.ends_with("_bg.wasm"))?;
    let glue = format!("{}.js", wasm.trim_end_matches("_bg.wasm"));
    let style = one("stylesheet (*.css)", &|n| n.ends_with(".css"))?;
    let mut fields = Vec::new();
    for (field, name, text) in [
        ("index", "index.html", true),
        ("style", style.as_str(), true),
        ("glue", glue.as_str(), false),
        ("wasm", wasm.as_str(), false),
        ("worker", "worker.js", false),
    ] {
        let path = dist.join(name);
        if !path.is_file() {
            return Err(format!("no {name} in it"));
        }
        println!("cargo:rerun-if-changed={}", path.display());
        let path = path.to_str().ok_or("a path that is not UTF-8")?;
        let include = if text { "include_str" } else { "include_bytes" };
        fields.push(format!("    {field}: {include}!({path:?}),\n"));
    }
    Ok(format!(
        "pub const VIEWER: Option<Viewer> = Some(Viewer {{\n{}}});\n",
        fields.concat()
    ))
}
