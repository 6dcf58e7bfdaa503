//! The broker's side of the control plane (Kafka's BrokerLifecycleManager
//! and the metadata log listener): register with the active controller,
//! heartbeat, fetch the `__cluster_metadata` log and apply its committed
//! records: create replicas, become leader or follower, start and stop
//! replica fetchers, and keep the MetadataCache that Metadata requests
//! answer from. Partition leaders send AlterPartition for ISR changes.

use super::super::config::TopicConfig;
use super::super::control_plane::{ControlMessage, BROKER_HEARTBEAT_INTERVAL_MS, BROKER_SESSION_TIMEOUT_MS};
use super::super::metadata::{MetadataRecord, PartitionRecord};
use super::super::ids::{NodeId, TopicPartition};
use super::super::log::log::Log;
use super::Ctx;
use super::super::protocol::{ErrorCode, Message};
use super::super::trace::TraceKind;
use super::partition::Partition;
use super::{Broker, BrokerTimer, PartitionAssignment};
use crate::sim::collections::BTreeMap;

/// How long a broker waits for a controller's answer before it tries the
/// next controller.
const CONTROLLER_REQUEST_TIMEOUT_MS: u64 = 2_000;
/// The pause after a "not the active controller" answer with no hint.
const CONTROLLER_RETRY_BACKOFF_MS: u64 = 100;
/// NetworkClient's `reconnect.backoff.ms`: after a controller refused or
/// reset a connection, the broker waits this long before it sends the lost
/// request again (to the next controller in turn)...
const RECONNECT_BACKOFF_MS: u64 = 50;
/// ... doubling with each refusal in a row up to `reconnect.backoff.max.ms`,
/// so a quorum that is all down costs each broker about one attempt a
/// second. Kafka adds 20 % jitter; the simulation leaves it out so that this
/// path draws nothing from the RNG.
const RECONNECT_BACKOFF_MAX_MS: u64 = 1_000;
/// BrokerLifecycleManager sends the heartbeat after its first "not yet"
/// answer to wantShutDown this soon, in case the controller is done quickly.
const CONTROLLED_SHUTDOWN_FIRST_RETRY_MS: u64 = 50;
/// BrokerLifecycleManager heartbeats this often while the broker starts
/// (until the controller unfences it), so that it is unfenced soon after it
/// catches up rather than on the next regular heartbeat.
const STARTING_HEARTBEAT_MS: u64 = 10;
/// BrokerLifecycleManager's resendExponentialBackoff after a failed
/// registration or heartbeat: 100 ms doubling up to
/// broker.session.timeout.ms, with 2 % jitter.
const COMMUNICATION_BACKOFF_MS: u64 = 100;
const COMMUNICATION_BACKOFF_JITTER_PERCENT: u64 = 2;
/// AlterPartitionManager sends pending ISR changes again this long after an
/// answer with an error.
const ALTER_PARTITION_RETRY_MS: u64 = 50;

/// What a broker knows of the control plane.
#[derive(Clone, Debug)]
pub struct BrokerControl {
    pub controllers: Vec<u32>,
    /// The active controller, as last heard.
    pub leader: Option<u32>,
    /// Where the round-robin over controllers is.
    next_try: usize,
    pub broker_epoch: Option<i64>,
    pub fenced: bool,
    /// The next metadata log offset to fetch.
    pub metadata_offset: i64,
    pub topic_configs: BTreeMap<String, TopicConfig>,
    /// Each partition's partition epoch as committed in the metadata log
    /// (the local one moves on with every local ISR change).
    pub committed_partition_epochs: BTreeMap<TopicPartition, i32>,
    /// This start of the process (BrokerLifecycleManager's incarnation id,
    /// a random UUID in Kafka; here a count of starts, which is as unique
    /// and draws nothing from the RNG).
    pub incarnation: u32,
    registration_in_flight: Option<i32>,
    /// The controller the registration or heartbeat in flight went to.
    communication_to: u32,
    /// The `due_ms` of the next registration or heartbeat
    /// (BrokerLifecycleManager schedules one "communication" at a time; a
    /// new schedule replaces the old, so a timer whose `due_ms` is not this
    /// one does nothing).
    communication_due_ms: Option<u64>,
    /// The next communication was due while one was in flight: the next
    /// schedule after a success is immediate.
    next_immediate: bool,
    /// Failed registrations and heartbeats in a row, for the backoff.
    failed_attempts: u32,
    /// The controller unfenced this broker since it started
    /// (BrokerLifecycleManager's RUNNING state): from then on it heartbeats
    /// every broker.heartbeat.interval.ms.
    running: bool,
    /// A heartbeat was lost to a disconnect; the controller channel sends
    /// it again after the reconnect backoff.
    heartbeat_lost: bool,
    fetch_in_flight: Option<i32>,
    /// The controller the metadata fetch in flight went to.
    fetch_to: u32,
    /// A `ControllerReconnect` timer is set: refusals until it fires add
    /// nothing, so the requests a refusal loses are sent once, not once per
    /// refusal.
    reconnect_pending: bool,
    /// The wait before the next reconnect; back to `reconnect.backoff.ms`
    /// once a controller answers.
    reconnect_backoff_ms: u64,
    /// The heartbeat waiting for its answer; one is out at a time.
    heartbeat_in_flight: Option<i32>,
    /// A controlled shutdown was asked for (BrokerLifecycleManager's
    /// PENDING_CONTROLLED_SHUTDOWN): heartbeats say wantShutDown.
    pub want_shut_down: bool,
    /// Whether an answer to a wantShutDown heartbeat came yet.
    got_controlled_shutdown_response: bool,
    /// The AlterPartition requests awaiting an answer: the partition, the
    /// correlation id and the controller it went to.
    alter_in_flight: Vec<(TopicPartition, i32, u32)>,
    next_correlation_id: i32,
}

impl BrokerControl {
    pub fn new(controllers: Vec<u32>, topic_configs: BTreeMap<String, TopicConfig>) -> Self {
        Self {
            controllers,
            leader: None,
            next_try: 0,
            broker_epoch: None,
            fenced: true,
            metadata_offset: 0,
            topic_configs,
            committed_partition_epochs: BTreeMap::new(),
            incarnation: 0,
            registration_in_flight: None,
            communication_to: 0,
            communication_due_ms: None,
            next_immediate: false,
            failed_attempts: 0,
            running: false,
            heartbeat_lost: false,
            fetch_in_flight: None,
            fetch_to: 0,
            reconnect_pending: false,
            reconnect_backoff_ms: RECONNECT_BACKOFF_MS,
            heartbeat_in_flight: None,
            want_shut_down: false,
            got_controlled_shutdown_response: false,
            alter_in_flight: Vec::new(),
            next_correlation_id: 1,
        }
    }

    /// The controller to ask: the known leader, else the next one in turn.
    fn target(&mut self) -> u32 {
        if let Some(l) = self.leader {
            return l;
        }
        let c = self.controllers[self.next_try % self.controllers.len()];
        self.next_try += 1;
        c
    }

    /// The answer did not come or came from a non-leader without a hint.
    fn forget_leader(&mut self) {
        self.leader = None;
    }

    /// A controller answered: the connection works, so the next refusal
    /// starts the backoff afresh.
    fn answered(&mut self) {
        self.reconnect_backoff_ms = RECONNECT_BACKOFF_MS;
    }

    fn correlation_id(&mut self) -> i32 {
        let c = self.next_correlation_id;
        self.next_correlation_id += 1;
        c
    }

    /// A registration or heartbeat is on its way, or waits to be sent again.
    fn communication_in_flight(&self) -> bool {
        self.registration_in_flight.is_some() || self.heartbeat_in_flight.is_some() || self.heartbeat_lost
    }
}

impl Broker {
    /// Runs this broker with the controller quorum instead of a static
    /// assignment.
    pub fn enable_control_plane(&mut self, controllers: Vec<u32>, topic_configs: BTreeMap<String, TopicConfig>) {
        self.control = Some(BrokerControl::new(controllers, topic_configs));
    }

    /// A crash: threads, queues, purgatory, connections, fetchers and the
    /// metadata cache are gone; the partition logs (and the producer state
    /// snapshots and HW checkpoint beside them) survive like a disk.
    pub fn crash(&mut self) {
        let mut fresh = Broker::new(self.id, self.config.clone());
        fresh.control = self.control.take().map(|c| {
            let incarnation = c.incarnation + 1;
            BrokerControl { incarnation, ..BrokerControl::new(c.controllers, c.topic_configs) }
        });
        fresh.next_producer_id = self.next_producer_id;
        fresh.meters = std::mem::take(&mut self.meters);
        for (tp, mut p) in std::mem::take(&mut self.partitions) {
            p.leader = None;
            p.leader_epoch = -1;
            p.followers.clear();
            fresh.partitions.insert(tp, p);
        }
        *self = fresh;
    }

    pub fn control(&self) -> Option<&BrokerControl> {
        self.control.as_ref()
    }

    /// Whether a controlled shutdown was asked for and the broker still runs.
    pub fn is_shutting_down(&self) -> bool {
        self.control.as_ref().is_some_and(|c| c.want_shut_down)
    }

    /// BrokerLifecycleManager.beginControlledShutdown: from now on every
    /// heartbeat says wantShutDown, and the next one goes at once (or as
    /// soon as the one in flight is answered).
    pub fn begin_controlled_shutdown(&mut self, ctx: &mut Ctx) {
        let me = self.id;
        let Some(c) = self.control.as_mut() else { return };
        c.want_shut_down = true;
        ctx.trace(|| TraceKind::ControlledShutdownRequested { broker: me });
        self.schedule_communication(ctx, 0);
    }

    /// BrokerLifecycleManager.scheduleNextCommunication: the next
    /// registration or heartbeat in `after_ms`, replacing any scheduled
    /// before; at once if one came due while another was in flight.
    fn schedule_communication(&mut self, ctx: &mut Ctx, after_ms: u64) {
        let Some(c) = self.control.as_mut() else { return };
        let after_ms = if std::mem::take(&mut c.next_immediate) { 0 } else { after_ms };
        let due_ms = ctx.now_ms + after_ms;
        c.communication_due_ms = Some(due_ms);
        ctx.timer(after_ms, BrokerTimer::ControllerCommunication { due_ms });
    }

    /// BrokerLifecycleManager.scheduleNextCommunicationAfterFailure: the
    /// exponential backoff over the failures in a row, never at once.
    fn communication_failed(&mut self, ctx: &mut Ctx) {
        let Some(c) = self.control.as_mut() else { return };
        let wait = ctx.rng.exponential_backoff_ms(
            COMMUNICATION_BACKOFF_MS,
            BROKER_SESSION_TIMEOUT_MS,
            COMMUNICATION_BACKOFF_JITTER_PERCENT,
            c.failed_attempts,
        );
        c.failed_attempts = c.failed_attempts.saturating_add(1);
        c.next_immediate = false;
        self.schedule_communication(ctx, wait);
    }

    /// BrokerLifecycleManager's CommunicationEvent: a registration until
    /// the broker has an epoch, then heartbeats; one at a time.
    fn communicate(&mut self, ctx: &mut Ctx) {
        let Some(c) = self.control.as_mut() else { return };
        if c.communication_in_flight() {
            c.next_immediate = true;
        } else if c.broker_epoch.is_some() {
            self.send_heartbeat(ctx);
        } else {
            self.send_registration(ctx);
        }
    }

    /// Sends a BrokerHeartbeat to the active controller as last heard.
    fn send_heartbeat(&mut self, ctx: &mut Ctx) {
        let me = self.id;
        let Some(c) = self.control.as_mut() else { return };
        let Some(broker_epoch) = c.broker_epoch else { return };
        let to = c.target();
        let correlation_id = c.correlation_id();
        c.heartbeat_in_flight = Some(correlation_id);
        c.communication_to = to;
        ctx.timer(CONTROLLER_REQUEST_TIMEOUT_MS, BrokerTimer::ControllerRequestTimeout { correlation_id });
        let (metadata_offset, want_shut_down) = (c.metadata_offset, c.want_shut_down);
        ctx.send(
            NodeId::Controller(to),
            Message::Control(ControlMessage::BrokerHeartbeatRequest {
                broker: me,
                correlation_id,
                broker_epoch,
                metadata_offset,
                want_shut_down,
            }),
        );
    }

    /// The connection to `peer` is gone (refused or reset): a replica
    /// fetcher backs off `replica.fetch.backoff.ms` (AbstractFetcherThread
    /// delays the partitions of a failed fetch); a request that was on its
    /// way to that controller is sent again, to the next one, after the
    /// reconnect backoff. Only requests to `peer` are lost: each message
    /// to a dead process is refused on its own, and a refused heartbeat
    /// must not count against a fetch that went elsewhere.
    pub fn on_disconnect(&mut self, ctx: &mut Ctx, peer: NodeId) {
        match peer {
            NodeId::Broker(leader) => {
                if let Some(f) = self.fetchers.get_mut(&leader) {
                    if f.in_flight.take().is_some() {
                        let backoff = self.config.replica_fetch_backoff_ms;
                        self.schedule_fetch(ctx, leader, backoff);
                    }
                }
            }
            NodeId::Controller(controller) => {
                let Some(c) = self.control.as_mut() else { return };
                if c.leader == Some(controller) {
                    c.forget_leader();
                }
                let lost_heartbeat = c.heartbeat_in_flight.is_some() && c.communication_to == controller;
                let lost_registration = c.registration_in_flight.is_some() && c.communication_to == controller;
                let lost_fetch = c.fetch_in_flight.is_some() && c.fetch_to == controller;
                // NodeToControllerChannelManager queues a request lost to a
                // disconnect again: the pending ISR changes go after the
                // reconnect backoff.
                let lost_alter = c.alter_in_flight.iter().any(|(_, _, to)| *to == controller);
                c.alter_in_flight.retain(|(_, _, to)| *to != controller);
                if lost_heartbeat {
                    c.heartbeat_in_flight = None;
                    c.heartbeat_lost = true;
                }
                if lost_registration {
                    c.registration_in_flight = None;
                }
                if lost_fetch {
                    c.fetch_in_flight = None;
                }
                if (lost_heartbeat || lost_registration || lost_fetch || lost_alter) && !c.reconnect_pending {
                    c.reconnect_pending = true;
                    ctx.timer(c.reconnect_backoff_ms, BrokerTimer::ControllerReconnect);
                    c.reconnect_backoff_ms = (c.reconnect_backoff_ms * 2).min(RECONNECT_BACKOFF_MAX_MS);
                }
            }
            NodeId::Client(_) => {}
        }
    }

    /// The reconnect backoff is over: send what the broker is missing, a
    /// registration if it has no broker epoch, else the metadata fetch, a
    /// lost heartbeat and the pending ISR changes.
    fn reconnect(&mut self, ctx: &mut Ctx) {
        let Some(c) = self.control.as_mut() else { return };
        c.reconnect_pending = false;
        if c.broker_epoch.is_none() {
            if c.registration_in_flight.is_none() {
                self.send_registration(ctx);
            }
        } else {
            if std::mem::take(&mut c.heartbeat_lost) {
                self.send_heartbeat(ctx);
            }
            self.send_metadata_fetch(ctx);
            self.resend_alter_partitions(ctx);
        }
    }

    /// Partition.isReplicaIsrEligible: with a controller quorum only a
    /// broker the metadata shows unfenced and not in controlled shutdown may
    /// join an ISR, so a caught-up but fenced follower is not proposed again
    /// and again. (Kafka also compares the broker epoch its fetches carry;
    /// the simulation's fetches carry none.)
    pub(super) fn isr_eligible(&self, broker: u32) -> bool {
        self.control.is_none()
            || (self.metadata.brokers.contains(&broker) && !self.metadata.shutting_down.contains(&broker))
    }

    /// Sends every pending ISR change of a partition this broker leads that
    /// has no AlterPartition in flight.
    fn resend_alter_partitions(&mut self, ctx: &mut Ctx) {
        let me = self.id;
        let Some(c) = self.control.as_ref() else { return };
        let waiting: Vec<TopicPartition> = self
            .partitions
            .iter()
            .filter(|(tp, p)| p.is_leader(me) && p.pending_isr.is_some() && !c.alter_in_flight.iter().any(|(t, _, _)| t == *tp))
            .map(|(tp, _)| tp.clone())
            .collect();
        for tp in waiting {
            self.send_alter_partition(ctx, &tp);
        }
    }

    pub(super) fn control_startup(&mut self, ctx: &mut Ctx) {
        self.send_registration(ctx);
    }

    fn send_registration(&mut self, ctx: &mut Ctx) {
        let me = self.id;
        let Some(c) = self.control.as_mut() else { return };
        let to = c.target();
        let correlation_id = c.correlation_id();
        c.registration_in_flight = Some(correlation_id);
        c.communication_to = to;
        let incarnation = c.incarnation;
        ctx.send(
            NodeId::Controller(to),
            Message::Control(ControlMessage::BrokerRegistrationRequest { broker: me, correlation_id, incarnation }),
        );
        ctx.timer(CONTROLLER_REQUEST_TIMEOUT_MS, BrokerTimer::ControllerRequestTimeout { correlation_id });
    }

    fn send_metadata_fetch(&mut self, ctx: &mut Ctx) {
        let me = self.id;
        let Some(c) = self.control.as_mut() else { return };
        if c.broker_epoch.is_none() || c.fetch_in_flight.is_some() {
            return;
        }
        let to = c.target();
        let correlation_id = c.correlation_id();
        c.fetch_in_flight = Some(correlation_id);
        c.fetch_to = to;
        let offset = c.metadata_offset;
        ctx.send(
            NodeId::Controller(to),
            Message::Control(ControlMessage::MetadataFetchRequest { broker: me, correlation_id, offset }),
        );
        ctx.timer(CONTROLLER_REQUEST_TIMEOUT_MS, BrokerTimer::ControllerRequestTimeout { correlation_id });
    }

    pub(super) fn on_control_timer(&mut self, ctx: &mut Ctx, timer: BrokerTimer) {
        let Some(c) = self.control.as_mut() else { return };
        match timer {
            // A stale timer (the schedule moved since it was set) does nothing.
            BrokerTimer::ControllerCommunication { due_ms } if c.communication_due_ms == Some(due_ms) => {
                c.communication_due_ms = None;
                self.communicate(ctx);
            }
            BrokerTimer::ControllerRequestTimeout { correlation_id } => {
                if let Some(i) = c.alter_in_flight.iter().position(|(_, id, _)| *id == correlation_id) {
                    // No answer: that controller may be gone or cut off; the
                    // change goes again, to the next controller.
                    c.alter_in_flight.remove(i);
                    c.forget_leader();
                    self.resend_alter_partitions(ctx);
                } else if c.registration_in_flight == Some(correlation_id) || c.heartbeat_in_flight == Some(correlation_id) {
                    // BrokerLifecycleManager's onTimeout: the next try, to
                    // the next controller, after the backoff.
                    c.registration_in_flight = None;
                    c.heartbeat_in_flight = None;
                    c.forget_leader();
                    self.communication_failed(ctx);
                } else if c.fetch_in_flight == Some(correlation_id) {
                    c.fetch_in_flight = None;
                    c.forget_leader();
                    self.send_metadata_fetch(ctx);
                }
            }
            BrokerTimer::MetadataFetch => self.send_metadata_fetch(ctx),
            BrokerTimer::ControllerReconnect => self.reconnect(ctx),
            BrokerTimer::AlterPartitionRetry => self.resend_alter_partitions(ctx),
            _ => {}
        }
    }

    pub(super) fn on_control_message(&mut self, ctx: &mut Ctx, from: NodeId, msg: ControlMessage) {
        let NodeId::Controller(from) = from else { return };
        let me = self.id;
        let Some(c) = self.control.as_mut() else { return };
        c.answered();
        match msg {
            ControlMessage::BrokerRegistrationResponse { correlation_id, error, broker_epoch, leader_hint, .. } => {
                if c.registration_in_flight != Some(correlation_id) {
                    return;
                }
                c.registration_in_flight = None;
                match error {
                    ErrorCode::None => {
                        c.failed_attempts = 0;
                        c.leader = Some(from);
                        c.broker_epoch = Some(broker_epoch);
                        c.fenced = true;
                        ctx.trace(|| TraceKind::BrokerRegistered { broker: me, controller: from, broker_epoch });
                        self.send_metadata_fetch(ctx);
                        // The first heartbeat goes at once.
                        self.schedule_communication(ctx, 0);
                    }
                    ErrorCode::NotController => self.controller_moved(ctx, from, leader_hint),
                    // DUPLICATE_BROKER_REGISTRATION and anything else.
                    _ => self.communication_failed(ctx),
                }
            }
            ControlMessage::BrokerHeartbeatResponse { correlation_id, error, fenced, leader_hint, should_shut_down, .. } => match error {
                _ if c.heartbeat_in_flight != Some(correlation_id) => {}
                ErrorCode::None => {
                    c.heartbeat_in_flight = None;
                    c.failed_attempts = 0;
                    c.leader = Some(from);
                    c.fenced = fenced;
                    // BrokerHeartbeatResponseEvent, by the broker's state.
                    let after = if c.want_shut_down {
                        if should_shut_down {
                            // The controller moved everything off this
                            // broker and the others have caught up: stop now.
                            ctx.trace(|| TraceKind::BrokerShutDown { broker: me });
                            ctx.stop();
                            return;
                        }
                        // Kafka asks again sooner after the first "not yet".
                        let first = !std::mem::replace(&mut c.got_controlled_shutdown_response, true);
                        if first {
                            CONTROLLED_SHUTDOWN_FIRST_RETRY_MS
                        } else {
                            BROKER_HEARTBEAT_INTERVAL_MS
                        }
                    } else if c.running || !fenced {
                        c.running = true;
                        BROKER_HEARTBEAT_INTERVAL_MS
                    } else {
                        // STARTING (and RECOVERY, which the simulation passes
                        // through at once: it has no logs to recover).
                        STARTING_HEARTBEAT_MS
                    };
                    self.schedule_communication(ctx, after);
                }
                // The controller's log lost this registration (it was never
                // committed): register again. Kafka's broker only retries the
                // heartbeat, as its controller never loses a registration it
                // answered; the simulation's answers before the commit.
                ErrorCode::StaleBrokerEpoch => {
                    c.heartbeat_in_flight = None;
                    c.broker_epoch = None;
                    self.communication_failed(ctx);
                }
                ErrorCode::NotController => {
                    c.heartbeat_in_flight = None;
                    self.controller_moved(ctx, from, leader_hint);
                }
                _ => {
                    c.heartbeat_in_flight = None;
                    self.communication_failed(ctx);
                }
            },
            ControlMessage::MetadataFetchResponse { correlation_id, error, leader_hint, records, next_offset, .. } => {
                if c.fetch_in_flight != Some(correlation_id) {
                    return;
                }
                c.fetch_in_flight = None;
                if error != ErrorCode::None {
                    c.leader = leader_hint.filter(|l| *l != from);
                    let backoff = if c.leader.is_some() { 0 } else { CONTROLLER_RETRY_BACKOFF_MS };
                    ctx.timer(backoff, BrokerTimer::MetadataFetch);
                    return;
                }
                c.leader = Some(from);
                let before = c.metadata_offset;
                c.metadata_offset = before.max(next_offset);
                // The broker has now applied its own registration: it is
                // ready to be unfenced, and says so in a heartbeat at once
                // (BrokerLifecycleManager's SetReadyToUnfenceEvent).
                let ready = !c.running && c.broker_epoch.is_some_and(|e| before <= e && c.metadata_offset > e);
                // Partition states are folded over the whole response and
                // applied once each, so a broker replaying the log after a
                // restart goes straight to the current state.
                let mut pending: BTreeMap<TopicPartition, PartitionRecord> = BTreeMap::new();
                for (offset, record) in records {
                    self.apply_metadata_record(ctx, offset, record, &mut pending);
                }
                for (_, r) in pending {
                    self.apply_partition(ctx, r);
                }
                self.send_metadata_fetch(ctx);
                if ready {
                    self.schedule_communication(ctx, 0);
                }
            }
            ControlMessage::AlterPartitionResponse { correlation_id, error, leader_hint, partition, .. } => {
                let Some(i) = c.alter_in_flight.iter().position(|(_, id, _)| *id == correlation_id) else { return };
                c.alter_in_flight.remove(i);
                // An accepted change arrives as a PartitionChangeRecord,
                // which ends the pending state. The rest follows
                // Partition.handleAlterPartitionError.
                match error {
                    ErrorCode::None => {}
                    // The controller says the change was not applied and the
                    // partition epoch is right: back to the committed ISR.
                    ErrorCode::IneligibleReplica => {
                        if let Some(p) = self.partitions.get_mut(&partition) {
                            p.pending_isr = None;
                        }
                    }
                    // Stale state: the change stays pending until the
                    // metadata log brings the partition's current state.
                    ErrorCode::FencedLeaderEpoch | ErrorCode::InvalidUpdateVersion | ErrorCode::UnknownTopicOrPartition => {}
                    // Not the active controller (retried by the channel
                    // manager) or anything else: send it again, at once to
                    // a named leader, else after 50 ms.
                    _ => {
                        if error == ErrorCode::NotController {
                            c.leader = leader_hint.filter(|l| *l != from);
                        }
                        let backoff = if c.leader.is_some() { 0 } else { ALTER_PARTITION_RETRY_MS };
                        ctx.timer(backoff, BrokerTimer::AlterPartitionRetry);
                    }
                }
            }
            _ => {}
        }
    }

    /// NOT_CONTROLLER: NodeToControllerChannelManager sends the request
    /// again itself, at once to a named active controller, else after a
    /// short pause; the lifecycle manager counts no failure.
    fn controller_moved(&mut self, ctx: &mut Ctx, from: u32, leader_hint: Option<u32>) {
        let Some(c) = self.control.as_mut() else { return };
        c.leader = leader_hint.filter(|l| *l != from);
        let backoff = if c.leader.is_some() { 0 } else { CONTROLLER_RETRY_BACKOFF_MS };
        self.schedule_communication(ctx, backoff);
    }

    /// Applies one committed record of the metadata log.
    fn apply_metadata_record(
        &mut self,
        ctx: &mut Ctx,
        offset: i64,
        record: MetadataRecord,
        pending: &mut BTreeMap<TopicPartition, PartitionRecord>,
    ) {
        let me = self.id;
        ctx.trace(|| TraceKind::MetadataRecordApplied { broker: me, offset, record: Box::new(record.clone()) });
        match record {
            MetadataRecord::RegisterBroker { broker, .. } => {
                self.metadata.brokers.retain(|b| *b != broker);
                self.metadata.shutting_down.retain(|b| *b != broker);
            }
            MetadataRecord::BrokerInControlledShutdown { broker } => {
                if !self.metadata.shutting_down.contains(&broker) {
                    self.metadata.shutting_down.push(broker);
                }
            }
            MetadataRecord::BrokerRegistrationChange { broker, fenced } => {
                self.metadata.brokers.retain(|b| *b != broker);
                self.metadata.shutting_down.retain(|b| *b != broker);
                if !fenced {
                    self.metadata.brokers.push(broker);
                    crate::sim::collections::sort_by(&mut self.metadata.brokers, Ord::cmp);
                }
            }
            MetadataRecord::Topic { .. } => {}
            MetadataRecord::Partition(p) => {
                pending.insert(p.partition.clone(), p);
            }
            MetadataRecord::PartitionChange { partition, isr, leader, leader_epoch, partition_epoch } => {
                let replicas = match (pending.get(&partition), self.metadata.partitions.get(&partition)) {
                    (Some(p), _) => p.replicas.clone(),
                    (None, Some(a)) => a.replicas.clone(),
                    (None, None) => return,
                };
                let record = PartitionRecord { partition: partition.clone(), replicas, isr, leader, leader_epoch, partition_epoch };
                pending.insert(partition, record);
            }
        }
    }

    /// A partition's state from the controller: the MetadataCache entry, and
    /// on a replica the leader or follower transition with its fetchers.
    fn apply_partition(&mut self, ctx: &mut Ctx, r: PartitionRecord) {
        let me = self.id;
        let tp = r.partition.clone();
        self.metadata.partitions.insert(
            tp.clone(),
            PartitionAssignment {
                replicas: r.replicas.clone(),
                leader: r.leader,
                leader_epoch: r.leader_epoch,
                isr: r.isr.clone(),
            },
        );
        if let Some(c) = self.control.as_mut() {
            c.committed_partition_epochs.insert(tp.clone(), r.partition_epoch);
        }
        if !r.replicas.contains(&me) {
            return;
        }
        if !self.partitions.contains_key(&tp) {
            let config = self.control.as_ref().and_then(|c| c.topic_configs.get(tp.topic.as_str()).cloned()).unwrap_or_default();
            // `let else` rather than `expect`: expect would link LogError's Debug
            // into the page for a case that cannot happen.
            let Ok(log) = Log::new(config.log_config(), ctx.now_ms as i64) else { unreachable!("topic configs are validated before use") };
            self.partitions.insert(
                tp.clone(),
                Partition {
                    tp: tp.clone(),
                    config,
                    replicas: r.replicas.clone(),
                    leader: None,
                    leader_epoch: -1,
                    partition_epoch: 0,
                    isr: r.isr.clone(),
                    pending_isr: None,
                    log,
                    high_watermark: 0,
                    followers: BTreeMap::new(),
                    producer_state: Default::default(),
                    broker_min_insync_replicas: self.config.min_insync_replicas,
                },
            );
        }
        let p = self.partitions.get_mut(&tp).expect("created above");
        p.partition_epoch = r.partition_epoch;
        let same_leadership = p.leader == r.leader && p.leader_epoch == r.leader_epoch;
        if same_leadership {
            // The leader's own proposal committed: Kafka marks
            // IsrShrinksPerSec or IsrExpandsPerSec now
            // (Partition.handleAlterPartitionUpdate).
            if r.leader == Some(me) && p.pending_isr.as_ref() == Some(&r.isr) && r.isr != p.isr {
                if r.isr.len() < p.isr.len() {
                    self.meters.isr_shrinks += 1;
                } else {
                    self.meters.isr_expands += 1;
                }
            }
            p.isr = r.isr.clone();
            p.pending_isr = None;
            // As Partition.makeLeader does: the ISR may be down to the
            // leader alone now, so the high watermark may move, and the
            // produces waiting on the removed replicas complete.
            if r.leader == Some(me) {
                self.maybe_advance_high_watermark(ctx, &tp);
            }
            return;
        }
        for f in self.fetchers.values_mut() {
            f.partitions.remove(&tp);
        }
        if r.leader == Some(me) {
            p.become_leader(me, r.leader_epoch, r.isr.clone(), ctx.now_ms);
            // A new leader may complete produces waiting on the old ISR.
            self.maybe_advance_high_watermark(ctx, &tp);
        } else {
            p.become_follower(r.leader, r.leader_epoch, r.isr.clone());
            if let Some(leader) = r.leader {
                self.fetchers.entry(leader).or_default().partitions.insert(tp.clone());
                self.schedule_fetch(ctx, leader, 0);
            }
            // ReplicaManager.makeFollowers completes the delayed operations
            // of a partition it no longer leads: a parked produce is answered
            // NOT_LEADER_OR_FOLLOWER now, so its producer retries to the new
            // leader instead of waiting out request.timeout.ms, and a parked
            // fetch is answered with what it has.
            self.check_produce_purgatory(ctx, &tp);
            self.check_fetch_purgatory(ctx, &tp);
        }
    }

    /// A leader proposes an ISR change: ask the controller to commit it. The
    /// answer is awaited for the controller request timeout; a lost one is
    /// sent again (AlterPartitionManager through the controller channel).
    pub(super) fn send_alter_partition(&mut self, ctx: &mut Ctx, tp: &TopicPartition) {
        let me = self.id;
        let Some(p) = self.partitions.get(tp) else { return };
        let (leader_epoch, isr) = (p.leader_epoch, p.pending_isr.clone().unwrap_or_else(|| p.isr.clone()));
        let Some(c) = self.control.as_mut() else { return };
        let partition_epoch = c.committed_partition_epochs.get(tp).copied().unwrap_or(0);
        let to = c.target();
        let correlation_id = c.correlation_id();
        c.alter_in_flight.retain(|(t, _, _)| t != tp);
        c.alter_in_flight.push((tp.clone(), correlation_id, to));
        ctx.timer(CONTROLLER_REQUEST_TIMEOUT_MS, BrokerTimer::ControllerRequestTimeout { correlation_id });
        ctx.send(
            NodeId::Controller(to),
            Message::Control(ControlMessage::AlterPartitionRequest {
                broker: me,
                correlation_id,
                partition: tp.clone(),
                leader_epoch,
                partition_epoch,
                isr,
            }),
        );
    }
}
