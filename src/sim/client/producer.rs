//! A producer (Kafka's KafkaProducer): the partitioner picks a partition, the
//! record accumulator collects records into one batch per partition until
//! `batch.size` or `linger.ms`, and the sender drains ready batches into one
//! ProduceRequest per leader, retrying retriable errors until
//! `delivery.timeout.ms`.

use super::super::config::{Partitioner, ProducerConfig};
use super::super::ids::{NodeId, RequestId, TopicName, TopicPartition};
use super::Ctx;
use super::super::protocol::{
    ErrorCode, Message, ProducePartition, ProduceRequest, Request, RequestBody, ResponseBody,
};
use super::super::record::batch::{self, BatchBuilder, Header};
use super::super::record::partitioner::{partition_for_key, RoundRobinPartitioner, StickyPartitioner};
use super::super::trace::{BatchReadyReason, Direction, PartitionReason, Stage, TraceKind};
use super::super::load::{Load, LoadRun};
use super::metadata::MetadataState;
use super::ClientTimer;
use serde::{Deserialize, Serialize};
use crate::sim::collections::{sort_by_key, BTreeMap, CowVec};
use std::collections::VecDeque;

/// A record the application hands to `send()`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducerRecord {
    pub topic: String,
    /// An explicit partition skips the partitioner.
    pub partition: Option<u32>,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub headers: Vec<Header>,
    pub timestamp_ms: i64,
}

/// Where a record stands, as the producer's future would report it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecordState {
    AwaitingMetadata,
    Accumulating,
    InFlight { request: RequestId },
    /// acks=0: sent, and no offset will ever come back.
    SentWithoutAck,
    Acknowledged { offset: i64 },
    Failed { error: ErrorCode },
}

/// One record's story, for the UI's list of produced records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordOutcome {
    pub index: u32,
    pub topic: String,
    pub key: Option<String>,
    pub value: Option<String>,
    pub partition: Option<u32>,
    pub reason: Option<PartitionReason>,
    pub state: RecordState,
}

#[derive(Clone, Debug)]
struct PendingRecord {
    index: u32,
    record: ProducerRecord,
    /// When `send()` was called: KafkaProducer.waitOnMetadata gives up
    /// max.block.ms later.
    sent_at_ms: u64,
}

/// A batch in the accumulator (Kafka's ProducerBatch).
#[derive(Clone, Debug)]
pub struct ProducerBatch {
    pub id: u64,
    pub partition: TopicPartition,
    /// The index of each record's outcome in `Producer::records`; the
    /// records themselves are already encoded in `builder`, so the batch
    /// does not keep them.
    records: Vec<u32>,
    /// Tracks the exact encoded size as records join.
    builder: BatchBuilder,
    pub created_ms: u64,
    /// Ready to send: full, or its linger ran out.
    pub sealed: bool,
    /// Assigned at the first send and kept for every retry, so the broker
    /// can recognise a duplicate.
    pub base_sequence: Option<i32>,
    /// The producer epoch that sequence belongs to; a retry keeps it.
    pub producer_epoch: i16,
    pub attempts: u32,
    pub backoff_until_ms: u64,
    /// The broker the last attempt went to: a retry waits out its backoff
    /// only while the metadata still names that leader
    /// (ProducerBatch.hasLeaderChangedForTheOngoingRetry).
    pub last_leader: Option<u32>,
}

impl ProducerBatch {
    /// An open batch with no records yet, whose first record has
    /// `first_timestamp`, never sent.
    fn empty(id: u64, partition: TopicPartition, first_timestamp: i64, created_ms: u64) -> Self {
        ProducerBatch {
            id,
            partition,
            records: Vec::new(),
            builder: BatchBuilder::new(0, first_timestamp),
            created_ms,
            sealed: false,
            base_sequence: None,
            producer_epoch: -1,
            attempts: 0,
            backoff_until_ms: 0,
            last_leader: None,
        }
    }

    pub fn record_count(&self) -> u32 {
        self.records.len() as u32
    }

    pub fn size_bytes(&self) -> u32 {
        self.builder.size_in_bytes()
    }
}

/// A ProduceRequest waiting for its answer (NetworkClient's
/// InFlightRequest).
#[derive(Clone, Debug)]
pub struct InFlight {
    /// The broker it went to.
    pub node: u32,
    pub sent_ms: u64,
    /// `sent_ms` + `request.timeout.ms`: when its RequestTimeout timer
    /// gives it up if no answer came.
    pub timeout_at_ms: u64,
    batches: Vec<ProducerBatch>,
}

#[derive(Clone, Debug)]
pub struct Producer {
    id: NodeId,
    config: ProducerConfig,
    /// Kafka's NetworkClient keeps one correlation-id counter for all of its
    /// connections.
    next_correlation_id: i32,
    pub(crate) metadata: MetadataState,
    /// InitProducerId requests that timed out (each goes to the next broker).
    init_producer_id_attempts: usize,
    producer_id: i64,
    producer_epoch: i16,
    producer_id_in_flight: Option<RequestId>,
    /// The broker the InitProducerId in flight went to.
    producer_id_broker: u32,
    next_sequence: BTreeMap<TopicPartition, i32>,
    /// The epoch each partition's `next_sequence` counts in.
    sequence_epoch: BTreeMap<TopicPartition, i16>,
    awaiting_metadata: Vec<PendingRecord>,
    /// A MetadataRefresh timer is set: records still wait for their topic.
    metadata_refresh_armed: bool,
    accumulator: BTreeMap<TopicPartition, VecDeque<ProducerBatch>>,
    next_batch_id: u64,
    in_flight: BTreeMap<i32, InFlight>,
    /// How many of `in_flight` went to each broker, by broker id, so the
    /// sender knows a connection is full without counting on every drain.
    in_flight_per_node: Vec<u32>,
    sticky: StickyPartitioner,
    round_robin: RoundRobinPartitioner,
    /// Every record sent, shared with the snapshots of earlier positions
    /// chunk by chunk.
    records: CowVec<RecordOutcome>,
    /// The sender's list of ready partitions, kept between drains so its
    /// buffer is reused; empty outside `drain`.
    drain_scratch: Vec<(u32, TopicPartition)>,
    /// The load generator, while one runs.
    load: Option<LoadRun>,
    /// How many load generators this producer has started.
    load_runs: u32,
    /// The latencies (send to response, ms) of the produce requests answered
    /// since the simulation last sampled its metrics, which takes them.
    latencies_ms: Vec<u32>,
}

impl Producer {
    pub fn new(id: NodeId, config: ProducerConfig, bootstrap: Vec<u32>) -> Self {
        Self {
            id,
            config,
            next_correlation_id: 1,
            metadata: MetadataState::new(bootstrap),
            init_producer_id_attempts: 0,
            producer_id: -1,
            producer_epoch: -1,
            producer_id_in_flight: None,
            producer_id_broker: 0,
            next_sequence: BTreeMap::new(),
            sequence_epoch: BTreeMap::new(),
            awaiting_metadata: Vec::new(),
            metadata_refresh_armed: false,
            accumulator: BTreeMap::new(),
            next_batch_id: 1,
            in_flight: BTreeMap::new(),
            in_flight_per_node: Vec::new(),
            sticky: StickyPartitioner::new(),
            round_robin: RoundRobinPartitioner::new(),
            records: CowVec::new(),
            drain_scratch: Vec::new(),
            latencies_ms: Vec::new(),
            load: None,
            load_runs: 0,
        }
    }

    /// The load generator running, if one is.
    pub fn load(&self) -> Option<&LoadRun> {
        self.load.as_ref()
    }

    /// Starts a load generator, in place of one already running: its first
    /// record is sent at once.
    pub fn start_load(&mut self, ctx: &mut Ctx, load: Load) {
        self.load_runs += 1;
        let client = self.id;
        ctx.trace(|| TraceKind::LoadStarted { client, load: Box::new(load.clone()) });
        self.load = Some(LoadRun { load, started_ms: ctx.now_ms, sent: 0, generation: self.load_runs });
        self.load_tick(ctx);
    }

    /// Stops the load generator; the records it sent go on as any others.
    pub fn stop_load(&mut self, ctx: &mut Ctx) {
        if let Some(run) = self.load.take() {
            let client = self.id;
            ctx.trace(|| TraceKind::LoadStopped { client, sent: run.sent });
        }
    }

    /// Sends the load generator's records that are due and arms its timer
    /// for the next one.
    fn load_tick(&mut self, ctx: &mut Ctx) {
        let Some(run) = &mut self.load else { return };
        let due = run.take_due(ctx.now_ms, ctx.rng);
        let (after, generation, topic) = (run.next_after_ms(ctx.now_ms), run.generation, run.load.topic.clone());
        for r in due {
            let record = ProducerRecord {
                topic: topic.clone(),
                partition: None,
                key: r.key.map(String::into_bytes),
                value: Some(r.value.into_bytes()),
                headers: Vec::new(),
                timestamp_ms: ctx.now_ms as i64,
            };
            self.send(ctx, record);
        }
        ctx.timer(after, ClientTimer::Load { generation });
    }

    /// Takes the latencies of the produce requests answered since the last
    /// call, for the metrics sample.
    pub(crate) fn take_latencies(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.latencies_ms)
    }

    pub fn id(&self) -> NodeId {
        self.id
    }

    pub fn config(&self) -> &ProducerConfig {
        &self.config
    }

    pub fn records(&self) -> &CowVec<RecordOutcome> {
        &self.records
    }

    pub fn batches(&self) -> impl Iterator<Item = &ProducerBatch> {
        self.accumulator.values().flatten()
    }

    /// Each batch in flight with the request that carries it.
    pub fn in_flight_batches(&self) -> impl Iterator<Item = (&InFlight, &ProducerBatch)> {
        self.in_flight.values().flat_map(|f| f.batches.iter().map(move |b| (f, b)))
    }

    pub fn producer_id(&self) -> i64 {
        self.producer_id
    }

    /// KafkaProducer.send: the record waits for metadata if its topic is not
    /// known yet, else goes through the partitioner into the accumulator.
    pub fn send(&mut self, ctx: &mut Ctx, record: ProducerRecord) -> u32 {
        let index = self.records.len() as u32;
        // The outcome's topic, key and value are moved out of the record
        // once the accumulator has encoded it (`fill_outcome`), so the common
        // path copies none of them; a record that waits for metadata is
        // still shown with them meanwhile.
        self.records.push(RecordOutcome {
            index,
            topic: String::new(),
            key: None,
            value: None,
            partition: None,
            reason: None,
            state: RecordState::AwaitingMetadata,
        });
        let pending = PendingRecord { index, record, sent_at_ms: ctx.now_ms };
        if self.metadata.knows(&pending.record.topic) {
            self.accumulate(ctx, pending);
        } else {
            let outcome = &mut self.records[index as usize];
            outcome.topic = pending.record.topic.clone();
            outcome.key = pending.record.key.as_ref().map(|k| String::from_utf8_lossy(k).into_owned());
            outcome.value = pending.record.value.as_ref().map(|v| String::from_utf8_lossy(v).into_owned());
            let topic = pending.record.topic.clone();
            self.awaiting_metadata.push(pending);
            self.metadata.request(ctx, self.id, &mut self.next_correlation_id, &topic);
        }
        index
    }

    fn accumulate(&mut self, ctx: &mut Ctx, pending: PendingRecord) {
        // The name the metadata holds is shared by every topic-partition
        // of this record's path, so it is not copied per record.
        let (topic, partitions) = match self.metadata.partitions_per_topic.get_key_value(pending.record.topic.as_str()) {
            Some((name, count)) => (name.clone(), *count),
            None => (TopicName::from(pending.record.topic.as_str()), 0),
        };
        let chosen = match pending.record.partition {
            Some(p) if p < partitions => Ok((p, PartitionReason::Explicit)),
            Some(_) => Err(ErrorCode::UnknownTopicOrPartition),
            None => self.choose_partition(ctx, &topic, pending.record.key.as_deref(), partitions),
        };
        let (partition, reason) = match chosen {
            Ok(c) => c,
            Err(error) => {
                self.records[pending.index as usize].state = RecordState::Failed { error };
                Self::fill_outcome(&mut self.records[pending.index as usize], pending.record);
                return;
            }
        };
        let tp = TopicPartition::new(topic.clone(), partition);
        ctx.trace(|| TraceKind::PartitionChosen { client: self.id, partition: tp.clone(), reason: reason.clone() });
        let outcome = &mut self.records[pending.index as usize];
        outcome.partition = Some(partition);
        outcome.reason = Some(reason);
        outcome.state = RecordState::Accumulating;

        let r = &pending.record;
        let batch_size = self.config.batch_size;
        let queue = self.accumulator.entry(tp.clone()).or_default();
        let open = queue.back_mut().filter(|b| !b.sealed);
        let fits = open.as_ref().is_some_and(|b| b.builder.has_room_for(r.timestamp_ms, r.key.as_deref(), r.value.as_deref(), &r.headers, batch_size));
        if !fits {
            if let Some(b) = queue.back_mut().filter(|b| !b.sealed) {
                b.sealed = true;
                let (records, bytes) = (b.record_count(), b.size_bytes());
                ctx.trace(|| TraceKind::BatchReady {
                    client: self.id,
                    partition: tp.clone(),
                    records,
                    bytes,
                    reason: BatchReadyReason::BatchSizeReached,
                });
            }
            let id = self.next_batch_id;
            self.next_batch_id += 1;
            queue.push_back(ProducerBatch::empty(id, tp.clone(), r.timestamp_ms, ctx.now_ms));
            ctx.timer(self.config.linger_ms, ClientTimer::Linger { batch: id });
        }
        let batch = queue.back_mut().expect("an open batch was ensured");
        // The accumulator refuses a record only if it can never fit a batch;
        // the broker's max.message.bytes check comes later, on the leader.
        // What the sticky partitioner counts, as Kafka's RecordAccumulator
        // reports it: a new batch adds its whole size, header included; a
        // record joining a batch adds its own.
        let before = if batch.records.is_empty() { 0 } else { batch.size_bytes() };
        let _ = batch.builder.append(r.timestamp_ms, r.key.as_deref(), r.value.as_deref(), &r.headers);
        let record_bytes = batch.size_bytes() - before;
        batch.records.push(pending.index);
        Self::fill_outcome(&mut self.records[pending.index as usize], pending.record);
        self.sticky.record_appended(&topic, partition, record_bytes, batch_size);
        if batch.size_bytes() >= batch_size {
            batch.sealed = true;
            let (records, bytes) = (batch.record_count(), batch.size_bytes());
            ctx.trace(|| TraceKind::BatchReady { client: self.id, partition: tp, records, bytes, reason: BatchReadyReason::BatchSizeReached });
            self.drain(ctx);
        }
    }

    /// Moves the record's topic, key and value into its outcome, as the UI
    /// shows them: bytes that are not UTF-8 are shown lossily, as before.
    fn fill_outcome(outcome: &mut RecordOutcome, record: ProducerRecord) {
        fn text(bytes: Vec<u8>) -> String {
            String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
        }
        outcome.topic = record.topic;
        outcome.key = record.key.map(text);
        outcome.value = record.value.map(text);
    }

    fn choose_partition(
        &mut self,
        ctx: &mut Ctx,
        topic: &str,
        key: Option<&[u8]>,
        partitions: u32,
    ) -> Result<(u32, PartitionReason), ErrorCode> {
        // A configured partitioner (RoundRobinPartitioner) is asked for every
        // record, keys or not; only the built-in one hashes keys.
        if let (Some(key), Partitioner::Sticky) = (key, self.config.partitioner) {
            let c = partition_for_key(key, partitions).map_err(|_| ErrorCode::UnknownTopicOrPartition)?;
            return Ok((c.partition, PartitionReason::Keyed { murmur2: c.murmur2, positive: c.positive, partitions }));
        }
        match self.config.partitioner {
            Partitioner::Sticky => {
                let mut draw = || ctx.rng.next_u32();
                let c = self.sticky.partition(topic, partitions, &mut draw).map_err(|_| ErrorCode::UnknownTopicOrPartition)?;
                Ok((c.partition, PartitionReason::Sticky { reason: c.reason }))
            }
            Partitioner::RoundRobin => {
                let counter = self.round_robin.counter(topic);
                let p = self.round_robin.partition(topic, partitions).map_err(|_| ErrorCode::UnknownTopicOrPartition)?;
                Ok((p, PartitionReason::RoundRobin { counter }))
            }
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, timer: ClientTimer) {
        match timer {
            ClientTimer::Load { generation } => {
                if self.load.as_ref().is_some_and(|run| run.generation == generation) {
                    self.load_tick(ctx);
                }
            }
            ClientTimer::Linger { batch } => {
                let me = self.id;
                // Only the last batch of a partition's queue can be open (a
                // new batch is started only behind a sealed one, and retried
                // batches are sealed), so the search looks at one batch per
                // partition instead of the whole backlog.
                if let Some(b) = self.accumulator.values_mut().filter_map(|q| q.back_mut()).find(|b| b.id == batch && !b.sealed) {
                    b.sealed = true;
                    ctx.trace(|| TraceKind::BatchReady {
                        client: me,
                        partition: b.partition.clone(),
                        records: b.record_count(),
                        bytes: b.size_bytes(),
                        reason: BatchReadyReason::LingerPassed { linger_ms: self.config.linger_ms },
                    });
                }
                self.drain(ctx);
            }
            ClientTimer::Drain | ClientTimer::RetryBackoff { .. } => self.drain(ctx),
            ClientTimer::MetadataTimeout { correlation_id } => {
                self.metadata.on_timeout(ctx, self.id, &mut self.next_correlation_id, correlation_id)
            }
            ClientTimer::MetadataRetry => {
                self.metadata.on_retry(ctx, self.id, &mut self.next_correlation_id);
                self.drain(ctx);
            }
            ClientTimer::MetadataRefresh => {
                self.metadata_refresh_armed = false;
                self.expire_metadata_waits(ctx);
                if let Some(topic) = self.awaiting_metadata.first().map(|p| p.record.topic.clone()) {
                    self.metadata.request(ctx, self.id, &mut self.next_correlation_id, &topic);
                }
            }
            ClientTimer::RequestTimeout { correlation_id }
                if self.producer_id_in_flight.map(|r| r.correlation_id) == Some(correlation_id) =>
            {
                // No answer to InitProducerId: try the next broker.
                self.producer_id_in_flight = None;
                self.init_producer_id_attempts += 1;
                self.init_producer_id(ctx);
            }
            ClientTimer::RequestTimeout { correlation_id } => {
                // Kafka's NetworkClient disconnects after request.timeout.ms;
                // a late answer on the old connection is never read.
                if let Some(f) = self.take_in_flight(correlation_id) {
                    for b in f.batches {
                        self.batch_failed(ctx, b, ErrorCode::RequestTimedOut);
                    }
                    self.drain(ctx);
                }
            }
        }
    }

    /// The connection to `broker` closed (refused or reset), as Kafka's
    /// NetworkClient.handleDisconnections reports it: every request in
    /// flight there fails with NETWORK_EXCEPTION, which the sender retries
    /// after `retry.backoff.ms` with a metadata update (it is an
    /// InvalidMetadataException); Metadata and InitProducerId go to the
    /// next broker.
    pub fn on_disconnect(&mut self, ctx: &mut Ctx, broker: u32) {
        let me = self.id;
        self.metadata.on_disconnect(ctx, me, &mut self.next_correlation_id, broker);
        if self.producer_id_in_flight.is_some() && self.producer_id_broker == broker {
            self.producer_id_in_flight = None;
            self.init_producer_id_attempts += 1;
            self.init_producer_id(ctx);
        }
        let failed: Vec<i32> = self.in_flight.iter().filter(|(_, f)| f.node == broker).map(|(c, _)| *c).collect();
        for correlation_id in failed {
            if let Some(f) = self.take_in_flight(correlation_id) {
                for b in f.batches {
                    self.batch_failed(ctx, b, ErrorCode::NetworkException);
                }
            }
        }
        self.drain(ctx);
    }

    /// The sender: for each leader with room for another in-flight request,
    /// one ProduceRequest holding the first ready batch of each partition.
    fn drain(&mut self, ctx: &mut Ctx) {
        if self.config.enable_idempotence && self.producer_id < 0 {
            self.init_producer_id(ctx);
            return;
        }
        self.expire(ctx);
        let now = ctx.now_ms;
        // The ready partitions with their leaders, in the accumulator's
        // order; a stable sort by leader then gives each leader's partitions
        // in that order, as a map per leader would, without allocating one
        // on every drain (the sender drains after every response).
        let mut by_node = std::mem::take(&mut self.drain_scratch);
        by_node.clear();
        let mut need_metadata = None;
        let max_in_flight = self.config.max_in_flight_requests_per_connection;
        for (tp, queue) in &self.accumulator {
            // A leader whose connection is full takes nothing on this drain,
            // so its partitions are passed over before their batches are
            // even looked at (a backlog's first batch is rarely in cache);
            // every check here only skips, so their order changes nothing.
            let leader = self.metadata.leader(tp);
            if leader.is_some_and(|l| self.in_flight_to(l) >= max_in_flight) {
                continue;
            }
            let Some(first) = queue.front() else { continue };
            // RecordAccumulator.shouldBackoff: a retry waits out its backoff
            // unless the partition has a new leader since the last attempt.
            let leader_changed = leader.is_some() && first.last_leader.is_some() && leader != first.last_leader;
            if !first.sealed || (first.backoff_until_ms > now && !leader_changed) {
                continue;
            }
            if first.base_sequence.is_none() && self.waits_for_old_epoch(tp) {
                continue;
            }
            match leader {
                Some(leader) => by_node.push((leader, tp.clone())),
                None => need_metadata = Some(tp.topic.clone()),
            }
        }
        if let Some(topic) = need_metadata {
            self.metadata.request(ctx, self.id, &mut self.next_correlation_id, &topic);
        }
        sort_by_key(&mut by_node, |(node, _)| *node);
        let mut start = 0;
        while start < by_node.len() {
            let node = by_node[start].0;
            let end = start + by_node[start..].iter().take_while(|(n, _)| *n == node).count();
            let group = start..end;
            start = end;
            let mut batches = Vec::with_capacity(group.len());
            for (_, tp) in &by_node[group] {
                let mut b = self.accumulator.get_mut(tp).and_then(VecDeque::pop_front).expect("checked above");
                if self.config.enable_idempotence && b.base_sequence.is_none() {
                    // A bumped epoch restarts the partition's sequence at 0.
                    if self.sequence_epoch.get(tp) != Some(&self.producer_epoch) {
                        self.sequence_epoch.insert(tp.clone(), self.producer_epoch);
                        self.next_sequence.insert(tp.clone(), 0);
                    }
                    // The epoch check above inserted the partition if it was new.
                    let next = self.next_sequence.get_mut(tp).expect("set with the sequence epoch");
                    b.base_sequence = Some(*next);
                    b.producer_epoch = self.producer_epoch;
                    *next = next.wrapping_add(b.record_count() as i32);
                }
                b.attempts += 1;
                b.last_leader = Some(node);
                batches.push(b);
            }
            self.send_batches(ctx, node, batches);
        }
        by_node.clear();
        self.drain_scratch = by_node;
    }

    /// How many produce requests to `node` wait for an answer.
    fn in_flight_to(&self, node: u32) -> u32 {
        self.in_flight_per_node.get(node as usize).copied().unwrap_or(0)
    }

    fn in_flight_per_node_mut(&mut self, node: u32) -> &mut u32 {
        let i = node as usize;
        if self.in_flight_per_node.len() <= i {
            self.in_flight_per_node.resize(i + 1, 0);
        }
        &mut self.in_flight_per_node[i]
    }

    /// Takes a produce request out of `in_flight` (answered, timed out or
    /// disconnected).
    fn take_in_flight(&mut self, correlation_id: i32) -> Option<InFlight> {
        let f = self.in_flight.remove(&correlation_id)?;
        *self.in_flight_per_node_mut(f.node) -= 1;
        Some(f)
    }

    fn send_batches(&mut self, ctx: &mut Ctx, node: u32, batches: Vec<ProducerBatch>) {
        let id = RequestId { client: self.id, correlation_id: self.next_correlation_id };
        self.next_correlation_id += 1;
        let partitions = batches
            .iter()
            .map(|b| ProducePartition { partition: b.partition.clone(), batch: self.encode(b) })
            .collect();
        let request = Request {
            id,
            body: RequestBody::Produce(ProduceRequest {
                acks: self.config.acks,
                timeout_ms: self.config.request_timeout_ms.min(i32::MAX as u64) as i32,
                partitions,
            }),
        };
        ctx.send(NodeId::Broker(node), Message::Request(request));
        if self.config.acks == 0 {
            // acks=0: the future completes as soon as the bytes are sent.
            for b in &batches {
                for r in &b.records {
                    self.records[*r as usize].state = RecordState::SentWithoutAck;
                }
            }
            return;
        }
        for b in &batches {
            for r in &b.records {
                self.records[*r as usize].state = RecordState::InFlight { request: id };
            }
        }
        let count = self.in_flight_per_node_mut(node);
        *count += 1;
        let timeout_at_ms = ctx.now_ms.saturating_add(self.config.request_timeout_ms);
        self.in_flight.insert(id.correlation_id, InFlight { node, sent_ms: ctx.now_ms, timeout_at_ms, batches });
        ctx.timer(
            self.config.request_timeout_ms,
            ClientTimer::RequestTimeout { correlation_id: id.correlation_id },
        );
    }

    /// The batch's bytes: offsets start at 0 (the leader assigns the real
    /// ones), the producer id, epoch and sequence when idempotent. The
    /// records were encoded as they joined the batch, against the first
    /// record's timestamp, so only the header is new.
    fn encode(&self, b: &ProducerBatch) -> Vec<u8> {
        match (self.config.enable_idempotence, b.base_sequence) {
            (true, Some(seq)) => b.builder.build_as_producer(self.producer_id, b.producer_epoch, seq),
            _ => b.builder.build(),
        }
    }

    fn init_producer_id(&mut self, ctx: &mut Ctx) {
        if self.producer_id_in_flight.is_some() || self.metadata.bootstrap.is_empty() {
            return;
        }
        let Some((skip, broker)) = self.metadata.pick(ctx, self.init_producer_id_attempts) else {
            // Every broker refused lately: MetadataRetry drains again.
            return;
        };
        self.init_producer_id_attempts += skip;
        let id = RequestId { client: self.id, correlation_id: self.next_correlation_id };
        self.next_correlation_id += 1;
        self.producer_id_in_flight = Some(id);
        self.producer_id_broker = broker;
        ctx.send(NodeId::Broker(broker), Message::Request(Request { id, body: RequestBody::InitProducerId }));
        // Like the Metadata timeout, armed only where brokers can die.
        if self.metadata.timeout_ms.is_some() {
            ctx.timer(
                self.config.request_timeout_ms,
                ClientTimer::RequestTimeout { correlation_id: id.correlation_id },
            );
        }
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, _from: NodeId, msg: Message) {
        let Message::Response(response) = msg else {
            return;
        };
        if self.metadata.in_flight == Some(response.id)
            || self.producer_id_in_flight == Some(response.id)
            || self.in_flight.contains_key(&response.id.correlation_id)
        {
            ctx.trace(|| TraceKind::Hop {
                request: response.id,
                api: response.api_key,
                direction: Direction::Response,
                from: Stage::Wire,
                to: Stage::Client,
            });
        } else {
            // A response to a request that already timed out: its connection
            // was closed, so it is dropped unread.
            return;
        }
        let me = self.id;
        if self.metadata.on_response(ctx, me, response.id, &response.body) {
            self.after_metadata(ctx);
            return;
        }
        match response.body {
            ResponseBody::InitProducerId { error, producer_id, producer_epoch } => {
                self.producer_id_in_flight = None;
                if error == ErrorCode::None {
                    self.producer_id = producer_id;
                    self.producer_epoch = producer_epoch;
                    ctx.trace(|| TraceKind::ProducerIdAssigned { client: me, producer_id, producer_epoch });
                }
                self.drain(ctx);
            }
            ResponseBody::Produce(parts) => self.on_produce_response(ctx, response.id, parts),
            _ => {}
        }
    }

    /// KafkaProducer.waitOnMetadata: a record whose topic the metadata
    /// lacks, because the broker answered UNKNOWN_TOPIC_OR_PARTITION or has
    /// no metadata yet (a cluster still booting), keeps waiting, and the
    /// producer asks again after the metadata refresh backoff; only after
    /// max.block.ms does send() give up with a TimeoutException ("Topic ...
    /// not present in metadata after 60000 ms"), REQUEST_TIMED_OUT's
    /// exception.
    fn after_metadata(&mut self, ctx: &mut Ctx) {
        let waiting = std::mem::take(&mut self.awaiting_metadata);
        for pending in waiting {
            if self.metadata.knows(&pending.record.topic) {
                self.accumulate(ctx, pending);
            } else {
                self.awaiting_metadata.push(pending);
            }
        }
        self.expire_metadata_waits(ctx);
        self.drain(ctx);
    }

    /// Fails the records that waited max.block.ms for their topic, and
    /// arms the next metadata refresh for the others: after
    /// `ExponentialBackoff(retry.backoff.ms, 2, retry.backoff.max.ms, 0.2)`
    /// at attempt 0, since an answered Metadata request is a successful
    /// update to Kafka's Metadata (it resets the attempts), or at the first
    /// deadline if that comes sooner.
    fn expire_metadata_waits(&mut self, ctx: &mut Ctx) {
        let max_block_ms = self.config.max_block_ms;
        let now = ctx.now_ms;
        let records = &mut self.records;
        self.awaiting_metadata.retain(|p| {
            let expired = now >= p.sent_at_ms.saturating_add(max_block_ms);
            if expired {
                records[p.index as usize].state = RecordState::Failed { error: ErrorCode::RequestTimedOut };
            }
            !expired
        });
        let Some(deadline) = self.awaiting_metadata.iter().map(|p| p.sent_at_ms.saturating_add(max_block_ms)).min() else {
            return;
        };
        if !self.metadata_refresh_armed {
            self.metadata_refresh_armed = true;
            let backoff = retry_backoff_ms(&self.config, 1, ctx.rng);
            ctx.timer(backoff.min(deadline - now), ClientTimer::MetadataRefresh);
        }
    }

    fn on_produce_response(&mut self, ctx: &mut Ctx, id: RequestId, parts: Vec<super::super::protocol::ProducePartitionResponse>) {
        let Some(f) = self.take_in_flight(id.correlation_id) else {
            return;
        };
        self.latencies_ms.push(ctx.now_ms.saturating_sub(f.sent_ms).min(u32::MAX as u64) as u32);
        for b in f.batches {
            let Some(part) = parts.iter().find(|p| p.partition == b.partition) else {
                continue;
            };
            ctx.trace(|| TraceKind::ProduceCompleted {
                request: id,
                partition: b.partition.clone(),
                base_offset: part.base_offset,
                error: part.error,
                records: b.record_count(),
            });
            if part.error == ErrorCode::None {
                for (i, r) in b.records.iter().enumerate() {
                    self.records[*r as usize].state = RecordState::Acknowledged { offset: part.base_offset + i as i64 };
                }
            } else if part.error == ErrorCode::MessageTooLarge && b.record_count() > 1 {
                self.split_and_reenqueue(ctx, b);
            } else {
                self.batch_failed(ctx, b, part.error);
            }
        }
        self.drain(ctx);
    }

    /// Sender.completeBatch: the leader refused a batch of more than one
    /// record as too large (MESSAGE_TOO_LARGE), so the producer splits it
    /// (ProducerBatch.split): its records, in order, go into new batches of
    /// at most `batch.size`, which take its place at the front of the
    /// partition's queue as if never tried (RecordAccumulator.
    /// splitAndReenqueue): no backoff, no attempt counted, whatever the
    /// delivery timeout. They keep the batch's creation time, so
    /// delivery.timeout.ms still counts from it and ends a split that
    /// cannot help (`expire`), and its id, which orders the queue. An
    /// idempotent batch's sequence numbers run on through its parts.
    ///
    /// Kafka splits by batch.size alone, never by the topic's
    /// max.message.bytes (KAFKA-8350). Nothing is compressed here, and a
    /// batch takes each record after its first only while it fits
    /// batch.size, so the split gives back one batch with the same records:
    /// the leader refuses it again, and so on until the batch expires, which
    /// is what a real producer does when batch.size is above the topic's
    /// max.message.bytes.
    fn split_and_reenqueue(&mut self, ctx: &mut Ctx, big: ProducerBatch) {
        let batch_size = self.config.batch_size;
        let Ok(decoded) = batch::decode(&big.builder.build()) else {
            return self.batch_failed(ctx, big, ErrorCode::MessageTooLarge);
        };
        let mut parts: Vec<ProducerBatch> = Vec::new();
        for (record, index) in decoded.records.iter().zip(&big.records) {
            let (timestamp, key, value) = (decoded.timestamp_of(record), record.key.as_deref(), record.value.as_deref());
            if !parts.last().is_some_and(|p| p.builder.has_room_for(timestamp, key, value, &record.headers, batch_size)) {
                parts.push(ProducerBatch {
                    sealed: true,
                    producer_epoch: big.producer_epoch,
                    ..ProducerBatch::empty(big.id, big.partition.clone(), timestamp, big.created_ms)
                });
            }
            let p = parts.last_mut().expect("a part was ensured");
            let _ = p.builder.append(timestamp, key, value, &record.headers);
            p.records.push(*index);
        }
        // ProducerBatch.assignProducerStateToBatches.
        if let Some(mut sequence) = big.base_sequence {
            for p in &mut parts {
                p.base_sequence = Some(sequence);
                sequence = sequence.wrapping_add(p.record_count() as i32);
            }
        }
        let (me, records, bytes, batches) = (self.id, big.record_count(), big.size_bytes(), parts.len() as u32);
        ctx.trace(|| TraceKind::BatchSplit { client: me, partition: big.partition.clone(), records, bytes, batch_size, batches });
        // In order: each part goes behind the parts before it, which share its id.
        for p in parts {
            self.requeue(p);
        }
    }

    /// RecordAccumulator.expiredBatches: a batch still in the accumulator
    /// `delivery.timeout.ms` after it was created fails with a
    /// TimeoutException (REQUEST_TIMED_OUT), oldest first in each
    /// partition, as does a batch that retried or split past it. Kafka's
    /// sender also expires a batch in flight at that moment; here a batch
    /// in flight waits for its answer or its request.timeout.ms.
    fn expire(&mut self, ctx: &mut Ctx) {
        let (timeout, now) = (self.config.delivery_timeout_ms, ctx.now_ms);
        let mut expired = Vec::new();
        for queue in self.accumulator.values_mut() {
            while queue.front().is_some_and(|b| now.saturating_sub(b.created_ms) >= timeout) {
                expired.extend(queue.pop_front());
            }
        }
        for b in expired {
            let (me, records) = (self.id, b.record_count());
            ctx.trace(|| TraceKind::BatchExpired { client: me, partition: b.partition.clone(), records, delivery_timeout_ms: timeout });
            self.fail(&b, ErrorCode::RequestTimedOut);
        }
    }

    /// Puts a batch back into its partition's queue in creation order, so
    /// batches retried together keep their order.
    fn requeue(&mut self, b: ProducerBatch) {
        for r in &b.records {
            self.records[*r as usize].state = RecordState::Accumulating;
        }
        let queue = self.accumulator.entry(b.partition.clone()).or_default();
        let at = queue.iter().position(|q| q.id > b.id).unwrap_or(queue.len());
        queue.insert(at, b);
    }

    /// Whether a new batch for `tp` must wait: the producer epoch was
    /// bumped, and batches sequenced in the old one are still in flight or
    /// retrying (Kafka's shouldStopDrainBatchesForPartition), so the
    /// sequence cannot restart yet.
    fn waits_for_old_epoch(&self, tp: &TopicPartition) -> bool {
        if !self.config.enable_idempotence || self.sequence_epoch.get(tp).is_none_or(|e| *e == self.producer_epoch) {
            return false;
        }
        let old = |b: &ProducerBatch| b.partition == *tp && b.base_sequence.is_some() && b.producer_epoch != self.producer_epoch;
        self.in_flight_batches().any(|(_, b)| old(b)) || self.batches().any(old)
    }

    /// Kafka's idempotent producer bumps its epoch itself when a sequenced
    /// batch fails for good or meets OUT_OF_ORDER_SEQUENCE_NUMBER: the gap
    /// it leaves would otherwise refuse every later batch of the partition.
    /// The new epoch restarts each partition's sequence at 0. Only a failure
    /// in the current epoch bumps it, so one gap bumps it once.
    fn bump_epoch_after(&mut self, b: &ProducerBatch) {
        if self.config.enable_idempotence && b.base_sequence.is_some() && b.producer_epoch == self.producer_epoch {
            self.producer_epoch = self.producer_epoch.wrapping_add(1);
        }
    }

    /// A retriable error sends the batch again after `retry.backoff.ms`, as
    /// long as `delivery.timeout.ms` has not run out; otherwise it fails.
    /// The idempotent producer also retries OUT_OF_ORDER_SEQUENCE_NUMBER,
    /// with a new sequence in a new epoch (TransactionManager.canRetry).
    fn batch_failed(&mut self, ctx: &mut Ctx, mut b: ProducerBatch, error: ErrorCode) {
        let now = ctx.now_ms;
        // Sender.canRetry: only while delivery.timeout.ms has not passed; a
        // retry whose backoff outlasts it expires in the accumulator then.
        let left = self.config.delivery_timeout_ms.saturating_sub(now.saturating_sub(b.created_ms));
        let within_delivery = left > 0;
        let out_of_order = self.config.enable_idempotence && error == ErrorCode::OutOfOrderSequenceNumber;
        if out_of_order && within_delivery {
            self.bump_epoch_after(&b);
            b.base_sequence = None;
        }
        if (error.is_retriable() || out_of_order) && within_delivery {
            ctx.trace(|| TraceKind::ProduceRetry { client: self.id, partition: b.partition.clone(), error, attempt: b.attempts + 1 });
            // A timeout is a disconnect, after which Kafka's NetworkClient
            // asks for a metadata update too: the leader may be gone.
            if matches!(
                error,
                ErrorCode::NotLeaderOrFollower
                    | ErrorCode::UnknownTopicOrPartition
                    | ErrorCode::LeaderNotAvailable
                    | ErrorCode::RequestTimedOut
                    | ErrorCode::NetworkException
            ) {
                let topic = b.partition.topic.clone();
                self.metadata.leaders.remove(&b.partition);
                self.metadata.request(ctx, self.id, &mut self.next_correlation_id, &topic);
            }
            let backoff = retry_backoff_ms(&self.config, b.attempts, ctx.rng);
            b.backoff_until_ms = now + backoff;
            let batch = b.id;
            self.requeue(b);
            ctx.timer(backoff.min(left), ClientTimer::RetryBackoff { batch });
        } else {
            self.fail(&b, error);
        }
    }

    /// A batch fails for good: its records fail with `error`, and an
    /// idempotent producer bumps its epoch past the gap in its sequences.
    fn fail(&mut self, b: &ProducerBatch, error: ErrorCode) {
        self.bump_epoch_after(b);
        for r in &b.records {
            self.records[*r as usize].state = RecordState::Failed { error };
        }
    }
}

/// The wait before a batch's next attempt, after `attempts` sends: Kafka's
/// `ExponentialBackoff(retry.backoff.ms, 2, retry.backoff.max.ms, 0.2)` at
/// `attempts - 1`, which doubles from retry.backoff.ms up to
/// retry.backoff.max.ms with a random factor in [0.8, 1.2), never above the
/// maximum. In integers (parts per million for the factor), so every
/// platform draws the same wait from the same seed.
pub fn retry_backoff_ms(config: &crate::sim::config::ProducerConfig, attempts: u32, rng: &mut crate::sim::rng::SimRng) -> u64 {
    rng.exponential_backoff_ms(config.retry_backoff_ms, config.retry_backoff_max_ms, 20, attempts.saturating_sub(1))
}

#[cfg(test)]
mod backoff_tests {
    use super::retry_backoff_ms;
    use crate::sim::config::ProducerConfig;
    use crate::sim::rng::SimRng;

    #[test]
    fn the_retry_backoff_doubles_with_jitter_up_to_its_maximum() {
        let config = ProducerConfig::default();
        assert_eq!((config.retry_backoff_ms, config.retry_backoff_max_ms), (100, 1_000), "Kafka's defaults");
        for seed in 0..200 {
            let mut rng = SimRng::new(seed);
            let waits: Vec<u64> = (1..=7).map(|attempts| retry_backoff_ms(&config, attempts, &mut rng)).collect();
            // 100, 200, 400, 800 ms, then the 1 s cap, each within ±20 %
            // and never above the cap.
            for (wait, term) in waits.iter().zip([100u64, 200, 400, 800, 1_000, 1_000, 1_000]) {
                assert!(*wait >= term * 8 / 10 && *wait < (term * 12 / 10).max(term + 1), "seed {seed}: {waits:?}");
                assert!(*wait <= 1_000, "seed {seed}: {waits:?}");
            }
            // The same seed draws the same waits.
            let mut again = SimRng::new(seed);
            assert_eq!(waits, (1..=7).map(|a| retry_backoff_ms(&config, a, &mut again)).collect::<Vec<_>>());
        }
        // The jitter spreads the waits: not every seed draws the same.
        let firsts: std::collections::BTreeSet<u64> = (0..50).map(|s| retry_backoff_ms(&config, 1, &mut SimRng::new(s))).collect();
        assert!(firsts.len() > 10, "{firsts:?}");
        // A maximum at or below retry.backoff.ms is a constant backoff of it.
        let flat = ProducerConfig { retry_backoff_ms: 500, retry_backoff_max_ms: 300, ..Default::default() };
        assert_eq!(retry_backoff_ms(&flat, 5, &mut SimRng::new(1)), 300);
    }
}

#[cfg(test)]
mod split_tests {
    use super::*;
    use crate::sim::node::Output;
    use crate::sim::rng::SimRng;

    fn record(value: &str, timestamp_ms: i64) -> ProducerRecord {
        ProducerRecord { topic: "orders".into(), partition: Some(0), key: None, value: Some(value.into()), headers: vec![], timestamp_ms }
    }

    /// The page cannot split a batch into more than one (nothing is
    /// compressed, so a batch never outgrows batch.size), but the split is
    /// ProducerBatch.split's: here batch.size shrinks after the batch was
    /// filled, so the split must cut it.
    #[test]
    fn a_split_cuts_the_records_into_batches_of_batch_size_in_order_with_their_sequences() {
        let config = ProducerConfig { batch_size: 16_384, linger_ms: 1_000, ..Default::default() };
        let mut p = Producer::new(NodeId::Client(0), config, vec![0]);
        p.metadata.partitions_per_topic.insert(TopicName::from("orders"), 1);
        let (mut rng, mut out) = (SimRng::new(1), Vec::new());
        let mut ctx = Ctx { now_ms: 10, me: NodeId::Client(0), rng: &mut rng, out: &mut out, tracing: true };
        for (i, v) in ["a", "b", "c", "d", "e"].iter().enumerate() {
            p.send(&mut ctx, record(&v.repeat(100), 1_000 + i as i64));
        }
        let tp = TopicPartition::new("orders", 0);
        let mut big = p.accumulator.get_mut(&tp).and_then(VecDeque::pop_front).expect("one batch");
        assert_eq!(big.record_count(), 5);
        big.base_sequence = Some(7);
        big.attempts = 3;
        // Room for two of these records (about 108 bytes each) a batch, not three.
        p.config.batch_size = 61 + 2 * 110;
        ctx.now_ms = 500;
        p.split_and_reenqueue(&mut ctx, big);

        let parts: Vec<&ProducerBatch> = p.accumulator[&tp].iter().collect();
        let shape: Vec<(Vec<u32>, Option<i32>, u32, u64, bool)> =
            parts.iter().map(|b| (b.records.clone(), b.base_sequence, b.attempts, b.created_ms, b.sealed)).collect();
        assert_eq!(
            shape,
            vec![(vec![0, 1], Some(7), 0, 10, true), (vec![2, 3], Some(9), 0, 10, true), (vec![4], Some(11), 0, 10, true)],
            "in order, sequences running on, never tried, created when the big batch was"
        );
        for b in &parts {
            assert!(b.size_bytes() <= p.config.batch_size || b.record_count() == 1, "{}", b.size_bytes());
        }
        // Each part's bytes hold its own records with their own timestamps.
        let values: Vec<Vec<(Option<Vec<u8>>, i64)>> = parts
            .iter()
            .map(|b| {
                let d = batch::decode(&b.builder.build()).unwrap();
                d.records.iter().map(|r| (r.value.clone(), d.timestamp_of(r))).collect()
            })
            .collect();
        assert_eq!(values[1], vec![(Some("c".repeat(100).into_bytes()), 1_002), (Some("d".repeat(100).into_bytes()), 1_003)]);
        assert!(p.records().iter().all(|r| r.state == RecordState::Accumulating));
        assert!(out.iter().any(|o| matches!(o, Output::Trace(TraceKind::BatchSplit { records: 5, batches: 3, .. }))));
    }
}
