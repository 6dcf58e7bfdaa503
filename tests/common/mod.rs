//! Workloads shared by the native and the browser tests, so both run exactly
//! the same thing.
#![allow(dead_code)]

use kafkascope::sim::config::{BrokerConfig, ConsumerConfig, ProducerConfig, TopicSpec};
use kafkascope::sim::simulation::{ClientSpec, ClusterConfig, Command, MetadataSource, Simulation};

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
/// and backpressure all matter. On the fixed metadata source (no controller
/// quorum), so the data plane alone decides the run.
pub fn determinism_run(seed: u64) -> Simulation {
    determinism_workload(seed, MetadataSource::Fixed)
}

/// The same workload on the cluster a learner sees: a quorum of three
/// controllers elects an active controller, the brokers register and are
/// unfenced, the controller places the topics; the records are produced
/// once every partition has a leader that knows it leads.
pub fn determinism_run_kraft(seed: u64) -> Simulation {
    determinism_workload(seed, MetadataSource::quorum(3))
}

fn determinism_workload(seed: u64, metadata: MetadataSource) -> Simulation {
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
        metadata,
    };
    let mut sim = Simulation::new(config, seed).expect("valid config");
    if metadata.is_quorum() {
        let mut waited = 0;
        while !every_partition_is_led(&sim) {
            assert!(waited < 60_000, "seed {seed}: the cluster did not come up in 60 s");
            sim.run_until(sim.now_ms() + 10);
            waited += 10;
        }
    }
    let start = sim.now_ms();
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
    sim.run_until(start + 2_000);
    sim
}

/// Every partition of the four the workload uses has a leader whose own
/// replica knows it leads at the partition's current epoch.
fn every_partition_is_led(sim: &Simulation) -> bool {
    let view = sim.view();
    view.partitions.len() == 4 && view.every_partition_led()
}

/// The trace hash of `determinism_run(42)`. If a change alters it on purpose,
/// update it here: the browser test then checks wasm agrees with native. It
/// hashes each event's data as JSON, so rewording a trace line leaves it alone.
pub const GOLDEN_TRACE_HASH: u64 = 0xed52bd0496419202;

/// The trace hash of `determinism_run_kraft(42)`: the boot (election,
/// registrations, topic creation) and the same workload, on the metadata mode
/// the page runs.
pub const GOLDEN_KRAFT_TRACE_HASH: u64 = 0x240b77266f8b00f7;

/// The events benchmark's workload (`sim::workload::EventsWorkload`, seed
/// 1) run to this many events, short enough for a test: its golden hash is
/// what makes "the same run event for event" checkable for the benchmark,
/// which runs the same function, only longer.
pub const BENCH_EVENTS: u64 = 60_000;
pub const GOLDEN_BENCH_TRACE_HASH: u64 = 0xf1139295b53b872a;

/// The metrics samples of that same run, hashed by [`samples_hash`]: the
/// browser test checks wasm samples the same metrics as native.
pub const GOLDEN_BENCH_SAMPLES_HASH: u64 = 0xb956a21bca219d3b;

/// A hash of a simulation's metrics samples, from their Debug text (the
/// samples hold only integers, strings and lists, so the text is exact).
pub fn samples_hash(sim: &kafkascope::sim::simulation::Simulation) -> u64 {
    let crc = crc::Crc::<u64>::new(&crc::CRC_64_ECMA_182);
    crc.checksum(format!("{:?}", sim.samples()).as_bytes())
}

// ---------------------------------------------------------------------------
// Helpers of the data-plane tests (tests/dataplane_*.rs).
// ---------------------------------------------------------------------------

pub mod harness;

use kafkascope::sim::client::producer::RecordState;
use kafkascope::sim::ids::{NodeId, RequestId, TopicPartition};
use kafkascope::sim::protocol::ApiKey;
use kafkascope::sim::trace::{Direction, TraceEvent, TraceKind};

/// A cluster of `brokers` with these topics and clients, links of 2 ms and
/// 1 ms of jitter.
pub fn cluster(brokers: u32, broker: BrokerConfig, topics: Vec<TopicSpec>, clients: Vec<ClientSpec>) -> ClusterConfig {
    ClusterConfig { brokers, broker, topics, clients, link_latency_ms: 2, link_jitter_ms: 1, metadata: MetadataSource::Fixed }
}

/// A producer with this acks setting and linger.ms 0, idempotent only for acks=all.
pub fn producer(acks: i16) -> ClientSpec {
    ClientSpec::Producer(ProducerConfig { acks, enable_idempotence: acks == -1, linger_ms: 0, ..Default::default() })
}

pub fn consumer() -> ClientSpec {
    ClientSpec::Consumer(ConsumerConfig::default())
}

/// A record for an explicit partition.
pub fn produce_to(client: u32, topic: &str, partition: u32, key: Option<&str>, value: &str) -> Command {
    Command::Produce {
        client,
        topic: topic.into(),
        key: key.map(str::to_string),
        value: Some(value.into()),
        headers: vec![],
        partition: Some(partition),
        timestamp_ms: None,
    }
}

/// A consumer fetch with its own fetch.min.bytes and fetch.max.wait.ms.
pub fn fetch_with(client: u32, topic: &str, partition: u32, offset: Option<i64>, min_bytes: i32, max_wait_ms: i32) -> Command {
    Command::Fetch { client, topic: topic.into(), partition, offset, min_bytes: Some(min_bytes), max_wait_ms: Some(max_wait_ms) }
}

/// Runs `ms` more milliseconds of simulated time.
pub fn run_for(sim: &mut Simulation, ms: u64) {
    let until = sim.now_ms() + ms;
    sim.run_until(until);
}

/// The states of a producer's records, in send order.
pub fn states(sim: &Simulation, client: u32) -> Vec<RecordState> {
    sim.producer(client).unwrap().records().iter().map(|r| r.state.clone()).collect()
}

/// The acknowledged offsets of a producer's records, in send order.
pub fn acked(sim: &Simulation, client: u32) -> Vec<i64> {
    states(sim, client)
        .into_iter()
        .filter_map(|s| match s {
            RecordState::Acknowledged { offset } => Some(offset),
            _ => None,
        })
        .collect()
}

/// The leader of a partition, from the cluster view.
pub fn leader_of(sim: &Simulation, topic: &str, partition: u32) -> u32 {
    sim.view().partition(topic, partition).unwrap().leader.unwrap()
}

/// The followers of a partition, in assignment order.
pub fn followers_of(sim: &Simulation, topic: &str, partition: u32) -> Vec<u32> {
    let view = sim.view();
    let p = view.partition(topic, partition).unwrap();
    p.replicas.iter().copied().filter(|r| Some(*r) != p.leader).collect()
}

/// The raw bytes of every segment of one replica, oldest first.
pub fn segment_bytes(sim: &Simulation, broker: u32, tp: &TopicPartition) -> Vec<(String, Vec<u8>)> {
    let p = sim.broker(broker).unwrap().partition(tp).unwrap();
    p.log.segments().iter().map(|s| (s.file_name(".log"), s.log_bytes().to_vec())).collect()
}

/// The request id of every request of this api the client sent, in order.
pub fn sent_requests(trace: &[TraceEvent], client: NodeId, api: ApiKey) -> Vec<RequestId> {
    trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Sent { request, api: a, direction: Direction::Request, .. } if e.node == client && *a == api => {
                Some(*request)
            }
            _ => None,
        })
        .collect()
}

// Not every test file uses it; the allow keeps the others quiet.
#[allow(unused_imports)]
pub use kafkascope::sim::trace::events_of;

/// Kafka's murmur2 (Utils.murmur2), written out again here so the tests do
/// not check the simulation's partitioner against itself.
pub fn kafka_murmur2(data: &[u8]) -> i32 {
    let seed: u32 = 0x9747_b28c;
    let m: u32 = 0x5bd1_e995;
    let r = 24;
    let length = data.len();
    let mut h: u32 = seed ^ (length as u32);
    let words = length / 4;
    for i in 0..words {
        let b = &data[i * 4..i * 4 + 4];
        let mut k = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        k = k.wrapping_mul(m);
        k ^= k >> r;
        k = k.wrapping_mul(m);
        h = h.wrapping_mul(m);
        h ^= k;
    }
    let tail = &data[words * 4..];
    if tail.len() >= 3 {
        h ^= (tail[2] as u32) << 16;
    }
    if tail.len() >= 2 {
        h ^= (tail[1] as u32) << 8;
    }
    if !tail.is_empty() {
        h ^= tail[0] as u32;
        h = h.wrapping_mul(m);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(m);
    h ^= h >> 15;
    h as i32
}
