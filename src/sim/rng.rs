//! The simulation's one source of randomness.
//!
//! Every random decision in a run (link jitter, election timeouts, the sticky
//! partitioner's choice) is drawn from this generator, so a seed replays a run
//! exactly. ChaCha8 is a named, portable algorithm: it gives the same stream on
//! wasm32 and on x86_64, which `SmallRng` does not promise.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// The seeded generator, with helpers that only ever return fixed-width integers.
#[derive(Clone, Debug)]
pub struct SimRng {
    inner: ChaCha8Rng,
}

impl SimRng {
    /// A generator whose whole stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        Self { inner: ChaCha8Rng::seed_from_u64(seed) }
    }

    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        self.inner.next_u32()
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// A value in `[0, bound)`; `bound` of 0 gives 0.
    ///
    /// Multiply-shift (Lemire) avoids the bias of a plain modulo for the
    /// small bounds the simulation uses, and stays in fixed-width arithmetic.
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            return 0;
        }
        let x = self.next_u64() as u128;
        ((x * bound as u128) >> 64) as u64
    }

    /// A value in `[low, high)`; an empty range gives `low`.
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            return low;
        }
        low + self.below(high - low)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOLDEN_FIRST: u64 = 13080132717333068652;

    #[test]
    fn same_seed_same_stream() {
        let mut a = SimRng::new(7);
        let mut b = SimRng::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn different_seeds_differ() {
        let mut a = SimRng::new(1);
        let mut b = SimRng::new(2);
        let same = (0..16).filter(|_| a.next_u64() == b.next_u64()).count();
        assert!(same < 16);
    }

    #[test]
    fn range_stays_in_bounds_and_covers_it() {
        let mut r = SimRng::new(42);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let v = r.range(10, 15);
            assert!((10..15).contains(&v), "{v} out of [10, 15)");
            seen[(v - 10) as usize] = true;
        }
        assert!(seen.iter().all(|s| *s), "every value of a small range appears");
        assert_eq!(r.range(3, 3), 3);
        assert_eq!(r.below(0), 0);
    }

    /// A golden value pins the algorithm: if a dependency upgrade changed the
    /// stream, every saved share link would replay differently.
    #[test]
    fn stream_is_pinned() {
        let mut r = SimRng::new(0);
        assert_eq!(r.next_u64(), GOLDEN_FIRST, "ChaCha8 seeded with 0 changed its first output");
    }
}
