//! Data plane, item 6: fetching. Consumers read only up to the high
//! watermark, an offset past the log end is OFFSET_OUT_OF_RANGE, and
//! max.partition.fetch.bytes limits a fetch except that its first batch comes
//! whole however big it is.

mod common;

use common::*;
use kafkascope::sim::config::{BrokerConfig, ConsumerConfig, TopicSpec};
use kafkascope::sim::ids::{NodeId, TopicPartition};
use kafkascope::sim::protocol::{ApiKey, ErrorCode};
use kafkascope::sim::simulation::{ClientSpec, Simulation};
use kafkascope::sim::trace::{ReadBound, TraceKind};

/// Three acks=1 records on the leader of "orders-0", all above its HW: the
/// followers' fetches wait 5 s for a megabyte, so they do not have them yet,
/// and they stay in the ISR.
fn three_records_above_the_high_watermark() -> Simulation {
    let broker = BrokerConfig {
        replica_fetch_min_bytes: 1_000_000,
        replica_fetch_wait_max_ms: 5_000,
        replica_lag_time_max_ms: 1_000_000,
        ..Default::default()
    };
    let config = cluster(3, broker, vec![TopicSpec::new("orders", 1, 3)], vec![producer(1), consumer()]);
    let mut sim = Simulation::new(config, 14).unwrap();
    for i in 0..3 {
        sim.command(common::produce(0, "orders", Some("k"), &format!("v{i}"))).unwrap();
        run_for(&mut sim, 20);
    }
    run_for(&mut sim, 200);
    sim
}

#[test]
fn consumers_read_only_up_to_the_high_watermark() {
    let mut sim = three_records_above_the_high_watermark();
    assert_eq!(acked(&sim, 0), vec![0, 1, 2], "acks=1: acknowledged by the leader alone");
    let leader = leader_of(&sim, "orders", 0);
    let r = sim.view().replica("orders", 0, leader).unwrap().clone();
    assert_eq!((r.log_end_offset, r.high_watermark), (3, 0));
    // A consumer that will not wait gets nothing: all three are above the HW.
    sim.command(fetch_with(1, "orders", 0, Some(0), 1, 0)).unwrap();
    run_for(&mut sim, 100);
    let first = sim.consumer(1).unwrap().fetches()[0].result.clone().unwrap();
    assert_eq!((first.error, first.records, first.high_watermark), (ErrorCode::None, 0, 0));
    let read = sim
        .trace()
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::LogRead { request, upper_bound, bytes, .. } if request.client == NodeId::Client(1) => Some((*upper_bound, *bytes)),
            _ => None,
        })
        .unwrap();
    assert_eq!(read, (ReadBound::HighWatermark, 0));
    assert!(sim.consumer(1).unwrap().consumed().is_empty());
    // Once the followers have them, the HW moves and the consumer gets them.
    sim.run_until(5_500);
    assert_eq!(sim.view().partition("orders", 0).unwrap().high_watermark, 3);
    sim.command(fetch_with(1, "orders", 0, Some(0), 1, 0)).unwrap();
    run_for(&mut sim, 100);
    let second = sim.consumer(1).unwrap().fetches()[1].result.clone().unwrap();
    assert_eq!((second.records, second.next_offset, second.high_watermark), (3, 3, 3));
    let values: Vec<_> = sim.consumer(1).unwrap().consumed().iter().map(|c| c.value.clone().unwrap()).collect();
    assert_eq!(values, vec!["v0", "v1", "v2"]);
}

#[test]
fn a_consumer_never_sees_records_above_the_high_watermark_at_any_step() {
    // Whatever the interleaving, every record a consumer gets was below the
    // leader's HW when the leader read it: the HW is noted at each of the
    // consumer's reads (a step is one event, so it is the HW the read used),
    // and each answer's records must lie below the HW of its own read.
    let config = cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 3)], vec![producer(1), consumer()]);
    let mut sim = Simulation::new(config, 27).unwrap();
    let leader = leader_of(&sim, "orders", 0);
    let mut hw_at_read: std::collections::BTreeMap<i32, i64> = std::collections::BTreeMap::new();
    let mut checked = 0;
    let mut seen = sim.trace().len();
    let mut step_and_check = |sim: &mut Simulation| {
        sim.step();
        let hw = sim.view().replica("orders", 0, leader).unwrap().high_watermark;
        for e in &sim.trace()[seen..] {
            match &e.kind {
                TraceKind::LogRead { request, replica, .. } if request.client == NodeId::Client(1) && *replica == leader => {
                    hw_at_read.insert(request.correlation_id, hw);
                }
                TraceKind::FetchCompleted { request, records, next_offset, .. } if *records > 0 => {
                    let bound = hw_at_read[&request.correlation_id];
                    assert!(*next_offset <= bound, "at {} ms records up to {} came from a read at HW {bound}", e.time_ms, next_offset - 1);
                    checked += 1;
                }
                _ => {}
            }
        }
        seen = sim.trace().len();
    };
    for i in 0..30 {
        sim.command(common::produce(0, "orders", Some("k"), &format!("v{i}"))).unwrap();
        sim.command(fetch_with(1, "orders", 0, None, 1, 0)).unwrap();
        let until = sim.now_ms() + 3;
        while sim.next_event_ms().is_some_and(|t| t <= until) {
            step_and_check(&mut sim);
        }
        sim.run_until(until);
    }
    while sim.next_event_ms().is_some_and(|t| t <= 1_000) {
        step_and_check(&mut sim);
    }
    assert!(checked >= 5, "answers with records were checked: {checked}");
    let consumed = sim.consumer(1).unwrap().consumed().to_vec();
    assert!(consumed.len() >= 10, "the consumer got records: {}", consumed.len());
    let offsets: Vec<i64> = consumed.iter().map(|c| c.offset).collect();
    assert_eq!(offsets, (0..offsets.len() as i64).collect::<Vec<_>>(), "in order, no gaps, no repeats");
}

#[test]
fn an_offset_past_the_log_end_is_offset_out_of_range() {
    let config = cluster(1, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 1)], vec![producer(1), consumer()]);
    let mut sim = Simulation::new(config, 1).unwrap();
    for i in 0..3 {
        sim.command(common::produce(0, "orders", Some("k"), &format!("v{i}"))).unwrap();
        run_for(&mut sim, 20);
    }
    run_for(&mut sim, 100);
    sim.command(fetch_with(1, "orders", 0, Some(4), 1, 100)).unwrap();
    run_for(&mut sim, 300);
    // At the log end itself it is no error: there is just nothing yet.
    sim.command(fetch_with(1, "orders", 0, Some(3), 1, 100)).unwrap();
    run_for(&mut sim, 300);
    let fetches = sim.consumer(1).unwrap().fetches().to_vec();
    let past = fetches[0].result.clone().unwrap();
    assert_eq!((past.error, past.records), (ErrorCode::OffsetOutOfRange, 0));
    assert_eq!(ErrorCode::OffsetOutOfRange.code(), 1);
    assert_eq!(past.next_offset, 4, "the position does not move");
    let at_end = fetches[1].result.clone().unwrap();
    assert_eq!((at_end.error, at_end.records, at_end.high_watermark), (ErrorCode::None, 0, 3));
    // The out-of-range answer was immediate; the other waited its 100 ms.
    let waited: Vec<bool> = sent_requests(sim.trace(), NodeId::Client(1), ApiKey::Fetch)
        .iter()
        .map(|r| events_of(sim.trace(), *r).iter().any(|e| matches!(e.kind, TraceKind::Parked { .. })))
        .collect();
    assert_eq!(waited, vec![false, true]);
}

fn with_partition_limit(limit: i32) -> Simulation {
    let consumer = ClientSpec::Consumer(ConsumerConfig { max_partition_fetch_bytes: limit, ..Default::default() });
    let config = cluster(1, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 1)], vec![producer(1), consumer]);
    Simulation::new(config, 1).unwrap()
}

fn batch_sizes(sim: &Simulation) -> Vec<u32> {
    let tp = TopicPartition::new("orders", 0);
    sim.broker(0).unwrap().partition(&tp).unwrap().log.batches_in(0).unwrap().iter().map(|b| b.size_bytes).collect()
}

#[test]
fn max_partition_fetch_bytes_limits_a_fetch_to_whole_batches() {
    let limit = 250;
    let mut sim = with_partition_limit(limit);
    for i in 0..6 {
        sim.command(common::produce(0, "orders", Some("k"), &format!("{i:0>20}"))).unwrap();
        run_for(&mut sim, 20);
    }
    run_for(&mut sim, 100);
    let sizes = batch_sizes(&sim);
    assert_eq!(sizes.len(), 6);
    // As many whole batches as fit.
    let mut fit = 0;
    let mut total = 0;
    for s in &sizes {
        if total + s > limit as u32 {
            break;
        }
        total += s;
        fit += 1;
    }
    assert!((2..6).contains(&fit), "the workload must split: {sizes:?}");
    sim.command(fetch_with(1, "orders", 0, Some(0), 1, 0)).unwrap();
    run_for(&mut sim, 100);
    let r = sim.consumer(1).unwrap().fetches()[0].result.clone().unwrap();
    assert_eq!((r.records, r.next_offset), (fit as u32, fit as i64));
    // The position moved on; the next fetch continues there.
    sim.command(fetch_with(1, "orders", 0, None, 1, 0)).unwrap();
    run_for(&mut sim, 100);
    let r = sim.consumer(1).unwrap().fetches()[1].result.clone().unwrap();
    assert_eq!(sim.consumer(1).unwrap().fetches()[1].fetch_offset, fit as i64);
    assert!(r.records >= 1);
}

#[test]
fn the_first_batch_comes_whole_even_when_bigger_than_the_limit() {
    let limit = 100;
    let mut sim = with_partition_limit(limit);
    sim.command(common::produce(0, "orders", Some("k"), &"x".repeat(400))).unwrap();
    run_for(&mut sim, 50);
    sim.command(common::produce(0, "orders", Some("k"), "small")).unwrap();
    run_for(&mut sim, 100);
    let sizes = batch_sizes(&sim);
    assert!(sizes[0] > limit as u32 && sizes[0] + sizes[1] > limit as u32);
    sim.command(fetch_with(1, "orders", 0, Some(0), 1, 0)).unwrap();
    run_for(&mut sim, 100);
    let r = sim.consumer(1).unwrap().fetches()[0].result.clone().unwrap();
    assert_eq!((r.error, r.records, r.next_offset), (ErrorCode::None, 1, 1), "only the big first batch");
    assert_eq!(sim.consumer(1).unwrap().consumed()[0].value.as_deref().map(str::len), Some(400));
    let bytes = sim
        .trace()
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::LogRead { request, bytes, .. } if request.client == NodeId::Client(1) => Some(*bytes),
            _ => None,
        })
        .unwrap();
    assert_eq!(bytes, sizes[0]);
}

#[test]
fn a_fetch_from_above_the_high_watermark_is_answered_at_once() {
    // DelayedFetch.tryComplete, case F: a fetch offset beyond the bound the
    // read uses (the HW, for a consumer) completes the fetch at once, with
    // nothing, instead of parking it for fetch.max.wait.ms. It happens to a
    // consumer that read up to an old leader's HW and asks a new leader whose
    // HW has not caught up yet; here acks=1 records sit above the HW.
    let mut sim = three_records_above_the_high_watermark();
    let leader = leader_of(&sim, "orders", 0);
    let r = sim.view().replica("orders", 0, leader).unwrap().clone();
    assert_eq!((r.log_end_offset, r.high_watermark), (3, 0));
    // Offset 2: inside the log, above the HW. The consumer would wait a
    // whole second for one byte.
    let sent_at = sim.now_ms();
    sim.command(fetch_with(1, "orders", 0, Some(2), 1, 1_000)).unwrap();
    run_for(&mut sim, 100);
    let fetch = sim.consumer(1).unwrap().fetches()[0].clone();
    let result = fetch.result.clone().expect("answered within 100 ms, not after the 1 s wait");
    assert_eq!((result.error, result.records, result.high_watermark, result.next_offset), (ErrorCode::None, 0, 0, 2));
    assert!(sim.now_ms() - sent_at <= 100);
    let parked = sent_requests(sim.trace(), NodeId::Client(1), ApiKey::Fetch)
        .iter()
        .any(|r| events_of(sim.trace(), *r).iter().any(|e| matches!(e.kind, TraceKind::Parked { .. })));
    assert!(!parked, "the fetch never waited in purgatory");
}
