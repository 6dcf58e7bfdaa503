//! Names for the things in a cluster: nodes, requests, topic-partitions.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A node of the simulated cluster. The order (brokers, then controllers,
/// then clients) is the order views list them in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum NodeId {
    Broker(u32),
    Controller(u32),
    Client(u32),
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeId::Broker(id) => write!(f, "broker-{id}"),
            NodeId::Controller(id) => write!(f, "controller-{id}"),
            NodeId::Client(id) => write!(f, "client-{id}"),
        }
    }
}

/// A request's identity across the whole run: Kafka's client keeps one
/// correlation-id counter for all of its connections, so the pair is unique.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct RequestId {
    pub client: NodeId,
    pub correlation_id: i32,
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.client, self.correlation_id)
    }
}

/// A partition of a topic, named as Kafka names them: `orders-0`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TopicPartition {
    pub topic: String,
    pub partition: u32,
}

impl TopicPartition {
    pub fn new(topic: impl Into<String>, partition: u32) -> Self {
        Self { topic: topic.into(), partition }
    }
}

impl fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}
