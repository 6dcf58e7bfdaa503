//! A deterministic network of Raft nodes: one seeded xorshift RNG for every
//! decision, an event queue ordered by (time, sequence), per-link latency
//! with FIFO delivery (TCP keeps order), crashes that keep only the durable
//! state, and partitions that drop messages on cut links.
//!
//! After every event it checks the Raft safety properties by their paper
//! names and records any breach in `violations`:
//! - Election Safety: at most one leader per epoch.
//! - Leader Completeness: a new leader's log holds every committed entry.
//! - State Machine Safety: every node's log below its high watermark equals
//!   the committed prefix, and no committed entry is ever truncated.
//! - Commitment by majority: when a leader advances its high watermark, a
//!   majority of voters really hold the entry below it.
//!
//! The UI may use it too, for a stand-alone quorum demo.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;

use super::config::{ConfigError, RaftConfig};
use super::log::LogEntry;
use super::message::RaftMessage;
use super::node::{ProposeError, RaftError, RaftNode};
use super::output::{RaftEvent, RaftOutput, RaftTimer};
use super::state::RaftDurable;

#[cfg(test)]
mod scenarios;
#[cfg(test)]
mod tidy;

/// Marsaglia's xorshift64 with Vigna's multiplicative output (xorshift64*):
/// small, fast, and the same on every platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Xorshift64 {
    state: u64,
}

impl Xorshift64 {
    pub fn new(seed: u64) -> Self {
        // SplitMix64's finaliser spreads nearby seeds apart, and the state
        // of a xorshift generator must never be zero.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Xorshift64 {
            state: if z == 0 { 0x2545_F491_4F6C_DD1D } else { z },
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform-enough in `[0, bound)`; 0 for a zero bound.
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            0
        } else {
            self.next_u64() % bound
        }
    }

    /// Inclusive range.
    pub fn between(&mut self, low: u64, high: u64) -> u64 {
        if high <= low {
            low
        } else {
            low + self.below(high - low + 1)
        }
    }
}

/// The network's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimConfig {
    pub raft: RaftConfig,
    pub latency_ms_min: u64,
    pub latency_ms_max: u64,
    /// Also trace every message sent and dropped, not only node events.
    pub trace_messages: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            raft: RaftConfig::default(),
            latency_ms_min: 1,
            latency_ms_max: 10,
            trace_messages: false,
        }
    }
}

/// One line of the human-readable trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceLine {
    pub at_ms: u64,
    pub node: u32,
    pub text: String,
}

/// A node's event, kept for assertions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeEvent {
    pub at_ms: u64,
    pub node: u32,
    pub event: RaftEvent,
}

enum SimEvent<R> {
    Deliver {
        from: u32,
        to: u32,
        to_incarnation: u32,
        msg: RaftMessage<R>,
    },
    Timer {
        node: u32,
        incarnation: u32,
        timer: RaftTimer,
    },
}

struct Slot<R> {
    running: Option<RaftNode<R>>,
    /// What a crashed node left behind.
    crashed: Option<RaftDurable<R>>,
    /// Bumped on every crash, so that timers and connections of an earlier
    /// process die with it.
    incarnation: u32,
    /// How many entries of this node's log are known to equal the committed
    /// prefix.
    verified_prefix: usize,
}

pub struct SimNetwork<R> {
    now_ms: u64,
    rng: Xorshift64,
    config: SimConfig,
    voters: Vec<u32>,
    slots: BTreeMap<u32, Slot<R>>,
    queue: BTreeMap<(u64, u64), SimEvent<R>>,
    next_seq: u64,
    /// Directed links that drop every message.
    cut: BTreeSet<(u32, u32)>,
    /// The latest delivery time scheduled per directed link, for FIFO order.
    link_clock: BTreeMap<(u32, u32), u64>,
    trace: Vec<TraceLine>,
    events: Vec<NodeEvent>,
    leaders_by_epoch: BTreeMap<i32, u32>,
    committed: Vec<LogEntry<R>>,
    violations: Vec<String>,
    errors: Vec<(u64, u32, RaftError)>,
}

impl<R: Clone + Debug + PartialEq> SimNetwork<R> {
    pub fn new(seed: u64, voters: &[u32], config: SimConfig) -> Result<Self, ConfigError> {
        let mut slots = BTreeMap::new();
        for id in voters {
            let node = RaftNode::new(*id, voters, config.raft)?;
            slots.insert(
                *id,
                Slot {
                    running: Some(node),
                    crashed: None,
                    incarnation: 0,
                    verified_prefix: 0,
                },
            );
        }
        let mut sorted = voters.to_vec();
        sorted.sort_unstable();
        Ok(SimNetwork {
            now_ms: 0,
            rng: Xorshift64::new(seed),
            config,
            voters: sorted,
            slots,
            queue: BTreeMap::new(),
            next_seq: 0,
            cut: BTreeSet::new(),
            link_clock: BTreeMap::new(),
            trace: Vec::new(),
            events: Vec::new(),
            leaders_by_epoch: BTreeMap::new(),
            committed: Vec::new(),
            violations: Vec::new(),
            errors: Vec::new(),
        })
    }

    // ----- views -----

    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    pub fn voters(&self) -> &[u32] {
        &self.voters
    }

    pub fn node(&self, id: u32) -> Option<&RaftNode<R>> {
        self.slots.get(&id).and_then(|slot| slot.running.as_ref())
    }

    pub fn is_up(&self, id: u32) -> bool {
        self.node(id).is_some()
    }

    /// The log of a node whether it runs or lies crashed.
    pub fn log_of(&self, id: u32) -> &[LogEntry<R>] {
        match self.slots.get(&id) {
            Some(Slot {
                running: Some(node),
                ..
            }) => node.log(),
            Some(Slot {
                crashed: Some(durable),
                ..
            }) => durable.log.entries(),
            _ => &[],
        }
    }

    /// Running nodes that believe they lead, with their epochs.
    pub fn leaders(&self) -> Vec<(u32, i32)> {
        self.slots
            .iter()
            .filter_map(|(id, slot)| {
                slot.running
                    .as_ref()
                    .filter(|node| node.is_leader())
                    .map(|node| (*id, node.epoch()))
            })
            .collect()
    }

    /// The leader of the highest epoch among running nodes, if any.
    pub fn current_leader(&self) -> Option<u32> {
        self.leaders()
            .into_iter()
            .max_by_key(|(_, epoch)| *epoch)
            .map(|(id, _)| id)
    }

    pub fn committed(&self) -> &[LogEntry<R>] {
        &self.committed
    }

    pub fn violations(&self) -> &[String] {
        &self.violations
    }

    pub fn errors(&self) -> &[(u64, u32, RaftError)] {
        &self.errors
    }

    pub fn trace(&self) -> &[TraceLine] {
        &self.trace
    }

    pub fn events(&self) -> &[NodeEvent] {
        &self.events
    }

    /// The last lines of the trace, for failure messages.
    pub fn trace_tail(&self, lines: u32) -> String {
        let lines = usize::try_from(lines).unwrap_or(usize::MAX);
        let start = self.trace.len().saturating_sub(lines);
        self.trace[start..]
            .iter()
            .map(|line| format!("{:>7} ms  n{}  {}", line.at_ms, line.node, line.text))
            .collect::<Vec<String>>()
            .join("\n")
    }

    /// A draw from the network's RNG, for test schedules that must replay
    /// with the run.
    pub fn random_below(&mut self, bound: u64) -> u64 {
        self.rng.below(bound)
    }

    // ----- faults -----

    pub fn start_all(&mut self) {
        for id in self.voters.clone() {
            self.start(id);
        }
    }

    fn start(&mut self, id: u32) {
        let now_ms = self.now_ms;
        let mut out = Vec::new();
        let result = {
            let rng = &mut self.rng;
            let Some(node) = self
                .slots
                .get_mut(&id)
                .and_then(|slot| slot.running.as_mut())
            else {
                return;
            };
            let mut draw = || rng.next_u64();
            node.on_start(now_ms, &mut draw, &mut out)
        };
        self.trace_line(id, "started".to_string());
        self.after_input(id, result, out);
    }

    /// Kills a node: its volatile state and timers vanish, its log and
    /// election record stay.
    pub fn crash(&mut self, id: u32) {
        let Some(slot) = self.slots.get_mut(&id) else {
            return;
        };
        if let Some(node) = slot.running.take() {
            slot.crashed = Some(node.into_durable());
            slot.incarnation += 1;
            self.trace_line(id, "crashed".to_string());
        }
    }

    pub fn restart(&mut self, id: u32) {
        let voters = self.voters.clone();
        let raft = self.config.raft;
        let Some(slot) = self.slots.get_mut(&id) else {
            return;
        };
        let Some(durable) = slot.crashed.take() else {
            return;
        };
        match RaftNode::recover(id, &voters, raft, durable) {
            Ok(node) => slot.running = Some(node),
            Err(error) => {
                self.violations
                    .push(format!("n{id} could not recover: {error:?}"));
                return;
            }
        }
        self.start(id);
    }

    /// Cuts both directions between two nodes.
    pub fn partition(&mut self, a: u32, b: u32) {
        self.cut.insert((a, b));
        self.cut.insert((b, a));
        self.trace_line(a, format!("link to n{b} cut"));
    }

    /// Cuts a node off from every other.
    pub fn isolate(&mut self, id: u32) {
        for other in self.voters.clone() {
            if other != id {
                self.cut.insert((id, other));
                self.cut.insert((other, id));
            }
        }
        self.trace_line(id, "isolated".to_string());
    }

    /// Splits the voters into two sides that cannot talk to each other.
    pub fn split(&mut self, side: &[u32]) {
        for a in side {
            for b in self.voters.clone() {
                if !side.contains(&b) {
                    self.cut.insert((*a, b));
                    self.cut.insert((b, *a));
                }
            }
        }
        self.trace_line(
            side.first().copied().unwrap_or(0),
            format!("split {side:?} from the rest"),
        );
    }

    pub fn heal(&mut self) {
        self.cut.clear();
        self.trace_line(0, "network healed".to_string());
    }

    // ----- client -----

    pub fn propose(&mut self, id: u32, record: R) -> Result<i64, ProposeError> {
        let now_ms = self.now_ms;
        let mut out = Vec::new();
        let Some(node) = self
            .slots
            .get_mut(&id)
            .and_then(|slot| slot.running.as_mut())
        else {
            return Err(ProposeError::NotStarted);
        };
        let result = node.propose(now_ms, record, &mut out);
        self.after_input(id, Ok(()), out);
        result
    }

    pub fn resign(&mut self, id: u32) -> Result<(), ProposeError> {
        let now_ms = self.now_ms;
        let mut out = Vec::new();
        let result = {
            let rng = &mut self.rng;
            let Some(node) = self
                .slots
                .get_mut(&id)
                .and_then(|slot| slot.running.as_mut())
            else {
                return Err(ProposeError::NotStarted);
            };
            let mut draw = || rng.next_u64();
            node.resign(now_ms, &mut draw, &mut out)
        };
        self.after_input(id, Ok(()), out);
        result
    }

    // ----- running -----

    /// Processes the next event; false when the queue is empty.
    pub fn step(&mut self) -> bool {
        let Some(((at_ms, _), event)) = self.queue.pop_first() else {
            return false;
        };
        self.now_ms = self.now_ms.max(at_ms);
        match event {
            SimEvent::Deliver {
                from,
                to,
                to_incarnation,
                msg,
            } => self.deliver(from, to, to_incarnation, msg),
            SimEvent::Timer {
                node,
                incarnation,
                timer,
            } => self.fire(node, incarnation, timer),
        }
        true
    }

    /// Runs every event up to and including `until_ms`, then sets the clock
    /// there.
    pub fn run_until(&mut self, until_ms: u64) {
        while let Some(((at_ms, _), _)) = self.queue.first_key_value() {
            if *at_ms > until_ms {
                break;
            }
            self.step();
        }
        self.now_ms = self.now_ms.max(until_ms);
    }

    pub fn run_for(&mut self, duration_ms: u64) {
        self.run_until(self.now_ms.saturating_add(duration_ms));
    }

    /// Runs until `condition` holds (checked after each event) or the time
    /// limit passes; returns whether it held.
    pub fn run_until_condition(
        &mut self,
        limit_ms: u64,
        condition: impl Fn(&Self) -> bool,
    ) -> bool {
        loop {
            if condition(self) {
                return true;
            }
            match self.queue.first_key_value() {
                Some(((at_ms, _), _)) if *at_ms <= limit_ms => {
                    self.step();
                }
                _ => {
                    self.now_ms = self.now_ms.max(limit_ms);
                    return condition(self);
                }
            }
        }
    }

    fn schedule(&mut self, at_ms: u64, event: SimEvent<R>) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.insert((at_ms, seq), event);
    }

    fn deliver(&mut self, from: u32, to: u32, to_incarnation: u32, msg: RaftMessage<R>) {
        if self.cut.contains(&(from, to)) {
            if self.config.trace_messages {
                self.trace_line(
                    to,
                    format!("dropped {} from n{from} (link cut)", msg.api_name()),
                );
            }
            return;
        }
        let now_ms = self.now_ms;
        let mut out = Vec::new();
        let result = {
            let rng = &mut self.rng;
            let Some(slot) = self.slots.get_mut(&to) else {
                return;
            };
            // A message to a node that crashed since it was sent went down
            // with the connection.
            if slot.incarnation != to_incarnation {
                return;
            }
            let Some(node) = slot.running.as_mut() else {
                return;
            };
            let mut draw = || rng.next_u64();
            node.on_message(now_ms, from, msg, &mut draw, &mut out)
        };
        self.after_input(to, result, out);
    }

    fn fire(&mut self, id: u32, incarnation: u32, timer: RaftTimer) {
        let now_ms = self.now_ms;
        let mut out = Vec::new();
        let result = {
            let rng = &mut self.rng;
            let Some(slot) = self.slots.get_mut(&id) else {
                return;
            };
            if slot.incarnation != incarnation {
                return;
            }
            let Some(node) = slot.running.as_mut() else {
                return;
            };
            let mut draw = || rng.next_u64();
            node.on_timer(now_ms, timer, &mut draw, &mut out)
        };
        self.after_input(id, result, out);
    }

    fn after_input(&mut self, id: u32, result: Result<(), RaftError>, out: Vec<RaftOutput<R>>) {
        if let Err(error) = result {
            self.trace_line(id, format!("ERROR {error:?}"));
            self.errors.push((self.now_ms, id, error));
        }
        let incarnation = self.slots.get(&id).map_or(0, |slot| slot.incarnation);
        for output in out {
            match output {
                RaftOutput::Send { to, msg } => self.send(id, to, msg),
                RaftOutput::SetTimer { after_ms, timer } => {
                    let at_ms = self.now_ms.saturating_add(after_ms);
                    self.schedule(
                        at_ms,
                        SimEvent::Timer {
                            node: id,
                            incarnation,
                            timer,
                        },
                    );
                }
                RaftOutput::Event(event) => {
                    self.check_event(id, &event);
                    self.trace_line(id, format!("{event:?}"));
                    self.events.push(NodeEvent {
                        at_ms: self.now_ms,
                        node: id,
                        event,
                    });
                }
            }
        }
    }

    fn send(&mut self, from: u32, to: u32, msg: RaftMessage<R>) {
        let Some(to_incarnation) = self.slots.get(&to).map(|slot| slot.incarnation) else {
            self.violations.push(format!(
                "n{from} sent {} to unknown node {to}",
                msg.api_name()
            ));
            return;
        };
        let latency_ms = self
            .rng
            .between(self.config.latency_ms_min, self.config.latency_ms_max);
        let link = (from, to);
        let earliest = self.link_clock.get(&link).copied().unwrap_or(0);
        let at_ms = self.now_ms.saturating_add(latency_ms).max(earliest);
        self.link_clock.insert(link, at_ms);
        if self.config.trace_messages {
            self.trace_line(from, format!("send {} to n{to}", msg.api_name()));
        }
        self.schedule(
            at_ms,
            SimEvent::Deliver {
                from,
                to,
                to_incarnation,
                msg,
            },
        );
    }

    fn trace_line(&mut self, node: u32, text: String) {
        self.trace.push(TraceLine {
            at_ms: self.now_ms,
            node,
            text,
        });
    }

    // ----- invariants -----

    fn check_event(&mut self, id: u32, event: &RaftEvent) {
        match event {
            RaftEvent::BecameLeader { epoch, .. } => {
                if let Some(other) = self.leaders_by_epoch.insert(*epoch, id) {
                    if other != id {
                        self.violations.push(format!(
                            "Election Safety: n{other} and n{id} both led epoch {epoch} (t={} ms)",
                            self.now_ms
                        ));
                    }
                }
                let log = self.log_of(id);
                let complete = log.len() >= self.committed.len()
                    && log[..self.committed.len()] == self.committed[..];
                if !complete {
                    self.violations.push(format!(
                        "Leader Completeness: n{id} leads epoch {epoch} without every committed entry (t={} ms)",
                        self.now_ms
                    ));
                }
            }
            RaftEvent::HighWatermarkAdvanced { to, .. } => self.check_commit(id, *to),
            RaftEvent::Truncated { to, .. } => {
                let to = usize::try_from(*to).unwrap_or(0);
                let now_ms = self.now_ms;
                if let Some(slot) = self.slots.get_mut(&id) {
                    if slot.verified_prefix > to {
                        let verified = slot.verified_prefix;
                        slot.verified_prefix = to;
                        self.violations.push(format!(
                            "State Machine Safety: n{id} truncated to {to} below its committed prefix {verified} (t={now_ms} ms)"
                        ));
                    }
                }
            }
            _ => {}
        }
    }

    /// A node's high watermark reached `to`: its entries below must match
    /// the committed prefix, which they may extend; and if it leads, a
    /// majority must hold the entry just below.
    fn check_commit(&mut self, id: u32, to: i64) {
        let to = usize::try_from(to).unwrap_or(0);
        let log = self.log_of(id).to_vec();
        if log.len() < to {
            self.violations.push(format!(
                "n{id} has a high watermark {to} beyond its log end {}",
                log.len()
            ));
            return;
        }
        let verified = self
            .slots
            .get(&id)
            .map_or(0, |slot| slot.verified_prefix)
            .min(to);
        for (offset, local) in log.iter().enumerate().take(to).skip(verified) {
            match self.committed.get(offset) {
                Some(entry) if entry != local => {
                    self.violations.push(format!(
                        "State Machine Safety: n{id} committed {local:?} at offset {offset} where {entry:?} was committed (t={} ms)",
                        self.now_ms
                    ));
                    return;
                }
                Some(_) => {}
                None => self.committed.push(local.clone()),
            }
        }
        if let Some(slot) = self.slots.get_mut(&id) {
            slot.verified_prefix = slot.verified_prefix.max(to);
        }
        let is_leader = self.node(id).is_some_and(|node| node.is_leader());
        if is_leader && to > 0 {
            let entry = &log[to - 1];
            let holders = self
                .voters
                .iter()
                .filter(|voter| self.log_of(**voter).get(to - 1) == Some(entry))
                .count();
            if holders < self.voters.len() / 2 + 1 {
                self.violations.push(format!(
                    "n{id} advanced its high watermark to {to} with only {holders} of {} voters holding offset {} (t={} ms)",
                    self.voters.len(),
                    to - 1,
                    self.now_ms
                ));
            }
        }
    }
}
