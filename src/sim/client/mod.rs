//! Clients: producers and consumers, as Kafka's client library behaves
//! (a metadata cache, a record accumulator with linger and batch.size, a
//! sender with retries, a fetcher with a position per partition).

pub mod consumer;
pub mod metadata;
pub mod producer;

use super::ids::NodeId;
use super::node;
use super::protocol::Message;
use consumer::Consumer;
use producer::Producer;

/// The context of a client's handlers: its outputs can set only client timers.
pub type Ctx<'a> = node::Ctx<'a, ClientTimer>;

/// A client's timers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientTimer {
    /// `linger.ms` ran out for the open batch of a partition.
    Linger { batch: u64 },
    /// The sender looks for batches it may send.
    Drain,
    /// `request.timeout.ms` passed without an answer.
    RequestTimeout { correlation_id: i32 },
    /// `retry.backoff.ms` passed: the batch may be sent again.
    RetryBackoff { batch: u64 },
    /// A Metadata request had no answer within `request.timeout.ms` (its
    /// broker may be down): ask another broker.
    MetadataTimeout { correlation_id: i32 },
    /// Every bootstrap broker was in reconnect backoff: try the Metadata
    /// request again.
    MetadataRetry,
    /// Records still wait for their topic's metadata: the refresh backoff
    /// passed, so ask again (or give up on those past max.block.ms).
    MetadataRefresh,
    /// The load generator's next record is due; `generation` names the
    /// run that armed it.
    Load { generation: u32 },
}

#[derive(Clone, Debug)]
pub enum Client {
    Producer(Producer),
    Consumer(Consumer),
}

impl Client {
    pub fn id(&self) -> NodeId {
        match self {
            Client::Producer(p) => p.id(),
            Client::Consumer(c) => c.id(),
        }
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, from: NodeId, msg: Message) {
        match self {
            Client::Producer(p) => p.on_message(ctx, from, msg),
            Client::Consumer(c) => c.on_message(ctx, from, msg),
        }
    }

    /// Arms a timeout on Metadata requests. Only clusters whose brokers can
    /// die (with a controller quorum) need it; static clusters leave it off
    /// so their runs stay event for event what they were.
    pub fn set_metadata_timeout(&mut self, timeout_ms: u64) {
        match self {
            Client::Producer(p) => p.metadata.timeout_ms = Some(timeout_ms),
            Client::Consumer(c) => c.metadata.timeout_ms = Some(timeout_ms),
        }
    }

    /// The connection to `peer` closed (refused or reset): Kafka's
    /// NetworkClient fails the requests in flight on it as disconnected.
    pub fn on_disconnect(&mut self, ctx: &mut Ctx, peer: NodeId) {
        let NodeId::Broker(broker) = peer else { return };
        match self {
            Client::Producer(p) => p.on_disconnect(ctx, broker),
            Client::Consumer(c) => c.on_disconnect(ctx, broker),
        }
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, timer: ClientTimer) {
        match self {
            Client::Producer(p) => p.on_timer(ctx, timer),
            Client::Consumer(c) => c.on_timer(ctx, timer),
        }
    }
}
