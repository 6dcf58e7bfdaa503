//! The trace: every hop and state change of a run, as typed events.
//!
//! The UI animates and narrates from these, the CLI prints them one per line,
//! and the determinism tests hash them. A trace event holds everything needed
//! to say in one sentence what happened, so no reader has to look inside a node.

use super::ids::{NodeId, RequestId, TopicPartition};
use super::log::segment::LookupPath;
use super::protocol::{ApiKey, ErrorCode};
use super::raft::output::RaftEvent;
use super::controller::MetadataRecord;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a request (or its response) is: the stages of Kafka's request path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Stage {
    /// Inside a client, before sending or after the response arrived.
    Client,
    /// On the network link between two nodes.
    Wire,
    /// Bytes that arrived and wait in the connection's socket receive buffer.
    SocketReceiveBuffer,
    /// A network thread (Kafka's Processor) reading or writing it.
    NetworkThread(u32),
    /// The broker's single shared request queue.
    RequestQueue,
    /// An I/O thread (Kafka's KafkaRequestHandler) running the API handler.
    IoThread(u32),
    /// Being appended to a partition's log.
    LogAppend,
    /// Being read from a partition's log.
    LogRead,
    /// Parked as a delayed operation.
    Purgatory,
    /// The network thread's own response queue.
    ResponseQueue(u32),
    /// Written to the connection's socket send buffer.
    SocketSendBuffer,
    /// The follower's replica fetcher thread for the leader `n`.
    ReplicaFetcher(u32),
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stage::Client => write!(f, "client"),
            Stage::Wire => write!(f, "wire"),
            Stage::SocketReceiveBuffer => write!(f, "socket-recv"),
            Stage::NetworkThread(n) => write!(f, "net-{n}"),
            Stage::RequestQueue => write!(f, "request-queue"),
            Stage::IoThread(n) => write!(f, "io-{n}"),
            Stage::LogAppend => write!(f, "log-append"),
            Stage::LogRead => write!(f, "log-read"),
            Stage::Purgatory => write!(f, "purgatory"),
            Stage::ResponseQueue(n) => write!(f, "response-queue-{n}"),
            Stage::SocketSendBuffer => write!(f, "socket-send"),
            Stage::ReplicaFetcher(n) => write!(f, "replica-fetcher-{n}"),
        }
    }
}

/// Is the thing moving the request or the response to it?
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Direction {
    Request,
    Response,
}

/// Up to where a fetch may read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReadBound {
    /// Consumers read only committed records.
    HighWatermark,
    /// Followers read everything the leader has.
    LogEndOffset,
}

/// What a delayed operation waits for, readable from its state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WaitReason {
    /// DelayedProduce: the HW must reach `required_offset`; `laggards` are
    /// the ISR followers (broker, LEO) still below the leader's LEO.
    HighWatermark { partition: TopicPartition, required_offset: i64, high_watermark: i64, laggards: Vec<(u32, i64)> },
    /// DelayedFetch: `fetch.min.bytes` not yet readable.
    MinBytes { min_bytes: i32, available_bytes: i64 },
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TraceKind {
    /// A broker process started its threads and periodic tasks.
    BrokerStarted { broker: u32 },
    /// A request or response moved one stage along the request path.
    Hop { request: RequestId, api: ApiKey, direction: Direction, from: Stage, to: Stage },
    /// A message left for `to`; it arrives at `arrives_at_ms`.
    Sent { request: RequestId, api: ApiKey, direction: Direction, to: NodeId, arrives_at_ms: u64 },
    /// The network thread stopped (or resumed) reading a connection: Kafka
    /// mutes a connection while its request is inside the broker.
    ConnectionMuted { client: NodeId, muted: bool },
    /// The network thread could not put a request on the full request queue.
    RequestQueueFull { request: RequestId, thread: u32, capacity: u32 },
    /// acks=0: the broker sends no response.
    NoResponse { request: RequestId, client: NodeId },
    /// Records were appended to a replica's log at these offsets.
    Appended {
        request: RequestId,
        partition: TopicPartition,
        replica: u32,
        base_offset: i64,
        last_offset: i64,
        log_end_offset: i64,
        segment: i64,
        position: u32,
    },
    /// A produce to one partition was refused with a Kafka error.
    ProduceRejected { request: RequestId, partition: TopicPartition, error: ErrorCode, detail: String },
    /// An idempotent producer's retry was recognised: not appended again.
    DuplicateBatch {
        request: RequestId,
        partition: TopicPartition,
        producer_id: i64,
        base_sequence: i32,
        original_base_offset: i64,
    },
    SegmentRolled { partition: TopicPartition, replica: u32, base_offset: i64, reason: String },
    SegmentDeleted { partition: TopicPartition, replica: u32, base_offset: i64, reason: String, log_start_offset: i64 },
    /// A fetch read a partition's log.
    LogRead {
        request: RequestId,
        partition: TopicPartition,
        replica: u32,
        fetch_offset: i64,
        bytes: u32,
        upper_bound: ReadBound,
        lookup: Option<LookupPath>,
        error: ErrorCode,
    },
    /// A request became a delayed operation in purgatory.
    Parked { request: RequestId, client: NodeId, operation: u64, waits: Vec<WaitReason>, timeout_ms: u64 },
    /// A delayed operation completed (`expired`: by its timeout).
    PurgatoryCompleted { request: RequestId, operation: u64, expired: bool },
    HighWatermarkAdvanced { partition: TopicPartition, replica: u32, from: i64, to: i64, isr: Vec<u32> },
    IsrShrunk { partition: TopicPartition, removed: Vec<u32>, lag_ms: u64, isr: Vec<u32> },
    IsrExpanded { partition: TopicPartition, replica: u32, follower_leo: i64, isr: Vec<u32> },
    /// A follower truncated its log to where it agrees with the leader.
    FollowerTruncated { partition: TopicPartition, replica: u32, to_offset: i64, epoch: i32 },
    /// A follower's high watermark followed the leader's.
    FollowerHighWatermark { partition: TopicPartition, replica: u32, high_watermark: i64 },
    /// A producer chose a partition for a record, and why.
    PartitionChosen { client: NodeId, partition: TopicPartition, reason: PartitionReason },
    /// A producer sealed a batch in its accumulator, ready to send.
    BatchReady { client: NodeId, partition: TopicPartition, records: u32, bytes: u32, reason: String },
    /// A client learned who leads which partition.
    MetadataUpdated { client: NodeId, leaders: Vec<(TopicPartition, Option<u32>)> },
    ProducerIdAssigned { client: NodeId, producer_id: i64, producer_epoch: i16 },
    /// A producer got the answer for a batch.
    ProduceCompleted { request: RequestId, partition: TopicPartition, base_offset: i64, error: ErrorCode, records: u32 },
    /// A producer will send a batch again.
    ProduceRetry { client: NodeId, partition: TopicPartition, error: ErrorCode, attempt: u32 },
    /// A consumer got records (or none) from a fetch.
    FetchCompleted {
        request: RequestId,
        partition: TopicPartition,
        records: u32,
        next_offset: i64,
        high_watermark: i64,
        error: ErrorCode,
    },
    /// A controller process started (`recovered`: from its durable log and
    /// quorum-state after a crash).
    ControllerStarted { controller: u32, recovered: bool, log_end_offset: i64 },
    /// A controller process crashed (killed by the user).
    ControllerStopped { controller: u32 },
    /// A quorum RPC left for another controller.
    RaftSent { rpc: String, to: NodeId, arrives_at_ms: u64 },
    /// A controller's Raft node changed state or decided something.
    Raft { controller: u32, event: RaftEvent },
    /// The Raft leader took up its duties as the active controller.
    ControllerActivated { controller: u32, epoch: i32 },
    /// The active controller appended a record to the metadata log.
    MetadataRecordAppended { controller: u32, offset: i64, record: MetadataRecord },
    /// No heartbeat from a broker for broker.session.timeout.ms: fenced.
    BrokerSessionExpired { broker: u32, last_heartbeat_ms: u64 },
    /// A broker registered with the active controller.
    BrokerRegistered { broker: u32, controller: u32, broker_epoch: i64 },
    /// A broker applied a committed metadata record.
    MetadataRecordApplied { broker: u32, offset: i64, record: MetadataRecord },
    /// A broker process crashed (killed by the user); its logs survive.
    BrokerStopped { broker: u32 },
    /// The user cut the network between two sets of nodes.
    NetworkPartitioned { a: Vec<NodeId>, b: Vec<NodeId> },
    /// The user healed every cut (`cuts` of them).
    NetworkHealed { cuts: u32 },
    /// A message reached a cut and was lost; no error goes back.
    MessageLost { from: NodeId, to: NodeId, what: String },
    /// `node` learned its connection to `peer` is gone: refused (the peer's
    /// process is down) or reset (it died with the connection open).
    Disconnected { node: NodeId, peer: NodeId, refused: bool },
    /// A broker was asked to shut down gracefully; its heartbeat now says
    /// wantShutDown.
    ControlledShutdownRequested { broker: u32 },
    /// The active controller put a broker in controlled shutdown: it wrote
    /// `partitions` partition changes moving leaders and ISRs off it.
    BrokerInControlledShutdown { broker: u32, controller: u32, partitions: u32 },
    /// The controller answered shouldShutDown and the broker stopped; its
    /// logs survive.
    BrokerShutDown { broker: u32 },
    /// No ISR replica was alive, and the topic allows
    /// `unclean.leader.election.enable`: the controller elected a replica
    /// from outside the ISR, which may lack committed records.
    UncleanLeaderElected { partition: TopicPartition, leader: u32, leader_epoch: i32, previous_isr: Vec<u32> },
}

/// Nodes as a comma-separated list.
fn node_list(nodes: &[NodeId]) -> String {
    nodes.iter().map(NodeId::to_string).collect::<Vec<_>>().join(", ")
}

impl TraceKind {
    /// A control-plane event a learner steps to with "Next controller
    /// event": a controller or broker starting or stopping, an election, a
    /// new active controller, a metadata record appended, committed (the
    /// Raft high watermark passing it) or applied by a broker, a broker's
    /// registration or expired session. Raft's routine fetches and the
    /// heartbeats are not: they come every few hundred milliseconds.
    pub fn is_controller_event(&self) -> bool {
        use super::raft::output::RaftEvent as R;
        match self {
            TraceKind::ControllerStarted { .. }
            | TraceKind::ControllerStopped { .. }
            | TraceKind::ControllerActivated { .. }
            | TraceKind::MetadataRecordAppended { .. }
            | TraceKind::MetadataRecordApplied { .. }
            | TraceKind::BrokerSessionExpired { .. }
            | TraceKind::BrokerRegistered { .. }
            | TraceKind::BrokerStarted { .. }
            | TraceKind::BrokerStopped { .. }
            | TraceKind::NetworkPartitioned { .. }
            | TraceKind::NetworkHealed { .. }
            | TraceKind::ControlledShutdownRequested { .. }
            | TraceKind::BrokerInControlledShutdown { .. }
            | TraceKind::BrokerShutDown { .. }
            | TraceKind::UncleanLeaderElected { .. } => true,
            TraceKind::Raft { event, .. } => matches!(
                event,
                R::BecameProspective { .. }
                    | R::BecameCandidate { .. }
                    | R::BecameLeader { .. }
                    | R::Resigned { .. }
                    | R::ElectionLost { .. }
                    | R::HighWatermarkAdvanced { .. }
            ),
            _ => false,
        }
    }

    /// The request this event is about, if it is about one. The UI follows a
    /// request with it, and tests pick a request's events out of the trace.
    pub fn request(&self) -> Option<RequestId> {
        match self {
            TraceKind::Hop { request, .. }
            | TraceKind::Sent { request, .. }
            | TraceKind::RequestQueueFull { request, .. }
            | TraceKind::NoResponse { request, .. }
            | TraceKind::Appended { request, .. }
            | TraceKind::ProduceRejected { request, .. }
            | TraceKind::DuplicateBatch { request, .. }
            | TraceKind::LogRead { request, .. }
            | TraceKind::Parked { request, .. }
            | TraceKind::PurgatoryCompleted { request, .. }
            | TraceKind::ProduceCompleted { request, .. }
            | TraceKind::FetchCompleted { request, .. } => Some(*request),
            _ => None,
        }
    }
}

/// One request's events, in trace order.
pub fn events_of(trace: &[TraceEvent], request: RequestId) -> Vec<&TraceEvent> {
    trace.iter().filter(|e| e.kind.request() == Some(request)).collect()
}

/// Why a producer's partitioner chose a partition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PartitionReason {
    /// `(murmur2(key) & 0x7fffffff) % partitions`.
    Keyed { murmur2: i32, positive: i32, partitions: u32 },
    /// No key: the sticky partitioner's choice.
    Sticky { detail: String },
    RoundRobin { counter: u32 },
    /// The record named its partition.
    Explicit,
}

/// One trace event: what happened, where, when, and in which step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceEvent {
    /// The index of the simulation step that produced it (steps count from 1).
    pub step: u64,
    pub time_ms: u64,
    pub node: NodeId,
    pub kind: TraceKind,
}

fn what(api: &ApiKey, direction: &Direction) -> String {
    match direction {
        Direction::Request => api.name().to_string(),
        Direction::Response => format!("{}Response", api.name()),
    }
}

impl fmt::Display for TraceEvent {
    /// One line a person can read, in the spirit of TigerBeetle's simulator
    /// log: time, step, node, then what happened.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:>8}ms #{:<5} {:<13} ", self.time_ms, self.step, self.node.to_string())?;
        match &self.kind {
            TraceKind::BrokerStarted { broker } => write!(f, "broker {broker} started"),
            TraceKind::Hop { request, api, direction, from, to } => {
                write!(f, "{request} {}: {from} -> {to}", what(api, direction))
            }
            TraceKind::Sent { request, api, direction, to, arrives_at_ms } => {
                write!(f, "{request} {}: sent to {to}, arrives at {arrives_at_ms}ms", what(api, direction))
            }
            TraceKind::ConnectionMuted { client, muted } => {
                write!(f, "connection of {client} {}", if *muted { "muted" } else { "unmuted" })
            }
            TraceKind::RequestQueueFull { request, thread, capacity } => {
                write!(f, "{request} net-{thread} blocked: request queue full ({capacity})")
            }
            TraceKind::NoResponse { request, client } => write!(f, "{request} acks=0: no response to {client}"),
            TraceKind::Appended { request, partition, replica, base_offset, last_offset, log_end_offset, segment, position } => {
                write!(
                    f,
                    "{request} appended to {partition} on {replica} at {base_offset}..={last_offset} (segment {segment}, position {position}), LEO {log_end_offset}"
                )
            }
            TraceKind::ProduceRejected { request, partition, error, detail } => {
                write!(f, "{request} produce to {partition} rejected: {error} {detail}")
            }
            TraceKind::DuplicateBatch { request, partition, producer_id, base_sequence, original_base_offset } => {
                write!(
                    f,
                    "{request} duplicate batch pid {producer_id} seq {base_sequence} on {partition}: already at offset {original_base_offset}"
                )
            }
            TraceKind::SegmentRolled { partition, replica, base_offset, reason } => {
                write!(f, "{partition} on {replica} rolled a new segment at {base_offset} ({reason})")
            }
            TraceKind::SegmentDeleted { partition, replica, base_offset, reason, log_start_offset } => {
                write!(
                    f,
                    "{partition} on {replica} deleted segment {base_offset} by {reason}; log start offset {log_start_offset}"
                )
            }
            TraceKind::LogRead { request, partition, replica, fetch_offset, bytes, upper_bound, error, .. } => {
                write!(
                    f,
                    "{request} read {partition} on {replica} from {fetch_offset}: {bytes} bytes up to {upper_bound:?} ({})",
                    error.name()
                )
            }
            TraceKind::Parked { request, operation, waits, timeout_ms, .. } => {
                write!(f, "{request} parked in purgatory as op {operation} for at most {timeout_ms}ms: {waits:?}")
            }
            TraceKind::PurgatoryCompleted { request, operation, expired } => {
                write!(f, "{request} op {operation} {}", if *expired { "expired" } else { "completed" })
            }
            TraceKind::HighWatermarkAdvanced { partition, replica, from, to, isr } => {
                write!(f, "{partition} on {replica} HW {from} -> {to} (ISR {isr:?})")
            }
            TraceKind::IsrShrunk { partition, removed, lag_ms, isr } => {
                write!(f, "{partition} ISR shrank: removed {removed:?} after {lag_ms}ms, ISR {isr:?}")
            }
            TraceKind::IsrExpanded { partition, replica, follower_leo, isr } => {
                write!(f, "{partition} ISR expanded: {replica} at LEO {follower_leo}, ISR {isr:?}")
            }
            TraceKind::FollowerTruncated { partition, replica, to_offset, epoch } => {
                write!(f, "{partition} on {replica} truncated to {to_offset} (diverged after epoch {epoch})")
            }
            TraceKind::FollowerHighWatermark { partition, replica, high_watermark } => {
                write!(f, "{partition} on {replica} follower HW {high_watermark}")
            }
            TraceKind::PartitionChosen { client, partition, reason } => {
                write!(f, "{client} chose {partition}: {reason:?}")
            }
            TraceKind::BatchReady { client, partition, records, bytes, reason } => {
                write!(f, "{client} batch for {partition} ready: {records} records, {bytes} bytes ({reason})")
            }
            TraceKind::MetadataUpdated { client, leaders } => write!(f, "{client} metadata: {leaders:?}"),
            TraceKind::ProducerIdAssigned { client, producer_id, producer_epoch } => {
                write!(f, "{client} producer id {producer_id} epoch {producer_epoch}")
            }
            TraceKind::ProduceCompleted { request, partition, base_offset, error, records } => {
                write!(f, "{request} produce of {records} to {partition} completed: {error}, base offset {base_offset}")
            }
            TraceKind::ProduceRetry { client, partition, error, attempt } => {
                write!(f, "{client} retries batch for {partition} after {error} (attempt {attempt})")
            }
            TraceKind::FetchCompleted { request, partition, records, next_offset, high_watermark, error } => {
                write!(
                    f,
                    "{request} fetch from {partition}: {records} records, next offset {next_offset}, HW {high_watermark} ({})",
                    error.name()
                )
            }
            TraceKind::ControllerStarted { controller, recovered, log_end_offset } => {
                if *recovered {
                    write!(f, "controller {controller} restarted from its log (end offset {log_end_offset})")
                } else {
                    write!(f, "controller {controller} started")
                }
            }
            TraceKind::ControllerStopped { controller } => write!(f, "controller {controller} stopped"),
            TraceKind::RaftSent { rpc, to, arrives_at_ms } => write!(f, "{rpc}: sent to {to}, arrives at {arrives_at_ms}ms"),
            TraceKind::Raft { controller, event } => write!(f, "controller {controller} raft: {event:?}"),
            TraceKind::ControllerActivated { controller, epoch } => {
                write!(f, "controller {controller} is the active controller (epoch {epoch})")
            }
            TraceKind::MetadataRecordAppended { controller, offset, record } => {
                write!(f, "controller {controller} appended metadata record {offset}: {record}")
            }
            TraceKind::BrokerSessionExpired { broker, last_heartbeat_ms } => {
                write!(f, "broker {broker} session expired (last heartbeat at {last_heartbeat_ms}ms): fencing")
            }
            TraceKind::BrokerRegistered { broker, controller, broker_epoch } => {
                write!(f, "broker {broker} registered with controller {controller}, broker epoch {broker_epoch}")
            }
            TraceKind::MetadataRecordApplied { broker, offset, record } => {
                write!(f, "broker {broker} applied metadata record {offset}: {record}")
            }
            TraceKind::BrokerStopped { broker } => write!(f, "broker {broker} stopped"),
            TraceKind::NetworkPartitioned { a, b } => {
                write!(f, "network partition: {} | {}", node_list(a), node_list(b))
            }
            TraceKind::NetworkHealed { cuts } => write!(f, "network healed ({cuts} cut{})", if *cuts == 1 { "" } else { "s" }),
            TraceKind::MessageLost { from, to, what } => write!(f, "{what} from {from} to {to} lost in the partition"),
            TraceKind::Disconnected { node, peer, refused } => {
                write!(f, "{node}: connection to {peer} {}", if *refused { "refused" } else { "reset" })
            }
            TraceKind::ControlledShutdownRequested { broker } => {
                write!(f, "broker {broker} begins controlled shutdown (wantShutDown)")
            }
            TraceKind::BrokerInControlledShutdown { broker, controller, partitions } => write!(
                f,
                "controller {controller} puts broker {broker} in controlled shutdown: {partitions} partition change(s)"
            ),
            TraceKind::BrokerShutDown { broker } => write!(f, "broker {broker} shut down cleanly"),
            TraceKind::UncleanLeaderElected { partition, leader, leader_epoch, previous_isr } => write!(
                f,
                "{partition} unclean leader election: {leader} leads epoch {leader_epoch} from outside the ISR {previous_isr:?}"
            ),
        }
    }
}
