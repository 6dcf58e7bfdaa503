//! What a node asks its environment to do, and what it reports for the trace.

use serde::{Deserialize, Serialize};

use super::message::RaftMessage;

/// Each kind of deadline a node may wait for. A node keeps at most one timer
/// of each kind armed at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum TimerKind {
    /// Unattached, Prospective, Candidate or Resigned: the election timeout.
    Election,
    /// Candidate: the end of the backoff after a lost election.
    ElectionBackoff,
    /// Follower: no successful fetch from the leader for `fetch_timeout_ms`.
    FetchTimeout,
    /// Leader: no fetch from a majority within 1.5 × `fetch_timeout_ms`.
    CheckQuorum,
    /// Leader: time to repeat BeginQuorumEpoch.
    BeginQuorumEpoch,
    /// Leader: a held (long-poll) fetch from this replica has waited its
    /// `max_wait_ms`.
    FetchExpiry { replica: u32 },
    /// The request in flight to this peer timed out, or the retry backoff
    /// after an error from it ended.
    Connection { peer: u32 },
}

/// A timer as the environment sees it. The token changes every time the
/// node arms a timer, so a timer that fires after the node replaced or
/// dropped it is recognised as stale and ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RaftTimer {
    pub kind: TimerKind,
    pub token: u64,
}

/// One command for the environment, or one event for the trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RaftOutput<R> {
    Send {
        to: u32,
        msg: RaftMessage<R>,
    },
    /// Call `on_timer` with this timer `after_ms` from now. Earlier timers
    /// need not be cancelled: the node ignores any it no longer expects.
    SetTimer {
        after_ms: u64,
        timer: RaftTimer,
    },
    Event(RaftEvent),
}

/// Why a voter refused a vote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VoteRejectReason {
    /// The candidate's epoch is older than the voter's.
    StaleEpoch { voter_epoch: i32 },
    /// The request contradicts itself (for instance a last epoch not below
    /// the candidate epoch).
    InvalidRequest,
    /// The voter already voted for someone else in this epoch.
    AlreadyVoted { voted_for: u32 },
    /// The voter knows the leader of this epoch.
    LeaderKnown { leader: u32 },
    /// Pre-vote: the voter has fetched from its leader in this epoch, so the
    /// leader is alive and an election would only disrupt it.
    LeaderAlive { leader: u32 },
    /// The candidate's log (last epoch, then last offset) is behind the
    /// voter's.
    LogNotUpToDate,
    /// The voter is the leader of this epoch.
    IsLeader,
    /// The voter is itself a candidate in this epoch and voted for itself.
    IsCandidate,
    /// The voter resigned as leader of this epoch.
    Resigned,
}

/// Why a leader gave up its leadership.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResignReason {
    /// A majority of voters did not fetch within 1.5 × the fetch timeout.
    CheckQuorumFailed,
    /// The caller asked the leader to step down (graceful shutdown).
    Requested,
    /// The node restarted after being leader; Kafka starts such a node in
    /// the Resigned state of the same epoch.
    Restarted,
}

/// Why a node started an election.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ElectionCause {
    /// A follower heard nothing from its leader for the fetch timeout.
    FetchTimeout,
    /// An unattached or resigned node waited an election timeout.
    ElectionTimeout,
    /// A candidate finished backing off after losing.
    BackoffComplete,
    /// A candidate's election timed out (pre-vote: it returns to asking).
    ElectionTimeoutAsCandidate,
    /// A prospective won the pre-vote.
    PreVoteWon,
    /// The resigning leader named this node its first successor.
    EndQuorumEpoch,
    /// A node restarted after voting for itself in this epoch.
    Restarted,
}

/// Typed events for the trace, one per transition or notable decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RaftEvent {
    BecameUnattached {
        epoch: i32,
        voted_for: Option<u32>,
        timeout_ms: u64,
    },
    BecameProspective {
        epoch: i32,
        timeout_ms: u64,
        cause: ElectionCause,
    },
    BecameCandidate {
        epoch: i32,
        timeout_ms: u64,
        retries: u32,
        cause: ElectionCause,
    },
    BecameLeader {
        epoch: i32,
        epoch_start_offset: i64,
    },
    BecameFollower {
        epoch: i32,
        leader: u32,
    },
    Resigned {
        epoch: i32,
        reason: ResignReason,
    },
    VoteRequested {
        to: u32,
        epoch: i32,
        pre_vote: bool,
    },
    VoteGranted {
        candidate: u32,
        epoch: i32,
        pre_vote: bool,
    },
    VoteRejected {
        candidate: u32,
        epoch: i32,
        pre_vote: bool,
        reason: VoteRejectReason,
    },
    /// A majority can no longer grant this node's (pre-)vote.
    ElectionLost {
        epoch: i32,
        pre_vote: bool,
        rejected_by: Vec<u32>,
    },
    /// The candidate waits this long before standing again.
    ElectionBackoff {
        epoch: i32,
        backoff_ms: u64,
    },
    /// The resigning leader's EndQuorumEpoch shortened this follower's wait.
    FetchTimeoutOverridden {
        epoch: i32,
        leader: u32,
        timeout_ms: u64,
    },
    HighWatermarkAdvanced {
        from: Option<i64>,
        to: i64,
    },
    EntriesAppended {
        epoch: i32,
        first_offset: i64,
        last_offset: i64,
    },
    /// The log end moved back from `from` to `to` after a diverging fetch.
    Truncated {
        from: i64,
        to: i64,
    },
}
