//! The controller quorum and the fault buttons: who the active controller
//! is, each voter's Raft state, and Kill / Restart for every controller and
//! broker. The quorum is drawn from the view model's [`QuorumView`] only.

use super::i18n::{self, Lang};
use crate::sim::raft::state::RaftRole;
use crate::sim::simulation::Command;
use crate::sim::view::{BrokerStatus, ControllerView, QuorumView};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct QuorumProps {
    pub quorum: QuorumView,
    pub on_fault: Callback<Command>,
}

#[function_component(Quorum)]
pub fn quorum(props: &QuorumProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let q = &props.quorum;
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
                { for q.controllers.iter().map(|c| html! { <ControllerCard controller={c.clone()} on_fault={props.on_fault.clone()} /> }) }
            </div>
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct ControllerCardProps {
    controller: ControllerView,
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
    let (label, command, shown) = if c.alive {
        (format!("Kill controller {id}"), Command::KillController { controller: id }, format!("{} {}", t.kill, t.controller))
    } else {
        (format!("Restart controller {id}"), Command::RestartController { controller: id }, format!("{} {}", t.restart, t.controller))
    };
    let onclick = {
        let (on_fault, command) = (props.on_fault.clone(), command.clone());
        Callback::from(move |_: MouseEvent| on_fault.emit(command.clone()))
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
            <button type="button" class={classes!("fault", (!c.alive).then_some("restart"))} {onclick} aria-label={label}>
                { format!("{shown} {id}") }
            </button>
        </div>
    }
}

fn lang_votes(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "votes granted by",
        Lang::Ko => "찬성한 투표자",
    }
}

/// A broker's status badge and its Kill / Restart button.
#[derive(Properties, PartialEq)]
pub struct BrokerFaultProps {
    pub broker: u32,
    pub status: BrokerStatus,
    pub on_fault: Callback<Command>,
}

#[function_component(BrokerFault)]
pub fn broker_fault(props: &BrokerFaultProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let b = props.broker;
    let (class, text, hint) = match props.status {
        BrokerStatus::Running => ("running", t.status_running, None),
        BrokerStatus::Fenced => ("fenced", t.status_fenced, Some(t.status_fenced_hint)),
        BrokerStatus::Stopped => ("stopped", t.status_stopped, Some(t.status_stopped_hint)),
    };
    let down = props.status == BrokerStatus::Stopped;
    let (label, command, shown) = if down {
        (format!("Restart broker {b}"), Command::RestartBroker { broker: b }, format!("{} {} {b}", t.restart, t.broker))
    } else {
        (format!("Kill broker {b}"), Command::KillBroker { broker: b }, format!("{} {} {b}", t.kill, t.broker))
    };
    let onclick = {
        let on_fault = props.on_fault.clone();
        Callback::from(move |_: MouseEvent| on_fault.emit(command.clone()))
    };
    html! {
        <span class="broker-fault">
            <span class={classes!("badge", class)} title={hint.unwrap_or_default()}>{ text }</span>
            <button type="button" class={classes!("fault", down.then_some("restart"))} {onclick} aria-label={label}>{ shown }</button>
        </span>
    }
}
