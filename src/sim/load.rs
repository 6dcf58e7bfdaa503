//! A producer's load generator: a steady stream of records at a fixed rate
//! in simulated time, the way a learner would run `kafka-producer-perf-test`
//! (`--throughput`, `--record-size`) against a cluster to watch linger.ms
//! and batch.size fill batches, queues build up and purgatory grow.
//!
//! Record `k` of a run is due `k * 1000 / records_per_sec` ms after the run
//! started, in whole milliseconds, so the rate is exact over any second and
//! the run is the same on every replay. Random keys come from the
//! simulation's seeded RNG.

use super::rng::SimRng;
use serde::{Deserialize, Serialize};

/// The most records a second one load generator sends: one a millisecond,
/// the simulation's finest time step.
pub const MAX_RECORDS_PER_SEC: u32 = 1000;

/// A record's value size when a load's settings do not say.
pub const DEFAULT_VALUE_BYTES: u32 = 100;

/// The most distinct keys a fixed set may have.
pub const MAX_FIXED_KEYS: u32 = 10_000;

/// Which keys a load generator's records carry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyPattern {
    /// No key: the sticky partitioner fills one partition's batch before
    /// it moves to another.
    #[default]
    None,
    /// `key-0` up to `key-{n - 1}`, in turn: each key always lands on the
    /// same partition, so the partitions fill as unevenly as the keys hash.
    Fixed(u32),
    /// A fresh random key for each record, spread over every partition.
    Random,
}

/// What a load generator sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Load {
    pub topic: String,
    pub records_per_sec: u32,
    pub keys: KeyPattern,
    /// The size of each record's value in bytes.
    pub value_bytes: u32,
}

/// Why a load generator's settings were refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// Not within 1 to [`MAX_RECORDS_PER_SEC`].
    Rate(u32),
    /// A fixed key set must have 1 to [`MAX_FIXED_KEYS`] keys.
    KeyCount(u32),
}

impl Load {
    /// The most bytes a key of this load takes.
    pub fn longest_key(&self) -> usize {
        match self.keys {
            KeyPattern::None => 0,
            KeyPattern::Fixed(n) => format!("key-{}", n.saturating_sub(1)).len(),
            KeyPattern::Random => "key-999999999".len(),
        }
    }

    pub fn check(&self) -> Result<(), LoadError> {
        if !(1..=MAX_RECORDS_PER_SEC).contains(&self.records_per_sec) {
            return Err(LoadError::Rate(self.records_per_sec));
        }
        if let KeyPattern::Fixed(n) = self.keys {
            if !(1..=MAX_FIXED_KEYS).contains(&n) {
                return Err(LoadError::KeyCount(n));
            }
        }
        Ok(())
    }
}

/// A running load generator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadRun {
    pub load: Load,
    pub started_ms: u64,
    /// How many records it sent.
    pub sent: u64,
    /// Which run of this producer's generator it is: a timer armed by an
    /// earlier run finds another number and does nothing.
    pub generation: u32,
}

/// One record a load generator hands to `send()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadRecord {
    pub key: Option<String>,
    pub value: String,
}

impl LoadRun {
    /// When record number `k` is due.
    fn due_ms(&self, k: u64) -> u64 {
        self.started_ms + k * 1000 / u64::from(self.load.records_per_sec)
    }

    /// The records due by `now_ms` that it has not sent yet, counted as
    /// sent.
    pub fn take_due(&mut self, now_ms: u64, rng: &mut SimRng) -> Vec<LoadRecord> {
        let mut records = Vec::new();
        while self.due_ms(self.sent) <= now_ms {
            let key = match self.load.keys {
                KeyPattern::None => None,
                KeyPattern::Fixed(n) => Some(format!("key-{}", self.sent % u64::from(n))),
                KeyPattern::Random => Some(format!("key-{}", rng.below(1_000_000_000))),
            };
            records.push(LoadRecord { key, value: value_of(self.sent, self.load.value_bytes) });
            self.sent += 1;
        }
        records
    }

    /// How long after `now_ms` the next record is due.
    pub fn next_after_ms(&self, now_ms: u64) -> u64 {
        self.due_ms(self.sent).saturating_sub(now_ms)
    }
}

/// A value of exactly `bytes` bytes that says which record it is: the
/// record's number, then dots, cut to the size.
fn value_of(k: u64, bytes: u32) -> String {
    let mut value = format!("{k}");
    let bytes = bytes as usize;
    value.truncate(bytes);
    value.extend(std::iter::repeat_n('.', bytes - value.len()));
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(records_per_sec: u32, keys: KeyPattern) -> LoadRun {
        let load = Load { topic: "orders".into(), records_per_sec, keys, value_bytes: 8 };
        LoadRun { load, started_ms: 1_000, sent: 0, generation: 1 }
    }

    #[test]
    fn a_load_sends_its_rate_exactly_over_each_second() {
        let mut rng = SimRng::new(7);
        for rate in [1, 3, 7, 50, 999, 1000] {
            let mut r = run(rate, KeyPattern::None);
            let mut sent = 0;
            let mut now = 1_000;
            while now < 4_000 {
                sent += r.take_due(now, &mut rng).len();
                let after = r.next_after_ms(now);
                assert!(after > 0, "{rate}/s: the next record is later than now");
                now += after;
            }
            assert_eq!(sent as u32, 3 * rate, "{rate}/s over three seconds");
        }
    }

    #[test]
    fn the_first_record_goes_at_once_and_a_late_tick_catches_up() {
        let mut rng = SimRng::new(7);
        let mut r = run(10, KeyPattern::None);
        assert_eq!(r.take_due(1_000, &mut rng).len(), 1);
        assert_eq!(r.next_after_ms(1_000), 100);
        assert_eq!(r.take_due(1_350, &mut rng).len(), 3, "the records due at 1,100, 1,200 and 1,300 ms");
        assert_eq!(r.next_after_ms(1_350), 50);
    }

    #[test]
    fn keys_follow_their_pattern_and_values_their_size() {
        let mut rng = SimRng::new(7);
        let mut fixed = run(1000, KeyPattern::Fixed(3));
        let keys: Vec<_> = fixed.take_due(1_004, &mut rng).into_iter().map(|r| r.key.unwrap()).collect();
        assert_eq!(keys, ["key-0", "key-1", "key-2", "key-0", "key-1"]);
        let mut none = run(1000, KeyPattern::None);
        assert!(none.take_due(1_002, &mut rng).iter().all(|r| r.key.is_none()));
        let mut random = run(1000, KeyPattern::Random);
        let keys: Vec<_> = random.take_due(1_009, &mut rng).into_iter().map(|r| r.key.unwrap()).collect();
        let distinct: std::collections::BTreeSet<_> = keys.iter().collect();
        assert_eq!(distinct.len(), 10, "random keys differ: {keys:?}");
        assert_eq!(value_of(42, 8), "42......");
        assert_eq!(value_of(123_456, 3), "123");
        assert_eq!(value_of(5, 0), "");
    }

    #[test]
    fn settings_out_of_range_are_refused() {
        let ok = run(50, KeyPattern::Fixed(10)).load;
        assert_eq!(ok.check(), Ok(()));
        assert_eq!(Load { records_per_sec: 0, ..ok.clone() }.check(), Err(LoadError::Rate(0)));
        assert_eq!(Load { records_per_sec: 1001, ..ok.clone() }.check(), Err(LoadError::Rate(1001)));
        assert_eq!(Load { keys: KeyPattern::Fixed(0), ..ok.clone() }.check(), Err(LoadError::KeyCount(0)));
        assert_eq!(Load { keys: KeyPattern::Fixed(10_001), ..ok }.check(), Err(LoadError::KeyCount(10_001)));
    }
}
