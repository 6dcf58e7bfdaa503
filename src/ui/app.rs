//! The components. They draw the simulation's view model and narrate its
//! trace; every change goes through [`Action`] and the [`Session`].

use super::i18n::Lang;
use super::session::{producer_for_acks, Session, CONSUMER};
use crate::sim::client::producer::RecordState;
use crate::sim::ids::NodeId;
use crate::sim::protocol::ApiKey;
use crate::sim::simulation::Command;
use crate::sim::trace::Direction;
use crate::sim::view::{BrokerView, ClusterView, ConsumerView, PartitionView, ProducerView, Token};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The app's state: the session lives behind a `RefCell` so a step mutates it
/// in place instead of cloning the whole history; `version` tells Yew that
/// something changed.
#[derive(Clone)]
pub struct AppState {
    session: Rc<RefCell<Session>>,
    version: u64,
    error: Option<String>,
    playing: bool,
    /// An index into [`SPEEDS`].
    speed: usize,
    lang: Lang,
}

impl AppState {
    /// The session, for components that read beyond the view model's
    /// default picture (the segment inspector).
    pub fn session(&self) -> std::cell::Ref<'_, Session> {
        self.session.borrow()
    }
}

impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version && self.error == other.error
    }
}

impl Default for AppState {
    fn default() -> Self {
        Self {
            session: Rc::new(RefCell::new(Session::default())),
            version: 0,
            error: None,
            playing: false,
            speed: 4,
            lang: saved_language().unwrap_or_default(),
        }
    }
}

/// Steps per second while playing, on a log scale: each notch is about
/// 1.8 times the one before.
pub const SPEEDS: [u32; 13] = [1, 2, 3, 6, 10, 18, 32, 56, 100, 178, 316, 562, 1000];

/// The browser timer's period and the steps taken per tick for a speed: slow
/// speeds tick once per step, fast ones take several steps each frame.
pub fn tick_plan(steps_per_second: u32) -> (u32, u32) {
    if steps_per_second <= 50 {
        (1000 / steps_per_second.max(1), 1)
    } else {
        (20, steps_per_second / 50)
    }
}

pub enum Action {
    Step,
    StepBack,
    Play,
    Pause,
    TogglePlay,
    SetSpeed(usize),
    /// One tick of the play timer.
    Tick,
    GoTo(usize),
    ToggleLanguage,
    Produce { key: String, value: String, acks: i16 },
    Fetch { partition: u32, offset: Option<i64>, min_bytes: i32, max_wait_ms: i32 },
    ShowError(String),
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut error = None;
        let (mut playing, mut speed, mut lang) = (self.playing, self.speed, self.lang);
        {
            let mut session = self.session.borrow_mut();
            let result: Result<(), String> = match action {
                Action::Step => {
                    session.step();
                    Ok(())
                }
                Action::StepBack => {
                    playing = false;
                    session.step_back();
                    Ok(())
                }
                Action::Play => {
                    playing = true;
                    Ok(())
                }
                Action::Pause => {
                    playing = false;
                    Ok(())
                }
                Action::TogglePlay => {
                    playing = !playing;
                    Ok(())
                }
                Action::SetSpeed(s) => {
                    speed = s.min(SPEEDS.len() - 1);
                    Ok(())
                }
                Action::Tick => {
                    if playing {
                        let (_, per_tick) = tick_plan(SPEEDS[speed]);
                        if session.step_many(per_tick) == 0 {
                            playing = false;
                        }
                    }
                    Ok(())
                }
                Action::ToggleLanguage => {
                    lang = lang.other();
                    save_language(lang);
                    Ok(())
                }
                Action::GoTo(index) => {
                    playing = false;
                    session.go_to(index);
                    Ok(())
                }
                Action::Produce { key, value, acks } => session.command(Command::Produce {
                    client: producer_for_acks(acks),
                    topic: "orders".into(),
                    // An empty field means no key: Kafka's null key.
                    key: (!key.is_empty()).then_some(key),
                    value: Some(value),
                    headers: vec![],
                    partition: None,
                    timestamp_ms: None,
                })
                .map_err(|e| e.to_string()),
                Action::Fetch { partition, offset, min_bytes, max_wait_ms } => session.command(Command::Fetch {
                    client: CONSUMER,
                    topic: "orders".into(),
                    partition,
                    offset,
                    min_bytes: Some(min_bytes),
                    max_wait_ms: Some(max_wait_ms),
                })
                .map_err(|e| e.to_string()),
                Action::ShowError(message) => Err(message),
            };
            if let Err(e) = result {
                error = Some(e);
            }
        }
        Rc::new(AppState { session: self.session.clone(), version: self.version + 1, error, playing, speed, lang })
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(AppState::default);
    let session = state.session.borrow();
    let view = session.view();
    let lang = state.lang;
    let t = lang.texts();
    let narration: Vec<String> = session.last_step_trace().iter().map(|e| narrate_in(lang, e)).collect();
    let can_step = session.sim().has_pending();
    let can_step_back = session.can_step_back();
    let (timeline_len, timeline_index) = (session.timeline_len(), session.timeline_index());
    drop(session);

    // Play: a browser interval dispatches ticks; it is dropped (stopped)
    // when playing stops or the speed changes.
    {
        let state = state.clone();
        use_effect_with((state.playing, state.speed), move |(playing, speed)| {
            let interval = playing.then(|| {
                let (period_ms, _) = tick_plan(SPEEDS[*speed]);
                gloo_timers::callback::Interval::new(period_ms, move || state.dispatch(Action::Tick))
            });
            move || drop(interval)
        });
    }
    // Keyboard: Space plays or pauses, → steps, ← steps back; and playing
    // stops by itself when the page is hidden.
    {
        let state = state.clone();
        use_effect_with((), move |_| {
            let listeners = install_global_listeners(state);
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

    html! {
        <ContextProvider<Lang> context={lang}>
        <div class="app" lang={lang.code()}>
            <header class="app-header">
                <div class="title-row">
                    <h1>{ "KafkaScope" }</h1>
                    <button class="language" onclick={dispatcher(&state, || Action::ToggleLanguage)}
                        aria-label="Language" title="English / 한국어">{ t.switch_language }</button>
                </div>
                <p class="tagline">{ t.tagline }</p>
            </header>
            <main>
                <section class="controls" aria-label="Controls">
                    <ProduceForm state={state.clone()} />
                    <FetchForm state={state.clone()} partitions={view.partitions.len() as u32} />
                    <div class="step-controls" role="group" aria-label="Stepping">
                        <button onclick={on_step_back} disabled={!can_step_back} aria-label="Step back" title="Step back (←)">{ t.step_back }</button>
                        <button onclick={on_step} disabled={!can_step} aria-label="Step" title="Step (→)">{ t.step }</button>
                        if state.playing {
                            <button onclick={dispatcher(&state, || Action::Pause)} aria-label="Pause" title="Pause (Space)">{ t.pause }</button>
                        } else {
                            <button onclick={dispatcher(&state, || Action::Play)} disabled={!can_step} aria-label="Play" title="Play (Space)">{ t.play }</button>
                        }
                        <label for="speed">{ t.speed }</label>
                        <input id="speed" type="range" min="0" max={(SPEEDS.len() - 1).to_string()} value={state.speed.to_string()}
                            aria-valuetext={format!("{} steps per second", SPEEDS[state.speed])}
                            oninput={speed_input(&state)} />
                        <span class="speed-value">{ format!("{}{}", SPEEDS[state.speed], t.per_second) }</span>
                        <span class="clock" aria-label={format!("step {} · {} ms", view.step, view.time_ms)}>{ format!("{} {} · {} ms", t.step_word, view.step, view.time_ms) }</span>
                    </div>
                    <div class="timeline" role="group" aria-label="Timeline">
                        <label for="timeline">{ t.timeline }</label>
                        <input id="timeline" type="range" min="0" max={(timeline_len - 1).to_string()} value={timeline_index.to_string()}
                            oninput={timeline_input(&state)} />
                        <span class="timeline-value">{ format!("{} / {}", timeline_index, timeline_len - 1) }</span>
                    </div>
                    if let Some(error) = &state.error {
                        <p class="error" role="alert">{ error }</p>
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
                <Partitions partitions={view.partitions.clone()} />
                <Cluster view={view.clone()} />
                <div class="clients">
                    <Produced producers={view.producers.clone()} />
                    <Consumed consumers={view.consumers.clone()} />
                </div>
                <super::inspector::SegmentInspector state={state.clone()} view={view.clone()} />
            </main>
        </div>
        </ContextProvider<Lang>>
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
}

impl Drop for GlobalListeners {
    fn drop(&mut self) {
        #[cfg(target_arch = "wasm32")]
        {
            use wasm_bindgen::JsCast;
            if let Some(window) = web_sys::window() {
                let _ = window.remove_event_listener_with_callback("keydown", self.keydown.as_ref().unchecked_ref());
                if let Some(document) = window.document() {
                    let _ = document
                        .remove_event_listener_with_callback("visibilitychange", self.visibility.as_ref().unchecked_ref());
                }
            }
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn install_global_listeners(state: UseReducerHandle<AppState>) -> GlobalListeners {
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
    let visibility = Closure::<dyn Fn(web_sys::Event)>::new(move |_| {
        if web_sys::window().and_then(|w| w.document()).is_some_and(|d| d.hidden()) {
            state.dispatch(Action::Pause);
        }
    });
    if let Some(window) = web_sys::window() {
        let _ = window.add_event_listener_with_callback("keydown", keydown.as_ref().unchecked_ref());
        if let Some(document) = window.document() {
            let _ = document.add_event_listener_with_callback("visibilitychange", visibility.as_ref().unchecked_ref());
        }
    }
    GlobalListeners { keydown, visibility }
}

#[cfg(not(target_arch = "wasm32"))]
fn install_global_listeners(_state: UseReducerHandle<AppState>) -> GlobalListeners {
    GlobalListeners {}
}

#[derive(Properties, PartialEq)]
struct ProduceFormProps {
    state: UseReducerHandle<AppState>,
}

#[function_component(ProduceForm)]
fn produce_form(props: &ProduceFormProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let key = use_node_ref();
    let value = use_node_ref();
    let acks = use_node_ref();
    let onsubmit = {
        let (key, value, acks, state) = (key.clone(), value.clone(), acks.clone(), props.state.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let read = |r: &NodeRef| r.cast::<web_sys::HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
            let acks = acks.cast::<web_sys::HtmlSelectElement>().and_then(|s| s.value().parse::<i16>().ok()).unwrap_or(-1);
            state.dispatch(Action::Produce { key: read(&key), value: read(&value), acks });
        })
    };
    html! {
        <form class="produce-form" {onsubmit} aria-label="Produce a record">
            <label for="produce-key">{ t.key }</label>
            <input id="produce-key" ref={key} type="text" value="user-42" aria-label="Key" />
            <label for="produce-value">{ t.value }</label>
            <input id="produce-value" ref={value} type="text" value="hello" aria-label="Value" />
            <label for="produce-acks">{ t.acks }</label>
            <select id="produce-acks" ref={acks} aria-label="Acks" title={t.acks_hint}>
                <option value="-1" selected=true>{ "all (-1)" }</option>
                <option value="1">{ "1" }</option>
                <option value="0">{ "0" }</option>
            </select>
            <button type="submit" aria-label="Produce">{ t.produce }</button>
        </form>
    }
}

#[derive(Properties, PartialEq)]
struct FetchFormProps {
    state: UseReducerHandle<AppState>,
    partitions: u32,
}

#[function_component(FetchForm)]
fn fetch_form(props: &FetchFormProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let partition = use_node_ref();
    let offset = use_node_ref();
    let min_bytes = use_node_ref();
    let max_wait = use_node_ref();
    let onsubmit = {
        let refs = (partition.clone(), offset.clone(), min_bytes.clone(), max_wait.clone());
        let state = props.state.clone();
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
            state.dispatch(Action::Fetch { partition, offset, min_bytes, max_wait_ms });
        })
    };
    html! {
        <form class="fetch-form" {onsubmit} aria-label="Fetch records">
            <label for="fetch-partition">{ t.partition }</label>
            <select id="fetch-partition" ref={partition} aria-label="Partition">
                { for (0..props.partitions).map(|p| html! { <option value={p.to_string()}>{ p }</option> }) }
            </select>
            <label for="fetch-offset">{ t.offset }</label>
            <input id="fetch-offset" ref={offset} type="text" inputmode="numeric" placeholder={t.offset_placeholder} size="5" aria-label="Offset" />
            <label for="fetch-min-bytes">{ t.min_bytes }</label>
            <input id="fetch-min-bytes" ref={min_bytes} type="text" inputmode="numeric" value="1" size="5" aria-label="Min bytes" />
            <label for="fetch-max-wait">{ t.max_wait_ms }</label>
            <input id="fetch-max-wait" ref={max_wait} type="text" inputmode="numeric" value="500" size="5" aria-label="Max wait ms" />
            <button type="submit" aria-label="Fetch">{ t.fetch }</button>
        </form>
    }
}

#[derive(Properties, PartialEq)]
struct PartitionsProps {
    partitions: Vec<PartitionView>,
}

#[function_component(Partitions)]
fn partitions(props: &PartitionsProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    html! {
        <section class="partitions-overview" aria-label="Partitions">
            <h2>{ t.partitions }</h2>
            <div class="partition-list">
            { for props.partitions.iter().map(|p| {
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
                            let isr_note = if in_isr { String::new() } else { format!(", {}", t.out_of_isr) };
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
                    </div>
                }
            }) }
            </div>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct ClusterProps {
    view: ClusterView,
}

#[function_component(Cluster)]
fn cluster(props: &ClusterProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let view = &props.view;
    html! {
        <section class="cluster" aria-label="Cluster">
            <p class="legend" aria-label="Legend">
                { for legend(t).into_iter().map(|(t, text)| html! { <span class="legend-item"><TokenChip token={t} />{ text }</span> }) }
            </p>
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
                            <TokenChip token={token} />
                            <span class="route">{ format!(" {} → {} ({} {} ms)", f.from, f.to, t.arrives, f.arrives_at_ms) }</span>
                        </li>
                    }
                }) }
                </ul>
            </div>
            { for view.brokers.iter().map(|b| html! { <Broker broker={b.clone()} /> }) }
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
    html! {
        <section class="broker" role="region" aria-label={label.clone()}>
            <h2>{ format!("{} {}", t.broker, b.id) }</h2>
            <div class="pipeline">
                <Stage title="Socket receive buffer" shown={t.socket_receive_buffer} tokens={b.socket_receive_buffer.clone()} />
                <div class="stage-group">
                    { for b.network_threads.iter().map(|nt| {
                        let mut tokens: Vec<Token> = nt.work.iter().cloned().collect();
                        tokens.extend(nt.blocked.iter().cloned());
                        html! { <Stage title={format!("Network thread {}", nt.id)} shown={format!("{} {}", t.network_thread, nt.id)} {tokens} /> }
                    }) }
                </div>
                <Stage
                    title={format!("Request queue ({}/{})", b.request_queue.len(), b.request_queue_capacity)}
                    shown={format!("{} ({}/{})", t.request_queue, b.request_queue.len(), b.request_queue_capacity)}
                    tokens={b.request_queue.clone()} />
                <div class="stage-group">
                    { for b.io_threads.iter().map(|io| html! {
                        <Stage title={format!("I/O thread {}", io.id)} shown={format!("{} {}", t.io_thread, io.id)}
                            tokens={io.work.iter().cloned().collect::<Vec<_>>()} />
                    }) }
                </div>
                <div class="stage-group">
                    <Stage title="Log append" shown={t.log_append} tokens={b.log_append.clone()} />
                    <Stage title="Log read" shown={t.log_read} tokens={b.log_read.clone()} />
                </div>
                <Stage title="Purgatory" shown={t.purgatory} tokens={purgatory} />
                <div class="stage-group">
                    { for b.network_threads.iter().map(|nt| html! {
                        <Stage title={format!("Response queue {}", nt.id)} shown={format!("{} {}", t.response_queue, nt.id)}
                            tokens={nt.response_queue.clone()} />
                    }) }
                </div>
                <Stage title="Socket send buffer" shown={t.socket_send_buffer} tokens={b.socket_send_buffer.clone()} />
            </div>
            if !waits.is_empty() {
                <ul class="purgatory-waits" aria-label="Waiting in purgatory">
                    { for waits.iter().map(|w| html! { <li>{ w }</li> }) }
                </ul>
            }
            <div class="replicas">
                { for b.replicas.iter().map(|r| html! {
                    <div class={classes!("replica", r.is_leader.then_some("leader"))}>
                        <strong>{ format!("{}-{}", r.topic, r.partition) }</strong>
                        <span>{ format!(" {}", if r.is_leader { t.leader_word } else { t.follower_word }) }</span>
                        <span class="replica-offsets">{ format!(" · LEO {} · HW {} · {} {}", r.log_end_offset, r.high_watermark, r.segments.len(), t.segments) }</span>
                    </div>
                }) }
            </div>
            if !b.fetchers.is_empty() {
                <p class="fetchers">
                    { for b.fetchers.iter().map(|f| html! {
                        <span class="fetcher">{ format!("{} → {} {}{} ", t.replica_fetcher, t.broker, f.leader,
                            if f.in_flight { format!(" ({})", t.fetch_in_flight) } else { String::new() }) }</span>
                    }) }
                </p>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct StageProps {
    /// The English name, which is also the accessible name.
    title: AttrValue,
    /// The name shown, in the page's language.
    shown: AttrValue,
    tokens: Vec<Token>,
}

#[function_component(Stage)]
fn stage(props: &StageProps) -> Html {
    let busy = if props.tokens.is_empty() { "stage" } else { "stage busy" };
    html! {
        <div class={busy} aria-label={props.title.clone()}>
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
    let (class, label) = match t.direction {
        Direction::Request => (classes!("token", kind), format!("{name}{id}")),
        Direction::Response => (classes!("token", kind, "response"), format!("{name} {}{id}", texts.response_word)),
    };
    html! { <span {class}>{ label }</span> }
}

#[derive(Properties, PartialEq)]
struct ProducedProps {
    producers: Vec<ProducerView>,
}

#[function_component(Produced)]
fn produced(props: &ProducedProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
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
                html! { <li class="produce-result">{ format!("{id} (acks={acks}) {} {key}: {state}", t.key_word) }</li> }
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
                <div>
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
                    { for c.consumed.iter().map(|r| html! {
                        <li>{ format!("{} offset {}: {} = {}", r.partition, r.offset,
                            r.key.clone().unwrap_or_else(|| "null".into()), r.value.clone().unwrap_or_else(|| "null".into())) }</li>
                    }) }
                    </ul>
                </div>
            }) }
        </section>
    }
}
