//! The UI's state outside any component: the running simulation and the
//! snapshots that make **Step back** restore exactly the previous state.
//!
//! This is plain Rust, so native tests cover it.

use crate::sim::config::{ConsumerConfig, ProducerConfig, TopicSpec};
use crate::sim::simulation::{ClientSpec, ClusterConfig, Command, CommandError, ConfigError, Simulation};
use crate::sim::trace::TraceEvent;
use crate::sim::view::ClusterView;

/// The seed a fresh page starts with.
pub const DEFAULT_SEED: u64 = 1;

#[derive(Clone, Debug)]
pub struct Session {
    sim: Simulation,
    /// One snapshot before every action that changed the simulation.
    history: Vec<Simulation>,
}

impl Session {
    pub fn new(config: ClusterConfig, seed: u64) -> Result<Self, ConfigError> {
        Ok(Self { sim: Simulation::new(config, seed)?, history: Vec::new() })
    }

    pub fn sim(&self) -> &Simulation {
        &self.sim
    }

    pub fn view(&self) -> ClusterView {
        self.sim.view()
    }

    /// Processes the next event that does something visible; false when
    /// there was none (nothing changes). A timer that finds nothing to do
    /// leaves no trace, so it is folded into the next step.
    pub fn step(&mut self) -> bool {
        if !self.sim.has_pending() {
            return false;
        }
        self.history.push(self.sim.clone());
        let before = self.sim.trace().len();
        while self.sim.step() {
            if self.sim.trace().len() > before {
                break;
            }
        }
        true
    }

    /// Undoes the last step or command; false when at the start.
    pub fn step_back(&mut self) -> bool {
        match self.history.pop() {
            Some(previous) => {
                self.sim = previous;
                true
            }
            None => false,
        }
    }

    pub fn can_step_back(&self) -> bool {
        !self.history.is_empty()
    }

    /// Issues a user command; a refused one changes nothing.
    pub fn command(&mut self, command: Command) -> Result<(), CommandError> {
        let before = self.sim.clone();
        self.sim.command(command)?;
        self.history.push(before);
        Ok(())
    }

    /// What the last step did, to narrate.
    pub fn last_step_trace(&self) -> &[TraceEvent] {
        self.sim.trace_of_step(self.sim.steps())
    }
}

/// The cluster a fresh page shows: three brokers and one topic of three
/// partitions, each replicated to all three, so replication is visible from
/// the first produce.
pub fn default_cluster() -> ClusterConfig {
    ClusterConfig {
        brokers: 3,
        topics: vec![TopicSpec::new("orders", 3, 3)],
        clients: vec![
            ClientSpec::Producer(ProducerConfig { acks: -1, ..ProducerConfig::default() }),
            ClientSpec::Producer(ProducerConfig { acks: 1, enable_idempotence: false, ..ProducerConfig::default() }),
            ClientSpec::Producer(ProducerConfig { acks: 0, enable_idempotence: false, ..ProducerConfig::default() }),
            ClientSpec::Consumer(ConsumerConfig::default()),
        ],
        ..ClusterConfig::default()
    }
}

/// acks is a producer setting in Kafka, so each choice in the form uses its
/// own producer of the default cluster.
pub fn producer_for_acks(acks: i16) -> u32 {
    match acks {
        1 => 1,
        0 => 2,
        _ => 0,
    }
}

/// The default cluster's consumer.
pub const CONSUMER: u32 = 3;

impl Default for Session {
    fn default() -> Self {
        Self::new(default_cluster(), DEFAULT_SEED).expect("the default cluster is valid")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn produce() -> Command {
        Command::Produce {
            client: 0,
            topic: "orders".into(),
            key: Some("k".into()),
            value: Some("v".into()),
            headers: vec![],
            partition: None,
            timestamp_ms: None,
        }
    }

    #[test]
    fn step_back_restores_the_previous_state_exactly() {
        let mut s = Session::default();
        s.command(produce()).unwrap();
        for _ in 0..5 {
            assert!(s.step());
        }
        let before = (s.view(), s.sim().trace().to_vec());
        assert!(s.step());
        assert_ne!(s.view(), before.0, "a step changes the view");
        assert!(s.step_back());
        assert_eq!((s.view(), s.sim().trace().to_vec()), before);
        // And stepping forward again replays the same step.
        assert!(s.step());
        let again = s.view();
        assert!(s.step_back());
        assert!(s.step());
        assert_eq!(s.view(), again);
    }

    #[test]
    fn step_back_at_the_start_does_nothing() {
        let mut s = Session::default();
        assert!(!s.can_step_back());
        assert!(!s.step_back());
        assert_eq!(s.view().step, 0);
    }

    #[test]
    fn a_refused_command_keeps_the_state() {
        let mut s = Session::default();
        s.command(produce()).unwrap();
        s.step();
        let before = s.view();
        let bad = Command::Produce {
            client: 0,
            topic: "nope".into(),
            key: None,
            value: None,
            headers: vec![],
            partition: None,
            timestamp_ms: None,
        };
        assert!(s.command(bad).is_err());
        assert_eq!(s.view(), before);
        assert!(s.step_back(), "history still holds the earlier actions");
    }
}
