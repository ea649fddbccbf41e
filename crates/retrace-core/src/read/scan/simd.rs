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
    /// `\n`, for counting lines (unused compares are optimised away).
    pub newline: u64,
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
        let newline = _mm_set1_epi8(b'\n' as i8);
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
            m.newline |= bits(_mm_cmpeq_epi8(v, newline));
        }
        m
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
pub(crate) fn classify(block: &[u8; 64]) -> Masks {
    let (quote, backslash) = quotes(block);
    structure(block, quote, backslash)
}

/// The 16-byte vectors of a block.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn vectors(block: &[u8; 64]) -> [core::arch::wasm32::v128; 4] {
    use core::arch::wasm32::*;
    // SAFETY: each load reads 16 bytes inside the 64-byte array; v128_load
    // has no alignment requirement.
    std::array::from_fn(|i| unsafe { v128_load(block.as_ptr().add(i * 16) as *const v128) })
}

/// See [`Kernel::quotes`]: a movemask per class and 16 bytes is what
/// classifying costs here, so a block inside a string pays for two.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn quotes(block: &[u8; 64]) -> (u64, u64) {
    use core::arch::wasm32::*;
    let (quote, backslash) = (u8x16_splat(b'"'), u8x16_splat(b'\\'));
    let (mut q, mut b) = (0u64, 0u64);
    for (i, v) in vectors(block).into_iter().enumerate() {
        q |= u64::from(u8x16_bitmask(u8x16_eq(v, quote))) << (i * 16);
        b |= u64::from(u8x16_bitmask(u8x16_eq(v, backslash))) << (i * 16);
    }
    (q, b)
}

/// See [`Kernel::structure`].
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn structure(block: &[u8; 64], quote: u64, backslash: u64) -> Masks {
    use core::arch::wasm32::*;
    let colon = u8x16_splat(b':');
    let comma = u8x16_splat(b',');
    let newline = u8x16_splat(b'\n');
    // `{`/`[` and `}`/`]` differ only in bit 0x20.
    let case = u8x16_splat(0x20);
    let open = u8x16_splat(b'{');
    let close = u8x16_splat(b'}');
    let mut m = Masks {
        quote,
        backslash,
        ..Masks::default()
    };
    for (i, v) in vectors(block).into_iter().enumerate() {
        let folded = v128_or(v, case);
        let bits = |x: v128| u64::from(u8x16_bitmask(x)) << (i * 16);
        m.open |= bits(u8x16_eq(folded, open));
        m.close |= bits(u8x16_eq(folded, close));
        m.colon |= bits(u8x16_eq(v, colon));
        m.comma |= bits(u8x16_eq(v, comma));
        m.newline |= bits(u8x16_eq(v, newline));
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
        m.newline |= pack(eq(w, b'\n')) << shift;
    }
    m
}

/// The vector operations one scan uses, chosen once per line: the baseline
/// for the build target, or (x86_64, detected at run time) AVX2 with a
/// carry-less multiply for the string prefix XOR.
pub(crate) trait Kernel {
    fn classify(block: &[u8; 64]) -> Masks;

    /// The quote and backslash masks alone: all that a block inside a
    /// string needs, most blocks of most lines.
    #[inline(always)]
    fn quotes(block: &[u8; 64]) -> (u64, u64) {
        let m = Self::classify(block);
        (m.quote, m.backslash)
    }

    /// All masks of a block whose [`Kernel::quotes`] are known. (Where
    /// classifying is one compare into a mask a class, the compiler merges
    /// this with `quotes`; where each class costs a movemask per 16 bytes,
    /// as in wasm, the split spares blocks inside strings five of seven.)
    #[inline(always)]
    fn structure(block: &[u8; 64], _quote: u64, _backslash: u64) -> Masks {
        Self::classify(block)
    }

    /// Classifies the last, partial block of a line (fewer than 64 bytes),
    /// as if blanks followed it.
    #[inline(always)]
    fn classify_tail(tail: &[u8]) -> Masks {
        let mut block = [b' '; 64];
        block[..tail.len()].copy_from_slice(tail);
        Self::classify(&block)
    }

    /// For each bit, the XOR of all bits at or below it.
    fn prefix_xor(x: u64) -> u64;
}

/// What every build of the target can run.
pub(crate) struct Baseline;

impl Kernel for Baseline {
    #[inline(always)]
    fn classify(block: &[u8; 64]) -> Masks {
        classify(block)
    }

    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(always)]
    fn quotes(block: &[u8; 64]) -> (u64, u64) {
        quotes(block)
    }

    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(always)]
    fn structure(block: &[u8; 64], quote: u64, backslash: u64) -> Masks {
        structure(block, quote, backslash)
    }

    #[inline(always)]
    fn prefix_xor(mut x: u64) -> u64 {
        x ^= x << 1;
        x ^= x << 2;
        x ^= x << 4;
        x ^= x << 8;
        x ^= x << 16;
        x ^= x << 32;
        x
    }
}

/// AVX2 + PCLMULQDQ. Only used from functions compiled with those features,
/// after checking the CPU has them.
#[cfg(target_arch = "x86_64")]
pub(crate) struct Avx2;

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// Whether this CPU can run the kernel.
    pub(crate) fn available() -> bool {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("pclmulqdq")
    }
}

#[cfg(target_arch = "x86_64")]
impl Kernel for Avx2 {
    #[inline(always)]
    fn classify(block: &[u8; 64]) -> Masks {
        use core::arch::x86_64::*;
        // SAFETY: only reached from `#[target_feature(enable = "avx2")]`
        // code after `Avx2::available()`; the loads are unaligned 32-byte
        // loads inside the 64-byte array.
        unsafe {
            let lo = _mm256_loadu_si256(block.as_ptr() as *const __m256i);
            let hi = _mm256_loadu_si256(block.as_ptr().add(32) as *const __m256i);
            let case = _mm256_set1_epi8(0x20);
            let (flo, fhi) = (_mm256_or_si256(lo, case), _mm256_or_si256(hi, case));
            let bits = |a: __m256i, b: __m256i, c: u8| {
                let c = _mm256_set1_epi8(c as i8);
                let l = _mm256_movemask_epi8(_mm256_cmpeq_epi8(a, c)) as u32 as u64;
                let h = _mm256_movemask_epi8(_mm256_cmpeq_epi8(b, c)) as u32 as u64;
                l | (h << 32)
            };
            Masks {
                quote: bits(lo, hi, b'"'),
                backslash: bits(lo, hi, b'\\'),
                open: bits(flo, fhi, b'{'),
                close: bits(flo, fhi, b'}'),
                colon: bits(lo, hi, b':'),
                comma: bits(lo, hi, b','),
                newline: bits(lo, hi, b'\n'),
            }
        }
    }

    #[inline(always)]
    fn prefix_xor(x: u64) -> u64 {
        use core::arch::x86_64::*;
        // SAFETY: as above, PCLMULQDQ was detected. A carry-less multiply
        // by all ones is the prefix XOR.
        unsafe {
            let product = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
            _mm_cvtsi128_si64(product) as u64
        }
    }
}

/// AVX-512BW (with PCLMULQDQ): one 64-byte compare per character class
/// straight into a mask register. Only used from functions compiled with
/// those features, after checking the CPU has them.
#[cfg(target_arch = "x86_64")]
pub(crate) struct Avx512;

#[cfg(target_arch = "x86_64")]
impl Avx512 {
    /// Whether this CPU can run the kernel.
    pub(crate) fn available() -> bool {
        std::is_x86_feature_detected!("avx512bw") && std::is_x86_feature_detected!("pclmulqdq")
    }
}

#[cfg(target_arch = "x86_64")]
impl Avx512 {
    #[inline(always)]
    fn classify_vector(v: core::arch::x86_64::__m512i) -> Masks {
        use core::arch::x86_64::*;
        // SAFETY: as for the loads, the CPU has AVX-512BW and this runs in
        // code compiled for it.
        unsafe {
            let folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
            let eq = |x: __m512i, c: u8| _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(c as i8));
            Masks {
                quote: eq(v, b'"'),
                backslash: eq(v, b'\\'),
                open: eq(folded, b'{'),
                close: eq(folded, b'}'),
                colon: eq(v, b':'),
                comma: eq(v, b','),
                newline: eq(v, b'\n'),
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Kernel for Avx512 {
    #[inline(always)]
    fn classify(block: &[u8; 64]) -> Masks {
        use core::arch::x86_64::*;
        // SAFETY: only reached from `#[target_feature(enable = "avx512bw")]`
        // code after `Avx512::available()`; the load is an unaligned 64-byte
        // load of the array.
        let v = unsafe { _mm512_loadu_si512(block.as_ptr() as *const __m512i) };
        Self::classify_vector(v)
    }

    /// A masked load: no copy into a padded buffer (a `memcpy` call and a
    /// load that waits for the copy's stores, once per line). The bytes
    /// past the tail read as zero, which no class contains, as blanks.
    #[inline(always)]
    fn classify_tail(tail: &[u8]) -> Masks {
        use core::arch::x86_64::*;
        debug_assert!(tail.len() < 64);
        let keep = (1u64 << tail.len()) - 1;
        // SAFETY: only reached after `Avx512::available()`, from code
        // compiled with AVX-512BW; the load reads only the bytes its mask
        // keeps, all inside `tail` (masked-off bytes are not accessed and
        // cannot fault).
        let v = unsafe { _mm512_maskz_loadu_epi8(keep, tail.as_ptr() as *const i8) };
        Self::classify_vector(v)
    }

    #[inline(always)]
    fn prefix_xor(x: u64) -> u64 {
        Avx2::prefix_xor(x)
    }
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
                b'\n' => m.newline |= bit,
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
                    *b = b"\"\\{}[]:,\n"[(i + round) % 9];
                }
            }
            let want = scalar(&block);
            let mut got = vec![classify(&block), classify_portable(&block)];
            #[cfg(target_arch = "x86_64")]
            if Avx2::available() {
                // SAFETY: the CPU has the features.
                got.push(unsafe { avx2_classify(&block) });
            }
            #[cfg(target_arch = "x86_64")]
            if Avx512::available() {
                // SAFETY: the CPU has the features.
                got.push(unsafe { avx512_classify(&block) });
            }
            for got in got {
                assert_eq!(got.quote, want.quote);
                assert_eq!(got.backslash, want.backslash);
                assert_eq!(got.open, want.open);
                assert_eq!(got.close, want.close);
                assert_eq!(got.colon, want.colon);
                assert_eq!(got.comma, want.comma);
                assert_eq!(got.newline, want.newline);
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,pclmulqdq")]
    fn avx2_classify(block: &[u8; 64]) -> Masks {
        Avx2::classify(block)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw,pclmulqdq")]
    fn avx512_classify(block: &[u8; 64]) -> Masks {
        Avx512::classify(block)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512bw,pclmulqdq")]
    fn avx512_classify_tail(tail: &[u8]) -> Masks {
        Avx512::classify_tail(tail)
    }

    /// A partial block classifies as the block padded with blanks, whatever
    /// follows it in memory (here: structural bytes, which must not show).
    #[test]
    fn tails_classify_as_if_blanks_followed() {
        let mut bytes = [0u8; 128];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = b"\"\\{}[]:,\nab"[i % 11];
        }
        for len in 0..64 {
            let tail = &bytes[..len];
            let mut padded = [b' '; 64];
            padded[..len].copy_from_slice(tail);
            let want = scalar(&padded);
            let mut got = vec![Baseline::classify_tail(tail)];
            #[cfg(target_arch = "x86_64")]
            if Avx512::available() {
                // SAFETY: the CPU has the features.
                got.push(unsafe { avx512_classify_tail(tail) });
            }
            for got in got {
                let masks = |m: Masks| {
                    [
                        m.quote,
                        m.backslash,
                        m.open,
                        m.close,
                        m.colon,
                        m.comma,
                        m.newline,
                    ]
                };
                assert_eq!(masks(got), masks(want), "{len} bytes");
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,pclmulqdq")]
    fn avx2_prefix_xor(x: u64) -> u64 {
        Avx2::prefix_xor(x)
    }

    #[test]
    fn prefix_xor_kernels_agree() {
        for x in [
            0u64,
            1,
            0b1001,
            0x8000_0000_0000_0001,
            0xdead_beef_0123_4567,
            !0,
        ] {
            let mut want = 0u64;
            let mut acc = 0u64;
            for i in 0..64 {
                acc ^= (x >> i) & 1;
                want |= acc << i;
            }
            assert_eq!(Baseline::prefix_xor(x), want);
            #[cfg(target_arch = "x86_64")]
            if Avx2::available() {
                // SAFETY: the CPU has the features.
                assert_eq!(unsafe { avx2_prefix_xor(x) }, want);
            }
        }
    }
}
