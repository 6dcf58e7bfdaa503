//! Simulated events per second on the cluster a learner sees (three
//! brokers, a quorum of three controllers, replication factor 3, acks=all),
//! booted, and the segment store's memory against the record batch bytes it
//! holds. A benchmark, not a test: run it with `cargo bench --bench events`
//! and copy the figures to docs/BENCHMARKS.md. The workload is
//! `sim::workload::EventsWorkload`, whose run tests/determinism.rs pins with
//! a golden trace hash; the fingerprint printed here shows that a change
//! left this longer run the same event for event.

use kafkascope::sim::workload::EventsWorkload;
use std::time::Instant;

fn main() {
    let target_events: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2_000_000);
    let mut workload = EventsWorkload::boot(1, false);
    let booted = workload.sim().steps();
    let start = Instant::now();
    workload.run_to(target_events);
    let elapsed = start.elapsed().as_secs_f64();
    let sim = workload.sim();
    let events = sim.steps() - booted;
    println!(
        "events: {events} in {elapsed:.3} s = {:.0} events/s (after a boot of {booted} events; simulated {} ms, {} records sent)",
        events as f64 / elapsed,
        sim.now_ms(),
        workload.records()
    );
    println!("run fingerprint: {:#018x}", workload.fingerprint());
    let (log_bytes, memory) = workload.log_bytes_and_memory();
    println!(
        "segment store: {log_bytes} record-batch bytes held in {memory} bytes = {:.2} % overhead",
        (memory as f64 / log_bytes.max(1) as f64 - 1.0) * 100.0
    );
}
