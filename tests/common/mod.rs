//! Workloads shared by the native and the browser tests, so both run exactly
//! the same thing.
#![allow(dead_code)]

use kafkascope::sim::config::{BrokerConfig, ConsumerConfig, ProducerConfig, TopicSpec};
use kafkascope::sim::simulation::{ClientSpec, ClusterConfig, Command, Simulation};

pub fn produce(client: u32, topic: &str, key: Option<&str>, value: &str) -> Command {
    Command::Produce {
        client,
        topic: topic.into(),
        key: key.map(str::to_string),
        value: Some(value.into()),
        headers: vec![],
        partition: None,
        timestamp_ms: None,
    }
}

pub fn fetch(client: u32, topic: &str, partition: u32, offset: Option<i64>) -> Command {
    Command::Fetch { client, topic: topic.into(), partition, offset, min_bytes: None, max_wait_ms: None }
}

/// Three brokers, a replicated topic, producers with every acks setting and a
/// consumer, with small queues so jitter, round-robin connection assignment
/// and backpressure all matter.
pub fn determinism_run(seed: u64) -> Simulation {
    let config = ClusterConfig {
        brokers: 3,
        broker: BrokerConfig { num_network_threads: 2, num_io_threads: 2, queued_max_requests: 2, ..Default::default() },
        topics: vec![TopicSpec::new("orders", 3, 3), TopicSpec::new("audit", 1, 2)],
        clients: vec![
            ClientSpec::Producer(ProducerConfig::default()),
            ClientSpec::Producer(ProducerConfig { acks: 1, enable_idempotence: false, linger_ms: 0, ..Default::default() }),
            ClientSpec::Producer(ProducerConfig { acks: 0, enable_idempotence: false, ..Default::default() }),
            ClientSpec::Consumer(ConsumerConfig::default()),
        ],
        link_latency_ms: 2,
        link_jitter_ms: 3,
    };
    let mut sim = Simulation::new(config, seed).expect("valid config");
    for round in 0..5 {
        for client in 0..3 {
            let key = format!("key-{client}-{round}");
            let keyed = if round % 2 == 0 { Some(key.as_str()) } else { None };
            sim.command(produce(client, "orders", keyed, &format!("value-{round}"))).expect("valid command");
        }
        sim.command(produce(1, "audit", None, "audit")).expect("valid command");
        sim.run_until(sim.now_ms() + 7);
    }
    for p in 0..3 {
        sim.command(fetch(3, "orders", p, Some(0))).expect("valid command");
    }
    sim.run_until(2_000);
    sim
}

/// The trace hash of `determinism_run(42)`. If a change alters it on purpose,
/// update it here: the browser test then checks wasm agrees with native.
pub const GOLDEN_TRACE_HASH: u64 = 0x71ce947b44552a20;
