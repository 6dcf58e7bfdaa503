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
    LeaderNotAvailable,
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
    InvalidProducerEpoch,
    FencedLeaderEpoch,
    UnknownLeaderEpoch,
    InvalidRecord,
    NotController,
    StaleBrokerEpoch,
    InvalidUpdateVersion,
    /// A broker registered while another process's registration under its
    /// id still has a valid session.
    DuplicateBrokerRegistration,
    IneligibleReplica,
    /// The client's connection closed before the answer came (refused or
    /// reset). It never travels on the wire: the client's NetworkClient
    /// gives it to the requests that were in flight on that connection.
    NetworkException,
}

impl ErrorCode {
    /// The number Kafka puts on the wire.
    pub fn code(self) -> i16 {
        match self {
            ErrorCode::None => 0,
            ErrorCode::OffsetOutOfRange => 1,
            ErrorCode::CorruptMessage => 2,
            ErrorCode::UnknownTopicOrPartition => 3,
            ErrorCode::LeaderNotAvailable => 5,
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
            ErrorCode::InvalidProducerEpoch => 47,
            ErrorCode::FencedLeaderEpoch => 74,
            ErrorCode::UnknownLeaderEpoch => 75,
            ErrorCode::InvalidRecord => 87,
            ErrorCode::NotController => 41,
            ErrorCode::StaleBrokerEpoch => 77,
            ErrorCode::InvalidUpdateVersion => 95,
            ErrorCode::DuplicateBrokerRegistration => 101,
            ErrorCode::IneligibleReplica => 107,
            ErrorCode::NetworkException => 13,
        }
    }

    /// The name Kafka's documentation and logs use.
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::None => "NONE",
            ErrorCode::OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
            ErrorCode::CorruptMessage => "CORRUPT_MESSAGE",
            ErrorCode::UnknownTopicOrPartition => "UNKNOWN_TOPIC_OR_PARTITION",
            ErrorCode::LeaderNotAvailable => "LEADER_NOT_AVAILABLE",
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
            ErrorCode::InvalidProducerEpoch => "INVALID_PRODUCER_EPOCH",
            ErrorCode::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            ErrorCode::UnknownLeaderEpoch => "UNKNOWN_LEADER_EPOCH",
            ErrorCode::InvalidRecord => "INVALID_RECORD",
            ErrorCode::NotController => "NOT_CONTROLLER",
            ErrorCode::StaleBrokerEpoch => "STALE_BROKER_EPOCH",
            ErrorCode::InvalidUpdateVersion => "INVALID_UPDATE_VERSION",
            ErrorCode::DuplicateBrokerRegistration => "DUPLICATE_BROKER_REGISTRATION",
            ErrorCode::IneligibleReplica => "INELIGIBLE_REPLICA",
            ErrorCode::NetworkException => "NETWORK_EXCEPTION",
        }
    }
}

impl ErrorCode {
    /// Errors a producer retries (Kafka's RetriableException subclasses).
    pub fn is_retriable(self) -> bool {
        matches!(
            self,
            ErrorCode::NotLeaderOrFollower
                | ErrorCode::LeaderNotAvailable
                | ErrorCode::RequestTimedOut
                | ErrorCode::NotEnoughReplicas
                | ErrorCode::NotEnoughReplicasAfterAppend
                | ErrorCode::UnknownTopicOrPartition
                | ErrorCode::CorruptMessage
                | ErrorCode::NetworkException
        )
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.code())
    }
}

/// A control-plane RPC by kind: one of the quorum's own (between
/// controllers) or one of a broker's with the active controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ControlPlaneRpc {
    Quorum(super::raft::message::QuorumRpc),
    BrokerControl(super::control_plane::ControlRpc),
}

impl ControlPlaneRpc {
    /// Kafka's name for it.
    pub fn name(self) -> &'static str {
        match self {
            ControlPlaneRpc::Quorum(rpc) => rpc.name(),
            ControlPlaneRpc::BrokerControl(rpc) => rpc.name(),
        }
    }
}

/// Which API a request calls. The UI gives each its own colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ApiKey {
    Produce,
    Fetch,
    Metadata,
    InitProducerId,
}

impl ApiKey {
    pub fn name(self) -> &'static str {
        match self {
            ApiKey::Produce => "Produce",
            ApiKey::Fetch => "Fetch",
            ApiKey::Metadata => "Metadata",
            ApiKey::InitProducerId => "InitProducerId",
        }
    }
}

/// ProduceRequest: record batch v2 bytes for one or more partitions, as a
/// producer's sender drains them for one broker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProduceRequest {
    pub acks: i16,
    pub timeout_ms: i32,
    pub partitions: Vec<ProducePartition>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducePartition {
    pub partition: TopicPartition,
    /// One record batch v2, exactly as it will sit in the log.
    pub batch: Vec<u8>,
}

/// ProduceResponse for one partition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducePartitionResponse {
    pub partition: TopicPartition,
    pub error: ErrorCode,
    pub base_offset: i64,
    /// Set when the topic uses LogAppendTime: the broker's timestamp.
    pub log_append_time_ms: i64,
    pub log_start_offset: i64,
}

/// FetchRequest: from a consumer (`replica_id` None) or a follower's replica
/// fetcher (`replica_id` Some).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchRequest {
    pub replica_id: Option<u32>,
    pub max_wait_ms: i32,
    pub min_bytes: i32,
    pub max_bytes: i32,
    pub partitions: Vec<FetchPartition>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchPartition {
    pub partition: TopicPartition,
    pub fetch_offset: i64,
    /// The epoch of the last batch the follower has, for the divergence check.
    pub last_fetched_epoch: Option<i32>,
    pub partition_max_bytes: i32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchPartitionResponse {
    pub partition: TopicPartition,
    pub error: ErrorCode,
    pub high_watermark: i64,
    pub log_start_offset: i64,
    /// Set when the follower's log has diverged: truncate to `end_offset`.
    pub diverging_epoch: Option<EpochEndOffset>,
    /// Whole record batches, back to back.
    pub records: Vec<u8>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EpochEndOffset {
    pub epoch: i32,
    pub end_offset: i64,
}

/// MetadataResponse: who leads each partition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionMetadata {
    pub partition: TopicPartition,
    pub error: ErrorCode,
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub replicas: Vec<u32>,
    pub isr: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RequestBody {
    Produce(ProduceRequest),
    Fetch(FetchRequest),
    Metadata { topics: Vec<String> },
    InitProducerId,
}

impl RequestBody {
    pub fn api_key(&self) -> ApiKey {
        match self {
            RequestBody::Produce(_) => ApiKey::Produce,
            RequestBody::Fetch(_) => ApiKey::Fetch,
            RequestBody::Metadata { .. } => ApiKey::Metadata,
            RequestBody::InitProducerId => ApiKey::InitProducerId,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResponseBody {
    Produce(Vec<ProducePartitionResponse>),
    Fetch { error: ErrorCode, partitions: Vec<FetchPartitionResponse> },
    Metadata { brokers: Vec<u32>, partitions: Vec<PartitionMetadata>, unknown_topics: Vec<String> },
    InitProducerId { error: ErrorCode, producer_id: i64, producer_epoch: i16 },
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

    /// A follower's fetch is drawn apart from a consumer's.
    pub fn is_follower_fetch(&self) -> bool {
        matches!(&self.body, RequestBody::Fetch(f) if f.replica_id.is_some())
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
    /// A KRaft quorum RPC between controllers (Vote, BeginQuorumEpoch,
    /// EndQuorumEpoch, Fetch of `__cluster_metadata`), from controller `from`.
    Raft { from: u32, msg: super::control_plane::ControllerMessage },
    /// A broker's control-plane RPC with the controllers (BrokerRegistration,
    /// BrokerHeartbeat, the metadata log Fetch) or its answer.
    Control(super::control_plane::ControlMessage),
}

impl Message {
    pub fn request_id(&self) -> RequestId {
        match self {
            Message::Request(r) => r.id,
            Message::Response(r) => r.id,
            Message::Raft { from, msg } => {
                RequestId { client: NodeId::Controller(*from), correlation_id: msg.correlation_id() as i32 }
            }
            Message::Control(c) => RequestId { client: NodeId::Broker(c.broker()), correlation_id: c.correlation_id() },
        }
    }

    pub fn api_key(&self) -> ApiKey {
        match self {
            Message::Request(r) => r.api_key(),
            Message::Response(r) => r.api_key,
            // KRaft's Fetch is Kafka's Fetch API; the election RPCs have no
            // ApiKey here (the trace names them with `Message::raft_api`).
            Message::Raft { .. } | Message::Control(_) => ApiKey::Fetch,
        }
    }

    /// Which quorum or control-plane RPC this is, if it is one.
    pub fn control_plane_rpc(&self) -> Option<ControlPlaneRpc> {
        match self {
            Message::Raft { msg, .. } => Some(ControlPlaneRpc::Quorum(msg.rpc())),
            Message::Control(c) => Some(ControlPlaneRpc::BrokerControl(c.rpc())),
            _ => None,
        }
    }

    /// A quorum or control-plane RPC's Kafka name (Vote, BeginQuorumEpoch, ...).
    pub fn raft_api(&self) -> Option<&'static str> {
        self.control_plane_rpc().map(ControlPlaneRpc::name)
    }

    /// The node whose request this is (the one that opened the connection).
    pub fn client(&self) -> NodeId {
        self.request_id().client
    }

    /// Approximate size on the wire, for the in-flight view.
    pub fn payload_bytes(&self) -> u32 {
        match self {
            Message::Request(Request { body: RequestBody::Produce(p), .. }) => {
                p.partitions.iter().map(|x| x.batch.len() as u32).sum()
            }
            Message::Response(Response { body: ResponseBody::Fetch { partitions, .. }, .. }) => {
                partitions.iter().map(|x| x.records.len() as u32).sum()
            }
            _ => 0,
        }
    }
}

#[cfg(test)]
mod error_code_tests {
    use super::ErrorCode;

    /// Each code as Errors.java (Apache Kafka trunk, 4.x) declares it, written
    /// out by hand from that file. The match has no wildcard, so a code added
    /// to the simulation does not compile until its row is written here.
    fn kafkas(code: ErrorCode) -> (&'static str, i16) {
        match code {
            ErrorCode::None => ("NONE", 0),
            ErrorCode::OffsetOutOfRange => ("OFFSET_OUT_OF_RANGE", 1),
            ErrorCode::CorruptMessage => ("CORRUPT_MESSAGE", 2),
            ErrorCode::UnknownTopicOrPartition => ("UNKNOWN_TOPIC_OR_PARTITION", 3),
            ErrorCode::LeaderNotAvailable => ("LEADER_NOT_AVAILABLE", 5),
            ErrorCode::NotLeaderOrFollower => ("NOT_LEADER_OR_FOLLOWER", 6),
            ErrorCode::RequestTimedOut => ("REQUEST_TIMED_OUT", 7),
            ErrorCode::MessageTooLarge => ("MESSAGE_TOO_LARGE", 10),
            ErrorCode::NetworkException => ("NETWORK_EXCEPTION", 13),
            ErrorCode::NotEnoughReplicas => ("NOT_ENOUGH_REPLICAS", 19),
            ErrorCode::NotEnoughReplicasAfterAppend => ("NOT_ENOUGH_REPLICAS_AFTER_APPEND", 20),
            ErrorCode::InvalidRequiredAcks => ("INVALID_REQUIRED_ACKS", 21),
            ErrorCode::InvalidTimestamp => ("INVALID_TIMESTAMP", 32),
            ErrorCode::TopicAlreadyExists => ("TOPIC_ALREADY_EXISTS", 36),
            ErrorCode::InvalidPartitions => ("INVALID_PARTITIONS", 37),
            ErrorCode::InvalidReplicationFactor => ("INVALID_REPLICATION_FACTOR", 38),
            ErrorCode::InvalidConfig => ("INVALID_CONFIG", 40),
            ErrorCode::NotController => ("NOT_CONTROLLER", 41),
            ErrorCode::OutOfOrderSequenceNumber => ("OUT_OF_ORDER_SEQUENCE_NUMBER", 45),
            ErrorCode::InvalidProducerEpoch => ("INVALID_PRODUCER_EPOCH", 47),
            ErrorCode::FencedLeaderEpoch => ("FENCED_LEADER_EPOCH", 74),
            ErrorCode::UnknownLeaderEpoch => ("UNKNOWN_LEADER_EPOCH", 75),
            ErrorCode::StaleBrokerEpoch => ("STALE_BROKER_EPOCH", 77),
            ErrorCode::InvalidRecord => ("INVALID_RECORD", 87),
            ErrorCode::InvalidUpdateVersion => ("INVALID_UPDATE_VERSION", 95),
            ErrorCode::DuplicateBrokerRegistration => ("DUPLICATE_BROKER_REGISTRATION", 101),
            ErrorCode::IneligibleReplica => ("INELIGIBLE_REPLICA", 107),
        }
    }

    /// Every code the simulation declares (a new one goes here and in
    /// `kafkas`, whose match will not compile without it).
    const EVERY: [ErrorCode; 27] = [
        ErrorCode::None,
        ErrorCode::OffsetOutOfRange,
        ErrorCode::CorruptMessage,
        ErrorCode::UnknownTopicOrPartition,
        ErrorCode::LeaderNotAvailable,
        ErrorCode::NotLeaderOrFollower,
        ErrorCode::RequestTimedOut,
        ErrorCode::MessageTooLarge,
        ErrorCode::NetworkException,
        ErrorCode::NotEnoughReplicas,
        ErrorCode::NotEnoughReplicasAfterAppend,
        ErrorCode::InvalidRequiredAcks,
        ErrorCode::InvalidTimestamp,
        ErrorCode::TopicAlreadyExists,
        ErrorCode::InvalidPartitions,
        ErrorCode::InvalidReplicationFactor,
        ErrorCode::InvalidConfig,
        ErrorCode::NotController,
        ErrorCode::OutOfOrderSequenceNumber,
        ErrorCode::InvalidProducerEpoch,
        ErrorCode::FencedLeaderEpoch,
        ErrorCode::UnknownLeaderEpoch,
        ErrorCode::StaleBrokerEpoch,
        ErrorCode::InvalidRecord,
        ErrorCode::InvalidUpdateVersion,
        ErrorCode::DuplicateBrokerRegistration,
        ErrorCode::IneligibleReplica,
    ];

    #[test]
    fn every_code_has_kafkas_name_and_number() {
        let mut wrong = Vec::new();
        for code in EVERY {
            let (name, number) = kafkas(code);
            if code.name() != name || code.code() != number {
                wrong.push(format!("{} ({}) is {name} ({number}) in Errors.java", code.name(), code.code()));
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn no_two_codes_share_a_number_or_a_name() {
        let mut numbers: Vec<i16> = EVERY.iter().map(|c| c.code()).collect();
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), EVERY.len());
        let mut names: Vec<&str> = EVERY.iter().map(|c| c.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), EVERY.len());
    }
}
