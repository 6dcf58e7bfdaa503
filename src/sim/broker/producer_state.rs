//! The idempotent producer's state on a partition leader (Kafka's
//! ProducerStateManager and ProducerAppendInfo): for each producer id its
//! epoch and the metadata of its last five batches, so a retried batch is
//! recognised and answered with its original offsets instead of appended twice.

use crate::sim::collections::BTreeMap;
use crate::sim::record::batch::BatchHeader;
use std::collections::VecDeque;

/// How many batches per producer the broker remembers (Kafka's
/// `ProducerStateEntry.NUM_BATCHES_TO_RETAIN`), which is why
/// `max.in.flight.requests.per.connection` may be at most 5 with idempotence.
pub const BATCHES_TO_RETAIN: usize = 5;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchMetadata {
    pub first_seq: i32,
    pub last_seq: i32,
    pub first_offset: i64,
    pub last_offset: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProducerEntry {
    pub epoch: i16,
    pub batches: VecDeque<BatchMetadata>,
}

/// The verdict on an incoming batch from an idempotent producer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SequenceCheck {
    /// Append it.
    InSequence,
    /// Already in the log: answer with the original offsets.
    Duplicate(BatchMetadata),
    /// A gap or a reordering: Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER.
    OutOfOrder { expected: i32, got: i32 },
    /// An epoch older than the one the broker knows: the producer was fenced.
    FencedEpoch { current: i16, got: i16 },
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProducerStateManager {
    producers: BTreeMap<i64, ProducerEntry>,
}

impl ProducerStateManager {
    pub fn check(&self, producer_id: i64, epoch: i16, first_seq: i32, last_seq: i32) -> SequenceCheck {
        let Some(entry) = self.producers.get(&producer_id) else {
            // ProducerAppendInfo.checkSequence: a producer the broker holds no
            // state for (a new leader that never saw it, or one whose batches
            // retention deleted) is accepted at any sequence.
            return SequenceCheck::InSequence;
        };
        if epoch < entry.epoch {
            return SequenceCheck::FencedEpoch { current: entry.epoch, got: epoch };
        }
        if epoch > entry.epoch {
            // A bumped epoch restarts the sequence.
            return if first_seq == 0 {
                SequenceCheck::InSequence
            } else {
                SequenceCheck::OutOfOrder { expected: 0, got: first_seq }
            };
        }
        if let Some(dup) = entry.batches.iter().find(|b| b.first_seq == first_seq && b.last_seq == last_seq) {
            return SequenceCheck::Duplicate(dup.clone());
        }
        let expected = entry.batches.back().map(|b| b.last_seq.wrapping_add(1)).unwrap_or(0);
        if first_seq == expected {
            SequenceCheck::InSequence
        } else {
            SequenceCheck::OutOfOrder { expected, got: first_seq }
        }
    }

    /// Remembers an appended batch, keeping only the last five.
    pub fn record(&mut self, producer_id: i64, epoch: i16, batch: BatchMetadata) {
        let entry = self.producers.entry(producer_id).or_insert(ProducerEntry { epoch, batches: VecDeque::new() });
        if epoch > entry.epoch {
            entry.epoch = epoch;
            entry.batches.clear();
        }
        entry.batches.push_back(batch);
        while entry.batches.len() > BATCHES_TO_RETAIN {
            entry.batches.pop_front();
        }
    }

    /// Remembers a batch appended at `first_offset..=last_offset`, leader or
    /// follower alike (UnifiedLog.append updates the producer state for
    /// every append), from its header; a batch of no idempotent producer
    /// (producer id -1) leaves no state.
    pub fn record_appended(&mut self, header: &BatchHeader, first_offset: i64, last_offset: i64) {
        if header.producer_id < 0 {
            return;
        }
        let batch = BatchMetadata {
            first_seq: header.base_sequence,
            last_seq: header.base_sequence.wrapping_add(header.last_offset_delta),
            first_offset,
            last_offset,
        };
        self.record(header.producer_id, header.producer_epoch, batch);
    }

    /// Forgets batches at or above `offset`, as a follower truncation does.
    pub fn truncate_to(&mut self, offset: i64) {
        for entry in self.producers.values_mut() {
            entry.batches.retain(|b| b.last_offset < offset);
        }
        self.producers.retain(|_, e| !e.batches.is_empty());
    }

    pub fn producers(&self) -> impl Iterator<Item = (&i64, &ProducerEntry)> {
        self.producers.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(first_seq: i32, last_seq: i32, first_offset: i64) -> BatchMetadata {
        BatchMetadata { first_seq, last_seq, first_offset, last_offset: first_offset + (last_seq - first_seq) as i64 }
    }

    #[test]
    fn a_producer_the_broker_does_not_know_is_accepted_at_any_sequence() {
        // ProducerAppendInfo.checkSequence with no current entry.
        let s = ProducerStateManager::default();
        assert_eq!(s.check(7, 0, 0, 2), SequenceCheck::InSequence);
        assert_eq!(s.check(7, 0, 3, 4), SequenceCheck::InSequence);
    }

    #[test]
    fn a_retry_is_a_duplicate_with_the_original_offsets() {
        let mut s = ProducerStateManager::default();
        s.record(7, 0, meta(0, 2, 10));
        assert_eq!(s.check(7, 0, 0, 2), SequenceCheck::Duplicate(meta(0, 2, 10)));
        assert_eq!(s.check(7, 0, 3, 3), SequenceCheck::InSequence);
        assert_eq!(s.check(7, 0, 5, 5), SequenceCheck::OutOfOrder { expected: 3, got: 5 });
    }

    #[test]
    fn only_five_batches_are_remembered() {
        let mut s = ProducerStateManager::default();
        for i in 0..6 {
            s.record(1, 0, meta(i, i, i as i64));
        }
        // The first batch fell out of the cache: a retry of it is no longer
        // recognised, so it is out of order rather than a duplicate.
        assert!(matches!(s.check(1, 0, 0, 0), SequenceCheck::OutOfOrder { .. }));
        assert_eq!(s.check(1, 0, 1, 1), SequenceCheck::Duplicate(meta(1, 1, 1)));
    }

    #[test]
    fn epochs_fence_and_restart_sequences() {
        let mut s = ProducerStateManager::default();
        s.record(1, 3, meta(0, 0, 0));
        assert_eq!(s.check(1, 2, 1, 1), SequenceCheck::FencedEpoch { current: 3, got: 2 });
        assert_eq!(s.check(1, 4, 0, 0), SequenceCheck::InSequence);
        assert_eq!(s.check(1, 4, 1, 1), SequenceCheck::OutOfOrder { expected: 0, got: 1 });
    }

    #[test]
    fn truncation_forgets_batches_above_the_offset() {
        let mut s = ProducerStateManager::default();
        s.record(1, 0, meta(0, 0, 0));
        s.record(1, 0, meta(1, 1, 1));
        s.truncate_to(1);
        assert_eq!(s.check(1, 0, 1, 1), SequenceCheck::InSequence);
    }
}
