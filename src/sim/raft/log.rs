//! The replicated metadata log (`__cluster_metadata-0`) held in memory.
//!
//! Offsets start at 0 and have no gaps, since the simulation takes no
//! snapshots and so never moves the log start offset. The epoch/offset rules
//! follow raft/.../ReplicatedLog.java (`validateOffsetAndEpoch`,
//! `truncateToEndOffset`) and storage/.../LeaderEpochFileCache.java
//! (`endOffsetFor`).

use serde::{Deserialize, Serialize};

/// An epoch and an offset, ordered by epoch first and offset second, which is
/// the order Kafka uses to decide whose log is more up to date.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct OffsetAndEpoch {
    pub epoch: i32,
    pub offset: i64,
}

/// The control record a new leader writes at the start of its epoch
/// (Kafka's `LeaderChangeMessage`), so that its epoch has an entry it can
/// commit before exposing anything older.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderChange {
    pub leader: u32,
    pub voters: Vec<u32>,
    pub granting_voters: Vec<u32>,
}

/// What an entry holds: a control record of the quorum itself, or a record
/// of the caller's type (the controller's metadata records).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RaftRecord<R> {
    LeaderChange(LeaderChange),
    Data(R),
}

/// One entry of the metadata log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogEntry<R> {
    /// The epoch of the leader that appended the entry.
    pub epoch: i32,
    pub offset: i64,
    pub record: RaftRecord<R>,
}

/// The answer to "may a follower fetch from here?".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FetchValidation {
    /// The follower's log matches the leader's up to the fetch offset.
    Valid,
    /// The follower's log diverges; it must truncate using this epoch and
    /// the offset where that epoch ends in the leader's log.
    Diverging(OffsetAndEpoch),
}

/// Why a follower could not append what its leader sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AppendError {
    /// The entries do not start at the log end offset or have gaps.
    NonContiguous {
        expected_offset: i64,
        found_offset: i64,
    },
    /// Epochs in a log never decrease; entries that would make them do so
    /// cannot have come from a valid leader.
    EpochRegression {
        previous_epoch: i32,
        found_epoch: i32,
    },
}

/// The log itself. It is part of a node's durable state: it survives a crash.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaftLog<R> {
    entries: Vec<LogEntry<R>>,
}

impl<R> Default for RaftLog<R> {
    fn default() -> Self {
        RaftLog {
            entries: Vec::new(),
        }
    }
}

/// Vec lengths are usize; offsets are i64 on the wire, like Kafka's.
fn offset_of_index(index: usize) -> i64 {
    i64::try_from(index).unwrap_or(i64::MAX)
}

/// Returns None for negative offsets rather than wrapping.
fn index_of_offset(offset: i64) -> Option<usize> {
    usize::try_from(offset).ok()
}

impl<R: Clone> RaftLog<R> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn entries(&self) -> &[LogEntry<R>] {
        &self.entries
    }

    pub fn entry(&self, offset: i64) -> Option<&LogEntry<R>> {
        index_of_offset(offset).and_then(|index| self.entries.get(index))
    }

    /// One past the last offset; 0 for an empty log.
    pub fn end_offset(&self) -> i64 {
        offset_of_index(self.entries.len())
    }

    /// The epoch of the last entry, 0 when the log is empty (KafkaMetadataLog
    /// `lastFetchedEpoch`).
    pub fn last_fetched_epoch(&self) -> i32 {
        self.entries.last().map_or(0, |entry| entry.epoch)
    }

    /// The log end as an epoch and offset, the value candidates compare.
    pub fn end_offset_and_epoch(&self) -> OffsetAndEpoch {
        OffsetAndEpoch {
            epoch: self.last_fetched_epoch(),
            offset: self.end_offset(),
        }
    }

    /// The largest epoch not above `epoch` that the log holds, with the
    /// offset where it ends (the start offset of the next epoch, or the log
    /// end for the latest epoch). When every entry has a larger epoch, the
    /// answer is `epoch` itself ending at offset 0, as LeaderEpochFileCache
    /// answers for an epoch older than any it knows.
    pub fn end_offset_for_epoch(&self, epoch: i32) -> OffsetAndEpoch {
        let latest = self.last_fetched_epoch();
        if self.entries.is_empty() || epoch >= latest {
            return OffsetAndEpoch {
                epoch: latest,
                offset: self.end_offset(),
            };
        }
        // Epochs never decrease along the log, so the entries with a larger
        // epoch form a suffix and a binary search finds where it begins.
        let first_higher = self.entries.partition_point(|entry| entry.epoch <= epoch);
        let start_of_higher = offset_of_index(first_higher);
        match first_higher
            .checked_sub(1)
            .and_then(|index| self.entries.get(index))
        {
            Some(floor) => OffsetAndEpoch {
                epoch: floor.epoch,
                offset: start_of_higher,
            },
            None => OffsetAndEpoch {
                epoch,
                offset: start_of_higher,
            },
        }
    }

    /// The leader's check of a fetch at `offset` whose previous entry the
    /// follower holds with `epoch`.
    pub fn validate_offset_and_epoch(&self, offset: i64, epoch: i32) -> FetchValidation {
        // An empty follower log always matches, whatever epoch it reports.
        if offset == 0 {
            return FetchValidation::Valid;
        }
        let end = self.end_offset_for_epoch(epoch);
        if end.epoch != epoch || end.offset < offset {
            FetchValidation::Diverging(end)
        } else {
            FetchValidation::Valid
        }
    }

    /// The follower's side of a diverging fetch: truncate to where the
    /// leader's copy of the epoch ends, or to where the local copy of the
    /// nearest earlier epoch ends. Returns the new log end offset.
    pub fn truncate_to_end_offset(&mut self, diverging: OffsetAndEpoch) -> i64 {
        let truncation_offset = self.truncation_offset(diverging);
        self.truncate_to(truncation_offset);
        self.end_offset()
    }

    /// Where `truncate_to_end_offset` would cut, without cutting, so that
    /// the caller can refuse a truncation below its high watermark first.
    pub fn truncation_offset(&self, diverging: OffsetAndEpoch) -> i64 {
        if diverging.epoch == 0 {
            diverging.offset.min(self.end_offset())
        } else {
            let local = self.end_offset_for_epoch(diverging.epoch);
            if local.epoch == diverging.epoch {
                local.offset.min(diverging.offset)
            } else {
                local.offset
            }
        }
    }

    /// Drops every entry at or above `offset`; an offset past the end does
    /// nothing and a negative one empties the log.
    pub fn truncate_to(&mut self, offset: i64) {
        let keep = index_of_offset(offset).unwrap_or(0);
        self.entries.truncate(keep);
    }

    /// The leader's append: the offset is the log end, the epoch its own.
    pub fn append_as_leader(&mut self, epoch: i32, record: RaftRecord<R>) -> i64 {
        let offset = self.end_offset();
        self.entries.push(LogEntry {
            epoch,
            offset,
            record,
        });
        offset
    }

    /// The follower's append of entries copied from the leader. They must
    /// continue the log exactly; nothing is appended if any does not.
    /// Returns the first and last offsets appended.
    pub fn append_as_follower(
        &mut self,
        entries: Vec<LogEntry<R>>,
    ) -> Result<Option<(i64, i64)>, AppendError> {
        let mut previous_epoch = self.last_fetched_epoch();
        for (expected_offset, entry) in (self.end_offset()..).zip(entries.iter()) {
            if entry.offset != expected_offset {
                return Err(AppendError::NonContiguous {
                    expected_offset,
                    found_offset: entry.offset,
                });
            }
            if entry.epoch < previous_epoch {
                return Err(AppendError::EpochRegression {
                    previous_epoch,
                    found_epoch: entry.epoch,
                });
            }
            previous_epoch = entry.epoch;
        }
        let range = match (entries.first(), entries.last()) {
            (Some(first), Some(last)) => Some((first.offset, last.offset)),
            _ => None,
        };
        self.entries.extend(entries);
        Ok(range)
    }

    /// Up to `max_entries` entries starting at `from`, cloned for a fetch
    /// response.
    pub fn read(&self, from: i64, max_entries: u32) -> Vec<LogEntry<R>> {
        let start = index_of_offset(from).unwrap_or(0).min(self.entries.len());
        let count = usize::try_from(max_entries).unwrap_or(usize::MAX);
        let end = start.saturating_add(count).min(self.entries.len());
        self.entries[start..end].to_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log whose entries carry the given epochs, in order.
    fn log_with_epochs(epochs: &[i32]) -> RaftLog<u32> {
        let mut log = RaftLog::new();
        for (value, epoch) in epochs.iter().enumerate() {
            log.append_as_leader(*epoch, RaftRecord::Data(value as u32));
        }
        log
    }

    fn oe(epoch: i32, offset: i64) -> OffsetAndEpoch {
        OffsetAndEpoch { epoch, offset }
    }

    #[test]
    fn end_offset_for_epoch_follows_the_leader_epoch_cache() {
        // Offsets 0-1 epoch 1, 2-4 epoch 3, 5 epoch 4.
        let log = log_with_epochs(&[1, 1, 3, 3, 3, 4]);
        assert_eq!(log.end_offset_for_epoch(4), oe(4, 6));
        assert_eq!(log.end_offset_for_epoch(9), oe(4, 6));
        assert_eq!(log.end_offset_for_epoch(3), oe(3, 5));
        // Epoch 2 is absent: the floor is epoch 1, which ends where 3 begins.
        assert_eq!(log.end_offset_for_epoch(2), oe(1, 2));
        assert_eq!(log.end_offset_for_epoch(1), oe(1, 2));
        // Older than anything in the log.
        assert_eq!(log.end_offset_for_epoch(0), oe(0, 0));
        assert_eq!(RaftLog::<u32>::new().end_offset_for_epoch(5), oe(0, 0));
    }

    #[test]
    fn validation_accepts_matching_prefixes_and_reports_divergence() {
        let leader = log_with_epochs(&[1, 1, 3, 3, 3, 4]);
        assert_eq!(
            leader.validate_offset_and_epoch(0, 0),
            FetchValidation::Valid
        );
        assert_eq!(
            leader.validate_offset_and_epoch(4, 3),
            FetchValidation::Valid
        );
        assert_eq!(
            leader.validate_offset_and_epoch(6, 4),
            FetchValidation::Valid
        );
        // The follower has more of epoch 3 than the leader ever wrote.
        assert_eq!(
            leader.validate_offset_and_epoch(7, 3),
            FetchValidation::Diverging(oe(3, 5))
        );
        // The follower has an epoch 2 the leader never saw.
        assert_eq!(
            leader.validate_offset_and_epoch(3, 2),
            FetchValidation::Diverging(oe(1, 2))
        );
        // The follower is ahead of the leader's own latest epoch.
        assert_eq!(
            leader.validate_offset_and_epoch(8, 4),
            FetchValidation::Diverging(oe(4, 6))
        );
    }

    #[test]
    fn truncation_uses_the_smaller_end_of_the_shared_epoch() {
        // The follower wrote offsets 2-6 in epoch 3; the leader's epoch 3
        // ends at 5.
        let mut follower = log_with_epochs(&[1, 1, 3, 3, 3, 3, 3]);
        assert_eq!(follower.truncate_to_end_offset(oe(3, 5)), 5);
        // The follower has an epoch the leader lacks: it cuts back to the
        // end of its own copy of the leader's epoch 1.
        let mut follower = log_with_epochs(&[1, 1, 2, 2]);
        assert_eq!(follower.truncate_to_end_offset(oe(1, 2)), 2);
        let mut follower = log_with_epochs(&[2, 2]);
        assert_eq!(follower.truncate_to_end_offset(oe(1, 0)), 0);
        let mut follower = log_with_epochs(&[1, 1, 1]);
        assert_eq!(follower.truncate_to_end_offset(oe(0, 1)), 1);
    }

    #[test]
    fn follower_appends_must_continue_the_log() {
        let leader = log_with_epochs(&[1, 1, 2]);
        let mut follower = log_with_epochs(&[1]);
        assert_eq!(
            follower.append_as_follower(leader.read(1, 10)),
            Ok(Some((1, 2)))
        );
        assert_eq!(follower.entries(), leader.entries());
        let gap = leader.read(1, 10);
        assert_eq!(
            follower.append_as_follower(gap),
            Err(AppendError::NonContiguous {
                expected_offset: 3,
                found_offset: 1
            })
        );
        let mut regressing = log_with_epochs(&[2]);
        let old_epoch = vec![LogEntry {
            epoch: 1,
            offset: 1,
            record: RaftRecord::Data(9),
        }];
        assert_eq!(
            regressing.append_as_follower(old_epoch),
            Err(AppendError::EpochRegression {
                previous_epoch: 2,
                found_epoch: 1
            })
        );
        assert_eq!(leader.read(1, 1).len(), 1);
        assert!(leader.read(7, 3).is_empty());
    }
}
