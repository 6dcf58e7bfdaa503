//! Play paced by simulated time, and a Step that follows the learner's
//! focus, on the page's default cluster (3 brokers, 3 controllers, topic
//! orders with 3 partitions at RF 3), driven by made-up animation frames.

mod common;

use kafkascope::sim::client::producer::RecordState;
use kafkascope::sim::ids::{NodeId, RequestId};
use kafkascope::sim::protocol::ApiKey;
use kafkascope::sim::raft::output::RaftEvent;
use kafkascope::sim::simulation::Command;
use kafkascope::sim::trace::{Direction, TraceEvent, TraceKind};
use kafkascope::ui::focus::Focus;
use kafkascope::ui::follow;
use kafkascope::ui::player::{dwell_ms, Frame, Player, Showing, MAX_POSITIONS_PER_FRAME, SPEEDS};
use kafkascope::ui::session::{default_cluster, Session, DEFAULT_SEED};

/// A frame of a 60 Hz display.
const FRAME_MS: f64 = 16.7;

/// The default cluster's acks=all, idempotent producer.
const ACKS_ALL: u32 = 0;

fn produce() -> Command {
    common::produce(ACKS_ALL, "orders", Some("user-42"), "v")
}

fn acknowledged(s: &Session) -> bool {
    s.view().producers[ACKS_ALL as usize].records.iter().any(|r| matches!(r.state, RecordState::Acknowledged { .. }))
}

/// Plays at 1× with 60 Hz frames until `done` says so or `limit_ms` of real
/// time passed, handing `seen` every event each frame added to the trace
/// with the real time at the end of that frame. Returns the real time it
/// played and the frames.
fn play(
    s: &mut Session,
    limit_ms: f64,
    mut seen: impl FnMut(&TraceEvent, f64),
    mut done: impl FnMut(&Session) -> bool,
) -> (f64, Vec<Frame>) {
    let mut player = Player::default();
    let (mut real_ms, mut frames) = (0.0, Vec::new());
    while real_ms < limit_ms && !done(s) {
        let before = s.sim().trace().len();
        let frame = player.frame(s, Focus::Mine, 1.0, FRAME_MS, MAX_POSITIONS_PER_FRAME);
        real_ms += FRAME_MS;
        for e in &s.sim().trace()[before.min(s.sim().trace().len())..] {
            seen(e, real_ms);
        }
        frames.push(frame);
    }
    (real_ms, frames)
}

/// The most positions any skipping frame took, and their mean.
fn skipping_positions(frames: &[Frame]) -> (u32, f64) {
    let skipping: Vec<u32> =
        frames.iter().filter(|f| matches!(f.showing, Showing::Skipping { .. })).map(|f| f.positions).collect();
    let max = skipping.iter().copied().max().unwrap_or(0);
    let mean = skipping.iter().map(|n| f64::from(*n)).sum::<f64>() / skipping.len().max(1) as f64;
    (max, mean)
}

#[test]
fn a_killed_leaders_failover_plays_at_1x_in_watchable_time() {
    let mut s = Session::default();
    let killed = s.view().partition("orders", 0).unwrap().leader.unwrap();
    s.command_now(Command::KillBroker { broker: killed }).unwrap();
    let mut fenced_at = None;
    let new_leader = |s: &Session| s.view().partition("orders", 0).unwrap().leader.is_some_and(|l| l != killed);
    let (real_ms, frames) = play(
        &mut s,
        60_000.0,
        |e, at| {
            if matches!(e.kind, TraceKind::BrokerSessionExpired { broker, .. } if broker == killed) {
                fenced_at.get_or_insert(at);
            }
        },
        new_leader,
    );
    assert!(new_leader(&s), "a new leader of orders-0 within 60 s of real time (played {real_ms:.0} ms)");
    let fenced_at = fenced_at.expect("the controller fenced the killed broker before electing");
    let (max, mean) = skipping_positions(&frames);
    eprintln!(
        "broker kill at 1x: kill to fence {:.1} s, fence to new leader {:.1} s of real time; skipping frames took up to {max} positions (mean {mean:.0})",
        fenced_at / 1000.0,
        (real_ms - fenced_at) / 1000.0
    );
    assert!(fenced_at >= 1_000.0, "the session timeout's countdown is watchable: {fenced_at:.0} ms");
    assert!(real_ms - fenced_at >= 1_000.0, "the election is watchable: {:.0} ms", real_ms - fenced_at);
    assert!(
        frames.iter().any(|f| matches!(f.showing, Showing::Skipping { .. })),
        "the quiet stretch of the session timeout is skipped, and says so"
    );
}

#[test]
fn a_killed_active_controllers_election_plays_at_1x_in_watchable_time() {
    let mut s = Session::default();
    let killed = s.view().quorum.unwrap().active.unwrap();
    s.command_now(Command::KillController { controller: killed }).unwrap();
    let mut election_at = None;
    let new_active = |s: &Session| s.view().quorum.unwrap().active.is_some_and(|c| c != killed);
    let (real_ms, frames) = play(
        &mut s,
        60_000.0,
        |e, at| {
            if let TraceKind::Raft { event: RaftEvent::BecameProspective { .. } | RaftEvent::BecameCandidate { .. }, .. } = e.kind {
                election_at.get_or_insert(at);
            }
        },
        new_active,
    );
    assert!(new_active(&s), "a new active controller within 60 s of real time (played {real_ms:.0} ms)");
    let election_at = election_at.expect("an election came first");
    let (max, mean) = skipping_positions(&frames);
    eprintln!(
        "controller kill at 1x: kill to election {:.1} s, election to new active controller {:.1} s, kill to new active controller {:.1} s of real time; skipping frames took up to {max} positions (mean {mean:.0})",
        election_at / 1000.0,
        (real_ms - election_at) / 1000.0,
        real_ms / 1000.0
    );
    assert!(election_at >= 1_000.0, "the wait for the fetch timeout is watchable: {election_at:.0} ms");
    assert!(real_ms - election_at >= 1_000.0, "the election is watchable: {:.0} ms", real_ms - election_at);
}

/// The follower fetches an acks=all produce waits on, read off the trace
/// after the fact: those the leader woke in the step it appended a
/// client's records, those that read bytes, and those that released it
/// (per `follow::release`).
fn fetches_waited_on(trace: &[TraceEvent], produce: RequestId) -> Vec<RequestId> {
    let mut out: Vec<RequestId> = Vec::new();
    let client_append_steps: Vec<u64> = trace
        .iter()
        .filter(|e| matches!(&e.kind, TraceKind::Appended { request, .. } if matches!(request.client, NodeId::Client(_))))
        .map(|e| e.step)
        .collect();
    for e in trace {
        let carried = match &e.kind {
            TraceKind::PurgatoryCompleted { request, expired: false, .. } if client_append_steps.contains(&e.step) => Some(*request),
            TraceKind::LogRead { request, bytes, .. } if *bytes > 0 => Some(*request),
            _ => None,
        };
        if let Some(r) = carried.filter(|r| matches!(r.client, NodeId::Broker(_))) {
            out.push(r);
        }
    }
    // Each follower that appended carried records reports its new log end
    // offset with its next fetch to the same leader.
    let sent_to = |r: RequestId| {
        trace.iter().find_map(|e| match &e.kind {
            TraceKind::Sent { request, direction: Direction::Request, to, .. } if *request == r => Some(*to),
            _ => None,
        })
    };
    let mut reports = Vec::new();
    for e in trace {
        if let TraceKind::Appended { request, .. } = &e.kind {
            if out.contains(request) {
                let leader = sent_to(*request);
                let next = trace.iter().filter(|n| n.step > e.step && n.node == e.node).find_map(|n| match &n.kind {
                    TraceKind::Sent { request, api: ApiKey::Fetch, direction: Direction::Request, to, .. } if Some(*to) == leader => Some(*request),
                    _ => None,
                });
                reports.extend(next);
            }
        }
    }
    out.extend(reports);
    out.extend(follow::release(trace, produce).expect("acks=all waited in purgatory for the followers").fetches);
    out
}

/// Background a learner never needs to land on: heartbeats, the quorum's
/// fetches, brokers' metadata fetches, and follower fetches other than the
/// ones the produce waits on.
fn only_background(events: &[TraceEvent], waited_on: &[RequestId]) -> bool {
    events.iter().all(|e| match &e.kind {
        TraceKind::RaftSent { rpc, .. } => { let rpc = rpc.name(); rpc.contains("Heartbeat") || rpc.starts_with("Fetch") || rpc.starts_with("BeginQuorumEpoch") }
        TraceKind::Raft { event: RaftEvent::HighWatermarkAdvanced { .. } | RaftEvent::EntriesAppended { .. }, .. } => true,
        TraceKind::ConnectionMuted { client: NodeId::Broker(_), .. } => true,
        kind => kind.request().is_some_and(|r| matches!(r.client, NodeId::Broker(_)) && !waited_on.contains(&r)),
    })
}

#[test]
fn a_focused_step_follows_an_acks_all_produce_and_steps_back_the_same_way() {
    let mut s = Session::default();
    s.command(produce()).unwrap();
    let start = s.timeline_index();
    let mut landed = vec![start];
    let mut passed_any = false;
    while !acknowledged(&s) {
        let report = s.step_focus(Focus::Mine);
        assert!(report.moved && report.found, "something of the produce comes next: {report:?}");
        passed_any |= !report.passed.is_empty();
        landed.push(s.timeline_index());
        assert!(landed.len() < 500, "the produce is acknowledged");
    }
    assert!(passed_any, "some background was passed over");
    assert!(s.timeline_index() - start > landed.len() - 1, "fewer focused steps than positions");
    let trace = s.sim().trace().to_vec();
    let id = trace
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::Hop { request, api: ApiKey::Produce, .. } => Some(*request),
            _ => None,
        })
        .unwrap();
    let waited_on = fetches_waited_on(&trace, id);
    let mut seen: Vec<RequestId> = Vec::new();
    for &index in &landed[1..] {
        let (events, _) = s.position_events_at(index).unwrap();
        let moved = events.iter().any(|e| {
            matches!(e.node, NodeId::Client(_))
                || e.kind.request().is_some_and(|r| matches!(r.client, NodeId::Client(_)) || waited_on.contains(&r))
        });
        assert!(moved, "position {index} moves the learner's request or a fetch it waits on: {events:#?}");
        assert!(!only_background(events, &waited_on), "position {index} is background only: {events:#?}");
        seen.extend(events.iter().filter_map(|e| e.kind.request()));
    }
    let release = follow::release(&trace, id).unwrap();
    for fetch in &release.fetches {
        assert!(seen.contains(fetch), "the fetch {fetch} that released the produce was stepped to");
    }
    // Back the same way, position for position, to the command.
    for &index in landed.iter().rev().skip(1) {
        assert!(s.step_back_focus(Focus::Mine));
        assert_eq!(s.timeline_index(), index);
    }
    // And forward again through the recorded future: the same landings.
    for &index in &landed[1..] {
        assert!(s.step_focus(Focus::Mine).found);
        assert_eq!(s.timeline_index(), index);
    }
}

#[test]
fn at_every_speed_each_hop_of_a_produce_is_held_for_its_dwell() {
    for &speed in SPEEDS {
        let mut s = Session::default();
        s.command(produce()).unwrap();
        let mut player = Player::default();
        let (mut real_ms, mut last_reached): (f64, Option<f64>) = (0.0, None);
        let mut reached = 0;
        while !acknowledged(&s) {
            let before = s.timeline_index();
            let frame = player.frame(&mut s, Focus::Mine, speed, FRAME_MS, MAX_POSITIONS_PER_FRAME);
            real_ms += FRAME_MS;
            let in_focus = (before + 1..=s.timeline_index()).filter(|i| s.in_focus(*i, Focus::Mine)).count();
            assert!(in_focus <= 1, "at {speed}x two positions in focus shared a frame");
            assert_eq!(frame.reached, in_focus == 1);
            if frame.reached {
                if let Some(last) = last_reached {
                    assert!(
                        real_ms - last >= dwell_ms(speed) - 1e-9,
                        "at {speed}x a hop was shown {:.0} ms, less than its dwell {:.0} ms",
                        real_ms - last,
                        dwell_ms(speed)
                    );
                }
                last_reached = Some(real_ms);
                reached += 1;
            }
            assert!(real_ms < 600_000.0, "at {speed}x the produce is acknowledged within 10 minutes");
        }
        assert!(reached > 10, "at {speed}x the produce's hops were each shown: {reached}");
    }
}

/// A small seeded generator for the frames' lengths and speeds, so a
/// failing run can be replayed from its seed.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

#[test]
fn playing_reaches_the_same_simulation_steps_as_stepping() {
    for seed in 1..=4u64 {
        let mut rng = Lcg(seed);
        let mut played = Session::default();
        played.command(produce()).unwrap();
        let mut player = Player::default();
        for frame in 0..400 {
            if frame == 150 {
                played.command_now(Command::KillBroker { broker: 1 }).unwrap();
            }
            if frame == 250 {
                // Back on the timeline, then on through its recorded future.
                played.go_to(played.timeline_index() / 2);
            }
            let speed = SPEEDS[rng.next(SPEEDS.len() as u64) as usize];
            let focus = Focus::ALL[rng.next(4) as usize];
            let elapsed = [0.0, 4.0, 16.7, 33.3, 250.0][rng.next(5) as usize];
            player.frame(&mut played, focus, speed, elapsed, 1 + rng.next(300) as u32);
        }
        // The same commands at the same steps, then plain Steps.
        let mut stepped = Session::new(default_cluster(), DEFAULT_SEED).unwrap();
        let commands = played.commands().to_vec();
        let mut next = 0;
        while stepped.sim().steps() < played.sim().steps() || next < commands.len() {
            if commands.get(next).is_some_and(|(at, _)| *at == stepped.sim().steps()) {
                stepped.command(commands[next].1.clone()).unwrap();
                next += 1;
            } else {
                assert!(stepped.step(), "seed {seed}: stepping ran out before the played position");
            }
        }
        assert_eq!(stepped.sim().steps(), played.sim().steps(), "seed {seed}");
        assert_eq!(stepped.sim().trace_hash(), played.sim().trace_hash(), "seed {seed}: the same steps");
        assert_eq!(stepped.timeline_index(), played.timeline_index(), "seed {seed}: the same positions");
        assert_eq!(stepped.view(), played.view(), "seed {seed}");
    }
}

#[test]
fn the_clock_runs_smoothly_between_events_and_holds_on_a_position_in_focus() {
    let mut s = Session::default();
    let mut player = Player::default();
    // A quiet cluster: nothing in the learner's focus, so the clock runs on
    // between the background's positions and speeds up.
    let mut last = s.sim().now_ms() as f64;
    let mut rates = Vec::new();
    for _ in 0..200 {
        let frame = player.frame(&mut s, Focus::Mine, 1.0, FRAME_MS, MAX_POSITIONS_PER_FRAME);
        assert!(frame.display_ms > last, "the clock moves every frame");
        assert!(frame.display_ms >= s.sim().now_ms() as f64);
        last = frame.display_ms;
        rates.push(frame.rate);
    }
    assert_eq!(rates[0], 1.0, "it starts at the speed");
    assert!(rates.windows(2).all(|w| w[1] >= w[0]), "the rate only ramps up while nothing is in focus");
    assert_eq!(*rates.last().unwrap(), 32.0, "capped at 32 times the speed");
    // A produce: the command resets the pace, and its first hop is held
    // with the clock standing.
    s.command(produce()).unwrap();
    let mut frame = player.frame(&mut s, Focus::Mine, 1.0, FRAME_MS, MAX_POSITIONS_PER_FRAME);
    while !frame.reached {
        frame = player.frame(&mut s, Focus::Mine, 1.0, FRAME_MS, MAX_POSITIONS_PER_FRAME);
    }
    assert_eq!(frame.display_ms, s.sim().now_ms() as f64, "held at the position's own time");
    let held = player.frame(&mut s, Focus::Mine, 1.0, FRAME_MS, MAX_POSITIONS_PER_FRAME);
    assert_eq!((held.showing, held.positions, held.display_ms), (Showing::Holding, 0, frame.display_ms));
}

#[test]
fn a_frame_takes_at_most_its_cap_and_the_clock_lags_behind_instead() {
    let mut s = Session::default();
    let start_ms = s.sim().now_ms() as f64;
    let mut player = Player::default();
    let (mut capped_frames, mut real_ms) = (0, 0.0);
    for _ in 0..300 {
        let frame = player.frame(&mut s, Focus::Mine, 100.0, FRAME_MS, 3);
        real_ms += FRAME_MS;
        assert!(frame.positions <= 3);
        if frame.positions == 3 {
            capped_frames += 1;
            assert_eq!(frame.display_ms, s.sim().now_ms() as f64, "the clock stays with the last position taken");
        }
    }
    assert!(capped_frames > 100, "at 100x a quiet cluster owes far more than 3 positions a frame: {capped_frames}");
    assert!(s.sim().now_ms() as f64 - start_ms < 100.0 * real_ms / 10.0, "so simulated time fell far behind the speed");
}

#[test]
fn a_running_load_plays_at_the_chosen_speed_and_is_never_skipped() {
    let mut s = Session::default();
    let load = Command::StartLoad {
        client: 1,
        topic: "orders".into(),
        records_per_sec: 50,
        keys: kafkascope::sim::load::KeyPattern::None,
        value_bytes: 100,
    };
    s.command_now(load).unwrap();
    let start_ms = s.sim().now_ms();
    let mut player = Player::default();
    let mut frames = Vec::new();
    // Eight real seconds at 1×: a quiet cluster would ramp to 32× in
    // under three.
    for _ in 0..480 {
        frames.push(player.frame(&mut s, Focus::Mine, 1.0, FRAME_MS, MAX_POSITIONS_PER_FRAME));
    }
    let played_ms = s.sim().now_ms() - start_ms;
    assert!(frames.iter().all(|f| !f.reached), "nothing but the load ran, so nothing in focus was held");
    assert!(frames.iter().all(|f| !matches!(f.showing, Showing::Skipping { .. })), "the load is watched, not skipped");
    assert!(frames.iter().all(|f| f.rate <= 2.0), "{:?}", frames.iter().map(|f| f.rate).fold(0.0, f64::max));
    assert!((7_000..=8_100).contains(&played_ms), "8 real seconds at 1× played {played_ms} simulated ms");
    let sent = s.sim().producer(1).unwrap().records().len();
    assert!((350..=410).contains(&sent), "{sent} records at 50 a second");
}
