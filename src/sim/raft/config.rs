//! The quorum's timing configuration, named after Kafka's
//! `controller.quorum.*` settings (raft/.../QuorumConfig.java).

use serde::{Deserialize, Serialize};

/// Timeouts and switches for one Raft node. Every duration is in milliseconds
/// of simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaftConfig {
    /// `controller.quorum.fetch.timeout.ms`: a voter that has not fetched
    /// successfully from its leader for this long starts an election, and a
    /// leader that a majority has not fetched from within 1.5 times this long
    /// resigns (check-quorum).
    pub fetch_timeout_ms: u64,
    /// `controller.quorum.election.timeout.ms`: an election (or a wait in the
    /// unattached or resigned state) lasts a random time in
    /// `[election_timeout_ms, 2 * election_timeout_ms)`.
    pub election_timeout_ms: u64,
    /// `controller.quorum.election.backoff.max.ms`: the cap of the binary
    /// exponential backoff after a lost election.
    pub election_backoff_max_ms: u64,
    /// How long the leader may hold a fetch that has nothing to return
    /// (long poll); KafkaRaftManager passes 500 ms for the metadata log.
    pub fetch_max_wait_ms: u64,
    /// `controller.quorum.request.timeout.ms`: a request with no response
    /// after this long frees its peer's connection for a new request.
    pub request_timeout_ms: u64,
    /// `controller.quorum.retry.backoff.ms`: the pause before retrying a
    /// peer whose response reported an error.
    pub retry_backoff_ms: u64,
    /// KIP-996 pre-vote: when set, a node that times out first asks for
    /// pre-votes in its current epoch (the Prospective state) and bumps the
    /// epoch only once a majority would vote for it. On by default, as in
    /// Kafka 4.0, whose voters all support it; off shows the 3.x election,
    /// where a voter that times out bumps the epoch at once.
    pub pre_vote: bool,
    /// The most log entries one fetch response carries; Kafka bounds a fetch
    /// by bytes (8 MiB), the simulation by entries.
    pub fetch_max_entries: u32,
}

impl Default for RaftConfig {
    fn default() -> Self {
        RaftConfig {
            fetch_timeout_ms: 2_000,
            election_timeout_ms: 1_000,
            election_backoff_max_ms: 1_000,
            fetch_max_wait_ms: 500,
            request_timeout_ms: 2_000,
            retry_backoff_ms: 20,
            pre_vote: true,
            fetch_max_entries: 512,
        }
    }
}

/// Why a configuration or a voter set cannot run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConfigError {
    /// A zero fetch timeout would make every follower start an election at
    /// once and every leader resign at once.
    ZeroFetchTimeout,
    /// A zero election timeout leaves no room for randomised timeouts, so
    /// split votes would repeat forever.
    ZeroElectionTimeout,
    /// A long poll at least as long as the request timeout would make every
    /// idle fetch look lost.
    FetchWaitNotBelowRequestTimeout {
        fetch_max_wait_ms: u64,
        request_timeout_ms: u64,
    },
    /// A fetch that may carry no entries could never make progress.
    ZeroFetchMaxEntries,
    /// A quorum needs at least one voter.
    NoVoters,
    /// Each voter id may appear once.
    DuplicateVoter { id: u32 },
    /// This module models voters only; observers are not simulated.
    NotAVoter { id: u32 },
}

impl RaftConfig {
    /// Checks the values that would make the protocol unable to work.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.fetch_timeout_ms == 0 {
            return Err(ConfigError::ZeroFetchTimeout);
        }
        if self.election_timeout_ms == 0 {
            return Err(ConfigError::ZeroElectionTimeout);
        }
        if self.fetch_max_wait_ms >= self.request_timeout_ms {
            return Err(ConfigError::FetchWaitNotBelowRequestTimeout {
                fetch_max_wait_ms: self.fetch_max_wait_ms,
                request_timeout_ms: self.request_timeout_ms,
            });
        }
        if self.fetch_max_entries == 0 {
            return Err(ConfigError::ZeroFetchMaxEntries);
        }
        Ok(())
    }

    /// LeaderState.CHECK_QUORUM_TIMEOUT_FACTOR is 1.5, which tolerates a
    /// little network and I/O time on top of the followers' fetch timeout.
    pub fn check_quorum_timeout_ms(&self) -> u64 {
        self.fetch_timeout_ms.saturating_mul(3) / 2
    }

    /// The leader repeats BeginQuorumEpoch every half fetch timeout so that a
    /// voter which missed it still finds the leader before it times out.
    pub fn begin_quorum_epoch_period_ms(&self) -> u64 {
        self.fetch_timeout_ms / 2
    }
}

/// Sorts the voter ids and checks that `id` is one of them.
pub fn validate_voters(id: u32, voters: &[u32]) -> Result<Vec<u32>, ConfigError> {
    if voters.is_empty() {
        return Err(ConfigError::NoVoters);
    }
    let mut sorted = voters.to_vec();
    // An insertion sort of a few ids (a quorum has 1, 3 or 5): std's sort would link its
    // whole quicksort into the page for this one list.
    for i in 1..sorted.len() {
        let mut j = i;
        while j > 0 && sorted[j - 1] > sorted[j] {
            sorted.swap(j - 1, j);
            j -= 1;
        }
    }
    for pair in sorted.windows(2) {
        if pair[0] == pair[1] {
            return Err(ConfigError::DuplicateVoter { id: pair[0] });
        }
    }
    if sorted.binary_search(&id).is_err() {
        return Err(ConfigError::NotAVoter { id });
    }
    Ok(sorted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_kafkas() {
        let config = RaftConfig::default();
        assert_eq!(config.fetch_timeout_ms, 2_000);
        assert_eq!(config.election_timeout_ms, 1_000);
        assert_eq!(config.election_backoff_max_ms, 1_000);
        assert_eq!(config.fetch_max_wait_ms, 500);
        assert_eq!(config.check_quorum_timeout_ms(), 3_000);
        assert_eq!(config.begin_quorum_epoch_period_ms(), 1_000);
        assert_eq!(config.validate(), Ok(()));
    }

    #[test]
    fn bad_configs_are_refused() {
        let config = RaftConfig {
            fetch_timeout_ms: 0,
            ..RaftConfig::default()
        };
        assert_eq!(config.validate(), Err(ConfigError::ZeroFetchTimeout));
        let config = RaftConfig {
            fetch_max_wait_ms: 2_000,
            ..RaftConfig::default()
        };
        assert!(matches!(
            config.validate(),
            Err(ConfigError::FetchWaitNotBelowRequestTimeout { .. })
        ));
        assert_eq!(validate_voters(1, &[]), Err(ConfigError::NoVoters));
        assert_eq!(
            validate_voters(1, &[1, 2, 2]),
            Err(ConfigError::DuplicateVoter { id: 2 })
        );
        assert_eq!(
            validate_voters(4, &[1, 2, 3]),
            Err(ConfigError::NotAVoter { id: 4 })
        );
        assert_eq!(validate_voters(2, &[3, 1, 2]), Ok(vec![1, 2, 3]));
    }
}
