use super::PartitionCard;
use crate::sim::view::PartitionView;
use crate::ui::i18n::Lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PartitionsProps {
    pub partitions: Vec<PartitionView>,
    /// Brokers that are down, to mark their replicas.
    pub stopped: Vec<u32>,
}

#[function_component(Partitions)]
pub fn partitions(props: &PartitionsProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    html! {
        <section class="partitions-overview" aria-label="Partitions">
            <h2>{ t.partitions }</h2>
            <div class="partition-list">
            { for props.partitions.iter().map(|p| {
                // Only the stopped brokers that hold a replica here, so a
                // broker stopping redraws just the partitions it holds.
                let stopped: Vec<u32> = p.replicas.iter().copied().filter(|b| props.stopped.contains(b)).collect();
                html! { <PartitionCard key={format!("{}-{}", p.topic, p.partition)} partition={p.clone()} {stopped} /> }
            }) }
            </div>
        </section>
    }
}

