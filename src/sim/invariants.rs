//! The invariant checker: the properties Kafka and Raft promise, checked
//! after every step of a run, under their own names.
//!
//! It is cheap enough for every step of the UI and of a sweep of thousands
//! of seeds because it works incrementally: a step changes only the node it
//! was handed to (`Simulation::last_node`), so the checker reads that node's
//! state and the trace events of that step, never the whole cluster. It only
//! reads: a run with the checker is event for event the run without it.
//!
//! The low-level `observe_*` methods take plain observations, so a unit test
//! can feed the checker states that break each invariant; `check_step` is
//! what feeds them from a real simulation.

use super::ids::{NodeId, RequestId, TopicPartition};
use super::log::log::Log;
use super::protocol::ErrorCode;
use super::record::batch::BatchHeader;
use super::simulation::Simulation;
use super::trace::TraceKind;
use crate::sim::collections::{BTreeMap, BTreeSet, CowVec};
use std::fmt;

/// The properties checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Invariant {
    /// Raft: at most one leader can be elected in a given epoch (the Raft
    /// paper's "Election Safety"; Kafka's epochs are Raft's terms).
    ElectionSafety,
    /// At most one broker leads a partition in a given leader epoch.
    OneLeaderPerLeaderEpoch,
    /// A leader's high watermark never goes backwards within one leadership.
    HighWatermarkMonotonic,
    /// An acknowledged write stays in the partition's committed history.
    AcknowledgedWriteKept,
    /// A consumer reads only records below the high watermark.
    ConsumerReadsCommitted,
    /// Offsets in a replica's log are unique and contiguous.
    OffsetsContiguous,
    /// An idempotent producer's batch (producer id, epoch, base sequence)
    /// is in a partition's log once, however often it was sent.
    IdempotentBatchOnce,
}

impl Invariant {
    pub fn name(self) -> &'static str {
        match self {
            Invariant::ElectionSafety => "Election Safety",
            Invariant::OneLeaderPerLeaderEpoch => "One leader per leader epoch",
            Invariant::HighWatermarkMonotonic => "High watermark never goes back",
            Invariant::AcknowledgedWriteKept => "Acknowledged writes are never lost",
            Invariant::ConsumerReadsCommitted => "Consumers read only committed records",
            Invariant::OffsetsContiguous => "Offsets are unique and contiguous",
            Invariant::IdempotentBatchOnce => "An idempotent producer's batch is written once",
        }
    }
}

impl fmt::Display for Invariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why Kafka does not promise to keep a write it acknowledged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoGuarantee {
    /// acks=1: the leader alone had it when it answered.
    AcksOne,
    /// An unclean leader election (`unclean.leader.election.enable`)
    /// started a later leader epoch than the one whose leader acknowledged
    /// the write: after the acknowledgement, or before it when a deposed
    /// leader acknowledged it without having heard of the election.
    UncleanElection,
}

/// Does Kafka promise to keep a write? A lost write that Kafka guarantees
/// is a bug in the simulation; one it does not guarantee is a lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guarantee {
    /// acks=all, acknowledged once the ISR (at least min.insync.replicas)
    /// had it, and only clean elections since.
    Guaranteed,
    NotGuaranteed(NoGuarantee),
}

/// One broken invariant, with what the UI needs to raise an alarm and jump
/// to the step that broke it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The step whose event broke it, and its simulated time.
    pub step: u64,
    pub time_ms: u64,
    /// The node that step was handed to.
    pub node: NodeId,
    pub partition: Option<TopicPartition>,
    /// What broke, as data: the page words it in each language.
    pub breach: Breach,
    /// For a lost write: whether Kafka guarantees it.
    pub guarantee: Option<Guarantee>,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // For a developer reading a failed test: the breach's fields as they are.
        write!(f, "step {} at {}ms on {}: {}: {:?}", self.step, self.time_ms, self.node, self.invariant(), self.breach)
    }
}

impl Violation {
    /// The invariant it breaks, which its breach names.
    pub fn invariant(&self) -> Invariant {
        self.breach.invariant()
    }
}

/// What exactly a violation found. The partition is the violation's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Breach {
    /// Two controllers lead the metadata quorum in one epoch.
    TwoQuorumLeaders { first: u32, second: u32, epoch: i32 },
    /// Two brokers lead the partition in one leader epoch.
    TwoPartitionLeaders { first: u32, second: u32, leader_epoch: i32 },
    /// The leader's high watermark went back within its leadership.
    HighWatermarkBack { leader: u32, from: i64, to: i64, leader_epoch: i32 },
    /// An acknowledged write is not in the newest leader's log below its HW.
    WriteLost {
        client: NodeId,
        acked_step: u64,
        base_offset: i64,
        last_offset: i64,
        leader: u32,
        leader_epoch: i32,
        found: FoundInstead,
        high_watermark: i64,
        /// The topic's min.insync.replicas when the write was acknowledged.
        min_insync_replicas: u32,
    },
    /// A consumer read up to `last_offset`, above every HW a leader had.
    ReadAboveCommitted { consumer: NodeId, last_offset: i64, bound: i64 },
    /// A replica appended `base..=last` where its log ended at `expected`.
    OffsetGap { replica: u32, base: i64, last: i64, expected: i64, leo: i64 },
    /// An idempotent producer's batch is in the replica's log at two offsets.
    BatchTwice { replica: u32, producer_id: i64, producer_epoch: i16, base_sequence: i32, first: i64, again: i64 },
}

impl Breach {
    pub fn invariant(&self) -> Invariant {
        match self {
            Breach::TwoQuorumLeaders { .. } => Invariant::ElectionSafety,
            Breach::TwoPartitionLeaders { .. } => Invariant::OneLeaderPerLeaderEpoch,
            Breach::HighWatermarkBack { .. } => Invariant::HighWatermarkMonotonic,
            Breach::WriteLost { .. } => Invariant::AcknowledgedWriteKept,
            Breach::ReadAboveCommitted { .. } => Invariant::ConsumerReadsCommitted,
            Breach::OffsetGap { .. } => Invariant::OffsetsContiguous,
            Breach::BatchTwice { .. } => Invariant::IdempotentBatchOnce,
        }
    }
}

/// What the leader's log holds where a lost write was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoundInstead {
    /// Another batch starting at the same offset.
    AnotherBatch,
    /// Another batch that spans the offset.
    AnotherBatchAcross,
    /// Nothing: the log is shorter there.
    Nothing,
}

/// Where an observation comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub step: u64,
    pub time_ms: u64,
    pub node: NodeId,
}

/// Which batch a write is: its offsets and the fields that tell two
/// batches apart (the idempotent producer's id and sequence, and the CRC of
/// everything after the offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchIdentity {
    pub base_offset: i64,
    pub last_offset: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub crc: u32,
    /// The leader epoch of the leader that appended it, which it keeps on
    /// every replica (the CRC does not cover it, so it is its own field).
    pub partition_leader_epoch: i32,
}

impl From<&BatchHeader> for BatchIdentity {
    fn from(h: &BatchHeader) -> Self {
        Self {
            base_offset: h.base_offset,
            last_offset: h.last_offset(),
            producer_id: h.producer_id,
            producer_epoch: h.producer_epoch,
            base_sequence: h.base_sequence,
            crc: h.crc,
            partition_leader_epoch: h.partition_leader_epoch,
        }
    }
}

/// A broker's replica that believes it leads, as the checker sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderObservation {
    pub broker: u32,
    pub partition: TopicPartition,
    pub leader_epoch: i32,
    pub high_watermark: i64,
    pub log_start_offset: i64,
}

#[derive(Clone, Debug)]
struct AckedWrite {
    batch: BatchIdentity,
    client: NodeId,
    acks: i16,
    min_insync_replicas: u32,
    step: u64,
}

/// Per partition: the acknowledged writes, and how far the current
/// leader's committed log was already compared with them.
#[derive(Clone, Debug, Default)]
struct PartitionWatch {
    /// By (base offset, order of acknowledgement); two writes can claim one
    /// offset (one of them is lost). It only grows over a run and every
    /// timeline snapshot copies the checker, so its chunks are shared
    /// copy-on-write: a snapshot copies a pointer per 64 writes and the
    /// newest chunk, not every write.
    acked: CowVec<((i64, u64), AckedWrite)>,
    /// The highest leader epoch any broker has claimed.
    max_leader_epoch: i32,
    /// (broker, leader epoch) whose log `verified_below` refers to.
    verified_leadership: Option<(u32, i32)>,
    /// Every acknowledged write below this offset was found in that
    /// leader's log; a leader's log only grows while it leads.
    verified_below: i64,
    /// The highest HW any leader of this partition reached.
    max_high_watermark: i64,
    /// The leader epochs that unclean leader elections started.
    unclean_epochs: Vec<i32>,
}

/// Where `key` (base offset, order of acknowledgement) is, or would go, in
/// a partition's sorted acknowledged writes.
fn acked_place(acked: &CowVec<((i64, u64), AckedWrite)>, key: (i64, u64)) -> usize {
    acked.partition_point(|(k, _)| *k < key)
}

/// Checks every invariant incrementally; feed it each step with
/// [`InvariantChecker::check_step`].
#[derive(Clone, Debug, Default)]
pub struct InvariantChecker {
    violations: Vec<Violation>,
    raft_leaders: BTreeMap<i32, u32>,
    partition_leaders: BTreeMap<(TopicPartition, i32), u32>,
    /// (broker, partition) -> (leader epoch, HW) of the leadership.
    leader_high_watermarks: BTreeMap<(u32, TopicPartition), (i32, i64)>,
    /// (broker, partition) -> the log end offset the trace last showed.
    log_end_offsets: BTreeMap<(u32, TopicPartition), i64>,
    /// Produce appends on leaders waiting for their answer:
    /// (request, partition) -> (leader, the batch).
    pending: BTreeMap<(RequestId, TopicPartition), (u32, BatchIdentity)>,
    partitions: BTreeMap<TopicPartition, PartitionWatch>,
    next_ack: u64,
    /// (replica, partition) -> the last idempotent batches appended there,
    /// as ((producer id, epoch, base sequence), base offset), newest last.
    /// A retry is sent within max.in.flight (5) batches of its first try, so
    /// a short window finds any copy, and the checker stays small on a long
    /// run.
    idempotent_batches: BTreeMap<(u32, TopicPartition), Vec<((i64, i16, i32), i64)>>,
}

/// How many idempotent batches per replica and partition the checker
/// compares a new one with.
const IDEMPOTENT_WINDOW: usize = 64;

impl InvariantChecker {
    pub fn new() -> Self {
        Self::default()
    }

    /// Every violation found so far, in the order found.
    pub fn violations(&self) -> &[Violation] {
        &self.violations
    }

    fn violate(&mut self, at: At, partition: Option<TopicPartition>, breach: Breach, guarantee: Option<Guarantee>) {
        self.violations.push(Violation { step: at.step, time_ms: at.time_ms, node: at.node, partition, breach, guarantee });
    }

    /// Checks the step just taken; returns how many new violations it found.
    /// The simulation must keep its trace (the default).
    pub fn check_step(&mut self, sim: &Simulation) -> usize {
        let before = self.violations.len();
        let Some(node) = sim.last_node() else { return 0 };
        let at = At { step: sim.steps(), time_ms: sim.now_ms(), node };
        let mut touched: BTreeSet<TopicPartition> = BTreeSet::new();
        for e in sim.trace_of_step(at.step) {
            match &e.kind {
                TraceKind::Appended { request, partition, replica, base_offset, last_offset, log_end_offset, .. } => {
                    self.observe_replica_append(at, *replica, partition, *base_offset, *last_offset, *log_end_offset);
                    if let Some(batch) = batch_on(sim, *replica, partition, *base_offset) {
                        self.observe_idempotent_batch(at, *replica, partition, &batch);
                    }
                    if matches!(request.client, NodeId::Client(_)) {
                        if let Some(batch) = batch_on(sim, *replica, partition, *base_offset) {
                            self.observe_leader_append(*request, partition, *replica, batch);
                        }
                    }
                }
                TraceKind::DuplicateBatch { request, partition, original_base_offset, .. } => {
                    if let NodeId::Broker(b) = e.node {
                        if let Some(batch) = batch_on(sim, b, partition, *original_base_offset) {
                            self.observe_leader_append(*request, partition, b, batch);
                        }
                    }
                }
                TraceKind::FollowerTruncated { partition, replica, to_offset, .. } => {
                    self.observe_truncation(*replica, partition, *to_offset);
                }
                TraceKind::BrokerStopped { broker } => self.observe_broker_stopped(*broker),
                TraceKind::LeaderElected(e) if e.unclean => self.observe_unclean_election(&e.partition, e.leader_epoch),
                TraceKind::ProduceCompleted { request, partition, base_offset, error, .. } => {
                    let acks = match request.client {
                        NodeId::Client(c) => sim.producer(c).map_or(-1, |p| p.config().acks),
                        _ => -1,
                    };
                    let min_insync = self
                        .pending
                        .get(&(*request, partition.clone()))
                        .and_then(|(leader, _)| sim.broker(*leader)?.partition(partition))
                        .map_or(1, |p| p.min_insync_replicas());
                    if *error == ErrorCode::None {
                        self.observe_acknowledged(at, *request, partition, *base_offset, acks, min_insync);
                        touched.insert(partition.clone());
                    } else {
                        self.pending.remove(&(*request, partition.clone()));
                    }
                }
                TraceKind::FetchCompleted { partition, records, next_offset, high_watermark, error, .. } if *error == ErrorCode::None => {
                    self.observe_consumer_read(at, partition, *records, *next_offset, *high_watermark);
                }
                _ => {}
            }
        }
        match node {
            NodeId::Controller(c) => {
                if let Some(raft) = sim.controller(c).and_then(|c| c.raft()).filter(|r| r.is_leader()) {
                    self.observe_raft_leader(at, c, raft.epoch());
                }
            }
            NodeId::Broker(b) if !sim.broker_is_down(b) => {
                if let Some(broker) = sim.broker(b) {
                    for (tp, p) in &broker.partitions {
                        if p.leader == Some(b) {
                            let leader = LeaderObservation {
                                broker: b,
                                partition: tp.clone(),
                                leader_epoch: p.leader_epoch,
                                high_watermark: p.high_watermark,
                                log_start_offset: p.log.log_start_offset(),
                            };
                            self.observe_leader(at, &leader, |o| batch_in(&p.log, o));
                            touched.remove(tp);
                        }
                    }
                }
            }
            _ => {}
        }
        // A write acknowledged in this step is compared with the partition's
        // current leader at once, in case its HW is already past it.
        for tp in touched {
            let Some((broker, epoch)) = self.partitions.get(&tp).and_then(|w| w.verified_leadership) else { continue };
            let Some(p) = sim.broker(broker).and_then(|b| b.partition(&tp)) else { continue };
            if p.leader == Some(broker) && p.leader_epoch == epoch {
                let leader = LeaderObservation {
                    broker,
                    partition: tp.clone(),
                    leader_epoch: epoch,
                    high_watermark: p.high_watermark,
                    log_start_offset: p.log.log_start_offset(),
                };
                self.verify_acknowledged(at, &leader, |o| batch_in(&p.log, o));
            }
        }
        self.violations.len() - before
    }

    /// A controller is the Raft leader of `epoch`.
    pub fn observe_raft_leader(&mut self, at: At, controller: u32, epoch: i32) {
        match self.raft_leaders.get(&epoch) {
            Some(other) if *other != controller => {
                let other = *other;
                self.violate(
                    at,
                    None,
                    Breach::TwoQuorumLeaders { first: other, second: controller, epoch },
                    None,
                );
            }
            Some(_) => {}
            None => {
                self.raft_leaders.insert(epoch, controller);
            }
        }
    }

    /// A broker believes it leads a partition: check one leader per epoch
    /// and the HW, and compare the acknowledged writes with its log if it
    /// is the newest leader. `batch_at(offset)` reads its log.
    pub fn observe_leader(&mut self, at: At, leader: &LeaderObservation, batch_at: impl Fn(i64) -> Option<BatchIdentity>) {
        let tp = &leader.partition;
        let (b, epoch, hw) = (leader.broker, leader.leader_epoch, leader.high_watermark);
        match self.partition_leaders.get(&(tp.clone(), epoch)) {
            Some(other) if *other != b => {
                let other = *other;
                self.violate(
                    at,
                    Some(tp.clone()),
                    Breach::TwoPartitionLeaders { first: other, second: b, leader_epoch: epoch },
                    None,
                );
            }
            Some(_) => {}
            None => {
                self.partition_leaders.insert((tp.clone(), epoch), b);
            }
        }
        let key = (b, tp.clone());
        if let Some((e, last)) = self.leader_high_watermarks.get(&key).copied() {
            if e == epoch && hw < last {
                self.violate(
                    at,
                    Some(tp.clone()),
                    Breach::HighWatermarkBack { leader: b, from: last, to: hw, leader_epoch: epoch },
                    None,
                );
            }
        }
        self.leader_high_watermarks.insert(key, (epoch, hw));
        let watch = self.partitions.entry(tp.clone()).or_default();
        watch.max_high_watermark = watch.max_high_watermark.max(hw);
        watch.max_leader_epoch = watch.max_leader_epoch.max(epoch);
        self.verify_acknowledged(at, leader, batch_at);
    }

    /// Compares acknowledged writes below the newest leader's HW with its
    /// log: one that is not there is lost.
    fn verify_acknowledged(&mut self, at: At, leader: &LeaderObservation, batch_at: impl Fn(i64) -> Option<BatchIdentity>) {
        let tp = &leader.partition;
        let Some(watch) = self.partitions.get_mut(tp) else { return };
        if leader.leader_epoch < watch.max_leader_epoch {
            // A deposed leader that has not heard yet: not the partition's history.
            return;
        }
        if watch.verified_leadership != Some((leader.broker, leader.leader_epoch)) {
            watch.verified_leadership = Some((leader.broker, leader.leader_epoch));
            watch.verified_below = 0;
        }
        let from = watch.verified_below.max(leader.log_start_offset);
        let hw = leader.high_watermark;
        if from >= hw {
            return;
        }
        let mut lost = Vec::new();
        let start = acked_place(&watch.acked, (from, 0));
        for (key, w) in watch.acked.iter_from(start).take_while(|(key, _)| *key < (hw, 0)) {
            if batch_at(key.0) != Some(w.batch) {
                lost.push((*key, w.clone()));
            }
        }
        watch.verified_below = watch.verified_below.max(hw);
        for (key, w) in lost {
            let watch = self.partitions.get_mut(tp).expect("looked up above");
            watch.acked.remove(acked_place(&watch.acked, key));
            // An unclean election deposes the writes of every earlier
            // epoch, including those a deposed leader that has not heard yet
            // acknowledges after the election (a leader cut off from the
            // controller keeps acknowledging alone until it learns).
            let unclean = watch.unclean_epochs.iter().any(|e| *e > w.batch.partition_leader_epoch);
            let guarantee = if w.acks != -1 {
                Guarantee::NotGuaranteed(NoGuarantee::AcksOne)
            } else if unclean {
                Guarantee::NotGuaranteed(NoGuarantee::UncleanElection)
            } else {
                Guarantee::Guaranteed
            };
            let found = match batch_at(w.batch.base_offset) {
                Some(b) if b.base_offset == w.batch.base_offset => FoundInstead::AnotherBatch,
                Some(_) => FoundInstead::AnotherBatchAcross,
                None => FoundInstead::Nothing,
            };
            self.violate(
                at,
                Some(tp.clone()),
                Breach::WriteLost {
                    client: w.client,
                    acked_step: w.step,
                    base_offset: w.batch.base_offset,
                    last_offset: w.batch.last_offset,
                    leader: leader.broker,
                    leader_epoch: leader.leader_epoch,
                    found,
                    high_watermark: hw,
                    min_insync_replicas: w.min_insync_replicas,
                },
                Some(guarantee),
            );
        }
    }

    /// A leader appended a producer's batch (or recognised a retry of one
    /// it had): remember which batch the coming answer acknowledges.
    pub fn observe_leader_append(&mut self, request: RequestId, partition: &TopicPartition, leader: u32, batch: BatchIdentity) {
        self.pending.insert((request, partition.clone()), (leader, batch));
    }

    /// A producer got a successful answer for `partition` of `request`.
    pub fn observe_acknowledged(&mut self, at: At, request: RequestId, partition: &TopicPartition, base_offset: i64, acks: i16, min_insync_replicas: u32) {
        let Some((_, batch)) = self.pending.remove(&(request, partition.clone())) else { return };
        if batch.base_offset != base_offset {
            return;
        }
        let seq = self.next_ack;
        self.next_ack += 1;
        let watch = self.partitions.entry(partition.clone()).or_default();
        // Writes are mostly acknowledged in offset order, so this lands at
        // or near the end.
        let key = (base_offset, seq);
        watch.acked.insert(acked_place(&watch.acked, key), (key, AckedWrite { batch, client: request.client, acks, min_insync_replicas, step: at.step }));
        // Acknowledged after the leader's HW passed it: compare it next time.
        watch.verified_below = watch.verified_below.min(base_offset);
    }

    /// The active controller elected a leader from outside the ISR, which
    /// starts `leader_epoch`.
    pub fn observe_unclean_election(&mut self, partition: &TopicPartition, leader_epoch: i32) {
        self.partitions.entry(partition.clone()).or_default().unclean_epochs.push(leader_epoch);
    }

    /// A consumer's fetch returned `records` records up to `next_offset`,
    /// with the leader's HW in the answer.
    pub fn observe_consumer_read(&mut self, at: At, partition: &TopicPartition, records: u32, next_offset: i64, high_watermark: i64) {
        if records == 0 {
            return;
        }
        let max_hw = self.partitions.get(partition).map_or(0, |w| w.max_high_watermark);
        let bound = high_watermark.min(max_hw);
        if next_offset > bound {
            self.violate(
                at,
                Some(partition.clone()),
                Breach::ReadAboveCommitted { consumer: at.node, last_offset: next_offset - 1, bound },
                None,
            );
        }
    }

    /// A replica appended offsets `base..=last`; its LEO is now `leo`.
    pub fn observe_replica_append(&mut self, at: At, replica: u32, partition: &TopicPartition, base: i64, last: i64, leo: i64) {
        let key = (replica, partition.clone());
        let expected = self.log_end_offsets.get(&key).copied().unwrap_or(0);
        if base != expected || last < base || leo != last + 1 {
            self.violate(
                at,
                Some(partition.clone()),
                Breach::OffsetGap { replica, base, last, expected, leo },
                None,
            );
        }
        self.log_end_offsets.insert(key, leo);
    }

    pub fn observe_truncation(&mut self, replica: u32, partition: &TopicPartition, to_offset: i64) {
        self.log_end_offsets.insert((replica, partition.clone()), to_offset);
        if let Some(batches) = self.idempotent_batches.get_mut(&(replica, partition.clone())) {
            batches.retain(|(_, base)| *base < to_offset);
        }
    }

    /// A batch appended to `replica`'s log: an idempotent producer's batch
    /// already there at another offset is a duplicate Kafka's producer
    /// state would have refused.
    pub fn observe_idempotent_batch(&mut self, at: At, replica: u32, partition: &TopicPartition, batch: &BatchIdentity) {
        if batch.producer_id < 0 {
            return;
        }
        let key = (batch.producer_id, batch.producer_epoch, batch.base_sequence);
        let batches = self.idempotent_batches.entry((replica, partition.clone())).or_default();
        let earlier = batches.iter().find(|(k, base)| *k == key && *base != batch.base_offset).map(|(_, base)| *base);
        if !batches.iter().any(|(k, base)| *k == key && *base == batch.base_offset) {
            // A plain vector keeps the checker's clone (one per snapshot)
            // small in the page; 64 entries shift cheaply.
            if batches.len() == IDEMPOTENT_WINDOW {
                batches.remove(0);
            }
            batches.push((key, batch.base_offset));
        }
        if let Some(first) = earlier {
            self.violate(
                at,
                Some(partition.clone()),
                Breach::BatchTwice {
                    replica,
                    producer_id: batch.producer_id,
                    producer_epoch: batch.producer_epoch,
                    base_sequence: batch.base_sequence,
                    first,
                    again: batch.base_offset,
                },
                None,
            );
        }
    }

    /// A crash ends every leadership of the broker; its logs survive.
    pub fn observe_broker_stopped(&mut self, broker: u32) {
        self.leader_high_watermarks.retain(|(b, _), _| *b != broker);
    }
}

fn batch_in(log: &Log, offset: i64) -> Option<BatchIdentity> {
    log.batch_header_for(offset).map(|h| BatchIdentity::from(&h))
}

fn batch_on(sim: &Simulation, broker: u32, tp: &TopicPartition, offset: i64) -> Option<BatchIdentity> {
    batch_in(&sim.broker(broker)?.partition(tp)?.log, offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(step: u64, node: NodeId) -> At {
        At { step, time_ms: step * 10, node }
    }

    fn tp() -> TopicPartition {
        TopicPartition::new("orders", 0)
    }

    fn leader(broker: u32, epoch: i32, hw: i64) -> LeaderObservation {
        LeaderObservation { broker, partition: tp(), leader_epoch: epoch, high_watermark: hw, log_start_offset: 0 }
    }

    fn batch(offset: i64, crc: u32) -> BatchIdentity {
        batch_in_epoch(offset, crc, 1)
    }

    #[test]
    fn an_idempotent_batch_written_twice_is_caught_and_truncation_forgets_it() {
        let mut c = InvariantChecker::new();
        let first = batch(3, 11);
        // The same producer id, epoch and sequence again at offset 4.
        let again = BatchIdentity { base_offset: 4, last_offset: 4, ..first };
        c.observe_idempotent_batch(at(1, NodeId::Broker(0)), 0, &tp(), &first);
        c.observe_idempotent_batch(at(2, NodeId::Broker(1)), 1, &tp(), &first);
        assert!(c.violations().is_empty(), "one copy per replica is fine");
        c.observe_idempotent_batch(at(3, NodeId::Broker(0)), 0, &tp(), &first);
        assert!(c.violations().is_empty(), "the same batch seen again at its own offset is no copy");
        c.observe_idempotent_batch(at(4, NodeId::Broker(0)), 0, &tp(), &again);
        assert_eq!(c.violations().len(), 1);
        assert_eq!(c.violations()[0].invariant(), Invariant::IdempotentBatchOnce);
        assert!(
            matches!(c.violations()[0].breach, Breach::BatchTwice { replica: 0, first: 3, again: 4, .. }),
            "{}",
            c.violations()[0]
        );
        // Replica 1 truncates below it, then takes the batch at offset 4: the
        // copy it had is gone, so that is no duplicate.
        c.observe_truncation(1, &tp(), 3);
        c.observe_idempotent_batch(at(5, NodeId::Broker(1)), 1, &tp(), &again);
        assert_eq!(c.violations().len(), 1);
        // A producer without idempotence (id -1) is never compared.
        let plain = BatchIdentity { producer_id: -1, ..first };
        c.observe_idempotent_batch(at(6, NodeId::Broker(2)), 2, &tp(), &plain);
        c.observe_idempotent_batch(at(7, NodeId::Broker(2)), 2, &tp(), &BatchIdentity { base_offset: 9, ..plain });
        assert_eq!(c.violations().len(), 1);
    }

    fn batch_in_epoch(offset: i64, crc: u32, partition_leader_epoch: i32) -> BatchIdentity {
        let base_sequence = offset as i32;
        BatchIdentity { base_offset: offset, last_offset: offset, producer_id: 7, producer_epoch: 0, base_sequence, crc, partition_leader_epoch }
    }

    fn request(c: i32) -> RequestId {
        RequestId { client: NodeId::Client(0), correlation_id: c }
    }

    fn only(checker: &InvariantChecker) -> &Violation {
        assert_eq!(checker.violations().len(), 1, "{:?}", checker.violations());
        &checker.violations()[0]
    }

    #[test]
    fn two_raft_leaders_in_one_epoch_break_election_safety() {
        let mut c = InvariantChecker::new();
        c.observe_raft_leader(at(1, NodeId::Controller(0)), 0, 3);
        c.observe_raft_leader(at(2, NodeId::Controller(0)), 0, 3);
        c.observe_raft_leader(at(3, NodeId::Controller(1)), 1, 4);
        assert!(c.violations().is_empty());
        c.observe_raft_leader(at(4, NodeId::Controller(2)), 2, 4);
        let v = only(&c);
        assert_eq!((v.invariant(), v.step, v.node), (Invariant::ElectionSafety, 4, NodeId::Controller(2)));
        assert_eq!(v.invariant().name(), "Election Safety");
    }

    #[test]
    fn two_partition_leaders_in_one_leader_epoch_are_caught() {
        let mut c = InvariantChecker::new();
        c.observe_leader(at(1, NodeId::Broker(0)), &leader(0, 2, 0), |_| None);
        c.observe_leader(at(2, NodeId::Broker(1)), &leader(1, 3, 0), |_| None);
        assert!(c.violations().is_empty());
        c.observe_leader(at(3, NodeId::Broker(2)), &leader(2, 3, 0), |_| None);
        let v = only(&c);
        assert_eq!((v.invariant(), v.partition.clone()), (Invariant::OneLeaderPerLeaderEpoch, Some(tp())));
    }

    #[test]
    fn a_high_watermark_going_back_within_a_leadership_is_caught_but_not_across_leaderships() {
        let mut c = InvariantChecker::new();
        c.observe_leader(at(1, NodeId::Broker(0)), &leader(0, 1, 5), |_| None);
        c.observe_broker_stopped(0);
        // A new leadership may start lower (a follower's HW).
        c.observe_leader(at(2, NodeId::Broker(0)), &leader(0, 2, 3), |_| None);
        assert!(c.violations().is_empty());
        c.observe_leader(at(3, NodeId::Broker(0)), &leader(0, 2, 2), |_| None);
        assert_eq!(only(&c).invariant(), Invariant::HighWatermarkMonotonic);
    }

    #[test]
    fn an_acks_all_write_missing_from_the_new_leaders_committed_log_is_a_guaranteed_loss() {
        let mut c = InvariantChecker::new();
        let b = batch(4, 0xaaaa);
        c.observe_leader_append(request(1), &tp(), 0, b);
        c.observe_acknowledged(at(1, NodeId::Client(0)), request(1), &tp(), 4, -1, 2);
        c.observe_leader(at(2, NodeId::Broker(0)), &leader(0, 1, 5), |o| (o == 4).then_some(b));
        assert!(c.violations().is_empty(), "the leader has it");
        // A new leader with something else at offset 4, committed.
        c.observe_leader(at(3, NodeId::Broker(1)), &leader(1, 2, 5), |o| (o == 4).then_some(batch(4, 0xbbbb)));
        let v = only(&c);
        assert_eq!(v.invariant(), Invariant::AcknowledgedWriteKept);
        assert_eq!(v.guarantee, Some(Guarantee::Guaranteed));
        assert_eq!(v.step, 3);
        assert!(
            matches!(v.breach, Breach::WriteLost { base_offset: 4, last_offset: 4, leader: 1, found: FoundInstead::AnotherBatch, min_insync_replicas: 2, .. }),
            "{v}"
        );
        // Reported once.
        c.observe_leader(at(4, NodeId::Broker(1)), &leader(1, 2, 6), |o| (o == 4).then_some(batch(4, 0xbbbb)));
        assert_eq!(c.violations().len(), 1);
    }

    /// A long run's acknowledged writes are shared with a copy of the
    /// checker (a timeline snapshot), answers that arrive out of offset
    /// order are kept in order, and a write missing from a later leader is
    /// still found among a thousand.
    #[test]
    fn a_copy_shares_the_acknowledged_writes_and_a_loss_among_many_is_found() {
        let mut c = InvariantChecker::new();
        c.observe_leader(at(1, NodeId::Broker(0)), &leader(0, 1, 0), |_| None);
        // Offsets 0..1000, each pair answered in reverse order.
        for pair in 0..500i64 {
            for offset in [2 * pair + 1, 2 * pair] {
                let r = request(offset as i32);
                c.observe_leader_append(r, &tp(), 0, batch(offset, 7));
                c.observe_acknowledged(at(2, NodeId::Client(0)), r, &tp(), offset, -1, 2);
            }
        }
        let acked = |c: &InvariantChecker| c.partitions[&tp()].acked.clone();
        let keys: Vec<i64> = acked(&c).iter().map(|((offset, _), _)| *offset).collect();
        assert_eq!(keys, (0..1000).collect::<Vec<_>>());
        let copy = c.clone();
        assert!(acked(&copy).shares_chunks_with(&acked(&c)));
        // Leader 1 holds every write but offset 613.
        c.observe_leader(at(3, NodeId::Broker(1)), &leader(1, 2, 1000), |o| (o != 613).then_some(batch(o, 7)));
        let v = only(&c);
        assert!(matches!(v.breach, Breach::WriteLost { base_offset: 613, leader: 1, .. }), "{v}");
        assert_eq!(acked(&c).len(), 999);
        // The copy is untouched by the live checker's change.
        assert_eq!(acked(&copy).len(), 1000);
        assert!(copy.violations().is_empty());
    }

    #[test]
    fn losses_after_acks_one_or_an_unclean_election_are_not_guaranteed_and_deposed_leaders_do_not_count() {
        let mut c = InvariantChecker::new();
        c.observe_leader(at(1, NodeId::Broker(0)), &leader(0, 1, 0), |_| None);
        c.observe_leader_append(request(1), &tp(), 0, batch(0, 1));
        c.observe_acknowledged(at(2, NodeId::Client(0)), request(1), &tp(), 0, 1, 1);
        c.observe_leader_append(request(2), &tp(), 0, batch(1, 2));
        c.observe_acknowledged(at(3, NodeId::Client(0)), request(2), &tp(), 1, -1, 1);
        c.observe_unclean_election(&tp(), 2);
        c.observe_leader(at(5, NodeId::Broker(1)), &leader(1, 2, 0), |_| None);
        // The deposed leader 0 (epoch 1) is not the partition's history.
        c.observe_leader(at(6, NodeId::Broker(0)), &leader(0, 1, 2), |o| Some(batch(o, 9)));
        assert!(c.violations().is_empty());
        c.observe_leader(at(7, NodeId::Broker(1)), &leader(1, 2, 2), |o| Some(batch(o, 9)));
        let g: Vec<Option<Guarantee>> = c.violations().iter().map(|v| v.guarantee).collect();
        assert_eq!(
            g,
            vec![
                Some(Guarantee::NotGuaranteed(NoGuarantee::AcksOne)),
                Some(Guarantee::NotGuaranteed(NoGuarantee::UncleanElection))
            ]
        );
    }

    /// Seed 169 of the unclean sweep: leader 0 (epoch 1) is cut off and
    /// fenced, an unclean election makes 1 the leader at epoch 2, and 0,
    /// healed but not yet told, acknowledges one more write alone. That write
    /// is lost to the unclean election even though it was acknowledged
    /// after it.
    #[test]
    fn a_write_a_deposed_leader_acknowledges_after_an_unclean_election_is_not_guaranteed() {
        let mut c = InvariantChecker::new();
        c.observe_leader(at(1, NodeId::Broker(0)), &leader(0, 1, 0), |_| None);
        c.observe_unclean_election(&tp(), 2);
        c.observe_leader_append(request(1), &tp(), 0, batch_in_epoch(0, 1, 1));
        c.observe_acknowledged(at(3, NodeId::Client(0)), request(1), &tp(), 0, -1, 1);
        // A clean leader's write from epoch 2 is still guaranteed.
        c.observe_leader_append(request(2), &tp(), 1, batch_in_epoch(1, 2, 2));
        c.observe_acknowledged(at(4, NodeId::Client(0)), request(2), &tp(), 1, -1, 1);
        c.observe_leader(at(5, NodeId::Broker(1)), &leader(1, 2, 2), |o| Some(batch_in_epoch(o, 9, 2)));
        let g: Vec<Option<Guarantee>> = c.violations().iter().map(|v| v.guarantee).collect();
        assert_eq!(g, vec![Some(Guarantee::NotGuaranteed(NoGuarantee::UncleanElection)), Some(Guarantee::Guaranteed)]);
    }

    #[test]
    fn a_consumer_reading_above_the_high_watermark_is_caught() {
        let mut c = InvariantChecker::new();
        c.observe_leader(at(1, NodeId::Broker(0)), &leader(0, 1, 3), |_| None);
        c.observe_consumer_read(at(2, NodeId::Client(1)), &tp(), 3, 3, 3);
        assert!(c.violations().is_empty());
        c.observe_consumer_read(at(3, NodeId::Client(1)), &tp(), 2, 5, 5);
        assert_eq!(only(&c).invariant(), Invariant::ConsumerReadsCommitted);
    }

    #[test]
    fn a_gap_or_a_repeated_offset_in_a_replica_log_is_caught() {
        let mut c = InvariantChecker::new();
        c.observe_replica_append(at(1, NodeId::Broker(0)), 0, &tp(), 0, 2, 3);
        c.observe_truncation(0, &tp(), 1);
        c.observe_replica_append(at(2, NodeId::Broker(0)), 0, &tp(), 1, 1, 2);
        assert!(c.violations().is_empty());
        c.observe_replica_append(at(3, NodeId::Broker(0)), 0, &tp(), 1, 1, 2);
        assert_eq!(only(&c).invariant(), Invariant::OffsetsContiguous);
        c.observe_replica_append(at(4, NodeId::Broker(0)), 0, &tp(), 4, 4, 5);
        assert_eq!(c.violations().len(), 2, "a gap too");
    }
}
