//! The requests and responses that travel between nodes, under Kafka's names.
//!
//! Only the fields the simulation acts on are modelled; each type names the
//! Kafka message it stands for.

use super::ids::{NodeId, RequestId, TopicPartition};
use serde::{Deserialize, Serialize};

pub use super::error_code::ErrorCode;

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
