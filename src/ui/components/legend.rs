use crate::ui::i18n::Lang;
use yew::prelude::*;

/// What the colours mean, in one line under the stage.
#[function_component(Legend)]
pub fn legend() -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let item = |class: &'static str, text: &'static str| {
        html! { <span class="legend-item"><span class={classes!("chip-swatch", class)} aria-hidden="true">{ "Aa" }</span>{ text }</span> }
    };
    html! {
        <p class="legend" aria-label="Legend">
            { item("produce", t.legend_produce) }
            { item("fetch", t.legend_fetch) }
            { item("follower-fetch", t.legend_follower_fetch) }
            { item("metadata", t.legend_metadata) }
            { item("raft", t.legend_quorum) }
            { item("broker-control", t.legend_broker_control) }
            { item("response", t.legend_response) }
            { item("followed", t.legend_followed) }
        </p>
    }
}
