//! The restless user: seeded random actions through everything the page can
//! do, run on the UI's plain-Rust state (`Session`, `Setup`, share links)
//! instead of the browser, so that a panic reachable from the page shows up
//! natively, with its seed and the actions that led to it.
//!
//! Each seed opens the default page, then takes `RESTLESS_ACTIONS` actions
//! (default [`DEFAULT_ACTIONS`]), each picked among those the page offers in
//! its current state, exactly as the reducer in `src/ui/app.rs` carries them
//! out; after every action it computes what a render computes (the view,
//! the narration in both languages, the followed request, every partition's
//! "Why?", the segment inspector, the partition bars). A panic fails the test
//! with the seed and the action list as a replay script, and so does an
//! action that runs so long the page would freeze (`RESTLESS_HANG_SECS`).
//!
//! `RESTLESS_SEED=N` (with the same `RESTLESS_ACTIONS`) replays one seed;
//! `RESTLESS_VERBOSE=1` prints each action as it goes; `RESTLESS_SEEDS=N`
//! runs seeds 0..N (default [`DEFAULT_SEEDS`]); the sweep of thousands belongs under the
//! optimised profile: `RESTLESS_SEEDS=2000 cargo test --profile sweep --test
//! restless`.

use kafkascope::sim::ids::{NodeId, RequestId, TopicPartition};
use kafkascope::sim::rng::SimRng;
use kafkascope::sim::simulation::Command;
use kafkascope::sim::view::{last_lookup, BrokerStatus, ClusterView, Token};
use kafkascope::ui::follow;
use kafkascope::ui::i18n::{self, Lang};
use kafkascope::ui::memory::{self, PageAllocator, LIVE_BYTES};
use kafkascope::ui::session::{Session, MAX_REPLAY_COMMANDS, MAX_REPLAY_STEPS};
use kafkascope::ui::setup::{Setup, SetupDraft, MAX_TOPICS};
use kafkascope::ui::share::{self, ShareLink};
use kafkascope::ui::layout::{self, Layout};
use kafkascope::ui::{countdown, faults, story, tokens, why};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Seeds a plain `cargo test` runs.
const DEFAULT_SEEDS: u64 = 3;
/// Actions per seed in a plain `cargo test`.
const DEFAULT_ACTIONS: usize = 250;
/// How long one action may run before the driver calls the page frozen.
/// Generous, for the unoptimised build: the longest honest action (Play for
/// 600 frames of 100 steps, or a boot of a large setup) takes seconds.
const HANG_SECS: u64 = 120;
/// The page's memory budget in the driver (`RESTLESS_BUDGET_MIB`): lower
/// than the page's 3 GiB, so that seeds reach it and the session's stop at
/// the budget is driven too, without filling the machine.
const BUDGET_MIB: usize = 1024;

// The page's own constants (`src/ui/app.rs`), which the reducer passes to
// the session.
const NEXT_CONTROLLER_EVENT_WINDOW_MS: u64 = 60_000;
const NEXT_HOP_LIMIT: u32 = 20_000;
/// Play at 1,000 steps a second owes at most 100 steps a frame (a frame
/// gap is capped at 100 ms); a burst of several frames between two clicks
/// is several Ticks.
const MAX_TICK: u32 = 100;

/// One thing the learner does, as the page's controls produce it.
#[derive(Clone, Debug)]
enum UserAction {
    Step,
    StepBack,
    /// Play for this many animation frames, each owing `per_frame` steps.
    Play { frames: u32, per_frame: u32 },
    /// The timeline slider moved to this position.
    GoTo(usize),
    NextControllerEvent,
    /// A token chip clicked: "Follow ...".
    Follow(RequestId),
    NextHop,
    StopFollowing,
    /// The Produce form submitted as typed: the Headers field is read by
    /// `forms::parse_headers`, an acks of the select.
    Produce { topic: String, key: String, value: String, headers: String, acks: i16 },
    /// The Fetch form submitted as typed: text fields read as the form does.
    Fetch { consumer: u32, topic: usize, partition: u32, offset: String, min_bytes: String, max_wait_ms: String },
    /// A fault button: Kill, Restart, Shut down or Isolate a node, or Heal.
    Fault(Command),
    /// The Setup form submitted with these fields.
    ApplySetup(SetupDraft),
    /// Copy share link, then open what the address bar holds (the link as
    /// made, or changed by hand).
    ShareAndOpen(LinkEdit),
    ToggleLanguage,
    /// The segment inspector's choices: partition index, replica, segment
    /// index, batch index.
    Inspect { partition: usize, replica: Option<u32>, segment: usize, batch: usize },
}

/// What a learner (or a broken copy and paste) does to a link before
/// opening it.
#[derive(Clone, Debug)]
enum LinkEdit {
    None,
    /// Cut the fragment short.
    Truncate(usize),
    /// Replace one character.
    Replace(usize, char),
    /// Change one number in the link's JSON to this value.
    Number { nth: usize, value: serde_json::Value },
}

/// The page: what the app's state holds beside the session.
struct Page {
    session: Session,
    setup: Setup,
    followed: Option<RequestId>,
    lang: Lang,
    /// The last error the page shows (a refused command, a refused setup).
    error: Option<String>,
    inspect: (usize, Option<u32>, usize, usize),
}

impl Page {
    fn open() -> Page {
        Page {
            session: Session::default(),
            setup: Setup::default(),
            followed: None,
            lang: Lang::En,
            error: None,
            inspect: (0, None, 0, 0),
        }
    }

    /// Carries out one action as the reducer does.
    fn act(&mut self, action: &UserAction) {
        self.error = None;
        match action.clone() {
            UserAction::Step => {
                self.session.step();
            }
            UserAction::StepBack => {
                self.session.step_back();
            }
            UserAction::Play { frames, per_frame } => {
                for _ in 0..frames {
                    if self.session.step_many(per_frame) == 0 {
                        break;
                    }
                }
            }
            UserAction::GoTo(index) => self.session.go_to(index),
            UserAction::NextControllerEvent => {
                self.session.seek(NEXT_CONTROLLER_EVENT_WINDOW_MS, |e| e.kind.is_controller_event());
            }
            UserAction::Follow(request) => self.followed = Some(request),
            UserAction::StopFollowing => self.followed = None,
            UserAction::NextHop => {
                if let Some(id) = self.followed {
                    self.session.step_until(NEXT_HOP_LIMIT, |events| follow::moved(events, id));
                }
            }
            UserAction::Produce { topic, key, value, headers, acks } => {
                match kafkascope::ui::forms::parse_headers(&headers) {
                    Ok(headers) => {
                        let command = Command::Produce {
                            client: self.setup.producer_for_acks(acks),
                            topic,
                            key: (!key.is_empty()).then_some(key),
                            value: Some(value),
                            headers,
                            partition: None,
                            timestamp_ms: None,
                        };
                        let result = self.session.command(command).map_err(|e| e.to_string());
                        self.refused(result);
                    }
                    Err(e) => self.error = Some(i18n::header_error(self.lang, &e)),
                }
            }
            UserAction::Fetch { consumer, topic, partition, offset, min_bytes, max_wait_ms } => {
                // As the Fetch form reads its fields.
                let offset = if offset.trim().is_empty() {
                    None
                } else {
                    match offset.trim().parse::<i64>() {
                        Ok(o) => Some(o),
                        Err(_) => {
                            self.error = Some(format!("offset {offset:?} is not a whole number"));
                            return;
                        }
                    }
                };
                let topic = self.setup.topics.get(topic).or(self.setup.topics.first()).map(|t| t.name.clone()).unwrap_or_default();
                let command = Command::Fetch {
                    client: self.setup.consumer(consumer),
                    topic,
                    partition,
                    offset,
                    min_bytes: Some(min_bytes.trim().parse::<i32>().unwrap_or(1)),
                    max_wait_ms: Some(max_wait_ms.trim().parse::<i32>().unwrap_or(500)),
                };
                let result = self.session.command(command).map_err(|e| e.to_string());
                self.refused(result);
            }
            UserAction::Fault(command) => {
                let result = self.session.command_now(command).map_err(|e| e.to_string());
                self.refused(result);
            }
            UserAction::ApplySetup(draft) => match draft.parse() {
                Ok(setup) => match setup.start() {
                    Ok(session) => self.start(session, setup),
                    Err(e) => self.error = Some(i18n::setup_error(self.lang, &e)),
                },
                Err(e) => self.error = Some(i18n::setup_error(self.lang, &e)),
            },
            UserAction::ShareAndOpen(edit) => {
                let link = ShareLink::of(&self.setup, &self.session);
                if link.end_step > MAX_REPLAY_STEPS || link.actions.len() > MAX_REPLAY_COMMANDS {
                    return;
                }
                let fragment = edited(&link, &edit);
                if !share::is_link(&fragment) {
                    return;
                }
                match ShareLink::decode(&fragment).and_then(|link| link.open().map(|s| (s, link.setup))) {
                    Ok((session, setup)) => self.start(session, setup),
                    Err(e) => self.error = Some(i18n::link_error(self.lang, &e)),
                }
            }
            UserAction::ToggleLanguage => self.lang = self.lang.other(),
            UserAction::Inspect { partition, replica, segment, batch } => self.inspect = (partition, replica, segment, batch),
        }
    }

    fn refused(&mut self, result: Result<(), String>) {
        if let Err(e) = result {
            self.error = Some(e);
        }
    }

    fn start(&mut self, session: Session, setup: Setup) {
        self.session = session;
        self.setup = setup;
        self.followed = None;
        self.inspect = (0, None, 0, 0);
    }

    /// What a render computes from the state, for both languages, so a
    /// panic in drawing shows up here too.
    fn draw(&self) {
        let session = &self.session;
        let view = session.view();
        let trace = session.sim().trace();
        for lang in [Lang::En, Lang::Ko] {
            for e in session.last_step_trace() {
                narrate_in(lang, e);
            }
            let _ = i18n::setup_summary(lang, &self.setup);
            if let Some(q) = &view.quorum {
                let _ = i18n::quorum_facts(lang, q.epoch, q.majority, q.controllers.len());
            }
            for p in &view.partitions {
                if let Some(w) = why::partition_why(&view, &p.topic, p.partition) {
                    let _ = why::leader_text(lang, &w.leader);
                    for r in &w.replicas {
                        let _ = why::replica_text(lang, r, w.replica_lag_time_max_ms);
                    }
                    let _ = why::high_watermark_text(lang, &w);
                }
            }
            if let Some(id) = self.followed {
                for e in follow::events_of(trace, id) {
                    let _ = i18n::hop_line(lang, e.step, e.time_ms, &e.node.to_string(), &narrate_in(lang, e));
                }
                if let Some(r) = follow::release(trace, id) {
                    let _ = i18n::released_by(lang, &r);
                }
            }
            for p in &view.producers {
                for r in &p.records {
                    if let Some(reason) = &r.reason {
                        let _ = i18n::partition_reason(lang, reason, r.partition.unwrap_or(0));
                    }
                }
            }
        }
        if let Some(id) = self.followed {
            let _ = (follow::visited(trace, id), follow::finished(trace, id));
        }
        // The stage: where each node sits, what is cut off, the tokens
        // inside each broker, the countdowns and the situations.
        let now = view.time_ms as f64;
        for lang in [Lang::En, Lang::Ko] {
            for s in story::situations(&view, now) {
                let _ = story::sentence(lang, &s);
            }
        }
        for b in &view.brokers {
            let node = NodeId::Broker(b.id);
            let _ = (faults::isolate(&view, node), faults::is_cut_off(&view, node));
            for l in [Layout::Wide, Layout::Narrow] {
                let _ = layout::node_place(&view, node, l);
                for (_, area) in layout::pipeline_places(l, b.network_threads.len() as u32, b.io_threads.len() as u32) {
                    let _ = layout::token_rect(&area, layout::token_capacity(&area));
                }
            }
            for (_, t) in tokens::of_broker(b) {
                let _ = (tokens::kind_class(&t), tokens::short_label(&t, "f"));
            }
            if let Some(c) = countdown::broker_session(&view, b.id, now) {
                let _ = (countdown::label(Lang::En, &c), countdown::label(Lang::Ko, &c), c.fraction());
            }
        }
        if let Some(q) = &view.quorum {
            for c in &q.controllers {
                if let Some(c) = countdown::controller(&view, c.id, now) {
                    let _ = (countdown::label(Lang::En, &c), countdown::label(Lang::Ko, &c), c.fraction());
                }
            }
        }
        for client in layout::clients(&view) {
            let _ = layout::node_place(&view, client, Layout::Wide);
            if let Some(c) = countdown::producer(&view, client, now) {
                let _ = (countdown::label(Lang::En, &c), c.fraction());
            }
        }
        for f in &view.in_flight {
            let _ = kafkascope::ui::components::cluster_map::progress(now, f);
        }
        // The partition cards' bars.
        for p in &view.partitions {
            let max = p.replica_offsets.iter().map(|(_, leo, _)| *leo).max().unwrap_or(0).max(1);
            for (_, leo, hw) in &p.replica_offsets {
                let _ = (hw * 100 / max, (leo - hw).max(0) * 100 / max);
            }
        }
        // The segment inspector, as it picks with its choices.
        let (partition, replica, segment, batch) = self.inspect;
        if let Some(p) = view.partitions.get(partition.min(view.partitions.len().saturating_sub(1))) {
            let tp = TopicPartition::new(p.topic.clone(), p.partition);
            let broker = replica.filter(|b| p.replicas.contains(b)).or(p.leader).or(p.replicas.first().copied()).unwrap_or(0);
            if let Some(r) = view.replica(&p.topic, p.partition, broker) {
                let seg = r.segments.get(segment).or(r.segments.last());
                let batches = seg.and_then(|s| session.sim().inspect_segment(&tp, broker, s.base_offset)).unwrap_or_default();
                let _ = batches.get(batch.min(batches.len().saturating_sub(1)));
                let _ = last_lookup(trace, &tp, broker);
            }
        }
        for v in session.violations() {
            let _ = v.to_string();
        }
        if let Some(e) = &self.error {
            assert!(!e.is_empty());
        }
    }

    /// Picks an action among those the page offers now.
    fn pick(&self, rng: &mut SimRng) -> UserAction {
        let view = self.session.view();
        let can_step = self.session.sim().has_pending();
        loop {
            let action = match rng.below(20) {
                0 | 1 if can_step => UserAction::Step,
                2 if self.session.can_step_back() => UserAction::StepBack,
                3 | 4 if can_step => {
                    // Mostly short plays, sometimes a long one at top speed.
                    let frames = if rng.below(4) == 0 { rng.range(50, 600) } else { rng.range(1, 30) } as u32;
                    UserAction::Play { frames, per_frame: rng.range(1, u64::from(MAX_TICK) + 1) as u32 }
                }
                5 => UserAction::GoTo(rng.below(self.session.timeline_len() as u64) as usize),
                6 if can_step && view.quorum.is_some() => UserAction::NextControllerEvent,
                7 => match followable(&view) {
                    tokens if !tokens.is_empty() => UserAction::Follow(tokens[rng.below(tokens.len() as u64) as usize]),
                    _ => continue,
                },
                8 if self.followed.is_some() => {
                    if rng.below(5) == 0 {
                        UserAction::StopFollowing
                    } else {
                        UserAction::NextHop
                    }
                }
                9 | 10 => self.produce(rng),
                11 => self.fetch(rng),
                12..=14 if view.quorum.is_some() => UserAction::Fault(fault(&view, rng)),
                15 => UserAction::ApplySetup(draft(&self.setup, rng)),
                16 => UserAction::ShareAndOpen(link_edit(rng)),
                17 => UserAction::ToggleLanguage,
                18 => UserAction::Inspect {
                    partition: rng.below(view.partitions.len() as u64 + 2) as usize,
                    replica: (rng.below(2) == 0).then(|| rng.below(12) as u32),
                    segment: rng.below(4) as usize,
                    batch: rng.below(6) as usize,
                },
                _ => continue,
            };
            return action;
        }
    }

    fn produce(&self, rng: &mut SimRng) -> UserAction {
        let topics = &self.setup.topics;
        let topic = topics[rng.below(topics.len() as u64) as usize].name.clone();
        let key = ["", "user-42", "k", "ünïcödé", " "][rng.below(5) as usize].to_string();
        let value = match rng.below(6) {
            0 => String::new(),
            1 => "x".repeat(rng.range(1, 5_000) as usize),
            _ => format!("hello-{}", rng.below(100)),
        };
        let headers = ["", "trace-id=7, source=web", "k=v", "=v", "novalue", "a=b=c,,", " , "][rng.below(7) as usize].to_string();
        let acks = [-1i16, 1, 0][rng.below(3) as usize];
        UserAction::Produce { topic, key, value, headers, acks }
    }

    fn fetch(&self, rng: &mut SimRng) -> UserAction {
        let numbers = ["", "0", "1", "-1", "3", "100", "2147483647", "-2147483648", "9999999999", "1e3", "k=v", " 7 "];
        let pick = |rng: &mut SimRng| numbers[rng.below(numbers.len() as u64) as usize].to_string();
        let topic = rng.below(self.setup.topics.len() as u64) as usize;
        let partitions = self.setup.topics[topic].partitions;
        UserAction::Fetch {
            consumer: rng.below(u64::from(self.setup.consumers)) as u32,
            topic,
            // The form's select offers the topic's partitions only.
            partition: rng.below(u64::from(partitions.max(1))) as u32,
            offset: if rng.below(3) == 0 { pick(rng) } else { rng.below(20).to_string() },
            min_bytes: pick(rng),
            max_wait_ms: pick(rng),
        }
    }
}

fn narrate_in(lang: Lang, e: &kafkascope::sim::trace::TraceEvent) -> String {
    kafkascope::ui::narration::sentence(lang, e)
}

/// The requests drawn as token chips, which a click follows.
fn followable(view: &ClusterView) -> Vec<RequestId> {
    let mut tokens: Vec<&Token> = Vec::new();
    for b in &view.brokers {
        tokens.extend(&b.socket_receive_buffer);
        for nt in &b.network_threads {
            tokens.extend(nt.work.iter().chain(nt.blocked.iter()).chain(nt.response_queue.iter()));
        }
        tokens.extend(&b.request_queue);
        tokens.extend(b.io_threads.iter().filter_map(|io| io.work.as_ref()));
        tokens.extend(&b.log_append);
        tokens.extend(&b.log_read);
        tokens.extend(b.purgatory.produce.iter().chain(b.purgatory.fetch.iter()).map(|op| &op.token));
        tokens.extend(&b.socket_send_buffer);
    }
    let mut ids: Vec<RequestId> = tokens.into_iter().map(|t| t.request).collect();
    ids.extend(view.in_flight.iter().filter(|f| f.rpc.is_none()).map(|f| f.request));
    ids
}

/// A fault button the page shows now, or, now and then, one it does not
/// (a click on a button the next render removes lands on the old state).
fn fault(view: &ClusterView, rng: &mut SimRng) -> Command {
    let mut offered: Vec<Command> = Vec::new();
    for b in &view.brokers {
        let broker = b.id;
        if b.status == BrokerStatus::Stopped {
            offered.push(Command::RestartBroker { broker });
        } else {
            offered.push(Command::KillBroker { broker });
            if b.status != BrokerStatus::ShuttingDown {
                offered.push(Command::ShutdownBroker { broker });
            }
        }
        if !faults::is_cut_off(view, NodeId::Broker(broker)) {
            offered.push(faults::isolate(view, NodeId::Broker(broker)));
        }
    }
    for c in view.quorum.iter().flat_map(|q| q.controllers.iter()) {
        let controller = c.id;
        offered.push(if c.alive { Command::KillController { controller } } else { Command::RestartController { controller } });
        if !faults::is_cut_off(view, NodeId::Controller(controller)) {
            offered.push(faults::isolate(view, NodeId::Controller(controller)));
        }
    }
    if !view.network_cuts.is_empty() {
        offered.push(Command::Heal);
    }
    if rng.below(8) == 0 {
        let n = rng.below(6) as u32;
        return match rng.below(6) {
            0 => Command::KillBroker { broker: n },
            1 => Command::RestartBroker { broker: n },
            2 => Command::ShutdownBroker { broker: n },
            3 => Command::KillController { controller: n },
            4 => Command::RestartController { controller: n },
            _ => Command::Heal,
        };
    }
    offered[rng.below(offered.len() as u64) as usize].clone()
}

/// The Setup form's fields, typed by someone trying things: mostly sound
/// values, some impossible ones, some that are not numbers at all.
fn draft(setup: &Setup, rng: &mut SimRng) -> SetupDraft {
    let mut d = SetupDraft::from(setup);
    let number = |rng: &mut SimRng, sound: u64| -> String {
        match rng.below(10) {
            0 => ["k=v", "", "-1", "three", "99999999999999999999", " 2 "][rng.below(6) as usize].to_string(),
            1 => rng.below(40).to_string(),
            _ => rng.range(1, sound + 1).to_string(),
        }
    };
    if rng.below(2) == 0 {
        d.brokers = number(rng, 5);
    }
    d.controllers = [1, 3, 5][rng.below(3) as usize];
    d.consumers = rng.range(1, 4) as u32;
    if rng.below(3) == 0 {
        let n = rng.range(1, MAX_TOPICS as u64 + 1) as usize;
        d.topics = (0..n)
            .map(|i| {
                let name = match rng.below(8) {
                    0 => "no spaces".to_string(),
                    1 => String::new(),
                    2 => "orders".to_string(),
                    _ => format!("topic-{i}"),
                };
                (name, number(rng, 4), number(rng, 3))
            })
            .collect();
    } else if let Some(t) = d.topics.first_mut() {
        t.2 = number(rng, 3);
    }
    d.acks = [-1, 1, 0][rng.below(3) as usize];
    d.min_insync_replicas = number(rng, 3);
    d.unclean_leader_election_enable = rng.below(2) == 0;
    if rng.below(3) == 0 {
        d.seed = number(rng, u64::MAX - 1);
    }
    d
}

fn link_edit(rng: &mut SimRng) -> LinkEdit {
    match rng.below(5) {
        0 | 1 => LinkEdit::None,
        2 => LinkEdit::Truncate(rng.below(400) as usize),
        3 => LinkEdit::Replace(rng.below(400) as usize, ['A', '-', '_', '=', '!', '%'][rng.below(6) as usize]),
        _ => {
            let values = [
                serde_json::json!(0),
                serde_json::json!(1),
                serde_json::json!(-1),
                serde_json::json!(7),
                serde_json::json!(4_294_967_295u64),
                serde_json::json!(u64::MAX),
                serde_json::json!(500_000),
            ];
            LinkEdit::Number { nth: rng.below(40) as usize, value: values[rng.below(values.len() as u64) as usize].clone() }
        }
    }
}

/// The fragment a link becomes after an edit.
fn edited(link: &ShareLink, edit: &LinkEdit) -> String {
    let fragment = link.encode();
    match edit {
        LinkEdit::None => fragment,
        LinkEdit::Truncate(n) => fragment.chars().take(*n).collect(),
        LinkEdit::Replace(i, c) => {
            let mut chars: Vec<char> = fragment.chars().collect();
            if let Some(slot) = chars.get_mut(*i) {
                *slot = *c;
            }
            chars.into_iter().collect()
        }
        LinkEdit::Number { nth, value } => {
            let mut json = serde_json::to_value(link).expect("a link is JSON");
            let mut seen = 0;
            set_nth_number(&mut json, *nth, value, &mut seen);
            use base64::Engine;
            let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
            format!("{}{}", share::PREFIX, engine.encode(json.to_string()))
        }
    }
}

fn set_nth_number(json: &mut serde_json::Value, nth: usize, value: &serde_json::Value, seen: &mut usize) {
    match json {
        serde_json::Value::Number(_) => {
            if *seen == nth {
                *json = value.clone();
            }
            *seen += 1;
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| set_nth_number(v, nth, value, seen)),
        serde_json::Value::Object(fields) => fields.values_mut().for_each(|v| set_nth_number(v, nth, value, seen)),
        _ => {}
    }
}

/// `RESTLESS_VERBOSE=1` prints each action before it runs, so an action
/// that never ends (or eats the memory) is named.
fn verbose() -> bool {
    std::env::var_os("RESTLESS_VERBOSE").is_some()
}

fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().map(|v| v.parse().unwrap_or_else(|_| panic!("{name} is a number")))
}

/// The page's allocator, as the page has it, so the page's memory budget
/// works here too; a seed that still exhausts the machine's memory names
/// itself instead of dying silently.
#[global_allocator]
static ALLOCATOR: PageAllocator<std::alloc::System> = PageAllocator::new(std::alloc::System, &LIVE_BYTES, out_of_memory);

fn out_of_memory(_size: usize) {
    use std::io::Write;
    // No allocation here: the allocator has just failed.
    let _ = std::io::stderr().write_all(b"restless: out of memory; rerun with RESTLESS_VERBOSE=1 to see the action\n");
}

/// What the seed's thread reports to the test's.
enum Progress {
    /// About to take this action.
    Acting(String),
    /// The seed ended: a panic's message if it panicked.
    Done(Option<String>),
}

/// Runs one seed on its own thread; on a panic, or when one action takes
/// longer than `RESTLESS_HANG_SECS` (default [`HANG_SECS`]: the page would
/// be frozen), returns what happened and the actions taken, the last one
/// the one that failed.
fn run_seed(seed: u64, actions: usize) -> Result<(), (String, Vec<String>)> {
    let (report, progress) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut rng = SimRng::new(seed);
        let mut page = Page::open();
        let mut peak = memory::live_bytes();
        for i in 0..actions {
            let action = page.pick(&mut rng);
            if verbose() {
                eprintln!("{seed}/{i}: {action:?}");
            }
            let _ = report.send(Progress::Acting(format!("{action:?}")));
            let outcome = catch_unwind(AssertUnwindSafe(|| {
                page.act(&action);
                page.draw();
            }));
            peak = peak.max(memory::live_bytes());
            if let Err(panic) = outcome {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                let _ = report.send(Progress::Done(Some(message)));
                return;
            }
        }
        if verbose() {
            eprintln!("seed {seed}: {} MiB at most", peak >> 20);
        }
        let _ = report.send(Progress::Done(None));
    });
    let hang = std::time::Duration::from_secs(env_number("RESTLESS_HANG_SECS").unwrap_or(HANG_SECS));
    let mut done = Vec::new();
    loop {
        match progress.recv_timeout(hang) {
            Ok(Progress::Acting(action)) => done.push(action),
            Ok(Progress::Done(None)) => return Ok(()),
            Ok(Progress::Done(Some(message))) => return Err((format!("panicked: {message}"), done)),
            Err(_) => return Err((format!("one action ran for more than {} s: the page would freeze", hang.as_secs()), done)),
        }
    }
}

#[test]
fn a_restless_user_never_crashes_the_page() {
    let actions = env_number("RESTLESS_ACTIONS").unwrap_or(DEFAULT_ACTIONS);
    let seeds: Vec<u64> = match env_number::<u64>("RESTLESS_SEED") {
        Some(seed) => vec![seed],
        None => (0..env_number("RESTLESS_SEEDS").unwrap_or(DEFAULT_SEEDS)).collect(),
    };
    memory::set_budget(env_number("RESTLESS_BUDGET_MIB").unwrap_or(BUDGET_MIB) << 20);
    let mut failed = Vec::new();
    for seed in seeds {
        if let Err((what, done)) = run_seed(seed, actions) {
            eprintln!("seed {seed} {what} at action {} (replay with RESTLESS_SEED={seed} RESTLESS_ACTIONS={actions}):", done.len().saturating_sub(1));
            for (i, a) in done.iter().enumerate().skip(done.len().saturating_sub(30)) {
                eprintln!("  {i:4}: {a}");
            }
            failed.push(seed);
        }
    }
    assert!(failed.is_empty(), "seeds that crashed or froze the page: {failed:?}");
}
