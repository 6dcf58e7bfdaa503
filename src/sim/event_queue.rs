//! The simulation's event queue: a min-heap ordered by (time, sequence).
//!
//! Events are large (a message with its request or response body), and a
//! binary heap moves its elements on every push and pop. So the heap holds
//! only small keys, (time, sequence, slot), and the events sit still in a
//! slab of slots that are reused once their event has been taken.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
        Self { heap: BinaryHeap::new(), slots: Vec::new(), free: Vec::new() }
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
        self.heap.push(Key { at_ms, seq, slot });
    }

    /// Takes the earliest event.
    pub fn pop(&mut self) -> Option<T> {
        let key = self.heap.pop()?;
        self.free.push(key.slot);
        self.slots[key.slot as usize].take()
    }

    /// The earliest event, left in the queue.
    pub fn peek(&self) -> Option<&T> {
        let key = self.heap.peek()?;
        self.slots[key.slot as usize].as_ref()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    pub fn len(&self) -> usize {
        self.heap.len()
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
}
