//! Scenario files: parsing, their error messages, running, determinism.

use kafkascope::sim::protocol::ErrorCode;
use kafkascope::sim::scenario::{RunSummary, Scenario, ScenarioError, DEFAULT_RUN_AFTER_LAST_ACTION_MS};
use kafkascope::sim::simulation::{CommandError, Simulation};
use std::path::PathBuf;

fn scenario_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios")
}

fn load(name: &str) -> Scenario {
    let text = std::fs::read_to_string(scenario_dir().join(name)).expect("scenario file");
    Scenario::from_json(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn json_error(text: &str) -> (usize, usize, String) {
    match Scenario::from_json(text) {
        Err(ScenarioError::Json { line, column, message }) => (line, column, message),
        other => panic!("expected a JSON error, got {other:?}"),
    }
}

#[test]
fn every_example_parses_runs_and_round_trips() {
    let mut names: Vec<String> = std::fs::read_dir(scenario_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    for required in ["basic.json", "faults.json", "rf3-acks-all.json", "segments.json", "too-large.json"] {
        assert!(names.iter().any(|n| n == required), "tests/scenarios/{required} is missing");
    }
    for name in &names {
        let scenario = load(name);
        let again = Scenario::from_json(&scenario.to_json()).unwrap_or_else(|e| panic!("{name} round trip: {e}"));
        assert_eq!(again, scenario, "{name}: to_json then from_json changed it");
        let sim = scenario.run(None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sim.now_ms(), scenario.end_ms());
    }
}

#[test]
fn fault_actions_read_from_json_and_run() {
    use kafkascope::sim::simulation::{Command, NodeSet};
    use kafkascope::sim::trace::TraceKind;
    let scenario = load("faults.json");
    let commands: Vec<&Command> = scenario.actions.iter().map(|a| &a.command).collect();
    assert!(commands.contains(&&Command::ShutdownBroker { broker: 0 }));
    assert!(commands.contains(&&Command::RestartBroker { broker: 0 }));
    assert!(commands.contains(&&Command::KillBroker { broker: 2 }));
    assert!(commands.contains(&&Command::KillController { controller: 0 }));
    assert!(commands.contains(&&Command::RestartController { controller: 0 }));
    assert!(commands.contains(&&Command::Heal));
    let cut = Command::Partition {
        a: NodeSet { brokers: vec![1], ..Default::default() },
        b: NodeSet { controllers: vec![0, 1, 2], ..Default::default() },
    };
    assert!(commands.contains(&&cut));
    let sim = scenario.run(None).unwrap();
    let has = |f: &dyn Fn(&TraceKind) -> bool| sim.trace().iter().any(|e| f(&e.kind));
    assert!(has(&|k| matches!(k, TraceKind::BrokerShutDown { broker: 0 })));
    assert!(has(&|k| matches!(k, TraceKind::BrokerSessionExpired { broker: 1, .. })));
    assert!(has(&|k| matches!(k, TraceKind::NetworkHealed { cuts: 1 })));
    assert!(has(&|k| matches!(k, TraceKind::BrokerStopped { broker: 2 })));
    assert_eq!(RunSummary::of(&sim).to_string().matches("3 acknowledged").count(), 1);

    // A side must not be empty, and a node cannot be on both sides.
    let bad = r#"{"cluster": {"brokers": 1, "controllers": 1}, "clients": [],
        "actions": [{"at_ms": 0, "action": "partition", "a": {"brokers": [0]}, "b": {"brokers": [0]}}]}"#;
    match Scenario::from_json(bad).unwrap().run(None) {
        Err(ScenarioError::Command { index: 0, error: CommandError::NodeOnBothSides(_), .. }) => {}
        other => panic!("expected NodeOnBothSides, got {other:?}"),
    }
    let typo = r#"{"actions": [{"at_ms": 0, "action": "partition", "a": {"broker": [0]}, "b": {}}]}"#;
    let (_, _, message) = json_error(typo);
    assert!(message.contains("unknown field `broker`"), "{message}");
}

#[test]
fn the_format_maps_onto_cluster_config_and_commands() {
    // Running a scenario is building its ClusterConfig and giving each
    // command at its time: the same run, event for event.
    let scenario = load("rf3-acks-all.json");
    let mut by_hand = Simulation::new(scenario.cluster_config(), 7).unwrap();
    for a in &scenario.actions {
        by_hand.run_until(a.at_ms);
        by_hand.command(a.command.clone()).unwrap();
    }
    by_hand.run_until(5_000);
    let run = scenario.run(None).unwrap();
    assert_eq!(run.trace(), by_hand.trace());
    assert_eq!(scenario.cluster_config().brokers, 3);
    assert_eq!(scenario.cluster_config().broker.min_insync_replicas, 2);
    assert_eq!(scenario.cluster_config().topics[0].replication_factor, 3);
}

#[test]
fn same_scenario_and_seed_give_the_same_trace_and_another_seed_does_not() {
    let scenario = load("rf3-acks-all.json");
    let a = scenario.run(None).unwrap();
    let b = scenario.run(None).unwrap();
    assert_eq!(a.trace_hash(), b.trace_hash());
    assert_eq!(a.trace(), b.trace());
    // The file says seed 7; naming it changes nothing, another seed does.
    assert_eq!(a.seed(), 7);
    assert_eq!(scenario.run(Some(7)).unwrap().trace_hash(), a.trace_hash());
    let other = scenario.run(Some(8)).unwrap();
    assert_eq!(other.seed(), 8);
    assert_ne!(other.trace_hash(), a.trace_hash());
    // Whatever the seed, the outcome is the same: four records acknowledged.
    assert_eq!(RunSummary::of(&other).producers[0].acknowledged, 4);
}

#[test]
fn a_scenario_without_a_seed_uses_the_default_one() {
    let mut scenario = load("basic.json");
    scenario.seed = None;
    assert_eq!(scenario.run(None).unwrap().seed(), kafkascope::sim::scenario::DEFAULT_SEED);
    assert_eq!(scenario.run(Some(99)).unwrap().seed(), 99);
}

#[test]
fn summaries_count_what_the_clients_saw() {
    let rf3 = RunSummary::of(&load("rf3-acks-all.json").run(None).unwrap());
    assert_eq!(rf3.producers.len(), 1);
    assert_eq!((rf3.producers[0].sent, rf3.producers[0].acknowledged, rf3.producers[0].pending), (4, 4, 0));
    assert!(rf3.producers[0].failures.is_empty());
    assert_eq!(rf3.consumers[0].client, 1);
    assert_eq!(rf3.consumers[0].consumed, 4);

    let too_large = RunSummary::of(&load("too-large.json").run(None).unwrap());
    let failures: Vec<_> = too_large.failures().collect();
    assert_eq!(failures.len(), 1);
    assert_eq!(failures[0].0, 0);
    assert_eq!(failures[0].1.error, ErrorCode::MessageTooLarge);
    assert_eq!(failures[0].1.partition, Some(0));
    assert!(too_large.to_string().contains("record 0 to small-0 failed: MESSAGE_TOO_LARGE"));
}

#[test]
fn defaults_fill_in_what_a_scenario_leaves_out() {
    let s = Scenario::from_json("{}").unwrap();
    assert_eq!(s.cluster.brokers, 1);
    assert!(s.topics.is_empty() && s.clients.is_empty() && s.actions.is_empty());
    assert_eq!(s.end_ms(), DEFAULT_RUN_AFTER_LAST_ACTION_MS);
    let s = Scenario::from_json(
        r#"{"topics":[{"name":"t","partitions":1}],"clients":[{"producer":{}}],
            "actions":[{"at_ms":250,"action":"produce","client":0,"topic":"t"}]}"#,
    )
    .unwrap();
    assert_eq!(s.topics[0].replication_factor, 1);
    assert_eq!(s.end_ms(), 250 + DEFAULT_RUN_AFTER_LAST_ACTION_MS);
    assert_eq!(s.run(None).unwrap().now_ms(), 1_250);
}

#[test]
fn malformed_json_reports_line_and_column() {
    let (line, column, message) = json_error("{\n  \"seed\": 1,\n  \"cluster\": { \"brokers\": 3, }\n}");
    assert_eq!(line, 3);
    assert!(column > 0);
    assert!(message.contains("trailing comma"), "{message}");
    assert!(!message.contains("at line"), "the position is not repeated: {message}");
    let e = Scenario::from_json("{\n  \"seed\": 1,\n  \"cluster\": { \"brokers\": 3, }\n}").unwrap_err();
    assert!(e.to_string().starts_with("line 3, column "), "{e}");
}

#[test]
fn unknown_fields_are_refused_everywhere() {
    let (line, _, message) = json_error("{\n  \"sead\": 1\n}");
    assert_eq!(line, 2);
    assert!(message.contains("unknown field `sead`"), "{message}");

    let (_, _, message) = json_error(r#"{"cluster":{"brokers":1,"broker":{"num.io.thread":2}}}"#);
    assert!(message.contains("unknown field `num.io.thread`"), "{message}");
    assert!(message.contains("`num.io.threads`"), "the message lists the right names: {message}");

    let (_, _, message) = json_error(r#"{"topics":[{"name":"a","partitions":1},{"name":"b","partitions":1,"config":{"segment.byte":9}}]}"#);
    assert!(message.starts_with("topics[1]: unknown field `segment.byte`"), "{message}");

    let (_, _, message) = json_error(r#"{"clients":[{"consumer":{}},{"producer":{"lingerms":5}}]}"#);
    assert!(message.starts_with("clients[1]: unknown field `lingerms`"), "{message}");

    let (_, _, message) = json_error(
        r#"{"actions":[{"at_ms":0,"action":"fetch","client":0,"topic":"t","partition":0},
                       {"at_ms":1,"action":"produce","client":0,"topic":"t","valeu":"x"}]}"#,
    );
    assert!(message.starts_with("actions[1]: unknown field `valeu`"), "{message}");
}

#[test]
fn actions_name_their_problems() {
    let (_, _, message) = json_error(r#"{"actions":[{"action":"produce","client":0,"topic":"t"}]}"#);
    assert_eq!(message, "actions[0]: missing field `at_ms`");
    let (_, _, message) = json_error(r#"{"actions":[{"at_ms":0,"action":"explode","client":0}]}"#);
    assert!(message.starts_with("actions[0]: unknown variant `explode`"), "{message}");
    let (_, _, message) = json_error(r#"{"actions":[{"at_ms":0,"client":0,"topic":"t"}]}"#);
    assert!(message.contains("missing field `action`"), "{message}");
    let (_, _, message) = json_error(r#"{"clients":[{"producer":{"acks":"most"}}]}"#);
    assert!(message.contains("acks must be all, -1, 1 or 0"), "{message}");
}

#[test]
fn actions_must_be_in_time_order_and_before_the_end() {
    let e = Scenario::from_json(
        r#"{"actions":[{"at_ms":5,"action":"fetch","client":0,"topic":"t","partition":0},
                       {"at_ms":4,"action":"fetch","client":0,"topic":"t","partition":0}]}"#,
    )
    .unwrap_err();
    assert!(matches!(e, ScenarioError::Invalid(_)));
    assert!(e.to_string().contains("actions[1] is at 4ms, before actions[0] at 5ms"), "{e}");

    let e = Scenario::from_json(
        r#"{"run_until_ms":3,"actions":[{"at_ms":5,"action":"fetch","client":0,"topic":"t","partition":0}]}"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("run_until_ms 3 is before the last action"), "{e}");
}

#[test]
fn impossible_clusters_fail_with_kafkas_error() {
    let s = Scenario::from_json(r#"{"cluster":{"brokers":2},"topics":[{"name":"t","partitions":1,"replication.factor":3}]}"#)
        .unwrap();
    match s.run(None) {
        Err(ScenarioError::Config(e)) => {
            assert_eq!(e.error(), ErrorCode::InvalidReplicationFactor);
            assert!(e.to_string().starts_with("INVALID_REPLICATION_FACTOR: "), "{e}");
        }
        other => panic!("expected a config error, got {other:?}"),
    }
    let s = Scenario::from_json(r#"{"topics":[{"name":"bad name","partitions":1}]}"#).unwrap();
    assert!(matches!(s.run(None), Err(ScenarioError::Config(e)) if e.error() == ErrorCode::InvalidConfig));
}

#[test]
fn a_refused_command_names_its_action() {
    let s = Scenario::from_json(
        r#"{"topics":[{"name":"t","partitions":2}],"clients":[{"producer":{}},{"consumer":{}}],
            "actions":[{"at_ms":0,"action":"produce","client":0,"topic":"t","value":"ok"},
                       {"at_ms":10,"action":"produce","client":0,"topic":"nope","value":"x"},
                       {"at_ms":20,"action":"fetch","client":1,"topic":"t","partition":0}]}"#,
    )
    .unwrap();
    let e = s.run(None).unwrap_err();
    assert_eq!(e, ScenarioError::Command { index: 1, at_ms: 10, error: CommandError::UnknownTopic("nope".into()) });
    assert!(e.to_string().starts_with("actions[1] (at 10ms) was refused: there is no topic named \"nope\""), "{e}");

    let s = Scenario::from_json(
        r#"{"topics":[{"name":"t","partitions":2}],"clients":[{"producer":{}}],
            "actions":[{"at_ms":0,"action":"fetch","client":0,"topic":"t","partition":5}]}"#,
    )
    .unwrap();
    assert!(matches!(s.run(None), Err(ScenarioError::Command { index: 0, error: CommandError::NotAConsumer(0), .. })));
}

#[test]
fn to_json_spells_out_every_setting() {
    let json = load("basic.json").to_json();
    for name in ["\"num.io.threads\"", "\"segment.bytes\"", "\"linger.ms\"", "\"fetch.max.wait.ms\"", "\"at_ms\": 3100"] {
        assert!(json.contains(name), "{name} missing from\n{json}");
    }
    assert!(json.contains("\"acks\": \"all\""), "{json}");
    assert!(json.contains("\"action\": \"fetch\""), "{json}");
}
