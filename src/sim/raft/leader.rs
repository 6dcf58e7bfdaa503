//! The leader's bookkeeping (raft/.../LeaderState.java): how far each voter
//! has replicated, the high watermark that follows from it, the
//! check-quorum timer, and the fetches held in purgatory (long polls).

use super::collections::{sort_by, BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// What the leader knows of one voter (itself included).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplicaProgress {
    pub id: u32,
    /// The voter's log end offset as its last valid fetch reported it (the
    /// leader's own log end for the leader); None before the first fetch in
    /// this epoch.
    pub end_offset: Option<i64>,
    pub last_fetch_ms: Option<u64>,
    /// The last time the voter had fetched everything the leader had.
    pub last_caught_up_ms: Option<u64>,
    /// True once the voter answered BeginQuorumEpoch or fetched in this
    /// epoch.
    pub acknowledged: bool,
}

/// A fetch the leader holds because it had nothing new to return
/// (`fetchPurgatory`). It completes when the log grows past its offset, when
/// the high watermark moves past the one the follower knows, or when its
/// wait ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldFetch {
    pub correlation_id: u64,
    pub epoch: i32,
    pub fetch_offset: i64,
    pub last_fetched_epoch: i32,
    /// The high watermark the follower reported.
    pub high_watermark: Option<i64>,
    pub deadline_ms: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderState {
    pub epoch: i32,
    /// The log end when this node became leader, where its LeaderChange
    /// entry went. Nothing commits until the high watermark passes it.
    pub epoch_start_offset: i64,
    pub high_watermark: Option<i64>,
    pub granting_voters: Vec<u32>,
    local_id: u32,
    replicas: BTreeMap<u32, ReplicaProgress>,
    /// Voters that fetched since the check-quorum timer was last reset.
    fetched_voters: BTreeSet<u32>,
    check_quorum_timeout_ms: u64,
    /// None for a single-voter quorum, which can never lose its majority.
    pub check_quorum_deadline_ms: Option<u64>,
    begin_quorum_epoch_period_ms: u64,
    pub begin_quorum_epoch_deadline_ms: u64,
    pub held_fetches: BTreeMap<u32, HeldFetch>,
    pub resign_requested: bool,
}

impl LeaderState {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        local_id: u32,
        epoch: i32,
        epoch_start_offset: i64,
        voters: &[u32],
        granting_voters: Vec<u32>,
        now_ms: u64,
        check_quorum_timeout_ms: u64,
        begin_quorum_epoch_period_ms: u64,
    ) -> Self {
        let replicas = voters
            .iter()
            .map(|id| {
                let progress = ReplicaProgress {
                    id: *id,
                    end_offset: None,
                    last_fetch_ms: None,
                    last_caught_up_ms: None,
                    acknowledged: *id == local_id,
                };
                (*id, progress)
            })
            .collect();
        let check_quorum_deadline_ms = if voters.len() > 1 {
            Some(now_ms.saturating_add(check_quorum_timeout_ms))
        } else {
            None
        };
        LeaderState {
            epoch,
            epoch_start_offset,
            high_watermark: None,
            granting_voters,
            local_id,
            replicas,
            fetched_voters: BTreeSet::new(),
            check_quorum_timeout_ms,
            check_quorum_deadline_ms,
            begin_quorum_epoch_period_ms,
            // The first BeginQuorumEpoch goes out at once.
            begin_quorum_epoch_deadline_ms: now_ms,
            held_fetches: BTreeMap::new(),
            resign_requested: false,
        }
    }

    pub fn replicas(&self) -> Vec<ReplicaProgress> {
        self.replicas.values().cloned().collect()
    }

    pub fn check_quorum_expired(&self, now_ms: u64) -> bool {
        self.check_quorum_deadline_ms
            .is_some_and(|deadline| now_ms >= deadline)
    }

    pub fn begin_quorum_epoch_sent(&mut self, now_ms: u64) {
        self.begin_quorum_epoch_deadline_ms =
            now_ms.saturating_add(self.begin_quorum_epoch_period_ms);
    }

    pub fn acknowledge(&mut self, voter: u32) {
        if let Some(progress) = self.replicas.get_mut(&voter) {
            progress.acknowledged = true;
        }
    }

    /// The leader's own log grew. Returns the new high watermark if it moved.
    pub fn update_local(&mut self, log_end_offset: i64) -> Option<i64> {
        if let Some(progress) = self.replicas.get_mut(&self.local_id) {
            progress.end_offset = Some(log_end_offset);
        }
        self.maybe_advance_high_watermark()
    }

    /// A voter fetched at `fetch_offset`, which proves it holds everything
    /// below. Returns the new high watermark if it moved.
    pub fn update_replica(
        &mut self,
        voter: u32,
        now_ms: u64,
        fetch_offset: i64,
        leader_end_offset: i64,
    ) -> Option<i64> {
        if voter == self.local_id {
            return None;
        }
        let progress = self.replicas.get_mut(&voter)?;
        if fetch_offset >= leader_end_offset {
            progress.last_caught_up_ms = Some(now_ms);
        }
        progress.last_fetch_ms = Some(now_ms);
        progress.end_offset = Some(fetch_offset);
        progress.acknowledged = true;
        self.update_check_quorum(voter, now_ms);
        self.maybe_advance_high_watermark()
    }

    /// Resets the check-quorum timer once a majority (the leader counting
    /// itself) has fetched since the last reset.
    fn update_check_quorum(&mut self, voter: u32, now_ms: u64) {
        self.fetched_voters.insert(voter);
        let majority_without_leader = self.replicas.len() / 2;
        if self.fetched_voters.len() >= majority_without_leader {
            self.fetched_voters.clear();
            if self.check_quorum_deadline_ms.is_some() {
                self.check_quorum_deadline_ms =
                    Some(now_ms.saturating_add(self.check_quorum_timeout_ms));
            }
        }
    }

    /// The high watermark is the largest offset that a majority of voters
    /// hold: with the voters' end offsets sorted in descending order, the
    /// one at index `voters / 2`. It may only move forward, and only past the
    /// epoch start offset: a leader commits nothing from earlier epochs
    /// until an entry of its own epoch is on a majority (Raft §5.4.2).
    fn maybe_advance_high_watermark(&mut self) -> Option<i64> {
        let mut offsets: Vec<Option<i64>> = self
            .replicas
            .values()
            .map(|progress| progress.end_offset)
            .collect();
        // Descending, with voters that have not fetched yet last.
        sort_by(&mut offsets, |a, b| b.cmp(a));
        let candidate = offsets.get(self.replicas.len() / 2).copied().flatten()?;
        if candidate <= self.epoch_start_offset {
            return None;
        }
        if self
            .high_watermark
            .is_some_and(|current| candidate <= current)
        {
            return None;
        }
        self.high_watermark = Some(candidate);
        Some(candidate)
    }

    /// The other voters, the most caught up first (ties by id), which is the
    /// order a resigning leader recommends them in.
    pub fn preferred_successors(&self) -> Vec<u32> {
        let mut others: Vec<&ReplicaProgress> = self
            .replicas
            .values()
            .filter(|progress| progress.id != self.local_id)
            .collect();
        sort_by(&mut others, |a, b| b.end_offset.cmp(&a.end_offset).then(a.id.cmp(&b.id)));
        others.iter().map(|progress| progress.id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leader_of(voters: &[u32], epoch_start_offset: i64) -> LeaderState {
        LeaderState::new(1, 2, epoch_start_offset, voters, vec![1], 0, 3_000, 1_000)
    }

    #[test]
    fn high_watermark_needs_a_majority_past_the_epoch_start() {
        let mut leader = leader_of(&[1, 2, 3], 4);
        // The leader wrote its LeaderChange entry at offset 4.
        assert_eq!(
            leader.update_local(5),
            None,
            "one voter of three is no majority"
        );
        assert_eq!(
            leader.update_replica(2, 10, 4, 5),
            None,
            "offset 4 is the epoch start: nothing of this epoch yet"
        );
        assert_eq!(leader.update_replica(2, 20, 5, 5), Some(5));
        assert_eq!(
            leader.update_local(9),
            None,
            "the log grew but no follower has it"
        );
        assert_eq!(leader.update_replica(3, 30, 7, 9), Some(7));
        assert_eq!(
            leader.update_replica(3, 40, 6, 9),
            None,
            "the high watermark never moves back"
        );
        assert_eq!(leader.high_watermark, Some(7));
    }

    #[test]
    fn five_voters_need_three() {
        let mut leader = leader_of(&[1, 2, 3, 4, 5], 0);
        leader.update_local(10);
        assert_eq!(leader.update_replica(2, 1, 10, 10), None);
        assert_eq!(leader.update_replica(3, 1, 8, 10), Some(8));
        assert_eq!(leader.update_replica(4, 1, 9, 10), Some(9));
        assert_eq!(leader.preferred_successors(), vec![2, 4, 3, 5]);
    }

    #[test]
    fn check_quorum_resets_only_on_a_majority_of_fetches() {
        let mut leader = leader_of(&[1, 2, 3, 4, 5], 0);
        leader.update_local(1);
        assert_eq!(leader.check_quorum_deadline_ms, Some(3_000));
        leader.update_replica(2, 1_000, 1, 1);
        assert_eq!(
            leader.check_quorum_deadline_ms,
            Some(3_000),
            "the leader and one follower are two of five"
        );
        leader.update_replica(2, 1_500, 1, 1);
        assert_eq!(
            leader.check_quorum_deadline_ms,
            Some(3_000),
            "the same follower twice still counts once"
        );
        leader.update_replica(3, 2_000, 1, 1);
        assert_eq!(leader.check_quorum_deadline_ms, Some(5_000));
        assert!(!leader.check_quorum_expired(4_999));
        assert!(leader.check_quorum_expired(5_000));
        let alone = leader_of(&[1], 0);
        assert!(!alone.check_quorum_expired(u64::MAX));
    }
}
