use super::{BrokerInside, ClusterMap, ControllerInside, Legend, NodeBar, Situations};
use crate::sim::collections::{BTreeMap, BTreeSet};
use crate::sim::ids::NodeId;
use crate::sim::trace::Stage as SimStage;
use crate::sim::view::ClusterView;
use crate::ui::i18n::Lang;
use crate::ui::layout::Layout;
use crate::ui::state::Selection;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct StageProps {
    pub view: Rc<ClusterView>,
    pub selected: Selection,
    /// The stages of each broker the followed request has been in.
    pub visited: Rc<BTreeMap<u32, BTreeSet<SimStage>>>,
    pub narrow: bool,
    pub show_hint: bool,
    /// The simulated time to draw (it runs on between events while playing).
    pub now_ms: f64,
    /// What Play or the last Step is doing, when it says something.
    pub status: Option<String>,
    /// The broker the learner's own requests were last in.
    pub recent: Option<u32>,
    /// Background messages with a shorter trip are not drawn on the map
    /// (`player::shortest_drawn_trip_ms`); 0 draws every one.
    #[prop_or_default]
    pub shortest_trip_ms: u64,
}

/// What the stage shows inside: a broker's request path or a controller's
/// Raft state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    Broker(u32),
    Controller(u32),
}

/// The stage: the cluster picture and, under it, the insides of the node
/// the learner picked (or, until they pick one, of the broker their own
/// request is in).
#[function_component(Stage)]
pub fn stage(props: &StageProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let view = &props.view;
    let every_broker = use_state(|| false);
    let shown = resolve(view, props.selected, props.recent);
    let layout = if props.narrow { Layout::Narrow } else { Layout::Wide };
    let on_every = {
        let every_broker = every_broker.clone();
        Callback::from(move |e: Event| {
            if let Some(s) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                every_broker.set(s.value() == "all");
            }
        })
    };
    let inside = |id: u32| -> Html {
        match view.brokers.iter().find(|b| b.id == id) {
            Some(b) => html! {
                <BrokerInside key={id} broker={b.clone()} {layout} visited={props.visited.get(&id).cloned().unwrap_or_default()}
                    now_ms={props.now_ms} />
            },
            None => html! {},
        }
    };
    html! {
        <section class="stage" aria-label="Stage">
            <Situations view={view.clone()} show_hint={props.show_hint} now_ms={props.now_ms} status={props.status.clone()} />
            <ClusterMap view={view.clone()} {shown} {layout} now_ms={props.now_ms} shortest_trip_ms={props.shortest_trip_ms} />
            <NodeBar view={view.clone()} {shown} auto={props.selected == Selection::Auto}>
                if view.brokers.len() > 1 {
                    <span class="broker-choice">
                        <label for="show-brokers">{ t.show_brokers }</label>
                        <select id="show-brokers" aria-label="Show brokers" onchange={on_every}>
                            <option value="one" selected={!*every_broker}>{ t.one_broker }</option>
                            <option value="all" selected={*every_broker}>{ t.all_brokers }</option>
                        </select>
                    </span>
                }
            </NodeBar>
            if *every_broker {
                <div class="every-broker">{ for view.brokers.iter().map(|b| inside(b.id)) }</div>
            } else {
                { match shown {
                    Some(Shown::Broker(id)) => inside(id),
                    Some(Shown::Controller(id)) => html! { <ControllerInside key={id} view={view.clone()} controller={id} /> },
                    None => html! {},
                } }
            }
            <Legend />
        </section>
    }
}

/// The node the stage shows inside. Auto follows the learner's own request:
/// the broker one of their requests (or its response) is in, or is on its
/// way to or from; between requests the broker their requests were last in;
/// before the first, the leader of the first partition.
pub fn resolve(view: &ClusterView, selected: Selection, recent: Option<u32>) -> Option<Shown> {
    let exists = |b: u32| view.brokers.iter().any(|x| x.id == b);
    match selected {
        Selection::Broker(b) if exists(b) => return Some(Shown::Broker(b)),
        Selection::Controller(c) if view.quorum.as_ref().is_some_and(|q| q.controllers.iter().any(|x| x.id == c)) => {
            return Some(Shown::Controller(c));
        }
        _ => {}
    }
    let learners = |request: &crate::sim::ids::RequestId| matches!(request.client, NodeId::Client(_));
    let inside = view.brokers.iter().find(|b| crate::ui::tokens::of_broker(b).iter().any(|(_, t)| learners(&t.request)));
    let on_the_way = || {
        view.in_flight.iter().filter(|f| learners(&f.request)).find_map(|f| match (f.from, f.to) {
            (_, NodeId::Broker(b)) | (NodeId::Broker(b), _) => Some(b),
            _ => None,
        })
    };
    let pick = inside.map(|b| b.id).or_else(on_the_way).filter(|b| exists(*b)).or(recent.filter(|b| exists(*b))).or_else(|| {
        view.partitions.first().and_then(|p| p.leader).filter(|b| exists(*b)).or(view.brokers.first().map(|b| b.id))
    });
    pick.map(Shown::Broker)
}
