//! The view model: plain structs the UI draws. Nothing here points into a
//! node, so the UI can hold a view while the simulation moves on.

use super::client::ProduceOutcome;
use super::ids::{NodeId, RequestId};
use super::protocol::ApiKey;
use super::trace::Direction;
use serde::{Deserialize, Serialize};

/// A request or response as a token on the screen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token {
    pub request: RequestId,
    pub api: ApiKey,
    pub direction: Direction,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetworkThreadView {
    pub id: u32,
    /// The request being read or the response being written.
    pub work: Option<Token>,
    /// A request the thread could not put on the full request queue.
    pub blocked: Option<Token>,
    pub response_queue: Vec<Token>,
    pub connections: Vec<ConnectionView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionView {
    pub client: NodeId,
    pub muted: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoThreadView {
    pub id: u32,
    pub work: Option<Token>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordView {
    pub offset: i64,
    pub key: Option<String>,
    pub value: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionView {
    pub topic: String,
    pub partition: u32,
    pub leader: Option<u32>,
    pub log_end_offset: i64,
    pub records: Vec<RecordView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BrokerView {
    pub id: u32,
    pub socket_receive_buffer: Vec<Token>,
    pub network_threads: Vec<NetworkThreadView>,
    pub request_queue: Vec<Token>,
    pub request_queue_capacity: u32,
    pub io_threads: Vec<IoThreadView>,
    /// Responses whose handler has run (the log append is done) and that the
    /// I/O thread is handing to a response queue.
    pub log_append: Vec<Token>,
    pub socket_send_buffer: Vec<Token>,
    pub partitions: Vec<PartitionView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientView {
    pub id: NodeId,
    pub produced: Vec<ProduceOutcome>,
}

/// A message on a link between two nodes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InFlightView {
    pub from: NodeId,
    pub to: NodeId,
    pub request: RequestId,
    pub api: ApiKey,
    pub direction: Direction,
    pub sent_at_ms: u64,
    pub arrives_at_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClusterView {
    pub time_ms: u64,
    pub step: u64,
    pub brokers: Vec<BrokerView>,
    pub clients: Vec<ClientView>,
    pub in_flight: Vec<InFlightView>,
}
