//! The `kafkascope-cli` binary, run on the scenario files in tests/scenarios.

use std::path::PathBuf;
use std::process::{Command, Output};

fn scenario(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios").join(name).to_string_lossy().into_owned()
}

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kafkascope-cli")).args(args).output().expect("the CLI runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("UTF-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("UTF-8 stderr")
}

/// The run succeeded; its stdout.
fn ok(args: &[&str]) -> String {
    let o = cli(args);
    assert!(o.status.success(), "{args:?} failed: {}\n{}", stderr(&o), stdout(&o));
    stdout(&o)
}

/// The run failed cleanly: a non-zero status and an `error:` line, no panic.
fn fails(args: &[&str]) -> String {
    let o = cli(args);
    let err = stderr(&o);
    assert!(!o.status.success(), "{args:?} should fail; stdout:\n{}", stdout(&o));
    assert!(err.starts_with("error: ") || err.contains("\nerror: "), "{args:?}: no error line in {err:?}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    err
}

/// A file in Cargo's scratch directory for integration tests.
fn temp_file(name: &str, contents: &str) -> String {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, contents).unwrap();
    path.to_string_lossy().into_owned()
}

fn summary_line(out: &str) -> String {
    out.lines().find(|l| l.starts_with("summary: ")).expect("a summary line").to_string()
}

// ---------------------------------------------------------------------------
// run
// ---------------------------------------------------------------------------

#[test]
fn run_prints_the_trace_then_a_summary() {
    let out = ok(&["run", &scenario("basic.json")]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("broker 0 started"), "{}", lines[0]);
    let summary_at = lines.iter().position(|l| l.starts_with("summary: ")).expect("summary");
    // One line per trace event before the summary, as many as it counts.
    let events: usize = lines[summary_at].split(" trace events").next().unwrap().rsplit(' ').next().unwrap().parse().unwrap();
    assert_eq!(summary_at, events);
    assert!(out.contains("produce of 3 to orders-0 completed: NONE"), "{out}");
    assert!(out.contains("client-0 producer: 3 sent, 3 acknowledged, 0 failed, 0 pending"), "{out}");
    assert!(out.contains("client-1 consumer: 3 records consumed (orders-0: 3)"), "{out}");
}

#[test]
fn run_rf3_acks_all_replicates_before_acknowledging() {
    let out = ok(&["run", &scenario("rf3-acks-all.json")]);
    assert!(out.contains("client-0 producer: 4 sent, 4 acknowledged, 0 failed, 0 pending"), "{out}");
    assert!(out.contains("client-1 consumer: 4 records consumed"), "{out}");
    // acks=all: a partition's produce completes only after all three
    // replicas (the ISR) appended the records.
    let lines: Vec<&str> = out.lines().collect();
    let mut checked = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.split(" produce of ").nth(1) else { continue };
        let tp = rest.split(" to ").nth(1).unwrap().split(' ').next().unwrap();
        let appended_on: std::collections::BTreeSet<&str> = lines[..i]
            .iter()
            .filter_map(|l| l.split(&format!(" appended to {tp} on ")).nth(1))
            .map(|r| r.split(' ').next().unwrap())
            .collect();
        assert_eq!(appended_on.len(), 3, "{tp} acknowledged before all replicas appended: {line}");
        checked += 1;
    }
    assert!(checked >= 2, "{out}");
    for b in 0..3 {
        assert!(out.contains(&format!("broker {b} started")), "{out}");
    }
}

#[test]
fn run_prints_faults_elections_and_fencing_readably() {
    let out = ok(&["run", &scenario("faults.json")]);
    for line in [
        "controller 1 is the active controller (epoch 1)",
        "broker 0 begins controlled shutdown (wantShutDown)",
        "puts broker 0 in controlled shutdown: 2 partition change(s)",
        "broker 0 shut down cleanly",
        "client-0: connection to broker-0 reset",
        "network partition: broker-1 | controller-0, controller-1, controller-2",
        "BrokerHeartbeat from broker-1 to controller-1 lost in the partition",
        "broker 1 session expired",
        "network healed (1 cut)",
        "controller 0 stopped",
        "broker 2 stopped",
        "connection to broker-2 refused",
        "client-0 producer: 3 sent, 3 acknowledged, 0 failed, 0 pending",
    ] {
        assert!(out.contains(line), "no {line:?} in the output");
    }
    // Metadata records read as Kafka names them, not as Rust structs.
    assert!(out.contains("PartitionChangeRecord orders-0: leader "), "no readable PartitionChangeRecord");
    assert!(out.contains("BrokerRegistrationChangeRecord broker 1 fenced"));
    let structs: Vec<&str> = out.lines().filter(|l| l.contains("metadata record") && l.contains(" { ")).collect();
    assert!(structs.is_empty(), "records printed as Rust structs: {structs:?}");
}

/// Every line after the prefix is a sentence: the quorum's elections and
/// votes read as what happened and why, and no line shows Rust syntax (a
/// struct's braces, an Option, a path or a Vec's brackets).
#[test]
fn run_prints_raft_events_as_sentences_not_rust_values() {
    let out = ok(&["run", &scenario("faults.json")]);
    for line in [
        "controller 1 became prospective in epoch 0 after its election timeout: it asks for pre-votes for up to ",
        "controller 2 grants controller 1 its pre-vote in epoch 0",
        "controller 1 became a candidate for epoch 1 after winning the pre-vote",
        "controller 2 grants controller 1 its vote in epoch 1",
        "controller 1 became leader of epoch 1, which starts at metadata offset 0",
        "controller 0 is unattached in epoch 0: it stands for election in ",
        "PartitionRecord orders-1: replicas 0, 1 and 2, leader 0, ISR 0, 1 and 2",
    ] {
        assert!(out.contains(line), "no {line:?} in the output");
    }
    let rust: Vec<&str> = out
        .lines()
        .filter(|l| {
            ["{", "}", "Some(", "None", "::", " raft: "].iter().any(|s| l.contains(s))
                || l.as_bytes().windows(2).any(|w| w[0] == b'[' && w[1].is_ascii_digit())
        })
        .collect();
    assert!(rust.is_empty(), "{} lines show Rust syntax, the first: {:?}", rust.len(), rust.first());
}

#[test]
fn run_is_deterministic_and_seed_changes_it() {
    let path = scenario("rf3-acks-all.json");
    let a = ok(&["run", &path]);
    let b = ok(&["run", &path]);
    assert_eq!(a, b, "same scenario, same seed: same output");
    let same = ok(&["run", &path, "--seed", "7"]);
    assert_eq!(summary_line(&same), summary_line(&a), "the file's own seed is 7");
    let other = ok(&["run", &path, "--seed", "8"]);
    assert_ne!(summary_line(&other), summary_line(&a));
    let other_eq = ok(&["run", &path, "--seed=8"]);
    assert_eq!(other, other_eq);
}

#[test]
fn run_reports_the_brokers_message_too_large() {
    let o = cli(&["run", &scenario("too-large.json")]);
    assert!(!o.status.success());
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(out.contains("rejected: MESSAGE_TOO_LARGE"), "the trace shows the broker's refusal: {out}");
    assert!(out.contains("1 sent, 0 acknowledged, 1 failed"), "{out}");
    assert!(err.starts_with("error: client-0 record 0 to small-0 failed: broker-0 answered MESSAGE_TOO_LARGE"), "{err}");
    assert!(err.contains("max.message.bytes"), "{err}");
}

// ---------------------------------------------------------------------------
// dump-log
// ---------------------------------------------------------------------------

/// The value after `name: ` in a dump line.
fn field<'a>(line: &'a str, name: &str) -> &'a str {
    let start = line.find(&format!("{name}: ")).unwrap_or_else(|| panic!("no {name} in {line}")) + name.len() + 2;
    line[start..].split(' ').next().unwrap()
}

#[test]
fn dump_log_shows_every_segment_like_kafka_dump_log() {
    let out = ok(&["dump-log", &scenario("segments.json"), "--topic", "events", "--partition", "0"]);
    let logs: Vec<&str> = out.lines().filter(|l| l.starts_with("Dumping ") && l.ends_with(".log")).collect();
    assert_eq!(
        logs,
        [
            "Dumping 00000000000000000000.log",
            "Dumping 00000000000000000002.log",
            "Dumping 00000000000000000004.log",
            "Dumping 00000000000000000006.log"
        ],
        "segment.bytes 200 holds two batches of about 75 bytes: {out}"
    );
    let starts: Vec<&str> = out.lines().filter_map(|l| l.strip_prefix("Log starting offset: ")).collect();
    assert_eq!(starts, ["0", "2", "4", "6"]);

    // Every batch line in Kafka's order of fields, offsets consecutive, and
    // each segment starting with the batch its name says.
    let mut expected_offset = 0;
    let mut segment_start = None;
    for line in out.lines() {
        if let Some(s) = line.strip_prefix("Log starting offset: ") {
            segment_start = Some(s.parse::<i64>().unwrap());
            continue;
        }
        if !line.starts_with("baseOffset: ") {
            continue;
        }
        let names: Vec<&str> = line.split(' ').filter(|w| w.ends_with(':')).collect();
        assert_eq!(
            names,
            [
                "baseOffset:", "lastOffset:", "count:", "baseSequence:", "lastSequence:", "producerId:", "producerEpoch:",
                "partitionLeaderEpoch:", "isTransactional:", "isControl:", "deleteHorizonMs:", "position:", "CreateTime:",
                "size:", "magic:", "compresscodec:", "crc:", "isvalid:"
            ]
        );
        let base: i64 = field(line, "baseOffset").parse().unwrap();
        assert_eq!(base, expected_offset);
        if let Some(start) = segment_start.take() {
            assert_eq!(base, start, "a segment's first batch starts at its base offset");
            assert_eq!(field(line, "position"), "0");
        }
        expected_offset = field(line, "lastOffset").parse::<i64>().unwrap() + 1;
        assert_eq!(field(line, "count"), "1");
        assert_eq!(field(line, "magic"), "2");
        assert_eq!(field(line, "compresscodec"), "none");
        assert_eq!(field(line, "isvalid"), "true");
        assert_eq!(field(line, "deleteHorizonMs"), "OptionalLong.empty");
        // acks=1 without idempotence: no producer id or sequence.
        assert_eq!(field(line, "producerId"), "-1");
        assert_eq!(field(line, "baseSequence"), "-1");
    }
    assert_eq!(expected_offset, 7, "seven records in all");

    // The indexes: index.interval.bytes 1 indexes every batch after the
    // first of its segment, by the batch's last offset.
    assert!(out.contains("Dumping 00000000000000000000.index\noffset: 1 position: 74\n"), "{out}");
    assert!(out.contains("Dumping 00000000000000000000.timeindex\ntimestamp: 3020 offset: 1\n"), "{out}");
    assert!(out.contains("Dumping 00000000000000000006.index\n00000000000000000006.index is empty.\n"), "{out}");
    assert!(!out.contains("| offset:"), "records only with --print-data-log");
}

#[test]
fn dump_log_print_data_log_shows_each_record() {
    let out = ok(&["dump-log", &scenario("basic.json"), "--topic", "orders", "--partition", "0", "--print-data-log"]);
    let batch = out.lines().find(|l| l.starts_with("baseOffset: ")).unwrap();
    assert!(batch.starts_with("baseOffset: 0 lastOffset: 2 count: 3 baseSequence: 0 lastSequence: 2 producerId: "), "{batch}");
    // The batch's CreateTime is its max timestamp: record 1 says 5000.
    assert_eq!(field(batch, "CreateTime"), "5000");
    let records: Vec<&str> = out.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(
        records,
        [
            "| offset: 0 CreateTime: 3000 keySize: 1 valueSize: 1 sequence: 0 headerKeys: [] key: k payload: v",
            "| offset: 1 CreateTime: 5000 keySize: 2 valueSize: 2 sequence: 1 headerKeys: [trace-id] key: k2 payload: v2",
            "| offset: 2 CreateTime: 3001 keySize: -1 valueSize: 6 sequence: 2 headerKeys: [] payload: no key",
        ]
    );
}

#[test]
fn dump_log_hex_dumps_each_batch() {
    let out = ok(&["dump-log", &scenario("basic.json"), "--topic", "orders", "--partition", "0", "--hex"]);
    let size: usize = field(out.lines().find(|l| l.starts_with("baseOffset: ")).unwrap(), "size").parse().unwrap();
    let hex: Vec<&str> = out.lines().filter(|l| l.len() > 10 && l[..8].bytes().all(|b| b.is_ascii_hexdigit()) && &l[8..10] == "  ").collect();
    assert_eq!(hex.len(), size.div_ceil(16));
    // baseOffset 0 (8 bytes), then batchLength = size - 12.
    let expected = format!("00000000  00 00 00 00 00 00 00 00  00 00 00 {:02x} ", size - 12);
    assert!(hex[0].starts_with(&expected), "{} vs {expected}", hex[0]);
    assert!(hex[1].starts_with("00000010  02 "), "magic 2 at byte 16: {}", hex[1]);
}

#[test]
fn dump_log_followers_hold_the_leaders_bytes() {
    let path = scenario("rf3-acks-all.json");
    let leader_out = cli(&["dump-log", &path, "--topic", "orders", "--partition", "0", "--print-data-log"]);
    assert!(leader_out.status.success());
    let leader = stderr(&leader_out);
    let leader_id: u32 = leader.split("on broker ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(leader.contains("(leader)"), "{leader}");
    for b in (0..3).filter(|b| *b != leader_id) {
        let follower = cli(&["dump-log", &path, "--topic", "orders", "--partition", "0", "--replica", &b.to_string(), "--print-data-log"]);
        assert!(follower.status.success());
        assert!(stderr(&follower).contains("(follower)"));
        assert_eq!(stdout(&follower), stdout(&leader_out), "replica {b} differs from the leader");
    }
}

#[test]
fn dump_log_refuses_what_the_scenario_lacks() {
    let basic = scenario("basic.json");
    let err = fails(&["dump-log", &basic, "--topic", "nope", "--partition", "0"]);
    assert!(err.contains("there is no topic named \"nope\"") && err.contains("UNKNOWN_TOPIC_OR_PARTITION"), "{err}");
    let err = fails(&["dump-log", &basic, "--topic", "orders", "--partition", "3"]);
    assert!(err.contains("has 1 partition"), "{err}");
    let err = fails(&["dump-log", &basic, "--topic", "orders", "--partition", "0", "--replica", "5"]);
    assert!(err.contains("broker 5 has no replica of orders-0"), "{err}");
    let err = fails(&["dump-log", &basic, "--partition", "0"]);
    assert!(err.contains("--topic"), "{err}");
    let err = fails(&["dump-log", &basic, "--topic", "orders", "--partition", "zero"]);
    assert!(err.contains("--partition needs a non-negative whole number"), "{err}");
}

// ---------------------------------------------------------------------------
// partition
// ---------------------------------------------------------------------------

#[test]
fn partition_prints_kafkas_murmur2_vectors() {
    // Kafka's own test vectors (UtilsTest.testMurmur2).
    let vectors = [
        ("21", -973932308i64),
        ("foobar", -790332482),
        ("a-little-bit-long-string", -985981536),
        ("a-little-bit-longer-string", -1486304829),
        ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
        ("abc", 479470107),
    ];
    let keys: Vec<&str> = vectors.iter().map(|(k, _)| *k).collect();
    let mut args = vec!["partition", "--partitions", "6"];
    args.extend(&keys);
    let out = ok(&args);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), vectors.len());
    for ((key, hash), line) in vectors.iter().zip(&lines) {
        let positive = hash & 0x7fff_ffff;
        assert_eq!(
            *line,
            format!("key: {key} murmur2: {hash} positive: {positive} partition: {} (= {positive} % 6)", positive % 6)
        );
    }
    assert!(ok(&["partition", "--partitions", "10", "foobar"]).starts_with("key: foobar murmur2: -790332482 positive: 1357151166 partition: 6"));
}

#[test]
fn partition_needs_a_count_and_keys() {
    fails(&["partition", "foobar"]);
    fails(&["partition", "--partitions", "0", "foobar"]);
    fails(&["partition", "--partitions", "3"]);
    fails(&["partition", "--partitions", "-1", "k"]);
}

// ---------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------

#[test]
fn bad_command_lines_exit_2() {
    for args in [&[][..], &["frobnicate"], &["run"], &["run", "a.json", "b.json"], &["run", "a.json", "--sed", "1"], &["run", "a.json", "--seed"]] {
        let o = cli(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).starts_with("error: "), "{args:?}: {}", stderr(&o));
    }
    assert!(ok(&["--help"]).contains("kafkascope-cli dump-log SCENARIO.json --topic T --partition P"));
}

#[test]
fn a_missing_file_is_an_error() {
    let err = fails(&["run", "/no/such/scenario.json"]);
    assert!(err.starts_with("error: cannot read /no/such/scenario.json: "), "{err}");
}

#[test]
fn malformed_json_names_file_line_and_column() {
    let path = temp_file("cli-malformed.json", "{\n  \"cluster\": { \"brokers\": 1 },\n  \"topics\": [\n    { \"name\": \"t\" \"partitions\": 1 }\n  ]\n}\n");
    let err = fails(&["run", &path]);
    assert!(err.starts_with(&format!("error: {path}:4:")), "{err}");
    assert!(err.contains("expected `,` or `}`"), "{err}");
}

#[test]
fn unknown_config_names_are_errors() {
    let path = temp_file("cli-unknown.json", r#"{"cluster": {"brokers": 1, "broker": {"num.io.thread": 4}}}"#);
    let err = fails(&["run", &path]);
    assert!(err.contains("unknown field `num.io.thread`"), "{err}");
}

#[test]
fn impossible_configs_give_kafkas_error_name() {
    let path = temp_file(
        "cli-rf.json",
        r#"{"cluster": {"brokers": 2}, "topics": [{"name": "t", "partitions": 1, "replication.factor": 3}]}"#,
    );
    let err = fails(&["run", &path]);
    assert!(err.contains("INVALID_REPLICATION_FACTOR: topic t has replication factor 3, but the cluster has 2 brokers"), "{err}");
    let err = fails(&["dump-log", &path, "--topic", "t", "--partition", "0"]);
    assert!(err.contains("INVALID_REPLICATION_FACTOR"), "{err}");
}

#[test]
fn an_action_on_an_unknown_topic_names_the_action() {
    let path = temp_file(
        "cli-unknown-topic.json",
        r#"{"topics": [{"name": "t", "partitions": 1}], "clients": [{"producer": {}}],
            "actions": [{"at_ms": 0, "action": "produce", "client": 0, "topic": "t", "value": "a"},
                        {"at_ms": 5, "action": "produce", "client": 0, "topic": "orders", "value": "b"}]}"#,
    );
    let err = fails(&["run", &path]);
    assert!(err.contains("actions[1] (at 5ms) was refused: there is no topic named \"orders\" (UNKNOWN_TOPIC_OR_PARTITION)"), "{err}");
}

#[test]
fn demo_boots_a_quorum_then_acknowledges_its_record() {
    let out = ok(&["demo"]);
    let lines: Vec<&str> = out.lines().collect();
    let at = |needle: &str| lines.iter().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no {needle:?} in:\n{out}"));
    assert!(lines[0].contains("broker 0 started"), "{}", lines[0]);
    // The page's metadata mode: an active controller is elected before the
    // record goes anywhere, and the demo stops once it is acknowledged.
    let elected = at("is the active controller");
    let completed = at("produce of 1 to orders-0 completed: NONE");
    assert!(elected < completed, "{out}");
}
