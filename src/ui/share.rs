//! Share links: the whole session in the URL's fragment, `#s=…`.
//!
//! The fragment holds a JSON document (the [`Setup`] under Kafka's config
//! names, every command of the timeline in the scenario format's own
//! `Command` form with the step count it came at instead of a time, the
//! timeline's end and the position shown), encoded as base64url without
//! padding (RFC 4648 §5) so it survives being pasted anywhere. The fragment
//! never leaves the browser: opening a link sends nothing to a server.
//!
//! Opening a link replays the log ([`Session::replay`]): the simulation is
//! deterministic, so the same seed, configuration and commands give the same
//! timeline, and the page shows the same step.
//!
//! The JSON is written and read with the page's own [`super::json`], not
//! serde_json, to keep the page's WebAssembly small (that module says why);
//! the form below is field for field the one the serde derives give, which
//! `tests/share_links.rs` checks against serde_json over random links. A
//! link that cannot be read is refused with what and where, and reading one
//! takes memory in proportion to its length, which [`MAX_LINK_CHARS`]
//! bounds.

use super::session::{ReplayError, Session};
use super::setup::{Setup, SetupError};
use crate::sim::load::{KeyPattern, DEFAULT_VALUE_BYTES};
use crate::sim::simulation::Command;
use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use super::json::{Expected, JsonError, JsonErrorKind, Object, Reader, Writer};
use super::session::MAX_REPLAY_COMMANDS;
use super::setup::{default_consumers, default_controllers, TopicSetup};
use crate::sim::config::parse_acks;
use crate::sim::simulation::NodeSet;
use serde::{Deserialize, Serialize};

/// The fragment's key: `#s=<base64url>`.
pub const PREFIX: &str = "s=";
/// The format's version; a link of another version is refused by name.
/// Version 2 came with the PCG32 generator: a version 1 link's steps name
/// a run the page no longer makes.
pub const VERSION: u32 = 2;

/// The longest link read, in characters after `s=`: four times the
/// two million characters of a URL that Chromium takes, and enough for
/// [`MAX_REPLAY_COMMANDS`] actions of some hundred bytes each.
pub const MAX_LINK_CHARS: usize = 8 << 20;

/// base64url without padding, which also reads links whose padding a tool
/// added back.
const ENGINE: GeneralPurpose = GeneralPurpose::new(
    &alphabet::URL_SAFE,
    GeneralPurposeConfig::new().with_encode_padding(false).with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// One command of the timeline and the step count it was given at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepAction {
    pub at_step: u64,
    #[serde(flatten)]
    pub command: Command,
}

/// Everything a link carries.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShareLink {
    pub v: u32,
    pub setup: Setup,
    pub actions: Vec<StepAction>,
    /// The step count at the timeline's end.
    pub end_step: u64,
    /// The timeline position shown.
    pub position: usize,
}

/// Why a link could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// The fragment is not `s=…`.
    NotALink,
    /// Not base64url.
    Base64(String),
    /// The bytes are not UTF-8 text.
    NotText,
    /// Not JSON, or not a share link's JSON: where and why.
    Json(JsonError),
    /// Longer than [`MAX_LINK_CHARS`] (its length).
    TooLarge(usize),
    /// A version this page does not read.
    Version(u32),
    /// The setup is impossible (and the setup, to name what in it).
    Setup(SetupError),
    /// The log cannot be replayed on that setup.
    Replay(ReplayError),
}

impl ShareLink {
    /// The link for a session and the setup it was started from.
    pub fn of(setup: &Setup, session: &Session) -> ShareLink {
        ShareLink {
            v: VERSION,
            setup: setup.clone(),
            actions: session
                .all_commands()
                .iter()
                .map(|(at_step, command)| StepAction { at_step: *at_step, command: command.clone() })
                .collect(),
            end_step: session.end_steps(),
            // From the run's start, as a replay counts.
            position: session.forgotten().map_or(0, |(positions, _)| positions) + session.timeline_index(),
        }
    }

    /// The fragment, without `#`: `s=<base64url of the JSON>`.
    pub fn encode(&self) -> String {
        format!("{PREFIX}{}", ENGINE.encode(self.to_json()))
    }

    /// The link's JSON, as serde_json's `to_string` wrote it: the same keys
    /// in the same order (declaration order, `at_step` then the command's
    /// `action` tag then its fields), `null` for absent options, and every
    /// defaulted field written out.
    pub fn to_json(&self) -> String {
        let mut w = Writer::default();
        w.open('{');
        w.key("v");
        w.number(self.v);
        w.key("setup");
        write_setup(&mut w, &self.setup);
        w.key("actions");
        w.open('[');
        for action in &self.actions {
            write_action(&mut w, action);
        }
        w.close(']');
        w.key("end_step");
        w.number(self.end_step);
        w.key("position");
        w.number(self.position);
        w.close('}');
        w.finish()
    }

    /// Reads a fragment, with or without its `#`.
    pub fn decode(fragment: &str) -> Result<ShareLink, LinkError> {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        let data = fragment.strip_prefix(PREFIX).ok_or(LinkError::NotALink)?;
        // Checked before anything is decoded, so the memory a link takes is
        // bounded whatever it holds.
        if data.len() > MAX_LINK_CHARS {
            return Err(LinkError::TooLarge(data.len()));
        }
        let bytes = ENGINE.decode(data.trim()).map_err(|e| LinkError::Base64(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|_| LinkError::NotText)?;
        ShareLink::from_json(&text)
    }

    /// Reads a link's JSON. It takes what serde_json took from the links the
    /// page made: the fields in any order, with any JSON whitespace and
    /// escapes, the defaulted ones absent, and refuses unknown and repeated
    /// fields as the derives did.
    pub fn from_json(text: &str) -> Result<ShareLink, LinkError> {
        let mut r = Reader::new(text);
        // The whole document is checked first, and the version read before
        // any other field, so a future format is named as such rather than
        // by the first of its fields this page does not know.
        let mut o = r.object(LINK_FIELDS)?;
        r.end()?;
        let v = o.need(&mut r, "v", Reader::u32)?;
        if v != VERSION {
            return Err(LinkError::Version(v));
        }
        let link = ShareLink {
            v,
            setup: o.need(&mut r, "setup", read_setup)?,
            actions: o.need(&mut r, "actions", |r| r.array(MAX_REPLAY_COMMANDS, read_action))?,
            end_step: o.need(&mut r, "end_step", Reader::u64)?,
            position: o.need(&mut r, "position", Reader::usize)?,
        };
        o.finish(&mut r)?;
        Ok(link)
    }

    /// Replays the link into a session.
    pub fn open(&self) -> Result<Session, LinkError> {
        let refused = LinkError::Setup;
        self.setup.check_page_limits().map_err(refused)?;
        let commands: Vec<(u64, Command)> = self.actions.iter().map(|a| (a.at_step, a.command.clone())).collect();
        Session::replay(self.setup.cluster_config(), self.setup.seed, &commands, self.end_step, self.position).map_err(
            |e| match e {
                ReplayError::Config(c) => refused(SetupError::Config(c)),
                other => LinkError::Replay(other),
            },
        )
    }
}

impl From<JsonError> for LinkError {
    fn from(e: JsonError) -> Self {
        LinkError::Json(e)
    }
}

// The link's JSON form, field for field what the serde derives of
// `ShareLink`, `Setup`, `TopicSetup`, `StepAction`, `Command` and `NodeSet`
// write and read: their renames, defaults and `deny_unknown_fields`. The
// derives stay, for scenario files and for the tests that hold the two side
// by side.

const LINK_FIELDS: &[&str] = &["v", "setup", "actions", "end_step", "position"];
const SETUP_FIELDS: &[&str] = &[
    "brokers",
    "controllers",
    "consumers",
    "topics",
    "acks",
    "min.insync.replicas",
    "unclean.leader.election.enable",
    "pre_vote",
    "seed",
];
const TOPIC_FIELDS: &[&str] = &["name", "partitions", "replication.factor"];
const NODE_SET_FIELDS: &[&str] = &["brokers", "controllers", "clients"];
/// Every field of every command, and the step action's own two; which of
/// them a command may have depends on its `action`.
const ACTION_FIELDS: &[&str] = &[
    "at_step",
    "action",
    "client",
    "topic",
    "key",
    "value",
    "headers",
    "partition",
    "timestamp_ms",
    "offset",
    "min_bytes",
    "max_wait_ms",
    "controller",
    "broker",
    "a",
    "b",
    "records_per_sec",
    "keys",
    "value_bytes",
];
/// The `action` tags, in `Command`'s order, snake_case as serde renames them.
pub const ACTIONS: &[&str] = &[
    "produce",
    "fetch",
    "kill_controller",
    "restart_controller",
    "kill_broker",
    "restart_broker",
    "shutdown_broker",
    "partition",
    "heal",
    "start_load",
    "stop_load",
];
/// A load generator's key patterns without a count, as serde names them.
const KEY_PATTERNS: &[&str] = &["none", "random"];
const FIXED_KEYS_FIELDS: &[&str] = &["fixed"];
const ACKS: &[&str] = &["all", "-1", "1", "0"];

fn write_setup(w: &mut Writer, s: &Setup) {
    w.open('{');
    w.key("brokers");
    w.number(s.brokers);
    w.key("controllers");
    w.number(s.controllers);
    w.key("consumers");
    w.number(s.consumers);
    w.key("topics");
    w.open('[');
    for t in &s.topics {
        w.open('{');
        w.key("name");
        w.string(&t.name);
        w.key("partitions");
        w.number(t.partitions);
        w.key("replication.factor");
        w.number(t.replication_factor);
        w.close('}');
    }
    w.close(']');
    // As `setup::acks_to_json` writes it.
    w.key("acks");
    w.string(match s.acks {
        -1 => "all",
        1 => "1",
        _ => "0",
    });
    w.key("min.insync.replicas");
    w.number(s.min_insync_replicas);
    w.key("unclean.leader.election.enable");
    w.bool(s.unclean_leader_election_enable);
    // Written only when on, as the serde derive skips it when off, so a
    // link from before the choice is written again byte for byte.
    if s.pre_vote {
        w.key("pre_vote");
        w.bool(true);
    }
    w.key("seed");
    w.number(s.seed);
    w.close('}');
}

fn read_setup(r: &mut Reader) -> Result<Setup, JsonError> {
    let mut o = r.object(SETUP_FIELDS)?;
    let setup = Setup {
        brokers: o.need(r, "brokers", Reader::u32)?,
        controllers: o.get(r, "controllers", Reader::u32)?.unwrap_or_else(default_controllers),
        consumers: o.get(r, "consumers", Reader::u32)?.unwrap_or_else(default_consumers),
        topics: o.need(r, "topics", |r| r.array(usize::MAX, read_topic))?,
        acks: o.need(r, "acks", read_acks)?,
        min_insync_replicas: o.need(r, "min.insync.replicas", Reader::u32)?,
        unclean_leader_election_enable: o.need(r, "unclean.leader.election.enable", Reader::bool)?,
        pre_vote: o.get(r, "pre_vote", Reader::bool)?.unwrap_or(false),
        seed: o.need(r, "seed", Reader::u64)?,
    };
    o.finish(r)?;
    Ok(setup)
}

fn read_topic(r: &mut Reader) -> Result<TopicSetup, JsonError> {
    let mut o = r.object(TOPIC_FIELDS)?;
    let topic = TopicSetup {
        name: o.need(r, "name", Reader::string)?,
        partitions: o.need(r, "partitions", Reader::u32)?,
        replication_factor: o.need(r, "replication.factor", Reader::u32)?,
    };
    o.finish(r)?;
    Ok(topic)
}

/// As `setup::acks_from_json` reads it.
fn read_acks(r: &mut Reader) -> Result<i16, JsonError> {
    let at = r.position();
    parse_acks(&r.string()?).map_err(|_| JsonError::new(at, JsonErrorKind::Choice(ACKS)))
}

fn write_action(w: &mut Writer, a: &StepAction) {
    w.open('{');
    w.key("at_step");
    w.number(a.at_step);
    w.key("action");
    w.string(ACTIONS[action_index(&a.command)]);
    match &a.command {
        Command::Produce { client, topic, key, value, headers, partition, timestamp_ms } => {
            w.key("client");
            w.number(client);
            w.key("topic");
            w.string(topic);
            w.key("key");
            w.optional_string(key.as_deref());
            w.key("value");
            w.optional_string(value.as_deref());
            w.key("headers");
            w.open('[');
            for (k, v) in headers {
                w.open('[');
                w.string(k);
                w.string(v);
                w.close(']');
            }
            w.close(']');
            w.key("partition");
            w.optional_number(*partition);
            w.key("timestamp_ms");
            w.optional_number(*timestamp_ms);
        }
        Command::Fetch { client, topic, partition, offset, min_bytes, max_wait_ms } => {
            w.key("client");
            w.number(client);
            w.key("topic");
            w.string(topic);
            w.key("partition");
            w.number(partition);
            w.key("offset");
            w.optional_number(*offset);
            w.key("min_bytes");
            w.optional_number(*min_bytes);
            w.key("max_wait_ms");
            w.optional_number(*max_wait_ms);
        }
        Command::KillController { controller } | Command::RestartController { controller } => {
            w.key("controller");
            w.number(controller);
        }
        Command::KillBroker { broker } | Command::RestartBroker { broker } | Command::ShutdownBroker { broker } => {
            w.key("broker");
            w.number(broker);
        }
        Command::Partition { a, b } => {
            w.key("a");
            write_node_set(w, a);
            w.key("b");
            write_node_set(w, b);
        }
        Command::Heal => {}
        Command::StartLoad { client, topic, records_per_sec, keys, value_bytes } => {
            w.key("client");
            w.number(client);
            w.key("topic");
            w.string(topic);
            w.key("records_per_sec");
            w.number(records_per_sec);
            w.key("keys");
            match keys {
                KeyPattern::None => w.string(KEY_PATTERNS[0]),
                KeyPattern::Random => w.string(KEY_PATTERNS[1]),
                KeyPattern::Fixed(n) => {
                    w.open('{');
                    w.key(FIXED_KEYS_FIELDS[0]);
                    w.number(n);
                    w.close('}');
                }
            }
            w.key("value_bytes");
            w.number(value_bytes);
        }
        Command::StopLoad { client } => {
            w.key("client");
            w.number(client);
        }
    }
    w.close('}');
}

/// A key pattern as serde writes it: `"none"`, `"random"` or
/// `{"fixed": n}`.
fn read_keys(r: &mut Reader) -> Result<KeyPattern, JsonError> {
    if r.at_object() {
        let mut o = r.object(FIXED_KEYS_FIELDS)?;
        let n = o.need(r, FIXED_KEYS_FIELDS[0], Reader::u32)?;
        o.finish(r)?;
        return Ok(KeyPattern::Fixed(n));
    }
    let at = r.position();
    let name = r.string()?;
    match KEY_PATTERNS.iter().position(|p| *p == name) {
        Some(0) => Ok(KeyPattern::None),
        Some(_) => Ok(KeyPattern::Random),
        None => Err(JsonError::new(at, JsonErrorKind::Choice(KEY_PATTERNS))),
    }
}

/// The command's place in [`ACTIONS`].
fn action_index(command: &Command) -> usize {
    match command {
        Command::Produce { .. } => 0,
        Command::Fetch { .. } => 1,
        Command::KillController { .. } => 2,
        Command::RestartController { .. } => 3,
        Command::KillBroker { .. } => 4,
        Command::RestartBroker { .. } => 5,
        Command::ShutdownBroker { .. } => 6,
        Command::Partition { .. } => 7,
        Command::Heal => 8,
        Command::StartLoad { .. } => 9,
        Command::StopLoad { .. } => 10,
    }
}

fn read_action_name(r: &mut Reader) -> Result<usize, JsonError> {
    let at = r.position();
    let name = r.string()?;
    ACTIONS.iter().position(|a| *a == name).ok_or(JsonError::new(at, JsonErrorKind::Choice(ACTIONS)))
}

/// A step action. Its fields other than `at_step` and `action` are the
/// command's, and the ones a command does not have are refused, as
/// `deny_unknown_fields` on `Command` refuses them. serde itself lets a
/// `heal` through with any fields (an internally tagged unit variant ignores
/// them); the page never wrote any, and here they are refused too.
fn read_action(r: &mut Reader) -> Result<StepAction, JsonError> {
    let mut o = r.object(ACTION_FIELDS)?;
    let at_step = o.need(r, "at_step", Reader::u64)?;
    let command = match o.need(r, "action", read_action_name)? {
        0 => Command::Produce {
            client: o.need(r, "client", Reader::u32)?,
            topic: o.need(r, "topic", Reader::string)?,
            key: o.optional(r, "key", Reader::string)?,
            value: o.optional(r, "value", Reader::string)?,
            headers: o.get(r, "headers", |r| r.array(usize::MAX, read_header))?.unwrap_or_default(),
            partition: o.optional(r, "partition", Reader::u32)?,
            timestamp_ms: o.optional(r, "timestamp_ms", Reader::i64)?,
        },
        1 => Command::Fetch {
            client: o.need(r, "client", Reader::u32)?,
            topic: o.need(r, "topic", Reader::string)?,
            partition: o.need(r, "partition", Reader::u32)?,
            offset: o.optional(r, "offset", Reader::i64)?,
            min_bytes: o.optional(r, "min_bytes", Reader::i32)?,
            max_wait_ms: o.optional(r, "max_wait_ms", Reader::i32)?,
        },
        2 => Command::KillController { controller: o.need(r, "controller", Reader::u32)? },
        3 => Command::RestartController { controller: o.need(r, "controller", Reader::u32)? },
        4 => Command::KillBroker { broker: o.need(r, "broker", Reader::u32)? },
        5 => Command::RestartBroker { broker: o.need(r, "broker", Reader::u32)? },
        6 => Command::ShutdownBroker { broker: o.need(r, "broker", Reader::u32)? },
        7 => Command::Partition { a: o.need(r, "a", read_node_set)?, b: o.need(r, "b", read_node_set)? },
        8 => Command::Heal,
        9 => Command::StartLoad {
            client: o.need(r, "client", Reader::u32)?,
            topic: o.need(r, "topic", Reader::string)?,
            records_per_sec: o.need(r, "records_per_sec", Reader::u32)?,
            keys: o.get(r, "keys", read_keys)?.unwrap_or_default(),
            value_bytes: o.get(r, "value_bytes", Reader::u32)?.unwrap_or(DEFAULT_VALUE_BYTES),
        },
        _ => Command::StopLoad { client: o.need(r, "client", Reader::u32)? },
    };
    o.finish(r)?;
    Ok(StepAction { at_step, command })
}

/// A header: `[key, value]`, as serde writes a pair.
fn read_header(r: &mut Reader) -> Result<(String, String), JsonError> {
    let at = r.position();
    let mut pair = r.array(2, Reader::string).map_err(|e| match e.kind {
        JsonErrorKind::TooMany(_) => JsonError::new(at, JsonErrorKind::Expected(Expected::Pair)),
        _ => e,
    })?;
    match (pair.pop(), pair.pop()) {
        (Some(value), Some(key)) => Ok((key, value)),
        _ => Err(JsonError::new(at, JsonErrorKind::Expected(Expected::Pair))),
    }
}

fn write_node_set(w: &mut Writer, set: &NodeSet) {
    w.open('{');
    for (key, ids) in [("brokers", &set.brokers), ("controllers", &set.controllers), ("clients", &set.clients)] {
        w.key(key);
        w.open('[');
        for id in ids {
            w.number(id);
        }
        w.close(']');
    }
    w.close('}');
}

/// A node set; each of its lists may be absent (`#[serde(default)]`).
fn read_node_set(r: &mut Reader) -> Result<NodeSet, JsonError> {
    fn ids(o: &mut Object, r: &mut Reader, key: &'static str) -> Result<Vec<u32>, JsonError> {
        Ok(o.get(r, key, |r| r.array(usize::MAX, Reader::u32))?.unwrap_or_default())
    }
    let mut o = r.object(NODE_SET_FIELDS)?;
    let set = NodeSet {
        brokers: ids(&mut o, r, "brokers")?,
        controllers: ids(&mut o, r, "controllers")?,
        clients: ids(&mut o, r, "clients")?,
    };
    o.finish(r)?;
    Ok(set)
}

/// Is this fragment meant as a share link (even a broken one)?
pub fn is_link(fragment: &str) -> bool {
    fragment.strip_prefix('#').unwrap_or(fragment).starts_with(PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::protocol::ErrorCode;

    fn produce(key: &str) -> Command {
        Command::Produce {
            client: 0,
            topic: "orders".into(),
            key: Some(key.into()),
            value: Some("v".into()),
            headers: vec![],
            partition: None,
            timestamp_ms: None,
        }
    }

    fn a_session() -> (Setup, Session) {
        a_session_with(true)
    }

    fn a_session_with(pre_vote: bool) -> (Setup, Session) {
        let setup =
            Setup { seed: 9, min_insync_replicas: 2, unclean_leader_election_enable: true, pre_vote, ..Setup::default() };
        let mut s = setup.start().unwrap();
        s.command(produce("a")).unwrap();
        for _ in 0..30 {
            s.step();
        }
        s.command(produce("ünïcödé key")).unwrap();
        for _ in 0..30 {
            s.step();
        }
        s.go_to(45);
        (setup, s)
    }

    #[test]
    fn a_link_round_trips_and_reopens_the_same_session() {
        let (setup, s) = a_session();
        let link = ShareLink::of(&setup, &s);
        let fragment = link.encode();
        assert!(fragment.starts_with("s="));
        assert!(
            fragment[2..].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            "base64url without padding: {fragment}"
        );
        let back = ShareLink::decode(&format!("#{fragment}")).unwrap();
        assert_eq!(back, link);
        let reopened = back.open().unwrap();
        assert_eq!(reopened.view(), s.view());
        assert_eq!(reopened.sim().trace_hash(), s.sim().trace_hash());
        assert_eq!((reopened.timeline_index(), reopened.timeline_len()), (45, s.timeline_len()));
        assert_eq!(back.setup, setup, "the unclean election and pre-vote choices travel with the link");
        let (off, s) = a_session_with(false);
        let back = ShareLink::decode(&ShareLink::of(&off, &s).encode()).unwrap();
        assert!(!back.setup.pre_vote, "pre-vote off travels too");
        assert_eq!(back.open().unwrap().sim().trace_hash(), s.sim().trace_hash());
    }

    /// A link the page made with serde_json, before it had its own JSON:
    /// the page still reads it, but refuses it by its version, because its
    /// steps were counted under the ChaCha8 generator and replaying them
    /// now would show another run than the one shared.
    #[test]
    fn a_link_made_before_the_generator_changed_is_refused_by_its_version() {
        const MADE_WITH_SERDE_JSON: &str = "s=eyJ2IjoxLCJzZXR1cCI6eyJicm9rZXJzIjozLCJjb250cm9sbGVycyI6MywiY29uc3VtZXJzIjoxLCJ0b3BpY3MiOlt7Im5hbWUiOiJvcmRlcnMiLCJwYXJ0aXRpb25zIjozLCJyZXBsaWNhdGlvbi5mYWN0b3IiOjN9XSwiYWNrcyI6ImFsbCIsIm1pbi5pbnN5bmMucmVwbGljYXMiOjIsInVuY2xlYW4ubGVhZGVyLmVsZWN0aW9uLmVuYWJsZSI6dHJ1ZSwic2VlZCI6OX0sImFjdGlvbnMiOlt7ImF0X3N0ZXAiOjI0MywiYWN0aW9uIjoicHJvZHVjZSIsImNsaWVudCI6MCwidG9waWMiOiJvcmRlcnMiLCJrZXkiOiJhIiwidmFsdWUiOiJ2IiwiaGVhZGVycyI6W10sInBhcnRpdGlvbiI6bnVsbCwidGltZXN0YW1wX21zIjpudWxsfSx7ImF0X3N0ZXAiOjI3NywiYWN0aW9uIjoicHJvZHVjZSIsImNsaWVudCI6MCwidG9waWMiOiJvcmRlcnMiLCJrZXkiOiLDvG7Dr2PDtmTDqSBrZXkiLCJ2YWx1ZSI6InYiLCJoZWFkZXJzIjpbXSwicGFydGl0aW9uIjpudWxsLCJ0aW1lc3RhbXBfbXMiOm51bGx9XSwiZW5kX3N0ZXAiOjMxMCwicG9zaXRpb24iOjQ1fQ";
        assert_eq!(ShareLink::decode(MADE_WITH_SERDE_JSON), Err(LinkError::Version(1)));
    }

    /// The page's own JSON is what serde_json writes for the same link, so
    /// links stay the format they always were, and serde_json reads them
    /// back to the same link.
    #[test]
    fn a_link_is_written_as_serde_json_writes_it() {
        for (setup, s) in [a_session(), a_session_with(false)] {
            let link = ShareLink::of(&setup, &s);
            let Ok(by_serde) = serde_json::to_string(&link) else { panic!("a link serializes") };
            assert_eq!(link.to_json(), by_serde);
            assert_eq!(serde_json::from_str::<ShareLink>(&by_serde).ok().as_ref(), Some(&link));
            assert_eq!(link.open().unwrap().view(), s.view());
        }
    }

    #[test]
    fn base64url_matches_rfc_4648_vectors() {
        // RFC 4648 §10, without padding, and the two characters that differ
        // from standard base64.
        for (plain, encoded) in
            [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")]
        {
            assert_eq!(ENGINE.encode(plain), encoded);
            assert_eq!(ENGINE.decode(encoded).unwrap(), plain.as_bytes());
        }
        assert_eq!(ENGINE.encode([0xfb, 0xff]), "-_8");
        assert_eq!(ENGINE.decode("Zg==").unwrap(), b"f", "padding is tolerated");
    }

    #[test]
    fn malformed_links_are_refused_with_a_reason() {
        assert_eq!(ShareLink::decode("#x=abc"), Err(LinkError::NotALink));
        assert!(matches!(ShareLink::decode("#s=not base64!"), Err(LinkError::Base64(_))));
        assert_eq!(ShareLink::decode(&format!("s={}", ENGINE.encode([0xff, 0xfe]))), Err(LinkError::NotText));
        assert!(matches!(ShareLink::decode(&format!("s={}", ENGINE.encode("{not json"))), Err(LinkError::Json(_))));
        assert!(matches!(ShareLink::decode(&format!("s={}", ENGINE.encode("{\"v\":2}"))), Err(LinkError::Json(_))));
        assert_eq!(ShareLink::decode(&format!("s={}", ENGINE.encode("{\"v\":7}"))), Err(LinkError::Version(7)));
        // Well formed, but impossible: replication factor 4 on 3 brokers.
        let (mut setup, s) = a_session();
        setup.topics[0].replication_factor = 4;
        let link = ShareLink::of(&setup, &s);
        match ShareLink::decode(&link.encode()).unwrap().open() {
            Err(LinkError::Setup(SetupError::Config(e))) => assert_eq!(e.error(), ErrorCode::InvalidReplicationFactor),
            other => panic!("{:?}", other.err()),
        }
        // A position past the timeline's end.
        let (setup, s) = a_session();
        let mut link = ShareLink::of(&setup, &s);
        link.position = 100_000;
        assert!(matches!(link.open(), Err(LinkError::Replay(ReplayError::Position { .. }))));
        assert!(is_link("#s=") && is_link("s=abc") && !is_link("#top"));
    }
}
