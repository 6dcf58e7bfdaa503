//! Kafka's error codes, under the names and numbers of Errors.java.
//!
//! They live apart from the wire messages so that the control plane and the
//! data plane can share them without depending on each other's requests.

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

/// Every code the simulation declares, for the tests here and the
/// narration's (a new one goes here and in the tests' `kafkas`, whose match
/// will not compile without it).
#[cfg(test)]
pub(crate) const EVERY: [ErrorCode; 27] = [
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

#[cfg(test)]
mod tests {
    use super::{ErrorCode, EVERY};

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
