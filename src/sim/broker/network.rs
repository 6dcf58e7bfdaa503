//! The request path inside a broker (Kafka's SocketServer, RequestChannel and
//! KafkaRequestHandler): socket buffers, network threads, the request queue,
//! I/O threads and response queues.
//!
//! Every hop of a request is its own event, so a learner stepping through the
//! simulation sees the request sit in each stage: a thread that becomes free
//! schedules a zero-delay "poll" timer instead of grabbing work in the same step.

use super::super::ids::NodeId;
use super::Ctx;
use super::super::protocol::{Message, Request};
use super::super::trace::{Direction, Stage, TraceKind};
use super::{Broker, BrokerTimer, Connection, IoWork, NetworkWork};
use std::collections::VecDeque;

impl Broker {
    pub(super) fn on_request(&mut self, ctx: &mut Ctx, client: NodeId, request: Request) {
        let thread = match self.connections.get(&client) {
            Some(conn) => conn.network_thread,
            None => {
                // Kafka's Acceptor hands each new connection to the next
                // network thread, round-robin.
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
        ctx.trace(|| TraceKind::Hop {
            request: request.id,
            api: request.api_key(),
            direction: Direction::Request,
            from: Stage::Wire,
            to: Stage::SocketReceiveBuffer,
        });
        self.connections.get_mut(&client).expect("connection was just ensured").receive_buffer.push_back(request);
        self.wake_network_thread(ctx, thread);
    }

    /// Schedules a poll of a free network thread that has something to do, so
    /// no step is spent on a thread that would find nothing.
    /// Closes a client's connection (SocketServer's Processor closing the
    /// channel): its buffers and any response queued for it go, and the
    /// client learns of it one link latency on. A later request opens a new
    /// connection, assigned to a network thread like any new one.
    pub(super) fn close_connection(&mut self, ctx: &mut Ctx, client: NodeId) {
        let Some(conn) = self.connections.remove(&client) else {
            return;
        };
        let thread = &mut self.network_threads[conn.network_thread as usize];
        if let Some(i) = thread.connections.iter().position(|c| *c == client) {
            thread.connections.remove(i);
            if thread.next_connection > i {
                thread.next_connection -= 1;
            }
        }
        if thread.next_connection >= thread.connections.len() {
            thread.next_connection = 0;
        }
        thread.response_queue.retain(|(to, _)| *to != client);
        ctx.out.push(super::super::node::Output::CloseConnection { peer: client });
    }

    pub(super) fn wake_network_thread(&mut self, ctx: &mut Ctx, thread: u32) {
        let t = &self.network_threads[thread as usize];
        let has_work = !t.response_queue.is_empty()
            || t.connections.iter().any(|c| {
                let conn = &self.connections[c];
                !conn.muted && !conn.receive_buffer.is_empty()
            });
        let t = &mut self.network_threads[thread as usize];
        if has_work && t.work.is_none() && t.blocked.is_none() && !t.poll_scheduled {
            t.poll_scheduled = true;
            ctx.timer(0, BrokerTimer::NetworkPoll { thread });
        }
    }

    /// Wakes one free I/O thread, lowest number first, if there is work.
    pub(super) fn wake_io_thread(&mut self, ctx: &mut Ctx) {
        if self.request_queue.is_empty() {
            return;
        }
        if self.io_threads.iter().any(|t| t.work.is_none() && t.poll_scheduled) {
            return;
        }
        if let Some((n, t)) = self.io_threads.iter_mut().enumerate().find(|(_, t)| t.work.is_none()) {
            t.poll_scheduled = true;
            ctx.timer(0, BrokerTimer::IoPoll { thread: n as u32 });
        }
    }

    pub(super) fn network_poll(&mut self, ctx: &mut Ctx, thread: u32) {
        let cost = self.config.network_thread_ms;
        let t = &mut self.network_threads[thread as usize];
        t.poll_scheduled = false;
        if t.work.is_some() || t.blocked.is_some() {
            return;
        }
        // Responses first: Kafka's Processor sends queued responses before it
        // polls its sockets for new requests.
        if let Some((client, response)) = t.response_queue.pop_front() {
            ctx.trace(|| TraceKind::Hop {
                request: response.id,
                api: response.api_key,
                direction: Direction::Response,
                from: Stage::ResponseQueue(thread),
                to: Stage::NetworkThread(thread),
            });
            t.work = Some(NetworkWork::Writing { client, response });
            ctx.timer(cost, BrokerTimer::NetworkDone { thread });
            self.meters.network_busy_ms += cost;
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
                ctx.trace(|| TraceKind::Hop {
                    request: request.id,
                    api: request.api_key(),
                    direction: Direction::Request,
                    from: Stage::SocketReceiveBuffer,
                    to: Stage::NetworkThread(thread),
                });
                t.work = Some(NetworkWork::Reading { client, request });
                ctx.timer(cost, BrokerTimer::NetworkDone { thread });
                self.meters.network_busy_ms += cost;
                return;
            }
        }
    }

    pub(super) fn network_done(&mut self, ctx: &mut Ctx, thread: u32) {
        let capacity = self.config.queued_max_requests as usize;
        let work = self.network_threads[thread as usize].work.take();
        match work {
            Some(NetworkWork::Reading { client, request }) => {
                // The connection is muted as soon as a whole request was read,
                // before the request is queued.
                self.connections.get_mut(&client).expect("connection exists").muted = true;
                ctx.trace(|| TraceKind::ConnectionMuted { client, muted: true });
                if self.request_queue.len() < capacity {
                    ctx.trace(|| TraceKind::Hop {
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
                    // Backpressure: the put blocks, and with it the whole
                    // network thread, until an I/O thread frees a slot.
                    ctx.trace(|| TraceKind::RequestQueueFull { request: request.id, thread, capacity: capacity as u32 });
                    self.network_threads[thread as usize].blocked = Some((client, request));
                }
            }
            Some(NetworkWork::Writing { client, response }) => {
                ctx.trace(|| TraceKind::Hop {
                    request: response.id,
                    api: response.api_key,
                    direction: Direction::Response,
                    from: Stage::NetworkThread(thread),
                    to: Stage::SocketSendBuffer,
                });
                let conn = self.connections.get_mut(&client).expect("connection exists");
                conn.send_buffer.push_back(response);
                conn.muted = false;
                ctx.trace(|| TraceKind::ConnectionMuted { client, muted: false });
                ctx.timer(0, BrokerTimer::SocketFlush { client });
                self.wake_network_thread(ctx, thread);
            }
            None => {}
        }
    }

    pub(super) fn socket_flush(&mut self, ctx: &mut Ctx, client: NodeId) {
        if let Some(conn) = self.connections.get_mut(&client) {
            if let Some(response) = conn.send_buffer.pop_front() {
                ctx.send(client, Message::Response(response));
            }
        }
    }

    pub(super) fn io_poll(&mut self, ctx: &mut Ctx, thread: u32) {
        let cost = self.config.io_thread_ms;
        self.io_threads[thread as usize].poll_scheduled = false;
        if self.io_threads[thread as usize].work.is_some() {
            return;
        }
        let Some((client, request)) = self.request_queue.pop_front() else {
            return;
        };
        ctx.trace(|| TraceKind::Hop {
            request: request.id,
            api: request.api_key(),
            direction: Direction::Request,
            from: Stage::RequestQueue,
            to: Stage::IoThread(thread),
        });
        self.io_threads[thread as usize].work = Some(IoWork::Handling { client, request });
        ctx.timer(cost, BrokerTimer::IoHandle { thread });
        self.meters.io_busy_ms += cost;
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
        ctx.trace(|| TraceKind::Hop {
            request: request.id,
            api: request.api_key(),
            direction: Direction::Request,
            from: Stage::NetworkThread(thread as u32),
            to: Stage::RequestQueue,
        });
        self.request_queue.push_back((client, request));
        self.wake_network_thread(ctx, thread as u32);
    }

}
