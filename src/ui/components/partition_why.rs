use crate::ui::i18n::Lang;
use crate::ui::why::{high_watermark_text, leader_text, partition_why, replica_text};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WhyProps {
    pub topic: AttrValue,
    pub partition: u32,
}

/// The "Why?" of one partition. It reads the whole view from a context, so
/// it is drawn only while it is open (the partition cards stay cheap).
#[function_component(PartitionWhyPanel)]
pub fn partition_why_panel(props: &WhyProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let Some(view) = use_context::<crate::ui::Shared<crate::sim::view::ClusterView>>() else {
        return html! {};
    };
    let Some(why) = partition_why(&view.0, &props.topic, props.partition) else {
        return html! {};
    };
    html! {
        <ul class="why-list">
            <li>{ leader_text(lang, &why.leader) }</li>
            { for why.replicas.iter().map(|r| html! { <li>{ replica_text(lang, r, why.replica_lag_time_max_ms) }</li> }) }
            <li>{ high_watermark_text(lang, &why) }</li>
        </ul>
    }
}

