//! `unclean.leader.election.enable`: what the controller does when no ISR
//! replica is alive. Off (Kafka's default): no leader (-1), the partition is
//! offline until an ISR member returns. On: the first live replica in
//! assignment order leads from outside the ISR, with ISR = [itself], and the
//! records only the old ISR had are lost.

mod common;

use common::{acked, produce_to, run_for};
use kafkascope::sim::broker::fetcher::REPLICA_SOCKET_TIMEOUT_MS;
use kafkascope::sim::config::{BrokerConfig, ProducerConfig, TopicSpec};
use kafkascope::sim::control_plane::BROKER_SESSION_TIMEOUT_MS;
use kafkascope::sim::metadata::PartitionRecord;
use kafkascope::sim::ids::TopicPartition;
use kafkascope::sim::invariants::{Breach, Guarantee, Invariant, InvariantChecker, NoGuarantee};
use kafkascope::sim::simulation::{ClientSpec, Command, MetadataSource, Simulation};
use kafkascope::sim::trace::{ElectionTrigger, TraceKind};

fn cluster(seed: u64, unclean: bool) -> Simulation {
    cluster_with(seed, unclean, 1)
}

fn cluster_with(seed: u64, unclean: bool, acks: i16) -> Simulation {
    let producer = ClientSpec::Producer(ProducerConfig {
        acks,
        enable_idempotence: acks == -1,
        linger_ms: 0,
        request_timeout_ms: 3_000,
        ..Default::default()
    });
    let mut topic = TopicSpec::new("orders", 1, 2);
    topic.config.unclean_leader_election_enable = unclean;
    let mut config = common::cluster(2, BrokerConfig::default(), vec![topic], vec![producer]);
    config.metadata = MetadataSource::quorum(3);
    Simulation::new(config, seed).expect("valid config")
}

fn tp() -> TopicPartition {
    TopicPartition::new("orders", 0)
}

/// The partition as the metadata log has committed it.
fn committed(sim: &Simulation) -> PartitionRecord {
    let active = sim.active_controller().expect("an active controller");
    sim.controller(active).unwrap().image(true).partitions.get(&tp()).cloned().expect("the partition exists")
}

fn leo(sim: &Simulation, broker: u32) -> i64 {
    sim.broker(broker).unwrap().partition(&tp()).unwrap().log.log_end_offset()
}

/// Leaves the partition with its only ISR member `old` dead and the other
/// replica alive but outside the ISR, missing two acknowledged records.
/// Returns (old leader, other replica, leader epoch before the election).
fn lose_the_isr(sim: &mut Simulation) -> (u32, u32, i32) {
    sim.run_until(6_000);
    let leader = committed(sim).leader.expect("a leader");
    let other = 1 - leader;
    sim.command(produce_to(0, "orders", 0, None, "a")).unwrap();
    run_for(sim, 1_000);
    sim.command(Command::KillBroker { broker: other }).unwrap();
    run_for(sim, BROKER_SESSION_TIMEOUT_MS + 2_000);
    assert_eq!(committed(sim).isr, vec![leader], "the dead follower left the ISR");
    sim.command(produce_to(0, "orders", 0, None, "b")).unwrap();
    sim.command(produce_to(0, "orders", 0, None, "c")).unwrap();
    run_for(sim, 1_000);
    assert_eq!(acked(sim, 0), vec![0, 1, 2], "acks=1: the leader alone acknowledges");
    let epoch = committed(sim).leader_epoch;
    sim.command(Command::KillBroker { broker: leader }).unwrap();
    sim.command(Command::RestartBroker { broker: other }).unwrap();
    run_for(sim, BROKER_SESSION_TIMEOUT_MS + 3_000);
    (leader, other, epoch)
}

#[test]
fn with_unclean_election_off_the_partition_is_offline_until_an_isr_member_returns() {
    for seed in [1, 2, 3] {
        let mut sim = cluster(seed, false);
        let (old, other, epoch) = lose_the_isr(&mut sim);
        let p = committed(&sim);
        assert_eq!(p.leader, None, "seed {seed}: Leader: none");
        assert_eq!(p.isr, vec![old], "seed {seed}: the ISR keeps its last member");
        assert_eq!(p.leader_epoch, epoch + 1, "seed {seed}: losing the leader bumps the leader epoch");
        assert!(!sim.broker(other).unwrap().control().unwrap().fenced, "seed {seed}: the other replica is up");
        assert_eq!(sim.view().partition("orders", 0).unwrap().leader, None, "seed {seed}: the view says no leader");
        assert!(!sim.trace().iter().any(|e| matches!(&e.kind, TraceKind::LeaderElected(x) if x.unclean)));

        sim.command(Command::RestartBroker { broker: old }).unwrap();
        // The other replica's fetch to the dead leader is given up after
        // replica.socket.timeout.ms, then it fetches from the returned one.
        run_for(&mut sim, REPLICA_SOCKET_TIMEOUT_MS + 2_000);
        let p = committed(&sim);
        assert_eq!(p.leader, Some(old), "seed {seed}: the returning ISR member leads");
        assert_eq!(p.leader_epoch, epoch + 2);
        assert_eq!(leo(&sim, old), 3, "seed {seed}: it kept every acknowledged record");
        assert_eq!(leo(&sim, other), 3, "seed {seed}: and the other replica catches up");
    }
}

#[test]
fn with_unclean_election_on_a_replica_outside_the_isr_leads_and_acknowledged_records_are_lost() {
    for seed in [1, 2, 3] {
        let mut sim = cluster(seed, true);
        let (old, other, epoch) = lose_the_isr(&mut sim);
        let p = committed(&sim);
        assert_eq!(p.leader, Some(other), "seed {seed}: the first live replica leads");
        assert_eq!(p.isr, vec![other], "seed {seed}: ISR = [new leader]");
        assert_eq!(p.leader_epoch, epoch + 1, "seed {seed}");
        let elected = sim.trace().iter().find_map(|e| match &e.kind {
            TraceKind::LeaderElected(x) if x.unclean => {
                Some((x.partition.clone(), x.leader, x.previous, x.leader_epoch, x.previous_isr.clone(), x.trigger))
            }
            _ => None,
        });
        assert_eq!(
            elected,
            Some((tp(), Some(other), Some(old), epoch + 1, vec![old], ElectionTrigger::LeaderFenced)),
            "seed {seed}: the old leader's fencing elected the replica outside the ISR"
        );
        assert_eq!(leo(&sim, other), 1, "seed {seed}: the new leader never got b and c");

        sim.command(Command::RestartBroker { broker: old }).unwrap();
        run_for(&mut sim, 10_000);
        assert_eq!(committed(&sim).leader, Some(other), "seed {seed}: the new leader keeps leading");
        assert_eq!(leo(&sim, old), 1, "seed {seed}: the old leader truncated b and c away");
        assert!(sim.trace().iter().any(|e| matches!(
            &e.kind,
            TraceKind::FollowerTruncated { replica, to_offset: 1, .. } if *replica == old
        )));
    }
}

#[test]
fn unclean_leader_election_is_a_topic_config_that_defaults_to_false() {
    let spec: TopicSpec = serde_json::from_str(r#"{"name": "t", "partitions": 1}"#).unwrap();
    assert!(!spec.config.unclean_leader_election_enable);
    let spec: TopicSpec =
        serde_json::from_str(r#"{"name": "t", "partitions": 1, "config": {"unclean.leader.election.enable": true}}"#).unwrap();
    assert!(spec.config.unclean_leader_election_enable);
}


/// Runs `ms` more, with the invariant checker after every step.
fn run_checked(sim: &mut Simulation, checker: &mut InvariantChecker, ms: u64) {
    let until = sim.now_ms() + ms;
    while sim.next_event_ms().is_some_and(|t| t <= until) {
        sim.step();
        checker.check_step(sim);
    }
    sim.run_until(until);
}

#[test]
fn the_checker_reports_an_acks_all_write_lost_to_an_unclean_election_as_not_guaranteed() {
    let mut sim = cluster_with(2, true, -1);
    let mut checker = InvariantChecker::new();
    run_checked(&mut sim, &mut checker, 6_000);
    let leader = committed(&sim).leader.expect("a leader");
    let other = 1 - leader;
    sim.command(produce_to(0, "orders", 0, None, "a")).unwrap();
    run_checked(&mut sim, &mut checker, 1_000);
    sim.command(Command::KillBroker { broker: other }).unwrap();
    run_checked(&mut sim, &mut checker, BROKER_SESSION_TIMEOUT_MS + 2_000);
    // min.insync.replicas is 1: the leader alone is enough for acks=all.
    sim.command(produce_to(0, "orders", 0, None, "b")).unwrap();
    run_checked(&mut sim, &mut checker, 1_000);
    assert_eq!(acked(&sim, 0), vec![0, 1]);
    sim.command(Command::KillBroker { broker: leader }).unwrap();
    sim.command(Command::RestartBroker { broker: other }).unwrap();
    run_checked(&mut sim, &mut checker, BROKER_SESSION_TIMEOUT_MS + 3_000);
    assert_eq!(committed(&sim).leader, Some(other), "elected uncleanly");
    assert!(checker.violations().is_empty(), "nothing is lost until the new leader commits over it: {:?}", checker.violations());
    sim.command(produce_to(0, "orders", 0, None, "c")).unwrap();
    run_checked(&mut sim, &mut checker, 8_000);
    let v = checker.violations();
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].invariant(), Invariant::AcknowledgedWriteKept);
    assert_eq!(v[0].guarantee, Some(Guarantee::NotGuaranteed(NoGuarantee::UncleanElection)));
    assert_eq!(v[0].partition, Some(tp()));
    assert!(matches!(v[0].breach, Breach::WriteLost { base_offset: 1, last_offset: 1, .. }), "{}", v[0]);
}
