//! A 32-bit fingerprint of a value's bytes, taken at index time, so that
//! rules which only see the index can still tell whether two lines say the
//! same thing (a Codex fork's copy of its parent's lines).
//!
//! The fingerprints are kept beside the entries ([`Digests`]), not in them:
//! an [`Entry`](crate::Entry) fills its cache line, and only the lines of
//! formats that ask for one (`Action::Digest`) have a fingerprint. They are
//! used while the tree is built and dropped after.
//!
//! It reads the value's length and at most three 64-byte samples of it
//! (its start, middle and end; all of it up to 192 bytes), not every byte:
//! hashing whole Codex payloads cost opening a rollout 12 % more
//! instructions (the samples: 3 %), and the lines a fork has to be told
//! from differ near their start (a turn id, a call id, a prompt, a running
//! token total) or at their end (encrypted reasoning). Two values of one
//! length that differ only between the samples get the same digest. Not a
//! cryptographic hash either: it only has to tell apart the lines one
//! session writes.

const K: [u64; 4] = [
    0x9e37_79b9_7f4a_7c15,
    0xc2b2_ae3d_27d4_eb4f,
    0x1656_67b1_9e37_79f9,
    0x27d4_eb2f_1656_67c5,
];

/// Bytes per sample.
const SAMPLE: usize = 64;

#[inline]
fn word(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Four independent multiply lanes over 32-byte blocks.
#[inline]
fn absorb(lanes: &mut [u64; 4], bytes: &[u8]) {
    let mut blocks = bytes.chunks_exact(32);
    let mix = |lane: u64, w: u64, k: u64| (lane ^ w).wrapping_mul(k).rotate_left(31);
    for b in &mut blocks {
        for (i, lane) in lanes.iter_mut().enumerate() {
            *lane = mix(*lane, word(b, i * 8), K[i]);
        }
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 32];
        last[..rest.len()].copy_from_slice(rest);
        for (i, lane) in lanes.iter_mut().enumerate() {
            *lane = mix(*lane, word(&last, i * 8), K[i]);
        }
    }
}

/// The fingerprint of `bytes`; never 0, which stands for "none".
pub(crate) fn digest(bytes: &[u8]) -> u32 {
    let n = bytes.len();
    let mut lanes = [K[0] ^ n as u64, K[1], K[2], K[3]];
    if n <= 3 * SAMPLE {
        absorb(&mut lanes, bytes);
    } else {
        let middle = n / 2 - SAMPLE / 2;
        absorb(&mut lanes, &bytes[..SAMPLE]);
        absorb(&mut lanes, &bytes[middle..middle + SAMPLE]);
        absorb(&mut lanes, &bytes[n - SAMPLE..]);
    }
    // Fold the lanes and finish with murmur3's avalanche.
    let mut h =
        lanes[0] ^ lanes[1].rotate_left(17) ^ lanes[2].rotate_left(34) ^ lanes[3].rotate_left(51);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    (h as u32).max(1)
}

/// The fingerprints of the entries that have one, by entry index.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Digests {
    /// (entry, fingerprint), in entry order.
    of: Vec<(u32, u32)>,
}

impl Digests {
    /// Records the fingerprint of entry `entry`, the last one so far.
    pub fn push(&mut self, entry: usize, digest: u32) {
        self.of.push((entry as u32, digest));
    }

    /// Appends another reader's fingerprints, whose entries come after
    /// `before` entries of this one.
    pub fn append(&mut self, other: &mut Digests, before: usize) {
        let before = before as u32;
        self.of
            .extend(other.of.drain(..).map(|(e, d)| (e + before, d)));
    }

    /// The fingerprint of entry `entry`, 0 when it has none.
    pub fn get(&self, entry: usize) -> u32 {
        let entry = entry as u32;
        match self.of.binary_search_by_key(&entry, |&(e, _)| e) {
            Ok(i) => self.of[i].1,
            Err(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_bytes_equal_digests_and_small_changes_differ() {
        let a = br#"{"type":"message","role":"user","content":[{"type":"input_text","text":"A prompt 2"}]}"#;
        assert_eq!(digest(a), digest(&[&a[..40], &a[40..]].concat()));
        let b = br#"{"type":"message","role":"user","content":[{"type":"input_text","text":"B prompt 3"}]}"#;
        assert_ne!(digest(a), digest(b));
        // One byte anywhere, trailing zeros, and every length up to 100.
        let mut seen = std::collections::HashSet::new();
        for n in 0..=100 {
            assert!(seen.insert(digest(&vec![0u8; n])), "length {n}");
        }
        for i in 0..a.len() {
            let mut c = a.to_vec();
            c[i] ^= 1;
            assert!(seen.insert(digest(&c)), "byte {i}");
        }
        assert_ne!(digest(b""), 0);
        // A long value: a change at its start, middle or end, or in its
        // length, is seen.
        let long: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        for at in [0, 2500, 4999] {
            let mut c = long.clone();
            c[at] ^= 1;
            assert_ne!(digest(&c), digest(&long), "byte {at}");
        }
        assert_ne!(digest(&long[..4999]), digest(&long));
    }

    #[test]
    fn digests_are_found_by_entry_after_an_append() {
        let mut a = Digests::default();
        a.push(0, 7);
        a.push(2, 9);
        let mut b = Digests::default();
        b.push(1, 11);
        a.append(&mut b, 3);
        assert_eq!(
            (0..6).map(|e| a.get(e)).collect::<Vec<_>>(),
            [7, 0, 9, 0, 11, 0]
        );
    }
}
