//! The controller quorum and the fault buttons: who the active controller
//! is, each voter's Raft state, and Kill / Restart for every controller and
//! broker. The quorum is drawn from the view model's `QuorumView` only.

use super::i18n::{self, Lang};
use crate::sim::raft::state::RaftRole;
use crate::sim::simulation::Command;
use crate::sim::ids::NodeId;
use crate::sim::simulation::NodeSet;
use crate::sim::view::{BrokerStatus, ClusterView, ControllerView};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct QuorumProps {
    pub view: std::rc::Rc<ClusterView>,
    pub on_fault: Callback<Command>,
}

#[function_component(Quorum)]
pub fn quorum(props: &QuorumProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let Some(q) = &props.view.quorum else {
        return html! {};
    };
    // The accessible text stays English ("Active controller: 1"), as every
    // name the tests and outside checks rely on does.
    let active_en = q.active.map_or_else(|| "none".to_string(), |a| a.to_string());
    let active_shown = q.active.map_or_else(|| t.none_word.to_string(), |a| a.to_string());
    html! {
        <section class="quorum" role="region" aria-label="Controller quorum">
            <h2>{ t.controller_quorum }</h2>
            <p class={classes!("active-controller", q.active.is_none().then_some("none"))}
                aria-label={format!("Active controller: {active_en}")}>
                <strong>{ format!("{}: {active_shown}", t.active_controller) }</strong>
                <span class="quorum-facts">{ format!(" · {}", i18n::quorum_facts(lang, q.epoch, q.majority, q.controllers.len())) }</span>
            </p>
            if q.active.is_none() {
                <p class="warning" role="status">{ t.no_active_controller }</p>
            }
            <p class="hint">{ t.quorum_intro }</p>
            <div class="controllers">
                { for q.controllers.iter().map(|c| {
                    let node = NodeId::Controller(c.id);
                    html! { <ControllerCard controller={c.clone()} isolate={isolate(&props.view, node)}
                        isolated={is_cut_off(&props.view, node)} on_fault={props.on_fault.clone()} /> }
                }) }
            </div>
            <NetworkFaults cuts={props.view.network_cuts.clone()} on_fault={props.on_fault.clone()} />
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct ControllerCardProps {
    controller: ControllerView,
    isolate: Command,
    isolated: bool,
    on_fault: Callback<Command>,
}

#[function_component(ControllerCard)]
fn controller_card(props: &ControllerCardProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let c = &props.controller;
    let id = c.id;
    let (role_class, role_text) = match &c.raft {
        None => ("stopped", t.status_stopped.to_string()),
        Some(r) => {
            let name = match r.role {
                RaftRole::Leader { .. } => "Leader",
                RaftRole::Follower { .. } => "Follower",
                RaftRole::Candidate { .. } => "Candidate",
                RaftRole::Prospective { .. } => "Prospective",
                RaftRole::Unattached { .. } => "Unattached",
                RaftRole::Resigned { .. } => "Resigned",
            };
            (if c.active { "active" } else { "voter" }, i18n::raft_role(lang, name))
        }
    };
    let kill_or_restart = if c.alive {
        let shown = format!("{} {} {id}", t.kill, t.controller);
        fault_button(&props.on_fault, format!("Kill controller {id}"), shown, Command::KillController { controller: id }, "kill")
    } else {
        let shown = format!("{} {} {id}", t.restart, t.controller);
        fault_button(&props.on_fault, format!("Restart controller {id}"), shown, Command::RestartController { controller: id }, "restart")
    };
    let facts = match &c.raft {
        Some(r) => {
            let voted = r.voted_for.map_or_else(|| "–".to_string(), |v| v.to_string());
            let hw = r.high_watermark.map_or_else(|| "?".to_string(), |h| h.to_string());
            format!("{} {} · {} {voted} · {} LEO {} · HW {hw}", t.epoch, r.epoch, t.voted_for, t.metadata_log, r.log_end_offset)
        }
        None => format!("{} LEO {}", t.metadata_log, c.log_end_offset),
    };
    let detail = c.raft.as_ref().and_then(|r| match &r.role {
        RaftRole::Leader { progress } => Some(
            progress
                .iter()
                .map(|p| format!("{} {}: {}", t.controller, p.id, p.end_offset.map_or_else(|| "?".to_string(), |o| o.to_string())))
                .collect::<Vec<_>>()
                .join(" · "),
        ),
        RaftRole::Candidate { votes, .. } | RaftRole::Prospective { votes } => {
            Some(format!("{} {:?}", lang_votes(lang), votes.granted))
        }
        _ => None,
    });
    html! {
        <div class={classes!("controller", role_class)} role="group" aria-label={format!("Controller {id}")}>
            <div class="node-head">
                <h3>{ format!("{} {id}", t.controller) }</h3>
                <span class={classes!("badge", role_class)}>{ role_text }</span>
            </div>
            <p class="controller-facts">{ facts }</p>
            if let Some(d) = detail {
                <p class="controller-detail">{ d }</p>
            }
            <div class="fault-buttons">
                { kill_or_restart }
                if props.isolated {
                    <span class="badge isolated" title={t.isolated_hint}>{ t.isolated }</span>
                } else {
                    { fault_button(&props.on_fault, format!("Isolate controller {id}"), t.isolate.to_string(), props.isolate.clone(), "isolate") }
                }
            </div>
        </div>
    }
}

fn lang_votes(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "votes granted by",
        Lang::Ko => "찬성한 투표자",
    }
}

/// A broker's status badge and its fault buttons: Kill (a crash), Shut
/// down (a controlled shutdown), Isolate (a network partition around it),
/// and Restart once it is down.
#[derive(Properties, PartialEq)]
pub struct BrokerFaultProps {
    pub broker: u32,
    pub status: BrokerStatus,
    /// The command that cuts this broker off from every other node.
    pub isolate: Command,
    /// Some cut already has this broker on one side.
    pub isolated: bool,
    pub on_fault: Callback<Command>,
}

#[function_component(BrokerFault)]
pub fn broker_fault(props: &BrokerFaultProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let b = props.broker;
    let (class, text, hint) = match props.status {
        BrokerStatus::Running => ("running", t.status_running, None),
        BrokerStatus::Fenced => ("fenced", t.status_fenced, Some(t.status_fenced_hint)),
        BrokerStatus::ShuttingDown => ("shutting-down", t.status_shutting_down, Some(t.status_shutting_down_hint)),
        BrokerStatus::Stopped => ("stopped", t.status_stopped, Some(t.status_stopped_hint)),
    };
    let button = |label, shown, command, class| fault_button(&props.on_fault, label, shown, command, class);
    let down = props.status == BrokerStatus::Stopped;
    html! {
        <span class="broker-fault">
            <span class={classes!("badge", class)} title={hint.unwrap_or_default()}>{ text }</span>
            if props.isolated {
                <span class="badge isolated" title={t.isolated_hint}>{ t.isolated }</span>
            }
            if down {
                { button(format!("Restart broker {b}"), format!("{} {} {b}", t.restart, t.broker), Command::RestartBroker { broker: b }, "restart") }
            } else {
                { button(format!("Kill broker {b}"), format!("{} {} {b}", t.kill, t.broker), Command::KillBroker { broker: b }, "kill") }
                if props.status != BrokerStatus::ShuttingDown {
                    { button(format!("Shut down broker {b}"), t.shut_down.to_string(), Command::ShutdownBroker { broker: b }, "shutdown") }
                }
            }
            if !props.isolated {
                { button(format!("Isolate broker {b}"), t.isolate.to_string(), props.isolate.clone(), "isolate") }
            }
        </span>
    }
}

/// A fault button: `label` is its accessible (English) name, `shown` its
/// text in the page's language, `class` its colour.
fn fault_button(on_fault: &Callback<Command>, label: String, shown: String, command: Command, class: &'static str) -> Html {
    let on_fault = on_fault.clone();
    let onclick = Callback::from(move |_: MouseEvent| on_fault.emit(command.clone()));
    html! { <button type="button" class={classes!("fault", class)} {onclick} aria-label={label}>{ shown }</button> }
}

/// The command that cuts `node` off from every other node of the view.
pub fn isolate(view: &ClusterView, node: NodeId) -> Command {
    let mut rest = NodeSet::default();
    for b in &view.brokers {
        rest.brokers.push(b.id);
    }
    for c in view.quorum.iter().flat_map(|q| q.controllers.iter()) {
        rest.controllers.push(c.id);
    }
    for id in view.producers.iter().map(|p| p.id).chain(view.consumers.iter().map(|c| c.id)) {
        if let NodeId::Client(c) = id {
            rest.clients.push(c);
        }
    }
    let mut one = NodeSet::default();
    match node {
        NodeId::Broker(b) => {
            rest.brokers.retain(|x| *x != b);
            one.brokers.push(b);
        }
        NodeId::Controller(c) => {
            rest.controllers.retain(|x| *x != c);
            one.controllers.push(c);
        }
        NodeId::Client(c) => {
            rest.clients.retain(|x| *x != c);
            one.clients.push(c);
        }
    }
    Command::Partition { a: one, b: rest }
}

/// Whether a cut in place has `node` on its smaller side: the side that is
/// cut off from the rest (the first side when both are the same size).
pub fn is_cut_off(view: &ClusterView, node: NodeId) -> bool {
    view.network_cuts
        .iter()
        .any(|(a, b)| (a.contains(&node) && a.len() <= b.len()) || (b.contains(&node) && b.len() < a.len()))
}

#[derive(Properties, PartialEq)]
pub struct NetworkFaultsProps {
    pub cuts: Vec<(Vec<NodeId>, Vec<NodeId>)>,
    pub on_fault: Callback<Command>,
}

/// The network partitions in place, and Heal.
#[function_component(NetworkFaults)]
pub fn network_faults(props: &NetworkFaultsProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let names = |side: &[NodeId]| side.iter().map(NodeId::to_string).collect::<Vec<_>>().join(", ");
    let onclick = {
        let on_fault = props.on_fault.clone();
        Callback::from(move |_: MouseEvent| on_fault.emit(Command::Heal))
    };
    html! {
        <section class="network-faults" role="region" aria-label="Network partitions">
            <h3>{ t.network_partitions }</h3>
            if props.cuts.is_empty() {
                <p class="hint">{ t.no_partitions }</p>
            } else {
                <ul class="cuts">
                    { for props.cuts.iter().map(|(a, b)| html! { <li>{ format!("{} ✂ {}", names(a), names(b)) }</li> }) }
                </ul>
                <p class="hint">{ t.isolated_hint }</p>
            }
            <button type="button" class="fault restart" {onclick} disabled={props.cuts.is_empty()} aria-label="Heal network">{ t.heal_network }</button>
        </section>
    }
}
