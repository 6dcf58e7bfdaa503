//! The events benchmark's workload, kept in the library so that the
//! benchmark and a determinism test run the same function: the test holds
//! its golden trace hash, so "the same run event for event" in
//! docs/BENCHMARKS.md is checked, not assumed. It runs the cluster a learner
//! sees: a quorum of three controllers boots, elects an active controller,
//! registers the brokers and creates the topic, and only then does the load
//! start.

use super::config::{ProducerConfig, TopicSpec};
use super::ids::TopicPartition;
use super::simulation::{ClientSpec, ClusterConfig, Command, MetadataSource, Simulation};

/// Three brokers, three controllers, one topic of six partitions at
/// replication factor 3, and four acks=all producers.
pub const BROKERS: u32 = 3;
const PRODUCERS: u32 = 4;
const PARTITIONS: u32 = 6;
/// The boot must be over well within this, or the workload is broken.
const BOOT_LIMIT_MS: u64 = 60_000;

pub struct EventsWorkload {
    sim: Simulation,
    records: u64,
    value: String,
}

impl EventsWorkload {
    /// Boots the cluster with the given seed, with or without keeping the
    /// trace (the benchmark only counts events; the run is the same).
    pub fn boot(seed: u64, record_trace: bool) -> Self {
        let config = ClusterConfig {
            brokers: BROKERS,
            metadata: MetadataSource::quorum(3),
            topics: vec![TopicSpec::new("orders", PARTITIONS, 3)],
            clients: (0..PRODUCERS).map(|_| ClientSpec::Producer(ProducerConfig::default())).collect(),
            ..ClusterConfig::default()
        };
        let Ok(mut sim) = Simulation::new(config, seed) else { unreachable!("the workload's configuration is valid") };
        sim.set_record_trace(record_trace);
        // Booted: every partition has a leader that knows it leads. A view
        // every 10 ms of the boot is cheap next to the load.
        while !(sim.view().partitions.len() == PARTITIONS as usize && sim.view().every_partition_led()) {
            assert!(sim.now_ms() < BOOT_LIMIT_MS, "seed {seed}: the workload's cluster did not boot");
            sim.run_until(sim.now_ms() + 10);
        }
        EventsWorkload { sim, records: 0, value: "x".repeat(100) }
    }

    /// Runs the load until the simulation has taken at least `events`
    /// events in all: each simulated millisecond, every producer sends one
    /// 100-byte record under one of 1,000 keys.
    pub fn run_to(&mut self, events: u64) {
        while self.sim.steps() < events {
            for client in 0..PRODUCERS {
                let produce = Command::Produce {
                    client,
                    topic: "orders".into(),
                    key: Some(format!("key-{}", self.records % 1000)),
                    value: Some(self.value.clone()),
                    headers: vec![],
                    partition: None,
                    timestamp_ms: None,
                };
                let Ok(()) = self.sim.command(produce) else { unreachable!("the topic exists and the record is small") };
                self.records += 1;
            }
            let next = self.sim.now_ms() + 1;
            self.sim.run_until(next);
        }
    }

    pub fn sim(&self) -> &Simulation {
        &self.sim
    }

    pub fn records(&self) -> u64 {
        self.records
    }

    /// The record-batch bytes every replica holds, and the memory its log
    /// takes for them.
    pub fn log_bytes_and_memory(&self) -> (u64, u64) {
        let (mut bytes, mut memory) = (0, 0);
        for (tp, broker) in self.replicas() {
            if let Some(p) = self.sim.broker(broker).and_then(|b| b.partition(&tp)) {
                bytes += p.log.record_bytes();
                memory += p.log.record_bytes() + p.log.memory_overhead_bytes();
            }
        }
        (bytes, memory)
    }

    /// A CRC-64 of where the run ended: the clock, the event count, and each
    /// replica's log end offset, high watermark and record bytes. It tells
    /// runs apart when the trace is not kept.
    pub fn fingerprint(&self) -> u64 {
        let crc = crc::Crc::<u64>::new(&crc::CRC_64_ECMA_182);
        let mut digest = crc.digest();
        digest.update(&self.sim.now_ms().to_le_bytes());
        digest.update(&self.sim.steps().to_le_bytes());
        let view = self.sim.view();
        for (tp, broker) in self.replicas() {
            if let Some(r) = view.replica(&tp.topic, tp.partition, broker) {
                digest.update(&r.log_end_offset.to_le_bytes());
                digest.update(&r.high_watermark.to_le_bytes());
            }
            let bytes = self.sim.broker(broker).and_then(|b| b.partition(&tp)).map_or(0, |p| p.log.record_bytes());
            digest.update(&bytes.to_le_bytes());
        }
        digest.finalize()
    }

    /// Every (partition, broker) pair in a fixed order.
    fn replicas(&self) -> Vec<(TopicPartition, u32)> {
        (0..PARTITIONS).flat_map(|p| (0..BROKERS).map(move |b| (TopicPartition::new("orders", p), b))).collect()
    }
}
