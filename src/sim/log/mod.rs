//! Kafka's partition log for the KafkaScope simulation, with memory in place
//! of disk: segments of record batches back to back, their sparse offset and
//! time indexes, the leader epoch cache, and the log that rolls, reads,
//! truncates and applies retention the way Kafka's UnifiedLog does.
//!
//! Batches are read with the record module's fixed-offset header readers
//! (`record::batch`); the log adds only the checks it needs to place a batch.

pub mod chunked;
pub mod epoch_cache;
pub mod index;
// `log::log` mirrors Kafka's split of the partition log (UnifiedLog) from
// the `log` package around it; the name is kept on purpose.
#[allow(clippy::module_inception)]
pub mod log;
pub mod segment;

#[cfg(test)]
pub(crate) mod testutil;
