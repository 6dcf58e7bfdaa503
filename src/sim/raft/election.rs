//! Vote counting (Kafka's `EpochElection`) and the randomised waits around
//! elections (`QuorumState.randomElectionTimeoutMs`,
//! `RaftUtil.binaryExponentialElectionBackoffMs`,
//! `KafkaRaftClient.strictExponentialElectionBackoffMs`).

use super::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// KafkaRaftClient.RETRY_BACKOFF_BASE_MS in Kafka 4.x: the unit of the
/// binary exponential election backoff.
pub const ELECTION_BACKOFF_BASE_MS: u64 = 50;

/// Kafka caps the exponent so that the random bound stays at 2048 units.
const ELECTION_BACKOFF_MAX_EXPONENT: u32 = 10;

/// A uniform draw in `[0, bound)` from the caller's random source, like
/// Java's `Random.nextInt(bound)`. A zero bound yields 0.
pub fn random_below(rng: &mut dyn FnMut() -> u64, bound: u64) -> u64 {
    if bound == 0 {
        0
    } else {
        rng() % bound
    }
}

/// A random election timeout in `[election_timeout_ms, 2 * election_timeout_ms)`,
/// so that voters rarely time out together and split the vote.
pub fn random_election_timeout_ms(election_timeout_ms: u64, rng: &mut dyn FnMut() -> u64) -> u64 {
    election_timeout_ms.saturating_add(random_below(rng, election_timeout_ms))
}

/// The wait after a lost election, growing with the number of elections this
/// node has lost in a row (`retries`, from 1): a random multiple of 50 ms
/// below `50 × 2^retries`, capped at `election_backoff_max_ms` plus a little
/// jitter so that capped candidates still do not collide. The randomness
/// breaks ties between candidates that keep splitting the vote; the growth
/// limits epoch churn when a node keeps losing.
pub fn binary_exponential_backoff_ms(
    retries: u32,
    election_backoff_max_ms: u64,
    rng: &mut dyn FnMut() -> u64,
) -> u64 {
    let exponent = retries.saturating_sub(1).min(ELECTION_BACKOFF_MAX_EXPONENT);
    let bound = 2u64 << exponent;
    let multiple = random_below(rng, bound);
    let jitter = random_below(rng, ELECTION_BACKOFF_BASE_MS);
    let backoff = ELECTION_BACKOFF_BASE_MS.saturating_mul(multiple + 1);
    backoff.min(election_backoff_max_ms.saturating_add(jitter))
}

/// The wait a follower sets after its leader resigns, from its place in the
/// leader's list of preferred successors: the first stands at once, later
/// ones wait exponentially longer, and one missing from the list waits the
/// longest.
pub fn strict_exponential_backoff_ms(
    position: u32,
    successors: u32,
    election_backoff_max_ms: u64,
) -> u64 {
    if position == 0 {
        return 0;
    }
    if position >= successors {
        return election_backoff_max_ms;
    }
    // Shifting a u64 by 64 or more is undefined, so the shifts are capped.
    let shift_down = (successors - 1).min(63);
    let shift_up = (position - 1).min(63);
    let base = election_backoff_max_ms >> shift_down;
    election_backoff_max_ms.min(base << shift_up)
}

/// One voter's answer as a nominee sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VoteState {
    Unrecorded,
    Granted,
    Rejected,
}

/// The votes of one election (or pre-election) among a fixed voter set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoteTally {
    votes: BTreeMap<u32, VoteState>,
}

impl VoteTally {
    /// A tally in which the nominee has already voted for itself.
    pub fn new(local_id: u32, voters: &[u32]) -> Self {
        let mut votes: BTreeMap<u32, VoteState> = voters
            .iter()
            .map(|id| (*id, VoteState::Unrecorded))
            .collect();
        votes.insert(local_id, VoteState::Granted);
        VoteTally { votes }
    }

    pub fn majority(&self) -> u32 {
        self.count_voters() / 2 + 1
    }

    fn count_voters(&self) -> u32 {
        u32::try_from(self.votes.len()).unwrap_or(u32::MAX)
    }

    fn count(&self, state: VoteState) -> u32 {
        let matching = self.votes.values().filter(|vote| **vote == state).count();
        u32::try_from(matching).unwrap_or(u32::MAX)
    }

    /// Records a voter's answer. Returns false, changing nothing, for a
    /// non-voter or for a voter whose answer is already recorded: a voter
    /// answers once per election.
    pub fn record(&mut self, voter: u32, granted: bool) -> bool {
        match self.votes.get_mut(&voter) {
            Some(vote @ VoteState::Unrecorded) => {
                *vote = if granted {
                    VoteState::Granted
                } else {
                    VoteState::Rejected
                };
                true
            }
            _ => false,
        }
    }

    pub fn is_granted(&self) -> bool {
        self.count(VoteState::Granted) >= self.majority()
    }

    /// True once the rejections make a majority of grants impossible.
    pub fn is_rejected(&self) -> bool {
        self.count(VoteState::Granted) + self.count(VoteState::Unrecorded) < self.majority()
    }

    pub fn voters_in(&self, state: VoteState) -> Vec<u32> {
        self.votes
            .iter()
            .filter(|(_, vote)| **vote == state)
            .map(|(id, _)| *id)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random source that replays fixed values.
    fn replay(values: &[u64]) -> impl FnMut() -> u64 + '_ {
        let mut index = 0;
        move || {
            let value = values[index % values.len()];
            index += 1;
            value
        }
    }

    #[test]
    fn election_timeout_is_within_one_to_two_timeouts() {
        let mut rng = replay(&[0, 999, 1000, 123_456_789]);
        let drawn: Vec<u64> = (0..4)
            .map(|_| random_election_timeout_ms(1_000, &mut rng))
            .collect();
        assert_eq!(drawn, vec![1_000, 1_999, 1_000, 1_789]);
    }

    #[test]
    fn backoff_grows_with_retries_and_is_capped() {
        // The largest draw at each retry count: multiple = bound - 1.
        for (retries, expected) in [(1, 100), (2, 200), (3, 400), (4, 800), (5, 1_000 + 49)] {
            let bound = 2u64 << (retries - 1);
            let draws = [bound - 1, 49];
            let mut rng = replay(&draws);
            assert_eq!(
                binary_exponential_backoff_ms(retries, 1_000, &mut rng),
                expected,
                "retries {retries}"
            );
        }
        let mut rng = replay(&[0, 0]);
        assert_eq!(binary_exponential_backoff_ms(1, 1_000, &mut rng), 50);
        // The exponent stops growing, so a huge retry count cannot overflow.
        let mut rng = replay(&[u64::MAX, 7]);
        assert_eq!(
            binary_exponential_backoff_ms(u32::MAX, 1_000, &mut rng),
            1_007
        );
    }

    #[test]
    fn successors_wait_by_their_rank() {
        assert_eq!(strict_exponential_backoff_ms(0, 2, 1_000), 0);
        assert_eq!(strict_exponential_backoff_ms(1, 2, 1_000), 500);
        assert_eq!(strict_exponential_backoff_ms(1, 4, 1_000), 125);
        assert_eq!(strict_exponential_backoff_ms(3, 4, 1_000), 500);
        assert_eq!(strict_exponential_backoff_ms(4, 4, 1_000), 1_000);
        assert_eq!(strict_exponential_backoff_ms(0, 0, 1_000), 0);
    }

    #[test]
    fn tally_needs_a_majority() {
        let mut tally = VoteTally::new(1, &[1, 2, 3, 4, 5]);
        assert_eq!(tally.majority(), 3);
        assert!(!tally.is_granted() && !tally.is_rejected());
        assert!(tally.record(2, true));
        assert!(!tally.record(2, false), "a voter answers once");
        assert!(!tally.record(9, true), "non-voters do not count");
        assert!(!tally.is_granted());
        assert!(tally.record(3, false));
        assert!(tally.record(4, false));
        assert!(!tally.is_rejected(), "voter 5 could still make it 3");
        assert!(tally.record(5, false));
        assert!(tally.is_rejected());
        assert_eq!(tally.voters_in(VoteState::Rejected), vec![3, 4, 5]);
        let alone = VoteTally::new(7, &[7]);
        assert!(alone.is_granted());
    }
}
