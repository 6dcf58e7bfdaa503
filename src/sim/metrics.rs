//! Kafka's operational metrics over time, sampled by the core once a
//! simulated second.
//!
//! Operators watch a cluster through its JMX metrics; the page charts the
//! same ones under the same names. The brokers and producers keep running
//! counters ([`BrokerMeters`], a producer's request latencies), and at every
//! whole second of simulated time the simulation turns them and the
//! cluster's gauges into one [`Sample`]: the rates over the second just
//! gone, the gauges as they stand at its end. Sampling reads state and
//! changes nothing the run depends on, so it leaves the trace (and its
//! golden hash) as it was, and the same seed gives the same samples.

use super::collections::BTreeMap;

/// How often the simulation samples, in simulated ms: Kafka's meters are
/// per-second rates.
pub const SAMPLE_INTERVAL_MS: u64 = 1_000;

/// Running counts a broker keeps for its rate metrics. They survive a
/// crash, unlike a real broker's JMX counters: a chart shows the rate over
/// each second, and a counter that started over would make the second of
/// the restart look like a burst or a gap.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BrokerMeters {
    /// Records appended as leader from producers, by topic
    /// (BrokerTopicMetrics MessagesInPerSec); a follower's copy is not
    /// counted, as in Kafka.
    pub messages_in: BTreeMap<String, u64>,
    /// Their bytes, by topic (BytesInPerSec).
    pub bytes_in: BTreeMap<String, u64>,
    /// ISR changes the controller accepted for partitions this broker
    /// leads (ReplicaManager IsrShrinksPerSec, IsrExpandsPerSec): Kafka
    /// marks them when the committed change comes back, not when the
    /// leader proposes it.
    pub isr_shrinks: u64,
    pub isr_expands: u64,
    /// Simulated ms the network threads and the I/O threads spent working,
    /// summed over the threads, counted when a piece of work starts (it
    /// takes network_thread_ms or io_thread_ms): what the idle percentages
    /// come from.
    pub network_busy_ms: u64,
    pub io_busy_ms: u64,
}

impl BrokerMeters {
    pub(crate) fn add_messages_in(&mut self, topic: &str, records: u64, bytes: u64) {
        match self.messages_in.get_mut(topic) {
            Some(n) => *n += records,
            None => {
                self.messages_in.insert(topic.to_string(), records);
            }
        }
        match self.bytes_in.get_mut(topic) {
            Some(n) => *n += bytes,
            None => {
                self.bytes_in.insert(topic.to_string(), bytes);
            }
        }
    }
}

/// One broker in one sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokerSample {
    pub broker: u32,
    /// Whether the broker's process ran at the end of the second; a
    /// stopped broker reports nothing else (its gauges are zero).
    pub up: bool,
    /// RequestChannel RequestQueueSize: requests read off the sockets that
    /// wait for an I/O thread.
    pub request_queue_size: u32,
    /// SocketServer NetworkProcessorAvgIdlePercent, in tenths of a percent
    /// (1000 is all idle), over the second.
    pub network_idle_permille: u16,
    /// KafkaRequestHandlerPool RequestHandlerAvgIdlePercent, likewise.
    pub request_handler_idle_permille: u16,
    /// DelayedOperationPurgatory PurgatorySize for Produce and for Fetch:
    /// operations waiting there now.
    pub produce_purgatory: u32,
    pub fetch_purgatory: u32,
    /// ReplicaManager UnderReplicatedPartitions: partitions this broker
    /// leads whose ISR is smaller than their replica set.
    pub under_replicated: u32,
    /// ISR shrinks and expands accepted over the second.
    pub isr_shrinks: u32,
    pub isr_expands: u32,
}

/// One topic's produce throughput over one second, summed over its
/// partitions' leaders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopicSample {
    pub topic: String,
    pub messages_in: u32,
    pub bytes_in: u64,
}

/// One producer's produce request latency over one second: from a Produce
/// request's send to its response (the producer's request-latency), as the
/// 50th and 99th percentiles of the requests answered in that second.
/// acks=0 requests get no response and so no latency.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatencySample {
    pub client: u32,
    pub acks: i16,
    pub requests: u32,
    pub p50_ms: u32,
    pub p99_ms: u32,
}

/// The cluster's metrics for the second that ends at `at_ms`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sample {
    pub at_ms: u64,
    pub brokers: Vec<BrokerSample>,
    pub topics: Vec<TopicSample>,
    /// Producers that had a produce request answered in the second.
    pub latency: Vec<LatencySample>,
    /// KafkaController OfflinePartitionsCount: partitions without a leader
    /// in the committed metadata.
    pub offline_partitions: u32,
    /// KafkaController ActiveControllerCount, per controller: the ids that
    /// report 1. More than one is a split brain; none, an election.
    pub active_controllers: Vec<u32>,
}

impl Sample {
    pub fn broker(&self, broker: u32) -> Option<&BrokerSample> {
        self.brokers.iter().find(|b| b.broker == broker)
    }

    pub fn topic(&self, topic: &str) -> Option<&TopicSample> {
        self.topics.iter().find(|t| t.topic == topic)
    }
}

/// The rise of a running counter over a second.
pub(crate) fn delta(now: u64, before: u64) -> u32 {
    now.saturating_sub(before).min(u32::MAX as u64) as u32
}

/// Idle time as tenths of a percent of `threads` threads over `window_ms`,
/// given the busy ms they added in it.
pub(crate) fn idle_permille(busy_ms: u64, threads: u32, window_ms: u64) -> u16 {
    let capacity = threads as u64 * window_ms;
    if capacity == 0 {
        return 1000;
    }
    (1000 - (busy_ms.min(capacity) * 1000 / capacity)) as u16
}

/// The p-th percentile (0 to 100) of some latencies, by the nearest-rank
/// method: the smallest value at least p% of them do not exceed.
pub(crate) fn percentile(sorted: &[u32], p: u32) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (sorted.len() * p as usize).div_ceil(100).max(1);
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_take_the_nearest_rank() {
        let v: Vec<u32> = (1..=100).collect();
        assert_eq!(percentile(&v, 50), 50);
        assert_eq!(percentile(&v, 99), 99);
        assert_eq!(percentile(&[7], 99), 7);
        assert_eq!(percentile(&[3, 9], 50), 3);
        assert_eq!(percentile(&[3, 9], 99), 9);
        assert_eq!(percentile(&[], 50), 0);
    }

    #[test]
    fn idle_is_what_the_threads_did_not_work() {
        assert_eq!(idle_permille(0, 3, 1000), 1000);
        assert_eq!(idle_permille(300, 3, 1000), 900);
        assert_eq!(idle_permille(5000, 3, 1000), 0, "never below zero");
        assert_eq!(idle_permille(10, 0, 1000), 1000);
    }
}
