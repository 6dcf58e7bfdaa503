//! Broker failures with a controller quorum: fencing after the session
//! timeout, leader election from the ISR, a producer's retry, and a broker
//! restart that re-registers and rejoins the ISR.

mod common;

use common::{acked, produce_to, run_for};
use kafkascope::sim::client::producer::RecordState;
use kafkascope::sim::config::{BrokerConfig, ProducerConfig, TopicSpec};
use kafkascope::sim::control_plane::{ControlRpc, BROKER_SESSION_TIMEOUT_MS};
use kafkascope::sim::metadata::MetadataRecord;
use kafkascope::sim::ids::{NodeId, TopicPartition};
use kafkascope::sim::protocol::ControlPlaneRpc;
use kafkascope::sim::simulation::{ClientSpec, Command, CommandError, MetadataSource, Simulation};
use kafkascope::sim::trace::TraceKind;
use kafkascope::sim::view::BrokerSessionView;

fn cluster(seed: u64) -> Simulation {
    let producer = ClientSpec::Producer(ProducerConfig {
        acks: -1,
        linger_ms: 0,
        request_timeout_ms: 3_000,
        ..Default::default()
    });
    let mut config = common::cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 3)], vec![producer]);
    config.metadata = MetadataSource::quorum(3);
    Simulation::new(config, seed).expect("valid config")
}

/// When the active controller fenced `broker` for its session, and the
/// last heartbeat it had from it.
fn session_expiry(sim: &Simulation, broker: u32) -> Option<(u64, u64)> {
    sim.trace().iter().find_map(|e| match e.kind {
        TraceKind::BrokerSessionExpired { broker: b, last_heartbeat_ms } if b == broker => Some((e.time_ms, last_heartbeat_ms)),
        _ => None,
    })
}

fn partition_leader(sim: &Simulation, broker: u32) -> (Option<u32>, i32, Vec<u32>) {
    let p = sim.broker(broker).unwrap().partition(&TopicPartition::new("orders", 0)).unwrap();
    (p.leader, p.leader_epoch, p.isr.clone())
}

#[test]
fn killing_a_broker_needs_a_control_plane_and_a_live_broker() {
    let mut config = common::cluster(1, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 1)], vec![]);
    let mut sim = Simulation::new(config.clone(), 1).unwrap();
    assert_eq!(sim.command(Command::KillBroker { broker: 0 }), Err(CommandError::NoControlPlane));
    config.metadata = MetadataSource::quorum(1);
    let mut sim2 = Simulation::new(config, 1).unwrap();
    assert_eq!(sim2.command(Command::KillBroker { broker: 4 }), Err(CommandError::UnknownBroker(4)));
    assert_eq!(sim2.command(Command::RestartBroker { broker: 0 }), Err(CommandError::BrokerAlreadyRunning(0)));
    sim.run_until(10);
}

#[test]
fn a_killed_leader_is_replaced_from_the_isr_after_the_session_timeout_and_the_retry_succeeds() {
    for seed in [1, 2, 3] {
        let mut sim = cluster(seed);
        sim.run_until(6_000);
        sim.command(produce_to(0, "orders", 0, None, "before")).unwrap();
        run_for(&mut sim, 1_000);
        assert_eq!(acked(&sim, 0), vec![0], "seed {seed}");
        let (leader, epoch, isr) = partition_leader(&sim, 0);
        let old = leader.unwrap();
        assert_eq!(isr.len(), 3);

        sim.command(Command::KillBroker { broker: old }).unwrap();
        run_for(&mut sim, 1);
        let killed_at = sim.now_ms();
        assert!(sim.broker_is_down(old));
        // A record sent to the dead leader is refused and retried.
        sim.command(produce_to(0, "orders", 0, None, "during")).unwrap();

        // The new leader: the first live ISR replica in assignment order.
        let mut elected_at = None;
        while sim.now_ms() < killed_at + BROKER_SESSION_TIMEOUT_MS + 5_000 {
            run_for(&mut sim, 50);
            let other = (0..3).find(|b| *b != old).unwrap();
            let (l, e, _) = partition_leader(&sim, other);
            if l.is_some() && l != Some(old) && e > epoch {
                elected_at = Some(sim.now_ms());
                break;
            }
        }
        let elected_at = elected_at.unwrap_or_else(|| panic!("seed {seed}: no new leader"));
        // Fenced when its last heartbeat before the kill is a session
        // timeout old, then replaced.
        let (fenced_at, last_heartbeat) = session_expiry(&sim, old).unwrap_or_else(|| panic!("seed {seed}: not fenced"));
        assert!(last_heartbeat <= killed_at, "seed {seed}");
        assert_eq!(fenced_at, last_heartbeat + BROKER_SESSION_TIMEOUT_MS, "seed {seed}");
        assert!((fenced_at..=fenced_at + 2_500).contains(&elected_at), "seed {seed}: fenced at {fenced_at}, new leader at {elected_at}");
        let change = sim.trace().iter().find_map(|e| match &e.kind {
            TraceKind::MetadataRecordAppended { record, .. } => match &**record {
                MetadataRecord::PartitionChange { leader, isr, leader_epoch, .. } => Some((*leader, isr.clone(), *leader_epoch)),
                _ => None,
            },
            _ => None,
        });
        let (new_leader, new_isr, new_epoch) = change.expect("a PartitionChangeRecord");
        let new_leader = new_leader.unwrap();
        assert_ne!(new_leader, old);
        assert!(!new_isr.contains(&old), "the dead broker left the ISR");
        assert_eq!(new_epoch, epoch + 1);
        let replicas = sim.view().partition("orders", 0).unwrap().replicas.clone();
        let expected = replicas.iter().copied().find(|r| *r != old).unwrap();
        assert_eq!(new_leader, expected, "first live ISR replica in assignment order");

        run_for(&mut sim, 8_000);
        let states = common::states(&sim, 0);
        assert_eq!(states[1], RecordState::Acknowledged { offset: 1 }, "seed {seed}: the retry succeeded: {states:?}");
        assert!(sim.trace().iter().any(|e| matches!(e.kind, TraceKind::ProduceRetry { .. })));
    }
}

#[test]
fn a_restarted_broker_registers_again_catches_up_and_rejoins_the_isr() {
    let mut sim = cluster(4);
    sim.run_until(6_000);
    let (leader, _, _) = partition_leader(&sim, 0);
    let leader = leader.unwrap();
    let follower = (0..3).find(|b| *b != leader).unwrap();
    sim.command(Command::KillBroker { broker: follower }).unwrap();
    run_for(&mut sim, BROKER_SESSION_TIMEOUT_MS + 2_000);
    let (_, _, isr) = partition_leader(&sim, leader);
    assert!(!isr.contains(&follower), "fenced follower left the ISR: {isr:?}");
    // Records it misses while down.
    for i in 0..3 {
        sim.command(produce_to(0, "orders", 0, None, &format!("while-down-{i}"))).unwrap();
    }
    // The producer's first Metadata or InitProducerId may go to the dead
    // broker and wait out request.timeout.ms (3000 ms here) before it tries
    // another.
    run_for(&mut sim, 8_000);
    assert_eq!(acked(&sim, 0).len(), 3);

    let registrations_before =
        sim.trace().iter().filter(|e| matches!(e.kind, TraceKind::BrokerRegistered { broker, .. } if broker == follower)).count();
    sim.command(Command::RestartBroker { broker: follower }).unwrap();
    run_for(&mut sim, 8_000);
    let registrations_after =
        sim.trace().iter().filter(|e| matches!(e.kind, TraceKind::BrokerRegistered { broker, .. } if broker == follower)).count();
    assert_eq!(registrations_after, registrations_before + 1, "it registered again");
    assert!(!sim.broker(follower).unwrap().control().unwrap().fenced);
    let (_, _, isr) = partition_leader(&sim, leader);
    assert!(isr.contains(&follower), "rejoined the ISR: {isr:?}");
    let tp = TopicPartition::new("orders", 0);
    let leo = |b: u32| sim.broker(b).unwrap().partition(&tp).unwrap().log.log_end_offset();
    assert_eq!(leo(follower), leo(leader), "caught up");
    // The controller committed the expansion.
    assert!(sim.trace().iter().any(|e| match &e.kind {
        TraceKind::MetadataRecordAppended { record, .. } => {
            matches!(&**record, MetadataRecord::PartitionChange { isr, .. } if isr.contains(&follower) && isr.len() == 3)
        }
        _ => false,
    }));
}

#[test]
fn a_restarted_old_leader_truncates_and_follows() {
    // The old leader holds a record its followers never got: cut off from
    // them, it took an acks=1 write ("x" at offset 1) alone, then died. The
    // new leader writes "b" at offset 1; the restarted old leader must
    // truncate "x" away (to offset 1) and copy "b".
    let producer = ClientSpec::Producer(ProducerConfig { acks: 1, enable_idempotence: false, linger_ms: 0, ..Default::default() });
    let mut config = common::cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 3)], vec![producer]);
    config.metadata = MetadataSource::quorum(3);
    let mut sim = Simulation::new(config, 6).expect("valid config");
    sim.run_until(6_000);
    let old = partition_leader(&sim, 0).0.unwrap();
    let followers: Vec<u32> = (0..3).filter(|b| *b != old).collect();
    sim.command(produce_to(0, "orders", 0, None, "a")).unwrap();
    run_for(&mut sim, 1_000);
    let tp = TopicPartition::new("orders", 0);
    let leo = |sim: &Simulation, b: u32| sim.broker(b).unwrap().partition(&tp).unwrap().log.log_end_offset();
    assert!((0..3).all(|b| leo(&sim, b) == 1), "everyone has offset 0");
    let cut = Command::Partition {
        a: kafkascope::sim::simulation::NodeSet { brokers: vec![old], ..Default::default() },
        b: kafkascope::sim::simulation::NodeSet { brokers: followers.clone(), ..Default::default() },
    };
    sim.command(cut).unwrap();
    sim.command(produce_to(0, "orders", 0, None, "x")).unwrap();
    run_for(&mut sim, 200);
    assert_eq!((leo(&sim, old), leo(&sim, followers[0]), leo(&sim, followers[1])), (2, 1, 1), "only the old leader has x");
    sim.command(Command::KillBroker { broker: old }).unwrap();
    sim.command(Command::Heal).unwrap();
    run_for(&mut sim, BROKER_SESSION_TIMEOUT_MS + 2_000);
    sim.command(produce_to(0, "orders", 0, None, "b")).unwrap();
    run_for(&mut sim, 4_000);
    let from = sim.trace().len();
    sim.command(Command::RestartBroker { broker: old }).unwrap();
    run_for(&mut sim, 8_000);
    let new = partition_leader(&sim, followers[0]).0.unwrap();
    assert_ne!(new, old);
    let (l, _, isr) = partition_leader(&sim, old);
    assert_eq!(l, Some(new), "the old leader follows the new one");
    assert!(isr.contains(&old), "and is back in the ISR: {isr:?}");
    let truncated: Vec<i64> = sim.trace()[from..]
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::FollowerTruncated { replica, to_offset, .. } if *replica == old => Some(*to_offset),
            _ => None,
        })
        .collect();
    assert_eq!(truncated, vec![1], "x at offset 1 was cut away");
    assert_eq!((leo(&sim, old), leo(&sim, new)), (2, 2));
    // Offset 1 on the old leader now holds the new leader's batch.
    let batch_at = |sim: &Simulation, b: u32| {
        let log = &sim.broker(b).unwrap().partition(&tp).unwrap().log;
        log.batches_in(log.segments()[0].base_offset()).unwrap().into_iter().find(|x| x.base_offset == 1)
    };
    let (mine, theirs) = (batch_at(&sim, old).expect("a batch at 1"), batch_at(&sim, new).expect("a batch at 1"));
    assert_eq!(mine, theirs, "the same batch at offset 1");
    assert!(mine.partition_leader_epoch > 0, "written in the new leader's epoch, not x's: {mine:?}");
}

/// ClusterControlManager.registerBroker: a restarted broker is a new
/// incarnation, and while the old one's session is valid the controller
/// cannot tell it from a second broker with the same id. It refuses with
/// DUPLICATE_BROKER_REGISTRATION until the session expires; only then is the
/// broker fenced and its leadership moved, and the next try registers.
#[test]
fn a_broker_restarted_within_its_session_is_refused_until_the_session_expires() {
    for seed in [8, 9, 10] {
        let mut sim = cluster(seed);
        sim.run_until(6_000);
        let (leader, epoch, _) = partition_leader(&sim, 0);
        let old = leader.unwrap();
        let deadline = session(&sim, old).expect("registered").fence_deadline_ms;
        sim.command(Command::KillBroker { broker: old }).unwrap();
        run_for(&mut sim, 2_000);
        let restarted_at = sim.now_ms();
        sim.command(Command::RestartBroker { broker: old }).unwrap();
        let other = (0..3).find(|b| *b != old).unwrap();
        // Up to the old session's end the leader stays where it was.
        while sim.now_ms() < deadline {
            assert!(sim.step());
            assert_eq!(partition_leader(&sim, other).0, Some(old), "seed {seed}: leadership moved at {} ms", sim.now_ms());
        }
        run_for(&mut sim, 15_000);
        let refusals: Vec<u64> = sim
            .trace()
            .iter()
            .filter_map(|e| match e.kind {
                TraceKind::BrokerRegistrationRefused { broker, session_ends_ms, .. } if broker == old => {
                    assert_eq!(session_ends_ms, deadline, "seed {seed}: the refusal names the old session's end");
                    Some(e.time_ms)
                }
                _ => None,
            })
            .collect();
        assert!(refusals.len() >= 3, "seed {seed}: refused {refusals:?}");
        assert!(refusals.iter().all(|t| (restarted_at..deadline).contains(t)), "seed {seed}: {refusals:?}, session ends {deadline}");
        // BrokerLifecycleManager backs off: each wait about twice the last.
        for w in refusals.windows(3) {
            assert!(w[2] - w[1] > w[1] - w[0], "seed {seed}: the retries do not back off: {refusals:?}");
        }
        let (fenced_at, _) = session_expiry(&sim, old).expect("the old session expired");
        assert_eq!(fenced_at, deadline, "seed {seed}");
        let registered_at = sim
            .trace()
            .iter()
            .find_map(|e| match e.kind {
                TraceKind::BrokerRegistered { broker, .. } if broker == old && e.time_ms > restarted_at => Some(e.time_ms),
                _ => None,
            })
            .expect("registered after the session expired");
        assert!(registered_at > deadline, "seed {seed}: registered at {registered_at}, session ended {deadline}");
        let (new_leader, new_epoch, isr) = partition_leader(&sim, other);
        assert_ne!(new_leader, Some(old), "seed {seed}: leadership moved away from the old incarnation");
        assert!(new_epoch > epoch, "seed {seed}");
        assert!(isr.contains(&old), "seed {seed}: the restarted broker rejoined: {isr:?}");
        assert!(!sim.broker(old).unwrap().control().unwrap().fenced, "seed {seed}");
    }
}

/// When the active controller appended the record that unfenced `broker`
/// after `from_ms`.
fn unfenced_at(sim: &Simulation, broker: u32, from_ms: u64) -> Option<u64> {
    sim.trace().iter().find_map(|e| match &e.kind {
        TraceKind::MetadataRecordAppended { record, .. }
            if matches!(&**record, MetadataRecord::BrokerRegistrationChange { broker: b, fenced: false } if *b == broker)
                && e.time_ms >= from_ms =>
        {
            Some(e.time_ms)
        }
        _ => None,
    })
}

/// BrokerLifecycleManager heartbeats at once after registering, every 10 ms
/// while it starts, and at once when it has caught up with the metadata log,
/// so the controller unfences it within tens of milliseconds of catching up,
/// not at the next 2 s heartbeat. Then it heartbeats every 2 s.
#[test]
fn a_registered_broker_is_unfenced_within_tens_of_milliseconds_of_catching_up() {
    for seed in [1, 2, 3] {
        let mut sim = cluster(seed);
        sim.run_until(6_000);
        for b in 0..3 {
            let registered = sim
                .trace()
                .iter()
                .find_map(|e| match e.kind {
                    TraceKind::BrokerRegistered { broker, .. } if broker == b => Some(e.time_ms),
                    _ => None,
                })
                .expect("registered");
            // The broker applied its own RegisterBrokerRecord: caught up.
            let caught_up = sim
                .trace()
                .iter()
                .find_map(|e| match &e.kind {
                    TraceKind::MetadataRecordApplied { broker, record, .. }
                        if *broker == b && matches!(&**record, MetadataRecord::RegisterBroker { broker: r, .. } if *r == b) =>
                    {
                        Some(e.time_ms)
                    }
                    _ => None,
                })
                .expect("caught up");
            let unfenced = unfenced_at(&sim, b, registered).expect("unfenced");
            assert!(caught_up >= registered && unfenced >= caught_up, "seed {seed}: broker {b}");
            assert!(unfenced - caught_up <= 20, "seed {seed}: broker {b} caught up at {caught_up} ms, unfenced at {unfenced} ms");
        }
        // While it starts a broker heartbeats every 10 ms (the first at
        // once); running, every broker.heartbeat.interval.ms after the
        // answer to the last, so 2 s plus the round trip.
        for b in 0..3 {
            let unfenced = unfenced_at(&sim, b, 0).expect("unfenced");
            let sent: Vec<u64> = sim
                .trace()
                .iter()
                .filter(|e| e.node == NodeId::Broker(b))
                .filter_map(|e| match e.kind {
                    TraceKind::RaftSent { rpc: ControlPlaneRpc::BrokerControl(ControlRpc::BrokerHeartbeat), .. } => Some(e.time_ms),
                    _ => None,
                })
                .collect();
            let starting: Vec<u64> = sent.iter().copied().filter(|t| *t < unfenced).collect();
            assert!(starting.windows(2).all(|w| w[1] - w[0] <= 10 + 2 * 10), "seed {seed}: broker {b} while starting: {starting:?}");
            let running: Vec<u64> = sent.iter().copied().filter(|t| *t > unfenced + 100).collect();
            assert!(running.len() >= 2, "seed {seed}: broker {b}: {sent:?}");
            for w in running.windows(2) {
                assert!((2_000..2_050).contains(&(w[1] - w[0])), "seed {seed}: broker {b} running: {running:?}");
            }
        }
    }
}

/// Broker `b`'s session as the view shows it.
fn session(sim: &Simulation, b: u32) -> Option<BrokerSessionView> {
    sim.view().brokers.iter().find(|v| v.id == b).and_then(|v| v.session)
}

/// QuorumController fences a stale broker when its session's deadline comes
/// (BrokerHeartbeatManager.nextCheckTimeNs), not at the next tick of a
/// periodic check: the countdown the view draws ends in the fence.
#[test]
fn a_broker_killed_right_after_a_heartbeat_is_fenced_exactly_a_session_timeout_later() {
    for seed in [1, 2, 3] {
        let mut sim = cluster(seed);
        sim.run_until(6_000);
        for victim in 0..3 {
            if sim.broker_is_down(victim) {
                continue;
            }
            // Step to the moment the active controller takes a heartbeat.
            let before = session(&sim, victim).expect("registered").last_heartbeat_ms;
            while session(&sim, victim).map(|s| s.last_heartbeat_ms) == Some(before) {
                assert!(sim.step());
            }
            let shown = session(&sim, victim).expect("registered");
            assert_eq!(shown.last_heartbeat_ms, sim.now_ms(), "seed {seed}");
            assert_eq!(shown.fence_deadline_ms, shown.last_heartbeat_ms + BROKER_SESSION_TIMEOUT_MS, "seed {seed}");
            assert!(!shown.fenced && shown.heard, "seed {seed}: {shown:?}");

            sim.command(Command::KillBroker { broker: victim }).unwrap();
            let from = sim.trace().len();
            let expired = loop {
                assert!(sim.now_ms() <= shown.fence_deadline_ms + 5_000, "seed {seed}: broker {victim} never fenced");
                assert!(sim.step());
                let found = sim.trace()[from..].iter().find_map(|e| match e.kind {
                    TraceKind::BrokerSessionExpired { broker, last_heartbeat_ms } if broker == victim => Some((e.time_ms, last_heartbeat_ms)),
                    _ => None,
                });
                if let Some(found) = found {
                    break found;
                }
                // Until the fence the view counts down to the same deadline.
                assert_eq!(session(&sim, victim).map(|s| s.fence_deadline_ms), Some(shown.fence_deadline_ms), "seed {seed}");
            };
            assert_eq!(expired, (shown.fence_deadline_ms, shown.last_heartbeat_ms), "seed {seed}: broker {victim}");
            let after = session(&sim, victim).expect("still registered");
            assert!(after.fenced && !after.heard, "seed {seed}: {after:?}");
            // One dead broker at a time: bring it back before the next.
            sim.command(Command::RestartBroker { broker: victim }).unwrap();
            run_for(&mut sim, 8_000);
        }
    }
}

#[test]
fn a_broker_session_is_shown_only_while_an_active_controller_holds_it() {
    let mut sim = cluster(5);
    assert!((0..3).all(|b| session(&sim, b).is_none()), "nobody is registered before the quorum runs");
    sim.run_until(6_000);
    for b in 0..3 {
        let s = session(&sim, b).expect("registered with the active controller");
        assert!(!s.fenced && s.heard);
        assert!(s.last_heartbeat_ms <= sim.now_ms() && sim.now_ms() < s.fence_deadline_ms);
    }
    // Without a majority there is no active controller: no session counts down.
    let active = sim.active_controller().unwrap();
    let other = (0..3).find(|c| *c != active).unwrap();
    sim.command(Command::KillController { controller: active }).unwrap();
    sim.command(Command::KillController { controller: other }).unwrap();
    run_for(&mut sim, 1);
    assert_eq!(sim.view().quorum.as_ref().unwrap().active, None);
    assert!((0..3).all(|b| session(&sim, b).is_none()));
    // A cluster without controllers has no sessions at all.
    let mut config = common::cluster(1, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 1)], vec![]);
    config.metadata = MetadataSource::Fixed;
    let mut sim = Simulation::new(config, 1).unwrap();
    sim.run_until(1_000);
    assert!(session(&sim, 0).is_none());
}

/// A newly elected active controller knows no high watermark until it
/// commits a record of its own epoch. The committed metadata the page draws
/// must not go blank meanwhile: no broker may look fenced, and no partition
/// leaderless, only because the quorum changed leader.
#[test]
fn the_committed_metadata_stays_whole_while_a_new_active_controller_takes_over() {
    use kafkascope::sim::view::BrokerStatus;
    let mut sim = cluster(7);
    run_for(&mut sim, 5_000);
    let before = sim.view();
    assert!(before.brokers.iter().all(|b| b.status == BrokerStatus::Running));
    let active = before.quorum.as_ref().and_then(|q| q.active).expect("an active controller");
    sim.command(Command::KillController { controller: active }).unwrap();
    let mut new_active = None;
    for _ in 0..200_000 {
        if !sim.step() {
            break;
        }
        let view = sim.view();
        for b in &view.brokers {
            assert_eq!(b.status, BrokerStatus::Running, "broker {} at {} ms, step {}", b.id, view.time_ms, view.step);
        }
        assert!(view.partitions.iter().all(|p| p.leader.is_some()), "a leader vanished at step {}", view.step);
        if let Some(a) = view.quorum.as_ref().and_then(|q| q.active).filter(|a| *a != active) {
            new_active = Some(a);
            if sim.controller(a).and_then(|c| c.raft()).and_then(|r| r.high_watermark()).is_some() {
                break;
            }
        }
    }
    assert!(new_active.is_some(), "another controller became active");
}

#[test]
fn a_retry_of_a_replicated_but_unanswered_batch_is_not_written_twice_by_the_new_leader() {
    // Followers keep producer state for the batches they copy (UnifiedLog
    // appends update the ProducerStateManager for every origin), so when
    // the leader dies after its followers have a batch but before the
    // producer heard back, the producer's retry to the new leader is
    // recognised as a duplicate and answered with the original offset.
    use kafkascope::sim::invariants::{Invariant, InvariantChecker};
    for seed in [6, 7, 8] {
        let mut sim = cluster(seed);
        let mut checker = InvariantChecker::new();
        sim.run_until(6_000);
        let old = partition_leader(&sim, 0).0.unwrap();
        let followers: Vec<u32> = (0..3).filter(|b| *b != old).collect();
        let tp = TopicPartition::new("orders", 0);
        let leo = |sim: &Simulation, b: u32| sim.broker(b).unwrap().partition(&tp).unwrap().log.log_end_offset();
        sim.command(produce_to(0, "orders", 0, None, "once")).unwrap();
        // Step until both followers hold the batch, then kill the leader
        // before it hears of that and answers.
        while !followers.iter().all(|f| leo(&sim, *f) == 1) {
            assert!(sim.step());
            checker.check_step(&sim);
        }
        assert!(acked(&sim, 0).is_empty(), "seed {seed}: not acknowledged yet");
        sim.command(Command::KillBroker { broker: old }).unwrap();
        let until = sim.now_ms() + BROKER_SESSION_TIMEOUT_MS + 6_000;
        while sim.now_ms() < until && sim.step() {
            checker.check_step(&sim);
        }
        assert_eq!(acked(&sim, 0), vec![0], "seed {seed}: acknowledged at its original offset");
        let new = partition_leader(&sim, followers[0]).0.unwrap();
        assert_eq!(leo(&sim, new), 1, "seed {seed}: the new leader holds it once");
        assert!(
            sim.trace().iter().any(|e| e.node == kafkascope::sim::ids::NodeId::Broker(new) && matches!(e.kind, TraceKind::DuplicateBatch { .. })),
            "seed {seed}: the retry was answered as a duplicate"
        );
        let twice: Vec<_> = checker.violations().iter().filter(|v| v.invariant() == Invariant::IdempotentBatchOnce).collect();
        assert!(twice.is_empty(), "seed {seed}: {twice:?}");
    }
}

/// Killing the active controller undoes nothing it had committed: every
/// broker it had unfenced stays unfenced in the view while the survivors
/// elect a new leader, though they learn the old high watermark only from
/// it. The view once bounded the image by a survivor's own high watermark,
/// and a broker registered just before the kill showed as fenced, with its
/// partitions "being elected".
#[test]
fn killing_the_active_controller_fences_no_broker_in_the_view() {
    use kafkascope::sim::view::BrokerStatus;
    let mut lagging = 0;
    for seed in 1..=12 {
        let mut sim = cluster(seed);
        while !(sim.active_controller().is_some()
            && sim.view().every_partition_led()
            && sim.view().brokers.iter().all(|b| b.status == BrokerStatus::Running))
        {
            assert!(sim.step(), "seed {seed}: the cluster boots");
        }
        let old = sim.active_controller().unwrap();
        let survivors_hw = |sim: &Simulation| {
            sim.controllers()
                .filter(|c| c.is_alive() && c.id() != old)
                .filter_map(|c| c.raft().and_then(|r| r.high_watermark()))
                .max()
                .unwrap_or(0)
        };
        let leader_hw = sim.controller(old).unwrap().raft().unwrap().high_watermark().unwrap();
        lagging += u32::from(survivors_hw(&sim) < leader_hw);
        sim.command(Command::KillController { controller: old }).unwrap();
        while sim.active_controller().is_none_or(|c| c == old) {
            let fenced: Vec<u32> =
                sim.view().brokers.iter().filter(|b| b.status != BrokerStatus::Running).map(|b| b.id).collect();
            assert!(fenced.is_empty(), "seed {seed} at {} ms: brokers {fenced:?} look fenced", sim.now_ms());
            assert!(sim.step(), "seed {seed}: a new controller is elected");
        }
    }
    assert!(lagging > 0, "some seed kills the leader before the survivors know its high watermark");
}
