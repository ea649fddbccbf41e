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
//! A part is the gzip of its bytes, written as they are, cut into
//! elements of at most [`CHUNK`] bytes each (the first names the part; the
//! ones after it carry on): the browser unzips it as it reads it
//! (`DecompressionStream`), never holding one giant string. The page is
//! windows-1252, whose decoder maps each of the 256 bytes to a character
//! of its own, so a byte costs one byte on disk and the boot script takes
//! it back from its character; the few bytes the HTML parser would change
//! or that could end the element are escaped ([`ESCAPE`]). That makes a
//! page about 1.02 times its gzip, where base64 made it 1.33 times. The
//! page's own mark-up is ASCII (what is not is written as character
//! references and CSS escapes). The viewer's
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
        "vKgg0xrm55Gb/mi9xQ448D0hRZo8DEIBX9VWSt17aZ4="
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

/// Bytes of a part per element (1 MiB).
pub const CHUNK: usize = 1 << 20;

/// What a part's text escapes with: `=` then the byte plus 64 stands for
/// a byte the page cannot hold as it is: NUL (the parser makes it U+FFFD),
/// CR (it makes CR and CRLF a LF), `<` (it could end the element) and `=`
/// itself. Each escape is two ASCII bytes that need no escape (`@ M | }`).
pub const ESCAPE: u8 = b'=';

/// Whether a part's byte is written as an [`ESCAPE`] pair.
const fn escaped(b: u8) -> bool {
    matches!(b, 0 | b'\r' | b'<' | ESCAPE)
}

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
                "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"windows-1252\">\n",
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
                "<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n",
                // Named after the session once open.
                "<title>retrace</title>\n",
                // No favicon request.
                "<link rel=\"icon\" href=\"data:,\">\n",
                "<style id=\"retrace-style\">{style}</style>\n",
                "<script type=\"module\">{boot}</script>\n",
                "</head>\n<body>{frame}",
                "<p id=\"retrace-boot\">Opening the session&#8230;</p>\n"
            ),
            csp = CSP,
            style = css_ascii(style),
            boot = BOOT,
            frame = html_ascii(frame),
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
        let mut text = Vec::with_capacity(self.bytes.len() + self.bytes.len() / 64 + 80);
        text.extend_from_slice(b"<script type=\"");
        text.extend_from_slice(PART_TYPE.as_bytes());
        text.push(b'"');
        if let Some(open) = self.open.take() {
            text.push(b' ');
            text.extend_from_slice(open.as_bytes());
        }
        text.push(b'>');
        escape(&self.bytes, &mut text);
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

/// A part's bytes as the page holds them, appended to `out`: each byte as
/// it is, but for the [`ESCAPE`] pairs.
fn escape(bytes: &[u8], out: &mut Vec<u8>) {
    let mut rest = bytes;
    while let Some(i) = rest.iter().position(|&b| escaped(b)) {
        out.extend_from_slice(&rest[..i]);
        out.extend_from_slice(&[ESCAPE, rest[i] + 64]);
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
}

/// The bytes a part's text stands for: what the boot script does, over
/// bytes (a test's and a reader's way back; the browser sees characters).
pub fn unescape(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut bytes = text.iter();
    while let Some(&b) = bytes.next() {
        out.push(match b {
            ESCAPE => bytes.next().map_or(b, |&e| e.wrapping_sub(64)),
            b => b,
        });
    }
    out
}

/// HTML in ASCII: every other character as a numeric character reference
/// (the frame holds no raw-text element, where a reference would not be
/// read).
fn html_ascii(html: &str) -> String {
    ascii(html, |c, out| out.push_str(&format!("&#{};", u32::from(c))))
}

/// CSS in ASCII: every other character as a CSS escape (its hex digits and
/// the space that ends them), which strings, selectors and comments read
/// as the character.
fn css_ascii(css: &str) -> String {
    ascii(css, |c, out| {
        out.push_str(&format!("\\{:x} ", u32::from(c)))
    })
}

fn ascii(text: &str, other: impl Fn(char, &mut String)) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            other(c, &mut out);
        }
    }
    out
}

/// `s` as text in a quoted attribute, onto `out`: `&`, `<`, `"` and what
/// is not ASCII as hexadecimal character references.
fn attribute(s: &str, out: &mut String) {
    for c in s.chars() {
        if c.is_ascii() && !matches!(c, '&' | '<' | '"') {
            out.push(c);
            continue;
        }
        out.push_str("&#x");
        let n = u32::from(c);
        for digit in (0..=(31 - n.leading_zeros()) / 4).rev() {
            out.push(char::from_digit(n >> (4 * digit) & 15, 16).unwrap_or('0'));
        }
        out.push(';');
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
