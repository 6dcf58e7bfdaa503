//! The view model: plain structs the UI draws. Nothing here points into a
//! node, so the UI can hold a view while the simulation moves on.

use super::client::consumer::{ConsumedRecord, Consumer, FetchOutcome};
use super::client::producer::{Producer, RecordOutcome};
use super::load::LoadRun;
use super::config::TopicSpec;
use super::ids::{NodeId, RequestId, TopicPartition};
use super::log::log::SegmentView;
use super::protocol::ApiKey;
use super::purgatory::timing_wheel::WheelView;
use super::raft::state::RaftView;
use super::trace::{Direction, LeaderElection, WaitReason};
use serde::{Deserialize, Serialize};
use crate::sim::collections::{BTreeMap, CowVec};

/// A request or response as a token on the screen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token {
    pub request: RequestId,
    pub api: ApiKey,
    pub direction: Direction,
    /// A follower's replica fetch rather than a consumer's fetch.
    pub follower_fetch: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkThreadView {
    pub id: u32,
    /// The request being read or the response being written.
    pub work: Option<Token>,
    /// A request the thread could not put on the full request queue.
    pub blocked: Option<Token>,
    pub response_queue: Vec<Token>,
    pub connections: Vec<ConnectionView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionView {
    pub client: NodeId,
    pub muted: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoThreadView {
    pub id: u32,
    pub work: Option<Token>,
}

/// A delayed operation and what it waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DelayedOperationView {
    pub operation: u64,
    pub token: Token,
    pub keys: Vec<TopicPartition>,
    pub deadline_ms: i64,
    pub waits: Vec<WaitReason>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PurgatoryView {
    pub produce: Vec<DelayedOperationView>,
    pub fetch: Vec<DelayedOperationView>,
    pub produce_timer: WheelView,
    pub fetch_timer: WheelView,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FollowerView {
    pub broker: u32,
    pub log_end_offset: i64,
    pub last_caught_up_time_ms: u64,
    pub in_isr: bool,
}

/// One broker's replica of one partition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaView {
    pub topic: String,
    pub partition: u32,
    pub broker: u32,
    pub is_leader: bool,
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub log_start_offset: i64,
    pub log_end_offset: i64,
    pub high_watermark: i64,
    pub isr: Vec<u32>,
    /// With controllers: the ISR this leader asked the controller for and
    /// awaits, one member more or fewer (KIP-497's PendingExpandIsr and
    /// PendingShrinkIsr); `isr` stays the committed one until then.
    pub pending_isr: Option<Vec<u32>>,
    pub replicas: Vec<u32>,
    pub min_insync_replicas: u32,
    pub followers: Vec<FollowerView>,
    pub segments: Vec<SegmentView>,
    /// The leader epoch cache as (epoch, start offset).
    pub epochs: Vec<(i32, i64)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetcherView {
    pub leader: u32,
    pub partitions: Vec<TopicPartition>,
    pub in_flight: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerView {
    pub id: u32,
    pub socket_receive_buffer: Vec<Token>,
    pub network_threads: Vec<NetworkThreadView>,
    pub request_queue: Vec<Token>,
    pub request_queue_capacity: u32,
    pub io_threads: Vec<IoThreadView>,
    /// Produces whose records were just appended, before their next hop.
    pub log_append: Vec<Token>,
    /// Fetches whose logs were just read, before their next hop.
    pub log_read: Vec<Token>,
    pub purgatory: PurgatoryView,
    pub socket_send_buffer: Vec<Token>,
    pub replicas: Vec<ReplicaView>,
    pub fetchers: Vec<FetcherView>,
    /// What the control plane says of this broker (set by the simulation,
    /// which knows whether the process runs and what the metadata log says).
    pub status: BrokerStatus,
    /// Its session with the active controller (set by the simulation); None
    /// without controllers, while there is no active controller (the
    /// metadata is frozen and nobody is fenced) or before it registers.
    pub session: Option<BrokerSessionView>,
    /// When this broker's isr-expiration task runs next (set by the
    /// simulation from the task's timer): a follower that is late by
    /// `replica.lag.time.max.ms` leaves the ISR at the first run after that,
    /// not at the moment it becomes late. None while the broker is down.
    pub next_isr_expiration_ms: Option<u64>,
    /// How often that task runs (`replica.lag.time.max.ms` / 2).
    pub isr_expiration_interval_ms: u64,
    /// With controllers: this process holds a broker epoch. False while its
    /// registration is on its way, or refused because an earlier start's
    /// session is still valid (which no heartbeat of this process renews).
    pub registered: bool,
}

/// A broker's session as the active controller keeps it (Kafka's
/// BrokerHeartbeatManager): every heartbeat starts it again, and an
/// unfenced broker whose session runs out is fenced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerSessionView {
    pub broker: u32,
    /// When the active controller last heard a heartbeat (or the
    /// registration, or its own activation, which starts every session
    /// afresh).
    pub last_heartbeat_ms: u64,
    /// `last_heartbeat_ms` + `broker.session.timeout.ms`: when the
    /// controller fences the broker unless a heartbeat comes first. Only an
    /// unfenced broker's deadline is acted on.
    pub fence_deadline_ms: u64,
    /// Fenced in the controller's metadata log (its latest records, a step
    /// ahead of the committed image while they replicate).
    pub fenced: bool,
    /// A heartbeat came within `broker.session.timeout.ms`: the controller
    /// still hears the broker.
    pub heard: bool,
}

/// A broker as the controller quorum sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BrokerStatus {
    /// Registered and unfenced: it may lead partitions and serve clients
    /// (or, with no controllers, simply running).
    Running,
    /// Running but fenced: not registered yet, not caught up with the
    /// metadata log, or its session expired (no heartbeat in
    /// broker.session.timeout.ms).
    Fenced,
    /// A controlled shutdown is under way: the controller is moving its
    /// leaderships away before it lets the broker stop.
    ShuttingDown,
    /// The process is down (killed or shut down, and not restarted).
    Stopped,
}

/// One controller of the KRaft quorum.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControllerView {
    pub id: u32,
    pub alive: bool,
    /// The active controller: the Raft leader of the newest epoch.
    pub active: bool,
    /// Its Raft state while the process runs.
    pub raft: Option<RaftView>,
    /// The metadata log's end offset (kept on disk across a crash).
    pub log_end_offset: i64,
}

/// The controller quorum: who is active, in which epoch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuorumView {
    pub controllers: Vec<ControllerView>,
    pub active: Option<u32>,
    /// The newest epoch any live voter is in.
    pub epoch: i32,
    /// How many voters make a majority.
    pub majority: u32,
}

impl QuorumView {
    /// No active controller (fewer than a majority of voters up): nothing
    /// can change the metadata, so no broker is fenced and no partition
    /// leader elected, until a voter returns.
    pub fn metadata_frozen(&self) -> bool {
        self.active.is_none()
    }
}

/// A partition across the cluster: its replicas on every broker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionView {
    pub topic: String,
    pub partition: u32,
    pub replicas: Vec<u32>,
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub isr: Vec<u32>,
    pub high_watermark: i64,
    /// (broker, LEO, HW) of each replica, in assignment order.
    pub replica_offsets: Vec<(u32, i64, i64)>,
    /// The election that gave the partition its leader in this leader
    /// epoch, if the simulation saw it (none for the leader a new topic
    /// starts with).
    pub election: Option<LeaderElection>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducerBatchView {
    pub partition: TopicPartition,
    pub records: u32,
    pub bytes: u32,
    pub sealed: bool,
    pub in_flight: bool,
    pub attempts: u32,
    /// The timeout that moves the batch on next, if one runs.
    pub deadline: Option<BatchDeadline>,
}

/// When a producer batch moves on by itself, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchDeadline {
    pub kind: BatchDeadlineKind,
    /// Absolute simulated time.
    pub at_ms: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BatchDeadlineKind {
    /// An open batch: RecordAccumulator makes it ready `linger.ms` after it
    /// was created, full or not.
    Linger,
    /// In flight: with no answer `request.timeout.ms` after the send,
    /// NetworkClient gives the request up and the batch fails with
    /// REQUEST_TIMED_OUT (and is retried if delivery.timeout.ms allows).
    RequestTimeout,
    /// Failed and back in the accumulator: the sender may send it again
    /// once `retry.backoff.ms` has passed.
    RetryBackoff,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducerView {
    pub id: NodeId,
    pub acks: i16,
    pub idempotent: bool,
    pub producer_id: i64,
    pub linger_ms: u64,
    pub batch_size: u32,
    /// Shared with the producer chunk by chunk, so a view costs little
    /// however many records were sent.
    pub records: CowVec<RecordOutcome>,
    pub batches: Vec<ProducerBatchView>,
    /// Its load generator, while one runs.
    pub load: Option<LoadRun>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsumerView {
    pub id: NodeId,
    pub positions: Vec<(TopicPartition, i64)>,
    pub consumed: Vec<ConsumedRecord>,
    pub fetches: Vec<FetchOutcome>,
}

/// A message on a link between two nodes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlightView {
    pub from: NodeId,
    pub to: NodeId,
    pub request: RequestId,
    pub api: ApiKey,
    pub follower_fetch: bool,
    pub direction: Direction,
    pub sent_at_ms: u64,
    pub arrives_at_ms: u64,
    pub bytes: u32,
    /// A control-plane RPC's Kafka name (Vote, BeginQuorumEpoch, Fetch of
    /// the metadata log, BrokerHeartbeat, ...); None for data-plane traffic.
    pub rpc: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterView {
    pub time_ms: u64,
    pub step: u64,
    pub brokers: Vec<BrokerView>,
    pub producers: Vec<ProducerView>,
    pub consumers: Vec<ConsumerView>,
    pub partitions: Vec<PartitionView>,
    pub in_flight: Vec<InFlightView>,
    /// None when the cluster runs without controllers (static metadata).
    pub quorum: Option<QuorumView>,
    /// The network partitions in place: each cuts every link between its
    /// two sides.
    pub network_cuts: Vec<(Vec<NodeId>, Vec<NodeId>)>,
    /// The brokers' replica.lag.time.max.ms: how long a follower may go
    /// without catching up before its leader drops it from the ISR.
    pub replica_lag_time_max_ms: u64,
}

impl ClusterView {
    pub fn partition(&self, topic: &str, partition: u32) -> Option<&PartitionView> {
        self.partitions.iter().find(|p| p.topic == topic && p.partition == partition)
    }

    /// Every partition listed has a leader whose own replica knows it leads
    /// in the partition's current leader epoch: the brokers act on the
    /// metadata, not only the controller. True of no partitions at all.
    pub fn every_partition_led(&self) -> bool {
        self.partitions.iter().all(|p| {
            p.leader.is_some_and(|l| self.replica(&p.topic, p.partition, l).is_some_and(|r| r.is_leader && r.leader_epoch == p.leader_epoch))
        })
    }

    pub fn replica(&self, topic: &str, partition: u32, broker: u32) -> Option<&ReplicaView> {
        self.brokers
            .iter()
            .find(|b| b.id == broker)?
            .replicas
            .iter()
            .find(|r| r.topic == topic && r.partition == partition)
    }

    /// When the partition's leader drops `follower` from the ISR unless it
    /// catches up first (or the controller fences it first): the first run
    /// of the leader's isr-expiration task at which the follower has been
    /// behind for more than `replica.lag.time.max.ms` (Kafka's
    /// Partition.getOutOfSyncReplicas). None when no running broker leads
    /// the partition, the follower is not in its ISR (or a shrink that
    /// removes it awaits the controller), or it has the leader's log end
    /// offset, since a follower with nothing to fetch never lags.
    pub fn isr_expiry_ms(&self, topic: &str, partition: u32, follower: u32) -> Option<u64> {
        let (broker, leader) = self.brokers.iter().find_map(|b| {
            let r = b.replicas.iter().find(|r| r.topic == topic && r.partition == partition && r.is_leader)?;
            Some((b, r))
        })?;
        let f = leader.followers.iter().find(|f| f.broker == follower && f.in_isr)?;
        let removing = leader.pending_isr.as_ref().is_some_and(|isr| !isr.contains(&follower));
        if removing || f.log_end_offset == leader.log_end_offset {
            return None;
        }
        let next = broker.next_isr_expiration_ms?;
        // Late once the lag is strictly more than the limit.
        let late_from = f.last_caught_up_time_ms.saturating_add(self.replica_lag_time_max_ms).saturating_add(1);
        let every = broker.isr_expiration_interval_ms;
        if next >= late_from || every == 0 {
            return Some(next.max(late_from));
        }
        Some(next + (late_from - next).div_ceil(every) * every)
    }
}

/// A producer at `now_ms`, which tells a batch still backing off from one
/// whose backoff is over.
pub(crate) fn producer_view(p: &Producer, now_ms: u64) -> ProducerView {
    let linger_ms = p.config().linger_ms;
    let mut batches: Vec<ProducerBatchView> = p
        .batches()
        .map(|b| {
            let deadline = if !b.sealed {
                Some(BatchDeadline { kind: BatchDeadlineKind::Linger, at_ms: b.created_ms.saturating_add(linger_ms) })
            } else if b.attempts > 0 && b.backoff_until_ms > now_ms {
                Some(BatchDeadline { kind: BatchDeadlineKind::RetryBackoff, at_ms: b.backoff_until_ms })
            } else {
                None
            };
            ProducerBatchView {
                partition: b.partition.clone(),
                records: b.record_count(),
                bytes: b.size_bytes(),
                sealed: b.sealed,
                in_flight: false,
                attempts: b.attempts,
                deadline,
            }
        })
        .collect();
    batches.extend(p.in_flight_batches().map(|(request, b)| ProducerBatchView {
        partition: b.partition.clone(),
        records: b.record_count(),
        bytes: b.size_bytes(),
        sealed: true,
        in_flight: true,
        attempts: b.attempts,
        deadline: Some(BatchDeadline { kind: BatchDeadlineKind::RequestTimeout, at_ms: request.timeout_at_ms }),
    }));
    ProducerView {
        id: p.id(),
        acks: p.config().acks,
        idempotent: p.config().enable_idempotence,
        producer_id: p.producer_id(),
        linger_ms: p.config().linger_ms,
        batch_size: p.config().batch_size,
        records: p.records().clone(),
        batches,
        load: p.load().cloned(),
    }
}

pub(crate) fn consumer_view(c: &Consumer) -> ConsumerView {
    ConsumerView {
        id: c.id(),
        positions: c.positions().iter().map(|(tp, o)| (tp.clone(), *o)).collect(),
        consumed: c.consumed().to_vec(),
        fetches: c.fetches().to_vec(),
    }
}

/// Each partition's cluster-wide picture, from the leader's replica where
/// there is one.
///
/// With a controller quorum, the leader, leader epoch and ISR are the
/// committed metadata's (`image`), as the cluster knows them: a killed
/// leader stays the leader until the active controller fences it.
pub(crate) fn partition_views(
    topics: &BTreeMap<String, TopicSpec>,
    brokers: &[BrokerView],
    image: Option<&super::metadata::MetadataImage>,
    elections: &BTreeMap<TopicPartition, Vec<LeaderElection>>,
) -> Vec<PartitionView> {
    let mut out = Vec::new();
    for t in topics.values() {
        for p in 0..t.partitions {
            let replicas: Vec<&ReplicaView> = brokers
                .iter()
                .flat_map(|b| b.replicas.iter())
                .filter(|r| r.topic == t.name && r.partition == p)
                .collect();
            let leader_view = replicas.iter().find(|r| r.is_leader).copied();
            let any = replicas.first().copied();
            let Some(base) = leader_view.or(any) else {
                continue;
            };
            let replica_offsets = base
                .replicas
                .iter()
                .filter_map(|b| replicas.iter().find(|r| r.broker == *b).map(|r| (r.broker, r.log_end_offset, r.high_watermark)))
                .collect();
            let mut view = PartitionView {
                topic: t.name.clone(),
                partition: p,
                replicas: base.replicas.clone(),
                leader: base.leader,
                leader_epoch: base.leader_epoch,
                isr: base.isr.clone(),
                high_watermark: leader_view.map(|l| l.high_watermark).unwrap_or(base.high_watermark),
                replica_offsets,
                election: None,
            };
            if let Some(record) = image.and_then(|i| i.partitions.get(&TopicPartition::new(t.name.clone(), p))) {
                view.leader = record.leader;
                view.leader_epoch = record.leader_epoch;
                view.isr = record.isr.clone();
                // The partition's HW is its leader's; an offline partition
                // keeps the last HW a replica knew.
                if let Some(hw) = brokers
                    .iter()
                    .filter(|b| Some(b.id) == record.leader)
                    .flat_map(|b| b.replicas.iter())
                    .find(|r| r.topic == t.name && r.partition == p)
                    .map(|r| r.high_watermark)
                {
                    view.high_watermark = hw;
                }
            }
            // An election written but never committed does not count: the
            // committed leader and leader epoch must match.
            view.election = elections
                .get(&TopicPartition::new(t.name.clone(), p))
                .and_then(|es| es.iter().rev().find(|e| e.leader == view.leader && e.leader_epoch == view.leader_epoch))
                .cloned();
            out.push(view);
        }
    }
    out
}

/// One batch of a segment, for the segment inspector: its place, its raw
/// bytes, and every field with the bytes it occupies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchInspection {
    pub position: u32,
    pub base_offset: i64,
    pub last_offset: i64,
    pub size_bytes: u32,
    pub crc_valid: bool,
    pub bytes: Vec<u8>,
    pub fields: Vec<super::record::batch::FieldSpan>,
}

/// The batches of one segment of one replica's log, decoded field by
/// field. Computed on demand rather than in every view, since it copies
/// bytes. It takes the log, not the broker, so the view types depend on no
/// broker internals (the broker builds its own view from them).
pub fn inspect_segment(log: &super::log::log::Log, segment_base_offset: i64) -> Option<Vec<BatchInspection>> {
    let batches = log.batches_in(segment_base_offset).ok()?;
    Some(
        batches
            .into_iter()
            .filter_map(|b| {
                let bytes = log.batch_bytes(segment_base_offset, b.position).ok()?.to_vec();
                Some(BatchInspection {
                    position: b.position,
                    base_offset: b.base_offset,
                    last_offset: b.last_offset,
                    size_bytes: b.size_bytes,
                    crc_valid: super::record::batch::verify_crc(&bytes),
                    fields: super::record::batch::field_spans(&bytes).unwrap_or_default(),
                    bytes,
                })
            })
            .collect(),
    )
}

/// The last fetch's path through a partition's offset index on a broker:
/// the index entry used and the batch headers scanned, from the trace.
pub fn last_lookup(
    trace: &[super::trace::TraceEvent],
    partition: &TopicPartition,
    broker: u32,
) -> Option<(RequestId, i64, super::log::segment::LookupPath)> {
    trace.iter().rev().find_map(|e| match &e.kind {
        super::trace::TraceKind::LogRead { request, partition: p, replica, fetch_offset, lookup: Some(l), .. }
            if p == partition && *replica == broker =>
        {
            Some((*request, *fetch_offset, (**l).clone()))
        }
        _ => None,
    })
}
