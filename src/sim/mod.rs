//! The simulation core: pure, deterministic Rust with no UI, browser or clock
//! inside. Nodes take messages and timers in and emit messages, timers and
//! trace events out; [`simulation::Simulation`] runs them.

pub mod broker;
pub mod client;
pub mod ids;
pub mod node;
pub mod protocol;
pub mod rng;
pub mod simulation;
pub mod trace;
pub mod view;
