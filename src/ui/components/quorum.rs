use super::{ControllerCard, NetworkFaults};
use crate::sim::ids::NodeId;
use crate::sim::view::ClusterView;
use crate::ui::i18n::{self, Lang};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct QuorumProps {
    pub view: std::rc::Rc<ClusterView>,
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
                    let isolated = crate::ui::faults::is_cut_off(&props.view, NodeId::Controller(c.id));
                    html! { <ControllerCard controller={c.clone()} {isolated} /> }
                }) }
            </div>
            <NetworkFaults cuts={props.view.network_cuts.clone()} />
        </section>
    }
}

