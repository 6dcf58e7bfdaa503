//! The API handlers an I/O thread runs (Kafka's KafkaApis and ReplicaManager)
//! and the delayed operations they park in purgatory (DelayedProduce,
//! DelayedFetch).

use super::super::config::TimestampType as TopicTimestampType;
use super::super::ids::{NodeId, RequestId, TopicPartition};
use super::Ctx;
use super::super::protocol::{
    ApiKey, EpochEndOffset, ErrorCode, FetchPartitionResponse, FetchRequest, PartitionMetadata,
    ProducePartitionResponse, ProduceRequest, RequestBody, Response, ResponseBody,
};
use super::super::purgatory::purgatory::WatchOutcome;
use super::super::record::batch;
use super::super::log::log::LogError;
use super::super::trace::{Direction, RejectReason, Stage, TraceKind, WaitReason};
use super::partition::{IsrChange, Partition};
use super::producer_state::SequenceCheck;
use super::{Broker, BrokerTimer, IoWork};
use crate::sim::collections::BTreeMap;

/// What an API handler decided.
#[derive(Clone, Debug)]
pub(crate) enum HandlerOutcome {
    Respond(Response),
    /// Not answerable yet: park it in purgatory.
    ParkProduce(DelayedProduce),
    ParkFetch(DelayedFetch),
    /// acks=0: the producer expects no answer. Kafka still tells the network
    /// thread (a NoOpResponse) so it unmutes the connection.
    NoResponse,
    /// acks=0 and a partition failed: the connection is closed, the only
    /// way to tell a producer that expects no answer (KafkaApis).
    CloseConnection(ErrorCode),
}

/// One partition of a produce that waits for the high watermark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProduceStatus {
    pub partition: TopicPartition,
    /// The offset the HW must reach: the batch's last offset + 1.
    pub required_offset: i64,
    pub response: ProducePartitionResponse,
    pub pending: bool,
}

/// Kafka's DelayedProduce: an acks=all produce whose records are in the
/// leader's log, waiting until the ISR has them (the HW covers them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayedProduce {
    pub client: NodeId,
    pub request: RequestId,
    pub timeout_ms: i64,
    pub partitions: Vec<ProduceStatus>,
}

/// Kafka's DelayedFetch: a fetch that found fewer than `min_bytes`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelayedFetch {
    pub client: NodeId,
    pub request: RequestId,
    pub fetch: FetchRequest,
    /// Bytes readable when last checked, for the "why?" answer.
    pub bytes_available: i64,
}

impl Broker {
    pub(super) fn io_handle(&mut self, ctx: &mut Ctx, thread: u32) {
        let Some(IoWork::Handling { client, mut request }) = self.io_threads[thread as usize].work.take() else {
            return;
        };
        let api = request.api_key();
        let id = request.id;
        // A produce's batches are rewritten in place (offsets, leader epoch),
        // as Kafka's LogValidator does to the request's own buffer.
        let (outcome, stage) = match &mut request.body {
            RequestBody::Produce(produce) => {
                ctx.trace(|| TraceKind::Hop {
                    request: id,
                    api,
                    direction: Direction::Request,
                    from: Stage::IoThread(thread),
                    to: Stage::LogAppend,
                });
                (self.handle_produce(ctx, client, id, produce), Stage::LogAppend)
            }
            RequestBody::Fetch(fetch) => {
                ctx.trace(|| TraceKind::Hop {
                    request: id,
                    api,
                    direction: Direction::Request,
                    from: Stage::IoThread(thread),
                    to: Stage::LogRead,
                });
                (self.handle_fetch(ctx, client, id, fetch), Stage::LogRead)
            }
            RequestBody::Metadata { topics } => (self.handle_metadata(id, topics), Stage::IoThread(thread)),
            RequestBody::InitProducerId => {
                let producer_id = self.next_producer_id;
                self.next_producer_id += 1;
                let body = ResponseBody::InitProducerId { error: ErrorCode::None, producer_id, producer_epoch: 0 };
                (HandlerOutcome::Respond(Response { id, api_key: api, body }), Stage::IoThread(thread))
            }
        };
        self.io_threads[thread as usize].work = Some(IoWork::Done { client, request: id, api, outcome, stage });
        ctx.timer(0, BrokerTimer::IoRespond { thread });
    }

    pub(super) fn io_respond(&mut self, ctx: &mut Ctx, thread: u32) {
        let Some(IoWork::Done { client, request, api, outcome, stage }) = self.io_threads[thread as usize].work.take()
        else {
            return;
        };
        match outcome {
            HandlerOutcome::Respond(response) => self.enqueue_response(ctx, client, response, stage),
            HandlerOutcome::NoResponse => {
                ctx.trace(|| TraceKind::NoResponse { request, client });
                if let Some(conn) = self.connections.get_mut(&client) {
                    conn.muted = false;
                    let t = conn.network_thread;
                    ctx.trace(|| TraceKind::ConnectionMuted { client, muted: false });
                    self.wake_network_thread(ctx, t);
                }
            }
            HandlerOutcome::CloseConnection(error) => {
                ctx.trace(|| TraceKind::ConnectionClosed { request, client, error });
                self.close_connection(ctx, client);
            }
            HandlerOutcome::ParkProduce(op) => self.park_produce(ctx, op, stage, api),
            HandlerOutcome::ParkFetch(op) => self.park_fetch(ctx, op, stage, api),
        }
        self.wake_io_thread(ctx);
    }

    fn handle_metadata(&self, request: RequestId, topics: &[String]) -> HandlerOutcome {
        let mut partitions = Vec::new();
        let mut unknown_topics = Vec::new();
        for topic in topics {
            let found: Vec<_> = self.metadata.partitions.iter().filter(|(tp, _)| tp.topic == *topic).collect();
            if found.is_empty() {
                unknown_topics.push(topic.clone());
            }
            for (tp, a) in found {
                partitions.push(PartitionMetadata {
                    partition: tp.clone(),
                    error: if a.leader.is_some() { ErrorCode::None } else { ErrorCode::LeaderNotAvailable },
                    leader: a.leader,
                    leader_epoch: a.leader_epoch,
                    replicas: a.replicas.clone(),
                    isr: a.isr.clone(),
                });
            }
        }
        let body = ResponseBody::Metadata { brokers: self.metadata.brokers.clone(), partitions, unknown_topics };
        HandlerOutcome::Respond(Response { id: request, api_key: ApiKey::Metadata, body })
    }

    // ----- Produce -----

    fn handle_produce(
        &mut self,
        ctx: &mut Ctx,
        client: NodeId,
        request: RequestId,
        produce: &mut ProduceRequest,
    ) -> HandlerOutcome {
        let now = ctx.now_ms;
        let mut statuses = Vec::new();
        let acks = produce.acks;
        for part in &mut produce.partitions {
            let response = if !matches!(acks, 0 | 1 | -1) {
                error_response(&part.partition, ErrorCode::InvalidRequiredAcks)
            } else {
                self.append_to_leader(ctx, request, acks, &part.partition, &mut part.batch)
            };
            let required_offset = if response.error == ErrorCode::None {
                let last = batch::last_offset(&part.batch).unwrap_or(response.base_offset);
                // A duplicate answered from the producer state carries its
                // original base offset; the required offset follows from it.
                response.base_offset + (last - batch::base_offset(&part.batch).unwrap_or(last)) + 1
            } else {
                -1
            };
            statuses.push(ProduceStatus {
                partition: part.partition.clone(),
                required_offset,
                pending: acks == -1 && response.error == ErrorCode::None,
                response,
            });
        }
        self.wake_fetches_after_append(ctx, &statuses);
        if produce.acks == 0 {
            return match statuses.iter().find(|s| s.response.error != ErrorCode::None) {
                Some(failed) => HandlerOutcome::CloseConnection(failed.response.error),
                None => HandlerOutcome::NoResponse,
            };
        }
        if statuses.iter().any(|s| s.pending) {
            return HandlerOutcome::ParkProduce(DelayedProduce {
                client,
                request,
                timeout_ms: produce.timeout_ms as i64,
                partitions: statuses,
            });
        }
        let _ = now;
        HandlerOutcome::Respond(Response {
            id: request,
            api_key: ApiKey::Produce,
            body: ResponseBody::Produce(statuses.into_iter().map(|s| s.response).collect()),
        })
    }

    /// Validates a batch and appends it to the leader's log
    /// (ReplicaManager.appendToLocalLog, LogValidator, UnifiedLog.append).
    fn append_to_leader(
        &mut self,
        ctx: &mut Ctx,
        request: RequestId,
        acks: i16,
        tp: &TopicPartition,
        bytes: &mut [u8],
    ) -> ProducePartitionResponse {
        let me = self.id;
        let now = ctx.now_ms as i64;
        let Some(p) = self.partitions.get_mut(tp) else {
            let known = self.metadata.partitions.contains_key(tp);
            let error = if known { ErrorCode::NotLeaderOrFollower } else { ErrorCode::UnknownTopicOrPartition };
            ctx.trace(|| TraceKind::ProduceRejected { request, partition: tp.clone(), error, reason: RejectReason::NoReplica });
            return error_response(tp, error);
        };
        let reject = |ctx: &mut Ctx, error: ErrorCode, reason: RejectReason| {
            ctx.trace(|| TraceKind::ProduceRejected { request, partition: tp.clone(), error, reason });
            error_response(tp, error)
        };
        if !p.is_leader(me) {
            return reject(ctx, ErrorCode::NotLeaderOrFollower, RejectReason::NotLeader { broker: me });
        }
        // Partition.appendRecordsToLeader checks the ISR before the log looks
        // at the batch at all.
        if acks == -1 && (p.isr.len() as u32) < p.min_insync_replicas() {
            return reject(
                ctx,
                ErrorCode::NotEnoughReplicas,
                RejectReason::NotEnoughInSyncReplicas { isr: p.isr.clone(), min_insync_replicas: p.min_insync_replicas() },
            );
        }
        if let Err(e) = batch::validate(bytes, p.config.max_message_bytes.max(0) as u32) {
            let error = match e.error_code() {
                10 => ErrorCode::MessageTooLarge,
                2 => ErrorCode::CorruptMessage,
                _ => ErrorCode::InvalidRecord,
            };
            return reject(ctx, error, RejectReason::InvalidBatch(e));
        }
        let Ok(header) = batch::read_header(bytes) else {
            return reject(ctx, ErrorCode::CorruptMessage, RejectReason::UnreadableHeader);
        };
        if p.config.message_timestamp_type == TopicTimestampType::CreateTime {
            let too_new = header.max_timestamp > now.saturating_add(p.config.message_timestamp_after_max_ms);
            let too_old = header.base_timestamp < now.saturating_sub(p.config.message_timestamp_before_max_ms);
            if too_new || too_old {
                return reject(
                    ctx,
                    ErrorCode::InvalidTimestamp,
                    RejectReason::TimestampOutOfRange { timestamp: header.max_timestamp },
                );
            }
        }
        let idempotent = header.producer_id >= 0;
        let last_seq = header.base_sequence.wrapping_add(header.last_offset_delta);
        if idempotent {
            match p.producer_state.check(header.producer_id, header.producer_epoch, header.base_sequence, last_seq) {
                SequenceCheck::InSequence => {}
                SequenceCheck::Duplicate(meta) => {
                    ctx.trace(|| TraceKind::DuplicateBatch {
                        request,
                        partition: tp.clone(),
                        producer_id: header.producer_id,
                        base_sequence: header.base_sequence,
                        original_base_offset: meta.first_offset,
                    });
                    return ProducePartitionResponse {
                        partition: tp.clone(),
                        error: ErrorCode::None,
                        base_offset: meta.first_offset,
                        log_append_time_ms: -1,
                        log_start_offset: p.log.log_start_offset(),
                    };
                }
                SequenceCheck::OutOfOrder { expected, got } => {
                    return reject(
                        ctx,
                        ErrorCode::OutOfOrderSequenceNumber,
                        RejectReason::OutOfOrderSequence { expected, got },
                    );
                }
                SequenceCheck::FencedEpoch { current, got } => {
                    return reject(
                        ctx,
                        ErrorCode::InvalidProducerEpoch,
                        RejectReason::ProducerFenced { current, got },
                    );
                }
            }
        }
        // The leader assigns offsets by rewriting only baseOffset and
        // partitionLeaderEpoch, which lie outside the CRC. Like Kafka it
        // rewrites the request's own bytes; the log append copies them.
        let stored = bytes;
        let base_offset = p.log.log_end_offset();
        let rewrites = batch::set_base_offset(stored, base_offset)
            .and_then(|_| batch::set_partition_leader_epoch(stored, p.leader_epoch.max(0)));
        if rewrites.is_err() {
            return reject(ctx, ErrorCode::CorruptMessage, RejectReason::UnreadableHeader);
        }
        let mut log_append_time_ms = -1;
        if p.config.message_timestamp_type == TopicTimestampType::LogAppendTime {
            // LogAppendTime changes maxTimestamp, which the CRC covers, so the
            // broker recomputes it.
            if batch::set_log_append_time(stored, now).is_ok() {
                log_append_time_ms = now;
            }
        }
        let size = stored.len() as u64;
        let info = match p.log.append(stored, now) {
            Ok(info) => info,
            Err(LogError::RecordBatchTooLarge { size_bytes, segment_bytes }) => {
                return reject(ctx, ErrorCode::CorruptMessage, RejectReason::BatchLargerThanSegment { size_bytes, segment_bytes })
            }
            Err(_) => return reject(ctx, ErrorCode::CorruptMessage, RejectReason::LogRefused),
        };
        p.producer_state.record_appended(&header, info.first_offset, info.last_offset);
        let records = (info.last_offset - info.first_offset + 1).max(0) as u64;
        self.meters.add_messages_in(&tp.topic, records, size);
        if let (true, Some(reason)) = (info.rolled, info.roll_reason) {
            ctx.trace(|| TraceKind::SegmentRolled {
                partition: tp.clone(),
                replica: me,
                base_offset: info.segment_base_offset,
                reason,
            });
        }
        ctx.trace(|| TraceKind::Appended {
            request,
            partition: tp.clone(),
            replica: me,
            base_offset: info.first_offset,
            last_offset: info.last_offset,
            log_end_offset: p.log.log_end_offset(),
            segment: info.segment_base_offset,
            position: info.position,
        });
        let response = ProducePartitionResponse {
            partition: tp.clone(),
            error: ErrorCode::None,
            base_offset: info.first_offset,
            log_append_time_ms,
            log_start_offset: p.log.log_start_offset(),
        };
        // A leader alone in its ISR moves the HW at once.
        self.maybe_advance_high_watermark(ctx, tp);
        response
    }

    fn park_produce(&mut self, ctx: &mut Ctx, op: DelayedProduce, from: Stage, api: ApiKey) {
        let keys: Vec<TopicPartition> =
            op.partitions.iter().filter(|s| s.pending).map(|s| s.partition.clone()).collect();
        let (request, client, timeout) = (op.request, op.client, op.timeout_ms);
        let me = self.id;
        let partitions = &self.partitions;
        let outcome = self.produce_purgatory.try_complete_else_watch(op, keys, timeout, ctx.now_ms as i64, |op| {
            try_complete_produce(me, partitions, op)
        });
        match outcome {
            WatchOutcome::CompletedImmediately { op, .. } => {
                self.complete_produce(ctx, op, from);
            }
            WatchOutcome::Watched { id } => {
                ctx.trace(|| TraceKind::Hop { request, api, direction: Direction::Request, from, to: Stage::Purgatory });
                let waits = self.produce_wait_reasons(id);
                ctx.trace(|| TraceKind::Parked { request, client, operation: id, waits, timeout_ms: timeout as u64 });
                self.schedule_purgatory_tick(ctx);
            }
        }
    }

    fn complete_produce(&mut self, ctx: &mut Ctx, op: DelayedProduce, from: Stage) {
        let response = Response {
            id: op.request,
            api_key: ApiKey::Produce,
            body: ResponseBody::Produce(op.partitions.into_iter().map(|s| s.response).collect()),
        };
        self.enqueue_response(ctx, op.client, response, from);
    }

    /// What each pending partition of a delayed produce waits for.
    pub(crate) fn produce_wait_reasons_view(&self, id: u64) -> Vec<WaitReason> {
        self.produce_wait_reasons(id)
    }

    fn produce_wait_reasons(&self, id: u64) -> Vec<WaitReason> {
        let Some(op) = self.produce_purgatory.get(id) else {
            return Vec::new();
        };
        op.partitions
            .iter()
            .filter(|s| s.pending)
            .filter_map(|s| {
                let p = self.partitions.get(&s.partition)?;
                Some(WaitReason::HighWatermark {
                    partition: s.partition.clone(),
                    required_offset: s.required_offset,
                    high_watermark: p.high_watermark,
                    laggards: p.laggards(self.id),
                })
            })
            .collect()
    }

    // ----- Fetch -----

    fn handle_fetch(&mut self, ctx: &mut Ctx, client: NodeId, request: RequestId, fetch: &FetchRequest) -> HandlerOutcome {
        let now = ctx.now_ms;
        let (partitions, bytes, any_error) = self.read_for_fetch(ctx, request, fetch, true);
        // A follower's fetch offset is its LEO. As in Kafka's
        // Partition.fetchRecords it is recorded after the read (so the answer
        // carries the HW from before it) and not at all when the answer is an
        // error or a diverging epoch: a diverged log's offset says nothing
        // about the leader's records. It may move the HW and release produces.
        if let Some(follower) = fetch.replica_id {
            for (fp, answer) in fetch.partitions.iter().zip(&partitions) {
                if answer.error == ErrorCode::None && answer.diverging_epoch.is_none() {
                    self.update_follower(ctx, follower, &fp.partition, fp.fetch_offset, now);
                }
            }
        }
        let enough = bytes >= fetch.min_bytes as i64 || fetch.max_wait_ms <= 0 || any_error;
        if enough {
            return HandlerOutcome::Respond(Response {
                id: request,
                api_key: ApiKey::Fetch,
                body: ResponseBody::Fetch { error: ErrorCode::None, partitions },
            });
        }
        HandlerOutcome::ParkFetch(DelayedFetch { client, request, fetch: fetch.clone(), bytes_available: bytes })
    }

    /// Reads every partition of a fetch (ReplicaManager.readFromLog):
    /// consumers up to the HW, followers up to the LEO.
    fn read_for_fetch(
        &self,
        ctx: &mut Ctx,
        request: RequestId,
        fetch: &FetchRequest,
        trace: bool,
    ) -> (Vec<FetchPartitionResponse>, i64, bool) {
        let mut out = Vec::new();
        let mut total: i64 = 0;
        let mut any_error = false;
        let mut budget = fetch.max_bytes.max(0) as i64;
        for fp in &fetch.partitions {
            let first = out.iter().all(|r: &FetchPartitionResponse| r.records.is_empty());
            // The headers a lookup scanned are kept only for the trace.
            let answer = self.read_partition(fetch.replica_id, fp, budget, first, trace && ctx.tracing);
            match answer {
                Ok((resp, lookup)) => {
                    if resp.error != ErrorCode::None || resp.diverging_epoch.is_some() {
                        any_error = true;
                    }
                    total += resp.records.len() as i64;
                    budget -= resp.records.len() as i64;
                    if trace {
                        ctx.trace(|| TraceKind::LogRead {
                            request,
                            partition: fp.partition.clone(),
                            replica: self.id,
                            fetch_offset: fp.fetch_offset,
                            bytes: resp.records.len() as u32,
                            upper_bound: if fetch.replica_id.is_some() { Bound::LogEndOffset } else { Bound::HighWatermark },
                            lookup: lookup.map(Box::new),
                            error: resp.error,
                        });
                    }
                    out.push(resp);
                }
                Err(resp) => {
                    any_error = true;
                    out.push(resp);
                }
            }
        }
        (out, total, any_error)
    }

    #[allow(clippy::type_complexity)]
    fn read_partition(
        &self,
        replica_id: Option<u32>,
        fp: &super::super::protocol::FetchPartition,
        budget: i64,
        first: bool,
        record_path: bool,
    ) -> Result<(FetchPartitionResponse, Option<super::super::log::segment::LookupPath>), FetchPartitionResponse> {
        let empty = |error: ErrorCode, hw: i64, lso: i64| FetchPartitionResponse {
            partition: fp.partition.clone(),
            error,
            high_watermark: hw,
            log_start_offset: lso,
            diverging_epoch: None,
            records: Vec::new(),
        };
        let Some(p) = self.partitions.get(&fp.partition) else {
            let known = self.metadata.partitions.contains_key(&fp.partition);
            let error = if known { ErrorCode::NotLeaderOrFollower } else { ErrorCode::UnknownTopicOrPartition };
            return Err(empty(error, -1, -1));
        };
        if !p.is_leader(self.id) {
            return Err(empty(ErrorCode::NotLeaderOrFollower, -1, -1));
        }
        let (hw, lso) = (p.high_watermark, p.log.log_start_offset());
        // A follower whose last fetched epoch ended earlier on the leader has
        // diverged: tell it where that epoch ends so it truncates.
        if let (Some(_), Some(epoch)) = (replica_id, fp.last_fetched_epoch) {
            if let Some((leader_epoch, end_offset)) = p.log.end_offset_for_epoch(epoch) {
                if end_offset < fp.fetch_offset || leader_epoch < epoch {
                    let mut resp = empty(ErrorCode::None, hw, lso);
                    resp.diverging_epoch = Some(EpochEndOffset { epoch: leader_epoch, end_offset });
                    return Ok((resp, None));
                }
            }
        }
        let bound = if replica_id.is_some() { p.log.log_end_offset() } else { hw };
        let max_bytes = (fp.partition_max_bytes as i64).min(budget.max(0)) as u32;
        match p.log.read_recording(fp.fetch_offset, max_bytes, bound, first, record_path) {
            Ok(read) => {
                let mut resp = empty(ErrorCode::None, hw, lso);
                resp.records = read.bytes;
                Ok((resp, read.lookup))
            }
            Err(LogError::OffsetOutOfRange { .. }) => {
                Err(empty(ErrorCode::OffsetOutOfRange, hw, lso))
            }
            Err(_) => Err(empty(ErrorCode::CorruptMessage, hw, lso)),
        }
    }

    fn park_fetch(&mut self, ctx: &mut Ctx, op: DelayedFetch, from: Stage, api: ApiKey) {
        let keys: Vec<TopicPartition> = op.fetch.partitions.iter().map(|p| p.partition.clone()).collect();
        let (request, client, timeout) = (op.request, op.client, op.fetch.max_wait_ms as i64);
        let min_bytes = op.fetch.min_bytes;
        let me = self.id;
        let partitions = &self.partitions;
        let outcome = self.fetch_purgatory.try_complete_else_watch(op, keys, timeout, ctx.now_ms as i64, |op| {
            try_complete_fetch(me, partitions, op)
        });
        match outcome {
            WatchOutcome::CompletedImmediately { op, .. } => self.complete_fetch(ctx, op, from),
            WatchOutcome::Watched { id } => {
                ctx.trace(|| TraceKind::Hop { request, api, direction: Direction::Request, from, to: Stage::Purgatory });
                let available = self.fetch_purgatory.get(id).map(|o| o.bytes_available).unwrap_or(0);
                ctx.trace(|| TraceKind::Parked {
                    request,
                    client,
                    operation: id,
                    waits: vec![WaitReason::MinBytes { min_bytes, available_bytes: available }],
                    timeout_ms: timeout as u64,
                });
                self.schedule_purgatory_tick(ctx);
            }
        }
    }

    /// A completed DelayedFetch reads again, as Kafka's onComplete does, so
    /// the answer holds whatever arrived while it waited.
    fn complete_fetch(&mut self, ctx: &mut Ctx, op: DelayedFetch, from: Stage) {
        let (partitions, _, _) = self.read_for_fetch(ctx, op.request, &op.fetch, false);
        let response = Response {
            id: op.request,
            api_key: ApiKey::Fetch,
            body: ResponseBody::Fetch { error: ErrorCode::None, partitions },
        };
        self.enqueue_response(ctx, op.client, response, from);
    }

    // ----- Replication on the leader -----

    fn update_follower(&mut self, ctx: &mut Ctx, follower: u32, tp: &TopicPartition, fetch_offset: i64, now: u64) {
        let me = self.id;
        let Some(p) = self.partitions.get_mut(tp) else {
            return;
        };
        if !p.is_leader(me) || !p.followers.contains_key(&follower) {
            return;
        }
        // An offset past the leader's LEO is not a valid acknowledgement.
        if fetch_offset > p.log.log_end_offset() {
            return;
        }
        p.update_follower_fetch_state(follower, fetch_offset, now);
        let (eligible, commit_first) = (self.isr_eligible(follower), self.control.is_some());
        let Some(p) = self.partitions.get_mut(tp) else { return };
        if let Some(IsrChange::Expanded { added, follower_leo }) = p.maybe_expand_isr(follower, eligible, commit_first) {
            let isr = p.pending_isr.clone().unwrap_or_else(|| p.isr.clone());
            self.record_isr(tp, &isr);
            ctx.trace(|| TraceKind::IsrExpanded { partition: tp.clone(), replica: added, follower_leo, isr });
            self.send_alter_partition(ctx, tp);
        }
        self.maybe_advance_high_watermark(ctx, tp);
    }

    fn record_isr(&mut self, tp: &TopicPartition, isr: &[u32]) {
        // With a controller quorum the cache follows the metadata log only:
        // the change is committed through AlterPartition.
        if self.control.is_some() {
            return;
        }
        if let Some(a) = self.metadata.partitions.get_mut(tp) {
            a.isr = isr.to_vec();
        }
    }

    /// Moves the HW if the ISR allows, then completes the delayed produces
    /// and fetches it releases (Partition.maybeIncrementLeaderHW and
    /// tryCompleteDelayedRequests).
    pub(crate) fn maybe_advance_high_watermark(&mut self, ctx: &mut Ctx, tp: &TopicPartition) {
        let me = self.id;
        let Some(p) = self.partitions.get_mut(tp) else {
            return;
        };
        let Some(old) = p.maybe_advance_high_watermark(me) else {
            return;
        };
        ctx.trace(|| TraceKind::HighWatermarkAdvanced {
            partition: tp.clone(),
            replica: me,
            from: old,
            to: p.high_watermark,
            isr: p.isr.clone(),
        });
        self.check_produce_purgatory(ctx, tp);
        self.check_fetch_purgatory(ctx, tp);
    }

    pub(super) fn check_produce_purgatory(&mut self, ctx: &mut Ctx, tp: &TopicPartition) {
        let me = self.id;
        let partitions = &self.partitions;
        let done = self.produce_purgatory.check_and_complete(tp, ctx.now_ms as i64, |op| {
            try_complete_produce(me, partitions, op)
        });
        for (id, op) in done {
            ctx.trace(|| TraceKind::PurgatoryCompleted { request: op.request, operation: id, expired: false });
            self.complete_produce(ctx, op, Stage::Purgatory);
        }
    }

    pub(super) fn check_fetch_purgatory(&mut self, ctx: &mut Ctx, tp: &TopicPartition) {
        let me = self.id;
        let partitions = &self.partitions;
        let done = self.fetch_purgatory.check_and_complete(tp, ctx.now_ms as i64, |op| {
            try_complete_fetch(me, partitions, op)
        });
        for (id, op) in done {
            ctx.trace(|| TraceKind::PurgatoryCompleted { request: op.request, operation: id, expired: false });
            self.complete_fetch(ctx, op, Stage::Purgatory);
        }
    }

    /// A leader append grows the LEO, which is what followers' fetches wait for.
    fn wake_fetches_after_append(&mut self, ctx: &mut Ctx, statuses: &[ProduceStatus]) {
        for s in statuses {
            if s.response.error == ErrorCode::None {
                self.check_fetch_purgatory(ctx, &s.partition);
            }
        }
    }

    fn schedule_purgatory_tick(&mut self, ctx: &mut Ctx) {
        let next = [self.produce_purgatory.next_expiration(), self.fetch_purgatory.next_expiration()]
            .into_iter()
            .flatten()
            .min();
        if let Some(at) = next {
            let at = (at.max(0) as u64).max(ctx.now_ms);
            if self.purgatory_ticks.insert(at) {
                ctx.timer(at - ctx.now_ms, BrokerTimer::PurgatoryTick);
            }
        }
    }

    /// The timing wheel's clock reaches a bucket: expired operations are
    /// force-completed with whatever holds now.
    pub(super) fn purgatory_tick(&mut self, ctx: &mut Ctx) {
        self.purgatory_ticks.remove(&ctx.now_ms);
        let now = ctx.now_ms as i64;
        for (id, mut op) in self.produce_purgatory.advance(now) {
            for s in op.partitions.iter_mut().filter(|s| s.pending) {
                // The records stay in the leader's log: a timeout does not
                // mean nothing was written.
                s.response.error = ErrorCode::RequestTimedOut;
                s.pending = false;
            }
            ctx.trace(|| TraceKind::PurgatoryCompleted { request: op.request, operation: id, expired: true });
            self.complete_produce(ctx, op, Stage::Purgatory);
        }
        for (id, op) in self.fetch_purgatory.advance(now) {
            ctx.trace(|| TraceKind::PurgatoryCompleted { request: op.request, operation: id, expired: true });
            self.complete_fetch(ctx, op, Stage::Purgatory);
        }
        self.schedule_purgatory_tick(ctx);
    }

    /// Kafka's isr-expiration task: drop followers that lag by time.
    pub(super) fn isr_expiration(&mut self, ctx: &mut Ctx) {
        let me = self.id;
        let lag_max = self.config.replica_lag_time_max_ms;
        let tps: Vec<TopicPartition> = self.partitions.keys().cloned().collect();
        for tp in tps {
            let p = self.partitions.get_mut(&tp).expect("key from the map");
            if !p.is_leader(me) {
                continue;
            }
            let commit_first = self.control.is_some();
            if let Some(IsrChange::Shrunk { removed, lag_ms }) = p.maybe_shrink_isr(me, ctx.now_ms, lag_max, commit_first) {
                let isr = p.pending_isr.clone().unwrap_or_else(|| p.isr.clone());
                self.record_isr(&tp, &isr);
                ctx.trace(|| TraceKind::IsrShrunk { partition: tp.clone(), removed: removed.into(), lag_ms, isr });
                self.send_alter_partition(ctx, &tp);
                // A smaller ISR may let the HW move (or freeze it below
                // min.insync.replicas).
                self.maybe_advance_high_watermark(ctx, &tp);
            }
        }
        ctx.timer(lag_max / 2, BrokerTimer::IsrExpiration);
    }

    /// Kafka's log retention task: whole segments below the HW.
    pub(super) fn retention_check(&mut self, ctx: &mut Ctx) {
        let me = self.id;
        for (tp, p) in self.partitions.iter_mut() {
            let hw = p.high_watermark;
            for deleted in p.log.delete_retention(ctx.now_ms as i64, hw) {
                ctx.trace(|| TraceKind::SegmentDeleted {
                    partition: tp.clone(),
                    replica: me,
                    base_offset: deleted.base_offset,
                    reason: deleted.reason,
                    log_start_offset: p.log.log_start_offset(),
                });
            }
        }
        ctx.timer(self.config.log_retention_check_interval_ms, BrokerTimer::RetentionCheck);
    }
}

pub use super::super::trace::ReadBound as Bound;

fn error_response(tp: &TopicPartition, error: ErrorCode) -> ProducePartitionResponse {
    ProducePartitionResponse { partition: tp.clone(), error, base_offset: -1, log_append_time_ms: -1, log_start_offset: -1 }
}

/// DelayedProduce.tryComplete: each pending partition is done once the HW
/// reaches its required offset, or the broker stopped leading it.
fn try_complete_produce(me: u32, partitions: &BTreeMap<TopicPartition, Partition>, op: &mut DelayedProduce) -> bool {
    for s in op.partitions.iter_mut().filter(|s| s.pending) {
        match partitions.get(&s.partition) {
            Some(p) if p.is_leader(me) => {
                if p.high_watermark >= s.required_offset {
                    s.pending = false;
                    // checkEnoughReplicasReachOffset counts the maximal ISR.
                    if (p.maximal_isr().len() as u32) < p.min_insync_replicas() {
                        s.response.error = ErrorCode::NotEnoughReplicasAfterAppend;
                    }
                }
            }
            _ => {
                s.pending = false;
                s.response.error = ErrorCode::NotLeaderOrFollower;
            }
        }
    }
    op.partitions.iter().all(|s| !s.pending)
}

/// DelayedFetch.tryComplete: enough bytes readable (case G), a partition
/// this broker can no longer serve (cases A to C), or a fetch offset beyond
/// the bound or on an older segment than the bound's (case F).
fn try_complete_fetch(me: u32, partitions: &BTreeMap<TopicPartition, Partition>, op: &mut DelayedFetch) -> bool {
    let mut bytes: i64 = 0;
    for fp in &op.fetch.partitions {
        let Some(p) = partitions.get(&fp.partition) else {
            return true;
        };
        if !p.is_leader(me) {
            return true;
        }
        let bound = if op.fetch.replica_id.is_some() { p.log.log_end_offset() } else { p.high_watermark };
        // Case F, the first half: a fetch offset beyond the bound (a
        // consumer ahead of a new leader's HW, a follower ahead of a
        // truncated leader) is answered at once, with what can be read, so
        // the fetcher learns where it stands instead of waiting out
        // fetch.max.wait.ms.
        if fp.fetch_offset > bound {
            return true;
        }
        // Kafka's case F: a read never spans segments, so a fetch from a
        // segment older than the one holding the end offset is answered at
        // once instead of waiting for fetch.min.bytes it could never get.
        if fp.fetch_offset < bound && segment_of(&p.log, fp.fetch_offset) < segment_of(&p.log, bound) {
            return true;
        }
        if let Ok(readable) = p.log.readable_bytes(fp.fetch_offset, fp.partition_max_bytes.max(0) as u32, bound, true) {
            bytes += readable as i64;
        }
    }
    op.bytes_available = bytes;
    bytes >= op.fetch.min_bytes as i64
}

/// The base offset of the segment that holds `offset`: the last one starting
/// at or below it.
fn segment_of(log: &super::super::log::log::Log, offset: i64) -> i64 {
    let segments = log.segments();
    let i = segments.partition_point(|s| s.base_offset() <= offset).saturating_sub(1);
    segments[i].base_offset()
}
