//! KafkaScope: a Kafka cluster that runs in the browser, so a learner can
//! watch it work.
//!
//! # Code map
//!
//! - [`sim`] is the simulation core: pure, deterministic Rust. It never
//!   touches the browser, the clock or any I/O, so the same code runs in the
//!   page, in native tests and in the `kafkascope-cli` binary.
//!   - [`sim::simulation`]: the event queue ordered by (time, sequence), the
//!     links between nodes, the trace, and the user [`sim::simulation::Command`]s.
//!   - [`sim::broker`]: a broker's request path (socket buffers, network
//!     threads, request queue, I/O threads, response queues) and its logs.
//!   - [`sim::controller`]: the KRaft controllers (metadata records,
//!     registration, heartbeats, fencing, leader election) over
//!     [`sim::raft`], the quorum's Raft; [`sim::broker::control`] is the
//!     brokers' side.
//!   - [`sim::client`]: producer clients.
//!   - [`sim::protocol`]: requests, responses and Kafka's error codes.
//!   - [`sim::trace`]: the typed trace events and their one-line text form.
//!   - [`sim::view`]: the plain view-model structs the UI draws.
//!   - [`sim::rng`]: the one seeded RNG (PCG32).
//! - [`ui`] is the Yew front end. It reads [`sim::view`] and [`sim::trace`]
//!   only, never a node's internals.
//!   - [`ui::session`]: the UI's state outside any component: the simulation
//!     plus the snapshots that make **Step back** exact.
//!   - [`ui::narrate`]: one sentence for each trace event.
//!   - [`ui::components`]: the components, one a file; [`ui::state`]: the state and its reducer.
//! - `src/main.rs` only mounts the app; `src/bin/kafkascope-cli.rs` is the
//!   headless command line over the same core.

pub mod sim;
pub mod ui;
