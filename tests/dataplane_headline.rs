//! Data plane, item 8, the headline: three brokers, a topic with three
//! replicas, an acks=all produce and then a consumer's fetch, followed hop by
//! hop through the trace, including the two follower fetches that release the
//! produce from purgatory.

mod common;

use common::*;
use kafkascope::sim::config::{BrokerConfig, TopicSpec};
use kafkascope::sim::ids::{NodeId, RequestId, TopicPartition};
use kafkascope::sim::protocol::{ApiKey, ErrorCode};
use kafkascope::sim::simulation::Simulation;
use kafkascope::sim::trace::{Direction, ReadBound, Stage, TraceEvent, TraceKind, WaitReason};

/// One line per event of a request: where it happened and what, with the
/// thread numbers kept, so the expected path can say "the same thread".
fn describe(e: &TraceEvent) -> String {
    let node = e.node.to_string();
    match &e.kind {
        TraceKind::Sent { direction, to, .. } => format!("{node}: {direction:?} sent to {to}"),
        TraceKind::Hop { direction, from, to, .. } => format!("{node}: {direction:?} {from} -> {to}"),
        TraceKind::Appended { replica, base_offset, last_offset, log_end_offset, .. } => {
            format!("{node}: appended on {replica} {base_offset}..={last_offset} LEO {log_end_offset}")
        }
        TraceKind::Parked { .. } => format!("{node}: parked"),
        TraceKind::PurgatoryCompleted { expired, .. } => format!("{node}: completed expired={expired}"),
        TraceKind::LogRead { fetch_offset, upper_bound, .. } => format!("{node}: read from {fetch_offset} up to {upper_bound:?}"),
        TraceKind::ProduceCompleted { base_offset, error, records, .. } => {
            format!("{node}: produce completed {} base {base_offset} records {records}", error.name())
        }
        TraceKind::FetchCompleted { records, next_offset, high_watermark, error, .. } => {
            format!("{node}: fetch completed {} records {records} next {next_offset} HW {high_watermark}", error.name())
        }
        other => format!("{node}: {other:?}"),
    }
}

fn thread_of(events: &[&TraceEvent], pick: impl Fn(&Stage) -> Option<u32>) -> u32 {
    events
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::Hop { to, .. } => pick(to),
            _ => None,
        })
        .unwrap()
}

#[test]
fn an_acks_all_produce_and_a_fetch_hop_by_hop_on_three_brokers() {
    let config = cluster(3, BrokerConfig::default(), vec![TopicSpec::new("orders", 1, 3)], vec![producer(-1), consumer()]);
    let mut sim = Simulation::new(config, 42).unwrap();
    sim.command(common::produce(0, "orders", Some("k"), "v")).unwrap();
    run_for(&mut sim, 100);
    sim.command(common::fetch(1, "orders", 0, Some(0))).unwrap();
    run_for(&mut sim, 100);

    let trace = sim.trace();
    let l = leader_of(&sim, "orders", 0);
    let leader = NodeId::Broker(l);
    let followers = followers_of(&sim, "orders", 0);
    assert_eq!(followers.len(), 2);

    // ----- The produce, on the producer and the leader -----
    let produce = sent_requests(trace, NodeId::Client(0), ApiKey::Produce);
    assert_eq!(produce.len(), 1);
    let produce = produce[0];
    let events = events_of(trace, produce);
    let n = thread_of(&events, |s| if let Stage::NetworkThread(n) = s { Some(*n) } else { None });
    let io = thread_of(&events, |s| if let Stage::IoThread(m) = s { Some(*m) } else { None });
    let expected = [
        "client-0: Request sent to LEADER".to_string(),
        "LEADER: Request wire -> socket-recv".into(),
        format!("LEADER: Request socket-recv -> net-{n}"),
        format!("LEADER: Request net-{n} -> request-queue"),
        format!("LEADER: Request request-queue -> io-{io}"),
        format!("LEADER: Request io-{io} -> log-append"),
        format!("LEADER: appended on {l} 0..=0 LEO 1"),
        "LEADER: Request log-append -> purgatory".into(),
        "LEADER: parked".into(),
        "LEADER: completed expired=false".into(),
        // The response goes back through the network thread that owns the connection.
        format!("LEADER: Response purgatory -> response-queue-{n}"),
        format!("LEADER: Response response-queue-{n} -> net-{n}"),
        format!("LEADER: Response net-{n} -> socket-send"),
        "LEADER: Response sent to client-0".into(),
        "client-0: Response wire -> client".into(),
        "client-0: produce completed NONE base 0 records 1".into(),
    ]
    .map(|s| s.replace("LEADER", &leader.to_string()));
    let got: Vec<String> = events.iter().map(|e| describe(e)).collect();
    assert_eq!(got, expected);
    let parked = events.iter().find(|e| matches!(e.kind, TraceKind::Parked { .. })).unwrap();
    match &parked.kind {
        TraceKind::Parked { waits, timeout_ms, .. } => {
            assert_eq!(*timeout_ms, 30_000);
            let mut laggards = match &waits[..] {
                [WaitReason::HighWatermark { partition, required_offset: 1, high_watermark: 0, laggards }] => {
                    assert_eq!(partition, &TopicPartition::new("orders", 0));
                    laggards.clone()
                }
                other => panic!("waits {other:?}"),
            };
            laggards.sort();
            let mut expected: Vec<(u32, i64)> = followers.iter().map(|f| (*f, 0)).collect();
            expected.sort();
            assert_eq!(laggards, expected, "it waits for both followers, at LEO 0");
        }
        _ => unreachable!(),
    }
    let appended = events.iter().find(|e| matches!(e.kind, TraceKind::Appended { .. })).unwrap();
    let released = events.iter().find(|e| matches!(e.kind, TraceKind::PurgatoryCompleted { .. })).unwrap();

    // ----- The follower fetches in between -----
    let mut second_fetch_steps = Vec::new();
    for f in &followers {
        let fetches = sent_requests(trace, NodeId::Broker(*f), ApiKey::Fetch);
        // The fetch that carried the record was waiting in purgatory since
        // before the produce, and the leader's append woke it.
        let carrier = fetches
            .iter()
            .copied()
            .find(|r| events_of(trace, *r).iter().any(|e| matches!(&e.kind, TraceKind::Appended { replica, .. } if replica == f)))
            .expect("a fetch carried the record");
        let ev = events_of(trace, carrier);
        let fl = NodeId::Broker(*f);
        let fnet = thread_of(&ev, |s| if let Stage::NetworkThread(n) = s { Some(*n) } else { None });
        let fio = thread_of(&ev, |s| if let Stage::IoThread(m) = s { Some(*m) } else { None });
        let expected = [
            format!("{fl}: Request sent to {leader}"),
            format!("{leader}: Request wire -> socket-recv"),
            format!("{leader}: Request socket-recv -> net-{fnet}"),
            format!("{leader}: Request net-{fnet} -> request-queue"),
            format!("{leader}: Request request-queue -> io-{fio}"),
            format!("{leader}: Request io-{fio} -> log-read"),
            format!("{leader}: read from 0 up to LogEndOffset"),
            format!("{leader}: Request log-read -> purgatory"),
            format!("{leader}: parked"),
            format!("{leader}: completed expired=false"),
            format!("{leader}: Response purgatory -> response-queue-{fnet}"),
            format!("{leader}: Response response-queue-{fnet} -> net-{fnet}"),
            format!("{leader}: Response net-{fnet} -> socket-send"),
            format!("{leader}: Response sent to {fl}"),
            format!("{fl}: Response wire -> replica-fetcher-{l}"),
            format!("{fl}: appended on {f} 0..=0 LEO 1"),
        ];
        let got: Vec<String> = ev.iter().map(|e| describe(e)).collect();
        assert_eq!(got, expected, "follower {f}'s fetch");
        let woken = ev.iter().find(|e| matches!(e.kind, TraceKind::PurgatoryCompleted { .. })).unwrap();
        assert_eq!(woken.step, appended.step, "the leader's append woke follower {f}'s fetch");
        assert!(ev[0].step < appended.step, "it was sent before the produce arrived");
        // Its next fetch, from offset 1, is the acknowledgement.
        let next = fetches[fetches.iter().position(|r| *r == carrier).unwrap() + 1];
        let nev = events_of(trace, next);
        let read = nev
            .iter()
            .find(|e| matches!(e.kind, TraceKind::LogRead { .. }))
            .expect("the next fetch was read on the leader");
        assert_eq!(describe(read), format!("{leader}: read from 1 up to LogEndOffset"));
        assert!(nev[0].step > ev.last().unwrap().step, "sent after the follower's append");
        second_fetch_steps.push(read.step);
    }
    // The HW moves when the second of the two acknowledgements is handled,
    // and that same step releases the produce.
    let hw = trace
        .iter()
        .find(|e| matches!(&e.kind, TraceKind::HighWatermarkAdvanced { replica, .. } if *replica == l))
        .unwrap();
    match &hw.kind {
        TraceKind::HighWatermarkAdvanced { from, to, isr, .. } => {
            assert_eq!((*from, *to), (0, 1));
            assert_eq!(isr.len(), 3);
        }
        _ => unreachable!(),
    }
    assert_eq!(hw.step, *second_fetch_steps.iter().max().unwrap());
    assert_eq!(released.step, hw.step);
    let hw_index = trace.iter().position(|e| std::ptr::eq(e, hw)).unwrap();
    let released_index = trace.iter().position(|e| std::ptr::eq(e, *released)).unwrap();
    assert!(hw_index < released_index);

    // ----- The consumer's fetch -----
    let fetch: Vec<RequestId> = sent_requests(trace, NodeId::Client(1), ApiKey::Fetch);
    assert_eq!(fetch.len(), 1);
    let ev = events_of(trace, fetch[0]);
    let cn = thread_of(&ev, |s| if let Stage::NetworkThread(n) = s { Some(*n) } else { None });
    let cio = thread_of(&ev, |s| if let Stage::IoThread(m) = s { Some(*m) } else { None });
    let expected = [
        format!("client-1: Request sent to {leader}"),
        format!("{leader}: Request wire -> socket-recv"),
        format!("{leader}: Request socket-recv -> net-{cn}"),
        format!("{leader}: Request net-{cn} -> request-queue"),
        format!("{leader}: Request request-queue -> io-{cio}"),
        format!("{leader}: Request io-{cio} -> log-read"),
        format!("{leader}: read from 0 up to HighWatermark"),
        format!("{leader}: Response log-read -> response-queue-{cn}"),
        format!("{leader}: Response response-queue-{cn} -> net-{cn}"),
        format!("{leader}: Response net-{cn} -> socket-send"),
        format!("{leader}: Response sent to client-1"),
        "client-1: Response wire -> client".into(),
        "client-1: fetch completed NONE records 1 next 1 HW 1".into(),
    ];
    let got: Vec<String> = ev.iter().map(|e| describe(e)).collect();
    assert_eq!(got, expected);
    let (bytes, bound, error) = ev
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::LogRead { bytes, upper_bound, error, .. } => Some((*bytes, *upper_bound, *error)),
            _ => None,
        })
        .unwrap();
    let tp = TopicPartition::new("orders", 0);
    let batch_size = sim.broker(l).unwrap().partition(&tp).unwrap().log.batches_in(0).unwrap()[0].size_bytes;
    assert_eq!((bytes, bound, error), (batch_size, ReadBound::HighWatermark, ErrorCode::None));
    let consumed = sim.consumer(1).unwrap().consumed();
    assert_eq!(consumed.len(), 1);
    assert_eq!((consumed[0].offset, consumed[0].key.as_deref(), consumed[0].value.as_deref()), (0, Some("k"), Some("v")));
    // The request ids keep both directions of the story together.
    assert!(ev.iter().all(|e| e.kind.request() == Some(fetch[0])));
    assert!(ev.iter().any(|e| matches!(&e.kind, TraceKind::Hop { direction: Direction::Response, .. })));
}
