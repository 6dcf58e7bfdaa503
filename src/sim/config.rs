//! Broker, topic and client configuration under Kafka's own names, with
//! Kafka's defaults unless a comment says why a smaller one keeps the picture
//! legible.

use serde::{Deserialize, Serialize};

/// A broker's settings.
///
/// Thread counts and the request queue are small so a learner can see every
/// slot; Kafka's own defaults are `num.network.threads` = 3,
/// `num.io.threads` = 8 and `queued.max.requests` = 500.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BrokerConfig {
    #[serde(rename = "num.network.threads")]
    pub num_network_threads: u32,
    #[serde(rename = "num.io.threads")]
    pub num_io_threads: u32,
    #[serde(rename = "queued.max.requests")]
    pub queued_max_requests: u32,
    /// `replica.lag.time.max.ms`: a follower not caught up for this long
    /// leaves the ISR.
    #[serde(rename = "replica.lag.time.max.ms")]
    pub replica_lag_time_max_ms: u64,
    #[serde(rename = "replica.fetch.wait.max.ms")]
    pub replica_fetch_wait_max_ms: i32,
    #[serde(rename = "replica.fetch.min.bytes")]
    pub replica_fetch_min_bytes: i32,
    #[serde(rename = "replica.fetch.max.bytes")]
    pub replica_fetch_max_bytes: i32,
    #[serde(rename = "replica.fetch.backoff.ms")]
    pub replica_fetch_backoff_ms: u64,
    #[serde(rename = "log.retention.check.interval.ms")]
    pub log_retention_check_interval_ms: u64,
    /// `log.initial.task.delay.ms` (an internal setting): how long after
    /// startup the log manager's periodic tasks, retention among them, first
    /// run (`LogManager.startup`).
    #[serde(rename = "log.initial.task.delay.ms")]
    pub log_initial_task_delay_ms: u64,
    /// The broker-wide default; a topic may override it.
    #[serde(rename = "min.insync.replicas")]
    pub min_insync_replicas: u32,
    /// Simulated time a network thread spends reading or writing one request.
    pub network_thread_ms: u64,
    /// Simulated time an I/O thread spends in an API handler.
    pub io_thread_ms: u64,
}

impl Default for BrokerConfig {
    fn default() -> Self {
        Self {
            num_network_threads: 2,
            num_io_threads: 2,
            queued_max_requests: 16,
            replica_lag_time_max_ms: 30_000,
            replica_fetch_wait_max_ms: 500,
            replica_fetch_min_bytes: 1,
            replica_fetch_max_bytes: 1_048_576,
            replica_fetch_backoff_ms: 1_000,
            log_retention_check_interval_ms: 300_000,
            log_initial_task_delay_ms: 30_000,
            min_insync_replicas: 1,
            network_thread_ms: 1,
            io_thread_ms: 1,
        }
    }
}

/// `message.timestamp.type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum TimestampType {
    #[default]
    CreateTime,
    LogAppendTime,
}

/// A topic's settings (`kafka-topics.sh --config`), all per-topic overrides
/// Kafka has with its defaults. `None` means "the broker's default".
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TopicConfig {
    #[serde(rename = "segment.bytes")]
    pub segment_bytes: i32,
    #[serde(rename = "segment.ms")]
    pub segment_ms: i64,
    #[serde(rename = "retention.ms")]
    pub retention_ms: i64,
    #[serde(rename = "retention.bytes")]
    pub retention_bytes: i64,
    #[serde(rename = "max.message.bytes")]
    pub max_message_bytes: i32,
    #[serde(rename = "index.interval.bytes")]
    pub index_interval_bytes: i32,
    #[serde(rename = "segment.index.bytes")]
    pub segment_index_bytes: i32,
    #[serde(rename = "min.insync.replicas")]
    pub min_insync_replicas: Option<u32>,
    #[serde(rename = "message.timestamp.type")]
    pub message_timestamp_type: TimestampType,
    /// `message.timestamp.after.max.ms`: how far in the future a CreateTime
    /// may be (Kafka 4.0's default is one hour).
    #[serde(rename = "message.timestamp.after.max.ms")]
    pub message_timestamp_after_max_ms: i64,
    /// `message.timestamp.before.max.ms`: how far in the past (unbounded by default).
    #[serde(rename = "message.timestamp.before.max.ms")]
    pub message_timestamp_before_max_ms: i64,
    /// `unclean.leader.election.enable`: when no ISR replica is alive, may
    /// the controller elect a replica outside the ISR? Off by default,
    /// because such a leader may lack committed records, which are then lost.
    #[serde(rename = "unclean.leader.election.enable")]
    pub unclean_leader_election_enable: bool,
}

impl Default for TopicConfig {
    fn default() -> Self {
        Self {
            segment_bytes: 1_073_741_824,
            segment_ms: 604_800_000,
            retention_ms: 604_800_000,
            retention_bytes: -1,
            max_message_bytes: 1_048_588,
            index_interval_bytes: 4096,
            segment_index_bytes: 10_485_760,
            min_insync_replicas: None,
            message_timestamp_type: TimestampType::CreateTime,
            message_timestamp_after_max_ms: 3_600_000,
            message_timestamp_before_max_ms: i64::MAX,
            unclean_leader_election_enable: false,
        }
    }
}

impl TopicConfig {
    pub fn log_config(&self) -> super::log::log::LogConfig {
        super::log::log::LogConfig {
            segment_bytes: self.segment_bytes,
            segment_ms: self.segment_ms,
            index_interval_bytes: self.index_interval_bytes,
            segment_index_bytes: self.segment_index_bytes,
            retention_ms: self.retention_ms,
            retention_bytes: self.retention_bytes,
            max_message_bytes: self.max_message_bytes,
        }
    }
}

/// A topic to create.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicSpec {
    pub name: String,
    pub partitions: u32,
    #[serde(default = "one", rename = "replication.factor")]
    pub replication_factor: u32,
    #[serde(default)]
    pub config: TopicConfig,
}

fn one() -> u32 {
    1
}

impl TopicSpec {
    pub fn new(name: impl Into<String>, partitions: u32, replication_factor: u32) -> Self {
        Self { name: name.into(), partitions, replication_factor, config: TopicConfig::default() }
    }
}

/// Which partitioner a producer uses for records without an explicit partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Partitioner {
    /// Kafka's built-in behaviour since 3.3: murmur2 for a key; without one,
    /// stay on one partition for about `batch.size` bytes, then switch.
    #[default]
    #[serde(rename = "sticky")]
    Sticky,
    /// `org.apache.kafka.clients.producer.RoundRobinPartitioner`: every
    /// record to the next partition in turn, keys ignored, since Kafka asks
    /// a configured partitioner about every record.
    #[serde(rename = "round-robin")]
    RoundRobin,
}

/// A producer's settings (`ProducerConfig`), Kafka 4.0's defaults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProducerConfig {
    /// 0, 1 or -1 (all).
    #[serde(deserialize_with = "acks_from_json", serialize_with = "acks_to_json")]
    pub acks: i16,
    #[serde(rename = "enable.idempotence")]
    pub enable_idempotence: bool,
    #[serde(rename = "linger.ms")]
    pub linger_ms: u64,
    #[serde(rename = "batch.size")]
    pub batch_size: u32,
    #[serde(rename = "request.timeout.ms")]
    pub request_timeout_ms: u64,
    #[serde(rename = "delivery.timeout.ms")]
    pub delivery_timeout_ms: u64,
    #[serde(rename = "retry.backoff.ms")]
    pub retry_backoff_ms: u64,
    /// `retry.backoff.max.ms` (KIP-580): the retry backoff doubles from
    /// `retry.backoff.ms` up to this.
    #[serde(rename = "retry.backoff.max.ms")]
    pub retry_backoff_max_ms: u64,
    #[serde(rename = "max.in.flight.requests.per.connection")]
    pub max_in_flight_requests_per_connection: u32,
    pub partitioner: Partitioner,
    /// `max.block.ms`: how long send() waits for its topic's metadata
    /// before it fails with a TimeoutException.
    #[serde(rename = "max.block.ms")]
    pub max_block_ms: u64,
}

impl Default for ProducerConfig {
    fn default() -> Self {
        Self {
            acks: -1,
            enable_idempotence: true,
            linger_ms: 5,
            batch_size: 16_384,
            request_timeout_ms: 30_000,
            delivery_timeout_ms: 120_000,
            retry_backoff_ms: 100,
            retry_backoff_max_ms: 1_000,
            max_in_flight_requests_per_connection: 5,
            partitioner: Partitioner::Sticky,
            max_block_ms: 60_000,
        }
    }
}

/// A consumer's settings (`ConsumerConfig`), Kafka's defaults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConsumerConfig {
    #[serde(rename = "fetch.min.bytes")]
    pub fetch_min_bytes: i32,
    #[serde(rename = "fetch.max.wait.ms")]
    pub fetch_max_wait_ms: i32,
    #[serde(rename = "max.partition.fetch.bytes")]
    pub max_partition_fetch_bytes: i32,
    #[serde(rename = "fetch.max.bytes")]
    pub fetch_max_bytes: i32,
    /// `request.timeout.ms`: a fetch with no answer after this long is
    /// given up, and the connection with it, as NetworkClient does.
    #[serde(rename = "request.timeout.ms")]
    pub request_timeout_ms: u64,
}

impl Default for ConsumerConfig {
    fn default() -> Self {
        Self {
            fetch_min_bytes: 1,
            fetch_max_wait_ms: 500,
            max_partition_fetch_bytes: 1_048_576,
            fetch_max_bytes: 52_428_800,
            request_timeout_ms: 30_000,
        }
    }
}

/// Reads acks as Kafka's configs write it: "all", "-1", "1", "0", or a number.
fn acks_from_json<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i16, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Acks {
        Number(i16),
        Text(String),
    }
    match Acks::deserialize(d)? {
        Acks::Number(n) => Ok(n),
        Acks::Text(t) => parse_acks(&t).map_err(serde::de::Error::custom),
    }
}

fn acks_to_json<S: serde::Serializer>(acks: &i16, s: S) -> Result<S::Ok, S::Error> {
    if *acks == -1 {
        s.serialize_str("all")
    } else {
        s.serialize_i16(*acks)
    }
}

/// Parses an acks setting; anything but 0, 1 and all is Kafka's
/// INVALID_REQUIRED_ACKS.
pub fn parse_acks(text: &str) -> Result<i16, String> {
    match text.trim() {
        "all" | "-1" => Ok(-1),
        "1" => Ok(1),
        "0" => Ok(0),
        other => Err(format!("acks must be all, -1, 1 or 0, not \"{other}\"")),
    }
}
