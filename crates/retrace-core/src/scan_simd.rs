//! Classifies 64 bytes at a time into bit masks for the scanner.
//!
//! x86_64 always has SSE2; wasm32 uses simd128 when the build enables it
//! (`-C target-feature=+simd128`); everything else takes the portable path.

/// One bit per byte of a 64-byte block, bit `i` for byte `i`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Masks {
    pub quote: u64,
    pub backslash: u64,
    /// `{` or `[`.
    pub open: u64,
    /// `}` or `]`.
    pub close: u64,
    pub colon: u64,
    pub comma: u64,
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn classify(block: &[u8; 64]) -> Masks {
    use core::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86_64 baseline; the loads are unaligned
    // loads of 16 bytes inside the 64-byte array.
    unsafe {
        let quote = _mm_set1_epi8(b'"' as i8);
        let backslash = _mm_set1_epi8(b'\\' as i8);
        let colon = _mm_set1_epi8(b':' as i8);
        let comma = _mm_set1_epi8(b',' as i8);
        // `{`/`[` and `}`/`]` differ only in bit 0x20.
        let case = _mm_set1_epi8(0x20);
        let open = _mm_set1_epi8(b'{' as i8);
        let close = _mm_set1_epi8(b'}' as i8);
        let mut m = Masks::default();
        for i in 0..4 {
            let v = _mm_loadu_si128(block.as_ptr().add(i * 16) as *const __m128i);
            let folded = _mm_or_si128(v, case);
            let shift = i * 16;
            let bits = |x: __m128i| (_mm_movemask_epi8(x) as u32 as u64) << shift;
            m.quote |= bits(_mm_cmpeq_epi8(v, quote));
            m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
            m.open |= bits(_mm_cmpeq_epi8(folded, open));
            m.close |= bits(_mm_cmpeq_epi8(folded, close));
            m.colon |= bits(_mm_cmpeq_epi8(v, colon));
            m.comma |= bits(_mm_cmpeq_epi8(v, comma));
        }
        m
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub(crate) fn classify(block: &[u8; 64]) -> Masks {
    use core::arch::wasm32::*;
    let quote = u8x16_splat(b'"');
    let backslash = u8x16_splat(b'\\');
    let colon = u8x16_splat(b':');
    let comma = u8x16_splat(b',');
    let case = u8x16_splat(0x20);
    let open = u8x16_splat(b'{');
    let close = u8x16_splat(b'}');
    let mut m = Masks::default();
    for i in 0..4 {
        // SAFETY: reads 16 bytes inside the 64-byte array; v128_load has no
        // alignment requirement.
        let v = unsafe { v128_load(block.as_ptr().add(i * 16) as *const v128) };
        let folded = v128_or(v, case);
        let shift = i * 16;
        let bits = |x: v128| u64::from(u8x16_bitmask(x)) << shift;
        m.quote |= bits(u8x16_eq(v, quote));
        m.backslash |= bits(u8x16_eq(v, backslash));
        m.open |= bits(u8x16_eq(folded, open));
        m.close |= bits(u8x16_eq(folded, close));
        m.colon |= bits(u8x16_eq(v, colon));
        m.comma |= bits(u8x16_eq(v, comma));
    }
    m
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
#[inline(always)]
pub(crate) fn classify(block: &[u8; 64]) -> Masks {
    classify_portable(block)
}

/// The portable classifier, eight bytes at a time (SWAR). Also the reference
/// the vector versions are tested against.
#[cfg_attr(
    any(
        target_arch = "x86_64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ),
    allow(dead_code)
)]
#[inline(always)]
pub(crate) fn classify_portable(block: &[u8; 64]) -> Masks {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    // High bit set in each byte of `w` equal to `b` (exact: no false hits).
    #[inline(always)]
    fn eq(w: u64, b: u8) -> u64 {
        let x = w ^ (LO * u64::from(b));
        !(((x & !HI) + !HI) | x) & HI
    }
    // Gathers the eight high bits into the low byte.
    #[inline(always)]
    fn pack(x: u64) -> u64 {
        ((x >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56
    }
    let mut m = Masks::default();
    for (i, chunk) in block.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let folded = w | (LO * 0x20);
        let shift = i * 8;
        m.quote |= pack(eq(w, b'"')) << shift;
        m.backslash |= pack(eq(w, b'\\')) << shift;
        m.open |= pack(eq(folded, b'{')) << shift;
        m.close |= pack(eq(folded, b'}')) << shift;
        m.colon |= pack(eq(w, b':')) << shift;
        m.comma |= pack(eq(w, b',')) << shift;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scalar(block: &[u8; 64]) -> Masks {
        let mut m = Masks::default();
        for (i, &b) in block.iter().enumerate() {
            let bit = 1u64 << i;
            match b {
                b'"' => m.quote |= bit,
                b'\\' => m.backslash |= bit,
                b'{' | b'[' => m.open |= bit,
                b'}' | b']' => m.close |= bit,
                b':' => m.colon |= bit,
                b',' => m.comma |= bit,
                _ => {}
            }
        }
        m
    }

    #[test]
    fn vector_and_portable_agree_with_scalar() {
        // Every byte value at every position, mixed with structural bytes.
        let alphabet: Vec<u8> = (0..=255u8).collect();
        for round in 0..64usize {
            let mut block = [0u8; 64];
            for (i, b) in block.iter_mut().enumerate() {
                *b = alphabet[(i * 7 + round * 13 + i * i) % 256];
                if (i + round) % 5 == 0 {
                    *b = b"\"\\{}[]:,"[(i + round) % 8];
                }
            }
            let want = scalar(&block);
            for got in [classify(&block), classify_portable(&block)] {
                assert_eq!(got.quote, want.quote);
                assert_eq!(got.backslash, want.backslash);
                assert_eq!(got.open, want.open);
                assert_eq!(got.close, want.close);
                assert_eq!(got.colon, want.colon);
                assert_eq!(got.comma, want.comma);
            }
        }
    }
}
