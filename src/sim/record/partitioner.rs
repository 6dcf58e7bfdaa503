//! How a producer picks the partition of a record that names none.
//!
//! Keyed records hash their key with Kafka's murmur2 and take it modulo the
//! partition count. Records without a key go to a *sticky* partition that
//! changes once about `batch.size` bytes went to it (Kafka 3.3+'s
//! `BuiltInPartitioner`), unless the producer is configured with the
//! `RoundRobinPartitioner`, which rotates record by record.
//!
//! Nothing here draws randomness of its own: the caller passes its single
//! seeded generator as a closure, so a simulation run replays exactly.

use serde::{Deserialize, Serialize};
use crate::sim::collections::BTreeMap;
use std::fmt;

/// Why no partition could be chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartitionerError {
    /// The topic has no partitions to choose from.
    NoPartitions {
        /// The topic, for the message.
        topic: String,
    },
}

impl fmt::Display for PartitionerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartitionerError::NoPartitions { topic } => {
                write!(f, "topic {topic} has no partitions to choose from")
            }
        }
    }
}

impl std::error::Error for PartitionerError {}

/// Kafka's `Utils.murmur2`: 32-bit MurmurHash2 with seed 0x9747b28c,
/// reading little-endian words, with Java's wrapping int arithmetic.
pub fn murmur2(data: &[u8]) -> i32 {
    const SEED: u32 = 0x9747_b28c;
    const M: u32 = 0x5bd1_e995;
    const R: u32 = 24;

    // Java takes the length as an int; truncating matches it for any array
    // Java could hold.
    let mut h: u32 = SEED ^ (data.len() as u32);

    let mut words = data.chunks_exact(4);
    for w in &mut words {
        let mut k = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M);
        h ^= k;
    }

    // The tail falls through 3 -> 2 -> 1 as in the Java switch.
    let tail = words.remainder();
    if tail.len() >= 3 {
        h ^= u32::from(tail[2]) << 16;
    }
    if tail.len() >= 2 {
        h ^= u32::from(tail[1]) << 8;
    }
    if !tail.is_empty() {
        h ^= u32::from(tail[0]);
        h = h.wrapping_mul(M);
    }

    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^= h >> 15;
    h as i32
}

/// Kafka's `Utils.toPositive`: clears the sign bit. It is a mask, not `abs`,
/// so `i32::MIN` maps to 0 rather than overflowing.
pub fn to_positive(value: i32) -> i32 {
    value & 0x7fff_ffff
}

/// Every step of a keyed choice, so the UI can show the hash and the modulo.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyedChoice {
    /// `murmur2(key)`, signed as Java prints it.
    pub murmur2: i32,
    /// `murmur2 & 0x7fffffff`.
    pub positive: i32,
    /// `positive % num_partitions`.
    pub partition: u32,
}

/// The partition of a keyed record: `(murmur2(key) & 0x7fffffff) % n`.
pub fn partition_for_key(key: &[u8], num_partitions: u32) -> Result<KeyedChoice, PartitionerError> {
    if num_partitions == 0 {
        return Err(PartitionerError::NoPartitions {
            topic: String::new(),
        });
    }
    let hash = murmur2(key);
    let positive = to_positive(hash);
    Ok(KeyedChoice {
        murmur2: hash,
        positive,
        // positive is never negative, so the cast keeps its value.
        partition: positive as u32 % num_partitions,
    })
}

/// Reduces a caller's random draw the way Kafka reduces `nextInt()`:
/// `toPositive(random) % n`.
fn pick(rng: &mut impl FnMut() -> u32, n: u32) -> u32 {
    (rng() & 0x7fff_ffff) % n
}

/// The partitions to choose among: the available ones that exist, or all of
/// them when none is available, as Kafka falls back to.
fn candidates(num_partitions: u32, available: &[u32]) -> Vec<u32> {
    let mut list: Vec<u32> = available
        .iter()
        .copied()
        .filter(|p| *p < num_partitions)
        .collect();
    if list.is_empty() {
        list = (0..num_partitions).collect();
    }
    list
}

/// Why the sticky partitioner answered as it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StickyReason {
    /// The first unkeyed record of the topic: a partition was drawn.
    First,
    /// The current sticky partition has not had `batch.size` bytes yet.
    Stayed {
        /// Bytes produced to it since it was chosen.
        bytes_so_far: u32,
    },
    /// The previous partition got its `batch.size` bytes, so a new one was
    /// drawn. It equals `previous` only when no other partition was available.
    Switched {
        /// The partition used until now.
        previous: u32,
    },
}

/// The answer of [`StickyPartitioner::partition`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StickyChoice {
    /// Where the record goes.
    pub partition: u32,
    /// Why.
    pub reason: StickyReason,
}

/// The sticky state of one topic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StickyState {
    partition: u32,
    produced_bytes: u32,
    switch_due: bool,
}

/// The sticky partitioner for unkeyed records, one state per topic, after
/// Kafka's `BuiltInPartitioner`.
///
/// Simplifications, each chosen so the simulation stays explainable:
/// - With `partitioner.adaptive.partitioning.enable` (the default) Kafka
///   weights the draw toward partitions whose leaders have less queued data.
///   The simulation draws uniformly instead.
/// - Kafka's uniform draw may land on the partition it just left; the
///   simulation picks among the *other* available partitions whenever there
///   are at least two, as the older `StickyPartitionCache` did, so every
///   switch is visible.
/// - Kafka only switches once the partition's batches are full, and at the
///   latest after `2 * batch.size` bytes, to align switches with batch
///   boundaries under a long `linger.ms`. The simulation switches as soon as
///   `batch.size` bytes were produced.
/// - The switch is decided in [`StickyPartitioner::record_appended`] but the
///   new partition is drawn on the next [`StickyPartitioner::partition`]
///   call, so the random draw happens where the UI reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StickyPartitioner {
    topics: BTreeMap<String, StickyState>,
}

impl StickyPartitioner {
    /// A partitioner that has not chosen anything yet.
    pub fn new() -> StickyPartitioner {
        StickyPartitioner::default()
    }

    /// The partition for the next unkeyed record, all partitions being available.
    pub fn partition(
        &mut self,
        topic: &str,
        num_partitions: u32,
        rng: &mut impl FnMut() -> u32,
    ) -> Result<StickyChoice, PartitionerError> {
        self.partition_among(topic, num_partitions, &[], rng)
    }

    /// The partition for the next unkeyed record, drawing only among
    /// `available` (partitions with a leader) when a draw is needed; an empty
    /// list means all partitions, as in Kafka.
    pub fn partition_among(
        &mut self,
        topic: &str,
        num_partitions: u32,
        available: &[u32],
        rng: &mut impl FnMut() -> u32,
    ) -> Result<StickyChoice, PartitionerError> {
        if num_partitions == 0 {
            return Err(PartitionerError::NoPartitions {
                topic: topic.to_string(),
            });
        }
        let pool = candidates(num_partitions, available);
        let Some(state) = self.topics.get_mut(topic) else {
            // The pool is never empty because num_partitions > 0.
            let partition = pool[pick(rng, pool.len() as u32) as usize];
            self.topics.insert(
                topic.to_string(),
                StickyState {
                    partition,
                    produced_bytes: 0,
                    switch_due: false,
                },
            );
            return Ok(StickyChoice {
                partition,
                reason: StickyReason::First,
            });
        };
        // A partition that no longer exists cannot be stuck to.
        if !state.switch_due && state.partition < num_partitions {
            return Ok(StickyChoice {
                partition: state.partition,
                reason: StickyReason::Stayed {
                    bytes_so_far: state.produced_bytes,
                },
            });
        }
        let previous = state.partition;
        let others: Vec<u32> = pool.iter().copied().filter(|p| *p != previous).collect();
        let from = if others.is_empty() { pool } else { others };
        let partition = from[pick(rng, from.len() as u32) as usize];
        *state = StickyState {
            partition,
            produced_bytes: 0,
            switch_due: false,
        };
        Ok(StickyChoice {
            partition,
            reason: StickyReason::Switched { previous },
        })
    }

    /// Counts `bytes` appended to `partition` of `topic`, and marks a switch
    /// as due once they reach `batch_size`. Appends to any other partition
    /// (keyed records, explicit partitions) do not count, as in Kafka.
    pub fn record_appended(&mut self, topic: &str, partition: u32, bytes: u32, batch_size: u32) {
        if let Some(state) = self.topics.get_mut(topic) {
            if state.partition != partition {
                return;
            }
            state.produced_bytes = state.produced_bytes.saturating_add(bytes);
            if state.produced_bytes >= batch_size {
                state.switch_due = true;
            }
        }
    }

    /// The current sticky partition of a topic, if one was chosen.
    pub fn current(&self, topic: &str) -> Option<u32> {
        self.topics.get(topic).map(|s| s.partition)
    }

    /// Bytes produced to the current sticky partition of a topic.
    pub fn bytes_so_far(&self, topic: &str) -> u32 {
        self.topics.get(topic).map_or(0, |s| s.produced_bytes)
    }
}

/// Kafka's `RoundRobinPartitioner`: a counter per topic, each record going
/// to the next partition in turn, keys ignored.
///
/// Some Kafka versions called the partitioner a second time whenever a new
/// batch was started (KAFKA-9965), so the real one could skip partitions; the
/// simulation models the intended rotation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundRobinPartitioner {
    counters: BTreeMap<String, u32>,
}

impl RoundRobinPartitioner {
    /// A partitioner whose counters all start at 0.
    pub fn new() -> RoundRobinPartitioner {
        RoundRobinPartitioner::default()
    }

    /// The next partition of the topic: `counter % num_partitions`.
    pub fn partition(&mut self, topic: &str, num_partitions: u32) -> Result<u32, PartitionerError> {
        self.partition_among(topic, num_partitions, &[])
    }

    /// The next partition among `available` (all when empty), as Kafka
    /// rotates over the available partitions when there are any.
    pub fn partition_among(
        &mut self,
        topic: &str,
        num_partitions: u32,
        available: &[u32],
    ) -> Result<u32, PartitionerError> {
        if num_partitions == 0 {
            return Err(PartitionerError::NoPartitions {
                topic: topic.to_string(),
            });
        }
        let pool = candidates(num_partitions, available);
        let counter = self.counters.entry(topic.to_string()).or_insert(0);
        let value = *counter;
        // Java's int counter wraps to negative and is masked by toPositive;
        // wrapping a u32 and masking gives the same sequence.
        *counter = counter.wrapping_add(1);
        Ok(pool[((value & 0x7fff_ffff) % pool.len() as u32) as usize])
    }

    /// How many records the topic's counter has handed out (mod 2^32).
    pub fn counter(&self, topic: &str) -> u32 {
        self.counters.get(topic).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small xorshift generator standing in for the simulation's seeded RNG.
    fn rng(seed: u32) -> impl FnMut() -> u32 {
        let mut state = seed.max(1);
        move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        }
    }

    #[test]
    fn murmur2_matches_kafka_vectors() {
        let cases: &[(&str, i32)] = &[
            ("21", -973_932_308),
            ("foobar", -790_332_482),
            ("a-little-bit-long-string", -985_981_536),
            ("a-little-bit-longer-string", -1_486_304_829),
            (
                "lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8",
                -58_897_971,
            ),
            ("abc", 479_470_107),
        ];
        for (input, expected) in cases {
            assert_eq!(murmur2(input.as_bytes()), *expected, "murmur2({input:?})");
        }
    }

    #[test]
    fn to_positive_is_a_mask() {
        assert_eq!(to_positive(5), 5);
        assert_eq!(to_positive(-1), i32::MAX);
        assert_eq!(to_positive(i32::MIN), 0);
        assert_eq!(to_positive(-790_332_482), 1_357_151_166);
    }

    #[test]
    fn keyed_partition_shows_each_step() {
        let choice = partition_for_key(b"foobar", 3).unwrap();
        assert_eq!(
            choice,
            KeyedChoice {
                murmur2: -790_332_482,
                positive: 1_357_151_166,
                partition: 1_357_151_166 % 3,
            }
        );
        let choice = partition_for_key(b"abc", 7).unwrap();
        assert_eq!(choice.positive, 479_470_107);
        assert_eq!(choice.partition, 479_470_107 % 7);
        assert_eq!(partition_for_key(b"", 1).unwrap().partition, 0);
        assert!(partition_for_key(b"x", 0).is_err());
    }

    #[test]
    fn sticky_stays_until_batch_size_then_switches() {
        let mut p = StickyPartitioner::new();
        let mut r = rng(42);
        let first = p.partition("t", 6, &mut r).unwrap();
        assert_eq!(first.reason, StickyReason::First);
        let sticky = first.partition;
        assert!(sticky < 6);

        // Four 4000-byte records stay: 16000 < 16384.
        for i in 0..4u32 {
            let c = p.partition("t", 6, &mut r).unwrap();
            assert_eq!(
                c,
                StickyChoice {
                    partition: sticky,
                    reason: StickyReason::Stayed {
                        bytes_so_far: i * 4000
                    },
                }
            );
            p.record_appended("t", c.partition, 4000, 16_384);
        }
        assert_eq!(p.bytes_so_far("t"), 16_000);
        let c = p.partition("t", 6, &mut r).unwrap();
        assert_eq!(
            c.reason,
            StickyReason::Stayed {
                bytes_so_far: 16_000
            }
        );
        p.record_appended("t", c.partition, 4000, 16_384);

        // 20000 >= 16384: the next record moves to another partition.
        let c = p.partition("t", 6, &mut r).unwrap();
        assert_eq!(c.reason, StickyReason::Switched { previous: sticky });
        assert_ne!(c.partition, sticky);
        assert_eq!(p.current("t"), Some(c.partition));
        assert_eq!(p.bytes_so_far("t"), 0);
    }

    #[test]
    fn sticky_switch_always_changes_partition_with_two_or_more() {
        let mut p = StickyPartitioner::new();
        let mut r = rng(7);
        let mut last = p.partition("t", 2, &mut r).unwrap().partition;
        for _ in 0..50 {
            p.record_appended("t", last, 16_384, 16_384);
            let c = p.partition("t", 2, &mut r).unwrap();
            assert_eq!(c.reason, StickyReason::Switched { previous: last });
            assert_ne!(c.partition, last);
            last = c.partition;
        }
    }

    #[test]
    fn sticky_is_deterministic_for_the_same_rng() {
        let run = |seed| {
            let mut p = StickyPartitioner::new();
            let mut r = rng(seed);
            let mut out = Vec::new();
            for i in 0..200u32 {
                let topic = if i % 3 == 0 { "a" } else { "b" };
                let c = p.partition(topic, 5, &mut r).unwrap();
                p.record_appended(topic, c.partition, 1000, 4096);
                out.push(c);
            }
            out
        };
        assert_eq!(run(1), run(1));
        assert_ne!(run(1), run(2));
        // Both topics keep their own state, and every partition gets used.
        let seen: Vec<u32> = run(3).iter().map(|c| c.partition).collect();
        for p in 0..5 {
            assert!(seen.contains(&p), "partition {p} never chosen");
        }
    }

    #[test]
    fn sticky_counts_only_its_own_partition() {
        let mut p = StickyPartitioner::new();
        let mut r = rng(9);
        let c = p.partition("t", 4, &mut r).unwrap();
        let other = (c.partition + 1) % 4;
        p.record_appended("t", other, 100_000, 16_384);
        p.record_appended("unknown", 0, 100_000, 16_384);
        assert_eq!(
            p.partition("t", 4, &mut r).unwrap().reason,
            StickyReason::Stayed { bytes_so_far: 0 }
        );
    }

    #[test]
    fn sticky_edge_cases() {
        let mut p = StickyPartitioner::new();
        let mut r = rng(5);
        assert!(p.partition("t", 0, &mut r).is_err());
        // One partition: the switch lands where it was.
        assert_eq!(p.partition("one", 1, &mut r).unwrap().partition, 0);
        p.record_appended("one", 0, 20_000, 16_384);
        assert_eq!(
            p.partition("one", 1, &mut r).unwrap(),
            StickyChoice {
                partition: 0,
                reason: StickyReason::Switched { previous: 0 }
            }
        );
        // Draws respect the available partitions.
        for _ in 0..20 {
            let c = p.partition_among("av", 6, &[2, 4], &mut r).unwrap();
            assert!(c.partition == 2 || c.partition == 4);
            p.record_appended("av", c.partition, 20_000, 16_384);
        }
        // A draw with a constant rng is fully predictable: 7 % 3 picks index 1.
        let mut fixed = || 7u32;
        let mut q = StickyPartitioner::new();
        assert_eq!(q.partition("t", 3, &mut fixed).unwrap().partition, 1);
        q.record_appended("t", 1, 16_384, 16_384);
        // Others are [0, 2]; 7 % 2 picks index 1.
        assert_eq!(q.partition("t", 3, &mut fixed).unwrap().partition, 2);
        // The sign bit is masked as Kafka's toPositive does: 0x8000_0001 -> 1.
        let mut high = || 0x8000_0001u32;
        let mut s = StickyPartitioner::new();
        assert_eq!(s.partition("t", 3, &mut high).unwrap().partition, 1);
    }

    #[test]
    fn round_robin_rotates_per_topic() {
        let mut p = RoundRobinPartitioner::new();
        let got: Vec<u32> = (0..7).map(|_| p.partition("a", 3).unwrap()).collect();
        assert_eq!(got, vec![0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(p.partition("b", 2).unwrap(), 0);
        assert_eq!(p.partition("a", 3).unwrap(), 1);
        assert_eq!(p.counter("a"), 8);
        assert_eq!(p.counter("b"), 1);
        assert!(p.partition("a", 0).is_err());
        let mut q = RoundRobinPartitioner::new();
        let got: Vec<u32> = (0..4)
            .map(|_| q.partition_among("t", 5, &[1, 3]).unwrap())
            .collect();
        assert_eq!(got, vec![1, 3, 1, 3]);
    }

    #[test]
    fn errors_display() {
        let e = PartitionerError::NoPartitions {
            topic: "t".to_string(),
        };
        assert!(e.to_string().contains("no partitions"));
    }
}
