//! The leader epoch cache of one replica (LeaderEpochFileCache.java).
//!
//! Each entry says "epoch E started at offset O". A new leader records its
//! epoch at its log end offset, and every appended batch records the epoch
//! stamped on it. Followers ask the leader for the end offset of the last
//! epoch they have; where the leader's history diverges, they truncate. Kafka
//! checkpoints this to `leader-epoch-checkpoint`; here it lives in memory.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Kafka's `OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH`.
pub const UNDEFINED_EPOCH: i32 = -1;
/// Kafka's `OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH_OFFSET`.
pub const UNDEFINED_EPOCH_OFFSET: i64 = -1;

/// One (epoch, start offset) pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpochEntry {
    pub epoch: i32,
    pub start_offset: i64,
}

/// Why an entry could not be recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum EpochError {
    /// Kafka refuses negative epochs and offsets with IllegalArgumentException.
    InvalidEntry { epoch: i32, start_offset: i64 },
}

impl fmt::Display for EpochError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EpochError::InvalidEntry {
                epoch,
                start_offset,
            } => write!(
                f,
                "invalid partition leader epoch entry (epoch {epoch}, start offset {start_offset}): both must be ≥ 0"
            ),
        }
    }
}

impl std::error::Error for EpochError {}

/// The ordered epoch history. Entries are sorted by epoch, and the start
/// offsets strictly increase with them; `assign` keeps both true.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderEpochCache {
    entries: Vec<EpochEntry>,
}

impl LeaderEpochCache {
    pub fn new() -> LeaderEpochCache {
        LeaderEpochCache::default()
    }

    /// All entries, oldest epoch first.
    pub fn entries(&self) -> &[EpochEntry] {
        &self.entries
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn latest_entry(&self) -> Option<EpochEntry> {
        self.entries.last().copied()
    }

    pub fn earliest_entry(&self) -> Option<EpochEntry> {
        self.entries.first().copied()
    }

    /// The latest epoch with an entry, which is the epoch a follower sends as
    /// `lastFetchedEpoch`.
    pub fn latest_epoch(&self) -> Option<i32> {
        self.entries.last().map(|e| e.epoch)
    }

    /// The epoch before the latest one, if any.
    pub fn previous_epoch(&self) -> Option<i32> {
        let n = self.entries.len();
        if n >= 2 {
            Some(self.entries[n - 2].epoch)
        } else {
            None
        }
    }

    /// Records that `epoch` starts at `start_offset`, with Kafka's rules:
    /// - nothing changes when `epoch` is already the latest epoch and
    ///   `start_offset` is not earlier than its start (an epoch's start, once
    ///   set, is not moved forward by later batches of the same epoch);
    /// - otherwise every entry at the end whose epoch ≥ `epoch` or whose start
    ///   offset ≥ `start_offset` is removed first, so both columns stay
    ///   monotonic, and the new entry becomes the latest.
    ///
    /// So a lower epoch is not ignored: it rewrites the tail, exactly as
    /// LeaderEpochFileCache.assign does. Returns whether the cache changed.
    pub fn assign(&mut self, epoch: i32, start_offset: i64) -> Result<bool, EpochError> {
        if epoch < 0 || start_offset < 0 {
            return Err(EpochError::InvalidEntry {
                epoch,
                start_offset,
            });
        }
        let update_needed = match self.entries.last() {
            None => true,
            Some(latest) => latest.epoch != epoch || start_offset < latest.start_offset,
        };
        if !update_needed {
            return Ok(false);
        }
        while let Some(last) = self.entries.last() {
            if last.epoch >= epoch || last.start_offset >= start_offset {
                self.entries.pop();
            } else {
                break;
            }
        }
        self.entries.push(EpochEntry {
            epoch,
            start_offset,
        });
        Ok(true)
    }

    /// The leader's answer to OffsetsForLeaderEpoch (endOffsetFor):
    /// - None (UNDEFINED) for `UNDEFINED_EPOCH`, an empty cache, or an epoch
    ///   above every known epoch that is not the latest;
    /// - (requested, `log_end_offset`) for the latest epoch;
    /// - (largest epoch ≤ requested, start offset of the next epoch) otherwise;
    /// - (requested, start of the first epoch) when requested is below every
    ///   known epoch: Kafka answers with the first epoch's start so a
    ///   follower truncates to the point where the leader's history begins.
    pub fn end_offset_for(&self, requested_epoch: i32, log_end_offset: i64) -> Option<(i32, i64)> {
        if requested_epoch == UNDEFINED_EPOCH {
            return None;
        }
        if self.latest_epoch() == Some(requested_epoch) {
            return Some((requested_epoch, log_end_offset));
        }
        let higher = self.entries.iter().find(|e| e.epoch > requested_epoch)?;
        match self
            .entries
            .iter()
            .rev()
            .find(|e| e.epoch <= requested_epoch)
        {
            None => Some((requested_epoch, higher.start_offset)),
            Some(floor) => Some((floor.epoch, higher.start_offset)),
        }
    }

    /// Like `end_offset_for` but with Kafka's wire encoding for UNDEFINED.
    pub fn end_offset_for_raw(&self, requested_epoch: i32, log_end_offset: i64) -> (i32, i64) {
        self.end_offset_for(requested_epoch, log_end_offset)
            .unwrap_or((UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET))
    }

    /// The epoch the record at `offset` belongs to, if known (epochForOffset).
    pub fn epoch_for_offset(&self, offset: i64) -> Option<i32> {
        let mut previous = None;
        for e in &self.entries {
            if e.start_offset == offset {
                return Some(e.epoch);
            }
            if e.start_offset > offset {
                return previous;
            }
            previous = Some(e.epoch);
        }
        previous
    }

    /// Removes every entry starting at or after `end_offset`, used when the
    /// log is truncated to `end_offset`. A negative offset changes nothing.
    /// Returns the removed entries, oldest first.
    pub fn truncate_from_end(&mut self, end_offset: i64) -> Vec<EpochEntry> {
        let mut removed = Vec::new();
        if end_offset < 0 {
            return removed;
        }
        while let Some(last) = self.entries.last() {
            if last.start_offset >= end_offset {
                removed.push(*last);
                self.entries.pop();
            } else {
                break;
            }
        }
        removed.reverse();
        removed
    }

    /// Drops history below a new log start offset: every entry starting at
    /// or before `start_offset` is removed, and the newest of them comes back
    /// with its start moved to `start_offset`, so the epoch of the first
    /// surviving record stays known. Returns the removed entries.
    pub fn truncate_from_start(&mut self, start_offset: i64) -> Vec<EpochEntry> {
        let cut = self
            .entries
            .iter()
            .take_while(|e| e.start_offset <= start_offset)
            .count();
        let removed: Vec<EpochEntry> = self.entries.drain(..cut).collect();
        if let Some(last_removed) = removed.last() {
            self.entries.insert(
                0,
                EpochEntry {
                    epoch: last_removed.epoch,
                    start_offset,
                },
            );
        }
        removed
    }

    /// Forgets every entry, as when the log is fully truncated.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The bytes this cache holds in memory.
    pub fn allocated_bytes(&self) -> u64 {
        (self.entries.capacity() * std::mem::size_of::<EpochEntry>()) as u64
    }
}

#[cfg(test)]
mod tests {
    //! Cases follow Kafka's LeaderEpochFileCacheTest.
    use super::*;

    fn e(epoch: i32, start_offset: i64) -> EpochEntry {
        EpochEntry {
            epoch,
            start_offset,
        }
    }

    fn cache_of(pairs: &[(i32, i64)]) -> LeaderEpochCache {
        let mut c = LeaderEpochCache::new();
        for &(epoch, offset) in pairs {
            c.assign(epoch, offset).unwrap();
        }
        c
    }

    #[test]
    fn adds_epoch_and_answers_leo_for_latest() {
        let c = cache_of(&[(2, 10)]);
        assert_eq!(c.latest_epoch(), Some(2));
        assert_eq!(c.entries(), &[e(2, 10)]);
        assert_eq!(c.end_offset_for(2, 11), Some((2, 11)));
        let c = cache_of(&[(2, 11), (2, 12)]);
        assert_eq!(c.end_offset_for(2, 14), Some((2, 14)));
    }

    #[test]
    fn undefined_epoch_and_empty_cache_are_undefined() {
        let c = cache_of(&[(2, 11), (3, 12)]);
        assert_eq!(c.end_offset_for(UNDEFINED_EPOCH, 0), None);
        assert_eq!(c.end_offset_for_raw(UNDEFINED_EPOCH, 0), (-1, -1));
        let empty = LeaderEpochCache::new();
        assert_eq!(empty.end_offset_for(0, 0), None);
        assert_eq!(empty.end_offset_for(UNDEFINED_EPOCH, 73), None);
        assert_eq!(empty.end_offset_for(7, 0), None);
        assert_eq!(empty.latest_epoch(), None);
    }

    #[test]
    fn start_offset_of_an_epoch_is_never_moved_forward() {
        let c = cache_of(&[(2, 9), (2, 10)]);
        assert_eq!(c.entries(), &[e(2, 9)]);
        let c = cache_of(&[(2, 6), (2, 7)]);
        assert_eq!(c.entries(), &[e(2, 6)]);
    }

    #[test]
    fn enforces_monotonic_start_offsets_and_epochs() {
        assert_eq!(cache_of(&[(2, 9), (3, 9)]).entries(), &[e(3, 9)]);
        assert_eq!(cache_of(&[(2, 6), (3, 5)]).entries(), &[e(3, 5)]);
        let c = cache_of(&[(1, 5), (2, 6), (1, 7)]);
        assert_eq!(c.latest_epoch(), Some(1));
        assert_eq!(c.end_offset_for(1, 8), Some((1, 8)));
        assert_eq!(c.end_offset_for(2, 8), None);
        assert_eq!(c.entries(), &[e(1, 7)]);
    }

    #[test]
    fn matching_epoch_with_earlier_start_truncates() {
        let mut c = cache_of(&[(5, 11), (6, 12), (7, 13)]);
        c.assign(7, 12).unwrap();
        assert_eq!(c.end_offset_for(5, 0), Some((5, 12)));
        assert_eq!(c.end_offset_for(6, 0), Some((5, 12)));
    }

    #[test]
    fn requested_below_first_epoch_gets_first_start_offset() {
        let c = cache_of(&[(5, 11), (6, 12), (7, 13)]);
        assert_eq!(c.end_offset_for(4, 0), Some((4, 11)));
    }

    #[test]
    fn previous_epoch_gets_start_of_next_epoch() {
        let c = cache_of(&[(1, 11), (1, 12), (2, 13), (2, 14), (3, 15), (3, 16)]);
        assert_eq!(c.end_offset_for(2, 17), Some((2, 15)));
        let c = cache_of(&[(0, 10), (2, 13), (4, 17)]);
        assert_eq!(c.end_offset_for(1, 0), Some((0, 13)));
        assert_eq!(c.end_offset_for(2, 0), Some((2, 17)));
        assert_eq!(c.end_offset_for(3, 0), Some((2, 17)));
    }

    #[test]
    fn epoch_above_every_known_epoch_is_undefined() {
        let c = cache_of(&[(2, 100)]);
        assert_eq!(c.end_offset_for(3, 100), None);
    }

    #[test]
    fn tracks_many_leader_changes() {
        let mut c = cache_of(&[(0, 0), (1, 0)]);
        assert_eq!(c.entries(), &[e(1, 0)]);
        assert_eq!(c.end_offset_for(1, 0), Some((1, 0)));
        assert_eq!(c.end_offset_for(0, 0), Some((0, 0)));
        assert_eq!(c.end_offset_for(1, 5), Some((1, 5)));
        c.assign(2, 5).unwrap();
        assert_eq!(c.end_offset_for(2, 10), Some((2, 10)));
        assert_eq!(c.end_offset_for(1, 10), Some((1, 5)));
        assert_eq!(c.end_offset_for(0, 10), Some((0, 0)));
        assert_eq!(c.previous_epoch(), Some(1));
    }

    #[test]
    fn follower_receiving_many_batches() {
        let c = cache_of(&[
            (0, 0),
            (0, 1),
            (0, 2),
            (1, 3),
            (1, 4),
            (1, 5),
            (2, 6),
            (2, 7),
            (2, 8),
        ]);
        assert_eq!(c.latest_epoch(), Some(2));
        assert_eq!(c.end_offset_for(2, 9), Some((2, 9)));
        assert_eq!(c.end_offset_for(0, 9), Some((0, 3)));
        assert_eq!(c.end_offset_for(1, 9), Some((1, 6)));
    }

    #[test]
    fn truncate_from_end() {
        let mut c = cache_of(&[(2, 6), (3, 8), (4, 11)]);
        assert_eq!(c.truncate_from_end(8), vec![e(3, 8), e(4, 11)]);
        assert_eq!(c.entries(), &[e(2, 6)]);

        let mut c = cache_of(&[(2, 6), (3, 8), (4, 11)]);
        c.truncate_from_end(9);
        assert_eq!(c.latest_epoch(), Some(3));
        assert_eq!(c.entries(), &[e(2, 6), e(3, 8)]);

        let mut c = cache_of(&[(2, 6), (3, 8), (4, 11)]);
        assert!(c.truncate_from_end(UNDEFINED_EPOCH_OFFSET).is_empty());
        assert_eq!(c.entries().len(), 3);

        let mut c = cache_of(&[(2, 10), (4, 15), (10, 20)]);
        c.truncate_from_end(18);
        assert_eq!(c.previous_epoch(), Some(2));

        assert!(LeaderEpochCache::new().truncate_from_end(7).is_empty());
    }

    #[test]
    fn truncate_from_start() {
        let base = [(2, 6), (3, 8), (4, 11)];
        let mut c = cache_of(&base);
        c.truncate_from_start(8);
        assert_eq!(c.entries(), &[e(3, 8), e(4, 11)]);

        let mut c = cache_of(&base);
        c.truncate_from_start(1);
        assert_eq!(c.entries(), &[e(2, 6), e(3, 8), e(4, 11)]);

        let mut c = cache_of(&base);
        c.truncate_from_start(6);
        assert_eq!(c.entries(), &[e(2, 6), e(3, 8), e(4, 11)]);

        let mut c = cache_of(&base);
        c.truncate_from_start(11);
        assert_eq!(c.entries(), &[e(4, 11)]);

        let mut c = cache_of(&base);
        c.truncate_from_start(9);
        assert_eq!(c.entries(), &[e(3, 9), e(4, 11)]);

        let mut c = cache_of(&[(0, 0), (1, 7), (2, 10)]);
        c.truncate_from_start(5);
        assert_eq!(c.entries(), &[e(0, 5), e(1, 7), e(2, 10)]);

        let mut c = cache_of(&base);
        c.truncate_from_start(15);
        assert_eq!(c.entries(), &[e(4, 15)]);

        let mut c = cache_of(&base);
        c.truncate_from_start(UNDEFINED_EPOCH_OFFSET);
        assert_eq!(c.entries().len(), 3);

        assert!(LeaderEpochCache::new().truncate_from_start(7).is_empty());
    }

    #[test]
    fn rejects_negative_entries() {
        let mut c = LeaderEpochCache::new();
        assert!(c.assign(-1, 0).is_err());
        assert!(c.assign(0, -1).is_err());
        assert!(c.is_empty());
    }

    #[test]
    fn epoch_for_offset() {
        let c = cache_of(&[(2, 6), (3, 8), (4, 11)]);
        assert_eq!(c.epoch_for_offset(5), None);
        assert_eq!(c.epoch_for_offset(6), Some(2));
        assert_eq!(c.epoch_for_offset(7), Some(2));
        assert_eq!(c.epoch_for_offset(8), Some(3));
        assert_eq!(c.epoch_for_offset(100), Some(4));
    }
}
