//! Kafka's metrics as the core samples them once a simulated second, on the
//! page's default cluster (3 brokers, 3 controllers, orders with 3
//! partitions at RF 3): a load shows in throughput, latency and busy
//! threads; a killed broker in under-replicated partitions and ISR
//! changes; a killed controller in ActiveControllerCount; and the samples
//! follow the timeline.

use kafkascope::sim::load::KeyPattern;
use kafkascope::sim::metrics::{Sample, SAMPLE_INTERVAL_MS};
use kafkascope::sim::simulation::{Command, NodeSet};
use kafkascope::ui::session::Session;

fn load(client: u32, records_per_sec: u32) -> Command {
    Command::StartLoad { client, topic: "orders".into(), records_per_sec, keys: KeyPattern::Random, value_bytes: 100 }
}

fn step_for(s: &mut Session, ms: u64) {
    let until = s.sim().now_ms() + ms;
    while s.sim().now_ms() < until {
        assert!(s.step());
    }
}

/// The samples taken after `from_ms`.
fn since(s: &Session, from_ms: u64) -> Vec<&Sample> {
    s.sim().samples().iter().filter(|x| x.at_ms > from_ms).collect()
}

#[test]
fn one_sample_a_simulated_second_each_at_its_second() {
    let mut s = Session::default();
    step_for(&mut s, 5_000);
    let samples = s.sim().samples();
    assert_eq!(samples.len() as u64, s.sim().now_ms() / SAMPLE_INTERVAL_MS);
    for (i, x) in samples.iter().enumerate() {
        assert_eq!(x.at_ms, (i as u64 + 1) * SAMPLE_INTERVAL_MS);
        assert_eq!(x.brokers.len(), 3);
    }
    // A quiet cluster: no produce, no purgatory of producers, one active
    // controller once the quorum has elected, nothing offline.
    let last = samples.last().unwrap();
    assert!(last.topics.iter().all(|t| t.messages_in == 0), "{last:?}");
    assert_eq!(last.active_controllers.len(), 1, "{last:?}");
    assert_eq!(last.offline_partitions, 0);
    assert!(last.brokers.iter().all(|b| b.up && b.produce_purgatory == 0 && b.under_replicated == 0));
    // Follower fetches wait in the fetch purgatory of each leader.
    assert!(last.brokers.iter().any(|b| b.fetch_purgatory > 0), "{last:?}");
}

#[test]
fn a_load_shows_in_throughput_latency_and_busy_threads() {
    let mut s = Session::default();
    s.command_now(load(0, 50)).unwrap();
    let start = s.sim().now_ms();
    step_for(&mut s, 10_000);
    // The whole seconds after the load's first: 50 records a second.
    let samples = since(&s, start + SAMPLE_INTERVAL_MS);
    assert!(samples.len() >= 8);
    for x in &samples {
        let orders = x.topic("orders").expect("orders had records");
        assert!((49..=51).contains(&orders.messages_in), "{} at {} ms", orders.messages_in, x.at_ms);
        // Each 100-byte value travels in a record batch with its key and
        // headers around it, so more than 100 bytes a record.
        assert!(orders.bytes_in > 100 * orders.messages_in as u64, "{orders:?}");
        let acks_all = x.latency.iter().find(|l| l.client == 0).expect("client-0's requests were answered");
        assert_eq!(acks_all.acks, -1);
        assert!(acks_all.requests > 0 && acks_all.p50_ms > 0 && acks_all.p50_ms <= acks_all.p99_ms, "{acks_all:?}");
        // Somebody works: the leaders' network and I/O threads are not
        // idle the whole second.
        assert!(x.brokers.iter().any(|b| b.network_idle_permille < 1000 && b.request_handler_idle_permille < 1000), "{x:?}");
    }
    // acks=all waits for the followers: its latency is more than one
    // network round trip to the leader, which acks=1 takes.
    s.command_now(load(1, 50)).unwrap();
    let start = s.sim().now_ms();
    step_for(&mut s, 5_000);
    let samples = since(&s, start + SAMPLE_INTERVAL_MS);
    let p50 = |client: u32| -> Vec<u32> {
        samples.iter().filter_map(|x| x.latency.iter().find(|l| l.client == client)).map(|l| l.p50_ms).collect()
    };
    let (all, one) = (p50(0), p50(1));
    assert!(!all.is_empty() && !one.is_empty());
    assert!(all.iter().max() > one.iter().min(), "acks=all p50 {all:?}, acks=1 p50 {one:?}");
    let acks_one = samples.iter().find_map(|x| x.latency.iter().find(|l| l.client == 1)).unwrap();
    assert_eq!(acks_one.acks, 1);
}

#[test]
fn a_killed_broker_is_under_replicated_but_no_leaders_shrink() {
    let mut s = Session::default();
    step_for(&mut s, 2_000);
    let killed_at = s.sim().now_ms();
    s.command_now(Command::KillBroker { broker: 2 }).unwrap();
    step_for(&mut s, 45_000);
    let after = since(&s, killed_at + SAMPLE_INTERVAL_MS);
    assert!(after.iter().all(|x| !x.broker(2).unwrap().up));
    let last = after.last().unwrap();
    let under: u32 = last.brokers.iter().map(|b| b.under_replicated).sum();
    assert_eq!(under, 3, "every partition has broker 2 among its replicas: {last:?}");
    assert_eq!(last.offline_partitions, 0, "brokers 0 and 1 lead every partition");
    // The active controller took the fenced broker out of every ISR
    // itself; IsrShrinksPerSec counts only a leader's own shrinks, so it
    // stays at zero, as in Kafka 4.
    let shrinks: u32 = after.iter().flat_map(|x| &x.brokers).map(|b| b.isr_shrinks).sum();
    assert_eq!(shrinks, 0);
}

#[test]
fn a_follower_cut_off_from_its_leaders_shrinks_their_isrs_and_expands_them_back() {
    let mut s = Session::default();
    step_for(&mut s, 2_000);
    let set = |brokers: Vec<u32>| NodeSet { brokers, controllers: vec![], clients: vec![] };
    let cut_at = s.sim().now_ms();
    // Broker 2 still heartbeats to the controllers, so it stays unfenced,
    // but fetches from neither leader: after replica.lag.time.max.ms (30 s)
    // the leaders drop it from their ISRs.
    s.command_now(Command::Partition { a: set(vec![2]), b: set(vec![0, 1]) }).unwrap();
    // A follower at the leader's log end offset is in sync however long it
    // has not fetched (Replica.isCaughtUp): records must arrive for it to
    // fall behind.
    s.command_now(load(1, 10)).unwrap();
    // The leaders look for laggards every replica.lag.time.max.ms / 2.
    step_for(&mut s, 60_000);
    let after = since(&s, cut_at);
    let shrinks = |b: u32| after.iter().map(|x| x.broker(b).unwrap().isr_shrinks).sum::<u32>();
    // Broker 0 leads orders-1 and broker 1 orders-2, both with broker 2 as
    // a follower; broker 2's own orders-0 is cut from its followers too.
    assert!(shrinks(0) >= 1 && shrinks(1) >= 1, "{} {}", shrinks(0), shrinks(1));
    let last = after.last().unwrap();
    assert!(last.brokers.iter().map(|b| b.under_replicated).sum::<u32>() >= 2, "{last:?}");
    let healed_at = s.sim().now_ms();
    s.command_now(Command::Heal).unwrap();
    step_for(&mut s, 20_000);
    let back = since(&s, healed_at);
    let expands: u32 = back.iter().flat_map(|x| &x.brokers).map(|b| b.isr_expands).sum();
    assert!(expands >= 2, "the leaders took broker 2 back: {expands}");
    assert_eq!(back.last().unwrap().brokers.iter().map(|b| b.under_replicated).sum::<u32>(), 0);
}

#[test]
fn a_killed_active_controller_leaves_none_until_the_quorum_elects() {
    let mut s = Session::default();
    step_for(&mut s, 2_000);
    let active = s.view().quorum.unwrap().active.unwrap();
    let killed_at = s.sim().now_ms();
    s.command_now(Command::KillController { controller: active }).unwrap();
    step_for(&mut s, 20_000);
    let after = since(&s, killed_at);
    assert!(after.iter().all(|x| !x.active_controllers.contains(&active)));
    let none = after.iter().position(|x| x.active_controllers.is_empty()).expect("a second with no active controller");
    let again = after[none..].iter().find(|x| x.active_controllers.len() == 1).expect("a new active controller");
    assert_ne!(again.active_controllers, vec![active]);
}

#[test]
fn samples_follow_the_timeline_and_come_back_the_same() {
    let mut s = Session::default();
    s.command_now(load(0, 20)).unwrap();
    step_for(&mut s, 6_000);
    let whole: Vec<Sample> = s.sim().samples().to_vec();
    let end = s.timeline_index();
    // Back to the middle: the samples up to then are the run's, and the
    // rest is the recorded future.
    s.go_to(end / 2);
    let now = s.sim().now_ms();
    assert_eq!(s.sim().samples().len() as u64, now / SAMPLE_INTERVAL_MS);
    let mut both = s.sim().samples().to_vec();
    both.extend_from_slice(s.sim().samples_ahead());
    assert_eq!(both, whole);
    // Stepping forward again takes the same samples, and a jump to the end
    // finds them all.
    for _ in 0..50 {
        s.step();
    }
    assert_eq!(s.sim().samples(), &whole[..s.sim().samples().len()]);
    s.go_to(end);
    assert_eq!(s.sim().samples(), &whole[..]);
    // The same seed and commands, run again, sample the same metrics.
    let mut again = Session::default();
    again.command_now(load(0, 20)).unwrap();
    step_for(&mut again, 6_000);
    assert_eq!(again.sim().samples()[..whole.len()], whole[..]);
}
