//! The viewer inside the binary, for `retrace export --html`: when
//! `RETRACE_VIEWER_DIST` names the folder `cargo xtask dist` writes
//! (`dist/`), its `export.html` (the open page of every export: the
//! viewer's page with its wasm, JS and worker inside) is embedded, and the
//! binary is rebuilt when it changes; otherwise the CLI builds without it
//! (no trunk needed) and that export says how to get a build that has it.
//! The viewer's own files (`index.html`, its wasm, JS, stylesheet,
//! `worker.js`, the demo) are embedded beside it for `retrace serve`.
//! `src/viewer.rs` includes what this writes.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

const VAR: &str = "RETRACE_VIEWER_DIST";

fn main() {
    println!("cargo:rerun-if-env-changed={VAR}");
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("viewer.rs");
    let code = match env::var_os(VAR).filter(|d| !d.is_empty()) {
        Some(dir) => {
            let page = Path::new(&dir).join("export.html");
            let page = page.canonicalize().unwrap_or_else(|e| {
                panic!(
                    "{VAR}={}: no export.html there ({e}): build the viewer with `cargo xtask dist`, \
                     or unset {VAR} to build without it",
                    Path::new(&dir).display()
                )
            });
            println!("cargo:rerun-if-changed={}", page.display());
            let path = page.to_str().expect("a UTF-8 path to export.html");
            let mut code =
                format!("pub const PAGE: Option<&[u8]> = Some(include_bytes!({path:?}));\n");
            code.push_str("pub const FILES: Option<&[(&str, &[u8])]> = Some(&[\n");
            for (name, path) in viewer_files(page.parent().expect("a folder")) {
                println!("cargo:rerun-if-changed={}", path.display());
                let path = path.to_str().expect("a UTF-8 path to the viewer's files");
                code.push_str(&format!("    ({name:?}, include_bytes!({path:?})),\n"));
            }
            code.push_str("]);\n");
            code
        }
        None => "pub const PAGE: Option<&[u8]> = None;\n\
                 pub const FILES: Option<&[(&str, &[u8])]> = None;\n"
            .to_owned(),
    };
    fs::write(&out, code).expect("writing OUT_DIR/viewer.rs");
}

/// The files of `dist/` the viewer's page loads, by name: all but the
/// export's page (which holds them again).
fn viewer_files(dist: &Path) -> Vec<(String, PathBuf)> {
    let mut files: Vec<(String, PathBuf)> = fs::read_dir(dist)
        .expect("reading the viewer's dist/")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(name, _)| name != "export.html")
        .collect();
    files.sort();
    files
}
