//! Replica fetchers (Kafka's ReplicaFetcherThread): a follower pulls from
//! each leader with ordinary Fetch requests that travel the leader's whole
//! request path. There is no separate acknowledgement: the next fetch offset
//! tells the leader how far the follower got.

use super::super::ids::{NodeId, TopicPartition};
use super::Ctx;
use super::super::protocol::{
    ErrorCode, FetchPartition, FetchRequest, Message, Request, RequestBody, Response, ResponseBody,
};
use super::super::record::batch;
use super::super::trace::{Direction, Stage, TraceKind};
use super::{Broker, BrokerTimer};
use crate::sim::collections::BTreeSet;

/// `replica.socket.timeout.ms`: how long a follower waits for a fetch's
/// answer before it gives the request up.
pub const REPLICA_SOCKET_TIMEOUT_MS: u64 = 30_000;

/// One fetcher thread: all partitions this broker follows from one leader.
#[derive(Clone, Debug, Default)]
pub struct ReplicaFetcher {
    pub partitions: BTreeSet<TopicPartition>,
    /// The correlation id of the fetch waiting for its answer.
    pub in_flight: Option<i32>,
    pub scheduled: bool,
}

impl Broker {
    /// Starts a fetcher for every leader this broker follows a partition of.
    pub(super) fn start_fetchers(&mut self, ctx: &mut Ctx) {
        let me = self.id;
        for (tp, p) in &self.partitions {
            if let Some(leader) = p.leader.filter(|l| *l != me) {
                self.fetchers.entry(leader).or_default().partitions.insert(tp.clone());
            }
        }
        let leaders: Vec<u32> = self.fetchers.keys().copied().collect();
        for leader in leaders {
            self.schedule_fetch(ctx, leader, 0);
        }
    }

    pub(super) fn schedule_fetch(&mut self, ctx: &mut Ctx, leader: u32, after_ms: u64) {
        let f = self.fetchers.entry(leader).or_default();
        if !f.scheduled && f.in_flight.is_none() {
            f.scheduled = true;
            ctx.timer(after_ms, BrokerTimer::ReplicaFetch { leader });
        }
    }

    /// Sends one Fetch for every partition followed from `leader`, each from
    /// the follower's own log end offset.
    pub(super) fn send_fetch(&mut self, ctx: &mut Ctx, leader: u32) {
        let me = self.id;
        let Some(f) = self.fetchers.get_mut(&leader) else {
            return;
        };
        f.scheduled = false;
        if f.in_flight.is_some() || f.partitions.is_empty() {
            return;
        }
        let partitions: Vec<FetchPartition> = f
            .partitions
            .iter()
            .filter_map(|tp| {
                let p = self.partitions.get(tp)?;
                Some(FetchPartition {
                    partition: tp.clone(),
                    fetch_offset: p.log.log_end_offset(),
                    last_fetched_epoch: p.log.latest_epoch(),
                    partition_max_bytes: self.config.replica_fetch_max_bytes,
                })
            })
            .collect();
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id += 1;
        f.in_flight = Some(correlation_id);
        let request = Request {
            id: super::super::ids::RequestId { client: NodeId::Broker(me), correlation_id },
            body: RequestBody::Fetch(FetchRequest {
                replica_id: Some(me),
                max_wait_ms: self.config.replica_fetch_wait_max_ms,
                min_bytes: self.config.replica_fetch_min_bytes,
                max_bytes: self.config.replica_fetch_max_bytes,
                partitions,
            }),
        };
        ctx.send(NodeId::Broker(leader), Message::Request(request));
        // Only where the network can fail (a controller quorum): a static
        // cluster's runs stay event for event what they were.
        if self.control.is_some() {
            ctx.timer(
                REPLICA_SOCKET_TIMEOUT_MS,
                BrokerTimer::ReplicaFetchTimeout { leader, correlation_id },
            );
        }
    }

    /// A fetch lost on the network (a partition sends no reset): the
    /// fetcher stops waiting and fetches again after its backoff.
    pub(super) fn replica_fetch_timeout(&mut self, ctx: &mut Ctx, leader: u32, correlation_id: i32) {
        let Some(f) = self.fetchers.get_mut(&leader) else { return };
        if f.in_flight == Some(correlation_id) {
            f.in_flight = None;
            let backoff = self.config.replica_fetch_backoff_ms;
            self.schedule_fetch(ctx, leader, backoff);
        }
    }

    /// The leader's answer: truncate where the logs diverged, append what
    /// arrived, follow the leader's HW, and fetch again.
    pub(super) fn on_fetcher_response(&mut self, ctx: &mut Ctx, from: NodeId, response: Response) {
        let NodeId::Broker(leader) = from else {
            return;
        };
        let me = self.id;
        let Some(f) = self.fetchers.get_mut(&leader) else {
            return;
        };
        if f.in_flight != Some(response.id.correlation_id) {
            return;
        }
        f.in_flight = None;
        ctx.trace(|| TraceKind::Hop {
            request: response.id,
            api: response.api_key,
            direction: Direction::Response,
            from: Stage::Wire,
            to: Stage::ReplicaFetcher(leader),
        });
        let ResponseBody::Fetch { partitions, .. } = response.body else {
            return;
        };
        let mut backoff = false;
        let now = ctx.now_ms as i64;
        for pr in partitions {
            let Some(p) = self.partitions.get_mut(&pr.partition) else {
                continue;
            };
            // The partition moved to another leader (or to this broker)
            // while the fetch was out.
            if p.leader != Some(leader) {
                continue;
            }
            if pr.error != ErrorCode::None {
                backoff = true;
                continue;
            }
            if let Some(diverging) = pr.diverging_epoch {
                let to = truncation_offset(&p.log, diverging);
                if p.log.truncate_to(to, now).is_ok() {
                    p.producer_state.truncate_to(to);
                    p.high_watermark = p.high_watermark.min(p.log.log_end_offset());
                    ctx.trace(|| TraceKind::FollowerTruncated {
                        partition: pr.partition.clone(),
                        replica: me,
                        to_offset: p.log.log_end_offset(),
                        epoch: diverging.epoch,
                    });
                }
                continue;
            }
            // The whole batches of the answer: a fetch may end in part of a
            // batch, which the next fetch asks for again.
            let mut batches = batch::iter_batches(&pr.records);
            let mut whole = 0usize;
            while let Some(Ok(_)) = batches.next() {
                whole = batches.position() as usize;
            }
            let chunk = &pr.records[..whole];
            match p.log.append_as_follower(chunk, now) {
                Ok(Some(info)) => {
                    // UnifiedLog.append updates the producer state for
                    // every append, a follower's too (only the duplicate
                    // lookup is for client appends), so a new leader
                    // recognises a retry of a batch it replicated.
                    for (_, h) in batch::iter_batches(chunk).flatten() {
                        if h.last_offset() <= info.last_offset {
                            p.producer_state.record_appended(&h, h.base_offset, h.last_offset());
                        }
                    }
                    // A follower rolls on its own, by the same rules as
                    // the leader, once for the chunk, and says so as the
                    // leader does.
                    if let (true, Some(reason)) = (info.rolled, info.roll_reason) {
                        ctx.trace(|| TraceKind::SegmentRolled {
                            partition: pr.partition.clone(),
                            replica: me,
                            base_offset: info.segment_base_offset,
                            reason,
                        });
                    }
                    ctx.trace(|| TraceKind::Appended {
                        request: response.id,
                        partition: pr.partition.clone(),
                        replica: me,
                        base_offset: info.first_offset,
                        last_offset: info.last_offset,
                        log_end_offset: p.log.log_end_offset(),
                        segment: info.segment_base_offset,
                        position: info.position,
                    })
                }
                Ok(None) => {}
                Err(_) => backoff = true,
            }
            // Follower HW = min(leader's HW, own LEO).
            let hw = pr.high_watermark.min(p.log.log_end_offset());
            if hw > p.high_watermark {
                p.high_watermark = hw;
                ctx.trace(|| TraceKind::FollowerHighWatermark {
                    partition: pr.partition.clone(),
                    replica: me,
                    high_watermark: hw,
                });
            }
        }
        let delay = if backoff { self.config.replica_fetch_backoff_ms } else { 0 };
        self.schedule_fetch(ctx, leader, delay);
    }
}

/// Where a follower truncates on a diverging epoch, as
/// AbstractFetcherThread.getOffsetTruncationState decides it from the
/// follower's own epoch cache: where its copy of the leader's epoch ends
/// (and no further than the leader's end of it); if it lacks that epoch,
/// where its own largest epoch below it ends, after which the next fetch
/// asks again, so two replicas that each hold an epoch the other lacks
/// converge; when its cache has no answer for that epoch (every epoch it
/// holds is older), the leader's end offset. Never beyond its own log end
/// offset.
pub(crate) fn truncation_offset(log: &super::super::log::log::Log, diverging: super::super::protocol::EpochEndOffset) -> i64 {
    let leo = log.log_end_offset();
    match log.end_offset_for_epoch(diverging.epoch) {
        None => diverging.end_offset.min(leo),
        Some((mine, end)) if mine != diverging.epoch => end.min(leo),
        Some((_, end)) => end.min(diverging.end_offset).min(leo),
    }
}

#[cfg(test)]
mod truncation_tests {
    use super::truncation_offset;
    use crate::sim::log::log::{Log, LogConfig};
    use crate::sim::log::testutil::batch;
    use crate::sim::protocol::EpochEndOffset;

    /// A log of one-record batches, the i-th in epoch `epochs[i]`.
    fn log_of(epochs: &[i32]) -> Log {
        let mut log = Log::new(LogConfig::default(), 0).unwrap();
        for (offset, epoch) in epochs.iter().enumerate() {
            log.append_as_follower(&batch(offset as i64, 1, 100, 0, *epoch), 0).unwrap();
        }
        log
    }

    #[test]
    fn a_follower_lacking_the_leaders_epoch_cuts_to_the_end_of_its_own_and_asks_again() {
        // The leader holds epochs 0 (offsets 0 to 2) and 2 (from 3); the
        // follower holds 0 (offsets 0 and 1) and 1 (offsets 2 and 3), which
        // the leader never had. Asked about epoch 1, the leader answers
        // "epoch 0 ends at 3". Taking that alone keeps the follower's
        // offset 2, of epoch 1, where the leader has one of epoch 0: the
        // logs would differ below both ends. The follower's own epoch 0 ends
        // at 2, which is where it truncates.
        let follower = log_of(&[0, 0, 1, 1]);
        let leader = log_of(&[0, 0, 0, 2]);
        let answer = leader.end_offset_for_epoch(1).map(|(epoch, end_offset)| EpochEndOffset { epoch, end_offset }).unwrap();
        assert_eq!((answer.epoch, answer.end_offset), (0, 3));
        assert_eq!(truncation_offset(&follower, answer), 2);
        // A follower whose epochs are all older than the leader's answer has
        // no answer of its own: the leader's end offset; and never beyond its
        // own log end.
        let older = log_of(&[0, 0]);
        assert_eq!(truncation_offset(&older, EpochEndOffset { epoch: 2, end_offset: 1 }), 1);
        let short = log_of(&[0]);
        assert_eq!(truncation_offset(&short, EpochEndOffset { epoch: 0, end_offset: 5 }), 1);
    }

    #[test]
    fn a_follower_without_the_leaders_epoch_truncates_to_its_floor_epochs_end() {
        // The leader answers with epoch 2, which this follower lacks (it has
        // 0 up to offset 2 and 3 from there): it truncates to where its own
        // epoch 0 ends and will ask again with epoch 0.
        let follower = log_of(&[0, 0, 3, 3]);
        assert_eq!(truncation_offset(&follower, EpochEndOffset { epoch: 2, end_offset: 3 }), 2);
    }
}
