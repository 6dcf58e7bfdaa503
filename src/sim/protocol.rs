//! The requests and responses that travel between nodes, under Kafka's names.
//!
//! Only the fields the simulation acts on are modelled; each type names the
//! Kafka message it stands for.

use super::ids::{NodeId, RequestId, TopicPartition};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Kafka's error codes (clients/.../common/protocol/Errors.java), the subset
/// the simulation can produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ErrorCode {
    None,
    OffsetOutOfRange,
    CorruptMessage,
    UnknownTopicOrPartition,
    NotLeaderOrFollower,
    RequestTimedOut,
    MessageTooLarge,
    NotEnoughReplicas,
    NotEnoughReplicasAfterAppend,
    InvalidRequiredAcks,
    InvalidTimestamp,
    TopicAlreadyExists,
    InvalidPartitions,
    InvalidReplicationFactor,
    InvalidConfig,
    OutOfOrderSequenceNumber,
    FencedLeaderEpoch,
    UnknownLeaderEpoch,
    InvalidRecord,
}

impl ErrorCode {
    /// The number Kafka puts on the wire.
    pub fn code(self) -> i16 {
        match self {
            ErrorCode::None => 0,
            ErrorCode::OffsetOutOfRange => 1,
            ErrorCode::CorruptMessage => 2,
            ErrorCode::UnknownTopicOrPartition => 3,
            ErrorCode::NotLeaderOrFollower => 6,
            ErrorCode::RequestTimedOut => 7,
            ErrorCode::MessageTooLarge => 10,
            ErrorCode::NotEnoughReplicas => 19,
            ErrorCode::NotEnoughReplicasAfterAppend => 20,
            ErrorCode::InvalidRequiredAcks => 21,
            ErrorCode::InvalidTimestamp => 32,
            ErrorCode::TopicAlreadyExists => 36,
            ErrorCode::InvalidPartitions => 37,
            ErrorCode::InvalidReplicationFactor => 38,
            ErrorCode::InvalidConfig => 40,
            ErrorCode::OutOfOrderSequenceNumber => 45,
            ErrorCode::FencedLeaderEpoch => 74,
            ErrorCode::UnknownLeaderEpoch => 76,
            ErrorCode::InvalidRecord => 87,
        }
    }

    /// The name Kafka's documentation and logs use.
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::None => "NONE",
            ErrorCode::OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
            ErrorCode::CorruptMessage => "CORRUPT_MESSAGE",
            ErrorCode::UnknownTopicOrPartition => "UNKNOWN_TOPIC_OR_PARTITION",
            ErrorCode::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            ErrorCode::RequestTimedOut => "REQUEST_TIMED_OUT",
            ErrorCode::MessageTooLarge => "MESSAGE_TOO_LARGE",
            ErrorCode::NotEnoughReplicas => "NOT_ENOUGH_REPLICAS",
            ErrorCode::NotEnoughReplicasAfterAppend => "NOT_ENOUGH_REPLICAS_AFTER_APPEND",
            ErrorCode::InvalidRequiredAcks => "INVALID_REQUIRED_ACKS",
            ErrorCode::InvalidTimestamp => "INVALID_TIMESTAMP",
            ErrorCode::TopicAlreadyExists => "TOPIC_ALREADY_EXISTS",
            ErrorCode::InvalidPartitions => "INVALID_PARTITIONS",
            ErrorCode::InvalidReplicationFactor => "INVALID_REPLICATION_FACTOR",
            ErrorCode::InvalidConfig => "INVALID_CONFIG",
            ErrorCode::OutOfOrderSequenceNumber => "OUT_OF_ORDER_SEQUENCE_NUMBER",
            ErrorCode::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            ErrorCode::UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            ErrorCode::InvalidRecord => "INVALID_RECORD",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.code())
    }
}

/// Which API a request calls. The UI gives each its own colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ApiKey {
    Produce,
    Fetch,
    Metadata,
}

impl ApiKey {
    pub fn name(self) -> &'static str {
        match self {
            ApiKey::Produce => "Produce",
            ApiKey::Fetch => "Fetch",
            ApiKey::Metadata => "Metadata",
        }
    }
}

/// One record as a producer hands it over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducerRecord {
    pub key: Option<Vec<u8>>,
    pub value: Option<Vec<u8>>,
    pub timestamp_ms: i64,
}

/// ProduceRequest: one batch for one partition, as a producer's sender sends
/// it (Kafka allows many partitions per request; the simulation sends one).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProduceRequest {
    pub acks: i16,
    pub timeout_ms: i32,
    pub partition: TopicPartition,
    pub records: Vec<ProducerRecord>,
}

/// ProduceResponse for one partition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProduceResponse {
    pub partition: TopicPartition,
    pub error: ErrorCode,
    pub base_offset: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RequestBody {
    Produce(ProduceRequest),
}

impl RequestBody {
    pub fn api_key(&self) -> ApiKey {
        match self {
            RequestBody::Produce(_) => ApiKey::Produce,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResponseBody {
    Produce(ProduceResponse),
}

/// A request on the wire: Kafka's request header plus its body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    pub id: RequestId,
    pub body: RequestBody,
}

impl Request {
    pub fn api_key(&self) -> ApiKey {
        self.body.api_key()
    }
}

/// A response on the wire, matched to its request by correlation id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    pub id: RequestId,
    pub api_key: ApiKey,
    pub body: ResponseBody,
}

/// What travels over a link between two nodes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Message {
    Request(Request),
    Response(Response),
}

impl Message {
    pub fn request_id(&self) -> RequestId {
        match self {
            Message::Request(r) => r.id,
            Message::Response(r) => r.id,
        }
    }

    pub fn api_key(&self) -> ApiKey {
        match self {
            Message::Request(r) => r.api_key(),
            Message::Response(r) => r.api_key,
        }
    }

    /// Which node a connection-level message belongs to, for the view.
    pub fn client(&self) -> NodeId {
        self.request_id().client
    }
}
