//! The components. They draw the simulation's view model and narrate its
//! trace; every change goes through [`Action`] and the [`Session`].

use super::narrate::narrate;
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
}

impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version && self.error == other.error
    }
}

impl Default for AppState {
    fn default() -> Self {
        Self { session: Rc::new(RefCell::new(Session::default())), version: 0, error: None, playing: false, speed: 4 }
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
    Produce { key: String, value: String, acks: i16 },
    Fetch { partition: u32, offset: Option<i64>, min_bytes: i32, max_wait_ms: i32 },
    ShowError(String),
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut error = None;
        let (mut playing, mut speed) = (self.playing, self.speed);
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
        Rc::new(AppState { session: self.session.clone(), version: self.version + 1, error, playing, speed })
    }
}

#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(AppState::default);
    let session = state.session.borrow();
    let view = session.view();
    let narration: Vec<String> = session.last_step_trace().iter().map(narrate).collect();
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
        <div class="app">
            <header class="app-header">
                <h1>{ "KafkaScope" }</h1>
                <p class="tagline">{ "A Kafka cluster running in your browser. Send a record, then step through every hop it makes." }</p>
            </header>
            <main>
                <section class="controls" aria-label="Controls">
                    <ProduceForm state={state.clone()} />
                    <FetchForm state={state.clone()} partitions={view.partitions.len() as u32} />
                    <div class="step-controls" role="group" aria-label="Stepping">
                        <button onclick={on_step_back} disabled={!can_step_back} aria-label="Step back" title="Step back (←)">{ "◀ Step back" }</button>
                        <button onclick={on_step} disabled={!can_step} aria-label="Step" title="Step (→)">{ "Step ▶" }</button>
                        if state.playing {
                            <button onclick={dispatcher(&state, || Action::Pause)} aria-label="Pause" title="Pause (Space)">{ "⏸ Pause" }</button>
                        } else {
                            <button onclick={dispatcher(&state, || Action::Play)} disabled={!can_step} aria-label="Play" title="Play (Space)">{ "⏵ Play" }</button>
                        }
                        <label for="speed">{ "Speed" }</label>
                        <input id="speed" type="range" min="0" max={(SPEEDS.len() - 1).to_string()} value={state.speed.to_string()}
                            aria-valuetext={format!("{} steps per second", SPEEDS[state.speed])}
                            oninput={speed_input(&state)} />
                        <span class="speed-value">{ format!("{}/s", SPEEDS[state.speed]) }</span>
                        <span class="clock">{ format!("step {} · {} ms", view.step, view.time_ms) }</span>
                    </div>
                    <div class="timeline" role="group" aria-label="Timeline">
                        <label for="timeline">{ "Timeline" }</label>
                        <input id="timeline" type="range" min="0" max={(timeline_len - 1).to_string()} value={timeline_index.to_string()}
                            oninput={timeline_input(&state)} />
                        <span class="timeline-value">{ format!("{} / {}", timeline_index, timeline_len - 1) }</span>
                    </div>
                    if let Some(error) = &state.error {
                        <p class="error" role="alert">{ error }</p>
                    }
                </section>
                <section class="narration" aria-label="What just happened" aria-live="polite">
                    <h2>{ "What just happened" }</h2>
                    if narration.is_empty() {
                        <p class="hint">{ "Press Step to start the brokers, or Produce to send a record, then Step to move it one hop." }</p>
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
            </main>
        </div>
    }
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
            <label for="produce-key">{ "Key" }</label>
            <input id="produce-key" ref={key} type="text" value="user-42" />
            <label for="produce-value">{ "Value" }</label>
            <input id="produce-value" ref={value} type="text" value="hello" />
            <label for="produce-acks">{ "Acks" }</label>
            <select id="produce-acks" ref={acks} title="acks is a producer setting: each choice uses its own producer">
                <option value="-1" selected=true>{ "all (-1)" }</option>
                <option value="1">{ "1" }</option>
                <option value="0">{ "0" }</option>
            </select>
            <button type="submit" aria-label="Produce">{ "Produce" }</button>
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
                        state.dispatch(Action::ShowError(format!("The fetch offset {offset_text:?} is not a whole number.")));
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
            <label for="fetch-partition">{ "Partition" }</label>
            <select id="fetch-partition" ref={partition}>
                { for (0..props.partitions).map(|p| html! { <option value={p.to_string()}>{ p }</option> }) }
            </select>
            <label for="fetch-offset">{ "Offset" }</label>
            <input id="fetch-offset" ref={offset} type="text" inputmode="numeric" placeholder="next" size="5" />
            <label for="fetch-min-bytes">{ "Min bytes" }</label>
            <input id="fetch-min-bytes" ref={min_bytes} type="text" inputmode="numeric" value="1" size="5" />
            <label for="fetch-max-wait">{ "Max wait ms" }</label>
            <input id="fetch-max-wait" ref={max_wait} type="text" inputmode="numeric" value="500" size="5" />
            <button type="submit" aria-label="Fetch">{ "Fetch" }</button>
        </form>
    }
}

#[derive(Properties, PartialEq)]
struct PartitionsProps {
    partitions: Vec<PartitionView>,
}

#[function_component(Partitions)]
fn partitions(props: &PartitionsProps) -> Html {
    html! {
        <section class="partitions-overview" aria-label="Partitions">
            <h2>{ "Partitions" }</h2>
            <div class="partition-list">
            { for props.partitions.iter().map(|p| {
                let max = p.replica_offsets.iter().map(|(_, leo, _)| *leo).max().unwrap_or(0).max(1);
                let leader = p.leader.map(|l| l.to_string()).unwrap_or_else(|| "none".into());
                html! {
                    <div class="partition" role="group" aria-label={format!("Partition {}-{}", p.topic, p.partition)}>
                        <h3>{ format!("{}-{}", p.topic, p.partition) }</h3>
                        <p class="partition-facts">
                            <span>{ format!("Leader: {leader}") }</span>
                            <span>{ format!(" · epoch {}", p.leader_epoch) }</span>
                            <span>{ format!(" · ISR {:?}", p.isr) }</span>
                            <span>{ format!(" · HW {}", p.high_watermark) }</span>
                        </p>
                        <ul class="replica-bars">
                        { for p.replica_offsets.iter().map(|(b, leo, hw)| {
                            let role = if Some(*b) == p.leader { "leader" } else { "follower" };
                            let in_isr = p.isr.contains(b);
                            html! {
                                <li class={classes!("replica-bar", role, (!in_isr).then_some("out-of-isr"))}>
                                    <span class="replica-name">{ format!("broker {b} ({role}{})", if in_isr { "" } else { ", out of ISR" }) }</span>
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
    let view = &props.view;
    html! {
        <section class="cluster" aria-label="Cluster">
            <p class="legend" aria-label="Legend">
                { for legend().into_iter().map(|(t, text)| html! { <span class="legend-item"><TokenChip token={t} />{ text }</span> }) }
            </p>
            <div class="network-box" aria-label="Network">
                <h3>{ "On the network" }</h3>
                if view.in_flight.is_empty() {
                    <p class="hint">{ "Nothing in flight." }</p>
                }
                <ul class="in-flight">
                { for view.in_flight.iter().map(|f| {
                    let token = Token { request: f.request, api: f.api, direction: f.direction, follower_fetch: f.follower_fetch };
                    html! {
                        <li>
                            <TokenChip token={token} />
                            <span class="route">{ format!(" {} → {} (arrives {} ms)", f.from, f.to, f.arrives_at_ms) }</span>
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
fn legend() -> Vec<(Token, &'static str)> {
    let id = crate::sim::ids::RequestId { client: NodeId::Client(0), correlation_id: 0 };
    let follower = crate::sim::ids::RequestId { client: NodeId::Broker(0), correlation_id: 0 };
    let token = |request, api, direction, follower_fetch| Token { request, api, direction, follower_fetch };
    vec![
        (token(id, ApiKey::Produce, Direction::Request, false), " a producer's records"),
        (token(id, ApiKey::Fetch, Direction::Request, false), " a consumer reading"),
        (token(follower, ApiKey::Fetch, Direction::Request, true), " a follower copying the leader"),
        (token(id, ApiKey::Metadata, Direction::Request, false), " who leads what"),
        (token(id, ApiKey::Produce, Direction::Response, false), " outlined: a response"),
    ]
}

#[derive(Properties, PartialEq)]
struct BrokerProps {
    broker: BrokerView,
}

#[function_component(Broker)]
fn broker(props: &BrokerProps) -> Html {
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
            let why: Vec<String> = op.waits.iter().map(super::narrate::describe_wait).collect();
            format!("{}: {}", op.token.request, why.join("; "))
        })
        .collect();
    html! {
        <section class="broker" role="region" aria-label={label.clone()}>
            <h2>{ label }</h2>
            <div class="pipeline">
                <Stage title="Socket receive buffer" tokens={b.socket_receive_buffer.clone()} />
                <div class="stage-group">
                    { for b.network_threads.iter().map(|t| {
                        let mut tokens: Vec<Token> = t.work.iter().cloned().collect();
                        tokens.extend(t.blocked.iter().cloned());
                        html! { <Stage title={format!("Network thread {}", t.id)} {tokens} /> }
                    }) }
                </div>
                <Stage
                    title={format!("Request queue ({}/{})", b.request_queue.len(), b.request_queue_capacity)}
                    tokens={b.request_queue.clone()} />
                <div class="stage-group">
                    { for b.io_threads.iter().map(|t| html! {
                        <Stage title={format!("I/O thread {}", t.id)} tokens={t.work.iter().cloned().collect::<Vec<_>>()} />
                    }) }
                </div>
                <div class="stage-group">
                    <Stage title="Log append" tokens={b.log_append.clone()} />
                    <Stage title="Log read" tokens={b.log_read.clone()} />
                </div>
                <Stage title="Purgatory" tokens={purgatory} />
                <div class="stage-group">
                    { for b.network_threads.iter().map(|t| html! {
                        <Stage title={format!("Response queue {}", t.id)} tokens={t.response_queue.clone()} />
                    }) }
                </div>
                <Stage title="Socket send buffer" tokens={b.socket_send_buffer.clone()} />
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
                        <span>{ if r.is_leader { " leader" } else { " follower" } }</span>
                        <span class="replica-offsets">{ format!(" · LEO {} · HW {} · {} segment(s)", r.log_end_offset, r.high_watermark, r.segments.len()) }</span>
                    </div>
                }) }
            </div>
            if !b.fetchers.is_empty() {
                <p class="fetchers">
                    { for b.fetchers.iter().map(|f| html! {
                        <span class="fetcher">{ format!("Replica fetcher → broker {}{} ", f.leader, if f.in_flight { " (fetch in flight)" } else { "" }) }</span>
                    }) }
                </p>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct StageProps {
    title: AttrValue,
    tokens: Vec<Token>,
}

#[function_component(Stage)]
fn stage(props: &StageProps) -> Html {
    let busy = if props.tokens.is_empty() { "stage" } else { "stage busy" };
    html! {
        <div class={busy} aria-label={props.title.clone()}>
            <h4>{ props.title.clone() }</h4>
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
    let t = &props.token;
    let (kind, name) = match (t.api, t.follower_fetch) {
        (ApiKey::Fetch, true) => ("follower-fetch", "Follower Fetch".to_string()),
        (ApiKey::Produce, _) => ("produce", "Produce".to_string()),
        (ApiKey::Fetch, false) => ("fetch", "Fetch".to_string()),
        (ApiKey::Metadata, _) => ("metadata", "Metadata".to_string()),
        (ApiKey::InitProducerId, _) => ("init-producer-id", "InitProducerId".to_string()),
    };
    // Correlation id 0 is never used by a client, so it marks a legend chip.
    let id = if t.request.correlation_id == 0 { String::new() } else { format!(" {}", t.request) };
    let (class, label) = match t.direction {
        Direction::Request => (classes!("token", kind), format!("{name}{id}")),
        Direction::Response => (classes!("token", kind, "response"), format!("{name} response{id}")),
    };
    html! { <span {class}>{ label }</span> }
}

#[derive(Properties, PartialEq)]
struct ProducedProps {
    producers: Vec<ProducerView>,
}

#[function_component(Produced)]
fn produced(props: &ProducedProps) -> Html {
    let rows: Vec<(NodeId, i16, &crate::sim::client::producer::RecordOutcome)> =
        props.producers.iter().flat_map(|p| p.records.iter().map(move |r| (p.id, p.acks, r))).collect();
    html! {
        <section class="produced" aria-label="Produced records">
            <h2>{ "Produced records" }</h2>
            if rows.is_empty() {
                <p class="hint">{ "Nothing produced yet." }</p>
            }
            <ul>
            { for rows.iter().map(|(id, acks, r)| {
                let acks = if *acks == -1 { "all".to_string() } else { acks.to_string() };
                let key = r.key.clone().unwrap_or_else(|| "null".into());
                let state = match &r.state {
                    RecordState::AwaitingMetadata => "waiting for metadata".to_string(),
                    RecordState::Accumulating => "in the producer's batch".to_string(),
                    RecordState::InFlight { .. } => "waiting for the broker's answer".to_string(),
                    RecordState::SentWithoutAck => format!("sent to partition {} with acks=0: no offset comes back", r.partition.unwrap_or(0)),
                    RecordState::Acknowledged { offset } => format!("partition {}, offset {offset}", r.partition.unwrap_or(0)),
                    RecordState::Failed { error } => format!("failed with {error}"),
                };
                html! { <li class="produce-result">{ format!("{id} (acks={acks}) key {key}: {state}") }</li> }
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
    html! {
        <section class="consumed" aria-label="Consumed records">
            <h2>{ "Consumed records" }</h2>
            { for props.consumers.iter().map(|c| html! {
                <div>
                    if c.fetches.is_empty() {
                        <p class="hint">{ "No fetch yet: press Fetch." }</p>
                    }
                    <ul>
                    { for c.fetches.iter().map(|f| {
                        let text = match &f.result {
                            None => format!("{} fetch {} from offset {}: waiting", f.request, f.partition, f.fetch_offset),
                            Some(r) if r.error.code() == 0 => format!(
                                "{} fetch {} from offset {}: {} record(s), next offset {}, HW {}",
                                f.request, f.partition, f.fetch_offset, r.records, r.next_offset, r.high_watermark),
                            Some(r) => format!("{} fetch {} from offset {}: {}", f.request, f.partition, f.fetch_offset, r.error),
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
