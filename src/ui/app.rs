//! The components. They draw the simulation's view model and narrate its
//! trace; every change goes through [`Action`] and the [`Session`].

use super::follow;
use super::i18n::{self, Lang};
use super::session::{Session, MAX_REPLAY_COMMANDS, MAX_REPLAY_STEPS};
use super::setup::{Setup, SetupError};
use super::share::{self, LinkError, ShareLink};
use crate::sim::client::producer::RecordState;
use crate::sim::ids::{NodeId, RequestId};
use crate::sim::protocol::ApiKey;
use crate::sim::simulation::Command;
use crate::sim::trace::{Direction, Stage as SimStage};
use crate::sim::view::{BrokerStatus, BrokerView, ClusterView, ConsumerView, PartitionView, ProducerView, Token};
use std::cell::RefCell;
use crate::sim::collections::BTreeSet;
use std::rc::Rc;
use yew::prelude::*;

/// The app's state: the session lives behind a `RefCell` so a step mutates it
/// in place instead of cloning the whole history; `version` tells Yew that
/// something changed.
#[derive(Clone)]
pub struct AppState {
    session: Rc<RefCell<Session>>,
    /// The setup the session was started from.
    setup: Setup,
    /// Counts the sessions started, so forms keyed by it start afresh.
    generation: u64,
    version: u64,
    error: Option<String>,
    /// The last refused setup and why (shown next to the Setup form).
    setup_error: Option<(SetupError, Option<Setup>)>,
    setup_open: bool,
    /// A share link that could not be opened.
    link_error: Option<LinkError>,
    share: ShareStatus,
    /// The fragment this page wrote last, so its own writes are not
    /// mistaken for a new link.
    fragment: String,
    followed: Option<Followed>,
    /// Next hop ran out of steps without the request moving.
    follow_stalled: bool,
    playing: bool,
    /// An index into [`SPEEDS`].
    speed: usize,
    lang: Lang,
    /// The theme drawn, read from the page when it can change (a toggle or
    /// the system's scheme) rather than on every render.
    theme: Theme,
}

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

impl AppState {
    /// The state a page opens with: the share link in the address bar if
    /// there is one, else the default cluster. A link that cannot be opened
    /// leaves the default cluster and says why.
    fn opening(fragment: Option<String>) -> Self {
        let mut state = Self {
            session: Rc::new(RefCell::new(Session::default())),
            setup: Setup::default(),
            generation: 0,
            version: 0,
            error: None,
            setup_error: None,
            setup_open: false,
            link_error: None,
            share: ShareStatus::None,
            fragment: String::new(),
            followed: None,
            follow_stalled: false,
            playing: false,
            speed: 4,
            lang: saved_language().unwrap_or_default(),
            theme: current_theme(),
        };
        if let Some(f) = fragment.filter(|f| share::is_link(f)) {
            state.fragment = f.trim_start_matches('#').to_string();
            match ShareLink::decode(&f).and_then(|link| link.open().map(|s| (s, link.setup))) {
                Ok((session, setup)) => {
                    state.session = Rc::new(RefCell::new(session));
                    state.setup = setup;
                }
                Err(e) => state.link_error = Some(e),
            }
        }
        state
    }
}

impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version && self.error == other.error
    }
}

impl Default for AppState {
    fn default() -> Self {
        Self::opening(current_fragment())
    }
}

/// Steps per second while playing, on a log scale: each notch is about
/// 1.8 times the one before.
pub const SPEEDS: [u32; 13] = [1, 2, 3, 6, 10, 18, 32, 56, 100, 178, 316, 562, 1000];

/// How far ahead in simulated time "Next controller event" looks: longer
/// than broker.session.timeout.ms and any election, so nothing pending is
/// missed; a quiet, healthy cluster has no such events at all.
pub const NEXT_CONTROLLER_EVENT_WINDOW_MS: u64 = 60_000;

/// How many steps Next hop tries before it gives up on the request moving.
pub const NEXT_HOP_LIMIT: u32 = 20_000;

/// Paces play by animation frames: each frame takes the steps the speed
/// owes for the time since the last one, carrying fractions over, so the
/// page renders at most once per frame and always at its start.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pacer {
    carry: f64,
}

/// A frame later than this (a busy or hidden page) is not caught up: the
/// simulation slows rather than jumping ahead in one burst.
const MAX_FRAME_GAP_MS: f64 = 100.0;

impl Pacer {
    pub fn steps_for(&mut self, steps_per_second: u32, elapsed_ms: f64) -> u32 {
        let due = self.carry + f64::from(steps_per_second) * elapsed_ms.clamp(0.0, MAX_FRAME_GAP_MS) / 1000.0;
        let steps = due.floor();
        self.carry = due - steps;
        steps as u32
    }
}

/// A requestAnimationFrame loop that hands each frame's owed steps to
/// `on_steps`; dropping it cancels the next frame and frees the callback.
struct FrameLoop {
    handle: Rc<std::cell::Cell<i32>>,
    callback: Rc<RefCell<Option<wasm_bindgen::closure::Closure<dyn FnMut(f64)>>>>,
}

impl FrameLoop {
    fn start(steps_per_second: u32, on_steps: impl Fn(u32) + 'static) -> Option<Self> {
        use wasm_bindgen::JsCast;
        let window = web_sys::window()?;
        let handle = Rc::new(std::cell::Cell::new(0));
        let callback: Rc<RefCell<Option<wasm_bindgen::closure::Closure<dyn FnMut(f64)>>>> = Rc::new(RefCell::new(None));
        let (next, me) = (handle.clone(), callback.clone());
        let (mut pacer, mut last) = (Pacer::default(), None::<f64>);
        let frame_window = window.clone();
        *callback.borrow_mut() = Some(wasm_bindgen::closure::Closure::new(move |now: f64| {
            let steps = last.map_or(0, |l| pacer.steps_for(steps_per_second, now - l));
            last = Some(now);
            if steps > 0 {
                on_steps(steps);
            }
            if let Some(f) = me.borrow().as_ref() {
                next.set(frame_window.request_animation_frame(f.as_ref().unchecked_ref()).unwrap_or(0));
            }
        }));
        let first = callback.borrow().as_ref().map(|f| window.request_animation_frame(f.as_ref().unchecked_ref()));
        handle.set(first.and_then(Result::ok).unwrap_or(0));
        Some(FrameLoop { handle, callback })
    }
}

impl Drop for FrameLoop {
    fn drop(&mut self) {
        if let Some(w) = web_sys::window() {
            let _ = w.cancel_animation_frame(self.handle.get());
        }
        // Breaks the closure's reference to itself.
        self.callback.borrow_mut().take();
    }
}

pub enum Action {
    Step,
    StepBack,
    Play,
    Pause,
    TogglePlay,
    SetSpeed(usize),
    /// One animation frame of play: take this many steps.
    Tick(u32),
    GoTo(usize),
    ToggleLanguage,
    ToggleTheme,
    /// The system's colour scheme changed: draw again.
    SchemeChanged,
    Produce { topic: String, key: String, value: String, headers: Vec<(String, String)>, acks: i16 },
    /// A fetch by consumer `consumer` (0-based, of the setup's consumers).
    Fetch { consumer: u32, topic: String, partition: u32, offset: Option<i64>, min_bytes: i32, max_wait_ms: i32 },
    ShowError(String),
    ToggleSetup,
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
    /// Kill or restart a broker or a controller: it runs at once.
    Fault(Command),
    /// Step until the control plane does something a learner would watch.
    NextControllerEvent,
    /// Show the state right after this simulation step (an alarm's cause).
    JumpToStep(u64),
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        next.version += 1;
        next.error = None;
        let result: Result<(), String> = match action {
            Action::Step => {
                next.session.borrow_mut().step();
                Ok(())
            }
            Action::StepBack => {
                next.playing = false;
                next.session.borrow_mut().step_back();
                Ok(())
            }
            Action::Play => {
                next.playing = true;
                Ok(())
            }
            Action::Pause => {
                next.playing = false;
                Ok(())
            }
            Action::TogglePlay => {
                next.playing = !next.playing;
                Ok(())
            }
            Action::SetSpeed(s) => {
                next.speed = s.min(SPEEDS.len() - 1);
                Ok(())
            }
            Action::Tick(steps) => {
                if next.playing {
                    if next.session.borrow_mut().step_many(steps) == 0 {
                        next.playing = false;
                    }
                }
                Ok(())
            }
            Action::ToggleLanguage => {
                next.lang = next.lang.other();
                save_language(next.lang);
                Ok(())
            }
            Action::ToggleTheme => {
                toggle_theme();
                next.theme = current_theme();
                Ok(())
            }
            Action::SchemeChanged => {
                next.theme = current_theme();
                Ok(())
            }
            Action::GoTo(index) => {
                next.playing = false;
                next.session.borrow_mut().go_to(index);
                Ok(())
            }
            Action::Produce { topic, key, value, headers, acks } => next
                .session
                .borrow_mut()
                .command(Command::Produce {
                    client: next.setup.producer_for_acks(acks),
                    topic,
                    // An empty field means no key: Kafka's null key.
                    key: (!key.is_empty()).then_some(key),
                    value: Some(value),
                    headers,
                    partition: None,
                    timestamp_ms: None,
                })
                .map_err(|e| e.to_string()),
            Action::Fetch { consumer, topic, partition, offset, min_bytes, max_wait_ms } => next
                .session
                .borrow_mut()
                .command(Command::Fetch {
                    client: next.setup.consumer(consumer),
                    topic,
                    partition,
                    offset,
                    min_bytes: Some(min_bytes),
                    max_wait_ms: Some(max_wait_ms),
                })
                .map_err(|e| e.to_string()),
            Action::ShowError(message) => Err(message),
            Action::ToggleSetup => {
                next.setup_open = !next.setup_open;
                Ok(())
            }
            Action::ApplySetup(setup) => {
                match setup.start() {
                    Ok(session) => {
                        next.start_session(session, setup);
                        next.link_error = None;
                        next.fragment.clear();
                        clear_fragment();
                    }
                    Err(e) => next.setup_error = Some((e, Some(setup))),
                }
                Ok(())
            }
            Action::RejectSetup(e) => {
                next.setup_error = Some((e, None));
                Ok(())
            }
            Action::ShareLink => {
                let link = ShareLink::of(&next.setup, &next.session.borrow());
                if link.end_step > MAX_REPLAY_STEPS || link.actions.len() > MAX_REPLAY_COMMANDS {
                    next.share = ShareStatus::TooLong;
                } else {
                    let fragment = link.encode();
                    write_fragment(&fragment);
                    next.fragment = fragment;
                    next.share = ShareStatus::InAddressBar;
                }
                Ok(())
            }
            Action::ShareCopied if next.share == ShareStatus::TooLong => Ok(()),
            Action::ShareCopied => {
                next.share = ShareStatus::Copied;
                Ok(())
            }
            Action::OpenFragment(f) => {
                let f = f.trim_start_matches('#').to_string();
                if share::is_link(&f) && f != next.fragment {
                    let AppState { session, setup, link_error, fragment, .. } = Self::opening(Some(f));
                    let session = Rc::try_unwrap(session).map(RefCell::into_inner).unwrap_or_else(|rc| rc.borrow().clone());
                    next.start_session(session, setup);
                    next.link_error = link_error;
                    next.fragment = fragment;
                }
                Ok(())
            }
            Action::Follow(f) => {
                next.followed = Some(f);
                next.follow_stalled = false;
                Ok(())
            }
            Action::Unfollow => {
                next.followed = None;
                next.follow_stalled = false;
                Ok(())
            }
            Action::NextControllerEvent => {
                next.playing = false;
                let found = next.session.borrow_mut().seek(NEXT_CONTROLLER_EVENT_WINDOW_MS, |e| e.kind.is_controller_event());
                if found {
                    Ok(())
                } else {
                    Err(next.lang.texts().no_controller_event.to_string())
                }
            }
            Action::JumpToStep(step) => {
                next.playing = false;
                let index = next.session.borrow().position_of_step(step);
                if let Some(index) = index {
                    next.session.borrow_mut().go_to(index);
                }
                Ok(())
            }
            Action::Fault(command) => {
                next.playing = false;
                next.session.borrow_mut().command_now(command).map_err(|e| e.to_string())
            }
            Action::NextHop => {
                next.playing = false;
                if let Some(f) = &next.followed {
                    let id = f.request;
                    let (_, moved) = next.session.borrow_mut().step_until(NEXT_HOP_LIMIT, |events| follow::moved(events, id));
                    next.follow_stalled = !moved;
                }
                Ok(())
            }
        };
        if let Err(e) = result {
            next.error = Some(e);
        }
        Rc::new(next)
    }
}

impl AppState {
    /// Replaces the session with a fresh one: everything tied to the old run
    /// (the followed request, errors, the share status) goes with it.
    fn start_session(&mut self, session: Session, setup: Setup) {
        self.session = Rc::new(RefCell::new(session));
        self.setup = setup;
        self.generation += 1;
        self.setup_error = None;
        self.share = ShareStatus::None;
        self.followed = None;
        self.follow_stalled = false;
        self.playing = false;
    }
}

/// What the follow highlighting needs everywhere a token is drawn.
#[derive(Clone, PartialEq)]
pub struct FollowContext {
    pub followed: Option<RequestId>,
    /// Follower fetches that released the followed produce from purgatory.
    pub releasers: Rc<Vec<RequestId>>,
    pub on_follow: Callback<Followed>,
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(AppState::default);
    // Callbacks handed to child components stay the same object from render
    // to render, so a child whose other props did not change is not drawn
    // again: while playing, that is most of the page on most frames.
    let on_fault = use_dispatch(&state, Action::Fault);
    let on_follow = use_dispatch(&state, Action::Follow);
    let on_jump = use_dispatch(&state, Action::JumpToStep);
    let session = state.session.borrow();
    // One view per render, shared by every component that draws it.
    let view = Rc::new(session.view());
    let violations = session.violations().to_vec();
    let lang = state.lang;
    let t = lang.texts();
    let narration: Vec<String> = session.last_step_trace().iter().map(|e| narrate_in(lang, e)).collect();
    // Past the memory budget the session takes no new steps (ui::memory).
    let memory_full = super::memory::over_budget();
    let can_step = session.sim().has_pending() && !memory_full;
    let can_step_back = session.can_step_back();
    let (timeline_len, timeline_index) = (session.timeline_len(), session.timeline_index());
    // Following: the request's own events, its stages on each broker, and
    // what released it from purgatory.
    let followed = state.followed.clone();
    let follow_data = followed.as_ref().map(|f| {
        let trace = session.sim().trace();
        let lines: Vec<String> = follow::events_of(trace, f.request)
            .into_iter()
            .map(|e| i18n::hop_line(lang, e.step, e.time_ms, &e.node.to_string(), &narrate_in(lang, e)))
            .collect();
        (lines, follow::visited(trace, f.request), follow::release(trace, f.request), follow::finished(trace, f.request))
    });
    drop(session);
    let visited = follow_data.as_ref().map(|d| d.1.clone()).unwrap_or_default();
    let release = follow_data.as_ref().and_then(|d| d.2.clone());

    // Play: an animation-frame loop dispatches the steps each frame owes;
    // it is dropped (stopped) when playing stops or the speed changes.
    {
        let state = state.clone();
        use_effect_with((state.playing, state.speed), move |(playing, speed)| {
            let frames = playing.then(|| FrameLoop::start(SPEEDS[*speed], move |steps| state.dispatch(Action::Tick(steps))));
            move || drop(frames)
        });
    }
    // Keyboard: Space plays or pauses, → steps, ← steps back; playing stops
    // by itself when the page is hidden; a link pasted into the address bar
    // opens.
    {
        let state = state.clone();
        use_effect_with((), move |_| {
            // The dispatcher, not the handle: a handle keeps the state it
            // was cloned from alive, and with it that state's session for
            // as long as the page lives, after any new setup.
            let listeners = install_global_listeners(state.dispatcher());
            move || drop(listeners)
        });
    }

    let on_step = {
        let state = state.clone();
        Callback::from(move |_| state.dispatch(Action::Step))
    };
    let on_step_back = {
        let state = state.clone();
        Callback::from(move |_| state.dispatch(Action::StepBack))
    };
    let on_share = {
        let state = state.clone();
        Callback::from(move |_| {
            state.dispatch(Action::ShareLink);
            let copied = state.clone();
            copy_address_to_clipboard(move || copied.dispatch(Action::ShareCopied));
        })
    };
    let follow_context = FollowContext {
        followed: followed.as_ref().map(|f| f.request),
        releasers: Rc::new(release.as_ref().map(|r| r.fetches.clone()).unwrap_or_default()),
        on_follow,
    };
    let topics: Vec<(String, u32)> = state.setup.topics.iter().map(|t| (t.name.clone(), t.partitions)).collect();
    let theme_label = match state.theme {
        Theme::Dark => t.theme_light,
        Theme::Light => t.theme_dark,
    };
    let generation = state.generation;

    html! {
        <ContextProvider<Lang> context={lang}>
        <ContextProvider<FollowContext> context={follow_context}>
        <ContextProvider<super::why::ViewContext> context={super::Shared(view.clone())}>
        <div class={classes!("app", state.playing.then_some("playing"))} lang={lang.code()}>
            <header class="app-header">
                <div class="title-row">
                    <h1>{ "KafkaScope" }</h1>
                    <div class="header-buttons">
                        <button class="theme" onclick={dispatcher(&state, || Action::ToggleTheme)}
                            aria-label="Theme">{ theme_label }</button>
                        <button class="language" onclick={dispatcher(&state, || Action::ToggleLanguage)}
                            aria-label="Language" title="English / 한국어">{ t.switch_language }</button>
                    </div>
                </div>
                <p class="tagline">{ t.tagline }</p>
            </header>
            if let Some(e) = &state.link_error {
                <p class="error link-error" role="alert">
                    { format!("{}: {}. {}", t.link_error_intro, i18n::link_error(lang, e), t.link_error_fallback) }
                </p>
            }
            <main>
                <super::setup_form::SetupPanel key={format!("setup-{generation}")} dispatcher={state.dispatcher()}
                    setup={state.setup.clone()} open={state.setup_open} error={state.setup_error.clone()} />
                <section class="controls" aria-label="Controls">
                    <ProduceForm key={format!("produce-{generation}")} dispatcher={state.dispatcher()} topics={topics.clone()} acks={state.setup.acks} />
                    <FetchForm key={format!("fetch-{generation}")} dispatcher={state.dispatcher()} topics={topics.clone()} consumers={state.setup.consumers} />
                    <div class="step-controls" role="group" aria-label="Stepping">
                        <button onclick={on_step_back} disabled={!can_step_back} aria-label="Step back" title="Step back (←)">{ t.step_back }</button>
                        <button onclick={on_step} disabled={!can_step} aria-label="Step" title="Step (→)">{ t.step }</button>
                        if state.playing {
                            <button onclick={dispatcher(&state, || Action::Pause)} aria-label="Pause" title="Pause (Space)">{ t.pause }</button>
                        } else {
                            <button onclick={dispatcher(&state, || Action::Play)} disabled={!can_step} aria-label="Play" title="Play (Space)">{ t.play }</button>
                        }
                        if view.quorum.is_some() {
                            <button class="secondary" onclick={dispatcher(&state, || Action::NextControllerEvent)} disabled={!can_step}
                                aria-label="Next controller event" title={t.next_controller_event_hint}>{ t.next_controller_event }</button>
                        }
                        <span class="speed">
                            <label for="speed">{ t.speed }</label>
                            <input id="speed" type="range" min="0" max={(SPEEDS.len() - 1).to_string()} value={state.speed.to_string()}
                                aria-valuetext={format!("{} steps per second", SPEEDS[state.speed])}
                                oninput={speed_input(&state)} />
                            <span class="speed-value">{ format!("{}{}", SPEEDS[state.speed], t.per_second) }</span>
                        </span>
                        <span class="clock" aria-label={format!("step {} · {} ms", view.step, view.time_ms)}>{ format!("{} {} · {} ms", t.step_word, view.step, view.time_ms) }</span>
                    </div>
                    <div class="timeline" role="group" aria-label="Timeline">
                        <label for="timeline">{ t.timeline }</label>
                        <input id="timeline" type="range" min="0" max={(timeline_len - 1).to_string()} value={timeline_index.to_string()}
                            oninput={timeline_input(&state)} />
                        <span class="timeline-value">{ format!("{} / {}", timeline_index, timeline_len - 1) }</span>
                    </div>
                    <div class="share" role="group" aria-label="Share">
                        <button class="secondary" onclick={on_share} aria-label="Copy share link">{ t.copy_share_link }</button>
                        <span class="share-status" role="status">{ match state.share {
                            ShareStatus::None => "",
                            ShareStatus::InAddressBar => t.link_in_address_bar,
                            ShareStatus::Copied => t.link_copied,
                            ShareStatus::TooLong => t.link_too_long,
                        } }</span>
                    </div>
                    if let Some(error) = &state.error {
                        <p class="error" role="alert">{ error }</p>
                    }
                    if memory_full {
                        <p class="error memory-full" role="alert">{ t.memory_full }</p>
                    }
                </section>
                <section class="narration" aria-label="What just happened" aria-live="polite">
                    <h2>{ t.what_just_happened }</h2>
                    if narration.is_empty() {
                        <p class="hint">{ t.start_hint }</p>
                    } else {
                        <ul>{ for narration.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                    }
                </section>
                if let (Some(f), Some((lines, _, release, finished))) = (&followed, &follow_data) {
                    <FollowPanel followed={f.clone()} lines={lines.clone()} release={release.as_ref().map(|r| i18n::released_by(lang, r))}
                        finished={*finished} stalled={state.follow_stalled} can_step={can_step}
                        on_next={dispatcher(&state, || Action::NextHop)} on_stop={dispatcher(&state, || Action::Unfollow)} />
                }
                <Partitions partitions={view.partitions.clone()}
                    stopped={view.brokers.iter().filter(|b| b.status == BrokerStatus::Stopped).map(|b| b.id).collect::<Vec<_>>()} />
                <super::alarms::Alarms violations={violations} {on_jump} />
                <super::quorum::Quorum view={view.clone()} on_fault={on_fault.clone()} />
                <Cluster view={view.clone()} visited={Rc::new(visited)} on_fault={on_fault.clone()} />
                <div class="clients">
                    <Produced producers={view.producers.clone()} />
                    <Consumed consumers={view.consumers.clone()} />
                </div>
                <super::inspector::SegmentInspector session={super::Shared(state.session.clone())} view={view.clone()} />
            </main>
        </div>
        </ContextProvider<super::why::ViewContext>>
        </ContextProvider<FollowContext>>
        </ContextProvider<Lang>>
    }
}

#[derive(Properties, PartialEq)]
struct FollowPanelProps {
    followed: Followed,
    lines: Vec<String>,
    release: Option<String>,
    finished: bool,
    stalled: bool,
    can_step: bool,
    on_next: Callback<MouseEvent>,
    on_stop: Callback<MouseEvent>,
}

/// The followed request's path so far, one line per event, newest last.
#[function_component(FollowPanel)]
fn follow_panel(props: &FollowPanelProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let list = use_node_ref();
    {
        // Keep the newest hop in sight.
        let list = list.clone();
        let count = props.lines.len();
        use_effect_with(count, move |_| {
            if let Some(el) = list.cast::<web_sys::Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    let f = &props.followed;
    html! {
        <section class="following" aria-label="Following">
            <div class="following-head">
                <h2>{ format!("{}: {} {}", t.following, f.api.name(), f.request) }</h2>
                <button onclick={props.on_next.clone()} disabled={props.finished || !props.can_step} aria-label="Next hop">{ t.next_hop }</button>
                <button class="secondary" onclick={props.on_stop.clone()} aria-label="Stop following">{ t.stop_following }</button>
            </div>
            if props.finished {
                <p class="hint">{ t.request_finished }</p>
            } else if props.stalled {
                <p class="hint">{ t.did_not_move }</p>
            }
            if let Some(r) = &props.release {
                <p class="release" aria-label="Released by">{ r }</p>
            }
            if props.lines.is_empty() {
                <p class="hint">{ t.no_hops_yet }</p>
            } else {
                <ol class="hops" aria-label="Hops" ref={list}>
                    { for props.lines.iter().map(|l| html! { <li>{ l }</li> }) }
                </ol>
            }
        </section>
    }
}

/// What a delayed operation waits for, in the chosen language.
fn describe_wait_in(lang: Lang, wait: &crate::sim::trace::WaitReason) -> String {
    match lang {
        Lang::En => super::narrate::describe_wait(wait),
        Lang::Ko => super::narrate_ko::describe_wait(wait),
    }
}

/// Narration in the chosen language.
fn narrate_in(lang: Lang, event: &crate::sim::trace::TraceEvent) -> String {
    match lang {
        Lang::En => super::narrate::narrate(event),
        Lang::Ko => super::narrate_ko::narrate(event),
    }
}

/// The address bar's fragment, with its `#`.
fn current_fragment() -> Option<String> {
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()?.location().hash().ok().filter(|h| !h.is_empty())
    }
    #[cfg(not(target_arch = "wasm32"))]
    None
}

/// Puts a share link in the address bar without a reload or a history entry.
fn write_fragment(fragment: &str) {
    #[cfg(target_arch = "wasm32")]
    if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&format!("#{fragment}")));
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = fragment;
}

/// Takes an old share link out of the address bar (a new setup replaced it).
fn clear_fragment() {
    #[cfg(target_arch = "wasm32")]
    if let Some(window) = web_sys::window() {
        let location = window.location();
        if location.hash().is_ok_and(|h| !h.is_empty()) {
            let url = format!("{}{}", location.pathname().unwrap_or_default(), location.search().unwrap_or_default());
            if let Ok(history) = window.history() {
                let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
            }
        }
    }
}

/// Copies the address (which now holds the share link) to the clipboard,
/// calling `done` if the browser allowed it. A refusal is quiet: the link is
/// in the address bar anyway.
fn copy_address_to_clipboard(done: impl FnOnce() + 'static) {
    #[cfg(target_arch = "wasm32")]
    {
        use wasm_bindgen::JsCast;
        let Some(window) = web_sys::window() else { return };
        let navigator = window.navigator();
        let has_clipboard = js_sys::Reflect::get(&navigator, &"clipboard".into()).is_ok_and(|c| !c.is_undefined());
        let Ok(href) = window.location().href() else { return };
        if !has_clipboard {
            return;
        }
        let ok = wasm_bindgen::closure::Closure::once_into_js(move |_: wasm_bindgen::JsValue| done());
        let refused = wasm_bindgen::closure::Closure::once_into_js(|_: wasm_bindgen::JsValue| {});
        let promise = navigator.clipboard().write_text(&href);
        if let Ok(then) = js_sys::Reflect::get(&promise, &"then".into()).and_then(|f| f.dyn_into::<js_sys::Function>()) {
            let _ = then.call2(&promise, &ok, &refused);
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = done;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
const THEME_KEY: &str = "kafkascope.theme";

/// The theme shown: the one chosen on this browser, else the system's.
pub fn current_theme() -> Theme {
    #[cfg(target_arch = "wasm32")]
    {
        let root = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element());
        match root.and_then(|r| r.get_attribute("data-theme")).as_deref() {
            Some("dark") => return Theme::Dark,
            Some("light") => return Theme::Light,
            _ => {}
        }
        let dark = web_sys::window()
            .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            .is_some_and(|m| m.matches());
        if dark {
            Theme::Dark
        } else {
            Theme::Light
        }
    }
    #[cfg(not(target_arch = "wasm32"))]
    Theme::Light
}

/// Sets the theme the browser remembers, if it remembers one; called once
/// before the app renders so the page never flashes the other palette.
pub fn apply_saved_theme() {
    #[cfg(target_arch = "wasm32")]
    {
        let saved = web_sys::window()
            .and_then(|w| w.local_storage().ok().flatten())
            .and_then(|s| s.get_item(THEME_KEY).ok().flatten());
        if let Some(theme) = saved.filter(|t| t == "dark" || t == "light") {
            if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
                let _ = root.set_attribute("data-theme", &theme);
            }
        }
    }
}

/// Switches to the other theme and remembers the choice.
fn toggle_theme() {
    #[cfg(target_arch = "wasm32")]
    {
        let theme = match current_theme() {
            Theme::Dark => "light",
            Theme::Light => "dark",
        };
        if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
            let _ = root.set_attribute("data-theme", theme);
        }
        if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
            let _ = storage.set_item(THEME_KEY, theme);
        }
    }
}

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
const LANGUAGE_KEY: &str = "kafkascope.lang";

/// The language chosen on an earlier visit, if the browser kept it.
fn saved_language() -> Option<Lang> {
    #[cfg(target_arch = "wasm32")]
    {
        let storage = web_sys::window()?.local_storage().ok()??;
        Lang::from_code(&storage.get_item(LANGUAGE_KEY).ok()??)
    }
    #[cfg(not(target_arch = "wasm32"))]
    None
}

fn save_language(lang: Lang) {
    #[cfg(target_arch = "wasm32")]
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.set_item(LANGUAGE_KEY, lang.code());
    }
    #[cfg(target_arch = "wasm32")]
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = root.set_attribute("lang", lang.code());
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = lang;
}

/// A callback that turns its input into an action, made once per app: its
/// identity never changes, so it never makes a child draw again.
#[hook]
fn use_dispatch<IN: 'static>(state: &UseReducerHandle<AppState>, action: fn(IN) -> Action) -> Callback<IN> {
    use_callback(state.dispatcher(), move |input: IN, dispatcher| dispatcher.dispatch(action(input)))
}

fn dispatcher(state: &UseReducerHandle<AppState>, action: impl Fn() -> Action + 'static) -> Callback<MouseEvent> {
    let state = state.clone();
    Callback::from(move |_| state.dispatch(action()))
}

fn range_value(e: &InputEvent) -> Option<usize> {
    e.target_dyn_into::<web_sys::HtmlInputElement>().and_then(|i| i.value().parse().ok())
}

fn speed_input(state: &UseReducerHandle<AppState>) -> Callback<InputEvent> {
    let state = state.clone();
    Callback::from(move |e: InputEvent| {
        if let Some(v) = range_value(&e) {
            state.dispatch(Action::SetSpeed(v));
        }
    })
}

fn timeline_input(state: &UseReducerHandle<AppState>) -> Callback<InputEvent> {
    let state = state.clone();
    Callback::from(move |e: InputEvent| {
        if let Some(v) = range_value(&e) {
            state.dispatch(Action::GoTo(v));
        }
    })
}

/// Listeners on the window and document that live as long as the app.
struct GlobalListeners {
    #[cfg(target_arch = "wasm32")]
    keydown: wasm_bindgen::closure::Closure<dyn Fn(web_sys::KeyboardEvent)>,
    #[cfg(target_arch = "wasm32")]
    visibility: wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>,
    #[cfg(target_arch = "wasm32")]
    hashchange: wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>,
    #[cfg(target_arch = "wasm32")]
    scheme: Option<(web_sys::MediaQueryList, wasm_bindgen::closure::Closure<dyn Fn(web_sys::Event)>)>,
}

impl Drop for GlobalListeners {
    fn drop(&mut self) {
        #[cfg(target_arch = "wasm32")]
        {
            use wasm_bindgen::JsCast;
            if let Some(window) = web_sys::window() {
                let _ = window.remove_event_listener_with_callback("keydown", self.keydown.as_ref().unchecked_ref());
                let _ = window.remove_event_listener_with_callback("hashchange", self.hashchange.as_ref().unchecked_ref());
                if let Some((query, listener)) = &self.scheme {
                    let _ = query.remove_event_listener_with_callback("change", listener.as_ref().unchecked_ref());
                }
                if let Some(document) = window.document() {
                    let _ = document
                        .remove_event_listener_with_callback("visibilitychange", self.visibility.as_ref().unchecked_ref());
                }
            }
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn install_global_listeners(state: UseReducerDispatcher<AppState>) -> GlobalListeners {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let keys_state = state.clone();
    let keydown = Closure::<dyn Fn(web_sys::KeyboardEvent)>::new(move |e: web_sys::KeyboardEvent| {
        // Typing in a field must not drive the simulation, and Space on a
        // focused button already presses that button.
        let tag = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).map(|el| el.tag_name());
        let typing = matches!(tag.as_deref(), Some("INPUT" | "SELECT" | "TEXTAREA"));
        let space_on_button = tag.as_deref() == Some("BUTTON") && e.key() == " ";
        if typing || space_on_button || e.ctrl_key() || e.meta_key() || e.alt_key() {
            return;
        }
        let action = match e.key().as_str() {
            " " => Action::TogglePlay,
            "ArrowRight" => Action::Step,
            "ArrowLeft" => Action::StepBack,
            _ => return,
        };
        e.prevent_default();
        keys_state.dispatch(action);
    });
    let visibility_state = state.clone();
    let visibility = Closure::<dyn Fn(web_sys::Event)>::new(move |_| {
        if web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden()) {
            visibility_state.dispatch(Action::Pause);
        }
    });
    let scheme_state = state.clone();
    let scheme_listener = Closure::<dyn Fn(web_sys::Event)>::new(move |_| scheme_state.dispatch(Action::SchemeChanged));
    let scheme = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .map(|query| {
            let _ = query.add_event_listener_with_callback("change", scheme_listener.as_ref().unchecked_ref());
            (query, scheme_listener)
        });
    let hashchange = Closure::<dyn Fn(web_sys::Event)>::new(move |_| {
        if let Some(fragment) = current_fragment() {
            state.dispatch(Action::OpenFragment(fragment));
        }
    });
    if let Some(window) = web_sys::window() {
        let _ = window.add_event_listener_with_callback("keydown", keydown.as_ref().unchecked_ref());
        let _ = window.add_event_listener_with_callback("hashchange", hashchange.as_ref().unchecked_ref());
        if let Some(document) = window.document() {
            let _ = document.add_event_listener_with_callback("visibilitychange", visibility.as_ref().unchecked_ref());
        }
    }
    GlobalListeners { keydown, visibility, hashchange, scheme }
}

#[cfg(not(target_arch = "wasm32"))]
fn install_global_listeners(_state: UseReducerDispatcher<AppState>) -> GlobalListeners {
    GlobalListeners {}
}


#[derive(Properties, PartialEq)]
struct ProduceFormProps {
    dispatcher: UseReducerDispatcher<AppState>,
    /// (name, partitions) of each topic.
    topics: Vec<(String, u32)>,
    /// The setup's acks, which the form starts with.
    acks: i16,
}

#[function_component(ProduceForm)]
fn produce_form(props: &ProduceFormProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let topic = use_node_ref();
    let key = use_node_ref();
    let value = use_node_ref();
    let acks = use_node_ref();
    let headers = use_node_ref();
    let lang = use_context::<Lang>().unwrap_or_default();
    let onsubmit = {
        let (topic, key, value, acks, state) = (topic.clone(), key.clone(), value.clone(), acks.clone(), props.dispatcher.clone());
        let headers = headers.clone();
        let first = props.topics.first().map(|(n, _)| n.clone()).unwrap_or_default();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let read = |r: &NodeRef| r.cast::<web_sys::HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
            let acks = acks.cast::<web_sys::HtmlSelectElement>().and_then(|s| s.value().parse::<i16>().ok()).unwrap_or(-1);
            let topic = topic.cast::<web_sys::HtmlSelectElement>().map(|s| s.value()).unwrap_or_else(|| first.clone());
            match super::forms::parse_headers(&read(&headers)) {
                Ok(headers) => state.dispatch(Action::Produce { topic, key: read(&key), value: read(&value), headers, acks }),
                Err(e) => state.dispatch(Action::ShowError(i18n::header_error(lang, &e))),
            }
        })
    };
    html! {
        <form class="produce-form" {onsubmit} aria-label="Produce a record">
            <span class="field">
                <label for="produce-topic">{ t.topic }</label>
                <select id="produce-topic" ref={topic} aria-label="Produce topic">
                    { for props.topics.iter().map(|(name, _)| html! { <option value={name.clone()}>{ name }</option> }) }
                </select>
            </span>
            <span class="field">
                <label for="produce-key">{ t.key }</label>
                <input id="produce-key" ref={key} type="text" value="user-42" aria-label="Key" />
            </span>
            <span class="field">
                <label for="produce-value">{ t.value }</label>
                <input id="produce-value" ref={value} type="text" value="hello" aria-label="Value" />
            </span>
            <span class="field">
                <label for="produce-headers">{ t.headers }</label>
                <input id="produce-headers" ref={headers} type="text" placeholder="trace-id=7, source=web" size="14"
                    aria-label="Headers" title={t.headers_hint} />
            </span>
            <span class="field">
                <label for="produce-acks">{ t.acks }</label>
                <select id="produce-acks" ref={acks} aria-label="Acks" title={t.acks_hint}>
                    <option value="-1" selected={props.acks == -1}>{ "all (-1)" }</option>
                    <option value="1" selected={props.acks == 1}>{ "1" }</option>
                    <option value="0" selected={props.acks == 0}>{ "0" }</option>
                </select>
            </span>
            <button type="submit" aria-label="Produce">{ t.produce }</button>
        </form>
    }
}

#[derive(Properties, PartialEq)]
struct FetchFormProps {
    dispatcher: UseReducerDispatcher<AppState>,
    /// (name, partitions) of each topic.
    topics: Vec<(String, u32)>,
    /// How many consumers the setup has; with more than one the form asks
    /// which fetches.
    consumers: u32,
}

#[function_component(FetchForm)]
fn fetch_form(props: &FetchFormProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let chosen_topic = use_state(|| 0usize);
    let partition = use_node_ref();
    let offset = use_node_ref();
    let min_bytes = use_node_ref();
    let max_wait = use_node_ref();
    let consumer = use_node_ref();
    let (topic_name, partitions) = props.topics.get(*chosen_topic).or(props.topics.first()).cloned().unwrap_or_default();
    let onsubmit = {
        let refs = (partition.clone(), offset.clone(), min_bytes.clone(), max_wait.clone(), consumer.clone());
        let state = props.dispatcher.clone();
        let topic = topic_name.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let read = |r: &NodeRef| {
                r.cast::<web_sys::HtmlInputElement>()
                    .map(|i| i.value())
                    .or_else(|| r.cast::<web_sys::HtmlSelectElement>().map(|s| s.value()))
                    .unwrap_or_default()
            };
            let partition = read(&refs.0).parse::<u32>().unwrap_or(0);
            let offset_text = read(&refs.1);
            let offset = if offset_text.trim().is_empty() {
                None
            } else {
                match offset_text.trim().parse::<i64>() {
                    Ok(o) => Some(o),
                    Err(_) => {
                        let t = lang.texts();
                        state.dispatch(Action::ShowError(format!("{} {offset_text:?} {}.", t.offset, t.not_a_whole_number)));
                        return;
                    }
                }
            };
            let min_bytes = read(&refs.2).trim().parse::<i32>().unwrap_or(1);
            let max_wait_ms = read(&refs.3).trim().parse::<i32>().unwrap_or(500);
            let consumer = read(&refs.4).parse::<u32>().unwrap_or(0);
            state.dispatch(Action::Fetch { consumer, topic: topic.clone(), partition, offset, min_bytes, max_wait_ms });
        })
    };
    let on_topic = {
        let chosen_topic = chosen_topic.clone();
        Callback::from(move |e: Event| {
            if let Some(i) = e.target_dyn_into::<web_sys::HtmlSelectElement>().and_then(|s| s.value().parse().ok()) {
                chosen_topic.set(i);
            }
        })
    };
    html! {
        <form class="fetch-form" {onsubmit} aria-label="Fetch records">
            if props.consumers > 1 {
                <span class="field">
                    <label for="fetch-consumer">{ t.consumer }</label>
                    <select id="fetch-consumer" ref={consumer} aria-label="Consumer">
                        { for (0..props.consumers).map(|n| html! {
                            <option value={n.to_string()}>{ format!("client-{}", super::setup::CONSUMER + n) }</option>
                        }) }
                    </select>
                </span>
            }
            <span class="field">
                <label for="fetch-topic">{ t.topic }</label>
                <select id="fetch-topic" aria-label="Fetch topic" onchange={on_topic}>
                    { for props.topics.iter().enumerate().map(|(i, (name, _))| html! {
                        <option value={i.to_string()} selected={i == *chosen_topic}>{ name }</option>
                    }) }
                </select>
            </span>
            <span class="field">
                <label for="fetch-partition">{ t.partition }</label>
                <select id="fetch-partition" ref={partition} aria-label="Partition">
                    { for (0..partitions).map(|p| html! { <option value={p.to_string()}>{ p }</option> }) }
                </select>
            </span>
            <span class="field">
                <label for="fetch-offset">{ t.offset }</label>
                <input id="fetch-offset" ref={offset} type="text" inputmode="numeric" placeholder={t.offset_placeholder} size="5" aria-label="Offset" />
            </span>
            <span class="field">
                <label for="fetch-min-bytes">{ t.min_bytes }</label>
                <input id="fetch-min-bytes" ref={min_bytes} type="text" inputmode="numeric" value="1" size="5" aria-label="Min bytes" />
            </span>
            <span class="field">
                <label for="fetch-max-wait">{ t.max_wait_ms }</label>
                <input id="fetch-max-wait" ref={max_wait} type="text" inputmode="numeric" value="500" size="5" aria-label="Max wait ms" />
            </span>
            <button type="submit" aria-label="Fetch">{ t.fetch }</button>
        </form>
    }
}
#[derive(Properties, PartialEq)]
struct PartitionsProps {
    partitions: Vec<PartitionView>,
    /// Brokers that are down, to mark their replicas.
    stopped: Vec<u32>,
}

#[function_component(Partitions)]
fn partitions(props: &PartitionsProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    html! {
        <section class="partitions-overview" aria-label="Partitions">
            <h2>{ t.partitions }</h2>
            <div class="partition-list">
            { for props.partitions.iter().map(|p| {
                // Only the stopped brokers that hold a replica here, so a
                // broker stopping redraws just the partitions it holds.
                let stopped: Vec<u32> = p.replicas.iter().copied().filter(|b| props.stopped.contains(b)).collect();
                html! { <PartitionCard key={format!("{}-{}", p.topic, p.partition)} partition={p.clone()} {stopped} /> }
            }) }
            </div>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct PartitionCardProps {
    partition: PartitionView,
    /// Brokers holding a replica here that are down.
    stopped: Vec<u32>,
}

/// One partition: its leader, epoch, ISR and HW, and a bar per replica. Its
/// own component, so only partitions that changed are drawn again.
#[function_component(PartitionCard)]
fn partition_card(props: &PartitionCardProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let p = &props.partition;
    // The reasons are drawn only while they are shown: they read the whole
    // view, which changes on every step.
    let open = use_state(|| false);
    let on_toggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            if let Some(d) = e.target_dyn_into::<web_sys::HtmlDetailsElement>() {
                open.set(d.open());
            }
        })
    };
    let max = p.replica_offsets.iter().map(|(_, leo, _)| *leo).max().unwrap_or(0).max(1);
    let leader = p.leader.map(|l| l.to_string()).unwrap_or_else(|| "none".into());
    html! {
        <div class="partition" role="group" aria-label={format!("Partition {}-{}", p.topic, p.partition)}>
            <h3>{ format!("{}-{}", p.topic, p.partition) }</h3>
            <p class="partition-facts">
                <span>{ format!("Leader: {leader}") }</span>
                <span>{ format!(" · {} {}", t.epoch, p.leader_epoch) }</span>
                <span>{ format!(" · ISR {:?}", p.isr) }</span>
                <span>{ format!(" · HW {}", p.high_watermark) }</span>
            </p>
            <ul class="replica-bars">
            { for p.replica_offsets.iter().map(|(b, leo, hw)| {
                let leads = Some(*b) == p.leader;
                let (role, role_text) = if leads { ("leader", t.leader_word) } else { ("follower", t.follower_word) };
                let in_isr = p.isr.contains(b);
                let mut isr_note = if in_isr { String::new() } else { format!(", {}", t.out_of_isr) };
                if props.stopped.contains(b) {
                    isr_note.push_str(&format!(", {}", t.status_stopped));
                }
                html! {
                    <li class={classes!("replica-bar", role, (!in_isr).then_some("out-of-isr"))}>
                        <span class="replica-name">{ format!("{} {b} ({role_text}{isr_note})", t.broker) }</span>
                        <span class="bar" aria-hidden="true">
                            <span class="bar-hw" style={format!("width: {}%", hw * 100 / max)}></span>
                            <span class="bar-leo" style={format!("width: {}%", (leo - hw).max(0) * 100 / max)}></span>
                        </span>
                        <span class="replica-offsets">{ format!("LEO {leo} · HW {hw}") }</span>
                    </li>
                }
            }) }
            </ul>
            <details class="why" ontoggle={on_toggle}>
                <summary aria-label={format!("Why? {}-{}", p.topic, p.partition)}>{ t.why_partition }</summary>
                if *open {
                    <super::why::PartitionWhyPanel topic={p.topic.clone()} partition={p.partition} />
                }
            </details>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ClusterProps {
    view: Rc<ClusterView>,
    /// The stages of each broker the followed request has been in.
    visited: Rc<crate::sim::collections::BTreeMap<u32, BTreeSet<SimStage>>>,
    on_fault: Callback<Command>,
}

#[function_component(Cluster)]
fn cluster(props: &ClusterProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let view = &props.view;
    // Inside one broker or all: with many brokers a learner can keep the
    // one they watch next to the map. A broker that no longer exists (a new
    // setup) falls back to all.
    let shown = use_state(|| None::<u32>);
    let only = shown.filter(|id| view.brokers.iter().any(|b| b.id == *id));
    let on_show = {
        let shown = shown.clone();
        Callback::from(move |e: Event| {
            if let Some(s) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                shown.set(s.value().parse().ok());
            }
        })
    };
    html! {
        <section class="cluster" aria-label="Cluster">
            <p class="legend" aria-label="Legend">
                { for legend(t).into_iter().map(|(t, text)| html! { <span class="legend-item"><TokenChip token={t} />{ text }</span> }) }
                <span class="legend-item"><span class="token produce followed" aria-hidden="true">{ "Produce" }</span>{ t.legend_followed }</span>
                if view.quorum.is_some() {
                    <span class="legend-item">
                        <span class="token raft" aria-hidden="true">{ "Vote" }</span>
                        <span class="token broker-control" aria-hidden="true">{ "BrokerHeartbeat" }</span>
                        { t.legend_control }
                    </span>
                }
            </p>
            <p class="hint follow-hint">{ t.follow_hint }</p>
            if view.quorum.is_some() {
                <p class="hint faults-hint">{ t.faults_hint }</p>
            }
            <super::map::ClusterMap view={view.clone()} />
            <div class="network-box" aria-label="Network">
                <h3>{ t.on_the_network }</h3>
                if view.in_flight.is_empty() {
                    <p class="hint">{ t.nothing_in_flight }</p>
                }
                <ul class="in-flight">
                { for view.in_flight.iter().map(|f| {
                    let token = Token { request: f.request, api: f.api, direction: f.direction, follower_fetch: f.follower_fetch };
                    html! {
                        <li>
                            if let Some(rpc) = &f.rpc {
                                <span class={classes!("token", super::map::control_class(rpc), (f.direction == Direction::Response).then_some("response"))}>{ rpc.clone() }</span>
                            } else {
                                <TokenChip token={token} />
                            }
                            <span class="route">{ format!(" {} → {} ({} {} ms)", f.from, f.to, t.arrives, f.arrives_at_ms) }</span>
                        </li>
                    }
                }) }
                </ul>
            </div>
            <div class="broker-choice">
                <label for="show-brokers">{ t.show_brokers }</label>
                <select id="show-brokers" aria-label="Show brokers" onchange={on_show}>
                    <option value="all" selected={only.is_none()}>{ t.all_brokers }</option>
                    { for view.brokers.iter().map(|b| html! {
                        <option value={b.id.to_string()} selected={only == Some(b.id)}>{ format!("{} {}", t.broker, b.id) }</option>
                    }) }
                </select>
            </div>
            { for view.brokers.iter().filter(|b| only.is_none_or(|id| id == b.id)).map(|b| html! {
                <Broker key={b.id} broker={b.clone()} visited={props.visited.get(&b.id).cloned().unwrap_or_default()}
                    on_fault={view.quorum.is_some().then(|| props.on_fault.clone())}
                    isolate={super::quorum::isolate(view, NodeId::Broker(b.id))}
                    isolated={super::quorum::is_cut_off(view, NodeId::Broker(b.id))} />
            }) }
        </section>
    }
}

/// One token of each kind, to explain the colours.
fn legend(t: &'static super::i18n::Texts) -> Vec<(Token, &'static str)> {
    let id = crate::sim::ids::RequestId { client: NodeId::Client(0), correlation_id: 0 };
    let follower = crate::sim::ids::RequestId { client: NodeId::Broker(0), correlation_id: 0 };
    let token = |request, api, direction, follower_fetch| Token { request, api, direction, follower_fetch };
    vec![
        (token(id, ApiKey::Produce, Direction::Request, false), t.legend_produce),
        (token(id, ApiKey::Fetch, Direction::Request, false), t.legend_fetch),
        (token(follower, ApiKey::Fetch, Direction::Request, true), t.legend_follower_fetch),
        (token(id, ApiKey::Metadata, Direction::Request, false), t.legend_metadata),
        (token(id, ApiKey::Produce, Direction::Response, false), t.legend_response),
    ]
}

#[derive(Properties, PartialEq)]
struct BrokerProps {
    broker: BrokerView,
    /// The stages here that the followed request has been in.
    visited: BTreeSet<SimStage>,
    /// Kill and restart, when there is a control plane to heal the cluster.
    on_fault: Option<Callback<Command>>,
    isolate: Command,
    isolated: bool,
}

#[function_component(Broker)]
fn broker(props: &BrokerProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let b = &props.broker;
    let label = format!("Broker {}", b.id);
    let purgatory: Vec<Token> =
        b.purgatory.produce.iter().chain(b.purgatory.fetch.iter()).map(|op| op.token.clone()).collect();
    let waits: Vec<String> = b
        .purgatory
        .produce
        .iter()
        .chain(b.purgatory.fetch.iter())
        .map(|op| {
            let why: Vec<String> = op.waits.iter().map(|w| describe_wait_in(lang, w)).collect();
            format!("{}: {}", op.token.request, why.join("; "))
        })
        .collect();
    // The pipeline, the purgatory's timers and the replicas are components
    // of their own: while a broker's timers tick every simulated millisecond,
    // its stages and replicas are drawn again only when they change.
    html! {
        <section class={classes!("broker", status_class(b.status))} role="region" aria-label={label.clone()}>
            <div class="node-head">
                <h2>{ format!("{} {}", t.broker, b.id) }</h2>
                if let Some(on_fault) = &props.on_fault {
                    <super::quorum::BrokerFault broker={b.id} status={b.status} on_fault={on_fault.clone()}
                        isolate={props.isolate.clone()} isolated={props.isolated} />
                }
            </div>
            <Pipeline socket_receive_buffer={b.socket_receive_buffer.clone()} network_threads={b.network_threads.clone()}
                request_queue={b.request_queue.clone()} request_queue_capacity={b.request_queue_capacity}
                io_threads={b.io_threads.clone()} log_append={b.log_append.clone()} log_read={b.log_read.clone()}
                {purgatory} socket_send_buffer={b.socket_send_buffer.clone()} visited={props.visited.clone()} />
            if !waits.is_empty() {
                <ul class="purgatory-waits" aria-label="Waiting in purgatory">
                    { for waits.iter().map(|w| html! { <li>{ w }</li> }) }
                </ul>
                <div class="wheels">
                    if b.purgatory.produce_timer.task_count > 0 {
                        <super::map::TimingWheel name="Produce" wheel={b.purgatory.produce_timer.clone()} />
                    }
                    if b.purgatory.fetch_timer.task_count > 0 {
                        <super::map::TimingWheel name="Fetch" wheel={b.purgatory.fetch_timer.clone()} />
                    }
                </div>
            }
            <Replicas status={b.status} replicas={b.replicas.clone()} fetchers={b.fetchers.clone()} />
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct PipelineProps {
    socket_receive_buffer: Vec<Token>,
    network_threads: Vec<crate::sim::view::NetworkThreadView>,
    request_queue: Vec<Token>,
    request_queue_capacity: u32,
    io_threads: Vec<crate::sim::view::IoThreadView>,
    log_append: Vec<Token>,
    log_read: Vec<Token>,
    /// Every operation waiting in either purgatory.
    purgatory: Vec<Token>,
    socket_send_buffer: Vec<Token>,
    /// The stages here that the followed request has been in.
    visited: BTreeSet<SimStage>,
}

/// A broker's request path, stage by stage, with the requests in each.
#[function_component(Pipeline)]
fn pipeline(props: &PipelineProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let b = props;
    let seen = |stage: SimStage| props.visited.contains(&stage);
    html! {
        <div class="pipeline">
            <Stage title="Socket receive buffer" shown={t.socket_receive_buffer} tokens={b.socket_receive_buffer.clone()}
                visited={seen(SimStage::SocketReceiveBuffer)} />
            <div class="stage-group">
                { for b.network_threads.iter().map(|nt| {
                    let mut tokens: Vec<Token> = nt.work.iter().cloned().collect();
                    tokens.extend(nt.blocked.iter().cloned());
                    html! { <Stage title={format!("Network thread {}", nt.id)} shown={format!("{} {}", t.network_thread, nt.id)} {tokens}
                        visited={seen(SimStage::NetworkThread(nt.id))} /> }
                }) }
            </div>
            <Stage
                title={format!("Request queue ({}/{})", b.request_queue.len(), b.request_queue_capacity)}
                shown={format!("{} ({}/{})", t.request_queue, b.request_queue.len(), b.request_queue_capacity)}
                tokens={b.request_queue.clone()} visited={seen(SimStage::RequestQueue)} />
            <div class="stage-group">
                { for b.io_threads.iter().map(|io| html! {
                    <Stage title={format!("I/O thread {}", io.id)} shown={format!("{} {}", t.io_thread, io.id)}
                        tokens={io.work.iter().cloned().collect::<Vec<_>>()} visited={seen(SimStage::IoThread(io.id))} />
                }) }
            </div>
            <div class="stage-group">
                <Stage title="Log append" shown={t.log_append} tokens={b.log_append.clone()} visited={seen(SimStage::LogAppend)} />
                <Stage title="Log read" shown={t.log_read} tokens={b.log_read.clone()} visited={seen(SimStage::LogRead)} />
            </div>
            <Stage title="Purgatory" shown={t.purgatory} tokens={b.purgatory.clone()} visited={seen(SimStage::Purgatory)} />
            <div class="stage-group">
                { for b.network_threads.iter().map(|nt| html! {
                    <Stage title={format!("Response queue {}", nt.id)} shown={format!("{} {}", t.response_queue, nt.id)}
                        tokens={nt.response_queue.clone()} visited={seen(SimStage::ResponseQueue(nt.id))} />
                }) }
            </div>
            <Stage title="Socket send buffer" shown={t.socket_send_buffer} tokens={b.socket_send_buffer.clone()}
                visited={seen(SimStage::SocketSendBuffer)} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ReplicasProps {
    status: BrokerStatus,
    replicas: Vec<crate::sim::view::ReplicaView>,
    fetchers: Vec<crate::sim::view::FetcherView>,
}

/// The replicas a broker holds and its replica fetchers.
#[function_component(Replicas)]
fn replicas(props: &ReplicasProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    html! {
        <>
            <div class="replicas">
                { for props.replicas.iter().map(|r| html! {
                    <div class={classes!("replica", r.is_leader.then_some("leader"))}>
                        <strong>{ format!("{}-{}", r.topic, r.partition) }</strong>
                        <span>{ format!(" {}", match (props.status, r.is_leader) {
                            // A stopped broker has no role; its log waits on disk.
                            (BrokerStatus::Stopped, _) => t.log_on_disk,
                            (_, true) => t.leader_word,
                            (_, false) => t.follower_word,
                        }) }</span>
                        <span class="replica-offsets">{ format!(" · LEO {} · HW {} · {} {}", r.log_end_offset, r.high_watermark, r.segments.len(), t.segments) }</span>
                    </div>
                }) }
            </div>
            if !props.fetchers.is_empty() {
                <p class="fetchers">
                    { for props.fetchers.iter().map(|f| html! {
                        <span class="fetcher">{ format!("{} → {} {}{} ", t.replica_fetcher, t.broker, f.leader,
                            if f.in_flight { format!(" ({})", t.fetch_in_flight) } else { String::new() }) }</span>
                    }) }
                </p>
            }
        </>
    }
}

fn status_class(status: BrokerStatus) -> &'static str {
    match status {
        BrokerStatus::Running => "running",
        BrokerStatus::Fenced => "fenced",
        BrokerStatus::ShuttingDown => "shutting-down",
        BrokerStatus::Stopped => "stopped",
    }
}

#[derive(Properties, PartialEq)]
struct StageProps {
    /// The English name, which is also the accessible name.
    title: AttrValue,
    /// The name shown, in the page's language.
    shown: AttrValue,
    tokens: Vec<Token>,
    /// The followed request has been here.
    #[prop_or_default]
    visited: bool,
}

#[function_component(Stage)]
fn stage(props: &StageProps) -> Html {
    let class = classes!("stage", (!props.tokens.is_empty()).then_some("busy"), props.visited.then_some("visited"));
    html! {
        <div {class} aria-label={props.title.clone()}>
            <h4>{ props.shown.clone() }</h4>
            <div class="tokens">
                { for props.tokens.iter().map(|t| html! { <TokenChip token={t.clone()} /> }) }
            </div>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct TokenProps {
    token: Token,
}

#[function_component(TokenChip)]
fn token_chip(props: &TokenProps) -> Html {
    let texts = use_context::<Lang>().unwrap_or_default().texts();
    let t = &props.token;
    let (kind, name) = match (t.api, t.follower_fetch) {
        (ApiKey::Fetch, true) => ("follower-fetch", texts.follower_fetch_label.to_string()),
        (ApiKey::Produce, _) => ("produce", "Produce".to_string()),
        (ApiKey::Fetch, false) => ("fetch", "Fetch".to_string()),
        (ApiKey::Metadata, _) => ("metadata", "Metadata".to_string()),
        (ApiKey::InitProducerId, _) => ("init-producer-id", "InitProducerId".to_string()),
    };
    // Correlation id 0 is never used by a client, so it marks a legend chip.
    let id = if t.request.correlation_id == 0 { String::new() } else { format!(" {}", t.request) };
    let (mut class, label) = match t.direction {
        Direction::Request => (classes!("token", kind), format!("{name}{id}")),
        Direction::Response => (classes!("token", kind, "response"), format!("{name} {}{id}", texts.response_word)),
    };
    let follow = use_context::<FollowContext>();
    // A legend chip is only a picture.
    if t.request.correlation_id == 0 {
        return html! { <span {class}>{ label }</span> };
    }
    let followed = follow.as_ref().is_some_and(|f| f.followed == Some(t.request));
    let releaser = follow.as_ref().is_some_and(|f| f.releasers.contains(&t.request));
    class.push(followed.then_some("followed"));
    class.push(releaser.then_some("releaser"));
    let onclick = {
        let (on_follow, request, api) = (follow.map(|f| f.on_follow), t.request, t.api);
        Callback::from(move |_: MouseEvent| {
            if let Some(cb) = &on_follow {
                cb.emit(Followed { request, api });
            }
        })
    };
    html! {
        <button type="button" {class} {onclick} aria-pressed={followed.to_string()}
            aria-label={format!("Follow {} {}", t.api.name(), t.request)}>{ label }</button>
    }
}

#[derive(Properties, PartialEq)]
struct ProducedProps {
    producers: Vec<ProducerView>,
}

#[function_component(Produced)]
fn produced(props: &ProducedProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let rows: Vec<(NodeId, i16, &crate::sim::client::producer::RecordOutcome)> =
        props.producers.iter().flat_map(|p| p.records.iter().map(move |r| (p.id, p.acks, r))).collect();
    html! {
        <section class="produced" aria-label="Produced records">
            <h2>{ t.produced_records }</h2>
            if rows.is_empty() {
                <p class="hint">{ t.nothing_produced }</p>
            }
            <ul>
            { for rows.iter().map(|(id, acks, r)| {
                let acks = if *acks == -1 { "all".to_string() } else { acks.to_string() };
                let key = r.key.clone().unwrap_or_else(|| "null".into());
                let state = match &r.state {
                    RecordState::AwaitingMetadata => t.waiting_for_metadata.to_string(),
                    RecordState::Accumulating => t.in_producer_batch.to_string(),
                    RecordState::InFlight { .. } => t.waiting_for_broker.to_string(),
                    RecordState::SentWithoutAck => format!("partition {}: {}", r.partition.unwrap_or(0), t.acks0_no_offset),
                    // "partition P, offset N" stays in this form in both
                    // languages: it is what tests and learners look for.
                    RecordState::Acknowledged { offset } => format!("partition {}, offset {offset}", r.partition.unwrap_or(0)),
                    RecordState::Failed { error } => format!("{} {error}", t.failed_with),
                };
                let why = r.reason.as_ref().map(|reason| i18n::partition_reason(lang, reason, r.partition.unwrap_or(0)));
                html! {
                    <li class="produce-result">
                        <span>{ format!("{id} (acks={acks}) {} {key}: {state}", t.key_word) }</span>
                        if let Some(why) = why {
                            <span class="partition-why" title={t.partition_why}>{ why }</span>
                        }
                    </li>
                }
            }) }
            </ul>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct ConsumedProps {
    consumers: Vec<ConsumerView>,
}

#[function_component(Consumed)]
fn consumed(props: &ConsumedProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    html! {
        <section class="consumed" aria-label="Consumed records">
            <h2>{ t.consumed_records }</h2>
            { for props.consumers.iter().map(|c| html! {
                <div class="consumer" role="group" aria-label={c.id.to_string()}>
                    if props.consumers.len() > 1 {
                        <h3>{ c.id.to_string() }</h3>
                    }
                    if c.fetches.is_empty() {
                        <p class="hint">{ t.no_fetch_yet }</p>
                    }
                    <ul>
                    { for c.fetches.iter().map(|f| {
                        let text = match &f.result {
                            None => format!("{} fetch {} offset {}: {}", f.request, f.partition, f.fetch_offset, t.waiting),
                            Some(r) if r.error.code() == 0 => format!(
                                "{} fetch {} offset {}: {} {}, {} {}, HW {}",
                                f.request, f.partition, f.fetch_offset, r.records, t.records_word, t.next_offset, r.next_offset, r.high_watermark),
                            Some(r) => format!("{} fetch {} offset {}: {}", f.request, f.partition, f.fetch_offset, r.error),
                        };
                        html! { <li class="fetch-result">{ text }</li> }
                    }) }
                    </ul>
                    <ul class="consumed-records">
                    { for c.consumed.iter().map(|r| {
                        let headers: Vec<String> = r
                            .headers
                            .iter()
                            .map(|(k, v)| format!("{k}={}", v.clone().unwrap_or_else(|| "null".into())))
                            .collect();
                        let headers = if headers.is_empty() { String::new() } else { format!(" [{}]", headers.join(", ")) };
                        html! {
                            <li>{ format!("{} offset {}: {} = {}{headers}", r.partition, r.offset,
                                r.key.clone().unwrap_or_else(|| "null".into()), r.value.clone().unwrap_or_else(|| "null".into())) }</li>
                        }
                    }) }
                    </ul>
                </div>
            }) }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::Pacer;

    #[test]
    fn the_pacer_takes_the_steps_a_speed_owes_per_frame() {
        let mut p = Pacer::default();
        // 1000 steps/s at 60 frames/s: 16 or 17 a frame, 1000 a second.
        let total: u32 = (0..60).map(|_| p.steps_for(1000, 1000.0 / 60.0)).sum();
        assert!((999..=1000).contains(&total), "{total}");
        // 1 step/s: one step once a second has passed, none before.
        let mut slow = Pacer::default();
        let steps: Vec<u32> = (0..61).map(|_| slow.steps_for(1, 1000.0 / 60.0)).collect();
        assert_eq!(steps.iter().sum::<u32>(), 1);
        assert_eq!(steps.iter().position(|s| *s == 1), Some(59));
        // A long gap (a hidden page) is not caught up in one burst.
        assert_eq!(Pacer::default().steps_for(1000, 5_000.0), 100);
    }
}
