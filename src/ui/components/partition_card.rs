use crate::sim::view::PartitionView;
use crate::ui::i18n::Lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PartitionCardProps {
    pub partition: PartitionView,
    /// Brokers holding a replica here that are down.
    pub stopped: Vec<u32>,
}

/// One partition: its leader, epoch, ISR and HW, and a bar per replica. Its
/// own component, so only partitions that changed are drawn again.
#[function_component(PartitionCard)]
pub fn partition_card(props: &PartitionCardProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let p = &props.partition;
    // The reasons are drawn only while they are shown: they read the whole
    // view, which changes on every step.
    let open = use_state(|| false);
    let on_toggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            if let Some(d) = e.target_dyn_into::<web_sys::HtmlDetailsElement>() {
                open.set(d.open());
            }
        })
    };
    let max = p.replica_offsets.iter().map(|(_, leo, _)| *leo).max().unwrap_or(0).max(1);
    let leader = p.leader.map(|l| l.to_string()).unwrap_or_else(|| "none".into());
    html! {
        <div class="partition" role="group" aria-label={format!("Partition {}-{}", p.topic, p.partition)}>
            <h3>{ format!("{}-{}", p.topic, p.partition) }</h3>
            <p class="partition-facts">
                <span>{ format!("Leader: {leader}") }</span>
                <span>{ format!(" · {} {}", t.epoch, p.leader_epoch) }</span>
                <span>{ format!(" · ISR {}", crate::ui::story::number_list(&p.isr)) }</span>
                <span>{ format!(" · HW {}", p.high_watermark) }</span>
            </p>
            <ul class="replica-bars">
            { for p.replica_offsets.iter().map(|(b, leo, hw)| {
                let leads = Some(*b) == p.leader;
                let (role, role_text) = if leads { ("leader", t.leader_word) } else { ("follower", t.follower_word) };
                let in_isr = p.isr.contains(b);
                let mut isr_note = if in_isr { String::new() } else { format!(", {}", t.out_of_isr) };
                if props.stopped.contains(b) {
                    isr_note.push_str(&format!(", {}", t.status_stopped));
                }
                html! {
                    <li class={classes!("replica-bar", role, (!in_isr).then_some("out-of-isr"))}>
                        <span class="replica-name">{ format!("{} {b} ({role_text}{isr_note})", t.broker) }</span>
                        <span class="bar" aria-hidden="true">
                            <span class="bar-hw" style={format!("width: {}%", hw * 100 / max)}></span>
                            <span class="bar-leo" style={format!("width: {}%", (leo - hw).max(0) * 100 / max)}></span>
                        </span>
                        <span class="replica-offsets">{ format!("LEO {leo} · HW {hw}") }</span>
                    </li>
                }
            }) }
            </ul>
            <details class="why" ontoggle={on_toggle}>
                <summary aria-label={format!("Why? {}-{}", p.topic, p.partition)}>{ t.why_partition }</summary>
                if *open {
                    <super::PartitionWhyPanel topic={p.topic.clone()} partition={p.partition} />
                }
            </details>
        </div>
    }
}

