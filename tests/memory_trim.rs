//! Past the page's memory budget the session drops the oldest part of its
//! timeline instead of stopping: the cluster runs on, every position kept
//! is reached exactly as before, the page can say how much was dropped,
//! and a share link still replays the whole run. The page's allocator is
//! installed as in the page (`src/main.rs`) so the budget is measured as
//! there; this file is its own test binary because the budget is global.

use kafkascope::sim::simulation::Command;
use kafkascope::ui::memory::{self, PageAllocator, LIVE_BYTES};
use kafkascope::ui::setup::Setup;
use kafkascope::ui::share::ShareLink;

fn unreachable_out_of_memory(size: usize) {
    panic!("the system allocator had no {size} bytes");
}

#[global_allocator]
static ALLOCATOR: PageAllocator<std::alloc::System> = PageAllocator::new(std::alloc::System, &LIVE_BYTES, unreachable_out_of_memory);

fn produce(n: u32) -> Command {
    Command::Produce {
        client: 0,
        topic: "orders".into(),
        key: Some(format!("k{}", n % 7)),
        value: Some(format!("v{n}")),
        headers: vec![],
        partition: None,
        timestamp_ms: None,
    }
}

#[test]
fn past_the_budget_the_oldest_timeline_is_dropped_and_what_is_kept_stays_exact() {
    let setup = Setup::default();
    let mut s = setup.start().unwrap();
    let mut produced = 0;
    for step in 0..4_000u32 {
        assert!(s.step());
        if step % 20 == 0 {
            s.command(produce(produced)).unwrap();
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
