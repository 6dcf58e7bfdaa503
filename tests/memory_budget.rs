//! The page's memory budget, with the page's allocator installed as it is
//! in the page (`src/main.rs`), and a budget small enough to reach with
//! what the cluster itself holds (its logs), which dropping the oldest part
//! of the timeline cannot free (tests/memory_trim.rs shows that part): then
//! the session takes no new step (so the page stops growing and says so,
//! instead of trapping at the 4 GiB wall), while Step back still works and
//! a link opened then says why it cannot be replayed.

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

/// Records the learner produces, so the logs and the producer's list of
/// records grow: large ones, so that the cluster's own state outgrows the
/// budget whatever the timeline drops.
fn produce(n: u32) -> Command {
    Command::Produce {
        client: 0,
        topic: "orders".into(),
        key: Some(format!("k{n}")),
        value: Some("v".repeat(20_000)),
        headers: vec![],
        partition: None,
        timestamp_ms: None,
    }
}

#[test]
fn past_the_memory_budget_the_session_stops_stepping_and_step_back_still_works() {
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
            s.command(produce(produced)).unwrap();
            produced += 1;
        }
        assert!(steps < 20_000, "the budget is reached");
    }
    assert!(s.sim().has_pending(), "the cluster had more to do: the budget stopped it");
    assert!(memory::over_budget());
    assert!(!s.step() && s.step_many(100) == 0, "no new step while over the budget");
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
