//! Names for the things in a cluster: nodes, requests, topic-partitions.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

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

/// A topic's name, shared rather than copied: every request, response,
/// purgatory key and map key names a topic-partition, and cloning a shared
/// name costs a reference count instead of an allocation. It compares, sorts
/// and prints exactly as the string it holds. The string sits behind a thin
/// pointer (`Arc<String>`, one word, where `Arc<str>` is two), because a
/// name is in nearly every trace event and a long run keeps millions.
#[derive(Clone)]
pub struct TopicName(Arc<String>);

impl TopicName {
    pub fn new(name: &str) -> Self {
        Self(Arc::new(name.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for TopicName {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for TopicName {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for TopicName {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for TopicName {
    fn from(name: &str) -> Self {
        Self::new(name)
    }
}

impl From<String> for TopicName {
    fn from(name: String) -> Self {
        Self(Arc::new(name))
    }
}

impl From<&String> for TopicName {
    fn from(name: &String) -> Self {
        Self::new(name)
    }
}

impl From<TopicName> for String {
    fn from(name: TopicName) -> Self {
        name.0.to_string()
    }
}

// Names shared from one place are usually the same allocation, so equality
// and order look at the pointer first; the answer is always the string's.
impl PartialEq for TopicName {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl Eq for TopicName {}

impl PartialOrd for TopicName {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for TopicName {
    fn cmp(&self, other: &Self) -> Ordering {
        if Arc::ptr_eq(&self.0, &other.0) {
            Ordering::Equal
        } else {
            self.0.cmp(&other.0)
        }
    }
}

impl Hash for TopicName {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state)
    }
}

impl PartialEq<str> for TopicName {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for TopicName {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for TopicName {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<TopicName> for String {
    fn eq(&self, other: &TopicName) -> bool {
        **self == *other.0
    }
}

impl PartialEq<TopicName> for str {
    fn eq(&self, other: &TopicName) -> bool {
        *self == *other.0
    }
}

impl fmt::Debug for TopicName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.0.as_str(), f)
    }
}

impl fmt::Display for TopicName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0.as_str(), f)
    }
}

impl Serialize for TopicName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for TopicName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(TopicName::from)
    }
}

/// A partition of a topic, named as Kafka names them: `orders-0`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct TopicPartition {
    pub topic: TopicName,
    pub partition: u32,
}

impl TopicPartition {
    pub fn new(topic: impl Into<TopicName>, partition: u32) -> Self {
        Self { topic: topic.into(), partition }
    }
}

impl fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topic_names_compare_sort_and_print_as_their_strings() {
        let a = TopicName::from("orders");
        let shared = a.clone();
        let copy = TopicName::from(String::from("orders"));
        assert_eq!(a, shared);
        assert_eq!(a, copy);
        assert_eq!(a, "orders");
        assert_eq!(a, String::from("orders"));
        let mut names = vec![TopicName::from("b"), TopicName::from("a-2"), TopicName::from("a")];
        names.sort();
        assert_eq!(names.iter().map(|n| n.as_str()).collect::<Vec<_>>(), vec!["a", "a-2", "b"]);
        assert_ne!(TopicName::from("a"), TopicName::from("b"));
        let tp = TopicPartition::new("orders", 3);
        assert_eq!(tp.to_string(), "orders-3");
        assert_eq!(format!("{tp:?}"), r#"TopicPartition { topic: "orders", partition: 3 }"#);
        let json = serde_json::to_string(&tp).unwrap();
        assert_eq!(json, r#"{"topic":"orders","partition":3}"#);
        assert_eq!(serde_json::from_str::<TopicPartition>(&json).unwrap(), tp);
        // Looked up by &str in maps keyed by names.
        let map: std::collections::BTreeMap<TopicName, u32> = [(a, 6)].into_iter().collect();
        assert_eq!(map.get("orders"), Some(&6));
    }
}
