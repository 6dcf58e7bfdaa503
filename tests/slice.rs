//! The request path inside one broker: a Produce through socket buffers,
//! network threads, the request queue, I/O threads and response queues.

mod common;

use common::produce;
use kafkascope::sim::config::{BrokerConfig, ProducerConfig, TopicSpec};
use kafkascope::sim::client::producer::RecordState;
use kafkascope::sim::ids::NodeId;
use kafkascope::sim::protocol::ApiKey;
use kafkascope::sim::simulation::{ClientSpec, ClusterConfig, Command, CommandError, MetadataSource, Simulation};
use kafkascope::sim::trace::{Direction, Stage, TraceKind};

fn one_broker(clients: u32, broker: BrokerConfig) -> Simulation {
    let config = ClusterConfig {
        brokers: 1,
        broker,
        topics: vec![TopicSpec::new("orders", 1, 1)],
        clients: (0..clients)
            .map(|_| ClientSpec::Producer(ProducerConfig { acks: 1, enable_idempotence: false, linger_ms: 0, ..Default::default() }))
            .collect(),
        metadata: MetadataSource::Fixed,
        ..ClusterConfig::default()
    };
    Simulation::new(config, 1).unwrap()
}

/// Each stage the Produce request and its response pass through, in order.
fn produce_hops(sim: &Simulation) -> Vec<(Direction, Stage, Stage)> {
    sim.trace()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Hop { api: ApiKey::Produce, direction, from, to, .. } => Some((*direction, *from, *to)),
            _ => None,
        })
        .collect()
}

fn offsets(sim: &Simulation, client: u32) -> Vec<i64> {
    sim.producer(client)
        .unwrap()
        .records()
        .iter()
        .filter_map(|r| match r.state {
            RecordState::Acknowledged { offset } => Some(offset),
            _ => None,
        })
        .collect()
}

#[test]
fn a_produce_travels_the_whole_request_path_in_order() {
    let mut sim = one_broker(1, BrokerConfig::default());
    sim.command(produce(0, "orders", Some("k"), "v")).unwrap();
    sim.run_until(100);
    use Direction::*;
    use Stage::*;
    assert_eq!(
        produce_hops(&sim),
        vec![
            (Request, Wire, SocketReceiveBuffer),
            (Request, SocketReceiveBuffer, NetworkThread(0)),
            (Request, NetworkThread(0), RequestQueue),
            (Request, RequestQueue, IoThread(0)),
            (Request, IoThread(0), LogAppend),
            (Response, LogAppend, ResponseQueue(0)),
            (Response, ResponseQueue(0), NetworkThread(0)),
            (Response, NetworkThread(0), SocketSendBuffer),
            (Response, Wire, Client),
        ]
    );
    assert_eq!(offsets(&sim, 0), vec![0]);
}

#[test]
fn the_client_asks_for_metadata_before_its_first_produce() {
    let mut sim = one_broker(1, BrokerConfig::default());
    sim.command(produce(0, "orders", Some("k"), "v")).unwrap();
    sim.run_until(100);
    let first_sent = sim
        .trace()
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::Sent { api, .. } if e.node == NodeId::Client(0) => Some(*api),
            _ => None,
        })
        .unwrap();
    assert_eq!(first_sent, ApiKey::Metadata);
}

#[test]
fn offsets_are_assigned_by_the_leader_in_order() {
    let mut sim = one_broker(1, BrokerConfig::default());
    for i in 0..3 {
        sim.command(produce(0, "orders", Some(&format!("k{i}")), "v")).unwrap();
        sim.run_until(sim.now_ms() + 50);
    }
    assert_eq!(offsets(&sim, 0), vec![0, 1, 2]);
    assert_eq!(sim.view().replica("orders", 0, 0).unwrap().log_end_offset, 3);
}

#[test]
fn a_connection_is_muted_while_its_request_is_inside_the_broker() {
    // Two requests on one connection, the second sent a millisecond after
    // the first, so it reaches the broker while the first is inside: it
    // waits in the socket receive buffer and is read only once the first
    // one's response is written.
    let mut sim = one_broker(1, BrokerConfig::default());
    sim.command(produce(0, "orders", Some("a"), "1")).unwrap();
    sim.run_until(20);
    let from = sim.trace().len();
    sim.command(produce(0, "orders", Some("b"), "2")).unwrap();
    sim.run_until(sim.now_ms() + 1);
    sim.command(produce(0, "orders", Some("c"), "3")).unwrap();
    sim.run_until(200);
    let trace = &sim.trace()[from..];
    let produce_ids: Vec<i32> = trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Sent { api: ApiKey::Produce, direction: Direction::Request, request, .. } => Some(request.correlation_id),
            _ => None,
        })
        .collect();
    assert_eq!(produce_ids.len(), 2, "b and c went in two requests: {produce_ids:?}");
    let (first, second) = (produce_ids[0], produce_ids[1]);
    let index_of = |pred: &dyn Fn(&TraceKind) -> bool| trace.iter().position(|e| pred(&e.kind)).unwrap();
    let second_arrived = index_of(&|k| {
        matches!(k, TraceKind::Hop { request, direction: Direction::Request, to: Stage::SocketReceiveBuffer, .. } if request.correlation_id == second)
    });
    let second_read = index_of(&|k| {
        matches!(k, TraceKind::Hop { request, direction: Direction::Request, to: Stage::NetworkThread(_), .. } if request.correlation_id == second)
    });
    let first_written = index_of(&|k| {
        matches!(k, TraceKind::Hop { request, to: Stage::SocketSendBuffer, .. } if request.correlation_id == first)
    });
    assert!(second_arrived < first_written, "the second request arrived while the first was inside the broker");
    assert!(second_read > first_written, "and was read only after the first was answered");
    assert!(trace.iter().any(|e| matches!(e.kind, TraceKind::ConnectionMuted { muted: true, .. })));
}

#[test]
fn connections_are_assigned_to_network_threads_round_robin() {
    // The clients connect out of id order, so assigning threads by client
    // id would not pass for round-robin.
    let mut sim = one_broker(3, BrokerConfig::default());
    for c in [2, 0, 1] {
        sim.command(produce(c, "orders", Some("k"), "v")).unwrap();
        sim.run_until(sim.now_ms() + 10);
    }
    sim.run_until(50);
    // The order the broker accepted the connections in: each one's first
    // request reaching the socket receive buffer.
    let mut accepted: Vec<NodeId> = Vec::new();
    for e in sim.trace() {
        if let TraceKind::Hop { request, from: Stage::Wire, to: Stage::SocketReceiveBuffer, .. } = &e.kind {
            if !accepted.contains(&request.client) {
                accepted.push(request.client);
            }
        }
    }
    assert_eq!(accepted, vec![NodeId::Client(2), NodeId::Client(0), NodeId::Client(1)], "in the order they first sent");
    // Kafka's Acceptor: the k-th connection goes to network thread k mod 2,
    // so the first and third share thread 0 and the second has thread 1.
    let broker = &sim.view().brokers[0];
    let thread_of = |client: NodeId| broker.network_threads.iter().find(|t| t.connections.iter().any(|c| c.client == client)).map(|t| t.id);
    let threads: Vec<Option<u32>> = accepted.iter().map(|c| thread_of(*c)).collect();
    assert_eq!(threads, vec![Some(0), Some(1), Some(0)], "{accepted:?}");
}

#[test]
fn a_full_request_queue_blocks_the_network_thread() {
    // A slow I/O thread makes requests pile up faster than they drain.
    let broker = BrokerConfig {
        num_network_threads: 1,
        num_io_threads: 1,
        queued_max_requests: 1,
        io_thread_ms: 10,
        ..Default::default()
    };
    let mut sim = one_broker(4, broker);
    for c in 0..4 {
        sim.command(produce(c, "orders", Some("k"), "v")).unwrap();
    }
    let mut saw_blocked = false;
    while sim.now_ms() < 500 && sim.step() {
        let b = &sim.view().brokers[0];
        assert!(b.request_queue.len() <= 1, "the request queue never exceeds queued.max.requests");
        saw_blocked |= b.network_threads[0].blocked.is_some();
    }
    assert!(saw_blocked, "with one slot and four clients the network thread must block on the put");
    assert!(sim.trace().iter().any(|e| matches!(e.kind, TraceKind::RequestQueueFull { .. })));
    for c in 0..4 {
        assert_eq!(offsets(&sim, c).len(), 1, "backpressure delays client {c}'s record but loses none");
    }
}

#[test]
fn bad_commands_are_refused_and_change_nothing() {
    let mut sim = one_broker(1, BrokerConfig::default());
    let before = sim.view();
    assert_eq!(sim.command(produce(9, "orders", None, "v")), Err(CommandError::UnknownClient(9)));
    assert_eq!(sim.command(produce(0, "nope", None, "v")), Err(CommandError::UnknownTopic("nope".into())));
    let huge = "x".repeat(2_000_000);
    assert!(matches!(sim.command(produce(0, "orders", None, &huge)), Err(CommandError::RecordTooLarge { .. })));
    let bad_partition = Command::Produce {
        client: 0,
        topic: "orders".into(),
        key: None,
        value: None,
        headers: vec![],
        partition: Some(5),
        timestamp_ms: None,
    };
    assert!(matches!(sim.command(bad_partition), Err(CommandError::UnknownPartition(_))));
    assert_eq!(sim.view(), before);
}
