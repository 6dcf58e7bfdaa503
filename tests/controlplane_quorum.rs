//! The KRaft controller quorum inside the cluster: election of an active
//! controller, failover when it dies, and a restart from the durable log.

mod common;

use kafkascope::sim::config::{BrokerConfig, TopicSpec};
use kafkascope::sim::simulation::{Command, CommandError, MetadataSource, Simulation};
use kafkascope::sim::trace::TraceKind;

fn quorum(controllers: u32, seed: u64) -> Simulation {
    let mut config = common::cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 3, 3)], vec![]);
    config.metadata = MetadataSource::quorum(controllers);
    Simulation::new(config, seed).expect("valid config")
}

#[test]
fn one_three_and_five_controllers_elect_an_active_controller() {
    for n in [1, 3, 5] {
        for seed in 1..=5 {
            let mut sim = quorum(n, seed);
            // The election timeout is 1000 ms, randomised up to 2000 ms.
            sim.run_until(4_000);
            let active = sim.active_controller().unwrap_or_else(|| panic!("{n} controllers, seed {seed}: no leader"));
            let leaders: Vec<u32> = sim.controllers().filter(|c| c.is_active()).map(|c| c.id()).collect();
            assert_eq!(leaders, vec![active], "exactly one active controller");
            let epoch = sim.controller(active).unwrap().raft().unwrap().epoch();
            for c in sim.controllers() {
                let raft = c.raft().unwrap();
                assert_eq!(raft.epoch(), epoch, "every controller is in the leader's epoch");
                assert_eq!(raft.leader_id(), Some(active), "every controller knows the active controller");
            }
            assert!(sim.trace().iter().any(|e| matches!(
                &e.kind,
                TraceKind::Raft { controller, event: kafkascope::sim::raft::output::RaftEvent::BecameLeader { .. } } if *controller == active
            )));
            assert!(sim.trace().iter().any(|e| matches!(e.kind, TraceKind::ControllerStarted { .. })));
        }
    }
}

#[test]
fn the_fixed_metadata_source_has_no_quorum_traffic() {
    let mut config = common::cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 3, 3)], vec![]);
    config.metadata = MetadataSource::Fixed;
    let mut sim = Simulation::new(config, 7).expect("valid config");
    sim.run_until(4_000);
    assert_eq!(sim.controllers().count(), 0);
    assert_eq!(sim.active_controller(), None);
    assert!(!sim.trace().iter().any(|e| matches!(
        e.kind,
        TraceKind::Raft { .. } | TraceKind::RaftSent { .. } | TraceKind::ControllerStarted { .. }
    )));
}

#[test]
fn even_or_too_many_controllers_are_refused() {
    // A quorum of none is refused too: no controller means the fixed
    // source, said so, not a quorum of zero.
    for n in [0, 2, 4, 6, 7] {
        let mut config = common::cluster(1, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 1)], vec![]);
        config.metadata = MetadataSource::quorum(n);
        assert!(Simulation::new(config, 1).is_err(), "{n} controllers");
    }
}

#[test]
fn killing_the_active_controller_elects_another_within_the_election_timeouts() {
    for seed in 1..=5 {
        let mut sim = quorum(3, seed);
        sim.run_until(4_000);
        let old = sim.active_controller().unwrap();
        let old_epoch = sim.controller(old).unwrap().raft().unwrap().epoch();
        sim.command(Command::KillController { controller: old }).unwrap();
        assert_eq!(
            sim.command(Command::KillController { controller: 9 }),
            Err(CommandError::UnknownController(9))
        );
        let killed_at = sim.now_ms();
        sim.step();
        assert!(!sim.controller(old).unwrap().is_alive());
        assert_eq!(
            sim.command(Command::KillController { controller: old }),
            Err(CommandError::ControllerAlreadyStopped(old))
        );
        // A follower notices after controller.quorum.fetch.timeout.ms (2000)
        // and the election takes at most 2 × election.timeout.ms (2000) more;
        // a lost round may add a backoff and another timeout.
        let mut new = None;
        while sim.now_ms() < killed_at + 8_000 {
            sim.run_until(sim.now_ms() + 50);
            if let Some(a) = sim.active_controller() {
                if a != old {
                    new = Some(a);
                    break;
                }
            }
        }
        let new = new.unwrap_or_else(|| panic!("seed {seed}: no new active controller"));
        let elapsed = sim.now_ms() - killed_at;
        assert!(elapsed <= 2_000 + 2 * 2_000 + 1_000, "seed {seed}: failover took {elapsed} ms");
        assert!(sim.controller(new).unwrap().raft().unwrap().epoch() > old_epoch);

        // The old leader comes back from its log and quorum-state and follows.
        sim.command(Command::RestartController { controller: old }).unwrap();
        sim.run_until(sim.now_ms() + 5_000);
        let c = sim.controller(old).unwrap();
        assert!(c.is_alive());
        let raft = c.raft().unwrap();
        let active = sim.active_controller().unwrap();
        assert_eq!(raft.leader_id(), Some(active), "seed {seed}: the restarted controller knows the leader");
        assert!(sim.trace().iter().any(|e| matches!(e.kind, TraceKind::ControllerStarted { recovered: true, .. })));
        assert!(sim.trace().iter().any(|e| matches!(e.kind, TraceKind::ControllerStopped { .. })));
    }
}

#[test]
fn a_quorum_run_is_deterministic() {
    let run = |seed| {
        let mut sim = quorum(5, seed);
        sim.run_until(3_000);
        sim.command(Command::KillController { controller: sim.active_controller().unwrap() }).unwrap();
        sim.run_until(10_000);
        sim.trace_hash()
    };
    assert_eq!(run(3), run(3));
}

#[test]
fn brokers_follow_a_new_active_controller_and_it_fences_a_dead_broker() {
    let mut sim = quorum(3, 21);
    sim.run_until(6_000);
    let old = sim.active_controller().unwrap();
    sim.command(Command::KillController { controller: old }).unwrap();
    sim.run_until(20_000);
    let new = sim.active_controller().unwrap();
    assert_ne!(new, old);
    // The brokers found the new active controller (NOT_CONTROLLER hints or
    // round-robin) and kept their sessions: nobody was fenced.
    assert!(!sim.trace().iter().any(|e| matches!(e.kind, TraceKind::BrokerSessionExpired { .. })));
    for b in 0..3 {
        let control = sim.broker(b).unwrap().control().unwrap();
        assert_eq!(control.leader, Some(new), "broker {b}");
        assert!(!control.fenced, "broker {b}");
    }
    // The new active controller fences a broker that dies.
    sim.command(Command::KillBroker { broker: 2 }).unwrap();
    sim.run_until(33_000);
    assert!(sim.trace().iter().any(|e| e.node == kafkascope::sim::ids::NodeId::Controller(new)
        && matches!(e.kind, TraceKind::BrokerSessionExpired { broker: 2, .. })));
    for p in 0..3 {
        let view = sim.view();
        let pv = view.partition("orders", p).unwrap();
        assert_ne!(pv.leader, Some(2), "orders-{p} moved off the dead broker");
    }
}

/// KIP-996, on by default as in Kafka 4.0: a follower controller cut off
/// from the quorum only asks for pre-votes, which no one grants while the
/// leader is alive, so it never raises the epoch and, once healed, rejoins
/// without unseating the active controller. With pre-vote off (Kafka 3.x)
/// the same cut makes it raise the epoch, and the heal forces a new
/// election.
#[test]
fn a_controller_cut_off_and_healed_disturbs_the_quorum_only_without_pre_vote() {
    use kafkascope::sim::simulation::NodeSet;
    for seed in 1..=5 {
        for pre_vote in [true, false] {
            let mut config = common::cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 3, 3)], vec![]);
            config.metadata = MetadataSource::Quorum { voters: 3, pre_vote };
            let mut sim = Simulation::new(config, seed).expect("valid config");
            sim.run_until(4_000);
            let active = sim.active_controller().unwrap_or_else(|| panic!("seed {seed}: no active controller"));
            let epoch = sim.controller(active).unwrap().raft().unwrap().epoch();
            let cut = (0..3).find(|c| *c != active).unwrap();
            let rest = NodeSet {
                brokers: vec![0, 1, 2],
                controllers: (0..3).filter(|c| *c != cut).collect(),
                clients: vec![],
            };
            let alone = NodeSet { controllers: vec![cut], ..NodeSet::default() };
            sim.command(Command::Partition { a: alone, b: rest }).unwrap();
            sim.run_until(14_000);
            let cut_epoch = sim.controller(cut).unwrap().raft().unwrap().epoch();
            sim.command(Command::Heal).unwrap();
            sim.run_until(20_000);
            let now_active = sim.active_controller();
            let now_epoch = sim.controller(active).unwrap().raft().unwrap().epoch();
            if pre_vote {
                assert_eq!(cut_epoch, epoch, "seed {seed}: the cut-off controller kept its epoch");
                assert_eq!(now_active, Some(active), "seed {seed}: the active controller stayed");
                assert_eq!(now_epoch, epoch, "seed {seed}: no election after the heal");
                assert!(
                    sim.trace().iter().any(|e| matches!(
                        &e.kind,
                        TraceKind::Raft { controller, event: kafkascope::sim::raft::output::RaftEvent::VoteRequested { pre_vote: true, .. } }
                            if *controller == cut
                    )),
                    "seed {seed}: the cut-off controller asked for pre-votes"
                );
            } else {
                assert!(cut_epoch > epoch, "seed {seed}: without pre-vote the cut-off controller raised its epoch");
                assert!(now_epoch > epoch, "seed {seed}: and the heal forced a new election ({epoch} -> {now_epoch})");
            }
        }
    }
}
