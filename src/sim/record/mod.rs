//! Kafka's record plumbing: zig-zag varints, record batch v2 encoding and
//! decoding (byte for byte), and the producer's partitioners.

pub mod batch;
pub mod partitioner;
pub mod varint;
