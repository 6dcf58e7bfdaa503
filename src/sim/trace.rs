//! The trace: every hop and state change of a run, as typed events.
//!
//! The UI animates and narrates from these, the CLI prints them one per line,
//! and the determinism tests hash them. A trace event holds everything needed
//! to say in one sentence what happened, so no reader has to look inside a node.

use super::ids::{NodeId, RequestId, TopicPartition};
use super::log::log::DeletionReason;
use super::log::segment::{LookupPath, RollReason};
use super::protocol::{ApiKey, ControlPlaneRpc, ErrorCode};
use super::raft::output::{ElectionCause, RaftEvent, ResignReason, VoteRejectReason};
use super::record::batch::ValidationError;
use super::record::partitioner::StickyReason;
use super::metadata::MetadataRecord;
use super::load::{KeyPattern, Load};
use super::prose::{and_list, brokers};
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

/// Why a producer's accumulator sealed a batch, so that the Sender may
/// drain it (RecordAccumulator.ready).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BatchReadyReason {
    /// The batch reached `batch.size`, or the next record would not fit.
    BatchSizeReached,
    /// `linger.ms` passed since the batch was opened.
    LingerPassed { linger_ms: u64 },
}

/// Why a leader refused a produce to one partition. The error code says what
/// Kafka answers; this says which of the leader's checks failed, with its
/// numbers, so each language can tell it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RejectReason {
    /// The broker holds no replica of the partition.
    NoReplica,
    /// The broker holds a replica but does not lead the partition.
    NotLeader { broker: u32 },
    /// acks=all and the ISR is smaller than `min.insync.replicas`.
    NotEnoughInSyncReplicas { isr: Vec<u32>, min_insync_replicas: u32 },
    /// The batch failed the leader's validation (size, CRC, layout).
    InvalidBatch(ValidationError),
    /// The batch header cannot be read or rewritten.
    UnreadableHeader,
    /// CreateTime outside `message.timestamp.before.max.ms` and
    /// `message.timestamp.after.max.ms` of the broker's clock.
    TimestampOutOfRange { timestamp: i64 },
    /// An idempotent producer's sequence skipped or repeated out of order.
    OutOfOrderSequence { expected: i32, got: i32 },
    /// An idempotent producer's epoch is older than the one the broker knows.
    ProducerFenced { current: i16, got: i16 },
    /// The batch is larger than a whole segment may be (`segment.bytes`).
    BatchLargerThanSegment { size_bytes: u32, segment_bytes: i32 },
    /// The log refused a batch that passed validation; the leader's checks
    /// make this unexpected.
    LogRefused,
}

/// A message by kind, as the trace names one that a network partition lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MessageKind {
    Request(ApiKey),
    Response(ApiKey),
    ControlPlane(ControlPlaneRpc),
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
    /// acks=0 and the produce failed: with no response to carry the error,
    /// the broker closes the connection (KafkaApis.handleProduceRequest,
    /// closeConnection), and the producer's disconnect makes it refresh
    /// its metadata.
    ConnectionClosed { request: RequestId, client: NodeId, error: ErrorCode },
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
    ProduceRejected { request: RequestId, partition: TopicPartition, error: ErrorCode, reason: RejectReason },
    /// An idempotent producer's retry was recognised: not appended again.
    DuplicateBatch {
        request: RequestId,
        partition: TopicPartition,
        producer_id: i64,
        base_sequence: i32,
        original_base_offset: i64,
    },
    /// A replica's log started a new segment before an append.
    SegmentRolled { partition: TopicPartition, replica: u32, base_offset: i64, reason: RollReason },
    /// Retention deleted a replica's oldest segment.
    SegmentDeleted { partition: TopicPartition, replica: u32, base_offset: i64, reason: DeletionReason, log_start_offset: i64 },
    /// A fetch read a partition's log.
    LogRead {
        request: RequestId,
        partition: TopicPartition,
        replica: u32,
        fetch_offset: i64,
        bytes: u32,
        upper_bound: ReadBound,
        /// Boxed, as the largest field of any event: every event is as
        /// large as the largest variant, and a long run keeps millions.
        lookup: Option<Box<LookupPath>>,
        error: ErrorCode,
    },
    /// A request became a delayed operation in purgatory.
    Parked { request: RequestId, client: NodeId, operation: u64, waits: Vec<WaitReason>, timeout_ms: u64 },
    /// A delayed operation completed (`expired`: by its timeout).
    PurgatoryCompleted { request: RequestId, operation: u64, expired: bool },
    HighWatermarkAdvanced { partition: TopicPartition, replica: u32, from: i64, to: i64, isr: Vec<u32> },
    IsrShrunk { partition: TopicPartition, removed: Box<[u32]>, lag_ms: u64, isr: Vec<u32> },
    IsrExpanded { partition: TopicPartition, replica: u32, follower_leo: i64, isr: Vec<u32> },
    /// A follower truncated its log to where it agrees with the leader.
    FollowerTruncated { partition: TopicPartition, replica: u32, to_offset: i64, epoch: i32 },
    /// A follower's high watermark followed the leader's.
    FollowerHighWatermark { partition: TopicPartition, replica: u32, high_watermark: i64 },
    /// A producer chose a partition for a record, and why.
    PartitionChosen { client: NodeId, partition: TopicPartition, reason: PartitionReason },
    /// A producer sealed a batch in its accumulator, ready to send.
    BatchReady { client: NodeId, partition: TopicPartition, records: u32, bytes: u32, reason: BatchReadyReason },
    /// A client learned who leads which partition.
    MetadataUpdated { client: NodeId, leaders: Vec<(TopicPartition, Option<u32>)> },
    ProducerIdAssigned { client: NodeId, producer_id: i64, producer_epoch: i16 },
    /// A producer got the answer for a batch.
    ProduceCompleted { request: RequestId, partition: TopicPartition, base_offset: i64, error: ErrorCode, records: u32 },
    /// A producer started a load generator: a steady stream of records.
    LoadStarted { client: NodeId, load: Box<Load> },
    /// A producer stopped its load generator after `sent` records.
    LoadStopped { client: NodeId, sent: u64 },
    /// A producer will send a batch again.
    ProduceRetry { client: NodeId, partition: TopicPartition, error: ErrorCode, attempt: u32 },
    /// The leader refused a producer's batch of several records as too
    /// large (MESSAGE_TOO_LARGE), so the producer split it by `batch.size`
    /// into `batches` and queued them again as if never tried
    /// (Sender.completeBatch, RecordAccumulator.splitAndReenqueue).
    BatchSplit { client: NodeId, partition: TopicPartition, records: u32, bytes: u32, batch_size: u32, batches: u32 },
    /// A batch was still waiting in the producer `delivery.timeout.ms`
    /// after it was created, so the producer failed it with a
    /// TimeoutException (RecordAccumulator.expiredBatches).
    BatchExpired { client: NodeId, partition: TopicPartition, records: u32, delivery_timeout_ms: u64 },
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
    RaftSent { rpc: ControlPlaneRpc, to: NodeId, arrives_at_ms: u64 },
    /// A controller's Raft node changed state or decided something.
    Raft { controller: u32, event: RaftEvent },
    /// The Raft leader took up its duties as the active controller.
    ControllerActivated { controller: u32, epoch: i32 },
    /// The active controller appended a record to the metadata log.
    MetadataRecordAppended { controller: u32, offset: i64, record: Box<MetadataRecord> },
    /// No heartbeat from a broker for broker.session.timeout.ms: fenced.
    BrokerSessionExpired { broker: u32, last_heartbeat_ms: u64 },
    /// A broker registered with the active controller.
    BrokerRegistered { broker: u32, controller: u32, broker_epoch: i64 },
    /// The active controller refused a broker's registration with
    /// DUPLICATE_BROKER_REGISTRATION: a registration under that id from
    /// another start of the process still has a valid session, until
    /// `session_ends_ms` unless that process heartbeats again.
    BrokerRegistrationRefused { broker: u32, controller: u32, session_ends_ms: u64 },
    /// A broker applied a committed metadata record.
    MetadataRecordApplied { broker: u32, offset: i64, record: Box<MetadataRecord> },
    /// A broker process crashed (killed by the user); its logs survive.
    BrokerStopped { broker: u32 },
    /// The user cut the network between two sets of nodes.
    NetworkPartitioned { a: Vec<NodeId>, b: Vec<NodeId> },
    /// The user healed every cut (`cuts` of them).
    NetworkHealed { cuts: u32 },
    /// A message reached a cut and was lost; no error goes back.
    MessageLost { from: NodeId, to: NodeId, what: MessageKind },
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
    /// The active controller wrote a partition change that gives a
    /// partition a new leader, or none: the election and why.
    LeaderElected(Box<LeaderElection>),
}

/// One leader election by the active controller, as data: who leads in
/// which leader epoch, what set it off, and which replicas ahead of the new
/// leader in assignment order could not lead. The partition's "Why?" tells
/// the last one for its current leader epoch instead of guessing the rule
/// again from the cluster's state now (which may have changed since).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderElection {
    pub controller: u32,
    pub partition: TopicPartition,
    /// None: no replica could lead, and the partition is offline.
    pub leader: Option<u32>,
    pub previous: Option<u32>,
    pub leader_epoch: i32,
    pub trigger: ElectionTrigger,
    /// The leader comes from outside the ISR
    /// (`unclean.leader.election.enable`), and may lack committed records.
    pub unclean: bool,
    /// The replicas before the leader in assignment order, each with what
    /// kept it from leading (all of them when there is no leader).
    pub passed_over: Vec<(u32, Standing)>,
    /// The ISR before the change.
    pub previous_isr: Vec<u32>,
}

/// What made the controller elect: the ReplicationControlManager path that
/// built the PartitionChangeRecord.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ElectionTrigger {
    /// The leader's session expired and the controller fenced it
    /// (maybeFenceOneStaleBroker).
    LeaderFenced,
    /// The leader asked for a controlled shutdown
    /// (handleBrokerInControlledShutdown).
    LeaderShuttingDown,
    /// The leader's broker registered again as a new process
    /// (handleBrokerUncleanShutdown).
    LeaderRestarted,
    /// A replica of an offline partition was unfenced
    /// (handleBrokerUnfenced).
    ReplicaReturned { broker: u32 },
}

/// Why the controller could not pick a replica as leader
/// (PartitionChangeBuilder's isAcceptableLeader).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Standing {
    Fenced,
    /// In a controlled shutdown: the controller moves leadership off it.
    ShuttingDown,
    /// Alive, but not in the ISR, and the election was clean.
    OutOfIsr,
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
            | TraceKind::BrokerRegistrationRefused { .. }
            | TraceKind::BrokerStarted { .. }
            | TraceKind::BrokerStopped { .. }
            | TraceKind::NetworkPartitioned { .. }
            | TraceKind::NetworkHealed { .. }
            | TraceKind::ControlledShutdownRequested { .. }
            | TraceKind::BrokerInControlledShutdown { .. }
            | TraceKind::BrokerShutDown { .. }
            | TraceKind::LeaderElected(_) => true,
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
            | TraceKind::ConnectionClosed { request, .. }
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
    Sticky { reason: StickyReason },
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

/// "offset 7" or "offsets 40 to 44".
fn offsets(first: i64, last: i64) -> String {
    if first == last {
        format!("offset {first}")
    } else {
        format!("offsets {first} to {last}")
    }
}

/// "vote" or "pre-vote".
fn vote(pre_vote: bool) -> &'static str {
    if pre_vote {
        "pre-vote"
    } else {
        "vote"
    }
}

impl fmt::Display for ReadBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadBound::HighWatermark => write!(f, "the high watermark"),
            ReadBound::LogEndOffset => write!(f, "the log end offset"),
        }
    }
}

impl fmt::Display for WaitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaitReason::HighWatermark { partition, required_offset, high_watermark, laggards } => {
                write!(f, "until the HW of {partition} reaches {required_offset} (now {high_watermark}")?;
                for (broker, leo) in laggards {
                    write!(f, "; follower {broker} at {leo}")?;
                }
                write!(f, ")")
            }
            WaitReason::MinBytes { min_bytes, available_bytes } => {
                write!(f, "until {min_bytes} bytes are readable ({available_bytes} now)")
            }
        }
    }
}

impl fmt::Display for PartitionReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartitionReason::Keyed { murmur2, positive, partitions } => {
                write!(f, "murmur2 of the key {murmur2}, & 0x7fffffff {positive}, mod {partitions}")
            }
            PartitionReason::Sticky { reason: StickyReason::First } => {
                write!(f, "no key, the sticky partitioner drew it for the topic's first such record")
            }
            PartitionReason::Sticky { reason: StickyReason::Stayed { bytes_so_far } } => {
                write!(f, "no key, the sticky partition ({bytes_so_far} bytes so far)")
            }
            PartitionReason::Sticky { reason: StickyReason::Switched { previous } } => {
                write!(f, "no key, the sticky partitioner left partition {previous} after batch.size bytes")
            }
            PartitionReason::RoundRobin { counter } => write!(f, "RoundRobinPartitioner, record {counter}"),
            PartitionReason::Explicit => write!(f, "the record named it"),
        }
    }
}

impl fmt::Display for BatchReadyReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchReadyReason::BatchSizeReached => write!(f, "batch.size reached"),
            BatchReadyReason::LingerPassed { linger_ms } => write!(f, "linger.ms ({linger_ms} ms) passed"),
        }
    }
}

impl fmt::Display for RejectReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RejectReason::NoReplica => write!(f, "the broker holds no replica of it"),
            RejectReason::NotLeader { broker } => write!(f, "broker {broker} is not the leader"),
            RejectReason::NotEnoughInSyncReplicas { isr, min_insync_replicas } => write!(
                f,
                "the ISR ({}) is smaller than min.insync.replicas {min_insync_replicas}",
                brokers(isr)
            ),
            RejectReason::InvalidBatch(e) => write!(f, "{}", e.detail()),
            RejectReason::UnreadableHeader => write!(f, "the batch header cannot be read"),
            RejectReason::TimestampOutOfRange { timestamp } => {
                write!(f, "timestamp {timestamp} is outside the window the topic allows")
            }
            RejectReason::OutOfOrderSequence { expected, got } => write!(f, "expected sequence {expected}, got {got}"),
            RejectReason::ProducerFenced { current, got } => write!(f, "producer epoch {got} is older than {current}"),
            RejectReason::BatchLargerThanSegment { size_bytes, segment_bytes } => {
                write!(f, "the batch is {size_bytes} bytes, more than segment.bytes {segment_bytes}")
            }
            RejectReason::LogRefused => write!(f, "the log refused the batch"),
        }
    }
}

impl fmt::Display for MessageKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MessageKind::Request(api) => write!(f, "{} request", api.name()),
            MessageKind::Response(api) => write!(f, "{} response", api.name()),
            MessageKind::ControlPlane(rpc) => write!(f, "{}", rpc.name()),
        }
    }
}

fn roll_reason(reason: &RollReason) -> &'static str {
    match reason {
        RollReason::SegmentBytes => "the batch would pass segment.bytes",
        RollReason::SegmentMs => "the segment is older than segment.ms",
        RollReason::OffsetIndexFull => "its offset index is full",
        RollReason::TimeIndexFull => "its time index is full",
        RollReason::RelativeOffsetOverflow => "the batch's offsets do not fit its relative offsets",
    }
}

fn deletion_reason(reason: &DeletionReason) -> &'static str {
    match reason {
        DeletionReason::Time => "retention.ms",
        DeletionReason::Size => "retention.bytes",
    }
}

fn election_cause(cause: &ElectionCause) -> &'static str {
    match cause {
        ElectionCause::FetchTimeout => "after hearing nothing from its leader for controller.quorum.fetch.timeout.ms",
        ElectionCause::ElectionTimeout => "after its election timeout",
        ElectionCause::BackoffComplete => "after backing off from a lost election",
        ElectionCause::ElectionTimeoutAsCandidate => "after its election timed out with no winner",
        ElectionCause::PreVoteWon => "after winning the pre-vote",
        ElectionCause::EndQuorumEpoch => "because the resigning leader named it first successor in EndQuorumEpoch",
        ElectionCause::Restarted => "after restarting with its vote for itself in this epoch",
    }
}

fn resign_reason(reason: &ResignReason) -> &'static str {
    match reason {
        ResignReason::CheckQuorumFailed => {
            "a majority did not fetch from it within 1.5 times controller.quorum.fetch.timeout.ms"
        }
        ResignReason::Requested => "it was asked to step down",
        ResignReason::Restarted => "it restarted after leading this epoch",
    }
}

struct VoteRejection<'a>(&'a VoteRejectReason);

impl fmt::Display for VoteRejection<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            VoteRejectReason::StaleEpoch { voter_epoch } => write!(f, "its own epoch {voter_epoch} is newer"),
            VoteRejectReason::InvalidRequest => write!(f, "the request contradicts itself"),
            VoteRejectReason::AlreadyVoted { voted_for } => {
                write!(f, "it already voted for controller {voted_for} in this epoch")
            }
            VoteRejectReason::LeaderKnown { leader } => write!(f, "it knows this epoch's leader, controller {leader}"),
            VoteRejectReason::LeaderAlive { leader } => {
                write!(f, "it still fetches from its leader, controller {leader}")
            }
            VoteRejectReason::LogNotUpToDate => write!(f, "the candidate's log is behind its own"),
            VoteRejectReason::IsLeader => write!(f, "it leads this epoch itself"),
            VoteRejectReason::IsCandidate => write!(f, "it stands in this epoch itself"),
            VoteRejectReason::Resigned => write!(f, "it resigned as leader of this epoch"),
        }
    }
}

/// A controller's Raft event, after "controller N ".
struct RaftLine<'a>(&'a RaftEvent);

impl fmt::Display for RaftLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            RaftEvent::BecameUnattached { epoch, voted_for, timeout_ms } => {
                write!(f, "is unattached in epoch {epoch}")?;
                if let Some(v) = voted_for {
                    write!(f, " (voted for controller {v})")?;
                }
                write!(f, ": it stands for election in {timeout_ms}ms unless a leader shows up")
            }
            RaftEvent::BecameProspective { epoch, timeout_ms, cause } => write!(
                f,
                "became prospective in epoch {epoch} {}: it asks for pre-votes for up to {timeout_ms}ms",
                election_cause(cause)
            ),
            RaftEvent::BecameCandidate { epoch, timeout_ms, retries, cause } => write!(
                f,
                "became a candidate for epoch {epoch} {} (attempt {retries}, election timeout {timeout_ms}ms)",
                election_cause(cause)
            ),
            RaftEvent::BecameLeader { epoch, epoch_start_offset } => {
                write!(f, "became leader of epoch {epoch}, which starts at metadata offset {epoch_start_offset}")
            }
            RaftEvent::BecameFollower { epoch, leader } => write!(f, "follows controller {leader} in epoch {epoch}"),
            RaftEvent::Resigned { epoch, reason } => {
                write!(f, "resigned as leader of epoch {epoch}: {}", resign_reason(reason))
            }
            RaftEvent::VoteRequested { to, epoch, pre_vote } => {
                write!(f, "asks controller {to} for its {} in epoch {epoch}", vote(*pre_vote))
            }
            RaftEvent::VoteGranted { candidate, epoch, pre_vote } => {
                write!(f, "grants controller {candidate} its {} in epoch {epoch}", vote(*pre_vote))
            }
            RaftEvent::VoteRejected { candidate, epoch, pre_vote, reason } => write!(
                f,
                "refuses controller {candidate} its {} in epoch {epoch}: {}",
                vote(*pre_vote),
                VoteRejection(reason)
            ),
            RaftEvent::ElectionLost { epoch, pre_vote, rejected_by } => write!(
                f,
                "lost the {} of epoch {epoch}: controller{} {} refused",
                vote(*pre_vote),
                if rejected_by.len() == 1 { "" } else { "s" },
                and_list(rejected_by)
            ),
            RaftEvent::ElectionBackoff { epoch, backoff_ms } => {
                write!(f, "backs off {backoff_ms}ms before standing again after epoch {epoch}")
            }
            RaftEvent::FetchTimeoutOverridden { epoch, leader, timeout_ms } => write!(
                f,
                "stands in {timeout_ms}ms instead of waiting out its fetch timeout: controller {leader} resigned epoch {epoch} with EndQuorumEpoch"
            ),
            RaftEvent::HighWatermarkAdvanced { from: Some(from), to } => {
                write!(f, "committed the metadata log below offset {to} (high watermark {from} -> {to})")
            }
            RaftEvent::HighWatermarkAdvanced { from: None, to } => {
                write!(f, "learned the metadata log's high watermark, {to}")
            }
            RaftEvent::EntriesAppended { epoch, first_offset, last_offset } => {
                write!(f, "appended metadata log {} in epoch {epoch}", offsets(*first_offset, *last_offset))
            }
            RaftEvent::Truncated { from, to } => {
                write!(f, "truncated its metadata log end from {from} to {to} after a diverging fetch")
            }
        }
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
            TraceKind::ConnectionClosed { request, client, error } => {
                write!(f, "{request} acks=0 failed with {error}: connection of {client} closed")
            }
            TraceKind::Appended { request, partition, replica, base_offset, last_offset, log_end_offset, segment, position } => {
                write!(
                    f,
                    "{request} appended to {partition} on {replica} at {} (segment {segment}, position {position}), LEO {log_end_offset}",
                    offsets(*base_offset, *last_offset)
                )
            }
            TraceKind::ProduceRejected { request, partition, error, reason } => {
                write!(f, "{request} produce to {partition} rejected: {error}: {reason}")
            }
            TraceKind::DuplicateBatch { request, partition, producer_id, base_sequence, original_base_offset } => {
                write!(
                    f,
                    "{request} duplicate batch pid {producer_id} seq {base_sequence} on {partition}: already at offset {original_base_offset}"
                )
            }
            TraceKind::SegmentRolled { partition, replica, base_offset, reason } => {
                write!(f, "{partition} on {replica} rolled a new segment at {base_offset} ({})", roll_reason(reason))
            }
            TraceKind::SegmentDeleted { partition, replica, base_offset, reason, log_start_offset } => {
                write!(
                    f,
                    "{partition} on {replica} deleted segment {base_offset} by {}; log start offset {log_start_offset}",
                    deletion_reason(reason)
                )
            }
            TraceKind::LogRead { request, partition, replica, fetch_offset, bytes, upper_bound, error, .. } => {
                write!(
                    f,
                    "{request} read {partition} on {replica} from {fetch_offset}: {bytes} bytes up to {upper_bound} ({})",
                    error.name()
                )
            }
            TraceKind::Parked { request, operation, waits, timeout_ms, .. } => {
                write!(f, "{request} parked in purgatory as op {operation} for at most {timeout_ms}ms: {}", and_list(waits))
            }
            TraceKind::PurgatoryCompleted { request, operation, expired } => {
                write!(f, "{request} op {operation} {}", if *expired { "expired" } else { "completed" })
            }
            TraceKind::HighWatermarkAdvanced { partition, replica, from, to, isr } => {
                write!(f, "{partition} on {replica} HW {from} -> {to} (ISR {})", and_list(isr))
            }
            TraceKind::IsrShrunk { partition, removed, lag_ms, isr } => {
                write!(f, "{partition} ISR shrank: removed {} after {lag_ms}ms, ISR {}", brokers(removed), and_list(isr))
            }
            TraceKind::IsrExpanded { partition, replica, follower_leo, isr } => {
                write!(f, "{partition} ISR expanded: {replica} at LEO {follower_leo}, ISR {}", and_list(isr))
            }
            TraceKind::FollowerTruncated { partition, replica, to_offset, epoch } => {
                write!(f, "{partition} on {replica} truncated to {to_offset} (diverged after epoch {epoch})")
            }
            TraceKind::FollowerHighWatermark { partition, replica, high_watermark } => {
                write!(f, "{partition} on {replica} follower HW {high_watermark}")
            }
            TraceKind::PartitionChosen { client, partition, reason } => write!(f, "{client} chose {partition}: {reason}"),
            TraceKind::BatchReady { client, partition, records, bytes, reason } => {
                write!(f, "{client} batch for {partition} ready: {records} records, {bytes} bytes ({reason})")
            }
            TraceKind::MetadataUpdated { client, leaders } => {
                let leaders: Vec<String> = leaders
                    .iter()
                    .map(|(tp, leader)| match leader {
                        Some(b) => format!("{tp} led by broker {b}"),
                        None => format!("{tp} without a leader"),
                    })
                    .collect();
                write!(f, "{client} metadata: {}", and_list(&leaders))
            }
            TraceKind::ProducerIdAssigned { client, producer_id, producer_epoch } => {
                write!(f, "{client} producer id {producer_id} epoch {producer_epoch}")
            }
            TraceKind::ProduceCompleted { request, partition, base_offset, error, records } => {
                write!(f, "{request} produce of {records} to {partition} completed: {error}, base offset {base_offset}")
            }
            TraceKind::LoadStarted { client, load } => {
                let keys = match load.keys {
                    KeyPattern::None => "no keys".to_string(),
                    KeyPattern::Fixed(n) => format!("{n} fixed keys"),
                    KeyPattern::Random => "random keys".to_string(),
                };
                write!(
                    f,
                    "{client} starts a load of {} records/s to {}, {keys}, {}-byte values",
                    load.records_per_sec, load.topic, load.value_bytes
                )
            }
            TraceKind::LoadStopped { client, sent } => write!(f, "{client} stops its load after {sent} records"),
            TraceKind::ProduceRetry { client, partition, error, attempt } => {
                write!(f, "{client} retries batch for {partition} after {error} (attempt {attempt})")
            }
            TraceKind::BatchSplit { client, partition, records, bytes, batch_size, batches } => write!(
                f,
                "{client} splits its refused batch of {records} records ({bytes} bytes) for {partition} by batch.size {batch_size} into {batches} batch(es)"
            ),
            TraceKind::BatchExpired { client, partition, records, delivery_timeout_ms } => write!(
                f,
                "{client} expires its batch of {records} records for {partition} after delivery.timeout.ms {delivery_timeout_ms}"
            ),
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
            TraceKind::RaftSent { rpc, to, arrives_at_ms } => {
                write!(f, "{}: sent to {to}, arrives at {arrives_at_ms}ms", rpc.name())
            }
            TraceKind::Raft { controller, event } => write!(f, "controller {controller} {}", RaftLine(event)),
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
            TraceKind::BrokerRegistrationRefused { broker, controller, session_ends_ms } => write!(
                f,
                "controller {controller} refused broker {broker}'s registration with DUPLICATE_BROKER_REGISTRATION: an earlier start's session is valid until {session_ends_ms}ms"
            ),
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
            TraceKind::LeaderElected(e) => match e.leader {
                Some(l) => write!(
                    f,
                    "controller {} elects broker {l} leader of {} in leader epoch {}{}",
                    e.controller,
                    e.partition,
                    e.leader_epoch,
                    if e.unclean { ", from outside the ISR" } else { "" }
                ),
                None => write!(f, "controller {} finds no replica of {} that can lead: it is offline", e.controller, e.partition),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    /// A long run keeps millions of events, each as large as the largest
    /// variant: a new field that makes one variant larger than the rest must
    /// be boxed, or every event grows. The size is that of a 64-bit build.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_trace_event_stays_small() {
        assert!(std::mem::size_of::<super::TraceEvent>() <= 96, "{} B", std::mem::size_of::<super::TraceEvent>());
        assert_eq!(std::mem::size_of::<crate::sim::ids::TopicPartition>(), 16);
    }
}
