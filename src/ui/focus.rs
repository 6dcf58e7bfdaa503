//! What Step, Play and the narration follow: the learner's focus.
//!
//! A quiet KRaft cluster is busy: brokers heartbeat, the quorum's voters
//! fetch from their leader, followers' fetches park in purgatory and expire,
//! brokers fetch the metadata log. Most steps are that background, so a Step
//! that takes the next step shows a heartbeat where the learner wanted their
//! record. The [`Classifier`] tags every trace event with an [`Interest`],
//! and a [`Focus`] picks the interests Step stops at; whatever it passes
//! over is summed up by [`BackgroundKind`], so the page can say what it
//! skipped.
//!
//! This is plain Rust over the trace, so native tests cover it.

use crate::sim::collections::{BTreeMap, BTreeSet};
use crate::sim::metadata::MetadataRecord;
use crate::sim::ids::{NodeId, RequestId, TopicPartition};
use crate::sim::protocol::{ApiKey, ControlPlaneRpc};
use crate::sim::raft::output::RaftEvent;
use crate::sim::trace::{Direction, MessageKind, Stage, TraceEvent, TraceKind};

/// What Step and the narration follow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Focus {
    /// The learner's own requests, what they wait on, and the state changes
    /// anyone cares about.
    #[default]
    Mine,
    /// Every produce and fetch, follower fetches included, and the logs,
    /// purgatories, high watermarks and ISRs they move.
    DataPlane,
    /// The controllers, the Raft quorum, the brokers' heartbeats,
    /// registrations and metadata fetches.
    ControlPlane,
    /// Every step.
    Everything,
}

impl Focus {
    pub const ALL: [Focus; 4] = [Focus::Mine, Focus::DataPlane, Focus::ControlPlane, Focus::Everything];

    /// Whether an event (or a position) with this interest is in focus.
    /// Notable events carry the plane they belong to, so the data plane
    /// focus also stops at a leader election and the control plane focus at
    /// a broker's fencing.
    pub fn wants(self, interest: Interest) -> bool {
        match self {
            Focus::Mine => interest.intersects(Interest::MINE | Interest::NOTABLE),
            Focus::DataPlane => interest.intersects(Interest::DATA),
            Focus::ControlPlane => interest.intersects(Interest::CONTROL),
            Focus::Everything => true,
        }
    }
}

/// A set of reasons an event may matter, as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Interest(u8);

impl Interest {
    pub const NONE: Interest = Interest(0);
    /// The learner's own request, or something it waits on.
    pub const MINE: Interest = Interest(1);
    /// A state change any learner cares about.
    pub const NOTABLE: Interest = Interest(2);
    /// Part of the data plane: produce, fetch, logs, purgatory, HW, ISR.
    pub const DATA: Interest = Interest(4);
    /// Part of the control plane: controllers, Raft, heartbeats,
    /// registrations, the metadata log.
    pub const CONTROL: Interest = Interest(8);

    pub fn contains(self, other: Interest) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn intersects(self, other: Interest) -> bool {
        self.0 & other.0 != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOr for Interest {
    type Output = Interest;
    fn bitor(self, other: Interest) -> Interest {
        Interest(self.0 | other.0)
    }
}

impl std::ops::BitOrAssign for Interest {
    fn bitor_assign(&mut self, other: Interest) {
        self.0 |= other.0;
    }
}

/// What a background event is, for the page's "skipping 6.8 s of
/// heartbeats".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BackgroundKind {
    /// BrokerHeartbeat and its response.
    Heartbeats,
    /// The quorum's own traffic: voters' Fetch of `__cluster_metadata`, the
    /// leader's repeated BeginQuorumEpoch, high watermarks that commit
    /// nothing but the leader's epoch marker.
    QuorumFetches,
    /// Brokers fetching the metadata log and finding nothing new.
    MetadataFetches,
    /// Follower fetches that park in purgatory and expire without data.
    IdleReplicaFetches,
    /// A load generator's records, the requests that carry them, the
    /// follower fetches that copy them and the high watermarks they move:
    /// a stream the learner started but does not follow record by record.
    SteadyLoad,
    Other,
}

impl BackgroundKind {
    pub const ALL: [BackgroundKind; 6] = [
        BackgroundKind::Heartbeats,
        BackgroundKind::QuorumFetches,
        BackgroundKind::MetadataFetches,
        BackgroundKind::IdleReplicaFetches,
        BackgroundKind::SteadyLoad,
        BackgroundKind::Other,
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// One event's classification. `background` is set exactly when the event
/// is neither the learner's nor notable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    pub interest: Interest,
    pub background: Option<BackgroundKind>,
}

impl Tag {
    fn notable(plane: Interest) -> Tag {
        Tag { interest: Interest::NOTABLE | plane, background: None }
    }

    fn mine(extra: Interest) -> Tag {
        Tag { interest: Interest::MINE | Interest::DATA | extra, background: None }
    }

    fn background(plane: Interest, kind: BackgroundKind) -> Tag {
        Tag { interest: plane, background: Some(kind) }
    }
}

/// How many events (or positions) of each background kind were passed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BackgroundTally {
    counts: [u32; BackgroundKind::ALL.len()],
}

impl BackgroundTally {
    pub fn add(&mut self, kind: BackgroundKind) {
        self.counts[kind.index()] = self.counts[kind.index()].saturating_add(1);
    }

    pub fn count(&self, kind: BackgroundKind) -> u32 {
        self.counts[kind.index()]
    }

    pub fn is_empty(&self) -> bool {
        self.counts.iter().all(|c| *c == 0)
    }

    /// The kind passed most often; ties go to the kind listed first.
    pub fn dominant(&self) -> Option<BackgroundKind> {
        let mut best: Option<(BackgroundKind, u32)> = None;
        for kind in BackgroundKind::ALL {
            let n = self.count(kind);
            if n > 0 && best.is_none_or(|(_, m)| n > m) {
                best = Some((kind, n));
            }
        }
        best.map(|(kind, _)| kind)
    }

    /// Each kind passed at least once, in [`BackgroundKind::ALL`] order.
    pub fn kinds(&self) -> impl Iterator<Item = BackgroundKind> + '_ {
        BackgroundKind::ALL.into_iter().filter(|k| self.count(*k) > 0)
    }
}

/// The union of a position's tags, and its dominant background kind.
pub fn summarize(tags: &[Tag]) -> (Interest, Option<BackgroundKind>) {
    let mut interest = Interest::NONE;
    let mut tally = BackgroundTally::default();
    for tag in tags {
        interest |= tag.interest;
        if let Some(kind) = tag.background {
            tally.add(kind);
        }
    }
    (interest, tally.dominant())
}

/// How many metadata record offsets the classifier remembers: more than a
/// failover writes before its records are committed.
const RECORDS_KEPT: usize = 256;

/// How many follower fetches the classifier follows at once. Each one is
/// dropped when its response reaches the follower or it parks; a fetch lost
/// in a network partition never does either, and this bound keeps such
/// leftovers from piling up.
const CARRYING_KEPT: usize = 64;

/// Tags every trace event, fed the trace in order one step at a time. Its
/// state is what it must remember across steps (which follower fetches
/// carry the learner's records, which metadata offsets hold real records,
/// which lost connections it has already called notable); it is small and
/// is cloned with every session snapshot, so a timeline jump classifies the
/// replayed steps exactly as the first run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Classifier {
    /// Follower fetches that carry the learner's records or report a
    /// follower's progress on them.
    carrying: BTreeSet<RequestId>,
    /// (follower, leader) pairs where the follower appended the learner's
    /// records: its next fetch to that leader reports the new log end offset,
    /// which is what advances the HW and releases an acks=all produce.
    reporting: BTreeSet<(u32, u32)>,
    /// Offsets of the metadata records the active controller appended and
    /// no high watermark has passed yet: the high watermark that first
    /// passes one commits a change to the cluster; one that passes only the
    /// leader's epoch marker does not.
    records: BTreeSet<i64>,
    /// (node, peer) pairs whose lost connection was already told: a fetcher
    /// retrying a dead peer every backoff is background after the first.
    disconnected: BTreeSet<(NodeId, NodeId)>,
    /// Peers whose death one node has already noticed: the other nodes
    /// noticing the same dead peer tell the learner nothing new, and five
    /// of them in a row would hold Play for seconds.
    told_peers: BTreeSet<NodeId>,
    /// (from, to) pairs that already lost a message to the current cuts.
    lost: BTreeSet<(NodeId, NodeId)>,
    /// Clients running a load generator: their records are a stream, not
    /// the learner's one record to follow, and Play that held every one of
    /// them for its dwell would fall ever further behind the load.
    loading: BTreeSet<NodeId>,
    /// Per partition, the last offset the learner's own produce appended
    /// that no leader's high watermark has passed yet: while a load runs,
    /// the high watermark that passes it is the learner's, the rest the
    /// load's.
    awaited: BTreeMap<TopicPartition, i64>,
    /// Follower fetches that read a load's records while a load runs.
    load_fetches: BTreeSet<RequestId>,
}

impl Classifier {
    pub fn new() -> Self {
        Self::default()
    }

    /// Tags the events of one simulation step, appending one tag per event
    /// to `tags`, in order.
    pub fn classify_step(&mut self, events: &[TraceEvent], tags: &mut Vec<Tag>) {
        self.note_carriers(events);
        let first = tags.len();
        // Follower fetches whose response reached their fetcher in this
        // step, with the leader they came from.
        let mut arrived: Vec<(RequestId, u32)> = Vec::new();
        for e in events {
            match (&e.kind, e.node) {
                (TraceKind::Sent { request, api: ApiKey::Fetch, direction: Direction::Request, to: NodeId::Broker(l), .. }, NodeId::Broker(f))
                    if is_follower(request) && self.reporting.remove(&(f, *l)) =>
                {
                    self.carry(*request);
                }
                (TraceKind::Hop { request, direction: Direction::Response, to: Stage::ReplicaFetcher(l), .. }, _)
                    if self.carrying.contains(request) =>
                {
                    arrived.push((*request, *l));
                }
                (TraceKind::Appended { request, .. }, NodeId::Broker(f)) => {
                    if let Some((_, l)) = arrived.iter().find(|(r, _)| r == request) {
                        self.reporting.insert((f, *l));
                    }
                }
                _ => {}
            }
            let tag = self.tag(e);
            tags.push(tag);
        }
        for (request, _) in arrived {
            self.carrying.remove(&request);
        }
        for e in events {
            if let TraceKind::Hop { request, direction: Direction::Response, to: Stage::ReplicaFetcher(_), .. } = &e.kind {
                self.load_fetches.remove(request);
            }
        }
        // A muted or unmuted connection belongs to the request that caused
        // it, which is in the same step.
        for (i, e) in events.iter().enumerate() {
            if let TraceKind::ConnectionMuted { client, .. } = &e.kind {
                let mine = events
                    .iter()
                    .zip(&tags[first..])
                    .any(|(o, t)| t.interest.contains(Interest::MINE) && o.kind.request().is_some_and(|r| r.client == *client));
                if mine {
                    tags[first + i] = Tag::mine(Interest::NONE);
                }
            }
        }
    }

    /// Before tagging a step: which follower fetches it shows carrying the
    /// learner's records (woken in purgatory by the learner's append, or
    /// reading bytes: every record in a data log is the learner's), and
    /// which park with nothing to carry and so go idle.
    fn note_carriers(&mut self, events: &[TraceEvent]) {
        let learner_append = events
            .iter()
            .any(|e| matches!(&e.kind, TraceKind::Appended { request, .. } if self.is_learner(request)));
        let load_append = !learner_append
            && events.iter().any(|e| matches!(&e.kind, TraceKind::Appended { request, .. } if self.loading.contains(&request.client)));
        for e in events {
            match &e.kind {
                TraceKind::PurgatoryCompleted { request, expired: false, .. } if is_follower(request) && learner_append => {
                    self.carry(*request);
                }
                TraceKind::PurgatoryCompleted { request, expired: false, .. } if is_follower(request) && load_append => {
                    self.carry_load(*request);
                }
                // While a load runs, bytes read are mostly its records; a
                // fetch woken by the learner's own append is carried above.
                TraceKind::LogRead { request, bytes, .. } if is_follower(request) && *bytes > 0 => {
                    if self.loading.is_empty() {
                        self.carry(*request);
                    } else if !self.carrying.contains(request) {
                        self.carry_load(*request);
                    }
                }
                TraceKind::Parked { request, .. } if is_follower(request) => {
                    self.carrying.remove(request);
                    self.load_fetches.remove(request);
                }
                _ => {}
            }
        }
    }

    fn carry_load(&mut self, request: RequestId) {
        self.load_fetches.insert(request);
        while self.load_fetches.len() > CARRYING_KEPT {
            self.load_fetches.pop_first();
        }
    }

    fn carry(&mut self, request: RequestId) {
        self.carrying.insert(request);
        while self.carrying.len() > CARRYING_KEPT {
            self.carrying.pop_first();
        }
    }

    fn tag(&mut self, e: &TraceEvent) -> Tag {
        use BackgroundKind as B;
        let both = Interest::DATA | Interest::CONTROL;
        match &e.kind {
            TraceKind::BrokerStarted { broker } => {
                self.forget_disconnects(NodeId::Broker(*broker));
                Tag::notable(both)
            }
            TraceKind::BrokerStopped { .. } | TraceKind::BrokerShutDown { .. } => Tag::notable(both),
            TraceKind::ControllerStarted { controller, .. } => {
                self.forget_disconnects(NodeId::Controller(*controller));
                Tag::notable(Interest::CONTROL)
            }
            TraceKind::ControllerStopped { .. } => Tag::notable(Interest::CONTROL),
            TraceKind::ProduceRejected { .. } => Tag::mine(Interest::NOTABLE),
            TraceKind::LoadStarted { client, .. } => {
                self.loading.insert(*client);
                Tag::mine(Interest::NOTABLE)
            }
            TraceKind::LoadStopped { client, .. } => {
                self.loading.remove(client);
                Tag::mine(Interest::NOTABLE)
            }
            // A load's client events come by the record or the batch, its
            // retries, splits and expiries too; what caused those (a broker
            // down, a leader moved) is told once, by its own events.
            TraceKind::ConnectionMuted { client, .. } | TraceKind::PartitionChosen { client, .. } | TraceKind::BatchReady { client, .. }
            | TraceKind::MetadataUpdated { client, .. } | TraceKind::ProducerIdAssigned { client, .. }
            | TraceKind::ProduceRetry { client, .. } | TraceKind::BatchSplit { client, .. } | TraceKind::BatchExpired { client, .. }
                if self.loading.contains(client) =>
            {
                Tag::background(Interest::DATA, B::SteadyLoad)
            }
            TraceKind::ConnectionMuted { client, .. } => match client {
                NodeId::Client(_) => Tag::mine(Interest::NONE),
                _ => Tag::background(Interest::DATA, B::IdleReplicaFetches),
            },
            TraceKind::PartitionChosen { .. }
            | TraceKind::BatchReady { .. }
            | TraceKind::MetadataUpdated { .. }
            | TraceKind::ProducerIdAssigned { .. } => Tag::mine(Interest::NONE),
            TraceKind::ProduceRetry { .. } | TraceKind::BatchSplit { .. } | TraceKind::BatchExpired { .. } => {
                Tag::mine(Interest::NOTABLE)
            }
            TraceKind::Appended { request, partition, last_offset, .. } if self.is_learner(request) => {
                let awaited = self.awaited.get(partition).map_or(*last_offset, |o| (*o).max(*last_offset));
                self.awaited.insert(partition.clone(), awaited);
                Tag::mine(Interest::NONE)
            }
            // While a load runs the high watermarks move with every batch of
            // it; the one that passes the learner's own record is news.
            TraceKind::HighWatermarkAdvanced { partition, to, .. } => {
                let passes_learner = self.awaited.get(partition).is_some_and(|o| to > o);
                if passes_learner {
                    self.awaited.remove(partition);
                }
                if passes_learner || self.loading.is_empty() {
                    Tag::notable(Interest::DATA)
                } else {
                    Tag::background(Interest::DATA, B::SteadyLoad)
                }
            }
            TraceKind::FollowerHighWatermark { .. } if !self.loading.is_empty() => Tag::background(Interest::DATA, B::SteadyLoad),
            TraceKind::IsrShrunk { .. }
            | TraceKind::IsrExpanded { .. }
            | TraceKind::FollowerTruncated { .. }
            | TraceKind::FollowerHighWatermark { .. }
            | TraceKind::SegmentRolled { .. }
            | TraceKind::SegmentDeleted { .. } => Tag::notable(Interest::DATA),
            TraceKind::RaftSent { rpc, .. } => rpc_tag(rpc),
            TraceKind::Raft { event, .. } => self.raft_tag(event),
            TraceKind::ControllerActivated { .. }
            | TraceKind::BrokerSessionExpired { .. }
            | TraceKind::BrokerRegistered { .. }
            | TraceKind::BrokerRegistrationRefused { .. }
            | TraceKind::ControlledShutdownRequested { .. } => Tag::notable(Interest::CONTROL),
            TraceKind::BrokerInControlledShutdown { .. } | TraceKind::LeaderElected(_) => Tag::notable(both),
            TraceKind::MetadataRecordAppended { offset, record, .. } => {
                self.records.insert(*offset);
                while self.records.len() > RECORDS_KEPT {
                    self.records.pop_first();
                }
                Tag::notable(record_plane(record))
            }
            TraceKind::MetadataRecordApplied { record, .. } => Tag::notable(record_plane(record)),
            TraceKind::NetworkPartitioned { .. } | TraceKind::NetworkHealed { .. } => {
                self.lost.clear();
                Tag::notable(both)
            }
            TraceKind::MessageLost { from, to, what } => {
                if self.is_learner_node(*from) || self.is_learner_node(*to) {
                    Tag::mine(Interest::NOTABLE)
                } else if self.lost.insert((*from, *to)) {
                    Tag::notable(plane_between(*from, *to))
                } else {
                    // A data-plane fetch lost again and again between brokers
                    // is a replica fetcher retrying; control-plane messages
                    // are whatever their RPC is.
                    let kind = match what {
                        MessageKind::ControlPlane(rpc) => rpc_tag(rpc).background.unwrap_or(B::Other),
                        MessageKind::Request(ApiKey::Fetch) | MessageKind::Response(ApiKey::Fetch) => B::IdleReplicaFetches,
                        _ if is_client(*from) || is_client(*to) => B::SteadyLoad,
                        MessageKind::Request(_) | MessageKind::Response(_) => B::Other,
                    };
                    Tag::background(plane_between(*from, *to), kind)
                }
            }
            TraceKind::Disconnected { node, peer, .. } => {
                if self.is_learner_node(*node) || self.is_learner_node(*peer) {
                    Tag::mine(Interest::NOTABLE)
                } else if self.disconnected.insert((*node, *peer)) && self.told_peers.insert(*peer) {
                    Tag::notable(plane_between(*node, *peer))
                } else {
                    // A retry against a peer still down: the fetcher or the
                    // control-plane client that keeps knocking.
                    let kind = match (node, peer) {
                        (NodeId::Client(_), _) | (_, NodeId::Client(_)) => B::SteadyLoad,
                        (NodeId::Broker(_), NodeId::Broker(_)) => B::IdleReplicaFetches,
                        (NodeId::Controller(_), NodeId::Controller(_)) => B::QuorumFetches,
                        _ => B::MetadataFetches,
                    };
                    Tag::background(plane_between(*node, *peer), kind)
                }
            }
            // Everything left is about one request: the API's events.
            kind => match kind.request() {
                Some(request) if self.is_learner(&request) => Tag::mine(Interest::NONE),
                Some(request) if self.carrying.contains(&request) => Tag::mine(Interest::NONE),
                Some(request) => match kind {
                    // A follower fetch answered with an error (the leader
                    // moved, the offset is out of range) is a change of
                    // its own.
                    TraceKind::LogRead { error, .. } if *error != crate::sim::protocol::ErrorCode::None => {
                        Tag::notable(Interest::DATA)
                    }
                    // A load's own requests, and the follower fetches that
                    // copy its records.
                    _ if self.loading.contains(&request.client) || self.load_fetches.contains(&request) => {
                        Tag::background(Interest::DATA, B::SteadyLoad)
                    }
                    _ => Tag::background(Interest::DATA, B::IdleReplicaFetches),
                },
                None => Tag::background(Interest::NONE, B::Other),
            },
        }
    }

    /// A producer's or consumer's request is the learner's own, since
    /// clients act only on the learner's commands; a load's are the load's.
    fn is_learner(&self, request: &RequestId) -> bool {
        self.is_learner_node(request.client)
    }

    fn is_learner_node(&self, node: NodeId) -> bool {
        is_client(node) && !self.loading.contains(&node)
    }

    fn raft_tag(&mut self, event: &RaftEvent) -> Tag {
        let routine = match event {
            // The first high watermark to pass a record (the leader's)
            // commits it, and so changes the cluster; the voters' own high
            // watermarks follow it routinely.
            RaftEvent::HighWatermarkAdvanced { from, to } => {
                let committed: Vec<i64> = self.records.range(from.unwrap_or(0)..*to).copied().collect();
                for offset in &committed {
                    self.records.remove(offset);
                }
                committed.is_empty()
            }
            // The leader's append shares its step with the notable
            // MetadataRecordAppended; the voters' appends are replication.
            RaftEvent::EntriesAppended { .. } => true,
            _ => false,
        };
        if routine {
            Tag::background(Interest::CONTROL, BackgroundKind::QuorumFetches)
        } else {
            Tag::notable(Interest::CONTROL)
        }
    }

    /// A node that starts again has fresh connections: its next lost one,
    /// and the next one lost to it, are news again.
    fn forget_disconnects(&mut self, node: NodeId) {
        self.disconnected.retain(|(a, b)| *a != node && *b != node);
        self.told_peers.remove(&node);
    }
}

/// A follower's fetch: the only requests a broker sends through the data
/// plane's request path.
fn is_follower(request: &RequestId) -> bool {
    matches!(request.client, NodeId::Broker(_))
}

fn is_client(node: NodeId) -> bool {
    matches!(node, NodeId::Client(_))
}

/// The plane a message between two nodes belongs to: anything to or from a
/// controller is the control plane.
fn plane_between(a: NodeId, b: NodeId) -> Interest {
    if matches!(a, NodeId::Controller(_)) || matches!(b, NodeId::Controller(_)) {
        Interest::CONTROL
    } else {
        Interest::DATA
    }
}

/// A partition record moves leaders and ISRs, which the data plane sees
/// too; the other records are the control plane's alone.
fn record_plane(record: &MetadataRecord) -> Interest {
    match record {
        MetadataRecord::Partition(_) | MetadataRecord::PartitionChange { .. } => Interest::CONTROL | Interest::DATA,
        _ => Interest::CONTROL,
    }
}

/// A quorum or control-plane RPC, by its type: a new RPC fails to compile
/// here until it is given its place.
fn rpc_tag(rpc: &ControlPlaneRpc) -> Tag {
    use crate::sim::control_plane::ControlRpc as C;
    use crate::sim::raft::message::QuorumRpc as Q;
    use BackgroundKind as B;
    match rpc {
        ControlPlaneRpc::BrokerControl(C::BrokerHeartbeat | C::BrokerHeartbeatResponse) => {
            Tag::background(Interest::CONTROL, B::Heartbeats)
        }
        ControlPlaneRpc::BrokerControl(C::MetadataFetch | C::MetadataFetchResponse) => {
            Tag::background(Interest::CONTROL, B::MetadataFetches)
        }
        // The leader repeats BeginQuorumEpoch on a timer; its first sending
        // shares the step of BecameLeader, which is notable itself.
        ControlPlaneRpc::Quorum(Q::Fetch | Q::FetchResponse | Q::BeginQuorumEpoch | Q::BeginQuorumEpochResponse) => {
            Tag::background(Interest::CONTROL, B::QuorumFetches)
        }
        ControlPlaneRpc::Quorum(Q::PreVote | Q::Vote | Q::VoteResponse | Q::EndQuorumEpoch | Q::EndQuorumEpochResponse)
        | ControlPlaneRpc::BrokerControl(C::BrokerRegistration | C::BrokerRegistrationResponse) => {
            Tag::notable(Interest::CONTROL)
        }
        ControlPlaneRpc::BrokerControl(C::AlterPartition | C::AlterPartitionResponse) => {
            Tag::notable(Interest::CONTROL | Interest::DATA)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::simulation::Command;
    use crate::ui::session::Session;

    /// Every event of the positions from `from` to the cursor, with its tag.
    fn tagged(s: &Session, from: usize) -> Vec<(TraceEvent, Tag)> {
        let mut out = Vec::new();
        for i in from..=s.timeline_index() {
            let (events, tags) = s.position_events_at(i).unwrap();
            out.extend(events.iter().cloned().zip(tags.iter().copied()));
        }
        out
    }

    #[test]
    fn each_focus_wants_its_own_interests() {
        let mine = Interest::MINE | Interest::DATA;
        let notable_control = Interest::NOTABLE | Interest::CONTROL;
        let idle_fetch = Interest::DATA;
        let heartbeat = Interest::CONTROL;
        let want = |f: Focus| [mine, notable_control, idle_fetch, heartbeat].map(|i| f.wants(i));
        assert_eq!(want(Focus::Mine), [true, true, false, false]);
        assert_eq!(want(Focus::DataPlane), [true, false, true, false]);
        assert_eq!(want(Focus::ControlPlane), [false, true, false, true]);
        assert_eq!(want(Focus::Everything), [true, true, true, true]);
        assert!(Focus::Everything.wants(Interest::NONE));
        assert!(!Focus::Mine.wants(Interest::NONE));
    }

    #[test]
    fn a_tally_names_the_kind_passed_most() {
        let mut t = BackgroundTally::default();
        assert_eq!(t.dominant(), None);
        t.add(BackgroundKind::Heartbeats);
        t.add(BackgroundKind::IdleReplicaFetches);
        assert_eq!(t.dominant(), Some(BackgroundKind::Heartbeats), "a tie goes to the kind listed first");
        t.add(BackgroundKind::IdleReplicaFetches);
        assert_eq!(t.dominant(), Some(BackgroundKind::IdleReplicaFetches));
        assert_eq!(t.kinds().collect::<Vec<_>>(), [BackgroundKind::Heartbeats, BackgroundKind::IdleReplicaFetches]);
    }

    #[test]
    fn a_quiet_cluster_is_all_background_sorted_by_kind() {
        let mut s = Session::default();
        let from = s.timeline_index() + 1;
        while s.sim().now_ms() < 10_000 {
            assert!(s.step());
        }
        let events = tagged(&s, from);
        let kind_of = |pick: &dyn Fn(&TraceKind) -> bool| -> Vec<Option<BackgroundKind>> {
            let mut kinds: Vec<Option<BackgroundKind>> =
                events.iter().filter(|(e, _)| pick(&e.kind)).map(|(_, t)| t.background).collect();
            kinds.dedup();
            kinds
        };
        let rpc = |name: &'static str| move |k: &TraceKind| matches!(k, TraceKind::RaftSent { rpc, .. } if rpc.name() == name);
        assert_eq!(kind_of(&rpc("BrokerHeartbeat")), [Some(BackgroundKind::Heartbeats)]);
        assert_eq!(kind_of(&rpc("Fetch(__cluster_metadata)")), [Some(BackgroundKind::MetadataFetches)]);
        assert_eq!(kind_of(&rpc("Fetch")), [Some(BackgroundKind::QuorumFetches)]);
        assert_eq!(kind_of(&rpc("BeginQuorumEpoch")), [Some(BackgroundKind::QuorumFetches)]);
        let follower = |k: &TraceKind| k.request().is_some_and(|r| matches!(r.client, NodeId::Broker(_)));
        assert_eq!(kind_of(&follower), [Some(BackgroundKind::IdleReplicaFetches)]);
        assert!(events.iter().all(|(_, t)| t.background.is_some()), "nothing but background: {:?}",
            events.iter().find(|(_, t)| t.background.is_none()));
        for i in from..=s.timeline_index() {
            assert!(!s.in_focus(i, Focus::Mine));
            assert!(s.in_focus(i, Focus::Everything));
        }
        // The data plane focus follows the idle fetches, the control plane
        // focus the heartbeats; neither wants the other's.
        let data = (from..=s.timeline_index()).filter(|i| s.in_focus(*i, Focus::DataPlane)).count();
        let control = (from..=s.timeline_index()).filter(|i| s.in_focus(*i, Focus::ControlPlane)).count();
        assert!(data > 0 && control > 0 && data + control == s.timeline_index() + 1 - from, "{data} + {control}");
    }

    #[test]
    fn a_dead_peer_is_news_once_and_again_after_a_restart() {
        let mut s = Session::default();
        let from = s.timeline_index();
        s.command_now(Command::KillBroker { broker: 2 }).unwrap();
        while s.sim().now_ms() < 6_000 {
            s.step();
        }
        let disconnects = |events: &[(TraceEvent, Tag)]| -> Vec<(NodeId, bool)> {
            events
                .iter()
                .filter_map(|(e, t)| match e.kind {
                    TraceKind::Disconnected { node, peer: NodeId::Broker(2), .. } => Some((node, t.interest.contains(Interest::NOTABLE))),
                    _ => None,
                })
                .collect()
        };
        let seen = disconnects(&tagged(&s, from));
        let notable: Vec<NodeId> = seen.iter().filter(|(_, n)| *n).map(|(node, _)| *node).collect();
        let mut peers: Vec<NodeId> = seen.iter().map(|(node, _)| *node).collect();
        peers.sort();
        peers.dedup();
        assert!(peers.len() > 2, "several nodes notice broker 2 is gone: {peers:?}");
        assert_eq!(notable.len(), 1, "the first node to notice broker 2 is gone is news; the others add nothing: {seen:?}");
        assert_eq!(Some(&seen[0].0), notable.first(), "and it is the first notice");
        assert!(seen.len() > 2 * peers.len(), "the retries that follow are background: {seen:?}");
        // After a restart that registers again, and a second kill, the news
        // is news again.
        s.command_now(Command::RestartBroker { broker: 2 }).unwrap();
        assert!(s.seek(60_000, |e| matches!(e.kind, TraceKind::BrokerRegistered { broker: 2, .. })));
        let from = s.timeline_index();
        s.command_now(Command::KillBroker { broker: 2 }).unwrap();
        assert!(s.seek(10_000, |e| matches!(e.kind, TraceKind::Disconnected { peer: NodeId::Broker(2), .. })));
        let again = disconnects(&tagged(&s, from));
        assert!(again.iter().any(|(_, n)| *n), "{again:?}");
    }

    #[test]
    fn only_the_high_watermark_that_commits_a_record_is_notable() {
        let mut s = Session::default();
        let from = s.timeline_index();
        s.command_now(Command::KillBroker { broker: 2 }).unwrap();
        assert!(s.seek(60_000, |e| matches!(e.kind, TraceKind::MetadataRecordApplied { .. })));
        // Then until a voter that follows the active controller has
        // advanced its high watermark too.
        let active = NodeId::Controller(s.view().quorum.unwrap().active.unwrap());
        assert!(s.seek(5_000, |e| e.node != active
            && matches!(e.kind, TraceKind::Raft { event: RaftEvent::HighWatermarkAdvanced { .. }, .. })));
        let events = tagged(&s, from);
        let hws: Vec<(NodeId, i64, bool)> = events
            .iter()
            .filter_map(|(e, t)| match e.kind {
                TraceKind::Raft { event: RaftEvent::HighWatermarkAdvanced { to, .. }, .. } => {
                    Some((e.node, to, t.interest.contains(Interest::NOTABLE)))
                }
                _ => None,
            })
            .collect();
        let notable: Vec<&(NodeId, i64, bool)> = hws.iter().filter(|h| h.2).collect();
        assert!(!notable.is_empty() && notable.iter().all(|h| h.0 == active), "the leader's commit of the fencing: {hws:?}");
        assert!(hws.iter().any(|h| !h.2 && h.0 != active), "the voters following it are routine: {hws:?}");
        // The records themselves are notable where they are appended and
        // applied.
        for (e, t) in &events {
            if matches!(e.kind, TraceKind::MetadataRecordAppended { .. } | TraceKind::MetadataRecordApplied { .. }) {
                assert!(t.interest.contains(Interest::NOTABLE | Interest::CONTROL), "{e}");
            }
        }
    }

    #[test]
    fn a_new_leaders_epoch_marker_commits_nothing_notable() {
        let mut s = Session::default();
        let killed = s.view().quorum.unwrap().active.unwrap();
        let from = s.timeline_index();
        s.command_now(Command::KillController { controller: killed }).unwrap();
        assert!(s.seek(60_000, |e| matches!(e.kind, TraceKind::ControllerActivated { .. })));
        let (activated, _) = s.position_events();
        let activated_step = activated[0].step;
        // Step on until the new leader's high watermark passes its epoch marker.
        let (_, moved) = s.step_until(10_000, |events| {
            events.iter().any(|e| matches!(e.kind, TraceKind::Raft { event: RaftEvent::HighWatermarkAdvanced { .. }, .. }))
        });
        assert!(moved);
        let events = tagged(&s, from);
        let (hw, tag) = events.iter().rev().find(|(e, _)| e.step > activated_step && matches!(e.kind, TraceKind::Raft { event: RaftEvent::HighWatermarkAdvanced { .. }, .. })).unwrap();
        assert_eq!(tag.background, Some(BackgroundKind::QuorumFetches), "{hw}");
        let elections = events.iter().filter(|(e, _)| matches!(e.kind, TraceKind::Raft { event: RaftEvent::BecameCandidate { .. } | RaftEvent::BecameLeader { .. }, .. }));
        assert!(elections.clone().count() >= 2);
        assert!(elections.into_iter().all(|(_, t)| t.interest.contains(Interest::NOTABLE | Interest::CONTROL)));
    }

    #[test]
    fn a_produces_follower_fetches_are_mine_from_the_wake_to_the_report() {
        let mut s = Session::default();
        let from = s.timeline_index();
        s.command(crate::ui::session::tests::produce()).unwrap();
        let acked = |events: &[TraceEvent]| events.iter().any(|e| matches!(e.kind, TraceKind::ProduceCompleted { .. }));
        assert!(s.step_until(20_000, acked).1);
        let events = tagged(&s, from);
        // Every client event is the learner's.
        for (e, t) in &events {
            if e.kind.request().is_some_and(|r| is_client(r.client)) || is_client(e.node) {
                assert!(t.interest.contains(Interest::MINE), "{e}");
            }
        }
        // The woken follower fetches: idle before the leader's append, the
        // learner's after it, through the follower's append.
        let woken: Vec<RequestId> = events
            .iter()
            .filter_map(|(e, _)| match e.kind {
                TraceKind::PurgatoryCompleted { request, expired: false, .. } if is_follower(&request) => Some(request),
                _ => None,
            })
            .collect();
        assert_eq!(woken.len(), 2, "both followers' fetches were woken by the append");
        for r in &woken {
            let of_r: Vec<&(TraceEvent, Tag)> = events.iter().filter(|(e, _)| e.kind.request() == Some(*r)).collect();
            let wake = of_r.iter().position(|(e, _)| matches!(e.kind, TraceKind::PurgatoryCompleted { .. })).unwrap();
            assert!(of_r[..wake].iter().all(|(_, t)| t.background == Some(BackgroundKind::IdleReplicaFetches)));
            assert!(of_r[wake..].iter().all(|(_, t)| t.interest.contains(Interest::MINE)));
            assert!(of_r.iter().any(|(e, _)| matches!(e.kind, TraceKind::Appended { .. })), "the follower appended");
        }
        // The fetches that released the produce are the learner's up to the
        // log read that moved the HW; where one then parks, idle again.
        let release = crate::ui::follow::release(s.sim().trace(), events.iter().find_map(|(e, _)| match e.kind {
            TraceKind::PurgatoryCompleted { request, expired: false, .. } if is_client(request.client) => Some(request),
            _ => None,
        }).unwrap()).unwrap();
        for r in &release.fetches {
            let of_r: Vec<&(TraceEvent, Tag)> = events.iter().filter(|(e, _)| e.kind.request() == Some(*r)).collect();
            assert!(of_r.iter().filter(|(e, _)| e.step <= release.step).all(|(_, t)| t.interest.contains(Interest::MINE)), "{r}");
        }
    }

    #[test]
    fn a_loads_stream_is_background_but_the_learners_own_record_in_it_is_not() {
        let mut s = Session::default();
        let load = Command::StartLoad {
            client: 1,
            topic: "orders".into(),
            records_per_sec: 50,
            keys: crate::sim::load::KeyPattern::Random,
            value_bytes: 100,
        };
        s.command_now(load).unwrap();
        let started = s.timeline_index();
        let until = s.sim().now_ms() + 3_000;
        while s.sim().now_ms() < until {
            assert!(s.step());
        }
        let events = tagged(&s, started + 1);
        assert!(events.iter().filter(|(e, _)| matches!(e.kind, TraceKind::Appended { .. })).count() > 100, "the load ran");
        // In three seconds of a load, the Mine focus stops nowhere: its
        // records, requests, follower fetches and high watermarks are the
        // load's stream.
        let stops: Vec<&TraceEvent> =
            events.iter().filter(|(_, t)| Focus::Mine.wants(t.interest)).map(|(e, _)| e).collect();
        assert!(stops.is_empty(), "{}", stops.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "));
        let of_load = |t: &Tag| t.background == Some(BackgroundKind::SteadyLoad);
        for (e, t) in &events {
            let load_client = e.kind.request().is_some_and(|r| r.client == NodeId::Client(1)) || e.node == NodeId::Client(1);
            if load_client || matches!(e.kind, TraceKind::HighWatermarkAdvanced { .. } | TraceKind::FollowerHighWatermark { .. }) {
                assert!(of_load(t), "{e}");
            }
        }
        // Followers copying the load's records: woken in purgatory by its
        // append, appending its records.
        let copying: Vec<&(TraceEvent, Tag)> = events
            .iter()
            .filter(|(e, _)| {
                e.kind.request().is_some_and(|r| is_follower(&r))
                    && matches!(e.kind, TraceKind::PurgatoryCompleted { expired: false, .. } | TraceKind::Appended { .. })
            })
            .collect();
        assert!(copying.len() > 100, "{}", copying.len());
        assert!(copying.iter().all(|(_, t)| of_load(t)), "{:?}", copying.iter().find(|(_, t)| !of_load(t)));
        // The learner's own record, sent while the load runs, is followed
        // from its send to the high watermark that passes it.
        let from = s.timeline_index() + 1;
        s.command(crate::ui::session::tests::produce()).unwrap();
        let acked = |events: &[TraceEvent]| {
            events.iter().any(|e| matches!(e.kind, TraceKind::ProduceCompleted { request, .. } if request.client == NodeId::Client(0)))
        };
        assert!(s.step_until(20_000, acked).1);
        let events = tagged(&s, from);
        for (e, t) in &events {
            if e.kind.request().is_some_and(|r| r.client == NodeId::Client(0)) {
                assert!(t.interest.contains(Interest::MINE), "{e}");
            }
        }
        let offset = events
            .iter()
            .find_map(|(e, _)| match e.kind {
                TraceKind::Appended { request, last_offset, .. } if request.client == NodeId::Client(0) => Some(last_offset),
                _ => None,
            })
            .unwrap();
        let passing = events.iter().find(|(e, _)| matches!(e.kind, TraceKind::HighWatermarkAdvanced { from, to, .. } if from <= offset && to > offset));
        let (hw, tag) = passing.expect("the high watermark passed the learner's record before its ack");
        assert!(tag.interest.contains(Interest::NOTABLE), "{hw}");
        // Stopping the load makes the high watermarks news again.
        s.command_now(Command::StopLoad { client: 1 }).unwrap();
        let from = s.timeline_index() + 1;
        s.command(crate::ui::session::tests::produce()).unwrap();
        assert!(s.step_until(20_000, acked).1);
        let after = tagged(&s, from);
        assert!(after.iter().any(|(e, t)| matches!(e.kind, TraceKind::HighWatermarkAdvanced { .. }) && t.interest.contains(Interest::NOTABLE)));
    }
}
