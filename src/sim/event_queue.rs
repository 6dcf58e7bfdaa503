//! The simulation's event queue, ordered by (time, sequence).
//!
//! Nearly every event is due within a second of the last one taken: every
//! hop inside a broker is a zero-delay poll, and links, thread costs and
//! linger.ms are a few milliseconds. Those events go to a timing wheel of one
//! FIFO bucket per millisecond. Sequence numbers only grow, so an event
//! always joins its bucket behind every event already there and each bucket
//! stays sorted without any work; a bitmap of the buckets in use finds the
//! first one in a few word operations, and an event is moved only into its
//! bucket and out again.
//!
//! The rest (request timeouts, periodic tasks) wait in a binary heap. Events
//! are large (a message with its request or response body) and a heap moves
//! its elements on every push and pop, so the heap holds only small keys,
//! (time, sequence, slot), over a slab of slots that are reused once their
//! event has been taken. Taking an event compares the wheel's first event
//! with the heap's, so the order is exactly that of one heap holding all.
//!
//! A copy (each timeline snapshot is one) is compact: it has no wheel, its
//! few wheel events join the heap, and its slab holds only the waiting
//! events, shared with the original. Whatever holds them, the events come
//! out in the same order, so a copy runs on exactly as the original would.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

/// What the queue orders by. The sequence number must be unique, so no two
/// entries compare equal and the order never depends on anything else.
pub trait QueueOrder {
    fn at_ms(&self) -> u64;
    fn seq(&self) -> u64;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    at_ms: u64,
    seq: u64,
    slot: u32,
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap; reverse so the earliest event comes first.
        (other.at_ms, other.seq).cmp(&(self.at_ms, self.seq))
    }
}

/// How many milliseconds ahead of the last event taken the wheel covers.
const WHEEL_MS: u64 = 1024;
const WHEEL_MASK: u64 = WHEEL_MS - 1;
const WHEEL_WORDS: usize = (WHEEL_MS / 64) as usize;

#[derive(Debug)]
pub struct EventQueue<T> {
    /// Events due in [now_ms, now_ms + WHEEL_MS), in the bucket of their
    /// millisecond (`at_ms % WHEEL_MS`), each bucket in sequence order.
    /// Empty, with no bucket at all, in a copy until its first push there:
    /// a timeline snapshot then holds none of the 1,024 buckets (32 KiB)
    /// nor the buffers the live wheel's buckets keep once used.
    wheel: Vec<VecDeque<T>>,
    /// Bit `i` is set when `wheel[i]` is not empty.
    in_use: [u64; WHEEL_WORDS],
    /// Keys of the events due later than the wheel reaches.
    heap: BinaryHeap<Key>,
    /// The time of the last event taken; no key is earlier.
    now_ms: u64,
    len: usize,
    /// The heap's events. They wait long (a request's timeout, 30 s) and
    /// every timeline snapshot copies the queue, so each is shared behind
    /// an `Arc` instead of copied: a snapshot copies a pointer per event.
    slots: Vec<Option<Arc<T>>>,
    /// Slots whose event was taken, to be filled again.
    free: Vec<u32>,
}

/// The compact copy: no wheel, its few events put behind new `Arc`s in
/// the heap, whose own events are shared, and a slab of only the waiting
/// events. A timeline snapshot keeps its copy for the whole session, so
/// what it holds is what counts: a key and a pointer an event.
impl<T: QueueOrder + Clone> Clone for EventQueue<T> {
    fn clone(&self) -> Self {
        let mut copy = Self {
            wheel: Vec::new(),
            in_use: [0; WHEEL_WORDS],
            heap: BinaryHeap::with_capacity(self.len),
            now_ms: self.now_ms,
            len: self.len,
            slots: Vec::with_capacity(self.len),
            free: Vec::new(),
        };
        for key in self.heap.iter() {
            if let Some(event) = &self.slots[key.slot as usize] {
                copy.push_to_heap(key.at_ms, key.seq, Arc::clone(event));
            }
        }
        for item in self.wheel.iter().flatten() {
            copy.push_to_heap(item.at_ms(), item.seq(), Arc::new(item.clone()));
        }
        copy
    }
}

impl<T: QueueOrder + Clone> Default for EventQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: QueueOrder + Clone> EventQueue<T> {
    pub fn new() -> Self {
        Self {
            wheel: Vec::new(),
            in_use: [0; WHEEL_WORDS],
            heap: BinaryHeap::new(),
            now_ms: 0,
            len: 0,
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    pub fn push(&mut self, item: T) {
        let (at_ms, seq) = (item.at_ms(), item.seq());
        self.len += 1;
        // An event before `now_ms` cannot happen (the simulation never
        // schedules into the past); the heap would still order it right.
        if at_ms >= self.now_ms && at_ms - self.now_ms < WHEEL_MS {
            if self.wheel.is_empty() {
                self.wheel = (0..WHEEL_MS).map(|_| VecDeque::new()).collect();
            }
            let bucket = (at_ms & WHEEL_MASK) as usize;
            self.wheel[bucket].push_back(item);
            self.in_use[bucket / 64] |= 1 << (bucket % 64);
            return;
        }
        self.push_to_heap(at_ms, seq, Arc::new(item));
    }

    /// Puts an event in the heap, in a free slot if there is one.
    fn push_to_heap(&mut self, at_ms: u64, seq: u64, item: Arc<T>) {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(item);
                slot
            }
            None => {
                self.slots.push(Some(item));
                u32::try_from(self.slots.len() - 1).expect("fewer than 2^32 pending events")
            }
        };
        self.heap.push(Key { at_ms, seq, slot });
    }

    /// The first bucket in use at or after `now_ms`, in time order.
    fn first_bucket(&self) -> Option<usize> {
        let start = (self.now_ms & WHEEL_MASK) as usize;
        let (word, bit) = (start / 64, start % 64);
        // The start word from `bit` up, the other words in turn, then the
        // start word's bits below `bit` (the far end of the window).
        let head = self.in_use[word] & (!0u64 << bit);
        if head != 0 {
            return Some(word * 64 + head.trailing_zeros() as usize);
        }
        for step in 1..WHEEL_WORDS {
            let w = (word + step) % WHEEL_WORDS;
            if self.in_use[w] != 0 {
                return Some(w * 64 + self.in_use[w].trailing_zeros() as usize);
            }
        }
        let tail = self.in_use[word] & !(!0u64 << bit);
        (tail != 0).then(|| word * 64 + tail.trailing_zeros() as usize)
    }

    /// Where the earliest event waits: `Some(bucket)` in the wheel, or
    /// None at the top of the heap.
    fn first(&self) -> Option<Option<usize>> {
        let wheel = self.first_bucket().and_then(|b| Some((b, self.wheel[b].front()?)));
        match (wheel, self.heap.peek()) {
            (Some((_, w)), Some(h)) if (h.at_ms, h.seq) < (w.at_ms(), w.seq()) => Some(None),
            (Some((b, _)), _) => Some(Some(b)),
            (None, Some(_)) => Some(None),
            (None, None) => None,
        }
    }

    /// Takes the earliest event.
    pub fn pop(&mut self) -> Option<T> {
        self.pop_due(u64::MAX)
    }

    /// Takes the earliest event if it is due at or before `until_ms`, so a
    /// caller running up to a time finds the first event once, not twice.
    pub fn pop_due(&mut self, until_ms: u64) -> Option<T> {
        let first = self.first()?;
        let at_ms = match first {
            Some(b) => self.wheel[b].front()?.at_ms(),
            None => self.heap.peek()?.at_ms,
        };
        if at_ms > until_ms {
            return None;
        }
        let item = match first {
            Some(b) => {
                let item = self.wheel[b].pop_front();
                if self.wheel[b].is_empty() {
                    self.in_use[b / 64] &= !(1 << (b % 64));
                }
                item
            }
            None => {
                let key = self.heap.pop()?;
                self.free.push(key.slot);
                // A snapshot may share the event: then it is copied out.
                self.slots[key.slot as usize].take().map(Arc::unwrap_or_clone)
            }
        }?;
        self.len -= 1;
        self.now_ms = item.at_ms();
        Some(item)
    }

    /// The earliest event, left in the queue.
    pub fn peek(&self) -> Option<&T> {
        match self.first()? {
            Some(b) => self.wheel[b].front(),
            None => self.slots[self.heap.peek()?.slot as usize].as_deref(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Every pending event, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.wheel.iter().flatten().chain(self.slots.iter().flatten().map(|e| &**e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq)]
    struct E(u64, u64);

    impl QueueOrder for E {
        fn at_ms(&self) -> u64 {
            self.0
        }
        fn seq(&self) -> u64 {
            self.1
        }
    }

    #[test]
    fn pops_by_time_then_sequence_and_reuses_slots() {
        let mut q = EventQueue::new();
        // 5000 and 5001 are past the wheel's reach: they wait in the heap.
        for (at, seq) in [(5000, 0), (1, 1), (5000, 2), (1, 3), (0, 4), (5001, 5)] {
            q.push(E(at, seq));
        }
        assert_eq!(q.slots.len(), 3);
        assert_eq!(q.peek(), Some(&E(0, 4)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| (e.0, e.1)).collect();
        assert_eq!(order, vec![(0, 4), (1, 1), (1, 3), (5000, 0), (5000, 2), (5001, 5)]);
        assert!(q.is_empty());
        // Freed slots are filled again instead of growing the slab.
        q.push(E(9000, 6));
        q.push(E(5002, 7));
        assert_eq!(q.slots.len(), 3);
        assert_eq!(q.iter().count(), 2);
        assert_eq!(q.pop(), Some(E(5002, 7)));
        assert_eq!(q.len(), 1);
    }

    /// A copy (a timeline snapshot) shares the heap's events instead of
    /// duplicating them and holds no wheel: the wheel's events wait in its
    /// heap. Both queues still take their own events in order, and a copy
    /// of a copy is the same.
    #[test]
    fn a_copy_shares_waiting_events_until_either_queue_takes_them() {
        let mut q = EventQueue::new();
        for seq in 0..300 {
            q.push(E(if seq % 2 == 0 { 30_000 + seq } else { seq % 7 }, seq));
        }
        q.push(E(40_000, 300));
        let mut copy = q.clone();
        let in_both = |a: &EventQueue<E>, b: &EventQueue<E>| {
            a.slots.iter().flatten().filter(|x| b.slots.iter().flatten().any(|y| Arc::ptr_eq(x, y))).count()
        };
        assert_eq!(in_both(&q, &copy), 151, "every heap event is shared");
        assert_eq!((copy.wheel.len(), copy.slots.len(), copy.len()), (0, 301, 301));
        assert_eq!(in_both(&copy, &copy.clone()), 301, "a copy of a copy shares all");
        // The live queue moves on; the copy keeps what it had, and its
        // first push due soon builds its wheel again.
        q.push(E(3, 1000));
        copy.push(E(5, 1001));
        assert_eq!(copy.wheel.len(), WHEEL_MS as usize);
        let live: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let kept: Vec<_> = std::iter::from_fn(|| copy.pop()).collect();
        assert_eq!(live.len(), 302);
        assert_eq!(kept.len(), 302);
        let without = |v: &[E], seq: u64| v.iter().filter(|e| e.1 != seq).cloned().collect::<Vec<_>>();
        assert_eq!(without(&live, 1000), without(&kept, 1001), "the same events in the same order");
        assert!(live.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)));
        assert!(kept.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)));
    }

    #[test]
    fn takes_events_in_the_order_a_plain_sort_gives_whether_wheel_or_heap_holds_them() {
        // Random pushes and pops, many of them due at the time of the last
        // event taken (the lane's case), against a sorted list. The seed is
        // printed so a failure replays.
        for seed in 0..200u64 {
            let mut rng = crate::sim::rng::SimRng::new(seed);
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let (mut now, mut seq) = (0u64, 0u64);
            for _ in 0..400 {
                // Now and then the queue goes on as its copy, as a restored
                // snapshot's does: compact, every event in the heap.
                if rng.next_u32() % 16 == 0 {
                    q = q.clone();
                }
                if rng.next_u32() % 3 != 0 {
                    let delay = match rng.next_u32() % 6 {
                        0 | 1 => 0,
                        2 => u64::from(rng.next_u32() % 3),
                        3 => u64::from(rng.next_u32() % 50),
                        // Around and past the wheel's reach, into the heap.
                        4 => 1000 + u64::from(rng.next_u32() % 50),
                        _ => u64::from(rng.next_u32() % 5000),
                    };
                    q.push(E(now + delay, seq));
                    reference.push((now + delay, seq));
                    seq += 1;
                } else {
                    reference.sort();
                    let expected = if reference.is_empty() { None } else { Some(reference.remove(0)) };
                    assert_eq!(q.peek().map(|e| (e.0, e.1)), expected, "seed {seed}");
                    let got = q.pop().map(|e| (e.0, e.1));
                    assert_eq!(got, expected, "seed {seed}");
                    if let Some((at, _)) = got {
                        now = at;
                    }
                }
                assert_eq!(q.len(), reference.len(), "seed {seed}");
            }
            reference.sort();
            let rest: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| (e.0, e.1)).collect();
            assert_eq!(rest, reference, "seed {seed}");
        }
    }
}
