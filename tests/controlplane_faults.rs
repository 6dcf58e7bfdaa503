//! Faults for the control plane: network partitions and their healing,
//! connections refused by a dead process, and a broker's controlled
//! shutdown, each checked against what Kafka does.

mod common;

use common::{acked, produce_to, run_for};
use kafkascope::sim::client::producer::RecordState;
use kafkascope::sim::config::{BrokerConfig, ProducerConfig, TopicSpec};
use kafkascope::sim::control_plane::{BROKER_HEARTBEAT_INTERVAL_MS, BROKER_SESSION_TIMEOUT_MS};
use kafkascope::sim::ids::{NodeId, TopicPartition};
use kafkascope::sim::protocol::ErrorCode;
use kafkascope::sim::raft::output::RaftEvent;
use kafkascope::sim::simulation::{ClientSpec, Command, CommandError, MetadataSource, NodeSet, Simulation};
use kafkascope::sim::trace::TraceKind;
use kafkascope::sim::view::{BatchDeadline, BatchDeadlineKind};

const SEEDS: [u64; 3] = [1, 2, 3];

/// Three brokers, three controllers, `partitions` partitions of "orders" on
/// all three brokers, and an acks=all producer with a short request timeout.
fn cluster(seed: u64, partitions: u32) -> Simulation {
    let producer = ClientSpec::Producer(ProducerConfig {
        acks: -1,
        linger_ms: 0,
        request_timeout_ms: 3_000,
        ..Default::default()
    });
    let mut config =
        common::cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", partitions, 3)], vec![producer]);
    config.metadata = MetadataSource::quorum(3);
    let mut sim = Simulation::new(config, seed).expect("valid config");
    sim.run_until(6_000);
    sim
}

fn orders(p: u32) -> TopicPartition {
    TopicPartition::new("orders", p)
}

/// (leader, leader epoch, ISR, log end offset) of a replica.
fn replica(sim: &Simulation, broker: u32, p: u32) -> (Option<u32>, i32, Vec<u32>, i64) {
    let r = sim.broker(broker).unwrap().partition(&orders(p)).unwrap();
    (r.leader, r.leader_epoch, r.isr.clone(), r.log.log_end_offset())
}

fn cut(a: NodeSet, b: NodeSet) -> Command {
    Command::Partition { a, b }
}

fn brokers(ids: &[u32]) -> NodeSet {
    NodeSet { brokers: ids.to_vec(), ..Default::default() }
}

fn controllers(ids: &[u32]) -> NodeSet {
    NodeSet { controllers: ids.to_vec(), ..Default::default() }
}

fn active_controllers(sim: &Simulation) -> Vec<u32> {
    sim.controllers().filter(|c| c.is_active()).map(|c| c.id()).collect()
}

fn active_epoch(sim: &Simulation) -> i32 {
    let active = sim.active_controller().expect("an active controller");
    sim.controller(active).unwrap().raft().unwrap().epoch()
}

/// Every retry the producer made, with its error.
fn retry_errors(sim: &Simulation) -> Vec<ErrorCode> {
    sim.trace()
        .iter()
        .filter_map(|e| match e.kind {
            TraceKind::ProduceRetry { error, .. } => Some(error),
            _ => None,
        })
        .collect()
}

#[test]
fn partition_and_heal_are_validated_before_anything_changes() {
    let mut sim = cluster(1, 1);
    let before = sim.trace().len();
    assert_eq!(sim.command(cut(brokers(&[0]), NodeSet::default())), Err(CommandError::EmptyPartitionSide));
    assert_eq!(sim.command(cut(brokers(&[7]), controllers(&[0]))), Err(CommandError::UnknownNode(NodeId::Broker(7))));
    let client = NodeSet { clients: vec![3], ..Default::default() };
    assert_eq!(sim.command(cut(client, controllers(&[0]))), Err(CommandError::UnknownNode(NodeId::Client(3))));
    let both = NodeSet { brokers: vec![1], controllers: vec![2], ..Default::default() };
    assert_eq!(sim.command(cut(brokers(&[0, 1]), both)), Err(CommandError::NodeOnBothSides(NodeId::Broker(1))));
    assert_eq!(sim.command(Command::Heal), Err(CommandError::NoPartition));
    assert_eq!(sim.trace().len(), before, "a refused command changes nothing");
    assert!(sim.network_partitions().is_empty());

    sim.command(cut(brokers(&[0]), controllers(&[0, 1, 2]))).unwrap();
    run_for(&mut sim, 1);
    assert_eq!(sim.network_partitions().len(), 1);
    assert!(sim.trace().iter().any(|e| matches!(&e.kind, TraceKind::NetworkPartitioned { a, b }
        if a == &vec![NodeId::Broker(0)] && b.len() == 3)));
    sim.command(Command::Heal).unwrap();
    run_for(&mut sim, 1);
    assert!(sim.network_partitions().is_empty());
    assert!(sim.trace().iter().any(|e| matches!(e.kind, TraceKind::NetworkHealed { cuts: 1 })));
}

#[test]
fn a_leader_cut_off_from_the_controllers_is_fenced_replaced_and_rejoins_after_heal() {
    for seed in SEEDS {
        let mut sim = cluster(seed, 1);
        sim.command(produce_to(0, "orders", 0, None, "before")).unwrap();
        run_for(&mut sim, 1_000);
        assert_eq!(acked(&sim, 0), vec![0], "seed {seed}");
        let (leader, epoch, isr, _) = replica(&sim, 0, 0);
        let old = leader.unwrap();
        assert_eq!(isr.len(), 3, "seed {seed}");

        sim.command(cut(brokers(&[old]), controllers(&[0, 1, 2]))).unwrap();
        run_for(&mut sim, 1);
        let cut_at = sim.now_ms();
        let other = (0..3).find(|b| *b != old).unwrap();
        let mut elected = None;
        while sim.now_ms() < cut_at + BROKER_SESSION_TIMEOUT_MS + 5_000 {
            run_for(&mut sim, 50);
            let (l, e, _, _) = replica(&sim, other, 0);
            if l.is_some() && l != Some(old) && e > epoch {
                elected = Some((sim.now_ms(), l.unwrap(), e));
                break;
            }
        }
        let (elected_at, new_leader, new_epoch) = elected.unwrap_or_else(|| panic!("seed {seed}: no new leader"));
        // Fenced when the last heartbeat that crossed before the cut is a
        // session timeout old, then replaced.
        let (fenced_at, last_heartbeat) = sim
            .trace()
            .iter()
            .find_map(|e| match e.kind {
                TraceKind::BrokerSessionExpired { broker, last_heartbeat_ms } if broker == old => Some((e.time_ms, last_heartbeat_ms)),
                _ => None,
            })
            .unwrap_or_else(|| panic!("seed {seed}: not fenced"));
        assert!(last_heartbeat <= cut_at, "seed {seed}");
        assert_eq!(fenced_at, last_heartbeat + BROKER_SESSION_TIMEOUT_MS, "seed {seed}");
        assert!(
            (fenced_at..=fenced_at + 2_500).contains(&elected_at),
            "seed {seed}: fenced at {fenced_at}, a new leader at {elected_at}"
        );
        // A partition sends no reset: nobody heard of a closed connection.
        assert!(!sim.trace().iter().any(|e| matches!(e.kind, TraceKind::Disconnected { .. })), "seed {seed}");
        assert!(sim.trace().iter().any(|e| matches!(&e.kind, TraceKind::MessageLost { from, .. } if *from == NodeId::Broker(old))));

        // The old leader, cut off, still thinks it leads: a record sent to
        // it lands in its log only, and the producer's retry reaches the
        // new leader.
        sim.command(produce_to(0, "orders", 0, None, "during")).unwrap();
        run_for(&mut sim, 8_000);
        let (_, _, _, stranded_leo) = replica(&sim, old, 0);

        sim.command(Command::Heal).unwrap();
        let mut rejoined = false;
        for _ in 0..600 {
            run_for(&mut sim, 100);
            let (l, e, _, leo) = replica(&sim, old, 0);
            let (_, _, leader_isr, leader_leo) = replica(&sim, new_leader, 0);
            if l == Some(new_leader) && e >= new_epoch && leader_isr.contains(&old) && leo == leader_leo {
                rejoined = true;
                break;
            }
        }
        assert!(rejoined, "seed {seed}: broker {old} did not rejoin the ISR of {new_leader} after the heal");
        let controller = sim.active_controller().unwrap();
        assert!(sim.controller(controller).unwrap().image(true).is_unfenced(old), "seed {seed}: still fenced");
        assert_eq!(acked(&sim, 0).len(), 2, "seed {seed}: {:?}", sim.producer(0).unwrap().records());
        // Whatever it held beyond the new leader's log it threw away.
        assert_eq!(stranded_leo, 2, "seed {seed}: the cut-off leader should have appended \"during\" alone");
        assert!(
            sim.trace().iter().any(|e| matches!(e.kind, TraceKind::FollowerTruncated { replica, .. } if replica == old)),
            "seed {seed}: broker {old} held a record the new leader never had, and never truncated"
        );
    }
}

#[test]
fn an_active_controller_cut_off_from_the_voters_resigns_and_one_leader_remains_after_heal() {
    for seed in SEEDS {
        let mut sim = cluster(seed, 1);
        let old = sim.active_controller().expect("an active controller");
        let epoch = active_epoch(&sim);
        let others: Vec<u32> = (0..3).filter(|c| *c != old).collect();
        sim.command(cut(controllers(&[old]), controllers(&others))).unwrap();
        run_for(&mut sim, 6_000);
        let new = sim.active_controller().expect("the majority elects a leader");
        assert_ne!(new, old, "seed {seed}");
        assert!(active_epoch(&sim) > epoch, "seed {seed}");
        // Check-quorum: no majority fetched from it, so it stepped down.
        assert!(!sim.controller(old).unwrap().is_active(), "seed {seed}: controller {old} still leads alone");
        assert!(
            sim.trace().iter().any(|e| matches!(&e.kind, TraceKind::Raft { controller, event: RaftEvent::Resigned { .. } }
                if *controller == old)),
            "seed {seed}"
        );

        sim.command(Command::Heal).unwrap();
        run_for(&mut sim, 10_000);
        assert_eq!(active_controllers(&sim).len(), 1, "seed {seed}: {:?}", active_controllers(&sim));
        // The cluster still works: every broker unfenced and a record acknowledged.
        let image = sim.controller(sim.active_controller().unwrap()).unwrap().image(true);
        assert!((0..3).all(|b| image.is_unfenced(b)), "seed {seed}: {:?}", image.brokers);
        sim.command(produce_to(0, "orders", 0, None, "after")).unwrap();
        run_for(&mut sim, 2_000);
        assert_eq!(acked(&sim, 0).len(), 1, "seed {seed}");
    }
}

#[test]
fn a_follower_controller_cut_off_alone_changes_nothing_for_the_cluster() {
    for seed in SEEDS {
        let mut sim = cluster(seed, 1);
        let active = sim.active_controller().unwrap();
        let epoch = active_epoch(&sim);
        let follower = (0..3).find(|c| *c != active).unwrap();
        let rest: Vec<u32> = (0..3).filter(|c| *c != follower).collect();
        let leaders: Vec<_> = (0..3).map(|b| replica(&sim, b, 0)).collect();
        sim.command(cut(controllers(&[follower]), controllers(&rest))).unwrap();
        for i in 0..10 {
            sim.command(produce_to(0, "orders", 0, None, &format!("r{i}"))).unwrap();
            run_for(&mut sim, 1_000);
        }
        assert_eq!(sim.active_controller(), Some(active), "seed {seed}");
        assert_eq!(active_epoch(&sim), epoch, "seed {seed}");
        assert_eq!(acked(&sim, 0), (0..10).collect::<Vec<i64>>(), "seed {seed}");
        for b in 0..3 {
            let (l, e, isr, _) = replica(&sim, b, 0);
            assert_eq!((l, e, isr), (leaders[b as usize].0, leaders[b as usize].1, leaders[b as usize].2.clone()), "seed {seed}");
        }
        assert!(!sim.trace().iter().any(|e| matches!(e.kind, TraceKind::BrokerSessionExpired { .. })), "seed {seed}");

        sim.command(Command::Heal).unwrap();
        run_for(&mut sim, 10_000);
        assert_eq!(active_controllers(&sim).len(), 1, "seed {seed}");
    }
}

#[test]
fn a_produce_to_a_killed_leader_is_refused_at_once_and_acknowledged_by_the_new_leader() {
    for seed in SEEDS {
        let mut sim = cluster(seed, 1);
        sim.command(produce_to(0, "orders", 0, None, "before")).unwrap();
        run_for(&mut sim, 1_000);
        let old = replica(&sim, 0, 0).0.unwrap();
        sim.command(Command::KillBroker { broker: old }).unwrap();
        run_for(&mut sim, 100);
        let sent_at = sim.now_ms();
        sim.command(produce_to(0, "orders", 0, None, "during")).unwrap();
        run_for(&mut sim, 50);
        // One round trip: the request arrives, the host refuses it.
        let refused = sim.trace().iter().find(|e| {
            e.time_ms >= sent_at
                && matches!(e.kind, TraceKind::Disconnected { node: NodeId::Client(0), peer, refused: true }
                    if peer == NodeId::Broker(old))
        });
        let refused = refused.unwrap_or_else(|| panic!("seed {seed}: the producer never heard of a refused connection"));
        assert!(refused.time_ms - sent_at <= 10, "seed {seed}: refused after {} ms", refused.time_ms - sent_at);
        assert!(retry_errors(&sim).contains(&ErrorCode::NetworkException), "seed {seed}");
        assert!(matches!(sim.producer(0).unwrap().records()[1].state, RecordState::Accumulating), "seed {seed}");

        run_for(&mut sim, BROKER_SESSION_TIMEOUT_MS + 3_000);
        assert_eq!(acked(&sim, 0), vec![0, 1], "seed {seed}: {:?}", sim.producer(0).unwrap().records());
        assert!(!retry_errors(&sim).contains(&ErrorCode::RequestTimedOut), "seed {seed}: a request timed out");
        let new = (0..3).find(|b| *b != old).map(|b| replica(&sim, b, 0).0.unwrap()).unwrap();
        assert_ne!(new, old);
        assert_eq!(replica(&sim, new, 0).3, 2, "seed {seed}");
    }
}

#[test]
fn followers_and_brokers_learn_of_a_dead_peer_from_the_reset() {
    for seed in SEEDS {
        let mut sim = cluster(seed, 1);
        let old = replica(&sim, 0, 0).0.unwrap();
        sim.command(Command::KillBroker { broker: old }).unwrap();
        run_for(&mut sim, 20);
        for b in (0..3).filter(|b| *b != old) {
            assert!(
                sim.trace().iter().any(|e| matches!(e.kind, TraceKind::Disconnected { node, peer, refused: false }
                    if node == NodeId::Broker(b) && peer == NodeId::Broker(old))),
                "seed {seed}: follower {b} was not reset"
            );
        }
        // A broker whose active controller dies moves to the new one.
        let dead = sim.active_controller().unwrap();
        sim.command(Command::KillController { controller: dead }).unwrap();
        run_for(&mut sim, 8_000);
        let new = sim.active_controller().unwrap();
        assert_ne!(new, dead);
        for b in (0..3).filter(|b| *b != old) {
            assert_eq!(sim.broker(b).unwrap().control().unwrap().leader, Some(new), "seed {seed}: broker {b}");
        }
    }
}

#[test]
fn shutting_down_needs_a_running_broker_and_a_control_plane() {
    let mut config = common::cluster(1, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 1)], vec![]);
    let mut sim = Simulation::new(config.clone(), 1).unwrap();
    assert_eq!(sim.command(Command::ShutdownBroker { broker: 0 }), Err(CommandError::NoControlPlane));
    // Nothing in a static cluster would time out what a cut swallows.
    config.clients = vec![ClientSpec::Producer(ProducerConfig::default())];
    let mut sim = Simulation::new(config.clone(), 1).unwrap();
    let client = NodeSet { clients: vec![0], ..Default::default() };
    assert_eq!(sim.command(cut(brokers(&[0]), client)), Err(CommandError::NoControlPlane));
    sim.run_until(1);
    config.metadata = MetadataSource::quorum(1);
    let mut sim = Simulation::new(config, 1).unwrap();
    sim.run_until(6_000);
    assert_eq!(sim.command(Command::ShutdownBroker { broker: 3 }), Err(CommandError::UnknownBroker(3)));
    sim.command(Command::ShutdownBroker { broker: 0 }).unwrap();
    run_for(&mut sim, 1);
    assert_eq!(sim.command(Command::ShutdownBroker { broker: 0 }), Err(CommandError::BrokerAlreadyShuttingDown(0)));
    run_for(&mut sim, 5_000);
    assert!(sim.broker_is_down(0));
    assert_eq!(sim.command(Command::ShutdownBroker { broker: 0 }), Err(CommandError::BrokerAlreadyStopped(0)));
}

/// When a broker stops leading partition 0..3 (its first leadership change).
fn first_leadership_move(sim: &Simulation, broker: u32, after_ms: u64) -> Option<u64> {
    sim.trace()
        .iter()
        .find(|e| {
            e.time_ms >= after_ms
                && matches!(&e.kind, TraceKind::MetadataRecordApplied { record, .. }
                    if matches!(&**record, kafkascope::sim::metadata::MetadataRecord::PartitionChange { leader, .. } if *leader != Some(broker)))
        })
        .map(|e| e.time_ms)
}

#[test]
fn a_controlled_shutdown_moves_leadership_first_and_no_produce_times_out() {
    for seed in SEEDS {
        let mut sim = cluster(seed, 3);
        let leaders: Vec<u32> = (0..3).map(|p| replica(&sim, 0, p).0.unwrap()).collect();
        let target = leaders[0];
        let asked_at = sim.now_ms();
        sim.command(Command::ShutdownBroker { broker: target }).unwrap();
        let mut stopped_at = None;
        let mut sent = 0;
        while sim.now_ms() < asked_at + 6_000 {
            if sent < 50 {
                sim.command(produce_to(0, "orders", sent % 3, None, &format!("r{sent}"))).unwrap();
                sent += 1;
            }
            run_for(&mut sim, 20);
            // The committed metadata never has an offline partition.
            let active = sim.active_controller().unwrap();
            let image = sim.controller(active).unwrap().image(true);
            assert!(image.partitions.values().all(|p| p.leader.is_some()), "seed {seed}: a partition went offline");
            if stopped_at.is_none() && sim.broker_is_down(target) {
                stopped_at = Some(sim.now_ms());
                // It led nothing by the time it stopped.
                assert!(image.partitions.values().all(|p| p.leader != Some(target) && !p.isr.contains(&target)));
            }
        }
        let stopped_at = stopped_at.unwrap_or_else(|| panic!("seed {seed}: broker {target} never stopped"));
        let moved_at = first_leadership_move(&sim, target, asked_at).expect("leadership moved");
        assert!(moved_at < stopped_at, "seed {seed}");
        assert!(
            moved_at - asked_at < BROKER_HEARTBEAT_INTERVAL_MS,
            "seed {seed}: the new leader came {} ms after the request",
            moved_at - asked_at
        );
        assert!(stopped_at - asked_at <= 2 * BROKER_HEARTBEAT_INTERVAL_MS + 100, "seed {seed}");
        assert!(sim.trace().iter().any(|e| matches!(e.kind, TraceKind::BrokerInControlledShutdown { broker, .. } if broker == target)));
        assert!(sim.trace().iter().any(|e| matches!(e.kind, TraceKind::BrokerShutDown { broker } if broker == target)));
        assert!(!sim.trace().iter().any(|e| matches!(e.kind, TraceKind::BrokerSessionExpired { .. })), "seed {seed}");
        run_for(&mut sim, 2_000);
        assert_eq!(acked(&sim, 0).len(), 50, "seed {seed}: {:?}", sim.producer(0).unwrap().records());
        assert!(!retry_errors(&sim).contains(&ErrorCode::RequestTimedOut), "seed {seed}: {:?}", retry_errors(&sim));

        // It starts again like a crashed broker and rejoins every ISR.
        sim.command(Command::RestartBroker { broker: target }).unwrap();
        run_for(&mut sim, 15_000);
        for p in 0..3 {
            let (_, _, isr, _) = replica(&sim, leaders[1], p);
            assert!(isr.contains(&target), "seed {seed}: orders-{p} ISR {isr:?}");
        }
    }
}

#[test]
fn a_controlled_shutdown_hands_over_within_a_heartbeat_a_crash_within_a_session_timeout() {
    // How long after the command leadership moved, and how long after it
    // the leader's session was due to end.
    let handover = |graceful: bool| {
        let mut sim = cluster(5, 1);
        let leader = replica(&sim, 0, 0).0.unwrap();
        let at = sim.now_ms();
        let session = sim.view().brokers.iter().find(|b| b.id == leader).and_then(|b| b.session).expect("registered");
        let command = if graceful { Command::ShutdownBroker { broker: leader } } else { Command::KillBroker { broker: leader } };
        sim.command(command).unwrap();
        run_for(&mut sim, BROKER_SESSION_TIMEOUT_MS + 3_000);
        (first_leadership_move(&sim, leader, at).expect("a new leader") - at, session.fence_deadline_ms - at)
    };
    let ((graceful, _), (crash, session_left)) = (handover(true), handover(false));
    assert!(graceful < BROKER_HEARTBEAT_INTERVAL_MS, "controlled shutdown: {graceful} ms");
    // A crash waits out the session: its last heartbeat came at most one
    // interval (and a round trip) before the kill.
    assert!((session_left..session_left + 50).contains(&crash), "crash: leadership moved {crash} ms after the kill, the session ended after {session_left} ms");
    assert!(crash >= BROKER_SESSION_TIMEOUT_MS - BROKER_HEARTBEAT_INTERVAL_MS - 50, "crash: {crash} ms");
}

#[test]
fn a_follower_cut_off_from_its_leader_drops_out_of_the_isr_and_fetches_again_after_heal() {
    for seed in SEEDS {
        let mut sim = cluster(seed, 1);
        let leader = replica(&sim, 0, 0).0.unwrap();
        let follower = (0..3).find(|b| *b != leader).unwrap();
        sim.command(cut(brokers(&[follower]), brokers(&[leader]))).unwrap();
        run_for(&mut sim, 1_000);
        // A follower at the leader's log end stays in sync without fetching;
        // a record it cannot fetch leaves it behind.
        sim.command(produce_to(0, "orders", 0, None, "while-cut")).unwrap();
        run_for(&mut sim, 1_000);
        assert!(acked(&sim, 0).is_empty(), "seed {seed}: acks=all waits for the whole ISR");
        // replica.lag.time.max.ms (30 s) behind, as the isr-expiration task
        // (every 15 s) sees it: out of the ISR, and the smaller ISR
        // acknowledges the record.
        run_for(&mut sim, 45_000);
        let (_, _, isr, _) = replica(&sim, leader, 0);
        assert!(!isr.contains(&follower), "seed {seed}: ISR {isr:?}");
        assert_eq!(acked(&sim, 0), vec![0], "seed {seed}: {:?}", sim.producer(0).unwrap().records());

        // Its last fetch vanished in the cut; only replica.socket.timeout.ms
        // makes it give up and fetch again.
        sim.command(Command::Heal).unwrap();
        run_for(&mut sim, 40_000);
        let (_, _, isr, leo) = replica(&sim, leader, 0);
        assert!(isr.contains(&follower), "seed {seed}: follower {follower} never came back, ISR {isr:?}");
        assert_eq!(replica(&sim, follower, 0).3, leo, "seed {seed}");
    }
}

#[test]
fn with_every_broker_down_a_producer_backs_off_instead_of_spinning() {
    use kafkascope::sim::protocol::ApiKey;
    for seed in SEEDS {
        let mut sim = cluster(seed, 1);
        for b in 0..3 {
            sim.command(Command::KillBroker { broker: b }).unwrap();
        }
        run_for(&mut sim, 10);
        sim.command(produce_to(0, "orders", 0, None, "nobody-home")).unwrap();
        let from = sim.now_ms();
        run_for(&mut sim, 10_000);
        let asked = sim
            .trace()
            .iter()
            .filter(|e| {
                e.time_ms >= from
                    && e.node == NodeId::Client(0)
                    && matches!(e.kind, TraceKind::Sent { api: ApiKey::Metadata, .. })
            })
            .count();
        // reconnect.backoff.ms (50) after each refusal: each of the three
        // brokers is asked about once every 55 ms (some 550 in 10 s), not
        // once a round trip (over 2,000).
        assert!((300..=700).contains(&asked), "seed {seed}: {asked} Metadata requests in 10 s");

        for b in 0..3 {
            sim.command(Command::RestartBroker { broker: b }).unwrap();
        }
        run_for(&mut sim, 30_000);
        assert_eq!(acked(&sim, 0).len(), 1, "seed {seed}: {:?}", sim.producer(0).unwrap().records());
    }
}

#[test]
fn a_consumer_fetch_from_a_killed_leader_fails_at_once_with_network_exception() {
    use kafkascope::sim::config::ConsumerConfig;
    for seed in SEEDS {
        let consumer = ClientSpec::Consumer(ConsumerConfig::default());
        let mut config = common::cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 3)], vec![consumer]);
        config.metadata = MetadataSource::quorum(3);
        let mut sim = Simulation::new(config, seed).unwrap();
        sim.run_until(6_000);
        let old = replica(&sim, 0, 0).0.unwrap();
        let killed_at = sim.trace().len();
        sim.command(Command::KillBroker { broker: old }).unwrap();
        run_for(&mut sim, 10);
        sim.command(common::fetch(0, "orders", 0, Some(0))).unwrap();
        run_for(&mut sim, 100);
        let fetches = sim.consumer(0).unwrap().fetches();
        let result = fetches.last().and_then(|f| f.result.clone());
        assert_eq!(result.map(|r| r.error), Some(ErrorCode::NetworkException), "seed {seed}: {fetches:?}");
        // It asks for metadata again, to find the partition's next leader:
        // the reset of its connection to the dead broker already makes it
        // (DefaultMetadataUpdater.handleServerDisconnect), before the fetch.
        let asked_again = sim.trace()[killed_at..].iter().any(|e| {
            e.node == NodeId::Client(0) && matches!(e.kind, TraceKind::Sent { api: kafkascope::sim::protocol::ApiKey::Metadata, .. })
        });
        assert!(asked_again, "seed {seed}: no Metadata request after the leader died");
    }
}

/// Regression: a leader learns from the metadata log that the controller
/// took its cut-off followers out of the ISR (same leader and leader epoch,
/// a new partition epoch). With the ISR down to itself, its high watermark
/// must move at once, as Partition.makeLeader does, and the acks=all
/// produce waiting for the followers complete: before the fix it waited for
/// the leader's own replica.lag.time.max.ms shrink, 30 s after the cut.
#[test]
fn a_leader_whose_followers_are_fenced_advances_its_high_watermark_on_the_isr_change() {
    for seed in SEEDS {
        let mut sim = cluster(seed, 1);
        sim.command(produce_to(0, "orders", 0, None, "before")).unwrap();
        run_for(&mut sim, 2_000);
        assert_eq!(acked(&sim, 0), vec![0], "seed {seed}");
        let leader = replica(&sim, 0, 0).0.expect("a leader");
        let followers: Vec<u32> = (0..3).filter(|b| *b != leader).collect();
        for f in &followers {
            let rest = NodeSet {
                brokers: (0..3).filter(|b| b != f).collect(),
                controllers: vec![0, 1, 2],
                clients: vec![0],
            };
            sim.command(cut(brokers(&[*f]), rest)).unwrap();
        }
        run_for(&mut sim, 1);
        let cut_at = sim.now_ms();
        sim.command(produce_to(0, "orders", 0, None, "alone")).unwrap();
        let deadline = cut_at + BROKER_SESSION_TIMEOUT_MS + 6_000;
        while sim.now_ms() < deadline && acked(&sim, 0).len() < 2 {
            run_for(&mut sim, 100);
        }
        assert_eq!(acked(&sim, 0), vec![0, 1], "seed {seed}: acknowledged once the ISR shrank to the leader");
        assert_eq!(replica(&sim, leader, 0).2, vec![leader], "seed {seed}");
        assert!(sim.now_ms() < cut_at + 30_000, "seed {seed}: well before the leader's own lag check");
    }
}

/// KIP-497: a leader that finds a follower lagging asks the controller to
/// shrink the ISR, and until the change is committed the follower still
/// counts, so the high watermark does not move past it on the leader's own
/// word (Kafka's PendingShrinkIsr keeps the committed ISR as the maximal one).
#[test]
fn a_pending_isr_shrink_holds_the_high_watermark_until_the_controller_commits_it() {
    for seed in SEEDS {
        let mut sim = cluster(seed, 1);
        sim.command(produce_to(0, "orders", 0, None, "before")).unwrap();
        run_for(&mut sim, 2_000);
        let leader = replica(&sim, 0, 0).0.expect("a leader");
        let follower = (0..3).find(|b| *b != leader).unwrap();
        // Cut the follower off from the leader only: it keeps heartbeating
        // the controllers, so it is not fenced; only its fetches stop.
        sim.command(cut(brokers(&[follower]), brokers(&[leader]))).unwrap();
        run_for(&mut sim, 1);
        sim.command(produce_to(0, "orders", 0, None, "while cut off")).unwrap();
        let from = sim.trace().len();
        run_for(&mut sim, 60_000);
        let trace = &sim.trace()[from..];
        let on_leader = |e: &&kafkascope::sim::trace::TraceEvent| e.node == NodeId::Broker(leader);
        let shrunk = trace
            .iter()
            .filter(on_leader)
            .find(|e| matches!(&e.kind, TraceKind::IsrShrunk { removed, .. } if removed.contains(&follower)))
            .unwrap_or_else(|| panic!("seed {seed}: the leader shrank the ISR"));
        // The leader learns of the commit when it applies the controller's
        // PartitionChange without the follower, from the metadata log.
        let committed = trace
            .iter()
            .find(|e| {
                matches!(&e.kind, TraceKind::MetadataRecordApplied { broker, record, .. }
                    if *broker == leader
                        && matches!(&**record, kafkascope::sim::metadata::MetadataRecord::PartitionChange { isr, .. } if !isr.contains(&follower)))
            })
            .unwrap_or_else(|| panic!("seed {seed}: the leader applied the committed shrink"));
        assert!(committed.step > shrunk.step, "seed {seed}: the commit comes after the proposal");
        let advanced = trace
            .iter()
            .filter(on_leader)
            .find(|e| e.step >= shrunk.step && matches!(e.kind, TraceKind::HighWatermarkAdvanced { .. }))
            .unwrap_or_else(|| panic!("seed {seed}: the HW advanced once the shrink was committed"));
        assert!(
            advanced.step >= committed.step,
            "seed {seed}: the HW moved at {} ms (step {}), before the leader applied the committed shrink at {} ms (step {})",
            advanced.time_ms,
            advanced.step,
            committed.time_ms,
            committed.step
        );
        assert_eq!(replica(&sim, leader, 0).2.contains(&follower), false, "seed {seed}: the committed ISR left the follower out");
        assert_eq!(acked(&sim, 0).len(), 2, "seed {seed}: both records acknowledged in the end");
    }
}

/// What the view says of producer 0's only batch: (in flight, deadline).
fn only_batch(sim: &Simulation) -> Option<(bool, Option<BatchDeadline>)> {
    let view = sim.view();
    match &view.producers[0].batches[..] {
        [b] => Some((b.in_flight, b.deadline)),
        [] => None,
        more => panic!("one batch at a time: {more:?}"),
    }
}

fn deadline(kind: BatchDeadlineKind, at_ms: u64) -> Option<BatchDeadline> {
    Some(BatchDeadline { kind, at_ms })
}

/// RecordAccumulator's linger.ms, NetworkClient's request.timeout.ms and the
/// sender's retry.backoff.ms, each drawn from the batch's view, end when the
/// view said they would.
#[test]
fn a_producer_batch_shows_its_linger_its_request_timeout_and_its_retry_backoff() {
    let producer = ClientSpec::Producer(ProducerConfig {
        acks: 1,
        enable_idempotence: false,
        linger_ms: 200,
        request_timeout_ms: 1_000,
        retry_backoff_ms: 300,
        ..Default::default()
    });
    let mut config = common::cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 3)], vec![producer]);
    config.metadata = MetadataSource::quorum(1);
    let mut sim = Simulation::new(config, 11).expect("valid config");
    sim.run_until(6_000);
    // A first record teaches the producer the leader.
    sim.command(produce_to(0, "orders", 0, None, "first")).unwrap();
    run_for(&mut sim, 1_000);
    assert_eq!(acked(&sim, 0), vec![0]);
    let leader = replica(&sim, 0, 0).0.expect("a leader");
    sim.command(cut(NodeSet { clients: vec![0], ..Default::default() }, brokers(&[leader]))).unwrap();
    sim.command(produce_to(0, "orders", 0, None, "lost")).unwrap();
    while only_batch(&sim).is_none() {
        assert!(sim.step());
    }
    let created = sim.now_ms();
    assert_eq!(only_batch(&sim), Some((false, deadline(BatchDeadlineKind::Linger, created + 200))));
    // Open until linger.ms has passed, then sent in the same millisecond.
    while only_batch(&sim) != Some((true, deadline(BatchDeadlineKind::RequestTimeout, sim.now_ms() + 1_000))) {
        assert_eq!(only_batch(&sim).map(|b| b.0), Some(false), "not sent before its linger ended");
        assert!(sim.step());
    }
    let sent = sim.now_ms();
    assert_eq!(sent, created + 200, "ready when linger.ms ran out");
    // The request is lost in the cut; with no answer it times out.
    let from = sim.trace().len();
    while !sim.trace()[from..].iter().any(|e| matches!(e.kind, TraceKind::ProduceRetry { .. })) {
        assert_eq!(only_batch(&sim), Some((true, deadline(BatchDeadlineKind::RequestTimeout, sent + 1_000))));
        assert!(sim.step());
    }
    let timed_out = sim.now_ms();
    assert_eq!(timed_out, sent + 1_000, "given up after request.timeout.ms");
    assert!(sim.trace()[from..]
        .iter()
        .any(|e| matches!(e.kind, TraceKind::ProduceRetry { error: ErrorCode::RequestTimedOut, .. })));
    // Back in the accumulator until the backoff has passed: the first one
    // is retry.backoff.ms with Kafka's jitter of ±20 %.
    let retry_at = match only_batch(&sim) {
        Some((false, Some(BatchDeadline { kind: BatchDeadlineKind::RetryBackoff, at_ms }))) => at_ms,
        other => panic!("backing off: {other:?}"),
    };
    assert!((timed_out + 240..timed_out + 360).contains(&retry_at), "{} ms", retry_at - timed_out);
    while sim.now_ms() < retry_at {
        assert_eq!(only_batch(&sim), Some((false, deadline(BatchDeadlineKind::RetryBackoff, retry_at))));
        assert!(sim.step());
    }
    // Past the backoff, nothing but the sender is left to wait for.
    assert!(matches!(only_batch(&sim), Some((_, d)) if d.is_none_or(|d| d.kind == BatchDeadlineKind::RequestTimeout)));
}

/// A follower cut off from its leader leaves the ISR at the first run of
/// the leader's isr-expiration task after it has lagged for
/// replica.lag.time.max.ms, which is when the view said it would.
#[test]
fn a_stopped_follower_leaves_the_isr_at_the_isr_expiration_run_the_view_predicts() {
    for seed in SEEDS {
        let lag = 4_000;
        let broker = BrokerConfig { replica_lag_time_max_ms: lag, ..Default::default() };
        let mut config = common::cluster(3, broker, vec![TopicSpec::new("orders", 1, 3)], vec![common::producer(1)]);
        config.metadata = MetadataSource::quorum(1);
        let mut sim = Simulation::new(config, seed).expect("valid config");
        sim.run_until(6_000);
        let leader = replica(&sim, 0, 0).0.expect("a leader");
        let follower = (0..3).find(|b| *b != leader).unwrap();
        assert_eq!(sim.view().isr_expiry_ms("orders", 0, follower), None, "seed {seed}: a caught-up follower never lags");
        sim.command(cut(brokers(&[follower]), brokers(&[leader]))).unwrap();
        sim.command(produce_to(0, "orders", 0, None, "while cut off")).unwrap();
        let from = sim.trace().len();
        loop {
            assert!(sim.now_ms() < 6_000 + 3 * lag, "seed {seed}: the follower never left the ISR");
            let view = sim.view();
            let checked = view.brokers.iter().find(|b| b.id == leader).and_then(|b| b.next_isr_expiration_ms);
            let before = (view.isr_expiry_ms("orders", 0, follower), checked);
            let caught_up = view
                .replica("orders", 0, leader)
                .and_then(|r| r.followers.iter().find(|f| f.broker == follower))
                .map(|f| f.last_caught_up_time_ms);
            assert!(sim.step());
            let shrunk = sim.trace()[from..].iter().find(|e| {
                e.node == NodeId::Broker(leader) && matches!(&e.kind, TraceKind::IsrShrunk { removed, .. } if removed.contains(&follower))
            });
            if let Some(e) = shrunk {
                assert_eq!(Some(e.time_ms), before.0, "seed {seed}: the view predicted {:?}", before.0);
                assert_eq!(Some(e.time_ms), before.1, "seed {seed}: on a run of the isr-expiration task");
                let late_after = caught_up.unwrap() + lag;
                assert!(e.time_ms > late_after && e.time_ms - lag / 2 <= late_after, "seed {seed}: the first run after {late_after}");
                // Asked of the controller: the countdown is over.
                assert_eq!(sim.view().isr_expiry_ms("orders", 0, follower), None, "seed {seed}: the shrink is pending");
                break;
            }
        }
        // Once the controller has committed the shrink, no countdown is left.
        run_for(&mut sim, 1_000);
        assert!(!replica(&sim, leader, 0).2.contains(&follower), "seed {seed}");
        assert_eq!(sim.view().isr_expiry_ms("orders", 0, follower), None, "seed {seed}: out of the ISR, no countdown");
    }
}

/// Three brokers and controllers whose followers hold their fetches for 5 s,
/// so an acks=all produce cannot complete on its own: the produce is sent
/// with `producer` and waits in the leader's purgatory. Returns the run and
/// that leader.
fn produce_parked_on_the_leader(producer: ProducerConfig) -> (Simulation, u32) {
    let producer = ClientSpec::Producer(ProducerConfig { acks: -1, linger_ms: 0, request_timeout_ms: 30_000, ..producer });
    let broker = BrokerConfig { replica_fetch_min_bytes: 1_000_000, replica_fetch_wait_max_ms: 5_000, ..Default::default() };
    let mut config = common::cluster(3, broker, vec![TopicSpec::new("orders", 1, 3)], vec![producer]);
    config.metadata = MetadataSource::quorum(3);
    let mut sim = Simulation::new(config, 7).expect("valid config");
    sim.run_until(6_000);
    let leader = replica(&sim, 0, 0).0.unwrap();
    sim.command(produce_to(0, "orders", 0, None, "held")).unwrap();
    run_for(&mut sim, 50);
    (sim, leader)
}

#[test]
fn a_leader_that_becomes_a_follower_answers_its_parked_produces_at_once() {
    // ReplicaManager completes the delayed operations of a partition it no
    // longer leads: an acks=all produce parked on the old leader is answered
    // NOT_LEADER_OR_FOLLOWER the moment the leadership moves, so the
    // producer retries to the new leader, rather than waiting until the
    // old leader stops (or its request.timeout.ms). The followers here hold
    // their fetches for 5 s, so the produce cannot complete on its own.
    let (mut sim, leader) = produce_parked_on_the_leader(ProducerConfig::default());
    let parked: Vec<_> = sim
        .trace()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Parked { request, operation, .. } if e.node == NodeId::Broker(leader) && request.client == NodeId::Client(0) => {
                Some((*request, *operation))
            }
            _ => None,
        })
        .collect();
    assert_eq!(parked.len(), 1, "the produce waits in the leader's purgatory: {parked:?}");
    let (request, operation) = parked[0];
    let asked_at = sim.now_ms();
    sim.command(Command::ShutdownBroker { broker: leader }).unwrap();
    run_for(&mut sim, 2 * BROKER_HEARTBEAT_INTERVAL_MS);
    let moved_at = first_leadership_move(&sim, leader, asked_at).expect("leadership moved");
    // The old leader applied the change and answered at once.
    let answered = sim
        .trace()
        .iter()
        .find(|e| matches!(e.kind, TraceKind::PurgatoryCompleted { request: r, operation: o, expired: false } if r == request && o == operation))
        .map(|e| e.time_ms)
        .expect("the parked produce completed, not expired");
    assert!(answered >= moved_at && answered < moved_at + 100, "answered at {answered} ms, the leadership moved at {moved_at} ms");
    let stopped = sim.trace().iter().find(|e| matches!(e.kind, TraceKind::BrokerShutDown { broker } if broker == leader)).map(|e| e.time_ms);
    assert!(stopped.is_none_or(|t| answered < t), "answered while the old leader still ran (answered {answered} ms, stopped {stopped:?})");
    assert!(retry_errors(&sim).contains(&ErrorCode::NotLeaderOrFollower), "{:?}", retry_errors(&sim));
    run_for(&mut sim, 8_000);
    assert_eq!(acked(&sim, 0).len(), 1, "the retry to the new leader is acknowledged");
}

#[test]
fn a_retry_to_a_new_leader_does_not_wait_out_its_backoff() {
    // RecordAccumulator.shouldBackoff: a batch backs off before its retry
    // only while the partition's leader is the one that failed it. The
    // producer here backs off 5 s; the old leader hands over in a
    // controlled shutdown, answers NOT_LEADER_OR_FOLLOWER, and the retry
    // goes to the new leader as soon as the metadata names it.
    let (mut sim, leader) =
        produce_parked_on_the_leader(ProducerConfig { retry_backoff_ms: 5_000, retry_backoff_max_ms: 10_000, ..Default::default() });
    sim.command(Command::ShutdownBroker { broker: leader }).unwrap();
    run_for(&mut sim, 2 * BROKER_HEARTBEAT_INTERVAL_MS);
    let retried_at = sim
        .trace()
        .iter()
        .find(|e| matches!(e.kind, TraceKind::ProduceRetry { error: ErrorCode::NotLeaderOrFollower, .. }))
        .map(|e| e.time_ms)
        .expect("the old leader refused it");
    // The produce requests the producer sent, by time and broker.
    let sends: Vec<(u64, NodeId)> = sim
        .trace()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Sent { api: kafkascope::sim::protocol::ApiKey::Produce, direction: kafkascope::sim::trace::Direction::Request, to, .. }
                if e.node == NodeId::Client(0) =>
            {
                Some((e.time_ms, *to))
            }
            _ => None,
        })
        .collect();
    let resent = sends.iter().find(|(t, _)| *t >= retried_at).copied().expect("sent again");
    assert_ne!(resent.1, NodeId::Broker(leader), "to the new leader");
    assert!(resent.0 - retried_at < 500, "{} ms after the refusal, not the 4 to 6 s backoff", resent.0 - retried_at);
    run_for(&mut sim, 3_000);
    assert_eq!(acked(&sim, 0).len(), 1);
}

#[test]
fn a_consumer_fetch_lost_in_a_cut_times_out_and_the_consumer_asks_for_metadata() {
    // NetworkClient.handleTimedOutRequests: with no answer for
    // request.timeout.ms (30 s) the fetch ends with REQUEST_TIMED_OUT, the
    // connection is dropped and the metadata asked for again; a fetch after
    // the heal reads the record.
    use kafkascope::sim::config::ConsumerConfig;
    let producer = ClientSpec::Producer(ProducerConfig { acks: -1, linger_ms: 0, ..Default::default() });
    let consumer = ClientSpec::Consumer(ConsumerConfig::default());
    assert_eq!(ConsumerConfig::default().request_timeout_ms, 30_000, "Kafka's default");
    let mut config = common::cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 3)], vec![producer, consumer]);
    config.metadata = MetadataSource::quorum(3);
    let mut sim = Simulation::new(config, 4).expect("valid config");
    sim.run_until(6_000);
    sim.command(produce_to(0, "orders", 0, None, "r")).unwrap();
    run_for(&mut sim, 500);
    // A first fetch teaches the consumer the leader.
    sim.command(common::fetch(1, "orders", 0, Some(0))).unwrap();
    run_for(&mut sim, 500);
    assert_eq!(sim.consumer(1).unwrap().consumed().len(), 1);
    let leader = replica(&sim, 0, 0).0.unwrap();
    sim.command(cut(NodeSet { clients: vec![1], ..Default::default() }, brokers(&[leader]))).unwrap();
    let sent_at = sim.now_ms();
    sim.command(common::fetch(1, "orders", 0, Some(0))).unwrap();
    run_for(&mut sim, 29_900);
    assert!(sim.consumer(1).unwrap().fetches()[1].result.is_none(), "still waiting before request.timeout.ms");
    let from = sim.trace().len();
    run_for(&mut sim, 200);
    let timed_out = sim.consumer(1).unwrap().fetches()[1].result.clone().expect("given up after request.timeout.ms");
    assert_eq!((timed_out.error, timed_out.records, timed_out.next_offset), (ErrorCode::RequestTimedOut, 0, 0));
    let at = sim.trace()[from..]
        .iter()
        .find(|e| matches!(e.kind, TraceKind::FetchCompleted { error: ErrorCode::RequestTimedOut, .. }))
        .map(|e| e.time_ms)
        .unwrap();
    assert!(at >= sent_at + 30_000 && at <= sent_at + 30_010, "at {} ms after the send", at - sent_at);
    assert!(
        sim.trace()[from..].iter().any(|e| e.node == NodeId::Client(1)
            && matches!(e.kind, TraceKind::Sent { api: kafkascope::sim::protocol::ApiKey::Metadata, .. })),
        "the consumer asked for metadata again"
    );
    sim.command(Command::Heal).unwrap();
    run_for(&mut sim, 1_000);
    sim.command(common::fetch(1, "orders", 0, Some(0))).unwrap();
    run_for(&mut sim, 1_000);
    let again = sim.consumer(1).unwrap().fetches().last().unwrap().result.clone().expect("answered after the heal");
    assert_eq!((again.error, again.records), (ErrorCode::None, 1));
}
