//! CRC-32 (IEEE 802.3: the check gzip members and zlib carry): [`Crc32`],
//! running over bytes given in pieces, and [`crc32`] of one slice.
//!
//! Natively it is crc32fast's (its carry-less multiply runs at some
//! 20 GB/s, a tenth of a gzip open's time otherwise). In wasm crc32fast
//! has only table code, whose sixteen tables are 16 KiB of data: noise to
//! a compressor, so 16 KiB of the viewer's gzipped bundle. There the
//! same sixteen-bytes-a-step method runs on [`Sliced`], whose tables are
//! computed on first use (a few microseconds) instead of being stored.

#[cfg(any(target_arch = "wasm32", test))]
use std::sync::OnceLock;

/// The running CRC-32: `new`, `update`, `finalize`, as crc32fast's.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use crc32fast::Hasher as Crc32;
#[cfg(target_arch = "wasm32")]
pub(crate) use Sliced as Crc32;

/// The CRC-32 of `bytes`.
pub(crate) fn crc32(bytes: &[u8]) -> u32 {
    let mut c = Crc32::new();
    c.update(bytes);
    c.finalize()
}

/// The reflected IEEE polynomial.
#[cfg(any(target_arch = "wasm32", test))]
const POLY: u32 = 0xEDB8_8320;

/// `TABLES[0]` is the byte-at-a-time table; `TABLES[k][b]` is the CRC of
/// byte `b` followed by `k` zero bytes, so sixteen lookups advance the
/// CRC over sixteen bytes.
#[cfg(any(target_arch = "wasm32", test))]
type Tables = [[u32; 256]; 16];

#[cfg(any(target_arch = "wasm32", test))]
fn tables() -> &'static Tables {
    static TABLES: OnceLock<Box<Tables>> = OnceLock::new();
    TABLES.get_or_init(|| {
        let mut t = Box::new([[0u32; 256]; 16]);
        for (b, slot) in t[0].iter_mut().enumerate() {
            let mut c = b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            }
            *slot = c;
        }
        for k in 1..16 {
            for b in 0..256 {
                let prev = t[k - 1][b];
                t[k][b] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            }
        }
        t
    })
}

/// A running CRC-32 by table lookups, sixteen bytes a step (slicing by
/// 16), the tables computed on first use.
#[cfg(any(target_arch = "wasm32", test))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sliced {
    /// The checksum of the bytes so far (the register, inverted).
    state: u32,
}

#[cfg(any(target_arch = "wasm32", test))]
impl Sliced {
    pub fn new() -> Sliced {
        Sliced::default()
    }

    /// Adds `bytes` to the checksum.
    pub fn update(&mut self, bytes: &[u8]) {
        let t = tables();
        let mut c = !self.state;
        let mut blocks = bytes.chunks_exact(16);
        for b in &mut blocks {
            let b: &[u8; 16] = b.try_into().unwrap_or(&[0; 16]);
            let low = (c ^ u32::from_le_bytes([b[0], b[1], b[2], b[3]])).to_le_bytes();
            let at = |k: usize, byte: u8| t[k][byte as usize];
            // The twelve lookups that do not wait for the register first:
            // the processor runs them while the four that do are loaded
            // (in the other order it runs at half the speed).
            let rest = at(11, b[4])
                ^ at(10, b[5])
                ^ at(9, b[6])
                ^ at(8, b[7])
                ^ at(7, b[8])
                ^ at(6, b[9])
                ^ at(5, b[10])
                ^ at(4, b[11])
                ^ at(3, b[12])
                ^ at(2, b[13])
                ^ at(1, b[14])
                ^ at(0, b[15]);
            c = rest ^ at(15, low[0]) ^ at(14, low[1]) ^ at(13, low[2]) ^ at(12, low[3]);
        }
        for &byte in blocks.remainder() {
            c = t[0][((c ^ u32::from(byte)) & 0xff) as usize] ^ (c >> 8);
        }
        self.state = !c;
    }

    /// The checksum of the bytes so far.
    pub fn finalize(self) -> u32 {
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CRC-32 bit by bit, from the definition.
    fn by_bits(bytes: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            }
        }
        !c
    }

    #[test]
    fn the_standard_check_value() {
        // zlib.crc32(b"123456789"), the check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
        let mut s = Sliced::new();
        s.update(b"123456789");
        assert_eq!(s.finalize(), 0xCBF4_3926);
        assert_eq!(Sliced::new().finalize(), 0);
    }

    #[test]
    fn the_wasm_checksum_is_the_native_one_at_any_split() {
        // Lengths around the 16-byte step, split at every point: the
        // sliced tables (wasm), crc32fast (native) and the definition.
        let data: Vec<u8> = (0u32..200)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for len in [0, 1, 3, 4, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200] {
            let whole = &data[..len];
            let want = by_bits(whole);
            assert_eq!(crc32(whole), want, "{len} bytes");
            for at in 0..=len {
                let mut s = Sliced::new();
                s.update(&whole[..at]);
                s.update(&whole[at..]);
                assert_eq!(s.finalize(), want, "{len} bytes split at {at}");
            }
        }
        let big: Vec<u8> = (0u32..1 << 20)
            .map(|i| (i.wrapping_mul(2_246_822_519) >> 11) as u8)
            .collect();
        let mut s = Sliced::new();
        for piece in big.chunks(4093) {
            s.update(piece);
        }
        assert_eq!(s.finalize(), crc32(&big));
    }
}
