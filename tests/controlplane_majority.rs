//! Losing the controller majority: with 3 controllers and 2 of them down,
//! the last one cannot lead (a leader resigns by check-quorum, a candidate
//! cannot win), so there is no active controller and the metadata is
//! frozen: a dead broker is not fenced and its partitions get no new
//! leader. One voter back makes a majority: an active controller is
//! elected, and then the dead broker is fenced and replaced.

mod common;

use common::run_for;
use kafkascope::sim::config::{BrokerConfig, TopicSpec};
use kafkascope::sim::control_plane::BROKER_SESSION_TIMEOUT_MS;
use kafkascope::sim::ids::TopicPartition;
use kafkascope::sim::raft::output::RaftEvent;
use kafkascope::sim::simulation::{Command, MetadataSource, Simulation};
use kafkascope::sim::trace::TraceKind;

fn cluster(seed: u64) -> Simulation {
    let mut config = common::cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 3)], vec![]);
    config.metadata = MetadataSource::quorum(3);
    Simulation::new(config, seed).expect("valid config")
}

fn tp() -> TopicPartition {
    TopicPartition::new("orders", 0)
}

/// (leader, leader epoch) as broker `b` has it from the metadata log.
fn leader_on(sim: &Simulation, b: u32) -> (Option<u32>, i32) {
    let p = sim.broker(b).unwrap().partition(&tp()).unwrap();
    (p.leader, p.leader_epoch)
}

/// How many trace events since `from` match.
fn count_since(sim: &Simulation, from: usize, f: impl Fn(&TraceKind) -> bool) -> usize {
    sim.trace()[from..].iter().filter(|e| f(&e.kind)).count()
}

/// Checks the frozen state for `ms` after killing the partition's leader,
/// then restarts `voter` and checks that the control plane catches up.
fn freeze_then_recover(sim: &mut Simulation, seed: u64, voter: u32) {
    let quorum = sim.view().quorum.expect("a quorum");
    assert_eq!(quorum.active, None, "seed {seed}: Active controller: none");
    assert!(quorum.metadata_frozen(), "seed {seed}");
    assert_eq!(quorum.controllers.iter().filter(|c| c.alive).count(), 1);

    let (leader, epoch) = leader_on(sim, 0);
    let old = leader.expect("a partition leader");
    let survivor = (0..3).find(|b| *b != old).unwrap();
    let mark = sim.trace().len();
    sim.command(Command::KillBroker { broker: old }).unwrap();
    run_for(sim, BROKER_SESSION_TIMEOUT_MS + 6_000);
    assert_eq!(sim.active_controller(), None, "seed {seed}: a single voter of three never leads");
    assert_eq!(count_since(sim, mark, |k| matches!(k, TraceKind::BrokerSessionExpired { .. })), 0, "seed {seed}: nobody fences");
    assert_eq!(
        count_since(sim, mark, |k| matches!(k, TraceKind::MetadataRecordAppended { .. })),
        0,
        "seed {seed}: no metadata record is written"
    );
    assert_eq!(leader_on(sim, survivor), (Some(old), epoch), "seed {seed}: the brokers still name the dead leader");

    sim.command(Command::RestartController { controller: voter }).unwrap();
    let restarted_at = sim.now_ms();
    while sim.active_controller().is_none() && sim.now_ms() < restarted_at + 10_000 {
        run_for(sim, 50);
    }
    let active = sim.active_controller().unwrap_or_else(|| panic!("seed {seed}: no active controller after a voter returned"));
    let quorum = sim.view().quorum.expect("a quorum");
    assert_eq!(quorum.active, Some(active));
    assert!(quorum.controllers.iter().any(|c| c.id == active && c.active));
    assert!(!quorum.metadata_frozen());
    // The new active controller gives every broker a fresh session, so the
    // dead one is fenced a session timeout later.
    run_for(sim, BROKER_SESSION_TIMEOUT_MS + 3_000);
    assert!(
        count_since(sim, mark, |k| matches!(k, TraceKind::BrokerSessionExpired { broker, .. } if *broker == old)) == 1,
        "seed {seed}: the dead broker is fenced once a majority is back"
    );
    let (new_leader, new_epoch) = leader_on(sim, survivor);
    assert!(new_leader.is_some() && new_leader != Some(old), "seed {seed}: a new leader: {new_leader:?}");
    assert_eq!(new_epoch, epoch + 1, "seed {seed}");
}

#[test]
fn two_followers_down_the_leader_resigns_by_check_quorum_and_metadata_freezes_until_a_voter_returns() {
    for seed in [1, 2, 3] {
        let mut sim = cluster(seed);
        sim.run_until(6_000);
        let active = sim.active_controller().expect("an active controller");
        let followers: Vec<u32> = (0..3).filter(|c| *c != active).collect();
        for c in &followers {
            sim.command(Command::KillController { controller: *c }).unwrap();
        }
        run_for(&mut sim, 1);
        assert_eq!(sim.active_controller(), Some(active), "seed {seed}: it has not noticed yet");
        run_for(&mut sim, 4_000);
        assert!(
            sim.trace().iter().any(|e| matches!(e.kind, TraceKind::Raft { controller, event: RaftEvent::Resigned { .. } } if controller == active)),
            "seed {seed}: check-quorum resignation"
        );
        freeze_then_recover(&mut sim, seed, followers[0]);
    }
}

#[test]
fn the_leader_and_a_follower_down_the_last_voter_cannot_win_an_election() {
    for seed in [4, 5] {
        let mut sim = cluster(seed);
        sim.run_until(6_000);
        let active = sim.active_controller().expect("an active controller");
        let follower = (0..3).find(|c| *c != active).unwrap();
        sim.command(Command::KillController { controller: active }).unwrap();
        sim.command(Command::KillController { controller: follower }).unwrap();
        run_for(&mut sim, 4_000);
        freeze_then_recover(&mut sim, seed, active);
    }
}

/// How many times brokers heard that a connection to a controller was
/// refused or reset, in the trace from `from` on.
fn controller_disconnects(sim: &Simulation, from: usize) -> usize {
    count_since(sim, from, |k| {
        matches!(k, TraceKind::Disconnected { node: kafkascope::sim::ids::NodeId::Broker(_), peer: kafkascope::sim::ids::NodeId::Controller(_), .. })
    })
}

/// Found by the restless-user driver (tests/restless.rs): with every
/// controller down, each refused control-plane request was sent again at
/// once, and a refused heartbeat sent the metadata fetch again beside the
/// one still on its way, so the refusals multiplied: events per simulated
/// second grew without end, and the page, which keeps every step, ran out
/// of memory within minutes of play. Kafka's NetworkClient waits
/// `reconnect.backoff.ms`, doubling to `reconnect.backoff.max.ms`, before
/// it connects to a node that refused it again.
#[test]
fn with_every_controller_down_the_brokers_retry_at_a_steady_backed_off_pace() {
    for seed in [1, 2] {
        let mut sim = cluster(seed);
        sim.run_until(6_000);
        for c in 0..3 {
            sim.command(Command::KillController { controller: c }).unwrap();
        }
        run_for(&mut sim, 10_000);
        // Two 30-second windows: each broker's lost requests (its heartbeat,
        // or its registration, and its metadata fetch) go again about once
        // a second, at the longest reconnect backoff.
        let first = sim.trace().len();
        run_for(&mut sim, 30_000);
        let second = sim.trace().len();
        run_for(&mut sim, 30_000);
        let (early, late) = (controller_disconnects(&sim, first) - controller_disconnects(&sim, second), controller_disconnects(&sim, second));
        let per_broker_at_most = 30 * 2 + 5;
        assert!(early <= 3 * per_broker_at_most, "seed {seed}: {early} refusals in 30 s");
        assert!(late <= early + 6, "seed {seed}: the pace does not grow: {early}, then {late}");
        // A majority back, and the brokers find the new active controller
        // within the longest backoff.
        sim.command(Command::RestartController { controller: 0 }).unwrap();
        sim.command(Command::RestartController { controller: 1 }).unwrap();
        run_for(&mut sim, 10_000);
        let view = sim.view();
        assert!(view.quorum.as_ref().is_some_and(|q| q.active.is_some()), "seed {seed}: an active controller");
        assert!(
            view.brokers.iter().all(|b| b.status == kafkascope::sim::view::BrokerStatus::Running),
            "seed {seed}: every broker is back in the metadata: {:?}",
            view.brokers.iter().map(|b| b.status).collect::<Vec<_>>()
        );
    }
}
