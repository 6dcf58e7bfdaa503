//! The KRaft controller quorum's Raft for the KafkaScope simulation: Kafka's
//! `KafkaRaftClient` and `QuorumState` rewritten as a pure, sans-I/O state
//! machine.
//!
//! A [`node::RaftNode`] never reads a clock, draws its own random numbers or
//! touches a socket. The caller hands it the time (`now_ms`), a source of
//! random `u64`s backed by the simulation's single seeded RNG, and each input
//! (start, timer, message, proposal); the node answers by pushing
//! [`output::RaftOutput`]s (messages to send, timers to set, typed events for
//! the trace) into a `Vec` the caller owns.
//!
//! Code map:
//! - `config`: `RaftConfig` with Kafka's defaults (`controller.quorum.*`).
//! - `log`: the metadata log in memory, with Kafka's epoch/offset validation
//!   and truncation rules.
//! - `message`: the RPCs (Vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch).
//! - `output`: outputs, timers and trace events.
//! - `election`: vote tallies and Kafka's election timeouts and backoffs.
//! - `connection`: Kafka's `RequestManager`, one request in flight per peer.
//! - `leader`: the leader's replica progress, high watermark and check-quorum.
//! - `state`: the epoch states (`Unattached`, `Prospective`, `Candidate`,
//!   `Follower`, `Leader`, `Resigned`), the durable election record, views.
//! - `node`: `RaftNode`, the handlers and the transitions between states.
//! - `testkit`: a deterministic network of nodes (seeded xorshift RNG,
//!   latency, crashes, partitions) with the Raft safety invariants checked
//!   after every event; the scenario tests live under it.
//!
//! Architecture Invariant: nothing here imports `std::time`, a random number
//! generator, a hash map or a hash set, so a run replays exactly from its seed
//! on wasm32 and native alike.

pub mod config;
pub mod connection;
pub mod election;
pub mod leader;
pub mod log;
pub mod message;
pub mod node;
pub mod output;
pub mod state;
pub mod testkit;

/// The ordered maps and sets the tree uses: the crate's sorted vectors,
/// which are much smaller in the page than std's B-tree (see
/// `sim::collections`). A standalone copy of the tree can make this
/// `std::collections`; the API is the same.
pub(crate) use super::collections;
