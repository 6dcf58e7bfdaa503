//! Kafka's `RequestManager`: at most one request in flight per peer, a
//! request timeout that frees the peer again, and a short backoff after an
//! error. Every state transition resets it, which is how responses to the
//! previous state's requests come to be ignored.

use super::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum PeerState {
    /// Waiting for the response with this correlation id until the deadline.
    InFlight {
        correlation_id: u64,
        deadline_ms: u64,
    },
    /// Not sending to this peer until the deadline.
    BackingOff { until_ms: u64 },
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Connections {
    peers: BTreeMap<u32, PeerState>,
}

impl Connections {
    /// Forgets every request in flight and every backoff.
    pub fn reset_all(&mut self) {
        self.peers.clear();
    }

    /// Drops in-flight requests that timed out and backoffs that ended.
    pub fn expire(&mut self, now_ms: u64) {
        self.peers.retain(|_, state| match state {
            PeerState::InFlight { deadline_ms, .. } => *deadline_ms > now_ms,
            PeerState::BackingOff { until_ms } => *until_ms > now_ms,
        });
    }

    /// A peer is ready when nothing is in flight to it and it is not backing
    /// off.
    pub fn is_ready(&mut self, peer: u32, now_ms: u64) -> bool {
        self.expire(now_ms);
        !self.peers.contains_key(&peer)
    }

    pub fn on_request_sent(&mut self, peer: u32, correlation_id: u64, deadline_ms: u64) {
        self.peers.insert(
            peer,
            PeerState::InFlight {
                correlation_id,
                deadline_ms,
            },
        );
    }

    /// Accepts a response if it is the one awaited from this peer, and frees
    /// the peer. Returns false for a response nobody waits for any more.
    pub fn on_response(&mut self, peer: u32, correlation_id: u64) -> bool {
        match self.peers.get(&peer) {
            Some(PeerState::InFlight {
                correlation_id: expected,
                ..
            }) if *expected == correlation_id => {
                self.peers.remove(&peer);
                true
            }
            _ => false,
        }
    }

    /// Holds off new requests to a peer whose response reported an error.
    pub fn back_off(&mut self, peer: u32, until_ms: u64) {
        self.peers.insert(peer, PeerState::BackingOff { until_ms });
    }

    /// The deadline of each peer's request or backoff, for the timers.
    pub fn deadlines(&self) -> Vec<(u32, u64)> {
        self.peers
            .iter()
            .map(|(peer, state)| match state {
                PeerState::InFlight { deadline_ms, .. } => (*peer, *deadline_ms),
                PeerState::BackingOff { until_ms } => (*peer, *until_ms),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_request_in_flight_per_peer() {
        let mut connections = Connections::default();
        assert!(connections.is_ready(2, 0));
        connections.on_request_sent(2, 7, 2_000);
        assert!(!connections.is_ready(2, 100));
        assert!(connections.is_ready(3, 100));
        assert!(
            !connections.on_response(2, 6),
            "a stale correlation id is ignored"
        );
        assert!(connections.on_response(2, 7));
        assert!(!connections.on_response(2, 7), "a duplicate is ignored");
        assert!(connections.is_ready(2, 100));
    }

    #[test]
    fn timeouts_and_backoffs_free_the_peer() {
        let mut connections = Connections::default();
        connections.on_request_sent(2, 1, 2_000);
        assert_eq!(connections.deadlines(), vec![(2, 2_000)]);
        assert!(!connections.is_ready(2, 1_999));
        assert!(connections.is_ready(2, 2_000));
        assert!(
            !connections.on_response(2, 1),
            "too late: the request timed out"
        );
        connections.back_off(2, 2_020);
        assert!(!connections.is_ready(2, 2_010));
        assert!(connections.is_ready(2, 2_020));
        connections.on_request_sent(3, 2, 9_000);
        connections.reset_all();
        assert!(connections.deadlines().is_empty());
    }
}
