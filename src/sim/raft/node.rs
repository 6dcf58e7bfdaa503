//! One KRaft voter as a sans-I/O state machine: Kafka's `KafkaRaftClient`
//! handlers and `QuorumState` transitions.
//!
//! Every handler takes the time, a random source and an output list; after
//! handling its input it runs `poll`, which (like `KafkaRaftClient.poll`)
//! acts on expired deadlines, sends whatever requests the current state
//! needs, and re-arms timers for the next deadlines.

use super::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;

use serde::{Deserialize, Serialize};

use super::config::{validate_voters, ConfigError, RaftConfig};
use super::connection::Connections;
use super::election::{
    binary_exponential_backoff_ms, random_election_timeout_ms, strict_exponential_backoff_ms,
    VoteState, VoteTally,
};
use super::leader::{HeldFetch, LeaderState};
use super::log::{
    AppendError, FetchValidation, LeaderChange, LogEntry, OffsetAndEpoch, RaftRecord,
};
use super::message::{ErrorCode, RaftMessage};
use super::output::{
    ElectionCause, RaftEvent, RaftOutput, RaftTimer, ResignReason, TimerKind, VoteRejectReason,
};
use super::state::{ElectionRecord, EpochState, RaftDeadlineKind, RaftDurable, RaftRole, RaftView, VoteView};

/// Inputs a node cannot act on. The node's state is left consistent: it
/// still re-arms its timers before returning the error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RaftError {
    /// `on_start` has not been called yet.
    NotStarted,
    AlreadyStarted,
    /// Time is monotonic; the caller passed an earlier time than before.
    TimeWentBackwards {
        now_ms: u64,
        last_ms: u64,
    },
    /// A message from a node that is not one of the voters.
    UnknownPeer {
        peer: u32,
    },
    MessageFromSelf,
    /// A message names a leader for an epoch that contradicts what this node
    /// knows, which only a broken election could cause.
    InconsistentLeader {
        epoch: i32,
        claimed: Option<u32>,
        known: Option<u32>,
    },
    /// The leader asked for a truncation below this node's high watermark,
    /// which would lose committed entries (Kafka throws here too).
    TruncationBelowHighWatermark {
        truncate_to: i64,
        high_watermark: i64,
    },
    /// The leader sent entries that do not continue this node's log.
    InvalidAppend(AppendError),
}

/// Why a proposal was not appended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProposeError {
    /// Only the leader appends; `leader_hint` is the leader this node knows.
    NotLeader {
        leader_hint: Option<u32>,
        epoch: i32,
    },
    NotStarted,
    TimeWentBackwards {
        now_ms: u64,
        last_ms: u64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct ArmedTimer {
    deadline_ms: u64,
    token: u64,
}

/// How the checks shared by every response (Kafka's
/// `maybeHandleCommonResponse`) left a response.
enum Common {
    /// Fully handled (ignored as stale, or acted on by a transition).
    Done,
    /// The response-specific handler should look at it.
    Continue,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RaftNode<R> {
    id: u32,
    voters: Vec<u32>,
    config: RaftConfig,
    durable: RaftDurable<R>,
    state: EpochState,
    connections: Connections,
    armed: BTreeMap<TimerKind, ArmedTimer>,
    next_timer_token: u64,
    next_correlation_id: u64,
    /// Counts state changes, so a handler can tell whether a response moved
    /// the node to another state.
    transitions: u64,
    last_now_ms: u64,
    started: bool,
}

impl<R: Clone + Debug + PartialEq> RaftNode<R> {
    /// A voter with an empty log that has never voted.
    pub fn new(id: u32, voters: &[u32], config: RaftConfig) -> Result<Self, ConfigError> {
        Self::recover(id, voters, config, RaftDurable::default())
    }

    /// A voter restarting from what survived its crash: its log and its
    /// election record. `on_start` decides its first state from them.
    pub fn recover(
        id: u32,
        voters: &[u32],
        config: RaftConfig,
        durable: RaftDurable<R>,
    ) -> Result<Self, ConfigError> {
        config.validate()?;
        let voters = validate_voters(id, voters)?;
        let state = EpochState::Unattached {
            epoch: durable.election.epoch,
            leader: None,
            election_deadline_ms: u64::MAX,
            high_watermark: None,
        };
        Ok(RaftNode {
            id,
            voters,
            config,
            durable,
            state,
            connections: Connections::default(),
            armed: BTreeMap::new(),
            next_timer_token: 0,
            next_correlation_id: 0,
            transitions: 0,
            last_now_ms: 0,
            started: false,
        })
    }

    /// What a crash keeps.
    pub fn durable(&self) -> &RaftDurable<R> {
        &self.durable
    }

    /// Ends the node (a crash), handing back what survives it.
    pub fn into_durable(self) -> RaftDurable<R> {
        self.durable
    }

    // ----- views -----

    pub fn id(&self) -> u32 {
        self.id
    }

    pub fn voters(&self) -> &[u32] {
        &self.voters
    }

    pub fn config(&self) -> &RaftConfig {
        &self.config
    }

    pub fn epoch(&self) -> i32 {
        self.state.epoch()
    }

    pub fn role_name(&self) -> &'static str {
        self.state.name()
    }

    pub fn is_leader(&self) -> bool {
        matches!(self.state, EpochState::Leader(_))
    }

    /// The vote this node cast in the current epoch (itself when candidate).
    pub fn voted_for(&self) -> Option<u32> {
        self.durable.election.voted_for
    }

    /// The leader of the current epoch as this node knows it. A resigned
    /// leader still names itself, as Kafka's ResignedState does, so that its
    /// answers keep telling followers who led the epoch.
    pub fn leader_id(&self) -> Option<u32> {
        match &self.state {
            EpochState::Leader(_) | EpochState::Resigned { .. } => Some(self.id),
            EpochState::Follower { leader, .. } => Some(*leader),
            EpochState::Unattached { leader, .. } | EpochState::Prospective { leader, .. } => {
                *leader
            }
            EpochState::Candidate { .. } => None,
        }
    }

    pub fn log(&self) -> &[LogEntry<R>] {
        self.durable.log.entries()
    }

    pub fn log_end_offset(&self) -> i64 {
        self.durable.log.end_offset()
    }

    pub fn last_epoch(&self) -> i32 {
        self.durable.log.last_fetched_epoch()
    }

    /// The high watermark this node knows: every offset below it is
    /// committed. None after a restart or a new election until learned.
    pub fn high_watermark(&self) -> Option<i64> {
        self.state.high_watermark()
    }

    /// On the leader, each voter's last fetch offset (its own log end for the
    /// leader itself); empty on any other node.
    pub fn voter_fetch_offsets(&self) -> Vec<(u32, Option<i64>)> {
        match &self.state {
            EpochState::Leader(leader) => leader
                .replicas()
                .into_iter()
                .map(|progress| (progress.id, progress.end_offset))
                .collect(),
            _ => Vec::new(),
        }
    }

    pub fn state(&self) -> RaftRole {
        match &self.state {
            EpochState::Unattached { .. } => RaftRole::Unattached {
                voted_for: self.voted_for(),
            },
            EpochState::Prospective { tally, .. } => RaftRole::Prospective {
                votes: VoteView::of(tally),
            },
            EpochState::Candidate {
                tally,
                backoff_until_ms,
                ..
            } => RaftRole::Candidate {
                votes: VoteView::of(tally),
                backing_off: backoff_until_ms.is_some(),
            },
            EpochState::Follower { leader, .. } => RaftRole::Follower { leader: *leader },
            EpochState::Leader(leader) => RaftRole::Leader {
                progress: leader.replicas(),
            },
            EpochState::Resigned {
                preferred_successors,
                ..
            } => RaftRole::Resigned {
                preferred_successors: preferred_successors.clone(),
            },
        }
    }

    pub fn view(&self) -> RaftView {
        RaftView {
            id: self.id,
            voters: self.voters.clone(),
            epoch: self.epoch(),
            role: self.state(),
            leader: self.leader_id(),
            voted_for: self.voted_for(),
            log_end_offset: self.log_end_offset(),
            last_epoch: self.last_epoch(),
            high_watermark: self.high_watermark(),
            // Before `on_start` the election deadline is a placeholder.
            deadline: if self.started { self.state.deadline() } else { None },
        }
    }

    // ----- inputs -----

    /// Starts (or restarts) the node, choosing its first state from the
    /// durable election record the way `QuorumState.initialize` does.
    pub fn on_start(
        &mut self,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<(), RaftError> {
        if self.started {
            return Err(RaftError::AlreadyStarted);
        }
        self.started = true;
        self.last_now_ms = now_ms;
        // A fresh random 64-bit base per incarnation, so that replies and
        // timers addressed to an earlier incarnation of this node do not
        // match (a collision would need two draws within a few thousand
        // of each other).
        self.next_correlation_id = rng();
        self.next_timer_token = rng();
        let election = self.durable.election;
        let log_epoch = self.durable.log.last_fetched_epoch();
        let deadline = now_ms.saturating_add(random_election_timeout_ms(
            self.config.election_timeout_ms,
            rng,
        ));
        if election.epoch < log_epoch {
            // The record is older than the log; trust the log's epoch.
            self.set_state(
                EpochState::Unattached {
                    epoch: log_epoch,
                    leader: None,
                    election_deadline_ms: deadline,
                    high_watermark: None,
                },
                out,
            );
            self.persist(None, None);
            self.event_unattached(now_ms, out);
        } else if election.leader == Some(self.id) {
            // A restarted leader resigns its old epoch: it must not vote in
            // it, and it cannot trust that nothing it wrote was lost.
            self.set_state(
                EpochState::Resigned {
                    epoch: election.epoch,
                    election_deadline_ms: deadline,
                    unacknowledged: self.other_voters().into_iter().collect(),
                    preferred_successors: Vec::new(),
                },
                out,
            );
            out.push(RaftOutput::Event(RaftEvent::Resigned {
                epoch: election.epoch,
                reason: ResignReason::Restarted,
            }));
        } else if election.voted_for == Some(self.id) {
            self.set_state(
                EpochState::Candidate {
                    epoch: election.epoch,
                    tally: VoteTally::new(self.id, &self.voters),
                    retries: 1,
                    election_deadline_ms: deadline,
                    backoff_until_ms: None,
                    high_watermark: None,
                },
                out,
            );
            out.push(RaftOutput::Event(RaftEvent::BecameCandidate {
                epoch: election.epoch,
                timeout_ms: deadline.saturating_sub(now_ms),
                retries: 1,
                cause: ElectionCause::Restarted,
            }));
        } else if let Some(leader) = election.leader {
            self.set_state(
                EpochState::Follower {
                    epoch: election.epoch,
                    leader,
                    fetch_deadline_ms: now_ms.saturating_add(self.config.fetch_timeout_ms),
                    has_fetched: false,
                    high_watermark: None,
                },
                out,
            );
            out.push(RaftOutput::Event(RaftEvent::BecameFollower {
                epoch: election.epoch,
                leader,
            }));
        } else {
            self.set_state(
                EpochState::Unattached {
                    epoch: election.epoch,
                    leader: None,
                    election_deadline_ms: deadline,
                    high_watermark: None,
                },
                out,
            );
            self.event_unattached(now_ms, out);
        }
        // A single voter needs nobody's vote, so it stands at once.
        let only_voter = self.voters.len() == 1;
        if only_voter && !matches!(self.state, EpochState::Candidate { .. }) {
            self.transition_to_candidate(ElectionCause::ElectionTimeout, now_ms, rng, out);
        } else if only_voter {
            self.become_leader(now_ms, out);
        }
        self.poll(now_ms, rng, out);
        Ok(())
    }

    /// A timer set by this node fired. Stale timers (replaced or no longer
    /// wanted) are ignored.
    pub fn on_timer(
        &mut self,
        now_ms: u64,
        timer: RaftTimer,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<(), RaftError> {
        self.begin_input(now_ms)?;
        match self.armed.get(&timer.kind) {
            Some(armed) if armed.token == timer.token => {
                self.armed.remove(&timer.kind);
            }
            _ => return Ok(()),
        }
        self.poll(now_ms, rng, out);
        Ok(())
    }

    /// For callers that drive the node by periodic ticks instead of timers:
    /// acts on every deadline that has passed.
    pub fn on_tick(
        &mut self,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<(), RaftError> {
        self.begin_input(now_ms)?;
        self.poll(now_ms, rng, out);
        Ok(())
    }

    pub fn on_message(
        &mut self,
        now_ms: u64,
        from: u32,
        msg: RaftMessage<R>,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<(), RaftError> {
        self.begin_input(now_ms)?;
        if from == self.id {
            return Err(RaftError::MessageFromSelf);
        }
        if self.voters.binary_search(&from).is_err() {
            return Err(RaftError::UnknownPeer { peer: from });
        }
        let result = self.dispatch(now_ms, from, msg, rng, out);
        self.poll(now_ms, rng, out);
        result
    }

    /// Appends a record if this node is the leader, returning its offset.
    /// The record is committed once the high watermark passes the offset.
    pub fn propose(
        &mut self,
        now_ms: u64,
        record: R,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<i64, ProposeError> {
        if !self.started {
            return Err(ProposeError::NotStarted);
        }
        if now_ms < self.last_now_ms {
            return Err(ProposeError::TimeWentBackwards {
                now_ms,
                last_ms: self.last_now_ms,
            });
        }
        self.last_now_ms = now_ms;
        let epoch = match &self.state {
            EpochState::Leader(leader) if !leader.resign_requested => leader.epoch,
            _ => {
                let leader_hint = self.leader_id().filter(|leader| *leader != self.id);
                return Err(ProposeError::NotLeader {
                    leader_hint,
                    epoch: self.epoch(),
                });
            }
        };
        let offset = self
            .durable
            .log
            .append_as_leader(epoch, RaftRecord::Data(record));
        out.push(RaftOutput::Event(RaftEvent::EntriesAppended {
            epoch,
            first_offset: offset,
            last_offset: offset,
        }));
        self.leader_log_grew(now_ms, out);
        self.sync_timers(now_ms, out);
        Ok(offset)
    }

    /// Asks the leader to step down gracefully: it resigns at once and sends
    /// EndQuorumEpoch so its best-placed follower stands without waiting.
    pub fn resign(
        &mut self,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<(), ProposeError> {
        if !self.started {
            return Err(ProposeError::NotStarted);
        }
        if now_ms < self.last_now_ms {
            return Err(ProposeError::TimeWentBackwards {
                now_ms,
                last_ms: self.last_now_ms,
            });
        }
        self.last_now_ms = now_ms;
        match &mut self.state {
            EpochState::Leader(leader) => leader.resign_requested = true,
            _ => {
                let leader_hint = self.leader_id().filter(|leader| *leader != self.id);
                return Err(ProposeError::NotLeader {
                    leader_hint,
                    epoch: self.epoch(),
                });
            }
        }
        self.poll(now_ms, rng, out);
        Ok(())
    }

    fn begin_input(&mut self, now_ms: u64) -> Result<(), RaftError> {
        if !self.started {
            return Err(RaftError::NotStarted);
        }
        if now_ms < self.last_now_ms {
            return Err(RaftError::TimeWentBackwards {
                now_ms,
                last_ms: self.last_now_ms,
            });
        }
        self.last_now_ms = now_ms;
        Ok(())
    }

    fn dispatch(
        &mut self,
        now_ms: u64,
        from: u32,
        msg: RaftMessage<R>,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<(), RaftError> {
        match msg {
            RaftMessage::VoteRequest {
                correlation_id,
                candidate_epoch,
                candidate_id,
                last_epoch,
                last_offset,
                pre_vote,
            } => {
                let last = OffsetAndEpoch {
                    epoch: last_epoch,
                    offset: last_offset,
                };
                self.handle_vote_request(
                    from,
                    correlation_id,
                    candidate_epoch,
                    candidate_id,
                    last,
                    pre_vote,
                    now_ms,
                    rng,
                    out,
                );
                Ok(())
            }
            RaftMessage::VoteResponse {
                correlation_id,
                epoch,
                leader,
                granted,
                error,
            } => self.handle_vote_response(
                from,
                correlation_id,
                epoch,
                leader,
                granted,
                error,
                now_ms,
                rng,
                out,
            ),
            RaftMessage::BeginQuorumEpochRequest {
                correlation_id,
                epoch,
                leader,
            } => self.handle_begin_quorum_epoch_request(
                from,
                correlation_id,
                epoch,
                leader,
                now_ms,
                rng,
                out,
            ),
            RaftMessage::BeginQuorumEpochResponse {
                correlation_id,
                epoch,
                leader,
                error,
            } => {
                if !self.connections.on_response(from, correlation_id) {
                    return Ok(());
                }
                if let Common::Done =
                    self.handle_common_response(from, error, leader, epoch, now_ms, rng, out)?
                {
                    return Ok(());
                }
                if let EpochState::Leader(state) = &mut self.state {
                    state.acknowledge(from);
                }
                Ok(())
            }
            RaftMessage::EndQuorumEpochRequest {
                correlation_id,
                epoch,
                leader,
                preferred_successors,
            } => self.handle_end_quorum_epoch_request(
                from,
                correlation_id,
                epoch,
                leader,
                &preferred_successors,
                now_ms,
                rng,
                out,
            ),
            RaftMessage::EndQuorumEpochResponse {
                correlation_id,
                epoch,
                leader,
                error,
            } => {
                if !self.connections.on_response(from, correlation_id) {
                    return Ok(());
                }
                if let Common::Done =
                    self.handle_common_response(from, error, leader, epoch, now_ms, rng, out)?
                {
                    return Ok(());
                }
                if let EpochState::Resigned { unacknowledged, .. } = &mut self.state {
                    unacknowledged.remove(&from);
                }
                Ok(())
            }
            RaftMessage::FetchRequest {
                correlation_id,
                replica_id,
                epoch,
                fetch_offset,
                last_fetched_epoch,
                high_watermark,
                max_wait_ms,
            } => {
                let request = HeldFetch {
                    correlation_id,
                    epoch,
                    fetch_offset,
                    last_fetched_epoch,
                    high_watermark,
                    deadline_ms: now_ms.saturating_add(max_wait_ms),
                };
                self.handle_fetch_request(from, replica_id, request, max_wait_ms, now_ms, out);
                Ok(())
            }
            RaftMessage::FetchResponse {
                correlation_id,
                epoch,
                leader,
                high_watermark,
                entries,
                diverging,
                error,
            } => {
                if !self.connections.on_response(from, correlation_id) {
                    return Ok(());
                }
                if let Common::Done =
                    self.handle_common_response(from, error, leader, epoch, now_ms, rng, out)?
                {
                    return Ok(());
                }
                self.handle_fetch_response(from, high_watermark, entries, diverging, now_ms)
                    .map(|events| out.extend(events.into_iter().map(RaftOutput::Event)))
            }
        }
    }

    // ----- Vote -----

    #[allow(clippy::too_many_arguments)]
    fn handle_vote_request(
        &mut self,
        from: u32,
        correlation_id: u64,
        candidate_epoch: i32,
        candidate_id: u32,
        last: OffsetAndEpoch,
        pre_vote: bool,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) {
        // A candidate bumps its epoch before asking, so its last epoch is
        // below the candidate epoch; a prospective has not bumped it yet.
        let illegal_epoch = if pre_vote {
            last.epoch > candidate_epoch
        } else {
            last.epoch >= candidate_epoch
        };
        if candidate_id != from || last.offset < 0 || last.epoch < 0 || illegal_epoch {
            self.answer_vote(
                from,
                correlation_id,
                candidate_epoch,
                pre_vote,
                Err(VoteRejectReason::InvalidRequest),
                Some(ErrorCode::InvalidRequest),
                out,
            );
            return;
        }
        let our_epoch = self.state.epoch();
        if candidate_epoch < our_epoch {
            let reason = VoteRejectReason::StaleEpoch {
                voter_epoch: our_epoch,
            };
            self.answer_vote(
                from,
                correlation_id,
                candidate_epoch,
                pre_vote,
                Err(reason),
                Some(ErrorCode::FencedLeaderEpoch),
                out,
            );
            return;
        }
        // A newer epoch always moves this node into it, even for a pre-vote
        // or a vote it then refuses: epochs only go forward.
        if candidate_epoch > our_epoch {
            self.transition_to_unattached(candidate_epoch, None, now_ms, rng, out);
        }
        let up_to_date = last >= self.durable.log.end_offset_and_epoch();
        let decision = self.can_grant_vote(from, up_to_date, pre_vote);
        if decision.is_ok() && !pre_vote {
            self.record_vote(from, now_ms, rng);
        }
        self.answer_vote(
            from,
            correlation_id,
            candidate_epoch,
            pre_vote,
            decision,
            None,
            out,
        );
    }

    /// The voter's rules (each EpochState's `canGrantVote`).
    fn can_grant_vote(
        &self,
        candidate: u32,
        up_to_date: bool,
        pre_vote: bool,
    ) -> Result<(), VoteRejectReason> {
        let log_check = if up_to_date {
            Ok(())
        } else {
            Err(VoteRejectReason::LogNotUpToDate)
        };
        match &self.state {
            EpochState::Unattached { leader, .. } | EpochState::Prospective { leader, .. } => {
                if pre_vote {
                    return log_check;
                }
                match (self.durable.election.voted_for, leader) {
                    // Kafka repeats a vote for the same candidate without
                    // looking at the log again.
                    (Some(voted_for), _) if voted_for == candidate => Ok(()),
                    (Some(voted_for), _) => Err(VoteRejectReason::AlreadyVoted { voted_for }),
                    (None, Some(leader)) => Err(VoteRejectReason::LeaderKnown { leader: *leader }),
                    (None, None) => log_check,
                }
            }
            EpochState::Follower {
                leader,
                has_fetched,
                ..
            } => {
                if !pre_vote {
                    Err(VoteRejectReason::LeaderKnown { leader: *leader })
                } else if *has_fetched {
                    Err(VoteRejectReason::LeaderAlive { leader: *leader })
                } else {
                    log_check
                }
            }
            EpochState::Candidate { .. } => {
                if pre_vote {
                    log_check
                } else {
                    Err(VoteRejectReason::IsCandidate)
                }
            }
            EpochState::Leader(_) => Err(VoteRejectReason::IsLeader),
            EpochState::Resigned { .. } => Err(VoteRejectReason::Resigned),
        }
    }

    /// Records a granted (real) vote durably. Voting restarts the election
    /// timer: the candidate has at least as good a chance as this node.
    fn record_vote(&mut self, candidate: u32, now_ms: u64, rng: &mut dyn FnMut() -> u64) {
        if self.durable.election.voted_for.is_some() {
            return;
        }
        let timeout_ms = random_election_timeout_ms(self.config.election_timeout_ms, rng);
        let deadline = now_ms.saturating_add(timeout_ms);
        let leader = match &mut self.state {
            EpochState::Unattached {
                leader,
                election_deadline_ms,
                ..
            } => {
                *election_deadline_ms = deadline;
                *leader
            }
            EpochState::Prospective {
                leader,
                election_deadline_ms,
                tally,
                ..
            } => {
                // Kafka builds a new ProspectiveState here, whose election
                // starts over with only its own vote.
                *election_deadline_ms = deadline;
                *tally = VoteTally::new(self.id, &self.voters);
                *leader
            }
            _ => return,
        };
        self.persist(leader, Some(candidate));
    }

    #[allow(clippy::too_many_arguments)]
    fn answer_vote(
        &self,
        to: u32,
        correlation_id: u64,
        candidate_epoch: i32,
        pre_vote: bool,
        decision: Result<(), VoteRejectReason>,
        error: Option<ErrorCode>,
        out: &mut Vec<RaftOutput<R>>,
    ) {
        let granted = decision.is_ok();
        out.push(RaftOutput::Send {
            to,
            msg: RaftMessage::VoteResponse {
                correlation_id,
                epoch: self.state.epoch(),
                leader: self.leader_id(),
                granted,
                error,
            },
        });
        let event = match decision {
            Ok(()) => RaftEvent::VoteGranted {
                candidate: to,
                epoch: candidate_epoch,
                pre_vote,
            },
            Err(reason) => RaftEvent::VoteRejected {
                candidate: to,
                epoch: candidate_epoch,
                pre_vote,
                reason,
            },
        };
        out.push(RaftOutput::Event(event));
    }

    #[allow(clippy::too_many_arguments)]
    fn handle_vote_response(
        &mut self,
        from: u32,
        correlation_id: u64,
        epoch: i32,
        leader: Option<u32>,
        granted: bool,
        error: Option<ErrorCode>,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<(), RaftError> {
        if !self.connections.on_response(from, correlation_id) {
            return Ok(());
        }
        if let Common::Done =
            self.handle_common_response(from, error, leader, epoch, now_ms, rng, out)?
        {
            return Ok(());
        }
        let backoff_max_ms = self.config.election_backoff_max_ms;
        match &mut self.state {
            EpochState::Prospective { epoch, tally, .. } => {
                let epoch = *epoch;
                let was_rejected = tally.is_rejected();
                tally.record(from, granted);
                if tally.is_granted() {
                    self.transition_to_candidate(ElectionCause::PreVoteWon, now_ms, rng, out);
                } else if tally.is_rejected() && !was_rejected {
                    // Poll returns the node to its leader or to Unattached.
                    let rejected_by = tally.voters_in(VoteState::Rejected);
                    out.push(RaftOutput::Event(RaftEvent::ElectionLost {
                        epoch,
                        pre_vote: true,
                        rejected_by,
                    }));
                }
            }
            EpochState::Candidate {
                epoch,
                tally,
                retries,
                backoff_until_ms,
                ..
            } => {
                let epoch = *epoch;
                tally.record(from, granted);
                if tally.is_granted() {
                    self.become_leader(now_ms, out);
                } else if tally.is_rejected() && backoff_until_ms.is_none() {
                    // Back off at once rather than wait out the election
                    // timeout for an election that is already lost.
                    let backoff_ms = binary_exponential_backoff_ms(*retries, backoff_max_ms, rng);
                    *backoff_until_ms = Some(now_ms.saturating_add(backoff_ms));
                    let rejected_by = tally.voters_in(VoteState::Rejected);
                    out.push(RaftOutput::Event(RaftEvent::ElectionLost {
                        epoch,
                        pre_vote: false,
                        rejected_by,
                    }));
                    out.push(RaftOutput::Event(RaftEvent::ElectionBackoff {
                        epoch,
                        backoff_ms,
                    }));
                }
            }
            _ => {}
        }
        Ok(())
    }

    // ----- BeginQuorumEpoch and EndQuorumEpoch -----

    #[allow(clippy::too_many_arguments)]
    fn handle_begin_quorum_epoch_request(
        &mut self,
        from: u32,
        correlation_id: u64,
        epoch: i32,
        leader: u32,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<(), RaftError> {
        let error = if leader != from {
            Some(ErrorCode::InvalidRequest)
        } else if epoch < self.state.epoch() {
            Some(ErrorCode::FencedLeaderEpoch)
        } else {
            self.maybe_transition(Some(leader), epoch, now_ms, rng, out)?;
            None
        };
        let msg = RaftMessage::BeginQuorumEpochResponse {
            correlation_id,
            epoch: self.state.epoch(),
            leader: self.leader_id(),
            error,
        };
        out.push(RaftOutput::Send { to: from, msg });
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn handle_end_quorum_epoch_request(
        &mut self,
        from: u32,
        correlation_id: u64,
        epoch: i32,
        leader: u32,
        preferred_successors: &[u32],
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<(), RaftError> {
        let error = if leader != from {
            Some(ErrorCode::InvalidRequest)
        } else if epoch < self.state.epoch() {
            Some(ErrorCode::FencedLeaderEpoch)
        } else {
            self.maybe_transition(Some(leader), epoch, now_ms, rng, out)?;
            // Voter lists are tiny (1, 3 or 5), so the conversions cannot fail.
            let successors = u32::try_from(preferred_successors.len()).unwrap_or(u32::MAX);
            let position = preferred_successors
                .iter()
                .position(|id| *id == self.id)
                .map_or(successors, |index| u32::try_from(index).unwrap_or(u32::MAX));
            let timeout_ms = strict_exponential_backoff_ms(
                position,
                successors,
                self.config.election_backoff_max_ms,
            );
            if let EpochState::Follower {
                epoch,
                leader: followed,
                fetch_deadline_ms,
                ..
            } = &mut self.state
            {
                if *followed == leader {
                    *fetch_deadline_ms = now_ms.saturating_add(timeout_ms);
                    out.push(RaftOutput::Event(RaftEvent::FetchTimeoutOverridden {
                        epoch: *epoch,
                        leader,
                        timeout_ms,
                    }));
                }
            }
            None
        };
        let msg = RaftMessage::EndQuorumEpochResponse {
            correlation_id,
            epoch: self.state.epoch(),
            leader: self.leader_id(),
            error,
        };
        out.push(RaftOutput::Send { to: from, msg });
        Ok(())
    }

    // ----- Fetch -----

    fn handle_fetch_request(
        &mut self,
        from: u32,
        replica_id: u32,
        request: HeldFetch,
        max_wait_ms: u64,
        now_ms: u64,
        out: &mut Vec<RaftOutput<R>>,
    ) {
        let invalid = replica_id != from
            || request.fetch_offset < 0
            || request.last_fetched_epoch < 0
            || request.last_fetched_epoch > request.epoch;
        if invalid {
            let msg = self.fetch_error_response(request.correlation_id, ErrorCode::InvalidRequest);
            out.push(RaftOutput::Send { to: from, msg });
            return;
        }
        let response = self.try_complete_fetch(from, &request, now_ms, out);
        // Hold a fetch that found nothing to return, so the follower learns
        // of new entries as soon as they are appended (a long poll); but not
        // when the follower's high watermark is behind, which it must learn.
        let nothing_new = matches!(
            &response,
            RaftMessage::FetchResponse { error: None, diverging: None, entries, high_watermark, .. }
                if entries.is_empty() && !Self::behind(request.high_watermark, *high_watermark)
        );
        if nothing_new && max_wait_ms > 0 {
            if let EpochState::Leader(leader) = &mut self.state {
                leader.held_fetches.insert(from, request);
            }
        } else {
            out.push(RaftOutput::Send {
                to: from,
                msg: response,
            });
        }
        // This fetch may have advanced the high watermark, which the other
        // held fetches should carry to their followers.
        self.complete_ready_held_fetches(now_ms, out);
    }

    /// True when a follower knowing `follower_hw` has not yet learned
    /// `leader_hw`.
    fn behind(follower_hw: Option<i64>, leader_hw: Option<i64>) -> bool {
        match (follower_hw, leader_hw) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(follower), Some(leader)) => follower < leader,
        }
    }

    /// Answers every held fetch that now has something to carry: entries
    /// past its offset, or a high watermark its follower lacks.
    fn complete_ready_held_fetches(&mut self, now_ms: u64, out: &mut Vec<RaftOutput<R>>) {
        let log_end = self.durable.log.end_offset();
        let EpochState::Leader(leader) = &self.state else {
            return;
        };
        let leader_hw = leader.high_watermark;
        let ready: Vec<u32> = leader
            .held_fetches
            .iter()
            .filter(|(_, held)| {
                held.fetch_offset < log_end || Self::behind(held.high_watermark, leader_hw)
            })
            .map(|(replica, _)| *replica)
            .collect();
        for replica in ready {
            let Some(held) = (match &mut self.state {
                EpochState::Leader(leader) => leader.held_fetches.remove(&replica),
                _ => None,
            }) else {
                continue;
            };
            let msg = self.try_complete_fetch(replica, &held, now_ms, out);
            out.push(RaftOutput::Send { to: replica, msg });
        }
    }

    /// The leader's answer to a fetch (`tryCompleteFetchRequest`): entries
    /// from the fetch offset if the follower's log matches, otherwise where
    /// it diverges. A matching fetch also records the follower's progress,
    /// which may advance the high watermark.
    fn try_complete_fetch(
        &mut self,
        replica: u32,
        request: &HeldFetch,
        now_ms: u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> RaftMessage<R> {
        if let Some(error) = self.validate_leader_only(request.epoch) {
            return self.fetch_error_response(request.correlation_id, error);
        }
        let log = &self.durable.log;
        let validation =
            log.validate_offset_and_epoch(request.fetch_offset, request.last_fetched_epoch);
        let log_end = log.end_offset();
        let (entries, diverging) = match validation {
            FetchValidation::Valid => (
                log.read(request.fetch_offset, self.config.fetch_max_entries),
                None,
            ),
            FetchValidation::Diverging(at) => (Vec::new(), Some(at)),
        };
        let EpochState::Leader(leader) = &mut self.state else {
            return self
                .fetch_error_response(request.correlation_id, ErrorCode::NotLeaderOrFollower);
        };
        if diverging.is_none() {
            let before = leader.high_watermark;
            if let Some(to) = leader.update_replica(replica, now_ms, request.fetch_offset, log_end)
            {
                out.push(RaftOutput::Event(RaftEvent::HighWatermarkAdvanced {
                    from: before,
                    to,
                }));
            }
        }
        RaftMessage::FetchResponse {
            correlation_id: request.correlation_id,
            epoch: leader.epoch,
            leader: Some(self.id),
            high_watermark: leader.high_watermark,
            entries,
            diverging,
            error: None,
        }
    }

    /// Kafka's `validateLeaderOnlyRequest`.
    fn validate_leader_only(&self, request_epoch: i32) -> Option<ErrorCode> {
        let epoch = self.state.epoch();
        if request_epoch < epoch {
            Some(ErrorCode::FencedLeaderEpoch)
        } else if request_epoch > epoch {
            Some(ErrorCode::UnknownLeaderEpoch)
        } else if !self.is_leader() {
            Some(ErrorCode::NotLeaderOrFollower)
        } else {
            None
        }
    }

    fn fetch_error_response(&self, correlation_id: u64, error: ErrorCode) -> RaftMessage<R> {
        RaftMessage::FetchResponse {
            correlation_id,
            epoch: self.state.epoch(),
            leader: self.leader_id(),
            high_watermark: None,
            entries: Vec::new(),
            diverging: None,
            error: Some(error),
        }
    }

    /// The follower's handling of a successful fetch response: truncate if
    /// told the logs diverge, otherwise append and learn the high watermark.
    fn handle_fetch_response(
        &mut self,
        from: u32,
        high_watermark: Option<i64>,
        entries: Vec<LogEntry<R>>,
        diverging: Option<OffsetAndEpoch>,
        now_ms: u64,
    ) -> Result<Vec<RaftEvent>, RaftError> {
        let fetch_timeout_ms = self.config.fetch_timeout_ms;
        let EpochState::Follower {
            leader,
            fetch_deadline_ms,
            has_fetched,
            high_watermark: local_hw,
            ..
        } = &mut self.state
        else {
            return Ok(Vec::new());
        };
        if *leader != from {
            return Ok(Vec::new());
        }
        let log = &mut self.durable.log;
        let mut events = Vec::new();
        if let Some(at) = diverging {
            let truncate_to = log.truncation_offset(at);
            if let Some(hw) = *local_hw {
                if truncate_to < hw {
                    return Err(RaftError::TruncationBelowHighWatermark {
                        truncate_to,
                        high_watermark: hw,
                    });
                }
            }
            let before = log.end_offset();
            let after = log.truncate_to_end_offset(at);
            if after < before {
                events.push(RaftEvent::Truncated {
                    from: before,
                    to: after,
                });
            }
        } else {
            let last_epoch = entries.last().map(|entry| entry.epoch);
            match log.append_as_follower(entries) {
                Ok(Some((first_offset, last_offset))) => events.push(RaftEvent::EntriesAppended {
                    epoch: last_epoch.unwrap_or_default(),
                    first_offset,
                    last_offset,
                }),
                Ok(None) => {}
                Err(error) => return Err(RaftError::InvalidAppend(error)),
            }
            if let Some(leader_hw) = high_watermark {
                // A follower exposes only what it holds itself.
                let new_hw = leader_hw.min(log.end_offset());
                if local_hw.is_none_or(|current| new_hw > current) {
                    events.push(RaftEvent::HighWatermarkAdvanced {
                        from: *local_hw,
                        to: new_hw,
                    });
                    *local_hw = Some(new_hw);
                }
            }
        }
        *fetch_deadline_ms = now_ms.saturating_add(fetch_timeout_ms);
        *has_fetched = true;
        Ok(events)
    }

    /// After the leader's log grew: its own progress may move the high
    /// watermark (a single voter commits alone), and held fetches waiting
    /// for new entries can be answered.
    fn leader_log_grew(&mut self, now_ms: u64, out: &mut Vec<RaftOutput<R>>) {
        let log_end = self.durable.log.end_offset();
        let EpochState::Leader(leader) = &mut self.state else {
            return;
        };
        let before = leader.high_watermark;
        if let Some(to) = leader.update_local(log_end) {
            out.push(RaftOutput::Event(RaftEvent::HighWatermarkAdvanced {
                from: before,
                to,
            }));
        }
        self.complete_ready_held_fetches(now_ms, out);
    }

    /// Answers held fetches whose wait is over, with nothing new.
    fn expire_held_fetches(&mut self, now_ms: u64, out: &mut Vec<RaftOutput<R>>) {
        let id = self.id;
        let EpochState::Leader(leader) = &mut self.state else {
            return;
        };
        let expired: Vec<u32> = leader
            .held_fetches
            .iter()
            .filter(|(_, held)| held.deadline_ms <= now_ms)
            .map(|(replica, _)| *replica)
            .collect();
        for replica in expired {
            if let Some(held) = leader.held_fetches.remove(&replica) {
                // Kafka returns the response it computed when it held the
                // fetch; this one differs only in carrying the current high
                // watermark, which is never older.
                let msg = RaftMessage::FetchResponse {
                    correlation_id: held.correlation_id,
                    epoch: leader.epoch,
                    leader: Some(id),
                    high_watermark: leader.high_watermark,
                    entries: Vec::new(),
                    diverging: None,
                    error: None,
                };
                out.push(RaftOutput::Send { to: replica, msg });
            }
        }
    }

    // ----- responses in common -----

    /// Kafka's `maybeHandleCommonResponse`: a response from an older epoch
    /// is stale; one from a newer epoch (or saying the request was fenced)
    /// moves this node into that epoch; one naming the leader of the current
    /// epoch makes this node its follower.
    #[allow(clippy::too_many_arguments)]
    fn handle_common_response(
        &mut self,
        from: u32,
        error: Option<ErrorCode>,
        leader: Option<u32>,
        epoch: i32,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<Common, RaftError> {
        let transitions_before = self.transitions;
        let our_epoch = self.state.epoch();
        let outcome = if epoch < our_epoch || error == Some(ErrorCode::UnknownLeaderEpoch) {
            Common::Done
        } else if epoch > our_epoch
            || matches!(
                error,
                Some(ErrorCode::FencedLeaderEpoch) | Some(ErrorCode::NotLeaderOrFollower)
            )
        {
            self.maybe_transition(leader, epoch, now_ms, rng, out)?;
            Common::Done
        } else if let (Some(new_leader), false) = (leader, self.leader_id().is_some()) {
            if new_leader == self.id {
                return Err(RaftError::InconsistentLeader {
                    epoch,
                    claimed: leader,
                    known: self.leader_id(),
                });
            }
            self.transition_to_follower(epoch, new_leader, now_ms, out);
            if error.is_none() {
                Common::Continue
            } else {
                Common::Done
            }
        } else if error.is_some() {
            Common::Done
        } else {
            Common::Continue
        };
        // An error that changed nothing would make the node retry at once;
        // Kafka backs the connection off in most such cases and the
        // simulation does in all, so a resigned leader is not hammered.
        if error.is_some() && self.transitions == transitions_before {
            self.connections
                .back_off(from, now_ms.saturating_add(self.config.retry_backoff_ms));
        }
        Ok(outcome)
    }

    /// Kafka's `maybeTransition`: move into a newer epoch, or follow a
    /// leader newly learned for the current one.
    fn maybe_transition(
        &mut self,
        leader: Option<u32>,
        epoch: i32,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> Result<(), RaftError> {
        if !self.has_consistent_leader(epoch, leader) {
            return Err(RaftError::InconsistentLeader {
                epoch,
                claimed: leader,
                known: self.leader_id(),
            });
        }
        if epoch > self.state.epoch() {
            match leader {
                Some(leader) => self.transition_to_follower(epoch, leader, now_ms, out),
                None => self.transition_to_unattached(epoch, None, now_ms, rng, out),
            }
        } else if let (Some(leader), None) = (leader, self.leader_id()) {
            self.transition_to_follower(epoch, leader, now_ms, out);
        }
        Ok(())
    }

    fn has_consistent_leader(&self, epoch: i32, leader: Option<u32>) -> bool {
        match leader {
            // Only a node that led this epoch may be named its leader.
            Some(leader) if leader == self.id => {
                epoch == self.state.epoch() && self.leader_id() == Some(self.id)
            }
            _ => {
                epoch != self.state.epoch()
                    || leader.is_none()
                    || self.leader_id().is_none()
                    || leader == self.leader_id()
            }
        }
    }

    // ----- transitions -----

    /// Replaces the state. Like Kafka's `resetConnections`, it forgets every
    /// request in flight, and a leader stepping down answers the fetches it
    /// held so that their followers learn the news at once.
    fn set_state(&mut self, new_state: EpochState, out: &mut Vec<RaftOutput<R>>) {
        let old_state = std::mem::replace(&mut self.state, new_state);
        self.transitions += 1;
        self.connections.reset_all();
        if let EpochState::Leader(old_leader) = old_state {
            for (replica, held) in old_leader.held_fetches {
                let error = if held.epoch < self.state.epoch() {
                    ErrorCode::FencedLeaderEpoch
                } else {
                    ErrorCode::NotLeaderOrFollower
                };
                let msg = self.fetch_error_response(held.correlation_id, error);
                out.push(RaftOutput::Send { to: replica, msg });
            }
        }
    }

    /// Writes the election record for the current epoch (a durable
    /// transition in Kafka's terms).
    fn persist(&mut self, leader: Option<u32>, voted_for: Option<u32>) {
        self.durable.election = ElectionRecord {
            epoch: self.state.epoch(),
            leader,
            voted_for,
        };
    }

    fn other_voters(&self) -> Vec<u32> {
        self.voters
            .iter()
            .copied()
            .filter(|id| *id != self.id)
            .collect()
    }

    fn event_unattached(&self, now_ms: u64, out: &mut Vec<RaftOutput<R>>) {
        if let EpochState::Unattached {
            epoch,
            election_deadline_ms,
            ..
        } = &self.state
        {
            out.push(RaftOutput::Event(RaftEvent::BecameUnattached {
                epoch: *epoch,
                voted_for: self.voted_for(),
                timeout_ms: election_deadline_ms.saturating_sub(now_ms),
            }));
        }
    }

    /// Unattached: the node knows an epoch but no leader for it.
    fn transition_to_unattached(
        &mut self,
        epoch: i32,
        leader: Option<u32>,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) {
        let current_epoch = self.state.epoch();
        // A node that was already waiting on an election timer keeps it, so
        // that news of a newer epoch does not postpone its own candidacy.
        let deadline = match &self.state {
            EpochState::Candidate {
                election_deadline_ms,
                ..
            }
            | EpochState::Unattached {
                election_deadline_ms,
                ..
            }
            | EpochState::Resigned {
                election_deadline_ms,
                ..
            } => *election_deadline_ms,
            EpochState::Prospective {
                election_deadline_ms,
                tally,
                ..
            } if !tally.is_rejected() => *election_deadline_ms,
            _ => now_ms.saturating_add(random_election_timeout_ms(
                self.config.election_timeout_ms,
                rng,
            )),
        };
        // Within one epoch (only from Prospective) the vote already cast
        // stands.
        let voted_for = if epoch == current_epoch {
            self.voted_for()
        } else {
            None
        };
        let high_watermark = self.state.high_watermark();
        self.set_state(
            EpochState::Unattached {
                epoch,
                leader,
                election_deadline_ms: deadline,
                high_watermark,
            },
            out,
        );
        self.persist(leader, voted_for);
        self.event_unattached(now_ms, out);
    }

    fn transition_to_follower(
        &mut self,
        epoch: i32,
        leader: u32,
        now_ms: u64,
        out: &mut Vec<RaftOutput<R>>,
    ) {
        let voted_for = if epoch == self.state.epoch() {
            self.voted_for()
        } else {
            None
        };
        let high_watermark = self.state.high_watermark();
        self.set_state(
            EpochState::Follower {
                epoch,
                leader,
                fetch_deadline_ms: now_ms.saturating_add(self.config.fetch_timeout_ms),
                has_fetched: false,
                high_watermark,
            },
            out,
        );
        self.persist(Some(leader), voted_for);
        out.push(RaftOutput::Event(RaftEvent::BecameFollower {
            epoch,
            leader,
        }));
    }

    /// A timed-out node stands: directly (plain Raft, Kafka before 4.0) or
    /// by first asking for pre-votes (KIP-996).
    fn start_election(
        &mut self,
        cause: ElectionCause,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) {
        if self.config.pre_vote {
            self.transition_to_prospective(cause, now_ms, rng, out);
        } else {
            self.transition_to_candidate(cause, now_ms, rng, out);
        }
    }

    /// Prospective keeps the epoch and the leader it knew, so that a lost
    /// pre-vote can return to following that leader.
    fn transition_to_prospective(
        &mut self,
        cause: ElectionCause,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) {
        let retries = match &self.state {
            EpochState::Candidate { retries, .. } => retries.saturating_add(1),
            _ => 1,
        };
        // Kafka passes the leader it knew, which for a resigned leader is
        // itself: it led this epoch and must never vote in it for another.
        let leader = self.leader_id();
        let epoch = self.state.epoch();
        let high_watermark = self.state.high_watermark();
        let timeout_ms = random_election_timeout_ms(self.config.election_timeout_ms, rng);
        let tally = VoteTally::new(self.id, &self.voters);
        let granted = tally.is_granted();
        self.set_state(
            EpochState::Prospective {
                epoch,
                leader,
                tally,
                retries,
                election_deadline_ms: now_ms.saturating_add(timeout_ms),
                high_watermark,
            },
            out,
        );
        out.push(RaftOutput::Event(RaftEvent::BecameProspective {
            epoch,
            timeout_ms,
            cause,
        }));
        if granted {
            self.transition_to_candidate(ElectionCause::PreVoteWon, now_ms, rng, out);
        }
    }

    /// Candidate: bump the epoch, vote for itself durably, ask the others.
    fn transition_to_candidate(
        &mut self,
        cause: ElectionCause,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) {
        let retries = match &self.state {
            EpochState::Prospective { retries, .. } => *retries,
            EpochState::Candidate { retries, .. } => retries.saturating_add(1),
            _ => 1,
        };
        let epoch = self.state.epoch().saturating_add(1);
        let high_watermark = self.state.high_watermark();
        let timeout_ms = random_election_timeout_ms(self.config.election_timeout_ms, rng);
        let tally = VoteTally::new(self.id, &self.voters);
        let granted = tally.is_granted();
        self.set_state(
            EpochState::Candidate {
                epoch,
                tally,
                retries,
                election_deadline_ms: now_ms.saturating_add(timeout_ms),
                backoff_until_ms: None,
                high_watermark,
            },
            out,
        );
        self.persist(None, Some(self.id));
        out.push(RaftOutput::Event(RaftEvent::BecameCandidate {
            epoch,
            timeout_ms,
            retries,
            cause,
        }));
        if granted {
            self.become_leader(now_ms, out);
        }
    }

    /// Leader: write the LeaderChange entry that opens the epoch, then
    /// announce the epoch to every voter.
    fn become_leader(&mut self, now_ms: u64, out: &mut Vec<RaftOutput<R>>) {
        let (epoch, granting_voters) = match &self.state {
            EpochState::Candidate { epoch, tally, .. } if tally.is_granted() => {
                (*epoch, tally.voters_in(VoteState::Granted))
            }
            _ => return,
        };
        let epoch_start_offset = self.durable.log.end_offset();
        let leader = LeaderState::new(
            self.id,
            epoch,
            epoch_start_offset,
            &self.voters,
            granting_voters.clone(),
            now_ms,
            self.config.check_quorum_timeout_ms(),
            self.config.begin_quorum_epoch_period_ms(),
        );
        self.set_state(EpochState::Leader(leader), out);
        self.persist(Some(self.id), Some(self.id));
        out.push(RaftOutput::Event(RaftEvent::BecameLeader {
            epoch,
            epoch_start_offset,
        }));
        let change = LeaderChange {
            leader: self.id,
            voters: self.voters.clone(),
            granting_voters,
        };
        let offset = self
            .durable
            .log
            .append_as_leader(epoch, RaftRecord::LeaderChange(change));
        out.push(RaftOutput::Event(RaftEvent::EntriesAppended {
            epoch,
            first_offset: offset,
            last_offset: offset,
        }));
        self.leader_log_grew(now_ms, out);
    }

    fn transition_to_resigned(
        &mut self,
        reason: ResignReason,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) {
        let EpochState::Leader(leader) = &self.state else {
            return;
        };
        let epoch = leader.epoch;
        let preferred_successors = leader.preferred_successors();
        let timeout_ms = random_election_timeout_ms(self.config.election_timeout_ms, rng);
        let unacknowledged: BTreeSet<u32> = self.other_voters().into_iter().collect();
        self.set_state(
            EpochState::Resigned {
                epoch,
                election_deadline_ms: now_ms.saturating_add(timeout_ms),
                unacknowledged,
                preferred_successors,
            },
            out,
        );
        out.push(RaftOutput::Event(RaftEvent::Resigned { epoch, reason }));
    }

    // ----- poll -----

    /// Acts on passed deadlines and sends what the state needs, repeating
    /// while transitions cascade, then re-arms the timers.
    fn poll(&mut self, now_ms: u64, rng: &mut dyn FnMut() -> u64, out: &mut Vec<RaftOutput<R>>) {
        // Each transition sets future deadlines, so a cascade is short; the
        // bound only guards against a bug looping forever.
        for _ in 0..32 {
            if !self.poll_once(now_ms, rng, out) {
                break;
            }
        }
        self.sync_timers(now_ms, out);
    }

    /// One pass of the state's poll; returns true if the state changed.
    fn poll_once(
        &mut self,
        now_ms: u64,
        rng: &mut dyn FnMut() -> u64,
        out: &mut Vec<RaftOutput<R>>,
    ) -> bool {
        match &mut self.state {
            EpochState::Unattached {
                election_deadline_ms,
                ..
            } => {
                if now_ms >= *election_deadline_ms {
                    self.start_election(ElectionCause::ElectionTimeout, now_ms, rng, out);
                    return true;
                }
                false
            }
            EpochState::Prospective {
                epoch,
                leader,
                tally,
                election_deadline_ms,
                ..
            } => {
                if tally.is_rejected() || now_ms >= *election_deadline_ms {
                    let (epoch, leader) = (*epoch, *leader);
                    match leader {
                        Some(leader) if leader != self.id => {
                            self.transition_to_follower(epoch, leader, now_ms, out)
                        }
                        _ => self.transition_to_unattached(epoch, leader, now_ms, rng, out),
                    }
                    return true;
                }
                self.send_vote_requests(now_ms, out);
                false
            }
            EpochState::Candidate {
                epoch,
                retries,
                election_deadline_ms,
                backoff_until_ms,
                ..
            } => {
                if let Some(until) = *backoff_until_ms {
                    if now_ms >= until {
                        self.start_election(ElectionCause::BackoffComplete, now_ms, rng, out);
                        return true;
                    }
                    return false;
                }
                if now_ms >= *election_deadline_ms {
                    if self.config.pre_vote {
                        self.transition_to_prospective(
                            ElectionCause::ElectionTimeoutAsCandidate,
                            now_ms,
                            rng,
                            out,
                        );
                    } else {
                        let backoff_ms = binary_exponential_backoff_ms(
                            *retries,
                            self.config.election_backoff_max_ms,
                            rng,
                        );
                        *backoff_until_ms = Some(now_ms.saturating_add(backoff_ms));
                        out.push(RaftOutput::Event(RaftEvent::ElectionBackoff {
                            epoch: *epoch,
                            backoff_ms,
                        }));
                    }
                    return true;
                }
                self.send_vote_requests(now_ms, out);
                false
            }
            EpochState::Follower {
                leader,
                fetch_deadline_ms,
                ..
            } => {
                if now_ms >= *fetch_deadline_ms {
                    self.start_election(ElectionCause::FetchTimeout, now_ms, rng, out);
                    return true;
                }
                let leader = *leader;
                if self.connections.is_ready(leader, now_ms) {
                    let (epoch, id, max_wait_ms) =
                        (self.state.epoch(), self.id, self.config.fetch_max_wait_ms);
                    let high_watermark = self.state.high_watermark();
                    let end = self.durable.log.end_offset_and_epoch();
                    self.send_request(leader, now_ms, out, |correlation_id| {
                        RaftMessage::FetchRequest {
                            correlation_id,
                            replica_id: id,
                            epoch,
                            fetch_offset: end.offset,
                            last_fetched_epoch: end.epoch,
                            high_watermark,
                            max_wait_ms,
                        }
                    });
                }
                false
            }
            EpochState::Leader(leader) => {
                if leader.check_quorum_expired(now_ms) {
                    self.transition_to_resigned(ResignReason::CheckQuorumFailed, now_ms, rng, out);
                    return true;
                }
                if leader.resign_requested {
                    self.transition_to_resigned(ResignReason::Requested, now_ms, rng, out);
                    return true;
                }
                self.expire_held_fetches(now_ms, out);
                self.send_begin_quorum_epoch(now_ms, out);
                false
            }
            EpochState::Resigned {
                election_deadline_ms,
                ..
            } => {
                if now_ms >= *election_deadline_ms {
                    self.start_election(ElectionCause::ElectionTimeout, now_ms, rng, out);
                    return true;
                }
                self.send_end_quorum_epoch(now_ms, out);
                false
            }
        }
    }

    fn send_request(
        &mut self,
        to: u32,
        now_ms: u64,
        out: &mut Vec<RaftOutput<R>>,
        build: impl FnOnce(u64) -> RaftMessage<R>,
    ) {
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id = correlation_id.wrapping_add(1);
        self.connections.on_request_sent(
            to,
            correlation_id,
            now_ms.saturating_add(self.config.request_timeout_ms),
        );
        out.push(RaftOutput::Send {
            to,
            msg: build(correlation_id),
        });
    }

    /// Vote requests to the voters that have not answered, for as long as
    /// the election can still be won.
    fn send_vote_requests(&mut self, now_ms: u64, out: &mut Vec<RaftOutput<R>>) {
        let (epoch, pre_vote, targets) = match &self.state {
            EpochState::Prospective { epoch, tally, .. } if !tally.is_rejected() => {
                (*epoch, true, tally.voters_in(VoteState::Unrecorded))
            }
            EpochState::Candidate {
                epoch,
                tally,
                backoff_until_ms: None,
                ..
            } if !tally.is_rejected() => (*epoch, false, tally.voters_in(VoteState::Unrecorded)),
            _ => return,
        };
        let id = self.id;
        let last = self.durable.log.end_offset_and_epoch();
        for to in targets {
            if to == id || !self.connections.is_ready(to, now_ms) {
                continue;
            }
            self.send_request(to, now_ms, out, |correlation_id| RaftMessage::VoteRequest {
                correlation_id,
                candidate_epoch: epoch,
                candidate_id: id,
                last_epoch: last.epoch,
                last_offset: last.offset,
                pre_vote,
            });
            out.push(RaftOutput::Event(RaftEvent::VoteRequested {
                to,
                epoch,
                pre_vote,
            }));
        }
    }

    /// BeginQuorumEpoch to every other voter, at once on election and then
    /// every half fetch timeout, so a voter that missed the election (or
    /// restarted) finds its leader.
    fn send_begin_quorum_epoch(&mut self, now_ms: u64, out: &mut Vec<RaftOutput<R>>) {
        let epoch = match &self.state {
            EpochState::Leader(leader) if now_ms >= leader.begin_quorum_epoch_deadline_ms => {
                leader.epoch
            }
            _ => return,
        };
        let id = self.id;
        for to in self.other_voters() {
            if self.connections.is_ready(to, now_ms) {
                self.send_request(to, now_ms, out, |correlation_id| {
                    RaftMessage::BeginQuorumEpochRequest {
                        correlation_id,
                        epoch,
                        leader: id,
                    }
                });
            }
        }
        if let EpochState::Leader(leader) = &mut self.state {
            leader.begin_quorum_epoch_sent(now_ms);
        }
    }

    fn send_end_quorum_epoch(&mut self, now_ms: u64, out: &mut Vec<RaftOutput<R>>) {
        let (epoch, targets, preferred) = match &self.state {
            EpochState::Resigned {
                epoch,
                unacknowledged,
                preferred_successors,
                ..
            } => (
                *epoch,
                unacknowledged.iter().copied().collect::<Vec<u32>>(),
                preferred_successors.clone(),
            ),
            _ => return,
        };
        let id = self.id;
        for to in targets {
            if self.connections.is_ready(to, now_ms) {
                let preferred_successors = preferred.clone();
                self.send_request(to, now_ms, out, |correlation_id| {
                    RaftMessage::EndQuorumEpochRequest {
                        correlation_id,
                        epoch,
                        leader: id,
                        preferred_successors,
                    }
                });
            }
        }
    }

    /// Arms one timer per deadline the state and the connections wait for,
    /// emitting SetTimer only for deadlines that changed.
    fn sync_timers(&mut self, now_ms: u64, out: &mut Vec<RaftOutput<R>>) {
        self.connections.expire(now_ms);
        let mut wanted: BTreeMap<TimerKind, u64> = BTreeMap::new();
        // The state's own deadline is armed from the same value the view
        // shows, so what the UI counts down is what fires.
        if let Some(deadline) = self.state.deadline() {
            let kind = match deadline.kind {
                RaftDeadlineKind::ElectionTimeout => TimerKind::Election,
                RaftDeadlineKind::ElectionBackoff => TimerKind::ElectionBackoff,
                RaftDeadlineKind::FetchTimeout => TimerKind::FetchTimeout,
                RaftDeadlineKind::CheckQuorum => TimerKind::CheckQuorum,
            };
            wanted.insert(kind, deadline.at_ms);
        }
        if let EpochState::Leader(leader) = &self.state {
            wanted.insert(
                TimerKind::BeginQuorumEpoch,
                leader.begin_quorum_epoch_deadline_ms,
            );
            for (replica, held) in &leader.held_fetches {
                wanted.insert(
                    TimerKind::FetchExpiry { replica: *replica },
                    held.deadline_ms,
                );
            }
        }
        for (peer, deadline) in self.connections.deadlines() {
            wanted.insert(TimerKind::Connection { peer }, deadline);
        }
        self.armed.retain(|kind, _| wanted.contains_key(kind));
        for (kind, deadline_ms) in wanted {
            if self
                .armed
                .get(&kind)
                .is_some_and(|armed| armed.deadline_ms == deadline_ms)
            {
                continue;
            }
            let token = self.next_timer_token;
            self.next_timer_token = token.wrapping_add(1);
            self.armed.insert(kind, ArmedTimer { deadline_ms, token });
            out.push(RaftOutput::SetTimer {
                after_ms: deadline_ms.saturating_sub(now_ms),
                timer: RaftTimer { kind, token },
            });
        }
    }
}

#[cfg(test)]
mod tests;
