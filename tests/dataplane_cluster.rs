//! Data plane, items 1 and 2: creating the cluster and its topics, with
//! Kafka's error for each bad request, replica placement, big clusters, and
//! the request path when there is more than one broker.

mod common;

use common::*;
use kafkascope::sim::config::{BrokerConfig, TopicConfig, TopicSpec};
use kafkascope::sim::ids::NodeId;
use kafkascope::sim::protocol::{ApiKey, ErrorCode};
use kafkascope::sim::simulation::{ClusterConfig, ConfigProblem, Simulation, MAX_BROKERS};
use kafkascope::sim::trace::{Direction, Stage, TraceKind};
use std::collections::{BTreeMap, BTreeSet};

fn refused(config: ClusterConfig) -> (ErrorCode, String) {
    let e = Simulation::new(config, 1).expect_err("the configuration must be refused");
    (e.error(), e.to_string())
}

fn with_topics(brokers: u32, topics: Vec<TopicSpec>) -> ClusterConfig {
    cluster(brokers, BrokerConfig::default(), topics, vec![producer(1)])
}

#[test]
fn a_replication_factor_above_the_broker_count_is_invalid_replication_factor() {
    let (error, message) = refused(with_topics(3, vec![TopicSpec::new("orders", 1, 4)]));
    assert_eq!(error, ErrorCode::InvalidReplicationFactor);
    assert_eq!(error.code(), 38);
    assert!(message.contains("orders"), "{message}");
    assert_eq!(
        Simulation::new(with_topics(3, vec![TopicSpec::new("orders", 1, 4)]), 1).unwrap_err().problem,
        ConfigProblem::ReplicationFactor { topic: "orders".into(), replication_factor: 4, brokers: 3 }
    );
    // Zero replicas is as invalid as too many; exactly the broker count is fine.
    assert_eq!(refused(with_topics(3, vec![TopicSpec::new("orders", 1, 0)])).0, ErrorCode::InvalidReplicationFactor);
    assert!(Simulation::new(with_topics(3, vec![TopicSpec::new("orders", 1, 3)]), 1).is_ok());
}

#[test]
fn zero_partitions_is_invalid_partitions() {
    let (error, _) = refused(with_topics(1, vec![TopicSpec::new("orders", 0, 1)]));
    assert_eq!(error, ErrorCode::InvalidPartitions);
    assert_eq!(error.code(), 37);
}

#[test]
fn a_second_topic_of_the_same_name_is_topic_already_exists() {
    let (error, message) = refused(with_topics(1, vec![TopicSpec::new("orders", 1, 1), TopicSpec::new("orders", 2, 1)]));
    assert_eq!(error, ErrorCode::TopicAlreadyExists);
    assert_eq!(error.code(), 36);
    assert!(message.contains("orders"), "{message}");
}

#[test]
fn invalid_topic_configs_are_invalid_config() {
    let cases: Vec<(&str, TopicConfig)> = vec![
        // Smaller than one record batch header (61 bytes): nothing could be stored.
        ("segment.bytes", TopicConfig { segment_bytes: 10, ..Default::default() }),
        ("segment.ms", TopicConfig { segment_ms: 0, ..Default::default() }),
        ("index.interval.bytes", TopicConfig { index_interval_bytes: -1, ..Default::default() }),
        ("retention.ms", TopicConfig { retention_ms: -2, ..Default::default() }),
        ("max.message.bytes", TopicConfig { max_message_bytes: -1, ..Default::default() }),
        ("min.insync.replicas", TopicConfig { min_insync_replicas: Some(0), ..Default::default() }),
    ];
    for (name, config) in cases {
        let spec = TopicSpec { config, ..TopicSpec::new("orders", 1, 1) };
        let (error, message) = refused(with_topics(1, vec![spec]));
        assert_eq!(error, ErrorCode::InvalidConfig, "{name}");
        assert_eq!(error.code(), 40);
        assert!(message.contains(name), "{name}: {message}");
    }
    // The smallest legal segment is one batch header.
    let spec = TopicSpec { config: TopicConfig { segment_bytes: 61, ..Default::default() }, ..TopicSpec::new("orders", 1, 1) };
    assert!(Simulation::new(with_topics(1, vec![spec]), 1).is_ok());
    // An illegal topic name is refused too.
    assert_eq!(refused(with_topics(1, vec![TopicSpec::new("a/b", 1, 1)])).0, ErrorCode::InvalidConfig);
}

#[test]
fn a_cluster_needs_between_one_and_max_brokers() {
    assert_eq!(refused(with_topics(0, vec![])).0, ErrorCode::InvalidConfig);
    assert_eq!(refused(with_topics(MAX_BROKERS + 1, vec![])).0, ErrorCode::InvalidConfig);
    assert!(Simulation::new(with_topics(MAX_BROKERS, vec![]), 1).is_ok());
}

#[test]
fn replica_placement_spreads_leaders_and_replicas_evenly() {
    for seed in 0..20 {
        let config = with_topics(6, vec![TopicSpec::new("orders", 12, 3), TopicSpec::new("audit", 6, 2)]);
        let sim = Simulation::new(config, seed).unwrap();
        let view = sim.view();
        for (topic, partitions, rf) in [("orders", 12u32, 3usize), ("audit", 6, 2)] {
            let mut leaders: BTreeMap<u32, u32> = BTreeMap::new();
            let mut hosted: BTreeMap<u32, u32> = BTreeMap::new();
            for p in 0..partitions {
                let pv = view.partition(topic, p).unwrap();
                let distinct: BTreeSet<u32> = pv.replicas.iter().copied().collect();
                assert_eq!(distinct.len(), rf, "seed {seed} {topic}-{p}: replicas {:?} repeat a broker", pv.replicas);
                // The preferred (first) replica leads, and everyone starts in sync.
                assert_eq!(pv.leader, Some(pv.replicas[0]), "seed {seed} {topic}-{p}");
                assert_eq!(pv.isr, pv.replicas, "seed {seed} {topic}-{p}");
                *leaders.entry(pv.leader.unwrap()).or_default() += 1;
                for r in &pv.replicas {
                    *hosted.entry(*r).or_default() += 1;
                    // The broker itself holds the replica and agrees who leads.
                    let rv = view.replica(topic, p, *r).unwrap();
                    assert_eq!(rv.is_leader, Some(*r) == pv.leader, "seed {seed} {topic}-{p} on {r}");
                }
            }
            let each = partitions / 6;
            assert!(
                (0..6).all(|b| leaders.get(&b).copied().unwrap_or(0) == each),
                "seed {seed} {topic}: leaders {leaders:?}, expected {each} each"
            );
            assert!(
                (0..6).all(|b| hosted.get(&b).copied().unwrap_or(0) == each * rf as u32),
                "seed {seed} {topic}: replicas per broker {hosted:?}"
            );
        }
    }
}

#[test]
fn thirty_brokers_replicate_and_serve_every_partition() {
    let config = cluster(30, BrokerConfig::default(), vec![TopicSpec::new("wide", 60, 3)], vec![producer(-1), consumer()]);
    let mut sim = Simulation::new(config, 5).unwrap();
    let partitions = 60;
    for p in 0..partitions {
        sim.command(produce_to(0, "wide", p, Some(&format!("k{p}")), &format!("v{p}"))).unwrap();
    }
    run_for(&mut sim, 3_000);
    assert_eq!(acked(&sim, 0), vec![0; partitions as usize], "every partition acknowledged its first record at offset 0");
    let view = sim.view();
    let leaders: BTreeSet<u32> = (0..partitions).map(|p| view.partition("wide", p).unwrap().leader.unwrap()).collect();
    assert_eq!(leaders.len(), 30, "60 partitions over 30 brokers: every broker leads some");
    for p in 0..partitions {
        let pv = view.partition("wide", p).unwrap();
        assert_eq!(pv.high_watermark, 1, "wide-{p}");
        assert_eq!(pv.replica_offsets.len(), 3);
        for (b, leo, _) in &pv.replica_offsets {
            assert_eq!(*leo, 1, "wide-{p} on broker {b}");
        }
    }
    for p in [0, 29, 59] {
        sim.command(common::fetch(1, "wide", p, Some(0))).unwrap();
    }
    run_for(&mut sim, 500);
    let consumed: Vec<String> = sim.consumer(1).unwrap().consumed().iter().map(|r| r.value.clone().unwrap()).collect();
    assert_eq!(consumed.len(), 3);
    for p in [0, 29, 59] {
        assert!(consumed.contains(&format!("v{p}")), "{consumed:?}");
    }
}

#[test]
fn a_producer_sends_one_request_per_leader_through_each_brokers_own_path() {
    // Three partitions, one replica each, led by three different brokers.
    let config = cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 3, 1)], vec![producer(1)]);
    let mut sim = Simulation::new(config, 3).unwrap();
    let leaders: Vec<u32> = (0..3).map(|p| leader_of(&sim, "orders", p)).collect();
    let distinct: BTreeSet<u32> = leaders.iter().copied().collect();
    assert_eq!(distinct.len(), 3, "leaders {leaders:?}");
    // A first record fetches metadata; then three at once, one per partition.
    sim.command(produce_to(0, "orders", 0, None, "warm-up")).unwrap();
    run_for(&mut sim, 100);
    let before = sent_requests(sim.trace(), NodeId::Client(0), ApiKey::Produce).len();
    for p in 0..3 {
        sim.command(produce_to(0, "orders", p, None, "x")).unwrap();
    }
    run_for(&mut sim, 100);
    let requests = sent_requests(sim.trace(), NodeId::Client(0), ApiKey::Produce);
    let new: Vec<_> = requests[before..].to_vec();
    assert_eq!(new.len(), 3, "one ProduceRequest per leader: {new:?}");
    let mut destinations = BTreeSet::new();
    for r in &new {
        let events = events_of(sim.trace(), *r);
        let to = events
            .iter()
            .find_map(|e| match &e.kind {
                TraceKind::Sent { direction: Direction::Request, to: NodeId::Broker(b), .. } => Some(*b),
                _ => None,
            })
            .unwrap();
        destinations.insert(to);
        // Every broker-side hop of this request happens on the broker it was sent to.
        let stages: Vec<(Stage, Stage)> = events
            .iter()
            .filter_map(|e| match &e.kind {
                TraceKind::Hop { from, to: t, .. } if e.node == NodeId::Broker(to) => Some((*from, *t)),
                TraceKind::Hop { .. } => {
                    assert_eq!(e.node, NodeId::Client(0), "{r}: a hop on a third node");
                    None
                }
                _ => None,
            })
            .collect();
        assert_eq!(stages.first(), Some(&(Stage::Wire, Stage::SocketReceiveBuffer)), "{r}");
        assert!(stages.contains(&(Stage::IoThread(0), Stage::LogAppend)) || stages.contains(&(Stage::IoThread(1), Stage::LogAppend)));
        assert!(matches!(stages.last(), Some((Stage::NetworkThread(_), Stage::SocketSendBuffer))), "{r}: {stages:?}");
    }
    assert_eq!(destinations, distinct);
    assert_eq!(acked(&sim, 0), vec![0, 1, 0, 0], "each partition numbers its own offsets");
}

#[test]
fn follower_fetches_travel_the_leaders_request_path() {
    let config = cluster(2, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 2)], vec![producer(1)]);
    let mut sim = Simulation::new(config, 1).unwrap();
    let leader = leader_of(&sim, "orders", 0);
    let follower = followers_of(&sim, "orders", 0)[0];
    sim.command(produce_to(0, "orders", 0, None, "v")).unwrap();
    run_for(&mut sim, 200);
    // The follower's fetch that carried the record: find the follower's append.
    let carrier = sim
        .trace()
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::Appended { request, replica, .. } if *replica == follower => Some(*request),
            _ => None,
        })
        .expect("the follower appended the record");
    assert_eq!(carrier.client, NodeId::Broker(follower));
    let hops: Vec<(NodeId, Direction, Stage, Stage)> = events_of(sim.trace(), carrier)
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Hop { direction, from, to, api: ApiKey::Fetch, .. } => Some((e.node, *direction, *from, *to)),
            _ => None,
        })
        .collect();
    let l = NodeId::Broker(leader);
    let f = NodeId::Broker(follower);
    let on_leader: Vec<(Stage, Stage)> = hops.iter().filter(|h| h.0 == l).map(|h| (h.2, h.3)).collect();
    // Request: socket, network thread, request queue, I/O thread, log read.
    // It found nothing at first and waited in purgatory for the append.
    assert_eq!(on_leader[0], (Stage::Wire, Stage::SocketReceiveBuffer));
    assert!(matches!(on_leader[1], (Stage::SocketReceiveBuffer, Stage::NetworkThread(_))));
    assert!(matches!(on_leader[2], (Stage::NetworkThread(_), Stage::RequestQueue)));
    assert!(matches!(on_leader[3], (Stage::RequestQueue, Stage::IoThread(_))));
    assert!(matches!(on_leader[4], (Stage::IoThread(_), Stage::LogRead)));
    assert_eq!(on_leader[5], (Stage::LogRead, Stage::Purgatory));
    assert!(matches!(on_leader[6], (Stage::Purgatory, Stage::ResponseQueue(_))));
    assert!(matches!(on_leader.last(), Some((Stage::NetworkThread(_), Stage::SocketSendBuffer))));
    // The answer ends in the follower's replica fetcher for that leader.
    assert_eq!(hops.last().map(|h| (h.0, h.2, h.3)), Some((f, Stage::Wire, Stage::ReplicaFetcher(leader))));
}
