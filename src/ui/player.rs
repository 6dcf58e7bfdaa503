//! Play, paced by simulated time rather than by steps.
//!
//! A step can be a microsecond of a request's trip or half a second of a
//! quiet cluster, so a pace of steps per second is either too fast to read
//! or too slow to wait for. The [`Player`] runs simulated time at a speed
//! (simulated time per real second), holds every position in focus long
//! enough to read it, and compresses the stretches where only background
//! runs, saying so. It only chooses when the session steps, never what a
//! step does: playing reaches the same positions as stepping.
//!
//! This is plain Rust: the page passes in the real milliseconds since the
//! last animation frame, so native tests drive it with made-up frames.

use super::focus::{BackgroundKind, BackgroundTally, Focus};
use super::session::Session;

/// Simulated time per real time, on a log scale: each notch is about three
/// times the one before. 1× is real time.
pub const SPEEDS: &[f64] = &[0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0];

/// The index into [`SPEEDS`] a page opens at: 1×, real time, at which a
/// broker's 9 s session timeout takes a few seconds to watch once the
/// quiet stretch is compressed.
pub const DEFAULT_SPEED: usize = 4;

/// How many positions a frame may take: enough to compress a quiet
/// stretch at 32× the speed, few enough that a frame stays cheap in the
/// page (the busiest background, brokers retrying a dead controller, runs
/// about 1,700 positions per simulated second).
pub const MAX_POSITIONS_PER_FRAME: u32 = 400;

/// One animation frame at 60 Hz, in real ms.
pub const FRAME_MS: f64 = 1000.0 / 60.0;

/// The shortest trip, in simulated ms, that a background message must take
/// to be drawn while playing at `rate` simulated ms per real ms: one that
/// would be on the map for less than a frame only flickers (at 100× a
/// frame covers about a hundred simulated milliseconds, and most trips take
/// one or two), and each dot costs the page elements made and dropped on
/// every frame. The learner's own messages are always drawn.
pub fn shortest_drawn_trip_ms(playing: bool, rate: f64) -> u64 {
    if !playing || !rate.is_finite() || rate <= 0.0 {
        return 0;
    }
    (rate * FRAME_MS) as u64
}

/// A frame later than this (a busy or hidden page) is not caught up: the
/// clock slows rather than jumping ahead in one burst.
const MAX_FRAME_GAP_MS: f64 = 100.0;

/// How long a position in focus stays on screen at 1×, in real ms: long
/// enough to read the narration's sentence.
const DWELL_MS_AT_1X: f64 = 800.0;
const DWELL_MS_MIN: f64 = 120.0;
const DWELL_MS_MAX: f64 = 2_500.0;

/// While nothing in focus happens, the rate doubles every this many real
/// ms, up to [`RAMP_MAX`] times the speed.
const RAMP_DOUBLING_MS: f64 = 500.0;
const RAMP_MAX: f64 = 32.0;

/// The real time a position in focus is held at `speed`: shorter when the
/// learner asked for fast, longer when for slow, never a flash and never a
/// stall.
pub fn dwell_ms(speed: f64) -> f64 {
    (DWELL_MS_AT_1X / speed.max(f64::MIN_POSITIVE).sqrt()).clamp(DWELL_MS_MIN, DWELL_MS_MAX)
}

/// What a frame is doing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Showing {
    /// Simulated time runs at the speed.
    Watching,
    /// A position in focus is on screen for its dwell; the clock stands.
    Holding,
    /// Only background has run for a while, and simulated time runs faster
    /// than the speed: `skipped_ms` of it since the last position in focus,
    /// mostly `kind`.
    Skipping { skipped_ms: u64, kind: BackgroundKind },
}

/// One animation frame's result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub showing: Showing,
    /// The simulated time to draw: the time the frame reached, which runs
    /// on between events, so countdowns and messages in flight move
    /// smoothly. Never before the current position's time.
    pub display_ms: f64,
    /// Simulated ms per real ms this frame ran at.
    pub rate: f64,
    /// How many positions the session moved.
    pub positions: u32,
    /// Whether it stopped at a position in focus (and holds it from now).
    pub reached: bool,
    /// Nothing is left to do: no recorded future and no pending event.
    pub ended: bool,
}

/// Plays a session: call [`Player::frame`] once per animation frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Player {
    /// The simulated time the clock has reached.
    clock_ms: f64,
    /// Where the player left the session (timeline index, steps), to notice
    /// when something else moved it (a Step, a command, the timeline).
    left: Option<(usize, u64)>,
    /// Real ms left of the current dwell.
    hold_ms: f64,
    /// Real ms of playing (holds not counted) since the last position in
    /// focus: what the rate ramps up with.
    quiet_ms: f64,
    /// The simulated time of the last position in focus.
    focus_ms: f64,
    /// The background kinds passed since the last position in focus.
    passed: BackgroundTally,
}

impl Player {
    pub fn new() -> Self {
        Self::default()
    }

    /// Advances the clock by `elapsed_real_ms` at `speed` and steps the
    /// session through every position due by then, at most
    /// `max_positions` of them, stopping at the first position in `focus`.
    pub fn frame(&mut self, session: &mut Session, focus: Focus, speed: f64, elapsed_real_ms: f64, max_positions: u32) -> Frame {
        let here = (session.timeline_index(), session.sim().steps());
        if self.left != Some(here) {
            self.restart_at(session);
        }
        let speed = if speed.is_finite() && speed > 0.0 { speed } else { 1.0 };
        let mut real_ms = if elapsed_real_ms.is_finite() { elapsed_real_ms.clamp(0.0, MAX_FRAME_GAP_MS) } else { 0.0 };
        if self.hold_ms > 0.0 {
            if real_ms < self.hold_ms {
                self.hold_ms -= real_ms;
                return self.finish(session, Showing::Holding, 0.0, 0, false);
            }
            real_ms -= self.hold_ms;
            self.hold_ms = 0.0;
        }
        let rate = speed * ramp(self.quiet_ms);
        self.quiet_ms += real_ms;
        let target_ms = self.clock_ms + rate * real_ms;
        let mut positions = 0;
        let mut capped = false;
        let mut load_ran = false;
        while let Some(next_ms) = session.next_position_ms() {
            if next_ms as f64 > target_ms {
                break;
            }
            if positions >= max_positions {
                capped = true;
                break;
            }
            if !session.step() {
                break;
            }
            positions += 1;
            let index = session.timeline_index();
            self.clock_ms = self.clock_ms.max(session.sim().now_ms() as f64);
            if session.in_focus(index, focus) {
                // The rest of this frame's simulated time is dropped: the
                // position is shown for its whole dwell, however fast the
                // speed, and the next one cannot share its frame.
                self.hold_ms = dwell_ms(speed);
                self.quiet_ms = 0.0;
                self.focus_ms = self.clock_ms;
                self.passed = BackgroundTally::default();
                return self.finish(session, Showing::Holding, rate, positions, true);
            }
            if let Some((kind, _)) = session.background() {
                self.passed.add(kind);
                load_ran |= kind == BackgroundKind::SteadyLoad;
            }
        }
        // A load the learner started is what they watch: its stream runs at
        // the speed they chose, never sped up as a quiet stretch is.
        if load_ran {
            self.quiet_ms = 0.0;
        }
        // When the cap bites the clock stays at the last position taken, so
        // it lags instead of running ahead of what is drawn; at the end of
        // the run it stops at the last event.
        if !capped && session.can_step() {
            self.clock_ms = self.clock_ms.max(target_ms);
        }
        let showing = match self.passed.dominant() {
            Some(kind) if rate >= 2.0 * speed => {
                Showing::Skipping { skipped_ms: (self.clock_ms - self.focus_ms).max(0.0) as u64, kind }
            }
            _ => Showing::Watching,
        };
        self.finish(session, showing, rate, positions, false)
    }

    /// Starts over from where the session is now: a Step, a command or a
    /// timeline jump moved it.
    fn restart_at(&mut self, session: &Session) {
        let now = session.sim().now_ms() as f64;
        *self = Player { clock_ms: now, focus_ms: now, ..Player::default() };
    }

    fn finish(&mut self, session: &Session, showing: Showing, rate: f64, positions: u32, reached: bool) -> Frame {
        self.left = Some((session.timeline_index(), session.sim().steps()));
        Frame { showing, display_ms: self.clock_ms, rate, positions, reached, ended: !session.can_step() }
    }
}

/// How many times the speed simulated time runs after `quiet_ms` of real
/// time with nothing in focus.
fn ramp(quiet_ms: f64) -> f64 {
    (quiet_ms / RAMP_DOUBLING_MS).exp2().min(RAMP_MAX)
}
