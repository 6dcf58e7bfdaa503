use super::pipeline::LogRow;
use super::{Pipeline, TimingWheel};
use crate::sim::collections::BTreeSet;
use crate::sim::trace::Stage as SimStage;
use crate::sim::view::{BrokerStatus, BrokerView};
use crate::ui::i18n::Lang;
use crate::ui::layout::Layout;
use crate::ui::narration;
use crate::ui::tokens;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BrokerInsideProps {
    pub broker: BrokerView,
    pub layout: Layout,
    /// The stages here that the followed request has been in.
    pub visited: BTreeSet<SimStage>,
    /// The simulated time to draw, for the purgatory's countdowns.
    pub now_ms: f64,
}

/// One broker's insides: its request path with the requests in it, its
/// replica fetchers and logs, and what waits in purgatory and for how long.
#[function_component(BrokerInside)]
pub fn broker_inside(props: &BrokerInsideProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let b = &props.broker;
    let on_disk = b.status == BrokerStatus::Stopped;
    let logs: Vec<LogRow> = b
        .replicas
        .iter()
        .map(|r| LogRow {
            name: format!("{}-{}", r.topic, r.partition),
            leader: r.is_leader && !on_disk,
            log_end_offset: r.log_end_offset,
            high_watermark: r.high_watermark,
            on_disk,
        })
        .collect();
    let waits: Vec<(String, i64)> = b
        .purgatory
        .produce
        .iter()
        .chain(b.purgatory.fetch.iter())
        .map(|op| {
            let why: Vec<String> = op.waits.iter().map(|w| narration::describe_wait(lang, w)).collect();
            (format!("{}: {}", op.token.request, why.join("; ")), op.deadline_ms)
        })
        .collect();
    let now = props.now_ms as i64;
    let mut purgatory_deadlines: Vec<i64> =
        b.purgatory.produce.iter().chain(b.purgatory.fetch.iter()).map(|op| op.deadline_ms).collect();
    crate::sim::collections::sort_by(&mut purgatory_deadlines, Ord::cmp);
    html! {
        <section class={classes!("broker-inside", super::cluster_map::status_class(b.status))} role="region"
            aria-label={format!("Broker {}", b.id)}>
            <h3 class="inside-title">{ format!("{} {} · {}", t.broker, b.id, t.inside_word) }</h3>
            <Pipeline layout={props.layout} network_threads={b.network_threads.len() as u32} io_threads={b.io_threads.len() as u32}
                request_queue_capacity={b.request_queue_capacity} tokens={Rc::new(tokens::of_broker(b))}
                visited={props.visited.clone()} fetchers={b.fetchers.clone()} {logs} {purgatory_deadlines} />
            if !waits.is_empty() {
                <details class="purgatory-box">
                    <summary>{ format!("{} ({})", t.purgatory_details, waits.len()) }</summary>
                    <ul class="purgatory-waits" aria-label="Waiting in purgatory">
                        { for waits.iter().map(|(w, deadline)| html! {
                            <li>
                                { w }
                                <span class="countdown">{ format!(" · {} {}", t.expires_in, crate::ui::i18n::duration(lang, (*deadline - now).max(0) as u64)) }</span>
                            </li>
                        }) }
                    </ul>
                    <div class="wheels">
                        if b.purgatory.produce_timer.task_count > 0 {
                            <TimingWheel name="Produce" wheel={b.purgatory.produce_timer.clone()} />
                        }
                        if b.purgatory.fetch_timer.task_count > 0 {
                            <TimingWheel name="Fetch" wheel={b.purgatory.fetch_timer.clone()} />
                        }
                    </div>
                </details>
            }
        </section>
    }
}
