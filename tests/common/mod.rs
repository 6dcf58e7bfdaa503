//! A workload shared by the native and the browser determinism tests, so both
//! hash exactly the same run.

use kafkascope::sim::broker::BrokerConfig;
use kafkascope::sim::simulation::{ClusterConfig, Command, Simulation, TopicSpec};

/// Several clients producing at once to one broker with a tiny request queue,
/// so jitter, round-robin connection assignment and backpressure all matter.
pub fn determinism_run(seed: u64) -> Simulation {
    let config = ClusterConfig {
        brokers: 1,
        broker: BrokerConfig { num_network_threads: 2, num_io_threads: 2, queued_max_requests: 2, ..Default::default() },
        topics: vec![TopicSpec { name: "orders".into(), partitions: 1 }],
        clients: 4,
        link_latency_ms: 2,
        link_jitter_ms: 3,
    };
    let mut sim = Simulation::new(config, seed).expect("valid config");
    for round in 0..5 {
        for client in 0..4 {
            let produce = Command::Produce {
                client,
                topic: "orders".into(),
                key: Some(format!("key-{client}")),
                value: Some(format!("value-{round}")),
                acks: 1,
            };
            sim.command(produce).expect("valid command");
        }
        sim.run_until(sim.now_ms() + 3);
    }
    while sim.step() {}
    sim
}

/// The trace hash of `determinism_run(42)`. If a change alters it on purpose,
/// update it here: the browser test then checks wasm agrees with native.
pub const GOLDEN_TRACE_HASH: u64 = 0x645139648242c794;
