//! The KRaft controller quorum in the cluster: a dedicated controller node
//! (`process.roles=controller`) around a [`RaftNode`] that replicates the
//! `__cluster_metadata` log. The records it writes are in `sim::metadata`,
//! the messages it exchanges in `sim::control_plane`.
//!
//! The node never acts on the world itself: it turns the Raft node's outputs
//! into the simulation's (`Send` over links, timers, trace events) and gives
//! it random numbers from the simulation's one RNG through `Ctx`.
//!
//! The active controller (the Raft leader) registers brokers, keeps their
//! sessions from their heartbeats and fences a broker whose session ends,
//! creates the configured topics and elects partition leaders, all through
//! metadata records. With `controllers` = 0 there is none of this: brokers
//! get their metadata statically at start (see `Simulation::new`).

use super::config::TopicSpec;
use super::control_plane::{ControlMessage, BROKER_SESSION_TIMEOUT_MS, METADATA_FETCH_MAX_WAIT_MS};
use super::metadata::{MetadataImage, MetadataRecord, PartitionRecord};
use super::ids::{NodeId, TopicName, TopicPartition};
use super::node;
use super::placement::{assign_replicas, UsableBroker};
use super::protocol::{ErrorCode, Message};
use super::raft::log::RaftRecord;
use super::raft::config::RaftConfig;
use super::raft::node::RaftNode;
use super::raft::output::{RaftOutput, RaftTimer};
use super::raft::state::RaftDurable;
use super::trace::{ElectionTrigger, LeaderElection, Standing, TraceKind};
use super::view::BrokerSessionView;
use crate::sim::collections::BTreeMap;

/// The context of a controller's handlers: its outputs can set only controller timers.
pub type Ctx<'a> = node::Ctx<'a, ControllerTimer>;

/// The controller's timers: its Raft node's, and the active controller's
/// own tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ControllerTimer {
    Raft(RaftTimer),
    /// A held metadata fetch from `broker` has waited its max wait.
    FetchExpiry { broker: u32, correlation_id: i32 },
    /// The earliest broker session deadline, `due_ms`, has come: fence that
    /// broker if no heartbeat came first (QuorumController's
    /// maybeFenceReplicas event). A check whose `due_ms` is no longer the
    /// one the controller waits for is stale and does nothing.
    SessionCheck { due_ms: u64 },
}

/// What the cluster asks of the control plane: how many brokers to wait
/// for, and the topics to create once they are registered (standing in for
/// an admin's CreateTopics after the cluster comes up).
#[derive(Clone, Debug, Default)]
pub struct ControllerSetup {
    pub brokers: u32,
    pub topics: Vec<TopicSpec>,
}

/// The outcome of one partition leader election.
struct Election {
    leader: Option<u32>,
    isr: Vec<u32>,
    /// The leader comes from outside the ISR.
    unclean: bool,
    /// The replicas before the leader in assignment order that could not
    /// lead, and why.
    passed_over: Vec<(u32, Standing)>,
}

/// A dedicated controller process.
#[derive(Clone, Debug)]
pub struct Controller {
    id: u32,
    voters: Vec<u32>,
    config: RaftConfig,
    setup: ControllerSetup,
    /// `None` while the process is down; its durable state is kept aside.
    raft: Option<RaftNode<MetadataRecord>>,
    /// What survived the last crash (the log and the quorum-state file).
    stopped: Option<RaftDurable<MetadataRecord>>,
    /// The epoch this controller is active in, once it noticed.
    active_epoch: Option<i32>,
    /// The active controller's last heartbeat from each broker
    /// (BrokerHeartbeatManager's lastContactNs).
    last_heartbeat_ms: BTreeMap<u32, u64>,
    /// The `due_ms` of the session check that is armed, if any. It is never
    /// later than any unfenced broker's session deadline: deadlines only
    /// move later (a heartbeat) or appear at least a session timeout away
    /// (an unfencing, a new active controller), so a check that fires
    /// early finds nobody stale and arms the next one.
    session_check_due_ms: Option<u64>,
    /// Held metadata fetches: broker -> (correlation id, fetch offset).
    parked: BTreeMap<u32, (i32, i64)>,
    /// The metadata offset each broker's last heartbeat reported.
    metadata_offsets: BTreeMap<u32, i64>,
    /// Brokers in controlled shutdown, with the log end offset after the
    /// records that moved everything off them (BrokerHeartbeatManager's
    /// controlledShutdownOffset).
    shutting_down: BTreeMap<u32, i64>,
}

impl Controller {
    pub fn new(id: u32, voters: &[u32], config: RaftConfig, setup: ControllerSetup) -> Self {
        // `let else` rather than `expect`, which would link the error's Debug
        // into the page.
        let Ok(raft) = RaftNode::new(id, voters, config) else { unreachable!("controller voters are validated") };
        Self {
            id,
            voters: voters.to_vec(),
            config,
            setup,
            raft: Some(raft),
            stopped: None,
            active_epoch: None,
            last_heartbeat_ms: BTreeMap::new(),
            session_check_due_ms: None,
            parked: BTreeMap::new(),
            metadata_offsets: BTreeMap::new(),
            shutting_down: BTreeMap::new(),
        }
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    pub fn is_alive(&self) -> bool {
        self.raft.is_some()
    }

    /// The Raft node, while the process runs.
    pub fn raft(&self) -> Option<&RaftNode<MetadataRecord>> {
        self.raft.as_ref()
    }

    /// Whether this controller is the active controller (the Raft leader).
    pub fn is_active(&self) -> bool {
        self.raft.as_ref().is_some_and(|r| r.is_leader())
    }

    /// The metadata log's end offset, alive or not (a crash keeps the log).
    pub fn log_len(&self) -> i64 {
        match (&self.raft, &self.stopped) {
            (Some(r), _) => r.log_end_offset(),
            (None, Some(d)) => d.log.end_offset(),
            (None, None) => 0,
        }
    }

    /// The image of the whole log (`committed_only`: up to the high
    /// watermark).
    pub fn image(&self, committed_only: bool) -> MetadataImage {
        let hw = match &self.raft {
            Some(raft) if committed_only => raft.high_watermark().unwrap_or(0),
            _ => i64::MAX,
        };
        self.image_below(hw)
    }

    /// The image of this voter's log up to, not including, offset `end`.
    pub fn image_below(&self, end: i64) -> MetadataImage {
        let mut image = MetadataImage::default();
        if let Some(raft) = &self.raft {
            for e in raft.log() {
                if e.offset >= end {
                    break;
                }
                if let RaftRecord::Data(r) = &e.record {
                    image.apply(r);
                }
            }
        }
        image
    }

    pub fn on_start(&mut self, ctx: &mut Ctx) {
        let Some(raft) = self.raft.as_mut() else {
            return;
        };
        let mut out = Vec::new();
        let rng = &mut *ctx.rng;
        let mut draw = || rng.next_u64();
        // A start can only fail if the node already started; the simulation
        // starts each incarnation once.
        let _ = raft.on_start(ctx.now_ms, &mut draw, &mut out);
        self.emit(ctx, out);
        self.after_input(ctx);
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, timer: ControllerTimer) {
        let Some(raft) = self.raft.as_mut() else {
            return;
        };
        match timer {
            ControllerTimer::Raft(timer) => {
                let mut out = Vec::new();
                let rng = &mut *ctx.rng;
                let mut draw = || rng.next_u64();
                let _ = raft.on_timer(ctx.now_ms, timer, &mut draw, &mut out);
                self.emit(ctx, out);
            }
            ControllerTimer::FetchExpiry { broker, correlation_id } => {
                if let Some((c, offset)) = self.parked.get(&broker).copied() {
                    if c == correlation_id {
                        self.parked.remove(&broker);
                        self.answer_fetch(ctx, broker, correlation_id, offset);
                    }
                }
            }
            ControllerTimer::SessionCheck { due_ms } => {
                if self.session_check_due_ms == Some(due_ms) {
                    self.session_check_due_ms = None;
                    self.maybe_fence_one_stale_broker(ctx);
                }
            }
        }
        self.after_input(ctx);
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, from: NodeId, msg: Message) {
        if self.raft.is_none() {
            return;
        }
        match (from, msg) {
            (NodeId::Controller(peer), Message::Raft { msg, .. }) => {
                let Some(raft) = self.raft.as_mut() else { return };
                let mut out = Vec::new();
                let rng = &mut *ctx.rng;
                let mut draw = || rng.next_u64();
                // Messages from unknown peers are refused by the node.
                let _ = raft.on_message(ctx.now_ms, peer, msg, &mut draw, &mut out);
                self.emit(ctx, out);
            }
            (NodeId::Broker(_), Message::Control(c)) => self.on_control(ctx, c),
            _ => {}
        }
        self.after_input(ctx);
    }

    fn leader_hint(&self) -> Option<u32> {
        self.raft.as_ref().and_then(|r| r.leader_id())
    }

    fn on_control(&mut self, ctx: &mut Ctx, msg: ControlMessage) {
        let active = self.is_active();
        let hint = self.leader_hint();
        let not_leader = ErrorCode::NotController;
        match msg {
            ControlMessage::BrokerRegistrationRequest { broker, correlation_id, incarnation } => {
                if !active {
                    let reply = ControlMessage::BrokerRegistrationResponse {
                        broker,
                        correlation_id,
                        error: not_leader,
                        broker_epoch: -1,
                        leader_hint: hint,
                    };
                    ctx.send(NodeId::Broker(broker), Message::Control(reply));
                    return;
                }
                let (error, broker_epoch) = self.register_broker(ctx, broker, incarnation);
                let reply = ControlMessage::BrokerRegistrationResponse {
                    broker,
                    correlation_id,
                    error,
                    broker_epoch,
                    leader_hint: Some(self.id),
                };
                ctx.send(NodeId::Broker(broker), Message::Control(reply));
            }
            ControlMessage::BrokerHeartbeatRequest { broker, correlation_id, broker_epoch, metadata_offset, want_shut_down } => {
                if !active {
                    let reply = ControlMessage::BrokerHeartbeatResponse {
                        broker,
                        correlation_id,
                        error: not_leader,
                        fenced: true,
                        leader_hint: hint,
                        should_shut_down: false,
                    };
                    ctx.send(NodeId::Broker(broker), Message::Control(reply));
                    return;
                }
                let image = self.image(false);
                let mut fenced = true;
                let mut error = ErrorCode::None;
                let mut should_shut_down = false;
                match image.brokers.get(&broker).map(|b| (b.epoch, b.fenced)) {
                    Some((epoch, was_fenced)) if epoch == broker_epoch => {
                        self.last_heartbeat_ms.insert(broker, ctx.now_ms);
                        self.metadata_offsets.insert(broker, metadata_offset);
                        fenced = was_fenced;
                        if want_shut_down {
                            should_shut_down = self.controlled_shutdown(ctx, broker);
                            fenced = fenced || should_shut_down;
                        } else if fenced && metadata_offset > epoch {
                            // Unfence once the broker has caught up with the
                            // metadata log up to its own registration.
                            self.append(ctx, MetadataRecord::BrokerRegistrationChange { broker, fenced: false });
                            self.elect_offline_leaders(ctx, broker);
                            fenced = false;
                            // Its session now counts down.
                            self.reschedule_session_check(ctx);
                        }
                    }
                    // The broker registers again.
                    _ => error = ErrorCode::StaleBrokerEpoch,
                }
                let reply = ControlMessage::BrokerHeartbeatResponse {
                    broker,
                    correlation_id,
                    error,
                    fenced,
                    leader_hint: Some(self.id),
                    should_shut_down,
                };
                ctx.send(NodeId::Broker(broker), Message::Control(reply));
            }
            ControlMessage::MetadataFetchRequest { broker, correlation_id, offset } => {
                if !active {
                    let reply = ControlMessage::MetadataFetchResponse {
                        broker,
                        correlation_id,
                        error: not_leader,
                        leader_hint: hint,
                        records: Vec::new(),
                        next_offset: offset,
                    };
                    ctx.send(NodeId::Broker(broker), Message::Control(reply));
                    return;
                }
                let hw = self.raft.as_ref().and_then(|r| r.high_watermark()).unwrap_or(0);
                if hw > offset {
                    self.answer_fetch(ctx, broker, correlation_id, offset);
                } else {
                    self.parked.insert(broker, (correlation_id, offset));
                    ctx.timer(
                        METADATA_FETCH_MAX_WAIT_MS,
                        ControllerTimer::FetchExpiry { broker, correlation_id },
                    );
                }
            }
            ControlMessage::AlterPartitionRequest { broker, correlation_id, partition, leader_epoch, partition_epoch, isr } => {
                let error = if active {
                    self.alter_partition(ctx, broker, &partition, leader_epoch, partition_epoch, isr)
                } else {
                    not_leader
                };
                let reply = ControlMessage::AlterPartitionResponse {
                    broker,
                    correlation_id,
                    partition,
                    error,
                    leader_hint: if active { Some(self.id) } else { hint },
                };
                ctx.send(NodeId::Broker(broker), Message::Control(reply));
            }
            // Responses go to brokers, never to controllers.
            _ => {}
        }
    }

    fn answer_fetch(&mut self, ctx: &mut Ctx, broker: u32, correlation_id: i32, offset: i64) {
        let Some(raft) = self.raft.as_ref() else { return };
        let hw = raft.high_watermark().unwrap_or(0);
        let mut records = Vec::new();
        let mut next_offset = offset;
        for e in raft.log().iter().filter(|e| e.offset >= offset && e.offset < hw) {
            if let RaftRecord::Data(r) = &e.record {
                records.push((e.offset, r.clone()));
            }
            next_offset = e.offset + 1;
        }
        let reply = ControlMessage::MetadataFetchResponse {
            broker,
            correlation_id,
            error: ErrorCode::None,
            leader_hint: Some(self.id),
            records,
            next_offset,
        };
        ctx.send(NodeId::Broker(broker), Message::Control(reply));
    }

    /// After every input: notice a new or lost leadership, create the
    /// configured topics once every broker is up, and answer held fetches
    /// that now have committed records.
    fn after_input(&mut self, ctx: &mut Ctx) {
        let Some(raft) = self.raft.as_ref() else { return };
        if raft.is_leader() {
            let epoch = raft.epoch();
            if self.active_epoch != Some(epoch) {
                self.active_epoch = Some(epoch);
                // A new active controller gives every broker a fresh session.
                let brokers: Vec<u32> = self.image(false).brokers.keys().copied().collect();
                self.last_heartbeat_ms = brokers.into_iter().map(|b| (b, ctx.now_ms)).collect();
                self.parked.clear();
                ctx.trace(|| TraceKind::ControllerActivated { controller: self.id, epoch });
                self.reschedule_session_check(ctx);
            }
            self.maybe_create_topics(ctx);
        } else if self.active_epoch.take().is_some() {
            self.last_heartbeat_ms.clear();
            let parked = std::mem::take(&mut self.parked);
            let hint = self.leader_hint();
            for (broker, (correlation_id, offset)) in parked {
                let reply = ControlMessage::MetadataFetchResponse {
                    broker,
                    correlation_id,
                    error: ErrorCode::NotController,
                    leader_hint: hint,
                    records: Vec::new(),
                    next_offset: offset,
                };
                ctx.send(NodeId::Broker(broker), Message::Control(reply));
            }
        }
        let hw = self.raft.as_ref().and_then(|r| r.high_watermark()).unwrap_or(0);
        let ready: Vec<(u32, i32, i64)> =
            self.parked.iter().filter(|(_, (_, o))| hw > *o).map(|(b, (c, o))| (*b, *c, *o)).collect();
        for (broker, correlation_id, offset) in ready {
            self.parked.remove(&broker);
            self.answer_fetch(ctx, broker, correlation_id, offset);
        }
    }

    fn append(&mut self, ctx: &mut Ctx, record: MetadataRecord) {
        let Some(raft) = self.raft.as_mut() else { return };
        let mut out = Vec::new();
        let trace_record = record.clone();
        if let Ok(offset) = raft.propose(ctx.now_ms, record, &mut out) {
            ctx.trace(|| TraceKind::MetadataRecordAppended { controller: self.id, offset, record: Box::new(trace_record) });
        }
        self.emit(ctx, out);
    }

    fn maybe_create_topics(&mut self, ctx: &mut Ctx) {
        let image = self.image(false);
        let missing: Vec<TopicSpec> =
            self.setup.topics.iter().filter(|t| !image.topics.contains(&t.name)).cloned().collect();
        if missing.is_empty() {
            return;
        }
        let usable: Vec<UsableBroker> =
            image.brokers.iter().map(|(id, b)| UsableBroker { id: *id, fenced: b.fenced }).collect();
        if (usable.iter().filter(|b| !b.fenced).count() as u32) < self.setup.brokers {
            return;
        }
        for t in missing {
            // The setup was validated against the broker count, so placement
            // cannot fail here; a topic it could not place would stay missing.
            let Ok(assignments) = assign_replicas(&usable, t.partitions, t.replication_factor, ctx.rng) else { continue };
            self.append(ctx, MetadataRecord::Topic { name: t.name.clone(), partitions: t.partitions });
            // One shared name for all of the topic's partitions, so their
            // copies compare by pointer instead of by string.
            let name = TopicName::from(t.name.as_str());
            for (p, replicas) in assignments.into_iter().enumerate() {
                let record = PartitionRecord {
                    partition: TopicPartition::new(name.clone(), p as u32),
                    leader: replicas.first().copied(),
                    isr: replicas.clone(),
                    replicas,
                    leader_epoch: 0,
                    partition_epoch: 0,
                };
                self.append(ctx, MetadataRecord::Partition(record));
            }
        }
    }

    /// ClusterControlManager.registerBroker, with the broker epoch it
    /// answers. A registration under the same id from another process
    /// (incarnation) whose session is still valid refuses this one with
    /// DUPLICATE_BROKER_REGISTRATION: the controller cannot tell a restart
    /// from a second broker configured with the same id, so a restarted
    /// broker waits until its old session expires and it is fenced. The
    /// same process asking again (its answer was lost) keeps its epoch; Kafka
    /// writes the registration again unchanged, which the simulation leaves
    /// out since the record would change nothing. A new process is first
    /// taken out of every ISR and leadership it held
    /// (ReplicationControlManager.handleBrokerUncleanShutdown, the same
    /// partition changes as fencing), then registered, fenced, with a new
    /// epoch.
    fn register_broker(&mut self, ctx: &mut Ctx, broker: u32, incarnation: u32) -> (ErrorCode, i64) {
        let now = ctx.now_ms;
        if let Some(existing) = self.image(false).brokers.get(&broker).copied() {
            if existing.incarnation == incarnation {
                return (ErrorCode::None, existing.epoch);
            }
            let session_ends_ms = self.last_heartbeat_ms.get(&broker).map_or(0, |t| t.saturating_add(BROKER_SESSION_TIMEOUT_MS));
            // BrokerHeartbeatManager.hasValidSession; as in the session
            // check, the deadline's millisecond is already past it.
            if !existing.fenced && now < session_ends_ms {
                ctx.trace(|| TraceKind::BrokerRegistrationRefused { broker, controller: self.id, session_ends_ms });
                return (ErrorCode::DuplicateBrokerRegistration, -1);
            }
            self.shutting_down.remove(&broker);
            self.move_off(ctx, broker, ElectionTrigger::LeaderRestarted);
        }
        let epoch = self.raft.as_ref().map_or(0, |r| r.log_end_offset());
        self.append(ctx, MetadataRecord::RegisterBroker { broker, epoch, incarnation });
        self.last_heartbeat_ms.insert(broker, now);
        (ErrorCode::None, epoch)
    }

    /// The session deadline of every registered broker: its last heartbeat
    /// plus `broker.session.timeout.ms`, with whether it is fenced (as this
    /// controller's log says, uncommitted records included, which is what
    /// BrokerHeartbeatManager tracks). A broker with no heartbeat recorded
    /// is due at once.
    fn session_deadlines(&self, image: &MetadataImage) -> Vec<(u32, u64, u64, bool)> {
        image
            .brokers
            .iter()
            .map(|(broker, b)| {
                let last = self.last_heartbeat_ms.get(broker).copied();
                let deadline = last.map_or(0, |t| t.saturating_add(BROKER_SESSION_TIMEOUT_MS));
                (*broker, last.unwrap_or(0), deadline, b.fenced)
            })
            .collect()
    }

    /// BrokerHeartbeatManager's nextCheckTimeNs: the unfenced broker whose
    /// session ends first (ties by broker id) and when, as (broker, last
    /// heartbeat, deadline).
    fn next_session_deadline(&self, image: &MetadataImage) -> Option<(u32, u64, u64)> {
        self.session_deadlines(image)
            .into_iter()
            .filter(|(_, _, _, fenced)| !fenced)
            .min_by_key(|(broker, _, deadline, _)| (*deadline, *broker))
            .map(|(broker, last, deadline, _)| (broker, last, deadline))
    }

    /// QuorumController.rescheduleMaybeFenceStaleBrokers: the session check
    /// is due at the earliest session deadline, so a broker is fenced the
    /// moment its last heartbeat is `broker.session.timeout.ms` old. A check
    /// already armed for that time or earlier stands (see
    /// `session_check_due_ms`).
    fn reschedule_session_check(&mut self, ctx: &mut Ctx) {
        if !self.is_active() {
            return;
        }
        let Some((_, _, deadline)) = self.next_session_deadline(&self.image(false)) else {
            return;
        };
        if self.session_check_due_ms.is_some_and(|due| due <= deadline) {
            return;
        }
        self.session_check_due_ms = Some(deadline);
        ctx.timer(deadline.saturating_sub(ctx.now_ms), ControllerTimer::SessionCheck { due_ms: deadline });
    }

    /// ReplicationControlManager.maybeFenceOneStaleBroker: fences the
    /// broker whose session ended first, if it has ended, then checks again
    /// at once for the next one, as QuorumController does. Kafka's session
    /// is valid while lastContact + timeout >= now in nanoseconds, so it
    /// ends a moment after the deadline; with a clock in milliseconds the
    /// deadline's millisecond is that moment.
    fn maybe_fence_one_stale_broker(&mut self, ctx: &mut Ctx) {
        if !self.is_active() {
            return;
        }
        if let Some((broker, last, deadline)) = self.next_session_deadline(&self.image(false)) {
            if deadline <= ctx.now_ms {
                ctx.trace(|| TraceKind::BrokerSessionExpired { broker, last_heartbeat_ms: last });
                self.fence_broker(ctx, broker);
            }
        }
        self.reschedule_session_check(ctx);
    }

    /// Each registered broker's session as this controller holds it at
    /// `now_ms`, for the view; empty unless it is the active controller.
    pub fn broker_sessions(&self, now_ms: u64) -> Vec<BrokerSessionView> {
        if !self.is_active() {
            return Vec::new();
        }
        self.session_deadlines(&self.image(false))
            .into_iter()
            .map(|(broker, last_heartbeat_ms, fence_deadline_ms, fenced)| BrokerSessionView {
                broker,
                last_heartbeat_ms,
                fence_deadline_ms,
                fenced,
                heard: now_ms < fence_deadline_ms,
            })
            .collect()
    }

    /// Fences a broker: out of every ISR (never below one member), and new
    /// leaders for the partitions it led.
    fn fence_broker(&mut self, ctx: &mut Ctx, broker: u32) {
        self.append(ctx, MetadataRecord::BrokerRegistrationChange { broker, fenced: true });
        self.shutting_down.remove(&broker);
        self.move_off(ctx, broker, ElectionTrigger::LeaderFenced);
    }

    /// A heartbeat with wantShutDown (BrokerHeartbeatManager's
    /// CONTROLLED_SHUTDOWN state): the first one moves the broker's
    /// leaderships to other ISR members and takes it out of every ISR
    /// (ReplicationControlManager.handleBrokerInControlledShutdown). Returns
    /// shouldShutDown: true once every other live broker has fetched those
    /// changes, at which point the broker is fenced.
    fn controlled_shutdown(&mut self, ctx: &mut Ctx, broker: u32) -> bool {
        let offset = match self.shutting_down.get(&broker) {
            Some(o) => *o,
            None => {
                // handleBrokerInControlledShutdown: the record first, so
                // every broker knows not to add it to an ISR, then the
                // partition changes.
                self.append(ctx, MetadataRecord::BrokerInControlledShutdown { broker });
                let changes = self.move_off(ctx, broker, ElectionTrigger::LeaderShuttingDown);
                let offset = self.raft.as_ref().map_or(0, |r| r.log_end_offset());
                self.shutting_down.insert(broker, offset);
                ctx.trace(|| TraceKind::BrokerInControlledShutdown { broker, controller: self.id, partitions: changes });
                offset
            }
        };
        let image = self.image(false);
        let leads = image.partitions.values().any(|p| p.leader == Some(broker));
        // The lowest metadata offset among the live brokers that stay.
        let caught_up = image
            .brokers
            .iter()
            .filter(|(b, r)| **b != broker && !r.fenced && !self.shutting_down.contains_key(b))
            .all(|(b, _)| self.metadata_offsets.get(b).is_some_and(|o| *o >= offset));
        let committed = self.raft.as_ref().and_then(|r| r.high_watermark()).unwrap_or(0) >= offset;
        if leads || !caught_up || !committed {
            return false;
        }
        if image.is_unfenced(broker) {
            self.append(ctx, MetadataRecord::BrokerRegistrationChange { broker, fenced: true });
        }
        true
    }

    /// The partition changes that take `broker` out of every ISR (never
    /// below one member) and give the partitions it led new leaders; how
    /// many were written. `trigger` is why the broker leaves.
    fn move_off(&mut self, ctx: &mut Ctx, broker: u32, trigger: ElectionTrigger) -> u32 {
        let image = self.image(false);
        // A broker on its way out is no candidate for leadership either.
        let leaving = self.shutting_down.clone();
        let standing = |b: u32| match b {
            _ if b == broker && trigger == ElectionTrigger::LeaderShuttingDown => Some(Standing::ShuttingDown),
            _ if b == broker || !image.is_unfenced(b) => Some(Standing::Fenced),
            _ if leaving.contains_key(&b) => Some(Standing::ShuttingDown),
            _ => None,
        };
        let mut changes = 0;
        for p in image.partitions.values() {
            if !p.replicas.contains(&broker) {
                continue;
            }
            let mut isr: Vec<u32> = p.isr.iter().copied().filter(|b| *b != broker).collect();
            if isr.is_empty() {
                // Kafka keeps the last ISR member; the partition goes offline.
                isr = p.isr.clone();
            }
            let election = self.elect_leader(p, isr, standing);
            if self.append_election(ctx, p, election, trigger) {
                changes += 1;
            }
        }
        changes
    }

    /// A broker just unfenced: offline partitions get a leader again. An
    /// ISR member that returns leads cleanly; with
    /// `unclean.leader.election.enable` a returning replica outside the ISR
    /// may lead too.
    fn elect_offline_leaders(&mut self, ctx: &mut Ctx, broker: u32) {
        let image = self.image(false);
        let standing = |b: u32| (!image.is_unfenced(b) && b != broker).then_some(Standing::Fenced);
        for p in image.partitions.values() {
            if p.leader.is_none() && p.replicas.contains(&broker) {
                let election = self.elect_leader(p, p.isr.clone(), standing);
                let _ = self.append_election(ctx, p, election, ElectionTrigger::ReplicaReturned { broker });
            }
        }
    }

    /// PartitionChangeBuilder's electAnyLeader: keep the current leader if
    /// it is alive and in the ISR; else the first live ISR replica in
    /// assignment order; else, only when the topic enables unclean leader
    /// election, the first live replica in assignment order, whose ISR is
    /// then itself alone; else no leader (-1) and the partition is offline.
    /// `standing` says what keeps a replica from leading, None when it may.
    fn elect_leader(&self, p: &PartitionRecord, isr: Vec<u32>, standing: impl Fn(u32) -> Option<Standing>) -> Election {
        let alive = |b: u32| standing(b).is_none();
        // What kept each replica ahead of the leader from leading: a live
        // one there was passed over by a clean election, so it is out of
        // the ISR (an unclean one takes the first live replica).
        let passed_over = |leader: Option<u32>| -> Vec<(u32, Standing)> {
            p.replicas
                .iter()
                .copied()
                .take_while(|r| Some(*r) != leader)
                .map(|r| (r, standing(r).unwrap_or(Standing::OutOfIsr)))
                .collect()
        };
        let clean = match p.leader {
            Some(l) if alive(l) && isr.contains(&l) => Some(l),
            _ => p.replicas.iter().copied().find(|r| isr.contains(r) && alive(*r)),
        };
        if clean.is_some() {
            return Election { leader: clean, passed_over: passed_over(clean), isr, unclean: false };
        }
        if self.unclean_enabled(&p.partition.topic) {
            if let Some(leader) = p.replicas.iter().copied().find(|r| alive(*r)) {
                return Election { leader: Some(leader), isr: vec![leader], unclean: true, passed_over: passed_over(Some(leader)) };
            }
        }
        Election { leader: None, passed_over: passed_over(None), isr, unclean: false }
    }

    fn unclean_enabled(&self, topic: &str) -> bool {
        self.setup.topics.iter().any(|t| t.name == topic && t.config.unclean_leader_election_enable)
    }

    /// Writes the PartitionChangeRecord for an election, if anything
    /// changed (and says whether it did): every change bumps the partition
    /// epoch, a new leader (or none) bumps the leader epoch, and is traced
    /// with its trigger.
    fn append_election(&mut self, ctx: &mut Ctx, p: &PartitionRecord, election: Election, trigger: ElectionTrigger) -> bool {
        let Election { leader, isr, unclean, passed_over } = election;
        if leader == p.leader && isr == p.isr {
            return false;
        }
        let leader_epoch = if leader != p.leader { p.leader_epoch + 1 } else { p.leader_epoch };
        if leader != p.leader {
            ctx.trace(|| {
                TraceKind::LeaderElected(Box::new(LeaderElection {
                    controller: self.id,
                    partition: p.partition.clone(),
                    leader,
                    previous: p.leader,
                    leader_epoch,
                    trigger,
                    unclean,
                    passed_over,
                    previous_isr: p.isr.clone(),
                }))
            });
        }
        self.append(
            ctx,
            MetadataRecord::PartitionChange {
                partition: p.partition.clone(),
                isr,
                leader,
                leader_epoch,
                partition_epoch: p.partition_epoch + 1,
            },
        );
        true
    }

    /// AlterPartition from a partition leader: accept the new ISR if the
    /// leader epoch and partition epoch are current.
    fn alter_partition(&mut self, ctx: &mut Ctx, broker: u32, partition: &TopicPartition, leader_epoch: i32, partition_epoch: i32, isr: Vec<u32>) -> ErrorCode {
        let image = self.image(false);
        let Some(p) = image.partitions.get(partition) else {
            return ErrorCode::UnknownTopicOrPartition;
        };
        if p.leader != Some(broker) || p.leader_epoch != leader_epoch {
            return ErrorCode::FencedLeaderEpoch;
        }
        if p.partition_epoch != partition_epoch {
            // The leader learns the current state from the metadata log.
            return ErrorCode::InvalidUpdateVersion;
        }
        // Only live (unfenced) brokers not in controlled shutdown may join
        // the ISR (KIP-841).
        if isr
            .iter()
            .any(|b| *b != broker && !p.isr.contains(b) && (!image.is_unfenced(*b) || self.shutting_down.contains_key(b)))
        {
            return ErrorCode::IneligibleReplica;
        }
        if isr == p.isr {
            return ErrorCode::None;
        }
        self.append(
            ctx,
            MetadataRecord::PartitionChange {
                partition: partition.clone(),
                isr,
                leader: p.leader,
                leader_epoch: p.leader_epoch,
                partition_epoch: p.partition_epoch + 1,
            },
        );
        ErrorCode::None
    }

    /// A crash: volatile state (role, timers, connections, peers' progress)
    /// is lost; the log and the election record survive.
    pub fn kill(&mut self, ctx: &mut Ctx) -> bool {
        let Some(raft) = self.raft.take() else {
            return false;
        };
        self.stopped = Some(raft.into_durable());
        self.active_epoch = None;
        self.last_heartbeat_ms.clear();
        // The crash drops the armed check with every other timer.
        self.session_check_due_ms = None;
        self.parked.clear();
        ctx.trace(|| TraceKind::ControllerStopped { controller: self.id });
        true
    }

    /// A restart from the durable state (`RaftNode::recover`).
    pub fn restart(&mut self, ctx: &mut Ctx) -> bool {
        if self.raft.is_some() {
            return false;
        }
        let durable = self.stopped.take().unwrap_or_default();
        let log_end_offset = durable.log.end_offset();
        let Ok(raft) = RaftNode::recover(self.id, &self.voters, self.config, durable) else { unreachable!("controller voters are validated") };
        self.raft = Some(raft);
        ctx.trace(|| TraceKind::ControllerStarted { controller: self.id, recovered: true, log_end_offset });
        self.on_start(ctx);
        true
    }

    fn emit(&self, ctx: &mut Ctx, out: Vec<RaftOutput<MetadataRecord>>) {
        for o in out {
            match o {
                RaftOutput::Send { to, msg } => {
                    ctx.send(NodeId::Controller(to), Message::Raft { from: self.id, msg });
                }
                RaftOutput::SetTimer { after_ms, timer } => {
                    ctx.timer(after_ms, ControllerTimer::Raft(timer))
                }
                RaftOutput::Event(event) => ctx.trace(|| TraceKind::Raft { controller: self.id, event }),
            }
        }
    }
}
