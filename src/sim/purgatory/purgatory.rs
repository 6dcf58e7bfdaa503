//! Kafka's `DelayedOperationPurgatory`, generic over the watch key and the operation.
//!
//! A request that cannot be answered yet (an acks=all produce waiting for the high watermark, a
//! fetch waiting for `minBytes`) becomes a delayed operation. The purgatory tries to complete it,
//! otherwise puts it on the watch list of each of its keys (one key per topic-partition), tries
//! once more, and otherwise schedules its timeout on the timing wheel. Events on a key (a leader
//! append, a high-watermark increase) call `check_and_complete` for that key; the timer
//! force-completes what times out.
//!
//! The simulation owns the operation logic: it passes `try_complete` closures that decide, from
//! the operation and whatever state they capture, whether it can complete now. A completed
//! operation is handed back by value; the caller then runs Kafka's `onComplete` (and, for a
//! timeout, `onExpiration`).
//!
//! Purging follows Kafka, lazily: when an operation completes, it leaves the watch list that
//! completed it (and the timer), but it stays, already completed, on the watch lists of its other
//! keys. Such an entry is dropped the next time its key is checked, or by the periodic purge,
//! which runs in `advance` once more than `purge_interval_requests` (1000 by default) operations
//! have been watched and finished since the last purge. Until then `watched(key)` and
//! `watched_total()` include those stale ids, exactly as Kafka's `PurgatorySize` gauge counts them.
//!
//! Kafka's locks and its 512 watcher shards exist only for concurrency; this single-threaded
//! simulation has neither. For the same reason an operation can never be completed "by another
//! thread" between two steps of `try_complete_else_watch`.

use super::timing_wheel::{AddResult, Timer, WheelView, DEFAULT_TICK_MS, DEFAULT_WHEEL_SIZE};
use serde::{Deserialize, Serialize};
use crate::sim::collections::{sort_by_key, BTreeMap};
use std::collections::VecDeque;

/// Kafka's default `*.purgatory.purge.interval.requests`.
pub const DEFAULT_PURGE_INTERVAL_REQUESTS: u64 = 1000;

/// How long Kafka's expiration reaper thread waits on the delay queue before it runs the purge
/// check anyway. The simulation may call [`Purgatory::advance`] on this cadence, in addition to
/// [`Purgatory::next_expiration`], to reproduce when Kafka purges.
pub const REAPER_POLL_TIMEOUT_MS: i64 = 200;

/// The settings of a purgatory and of its timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PurgatoryConfig {
    pub tick_ms: i64,
    pub wheel_size: u32,
    pub purge_interval_requests: u64,
}

impl Default for PurgatoryConfig {
    fn default() -> Self {
        PurgatoryConfig {
            tick_ms: DEFAULT_TICK_MS,
            wheel_size: DEFAULT_WHEEL_SIZE,
            purge_interval_requests: DEFAULT_PURGE_INTERVAL_REQUESTS,
        }
    }
}

/// The result of [`Purgatory::try_complete_else_watch`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WatchOutcome<Op> {
    /// The operation completed without waiting; the caller runs its completion now.
    ///
    /// `after_watch` is true when only the second try succeeded. The operation was then already
    /// on its keys' watch lists, and, as in Kafka, its id stays there until purged.
    CompletedImmediately { id: u64, op: Op, after_watch: bool },
    /// The operation is waiting in the purgatory under `id`.
    Watched { id: u64 },
}

/// A waiting operation and what the UI may want to know about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Pending<K, Op> {
    op: Op,
    keys: Vec<K>,
    created_ms: i64,
    deadline_ms: i64,
}

/// Kafka's `DelayedOperationPurgatory`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Purgatory<K: Ord + Clone, Op> {
    config: PurgatoryConfig,
    /// The timeout timer. Its task ids are operation ids; the operations live in `pending`.
    timer: Timer<()>,
    /// Operations not yet completed, by id. An id missing here but present on a watch list is a
    /// completed operation that has not been purged yet (Kafka's `isCompleted()`).
    pending: BTreeMap<u64, Pending<K, Op>>,
    /// Kafka's `Watchers`: per key, operation ids in the order they started watching.
    /// A key is removed when its list becomes empty, as in Kafka's `removeKeyIfEmpty`.
    watchers: BTreeMap<K, VecDeque<u64>>,
    /// Operations whose timeout was already due when handed to the timer. Kafka submits those to
    /// the timer's executor at once; here they expire at the next `advance`.
    expired_on_add: VecDeque<u64>,
    next_id: u64,
    /// Kafka's `estimatedTotalOperations`: operations put on watch lists since the last purge
    /// (reset to the number of timer tasks when a purge runs).
    estimated_total_operations: u64,
    /// The latest simulated time seen, to catch a caller whose clock goes backwards.
    now_ms: i64,
}

impl<K: Ord + Clone, Op> Purgatory<K, Op> {
    /// A purgatory with Kafka's defaults whose timer starts at `start_ms`.
    pub fn new(start_ms: i64) -> Self {
        Self::with_config(PurgatoryConfig::default(), start_ms)
    }

    /// A purgatory with chosen settings.
    ///
    /// # Panics
    /// If the timer settings are invalid (see [`Timer::with_config`]).
    pub fn with_config(config: PurgatoryConfig, start_ms: i64) -> Self {
        Purgatory {
            config,
            timer: Timer::with_config(config.tick_ms, config.wheel_size, start_ms),
            pending: BTreeMap::new(),
            watchers: BTreeMap::new(),
            expired_on_add: VecDeque::new(),
            next_id: 0,
            estimated_total_operations: 0,
            now_ms: start_ms,
        }
    }

    /// Kafka's `tryCompleteElseWatch`.
    ///
    /// The operation gets the next id. It is tried once; if it cannot complete, it is added to
    /// the watch list of every key and tried again. The second try is what makes the scheme
    /// safe: an event that arrived between the first try and the watch would otherwise be
    /// missed, whereas once the operation is on every list any later event will find it. Kafka
    /// prefers this to trying once per key because a try usually costs in proportion to the
    /// number of keys. If the operation still cannot complete, its timeout is scheduled at
    /// `now_ms + timeout_ms`.
    ///
    /// # Panics
    /// If `keys` is empty, as Kafka throws for an empty watch key list.
    pub fn try_complete_else_watch(
        &mut self,
        mut op: Op,
        keys: Vec<K>,
        timeout_ms: i64,
        now_ms: i64,
        mut try_complete: impl FnMut(&mut Op) -> bool,
    ) -> WatchOutcome<Op> {
        assert!(!keys.is_empty(), "the watch key list can't be empty");
        self.observe(now_ms);
        let id = self.next_id;
        self.next_id += 1;

        if try_complete(&mut op) {
            return WatchOutcome::CompletedImmediately {
                id,
                op,
                after_watch: false,
            };
        }

        // Kafka does not deduplicate keys either; callers pass one key per partition.
        for key in &keys {
            self.watchers.entry(key.clone()).or_default().push_back(id);
        }
        self.estimated_total_operations += 1;

        if try_complete(&mut op) {
            // The id stays on the watch lists; the lazy purge (or the next check of each key)
            // removes it, as in Kafka.
            return WatchOutcome::CompletedImmediately {
                id,
                op,
                after_watch: true,
            };
        }

        let deadline_ms = now_ms.saturating_add(timeout_ms);
        if let AddResult::AlreadyExpired(()) = self.timer.add(id, (), deadline_ms) {
            self.expired_on_add.push_back(id);
        }
        self.pending.insert(
            id,
            Pending {
                op,
                keys,
                created_ms: now_ms,
                deadline_ms,
            },
        );
        WatchOutcome::Watched { id }
    }

    /// Kafka's `checkAndComplete`: walks `key`'s watch list in order, drops entries of
    /// operations completed elsewhere, and tries the others. Those for which `try_complete`
    /// returns true complete: they leave this list and the timer (a completed operation cancels
    /// its timer task) and are returned in watch-list order. They stay on their other keys' lists
    /// until purged.
    pub fn check_and_complete(
        &mut self,
        key: &K,
        now_ms: i64,
        mut try_complete: impl FnMut(&mut Op) -> bool,
    ) -> Vec<(u64, Op)> {
        self.observe(now_ms);
        // The list is filtered where it lies, in watch order, instead of
        // being taken out of the map and put back under a cloned key.
        let Some(list) = self.watchers.get_mut(key) else {
            return Vec::new();
        };
        let (pending, timer, expired_on_add) = (&mut self.pending, &mut self.timer, &mut self.expired_on_add);
        let mut completed = Vec::new();
        list.retain(|&id| {
            let Some(entry) = pending.get_mut(&id) else {
                // Completed through another key or by its timeout: Kafka removes it here too.
                return false;
            };
            if !try_complete(&mut entry.op) {
                return true;
            }
            if let Some(entry) = pending.remove(&id) {
                timer.cancel(id);
                expired_on_add.retain(|&other| other != id);
                completed.push((id, entry.op));
            }
            false
        });
        if list.is_empty() {
            self.watchers.remove(key);
        }
        completed
    }

    /// Kafka's reaper step (`advanceClock`): expires every operation whose timeout is due at
    /// `now_ms` and returns them by deadline, then id. They are force-completed: the caller runs
    /// `onComplete` and `onExpiration` with whatever state holds now. They stay on their watch
    /// lists until purged.
    ///
    /// Afterwards, if more than `purge_interval_requests` operations were watched since the last
    /// purge and are no longer in the timer (Kafka's `estimatedTotalOperations - numDelayed`),
    /// every watch list is purged of completed operations.
    pub fn advance(&mut self, now_ms: i64) -> Vec<(u64, Op)> {
        self.observe(now_ms);
        let mut due: Vec<u64> = self.expired_on_add.drain(..).collect();
        due.extend(
            self.timer
                .advance_clock(now_ms)
                .into_iter()
                .map(|(id, ())| id),
        );
        let mut expired: Vec<(i64, u64, Op)> = due
            .into_iter()
            .filter_map(|id| {
                self.pending
                    .remove(&id)
                    .map(|entry| (entry.deadline_ms, id, entry.op))
            })
            .collect();
        sort_by_key(&mut expired, |&(deadline, id, _)| (deadline, id));

        let delayed = self.timer.size();
        if self.estimated_total_operations.saturating_sub(delayed)
            > self.config.purge_interval_requests
        {
            // Kafka resets the estimate to the operations still pending in the timer.
            self.estimated_total_operations = delayed;
            self.purge_completed();
        }

        expired.into_iter().map(|(_, id, op)| (id, op)).collect()
    }

    /// Drops completed operations from every watch list and removes lists left empty; returns how
    /// many entries went. Kafka runs this only from the reaper (see [`Purgatory::advance`]); it
    /// is public so that the UI can show a purge on demand.
    pub fn purge_completed(&mut self) -> u64 {
        let mut purged = 0u64;
        let pending = &self.pending;
        self.watchers.retain(|_, list| {
            let before = list.len();
            list.retain(|id| pending.contains_key(id));
            purged += (before - list.len()) as u64;
            !list.is_empty()
        });
        purged
    }

    /// When the next timeout (or timer bucket) is due; the simulation should call
    /// [`Purgatory::advance`] then. It may be at or before the current time when a timeout was
    /// already due on arrival. Like [`Timer::next_expiration`] it may be a bucket start with
    /// nothing left to expire.
    pub fn next_expiration(&self) -> Option<i64> {
        let on_add = self
            .expired_on_add
            .iter()
            .filter_map(|id| self.pending.get(id).map(|entry| entry.deadline_ms))
            .min();
        match (on_add, self.timer.next_expiration()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The raw watch list of `key`, in watch order. It can include ids of completed operations
    /// that have not been purged yet; [`Purgatory::is_pending`] tells them apart.
    pub fn watched(&self, key: &K) -> Vec<u64> {
        self.watchers
            .get(key)
            .map(|list| list.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The total length of all watch lists, stale entries included (Kafka's `PurgatorySize`).
    pub fn watched_total(&self) -> u64 {
        self.watchers.values().map(|list| list.len() as u64).sum()
    }

    /// The number of timeouts in the timer (Kafka's `NumDelayedOperations`).
    pub fn num_delayed(&self) -> u64 {
        self.timer.size()
    }

    /// Keys that have a watch list, in key order.
    pub fn keys(&self) -> impl Iterator<Item = &K> + '_ {
        self.watchers.keys()
    }

    /// Operations still waiting, in id order.
    pub fn operations(&self) -> impl Iterator<Item = (u64, &Op)> + '_ {
        self.pending.iter().map(|(&id, entry)| (id, &entry.op))
    }

    /// A waiting operation.
    pub fn get(&self, id: u64) -> Option<&Op> {
        self.pending.get(&id).map(|entry| &entry.op)
    }

    /// A waiting operation, to update state the simulation keeps in it.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut Op> {
        self.pending.get_mut(&id).map(|entry| &mut entry.op)
    }

    /// Whether `id` is still waiting (false once completed or expired).
    pub fn is_pending(&self, id: u64) -> bool {
        self.pending.contains_key(&id)
    }

    /// The keys a waiting operation watches.
    pub fn watch_keys(&self, id: u64) -> Option<&[K]> {
        self.pending.get(&id).map(|entry| entry.keys.as_slice())
    }

    /// When a waiting operation entered the purgatory.
    pub fn created_ms(&self, id: u64) -> Option<i64> {
        self.pending.get(&id).map(|entry| entry.created_ms)
    }

    /// When a waiting operation times out.
    pub fn deadline_ms(&self, id: u64) -> Option<i64> {
        self.pending.get(&id).map(|entry| entry.deadline_ms)
    }

    /// The number of waiting operations.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// Whether no operation is waiting.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Kafka's `estimatedTotalOperations`, which drives the purge.
    pub fn estimated_total_operations(&self) -> u64 {
        self.estimated_total_operations
    }

    /// The settings.
    pub fn config(&self) -> PurgatoryConfig {
        self.config
    }

    /// The timeout timer, read-only.
    pub fn timer(&self) -> &Timer<()> {
        &self.timer
    }

    /// A drawing of the timeout timer.
    pub fn timer_view(&self) -> WheelView {
        self.timer.view()
    }

    /// The latest simulated time passed in.
    pub fn now_ms(&self) -> i64 {
        self.now_ms
    }

    fn observe(&mut self, now_ms: i64) {
        debug_assert!(
            now_ms >= self.now_ms,
            "simulated time went backwards: {now_ms} < {}",
            self.now_ms
        );
        self.now_ms = self.now_ms.max(now_ms);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test operation: completes once the shared "high watermark" reaches `needed`.
    #[derive(Clone, Debug, PartialEq, Eq)]
    struct Op {
        name: &'static str,
        needed: i64,
        tries: u32,
    }

    fn op(name: &'static str, needed: i64) -> Op {
        Op {
            name,
            needed,
            tries: 0,
        }
    }

    fn reaches(hw: i64) -> impl FnMut(&mut Op) -> bool {
        move |o: &mut Op| {
            o.tries += 1;
            hw >= o.needed
        }
    }

    fn names(done: &[(u64, Op)]) -> Vec<(u64, &'static str)> {
        done.iter().map(|(id, o)| (*id, o.name)).collect()
    }

    fn eager() -> PurgatoryConfig {
        PurgatoryConfig {
            purge_interval_requests: 0,
            ..PurgatoryConfig::default()
        }
    }

    #[test]
    fn completes_immediately_without_watching() {
        let mut p: Purgatory<&str, Op> = Purgatory::new(0);
        let out = p.try_complete_else_watch(op("a", 5), vec!["t-0"], 30_000, 0, reaches(5));
        match out {
            WatchOutcome::CompletedImmediately {
                id,
                op,
                after_watch,
            } => {
                assert_eq!(id, 0);
                assert!(!after_watch);
                assert_eq!(op.tries, 1);
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(p.is_empty());
        assert_eq!(p.keys().count(), 0);
        assert_eq!(p.num_delayed(), 0);
        assert_eq!(p.estimated_total_operations(), 0);
    }

    #[test]
    fn second_try_completes_and_leaves_stale_entries() {
        let mut p: Purgatory<&str, Op> = Purgatory::new(0);
        let mut calls = 0;
        // Fails the first try, succeeds the second, as if the high watermark moved in between.
        let out = p.try_complete_else_watch(op("a", 1), vec!["t-0", "t-1"], 100, 0, |_| {
            calls += 1;
            calls == 2
        });
        assert!(matches!(
            out,
            WatchOutcome::CompletedImmediately {
                id: 0,
                after_watch: true,
                ..
            }
        ));
        assert_eq!(p.watched(&"t-0"), vec![0]);
        assert_eq!(p.watched(&"t-1"), vec![0]);
        assert!(!p.is_pending(0));
        assert_eq!(p.num_delayed(), 0);
        assert_eq!(p.estimated_total_operations(), 1);
        assert_eq!(p.purge_completed(), 2);
        assert_eq!(p.keys().count(), 0);
    }

    #[test]
    fn watches_several_keys_and_schedules_its_timeout() {
        let mut p: Purgatory<&str, Op> = Purgatory::new(0);
        let out = p.try_complete_else_watch(
            op("a", 10),
            vec!["t-0", "t-1", "t-2"],
            30_000,
            7,
            reaches(0),
        );
        assert_eq!(out, WatchOutcome::Watched { id: 0 });
        // Tried twice: before and after watching.
        assert_eq!(p.get(0).unwrap().tries, 2);
        assert_eq!(
            p.keys().copied().collect::<Vec<_>>(),
            vec!["t-0", "t-1", "t-2"]
        );
        for key in ["t-0", "t-1", "t-2"] {
            assert_eq!(p.watched(&key), vec![0]);
        }
        assert_eq!(p.deadline_ms(0), Some(30_007));
        assert_eq!(p.created_ms(0), Some(7));
        assert_eq!(p.watch_keys(0), Some(&["t-0", "t-1", "t-2"][..]));
        assert_eq!(p.num_delayed(), 1);
        assert!(p.timer().contains(0));
        assert_eq!(p.watched_total(), 3);
        assert_eq!(p.len(), 1);
    }

    #[test]
    fn check_on_one_key_completes_and_others_drop_it_lazily() {
        let mut p: Purgatory<&str, Op> = Purgatory::new(0);
        p.try_complete_else_watch(op("a", 10), vec!["t-0", "t-1"], 30_000, 0, reaches(0));
        p.try_complete_else_watch(op("b", 20), vec!["t-1"], 30_000, 0, reaches(0));

        // Nothing to do yet on t-0.
        assert!(p.check_and_complete(&"t-0", 5, reaches(9)).is_empty());
        let done = p.check_and_complete(&"t-0", 6, reaches(10));
        assert_eq!(names(&done), vec![(0, "a")]);
        // It left t-0 (whose list is now empty and therefore gone) and the timer...
        assert_eq!(p.watched(&"t-0"), Vec::<u64>::new());
        assert!(!p.keys().any(|k| *k == "t-0"));
        assert!(!p.timer().contains(0));
        assert_eq!(p.num_delayed(), 1);
        // ...but, as in Kafka, it lingers on t-1 until t-1 is checked or purged.
        assert_eq!(p.watched(&"t-1"), vec![0, 1]);
        assert!(!p.is_pending(0));
        assert!(p.check_and_complete(&"t-1", 7, reaches(10)).is_empty());
        assert_eq!(p.watched(&"t-1"), vec![1]);
    }

    #[test]
    fn lazy_purge_runs_after_the_interval() {
        let config = PurgatoryConfig {
            purge_interval_requests: 2,
            ..PurgatoryConfig::default()
        };
        let mut p: Purgatory<&str, Op> = Purgatory::with_config(config, 0);
        for name in ["a", "b", "c"] {
            p.try_complete_else_watch(op(name, 1), vec!["x", "y"], 1_000, 0, reaches(0));
        }
        // Complete all three through "x"; they stay on "y".
        assert_eq!(p.check_and_complete(&"x", 1, reaches(1)).len(), 3);
        assert_eq!(p.watched(&"y"), vec![0, 1, 2]);
        assert_eq!(p.estimated_total_operations(), 3);
        // 3 watched - 0 in the timer = 3 > 2, so the reaper purges and resets the estimate.
        assert!(p.advance(2).is_empty());
        assert_eq!(p.watched(&"y"), Vec::<u64>::new());
        assert_eq!(p.estimated_total_operations(), 0);
        assert_eq!(p.watched_total(), 0);
    }

    #[test]
    fn no_purge_below_the_interval() {
        let mut p: Purgatory<&str, Op> = Purgatory::new(0);
        p.try_complete_else_watch(op("a", 1), vec!["x", "y"], 1_000, 0, reaches(0));
        p.check_and_complete(&"x", 1, reaches(1));
        p.advance(2);
        assert_eq!(p.watched(&"y"), vec![0]);
        assert_eq!(p.watched_total(), 1);
    }

    #[test]
    fn timeout_force_completes_at_the_deadline() {
        let mut p: Purgatory<&str, Op> = Purgatory::with_config(eager(), 0);
        p.try_complete_else_watch(op("slow", 99), vec!["t-0", "t-1"], 500, 10, reaches(0));
        assert_eq!(p.next_expiration(), Some(400)); // 510 sits in level 2's bucket starting at 400.
        let mut fired = Vec::new();
        while let Some(at) = p.next_expiration() {
            for (id, o) in p.advance(at) {
                fired.push((at, id, o.name));
            }
        }
        assert_eq!(fired, vec![(510, 0, "slow")]);
        assert!(p.is_empty());
        // With a purge interval of 0, the expiry's purge check cleared both watch lists.
        assert_eq!(p.keys().count(), 0);
        assert_eq!(p.estimated_total_operations(), 0);
    }

    #[test]
    fn expired_operation_is_skipped_by_later_checks() {
        let mut p: Purgatory<&str, Op> = Purgatory::new(0);
        p.try_complete_else_watch(op("slow", 99), vec!["t-0"], 20, 0, reaches(0));
        assert_eq!(names(&p.advance(20)), vec![(0, "slow")]);
        // Default interval: no purge yet, so the stale id is still listed.
        assert_eq!(p.watched(&"t-0"), vec![0]);
        assert!(p
            .check_and_complete(&"t-0", 21, |_| panic!("must not retry a completed op"))
            .is_empty());
        assert_eq!(p.keys().count(), 0);
    }

    #[test]
    fn completion_cancels_the_timer_task() {
        let mut p: Purgatory<&str, Op> = Purgatory::new(0);
        p.try_complete_else_watch(op("a", 5), vec!["t-0"], 30_000, 0, reaches(0));
        assert_eq!(p.timer().location(0), Some((3, 3))); // 30000 / 8000 = 3.
        p.check_and_complete(&"t-0", 3, reaches(5));
        assert_eq!(p.num_delayed(), 0);
        assert!(p.timer_view().levels[3].buckets[3].task_ids.is_empty());
        // The emptied bucket still wakes the reaper at 24000, which then expires nothing.
        assert_eq!(p.next_expiration(), Some(24_000));
        assert!(p.advance(24_000).is_empty());
        assert!(p.advance(40_000).is_empty());
        assert_eq!(p.next_expiration(), None);
    }

    #[test]
    fn ids_and_completion_order() {
        let mut p: Purgatory<u32, Op> = Purgatory::new(0);
        let ids: Vec<u64> = [("a", 3), ("b", 1), ("c", 2), ("d", 1)]
            .into_iter()
            .map(|(n, needed)| {
                match p.try_complete_else_watch(op(n, needed), vec![7], 1_000, 0, reaches(0)) {
                    WatchOutcome::Watched { id } => id,
                    other => panic!("unexpected {other:?}"),
                }
            })
            .collect();
        assert_eq!(ids, vec![0, 1, 2, 3]);
        assert_eq!(p.operations().count(), 4);
        // Watch-list order, not readiness order.
        assert_eq!(
            names(&p.check_and_complete(&7, 1, reaches(2))),
            vec![(1, "b"), (2, "c"), (3, "d")]
        );
        assert_eq!(p.watched(&7), vec![0]);
        assert_eq!(
            p.operations().map(|(id, _)| id).collect::<Vec<_>>(),
            vec![0]
        );
    }

    #[test]
    fn expiries_come_out_by_deadline_then_id() {
        let mut p: Purgatory<u32, Op> = Purgatory::new(0);
        p.try_complete_else_watch(op("late", 9), vec![1], 300, 0, reaches(0));
        p.try_complete_else_watch(op("first", 9), vec![1], 100, 0, reaches(0));
        p.try_complete_else_watch(op("tie-a", 9), vec![2], 200, 0, reaches(0));
        p.try_complete_else_watch(op("tie-b", 9), vec![1], 150, 50, reaches(0));
        let done = p.advance(1_000);
        assert_eq!(
            names(&done),
            vec![(1, "first"), (2, "tie-a"), (3, "tie-b"), (0, "late")]
        );
    }

    #[test]
    fn zero_timeout_expires_on_next_advance() {
        let mut p: Purgatory<u32, Op> = Purgatory::new(0);
        // Deadline 0 is not after the wheel's clock (0), so the timer refuses it; Kafka would
        // hand it to the executor at once, here it expires at the next advance.
        assert_eq!(
            p.try_complete_else_watch(op("now", 9), vec![1], 0, 0, reaches(0)),
            WatchOutcome::Watched { id: 0 }
        );
        assert_eq!(p.num_delayed(), 0);
        assert_eq!(p.next_expiration(), Some(0));
        assert_eq!(names(&p.advance(0)), vec![(0, "now")]);
        assert_eq!(p.next_expiration(), None);
    }

    #[test]
    #[should_panic(expected = "watch key list")]
    fn empty_keys_panic() {
        let mut p: Purgatory<u32, Op> = Purgatory::new(0);
        p.try_complete_else_watch(op("x", 1), vec![], 10, 0, reaches(0));
    }
}
