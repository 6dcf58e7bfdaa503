//! Data plane, item 7: replication. Followers converge on the leader's log,
//! the high watermark is the smallest LEO of the ISR, the ISR shrinks by time
//! (replica.lag.time.max.ms) and grows back, and a follower whose log
//! diverged truncates when the leader answers with a diverging epoch.

mod common;

use common::harness::{self, Harness};
use common::*;
use kafkascope::sim::config::{BrokerConfig, TopicConfig, TopicSpec};
use kafkascope::sim::ids::{NodeId, RequestId, TopicPartition};
use kafkascope::sim::protocol::{ApiKey, FetchPartitionResponse, Message, RequestBody, Response, ResponseBody};
use kafkascope::sim::record::batch;
use kafkascope::sim::simulation::Simulation;
use kafkascope::sim::trace::{Stage, TraceKind};
use std::collections::BTreeMap;

/// Checks, after a step, what must hold for every partition at every moment.
fn check_invariants(sim: &Simulation, last_hw: &mut BTreeMap<(String, u32), i64>) {
    let view = sim.view();
    for pv in &view.partitions {
        let leader = pv.leader.unwrap();
        let lr = view.replica(&pv.topic, pv.partition, leader).unwrap();
        let ctx = format!("{}-{} at {} ms (step {})", pv.topic, pv.partition, view.time_ms, view.step);
        // HW = the smallest LEO among the leader and the ISR, as the leader knows them.
        let mut min_leo = lr.log_end_offset;
        for f in lr.followers.iter().filter(|f| f.in_isr) {
            min_leo = min_leo.min(f.log_end_offset);
        }
        assert_eq!(lr.high_watermark, min_leo.max(0), "{ctx}: HW vs the ISR's LEOs {:?}", lr.followers);
        // Safety: every ISR member really holds everything below the HW.
        for r in &lr.isr {
            let actual = view.replica(&pv.topic, pv.partition, *r).unwrap().log_end_offset;
            assert!(lr.high_watermark <= actual, "{ctx}: HW {} above broker {r}'s LEO {actual}", lr.high_watermark);
        }
        // The leader's HW never goes back; a follower's never passes it.
        let key = (pv.topic.clone(), pv.partition);
        let previous = last_hw.insert(key, lr.high_watermark).unwrap_or(0);
        assert!(lr.high_watermark >= previous, "{ctx}: HW went back from {previous}");
        for (b, leo, hw) in &pv.replica_offsets {
            assert!(*hw <= lr.high_watermark && *hw <= *leo, "{ctx}: broker {b} LEO {leo} HW {hw}");
            assert!(*leo <= lr.log_end_offset, "{ctx}: follower {b} ahead of the leader");
        }
    }
}

#[test]
fn followers_converge_and_the_high_watermark_is_the_isrs_smallest_leo_at_every_step() {
    let config = cluster(
        3,
        BrokerConfig::default(),
        vec![TopicSpec::new("orders", 2, 3), TopicSpec::new("audit", 1, 2)],
        vec![producer(1), producer(-1)],
    );
    let mut sim = Simulation::new(config, 44).unwrap();
    let mut last_hw = BTreeMap::new();
    for round in 0..20 {
        for (client, topic) in [(0, "orders"), (1, "orders"), (0, "audit")] {
            sim.command(common::produce(client, topic, Some(&format!("k{round}-{client}")), "v")).unwrap();
        }
        let until = sim.now_ms() + 4;
        while sim.next_event_ms().is_some_and(|t| t <= until) {
            sim.step();
            check_invariants(&sim, &mut last_hw);
        }
        sim.run_until(until);
    }
    while sim.next_event_ms().is_some_and(|t| t <= 3_000) {
        sim.step();
        check_invariants(&sim, &mut last_hw);
    }
    // Converged: every replica has the leader's LEO and, one fetch later, its HW.
    let view = sim.view();
    let mut total = 0;
    for pv in &view.partitions {
        let leader = pv.leader.unwrap();
        let leo = view.replica(&pv.topic, pv.partition, leader).unwrap().log_end_offset;
        total += leo;
        assert_eq!(pv.high_watermark, leo, "{}-{}", pv.topic, pv.partition);
        for (b, r_leo, r_hw) in &pv.replica_offsets {
            assert_eq!((*r_leo, *r_hw), (leo, leo), "{}-{} on broker {b}", pv.topic, pv.partition);
        }
        let tp = TopicPartition::new(pv.topic.clone(), pv.partition);
        let reference = segment_bytes(&sim, leader, &tp);
        for b in &pv.replicas {
            assert_eq!(segment_bytes(&sim, *b, &tp), reference, "{tp} on broker {b}");
        }
    }
    assert_eq!(total, 60);
}

/// Followers whose fetches wait 5 s for a megabyte, with a 1 s lag limit.
fn stalled(lag_ms: u64) -> Simulation {
    let broker = BrokerConfig {
        replica_lag_time_max_ms: lag_ms,
        replica_fetch_min_bytes: 1_000_000,
        replica_fetch_wait_max_ms: 5_000,
        ..Default::default()
    };
    Simulation::new(cluster(3, broker, vec![TopicSpec::new("orders", 1, 3)], vec![producer(1)]), 19).unwrap()
}

/// When the leader handled each fetch of `follower` (its fetch time).
fn follower_fetch_times(sim: &Simulation, leader: u32, follower: u32) -> Vec<u64> {
    sim.trace()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Hop { request, api: ApiKey::Fetch, to: Stage::LogRead, .. }
                if e.node == NodeId::Broker(leader) && request.client == NodeId::Broker(follower) =>
            {
                Some(e.time_ms)
            }
            _ => None,
        })
        .collect()
}

#[test]
fn the_isr_shrinks_after_replica_lag_time_max_ms_and_grows_back() {
    let lag = 1_000;
    let mut sim = stalled(lag);
    sim.run_until(100);
    sim.command(common::produce(0, "orders", Some("k"), "v")).unwrap();
    sim.run_until(8_000);
    let leader = leader_of(&sim, "orders", 0);
    let followers = followers_of(&sim, "orders", 0);
    let trace = sim.trace();
    let append_time = trace.iter().find(|e| matches!(e.kind, TraceKind::Appended { .. })).unwrap().time_ms;
    let shrinks: Vec<(u64, Vec<u32>, Vec<u32>)> = trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::IsrShrunk { removed, isr, .. } => Some((e.time_ms, removed.to_vec(), isr.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(shrinks.len(), 1, "{shrinks:?}");
    let (shrunk_at, removed, isr) = &shrinks[0];
    let mut removed = removed.clone();
    removed.sort();
    let mut expected = followers.clone();
    expected.sort();
    assert_eq!(removed, expected);
    assert_eq!(isr, &vec![leader]);
    for f in &followers {
        // Last caught up: its last fetch before the append (it fetched from the LEO then).
        let caught_up = *follower_fetch_times(&sim, leader, *f).iter().rfind(|t| **t <= append_time).unwrap();
        assert!(shrunk_at - caught_up > lag, "follower {f} removed {} ms after it was caught up", shrunk_at - caught_up);
        // The check runs every lag/2; the one before did not find it late yet.
        assert!(shrunk_at - lag / 2 - caught_up <= lag, "follower {f} removed a check too late");
    }
    // The HW moves to the leader's LEO once the ISR is the leader alone.
    let hw_after_shrink = trace
        .iter()
        .find(|e| e.time_ms == *shrunk_at && matches!(&e.kind, TraceKind::HighWatermarkAdvanced { to: 1, .. }));
    assert!(hw_after_shrink.is_some(), "a smaller ISR releases the HW");
    // Their fetches time out after 5 s; they catch up and rejoin.
    let expansions: Vec<(u64, u32, i64)> = trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::IsrExpanded { replica, follower_leo, .. } => Some((e.time_ms, *replica, *follower_leo)),
            _ => None,
        })
        .collect();
    assert_eq!(expansions.len(), 2, "{expansions:?}");
    for (at, f, leo) in &expansions {
        assert!(*at > 5_000 && *at > *shrunk_at);
        assert_eq!(*leo, 1, "follower {f} rejoined with the record");
        let appended = trace
            .iter()
            .find(|e| matches!(&e.kind, TraceKind::Appended { replica, .. } if replica == f))
            .unwrap()
            .time_ms;
        assert!(appended <= *at);
    }
    assert_eq!(sim.view().partition("orders", 0).unwrap().isr.len(), 3);
}

#[test]
fn lag_is_time_not_messages() {
    // An idle, caught-up cluster keeps its ISR for as long as it runs ...
    let config = cluster(3, BrokerConfig { replica_lag_time_max_ms: 1_000, ..Default::default() }, vec![TopicSpec::new("orders", 1, 3)], vec![producer(1)]);
    let mut sim = Simulation::new(config, 2).unwrap();
    sim.run_until(100_000);
    assert!(!sim.trace().iter().any(|e| matches!(e.kind, TraceKind::IsrShrunk { .. })));
    // ... and followers hundreds of messages behind stay in it while they keep up in time.
    for i in 0..300 {
        sim.command(common::produce(0, "orders", Some(&format!("k{i}")), "v")).unwrap();
    }
    run_for(&mut sim, 10_000);
    assert_eq!(acked(&sim, 0).len(), 300);
    assert!(!sim.trace().iter().any(|e| matches!(e.kind, TraceKind::IsrShrunk { .. })));
    assert_eq!(sim.view().partition("orders", 0).unwrap().isr.len(), 3);
    assert_eq!(sim.view().partition("orders", 0).unwrap().high_watermark, 300);
}

// ----- Truncation through the diverging-epoch answer -----
//
// Without a control plane no leader changes inside a run, so a follower
// cannot come by a divergent log the natural way (by having been leader).
// These tests give it one through its own fetch path: its first fetch is
// answered by the test, as an old leader of epoch 0 would have answered,
// with records the real leader (epoch 1) never had. Everything after that is
// the brokers' own doing.

fn diverged_pair() -> (Harness, TopicPartition) {
    let tp = TopicPartition::new("orders", 0);
    let image = harness::metadata(&[0, 1], &[(tp.clone(), vec![0, 1], 0, 1, vec![0, 1])]);
    let topics = [("orders".to_string(), TopicConfig::default())].into_iter().collect();
    let mut h = Harness::new(BrokerConfig::default(), vec![(0, image.clone()), (1, image)], &topics);
    h.deliver_between_brokers = false;
    h.run_until(0);
    // The leader, at epoch 1, takes five records from a client.
    h.send(NodeId::Client(0), 0, harness::produce_request(0, 1, &tp, 1, 30_000, harness::batch(&["n0", "n1", "n2", "n3", "n4"], 0)));
    h.run_until(20);
    assert_eq!(h.broker(0).partition(&tp).unwrap().log.log_end_offset(), 5);
    (h, tp)
}

/// The follower's fetch waiting in the outbox, and its correlation id.
fn held_fetch(h: &mut Harness) -> (RequestId, Message) {
    let mut sent = h.take_sent_to(NodeId::Broker(0));
    assert_eq!(sent.len(), 1, "one fetch in flight at a time");
    let s = sent.remove(0);
    match &s.msg {
        Message::Request(r) => {
            assert!(matches!(r.body, RequestBody::Fetch(_)));
            (r.id, s.msg.clone())
        }
        _ => panic!("not a request"),
    }
}

/// Answers the follower's fetch as an old leader of epoch 0 would: three
/// records at offsets 0..=2, stamped with epoch 0.
fn answer_as_old_leader(h: &mut Harness, id: RequestId, tp: &TopicPartition) {
    let mut b = batch::BatchBuilder::new(0, 0).partition_leader_epoch(0);
    for v in ["o0", "o1", "o2"] {
        b.append(0, Some(b"k".as_slice()), Some(v.as_bytes()), &[]).unwrap();
    }
    let response = Response {
        id,
        api_key: ApiKey::Fetch,
        body: ResponseBody::Fetch {
            error: kafkascope::sim::protocol::ErrorCode::None,
            partitions: vec![FetchPartitionResponse {
                partition: tp.clone(),
                error: kafkascope::sim::protocol::ErrorCode::None,
                high_watermark: 0,
                log_start_offset: 0,
                diverging_epoch: None,
                records: b.build(),
            }],
        },
    };
    h.send(NodeId::Broker(0), 1, Message::Response(response));
    h.run_until(h.now_ms + 5);
}

#[test]
fn a_diverged_follower_truncates_to_the_leaders_epoch_end_and_refetches() {
    let (mut h, tp) = diverged_pair();
    let (id, _) = held_fetch(&mut h);
    answer_as_old_leader(&mut h, id, &tp);
    let follower = h.broker(1).partition(&tp).unwrap();
    assert_eq!(follower.log.log_end_offset(), 3);
    assert_eq!(follower.log.latest_epoch(), Some(0));
    // From here on the two brokers talk to each other.
    let (_, next) = held_fetch(&mut h);
    match &next {
        Message::Request(r) => match &r.body {
            RequestBody::Fetch(f) => {
                assert_eq!((f.partitions[0].fetch_offset, f.partitions[0].last_fetched_epoch), (3, Some(0)));
            }
            _ => unreachable!(),
        },
        _ => unreachable!(),
    }
    h.deliver_between_brokers = true;
    h.send(NodeId::Broker(1), 0, next);
    h.run_until(200);
    // The leader's epoch 1 starts at 0, so epoch 0 ends at 0 on the leader:
    // the follower truncates everything it had and fetches the leader's records.
    let truncations: Vec<(i64, i32)> = h
        .trace
        .iter()
        .filter_map(|t| match &t.2 {
            TraceKind::FollowerTruncated { to_offset, epoch, replica: 1, .. } => Some((*to_offset, *epoch)),
            _ => None,
        })
        .collect();
    assert_eq!(truncations, vec![(0, 0)]);
    let leader = h.broker(0).partition(&tp).unwrap();
    let follower = h.broker(1).partition(&tp).unwrap();
    assert_eq!(follower.log.log_end_offset(), 5);
    let bytes = |p: &kafkascope::sim::broker::partition::Partition| -> Vec<Vec<u8>> {
        p.log.segments().iter().map(|s| s.log_bytes().to_vec()).collect()
    };
    assert_eq!(bytes(follower), bytes(leader), "the follower now holds exactly the leader's log");
    assert_eq!(follower.log.epoch_cache().entries(), leader.log.epoch_cache().entries());
    assert_eq!(leader.high_watermark, 5);
}

#[test]
fn a_diverging_fetch_does_not_count_as_the_followers_progress() {
    // Kafka's Partition.fetchRecords skips updateFollowerFetchState when the
    // answer carries a diverging epoch: the fetch offset of a diverged log
    // says nothing about the leader's records, so it must not move the HW
    // (or release an acks=all produce, or grow the ISR).
    let (mut h, tp) = diverged_pair();
    let (id, _) = held_fetch(&mut h);
    answer_as_old_leader(&mut h, id, &tp);
    let (_, next) = held_fetch(&mut h);
    h.send(NodeId::Broker(1), 0, next);
    h.run_until(h.now_ms + 10);
    // The leader answered with a diverging epoch ...
    let answer = h.take_sent_to(NodeId::Broker(1));
    let diverging = answer.iter().find_map(|s| match &s.msg {
        Message::Response(Response { body: ResponseBody::Fetch { partitions, .. }, .. }) => partitions[0].diverging_epoch,
        _ => None,
    });
    assert_eq!(diverging.map(|d| (d.epoch, d.end_offset)), Some((0, 0)));
    // ... and its HW did not move on the strength of the follower's offset 3.
    let leader = h.broker(0).partition(&tp).unwrap();
    assert_eq!(leader.high_watermark, 0, "offsets 0..3 of the follower are not the leader's records");
    assert_eq!(leader.followers[&1].log_end_offset, -1, "the leader still does not know the follower's LEO");
}
