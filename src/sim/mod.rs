//! The simulation core: pure, deterministic Rust with no UI, browser or clock
//! inside. Nodes take messages and timers in and emit messages, timers and
//! trace events out; [`simulation::Simulation`] runs them.

pub mod broker;
pub mod client;
pub mod collections;
pub mod config;
pub mod controller;
pub mod control_plane;
pub mod error_code;
pub mod metadata;
pub mod metrics;
pub mod event_queue;
pub mod ids;
pub mod invariants;
pub mod load;
pub mod log;
pub mod node;
pub mod placement;
pub mod prose;
pub mod protocol;
pub mod purgatory;
pub mod raft;
pub mod record;
pub mod rng;
pub mod scenario;
pub mod simulation;
pub mod trace;
pub mod view;
pub mod workload;
