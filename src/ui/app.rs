//! The components. They draw the simulation's view model and narrate its
//! trace; every change goes through [`Action`] and the [`Session`].

use super::narrate::narrate;
use super::session::Session;
use crate::sim::protocol::ApiKey;
use crate::sim::simulation::Command;
use crate::sim::trace::Direction;
use crate::sim::view::{BrokerView, ClientView, ClusterView, Token};
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
}

impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version && self.error == other.error
    }
}

impl Default for AppState {
    fn default() -> Self {
        Self { session: Rc::new(RefCell::new(Session::default())), version: 0, error: None }
    }
}

pub enum Action {
    Step,
    StepBack,
    Produce { key: String, value: String, acks: i16 },
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut error = None;
        {
            let mut session = self.session.borrow_mut();
            match action {
                Action::Step => {
                    session.step();
                }
                Action::StepBack => {
                    session.step_back();
                }
                Action::Produce { key, value, acks } => {
                    let command = Command::Produce {
                        client: 0,
                        topic: "orders".into(),
                        // An empty field means no key: Kafka's null key.
                        key: (!key.is_empty()).then_some(key),
                        value: Some(value),
                        acks,
                    };
                    if let Err(e) = session.command(command) {
                        error = Some(e.to_string());
                    }
                }
            }
        }
        Rc::new(AppState { session: self.session.clone(), version: self.version + 1, error })
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
    drop(session);

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
                <p class="tagline">{ "Watch a request travel through a Kafka broker, one hop at a time." }</p>
            </header>
            <main>
                <section class="controls" aria-label="Controls">
                    <ProduceForm state={state.clone()} />
                    <div class="step-controls" role="group" aria-label="Stepping">
                        <button onclick={on_step_back} disabled={!can_step_back} aria-label="Step back">{ "◀ Step back" }</button>
                        <button onclick={on_step} disabled={!can_step} aria-label="Step">{ "Step ▶" }</button>
                        <span class="clock">{ format!("step {} · {} ms", view.step, view.time_ms) }</span>
                    </div>
                    if let Some(error) = &state.error {
                        <p class="error" role="alert">{ error }</p>
                    }
                </section>
                <Cluster view={view.clone()} />
                <section class="narration" aria-label="What just happened" aria-live="polite">
                    <h2>{ "What just happened" }</h2>
                    if narration.is_empty() {
                        <p class="hint">{ "Press Produce to send a record, then Step to move it one hop." }</p>
                    } else {
                        <ul>{ for narration.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
                    }
                </section>
                <Produced clients={view.clients.clone()} />
            </main>
        </div>
    }
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
            let acks = acks
                .cast::<web_sys::HtmlSelectElement>()
                .and_then(|s| s.value().parse::<i16>().ok())
                .unwrap_or(-1);
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
            <select id="produce-acks" ref={acks}>
                <option value="-1" selected=true>{ "all (-1)" }</option>
                <option value="1">{ "1" }</option>
                <option value="0">{ "0" }</option>
            </select>
            <button type="submit" aria-label="Produce">{ "Produce" }</button>
        </form>
    }
}

#[derive(Properties, PartialEq)]
struct ClusterProps {
    view: ClusterView,
}

#[function_component(Cluster)]
fn cluster(props: &ClusterProps) -> Html {
    let view = &props.view;
    let wire: Vec<Token> = view
        .in_flight
        .iter()
        .map(|f| Token { request: f.request, api: f.api, direction: f.direction })
        .collect();
    html! {
        <section class="cluster" aria-label="Cluster">
            <div class="client-box">
                <h3>{ "Producer client-0" }</h3>
                <div class="stage wire" aria-label="Network">
                    <h4>{ "Network" }</h4>
                    <Tokens tokens={wire} />
                </div>
            </div>
            { for view.brokers.iter().map(|b| html! { <Broker broker={b.clone()} /> }) }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct BrokerProps {
    broker: BrokerView,
}

#[function_component(Broker)]
fn broker(props: &BrokerProps) -> Html {
    let b = &props.broker;
    let label = format!("Broker {}", b.id);
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
                <Stage title="Log append" tokens={b.log_append.clone()} />
                <div class="stage-group">
                    { for b.network_threads.iter().map(|t| html! {
                        <Stage title={format!("Response queue {}", t.id)} tokens={t.response_queue.clone()} />
                    }) }
                </div>
                <Stage title="Socket send buffer" tokens={b.socket_send_buffer.clone()} />
            </div>
            <div class="partitions">
                { for b.partitions.iter().map(|p| html! {
                    <div class="partition" aria-label={format!("Partition {}-{}", p.topic, p.partition)}>
                        <h4>{ format!("{}-{}", p.topic, p.partition) }</h4>
                        <span>{ format!("Leader: {}", p.leader.map(|l| l.to_string()).unwrap_or_else(|| "none".into())) }</span>
                        <span>{ format!(" · log end offset {}", p.log_end_offset) }</span>
                        <ol class="log" start="0">
                            { for p.records.iter().map(|r| html! {
                                <li class="record">{ format!("{}: {} = {}", r.offset,
                                    r.key.clone().unwrap_or_else(|| "null".into()),
                                    r.value.clone().unwrap_or_else(|| "null".into())) }</li>
                            }) }
                        </ol>
                    </div>
                }) }
            </div>
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
            <Tokens tokens={props.tokens.clone()} />
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct TokensProps {
    tokens: Vec<Token>,
}

#[function_component(Tokens)]
fn tokens(props: &TokensProps) -> Html {
    html! {
        <div class="tokens">
            { for props.tokens.iter().map(|t| {
                let api = match t.api {
                    ApiKey::Produce => "produce",
                    ApiKey::Fetch => "fetch",
                    ApiKey::Metadata => "metadata",
                };
                let (class, label) = match t.direction {
                    Direction::Request => (format!("token {api}"), format!("{} {}", t.api.name(), t.request)),
                    Direction::Response => (format!("token {api} response"), format!("{} response {}", t.api.name(), t.request)),
                };
                html! { <span class={class}>{ label }</span> }
            }) }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct ProducedProps {
    clients: Vec<ClientView>,
}

#[function_component(Produced)]
fn produced(props: &ProducedProps) -> Html {
    let outcomes: Vec<_> = props.clients.iter().flat_map(|c| c.produced.iter()).collect();
    html! {
        <section class="produced" aria-label="Produced records">
            <h2>{ "Produced records" }</h2>
            if outcomes.is_empty() {
                <p class="hint">{ "Nothing produced yet." }</p>
            }
            <ul>
            { for outcomes.iter().map(|o| {
                let text = match &o.result {
                    None => format!("{}: waiting for the broker's answer", o.request),
                    Some(r) if r.error.code() == 0 => format!(
                        "{}: {} partition {}, offset {}", o.request, o.partition.topic, o.partition.partition, r.base_offset),
                    Some(r) => format!("{}: failed with {}", o.request, r.error),
                };
                html! { <li class="produce-result">{ text }</li> }
            }) }
            </ul>
        </section>
    }
}
