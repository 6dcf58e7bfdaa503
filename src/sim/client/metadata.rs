//! A client's metadata cache: which broker leads each partition. A client
//! starts knowing only its bootstrap brokers and asks one of them with a
//! Metadata request, as Kafka's NetworkClient does.

use super::super::ids::{NodeId, RequestId, TopicName, TopicPartition};
use super::Ctx;
use super::ClientTimer;
use super::super::protocol::{ErrorCode, Message, Request, RequestBody, ResponseBody};
use super::super::trace::TraceKind;
use crate::sim::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Debug)]
pub struct MetadataState {
    pub bootstrap: Vec<u32>,
    pub leaders: BTreeMap<TopicPartition, Option<u32>>,
    /// Keyed by the shared name the partitions' metadata carries, so a
    /// record's topic-partition can reuse it instead of copying the string.
    pub partitions_per_topic: BTreeMap<TopicName, u32>,
    pub topics_wanted: BTreeSet<String>,
    pub in_flight: Option<RequestId>,
    /// The broker the Metadata request in flight went to.
    in_flight_broker: Option<u32>,
    /// Which bootstrap broker the next request goes to.
    next_bootstrap: usize,
    /// When set, a Metadata request unanswered this long is given up and
    /// sent to the next broker.
    pub timeout_ms: Option<u64>,
    /// Brokers whose connection was just refused or reset, and until when
    /// the client leaves them alone (`reconnect.backoff.ms`), as
    /// NetworkClient's leastLoadedNode skips them.
    reconnect_backoff_until_ms: BTreeMap<u32, u64>,
    /// A MetadataRetry timer is set for when the first backoff ends.
    retry_scheduled: bool,
}

/// `reconnect.backoff.ms`.
pub const RECONNECT_BACKOFF_MS: u64 = 50;

impl MetadataState {
    pub fn new(bootstrap: Vec<u32>) -> Self {
        Self {
            bootstrap,
            leaders: BTreeMap::new(),
            partitions_per_topic: BTreeMap::new(),
            topics_wanted: BTreeSet::new(),
            in_flight: None,
            in_flight_broker: None,
            next_bootstrap: 0,
            timeout_ms: None,
            reconnect_backoff_until_ms: BTreeMap::new(),
            retry_scheduled: false,
        }
    }

    pub fn knows(&self, topic: &str) -> bool {
        self.partitions_per_topic.contains_key(topic)
    }

    pub fn leader(&self, tp: &TopicPartition) -> Option<u32> {
        self.leaders.get(tp).copied().flatten()
    }

    /// Sends a Metadata request unless one is already out.
    pub fn request(&mut self, ctx: &mut Ctx, me: NodeId, correlation_id: &mut i32, topic: &str) {
        self.topics_wanted.insert(topic.to_string());
        if self.in_flight.is_some() || self.bootstrap.is_empty() {
            return;
        }
        let Some((skip, broker)) = self.pick(ctx, self.next_bootstrap) else {
            return;
        };
        self.next_bootstrap += skip + 1;
        let id = RequestId { client: me, correlation_id: *correlation_id };
        *correlation_id += 1;
        self.in_flight = Some(id);
        self.in_flight_broker = Some(broker);
        let topics = self.topics_wanted.iter().cloned().collect();
        ctx.send(NodeId::Broker(broker), Message::Request(Request { id, body: RequestBody::Metadata { topics } }));
        if let Some(t) = self.timeout_ms {
            ctx.timer(t, ClientTimer::MetadataTimeout { correlation_id: id.correlation_id });
        }
    }

    /// A Metadata request timed out: forget it and ask the next broker.
    pub fn on_timeout(&mut self, ctx: &mut Ctx, me: NodeId, correlation_id: &mut i32, timed_out: i32) {
        if self.in_flight.map(|r| r.correlation_id) != Some(timed_out) {
            return;
        }
        self.in_flight = None;
        if let Some(topic) = self.topics_wanted.iter().next().cloned() {
            self.request(ctx, me, correlation_id, &topic);
        }
    }

    /// The first bootstrap broker from position `start` on that is not in
    /// reconnect backoff, and how many were skipped to reach it. With every
    /// one in backoff: none, and a MetadataRetry for when the first ends.
    pub fn pick(&mut self, ctx: &mut Ctx, start: usize) -> Option<(usize, u32)> {
        let now = ctx.now_ms;
        let backoff = |b: &u32| self.reconnect_backoff_until_ms.get(b).copied().filter(|t| *t > now);
        let n = self.bootstrap.len();
        let found = (0..n).map(|i| (i, self.bootstrap[(start + i) % n])).find(|(_, b)| backoff(b).is_none());
        if found.is_none() && !self.retry_scheduled {
            self.retry_scheduled = true;
            let first = self.bootstrap.iter().filter_map(backoff).min().unwrap_or(now);
            ctx.timer(first - now, ClientTimer::MetadataRetry);
        }
        found
    }

    /// A reconnect backoff ended: send the Metadata request that waited.
    pub fn on_retry(&mut self, ctx: &mut Ctx, me: NodeId, correlation_id: &mut i32) {
        self.retry_scheduled = false;
        if let Some(topic) = self.topics_wanted.iter().next().cloned() {
            self.request(ctx, me, correlation_id, &topic);
        }
    }

    /// The connection to `broker` closed (refused or reset): the client
    /// leaves it alone for `reconnect.backoff.ms`, and a Metadata request on
    /// it is asked again of the next broker.
    pub fn on_disconnect(&mut self, ctx: &mut Ctx, me: NodeId, correlation_id: &mut i32, broker: u32) {
        self.reconnect_backoff_until_ms.insert(broker, ctx.now_ms + RECONNECT_BACKOFF_MS);
        if let (Some(id), Some(b)) = (self.in_flight, self.in_flight_broker) {
            if b == broker {
                self.on_timeout(ctx, me, correlation_id, id.correlation_id);
                return;
            }
        }
        // DefaultMetadataUpdater.handleServerDisconnect: "the disconnect may
        // be the result of stale metadata, so request an update". It is how
        // an acks=0 producer, which gets no error back, learns that a
        // partition moved.
        if let Some(topic) = self.topics_wanted.iter().next().cloned() {
            self.request(ctx, me, correlation_id, &topic);
        }
    }

    /// Takes a Metadata response; returns true when it was the awaited one.
    pub fn on_response(&mut self, ctx: &mut Ctx, me: NodeId, id: RequestId, body: &ResponseBody) -> bool {
        if self.in_flight != Some(id) {
            return false;
        }
        self.in_flight = None;
        // A topic the answer lacks (UNKNOWN_TOPIC_OR_PARTITION, or a broker
        // with no metadata yet) is simply not known: its records keep
        // waiting (`Producer::after_metadata`).
        let ResponseBody::Metadata { partitions, .. } = body else {
            return false;
        };
        let mut counts: BTreeMap<TopicName, u32> = BTreeMap::new();
        for p in partitions {
            self.leaders.insert(p.partition.clone(), if p.error == ErrorCode::None { p.leader } else { None });
            *counts.entry(p.partition.topic.clone()).or_default() += 1;
        }
        self.partitions_per_topic.extend(counts);
        ctx.trace(|| TraceKind::MetadataUpdated {
            client: me,
            leaders: partitions.iter().map(|p| (p.partition.clone(), p.leader)).collect(),
        });
        true
    }
}
