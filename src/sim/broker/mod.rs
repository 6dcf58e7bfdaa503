//! A broker: its request path ([`network`]), its replicas of partitions
//! ([`partition`]), the API handlers and purgatory ([`handlers`]), and the
//! replica fetchers that pull from other leaders ([`fetcher`]).

pub mod control;
pub mod fetcher;
pub mod handlers;
pub mod network;
pub mod partition;
pub mod producer_state;
mod view;

use super::config::{BrokerConfig, TopicConfig};
use super::ids::{NodeId, RequestId, TopicPartition};
use super::log::log::Log;
use super::node;
use super::protocol::{Message, Request, Response};
use super::purgatory::purgatory::Purgatory;
use super::trace::Stage;
use fetcher::ReplicaFetcher;
use handlers::{DelayedFetch, DelayedProduce, HandlerOutcome};
use partition::Partition;
use crate::sim::collections::{BTreeMap, BTreeSet};
use std::collections::VecDeque;


/// The context of a broker's handlers: its outputs can set only broker timers.
pub type Ctx<'a> = node::Ctx<'a, BrokerTimer>;

/// A broker's timers: each completes one hop of the request path or runs one
/// of Kafka's periodic tasks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrokerTimer {
    /// The broker process starts its threads and periodic tasks.
    Startup,
    /// A free network thread looks for a response to write or a request to read.
    NetworkPoll { thread: u32 },
    /// A network thread finished reading or writing.
    NetworkDone { thread: u32 },
    /// A connection's socket send buffer drains onto the wire.
    SocketFlush { client: NodeId },
    /// A free I/O thread takes the next request from the request queue.
    IoPoll { thread: u32 },
    /// An I/O thread's API handler runs (for Produce: the log append).
    IoHandle { thread: u32 },
    /// An I/O thread hands the response to a response queue, or parks the
    /// request in purgatory.
    IoRespond { thread: u32 },
    /// The purgatory's timing wheel reaches a bucket's expiration.
    PurgatoryTick,
    /// Kafka's `isr-expiration` task, every `replica.lag.time.max.ms / 2`.
    IsrExpiration,
    /// Kafka's `kafka-log-retention` task: first `log.initial.task.delay.ms`
    /// after startup, then every `log.retention.check.interval.ms`.
    RetentionCheck,
    /// The replica fetcher for `leader` sends its next Fetch.
    ReplicaFetch { leader: u32 },
    /// Control plane: time for the next BrokerRegistration or
    /// BrokerHeartbeat, scheduled for `due_ms` (a newer schedule makes this
    /// one stale).
    ControllerCommunication { due_ms: u64 },
    /// Control plane: fetch the metadata log again.
    MetadataFetch,
    /// Control plane: the reconnect backoff after a refused or reset
    /// connection to a controller is over.
    ControllerReconnect,
    /// Control plane: no answer to this request in time; try another
    /// controller.
    ControllerRequestTimeout { correlation_id: i32 },
    /// Control plane: send again every pending ISR change that has no
    /// AlterPartition in flight (AlterPartitionManager's retry after 50 ms).
    AlterPartitionRetry,
    /// A replica fetch had no answer within `replica.socket.timeout.ms`
    /// (its leader may be cut off): give it up and fetch again.
    ReplicaFetchTimeout { leader: u32, correlation_id: i32 },
}

/// A client connection as the broker sees it.
#[derive(Clone, Debug)]
pub(crate) struct Connection {
    pub(crate) network_thread: u32,
    /// Kafka mutes a connection after reading a request, so at most one
    /// request per connection is inside the broker and responses stay in order.
    pub(crate) muted: bool,
    pub(crate) receive_buffer: VecDeque<Request>,
    pub(crate) send_buffer: VecDeque<Response>,
}

#[derive(Clone, Debug)]
pub(crate) enum NetworkWork {
    Reading { client: NodeId, request: Request },
    Writing { client: NodeId, response: Response },
}

#[derive(Clone, Debug)]
pub(crate) struct NetworkThread {
    /// Connections this thread owns, in the order they were assigned.
    pub(crate) connections: Vec<NodeId>,
    /// Where the round-robin scan of connections resumes.
    pub(crate) next_connection: usize,
    pub(crate) work: Option<NetworkWork>,
    /// A request that could not go on the full request queue: the thread
    /// blocks on the put, which stops it serving all of its connections.
    pub(crate) blocked: Option<(NodeId, Request)>,
    pub(crate) response_queue: VecDeque<(NodeId, Response)>,
    pub(crate) poll_scheduled: bool,
}

#[derive(Clone, Debug)]
pub(crate) enum IoWork {
    Handling { client: NodeId, request: Request },
    /// The handler ran; the outcome waits at `stage` for the next hop.
    Done { client: NodeId, request: RequestId, api: super::protocol::ApiKey, outcome: HandlerOutcome, stage: Stage },
}

#[derive(Clone, Debug)]
pub(crate) struct IoThread {
    pub(crate) work: Option<IoWork>,
    pub(crate) poll_scheduled: bool,
}

/// What the broker knows of the cluster (Kafka's MetadataCache). Until the
/// control plane exists the simulation hands it over at start.
#[derive(Clone, Debug, Default)]
pub struct MetadataCache {
    /// The live brokers: registered and unfenced.
    pub brokers: Vec<u32>,
    /// Live brokers in controlled shutdown (BrokerRegistrationChangeRecord's
    /// InControlledShutdown): they may not join an ISR.
    pub shutting_down: Vec<u32>,
    pub partitions: BTreeMap<TopicPartition, PartitionAssignment>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionAssignment {
    pub replicas: Vec<u32>,
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub isr: Vec<u32>,
}

/// A broker.
#[derive(Clone, Debug)]
pub struct Broker {
    pub(crate) id: u32,
    pub(crate) config: BrokerConfig,
    pub(crate) connections: BTreeMap<NodeId, Connection>,
    pub(crate) next_network_thread: u32,
    pub(crate) network_threads: Vec<NetworkThread>,
    pub(crate) request_queue: VecDeque<(NodeId, Request)>,
    pub(crate) io_threads: Vec<IoThread>,
    pub(crate) partitions: BTreeMap<TopicPartition, Partition>,
    pub(crate) metadata: MetadataCache,
    pub(crate) produce_purgatory: Purgatory<TopicPartition, DelayedProduce>,
    pub(crate) fetch_purgatory: Purgatory<TopicPartition, DelayedFetch>,
    /// Times a PurgatoryTick is already scheduled for, so none is doubled.
    pub(crate) purgatory_ticks: BTreeSet<u64>,
    pub(crate) fetchers: BTreeMap<u32, ReplicaFetcher>,
    /// Correlation ids of the requests this broker's replica fetchers send.
    pub(crate) next_correlation_id: i32,
    /// Kafka's brokers get blocks of producer ids from the controller; here
    /// each broker owns the block starting at `id * 1_000_000`.
    pub(crate) next_producer_id: i64,
    /// The control plane, when the cluster runs controllers.
    pub(crate) control: Option<control::BrokerControl>,
    /// Running counts for the rate metrics the simulation samples.
    pub(crate) meters: super::metrics::BrokerMeters,
}

impl Broker {
    pub fn new(id: u32, config: BrokerConfig) -> Self {
        let network_threads = (0..config.num_network_threads)
            .map(|_| NetworkThread {
                connections: Vec::new(),
                next_connection: 0,
                work: None,
                blocked: None,
                response_queue: VecDeque::new(),
                poll_scheduled: false,
            })
            .collect();
        let io_threads =
            (0..config.num_io_threads).map(|_| IoThread { work: None, poll_scheduled: false }).collect();
        Self {
            id,
            config,
            connections: BTreeMap::new(),
            next_network_thread: 0,
            network_threads,
            request_queue: VecDeque::new(),
            io_threads,
            partitions: BTreeMap::new(),
            metadata: MetadataCache::default(),
            produce_purgatory: Purgatory::new(0),
            fetch_purgatory: Purgatory::new(0),
            purgatory_ticks: BTreeSet::new(),
            fetchers: BTreeMap::new(),
            next_correlation_id: 1,
            next_producer_id: id as i64 * 1_000_000,
            control: None,
            meters: Default::default(),
        }
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    pub fn config(&self) -> &BrokerConfig {
        &self.config
    }

    /// Takes the cluster metadata and creates the replicas this broker hosts
    /// (what the metadata log will tell it once the control plane exists).
    pub fn load_metadata(&mut self, metadata: MetadataCache, topic_configs: &BTreeMap<String, TopicConfig>, now_ms: u64) {
        for (tp, assignment) in &metadata.partitions {
            if !assignment.replicas.contains(&self.id) {
                continue;
            }
            let config = topic_configs.get(tp.topic.as_str()).cloned().unwrap_or_default();
            let Ok(log) = Log::new(config.log_config(), now_ms as i64) else { unreachable!("topic configs are validated before use") };
            let mut partition = Partition {
                tp: tp.clone(),
                config,
                replicas: assignment.replicas.clone(),
                leader: None,
                leader_epoch: -1,
                partition_epoch: 0,
                isr: assignment.isr.clone(),
                pending_isr: None,
                log,
                high_watermark: 0,
                followers: BTreeMap::new(),
                producer_state: Default::default(),
                broker_min_insync_replicas: self.config.min_insync_replicas,
            };
            if assignment.leader == Some(self.id) {
                partition.become_leader(self.id, assignment.leader_epoch, assignment.isr.clone(), now_ms);
            } else {
                partition.become_follower(assignment.leader, assignment.leader_epoch, assignment.isr.clone());
            }
            self.partitions.insert(tp.clone(), partition);
        }
        self.metadata = metadata;
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, from: NodeId, msg: Message) {
        match msg {
            Message::Request(request) => self.on_request(ctx, from, request),
            Message::Response(response) => self.on_fetcher_response(ctx, from, response),
            // Quorum RPCs are for controllers only.
            Message::Raft { .. } => {}
            Message::Control(c) => self.on_control_message(ctx, from, c),
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, timer: BrokerTimer) {
        match timer {
            BrokerTimer::Startup => self.startup(ctx),
            BrokerTimer::NetworkPoll { thread } => self.network_poll(ctx, thread),
            BrokerTimer::NetworkDone { thread } => self.network_done(ctx, thread),
            BrokerTimer::SocketFlush { client } => self.socket_flush(ctx, client),
            BrokerTimer::IoPoll { thread } => self.io_poll(ctx, thread),
            BrokerTimer::IoHandle { thread } => self.io_handle(ctx, thread),
            BrokerTimer::IoRespond { thread } => self.io_respond(ctx, thread),
            BrokerTimer::PurgatoryTick => self.purgatory_tick(ctx),
            BrokerTimer::IsrExpiration => self.isr_expiration(ctx),
            BrokerTimer::RetentionCheck => self.retention_check(ctx),
            BrokerTimer::ReplicaFetch { leader } => self.send_fetch(ctx, leader),
            BrokerTimer::ReplicaFetchTimeout { leader, correlation_id } => self.replica_fetch_timeout(ctx, leader, correlation_id),
            t @ (BrokerTimer::ControllerCommunication { .. }
            | BrokerTimer::MetadataFetch
            | BrokerTimer::ControllerReconnect
            | BrokerTimer::AlterPartitionRetry
            | BrokerTimer::ControllerRequestTimeout { .. }) => self.on_control_timer(ctx, t),
        }
    }

    fn startup(&mut self, ctx: &mut Ctx) {
        ctx.timer(self.config.replica_lag_time_max_ms / 2, BrokerTimer::IsrExpiration);
        // LogManager.startup schedules kafka-log-retention to run first after
        // log.initial.task.delay.ms, then every log.retention.check.interval.ms.
        ctx.timer(self.config.log_initial_task_delay_ms, BrokerTimer::RetentionCheck);
        self.start_fetchers(ctx);
        self.control_startup(ctx);
    }

    /// Puts a response on the response queue of the network thread that owns
    /// the connection, and wakes that thread.
    pub(crate) fn enqueue_response(&mut self, ctx: &mut Ctx, client: NodeId, response: Response, from: Stage) {
        let Some(conn) = self.connections.get(&client) else {
            return;
        };
        let thread = conn.network_thread;
        ctx.trace(|| super::trace::TraceKind::Hop {
            request: response.id,
            api: response.api_key,
            direction: super::trace::Direction::Response,
            from,
            to: Stage::ResponseQueue(thread),
        });
        self.network_threads[thread as usize].response_queue.push_back((client, response));
        self.wake_network_thread(ctx, thread);
    }

    /// Replicas this broker hosts, for tests and views.
    pub fn partition(&self, tp: &TopicPartition) -> Option<&Partition> {
        self.partitions.get(tp)
    }
}
