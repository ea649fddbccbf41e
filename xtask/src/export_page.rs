//! `dist/export.html`: the open page of every single-file HTML export (the
//! core's `PageWriter`: head, the viewer's frame and stylesheet, its wasm,
//! wasm-bindgen JS and worker script gzipped in it), written once beside
//! the viewer it holds. `retrace export --html` embeds it (its build
//! script reads `RETRACE_VIEWER_DIST`) and the viewer's "Download as HTML"
//! fetches it; each adds the session's files.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};
use flate2::{write::GzEncoder, Compression};
use retrace_core::{frame_of, PageWriter};

/// The page's name in `dist/`.
pub const NAME: &str = "export.html";

/// The variable naming `dist/` to the CLI's build script (which embeds
/// the page when it is set).
pub const VIEWER_VAR: &str = "RETRACE_VIEWER_DIST";

/// Writes `dist/export.html` from the viewer trunk built in `dist`.
pub fn write(dist: &Path) -> Result<()> {
    let read = |name: &str| {
        std::fs::read(dist.join(name))
            .with_context(|| format!("reading {}", dist.join(name).display()))
    };
    let mut names: Vec<String> = std::fs::read_dir(dist)?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    // trunk names the wasm `<crate>-<hash>_bg.wasm`, its JS
    // `<crate>-<hash>.js` and the stylesheet `style-<hash>.css`.
    let one = |suffix: &str| -> Result<String> {
        let found: Vec<&String> = names.iter().filter(|n| n.ends_with(suffix)).collect();
        match found.as_slice() {
            [one] => Ok((*one).clone()),
            other => bail!(
                "{}: {} files named *{suffix}, not one",
                dist.display(),
                other.len()
            ),
        }
    };
    let wasm = one("_bg.wasm")?;
    let glue = format!("{}.js", wasm.trim_end_matches("_bg.wasm"));
    let index = String::from_utf8(read("index.html")?)?;
    let style = String::from_utf8(read(&one(".css")?)?)?;
    let mut page = PageWriter::new(Vec::new(), frame_of(&index)?, &style)?;
    for (part, file) in [
        ("glue", glue.as_str()),
        ("wasm", &wasm),
        ("worker", "worker.js"),
    ] {
        let mut out = page.part(part)?;
        let mut gz = GzEncoder::new(&mut out, Compression::best());
        gz.write_all(&read(file)?)?;
        gz.finish()?;
        out.finish()?;
    }
    let page = page.finish()?;
    std::fs::write(dist.join(NAME), &page).with_context(|| format!("writing {NAME}"))?;
    println!(
        "==> {NAME}: {} B (the viewer for single-file exports)",
        page.len()
    );
    Ok(())
}
