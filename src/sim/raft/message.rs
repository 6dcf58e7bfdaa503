//! The quorum's RPCs, one variant per Kafka request or response.
//!
//! Every request carries a correlation id that its response echoes, as in
//! Kafka's request header. A node accepts a response only while it still
//! waits for that id from that peer, so answers to requests sent before a
//! state change (Kafka resets its connections on every transition) are
//! dropped instead of being counted in the wrong election.

use serde::{Deserialize, Serialize};

use super::log::{LogEntry, OffsetAndEpoch};

/// The partition-level errors the quorum RPCs use. `None` in a message means
/// Kafka's `NONE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ErrorCode {
    /// The request's epoch is older than the receiver's.
    FencedLeaderEpoch,
    /// The request's epoch is newer than the receiver's (it has not heard of
    /// that epoch yet).
    UnknownLeaderEpoch,
    /// The receiver is not the leader of the request's epoch.
    NotLeaderOrFollower,
    /// The request's fields contradict each other.
    InvalidRequest,
}

/// The quorum's RPCs by kind, without their fields: what the trace records
/// when one is sent or lost, so that a reader can name it in any language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum QuorumRpc {
    /// A VoteRequest with PreVote set (KIP-996).
    PreVote,
    Vote,
    VoteResponse,
    BeginQuorumEpoch,
    BeginQuorumEpochResponse,
    EndQuorumEpoch,
    EndQuorumEpochResponse,
    Fetch,
    FetchResponse,
}

impl QuorumRpc {
    /// Kafka's name for it.
    pub fn name(self) -> &'static str {
        match self {
            QuorumRpc::PreVote => "PreVote",
            QuorumRpc::Vote => "Vote",
            QuorumRpc::VoteResponse => "VoteResponse",
            QuorumRpc::BeginQuorumEpoch => "BeginQuorumEpoch",
            QuorumRpc::BeginQuorumEpochResponse => "BeginQuorumEpochResponse",
            QuorumRpc::EndQuorumEpoch => "EndQuorumEpoch",
            QuorumRpc::EndQuorumEpochResponse => "EndQuorumEpochResponse",
            QuorumRpc::Fetch => "Fetch",
            QuorumRpc::FetchResponse => "FetchResponse",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RaftMessage<R> {
    /// A candidate (or, with `pre_vote`, a prospective) asks for a vote.
    VoteRequest {
        correlation_id: u64,
        /// The epoch the candidate stands in; for a pre-vote, its current
        /// epoch, which it has not bumped yet.
        candidate_epoch: i32,
        candidate_id: u32,
        /// The epoch and end offset of the candidate's log.
        last_epoch: i32,
        last_offset: i64,
        pre_vote: bool,
    },
    VoteResponse {
        correlation_id: u64,
        /// The voter's epoch and the leader it knows in it, so that a stale
        /// candidate learns both.
        epoch: i32,
        leader: Option<u32>,
        granted: bool,
        error: Option<ErrorCode>,
    },
    /// A new leader announces itself to the voters.
    BeginQuorumEpochRequest {
        correlation_id: u64,
        epoch: i32,
        leader: u32,
    },
    BeginQuorumEpochResponse {
        correlation_id: u64,
        epoch: i32,
        leader: Option<u32>,
        error: Option<ErrorCode>,
    },
    /// A resigning leader tells the voters, listing its preferred successors
    /// by how much of its log they hold, so the best placed stands first.
    EndQuorumEpochRequest {
        correlation_id: u64,
        epoch: i32,
        leader: u32,
        preferred_successors: Vec<u32>,
    },
    EndQuorumEpochResponse {
        correlation_id: u64,
        epoch: i32,
        leader: Option<u32>,
        error: Option<ErrorCode>,
    },
    /// A follower pulls the log from its leader; the leader never pushes.
    FetchRequest {
        correlation_id: u64,
        replica_id: u32,
        /// The leader epoch the follower believes in.
        epoch: i32,
        /// The follower's log end offset and the epoch of its last entry.
        fetch_offset: i64,
        last_fetched_epoch: i32,
        /// The high watermark the follower knows. Since KAFKA-14145 (Kafka
        /// 4.1) the leader answers at once instead of holding the fetch when
        /// it knows a newer one, so commits reach followers without waiting
        /// out a long poll.
        high_watermark: Option<i64>,
        /// How long the leader may hold the fetch when it has nothing new.
        max_wait_ms: u64,
    },
    FetchResponse {
        correlation_id: u64,
        epoch: i32,
        leader: Option<u32>,
        /// The leader's high watermark; None until it has committed an entry
        /// of its own epoch.
        high_watermark: Option<i64>,
        entries: Vec<LogEntry<R>>,
        /// Set when the follower's log diverges: truncate through this epoch
        /// and end offset, then fetch again.
        diverging: Option<OffsetAndEpoch>,
        error: Option<ErrorCode>,
    },
}

impl<R> RaftMessage<R> {
    pub fn correlation_id(&self) -> u64 {
        match self {
            RaftMessage::VoteRequest { correlation_id, .. }
            | RaftMessage::VoteResponse { correlation_id, .. }
            | RaftMessage::BeginQuorumEpochRequest { correlation_id, .. }
            | RaftMessage::BeginQuorumEpochResponse { correlation_id, .. }
            | RaftMessage::EndQuorumEpochRequest { correlation_id, .. }
            | RaftMessage::EndQuorumEpochResponse { correlation_id, .. }
            | RaftMessage::FetchRequest { correlation_id, .. }
            | RaftMessage::FetchResponse { correlation_id, .. } => *correlation_id,
        }
    }

    /// Which RPC this is, for the trace.
    pub fn rpc(&self) -> QuorumRpc {
        match self {
            RaftMessage::VoteRequest { pre_vote: true, .. } => QuorumRpc::PreVote,
            RaftMessage::VoteRequest { .. } => QuorumRpc::Vote,
            RaftMessage::VoteResponse { .. } => QuorumRpc::VoteResponse,
            RaftMessage::BeginQuorumEpochRequest { .. } => QuorumRpc::BeginQuorumEpoch,
            RaftMessage::BeginQuorumEpochResponse { .. } => QuorumRpc::BeginQuorumEpochResponse,
            RaftMessage::EndQuorumEpochRequest { .. } => QuorumRpc::EndQuorumEpoch,
            RaftMessage::EndQuorumEpochResponse { .. } => QuorumRpc::EndQuorumEpochResponse,
            RaftMessage::FetchRequest { .. } => QuorumRpc::Fetch,
            RaftMessage::FetchResponse { .. } => QuorumRpc::FetchResponse,
        }
    }

    /// Kafka's API name, for the trace.
    pub fn api_name(&self) -> &'static str {
        self.rpc().name()
    }

    pub fn is_request(&self) -> bool {
        matches!(
            self,
            RaftMessage::VoteRequest { .. }
                | RaftMessage::BeginQuorumEpochRequest { .. }
                | RaftMessage::EndQuorumEpochRequest { .. }
                | RaftMessage::FetchRequest { .. }
        )
    }
}
