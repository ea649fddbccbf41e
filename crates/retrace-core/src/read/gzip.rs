//! gzip as a push layer: compressed bytes in, decompressed bytes out, never
//! the whole file in memory, natively and in wasm (pure-Rust inflate).
//!
//! The [`Reader`](crate::Reader) recognises gzip by its magic bytes at the
//! start of a file, whatever its name, and runs its input through a
//! [`GzDecoder`] before framing lines: every offset of the index (entries,
//! diagnostics) is an offset in the decompressed stream, so a gzip file
//! gives the same session as the plain one. Several members (`cat a.gz
//! b.gz`) are one stream; each member's CRC-32 and length are checked.
//!
//! Bodies are read later by byte range of the decompressed stream. Keeping
//! the decompressed file is what gzip input must avoid, and inflating from
//! byte 0 for every body would make a view of a large file quadratic. So
//! while opening, the decoder's whole state (the inflater with its 32 KiB
//! window, the bit position, the member's CRC) is copied every
//! [`CHECKPOINT_EVERY`] bytes of output into a [`GzIndex`]; `Inflated` (in `source/`)
//! serves a range by restarting from the nearest checkpoint before it, or
//! by going on from where the previous read stopped (reads of a branch or a
//! check run forward). The trade-off: about 43 KiB of checkpoint per 4 MiB
//! of decompressed data (≈1 %), and a random read costs at most 4 MiB of
//! inflating (a few milliseconds).

use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

use super::crc32::Crc32;

/// Decompressed bytes between two checkpoints.
pub const CHECKPOINT_EVERY: u64 = 4 << 20;

/// Output buffer of one inflate call.
const OUT_CHUNK: usize = 64 << 10;

/// The two bytes every gzip member starts with.
pub(crate) const MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Where a gzip stream went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GzError {
    pub kind: GzErrorKind,
    /// Offset in the compressed file.
    pub at: u64,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GzErrorKind {
    /// Bad header, bad deflate data, or a CRC/length mismatch.
    Corrupt,
    /// The file ends inside a member.
    Truncated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Reading a member header (the bytes so far are in `header`).
    Header,
    Deflate,
    /// Reading the 8-byte CRC-32 + length trailer.
    Trailer,
    /// A member ended: another may follow.
    Between,
    /// Bytes that are not a gzip member follow the last member.
    Trailing,
    /// An error stopped the stream.
    Failed,
}

/// A streaming gzip decoder whose whole state can be cloned (a checkpoint).
#[derive(Clone)]
pub struct GzDecoder {
    phase: Phase,
    inflate: Box<InflateState>,
    crc: Crc32,
    /// Header or trailer bytes collected so far.
    pending: Vec<u8>,
    /// Bytes out of the current member (checked against its trailer).
    member_out: u64,
    /// Compressed bytes consumed.
    in_pos: u64,
    /// Decompressed bytes produced.
    out_pos: u64,
    /// Bytes after the last member, and where they began.
    trailing: u64,
    trailing_at: u64,
    trailing_nonzero: bool,
}

impl std::fmt::Debug for GzDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GzDecoder")
            .field("phase", &self.phase)
            .field("in_pos", &self.in_pos)
            .field("out_pos", &self.out_pos)
            .finish_non_exhaustive()
    }
}

impl Default for GzDecoder {
    fn default() -> Self {
        GzDecoder::new()
    }
}

impl GzDecoder {
    pub fn new() -> GzDecoder {
        GzDecoder {
            phase: Phase::Header,
            inflate: InflateState::new_boxed(DataFormat::Raw),
            crc: Crc32::new(),
            pending: Vec::new(),
            member_out: 0,
            in_pos: 0,
            out_pos: 0,
            trailing: 0,
            trailing_at: 0,
            trailing_nonzero: false,
        }
    }

    /// Decompressed bytes produced so far.
    pub fn out_pos(&self) -> u64 {
        self.out_pos
    }

    /// Compressed bytes consumed so far.
    pub fn in_pos(&self) -> u64 {
        self.in_pos
    }

    /// Feeds compressed bytes; decompressed output goes to `sink`. Stops
    /// early, once the output reaches `until`, and returns how many input
    /// bytes it consumed (all of them unless it stopped early). A copy of
    /// the decoder goes to `checkpoints` each time the output passes the
    /// next multiple of [`CHECKPOINT_EVERY`].
    pub(crate) fn feed(
        &mut self,
        mut input: &[u8],
        out: &mut Vec<u8>,
        until: u64,
        mut checkpoints: Option<&mut Vec<GzDecoder>>,
        sink: &mut dyn FnMut(&[u8]),
    ) -> Result<usize, GzError> {
        let total = input.len();
        out.resize(OUT_CHUNK, 0);
        loop {
            if self.out_pos >= until {
                return Ok(total - input.len());
            }
            match self.phase {
                Phase::Failed => return Ok(total),
                Phase::Trailing => {
                    self.trailing_nonzero |= input.iter().any(|&b| b != 0);
                    self.trailing += input.len() as u64;
                    self.in_pos += input.len() as u64;
                    return Ok(total);
                }
                Phase::Between => {
                    let Some(&first) = input.first() else {
                        return Ok(total);
                    };
                    if first == MAGIC[0] {
                        self.phase = Phase::Header;
                    } else {
                        self.trailing_at = self.in_pos;
                        self.phase = Phase::Trailing;
                    }
                }
                Phase::Header => {
                    if input.is_empty() {
                        return Ok(total);
                    }
                    // Headers are short: collect them whole, byte by byte
                    // until one parses (it has optional variable fields).
                    let start = self.in_pos - self.pending.len() as u64;
                    let take = input.len().min(64);
                    let before = self.pending.len();
                    self.pending.extend_from_slice(&input[..take]);
                    match header_len(&self.pending) {
                        Ok(None) => {
                            input = &input[take..];
                            self.in_pos += take as u64;
                        }
                        Ok(Some(len)) => {
                            let used = len - before;
                            input = &input[used..];
                            self.in_pos += used as u64;
                            self.pending.clear();
                            self.inflate.reset(DataFormat::Raw);
                            self.crc = Crc32::new();
                            self.member_out = 0;
                            self.phase = Phase::Deflate;
                        }
                        Err(message) => {
                            return Err(self.fail(GzErrorKind::Corrupt, start, message))
                        }
                    }
                }
                Phase::Deflate => {
                    let r = inflate(&mut self.inflate, input, out, MZFlush::None);
                    let produced = &out[..r.bytes_written];
                    input = &input[r.bytes_consumed..];
                    self.in_pos += r.bytes_consumed as u64;
                    if !produced.is_empty() {
                        self.crc.update(produced);
                        self.member_out += produced.len() as u64;
                        let before = self.out_pos;
                        self.out_pos += produced.len() as u64;
                        sink(produced);
                        if let Some(cps) = checkpoints.as_deref_mut() {
                            if self.out_pos / CHECKPOINT_EVERY > before / CHECKPOINT_EVERY {
                                cps.push(self.clone());
                            }
                        }
                    }
                    if r.bytes_consumed == 0
                        && r.bytes_written == 0
                        && r.status.is_ok()
                        && r.status != Ok(MZStatus::StreamEnd)
                    {
                        // No progress: more input is needed.
                        return Ok(total - input.len());
                    }
                    match r.status {
                        Ok(MZStatus::StreamEnd) => self.phase = Phase::Trailer,
                        Ok(_) => {
                            if input.is_empty() && r.bytes_written < out.len() {
                                return Ok(total);
                            }
                        }
                        // No progress possible without more input.
                        Err(MZError::Buf) => return Ok(total),
                        Err(_) => {
                            let at = self.in_pos;
                            return Err(self.fail(
                                GzErrorKind::Corrupt,
                                at,
                                "invalid deflate data".to_owned(),
                            ));
                        }
                    }
                }
                Phase::Trailer => {
                    if input.is_empty() {
                        return Ok(total);
                    }
                    let take = input.len().min(8 - self.pending.len());
                    self.pending.extend_from_slice(&input[..take]);
                    input = &input[take..];
                    self.in_pos += take as u64;
                    if self.pending.len() == 8 {
                        let at = self.in_pos - 8;
                        let crc = u32::from_le_bytes(self.pending[..4].try_into().expect("4"));
                        let size = u32::from_le_bytes(self.pending[4..].try_into().expect("4"));
                        self.pending.clear();
                        let actual = std::mem::take(&mut self.crc).finalize();
                        if crc != actual {
                            return Err(self.fail(
                                GzErrorKind::Corrupt,
                                at,
                                format!("CRC-32 mismatch: the member says {crc:08x}, its data gives {actual:08x}"),
                            ));
                        }
                        if u64::from(size) != self.member_out & 0xffff_ffff {
                            return Err(self.fail(
                                GzErrorKind::Corrupt,
                                at,
                                format!(
                                    "length mismatch: the member says {size} bytes, it held {}",
                                    self.member_out
                                ),
                            ));
                        }
                        self.phase = Phase::Between;
                    }
                }
            }
        }
    }

    fn fail(&mut self, kind: GzErrorKind, at: u64, message: String) -> GzError {
        self.phase = Phase::Failed;
        GzError { kind, at, message }
    }

    /// Ends the input: an error if it stopped inside a member.
    pub(crate) fn finish(&mut self) -> Result<(), GzError> {
        let at = self.in_pos;
        let message = match self.phase {
            Phase::Header if self.in_pos == 0 && self.pending.is_empty() => "file is empty",
            Phase::Header => "file ends inside a gzip header",
            Phase::Deflate => "file ends inside compressed data (truncated download or write?)",
            Phase::Trailer => "file ends inside a gzip trailer",
            Phase::Between | Phase::Trailing | Phase::Failed => return Ok(()),
        };
        Err(self.fail(GzErrorKind::Truncated, at, message.to_owned()))
    }

    /// Bytes after the last member: (count, compressed offset, all zero).
    pub(crate) fn trailing(&self) -> Option<(u64, u64, bool)> {
        (self.trailing > 0).then_some((self.trailing, self.trailing_at, !self.trailing_nonzero))
    }
}

/// The length of a complete gzip member header at the start of `h`, `None`
/// while more bytes are needed (RFC 1952 §2.3).
fn header_len(h: &[u8]) -> Result<Option<usize>, String> {
    const FHCRC: u8 = 2;
    const FEXTRA: u8 = 4;
    const FNAME: u8 = 8;
    const FCOMMENT: u8 = 16;
    if h.len() >= 2 && h[..2] != MAGIC {
        return Err("not a gzip member (bad magic bytes)".to_owned());
    }
    if h.len() < 10 {
        return Ok(None);
    }
    if h[2] != 8 {
        return Err(format!(
            "unknown compression method {} (only deflate is gzip)",
            h[2]
        ));
    }
    let flags = h[3];
    if flags & 0xe0 != 0 {
        return Err("reserved header flags are set".to_owned());
    }
    let mut at = 10;
    if flags & FEXTRA != 0 {
        let Some(len) = h.get(at..at + 2) else {
            return Ok(None);
        };
        at += 2 + u16::from_le_bytes([len[0], len[1]]) as usize;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            match h
                .get(at..)
                .and_then(|rest| rest.iter().position(|&b| b == 0))
            {
                Some(nul) => at += nul + 1,
                None => return Ok(None),
            }
        }
    }
    if flags & FHCRC != 0 {
        at += 2;
    }
    Ok((h.len() >= at).then_some(at))
}

/// Where to restart inflating a gzip file: copies of the decoder taken
/// while the file was opened.
#[derive(Debug, Default)]
pub struct GzIndex {
    pub(crate) checkpoints: Vec<GzDecoder>,
    /// Size of the compressed file.
    pub compressed_size: u64,
}

impl GzIndex {
    /// Number of checkpoints kept.
    pub fn checkpoints(&self) -> usize {
        self.checkpoints.len()
    }

    /// The latest checkpoint at or before decompressed offset `at`.
    pub(crate) fn before(&self, at: u64) -> GzDecoder {
        let i = self.checkpoints.partition_point(|c| c.out_pos <= at);
        match i {
            0 => GzDecoder::new(),
            i => self.checkpoints[i - 1].clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let base = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
        assert_eq!(header_len(&base), Ok(Some(10)));
        assert_eq!(header_len(&base[..5]), Ok(None));
        let mut named = base.to_vec();
        named[3] = 8;
        named.extend_from_slice(b"events.jsonl\0");
        assert_eq!(header_len(&named), Ok(Some(23)));
        assert_eq!(header_len(&named[..15]), Ok(None));
        let mut extra = base.to_vec();
        extra[3] = 4 | 2;
        extra.extend_from_slice(&[3, 0, 1, 2, 3, 0xaa, 0xbb]);
        assert_eq!(header_len(&extra), Ok(Some(17)));
        assert!(header_len(&[0x1f, 0x8c]).is_err());
        let mut method = base;
        method[2] = 7;
        assert!(header_len(&method).is_err());
    }
}

#[cfg(test)]
mod size {
    /// The docs say a checkpoint costs about 43 KiB: the inflater's state
    /// (its 32 KiB window and Huffman tables) is most of it.
    #[test]
    fn a_checkpoint_is_about_43_kib() {
        let state = std::mem::size_of::<miniz_oxide::inflate::stream::InflateState>();
        let decoder = std::mem::size_of::<super::GzDecoder>();
        assert!(
            (40 << 10..46 << 10).contains(&(state + decoder)),
            "{state} + {decoder}"
        );
    }
}
