//! The page's memory budget, with the page's allocator installed as it is
//! in the page (`src/main.rs`). Past the budget the session first drops
//! the oldest part of its timeline: the cluster runs on, every position
//! kept is reached exactly as before, the page can say how much was
//! dropped, and a share link still replays the whole run. When what the
//! cluster itself holds (its logs) outgrows the budget, which no dropping
//! can free, the session takes no new step (so the page stops growing and
//! says so, instead of trapping at the 4 GiB wall), while Step back still
//! works and a link opened then says why it cannot be replayed. The budget
//! is global, so the tests take turns.

use kafkascope::sim::simulation::Command;
use kafkascope::ui::memory::{self, PageAllocator, LIVE_BYTES};
use kafkascope::ui::session::ReplayError;
use kafkascope::ui::setup::Setup;
use kafkascope::ui::share::{LinkError, ShareLink};

fn unreachable_out_of_memory(size: usize) {
    panic!("the system allocator had no {size} bytes");
}

#[global_allocator]
static ALLOCATOR: PageAllocator<std::alloc::System> = PageAllocator::new(std::alloc::System, &LIVE_BYTES, unreachable_out_of_memory);

/// The budget is global: one test at a time sets it.
static BUDGET: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Records the learner produces, so the logs and the producer's list of
/// records grow; `size` bytes of value each.
fn produce(n: u32, size: usize) -> Command {
    Command::Produce {
        client: 0,
        topic: "orders".into(),
        key: Some(format!("k{}", n % 7)),
        value: Some("v".repeat(size)),
        headers: vec![],
        partition: None,
        timestamp_ms: None,
    }
}

#[test]
fn past_the_memory_budget_the_session_stops_stepping_and_step_back_still_works() {
    let _turn = BUDGET.lock().unwrap_or_else(|e| e.into_inner());
    let setup = Setup::default();
    let mut s = setup.start().unwrap();
    let link = ShareLink::of(&setup, &s);
    let at_start = memory::live_bytes();
    assert!(at_start > 0, "the page allocator counts");
    memory::set_budget(at_start + (24 << 20));
    let mut produced = 0;
    let mut steps = 0u64;
    while s.step() {
        steps += 1;
        if steps % 20 == 0 {
            // Large records, so that the cluster's own state outgrows the
            // budget whatever the timeline drops.
            s.command(produce(produced, 20_000)).unwrap();
            produced += 1;
        }
        assert!(steps < 20_000, "the budget is reached");
    }
    assert!(s.sim().has_pending(), "the cluster had more to do: the budget stopped it");
    assert!(memory::over_budget());
    assert!(!s.step() && s.step_many(100) == 0, "no new step while over the budget");
    assert!(s.memory_full() && !s.can_step(), "the page says memory is full and Step is off");
    // The timeline still moves: Step back and forward again replay from a
    // snapshot.
    let (index, view) = (s.timeline_index(), s.view());
    assert!(s.step_back());
    assert!(s.step(), "the recorded future is still there");
    assert_eq!((s.timeline_index(), s.view()), (index, view));
    // A link opened now says that memory ran out, not that its run ended.
    // Going back and forth can leave the session a little smaller (a
    // restored copy holds no spare capacity), so the budget is put just
    // below what is in use again.
    memory::set_budget(memory::live_bytes() - (1 << 20));
    assert!(memory::over_budget());
    match link.open() {
        Err(LinkError::Replay(ReplayError::MemoryFull { .. })) => {}
        other => panic!("{:?}", other.map(|_| ()).err()),
    }
    // The run gone, the page has room again.
    drop(s);
    assert!(!memory::over_budget(), "{} bytes live", memory::live_bytes());
    let mut fresh = setup.start().unwrap();
    assert!(fresh.step());
    memory::set_budget(memory::DEFAULT_BUDGET_BYTES);
}

#[test]
fn past_the_budget_the_oldest_timeline_is_dropped_and_what_is_kept_stays_exact() {
    let _turn = BUDGET.lock().unwrap_or_else(|e| e.into_inner());
    let setup = Setup::default();
    let mut s = setup.start().unwrap();
    let mut produced = 0;
    for step in 0..4_000u32 {
        assert!(s.step());
        if step % 20 == 0 {
            s.command(produce(produced, 10)).unwrap();
            produced += 1;
        }
    }
    // What each position showed, from the run's start.
    let len = s.timeline_len();
    let seen: Vec<_> = (0..len).step_by(97).map(|i| {
        s.go_to(i);
        (i, s.view(), s.position_events().0.to_vec())
    }).collect();
    s.go_to(len - 1);
    assert!(s.forgotten().is_none(), "the whole run is kept within the budget");

    // A budget just below what is in use: the next step drops the oldest
    // half of the timeline and goes on.
    memory::set_budget(memory::live_bytes() - (64 << 10));
    assert!(memory::over_budget());
    assert!(s.can_step() && !s.memory_full(), "Step and Play stay on: there is an old part to drop");
    assert!(s.step(), "the cluster runs on past the budget");
    let (forgotten, starts_ms) = s.forgotten().expect("the oldest part was dropped");
    assert!(forgotten >= len / 4 && forgotten <= len / 2, "{forgotten} of {len} positions");
    assert_eq!(s.timeline_len(), len + 1 - forgotten);
    assert!(!memory::over_budget(), "dropping freed enough: {} bytes live", memory::live_bytes());
    memory::set_budget(memory::DEFAULT_BUDGET_BYTES);

    // Every position kept shows what it showed before, the oldest included.
    let mut compared = 0;
    for (i, view, events) in &seen {
        if *i < forgotten {
            continue;
        }
        s.go_to(i - forgotten);
        assert_eq!(&s.view(), view, "position {i}");
        assert_eq!(&s.position_events().0.to_vec(), events, "position {i}");
        compared += 1;
    }
    assert!(compared > 10, "{compared} positions compared");
    s.go_to(0);
    assert!(!s.step_back(), "the timeline now starts here");
    assert_eq!(s.position_time_ms(0), Some(starts_ms));

    // A link counts positions from the run's start and replays all of it.
    s.go_to(s.timeline_len() - 40);
    let link = ShareLink::of(&setup, &s);
    assert_eq!(link.position, forgotten + s.timeline_index());
    let reopened = link.open().unwrap_or_else(|e| panic!("{e:?}"));
    assert!(reopened.forgotten().is_none(), "with room, the replay keeps the whole run");
    assert_eq!(reopened.timeline_index(), link.position);
    assert_eq!(reopened.view(), s.view());
}
