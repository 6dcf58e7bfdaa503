//! Every trace event kind, holding every variant of every enum a trace event
//! carries, as sample events; and the test that tells each one in English, in
//! Korean and as a CLI line, and fails on Rust syntax in any of them.
//!
//! Each enum has an index function with an exhaustive match, so a new variant
//! is a compile error here; its new index then stays uncovered (and the test
//! fails) until a sample holds it. The identifiers a learner must never read
//! are the samples' own variant names, taken from their Debug text, minus the
//! few that are Kafka's names too.

use crate::sim::load::{KeyPattern, Load};
use crate::sim::collections::BTreeSet;
use crate::sim::control_plane::ControlRpc;
use crate::sim::metadata::{MetadataRecord, PartitionRecord};
use crate::sim::ids::{NodeId, RequestId, TopicPartition};
use crate::sim::log::log::DeletionReason;
use crate::sim::log::segment::RollReason;
use crate::sim::protocol::{ApiKey, ControlPlaneRpc, ErrorCode};
use crate::sim::raft::message::QuorumRpc;
use crate::sim::raft::output::{ElectionCause, RaftEvent, ResignReason, VoteRejectReason};
use crate::sim::record::batch::{BatchError, ValidationError};
use crate::sim::record::partitioner::StickyReason;
use crate::ui::narration::{English, Korean, Narrator};
use crate::sim::trace::{
    ElectionTrigger, LeaderElection, Standing, BatchReadyReason, Direction, MessageKind, PartitionReason, ReadBound, RejectReason, Stage, TraceEvent, TraceKind,
    WaitReason,
};
use std::fmt::Debug;

/// Asserts that `samples` hold every variant that `index` tells apart.
fn assert_covers<T: Debug>(what: &str, samples: &[T], index: fn(&T) -> usize, count: usize) {
    let found: BTreeSet<usize> = samples.iter().map(index).collect();
    let all: BTreeSet<usize> = (0..count).collect();
    assert_eq!(found, all, "a variant of {what} has no sample: {samples:?}");
}

pub(crate) const ALL_STAGES: [Stage; 12] = [
    Stage::Client,
    Stage::Wire,
    Stage::SocketReceiveBuffer,
    Stage::NetworkThread(1),
    Stage::RequestQueue,
    Stage::IoThread(3),
    Stage::LogAppend,
    Stage::LogRead,
    Stage::Purgatory,
    Stage::ResponseQueue(2),
    Stage::SocketSendBuffer,
    Stage::ReplicaFetcher(4),
];

pub(crate) fn stage_index(s: &Stage) -> usize {
    match s {
        Stage::Client => 0,
        Stage::Wire => 1,
        Stage::SocketReceiveBuffer => 2,
        Stage::NetworkThread(_) => 3,
        Stage::RequestQueue => 4,
        Stage::IoThread(_) => 5,
        Stage::LogAppend => 6,
        Stage::LogRead => 7,
        Stage::Purgatory => 8,
        Stage::ResponseQueue(_) => 9,
        Stage::SocketSendBuffer => 10,
        Stage::ReplicaFetcher(_) => 11,
    }
}
pub(crate) const STAGE_COUNT: usize = 12;

pub(crate) fn kind_index(k: &TraceKind) -> usize {
    match k {
        TraceKind::BrokerStarted { .. } => 0,
        TraceKind::Hop { .. } => 1,
        TraceKind::Sent { .. } => 2,
        TraceKind::ConnectionMuted { .. } => 3,
        TraceKind::RequestQueueFull { .. } => 4,
        TraceKind::NoResponse { .. } => 5,
        TraceKind::Appended { .. } => 6,
        TraceKind::ProduceRejected { .. } => 7,
        TraceKind::DuplicateBatch { .. } => 8,
        TraceKind::SegmentRolled { .. } => 9,
        TraceKind::SegmentDeleted { .. } => 10,
        TraceKind::LogRead { .. } => 11,
        TraceKind::Parked { .. } => 12,
        TraceKind::PurgatoryCompleted { .. } => 13,
        TraceKind::HighWatermarkAdvanced { .. } => 14,
        TraceKind::IsrShrunk { .. } => 15,
        TraceKind::IsrExpanded { .. } => 16,
        TraceKind::FollowerTruncated { .. } => 17,
        TraceKind::FollowerHighWatermark { .. } => 18,
        TraceKind::PartitionChosen { .. } => 19,
        TraceKind::BatchReady { .. } => 20,
        TraceKind::MetadataUpdated { .. } => 21,
        TraceKind::ProducerIdAssigned { .. } => 22,
        TraceKind::ProduceCompleted { .. } => 23,
        TraceKind::ProduceRetry { .. } => 24,
        TraceKind::FetchCompleted { .. } => 25,
        TraceKind::ControllerStarted { .. } => 26,
        TraceKind::ControllerStopped { .. } => 27,
        TraceKind::RaftSent { .. } => 28,
        TraceKind::Raft { .. } => 29,
        TraceKind::ControllerActivated { .. } => 30,
        TraceKind::MetadataRecordAppended { .. } => 31,
        TraceKind::BrokerSessionExpired { .. } => 32,
        TraceKind::BrokerRegistered { .. } => 33,
        TraceKind::MetadataRecordApplied { .. } => 34,
        TraceKind::BrokerStopped { .. } => 35,
        TraceKind::NetworkPartitioned { .. } => 36,
        TraceKind::NetworkHealed { .. } => 37,
        TraceKind::MessageLost { .. } => 38,
        TraceKind::Disconnected { .. } => 39,
        TraceKind::ControlledShutdownRequested { .. } => 40,
        TraceKind::BrokerInControlledShutdown { .. } => 41,
        TraceKind::BrokerShutDown { .. } => 42,
        TraceKind::LeaderElected(_) => 43,
        TraceKind::ConnectionClosed { .. } => 44,
        TraceKind::BrokerRegistrationRefused { .. } => 45,
        TraceKind::BatchSplit { .. } => 46,
        TraceKind::BatchExpired { .. } => 47,
        TraceKind::LoadStarted { .. } => 48,
        TraceKind::LoadStopped { .. } => 49,
    }
}
pub(crate) const KIND_COUNT: usize = 50;

pub(crate) fn wait_index(w: &WaitReason) -> usize {
    match w {
        WaitReason::HighWatermark { .. } => 0,
        WaitReason::MinBytes { .. } => 1,
    }
}
pub(crate) const WAIT_COUNT: usize = 2;

fn tp(p: u32) -> TopicPartition {
    TopicPartition::new("orders", p)
}

fn waits() -> Vec<WaitReason> {
    vec![
        WaitReason::HighWatermark { partition: tp(1), required_offset: 42, high_watermark: 37, laggards: vec![(2, 38)] },
        WaitReason::HighWatermark { partition: tp(1), required_offset: 42, high_watermark: 37, laggards: vec![] },
        WaitReason::MinBytes { min_bytes: 1024, available_bytes: 300 },
    ]
}

fn directions() -> Vec<Direction> {
    let all = vec![Direction::Request, Direction::Response];
    assert_covers("Direction", &all, |d| match d {
        Direction::Request => 0,
        Direction::Response => 1,
    }, 2);
    all
}

fn read_bounds() -> Vec<ReadBound> {
    let all = vec![ReadBound::HighWatermark, ReadBound::LogEndOffset];
    assert_covers("ReadBound", &all, |b| match b {
        ReadBound::HighWatermark => 0,
        ReadBound::LogEndOffset => 1,
    }, 2);
    all
}

fn sticky_reasons() -> Vec<StickyReason> {
    let all = vec![StickyReason::First, StickyReason::Stayed { bytes_so_far: 1200 }, StickyReason::Switched { previous: 2 }];
    assert_covers("StickyReason", &all, |r| match r {
        StickyReason::First => 0,
        StickyReason::Stayed { .. } => 1,
        StickyReason::Switched { .. } => 2,
    }, 3);
    all
}

pub(crate) fn partition_reasons() -> Vec<PartitionReason> {
    let mut all = vec![
        PartitionReason::Keyed { murmur2: -790332482, positive: 1357151166, partitions: 3 },
        PartitionReason::RoundRobin { counter: 14 },
        PartitionReason::Explicit,
    ];
    all.extend(sticky_reasons().into_iter().map(|reason| PartitionReason::Sticky { reason }));
    assert_covers("PartitionReason", &all, |r| match r {
        PartitionReason::Keyed { .. } => 0,
        PartitionReason::Sticky { .. } => 1,
        PartitionReason::RoundRobin { .. } => 2,
        PartitionReason::Explicit => 3,
    }, 4);
    all
}

fn batch_ready_reasons() -> Vec<BatchReadyReason> {
    let all = vec![BatchReadyReason::BatchSizeReached, BatchReadyReason::LingerPassed { linger_ms: 5 }];
    assert_covers("BatchReadyReason", &all, |r| match r {
        BatchReadyReason::BatchSizeReached => 0,
        BatchReadyReason::LingerPassed { .. } => 1,
    }, 2);
    all
}

fn roll_reasons() -> Vec<RollReason> {
    let all = vec![
        RollReason::SegmentBytes,
        RollReason::SegmentMs,
        RollReason::OffsetIndexFull,
        RollReason::TimeIndexFull,
        RollReason::RelativeOffsetOverflow,
    ];
    assert_covers("RollReason", &all, |r| match r {
        RollReason::SegmentBytes => 0,
        RollReason::SegmentMs => 1,
        RollReason::OffsetIndexFull => 2,
        RollReason::TimeIndexFull => 3,
        RollReason::RelativeOffsetOverflow => 4,
    }, 5);
    all
}

fn deletion_reasons() -> Vec<DeletionReason> {
    let all = vec![DeletionReason::Time, DeletionReason::Size];
    assert_covers("DeletionReason", &all, |r| match r {
        DeletionReason::Time => 0,
        DeletionReason::Size => 1,
    }, 2);
    all
}

fn validation_errors() -> Vec<ValidationError> {
    let all = vec![
        ValidationError::MessageTooLarge { size: 2048, max_message_bytes: 1000 },
        ValidationError::Truncated { size: 40, needed: 61 },
        ValidationError::BatchLengthTooSmall { batch_length: 12 },
        ValidationError::CrcMismatch { stored: 0x1234_abcd, computed: 0x0bad_cafe },
        ValidationError::TrailingBytes { batch_size: 90, size: 180 },
        ValidationError::InvalidMagic { magic: 1 },
        ValidationError::OffsetCountMismatch { last_offset_delta: 3, records_count: 5 },
        ValidationError::OffsetDeltaOutOfOrder { index: 2, offset_delta: 7 },
        ValidationError::MalformedRecords { error: BatchError::UnsupportedCompression { codec: 1 } },
    ];
    assert_covers("ValidationError", &all, |e| match e {
        ValidationError::MessageTooLarge { .. } => 0,
        ValidationError::Truncated { .. } => 1,
        ValidationError::BatchLengthTooSmall { .. } => 2,
        ValidationError::CrcMismatch { .. } => 3,
        ValidationError::TrailingBytes { .. } => 4,
        ValidationError::InvalidMagic { .. } => 5,
        ValidationError::OffsetCountMismatch { .. } => 6,
        ValidationError::OffsetDeltaOutOfOrder { .. } => 7,
        ValidationError::MalformedRecords { .. } => 8,
    }, 9);
    all
}

fn reject_reasons() -> Vec<RejectReason> {
    let mut all = vec![
        RejectReason::NoReplica,
        RejectReason::NotLeader { broker: 1 },
        RejectReason::NotEnoughInSyncReplicas { isr: vec![1], min_insync_replicas: 2 },
        RejectReason::NotEnoughInSyncReplicas { isr: vec![], min_insync_replicas: 2 },
        RejectReason::UnreadableHeader,
        RejectReason::TimestampOutOfRange { timestamp: 1700000000000 },
        RejectReason::OutOfOrderSequence { expected: 5, got: 8 },
        RejectReason::ProducerFenced { current: 3, got: 2 },
        RejectReason::BatchLargerThanSegment { size_bytes: 5000, segment_bytes: 4096 },
        RejectReason::LogRefused,
    ];
    all.extend(validation_errors().into_iter().map(RejectReason::InvalidBatch));
    assert_covers("RejectReason", &all, |r| match r {
        RejectReason::NoReplica => 0,
        RejectReason::NotLeader { .. } => 1,
        RejectReason::NotEnoughInSyncReplicas { .. } => 2,
        RejectReason::InvalidBatch(_) => 3,
        RejectReason::UnreadableHeader => 4,
        RejectReason::TimestampOutOfRange { .. } => 5,
        RejectReason::OutOfOrderSequence { .. } => 6,
        RejectReason::ProducerFenced { .. } => 7,
        RejectReason::BatchLargerThanSegment { .. } => 8,
        RejectReason::LogRefused => 9,
    }, 10);
    all
}

fn api_keys() -> Vec<ApiKey> {
    let all = vec![ApiKey::Produce, ApiKey::Fetch, ApiKey::Metadata, ApiKey::InitProducerId];
    assert_covers("ApiKey", &all, |k| match k {
        ApiKey::Produce => 0,
        ApiKey::Fetch => 1,
        ApiKey::Metadata => 2,
        ApiKey::InitProducerId => 3,
    }, 4);
    all
}

fn quorum_rpcs() -> Vec<QuorumRpc> {
    let all = vec![
        QuorumRpc::PreVote,
        QuorumRpc::Vote,
        QuorumRpc::VoteResponse,
        QuorumRpc::BeginQuorumEpoch,
        QuorumRpc::BeginQuorumEpochResponse,
        QuorumRpc::EndQuorumEpoch,
        QuorumRpc::EndQuorumEpochResponse,
        QuorumRpc::Fetch,
        QuorumRpc::FetchResponse,
    ];
    assert_covers("QuorumRpc", &all, |r| match r {
        QuorumRpc::PreVote => 0,
        QuorumRpc::Vote => 1,
        QuorumRpc::VoteResponse => 2,
        QuorumRpc::BeginQuorumEpoch => 3,
        QuorumRpc::BeginQuorumEpochResponse => 4,
        QuorumRpc::EndQuorumEpoch => 5,
        QuorumRpc::EndQuorumEpochResponse => 6,
        QuorumRpc::Fetch => 7,
        QuorumRpc::FetchResponse => 8,
    }, 9);
    all
}

fn control_rpcs() -> Vec<ControlRpc> {
    let all = vec![
        ControlRpc::BrokerRegistration,
        ControlRpc::BrokerRegistrationResponse,
        ControlRpc::BrokerHeartbeat,
        ControlRpc::BrokerHeartbeatResponse,
        ControlRpc::MetadataFetch,
        ControlRpc::MetadataFetchResponse,
        ControlRpc::AlterPartition,
        ControlRpc::AlterPartitionResponse,
    ];
    assert_covers("ControlRpc", &all, |r| match r {
        ControlRpc::BrokerRegistration => 0,
        ControlRpc::BrokerRegistrationResponse => 1,
        ControlRpc::BrokerHeartbeat => 2,
        ControlRpc::BrokerHeartbeatResponse => 3,
        ControlRpc::MetadataFetch => 4,
        ControlRpc::MetadataFetchResponse => 5,
        ControlRpc::AlterPartition => 6,
        ControlRpc::AlterPartitionResponse => 7,
    }, 8);
    all
}

fn control_plane_rpcs() -> Vec<ControlPlaneRpc> {
    let mut all: Vec<ControlPlaneRpc> = quorum_rpcs().into_iter().map(ControlPlaneRpc::Quorum).collect();
    all.extend(control_rpcs().into_iter().map(ControlPlaneRpc::BrokerControl));
    assert_covers("ControlPlaneRpc", &all, |r| match r {
        ControlPlaneRpc::Quorum(_) => 0,
        ControlPlaneRpc::BrokerControl(_) => 1,
    }, 2);
    all
}

fn message_kinds() -> Vec<MessageKind> {
    let mut all: Vec<MessageKind> = api_keys().into_iter().map(MessageKind::Request).collect();
    all.extend(api_keys().into_iter().map(MessageKind::Response));
    all.extend(control_plane_rpcs().into_iter().map(MessageKind::ControlPlane));
    assert_covers("MessageKind", &all, |m| match m {
        MessageKind::Request(_) => 0,
        MessageKind::Response(_) => 1,
        MessageKind::ControlPlane(_) => 2,
    }, 3);
    all
}

fn error_codes() -> Vec<ErrorCode> {
    use ErrorCode::*;
    let all = crate::sim::error_code::EVERY.to_vec();
    assert_covers("ErrorCode", &all, |e| match e {
        None => 0,
        OffsetOutOfRange => 1,
        CorruptMessage => 2,
        UnknownTopicOrPartition => 3,
        LeaderNotAvailable => 4,
        NotLeaderOrFollower => 5,
        RequestTimedOut => 6,
        MessageTooLarge => 7,
        NotEnoughReplicas => 8,
        NotEnoughReplicasAfterAppend => 9,
        InvalidRequiredAcks => 10,
        InvalidTimestamp => 11,
        TopicAlreadyExists => 12,
        InvalidPartitions => 13,
        InvalidReplicationFactor => 14,
        InvalidConfig => 15,
        OutOfOrderSequenceNumber => 16,
        InvalidProducerEpoch => 17,
        FencedLeaderEpoch => 18,
        UnknownLeaderEpoch => 19,
        InvalidRecord => 20,
        NotController => 21,
        StaleBrokerEpoch => 22,
        InvalidUpdateVersion => 23,
        IneligibleReplica => 24,
        NetworkException => 25,
        DuplicateBrokerRegistration => 26,
    }, 27);
    all
}

fn election_causes() -> Vec<ElectionCause> {
    let all = vec![
        ElectionCause::FetchTimeout,
        ElectionCause::ElectionTimeout,
        ElectionCause::BackoffComplete,
        ElectionCause::ElectionTimeoutAsCandidate,
        ElectionCause::PreVoteWon,
        ElectionCause::EndQuorumEpoch,
        ElectionCause::Restarted,
    ];
    assert_covers("ElectionCause", &all, |c| match c {
        ElectionCause::FetchTimeout => 0,
        ElectionCause::ElectionTimeout => 1,
        ElectionCause::BackoffComplete => 2,
        ElectionCause::ElectionTimeoutAsCandidate => 3,
        ElectionCause::PreVoteWon => 4,
        ElectionCause::EndQuorumEpoch => 5,
        ElectionCause::Restarted => 6,
    }, 7);
    all
}

/// Elections with every trigger and every standing: clean, unclean and
/// none at all.
pub(crate) fn elections() -> Vec<LeaderElection> {
    let triggers = vec![
        ElectionTrigger::LeaderFenced,
        ElectionTrigger::LeaderShuttingDown,
        ElectionTrigger::LeaderRestarted,
        ElectionTrigger::ReplicaReturned { broker: 7 },
    ];
    assert_covers("ElectionTrigger", &triggers, |t| match t {
        ElectionTrigger::LeaderFenced => 0,
        ElectionTrigger::LeaderShuttingDown => 1,
        ElectionTrigger::LeaderRestarted => 2,
        ElectionTrigger::ReplicaReturned { .. } => 3,
    }, 4);
    let standings = [Standing::Fenced, Standing::ShuttingDown, Standing::OutOfIsr];
    assert_covers("Standing", &standings, |s| match s {
        Standing::Fenced => 0,
        Standing::ShuttingDown => 1,
        Standing::OutOfIsr => 2,
    }, 3);
    let election = |trigger, leader, unclean, previous| LeaderElection {
        controller: 1,
        partition: tp(1),
        leader,
        previous,
        leader_epoch: 9,
        trigger,
        unclean,
        passed_over: vec![(2, Standing::Fenced), (3, Standing::ShuttingDown), (5, Standing::OutOfIsr)],
        previous_isr: vec![2, 4],
    };
    let mut all: Vec<LeaderElection> = triggers.iter().map(|t| election(*t, Some(4), false, Some(2))).collect();
    all.push(election(ElectionTrigger::LeaderFenced, Some(4), true, Some(2)));
    all.push(election(ElectionTrigger::LeaderFenced, None, false, Some(2)));
    all.push(election(ElectionTrigger::LeaderFenced, Some(4), false, None));
    all
}

fn resign_reasons() -> Vec<ResignReason> {
    let all = vec![ResignReason::CheckQuorumFailed, ResignReason::Requested, ResignReason::Restarted];
    assert_covers("ResignReason", &all, |r| match r {
        ResignReason::CheckQuorumFailed => 0,
        ResignReason::Requested => 1,
        ResignReason::Restarted => 2,
    }, 3);
    all
}

fn vote_reject_reasons() -> Vec<VoteRejectReason> {
    let all = vec![
        VoteRejectReason::StaleEpoch { voter_epoch: 6 },
        VoteRejectReason::InvalidRequest,
        VoteRejectReason::AlreadyVoted { voted_for: 3 },
        VoteRejectReason::LeaderKnown { leader: 3 },
        VoteRejectReason::LeaderAlive { leader: 3 },
        VoteRejectReason::LogNotUpToDate,
        VoteRejectReason::IsLeader,
        VoteRejectReason::IsCandidate,
        VoteRejectReason::Resigned,
    ];
    assert_covers("VoteRejectReason", &all, |r| match r {
        VoteRejectReason::StaleEpoch { .. } => 0,
        VoteRejectReason::InvalidRequest => 1,
        VoteRejectReason::AlreadyVoted { .. } => 2,
        VoteRejectReason::LeaderKnown { .. } => 3,
        VoteRejectReason::LeaderAlive { .. } => 4,
        VoteRejectReason::LogNotUpToDate => 5,
        VoteRejectReason::IsLeader => 6,
        VoteRejectReason::IsCandidate => 7,
        VoteRejectReason::Resigned => 8,
    }, 9);
    all
}

fn raft_events() -> Vec<RaftEvent> {
    let mut all = vec![
        RaftEvent::BecameUnattached { epoch: 4, voted_for: None, timeout_ms: 1500 },
        RaftEvent::BecameUnattached { epoch: 4, voted_for: Some(2), timeout_ms: 1500 },
        RaftEvent::BecameLeader { epoch: 5, epoch_start_offset: 17 },
        RaftEvent::BecameFollower { epoch: 5, leader: 2 },
        RaftEvent::ElectionLost { epoch: 5, pre_vote: false, rejected_by: vec![2] },
        RaftEvent::ElectionLost { epoch: 5, pre_vote: true, rejected_by: vec![2, 3] },
        RaftEvent::ElectionBackoff { epoch: 5, backoff_ms: 260 },
        RaftEvent::FetchTimeoutOverridden { epoch: 5, leader: 2, timeout_ms: 120 },
        RaftEvent::HighWatermarkAdvanced { from: Some(5), to: 11 },
        RaftEvent::HighWatermarkAdvanced { from: None, to: 11 },
        RaftEvent::EntriesAppended { epoch: 5, first_offset: 12, last_offset: 12 },
        RaftEvent::EntriesAppended { epoch: 5, first_offset: 12, last_offset: 15 },
        RaftEvent::Truncated { from: 20, to: 14 },
    ];
    for cause in election_causes() {
        all.push(RaftEvent::BecameProspective { epoch: 4, timeout_ms: 1300, cause });
        all.push(RaftEvent::BecameCandidate { epoch: 5, timeout_ms: 1300, retries: 2, cause });
    }
    for reason in resign_reasons() {
        all.push(RaftEvent::Resigned { epoch: 5, reason });
    }
    for pre_vote in [false, true] {
        all.push(RaftEvent::VoteRequested { to: 3, epoch: 5, pre_vote });
        all.push(RaftEvent::VoteGranted { candidate: 3, epoch: 5, pre_vote });
        for reason in vote_reject_reasons() {
            all.push(RaftEvent::VoteRejected { candidate: 3, epoch: 5, pre_vote, reason });
        }
    }
    assert_covers("RaftEvent", &all, |e| match e {
        RaftEvent::BecameUnattached { .. } => 0,
        RaftEvent::BecameProspective { .. } => 1,
        RaftEvent::BecameCandidate { .. } => 2,
        RaftEvent::BecameLeader { .. } => 3,
        RaftEvent::BecameFollower { .. } => 4,
        RaftEvent::Resigned { .. } => 5,
        RaftEvent::VoteRequested { .. } => 6,
        RaftEvent::VoteGranted { .. } => 7,
        RaftEvent::VoteRejected { .. } => 8,
        RaftEvent::ElectionLost { .. } => 9,
        RaftEvent::ElectionBackoff { .. } => 10,
        RaftEvent::FetchTimeoutOverridden { .. } => 11,
        RaftEvent::HighWatermarkAdvanced { .. } => 12,
        RaftEvent::EntriesAppended { .. } => 13,
        RaftEvent::Truncated { .. } => 14,
    }, 15);
    all
}

fn metadata_records() -> Vec<MetadataRecord> {
    let partition = |leader| PartitionRecord {
        partition: tp(2),
        replicas: vec![0, 1, 2],
        isr: vec![0, 1],
        leader,
        leader_epoch: 0,
        partition_epoch: 0,
    };
    let change = |leader| MetadataRecord::PartitionChange {
        partition: tp(2),
        isr: vec![1, 2],
        leader,
        leader_epoch: 7,
        partition_epoch: 9,
    };
    let all = vec![
        MetadataRecord::RegisterBroker { broker: 4, epoch: 23, incarnation: 1 },
        MetadataRecord::Topic { name: "orders".into(), partitions: 3 },
        MetadataRecord::Partition(partition(Some(1))),
        MetadataRecord::Partition(partition(None)),
        change(Some(2)),
        change(None),
        MetadataRecord::BrokerRegistrationChange { broker: 5, fenced: true },
        MetadataRecord::BrokerRegistrationChange { broker: 5, fenced: false },
        MetadataRecord::BrokerInControlledShutdown { broker: 5 },
    ];
    assert_covers("MetadataRecord", &all, |r| match r {
        MetadataRecord::RegisterBroker { .. } => 0,
        MetadataRecord::Topic { .. } => 1,
        MetadataRecord::Partition(_) => 2,
        MetadataRecord::PartitionChange { .. } => 3,
        MetadataRecord::BrokerRegistrationChange { .. } => 4,
        MetadataRecord::BrokerInControlledShutdown { .. } => 5,
    }, 6);
    all
}

fn client_req(c: i32) -> RequestId {
    RequestId { client: NodeId::Client(0), correlation_id: c }
}

fn follower_req(c: i32) -> RequestId {
    RequestId { client: NodeId::Broker(2), correlation_id: c }
}

/// One sample event of every trace event kind, each nested enum's variants
/// in turn, and both sides of each flag.
pub(crate) fn kinds() -> Vec<TraceKind> {
    let mut v = vec![
        TraceKind::BrokerStarted { broker: 3 },
        TraceKind::RequestQueueFull { request: client_req(21), thread: 2, capacity: 500 },
        TraceKind::NoResponse { request: client_req(22), client: NodeId::Client(0) },
        TraceKind::ConnectionClosed { request: client_req(22), client: NodeId::Client(2), error: ErrorCode::NotLeaderOrFollower },
        TraceKind::Appended {
            request: client_req(23),
            partition: tp(1),
            replica: 2,
            base_offset: 40,
            last_offset: 44,
            log_end_offset: 45,
            segment: 20,
            position: 4096,
        },
        TraceKind::Appended {
            request: client_req(24),
            partition: tp(2),
            replica: 3,
            base_offset: 7,
            last_offset: 7,
            log_end_offset: 8,
            segment: 0,
            position: 0,
        },
        TraceKind::DuplicateBatch {
            request: client_req(27),
            partition: tp(0),
            producer_id: 1000,
            base_sequence: 5,
            original_base_offset: 12,
        },
        TraceKind::Parked { request: client_req(31), client: NodeId::Client(0), operation: 9, waits: waits(), timeout_ms: 30000 },
        TraceKind::HighWatermarkAdvanced { partition: tp(1), replica: 1, from: 10, to: 15, isr: vec![1, 2, 3] },
        TraceKind::HighWatermarkAdvanced { partition: tp(1), replica: 1, from: 10, to: 15, isr: vec![1] },
        TraceKind::IsrShrunk { partition: tp(2), removed: [3].into(), lag_ms: 30012, isr: vec![1, 2] },
        TraceKind::IsrShrunk { partition: tp(2), removed: [2, 3].into(), lag_ms: 30012, isr: vec![1] },
        TraceKind::IsrExpanded { partition: tp(2), replica: 3, follower_leo: 88, isr: vec![1, 2, 3] },
        TraceKind::FollowerTruncated { partition: tp(0), replica: 1, to_offset: 57, epoch: 4 },
        TraceKind::FollowerHighWatermark { partition: tp(0), replica: 2, high_watermark: 61 },
        TraceKind::MetadataUpdated {
            client: NodeId::Client(0),
            leaders: vec![(tp(0), Some(1)), (tp(1), Some(2)), (tp(2), None)],
        },
        TraceKind::ProducerIdAssigned { client: NodeId::Client(0), producer_id: 4000, producer_epoch: 0 },
        TraceKind::ControllerStarted { controller: 2, recovered: false, log_end_offset: 0 },
        TraceKind::ControllerStarted { controller: 2, recovered: true, log_end_offset: 17 },
        TraceKind::ControllerStopped { controller: 4 },
        TraceKind::ControllerActivated { controller: 2, epoch: 9 },
        TraceKind::BrokerSessionExpired { broker: 3, last_heartbeat_ms: 4567 },
        TraceKind::BrokerRegistered { broker: 3, controller: 1, broker_epoch: 42 },
        TraceKind::BrokerRegistrationRefused { broker: 3, controller: 1, session_ends_ms: 9876 },
        TraceKind::BrokerStopped { broker: 6 },
        TraceKind::NetworkPartitioned { a: vec![NodeId::Broker(1)], b: vec![NodeId::Controller(2), NodeId::Controller(3)] },
        TraceKind::NetworkHealed { cuts: 1 },
        TraceKind::NetworkHealed { cuts: 2 },
        TraceKind::ControlledShutdownRequested { broker: 4 },
        TraceKind::BrokerInControlledShutdown { broker: 4, controller: 1, partitions: 12 },
        TraceKind::BrokerShutDown { broker: 9 },
        TraceKind::LoadStopped { client: NodeId::Client(0), sent: 3000 },
    ];
    for keys in [KeyPattern::None, KeyPattern::Fixed(10), KeyPattern::Random] {
        let load = Load { topic: "orders".into(), records_per_sec: 50, keys, value_bytes: 100 };
        v.push(TraceKind::LoadStarted { client: NodeId::Client(0), load: Box::new(load) });
    }
    v.extend(elections().into_iter().map(|e| TraceKind::LeaderElected(Box::new(e))));
    for muted in [false, true] {
        v.push(TraceKind::ConnectionMuted { client: NodeId::Client(5), muted });
    }
    for refused in [false, true] {
        v.push(TraceKind::Disconnected { node: NodeId::Client(3), peer: NodeId::Broker(7), refused });
    }
    for (i, to) in ALL_STAGES.iter().enumerate() {
        for direction in directions() {
            for follower in [false, true] {
                let correlation = 100 + i as i32;
                let request = if follower { follower_req(correlation) } else { client_req(correlation) };
                let from = ALL_STAGES[(i + ALL_STAGES.len() - 1) % ALL_STAGES.len()];
                v.push(TraceKind::Hop { request, api: ApiKey::Fetch, direction, from, to: *to });
            }
        }
    }
    for api in api_keys() {
        for direction in directions() {
            v.push(TraceKind::Sent { request: client_req(17), api, direction, to: NodeId::Broker(2), arrives_at_ms: 1234 });
        }
    }
    for reason in reject_reasons() {
        v.push(TraceKind::ProduceRejected { request: client_req(25), partition: tp(1), error: ErrorCode::NotEnoughReplicas, reason });
    }
    for reason in roll_reasons() {
        v.push(TraceKind::SegmentRolled { partition: tp(1), replica: 2, base_offset: 300, reason });
    }
    for reason in deletion_reasons() {
        v.push(TraceKind::SegmentDeleted { partition: tp(2), replica: 1, base_offset: 100, reason, log_start_offset: 250 });
    }
    for upper_bound in read_bounds() {
        for error in error_codes() {
            v.push(TraceKind::LogRead {
                request: client_req(28),
                partition: tp(1),
                replica: 2,
                fetch_offset: 33,
                bytes: 512,
                upper_bound,
                lookup: None,
                error,
            });
        }
    }
    for expired in [false, true] {
        for request in [client_req(33), follower_req(33)] {
            v.push(TraceKind::PurgatoryCompleted { request, operation: 9, expired });
        }
    }
    for reason in partition_reasons() {
        v.push(TraceKind::PartitionChosen { client: NodeId::Client(1), partition: tp(2), reason });
    }
    for batches in [1, 3] {
        v.push(TraceKind::BatchSplit { client: NodeId::Client(0), partition: tp(1), records: 12, bytes: 5000, batch_size: 16384, batches });
    }
    v.push(TraceKind::BatchExpired { client: NodeId::Client(1), partition: tp(2), records: 4, delivery_timeout_ms: 120_000 });
    for reason in batch_ready_reasons() {
        v.push(TraceKind::BatchReady { client: NodeId::Client(0), partition: tp(1), records: 12, bytes: 16384, reason });
    }
    for error in error_codes() {
        v.push(TraceKind::ProduceCompleted { request: client_req(35), partition: tp(1), base_offset: 70, error, records: 6 });
        v.push(TraceKind::ProduceRetry { client: NodeId::Client(0), partition: tp(2), error, attempt: 2 });
        v.push(TraceKind::FetchCompleted {
            request: client_req(37),
            partition: tp(1),
            records: 9,
            next_offset: 81,
            high_watermark: 90,
            error,
        });
    }
    for rpc in control_plane_rpcs() {
        v.push(TraceKind::RaftSent { rpc, to: NodeId::Controller(1), arrives_at_ms: 1234 });
    }
    for event in raft_events() {
        v.push(TraceKind::Raft { controller: 1, event });
    }
    for record in metadata_records() {
        v.push(TraceKind::MetadataRecordAppended { controller: 1, offset: 31, record: Box::new(record.clone()) });
        v.push(TraceKind::MetadataRecordApplied { broker: 2, offset: 31, record: Box::new(record) });
    }
    for what in message_kinds() {
        v.push(TraceKind::MessageLost { from: NodeId::Broker(4), to: NodeId::Controller(5), what });
    }
    assert_covers("TraceKind", &v, kind_index, KIND_COUNT);
    let stages: Vec<Stage> = ALL_STAGES.to_vec();
    assert_covers("Stage", &stages, stage_index, STAGE_COUNT);
    assert_covers("WaitReason", &waits(), wait_index, WAIT_COUNT);
    v
}

/// Every sample kind as an event.
pub(crate) fn events() -> Vec<TraceEvent> {
    kinds().into_iter().map(|kind| TraceEvent { step: 1, time_ms: 0, node: NodeId::Broker(1), kind }).collect()
}

/// The leading identifier of a value's Debug text: its variant's name.
fn variant_name(debug: &str) -> String {
    debug.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

/// This crate's variant names, which a learner must never read, from every
/// sample of every enum above.
fn crate_identifiers() -> BTreeSet<String> {
    // Kafka's own names that are also variants here.
    const KAFKA_NAMES: [&str; 20] = [
        "Produce",
        "Fetch",
        "Metadata",
        "InitProducerId",
        "PreVote",
        "Vote",
        "VoteResponse",
        "BeginQuorumEpoch",
        "BeginQuorumEpochResponse",
        "EndQuorumEpoch",
        "EndQuorumEpochResponse",
        "FetchResponse",
        "BrokerRegistration",
        "BrokerRegistrationResponse",
        "BrokerHeartbeat",
        "BrokerHeartbeatResponse",
        "AlterPartition",
        "AlterPartitionResponse",
        "Purgatory",
        "Raft",
    ];
    let mut names = BTreeSet::new();
    let mut add = |debugs: Vec<String>| {
        for d in debugs {
            names.insert(variant_name(&d));
        }
    };
    fn debugs<T: Debug>(items: Vec<T>) -> Vec<String> {
        items.iter().map(|x| format!("{x:?}")).collect()
    }
    add(debugs(kinds()));
    add(debugs(ALL_STAGES.to_vec()));
    add(debugs(directions()));
    add(debugs(read_bounds()));
    add(debugs(waits()));
    add(debugs(sticky_reasons()));
    add(debugs(partition_reasons()));
    add(debugs(batch_ready_reasons()));
    add(debugs(roll_reasons()));
    add(debugs(deletion_reasons()));
    add(debugs(validation_errors()));
    add(debugs(reject_reasons()));
    add(debugs(api_keys()));
    add(debugs(quorum_rpcs()));
    add(debugs(control_rpcs()));
    add(debugs(control_plane_rpcs()));
    add(debugs(message_kinds()));
    add(debugs(error_codes()));
    add(debugs(election_causes()));
    add(debugs(resign_reasons()));
    add(debugs(vote_reject_reasons()));
    add(debugs(raft_events()));
    add(debugs(metadata_records()));
    for kafka in KAFKA_NAMES {
        names.remove(kafka);
    }
    names
}

/// What in `text` is Rust rather than prose, if anything.
fn rust_syntax(text: &str, identifiers: &BTreeSet<String>) -> Vec<String> {
    let mut found: Vec<String> = ["{", "}", "Some(", "None", "Ok(", "Err(", "::"]
        .iter()
        .filter(|s| text.contains(*s))
        .map(|s| s.to_string())
        .collect();
    let chars: Vec<char> = text.chars().collect();
    if chars.windows(2).any(|w| w[0] == '[' && w[1].is_ascii_digit()) {
        found.push("[ and a digit".into());
    }
    let words = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    found.extend(words.filter(|w| identifiers.contains(*w)).map(str::to_string));
    found
}

fn has_hangul(s: &str) -> bool {
    s.chars().any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c))
}

#[test]
fn the_forbidden_identifiers_are_this_crates_variant_names() {
    let ids = crate_identifiers();
    assert!(ids.len() > 100, "{ids:?}");
    for name in ["HighWatermarkAdvanced", "BecameCandidate", "CheckQuorumFailed", "SegmentBytes", "Stayed", "None"] {
        assert!(ids.contains(name), "{name} is not forbidden");
    }
    assert!(!ids.contains("Fetch") && !ids.contains("AlterPartition"), "Kafka's own names are allowed");
    let found = rust_syntax("HighWatermarkAdvanced { from: Some(5), to: 11 } [0, 1, 2]", &ids);
    assert_eq!(found, ["{", "}", "Some(", "[ and a digit", "HighWatermarkAdvanced"]);
    assert!(rust_syntax("PartitionChangeRecord, brokers 0, 1 and 2 (NOT_LEADER_OR_FOLLOWER)", &ids).is_empty());
}

#[test]
fn every_trace_event_reads_as_prose_in_english_korean_and_the_cli() {
    let ids = crate_identifiers();
    let mut failures = Vec::new();
    for event in events() {
        let en = English.event(&event);
        let ko = Korean.event(&event);
        let cli = event.to_string();
        for (lang, text) in [("English", &en), ("Korean", &ko), ("CLI", &cli)] {
            let bad = rust_syntax(text, &ids);
            if !bad.is_empty() {
                failures.push(format!("{lang} shows {bad:?} in {text:?}\n  for {:?}", event.kind));
            }
        }
        if !has_hangul(&ko) {
            failures.push(format!("no Hangul in {ko:?}"));
        }
        if en.trim().is_empty() {
            failures.push(format!("no English for {:?}", event.kind));
        }
    }
    assert!(failures.is_empty(), "{} sentences are not prose:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_partition_reason_and_wait_reads_as_prose_in_both_languages() {
    use crate::ui::i18n::{partition_reason, Lang};
    let ids = crate_identifiers();
    let mut texts = Vec::new();
    for reason in partition_reasons() {
        texts.push(partition_reason(Lang::En, &reason, 2));
        let ko = partition_reason(Lang::Ko, &reason, 2);
        assert!(has_hangul(&ko), "{ko}");
        texts.push(ko);
    }
    for wait in waits() {
        texts.push(English.wait(&wait));
        texts.push(Korean.wait(&wait));
    }
    for text in texts {
        assert!(rust_syntax(&text, &ids).is_empty(), "{text:?}: {:?}", rust_syntax(&text, &ids));
    }
}
