//! The epoch states of Kafka's QuorumState, the durable election record (the
//! `quorum-state` file) and the plain views the UI reads.

use super::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::election::{VoteState, VoteTally};
use super::leader::{LeaderState, ReplicaProgress};
use super::log::RaftLog;

/// What Kafka writes to the `quorum-state` file on every durable transition:
/// the epoch, the leader if known, and the vote cast in the epoch. Keeping
/// the vote across a crash is what stops a restarted voter from voting twice
/// in one epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElectionRecord {
    pub epoch: i32,
    pub leader: Option<u32>,
    pub voted_for: Option<u32>,
}

/// Everything of a node that survives a crash: the election record and the
/// log. The rest (role, timers, high watermark, peers' progress) is rebuilt
/// on restart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaftDurable<R> {
    pub election: ElectionRecord,
    pub log: RaftLog<R>,
}

impl<R> Default for RaftDurable<R> {
    fn default() -> Self {
        RaftDurable {
            election: ElectionRecord::default(),
            log: RaftLog::default(),
        }
    }
}

/// The volatile state of the current epoch. Each variant holds what Kafka's
/// corresponding `EpochState` class holds, except the vote cast in the
/// epoch, which lives only in the durable `ElectionRecord` so that the two
/// can never disagree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EpochState {
    /// The node knows the epoch but follows nobody: it waits for a leader to
    /// announce itself, or for its election timeout.
    Unattached {
        epoch: i32,
        leader: Option<u32>,
        election_deadline_ms: u64,
        high_watermark: Option<i64>,
    },
    /// KIP-996: the node asks for pre-votes without bumping the epoch.
    Prospective {
        epoch: i32,
        leader: Option<u32>,
        tally: VoteTally,
        retries: u32,
        election_deadline_ms: u64,
        high_watermark: Option<i64>,
    },
    Candidate {
        epoch: i32,
        tally: VoteTally,
        /// Elections lost in a row, from 1; it scales the backoff.
        retries: u32,
        election_deadline_ms: u64,
        backoff_until_ms: Option<u64>,
        high_watermark: Option<i64>,
    },
    Follower {
        epoch: i32,
        leader: u32,
        fetch_deadline_ms: u64,
        /// Pre-vote: a follower that has fetched from its leader in this
        /// epoch refuses pre-votes, since its leader is evidently alive.
        has_fetched: bool,
        high_watermark: Option<i64>,
    },
    Leader(LeaderState),
    /// A leader that gave up its epoch. It refuses votes and fetches, tells
    /// the voters (EndQuorumEpoch) and stands again after a timeout.
    Resigned {
        epoch: i32,
        election_deadline_ms: u64,
        unacknowledged: BTreeSet<u32>,
        preferred_successors: Vec<u32>,
    },
}

impl EpochState {
    pub fn epoch(&self) -> i32 {
        match self {
            EpochState::Unattached { epoch, .. }
            | EpochState::Prospective { epoch, .. }
            | EpochState::Candidate { epoch, .. }
            | EpochState::Follower { epoch, .. }
            | EpochState::Resigned { epoch, .. } => *epoch,
            EpochState::Leader(leader) => leader.epoch,
        }
    }

    pub fn high_watermark(&self) -> Option<i64> {
        match self {
            EpochState::Unattached { high_watermark, .. }
            | EpochState::Prospective { high_watermark, .. }
            | EpochState::Candidate { high_watermark, .. }
            | EpochState::Follower { high_watermark, .. } => *high_watermark,
            EpochState::Leader(leader) => leader.high_watermark,
            // ResignedState keeps no high watermark in Kafka either.
            EpochState::Resigned { .. } => None,
        }
    }

    /// The deadline that decides this node's next move in its epoch state,
    /// as the state holds it: the timer of Kafka's EpochState classes
    /// (FollowerState's fetch timer, the election timer of Unattached,
    /// Prospective, Candidate and Resigned, CandidateState's backoff,
    /// LeaderState's check-quorum timer). None for a single-voter leader,
    /// which can never lose its majority.
    pub fn deadline(&self) -> Option<RaftDeadline> {
        let (kind, at_ms) = match self {
            EpochState::Unattached { election_deadline_ms, .. }
            | EpochState::Prospective { election_deadline_ms, .. }
            | EpochState::Resigned { election_deadline_ms, .. }
            | EpochState::Candidate { election_deadline_ms, backoff_until_ms: None, .. } => {
                (RaftDeadlineKind::ElectionTimeout, *election_deadline_ms)
            }
            EpochState::Candidate { backoff_until_ms: Some(until), .. } => (RaftDeadlineKind::ElectionBackoff, *until),
            EpochState::Follower { fetch_deadline_ms, .. } => (RaftDeadlineKind::FetchTimeout, *fetch_deadline_ms),
            EpochState::Leader(leader) => (RaftDeadlineKind::CheckQuorum, leader.check_quorum_deadline_ms?),
        };
        Some(RaftDeadline { kind, at_ms })
    }

    pub fn name(&self) -> &'static str {
        match self {
            EpochState::Unattached { .. } => "Unattached",
            EpochState::Prospective { .. } => "Prospective",
            EpochState::Candidate { .. } => "Candidate",
            EpochState::Follower { .. } => "Follower",
            EpochState::Leader(_) => "Leader",
            EpochState::Resigned { .. } => "Resigned",
        }
    }
}

/// The votes of an election as the UI shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoteView {
    pub granted: Vec<u32>,
    pub rejected: Vec<u32>,
    pub unrecorded: Vec<u32>,
}

impl VoteView {
    pub fn of(tally: &VoteTally) -> Self {
        VoteView {
            granted: tally.voters_in(VoteState::Granted),
            rejected: tally.voters_in(VoteState::Rejected),
            unrecorded: tally.voters_in(VoteState::Unrecorded),
        }
    }
}

/// The role of a node, for views.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RaftRole {
    Unattached {
        voted_for: Option<u32>,
    },
    Prospective {
        votes: VoteView,
    },
    Candidate {
        votes: VoteView,
        backing_off: bool,
    },
    Follower {
        leader: u32,
    },
    /// Every voter's progress, the leader's own included.
    Leader {
        progress: Vec<ReplicaProgress>,
    },
    Resigned {
        preferred_successors: Vec<u32>,
    },
}

/// What a voter does when its deadline comes, by the state it is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RaftDeadlineKind {
    /// A follower with no successful fetch from its leader for
    /// `controller.quorum.fetch.timeout.ms` stands for election (as a
    /// prospective with pre-vote, else as a candidate). A resigning leader's
    /// EndQuorumEpoch may have brought it forward.
    FetchTimeout,
    /// `controller.quorum.election.timeout.ms` (randomised): an unattached
    /// or resigned voter stands for election, a candidate's election is
    /// over (with pre-vote it asks for pre-votes again, else it backs off),
    /// a prospective gives up its pre-vote.
    ElectionTimeout,
    /// A candidate that lost stands again in a new epoch.
    ElectionBackoff,
    /// A leader that no majority fetched from within 1.5 ×
    /// `controller.quorum.fetch.timeout.ms` resigns.
    CheckQuorum,
}

/// The deadline that decides a voter's next move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaftDeadline {
    pub kind: RaftDeadlineKind,
    /// Absolute simulated time.
    pub at_ms: u64,
}

/// A snapshot of one node for the UI: plain data, no references inside.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaftView {
    pub id: u32,
    pub voters: Vec<u32>,
    pub epoch: i32,
    pub role: RaftRole,
    pub leader: Option<u32>,
    pub voted_for: Option<u32>,
    pub log_end_offset: i64,
    pub last_epoch: i32,
    pub high_watermark: Option<i64>,
    /// The deadline that decides its next move; None before it starts.
    pub deadline: Option<RaftDeadline>,
}
