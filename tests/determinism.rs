//! The same seed and the same commands give the same run.

mod common;

#[test]
fn same_seed_same_trace() {
    let a = common::determinism_run(42);
    let b = common::determinism_run(42);
    assert_eq!(a.trace(), b.trace());
    assert_eq!(a.trace_hash(), b.trace_hash());
}

#[test]
fn another_seed_gives_another_run() {
    let a = common::determinism_run(42);
    let b = common::determinism_run(43);
    assert_ne!(a.trace_hash(), b.trace_hash(), "the seed drives link jitter, so runs differ");
}

#[test]
fn golden_trace_hash_is_stable() {
    let sim = common::determinism_run(42);
    assert_eq!(
        sim.trace_hash(),
        common::GOLDEN_TRACE_HASH,
        "trace hash changed: got {:#x}; if intended, update GOLDEN_TRACE_HASH",
        sim.trace_hash()
    );
}

#[test]
fn golden_kraft_trace_hash_is_stable() {
    let sim = common::determinism_run_kraft(42);
    assert_eq!(
        sim.trace_hash(),
        common::GOLDEN_KRAFT_TRACE_HASH,
        "trace hash of the KRaft run changed: got {:#x}; if intended, update GOLDEN_KRAFT_TRACE_HASH",
        sim.trace_hash()
    );
}

#[test]
fn the_kraft_run_is_the_same_twice_and_differs_by_seed() {
    let a = common::determinism_run_kraft(42);
    let b = common::determinism_run_kraft(42);
    assert_eq!(a.trace(), b.trace());
    assert_ne!(a.trace_hash(), common::determinism_run_kraft(43).trace_hash());
}

/// The hash covers each event's data as JSON, not its text, so rewording a
/// trace line (the CLI's or the page's) can never move the golden hash.
#[test]
fn the_trace_hash_is_of_the_events_data_not_their_wording() {
    let sim = common::determinism_run(42);
    let crc = crc::Crc::<u64>::new(&crc::CRC_64_ECMA_182);
    let mut digest = crc.digest();
    for event in sim.trace() {
        digest.update(serde_json::to_string(event).unwrap().as_bytes());
        digest.update(b"\n");
    }
    assert_eq!(sim.trace_hash(), digest.finalize());
}

use common::{BENCH_EVENTS, GOLDEN_BENCH_TRACE_HASH};

#[test]
fn the_events_benchmark_workload_has_a_golden_hash() {
    let mut w = kafkascope::sim::workload::EventsWorkload::boot(1, true);
    w.run_to(BENCH_EVENTS);
    assert_eq!(
        w.sim().trace_hash(),
        GOLDEN_BENCH_TRACE_HASH,
        "the events benchmark's run changed: got {:#x}; if intended, update GOLDEN_BENCH_TRACE_HASH",
        w.sim().trace_hash()
    );
}

/// Its metrics samples have a golden hash too, which the browser test
/// checks in wasm; keeping no trace does not change them.
#[test]
fn the_events_benchmark_workload_samples_golden_metrics() {
    let mut w = kafkascope::sim::workload::EventsWorkload::boot(1, true);
    w.run_to(BENCH_EVENTS);
    let hash = common::samples_hash(w.sim());
    assert!(w.sim().samples().len() >= 3, "{}", w.sim().samples().len());
    assert!(w.sim().samples().iter().any(|s| s.topics.iter().any(|t| t.messages_in > 0)), "the workload produces");
    assert_eq!(hash, common::GOLDEN_BENCH_SAMPLES_HASH, "the workload's metrics changed: got {hash:#x}");
    let mut untraced = kafkascope::sim::workload::EventsWorkload::boot(1, false);
    untraced.run_to(BENCH_EVENTS);
    assert_eq!(common::samples_hash(untraced.sim()), hash);
}

/// The benchmark keeps no trace: not keeping it must not change the run.
#[test]
fn the_events_benchmark_runs_the_same_without_its_trace() {
    let mut traced = kafkascope::sim::workload::EventsWorkload::boot(1, true);
    let mut counted = kafkascope::sim::workload::EventsWorkload::boot(1, false);
    traced.run_to(BENCH_EVENTS);
    counted.run_to(BENCH_EVENTS);
    assert!(counted.sim().trace().is_empty());
    assert_eq!((counted.sim().steps(), counted.records()), (traced.sim().steps(), traced.records()));
    assert_eq!(counted.fingerprint(), traced.fingerprint());
    assert_eq!(counted.sim().view(), traced.sim().view());
}
