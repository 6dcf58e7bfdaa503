//! One sentence for each trace event, saying what happened and, where it
//! teaches something, why.

use crate::sim::load::KeyPattern;
use crate::sim::metadata::MetadataRecord;
use crate::sim::log::log::DeletionReason;
use crate::sim::log::segment::RollReason;
use crate::sim::protocol::{ControlPlaneRpc, ErrorCode};
use crate::sim::raft::output::{ElectionCause, RaftEvent, ResignReason, VoteRejectReason};
use crate::sim::record::batch::ValidationError;
use crate::sim::record::partitioner::StickyReason;
use crate::ui::i18n::Lang;
use crate::ui::why::{passed_over_sentence, trigger_clause};
use crate::sim::prose::{and_list, brokers};
use crate::sim::trace::{
    BatchReadyReason, Direction, PartitionReason, ReadBound, RejectReason, Stage, TraceEvent, TraceKind,
    WaitReason,
};

/// A stage's name as the page writes it.
pub(super) fn stage_name(stage: Stage) -> String {
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
pub(super) fn describe_wait(w: &WaitReason) -> String {
    match w {
        WaitReason::HighWatermark { partition, required_offset, high_watermark, laggards } => {
            let behind: Vec<String> = laggards.iter().map(|(b, leo)| format!("follower {b} at {leo}")).collect();
            if behind.is_empty() {
                format!("{partition}: waiting for the high watermark to reach {required_offset} (now {high_watermark})")
            } else {
                format!(
                    "{partition}: waiting for the high watermark to reach {required_offset} (now {high_watermark}; {})",
                    and_list(&behind)
                )
            }
        }
        WaitReason::MinBytes { min_bytes, available_bytes } => {
            format!("waiting for {min_bytes} byte(s) to read ({available_bytes} available)")
        }
    }
}

pub(super) fn narrate(event: &TraceEvent) -> String {
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
        TraceKind::ConnectionClosed { request, client, error } => format!(
            "{request} used acks=0 and failed with {error}. With no response to carry the error, the broker closes the connection to {client}; the producer notices the disconnect, refreshes its metadata and reconnects. The records are lost."
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
        TraceKind::ProduceRejected { partition, error, reason, .. } => format!(
            "The broker refused the batch for {partition} with {error}: {}. Nothing was written.",
            reject_reason(reason)
        ),
        TraceKind::DuplicateBatch { partition, producer_id, base_sequence, original_base_offset, .. } => format!(
            "Producer {producer_id} sent sequence {base_sequence} to {partition} again: the broker recognises the retry and answers with the original offset {original_base_offset} instead of writing it twice."
        ),
        TraceKind::SegmentRolled { partition, replica, base_offset, reason } => format!(
            "Broker {replica} rolled a new segment for {partition}, {base_offset:020}.log: {}.",
            roll_reason(reason)
        ),
        TraceKind::SegmentDeleted { partition, replica, base_offset, reason, log_start_offset } => format!(
            "Retention on broker {replica} deleted the whole segment {base_offset:020}.log of {partition} ({}); the log start offset is now {log_start_offset}. Retention never deletes single records.",
            deletion_reason(reason)
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
            format!("{request} leaves purgatory: it can be answered now (what it waited for happened, or this broker no longer leads the partition).")
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
            "The high watermark of {partition} on leader {replica} moved from {from} to {to}: every in-sync replica ({}) has the records below it, so they are committed.",
            brokers(isr)
        ),
        TraceKind::IsrShrunk { partition, removed, lag_ms, isr } => format!(
            "{} left the ISR of {partition}: not caught up for {lag_ms} ms, more than replica.lag.time.max.ms. Lag is measured in time, not messages. The ISR becomes {}: with a controller quorum once the active controller commits the leader's AlterPartition, and until then the replica still holds the high watermark back.",
            capitalized(&brokers(removed)),
            brokers(isr)
        ),
        TraceKind::IsrExpanded { partition, replica, follower_leo, isr } => format!(
            "Follower {replica} rejoined the ISR of {partition}: its log end offset {follower_leo} reached the high watermark. The ISR is now {}.",
            brokers(isr)
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
            PartitionReason::Sticky { reason } => format!(
                "{client} has no key for this record, so the sticky partitioner keeps filling {partition} ({}) until about batch.size bytes went there. It is not round-robin.",
                sticky_reason(reason)
            ),
            PartitionReason::RoundRobin { counter } => {
                format!("{client}'s RoundRobinPartitioner sent record number {counter} to {partition}.")
            }
            PartitionReason::Explicit => format!("{client} was told to use {partition}."),
        },
        TraceKind::BatchReady { client, partition, records, bytes, reason } => format!(
            "{client}'s batch for {partition} is ready to send: {records} record(s), {bytes} bytes, because {}.",
            batch_ready_reason(reason)
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
        TraceKind::LoadStarted { client, load } => {
            let keys = match load.keys {
                KeyPattern::None => {
                    "no key, so the sticky partitioner fills one partition's batch before it moves to the next".to_string()
                }
                KeyPattern::Fixed(n) => {
                    format!("one of {n} keys in turn, and a key always hashes to the same partition")
                }
                KeyPattern::Random => "a random key, so the records spread over every partition".to_string(),
            };
            format!(
                "{client} starts a load generator: {} records a second to {}, each with a {}-byte value and {keys}. Watch linger.ms and batch.size fill its batches.",
                load.records_per_sec, load.topic, load.value_bytes
            )
        }
        TraceKind::LoadStopped { client, sent } => format!(
            "{client} stops its load generator after {sent} records; those still in its batches are sent as usual."
        ),
        TraceKind::ProduceRetry { client, partition, error, attempt } => format!(
            "{client} will retry its batch for {partition} after {error} (attempt {attempt}). With idempotence the broker drops the copy if the first try was written."
        ),
        TraceKind::BatchSplit { client, partition, records, bytes, batch_size, batches } => {
            let why = format!(
                "The leader refused {client}'s batch of {records} records ({bytes} bytes) for {partition} because it is larger than the topic's max.message.bytes."
            );
            if *batches > 1 {
                format!("{why} The producer splits it into {batches} batches of at most batch.size ({batch_size} bytes) and sends them as new.")
            } else {
                format!("{why} The producer splits by batch.size ({batch_size} bytes), not by max.message.bytes; this batch is within batch.size, so it comes back whole and is refused again until delivery.timeout.ms runs out.")
            }
        }
        TraceKind::BatchExpired { client, partition, records, delivery_timeout_ms } => format!(
            "{client} gives up its batch of {records} record(s) for {partition}: delivery.timeout.ms ({delivery_timeout_ms} ms) has passed since the batch was made, so its records fail with a timeout."
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
        TraceKind::RaftSent { rpc: ControlPlaneRpc::Quorum(rpc), to, arrives_at_ms } => format!(
            "The controller quorum's {} goes to {to} over the network, arriving at {arrives_at_ms} ms.",
            rpc.name()
        ),
        TraceKind::RaftSent { rpc: ControlPlaneRpc::BrokerControl(rpc), to, arrives_at_ms } => format!(
            "{} between a broker and the active controller goes to {to} over the network, arriving at {arrives_at_ms} ms.",
            rpc.name()
        ),
        TraceKind::Raft { controller, event } => raft_sentence(*controller, event),
        TraceKind::ControllerActivated { controller, epoch } => format!(
            "Controller {controller} leads epoch {epoch} of the quorum, so it is the active controller: brokers register and heartbeat with it."
        ),
        TraceKind::MetadataRecordAppended { controller, offset, record } => format!(
            "Controller {controller} appended record {offset} to the metadata log: {}. It takes effect once a majority of controllers hold it.",
            metadata_record(record)
        ),
        TraceKind::BrokerSessionExpired { broker, last_heartbeat_ms } => format!(
            "Broker {broker} sent no heartbeat since {last_heartbeat_ms} ms, longer than broker.session.timeout.ms: the controller fences it and moves its leaderships."
        ),
        TraceKind::BrokerRegistered { broker, controller, broker_epoch } => format!(
            "Broker {broker} registered with controller {controller} and got broker epoch {broker_epoch}; it stays fenced until it catches up with the metadata log."
        ),
        TraceKind::BrokerRegistrationRefused { broker, controller, session_ends_ms } => format!(
            "Controller {controller} refused broker {broker}'s registration with DUPLICATE_BROKER_REGISTRATION: broker {broker}'s previous start still has a valid session, until {session_ends_ms} ms. The controller cannot tell a restart from a second broker with the same id, so the new process tries again, waiting longer each time, until that session expires."
        ),
        TraceKind::MetadataRecordApplied { broker, offset, record } => {
            format!("Broker {broker} applied committed metadata record {offset}: {}.", metadata_record(record))
        }
        TraceKind::BrokerStopped { broker } => format!(
            "Broker {broker} crashed: its threads, queues, purgatory, connections and fetchers are gone; its partition logs stay on disk."
        ),
        TraceKind::NetworkPartitioned { a, b } => format!(
            "The network is cut between {} and {}: messages across the cut are lost and no error comes back, so each side notices only when its timeouts run out.",
            and_list(a),
            and_list(b)
        ),
        TraceKind::NetworkHealed { cuts } => format!(
            "The network is whole again ({cuts} {} healed): messages flow, and nodes that were cut off catch up through their next heartbeat or fetch.",
            if *cuts == 1 { "cut" } else { "cuts" }
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
        TraceKind::LeaderElected(e) => {
            let (c, p, epoch, why) = (e.controller, &e.partition, e.leader_epoch, trigger_clause(Lang::En, e));
            let passed = passed_over_sentence(Lang::En, e);
            match e.leader {
                Some(l) if e.unclean => format!(
                    "Controller {c} elects broker {l} leader of {p} for leader epoch {epoch} from outside the ISR: {why}, no replica of the ISR ({}) is alive, and unclean.leader.election.enable is on. Committed records it lacks are lost.",
                    brokers(&e.previous_isr)
                ),
                Some(l) => format!(
                    "Controller {c} elects broker {l} leader of {p} for leader epoch {epoch}: {why}, and broker {l} is the first replica in assignment order that is alive and in the ISR.{passed}"
                ),
                None => format!(
                    "Controller {c} finds no leader for {p}: {why}, and no replica can lead, so the partition is offline in leader epoch {epoch}.{passed}"
                ),
            }
        }
    }
}

/// The first letter in upper case, for a list that opens a sentence. Only
/// English sentences are capitalized, so ASCII is enough; Unicode's case
/// tables would add about 20 KB to the page.
pub(crate) fn capitalized(text: &str) -> String {
    let mut text = text.to_owned();
    if let Some(first) = text.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    text
}

/// Controller ids as prose: "controller 1", "controllers 1 and 2".
fn controllers(ids: &[u32]) -> String {
    match ids {
        [one] => format!("controller {one}"),
        more => format!("controllers {}", and_list(more)),
    }
}

/// Why a leader refused a produce, as a clause.
fn reject_reason(reason: &RejectReason) -> String {
    match reason {
        RejectReason::NoReplica => "this broker holds no replica of the partition".into(),
        RejectReason::NotLeader { broker } => {
            format!("broker {broker} is not its leader, so the producer must refresh its metadata and send to the leader")
        }
        RejectReason::NotEnoughInSyncReplicas { isr, min_insync_replicas } => format!(
            "acks=all needs at least min.insync.replicas = {min_insync_replicas} in-sync replicas, and {}",
            if isr.is_empty() { "the ISR is empty".to_string() } else { format!("the ISR holds only {}", brokers(isr)) }
        ),
        RejectReason::InvalidBatch(e) => validation_error(e),
        RejectReason::UnreadableHeader => "the record batch header cannot be read".into(),
        RejectReason::TimestampOutOfRange { timestamp } => format!(
            "its CreateTime timestamp {timestamp} lies outside message.timestamp.before.max.ms and message.timestamp.after.max.ms of the broker's clock"
        ),
        RejectReason::OutOfOrderSequence { expected, got } => format!(
            "the idempotent producer's sequence {got} is not the expected {expected}, so a batch in between is missing"
        ),
        RejectReason::ProducerFenced { current, got } => format!(
            "producer epoch {got} is older than the broker's {current}: a newer instance of this producer fenced it"
        ),
        RejectReason::BatchLargerThanSegment { size_bytes, segment_bytes } => {
            format!("the batch is {size_bytes} bytes, more than a whole segment may hold (segment.bytes = {segment_bytes})")
        }
        RejectReason::LogRefused => "the log refused the batch".into(),
    }
}

/// What the leader's validation found wrong with a batch, as a clause.
fn validation_error(e: &ValidationError) -> String {
    match e {
        ValidationError::MessageTooLarge { size, max_message_bytes } => {
            format!("the batch is {size} bytes, more than max.message.bytes = {max_message_bytes}")
        }
        ValidationError::Truncated { size, needed } => format!("the batch needs {needed} bytes but only {size} arrived"),
        ValidationError::BatchLengthTooSmall { batch_length } => {
            format!("its batchLength {batch_length} is smaller than a batch without records")
        }
        ValidationError::CrcMismatch { stored, computed } => {
            format!("its stored CRC is 0x{stored:08x} but its bytes give 0x{computed:08x}, so they were damaged on the way")
        }
        ValidationError::TrailingBytes { batch_size, size } => {
            format!("{size} bytes hold more than the one {batch_size}-byte batch a partition may send")
        }
        ValidationError::InvalidMagic { magic } => format!("it has magic {magic}, and only record batch v2 is accepted"),
        ValidationError::OffsetCountMismatch { last_offset_delta, records_count } => {
            format!("its lastOffsetDelta {last_offset_delta} + 1 is not its recordsCount {records_count}")
        }
        ValidationError::OffsetDeltaOutOfOrder { index, offset_delta } => {
            format!("record {index} has offsetDelta {offset_delta} instead of {index}")
        }
        ValidationError::MalformedRecords { .. } => "its records cannot be decoded".into(),
    }
}

fn roll_reason(reason: &RollReason) -> &'static str {
    match reason {
        RollReason::SegmentBytes => "the next batch would push the active segment past segment.bytes",
        RollReason::SegmentMs => "the active segment is older than segment.ms by its record timestamps",
        RollReason::OffsetIndexFull => "the active segment's offset index (.index) is full",
        RollReason::TimeIndexFull => "the active segment's time index (.timeindex) is full",
        RollReason::RelativeOffsetOverflow => {
            "the batch's offsets no longer fit the active segment's relative offsets"
        }
    }
}

fn deletion_reason(reason: &DeletionReason) -> &'static str {
    match reason {
        DeletionReason::Time => "by retention.ms: its newest record is older than the limit",
        DeletionReason::Size => "by retention.bytes: the log is over the size limit even without it",
    }
}

pub(super) fn sticky_reason(reason: &StickyReason) -> String {
    match reason {
        StickyReason::First => "drawn for the topic's first record without a key".into(),
        StickyReason::Stayed { bytes_so_far } => format!("{bytes_so_far} bytes went there so far"),
        StickyReason::Switched { previous } => {
            format!("partition {previous} had its batch.size bytes, so a new one was drawn")
        }
    }
}

fn batch_ready_reason(reason: &BatchReadyReason) -> String {
    match reason {
        BatchReadyReason::BatchSizeReached => "it reached batch.size".into(),
        BatchReadyReason::LingerPassed { linger_ms } => format!("linger.ms ({linger_ms} ms) passed since it was opened"),
    }
}

/// A metadata record, under its Kafka name, and what it says.
fn metadata_record(record: &MetadataRecord) -> String {
    let leader = |leader: &Option<u32>| match leader {
        Some(b) => format!("led by broker {b}"),
        None => "without a leader (offline)".to_string(),
    };
    match record {
        MetadataRecord::RegisterBroker { broker, epoch, .. } => {
            format!("RegisterBrokerRecord, broker {broker} joins with broker epoch {epoch} and starts fenced")
        }
        MetadataRecord::Topic { name, partitions } => format!("TopicRecord, topic {name} with {partitions} partitions"),
        MetadataRecord::Partition(p) => format!(
            "PartitionRecord, {} on {}, {}, ISR {}",
            p.partition,
            brokers(&p.replicas),
            leader(&p.leader),
            brokers(&p.isr)
        ),
        MetadataRecord::PartitionChange { partition, isr, leader: l, leader_epoch, partition_epoch } => format!(
            "PartitionChangeRecord, {partition} is now {} in leader epoch {leader_epoch}, ISR {}, partition epoch {partition_epoch}",
            leader(l),
            brokers(isr)
        ),
        MetadataRecord::BrokerRegistrationChange { broker, fenced: true } => {
            format!("BrokerRegistrationChangeRecord, broker {broker} is fenced: it may lead nothing")
        }
        MetadataRecord::BrokerRegistrationChange { broker, fenced: false } => {
            format!("BrokerRegistrationChangeRecord, broker {broker} is unfenced: it caught up and may lead")
        }
        MetadataRecord::BrokerInControlledShutdown { broker } => format!(
            "BrokerRegistrationChangeRecord, broker {broker} is in controlled shutdown: it may lead nothing and join no ISR"
        ),
    }
}

/// "vote" or "pre-vote".
fn vote(pre_vote: bool) -> &'static str {
    if pre_vote {
        "pre-vote"
    } else {
        "vote"
    }
}

/// Why a controller started an election, as a clause after the state it
/// entered.
fn election_cause(cause: &ElectionCause) -> &'static str {
    match cause {
        ElectionCause::FetchTimeout => "because it heard nothing from the leader for controller.quorum.fetch.timeout.ms",
        ElectionCause::ElectionTimeout => {
            "because its election timeout (controller.quorum.election.timeout.ms) ran out with no leader"
        }
        ElectionCause::BackoffComplete => {
            "because its backoff after a lost election (up to controller.quorum.election.backoff.max.ms) ended"
        }
        ElectionCause::ElectionTimeoutAsCandidate => "because its last election timed out with no winner",
        ElectionCause::PreVoteWon => "because a majority granted it the pre-vote",
        ElectionCause::EndQuorumEpoch => "because the resigning leader named it first successor in EndQuorumEpoch",
        ElectionCause::Restarted => "because it restarted after voting for itself in this epoch",
    }
}

fn resign_reason(reason: &ResignReason) -> &'static str {
    match reason {
        ResignReason::CheckQuorumFailed => {
            "a majority of voters did not fetch from it within 1.5 times controller.quorum.fetch.timeout.ms, so it may be cut off from them"
        }
        ResignReason::Requested => "it was asked to step down, and tells the voters with EndQuorumEpoch",
        ResignReason::Restarted => {
            "it restarted after leading this epoch, and Kafka starts such a controller resigned so that it neither leads nor votes in that epoch again"
        }
    }
}

fn vote_reject_reason(reason: &VoteRejectReason) -> String {
    match reason {
        VoteRejectReason::StaleEpoch { voter_epoch } => format!("its own epoch {voter_epoch} is newer than the candidate's"),
        VoteRejectReason::InvalidRequest => "the request contradicts itself (INVALID_REQUEST)".into(),
        VoteRejectReason::AlreadyVoted { voted_for } => {
            format!("it already voted for controller {voted_for} in this epoch, and a voter votes once per epoch")
        }
        VoteRejectReason::LeaderKnown { leader } => {
            format!("it already knows controller {leader} as the leader of this epoch")
        }
        VoteRejectReason::LeaderAlive { leader } => format!(
            "it still fetches from its leader, controller {leader}, so an election would only disrupt a working quorum"
        ),
        VoteRejectReason::LogNotUpToDate => {
            "the candidate's log (last epoch, then last offset) is behind its own, and a leader must hold every committed entry"
                .into()
        }
        VoteRejectReason::IsLeader => "it leads this epoch itself".into(),
        VoteRejectReason::IsCandidate => "it stands in this epoch itself and voted for itself".into(),
        VoteRejectReason::Resigned => "it resigned as leader of this epoch".into(),
    }
}

/// One sentence for a controller's Raft event (KafkaRaftClient, QuorumState).
fn raft_sentence(controller: u32, event: &RaftEvent) -> String {
    let c = controller;
    match event {
        RaftEvent::BecameUnattached { epoch, voted_for, timeout_ms } => {
            let vote = voted_for.map(|v| format!(" and voted for controller {v}")).unwrap_or_default();
            format!(
                "Controller {c} is unattached in epoch {epoch}: it knows no leader{vote}, so it stands for election itself if none shows up within {timeout_ms} ms (controller.quorum.election.timeout.ms)."
            )
        }
        RaftEvent::BecameProspective { epoch, timeout_ms, cause } => format!(
            "Controller {c} became prospective in epoch {epoch} {}: it asks the other voters for pre-votes (KIP-996) without bumping the epoch, for up to {timeout_ms} ms.",
            election_cause(cause)
        ),
        RaftEvent::BecameCandidate { epoch, timeout_ms, retries, cause } => format!(
            "Controller {c} became a candidate for epoch {epoch} {}: it votes for itself and asks the others (attempt {retries}; the election times out in {timeout_ms} ms).",
            election_cause(cause)
        ),
        RaftEvent::BecameLeader { epoch, epoch_start_offset } => format!(
            "Controller {c} won the election for epoch {epoch}: a majority voted for it, so it leads the quorum, and its epoch starts at metadata log offset {epoch_start_offset}."
        ),
        RaftEvent::BecameFollower { epoch, leader } => format!(
            "Controller {c} follows controller {leader}, the leader of epoch {epoch}: it fetches the metadata log from it."
        ),
        RaftEvent::Resigned { epoch, reason } => {
            format!("Controller {c} resigned as leader of epoch {epoch}: {}.", resign_reason(reason))
        }
        RaftEvent::VoteRequested { to, epoch, pre_vote } => {
            format!("Controller {c} asks controller {to} for its {} in epoch {epoch}.", vote(*pre_vote))
        }
        RaftEvent::VoteGranted { candidate, epoch, pre_vote } => format!(
            "Controller {c} grants controller {candidate} its {} in epoch {epoch}: it has voted for no one else, knows no leader, and the candidate's log is at least as up to date as its own.",
            vote(*pre_vote)
        ),
        RaftEvent::VoteRejected { candidate, epoch, pre_vote, reason } => format!(
            "Controller {c} refuses controller {candidate} its {} in epoch {epoch}: {}.",
            vote(*pre_vote),
            vote_reject_reason(reason)
        ),
        RaftEvent::ElectionLost { epoch, pre_vote, rejected_by } => format!(
            "Controller {c} lost the {} of epoch {epoch}: {} refused, so no majority can grant it.",
            vote(*pre_vote),
            controllers(rejected_by)
        ),
        RaftEvent::ElectionBackoff { epoch, backoff_ms } => format!(
            "Controller {c} backs off {backoff_ms} ms before standing again after epoch {epoch}: a random wait up to controller.quorum.election.backoff.max.ms, so that candidates stop splitting the vote."
        ),
        RaftEvent::FetchTimeoutOverridden { epoch, leader, timeout_ms } => format!(
            "Controller {leader} resigned epoch {epoch} with EndQuorumEpoch, so controller {c} stops waiting out controller.quorum.fetch.timeout.ms and stands for election in {timeout_ms} ms."
        ),
        RaftEvent::HighWatermarkAdvanced { from: Some(from), to } => format!(
            "Controller {c}'s metadata log high watermark moved from {from} to {to}: a majority of voters hold the entries below {to}, so they are committed."
        ),
        RaftEvent::HighWatermarkAdvanced { from: None, to } => format!(
            "Controller {c} learned the metadata log high watermark, {to}: the entries below it are committed."
        ),
        RaftEvent::EntriesAppended { epoch, first_offset, last_offset } => {
            let entries = if first_offset == last_offset {
                format!("entry {first_offset}")
            } else {
                format!("entries {first_offset} to {last_offset}")
            };
            format!("Controller {c} appended metadata log {entries} in epoch {epoch}.")
        }
        RaftEvent::Truncated { from, to } => format!(
            "Controller {c} truncated its metadata log from offset {from} back to {to}: the leader's log diverged there, and entries past it were never committed."
        ),
    }
}

#[cfg(test)]
pub(crate) mod samples;

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

#[cfg(test)]
mod capitalized_tests {
    use super::capitalized;

    /// The sentence's first letter goes up; the rest, and text that does not
    /// open with an ASCII letter, stay as they were.
    #[test]
    fn only_the_first_ascii_letter_is_raised() {
        assert_eq!(capitalized("brokers 1 and 2 left."), "Brokers 1 and 2 left.");
        assert_eq!(capitalized("Already up"), "Already up");
        assert_eq!(capitalized("3 brokers"), "3 brokers");
        assert_eq!(capitalized("브로커"), "브로커");
        assert_eq!(capitalized(""), "");
    }
}
