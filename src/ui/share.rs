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

use super::session::{ReplayError, Session};
use super::setup::{Setup, SetupError};
use crate::sim::simulation::Command;
use base64::alphabet;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use serde::{Deserialize, Serialize};

/// The fragment's key: `#s=<base64url>`.
pub const PREFIX: &str = "s=";
/// The format's version; a link of another version is refused by name.
pub const VERSION: u32 = 1;

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
    /// Not JSON, or not a share link's JSON.
    Json(String),
    /// A version this page does not read.
    Version(u32),
    /// The setup is impossible (and the setup, to name what in it).
    Setup(SetupError, Box<Setup>),
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
            position: session.timeline_index(),
        }
    }

    /// The fragment, without `#`: `s=<base64url of the JSON>`.
    pub fn encode(&self) -> String {
        // Plain data with string keys: serializing cannot fail.
        let json = serde_json::to_string(self).unwrap_or_default();
        format!("{PREFIX}{}", ENGINE.encode(json))
    }

    /// Reads a fragment, with or without its `#`.
    pub fn decode(fragment: &str) -> Result<ShareLink, LinkError> {
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        let data = fragment.strip_prefix(PREFIX).ok_or(LinkError::NotALink)?;
        let bytes = ENGINE.decode(data.trim()).map_err(|e| LinkError::Base64(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|_| LinkError::NotText)?;
        // The version first, so a future format is named as such rather
        // than as a JSON error.
        #[derive(Deserialize)]
        struct Versioned {
            v: u32,
        }
        if let Ok(Versioned { v }) = serde_json::from_str::<Versioned>(&text) {
            if v != VERSION {
                return Err(LinkError::Version(v));
            }
        }
        serde_json::from_str(&text).map_err(|e| LinkError::Json(e.to_string()))
    }

    /// Replays the link into a session.
    pub fn open(&self) -> Result<Session, LinkError> {
        let refused = |e| LinkError::Setup(e, Box::new(self.setup.clone()));
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
        let setup = Setup { seed: 9, min_insync_replicas: 2, unclean_leader_election_enable: true, ..Setup::default() };
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
        assert_eq!(back.setup, setup, "the unclean election choice travels with the link");
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
        assert!(matches!(ShareLink::decode(&format!("s={}", ENGINE.encode("{\"v\":1}"))), Err(LinkError::Json(_))));
        assert_eq!(ShareLink::decode(&format!("s={}", ENGINE.encode("{\"v\":7}"))), Err(LinkError::Version(7)));
        // Well formed, but impossible: replication factor 4 on 3 brokers.
        let (mut setup, s) = a_session();
        setup.topics[0].replication_factor = 4;
        let link = ShareLink::of(&setup, &s);
        match ShareLink::decode(&link.encode()).unwrap().open() {
            Err(LinkError::Setup(SetupError::Config(e), _)) => assert_eq!(e.error, ErrorCode::InvalidReplicationFactor),
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
