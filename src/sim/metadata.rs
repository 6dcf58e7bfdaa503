//! The `__cluster_metadata` log's records, under Kafka's names, and the
//! metadata image they build. They are the vocabulary the controllers write
//! and the brokers, the view and the narration read, so they live apart from
//! the controller node that writes them.

use super::ids::TopicPartition;
use super::prose::and_list;
use crate::sim::collections::{BTreeMap, BTreeSet};
use serde::{Deserialize, Serialize};

/// The records of the metadata log, under Kafka's names
/// (metadata/src/main/resources/common/metadata/*.json).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MetadataRecord {
    /// A broker registered with the active controller (it starts fenced).
    /// `incarnation`: the broker process's incarnation id, new with every
    /// start (Kafka's is a random UUID; the simulation counts starts).
    RegisterBroker { broker: u32, epoch: i64, incarnation: u32 },
    /// A topic was created.
    Topic { name: String, partitions: u32 },
    /// A partition was created with this assignment.
    Partition(PartitionRecord),
    /// A partition's ISR or leader changed.
    PartitionChange {
        partition: TopicPartition,
        isr: Vec<u32>,
        leader: Option<u32>,
        leader_epoch: i32,
        partition_epoch: i32,
    },
    /// A broker was fenced or unfenced.
    BrokerRegistrationChange { broker: u32, fenced: bool },
    /// Kafka's BrokerRegistrationChangeRecord with InControlledShutdown set:
    /// a broker began a controlled shutdown, so it may lead nothing and join
    /// no ISR until it is fenced.
    BrokerInControlledShutdown { broker: u32 },
}

/// One line a reader can follow: the record's Kafka name and what it says.
impl std::fmt::Display for MetadataRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let leader = |l: &Option<u32>| l.map_or("none (offline)".to_string(), |b| b.to_string());
        match self {
            MetadataRecord::RegisterBroker { broker, epoch, incarnation } => {
                write!(f, "RegisterBrokerRecord broker {broker}, incarnation {incarnation}, broker epoch {epoch}")
            }
            MetadataRecord::Topic { name, partitions } => write!(f, "TopicRecord {name} ({partitions} partitions)"),
            MetadataRecord::Partition(p) => write!(
                f,
                "PartitionRecord {}: replicas {}, leader {}, ISR {}",
                p.partition,
                and_list(&p.replicas),
                leader(&p.leader),
                and_list(&p.isr)
            ),
            MetadataRecord::PartitionChange { partition, isr, leader: l, leader_epoch, partition_epoch } => write!(
                f,
                "PartitionChangeRecord {partition}: leader {} (leader epoch {leader_epoch}), ISR {}, partition epoch {partition_epoch}",
                leader(l),
                and_list(isr)
            ),
            MetadataRecord::BrokerRegistrationChange { broker, fenced } => {
                write!(f, "BrokerRegistrationChangeRecord broker {broker} {}", if *fenced { "fenced" } else { "unfenced" })
            }
            MetadataRecord::BrokerInControlledShutdown { broker } => {
                write!(f, "BrokerRegistrationChangeRecord broker {broker} in controlled shutdown")
            }
        }
    }
}

/// PartitionRecord.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionRecord {
    pub partition: TopicPartition,
    pub replicas: Vec<u32>,
    pub isr: Vec<u32>,
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub partition_epoch: i32,
}

/// The metadata image: the state the records describe.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MetadataImage {
    pub brokers: BTreeMap<u32, RegisteredBroker>,
    pub topics: BTreeSet<String>,
    pub partitions: BTreeMap<TopicPartition, PartitionRecord>,
}

/// A broker's registration as the metadata log holds it (Kafka's
/// BrokerRegistration).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegisteredBroker {
    pub epoch: i64,
    pub fenced: bool,
    pub incarnation: u32,
}

impl MetadataImage {
    pub fn apply(&mut self, record: &MetadataRecord) {
        match record {
            MetadataRecord::RegisterBroker { broker, epoch, incarnation } => {
                self.brokers.insert(*broker, RegisteredBroker { epoch: *epoch, fenced: true, incarnation: *incarnation });
            }
            MetadataRecord::Topic { name, .. } => {
                self.topics.insert(name.clone());
            }
            MetadataRecord::Partition(p) => {
                self.partitions.insert(p.partition.clone(), p.clone());
            }
            MetadataRecord::PartitionChange { partition, isr, leader, leader_epoch, partition_epoch } => {
                if let Some(p) = self.partitions.get_mut(partition) {
                    p.isr = isr.clone();
                    p.leader = *leader;
                    p.leader_epoch = *leader_epoch;
                    p.partition_epoch = *partition_epoch;
                }
            }
            MetadataRecord::BrokerRegistrationChange { broker, fenced } => {
                if let Some(b) = self.brokers.get_mut(broker) {
                    b.fenced = *fenced;
                }
            }
            MetadataRecord::BrokerInControlledShutdown { .. } => {}
        }
    }

    pub fn is_unfenced(&self, broker: u32) -> bool {
        self.brokers.get(&broker).is_some_and(|b| !b.fenced)
    }
}
