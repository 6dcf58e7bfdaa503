//! The simulation's event queue: a min-heap ordered by (time, sequence).
//!
//! Events are large (a message with its request or response body), and a
//! binary heap moves its elements on every push and pop. So the heap holds
//! only small keys, (time, sequence, slot), and the events sit still in a
//! slab of slots that are reused once their event has been taken.
//!
//! Most events are due at once: every hop inside a broker is a zero-delay
//! poll. Those keys go to a FIFO lane instead of the heap. An event due at
//! the time of the last one taken is later than everything already in the
//! lane (its sequence is larger), so the lane stays sorted without any work;
//! taking an event compares the two fronts, so the order is exactly the
//! heap's.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

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

#[derive(Clone, Debug)]
pub struct EventQueue<T> {
    heap: BinaryHeap<Key>,
    /// Keys due at `now_ms`, in order.
    now_lane: VecDeque<Key>,
    /// The time of the last event taken.
    now_ms: u64,
    slots: Vec<Option<T>>,
    /// Slots whose event was taken, to be filled again.
    free: Vec<u32>,
}

impl<T: QueueOrder> Default for EventQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: QueueOrder> EventQueue<T> {
    pub fn new() -> Self {
        Self { heap: BinaryHeap::new(), now_lane: VecDeque::new(), now_ms: 0, slots: Vec::new(), free: Vec::new() }
    }

    pub fn push(&mut self, item: T) {
        let (at_ms, seq) = (item.at_ms(), item.seq());
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
        let key = Key { at_ms, seq, slot };
        // `Key` orders in reverse, so "greater" is "earlier": the lane takes
        // a key only if it comes after the lane's last one.
        if at_ms == self.now_ms && self.now_lane.back().is_none_or(|last| *last > key) {
            self.now_lane.push_back(key);
        } else {
            self.heap.push(key);
        }
    }

    /// Whether the lane's first key comes before the heap's.
    fn lane_first(&self) -> Option<bool> {
        match (self.now_lane.front(), self.heap.peek()) {
            (Some(lane), Some(heap)) => Some(lane > heap),
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        }
    }

    /// Takes the earliest event.
    pub fn pop(&mut self) -> Option<T> {
        let key = if self.lane_first()? { self.now_lane.pop_front() } else { self.heap.pop() }?;
        self.now_ms = key.at_ms;
        self.free.push(key.slot);
        self.slots[key.slot as usize].take()
    }

    /// The earliest event, left in the queue.
    pub fn peek(&self) -> Option<&T> {
        let key = if self.lane_first()? { self.now_lane.front() } else { self.heap.peek() }?;
        self.slots[key.slot as usize].as_ref()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty() && self.now_lane.is_empty()
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.now_lane.len()
    }

    /// Every pending event, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.slots.iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
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
        for (at, seq) in [(5, 0), (1, 1), (5, 2), (1, 3), (0, 4)] {
            q.push(E(at, seq));
        }
        assert_eq!(q.peek(), Some(&E(0, 4)));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| (e.0, e.1)).collect();
        assert_eq!(order, vec![(0, 4), (1, 1), (1, 3), (5, 0), (5, 2)]);
        assert!(q.is_empty());
        // Freed slots are filled again instead of growing the slab.
        q.push(E(2, 5));
        q.push(E(1, 6));
        assert_eq!(q.slots.len(), 5);
        assert_eq!(q.iter().count(), 2);
        assert_eq!(q.pop(), Some(E(1, 6)));
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn takes_events_in_the_order_a_plain_sort_gives_whatever_lane_they_wait_in() {
        // Random pushes and pops, many of them due at the time of the last
        // event taken (the lane's case), against a sorted list. The seed is
        // printed so a failure replays.
        for seed in 0..200u64 {
            let mut rng = crate::sim::rng::SimRng::new(seed);
            let mut q = EventQueue::new();
            let mut reference: Vec<(u64, u64)> = Vec::new();
            let (mut now, mut seq) = (0u64, 0u64);
            for _ in 0..400 {
                if rng.next_u32() % 3 != 0 {
                    let delay = match rng.next_u32() % 4 {
                        0 | 1 => 0,
                        2 => u64::from(rng.next_u32() % 3),
                        _ => u64::from(rng.next_u32() % 50),
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
