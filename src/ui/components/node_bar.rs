use super::cluster_map::{controller_role, status_class, status_text};
use super::stage::Shown;
use crate::sim::ids::NodeId;
use crate::sim::simulation::Command;
use crate::sim::view::{BrokerStatus, ClusterView};
use crate::ui::faults;
use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::{self, Lang};
use crate::ui::state::{Action, Dispatch};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NodeBarProps {
    pub view: Rc<ClusterView>,
    pub shown: Option<Shown>,
    /// The learner has not picked a node: the stage follows their request.
    pub auto: bool,
    #[prop_or_default]
    pub children: Html,
}

/// The picked node's name, status and what it leads, and what the learner
/// can do to it: Kill (a crash), Restart, Shut down (a controlled shutdown),
/// Isolate (a network partition around it); and Heal once any cut is in
/// place.
#[function_component(NodeBar)]
pub fn node_bar(props: &NodeBarProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let dispatch = use_dispatch();
    let view = &props.view;
    let (title, status_class_name, status, summary, buttons, hint) = match props.shown {
        Some(Shown::Broker(id)) => {
            let status = view.brokers.iter().find(|b| b.id == id).map_or(BrokerStatus::Stopped, |b| b.status);
            let isolated = faults::is_cut_off(view, NodeId::Broker(id));
            let leads: Vec<String> =
                view.partitions.iter().filter(|p| p.leader == Some(id)).map(|p| format!("{}-{}", p.topic, p.partition)).collect();
            let summary = i18n::leads_summary(lang, &leads);
            let button = |label: String, shown: String, command: Command, class: &'static str| {
                fault_button(&dispatch, label, shown, command, class)
            };
            let buttons = html! {
                <>
                    if status == BrokerStatus::Stopped {
                        { button(format!("Restart broker {id}"), format!("{} {} {id}", t.restart, t.broker), Command::RestartBroker { broker: id }, "restart") }
                    } else {
                        { button(format!("Kill broker {id}"), format!("{} {} {id}", t.kill, t.broker), Command::KillBroker { broker: id }, "kill") }
                        if status != BrokerStatus::ShuttingDown {
                            { button(format!("Shut down broker {id}"), t.shut_down.to_string(), Command::ShutdownBroker { broker: id }, "shutdown") }
                        }
                    }
                    if !isolated {
                        { button(format!("Isolate broker {id}"), t.isolate.to_string(), faults::isolate(view, NodeId::Broker(id)), "isolate") }
                    }
                </>
            };
            let status_word = if isolated { t.isolated } else { status_text(t, status) };
            let hint = match status {
                _ if isolated => t.isolated_hint,
                BrokerStatus::Running => "",
                BrokerStatus::Fenced => t.status_fenced_hint,
                BrokerStatus::ShuttingDown => t.status_shutting_down_hint,
                BrokerStatus::Stopped => t.status_stopped_hint,
            };
            (format!("{} {id}", t.broker), status_class(status), status_word.to_string(), summary, buttons, hint)
        }
        Some(Shown::Controller(id)) => {
            let c = view.quorum.as_ref().and_then(|q| q.controllers.iter().find(|c| c.id == id));
            let alive = c.is_some_and(|c| c.alive);
            let (class, role) =
                controller_role(t, alive, c.is_some_and(|c| c.active), c.and_then(|c| c.raft.as_ref()).map(|r| &r.role), c.and_then(|c| c.raft.as_ref()).map_or(0, |r| r.epoch));
            let isolated = faults::is_cut_off(view, NodeId::Controller(id));
            let buttons = html! {
                <>
                    if alive {
                        { fault_button(&dispatch, format!("Kill controller {id}"), format!("{} {} {id}", t.kill, t.controller), Command::KillController { controller: id }, "kill") }
                    } else {
                        { fault_button(&dispatch, format!("Restart controller {id}"), format!("{} {} {id}", t.restart, t.controller), Command::RestartController { controller: id }, "restart") }
                    }
                    if !isolated {
                        { fault_button(&dispatch, format!("Isolate controller {id}"), t.isolate.to_string(), faults::isolate(view, NodeId::Controller(id)), "isolate") }
                    }
                </>
            };
            let status = if isolated { t.isolated.to_string() } else { role };
            (format!("{} {id}", t.controller), class, status, String::new(), buttons, if isolated { t.isolated_hint } else { "" })
        }
        None => (String::new(), "", String::new(), String::new(), html! {}, ""),
    };
    let heal = {
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::Fault(Command::Heal)))
    };
    html! {
        <div class="node-bar" role="group" aria-label="Picked node">
            <span class="node-title">
                <strong>{ title }</strong>
                <span class={classes!("badge", status_class_name)} title={hint}>{ status }</span>
                if props.auto {
                    <span class="auto-note" title={t.auto_pick_hint}>{ t.auto_pick }</span>
                }
            </span>
            if !summary.is_empty() {
                <span class="node-summary">{ summary }</span>
            }
            <span class="fault-buttons">
                { buttons }
                if !view.network_cuts.is_empty() {
                    <button type="button" class="fault restart" onclick={heal} aria-label="Heal network">{ t.heal_network }</button>
                }
            </span>
            { props.children.clone() }
        </div>
    }
}

/// A fault button: `label` is its accessible (English) name, `shown` its
/// text in the page's language, `class` its colour.
fn fault_button(dispatch: &Dispatch, label: String, shown: String, command: Command, class: &'static str) -> Html {
    let dispatch = dispatch.clone();
    let onclick = Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::Fault(command.clone())));
    html! { <button type="button" class={classes!("fault", class)} {onclick} aria-label={label}>{ shown }</button> }
}
