//! A small deterministic pseudo-random generator (SplitMix64), one stream per generated input.
//!
//! Written here rather than taken from a crate: the fuzzer's promise is that a seed names the
//! same inputs on every build and platform, and forty lines of SplitMix64 keep that promise
//! without depending on a crate's stream staying stable across its versions. Its quality is
//! ample for choosing among cases; nothing here is cryptographic.

/// A SplitMix64 stream.
#[derive(Clone, Debug)]
pub struct Rng(u64);

/// SplitMix64's increment (the golden ratio in 64 bits).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function: a good 64-bit mixer on its own.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// The stream of input `index` of a run seeded with `seed`: independent of every other
    /// input's, so any worker can generate any input.
    pub fn for_input(seed: u64, index: u64) -> Rng {
        Rng(mix(seed ^ mix(index.wrapping_add(GAMMA))))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GAMMA);
        mix(self.0)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        // The multiply-shift reduction: unbiased enough for n far below 2^64.
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// True with probability `percent` in 100.
    pub fn percent(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    /// One element of a non-empty slice (`None` when it is empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        items.get(self.below(items.len()))
    }

    /// A number in `lo..=hi`.
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi.saturating_sub(lo) + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_and_index_give_the_same_stream() {
        let a: Vec<u64> = (0..4).map(|_| Rng::for_input(7, 3).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut x = Rng::for_input(7, 3);
        let mut y = Rng::for_input(7, 4);
        assert_ne!(x.next_u64(), y.next_u64());
    }

    #[test]
    fn below_stays_in_range_and_reaches_both_ends() {
        let mut rng = Rng::for_input(1, 1);
        let seen: Vec<usize> = (0..1000).map(|_| rng.below(5)).collect();
        assert!(seen.iter().all(|&n| n < 5));
        assert!(seen.contains(&0) && seen.contains(&4));
        assert_eq!(rng.below(0), 0);
    }
}
