//! The UI's state outside any component: the running simulation and the
//! snapshots that make **Step back** restore exactly the previous state.
//!
//! This is plain Rust, so native tests cover it.

use crate::sim::simulation::{ClusterConfig, Command, CommandError, ConfigError, Simulation, Snapshot};
use crate::sim::invariants::{InvariantChecker, Violation};
use crate::sim::trace::TraceEvent;
use crate::sim::view::ClusterView;
use super::focus::{summarize, BackgroundKind, BackgroundTally, Classifier, Focus, Interest, Tag};

/// The seed a fresh page starts with.
pub const DEFAULT_SEED: u64 = 1;

/// Where the session is: how many simulation steps ran and how many user
/// commands were issued. Together they name a state exactly, because the
/// simulation is deterministic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub steps: u64,
    pub commands: usize,
}

/// How many positions apart the session keeps full snapshots; anything in
/// between is rebuilt by replaying from the snapshot before it.
const SNAPSHOT_EVERY: usize = 64;

/// The most snapshots the session keeps. Past it, snapshots older than
/// [`DENSE_POSITIONS`] are thinned to twice their spacing, so an hour of
/// play keeps a bounded number while a jump still replays at most one
/// spacing's worth of positions.
pub const MAX_SNAPSHOTS: usize = 1024;

/// How far back from the newest position snapshots stay [`SNAPSHOT_EVERY`]
/// apart, so stepping back through the recent past replays little.
const DENSE_POSITIONS: usize = 16 * SNAPSHOT_EVERY;

/// How far ahead in simulated time a focused Step looks for a position in
/// focus, as "Next controller event" does: longer than
/// broker.session.timeout.ms and any election, so nothing that follows a
/// fault is missed.
pub const FOCUS_WINDOW_MS: u64 = 60_000;

/// The most positions a focused Step looks through. A quiet cluster fills
/// the window with about 12,000; brokers retrying controllers that lost
/// their majority spin far faster, and the page must not stall on them.
pub const FOCUS_POSITION_LIMIT: u32 = 20_000;

/// What the session knows of each position: its step count, when it is,
/// what its events are to the learner, and what background it holds. Its
/// command count is kept apart (`Session::command_at`), since it changes
/// at few positions: a mark is 24 bytes, and an hour of play has over a
/// million.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mark {
    steps: u64,
    time_ms: u64,
    /// The union of its events' interests.
    interest: Interest,
    /// The background kind most of its background events are.
    background: Option<BackgroundKind>,
    /// A user command's position, which is always in focus.
    command: bool,
    /// A Step landed here without finding anything in focus (a quiet
    /// stretch): Step back comes back here too, so it undoes exactly one
    /// Step.
    stop: bool,
}

/// A snapshot with everything else that must travel with it for a jump to
/// reach the same state: the commands issued by then, the invariant
/// checker and the focus classifier.
#[derive(Clone, Debug)]
struct Saved {
    /// The index into the timeline (`marks`) it was taken at.
    index: usize,
    snapshot: Snapshot,
    commands: usize,
    checker: InvariantChecker,
    classifier: Classifier,
}

/// What a focused Step did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepReport {
    /// False when there was nothing left to do.
    pub moved: bool,
    /// Whether it stopped at a position in focus. False: nothing in focus
    /// came within [`FOCUS_WINDOW_MS`], and it took one ordinary step.
    pub found: bool,
    /// How many positions it moved, the one it stopped at included.
    pub positions: u32,
    /// How much simulated time it moved.
    pub simulated_ms: u64,
    /// The background kinds of the positions it passed over.
    pub passed: BackgroundTally,
}

#[derive(Clone, Debug)]
pub struct Session {
    sim: Simulation,
    /// Every command issued, with the step count at which it was issued:
    /// with the seed and the configuration, the whole session.
    commands: Vec<(u64, Command)>,
    /// The timeline index of each command's position, in the order of
    /// `commands` (0 for one whose position was forgotten): a position's
    /// command count is how many are at or before it.
    command_at: Vec<usize>,
    /// Which position the simulation is at now. Positions after it are the
    /// future a Step re-plays until a new command replaces it.
    cursor: usize,
    /// Snapshots at some positions.
    snapshots: Vec<Saved>,
    /// How many positions apart the snapshots older than the dense recent
    /// ones are kept: [`SNAPSHOT_EVERY`], doubled each time the count
    /// passed [`MAX_SNAPSHOTS`] even without the aged-out dense ones.
    spacing: usize,
    /// Watches every simulation step for broken invariants: the alarms.
    /// It moves with the timeline (restored with each snapshot and fed the
    /// replayed steps), so its violations are always those up to here.
    checker: InvariantChecker,
    /// Tags every simulation step's events for the focus; it moves with the
    /// timeline as the checker does.
    classifier: Classifier,
    /// One tag per event of the simulation's trace, in the same order, and
    /// one per event of its recorded future ([`Simulation::trace_ahead`]),
    /// so that a jump ahead to a snapshot finds the tags as they were.
    tags: Vec<Tag>,
    /// The position after each user action (a step or a command), oldest
    /// first: the timeline, one mark a position.
    marks: Vec<Mark>,
    /// How many simulation steps this session has run, replays included:
    /// a test reads it to see how much a jump replayed.
    steps_run: u64,
    /// How many positions from the timeline's start were dropped to stay
    /// within the page's memory budget; positions count from there.
    forgotten: usize,
}

impl Session {
    pub fn new(config: ClusterConfig, seed: u64) -> Result<Self, ConfigError> {
        let sim = Simulation::new(config, seed)?;
        let start = Saved {
            index: 0,
            snapshot: sim.snapshot(),
            commands: 0,
            checker: InvariantChecker::new(),
            classifier: Classifier::new(),
        };
        let mark = Mark { steps: 0, time_ms: sim.now_ms(), interest: Interest::NONE, background: None, command: false, stop: false };
        Ok(Self {
            sim,
            commands: Vec::new(),
            command_at: Vec::new(),
            cursor: 0,
            snapshots: vec![start],
            spacing: SNAPSHOT_EVERY,
            checker: InvariantChecker::new(),
            classifier: Classifier::new(),
            tags: Vec::new(),
            marks: vec![mark],
            steps_run: 0,
            forgotten: 0,
        })
    }

    /// A session stepped until the cluster is up: an active controller,
    /// every broker registered and unfenced, every partition with a leader
    /// that knows it leads. The boot stays on the timeline, so Step back
    /// walks into the election and the registrations.
    pub fn booted(config: ClusterConfig, seed: u64) -> Result<Self, ConfigError> {
        let mut session = Self::new(config, seed)?;
        while !session.cluster_is_up() && session.marks.len() <= BOOT_STEP_LIMIT {
            if !session.step() {
                break;
            }
        }
        Ok(session)
    }

    fn cluster_is_up(&self) -> bool {
        let view = self.sim.view();
        let Some(quorum) = &view.quorum else {
            return true;
        };
        quorum.active.is_some()
            && view.brokers.iter().all(|b| b.status == crate::sim::view::BrokerStatus::Running)
            && !view.partitions.is_empty()
            && view.every_partition_led()
    }

    pub fn sim(&self) -> &Simulation {
        &self.sim
    }

    pub fn view(&self) -> ClusterView {
        self.sim.view()
    }

    /// The commands issued up to the current position, each with the step
    /// count it came at.
    pub fn commands(&self) -> &[(u64, Command)] {
        &self.commands[..self.position(self.cursor).commands]
    }

    /// Every command of the timeline, the recorded future after the cursor
    /// included, each with the step count it came at.
    pub fn all_commands(&self) -> &[(u64, Command)] {
        &self.commands
    }

    /// The step count at the timeline's last position.
    pub fn end_steps(&self) -> u64 {
        self.marks.last().map_or(0, |m| m.steps)
    }

    /// Rebuilds a session from its configuration, seed and action log: each
    /// command at its step count, Steps up to `end_steps` (the timeline's
    /// end), then the timeline is moved to `position`. Because the
    /// simulation is deterministic and a Step always folds the same events,
    /// this is the same timeline, position for position, as the session the
    /// log came from.
    pub fn replay(
        config: ClusterConfig,
        seed: u64,
        commands: &[(u64, Command)],
        end_steps: u64,
        position: usize,
    ) -> Result<Session, ReplayError> {
        if end_steps > MAX_REPLAY_STEPS || commands.len() > MAX_REPLAY_COMMANDS {
            return Err(ReplayError::TooLong);
        }
        // Every command is checked against the end, not just the last one: a
        // hand-made link with one command far past the end (and a later one
        // back before it) would otherwise be replayed step after step
        // towards it, with no limit but the page's memory.
        if commands.iter().any(|(at, _)| *at > end_steps) {
            return Err(ReplayError::EndBeforeCommands { end: end_steps });
        }
        // A command before the one ahead of it can never be reached; saying
        // so now spares replaying up to the one ahead first.
        if let Some(index) = (1..commands.len()).find(|&i| commands[i].0 < commands[i - 1].0) {
            return Err(ReplayError::Unreachable { index, step: commands[index].0 });
        }
        let mut s = Session::new(config, seed).map_err(ReplayError::Config)?;
        let mut next = 0;
        loop {
            let steps = s.sim.steps();
            if let Some((at, command)) = commands.get(next) {
                if *at == steps {
                    s.command(command.clone()).map_err(|error| ReplayError::Command { index: next, error })?;
                    next += 1;
                    continue;
                }
                if *at < steps {
                    return Err(ReplayError::Unreachable { index: next, step: *at });
                }
            } else if steps >= end_steps {
                break;
            }
            if !s.step() {
                if s.memory_full() {
                    return Err(ReplayError::MemoryFull { steps });
                }
                return Err(ReplayError::Ended { steps });
            }
        }
        if s.sim.steps() != end_steps {
            return Err(ReplayError::Ended { steps: s.sim.steps() });
        }
        // Positions count from the run's start; the replay may have dropped
        // the oldest ones to stay within memory, and then opens at the
        // oldest kept if the link's was among them.
        let len = s.forgotten + s.timeline_len();
        if position >= len {
            return Err(ReplayError::Position { position, len });
        }
        s.go_to(position.saturating_sub(s.forgotten));
        Ok(s)
    }

    /// Steps until `moved` says the last step moved what it looks for, at
    /// most `limit` times. Returns how many steps ran and whether it moved.
    pub fn step_until(&mut self, limit: u32, moved: impl Fn(&[TraceEvent]) -> bool) -> (u32, bool) {
        let mut done = 0;
        while done < limit {
            if !self.step() {
                return (done, false);
            }
            done += 1;
            if moved(self.last_step_trace()) {
                return (done, true);
            }
        }
        (done, false)
    }

    /// Steps until an event `wanted` picks out, within `window_ms` of
    /// simulated time. When none comes, the session goes back to where it
    /// was (the steps it looked through stay on the timeline as its future)
    /// and returns false, so a quiet cluster does not jump ahead for nothing.
    pub fn seek(&mut self, window_ms: u64, wanted: impl Fn(&TraceEvent) -> bool) -> bool {
        let (start, until) = (self.cursor, self.sim.now_ms() + window_ms);
        while self.sim.next_event_ms().is_some_and(|t| t <= until) && self.step() {
            if self.last_step_trace().iter().any(&wanted) {
                return true;
            }
        }
        self.go_to(start);
        false
    }

    /// How many positions the timeline holds.
    pub fn timeline_len(&self) -> usize {
        self.marks.len()
    }

    /// The position at `index` of the timeline, which must be on it.
    fn position(&self, index: usize) -> Position {
        Position { steps: self.marks[index].steps, commands: self.command_at.partition_point(|&at| at <= index) }
    }

    /// Where on the timeline the session is.
    pub fn timeline_index(&self) -> usize {
        self.cursor
    }

    /// Drops the future after the cursor: a new action starts a new branch.
    fn cut_future(&mut self) {
        if self.cursor + 1 < self.marks.len() {
            let commands = self.position(self.cursor).commands;
            self.marks.truncate(self.cursor + 1);
            self.commands.truncate(commands);
            self.command_at.truncate(commands);
            let cursor = self.cursor;
            self.retain_snapshots(&|index| index <= cursor);
            self.sim.cut_trace_ahead();
            self.tags.truncate(self.sim.trace().len());
        }
    }

    fn record_position(&mut self) {
        let previous = self.marks.last().map_or(0, |m| m.steps);
        let first = self.sim.trace().partition_point(|e| e.step <= previous);
        let (interest, background) = summarize(&self.tags[first..self.sim.trace().len()]);
        let command = self.commands.len() > self.command_at.len();
        let steps = self.sim.steps();
        // The timeline grows by an eighth at a time instead of doubling: a
        // doubled vector of a million marks holds up to 24 MiB it does not
        // use.
        if self.marks.len() == self.marks.capacity() {
            self.marks.reserve_exact((self.marks.len() / 8).max(SNAPSHOT_EVERY));
        }
        self.marks.push(Mark { steps, time_ms: self.sim.now_ms(), interest, background, command, stop: false });
        self.cursor = self.marks.len() - 1;
        if command {
            self.command_at.push(self.cursor);
        }
        if self.cursor % SNAPSHOT_EVERY == 0 {
            let saved = Saved {
                index: self.cursor,
                snapshot: self.sim.snapshot(),
                commands: self.commands.len(),
                checker: self.checker.clone(),
                classifier: self.classifier.clone(),
            };
            self.snapshots.push(saved);
            self.thin_snapshots();
        }
    }

    /// Keeps the snapshots within [`MAX_SNAPSHOTS`]: while there are more,
    /// the older ones are kept at twice the spacing. The first (the start)
    /// and the dense recent ones always stay.
    fn thin_snapshots(&mut self) {
        if self.snapshots.len() <= MAX_SNAPSHOTS {
            return;
        }
        let recent = self.cursor.saturating_sub(DENSE_POSITIONS);
        // First the dense ones that have aged out go, at the spacing as it
        // is; only if that is not enough does the spacing double.
        loop {
            let spacing = self.spacing;
            self.retain_snapshots(&|index| index % spacing == 0 || index > recent);
            if self.snapshots.len() <= MAX_SNAPSHOTS {
                return;
            }
            self.spacing *= 2;
        }
    }

    /// Keeps the snapshots whose index passes `keep`. One body for every
    /// caller: `retain` inlines the drop of a whole snapshot, which is large
    /// in the page.
    fn retain_snapshots(&mut self, keep: &dyn Fn(usize) -> bool) {
        self.snapshots.retain(|s| keep(s.index));
    }

    /// Drops the older half of the timeline behind the cursor, up to a
    /// snapshot that becomes the new start, with its events, tags, marks
    /// and snapshots. The state and the commands stay, so every remaining
    /// position is reached as exactly as before and a share link still
    /// replays the whole run from the seed. False when too little is left.
    fn forget_oldest(&mut self) -> bool {
        let Some(cut) = self.forget_cut() else { return false };
        let before = self.marks[cut - 1].steps;
        let events = self.sim.trace().partition_point(|e| e.step <= before);
        self.sim.forget_trace(events);
        self.tags = self.tags.split_off(events);
        self.marks = self.marks.split_off(cut);
        for at in &mut self.command_at {
            *at = at.saturating_sub(cut);
        }
        self.retain_snapshots(&|index| index >= cut);
        for saved in &mut self.snapshots {
            saved.index -= cut;
            saved.snapshot.forget_trace(events);
        }
        self.cursor -= cut;
        self.forgotten += cut;
        true
    }

    /// Where [`Session::forget_oldest`] would cut: the last snapshot in the
    /// older half behind the cursor, on the spacing so that the snapshots
    /// kept stay on it.
    fn forget_cut(&self) -> Option<usize> {
        let spacing = self.spacing;
        let half = self.cursor / 2;
        self.snapshots.iter().map(|s| s.index).filter(|i| *i > 0 && *i <= half && i % spacing == 0).last()
    }

    /// Whether the page is past its memory budget with nothing left to
    /// drop: no new step can be taken.
    pub fn memory_full(&self) -> bool {
        super::memory::over_budget() && self.forget_cut().is_none()
    }

    /// How many positions from the start of the run were dropped to stay
    /// within the memory budget, and the simulated time the timeline now
    /// starts at; None while the whole run is kept.
    pub fn forgotten(&self) -> Option<(usize, u64)> {
        (self.forgotten > 0).then(|| (self.forgotten, self.marks[0].time_ms))
    }

    /// How many snapshots the session holds.
    pub fn snapshot_count(&self) -> usize {
        self.snapshots.len()
    }

    /// The most positions a jump may have to replay: the widest gap between
    /// two snapshots, or from the last one to the timeline's end.
    pub fn widest_snapshot_gap(&self) -> usize {
        let end = self.marks.len() - 1;
        let gaps = self.snapshots.windows(2).map(|w| w[1].index - w[0].index);
        gaps.chain(self.snapshots.last().map(|s| end - s.index)).max().unwrap_or(end)
    }

    /// Moves one position forward: through the recorded future if there is
    /// one, else by processing the next event that does something visible.
    /// A timer that finds nothing to do leaves no trace, so it is folded into
    /// the next step, within [`FOLD_WINDOW_MS`] of simulated time: past it
    /// the step ends with nothing to narrate. False when nothing is left to
    /// do.
    pub fn step(&mut self) -> bool {
        if self.cursor + 1 < self.marks.len() {
            self.go_to(self.cursor + 1);
            return true;
        }
        if !self.sim.has_pending() {
            return false;
        }
        // Past the page's memory budget the oldest part of the timeline is
        // dropped; when nothing is left to drop no new step is taken: the
        // page stops growing and says so, rather than running into the 4
        // GiB wall, where a failed allocation aborts without a word.
        while super::memory::over_budget() {
            if !self.forget_oldest() {
                return false;
            }
        }
        let before = self.sim.trace().len();
        let until = self.sim.now_ms().saturating_add(FOLD_WINDOW_MS);
        let mut folded = 0;
        while self.sim_step() {
            folded += 1;
            let quiet_for_long = self.sim.next_event_ms().is_none_or(|t| t > until) || folded >= FOLD_LIMIT;
            if self.sim.trace().len() > before || quiet_for_long {
                break;
            }
        }
        self.record_position();
        true
    }

    /// One simulation step, checked and classified.
    fn sim_step(&mut self) -> bool {
        let before = self.sim.trace().len();
        let moved = self.sim.step();
        if moved {
            self.steps_run += 1;
            self.checker.check_step(&self.sim);
            let trace = self.sim.trace();
            let fresh = &trace[before..];
            // Through the recorded future the tags are kept with their
            // events, which only `cut_future` drops.
            if self.tags.len() == before {
                self.classifier.classify_step(fresh, &mut self.tags);
            } else {
                // The classifier still follows every step; replay is
                // deterministic, so it tags them as it did the first time.
                let mut again = Vec::with_capacity(fresh.len());
                self.classifier.classify_step(fresh, &mut again);
                debug_assert_eq!(&self.tags[before..before + fresh.len()], &again[..]);
            }
        }
        moved
    }

    /// The invariants broken so far on this timeline, oldest first.
    pub fn violations(&self) -> &[Violation] {
        self.checker.violations()
    }

    /// The timeline position that shows the state right after `step`: the
    /// first position at or past it.
    pub fn position_of_step(&self, step: u64) -> Option<usize> {
        self.marks.iter().position(|m| m.steps >= step)
    }

    /// Runs up to `n` steps; returns how many ran.
    pub fn step_many(&mut self, n: u32) -> u32 {
        let mut done = 0;
        while done < n && self.step() {
            done += 1;
        }
        done
    }

    /// Goes back one position; false when at the start.
    pub fn step_back(&mut self) -> bool {
        if self.cursor == 0 {
            return false;
        }
        self.go_to(self.cursor - 1);
        true
    }

    /// Moves to any position of the timeline, exactly: from the nearest
    /// snapshot at or before it, or from here when that is nearer. The
    /// recorded commands and steps after it are replayed. A snapshot holds
    /// no trace: one ahead of here takes the events of every step in
    /// between, and their tags, from the recorded future kept when the
    /// session went back past them.
    pub fn go_to(&mut self, index: usize) {
        if index >= self.marks.len() || index == self.cursor {
            return;
        }
        let target = self.position(index);
        let saved = self.snapshots.iter().rev().find(|s| s.index <= index);
        let mut applied = self.position(self.cursor).commands;
        match saved {
            Some(saved) if index < self.cursor || saved.index > self.cursor => {
                self.sim.restore(&saved.snapshot);
                self.checker = saved.checker.clone();
                self.classifier = saved.classifier.clone();
                applied = saved.commands;
            }
            _ => {}
        }
        loop {
            if applied < target.commands && self.commands[applied].0 == self.sim.steps() {
                // Commands were valid when first issued, and replay reaches
                // the same state, so they are valid again.
                let _ = self.sim.command(self.commands[applied].1.clone());
                applied += 1;
            } else if self.sim.steps() < target.steps {
                self.sim_step();
            } else {
                break;
            }
        }
        self.cursor = index;
    }

    pub fn can_step_back(&self) -> bool {
        self.cursor > 0
    }

    /// Issues a user command; a refused one changes nothing. A command given
    /// after stepping back replaces the future that was there.
    pub fn command(&mut self, command: Command) -> Result<(), CommandError> {
        self.sim.command(command.clone())?;
        self.cut_future();
        self.commands.push((self.sim.steps(), command));
        self.record_position();
        Ok(())
    }

    /// Issues a command and steps until it has run, so that a fault the
    /// learner clicks shows at once. Each of those is an ordinary step on
    /// the timeline, so replay gives the same run.
    pub fn command_now(&mut self, command: Command) -> Result<(), CommandError> {
        self.command(command)?;
        while self.sim.pending_commands() > 0 && self.step() {}
        Ok(())
    }

    /// What the last step did, to narrate.
    pub fn last_step_trace(&self) -> &[TraceEvent] {
        self.sim.trace_of_step(self.sim.steps())
    }

    /// Whether the position at `index` is in `focus`: one of its events is,
    /// or it is a user command's.
    pub fn in_focus(&self, index: usize, focus: Focus) -> bool {
        self.marks.get(index).is_some_and(|m| m.command || focus.wants(m.interest))
    }

    /// The union of the interests of the events of the position at `index`.
    pub fn position_interest(&self, index: usize) -> Option<Interest> {
        self.marks.get(index).map(|m| m.interest)
    }

    /// The simulated time of the position at `index`.
    pub fn position_time_ms(&self, index: usize) -> Option<u64> {
        self.marks.get(index).map(|m| m.time_ms)
    }

    /// The background of the position at `index`: its dominant kind and
    /// the simulated time since the position before it. None when it holds
    /// no background event.
    pub fn position_background(&self, index: usize) -> Option<(BackgroundKind, u64)> {
        let mark = self.marks.get(index)?;
        let before = index.checked_sub(1).map_or(mark.time_ms, |i| self.marks[i].time_ms);
        mark.background.map(|kind| (kind, mark.time_ms - before))
    }

    /// The background of the current position.
    pub fn background(&self) -> Option<(BackgroundKind, u64)> {
        self.position_background(self.cursor)
    }

    /// The events of the position at `index` (every simulation step folded
    /// into it), each with its tag, to narrate. Only positions up to the
    /// current one have their events in the trace; None for later ones.
    pub fn position_events_at(&self, index: usize) -> Option<(&[TraceEvent], &[Tag])> {
        if index > self.cursor {
            return None;
        }
        let trace = self.sim.trace();
        let end = self.marks[index].steps;
        let start = index.checked_sub(1).map_or(0, |i| self.marks[i].steps);
        let first = trace.partition_point(|e| e.step <= start);
        let last = trace.partition_point(|e| e.step <= end);
        Some((&trace[first..last], &self.tags[first..last]))
    }

    /// The current position's events, each with its tag.
    pub fn position_events(&self) -> (&[TraceEvent], &[Tag]) {
        self.position_events_at(self.cursor).expect("the cursor is on the timeline")
    }

    /// When the next position happens: known exactly in the recorded
    /// future; else the next event's time, the earliest the next step can
    /// land (a timer with nothing to do is folded into it).
    pub fn next_position_ms(&self) -> Option<u64> {
        match self.marks.get(self.cursor + 1) {
            Some(m) => Some(m.time_ms),
            None => self.sim.next_event_ms(),
        }
    }

    /// Whether a Step has anything to do: a recorded future or a pending
    /// event.
    pub fn can_step(&self) -> bool {
        self.cursor + 1 < self.marks.len() || (self.sim.has_pending() && !self.memory_full())
    }

    /// Steps to the next position in `focus` (through the recorded future
    /// first, as [`Session::step`] does), looking at most
    /// [`FOCUS_WINDOW_MS`] of simulated time ahead. When nothing in focus
    /// comes that soon, the session goes back and takes one ordinary step
    /// instead (also after [`FOCUS_POSITION_LIMIT`] positions), so Step
    /// always moves; the positions it looked through stay on the timeline
    /// as its future.
    pub fn step_focus(&mut self, focus: Focus) -> StepReport {
        let (start, from_ms) = (self.cursor, self.sim.now_ms());
        let until = from_ms + FOCUS_WINDOW_MS;
        let mut passed = BackgroundTally::default();
        let mut positions = 0;
        // The window is judged by the time of the position a step lands on,
        // which the recorded future knows too, so a second pass over the
        // same stretch stops exactly where the first did.
        while positions < FOCUS_POSITION_LIMIT && self.step() {
            positions += 1;
            let mark = self.marks[self.cursor];
            if mark.time_ms > until {
                break;
            }
            if self.in_focus(self.cursor, focus) {
                return StepReport { moved: true, found: true, positions, simulated_ms: mark.time_ms - from_ms, passed };
            }
            if let Some(kind) = mark.background {
                passed.add(kind);
            }
        }
        self.go_to(start);
        let moved = self.step();
        if moved {
            self.marks[self.cursor].stop = true;
        }
        let mut passed = BackgroundTally::default();
        if let Some(kind) = self.marks[self.cursor].background.filter(|_| moved) {
            passed.add(kind);
        }
        let simulated_ms = self.sim.now_ms() - from_ms;
        StepReport { moved, found: false, positions: u32::from(moved), simulated_ms, passed }
    }

    /// Goes back to the previous position in `focus` (or a command's, or
    /// the start): the undo of one [`Session::step_focus`]. False at the
    /// start.
    pub fn step_back_focus(&mut self, focus: Focus) -> bool {
        if self.cursor == 0 {
            return false;
        }
        let mut index = self.cursor - 1;
        while index > 0 && !self.in_focus(index, focus) && !self.marks[index].stop {
            index -= 1;
        }
        self.go_to(index);
        true
    }
}

/// The cluster a fresh page shows: three brokers and one topic of three
/// partitions, each replicated to all three, so replication is visible from
/// the first produce. It is the Setup form's default.
pub fn default_cluster() -> ClusterConfig {
    super::setup::Setup::default().cluster_config()
}

/// How much simulated time one Step may fold when nothing visible happens:
/// a cluster with nothing left to show (one controller, every broker
/// stopped) still has timers, and folding them until something showed
/// would never end.
pub const FOLD_WINDOW_MS: u64 = 10_000;
/// How many invisible events one Step may fold at most, for a stretch that
/// does not even move the clock.
const FOLD_LIMIT: u32 = 100_000;

/// The most steps a boot may take before the page shows the cluster
/// anyway (a quorum that cannot elect, say), so opening never hangs.
const BOOT_STEP_LIMIT: usize = 20_000;

/// The most steps a share link may ask to replay, so a hand-made link cannot
/// freeze the page.
pub const MAX_REPLAY_STEPS: u64 = 500_000;
/// The most commands a share link may hold.
pub const MAX_REPLAY_COMMANDS: usize = 20_000;

/// Why an action log could not be replayed into a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    Config(ConfigError),
    /// Command `index` was refused.
    Command { index: usize, error: CommandError },
    /// Command `index` is at a step count the run steps over (or before the
    /// one ahead of it).
    Unreachable { index: usize, step: u64 },
    /// The run had nothing left to do at `steps`, before the log's end.
    Ended { steps: u64 },
    /// The log ends at `end` steps, but its last command comes later.
    EndBeforeCommands { end: u64 },
    /// The timeline has no position `position`; it has `len`.
    Position { position: usize, len: usize },
    /// More than [`MAX_REPLAY_STEPS`] steps or [`MAX_REPLAY_COMMANDS`] commands.
    TooLong,
    /// The page's memory budget ran out at `steps`, before the log's end.
    MemoryFull { steps: u64 },
}

impl Default for Session {
    fn default() -> Self {
        // `let else` rather than `expect`, which would link the error's Debug
        // into the page.
        let Ok(session) = Self::booted(default_cluster(), DEFAULT_SEED) else { unreachable!("the default cluster is valid") };
        session
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The default cluster at step 0, before its boot.
    fn fresh() -> Session {
        Session::new(default_cluster(), DEFAULT_SEED).unwrap()
    }

    #[test]
    fn the_default_session_opens_booted_and_steps_back_into_the_boot() {
        let mut s = Session::default();
        let booted_at = s.sim().steps();
        assert!(booted_at > 10, "the election and registrations took steps: {booted_at}");
        assert!(s.view().partitions.iter().all(|p| p.leader.is_some()));
        assert!(s.step_back());
        assert_eq!(s.sim().steps(), booted_at - 1);
        s.go_to(0);
        assert_eq!(s.view().step, 0);
        assert!(s.view().quorum.unwrap().active.is_none(), "at step 0 nobody has been elected");
    }

    /// The timeline's marks grow by an eighth, never doubling, and each
    /// position's command count, kept apart from its mark, is the number
    /// of commands issued by then, after a cut future too.
    #[test]
    fn the_timeline_grows_by_an_eighth_and_counts_commands_at_each_position() {
        let mut s = fresh();
        for i in 0..3_000 {
            if i % 500 == 0 {
                s.command(produce()).unwrap();
            }
            s.step();
            let (len, capacity) = (s.marks.len(), s.marks.capacity());
            assert!(capacity <= len + (len / 8).max(SNAPSHOT_EVERY), "{len} marks, room for {capacity}");
        }
        let commands_at = |s: &Session| (0..s.timeline_len()).map(|i| s.position(i).commands).collect::<Vec<_>>();
        let counts = commands_at(&s);
        assert_eq!((counts[0], counts[counts.len() - 1]), (0, 6));
        assert!(counts.windows(2).all(|w| w[1] == w[0] || (w[1] == w[0] + 1 && s.marks[counts.partition_point(|&c| c <= w[0])].command)));
        // A command after stepping back cuts the future and its commands.
        let back = s.command_at[3] + 10;
        s.go_to(back);
        s.command(produce()).unwrap();
        assert_eq!((s.commands().len(), s.position(s.timeline_index()).commands), (5, 5));
        assert_eq!(commands_at(&s)[..=back], counts[..=back]);
    }

    pub(crate) fn produce() -> Command {
        Command::Produce {
            client: 0,
            topic: "orders".into(),
            key: Some("k".into()),
            value: Some("v".into()),
            headers: vec![],
            partition: None,
            timestamp_ms: None,
        }
    }

    #[test]
    fn step_back_restores_the_previous_state_exactly() {
        let mut s = fresh();
        s.command(produce()).unwrap();
        for _ in 0..5 {
            assert!(s.step());
        }
        let before = (s.view(), s.sim().trace().to_vec());
        assert!(s.step());
        assert_ne!(s.view(), before.0, "a step changes the view");
        assert!(s.step_back());
        assert_eq!((s.view(), s.sim().trace().to_vec()), before);
        // And stepping forward again replays the same step.
        assert!(s.step());
        let again = s.view();
        assert!(s.step_back());
        assert!(s.step());
        assert_eq!(s.view(), again);
    }

    #[test]
    fn a_long_timeline_keeps_a_bounded_number_of_snapshots_and_every_jump_stays_exact() {
        let mut s = fresh();
        // Far enough for the count to reach the maximum twice.
        let positions = (2 * MAX_SNAPSHOTS + 100) * SNAPSHOT_EVERY;
        let mut samples = Vec::new();
        for i in 0..positions {
            if i % 400 == 10 {
                s.command(produce()).unwrap();
            } else {
                assert!(s.step());
            }
            if i % 4099 == 7 {
                samples.push((s.timeline_index(), s.view()));
            }
            if i % SNAPSHOT_EVERY == 0 {
                // Never thinner than needed: the gaps stay within the
                // smallest doubled spacing that keeps the count under the
                // maximum, with room for the dense recent ones.
                let mut needed = SNAPSHOT_EVERY;
                while s.timeline_index() / needed > MAX_SNAPSHOTS - 32 {
                    needed *= 2;
                }
                assert!(s.widest_snapshot_gap() <= needed, "position {i}: a gap of {}", s.widest_snapshot_gap());
            }
        }
        let count = s.snapshot_count();
        assert!((MAX_SNAPSHOTS / 2..=MAX_SNAPSHOTS).contains(&count), "{count} snapshots");
        // The spacing doubled twice, from 64 to 256 positions: no more.
        assert_eq!(s.widest_snapshot_gap(), 4 * SNAPSHOT_EVERY);
        // The recent ones are as dense as ever.
        let end = s.timeline_index();
        let recent = s.snapshots.iter().filter(|saved| saved.index + DENSE_POSITIONS > end).count();
        assert_eq!(recent, DENSE_POSITIONS / SNAPSHOT_EVERY);
        // Jumps back and forth, in an order that is neither, land exactly.
        let mut order: Vec<usize> = (0..samples.len()).collect();
        order.sort_by_key(|&k| (k * 7) % samples.len());
        for k in order {
            let (index, view) = &samples[k];
            s.go_to(*index);
            assert_eq!(&s.view(), view, "position {index}");
        }
    }

    #[test]
    fn step_back_far_from_a_snapshot_replays_exactly() {
        let mut s = fresh();
        let mut views = vec![s.view()];
        for i in 0..300 {
            if i % 50 == 10 {
                s.command(produce()).unwrap();
            } else {
                s.step();
            }
            views.push(s.view());
        }
        // Walk back through every position: each must equal what was shown.
        for expected in views.iter().rev().skip(1).take(150) {
            assert!(s.step_back());
            assert_eq!(&s.view(), expected);
        }
        // Jump further back in one go, then forward through the recorded
        // future (which holds commands), then back again: the same states.
        s.go_to(20);
        assert_eq!(s.view(), views[20]);
        s.go_to(280);
        assert_eq!(s.view(), views[280]);
        for expected in &views[281..=290] {
            assert!(s.step());
            assert_eq!(&s.view(), expected);
        }
        s.go_to(20);
        assert_eq!(s.view(), views[20]);
        let hash_at_20 = s.sim().trace_hash();
        let mut again = fresh();
        for i in 0..20 {
            if i % 50 == 10 {
                again.command(produce()).unwrap();
            } else {
                again.step();
            }
        }
        assert_eq!(again.sim().trace_hash(), hash_at_20);
    }

    #[test]
    fn stepping_or_jumping_forward_past_a_snapshot_keeps_every_trace_event() {
        let mut s = fresh();
        for _ in 0..(3 * SNAPSHOT_EVERY) {
            s.step();
        }
        let (end, trace, tags) = (s.timeline_index(), s.sim().trace().to_vec(), s.tags.clone());
        // One Step back over a snapshot's position, then forward onto it.
        s.go_to(2 * SNAPSHOT_EVERY - 1);
        assert!(s.step());
        assert_eq!(s.sim().trace(), &trace[..s.sim().trace().len()]);
        assert!(!s.last_step_trace().is_empty(), "the snapshot's own position has its events");
        // A jump from the start to the end, over every snapshot, starts
        // from the last snapshot, with the events before it kept from the
        // way there.
        s.go_to(0);
        let run = s.steps_run;
        s.go_to(end);
        assert_eq!(s.sim().trace(), &trace[..], "the whole trace, none of it skipped");
        assert_eq!(s.tags, tags, "every event's tag too");
        let last = s.snapshots.last().map(|saved| s.marks[saved.index].steps).unwrap_or_default();
        assert_eq!(s.steps_run - run, s.sim().steps() - last, "only the steps after the last snapshot replayed");
        assert!(s.sim().trace_ahead().is_empty() && s.tags.len() == trace.len(), "nothing kept at the end");
        // A jump back into the middle and on to a later snapshot alike.
        s.go_to(SNAPSHOT_EVERY + 3);
        s.go_to(2 * SNAPSHOT_EVERY + 5);
        assert_eq!(s.sim().trace(), &trace[..s.sim().trace().len()]);
        assert_eq!(s.tags, tags, "the tags of now and of the future alike");
        while s.timeline_index() < end {
            assert!(s.step());
        }
        assert_eq!(s.sim().trace(), &trace[..]);
    }

    #[test]
    fn a_command_after_stepping_back_replaces_the_future() {
        let mut s = fresh();
        for _ in 0..10 {
            s.step();
        }
        s.command(produce()).unwrap();
        for _ in 0..5 {
            s.step();
        }
        s.go_to(5);
        assert_eq!(s.timeline_len(), 17);
        s.command(produce()).unwrap();
        assert_eq!(s.timeline_len(), 7, "the old future is gone");
        assert_eq!(s.commands().len(), 1);
        assert_eq!(s.commands()[0].0, s.sim().steps());
    }

    /// A session built by stepping, commanding, scrubbing back and
    /// commanding again, so the log has a replaced future in its past.
    fn a_winding_session() -> Session {
        let mut s = fresh();
        s.command(produce()).unwrap();
        for _ in 0..40 {
            s.step();
        }
        s.go_to(20);
        s.command(produce()).unwrap();
        s.command(produce()).unwrap();
        for _ in 0..70 {
            s.step();
        }
        s.go_to(50);
        s
    }

    /// The session rebuilt from its action log, as a share link does.
    fn replayed(s: &Session) -> Session {
        Session::replay(s.sim().config().clone(), s.sim().seed(), s.all_commands(), s.end_steps(), s.timeline_index())
            .unwrap()
    }

    #[test]
    fn a_replayed_log_is_the_same_timeline_at_the_same_position() {
        let s = a_winding_session();
        let r = replayed(&s);
        assert_eq!(r.view(), s.view());
        assert_eq!(r.sim().trace_hash(), s.sim().trace_hash());
        assert_eq!((r.timeline_len(), r.timeline_index()), (s.timeline_len(), s.timeline_index()));
        assert_eq!(r.all_commands(), s.all_commands());
        // And its future is the same.
        let (mut a, mut b) = (s.clone(), r);
        a.go_to(a.timeline_len() - 1);
        b.go_to(b.timeline_len() - 1);
        assert_eq!(a.view(), b.view());
    }

    /// Every position's tags, interest and background, read by walking the
    /// timeline from the start one Step at a time.
    fn focus_marks(s: &mut Session) -> Vec<(Vec<Tag>, Option<Interest>, Option<(BackgroundKind, u64)>)> {
        let mut out = Vec::new();
        for i in 0..s.timeline_len() {
            s.go_to(i);
            out.push((s.position_events().1.to_vec(), s.position_interest(i), s.background()));
        }
        out
    }

    #[test]
    fn the_focus_is_the_same_after_stepping_a_jump_or_a_replay() {
        let mut s = a_winding_session();
        s.go_to(s.timeline_len() - 1);
        // While recording: each position's tags as the steps were classified.
        let mut recorded = Vec::new();
        let mut walk = a_winding_session();
        walk.go_to(0);
        loop {
            let i = walk.timeline_index();
            recorded.push((walk.position_events().1.to_vec(), walk.position_interest(i), walk.background()));
            if !walk.step() || walk.timeline_index() >= s.timeline_len() {
                break;
            }
        }
        let jumped = {
            // Far jumps first, so each position is reached from a snapshot.
            let mut j = s.clone();
            j.go_to(0);
            j.go_to(j.timeline_len() - 1);
            focus_marks(&mut j)
        };
        assert_eq!(jumped.len(), s.timeline_len());
        assert_eq!(&jumped[..recorded.len()], &recorded[..]);
        assert!(jumped.iter().any(|(_, i, _)| i.is_some_and(|i| i.contains(Interest::MINE))), "the produces are the learner's");
        assert_eq!(focus_marks(&mut replayed(&s)), jumped);
    }

    #[test]
    fn a_focused_step_in_a_quiet_cluster_takes_one_ordinary_step_and_says_so() {
        let mut s = Session::default();
        let start = s.timeline_index();
        let report = s.step_focus(Focus::Mine);
        assert!(report.moved && !report.found, "nothing of the learner's happens in a quiet cluster: {report:?}");
        assert_eq!((report.positions, s.timeline_index()), (1, start + 1));
        assert!(s.timeline_len() > start + 1_000, "it looked through a minute of background, kept as the future");
        assert!(report.passed.dominant().is_some(), "the one step was background");
        // The same again through the recorded future.
        let again = s.step_focus(Focus::Mine);
        assert_eq!((again.found, s.timeline_index()), (false, start + 2));
        // Everything is in the everything focus: an ordinary Step.
        let report = s.step_focus(Focus::Everything);
        assert_eq!((report.found, report.positions, s.timeline_index()), (true, 1, start + 3));
        // A command's position is in every focus.
        s.command(produce()).unwrap();
        let command = s.timeline_index();
        assert!(Focus::ALL.iter().all(|f| s.in_focus(command, *f)));
        assert!(s.step_focus(Focus::Mine).found);
        assert!(s.step_back_focus(Focus::Mine));
        assert_eq!(s.timeline_index(), command);
    }

    #[test]
    fn a_focused_step_back_at_the_start_does_nothing() {
        let mut s = fresh();
        assert!(!s.step_back_focus(Focus::Mine));
        s.step_many(40);
        let mut from = s.timeline_index();
        while s.step_back_focus(Focus::Mine) {
            let at = s.timeline_index();
            assert!(at < from && (at == 0 || s.in_focus(at, Focus::Mine)));
            assert!((at + 1..from).all(|i| !s.in_focus(i, Focus::Mine)), "it stops at the first in focus");
            from = at;
        }
        assert_eq!(s.timeline_index(), 0, "and ends at the start");
    }

    #[test]
    fn a_quiet_stretch_says_how_long_its_background_ran() {
        let mut s = Session::default();
        let start_ms = s.sim().now_ms();
        let mut total = 0;
        for _ in 0..200 {
            s.step();
            let (_, ms) = s.background().expect("background only");
            total += ms;
        }
        assert_eq!(total, s.sim().now_ms() - start_ms, "each position covers the time since the one before");
    }

    #[test]
    fn a_replay_refuses_a_log_it_cannot_follow() {
        let s = a_winding_session();
        let (config, seed) = (s.sim().config().clone(), s.sim().seed());
        let commands = s.all_commands().to_vec();
        let end = s.end_steps();
        let replay = |c: &[(u64, Command)], end, pos| Session::replay(config.clone(), seed, c, end, pos).err();
        assert_eq!(replay(&commands, end, 10_000), Some(ReplayError::Position { position: 10_000, len: s.timeline_len() }));
        assert_eq!(replay(&commands, 2, 0), Some(ReplayError::EndBeforeCommands { end: 2 }));
        assert_eq!(replay(&commands, MAX_REPLAY_STEPS + 1, 0), Some(ReplayError::TooLong));
        let mut bad = commands.clone();
        bad[1].1 = Command::Fetch {
            client: 0,
            topic: "orders".into(),
            partition: 0,
            offset: None,
            min_bytes: None,
            max_wait_ms: None,
        };
        assert!(matches!(replay(&bad, end, 0), Some(ReplayError::Command { index: 1, .. })));
        let mut backwards = commands.clone();
        backwards.swap(0, 2);
        assert!(matches!(replay(&backwards, end, 0), Some(ReplayError::Unreachable { .. })));
    }

    /// Found by the restless-user driver (tests/restless.rs, seed 2): a link
    /// edited by hand to put one command's step at u64::MAX, with later
    /// commands after it, was replayed towards that step until the memory
    /// ran out (in the page, a wasm trap). Only the last command was
    /// checked against the end.
    #[test]
    fn a_replay_refuses_any_command_past_the_end_before_stepping() {
        let s = a_winding_session();
        let (config, seed) = (s.sim().config().clone(), s.sim().seed());
        let mut commands = s.all_commands().to_vec();
        let end = s.end_steps();
        assert!(commands.len() >= 3 && commands[2].0 < end);
        // One step past the end, in the middle: before the fix this was
        // replayed and only refused, as Unreachable, once the next command
        // turned out to be behind it. With u64::MAX it never ended.
        commands[1].0 = end + 1;
        let refused = Session::replay(config.clone(), seed, &commands, end, 0).err();
        assert_eq!(refused, Some(ReplayError::EndBeforeCommands { end }));
        commands[1].0 = u64::MAX;
        let refused = Session::replay(config.clone(), seed, &commands, end, 0).err();
        assert_eq!(refused, Some(ReplayError::EndBeforeCommands { end }));
        // Out of order within the end: named at once, by the command behind.
        let mut backwards = s.all_commands().to_vec();
        backwards[1].0 = end;
        let refused = Session::replay(config, seed, &backwards, end, 0).err();
        assert_eq!(refused, Some(ReplayError::Unreachable { index: 2, step: backwards[2].0 }));
    }

    #[test]
    fn step_until_stops_when_the_step_moved_it() {
        let mut s = Session::default();
        s.command(produce()).unwrap();
        let (steps, moved) = s.step_until(1000, |events| {
            events.iter().any(|e| matches!(e.kind, crate::sim::trace::TraceKind::Appended { .. }))
        });
        assert!(moved && steps > 1, "{steps}");
        assert!(s.last_step_trace().iter().any(|e| matches!(e.kind, crate::sim::trace::TraceKind::Appended { .. })));
    }

    #[test]
    fn a_command_now_has_run_when_it_returns() {
        let mut s = Session::default();
        let before = s.sim().steps();
        s.command_now(Command::KillBroker { broker: 1 }).unwrap();
        assert!(s.sim().broker_is_down(1));
        assert!(s.sim().steps() > before);
        assert!(s.last_step_trace().iter().any(|e| matches!(e.kind, crate::sim::trace::TraceKind::BrokerStopped { broker: 1 })));
        assert_eq!(s.command_now(Command::KillBroker { broker: 1 }), Err(CommandError::BrokerAlreadyStopped(1)));
        // Step back undoes the kill like any step.
        assert!(s.step_back());
        assert!(!s.sim().broker_is_down(1));
    }

    #[test]
    fn seek_finds_the_next_controller_event_or_stays_put() {
        let mut s = Session::default();
        s.command_now(Command::KillBroker { broker: 0 }).unwrap();
        let killed_at = s.sim().now_ms();
        let expired = |e: &TraceEvent| matches!(e.kind, crate::sim::trace::TraceKind::BrokerSessionExpired { broker: 0, .. });
        assert!(s.seek(60_000, expired));
        let (fenced_at, last_heartbeat) = s
            .last_step_trace()
            .iter()
            .find_map(|e| match e.kind {
                crate::sim::trace::TraceKind::BrokerSessionExpired { last_heartbeat_ms, .. } => Some((e.time_ms, last_heartbeat_ms)),
                _ => None,
            })
            .expect("the step that fenced it");
        assert!(last_heartbeat <= killed_at && fenced_at == last_heartbeat + 9_000, "fenced broker.session.timeout.ms after its last heartbeat");
        assert!(s.last_step_trace().iter().any(|e| e.kind.is_controller_event()), "a session expiry is a controller event");
        // The rest of the failover, then a quiet cluster: a seek that finds
        // nothing leaves the session where it was.
        let mut found = 0;
        while s.seek(60_000, |e| e.kind.is_controller_event()) {
            found += 1;
            assert!(found < 100, "the failover ends");
        }
        let (steps, index, view) = (s.sim().steps(), s.timeline_index(), s.view());
        assert!(!s.seek(60_000, |e| e.kind.is_controller_event()));
        assert_eq!((s.sim().steps(), s.timeline_index()), (steps, index));
        assert_eq!(s.view(), view);
    }

    /// Isolate the two followers of `topic-partition` (they are fenced and
    /// leave the ISR), let the leader acknowledge writes alone, kill it, heal
    /// the network: with unclean election on, a follower that never had the
    /// writes is elected, and the next write over them loses them.
    fn an_unclean_loss() -> Session {
        use crate::sim::simulation::NodeSet;
        use crate::sim::trace::TraceKind;
        let setup = crate::ui::setup::Setup { unclean_leader_election_enable: true, ..crate::ui::setup::Setup::default() };
        let mut s = setup.start().unwrap();
        let produce = |s: &mut Session, value: &str| {
            s.command(Command::Produce {
                client: 0,
                topic: "orders".into(),
                key: None,
                value: Some(value.into()),
                headers: vec![],
                partition: Some(0),
                timestamp_ms: None,
            })
            .unwrap();
        };
        let leader = s.view().partition("orders", 0).unwrap().leader.unwrap();
        for b in (0..3).filter(|b| *b != leader) {
            let rest = NodeSet { brokers: (0..3).filter(|x| *x != b).collect(), controllers: vec![0, 1, 2], clients: vec![0, 1, 2, 3] };
            s.command_now(Command::Partition { a: NodeSet { brokers: vec![b], ..NodeSet::default() }, b: rest }).unwrap();
        }
        produce(&mut s, "alone");
        let acked = |s: &Session| s.view().producers[0].records.iter().any(|r| r.value.as_deref() == Some("alone") && r.partition.is_some() && matches!(r.state, crate::sim::client::producer::RecordState::Acknowledged { .. }));
        for _ in 0..200_000 {
            if acked(&s) {
                break;
            }
            s.step();
        }
        assert!(acked(&s), "the leader acknowledged alone once its followers were fenced");
        s.command_now(Command::KillBroker { broker: leader }).unwrap();
        s.command_now(Command::Heal).unwrap();
        assert!(s.seek(60_000, |e| matches!(&e.kind, TraceKind::LeaderElected(x) if x.unclean)), "an unclean election");
        produce(&mut s, "over it");
        for _ in 0..50_000 {
            if !s.violations().is_empty() {
                break;
            }
            s.step();
        }
        s
    }

    #[test]
    fn alarms_follow_the_timeline() {
        use crate::sim::invariants::{Guarantee, Invariant, NoGuarantee};
        let mut s = an_unclean_loss();
        let v = s.violations().to_vec();
        assert!(!v.is_empty(), "the lost write was caught");
        assert_eq!(v[0].invariant(), Invariant::AcknowledgedWriteKept);
        assert_eq!(v[0].guarantee, Some(Guarantee::NotGuaranteed(NoGuarantee::UncleanElection)));
        let end = s.timeline_index();
        // Before the step that broke it, no alarm; at it, the alarm.
        let at = s.position_of_step(v[0].step).unwrap();
        s.go_to(at - 1);
        assert!(s.violations().is_empty(), "no alarm before its step");
        s.go_to(at);
        assert_eq!(s.violations(), &v[..1]);
        s.go_to(0);
        assert!(s.violations().is_empty());
        s.go_to(end);
        assert_eq!(s.violations(), &v[..]);
    }

    /// Found by the restless-user driver (tests/restless.rs, seed 34): with
    /// one controller and every broker stopped, nothing the cluster does is
    /// visible any more (the lone voter's timers leave no trace), and Step
    /// folded invisible events into the next visible one for ever: the page
    /// froze. A Step now ends after [`FOLD_WINDOW_MS`] of simulated time
    /// even when nothing showed. Run on a thread, so that the old endless
    /// Step fails the test instead of hanging it.
    #[test]
    fn a_step_on_a_cluster_with_nothing_left_to_show_ends() {
        let (done, result) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let setup = crate::ui::setup::Setup { controllers: 1, ..crate::ui::setup::Setup::default() };
            let mut s = setup.start().unwrap();
            for broker in 0..3 {
                s.command_now(Command::KillBroker { broker }).unwrap();
            }
            // The controller fences the brokers (visible), then all is quiet.
            let mut quiet = Vec::new();
            for _ in 0..200 {
                let before = s.sim().now_ms();
                assert!(s.step(), "a lone controller always has timers");
                if s.last_step_trace().is_empty() {
                    quiet.push(s.sim().now_ms() - before);
                }
            }
            let _ = done.send(quiet);
        });
        let quiet = result.recv_timeout(std::time::Duration::from_secs(60)).expect("200 Steps return within a minute");
        assert!(!quiet.is_empty(), "the cluster went quiet");
        assert!(quiet.iter().all(|ms| *ms <= FOLD_WINDOW_MS), "a quiet Step covers at most the fold window: {quiet:?}");
    }

    #[test]
    fn step_back_at_the_start_does_nothing() {
        let mut s = fresh();
        assert!(!s.can_step_back());
        assert!(!s.step_back());
        assert_eq!(s.view().step, 0);
    }

    #[test]
    fn a_refused_command_keeps_the_state() {
        let mut s = fresh();
        s.command(produce()).unwrap();
        s.step();
        let before = s.view();
        let bad = Command::Produce {
            client: 0,
            topic: "nope".into(),
            key: None,
            value: None,
            headers: vec![],
            partition: None,
            timestamp_ms: None,
        };
        assert!(s.command(bad).is_err());
        assert_eq!(s.view(), before);
        assert!(s.step_back(), "history still holds the earlier actions");
    }

    #[test]
    fn step_back_undoes_a_step_that_found_nothing_in_focus() {
        // A booted, quiet cluster: nothing of the learner's happens, so each
        // Step takes one ordinary step; Step back must undo just that one.
        let mut s = Session::default();
        let first = s.step_focus(Focus::Mine);
        assert!(first.moved && !first.found, "{first:?}");
        let (i1, steps1) = (s.timeline_index(), s.sim().steps());
        assert!(!s.step_focus(Focus::Mine).found);
        assert!(s.timeline_index() > i1);
        assert!(s.step_back_focus(Focus::Mine));
        assert_eq!((s.timeline_index(), s.sim().steps()), (i1, steps1));
    }

}
