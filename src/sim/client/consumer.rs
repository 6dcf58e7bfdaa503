//! A consumer with manually assigned partitions (KafkaConsumer.assign):
//! one position per partition, Fetch requests to each partition's leader,
//! and the records it received. Consumer groups come later.

use super::super::config::ConsumerConfig;
use super::super::ids::{NodeId, RequestId, TopicPartition};
use super::Ctx;
use super::super::protocol::{ErrorCode, FetchPartition, FetchRequest, Message, Request, RequestBody, ResponseBody};
use super::super::record::batch;
use super::super::trace::{Direction, Stage, TraceKind};
use super::metadata::MetadataState;
use super::ClientTimer;
use serde::{Deserialize, Serialize};
use crate::sim::collections::BTreeMap;

/// One record a consumer received.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsumedRecord {
    pub partition: TopicPartition,
    pub offset: i64,
    pub timestamp_ms: i64,
    pub key: Option<String>,
    pub value: Option<String>,
    pub headers: Vec<(String, Option<String>)>,
}

/// A fetch the learner asked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchSpec {
    pub partition: TopicPartition,
    /// Seek here first; None fetches from the current position.
    pub offset: Option<i64>,
    pub min_bytes: Option<i32>,
    pub max_wait_ms: Option<i32>,
}

/// How a fetch ended, for the UI.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchOutcome {
    pub request: RequestId,
    pub partition: TopicPartition,
    pub fetch_offset: i64,
    /// None while in flight.
    pub result: Option<FetchResult>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchResult {
    pub error: ErrorCode,
    pub records: u32,
    pub high_watermark: i64,
    pub next_offset: i64,
}

#[derive(Clone, Debug)]
pub struct Consumer {
    id: NodeId,
    config: ConsumerConfig,
    next_correlation_id: i32,
    pub(crate) metadata: MetadataState,
    /// The next offset to read in each assigned partition. Consumers here
    /// start at offset 0 (auto.offset.reset=earliest); Kafka's default is
    /// latest.
    positions: BTreeMap<TopicPartition, i64>,
    /// Fetches awaiting their answer: correlation id -> (index in
    /// `fetches`, the broker asked).
    in_flight: BTreeMap<i32, (usize, u32)>,
    awaiting_metadata: Vec<FetchSpec>,
    consumed: Vec<ConsumedRecord>,
    fetches: Vec<FetchOutcome>,
}

impl Consumer {
    pub fn new(id: NodeId, config: ConsumerConfig, bootstrap: Vec<u32>) -> Self {
        Self {
            id,
            config,
            next_correlation_id: 1,
            metadata: MetadataState::new(bootstrap),
            positions: BTreeMap::new(),
            in_flight: BTreeMap::new(),
            awaiting_metadata: Vec::new(),
            consumed: Vec::new(),
            fetches: Vec::new(),
        }
    }

    pub fn id(&self) -> NodeId {
        self.id
    }

    pub fn consumed(&self) -> &[ConsumedRecord] {
        &self.consumed
    }

    pub fn fetches(&self) -> &[FetchOutcome] {
        &self.fetches
    }

    pub fn positions(&self) -> &BTreeMap<TopicPartition, i64> {
        &self.positions
    }

    pub fn fetch(&mut self, ctx: &mut Ctx, spec: FetchSpec) {
        if let Some(offset) = spec.offset {
            self.positions.insert(spec.partition.clone(), offset);
        }
        match self.metadata.leader(&spec.partition) {
            Some(leader) => self.send_fetch(ctx, leader, &spec),
            None => {
                let topic = spec.partition.topic.clone();
                self.awaiting_metadata.push(spec);
                self.metadata.request(ctx, self.id, &mut self.next_correlation_id, &topic);
            }
        }
    }

    fn send_fetch(&mut self, ctx: &mut Ctx, leader: u32, spec: &FetchSpec) {
        let position = *self.positions.entry(spec.partition.clone()).or_insert(0);
        let id = RequestId { client: self.id, correlation_id: self.next_correlation_id };
        self.next_correlation_id += 1;
        let request = Request {
            id,
            body: RequestBody::Fetch(FetchRequest {
                replica_id: None,
                max_wait_ms: spec.max_wait_ms.unwrap_or(self.config.fetch_max_wait_ms),
                min_bytes: spec.min_bytes.unwrap_or(self.config.fetch_min_bytes),
                max_bytes: self.config.fetch_max_bytes,
                partitions: vec![FetchPartition {
                    partition: spec.partition.clone(),
                    fetch_offset: position,
                    last_fetched_epoch: None,
                    partition_max_bytes: self.config.max_partition_fetch_bytes,
                }],
            }),
        };
        self.in_flight.insert(id.correlation_id, (self.fetches.len(), leader));
        self.fetches.push(FetchOutcome { request: id, partition: spec.partition.clone(), fetch_offset: position, result: None });
        ctx.send(NodeId::Broker(leader), Message::Request(request));
        ctx.timer(self.config.request_timeout_ms, ClientTimer::RequestTimeout { correlation_id: id.correlation_id });
    }

    /// NetworkClient.handleTimedOutRequests: a fetch unanswered for
    /// request.timeout.ms (lost in a network cut, say) ends with
    /// REQUEST_TIMED_OUT at the position it asked from, and the client drops
    /// that connection: its other requests there end as a disconnect's do,
    /// and the consumer asks for metadata again.
    fn on_request_timeout(&mut self, ctx: &mut Ctx, correlation_id: i32) {
        let Some((index, broker)) = self.in_flight.remove(&correlation_id) else {
            return;
        };
        self.fail_fetch(ctx, index, ErrorCode::RequestTimedOut);
        self.on_disconnect(ctx, broker);
    }

    /// Ends the fetch at `index` with `error` and nothing read, at the
    /// position it asked from, and forgets its partition's leader; returns
    /// that partition.
    fn fail_fetch(&mut self, ctx: &mut Ctx, index: usize, error: ErrorCode) -> Option<TopicPartition> {
        let outcome = self.fetches.get_mut(index)?;
        let (request, partition, next_offset) = (outcome.request, outcome.partition.clone(), outcome.fetch_offset);
        outcome.result = Some(FetchResult { error, records: 0, high_watermark: -1, next_offset });
        ctx.trace(|| TraceKind::FetchCompleted { request, partition: partition.clone(), records: 0, next_offset, high_watermark: -1, error });
        self.metadata.leaders.remove(&partition);
        Some(partition)
    }

    /// The connection to `broker` closed: its fetches end with
    /// NETWORK_EXCEPTION at the position they asked from, and the consumer
    /// asks for metadata again, since the leader may have moved.
    pub fn on_disconnect(&mut self, ctx: &mut Ctx, broker: u32) {
        let me = self.id;
        self.metadata.on_disconnect(ctx, me, &mut self.next_correlation_id, broker);
        let failed: Vec<(i32, usize)> =
            self.in_flight.iter().filter(|(_, (_, b))| *b == broker).map(|(c, (i, _))| (*c, *i)).collect();
        for (correlation_id, index) in failed {
            self.in_flight.remove(&correlation_id);
            let Some(partition) = self.fail_fetch(ctx, index, ErrorCode::NetworkException) else { continue };
            self.metadata.request(ctx, me, &mut self.next_correlation_id, &partition.topic);
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, timer: ClientTimer) {
        match timer {
            ClientTimer::MetadataTimeout { correlation_id } => {
                self.metadata.on_timeout(ctx, self.id, &mut self.next_correlation_id, correlation_id)
            }
            ClientTimer::MetadataRetry => self.metadata.on_retry(ctx, self.id, &mut self.next_correlation_id),
            ClientTimer::RequestTimeout { correlation_id } => self.on_request_timeout(ctx, correlation_id),
            _ => {}
        }
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, _from: NodeId, msg: Message) {
        let Message::Response(response) = msg else {
            return;
        };
        ctx.trace(|| TraceKind::Hop {
            request: response.id,
            api: response.api_key,
            direction: Direction::Response,
            from: Stage::Wire,
            to: Stage::Client,
        });
        let me = self.id;
        if self.metadata.on_response(ctx, me, response.id, &response.body) {
            for spec in std::mem::take(&mut self.awaiting_metadata) {
                match self.metadata.leader(&spec.partition) {
                    Some(leader) => self.send_fetch(ctx, leader, &spec),
                    None => self.awaiting_metadata.push(spec),
                }
            }
            return;
        }
        let ResponseBody::Fetch { partitions, .. } = response.body else {
            return;
        };
        let Some((index, _)) = self.in_flight.remove(&response.id.correlation_id) else {
            return;
        };
        for pr in partitions {
            let position = self.positions.get(&pr.partition).copied().unwrap_or(0);
            let mut next = position;
            let mut count = 0;
            for (pos, _) in batch::iter_batches(&pr.records).flatten() {
                let start = pos as usize;
                let Ok(size) = batch::batch_size_at(&pr.records, pos) else { break };
                let Ok(decoded) = batch::decode(&pr.records[start..start + size as usize]) else { break };
                for r in decoded.records.iter() {
                    let offset = decoded.header.base_offset + r.offset_delta as i64;
                    // Batches come whole, so a fetch may return records below
                    // the position; the consumer skips them.
                    if offset < position {
                        continue;
                    }
                    count += 1;
                    next = offset + 1;
                    self.consumed.push(ConsumedRecord {
                        partition: pr.partition.clone(),
                        offset,
                        timestamp_ms: decoded.timestamp_of(r),
                        key: r.key.as_ref().map(|k| String::from_utf8_lossy(k).into_owned()),
                        value: r.value.as_ref().map(|v| String::from_utf8_lossy(v).into_owned()),
                        headers: r
                            .headers
                            .iter()
                            .map(|h| (h.key.clone(), h.value.as_ref().map(|v| String::from_utf8_lossy(v).into_owned())))
                            .collect(),
                    });
                }
            }
            self.positions.insert(pr.partition.clone(), next);
            ctx.trace(|| TraceKind::FetchCompleted {
                request: response.id,
                partition: pr.partition.clone(),
                records: count,
                next_offset: next,
                high_watermark: pr.high_watermark,
                error: pr.error,
            });
            if let Some(outcome) = self.fetches.get_mut(index) {
                outcome.result =
                    Some(FetchResult { error: pr.error, records: count, high_watermark: pr.high_watermark, next_offset: next });
            }
        }
    }
}
