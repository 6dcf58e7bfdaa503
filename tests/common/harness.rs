//! A hand-driven network of real brokers, for the tests that must put a
//! message on the wire that no simulated client would send (a batch with a bad
//! CRC, the answer of a leader from an older epoch) or hold one back (a
//! follower whose fetches never arrive).
//!
//! The brokers are the simulation's own `Broker`s, called through their public
//! handlers exactly as `Simulation` calls them: one event at a time from a
//! queue ordered by (time, sequence), each handler given a `Ctx`. Messages
//! between brokers in the harness take `link_ms`; everything else a broker
//! sends (responses to clients, and inter-broker messages while
//! `deliver_between_brokers` is off) lands in `outbox` for the test to read.

use kafkascope::sim::broker::{Broker, BrokerTimer, MetadataCache, PartitionAssignment};
use kafkascope::sim::config::{BrokerConfig, TopicConfig};
use kafkascope::sim::ids::{NodeId, TopicPartition};
use kafkascope::sim::node::{Ctx, Output};
use kafkascope::sim::protocol::Message;
use kafkascope::sim::rng::SimRng;
use kafkascope::sim::trace::TraceKind;
use kafkascope::sim::collections::BTreeMap;

#[derive(Clone, Debug)]
enum Event {
    Timer { broker: u32, timer: BrokerTimer },
    Deliver { from: NodeId, to: u32, msg: Message },
}

/// A message a broker sent that the harness did not deliver.
#[derive(Clone, Debug)]
pub struct Sent {
    pub time_ms: u64,
    pub from: u32,
    pub to: NodeId,
    pub msg: Message,
}

pub struct Harness {
    pub now_ms: u64,
    pub link_ms: u64,
    /// Carry broker-to-broker messages (replica fetches and their answers).
    pub deliver_between_brokers: bool,
    pub outbox: Vec<Sent>,
    /// (time, broker, event) for everything the brokers traced.
    pub trace: Vec<(u64, u32, TraceKind)>,
    rng: SimRng,
    seq: u64,
    queue: BTreeMap<(u64, u64), Event>,
    brokers: BTreeMap<u32, Broker>,
}

/// One partition of a metadata image: (partition, replicas, leader, leader
/// epoch, ISR).
pub type PartitionImage = (TopicPartition, Vec<u32>, u32, i32, Vec<u32>);

/// A metadata image with these partitions.
pub fn metadata(brokers: &[u32], parts: &[PartitionImage]) -> MetadataCache {
    MetadataCache {
        brokers: brokers.to_vec(),
        shutting_down: Vec::new(),
        partitions: parts
            .iter()
            .map(|(tp, replicas, leader, epoch, isr)| {
                (
                    tp.clone(),
                    PartitionAssignment { replicas: replicas.clone(), leader: Some(*leader), leader_epoch: *epoch, isr: isr.clone() },
                )
            })
            .collect(),
    }
}

impl Harness {
    /// Brokers that each load their own metadata image (normally all the same).
    pub fn new(config: BrokerConfig, images: Vec<(u32, MetadataCache)>, topics: &BTreeMap<String, TopicConfig>) -> Self {
        let mut h = Harness {
            now_ms: 0,
            link_ms: 1,
            deliver_between_brokers: true,
            outbox: Vec::new(),
            trace: Vec::new(),
            rng: SimRng::new(7),
            seq: 0,
            queue: BTreeMap::new(),
            brokers: BTreeMap::new(),
        };
        for (id, image) in images {
            let mut b = Broker::new(id, config.clone());
            b.load_metadata(image, topics, 0);
            h.brokers.insert(id, b);
            h.schedule(0, Event::Timer { broker: id, timer: BrokerTimer::Startup });
        }
        h
    }

    pub fn broker(&self, id: u32) -> &Broker {
        &self.brokers[&id]
    }

    fn schedule(&mut self, after_ms: u64, event: Event) {
        self.seq += 1;
        self.queue.insert((self.now_ms + after_ms, self.seq), event);
    }

    /// Puts a message on the link to broker `to`; it arrives after `link_ms`.
    pub fn send(&mut self, from: NodeId, to: u32, msg: Message) {
        self.schedule(self.link_ms, Event::Deliver { from, to, msg });
    }

    /// Runs every event up to and including `until_ms`.
    pub fn run_until(&mut self, until_ms: u64) {
        while let Some((&(at, seq), _)) = self.queue.iter().next() {
            if at > until_ms {
                break;
            }
            let event = self.queue.remove(&(at, seq)).expect("key just seen");
            self.now_ms = at;
            let mut out = Vec::new();
            let broker_id = match event {
                Event::Timer { broker, timer } => {
                    let b = self.brokers.get_mut(&broker).expect("known broker");
                    let mut ctx = Ctx { now_ms: at, me: NodeId::Broker(broker), rng: &mut self.rng, out: &mut out, tracing: true };
                    b.on_timer(&mut ctx, timer);
                    broker
                }
                Event::Deliver { from, to, msg } => {
                    let b = self.brokers.get_mut(&to).expect("known broker");
                    let mut ctx = Ctx { now_ms: at, me: NodeId::Broker(to), rng: &mut self.rng, out: &mut out, tracing: true };
                    b.on_message(&mut ctx, from, msg);
                    to
                }
            };
            self.apply(broker_id, out);
        }
        self.now_ms = self.now_ms.max(until_ms);
    }

    fn apply(&mut self, broker: u32, out: Vec<Output<BrokerTimer>>) {
        for o in out {
            match o {
                Output::Send { to, msg } => match to {
                    NodeId::Broker(b) if self.deliver_between_brokers && self.brokers.contains_key(&b) => {
                        self.schedule(self.link_ms, Event::Deliver { from: NodeId::Broker(broker), to: b, msg })
                    }
                    _ => self.outbox.push(Sent { time_ms: self.now_ms, from: broker, to, msg }),
                },
                Output::Timer { after_ms, timer } => self.schedule(after_ms, Event::Timer { broker, timer }),
                Output::Trace(kind) => self.trace.push((self.now_ms, broker, kind)),
                Output::Stop => panic!("a broker without a controller stopped itself"),
                // The harness's clients are the test itself; the broker's
                // own trace records the close (TraceKind::ConnectionClosed).
                Output::CloseConnection { .. } => {}
            }
        }
    }

    /// Removes and returns what was sent to `to`, oldest first.
    pub fn take_sent_to(&mut self, to: NodeId) -> Vec<Sent> {
        let (mine, rest): (Vec<Sent>, Vec<Sent>) = std::mem::take(&mut self.outbox).into_iter().partition(|s| s.to == to);
        self.outbox = rest;
        mine
    }
}

/// One record batch v2 as a non-idempotent producer builds it: offsets from
/// 0 (the leader assigns the real ones), every record at `timestamp_ms`.
pub fn batch(values: &[&str], timestamp_ms: i64) -> Vec<u8> {
    let mut b = kafkascope::sim::record::batch::BatchBuilder::new(0, timestamp_ms);
    for v in values {
        b.append(timestamp_ms, Some(b"k".as_slice()), Some(v.as_bytes()), &[]).expect("a small record fits");
    }
    b.build()
}

/// A ProduceRequest for one partition from client `client`.
pub fn produce_request(client: u32, correlation_id: i32, tp: &TopicPartition, acks: i16, timeout_ms: i32, batch: Vec<u8>) -> Message {
    use kafkascope::sim::ids::RequestId;
    use kafkascope::sim::protocol::{ProducePartition, ProduceRequest, Request, RequestBody};
    Message::Request(Request {
        id: RequestId { client: NodeId::Client(client), correlation_id },
        body: RequestBody::Produce(ProduceRequest { acks, timeout_ms, partitions: vec![ProducePartition { partition: tp.clone(), batch }] }),
    })
}

/// The per-partition answers of the ProduceResponses in `sent`, in order.
pub fn produce_answers(sent: &[Sent]) -> Vec<(u64, kafkascope::sim::protocol::ProducePartitionResponse)> {
    use kafkascope::sim::protocol::{Response, ResponseBody};
    sent.iter()
        .filter_map(|s| match &s.msg {
            Message::Response(Response { body: ResponseBody::Produce(parts), .. }) => Some((s.time_ms, parts.clone())),
            _ => None,
        })
        .flat_map(|(t, parts)| parts.into_iter().map(move |p| (t, p)))
        .collect()
}
