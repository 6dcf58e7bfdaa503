//! Data plane, item 5: purgatory. A DelayedProduce waits for the high
//! watermark and is released by the follower fetch that moves it, or expires
//! with REQUEST_TIMED_OUT while its records stay in the log. A DelayedFetch
//! waits for fetch.min.bytes up to fetch.max.wait.ms and is woken by an
//! append (a consumer's: by the high watermark moving).

mod common;

use common::harness::{self, Harness};
use common::*;
use kafkascope::sim::config::{BrokerConfig, TopicConfig, TopicSpec};
use kafkascope::sim::ids::{NodeId, RequestId, TopicPartition};
use kafkascope::sim::protocol::{ApiKey, ErrorCode};
use kafkascope::sim::simulation::Simulation;
use kafkascope::sim::trace::{Direction, Stage, TraceEvent, TraceKind, WaitReason};

fn parked(events: &[&TraceEvent]) -> Option<(u64, u64, Vec<WaitReason>)> {
    events.iter().find_map(|e| match &e.kind {
        TraceKind::Parked { timeout_ms, waits, .. } => Some((e.time_ms, *timeout_ms, waits.clone())),
        _ => None,
    })
}

fn completion(events: &[&TraceEvent]) -> Option<(u64, u64, bool)> {
    events.iter().find_map(|e| match &e.kind {
        TraceKind::PurgatoryCompleted { expired, .. } => Some((e.time_ms, e.step, *expired)),
        _ => None,
    })
}

fn consumer_fetches(sim: &Simulation, client: u32) -> Vec<RequestId> {
    sent_requests(sim.trace(), NodeId::Client(client), ApiKey::Fetch)
}

#[test]
fn a_delayed_produce_is_released_by_the_follower_fetch_that_moves_the_high_watermark() {
    let config = cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 3)], vec![producer(-1)]);
    let mut sim = Simulation::new(config, 31).unwrap();
    sim.command(common::produce(0, "orders", Some("k"), "v")).unwrap();
    run_for(&mut sim, 500);
    assert_eq!(acked(&sim, 0), vec![0]);
    let leader = leader_of(&sim, "orders", 0);
    let trace = sim.trace();
    let request = sent_requests(trace, NodeId::Client(0), ApiKey::Produce)[0];
    let events = events_of(trace, request);
    let (_, timeout, waits) = parked(&events).expect("parked");
    assert_eq!(timeout, 30_000, "request.timeout.ms");
    assert!(matches!(&waits[..], [WaitReason::HighWatermark { required_offset: 1, high_watermark: 0, .. }]));
    let (_, step, expired) = completion(&events).unwrap();
    assert!(!expired);
    // That step handled a follower's Fetch on the leader's I/O thread, the
    // fetch offset acknowledging the record, and moved the HW past it.
    let in_step: Vec<&TraceEvent> = trace.iter().filter(|e| e.step == step).collect();
    let fetch = in_step
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::LogRead { request, fetch_offset, .. } if matches!(request.client, NodeId::Broker(_)) => Some((*request, *fetch_offset)),
            _ => None,
        })
        .expect("a follower fetch was handled in that step");
    assert_eq!(fetch.1, 1, "the follower fetched from offset 1: it has offset 0");
    assert!(in_step.iter().any(|e| e.node == NodeId::Broker(leader)
        && matches!(&e.kind, TraceKind::Hop { request: r, to: Stage::LogRead, .. } if *r == fetch.0)));
    assert!(in_step.iter().any(|e| matches!(&e.kind, TraceKind::HighWatermarkAdvanced { from: 0, to: 1, .. })));
}

#[test]
fn a_delayed_produce_expires_with_request_timed_out_and_its_records_stay() {
    // Two real brokers; the follower's fetches never reach the leader.
    let tp = TopicPartition::new("orders", 0);
    let image = harness::metadata(&[0, 1], &[(tp.clone(), vec![0, 1], 0, 0, vec![0, 1])]);
    let topics = [("orders".to_string(), TopicConfig::default())].into_iter().collect();
    let mut h = Harness::new(BrokerConfig::default(), vec![(0, image.clone()), (1, image)], &topics);
    h.deliver_between_brokers = false;
    h.run_until(10);
    h.send(NodeId::Client(0), 0, harness::produce_request(0, 1, &tp, -1, 300, harness::batch(&["a", "b"], 10)));
    h.run_until(299);
    assert!(harness::produce_answers(&h.outbox).is_empty(), "still waiting for the follower");
    let parked_at = h.trace.iter().find(|t| matches!(t.2, TraceKind::Parked { .. })).unwrap().0;
    h.run_until(1_000);
    let answers = harness::produce_answers(&h.take_sent_to(NodeId::Client(0)));
    assert_eq!(answers.len(), 1);
    let (at, answer) = &answers[0];
    assert_eq!(answer.error, ErrorCode::RequestTimedOut);
    assert_eq!(ErrorCode::RequestTimedOut.code(), 7);
    assert!(*at >= parked_at + 300 && *at <= parked_at + 305, "expired after the request's timeout: parked {parked_at}, answered {at}");
    // A timeout does not mean nothing was written.
    let p = h.broker(0).partition(&tp).unwrap();
    assert_eq!(p.log.log_end_offset(), 2);
    assert_eq!(p.high_watermark, 0);
    assert!(h.trace.iter().any(|t| matches!(t.2, TraceKind::PurgatoryCompleted { expired: true, .. })));
}

#[test]
fn in_the_cluster_an_expired_produce_leaves_its_records_in_the_leaders_log() {
    // Followers whose fetches wait 10 s for a megabyte hold the HW back
    // longer than the producer's request.timeout.ms.
    let broker = BrokerConfig { replica_fetch_min_bytes: 1_000_000, replica_fetch_wait_max_ms: 10_000, ..Default::default() };
    let producer = kafkascope::sim::simulation::ClientSpec::Producer(kafkascope::sim::config::ProducerConfig {
        acks: -1,
        enable_idempotence: false,
        linger_ms: 0,
        request_timeout_ms: 1_000,
        delivery_timeout_ms: 1_500,
        ..Default::default()
    });
    let mut sim = Simulation::new(cluster(3, broker, vec![TopicSpec::new("orders", 1, 3)], vec![producer]), 6).unwrap();
    sim.command(common::produce(0, "orders", Some("k"), "v")).unwrap();
    sim.run_until(5_000);
    let leader = leader_of(&sim, "orders", 0);
    let request = sent_requests(sim.trace(), NodeId::Client(0), ApiKey::Produce)[0];
    let events = events_of(sim.trace(), request);
    let (parked_at, timeout, _) = parked(&events).unwrap();
    let (expired_at, _, expired) = completion(&events).unwrap();
    assert!(expired);
    assert_eq!(timeout, 1_000);
    assert!(expired_at >= parked_at + 1_000 && expired_at <= parked_at + 1_005, "{parked_at} -> {expired_at}");
    // The expired answer leaves from purgatory like any other.
    assert!(events.iter().any(|e| matches!(e.kind, TraceKind::Hop { direction: Direction::Response, from: Stage::Purgatory, .. })));
    let r = sim.view().replica("orders", 0, leader).unwrap().clone();
    assert!(r.log_end_offset >= 1, "the record is in the leader's log");
    assert_eq!(r.high_watermark, 0);
    assert!(matches!(states(&sim, 0)[0], kafkascope::sim::client::producer::RecordState::Failed { error: ErrorCode::RequestTimedOut }));
}

fn one_broker_with_consumer(rf: u32) -> Simulation {
    let config = cluster(rf, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, rf)], vec![producer(1), consumer()]);
    Simulation::new(config, 17).unwrap()
}

#[test]
fn a_delayed_fetch_waits_up_to_fetch_max_wait_ms() {
    let mut sim = one_broker_with_consumer(1);
    sim.command(fetch_with(1, "orders", 0, Some(0), 1, 300)).unwrap();
    run_for(&mut sim, 1_000);
    let request = consumer_fetches(&sim, 1)[0];
    let events = events_of(sim.trace(), request);
    let (parked_at, timeout, waits) = parked(&events).expect("nothing to read: it waits");
    assert_eq!(timeout, 300);
    assert_eq!(waits, vec![WaitReason::MinBytes { min_bytes: 1, available_bytes: 0 }]);
    let (done_at, _, expired) = completion(&events).unwrap();
    assert!(expired);
    assert!(done_at >= parked_at + 300 && done_at <= parked_at + 305, "{parked_at} -> {done_at}");
    let result = sim.consumer(1).unwrap().fetches()[0].result.clone().unwrap();
    assert_eq!((result.error, result.records), (ErrorCode::None, 0));
}

#[test]
fn a_delayed_fetch_is_woken_by_an_append() {
    let mut sim = one_broker_with_consumer(1);
    sim.command(fetch_with(1, "orders", 0, Some(0), 1, 5_000)).unwrap();
    run_for(&mut sim, 100);
    sim.command(common::produce(0, "orders", Some("k"), "v")).unwrap();
    run_for(&mut sim, 200);
    let request = consumer_fetches(&sim, 1)[0];
    let events = events_of(sim.trace(), request);
    let (_, step, expired) = completion(&events).unwrap();
    assert!(!expired, "woken long before its 5 s");
    // Woken in the step of the leader's append.
    assert!(sim.trace().iter().any(|e| e.step == step && matches!(e.kind, TraceKind::Appended { .. })));
    let result = sim.consumer(1).unwrap().fetches()[0].result.clone().unwrap();
    assert_eq!((result.records, result.high_watermark), (1, 1));
}

#[test]
fn a_consumers_delayed_fetch_is_woken_by_the_high_watermark_not_the_append() {
    let mut sim = one_broker_with_consumer(3);
    let leader = leader_of(&sim, "orders", 0);
    sim.command(fetch_with(1, "orders", 0, Some(0), 1, 5_000)).unwrap();
    run_for(&mut sim, 100);
    sim.command(common::produce(0, "orders", Some("k"), "v")).unwrap();
    run_for(&mut sim, 300);
    let trace = sim.trace();
    let request = consumer_fetches(&sim, 1)[0];
    let (_, step, expired) = completion(&events_of(trace, request)).unwrap();
    assert!(!expired);
    let append_step = trace.iter().find(|e| matches!(&e.kind, TraceKind::Appended { replica, .. } if *replica == leader)).unwrap().step;
    let hw_step = trace
        .iter()
        .find(|e| matches!(&e.kind, TraceKind::HighWatermarkAdvanced { replica, to: 1, .. } if *replica == leader))
        .unwrap()
        .step;
    assert!(append_step < hw_step, "the followers had to fetch first");
    assert_eq!(step, hw_step, "the consumer's fetch completed when the HW moved, not at the append");
    let result = sim.consumer(1).unwrap().fetches()[0].result.clone().unwrap();
    assert_eq!((result.records, result.high_watermark), (1, 1));
}

#[test]
fn a_delayed_fetch_waits_for_fetch_min_bytes() {
    let mut sim = one_broker_with_consumer(1);
    let value = "x".repeat(40);
    // One batch of one record with a 40-byte value is about 110 bytes.
    sim.command(fetch_with(1, "orders", 0, Some(0), 300, 10_000)).unwrap();
    run_for(&mut sim, 50);
    let mut completed_after = None;
    for i in 0..5 {
        sim.command(common::produce(0, "orders", Some("k"), &value)).unwrap();
        run_for(&mut sim, 50);
        let result = sim.consumer(1).unwrap().fetches()[0].result.clone();
        if result.is_some() && completed_after.is_none() {
            completed_after = Some(i + 1);
        }
    }
    let n = completed_after.expect("the fetch completed once enough bytes were there") as usize;
    let tp = TopicPartition::new("orders", 0);
    let sizes: Vec<u32> = sim.broker(0).unwrap().partition(&tp).unwrap().log.batches_in(0).unwrap().iter().map(|b| b.size_bytes).collect();
    let before: u32 = sizes[..n - 1].iter().sum();
    let at: u32 = sizes[..n].iter().sum();
    assert!(before < 300 && at >= 300, "completed after {n} batches of {sizes:?}");
    let result = sim.consumer(1).unwrap().fetches()[0].result.clone().unwrap();
    assert_eq!(result.records as usize, n);
    let (_, _, expired) = completion(&events_of(sim.trace(), consumer_fetches(&sim, 1)[0])).unwrap();
    assert!(!expired);
}

#[test]
fn a_fetch_from_an_older_segment_is_answered_at_once() {
    // Kafka's DelayedFetch completes at once when the fetch offset lies in a
    // segment older than the one holding the end offset: a read never spans
    // segments, so waiting for fetch.min.bytes could only ever time out.
    let topic = TopicSpec { config: TopicConfig { segment_bytes: 300, ..Default::default() }, ..TopicSpec::new("orders", 1, 1) };
    let mut sim = Simulation::new(cluster(1, BrokerConfig::default(), vec![topic], vec![producer(1), consumer()]), 3).unwrap();
    for i in 0..10 {
        sim.command(common::produce(0, "orders", Some("k"), &format!("{i:0>30}"))).unwrap();
        run_for(&mut sim, 20);
    }
    run_for(&mut sim, 100);
    let segments = sim.view().replica("orders", 0, 0).unwrap().segments.clone();
    assert!(segments.len() >= 3);
    let asked_at = sim.now_ms();
    sim.command(fetch_with(1, "orders", 0, Some(0), 100_000, 5_000)).unwrap();
    run_for(&mut sim, 100);
    let result = sim.consumer(1).unwrap().fetches()[0].result.clone().expect("answered within 100 ms, not after 5 s");
    assert_eq!(result.next_offset, segments[1].base_offset, "exactly the first segment's records");
    let events = events_of(sim.trace(), consumer_fetches(&sim, 1)[0]);
    assert!(parked(&events).is_none());
    let answered_at = events.last().unwrap().time_ms;
    assert!(answered_at < asked_at + 20);
    // From the active segment it waits as usual.
    let last = segments.last().unwrap().base_offset;
    sim.command(fetch_with(1, "orders", 0, Some(last), 100_000, 500)).unwrap();
    run_for(&mut sim, 1_000);
    let events = events_of(sim.trace(), consumer_fetches(&sim, 1)[1]);
    assert!(parked(&events).is_some());
    assert!(completion(&events).unwrap().2, "expired");
}

/// Every delayed operation of a run, as the view showed it right after it
/// was parked: (broker, request, its Produce or Fetch, parked at, timeout,
/// the view's deadline), and when it expired, if it did.
type Parking = (NodeId, RequestId, ApiKey, u64, u64, i64, Option<u64>);

fn parkings(sim: &mut Simulation, until_ms: u64) -> Vec<Parking> {
    let mut seen: Vec<Parking> = Vec::new();
    while sim.next_event_ms().is_some_and(|t| t <= until_ms) {
        let from = sim.trace().len();
        sim.step();
        let view = sim.view();
        for e in &sim.trace()[from..] {
            match &e.kind {
                TraceKind::Parked { request, operation, timeout_ms, .. } => {
                    let NodeId::Broker(b) = e.node else { panic!("parked on {:?}", e.node) };
                    let purgatory = &view.brokers.iter().find(|v| v.id == b).unwrap().purgatory;
                    let op = purgatory
                        .produce
                        .iter()
                        .chain(&purgatory.fetch)
                        .find(|o| o.operation == *operation && o.token.request == *request)
                        .unwrap_or_else(|| panic!("operation {operation} of {request:?} is in the view"));
                    seen.push((e.node, *request, op.token.api, e.time_ms, *timeout_ms, op.deadline_ms, None));
                }
                TraceKind::PurgatoryCompleted { request, expired: true, .. } => {
                    let parked = seen.iter_mut().rev().find(|p| p.0 == e.node && p.1 == *request && p.6.is_none());
                    parked.expect("it was parked").6 = Some(e.time_ms);
                }
                _ => {}
            }
        }
    }
    seen
}

/// DelayedOperationView.deadline_ms is when the delayed operation expires:
/// a DelayedProduce its request's timeout (request.timeout.ms) after it was
/// parked, a follower's DelayedFetch replica.fetch.wait.max.ms after, a
/// consumer's DelayedFetch its fetch.max.wait.ms after.
#[test]
fn a_delayed_operations_deadline_in_the_view_is_when_it_expires() {
    // Followers that wait 2 s for a megabyte hold acks=all back longer than
    // the producer's 700 ms request timeout.
    let broker = BrokerConfig { replica_fetch_min_bytes: 1_000_000, replica_fetch_wait_max_ms: 2_000, ..Default::default() };
    let producer = kafkascope::sim::simulation::ClientSpec::Producer(kafkascope::sim::config::ProducerConfig {
        acks: -1,
        enable_idempotence: false,
        linger_ms: 0,
        request_timeout_ms: 700,
        delivery_timeout_ms: 1_000,
        ..Default::default()
    });
    let mut sim = Simulation::new(cluster(3, broker, vec![TopicSpec::new("orders", 1, 3)], vec![producer, consumer()]), 23).unwrap();
    sim.command(common::produce(0, "orders", Some("k"), "v")).unwrap();
    // At the HW (0 while the followers hold back), so the consumer's fetch
    // waits: one above it would be answered at once (DelayedFetch, case F).
    sim.command(fetch_with(1, "orders", 0, Some(0), 1, 300)).unwrap();
    let seen = parkings(&mut sim, 5_000);
    let expected_timeout = |node: NodeId, request: RequestId, api: ApiKey| match (api, request.client) {
        (ApiKey::Produce, _) => 700,
        (ApiKey::Fetch, NodeId::Broker(_)) => 2_000,
        (ApiKey::Fetch, NodeId::Client(_)) => 300,
        other => panic!("{other:?} parked on {node:?}"),
    };
    // Each kind was parked and expired at least once.
    for (api, from_follower) in [(ApiKey::Produce, false), (ApiKey::Fetch, true), (ApiKey::Fetch, false)] {
        let expired = seen.iter().any(|p| p.2 == api && matches!(p.1.client, NodeId::Broker(_)) == from_follower && p.6.is_some());
        assert!(expired, "an expired {api:?} (from a follower: {from_follower}): {seen:?}");
    }
    for (node, request, api, parked_at, timeout_ms, deadline_ms, expired_at) in &seen {
        assert_eq!(*timeout_ms, expected_timeout(*node, *request, *api), "{request:?}");
        assert_eq!(*deadline_ms, (*parked_at + *timeout_ms) as i64, "{request:?} on {node:?}");
        if let Some(at) = expired_at {
            assert_eq!(*at as i64, *deadline_ms, "{request:?} on {node:?} expired when the view said");
        }
    }
}
