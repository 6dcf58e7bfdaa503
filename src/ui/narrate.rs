//! One sentence for each trace event, saying what happened and, where it
//! teaches something, why.

use crate::sim::trace::{Direction, Stage, TraceEvent, TraceKind};

/// A stage's name as the page writes it.
pub fn stage_name(stage: Stage) -> String {
    match stage {
        Stage::Client => "the client".into(),
        Stage::Wire => "the network".into(),
        Stage::SocketReceiveBuffer => "the socket receive buffer".into(),
        Stage::NetworkThread(n) => format!("network thread {n}"),
        Stage::RequestQueue => "the request queue".into(),
        Stage::IoThread(n) => format!("I/O thread {n}"),
        Stage::LogAppend => "the log append".into(),
        Stage::ResponseQueue(n) => format!("the response queue of network thread {n}"),
        Stage::SocketSendBuffer => "the socket send buffer".into(),
    }
}

pub fn narrate(event: &TraceEvent) -> String {
    match &event.kind {
        TraceKind::Hop { request, api, direction, from, to } => {
            let what = match direction {
                Direction::Request => format!("{} request {}", api.name(), request),
                Direction::Response => format!("The response to {} request {}", api.name(), request),
            };
            let why = match (direction, to) {
                (Direction::Request, Stage::SocketReceiveBuffer) => {
                    " Its bytes wait there until the connection's network thread reads them."
                }
                (Direction::Request, Stage::NetworkThread(_)) => {
                    " The network thread reads the whole request from the socket."
                }
                (Direction::Request, Stage::RequestQueue) => {
                    " All network threads share this one bounded queue; any free I/O thread may take it."
                }
                (Direction::Request, Stage::IoThread(_)) => {
                    " The I/O thread runs the API handler: for Produce, it validates and appends the records."
                }
                (Direction::Request, Stage::LogAppend) => {
                    " The leader assigns offsets from its log end offset and appends the batch."
                }
                (Direction::Response, Stage::ResponseQueue(_)) => {
                    " Each network thread has its own response queue, so the response returns through the thread that owns the connection."
                }
                (Direction::Response, Stage::SocketSendBuffer) => {
                    " Now the connection is unmuted and the broker may read its next request."
                }
                (Direction::Response, Stage::Client) => " The producer now knows its record's offset.",
                _ => "",
            };
            let from_name = stage_name(*from);
            let to_name = stage_name(*to);
            format!("{what} moved from {from_name} to {to_name}.{why}")
        }
        TraceKind::Sent { request, api, direction, to, arrives_at_ms } => {
            let what = match direction {
                Direction::Request => format!("{} request {}", api.name(), request),
                Direction::Response => format!("The response to {} request {}", api.name(), request),
            };
            format!("{what} was sent to {to} over the network; it arrives at {arrives_at_ms} ms.")
        }
        TraceKind::ConnectionMuted { client, muted: true } => format!(
            "The connection from {client} is muted: the broker reads no more requests from it until this one is answered, which keeps responses in order."
        ),
        TraceKind::ConnectionMuted { client, muted: false } => {
            format!("The connection from {client} is unmuted: its next request may be read.")
        }
        TraceKind::Appended { partition, base_offset, last_offset, log_end_offset, .. } => {
            if base_offset == last_offset {
                format!(
                    "The record was appended to {partition} at offset {base_offset}; the log end offset is now {log_end_offset}. Offsets count per partition."
                )
            } else {
                format!(
                    "The records were appended to {partition} at offsets {base_offset} to {last_offset}; the log end offset is now {log_end_offset}."
                )
            }
        }
        TraceKind::PartitionChosen { client, partition } => {
            format!("{client} chose partition {partition} for the record.")
        }
        TraceKind::ProduceCompleted { request, partition, base_offset, error } => {
            if error.code() == 0 {
                format!("Produce {request} succeeded: partition {partition}, offset {base_offset}.")
            } else {
                format!("Produce {request} to {partition} failed with {error}.")
            }
        }
    }
}
