//! [`Visible`]: a writer that shows bidi controls and zero-width characters
//! as marks (`<U+202E>`, the core's [`retrace_core::visible`]), so a name,
//! an id or a message in a session cannot reorder or hide the text printed
//! around it. The [`Printer`](crate::printer::Printer) writes every text
//! output through it; raw bytes (`cat`, a request body, a redacted stream)
//! and JSON go around it, byte for byte.

use std::io::{self, Write};

/// `inner`, with what is written through it made visible. Bytes that are
/// not UTF-8 pass unchanged; a character cut between two writes waits for
/// its end (at most three bytes).
pub(crate) struct Visible<W: Write> {
    inner: W,
    carry: Vec<u8>,
}

impl<W: Write> Visible<W> {
    pub fn new(inner: W) -> Visible<W> {
        Visible {
            inner,
            carry: Vec::new(),
        }
    }

    /// Writes what waits (a cut character, as it is) and hands back the
    /// writer.
    pub fn finish(mut self) -> io::Result<W> {
        let carry = std::mem::take(&mut self.carry);
        self.inner.write_all(&carry)?;
        Ok(self.inner)
    }

    fn write_shown(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    self.write_text(text)?;
                    return Ok(());
                }
                Err(e) => {
                    let (good, rest) = bytes.split_at(e.valid_up_to());
                    // The first `valid_up_to` bytes are UTF-8.
                    self.write_text(std::str::from_utf8(good).unwrap_or_default())?;
                    match e.error_len() {
                        Some(bad) => {
                            self.inner.write_all(&rest[..bad])?;
                            bytes = &rest[bad..];
                        }
                        None => {
                            // A character cut at the end of this write.
                            self.carry.extend_from_slice(rest);
                            return Ok(());
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn write_text(&mut self, text: &str) -> io::Result<()> {
        self.inner.write_all(retrace_core::visible(text).as_bytes())
    }
}

impl<W: Write> Write for Visible<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.carry.is_empty() {
            self.write_shown(buf)?;
        } else {
            let mut joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(buf);
            self.write_shown(&joined)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(pieces: &[&[u8]]) -> Vec<u8> {
        let mut w = Visible::new(Vec::new());
        for p in pieces {
            w.write_all(p).unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn marks_controls_cut_anywhere() {
        let text = "id a\u{202E}b\u{200B}c é\n".as_bytes();
        let want = b"id a<U+202E>b<U+200B>c \xc3\xa9\n".to_vec();
        for cut in 0..=text.len() {
            assert_eq!(through(&[&text[..cut], &text[cut..]]), want, "cut at {cut}");
        }
    }

    #[test]
    fn passes_bytes_that_are_not_utf8() {
        assert_eq!(through(&[b"a\xffb\xe2\x80"]), b"a\xffb\xe2\x80".to_vec());
    }
}
