//! Handler-level tests in the openraft style: feed one input, assert the
//! exact outputs. The random source always answers 0, so every election
//! timeout is exactly `election_timeout_ms` and ids count from 0.

use super::super::config::RaftConfig;
use super::super::log::{LeaderChange, LogEntry, OffsetAndEpoch, RaftLog, RaftRecord};
use super::super::message::{ErrorCode, RaftMessage};
use super::super::output::{
    ElectionCause, RaftEvent, RaftOutput, RaftTimer, ResignReason, TimerKind, VoteRejectReason,
};
use super::super::state::{ElectionRecord, RaftDeadline, RaftDeadlineKind, RaftDurable, RaftRole};
use super::{ProposeError, RaftError, RaftNode};

type Out = Vec<RaftOutput<u64>>;

fn zero() -> impl FnMut() -> u64 {
    || 0
}

fn config(pre_vote: bool) -> RaftConfig {
    RaftConfig {
        pre_vote,
        ..RaftConfig::default()
    }
}

/// A log whose entries carry these epochs.
fn log_with_epochs(epochs: &[i32]) -> RaftLog<u64> {
    let mut log = RaftLog::new();
    for (value, epoch) in epochs.iter().enumerate() {
        log.append_as_leader(*epoch, RaftRecord::Data(value as u64));
    }
    log
}

fn recovered(id: u32, election: ElectionRecord, epochs: &[i32], pre_vote: bool) -> RaftNode<u64> {
    let durable = RaftDurable {
        election,
        log: log_with_epochs(epochs),
    };
    RaftNode::recover(id, &[1, 2, 3], config(pre_vote), durable).expect("valid configuration")
}

fn start(node: &mut RaftNode<u64>, now_ms: u64) -> Out {
    let mut out = Vec::new();
    node.on_start(now_ms, &mut zero(), &mut out)
        .expect("starts");
    out
}

fn deliver(node: &mut RaftNode<u64>, now_ms: u64, from: u32, msg: RaftMessage<u64>) -> Out {
    let mut out = Vec::new();
    node.on_message(now_ms, from, msg, &mut zero(), &mut out)
        .expect("handled");
    out
}

fn fire(node: &mut RaftNode<u64>, now_ms: u64, timer: RaftTimer) -> Out {
    let mut out = Vec::new();
    node.on_timer(now_ms, timer, &mut zero(), &mut out)
        .expect("handled");
    out
}

fn events(out: &Out) -> Vec<RaftEvent> {
    out.iter()
        .filter_map(|output| match output {
            RaftOutput::Event(event) => Some(event.clone()),
            _ => None,
        })
        .collect()
}

fn sends(out: &Out) -> Vec<(u32, RaftMessage<u64>)> {
    out.iter()
        .filter_map(|output| match output {
            RaftOutput::Send { to, msg } => Some((*to, msg.clone())),
            _ => None,
        })
        .collect()
}

fn timer_of(out: &Out, kind: TimerKind) -> RaftTimer {
    out.iter()
        .find_map(|output| match output {
            RaftOutput::SetTimer { timer, .. } if timer.kind == kind => Some(*timer),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {kind:?} timer in {out:#?}"))
}

/// The correlation id of the request sent to `to`.
fn request_id(out: &Out, to: u32) -> u64 {
    sends(out)
        .into_iter()
        .find(|(peer, msg)| *peer == to && msg.is_request())
        .map(|(_, msg)| msg.correlation_id())
        .unwrap_or_else(|| panic!("no request to {to} in {out:#?}"))
}

fn vote_request(
    correlation_id: u64,
    epoch: i32,
    candidate: u32,
    last_epoch: i32,
    last_offset: i64,
) -> RaftMessage<u64> {
    RaftMessage::VoteRequest {
        correlation_id,
        candidate_epoch: epoch,
        candidate_id: candidate,
        last_epoch,
        last_offset,
        pre_vote: false,
    }
}

fn fetch(
    correlation_id: u64,
    replica: u32,
    epoch: i32,
    fetch_offset: i64,
    last_fetched_epoch: i32,
) -> RaftMessage<u64> {
    fetch_knowing(
        correlation_id,
        replica,
        epoch,
        fetch_offset,
        last_fetched_epoch,
        None,
    )
}

/// A fetch from a follower that already knows this high watermark.
fn fetch_knowing(
    correlation_id: u64,
    replica: u32,
    epoch: i32,
    fetch_offset: i64,
    last_fetched_epoch: i32,
    high_watermark: Option<i64>,
) -> RaftMessage<u64> {
    RaftMessage::FetchRequest {
        correlation_id,
        replica_id: replica,
        epoch,
        fetch_offset,
        last_fetched_epoch,
        high_watermark,
        max_wait_ms: 500,
    }
}

/// Node 1 of three, elected leader of epoch 1 at t=1010 with node 2's vote.
fn elected_leader() -> (RaftNode<u64>, Out) {
    let mut node = RaftNode::new(1, &[1, 2, 3], config(false)).expect("valid");
    let out = start(&mut node, 0);
    let out = fire(&mut node, 1_000, timer_of(&out, TimerKind::Election));
    let vote_id = request_id(&out, 2);
    let granted = RaftMessage::VoteResponse {
        correlation_id: vote_id,
        epoch: 1,
        leader: None,
        granted: true,
        error: None,
    };
    let out = deliver(&mut node, 1_010, 2, granted);
    (node, out)
}

#[test]
fn a_fresh_node_waits_an_election_timeout_then_stands() {
    let mut node = RaftNode::<u64>::new(1, &[1, 2, 3], config(false)).expect("valid");
    let out = start(&mut node, 0);
    assert_eq!(
        out,
        vec![
            RaftOutput::Event(RaftEvent::BecameUnattached {
                epoch: 0,
                voted_for: None,
                timeout_ms: 1_000
            }),
            RaftOutput::SetTimer {
                after_ms: 1_000,
                timer: RaftTimer {
                    kind: TimerKind::Election,
                    token: 0
                }
            },
        ]
    );
    let out = fire(
        &mut node,
        1_000,
        RaftTimer {
            kind: TimerKind::Election,
            token: 0,
        },
    );
    assert_eq!(
        out,
        vec![
            RaftOutput::Event(RaftEvent::BecameCandidate {
                epoch: 1,
                timeout_ms: 1_000,
                retries: 1,
                cause: ElectionCause::ElectionTimeout
            }),
            RaftOutput::Send {
                to: 2,
                msg: vote_request(0, 1, 1, 0, 0)
            },
            RaftOutput::Event(RaftEvent::VoteRequested {
                to: 2,
                epoch: 1,
                pre_vote: false
            }),
            RaftOutput::Send {
                to: 3,
                msg: vote_request(1, 1, 1, 0, 0)
            },
            RaftOutput::Event(RaftEvent::VoteRequested {
                to: 3,
                epoch: 1,
                pre_vote: false
            }),
            RaftOutput::SetTimer {
                after_ms: 1_000,
                timer: RaftTimer {
                    kind: TimerKind::Election,
                    token: 1
                }
            },
            RaftOutput::SetTimer {
                after_ms: 2_000,
                timer: RaftTimer {
                    kind: TimerKind::Connection { peer: 2 },
                    token: 2
                }
            },
            RaftOutput::SetTimer {
                after_ms: 2_000,
                timer: RaftTimer {
                    kind: TimerKind::Connection { peer: 3 },
                    token: 3
                }
            },
        ]
    );
    assert_eq!(node.voted_for(), Some(1), "the vote for itself is durable");
    assert_eq!(
        node.durable().election,
        ElectionRecord {
            epoch: 1,
            leader: None,
            voted_for: Some(1)
        }
    );
}

#[test]
fn a_majority_makes_a_leader_that_opens_its_epoch_with_a_leader_change() {
    let (node, out) = elected_leader();
    let got = events(&out);
    assert_eq!(
        got[..2],
        [
            RaftEvent::BecameLeader {
                epoch: 1,
                epoch_start_offset: 0
            },
            RaftEvent::EntriesAppended {
                epoch: 1,
                first_offset: 0,
                last_offset: 0
            }
        ]
    );
    assert_eq!(
        node.log()[0],
        LogEntry {
            epoch: 1,
            offset: 0,
            record: RaftRecord::LeaderChange(LeaderChange {
                leader: 1,
                voters: vec![1, 2, 3],
                granting_voters: vec![1, 2]
            }),
        }
    );
    let announced: Vec<u32> = sends(&out)
        .into_iter()
        .filter(|(_, msg)| {
            matches!(
                msg,
                RaftMessage::BeginQuorumEpochRequest {
                    epoch: 1,
                    leader: 1,
                    ..
                }
            )
        })
        .map(|(to, _)| to)
        .collect();
    assert_eq!(announced, vec![2, 3]);
    assert_eq!(node.high_watermark(), None, "nothing is on a majority yet");
    assert_eq!(
        node.durable().election,
        ElectionRecord {
            epoch: 1,
            leader: Some(1),
            voted_for: Some(1)
        }
    );
}

#[test]
fn the_leader_serves_fetches_holds_idle_ones_and_commits_by_majority() {
    let (mut node, _) = elected_leader();
    // The first fetch from node 2 gets the LeaderChange entry.
    let out = deliver(&mut node, 1_020, 2, fetch(70, 2, 1, 0, 0));
    let [(
        2,
        RaftMessage::FetchResponse {
            correlation_id: 70,
            entries,
            high_watermark: None,
            diverging: None,
            error: None,
            ..
        },
    )] = &sends(&out)[..]
    else {
        panic!("unexpected {out:#?}");
    };
    assert_eq!(entries.len(), 1);
    // The next fetch proves node 2 holds offset 0: the leader and node 2
    // are two of three, so the high watermark reaches 1. There are no new
    // entries, but node 2 must learn the high watermark: answered at once.
    let out = deliver(&mut node, 1_030, 2, fetch(71, 2, 1, 1, 1));
    assert_eq!(
        events(&out),
        vec![RaftEvent::HighWatermarkAdvanced { from: None, to: 1 }]
    );
    assert!(matches!(
        sends(&out)[..],
        [(2, RaftMessage::FetchResponse { correlation_id: 71, high_watermark: Some(1), ref entries, .. })] if entries.is_empty()
    ));
    // Now nothing at all is new: the leader holds the fetch for 500 ms.
    let out = deliver(&mut node, 1_040, 2, fetch_knowing(72, 2, 1, 1, 1, Some(1)));
    assert!(sends(&out).is_empty(), "held, not answered");
    assert!(out.contains(&RaftOutput::SetTimer {
        after_ms: 500,
        timer: timer_of(&out, TimerKind::FetchExpiry { replica: 2 })
    }));
    // A proposal completes the held fetch at once.
    let mut out = Vec::new();
    assert_eq!(node.propose(1_050, 42, &mut out), Ok(1));
    let [(
        2,
        RaftMessage::FetchResponse {
            correlation_id: 72,
            entries,
            high_watermark: Some(1),
            ..
        },
    )] = &sends(&out)[..]
    else {
        panic!("unexpected {out:#?}");
    };
    assert_eq!(entries[0].record, RaftRecord::Data(42));
    assert_eq!(
        node.voter_fetch_offsets(),
        vec![(1, Some(2)), (2, Some(1)), (3, None)]
    );
}

#[test]
fn a_held_fetch_expires_with_nothing_new() {
    let (mut node, _) = elected_leader();
    deliver(&mut node, 1_020, 2, fetch(70, 2, 1, 0, 0));
    deliver(&mut node, 1_030, 2, fetch(71, 2, 1, 1, 1));
    let out = deliver(&mut node, 1_040, 2, fetch_knowing(72, 2, 1, 1, 1, Some(1)));
    let out = fire(
        &mut node,
        1_540,
        timer_of(&out, TimerKind::FetchExpiry { replica: 2 }),
    );
    assert_eq!(
        sends(&out),
        vec![(
            2,
            RaftMessage::FetchResponse {
                correlation_id: 72,
                epoch: 1,
                leader: Some(1),
                high_watermark: Some(1),
                entries: Vec::new(),
                diverging: None,
                error: None,
            }
        )]
    );
}

#[test]
fn votes_go_once_per_epoch_to_logs_at_least_as_up_to_date_and_survive_a_crash() {
    let election = ElectionRecord {
        epoch: 1,
        leader: Some(1),
        voted_for: None,
    };
    let mut node = recovered(2, election, &[1, 1], false);
    start(&mut node, 0);
    assert_eq!(node.state(), RaftRole::Follower { leader: 1 });

    // Node 3's log ends at (epoch 1, offset 1), behind ours at (1, 2): the
    // newer epoch moves us on, but the vote is refused.
    let out = deliver(&mut node, 10, 3, vote_request(5, 2, 3, 1, 1));
    assert!(events(&out).contains(&RaftEvent::VoteRejected {
        candidate: 3,
        epoch: 2,
        pre_vote: false,
        reason: VoteRejectReason::LogNotUpToDate
    }));
    assert!(matches!(
        sends(&out)[..],
        [(
            3,
            RaftMessage::VoteResponse {
                correlation_id: 5,
                epoch: 2,
                leader: None,
                granted: false,
                error: None
            }
        )]
    ));
    assert_eq!(
        (node.epoch(), node.role_name(), node.voted_for()),
        (2, "Unattached", None)
    );

    // Node 1's log is as up to date as ours: granted.
    let out = deliver(&mut node, 20, 1, vote_request(6, 2, 1, 1, 2));
    assert!(events(&out).contains(&RaftEvent::VoteGranted {
        candidate: 1,
        epoch: 2,
        pre_vote: false
    }));
    assert_eq!(node.voted_for(), Some(1));

    // A second candidate in the same epoch is refused even with a longer log.
    let out = deliver(&mut node, 30, 3, vote_request(7, 2, 3, 1, 9));
    assert!(events(&out).iter().any(|event| matches!(
        event,
        RaftEvent::VoteRejected {
            reason: VoteRejectReason::AlreadyVoted { voted_for: 1 },
            ..
        }
    )));

    // The vote is durable: after a crash the node still will not vote again.
    let durable = node.into_durable();
    let mut node = RaftNode::recover(2, &[1, 2, 3], config(false), durable).expect("valid");
    start(&mut node, 40);
    let out = deliver(&mut node, 50, 3, vote_request(8, 2, 3, 1, 9));
    assert!(events(&out).iter().any(|event| matches!(
        event,
        RaftEvent::VoteRejected {
            reason: VoteRejectReason::AlreadyVoted { voted_for: 1 },
            ..
        }
    )));
}

#[test]
fn a_stale_candidate_epoch_is_fenced() {
    let election = ElectionRecord {
        epoch: 4,
        leader: Some(1),
        voted_for: None,
    };
    let mut node = recovered(2, election, &[1], false);
    start(&mut node, 0);
    let out = deliver(&mut node, 10, 3, vote_request(1, 3, 3, 1, 5));
    assert!(matches!(
        sends(&out)[..],
        [(
            3,
            RaftMessage::VoteResponse {
                epoch: 4,
                leader: Some(1),
                granted: false,
                error: Some(ErrorCode::FencedLeaderEpoch),
                ..
            }
        )]
    ));
    assert_eq!(node.epoch(), 4);
}

#[test]
fn a_higher_epoch_in_a_response_makes_the_leader_step_down() {
    let (mut node, out) = elected_leader();
    let begin_id = request_id(&out, 3);
    // A held fetch is answered with the news when the leader steps down.
    deliver(&mut node, 1_020, 2, fetch(70, 2, 1, 0, 0));
    deliver(&mut node, 1_030, 2, fetch(71, 2, 1, 1, 1));
    deliver(&mut node, 1_035, 2, fetch_knowing(72, 2, 1, 1, 1, Some(1)));
    let response = RaftMessage::BeginQuorumEpochResponse {
        correlation_id: begin_id,
        epoch: 5,
        leader: Some(3),
        error: None,
    };
    let out = deliver(&mut node, 1_040, 3, response);
    assert!(events(&out).contains(&RaftEvent::BecameFollower {
        epoch: 5,
        leader: 3
    }));
    assert!(sends(&out).iter().any(|(to, msg)| *to == 2
        && matches!(
            msg,
            RaftMessage::FetchResponse {
                correlation_id: 72,
                epoch: 5,
                leader: Some(3),
                error: Some(ErrorCode::FencedLeaderEpoch),
                ..
            }
        )));
    assert!(sends(&out)
        .iter()
        .any(|(to, msg)| *to == 3 && matches!(msg, RaftMessage::FetchRequest { epoch: 5, .. })));
    let mut out = Vec::new();
    assert_eq!(
        node.propose(1_050, 1, &mut out),
        Err(ProposeError::NotLeader {
            leader_hint: Some(3),
            epoch: 5
        })
    );
}

#[test]
fn a_stale_timer_is_ignored() {
    let mut node = RaftNode::<u64>::new(2, &[1, 2, 3], config(false)).expect("valid");
    let out = start(&mut node, 0);
    let election = timer_of(&out, TimerKind::Election);
    let begin = RaftMessage::BeginQuorumEpochRequest {
        correlation_id: 9,
        epoch: 1,
        leader: 1,
    };
    deliver(&mut node, 100, 1, begin);
    assert_eq!(node.state(), RaftRole::Follower { leader: 1 });
    // The election timer of the unattached state fires late: nothing happens.
    let out = fire(&mut node, 1_000, election);
    assert!(out.is_empty(), "{out:#?}");
    assert_eq!(
        (node.epoch(), node.state()),
        (1, RaftRole::Follower { leader: 1 })
    );
}

#[test]
fn a_new_leader_commits_nothing_older_until_its_own_epoch_is_on_a_majority() {
    // Offsets 0-2 were written in epoch 1 and may or may not be committed.
    let election = ElectionRecord {
        epoch: 1,
        leader: Some(2),
        voted_for: None,
    };
    let mut node = recovered(1, election, &[1, 1, 1], false);
    let out = start(&mut node, 0);
    let out = fire(&mut node, 2_000, timer_of(&out, TimerKind::FetchTimeout));
    assert!(events(&out).iter().any(|event| matches!(
        event,
        RaftEvent::BecameCandidate {
            epoch: 2,
            cause: ElectionCause::FetchTimeout,
            ..
        }
    )));
    let vote_id = request_id(&out, 3);
    let granted = RaftMessage::VoteResponse {
        correlation_id: vote_id,
        epoch: 2,
        leader: None,
        granted: true,
        error: None,
    };
    let out = deliver(&mut node, 2_010, 3, granted);
    assert!(events(&out).contains(&RaftEvent::BecameLeader {
        epoch: 2,
        epoch_start_offset: 3
    }));
    // Node 3 holds offsets 0-2 as well, so a majority has them, but they are
    // from an older epoch: the high watermark stays unknown.
    let out = deliver(&mut node, 2_020, 3, fetch(1, 3, 2, 3, 1));
    assert!(events(&out).is_empty());
    assert_eq!(node.high_watermark(), None);
    // Once node 3 holds the LeaderChange entry at offset 3, everything up
    // to it commits at once.
    let out = deliver(&mut node, 2_030, 3, fetch(2, 3, 2, 4, 2));
    assert_eq!(
        events(&out),
        vec![RaftEvent::HighWatermarkAdvanced { from: None, to: 4 }]
    );
}

#[test]
fn a_follower_truncates_through_the_diverging_epoch_but_never_below_its_high_watermark() {
    // Offsets 2-3 were written by a leader of epoch 2 that lost its epoch.
    let election = ElectionRecord {
        epoch: 3,
        leader: Some(1),
        voted_for: None,
    };
    let mut node = recovered(2, election, &[1, 1, 2, 2], false);
    let out = start(&mut node, 0);
    let [(
        1,
        RaftMessage::FetchRequest {
            correlation_id,
            fetch_offset: 4,
            last_fetched_epoch: 2,
            epoch: 3,
            ..
        },
    )] = sends(&out)[..]
    else {
        panic!("unexpected {out:#?}");
    };
    let diverging = RaftMessage::FetchResponse {
        correlation_id,
        epoch: 3,
        leader: Some(1),
        high_watermark: Some(2),
        entries: Vec::new(),
        diverging: Some(OffsetAndEpoch {
            epoch: 1,
            offset: 2,
        }),
        error: None,
    };
    let out = deliver(&mut node, 10, 1, diverging);
    assert_eq!(events(&out), vec![RaftEvent::Truncated { from: 4, to: 2 }]);
    let [(
        1,
        RaftMessage::FetchRequest {
            correlation_id,
            fetch_offset: 2,
            last_fetched_epoch: 1,
            ..
        },
    )] = sends(&out)[..]
    else {
        panic!("unexpected {out:#?}");
    };
    let entries = vec![LogEntry {
        epoch: 3,
        offset: 2,
        record: RaftRecord::Data(77),
    }];
    let catch_up = RaftMessage::FetchResponse {
        correlation_id,
        epoch: 3,
        leader: Some(1),
        high_watermark: Some(3),
        entries,
        diverging: None,
        error: None,
    };
    let out = deliver(&mut node, 20, 1, catch_up);
    assert_eq!(
        events(&out),
        vec![
            RaftEvent::EntriesAppended {
                epoch: 3,
                first_offset: 2,
                last_offset: 2
            },
            RaftEvent::HighWatermarkAdvanced { from: None, to: 3 }
        ]
    );
    // A leader asking to cut committed entries is refused.
    let correlation_id = request_id(&out, 1);
    let bogus = RaftMessage::FetchResponse {
        correlation_id,
        epoch: 3,
        leader: Some(1),
        high_watermark: Some(3),
        entries: Vec::new(),
        diverging: Some(OffsetAndEpoch {
            epoch: 1,
            offset: 2,
        }),
        error: None,
    };
    let mut out = Vec::new();
    let result = node.on_message(30, 1, bogus, &mut zero(), &mut out);
    assert_eq!(
        result,
        Err(RaftError::TruncationBelowHighWatermark {
            truncate_to: 2,
            high_watermark: 3
        })
    );
    assert_eq!(node.log_end_offset(), 3);
}

#[test]
fn a_leader_without_fetches_from_a_majority_resigns_after_one_and_a_half_fetch_timeouts() {
    let (mut node, out) = elected_leader();
    let check = timer_of(&out, TimerKind::CheckQuorum);
    let out = fire(&mut node, 1_010 + 3_000, check);
    assert!(events(&out).contains(&RaftEvent::Resigned {
        epoch: 1,
        reason: ResignReason::CheckQuorumFailed
    }));
    let told: Vec<u32> = sends(&out)
        .into_iter()
        .filter(|(_, msg)| {
            matches!(
                msg,
                RaftMessage::EndQuorumEpochRequest {
                    epoch: 1,
                    leader: 1,
                    ..
                }
            )
        })
        .map(|(to, _)| to)
        .collect();
    assert_eq!(told, vec![2, 3]);
    assert_eq!(
        node.state(),
        RaftRole::Resigned {
            preferred_successors: vec![2, 3]
        }
    );
    // A resigned leader answers fetches with NOT_LEADER_OR_FOLLOWER.
    let out = deliver(&mut node, 4_020, 2, fetch(3, 2, 1, 1, 1));
    assert!(matches!(
        sends(&out)[..],
        [(
            2,
            RaftMessage::FetchResponse {
                error: Some(ErrorCode::NotLeaderOrFollower),
                leader: Some(1),
                ..
            }
        )]
    ));
}

#[test]
fn the_first_preferred_successor_stands_at_once() {
    let election = ElectionRecord {
        epoch: 3,
        leader: Some(1),
        voted_for: None,
    };
    let mut node = recovered(2, election, &[1], false);
    start(&mut node, 0);
    let end = RaftMessage::EndQuorumEpochRequest {
        correlation_id: 4,
        epoch: 3,
        leader: 1,
        preferred_successors: vec![2, 3],
    };
    let out = deliver(&mut node, 100, 1, end);
    let got = events(&out);
    assert_eq!(
        got[0],
        RaftEvent::FetchTimeoutOverridden {
            epoch: 3,
            leader: 1,
            timeout_ms: 0
        }
    );
    assert!(got.iter().any(|event| matches!(
        event,
        RaftEvent::BecameCandidate {
            epoch: 4,
            cause: ElectionCause::FetchTimeout,
            ..
        }
    )));
}

/// Node `id`, restarted at `now_ms` with node 1 as the leader of epoch 2
/// on record and a log of two entries: it follows node 1 and fetches.
fn follower_of_1(id: u32, pre_vote: bool, now_ms: u64) -> (RaftNode<u64>, Out) {
    let election = ElectionRecord {
        epoch: 2,
        leader: Some(1),
        voted_for: None,
    };
    let mut node = recovered(id, election, &[1, 2], pre_vote);
    let out = start(&mut node, now_ms);
    (node, out)
}

/// Node 1's empty answer to the fetch in `out`, with high watermark 2.
fn fetched_from_1(out: &Out) -> RaftMessage<u64> {
    RaftMessage::FetchResponse {
        correlation_id: request_id(out, 1),
        epoch: 2,
        leader: Some(1),
        high_watermark: Some(2),
        entries: Vec::new(),
        diverging: None,
        error: None,
    }
}

#[test]
fn pre_vote_keeps_the_epoch_and_a_fetching_follower_refuses_it() {
    // A follower that has fetched from its leader refuses pre-votes.
    let (mut follower, out) = follower_of_1(3, true, 0);
    deliver(&mut follower, 10, 1, fetched_from_1(&out));
    let pre_vote = RaftMessage::VoteRequest {
        correlation_id: 8,
        candidate_epoch: 2,
        candidate_id: 2,
        last_epoch: 2,
        last_offset: 2,
        pre_vote: true,
    };
    let out = deliver(&mut follower, 20, 2, pre_vote);
    assert!(events(&out).contains(&RaftEvent::VoteRejected {
        candidate: 2,
        epoch: 2,
        pre_vote: true,
        reason: VoteRejectReason::LeaderAlive { leader: 1 }
    }));
    assert_eq!(
        (follower.epoch(), follower.voted_for()),
        (2, None),
        "a pre-vote changes nothing durable"
    );

    // A timed-out follower asks for pre-votes without bumping its epoch.
    let election = ElectionRecord {
        epoch: 2,
        leader: Some(1),
        voted_for: None,
    };
    let mut node = recovered(2, election, &[1, 2], true);
    let out = start(&mut node, 0);
    let out = fire(&mut node, 2_000, timer_of(&out, TimerKind::FetchTimeout));
    assert!(events(&out)
        .iter()
        .any(|event| matches!(event, RaftEvent::BecameProspective { epoch: 2, .. })));
    assert!(sends(&out).iter().all(|(_, msg)| matches!(
        msg,
        RaftMessage::VoteRequest {
            candidate_epoch: 2,
            pre_vote: true,
            ..
        }
    )));
    assert_eq!(node.durable().election.voted_for, None);
    // One pre-vote makes a majority of three: now it stands for epoch 3.
    let granted = RaftMessage::VoteResponse {
        correlation_id: request_id(&out, 3),
        epoch: 2,
        leader: None,
        granted: true,
        error: None,
    };
    let out = deliver(&mut node, 2_010, 3, granted);
    assert!(events(&out).iter().any(|event| matches!(
        event,
        RaftEvent::BecameCandidate {
            epoch: 3,
            cause: ElectionCause::PreVoteWon,
            ..
        }
    )));
}

/// Voters 2 and 3 refuse the epoch-1 votes that `out` asked for, at 1010
/// and 1011 ms; the outputs of the second refusal.
fn refused_by_2_and_3(node: &mut RaftNode<u64>, out: &Out) -> Out {
    let refusal = |correlation_id| RaftMessage::VoteResponse {
        correlation_id,
        epoch: 1,
        leader: None,
        granted: false,
        error: None,
    };
    deliver(node, 1_010, 2, refusal(request_id(out, 2)));
    deliver(node, 1_011, 3, refusal(request_id(out, 3)))
}

#[test]
fn a_lost_election_backs_off_then_stands_again_in_a_new_epoch() {
    let mut node = RaftNode::<u64>::new(1, &[1, 2, 3], config(false)).expect("valid");
    let out = start(&mut node, 0);
    let out = fire(&mut node, 1_000, timer_of(&out, TimerKind::Election));
    let out = refused_by_2_and_3(&mut node, &out);
    // With zero randomness the backoff is its 50 ms minimum.
    assert_eq!(
        events(&out),
        vec![
            RaftEvent::ElectionLost {
                epoch: 1,
                pre_vote: false,
                rejected_by: vec![2, 3]
            },
            RaftEvent::ElectionBackoff {
                epoch: 1,
                backoff_ms: 50
            }
        ]
    );
    let out = fire(&mut node, 1_061, timer_of(&out, TimerKind::ElectionBackoff));
    assert!(events(&out).iter().any(|event| matches!(
        event,
        RaftEvent::BecameCandidate {
            epoch: 2,
            retries: 2,
            cause: ElectionCause::BackoffComplete,
            ..
        }
    )));
}

#[test]
fn bad_inputs_are_errors_not_panics() {
    let mut node = RaftNode::<u64>::new(1, &[1, 2, 3], config(false)).expect("valid");
    let mut out = Vec::new();
    let begin = RaftMessage::BeginQuorumEpochRequest {
        correlation_id: 1,
        epoch: 1,
        leader: 2,
    };
    assert_eq!(
        node.on_message(0, 2, begin.clone(), &mut zero(), &mut out),
        Err(RaftError::NotStarted)
    );
    assert_eq!(node.propose(0, 1, &mut out), Err(ProposeError::NotStarted));
    node.on_start(100, &mut zero(), &mut out).expect("starts");
    assert_eq!(
        node.on_start(100, &mut zero(), &mut out),
        Err(RaftError::AlreadyStarted)
    );
    assert_eq!(
        node.on_tick(50, &mut zero(), &mut out),
        Err(RaftError::TimeWentBackwards {
            now_ms: 50,
            last_ms: 100
        })
    );
    assert_eq!(
        node.on_message(200, 9, begin.clone(), &mut zero(), &mut out),
        Err(RaftError::UnknownPeer { peer: 9 })
    );
    assert_eq!(
        node.on_message(200, 1, begin.clone(), &mut zero(), &mut out),
        Err(RaftError::MessageFromSelf)
    );
    assert_eq!(
        node.propose(200, 1, &mut out),
        Err(ProposeError::NotLeader {
            leader_hint: None,
            epoch: 0
        })
    );
    // A malformed request gets Kafka's INVALID_REQUEST back.
    let mut out = Vec::new();
    node.on_message(300, 2, vote_request(4, 1, 2, 1, 0), &mut zero(), &mut out)
        .expect("answered");
    assert!(matches!(
        sends(&out)[..],
        [(
            2,
            RaftMessage::VoteResponse {
                granted: false,
                error: Some(ErrorCode::InvalidRequest),
                ..
            }
        )]
    ));
    assert!(RaftNode::<u64>::new(1, &[2, 3], config(false)).is_err());
}

fn tick(node: &mut RaftNode<u64>, now_ms: u64) -> Out {
    let mut out = Vec::new();
    node.on_tick(now_ms, &mut zero(), &mut out).expect("handled");
    out
}

fn deadline(node: &RaftNode<u64>) -> Option<(RaftDeadlineKind, u64)> {
    node.view().deadline.map(|RaftDeadline { kind, at_ms }| (kind, at_ms))
}

/// The view's deadline is the moment the node acts: a tick one millisecond
/// before it changes nothing, a tick at it moves the node on.
fn acts_at_its_deadline(node: &mut RaftNode<u64>) -> Out {
    let (_, at_ms) = deadline(node).expect("a deadline");
    let role = node.state();
    let out = tick(node, at_ms - 1);
    assert_eq!((node.state(), events(&out)), (role, Vec::new()), "nothing happens before {at_ms}");
    tick(node, at_ms)
}

#[test]
fn the_view_shows_the_election_timeout_then_the_candidates_backoff() {
    use RaftDeadlineKind::{ElectionBackoff, ElectionTimeout};
    let mut node = RaftNode::<u64>::new(1, &[1, 2, 3], config(false)).expect("valid");
    assert_eq!(deadline(&node), None, "no deadline before the node starts");
    start(&mut node, 0);
    assert_eq!(deadline(&node), Some((ElectionTimeout, 1_000)), "unattached: it stands after the election timeout");
    let out = acts_at_its_deadline(&mut node);
    assert!(matches!(node.state(), RaftRole::Candidate { backing_off: false, .. }));
    assert_eq!(deadline(&node), Some((ElectionTimeout, 2_000)), "a candidate's election lasts one timeout");
    refused_by_2_and_3(&mut node, &out);
    assert_eq!(deadline(&node), Some((ElectionBackoff, 1_061)), "lost: it stands again after its 50 ms backoff");
    let out = acts_at_its_deadline(&mut node);
    assert!(events(&out).iter().any(|event| matches!(event, RaftEvent::BecameCandidate { epoch: 2, .. })));
    assert_eq!(deadline(&node), Some((ElectionTimeout, 2_061)));
}

#[test]
fn the_view_shows_a_followers_fetch_timeout_which_each_successful_fetch_restarts() {
    let (mut node, out) = follower_of_1(2, false, 100);
    assert_eq!(node.state(), RaftRole::Follower { leader: 1 });
    assert_eq!(deadline(&node), Some((RaftDeadlineKind::FetchTimeout, 2_100)));
    deliver(&mut node, 700, 1, fetched_from_1(&out));
    assert_eq!(deadline(&node), Some((RaftDeadlineKind::FetchTimeout, 2_700)), "the fetch restarted it");
    let out = acts_at_its_deadline(&mut node);
    assert!(events(&out).iter().any(|event| matches!(
        event,
        RaftEvent::BecameCandidate {
            epoch: 3,
            cause: ElectionCause::FetchTimeout,
            ..
        }
    )));
}

#[test]
fn the_view_shows_the_leaders_check_quorum_deadline_which_a_majoritys_fetches_restart() {
    let (mut node, _) = elected_leader();
    assert_eq!(deadline(&node), Some((RaftDeadlineKind::CheckQuorum, 1_010 + 3_000)));
    // Node 2's fetch makes a majority with the leader itself.
    deliver(&mut node, 2_000, 2, fetch(7, 2, 1, 1, 1));
    assert_eq!(deadline(&node), Some((RaftDeadlineKind::CheckQuorum, 5_000)));
    let out = acts_at_its_deadline(&mut node);
    assert!(events(&out).contains(&RaftEvent::Resigned {
        epoch: 1,
        reason: ResignReason::CheckQuorumFailed
    }));
    // Resigned: it stands again after an election timeout.
    assert_eq!(deadline(&node), Some((RaftDeadlineKind::ElectionTimeout, 6_000)));
    // A single voter leads alone and can never lose its majority.
    let mut alone = RaftNode::<u64>::new(1, &[1], config(false)).expect("valid");
    start(&mut alone, 0);
    tick(&mut alone, 1_000);
    assert!(alone.is_leader());
    assert_eq!(deadline(&alone), None);
}
