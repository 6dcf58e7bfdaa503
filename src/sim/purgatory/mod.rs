//! Kafka's delayed-operation purgatory and the hierarchical timing wheel behind it.
//!
//! `timing_wheel` reproduces Kafka's `SystemTimer` and `TimingWheel` (tick 1 ms, 20 buckets a
//! wheel, overflow wheels created on demand), driven by simulated time instead of a clock thread.
//! `purgatory` reproduces `DelayedOperationPurgatory`: watch lists per key, the double
//! `tryComplete`, timeouts on the timer, and the lazy purge of completed operations.
//! Everything is single-threaded and deterministic, so Kafka's locks have no counterpart here.

pub mod purgatory;
pub mod timing_wheel;
