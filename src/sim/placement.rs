//! Replica placement as KRaft's active controller does it: Kafka's
//! `StripedReplicaPlacer` (metadata/placement), without racks.
//!
//! The usable brokers (registered and not shutting down) are sorted, and a
//! random offset picks where the first partition starts. Each partition takes
//! consecutive brokers from one step further along, unfenced brokers first,
//! so leaders and followers stripe evenly; a fenced broker is used only when
//! the unfenced ones are too few for the replication factor, and never leads.
//! Once as many partitions have been placed as there are unfenced brokers,
//! the list is shuffled so the same replica sets do not repeat. The ZooKeeper
//! era's `AdminUtils.assignReplicasToBrokers` is gone in Kafka 4.
//!
//! Kafka draws from `java.util.Random`; here the draws come through
//! [`PlacementRandom`], which the simulation's seeded RNG implements, and
//! which the tests implement as Kafka's own `MockRandom` so that Kafka's
//! expected placements can be checked as they are.

use super::rng::SimRng;

/// The draws the placer makes: `java.util.Random.nextInt(bound)`.
pub trait PlacementRandom {
    /// A value in `[0, bound)`; `bound` is at least 1.
    fn next_int(&mut self, bound: u32) -> u32;
}

impl PlacementRandom for SimRng {
    fn next_int(&mut self, bound: u32) -> u32 {
        self.below(bound as u64) as u32
    }
}

/// Why a topic cannot be placed: Kafka's InvalidReplicationFactorException,
/// with its three messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlacementError {
    /// The replication factor is 0.
    NotPositive,
    /// More replicas than registered brokers.
    TooFewBrokers { replication_factor: u32, brokers: u32 },
    /// Every usable broker is fenced, so none can lead.
    AllFenced,
}

/// One usable broker: its id and whether it is fenced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UsableBroker {
    pub id: u32,
    pub fenced: bool,
}

/// `StripedReplicaPlacer.place`: the replica list of each of `partitions`
/// partitions, preferred leader first.
pub fn assign_replicas(
    brokers: &[UsableBroker],
    partitions: u32,
    replication_factor: u32,
    random: &mut impl PlacementRandom,
) -> Result<Vec<Vec<u32>>, PlacementError> {
    let mut rack = RackList::new(brokers, random);
    rack.check(replication_factor)?;
    Ok((0..partitions).map(|_| rack.place(replication_factor, random)).collect())
}

/// `StripedReplicaPlacer.BrokerList`: brokers handed out in turn, starting one
/// further along at each new iteration epoch.
#[derive(Default)]
struct BrokerList {
    brokers: Vec<u32>,
    index: usize,
    offset: usize,
    epoch: u32,
}

impl BrokerList {
    fn initialize(&mut self, random: &mut impl PlacementRandom) {
        if !self.brokers.is_empty() {
            super::collections::sort_by_key(&mut self.brokers, |b| *b);
            self.offset = random.next_int(self.brokers.len() as u32) as usize;
        }
    }

    /// `Collections.shuffle(list, random)`: Fisher-Yates from the end.
    fn shuffle(&mut self, random: &mut impl PlacementRandom) {
        for i in (2..=self.brokers.len()).rev() {
            let j = random.next_int(i as u32) as usize;
            self.brokers.swap(i - 1, j);
        }
    }

    fn next(&mut self, epoch: u32) -> Option<u32> {
        if self.brokers.is_empty() {
            return None;
        }
        if self.epoch != epoch {
            self.epoch = epoch;
            self.index = 0;
            self.offset = (self.offset + 1) % self.brokers.len();
        }
        if self.index >= self.brokers.len() {
            return None;
        }
        let broker = self.brokers[(self.index + self.offset) % self.brokers.len()];
        self.index += 1;
        Some(broker)
    }
}

/// `StripedReplicaPlacer.RackList` with the one rack a cluster without
/// `broker.rack` has. With one rack, Kafka's walk over racks reduces to
/// taking the next broker of that rack, unfenced before fenced.
struct RackList {
    fenced: BrokerList,
    unfenced: BrokerList,
    epoch: u32,
}

impl RackList {
    fn new(brokers: &[UsableBroker], random: &mut impl PlacementRandom) -> Self {
        let mut fenced = BrokerList::default();
        let mut unfenced = BrokerList::default();
        for b in brokers {
            if b.fenced { &mut fenced } else { &mut unfenced }.brokers.push(b.id);
        }
        // Rack.initialize, then the rack offset: Kafka draws it even for one
        // rack, and drawing it too keeps the sequence of draws Kafka's.
        fenced.initialize(random);
        unfenced.initialize(random);
        if !brokers.is_empty() {
            random.next_int(1);
        }
        Self { fenced, unfenced, epoch: 0 }
    }

    fn check(&self, replication_factor: u32) -> Result<(), PlacementError> {
        let total = (self.fenced.brokers.len() + self.unfenced.brokers.len()) as u32;
        if replication_factor == 0 {
            Err(PlacementError::NotPositive)
        } else if self.unfenced.brokers.is_empty() {
            Err(PlacementError::AllFenced)
        } else if replication_factor > total {
            Err(PlacementError::TooFewBrokers { replication_factor, brokers: total })
        } else {
            Ok(())
        }
    }

    /// `RackList.place` for one partition; `check` has passed.
    fn place(&mut self, replication_factor: u32, random: &mut impl PlacementRandom) -> Vec<u32> {
        let unfenced_count = self.unfenced.brokers.len() as u32;
        // After as many placements as unfenced brokers, shuffle so the same
        // sets do not repeat; not for one broker, which would loop forever.
        if self.epoch == unfenced_count && unfenced_count > 1 {
            self.fenced.shuffle(random);
            self.unfenced.shuffle(random);
            self.epoch = 0;
        }
        let epoch = self.epoch;
        // The leader is always unfenced; the rest take unfenced brokers while
        // there are any, then fenced ones (Rack.next).
        let mut replicas = Vec::with_capacity(replication_factor as usize);
        replicas.extend(self.unfenced.next(epoch));
        while (replicas.len() as u32) < replication_factor {
            match self.unfenced.next(epoch).or_else(|| self.fenced.next(epoch)) {
                Some(b) => replicas.push(b),
                None => break,
            }
        }
        self.epoch += 1;
        replicas
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kafka's `MockRandom` (server-common's test utilities) under
    /// `java.util.Random.nextInt(bound)`, so Kafka's expected placements
    /// from `StripedReplicaPlacerTest` can be checked as they are.
    struct MockRandom {
        state: i64,
    }

    impl MockRandom {
        fn new() -> Self {
            Self { state: 17 }
        }

        fn next(&mut self, bits: u32) -> i32 {
            self.state = self.state.wrapping_mul(2862933555777941757).wrapping_add(3037000493);
            ((self.state as u64) >> (64 - bits)) as i32
        }
    }

    impl PlacementRandom for MockRandom {
        fn next_int(&mut self, bound: u32) -> u32 {
            let bound = bound as i32;
            let mut r = self.next(31);
            let m = bound - 1;
            if bound & m == 0 {
                r = ((bound as i64 * r as i64) >> 31) as i32;
            } else {
                let mut u = r;
                loop {
                    r = u % bound;
                    if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                        break;
                    }
                    u = self.next(31);
                }
            }
            r as u32
        }
    }

    fn usable(list: &[(u32, bool)]) -> Vec<UsableBroker> {
        list.iter().map(|&(id, fenced)| UsableBroker { id, fenced }).collect()
    }

    #[test]
    fn broker_list_hands_out_each_broker_once_per_epoch_starting_one_further() {
        // StripedReplicaPlacerTest.testBrokerList.
        let mut list = BrokerList { brokers: vec![0, 1, 2, 3], ..BrokerList::default() };
        let got: Vec<Option<u32>> = (0..6).map(|_| list.next(0)).collect();
        assert_eq!(got, vec![Some(0), Some(1), Some(2), Some(3), None, None]);
        let got: Vec<Option<u32>> = (0..5).map(|_| list.next(1)).collect();
        assert_eq!(got, vec![Some(1), Some(2), Some(3), Some(0), None]);
        assert_eq!(BrokerList::default().next(1), None);
    }

    #[test]
    fn a_fenced_broker_is_avoided_while_unfenced_ones_suffice() {
        // testAvoidFencedReplicaIfPossibleOnSingleRack.
        let mut random = MockRandom::new();
        let brokers = usable(&[(3, false), (1, true), (0, false), (4, false), (2, false)]);
        let mut rack = RackList::new(&brokers, &mut random);
        assert_eq!(rack.check(0), Err(PlacementError::NotPositive));
        let got: Vec<Vec<u32>> = (0..5).map(|_| rack.place(4, &mut random)).collect();
        assert_eq!(got, vec![vec![3, 4, 0, 2], vec![4, 0, 2, 3], vec![0, 2, 3, 4], vec![2, 3, 4, 0], vec![0, 4, 3, 2]]);
    }

    #[test]
    fn a_fenced_broker_is_used_as_a_follower_when_it_must_be() {
        // testPlacementOnFencedReplicaOnSingleRack.
        let mut random = MockRandom::new();
        let brokers = usable(&[(3, false), (1, true), (2, false)]);
        let mut rack = RackList::new(&brokers, &mut random);
        let got: Vec<Vec<u32>> = (0..4).map(|_| rack.place(3, &mut random)).collect();
        assert_eq!(got, vec![vec![3, 2, 1], vec![2, 3, 1], vec![3, 2, 1], vec![2, 3, 1]]);
    }

    #[test]
    fn matches_kafkas_placement_of_five_partitions_on_four_brokers() {
        // testSuccessfulPlacement.
        let brokers = usable(&[(0, false), (3, false), (2, false), (1, false)]);
        let got = assign_replicas(&brokers, 5, 3, &mut MockRandom::new()).unwrap();
        assert_eq!(got, vec![vec![2, 3, 0], vec![3, 0, 1], vec![0, 1, 2], vec![1, 2, 3], vec![1, 0, 2]]);
    }

    #[test]
    fn many_partitions_spread_as_kafkas_do() {
        // testEvenDistribution: 200 partitions, RF 2, on four brokers.
        let brokers = usable(&[(0, false), (1, false), (2, false), (3, false)]);
        let got = assign_replicas(&brokers, 200, 2, &mut MockRandom::new()).unwrap();
        let count = |a: u32, b: u32| got.iter().filter(|r| **r == [a, b]).count();
        let expected = [
            (0, 1, 14), (0, 2, 22), (0, 3, 14), (1, 0, 17), (1, 2, 17), (1, 3, 16),
            (2, 0, 13), (2, 1, 17), (2, 3, 20), (3, 0, 20), (3, 1, 19), (3, 2, 11),
        ];
        for (a, b, n) in expected {
            assert_eq!(count(a, b), n, "replicas [{a}, {b}]");
        }
    }

    #[test]
    fn one_unfenced_broker_takes_every_partition() {
        // testMultiPartitionTopicPlacementOnSingleUnfencedBroker.
        let brokers = usable(&[(0, false), (1, true)]);
        let got = assign_replicas(&brokers, 3, 1, &mut MockRandom::new()).unwrap();
        assert_eq!(got, vec![vec![0], vec![0], vec![0]]);
    }

    #[test]
    fn impossible_placements_say_why() {
        let two = usable(&[(11, false), (10, false)]);
        assert_eq!(
            assign_replicas(&two, 1, 3, &mut MockRandom::new()),
            Err(PlacementError::TooFewBrokers { replication_factor: 3, brokers: 2 })
        );
        assert_eq!(assign_replicas(&two, 1, 0, &mut MockRandom::new()), Err(PlacementError::NotPositive));
        let fenced = usable(&[(11, true), (10, true)]);
        assert_eq!(assign_replicas(&fenced, 1, 1, &mut MockRandom::new()), Err(PlacementError::AllFenced));
    }

    #[test]
    fn replicas_are_distinct_and_leaders_spread_evenly_under_the_simulations_rng() {
        for seed in 0..50u64 {
            let mut rng = SimRng::new(seed);
            let brokers = usable(&[(0, false), (1, false), (2, false), (3, false), (4, false)]);
            let assignment = assign_replicas(&brokers, 10, 3, &mut rng).unwrap();
            assert_eq!(assignment.len(), 10, "seed {seed}");
            let mut leaders = [0; 5];
            for replicas in &assignment {
                let mut sorted = replicas.clone();
                sorted.sort();
                sorted.dedup();
                assert_eq!(sorted.len(), 3, "seed {seed}: replicas {replicas:?} repeat a broker");
                leaders[replicas[0] as usize] += 1;
            }
            assert!(leaders.iter().all(|l| *l == 2), "seed {seed}: leaders {leaders:?} not spread evenly");
        }
    }
}
