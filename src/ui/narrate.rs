//! One sentence for each trace event, saying what happened and, where it
//! teaches something, why.

use crate::sim::protocol::ErrorCode;
use crate::sim::trace::{Direction, PartitionReason, ReadBound, Stage, TraceEvent, TraceKind, WaitReason};

/// A stage's name as the page writes it.
pub fn stage_name(stage: Stage) -> String {
    match stage {
        Stage::Client => "the client".into(),
        Stage::Wire => "the network".into(),
        Stage::SocketReceiveBuffer => "the socket receive buffer".into(),
        Stage::NetworkThread(n) => format!("network thread {n}"),
        Stage::RequestQueue => "the request queue".into(),
        Stage::IoThread(n) => format!("I/O thread {n}"),
        Stage::LogAppend => "the log append".into(),
        Stage::LogRead => "the log read".into(),
        Stage::Purgatory => "purgatory".into(),
        Stage::ResponseQueue(n) => format!("the response queue of network thread {n}"),
        Stage::SocketSendBuffer => "the socket send buffer".into(),
        Stage::ReplicaFetcher(n) => format!("the replica fetcher for broker {n}"),
    }
}

fn subject(api: &crate::sim::protocol::ApiKey, request: &crate::sim::ids::RequestId, direction: &Direction) -> String {
    let follower = matches!(request.client, crate::sim::ids::NodeId::Broker(_));
    let name = if follower { format!("follower {}", api.name()) } else { api.name().to_string() };
    match direction {
        Direction::Request => format!("{name} request {request}"),
        Direction::Response => format!("The response to {name} request {request}"),
    }
}

/// What a delayed operation waits for, in words.
pub fn describe_wait(w: &WaitReason) -> String {
    match w {
        WaitReason::HighWatermark { partition, required_offset, high_watermark, laggards } => {
            let behind: Vec<String> = laggards.iter().map(|(b, leo)| format!("follower {b} at {leo}")).collect();
            if behind.is_empty() {
                format!("{partition}: waiting for the high watermark to reach {required_offset} (now {high_watermark})")
            } else {
                format!(
                    "{partition}: waiting for the high watermark to reach {required_offset} (now {high_watermark}; {})",
                    behind.join(", ")
                )
            }
        }
        WaitReason::MinBytes { min_bytes, available_bytes } => {
            format!("waiting for {min_bytes} byte(s) to read ({available_bytes} available)")
        }
    }
}

pub fn narrate(event: &TraceEvent) -> String {
    match &event.kind {
        TraceKind::BrokerStarted { broker } => format!(
            "Broker {broker} started its network threads, I/O threads, replica fetchers and periodic tasks."
        ),
        TraceKind::Hop { request, api, direction, from, to } => {
            let what = subject(api, request, direction);
            let why = match (direction, to) {
                (Direction::Request, Stage::SocketReceiveBuffer) => {
                    " Its bytes wait there until the connection's network thread reads them."
                }
                (Direction::Request, Stage::NetworkThread(_)) => " The network thread reads the whole request from the socket.",
                (Direction::Request, Stage::RequestQueue) => {
                    " All network threads share this one bounded queue; any free I/O thread may take it."
                }
                (Direction::Request, Stage::IoThread(_)) => " The I/O thread runs the API handler.",
                (Direction::Request, Stage::LogAppend) => {
                    " The leader validates the batch, assigns offsets from its log end offset and appends it."
                }
                (Direction::Request, Stage::LogRead) => {
                    " The broker finds the fetch offset through the sparse offset index, then scans batches forward."
                }
                (Direction::Request, Stage::Purgatory) => " It cannot be answered yet, so it waits as a delayed operation.",
                (Direction::Response, Stage::ResponseQueue(_)) => {
                    " Each network thread has its own response queue: the response goes back through the thread that owns the connection."
                }
                (Direction::Response, Stage::SocketSendBuffer) => {
                    " The connection is unmuted, so the broker may read the next request on it."
                }
                (Direction::Response, Stage::Client) => " The client now has its answer.",
                (Direction::Response, Stage::ReplicaFetcher(_)) => {
                    " The follower appends what it got and fetches again from its new log end offset."
                }
                _ => "",
            };
            format!("{what} moved from {} to {}.{why}", stage_name(*from), stage_name(*to))
        }
        TraceKind::Sent { request, api, direction, to, arrives_at_ms } => {
            format!("{} was sent to {to} over the network; it arrives at {arrives_at_ms} ms.", subject(api, request, direction))
        }
        TraceKind::ConnectionMuted { client, muted: true } => format!(
            "The connection from {client} is muted: the broker reads no more requests from it until this one is answered, which keeps responses in order."
        ),
        TraceKind::ConnectionMuted { client, muted: false } => {
            format!("The connection from {client} is unmuted: its next request may be read.")
        }
        TraceKind::RequestQueueFull { request, thread, capacity } => format!(
            "The request queue is full ({capacity} of {capacity}): network thread {thread} blocks holding {request} and stops serving all of its connections. This is how Kafka pushes back on clients."
        ),
        TraceKind::NoResponse { request, client } => format!(
            "{request} used acks=0, so the broker sends {client} no response at all and just unmutes the connection."
        ),
        TraceKind::Appended { partition, replica, base_offset, last_offset, log_end_offset, segment, position, .. } => {
            let range = if base_offset == last_offset {
                format!("offset {base_offset}")
            } else {
                format!("offsets {base_offset} to {last_offset}")
            };
            format!(
                "Broker {replica} appended {range} to {partition} (segment {segment:020}.log, byte {position}); its log end offset is now {log_end_offset}. Offsets count per partition."
            )
        }
        TraceKind::ProduceRejected { partition, error, detail, .. } => {
            format!("The leader refused the batch for {partition} with {error}: {detail}. Nothing was written.")
        }
        TraceKind::DuplicateBatch { partition, producer_id, base_sequence, original_base_offset, .. } => format!(
            "Producer {producer_id} sent sequence {base_sequence} to {partition} again: the broker recognises the retry and answers with the original offset {original_base_offset} instead of writing it twice."
        ),
        TraceKind::SegmentRolled { partition, replica, base_offset, reason } => format!(
            "Broker {replica} rolled a new segment for {partition}: {base_offset:020}.log ({reason})."
        ),
        TraceKind::SegmentDeleted { partition, replica, base_offset, reason, log_start_offset } => format!(
            "Retention on broker {replica} deleted the whole segment {base_offset:020}.log of {partition} ({reason}); the log start offset is now {log_start_offset}. Retention never deletes single records."
        ),
        TraceKind::LogRead { partition, replica, fetch_offset, bytes, upper_bound, error, .. } => {
            let bound = match upper_bound {
                ReadBound::HighWatermark => "the high watermark, because consumers see only committed records",
                ReadBound::LogEndOffset => "the log end offset, because followers copy everything",
            };
            if *error == ErrorCode::None {
                format!("Broker {replica} read {bytes} bytes of {partition} from offset {fetch_offset}, up to {bound}.")
            } else {
                format!("Broker {replica} could not read {partition} from offset {fetch_offset}: {error}.")
            }
        }
        TraceKind::Parked { request, waits, timeout_ms, .. } => {
            let why: Vec<String> = waits.iter().map(describe_wait).collect();
            format!("{request} waits in purgatory for at most {timeout_ms} ms: {}.", why.join("; "))
        }
        TraceKind::PurgatoryCompleted { request, expired: false, .. } => {
            format!("{request} leaves purgatory: what it waited for has happened.")
        }
        TraceKind::PurgatoryCompleted { request, expired: true, .. } => {
            if matches!(request.client, crate::sim::ids::NodeId::Broker(_)) {
                format!(
                    "Follower fetch {request} waited its replica.fetch.wait.max.ms without new records and is answered with what it can read now."
                )
            } else {
                format!(
                    "{request} reached its timeout in purgatory and is answered with what holds now: a fetch gets what it can read; a produce gets REQUEST_TIMED_OUT, yet its records stay in the leader's log."
                )
            }
        }
        TraceKind::HighWatermarkAdvanced { partition, replica, from, to, isr } => format!(
            "The high watermark of {partition} on leader {replica} moved from {from} to {to}: every in-sync replica {isr:?} has the records below it, so they are committed."
        ),
        TraceKind::IsrShrunk { partition, removed, lag_ms, isr } => format!(
            "Replica {removed:?} left the ISR of {partition}: not caught up for {lag_ms} ms, more than replica.lag.time.max.ms. Lag is measured in time, not messages. The ISR becomes {isr:?}: with a controller quorum once the active controller commits the leader's AlterPartition, and until then the replica still holds the high watermark back."
        ),
        TraceKind::IsrExpanded { partition, replica, follower_leo, isr } => format!(
            "Follower {replica} rejoined the ISR of {partition}: its log end offset {follower_leo} reached the high watermark. ISR now {isr:?}."
        ),
        TraceKind::FollowerTruncated { partition, replica, to_offset, epoch } => format!(
            "Follower {replica} truncated {partition} to offset {to_offset}: its log diverged from the leader's after leader epoch {epoch}."
        ),
        TraceKind::FollowerHighWatermark { partition, replica, high_watermark } => format!(
            "Follower {replica} set its high watermark of {partition} to {high_watermark}, the smaller of the leader's and its own log end offset."
        ),
        TraceKind::PartitionChosen { client, partition, reason } => match reason {
            PartitionReason::Keyed { murmur2, positive, partitions } => format!(
                "{client} hashed the key: murmur2 = {murmur2}, & 0x7fffffff = {positive}, mod {partitions} = {} → {partition}. The same key always lands on the same partition.",
                partition.partition
            ),
            PartitionReason::Sticky { detail } => format!(
                "{client} has no key for this record, so the sticky partitioner keeps filling {partition} ({detail}) until about batch.size bytes went there. It is not round-robin."
            ),
            PartitionReason::RoundRobin { counter } => {
                format!("{client}'s RoundRobinPartitioner sent record number {counter} to {partition}.")
            }
            PartitionReason::Explicit => format!("{client} was told to use {partition}."),
        },
        TraceKind::BatchReady { client, partition, records, bytes, reason } => format!(
            "{client}'s batch for {partition} is ready to send: {records} record(s), {bytes} bytes ({reason})."
        ),
        TraceKind::MetadataUpdated { client, leaders } => {
            let list: Vec<String> = leaders
                .iter()
                .map(|(tp, l)| format!("{tp} → {}", l.map(|l| format!("broker {l}")).unwrap_or_else(|| "no leader".into())))
                .collect();
            format!("{client} learned who leads each partition: {}.", list.join(", "))
        }
        TraceKind::ProducerIdAssigned { client, producer_id, producer_epoch } => format!(
            "{client} is idempotent: the broker gave it producer id {producer_id}, epoch {producer_epoch}. Each batch now carries a sequence number."
        ),
        TraceKind::ProduceCompleted { request, partition, base_offset, error, records } => {
            if *error == ErrorCode::None {
                format!("Produce {request} succeeded: {records} record(s) in {partition} from offset {base_offset}.")
            } else {
                format!("Produce {request} to {partition} failed with {error}.")
            }
        }
        TraceKind::ProduceRetry { client, partition, error, attempt } => format!(
            "{client} will retry its batch for {partition} after {error} (attempt {attempt}). With idempotence the broker drops the copy if the first try was written."
        ),
        TraceKind::FetchCompleted { partition, records, next_offset, high_watermark, error, .. } => {
            if *error == ErrorCode::None {
                format!(
                    "The consumer got {records} record(s) from {partition}; its next offset is {next_offset} (high watermark {high_watermark})."
                )
            } else {
                format!("The consumer's fetch from {partition} failed with {error}.")
            }
        }
        TraceKind::ControllerStarted { controller, recovered, log_end_offset } => {
            if *recovered {
                format!(
                    "Controller {controller} restarted with its metadata log ({log_end_offset} entries) and its quorum-state file; it rejoins the quorum."
                )
            } else {
                format!("Controller {controller} started; it will take part in electing the active controller.")
            }
        }
        TraceKind::ControllerStopped { controller } => {
            format!("Controller {controller} crashed; its metadata log and quorum-state survive on disk.")
        }
        TraceKind::RaftSent { rpc, to, arrives_at_ms } => {
            format!("A quorum {rpc} goes to {to}, arriving at {arrives_at_ms} ms.")
        }
        TraceKind::Raft { controller, event } => raft_sentence(*controller, event),
        TraceKind::ControllerActivated { controller, epoch } => format!(
            "Controller {controller} leads epoch {epoch} of the quorum, so it is the active controller: brokers register and heartbeat with it."
        ),
        TraceKind::MetadataRecordAppended { controller, offset, record } => {
            format!("Controller {controller} appended record {offset} to the metadata log: {record}.")
        }
        TraceKind::BrokerSessionExpired { broker, last_heartbeat_ms } => format!(
            "Broker {broker} sent no heartbeat since {last_heartbeat_ms} ms, longer than broker.session.timeout.ms: the controller fences it and moves its leaderships."
        ),
        TraceKind::BrokerRegistered { broker, controller, broker_epoch } => format!(
            "Broker {broker} registered with controller {controller} and got broker epoch {broker_epoch}; it stays fenced until it catches up with the metadata log."
        ),
        TraceKind::MetadataRecordApplied { broker, offset, record } => {
            format!("Broker {broker} applied committed metadata record {offset}: {record}.")
        }
        TraceKind::BrokerStopped { broker } => format!(
            "Broker {broker} crashed: its threads, queues, purgatory, connections and fetchers are gone; its partition logs stay on disk."
        ),
        TraceKind::NetworkPartitioned { a, b } => format!(
            "The network is cut between {} and {}: messages across the cut are lost and no error comes back, so each side notices only when its timeouts run out.",
            node_names(a),
            node_names(b)
        ),
        TraceKind::NetworkHealed { cuts } => format!(
            "The network is whole again ({cuts} cut healed): messages flow, and nodes that were cut off catch up through their next heartbeat or fetch."
        ),
        TraceKind::MessageLost { from, to, what } => {
            format!("A {what} from {from} to {to} was lost in the network partition; the sender gets no error and waits for its timeout.")
        }
        TraceKind::Disconnected { node, peer, refused: true } => format!(
            "{peer}'s process is down, so its host refused the connection: {node} learns at once, fails what it had in flight there and tries elsewhere."
        ),
        TraceKind::Disconnected { node, peer, refused: false } => format!(
            "{peer} died with its connection open and its host reset it: {node} learns at once instead of waiting out a timeout."
        ),
        TraceKind::ControlledShutdownRequested { broker } => format!(
            "Broker {broker} begins a controlled shutdown: its heartbeats now ask the active controller to move its leaderships away first (wantShutDown)."
        ),
        TraceKind::BrokerInControlledShutdown { broker, controller, partitions } => format!(
            "Controller {controller} puts broker {broker} in controlled shutdown: {partitions} partition changes give its leaderships to other in-sync replicas and take it out of the ISRs, before it stops."
        ),
        TraceKind::BrokerShutDown { broker } => format!(
            "The controller answered shouldShutDown, so broker {broker} stops cleanly: it leads nothing, and no client waited for a timeout."
        ),
        TraceKind::UncleanLeaderElected { partition, leader, leader_epoch, previous_isr } => format!(
            "No replica of the ISR {previous_isr:?} of {partition} is alive, and unclean.leader.election.enable is on: the controller makes broker {leader} leader for epoch {leader_epoch} from outside the ISR. Committed records it lacks are lost."
        ),
    }
}

/// Node names joined with commas and a final "and".
fn node_names(nodes: &[crate::sim::ids::NodeId]) -> String {
    let names: Vec<String> = nodes.iter().map(ToString::to_string).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// One sentence for a controller's Raft event.
fn raft_sentence(controller: u32, event: &crate::sim::raft::output::RaftEvent) -> String {
    use crate::sim::raft::output::RaftEvent as E;
    match event {
        E::BecameLeader { epoch, .. } => {
            format!("Controller {controller} won the election for epoch {epoch}: it is now the active controller.")
        }
        E::BecameFollower { epoch, leader } => {
            format!("Controller {controller} follows controller {leader}, the active controller of epoch {epoch}.")
        }
        E::BecameCandidate { epoch, .. } => {
            format!("Controller {controller} stands for election in epoch {epoch} and votes for itself.")
        }
        E::VoteGranted { candidate, epoch, .. } => {
            format!("Controller {controller} votes for controller {candidate} in epoch {epoch}.")
        }
        E::Resigned { epoch, .. } => format!("Controller {controller} resigns as active controller of epoch {epoch}."),
        other => format!("Controller {controller}'s Raft: {other:?}."),
    }
}

#[cfg(test)]
mod expiry_tests {
    use super::narrate;
    use crate::sim::ids::{NodeId, RequestId};
    use crate::sim::trace::{TraceEvent, TraceKind};

    fn expired(client: NodeId) -> String {
        let request = RequestId { client, correlation_id: 4 };
        narrate(&TraceEvent {
            step: 1,
            time_ms: 500,
            node: NodeId::Broker(0),
            kind: TraceKind::PurgatoryCompleted { request, operation: 2, expired: true },
        })
    }

    /// A follower's fetch that waited out replica.fetch.wait.max.ms is not a
    /// produce timeout, and must not be told as one.
    #[test]
    fn a_follower_fetch_expiry_is_not_called_a_produce_timeout() {
        let follower = expired(NodeId::Broker(1));
        assert!(follower.contains("replica.fetch.wait.max.ms"), "{follower}");
        assert!(!follower.contains("produce"), "{follower}");
        let client = expired(NodeId::Client(0));
        assert!(client.contains("REQUEST_TIMED_OUT") && client.contains("stay in the leader's log"), "{client}");
    }
}
