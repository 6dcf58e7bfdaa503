//! Record batch v2 (magic 2), byte for byte as Kafka's `DefaultRecordBatch`
//! and `DefaultRecord` lay it out.
//!
//! The simulation keeps batches as raw bytes end to end, as a real broker
//! does: the producer builds them, the broker checks and rewrites a few
//! header fields in place, the log stores them concatenated, and the consumer
//! decodes them. So besides a builder and a decoder this module offers
//! fixed-offset readers and writers that touch only the 61-byte header.
//!
//! Compression is never used: attribute bits 0-2 are always zero, and a batch
//! claiming a codec is refused when its records are decoded.

use super::varint::{
    decode_varint, decode_varlong, encode_varint, encode_varlong, varint_size, varlong_size,
    VarintError,
};
use crc::{Crc, CRC_32_ISCSI};
#[cfg(not(target_arch = "wasm32"))]
use crc::Table;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The only batch format the simulation speaks.
pub const MAGIC_V2: i8 = 2;

/// `baseOffset` and `batchLength` come before the part that `batchLength` counts.
pub const LOG_OVERHEAD: u32 = 12;

/// The size of the fixed header, and so of a batch without records.
pub const RECORD_BATCH_OVERHEAD: u32 = 61;

/// Byte offsets of the header fields, from Kafka's `DefaultRecordBatch`.
pub const BASE_OFFSET_OFFSET: usize = 0;
/// Offset of `batchLength` (int32).
pub const BATCH_LENGTH_OFFSET: usize = 8;
/// Offset of `partitionLeaderEpoch` (int32).
pub const PARTITION_LEADER_EPOCH_OFFSET: usize = 12;
/// Offset of `magic` (int8).
pub const MAGIC_OFFSET: usize = 16;
/// Offset of `crc` (uint32).
pub const CRC_OFFSET: usize = 17;
/// Offset of `attributes` (int16); the CRC covers everything from here on.
pub const ATTRIBUTES_OFFSET: usize = 21;
/// Offset of `lastOffsetDelta` (int32).
pub const LAST_OFFSET_DELTA_OFFSET: usize = 23;
/// Offset of `baseTimestamp` (int64).
pub const BASE_TIMESTAMP_OFFSET: usize = 27;
/// Offset of `maxTimestamp` (int64).
pub const MAX_TIMESTAMP_OFFSET: usize = 35;
/// Offset of `producerId` (int64).
pub const PRODUCER_ID_OFFSET: usize = 43;
/// Offset of `producerEpoch` (int16).
pub const PRODUCER_EPOCH_OFFSET: usize = 51;
/// Offset of `baseSequence` (int32).
pub const BASE_SEQUENCE_OFFSET: usize = 53;
/// Offset of `recordsCount` (int32).
pub const RECORDS_COUNT_OFFSET: usize = 57;
/// Offset of the first record.
pub const RECORDS_OFFSET: usize = 61;

/// A producer that is not idempotent writes -1 for its id, epoch and sequence.
pub const NO_PRODUCER_ID: i64 = -1;
/// See [`NO_PRODUCER_ID`].
pub const NO_PRODUCER_EPOCH: i16 = -1;
/// See [`NO_PRODUCER_ID`].
pub const NO_SEQUENCE: i32 = -1;
/// Producers write -1; the leader stamps its epoch when it appends.
pub const NO_PARTITION_LEADER_EPOCH: i32 = -1;
/// Kafka's `RecordBatch.NO_TIMESTAMP`, used as the max timestamp of an empty batch.
pub const NO_TIMESTAMP: i64 = -1;

/// Attribute bits 0-2 name the compression codec; 0 is none.
pub const COMPRESSION_CODEC_MASK: i16 = 0x07;
/// Attribute bit 3 is set for LogAppendTime.
pub const TIMESTAMP_TYPE_MASK: i16 = 0x08;
/// Attribute bit 4 marks a transactional batch.
pub const TRANSACTIONAL_FLAG_MASK: i16 = 0x10;
/// Attribute bit 5 marks a control batch (transaction markers).
pub const CONTROL_FLAG_MASK: i16 = 0x20;

/// The smallest legal `batchLength`: a header without records.
const MIN_BATCH_LENGTH: i32 = (RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) as i32;

/// CRC-32C (Castagnoli), the checksum batch v2 uses. A static keeps the
/// lookup table built once instead of at every use. Natively it reads 16
/// bytes a step (every produce is checksummed twice, by the producer and by
/// the leader); the page computes it bit by bit rather than download even a
/// 1 KiB table, which gzip cannot shrink: the page's batches are a few
/// hundred bytes, so the slower loop costs microseconds. All give the same
/// checksum.
#[cfg(not(target_arch = "wasm32"))]
static CASTAGNOLI: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);
#[cfg(target_arch = "wasm32")]
static CASTAGNOLI: Crc<u32, crc::NoTable> = Crc::<u32, crc::NoTable>::new(&CRC_32_ISCSI);

/// CRC-32C of `data`; for a batch, `data` is bytes 21 to the end.
pub fn crc32c(data: &[u8]) -> u32 {
    // Natively on x86-64 the CPU's CRC32 instruction (SSE4.2, which
    // computes exactly CRC-32C) takes 8 bytes a step, several times faster
    // than the table; both give the same checksum.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("sse4.2") {
        // SAFETY: the CPU supports SSE4.2, as checked just above.
        return unsafe { crc32c_sse42(data) };
    }
    CASTAGNOLI.checksum(data)
}

/// CRC-32C with the SSE4.2 CRC32 instruction: the reflected Castagnoli
/// polynomial, initial value and final XOR all ones, as CRC_32_ISCSI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.2")]
fn crc32c_sse42(data: &[u8]) -> u32 {
    use std::arch::x86_64::{_mm_crc32_u64, _mm_crc32_u8};
    let mut words = data.chunks_exact(8);
    let mut crc = u64::from(u32::MAX);
    for word in &mut words {
        crc = _mm_crc32_u64(crc, u64::from_le_bytes(word.try_into().expect("chunks of 8")));
    }
    // The instruction leaves the high half zero, so this cannot truncate.
    let mut crc = crc as u32;
    for byte in words.remainder() {
        crc = _mm_crc32_u8(crc, *byte);
    }
    !crc
}

/// Where the timestamps of a batch come from (attribute bit 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TimestampType {
    /// The producer's clock, kept by the broker (`message.timestamp.type` default).
    CreateTime,
    /// The broker's clock at append; every record then reads as `maxTimestamp`.
    LogAppendTime,
}

impl TimestampType {
    /// Reads the type out of a batch's attributes.
    pub fn from_attributes(attributes: i16) -> TimestampType {
        if attributes & TIMESTAMP_TYPE_MASK != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }

    /// Kafka's own name for the type, as the UI shows it.
    pub fn name(self) -> &'static str {
        match self {
            TimestampType::CreateTime => "CreateTime",
            TimestampType::LogAppendTime => "LogAppendTime",
        }
    }
}

/// A record header: the key is a non-null UTF-8 string, the value may be null.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Header {
    /// The header's name.
    pub key: String,
    /// The header's value; `None` is written as length -1.
    pub value: Option<Vec<u8>>,
}

/// One record of a batch, with its fields as stored (deltas, not absolutes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Unused by Kafka, always written as 0.
    pub attributes: i8,
    /// The record's timestamp minus the batch's `baseTimestamp`.
    pub timestamp_delta: i64,
    /// The record's offset minus the batch's `baseOffset`.
    pub offset_delta: i32,
    /// The key; `None` is written as length -1.
    pub key: Option<Vec<u8>>,
    /// The value; `None` is written as length -1 (a tombstone on compacted topics).
    pub value: Option<Vec<u8>>,
    /// The record's headers, in order.
    pub headers: Vec<Header>,
}

/// Every field of the 61-byte batch header, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchHeader {
    /// Offset of the first record; the broker assigns it at append.
    pub base_offset: i64,
    /// Bytes after this field: the batch is `batch_length + 12` bytes long.
    pub batch_length: i32,
    /// Epoch of the leader that appended the batch; -1 from producers.
    pub partition_leader_epoch: i32,
    /// Format version; always 2 here.
    pub magic: i8,
    /// CRC-32C of bytes 21 to the end, as stored (not checked).
    pub crc: u32,
    /// Compression, timestamp type, transactional and control bits.
    pub attributes: i16,
    /// Offset delta of the last record: `records_count - 1` in a valid batch.
    pub last_offset_delta: i32,
    /// Timestamp the record deltas are relative to.
    pub base_timestamp: i64,
    /// Largest record timestamp, or the broker's time with LogAppendTime.
    pub max_timestamp: i64,
    /// Idempotent producer id, -1 if none.
    pub producer_id: i64,
    /// Idempotent producer epoch, -1 if none.
    pub producer_epoch: i16,
    /// Sequence number of the first record, -1 if none.
    pub base_sequence: i32,
    /// How many records follow the header.
    pub records_count: i32,
}

impl BatchHeader {
    /// Where the timestamps come from.
    pub fn timestamp_type(&self) -> TimestampType {
        TimestampType::from_attributes(self.attributes)
    }

    /// Offset of the last record. Wrapping keeps a hostile header from
    /// panicking; valid batches never come near the limit.
    pub fn last_offset(&self) -> i64 {
        self.base_offset
            .wrapping_add(i64::from(self.last_offset_delta))
    }

    /// Offset the next batch of the partition starts at.
    pub fn next_offset(&self) -> i64 {
        self.last_offset().wrapping_add(1)
    }

    /// Total size of the batch in bytes, `batch_length + 12`, or `None` if
    /// the stored length is negative.
    pub fn size_in_bytes(&self) -> Option<u32> {
        u32::try_from(self.batch_length)
            .ok()
            .map(|len| len + LOG_OVERHEAD)
    }

    /// Sequence number of the last record, wrapping past `i32::MAX` to 0 as
    /// Kafka's `DefaultRecordBatch.incrementSequence` does.
    pub fn last_sequence(&self) -> i32 {
        if self.base_sequence == NO_SEQUENCE {
            return NO_SEQUENCE;
        }
        increment_sequence(self.base_sequence, self.last_offset_delta)
    }

    /// Whether attribute bit 4 is set.
    pub fn is_transactional(&self) -> bool {
        self.attributes & TRANSACTIONAL_FLAG_MASK != 0
    }

    /// Whether attribute bit 5 is set.
    pub fn is_control(&self) -> bool {
        self.attributes & CONTROL_FLAG_MASK != 0
    }
}

/// Adds `increment` to a producer sequence number, wrapping from
/// `i32::MAX` to 0 as Kafka does, so long-lived producers never overflow.
pub fn increment_sequence(sequence: i32, increment: i32) -> i32 {
    let sum = i64::from(sequence) + i64::from(increment);
    let span = i64::from(i32::MAX) + 1;
    // rem_euclid keeps the result in 0..=i32::MAX, which always fits.
    sum.rem_euclid(span) as i32
}

/// A decoded batch: its header and its records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordBatch {
    /// The fixed header, as stored.
    pub header: BatchHeader,
    /// The records, in order.
    pub records: Vec<Record>,
}

impl RecordBatch {
    /// Absolute offset of one of this batch's records.
    pub fn offset_of(&self, record: &Record) -> i64 {
        self.header
            .base_offset
            .wrapping_add(i64::from(record.offset_delta))
    }

    /// The timestamp a consumer sees for one of this batch's records: with
    /// LogAppendTime every record reads as the batch's `maxTimestamp`, as in
    /// Kafka's `DefaultRecordBatch`.
    pub fn timestamp_of(&self, record: &Record) -> i64 {
        match self.header.timestamp_type() {
            TimestampType::LogAppendTime => self.header.max_timestamp,
            TimestampType::CreateTime => self
                .header
                .base_timestamp
                .wrapping_add(record.timestamp_delta),
        }
    }
}

/// Why bytes could not be read as a record batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum BatchError {
    /// The bytes end before a field does.
    Truncated {
        /// The field being read, e.g. `records[1].value`.
        field: String,
        /// Where the field starts.
        offset: u32,
        /// The position the field needed to reach.
        needed: u32,
        /// Where the enclosing record, batch or input ends.
        available: u32,
    },
    /// A varint or varlong is cut off or too long.
    Varint {
        /// The field being read.
        field: String,
        /// What was wrong with it.
        error: VarintError,
    },
    /// `batchLength` is smaller than a header without records.
    BatchLengthTooSmall {
        /// The stored length.
        batch_length: i32,
    },
    /// The input holds more bytes than the one batch it should contain.
    TrailingBytes {
        /// The batch's size from its header.
        batch_size: u32,
        /// How many bytes the input has.
        available: u64,
    },
    /// The batch is not magic 2.
    UnsupportedMagic {
        /// The stored magic byte.
        magic: i8,
    },
    /// Attribute bits 0-2 name a codec; the simulation never compresses.
    UnsupportedCompression {
        /// The codec number (1 gzip, 2 snappy, 3 lz4, 4 zstd).
        codec: i16,
    },
    /// `recordsCount` is negative.
    NegativeRecordsCount {
        /// The stored count.
        records_count: i32,
    },
    /// A length is negative where that is not allowed (only -1 for a null
    /// key, value or header value is).
    InvalidLength {
        /// The field holding the length.
        field: String,
        /// Where it starts.
        offset: u32,
        /// The stored length.
        length: i32,
    },
    /// A record's fields end before its declared length does.
    RecordLengthMismatch {
        /// Which record.
        index: u32,
        /// Its declared length.
        declared: i32,
        /// How many bytes its fields actually took.
        actual: u32,
    },
    /// Bytes remain after the `recordsCount` records.
    TrailingRecordBytes {
        /// How many records were read.
        records_count: i32,
        /// How many bytes were left over.
        unused: u32,
    },
    /// A header key is not valid UTF-8.
    InvalidUtf8 {
        /// The header key field.
        field: String,
    },
    /// The batch would be larger than a batch can be (its length is an int32).
    TooLarge {
        /// The size it would have.
        size: u64,
    },
    /// A batch cannot hold more than `i32::MAX` records.
    TooManyRecords,
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchError::Truncated {
                field,
                offset,
                needed,
                available,
            } => write!(
                f,
                "{field} at byte {offset} needs bytes up to {needed}, but only {available} are there"
            ),
            BatchError::Varint { field, error } => write!(f, "{field}: {error}"),
            BatchError::BatchLengthTooSmall { batch_length } => write!(
                f,
                "batchLength {batch_length} is smaller than the {MIN_BATCH_LENGTH} bytes of an empty batch"
            ),
            BatchError::TrailingBytes {
                batch_size,
                available,
            } => write!(
                f,
                "the batch is {batch_size} bytes but the input has {available}: more than one batch"
            ),
            BatchError::UnsupportedMagic { magic } => {
                write!(f, "magic {magic} is not record batch v2")
            }
            BatchError::UnsupportedCompression { codec } => write!(
                f,
                "compression codec {codec} is set, but the simulation only handles uncompressed batches"
            ),
            BatchError::NegativeRecordsCount { records_count } => {
                write!(f, "recordsCount {records_count} is negative")
            }
            BatchError::InvalidLength {
                field,
                offset,
                length,
            } => write!(f, "{field} at byte {offset} has invalid length {length}"),
            BatchError::RecordLengthMismatch {
                index,
                declared,
                actual,
            } => write!(
                f,
                "record {index} declares {declared} bytes but its fields take {actual}"
            ),
            BatchError::TrailingRecordBytes {
                records_count,
                unused,
            } => write!(
                f,
                "{unused} bytes remain after the {records_count} records the header announces"
            ),
            BatchError::InvalidUtf8 { field } => write!(f, "{field} is not valid UTF-8"),
            BatchError::TooLarge { size } => write!(
                f,
                "a batch of {size} bytes does not fit the int32 batchLength field"
            ),
            BatchError::TooManyRecords => write!(f, "a batch cannot hold more than 2^31-1 records"),
        }
    }
}

impl std::error::Error for BatchError {}

/// Converts a position for a report; batches are below 2^31 + 12 bytes, so
/// saturation only ever shows up for absurd inputs.
fn u32_of(x: usize) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

// ---------------------------------------------------------------------------
// Fixed-offset header readers and writers.
// ---------------------------------------------------------------------------

/// Returns `N` bytes of the header at `offset`, or a truncation error naming the field.
fn header_bytes<const N: usize>(
    bytes: &[u8],
    offset: usize,
    field: &str,
) -> Result<[u8; N], BatchError> {
    bytes
        .get(offset..offset + N)
        .and_then(|s| <[u8; N]>::try_from(s).ok())
        .ok_or_else(|| BatchError::Truncated {
            field: field.to_string(),
            offset: u32_of(offset),
            needed: u32_of(offset + N),
            available: u32_of(bytes.len()),
        })
}

/// Returns the `N` writable header bytes at `offset`, or a truncation error.
fn header_bytes_mut<'b, const N: usize>(
    bytes: &'b mut [u8],
    offset: usize,
    field: &str,
) -> Result<&'b mut [u8], BatchError> {
    let available = u32_of(bytes.len());
    bytes
        .get_mut(offset..offset + N)
        .ok_or_else(|| BatchError::Truncated {
            field: field.to_string(),
            offset: u32_of(offset),
            needed: u32_of(offset + N),
            available,
        })
}

/// Reads `baseOffset` (bytes 0..8).
pub fn base_offset(bytes: &[u8]) -> Result<i64, BatchError> {
    header_bytes(bytes, BASE_OFFSET_OFFSET, "baseOffset").map(i64::from_be_bytes)
}

/// Reads `batchLength` (bytes 8..12).
pub fn batch_length(bytes: &[u8]) -> Result<i32, BatchError> {
    header_bytes(bytes, BATCH_LENGTH_OFFSET, "batchLength").map(i32::from_be_bytes)
}

/// Reads `partitionLeaderEpoch` (bytes 12..16).
pub fn partition_leader_epoch(bytes: &[u8]) -> Result<i32, BatchError> {
    header_bytes(bytes, PARTITION_LEADER_EPOCH_OFFSET, "partitionLeaderEpoch")
        .map(i32::from_be_bytes)
}

/// Reads `magic` (byte 16).
pub fn magic(bytes: &[u8]) -> Result<i8, BatchError> {
    header_bytes(bytes, MAGIC_OFFSET, "magic").map(i8::from_be_bytes)
}

/// Reads the stored `crc` (bytes 17..21) without checking it.
pub fn stored_crc(bytes: &[u8]) -> Result<u32, BatchError> {
    header_bytes(bytes, CRC_OFFSET, "crc").map(u32::from_be_bytes)
}

/// Reads `attributes` (bytes 21..23).
pub fn attributes(bytes: &[u8]) -> Result<i16, BatchError> {
    header_bytes(bytes, ATTRIBUTES_OFFSET, "attributes").map(i16::from_be_bytes)
}

/// Reads the timestamp type out of `attributes`.
pub fn timestamp_type(bytes: &[u8]) -> Result<TimestampType, BatchError> {
    attributes(bytes).map(TimestampType::from_attributes)
}

/// Reads `lastOffsetDelta` (bytes 23..27).
pub fn last_offset_delta(bytes: &[u8]) -> Result<i32, BatchError> {
    header_bytes(bytes, LAST_OFFSET_DELTA_OFFSET, "lastOffsetDelta").map(i32::from_be_bytes)
}

/// The batch's last offset, `baseOffset + lastOffsetDelta`.
pub fn last_offset(bytes: &[u8]) -> Result<i64, BatchError> {
    Ok(base_offset(bytes)?.wrapping_add(i64::from(last_offset_delta(bytes)?)))
}

/// Reads `baseTimestamp` (bytes 27..35).
pub fn base_timestamp(bytes: &[u8]) -> Result<i64, BatchError> {
    header_bytes(bytes, BASE_TIMESTAMP_OFFSET, "baseTimestamp").map(i64::from_be_bytes)
}

/// Reads `maxTimestamp` (bytes 35..43).
pub fn max_timestamp(bytes: &[u8]) -> Result<i64, BatchError> {
    header_bytes(bytes, MAX_TIMESTAMP_OFFSET, "maxTimestamp").map(i64::from_be_bytes)
}

/// Reads `producerId` (bytes 43..51).
pub fn producer_id(bytes: &[u8]) -> Result<i64, BatchError> {
    header_bytes(bytes, PRODUCER_ID_OFFSET, "producerId").map(i64::from_be_bytes)
}

/// Reads `producerEpoch` (bytes 51..53).
pub fn producer_epoch(bytes: &[u8]) -> Result<i16, BatchError> {
    header_bytes(bytes, PRODUCER_EPOCH_OFFSET, "producerEpoch").map(i16::from_be_bytes)
}

/// Reads `baseSequence` (bytes 53..57).
pub fn base_sequence(bytes: &[u8]) -> Result<i32, BatchError> {
    header_bytes(bytes, BASE_SEQUENCE_OFFSET, "baseSequence").map(i32::from_be_bytes)
}

/// Reads `recordsCount` (bytes 57..61).
pub fn records_count(bytes: &[u8]) -> Result<i32, BatchError> {
    header_bytes(bytes, RECORDS_COUNT_OFFSET, "recordsCount").map(i32::from_be_bytes)
}

/// Reads the whole 61-byte header without looking at the records or
/// checking anything; the input must hold at least the header.
pub fn read_header(bytes: &[u8]) -> Result<BatchHeader, BatchError> {
    if bytes.len() < RECORDS_OFFSET {
        return Err(BatchError::Truncated {
            field: "header".to_string(),
            offset: 0,
            needed: RECORD_BATCH_OVERHEAD,
            available: u32_of(bytes.len()),
        });
    }
    // One length check covers every field: they are read straight from
    // their fixed offsets instead of each checking the length again.
    let h: &[u8; RECORDS_OFFSET] = bytes[..RECORDS_OFFSET].try_into().expect("the length was checked");
    fn field<const N: usize>(h: &[u8; RECORDS_OFFSET], offset: usize) -> [u8; N] {
        h[offset..offset + N].try_into().expect("fields lie inside the header")
    }
    Ok(BatchHeader {
        base_offset: i64::from_be_bytes(field(h, BASE_OFFSET_OFFSET)),
        batch_length: i32::from_be_bytes(field(h, BATCH_LENGTH_OFFSET)),
        partition_leader_epoch: i32::from_be_bytes(field(h, PARTITION_LEADER_EPOCH_OFFSET)),
        magic: i8::from_be_bytes(field(h, MAGIC_OFFSET)),
        crc: u32::from_be_bytes(field(h, CRC_OFFSET)),
        attributes: i16::from_be_bytes(field(h, ATTRIBUTES_OFFSET)),
        last_offset_delta: i32::from_be_bytes(field(h, LAST_OFFSET_DELTA_OFFSET)),
        base_timestamp: i64::from_be_bytes(field(h, BASE_TIMESTAMP_OFFSET)),
        max_timestamp: i64::from_be_bytes(field(h, MAX_TIMESTAMP_OFFSET)),
        producer_id: i64::from_be_bytes(field(h, PRODUCER_ID_OFFSET)),
        producer_epoch: i16::from_be_bytes(field(h, PRODUCER_EPOCH_OFFSET)),
        base_sequence: i32::from_be_bytes(field(h, BASE_SEQUENCE_OFFSET)),
        records_count: i32::from_be_bytes(field(h, RECORDS_COUNT_OFFSET)),
    })
}

/// Size of the batch starting at `bytes[pos]`, `batchLength + 12`, read from
/// its first 12 bytes only, so a reader can learn how much more it needs.
/// Like Kafka's `ByteBufferLogInputStream`, a length below the header size is
/// an error.
pub fn batch_size_at(bytes: &[u8], pos: u32) -> Result<u32, BatchError> {
    let rest = usize::try_from(pos)
        .ok()
        .and_then(|p| bytes.get(p..))
        .ok_or_else(|| BatchError::Truncated {
            field: "baseOffset".to_string(),
            offset: pos,
            needed: pos.saturating_add(LOG_OVERHEAD),
            available: u32_of(bytes.len()),
        })?;
    let length = batch_length(rest).map_err(|e| shift_error(e, pos))?;
    if length < MIN_BATCH_LENGTH {
        return Err(BatchError::BatchLengthTooSmall {
            batch_length: length,
        });
    }
    // A length of at least 49 is positive, and 2^31 + 12 fits a u32.
    Ok(length as u32 + LOG_OVERHEAD)
}

/// Moves the positions in a truncation error from batch-relative to
/// input-relative, so the iterator reports where in a segment things broke.
fn shift_error(error: BatchError, pos: u32) -> BatchError {
    match error {
        BatchError::Truncated {
            field,
            offset,
            needed,
            available,
        } => BatchError::Truncated {
            field,
            offset: offset.saturating_add(pos),
            needed: needed.saturating_add(pos),
            available: available.saturating_add(pos),
        },
        other => other,
    }
}

/// Writes `baseOffset`. It lies outside the CRC, which is why the broker can
/// assign offsets without recomputing the checksum.
pub fn set_base_offset(bytes: &mut [u8], offset: i64) -> Result<(), BatchError> {
    header_bytes_mut::<8>(bytes, BASE_OFFSET_OFFSET, "baseOffset")?
        .copy_from_slice(&offset.to_be_bytes());
    Ok(())
}

/// Writes `partitionLeaderEpoch`, also outside the CRC.
pub fn set_partition_leader_epoch(bytes: &mut [u8], epoch: i32) -> Result<(), BatchError> {
    header_bytes_mut::<4>(bytes, PARTITION_LEADER_EPOCH_OFFSET, "partitionLeaderEpoch")?
        .copy_from_slice(&epoch.to_be_bytes());
    Ok(())
}

/// The bytes the CRC covers, 21 up to the end the header declares.
fn crc_region(bytes: &[u8]) -> Result<&[u8], BatchError> {
    let size = batch_size_at(bytes, 0)? as usize;
    bytes
        .get(ATTRIBUTES_OFFSET..size)
        .ok_or_else(|| BatchError::Truncated {
            field: "records".to_string(),
            offset: RECORD_BATCH_OVERHEAD,
            needed: u32_of(size),
            available: u32_of(bytes.len()),
        })
}

/// CRC-32C the batch should carry, computed over bytes 21 to its declared end.
pub fn compute_crc(bytes: &[u8]) -> Result<u32, BatchError> {
    crc_region(bytes).map(crc32c)
}

/// Recomputes and stores the CRC after a change inside the covered region.
pub fn recompute_crc(bytes: &mut [u8]) -> Result<u32, BatchError> {
    let crc = compute_crc(bytes)?;
    header_bytes_mut::<4>(bytes, CRC_OFFSET, "crc")?.copy_from_slice(&crc.to_be_bytes());
    Ok(crc)
}

/// Whether the stored CRC matches the bytes; false for anything too short to tell.
pub fn verify_crc(bytes: &[u8]) -> bool {
    match (stored_crc(bytes), compute_crc(bytes)) {
        (Ok(stored), Ok(computed)) => stored == computed,
        _ => false,
    }
}

/// What a broker with `message.timestamp.type=LogAppendTime` does: set
/// attribute bit 3, set `maxTimestamp` to its clock, and recompute the CRC
/// because both fields are inside it. Record deltas are left alone, as in
/// Kafka; readers then report `maxTimestamp` for every record.
pub fn set_log_append_time(bytes: &mut [u8], now_ms: i64) -> Result<(), BatchError> {
    // Check everything first, so that a failure leaves the batch untouched.
    crc_region(bytes)?;
    let found = magic(bytes)?;
    if found != MAGIC_V2 {
        return Err(BatchError::UnsupportedMagic { magic: found });
    }
    let attrs = attributes(bytes)? | TIMESTAMP_TYPE_MASK;
    header_bytes_mut::<2>(bytes, ATTRIBUTES_OFFSET, "attributes")?
        .copy_from_slice(&attrs.to_be_bytes());
    header_bytes_mut::<8>(bytes, MAX_TIMESTAMP_OFFSET, "maxTimestamp")?
        .copy_from_slice(&now_ms.to_be_bytes());
    recompute_crc(bytes)?;
    Ok(())
}

// ---------------------------------------------------------------------------
// Iterating over concatenated batches (a .log segment or a fetch response).
// ---------------------------------------------------------------------------

/// Walks concatenated batches, yielding each one's start position and header
/// without decoding its records. After an error it stops, since the next
/// batch boundary is unknown.
#[derive(Debug, Clone)]
pub struct BatchIter<'a> {
    bytes: &'a [u8],
    pos: u32,
    done: bool,
}

/// Iterates over the batches of a byte slice that holds them back to back.
pub fn iter_batches(bytes: &[u8]) -> BatchIter<'_> {
    BatchIter {
        bytes,
        pos: 0,
        done: false,
    }
}

impl<'a> BatchIter<'a> {
    /// Position of the next batch, i.e. the bytes walked over so far.
    pub fn position(&self) -> u32 {
        self.pos
    }

    fn next_batch(&mut self) -> Result<Option<(u32, BatchHeader)>, BatchError> {
        let start = self.pos as usize;
        if start >= self.bytes.len() {
            return Ok(None);
        }
        if self.bytes.len() > u32::MAX as usize {
            return Err(BatchError::TooLarge {
                size: self.bytes.len() as u64,
            });
        }
        let size = batch_size_at(self.bytes, self.pos)?;
        let end = start + size as usize;
        let batch = self
            .bytes
            .get(start..end)
            .ok_or_else(|| BatchError::Truncated {
                field: "batch".to_string(),
                offset: self.pos,
                needed: u32_of(end),
                available: u32_of(self.bytes.len()),
            })?;
        let header = read_header(batch).map_err(|e| shift_error(e, self.pos))?;
        let at = self.pos;
        self.pos = u32_of(end);
        Ok(Some((at, header)))
    }
}

impl<'a> Iterator for BatchIter<'a> {
    type Item = Result<(u32, BatchHeader), BatchError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.next_batch() {
            Ok(Some(item)) => Some(Ok(item)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Building.
// ---------------------------------------------------------------------------

/// Size of a length-prefixed nullable byte string.
fn nullable_size(data: Option<&[u8]>) -> u64 {
    match data {
        None => u64::from(varint_size(-1)),
        Some(d) => {
            let len = i32::try_from(d.len()).unwrap_or(i32::MAX);
            u64::from(varint_size(len)) + d.len() as u64
        }
    }
}

/// Size of a record after its length prefix, as `DefaultRecord.sizeOfBodyInBytes` counts it.
fn record_body_size(
    offset_delta: i32,
    timestamp_delta: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
    headers: &[Header],
) -> u64 {
    let mut size = 1 // attributes
        + u64::from(varlong_size(timestamp_delta))
        + u64::from(varint_size(offset_delta))
        + nullable_size(key)
        + nullable_size(value);
    let count = i32::try_from(headers.len()).unwrap_or(i32::MAX);
    size += u64::from(varint_size(count));
    for h in headers {
        size += nullable_size(Some(h.key.as_bytes())) + nullable_size(h.value.as_deref());
    }
    size
}

/// Size of a whole record including its length prefix.
fn record_total_size(body: u64) -> u64 {
    let len = i32::try_from(body).unwrap_or(i32::MAX);
    u64::from(varint_size(len)) + body
}

/// Appends a length-prefixed nullable byte string; the caller has checked
/// that the length fits an int32.
fn write_nullable(out: &mut Vec<u8>, data: Option<&[u8]>) {
    match data {
        None => encode_varint(-1, out),
        Some(d) => {
            encode_varint(i32::try_from(d.len()).unwrap_or(i32::MAX), out);
            out.extend_from_slice(d);
        }
    }
}

/// Builds one uncompressed v2 batch, as a producer's `MemoryRecordsBuilder`
/// does, keeping the encoded records so the exact size is always known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchBuilder {
    base_offset: i64,
    base_timestamp: i64,
    partition_leader_epoch: i32,
    producer_id: i64,
    producer_epoch: i16,
    base_sequence: i32,
    timestamp_type: TimestampType,
    transactional: bool,
    records: Vec<u8>,
    records_count: i32,
    max_timestamp: i64,
}

impl BatchBuilder {
    /// Starts an empty batch. Producers pass base offset 0 (the broker
    /// assigns the real one) and the first record's timestamp.
    pub fn new(base_offset: i64, base_timestamp: i64) -> BatchBuilder {
        BatchBuilder {
            base_offset,
            base_timestamp,
            partition_leader_epoch: NO_PARTITION_LEADER_EPOCH,
            producer_id: NO_PRODUCER_ID,
            producer_epoch: NO_PRODUCER_EPOCH,
            base_sequence: NO_SEQUENCE,
            timestamp_type: TimestampType::CreateTime,
            transactional: false,
            records: Vec::new(),
            records_count: 0,
            max_timestamp: NO_TIMESTAMP,
        }
    }

    /// Sets the idempotent producer's id, epoch and first sequence number.
    pub fn producer(mut self, producer_id: i64, producer_epoch: i16, base_sequence: i32) -> Self {
        self.producer_id = producer_id;
        self.producer_epoch = producer_epoch;
        self.base_sequence = base_sequence;
        self
    }

    /// Sets `partitionLeaderEpoch` (the broker normally stamps it later).
    pub fn partition_leader_epoch(mut self, epoch: i32) -> Self {
        self.partition_leader_epoch = epoch;
        self
    }

    /// Sets attribute bit 3. `maxTimestamp` stays the largest record
    /// timestamp; a broker stamping LogAppendTime uses [`set_log_append_time`].
    pub fn timestamp_type(mut self, timestamp_type: TimestampType) -> Self {
        self.timestamp_type = timestamp_type;
        self
    }

    /// Sets attribute bit 4, for batches written inside a transaction.
    pub fn transactional(mut self, transactional: bool) -> Self {
        self.transactional = transactional;
        self
    }

    /// How many records were appended.
    pub fn records_count(&self) -> i32 {
        self.records_count
    }

    /// Whether no record was appended yet.
    pub fn is_empty(&self) -> bool {
        self.records_count == 0
    }

    /// The exact size [`BatchBuilder::build`] would produce now.
    pub fn size_in_bytes(&self) -> u32 {
        u32_of(self.records.len()).saturating_add(RECORD_BATCH_OVERHEAD)
    }

    /// The exact size of the batch if this record were appended; exact
    /// because nothing is compressed. Saturates rather than overflowing for
    /// records that could never be appended anyway.
    pub fn estimated_size_after_append(
        &self,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> u32 {
        let body = record_body_size(
            self.records_count,
            timestamp.wrapping_sub(self.base_timestamp),
            key,
            value,
            headers,
        );
        let total = u64::from(self.size_in_bytes()) + record_total_size(body);
        u32::try_from(total).unwrap_or(u32::MAX)
    }

    /// Whether a record still fits under `batch_size`. Like Kafka's
    /// `MemoryRecordsBuilder.hasRoomFor`, an empty batch always takes its
    /// first record, so a record larger than `batch.size` gets a batch of its own.
    pub fn has_room_for(
        &self,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
        batch_size: u32,
    ) -> bool {
        self.is_empty()
            || self.estimated_size_after_append(timestamp, key, value, headers) <= batch_size
    }

    /// Appends a record with the next offset delta and returns that delta.
    /// Fails, leaving the builder unchanged, only if the batch would outgrow
    /// what its int32 fields can describe.
    pub fn append(
        &mut self,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &[Header],
    ) -> Result<i32, BatchError> {
        let offset_delta = self.records_count;
        if offset_delta == i32::MAX {
            return Err(BatchError::TooManyRecords);
        }
        // Wrapping keeps absurd timestamps from panicking; real ones are close.
        let timestamp_delta = timestamp.wrapping_sub(self.base_timestamp);
        let body = record_body_size(offset_delta, timestamp_delta, key, value, headers);
        let new_size = u64::from(self.size_in_bytes()) + record_total_size(body);
        // Every length inside is smaller than the batch, so one check covers all.
        if new_size > i32::MAX as u64 + u64::from(LOG_OVERHEAD) {
            return Err(BatchError::TooLarge { size: new_size });
        }
        // One allocation for the record instead of a few doublings on the
        // way. The first record makes room for three more like it (up to
        // 16 KiB, Kafka's default batch.size), so a small batch grows its
        // buffer once rather than at every record.
        let size = record_total_size(body) as usize;
        let room = if self.records.is_empty() { size.max(size.saturating_mul(4).min(16_384)) } else { size };
        self.records.reserve(room);
        encode_varint(body as i32, &mut self.records);
        self.records.push(0); // Record attributes are unused and always 0.
        encode_varlong(timestamp_delta, &mut self.records);
        encode_varint(offset_delta, &mut self.records);
        write_nullable(&mut self.records, key);
        write_nullable(&mut self.records, value);
        encode_varint(headers.len() as i32, &mut self.records);
        for h in headers {
            write_nullable(&mut self.records, Some(h.key.as_bytes()));
            write_nullable(&mut self.records, h.value.as_deref());
        }
        self.records_count += 1;
        self.max_timestamp = if offset_delta == 0 {
            timestamp
        } else {
            self.max_timestamp.max(timestamp)
        };
        Ok(offset_delta)
    }

    /// The header the batch would carry now, with a zero CRC placeholder.
    fn header(&self) -> BatchHeader {
        let mut attributes: i16 = 0;
        if self.timestamp_type == TimestampType::LogAppendTime {
            attributes |= TIMESTAMP_TYPE_MASK;
        }
        if self.transactional {
            attributes |= TRANSACTIONAL_FLAG_MASK;
        }
        BatchHeader {
            base_offset: self.base_offset,
            // append() keeps the size within int32 + 12, so this cannot truncate.
            batch_length: (self.size_in_bytes() - LOG_OVERHEAD) as i32,
            partition_leader_epoch: self.partition_leader_epoch,
            magic: MAGIC_V2,
            crc: 0,
            attributes,
            last_offset_delta: self.records_count - 1,
            base_timestamp: self.base_timestamp,
            max_timestamp: self.max_timestamp,
            producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
            base_sequence: self.base_sequence,
            records_count: self.records_count,
        }
    }

    /// Produces the batch's exact bytes, CRC included. An empty builder gives
    /// a header-only batch with lastOffsetDelta -1 and maxTimestamp -1, which
    /// [`validate`] rejects as a produce would.
    pub fn build(&self) -> Vec<u8> {
        self.build_with_header(self.header())
    }

    /// [`BatchBuilder::build`] with the idempotent producer's id, epoch and
    /// first sequence, leaving the builder as it was: a producer assigns
    /// them when it sends a batch whose records it accumulated earlier.
    pub fn build_as_producer(&self, producer_id: i64, producer_epoch: i16, base_sequence: i32) -> Vec<u8> {
        let mut header = self.header();
        header.producer_id = producer_id;
        header.producer_epoch = producer_epoch;
        header.base_sequence = base_sequence;
        self.build_with_header(header)
    }

    fn build_with_header(&self, header: BatchHeader) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.size_in_bytes() as usize);
        write_header(&header, &mut out);
        out.extend_from_slice(&self.records);
        let crc = crc32c(out.get(ATTRIBUTES_OFFSET..).unwrap_or(&[]));
        if let Some(slot) = out.get_mut(CRC_OFFSET..ATTRIBUTES_OFFSET) {
            slot.copy_from_slice(&crc.to_be_bytes());
        }
        out
    }
}

/// Appends the 61 header bytes, big-endian, as stored (CRC included).
fn write_header(h: &BatchHeader, out: &mut Vec<u8>) {
    out.extend_from_slice(&h.base_offset.to_be_bytes());
    out.extend_from_slice(&h.batch_length.to_be_bytes());
    out.extend_from_slice(&h.partition_leader_epoch.to_be_bytes());
    out.extend_from_slice(&h.magic.to_be_bytes());
    out.extend_from_slice(&h.crc.to_be_bytes());
    out.extend_from_slice(&h.attributes.to_be_bytes());
    out.extend_from_slice(&h.last_offset_delta.to_be_bytes());
    out.extend_from_slice(&h.base_timestamp.to_be_bytes());
    out.extend_from_slice(&h.max_timestamp.to_be_bytes());
    out.extend_from_slice(&h.producer_id.to_be_bytes());
    out.extend_from_slice(&h.producer_epoch.to_be_bytes());
    out.extend_from_slice(&h.base_sequence.to_be_bytes());
    out.extend_from_slice(&h.records_count.to_be_bytes());
}

// ---------------------------------------------------------------------------
// Decoding, shared by `decode` and `field_spans`.
// ---------------------------------------------------------------------------

/// One byte range of a batch with its name and decoded value, for the UI's
/// field-by-field hexdump highlighting.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldSpan {
    /// First byte of the field, from the start of the batch.
    pub start: u32,
    /// Number of bytes.
    pub len: u32,
    /// Kafka's field name with its path, e.g. `records[0].headers[1].value`.
    pub name: String,
    /// The decoded value, for people.
    pub value: String,
}

/// A field's place in the batch, kept as parts so the name is only formatted
/// when a span or an error needs it.
#[derive(Clone, Copy)]
struct Path {
    record: u32,
    header: Option<u32>,
    leaf: &'static str,
}

impl Path {
    fn name(&self) -> String {
        match self.header {
            Some(h) => format!("records[{}].headers[{h}].{}", self.record, self.leaf),
            None => format!("records[{}].{}", self.record, self.leaf),
        }
    }
}

/// Reads record fields within `limit`, recording spans when asked to.
struct Parser<'a, 's> {
    bytes: &'a [u8],
    pos: usize,
    limit: usize,
    spans: Option<&'s mut Vec<FieldSpan>>,
    /// Whether records keep copies of their keys, values and headers. The
    /// validator walks every field (so it refuses exactly what a decode
    /// refuses) but needs none of them, and copying them was most of its
    /// cost on the produce path.
    keep_payloads: bool,
}

impl<'a, 's> Parser<'a, 's> {
    fn span(
        &mut self,
        start: usize,
        name: impl FnOnce() -> String,
        value: impl FnOnce() -> String,
    ) {
        if let Some(spans) = self.spans.as_deref_mut() {
            spans.push(FieldSpan {
                start: u32_of(start),
                len: u32_of(self.pos - start),
                name: name(),
                value: value(),
            });
        }
    }

    fn window(&self) -> &'a [u8] {
        self.bytes.get(..self.limit).unwrap_or(self.bytes)
    }

    fn take(&mut self, len: usize, path: Path) -> Result<&'a [u8], BatchError> {
        let end = self.pos.checked_add(len);
        match end.and_then(|e| self.window().get(self.pos..e)) {
            Some(data) => {
                self.pos += len;
                Ok(data)
            }
            None => Err(BatchError::Truncated {
                field: path.name(),
                offset: u32_of(self.pos),
                needed: u32_of(end.unwrap_or(usize::MAX)),
                available: u32_of(self.limit),
            }),
        }
    }

    fn varint(&mut self, path: Path) -> Result<i32, BatchError> {
        let (v, n) =
            decode_varint(self.window(), self.pos).map_err(|error| BatchError::Varint {
                field: path.name(),
                error,
            })?;
        self.pos += n;
        Ok(v)
    }

    fn varlong(&mut self, path: Path) -> Result<i64, BatchError> {
        let (v, n) =
            decode_varlong(self.window(), self.pos).map_err(|error| BatchError::Varint {
                field: path.name(),
                error,
            })?;
        self.pos += n;
        Ok(v)
    }

    /// Reads a varint length and the bytes it announces; -1 means null where
    /// `nullable`, any other negative length is an error.
    fn sized(
        &mut self,
        len_path: Path,
        data_path: Path,
        nullable: bool,
    ) -> Result<Option<&'a [u8]>, BatchError> {
        let start = self.pos;
        let len = self.varint(len_path)?;
        if len < -1 || (len == -1 && !nullable) {
            return Err(BatchError::InvalidLength {
                field: len_path.name(),
                offset: u32_of(start),
                length: len,
            });
        }
        self.span(
            start,
            || len_path.name(),
            || {
                if len == -1 {
                    "-1 (null)".to_string()
                } else {
                    format!("{len} bytes")
                }
            },
        );
        if len == -1 {
            return Ok(None);
        }
        let start = self.pos;
        let data = self.take(len as usize, data_path)?;
        // An empty payload has no bytes to highlight, so it gets no span.
        if !data.is_empty() {
            self.span(start, || data_path.name(), || describe_bytes(data));
        }
        Ok(Some(data))
    }

    fn record(&mut self, index: u32, header: &BatchHeader) -> Result<Record, BatchError> {
        let p = |leaf| Path {
            record: index,
            header: None,
            leaf,
        };
        let start = self.pos;
        let length = self.varint(p("length"))?;
        if length < 0 {
            return Err(BatchError::InvalidLength {
                field: p("length").name(),
                offset: u32_of(start),
                length,
            });
        }
        self.span(
            start,
            || p("length").name(),
            || format!("{length} (bytes of this record after this field)"),
        );
        let body_start = self.pos;
        let end = body_start.checked_add(length as usize);
        let Some(record_end) = end.filter(|e| *e <= self.limit) else {
            return Err(BatchError::Truncated {
                field: format!("records[{index}]"),
                offset: u32_of(body_start),
                needed: u32_of(end.unwrap_or(usize::MAX)),
                available: u32_of(self.limit),
            });
        };
        let outer_limit = self.limit;
        self.limit = record_end;
        let body = self.record_body(index, header);
        self.limit = outer_limit;
        let record = body?;
        if self.pos != record_end {
            return Err(BatchError::RecordLengthMismatch {
                index,
                declared: length,
                actual: u32_of(self.pos - body_start),
            });
        }
        Ok(record)
    }

    fn record_body(&mut self, index: u32, header: &BatchHeader) -> Result<Record, BatchError> {
        let p = |leaf| Path {
            record: index,
            header: None,
            leaf,
        };
        let start = self.pos;
        let attributes = self.take(1, p("attributes"))?[0] as i8;
        self.span(
            start,
            || p("attributes").name(),
            || format!("{attributes} (unused)"),
        );

        let start = self.pos;
        let timestamp_delta = self.varlong(p("timestampDelta"))?;
        self.span(
            start,
            || p("timestampDelta").name(),
            || match header.timestamp_type() {
                TimestampType::CreateTime => format!(
                    "{timestamp_delta} (timestamp {})",
                    header.base_timestamp.wrapping_add(timestamp_delta)
                ),
                TimestampType::LogAppendTime => format!(
                    "{timestamp_delta} (ignored: LogAppendTime reads as {})",
                    header.max_timestamp
                ),
            },
        );

        let start = self.pos;
        let offset_delta = self.varint(p("offsetDelta"))?;
        self.span(
            start,
            || p("offsetDelta").name(),
            || {
                format!(
                    "{offset_delta} (offset {})",
                    header.base_offset.wrapping_add(i64::from(offset_delta))
                )
            },
        );

        let keep = self.keep_payloads;
        let key = self
            .sized(p("keyLength"), p("key"), true)?
            .filter(|_| keep)
            .map(<[u8]>::to_vec);
        let value = self
            .sized(p("valueLength"), p("value"), true)?
            .filter(|_| keep)
            .map(<[u8]>::to_vec);

        let start = self.pos;
        let header_count = self.varint(p("headerCount"))?;
        if header_count < 0 {
            return Err(BatchError::InvalidLength {
                field: p("headerCount").name(),
                offset: u32_of(start),
                length: header_count,
            });
        }
        self.span(
            start,
            || p("headerCount").name(),
            || header_count.to_string(),
        );

        // No capacity is reserved from the stored count: a hostile count
        // must fail on the missing bytes, not on a huge allocation.
        let mut headers = Vec::new();
        for h in 0..header_count as u32 {
            let hp = |leaf| Path {
                record: index,
                header: Some(h),
                leaf,
            };
            let key_bytes = self
                .sized(hp("keyLength"), hp("key"), false)?
                .unwrap_or_default();
            let key = std::str::from_utf8(key_bytes).map_err(|_| BatchError::InvalidUtf8 {
                field: hp("key").name(),
            })?;
            let value = self.sized(hp("valueLength"), hp("value"), true)?;
            if keep {
                headers.push(Header {
                    key: key.to_string(),
                    value: value.map(<[u8]>::to_vec),
                });
            }
        }

        Ok(Record {
            attributes,
            timestamp_delta,
            offset_delta,
            key,
            value,
            headers,
        })
    }
}

/// Shows a payload as a quoted string when it is printable UTF-8 and as hex
/// otherwise, shortened so that a 16 KiB value does not flood the UI.
fn describe_bytes(data: &[u8]) -> String {
    const SHOWN: usize = 48;
    match std::str::from_utf8(data) {
        Ok(text)
            if !text
                .chars()
                .any(|c| c.is_control() && c != '\n' && c != '\t') =>
        {
            // Quoted with the escapes the text can need; a hand-written
            // escape instead of `{:?}`, whose Unicode tables would cost the
            // page more than a kilobyte.
            let mut shown = String::from("\"");
            for c in text.chars().take(SHOWN) {
                match c {
                    '"' => shown.push_str("\\\""),
                    '\\' => shown.push_str("\\\\"),
                    '\n' => shown.push_str("\\n"),
                    '\t' => shown.push_str("\\t"),
                    c => shown.push(c),
                }
            }
            shown.push('"');
            let more = if text.chars().nth(SHOWN).is_some() { "…" } else { "" };
            format!("{shown}{more} ({} bytes)", data.len())
        }
        _ => {
            let mut hex = String::from("0x");
            for b in data.iter().take(SHOWN) {
                hex.push_str(&format!("{b:02x}"));
            }
            let more = if data.len() > SHOWN { "…" } else { "" };
            format!("{hex}{more} ({} bytes)", data.len())
        }
    }
}

/// Describes the attribute bits in words.
fn describe_attributes(attributes: i16) -> String {
    let codec = match attributes & COMPRESSION_CODEC_MASK {
        0 => "none",
        1 => "gzip",
        2 => "snappy",
        3 => "lz4",
        4 => "zstd",
        _ => "unknown",
    };
    format!(
        "0x{:04x}: compression={codec}, timestampType={}, transactional={}, control={}",
        attributes,
        TimestampType::from_attributes(attributes).name(),
        attributes & TRANSACTIONAL_FLAG_MASK != 0,
        attributes & CONTROL_FLAG_MASK != 0
    )
}

/// Shows -1 as "none" for the optional producer fields.
fn or_none<T: fmt::Display + PartialEq + From<i8>>(v: T) -> String {
    if v == T::from(-1) {
        format!("{v} (none)")
    } else {
        v.to_string()
    }
}

/// Spans for the 13 header fields, in byte order.
fn header_spans(h: &BatchHeader, computed_crc: u32, end: usize) -> Vec<FieldSpan> {
    let crc = if h.crc == computed_crc {
        format!("0x{:08x} (matches CRC-32C of bytes 21..{end})", h.crc)
    } else {
        format!(
            "0x{:08x} (MISMATCH: CRC-32C of bytes 21..{end} is 0x{computed_crc:08x})",
            h.crc
        )
    };
    let fields: [(usize, usize, &str, String); 13] = [
        (
            BASE_OFFSET_OFFSET,
            8,
            "baseOffset",
            h.base_offset.to_string(),
        ),
        (
            BATCH_LENGTH_OFFSET,
            4,
            "batchLength",
            format!(
                "{} (bytes after this field; batch is {end} bytes)",
                h.batch_length
            ),
        ),
        (
            PARTITION_LEADER_EPOCH_OFFSET,
            4,
            "partitionLeaderEpoch",
            or_none(h.partition_leader_epoch),
        ),
        (
            MAGIC_OFFSET,
            1,
            "magic",
            format!("{} (record batch v2)", h.magic),
        ),
        (CRC_OFFSET, 4, "crc", crc),
        (
            ATTRIBUTES_OFFSET,
            2,
            "attributes",
            describe_attributes(h.attributes),
        ),
        (
            LAST_OFFSET_DELTA_OFFSET,
            4,
            "lastOffsetDelta",
            format!("{} (last offset {})", h.last_offset_delta, h.last_offset()),
        ),
        (
            BASE_TIMESTAMP_OFFSET,
            8,
            "baseTimestamp",
            format!("{} ms", h.base_timestamp),
        ),
        (
            MAX_TIMESTAMP_OFFSET,
            8,
            "maxTimestamp",
            format!("{} ms", h.max_timestamp),
        ),
        (PRODUCER_ID_OFFSET, 8, "producerId", or_none(h.producer_id)),
        (
            PRODUCER_EPOCH_OFFSET,
            2,
            "producerEpoch",
            or_none(h.producer_epoch),
        ),
        (
            BASE_SEQUENCE_OFFSET,
            4,
            "baseSequence",
            or_none(h.base_sequence),
        ),
        (
            RECORDS_COUNT_OFFSET,
            4,
            "recordsCount",
            h.records_count.to_string(),
        ),
    ];
    fields
        .into_iter()
        .map(|(start, len, name, value)| FieldSpan {
            start: u32_of(start),
            len: u32_of(len),
            name: name.to_string(),
            value,
        })
        .collect()
}

/// Checks the framing of exactly one batch and returns its header and size.
fn frame(bytes: &[u8]) -> Result<(BatchHeader, usize), BatchError> {
    let header = read_header(bytes)?;
    let size = batch_size_at(bytes, 0)? as usize;
    if bytes.len() < size {
        return Err(BatchError::Truncated {
            field: "records".to_string(),
            offset: RECORD_BATCH_OVERHEAD,
            needed: u32_of(size),
            available: u32_of(bytes.len()),
        });
    }
    if bytes.len() > size {
        return Err(BatchError::TrailingBytes {
            batch_size: u32_of(size),
            available: bytes.len() as u64,
        });
    }
    Ok((header, size))
}

/// Decodes exactly one batch, recording spans if asked to. The CRC is not
/// checked here (that is [`validate`]'s job), so a corrupt batch can still be shown.
fn parse(
    bytes: &[u8],
    spans: Option<&mut Vec<FieldSpan>>,
    keep_payloads: bool,
) -> Result<RecordBatch, BatchError> {
    let (header, size) = frame(bytes)?;
    if header.magic != MAGIC_V2 {
        return Err(BatchError::UnsupportedMagic {
            magic: header.magic,
        });
    }
    let codec = header.attributes & COMPRESSION_CODEC_MASK;
    if codec != 0 {
        return Err(BatchError::UnsupportedCompression { codec });
    }
    if header.records_count < 0 {
        return Err(BatchError::NegativeRecordsCount {
            records_count: header.records_count,
        });
    }
    let mut parser = Parser {
        bytes,
        pos: RECORDS_OFFSET,
        limit: size,
        spans,
        keep_payloads,
    };
    if let Some(spans) = parser.spans.as_deref_mut() {
        let computed = crc32c(bytes.get(ATTRIBUTES_OFFSET..size).unwrap_or(&[]));
        spans.extend(header_spans(&header, computed, size));
    }
    let mut records = Vec::new();
    for index in 0..header.records_count as u32 {
        records.push(parser.record(index, &header)?);
    }
    if parser.pos != size {
        return Err(BatchError::TrailingRecordBytes {
            records_count: header.records_count,
            unused: u32_of(size - parser.pos),
        });
    }
    Ok(RecordBatch { header, records })
}

/// Decodes exactly one batch: the input must be the whole batch and nothing
/// more. The CRC is not checked; use [`verify_crc`] or [`validate`].
pub fn decode(bytes: &[u8]) -> Result<RecordBatch, BatchError> {
    parse(bytes, None, true)
}

/// Names every byte of one batch, in order, each byte exactly once (empty
/// keys and values, having no bytes, get no span).
pub fn field_spans(bytes: &[u8]) -> Result<Vec<FieldSpan>, BatchError> {
    let mut spans = Vec::new();
    parse(bytes, Some(&mut spans), true)?;
    Ok(spans)
}

// ---------------------------------------------------------------------------
// Broker-side validation.
// ---------------------------------------------------------------------------

/// Why a broker refuses a produced batch, each mapping to the Kafka error
/// code the producer would receive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValidationError {
    /// Larger than the topic's `max.message.bytes`: MESSAGE_TOO_LARGE (10).
    MessageTooLarge {
        /// The batch's size.
        size: u64,
        /// The limit.
        max_message_bytes: u32,
    },
    /// Fewer bytes than the header or `batchLength` call for: CORRUPT_MESSAGE (2).
    Truncated {
        /// How many bytes there are.
        size: u64,
        /// How many the batch needs.
        needed: u64,
    },
    /// `batchLength` is below the header size: CORRUPT_MESSAGE (2).
    BatchLengthTooSmall {
        /// The stored length.
        batch_length: i32,
    },
    /// The stored CRC does not match the bytes: CORRUPT_MESSAGE (2).
    CrcMismatch {
        /// The CRC in the header.
        stored: u32,
        /// The CRC of the bytes.
        computed: u32,
    },
    /// Bytes after the batch, i.e. more than one batch: INVALID_RECORD (87).
    TrailingBytes {
        /// The batch's size from its header.
        batch_size: u32,
        /// How many bytes there are.
        size: u64,
    },
    /// Not magic 2: INVALID_RECORD (87).
    InvalidMagic {
        /// The stored magic byte.
        magic: i8,
    },
    /// `lastOffsetDelta + 1 != recordsCount`, or no records: INVALID_RECORD (87).
    OffsetCountMismatch {
        /// The stored last offset delta.
        last_offset_delta: i32,
        /// The stored count.
        records_count: i32,
    },
    /// A record's offset delta is not its index: INVALID_RECORD (87).
    OffsetDeltaOutOfOrder {
        /// The record's index.
        index: u32,
        /// Its stored offset delta.
        offset_delta: i32,
    },
    /// The records cannot be decoded: INVALID_RECORD (87), as Kafka's
    /// `DefaultRecord.readFrom` throws `InvalidRecordException`.
    MalformedRecords {
        /// What the decoder found.
        error: BatchError,
    },
}

impl ValidationError {
    /// The Kafka error code a produce response carries.
    pub fn error_code(&self) -> i16 {
        match self {
            ValidationError::MessageTooLarge { .. } => 10,
            ValidationError::Truncated { .. }
            | ValidationError::BatchLengthTooSmall { .. }
            | ValidationError::CrcMismatch { .. } => 2,
            ValidationError::TrailingBytes { .. }
            | ValidationError::InvalidMagic { .. }
            | ValidationError::OffsetCountMismatch { .. }
            | ValidationError::OffsetDeltaOutOfOrder { .. }
            | ValidationError::MalformedRecords { .. } => 87,
        }
    }

    /// Kafka's name for the error code.
    pub fn name(&self) -> &'static str {
        match self.error_code() {
            10 => "MESSAGE_TOO_LARGE",
            2 => "CORRUPT_MESSAGE",
            _ => "INVALID_RECORD",
        }
    }
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}): {}", self.name(), self.error_code(), self.detail())
    }
}

impl ValidationError {
    /// What was wrong, without the error's name, for messages that name the
    /// error themselves.
    pub fn detail(&self) -> String {
        let mut out = String::new();
        let _ = self.write_detail(&mut out);
        out
    }

    fn write_detail(&self, f: &mut impl fmt::Write) -> fmt::Result {
        match self {
            ValidationError::MessageTooLarge {
                size,
                max_message_bytes,
            } => write!(
                f,
                "the batch is {size} bytes, more than max.message.bytes {max_message_bytes}"
            ),
            ValidationError::Truncated { size, needed } => {
                write!(f, "the batch needs {needed} bytes but only {size} arrived")
            }
            ValidationError::BatchLengthTooSmall { batch_length } => write!(
                f,
                "batchLength {batch_length} is below the {MIN_BATCH_LENGTH} bytes of an empty batch"
            ),
            ValidationError::CrcMismatch { stored, computed } => write!(
                f,
                "stored CRC 0x{stored:08x} but the bytes give 0x{computed:08x}"
            ),
            ValidationError::TrailingBytes { batch_size, size } => write!(
                f,
                "{size} bytes hold more than the one {batch_size}-byte batch a partition may send"
            ),
            ValidationError::InvalidMagic { magic } => {
                write!(f, "magic {magic}; only record batch v2 is accepted")
            }
            ValidationError::OffsetCountMismatch {
                last_offset_delta,
                records_count,
            } => write!(
                f,
                "lastOffsetDelta {last_offset_delta} + 1 does not equal recordsCount {records_count} (or the batch is empty)"
            ),
            ValidationError::OffsetDeltaOutOfOrder {
                index,
                offset_delta,
            } => write!(f, "record {index} has offsetDelta {offset_delta}, expected {index}"),
            ValidationError::MalformedRecords { error } => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ValidationError {}

/// The checks a leader makes before appending a produced batch, in Kafka's
/// order (size, then CRC in `UnifiedLog.analyzeAndValidateRecords`, then the
/// offset checks of `LogValidator`). Magic is checked before the CRC because
/// the magic byte lies outside the CRC, and a v0/v1 batch has a different
/// layout whose checksum would be meaningless here.
pub fn validate(bytes: &[u8], max_message_bytes: u32) -> Result<(), ValidationError> {
    let size = bytes.len() as u64;
    if size > u64::from(max_message_bytes) {
        return Err(ValidationError::MessageTooLarge {
            size,
            max_message_bytes,
        });
    }
    let (header, _) = frame(bytes).map_err(|e| match e {
        BatchError::BatchLengthTooSmall { batch_length } => {
            ValidationError::BatchLengthTooSmall { batch_length }
        }
        BatchError::TrailingBytes { batch_size, .. } => {
            ValidationError::TrailingBytes { batch_size, size }
        }
        BatchError::Truncated { needed, .. } => ValidationError::Truncated {
            size,
            needed: u64::from(needed),
        },
        error => ValidationError::MalformedRecords { error },
    })?;
    if header.magic != MAGIC_V2 {
        return Err(ValidationError::InvalidMagic {
            magic: header.magic,
        });
    }
    let computed =
        compute_crc(bytes).map_err(|error| ValidationError::MalformedRecords { error })?;
    if computed != header.crc {
        return Err(ValidationError::CrcMismatch {
            stored: header.crc,
            computed,
        });
    }
    let count_from_offsets = i64::from(header.last_offset_delta) + 1;
    if count_from_offsets <= 0 || count_from_offsets != i64::from(header.records_count) {
        return Err(ValidationError::OffsetCountMismatch {
            last_offset_delta: header.last_offset_delta,
            records_count: header.records_count,
        });
    }
    // Every record is walked as decode walks it, without copying its key,
    // value or headers, which the check does not need.
    let batch = parse(bytes, None, false)
        .map_err(|error| ValidationError::MalformedRecords { error })?;
    for (index, record) in (0u32..).zip(batch.records.iter()) {
        if i64::from(record.offset_delta) != i64::from(index) {
            return Err(ValidationError::OffsetDeltaOutOfOrder {
                index,
                offset_delta: record.offset_delta,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc32c_is_the_castagnoli_tables_whatever_the_length() {
        // The check value of CRC-32C, then lengths around the 8-byte steps.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        let data: Vec<u8> = (0u32..300).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for len in 0..data.len() {
            assert_eq!(crc32c(&data[..len]), CASTAGNOLI.checksum(&data[..len]), "length {len}");
        }
    }

    use super::*;

    const BASE_TS: i64 = 1_700_000_000_000;

    #[test]
    fn build_as_producer_equals_a_builder_with_the_producer_set() {
        let mut plain = BatchBuilder::new(0, BASE_TS);
        let mut idempotent = BatchBuilder::new(0, BASE_TS).producer(7, 2, 40);
        for i in 0..3i64 {
            let key = format!("k{i}");
            plain.append(BASE_TS + i, Some(key.as_bytes()), Some(b"v"), &[]).unwrap();
            idempotent.append(BASE_TS + i, Some(key.as_bytes()), Some(b"v"), &[]).unwrap();
        }
        let built = plain.build_as_producer(7, 2, 40);
        assert_eq!(built, idempotent.build());
        assert!(verify_crc(&built));
        // The builder itself is left without the producer's fields.
        assert_eq!(read_header(&plain.build()).unwrap().producer_id, NO_PRODUCER_ID);
    }

    /// The batch of the hand-assembled test: two records, the first with a
    /// null key, the second with a key and two headers (one with a null value).
    fn sample_builder() -> BatchBuilder {
        let mut b = BatchBuilder::new(0, BASE_TS).producer(1000, 0, 0);
        b.append(BASE_TS, None, Some(b"hi"), &[]).unwrap();
        b.append(
            BASE_TS + 5,
            Some(b"k1"),
            Some(b"world"),
            &[
                Header {
                    key: "h".to_string(),
                    value: Some(b"v".to_vec()),
                },
                Header {
                    key: "n".to_string(),
                    value: None,
                },
            ],
        )
        .unwrap();
        b
    }

    fn sample() -> Vec<u8> {
        sample_builder().build()
    }

    /// The same batch written out from the layout table, byte by byte.
    fn hand_assembled() -> Vec<u8> {
        #[rustfmt::skip]
        let mut bytes: Vec<u8> = vec![
            // baseOffset = 0 (int64)
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            // batchLength = 91 - 12 = 79 (int32)
            0x00, 0x00, 0x00, 0x4f,
            // partitionLeaderEpoch = -1 (int32)
            0xff, 0xff, 0xff, 0xff,
            // magic = 2 (int8)
            0x02,
            // crc (uint32), filled in below
            0x00, 0x00, 0x00, 0x00,
            // attributes = 0: no compression, CreateTime (int16)
            0x00, 0x00,
            // lastOffsetDelta = 1 (int32)
            0x00, 0x00, 0x00, 0x01,
            // baseTimestamp = 1700000000000 (int64)
            0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x00,
            // maxTimestamp = 1700000000005 (int64)
            0x00, 0x00, 0x01, 0x8b, 0xcf, 0xe5, 0x68, 0x05,
            // producerId = 1000 (int64)
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8,
            // producerEpoch = 0 (int16)
            0x00, 0x00,
            // baseSequence = 0 (int32)
            0x00, 0x00, 0x00, 0x00,
            // recordsCount = 2 (int32)
            0x00, 0x00, 0x00, 0x02,
            // records[0]: length = 8 (zig-zag 16)
            0x10,
            //   attributes, timestampDelta 0, offsetDelta 0
            0x00, 0x00, 0x00,
            //   keyLength = -1 (null key)
            0x01,
            //   valueLength = 2, "hi"
            0x04, b'h', b'i',
            //   headerCount = 0
            0x00,
            // records[1]: length = 20 (zig-zag 40)
            0x28,
            //   attributes, timestampDelta 5 (zig-zag 10), offsetDelta 1 (zig-zag 2)
            0x00, 0x0a, 0x02,
            //   keyLength = 2, "k1"
            0x04, b'k', b'1',
            //   valueLength = 5, "world"
            0x0a, b'w', b'o', b'r', b'l', b'd',
            //   headerCount = 2
            0x04,
            //   headers[0]: keyLength 1, "h", valueLength 1, "v"
            0x02, b'h', 0x02, b'v',
            //   headers[1]: keyLength 1, "n", valueLength -1 (null)
            0x02, b'n', 0x01,
        ];
        assert_eq!(bytes.len(), 91);
        let crc = Crc::<u32>::new(&CRC_32_ISCSI).checksum(&bytes[21..]);
        bytes[17..21].copy_from_slice(&crc.to_be_bytes());
        bytes
    }

    #[test]
    fn builder_matches_hand_assembled_bytes() {
        assert_eq!(sample(), hand_assembled());
    }

    #[test]
    fn builder_reports_exact_sizes() {
        let mut b = BatchBuilder::new(0, BASE_TS);
        assert_eq!(b.size_in_bytes(), 61);
        assert!(b.is_empty());
        let predicted = b.estimated_size_after_append(BASE_TS, None, Some(b"hi"), &[]);
        b.append(BASE_TS, None, Some(b"hi"), &[]).unwrap();
        assert_eq!(predicted, 70);
        assert_eq!(b.size_in_bytes(), 70);
        assert_eq!(b.build().len(), 70);
        let big = vec![7u8; 200];
        let predicted = b.estimated_size_after_append(BASE_TS + 1, Some(b"k"), Some(&big), &[]);
        b.append(BASE_TS + 1, Some(b"k"), Some(&big), &[]).unwrap();
        assert_eq!(predicted, b.size_in_bytes());
        assert_eq!(b.build().len() as u32, predicted);
        assert_eq!(sample_builder().size_in_bytes(), 91);
    }

    #[test]
    fn has_room_for_follows_batch_size_but_always_takes_a_first_record() {
        let big = vec![0u8; 100];
        let empty = BatchBuilder::new(0, 0);
        assert!(empty.has_room_for(0, None, Some(&big), &[], 10));
        let mut b = BatchBuilder::new(0, 0);
        b.append(0, None, Some(&big), &[]).unwrap();
        let next = b.estimated_size_after_append(0, None, Some(&big), &[]);
        assert!(b.has_room_for(0, None, Some(&big), &[], next));
        assert!(!b.has_room_for(0, None, Some(&big), &[], next - 1));
    }

    #[test]
    fn decode_round_trips() {
        let bytes = sample();
        let batch = decode(&bytes).unwrap();
        let crc = u32::from_be_bytes([bytes[17], bytes[18], bytes[19], bytes[20]]);
        assert_eq!(
            batch.header,
            BatchHeader {
                base_offset: 0,
                batch_length: 79,
                partition_leader_epoch: -1,
                magic: 2,
                crc,
                attributes: 0,
                last_offset_delta: 1,
                base_timestamp: BASE_TS,
                max_timestamp: BASE_TS + 5,
                producer_id: 1000,
                producer_epoch: 0,
                base_sequence: 0,
                records_count: 2,
            }
        );
        assert_eq!(
            batch.records,
            vec![
                Record {
                    attributes: 0,
                    timestamp_delta: 0,
                    offset_delta: 0,
                    key: None,
                    value: Some(b"hi".to_vec()),
                    headers: vec![],
                },
                Record {
                    attributes: 0,
                    timestamp_delta: 5,
                    offset_delta: 1,
                    key: Some(b"k1".to_vec()),
                    value: Some(b"world".to_vec()),
                    headers: vec![
                        Header {
                            key: "h".to_string(),
                            value: Some(b"v".to_vec()),
                        },
                        Header {
                            key: "n".to_string(),
                            value: None,
                        },
                    ],
                },
            ]
        );
        assert_eq!(batch.offset_of(&batch.records[1]), 1);
        assert_eq!(batch.timestamp_of(&batch.records[1]), BASE_TS + 5);
        assert_eq!(read_header(&bytes).unwrap(), batch.header);
    }

    #[test]
    fn decode_round_trips_edge_payloads() {
        let mut b = BatchBuilder::new(42, 1000)
            .partition_leader_epoch(7)
            .timestamp_type(TimestampType::LogAppendTime)
            .transactional(true);
        let big = vec![0xabu8; 300];
        b.append(990, Some(b""), None, &[]).unwrap();
        b.append(1000, None, None, &[]).unwrap();
        b.append(
            2000,
            Some(&big),
            Some(b""),
            &[Header {
                key: String::new(),
                value: Some(Vec::new()),
            }],
        )
        .unwrap();
        let bytes = b.build();
        assert!(verify_crc(&bytes));
        let batch = decode(&bytes).unwrap();
        assert_eq!(batch.header.base_offset, 42);
        assert_eq!(batch.header.partition_leader_epoch, 7);
        assert_eq!(batch.header.timestamp_type(), TimestampType::LogAppendTime);
        assert!(batch.header.is_transactional());
        assert!(!batch.header.is_control());
        assert_eq!(batch.header.max_timestamp, 2000);
        assert_eq!(batch.records[0].timestamp_delta, -10);
        assert_eq!(batch.records[0].key, Some(Vec::new()));
        assert_eq!(batch.records[1].key, None);
        assert_eq!(batch.records[2].key.as_deref(), Some(&big[..]));
        assert_eq!(batch.records[2].headers[0].value, Some(Vec::new()));
        assert_eq!(batch.header.last_offset(), 44);
        assert_eq!(validate(&bytes, 1_048_588), Ok(()));
    }

    #[test]
    fn header_readers_work_on_raw_bytes() {
        let mut b = BatchBuilder::new(100, BASE_TS).producer(7, 3, 40);
        for i in 0..3 {
            b.append(BASE_TS + i, None, Some(b"x"), &[]).unwrap();
        }
        let bytes = b.build();
        assert_eq!(base_offset(&bytes), Ok(100));
        assert_eq!(batch_length(&bytes), Ok(bytes.len() as i32 - 12));
        assert_eq!(partition_leader_epoch(&bytes), Ok(-1));
        assert_eq!(magic(&bytes), Ok(2));
        assert!(stored_crc(&bytes).is_ok());
        assert_eq!(attributes(&bytes), Ok(0));
        assert_eq!(timestamp_type(&bytes), Ok(TimestampType::CreateTime));
        assert_eq!(last_offset_delta(&bytes), Ok(2));
        assert_eq!(last_offset(&bytes), Ok(102));
        assert_eq!(base_timestamp(&bytes), Ok(BASE_TS));
        assert_eq!(max_timestamp(&bytes), Ok(BASE_TS + 2));
        assert_eq!(producer_id(&bytes), Ok(7));
        assert_eq!(producer_epoch(&bytes), Ok(3));
        assert_eq!(base_sequence(&bytes), Ok(40));
        assert_eq!(records_count(&bytes), Ok(3));
        assert_eq!(batch_size_at(&bytes, 0), Ok(bytes.len() as u32));
        let header = read_header(&bytes).unwrap();
        assert_eq!(header.last_sequence(), 42);
        assert_eq!(header.next_offset(), 103);
        assert_eq!(header.size_in_bytes(), Some(bytes.len() as u32));
        assert!(matches!(
            records_count(&bytes[..60]),
            Err(BatchError::Truncated {
                needed: 61,
                available: 60,
                ..
            })
        ));
    }

    #[test]
    fn sequences_wrap_like_kafka() {
        assert_eq!(increment_sequence(5, 3), 8);
        assert_eq!(increment_sequence(i32::MAX, 1), 0);
        assert_eq!(increment_sequence(i32::MAX - 1, 4), 2);
    }

    #[test]
    fn broker_rewrites_outside_the_crc_keep_it_valid() {
        let mut bytes = sample();
        let crc_before = stored_crc(&bytes).unwrap();
        set_base_offset(&mut bytes, 123_456).unwrap();
        set_partition_leader_epoch(&mut bytes, 9).unwrap();
        assert_eq!(stored_crc(&bytes), Ok(crc_before));
        assert!(verify_crc(&bytes));
        assert_eq!(validate(&bytes, 1_048_588), Ok(()));
        assert_eq!(base_offset(&bytes), Ok(123_456));
        assert_eq!(last_offset(&bytes), Ok(123_457));
        assert_eq!(partition_leader_epoch(&bytes), Ok(9));
        assert!(set_base_offset(&mut bytes[..7], 1).is_err());
        assert!(set_partition_leader_epoch(&mut bytes[..15], 1).is_err());
    }

    #[test]
    fn log_append_time_recomputes_the_crc() {
        let mut bytes = sample();
        let crc_before = stored_crc(&bytes).unwrap();
        let now = BASE_TS + 60_000;
        set_log_append_time(&mut bytes, now).unwrap();
        assert_eq!(timestamp_type(&bytes), Ok(TimestampType::LogAppendTime));
        assert_eq!(attributes(&bytes), Ok(TIMESTAMP_TYPE_MASK));
        assert_eq!(max_timestamp(&bytes), Ok(now));
        assert_ne!(stored_crc(&bytes).unwrap(), crc_before);
        assert!(verify_crc(&bytes));
        assert_eq!(
            stored_crc(&bytes).unwrap(),
            Crc::<u32>::new(&CRC_32_ISCSI).checksum(&bytes[21..])
        );
        let batch = decode(&bytes).unwrap();
        assert_eq!(batch.timestamp_of(&batch.records[0]), now);
        assert_eq!(batch.timestamp_of(&batch.records[1]), now);
        // A batch too short to checksum is refused and left as it was.
        let mut short = sample()[..80].to_vec();
        let before = short.clone();
        assert!(set_log_append_time(&mut short, now).is_err());
        assert_eq!(short, before);
    }

    #[test]
    fn verify_crc_catches_any_flipped_bit_inside_the_crc_region() {
        let bytes = sample();
        assert!(verify_crc(&bytes));
        for i in 21..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x01;
            assert!(!verify_crc(&bad), "flip at {i} went unnoticed");
        }
        assert!(!verify_crc(&[]));
    }

    #[test]
    fn validation_accepts_a_good_batch() {
        assert_eq!(validate(&sample(), 1_048_588), Ok(()));
        assert_eq!(validate(&sample(), 91), Ok(()));
    }

    #[test]
    fn validation_message_too_large() {
        let err = validate(&sample(), 90).unwrap_err();
        assert_eq!(
            err,
            ValidationError::MessageTooLarge {
                size: 91,
                max_message_bytes: 90
            }
        );
        assert_eq!(err.error_code(), 10);
        assert_eq!(err.name(), "MESSAGE_TOO_LARGE");
    }

    #[test]
    fn validation_corrupt_on_crc_mismatch() {
        let mut bytes = sample();
        bytes[70] ^= 0xff;
        let err = validate(&bytes, 1_048_588).unwrap_err();
        assert!(matches!(err, ValidationError::CrcMismatch { .. }));
        assert_eq!(err.error_code(), 2);
        assert_eq!(err.name(), "CORRUPT_MESSAGE");
    }

    #[test]
    fn validation_corrupt_on_truncation() {
        let bytes = sample();
        let err = validate(&bytes[..90], 1_048_588).unwrap_err();
        assert_eq!(
            err,
            ValidationError::Truncated {
                size: 90,
                needed: 91
            }
        );
        assert_eq!(err.error_code(), 2);
        let err = validate(&bytes[..30], 1_048_588).unwrap_err();
        assert_eq!(
            err,
            ValidationError::Truncated {
                size: 30,
                needed: 61
            }
        );
        let mut small = bytes.clone();
        small[8..12].copy_from_slice(&10i32.to_be_bytes());
        let err = validate(&small, 1_048_588).unwrap_err();
        assert_eq!(
            err,
            ValidationError::BatchLengthTooSmall { batch_length: 10 }
        );
        assert_eq!(err.name(), "CORRUPT_MESSAGE");
    }

    #[test]
    fn validation_invalid_record_on_bad_magic() {
        let mut bytes = sample();
        bytes[16] = 1;
        // The magic byte is outside the CRC, so only the magic check can catch it.
        assert!(verify_crc(&bytes));
        let err = validate(&bytes, 1_048_588).unwrap_err();
        assert_eq!(err, ValidationError::InvalidMagic { magic: 1 });
        assert_eq!(err.error_code(), 87);
        assert_eq!(err.name(), "INVALID_RECORD");
        assert_eq!(
            decode(&bytes),
            Err(BatchError::UnsupportedMagic { magic: 1 })
        );
    }

    #[test]
    fn validation_invalid_record_on_count_mismatch() {
        let mut bytes = sample();
        bytes[23..27].copy_from_slice(&5i32.to_be_bytes());
        recompute_crc(&mut bytes).unwrap();
        let err = validate(&bytes, 1_048_588).unwrap_err();
        assert_eq!(
            err,
            ValidationError::OffsetCountMismatch {
                last_offset_delta: 5,
                records_count: 2
            }
        );
        assert_eq!(err.error_code(), 87);
        // An empty batch has no offsets to assign and is refused the same way.
        let empty = BatchBuilder::new(0, 0).build();
        assert_eq!(empty.len(), 61);
        assert!(decode(&empty).unwrap().records.is_empty());
        assert_eq!(
            validate(&empty, 1_048_588),
            Err(ValidationError::OffsetCountMismatch {
                last_offset_delta: -1,
                records_count: 0
            })
        );
    }

    #[test]
    fn validation_invalid_record_on_out_of_order_offset_deltas() {
        let mut bytes = sample();
        // records[1].offsetDelta is the byte after its length, attributes and
        // timestampDelta: 61 + 9 (records[0]) + 1 + 1 + 1 = 73.
        assert_eq!(bytes[73], 0x02);
        bytes[73] = 0x04; // offsetDelta 2 instead of 1
        recompute_crc(&mut bytes).unwrap();
        let err = validate(&bytes, 1_048_588).unwrap_err();
        assert_eq!(
            err,
            ValidationError::OffsetDeltaOutOfOrder {
                index: 1,
                offset_delta: 2
            }
        );
        assert_eq!(err.error_code(), 87);
    }

    #[test]
    fn validation_refuses_exactly_what_decode_refuses_in_the_records() {
        // The validator walks the records without copying their payloads;
        // every change to a record byte (CRC fixed up) must still give the
        // error a full decode gives, or pass exactly when decode passes
        // with in-order offset deltas.
        let good = sample();
        let mut refused = 0;
        for i in RECORDS_OFFSET..good.len() {
            for value in [0x00, 0x01, 0x02, 0x7f, 0x80, 0xff, good[i] ^ 0x01] {
                let mut bytes = good.clone();
                bytes[i] = value;
                recompute_crc(&mut bytes).unwrap();
                let validated = validate(&bytes, 1_048_588);
                match decode(&bytes) {
                    Err(error) => {
                        refused += 1;
                        assert_eq!(
                            validated,
                            Err(ValidationError::MalformedRecords { error }),
                            "byte {i} = {value:#04x}"
                        );
                    }
                    Ok(batch) => {
                        let in_order = (0i32..).zip(&batch.records).all(|(n, r)| r.offset_delta == n);
                        assert_eq!(validated.is_ok(), in_order, "byte {i} = {value:#04x}: {validated:?}");
                    }
                }
            }
        }
        assert!(refused > 0, "no change was refused, so nothing was compared");
    }

    #[test]
    fn validation_invalid_record_on_malformed_records_and_extra_batches() {
        let mut bytes = sample();
        // records[0].length claims 9 bytes instead of 8.
        bytes[61] = 0x12;
        recompute_crc(&mut bytes).unwrap();
        let err = validate(&bytes, 1_048_588).unwrap_err();
        assert!(
            matches!(err, ValidationError::MalformedRecords { .. }),
            "{err}"
        );
        assert_eq!(err.error_code(), 87);

        let mut two = sample();
        two.extend_from_slice(&sample());
        let err = validate(&two, 1_048_588).unwrap_err();
        assert_eq!(
            err,
            ValidationError::TrailingBytes {
                batch_size: 91,
                size: 182
            }
        );
        assert_eq!(err.error_code(), 87);
    }

    #[test]
    fn every_prefix_is_an_error_not_a_panic() {
        let bytes = sample();
        for n in 0..bytes.len() {
            let prefix = &bytes[..n];
            assert!(decode(prefix).is_err(), "decode of {n} bytes");
            assert!(field_spans(prefix).is_err(), "field_spans of {n} bytes");
            assert!(!verify_crc(prefix), "verify_crc of {n} bytes");
            let err = validate(prefix, 1_048_588).unwrap_err();
            assert_eq!(err.error_code(), 2, "validate of {n} bytes: {err}");
            let items: Vec<_> = iter_batches(prefix).collect();
            if n == 0 {
                assert!(items.is_empty());
            } else {
                assert_eq!(items.len(), 1);
                assert!(items[0].is_err());
            }
            let mut copy = prefix.to_vec();
            assert!(set_log_append_time(&mut copy, 1).is_err());
            assert_eq!(copy, prefix);
        }
    }

    #[test]
    fn corrupted_bytes_never_panic() {
        let bytes = sample();
        for i in 0..bytes.len() {
            for v in [0x00u8, 0x01, 0x7f, 0x80, 0xfe, 0xff] {
                let mut bad = bytes.clone();
                bad[i] = v;
                let _ = decode(&bad);
                let _ = field_spans(&bad);
                let _ = validate(&bad, 1_048_588);
                let _ = iter_batches(&bad).count();
                let _ = set_log_append_time(&mut bad, 5);
            }
        }
    }

    #[test]
    fn decode_reports_structural_errors() {
        let mut bytes = sample();
        bytes.push(0);
        assert_eq!(
            decode(&bytes),
            Err(BatchError::TrailingBytes {
                batch_size: 91,
                available: 92
            })
        );
        // Extra bytes inside batchLength but after the last record.
        let mut bytes = sample();
        bytes.push(0);
        bytes[8..12].copy_from_slice(&80i32.to_be_bytes());
        assert_eq!(
            decode(&bytes),
            Err(BatchError::TrailingRecordBytes {
                records_count: 2,
                unused: 1
            })
        );
        let mut bytes = sample();
        bytes[22] = 0x02; // snappy
        assert_eq!(
            decode(&bytes),
            Err(BatchError::UnsupportedCompression { codec: 2 })
        );
        let mut bytes = sample();
        bytes[57..61].copy_from_slice(&(-1i32).to_be_bytes());
        assert_eq!(
            decode(&bytes),
            Err(BatchError::NegativeRecordsCount { records_count: -1 })
        );
        let mut bytes = sample();
        bytes[57..61].copy_from_slice(&i32::MAX.to_be_bytes());
        assert!(matches!(decode(&bytes), Err(BatchError::Varint { .. })));
        // A header with a null key is not allowed.
        let mut bytes = sample();
        assert_eq!(bytes[84], 0x02);
        bytes[84] = 0x01;
        assert!(matches!(
            decode(&bytes),
            Err(BatchError::InvalidLength { ref field, length: -1, .. })
                if field == "records[1].headers[0].keyLength"
        ));
        let mut bytes = sample();
        bytes[85] = 0xff;
        assert_eq!(
            decode(&bytes),
            Err(BatchError::InvalidUtf8 {
                field: "records[1].headers[0].key".to_string()
            })
        );
    }

    #[test]
    fn iterates_over_concatenated_batches() {
        let mut segment = Vec::new();
        let mut positions = Vec::new();
        let mut next_offset = 0i64;
        for n in 1..=3 {
            let mut b = BatchBuilder::new(0, BASE_TS);
            for i in 0..n {
                b.append(BASE_TS + i, None, Some(b"payload"), &[]).unwrap();
            }
            let mut bytes = b.build();
            set_base_offset(&mut bytes, next_offset).unwrap();
            next_offset = last_offset(&bytes).unwrap() + 1;
            positions.push(segment.len() as u32);
            segment.extend_from_slice(&bytes);
        }
        let found: Vec<(u32, BatchHeader)> =
            iter_batches(&segment).collect::<Result<_, _>>().unwrap();
        assert_eq!(found.iter().map(|(p, _)| *p).collect::<Vec<_>>(), positions);
        assert_eq!(
            found.iter().map(|(_, h)| h.base_offset).collect::<Vec<_>>(),
            vec![0, 1, 3]
        );
        assert_eq!(found[2].1.last_offset(), 5);
        for (pos, header) in &found {
            let size = batch_size_at(&segment, *pos).unwrap();
            assert_eq!(Some(size), header.size_in_bytes());
            let one = &segment[*pos as usize..(*pos + size) as usize];
            assert!(verify_crc(one));
            assert_eq!(decode(one).unwrap().header, *header);
        }
        // A partial batch at the end is reported with its place in the segment.
        let cut = &segment[..segment.len() - 1];
        let items: Vec<_> = iter_batches(cut).collect();
        assert_eq!(items.len(), 3);
        assert!(items[0].is_ok() && items[1].is_ok());
        assert_eq!(
            items[2],
            Err(BatchError::Truncated {
                field: "batch".to_string(),
                offset: positions[2],
                needed: segment.len() as u32,
                available: cut.len() as u32,
            })
        );
        assert!(batch_size_at(&segment, segment.len() as u32 + 1).is_err());
    }

    #[test]
    fn field_spans_cover_every_byte_once_in_order() {
        for bytes in [sample(), BatchBuilder::new(0, 0).build()] {
            let spans = field_spans(&bytes).unwrap();
            let mut next = 0u32;
            for s in &spans {
                assert_eq!(s.start, next, "gap or overlap before {}", s.name);
                assert!(s.len > 0, "{} is empty", s.name);
                next = s.start + s.len;
            }
            assert_eq!(next as usize, bytes.len());
        }
    }

    #[test]
    fn field_spans_name_and_describe_fields() {
        let bytes = sample();
        let spans = field_spans(&bytes).unwrap();
        let names: Vec<&str> = spans.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "baseOffset",
                "batchLength",
                "partitionLeaderEpoch",
                "magic",
                "crc",
                "attributes",
                "lastOffsetDelta",
                "baseTimestamp",
                "maxTimestamp",
                "producerId",
                "producerEpoch",
                "baseSequence",
                "recordsCount",
                "records[0].length",
                "records[0].attributes",
                "records[0].timestampDelta",
                "records[0].offsetDelta",
                "records[0].keyLength",
                "records[0].valueLength",
                "records[0].value",
                "records[0].headerCount",
                "records[1].length",
                "records[1].attributes",
                "records[1].timestampDelta",
                "records[1].offsetDelta",
                "records[1].keyLength",
                "records[1].key",
                "records[1].valueLength",
                "records[1].value",
                "records[1].headerCount",
                "records[1].headers[0].keyLength",
                "records[1].headers[0].key",
                "records[1].headers[0].valueLength",
                "records[1].headers[0].value",
                "records[1].headers[1].keyLength",
                "records[1].headers[1].key",
                "records[1].headers[1].valueLength",
            ]
        );
        let get = |name: &str| spans.iter().find(|s| s.name == name).unwrap();
        assert_eq!(get("records[0].keyLength").value, "-1 (null)");
        assert_eq!(get("records[1].value").value, "\"world\" (5 bytes)");
        assert_eq!(get("records[1].headers[1].valueLength").value, "-1 (null)");
        assert_eq!(get("baseTimestamp").len, 8);
        assert!(get("crc").value.contains("matches"));
        assert!(get("records[1].timestampDelta")
            .value
            .contains("1700000000005"));

        let mut bad = bytes.clone();
        bad[90] ^= 1;
        let spans = field_spans(&bad).unwrap();
        assert!(spans[4].value.contains("MISMATCH"));
    }

    #[test]
    fn describes_binary_payloads_as_hex() {
        assert_eq!(describe_bytes(&[0x00, 0xff]), "0x00ff (2 bytes)");
        let long = vec![b'a'; 60];
        assert!(describe_bytes(&long).ends_with("\"… (60 bytes)"));
    }

    #[test]
    fn errors_display_descriptively() {
        let e = BatchError::Truncated {
            field: "records[1].value".to_string(),
            offset: 80,
            needed: 85,
            available: 82,
        };
        assert!(e.to_string().contains("records[1].value"));
        let v = ValidationError::CrcMismatch {
            stored: 1,
            computed: 2,
        };
        assert!(v.to_string().starts_with("CORRUPT_MESSAGE (2)"));
    }
}
