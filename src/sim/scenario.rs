//! Scenarios: a whole run (cluster, topics, clients, timed actions, end time)
//! as one JSON document, so it can be kept in a file, given to the CLI, or
//! carried in a share link.
//!
//! The format maps straight onto [`ClusterConfig`] and [`Command`]: the
//! cluster, topic and client settings use Kafka's own config names, and an
//! action is a `Command` in its own serde form with an `at_ms` beside it.
//! Unknown fields are refused everywhere, so a misspelt config name is an
//! error with its line and column instead of a silent default.
//!
//! Everything here is pure: parsing, validating and running never touch a
//! file or a clock.

use super::config::{BrokerConfig, TopicSpec};
use super::client::producer::RecordState;
use super::protocol::ErrorCode;
use super::simulation::{ClientSpec, ClusterConfig, Command, CommandError, ConfigError, MetadataSource, Simulation};
use serde::{Deserialize, Serialize};
use crate::sim::collections::BTreeMap;
use std::fmt;

/// The seed a scenario runs with when neither it nor the caller names one.
pub const DEFAULT_SEED: u64 = 1;

/// How long a scenario without `run_until_ms` runs past its last action.
pub const DEFAULT_RUN_AFTER_LAST_ACTION_MS: u64 = 1_000;

/// A whole run, as the JSON document describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The seed of the run's one RNG; [`DEFAULT_SEED`] when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(default)]
    pub cluster: ClusterShape,
    #[serde(default, deserialize_with = "topics_from_json")]
    pub topics: Vec<TopicSpec>,
    /// Client `i` is `client: i` in the actions.
    #[serde(default, deserialize_with = "clients_from_json")]
    pub clients: Vec<ClientSpec>,
    /// In time order.
    #[serde(default, deserialize_with = "actions_from_json")]
    pub actions: Vec<TimedAction>,
    /// When the run stops; [`DEFAULT_RUN_AFTER_LAST_ACTION_MS`] after the
    /// last action when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_until_ms: Option<u64>,
}

/// The cluster part of [`ClusterConfig`]: everything but topics and clients,
/// which a scenario lists at its top level.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClusterShape {
    pub brokers: u32,
    /// Every broker's settings, under Kafka's names.
    pub broker: BrokerConfig,
    pub link_latency_ms: u64,
    pub link_jitter_ms: u64,
    /// Dedicated KRaft controllers forming the metadata quorum: 1, 3 (the
    /// default, like ClusterConfig's) or 5. 0 gives the brokers a fixed
    /// assignment and no control plane ([`MetadataSource::Fixed`]).
    pub controllers: u32,
    /// KIP-996 pre-vote in the controller quorum: true, Kafka 4.0's
    /// behaviour, unless the scenario says false.
    pub pre_vote: bool,
}

impl Default for ClusterShape {
    fn default() -> Self {
        let c = ClusterConfig::default();
        Self {
            brokers: c.brokers,
            broker: c.broker,
            link_latency_ms: c.link_latency_ms,
            link_jitter_ms: c.link_jitter_ms,
            controllers: c.metadata.voters(),
            pre_vote: c.metadata.pre_vote(),
        }
    }
}

/// One action: a [`Command`] (its `action` field says which) and when to
/// give it.
///
/// serde cannot combine `deny_unknown_fields` with `flatten`, but nothing is
/// lost: every field but `at_ms` goes to `Command`, which denies unknown ones.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimedAction {
    /// Simulated time of the command; the run first steps up to it.
    pub at_ms: u64,
    #[serde(flatten)]
    pub command: Command,
}

/// Reads a list whose element errors name the element, `actions[2]: ...`:
/// serde_json reports a flattened action's error at the end of its object,
/// so the index is what points at it.
fn indexed_list<'de, D, T>(d: D, what: &'static str) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct ListVisitor<T> {
        what: &'static str,
        element: std::marker::PhantomData<T>,
    }
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for ListVisitor<T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "a list of {}", self.what)
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::new();
            loop {
                match seq.next_element::<T>() {
                    Ok(Some(x)) => out.push(x),
                    Ok(None) => return Ok(out),
                    Err(e) => {
                        let text = e.to_string();
                        let message = without_position(&text);
                        return Err(serde::de::Error::custom(format!("{}[{}]: {message}", self.what, out.len())));
                    }
                }
            }
        }
    }
    d.deserialize_seq(ListVisitor { what, element: std::marker::PhantomData })
}

fn topics_from_json<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<TopicSpec>, D::Error> {
    indexed_list(d, "topics")
}

fn clients_from_json<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<ClientSpec>, D::Error> {
    indexed_list(d, "clients")
}

fn actions_from_json<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<TimedAction>, D::Error> {
    indexed_list(d, "actions")
}

/// serde_json's message without its trailing ` at line L column C`.
fn without_position(message: &str) -> &str {
    if let Some(i) = message.rfind(" at line ") {
        let tail = &message[i + " at line ".len()..];
        if let Some((line, column)) = tail.split_once(" column ") {
            if !line.is_empty()
                && !column.is_empty()
                && line.bytes().all(|b| b.is_ascii_digit())
                && column.bytes().all(|b| b.is_ascii_digit())
            {
                return &message[..i];
            }
        }
    }
    message
}

/// Why a scenario cannot be read or run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenarioError {
    /// The text is not JSON, or not a scenario. `line` and `column` count
    /// from 1, as serde_json reports them (0 when it does not know).
    Json { line: usize, column: usize, message: String },
    /// The JSON is a scenario, but not a runnable one (actions out of order,
    /// an end before the last action).
    Invalid(String),
    /// The cluster cannot be simulated, with Kafka's error.
    Config(ConfigError),
    /// The simulation refused action number `index` (counting from 0).
    Command { index: usize, at_ms: u64, error: CommandError },
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScenarioError::Json { line: 0, message, .. } => write!(f, "{message}"),
            ScenarioError::Json { line, column, message } => write!(f, "line {line}, column {column}: {message}"),
            ScenarioError::Invalid(message) => write!(f, "{message}"),
            ScenarioError::Config(e) => write!(f, "{e}"),
            ScenarioError::Command { index, at_ms, error } => {
                write!(f, "actions[{index}] (at {at_ms}ms) was refused: {error}")
            }
        }
    }
}

impl std::error::Error for ScenarioError {}

impl From<ConfigError> for ScenarioError {
    fn from(e: ConfigError) -> Self {
        ScenarioError::Config(e)
    }
}

impl From<serde_json::Error> for ScenarioError {
    fn from(e: serde_json::Error) -> Self {
        // serde_json ends its message with the position; keep it only once.
        let message = without_position(&e.to_string()).to_string();
        ScenarioError::Json { line: e.line(), column: e.column(), message }
    }
}

impl Scenario {
    /// Parses and checks a scenario. Configuration errors Kafka would give
    /// (replication factor over the broker count, …) come from [`Scenario::run`].
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let scenario: Scenario = serde_json::from_str(text)?;
        scenario.check()?;
        Ok(scenario)
    }

    /// The scenario as pretty-printed JSON, every setting spelt out;
    /// [`Scenario::from_json`] reads it back to an equal scenario.
    pub fn to_json(&self) -> String {
        // Plain data with string keys only: serializing cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The configuration `Simulation::new` gets.
    pub fn cluster_config(&self) -> ClusterConfig {
        ClusterConfig {
            brokers: self.cluster.brokers,
            broker: self.cluster.broker.clone(),
            topics: self.topics.clone(),
            clients: self.clients.clone(),
            link_latency_ms: self.cluster.link_latency_ms,
            link_jitter_ms: self.cluster.link_jitter_ms,
            metadata: match self.cluster.controllers {
                0 => MetadataSource::Fixed,
                voters => MetadataSource::Quorum { voters, pre_vote: self.cluster.pre_vote },
            },
        }
    }

    /// The seed a run uses: the override, else the scenario's, else
    /// [`DEFAULT_SEED`].
    pub fn seed_for(&self, seed_override: Option<u64>) -> u64 {
        seed_override.or(self.seed).unwrap_or(DEFAULT_SEED)
    }

    /// When the run stops.
    pub fn end_ms(&self) -> u64 {
        self.run_until_ms.unwrap_or_else(|| {
            self.actions.last().map_or(0, |a| a.at_ms).saturating_add(DEFAULT_RUN_AFTER_LAST_ACTION_MS)
        })
    }

    /// Checks what serde cannot: actions in time order, the end after them.
    pub fn check(&self) -> Result<(), ScenarioError> {
        for (i, pair) in self.actions.windows(2).enumerate() {
            if pair[1].at_ms < pair[0].at_ms {
                return Err(ScenarioError::Invalid(format!(
                    "actions[{}] is at {}ms, before actions[{i}] at {}ms: list actions in time order",
                    i + 1,
                    pair[1].at_ms,
                    pair[0].at_ms
                )));
            }
        }
        if let (Some(end), Some(last)) = (self.run_until_ms, self.actions.last()) {
            if end < last.at_ms {
                return Err(ScenarioError::Invalid(format!(
                    "run_until_ms {end} is before the last action (actions[{}] at {}ms)",
                    self.actions.len() - 1,
                    last.at_ms
                )));
            }
        }
        Ok(())
    }

    /// Runs the scenario: builds the cluster, then for each action steps the
    /// simulation up to its `at_ms` and gives the command, then steps up to
    /// the end. A refused command stops the run with the action's index.
    pub fn run(&self, seed_override: Option<u64>) -> Result<Simulation, ScenarioError> {
        self.check()?;
        let mut sim = Simulation::new(self.cluster_config(), self.seed_for(seed_override))?;
        for (index, action) in self.actions.iter().enumerate() {
            sim.run_until(action.at_ms);
            sim.command(action.command.clone()).map_err(|error| ScenarioError::Command {
                index,
                at_ms: action.at_ms,
                error,
            })?;
        }
        sim.run_until(self.end_ms());
        Ok(sim)
    }
}

/// What a run achieved, client by client.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunSummary {
    pub end_ms: u64,
    pub steps: u64,
    pub trace_events: usize,
    pub trace_hash: u64,
    pub producers: Vec<ProducerSummary>,
    pub consumers: Vec<ConsumerSummary>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProducerSummary {
    pub client: u32,
    /// Records handed to `send()`.
    pub sent: u32,
    /// Records a broker acknowledged with an offset.
    pub acknowledged: u32,
    /// acks=0 records: sent, never acknowledged by design.
    pub sent_without_ack: u32,
    /// Records still waiting for metadata, a batch or a response.
    pub pending: u32,
    pub failures: Vec<RecordFailure>,
}

/// A record whose send failed, with the error the producer got.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordFailure {
    /// The record's number among the producer's sends, from 0.
    pub record: u32,
    pub topic: String,
    pub partition: Option<u32>,
    pub error: ErrorCode,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsumerSummary {
    pub client: u32,
    /// Records received, over all partitions.
    pub consumed: u32,
    /// Records received per partition (`orders-0`), in name order.
    pub per_partition: Vec<(String, u32)>,
}

impl RunSummary {
    /// Reads the clients' outcomes off a finished run.
    pub fn of(sim: &Simulation) -> RunSummary {
        let mut producers = Vec::new();
        let mut consumers = Vec::new();
        for client in 0..sim.config().clients.len() as u32 {
            if let Some(p) = sim.producer(client) {
                let mut s = ProducerSummary {
                    client,
                    sent: p.records().len() as u32,
                    acknowledged: 0,
                    sent_without_ack: 0,
                    pending: 0,
                    failures: Vec::new(),
                };
                for r in p.records() {
                    match &r.state {
                        RecordState::Acknowledged { .. } => s.acknowledged += 1,
                        RecordState::SentWithoutAck => s.sent_without_ack += 1,
                        RecordState::Failed { error } => s.failures.push(RecordFailure {
                            record: r.index,
                            topic: r.topic.clone(),
                            partition: r.partition,
                            error: *error,
                        }),
                        RecordState::AwaitingMetadata | RecordState::Accumulating | RecordState::InFlight { .. } => {
                            s.pending += 1
                        }
                    }
                }
                producers.push(s);
            } else if let Some(c) = sim.consumer(client) {
                let mut per: BTreeMap<String, u32> = BTreeMap::new();
                for r in c.consumed() {
                    *per.entry(r.partition.to_string()).or_default() += 1;
                }
                consumers.push(ConsumerSummary {
                    client,
                    consumed: c.consumed().len() as u32,
                    per_partition: per.into_iter().collect(),
                });
            }
        }
        RunSummary {
            end_ms: sim.now_ms(),
            steps: sim.steps(),
            trace_events: sim.trace().len(),
            trace_hash: sim.trace_hash(),
            producers,
            consumers,
        }
    }

    /// Every failed record of every producer, as (client, failure).
    pub fn failures(&self) -> impl Iterator<Item = (u32, &RecordFailure)> {
        self.producers.iter().flat_map(|p| p.failures.iter().map(move |f| (p.client, f)))
    }
}

impl fmt::Display for RunSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "summary: {} steps, {} trace events up to {}ms, trace hash {:#018x}",
            self.steps, self.trace_events, self.end_ms, self.trace_hash
        )?;
        for p in &self.producers {
            write!(f, "  client-{} producer: {} sent, {} acknowledged", p.client, p.sent, p.acknowledged)?;
            if p.sent_without_ack > 0 {
                write!(f, ", {} sent without ack (acks=0)", p.sent_without_ack)?;
            }
            writeln!(f, ", {} failed, {} pending", p.failures.len(), p.pending)?;
            for x in &p.failures {
                let tp = match x.partition {
                    Some(n) => format!("{}-{n}", x.topic),
                    None => x.topic.clone(),
                };
                writeln!(f, "    record {} to {tp} failed: {}", x.record, x.error.name())?;
            }
        }
        for c in &self.consumers {
            write!(f, "  client-{} consumer: {} records consumed", c.client, c.consumed)?;
            if !c.per_partition.is_empty() {
                let parts: Vec<String> = c.per_partition.iter().map(|(tp, n)| format!("{tp}: {n}")).collect();
                write!(f, " ({})", parts.join(", "))?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
