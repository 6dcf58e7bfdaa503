//! The vertical slice: one Produce through one broker's whole request path.

use kafkascope::sim::broker::BrokerConfig;
use kafkascope::sim::ids::NodeId;
use kafkascope::sim::protocol::ErrorCode;
use kafkascope::sim::simulation::{ClusterConfig, Command, CommandError, Simulation, TopicSpec};
use kafkascope::sim::trace::{Direction, Stage, TraceKind};

fn produce(client: u32, key: &str) -> Command {
    Command::Produce { client, topic: "orders".into(), key: Some(key.into()), value: Some("v".into()), acks: 1 }
}

/// Each stage a request and its response pass through, in order.
fn hops_of(sim: &Simulation) -> Vec<(Direction, Stage, Stage)> {
    sim.trace()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Hop { direction, from, to, .. } => Some((*direction, *from, *to)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_produce_travels_the_whole_request_path_in_order() {
    let mut sim = Simulation::new(ClusterConfig::default(), 1).unwrap();
    sim.command(produce(0, "k")).unwrap();
    while sim.step() {}
    use Direction::*;
    use Stage::*;
    assert_eq!(
        hops_of(&sim),
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
    let view = sim.view();
    let outcome = &view.clients[0].produced[0];
    let result = outcome.result.as_ref().expect("the response arrived");
    assert_eq!((result.error, result.base_offset), (ErrorCode::None, 0));
}

#[test]
fn every_step_does_something_visible() {
    let mut sim = Simulation::new(ClusterConfig::default(), 1).unwrap();
    sim.command(produce(0, "k")).unwrap();
    while sim.step() {
        assert!(!sim.trace_of_step(sim.steps()).is_empty(), "step {} left no trace", sim.steps());
    }
}

#[test]
fn offsets_are_assigned_by_the_leader_in_order() {
    let mut sim = Simulation::new(ClusterConfig::default(), 1).unwrap();
    for i in 0..3 {
        sim.command(produce(0, &format!("k{i}"))).unwrap();
        while sim.step() {}
    }
    let view = sim.view();
    let offsets: Vec<i64> =
        view.clients[0].produced.iter().map(|o| o.result.as_ref().unwrap().base_offset).collect();
    assert_eq!(offsets, vec![0, 1, 2]);
    assert_eq!(view.brokers[0].partitions[0].log_end_offset, 3);
}

#[test]
fn a_connection_is_muted_while_its_request_is_inside_the_broker() {
    let mut sim = Simulation::new(ClusterConfig::default(), 1).unwrap();
    // Two requests on the same connection: the second may not be read until
    // the first one's response is written.
    sim.command(produce(0, "a")).unwrap();
    sim.command(produce(0, "b")).unwrap();
    while sim.step() {}
    let mut second_read_at = None;
    let mut first_answered_at = None;
    for (i, e) in sim.trace().iter().enumerate() {
        if let TraceKind::Hop { request, direction, to, .. } = &e.kind {
            if request.correlation_id == 2
                && *direction == Direction::Request
                && matches!(to, Stage::NetworkThread(_))
            {
                second_read_at.get_or_insert(i);
            }
            if request.correlation_id == 1 && *to == Stage::SocketSendBuffer {
                first_answered_at.get_or_insert(i);
            }
        }
    }
    assert!(second_read_at.unwrap() > first_answered_at.unwrap());
}

#[test]
fn connections_are_assigned_to_network_threads_round_robin() {
    let config = ClusterConfig { clients: 3, ..ClusterConfig::default() };
    let mut sim = Simulation::new(config, 1).unwrap();
    for c in 0..3 {
        sim.command(produce(c, "k")).unwrap();
    }
    sim.run_until(50);
    let broker = &sim.view().brokers[0];
    let owners: Vec<Vec<NodeId>> =
        broker.network_threads.iter().map(|t| t.connections.iter().map(|c| c.client).collect()).collect();
    // Arrival order depends on jitter, but with 3 connections and 2 threads
    // one thread owns two and the other one.
    let mut sizes: Vec<usize> = owners.iter().map(Vec::len).collect();
    sizes.sort();
    assert_eq!(sizes, vec![1, 2]);
}

#[test]
fn a_full_request_queue_blocks_the_network_thread() {
    let config = ClusterConfig {
        clients: 4,
        // A slow I/O thread makes requests pile up faster than they drain.
        broker: BrokerConfig {
            num_network_threads: 1,
            num_io_threads: 1,
            queued_max_requests: 1,
            io_thread_ms: 10,
            ..Default::default()
        },
        topics: vec![TopicSpec { name: "orders".into(), partitions: 1 }],
        link_jitter_ms: 0,
        ..ClusterConfig::default()
    };
    let mut sim = Simulation::new(config, 3).unwrap();
    for c in 0..4 {
        sim.command(produce(c, "k")).unwrap();
    }
    let mut saw_blocked = false;
    while sim.step() {
        let b = &sim.view().brokers[0];
        assert!(b.request_queue.len() <= 1, "the request queue never exceeds queued.max.requests");
        saw_blocked |= b.network_threads[0].blocked.is_some();
    }
    assert!(saw_blocked, "with one slot and four clients the network thread must block on the put");
    let done = sim.view().clients.iter().filter(|c| c.produced[0].result.is_some()).count();
    assert_eq!(done, 4, "backpressure delays requests but loses none");
}

#[test]
fn bad_commands_are_refused_and_change_nothing() {
    let mut sim = Simulation::new(ClusterConfig::default(), 1).unwrap();
    let before = sim.view();
    let bad_acks = Command::Produce { client: 0, topic: "orders".into(), key: None, value: None, acks: 2 };
    assert_eq!(sim.command(bad_acks), Err(CommandError::InvalidAcks(2)));
    assert_eq!(sim.command(produce(9, "k")), Err(CommandError::UnknownClient(9)));
    let unknown = Command::Produce { client: 0, topic: "nope".into(), key: None, value: None, acks: 1 };
    assert_eq!(sim.command(unknown), Err(CommandError::UnknownTopic("nope".into())));
    assert_eq!(sim.view(), before);
    assert!(!sim.has_pending());
}

#[test]
fn impossible_configs_are_rejected() {
    assert!(Simulation::new(ClusterConfig { brokers: 0, ..Default::default() }, 1).is_err());
    let no_threads = ClusterConfig {
        broker: BrokerConfig { num_io_threads: 0, ..Default::default() },
        ..Default::default()
    };
    assert!(Simulation::new(no_threads, 1).is_err());
}
