use crate::sim::ids::NodeId;
use crate::ui::i18n::Lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NetworkFaultsProps {
    pub cuts: Vec<(Vec<NodeId>, Vec<NodeId>)>,
}

/// The network partitions in place (Heal is on the stage, beside the picked
/// node).
#[function_component(NetworkFaults)]
pub fn network_faults(props: &NetworkFaultsProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let names = |side: &[NodeId]| side.iter().map(NodeId::to_string).collect::<Vec<_>>().join(", ");
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
        </section>
    }
}
