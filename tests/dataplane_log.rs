//! Data plane, item 3: the segment store seen through the cluster. Small
//! segments roll on every replica at the same offsets with the same bytes,
//! files are named by their base offset in 20 digits, the sparse offset index
//! gets an entry once more than index.interval.bytes were written, and
//! retention deletes whole segments below the high watermark only.

mod common;

use common::*;
use kafkascope::sim::config::{BrokerConfig, TopicConfig, TopicSpec};
use kafkascope::sim::ids::TopicPartition;
use kafkascope::sim::log::log::{DeletionReason, SegmentView};
use kafkascope::sim::protocol::ErrorCode;
use kafkascope::sim::simulation::Simulation;
use kafkascope::sim::trace::TraceKind;

const SEGMENT_BYTES: i32 = 300;
const INDEX_INTERVAL_BYTES: i32 = 100;

fn small_segments(extra: TopicConfig) -> TopicConfig {
    TopicConfig { segment_bytes: SEGMENT_BYTES, index_interval_bytes: INDEX_INTERVAL_BYTES, ..extra }
}

/// `count` records, one batch each, acks=all, spaced so each is its own batch.
fn produce_one_by_one(sim: &mut Simulation, count: usize, value_len: usize) {
    for i in 0..count {
        let value = format!("{i:0>width$}", width = value_len);
        sim.command(produce_to(0, "logs", 0, Some("k"), &value)).unwrap();
        run_for(sim, 20);
    }
}

fn segments(sim: &Simulation, broker: u32) -> Vec<SegmentView> {
    sim.view().replica("logs", 0, broker).unwrap().segments.clone()
}

#[test]
fn small_segments_roll_identically_on_every_replica() {
    let topic = TopicSpec { config: small_segments(TopicConfig::default()), ..TopicSpec::new("logs", 1, 3) };
    let mut sim = Simulation::new(cluster(3, BrokerConfig::default(), vec![topic], vec![producer(-1)]), 11).unwrap();
    produce_one_by_one(&mut sim, 20, 30);
    run_for(&mut sim, 1_000);
    assert_eq!(acked(&sim, 0), (0..20).collect::<Vec<i64>>());
    let tp = TopicPartition::new("logs", 0);
    let leader = leader_of(&sim, "logs", 0);
    let reference = segment_bytes(&sim, leader, &tp);
    assert!(reference.len() >= 4, "20 batches of ~100 bytes in 300-byte segments: {} segments", reference.len());
    for b in 0..3 {
        // Same segment files with the same bytes, byte for byte.
        assert_eq!(segment_bytes(&sim, b, &tp), reference, "broker {b} differs from the leader {leader}");
        assert_eq!(segments(&sim, b), segments(&sim, leader), "broker {b}: segment views differ");
    }
    let view = segments(&sim, leader);
    assert_eq!(view[0].name, "00000000000000000000.log");
    for (i, s) in view.iter().enumerate() {
        assert_eq!(s.name.len(), 24, "{}", s.name);
        assert_eq!(s.name, format!("{:020}.log", s.base_offset));
        assert!(s.size_bytes <= SEGMENT_BYTES as u32, "{} is {} bytes", s.name, s.size_bytes);
        assert_eq!(s.is_active, i == view.len() - 1);
        if i > 0 {
            assert_eq!(s.base_offset, view[i - 1].next_offset, "segments are contiguous");
            // The roll rule: the previous segment rolled because this
            // segment's first batch would have pushed it past segment.bytes.
            let p = sim.broker(leader).unwrap().partition(&tp).unwrap();
            let first = p.log.batches_in(s.base_offset).unwrap()[0].size_bytes;
            assert!(view[i - 1].size_bytes + first > SEGMENT_BYTES as u32, "{} rolled too early", view[i - 1].name);
        }
    }
    // Every replica reports its own rolls, at the same base offsets.
    let rolled_on = |b: u32| -> Vec<i64> {
        sim.trace()
            .iter()
            .filter_map(|e| match &e.kind {
                TraceKind::SegmentRolled { replica, base_offset, .. } if *replica == b => Some(*base_offset),
                _ => None,
            })
            .collect()
    };
    let expected: Vec<i64> = view[1..].iter().map(|s| s.base_offset).collect();
    for b in 0..3 {
        assert_eq!(rolled_on(b), expected, "SegmentRolled events of broker {b}");
    }
}

#[test]
fn offset_index_entries_follow_index_interval_bytes() {
    let topic = TopicSpec {
        config: TopicConfig { segment_bytes: 2_000, index_interval_bytes: INDEX_INTERVAL_BYTES, ..Default::default() },
        ..TopicSpec::new("logs", 1, 2)
    };
    let mut sim = Simulation::new(cluster(2, BrokerConfig::default(), vec![topic], vec![producer(-1)]), 2).unwrap();
    produce_one_by_one(&mut sim, 30, 20);
    run_for(&mut sim, 1_000);
    let tp = TopicPartition::new("logs", 0);
    let mut total_entries = 0;
    for b in 0..2 {
        let p = sim.broker(b).unwrap().partition(&tp).unwrap();
        for s in p.log.segments_view() {
            // Kafka's LogSegment.append: an entry (the batch's last offset, its
            // position) when more than index.interval.bytes were written since
            // the last entry, counted before this batch; so never for the
            // first batch of a segment.
            let mut expected = Vec::new();
            let mut since = 0u32;
            for batch in p.log.batches_in(s.base_offset).unwrap() {
                if since > INDEX_INTERVAL_BYTES as u32 {
                    expected.push((batch.last_offset, batch.position));
                    since = 0;
                }
                since += batch.size_bytes;
            }
            assert_eq!(s.index_entries, expected, "broker {b} {}", s.name);
            assert!(s.index_entries.first().is_none_or(|e| e.1 > 0), "the first batch never gets an entry");
            total_entries += s.index_entries.len();
            // The index is sparse: fewer entries than batches.
            assert!((s.index_entries.len() as u32) < s.batch_count.max(1));
            // The time index grows with the offset index, timestamps never going back.
            let ts: Vec<i64> = s.time_index_entries.iter().map(|e| e.0).collect();
            assert!(ts.windows(2).all(|w| w[0] <= w[1]), "{ts:?}");
        }
    }
    assert!(total_entries >= 10, "30 batches of ~85 bytes with a 100-byte interval give many entries: {total_entries}");
}

/// A cluster for the retention tests: one producer (acks=all) and a consumer.
fn retention_cluster(topic_config: TopicConfig, broker: BrokerConfig, rf: u32) -> Simulation {
    let topic = TopicSpec { config: small_segments(topic_config), ..TopicSpec::new("logs", 1, rf) };
    Simulation::new(cluster(rf, broker, vec![topic], vec![producer(-1), consumer()]), 4).unwrap()
}

/// How many of the oldest segments Kafka's size rule deletes: while the log
/// minus retention.bytes still covers the whole next segment.
fn expected_by_size(sizes: &[u32], retention_bytes: i64) -> usize {
    let mut excess = sizes.iter().map(|s| *s as i64).sum::<i64>() - retention_bytes;
    let mut n = 0;
    for s in sizes {
        if excess - *s as i64 >= 0 {
            excess -= *s as i64;
            n += 1;
        } else {
            break;
        }
    }
    n
}

fn deleted_on(sim: &Simulation, broker: u32) -> Vec<(i64, DeletionReason, i64)> {
    sim.trace()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::SegmentDeleted { replica, base_offset, reason, log_start_offset, .. } if *replica == broker => {
                Some((*base_offset, *reason, *log_start_offset))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn retention_bytes_deletes_whole_old_segments_and_moves_the_log_start_offset() {
    let retention_bytes = 700;
    let broker = BrokerConfig { log_retention_check_interval_ms: 1_000, log_initial_task_delay_ms: 1_000, ..Default::default() };
    let mut sim = retention_cluster(TopicConfig { retention_bytes, ..Default::default() }, broker, 2);
    produce_one_by_one(&mut sim, 20, 30);
    sim.run_until(990);
    assert_eq!(acked(&sim, 0).len(), 20);
    let before: Vec<Vec<SegmentView>> = (0..2).map(|b| segments(&sim, b)).collect();
    assert_eq!(before[0], before[1]);
    assert!(deleted_on(&sim, 0).is_empty(), "no retention check ran yet");
    sim.run_until(1_010);
    let sizes: Vec<u32> = before[0].iter().map(|s| s.size_bytes).collect();
    let n = expected_by_size(&sizes, retention_bytes);
    assert!(n >= 2 && n < sizes.len(), "the workload must make the rule delete some but not all: {n} of {sizes:?}");
    for b in 0..2 {
        let after = segments(&sim, b);
        // Whole segments went, oldest first; the rest is untouched.
        assert_eq!(after, before[b as usize][n..].to_vec(), "broker {b}");
        let replica = sim.view().replica("logs", 0, b).unwrap().clone();
        assert_eq!(replica.log_start_offset, after[0].base_offset, "broker {b}");
        assert_eq!(replica.log_end_offset, 20, "retention never touches the log end");
        let deleted = deleted_on(&sim, b);
        let expected: Vec<(i64, DeletionReason, i64)> =
            before[b as usize][..n].iter().map(|s| (s.base_offset, DeletionReason::Size, after[0].base_offset)).collect();
        assert_eq!(deleted, expected, "broker {b}");
        let remaining: i64 = after.iter().map(|s| s.size_bytes as i64).sum();
        assert!(remaining >= retention_bytes, "the size rule never cuts below retention.bytes");
    }
    // Below the log start offset there is nothing to read any more.
    let lso = sim.view().replica("logs", 0, 0).unwrap().log_start_offset;
    sim.command(common::fetch(1, "logs", 0, Some(0))).unwrap();
    run_for(&mut sim, 100);
    sim.command(common::fetch(1, "logs", 0, Some(lso))).unwrap();
    run_for(&mut sim, 100);
    let fetches = sim.consumer(1).unwrap().fetches().to_vec();
    assert_eq!(fetches[0].result.as_ref().unwrap().error, ErrorCode::OffsetOutOfRange);
    let second = fetches[1].result.as_ref().unwrap();
    assert_eq!(second.error, ErrorCode::None);
    assert!(second.records > 0);
    assert_eq!(sim.consumer(1).unwrap().consumed()[0].offset, lso);
}

#[test]
fn retention_ms_deletes_segments_whose_newest_record_is_too_old() {
    let retention_ms = 2_000;
    let broker = BrokerConfig { log_retention_check_interval_ms: 250, log_initial_task_delay_ms: 250, ..Default::default() };
    let mut sim = retention_cluster(TopicConfig { retention_ms, ..Default::default() }, broker, 2);
    // Old records at t≈0..200, then newer ones from t=1500.
    produce_one_by_one(&mut sim, 10, 30);
    sim.run_until(1_500);
    produce_one_by_one(&mut sim, 10, 30);
    sim.run_until(2_240);
    let before = segments(&sim, 0);
    assert!(deleted_on(&sim, 0).is_empty(), "nothing is older than 2 s yet");
    // The check at 2250 ms: only segments whose newest timestamp is more than
    // retention.ms before now go.
    sim.run_until(2_260);
    let now = 2_250i64;
    let n = before.iter().take_while(|s| now - s.largest_timestamp > retention_ms).count();
    assert!(n >= 1 && n < before.len(), "some but not all segments are old: {n} of {}", before.len());
    for b in 0..2 {
        let after = segments(&sim, b);
        assert_eq!(after, before[n..].to_vec(), "broker {b}");
        assert!(deleted_on(&sim, b).iter().all(|d| d.1 == DeletionReason::Time));
        assert_eq!(sim.view().replica("logs", 0, b).unwrap().log_start_offset, after[0].base_offset);
    }
    // Once everything is old, even the active segment goes: a new empty one
    // is rolled at the log end offset, which becomes the log start offset.
    sim.run_until(5_000);
    for b in 0..2 {
        let r = sim.view().replica("logs", 0, b).unwrap().clone();
        assert_eq!(r.log_end_offset, 20);
        assert_eq!(r.log_start_offset, 20, "broker {b}");
        assert_eq!(r.segments.len(), 1);
        assert_eq!(r.segments[0].name, "00000000000000000020.log");
        assert_eq!(r.segments[0].size_bytes, 0);
    }
}

#[test]
fn retention_never_deletes_past_the_high_watermark() {
    use common::harness::{self, Harness};
    use kafkascope::sim::ids::NodeId;
    // Two real brokers; the follower's fetches are held back, as by a
    // network partition, so the leader's high watermark stays at 0.
    let tp = TopicPartition::new("logs", 0);
    let image = harness::metadata(&[0, 1], &[(tp.clone(), vec![0, 1], 0, 0, vec![0, 1])]);
    let config = small_segments(TopicConfig { retention_bytes: 300, ..Default::default() });
    let topics = [("logs".to_string(), config)].into_iter().collect();
    let broker = BrokerConfig { log_retention_check_interval_ms: 100, log_initial_task_delay_ms: 100, ..Default::default() };
    let mut h = Harness::new(broker, vec![(0, image.clone()), (1, image)], &topics);
    h.deliver_between_brokers = false;
    for i in 0..20 {
        let value = format!("{i:0>30}");
        h.send(NodeId::Client(0), 0, harness::produce_request(0, i, &tp, 1, 30_000, harness::batch(&[&value], 0)));
        h.run_until(h.now_ms + 10);
    }
    h.run_until(1_000);
    let answers = harness::produce_answers(&h.take_sent_to(NodeId::Client(0)));
    assert_eq!(answers.iter().map(|a| a.1.base_offset).collect::<Vec<_>>(), (0..20).collect::<Vec<i64>>());
    let leader = h.broker(0).partition(&tp).unwrap();
    assert_eq!(leader.log.log_end_offset(), 20);
    assert_eq!(leader.high_watermark, 0);
    assert!(leader.log.segments().len() >= 4);
    assert!(leader.log.size_bytes() > 300, "over retention.bytes");
    let deletions = |h: &Harness| h.trace.iter().filter(|t| matches!(t.2, TraceKind::SegmentDeleted { .. })).count();
    assert_eq!(deletions(&h), 0, "ten retention checks ran, but nothing is below the high watermark");
    assert_eq!(leader.log.log_start_offset(), 0);
    // Let the follower's first fetch through: it replicates, the HW catches
    // up, and the next check deletes.
    let held: Vec<_> = h.take_sent_to(NodeId::Broker(0));
    assert!(!held.is_empty(), "the follower did try to fetch");
    h.deliver_between_brokers = true;
    h.send(NodeId::Broker(1), 0, held[0].msg.clone());
    h.run_until(1_500);
    let leader = h.broker(0).partition(&tp).unwrap();
    assert_eq!(leader.high_watermark, 20);
    assert!(deletions(&h) > 0);
    assert!(leader.log.log_start_offset() > 0);
    assert!(leader.log.size_bytes() >= 300);
}

#[test]
fn retention_first_runs_after_the_initial_task_delay_then_every_interval() {
    // LogManager.startup: kafka-log-retention runs first after
    // log.initial.task.delay.ms (30 s by default), then every
    // log.retention.check.interval.ms; a log over retention.bytes from the
    // first second keeps its segments until then.
    let broker = BrokerConfig { log_retention_check_interval_ms: 1_000, ..Default::default() };
    assert_eq!(broker.log_initial_task_delay_ms, 30_000);
    let mut sim = retention_cluster(TopicConfig { retention_bytes: 700, ..Default::default() }, broker, 1);
    produce_one_by_one(&mut sim, 20, 30);
    sim.run_until(29_990);
    assert!(deleted_on(&sim, 0).is_empty(), "no retention check before 30 s, though the log is over retention.bytes");
    sim.run_until(30_010);
    let first: Vec<u64> = deletion_times(&sim);
    assert!(!first.is_empty() && first.iter().all(|t| (30_000..30_010).contains(t)), "the first check at 30 s: {first:?}");
    // More records; the next check, a second later, deletes again.
    produce_one_by_one(&mut sim, 20, 30);
    sim.run_until(31_990);
    let later: Vec<u64> = deletion_times(&sim).into_iter().filter(|t| *t > 30_010).collect();
    assert!(!later.is_empty() && later.iter().all(|t| (31_000..31_010).contains(t)), "then every second: {later:?}");
}

fn deletion_times(sim: &Simulation) -> Vec<u64> {
    sim.trace().iter().filter(|e| matches!(e.kind, TraceKind::SegmentDeleted { .. })).map(|e| e.time_ms).collect()
}
