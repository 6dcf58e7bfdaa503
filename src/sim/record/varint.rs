//! Zig-zag variable-length integers, as Kafka's `ByteUtils` writes them inside
//! record batch v2.
//!
//! A signed value is first zig-zag mapped, `(v << 1) ^ (v >> 31)` (or `>> 63`
//! for 64-bit values), so that small negative numbers stay short. The result
//! is then written seven bits a byte, least significant group first, with the
//! high bit of each byte set when another byte follows.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The longest encoding of a 32-bit varint: five groups of seven bits hold 35 bits.
pub const MAX_VARINT_BYTES: u32 = 5;

/// The longest encoding of a 64-bit varlong: ten groups of seven bits hold 70 bits.
pub const MAX_VARLONG_BYTES: u32 = 10;

/// Why a varint could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum VarintError {
    /// The input ended while the last byte read still announced another byte.
    Truncated {
        /// Where the varint started in the input.
        pos: u32,
    },
    /// More bytes carried the continuation bit than the type can hold; Kafka
    /// rejects this too ("Varint is too long").
    TooManyBytes {
        /// Where the varint started in the input.
        pos: u32,
        /// The longest legal encoding for the type being read.
        max_bytes: u32,
    },
    /// The final byte carried bits beyond the type's width. Kafka would drop
    /// them silently; we refuse, because a hexdump that decodes to a value it
    /// does not actually hold would teach something false.
    Overflow {
        /// Where the varint started in the input.
        pos: u32,
    },
}

impl fmt::Display for VarintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VarintError::Truncated { pos } => {
                write!(f, "varint at byte {pos} is cut off before its last byte")
            }
            VarintError::TooManyBytes { pos, max_bytes } => write!(
                f,
                "varint at byte {pos} is longer than the {max_bytes} bytes its type allows"
            ),
            VarintError::Overflow { pos } => write!(
                f,
                "varint at byte {pos} carries more bits than its type can hold"
            ),
        }
    }
}

impl std::error::Error for VarintError {}

/// Converts a slice position for an error report; positions past 4 GiB cannot
/// occur in the simulation, so saturating keeps the report honest enough.
fn pos_u32(pos: usize) -> u32 {
    u32::try_from(pos).unwrap_or(u32::MAX)
}

/// Zig-zag maps a 32-bit value so that its magnitude, not its sign, sets its length.
pub fn zigzag32(value: i32) -> u32 {
    ((value << 1) ^ (value >> 31)) as u32
}

/// Undoes [`zigzag32`].
pub fn unzigzag32(raw: u32) -> i32 {
    ((raw >> 1) as i32) ^ -((raw & 1) as i32)
}

/// Zig-zag maps a 64-bit value so that its magnitude, not its sign, sets its length.
pub fn zigzag64(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// Undoes [`zigzag64`].
pub fn unzigzag64(raw: u64) -> i64 {
    ((raw >> 1) as i64) ^ -((raw & 1) as i64)
}

/// Appends the seven-bit groups of an already zig-zag mapped value.
fn write_groups(mut raw: u64, out: &mut Vec<u8>) {
    while raw >= 0x80 {
        out.push((raw as u8 & 0x7f) | 0x80);
        raw >>= 7;
    }
    out.push(raw as u8);
}

/// Appends `value` as a zig-zag varint (Kafka's `ByteUtils.writeVarint`).
pub fn encode_varint(value: i32, out: &mut Vec<u8>) {
    write_groups(u64::from(zigzag32(value)), out);
}

/// Appends `value` as a zig-zag varlong (Kafka's `ByteUtils.writeVarlong`).
pub fn encode_varlong(value: i64, out: &mut Vec<u8>) {
    write_groups(zigzag64(value), out);
}

/// Counts the bytes a zig-zag mapped value needs.
fn groups_size(mut raw: u64) -> u32 {
    let mut bytes = 1;
    while raw >= 0x80 {
        raw >>= 7;
        bytes += 1;
    }
    bytes
}

/// The number of bytes [`encode_varint`] writes for `value`.
pub fn varint_size(value: i32) -> u32 {
    groups_size(u64::from(zigzag32(value)))
}

/// The number of bytes [`encode_varlong`] writes for `value`.
pub fn varlong_size(value: i64) -> u32 {
    groups_size(zigzag64(value))
}

/// Reads seven-bit groups into a raw (still zig-zagged) value of `width_bits`.
///
/// Non-minimal encodings (such as `80 00` for zero) are accepted, as Kafka
/// accepts them; only encodings longer than the type allows, or carrying bits
/// beyond its width, are refused.
fn read_groups(
    buf: &[u8],
    pos: usize,
    max_bytes: u32,
    width_bits: u32,
) -> Result<(u64, usize), VarintError> {
    let mut raw: u64 = 0;
    let mut shift: u32 = 0;
    let mut consumed: usize = 0;
    loop {
        let Some(&byte) = pos.checked_add(consumed).and_then(|i| buf.get(i)) else {
            return Err(VarintError::Truncated { pos: pos_u32(pos) });
        };
        consumed += 1;
        let group = u64::from(byte & 0x7f);
        // Bits that would land at or above the type's width make the value
        // unrepresentable, so they are an error rather than silently lost.
        let room = width_bits - shift;
        if room < 7 && (group >> room) != 0 {
            return Err(VarintError::Overflow { pos: pos_u32(pos) });
        }
        raw |= group << shift;
        if byte & 0x80 == 0 {
            return Ok((raw, consumed));
        }
        if consumed as u32 >= max_bytes {
            return Err(VarintError::TooManyBytes {
                pos: pos_u32(pos),
                max_bytes,
            });
        }
        shift += 7;
    }
}

/// Reads a zig-zag varint starting at `buf[pos]`; returns the value and the
/// number of bytes it took.
pub fn decode_varint(buf: &[u8], pos: usize) -> Result<(i32, usize), VarintError> {
    let (raw, consumed) = read_groups(buf, pos, MAX_VARINT_BYTES, 32)?;
    // The width check in read_groups guarantees the value fits in 32 bits.
    Ok((unzigzag32(raw as u32), consumed))
}

/// Reads a zig-zag varlong starting at `buf[pos]`; returns the value and the
/// number of bytes it took.
pub fn decode_varlong(buf: &[u8], pos: usize) -> Result<(i64, usize), VarintError> {
    let (raw, consumed) = read_groups(buf, pos, MAX_VARLONG_BYTES, 64)?;
    Ok((unzigzag64(raw), consumed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc32(v: i32) -> Vec<u8> {
        let mut out = Vec::new();
        encode_varint(v, &mut out);
        out
    }

    fn enc64(v: i64) -> Vec<u8> {
        let mut out = Vec::new();
        encode_varlong(v, &mut out);
        out
    }

    #[test]
    fn known_varint_bytes() {
        let cases: &[(i32, &[u8])] = &[
            (0, &[0x00]),
            (-1, &[0x01]),
            (1, &[0x02]),
            (-2, &[0x03]),
            (63, &[0x7e]),
            (-64, &[0x7f]),
            (64, &[0x80, 0x01]),
            (-65, &[0x81, 0x01]),
            (300, &[0xd8, 0x04]),
            (-300, &[0xd7, 0x04]),
            (8191, &[0xfe, 0x7f]),
            (8192, &[0x80, 0x80, 0x01]),
            (i32::MAX, &[0xfe, 0xff, 0xff, 0xff, 0x0f]),
            (i32::MIN, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ];
        for (value, bytes) in cases {
            assert_eq!(enc32(*value), bytes.to_vec(), "encoding {value}");
            assert_eq!(varint_size(*value) as usize, bytes.len(), "size of {value}");
            assert_eq!(decode_varint(bytes, 0), Ok((*value, bytes.len())));
        }
    }

    #[test]
    fn known_varlong_bytes() {
        let cases: &[(i64, &[u8])] = &[
            (0, &[0x00]),
            (-1, &[0x01]),
            (1, &[0x02]),
            (63, &[0x7e]),
            (-64, &[0x7f]),
            (64, &[0x80, 0x01]),
            (300, &[0xd8, 0x04]),
            (
                i64::MAX,
                &[0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            ),
            (
                i64::MIN,
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            ),
        ];
        for (value, bytes) in cases {
            assert_eq!(enc64(*value), bytes.to_vec(), "encoding {value}");
            assert_eq!(
                varlong_size(*value) as usize,
                bytes.len(),
                "size of {value}"
            );
            assert_eq!(decode_varlong(bytes, 0), Ok((*value, bytes.len())));
        }
    }

    #[test]
    fn round_trips_edge_values() {
        let v32 = [
            i32::MIN,
            i32::MIN + 1,
            -65536,
            -129,
            -128,
            -1,
            0,
            1,
            127,
            128,
            65535,
            i32::MAX - 1,
            i32::MAX,
        ];
        for v in v32 {
            let bytes = enc32(v);
            assert_eq!(decode_varint(&bytes, 0), Ok((v, bytes.len())));
            // A varint written as a varlong must read back the same too,
            // because zig-zag maps both the same way for values in range.
            assert_eq!(enc64(i64::from(v)), bytes);
        }
        let v64 = [
            i64::MIN,
            i64::MIN + 1,
            i64::from(i32::MIN) - 1,
            -1,
            0,
            1,
            i64::from(i32::MAX) + 1,
            1_700_000_000_000,
            i64::MAX - 1,
            i64::MAX,
        ];
        for v in v64 {
            let bytes = enc64(v);
            assert_eq!(decode_varlong(&bytes, 0), Ok((v, bytes.len())));
        }
    }

    #[test]
    fn decodes_at_a_position() {
        let mut buf = vec![0xaa, 0xbb];
        encode_varint(300, &mut buf);
        encode_varlong(-1, &mut buf);
        assert_eq!(decode_varint(&buf, 2), Ok((300, 2)));
        assert_eq!(decode_varlong(&buf, 4), Ok((-1, 1)));
        assert_eq!(
            decode_varint(&buf, 5),
            Err(VarintError::Truncated { pos: 5 })
        );
        assert_eq!(
            decode_varint(&buf, usize::MAX),
            Err(VarintError::Truncated { pos: u32::MAX })
        );
    }

    #[test]
    fn truncated_input_is_an_error() {
        assert_eq!(
            decode_varint(&[], 0),
            Err(VarintError::Truncated { pos: 0 })
        );
        assert_eq!(
            decode_varint(&[0x80], 0),
            Err(VarintError::Truncated { pos: 0 })
        );
        assert_eq!(
            decode_varlong(&[0xff, 0xff, 0xff], 0),
            Err(VarintError::Truncated { pos: 0 })
        );
    }

    #[test]
    fn overlong_input_is_an_error() {
        assert_eq!(
            decode_varint(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 0),
            Err(VarintError::TooManyBytes {
                pos: 0,
                max_bytes: 5
            })
        );
        assert_eq!(
            decode_varlong(&[0x80; 11], 0),
            Err(VarintError::TooManyBytes {
                pos: 0,
                max_bytes: 10
            })
        );
        // The fifth byte of a varint may only hold the top four bits.
        assert_eq!(
            decode_varint(&[0xff, 0xff, 0xff, 0xff, 0x1f], 0),
            Err(VarintError::Overflow { pos: 0 })
        );
        // The tenth byte of a varlong may only hold the top bit.
        let mut too_wide = vec![0xff; 9];
        too_wide.push(0x02);
        assert_eq!(
            decode_varlong(&too_wide, 0),
            Err(VarintError::Overflow { pos: 0 })
        );
    }

    #[test]
    fn non_minimal_encodings_are_accepted_like_kafka() {
        assert_eq!(decode_varint(&[0x80, 0x00], 0), Ok((0, 2)));
        assert_eq!(decode_varlong(&[0x82, 0x80, 0x00], 0), Ok((1, 3)));
    }

    #[test]
    fn errors_display() {
        let text = VarintError::TooManyBytes {
            pos: 3,
            max_bytes: 5,
        }
        .to_string();
        assert!(text.contains("byte 3") && text.contains('5'));
    }
}
