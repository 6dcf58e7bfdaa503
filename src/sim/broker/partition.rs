//! One broker's replica of one partition (Kafka's `Partition` and `Replica`):
//! the log, the leader epoch, and on the leader the followers' state, the ISR
//! and the high watermark.

use super::super::config::TopicConfig;
use super::super::ids::TopicPartition;
use super::super::log::log::Log;
use super::producer_state::ProducerStateManager;
use crate::sim::collections::{sort_by_key, BTreeMap};

/// What the leader knows of one follower (Kafka's `Replica`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FollowerState {
    /// The follower's log end offset: its last fetch offset. Followers pull,
    /// so the fetch offset is the only acknowledgement there is.
    pub log_end_offset: i64,
    /// The last time this follower was caught up to the leader's LEO.
    pub last_caught_up_time_ms: u64,
    pub last_fetch_time_ms: u64,
    /// The leader's LEO at the follower's previous fetch.
    pub last_fetch_leader_log_end_offset: i64,
}

/// Why the ISR changed, for the trace and the "why?" answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IsrChange {
    Shrunk { removed: Vec<u32>, lag_ms: u64 },
    Expanded { added: u32, follower_leo: i64 },
}

#[derive(Clone, Debug)]
pub struct Partition {
    pub tp: TopicPartition,
    pub config: TopicConfig,
    /// The replica assignment, in Kafka's order: the preferred leader first.
    pub replicas: Vec<u32>,
    pub leader: Option<u32>,
    pub leader_epoch: i32,
    pub partition_epoch: i32,
    pub isr: Vec<u32>,
    /// The ISR this leader asked the controller for and awaits (KIP-497's
    /// PendingExpandIsr or PendingShrinkIsr); one change is in flight at a
    /// time. `isr` stays the committed one meanwhile, and the high
    /// watermark counts the larger of the two ([`Partition::maximal_isr`]):
    /// a replica being added already holds it back, one being removed still
    /// does. `min.insync.replicas` counts only the committed ISR.
    pub pending_isr: Option<Vec<u32>>,
    pub log: Log,
    pub high_watermark: i64,
    /// Filled on the leader only.
    pub followers: BTreeMap<u32, FollowerState>,
    pub producer_state: ProducerStateManager,
    /// The broker's default, used when the topic sets none.
    pub broker_min_insync_replicas: u32,
}

impl Partition {
    pub fn is_leader(&self, me: u32) -> bool {
        self.leader == Some(me)
    }

    /// `min.insync.replicas` in force: the topic's, else the broker's, and
    /// never more than the replication factor (Kafka caps it the same way).
    pub fn min_insync_replicas(&self) -> u32 {
        let configured = self.config.min_insync_replicas.unwrap_or(self.broker_min_insync_replicas);
        configured.min(self.replicas.len() as u32).max(1)
    }

    /// Makes this replica the leader at `epoch` (Partition.makeLeader): the
    /// new epoch starts at the current log end offset, and every follower
    /// starts with an unknown LEO and a fresh lag clock.
    pub fn become_leader(&mut self, me: u32, epoch: i32, isr: Vec<u32>, now_ms: u64) {
        self.leader = Some(me);
        self.leader_epoch = epoch;
        self.isr = isr;
        self.pending_isr = None;
        let leo = self.log.log_end_offset();
        // A leader records (epoch -> its LEO) so followers can find where
        // their logs diverge. Assigning an epoch the cache already has at a
        // later offset is refused by the cache, which is what Kafka does too.
        let _ = self.log.assign_epoch_start_offset(epoch, leo);
        self.followers = self
            .replicas
            .iter()
            .filter(|r| **r != me)
            .map(|r| {
                (
                    *r,
                    FollowerState {
                        log_end_offset: -1,
                        last_caught_up_time_ms: now_ms,
                        last_fetch_time_ms: now_ms,
                        last_fetch_leader_log_end_offset: -1,
                    },
                )
            })
            .collect();
    }

    pub fn become_follower(&mut self, leader: Option<u32>, epoch: i32, isr: Vec<u32>) {
        self.leader = leader;
        self.leader_epoch = epoch;
        self.isr = isr;
        self.pending_isr = None;
        self.followers.clear();
    }

    /// Records a follower's fetch (Replica.updateFetchStateOrThrow): the
    /// follower is caught up if it fetched from the leader's LEO, or from the
    /// LEO the leader had at the follower's previous fetch.
    pub fn update_follower_fetch_state(&mut self, follower: u32, fetch_offset: i64, now_ms: u64) {
        let leader_leo = self.log.log_end_offset();
        if let Some(state) = self.followers.get_mut(&follower) {
            if fetch_offset >= leader_leo {
                state.last_caught_up_time_ms = state.last_caught_up_time_ms.max(now_ms);
            } else if fetch_offset >= state.last_fetch_leader_log_end_offset {
                state.last_caught_up_time_ms = state.last_caught_up_time_ms.max(state.last_fetch_time_ms);
            }
            state.log_end_offset = fetch_offset;
            state.last_fetch_leader_log_end_offset = leader_leo;
            state.last_fetch_time_ms = now_ms;
        }
    }

    /// Partition.maximalIsr: the committed ISR with a pending expansion's
    /// new member; a pending shrink's members stay until it is committed.
    pub fn maximal_isr(&self) -> &[u32] {
        match &self.pending_isr {
            Some(proposed) if proposed.len() > self.isr.len() => proposed,
            _ => &self.isr,
        }
    }

    /// Adds a follower back to the ISR once it has caught up to the high
    /// watermark and to the start of the current leader epoch
    /// (Partition.maybeExpandIsr / isFollowerInSync), if no other change is
    /// in flight and the follower may join (`eligible`: with a controller,
    /// isReplicaIsrEligible's unfenced and not in controlled shutdown).
    /// With `commit_first` the expansion only becomes pending
    /// (prepareIsrExpand); without a controller it applies at once.
    pub fn maybe_expand_isr(&mut self, follower: u32, eligible: bool, commit_first: bool) -> Option<IsrChange> {
        if self.pending_isr.is_some() || !eligible || self.isr.contains(&follower) {
            return None;
        }
        let state = self.followers.get(&follower)?;
        let epoch_start = self
            .log
            .epoch_cache()
            .entries()
            .iter()
            .find(|e| e.epoch == self.leader_epoch)
            .map(|e| e.start_offset)
            .unwrap_or(0);
        if state.log_end_offset >= self.high_watermark && state.log_end_offset >= epoch_start {
            let follower_leo = state.log_end_offset;
            let mut expanded = self.isr.clone();
            expanded.push(follower);
            sort_by_key(&mut expanded, |r| self.replicas.iter().position(|x| x == r));
            if commit_first {
                self.pending_isr = Some(expanded);
            } else {
                self.isr = expanded;
                self.partition_epoch += 1;
            }
            return Some(IsrChange::Expanded { added: follower, follower_leo });
        }
        None
    }

    /// Drops followers that have not been caught up within
    /// `replica.lag.time.max.ms` (Partition.maybeShrinkIsr): lag is time, not
    /// a count of messages. With `commit_first` (a controller quorum) the
    /// shrink only becomes pending: the ISR stays as committed until the
    /// controller's record arrives, and no second change starts meanwhile.
    pub fn maybe_shrink_isr(&mut self, me: u32, now_ms: u64, lag_time_max_ms: u64, commit_first: bool) -> Option<IsrChange> {
        if self.pending_isr.is_some() {
            return None;
        }
        let leader_leo = self.log.log_end_offset();
        let mut removed = Vec::new();
        let mut worst_lag = 0;
        for r in &self.isr {
            if *r == me {
                continue;
            }
            let Some(state) = self.followers.get(r) else {
                continue;
            };
            let lag = now_ms.saturating_sub(state.last_caught_up_time_ms);
            if state.log_end_offset != leader_leo && lag > lag_time_max_ms {
                removed.push(*r);
                worst_lag = worst_lag.max(lag);
            }
        }
        if removed.is_empty() {
            return None;
        }
        let shrunk: Vec<u32> = self.isr.iter().copied().filter(|r| !removed.contains(r)).collect();
        if commit_first {
            self.pending_isr = Some(shrunk);
        } else {
            self.isr = shrunk;
            self.partition_epoch += 1;
        }
        Some(IsrChange::Shrunk { removed, lag_ms: worst_lag })
    }

    /// The high watermark the leader may move to: the smallest LEO among the
    /// leader and the maximal ISR (a pending expansion's member included).
    /// It never goes down, and it stays put while the committed ISR is
    /// smaller than `min.insync.replicas` (Kafka 3.7 and later).
    pub fn candidate_high_watermark(&self, me: u32) -> i64 {
        if (self.isr.len() as u32) < self.min_insync_replicas() {
            return self.high_watermark;
        }
        let mut hw = self.log.log_end_offset();
        for r in self.maximal_isr() {
            if *r == me {
                continue;
            }
            match self.followers.get(r) {
                Some(state) => hw = hw.min(state.log_end_offset),
                None => return self.high_watermark,
            }
        }
        hw.max(self.high_watermark)
    }

    /// Moves the leader's high watermark; returns the old one when it moved.
    pub fn maybe_advance_high_watermark(&mut self, me: u32) -> Option<i64> {
        let candidate = self.candidate_high_watermark(me);
        if candidate > self.high_watermark {
            let old = self.high_watermark;
            self.high_watermark = candidate;
            Some(old)
        } else {
            None
        }
    }

    /// The follower's view of which ISR members hold the HW back, for "why?".
    pub fn laggards(&self, me: u32) -> Vec<(u32, i64)> {
        self.maximal_isr()
            .iter()
            .filter(|r| **r != me)
            .filter_map(|r| self.followers.get(r).map(|s| (*r, s.log_end_offset)))
            .filter(|(_, leo)| *leo < self.log.log_end_offset())
            .collect()
    }
}
