//! The trace: every hop and state change of a run, as typed events.
//!
//! The UI animates and narrates from these, the CLI prints them one per line,
//! and the determinism tests hash them. A trace event holds everything needed
//! to say in one sentence what happened, so no reader has to look inside a node.

use super::ids::{NodeId, RequestId, TopicPartition};
use super::protocol::{ApiKey, ErrorCode};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Where a request (or its response) is: the stages of Kafka's request path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Stage {
    /// Inside a client, before sending or after the response arrived.
    Client,
    /// On the network link between two nodes.
    Wire,
    /// Bytes that arrived and wait in the connection's socket receive buffer.
    SocketReceiveBuffer,
    /// A network thread (Kafka's Processor) reading or writing it.
    NetworkThread(u32),
    /// The broker's single shared request queue.
    RequestQueue,
    /// An I/O thread (Kafka's KafkaRequestHandler) running the API handler.
    IoThread(u32),
    /// Being appended to the partition's log.
    LogAppend,
    /// The network thread's own response queue.
    ResponseQueue(u32),
    /// Written to the connection's socket send buffer.
    SocketSendBuffer,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stage::Client => write!(f, "client"),
            Stage::Wire => write!(f, "wire"),
            Stage::SocketReceiveBuffer => write!(f, "socket-recv"),
            Stage::NetworkThread(n) => write!(f, "net-{n}"),
            Stage::RequestQueue => write!(f, "request-queue"),
            Stage::IoThread(n) => write!(f, "io-{n}"),
            Stage::LogAppend => write!(f, "log-append"),
            Stage::ResponseQueue(n) => write!(f, "response-queue-{n}"),
            Stage::SocketSendBuffer => write!(f, "socket-send"),
        }
    }
}

/// Is the thing moving the request or the response to it?
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Direction {
    Request,
    Response,
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TraceKind {
    /// A request or response moved one stage along the request path.
    Hop {
        request: RequestId,
        api: ApiKey,
        direction: Direction,
        from: Stage,
        to: Stage,
    },
    /// A message left `from` for `to`; it arrives at `arrives_at_ms`.
    Sent {
        request: RequestId,
        api: ApiKey,
        direction: Direction,
        to: NodeId,
        arrives_at_ms: u64,
    },
    /// The network thread stopped (or resumed) reading a connection: Kafka
    /// mutes a connection while its request is inside the broker.
    ConnectionMuted { client: NodeId, muted: bool },
    /// Records were appended to a partition's log at these offsets.
    Appended {
        request: RequestId,
        partition: TopicPartition,
        base_offset: i64,
        last_offset: i64,
        log_end_offset: i64,
    },
    /// A producer chose a partition for a record.
    PartitionChosen { client: NodeId, partition: TopicPartition },
    /// A client received the answer to its produce.
    ProduceCompleted {
        request: RequestId,
        partition: TopicPartition,
        base_offset: i64,
        error: ErrorCode,
    },
}

/// One trace event: what happened, where, when, and in which step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceEvent {
    /// The index of the simulation step that produced it (steps count from 1).
    pub step: u64,
    pub time_ms: u64,
    pub node: NodeId,
    pub kind: TraceKind,
}

impl fmt::Display for TraceEvent {
    /// One line a person can read, in the spirit of TigerBeetle's simulator
    /// log: time, step, node, then what happened.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:>8}ms #{:<5} {:<13} ", self.time_ms, self.step, self.node.to_string())?;
        match &self.kind {
            TraceKind::Hop { request, api, direction, from, to } => {
                let what = match direction {
                    Direction::Request => api.name().to_string(),
                    Direction::Response => format!("{}Response", api.name()),
                };
                write!(f, "{request} {what}: {from} -> {to}")
            }
            TraceKind::Sent { request, api, direction, to, arrives_at_ms } => {
                let what = match direction {
                    Direction::Request => api.name().to_string(),
                    Direction::Response => format!("{}Response", api.name()),
                };
                write!(f, "{request} {what}: sent to {to}, arrives at {arrives_at_ms}ms")
            }
            TraceKind::ConnectionMuted { client, muted } => {
                write!(f, "connection of {client} {}", if *muted { "muted" } else { "unmuted" })
            }
            TraceKind::Appended { request, partition, base_offset, last_offset, log_end_offset } => {
                write!(
                    f,
                    "{request} appended to {partition} at offsets {base_offset}..={last_offset}, LEO now {log_end_offset}"
                )
            }
            TraceKind::PartitionChosen { client, partition } => {
                write!(f, "{client} chose partition {partition}")
            }
            TraceKind::ProduceCompleted { request, partition, base_offset, error } => {
                write!(f, "{request} produce to {partition} completed: {error}, base offset {base_offset}")
            }
        }
    }
}
