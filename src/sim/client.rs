//! Clients: the producers (and later consumers) a learner drives.

use super::ids::{NodeId, RequestId, TopicPartition};
use super::node::Ctx;
use super::protocol::{ErrorCode, Message, ProduceRequest, ProducerRecord, Request, RequestBody, ResponseBody};
use super::trace::{Direction, Stage, TraceKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A client's timers (none yet in the slice; linger and retries will use them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientTimer {}

/// What a producer learned about one record it sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProduceOutcome {
    pub request: RequestId,
    pub partition: TopicPartition,
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    /// `None` while the request is in flight.
    pub result: Option<ProduceResult>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProduceResult {
    pub error: ErrorCode,
    pub base_offset: i64,
}

/// A producer client.
#[derive(Clone, Debug)]
pub struct Client {
    id: NodeId,
    /// Kafka's NetworkClient keeps one correlation-id counter for all of its
    /// connections.
    next_correlation_id: i32,
    outcomes: BTreeMap<RequestId, ProduceOutcome>,
}

impl Client {
    pub fn new(id: NodeId) -> Self {
        Self { id, next_correlation_id: 1, outcomes: BTreeMap::new() }
    }

    pub fn id(&self) -> NodeId {
        self.id
    }

    /// Sends one record to the partition's leader.
    pub fn produce(
        &mut self,
        ctx: &mut Ctx,
        leader: NodeId,
        partition: TopicPartition,
        record: ProducerRecord,
        acks: i16,
    ) -> RequestId {
        let id = RequestId { client: self.id, correlation_id: self.next_correlation_id };
        self.next_correlation_id += 1;
        ctx.trace(TraceKind::PartitionChosen { client: self.id, partition: partition.clone() });
        self.outcomes.insert(
            id,
            ProduceOutcome {
                request: id,
                partition: partition.clone(),
                key: record.key.clone(),
                value: record.value.clone(),
                result: None,
            },
        );
        let request = Request {
            id,
            body: RequestBody::Produce(ProduceRequest { acks, timeout_ms: 30_000, partition, records: vec![record] }),
        };
        ctx.send(leader, Message::Request(request));
        id
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, _from: NodeId, msg: Message) {
        let Message::Response(response) = msg else {
            return;
        };
        ctx.trace(TraceKind::Hop {
            request: response.id,
            api: response.api_key,
            direction: Direction::Response,
            from: Stage::Wire,
            to: Stage::Client,
        });
        match response.body {
            ResponseBody::Produce(p) => {
                ctx.trace(TraceKind::ProduceCompleted {
                    request: response.id,
                    partition: p.partition.clone(),
                    base_offset: p.base_offset,
                    error: p.error,
                });
                if let Some(outcome) = self.outcomes.get_mut(&response.id) {
                    outcome.result = Some(ProduceResult { error: p.error, base_offset: p.base_offset });
                }
            }
        }
    }

    /// Everything this producer sent, oldest first.
    pub fn outcomes(&self) -> impl Iterator<Item = &ProduceOutcome> {
        self.outcomes.values()
    }
}

impl Client {
    pub fn view(&self) -> super::view::ClientView {
        super::view::ClientView { id: self.id, produced: self.outcomes.values().cloned().collect() }
    }
}
