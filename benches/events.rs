//! Simulated events per second on a 3-broker, replication-factor-3,
//! acks=all workload, and the segment store's memory against the record
//! batch bytes it holds. A benchmark, not a test: run it with
//! `cargo bench --bench events` and copy the figures to docs/BENCHMARKS.md.

use kafkascope::sim::config::{ProducerConfig, TopicSpec};
use kafkascope::sim::simulation::{ClientSpec, ClusterConfig, Command, Simulation};
use std::time::Instant;

fn workload(seed: u64) -> Simulation {
    let config = ClusterConfig {
        brokers: 3,
        topics: vec![TopicSpec::new("orders", 6, 3)],
        clients: (0..4).map(|_| ClientSpec::Producer(ProducerConfig::default())).collect(),
        ..ClusterConfig::default()
    };
    let mut sim = Simulation::new(config, seed).expect("valid");
    sim.set_record_trace(false);
    sim
}

fn main() {
    let target_events: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2_000_000);
    let mut sim = workload(1);
    let value = "x".repeat(100);
    let start = Instant::now();
    let mut records = 0u64;
    while sim.steps() < target_events {
        for client in 0..4 {
            let key = format!("key-{}", records % 1000);
            let produce = Command::Produce {
                client,
                topic: "orders".into(),
                key: Some(key),
                value: Some(value.clone()),
                headers: vec![],
                partition: None,
                timestamp_ms: None,
            };
            sim.command(produce).expect("valid command");
            records += 1;
        }
        let next = sim.now_ms() + 1;
        sim.run_until(next);
    }
    let elapsed = start.elapsed().as_secs_f64();
    let events = sim.steps();
    println!("events: {events} in {elapsed:.3} s = {:.0} events/s (simulated {} ms, {records} records sent)", events as f64 / elapsed, sim.now_ms());

    let view = sim.view();
    let mut log_bytes = 0u64;
    let mut memory = 0u64;
    for b in 0..3 {
        let broker = sim.broker(b).expect("broker");
        for r in &view.brokers[b as usize].replicas {
            let p = broker.partition(&kafkascope::sim::ids::TopicPartition::new(r.topic.clone(), r.partition)).expect("replica");
            log_bytes += p.log.record_bytes();
            memory += p.log.record_bytes() + p.log.memory_overhead_bytes();
        }
    }
    println!(
        "segment store: {log_bytes} record-batch bytes held in {memory} bytes = {:.2} % overhead",
        (memory as f64 / log_bytes.max(1) as f64 - 1.0) * 100.0
    );
}
