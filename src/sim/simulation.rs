//! The discrete-event simulation: one event queue ordered by (time, sequence),
//! one RNG, the nodes, the links between them, and the trace.

use super::broker::{Broker, BrokerTimer, MetadataCache, PartitionAssignment};
use super::client::consumer::{Consumer, FetchSpec};
use super::client::producer::{Producer, ProducerRecord};
use super::client::Client;
use super::load::{KeyPattern, Load, LoadError, DEFAULT_VALUE_BYTES, MAX_FIXED_KEYS, MAX_RECORDS_PER_SEC};
use super::controller::{Controller, ControllerSetup};
use super::config::{BrokerConfig, ConsumerConfig, ProducerConfig, TopicConfig, TopicSpec};
use super::ids::{NodeId, TopicName, TopicPartition};
use super::log::log::LogError;
use super::metrics::{self, BrokerMeters, BrokerSample, LatencySample, Sample, TopicSample, SAMPLE_INTERVAL_MS};
use super::client::ClientTimer;
use super::controller::ControllerTimer;
use super::node::{Ctx, Output};
use super::placement::{assign_replicas, UsableBroker};
use super::protocol::{ErrorCode, Message};
use super::raft::config::RaftConfig;
use super::record::batch::Header;
use super::rng::SimRng;
use super::trace::{Direction, LeaderElection, MessageKind, TraceEvent, TraceKind};
use super::view::{BrokerStatus, ClusterView, ControllerView, InFlightView, QuorumView};
use serde::{Deserialize, Serialize};
use super::event_queue::{EventQueue, QueueOrder};
use crate::sim::collections::{sort_by, sort_by_key, BTreeMap, BTreeSet};
use std::fmt;

/// The most brokers a cluster may have. The core handles dozens; the UI
/// offers 1 to 9.
pub const MAX_BROKERS: u32 = 64;

/// The shape of a cluster to simulate.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClusterConfig {
    pub brokers: u32,
    pub broker: BrokerConfig,
    pub topics: Vec<TopicSpec>,
    pub clients: Vec<ClientSpec>,
    /// One-way latency of every link, before jitter.
    pub link_latency_ms: u64,
    /// Each message's latency gets a seeded extra in `[0, link_jitter_ms]`.
    pub link_jitter_ms: u64,
    /// Where the brokers learn who leads what.
    pub metadata: MetadataSource,
}

/// Where the brokers' metadata comes from. Every place the two differ
/// matches on this type, so the fixed source cannot hide in a magic number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum MetadataSource {
    /// A quorum of dedicated KRaft controllers (1, 3 or 5 voters) that
    /// elects an active controller, registers and fences the brokers,
    /// creates the topics and elects partition leaders: Kafka 4, and what
    /// the page always runs.
    Quorum {
        voters: u32,
        /// KIP-996 pre-vote: on, as in Kafka 4.0, a controller that lost its
        /// leader asks for pre-votes before it bumps the epoch; off shows
        /// the 3.x election.
        pre_vote: bool,
    },
    /// No control plane, a fixture for tests of the data plane alone: the
    /// brokers load one assignment at start and nothing ever changes it.
    /// Nothing fences, elects or times out a lost request, so stopping a
    /// broker and cutting the network are refused.
    Fixed,
}

impl MetadataSource {
    /// A quorum of `voters` controllers with Kafka 4.0's pre-vote.
    pub const fn quorum(voters: u32) -> Self {
        MetadataSource::Quorum { voters, pre_vote: true }
    }

    /// The controller ids, 0 up: none for the fixed source.
    pub fn voters(self) -> u32 {
        match self {
            MetadataSource::Quorum { voters, .. } => voters,
            MetadataSource::Fixed => 0,
        }
    }

    pub fn is_quorum(self) -> bool {
        matches!(self, MetadataSource::Quorum { .. })
    }

    /// Whether the quorum runs KIP-996 pre-votes (false for the fixed source,
    /// which has no quorum).
    pub fn pre_vote(self) -> bool {
        matches!(self, MetadataSource::Quorum { pre_vote: true, .. })
    }
}

/// A client to start: a producer or a consumer, with its configuration.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientSpec {
    Producer(ProducerConfig),
    Consumer(ConsumerConfig),
}

impl Default for ClusterConfig {
    fn default() -> Self {
        Self {
            brokers: 1,
            broker: BrokerConfig::default(),
            topics: vec![TopicSpec::new("orders", 1, 1)],
            clients: vec![ClientSpec::Producer(ProducerConfig::default()), ClientSpec::Consumer(ConsumerConfig::default())],
            link_latency_ms: 2,
            link_jitter_ms: 1,
            metadata: MetadataSource::quorum(3),
        }
    }
}

/// Why a configuration cannot be simulated, with the error Kafka gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub problem: ConfigProblem,
}

/// What is wrong with a configuration, as data: the page words it in each
/// language, and the CLI prints the English of [`fmt::Display`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigProblem {
    /// The cluster has no brokers or more than the simulation runs.
    Brokers(u32),
    /// A controller quorum has 1, 3 or 5 voters (or 0 for none).
    Controllers(u32),
    /// num.network.threads, num.io.threads or queued.max.requests is 0.
    NoThreads,
    /// replica.lag.time.max.ms below 2 or log.retention.check.interval.ms 0.
    LagOrRetentionCheck,
    /// Not a legal topic name.
    TopicName(String),
    /// Two topics share a name.
    TopicTwice(String),
    /// A topic has no partitions or more than 1000.
    Partitions { topic: String, partitions: u32 },
    /// A topic's replication factor is 0 or more than the brokers.
    ReplicationFactor { topic: String, replication_factor: u32, brokers: u32 },
    /// A topic setting below the range Kafka allows.
    TopicSetting { topic: String, name: &'static str, value: i64, minimum: i64 },
    /// A topic's min.insync.replicas is 0.
    MinInsyncReplicas { topic: String },
}

impl ConfigError {
    /// The error Kafka gives for the problem.
    pub fn error(&self) -> ErrorCode {
        match self.problem {
            ConfigProblem::TopicTwice(_) => ErrorCode::TopicAlreadyExists,
            ConfigProblem::Partitions { .. } => ErrorCode::InvalidPartitions,
            ConfigProblem::ReplicationFactor { .. } => ErrorCode::InvalidReplicationFactor,
            _ => ErrorCode::InvalidConfig,
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.error().name())?;
        match &self.problem {
            ConfigProblem::Brokers(n) => write!(f, "a cluster needs 1 to {MAX_BROKERS} brokers, not {n}"),
            ConfigProblem::Controllers(n) => write!(f, "a controller quorum has 1, 3 or 5 voters (or 0 for none), not {n}"),
            ConfigProblem::NoThreads => {
                f.write_str("num.network.threads, num.io.threads and queued.max.requests must each be at least 1")
            }
            ConfigProblem::LagOrRetentionCheck => {
                f.write_str("replica.lag.time.max.ms must be at least 2 and log.retention.check.interval.ms at least 1")
            }
            ConfigProblem::TopicName(name) => write!(
                f,
                "\"{name}\" is not a legal topic name: use 1 to 249 of a-z, A-Z, 0-9, '.', '_' and '-'"
            ),
            ConfigProblem::TopicTwice(topic) => write!(f, "topic {topic} is defined twice"),
            ConfigProblem::Partitions { topic, partitions } => {
                write!(f, "topic {topic} needs 1 to 1000 partitions, not {partitions}")
            }
            ConfigProblem::ReplicationFactor { topic, replication_factor, brokers } => write!(
                f,
                "topic {topic} has replication factor {replication_factor}, but the cluster has {brokers} broker{}",
                if *brokers == 1 { "" } else { "s" }
            ),
            ConfigProblem::TopicSetting { topic, name, value, minimum } => {
                write!(f, "topic {topic}: {name} = {value} is invalid: it must be at least {minimum}")
            }
            ConfigProblem::MinInsyncReplicas { topic } => write!(f, "topic {topic}: min.insync.replicas must be at least 1"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// Something a user asks the cluster to do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum Command {
    /// A producer's `send()`.
    Produce {
        client: u32,
        topic: String,
        #[serde(default)]
        key: Option<String>,
        #[serde(default)]
        value: Option<String>,
        #[serde(default)]
        headers: Vec<(String, String)>,
        #[serde(default)]
        partition: Option<u32>,
        /// CreateTime; the current simulated time when absent.
        #[serde(default)]
        timestamp_ms: Option<i64>,
    },
    /// A consumer's fetch of one partition.
    Fetch {
        client: u32,
        topic: String,
        partition: u32,
        #[serde(default)]
        offset: Option<i64>,
        #[serde(default)]
        min_bytes: Option<i32>,
        #[serde(default)]
        max_wait_ms: Option<i32>,
    },
    /// Crash a controller process: it loses its role, timers and
    /// connections; its metadata log and quorum-state survive.
    KillController { controller: u32 },
    /// Start a killed controller again from its durable state.
    RestartController { controller: u32 },
    /// Crash a broker: in-flight requests and all volatile state are lost;
    /// its partition logs survive. Needs a controller quorum.
    KillBroker { broker: u32 },
    /// Start a killed broker again: it registers, fetches the metadata log
    /// and its replicas catch up.
    RestartBroker { broker: u32 },
    /// Stop a broker gracefully (a controlled shutdown): its heartbeat asks
    /// the active controller to move its leaderships away and take it out
    /// of every ISR, and it stops only once the controller says so. It can
    /// be started again with `RestartBroker`.
    ShutdownBroker { broker: u32 },
    /// Cut the network between two sets of nodes, both ways: every message
    /// across the cut is lost, and no reset comes back, so each side finds
    /// out only through its own timeouts. Nodes in neither set still reach
    /// everyone. Cuts add up until `Heal`.
    Partition { a: NodeSet, b: NodeSet },
    /// Heal every cut: messages flow again (those already lost stay lost).
    Heal,
    /// Start a producer's load generator (in place of one running): a
    /// steady `records_per_sec` to `topic`, each value `value_bytes` long.
    StartLoad {
        client: u32,
        topic: String,
        records_per_sec: u32,
        #[serde(default)]
        keys: KeyPattern,
        #[serde(default = "default_value_bytes")]
        value_bytes: u32,
    },
    /// Stop a producer's load generator.
    StopLoad { client: u32 },
}

fn default_value_bytes() -> u32 {
    DEFAULT_VALUE_BYTES
}

/// Some nodes of the cluster, by kind, for a network partition.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NodeSet {
    pub brokers: Vec<u32>,
    pub controllers: Vec<u32>,
    pub clients: Vec<u32>,
}

impl NodeSet {
    pub fn nodes(&self) -> Vec<NodeId> {
        let brokers = self.brokers.iter().map(|b| NodeId::Broker(*b));
        let controllers = self.controllers.iter().map(|c| NodeId::Controller(*c));
        let clients = self.clients.iter().map(|c| NodeId::Client(*c));
        brokers.chain(controllers).chain(clients).collect()
    }
}

/// The largest record a producer accepts (`max.request.size`).
pub const MAX_REQUEST_SIZE: usize = 1_048_576;

/// Why a command was refused. The simulation's state is unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandError {
    UnknownClient(u32),
    NotAProducer(u32),
    NotAConsumer(u32),
    UnknownTopic(String),
    UnknownPartition(TopicPartition),
    RecordTooLarge { bytes: usize },
    NegativeOffset(i64),
    UnknownController(u32),
    ControllerAlreadyStopped(u32),
    ControllerAlreadyRunning(u32),
    UnknownBroker(u32),
    BrokerAlreadyStopped(u32),
    BrokerAlreadyRunning(u32),
    /// Killing brokers needs controllers to move leadership.
    NoControlPlane,
    BrokerAlreadyShuttingDown(u32),
    /// A partition names a node the cluster does not have.
    UnknownNode(NodeId),
    /// A partition puts the same node on both sides of the cut.
    NodeOnBothSides(NodeId),
    /// A partition with nobody on one side cuts nothing.
    EmptyPartitionSide,
    /// `Heal` with no cut in place.
    NoPartition,
    /// A load generator's rate is not within 1 to 1,000 records a second.
    LoadRate(u32),
    /// A load generator's fixed key set is empty or too large.
    LoadKeyCount(u32),
    /// `StopLoad` for a producer whose load generator is not running.
    NoLoad(u32),
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::UnknownClient(c) => write!(f, "there is no client {c}"),
            CommandError::NotAProducer(c) => write!(f, "client {c} is a consumer, not a producer"),
            CommandError::NotAConsumer(c) => write!(f, "client {c} is a producer, not a consumer"),
            CommandError::UnknownTopic(t) => write!(f, "there is no topic named \"{t}\" (UNKNOWN_TOPIC_OR_PARTITION)"),
            CommandError::UnknownPartition(tp) => write!(f, "there is no partition {tp} (UNKNOWN_TOPIC_OR_PARTITION)"),
            CommandError::RecordTooLarge { bytes } => write!(
                f,
                "the record is {bytes} bytes, more than the producer's max.request.size of {MAX_REQUEST_SIZE} bytes"
            ),
            CommandError::NegativeOffset(o) => write!(f, "a fetch offset cannot be negative ({o})"),
            CommandError::UnknownController(c) => write!(f, "there is no controller {c}"),
            CommandError::ControllerAlreadyStopped(c) => write!(f, "controller {c} is already stopped"),
            CommandError::ControllerAlreadyRunning(c) => write!(f, "controller {c} is already running"),
            CommandError::UnknownBroker(b) => write!(f, "there is no broker {b}"),
            CommandError::BrokerAlreadyStopped(b) => write!(f, "broker {b} is already stopped"),
            CommandError::BrokerAlreadyRunning(b) => write!(f, "broker {b} is already running"),
            CommandError::NoControlPlane => write!(
                f,
                "stopping a broker or cutting the network needs a controller quorum (controllers = 1, 3 or 5): without one nothing moves leaderships or times out lost requests"
            ),
            CommandError::BrokerAlreadyShuttingDown(b) => write!(f, "broker {b} is already shutting down"),
            CommandError::UnknownNode(n) => write!(f, "there is no {n} to cut off"),
            CommandError::NodeOnBothSides(n) => write!(f, "{n} cannot be on both sides of a network partition"),
            CommandError::EmptyPartitionSide => write!(f, "a network partition needs at least one node on each side"),
            CommandError::NoPartition => write!(f, "there is no network partition to heal"),
            CommandError::LoadRate(r) => {
                write!(f, "a load generator sends 1 to {MAX_RECORDS_PER_SEC} records a second, not {r}")
            }
            CommandError::LoadKeyCount(n) => write!(f, "a fixed key set has 1 to {MAX_FIXED_KEYS} keys, not {n}"),
            CommandError::NoLoad(c) => write!(f, "producer {c} is not running a load generator"),
        }
    }
}

impl std::error::Error for CommandError {}

/// A timer a node set for itself, tagged with the kind of node, as the event
/// queue keeps it. Each node sets only its own kind (`Ctx` is typed by it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Timer {
    Broker(BrokerTimer),
    Client(ClientTimer),
    Controller(ControllerTimer),
}

impl From<BrokerTimer> for Timer {
    fn from(t: BrokerTimer) -> Self {
        Timer::Broker(t)
    }
}

impl From<ClientTimer> for Timer {
    fn from(t: ClientTimer) -> Self {
        Timer::Client(t)
    }
}

impl From<ControllerTimer> for Timer {
    fn from(t: ControllerTimer) -> Self {
        Timer::Controller(t)
    }
}

/// One output list per kind of node. They serve every step, so a step
/// allocates nothing for its outputs once the lists have grown; only the
/// stepped node's list fills.
#[derive(Default)]
struct Outputs {
    broker: Vec<Output<BrokerTimer>>,
    client: Vec<Output<ClientTimer>>,
    controller: Vec<Output<ControllerTimer>>,
}

// The lists are empty between steps, and a snapshot or a debug print is
// only ever taken between steps: there is nothing to copy or show, and
// deriving either would add a copy of the code per kind of node to the page.
impl Clone for Outputs {
    fn clone(&self) -> Self {
        Outputs::default()
    }
}

impl fmt::Debug for Outputs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Outputs")
    }
}

#[derive(Clone, Debug)]
enum Event {
    /// `incarnation`: the receiver's when the message left; a message to an
    /// earlier incarnation (a connection that a crash reset) is dropped.
    Deliver { from: NodeId, to: NodeId, msg: Message, sent_at_ms: u64, incarnation: u32 },
    /// `incarnation`: the node's when it set the timer.
    Timer { node: NodeId, timer: Timer, incarnation: u32 },
    Command(Command),
    /// A controller process starts for the first time.
    ControllerStart(u32),
    /// `node` learns that its connection to `peer` is gone: the peer's
    /// process refused a connection (`refused`) or died with it open (its
    /// host answers with a reset). `incarnation`: `node`'s when it was sent.
    Disconnected { node: NodeId, peer: NodeId, refused: bool, incarnation: u32 },
}

#[derive(Clone, Debug)]
struct Scheduled {
    at_ms: u64,
    seq: u64,
    event: Event,
}

// The queue orders by (time, sequence) alone: the sequence number is unique,
// so no two events compare equal and the order never depends on the payload.
impl QueueOrder for Scheduled {
    fn at_ms(&self) -> u64 {
        self.at_ms
    }
    fn seq(&self) -> u64 {
        self.seq
    }
}

#[derive(Clone, Debug)]
enum Node {
    Broker(Box<Broker>),
    Client(Box<Client>),
    Controller(Box<Controller>),
}

/// The cluster's nodes in `NodeId` order (brokers, controllers, clients),
/// found by position instead of by a map search on every event: the set is
/// fixed when the simulation starts. It also keeps the last arrival time on
/// each directed link between them, in a matrix by the same positions.
#[derive(Clone, Debug)]
struct Nodes {
    list: Vec<(NodeId, Node)>,
    brokers: usize,
    controllers: usize,
    /// `links[from * len + to]`: the last arrival on that link, None while
    /// the two never exchanged a message. TCP delivers in order, so jitter
    /// may delay a message but never let it overtake an earlier one.
    links: Vec<Option<u64>>,
    /// The same for a link with a node the cluster does not have.
    other_links: BTreeMap<(NodeId, NodeId), u64>,
}

impl Nodes {
    fn new(nodes: BTreeMap<NodeId, Node>, brokers: u32, controllers: u32) -> Self {
        let list: Vec<(NodeId, Node)> = nodes.into_iter().collect();
        let links = vec![None; list.len() * list.len()];
        Self { list, brokers: brokers as usize, controllers: controllers as usize, links, other_links: BTreeMap::new() }
    }

    fn index(&self, id: &NodeId) -> Option<usize> {
        let i = match *id {
            NodeId::Broker(b) => b as usize,
            NodeId::Controller(c) => self.brokers + c as usize,
            NodeId::Client(c) => self.brokers + self.controllers + c as usize,
        };
        self.list.get(i).filter(|(n, _)| n == id).map(|_| i)
    }

    fn get(&self, id: &NodeId) -> Option<&Node> {
        self.index(id).map(|i| &self.list[i].1)
    }

    fn get_mut(&mut self, id: &NodeId) -> Option<&mut Node> {
        self.index(id).map(|i| &mut self.list[i].1)
    }

    fn contains_key(&self, id: &NodeId) -> bool {
        self.index(id).is_some()
    }

    fn values(&self) -> impl Iterator<Item = &Node> {
        self.list.iter().map(|(_, n)| n)
    }

    fn values_mut(&mut self) -> impl Iterator<Item = &mut Node> {
        self.list.iter_mut().map(|(_, n)| n)
    }

    /// The last arrival time on the link `from` -> `to`, 0 for a new link.
    fn last_arrival_mut(&mut self, from: NodeId, to: NodeId) -> &mut u64 {
        match (self.index(&from), self.index(&to)) {
            (Some(a), Some(b)) => self.links[a * self.list.len() + b].get_or_insert(0),
            _ => self.other_links.entry((from, to)).or_insert(0),
        }
    }

    /// Every node that ever exchanged a message with `node`, either way.
    fn peers(&self, node: NodeId) -> BTreeSet<NodeId> {
        let n = self.list.len();
        let matrix = (0..n * n).filter(|i| self.links[*i].is_some()).map(|i| (self.list[i / n].0, self.list[i % n].0));
        matrix
            .chain(self.other_links.keys().copied())
            .filter_map(|(a, b)| match (a == node, b == node) {
                (true, false) => Some(b),
                (false, true) => Some(a),
                _ => None,
            })
            .collect()
    }
}

/// A simulation without its trace, and how long the trace was (see
/// [`Simulation::snapshot`]).
#[derive(Clone, Debug)]
pub struct Snapshot {
    state: Simulation,
    trace_len: usize,
    samples_len: usize,
}

impl Snapshot {
    pub fn steps(&self) -> u64 {
        self.state.steps
    }

    /// The simulation forgot its first `events` trace events
    /// ([`Simulation::forget_trace`]): a restore cuts the trace back to
    /// what it holds.
    pub fn forget_trace(&mut self, events: usize) {
        self.trace_len = self.trace_len.saturating_sub(events);
    }
}

/// A whole simulated cluster. A [`Snapshot`] is a copy of it without the
/// trace, which is how the UI steps back; `Clone` copies the trace too.
#[derive(Debug)]
pub struct Simulation {
    config: ClusterConfig,
    seed: u64,
    now_ms: u64,
    steps: u64,
    next_seq: u64,
    queue: EventQueue<Scheduled>,
    rng: SimRng,
    /// The nodes, and the last arrival time on each link between them.
    nodes: Nodes,
    topics: BTreeMap<String, TopicSpec>,
    /// The trace up to now, `trace[..trace_end]`, and after it the events
    /// of a recorded future that a restore went back past: a deterministic
    /// run produces them again, so they are kept and a restore ahead needs
    /// no replay to get them back.
    trace: Vec<TraceEvent>,
    trace_end: usize,
    /// Keep the whole trace (the UI and tests), or only count events (benchmarks).
    record_trace: bool,
    /// Brokers that are down (killed and not restarted).
    down: BTreeSet<NodeId>,
    /// How many times each node restarted; absent means 0.
    incarnations: BTreeMap<NodeId, u32>,
    /// The network partitions in place: each cuts every link between its two
    /// sides, both ways.
    cuts: Vec<(BTreeSet<NodeId>, BTreeSet<NodeId>)>,
    /// The output lists handlers write to, empty between steps.
    outs: Outputs,
    /// The node the last step was handed to: only its state changed, so
    /// the invariant checker looks at it alone.
    last_node: Option<NodeId>,
    /// The last few leader elections of each partition, for the view: a
    /// new active controller does not know why its predecessor elected.
    elections: BTreeMap<TopicPartition, Vec<LeaderElection>>,
    /// The highest metadata high watermark any voter has known. A record
    /// below it is committed for good (Raft never loses one), even after
    /// the voter that knew it died: the survivors hold the record but learn
    /// that it is committed only from the next leader.
    metadata_committed: i64,
    /// The metrics sampled once a simulated second, kept like the trace:
    /// `samples[..samples_end]` up to now, the recorded future after it.
    samples: Vec<Sample>,
    samples_end: usize,
    /// When the next sample is due, and each broker's counters as the last
    /// sample saw them, to take rates from.
    next_sample_ms: u64,
    meters_seen: BTreeMap<u32, BrokerMeters>,
}

impl Clone for Simulation {
    fn clone(&self) -> Simulation {
        Simulation {
            trace: self.trace.clone(),
            trace_end: self.trace_end,
            samples: self.samples.clone(),
            samples_end: self.samples_end,
            ..self.copy_without_trace()
        }
    }
}

impl Simulation {
    /// Everything but the trace, copied: what a snapshot holds. Snapshots
    /// are the only copies the page makes, so it never links the trace's
    /// copying code.
    fn copy_without_trace(&self) -> Simulation {
        Simulation {
            config: self.config.clone(),
            seed: self.seed,
            now_ms: self.now_ms,
            steps: self.steps,
            next_seq: self.next_seq,
            queue: self.queue.clone(),
            rng: self.rng.clone(),
            nodes: self.nodes.clone(),
            topics: self.topics.clone(),
            record_trace: self.record_trace,
            down: self.down.clone(),
            incarnations: self.incarnations.clone(),
            cuts: self.cuts.clone(),
            outs: self.outs.clone(),
            last_node: self.last_node,
            elections: self.elections.clone(),
            metadata_committed: self.metadata_committed,
            trace: Vec::new(),
            trace_end: 0,
            samples: Vec::new(),
            samples_end: 0,
            next_sample_ms: self.next_sample_ms,
            meters_seen: self.meters_seen.clone(),
        }
    }
}

/// How many elections of a partition the view keeps: enough to find the
/// committed one behind elections written but not yet committed.
const ELECTIONS_KEPT: usize = 4;

/// What a message is, for the trace: its quorum or control-plane RPC name,
/// else its API and direction.
fn message_kind(msg: &Message) -> MessageKind {
    match (msg.control_plane_rpc(), msg) {
        (Some(rpc), _) => MessageKind::ControlPlane(rpc),
        (None, Message::Response(r)) => MessageKind::Response(r.api_key),
        (None, m) => MessageKind::Request(m.api_key()),
    }
}

/// Kafka's topic name rule: 1 to 249 of `[a-zA-Z0-9._-]`, not "." or "..".
fn valid_topic_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 249
        && name != "."
        && name != ".."
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn validate(config: &ClusterConfig) -> Result<(), ConfigError> {
    let refuse = |problem| Err(ConfigError { problem });
    if config.brokers == 0 || config.brokers > MAX_BROKERS {
        return refuse(ConfigProblem::Brokers(config.brokers));
    }
    let voters = config.metadata.voters();
    if config.metadata.is_quorum() && !matches!(voters, 1 | 3 | 5) {
        return refuse(ConfigProblem::Controllers(voters));
    }
    let b = &config.broker;
    if b.num_network_threads == 0 || b.num_io_threads == 0 || b.queued_max_requests == 0 {
        return refuse(ConfigProblem::NoThreads);
    }
    if b.replica_lag_time_max_ms < 2 || b.log_retention_check_interval_ms == 0 {
        return refuse(ConfigProblem::LagOrRetentionCheck);
    }
    let mut names = BTreeSet::new();
    for t in &config.topics {
        let topic = t.name.clone();
        if !valid_topic_name(&t.name) {
            return refuse(ConfigProblem::TopicName(topic));
        }
        if !names.insert(t.name.clone()) {
            return refuse(ConfigProblem::TopicTwice(topic));
        }
        if t.partitions == 0 || t.partitions > 1000 {
            return refuse(ConfigProblem::Partitions { topic, partitions: t.partitions });
        }
        if t.replication_factor == 0 || t.replication_factor > config.brokers {
            return refuse(ConfigProblem::ReplicationFactor {
                topic,
                replication_factor: t.replication_factor,
                brokers: config.brokers,
            });
        }
        // A range check is the only way LogConfig::validate fails.
        if let Err(LogError::InvalidConfig { name, value, minimum }) = t.config.log_config().validate() {
            return refuse(ConfigProblem::TopicSetting { topic, name, value, minimum });
        }
        if t.config.min_insync_replicas == Some(0) {
            return refuse(ConfigProblem::MinInsyncReplicas { topic });
        }
    }
    Ok(())
}

impl Simulation {
    pub fn new(config: ClusterConfig, seed: u64) -> Result<Self, ConfigError> {
        validate(&config)?;
        let mut rng = SimRng::new(seed);
        let broker_ids: Vec<u32> = (0..config.brokers).collect();
        let mut metadata = MetadataCache { brokers: broker_ids.clone(), ..MetadataCache::default() };
        // With controllers, the active controller creates the topics.
        let static_topics: &[TopicSpec] = match config.metadata {
            MetadataSource::Fixed => &config.topics,
            MetadataSource::Quorum { .. } => &[],
        };
        for t in static_topics {
            // One shared name for all of a topic's partitions: every copy of
            // them then compares by pointer instead of by string.
            let name = TopicName::from(t.name.as_str());
            let usable: Vec<UsableBroker> = broker_ids.iter().map(|id| UsableBroker { id: *id, fenced: false }).collect();
            // `validate` has checked the replication factor against the brokers.
            let assignment = assign_replicas(&usable, t.partitions, t.replication_factor, &mut rng).unwrap_or_default();
            for (p, replicas) in assignment.into_iter().enumerate() {
                metadata.partitions.insert(
                    TopicPartition::new(name.clone(), p as u32),
                    PartitionAssignment { leader: replicas.first().copied(), leader_epoch: 0, isr: replicas.clone(), replicas },
                );
            }
        }
        let topic_configs: BTreeMap<String, TopicConfig> =
            config.topics.iter().map(|t| (t.name.clone(), t.config.clone())).collect();
        let mut nodes = BTreeMap::new();
        let voters: Vec<u32> = (0..config.metadata.voters()).collect();
        for b in &broker_ids {
            let mut broker = Broker::new(*b, config.broker.clone());
            match config.metadata {
                MetadataSource::Fixed => broker.load_metadata(metadata.clone(), &topic_configs, 0),
                MetadataSource::Quorum { .. } => broker.enable_control_plane(voters.clone(), topic_configs.clone()),
            }
            nodes.insert(NodeId::Broker(*b), Node::Broker(Box::new(broker)));
        }
        for (i, spec) in config.clients.iter().enumerate() {
            let id = NodeId::Client(i as u32);
            let client = match spec {
                ClientSpec::Producer(c) => Client::Producer(Producer::new(id, c.clone(), broker_ids.clone())),
                ClientSpec::Consumer(c) => Client::Consumer(Consumer::new(id, c.clone(), broker_ids.clone())),
            };
            let mut client = client;
            if config.metadata.is_quorum() {
                let timeout_ms = match spec {
                    ClientSpec::Producer(c) => c.request_timeout_ms,
                    ClientSpec::Consumer(_) => 30_000,
                };
                client.set_metadata_timeout(timeout_ms);
            }
            nodes.insert(id, Node::Client(Box::new(client)));
        }
        let setup = ControllerSetup { brokers: config.brokers, topics: config.topics.clone() };
        for c in &voters {
            let controller = Controller::new(*c, &voters, RaftConfig { pre_vote: config.metadata.pre_vote(), ..RaftConfig::default() }, setup.clone());
            nodes.insert(NodeId::Controller(*c), Node::Controller(Box::new(controller)));
        }
        let nodes = Nodes::new(nodes, config.brokers, config.metadata.voters());
        let topics = config.topics.iter().map(|t| (t.name.clone(), t.clone())).collect();
        let mut sim = Self {
            config,
            seed,
            now_ms: 0,
            steps: 0,
            next_seq: 0,
            queue: EventQueue::new(),
            rng,
            nodes,
            topics,
            trace: Vec::new(),
            trace_end: 0,
            record_trace: true,
            down: Default::default(),
            incarnations: BTreeMap::new(),
            cuts: Vec::new(),
            outs: Outputs::default(),
            last_node: None,
            metadata_committed: 0,
            elections: BTreeMap::new(),
            samples: Vec::new(),
            samples_end: 0,
            next_sample_ms: SAMPLE_INTERVAL_MS,
            meters_seen: BTreeMap::new(),
        };
        for b in broker_ids {
            sim.schedule(0, Event::Timer { node: NodeId::Broker(b), timer: Timer::Broker(BrokerTimer::Startup), incarnation: 0 });
        }
        for c in voters {
            sim.schedule(0, Event::ControllerStart(c));
        }
        Ok(sim)
    }

    /// A copy of everything but the trace, which is append-only: a snapshot
    /// needs only its length. Cloning the whole trace at every snapshot would
    /// make a long session quadratic.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot { state: self.copy_without_trace(), trace_len: self.trace_end, samples_len: self.samples_end }
    }

    /// Goes to a snapshot of this same run, behind or ahead of here. Going
    /// back, the trace after the snapshot is kept as the recorded future
    /// ([`Simulation::trace_ahead`]); going ahead, the snapshot's trace is
    /// what that future holds, so no step in between is replayed. Panics if
    /// the snapshot is ahead of the recorded future.
    // Out of line: inlined into the session's jump, it made the page larger.
    #[inline(never)]
    pub fn restore(&mut self, snapshot: &Snapshot) {
        assert!(snapshot.trace_len <= self.trace.len(), "a snapshot of this run, within its recorded trace");
        debug_assert!(snapshot.samples_len <= self.samples.len());
        let trace = std::mem::take(&mut self.trace);
        let samples = std::mem::take(&mut self.samples);
        *self = Simulation {
            trace,
            trace_end: snapshot.trace_len,
            samples,
            samples_end: snapshot.samples_len,
            ..snapshot.state.copy_without_trace()
        };
    }

    /// The trace events after now that a restore went back past: the
    /// recorded future, which steps from here produce again.
    pub fn trace_ahead(&self) -> &[TraceEvent] {
        &self.trace[self.trace_end..]
    }

    /// Drops the recorded future's trace events: the run takes another way
    /// from here.
    pub fn cut_trace_ahead(&mut self) {
        self.trace.truncate(self.trace_end);
        self.samples.truncate(self.samples_end);
    }

    /// Forgets the first `events` trace events, freeing their memory: the
    /// session dropping the oldest part of its timeline. Snapshots taken
    /// before must forget them too ([`Snapshot::forget_trace`]).
    pub fn forget_trace(&mut self, events: usize) {
        let events = events.min(self.trace_end);
        self.trace = self.trace.split_off(events);
        self.trace_end -= events;
    }

    /// Stops keeping trace events (they are still counted); for benchmarks.
    pub fn set_record_trace(&mut self, record: bool) {
        self.record_trace = record;
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

    /// The node the last step was handed to (a dead node's dropped event
    /// included).
    pub fn last_node(&self) -> Option<NodeId> {
        self.last_node
    }

    pub fn has_pending(&self) -> bool {
        !self.queue.is_empty()
    }

    /// When the next event happens.
    pub fn next_event_ms(&self) -> Option<u64> {
        self.queue.peek().map(|e| e.at_ms)
    }

    pub fn trace(&self) -> &[TraceEvent] {
        &self.trace[..self.trace_end]
    }

    /// The metrics sampled so far, one a simulated second, oldest first.
    pub fn samples(&self) -> &[Sample] {
        &self.samples[..self.samples_end]
    }

    /// The samples of the recorded future a restore went back past, which
    /// steps from here take again: with [`Simulation::samples`], the whole
    /// run a chart draws.
    pub fn samples_ahead(&self) -> &[Sample] {
        &self.samples[self.samples_end..]
    }

    /// Samples the metrics of the second that ends at `next_sample_ms`
    /// (every event before it has run, none at or after it). Through the
    /// recorded future it computes the same sample again, since taking the
    /// latencies and the counters' last values is state the run carries,
    /// and keeps the one recorded.
    fn take_sample(&mut self) {
        let at_ms = self.next_sample_ms;
        self.next_sample_ms += SAMPLE_INTERVAL_MS;
        let mut brokers = Vec::new();
        let mut topics: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        for node in self.nodes.values() {
            let Node::Broker(b) = node else { continue };
            let id = b.id();
            let (m, seen) = (&b.meters, self.meters_seen.get(&id));
            let before = |f: fn(&BrokerMeters) -> u64| seen.map_or(0, f);
            for (topic, n) in m.messages_in.iter() {
                let bytes = m.bytes_in.get(topic).copied().unwrap_or(0);
                let (n0, bytes0) = seen.map_or((0, 0), |s| {
                    (s.messages_in.get(topic).copied().unwrap_or(0), s.bytes_in.get(topic).copied().unwrap_or(0))
                });
                let (tn, tb) = (n.saturating_sub(n0), bytes.saturating_sub(bytes0));
                match topics.get_mut(topic) {
                    Some(t) => {
                        t.0 += tn;
                        t.1 += tb;
                    }
                    None => {
                        topics.insert(topic.clone(), (tn, tb));
                    }
                }
            }
            let up = !self.down.contains(&NodeId::Broker(id));
            let network_busy = m.network_busy_ms.saturating_sub(before(|s| s.network_busy_ms));
            let io_busy = m.io_busy_ms.saturating_sub(before(|s| s.io_busy_ms));
            brokers.push(BrokerSample {
                broker: id,
                up,
                request_queue_size: b.request_queue.len() as u32,
                network_idle_permille: metrics::idle_permille(network_busy, b.network_threads.len() as u32, SAMPLE_INTERVAL_MS),
                request_handler_idle_permille: metrics::idle_permille(io_busy, b.io_threads.len() as u32, SAMPLE_INTERVAL_MS),
                produce_purgatory: b.produce_purgatory.watched_total() as u32,
                fetch_purgatory: b.fetch_purgatory.watched_total() as u32,
                under_replicated: b.partitions.values().filter(|p| p.is_leader(id) && p.isr.len() < p.replicas.len()).count() as u32,
                isr_shrinks: metrics::delta(m.isr_shrinks, before(|s| s.isr_shrinks)),
                isr_expands: metrics::delta(m.isr_expands, before(|s| s.isr_expands)),
            });
            self.meters_seen.insert(id, m.clone());
        }
        let mut latency = Vec::new();
        for node in self.nodes.values_mut() {
            let Node::Client(c) = node else { continue };
            let Client::Producer(p) = c.as_mut() else { continue };
            let mut answered = p.take_latencies();
            if answered.is_empty() {
                continue;
            }
            // The crate's insertion sort, not the slice's: a producer has a
            // few requests answered a second, and the slice sort was the
            // only one in the page, about 2 KB of its download.
            sort_by(&mut answered, Ord::cmp);
            let NodeId::Client(client) = p.id() else { continue };
            latency.push(LatencySample {
                client,
                acks: p.config().acks,
                requests: answered.len() as u32,
                p50_ms: metrics::percentile(&answered, 50),
                p99_ms: metrics::percentile(&answered, 99),
            });
        }
        let offline_partitions =
            self.committed_image().map_or(0, |image| image.partitions.values().filter(|p| p.leader.is_none()).count() as u32);
        let active_controllers = self.controllers().filter(|c| c.is_alive() && c.is_active()).map(Controller::id).collect();
        let sample = Sample {
            at_ms,
            brokers,
            topics: topics.into_iter().map(|(topic, (n, bytes))| TopicSample { topic, messages_in: n as u32, bytes_in: bytes }).collect(),
            latency,
            offline_partitions,
            active_controllers,
        };
        if self.samples_end < self.samples.len() {
            debug_assert_eq!(self.samples[self.samples_end], sample, "a replayed second sampled other metrics");
        } else {
            self.samples.push(sample);
        }
        self.samples_end += 1;
    }

    /// The trace events of one step.
    pub fn trace_of_step(&self, step: u64) -> &[TraceEvent] {
        let trace = self.trace();
        let start = trace.partition_point(|e| e.step < step);
        let end = trace.partition_point(|e| e.step <= step);
        &trace[start..end]
    }

    pub fn broker(&self, id: u32) -> Option<&Broker> {
        match self.nodes.get(&NodeId::Broker(id)) {
            Some(Node::Broker(b)) => Some(b),
            _ => None,
        }
    }

    pub fn controller(&self, id: u32) -> Option<&Controller> {
        match self.nodes.get(&NodeId::Controller(id)) {
            Some(Node::Controller(c)) => Some(c),
            _ => None,
        }
    }

    /// The controllers, in id order.
    pub fn controllers(&self) -> impl Iterator<Item = &Controller> {
        self.nodes.values().filter_map(|n| match n {
            Node::Controller(c) => Some(c.as_ref()),
            _ => None,
        })
    }

    /// The active controller: the live Raft leader. Right after a failover
    /// the old leader may still believe it leads (until check-quorum makes
    /// it resign); then the one with the highest epoch is the active one.
    pub fn active_controller(&self) -> Option<u32> {
        self.controllers()
            .filter(|c| c.is_active())
            .max_by_key(|c| c.raft().map_or(-1, |r| r.epoch()))
            .map(Controller::id)
    }

    pub fn producer(&self, client: u32) -> Option<&Producer> {
        match self.nodes.get(&NodeId::Client(client)) {
            Some(Node::Client(c)) => match c.as_ref() {
                Client::Producer(p) => Some(p),
                Client::Consumer(_) => None,
            },
            _ => None,
        }
    }

    pub fn consumer(&self, client: u32) -> Option<&Consumer> {
        match self.nodes.get(&NodeId::Client(client)) {
            Some(Node::Client(c)) => match c.as_ref() {
                Client::Consumer(x) => Some(x),
                Client::Producer(_) => None,
            },
            _ => None,
        }
    }

    pub fn topic(&self, name: &str) -> Option<&TopicSpec> {
        self.topics.get(name)
    }

    /// Accepts a user command; it runs as the next step at the current time.
    /// A refused command leaves the simulation exactly as it was.
    pub fn command(&mut self, command: Command) -> Result<(), CommandError> {
        self.check(&command)?;
        self.schedule(0, Event::Command(command));
        Ok(())
    }

    fn check_producer(&self, client: u32) -> Result<&Producer, CommandError> {
        self.producer(client).ok_or(match self.consumer(client) {
            Some(_) => CommandError::NotAProducer(client),
            None => CommandError::UnknownClient(client),
        })
    }

    fn check(&self, command: &Command) -> Result<(), CommandError> {
        match command {
            Command::StartLoad { client, topic, records_per_sec, keys, value_bytes } => {
                self.check_producer(*client)?;
                if !self.topics.contains_key(topic) {
                    return Err(CommandError::UnknownTopic(topic.clone()));
                }
                let load = Load { topic: topic.clone(), records_per_sec: *records_per_sec, keys: *keys, value_bytes: *value_bytes };
                match load.check() {
                    Err(LoadError::Rate(r)) => return Err(CommandError::LoadRate(r)),
                    Err(LoadError::KeyCount(n)) => return Err(CommandError::LoadKeyCount(n)),
                    Ok(()) => {}
                }
                let bytes = *value_bytes as usize + load.longest_key();
                if bytes > MAX_REQUEST_SIZE {
                    return Err(CommandError::RecordTooLarge { bytes });
                }
            }
            Command::StopLoad { client } => {
                if self.check_producer(*client)?.load().is_none() {
                    return Err(CommandError::NoLoad(*client));
                }
            }
            Command::Produce { client, topic, key, value, headers, partition, .. } => {
                self.check_producer(*client)?;
                let Some(spec) = self.topics.get(topic) else {
                    return Err(CommandError::UnknownTopic(topic.clone()));
                };
                if let Some(p) = partition {
                    if *p >= spec.partitions {
                        return Err(CommandError::UnknownPartition(TopicPartition::new(topic.clone(), *p)));
                    }
                }
                let bytes = key.as_ref().map_or(0, String::len)
                    + value.as_ref().map_or(0, String::len)
                    + headers.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>();
                if bytes > MAX_REQUEST_SIZE {
                    return Err(CommandError::RecordTooLarge { bytes });
                }
            }
            Command::Fetch { client, topic, partition, offset, .. } => {
                if self.consumer(*client).is_none() {
                    return Err(match self.producer(*client) {
                        Some(_) => CommandError::NotAConsumer(*client),
                        None => CommandError::UnknownClient(*client),
                    });
                }
                let Some(spec) = self.topics.get(topic) else {
                    return Err(CommandError::UnknownTopic(topic.clone()));
                };
                if *partition >= spec.partitions {
                    return Err(CommandError::UnknownPartition(TopicPartition::new(topic.clone(), *partition)));
                }
                if let Some(o) = offset {
                    if *o < 0 {
                        return Err(CommandError::NegativeOffset(*o));
                    }
                }
            }
            Command::KillController { controller } => match self.controller(*controller) {
                None => return Err(CommandError::UnknownController(*controller)),
                Some(c) if !c.is_alive() => return Err(CommandError::ControllerAlreadyStopped(*controller)),
                Some(_) => {}
            },
            Command::RestartController { controller } => match self.controller(*controller) {
                None => return Err(CommandError::UnknownController(*controller)),
                Some(c) if c.is_alive() => return Err(CommandError::ControllerAlreadyRunning(*controller)),
                Some(_) => {}
            },
            Command::KillBroker { broker } | Command::RestartBroker { broker } | Command::ShutdownBroker { broker } => {
                let Some(b) = self.broker(*broker) else {
                    return Err(CommandError::UnknownBroker(*broker));
                };
                if !self.config.metadata.is_quorum() {
                    return Err(CommandError::NoControlPlane);
                }
                let down = self.down.contains(&NodeId::Broker(*broker));
                match command {
                    Command::KillBroker { .. } | Command::ShutdownBroker { .. } if down => {
                        return Err(CommandError::BrokerAlreadyStopped(*broker))
                    }
                    Command::ShutdownBroker { .. } if b.is_shutting_down() => {
                        return Err(CommandError::BrokerAlreadyShuttingDown(*broker))
                    }
                    Command::RestartBroker { .. } if !down => return Err(CommandError::BrokerAlreadyRunning(*broker)),
                    _ => {}
                }
            }
            Command::Partition { a, b } => {
                // A static cluster arms no timeouts on metadata and replica
                // fetches (so its runs stay what they were): a request lost
                // in a cut would wait forever, even after the heal.
                if !self.config.metadata.is_quorum() {
                    return Err(CommandError::NoControlPlane);
                }
                let (a, b) = (a.nodes(), b.nodes());
                if a.is_empty() || b.is_empty() {
                    return Err(CommandError::EmptyPartitionSide);
                }
                if let Some(n) = a.iter().chain(&b).find(|n| !self.nodes.contains_key(n)) {
                    return Err(CommandError::UnknownNode(*n));
                }
                if let Some(n) = a.iter().find(|n| b.contains(n)) {
                    return Err(CommandError::NodeOnBothSides(*n));
                }
            }
            Command::Heal if self.cuts.is_empty() => return Err(CommandError::NoPartition),
            Command::Heal => {}
        }
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
        self.run_event(next);
        true
    }

    /// Hands one event taken from the queue to its node and carries out
    /// what the node emitted.
    fn run_event(&mut self, next: Scheduled) {
        while self.next_sample_ms <= next.at_ms {
            self.take_sample();
        }
        self.now_ms = next.at_ms;
        self.steps += 1;
        let mut outs = std::mem::take(&mut self.outs);
        let node_id = match next.event {
            Event::Deliver { from, to, msg, .. } if self.is_cut(from, to) => {
                // Lost on a partitioned network: nothing comes back, the
                // sender finds out only by its own timeout.
                self.record(to, TraceKind::MessageLost { from, to, what: message_kind(&msg) });
                to
            }
            Event::Deliver { from, to, incarnation, .. } if self.is_down(to) => {
                // The host is up but the process is not: it refuses the
                // connection, and the sender hears so one link latency later.
                // A message from before the crash was on a connection that
                // was reset already (`reset_connections`).
                if incarnation == self.incarnation(to) {
                    self.schedule_disconnect(from, to, true);
                }
                to
            }
            Event::Deliver { to, incarnation, .. } | Event::Timer { node: to, incarnation, .. }
                if self.down.contains(&to) || incarnation != self.incarnation(to) =>
            {
                // A crashed node, or a reset connection / an old incarnation's timer.
                to
            }
            Event::Disconnected { node, peer, incarnation, .. }
                if self.is_down(node) || incarnation != self.incarnation(node) || self.is_cut(node, peer) =>
            {
                // The reset is lost like any packet across a cut.
                node
            }
            Event::Disconnected { node, peer, refused, .. } => {
                self.record(node, TraceKind::Disconnected { node, peer, refused });
                let (now_ms, tracing) = (self.now_ms, self.record_trace);
                match self.nodes.get_mut(&node) {
                    Some(Node::Broker(b)) => {
                        b.on_disconnect(&mut Ctx { now_ms, me: node, rng: &mut self.rng, out: &mut outs.broker, tracing }, peer)
                    }
                    Some(Node::Client(c)) => {
                        c.on_disconnect(&mut Ctx { now_ms, me: node, rng: &mut self.rng, out: &mut outs.client, tracing }, peer)
                    }
                    // The quorum's own timeouts and retries cover a lost
                    // peer (KafkaRaftClient treats a failed request alike).
                    Some(Node::Controller(_)) | None => {}
                }
                node
            }
            Event::Deliver { from, to, msg, .. } => {
                let (now_ms, tracing) = (self.now_ms, self.record_trace);
                match self.nodes.get_mut(&to) {
                    Some(Node::Broker(b)) => {
                        b.on_message(&mut Ctx { now_ms, me: to, rng: &mut self.rng, out: &mut outs.broker, tracing }, from, msg)
                    }
                    Some(Node::Client(c)) => {
                        c.on_message(&mut Ctx { now_ms, me: to, rng: &mut self.rng, out: &mut outs.client, tracing }, from, msg)
                    }
                    Some(Node::Controller(c)) => {
                        c.on_message(&mut Ctx { now_ms, me: to, rng: &mut self.rng, out: &mut outs.controller, tracing }, from, msg)
                    }
                    None => {}
                }
                to
            }
            Event::Timer { node, timer, .. } => {
                let (now_ms, tracing) = (self.now_ms, self.record_trace);
                match (self.nodes.get_mut(&node), timer) {
                    (Some(Node::Broker(b)), Timer::Broker(t)) => {
                        let mut ctx = Ctx { now_ms, me: node, rng: &mut self.rng, out: &mut outs.broker, tracing };
                        if t == BrokerTimer::Startup {
                            ctx.trace(|| TraceKind::BrokerStarted { broker: b.id() });
                        }
                        b.on_timer(&mut ctx, t)
                    }
                    (Some(Node::Client(c)), Timer::Client(t)) => {
                        c.on_timer(&mut Ctx { now_ms, me: node, rng: &mut self.rng, out: &mut outs.client, tracing }, t)
                    }
                    (Some(Node::Controller(c)), Timer::Controller(t)) => {
                        c.on_timer(&mut Ctx { now_ms, me: node, rng: &mut self.rng, out: &mut outs.controller, tracing }, t)
                    }
                    _ => {}
                }
                node
            }
            Event::ControllerStart(id) => {
                let node = NodeId::Controller(id);
                let mut ctx = Ctx { now_ms: self.now_ms, me: node, rng: &mut self.rng, out: &mut outs.controller, tracing: self.record_trace };
                if let Some(Node::Controller(c)) = self.nodes.get_mut(&node) {
                    ctx.trace(|| TraceKind::ControllerStarted { controller: id, recovered: false, log_end_offset: 0 });
                    c.on_start(&mut ctx);
                }
                node
            }
            Event::Command(command) => self.run_command(command, &mut outs),
        };
        self.last_node = Some(node_id);
        self.apply(node_id, &mut outs.broker);
        self.apply(node_id, &mut outs.client);
        self.apply(node_id, &mut outs.controller);
        self.outs = outs;
        // Only a controller's step can move a metadata high watermark.
        if let NodeId::Controller(id) = node_id {
            if let Some(hw) = self.controller(id).and_then(|c| c.raft()?.high_watermark()) {
                self.metadata_committed = self.metadata_committed.max(hw);
            }
        }
    }

    /// Steps until simulated time passes `until_ms` or nothing is left.
    pub fn run_until(&mut self, until_ms: u64) {
        while let Some(next) = self.queue.pop_due(until_ms) {
            self.run_event(next);
        }
        self.now_ms = self.now_ms.max(until_ms);
    }

    fn run_command(&mut self, command: Command, outs: &mut Outputs) -> NodeId {
        let now = self.now_ms;
        match command {
            Command::StartLoad { client, topic, records_per_sec, keys, value_bytes } => {
                let me = NodeId::Client(client);
                let mut ctx = Ctx { now_ms: now, me, rng: &mut self.rng, out: &mut outs.client, tracing: self.record_trace };
                if let Some(Node::Client(c)) = self.nodes.get_mut(&me) {
                    if let Client::Producer(p) = c.as_mut() {
                        p.start_load(&mut ctx, Load { topic, records_per_sec, keys, value_bytes });
                    }
                }
                me
            }
            Command::StopLoad { client } => {
                let me = NodeId::Client(client);
                let mut ctx = Ctx { now_ms: now, me, rng: &mut self.rng, out: &mut outs.client, tracing: self.record_trace };
                if let Some(Node::Client(c)) = self.nodes.get_mut(&me) {
                    if let Client::Producer(p) = c.as_mut() {
                        p.stop_load(&mut ctx);
                    }
                }
                me
            }
            Command::Produce { client, topic, key, value, headers, partition, timestamp_ms } => {
                let me = NodeId::Client(client);
                let record = ProducerRecord {
                    topic,
                    partition,
                    key: key.map(String::into_bytes),
                    value: value.map(String::into_bytes),
                    headers: headers.into_iter().map(|(k, v)| Header { key: k, value: Some(v.into_bytes()) }).collect(),
                    timestamp_ms: timestamp_ms.unwrap_or(now as i64),
                };
                let mut ctx = Ctx { now_ms: now, me, rng: &mut self.rng, out: &mut outs.client, tracing: self.record_trace };
                if let Some(Node::Client(c)) = self.nodes.get_mut(&me) {
                    if let Client::Producer(p) = c.as_mut() {
                        p.send(&mut ctx, record);
                    }
                }
                me
            }
            Command::Fetch { client, topic, partition, offset, min_bytes, max_wait_ms } => {
                let me = NodeId::Client(client);
                let spec = FetchSpec { partition: TopicPartition::new(topic, partition), offset, min_bytes, max_wait_ms };
                let mut ctx = Ctx { now_ms: now, me, rng: &mut self.rng, out: &mut outs.client, tracing: self.record_trace };
                if let Some(Node::Client(c)) = self.nodes.get_mut(&me) {
                    if let Client::Consumer(x) = c.as_mut() {
                        x.fetch(&mut ctx, spec);
                    }
                }
                me
            }
            Command::KillBroker { broker } => {
                let me = NodeId::Broker(broker);
                if self.record_trace {
                    outs.broker.push(Output::Trace(TraceKind::BrokerStopped { broker }));
                }
                self.stop_broker(broker);
                me
            }
            Command::ShutdownBroker { broker } => {
                let me = NodeId::Broker(broker);
                let mut ctx = Ctx { now_ms: now, me, rng: &mut self.rng, out: &mut outs.broker, tracing: self.record_trace };
                if let Some(Node::Broker(b)) = self.nodes.get_mut(&me) {
                    b.begin_controlled_shutdown(&mut ctx);
                }
                me
            }
            Command::Partition { a, b } => {
                let (a, b): (BTreeSet<NodeId>, BTreeSet<NodeId>) =
                    (a.nodes().into_iter().collect(), b.nodes().into_iter().collect());
                if self.record_trace {
                    let (sa, sb) = (a.iter().copied().collect(), b.iter().copied().collect());
                    // The trace event names no node of its own; any list carries it.
                    outs.broker.push(Output::Trace(TraceKind::NetworkPartitioned { a: sa, b: sb }));
                }
                self.cuts.push((a, b));
                // The trace names no node of its own; the first of side a stands in.
                self.cuts.last().and_then(|(a, _)| a.first().copied()).unwrap_or(NodeId::Broker(0))
            }
            Command::Heal => {
                // As for a partition, the first node of the first cut stands in.
                let cuts = self.cuts.len() as u32;
                let first = self.cuts.first().and_then(|(a, _)| a.first().copied()).unwrap_or(NodeId::Broker(0));
                self.cuts.clear();
                if self.record_trace {
                    outs.broker.push(Output::Trace(TraceKind::NetworkHealed { cuts }));
                }
                first
            }
            Command::RestartBroker { broker } => {
                let me = NodeId::Broker(broker);
                self.down.remove(&me);
                // The new process starts its threads as the next step.
                outs.broker.push(Output::Timer { after_ms: 0, timer: BrokerTimer::Startup });
                me
            }
            Command::KillController { controller } | Command::RestartController { controller } => {
                let me = NodeId::Controller(controller);
                let restart = matches!(command, Command::RestartController { .. });
                let mut ctx = Ctx { now_ms: now, me, rng: &mut self.rng, out: &mut outs.controller, tracing: self.record_trace };
                if let Some(Node::Controller(c)) = self.nodes.get_mut(&me) {
                    if restart {
                        c.restart(&mut ctx);
                    } else if c.kill(&mut ctx) {
                        // Its timers and the messages on its connections die with it.
                        *self.incarnations.entry(me).or_insert(0) += 1;
                        self.reset_connections(me);
                    }
                }
                me
            }
        }
    }

    /// A broker process goes down (crashed, or done with its controlled
    /// shutdown): its volatile state goes, its logs stay, and every peer
    /// with a connection to it gets a reset.
    fn stop_broker(&mut self, broker: u32) {
        let me = NodeId::Broker(broker);
        if let Some(Node::Broker(b)) = self.nodes.get_mut(&me) {
            b.crash();
        }
        self.down.insert(me);
        *self.incarnations.entry(me).or_insert(0) += 1;
        self.reset_connections(me);
    }

    /// A process died with its connections open: its host's kernel resets
    /// each of them, so every peer that ever talked with it learns at once.
    fn reset_connections(&mut self, dead: NodeId) {
        for peer in self.nodes.peers(dead) {
            self.schedule_disconnect(peer, dead, false);
        }
    }

    /// Tells `node`, one link latency from now, that its connection to
    /// `peer` is gone.
    fn schedule_disconnect(&mut self, node: NodeId, peer: NodeId, refused: bool) {
        if self.is_down(node) || self.is_cut(node, peer) {
            return;
        }
        let incarnation = self.incarnation(node);
        self.schedule(self.config.link_latency_ms, Event::Disconnected { node, peer, refused, incarnation });
    }

    /// Whether a cut lies between two nodes.
    fn is_cut(&self, a: NodeId, b: NodeId) -> bool {
        self.cuts.iter().any(|(x, y)| (x.contains(&a) && y.contains(&b)) || (x.contains(&b) && y.contains(&a)))
    }

    /// Whether a node's process is down: a stopped broker or controller.
    fn is_down(&self, node: NodeId) -> bool {
        match self.nodes.get(&node) {
            Some(Node::Controller(c)) => !c.is_alive(),
            _ => self.down.contains(&node),
        }
    }

    /// The network partitions in place, as (side a, side b).
    pub fn network_partitions(&self) -> &[(BTreeSet<NodeId>, BTreeSet<NodeId>)] {
        &self.cuts
    }

    fn apply<T: Into<Timer>>(&mut self, node: NodeId, out: &mut Vec<Output<T>>) {
        let mut stop = false;
        for output in out.drain(..) {
            match output {
                Output::Send { to, msg } => self.send(node, to, msg),
                Output::Timer { after_ms, timer } => {
                    let incarnation = self.incarnation(node);
                    self.schedule(after_ms, Event::Timer { node, timer: timer.into(), incarnation })
                }
                Output::Trace(kind) => self.record(node, kind),
                Output::Stop => stop = true,
                Output::CloseConnection { peer } => self.schedule_disconnect(peer, node, false),
            }
        }
        // The process exits after its last words: what it emitted with the
        // request to stop still goes out.
        if let (true, NodeId::Broker(broker)) = (stop, node) {
            self.stop_broker(broker);
        }
    }

    /// Puts a message on the link from `node` to `to`: the bulk of carrying
    /// out an output, kept out of `apply`, which has a copy per kind of node.
    fn send(&mut self, node: NodeId, to: NodeId, msg: Message) {
        let jitter = self.rng.range(0, self.config.link_jitter_ms + 1);
        let mut arrives = self.now_ms + self.config.link_latency_ms + jitter;
        let last = self.nodes.last_arrival_mut(node, to);
        arrives = arrives.max(*last);
        *last = arrives;
        if let Some(rpc) = msg.control_plane_rpc() {
            self.record(node, TraceKind::RaftSent { rpc, to, arrives_at_ms: arrives });
        } else {
            let direction = match &msg {
                Message::Response(_) => Direction::Response,
                _ => Direction::Request,
            };
            self.record(node, TraceKind::Sent { request: msg.request_id(), api: msg.api_key(), direction, to, arrives_at_ms: arrives });
        }
        let after = arrives - self.now_ms;
        let incarnation = self.incarnation(to);
        self.schedule(after, Event::Deliver { from: node, to, msg, sent_at_ms: self.now_ms, incarnation });
    }

    fn incarnation(&self, node: NodeId) -> u32 {
        self.incarnations.get(&node).copied().unwrap_or(0)
    }

    /// How many issued commands have not run yet (each runs as a step of
    /// its own, after the events already due at the same time).
    pub fn pending_commands(&self) -> usize {
        self.queue.iter().filter(|s| matches!(s.event, Event::Command(_))).count()
    }

    /// Whether a broker is down (killed and not restarted).
    pub fn broker_is_down(&self, broker: u32) -> bool {
        self.down.contains(&NodeId::Broker(broker))
    }

    fn record(&mut self, node: NodeId, kind: TraceKind) {
        if let TraceKind::LeaderElected(e) = &kind {
            let kept = self.elections.entry(e.partition.clone()).or_default();
            if kept.len() == ELECTIONS_KEPT {
                kept.remove(0);
            }
            kept.push((**e).clone());
        }
        if self.record_trace {
            let event = TraceEvent { step: self.steps, time_ms: self.now_ms, node, kind };
            // Through the recorded future the same event comes again, since
            // the run is deterministic, and the kept one stands. Comparing
            // them in the page would link the whole of `TraceEvent`'s
            // equality (about 6 KB); the debug build checks.
            if self.trace_end < self.trace.len() {
                debug_assert_eq!(self.trace[self.trace_end], event, "a replayed step traced another event");
            } else {
                self.trace.push(event);
            }
            self.trace_end += 1;
        }
    }

    /// A CRC-64 of the whole trace, each event as JSON: equal hashes mean
    /// equal runs.
    pub fn trace_hash(&self) -> u64 {
        let crc = crc::Crc::<u64>::new(&crc::CRC_64_ECMA_182);
        let mut digest = crc.digest();
        for event in self.trace() {
            // The events' data, not their text: rewording a trace line must
            // not move the golden hash, only a change to the run may.
            let Ok(data) = serde_json::to_string(event) else { unreachable!("a trace event serializes") };
            digest.update(data.as_bytes());
            digest.update(b"\n");
        }
        digest.finalize()
    }

    /// The plain structs the UI draws from.
    pub fn view(&self) -> ClusterView {
        let mut brokers = Vec::new();
        let mut producers = Vec::new();
        let mut consumers = Vec::new();
        for node in self.nodes.values() {
            match node {
                Node::Broker(b) => brokers.push(b.view()),
                Node::Client(c) => match c.as_ref() {
                    Client::Producer(p) => producers.push(super::view::producer_view(p, self.now_ms)),
                    Client::Consumer(x) => consumers.push(super::view::consumer_view(x)),
                },
                Node::Controller(_) => {}
            }
        }
        let quorum = self.quorum_view();
        let image = self.committed_image();
        let sessions = match self.active_controller().and_then(|id| self.controller(id)) {
            Some(c) => c.broker_sessions(self.now_ms),
            None => Vec::new(),
        };
        // Each live broker's isr-expiration run to come, from the timer its
        // current incarnation armed.
        let mut isr_checks: BTreeMap<u32, u64> = BTreeMap::new();
        for s in self.queue.iter() {
            if let Event::Timer { node: node @ NodeId::Broker(b), timer: Timer::Broker(BrokerTimer::IsrExpiration), incarnation } = &s.event {
                if !self.down.contains(node) && *incarnation == self.incarnation(*node) {
                    let at = isr_checks.entry(*b).or_insert(s.at_ms);
                    *at = (*at).min(s.at_ms);
                }
            }
        }
        for b in &mut brokers {
            b.session = sessions.iter().find(|s| s.broker == b.id).copied();
            b.next_isr_expiration_ms = isr_checks.get(&b.id).copied();
            b.status = if self.down.contains(&NodeId::Broker(b.id)) {
                BrokerStatus::Stopped
            } else if self.broker(b.id).is_some_and(Broker::is_shutting_down) {
                BrokerStatus::ShuttingDown
            } else if self.config.metadata.is_quorum() && !image.as_ref().is_some_and(|i| i.is_unfenced(b.id)) {
                BrokerStatus::Fenced
            } else {
                BrokerStatus::Running
            };
        }
        let mut in_flight: Vec<InFlightView> = self
            .queue
            .iter()
            .filter_map(|s| match &s.event {
                Event::Deliver { from, to, msg, sent_at_ms, .. } => Some(InFlightView {
                    from: *from,
                    to: *to,
                    request: msg.request_id(),
                    api: msg.api_key(),
                    follower_fetch: matches!(msg, Message::Request(r) if r.is_follower_fetch())
                        || matches!((msg, msg.client()), (Message::Request(_) | Message::Response(_), NodeId::Broker(_))),
                    direction: match msg {
                        Message::Response(_) => Direction::Response,
                        Message::Control(c) if c.is_response() => Direction::Response,
                        Message::Raft { msg, .. } if !msg.is_request() => Direction::Response,
                        _ => Direction::Request,
                    },
                    sent_at_ms: *sent_at_ms,
                    arrives_at_ms: s.at_ms,
                    bytes: msg.payload_bytes(),
                    rpc: msg.raft_api().map(str::to_string),
                }),
                _ => None,
            })
            .collect();
        // The heap's internal order is not meaningful; sort for a stable view.
        sort_by_key(&mut in_flight, |f| (f.arrives_at_ms, f.request, f.from, f.to));
        let partitions = super::view::partition_views(&self.topics, &brokers, image.as_ref(), &self.elections);
        let network_cuts = self.cuts.iter().map(|(a, b)| (a.iter().copied().collect(), b.iter().copied().collect())).collect();
        ClusterView {
            time_ms: self.now_ms,
            step: self.steps,
            brokers,
            producers,
            consumers,
            partitions,
            in_flight,
            quorum,
            network_cuts,
            replica_lag_time_max_ms: self.config.broker.replica_lag_time_max_ms,
        }
    }

    /// The controller quorum as the UI draws it; None without controllers.
    fn quorum_view(&self) -> Option<QuorumView> {
        let MetadataSource::Quorum { voters, .. } = self.config.metadata else { return None };
        let active = self.active_controller();
        let controllers: Vec<ControllerView> = self
            .controllers()
            .map(|c| ControllerView {
                id: c.id(),
                alive: c.is_alive(),
                active: Some(c.id()) == active,
                raft: c.raft().map(|r| r.view()),
                log_end_offset: c.log_len(),
            })
            .collect();
        let epoch = controllers.iter().filter_map(|c| c.raft.as_ref().map(|r| r.epoch)).max().unwrap_or(0);
        Some(QuorumView { majority: voters / 2 + 1, controllers, active, epoch })
    }

    /// The committed metadata image the cluster acts on, as an observer who
    /// sees every voter knows it. None without controllers, or when every
    /// controller is down.
    pub fn committed_image(&self) -> Option<super::metadata::MetadataImage> {
        if !self.config.metadata.is_quorum() {
            return None;
        }
        // Committed records are the same prefix on every voter that holds
        // them (Raft never loses one), so the live voter with the longest
        // log shows the most of it. Bounded by the highest high watermark
        // any voter has known, not by one voter's own: a newly elected
        // leader knows none until it commits a record of its own epoch, and
        // after the active controller dies the survivors learn what it had
        // committed only from the next leader. Their own high watermarks
        // would show committed changes (a broker's unfencing) undone.
        let source = self
            .controllers()
            .filter(|c| c.is_alive())
            .max_by_key(|c| (c.raft().map_or(0, |r| r.log_end_offset()), std::cmp::Reverse(c.id())))?;
        Some(source.image_below(self.metadata_committed))
    }
}

impl Simulation {
    /// The segment inspector's data for one segment of one replica.
    pub fn inspect_segment(
        &self,
        partition: &TopicPartition,
        broker: u32,
        segment_base_offset: i64,
    ) -> Option<Vec<super::view::BatchInspection>> {
        super::view::inspect_segment(&self.broker(broker)?.partition(partition)?.log, segment_base_offset)
    }
}
