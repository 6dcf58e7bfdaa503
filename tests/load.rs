//! The producers' load generators: a steady rate in simulated time, keys
//! by pattern, refusals that change nothing, and the same run every time.

use kafkascope::sim::load::KeyPattern;
use kafkascope::sim::client::producer::RecordState;
use kafkascope::sim::collections::BTreeSet;
use kafkascope::sim::scenario::{RunSummary, Scenario};
use kafkascope::sim::simulation::{Command, CommandError, Simulation};
use kafkascope::sim::trace::TraceKind;
use kafkascope::ui::session::Session;

fn scenario() -> Scenario {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scenarios/steady-load.json");
    Scenario::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn partitions_of(sim: &Simulation, client: u32) -> BTreeSet<u32> {
    let p = sim.producer(client).unwrap();
    p.records().iter().filter_map(|r| r.partition).collect()
}

#[test]
fn a_scenario_load_sends_its_rate_and_every_record_is_acknowledged() {
    let sim = scenario().run(None).unwrap();
    let summary = RunSummary::of(&sim);
    // Ten seconds at 50 and at 20 records a second, from the first at once
    // when the load starts to the one due as it stops.
    assert_eq!(summary.producers[0].sent, 501);
    assert_eq!(summary.producers[1].sent, 201);
    for p in &summary.producers {
        assert_eq!(p.acknowledged, p.sent, "client {}: every record written, none lost: {p:?}", p.client);
        assert!(p.failures.is_empty());
    }
    // Ten fixed keys hash to some of the partitions; a thousand random
    // ones to all three.
    assert_eq!(partitions_of(&sim, 1), BTreeSet::from([0, 1, 2]));
    let fixed = sim.producer(0).unwrap();
    let keys: BTreeSet<_> = fixed.records().iter().filter_map(|r| r.key.clone()).collect();
    assert_eq!(keys.len(), 10, "{keys:?}");
    assert!(fixed.records().iter().all(|r| r.value.as_ref().is_some_and(|v| v.len() == 200)));
    let started = sim.trace().iter().filter(|e| matches!(e.kind, TraceKind::LoadStarted { .. })).count();
    let stopped: Vec<u64> = sim
        .trace()
        .iter()
        .filter_map(|e| match e.kind {
            TraceKind::LoadStopped { sent, .. } => Some(sent),
            _ => None,
        })
        .collect();
    assert_eq!((started, stopped), (2, vec![501, 201]));
}

#[test]
fn a_scenario_load_is_the_same_run_every_time() {
    let a = scenario().run(None).unwrap();
    let b = scenario().run(None).unwrap();
    assert_eq!(a.trace_hash(), b.trace_hash());
    let other = scenario().run(Some(4)).unwrap();
    assert_ne!(a.trace_hash(), other.trace_hash(), "random keys and jitter come from the seed");
}

fn load(client: u32, records_per_sec: u32, keys: KeyPattern) -> Command {
    Command::StartLoad { client, topic: "orders".into(), records_per_sec, keys, value_bytes: 100 }
}

fn step_for(s: &mut Session, ms: u64) {
    let until = s.sim().now_ms() + ms;
    while s.sim().now_ms() < until {
        assert!(s.step());
    }
}

#[test]
fn a_load_in_the_page_runs_until_stopped_and_a_new_one_replaces_it() {
    let mut s = Session::default();
    s.command(load(0, 50, KeyPattern::None)).unwrap();
    step_for(&mut s, 2_000);
    let sent = |s: &Session| s.sim().producer(0).unwrap().records().len();
    let at_two = sent(&s);
    assert!((100..=101).contains(&at_two), "{at_two} records after 2 s at 50/s");
    // 20 ms apart, with linger.ms 5: each record is a batch of its own.
    let batches = |s: &Session| s.sim().trace().iter().filter(|e| matches!(e.kind, TraceKind::BatchReady { .. })).count();
    let at_two_batches = batches(&s);
    assert!(at_two_batches + 1 >= at_two, "{at_two_batches} batches for {at_two} records");
    // Starting again at another rate replaces the load: the old one's
    // timer finds another run and does nothing. At 400 a second, 2.5 ms
    // apart, linger.ms gathers records into batches.
    s.command(load(0, 400, KeyPattern::None)).unwrap();
    step_for(&mut s, 2_000);
    let at_four = sent(&s);
    assert!((at_two + 800..=at_two + 801).contains(&at_four), "{at_four} records after 2 s more at 400/s");
    let new_batches = batches(&s) - at_two_batches;
    assert!(new_batches * 3 < (at_four - at_two) * 2, "{new_batches} batches for {} records", at_four - at_two);
    s.command(Command::StopLoad { client: 0 }).unwrap();
    step_for(&mut s, 2_000);
    assert!(sent(&s) <= at_four + 1, "stopped");
    let records = s.sim().producer(0).unwrap().records().clone();
    assert!(records.iter().all(|r| !matches!(r.state, RecordState::AwaitingMetadata | RecordState::Accumulating)));
    // Step back into the load and forward again: the same run.
    let (end, view) = (s.timeline_index(), s.view());
    s.go_to(end / 2);
    s.go_to(end);
    assert_eq!(s.view(), view);
}

#[test]
fn a_load_the_cluster_cannot_take_is_refused_and_changes_nothing() {
    let mut s = Session::default();
    let before = (s.timeline_len(), s.view());
    let refused = [
        (load(0, 0, KeyPattern::None), CommandError::LoadRate(0)),
        (load(0, 1001, KeyPattern::None), CommandError::LoadRate(1001)),
        (load(0, 10, KeyPattern::Fixed(0)), CommandError::LoadKeyCount(0)),
        (
            Command::StartLoad { client: 0, topic: "nope".into(), records_per_sec: 5, keys: KeyPattern::None, value_bytes: 1 },
            CommandError::UnknownTopic("nope".into()),
        ),
        (
            Command::StartLoad { client: 0, topic: "orders".into(), records_per_sec: 5, keys: KeyPattern::Random, value_bytes: 2_000_000 },
            CommandError::RecordTooLarge { bytes: 2_000_013 },
        ),
        (load(99, 10, KeyPattern::None), CommandError::UnknownClient(99)),
        (Command::StopLoad { client: 0 }, CommandError::NoLoad(0)),
    ];
    for (command, error) in refused {
        assert_eq!(s.command(command.clone()), Err(error), "{command:?}");
    }
    assert_eq!((s.timeline_len(), s.view()), before);
}
