//! A session shared as one HTML file (what `retrace export --html` writes
//! and the viewer's "Download as HTML" makes): the viewer built by `cargo
//! xtask dist` and the session's files inside one page that opens from
//! `file://`, offline, and makes no request, not even for a file beside
//! it. Both write it through [`HtmlWriter`], so the layout is here once:
//!
//! ```text
//! <!DOCTYPE html> <html data-leaf="…">      the branch to open on, if asked
//! <head> policy (CSP), title, <style id="retrace-style"> the stylesheet,
//!        <script type="module"> the boot script (boot.js, pinned by hash)
//! <body> the viewer's frame (the body of its index.html), a note
//!        <script type="application/x-retrace" data-viewer="glue">…  viewer parts
//!        <script type="application/x-retrace" data-file="a.jsonl">… session files
//! ```
//!
//! A part is the gzip of its bytes, in base64, cut into elements of at
//! most [`CHUNK`] bytes each (the first names the part; the ones after it
//! carry on): the browser unzips it as it reads it
//! (`DecompressionStream`), never holding one giant string. The viewer's
//! parts are its wasm-bindgen JS (`glue`), its `wasm`, the engine's
//! `worker` script and the `frame` again (so a page written from this one
//! has its exact text). Compressing is the caller's (the CLI on its
//! threads, the browser with its `CompressionStream`); this module writes
//! no byte it was not given but its own mark-up.
//!
//! `boot.js` unzips the parts into `Blob`s, imports the glue from a
//! `blob:` URL, compiles the wasm once and hands the viewer its worker's
//! `blob:` URL and the session as `File`s (`globalThis.retraceEmbedded`,
//! read by `web/src/app/embedded.rs`). The policy ([`CSP`]) allows that
//! and nothing else: no request of any kind.

use std::io::{self, Write};

/// The boot script, run as the page's one inline script.
pub const BOOT: &str = include_str!("boot.js");

/// The SHA-256 of [`BOOT`] in base64, as the policy names it (a test
/// checks it: change it with the script).
macro_rules! boot_hash {
    () => {
        "c21X2jzjwqrmLhsa2GPl9JGscszcBhAGWDJ3yL5wpi0="
    };
}

/// The page's Content-Security-Policy: no request to anywhere (`default-src
/// 'none'`, `connect-src 'none'` said outright); scripts: the boot script
/// by its hash and the `blob:` URLs it makes of the viewer's parts, and
/// compiling the wasm; the worker from a `blob:` URL; styles in the page
/// (the stylesheet, the rows' `style` attributes); images as `data:` URLs
/// only (the engine hands a session's images over so).
pub const CSP: &str = concat!(
    "default-src 'none'; connect-src 'none'; ",
    "script-src 'sha256-",
    boot_hash!(),
    "' blob: 'wasm-unsafe-eval'; ",
    "worker-src blob:; style-src 'unsafe-inline'; img-src data:; ",
    "object-src 'none'; base-uri 'none'; form-action 'none'"
);

/// The `type` of the elements that hold parts: not a script type, so the
/// browser neither runs them nor asks the policy about them.
const PART_TYPE: &str = "application/x-retrace";

/// Bytes of a part per element: a multiple of 3, so the elements of a
/// part are also one base64 text cut in pieces (1 MiB of text each).
pub const CHUNK: usize = 3 << 18;

/// The viewer's parts, by name, each written once per page.
pub const VIEWER_PARTS: [&str; 4] = ["glue", "wasm", "worker", "frame"];

/// What a part is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HtmlPart<'a> {
    /// One of [`VIEWER_PARTS`].
    Viewer(&'a str),
    /// A file of the session, by the name the viewer opens it under.
    File(&'a str),
}

/// Why a page cannot be made of the viewer's files.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HtmlError {
    /// The viewer's `index.html` has no `<body>…</body>`.
    #[error("the viewer's index.html has no <body>")]
    NoBody,
    /// The stylesheet would end the `<style>` element it is written in.
    #[error("the viewer's stylesheet holds `</style`, which would end it early")]
    StyleEnds,
    /// A part that is not one of the viewer's.
    #[error("no viewer part `{0}` (glue, wasm, worker, frame)")]
    NoSuchPart(String),
    /// A viewer part left out.
    #[error("the viewer's part `{0}` was not written")]
    Missing(&'static str),
    /// A part written twice.
    #[error("the viewer's part `{0}` was written twice")]
    Twice(String),
}

impl From<HtmlError> for io::Error {
    fn from(e: HtmlError) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, e)
    }
}

/// The frame of the viewer's page: the body of its `index.html`, the
/// static parts the app mounts beside.
pub fn frame_of(index: &str) -> Result<&str, HtmlError> {
    let open = index.find("<body").ok_or(HtmlError::NoBody)?;
    let start = index[open..].find('>').ok_or(HtmlError::NoBody)? + open + 1;
    let end = index.rfind("</body>").ok_or(HtmlError::NoBody)?;
    index.get(start..end).ok_or(HtmlError::NoBody)
}

/// The page around the parts.
pub struct HtmlPage<'a> {
    /// The viewer's frame ([`frame_of`] its `index.html`).
    pub frame: &'a str,
    /// The viewer's stylesheet.
    pub style: &'a str,
    /// The page's title (the session's, already redacted if it is to be).
    pub title: &'a str,
    /// The label of the leaf to open on (`Session::label`), unless a
    /// link into the page names another.
    pub leaf: Option<&'a str>,
}

/// Writes one page: [`HtmlWriter::new`] the head and frame, then each
/// part through [`HtmlWriter::part`] (the viewer's four and the session's
/// files, in any order), then [`HtmlWriter::finish`]. Output goes to `out`
/// in pieces of about [`CHUNK`] bytes.
pub struct HtmlWriter<W: Write> {
    out: W,
    viewer: [bool; 4],
}

impl<W: Write> HtmlWriter<W> {
    /// Writes the head and the frame.
    pub fn new(mut out: W, page: &HtmlPage<'_>) -> io::Result<HtmlWriter<W>> {
        if contains_ignore_case(page.style, "</style") {
            return Err(HtmlError::StyleEnds.into());
        }
        out.write_all(b"<!DOCTYPE html>\n<html lang=\"en\"")?;
        if let Some(leaf) = page.leaf {
            write!(out, " data-leaf=\"{}\"", attribute(leaf))?;
        }
        write!(
            out,
            concat!(
                ">\n<head>\n<meta charset=\"utf-8\">\n",
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
                "<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n",
                "<title>{title}</title>\n",
                // No favicon request.
                "<link rel=\"icon\" href=\"data:,\">\n",
                "<style id=\"retrace-style\">{style}</style>\n",
                "<script type=\"module\">{boot}</script>\n",
                "</head>\n<body>{frame}",
                "<p id=\"retrace-boot\" class=\"dim\">Opening the session…</p>\n"
            ),
            csp = CSP,
            title = text(page.title),
            style = page.style,
            boot = BOOT,
            frame = page.frame,
        )?;
        Ok(HtmlWriter {
            out,
            viewer: [false; 4],
        })
    }

    /// A part: write its gzip bytes to the [`PartWriter`], then
    /// [`PartWriter::finish`] it.
    pub fn part(&mut self, part: HtmlPart<'_>) -> io::Result<PartWriter<'_, W>> {
        let open = match part {
            HtmlPart::Viewer(name) => {
                let i = VIEWER_PARTS
                    .iter()
                    .position(|&p| p == name)
                    .ok_or_else(|| HtmlError::NoSuchPart(name.to_owned()))?;
                if std::mem::replace(&mut self.viewer[i], true) {
                    return Err(HtmlError::Twice(name.to_owned()).into());
                }
                format!("data-viewer=\"{name}\"")
            }
            HtmlPart::File(name) => format!("data-file=\"{}\"", attribute(name)),
        };
        Ok(PartWriter {
            out: &mut self.out,
            open: Some(open),
            bytes: Vec::with_capacity(CHUNK),
            text: Vec::new(),
        })
    }

    /// Ends the page; its output back.
    pub fn finish(mut self) -> io::Result<W> {
        if let Some(i) = self.viewer.iter().position(|&done| !done) {
            return Err(HtmlError::Missing(VIEWER_PARTS[i]).into());
        }
        self.out.write_all(b"</body>\n</html>\n")?;
        Ok(self.out)
    }
}

/// The gzip bytes of one part, written as elements of [`CHUNK`] bytes.
pub struct PartWriter<'a, W: Write> {
    out: &'a mut W,
    /// The first element's attribute, until it is written.
    open: Option<String>,
    bytes: Vec<u8>,
    text: Vec<u8>,
}

impl<W: Write> PartWriter<'_, W> {
    /// Writes what is left (a part has at least one element, which
    /// names it).
    pub fn finish(mut self) -> io::Result<()> {
        if !self.bytes.is_empty() || self.open.is_some() {
            self.element()?;
        }
        Ok(())
    }

    fn element(&mut self) -> io::Result<()> {
        self.text.clear();
        base64(&self.bytes, &mut self.text);
        self.bytes.clear();
        match self.open.take() {
            Some(open) => write!(self.out, "<script type=\"{PART_TYPE}\" {open}>")?,
            None => write!(self.out, "<script type=\"{PART_TYPE}\">")?,
        }
        self.out.write_all(&self.text)?;
        self.out.write_all(b"</script>\n")
    }
}

impl<W: Write> Write for PartWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len().min(CHUNK - self.bytes.len());
        self.bytes.extend_from_slice(&buf[..n]);
        if self.bytes.len() == CHUNK {
            self.element()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Standard base64 with padding, appended to `out`.
fn base64(bytes: &[u8], out: &mut Vec<u8>) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    out.reserve(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                ALPHABET[(n >> (18 - 6 * i) & 63) as usize]
            } else {
                b'='
            });
        }
    }
}

/// Text in an element: `&` and `<` escaped.
fn text(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;")
}

/// Text in a quoted attribute: `&`, `<` and `"` escaped.
fn attribute(s: &str) -> String {
    text(s).replace('"', "&quot;")
}

fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

#[cfg(test)]
mod tests;
