//! The two sparse indexes of a segment, byte for byte as Kafka lays them out.
//!
//! Kafka keeps each index in a memory-mapped, preallocated file. Here the
//! entries live in a `Vec<u8>` with exactly the on-disk encoding, so the
//! inspector can show the real bytes and the sizes stay honest:
//! - `.index` (OffsetIndex.java): 8-byte entries, a 4-byte offset relative to
//!   the segment's base offset then a 4-byte position in the `.log`.
//! - `.timeindex` (TimeIndex.java): 12-byte entries, an 8-byte timestamp then
//!   a 4-byte relative offset.
//!
//! Both are capped by `segment.index.bytes` (rounded down to whole entries,
//! as AbstractIndex does), and a full index makes the log roll.

use super::chunked::ChunkedBytes;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The size of one offset index entry.
pub const OFFSET_INDEX_ENTRY_SIZE: u32 = 8;
/// The size of one time index entry.
pub const TIME_INDEX_ENTRY_SIZE: u32 = 12;
/// Kafka's `RecordBatch.NO_TIMESTAMP`, used for "no timestamp seen yet".
pub const NO_TIMESTAMP: i64 = -1;

/// Why an index refused an entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum IndexError {
    /// The index already holds its maximum number of entries.
    Full { max_entries: u32 },
    /// The offset is below the segment's base offset or too far above it to
    /// be stored as a 4-byte relative offset.
    OffsetOutOfSegmentRange { offset: i64, base_offset: i64 },
    /// Offset index entries must strictly increase.
    OffsetNotIncreasing { offset: i64, last_offset: i64 },
    /// Time index entries may never go back in offset.
    TimeIndexOffsetDecreasing { offset: i64, last_offset: i64 },
    /// Time index entries may never go back in time.
    TimestampDecreasing { timestamp: i64, last_timestamp: i64 },
}

impl fmt::Display for IndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IndexError::Full { max_entries } => {
                write!(f, "the index is full ({max_entries} entries)")
            }
            IndexError::OffsetOutOfSegmentRange {
                offset,
                base_offset,
            } => write!(
                f,
                "offset {offset} cannot be stored relative to segment base offset {base_offset}"
            ),
            IndexError::OffsetNotIncreasing {
                offset,
                last_offset,
            } => write!(
                f,
                "offset index entry {offset} is not larger than the last entry {last_offset}"
            ),
            IndexError::TimeIndexOffsetDecreasing {
                offset,
                last_offset,
            } => write!(
                f,
                "time index offset {offset} is smaller than the last entry's offset {last_offset}"
            ),
            IndexError::TimestampDecreasing {
                timestamp,
                last_timestamp,
            } => write!(
                f,
                "time index timestamp {timestamp} is smaller than the last entry's timestamp {last_timestamp}"
            ),
        }
    }
}

impl std::error::Error for IndexError {}

/// The answer of an offset index lookup, with the slot used so the UI can
/// show which entry the search landed on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetLookup {
    /// The absolute offset of the entry (the segment base when none matched).
    pub offset: i64,
    /// The byte position in the segment's log (0 when none matched).
    pub position: u32,
    /// The entry number used, or None when the target is below every entry.
    pub slot: Option<u32>,
}

/// The answer of a time index lookup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimestampLookup {
    /// The indexed timestamp, or `NO_TIMESTAMP` when no entry matched.
    pub timestamp: i64,
    /// The absolute offset of the entry (the segment base when none matched).
    pub offset: i64,
    /// The entry number used, or None when the target is below every entry.
    pub slot: Option<u32>,
}

/// Converts an index byte size into a whole number of entries, as
/// AbstractIndex rounds the file size down to an exact multiple.
fn max_entries_for(max_index_bytes: i32, entry_size: u32) -> u32 {
    u32::try_from(max_index_bytes.max(0)).unwrap_or(0) / entry_size
}

/// Whether `offset` can be written as a 4-byte offset relative to `base`
/// (AbstractIndex.canAppendOffset: 0 ≤ offset − base ≤ Integer.MAX_VALUE).
fn relative_offset(base_offset: i64, offset: i64) -> Option<u32> {
    let relative = offset.checked_sub(base_offset)?;
    if (0..=i64::from(i32::MAX)).contains(&relative) {
        Some(relative as u32)
    } else {
        None
    }
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    let mut buf = [0u8; 4];
    buf.copy_from_slice(&bytes[at..at + 4]);
    u32::from_be_bytes(buf)
}

fn read_i64(bytes: &[u8], at: usize) -> i64 {
    let mut buf = [0u8; 8];
    buf.copy_from_slice(&bytes[at..at + 8]);
    i64::from_be_bytes(buf)
}

/// Binary search for the largest slot whose key is ≤ `target`, the search
/// AbstractIndex.largestLowerBoundSlotFor performs; None if every key is larger.
fn largest_lower_bound(entries: u32, target: i64, key_at: impl Fn(u32) -> i64) -> Option<u32> {
    if entries == 0 || key_at(0) > target {
        return None;
    }
    // Invariant: key_at(lo) ≤ target, and every slot above hi has a key > target.
    let mut lo = 0u32;
    let mut hi = entries - 1;
    while lo < hi {
        // Round up so the loop always makes progress when lo moves.
        let mid = lo + (hi - lo).div_ceil(2);
        if key_at(mid) <= target {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(lo)
}

/// The sparse offset → position index of one segment (`.index`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetIndex {
    base_offset: i64,
    max_entries: u32,
    bytes: ChunkedBytes,
}

impl OffsetIndex {
    /// An empty index for the segment starting at `base_offset`, holding at
    /// most `max_index_bytes / 8` entries.
    pub fn new(base_offset: i64, max_index_bytes: i32) -> OffsetIndex {
        OffsetIndex {
            base_offset,
            max_entries: max_entries_for(max_index_bytes, OFFSET_INDEX_ENTRY_SIZE),
            bytes: ChunkedBytes::for_index(),
        }
    }

    pub fn base_offset(&self) -> i64 {
        self.base_offset
    }

    pub fn entries(&self) -> u32 {
        self.bytes.len() / OFFSET_INDEX_ENTRY_SIZE
    }

    pub fn max_entries(&self) -> u32 {
        self.max_entries
    }

    /// A full index forces the segment to roll before the next append.
    pub fn is_full(&self) -> bool {
        self.entries() >= self.max_entries
    }

    /// Whether `offset` fits this segment's 4-byte relative offsets.
    pub fn can_append_offset(&self, offset: i64) -> bool {
        relative_offset(self.base_offset, offset).is_some()
    }

    /// The raw bytes, as they would be in the `.index` file.
    pub fn as_bytes(&self) -> Vec<u8> {
        self.bytes.to_vec()
    }

    /// The bytes reserved for this index in memory.
    pub fn allocated_bytes(&self) -> u64 {
        u64::from(self.bytes.len()) + self.bytes.overhead_bytes()
    }

    /// The entry in slot `n` as (absolute offset, position).
    pub fn entry(&self, n: u32) -> Option<(i64, u32)> {
        if n >= self.entries() {
            return None;
        }
        let entry = self.bytes.get(n * OFFSET_INDEX_ENTRY_SIZE, OFFSET_INDEX_ENTRY_SIZE)?;
        let relative = read_u32(entry, 0);
        let position = read_u32(entry, 4);
        Some((self.base_offset + i64::from(relative), position))
    }

    /// Every entry as (absolute offset, position), for the inspector.
    pub fn entry_list(&self) -> Vec<(i64, u32)> {
        (0..self.entries()).filter_map(|n| self.entry(n)).collect()
    }

    /// The offset of the last entry, or the base offset when empty
    /// (OffsetIndex.lastOffset).
    pub fn last_offset(&self) -> i64 {
        match self.entries() {
            0 => self.base_offset,
            n => self.entry(n - 1).map_or(self.base_offset, |e| e.0),
        }
    }

    /// Adds (offset, position); offsets must strictly increase, as in
    /// OffsetIndex.append.
    pub fn append(&mut self, offset: i64, position: u32) -> Result<(), IndexError> {
        if self.is_full() {
            return Err(IndexError::Full {
                max_entries: self.max_entries,
            });
        }
        let relative = relative_offset(self.base_offset, offset).ok_or(
            IndexError::OffsetOutOfSegmentRange {
                offset,
                base_offset: self.base_offset,
            },
        )?;
        if self.entries() > 0 && offset <= self.last_offset() {
            return Err(IndexError::OffsetNotIncreasing {
                offset,
                last_offset: self.last_offset(),
            });
        }
        let mut entry = [0u8; OFFSET_INDEX_ENTRY_SIZE as usize];
        entry[..4].copy_from_slice(&relative.to_be_bytes());
        entry[4..].copy_from_slice(&position.to_be_bytes());
        self.bytes.push(&entry);
        Ok(())
    }

    /// The largest entry with offset ≤ `target_offset`, or (base, 0) when the
    /// target is below every entry (OffsetIndex.lookup).
    pub fn lookup(&self, target_offset: i64) -> OffsetLookup {
        let slot = largest_lower_bound(self.entries(), target_offset, |n| {
            self.entry(n).map_or(i64::MAX, |e| e.0)
        });
        match slot.and_then(|s| self.entry(s).map(|e| (s, e))) {
            Some((s, (offset, position))) => OffsetLookup {
                offset,
                position,
                slot: Some(s),
            },
            None => OffsetLookup {
                offset: self.base_offset,
                position: 0,
                slot: None,
            },
        }
    }

    /// Removes every entry with offset ≥ `offset` (OffsetIndex.truncateTo).
    pub fn truncate_to(&mut self, offset: i64) {
        let slot = largest_lower_bound(self.entries(), offset, |n| {
            self.entry(n).map_or(i64::MAX, |e| e.0)
        });
        // An entry for exactly `offset` goes too; one below it stays.
        let keep = match slot {
            None => 0,
            Some(s) if self.entry(s).map(|e| e.0) == Some(offset) => s,
            Some(s) => s + 1,
        };
        self.bytes.truncate(keep * OFFSET_INDEX_ENTRY_SIZE);
    }

    /// Gives back unused capacity, as Kafka trims an index file to its
    /// entries when the segment stops being active.
    pub fn trim_to_valid_size(&mut self) {
        self.bytes.seal();
    }
}

/// The sparse timestamp → offset index of one segment (`.timeindex`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeIndex {
    base_offset: i64,
    max_entries: u32,
    bytes: ChunkedBytes,
}

impl TimeIndex {
    /// An empty index for the segment starting at `base_offset`, holding at
    /// most `max_index_bytes / 12` entries.
    pub fn new(base_offset: i64, max_index_bytes: i32) -> TimeIndex {
        TimeIndex {
            base_offset,
            max_entries: max_entries_for(max_index_bytes, TIME_INDEX_ENTRY_SIZE),
            bytes: ChunkedBytes::for_index(),
        }
    }

    pub fn base_offset(&self) -> i64 {
        self.base_offset
    }

    pub fn entries(&self) -> u32 {
        self.bytes.len() / TIME_INDEX_ENTRY_SIZE
    }

    pub fn max_entries(&self) -> u32 {
        self.max_entries
    }

    /// Kafka counts the time index as full one entry early, keeping the last
    /// slot for the entry written when the segment rolls.
    pub fn is_full(&self) -> bool {
        self.entries() >= self.max_entries.saturating_sub(1)
    }

    /// The raw bytes, as they would be in the `.timeindex` file.
    pub fn as_bytes(&self) -> Vec<u8> {
        self.bytes.to_vec()
    }

    /// The bytes reserved for this index in memory.
    pub fn allocated_bytes(&self) -> u64 {
        u64::from(self.bytes.len()) + self.bytes.overhead_bytes()
    }

    /// The entry in slot `n` as (timestamp, absolute offset).
    pub fn entry(&self, n: u32) -> Option<(i64, i64)> {
        if n >= self.entries() {
            return None;
        }
        let entry = self.bytes.get(n * TIME_INDEX_ENTRY_SIZE, TIME_INDEX_ENTRY_SIZE)?;
        let timestamp = read_i64(entry, 0);
        let relative = read_u32(entry, 8);
        Some((timestamp, self.base_offset + i64::from(relative)))
    }

    /// Every entry as (timestamp, absolute offset), for the inspector.
    pub fn entry_list(&self) -> Vec<(i64, i64)> {
        (0..self.entries()).filter_map(|n| self.entry(n)).collect()
    }

    /// The last entry, or (NO_TIMESTAMP, base offset) when empty, which is
    /// what TimeIndex compares new entries against.
    pub fn last_entry(&self) -> (i64, i64) {
        match self.entries() {
            0 => (NO_TIMESTAMP, self.base_offset),
            n => self
                .entry(n - 1)
                .unwrap_or((NO_TIMESTAMP, self.base_offset)),
        }
    }

    /// Adds (timestamp, offset) only if the timestamp is larger than the last
    /// entry's, as TimeIndex.maybeAppend does; returns whether it was added.
    /// `skip_full_check` is for the final entry written when a segment rolls,
    /// which uses the slot `is_full` keeps free.
    pub fn maybe_append(
        &mut self,
        timestamp: i64,
        offset: i64,
        skip_full_check: bool,
    ) -> Result<bool, IndexError> {
        if !skip_full_check && self.is_full() {
            return Err(IndexError::Full {
                max_entries: self.max_entries,
            });
        }
        let (last_timestamp, last_offset) = self.last_entry();
        if self.entries() != 0 && offset < last_offset {
            return Err(IndexError::TimeIndexOffsetDecreasing {
                offset,
                last_offset,
            });
        }
        if self.entries() != 0 && timestamp < last_timestamp {
            return Err(IndexError::TimestampDecreasing {
                timestamp,
                last_timestamp,
            });
        }
        if timestamp <= last_timestamp {
            return Ok(false);
        }
        // Even the reserved slot cannot go past the hard capacity.
        if self.entries() >= self.max_entries {
            return Err(IndexError::Full {
                max_entries: self.max_entries,
            });
        }
        let relative = relative_offset(self.base_offset, offset).ok_or(
            IndexError::OffsetOutOfSegmentRange {
                offset,
                base_offset: self.base_offset,
            },
        )?;
        let mut entry = [0u8; TIME_INDEX_ENTRY_SIZE as usize];
        entry[..8].copy_from_slice(&timestamp.to_be_bytes());
        entry[8..].copy_from_slice(&relative.to_be_bytes());
        self.bytes.push(&entry);
        Ok(true)
    }

    /// The entry with the largest timestamp ≤ `target_timestamp`, or
    /// (NO_TIMESTAMP, base offset) when every entry is later (TimeIndex.lookup).
    pub fn lookup(&self, target_timestamp: i64) -> TimestampLookup {
        let slot = largest_lower_bound(self.entries(), target_timestamp, |n| {
            self.entry(n).map_or(i64::MAX, |e| e.0)
        });
        match slot.and_then(|s| self.entry(s).map(|e| (s, e))) {
            Some((s, (timestamp, offset))) => TimestampLookup {
                timestamp,
                offset,
                slot: Some(s),
            },
            None => TimestampLookup {
                timestamp: NO_TIMESTAMP,
                offset: self.base_offset,
                slot: None,
            },
        }
    }

    /// Removes every entry with offset ≥ `offset` (TimeIndex.truncateTo).
    pub fn truncate_to(&mut self, offset: i64) {
        let slot = largest_lower_bound(self.entries(), offset, |n| {
            self.entry(n).map_or(i64::MAX, |e| e.1)
        });
        let keep = match slot {
            None => 0,
            Some(s) if self.entry(s).map(|e| e.1) == Some(offset) => s,
            Some(s) => s + 1,
        };
        self.bytes.truncate(keep * TIME_INDEX_ENTRY_SIZE);
    }

    /// Gives back unused capacity once the segment is no longer active.
    pub fn trim_to_valid_size(&mut self) {
        self.bytes.seal();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_index_stores_big_endian_relative_entries() {
        let mut idx = OffsetIndex::new(100, 10_485_760);
        assert_eq!(idx.max_entries(), 1_310_720);
        idx.append(105, 4200).unwrap();
        assert_eq!(idx.as_bytes(), &[0, 0, 0, 5, 0, 0, 0x10, 0x68]);
        assert_eq!(idx.entry(0), Some((105, 4200)));
        assert_eq!(idx.last_offset(), 105);
    }

    #[test]
    fn offset_index_lookup_is_a_floor_with_the_slot_used() {
        let mut idx = OffsetIndex::new(0, 1024);
        for (o, p) in [(10, 100), (20, 200), (30, 300)] {
            idx.append(o, p).unwrap();
        }
        assert_eq!(
            idx.lookup(5),
            OffsetLookup {
                offset: 0,
                position: 0,
                slot: None
            }
        );
        assert_eq!(idx.lookup(10).slot, Some(0));
        assert_eq!(idx.lookup(19).position, 100);
        assert_eq!(idx.lookup(25).slot, Some(1));
        assert_eq!(
            idx.lookup(1000),
            OffsetLookup {
                offset: 30,
                position: 300,
                slot: Some(2)
            }
        );
    }

    #[test]
    fn offset_index_rejects_bad_entries_and_fills_up() {
        let mut idx = OffsetIndex::new(50, 17);
        assert_eq!(idx.max_entries(), 2);
        assert!(matches!(
            idx.append(49, 0),
            Err(IndexError::OffsetOutOfSegmentRange { .. })
        ));
        assert!(matches!(
            idx.append(50 + i64::from(i32::MAX) + 1, 0),
            Err(IndexError::OffsetOutOfSegmentRange { .. })
        ));
        idx.append(60, 10).unwrap();
        assert!(matches!(
            idx.append(60, 20),
            Err(IndexError::OffsetNotIncreasing { .. })
        ));
        assert!(!idx.is_full());
        idx.append(70, 20).unwrap();
        assert!(idx.is_full());
        assert_eq!(idx.append(80, 30), Err(IndexError::Full { max_entries: 2 }));
    }

    #[test]
    fn offset_index_truncation_drops_entries_at_and_above() {
        let mut idx = OffsetIndex::new(0, 1024);
        for (o, p) in [(10, 100), (20, 200), (30, 300)] {
            idx.append(o, p).unwrap();
        }
        idx.truncate_to(25);
        assert_eq!(idx.entry_list(), vec![(10, 100), (20, 200)]);
        idx.truncate_to(20);
        assert_eq!(idx.entry_list(), vec![(10, 100)]);
        idx.truncate_to(3);
        assert_eq!(idx.entries(), 0);
    }

    #[test]
    fn time_index_appends_only_growing_timestamps() {
        let mut idx = TimeIndex::new(0, 10_485_760);
        assert_eq!(idx.max_entries(), 873_813);
        assert_eq!(idx.last_entry(), (NO_TIMESTAMP, 0));
        assert!(idx.maybe_append(1000, 5, false).unwrap());
        assert!(!idx.maybe_append(1000, 9, false).unwrap());
        assert!(matches!(
            idx.maybe_append(900, 12, false),
            Err(IndexError::TimestampDecreasing { .. })
        ));
        assert!(matches!(
            idx.maybe_append(2000, 4, false),
            Err(IndexError::TimeIndexOffsetDecreasing { .. })
        ));
        assert!(idx.maybe_append(2000, 12, false).unwrap());
        assert_eq!(idx.entry_list(), vec![(1000, 5), (2000, 12)]);
        assert_eq!(
            &idx.as_bytes()[0..12],
            &[0, 0, 0, 0, 0, 0, 3, 0xE8, 0, 0, 0, 5]
        );
    }

    #[test]
    fn time_index_reserves_its_last_slot_for_the_roll() {
        let mut idx = TimeIndex::new(0, 36);
        assert_eq!(idx.max_entries(), 3);
        idx.maybe_append(1, 1, false).unwrap();
        assert!(!idx.is_full());
        idx.maybe_append(2, 2, false).unwrap();
        assert!(idx.is_full());
        assert!(matches!(
            idx.maybe_append(3, 3, false),
            Err(IndexError::Full { .. })
        ));
        assert!(idx.maybe_append(3, 3, true).unwrap());
        assert!(matches!(
            idx.maybe_append(4, 4, true),
            Err(IndexError::Full { .. })
        ));
    }

    #[test]
    fn time_index_lookup_and_truncation() {
        let mut idx = TimeIndex::new(100, 1200);
        for (t, o) in [(1000, 104), (2000, 110), (3000, 120)] {
            idx.maybe_append(t, o, false).unwrap();
        }
        assert_eq!(
            idx.lookup(999),
            TimestampLookup {
                timestamp: NO_TIMESTAMP,
                offset: 100,
                slot: None
            }
        );
        assert_eq!(idx.lookup(2500).offset, 110);
        assert_eq!(idx.lookup(2500).slot, Some(1));
        assert_eq!(idx.lookup(3000).slot, Some(2));
        idx.truncate_to(110);
        assert_eq!(idx.entry_list(), vec![(1000, 104)]);
        assert_eq!(idx.last_entry(), (1000, 104));
    }
}
