//! The page's state, the actions a learner takes, and the reducer that turns
//! one into the other.
//!
//! The reducer is plain Rust: it moves the [`Session`] and the fields here,
//! and nothing else. Whatever touches the browser (the address bar,
//! localStorage, the document's theme and language, the clipboard) is done
//! by effects in `ui::hooks`, which watch the fields this module sets. That
//! keeps every action testable natively, and the page's state in one place.

use super::focus::Focus;
use super::follow;
use super::player::{Frame, Player};
use super::session::StepReport;
use super::i18n::{self, Lang};
use super::session::{Session, MAX_REPLAY_COMMANDS, MAX_REPLAY_STEPS};
use super::setup::{Setup, SetupError};
use super::share::{self, LinkError, ShareLink};
use crate::sim::ids::RequestId;
use crate::sim::protocol::ApiKey;
use crate::sim::load::KeyPattern;
use crate::sim::simulation::Command;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

pub use super::player::{DEFAULT_SPEED, SPEEDS};

/// How far ahead in simulated time "Next controller event" looks: longer
/// than broker.session.timeout.ms and any election, so nothing pending is
/// missed; a quiet, healthy cluster has no such events at all.
pub const NEXT_CONTROLLER_EVENT_WINDOW_MS: u64 = 60_000;

/// How many steps Next hop tries before it gives up on the request moving.
pub const NEXT_HOP_LIMIT: u32 = 20_000;

/// The dispatcher, as every component reaches it: through a context, so no
/// component needs the app's module or a callback threaded through props.
pub type Dispatch = UseReducerDispatcher<AppState>;

/// The request the learner follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Followed {
    pub request: RequestId,
    /// Its API's name, for the panel's title.
    pub api: ApiKey,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShareStatus {
    None,
    /// The link is in the address bar.
    InAddressBar,
    /// ... and on the clipboard.
    Copied,
    /// The run is longer than a link may replay.
    TooLong,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    pub fn other(self) -> Theme {
        match self {
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Light,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    pub fn from_code(code: &str) -> Option<Theme> {
        match code {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }
}

/// What the stage shows inside: one node the learner picked, or (Auto) the
/// broker the learner's own request is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Selection {
    #[default]
    Auto,
    Broker(u32),
    Controller(u32),
}

/// The panel of the action dock that is open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DockTab {
    Produce,
    /// The producers' load generators.
    Load,
    Fetch,
    Setup,
    Share,
}

/// The details below the stage, one tab at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DetailsTab {
    #[default]
    Partitions,
    Quorum,
    Alarms,
    Segments,
}

impl DetailsTab {
    pub const ALL: [DetailsTab; 4] = [DetailsTab::Partitions, DetailsTab::Quorum, DetailsTab::Alarms, DetailsTab::Segments];

    /// The English name, which is also the accessible name of its tab.
    pub fn name(self) -> &'static str {
        match self {
            DetailsTab::Partitions => "Partitions",
            DetailsTab::Quorum => "Quorum",
            DetailsTab::Alarms => "Alarms",
            DetailsTab::Segments => "Segments",
        }
    }
}

/// What the browser told the page when it opened: the address bar's
/// fragment and what localStorage and the system remember. The state is
/// built from these, so opening is as testable as any action.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Opening {
    pub fragment: Option<String>,
    pub language: Option<Lang>,
    pub theme: Option<Theme>,
    pub system_dark: bool,
    /// The learner has used the first hint on an earlier visit.
    pub hint_used: bool,
}

/// The app's state: the session lives behind a `RefCell` so a step mutates it
/// in place instead of cloning the whole history; `version` tells Yew that
/// something changed.
#[derive(Clone)]
pub struct AppState {
    pub session: Rc<RefCell<Session>>,
    /// The setup the session was started from.
    pub setup: Setup,
    /// Counts the sessions started, so forms keyed by it start afresh.
    pub generation: u64,
    pub version: u64,
    pub error: Option<String>,
    /// The last refused setup and why (shown next to the Setup form).
    pub setup_error: Option<SetupError>,
    /// A share link that could not be opened.
    pub link_error: Option<LinkError>,
    pub share: ShareStatus,
    /// What the address bar's fragment should hold (without `#`); empty for
    /// none. An effect writes it; a link the page opened is already there.
    pub fragment: String,
    pub followed: Option<Followed>,
    /// Next hop ran out of steps without the request moving.
    pub follow_stalled: bool,
    pub playing: bool,
    /// An index into [`SPEEDS`] (simulated time per real second).
    pub speed: usize,
    pub lang: Lang,
    /// The theme the learner chose on this browser; None follows the system.
    pub theme_choice: Option<Theme>,
    pub system_dark: bool,
    pub selected: Selection,
    /// The open panel of the action dock; None when folded away.
    pub dock: Option<DockTab>,
    pub details: DetailsTab,
    /// Counts the times the learner asked to see the details, so an effect
    /// scrolls them into view each time.
    pub details_jumps: u64,
    /// The first hint has done its job: the learner produced, stepped,
    /// played or acted on a node.
    pub hint_used: bool,
    /// What Step, Step back, Play and the narration follow.
    pub focus: Focus,
    pub player: Player,
    /// The last frame of play: what it showed and the clock it reached.
    /// None when the last action was not a frame of play.
    pub frame: Option<Frame>,
    /// What the last Step passed over, or that nothing in focus came.
    pub last_step: Option<StepReport>,
}

impl AppState {
    /// The state a page opens with: the share link in the address bar if
    /// there is one, else the default cluster. A link that cannot be opened
    /// leaves the default cluster and says why.
    pub fn opening(opening: Opening) -> Self {
        let mut state = Self {
            session: Rc::new(RefCell::new(Session::default())),
            setup: Setup::default(),
            generation: 0,
            version: 0,
            error: None,
            setup_error: None,
            link_error: None,
            share: ShareStatus::None,
            fragment: String::new(),
            followed: None,
            follow_stalled: false,
            playing: false,
            speed: DEFAULT_SPEED,
            lang: opening.language.unwrap_or_default(),
            theme_choice: opening.theme,
            system_dark: opening.system_dark,
            selected: Selection::Auto,
            dock: Some(DockTab::Produce),
            details: DetailsTab::default(),
            details_jumps: 0,
            hint_used: opening.hint_used,
            focus: Focus::default(),
            player: Player::default(),
            frame: None,
            last_step: None,
        };
        if let Some(f) = opening.fragment.filter(|f| share::is_link(f)) {
            let (session, setup, link_error, fragment) = open_link(&f);
            if let Some(session) = session {
                state.session = Rc::new(RefCell::new(session));
                state.setup = setup;
            }
            state.link_error = link_error;
            state.fragment = fragment;
        }
        state
    }

    /// The simulated time to draw: while playing, the clock the player
    /// reached (it runs on between events); otherwise the position's.
    pub fn display_ms(&self) -> f64 {
        let now = self.session.borrow().sim().now_ms() as f64;
        self.frame.map_or(now, |f| f.display_ms.max(now))
    }

    /// The theme drawn.
    pub fn theme(&self) -> Theme {
        self.theme_choice.unwrap_or(if self.system_dark { Theme::Dark } else { Theme::Light })
    }

    /// Replaces the session with a fresh one: everything tied to the old run
    /// (the followed request, errors, the share status, a picked node that
    /// may not exist any more) goes with it.
    fn start_session(&mut self, session: Session, setup: Setup) {
        self.session = Rc::new(RefCell::new(session));
        self.setup = setup;
        self.generation += 1;
        self.setup_error = None;
        self.share = ShareStatus::None;
        self.followed = None;
        self.follow_stalled = false;
        self.playing = false;
        self.selected = Selection::Auto;
    }
}

/// Opens a share link: the session it replays (None when it cannot be
/// opened), its setup, why it failed, and the fragment as the page keeps it.
fn open_link(fragment: &str) -> (Option<Session>, Setup, Option<LinkError>, String) {
    let kept = fragment.trim_start_matches('#').to_string();
    match ShareLink::decode(fragment).and_then(|link| link.open().map(|s| (s, link.setup))) {
        Ok((session, setup)) => (Some(session), setup, None, kept),
        Err(e) => (None, Setup::default(), Some(e), kept),
    }
}

impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
    }
}

pub enum Action {
    Step,
    StepBack,
    Play,
    Pause,
    TogglePlay,
    SetSpeed(usize),
    /// One animation frame of play, `elapsed_ms` real milliseconds after
    /// the last one, taking at most `max_positions` positions.
    Frame { elapsed_ms: f64, max_positions: u32 },
    GoTo(usize),
    ToggleLanguage,
    ToggleTheme,
    /// The system's colour scheme changed (true: dark).
    SchemeChanged(bool),
    Produce { topic: String, key: String, value: String, headers: Vec<(String, String)>, acks: i16 },
    /// Start the load generator of the producer with these acks (in place
    /// of one it runs).
    StartLoad { topic: String, records_per_sec: u32, keys: KeyPattern, value_bytes: u32, acks: i16 },
    /// Stop the load generator of producer client `client`.
    StopLoad { client: u32 },
    /// A fetch by consumer `consumer` (0-based, of the setup's consumers).
    Fetch { consumer: u32, topic: String, partition: u32, offset: Option<i64>, min_bytes: i32, max_wait_ms: i32 },
    ShowError(String),
    /// Open this panel of the action dock, or fold it away when it is open.
    ToggleDock(DockTab),
    /// Start a fresh session with this setup, if the simulation takes it.
    ApplySetup(Setup),
    /// The form could not even read its fields.
    RejectSetup(SetupError),
    /// Put the share link in the address bar.
    ShareLink,
    /// The clipboard took the link too.
    ShareCopied,
    /// The address bar's fragment changed to this (a pasted link).
    OpenFragment(String),
    Follow(Followed),
    Unfollow,
    NextHop,
    /// Kill, restart, shut down or isolate a node, or heal the network: it
    /// runs at once.
    Fault(Command),
    /// Step until the control plane does something a learner would watch.
    NextControllerEvent,
    /// Show the state right after this simulation step (an alarm's cause).
    JumpToStep(u64),
    /// Pick what the stage shows inside.
    Select(Selection),
    /// Show a tab of the details (and scroll to it when `jump`).
    ShowDetails { tab: DetailsTab, jump: bool },
    /// Choose what Step and the narration follow.
    SetFocus(Focus),
}

impl Action {
    /// Does this action use what the first hint suggests?
    fn uses_the_hint(&self) -> bool {
        matches!(
            self,
            Action::Step | Action::Play | Action::TogglePlay | Action::Produce { .. } | Action::Fault(_) | Action::Select(_)
        )
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.version += 1;
        next.error = None;
        if !matches!(action, Action::Frame { .. }) {
            next.frame = None;
        }
        if !matches!(action, Action::Step) {
            next.last_step = None;
        }
        if action.uses_the_hint() {
            next.hint_used = true;
        }
        if let Err(e) = next.apply(action) {
            next.error = Some(e);
        }
        Rc::new(next)
    }
}

impl AppState {
    fn apply(&mut self, action: Action) -> Result<(), String> {
        match action {
            Action::Step => {
                self.playing = false;
                self.last_step = Some(self.session.borrow_mut().step_focus(self.focus));
            }
            Action::StepBack => {
                self.playing = false;
                self.session.borrow_mut().step_back_focus(self.focus);
            }
            Action::Play => self.playing = self.session.borrow().can_step(),
            Action::Pause => self.playing = false,
            Action::TogglePlay => self.playing = !self.playing && self.session.borrow().can_step(),
            Action::SetFocus(focus) => self.focus = focus,
            Action::SetSpeed(s) => self.speed = s.min(SPEEDS.len() - 1),
            Action::Frame { elapsed_ms, max_positions } => {
                if self.playing {
                    let speed = SPEEDS[self.speed];
                    let frame = self.player.frame(&mut self.session.borrow_mut(), self.focus, speed, elapsed_ms, max_positions);
                    if frame.ended {
                        self.playing = false;
                    }
                    self.frame = Some(frame);
                }
            }
            Action::ToggleLanguage => self.lang = self.lang.other(),
            Action::ToggleTheme => self.theme_choice = Some(self.theme().other()),
            Action::SchemeChanged(dark) => self.system_dark = dark,
            Action::GoTo(index) => {
                self.playing = false;
                self.session.borrow_mut().go_to(index);
            }
            Action::Produce { topic, key, value, headers, acks } => {
                let command = Command::Produce {
                    client: self.setup.producer_for_acks(acks),
                    topic,
                    // An empty field means no key: Kafka's null key.
                    key: (!key.is_empty()).then_some(key),
                    value: Some(value),
                    headers,
                    partition: None,
                    timestamp_ms: None,
                };
                self.session.borrow_mut().command(command).map_err(|e| i18n::command_error(self.lang, &e))?;
            }
            // A load starts (or stops) at once, as a fault does: its line
            // and the narration show it without a Step first.
            Action::StartLoad { topic, records_per_sec, keys, value_bytes, acks } => {
                let client = self.setup.producer_for_acks(acks);
                let command = Command::StartLoad { client, topic, records_per_sec, keys, value_bytes };
                self.session.borrow_mut().command_now(command).map_err(|e| i18n::command_error(self.lang, &e))?;
            }
            Action::StopLoad { client } => {
                let command = Command::StopLoad { client };
                self.session.borrow_mut().command_now(command).map_err(|e| i18n::command_error(self.lang, &e))?;
            }
            Action::Fetch { consumer, topic, partition, offset, min_bytes, max_wait_ms } => {
                let command = Command::Fetch {
                    client: self.setup.consumer(consumer),
                    topic,
                    partition,
                    offset,
                    min_bytes: Some(min_bytes),
                    max_wait_ms: Some(max_wait_ms),
                };
                self.session.borrow_mut().command(command).map_err(|e| i18n::command_error(self.lang, &e))?;
            }
            Action::ShowError(message) => return Err(message),
            Action::ToggleDock(tab) => self.dock = if self.dock == Some(tab) { None } else { Some(tab) },
            Action::ApplySetup(setup) => match setup.start() {
                Ok(session) => {
                    self.start_session(session, setup);
                    self.link_error = None;
                    self.fragment.clear();
                }
                Err(e) => self.setup_error = Some(e),
            },
            Action::RejectSetup(e) => self.setup_error = Some(e),
            Action::ShareLink => {
                let link = ShareLink::of(&self.setup, &self.session.borrow());
                if link.end_step > MAX_REPLAY_STEPS || link.actions.len() > MAX_REPLAY_COMMANDS {
                    self.share = ShareStatus::TooLong;
                } else {
                    self.fragment = link.encode();
                    self.share = ShareStatus::InAddressBar;
                }
            }
            Action::ShareCopied => {
                if self.share == ShareStatus::InAddressBar {
                    self.share = ShareStatus::Copied;
                }
            }
            Action::OpenFragment(f) => {
                let f = f.trim_start_matches('#').to_string();
                if share::is_link(&f) && f != self.fragment {
                    let (session, setup, link_error, fragment) = open_link(&f);
                    let session = session.unwrap_or_default();
                    self.start_session(session, setup);
                    self.link_error = link_error;
                    self.fragment = fragment;
                }
            }
            Action::Follow(f) => {
                self.followed = Some(f);
                self.follow_stalled = false;
            }
            Action::Unfollow => {
                self.followed = None;
                self.follow_stalled = false;
            }
            Action::NextControllerEvent => {
                self.playing = false;
                let found =
                    self.session.borrow_mut().seek(NEXT_CONTROLLER_EVENT_WINDOW_MS, |e| e.kind.is_controller_event());
                if !found {
                    return Err(self.lang.texts().no_controller_event.to_string());
                }
            }
            Action::JumpToStep(step) => {
                self.playing = false;
                let index = self.session.borrow().position_of_step(step);
                if let Some(index) = index {
                    self.session.borrow_mut().go_to(index);
                }
            }
            Action::Fault(command) => {
                self.playing = false;
                self.session.borrow_mut().command_now(command).map_err(|e| i18n::command_error(self.lang, &e))?;
            }
            Action::NextHop => {
                self.playing = false;
                if let Some(f) = &self.followed {
                    let id = f.request;
                    let (_, moved) =
                        self.session.borrow_mut().step_until(NEXT_HOP_LIMIT, |events| follow::moved(events, id));
                    self.follow_stalled = !moved;
                }
            }
            Action::Select(selection) => self.selected = selection,
            Action::ShowDetails { tab, jump } => {
                self.details = tab;
                if jump {
                    self.details_jumps += 1;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduce(state: Rc<AppState>, action: Action) -> Rc<AppState> {
        state.reduce(action)
    }

    fn fresh() -> Rc<AppState> {
        Rc::new(AppState::opening(Opening::default()))
    }

    #[test]
    fn the_page_opens_on_the_booted_default_cluster_with_the_produce_panel_open() {
        let s = fresh();
        assert_eq!(s.dock, Some(DockTab::Produce));
        assert_eq!(s.selected, Selection::Auto);
        assert!(!s.hint_used);
        assert!(s.session.borrow().view().quorum.unwrap().active.is_some());
        assert_eq!(s.theme(), Theme::Light);
        let dark = AppState::opening(Opening { system_dark: true, ..Opening::default() });
        assert_eq!(dark.theme(), Theme::Dark);
        let chosen = AppState::opening(Opening { system_dark: true, theme: Some(Theme::Light), ..Opening::default() });
        assert_eq!(chosen.theme(), Theme::Light);
    }

    #[test]
    fn the_theme_toggle_chooses_the_other_of_what_is_drawn() {
        let s = reduce(Rc::new(AppState::opening(Opening { system_dark: true, ..Opening::default() })), Action::ToggleTheme);
        assert_eq!(s.theme_choice, Some(Theme::Light));
        // A system change no longer matters once the learner chose.
        let s = reduce(s, Action::SchemeChanged(false));
        assert_eq!(s.theme(), Theme::Light);
    }

    #[test]
    fn producing_uses_the_hint_and_a_refused_command_keeps_the_state_and_says_why() {
        let s = fresh();
        let steps = s.session.borrow().sim().steps();
        let produce = |topic: &str| Action::Produce {
            topic: topic.into(),
            key: "k".into(),
            value: "v".into(),
            headers: vec![],
            acks: -1,
        };
        let refused = reduce(s.clone(), produce("no-such-topic"));
        assert_eq!(
            refused.error.as_deref(),
            Some("There is no topic named \"no-such-topic\" (UNKNOWN_TOPIC_OR_PARTITION).")
        );
        assert_eq!(refused.session.borrow().sim().steps(), steps);
        // In Korean the refusal is Korean, not the simulation's English.
        let korean = reduce(reduce(s.clone(), Action::ToggleLanguage), produce("no-such-topic"));
        assert_eq!(
            korean.error.as_deref(),
            Some("\"no-such-topic\" 이름의 토픽은 없습니다(UNKNOWN_TOPIC_OR_PARTITION).")
        );
        let s = reduce(refused, produce("orders"));
        assert!(s.error.is_none());
        assert!(s.hint_used);
        assert_eq!(s.session.borrow().commands().len(), 1);
    }

    #[test]
    fn a_share_link_goes_to_the_fragment_and_a_new_setup_clears_it() {
        let s = reduce(fresh(), Action::Step);
        let s = reduce(s, Action::ShareLink);
        assert_eq!(s.share, ShareStatus::InAddressBar);
        assert!(share::is_link(&s.fragment));
        // Opening the same fragment again (the page's own write coming back
        // as a hashchange) starts nothing new.
        let generation = s.generation;
        let again = reduce(s.clone(), Action::OpenFragment(format!("#{}", s.fragment)));
        assert_eq!(again.generation, generation);
        let s = reduce(again, Action::ApplySetup(Setup::default()));
        assert!(s.fragment.is_empty());
        assert_eq!(s.share, ShareStatus::None);
    }

    #[test]
    fn a_broken_link_opens_the_default_cluster_and_says_why() {
        let s = AppState::opening(Opening { fragment: Some("#s=not-base64!".into()), ..Opening::default() });
        assert!(s.link_error.is_some());
        assert!(s.session.borrow().view().partitions.iter().all(|p| p.leader.is_some()));
    }

    #[test]
    fn the_dock_folds_and_opens_and_the_details_jump_counts() {
        let s = reduce(fresh(), Action::ToggleDock(DockTab::Produce));
        assert_eq!(s.dock, None);
        let s = reduce(s, Action::ToggleDock(DockTab::Setup));
        assert_eq!(s.dock, Some(DockTab::Setup));
        let s = reduce(s, Action::ShowDetails { tab: DetailsTab::Alarms, jump: true });
        assert_eq!((s.details, s.details_jumps), (DetailsTab::Alarms, 1));
        let s = reduce(s, Action::ShowDetails { tab: DetailsTab::Quorum, jump: false });
        assert_eq!((s.details, s.details_jumps), (DetailsTab::Quorum, 1));
    }

    #[test]
    fn a_new_setup_forgets_the_picked_node() {
        let s = reduce(fresh(), Action::Select(Selection::Broker(2)));
        assert_eq!(s.selected, Selection::Broker(2));
        let s = reduce(s, Action::ApplySetup(Setup::default()));
        assert_eq!(s.selected, Selection::Auto);
    }
}
