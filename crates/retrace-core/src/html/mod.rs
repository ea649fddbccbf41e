//! A session shared as one HTML file (what `retrace export --html` writes
//! and the viewer's "Download as HTML" makes): the viewer built by `cargo
//! xtask dist` and the session's files inside one page that opens from
//! `file://`, offline, and makes no request, not even for a file beside
//! it. The layout is here once:
//!
//! ```text
//! <!DOCTYPE html>                                       ┐ the open page
//! <head> policy (CSP), <style id="retrace-style"> the    │ (PageWriter:
//!        stylesheet, <script type="module"> boot.js      │ `dist/export.html`,
//! <body> the viewer's frame (the body of its index.html) │ written once
//!        <script type="application/x-retrace" data-viewer="glue">…  │ with the viewer)
//! <script type="application/x-retrace" data-file="a.jsonl" data-leaf="…">…  session files (FilePart)
//! </body></html>                                        the tail (TAIL)
//! ```
//!
//! A part is the gzip of its bytes, in base64, cut into elements of at
//! most [`CHUNK`] bytes each (the first names the part; the ones after it
//! carry on): the browser unzips it as it reads it
//! (`DecompressionStream`), never holding one giant string. The viewer's
//! parts are its wasm-bindgen JS (`glue`), its `wasm` and the engine's
//! `worker` script ([`VIEWER_PARTS`]). The open page is the same for every
//! session, so `cargo xtask dist` writes it once ([`PageWriter`]) beside
//! the viewer; the CLI embeds it and the viewer fetches it (or, opened
//! from such a file, takes it from itself): each then adds the session's
//! files ([`FilePart`]) and [`TAIL`]. Compressing is the caller's (the CLI
//! on its threads, the browser with its `CompressionStream`); this module
//! writes no byte it was not given but its own mark-up.
//!
//! `boot.js` unzips the parts into `Blob`s, imports the glue from a
//! `blob:` URL, compiles the wasm once and hands the viewer its worker's
//! `blob:` URL, the session as `File`s and the open page again
//! (`globalThis.retraceEmbedded`, read by `web/src/app/embedded.rs`); it
//! names the tab after the first file and opens on the leaf its part
//! names. The policy ([`CSP`]) allows that and nothing else: no request
//! of any kind.

use std::io::{self, Write};

/// The boot script, run as the page's one inline script.
pub const BOOT: &str = include_str!("boot.js");

/// The SHA-256 of [`BOOT`] in base64, as the policy names it (a test
/// checks it: change it with the script).
macro_rules! boot_hash {
    () => {
        "uIWPHtpWlsLk6NTObTNpFMO7J10ZvJ1qnneg3MUecDc="
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
pub const VIEWER_PARTS: [&str; 3] = ["glue", "wasm", "worker"];

/// What ends the page, after the session's files.
pub const TAIL: &str = "</body>\n</html>\n";

/// Why the open page cannot be made of the viewer's files.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HtmlError {
    /// The viewer's `index.html` has no `<body>…</body>`.
    #[error("the viewer's index.html has no <body>")]
    NoBody,
    /// The stylesheet would end the `<style>` element it is written in.
    #[error("the viewer's stylesheet holds `</style`, which would end it early")]
    StyleEnds,
    /// A part that is not one of the viewer's.
    #[error("no viewer part `{0}` (glue, wasm, worker)")]
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

/// The name a session's file is carried under: its base name, `.gz`
/// dropped (a part holds the bytes as read, unzipped).
pub fn part_name(path: &str) -> &str {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    base.strip_suffix(".gz").unwrap_or(base)
}

/// Writes the open page: [`PageWriter::new`] the head and the frame, then
/// each of the viewer's parts through [`PageWriter::part`], then
/// [`PageWriter::finish`].
pub struct PageWriter<W: Write> {
    out: W,
    written: [bool; 3],
}

impl<W: Write> PageWriter<W> {
    /// Writes the head (`style`: the viewer's stylesheet) and the frame
    /// ([`frame_of`] its `index.html`).
    pub fn new(mut out: W, frame: &str, style: &str) -> io::Result<PageWriter<W>> {
        if contains_ignore_case(style, "</style") {
            return Err(HtmlError::StyleEnds.into());
        }
        write!(
            out,
            concat!(
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
                "<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n",
                // Named after the session once open.
                "<title>retrace</title>\n",
                // No favicon request.
                "<link rel=\"icon\" href=\"data:,\">\n",
                "<style id=\"retrace-style\">{style}</style>\n",
                "<script type=\"module\">{boot}</script>\n",
                "</head>\n<body>{frame}",
                "<p id=\"retrace-boot\">Opening the session…</p>\n"
            ),
            csp = CSP,
            style = style,
            boot = BOOT,
            frame = frame,
        )?;
        Ok(PageWriter {
            out,
            written: [false; 3],
        })
    }

    /// The viewer's part `name` (one of [`VIEWER_PARTS`]): write its gzip
    /// bytes to the [`FilePart`], then finish it.
    pub fn part(&mut self, name: &str) -> io::Result<FilePart<'_, W>> {
        let i = VIEWER_PARTS
            .iter()
            .position(|&p| p == name)
            .ok_or_else(|| HtmlError::NoSuchPart(name.to_owned()))?;
        if std::mem::replace(&mut self.written[i], true) {
            return Err(HtmlError::Twice(name.to_owned()).into());
        }
        Ok(FilePart::start(
            &mut self.out,
            format!("data-viewer=\"{name}\""),
        ))
    }

    /// The open page written; its output back, for the session's files.
    pub fn finish(self) -> io::Result<W> {
        if let Some(i) = self.written.iter().position(|&done| !done) {
            return Err(HtmlError::Missing(VIEWER_PARTS[i]).into());
        }
        Ok(self.out)
    }
}

/// The gzip bytes of one part, written to the page as elements of
/// [`CHUNK`] bytes; [`FilePart::finish`] writes the last.
pub struct FilePart<'a, W: Write> {
    out: &'a mut W,
    /// The first element's attributes, until it is written.
    open: Option<String>,
    bytes: Vec<u8>,
}

impl<'a, W: Write> FilePart<'a, W> {
    /// A file of the session, after the open page: `name`, the name the
    /// viewer opens it under ([`part_name`]); `leaf`, the label of the
    /// leaf the page opens on (`Session::label`), unless a link into the
    /// page names another.
    pub fn new(out: &'a mut W, name: &str, leaf: Option<&str>) -> FilePart<'a, W> {
        let mut open = String::from("data-file=\"");
        attribute(name, &mut open);
        if let Some(leaf) = leaf {
            open.push_str("\" data-leaf=\"");
            attribute(leaf, &mut open);
        }
        open.push('"');
        FilePart::start(out, open)
    }

    fn start(out: &'a mut W, open: String) -> FilePart<'a, W> {
        FilePart {
            out,
            open: Some(open),
            bytes: Vec::with_capacity(CHUNK),
        }
    }

    /// Writes what is left (a part has at least one element, which names
    /// it).
    pub fn finish(mut self) -> io::Result<()> {
        if !self.bytes.is_empty() || self.open.is_some() {
            self.element()?;
        }
        Ok(())
    }

    fn element(&mut self) -> io::Result<()> {
        let mut text = Vec::with_capacity(self.bytes.len().div_ceil(3) * 4 + 80);
        text.extend_from_slice(b"<script type=\"");
        text.extend_from_slice(PART_TYPE.as_bytes());
        text.push(b'"');
        if let Some(open) = self.open.take() {
            text.push(b' ');
            text.extend_from_slice(open.as_bytes());
        }
        text.push(b'>');
        base64(&self.bytes, &mut text);
        text.extend_from_slice(b"</script>\n");
        self.bytes.clear();
        self.out.write_all(&text)
    }
}

impl<W: Write> Write for FilePart<'_, W> {
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

/// `s` as text in a quoted attribute, onto `out`: `&`, `<` and `"`
/// escaped.
fn attribute(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

#[cfg(test)]
mod tests;
