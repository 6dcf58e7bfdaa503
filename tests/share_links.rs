//! Share links are byte for byte what serde_json made of them, and read
//! what serde_json read.
//!
//! The page writes and reads its links with its own JSON code
//! (`ui::json`, `ui::share`) to keep serde_json out of its WebAssembly;
//! natively serde_json and the derives are still here, so these tests hold
//! the two side by side over seeded random links: every shape of setup,
//! every command with and without its optional fields, strings with quotes,
//! backslashes, control characters and characters outside the BMP. A
//! failure prints its seed; `SHARE_SEED=N` replays that one.

use kafkascope::sim::rng::SimRng;
use kafkascope::sim::load::KeyPattern;
use kafkascope::sim::simulation::{Command, NodeSet};
use kafkascope::ui::json::{JsonErrorKind, MAX_DEPTH};
use kafkascope::ui::session::MAX_REPLAY_COMMANDS;
use kafkascope::ui::setup::{Setup, TopicSetup, MAX_BROKERS, MAX_CONSUMERS, MAX_PARTITIONS, MAX_TOPICS};
use kafkascope::ui::share::{LinkError, ShareLink, StepAction, ACTIONS, MAX_LINK_CHARS, VERSION};

/// The seeds to run: `SHARE_SEED` alone, or this many from 0.
fn seeds(count: u64) -> Vec<u64> {
    match std::env::var("SHARE_SEED") {
        Ok(seed) => vec![seed.parse().expect("SHARE_SEED is a number")],
        Err(_) => (0..count).collect(),
    }
}

/// Runs `check` for each seed and names the seed of a failure.
fn for_each_seed(count: u64, check: impl Fn(u64)) {
    for seed in seeds(count) {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(seed)));
        if let Err(panic) = outcome {
            eprintln!("failed with seed {seed}; replay it with SHARE_SEED={seed}");
            std::panic::resume_unwind(panic);
        }
    }
}

struct Gen(SimRng);

impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        self.0.below(n)
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize].clone()
    }

    /// Text with the characters JSON escapes and those it need not.
    fn text(&mut self) -> String {
        const CHARS: &[char] = &[
            'a', 'Z', '0', ' ', '-', '.', '=', ',', '"', '\\', '/', '\'', '\u{0}', '\u{1}', '\u{8}', '\t', '\n', '\u{b}',
            '\u{c}', '\r', '\u{1f}', '\u{7f}', '\u{80}', 'é', '한', '\u{2028}', '\u{feff}', '\u{fffd}', '😀', '\u{10ffff}',
        ];
        let len = self.below(10);
        (0..len).map(|_| self.pick(CHARS)).collect()
    }

    fn u32(&mut self) -> u32 {
        match self.below(4) {
            0 => self.pick(&[0, 1, u32::MAX, u32::MAX - 1]),
            1 => self.0.next_u32(),
            _ => self.below(10) as u32,
        }
    }

    fn u64(&mut self) -> u64 {
        match self.below(4) {
            0 => self.pick(&[0, u64::MAX, u32::MAX as u64 + 1, 1 << 53]),
            1 => self.0.next_u64(),
            _ => self.below(100_000),
        }
    }

    fn i64(&mut self) -> i64 {
        match self.below(3) {
            0 => self.pick(&[i64::MIN, i64::MAX, -1, 0, 1]),
            _ => self.0.next_u64() as i64,
        }
    }

    fn i32(&mut self) -> i32 {
        match self.below(3) {
            0 => self.pick(&[i32::MIN, i32::MAX, -1, 0, 1]),
            _ => self.0.next_u32() as i32,
        }
    }

    fn option<T>(&mut self, value: impl FnOnce(&mut Self) -> T) -> Option<T> {
        if self.chance(2) {
            None
        } else {
            Some(value(self))
        }
    }

    /// A setup the Setup form allows, or now and then any values at all:
    /// the link's JSON carries whatever the setup holds.
    fn setup(&mut self) -> Setup {
        let any = self.chance(5);
        let topics = (0..1 + self.below(MAX_TOPICS as u64))
            .map(|i| TopicSetup {
                name: if self.chance(2) { format!("topic-{i}") } else { self.text() },
                partitions: if any { self.u32() } else { 1 + self.below(MAX_PARTITIONS as u64) as u32 },
                replication_factor: if any { self.u32() } else { 1 + self.below(3) as u32 },
            })
            .collect();
        Setup {
            brokers: if any { self.u32() } else { 1 + self.below(MAX_BROKERS as u64) as u32 },
            controllers: if any { self.u32() } else { self.pick(&[1, 3, 5]) },
            consumers: if any { self.u32() } else { 1 + self.below(MAX_CONSUMERS as u64) as u32 },
            topics,
            acks: self.pick(&[-1, 1, 0]),
            min_insync_replicas: if any { self.u32() } else { 1 + self.below(3) as u32 },
            unclean_leader_election_enable: self.chance(2),
            pre_vote: self.chance(2),
            seed: self.u64(),
        }
    }

    fn node_set(&mut self) -> NodeSet {
        let mut ids = || (0..self.below(4)).map(|_| self.u32()).collect::<Vec<u32>>();
        NodeSet { brokers: ids(), controllers: ids(), clients: ids() }
    }

    fn command(&mut self) -> Command {
        match self.below(11) {
            0 => Command::Produce {
                client: self.u32(),
                topic: self.text(),
                key: self.option(Self::text),
                value: self.option(Self::text),
                headers: (0..self.pick(&[0, 0, 1, 3])).map(|_| (self.text(), self.text())).collect(),
                partition: self.option(Self::u32),
                timestamp_ms: self.option(Self::i64),
            },
            1 => Command::Fetch {
                client: self.u32(),
                topic: self.text(),
                partition: self.u32(),
                offset: self.option(Self::i64),
                min_bytes: self.option(Self::i32),
                max_wait_ms: self.option(Self::i32),
            },
            2 => Command::KillController { controller: self.u32() },
            3 => Command::RestartController { controller: self.u32() },
            4 => Command::KillBroker { broker: self.u32() },
            5 => Command::RestartBroker { broker: self.u32() },
            6 => Command::ShutdownBroker { broker: self.u32() },
            7 => Command::Partition { a: self.node_set(), b: self.node_set() },
            8 => Command::Heal,
            9 => Command::StartLoad {
                client: self.u32(),
                topic: self.text(),
                records_per_sec: self.u32(),
                keys: match self.below(3) {
                    0 => KeyPattern::None,
                    1 => KeyPattern::Random,
                    _ => KeyPattern::Fixed(self.u32()),
                },
                value_bytes: self.u32(),
            },
            _ => Command::StopLoad { client: self.u32() },
        }
    }

    fn link(&mut self) -> ShareLink {
        ShareLink {
            v: VERSION,
            setup: self.setup(),
            actions: (0..self.below(12)).map(|_| StepAction { at_step: self.u64(), command: self.command() }).collect(),
            end_step: self.u64(),
            position: self.u64() as usize,
        }
    }
}

/// A JSON document as a tree whose objects keep their keys in the order
/// given, and may hold a key twice, so that tests can reorder and break it.
#[derive(Clone, Debug)]
enum Doc {
    /// A number, `true`, `false` or `null`, as written.
    Raw(String),
    Str(String),
    Arr(Vec<Doc>),
    Obj(Vec<(String, Doc)>),
}

impl Doc {
    fn of(v: &serde_json::Value) -> Doc {
        match v {
            serde_json::Value::String(s) => Doc::Str(s.clone()),
            serde_json::Value::Array(items) => Doc::Arr(items.iter().map(Doc::of).collect()),
            serde_json::Value::Object(map) => Doc::Obj(map.iter().map(|(k, v)| (k.clone(), Doc::of(v))).collect()),
            other => Doc::Raw(other.to_string()),
        }
    }

    /// Every object's keys in a random order.
    fn shuffle(&mut self, g: &mut Gen) {
        match self {
            Doc::Arr(items) => items.iter_mut().for_each(|d| d.shuffle(g)),
            Doc::Obj(fields) => {
                for i in (1..fields.len()).rev() {
                    fields.swap(i, g.below(i as u64 + 1) as usize);
                }
                fields.iter_mut().for_each(|(_, d)| d.shuffle(g));
            }
            _ => {}
        }
    }

    /// The text, with random JSON whitespace between tokens and characters
    /// escaped at random where JSON allows an escape.
    fn write(&self, g: &mut Gen, out: &mut String) {
        let space = |g: &mut Gen, out: &mut String| {
            if g.chance(3) {
                for _ in 0..1 + g.below(3) {
                    out.push(g.pick(&[' ', '\t', '\n', '\r']));
                }
            }
        };
        space(g, out);
        match self {
            Doc::Raw(raw) => out.push_str(raw),
            Doc::Str(s) => write_string(g, s, out),
            Doc::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(g, out);
                }
                space(g, out);
                out.push(']');
            }
            Doc::Obj(fields) => {
                out.push('{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    space(g, out);
                    write_string(g, key, out);
                    space(g, out);
                    out.push(':');
                    value.write(g, out);
                }
                space(g, out);
                out.push('}');
            }
        }
        space(g, out);
    }

    fn text(&self, g: &mut Gen) -> String {
        let mut out = String::new();
        self.write(g, &mut out);
        out
    }

    /// The paths of every value below this one, the path being the child
    /// indexes taken from the top.
    fn paths(&self, here: &mut Vec<usize>, all: &mut Vec<Vec<usize>>) {
        all.push(here.clone());
        let children: Vec<&Doc> = match self {
            Doc::Arr(items) => items.iter().collect(),
            Doc::Obj(fields) => fields.iter().map(|(_, d)| d).collect(),
            _ => vec![],
        };
        for (i, child) in children.into_iter().enumerate() {
            here.push(i);
            child.paths(here, all);
            here.pop();
        }
    }

    fn at(&mut self, path: &[usize]) -> &mut Doc {
        match (path.split_first(), self) {
            (None, d) => d,
            (Some((i, rest)), Doc::Arr(items)) => items[*i].at(rest),
            (Some((i, rest)), Doc::Obj(fields)) => fields[*i].1.at(rest),
            _ => unreachable!("a path leads through containers"),
        }
    }

    /// Whether this is a command object whose action is `heal`.
    fn is_heal(&self) -> bool {
        matches!(self, Doc::Obj(fields) if fields.iter().any(|(k, v)| k == "action" && matches!(v, Doc::Str(s) if s == "heal")))
    }
}

fn write_string(g: &mut Gen, s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        let must = c == '"' || c == '\\' || c < ' ';
        if must || g.chance(8) {
            match (c, g.below(3)) {
                ('"', _) => out.push_str("\\\""),
                ('\\', _) => out.push_str("\\\\"),
                ('/', 0) => out.push_str("\\/"),
                ('\n', 0) => out.push_str("\\n"),
                ('\t', 0) => out.push_str("\\t"),
                _ => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        let hex = format!("{:04x}", unit);
                        out.push_str("\\u");
                        out.push_str(&if g.chance(2) { hex.to_uppercase() } else { hex });
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out.push('"');
}

/// What the page made of a link's text before: serde_json, with the
/// version read first.
#[derive(Debug, PartialEq)]
enum Outcome {
    Opened(ShareLink),
    Version(u32),
    Refused,
}

fn with_serde(text: &str) -> Outcome {
    #[derive(serde::Deserialize)]
    struct Versioned {
        v: u32,
    }
    if let Ok(Versioned { v }) = serde_json::from_str::<Versioned>(text) {
        if v != VERSION {
            return Outcome::Version(v);
        }
    }
    serde_json::from_str(text).map_or(Outcome::Refused, Outcome::Opened)
}

fn with_ours(text: &str) -> Outcome {
    match ShareLink::from_json(text) {
        Ok(link) => Outcome::Opened(link),
        Err(LinkError::Version(v)) => Outcome::Version(v),
        Err(LinkError::Json(_)) => Outcome::Refused,
        Err(other) => panic!("a JSON text gave {other:?}"),
    }
}

#[test]
fn the_json_written_is_serde_jsons_byte_for_byte() {
    for_each_seed(3000, |seed| {
        let link = Gen(SimRng::new(seed)).link();
        let ours = link.to_json();
        assert_eq!(ours, serde_json::to_string(&link).unwrap());
        // The fragment is the same base64 of the same bytes.
        assert_eq!(ShareLink::decode(&link.encode()), Ok(link));
    });
}

#[test]
fn serde_jsons_links_are_read_in_any_layout() {
    for_each_seed(3000, |seed| {
        let mut g = Gen(SimRng::new(seed));
        let link = g.link();
        let compact = serde_json::to_string(&link).unwrap();
        assert_eq!(ShareLink::from_json(&compact), Ok(link.clone()), "{compact}");
        let pretty = serde_json::to_string_pretty(&link).unwrap();
        assert_eq!(ShareLink::from_json(&pretty), Ok(link.clone()), "{pretty}");
        let mut doc = Doc::of(&serde_json::to_value(&link).unwrap());
        doc.shuffle(&mut g);
        let text = doc.text(&mut g);
        assert_eq!(ShareLink::from_json(&text), Ok(link.clone()), "{text}");
        // The links the page made before this code are serde_json's base64.
        let old_fragment = format!("s={}", base64_url(&compact));
        assert_eq!(ShareLink::decode(&old_fragment), Ok(link));
    });
}

fn base64_url(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

/// Values a mutation puts in place of a scalar.
const SCALARS: &[&str] = &[
    "\"x\"", "\"\"", "\"all\"", "\"1\"", "\"produce\"", "\"fetch\"", "0", "1", "-1", "-0", "1.5", "1.0", "1e3", "4294967295",
    "4294967296", "18446744073709551615", "18446744073709551616", "-9223372036854775808", "-9223372036854775809",
    "2147483648", "-2147483649", "true", "false", "null", "[]", "{}", "[\"a\"]", "[[\"a\",\"b\",\"c\"]]",
];

/// One random change a learner's editor or a cut-off paste could make.
fn mutate(g: &mut Gen, doc: &mut Doc) -> String {
    let mut all = Vec::new();
    doc.paths(&mut vec![], &mut all);
    let path = g.pick(&all);
    let target = doc.at(&path);
    match (g.below(7), target) {
        (0, Doc::Obj(fields)) if !fields.is_empty() => {
            fields.remove(g.below(fields.len() as u64) as usize);
        }
        // serde lets a `heal` through with any fields (see `ui::share`),
        // where the page now refuses them: no field is added to one.
        (1, d @ Doc::Obj(_)) if !d.is_heal() => {
            let Doc::Obj(fields) = d else { unreachable!() };
            let key = g.pick(&["zz", "V", "action", "at_step", "brokers", "partition", "broker", "a", "seed", "key"]);
            let at = g.below(fields.len() as u64 + 1) as usize;
            fields.insert(at, (key.to_string(), Doc::Raw(g.pick(&["1", "null", "\"x\""]).to_string())));
        }
        (2, Doc::Obj(fields)) if !fields.is_empty() => {
            let copy = fields[g.below(fields.len() as u64) as usize].clone();
            fields.push(copy);
        }
        // A scalar becomes another value. An action's tag stays a string
        // and never becomes `heal`: serde takes a variant's index for its
        // name and lets a heal through with any fields, both of which the
        // page refuses.
        (3 | 4, d @ (Doc::Raw(_) | Doc::Str(_))) => {
            let is_tag = matches!(d, Doc::Str(s) if ACTIONS.contains(&s.as_str()));
            let mut value = g.pick(SCALARS);
            while is_tag && (!value.starts_with('"')) {
                value = g.pick(SCALARS);
            }
            *d = Doc::Raw(value.to_string());
        }
        // An array becomes a scalar or an object; an object is never made
        // an array, which serde reads as a struct's fields in order.
        (3 | 4, d) => *d = Doc::Raw(g.pick(&["1", "\"x\"", "null", "{}", "true"]).to_string()),
        (5, _) => {
            let text = doc.text(g);
            let cut = g.below(text.len() as u64) as usize;
            let cut = (0..=cut).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
            return text[..cut].to_string();
        }
        (_, _) => {
            let mut text = doc.text(g).into_bytes();
            let i = g.below(text.len() as u64) as usize;
            if g.chance(2) {
                text[i] = g.pick(b"{}[]\",:\\ x0-.e");
            } else {
                text.remove(i);
            }
            return String::from_utf8_lossy(&text).into_owned();
        }
    }
    doc.text(g)
}


#[test]
fn a_broken_link_is_refused_exactly_where_serde_json_refused_it() {
    // How often each outcome came, to check the mutations reach all three.
    let counts = std::cell::Cell::new([0u32; 3]);
    for_each_seed(6000, |seed| {
        let mut g = Gen(SimRng::new(seed));
        let mut link = g.link();
        if g.chance(5) {
            link.v = g.pick(&[0, 2, 7, u32::MAX]);
        }
        let mut doc = Doc::of(&serde_json::to_value(&link).unwrap());
        doc.shuffle(&mut g);
        let mut text = mutate(&mut g, &mut doc);
        if g.chance(3) {
            let mut doc = Doc::of(&match serde_json::from_str(&text) {
                Ok(v) => v,
                Err(_) => return,
            });
            text = mutate(&mut g, &mut doc);
        }
        let expected = with_serde(&text);
        assert_eq!(with_ours(&text), expected, "{text}");
        let mut c = counts.get();
        c[match expected {
            Outcome::Opened(_) => 0,
            Outcome::Version(_) => 1,
            Outcome::Refused => 2,
        }] += 1;
        counts.set(c);
    });
    if std::env::var("SHARE_SEED").is_err() {
        let [opened, versions, refused] = counts.get();
        assert!(opened > 300 && versions > 300 && refused > 3000, "opened {opened}, versions {versions}, refused {refused}");
    }
}

#[test]
fn every_kind_of_bad_link_is_named() {
    let good = serde_json::to_string(&Gen(SimRng::new(1)).link()).unwrap();
    let kind = |text: &str| match ShareLink::from_json(text) {
        Err(LinkError::Json(e)) => (e.kind, e.path_text()),
        other => panic!("{text}: {other:?}"),
    };
    let link_with = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v: serde_json::Value = serde_json::from_str(&good).unwrap();
        f(&mut v);
        v.to_string()
    };
    let half = (0..=good.len() / 2).rev().find(|i| good.is_char_boundary(*i)).unwrap();
    assert_eq!(kind(&good[..half]).0, JsonErrorKind::Truncated, "cut short");
    assert_eq!(kind("[1]").0, JsonErrorKind::Expected(kafkascope::ui::json::Expected::Object));
    assert_eq!(kind(&format!("{good} x")).0, JsonErrorKind::Trailing);
    assert_eq!(
        kind(&link_with(&|v| v["setup"]["brokers"] = "3".into())),
        (JsonErrorKind::Expected(kafkascope::ui::json::Expected::Integer), "setup.brokers".into())
    );
    assert_eq!(
        kind(&link_with(&|v| v["setup"]["topics"][0]["partitions"] = (-1).into())),
        (JsonErrorKind::OutOfRange { min: 0, max: u32::MAX as u64 }, "setup.topics[0].partitions".into())
    );
    assert_eq!(
        kind(&link_with(&|v| v["setup"]["acks"] = "most".into())).0,
        JsonErrorKind::Choice(&["all", "-1", "1", "0"])
    );
    assert_eq!(
        kind(&link_with(&|v| {
            v["setup"].as_object_mut().unwrap().remove("seed");
        })),
        (JsonErrorKind::Missing, "setup.seed".into())
    );
    assert_eq!(
        kind(&link_with(&|v| v["actions"] = serde_json::json!([{"at_step": 0, "action": "heal", "broker": 1}]))),
        (JsonErrorKind::Unknown, "actions[0].broker".into())
    );
    assert_eq!(
        kind(&link_with(&|v| v["actions"] = serde_json::json!([{"at_step": 0, "action": "explode"}]))).1,
        "actions[0].action"
    );
    assert_eq!(kind(&link_with(&|v| v["extra"] = 1.into())), (JsonErrorKind::Unknown, "extra".into()));
    let v = format!("{{\"v\":{VERSION},");
    assert!(good.starts_with(&v), "{good}");
    assert_eq!(kind(&good.replacen(&v, &format!("{v}\"v\":{VERSION},"), 1)), (JsonErrorKind::Duplicate, "v".into()));
    let deep = format!("{v}\"x\":{}{}}}", "[".repeat(MAX_DEPTH as usize), "]".repeat(MAX_DEPTH as usize));
    assert_eq!(kind(&deep).0, JsonErrorKind::TooDeep);
    let many = link_with(&|v| v["actions"] = vec![serde_json::json!({"at_step": 0, "action": "heal"}); MAX_REPLAY_COMMANDS + 1].into());
    assert_eq!(kind(&many), (JsonErrorKind::TooMany(MAX_REPLAY_COMMANDS), "actions".into()));
    // A future version is named as such, whatever else it holds.
    let future = VERSION + 1;
    assert_eq!(ShareLink::from_json(&format!(r#"{{"future":[1,2],"v":{future}}}"#)), Err(LinkError::Version(future)));
    // So is an earlier one.
    assert_eq!(ShareLink::from_json(r#"{"v":1}"#), Err(LinkError::Version(1)));
    // Too long to be read at all: refused before it is decoded.
    let huge = format!("s={}", "A".repeat(MAX_LINK_CHARS + 1));
    assert_eq!(ShareLink::decode(&huge), Err(LinkError::TooLarge(MAX_LINK_CHARS + 1)));
}

/// Any text at all, valid JSON or not, gives a link or an error, never a
/// panic; and whatever the page opens, serde_json opened the same (the page
/// refuses a little more, never less).
#[test]
fn any_text_is_read_or_refused_without_panicking() {
    const TOKENS: &[&str] = &[
        "{", "}", "[", "]", ",", ":", " ", "\n", "\"v\"", "1", "2", "-0", "0.5", "1e999", "null", "true", "\"", "\\",
        "\\u", "d83d", "\"setup\"", "\"actions\"", "\"action\"", "\"heal\"", "\"at_step\"", "\"end_step\"",
        "\"position\"", "\u{1}", "é", "😀", "[[[[[[[[[[[[[[[[", "{\"a\":{\"a\":{\"a\":",
    ];
    for_each_seed(3000, |seed| {
        let mut g = Gen(SimRng::new(seed));
        let text: String = (0..g.below(60)).map(|_| g.pick(TOKENS)).collect();
        let text = if g.chance(4) { format!("{{\"v\":{VERSION},{text}") } else { text };
        if let Outcome::Opened(link) = with_ours(&text) {
            assert_eq!(with_serde(&text), Outcome::Opened(link), "{text:?}");
        }
        let fragment = format!("s={}", base64_url(&text));
        let _ = ShareLink::decode(&fragment);
        let _ = ShareLink::decode(&fragment[..fragment.len() - fragment.len() / 3]);
    });
}
