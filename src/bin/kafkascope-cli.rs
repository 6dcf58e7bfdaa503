//! The headless command line over the simulation core.
//!
//! ```text
//! kafkascope-cli run SCENARIO.json [--seed N]
//! kafkascope-cli dump-log SCENARIO.json --topic T --partition P [--replica B]
//!                [--print-data-log] [--hex] [--seed N]
//! kafkascope-cli partition --partitions N KEY...
//! kafkascope-cli demo
//! ```
//!
//! Errors print one `error: ...` line on stderr and exit with status 1 (2 for
//! a malformed command line).

use kafkascope::sim::broker::partition::Partition;
use kafkascope::sim::client::producer::RecordState;
use kafkascope::sim::ids::{NodeId, TopicPartition};
use kafkascope::sim::log::log::Log;
use kafkascope::sim::record::batch::{self, TimestampType};
use kafkascope::sim::record::partitioner::partition_for_key;
use kafkascope::sim::scenario::{RunSummary, Scenario, ScenarioError};
use kafkascope::sim::simulation::{ClusterConfig, Command, Simulation};
use kafkascope::sim::trace::TraceKind;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::process::ExitCode;

const USAGE: &str = "\
usage:
  kafkascope-cli run SCENARIO.json [--seed N]
      Run a scenario; print its trace, one event a line, then a summary.
  kafkascope-cli dump-log SCENARIO.json --topic T --partition P [--replica B]
                 [--print-data-log] [--hex] [--seed N]
      Run a scenario, then print one replica's segments (the leader's unless
      --replica) as kafka-dump-log.sh prints .log, .index and .timeindex files.
  kafkascope-cli partition --partitions N KEY...
      Print murmur2(key), its positive value, and the partition Kafka's
      default partitioner picks for each key.
  kafkascope-cli demo
      Boot a one-broker cluster with a quorum of three KRaft controllers,
      produce one record, and print the trace up to its acknowledgement.";

/// Why the command failed: the message, and the exit status.
struct Failure {
    message: String,
    status: u8,
}

impl Failure {
    /// A bad command line (status 2).
    fn usage(message: impl Into<String>) -> Self {
        Self { message: format!("{} (see kafkascope-cli --help)", message.into()), status: 2 }
    }

    /// Bad input or a failed run (status 1).
    fn input(message: impl Into<String>) -> Self {
        Self { message: message.into(), status: 1 }
    }
}

/// Where output goes. A closed pipe (`| head`) ends the output quietly
/// instead of panicking as `println!` would.
struct Out {
    inner: io::BufWriter<io::StdoutLock<'static>>,
    closed: bool,
}

impl Out {
    fn new() -> Self {
        Self { inner: io::BufWriter::new(io::stdout().lock()), closed: false }
    }

    fn line(&mut self, text: impl std::fmt::Display) {
        if !self.closed && writeln!(self.inner, "{text}").is_err() {
            self.closed = true;
        }
    }

    fn finish(mut self) {
        if !self.closed {
            let _ = self.inner.flush();
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = Out::new();
    let result = dispatch(&args, &mut out);
    out.finish();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("error: {}", f.message);
            ExitCode::from(f.status)
        }
    }
}

fn dispatch(args: &[String], out: &mut Out) -> Result<(), Failure> {
    let Some((command, rest)) = args.split_first() else {
        return Err(Failure::usage("no command given"));
    };
    match command.as_str() {
        "run" => run(rest, out),
        "dump-log" => dump_log(rest, out),
        "partition" => partition(rest, out),
        "demo" => demo(out),
        "help" | "-h" | "--help" => {
            out.line(USAGE);
            Ok(())
        }
        other => Err(Failure::usage(format!("unknown command {other:?}"))),
    }
}

// ---------------------------------------------------------------------------
// Argument parsing
// ---------------------------------------------------------------------------

/// A command line split into positional arguments and `--flag [value]`s.
struct Args {
    positional: Vec<String>,
    /// (flag, value) in order; switches have no value.
    flags: Vec<(String, Option<String>)>,
}

/// Splits `args`; `with_value` names the flags that take a value, `switches`
/// those that do not. `--flag=value` works too; `--` ends the flags.
fn parse_args(args: &[String], with_value: &[&str], switches: &[&str]) -> Result<Args, Failure> {
    let mut parsed = Args { positional: Vec::new(), flags: Vec::new() };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--" {
            parsed.positional.extend(it.by_ref().cloned());
            break;
        }
        if !arg.starts_with("--") {
            parsed.positional.push(arg.clone());
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (arg.as_str(), None),
        };
        if with_value.contains(&name) {
            let value = match inline {
                Some(v) => v,
                None => it.next().cloned().ok_or_else(|| Failure::usage(format!("{name} needs a value")))?,
            };
            parsed.flags.push((name.to_string(), Some(value)));
        } else if switches.contains(&name) {
            if inline.is_some() {
                return Err(Failure::usage(format!("{name} takes no value")));
            }
            parsed.flags.push((name.to_string(), None));
        } else {
            return Err(Failure::usage(format!("unknown option {name}")));
        }
    }
    Ok(parsed)
}

impl Args {
    /// The last value given for `flag`.
    fn value(&self, flag: &str) -> Option<&str> {
        self.flags.iter().rev().find(|(f, _)| f == flag).and_then(|(_, v)| v.as_deref())
    }

    fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|(f, _)| f == flag)
    }

    fn number<T: std::str::FromStr>(&self, flag: &str) -> Result<Option<T>, Failure> {
        match self.value(flag) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| Failure::usage(format!("{flag} needs a non-negative whole number, not {v:?}"))),
        }
    }

    /// Exactly one positional argument: the scenario file.
    fn scenario_path(&self) -> Result<&str, Failure> {
        match self.positional.as_slice() {
            [path] => Ok(path),
            [] => Err(Failure::usage("no scenario file given")),
            [_, extra, ..] => Err(Failure::usage(format!("unexpected argument {extra:?}"))),
        }
    }
}

// ---------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------

fn load(path: &str) -> Result<Scenario, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| Failure::input(format!("cannot read {path}: {e}")))?;
    Scenario::from_json(&text).map_err(|e| scenario_failure(path, &e))
}

fn scenario_failure(path: &str, e: &ScenarioError) -> Failure {
    match e {
        ScenarioError::Json { line, column, message } if *line > 0 => {
            Failure::input(format!("{path}:{line}:{column}: {message}"))
        }
        other => Failure::input(format!("{path}: {other}")),
    }
}

fn run_scenario(path: &str, seed: Option<u64>) -> Result<(Scenario, Simulation), Failure> {
    let scenario = load(path)?;
    let sim = scenario.run(seed).map_err(|e| scenario_failure(path, &e))?;
    Ok((scenario, sim))
}

/// Each failed record, with what the broker answered when it was a broker
/// that refused it.
fn failure_lines(sim: &Simulation, summary: &RunSummary) -> Vec<String> {
    summary
        .failures()
        .map(|(client, f)| {
            let tp = f.partition.map(|p| TopicPartition::new(f.topic.clone(), p));
            let detail = tp.as_ref().and_then(|tp| {
                sim.trace().iter().rev().find_map(|e| match &e.kind {
                    TraceKind::ProduceRejected { request, partition, error, reason }
                        if request.client == NodeId::Client(client) && partition == tp && *error == f.error =>
                    {
                        Some(format!("{} answered {error}: {reason}", e.node))
                    }
                    _ => None,
                })
            });
            let target = tp.map_or_else(|| f.topic.clone(), |tp| tp.to_string());
            let why = detail.unwrap_or_else(|| f.error.to_string());
            format!("client-{client} record {} to {target} failed: {why}", f.record)
        })
        .collect()
}

fn run(args: &[String], out: &mut Out) -> Result<(), Failure> {
    let args = parse_args(args, &["--seed"], &[])?;
    let path = args.scenario_path()?;
    let (_, sim) = run_scenario(path, args.number("--seed")?)?;
    for event in sim.trace() {
        out.line(event);
    }
    let summary = RunSummary::of(&sim);
    out.line(format_args!("{}", summary.to_string().trim_end()));
    let failures = failure_lines(&sim, &summary);
    match failures.as_slice() {
        [] => Ok(()),
        [one] => Err(Failure::input(one.clone())),
        many => Err(Failure::input(format!("{} records failed:\n  {}", many.len(), many.join("\n  ")))),
    }
}

/// How long the demo waits for its record, in simulated time: the boot
/// takes a few seconds, so this is far more than a healthy run needs.
const DEMO_LIMIT_MS: u64 = 60_000;

fn demo(out: &mut Out) -> Result<(), Failure> {
    let mut sim = Simulation::new(ClusterConfig::default(), 1).map_err(|e| Failure::input(e.to_string()))?;
    let produce = Command::Produce {
        client: 0,
        topic: "orders".into(),
        key: Some("k".into()),
        value: Some("v".into()),
        headers: vec![],
        partition: None,
        timestamp_ms: None,
    };
    sim.command(produce).map_err(|e| Failure::input(e.to_string()))?;
    // The producer waits for the quorum to elect an active controller and
    // create the topic, as a real one started with its cluster would; the
    // demo runs until the record is acknowledged, in simulated time.
    // The producer's own record states, not a RunSummary, which would hash
    // the whole trace on every check.
    let acknowledged = |sim: &Simulation| {
        sim.producer(0).is_some_and(|p| p.records().iter().any(|r| matches!(r.state, RecordState::Acknowledged { .. })))
    };
    while !acknowledged(&sim) && sim.now_ms() < DEMO_LIMIT_MS {
        sim.run_until(sim.now_ms() + 10);
    }
    for event in sim.trace() {
        out.line(event);
    }
    if acknowledged(&sim) {
        Ok(())
    } else {
        Err(Failure::input(format!("the record was not acknowledged within {} s of simulated time", DEMO_LIMIT_MS / 1000)))
    }
}

// ---------------------------------------------------------------------------
// partition
// ---------------------------------------------------------------------------

fn partition(args: &[String], out: &mut Out) -> Result<(), Failure> {
    let args = parse_args(args, &["--partitions"], &[])?;
    let partitions: u32 = args.number("--partitions")?.ok_or_else(|| Failure::usage("--partitions N is required"))?;
    if partitions == 0 {
        return Err(Failure::usage("--partitions must be at least 1"));
    }
    if args.positional.is_empty() {
        return Err(Failure::usage("give at least one KEY"));
    }
    for key in &args.positional {
        let c = partition_for_key(key.as_bytes(), partitions).map_err(|e| Failure::input(e.to_string()))?;
        out.line(format_args!(
            "key: {key} murmur2: {} positive: {} partition: {} (= {} % {partitions})",
            c.murmur2, c.positive, c.partition, c.positive
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// dump-log
// ---------------------------------------------------------------------------

struct DumpOptions {
    print_data_log: bool,
    hex: bool,
}

fn dump_log(args: &[String], out: &mut Out) -> Result<(), Failure> {
    let args = parse_args(args, &["--topic", "--partition", "--replica", "--seed"], &["--print-data-log", "--hex"])?;
    let path = args.scenario_path()?;
    let topic = args.value("--topic").ok_or_else(|| Failure::usage("--topic T is required"))?.to_string();
    let partition: u32 = args.number("--partition")?.ok_or_else(|| Failure::usage("--partition P is required"))?;
    let replica: Option<u32> = args.number("--replica")?;
    let options = DumpOptions { print_data_log: args.has("--print-data-log"), hex: args.has("--hex") };

    // Check the names against the scenario before spending a run on them.
    let scenario = load(path)?;
    let Some(spec) = scenario.topics.iter().find(|t| t.name == topic) else {
        let known: Vec<&str> = scenario.topics.iter().map(|t| t.name.as_str()).collect();
        return Err(Failure::input(format!(
            "{path}: there is no topic named {topic:?} (UNKNOWN_TOPIC_OR_PARTITION); the scenario has {known:?}"
        )));
    };
    if partition >= spec.partitions {
        return Err(Failure::input(format!(
            "{path}: topic {topic} has {} partition{} (0..{}), not {partition} (UNKNOWN_TOPIC_OR_PARTITION)",
            spec.partitions,
            if spec.partitions == 1 { "" } else { "s" },
            spec.partitions - 1
        )));
    }
    let sim = scenario.run(args.number("--seed")?).map_err(|e| scenario_failure(path, &e))?;
    let tp = TopicPartition::new(topic, partition);
    let (broker, replica_state) = choose_replica(&sim, &tp, replica)?;

    let role = if replica_state.is_leader(broker) { "leader" } else { "follower" };
    eprintln!(
        "note: {tp} on broker {broker} ({role}): log start offset {}, log end offset {}, high watermark {}, {} segment{}",
        replica_state.log.log_start_offset(),
        replica_state.log.log_end_offset(),
        replica_state.high_watermark,
        replica_state.log.segments().len(),
        if replica_state.log.segments().len() == 1 { "" } else { "s" }
    );
    for line in failure_lines(&sim, &RunSummary::of(&sim)) {
        eprintln!("warning: {line}");
    }
    print_log(&replica_state.log, &options, out).map_err(Failure::input)
}

/// The replica to dump: the one asked for, or the leader's.
fn choose_replica<'a>(sim: &'a Simulation, tp: &TopicPartition, asked: Option<u32>) -> Result<(u32, &'a Partition), Failure> {
    let hosts: Vec<(u32, &Partition)> =
        (0..sim.config().brokers).filter_map(|b| sim.broker(b)?.partition(tp).map(|p| (b, p))).collect();
    let replicas = hosts.first().map(|(_, p)| p.replicas.clone()).unwrap_or_default();
    match asked {
        Some(b) => hosts.iter().find(|(id, _)| *id == b).copied().ok_or_else(|| {
            Failure::input(format!("broker {b} has no replica of {tp}; its replicas are on brokers {replicas:?}"))
        }),
        None => hosts.iter().find(|(id, p)| p.is_leader(*id)).copied().ok_or_else(|| {
            Failure::input(format!(
                "{tp} has no leader (LEADER_NOT_AVAILABLE); pick a replica with --replica, one of {replicas:?}"
            ))
        }),
    }
}

/// Every segment of `log`, oldest first, as `kafka-dump-log.sh --files`
/// prints its `.log`, `.index` and `.timeindex` files (DumpLogSegments.java).
fn print_log(log: &Log, options: &DumpOptions, out: &mut Out) -> Result<(), String> {
    for segment in log.segments_view() {
        let prefix = segment.name.trim_end_matches(".log");
        out.line(format_args!("Dumping {}", segment.name));
        out.line(format_args!("Log starting offset: {}", segment.base_offset));
        let batches = log.batches_in(segment.base_offset).map_err(|e| e.to_string())?;
        for view in batches {
            let bytes = log.batch_bytes(segment.base_offset, view.position).map_err(|e| e.to_string())?;
            print_batch(bytes, view.position, options, out)?;
        }

        out.line(format_args!("Dumping {prefix}.index"));
        if segment.index_entries.is_empty() {
            out.line(format_args!("{prefix}.index is empty."));
        }
        for (offset, position) in &segment.index_entries {
            out.line(format_args!("offset: {offset} position: {position}"));
        }

        out.line(format_args!("Dumping {prefix}.timeindex"));
        for (timestamp, offset) in &segment.time_index_entries {
            out.line(format_args!("timestamp: {timestamp} offset: {offset}"));
        }
    }
    Ok(())
}

/// Attribute bit 6: the batch carries a delete horizon in `baseTimestamp`.
const DELETE_HORIZON_FLAG_MASK: i16 = 0x40;

fn compression_name(attributes: i16) -> &'static str {
    match attributes & batch::COMPRESSION_CODEC_MASK {
        0 => "none",
        1 => "gzip",
        2 => "snappy",
        3 => "lz4",
        4 => "zstd",
        _ => "unknown",
    }
}

/// One batch as DumpLogSegments' `printBatchLevel`, then with
/// `--print-data-log` each record as `printRecordMetadata` and
/// `printRecordContents`, then with `--hex` its bytes.
fn print_batch(bytes: &[u8], position: u32, options: &DumpOptions, out: &mut Out) -> Result<(), String> {
    let h = batch::read_header(bytes).map_err(|e| format!("unreadable batch at position {position}: {e}"))?;
    let delete_horizon = if h.attributes & DELETE_HORIZON_FLAG_MASK != 0 {
        format!("OptionalLong[{}]", h.base_timestamp)
    } else {
        "OptionalLong.empty".to_string()
    };
    let timestamp_type = TimestampType::from_attributes(h.attributes).name();
    out.line(format_args!(
        "baseOffset: {} lastOffset: {} count: {} baseSequence: {} lastSequence: {} producerId: {} producerEpoch: {} \
         partitionLeaderEpoch: {} isTransactional: {} isControl: {} deleteHorizonMs: {delete_horizon} position: {position} \
         {timestamp_type}: {} size: {} magic: {} compresscodec: {} crc: {} isvalid: {}",
        h.base_offset,
        h.last_offset(),
        h.records_count,
        h.base_sequence,
        h.last_sequence(),
        h.producer_id,
        h.producer_epoch,
        h.partition_leader_epoch,
        h.is_transactional(),
        h.is_control(),
        h.max_timestamp,
        bytes.len(),
        h.magic,
        compression_name(h.attributes),
        h.crc,
        batch::verify_crc(bytes),
    ));
    if options.print_data_log {
        let decoded = batch::decode(bytes).map_err(|e| format!("cannot decode the batch at position {position}: {e}"))?;
        for record in &decoded.records {
            let sequence = if h.base_sequence >= 0 {
                batch::increment_sequence(h.base_sequence, record.offset_delta)
            } else {
                batch::NO_SEQUENCE
            };
            let size = |v: &Option<Vec<u8>>| v.as_ref().map_or(-1, |b| b.len() as i64);
            let header_keys: Vec<&str> = record.headers.iter().map(|x| x.key.as_str()).collect();
            let mut line = format!(
                "| offset: {} {timestamp_type}: {} keySize: {} valueSize: {} sequence: {sequence} headerKeys: [{}]",
                decoded.offset_of(record),
                decoded.timestamp_of(record),
                size(&record.key),
                size(&record.value),
                header_keys.join(",")
            );
            if !h.is_control() {
                if let Some(k) = &record.key {
                    let _ = write!(line, " key: {}", String::from_utf8_lossy(k));
                }
                if let Some(v) = &record.value {
                    let _ = write!(line, " payload: {}", String::from_utf8_lossy(v));
                }
            }
            out.line(line);
        }
    }
    if options.hex {
        for line in hexdump(bytes, position) {
            out.line(line);
        }
    }
    Ok(())
}

/// `hexdump -C` lines, numbered by position in the segment file.
fn hexdump(bytes: &[u8], start: u32) -> Vec<String> {
    bytes
        .chunks(16)
        .enumerate()
        .map(|(i, chunk)| {
            let mut line = format!("{:08x}  ", start as usize + i * 16);
            for j in 0..16 {
                match chunk.get(j) {
                    Some(b) => {
                        let _ = write!(line, "{b:02x} ");
                    }
                    None => line.push_str("   "),
                }
                if j == 7 {
                    line.push(' ');
                }
            }
            line.push_str(" |");
            line.extend(chunk.iter().map(|&b| if b.is_ascii_graphic() || b == b' ' { b as char } else { '.' }));
            line.push('|');
            line
        })
        .collect()
}
