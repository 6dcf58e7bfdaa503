//! A broker and its request path: socket buffers, network threads, the request
//! queue, I/O threads and response queues (Kafka's SocketServer, RequestChannel
//! and KafkaRequestHandler).
//!
//! Every hop of a request is its own event, so a learner stepping through the
//! simulation sees the request sit in each stage: a thread that becomes free
//! schedules a zero-delay "poll" timer instead of grabbing work in the same step.

use super::ids::{NodeId, TopicPartition};
use super::node::{Ctx, Timer};
use super::protocol::{
    ErrorCode, Message, ProduceRequest, ProduceResponse, ProducerRecord, Request, RequestBody,
    Response, ResponseBody,
};
use super::trace::{Direction, Stage, TraceKind};
use super::view::{BrokerView, ConnectionView, IoThreadView, NetworkThreadView, PartitionView, RecordView, Token};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};

/// A broker's threading and queue settings, under Kafka's names.
///
/// The defaults are small so the picture stays legible; Kafka's own defaults
/// are `num.network.threads` = 3, `num.io.threads` = 8 and
/// `queued.max.requests` = 500.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct BrokerConfig {
    #[serde(rename = "num.network.threads")]
    pub num_network_threads: u32,
    #[serde(rename = "num.io.threads")]
    pub num_io_threads: u32,
    #[serde(rename = "queued.max.requests")]
    pub queued_max_requests: u32,
    /// Simulated time a network thread spends reading or writing one request.
    pub network_thread_ms: u64,
    /// Simulated time an I/O thread spends in an API handler.
    pub io_thread_ms: u64,
}

impl Default for BrokerConfig {
    fn default() -> Self {
        Self {
            num_network_threads: 2,
            num_io_threads: 2,
            queued_max_requests: 16,
            network_thread_ms: 1,
            io_thread_ms: 1,
        }
    }
}

/// A broker's timers: each completes one hop of the request path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrokerTimer {
    /// A free network thread looks for a response to write or a request to read.
    NetworkPoll { thread: u32 },
    /// A network thread finished reading or writing.
    NetworkDone { thread: u32 },
    /// A connection's socket send buffer drains onto the wire.
    SocketFlush { client: NodeId },
    /// A free I/O thread takes the next request from the request queue.
    IoPoll { thread: u32 },
    /// An I/O thread's API handler runs (for Produce: the log append).
    IoHandle { thread: u32 },
    /// An I/O thread hands the response to the network thread's response queue.
    IoRespond { thread: u32 },
}

/// A client connection as the broker sees it.
#[derive(Clone, Debug)]
struct Connection {
    network_thread: u32,
    /// Kafka mutes a connection after reading a request, so at most one
    /// request per connection is inside the broker and responses stay in order.
    muted: bool,
    receive_buffer: VecDeque<Request>,
    send_buffer: VecDeque<Response>,
}

#[derive(Clone, Debug)]
enum NetworkWork {
    Reading { client: NodeId, request: Request },
    Writing { client: NodeId, response: Response },
}

#[derive(Clone, Debug)]
struct NetworkThread {
    /// Connections this thread owns, in the order they were assigned.
    connections: Vec<NodeId>,
    /// Where the round-robin scan of connections resumes.
    next_connection: usize,
    work: Option<NetworkWork>,
    /// A request that could not go on the full request queue: the thread
    /// blocks on the put, which stops it serving all of its connections.
    blocked: Option<(NodeId, Request)>,
    response_queue: VecDeque<(NodeId, Response)>,
    poll_scheduled: bool,
}

#[derive(Clone, Debug)]
enum IoWork {
    Handling { client: NodeId, request: Request },
    Responding { client: NodeId, response: Response },
}

#[derive(Clone, Debug)]
struct IoThread {
    work: Option<IoWork>,
    poll_scheduled: bool,
}

/// One record as it sits in the partition's log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredRecord {
    pub offset: i64,
    pub record: ProducerRecord,
}

#[derive(Clone, Debug, Default)]
struct PartitionState {
    log: Vec<StoredRecord>,
    log_end_offset: i64,
}

/// A broker.
#[derive(Clone, Debug)]
pub struct Broker {
    id: u32,
    config: BrokerConfig,
    connections: BTreeMap<NodeId, Connection>,
    /// Kafka's Acceptor hands new connections to network threads round-robin.
    next_network_thread: u32,
    network_threads: Vec<NetworkThread>,
    request_queue: VecDeque<(NodeId, Request)>,
    io_threads: Vec<IoThread>,
    partitions: BTreeMap<TopicPartition, PartitionState>,
}

impl Broker {
    pub fn new(id: u32, config: BrokerConfig) -> Self {
        let network_threads = (0..config.num_network_threads)
            .map(|_| NetworkThread {
                connections: Vec::new(),
                next_connection: 0,
                work: None,
                blocked: None,
                response_queue: VecDeque::new(),
                poll_scheduled: false,
            })
            .collect();
        let io_threads =
            (0..config.num_io_threads).map(|_| IoThread { work: None, poll_scheduled: false }).collect();
        Self {
            id,
            config,
            connections: BTreeMap::new(),
            next_network_thread: 0,
            network_threads,
            request_queue: VecDeque::new(),
            io_threads,
            partitions: BTreeMap::new(),
        }
    }

    pub fn id(&self) -> u32 {
        self.id
    }

    pub fn config(&self) -> &BrokerConfig {
        &self.config
    }

    /// Makes this broker host a partition (the slice has no controller yet).
    pub fn host_partition(&mut self, partition: TopicPartition) {
        self.partitions.entry(partition).or_default();
    }

    pub fn on_message(&mut self, ctx: &mut Ctx, from: NodeId, msg: Message) {
        match msg {
            Message::Request(request) => self.on_request(ctx, from, request),
            // The slice's broker sends no requests of its own, so a response
            // addressed to it has no one waiting and is dropped.
            Message::Response(_) => {}
        }
    }

    fn on_request(&mut self, ctx: &mut Ctx, client: NodeId, request: Request) {
        let thread = match self.connections.get(&client) {
            Some(conn) => conn.network_thread,
            None => {
                let thread = self.next_network_thread;
                self.next_network_thread = (thread + 1) % self.config.num_network_threads;
                self.network_threads[thread as usize].connections.push(client);
                self.connections.insert(
                    client,
                    Connection {
                        network_thread: thread,
                        muted: false,
                        receive_buffer: VecDeque::new(),
                        send_buffer: VecDeque::new(),
                    },
                );
                thread
            }
        };
        ctx.trace(TraceKind::Hop {
            request: request.id,
            api: request.api_key(),
            direction: Direction::Request,
            from: Stage::Wire,
            to: Stage::SocketReceiveBuffer,
        });
        self.connections.get_mut(&client).expect("connection was just ensured").receive_buffer.push_back(request);
        self.wake_network_thread(ctx, thread);
    }

    pub fn on_timer(&mut self, ctx: &mut Ctx, timer: BrokerTimer) {
        match timer {
            BrokerTimer::NetworkPoll { thread } => self.network_poll(ctx, thread),
            BrokerTimer::NetworkDone { thread } => self.network_done(ctx, thread),
            BrokerTimer::SocketFlush { client } => self.socket_flush(ctx, client),
            BrokerTimer::IoPoll { thread } => self.io_poll(ctx, thread),
            BrokerTimer::IoHandle { thread } => self.io_handle(ctx, thread),
            BrokerTimer::IoRespond { thread } => self.io_respond(ctx, thread),
        }
    }

    /// Schedules a poll of a free network thread that has something to do, so
    /// no step is spent on a thread that would find nothing.
    fn wake_network_thread(&mut self, ctx: &mut Ctx, thread: u32) {
        let t = &self.network_threads[thread as usize];
        let has_work = !t.response_queue.is_empty()
            || t.connections.iter().any(|c| {
                let conn = &self.connections[c];
                !conn.muted && !conn.receive_buffer.is_empty()
            });
        let t = &mut self.network_threads[thread as usize];
        if has_work && t.work.is_none() && t.blocked.is_none() && !t.poll_scheduled {
            t.poll_scheduled = true;
            ctx.timer(0, Timer::Broker(BrokerTimer::NetworkPoll { thread }));
        }
    }

    /// Wakes one free I/O thread, lowest number first, if there is work.
    fn wake_io_thread(&mut self, ctx: &mut Ctx) {
        if self.request_queue.is_empty() {
            return;
        }
        if self.io_threads.iter().any(|t| t.work.is_none() && t.poll_scheduled) {
            return;
        }
        if let Some((n, t)) = self.io_threads.iter_mut().enumerate().find(|(_, t)| t.work.is_none()) {
            t.poll_scheduled = true;
            ctx.timer(0, Timer::Broker(BrokerTimer::IoPoll { thread: n as u32 }));
        }
    }

    fn network_poll(&mut self, ctx: &mut Ctx, thread: u32) {
        let cost = self.config.network_thread_ms;
        let t = &mut self.network_threads[thread as usize];
        t.poll_scheduled = false;
        if t.work.is_some() || t.blocked.is_some() {
            return;
        }
        // Responses first: Kafka's Processor sends queued responses before it
        // polls its sockets for new requests.
        if let Some((client, response)) = t.response_queue.pop_front() {
            ctx.trace(TraceKind::Hop {
                request: response.id,
                api: response.api_key,
                direction: Direction::Response,
                from: Stage::ResponseQueue(thread),
                to: Stage::NetworkThread(thread),
            });
            t.work = Some(NetworkWork::Writing { client, response });
            ctx.timer(cost, Timer::Broker(BrokerTimer::NetworkDone { thread }));
            return;
        }
        let count = t.connections.len();
        for i in 0..count {
            let index = (t.next_connection + i) % count;
            let client = t.connections[index];
            let conn = self.connections.get_mut(&client).expect("a thread's connections exist");
            if conn.muted {
                continue;
            }
            if let Some(request) = conn.receive_buffer.pop_front() {
                t.next_connection = (index + 1) % count;
                ctx.trace(TraceKind::Hop {
                    request: request.id,
                    api: request.api_key(),
                    direction: Direction::Request,
                    from: Stage::SocketReceiveBuffer,
                    to: Stage::NetworkThread(thread),
                });
                t.work = Some(NetworkWork::Reading { client, request });
                ctx.timer(cost, Timer::Broker(BrokerTimer::NetworkDone { thread }));
                return;
            }
        }
    }

    fn network_done(&mut self, ctx: &mut Ctx, thread: u32) {
        let capacity = self.config.queued_max_requests as usize;
        let work = self.network_threads[thread as usize].work.take();
        match work {
            Some(NetworkWork::Reading { client, request }) => {
                // The connection is muted as soon as a whole request was read,
                // before the request is queued.
                self.connections.get_mut(&client).expect("connection exists").muted = true;
                ctx.trace(TraceKind::ConnectionMuted { client, muted: true });
                if self.request_queue.len() < capacity {
                    ctx.trace(TraceKind::Hop {
                        request: request.id,
                        api: request.api_key(),
                        direction: Direction::Request,
                        from: Stage::NetworkThread(thread),
                        to: Stage::RequestQueue,
                    });
                    self.request_queue.push_back((client, request));
                    self.wake_io_thread(ctx);
                    self.wake_network_thread(ctx, thread);
                } else {
                    self.network_threads[thread as usize].blocked = Some((client, request));
                }
            }
            Some(NetworkWork::Writing { client, response }) => {
                ctx.trace(TraceKind::Hop {
                    request: response.id,
                    api: response.api_key,
                    direction: Direction::Response,
                    from: Stage::NetworkThread(thread),
                    to: Stage::SocketSendBuffer,
                });
                let conn = self.connections.get_mut(&client).expect("connection exists");
                conn.send_buffer.push_back(response);
                conn.muted = false;
                ctx.trace(TraceKind::ConnectionMuted { client, muted: false });
                ctx.timer(0, Timer::Broker(BrokerTimer::SocketFlush { client }));
                self.wake_network_thread(ctx, thread);
            }
            None => {}
        }
    }

    fn socket_flush(&mut self, ctx: &mut Ctx, client: NodeId) {
        if let Some(conn) = self.connections.get_mut(&client) {
            if let Some(response) = conn.send_buffer.pop_front() {
                ctx.send(client, Message::Response(response));
            }
        }
    }

    fn io_poll(&mut self, ctx: &mut Ctx, thread: u32) {
        let cost = self.config.io_thread_ms;
        self.io_threads[thread as usize].poll_scheduled = false;
        if self.io_threads[thread as usize].work.is_some() {
            return;
        }
        let Some((client, request)) = self.request_queue.pop_front() else {
            return;
        };
        ctx.trace(TraceKind::Hop {
            request: request.id,
            api: request.api_key(),
            direction: Direction::Request,
            from: Stage::RequestQueue,
            to: Stage::IoThread(thread),
        });
        self.io_threads[thread as usize].work = Some(IoWork::Handling { client, request });
        ctx.timer(cost, Timer::Broker(BrokerTimer::IoHandle { thread }));
        self.unblock_network_thread(ctx);
        self.wake_io_thread(ctx);
    }

    /// A slot opened in the request queue: the first blocked network thread's
    /// put completes, and it goes back to serving its connections.
    fn unblock_network_thread(&mut self, ctx: &mut Ctx) {
        let Some(thread) = self.network_threads.iter().position(|t| t.blocked.is_some()) else {
            return;
        };
        let (client, request) = self.network_threads[thread].blocked.take().expect("position found it");
        ctx.trace(TraceKind::Hop {
            request: request.id,
            api: request.api_key(),
            direction: Direction::Request,
            from: Stage::NetworkThread(thread as u32),
            to: Stage::RequestQueue,
        });
        self.request_queue.push_back((client, request));
        self.wake_network_thread(ctx, thread as u32);
    }

    fn io_handle(&mut self, ctx: &mut Ctx, thread: u32) {
        let Some(IoWork::Handling { client, request }) = self.io_threads[thread as usize].work.take() else {
            return;
        };
        let response = match &request.body {
            RequestBody::Produce(produce) => {
                let body = self.handle_produce(ctx, thread, &request, produce);
                Response { id: request.id, api_key: request.api_key(), body: ResponseBody::Produce(body) }
            }
        };
        self.io_threads[thread as usize].work = Some(IoWork::Responding { client, response });
        ctx.timer(0, Timer::Broker(BrokerTimer::IoRespond { thread }));
    }

    fn handle_produce(
        &mut self,
        ctx: &mut Ctx,
        thread: u32,
        request: &Request,
        produce: &ProduceRequest,
    ) -> ProduceResponse {
        let Some(state) = self.partitions.get_mut(&produce.partition) else {
            return ProduceResponse {
                partition: produce.partition.clone(),
                error: ErrorCode::UnknownTopicOrPartition,
                base_offset: -1,
            };
        };
        ctx.trace(TraceKind::Hop {
            request: request.id,
            api: request.api_key(),
            direction: Direction::Request,
            from: Stage::IoThread(thread),
            to: Stage::LogAppend,
        });
        // Offsets are assigned by the leader from its log end offset, never
        // by the producer.
        let base_offset = state.log_end_offset;
        for (i, record) in produce.records.iter().enumerate() {
            state.log.push(StoredRecord { offset: base_offset + i as i64, record: record.clone() });
        }
        state.log_end_offset += produce.records.len() as i64;
        ctx.trace(TraceKind::Appended {
            request: request.id,
            partition: produce.partition.clone(),
            base_offset,
            last_offset: state.log_end_offset - 1,
            log_end_offset: state.log_end_offset,
        });
        ProduceResponse { partition: produce.partition.clone(), error: ErrorCode::None, base_offset }
    }

    fn io_respond(&mut self, ctx: &mut Ctx, thread: u32) {
        let Some(IoWork::Responding { client, response }) = self.io_threads[thread as usize].work.take() else {
            return;
        };
        let network_thread = self.connections[&client].network_thread;
        ctx.trace(TraceKind::Hop {
            request: response.id,
            api: response.api_key,
            direction: Direction::Response,
            from: Stage::LogAppend,
            to: Stage::ResponseQueue(network_thread),
        });
        self.network_threads[network_thread as usize].response_queue.push_back((client, response));
        self.wake_network_thread(ctx, network_thread);
        self.wake_io_thread(ctx);
    }
}

fn request_token(request: &Request) -> Token {
    Token { request: request.id, api: request.api_key(), direction: Direction::Request }
}

fn response_token(response: &Response) -> Token {
    Token { request: response.id, api: response.api_key, direction: Direction::Response }
}

impl Broker {
    /// What the UI shows of this broker.
    pub fn view(&self) -> BrokerView {
        let socket_receive_buffer =
            self.connections.values().flat_map(|c| c.receive_buffer.iter().map(request_token)).collect();
        let socket_send_buffer =
            self.connections.values().flat_map(|c| c.send_buffer.iter().map(response_token)).collect();
        let network_threads = self
            .network_threads
            .iter()
            .enumerate()
            .map(|(n, t)| NetworkThreadView {
                id: n as u32,
                work: t.work.as_ref().map(|w| match w {
                    NetworkWork::Reading { request, .. } => request_token(request),
                    NetworkWork::Writing { response, .. } => response_token(response),
                }),
                blocked: t.blocked.as_ref().map(|(_, r)| request_token(r)),
                response_queue: t.response_queue.iter().map(|(_, r)| response_token(r)).collect(),
                connections: t
                    .connections
                    .iter()
                    .map(|c| ConnectionView { client: *c, muted: self.connections[c].muted })
                    .collect(),
            })
            .collect();
        let mut log_append = Vec::new();
        let io_threads = self
            .io_threads
            .iter()
            .enumerate()
            .map(|(n, t)| IoThreadView {
                id: n as u32,
                work: match &t.work {
                    Some(IoWork::Handling { request, .. }) => Some(request_token(request)),
                    Some(IoWork::Responding { response, .. }) => {
                        log_append.push(response_token(response));
                        None
                    }
                    None => None,
                },
            })
            .collect();
        let partitions = self
            .partitions
            .iter()
            .map(|(tp, p)| PartitionView {
                topic: tp.topic.clone(),
                partition: tp.partition,
                leader: Some(self.id),
                log_end_offset: p.log_end_offset,
                records: p
                    .log
                    .iter()
                    .map(|r| RecordView {
                        offset: r.offset,
                        key: r.record.key.as_ref().map(|k| String::from_utf8_lossy(k).into_owned()),
                        value: r.record.value.as_ref().map(|v| String::from_utf8_lossy(v).into_owned()),
                    })
                    .collect(),
            })
            .collect();
        BrokerView {
            id: self.id,
            socket_receive_buffer,
            network_threads,
            request_queue: self.request_queue.iter().map(|(_, r)| request_token(r)).collect(),
            request_queue_capacity: self.config.queued_max_requests,
            io_threads,
            log_append,
            socket_send_buffer,
            partitions,
        }
    }
}
