//! A small deterministic generator (xorshift64*) for the randomized unit
//! tests.

pub(crate) struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a>(&mut self, from: &[&'a [u8]]) -> &'a [u8] {
        from[self.below(from.len())]
    }

    /// A random forest of up to `max` entries as `(node, parent)` vectors
    /// (`u32::MAX` for no parent), parents before their children: mostly
    /// chains, with fan-outs (a parent further back), roots, and entries
    /// that are not nodes (never a parent).
    pub fn forest(&mut self, max: usize) -> (Vec<bool>, Vec<u32>) {
        const NONE: u32 = u32::MAX;
        let n = 1 + self.below(max);
        let node: Vec<bool> = (0..n).map(|_| self.below(8) != 0).collect();
        let parent = (0..n)
            .map(|e| match self.below(4) {
                _ if e == 0 => NONE,
                0 => NONE,
                1 => self.below(e) as u32,
                _ => (e - 1) as u32,
            })
            .map(|p| {
                if p != NONE && !node[p as usize] {
                    NONE
                } else {
                    p
                }
            })
            .collect();
        (node, parent)
    }
}
