//! What brokers and controllers say to each other, apart from either node:
//! the controller quorum's Raft messages, a broker's RPCs with the active
//! controller, and the timings both sides share.

use super::ids::TopicPartition;
use super::metadata::MetadataRecord;
use super::error_code::ErrorCode;
use super::raft::message::RaftMessage;
use serde::{Deserialize, Serialize};

/// What one controller node's Raft sends and receives.
pub type ControllerMessage = RaftMessage<MetadataRecord>;

/// `broker.heartbeat.interval.ms`.
pub const BROKER_HEARTBEAT_INTERVAL_MS: u64 = 2_000;
/// `broker.session.timeout.ms`.
pub const BROKER_SESSION_TIMEOUT_MS: u64 = 9_000;
/// How long the active controller holds a metadata fetch with nothing new.
pub const METADATA_FETCH_MAX_WAIT_MS: u64 = 500;

/// A broker's RPCs with the controller quorum. Every one names the broker
/// and carries the broker's correlation id, which its answer echoes.
/// "Not the active controller" is answered with `NOT_CONTROLLER` and a hint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ControlMessage {
    /// `incarnation`: which start of the broker process this is.
    BrokerRegistrationRequest { broker: u32, correlation_id: i32, incarnation: u32 },
    BrokerRegistrationResponse {
        broker: u32,
        correlation_id: i32,
        error: ErrorCode,
        broker_epoch: i64,
        leader_hint: Option<u32>,
    },
    /// `want_shut_down`: the broker is in a controlled shutdown.
    BrokerHeartbeatRequest { broker: u32, correlation_id: i32, broker_epoch: i64, metadata_offset: i64, want_shut_down: bool },
    /// `should_shut_down`: the controlled shutdown is done; the broker may stop.
    BrokerHeartbeatResponse {
        broker: u32,
        correlation_id: i32,
        error: ErrorCode,
        fenced: bool,
        leader_hint: Option<u32>,
        should_shut_down: bool,
    },
    /// A broker fetches the `__cluster_metadata` log from `offset`, like a
    /// Raft observer; it only ever gets committed records.
    MetadataFetchRequest { broker: u32, correlation_id: i32, offset: i64 },
    MetadataFetchResponse {
        broker: u32,
        correlation_id: i32,
        error: ErrorCode,
        leader_hint: Option<u32>,
        /// Committed records from the fetch offset, with their offsets.
        records: Vec<(i64, MetadataRecord)>,
        /// Where the next fetch starts.
        next_offset: i64,
    },
    /// A partition leader asks to change the ISR (KIP-497).
    AlterPartitionRequest {
        broker: u32,
        correlation_id: i32,
        partition: TopicPartition,
        leader_epoch: i32,
        partition_epoch: i32,
        isr: Vec<u32>,
    },
    AlterPartitionResponse { broker: u32, correlation_id: i32, partition: TopicPartition, error: ErrorCode, leader_hint: Option<u32> },
}

impl ControlMessage {
    pub fn broker(&self) -> u32 {
        match self {
            ControlMessage::BrokerRegistrationRequest { broker, .. }
            | ControlMessage::BrokerRegistrationResponse { broker, .. }
            | ControlMessage::BrokerHeartbeatRequest { broker, .. }
            | ControlMessage::BrokerHeartbeatResponse { broker, .. }
            | ControlMessage::MetadataFetchRequest { broker, .. }
            | ControlMessage::MetadataFetchResponse { broker, .. }
            | ControlMessage::AlterPartitionRequest { broker, .. }
            | ControlMessage::AlterPartitionResponse { broker, .. } => *broker,
        }
    }

    pub fn correlation_id(&self) -> i32 {
        match self {
            ControlMessage::BrokerRegistrationRequest { correlation_id, .. }
            | ControlMessage::BrokerRegistrationResponse { correlation_id, .. }
            | ControlMessage::BrokerHeartbeatRequest { correlation_id, .. }
            | ControlMessage::BrokerHeartbeatResponse { correlation_id, .. }
            | ControlMessage::MetadataFetchRequest { correlation_id, .. }
            | ControlMessage::MetadataFetchResponse { correlation_id, .. }
            | ControlMessage::AlterPartitionRequest { correlation_id, .. }
            | ControlMessage::AlterPartitionResponse { correlation_id, .. } => *correlation_id,
        }
    }

    /// An answer from the controller rather than a broker's request.
    pub fn is_response(&self) -> bool {
        self.rpc().is_response()
    }

    /// Which RPC this is, for the trace.
    pub fn rpc(&self) -> ControlRpc {
        match self {
            ControlMessage::BrokerRegistrationRequest { .. } => ControlRpc::BrokerRegistration,
            ControlMessage::BrokerRegistrationResponse { .. } => ControlRpc::BrokerRegistrationResponse,
            ControlMessage::BrokerHeartbeatRequest { .. } => ControlRpc::BrokerHeartbeat,
            ControlMessage::BrokerHeartbeatResponse { .. } => ControlRpc::BrokerHeartbeatResponse,
            ControlMessage::MetadataFetchRequest { .. } => ControlRpc::MetadataFetch,
            ControlMessage::MetadataFetchResponse { .. } => ControlRpc::MetadataFetchResponse,
            ControlMessage::AlterPartitionRequest { .. } => ControlRpc::AlterPartition,
            ControlMessage::AlterPartitionResponse { .. } => ControlRpc::AlterPartitionResponse,
        }
    }

    pub fn api_name(&self) -> &'static str {
        self.rpc().name()
    }
}

/// A broker's control-plane RPCs with the active controller by kind,
/// without their fields: what the trace records when one is sent or lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ControlRpc {
    BrokerRegistration,
    BrokerRegistrationResponse,
    BrokerHeartbeat,
    BrokerHeartbeatResponse,
    /// The broker's Fetch of `__cluster_metadata`.
    MetadataFetch,
    MetadataFetchResponse,
    AlterPartition,
    AlterPartitionResponse,
}

impl ControlRpc {
    /// Kafka's name for it.
    pub fn name(self) -> &'static str {
        match self {
            ControlRpc::BrokerRegistration => "BrokerRegistration",
            ControlRpc::BrokerRegistrationResponse => "BrokerRegistrationResponse",
            ControlRpc::BrokerHeartbeat => "BrokerHeartbeat",
            ControlRpc::BrokerHeartbeatResponse => "BrokerHeartbeatResponse",
            ControlRpc::MetadataFetch => "Fetch(__cluster_metadata)",
            ControlRpc::MetadataFetchResponse => "FetchResponse(__cluster_metadata)",
            ControlRpc::AlterPartition => "AlterPartition",
            ControlRpc::AlterPartitionResponse => "AlterPartitionResponse",
        }
    }

    /// An answer from the controller rather than a broker's request.
    pub fn is_response(self) -> bool {
        matches!(
            self,
            ControlRpc::BrokerRegistrationResponse
                | ControlRpc::BrokerHeartbeatResponse
                | ControlRpc::MetadataFetchResponse
                | ControlRpc::AlterPartitionResponse
        )
    }
}
