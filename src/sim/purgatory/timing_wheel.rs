//! Kafka's hierarchical timing wheel, as used by the purgatory to time out delayed operations.
//!
//! This mirrors `org.apache.kafka.server.util.timer.{SystemTimer, TimingWheel, TimerTaskList}`:
//!
//! * Level 0 has `wheel_size` buckets of `tick_ms` each, so it covers `interval = tick_ms *
//!   wheel_size`. Level `n + 1` uses level `n`'s interval as its tick (20 ms, 400 ms, 8 s, 160 s,
//!   ... with the defaults) and is created only when a task does not fit in level `n`.
//! * A task goes into the lowest level where `expiration < current_time + interval`, in the bucket
//!   `(expiration / tick) % wheel_size`; that bucket's expiration becomes `(expiration / tick) *
//!   tick`, i.e. the start of the bucket's time range.
//! * A task with `expiration < current_time + tick` is already expired: it is not added and is
//!   handed back at once (Kafka submits it to the timer's executor thread straight away).
//! * Kafka keeps every bucket that holds (or held) tasks in a `DelayQueue` ordered by bucket
//!   expiration. The timer thread polls that queue; for each due bucket it advances the wheels to
//!   the bucket's expiration and then re-adds every task of the bucket. A task from a high level
//!   therefore falls into a lower level (the "cascade") or, once its time has come, expires.
//!
//! Two consequences of Kafka's design are kept on purpose because the UI should show them:
//! the wheels' clocks only move to bucket expirations (never to "now" on their own), and a bucket
//! emptied by cancellations stays in the delay queue until its time comes, so the timer still wakes
//! up for it and finds nothing to do.
//!
//! Time is simulated: callers pass `now_ms`, and `next_expiration()` says when the next bucket is
//! due so that the simulation can schedule a timer event exactly then instead of polling.
//! Times are expected to be non-negative milliseconds of simulated time.

use serde::{Deserialize, Serialize};
use crate::sim::collections::{sort_by_key, BTreeMap, BTreeSet};

/// Kafka's `SystemTimer` default tick (1 ms).
pub const DEFAULT_TICK_MS: i64 = 1;

/// Kafka's `SystemTimer` default number of buckets a wheel (20).
pub const DEFAULT_WHEEL_SIZE: u32 = 20;

/// Expirations are clamped to this value so that the level intervals, which grow geometrically,
/// always reach past any expiration before their arithmetic could overflow; it is about 146
/// million years of simulated time, so it means "never" in practice.
const MAX_EXPIRATION_MS: i64 = i64::MAX / 2;

/// What happened to a task handed to [`Timer::add`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AddResult<T> {
    /// The task now sits in `bucket` of wheel `level` (0 is the finest wheel).
    Added { level: u32, bucket: u32 },
    /// The task was due already (`expiration < current_time + tick`), so it was not stored; the
    /// payload comes back so that the caller can run it now, as Kafka's executor would.
    AlreadyExpired(T),
}

/// One bucket (Kafka's `TimerTaskList`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Bucket {
    /// The start of the time range this bucket currently stands for, or `None` (Kafka's -1) when
    /// it has been flushed and not reused since.
    expiration_ms: Option<i64>,
    /// Task ids keyed by an arrival stamp, so that iteration follows arrival order like Kafka's
    /// linked list (append at the tail) while a cancel can still remove one entry cheaply.
    entries: BTreeMap<u64, u64>,
}

/// One level of the hierarchy (Kafka's `TimingWheel`, without the overflow pointer: the levels
/// live in a `Vec`, and level `n + 1` is level `n`'s overflow wheel).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct TimingWheel {
    tick_ms: i64,
    interval_ms: i64,
    current_time_ms: i64,
    buckets: Vec<Bucket>,
}

impl TimingWheel {
    fn new(tick_ms: i64, wheel_size: u32, start_ms: i64) -> Self {
        TimingWheel {
            tick_ms,
            // A saturated interval only happens far above any clamped expiration, where it just
            // means "this level holds everything".
            interval_ms: tick_ms.saturating_mul(i64::from(wheel_size)),
            // Kafka rounds the start down to a multiple of the tick.
            current_time_ms: start_ms - start_ms.rem_euclid(tick_ms),
            buckets: vec![
                Bucket {
                    expiration_ms: None,
                    entries: BTreeMap::new(),
                };
                wheel_size as usize
            ],
        }
    }
}

/// A stored task (Kafka's `TimerTaskEntry`): where it is, and what it carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct TaskEntry<T> {
    payload: T,
    expiration_ms: i64,
    /// Order of the `add` call, used to break ties among equal expirations deterministically.
    seq: u64,
    level: u32,
    bucket: u32,
    /// Key of this task inside its bucket's `entries`.
    arrival: u64,
}

/// Where [`Timer::place`] put an expiration.
enum Placement {
    Bucket { level: u32, bucket: u32 },
    Expired,
}

/// The hierarchical timing wheel together with its delay queue (Kafka's `SystemTimer`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timer<T> {
    tick_ms: i64,
    wheel_size: u32,
    /// `wheels[0]` is the finest wheel; each further entry is the previous one's overflow wheel.
    wheels: Vec<TimingWheel>,
    /// Every task currently in a bucket, by caller id.
    tasks: BTreeMap<u64, TaskEntry<T>>,
    /// Kafka's `DelayQueue<TimerTaskList>`: every bucket whose expiration is set, ordered by
    /// expiration. Level and bucket index break ties only to make the order total.
    delay_queue: BTreeSet<(i64, u32, u32)>,
    next_seq: u64,
    next_arrival: u64,
}

impl<T> Timer<T> {
    /// A timer with Kafka's defaults (tick 1 ms, 20 buckets a wheel) whose clock starts at
    /// `start_ms`.
    pub fn new(start_ms: i64) -> Self {
        Self::with_config(DEFAULT_TICK_MS, DEFAULT_WHEEL_SIZE, start_ms)
    }

    /// A timer with a chosen tick and wheel size.
    ///
    /// # Panics
    /// If `tick_ms < 1` or `wheel_size < 2`: a wheel of one bucket would make every overflow wheel
    /// as fine as the last, so adding a task would never stop creating wheels.
    pub fn with_config(tick_ms: i64, wheel_size: u32, start_ms: i64) -> Self {
        assert!(tick_ms >= 1, "tick_ms must be at least 1, got {tick_ms}");
        assert!(
            wheel_size >= 2,
            "wheel_size must be at least 2, got {wheel_size}"
        );
        Timer {
            tick_ms,
            wheel_size,
            wheels: vec![TimingWheel::new(tick_ms, wheel_size, start_ms)],
            tasks: BTreeMap::new(),
            delay_queue: BTreeSet::new(),
            next_seq: 0,
            next_arrival: 0,
        }
    }

    /// Schedules task `id` to expire at `expiration_ms`.
    ///
    /// If a task with the same id is already scheduled, it is replaced, just as re-adding a Kafka
    /// `TimerTask` first removes its previous entry from whatever bucket held it.
    pub fn add(&mut self, id: u64, payload: T, expiration_ms: i64) -> AddResult<T> {
        self.cancel(id);
        let expiration_ms = expiration_ms.min(MAX_EXPIRATION_MS);
        let seq = self.next_seq;
        self.next_seq += 1;
        match self.place(expiration_ms) {
            Placement::Expired => AddResult::AlreadyExpired(payload),
            Placement::Bucket { level, bucket } => {
                let arrival = self.attach(id, level, bucket);
                self.tasks.insert(
                    id,
                    TaskEntry {
                        payload,
                        expiration_ms,
                        seq,
                        level,
                        bucket,
                        arrival,
                    },
                );
                AddResult::Added { level, bucket }
            }
        }
    }

    /// Removes task `id` and returns its payload, or `None` if it is not scheduled.
    ///
    /// Like Kafka's `TimerTask.cancel()`, the entry leaves its bucket at once, but the bucket
    /// keeps its expiration and its place in the delay queue, so `next_expiration()` may still
    /// report it; advancing to it then expires nothing.
    pub fn cancel(&mut self, id: u64) -> Option<T> {
        let entry = self.tasks.remove(&id)?;
        let bucket = &mut self.wheels[entry.level as usize].buckets[entry.bucket as usize];
        bucket.entries.remove(&entry.arrival);
        Some(entry.payload)
    }

    /// Processes every bucket due at or before `now_ms`, in expiration order, as Kafka's
    /// `SystemTimer.advanceClock` does once the delay queue yields a bucket: advance the wheels to
    /// the bucket's expiration, then re-add each of its tasks, which either drop into a finer wheel
    /// or expire.
    ///
    /// Returns the expired tasks sorted by expiration, then by the order of their `add` calls.
    /// Kafka hands expired tasks to a single executor thread bucket by bucket; that order already
    /// follows expiration, and the sort only fixes the order among equal expirations.
    ///
    /// With `tick_ms = 1` a task expires exactly when `now_ms >= expiration`. With a coarser tick
    /// it can expire up to `tick_ms - 1` early, because a bucket falls due at the start of its
    /// range; that is Kafka's behaviour too.
    pub fn advance_clock(&mut self, now_ms: i64) -> Vec<(u64, T)> {
        let mut expired: Vec<(i64, u64, u64, T)> = Vec::new();
        while let Some(&(bucket_expiration, level, index)) = self.delay_queue.first() {
            if bucket_expiration > now_ms {
                break;
            }
            self.delay_queue.pop_first();
            self.advance_wheels(bucket_expiration);
            let bucket = &mut self.wheels[level as usize].buckets[index as usize];
            let entries = std::mem::take(&mut bucket.entries);
            bucket.expiration_ms = None;
            for (_, id) in entries {
                self.reinsert(id, &mut expired);
            }
        }
        sort_by_key(&mut expired, |&(expiration, seq, _, _)| (expiration, seq));
        expired
            .into_iter()
            .map(|(_, _, id, payload)| (id, payload))
            .collect()
    }

    /// The expiration of the earliest bucket in the delay queue: the time at which the
    /// simulation should next call `advance_clock`. It is a bucket start, so it can be earlier
    /// than any task's own expiration (the bucket then only cascades), and it can belong to a
    /// bucket emptied by cancellations.
    pub fn next_expiration(&self) -> Option<i64> {
        self.delay_queue
            .first()
            .map(|&(expiration, _, _)| expiration)
    }

    /// The number of scheduled tasks (Kafka's `SystemTimer.size()`).
    pub fn size(&self) -> u64 {
        self.tasks.len() as u64
    }

    /// Whether no task is scheduled.
    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Whether task `id` is scheduled.
    pub fn contains(&self, id: u64) -> bool {
        self.tasks.contains_key(&id)
    }

    /// The payload of task `id`, if scheduled.
    pub fn get(&self, id: u64) -> Option<&T> {
        self.tasks.get(&id).map(|entry| &entry.payload)
    }

    /// The expiration of task `id`, if scheduled.
    pub fn expiration_of(&self, id: u64) -> Option<i64> {
        self.tasks.get(&id).map(|entry| entry.expiration_ms)
    }

    /// The `(level, bucket)` currently holding task `id`, if scheduled.
    pub fn location(&self, id: u64) -> Option<(u32, u32)> {
        self.tasks.get(&id).map(|entry| (entry.level, entry.bucket))
    }

    /// The clock of the finest wheel. It moves only when a bucket falls due, so it can lag the
    /// simulation's time; additions are judged against it, exactly as in Kafka.
    pub fn current_time_ms(&self) -> i64 {
        self.wheels[0].current_time_ms
    }

    /// The tick of the finest wheel.
    pub fn tick_ms(&self) -> i64 {
        self.tick_ms
    }

    /// The number of buckets a wheel.
    pub fn wheel_size(&self) -> u32 {
        self.wheel_size
    }

    /// How many wheels exist so far (overflow wheels are created on demand and never removed).
    pub fn level_count(&self) -> u32 {
        self.wheels.len() as u32
    }

    /// A snapshot of every wheel, bucket and the delay queue for the UI.
    pub fn view(&self) -> WheelView {
        let levels = self
            .wheels
            .iter()
            .map(|wheel| LevelView {
                tick_ms: wheel.tick_ms,
                wheel_size: self.wheel_size,
                interval_ms: wheel.interval_ms,
                current_time_ms: wheel.current_time_ms,
                buckets: wheel
                    .buckets
                    .iter()
                    .enumerate()
                    .map(|(index, bucket)| BucketView {
                        index: index as u32,
                        expiration_ms: bucket.expiration_ms,
                        task_ids: bucket.entries.values().copied().collect(),
                    })
                    .collect(),
            })
            .collect();
        let delay_queue = self
            .delay_queue
            .iter()
            .map(|&(expiration_ms, level, bucket)| DelayQueueEntry {
                expiration_ms,
                level,
                bucket,
            })
            .collect();
        WheelView {
            levels,
            delay_queue,
            task_count: self.size(),
        }
    }

    /// Kafka's `TimingWheel.add` without storing the task: finds the level and bucket for
    /// `expiration_ms`, creating overflow wheels as needed, sets the bucket's expiration and puts
    /// the bucket in the delay queue if that expiration changed.
    fn place(&mut self, expiration_ms: i64) -> Placement {
        let mut level = 0usize;
        loop {
            let wheel = &self.wheels[level];
            // Comparisons are done in i128 so that `current + interval` cannot overflow.
            let current = i128::from(wheel.current_time_ms);
            let expiration = i128::from(expiration_ms);
            if expiration < current + i128::from(wheel.tick_ms) {
                // Only the finest wheel can see this: anything passed up to level n + 1 was at
                // least `current_n + interval_n`, which is never before `current_{n+1} + tick_{n+1}`.
                debug_assert_eq!(level, 0, "an expired task reached an overflow wheel");
                return Placement::Expired;
            }
            if expiration < current + i128::from(wheel.interval_ms) {
                let tick = wheel.tick_ms;
                let virtual_id = expiration_ms.div_euclid(tick);
                let index = virtual_id.rem_euclid(i64::from(self.wheel_size)) as u32;
                let bucket_expiration = virtual_id * tick;
                let level = level as u32;
                let bucket = &mut self.wheels[level as usize].buckets[index as usize];
                if bucket.expiration_ms != Some(bucket_expiration) {
                    // Kafka enqueues a bucket only when its expiration changes, i.e. when a
                    // flushed bucket is reused for a new round. A bucket still waiting in the
                    // queue always stands for the same range as the new task (the ranges a level
                    // accepts never wrap onto a pending bucket), which the assertion checks.
                    debug_assert!(
                        bucket.expiration_ms.is_none(),
                        "bucket {index} of level {level} reused while still pending"
                    );
                    if let Some(old) = bucket.expiration_ms {
                        self.delay_queue.remove(&(old, level, index));
                    }
                    bucket.expiration_ms = Some(bucket_expiration);
                    self.delay_queue.insert((bucket_expiration, level, index));
                }
                return Placement::Bucket {
                    level,
                    bucket: index,
                };
            }
            if level + 1 == self.wheels.len() {
                // Kafka's addOverflowWheel: the new wheel's tick is this wheel's interval and its
                // clock starts from this wheel's clock (rounded down to the new tick).
                let overflow =
                    TimingWheel::new(wheel.interval_ms, self.wheel_size, wheel.current_time_ms);
                self.wheels.push(overflow);
            }
            level += 1;
        }
    }

    /// Appends task `id` at the tail of a bucket and returns its arrival stamp.
    fn attach(&mut self, id: u64, level: u32, bucket: u32) -> u64 {
        let arrival = self.next_arrival;
        self.next_arrival += 1;
        self.wheels[level as usize].buckets[bucket as usize]
            .entries
            .insert(arrival, id);
        arrival
    }

    /// Re-adds a task taken out of a flushed bucket (Kafka's `addTimerTaskEntry` called from
    /// `bucket.flush`): it lands in a finer bucket or, if due, joins `expired`.
    fn reinsert(&mut self, id: u64, expired: &mut Vec<(i64, u64, u64, T)>) {
        let expiration_ms = self.tasks[&id].expiration_ms;
        match self.place(expiration_ms) {
            Placement::Expired => {
                if let Some(entry) = self.tasks.remove(&id) {
                    expired.push((entry.expiration_ms, entry.seq, id, entry.payload));
                }
            }
            Placement::Bucket { level, bucket } => {
                let arrival = self.attach(id, level, bucket);
                if let Some(entry) = self.tasks.get_mut(&id) {
                    entry.level = level;
                    entry.bucket = bucket;
                    entry.arrival = arrival;
                }
            }
        }
    }

    /// Kafka's `TimingWheel.advanceClock`, applied down the chain of overflow wheels: a wheel
    /// moves only if the time reaches its next tick, and it passes its rounded time upwards.
    fn advance_wheels(&mut self, time_ms: i64) {
        let mut time_ms = time_ms;
        for wheel in &mut self.wheels {
            if i128::from(time_ms) < i128::from(wheel.current_time_ms) + i128::from(wheel.tick_ms) {
                break;
            }
            wheel.current_time_ms = time_ms - time_ms.rem_euclid(wheel.tick_ms);
            time_ms = wheel.current_time_ms;
        }
    }
}

/// A snapshot of the timer for drawing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WheelView {
    /// Finest wheel first.
    pub levels: Vec<LevelView>,
    /// Kafka's delay queue: the buckets the timer thread will wake up for, earliest first.
    pub delay_queue: Vec<DelayQueueEntry>,
    /// The number of scheduled tasks.
    pub task_count: u64,
}

/// One wheel in a [`WheelView`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LevelView {
    pub tick_ms: i64,
    pub wheel_size: u32,
    pub interval_ms: i64,
    pub current_time_ms: i64,
    /// All `wheel_size` buckets, by index.
    pub buckets: Vec<BucketView>,
}

/// One bucket in a [`LevelView`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BucketView {
    pub index: u32,
    /// The start of the range the bucket stands for, or `None` if it is not in use.
    pub expiration_ms: Option<i64>,
    /// Tasks in arrival order.
    pub task_ids: Vec<u64>,
}

/// One bucket waiting in the delay queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DelayQueueEntry {
    pub expiration_ms: i64,
    pub level: u32,
    pub bucket: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn added(level: u32, bucket: u32) -> AddResult<()> {
        AddResult::Added { level, bucket }
    }

    fn bucket_expiration(timer: &Timer<()>, level: u32, bucket: u32) -> Option<i64> {
        timer.view().levels[level as usize].buckets[bucket as usize].expiration_ms
    }

    /// Advances to each next bucket expiration up to `until`, collecting what fires and when.
    fn run_until(timer: &mut Timer<()>, until: i64) -> Vec<(i64, u64)> {
        let mut fired = Vec::new();
        while let Some(at) = timer.next_expiration() {
            if at > until {
                break;
            }
            for (id, ()) in timer.advance_clock(at) {
                fired.push((at, id));
            }
        }
        fired
    }

    #[test]
    fn levels_and_buckets_from_time_zero() {
        let mut timer = Timer::new(0);
        // 5 ms: level 0 (tick 1, interval 20) accepts 1 <= 5 < 20; bucket 5 / 1 % 20 = 5,
        // bucket expiration 5 * 1 = 5.
        assert_eq!(timer.add(1, (), 5), added(0, 5));
        // 25 ms: 25 >= 0 + 20, so level 1 (tick 20, interval 400) is created; 25 < 400;
        // virtual id 25 / 20 = 1, bucket 1 % 20 = 1, bucket expiration 1 * 20 = 20.
        assert_eq!(timer.add(2, (), 25), added(1, 1));
        // 450 ms: 450 >= 400, so level 2 (tick 400, interval 8000); virtual id 450 / 400 = 1,
        // bucket 1, bucket expiration 400.
        assert_eq!(timer.add(3, (), 450), added(2, 1));
        // 9 s: 9000 >= 8000, so level 3 (tick 8000, interval 160000); virtual id 9000 / 8000 = 1,
        // bucket 1, bucket expiration 8000.
        assert_eq!(timer.add(4, (), 9_000), added(3, 1));
        // 200 s: 200000 >= 160000, so level 4 (tick 160000, interval 3200000); virtual id
        // 200000 / 160000 = 1, bucket 1, bucket expiration 160000.
        assert_eq!(timer.add(5, (), 200_000), added(4, 1));

        let view = timer.view();
        let shapes: Vec<(i64, i64, i64)> = view
            .levels
            .iter()
            .map(|l| (l.tick_ms, l.interval_ms, l.current_time_ms))
            .collect();
        assert_eq!(
            shapes,
            vec![
                (1, 20, 0),
                (20, 400, 0),
                (400, 8_000, 0),
                (8_000, 160_000, 0),
                (160_000, 3_200_000, 0)
            ]
        );
        assert_eq!(bucket_expiration(&timer, 0, 5), Some(5));
        assert_eq!(bucket_expiration(&timer, 1, 1), Some(20));
        assert_eq!(bucket_expiration(&timer, 2, 1), Some(400));
        assert_eq!(bucket_expiration(&timer, 3, 1), Some(8_000));
        assert_eq!(bucket_expiration(&timer, 4, 1), Some(160_000));
        assert_eq!(view.levels[2].buckets[1].task_ids, vec![3]);
        let queue: Vec<i64> = view.delay_queue.iter().map(|e| e.expiration_ms).collect();
        assert_eq!(queue, vec![5, 20, 400, 8_000, 160_000]);
        assert_eq!(timer.next_expiration(), Some(5));
        assert_eq!(timer.size(), 5);
    }

    #[test]
    fn placement_from_an_unaligned_start() {
        // Start 1234: level 0's clock is 1234. 1259 >= 1234 + 20, so level 1 is created from
        // 1234 rounded down to 20, i.e. 1220; 1259 < 1220 + 400; virtual id 1259 / 20 = 62,
        // bucket 62 % 20 = 2, bucket expiration 62 * 20 = 1240 (earlier than the task).
        let mut timer = Timer::new(1234);
        assert_eq!(timer.add(7, (), 1259), added(1, 2));
        assert_eq!(timer.view().levels[1].current_time_ms, 1220);
        assert_eq!(timer.next_expiration(), Some(1240));
        // At 1240 the bucket cascades: level 0's clock is 1240, 1259 < 1240 + 20, so it lands in
        // bucket 1259 % 20 = 19 with expiration 1259.
        assert!(timer.advance_clock(1240).is_empty());
        assert_eq!(timer.location(7), Some((0, 19)));
        assert_eq!(timer.next_expiration(), Some(1259));
        assert!(timer.advance_clock(1258).is_empty());
        assert_eq!(timer.advance_clock(1259), vec![(7, ())]);
        assert!(timer.is_empty());
    }

    #[test]
    fn already_expired_is_not_added() {
        let mut timer = Timer::new(100);
        // 100 < 100 + 1: due now.
        assert_eq!(timer.add(1, "a", 100), AddResult::AlreadyExpired("a"));
        assert_eq!(timer.add(2, "b", 50), AddResult::AlreadyExpired("b"));
        // 101 is the first time that is not yet due.
        assert_eq!(
            timer.add(3, "c", 101),
            AddResult::Added {
                level: 0,
                bucket: 1
            }
        );
        assert_eq!(timer.size(), 1);
        assert!(!timer.contains(1));
    }

    #[test]
    fn cascade_fires_exactly_on_time() {
        let mut timer = Timer::new(0);
        assert_eq!(timer.add(1, (), 450), added(2, 1));
        assert_eq!(timer.next_expiration(), Some(400));
        assert!(timer.advance_clock(399).is_empty());
        assert_eq!(timer.location(1), Some((2, 1)));
        // At 400 all wheels move to 400; 450 >= 400 + 20 but < 400 + 400, so level 1,
        // virtual id 450 / 20 = 22, bucket 2, bucket expiration 440.
        assert!(timer.advance_clock(400).is_empty());
        assert_eq!(timer.location(1), Some((1, 2)));
        assert_eq!(bucket_expiration(&timer, 2, 1), None);
        assert_eq!(timer.next_expiration(), Some(440));
        // At 440 level 0's clock is 440 and 450 < 460: bucket 450 % 20 = 10, expiration 450.
        assert!(timer.advance_clock(440).is_empty());
        assert_eq!(timer.location(1), Some((0, 10)));
        assert_eq!(timer.next_expiration(), Some(450));
        assert!(timer.advance_clock(449).is_empty());
        assert_eq!(timer.advance_clock(450), vec![(1, ())]);
        assert_eq!(timer.next_expiration(), None);
    }

    #[test]
    fn every_task_fires_at_its_own_millisecond_when_driven_by_next_expiration() {
        let mut timer = Timer::new(0);
        let expirations = [
            1, 5, 19, 20, 21, 25, 399, 400, 401, 450, 7_999, 8_000, 9_000, 200_000,
        ];
        for (i, &e) in expirations.iter().enumerate() {
            assert!(matches!(
                timer.add(i as u64, (), e),
                AddResult::Added { .. }
            ));
        }
        let fired = run_until(&mut timer, i64::MAX);
        let expected: Vec<(i64, u64)> = expirations
            .iter()
            .enumerate()
            .map(|(i, &e)| (e, i as u64))
            .collect();
        assert_eq!(fired, expected);
    }

    #[test]
    fn one_big_jump_fires_everything_in_order() {
        let mut timer = Timer::new(0);
        timer.add(10, (), 9_000);
        timer.add(11, (), 5);
        timer.add(12, (), 450);
        timer.add(13, (), 25);
        let ids: Vec<u64> = timer
            .advance_clock(10_000)
            .into_iter()
            .map(|(id, ())| id)
            .collect();
        assert_eq!(ids, vec![11, 13, 12, 10]);
        // The wheels' clocks sit at the last bucket processed, not at 10000.
        assert_eq!(timer.current_time_ms(), 9_000);
    }

    #[test]
    fn cancel_removes_the_task_but_not_the_bucket() {
        let mut timer = Timer::new(0);
        timer.add(1, 'x', 30);
        timer.add(2, 'y', 35);
        assert_eq!(timer.cancel(1), Some('x'));
        assert_eq!(timer.cancel(1), None);
        assert_eq!(timer.size(), 1);
        timer.cancel(2);
        // Kafka leaves the emptied bucket in the delay queue; waking up for it expires nothing.
        assert_eq!(timer.next_expiration(), Some(20));
        assert!(timer.advance_clock(20).is_empty());
        assert_eq!(timer.next_expiration(), None);
        assert!(timer.advance_clock(1_000).is_empty());
    }

    #[test]
    fn re_adding_an_id_replaces_it() {
        let mut timer = Timer::new(0);
        timer.add(1, 'a', 10);
        timer.add(1, 'b', 12);
        assert_eq!(timer.size(), 1);
        assert!(timer.advance_clock(11).is_empty());
        assert_eq!(timer.advance_clock(12), vec![(1, 'b')]);
    }

    #[test]
    fn equal_expirations_fire_in_insertion_order() {
        let mut timer = Timer::new(0);
        // Ids deliberately out of numeric order, and the same expiration reached through
        // different levels: 9 and 4 are added when 500 needs level 2, 6 after a cascade.
        timer.add(9, (), 500);
        timer.add(4, (), 500);
        timer.add(7, (), 480);
        assert!(timer.advance_clock(400).is_empty());
        timer.add(6, (), 500);
        timer.add(2, (), 480);
        let fired: Vec<u64> = timer
            .advance_clock(500)
            .into_iter()
            .map(|(id, ())| id)
            .collect();
        assert_eq!(fired, vec![7, 2, 9, 4, 6]);
    }

    #[test]
    fn coarse_tick_can_fire_early_but_by_less_than_a_tick() {
        let mut timer = Timer::with_config(10, 20, 0);
        // Level 0 covers [0, 200) in 10 ms buckets; 1005 goes to level 1 (tick 200), bucket
        // 1005 / 200 % 20 = 5 with expiration 1000.
        assert_eq!(timer.add(1, (), 1005), added(1, 5));
        // At 1000 the task is re-added: 1005 < 1000 + 10, so it is due now, 5 ms early.
        assert_eq!(timer.advance_clock(1000), vec![(1, ())]);
    }

    #[test]
    fn stale_wheel_clock_is_kafkas() {
        // Nothing was due between 0 and 1000, so the wheels still read 0. A task for 1005 is
        // judged against 0, goes to level 2 (bucket expiration 800, already past), and then
        // cascades 800 -> 1000 -> 1005 on the next advances, as in Kafka.
        let mut timer = Timer::new(0);
        assert!(timer.advance_clock(1_000).is_empty());
        assert_eq!(timer.current_time_ms(), 0);
        assert_eq!(timer.add(1, (), 1_005), added(2, 2));
        assert_eq!(timer.next_expiration(), Some(800));
        assert!(timer.advance_clock(1_000).is_empty());
        assert_eq!(timer.location(1), Some((0, 5)));
        assert_eq!(timer.advance_clock(1_005), vec![(1, ())]);
    }

    /// A tiny xorshift64 generator so that the randomized test needs no dependency.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        fn below(&mut self, bound: u64) -> u64 {
            self.next() % bound
        }
    }

    /// Checks that every stored task sits in a bucket whose range contains its expiration.
    fn check_invariants(timer: &Timer<u64>, seed: u64) {
        let view = timer.view();
        let mut seen = 0u64;
        for (level, lv) in view.levels.iter().enumerate() {
            for b in &lv.buckets {
                if !b.task_ids.is_empty() {
                    let start = b
                        .expiration_ms
                        .expect("non-empty bucket without expiration");
                    for id in &b.task_ids {
                        let e = timer.expiration_of(*id).unwrap();
                        assert!(
                            start <= e && e < start + lv.tick_ms,
                            "seed {seed}: task {id} (exp {e}) in level {level} bucket {} [{start}, +{})",
                            b.index,
                            lv.tick_ms
                        );
                        seen += 1;
                    }
                }
                if let Some(start) = b.expiration_ms {
                    assert!(
                        view.delay_queue.iter().any(|q| q.expiration_ms == start
                            && q.level as usize == level
                            && q.bucket == b.index),
                        "seed {seed}: bucket with expiration missing from the delay queue"
                    );
                }
            }
        }
        assert_eq!(seen, timer.size(), "seed {seed}: task count");
    }

    fn randomized_against_naive(seed: u64) {
        let mut rng = XorShift(seed);
        let mut timer: Timer<u64> = Timer::new(0);
        // The naive model: (expiration, seq, id, payload), fired when now >= expiration.
        let mut naive: Vec<(i64, u64, u64, u64)> = Vec::new();
        let mut now = 0i64;
        let mut seq = 0u64;
        let mut next_id = 0u64;
        // Counters proving that the run exercised refusals, expiries and deep wheels.
        let (mut refused, mut fired_total, mut max_levels) = (0u32, 0usize, 0u32);
        for step in 0..3_000u32 {
            for _ in 0..rng.below(4) {
                // Mostly ids never seen before, sometimes a re-add of an existing id.
                let id = if next_id > 0 && rng.below(10) == 0 {
                    rng.below(next_id)
                } else {
                    next_id += 1;
                    next_id - 1
                };
                let delay = match rng.below(5) {
                    0 => rng.below(25) as i64,
                    1 => rng.below(500) as i64,
                    2 => rng.below(10_000) as i64,
                    3 => rng.below(250_000) as i64,
                    _ => rng.below(40) as i64 - 20,
                };
                let expiration = now + delay;
                let payload = rng.next();
                naive.retain(|t| t.2 != id);
                match timer.add(id, payload, expiration) {
                    AddResult::AlreadyExpired(p) => {
                        refused += 1;
                        assert_eq!(p, payload, "seed {seed}");
                        assert!(
                            expiration < timer.current_time_ms() + 1,
                            "seed {seed}: step {step}: {expiration} refused at wheel time {}",
                            timer.current_time_ms()
                        );
                    }
                    AddResult::Added { .. } => naive.push((expiration, seq, id, payload)),
                }
                seq += 1;
            }
            if !naive.is_empty() && rng.below(4) == 0 {
                let victim = naive[rng.below(naive.len() as u64) as usize];
                assert_eq!(timer.cancel(victim.2), Some(victim.3), "seed {seed}");
                naive.retain(|t| t.2 != victim.2);
            }
            // The timer must never plan to wake up after a task's expiration.
            if let Some(first) = naive.iter().map(|t| t.0).min() {
                let next = timer.next_expiration().expect("tasks but no wake-up");
                assert!(
                    next <= first,
                    "seed {seed}: step {step}: wake-up {next} after task {first}"
                );
            }
            now = match (rng.below(3), timer.next_expiration()) {
                (0, Some(next)) => now.max(next),
                (1, _) => now + rng.below(30) as i64,
                _ => now + rng.below(3_000) as i64,
            };
            max_levels = max_levels.max(timer.level_count());
            let fired = timer.advance_clock(now);
            fired_total += fired.len();
            naive.sort_by_key(|t| (t.0, t.1));
            let due: Vec<(u64, u64)> = naive
                .iter()
                .filter(|t| t.0 <= now)
                .map(|t| (t.2, t.3))
                .collect();
            naive.retain(|t| t.0 > now);
            assert_eq!(fired, due, "seed {seed}: step {step}: now {now}");
            assert_eq!(timer.size(), naive.len() as u64, "seed {seed}: step {step}");
            if step % 97 == 0 {
                check_invariants(&timer, seed);
            }
        }
        check_invariants(&timer, seed);
        assert!(
            refused > 0 && fired_total > 1_000 && max_levels >= 4,
            "seed {seed}: weak run"
        );
    }

    #[test]
    fn randomized_against_a_sorted_list() {
        for seed in [0x9E37_79B9_7F4A_7C15u64, 1, 42, 0xDEAD_BEEF, 20_240_601] {
            randomized_against_naive(seed);
        }
    }
}
