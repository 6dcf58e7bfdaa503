//! Data plane, item 4: producing. Where records go (murmur2 for keys, sticky
//! or round-robin without), how they are batched (linger.ms, batch.size),
//! what each acks setting waits for, the leader's validation with Kafka's
//! error codes, LogAppendTime, and the idempotent producer's duplicates.

mod common;

use common::harness::{self, Harness};
use common::*;
use kafkascope::sim::client::producer::RecordState;
use kafkascope::sim::config::{BrokerConfig, Partitioner, ProducerConfig, TimestampType, TopicConfig, TopicSpec};
use kafkascope::sim::ids::{NodeId, TopicPartition};
use kafkascope::sim::protocol::{ApiKey, ErrorCode};
use kafkascope::sim::record::batch;
use kafkascope::sim::simulation::{ClientSpec, Command, Simulation};
use kafkascope::sim::trace::{BatchReadyReason, Direction, PartitionReason, Stage, TraceKind, WaitReason};
use std::collections::BTreeMap;

fn one_broker(topic: TopicSpec, clients: Vec<ClientSpec>) -> Simulation {
    Simulation::new(cluster(1, BrokerConfig::default(), vec![topic], clients), 9).unwrap()
}

fn unkeyed(client: u32, topic: &str, value: &str) -> Command {
    common::produce(client, topic, None, value)
}

fn partitions_chosen(sim: &Simulation, client: u32) -> Vec<u32> {
    sim.producer(client).unwrap().records().iter().map(|r| r.partition.unwrap()).collect()
}

fn varint_len(v: i64) -> usize {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    let mut n = 1;
    while z >= 0x80 {
        z >>= 7;
        n += 1;
    }
    n
}

/// DefaultRecord.sizeInBytes for a record with no headers and no key.
fn unkeyed_record_size(offset_delta: i64, timestamp_delta: i64, value_len: usize) -> usize {
    let body = 1 + varint_len(timestamp_delta) + varint_len(offset_delta) + varint_len(-1) + varint_len(value_len as i64) + value_len + varint_len(0);
    varint_len(body as i64) + body
}

#[test]
fn our_murmur2_matches_kafkas_own_vectors() {
    for (input, expected) in [
        ("21", -973932308),
        ("foobar", -790332482),
        ("a-little-bit-long-string", -985981536),
        ("a-little-bit-longer-string", -1486304829),
        ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
        ("abc", 479470107),
    ] {
        assert_eq!(kafka_murmur2(input.as_bytes()), expected, "{input}");
    }
}

#[test]
fn keyed_records_go_to_the_murmur2_partition() {
    let mut sim = one_broker(TopicSpec::new("orders", 7, 1), vec![producer(1)]);
    let keys: Vec<String> = (0..40).map(|i| format!("customer-{i}")).collect();
    for k in &keys {
        sim.command(common::produce(0, "orders", Some(k), "v")).unwrap();
    }
    run_for(&mut sim, 500);
    let mut per_partition: BTreeMap<u32, i64> = BTreeMap::new();
    for (r, k) in sim.producer(0).unwrap().records().iter().zip(&keys) {
        let hash = kafka_murmur2(k.as_bytes());
        let expected = ((hash & 0x7fff_ffff) as u32) % 7;
        assert_eq!(r.partition, Some(expected), "key {k}");
        assert_eq!(
            r.reason,
            Some(PartitionReason::Keyed { murmur2: hash, positive: hash & 0x7fff_ffff, partitions: 7 }),
            "key {k}"
        );
        assert!(matches!(r.state, RecordState::Acknowledged { .. }), "{k}: {:?}", r.state);
        *per_partition.entry(expected).or_default() += 1;
    }
    assert!(per_partition.len() >= 5, "40 keys over 7 partitions spread: {per_partition:?}");
    // Each record really landed there.
    for p in 0..7 {
        let leo = sim.view().replica("orders", p, 0).unwrap().log_end_offset;
        assert_eq!(leo, per_partition.get(&p).copied().unwrap_or(0), "orders-{p}");
    }
    // The same key always goes to the same partition.
    sim.command(common::produce(0, "orders", Some("customer-3"), "again")).unwrap();
    run_for(&mut sim, 100);
    let records = sim.producer(0).unwrap().records();
    assert_eq!(records.last().unwrap().partition, records[3].partition);
}

#[test]
fn null_keys_stick_to_one_partition_until_batch_size_bytes() {
    // Records sent together fill batches of batch.size; the sticky partition
    // switches once batch.size bytes went to it, counted as Kafka's
    // RecordAccumulator counts them: a new batch adds its whole estimated
    // size (header included), a record added to a batch adds its own size.
    let batch_size = 500u32;
    let config = ProducerConfig { acks: 1, enable_idempotence: false, linger_ms: 1_000, batch_size, ..Default::default() };
    let mut sim = one_broker(TopicSpec::new("events", 4, 1), vec![ClientSpec::Producer(config)]);
    let value = "v".repeat(20);
    // First a record on its own, so that metadata is known and the rest are
    // sent at one instant.
    sim.command(unkeyed(0, "events", &value)).unwrap();
    run_for(&mut sim, 1_500);
    for _ in 0..60 {
        sim.command(unkeyed(0, "events", &value)).unwrap();
    }
    run_for(&mut sim, 3_000);
    let chosen = partitions_chosen(&sim, 0);
    assert!(states(&sim, 0).iter().all(|s| matches!(s, RecordState::Acknowledged { .. })), "{:?}", states(&sim, 0));
    // Where the partitioner must switch, from the sizes alone: keep each
    // partition's open batch (none is sent before linger.ms), count what each
    // record adds to the sticky partition, and expect a switch right after
    // the record that brings it to batch.size.
    let mut open: BTreeMap<u32, (usize, i64)> = BTreeMap::new(); // partition -> (bytes, records)
    let mut produced = 0usize;
    let mut switches_expected = Vec::new();
    for (i, p) in chosen.iter().enumerate() {
        if i == 1 {
            open.clear(); // record 0's batch was sent on its own
        }
        let (bytes, count) = open.get(p).copied().unwrap_or((0, 0));
        let size = unkeyed_record_size(count, 0, value.len());
        let added = if count == 0 || bytes + size > batch_size as usize {
            open.insert(*p, (61 + size, 1));
            61 + size
        } else {
            open.insert(*p, (bytes + size, count + 1));
            size
        };
        produced += added;
        if produced >= batch_size as usize {
            switches_expected.push(i);
            produced = 0;
        }
    }
    let switches: Vec<usize> = chosen.windows(2).enumerate().filter(|(_, w)| w[0] != w[1]).map(|(i, _)| i).collect();
    let last = chosen.len() - 1;
    switches_expected.retain(|i| *i < last);
    assert!(switches.len() >= 2, "the workload must switch partitions: {chosen:?}");
    assert_eq!(switches, switches_expected, "switch points of {chosen:?}");
    // A switch always moves to another partition.
    assert!(chosen.windows(2).filter(|w| w[0] != w[1]).count() >= 2);
}

#[test]
fn round_robin_rotates_over_the_partitions_keys_or_not() {
    let config = ProducerConfig { acks: 1, enable_idempotence: false, linger_ms: 0, partitioner: Partitioner::RoundRobin, ..Default::default() };
    let mut sim = one_broker(TopicSpec::new("events", 3, 1), vec![ClientSpec::Producer(config)]);
    for i in 0..9 {
        // RoundRobinPartitioner ignores keys: Kafka calls a configured
        // partitioner for every record without an explicit partition.
        let key = if i % 2 == 0 { Some("same-key") } else { None };
        sim.command(common::produce(0, "events", key, "v")).unwrap();
        run_for(&mut sim, 20);
    }
    run_for(&mut sim, 200);
    assert_eq!(partitions_chosen(&sim, 0), vec![0, 1, 2, 0, 1, 2, 0, 1, 2]);
    for p in 0..3 {
        assert_eq!(sim.view().replica("events", p, 0).unwrap().log_end_offset, 3);
    }
}

#[test]
fn linger_ms_gathers_records_into_one_batch() {
    let config = ProducerConfig { acks: 1, enable_idempotence: false, linger_ms: 50, ..Default::default() };
    let mut sim = one_broker(TopicSpec::new("orders", 1, 1), vec![ClientSpec::Producer(config)]);
    sim.command(common::produce(0, "orders", Some("k"), "warm-up")).unwrap();
    run_for(&mut sim, 200);
    let start = sim.now_ms();
    for i in 0..5 {
        sim.command(common::produce(0, "orders", Some("k"), &format!("v{i}"))).unwrap();
        run_for(&mut sim, 10);
    }
    run_for(&mut sim, 200);
    assert_eq!(acked(&sim, 0), vec![0, 1, 2, 3, 4, 5]);
    let ready: Vec<(u64, u32, BatchReadyReason)> = sim
        .trace()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::BatchReady { records, reason, .. } if e.time_ms >= start => Some((e.time_ms, *records, *reason)),
            _ => None,
        })
        .collect();
    assert_eq!(ready.len(), 1, "{ready:?}");
    assert_eq!(ready[0].1, 5);
    assert!(matches!(ready[0].2, BatchReadyReason::LingerPassed { .. }), "{ready:?}");
    assert_eq!(ready[0].0, start + 50, "sealed linger.ms after its first record");
    // One request, one batch of five records in the log.
    let produces = sent_requests(sim.trace(), NodeId::Client(0), ApiKey::Produce);
    assert_eq!(produces.len(), 2);
    let tp = TopicPartition::new("orders", 0);
    let p = sim.broker(0).unwrap().partition(&tp).unwrap();
    let batches = p.log.batches_in(0).unwrap();
    assert_eq!(batches.len(), 2);
    assert_eq!((batches[1].base_offset, batches[1].last_offset, batches[1].records_count), (1, 5, 5));
}

#[test]
fn batch_size_seals_a_batch_without_waiting_for_linger() {
    let config = ProducerConfig { acks: 1, enable_idempotence: false, linger_ms: 60_000, batch_size: 200, ..Default::default() };
    let mut sim = one_broker(TopicSpec::new("orders", 1, 1), vec![ClientSpec::Producer(config)]);
    for i in 0..40 {
        sim.command(common::produce(0, "orders", Some("k"), &format!("value-{i:02}"))).unwrap();
    }
    run_for(&mut sim, 1_000);
    let ready: Vec<(u32, u32, BatchReadyReason)> = sim
        .trace()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::BatchReady { records, bytes, reason, .. } => Some((*records, *bytes, *reason)),
            _ => None,
        })
        .collect();
    assert!(ready.len() >= 3, "{ready:?}");
    for (records, bytes, reason) in &ready {
        assert_eq!(*reason, BatchReadyReason::BatchSizeReached);
        assert!(*bytes <= 200 && *records > 1, "{records} records, {bytes} bytes");
    }
    // Full batches went out long before linger.ms: everything sealed so far is acknowledged.
    let sealed: u32 = ready.iter().map(|r| r.0).sum();
    assert_eq!(acked(&sim, 0).len() as u32, sealed);
    assert!(sealed < 40, "the last, partial batch still lingers");
}

#[test]
fn acks_0_gets_no_response_but_the_records_are_written() {
    let mut sim = one_broker(TopicSpec::new("orders", 1, 1), vec![producer(0)]);
    for i in 0..3 {
        sim.command(common::produce(0, "orders", Some("k"), &format!("v{i}"))).unwrap();
        run_for(&mut sim, 20);
    }
    run_for(&mut sim, 200);
    assert!(states(&sim, 0).iter().all(|s| *s == RecordState::SentWithoutAck));
    let produces = sent_requests(sim.trace(), NodeId::Client(0), ApiKey::Produce);
    assert_eq!(produces.len(), 3);
    for r in &produces {
        let events = events_of(sim.trace(), *r);
        assert!(events.iter().any(|e| matches!(e.kind, TraceKind::NoResponse { .. })), "{r}");
        assert!(
            !events.iter().any(|e| matches!(e.kind, TraceKind::Hop { direction: Direction::Response, .. } | TraceKind::Sent { direction: Direction::Response, .. })),
            "{r}: acks=0 must not be answered"
        );
    }
    assert_eq!(sim.view().replica("orders", 0, 0).unwrap().log_end_offset, 3);
    // The connection was unmuted each time, or the later requests would never have been read.
    assert_eq!(sim.trace().iter().filter(|e| matches!(e.kind, TraceKind::Appended { .. })).count(), 3);
}

/// A 3-broker, RF 3 cluster whose producer uses `acks`.
fn replicated(acks: i16) -> Simulation {
    Simulation::new(cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 3)], vec![producer(acks)]), 21).unwrap()
}

#[test]
fn acks_1_answers_after_the_leader_append_without_waiting_for_followers() {
    let mut sim = replicated(1);
    sim.command(common::produce(0, "orders", Some("k"), "v")).unwrap();
    run_for(&mut sim, 500);
    assert_eq!(acked(&sim, 0), vec![0]);
    let leader = leader_of(&sim, "orders", 0);
    let request = sent_requests(sim.trace(), NodeId::Client(0), ApiKey::Produce)[0];
    let trace = sim.trace();
    let answered = trace
        .iter()
        .position(|e| e.kind.request() == Some(request) && matches!(e.kind, TraceKind::Hop { direction: Direction::Response, from: Stage::LogAppend, .. }))
        .expect("the answer left straight from the log append");
    let leader_append = trace
        .iter()
        .position(|e| matches!(&e.kind, TraceKind::Appended { replica, request: r, .. } if *replica == leader && *r == request))
        .unwrap();
    assert!(leader_append < answered);
    let first_follower_append = trace
        .iter()
        .position(|e| matches!(&e.kind, TraceKind::Appended { replica, .. } if *replica != leader))
        .expect("followers replicate eventually");
    assert!(answered < first_follower_append, "acks=1 does not wait for any follower");
    assert!(!events_of(trace, request).iter().any(|e| matches!(e.kind, TraceKind::Parked { .. })));
}

#[test]
fn acks_all_waits_in_purgatory_until_the_high_watermark_covers_the_batch() {
    let mut sim = replicated(-1);
    for i in 0..3 {
        sim.command(common::produce(0, "orders", Some("k"), &format!("v{i}"))).unwrap();
    }
    run_for(&mut sim, 500);
    assert_eq!(acked(&sim, 0), vec![0, 1, 2]);
    let leader = leader_of(&sim, "orders", 0);
    let trace = sim.trace();
    let request = sent_requests(trace, NodeId::Client(0), ApiKey::Produce)[0];
    let events = events_of(trace, request);
    let (last, parked_step) = events
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::Parked { waits, .. } => match &waits[..] {
                [WaitReason::HighWatermark { required_offset, high_watermark, laggards, .. }] => {
                    assert!(*high_watermark < *required_offset);
                    assert_eq!(laggards.len(), 2, "both followers still lack the batch");
                    Some((*required_offset, e.step))
                }
                other => panic!("unexpected waits {other:?}"),
            },
            _ => None,
        })
        .expect("acks=all parks in purgatory");
    let appended_last = events
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::Appended { last_offset, replica, .. } if *replica == leader => Some(*last_offset),
            _ => None,
        })
        .unwrap();
    assert_eq!(last, appended_last + 1, "the HW must pass the batch's last offset");
    let completed = events
        .iter()
        .find(|e| matches!(e.kind, TraceKind::PurgatoryCompleted { expired: false, .. }))
        .expect("completed, not expired");
    // It completed in the step where the leader's HW reached the required offset ...
    let hw_step = trace
        .iter()
        .find(|e| matches!(&e.kind, TraceKind::HighWatermarkAdvanced { replica, to, .. } if *replica == leader && *to >= last))
        .unwrap()
        .step;
    assert_eq!(completed.step, hw_step);
    assert!(completed.step > parked_step);
    // ... after both followers held the batch.
    for f in followers_of(&sim, "orders", 0) {
        let follower_append = trace
            .iter()
            .find(|e| matches!(&e.kind, TraceKind::Appended { replica, last_offset, .. } if *replica == f && *last_offset + 1 >= last))
            .unwrap();
        assert!(follower_append.step < hw_step, "follower {f}");
    }
    // And the response then left from purgatory.
    assert!(events.iter().any(|e| matches!(e.kind, TraceKind::Hop { direction: Direction::Response, from: Stage::Purgatory, .. })));
}

fn rejections(sim: &Simulation) -> Vec<ErrorCode> {
    sim.trace()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::ProduceRejected { error, .. } => Some(*error),
            _ => None,
        })
        .collect()
}

#[test]
fn a_batch_over_max_message_bytes_is_message_too_large() {
    let topic = TopicSpec { config: TopicConfig { max_message_bytes: 200, ..Default::default() }, ..TopicSpec::new("orders", 1, 1) };
    let mut sim = one_broker(topic, vec![producer(1)]);
    sim.command(common::produce(0, "orders", Some("k"), &"x".repeat(300))).unwrap();
    run_for(&mut sim, 200);
    sim.command(common::produce(0, "orders", Some("k"), "small")).unwrap();
    run_for(&mut sim, 200);
    assert_eq!(rejections(&sim), vec![ErrorCode::MessageTooLarge]);
    assert_eq!(ErrorCode::MessageTooLarge.code(), 10);
    // Not retriable: the record fails; the next one is written at offset 0.
    assert_eq!(states(&sim, 0), vec![RecordState::Failed { error: ErrorCode::MessageTooLarge }, RecordState::Acknowledged { offset: 0 }]);
    assert_eq!(sim.view().replica("orders", 0, 0).unwrap().log_end_offset, 1);
    // The trace line names the error once, then says what was wrong.
    let line = sim
        .trace()
        .iter()
        .find(|e| matches!(e.kind, TraceKind::ProduceRejected { .. }))
        .map(|e| e.to_string())
        .expect("a rejection was traced");
    assert_eq!(line.matches("MESSAGE_TOO_LARGE").count(), 1, "{line}");
    assert!(line.contains("more than max.message.bytes 200"), "{line}");
}

#[test]
fn a_create_time_outside_the_allowed_window_is_invalid_timestamp() {
    let topic = TopicSpec {
        config: TopicConfig { message_timestamp_before_max_ms: 10_000, ..Default::default() },
        ..TopicSpec::new("orders", 1, 1)
    };
    let mut sim = one_broker(topic, vec![producer(1)]);
    sim.run_until(20_000);
    let at = |ts: i64| Command::Produce {
        client: 0,
        topic: "orders".into(),
        key: Some("k".into()),
        value: Some("v".into()),
        headers: vec![],
        partition: None,
        timestamp_ms: Some(ts),
    };
    // Two hours ahead (message.timestamp.after.max.ms is one hour), then
    // eleven seconds behind (before.max.ms 10 s), then just inside both.
    for ts in [20_000 + 7_200_000, 20_000 - 11_000, 20_000 + 3_000_000] {
        sim.command(at(ts)).unwrap();
        run_for(&mut sim, 100);
    }
    assert_eq!(rejections(&sim), vec![ErrorCode::InvalidTimestamp, ErrorCode::InvalidTimestamp]);
    assert_eq!(ErrorCode::InvalidTimestamp.code(), 32);
    assert_eq!(
        states(&sim, 0),
        vec![
            RecordState::Failed { error: ErrorCode::InvalidTimestamp },
            RecordState::Failed { error: ErrorCode::InvalidTimestamp },
            RecordState::Acknowledged { offset: 0 }
        ]
    );
}

#[test]
fn acks_outside_0_1_all_is_invalid_required_acks() {
    let config = ProducerConfig { acks: 2, enable_idempotence: false, linger_ms: 0, ..Default::default() };
    let mut sim = one_broker(TopicSpec::new("orders", 1, 1), vec![ClientSpec::Producer(config)]);
    sim.command(common::produce(0, "orders", Some("k"), "v")).unwrap();
    run_for(&mut sim, 200);
    assert_eq!(states(&sim, 0), vec![RecordState::Failed { error: ErrorCode::InvalidRequiredAcks }]);
    assert_eq!(ErrorCode::InvalidRequiredAcks.code(), 21);
    assert_eq!(sim.view().replica("orders", 0, 0).unwrap().log_end_offset, 0, "nothing is written");
}

/// Followers whose fetches wait 60 s for a megabyte: after one acks=1 record
/// they are behind, and they stay behind until their fetch times out.
fn stalled_followers(topic_config: TopicConfig, clients: Vec<ClientSpec>) -> Simulation {
    let broker = BrokerConfig {
        replica_lag_time_max_ms: 1_000,
        replica_fetch_min_bytes: 1_000_000,
        replica_fetch_wait_max_ms: 60_000,
        ..Default::default()
    };
    let topic = TopicSpec { config: topic_config, ..TopicSpec::new("orders", 1, 3) };
    Simulation::new(cluster(3, broker, vec![topic], clients), 8).unwrap()
}

#[test]
fn acks_all_with_the_isr_below_min_insync_replicas_is_not_enough_replicas() {
    let config = TopicConfig { min_insync_replicas: Some(3), ..Default::default() };
    let mut sim = stalled_followers(config, vec![producer(1), producer(-1)]);
    sim.command(common::produce(0, "orders", Some("k"), "acks=1")).unwrap();
    sim.run_until(3_000);
    let leader = leader_of(&sim, "orders", 0);
    let pv = sim.view().partition("orders", 0).unwrap().clone();
    assert_eq!(pv.isr, vec![leader], "both stalled followers left the ISR");
    assert_eq!(pv.high_watermark, 0, "the HW is frozen while the ISR is below min.insync.replicas");
    // The acks=all record is refused without being written, and retried.
    sim.command(common::produce(1, "orders", Some("k"), "acks=all")).unwrap();
    sim.run_until(4_000);
    let refused = rejections(&sim);
    assert!(refused.len() >= 3 && refused.iter().all(|e| *e == ErrorCode::NotEnoughReplicas), "{refused:?}");
    assert_eq!(ErrorCode::NotEnoughReplicas.code(), 19);
    assert_eq!(sim.view().replica("orders", 0, leader).unwrap().log_end_offset, 1, "NOT_ENOUGH_REPLICAS writes nothing");
    assert!(matches!(states(&sim, 1)[0], RecordState::Accumulating | RecordState::InFlight { .. }), "{:?}", states(&sim, 1));
    // When the followers' fetches time out they catch up and rejoin; the
    // retried record is written only after that (its retries back off up
    // to retry.backoff.max.ms, 1 s, by then).
    sim.run_until(61_300);
    let trace = sim.trace();
    let rejoined = trace
        .iter()
        .position(|e| matches!(&e.kind, TraceKind::IsrExpanded { isr, .. } if isr.len() == 3))
        .expect("both followers rejoined the ISR");
    let written = trace
        .iter()
        .position(|e| matches!(&e.kind, TraceKind::Appended { replica, base_offset: 1, request, .. } if *replica == leader && request.client == NodeId::Client(1)))
        .expect("the retried acks=all record was written");
    assert!(rejoined < written);
    assert!(trace[rejoined].time_ms >= 60_000, "the followers were stalled until their fetch timed out");
    // The followers stall again, the ISR shrinks below min.insync.replicas
    // before the HW covers the record, and the HW stays frozen: the write
    // ends in REQUEST_TIMED_OUT although it is in the leader's log.
    sim.run_until(100_000);
    let request = match &sim.trace()[written].kind {
        TraceKind::Appended { request, .. } => *request,
        _ => unreachable!(),
    };
    assert!(events_of(sim.trace(), request).iter().any(|e| matches!(e.kind, TraceKind::PurgatoryCompleted { expired: true, .. })));
    assert_eq!(sim.view().partition("orders", 0).unwrap().high_watermark, 1);
    assert_eq!(sim.view().replica("orders", 0, leader).unwrap().log_end_offset, 2);
}

#[test]
fn a_batch_with_a_bad_crc_is_corrupt_message() {
    let tp = TopicPartition::new("orders", 0);
    let image = harness::metadata(&[0], &[(tp.clone(), vec![0], 0, 0, vec![0])]);
    let topics = [("orders".to_string(), TopicConfig::default())].into_iter().collect();
    let mut h = Harness::new(BrokerConfig::default(), vec![(0, image)], &topics);
    let mut bad = harness::batch(&["hello"], 0);
    assert!(batch::verify_crc(&bad));
    let last = bad.len() - 2;
    bad[last] ^= 0x20; // flip a bit of the value: inside the CRC's range
    assert!(!batch::verify_crc(&bad));
    h.send(NodeId::Client(0), 0, harness::produce_request(0, 1, &tp, 1, 30_000, bad));
    h.run_until(100);
    h.send(NodeId::Client(0), 0, harness::produce_request(0, 2, &tp, 1, 30_000, harness::batch(&["hello"], 0)));
    h.run_until(200);
    let answers = harness::produce_answers(&h.take_sent_to(NodeId::Client(0)));
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0].1.error, ErrorCode::CorruptMessage);
    assert_eq!(ErrorCode::CorruptMessage.code(), 2);
    assert_eq!((answers[1].1.error, answers[1].1.base_offset), (ErrorCode::None, 0), "the corrupt batch took no offset");
    assert_eq!(h.broker(0).partition(&tp).unwrap().log.log_end_offset(), 1);
    assert!(h.trace.iter().any(|t| matches!(&t.2, TraceKind::ProduceRejected { error: ErrorCode::CorruptMessage, .. })));
}

#[test]
fn an_idempotent_batch_out_of_sequence_is_out_of_order_sequence_number() {
    let tp = TopicPartition::new("orders", 0);
    let image = harness::metadata(&[0], &[(tp.clone(), vec![0], 0, 0, vec![0])]);
    let topics = [("orders".to_string(), TopicConfig::default())].into_iter().collect();
    let mut h = Harness::new(BrokerConfig::default(), vec![(0, image)], &topics);
    let idempotent = |seq: i32| {
        let mut b = batch::BatchBuilder::new(0, 0).producer(77, 0, seq);
        b.append(0, Some(b"k".as_slice()), Some(b"v".as_slice()), &[]).unwrap();
        b.build()
    };
    for (i, seq) in [0, 2, 1].into_iter().enumerate() {
        h.send(NodeId::Client(0), 0, harness::produce_request(0, i as i32 + 1, &tp, 1, 30_000, idempotent(seq)));
        h.run_until(h.now_ms + 50);
    }
    let answers: Vec<(ErrorCode, i64)> =
        harness::produce_answers(&h.take_sent_to(NodeId::Client(0))).into_iter().map(|a| (a.1.error, a.1.base_offset)).collect();
    assert_eq!(answers, vec![(ErrorCode::None, 0), (ErrorCode::OutOfOrderSequenceNumber, -1), (ErrorCode::None, 1)]);
}

#[test]
fn log_append_time_replaces_the_producers_timestamp() {
    let topic = TopicSpec {
        config: TopicConfig { message_timestamp_type: TimestampType::LogAppendTime, ..Default::default() },
        ..TopicSpec::new("orders", 1, 2)
    };
    let mut sim = Simulation::new(cluster(2, BrokerConfig::default(), vec![topic], vec![producer(-1), consumer()]), 3).unwrap();
    sim.run_until(5_000);
    // A CreateTime far in the past: with LogAppendTime it is no error, and it is replaced.
    let old = Command::Produce {
        client: 0,
        topic: "orders".into(),
        key: Some("k".into()),
        value: Some("v".into()),
        headers: vec![],
        partition: None,
        timestamp_ms: Some(7),
    };
    sim.command(old).unwrap();
    run_for(&mut sim, 500);
    assert_eq!(acked(&sim, 0), vec![0]);
    let leader = leader_of(&sim, "orders", 0);
    let appended_at = sim
        .trace()
        .iter()
        .find(|e| matches!(&e.kind, TraceKind::Appended { replica, .. } if *replica == leader))
        .unwrap()
        .time_ms as i64;
    let tp = TopicPartition::new("orders", 0);
    for b in 0..2 {
        let log = &sim.broker(b).unwrap().partition(&tp).unwrap().log;
        let bytes = log.batch_bytes(0, 0).unwrap();
        let header = batch::read_header(bytes).unwrap();
        assert_eq!(header.timestamp_type(), batch::TimestampType::LogAppendTime, "attribute bit 3 on broker {b}");
        assert_eq!(header.max_timestamp, appended_at, "broker {b}");
        assert!(batch::verify_crc(bytes), "the CRC was recomputed (broker {b})");
    }
    sim.command(common::fetch(1, "orders", 0, Some(0))).unwrap();
    run_for(&mut sim, 500);
    let consumed = sim.consumer(1).unwrap().consumed();
    assert_eq!(consumed.len(), 1);
    assert_eq!(consumed[0].timestamp_ms, appended_at);
}

#[test]
fn an_idempotent_retry_of_an_appended_batch_gets_its_original_offset() {
    // request.timeout.ms of 10 ms: the first attempt is appended, but its
    // answer (which waits for two followers) comes too late; the retry is a
    // duplicate, answered with the first attempt's offset.
    let config = ProducerConfig { request_timeout_ms: 10, linger_ms: 0, ..Default::default() };
    let mut sim = Simulation::new(
        cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 3)], vec![producer(1), ClientSpec::Producer(config)]),
        12,
    )
    .unwrap();
    // Another producer writes first, so the idempotent one's offset is not 0.
    sim.command(common::produce(0, "orders", Some("k"), "first")).unwrap();
    run_for(&mut sim, 300);
    sim.command(common::produce(1, "orders", Some("k"), "once")).unwrap();
    run_for(&mut sim, 1_000);
    assert_eq!(acked(&sim, 1), vec![1]);
    let trace = sim.trace();
    assert!(trace.iter().any(|e| matches!(&e.kind, TraceKind::ProduceRetry { error: ErrorCode::RequestTimedOut, .. })));
    let dup = trace
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::DuplicateBatch { original_base_offset, base_sequence, .. } => Some((*original_base_offset, *base_sequence)),
            _ => None,
        })
        .expect("the retry was recognised");
    assert_eq!(dup, (1, 0));
    let leader = leader_of(&sim, "orders", 0);
    let appends = trace.iter().filter(|e| matches!(&e.kind, TraceKind::Appended { replica, .. } if *replica == leader)).count();
    assert_eq!(appends, 2, "the retry was not appended again");
    for b in 0..3 {
        assert_eq!(sim.view().replica("orders", 0, b).unwrap().log_end_offset, 2, "broker {b}");
    }
    assert!(sent_requests(trace, NodeId::Client(1), ApiKey::Produce).len() >= 2);
}

fn idempotent_with_small_max_message_bytes() -> Simulation {
    let topic = TopicSpec { config: TopicConfig { max_message_bytes: 200, ..Default::default() }, ..TopicSpec::new("orders", 1, 1) };
    // Kafka's default producer: acks=all, idempotent, linger.ms 5.
    one_broker(topic, vec![ClientSpec::Producer(ProducerConfig::default())])
}

fn stored_producer_state(sim: &Simulation) -> Vec<(i16, i32, i64)> {
    let tp = TopicPartition::new("orders", 0);
    let log = &sim.broker(0).unwrap().partition(&tp).unwrap().log;
    log.batches_in(0)
        .unwrap()
        .iter()
        .map(|b| {
            let h = batch::read_header(log.batch_bytes(0, b.position).unwrap()).unwrap();
            (h.producer_epoch, h.base_sequence, h.base_offset)
        })
        .collect()
}

#[test]
fn an_idempotent_producer_carries_on_after_a_rejected_batch() {
    // A batch the broker refuses leaves a gap in the producer's sequence.
    // Kafka's idempotent producer then bumps its epoch, which restarts the
    // sequence at 0 (TransactionManager.handleFailedBatch), so the next
    // record is written rather than refused as OUT_OF_ORDER_SEQUENCE_NUMBER.
    let mut sim = idempotent_with_small_max_message_bytes();
    sim.command(common::produce(0, "orders", Some("k"), &"x".repeat(300))).unwrap();
    run_for(&mut sim, 200);
    sim.command(common::produce(0, "orders", Some("k"), "small")).unwrap();
    run_for(&mut sim, 200);
    assert_eq!(states(&sim, 0), vec![RecordState::Failed { error: ErrorCode::MessageTooLarge }, RecordState::Acknowledged { offset: 0 }]);
    assert_eq!(stored_producer_state(&sim), vec![(1, 0, 0)], "epoch 1, sequence 0, offset 0");
}

#[test]
fn an_idempotent_batch_behind_a_rejected_one_is_resequenced_and_written() {
    let mut sim = idempotent_with_small_max_message_bytes();
    sim.command(common::produce(0, "orders", Some("k"), "first")).unwrap();
    run_for(&mut sim, 200);
    // Two requests in flight at once: the big one is refused, so the small
    // one behind it arrives with a sequence the broker does not expect.
    sim.command(common::produce(0, "orders", Some("k"), &"x".repeat(300))).unwrap();
    run_for(&mut sim, 6);
    sim.command(common::produce(0, "orders", Some("k"), "behind")).unwrap();
    run_for(&mut sim, 500);
    let in_flight_together = sent_requests(sim.trace(), NodeId::Client(0), ApiKey::Produce).len() >= 3;
    assert!(in_flight_together);
    assert!(rejections(&sim).contains(&ErrorCode::OutOfOrderSequenceNumber), "{:?}", rejections(&sim));
    assert_eq!(
        states(&sim, 0),
        vec![
            RecordState::Acknowledged { offset: 0 },
            RecordState::Failed { error: ErrorCode::MessageTooLarge },
            RecordState::Acknowledged { offset: 1 }
        ]
    );
    assert_eq!(stored_producer_state(&sim), vec![(0, 0, 0), (1, 0, 1)]);
}

#[test]
fn not_enough_replicas_is_checked_before_the_batch_itself() {
    // Kafka's Partition.appendRecordsToLeader refuses an acks=all write to an
    // under-replicated partition before the log validates the batch, so a
    // batch that is also too large gets NOT_ENOUGH_REPLICAS (retriable)
    // rather than MESSAGE_TOO_LARGE.
    let tp = TopicPartition::new("orders", 0);
    // The leader starts with an ISR of itself alone, as after a shrink.
    let image = harness::metadata(&[0, 1, 2], &[(tp.clone(), vec![0, 1, 2], 0, 0, vec![0])]);
    let config = TopicConfig { max_message_bytes: 100, min_insync_replicas: Some(2), ..Default::default() };
    let topics = [("orders".to_string(), config)].into_iter().collect();
    let mut h = Harness::new(BrokerConfig::default(), vec![(0, image)], &topics);
    let big = harness::batch(&[&"x".repeat(200)], 0);
    h.send(NodeId::Client(0), 0, harness::produce_request(0, 1, &tp, -1, 30_000, big.clone()));
    h.run_until(50);
    h.send(NodeId::Client(0), 0, harness::produce_request(0, 2, &tp, 1, 30_000, big));
    h.run_until(100);
    let errors: Vec<ErrorCode> = harness::produce_answers(&h.take_sent_to(NodeId::Client(0))).into_iter().map(|a| a.1.error).collect();
    assert_eq!(errors, vec![ErrorCode::NotEnoughReplicas, ErrorCode::MessageTooLarge]);
}

#[test]
fn each_records_outcome_shows_the_topic_key_and_value_it_was_sent_with() {
    // The producer moves a record's topic, key and value into its outcome
    // once they are encoded; whichever path the record takes (waiting for
    // metadata, or straight into a batch), the UI's list must show what
    // was sent, and a waiting record must show it while it waits.
    let mut sim = one_broker(TopicSpec::new("t", 3, 1), vec![producer(1)]);
    let sent: Vec<(u32, Option<&str>, Option<&str>)> =
        vec![(0, Some("k0"), Some("first")), (1, None, Some("second")), (2, Some("k2"), None)];
    let command = |partition: Option<u32>, key: Option<&str>, value: Option<&str>| Command::Produce {
        client: 0,
        topic: "t".into(),
        key: key.map(str::to_string),
        value: value.map(str::to_string),
        headers: vec![],
        partition,
        timestamp_ms: None,
    };
    let (_, key, value) = sent[0];
    sim.command(command(None, key, value)).unwrap();
    // The command is an event of its own; step until the producer took it.
    while sim.producer(0).unwrap().records().is_empty() {
        assert!(sim.step(), "the produce command never ran");
    }
    let waiting = &sim.producer(0).unwrap().records()[0];
    assert_eq!(waiting.state, RecordState::AwaitingMetadata);
    assert_eq!((waiting.topic.as_str(), waiting.key.as_deref(), waiting.value.as_deref()), ("t", key, value));
    let until = sim.now_ms() + 50;
    sim.run_until(until);
    for &(p, key, value) in &sent[1..] {
        sim.command(command(Some(p), key, value)).unwrap();
    }
    let until = sim.now_ms() + 50;
    sim.run_until(until);
    let records = sim.producer(0).unwrap().records();
    assert_eq!(records.len(), sent.len());
    for (r, &(_, key, value)) in records.iter().zip(&sent) {
        assert_eq!((r.topic.as_str(), r.key.as_deref(), r.value.as_deref()), ("t", key, value), "record {}", r.index);
    }
    assert!(matches!(records[0].state, RecordState::Acknowledged { .. }), "{:?}", records[0].state);
    assert!(records.iter().all(|r| matches!(r.state, RecordState::Acknowledged { .. })), "{records:?}");
}

#[test]
fn a_failed_acks_0_produce_closes_the_connection_and_the_producer_reconnects() {
    // KafkaApis.handleProduceRequest: with acks=0 there is no response to
    // carry an error, so the broker closes the connection; the producer's
    // NetworkClient sees the disconnect and asks for new metadata (that is
    // how an acks=0 producer learns a partition moved). Here the batch is
    // over the topic's max.message.bytes.
    let config = TopicConfig { max_message_bytes: 200, ..Default::default() };
    let topic = TopicSpec { config, ..TopicSpec::new("orders", 1, 1) };
    let mut sim = Simulation::new(cluster(1, BrokerConfig::default(), vec![topic], vec![producer(0)]), 3).unwrap();
    sim.command(common::produce(0, "orders", Some("k"), "small")).unwrap();
    run_for(&mut sim, 100);
    assert_eq!(sim.view().replica("orders", 0, 0).unwrap().log_end_offset, 1);
    let metadata_before = sent_requests(sim.trace(), NodeId::Client(0), ApiKey::Metadata).len();
    let from = sim.trace().len();
    sim.command(common::produce(0, "orders", Some("k"), &"x".repeat(400))).unwrap();
    run_for(&mut sim, 100);
    let trace = &sim.trace()[from..];
    let closed = trace
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::ConnectionClosed { client, error, .. } if e.node == NodeId::Broker(0) => Some((*client, *error)),
            _ => None,
        })
        .expect("the broker closed the connection");
    assert_eq!(closed, (NodeId::Client(0), ErrorCode::MessageTooLarge));
    assert!(!trace.iter().any(|e| matches!(e.kind, TraceKind::NoResponse { .. })), "no unmuting: the connection is gone");
    assert!(
        trace.iter().any(|e| e.node == NodeId::Client(0) && matches!(e.kind, TraceKind::Disconnected { peer: NodeId::Broker(0), .. })),
        "the producer saw the disconnect"
    );
    assert!(sent_requests(sim.trace(), NodeId::Client(0), ApiKey::Metadata).len() > metadata_before, "and asked for metadata");
    assert_eq!(sim.view().replica("orders", 0, 0).unwrap().log_end_offset, 1, "nothing was written");
    // The next record goes over a new connection and is written.
    sim.command(common::produce(0, "orders", Some("k"), "small again")).unwrap();
    run_for(&mut sim, 200);
    assert_eq!(sim.view().replica("orders", 0, 0).unwrap().log_end_offset, 2);
}

/// Sender.completeBatch splits a refused batch of several records by
/// batch.size, never by the topic's max.message.bytes (KAFKA-8350): a batch
/// no larger than batch.size comes back whole, is refused again, and so on
/// until delivery.timeout.ms expires it (RecordAccumulator.expiredBatches).
#[test]
fn a_refused_batch_of_several_records_is_split_and_sent_again_until_it_expires() {
    let topic = TopicSpec { config: TopicConfig { max_message_bytes: 200, ..Default::default() }, ..TopicSpec::new("orders", 1, 1) };
    let config = ProducerConfig { linger_ms: 50, request_timeout_ms: 1_000, delivery_timeout_ms: 2_000, ..Default::default() };
    let mut sim = one_broker(topic, vec![ClientSpec::Producer(config)]);
    for v in ["a", "b", "c"] {
        sim.command(common::produce(0, "orders", Some("k"), &v.repeat(100))).unwrap();
    }
    run_for(&mut sim, 3_000);
    let trace = sim.trace();
    let sends = sent_requests(trace, NodeId::Client(0), ApiKey::Produce);
    let splits: Vec<u64> = trace
        .iter()
        .filter(|e| matches!(e.kind, TraceKind::BatchSplit { records: 3, batches: 1, batch_size: 16_384, .. }))
        .map(|e| e.time_ms)
        .collect();
    // Sent again at once, as if never tried: one split per refusal, and no
    // retry with a backoff.
    assert!(sends.len() > 20, "{} sends", sends.len());
    // Every refusal is split; the last split's batch expires before it is sent.
    assert_eq!(splits.len(), sends.len());
    assert!(rejections(&sim).iter().all(|e| *e == ErrorCode::MessageTooLarge));
    assert!(!trace.iter().any(|e| matches!(e.kind, TraceKind::ProduceRetry { .. })));
    // The batch was created with its first record; it expires at the first
    // drain after it is 2 s old, when the send then in flight is answered.
    let expired: Vec<u64> =
        trace.iter().filter(|e| matches!(e.kind, TraceKind::BatchExpired { records: 3, delivery_timeout_ms: 2_000, .. })).map(|e| e.time_ms).collect();
    assert_eq!(expired.len(), 1, "{expired:?}");
    let created = trace.iter().find(|e| matches!(e.kind, TraceKind::PartitionChosen { .. })).unwrap().time_ms;
    assert!(expired[0] >= created + 2_000 && expired[0] <= created + 2_050, "created {created}, expired {expired:?}");
    assert!(splits.iter().all(|at| *at <= expired[0]));
    assert_eq!(states(&sim, 0), vec![RecordState::Failed { error: ErrorCode::RequestTimedOut }; 3]);
    assert_eq!(sim.view().replica("orders", 0, 0).unwrap().log_end_offset, 0);
    // Each resend carried the first one's sequence (the split keeps it), so
    // the expiry's gap bumps the epoch once and the next record is written
    // at sequence 0 of epoch 1.
    sim.command(common::produce(0, "orders", Some("k"), "small")).unwrap();
    run_for(&mut sim, 200);
    assert_eq!(states(&sim, 0)[3], RecordState::Acknowledged { offset: 0 });
    assert_eq!(stored_producer_state(&sim), vec![(1, 0, 0)]);
}

/// A batch that waits in the accumulator, here backing off between retries
/// of NOT_ENOUGH_REPLICAS, fails with a timeout the moment
/// delivery.timeout.ms has passed (Sender.canRetry, then
/// RecordAccumulator.expiredBatches), not at its next retry.
#[test]
fn a_retrying_batch_expires_when_delivery_timeout_ms_has_passed() {
    let config = ProducerConfig { linger_ms: 0, request_timeout_ms: 1_000, delivery_timeout_ms: 3_000, ..Default::default() };
    let topic = TopicConfig { min_insync_replicas: Some(3), ..Default::default() };
    let mut sim = stalled_followers(topic, vec![producer(1), ClientSpec::Producer(config)]);
    // The stalled followers leave the ISR, so acks=all is refused.
    sim.command(common::produce(0, "orders", Some("k"), "acks=1")).unwrap();
    sim.run_until(3_000);
    sim.command(common::produce(1, "orders", Some("k"), "acks=all")).unwrap();
    sim.run_until(8_000);
    let trace = sim.trace();
    let retries = trace.iter().filter(|e| matches!(e.kind, TraceKind::ProduceRetry { error: ErrorCode::NotEnoughReplicas, .. })).count();
    assert!(retries >= 3, "{retries} retries");
    let created = trace
        .iter()
        .find(|e| matches!(e.kind, TraceKind::PartitionChosen { client: NodeId::Client(1), .. }))
        .unwrap()
        .time_ms;
    let expired: Vec<u64> = trace.iter().filter(|e| matches!(e.kind, TraceKind::BatchExpired { .. })).map(|e| e.time_ms).collect();
    assert_eq!(expired, vec![created + 3_000]);
    assert_eq!(states(&sim, 1), vec![RecordState::Failed { error: ErrorCode::RequestTimedOut }]);
}
