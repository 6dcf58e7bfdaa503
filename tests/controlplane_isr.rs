//! ISR changes with a controller quorum, as KIP-497 and KIP-841 make them:
//! a leader proposes one change at a time with AlterPartition and keeps it
//! pending until the controller commits it; only an unfenced broker that is
//! not shutting down may join; a lost request is sent again.

mod common;

use common::{produce_to, run_for};
use kafkascope::sim::config::{BrokerConfig, ProducerConfig, TopicConfig, TopicSpec};
use kafkascope::sim::control_plane::ControlRpc;
use kafkascope::sim::metadata::MetadataRecord;
use kafkascope::sim::ids::{NodeId, TopicPartition};
use kafkascope::sim::protocol::ControlPlaneRpc;
use kafkascope::sim::simulation::{ClientSpec, Command, MetadataSource, NodeSet, Simulation};
use kafkascope::sim::trace::{TraceEvent, TraceKind};

const SEEDS: [u64; 3] = [1, 2, 3];

/// Three brokers and three controllers, one partition of "orders" on all
/// three, min.insync.replicas 3, and an acks=all producer; booted.
fn cluster(seed: u64) -> Simulation {
    let producer = ClientSpec::Producer(ProducerConfig { acks: -1, linger_ms: 0, ..Default::default() });
    let mut topic = TopicSpec::new("orders", 1, 3);
    topic.config = TopicConfig { min_insync_replicas: Some(3), ..TopicConfig::default() };
    let mut config = common::cluster(3, BrokerConfig::default(), vec![topic], vec![producer]);
    config.metadata = MetadataSource::quorum(3);
    let mut sim = Simulation::new(config, seed).expect("valid config");
    sim.run_until(6_000);
    sim
}

fn orders() -> TopicPartition {
    TopicPartition::new("orders", 0)
}

fn brokers(ids: &[u32]) -> NodeSet {
    NodeSet { brokers: ids.to_vec(), ..Default::default() }
}

fn leader(sim: &Simulation) -> u32 {
    sim.broker(0).unwrap().partition(&orders()).unwrap().leader.expect("a leader")
}

/// The booted cluster with a follower cut off from its leader and a record
/// produced that it cannot fetch: (simulation, leader, follower).
fn follower_cut_off_from_its_leader(seed: u64) -> (Simulation, u32, u32) {
    let mut sim = cluster(seed);
    let leader = leader(&sim);
    let follower = (0..3).find(|b| *b != leader).unwrap();
    sim.command(Command::Partition { a: brokers(&[follower]), b: brokers(&[leader]) }).unwrap();
    run_for(&mut sim, 1_000);
    sim.command(produce_to(0, "orders", 0, None, "while cut off")).unwrap();
    (sim, leader, follower)
}

/// Steps until an event matches, within `window_ms`; the event.
fn step_until(sim: &mut Simulation, window_ms: u64, wanted: impl Fn(&TraceEvent) -> bool) -> Option<TraceEvent> {
    let (from, until) = (sim.trace().len(), sim.now_ms() + window_ms);
    let mut seen = from;
    while sim.now_ms() <= until && sim.step() {
        if let Some(e) = sim.trace()[seen..].iter().find(|e| wanted(e)) {
            return Some(e.clone());
        }
        seen = sim.trace().len();
    }
    None
}

/// A follower cut off from its leader until the ISR drops it, then healed:
/// the leader's expansion stays pending until the controller commits it. It
/// counts for the high watermark at once (the maximal ISR), but not for
/// min.insync.replicas, which counts the committed ISR only.
#[test]
fn a_pending_isr_expansion_counts_for_the_high_watermark_but_not_for_min_insync_replicas() {
    for seed in SEEDS {
        let (mut sim, leader, follower) = follower_cut_off_from_its_leader(seed);
        run_for(&mut sim, 60_000);
        let committed = sim.broker(leader).unwrap().partition(&orders()).unwrap().isr.clone();
        assert!(!committed.contains(&follower), "seed {seed}: the follower left the ISR, {committed:?}");

        sim.command(Command::Heal).unwrap();
        let proposed = step_until(&mut sim, 60_000, |e| {
            e.node == NodeId::Broker(leader) && matches!(&e.kind, TraceKind::IsrExpanded { replica, .. } if *replica == follower)
        })
        .unwrap_or_else(|| panic!("seed {seed}: the leader proposed the follower back"));
        let p = sim.broker(leader).unwrap().partition(&orders()).unwrap();
        assert_eq!(p.isr, committed, "seed {seed}: the committed ISR is unchanged while the expansion is pending");
        let pending = p.pending_isr.clone().unwrap_or_else(|| panic!("seed {seed}: the expansion is pending"));
        assert!(pending.contains(&follower) && p.maximal_isr().contains(&follower), "seed {seed}: {pending:?}");
        assert!(
            (p.isr.len() as u32) < p.min_insync_replicas(),
            "seed {seed}: min.insync.replicas 3 is still not met by the committed ISR {:?}",
            p.isr
        );
        let view = sim.view();
        let r = view.replica("orders", 0, leader).unwrap();
        assert_eq!((r.isr.clone(), r.pending_isr.clone()), (committed.clone(), Some(pending.clone())), "seed {seed}");

        // The controller commits it; the leader applies the record, and the
        // pending state ends.
        step_until(&mut sim, 10_000, |e| {
            matches!(&e.kind, TraceKind::MetadataRecordApplied { broker, record, .. }
                if *broker == leader
                    && matches!(&**record, MetadataRecord::PartitionChange { isr, .. } if isr.contains(&follower)))
        })
        .unwrap_or_else(|| panic!("seed {seed}: the expansion proposed at {} ms was committed", proposed.time_ms));
        let p = sim.broker(leader).unwrap().partition(&orders()).unwrap();
        assert!(p.isr.contains(&follower) && p.pending_isr.is_none(), "seed {seed}: ISR {:?}, pending {:?}", p.isr, p.pending_isr);
    }
}

/// A follower cut off from the controllers but not from its leader is
/// fenced and leaves the ISR, yet keeps fetching and stays caught up. A
/// fenced broker is not ISR-eligible, so the leader does not propose it,
/// instead of asking the controller on every fetch and being refused with
/// INELIGIBLE_REPLICA every time. Unfenced after the heal, it joins.
#[test]
fn a_caught_up_but_fenced_follower_is_not_proposed_for_the_isr_until_it_is_unfenced() {
    for seed in SEEDS {
        let mut sim = cluster(seed);
        let leader = leader(&sim);
        let follower = (0..3).find(|b| *b != leader).unwrap();
        let all_controllers = NodeSet { controllers: vec![0, 1, 2], ..Default::default() };
        sim.command(Command::Partition { a: brokers(&[follower]), b: all_controllers }).unwrap();
        let from = sim.trace().len();
        run_for(&mut sim, 30_000);
        let isr = sim.broker(leader).unwrap().partition(&orders()).unwrap().isr.clone();
        assert!(!isr.contains(&follower), "seed {seed}: the fenced follower left the ISR, {isr:?}");
        let proposals = sim.trace()[from..]
            .iter()
            .filter(|e| e.node == NodeId::Broker(leader))
            .filter(|e| matches!(&e.kind, TraceKind::IsrExpanded { replica, .. } if *replica == follower))
            .count();
        assert_eq!(proposals, 0, "seed {seed}: the leader proposed a fenced broker {proposals} times");
        let requests = sim.trace()[from..]
            .iter()
            .filter(|e| e.node == NodeId::Broker(leader))
            .filter(|e| matches!(e.kind, TraceKind::RaftSent { rpc: ControlPlaneRpc::BrokerControl(ControlRpc::AlterPartition), .. }))
            .count();
        assert_eq!(requests, 0, "seed {seed}: the leader sent {requests} AlterPartition requests");

        sim.command(Command::Heal).unwrap();
        run_for(&mut sim, 20_000);
        let isr = sim.broker(leader).unwrap().partition(&orders()).unwrap().isr.clone();
        assert!(isr.contains(&follower), "seed {seed}: unfenced, it joined the ISR again, {isr:?}");
    }
}

/// An AlterPartition lost with the active controller that was to commit it
/// is sent again (AlterPartitionManager through the controller channel, which
/// queues a request lost to a disconnect again), so the ISR change is
/// committed by the next active controller instead of staying pending for
/// good, which would block every later ISR change of the partition.
#[test]
fn an_alter_partition_lost_with_the_active_controller_is_sent_again_and_committed() {
    for seed in SEEDS {
        let (mut sim, leader, follower) = follower_cut_off_from_its_leader(seed);
        step_until(&mut sim, 60_000, |e| {
            e.node == NodeId::Broker(leader) && matches!(&e.kind, TraceKind::IsrShrunk { removed, .. } if removed.contains(&follower))
        })
        .unwrap_or_else(|| panic!("seed {seed}: the leader proposed the shrink"));
        // The request is on its way: kill the controller it went to.
        let active = sim.active_controller().unwrap_or_else(|| panic!("seed {seed}: an active controller"));
        sim.command(Command::KillController { controller: active }).unwrap();
        run_for(&mut sim, 20_000);
        let p = sim.broker(leader).unwrap().partition(&orders()).unwrap();
        assert!(
            !p.isr.contains(&follower) && p.pending_isr.is_none(),
            "seed {seed}: the shrink was committed after the controller died, ISR {:?}, pending {:?}",
            p.isr,
            p.pending_isr
        );
    }
}
