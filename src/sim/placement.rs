//! Replica placement as Kafka's `AdminUtils.assignReplicasToBrokers` does it
//! without racks: the first replica of partition p goes to broker
//! (start + p) mod n, and the followers follow at a shift that grows by one
//! each time the partitions have wrapped around all brokers, so leaders and
//! followers spread evenly. Kafka draws `start` and the first shift at random;
//! here they come from the simulation's seeded RNG.

use super::rng::SimRng;

/// The replica list of each partition, preferred leader first.
pub fn assign_replicas(brokers: &[u32], partitions: u32, replication_factor: u32, rng: &mut SimRng) -> Vec<Vec<u32>> {
    let n = brokers.len() as u32;
    if n == 0 || replication_factor == 0 || replication_factor > n {
        return Vec::new();
    }
    let start = rng.below(n as u64) as u32;
    let mut shift = rng.below(n as u64) as u32;
    let mut out = Vec::with_capacity(partitions as usize);
    for p in 0..partitions {
        if p > 0 && p % n == 0 {
            shift += 1;
        }
        let first = (p + start) % n;
        let mut replicas = vec![brokers[first as usize]];
        for j in 0..replication_factor - 1 {
            replicas.push(brokers[replica_index(first, shift, j, n) as usize]);
        }
        out.push(replicas);
    }
    out
}

/// Kafka's `replicaIndex`: never the first replica's broker, never twice.
fn replica_index(first: u32, shift: u32, j: u32, n: u32) -> u32 {
    let offset = 1 + (shift + j) % (n - 1);
    (first + offset) % n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replicas_are_distinct_and_leaders_spread_evenly() {
        for seed in 0..50u64 {
            let mut rng = SimRng::new(seed);
            let brokers: Vec<u32> = (0..5).collect();
            let assignment = assign_replicas(&brokers, 10, 3, &mut rng);
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

    #[test]
    fn matches_kafkas_layout_for_a_fixed_start() {
        // Kafka's AdminUtils doc example: 5 brokers, 10 partitions, RF 3,
        // start index 0 and shift 0 give these assignments for p0..p4.
        let n = 5;
        let got: Vec<Vec<u32>> = (0..5)
            .map(|p| {
                let first = p % n;
                let mut r = vec![first];
                for j in 0..2 {
                    r.push(replica_index(first, 0, j, n));
                }
                r
            })
            .collect();
        assert_eq!(got, vec![vec![0, 1, 2], vec![1, 2, 3], vec![2, 3, 4], vec![3, 4, 0], vec![4, 0, 1]]);
    }

    #[test]
    fn impossible_replication_factor_gives_nothing() {
        let mut rng = SimRng::new(1);
        assert!(assign_replicas(&[0, 1], 3, 3, &mut rng).is_empty());
    }
}
