//! The cluster a learner sets up in the Setup form: brokers, topics, the
//! main producer's acks, min.insync.replicas, unclean.leader.election.enable
//! and the seed. It is plain data (its JSON names, in the serde derives and in
//! `ui::share`'s link form alike, are Kafka's config names), so share links
//! carry it as it is, and it turns into the simulation's [`ClusterConfig`]
//! the same way every time.

use crate::sim::config::{parse_acks, ConsumerConfig, ProducerConfig, TopicSpec};
use crate::sim::simulation::{ClientSpec, ClusterConfig, ConfigError, MetadataSource};
use serde::{Deserialize, Serialize};

/// The most brokers the page offers (the core takes more, but nine already
/// fill a wide screen).
pub const MAX_BROKERS: u32 = 9;
/// The most partitions per topic the page offers, so every one stays visible.
pub const MAX_PARTITIONS: u32 = 32;
/// The most topics the form holds.
pub const MAX_TOPICS: usize = 8;

/// One topic of the setup.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopicSetup {
    pub name: String,
    pub partitions: u32,
    #[serde(rename = "replication.factor")]
    pub replication_factor: u32,
}

/// Everything the Setup form chooses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    pub brokers: u32,
    /// KRaft controller voters: 1, 3 or 5 dedicated controller nodes.
    /// Links made before the page had controllers have none in their JSON;
    /// they open with Kafka's usual three.
    #[serde(default = "default_controllers")]
    pub controllers: u32,
    /// Consumers (1 to [`MAX_CONSUMERS`]), each fetching on its own. Links
    /// made before there was a choice have none in their JSON: one, as then.
    #[serde(default = "default_consumers")]
    pub consumers: u32,
    pub topics: Vec<TopicSetup>,
    /// The acks of producer client-0, which the Produce form uses by
    /// default; its other two acks choices use client-1 and client-2.
    #[serde(serialize_with = "acks_to_json", deserialize_with = "acks_from_json")]
    pub acks: i16,
    /// Set on every topic (a topic-level override, as `kafka-topics.sh
    /// --config min.insync.replicas=N` would).
    #[serde(rename = "min.insync.replicas")]
    pub min_insync_replicas: u32,
    /// Set on every topic: whether the active controller may elect a leader
    /// from outside the ISR when no ISR replica is alive.
    #[serde(rename = "unclean.leader.election.enable")]
    pub unclean_leader_election_enable: bool,
    /// KIP-996 pre-vote in the controller quorum, on as in Kafka 4.0. Links
    /// made before the page had the choice have none in their JSON: off, the
    /// election they were made with, so they replay the same.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pre_vote: bool,
    pub seed: u64,
}

/// Three controller voters, the size of quorum Kafka's docs recommend.
pub(crate) fn default_controllers() -> u32 {
    3
}

pub(crate) fn default_consumers() -> u32 {
    1
}

/// The page offers up to three consumers side by side.
pub const MAX_CONSUMERS: u32 = 3;

impl Default for Setup {
    fn default() -> Self {
        Self {
            brokers: 3,
            controllers: default_controllers(),
            consumers: default_consumers(),
            topics: vec![TopicSetup { name: "orders".into(), partitions: 3, replication_factor: 3 }],
            acks: -1,
            min_insync_replicas: 1,
            unclean_leader_election_enable: false,
            pre_vote: true,
            seed: super::session::DEFAULT_SEED,
        }
    }
}

/// Why the form's values were refused before the simulation saw them, or
/// the simulation's own refusal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// A field that must hold a whole number does not.
    NotANumber { field: Field, text: String },
    /// A KRaft quorum has 1, 3 or 5 voters on the page.
    Controllers(u32),
    /// The page offers 1 to [`MAX_CONSUMERS`] consumers.
    Consumers(u32),
    /// The page offers 1 to [`MAX_BROKERS`] brokers.
    Brokers(u32),
    /// The page shows at most [`MAX_PARTITIONS`] partitions per topic.
    TooManyPartitions { topic: String, partitions: u32 },
    /// At most [`MAX_TOPICS`] topics; at least one.
    Topics(usize),
    /// The simulation refused the cluster, with Kafka's error.
    Config(ConfigError),
}

/// A field of the Setup form, to name it in a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    Brokers,
    Partitions(usize),
    ReplicationFactor(usize),
    MinInsyncReplicas,
    Seed,
}

/// The other acks values, for client-1 and client-2, in the order all, 1, 0.
fn other_acks(acks: i16) -> [i16; 2] {
    let mut rest = [-1i16, 1, 0].into_iter().filter(|a| *a != acks);
    [rest.next().unwrap_or(1), rest.next().unwrap_or(0)]
}

/// A producer with this acks: idempotent only with acks=all, since Kafka
/// refuses enable.idempotence=true with any other acks.
fn producer(acks: i16) -> ProducerConfig {
    ProducerConfig { acks, enable_idempotence: acks == -1, ..ProducerConfig::default() }
}

impl Setup {
    /// The simulation's configuration: the brokers, the topics (each with
    /// min.insync.replicas), three producers (client-0 with the chosen acks,
    /// client-1 and client-2 with the other two) and the consumers (client-3
    /// on).
    pub fn cluster_config(&self) -> ClusterConfig {
        let [a1, a2] = other_acks(self.acks);
        ClusterConfig {
            brokers: self.brokers,
            metadata: MetadataSource::Quorum { voters: self.controllers, pre_vote: self.pre_vote },
            topics: self
                .topics
                .iter()
                .map(|t| {
                    let mut spec = TopicSpec::new(t.name.clone(), t.partitions, t.replication_factor);
                    spec.config.min_insync_replicas = Some(self.min_insync_replicas);
                    spec.config.unclean_leader_election_enable = self.unclean_leader_election_enable;
                    spec
                })
                .collect(),
            clients: vec![
                ClientSpec::Producer(producer(self.acks)),
                ClientSpec::Producer(producer(a1)),
                ClientSpec::Producer(producer(a2)),
            ]
            .into_iter()
            .chain((0..self.consumers).map(|_| ClientSpec::Consumer(ConsumerConfig::default())))
            .collect(),
            ..ClusterConfig::default()
        }
    }

    /// The producer (client index) that sends with this acks.
    pub fn producer_for_acks(&self, acks: i16) -> u32 {
        let [a1, a2] = other_acks(self.acks);
        match acks {
            a if a == self.acks => 0,
            a if a == a1 => 1,
            a if a == a2 => 2,
            _ => 0,
        }
    }

    /// The client index of consumer `n` (0-based); the first is client-3.
    pub fn consumer(&self, n: u32) -> u32 {
        CONSUMER + n.min(self.consumers.saturating_sub(1))
    }

    /// The page's own limits, checked before the simulation's: the
    /// simulation would take more brokers and partitions than fit on screen.
    pub fn check_page_limits(&self) -> Result<(), SetupError> {
        if self.brokers == 0 || self.brokers > MAX_BROKERS {
            return Err(SetupError::Brokers(self.brokers));
        }
        if !matches!(self.controllers, 1 | 3 | 5) {
            return Err(SetupError::Controllers(self.controllers));
        }
        if !(1..=MAX_CONSUMERS).contains(&self.consumers) {
            return Err(SetupError::Consumers(self.consumers));
        }
        if self.topics.is_empty() || self.topics.len() > MAX_TOPICS {
            return Err(SetupError::Topics(self.topics.len()));
        }
        if let Some(t) = self.topics.iter().find(|t| t.partitions > MAX_PARTITIONS) {
            return Err(SetupError::TooManyPartitions { topic: t.name.clone(), partitions: t.partitions });
        }
        Ok(())
    }

    /// Turns the setup into a fresh session, or says why it cannot be one.
    /// Nothing else changes either way.
    pub fn start(&self) -> Result<super::session::Session, SetupError> {
        self.check_page_limits()?;
        super::session::Session::booted(self.cluster_config(), self.seed).map_err(SetupError::Config)
    }
}

/// The first consumer of every setup's cluster (after the three producers).
pub const CONSUMER: u32 = 3;

fn acks_to_json<S: serde::Serializer>(acks: &i16, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match acks {
        -1 => "all",
        1 => "1",
        _ => "0",
    })
}

fn acks_from_json<'de, D: serde::Deserializer<'de>>(d: D) -> Result<i16, D::Error> {
    let text = String::deserialize(d)?;
    parse_acks(&text).map_err(serde::de::Error::custom)
}

/// What the form's text fields hold, before they are read as numbers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupDraft {
    pub brokers: String,
    pub controllers: u32,
    pub consumers: u32,
    /// (name, partitions, replication factor)
    pub topics: Vec<(String, String, String)>,
    pub acks: i16,
    pub min_insync_replicas: String,
    pub unclean_leader_election_enable: bool,
    pub pre_vote: bool,
    pub seed: String,
}

impl From<&Setup> for SetupDraft {
    fn from(s: &Setup) -> Self {
        Self {
            brokers: s.brokers.to_string(),
            controllers: s.controllers,
            consumers: s.consumers,
            topics: s
                .topics
                .iter()
                .map(|t| (t.name.clone(), t.partitions.to_string(), t.replication_factor.to_string()))
                .collect(),
            acks: s.acks,
            min_insync_replicas: s.min_insync_replicas.to_string(),
            unclean_leader_election_enable: s.unclean_leader_election_enable,
            pre_vote: s.pre_vote,
            seed: s.seed.to_string(),
        }
    }
}

fn number<T: std::str::FromStr>(text: &str, field: Field) -> Result<T, SetupError> {
    text.trim().parse().map_err(|_| SetupError::NotANumber { field, text: text.to_string() })
}

impl SetupDraft {
    /// Reads the fields as a setup. Names are kept as typed (the simulation
    /// checks them against Kafka's rule); numbers must be whole and not
    /// negative.
    pub fn parse(&self) -> Result<Setup, SetupError> {
        let brokers = number(&self.brokers, Field::Brokers)?;
        let mut topics = Vec::new();
        for (i, (name, partitions, rf)) in self.topics.iter().enumerate() {
            topics.push(TopicSetup {
                name: name.trim().to_string(),
                partitions: number(partitions, Field::Partitions(i))?,
                replication_factor: number(rf, Field::ReplicationFactor(i))?,
            });
        }
        Ok(Setup {
            brokers,
            controllers: self.controllers,
            consumers: self.consumers,
            topics,
            acks: self.acks,
            min_insync_replicas: number(&self.min_insync_replicas, Field::MinInsyncReplicas)?,
            unclean_leader_election_enable: self.unclean_leader_election_enable,
            pre_vote: self.pre_vote,
            seed: number(&self.seed, Field::Seed)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::protocol::ErrorCode;

    #[test]
    fn the_default_setup_is_the_default_cluster() {
        let s = Setup::default();
        let config = s.cluster_config();
        assert_eq!(config.brokers, 3);
        assert_eq!(config.topics.len(), 1);
        assert_eq!((config.topics[0].partitions, config.topics[0].replication_factor), (3, 3));
        assert!(s.start().is_ok());
        let acks: Vec<i16> = config
            .clients
            .iter()
            .filter_map(|c| match c {
                ClientSpec::Producer(p) => Some(p.acks),
                ClientSpec::Consumer(_) => None,
            })
            .collect();
        assert_eq!(acks, vec![-1, 1, 0]);
        assert_eq!((s.producer_for_acks(-1), s.producer_for_acks(1), s.producer_for_acks(0)), (0, 1, 2));
    }

    #[test]
    fn the_chosen_acks_is_client_0_and_the_others_stay_available() {
        let s = Setup { acks: 1, ..Setup::default() };
        let config = s.cluster_config();
        let ClientSpec::Producer(p0) = &config.clients[0] else { panic!() };
        assert_eq!((p0.acks, p0.enable_idempotence), (1, false));
        for acks in [-1, 1, 0] {
            let client = s.producer_for_acks(acks) as usize;
            let ClientSpec::Producer(p) = &config.clients[client] else { panic!() };
            assert_eq!(p.acks, acks);
        }
        assert!(matches!(config.clients[CONSUMER as usize], ClientSpec::Consumer(_)));
    }

    #[test]
    fn impossible_setups_are_refused_with_kafkas_errors() {
        let rf4 = Setup {
            topics: vec![TopicSetup { name: "orders".into(), partitions: 3, replication_factor: 4 }],
            ..Setup::default()
        };
        match rf4.start() {
            Err(SetupError::Config(e)) => assert_eq!(e.error(), ErrorCode::InvalidReplicationFactor),
            other => panic!("{other:?}"),
        }
        let zero = Setup {
            topics: vec![TopicSetup { name: "orders".into(), partitions: 0, replication_factor: 1 }],
            ..Setup::default()
        };
        assert!(matches!(zero.start(), Err(SetupError::Config(e)) if e.error() == ErrorCode::InvalidPartitions));
        let bad_name = Setup {
            topics: vec![TopicSetup { name: "no spaces".into(), partitions: 1, replication_factor: 1 }],
            ..Setup::default()
        };
        assert!(matches!(bad_name.start(), Err(SetupError::Config(e)) if e.error() == ErrorCode::InvalidConfig));
        assert_eq!(Setup { brokers: 10, ..Setup::default() }.start().err(), Some(SetupError::Brokers(10)));
        assert_eq!(Setup { brokers: 0, ..Setup::default() }.start().err(), Some(SetupError::Brokers(0)));
        for n in [0, 2, 4, 7] {
            assert_eq!(Setup { controllers: n, ..Setup::default() }.start().err(), Some(SetupError::Controllers(n)));
        }
        let isr0 = Setup { min_insync_replicas: 0, ..Setup::default() };
        assert!(matches!(isr0.start(), Err(SetupError::Config(e)) if e.error() == ErrorCode::InvalidConfig));
    }

    #[test]
    fn the_draft_reads_numbers_or_names_the_field() {
        let mut d = SetupDraft::from(&Setup::default());
        assert_eq!(d.parse(), Ok(Setup::default()));
        d.topics[0].2 = "three".into();
        assert_eq!(d.parse(), Err(SetupError::NotANumber { field: Field::ReplicationFactor(0), text: "three".into() }));
        d.topics[0].2 = "-1".into();
        assert!(matches!(d.parse(), Err(SetupError::NotANumber { .. })));
    }

    #[test]
    fn setup_json_uses_kafkas_names() {
        let s = Setup { unclean_leader_election_enable: true, ..Setup::default() };
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"replication.factor\":3"), "{json}");
        assert!(json.contains("\"acks\":\"all\""), "{json}");
        assert!(json.contains("\"unclean.leader.election.enable\":true"), "{json}");
        assert_eq!(serde_json::from_str::<Setup>(&json).unwrap(), s);
    }

    #[test]
    fn consumers_are_clients_after_the_producers_and_old_links_get_one() {
        let s = Setup { consumers: 3, ..Setup::default() };
        let config = s.cluster_config();
        let consumers: Vec<usize> =
            config.clients.iter().enumerate().filter(|(_, c)| matches!(c, ClientSpec::Consumer(_))).map(|(i, _)| i).collect();
        assert_eq!(consumers, vec![3, 4, 5]);
        assert_eq!((s.consumer(0), s.consumer(2), s.consumer(7)), (3, 5, 5));
        assert_eq!(Setup::default().consumer(1), 3, "one consumer: every fetch is client-3's");
        let mut json: serde_json::Value = serde_json::to_value(&s).unwrap();
        assert_eq!(json["consumers"], 3);
        json.as_object_mut().unwrap().remove("consumers");
        assert_eq!(serde_json::from_value::<Setup>(json).unwrap().consumers, 1);
        for n in [0, MAX_CONSUMERS + 1] {
            assert_eq!(Setup { consumers: n, ..Setup::default() }.start().err(), Some(SetupError::Consumers(n)));
        }
        let session = Setup { consumers: 2, ..Setup::default() }.start().unwrap();
        assert_eq!(session.view().consumers.len(), 2);
    }

    #[test]
    fn a_setup_without_controllers_in_its_json_gets_three() {
        let mut json: serde_json::Value = serde_json::to_value(Setup { controllers: 5, ..Setup::default() }).unwrap();
        assert_eq!(json["controllers"], 5);
        json.as_object_mut().unwrap().remove("controllers");
        assert_eq!(serde_json::from_value::<Setup>(json).unwrap().controllers, 3);
    }

    #[test]
    fn a_started_setup_opens_with_the_cluster_up() {
        for controllers in [1, 3, 5] {
            let session = Setup { controllers, ..Setup::default() }.start().unwrap();
            let view = session.view();
            assert!(session.sim().steps() > 0, "the boot was stepped through");
            assert!(session.can_step_back(), "the boot stays on the timeline");
            let quorum = view.quorum.as_ref().expect("a quorum");
            assert!(quorum.active.is_some(), "{controllers} controllers elected one");
            for p in &view.partitions {
                assert!(p.leader.is_some(), "{}-{} has a leader", p.topic, p.partition);
                assert_eq!(p.isr.len(), 3);
            }
            assert!(view.brokers.iter().all(|b| b.status == crate::sim::view::BrokerStatus::Running));
        }
    }
}
