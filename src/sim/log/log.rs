//! One replica's log of one partition (UnifiedLog.java and LocalLog.java),
//! held in memory.
//!
//! The log is a list of segments, oldest first; only the last (the active
//! segment) takes appends. Batches arrive as raw record batch v2 bytes that
//! the caller has already validated and given offsets. The log decides when
//! to roll, serves reads through the sparse index, truncates for followers,
//! and deletes whole old segments for retention.

use super::super::record::batch::{self, BatchError, BatchHeader, RECORD_BATCH_OVERHEAD};
use super::chunked::Slice;
use super::epoch_cache::{EpochError, LeaderEpochCache};
use super::segment::{
    read_one_batch, BatchView, LogSegment, LookupPath, RollParams, RollReason, SegmentAppend, SegmentError,
    LOG_FILE_SUFFIX,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The topic-level settings the log obeys, with Kafka's defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogConfig {
    /// `segment.bytes`: the largest a segment may grow.
    pub segment_bytes: i32,
    /// `segment.ms`: the longest a segment may span by record timestamps.
    pub segment_ms: i64,
    /// `index.interval.bytes`: the bytes written between offset index entries.
    pub index_interval_bytes: i32,
    /// `segment.index.bytes`: the size cap of each index.
    pub segment_index_bytes: i32,
    /// `retention.ms`: how long a segment is kept after its newest record;
    /// negative means forever.
    pub retention_ms: i64,
    /// `retention.bytes`: the size the log is cut back to; negative is off.
    pub retention_bytes: i64,
    /// `max.message.bytes`: the largest batch a leader accepts.
    pub max_message_bytes: i32,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig {
            segment_bytes: 1_073_741_824,
            segment_ms: 604_800_000,
            index_interval_bytes: 4096,
            segment_index_bytes: 10_485_760,
            retention_ms: 604_800_000,
            retention_bytes: -1,
            max_message_bytes: 1_048_588,
        }
    }
}

impl LogConfig {
    /// Checks the ranges Kafka's LogConfig enforces, except that
    /// `segment.bytes` may go down to one batch header so the simulation can
    /// show rolls with small segments (Kafka 4.0 requires at least 1 MiB).
    pub fn validate(&self) -> Result<(), LogError> {
        let checks: [(&'static str, i64, i64); 6] = [
            (
                "segment.bytes",
                i64::from(self.segment_bytes),
                i64::from(RECORD_BATCH_OVERHEAD),
            ),
            ("segment.ms", self.segment_ms, 1),
            (
                "index.interval.bytes",
                i64::from(self.index_interval_bytes),
                0,
            ),
            (
                "segment.index.bytes",
                i64::from(self.segment_index_bytes),
                4,
            ),
            ("retention.ms", self.retention_ms, -1),
            ("max.message.bytes", i64::from(self.max_message_bytes), 0),
        ];
        for (name, value, minimum) in checks {
            if value < minimum {
                return Err(LogError::InvalidConfig {
                    name,
                    value,
                    minimum,
                });
            }
        }
        Ok(())
    }
}

/// Why the log refused an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogError {
    /// A setting is below the range Kafka allows.
    InvalidConfig {
        name: &'static str,
        value: i64,
        minimum: i64,
    },
    /// The record module cannot read the bytes as a batch: fewer bytes than
    /// a header, or a `batchLength` too small to cover it.
    MalformedBatch(BatchError),
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
    /// The batch does not start at the log end offset.
    UnexpectedBaseOffset {
        base_offset: i64,
        log_end_offset: i64,
    },
    /// A leader refuses a batch over `max.message.bytes` (MESSAGE_TOO_LARGE).
    MessageTooLarge {
        size_bytes: u32,
        max_message_bytes: i32,
    },
    /// No batch may be larger than a segment (RECORD_BATCH_TOO_LARGE).
    RecordBatchTooLarge { size_bytes: u32, segment_bytes: i32 },
    /// The batch's partition leader epoch cannot be recorded.
    InvalidLeaderEpoch(EpochError),
    /// The fetch offset is outside [log start offset, log end offset].
    OffsetOutOfRange {
        offset: i64,
        log_start_offset: i64,
        log_end_offset: i64,
    },
    /// Truncation targets must not be negative.
    NegativeOffset { offset: i64 },
    /// No segment has this base offset.
    SegmentNotFound { base_offset: i64 },
    /// No batch starts at this position of the segment.
    NoBatchAtPosition { base_offset: i64, position: u32 },
    /// The segment refused the append (not expected after the log's checks).
    Segment(SegmentError),
    /// A restored log breaks an invariant of the log.
    CorruptState { reason: &'static str },
}

impl fmt::Display for LogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LogError::InvalidConfig {
                name,
                value,
                minimum,
            } => write!(f, "{name} = {value} is invalid: it must be at least {minimum}"),
            LogError::MalformedBatch(e) => write!(f, "malformed record batch: {e}"),
            LogError::NotOneBatch {
                declared_size,
                actual_size,
            } => write!(
                f,
                "expected exactly one batch: the header declares {declared_size} bytes but {actual_size} were given"
            ),
            LogError::InvalidOffsetRange {
                base_offset,
                last_offset_delta,
            } => write!(
                f,
                "baseOffset {base_offset} with lastOffsetDelta {last_offset_delta} gives no valid last offset"
            ),
            LogError::UnexpectedBaseOffset {
                base_offset,
                log_end_offset,
            } => write!(
                f,
                "the batch starts at offset {base_offset} but the log end offset is {log_end_offset}"
            ),
            LogError::MessageTooLarge {
                size_bytes,
                max_message_bytes,
            } => write!(
                f,
                "the batch is {size_bytes} bytes, over max.message.bytes = {max_message_bytes}"
            ),
            LogError::RecordBatchTooLarge {
                size_bytes,
                segment_bytes,
            } => write!(
                f,
                "the batch is {size_bytes} bytes, larger than segment.bytes = {segment_bytes}"
            ),
            LogError::InvalidLeaderEpoch(e) => write!(f, "{e}"),
            LogError::OffsetOutOfRange {
                offset,
                log_start_offset,
                log_end_offset,
            } => write!(
                f,
                "offset {offset} is out of range: the log holds [{log_start_offset}, {log_end_offset})"
            ),
            LogError::NegativeOffset { offset } => {
                write!(f, "cannot truncate to the negative offset {offset}")
            }
            LogError::SegmentNotFound { base_offset } => {
                write!(f, "no segment has base offset {base_offset}")
            }
            LogError::NoBatchAtPosition {
                base_offset,
                position,
            } => write!(
                f,
                "no batch starts at position {position} of segment {base_offset}"
            ),
            LogError::Segment(e) => write!(f, "segment append failed: {e}"),
            LogError::CorruptState { reason } => write!(f, "corrupt log state: {reason}"),
        }
    }
}

impl std::error::Error for LogError {}

impl From<SegmentError> for LogError {
    fn from(e: SegmentError) -> Self {
        LogError::Segment(e)
    }
}

/// What an append did, for the caller and the UI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct AppendInfo {
    pub first_offset: i64,
    pub last_offset: i64,
    /// Where the batch starts in its segment's `.log`.
    pub position: u32,
    pub size_bytes: u32,
    pub segment_base_offset: i64,
    /// Whether a new segment was started for this batch.
    pub rolled: bool,
    /// The roll condition that held before the append, if any. An empty
    /// active segment is recreated rather than followed by a new one, so
    /// this can be set while `rolled` is false.
    pub roll_reason: Option<RollReason>,
    pub offset_index_slot: Option<u32>,
    pub time_index_slot: Option<u32>,
}

/// The answer of a read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchRead {
    /// Whole batches, back to back.
    pub bytes: Vec<u8>,
    /// The base offset of the first batch returned (it may be below the
    /// fetch offset, as batches come whole), or the fetch offset when empty.
    pub first_offset: i64,
    /// The offset after the last batch returned, or the fetch offset.
    pub next_offset: i64,
    pub batch_count: u32,
    /// The segment read from (the active one when nothing was read).
    pub segment_base_offset: i64,
    /// The index lookup and header scan, or None when the read ended before
    /// looking (the fetch offset was at or past the upper bound).
    pub lookup: Option<LookupPath>,
}

/// A read before its bytes are copied out of the segment.
struct LogSlice<'a> {
    bytes: Slice<'a>,
    first_offset: i64,
    next_offset: i64,
    batch_count: u32,
    segment_base_offset: i64,
    lookup: Option<LookupPath>,
}

impl LogSlice<'_> {
    fn to_fetch_read(self) -> FetchRead {
        FetchRead {
            bytes: self.bytes.to_vec(),
            first_offset: self.first_offset,
            next_offset: self.next_offset,
            batch_count: self.batch_count,
            segment_base_offset: self.segment_base_offset,
            lookup: self.lookup,
        }
    }
}

/// Which retention rule removed a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DeletionReason {
    /// `retention.ms`: its newest record is older than the limit.
    Time,
    /// `retention.bytes`: the log is over the size limit without it.
    Size,
}

/// A segment removed by retention.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletedSegment {
    pub base_offset: i64,
    pub next_offset: i64,
    pub reason: DeletionReason,
    pub bytes: u32,
}

/// What a truncation did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TruncationInfo {
    /// False when the target was at or past the log end offset.
    pub changed: bool,
    /// Base offsets of the segments removed whole.
    pub removed_segments: Vec<i64>,
    pub bytes_removed: u64,
    pub log_end_offset: i64,
}

/// A segment as the inspector shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SegmentView {
    /// The `.log` file name; the indexes share the prefix.
    pub name: String,
    pub base_offset: i64,
    pub next_offset: i64,
    pub size_bytes: u32,
    pub batch_count: u32,
    /// Offset index entries as (absolute offset, position).
    pub index_entries: Vec<(i64, u32)>,
    /// Time index entries as (timestamp, absolute offset).
    pub time_index_entries: Vec<(i64, i64)>,
    /// The timestamp retention compares against.
    pub largest_timestamp: i64,
    pub is_active: bool,
}

/// One replica's log of one partition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "LogState")]
pub struct Log {
    config: LogConfig,
    /// Oldest first; never empty; the last one is the active segment.
    segments: Vec<LogSegment>,
    log_start_offset: i64,
    /// The LEO: the offset the next batch gets.
    log_end_offset: i64,
    epoch_cache: LeaderEpochCache,
}

/// The serialized form of a `Log`, checked before it becomes one so that a
/// restored snapshot cannot break the invariants the log relies on.
#[derive(Deserialize)]
struct LogState {
    config: LogConfig,
    segments: Vec<LogSegment>,
    log_start_offset: i64,
    log_end_offset: i64,
    epoch_cache: LeaderEpochCache,
}

impl TryFrom<LogState> for Log {
    type Error = LogError;

    fn try_from(state: LogState) -> Result<Log, LogError> {
        state.config.validate()?;
        let corrupt = |reason| Err(LogError::CorruptState { reason });
        let Some(active) = state.segments.last() else {
            return corrupt("a log needs at least one segment");
        };
        for pair in state.segments.windows(2) {
            if pair[0].base_offset() >= pair[1].base_offset()
                || pair[0].next_offset() > pair[1].base_offset()
            {
                return corrupt("segments overlap or are out of order");
            }
        }
        if active.next_offset() != state.log_end_offset {
            return corrupt("the log end offset differs from the active segment's next offset");
        }
        if state.log_start_offset > state.log_end_offset
            || state.log_start_offset < state.segments[0].base_offset()
        {
            return corrupt("the log start offset is outside the segments");
        }
        Ok(Log {
            config: state.config,
            segments: state.segments,
            log_start_offset: state.log_start_offset,
            log_end_offset: state.log_end_offset,
            epoch_cache: state.epoch_cache,
        })
    }
}

impl Log {
    /// An empty log starting at offset 0 with one empty segment.
    pub fn new(config: LogConfig, now_ms: i64) -> Result<Log, LogError> {
        config.validate()?;
        Ok(Log {
            config,
            segments: vec![Self::new_segment(&config, 0, now_ms)],
            log_start_offset: 0,
            log_end_offset: 0,
            epoch_cache: LeaderEpochCache::new(),
        })
    }

    fn new_segment(config: &LogConfig, base_offset: i64, now_ms: i64) -> LogSegment {
        LogSegment::new(
            base_offset,
            config.index_interval_bytes,
            config.segment_index_bytes,
            now_ms,
        )
    }

    pub fn config(&self) -> &LogConfig {
        &self.config
    }

    /// Changes the topic settings. As in Kafka, existing segments keep the
    /// index interval and index size they were created with.
    pub fn set_config(&mut self, config: LogConfig) -> Result<(), LogError> {
        config.validate()?;
        self.config = config;
        Ok(())
    }

    pub fn segments(&self) -> &[LogSegment] {
        &self.segments
    }

    /// The segment taking appends.
    pub fn active_segment(&self) -> &LogSegment {
        // `segments` is never empty: every path that removes segments
        // leaves or creates one.
        &self.segments[self.segments.len() - 1]
    }

    pub fn log_start_offset(&self) -> i64 {
        self.log_start_offset
    }

    pub fn log_end_offset(&self) -> i64 {
        self.log_end_offset
    }

    pub fn epoch_cache(&self) -> &LeaderEpochCache {
        &self.epoch_cache
    }

    pub fn latest_epoch(&self) -> Option<i32> {
        self.epoch_cache.latest_epoch()
    }

    /// Records that `epoch` starts at `start_offset`, as a new leader does
    /// with its log end offset when it takes over.
    pub fn assign_epoch_start_offset(
        &mut self,
        epoch: i32,
        start_offset: i64,
    ) -> Result<bool, LogError> {
        self.epoch_cache
            .assign(epoch, start_offset)
            .map_err(LogError::InvalidLeaderEpoch)
    }

    /// The leader's answer to a follower's OffsetsForLeaderEpoch (or the
    /// diverging-epoch check of a fetch): None means UNDEFINED.
    pub fn end_offset_for_epoch(&self, epoch: i32) -> Option<(i32, i64)> {
        self.epoch_cache.end_offset_for(epoch, self.log_end_offset)
    }

    /// The bytes of all segments (UnifiedLog.size).
    pub fn size_bytes(&self) -> u64 {
        self.segments
            .iter()
            .map(|s| u64::from(s.size_bytes()))
            .sum()
    }

    /// The record batch bytes held; the same as `size_bytes`, named for the
    /// memory benchmark.
    pub fn record_bytes(&self) -> u64 {
        self.size_bytes()
    }

    /// Every byte held in memory other than the batches: unused buffer
    /// capacity, indexes, structs and the epoch cache.
    pub fn memory_overhead_bytes(&self) -> u64 {
        let spare_slots = (self.segments.capacity() - self.segments.len()) as u64;
        std::mem::size_of::<Log>() as u64
            + spare_slots * std::mem::size_of::<LogSegment>() as u64
            + self
                .segments
                .iter()
                .map(|s| s.overhead_bytes())
                .sum::<u64>()
            + self.epoch_cache.allocated_bytes()
    }

    /// Appends a batch as the leader: the batch must start at the log end
    /// offset, fit `max.message.bytes` and fit a segment.
    pub fn append(&mut self, batch: &[u8], now_ms: i64) -> Result<AppendInfo, LogError> {
        // Every check comes before any change, so a refused batch leaves the
        // log, its segments and its epoch cache exactly as they were.
        let (header, size) = self.check_next_batch(batch, self.log_end_offset)?;
        if i64::from(size) > i64::from(self.config.max_message_bytes) {
            return Err(LogError::MessageTooLarge {
                size_bytes: size,
                max_message_bytes: self.config.max_message_bytes,
            });
        }
        if i64::from(size) > i64::from(self.config.segment_bytes) {
            return Err(LogError::RecordBatchTooLarge {
                size_bytes: size,
                segment_bytes: self.config.segment_bytes,
            });
        }
        let (rolled, roll_reason) =
            self.maybe_roll(header.base_offset, header.max_timestamp, header.last_offset(), size, now_ms);
        let appended = self.append_batch(batch, &header, now_ms)?;
        Ok(AppendInfo {
            first_offset: appended.base_offset,
            last_offset: appended.last_offset,
            position: appended.position,
            size_bytes: appended.size_bytes,
            segment_base_offset: self.active_segment().base_offset(),
            rolled,
            roll_reason,
            offset_index_slot: appended.offset_index_slot,
            time_index_slot: appended.time_index_slot,
        })
    }

    /// Appends the whole batches a follower fetched from its leader as one
    /// append, as UnifiedLog.appendAsFollower does: every batch is checked
    /// first (each starts where the one before ended, the first at the log
    /// end offset), then the log decides once whether to roll, from the
    /// chunk's first offset, last offset, largest timestamp and size
    /// (UnifiedLog.maybeRoll), and the segment appends and indexes the
    /// batches one by one (LogSegment.append). A follower skips the
    /// `max.message.bytes` and `segment.bytes` checks, since the leader
    /// already accepted the batches (Kafka appends replicated data with
    /// ignoreRecordSize, and since KAFKA-17375 lets a follower's segment grow
    /// past `segment.bytes` rather than fail). Returns None for no bytes.
    pub fn append_as_follower(&mut self, records: &[u8], now_ms: i64) -> Result<Option<AppendInfo>, LogError> {
        let mut batches = Vec::new();
        let mut position = 0usize;
        let mut next = self.log_end_offset;
        let mut max_timestamp = i64::MIN;
        while position < records.len() {
            let size = batch::batch_size_at(records, position as u32).map_err(LogError::MalformedBatch)?;
            let end = position.saturating_add(size as usize).min(records.len());
            let one = &records[position..end];
            let (header, _) = self.check_next_batch(one, next)?;
            next = header.last_offset() + 1;
            max_timestamp = max_timestamp.max(header.max_timestamp);
            batches.push((position, end, header));
            position = end;
        }
        let (Some((_, _, first)), Some((_, _, last))) = (batches.first(), batches.last()) else {
            return Ok(None);
        };
        let (first_offset, last_offset) = (first.base_offset, last.last_offset());
        let chunk_size = u32::try_from(records.len()).unwrap_or(u32::MAX);
        let (rolled, roll_reason) = self.maybe_roll(first_offset, max_timestamp, last_offset, chunk_size, now_ms);
        // Kafka's segment append would find its index full part-way
        // (OffsetIndex.append throws), which only a chunk of many batches
        // and a small segment.index.bytes can meet; the follower appends the
        // batches that fit, and its next fetch asks for the rest, which then
        // rolls on the full index.
        let fit = self.active_segment().batches_that_fit(batches.iter().map(|(s, e, _)| (e - s) as u32));
        batches.truncate(fit.max(1));
        let mut info: Option<AppendInfo> = None;
        for (start, end, header) in &batches {
            let appended = self.append_batch(&records[*start..*end], header, now_ms)?;
            let segment_base_offset = self.active_segment().base_offset();
            let i = info.get_or_insert(AppendInfo {
                first_offset: appended.base_offset,
                last_offset: appended.last_offset,
                position: appended.position,
                size_bytes: 0,
                segment_base_offset,
                rolled,
                roll_reason,
                offset_index_slot: appended.offset_index_slot,
                time_index_slot: appended.time_index_slot,
            });
            i.last_offset = appended.last_offset;
            i.size_bytes += appended.size_bytes;
            i.offset_index_slot = i.offset_index_slot.or(appended.offset_index_slot);
            i.time_index_slot = i.time_index_slot.or(appended.time_index_slot);
        }
        Ok(info)
    }

    /// The checks a batch must pass before the log takes it: one whole
    /// batch with a valid offset range, starting at `next_offset`, stamped
    /// with a leader epoch the epoch cache can record.
    fn check_next_batch(&self, batch: &[u8], next_offset: i64) -> Result<(BatchHeader, u32), LogError> {
        let (header, size) = read_one_batch(batch).map_err(|e| match e {
            SegmentError::Batch(e) => LogError::MalformedBatch(e),
            SegmentError::NotOneBatch { declared_size, actual_size } => {
                LogError::NotOneBatch { declared_size, actual_size }
            }
            SegmentError::InvalidOffsetRange { base_offset, last_offset_delta } => {
                LogError::InvalidOffsetRange { base_offset, last_offset_delta }
            }
            other => LogError::Segment(other),
        })?;
        if header.base_offset != next_offset {
            return Err(LogError::UnexpectedBaseOffset { base_offset: header.base_offset, log_end_offset: next_offset });
        }
        let epoch = header.partition_leader_epoch;
        if epoch < 0 {
            return Err(LogError::InvalidLeaderEpoch(EpochError::InvalidEntry { epoch, start_offset: header.base_offset }));
        }
        Ok((header, size))
    }

    /// UnifiedLog.maybeRoll: the active segment rolls before an append when
    /// it is too big, too old or has a full index; the new segment starts at
    /// the append's first offset. Returns whether a segment was added, and
    /// the roll condition that held.
    fn maybe_roll(
        &mut self,
        first_offset: i64,
        max_timestamp: i64,
        last_offset: i64,
        size: u32,
        now_ms: i64,
    ) -> (bool, Option<RollReason>) {
        let params = RollParams {
            max_segment_bytes: self.config.segment_bytes,
            max_segment_ms: self.config.segment_ms,
            max_timestamp_in_messages: max_timestamp,
            max_offset_in_messages: last_offset,
            messages_size: size,
            now_ms,
        };
        let reason = self.active_segment().should_roll(&params);
        match reason {
            Some(_) => (self.roll_at(first_offset, now_ms), reason),
            None => (false, None),
        }
    }

    /// Records the batch's leader epoch (UnifiedLog.append calls
    /// maybeAssignEpochStartOffset for each v2 batch) and appends it to the
    /// active segment. The batch has passed `check_next_batch`.
    fn append_batch(&mut self, batch: &[u8], header: &BatchHeader, now_ms: i64) -> Result<SegmentAppend, LogError> {
        self.epoch_cache
            .assign(header.partition_leader_epoch, header.base_offset)
            .map_err(LogError::InvalidLeaderEpoch)?;
        let last = self.segments.len() - 1;
        let appended = self.segments[last].append(batch, now_ms)?;
        self.log_end_offset = appended.last_offset + 1;
        Ok(appended)
    }

    /// Starts a new active segment at `base_offset` (LocalLog.roll). An empty
    /// active segment is replaced rather than followed, as Kafka deletes and
    /// recreates it, so the log never holds an empty segment before another.
    /// Returns whether a new segment was added.
    fn roll_at(&mut self, base_offset: i64, now_ms: i64) -> bool {
        let fresh = Self::new_segment(&self.config, base_offset, now_ms);
        let last = self.segments.len() - 1;
        if self.segments[last].is_empty() {
            self.segments[last] = fresh;
            return false;
        }
        self.segments[last].on_become_inactive();
        self.segments.push(fresh);
        true
    }

    /// Rolls the active segment now, at the log end offset, if it holds any
    /// data; returns whether a new segment was started.
    pub fn roll(&mut self, now_ms: i64) -> bool {
        if self.active_segment().is_empty() {
            return false;
        }
        self.roll_at(self.log_end_offset, now_ms)
    }

    /// Reads from `fetch_offset` up to `max_bytes`, never returning batches
    /// at or past `upper_bound_exclusive` (consumers pass the high watermark,
    /// followers the log end offset). The first batch is returned even when
    /// larger than `max_bytes`.
    pub fn read(
        &self,
        fetch_offset: i64,
        max_bytes: u32,
        upper_bound_exclusive: i64,
    ) -> Result<FetchRead, LogError> {
        self.read_with(fetch_offset, max_bytes, upper_bound_exclusive, true)
    }

    /// `read` with Kafka's `minOneMessage` flag: a fetch sets it only for
    /// the first partition that returns data, so later partitions of the
    /// same response respect `max_bytes` strictly.
    pub fn read_with(
        &self,
        fetch_offset: i64,
        max_bytes: u32,
        upper_bound_exclusive: i64,
        min_one_message: bool,
    ) -> Result<FetchRead, LogError> {
        self.read_recording(fetch_offset, max_bytes, upper_bound_exclusive, min_one_message, true)
    }

    /// [`Log::read_with`]; `record_path` false leaves out the list of
    /// headers the lookup scanned, which only the trace shows.
    pub fn read_recording(
        &self,
        fetch_offset: i64,
        max_bytes: u32,
        upper_bound_exclusive: i64,
        min_one_message: bool,
        record_path: bool,
    ) -> Result<FetchRead, LogError> {
        self.read_slice(fetch_offset, max_bytes, upper_bound_exclusive, min_one_message, record_path)
            .map(LogSlice::to_fetch_read)
    }

    /// How many bytes [`Log::read_with`] would return, found from batch
    /// positions in the segment without copying the batches: what a
    /// DelayedFetch checks against `fetch.min.bytes` (Kafka counts from the
    /// positions in its LogOffsetMetadata rather than reading the log).
    pub fn readable_bytes(
        &self,
        fetch_offset: i64,
        max_bytes: u32,
        upper_bound_exclusive: i64,
        min_one_message: bool,
    ) -> Result<u32, LogError> {
        self.read_slice(fetch_offset, max_bytes, upper_bound_exclusive, min_one_message, false)
            .map(|r| r.bytes.len())
    }

    /// The read itself, borrowing the batches from their segment.
    fn read_slice(
        &self,
        fetch_offset: i64,
        max_bytes: u32,
        upper_bound_exclusive: i64,
        min_one_message: bool,
        record_path: bool,
    ) -> Result<LogSlice<'_>, LogError> {
        if fetch_offset < self.log_start_offset || fetch_offset > self.log_end_offset {
            return Err(LogError::OffsetOutOfRange {
                offset: fetch_offset,
                log_start_offset: self.log_start_offset,
                log_end_offset: self.log_end_offset,
            });
        }
        let bound = upper_bound_exclusive.min(self.log_end_offset);
        // The segment with the largest base offset ≤ the fetch offset.
        let floor = self
            .segments
            .partition_point(|s| s.base_offset() <= fetch_offset)
            .saturating_sub(1);
        let empty = |segment_base_offset: i64, lookup: Option<LookupPath>| LogSlice {
            bytes: Slice::empty(),
            first_offset: fetch_offset,
            next_offset: fetch_offset,
            batch_count: 0,
            segment_base_offset,
            lookup,
        };
        // At or past the bound there is nothing to read yet (LocalLog.read
        // answers with an empty result, not an error).
        if fetch_offset >= bound {
            return Ok(empty(self.segments[floor].base_offset(), None));
        }
        // A segment may hold nothing at or above the fetch offset; Kafka then
        // moves on to the next segment.
        let mut last_lookup = None;
        for segment in &self.segments[floor..] {
            match segment.read_recording(fetch_offset, max_bytes, bound, min_one_message, record_path) {
                Some(r) => {
                    return Ok(LogSlice {
                        bytes: r.bytes,
                        first_offset: r.first_offset,
                        next_offset: r.next_offset,
                        batch_count: r.batch_count,
                        segment_base_offset: segment.base_offset(),
                        lookup: Some(r.lookup),
                    })
                }
                None => last_lookup = Some(segment.translate_offset(fetch_offset)),
            }
        }
        Ok(empty(self.active_segment().base_offset(), last_lookup))
    }

    /// Follower truncation (UnifiedLog.truncateTo): removes every batch
    /// holding an offset ≥ `target_offset`, whole segments included, moves
    /// the log end offset and drops epoch entries from the new end.
    ///
    /// - At or past the log end offset nothing is removed, but the epoch
    ///   cache is still truncated to the log end offset, since a leader may
    ///   have recorded an epoch start it never wrote to.
    /// - Below the first segment's base the log is emptied and restarted at
    ///   the target (truncateFullyAndStartAt).
    /// - A target inside a batch removes that batch too. Kafka then sets the
    ///   log end offset to the target; here it becomes the offset after the
    ///   last remaining batch, so it always matches the data. Targets from
    ///   epoch end offsets and high watermarks fall on batch boundaries,
    ///   where the two agree.
    pub fn truncate_to(
        &mut self,
        target_offset: i64,
        now_ms: i64,
    ) -> Result<TruncationInfo, LogError> {
        if target_offset < 0 {
            return Err(LogError::NegativeOffset {
                offset: target_offset,
            });
        }
        if target_offset >= self.log_end_offset {
            self.epoch_cache.truncate_from_end(self.log_end_offset);
            return Ok(TruncationInfo {
                changed: false,
                removed_segments: Vec::new(),
                bytes_removed: 0,
                log_end_offset: self.log_end_offset,
            });
        }
        if self.segments[0].base_offset() > target_offset {
            let removed_segments = self.segments.iter().map(|s| s.base_offset()).collect();
            let bytes_removed = self.size_bytes();
            self.truncate_fully_and_start_at(target_offset, now_ms)?;
            return Ok(TruncationInfo {
                changed: true,
                removed_segments,
                bytes_removed,
                log_end_offset: self.log_end_offset,
            });
        }
        // Segments starting above the target go whole; one starting exactly
        // at it stays, emptied, as the active segment (LocalLog.truncateTo).
        let keep = self
            .segments
            .partition_point(|s| s.base_offset() <= target_offset);
        let dropped = self.segments.split_off(keep);
        let mut bytes_removed: u64 = dropped.iter().map(|s| u64::from(s.size_bytes())).sum();
        let last = self.segments.len() - 1;
        bytes_removed += u64::from(self.segments[last].truncate_to(target_offset, now_ms));
        self.log_end_offset = self.segments[last].next_offset();
        self.epoch_cache.truncate_from_end(self.log_end_offset);
        self.log_start_offset = self.log_start_offset.min(self.log_end_offset);
        Ok(TruncationInfo {
            changed: true,
            removed_segments: dropped.iter().map(|s| s.base_offset()).collect(),
            bytes_removed,
            log_end_offset: self.log_end_offset,
        })
    }

    /// Empties the log and restarts it at `new_offset`, which also becomes
    /// the log start offset; the epoch cache is cleared. A follower does this
    /// when its log end offset is below the leader's log start offset.
    pub fn truncate_fully_and_start_at(
        &mut self,
        new_offset: i64,
        now_ms: i64,
    ) -> Result<(), LogError> {
        if new_offset < 0 {
            return Err(LogError::NegativeOffset { offset: new_offset });
        }
        self.segments = vec![Self::new_segment(&self.config, new_offset, now_ms)];
        self.log_start_offset = new_offset;
        self.log_end_offset = new_offset;
        self.epoch_cache.clear();
        Ok(())
    }

    /// Retention (UnifiedLog.deleteOldSegments), run by size and then by
    /// time, as Kafka orders them. Only whole segments go, oldest first, and
    /// each pass stops at the first segment it may not delete:
    /// - a segment may go only when every offset in it is below the high
    ///   watermark, i.e. the next segment's base offset (or, for the active
    ///   segment, the log end offset) is ≤ the high watermark, so the log
    ///   start offset never passes the high watermark;
    /// - an empty active segment is never deleted;
    /// - the active segment itself can go (when fully below the high
    ///   watermark and past the limit): a new empty segment is rolled at the
    ///   log end offset first, since a log always has one segment;
    /// - by size: with `retention.bytes` ≥ 0 and the log at least that big,
    ///   segments go while the excess (size − retention.bytes) still covers
    ///   the whole segment;
    /// - by time: with `retention.ms` ≥ 0, segments go while
    ///   now − largest timestamp > retention.ms (the largest record
    ///   timestamp, or the last append time when no record had one).
    ///
    /// The log start offset then moves to the first surviving segment's
    /// base, and the epoch cache forgets entries below it. The high
    /// watermark is clamped to the log end offset.
    pub fn delete_retention(&mut self, now_ms: i64, high_watermark: i64) -> Vec<DeletedSegment> {
        let hw = high_watermark.min(self.log_end_offset);
        let mut deleted = Vec::new();

        if self.config.retention_bytes >= 0 {
            let log_size = i64::try_from(self.size_bytes()).unwrap_or(i64::MAX);
            if log_size >= self.config.retention_bytes {
                let mut excess = log_size - self.config.retention_bytes;
                let n = self.deletable_prefix(hw, |segment| {
                    let size = i64::from(segment.size_bytes());
                    if excess - size >= 0 {
                        excess -= size;
                        true
                    } else {
                        false
                    }
                });
                deleted.extend(self.delete_first_segments(n, DeletionReason::Size, now_ms));
            }
        }

        if self.config.retention_ms >= 0 {
            let retention_ms = self.config.retention_ms;
            let n = self.deletable_prefix(hw, |segment| {
                now_ms.saturating_sub(segment.largest_timestamp()) > retention_ms
            });
            deleted.extend(self.delete_first_segments(n, DeletionReason::Time, now_ms));
        }
        deleted
    }

    /// How many segments, from the oldest, may be deleted
    /// (UnifiedLog.deletableSegments). The predicate is only asked about
    /// segments below the high watermark, which matters for the size rule,
    /// whose predicate counts down as it says yes.
    fn deletable_prefix(&self, hw: i64, mut predicate: impl FnMut(&LogSegment) -> bool) -> usize {
        let mut n = 0;
        for (i, segment) in self.segments.iter().enumerate() {
            let next_base = self.segments.get(i + 1).map(|s| s.base_offset());
            let is_last_and_empty = next_base.is_none() && segment.is_empty();
            let upper_bound = next_base.unwrap_or(self.log_end_offset);
            let deletable = hw >= upper_bound && predicate(segment);
            if deletable && !is_last_and_empty {
                n += 1;
            } else {
                break;
            }
        }
        n
    }

    /// Removes the `n` oldest segments (UnifiedLog.deleteSegments).
    fn delete_first_segments(
        &mut self,
        n: usize,
        reason: DeletionReason,
        now_ms: i64,
    ) -> Vec<DeletedSegment> {
        if n == 0 {
            return Vec::new();
        }
        if n == self.segments.len() {
            // The last deletable segment is never empty, so this adds one.
            self.roll_at(self.log_end_offset, now_ms);
        }
        // Keep the active segment whatever happened above: a log is never
        // without one.
        let n = n.min(self.segments.len() - 1);
        let removed: Vec<LogSegment> = self.segments.drain(..n).collect();
        let new_start = self.segments[0].base_offset();
        if new_start > self.log_start_offset {
            self.log_start_offset = new_start;
            self.epoch_cache.truncate_from_start(new_start);
        }
        removed
            .iter()
            .map(|s| DeletedSegment {
                base_offset: s.base_offset(),
                next_offset: s.next_offset(),
                reason,
                bytes: s.size_bytes(),
            })
            .collect()
    }

    fn segment(&self, base_offset: i64) -> Result<&LogSegment, LogError> {
        self.segments
            .binary_search_by_key(&base_offset, |s| s.base_offset())
            .map(|i| &self.segments[i])
            .map_err(|_| LogError::SegmentNotFound { base_offset })
    }

    /// Every segment for the inspector, oldest first.
    pub fn segments_view(&self) -> Vec<SegmentView> {
        let last = self.segments.len() - 1;
        self.segments
            .iter()
            .enumerate()
            .map(|(i, s)| SegmentView {
                name: s.file_name(LOG_FILE_SUFFIX),
                base_offset: s.base_offset(),
                next_offset: s.next_offset(),
                size_bytes: s.size_bytes(),
                batch_count: s.batch_count(),
                index_entries: s.offset_index().entry_list(),
                time_index_entries: s.time_index().entry_list(),
                largest_timestamp: s.largest_timestamp(),
                is_active: i == last,
            })
            .collect()
    }

    /// The batches of one segment, read from their headers.
    pub fn batches_in(&self, segment_base_offset: i64) -> Result<Vec<BatchView>, LogError> {
        Ok(self.segment(segment_base_offset)?.batches())
    }

    /// The raw bytes of the batch at `position` in a segment.
    /// The header of the batch that holds `offset`, if the log has it.
    pub fn batch_header_for(&self, offset: i64) -> Option<crate::sim::record::batch::BatchHeader> {
        if offset < self.log_start_offset() || offset >= self.log_end_offset() {
            return None;
        }
        let segments = self.segments();
        let i = segments.partition_point(|s| s.base_offset() <= offset).checked_sub(1)?;
        segments[i].batch_header_for(offset)
    }

    pub fn batch_bytes(&self, segment_base_offset: i64, position: u32) -> Result<&[u8], LogError> {
        self.segment(segment_base_offset)?
            .batch_at(position)
            .ok_or(LogError::NoBatchAtPosition {
                base_offset: segment_base_offset,
                position,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::record::batch::read_header;
    use super::super::epoch_cache::EpochEntry;
    use super::super::testutil::batch;
    use super::*;

    fn config(segment_bytes: i32) -> LogConfig {
        LogConfig {
            segment_bytes,
            ..LogConfig::default()
        }
    }

    /// Appends `n` batches of `records` records and `size` bytes, with the
    /// max timestamp `ts(i)` and epoch 0.
    fn fill(log: &mut Log, n: i64, records: i32, size: usize, ts: impl Fn(i64) -> i64) {
        for i in 0..n {
            let leo = log.log_end_offset();
            log.append(&batch(leo, records, size, ts(i), 0), ts(i))
                .unwrap();
        }
    }

    fn bases(log: &Log) -> Vec<i64> {
        log.segments().iter().map(|s| s.base_offset()).collect()
    }

    #[test]
    fn defaults_match_kafka() {
        let c = LogConfig::default();
        assert_eq!(c.segment_bytes, 1_073_741_824);
        assert_eq!(c.segment_ms, 604_800_000);
        assert_eq!(c.index_interval_bytes, 4096);
        assert_eq!(c.segment_index_bytes, 10_485_760);
        assert_eq!(c.retention_ms, 604_800_000);
        assert_eq!(c.retention_bytes, -1);
        assert_eq!(c.max_message_bytes, 1_048_588);
        let log = Log::new(c, 0).unwrap();
        assert_eq!(log.active_segment().offset_index().max_entries(), 1_310_720);
        assert_eq!(log.active_segment().time_index().max_entries(), 873_813);
    }

    #[test]
    fn invalid_config_is_refused() {
        let bad = LogConfig {
            segment_ms: 0,
            ..LogConfig::default()
        };
        let err = Log::new(bad, 0).unwrap_err();
        assert_eq!(
            err,
            LogError::InvalidConfig {
                name: "segment.ms",
                value: 0,
                minimum: 1
            }
        );
        assert!(err.to_string().contains("segment.ms"));
    }

    #[test]
    fn append_moves_the_log_end_offset() {
        let mut log = Log::new(LogConfig::default(), 0).unwrap();
        let a = log.append(&batch(0, 5, 200, 10, 0), 10).unwrap();
        assert_eq!((a.first_offset, a.last_offset, a.position), (0, 4, 0));
        assert_eq!(a.segment_base_offset, 0);
        assert!(!a.rolled);
        let b = log.append(&batch(5, 3, 100, 11, 0), 11).unwrap();
        assert_eq!((b.first_offset, b.last_offset, b.position), (5, 7, 200));
        assert_eq!(log.log_end_offset(), 8);
        assert_eq!(log.size_bytes(), 300);
    }

    #[test]
    fn append_checks_base_offset_and_sizes() {
        let mut log = Log::new(config(10_000), 0).unwrap();
        log.append(&batch(0, 1, 100, 0, 0), 0).unwrap();
        assert_eq!(
            log.append(&batch(5, 1, 100, 0, 0), 0),
            Err(LogError::UnexpectedBaseOffset {
                base_offset: 5,
                log_end_offset: 1
            })
        );
        assert_eq!(
            log.append(&batch(0, 1, 100, 0, 0), 0),
            Err(LogError::UnexpectedBaseOffset {
                base_offset: 0,
                log_end_offset: 1
            })
        );
        assert!(matches!(
            log.append(&batch(1, 1, 10_001, 0, 0), 0),
            Err(LogError::RecordBatchTooLarge { .. })
        ));
        assert!(matches!(
            log.append(&batch(1, 1, 100, 0, -1), 0),
            Err(LogError::InvalidLeaderEpoch(_))
        ));
        assert!(matches!(
            log.append(&[1, 2, 3], 0),
            Err(LogError::MalformedBatch(_))
        ));
        let mut two = batch(1, 1, 100, 0, 0);
        two.extend(batch(2, 1, 100, 0, 0));
        assert!(matches!(
            log.append(&two, 0),
            Err(LogError::NotOneBatch { .. })
        ));
        // Nothing above changed the log.
        assert_eq!(log.log_end_offset(), 1);
        assert_eq!(log.size_bytes(), 100);

        // max.message.bytes binds leaders but not followers.
        let mut log = Log::new(
            LogConfig {
                max_message_bytes: 500,
                ..LogConfig::default()
            },
            0,
        )
        .unwrap();
        assert!(matches!(
            log.append(&batch(0, 1, 501, 0, 0), 0),
            Err(LogError::MessageTooLarge {
                size_bytes: 501,
                max_message_bytes: 500
            })
        ));
        assert!(log.append_as_follower(&batch(0, 1, 501, 0, 0), 0).is_ok());
    }

    /// The leader appends batch by batch and rolls between them; its
    /// follower appends what one fetch brought as one append, with one roll
    /// decision for the chunk (UnifiedLog.appendAsFollower), so the two may
    /// cut their segments in different places, as in Kafka.
    #[test]
    fn a_follower_appends_a_fetched_chunk_as_one_append_with_one_roll_decision() {
        let mut leader = Log::new(config(1000), 0).unwrap();
        fill(&mut leader, 4, 1, 400, |i| i);
        assert_eq!(bases(&leader), vec![0, 2]);
        let mut follower = Log::new(config(1000), 0).unwrap();
        let first = leader.read(0, 400, 4).unwrap();
        assert_eq!(first.batch_count, 1);
        follower.append_as_follower(&first.bytes, 0).unwrap();
        // The other three batches come as one chunk (a read stops at the
        // end of a segment, so here two reads make it): 1,200 bytes, more
        // than segment.bytes, which a follower takes whole (KAFKA-17375).
        let mut rest = leader.read(1, 10_000, 4).unwrap().bytes;
        rest.extend(leader.read(2, 10_000, 4).unwrap().bytes);
        assert_eq!(rest.len(), 1200);
        let info = follower.append_as_follower(&rest, 0).unwrap().expect("three batches");
        assert_eq!((info.first_offset, info.last_offset, info.size_bytes), (1, 3, 1200));
        assert!(info.rolled);
        assert_eq!(info.roll_reason, Some(RollReason::SegmentBytes));
        assert_eq!(bases(&follower), vec![0, 1]);
        assert_eq!(follower.log_end_offset(), 4);
        assert_eq!(follower.segments()[1].batch_count(), 3);

        // A chunk whose batches do not follow one another is refused whole.
        let mut gap = batch(4, 1, 100, 0, 0);
        gap.extend(batch(6, 1, 100, 0, 0));
        let before = follower.segments_view();
        assert_eq!(
            follower.append_as_follower(&gap, 0),
            Err(LogError::UnexpectedBaseOffset { base_offset: 6, log_end_offset: 5 })
        );
        assert_eq!((follower.log_end_offset(), follower.segments_view()), (4, before));
        assert_eq!(follower.append_as_follower(&[], 0), Ok(None));
    }

    /// Where the chunk needs more index entries than the active segment has
    /// room for, the follower appends the batches that fit (Kafka's append
    /// would fail on the full index part-way) and the rest rolls next time.
    #[test]
    fn a_follower_chunk_stops_where_the_index_is_full() {
        // 24 index bytes: 3 offset entries, 2 time entries of which one is
        // kept for the roll. Every batch after the first gets an entry.
        let cfg = LogConfig { index_interval_bytes: 100, segment_index_bytes: 24, ..LogConfig::default() };
        let mut chunk = Vec::new();
        for i in 0..4 {
            chunk.extend(batch(i, 1, 200, i, 0));
        }
        let mut follower = Log::new(cfg, 0).unwrap();
        let info = follower.append_as_follower(&chunk, 0).unwrap().expect("batches");
        assert_eq!((info.first_offset, info.last_offset, info.rolled), (0, 1, false));
        assert_eq!(follower.segments()[0].offset_index().entries(), 1);
        let rest = follower.append_as_follower(&chunk[400..], 0).unwrap().expect("batches");
        assert_eq!((rest.first_offset, rest.rolled, rest.roll_reason), (2, true, Some(RollReason::TimeIndexFull)));
        assert_eq!(rest.last_offset, 3);
        assert_eq!(bases(&follower), vec![0, 2]);
    }

    #[test]
    fn rolls_on_segment_bytes_and_names_segments() {
        let mut log = Log::new(config(10_000), 0).unwrap();
        // Ten 1000-byte batches fill a segment exactly; the 11th rolls.
        fill(&mut log, 10, 2, 1000, |i| 1000 + i);
        assert_eq!(log.segments().len(), 1);
        let a = log.append(&batch(20, 2, 1000, 2000, 0), 2000).unwrap();
        assert!(a.rolled);
        assert_eq!(a.roll_reason, Some(RollReason::SegmentBytes));
        assert_eq!((a.segment_base_offset, a.position), (20, 0));
        assert_eq!(bases(&log), vec![0, 20]);
        let view = log.segments_view();
        assert_eq!(view[0].name, "00000000000000000000.log");
        assert_eq!(view[1].name, "00000000000000000020.log");
        assert_eq!(
            log.segments()[1].file_name(".timeindex"),
            "00000000000000000020.timeindex"
        );
        assert!(!view[0].is_active && view[1].is_active);
        assert_eq!(
            (view[0].next_offset, view[0].size_bytes, view[0].batch_count),
            (20, 10_000, 10)
        );
        // The rolled segment got its final time index entry.
        assert_eq!(view[0].time_index_entries.last(), Some(&(1009, 19)));
    }

    #[test]
    fn rolls_on_segment_ms_by_record_timestamps() {
        let mut log = Log::new(
            LogConfig {
                segment_ms: 1000,
                ..LogConfig::default()
            },
            0,
        )
        .unwrap();
        log.append(&batch(0, 1, 100, 5000, 0), 5000).unwrap();
        // Exactly segment.ms later: not yet (the rule is "more than").
        let a = log.append(&batch(1, 1, 100, 6000, 0), 6000).unwrap();
        assert!(!a.rolled);
        // The clock alone does not roll: the batch's timestamp decides.
        let b = log.append(&batch(2, 1, 100, 5500, 0), 99_999).unwrap();
        assert!(!b.rolled);
        let c = log.append(&batch(3, 1, 100, 6001, 0), 6001).unwrap();
        assert!(c.rolled);
        assert_eq!(c.roll_reason, Some(RollReason::SegmentMs));
        assert_eq!(bases(&log), vec![0, 3]);
    }

    #[test]
    fn an_empty_segment_does_not_roll() {
        let mut log = Log::new(
            LogConfig {
                segment_ms: 1000,
                ..LogConfig::default()
            },
            0,
        )
        .unwrap();
        let a = log
            .append(&batch(0, 1, 100, 1_000_000, 0), 1_000_000)
            .unwrap();
        assert!(!a.rolled);
        // An explicit roll of an empty active segment does nothing either.
        log.roll(0);
        log.roll(0);
        assert_eq!(bases(&log), vec![0, 1]);
        let b = log
            .append(&batch(1, 1, 100, 9_000_000, 0), 9_000_000)
            .unwrap();
        assert!(!b.rolled);
        assert_eq!(bases(&log), vec![0, 1]);
    }

    #[test]
    fn rolls_when_an_index_is_full() {
        // 24 bytes: 3 offset entries, 2 time entries of which one is kept
        // for the roll, so the time index is full after its first entry.
        let mut log = Log::new(
            LogConfig {
                index_interval_bytes: 0,
                segment_index_bytes: 24,
                ..LogConfig::default()
            },
            0,
        )
        .unwrap();
        fill(&mut log, 2, 1, 100, |i| 10 + i);
        assert_eq!(log.active_segment().time_index().entries(), 1);
        let a = log.append(&batch(2, 1, 100, 20, 0), 20).unwrap();
        assert_eq!(a.roll_reason, Some(RollReason::TimeIndexFull));
        assert_eq!(bases(&log), vec![0, 2]);
    }

    #[test]
    fn read_uses_the_index_and_returns_the_lookup_path() {
        let mut log = Log::new(LogConfig::default(), 0).unwrap();
        fill(&mut log, 30, 10, 1000, |i| i);
        let r = log.read(123, 1_000_000, log.log_end_offset()).unwrap();
        assert_eq!(r.first_offset, 120);
        assert_eq!(r.next_offset, 300);
        assert_eq!(r.batch_count, 18);
        assert_eq!(r.bytes.len(), 18_000);
        assert_eq!(&r.bytes[..], &log.active_segment().log_bytes()[12_000..]);
        let path = r.lookup.unwrap();
        assert_eq!(path.index_entry_used, Some(1));
        assert_eq!((path.index_offset, path.index_position), (109, 10_000));
        assert_eq!(
            path.scanned_batches,
            vec![(10_000, 100, 109), (11_000, 110, 119), (12_000, 120, 129)]
        );
        assert_eq!(path.found_position, Some(12_000));
    }

    #[test]
    fn read_limits() {
        let mut log = Log::new(LogConfig::default(), 0).unwrap();
        fill(&mut log, 10, 10, 1000, |i| i);
        let leo = log.log_end_offset();
        // max_bytes cuts at whole batches.
        let r = log.read(0, 2999, leo).unwrap();
        assert_eq!((r.batch_count, r.bytes.len()), (2, 2000));
        // The first batch comes even when bigger than max_bytes.
        let r = log.read(0, 1, leo).unwrap();
        assert_eq!((r.batch_count, r.bytes.len()), (1, 1000));
        // ...but not when min_one_message is off.
        let r = log.read_with(0, 1, leo, false).unwrap();
        assert_eq!(r.batch_count, 0);
        // A consumer sees only batches below the high watermark.
        let r = log.read(0, u32::MAX, 40).unwrap();
        assert_eq!((r.batch_count, r.next_offset), (4, 40));
        // At the bound, or between it and the LEO: empty, not an error.
        let r = log.read(40, u32::MAX, 40).unwrap();
        assert!(r.bytes.is_empty() && r.lookup.is_none());
        let r = log.read(60, u32::MAX, 40).unwrap();
        assert_eq!((r.batch_count, r.first_offset), (0, 60));
        // At the LEO: empty; a bound past the LEO is clamped to it.
        let r = log.read(leo, u32::MAX, i64::MAX).unwrap();
        assert_eq!(r.batch_count, 0);
        let r = log.read(90, u32::MAX, i64::MAX).unwrap();
        assert_eq!(r.batch_count, 1);
    }

    #[test]
    fn readable_bytes_and_a_read_without_path_agree_with_the_read() {
        let mut log = Log::new(config(3500), 0).unwrap();
        fill(&mut log, 10, 10, 1000, |i| i);
        let leo = log.log_end_offset();
        for offset in [0, 5, 10, 35, 60, 99, leo] {
            for (max_bytes, bound, min_one) in [(2999, leo, true), (1, leo, true), (1, leo, false), (u32::MAX, 40, true)] {
                let full = log.read_with(offset, max_bytes, bound, min_one).unwrap();
                let bytes = log.readable_bytes(offset, max_bytes, bound, min_one).unwrap();
                assert_eq!(bytes as usize, full.bytes.len(), "offset {offset}, max {max_bytes}, bound {bound}");
                let plain = log.read_recording(offset, max_bytes, bound, min_one, false).unwrap();
                assert_eq!(plain.bytes, full.bytes);
                assert_eq!(plain.lookup.as_ref().map(|l| l.found_position), full.lookup.as_ref().map(|l| l.found_position));
                assert!(plain.lookup.is_none_or(|l| l.scanned_batches.is_empty()));
            }
        }
        assert!(log.readable_bytes(leo + 1, 100, leo, true).is_err());
    }

    #[test]
    fn read_out_of_range() {
        let mut log = Log::new(config(5000), 0).unwrap();
        fill(&mut log, 20, 10, 1000, |i| i);
        assert_eq!(
            log.read(201, 100, 300),
            Err(LogError::OffsetOutOfRange {
                offset: 201,
                log_start_offset: 0,
                log_end_offset: 200
            })
        );
        log.delete_retention(1_000_000_000_000, 200);
        assert_eq!(log.log_start_offset(), 200);
        let err = log.read(150, 100, 200).unwrap_err();
        assert_eq!(
            err,
            LogError::OffsetOutOfRange {
                offset: 150,
                log_start_offset: 200,
                log_end_offset: 200
            }
        );
        assert!(err.to_string().contains("[200, 200)"));
        assert!(log.read(-1, 100, 200).is_err());
    }

    #[test]
    fn read_across_segments() {
        let mut log = Log::new(config(5000), 0).unwrap();
        fill(&mut log, 12, 10, 1000, |i| i);
        assert_eq!(bases(&log), vec![0, 50, 100]);
        // A read never spans segments: it ends at the segment's end.
        let r = log.read(30, u32::MAX, 120).unwrap();
        assert_eq!(
            (r.segment_base_offset, r.first_offset, r.next_offset),
            (0, 30, 50)
        );
        // A fetch at a segment's base starts in that segment.
        let r = log.read(50, u32::MAX, 120).unwrap();
        assert_eq!((r.segment_base_offset, r.next_offset), (50, 100));
        let r = log.read(100, u32::MAX, 120).unwrap();
        assert_eq!((r.segment_base_offset, r.batch_count), (100, 2));
    }

    #[test]
    fn truncation_within_a_segment() {
        let mut log = Log::new(LogConfig::default(), 0).unwrap();
        fill(&mut log, 20, 10, 1000, |i| i);
        log.assign_epoch_start_offset(1, 200).unwrap();
        let t = log.truncate_to(150, 0).unwrap();
        assert!(t.changed);
        assert_eq!(t.bytes_removed, 5000);
        assert_eq!(log.log_end_offset(), 150);
        assert_eq!(
            log.epoch_cache().entries(),
            &[EpochEntry {
                epoch: 0,
                start_offset: 0
            }]
        );
        assert_eq!(
            log.active_segment().offset_index().entry_list(),
            vec![(59, 5000), (109, 10_000)]
        );
        // Appends continue at the new LEO.
        log.append(&batch(150, 1, 100, 0, 2), 0).unwrap();
        assert_eq!(log.log_end_offset(), 151);
        // Truncating at or past the LEO changes nothing.
        let t = log.truncate_to(151, 0).unwrap();
        assert!(!t.changed);
        assert_eq!(log.log_end_offset(), 151);
        assert!(matches!(
            log.truncate_to(-1, 0),
            Err(LogError::NegativeOffset { .. })
        ));
    }

    #[test]
    fn truncation_to_the_end_still_trims_the_epoch_cache() {
        let mut log = Log::new(LogConfig::default(), 0).unwrap();
        fill(&mut log, 2, 5, 100, |i| i);
        // A leader recorded epoch 3 at its LEO but wrote nothing in it.
        log.assign_epoch_start_offset(3, 10).unwrap();
        log.truncate_to(10, 0).unwrap();
        assert_eq!(log.latest_epoch(), Some(0));
    }

    #[test]
    fn truncation_across_segments() {
        let mut log = Log::new(config(5000), 0).unwrap();
        fill(&mut log, 15, 10, 1000, |i| i);
        assert_eq!(bases(&log), vec![0, 50, 100]);
        // Target inside segment 50: segment 100 goes whole.
        let t = log.truncate_to(75, 0).unwrap();
        assert_eq!(t.removed_segments, vec![100]);
        assert_eq!(t.bytes_removed, 5000 + 3000);
        assert_eq!(bases(&log), vec![0, 50]);
        assert_eq!(log.log_end_offset(), 70);
        // Target inside a batch removes the whole batch.
        let t = log.truncate_to(65, 0).unwrap();
        assert_eq!(t.log_end_offset, 60);
        // Target at a segment base keeps that segment, emptied, as active.
        let t = log.truncate_to(50, 0).unwrap();
        assert!(t.removed_segments.is_empty());
        assert_eq!(bases(&log), vec![0, 50]);
        assert!(log.active_segment().is_empty());
        assert_eq!(log.log_end_offset(), 50);
        // The next append lands in that empty segment without a roll.
        let a = log.append(&batch(50, 10, 1000, 0, 0), 0).unwrap();
        assert_eq!((a.segment_base_offset, a.rolled), (50, false));
    }

    #[test]
    fn truncation_below_the_first_segment_restarts_the_log() {
        let mut log = Log::new(config(5000), 0).unwrap();
        fill(&mut log, 15, 10, 1000, |i| i);
        log.delete_retention(1_000_000_000_000, 100);
        assert_eq!(log.log_start_offset(), 100);
        let t = log.truncate_to(40, 7).unwrap();
        assert_eq!(t.removed_segments, vec![100]);
        assert_eq!(bases(&log), vec![40]);
        assert_eq!((log.log_start_offset(), log.log_end_offset()), (40, 40));
        assert!(log.epoch_cache().is_empty());
    }

    #[test]
    fn retention_by_time_deletes_old_segments_below_the_high_watermark() {
        let day = 86_400_000;
        let mut log = Log::new(config(5000), 0).unwrap();
        // Segments of 5 batches; segment k's batches have timestamp k days.
        fill(&mut log, 20, 10, 1000, |i| (i / 5) * day);
        assert_eq!(bases(&log), vec![0, 50, 100, 150]);
        let week = LogConfig::default().retention_ms;
        // At 7 days + 2 ms, segment 0 (newest record at day 0) is past
        // retention, segment 50 (day 1) is not.
        let deleted = log.delete_retention(week + 2, 200);
        assert_eq!(
            deleted,
            vec![DeletedSegment {
                base_offset: 0,
                next_offset: 50,
                reason: DeletionReason::Time,
                bytes: 5000
            }]
        );
        assert_eq!(log.log_start_offset(), 50);
        // Exactly retention.ms old is not yet expired.
        assert!(log.delete_retention(week + day, 200).is_empty());
        // Much later every segment has expired, but only those wholly below
        // the high watermark may go.
        let deleted = log.delete_retention(100 * day, 120);
        assert_eq!(deleted.len(), 1);
        assert_eq!(deleted[0].base_offset, 50);
        assert_eq!(log.log_start_offset(), 100);
        // A high watermark inside segment 100 keeps it.
        assert!(log.delete_retention(100 * day, 149).is_empty());
    }

    #[test]
    fn retention_can_delete_the_active_segment_when_fully_committed() {
        let mut log = Log::new(config(5000), 0).unwrap();
        fill(&mut log, 7, 10, 1000, |i| i);
        assert_eq!(bases(&log), vec![0, 50]);
        // HW below the LEO: the active segment stays.
        let deleted = log.delete_retention(1_000_000_000_000, 60);
        assert_eq!(deleted.len(), 1);
        assert_eq!(bases(&log), vec![50]);
        // HW == LEO: it goes too, and a new empty segment starts at the LEO.
        let deleted = log.delete_retention(1_000_000_000_000, 70);
        assert_eq!(deleted[0].base_offset, 50);
        assert_eq!(bases(&log), vec![70]);
        assert_eq!((log.log_start_offset(), log.log_end_offset()), (70, 70));
        // The empty active segment is never deleted.
        assert!(log.delete_retention(2_000_000_000_000, 70).is_empty());
        assert!(log.read(70, 100, 70).unwrap().bytes.is_empty());
    }

    #[test]
    fn retention_by_size() {
        let mut log = Log::new(
            LogConfig {
                segment_bytes: 5000,
                retention_bytes: 12_000,
                retention_ms: -1,
                ..LogConfig::default()
            },
            0,
        )
        .unwrap();
        // 4 full segments of 5000 bytes and one of 1000: 21 000 bytes.
        fill(&mut log, 21, 10, 1000, |i| i);
        assert_eq!(bases(&log), vec![0, 50, 100, 150, 200]);
        // Excess 9000 covers one 5000-byte segment, then 4000 < 5000 stops.
        let deleted = log.delete_retention(0, 210);
        assert_eq!(deleted.len(), 1);
        assert_eq!(deleted[0].reason, DeletionReason::Size);
        assert_eq!(log.size_bytes(), 16_000);
        assert_eq!(log.log_start_offset(), 50);
        // Excess 4000 does not cover a segment: nothing goes, even though
        // the log stays above retention.bytes.
        assert!(log.delete_retention(0, 210).is_empty());
        // Below the high watermark only.
        fill(&mut log, 4, 10, 1000, |i| i);
        assert_eq!(log.size_bytes(), 20_000);
        assert!(log.delete_retention(0, 99).is_empty());
        assert_eq!(log.delete_retention(0, 100).len(), 1);
    }

    #[test]
    fn retention_size_at_exactly_the_limit_deletes_nothing_partial() {
        let mut log = Log::new(
            LogConfig {
                segment_bytes: 5000,
                retention_bytes: 10_000,
                ..LogConfig::default()
            },
            0,
        )
        .unwrap();
        fill(&mut log, 10, 10, 1000, |i| i);
        // Exactly at the limit: excess 0 covers no segment.
        assert!(log.delete_retention(0, 100).is_empty());
        // One byte-batch over: still not a whole segment's worth.
        log.append(&batch(100, 1, 100, 0, 0), 0).unwrap();
        assert!(log.delete_retention(0, 101).is_empty());
        // With retention.bytes = 0 everything below the HW goes.
        log.set_config(LogConfig {
            segment_bytes: 5000,
            retention_bytes: 0,
            ..LogConfig::default()
        })
        .unwrap();
        let deleted = log.delete_retention(0, 101);
        assert_eq!(deleted.len(), 3);
        assert_eq!(bases(&log), vec![101]);
        assert_eq!(log.log_start_offset(), 101);
    }

    #[test]
    fn retention_moves_the_epoch_cache_start() {
        let mut log = Log::new(config(5000), 0).unwrap();
        fill(&mut log, 3, 10, 1000, |i| i);
        for i in 3..12 {
            let leo = log.log_end_offset();
            log.append(&batch(leo, 10, 1000, i, 1 + (i as i32) / 4), i)
                .unwrap();
        }
        assert_eq!(
            log.epoch_cache().entries(),
            &[
                EpochEntry {
                    epoch: 0,
                    start_offset: 0
                },
                EpochEntry {
                    epoch: 1,
                    start_offset: 30
                },
                EpochEntry {
                    epoch: 2,
                    start_offset: 40
                },
                EpochEntry {
                    epoch: 3,
                    start_offset: 80
                },
            ]
        );
        // HW 99 lies inside segment 50, so only segment 0 may go.
        log.delete_retention(1_000_000_000_000, 99);
        assert_eq!(log.log_start_offset(), 50);
        assert_eq!(
            log.epoch_cache().entries(),
            &[
                EpochEntry {
                    epoch: 2,
                    start_offset: 50
                },
                EpochEntry {
                    epoch: 3,
                    start_offset: 80
                },
            ]
        );
        assert_eq!(log.end_offset_for_epoch(2), Some((2, 80)));
        assert_eq!(log.end_offset_for_epoch(3), Some((3, 120)));
    }

    #[test]
    fn diverging_history_is_truncated_via_epochs() {
        // The old leader wrote epoch 1 records that the new leader never had.
        let mut leader = Log::new(LogConfig::default(), 0).unwrap();
        let mut old = Log::new(LogConfig::default(), 0).unwrap();
        for log in [&mut leader, &mut old] {
            log.append(&batch(0, 10, 500, 0, 1), 0).unwrap();
        }
        old.append(&batch(10, 5, 300, 0, 1), 0).unwrap();
        leader.assign_epoch_start_offset(2, 10).unwrap();
        leader.append(&batch(10, 3, 200, 0, 2), 0).unwrap();
        // The returning follower asks for the end of its last epoch.
        let (epoch, end) = leader
            .end_offset_for_epoch(old.latest_epoch().unwrap())
            .unwrap();
        assert_eq!((epoch, end), (1, 10));
        old.truncate_to(end, 0).unwrap();
        assert_eq!(old.log_end_offset(), 10);
        let r = leader.read(10, 1 << 20, leader.log_end_offset()).unwrap();
        old.append_as_follower(&r.bytes, 0).unwrap();
        assert_eq!(old.log_end_offset(), 13);
        assert_eq!(old.epoch_cache(), leader.epoch_cache());
    }

    #[test]
    fn inspector_views() {
        let mut log = Log::new(config(8000), 0).unwrap();
        fill(&mut log, 10, 4, 1000, |i| 100 + i);
        let view = log.segments_view();
        assert_eq!(view.len(), 2);
        assert_eq!(view[0].index_entries, vec![(23, 5000)]);
        assert_eq!(view[0].time_index_entries, vec![(105, 23), (107, 31)]);
        assert_eq!(view[0].largest_timestamp, 107);
        let batches = log.batches_in(32).unwrap();
        assert_eq!(batches.len(), 2);
        assert_eq!(
            (
                batches[1].position,
                batches[1].base_offset,
                batches[1].last_offset
            ),
            (1000, 36, 39)
        );
        let bytes = log.batch_bytes(32, 1000).unwrap();
        assert_eq!(bytes.len(), 1000);
        assert_eq!(read_header(bytes).unwrap().base_offset, 36);
        assert_eq!(
            log.batches_in(5),
            Err(LogError::SegmentNotFound { base_offset: 5 })
        );
        assert!(matches!(
            log.batch_bytes(32, 10),
            Err(LogError::NoBatchAtPosition { .. })
        ));
    }

    #[test]
    fn restored_state_is_checked() {
        let mut log = Log::new(config(5000), 0).unwrap();
        fill(&mut log, 7, 10, 1000, |i| i);
        let state = |log: &Log| LogState {
            config: log.config,
            segments: log.segments.clone(),
            log_start_offset: log.log_start_offset,
            log_end_offset: log.log_end_offset,
            epoch_cache: log.epoch_cache.clone(),
        };
        assert_eq!(Log::try_from(state(&log)), Ok(log.clone()));
        let mut s = state(&log);
        s.segments.clear();
        assert!(matches!(
            Log::try_from(s),
            Err(LogError::CorruptState { .. })
        ));
        let mut s = state(&log);
        s.log_end_offset = 71;
        assert!(matches!(
            Log::try_from(s),
            Err(LogError::CorruptState { .. })
        ));
        let mut s = state(&log);
        s.segments.swap(0, 1);
        assert!(matches!(
            Log::try_from(s),
            Err(LogError::CorruptState { .. })
        ));
    }

    #[test]
    fn memory_overhead_is_within_ten_percent() {
        let mut log = Log::new(LogConfig::default(), 0).unwrap();
        fill(&mut log, 10_000, 8, 1024, |i| i);
        let records = log.record_bytes();
        assert_eq!(records, 10_000 * 1024);
        let overhead = log.memory_overhead_bytes();
        assert!(
            overhead * 10 <= records,
            "overhead {overhead} bytes for {records} record bytes"
        );

        // Many small segments: rolled segments give back their slack.
        let mut log = Log::new(config(64 * 1024), 0).unwrap();
        fill(&mut log, 10_000, 8, 1024, |i| i);
        assert_eq!(log.segments().len(), 157);
        let overhead = log.memory_overhead_bytes();
        assert!(
            overhead * 10 <= log.record_bytes(),
            "overhead {overhead} bytes for {} record bytes",
            log.record_bytes()
        );
    }
}
