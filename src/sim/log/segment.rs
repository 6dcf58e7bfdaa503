//! One log segment: a `.log` of record batches back to back, with its sparse
//! `.index` and `.timeindex` (LogSegment.java).
//!
//! The batches are kept in a single `Vec<u8>` exactly as Kafka writes them to
//! the `.log` file. No per-batch metadata is stored: like Kafka, the segment
//! finds batches by reading their headers, starting from the nearest index
//! entry, which is what the sparse index is for.

use super::super::record::batch::{
    batch_size_at, iter_batches, read_header, BatchError, BatchHeader, BatchIter,
};
use super::chunked::{ChunkedBytes, Slice};
use super::index::{IndexError, OffsetIndex, TimeIndex, NO_TIMESTAMP};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The suffix of the segment's record file.
pub const LOG_FILE_SUFFIX: &str = ".log";
/// The suffix of the segment's offset index file.
pub const INDEX_FILE_SUFFIX: &str = ".index";
/// The suffix of the segment's time index file.
pub const TIME_INDEX_FILE_SUFFIX: &str = ".timeindex";

/// The base offset padded with zeros to 20 digits, so that a directory
/// listing sorts segments numerically (LogFileUtils.filenamePrefixFromOffset).
pub fn filename_prefix_from_offset(offset: i64) -> String {
    format!("{offset:020}")
}

/// Why a segment refused an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SegmentError {
    /// The record module cannot read the bytes as a batch: fewer bytes than
    /// a header, or a `batchLength` too small to cover it.
    Batch(BatchError),
    /// The bytes hold more or less than exactly one batch.
    NotOneBatch {
        declared_size: u32,
        actual_size: u32,
    },
    /// `lastOffsetDelta` is negative, or `baseOffset + lastOffsetDelta`
    /// does not fit an i64, so the batch has no valid offset range.
    InvalidOffsetRange {
        base_offset: i64,
        last_offset_delta: i32,
    },
    /// The batch starts below the segment's base offset.
    BelowBaseOffset {
        base_offset: i64,
        segment_base_offset: i64,
    },
    /// The batch does not start at or after the segment's next offset.
    OffsetNotIncreasing { base_offset: i64, next_offset: i64 },
    /// The batch's last offset cannot be stored relative to the segment base.
    RelativeOffsetOverflow {
        last_offset: i64,
        segment_base_offset: i64,
    },
    /// The segment would grow past the 2 GiB that 4-byte positions allow.
    PositionOverflow { size_bytes: u32, batch_bytes: u32 },
    /// An index refused the entry the append needs.
    Index(IndexError),
}

impl fmt::Display for SegmentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SegmentError::Batch(e) => write!(f, "unreadable record batch: {e}"),
            SegmentError::NotOneBatch {
                declared_size,
                actual_size,
            } => write!(
                f,
                "expected exactly one batch: the header declares {declared_size} bytes but {actual_size} were given"
            ),
            SegmentError::InvalidOffsetRange {
                base_offset,
                last_offset_delta,
            } => write!(
                f,
                "baseOffset {base_offset} with lastOffsetDelta {last_offset_delta} gives no valid last offset"
            ),
            SegmentError::BelowBaseOffset {
                base_offset,
                segment_base_offset,
            } => write!(
                f,
                "batch base offset {base_offset} is below the segment base offset {segment_base_offset}"
            ),
            SegmentError::OffsetNotIncreasing {
                base_offset,
                next_offset,
            } => write!(
                f,
                "batch base offset {base_offset} is below the segment's next offset {next_offset}"
            ),
            SegmentError::RelativeOffsetOverflow {
                last_offset,
                segment_base_offset,
            } => write!(
                f,
                "offset {last_offset} does not fit a 4-byte offset relative to segment base {segment_base_offset}"
            ),
            SegmentError::PositionOverflow {
                size_bytes,
                batch_bytes,
            } => write!(
                f,
                "a {batch_bytes}-byte batch would push the {size_bytes}-byte segment past 4-byte positions"
            ),
            SegmentError::Index(e) => write!(f, "index update failed: {e}"),
        }
    }
}

impl std::error::Error for SegmentError {}

impl From<BatchError> for SegmentError {
    fn from(e: BatchError) -> Self {
        SegmentError::Batch(e)
    }
}

/// Reads the header of the one whole batch `bytes` must hold, with the
/// checks the log needs before it can place the batch: the record module
/// reads the header and its size, and the log then requires that the size
/// is exactly the bytes given and that the offsets run forwards. Returns the
/// header and the batch's size. Neither the CRC nor the records are checked:
/// the leader has validated the batch before it reaches the log.
pub fn read_one_batch(bytes: &[u8]) -> Result<(BatchHeader, u32), SegmentError> {
    let header = read_header(bytes)?;
    let size = batch_size_at(bytes, 0)?;
    let actual = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    if size != actual {
        return Err(SegmentError::NotOneBatch {
            declared_size: size,
            actual_size: actual,
        });
    }
    if header.last_offset_delta < 0
        || header
            .base_offset
            .checked_add(i64::from(header.last_offset_delta))
            .is_none()
    {
        return Err(SegmentError::InvalidOffsetRange {
            base_offset: header.base_offset,
            last_offset_delta: header.last_offset_delta,
        });
    }
    Ok((header, size))
}

impl From<IndexError> for SegmentError {
    fn from(e: IndexError) -> Self {
        SegmentError::Index(e)
    }
}

/// What one append did to the segment, for the UI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentAppend {
    /// Where the batch starts in the `.log`.
    pub position: u32,
    pub size_bytes: u32,
    pub base_offset: i64,
    pub last_offset: i64,
    /// The offset index slot written for this batch, if one was.
    pub offset_index_slot: Option<u32>,
    /// The time index slot written for this batch, if one was.
    pub time_index_slot: Option<u32>,
}

/// Why a segment must roll before the next append (LogSegment.shouldRoll),
/// in the order Kafka tests the conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RollReason {
    /// The batch would push the segment past `segment.bytes`.
    SegmentBytes,
    /// The segment is older than `segment.ms` by record timestamps.
    SegmentMs,
    OffsetIndexFull,
    TimeIndexFull,
    /// The batch's last offset does not fit this segment's relative offsets.
    RelativeOffsetOverflow,
}

/// The inputs of the roll decision (Kafka's RollParams).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RollParams {
    pub max_segment_bytes: i32,
    pub max_segment_ms: i64,
    /// The largest timestamp in the batch about to be appended.
    pub max_timestamp_in_messages: i64,
    /// The last offset of the batch about to be appended.
    pub max_offset_in_messages: i64,
    /// The size of the batch about to be appended.
    pub messages_size: u32,
    pub now_ms: i64,
}

/// The steps of an offset lookup, so the UI can animate it: the index entry
/// used, then each batch header read until the target's batch was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LookupPath {
    pub segment_base_offset: i64,
    pub target_offset: i64,
    /// The offset index slot used, or None when the scan starts at (base, 0).
    pub index_entry_used: Option<u32>,
    pub index_offset: i64,
    pub index_position: u32,
    /// Each header read, as (position, base offset, last offset).
    pub scanned_batches: Vec<(u32, i64, i64)>,
    /// The position of the first batch whose last offset ≥ the target, or
    /// None when the segment holds no such batch.
    pub found_position: Option<u32>,
}

/// The whole batches a segment read returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentRead<'a> {
    /// Whole batches only, back to back, still in the segment.
    pub bytes: Slice<'a>,
    pub start_position: u32,
    /// The base offset of the first batch returned (it may be below the
    /// requested offset, since batches are returned whole), or the requested
    /// offset when nothing is returned.
    pub first_offset: i64,
    /// The offset after the last batch returned, or the requested offset.
    pub next_offset: i64,
    pub batch_count: u32,
    pub lookup: LookupPath,
}

/// A batch as the inspector shows it, read from its header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchView {
    pub position: u32,
    pub base_offset: i64,
    pub last_offset: i64,
    pub size_bytes: u32,
    pub max_timestamp: i64,
    pub partition_leader_epoch: i32,
    pub records_count: i32,
}

impl BatchView {
    fn new(position: u32, h: &BatchHeader, size_bytes: u32) -> BatchView {
        BatchView {
            position,
            base_offset: h.base_offset,
            last_offset: h.last_offset(),
            size_bytes,
            max_timestamp: h.max_timestamp,
            partition_leader_epoch: h.partition_leader_epoch,
            records_count: h.records_count,
        }
    }
}

/// One segment of a partition's log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogSegment {
    base_offset: i64,
    /// The `.log` contents: whole batches back to back, each batch whole in
    /// one chunk, so snapshots share what was sealed.
    log: ChunkedBytes,
    offset_index: OffsetIndex,
    time_index: TimeIndex,
    index_interval_bytes: i32,
    bytes_since_last_index_entry: u32,
    /// The largest batch timestamp seen, or NO_TIMESTAMP.
    max_timestamp_so_far: i64,
    /// The last offset of the batch that carried `max_timestamp_so_far`.
    offset_of_max_timestamp: i64,
    /// The first batch's max timestamp, which time-based rolling counts from.
    rolling_based_timestamp: Option<i64>,
    /// When the segment was created (or emptied by truncation); rolling
    /// counts from here only when the first batch has no timestamp.
    created_at_ms: i64,
    /// Stands in for the file's mtime, which retention falls back to when
    /// the segment has no timestamps.
    last_modified_ms: i64,
    /// Cached so appends and views need no scan; not per-batch data.
    next_offset: i64,
    batch_count: u32,
}

/// One batch found in a log buffer: where it starts, its header and its size.
type StoredBatch = (u32, BatchHeader, u32);

/// Iterates over the batch headers of a log buffer from a position, with
/// the record module's iterator over concatenated batches.
/// The buffer is a run of chunks, each of whole batches, so the iterator
/// goes through one chunk and then asks for the next from where it ended.
struct Batches<'a> {
    log: &'a ChunkedBytes,
    inner: BatchIter<'a>,
    /// Where `inner` starts in the whole buffer; its positions are relative.
    start: u32,
}

impl Iterator for Batches<'_> {
    type Item = StoredBatch;

    fn next(&mut self) -> Option<Self::Item> {
        // Appends only store whole, checked batches, so a failure here means
        // the end of the data; stopping is the safe answer either way.
        loop {
            if let Some(batch) = self.inner.next() {
                let (at, header) = batch.ok()?;
                let size = header.size_in_bytes()?;
                return Some((self.start + at, header, size));
            }
            let walked = self.inner.position();
            if walked == 0 {
                return None;
            }
            self.start += walked;
            self.inner = iter_batches(self.log.run_from(self.start));
        }
    }
}

impl LogSegment {
    /// An empty segment. `max_index_bytes` is `segment.index.bytes`, which
    /// caps both indexes; `index_interval_bytes` is `index.interval.bytes`.
    pub fn new(
        base_offset: i64,
        index_interval_bytes: i32,
        max_index_bytes: i32,
        now_ms: i64,
    ) -> LogSegment {
        LogSegment {
            base_offset,
            log: ChunkedBytes::new(),
            offset_index: OffsetIndex::new(base_offset, max_index_bytes),
            time_index: TimeIndex::new(base_offset, max_index_bytes),
            index_interval_bytes,
            bytes_since_last_index_entry: 0,
            max_timestamp_so_far: NO_TIMESTAMP,
            offset_of_max_timestamp: base_offset,
            rolling_based_timestamp: None,
            created_at_ms: now_ms,
            last_modified_ms: now_ms,
            next_offset: base_offset,
            batch_count: 0,
        }
    }

    pub fn base_offset(&self) -> i64 {
        self.base_offset
    }

    /// The size of the `.log` in bytes.
    pub fn size_bytes(&self) -> u32 {
        self.log.len()
    }

    pub fn is_empty(&self) -> bool {
        self.log.is_empty()
    }

    pub fn batch_count(&self) -> u32 {
        self.batch_count
    }

    /// The offset the next batch appended here would get.
    pub fn next_offset(&self) -> i64 {
        self.next_offset
    }

    /// The last offset held, or None when the segment is empty.
    pub fn last_offset(&self) -> Option<i64> {
        if self.is_empty() {
            None
        } else {
            Some(self.next_offset - 1)
        }
    }

    pub fn offset_index(&self) -> &OffsetIndex {
        &self.offset_index
    }

    pub fn time_index(&self) -> &TimeIndex {
        &self.time_index
    }

    pub fn bytes_since_last_index_entry(&self) -> u32 {
        self.bytes_since_last_index_entry
    }

    pub fn max_timestamp_so_far(&self) -> i64 {
        self.max_timestamp_so_far
    }

    pub fn offset_of_max_timestamp(&self) -> i64 {
        self.offset_of_max_timestamp
    }

    pub fn rolling_based_timestamp(&self) -> Option<i64> {
        self.rolling_based_timestamp
    }

    pub fn created_at_ms(&self) -> i64 {
        self.created_at_ms
    }

    pub fn last_modified_ms(&self) -> i64 {
        self.last_modified_ms
    }

    /// The `.log` bytes, copied out.
    pub fn log_bytes(&self) -> Vec<u8> {
        self.log.to_vec()
    }

    /// The file name for this segment with the given suffix, e.g.
    /// `00000000000000000042.index`.
    pub fn file_name(&self, ext: &str) -> String {
        format!("{}{ext}", filename_prefix_from_offset(self.base_offset))
    }

    /// The timestamp retention compares against: the largest record
    /// timestamp, or the last-modified time when no batch had one
    /// (LogSegment.largestTimestamp).
    pub fn largest_timestamp(&self) -> i64 {
        if self.max_timestamp_so_far >= 0 {
            self.max_timestamp_so_far
        } else {
            self.last_modified_ms
        }
    }

    /// How long the segment has waited to roll: from the first batch's
    /// timestamp to the new batch's, or by the clock from creation when the
    /// first batch had no timestamp (LogSegment.timeWaitedForRoll).
    pub fn time_waited_for_roll(&self, now_ms: i64, message_timestamp: i64) -> i64 {
        match self.rolling_based_timestamp {
            Some(ts) if ts >= 0 => message_timestamp.saturating_sub(ts),
            _ => now_ms.saturating_sub(self.created_at_ms),
        }
    }

    /// Kafka's LogSegment.shouldRoll, with the reason. The roll jitter
    /// (`segment.jitter.ms`, random in Kafka) is zero here to stay
    /// deterministic. The size test does not need a non-empty segment, but
    /// the log never lets a batch exceed `segment.bytes`, so an empty
    /// segment only rolls on a full index.
    pub fn should_roll(&self, p: &RollParams) -> Option<RollReason> {
        let size = i64::from(self.size_bytes());
        let reached_roll_ms =
            self.time_waited_for_roll(p.now_ms, p.max_timestamp_in_messages) > p.max_segment_ms;
        if size > i64::from(p.max_segment_bytes) - i64::from(p.messages_size) {
            Some(RollReason::SegmentBytes)
        } else if size > 0 && reached_roll_ms {
            Some(RollReason::SegmentMs)
        } else if self.offset_index.is_full() {
            Some(RollReason::OffsetIndexFull)
        } else if self.time_index.is_full() {
            Some(RollReason::TimeIndexFull)
        } else if !self
            .offset_index
            .can_append_offset(p.max_offset_in_messages)
        {
            Some(RollReason::RelativeOffsetOverflow)
        } else {
            None
        }
    }

    /// How many of the batches of these sizes, appended in order, the
    /// indexes have room for, by the entry rule of [`LogSegment::append`]
    /// (the time index keeps one slot for the entry written when the
    /// segment rolls, and writes at most one entry where the offset index
    /// writes one).
    pub fn batches_that_fit(&self, sizes: impl Iterator<Item = u32>) -> usize {
        let offset_room = self.offset_index.max_entries().saturating_sub(self.offset_index.entries());
        let time_room = self.time_index.max_entries().saturating_sub(1).saturating_sub(self.time_index.entries());
        let mut room = offset_room.min(time_room);
        let mut since = self.bytes_since_last_index_entry;
        let mut fit = 0;
        for size in sizes {
            if i64::from(since) > i64::from(self.index_interval_bytes) {
                if room == 0 {
                    break;
                }
                room -= 1;
                since = 0;
            }
            since = since.saturating_add(size);
            fit += 1;
        }
        fit
    }

    /// Appends one whole batch, then indexes it as LogSegment.append does:
    /// the entry test runs before the counter grows, so the first batch of a
    /// segment never gets an entry, and a batch gets one (its last offset,
    /// its start position) only when more than `index.interval.bytes` were
    /// written since the previous entry. A time index entry is written beside
    /// it when the largest timestamp grew past the last time index entry.
    pub fn append(&mut self, batch: &[u8], now_ms: i64) -> Result<SegmentAppend, SegmentError> {
        let (header, size) = read_one_batch(batch)?;
        if header.base_offset < self.base_offset {
            return Err(SegmentError::BelowBaseOffset {
                base_offset: header.base_offset,
                segment_base_offset: self.base_offset,
            });
        }
        if header.base_offset < self.next_offset {
            return Err(SegmentError::OffsetNotIncreasing {
                base_offset: header.base_offset,
                next_offset: self.next_offset,
            });
        }
        let last_offset = header.last_offset();
        if !self.offset_index.can_append_offset(last_offset) {
            return Err(SegmentError::RelativeOffsetOverflow {
                last_offset,
                segment_base_offset: self.base_offset,
            });
        }
        let position = self.size_bytes();
        if i64::from(position) + i64::from(size) > i64::from(i32::MAX) {
            return Err(SegmentError::PositionOverflow {
                size_bytes: position,
                batch_bytes: size,
            });
        }
        let wants_index_entry =
            i64::from(self.bytes_since_last_index_entry) > i64::from(self.index_interval_bytes);
        // Check the indexes before touching anything, so a refused append
        // leaves the segment as it was (Kafka would fail half-way instead;
        // the log rolls before an index fills, so this never fires there).
        if wants_index_entry {
            if self.offset_index.is_full() {
                return Err(IndexError::Full {
                    max_entries: self.offset_index.max_entries(),
                }
                .into());
            }
            if self.time_index.is_full() {
                return Err(IndexError::Full {
                    max_entries: self.time_index.max_entries(),
                }
                .into());
            }
        }

        if position == 0 {
            self.rolling_based_timestamp = Some(header.max_timestamp);
        }
        self.log.push(batch);
        if header.max_timestamp > self.max_timestamp_so_far {
            // For v2 batches Kafka records the batch's last offset as the
            // offset of the max timestamp (the shallow offset).
            self.max_timestamp_so_far = header.max_timestamp;
            self.offset_of_max_timestamp = last_offset;
        }
        let mut offset_index_slot = None;
        let mut time_index_slot = None;
        if wants_index_entry {
            let slot = self.offset_index.entries();
            self.offset_index.append(last_offset, position)?;
            offset_index_slot = Some(slot);
            let tslot = self.time_index.entries();
            if self.time_index.maybe_append(
                self.max_timestamp_so_far,
                self.offset_of_max_timestamp,
                false,
            )? {
                time_index_slot = Some(tslot);
            }
            self.bytes_since_last_index_entry = 0;
        }
        self.bytes_since_last_index_entry = self.bytes_since_last_index_entry.saturating_add(size);
        self.next_offset = last_offset + 1;
        self.batch_count += 1;
        self.last_modified_ms = now_ms;
        Ok(SegmentAppend {
            position,
            size_bytes: size,
            base_offset: header.base_offset,
            last_offset,
            offset_index_slot,
            time_index_slot,
        })
    }

    fn batches_from(&self, position: u32) -> Batches<'_> {
        Batches {
            log: &self.log,
            inner: iter_batches(self.log.run_from(position)),
            start: position,
        }
    }

    /// Finds the first batch whose last offset ≥ `target_offset`: a floor
    /// lookup in the offset index, then a forward scan of batch headers
    /// (LogSegment.translateOffset and FileRecords.searchForOffsetWithSize).
    pub fn translate_offset(&self, target_offset: i64) -> LookupPath {
        self.locate(target_offset, true).0
    }

    /// `record_path` false leaves `scanned_batches` empty: callers that only
    /// need the batch found skip building the list of headers read.
    fn locate(&self, target_offset: i64, record_path: bool) -> (LookupPath, Option<StoredBatch>) {
        let hit = self.offset_index.lookup(target_offset);
        let mut path = LookupPath {
            segment_base_offset: self.base_offset,
            target_offset,
            index_entry_used: hit.slot,
            index_offset: hit.offset,
            index_position: hit.position,
            scanned_batches: Vec::new(),
            found_position: None,
        };
        for (position, header, size) in self.batches_from(hit.position) {
            if record_path {
                path.scanned_batches
                    .push((position, header.base_offset, header.last_offset()));
            }
            if header.last_offset() >= target_offset {
                path.found_position = Some(position);
                return (path, Some((position, header, size)));
            }
        }
        (path, None)
    }

    /// The header of the first batch whose last offset ≥ `target_offset`,
    /// found as `translate_offset` finds it but without recording the path.
    pub fn batch_header_for(&self, target_offset: i64) -> Option<BatchHeader> {
        let hit = self.offset_index.lookup(target_offset);
        self.batches_from(hit.position).map(|(_, h, _)| h).find(|h| h.last_offset() >= target_offset)
    }

    /// Reads whole batches starting with the one that holds `start_offset`
    /// (LogSegment.read). At most `max_bytes` are returned, except that with
    /// `min_one_message` the first batch is returned even if larger, as the
    /// first partition of a fetch gets it. Batches whose last offset is at or
    /// past `max_offset_exclusive` are never returned; pass `i64::MAX` for no
    /// bound. Kafka may end the slice with a partial batch that the client
    /// drops; this returns only whole batches. None means the segment holds
    /// no batch with an offset ≥ `start_offset`.
    pub fn read(
        &self,
        start_offset: i64,
        max_bytes: u32,
        max_offset_exclusive: i64,
        min_one_message: bool,
    ) -> Option<SegmentRead<'_>> {
        self.read_recording(start_offset, max_bytes, max_offset_exclusive, min_one_message, true)
    }

    /// [`LogSegment::read`], recording the headers the lookup scanned only
    /// when `record_path` is set (the trace shows them; nothing else needs
    /// them).
    pub fn read_recording(
        &self,
        start_offset: i64,
        max_bytes: u32,
        max_offset_exclusive: i64,
        min_one_message: bool,
        record_path: bool,
    ) -> Option<SegmentRead<'_>> {
        let (lookup, found) = self.locate(start_offset, record_path);
        let (start_position, _, first_size) = found?;
        let limit = if min_one_message {
            max_bytes.max(first_size)
        } else {
            max_bytes
        };
        let mut end = start_position;
        let mut batch_count = 0u32;
        let mut first_offset = start_offset;
        let mut next_offset = start_offset;
        for (position, header, size) in self.batches_from(start_position) {
            if header.last_offset() >= max_offset_exclusive {
                break;
            }
            let taken = position - start_position;
            if u64::from(taken) + u64::from(size) > u64::from(limit) {
                break;
            }
            if batch_count == 0 {
                first_offset = header.base_offset;
            }
            end = position + size;
            next_offset = header.next_offset();
            batch_count += 1;
        }
        Some(SegmentRead {
            bytes: self.log.slice(start_position, end),
            start_position,
            first_offset,
            next_offset,
            batch_count,
            lookup,
        })
    }

    /// Removes every batch holding an offset ≥ `offset` (a batch that holds
    /// `offset` goes whole) and the index entries for them
    /// (LogSegment.truncateTo). Returns the bytes removed.
    pub fn truncate_to(&mut self, offset: i64, now_ms: i64) -> u32 {
        let (_, found) = self.locate(offset, false);
        self.offset_index.truncate_to(offset);
        self.time_index.truncate_to(offset);
        let removed = match found {
            Some((position, _, _)) => {
                let removed = self.size_bytes() - position;
                self.log.truncate(position);
                removed
            }
            None => 0,
        };
        if self.log.is_empty() {
            // Kafka restarts the roll clock of an emptied segment.
            self.created_at_ms = now_ms;
            self.rolling_based_timestamp = None;
        }
        if removed > 0 {
            self.last_modified_ms = now_ms;
        }
        self.bytes_since_last_index_entry = 0;
        self.recompute_summary();
        removed
    }

    /// Rebuilds the cached next offset, batch count and largest timestamp
    /// from the headers, after a truncation.
    fn recompute_summary(&mut self) {
        let mut next_offset = self.base_offset;
        let mut batch_count = 0u32;
        let mut max_ts = NO_TIMESTAMP;
        let mut offset_of_max = self.base_offset;
        for (_, header, _) in self.batches_from(0) {
            if header.max_timestamp > max_ts {
                max_ts = header.max_timestamp;
                offset_of_max = header.last_offset();
            }
            next_offset = header.next_offset();
            batch_count += 1;
        }
        self.next_offset = next_offset;
        self.batch_count = batch_count;
        self.max_timestamp_so_far = max_ts;
        self.offset_of_max_timestamp = offset_of_max;
    }

    /// What Kafka does when a segment stops being the active one: write the
    /// largest timestamp into the time index slot kept for it, and trim the
    /// buffers to their contents (LogSegment.onBecomeInactiveSegment).
    pub fn on_become_inactive(&mut self) {
        // This can only fail on an index with no room at all (a
        // `segment.index.bytes` below one entry); skipping the entry then
        // costs only a coarser timestamp search.
        let _ = self.time_index.maybe_append(
            self.max_timestamp_so_far,
            self.offset_of_max_timestamp,
            true,
        );
        self.offset_index.trim_to_valid_size();
        self.time_index.trim_to_valid_size();
        self.log.seal();
    }

    /// Every batch as read from its header, in log order.
    pub fn batches(&self) -> Vec<BatchView> {
        self.batches_from(0)
            .map(|(position, h, size)| BatchView::new(position, &h, size))
            .collect()
    }

    /// The raw bytes of the batch starting at `position`, or None when no
    /// batch starts there. The check walks headers from the closest index
    /// entry at or below `position`, so it stays cheap.
    pub fn batch_at(&self, position: u32) -> Option<&[u8]> {
        let start = self.index_floor_by_position(position);
        for (at, _, size) in self.batches_from(start) {
            if at == position {
                return self.log.get(at, size);
            }
            if at > position {
                return None;
            }
        }
        None
    }

    /// The position of the last offset index entry at or below `position`;
    /// positions grow with offsets, so a binary search works.
    fn index_floor_by_position(&self, position: u32) -> u32 {
        let entries = self.offset_index.entry_list();
        let idx = entries.partition_point(|&(_, p)| p <= position);
        if idx == 0 {
            0
        } else {
            entries[idx - 1].1
        }
    }

    /// Bytes held in memory beyond the batches themselves: unused buffer
    /// capacity, both indexes and the segment struct.
    pub fn overhead_bytes(&self) -> u64 {
        self.log.overhead_bytes()
            + self.offset_index.allocated_bytes()
            + self.time_index.allocated_bytes()
            + std::mem::size_of::<LogSegment>() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::super::index::OFFSET_INDEX_ENTRY_SIZE;
    use super::super::testutil::batch;
    use super::*;

    fn segment(base: i64) -> LogSegment {
        LogSegment::new(base, 4096, 10_485_760, 0)
    }

    /// Appends `n` batches of `records` records and `size` bytes each,
    /// with timestamps 1000, 1001, ...
    fn fill(seg: &mut LogSegment, n: i64, records: i32, size: usize) -> Vec<SegmentAppend> {
        (0..n)
            .map(|i| {
                let base = seg.next_offset();
                seg.append(&batch(base, records, size, 1000 + i, 0), 1000 + i)
                    .unwrap()
            })
            .collect()
    }

    // These two tests came with the log's own header reader, which the
    // record module replaced; they now check `read_one_batch`, the record
    // module's reader plus the checks the log adds.
    #[test]
    fn reads_fields_at_fixed_offsets() {
        let bytes = batch(7, 5, 100, 1234, 3);
        let (h, size) = read_one_batch(&bytes).unwrap();
        assert_eq!(h.base_offset, 7);
        assert_eq!(h.partition_leader_epoch, 3);
        assert_eq!(h.last_offset(), 11);
        assert_eq!(h.next_offset(), 12);
        assert_eq!(h.max_timestamp, 1234);
        assert_eq!(h.records_count, 5);
        assert_eq!(size, 100);
        assert_eq!(h.size_in_bytes(), Some(100));
    }

    #[test]
    fn rejects_malformed_headers() {
        use super::super::super::record::batch::{
            recompute_crc, BATCH_LENGTH_OFFSET, LAST_OFFSET_DELTA_OFFSET,
        };
        assert!(matches!(
            read_one_batch(&[0u8; 10]),
            Err(SegmentError::Batch(BatchError::Truncated {
                available: 10,
                ..
            }))
        ));
        // A batchLength of 48 cannot cover the 49 header bytes after it.
        let mut short = batch(7, 1, 61 + 8, 0, 0);
        short[BATCH_LENGTH_OFFSET..BATCH_LENGTH_OFFSET + 4].copy_from_slice(&48i32.to_be_bytes());
        assert!(matches!(
            read_one_batch(&short),
            Err(SegmentError::Batch(BatchError::BatchLengthTooSmall {
                batch_length: 48
            }))
        ));
        // A 112-byte batch cut after its header.
        let cut = batch(7, 1, 112, 0, 0);
        assert_eq!(
            read_one_batch(&cut[..61]),
            Err(SegmentError::NotOneBatch {
                declared_size: 112,
                actual_size: 61
            })
        );
        // A negative lastOffsetDelta, with the CRC recomputed so only the
        // offsets are wrong.
        let mut backwards = batch(7, 1, 100, 0, 0);
        backwards[LAST_OFFSET_DELTA_OFFSET..LAST_OFFSET_DELTA_OFFSET + 4]
            .copy_from_slice(&(-1i32).to_be_bytes());
        recompute_crc(&mut backwards).unwrap();
        assert_eq!(
            read_one_batch(&backwards),
            Err(SegmentError::InvalidOffsetRange {
                base_offset: 7,
                last_offset_delta: -1
            })
        );
        // A last offset past i64::MAX.
        let overflow = batch(i64::MAX, 2, 100, 0, 0);
        assert_eq!(
            read_one_batch(&overflow),
            Err(SegmentError::InvalidOffsetRange {
                base_offset: i64::MAX,
                last_offset_delta: 1
            })
        );
    }

    #[test]
    fn file_names_are_padded_to_20_digits() {
        let seg = segment(42);
        assert_eq!(seg.file_name(LOG_FILE_SUFFIX), "00000000000000000042.log");
        assert_eq!(
            seg.file_name(INDEX_FILE_SUFFIX),
            "00000000000000000042.index"
        );
        assert_eq!(
            seg.file_name(TIME_INDEX_FILE_SUFFIX),
            "00000000000000000042.timeindex"
        );
        assert_eq!(filename_prefix_from_offset(0), "00000000000000000000");
        assert_eq!(
            filename_prefix_from_offset(9_223_372_036_854_775_807),
            "09223372036854775807"
        );
    }

    #[test]
    fn first_batch_never_gets_an_index_entry_even_if_huge() {
        let mut seg = segment(0);
        let a = seg.append(&batch(0, 10, 10_000, 5, 0), 0).unwrap();
        assert_eq!(a.offset_index_slot, None);
        assert_eq!(seg.offset_index().entries(), 0);
        assert_eq!(seg.bytes_since_last_index_entry(), 10_000);
        // The next batch follows more than 4096 bytes, so it is indexed with
        // its own last offset and its own start position.
        let b = seg.append(&batch(10, 5, 100, 6, 0), 0).unwrap();
        assert_eq!(b.offset_index_slot, Some(0));
        assert_eq!(seg.offset_index().entry_list(), vec![(14, 10_000)]);
        assert_eq!(seg.time_index().entry_list(), vec![(6, 14)]);
        assert_eq!(seg.bytes_since_last_index_entry(), 100);
    }

    #[test]
    fn index_entry_needs_strictly_more_than_the_interval() {
        let mut seg = segment(0);
        // 4 batches of 1024 bytes = exactly 4096 before the 5th: no entry.
        let appends = fill(&mut seg, 5, 1, 1024);
        assert!(appends.iter().all(|a| a.offset_index_slot.is_none()));
        assert_eq!(seg.bytes_since_last_index_entry(), 5 * 1024);
        // 5120 > 4096 before the 6th: it is indexed at its own position.
        let sixth = fill(&mut seg, 1, 1, 1024)[0];
        assert_eq!(sixth.offset_index_slot, Some(0));
        assert_eq!(seg.offset_index().entry_list(), vec![(5, 5 * 1024)]);
        // The counter restarts with the indexed batch's own size.
        assert_eq!(seg.bytes_since_last_index_entry(), 1024);
        // Entry bytes are the relative offset then the position, big-endian.
        assert_eq!(
            seg.offset_index().as_bytes().len() as u32,
            OFFSET_INDEX_ENTRY_SIZE
        );
        assert_eq!(seg.offset_index().as_bytes(), &[0, 0, 0, 5, 0, 0, 0x14, 0]);
    }

    #[test]
    fn index_entries_are_sparse_about_one_per_interval() {
        let mut seg = segment(1000);
        fill(&mut seg, 100, 3, 1000);
        let entries = seg.offset_index().entry_list();
        // 1000-byte batches: the counter passes 4096 after 5 batches, so
        // batches 5, 10, 15, ... (0-based) are indexed.
        assert_eq!(entries.len(), 19);
        assert_eq!(entries[0], (1000 + 5 * 3 + 2, 5000));
        assert_eq!(entries[1], (1000 + 10 * 3 + 2, 10_000));
        // The time index follows the same entries, since timestamps grow.
        assert_eq!(seg.time_index().entries(), 19);
        assert_eq!(seg.time_index().entry(0), Some((1005, 1017)));
    }

    #[test]
    fn time_index_entry_only_when_max_timestamp_grew() {
        let mut seg = segment(0);
        seg.append(&batch(0, 1, 5000, 9000, 0), 0).unwrap();
        // Indexed batch with an older timestamp: the max is still 9000 at
        // offset 0, and the time index takes that as its first entry.
        let a = seg.append(&batch(1, 1, 5000, 100, 0), 0).unwrap();
        assert_eq!(a.offset_index_slot, Some(0));
        assert_eq!(a.time_index_slot, Some(0));
        assert_eq!(seg.time_index().entry_list(), vec![(9000, 0)]);
        // Next indexed batch, still no newer timestamp: no time entry.
        let b = seg.append(&batch(2, 1, 5000, 200, 0), 0).unwrap();
        assert_eq!(b.offset_index_slot, Some(1));
        assert_eq!(b.time_index_slot, None);
        assert_eq!(seg.time_index().entries(), 1);
    }

    #[test]
    fn lookup_is_index_floor_then_forward_scan() {
        let mut seg = segment(0);
        // 20 batches of 10 records and 1000 bytes: offsets 0..200.
        fill(&mut seg, 20, 10, 1000);
        assert_eq!(
            seg.offset_index().entry_list(),
            vec![(59, 5000), (109, 10_000), (159, 15_000)]
        );
        // Offset 123: floor entry is (109, 10000); scan 100-109, 110-119,
        // 120-129 and stop there.
        let path = seg.translate_offset(123);
        assert_eq!(path.index_entry_used, Some(1));
        assert_eq!(path.index_offset, 109);
        assert_eq!(path.index_position, 10_000);
        assert_eq!(
            path.scanned_batches,
            vec![(10_000, 100, 109), (11_000, 110, 119), (12_000, 120, 129)]
        );
        assert_eq!(path.found_position, Some(12_000));
        // Below the first entry: start at (base, 0).
        let path = seg.translate_offset(15);
        assert_eq!(path.index_entry_used, None);
        assert_eq!((path.index_offset, path.index_position), (0, 0));
        assert_eq!(path.scanned_batches, vec![(0, 0, 9), (1000, 10, 19)]);
        assert_eq!(path.found_position, Some(1000));
        // Past the end: not found after scanning the tail.
        let path = seg.translate_offset(200);
        assert_eq!(path.found_position, None);
        assert_eq!(path.scanned_batches.len(), 5);
    }

    #[test]
    fn read_returns_whole_batches_within_limits() {
        let mut seg = segment(0);
        fill(&mut seg, 10, 10, 1000);
        // A fetch inside a batch returns that batch whole.
        let r = seg.read(35, 2500, i64::MAX, true).unwrap();
        assert_eq!((r.first_offset, r.next_offset, r.batch_count), (30, 50, 2));
        assert_eq!(r.start_position, 3000);
        assert_eq!(r.bytes.len(), 2000);
        assert_eq!(r.bytes.to_vec(), &seg.log_bytes()[3000..5000]);
        // The first batch comes even when larger than max_bytes...
        let r = seg.read(0, 10, i64::MAX, true).unwrap();
        assert_eq!((r.batch_count, r.bytes.len()), (1, 1000));
        // ...unless this is not the first partition of the fetch.
        let r = seg.read(0, 10, i64::MAX, false).unwrap();
        assert_eq!((r.batch_count, r.bytes.len()), (0, 0));
        // The upper bound stops at batches holding offsets ≥ it.
        let r = seg.read(0, u32::MAX, 50, true).unwrap();
        assert_eq!((r.batch_count, r.next_offset), (5, 50));
        // A bound inside a batch excludes that batch too.
        let r = seg.read(0, u32::MAX, 55, true).unwrap();
        assert_eq!(r.next_offset, 50);
        // The bound wins over min_one_message.
        let r = seg.read(50, u32::MAX, 50, true).unwrap();
        assert_eq!(r.batch_count, 0);
        assert!(seg.read(100, 1000, i64::MAX, true).is_none());
    }

    #[test]
    fn roll_rules() {
        let mut seg = segment(0);
        let params = |size: u32, ts: i64, now: i64| RollParams {
            max_segment_bytes: 10_000,
            max_segment_ms: 1000,
            max_timestamp_in_messages: ts,
            max_offset_in_messages: 100,
            messages_size: size,
            now_ms: now,
        };
        // An empty segment does not roll on time.
        assert_eq!(seg.should_roll(&params(100, 1_000_000, 1_000_000)), None);
        seg.append(&batch(0, 1, 5000, 500, 0), 0).unwrap();
        assert_eq!(seg.rolling_based_timestamp(), Some(500));
        assert_eq!(seg.should_roll(&params(5000, 500, 0)), None);
        assert_eq!(
            seg.should_roll(&params(5001, 500, 0)),
            Some(RollReason::SegmentBytes)
        );
        // Time counts from the first batch's timestamp to the new batch's;
        // the clock does not matter.
        assert_eq!(seg.should_roll(&params(100, 1500, 999_999)), None);
        assert_eq!(
            seg.should_roll(&params(100, 1501, 0)),
            Some(RollReason::SegmentMs)
        );
        let mut p = params(100, 500, 0);
        p.max_offset_in_messages = i64::from(i32::MAX) + 1;
        assert_eq!(
            seg.should_roll(&p),
            Some(RollReason::RelativeOffsetOverflow)
        );
    }

    #[test]
    fn roll_time_falls_back_to_creation_clock_without_timestamps() {
        let mut seg = LogSegment::new(0, 4096, 10_485_760, 100);
        seg.append(&batch(0, 1, 100, -1, 0), 100).unwrap();
        assert_eq!(seg.time_waited_for_roll(1200, -1), 1100);
        assert_eq!(seg.largest_timestamp(), 100);
    }

    #[test]
    fn full_index_rolls_the_segment() {
        // Room for 4 offset entries and 3 time entries (one kept for rolls).
        let mut seg = LogSegment::new(0, 0, 36, 0);
        let p = RollParams {
            max_segment_bytes: i32::MAX,
            max_segment_ms: i64::MAX,
            max_timestamp_in_messages: 0,
            max_offset_in_messages: 10,
            messages_size: 100,
            now_ms: 0,
        };
        seg.append(&batch(0, 1, 100, 1, 0), 0).unwrap();
        seg.append(&batch(1, 1, 100, 2, 0), 0).unwrap();
        assert_eq!(seg.should_roll(&p), None);
        seg.append(&batch(2, 1, 100, 3, 0), 0).unwrap();
        assert_eq!(seg.time_index().entries(), 2);
        assert_eq!(seg.should_roll(&p), Some(RollReason::TimeIndexFull));
        // An append that needs an entry is refused without changing anything.
        let before = seg.clone();
        assert!(matches!(
            seg.append(&batch(3, 1, 100, 4, 0), 0),
            Err(SegmentError::Index(IndexError::Full { .. }))
        ));
        assert_eq!(seg, before);
    }

    #[test]
    fn append_rejects_bad_batches() {
        let mut seg = segment(10);
        assert!(matches!(
            seg.append(&batch(9, 1, 100, 0, 0), 0),
            Err(SegmentError::BelowBaseOffset { .. })
        ));
        let mut two = batch(10, 1, 100, 0, 0);
        two.extend(batch(11, 1, 100, 0, 0));
        assert!(matches!(
            seg.append(&two, 0),
            Err(SegmentError::NotOneBatch { .. })
        ));
        assert!(matches!(
            seg.append(&[0u8; 20], 0),
            Err(SegmentError::Batch(BatchError::Truncated { .. }))
        ));
        seg.append(&batch(10, 5, 100, 0, 0), 0).unwrap();
        assert!(matches!(
            seg.append(&batch(12, 1, 100, 0, 0), 0),
            Err(SegmentError::OffsetNotIncreasing { .. })
        ));
        assert!(matches!(
            seg.append(&batch(11 + i64::from(i32::MAX), 1, 100, 0, 0), 0),
            Err(SegmentError::RelativeOffsetOverflow { .. })
        ));
        assert_eq!(seg.batch_count(), 1);
    }

    #[test]
    fn truncate_drops_whole_batches_and_index_entries() {
        let mut seg = segment(0);
        fill(&mut seg, 20, 10, 1000);
        // Offset 125 lies in batch 120-129, which goes whole.
        let removed = seg.truncate_to(125, 5000);
        assert_eq!(removed, 8000);
        assert_eq!(seg.next_offset(), 120);
        assert_eq!(seg.last_offset(), Some(119));
        assert_eq!(seg.batch_count(), 12);
        assert_eq!(
            seg.offset_index().entry_list(),
            vec![(59, 5000), (109, 10_000)]
        );
        assert_eq!(seg.time_index().entries(), 2);
        assert_eq!(seg.max_timestamp_so_far(), 1011);
        assert_eq!(seg.offset_of_max_timestamp(), 119);
        assert_eq!(seg.bytes_since_last_index_entry(), 0);
        // Truncating past the end changes nothing.
        assert_eq!(seg.truncate_to(500, 6000), 0);
        assert_eq!(seg.next_offset(), 120);
        // Truncating to the base empties it and restarts the roll clock.
        assert_eq!(seg.truncate_to(0, 7000), 12_000);
        assert!(seg.is_empty());
        assert_eq!(seg.next_offset(), 0);
        assert_eq!(seg.created_at_ms(), 7000);
        assert_eq!(seg.rolling_based_timestamp(), None);
        assert_eq!(seg.max_timestamp_so_far(), NO_TIMESTAMP);
        assert_eq!(seg.offset_index().entries(), 0);
    }

    #[test]
    fn becoming_inactive_writes_the_final_time_entry() {
        let mut seg = segment(0);
        fill(&mut seg, 3, 1, 100);
        assert_eq!(seg.time_index().entries(), 0);
        seg.on_become_inactive();
        assert_eq!(seg.time_index().entry_list(), vec![(1002, 2)]);
        assert_eq!(seg.log_bytes().len(), 300);
    }

    #[test]
    fn batch_views_and_raw_bytes() {
        let mut seg = segment(0);
        fill(&mut seg, 12, 2, 1000);
        let views = seg.batches();
        assert_eq!(views.len(), 12);
        assert_eq!(views[7].position, 7000);
        assert_eq!((views[7].base_offset, views[7].last_offset), (14, 15));
        assert_eq!(views[7].records_count, 2);
        assert_eq!(seg.batch_at(7000), Some(&seg.log_bytes()[7000..8000]));
        assert_eq!(seg.batch_at(7001), None);
        assert_eq!(seg.batch_at(12_000), None);
    }
}
