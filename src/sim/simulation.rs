//! The discrete-event simulation: one event queue ordered by (time, sequence),
//! one RNG, the nodes, the links between them, and the trace.

use super::broker::{Broker, BrokerConfig};
use super::client::Client;
use super::ids::{NodeId, TopicPartition};
use super::node::{Ctx, Output, Timer};
use super::protocol::{Message, ProducerRecord};
use super::rng::SimRng;
use super::trace::{Direction, TraceEvent, TraceKind};
use super::view::{ClusterView, InFlightView};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap};
use std::fmt;

/// The shape of a cluster to simulate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ClusterConfig {
    pub brokers: u32,
    pub broker: BrokerConfig,
    pub topics: Vec<TopicSpec>,
    pub clients: u32,
    /// One-way latency of every link, before jitter.
    pub link_latency_ms: u64,
    /// Each message's latency gets a seeded extra in `[0, link_jitter_ms]`.
    pub link_jitter_ms: u64,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        Self {
            brokers: 1,
            broker: BrokerConfig::default(),
            topics: vec![TopicSpec { name: "orders".into(), partitions: 1 }],
            clients: 1,
            link_latency_ms: 2,
            link_jitter_ms: 1,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopicSpec {
    pub name: String,
    pub partitions: u32,
}

/// Why a configuration cannot be simulated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    NoBrokers,
    NoNetworkThreads,
    NoIoThreads,
    ZeroQueueCapacity,
    NoPartitions { topic: String },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NoBrokers => write!(f, "a cluster needs at least one broker"),
            ConfigError::NoNetworkThreads => write!(f, "num.network.threads must be at least 1"),
            ConfigError::NoIoThreads => write!(f, "num.io.threads must be at least 1"),
            ConfigError::ZeroQueueCapacity => write!(f, "queued.max.requests must be at least 1"),
            ConfigError::NoPartitions { topic } => write!(f, "topic {topic} needs at least one partition"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Something a user asks the cluster to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Command {
    Produce {
        client: u32,
        topic: String,
        key: Option<String>,
        value: Option<String>,
        acks: i16,
    },
}

/// Why a command was refused. The simulation's state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandError {
    UnknownClient(u32),
    UnknownTopic(String),
    InvalidAcks(i16),
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::UnknownClient(c) => write!(f, "there is no client {c}"),
            CommandError::UnknownTopic(t) => write!(f, "there is no topic named {t:?}"),
            CommandError::InvalidAcks(a) => {
                write!(f, "acks must be 0, 1 or -1 (all), not {a}: Kafka answers INVALID_REQUIRED_ACKS (21)")
            }
        }
    }
}

impl std::error::Error for CommandError {}

#[derive(Clone, Debug)]
enum Event {
    Deliver { from: NodeId, to: NodeId, msg: Message, sent_at_ms: u64 },
    Timer { node: NodeId, timer: Timer },
    Command(Command),
}

#[derive(Clone, Debug)]
struct Scheduled {
    at_ms: u64,
    seq: u64,
    event: Event,
}

// The heap is ordered by (time, sequence) alone: the sequence number is unique,
// so no two events compare equal and the order never depends on the payload.
impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.seq == other.seq
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap; reverse so the earliest event comes first.
        (other.at_ms, other.seq).cmp(&(self.at_ms, self.seq))
    }
}

#[derive(Clone, Debug)]
enum Node {
    Broker(Broker),
    Client(Client),
}

/// A whole simulated cluster. `Clone` is a full snapshot, which is how the UI
/// steps back.
#[derive(Clone, Debug)]
pub struct Simulation {
    config: ClusterConfig,
    seed: u64,
    now_ms: u64,
    steps: u64,
    next_seq: u64,
    queue: BinaryHeap<Scheduled>,
    rng: SimRng,
    nodes: BTreeMap<NodeId, Node>,
    /// The last arrival time on each directed link: TCP delivers in order, so
    /// jitter may delay a message but never let it overtake an earlier one.
    link_last_arrival_ms: BTreeMap<(NodeId, NodeId), u64>,
    /// Which broker leads each partition (fixed until the control plane exists).
    leaders: BTreeMap<TopicPartition, u32>,
    trace: Vec<TraceEvent>,
}

impl Simulation {
    pub fn new(config: ClusterConfig, seed: u64) -> Result<Self, ConfigError> {
        if config.brokers == 0 {
            return Err(ConfigError::NoBrokers);
        }
        if config.broker.num_network_threads == 0 {
            return Err(ConfigError::NoNetworkThreads);
        }
        if config.broker.num_io_threads == 0 {
            return Err(ConfigError::NoIoThreads);
        }
        if config.broker.queued_max_requests == 0 {
            return Err(ConfigError::ZeroQueueCapacity);
        }
        let mut nodes = BTreeMap::new();
        for b in 0..config.brokers {
            nodes.insert(NodeId::Broker(b), Node::Broker(Broker::new(b, config.broker.clone())));
        }
        for c in 0..config.clients {
            nodes.insert(NodeId::Client(c), Node::Client(Client::new(NodeId::Client(c))));
        }
        let mut leaders = BTreeMap::new();
        for topic in &config.topics {
            if topic.partitions == 0 {
                return Err(ConfigError::NoPartitions { topic: topic.name.clone() });
            }
            for p in 0..topic.partitions {
                let tp = TopicPartition::new(topic.name.clone(), p);
                let leader = p % config.brokers;
                if let Some(Node::Broker(b)) = nodes.get_mut(&NodeId::Broker(leader)) {
                    b.host_partition(tp.clone());
                }
                leaders.insert(tp, leader);
            }
        }
        Ok(Self {
            config,
            seed,
            now_ms: 0,
            steps: 0,
            next_seq: 0,
            queue: BinaryHeap::new(),
            rng: SimRng::new(seed),
            nodes,
            link_last_arrival_ms: BTreeMap::new(),
            leaders,
            trace: Vec::new(),
        })
    }

    pub fn config(&self) -> &ClusterConfig {
        &self.config
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    /// How many events have been processed.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Is there an event left to process?
    pub fn has_pending(&self) -> bool {
        !self.queue.is_empty()
    }

    pub fn trace(&self) -> &[TraceEvent] {
        &self.trace
    }

    /// The trace events of one step.
    pub fn trace_of_step(&self, step: u64) -> &[TraceEvent] {
        let start = self.trace.partition_point(|e| e.step < step);
        let end = self.trace.partition_point(|e| e.step <= step);
        &self.trace[start..end]
    }

    /// Accepts a user command; it runs as the next step at the current time.
    /// A refused command leaves the simulation exactly as it was.
    pub fn command(&mut self, command: Command) -> Result<(), CommandError> {
        match &command {
            Command::Produce { client, topic, acks, .. } => {
                if !self.nodes.contains_key(&NodeId::Client(*client)) {
                    return Err(CommandError::UnknownClient(*client));
                }
                if !self.config.topics.iter().any(|t| &t.name == topic) {
                    return Err(CommandError::UnknownTopic(topic.clone()));
                }
                if !matches!(acks, 0 | 1 | -1) {
                    return Err(CommandError::InvalidAcks(*acks));
                }
            }
        }
        self.schedule(0, Event::Command(command));
        Ok(())
    }

    fn schedule(&mut self, after_ms: u64, event: Event) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.push(Scheduled { at_ms: self.now_ms + after_ms, seq, event });
    }

    /// Processes the next event. Returns false when nothing is left to do.
    pub fn step(&mut self) -> bool {
        let Some(next) = self.queue.pop() else {
            return false;
        };
        self.now_ms = next.at_ms;
        self.steps += 1;
        let mut out = Vec::new();
        let node_id = match next.event {
            Event::Deliver { from, to, msg, .. } => {
                let mut ctx = Ctx { now_ms: self.now_ms, me: to, rng: &mut self.rng, out: &mut out };
                match self.nodes.get_mut(&to) {
                    Some(Node::Broker(b)) => b.on_message(&mut ctx, from, msg),
                    Some(Node::Client(c)) => c.on_message(&mut ctx, from, msg),
                    None => {}
                }
                to
            }
            Event::Timer { node, timer } => {
                let mut ctx = Ctx { now_ms: self.now_ms, me: node, rng: &mut self.rng, out: &mut out };
                match (self.nodes.get_mut(&node), timer) {
                    (Some(Node::Broker(b)), Timer::Broker(t)) => b.on_timer(&mut ctx, t),
                    (Some(Node::Client(_)), Timer::Client(t)) => match t {},
                    _ => {}
                }
                node
            }
            Event::Command(command) => self.run_command(command, &mut out),
        };
        self.apply(node_id, out);
        true
    }

    /// Steps until simulated time passes `until_ms` or nothing is left.
    pub fn run_until(&mut self, until_ms: u64) {
        while self.queue.peek().is_some_and(|e| e.at_ms <= until_ms) {
            self.step();
        }
    }

    fn run_command(&mut self, command: Command, out: &mut Vec<Output>) -> NodeId {
        match command {
            Command::Produce { client, topic, key, value, acks } => {
                let me = NodeId::Client(client);
                // The slice has one partition per topic key space; keyed
                // partitioning arrives with the partitioner.
                let partition = TopicPartition::new(topic, 0);
                let leader = NodeId::Broker(self.leaders.get(&partition).copied().unwrap_or(0));
                let record = ProducerRecord {
                    key: key.map(String::into_bytes),
                    value: value.map(String::into_bytes),
                    timestamp_ms: self.now_ms as i64,
                };
                let mut ctx = Ctx { now_ms: self.now_ms, me, rng: &mut self.rng, out };
                if let Some(Node::Client(c)) = self.nodes.get_mut(&me) {
                    c.produce(&mut ctx, leader, partition, record, acks);
                }
                me
            }
        }
    }

    fn apply(&mut self, node: NodeId, out: Vec<Output>) {
        for output in out {
            match output {
                Output::Send { to, msg } => {
                    let jitter = self.rng.range(0, self.config.link_jitter_ms + 1);
                    let mut arrives = self.now_ms + self.config.link_latency_ms + jitter;
                    let last = self.link_last_arrival_ms.entry((node, to)).or_insert(0);
                    arrives = arrives.max(*last);
                    *last = arrives;
                    let direction = match &msg {
                        Message::Request(_) => Direction::Request,
                        Message::Response(_) => Direction::Response,
                    };
                    self.record(
                        node,
                        TraceKind::Sent {
                            request: msg.request_id(),
                            api: msg.api_key(),
                            direction,
                            to,
                            arrives_at_ms: arrives,
                        },
                    );
                    let after = arrives - self.now_ms;
                    self.schedule(after, Event::Deliver { from: node, to, msg, sent_at_ms: self.now_ms });
                }
                Output::Timer { after_ms, timer } => self.schedule(after_ms, Event::Timer { node, timer }),
                Output::Trace(kind) => self.record(node, kind),
            }
        }
    }

    fn record(&mut self, node: NodeId, kind: TraceKind) {
        self.trace.push(TraceEvent { step: self.steps, time_ms: self.now_ms, node, kind });
    }

    /// A CRC-64 of the whole trace as text: equal hashes mean equal runs.
    pub fn trace_hash(&self) -> u64 {
        let crc = crc::Crc::<u64>::new(&crc::CRC_64_ECMA_182);
        let mut digest = crc.digest();
        for event in &self.trace {
            digest.update(event.to_string().as_bytes());
            digest.update(b"\n");
        }
        digest.finalize()
    }

    /// The plain structs the UI draws from.
    pub fn view(&self) -> ClusterView {
        let mut brokers = Vec::new();
        let mut clients = Vec::new();
        for node in self.nodes.values() {
            match node {
                Node::Broker(b) => brokers.push(b.view()),
                Node::Client(c) => clients.push(c.view()),
            }
        }
        let mut in_flight: Vec<InFlightView> = self
            .queue
            .iter()
            .filter_map(|s| match &s.event {
                Event::Deliver { from, to, msg, sent_at_ms } => Some(InFlightView {
                    from: *from,
                    to: *to,
                    request: msg.request_id(),
                    api: msg.api_key(),
                    direction: match msg {
                        Message::Request(_) => Direction::Request,
                        Message::Response(_) => Direction::Response,
                    },
                    sent_at_ms: *sent_at_ms,
                    arrives_at_ms: s.at_ms,
                }),
                _ => None,
            })
            .collect();
        // The heap's internal order is not meaningful; sort for a stable view.
        in_flight.sort_by_key(|f| (f.arrives_at_ms, f.request));
        ClusterView { time_ms: self.now_ms, step: self.steps, brokers, clients, in_flight }
    }
}
