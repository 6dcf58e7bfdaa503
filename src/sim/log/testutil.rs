//! Test-only builder for real record batches of an exact size.
//!
//! The batches come from the record module's `BatchBuilder`, so they are
//! complete, CRC-valid v2 batches that a leader's validation accepts. The
//! tests reason in round sizes (ten 1000-byte batches fill a 10 000-byte
//! segment), so the last record's value is sized to make the whole batch
//! exactly the size asked for.

use super::super::record::batch::{validate, BatchBuilder};

/// A batch of `records` records starting at `base_offset`, exactly `size`
/// bytes in total, with the given max timestamp and partition leader epoch.
/// Every record carries `max_timestamp`, which is also the base timestamp.
/// Panics when no batch of that many records can have that size (too small,
/// or a size a varint boundary skips over).
pub fn batch(
    base_offset: i64,
    records: i32,
    size: usize,
    max_timestamp: i64,
    epoch: i32,
) -> Vec<u8> {
    assert!(records >= 1, "a test batch needs at least one record");
    let target = u32::try_from(size).expect("test batch size fits a u32");
    let padding: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
    // A one-byte key on the first record shifts the size by one byte, which
    // reaches the sizes a varint length growing by a byte would skip.
    let keys: [Option<&[u8]>; 2] = [None, Some(b"k")];
    for first_key in keys {
        let mut builder =
            BatchBuilder::new(base_offset, max_timestamp).partition_leader_epoch(epoch);
        for i in 0..records - 1 {
            let key = if i == 0 { first_key } else { None };
            builder
                .append(max_timestamp, key, Some(&[]), &[])
                .expect("small test record");
        }
        let last_key = if records == 1 { first_key } else { None };
        // The padded record's own fields take at most about 20 bytes, so
        // starting 32 below the target never skips the exact length.
        let start = target.saturating_sub(builder.size_in_bytes() + 32) as usize;
        for len in start..=size {
            let value = Some(&padding[..len]);
            let estimate = builder.estimated_size_after_append(max_timestamp, last_key, value, &[]);
            if estimate > target {
                break;
            }
            if estimate == target {
                builder
                    .append(max_timestamp, last_key, value, &[])
                    .expect("padded test record");
                let bytes = builder.build();
                assert_eq!(bytes.len(), size, "the builder's size estimate is exact");
                assert_eq!(validate(&bytes, u32::MAX), Ok(()), "a valid v2 batch");
                return bytes;
            }
        }
    }
    panic!("no batch of {records} records is exactly {size} bytes");
}
