//! How the page's memory grows in a long top-speed Play: the default
//! cluster at 1,000 steps a second (the fastest speed) for ten simulated
//! minutes, without produce traffic, with a produce a real second, with
//! twenty, and with every controller killed (which, before brokers backed
//! off their reconnects, multiplied the refused requests). It measures rather than checks, so it is ignored; run it with
//!
//! ```text
//! cargo test --profile sweep --test memory_growth -- --ignored --nocapture
//! ```
//!
//! The bytes are counted by the page's own allocator wrapper, natively:
//! a wasm32 page holds the same structures with 4-byte pointers and
//! lengths, so its figures are somewhat smaller.

use kafkascope::sim::simulation::Command;
use kafkascope::ui::memory::{self, PageAllocator, LIVE_BYTES};
use kafkascope::ui::session::Session;

#[global_allocator]
static ALLOCATOR: PageAllocator<std::alloc::System> = PageAllocator::new(std::alloc::System, &LIVE_BYTES, |_| {});

/// Play's fastest speed, steps a second.
const STEPS_PER_SECOND: u64 = 1_000;
const SIMULATED_MS: u64 = 600_000;

fn produce(n: u64) -> Command {
    Command::Produce {
        client: 0,
        topic: "orders".into(),
        key: Some(format!("user-{}", n % 50)),
        value: Some(format!("hello-{n}")),
        headers: vec![],
        partition: None,
        timestamp_ms: None,
    }
}

#[test]
#[ignore = "a measurement: run it by hand, see the module's doc"]
fn memory_of_a_long_top_speed_play() {
    for (produces_per_second, controllers_killed) in [(0, false), (1, false), (20, false), (0, true)] {
        let mut s = Session::default();
        if controllers_killed {
            for controller in 0..3 {
                s.command_now(Command::KillController { controller }).unwrap();
            }
        }
        let (start_ms, base) = (s.sim().now_ms(), memory::live_bytes());
        let wall = std::time::Instant::now();
        let mut real_seconds = 0;
        let mut next_minute = 60_000;
        let down = if controllers_killed { ", every controller killed" } else { "" };
        eprintln!("{produces_per_second} produces a real second{down} (at {STEPS_PER_SECOND} steps a second):");
        'play: while s.sim().now_ms() < start_ms + SIMULATED_MS {
            for i in 0..STEPS_PER_SECOND {
                if produces_per_second > 0 && i % (STEPS_PER_SECOND / produces_per_second) == 0 {
                    s.command(produce(real_seconds * produces_per_second + i)).unwrap();
                }
                if !s.step() {
                    eprintln!("  stopped at the memory budget after {real_seconds} real seconds");
                    break 'play;
                }
            }
            real_seconds += 1;
            let simulated = s.sim().now_ms() - start_ms;
            if simulated >= next_minute {
                next_minute += 60_000;
                eprintln!(
                    "  {:>4} s simulated after {real_seconds:>5} s of play: {:>7} positions, {:>9} events, {:>8} trace events, {:>6} MiB live (native run {:.0?})",
                    simulated / 1000,
                    s.timeline_len(),
                    s.sim().steps(),
                    s.sim().trace().len(),
                    (memory::live_bytes() - base) >> 20,
                    wall.elapsed()
                );
            }
        }
    }
}

/// Issue 12's workload: the default cluster, booted, with steady traffic of
/// ten 100-byte records a simulated second, stepped position by position as
/// Play does. It prints the live bytes at 1, 10 and 60 simulated minutes and
/// what one snapshot of the simulation and the trace take then,
/// and how long timeline jumps and Step back take there (wall time, so only
/// a measurement).
#[test]
#[ignore = "a measurement: run it by hand, see the module's doc"]
fn memory_of_an_hour_of_steady_traffic() {
    let mut s = Session::default();
    let (start_ms, base) = (s.sim().now_ms(), memory::live_bytes());
    let wall = std::time::Instant::now();
    let value = "v".repeat(100);
    let mut next_produce = start_ms;
    let mut n: u64 = 0;
    for minutes in [1u64, 10, 60] {
        while s.sim().now_ms() < start_ms + minutes * 60_000 {
            if s.sim().now_ms() >= next_produce {
                let command = Command::Produce {
                    client: 0,
                    topic: "orders".into(),
                    key: Some(format!("user-{}", n % 50)),
                    value: Some(value.clone()),
                    headers: vec![],
                    partition: None,
                    timestamp_ms: None,
                };
                s.command(command).unwrap();
                n += 1;
                next_produce += 100;
            }
            if !s.step() {
                eprintln!("stopped at the memory budget");
                return;
            }
            if memory::live_bytes() - base > 6 << 30 {
                eprintln!("past 6 GiB at {} s simulated: stopped", (s.sim().now_ms() - start_ms) / 1000);
                return;
            }
        }
        let live = memory::live_bytes() - base;
        let before = memory::live_bytes();
        let trace = s.sim().trace().to_vec();
        let trace_bytes = memory::live_bytes() - before;
        drop(trace);
        // What a Step back snapshot holds, taken as the session takes one
        // (a clone would copy the metrics samples too, which a snapshot
        // only counts).
        let before = memory::live_bytes();
        let copy = s.sim().snapshot();
        let copy_bytes = memory::live_bytes() - before;
        drop(copy);
        eprintln!(
            "{minutes:>3} min: {n} records, {} positions, {} events, {} trace events; {} MiB live, trace {} MiB, one snapshot {} KiB, {} snapshots, widest gap {} positions (native run {:.0?})",
            s.timeline_len(),
            s.sim().steps(),
            s.sim().trace().len(),
            live >> 20,
            trace_bytes >> 20,
            copy_bytes >> 10,
            s.snapshot_count(),
            s.widest_snapshot_gap(),
            wall.elapsed()
        );
        // Jumps to positions drawn across the whole timeline, as the
        // timeline's slider makes them, and one Step back from each; the
        // cursor goes back to the end before the run goes on.
        let end = s.timeline_len() - 1;
        let mut draw = 0x2545_f491_4f6c_dd1d_u64 ^ minutes;
        let mut jumps = Vec::new();
        let mut backs = Vec::new();
        for _ in 0..200 {
            draw ^= draw << 13;
            draw ^= draw >> 7;
            draw ^= draw << 17;
            let to = (draw % (end as u64 + 1)) as usize;
            let t = std::time::Instant::now();
            s.go_to(to);
            jumps.push(t.elapsed());
            let t = std::time::Instant::now();
            s.step_back();
            backs.push(t.elapsed());
        }
        s.go_to(end);
        jumps.sort();
        backs.sort();
        eprintln!(
            "        200 jumps: p50 {:.1?}, p99 {:.1?}, worst {:.1?}; Step back after each: p99 {:.1?}, worst {:.1?}",
            jumps[100], jumps[197], jumps[199], backs[197], backs[199]
        );
    }
}
