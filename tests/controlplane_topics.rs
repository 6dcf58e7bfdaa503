//! With a controller quorum, the active controller creates the topics by
//! appending records; brokers register, fetch the metadata log and apply it;
//! producers and consumers work end to end.

mod common;

use common::{acked, consumer, fetch, produce, producer, run_for};
use kafkascope::sim::config::{BrokerConfig, TopicSpec};
use kafkascope::sim::metadata::MetadataRecord;
use kafkascope::sim::ids::TopicPartition;
use kafkascope::sim::simulation::{MetadataSource, Simulation};
use kafkascope::sim::trace::TraceKind;

fn cluster(seed: u64) -> Simulation {
    let mut config = common::cluster(
        3,
        BrokerConfig::default(),
        vec![TopicSpec::new("orders", 3, 3), TopicSpec::new("audit", 1, 2)],
        vec![producer(-1), consumer()],
    );
    config.metadata = MetadataSource::quorum(3);
    Simulation::new(config, seed).expect("valid config")
}

#[test]
fn brokers_register_and_the_active_controller_creates_the_topics() {
    let mut sim = cluster(11);
    sim.run_until(6_000);
    let active = sim.active_controller().expect("an active controller");
    let registered: Vec<u32> = sim
        .trace()
        .iter()
        .filter_map(|e| match e.kind {
            TraceKind::BrokerRegistered { broker, .. } => Some(broker),
            _ => None,
        })
        .collect();
    for b in 0..3 {
        assert!(registered.contains(&b), "broker {b} registered");
        let control = sim.broker(b).unwrap().control().unwrap();
        assert_eq!(control.leader, Some(active));
        assert!(!control.fenced, "broker {b} is unfenced");
    }
    let appended: Vec<&MetadataRecord> = sim
        .trace()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::MetadataRecordAppended { record, .. } => Some(&**record),
            _ => None,
        })
        .collect();
    assert!(appended.iter().any(|r| matches!(r, MetadataRecord::Topic { name, partitions: 3 } if name == "orders")));
    assert_eq!(appended.iter().filter(|r| matches!(r, MetadataRecord::Partition(_))).count(), 4);
    // Every broker applied every partition and hosts its replicas with the
    // controller's leader and epoch 0.
    for p in 0..3 {
        let tp = TopicPartition::new("orders", p);
        let view = sim.view();
        let pv = view.partition("orders", p).unwrap();
        let leader = pv.leader.expect("a leader");
        assert_eq!(pv.replicas.len(), 3);
        assert_eq!(pv.replicas[0], leader, "the preferred replica leads");
        for b in 0..3 {
            let part = sim.broker(b).unwrap().partition(&tp).expect("replica created");
            assert_eq!(part.leader, Some(leader));
            assert_eq!(part.leader_epoch, 0);
        }
    }
    let audit = sim.view();
    assert_eq!(audit.partition("audit", 0).unwrap().replicas.len(), 2);
}

#[test]
fn produce_and_consume_work_end_to_end_with_three_controllers() {
    let mut sim = cluster(5);
    sim.run_until(6_000);
    for i in 0..6 {
        sim.command(produce(0, "orders", Some(&format!("k{i}")), &format!("v{i}"))).unwrap();
    }
    run_for(&mut sim, 2_000);
    assert_eq!(acked(&sim, 0).len(), 6, "every record acknowledged: {:?}", common::states(&sim, 0));
    for p in 0..3 {
        sim.command(fetch(1, "orders", p, Some(0))).unwrap();
    }
    run_for(&mut sim, 2_000);
    assert_eq!(sim.consumer(1).unwrap().consumed().len(), 6);
    // Followers replicated everything: each replica's LEO matches.
    for p in 0..3 {
        let tp = TopicPartition::new("orders", p);
        let leos: Vec<i64> = (0..3).map(|b| sim.broker(b).unwrap().partition(&tp).unwrap().log.log_end_offset()).collect();
        assert!(leos.iter().all(|l| *l == leos[0]), "{tp}: {leos:?}");
    }
}

#[test]
fn a_control_plane_run_is_deterministic() {
    let run = |seed| {
        let mut sim = cluster(seed);
        sim.run_until(5_000);
        sim.command(produce(0, "orders", None, "x")).unwrap();
        sim.run_until(8_000);
        sim.trace_hash()
    };
    assert_eq!(run(9), run(9));
}

/// KafkaProducer.waitOnMetadata: a record sent while the cluster still
/// boots, before any broker knows its topic, waits and asks again after the
/// refresh backoff until the active controller has created the topic; it
/// does not fail with UNKNOWN_TOPIC_OR_PARTITION on the first answer.
#[test]
fn a_record_sent_before_its_topic_exists_waits_for_the_topic() {
    let mut sim = cluster(11);
    sim.command(produce(0, "orders", Some("k"), "early")).unwrap();
    let created_at = |sim: &Simulation| {
        sim.trace().iter().find_map(|e| match &e.kind {
            TraceKind::MetadataRecordAppended { record, .. }
                if matches!(&**record, MetadataRecord::Topic { name, .. } if name == "orders") =>
            {
                Some(e.time_ms)
            }
            _ => None,
        })
    };
    let mut waited = 0;
    while acked(&sim, 0).is_empty() {
        assert!(waited < 10_000, "the early record was not acknowledged in 10 s: {:?}", common::states(&sim, 0));
        run_for(&mut sim, 10);
        waited += 10;
    }
    let created = created_at(&sim).expect("the topic was created");
    assert!(created > 500, "the record was sent well before the topic existed (created at {created} ms)");
    // It asked more than once while it waited: the answers before the
    // topic existed did not fail it.
    let asked = sim
        .trace()
        .iter()
        .filter(|e| e.time_ms < created && matches!(&e.kind, TraceKind::MetadataUpdated { client, .. } if *client == kafkascope::sim::ids::NodeId::Client(0)))
        .count();
    assert!(asked >= 3, "the producer had {asked} metadata answers before the topic existed");
}

/// max.block.ms bounds that wait: past it, send() fails with a
/// TimeoutException (REQUEST_TIMED_OUT's), here before the boot is done.
#[test]
fn a_record_waits_for_its_topic_at_most_max_block_ms() {
    use kafkascope::sim::client::producer::RecordState;
    use kafkascope::sim::config::ProducerConfig;
    use kafkascope::sim::protocol::ErrorCode;
    use kafkascope::sim::simulation::ClientSpec;
    let mut config = common::cluster(
        3,
        BrokerConfig::default(),
        vec![TopicSpec::new("orders", 3, 3)],
        vec![ClientSpec::Producer(ProducerConfig { max_block_ms: 300, ..Default::default() })],
    );
    config.metadata = MetadataSource::quorum(3);
    let mut sim = Simulation::new(config, 11).unwrap();
    sim.command(produce(0, "orders", None, "early")).unwrap();
    run_for(&mut sim, 299);
    assert_eq!(common::states(&sim, 0), [RecordState::AwaitingMetadata]);
    run_for(&mut sim, 1);
    assert_eq!(common::states(&sim, 0), [RecordState::Failed { error: ErrorCode::RequestTimedOut }]);
}
